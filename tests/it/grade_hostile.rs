//! `arbiter grade` against a hostile class: submissions that try to run code, read files or
//! leave files on the host at build time (a `py_compile.py`, a bot.toml build command, C's
//! `#include` and `.incbin` of a secret, Rust's `include_str!` of one, a symlink to a root-only
//! file, a FIFO), next to a
//! student with two submissions and a student whose name is a spreadsheet formula. Each of
//! them got through on the code before the build box; here the secret appears nowhere (not in
//! a log, the page, the CSVs, the cache or arbiter's output), nothing is written on the host,
//! and the honest students are graded all the same.

use crate::common::*;
use std::path::Path;

/// Reads the Impasse arena input and answers the first offered move.
const PY_BOT: &str = r#"import sys
turn = 0
while True:
    turn += 1
    if turn == 1:
        input()  # colour
    for _ in range(8):
        input()
    input()  # last move
    moves = [input() for _ in range(int(input()))]
    print(moves[0])
"#;

/// A C bot that prints a block of bytes baked into it (by `.incbin`) on stderr, then plays.
const INCBIN_C: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__asm__(".section .rodata\n.global baked\nbaked:\n.incbin \"SECRET\"\n.byte 0\n.previous\n");
extern const char baked[];
int main(void) {
    char line[256], move[64];
    int first = 1;
    fprintf(stderr, "baked: %s\n", baked);
    for (;;) {
        if (first) { if (!fgets(line, sizeof line, stdin)) return 0; first = 0; }
        for (int i = 0; i < 9; i++) if (!fgets(line, sizeof line, stdin)) return 0;
        if (!fgets(line, sizeof line, stdin)) return 0;
        int n = atoi(line);
        for (int i = 0; i < n; i++) {
            if (!fgets(line, sizeof line, stdin)) return 0;
            if (i == 0) { line[strcspn(line, "\n")] = 0; strcpy(move, line); }
        }
        printf("%s\n", move);
    }
}
"#;

/// Every file under `dir` that holds `needle`.
fn files_holding(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            found.extend(files_holding(&p, needle));
        } else if meta.is_file() {
            let bytes = std::fs::read(&p).unwrap_or_default();
            if bytes.windows(needle.len()).any(|w| w == needle) {
                found.push(p.display().to_string());
            }
        }
    }
    found
}

