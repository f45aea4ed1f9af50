//! The languages of single-file bots: how each is told (its extension), which programs it needs
//! (with their Debian packages), how it is built in its build folder with the arena's usual
//! settings, and how the built bot is run.

use std::path::{Path, PathBuf};

/// Linked into C and C++ bots: the arena's stdout is line-buffered (its templates only remind
/// bot writers of the trailing newline), while a C program's stdout on a pipe is fully buffered.
const LINE_BUFFER_C: &str = "#include <stdio.h>\n\
__attribute__((constructor)) static void arbiter_line_buffered_stdout(void) {\n\
    setvbuf(stdout, NULL, _IOLBF, 0);\n\
}\n";

/// Required by Ruby bots before their own code: the arena's Ruby stdout is synchronous.
const RUBY_SYNC: &str = "$stdout.sync = true\n";

/// What a TypeScript bot may call without declaring it, as on the arena.
const TS_GLOBALS: &str = "declare function readline(): string;\n\
declare function print(...args: any[]): void;\n\
declare function printErr(...args: any[]): void;\n";

/// The languages a single-file bot may be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Python,
    C,
    Cpp,
    Java,
    JavaScript,
    TypeScript,
    Rust,
    Go,
    CSharp,
    Kotlin,
    Ruby,
    Php,
}

/// The JVM flag that keeps its perf data in memory rather than in a file under /tmp.
const NO_PERF_DATA: &str = "-XX:-UsePerfData";

impl Language {
    pub const ALL: [Language; 12] = [
        Language::Python,
        Language::C,
        Language::Cpp,
        Language::Java,
        Language::JavaScript,
        Language::TypeScript,
        Language::Rust,
        Language::Go,
        Language::CSharp,
        Language::Kotlin,
        Language::Ruby,
        Language::Php,
    ];

    /// The language of a file, by its extension.
    pub fn of(path: &Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?;
        Language::ALL.into_iter().find(|l| l.extension() == ext)
    }

