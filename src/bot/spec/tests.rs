use super::*;
use crate::bot::build::trusts_build;

#[test]
fn command_lines_split_like_a_shell_and_are_named_after_the_script() {
    let spec = BotSpec::resolve("python3 'my bot.py' --depth 3").unwrap();
    assert_eq!(spec.program, PathBuf::from("python3"));
    assert_eq!(spec.args, vec!["my bot.py", "--depth", "3"]);
    assert_eq!(spec.name, "python3"); // no such file here, so the interpreter names it
    assert!(matches!(
        BotSpec::resolve("python3 'unclosed"),
        Err(SpecError::BadCommandLine { .. })
    ));
    assert!(matches!(
        BotSpec::resolve("  "),
        Err(SpecError::Empty { .. })
    ));
}

#[test]
fn a_run_line_naming_a_host_file_outside_the_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("bot");
    std::fs::create_dir(&bot).unwrap();
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, "hunter2").unwrap();
    std::fs::write(bot.join("bot.py"), "").unwrap();
    let outside = format!("cat {}", secret.display());
    for (run, refused) in [
        ("python3 bot.py", false),
        ("python3 bot.py /etc/hostname", false),
        ("python3 bot.py ../secret.txt", true),
        (outside.as_str(), true),
    ] {
        std::fs::write(bot.join("bot.toml"), format!("run = \"{run}\"\n")).unwrap();
        let r = BotSpec::resolve(bot.to_str().unwrap());
        match r {
            Err(SpecError::OutsideArgument { path, .. }) => {
                assert!(refused, "{run}");
                assert_eq!(path, std::fs::canonicalize(&secret).unwrap());
            }
            other => assert!(!refused && other.is_ok(), "{run}: {other:?}"),
        }
    }
}

#[test]
fn a_directory_needs_a_valid_bot_toml() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().to_str().unwrap().to_string();
    assert!(matches!(
        BotSpec::resolve(&d),
        Err(SpecError::NoBotToml { .. })
    ));
    std::fs::write(tmp.path().join("bot.toml"), "name = 'x'\nrunn = 'y'\n").unwrap();
    let err = BotSpec::resolve(&d).unwrap_err().to_string();
    assert!(err.contains("not a valid bot.toml"), "{err}");
    std::fs::write(
        tmp.path().join("bot.toml"),
        "name = \"mine\"\nrun = \"./go.sh fast\"\nbuild = \"false\"\n",
    )
    .unwrap();
    let spec = BotSpec::resolve(&d).unwrap();
    assert_eq!(spec.name, "mine");
    assert_eq!(spec.program, absolute(tmp.path()).join("./go.sh"));
    assert_eq!(spec.args, vec!["fast"]);
    let err = spec.build_in_place("false").unwrap_err().to_string();
    assert!(
        err.contains("bot 'mine': build command `false` failed"),
        "{err}"
    );
}

mod naming_tests {
    use super::*;

    /// The bundled bots' builds are trusted (`cargo run -- tournament bots/*` builds them with
    /// the user's cargo); a folder elsewhere, even one named like them, is not.
    #[test]
    fn only_the_bundled_bots_builds_are_trusted_by_default() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert!(trusts_build(&here.join("bots/first")));
        assert!(trusts_build(&here.join("bots/../bots/random")));
        let tmp = tempfile::tempdir().unwrap();
        let lookalike = tmp.path().join("bots/first");
        std::fs::create_dir_all(&lookalike).unwrap();
        assert!(!trusts_build(&lookalike));
        assert!(!trusts_build(here));
        assert!(!trusts_build(&here.join("examples/referee/stones")));
    }

    #[test]
    fn a_bot_can_be_named_on_the_command_line() {
        let spec = BotSpec::resolve_named("alice=python3 -c pass").unwrap();
        assert_eq!(spec.name, "alice");
        assert_eq!(spec.args, vec!["-c", "pass"]);
        // Not a name: spaces before the '='.
        let spec = BotSpec::resolve_named("python3 -c x=1").unwrap();
        assert_ne!(spec.name, "python3 -c x");
    }

    /// A source file named on the command line (`dave=bot.py`, as a league names an upload)
    /// is built under that name: its build error names `dave`, not the file's stem `bot`,
    /// whether it is given as the file or as its folder.
    #[test]
    fn a_named_source_that_does_not_build_names_the_bot_not_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("dave-v1");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("bot.py"), "def broken(:\n").unwrap();
        for arg in ["dave=dave-v1/bot.py", "dave=dave-v1"] {
            let err = BotSpec::resolve_named_in(arg, Some(dir.path())).unwrap_err();
            let text = err.to_string();
            assert!(text.contains("bot 'dave' does not build"), "{arg}: {text}");
            assert!(
                !text.contains("'bot'") && !text.contains("'dave-v1'"),
                "{text}"
            );
        }
    }

    #[test]
    fn a_bot_toml_error_has_its_line_and_column_and_an_empty_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot.toml"), "name = \"x\"\nrun = = 3\n").unwrap();
        let err = BotSpec::resolve(dir.path().to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2, column"), "{err}");
        std::fs::write(
            dir.path().join("bot.toml"),
            "name = \" \"\nrun = \"true\"\n",
        )
        .unwrap();
        let err = BotSpec::resolve(dir.path().to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("name is empty"), "{err}");
    }

    #[test]
    fn a_bot_toml_says_which_games_the_bot_plays() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("bot.toml"),
            "name = \"only\"\nrun = \"./x\"\ngames = [\"impasse\", \"alva\"]\n",
        )
        .unwrap();
        let typed = dir.path().to_str().unwrap().to_string();
        let spec = BotSpec::resolve(&typed).unwrap();
        spec.plays("impasse").unwrap();
        spec.plays("alva").unwrap();
        let err = spec.plays("draughts").unwrap_err().to_string();
        assert!(err.contains("bot 'only' does not play draughts"), "{err}");
        assert!(err.contains(r#"games = ["impasse", "alva"]"#), "{err}");
        // Named on the command line: the same file decides.
        let named = BotSpec::resolve_named(&format!("n={typed}")).unwrap();
        assert!(named.plays("draughts").is_err());
        // Without a games list, or without a bot.toml, every game is played.
        std::fs::write(dir.path().join("bot.toml"), "run = \"./x\"\n").unwrap();
        BotSpec::resolve(&typed).unwrap().plays("draughts").unwrap();
        BotSpec::resolve("/bin/true")
            .unwrap()
            .plays("draughts")
            .unwrap();
    }
}