#[test]
fn hostile_submissions_see_nothing_write_nothing_and_the_rest_of_the_class_is_graded() {
    if !bwrap_or_fail() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The secret: readable by arbiter's user only, in a folder only it may enter.
    let private = tmp.path().join("private");
    std::fs::create_dir(&private).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let secret_word = format!("TOPSECRET{}X", std::process::id());
    let secret = private.join("secret.txt");
    std::fs::write(&secret, format!("{secret_word} the grader's own line\n")).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let s = secret.display().to_string();
    let marker = |name: &str| private.join(name);

    let class = tmp.path().join("class");
    std::fs::create_dir(&class).unwrap();
    let write = |name: &str, text: &str| {
        let path = class.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("honest.py", PY_BOT);
    // Run by `python3 -m py_compile py_compile.py` from its own folder before the fix (as
    // `__main__`, with the file to check as its argument); a plain bot when run alone.
    write(
        "py_compile.py",
        &format!(
            "import sys\n\
             if sys.argv[1:]:\n    \
                 open({:?}, 'w').write('imported')\n    \
                 print(open({s:?}).read())\n\
             else:\n    exec({PY_BOT:?})\n",
            marker("imported").display().to_string()
        ),
    );
    // A build command that reads the secret and writes on the host.
    write("eve/bot.py", PY_BOT);
    write(
        "eve/bot.toml",
        &format!(
            "run = \"python3 bot.py\"\nbuild = \"sh -c 'id -u > uid.txt; cat {s}; cat {s} > stolen.txt; echo x > {}; echo x > {}; ln -s {s} build.log; ln -s {s} leak; true'\"\n",
            marker("from-build").display(),
            class.join("eve/written").display()
        ),
    );
    write(
        "inc.c",
        &format!("#include \"{s}\"\nint main(void) {{ return 0; }}\n"),
    );
    write("incbin.c", &INCBIN_C.replace("SECRET", &s));
    std::os::unix::fs::symlink(&secret, class.join("sym.py")).unwrap();
    std::fs::create_dir(class.join("fifo")).unwrap();
    std::fs::write(class.join("fifo/bot.py"), PY_BOT).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        class.join("fifo/pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    write("dup.py", PY_BOT);
    write("dup.c", "int main(void) { return 0; }\n");
    let formula = "=HYPERLINK(\"http:x\";\"y\")";
    write(&format!("{formula}.py"), PY_BOT);

    let out = tmp.path().join("out");
    let cache = tmp.path().join("cache");
    let run = arbiter()
        .env("ARBITER_CACHE", &cache)
        .args([
            "grade",
            "--games",
            "2",
            "--seed",
            "5",
            "--first-turn-ms",
            "5000",
            "--turn-ms",
            "1000",
            "--clock",
            "cpu",
            "--baseline",
            &first_bot(),
        ])
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stderr}\n{stdout}");

    // The secret is nowhere: not in arbiter's output, the results or the build cache.
    assert!(!stderr.contains(&secret_word), "{stderr}");
    assert!(!stdout.contains(&secret_word), "{stdout}");
    assert_eq!(
        files_holding(&out, secret_word.as_bytes()),
        Vec::<String>::new()
    );
    assert_eq!(
        files_holding(&cache, secret_word.as_bytes()),
        Vec::<String>::new()
    );
    // Nothing was written on the host by a build.
    for m in ["imported", "from-build"] {
        assert!(!marker(m).exists(), "{m}");
    }
    assert!(!class.join("eve/written").exists());
    assert!(!class.join("eve/uid.txt").exists(), "built in place");

    let rows = read_csv(&out.join("marks.csv"));
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["student"] == name || r["student"] == format!("'{name}"))
            .unwrap_or_else(|| panic!("{name} not in marks.csv: {rows:?}"))
    };
    // The honest ones, the one named after a module and the build that found nothing to steal
    // are graded.
    for name in ["honest", "py_compile", "eve", formula] {
        assert_eq!(row(name)["built"], "yes", "{name}: {:?}", row(name));
        assert_eq!(row(name)["games"], "8", "{name}: {:?}", row(name));
    }
    // eve's build ran, boxed: not as root, in a copy of her folder.
    let copies: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("uid.txt").is_file())
        .collect();
    assert_eq!(copies.len(), 1);
    let uid = std::fs::read_to_string(copies[0].path().join("uid.txt")).unwrap();
    if rustix::process::geteuid().is_root() {
        assert_ne!(uid.trim(), "0");
    }
    // The symlinks the build left to the secret: replaced (the log) or removed, never followed.
    assert!(std::fs::symlink_metadata(copies[0].path().join("leak")).is_err());
    assert!(
        std::fs::symlink_metadata(copies[0].path().join("build.log"))
            .unwrap()
            .is_file()
    );
    assert!(std::fs::read_to_string(&secret)
        .unwrap()
        .starts_with(&secret_word));
    // The C files that reach for the secret do not build; the compiler says it found nothing.
    for name in ["inc", "incbin"] {
        let r = row(name);
        assert_eq!(r["built"], "no", "{name}: {r:?}");
        let log = std::fs::read_to_string(out.join(format!("builds/{name}.log"))).unwrap();
        assert!(
            log.contains("No such file or directory") || log.contains("file not found"),
            "{name}: {log}"
        );
    }
    let sym = row("sym");
    assert_eq!(sym["built"], "no");
    assert!(
        sym["problem"].contains("symlink leading out of the class folder"),
        "{sym:?}"
    );
    let fifo = row("fifo");
    assert_eq!(fifo["built"], "no");
    assert!(fifo["problem"].contains("FIFO"), "{fifo:?}");
    // Two submissions for one student: both named, that student not graded, the rest are.
    let dup = row("dup");
    assert_eq!(dup["built"], "no");
    assert!(dup["problem"].contains("dup.c and dup.py"), "{dup:?}");
    assert!(stderr.contains("dup.c and dup.py"), "{stderr}");
    // The formula is text in marks.csv, games.csv and submissions.csv.
    let marks = std::fs::read_to_string(out.join("marks.csv")).unwrap();
    assert!(
        marks.contains("\"'=HYPERLINK(\"\"http:x\"\";\"\"y\"\")\""),
        "{marks}"
    );
    for file in ["marks.csv", "games.csv", "submissions.csv"] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        let raw = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(text.as_bytes())
            .records()
            .flatten()
            .flat_map(|r| r.iter().map(String::from).collect::<Vec<_>>())
            .filter(|cell| cell.starts_with('='))
            .collect::<Vec<_>>();
        assert!(raw.is_empty(), "{file}: {raw:?}");
    }
}

#[test]
fn without_bubblewrap_a_source_file_is_not_built_at_all() {
    let tmp = tempfile::tempdir().unwrap();
    let source = tmp.path().join("mine.c");
    std::fs::write(&source, "int main(void) { return 0; }\n").unwrap();
    let cache = tmp.path().join("cache");
    // A PATH without bwrap (the compilers are looked for in the system folders regardless).
    let empty = tmp.path().join("bin");
    std::fs::create_dir(&empty).unwrap();
    let out = arbiter()
        .env("PATH", &empty)
        .env("ARBITER_CACHE", &cache)
        .args(["play", "--seed", "1"])
        .arg(&source)
        .arg(first_bot())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("bubblewrap") && stderr.contains("apt-get install bubblewrap"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("apt-get install bubblewrap").count(),
        1,
        "said once: {stderr}"
    );
    let built = std::fs::read_dir(&cache).map_or(0, |d| d.count());
    assert_eq!(built, 0, "nothing built unboxed");
}

