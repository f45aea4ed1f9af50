use super::*;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[test]
fn the_engine_version_is_the_poms_property_else_its_engine_dependencys() {
    let property = "<project><properties>\n<gamengine.version> 4.2.1 </gamengine.version>\
                    </properties></project>";
    assert_eq!(engine_version(property).as_deref(), Some("4.2.1"));
    let dependency = "<dependencies><dependency><groupId>com.google.inject</groupId>\
        <version>7.0.0</version></dependency><dependency>\
        <groupId>com.codingame.gameengine</groupId><artifactId>core</artifactId>\
        <version>3.15.4</version></dependency></dependencies>";
    assert_eq!(engine_version(dependency).as_deref(), Some("3.15.4"));
    let unresolved = "<dependency><groupId>com.codingame.gameengine</groupId>\
        <version>${engine}</version></dependency>";
    assert_eq!(engine_version(unresolved), None);
    assert!(plain_version("4.5.0") && plain_version("2.10"));
    assert!(!plain_version("4.5.0-SNAPSHOT") && !plain_version("") && !plain_version("4..5"));
}

/// A source folder with `pom` as its pom.xml and one Java file.
fn folder_with(pom: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src/main/java")).unwrap();
    std::fs::write(dir.path().join("pom.xml"), pom).unwrap();
    std::fs::write(dir.path().join("src/main/java/A.java"), "class A {}").unwrap();
    dir
}

#[test]
fn a_missing_engine_version_or_engine_source_is_named_with_what_to_do() {
    let cache = tempfile::tempdir().unwrap();
    let none = folder_with("<project></project>");
    let source = SdkSource::Folder(none.path().to_path_buf());
    let err = build_in(cache.path(), &source, None, Boxing::Boxed).unwrap_err();
    assert!(
        matches!(err, SdkBuildError::NoEngineVersion { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("<gamengine.version>"), "{err}");

    let odd = folder_with("<gamengine.version>4.x</gamengine.version>");
    let source = SdkSource::Folder(odd.path().to_path_buf());
    let err = build_in(cache.path(), &source, None, Boxing::Boxed).unwrap_err();
    assert!(
        matches!(err, SdkBuildError::BadEngineVersion { .. }),
        "{err}"
    );

    let folder = folder_with("<gamengine.version>4.5.0</gamengine.version>");
    let source = SdkSource::Folder(folder.path().to_path_buf());
    let err = build_in(cache.path(), &source, None, Boxing::Boxed).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, SdkBuildError::NoEngine { .. }), "{text}");
    for needed in [
        "4.5.0",
        "git clone https://github.com/CodinGame/codingame-game-engine",
        &crate::options::Opt::CodingameEngine.to_string(),
        ENGINE_ENV,
    ] {
        assert!(text.contains(needed), "{needed} not in: {text}");
    }
    let nowhere = Some((
        cache.path().join("no-such-clone"),
        "--codingame-engine".into(),
    ));
    let err = build_in(cache.path(), &source, nowhere, Boxing::Boxed).unwrap_err();
    assert!(matches!(err, SdkBuildError::BadEngine { .. }), "{err}");
    assert!(err.to_string().contains("no-such-clone"), "{err}");
}

#[test]
fn a_jar_without_the_engine_is_refused_saying_what_to_give() {
    let cache = tempfile::tempdir().unwrap();
    let jar = cache.path().join("game.jar");
    std::fs::write(&jar, b"PK not an engine").unwrap();
    let err = build_in(cache.path(), &SdkSource::Jar(jar), None, Boxing::Boxed).unwrap_err();
    assert!(matches!(err, SdkBuildError::NoEngineInJar { .. }), "{err}");
    assert!(err.to_string().contains("source folder"), "{err}");
}

#[test]
fn fall_2020s_known_compile_failure_is_explained_and_others_are_not() {
    // javac 17's output on Fall Challenge 2020 (github.com/CodinGame/FallChallenge2020).
    let fall = "src/main/java/com/codingame/game/Game.java:578: error: incompatible types: \
                Optional<Object> cannot be converted to Optional<Spell>";
    assert!(quirks::explain(fall).contains("Fall Challenge 2020"));
    assert_eq!(quirks::explain("Referee.java:3: error: ';' expected"), "");
}

