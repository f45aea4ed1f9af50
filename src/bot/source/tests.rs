use super::*;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn the_language_is_told_by_the_extension() {
    assert_eq!(Language::of(Path::new("a/bot.py")), Some(Language::Python));
    assert_eq!(Language::of(Path::new("Player.java")), Some(Language::Java));
    assert_eq!(Language::of(Path::new("main.cpp")), Some(Language::Cpp));
    assert_eq!(Language::of(Path::new("x.kt")), Some(Language::Kotlin));
    assert_eq!(Language::of(Path::new("bot")), None);
    assert_eq!(Language::of(Path::new("notes.txt")), None);
    for l in Language::ALL {
        assert!(!l.tools().is_empty(), "{l:?}");
        assert!(!l.steps("x").is_empty(), "{l:?}");
    }
}

#[test]
fn a_source_named_like_an_option_is_never_an_option() {
    for l in Language::ALL {
        let name = format!("-rjson.{}", l.extension());
        let steps = l.steps(&name);
        let given: Vec<&String> = steps
            .iter()
            .flatten()
            .filter(|a| a.contains(&name))
            .collect();
        assert!(!given.is_empty(), "{l:?}: {steps:?}");
        for arg in given {
            assert_eq!(arg, &format!("./{name}"), "{l:?}: {steps:?}");
        }
    }
}

#[test]
fn a_folder_is_a_bot_when_it_has_exactly_one_source_file() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(single_source(dir.path()), None);
    std::fs::write(dir.path().join("README.md"), "notes").unwrap();
    std::fs::write(dir.path().join(".hidden.py"), "").unwrap();
    std::fs::write(dir.path().join("bot.py"), "print(1)").unwrap();
    assert_eq!(single_source(dir.path()), Some(dir.path().join("bot.py")));
    std::fs::write(dir.path().join("other.c"), "").unwrap();
    assert_eq!(single_source(dir.path()), None, "two sources: ambiguous");
}

#[test]
fn java_is_always_player_and_odd_names_become_bot() {
    assert_eq!(
        Language::Java.file_name(Path::new("x/alice.java")),
        "Player.java"
    );
    assert_eq!(Language::C.file_name(Path::new("x/alice.c")), "alice.c");
    assert_eq!(Language::C.file_name(Path::new("x/my bot.c")), "bot.c");
}

#[test]
fn a_c_bot_is_built_once_and_a_broken_one_reports_the_compiler() {
    if build_box::find_system_program("gcc").is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "this test needs gcc in /usr/bin: apt-get install gcc"
        );
        eprintln!("gcc is not installed; this test did nothing");
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.c");
    std::fs::write(
        &good,
        "#include <stdio.h>\nint main(void) { printf(\"hi\\n\"); return 0; }\n",
    )
    .unwrap();
    let spec = resolve_in(cache.path(), &good, "good").unwrap();
    assert!(spec.program.starts_with(cache.path()), "{:?}", spec.program);
    let out = Command::new(&spec.program).output().unwrap();
    assert_eq!(out.stdout, b"hi\n");
    let log = spec.dir.join("build.log");
    let before = std::fs::metadata(&log).unwrap().modified().unwrap();
    let again = resolve_in(cache.path(), &good, "good").unwrap();
    assert_eq!(again, spec, "same source, same build");
    assert_eq!(std::fs::metadata(&log).unwrap().modified().unwrap(), before);
    // Only the built folder is left in the cache: no scratch folders.
    let entries: Vec<_> = std::fs::read_dir(cache.path()).unwrap().collect();
    assert_eq!(entries.len(), 1);

    let bad = dir.path().join("bad.c");
    std::fs::write(&bad, "int main(void) { return nope; }\n").unwrap();
    let err = resolve_in(cache.path(), &bad, "bad").unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, SourceError::Compile { .. }), "{text}");
    assert!(text.contains("bot 'bad' does not build"), "{text}");
    assert!(text.contains("bad.c:1"), "the compiler's message: {text}");
    assert!(text.contains("nope"), "{text}");
    let entries: Vec<_> = std::fs::read_dir(cache.path()).unwrap().collect();
    assert_eq!(entries.len(), 1, "a failed build leaves nothing behind");
}

#[test]
fn a_missing_toolchain_names_the_program_and_the_package() {
    let err = SourceError::MissingTool {
        name: "alice".into(),
        language: Language::Go.name(),
        program: Language::Go.tools()[0].0,
        package: Language::Go.tools()[0].1,
    };
    let text = err.to_string();
    assert!(
        text.contains("`go`") && text.contains("apt-get install golang-go"),
        "{text}"
    );
}

#[test]
fn long_compiler_output_is_clipped_at_a_character_boundary() {
    let text = "é".repeat(MESSAGE_BYTES);
    let clipped = clip(&text);
    assert!(clipped.len() < text.len());
    assert!(
        clipped.ends_with("more bytes]"),
        "{}",
        &clipped[clipped.len() - 30..]
    );
}

#[test]
fn the_javascript_prelude_reads_lines_synchronously_like_the_arena() {
    if build_box::find_system_program("node").is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "this test needs node in /usr/bin: apt-get install nodejs"
        );
        eprintln!("node is not installed; this test did nothing");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let prelude = dir.path().join("prelude.js");
    std::fs::write(&prelude, include_str!("readline_prelude.js")).unwrap();
    let bot = dir.path().join("bot.js");
    std::fs::write(
        &bot,
        "const seen = [];\n\
         for (let i = 0; i < 5; i++) seen.push(readline());\n\
         printErr('to stderr');\n\
         print(JSON.stringify(seen));\n",
    )
    .unwrap();
    let mut child = Command::new("node")
        .arg("--require")
        .arg(&prelude)
        .arg(&bot)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all("w\r\n".as_bytes()).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        stdin.write_all("é".as_bytes()[..1].as_ref()).unwrap(); // a character cut in two writes
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        stdin.write_all(&"é\n\nlast".as_bytes()[1..]).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"["w","é","","last",null]"#,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("to stderr"));
}

#[test]
fn a_rust_bot_is_built_with_the_systems_rustc_or_says_it_is_missing() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("main.rs");
    std::fs::write(&src, "fn main() { println!(\"from rust\"); }\n").unwrap();
    if build_box::find_system_program("rustc").is_none() {
        // A rustup toolchain under a home folder is not what a build may use.
        let err = resolve_in(cache.path(), &src, "ferris")
            .unwrap_err()
            .to_string();
        assert!(err.contains("apt-get install rustc"), "{err}");
        return;
    }
    let spec = resolve_in(cache.path(), &src, "ferris").unwrap();
    let out = Command::new(&spec.program).output().unwrap();
    assert_eq!(out.stdout, b"from rust\n");
}