    pub fn extension(self) -> &'static str {
        match self {
            Language::Python => "py",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Java => "java",
            Language::JavaScript => "js",
            Language::TypeScript => "ts",
            Language::Rust => "rs",
            Language::Go => "go",
            Language::CSharp => "cs",
            Language::Kotlin => "kt",
            Language::Ruby => "rb",
            Language::Php => "php",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::C => "C",
            Language::Cpp => "C++",
            Language::Java => "Java",
            Language::JavaScript => "JavaScript",
            Language::TypeScript => "TypeScript",
            Language::Rust => "Rust",
            Language::Go => "Go",
            Language::CSharp => "C#",
            Language::Kotlin => "Kotlin",
            Language::Ruby => "Ruby",
            Language::Php => "PHP",
        }
    }

    /// The programs the language needs, each with the Debian package that installs it.
    pub fn tools(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Language::Python => &[("python3", "python3")],
            Language::C => &[("gcc", "gcc")],
            Language::Cpp => &[("g++", "g++")],
            Language::Java => &[
                ("javac", "default-jdk-headless"),
                ("java", "default-jdk-headless"),
            ],
            Language::JavaScript => &[("node", "nodejs")],
            Language::TypeScript => &[("tsc", "node-typescript"), ("node", "nodejs")],
            Language::Rust => &[("rustc", "rustc")],
            Language::Go => &[("go", "golang-go")],
            Language::CSharp => &[("mcs", "mono-mcs"), ("mono", "mono-runtime")],
            Language::Kotlin => &[("kotlinc", "kotlin"), ("java", "default-jdk-headless")],
            Language::Ruby => &[("ruby", "ruby")],
            Language::Php => &[("php", "php-cli")],
        }
    }

    /// The name the source is copied to in the build folder: Java's must match its class
    /// `Player`; the others keep the student's name (when it is a plain one), so that compiler
    /// messages name the file the student knows.
    pub(super) fn file_name(self, original: &Path) -> String {
        if self == Language::Java {
            return "Player.java".into();
        }
        let plain = original.file_name().and_then(|n| n.to_str()).filter(|n| {
            n.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
                && !n.starts_with('.')
        });
        match plain {
            Some(n) => n.to_string(),
            None => format!("bot.{}", self.extension()),
        }
    }

    /// The build steps, run in the build folder, where the source is `src` (a plain file name):
    /// each a program and its arguments. The settings follow the arena: C17 and C++17 (GNU dialects) with the math,
    /// thread, dl and crypt libraries, at -O2; the interpreted languages get a syntax check so
    /// that a file that cannot run is a build failure, not a crash in every game.
    pub(super) fn steps(self, src: &str) -> Vec<Vec<String>> {
        let v = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        // A student's file may be named like an option (`-rjson.rb`, `--baseline.py`): given
        // as `./NAME` it is always a file to every compiler and checker (`ruby -c -rjson.rb`
        // loaded it as a library and checked an empty standard input instead).
        let src = &format!("./{src}");
        match self {
            // -I: nothing is imported from the build folder (a `py_compile.py` beside the bot).
            Language::Python => vec![v(&["python3", "-I", "-m", "py_compile", src])],
            Language::C => vec![v(&[
                "gcc",
                "-std=gnu17",
                "-O2",
                "-o",
                "bot",
                src,
                "arbiter_line_buffer.c",
                "-lm",
                "-lpthread",
                "-ldl",
                "-lcrypt",
            ])],
            Language::Cpp => vec![v(&[
                "g++",
                "-std=gnu++17",
                "-O2",
                "-o",
                "bot",
                src,
                "arbiter_line_buffer.c",
                "-lm",
                "-lpthread",
                "-ldl",
                "-lcrypt",
            ])],
            Language::Java => vec![v(&["javac", "-encoding", "UTF-8", "-d", "classes", src])],
            Language::JavaScript => vec![v(&["node", "--check", src])],
            Language::TypeScript => vec![v(&[
                "tsc",
                "--target",
                "es2020",
                "--module",
                "commonjs",
                "--skipLibCheck",
                "--outDir",
                "out",
                src,
                "arbiter_globals.d.ts",
            ])],
            Language::Rust => vec![v(&["rustc", "--edition", "2021", "-O", "-o", "bot", src])],
            Language::Go => vec![v(&["go", "build", "-o", "bot", src])],
            Language::CSharp => vec![v(&["mcs", "-optimize+", "-out:bot.exe", src])],
            Language::Kotlin => vec![v(&["kotlinc", src, "-include-runtime", "-d", "bot.jar"])],
            Language::Ruby => vec![v(&["ruby", "-c", src])],
            Language::Php => vec![v(&["php", "-l", src])],
        }
    }

    /// The files the build adds beside the source: `(name, contents)`.
    pub(super) fn support_files(self) -> &'static [(&'static str, &'static str)] {
        const PRELUDE: &str = include_str!("readline_prelude.js");
        match self {
            Language::C | Language::Cpp => &[("arbiter_line_buffer.c", LINE_BUFFER_C)],
            Language::JavaScript => &[("arbiter_readline.js", PRELUDE)],
            Language::TypeScript => &[
                ("arbiter_readline.js", PRELUDE),
                ("arbiter_globals.d.ts", TS_GLOBALS),
            ],
            Language::Ruby => &[("arbiter_sync.rb", RUBY_SYNC)],
            _ => &[],
        }
    }

    /// How the built bot runs from its folder `dir`: program and arguments.
    pub(super) fn run(self, dir: &Path, src: &str) -> (PathBuf, Vec<String>) {
        let p = |name: &str| dir.join(name).display().to_string();
        let stem = src.rsplit_once('.').map_or(src, |(s, _)| s);
        let (program, args): (&str, Vec<String>) = match self {
            Language::Python => ("python3", vec!["-u".into(), p(src)]),
            Language::C | Language::Cpp | Language::Rust | Language::Go => {
                return (dir.join("bot"), Vec::new())
            }
            // Without perf data: a JVM keeps it in /tmp/hsperfdata_USER/PID, and two bots that
            // run as one user, each pid 1 of its namespace, would share that file; the second
            // then warns on stdout, where its answers go.
            Language::Java => (
                "java",
                vec![
                    NO_PERF_DATA.into(),
                    "-cp".into(),
                    p("classes"),
                    "Player".into(),
                ],
            ),
            Language::JavaScript => (
                "node",
                vec!["--require".into(), p("arbiter_readline.js"), p(src)],
            ),
            Language::TypeScript => (
                "node",
                vec![
                    "--require".into(),
                    p("arbiter_readline.js"),
                    p(&format!("out/{stem}.js")),
                ],
            ),
            Language::CSharp => ("mono", vec![p("bot.exe")]),
            Language::Kotlin => (
                "java",
                vec![NO_PERF_DATA.into(), "-jar".into(), p("bot.jar")],
            ),
            Language::Ruby => ("ruby", vec!["-r".into(), p("arbiter_sync.rb"), p(src)]),
            Language::Php => ("php", vec![p(src)]),
        };
        (PathBuf::from(program), args)
    }
}