/// The engine's source for the tests: `ARBITER_CODINGAME_ENGINE`, else the bundle beside the
/// repository (`../shared/third_party/`, where `.ci/run` looks); `None` (the test is skipped)
/// where there is none or no JDK, unless `CI` is set: then the test fails saying what is missing.
fn engine_for_tests() -> Option<PathBuf> {
    let given = std::env::var_os(ENGINE_ENV).map(PathBuf::from);
    let beside = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/third_party/codingame-game-engine.bundle");
    let engine = given.or_else(|| beside.exists().then_some(beside));
    let jdk = build_box::find_system_program("javac").is_some();
    let bwrap = crate::bot::host::bwrap().is_some();
    let missing = match (&engine, jdk, bwrap, debian_jars()) {
        (None, ..) => Some(format!(
            "no engine source: set {ENGINE_ENV} to a clone or bundle of codingame-game-engine"
        )),
        (_, false, ..) => Some("no JDK (apt-get install default-jdk-headless)".into()),
        (_, _, false, _) => Some("no bwrap (apt-get install bubblewrap)".into()),
        (.., Err(e)) => Some(e.to_string()),
        _ => None,
    };
    if let Some(why) = missing {
        if std::env::var_os("CI").is_some() {
            panic!("the SDK build test cannot run: {why}");
        }
        eprintln!("skipped: {why} (set CI to make this a failure)");
        return None;
    }
    engine
}

/// The "sum" test game (tests/sdk_build/sum) built once for this test process, in a cache of
/// its own; `None` where [`engine_for_tests`] skips.
pub(crate) fn built_sum_game() -> Option<BuiltGame> {
    static BUILT: std::sync::OnceLock<Option<BuiltGame>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let engine = engine_for_tests()?;
            let cache = tempfile::tempdir().unwrap().keep();
            let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sdk_build/sum");
            let origin = Some((engine, ENGINE_ENV.to_string()));
            let source = SdkSource::Folder(folder);
            Some(build_in(&cache, &source, origin, Boxing::Boxed).unwrap())
        })
        .clone()
}

/// A referee the tests talk to a line at a time: over a child's pipes here ([`Pipes`]), a
/// started `BotProcess` in the launcher's tests.
pub(crate) trait RefereeLines {
    /// Writes `text` whole.
    fn send(&mut self, text: &str);
    /// The next line the referee wrote, without its newline.
    fn line(&mut self) -> String;
}

/// A referee over a child's stdin and stdout.
struct Pipes<'a, W, R>(&'a mut W, &'a mut R);

impl<W: Write, R: BufRead> RefereeLines for Pipes<'_, W, R> {
    fn send(&mut self, text: &str) {
        self.0.write_all(text.as_bytes()).unwrap();
        self.0.flush().unwrap();
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        self.1.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the referee ended its output");
        line.trim_end_matches('\n').to_string()
    }
}

/// Plays one game of the "sum" test game (seed `seed`) with `referee` (speaking RefereeMain's
/// protocol), each player answering `answers[seat]`, as arbiter's driver plays it (the
/// runner's last [[GET_GAME_INFO]] left unread); returns the scores and the summaries.
pub(crate) fn play_sum(
    referee: &mut impl RefereeLines,
    answers: &[&str],
    seed: u64,
) -> (Vec<i64>, Vec<String>) {
    referee.send(&format!("[[INIT] 2]\n{}\nseed={seed}\n", answers.len()));
    let mut summaries = Vec::new();
    loop {
        referee.send("[[GET_GAME_INFO] 0]\n");
        loop {
            let header = referee.line();
            let (name, count) = header[2..].split_once(']').expect("a [[NAME] n] header");
            let n: usize = count.trim_matches([' ', ']']).parse().unwrap();
            let lines: Vec<String> = (0..n).map(|_| referee.line()).collect();
            match name {
                "NEXT_PLAYER_INFO" => {
                    let seat: usize = lines[0].parse().unwrap();
                    referee.send(&format!("[[SET_PLAYER_OUTPUT] 1]\n{}\n", answers[seat]));
                    break;
                }
                "SUMMARY" => summaries.extend(lines),
                "SCORES" => {
                    let scores = lines
                        .iter()
                        .map(|l| l.split_whitespace().last().unwrap().parse().unwrap())
                        .collect();
                    return (scores, summaries);
                }
                "FAIL" => panic!("the referee failed: {lines:?}"),
                _ => {}
            }
        }
    }
}