/// A Rust submission whose build bakes host files into the program with `include_str!`: a
/// secret of the grader's (root-only, in a folder only root may enter) and a file beside the
/// submission (another student's). Built directly by rustc it would hold both; in the build
/// box neither exists, the build fails saying so, and the secret is nowhere.
#[test]
fn a_rust_build_cannot_bake_in_a_file_of_the_host() {
    if !bwrap_or_fail() {
        return;
    }
    let Some(rustc) = ["/usr/local/bin/rustc", "/usr/bin/rustc"]
        .iter()
        .map(Path::new)
        .find(|p| p.is_file())
    else {
        // The build box uses the system's rustc only (a rustup one under /root is not
        // reachable for its unprivileged user).
        crate::common::skip(
            "this test needs the system's rustc: apt-get install rustc (.ci/run installs it)",
        );
        return;
    };
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let private = tmp.path().join("private");
    std::fs::create_dir(&private).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let secret_word = format!("RUSTSECRET{}X", std::process::id());
    let secret = private.join("secret.txt");
    std::fs::write(&secret, format!("{secret_word} grader\n")).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let class = tmp.path().join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::write(
        class.join("neighbour.txt"),
        format!("{secret_word} student\n"),
    )
    .unwrap();
    let source = class.join("thief.rs");
    std::fs::write(
        &source,
        format!(
            "const SECRET: &str = include_str!({:?});\n\
             const NEIGHBOUR: &str = include_str!(\"neighbour.txt\");\n\
             fn main() {{ print!(\"{{SECRET}}{{NEIGHBOUR}}\"); }}\n",
            secret.display().to_string()
        ),
    )
    .unwrap();
    // The attack is real: rustc run by hand, as root, bakes both files in.
    let plain = tmp.path().join("plain");
    let built = std::process::Command::new(rustc)
        .current_dir(&class)
        .args(["--edition", "2021", "-o"])
        .arg(&plain)
        .arg(&source)
        .output()
        .unwrap();
    if built.status.success() {
        let run = std::process::Command::new(&plain).output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&run.stdout)
                .matches(&secret_word)
                .count(),
            2
        );
    } else {
        // Not root: the grader's secret is closed to this user too.
        assert!(!rustix::process::geteuid().is_root(), "{built:?}");
    }

    let cache = tmp.path().join("cache");
    let out = arbiter()
        .current_dir(&class)
        .env("ARBITER_CACHE", &cache)
        .args(["play", "--seed", "1", "thief.rs"])
        .arg(first_bot())
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stderr}\n{stdout}");
    assert!(stderr.contains("couldn't read"), "{stderr}");
    assert!(stderr.contains("neighbour.txt"), "{stderr}");
    assert!(stderr.contains(&secret.display().to_string()), "{stderr}");
    assert!(!stderr.contains(&secret_word), "{stderr}");
    assert!(!stdout.contains(&secret_word), "{stdout}");
    assert_eq!(
        files_holding(&cache, secret_word.as_bytes()),
        Vec::<String>::new()
    );
}

/// A source file named like an option (`--baseline.py`) is built as a file: py_compile once
/// read it as an option and failed with its usage text, and `ruby -c -rjson.rb` loaded the
/// file as a library and passed an empty standard input as the checked program.
#[test]
fn a_source_named_like_an_option_is_built_as_a_file() {
    if !bwrap_or_fail() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("--baseline.py"), PY_BOT).unwrap();
    std::fs::write(tmp.path().join("-broken.py"), "this is not python (\n").unwrap();
    let play = |file: &str| {
        arbiter()
            .current_dir(tmp.path())
            .env("ARBITER_CACHE", tmp.path().join("cache"))
            .args(["play", "--json", "--seed", "1", "--max-turns", "4"])
            .args(["--first-turn-ms", "20000", "--turn-ms", "5000", file])
            .arg(first_bot())
            .timeout(std::time::Duration::from_secs(300))
            .output()
            .unwrap()
    };
    let honest = play("./--baseline.py");
    assert_eq!(json_of(&honest)["reason"], "turn-limit", "{honest:?}");
    let broken = play("./-broken.py");
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert!(!broken.status.success(), "{stderr}");
    assert!(stderr.contains("SyntaxError"), "{stderr}");
}