#[test]
fn the_test_game_builds_from_the_engine_bundle_and_plays_in_a_fresh_and_a_warm_jvm() {
    let Some(engine) = engine_for_tests() else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sdk_build/sum");
    let source = SdkSource::Folder(folder.clone());
    let origin = Some((engine, ENGINE_ENV.to_string()));
    let game = build_in(cache.path(), &source, origin.clone(), Boxing::Boxed).unwrap();
    assert_eq!(game.engine_version.as_deref(), Some("4.5.0"));
    assert!(game
        .dir
        .join("classes/com/codingame/game/Referee.class")
        .is_file());
    assert!(
        game.dir.join("classes/turns.txt").is_file(),
        "resources beside the classes"
    );
    assert!(cache
        .path()
        .join("sdk-engine-4.5.0-r2/engine.jar")
        .is_file());
    // The engine's viewer is in its jar, as in Maven's: the game's class path holds it.
    let view = crate::referee::sdk::view::of_class_path(&game.classpath).unwrap();
    for file in [
        "core/Drawer.js",
        "entity-module/GraphicEntityModule.js",
        "lib/pixi6.js",
    ] {
        assert!(view.files.contains_key(file), "{file} in the engine's jar");
    }
    // Found again, not rebuilt, without the engine's source.
    assert_eq!(
        build_in(cache.path(), &source, None, Boxing::Boxed).unwrap(),
        game
    );

    let cp: Vec<String> = game
        .classpath
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let props = [
        "-Dgame.mode=multi",
        "-Dleague.level=1",
        "-Dorg.apache.commons.logging.Log=org.apache.commons.logging.impl.SimpleLog",
        "-Dorg.apache.commons.logging.simplelog.defaultlog=warn",
    ];
    let mut fresh = Command::new("java")
        .args(props)
        .args(["-cp", &cp.join(":"), &game.main_class])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = fresh.stdin.take().unwrap();
    let mut output = BufReader::new(fresh.stdout.take().unwrap());
    let (scores, _) = play_sum(&mut Pipes(&mut input, &mut output), &["4", "1"], 7);
    assert_eq!(scores, vec![12, 3]);
    drop(input);
    fresh.wait().unwrap();

    // The launcher: two games in one JVM, each in classes of its own (the game's static counter
    // starts again), the second after what the first left unread.
    let mut launcher_cp = vec![game.dir.join("launcher").display().to_string()];
    launcher_cp.extend(DEBIAN_JARS.iter().map(|j| j.path.to_string()));
    let own: Vec<&String> = cp
        .iter()
        .filter(|p| p.starts_with(&*game.dir.to_string_lossy()))
        .collect();
    let mut warm = Command::new("java")
        .args(props)
        .args(["-cp", &launcher_cp.join(":"), "ArbiterLauncher"])
        .args(own)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = warm.stdin.take().unwrap();
    let mut output = BufReader::new(warm.stdout.take().unwrap());
    for answers in [["2", "9"], ["7", "0"]] {
        input
            .write_all(b"[[ARBITER_GAME]] game.mode=multi league.level=1\n")
            .unwrap();
        let (scores, summaries) = play_sum(&mut Pipes(&mut input, &mut output), &answers, 7);
        let expected: Vec<i64> = answers
            .iter()
            .map(|a| 3 * a.parse::<i64>().unwrap())
            .collect();
        assert_eq!(scores, expected);
        assert!(
            summaries
                .iter()
                .any(|s| s.contains("games seen by this class: 1")),
            "{summaries:?}"
        );
        let mut end = String::new();
        output.read_line(&mut end).unwrap();
        assert_eq!(end.trim_end(), "[[ARBITER_GAME_END]] ok");
    }
    drop(input);
    assert!(
        warm.wait().unwrap().success(),
        "the launcher ends at the end of its input"
    );
}

#[test]
fn an_engine_version_the_clone_has_no_tag_for_is_named() {
    let Some(engine) = engine_for_tests() else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let folder = folder_with("<gamengine.version>0.0.1</gamengine.version>");
    let source = SdkSource::Folder(folder.path().to_path_buf());
    let origin = Some((engine, "--codingame-engine".to_string()));
    let err = build_in(cache.path(), &source, origin, Boxing::Boxed).unwrap_err();
    assert!(matches!(err, SdkBuildError::NoEngineTag { .. }), "{err}");
    assert!(err.to_string().contains("v0.0.1"), "{err}");
}
