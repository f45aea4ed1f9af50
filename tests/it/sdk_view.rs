//! CodinGame SDK games drawn by their own viewer in their replays, in real headless Chromium
//! with WebGL in software (SwiftShader). Take, arbiter's test game, has a small view of its own
//! (`tests/sdk/take/src/main/resources/view/`: a module that draws each player's score as a bar
//! on a table image); a copy of its folder is built against the engine's bundle (the engine's
//! viewer comes in the engine's jar), real bots play it, and then the copy and the build cache
//! are deleted, so every page below draws from its results folder (or file) alone, opened as a
//! file with no server (the league's page from the league's server).

use crate::common::webgl::*;
use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// What was played for these tests, in folders that outlive the game's source and its build.
struct Played {
    /// A tournament's results folder of Take, 2 games.
    run: PathBuf,
    /// The same of Take without its view.
    no_view: PathBuf,
    /// `arbiter play --replay` of Take: the replay file.
    replay: PathBuf,
    /// A league of Take: its `/sdk-view.js` answer (status, bytes), and what its
    /// `/replay/ID#last` page showed in Chromium, the server running.
    league_viewer: (u16, usize),
    league_page: Look,
}

/// `from` copied to `to`, files and folders (`skip` names a folder left out).
fn copy_tree(from: &Path, to: &Path, skip: &str) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let path = e.path();
        if !skip.is_empty() && path.ends_with(skip) {
            continue;
        }
        if path.is_dir() {
            copy_tree(&path, &to.join(e.file_name()), skip);
        } else {
            std::fs::copy(&path, to.join(e.file_name())).unwrap();
        }
    }
}

fn bot(mode: &str) -> String {
    format!(
        "{mode}={} {}/tests/sdk/take_bot.py {mode}",
        python(),
        root().display()
    )
}

/// arbiter with the build cache `cache` and the engine's source `engine`.
fn arbiter_in(cache: &Path, engine: &Path) -> assert_cmd::Command {
    let mut cmd = arbiter();
    cmd.env("ARBITER_CACHE", cache)
        .env("ARBITER_CODINGAME_ENGINE", engine)
        .env_remove("ARBITER_SDK_JVM");
    cmd
}

/// A tournament of the Take folder `game` into `out`: 2 games, generous limits.
fn tournament(cache: &Path, engine: &Path, game: &Path, out: &Path) -> String {
    let done = arbiter_in(cache, engine)
        .args([
            "tournament",
            "--games",
            "2",
            "--seed",
            "5",
            "--concurrency",
            "2",
        ])
        .args(["--turn-ms", "2000", "--first-turn-ms", "10000"])
        .args(["--referee-timeout-ms", "30000", "--referee"])
        .arg(game)
        .arg("--out")
        .arg(out)
        .args([bot("greedy"), bot("modest")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr).into_owned();
    assert!(done.status.success(), "{stderr}");
    stderr
}

/// Plays everything once per test run (`None`: skipped, where the engine, a JDK or bwrap is
/// missing; under CI that fails).
fn played() -> Option<&'static Played> {
    static PLAYED: OnceLock<Option<Played>> = OnceLock::new();
    PLAYED
        .get_or_init(|| {
            let engine = crate::sdk_build::engine()?;
            // Kept for the run's tests (a static is never dropped): under target/, one folder per
            // test process, the older ones removed.
            let base = root().join("target/sdk-view-tests");
            let _ = std::fs::remove_dir_all(&base);
            let dir = base.join(std::process::id().to_string());
            let (cache, src) = (dir.join("cache"), dir.join("src"));
            let take = src.join("take");
            copy_tree(&root().join("tests/sdk/take"), &take, "");
            let bare = src.join("take-without-view");
            copy_tree(&root().join("tests/sdk/take"), &bare, "view");
            let run = dir.join("run");
            let said = tournament(&cache, &engine, &take, &run);
            assert!(
                said.contains("arbiter: the replays draw take with its own viewer (copied from its class path into "),
                "{said}"
            );
            let no_view = dir.join("no-view");
            let said = tournament(&cache, &engine, &bare, &no_view);
            assert!(
                said.contains("arbiter: the replays show take-without-view as text steps, not with its own viewer: the game has no view of its own"),
                "{said}"
            );
            let replay = dir.join("game.jsonl");
            let done = arbiter_in(&cache, &engine)
                .args(["play", "--seed", "5", "--referee-timeout-ms", "30000"])
                .args(["--turn-ms", "2000", "--first-turn-ms", "10000", "--referee"])
                .arg(&take)
                .arg("--replay")
                .arg(&replay)
                .args([bot("greedy"), bot("modest")])
                .output()
                .unwrap();
            assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
            let (league_viewer, league_page) = league(&cache, &engine, &take, &dir.join("league"));
            // The game's source and its build are gone: the pages have only their folder.
            std::fs::remove_dir_all(&src).unwrap();
            std::fs::remove_dir_all(&cache).unwrap();
            Some(Played {
                run,
                no_view,
                replay,
                league_viewer,
                league_page,
            })
        })
        .as_ref()
}

/// A league of the Take folder `game` in `dir`, one local worker: once a game is recorded, the
/// server's `/sdk-view.js` (status, length) and what Chromium showed of the game's page
/// (`/replay/ID#last`), the server running; then it is stopped.
fn league(cache: &Path, engine: &Path, game: &Path, dir: &Path) -> ((u16, usize), Look) {
    use crate::common::league::{get, json, wait_for, Proc};
    let browser = chromium().expect("the tests that play check for Chromium first");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    cmd.env("ARBITER_CACHE", cache)
        .env("ARBITER_CODINGAME_ENGINE", engine)
        .args(["league", "serve"])
        .arg(dir)
        .args([bot("greedy"), bot("modest")])
        .args(["--listen", "127.0.0.1:0", "--local-workers", "1"])
        .args(["--turn-ms", "2000", "--first-turn-ms", "10000"])
        .args(["--referee-timeout-ms", "30000", "--referee"])
        .arg(game)
        .stdout(std::process::Stdio::piped());
    let mut server = Proc(cmd.spawn().unwrap());
    let url = listening(&mut server.0);
    let id = wait_for("a recorded game of the league", || {
        let games = json(&url, "/api/games");
        let id = games["recent"][0]["game_id"].as_u64();
        (id, games.to_string())
    });
    let (status, body) = get(&url, "/sdk-view.js");
    let page = look_alone(&browser, &format!("{url}/replay/{id}#last"));
    drop(server);
    ((status, body.len()), page)
}

fn replay_url(dir: &Path, fragment: &str) -> String {
    format!(
        "file://{}{fragment}",
        dir.join("replays/replay.html").display()
    )
}

#[test]
fn an_sdk_games_replay_draws_its_frames_with_its_own_viewer_from_the_folder_alone() {
    let Some(browser) = chromium() else { return };
    let Some(played) = played() else { return };
    let run = &played.run;
    let view = run.join("replays/sdk-view.js");
    assert!(view.is_file(), "the viewer is copied into the folder");
    // Game 0 opened at its start: drawn, at its first frames (Take deals in two key frames).
    let start = look(&browser, &replay_url(run, "#game=0&step=0"), "", true);
    assert_eq!(start.sdk, "drawn", "{start:?}");
    assert_eq!(start.frame, Some(1), "{start:?}");
    assert_eq!(start.frame_text, "frame 1 of 6", "{start:?}");
    assert_eq!(start.step_text, "step 0 of 10", "{start:?}");
    assert!(
        start.errors.is_empty() && errors_of(&start.console).is_empty(),
        "{start:?}"
    );
    assert!(start.rect[2] > 600 && start.rect[3] > 300, "{start:?}");

    // The pictures, the pages opened as a user opens them (no flag lets the page read files).
    let first = screenshot(&browser, &replay_url(run, "#game=0&step=0")).crop(start.rect);
    let last = screenshot(&browser, &replay_url(run, "#game=0&last")).crop(start.rect);
    assert!(drawn(&first), "the canvas at the first frame is not blank");
    assert!(drawn(&last), "the canvas at the last frame is not blank");
    assert!(
        differ(&first, &last) > 0.02,
        "the first and the last frame differ: {}",
        differ(&first, &last)
    );

    // CodinGame's controls step the frames, and the text steps follow.
    let stepped = look(
        &browser,
        &replay_url(run, "#game=0&step=0"),
        "click('sdk-next'); click('sdk-next');",
        true,
    );
    assert_eq!(stepped.frame, Some(3), "{stepped:?}");
    assert_eq!(
        stepped.step_text, "step 4 of 10",
        "the step of frame 3: {stepped:?}"
    );
    let picture = screenshot_after(
        &browser,
        &replay_url(run, "#game=0&step=0"),
        "click('sdk-next'); click('sdk-next');",
    )
    .crop(start.rect);
    assert!(drawn(&picture));
    assert!(
        differ(&first, &picture) > 0.01,
        "stepping moved the picture: {}",
        differ(&first, &picture)
    );
    // And the text steps move the frames: step 6 is drawn by frame 4, the last by the last.
    let by_step = look(&browser, &replay_url(run, "#game=1&step=6"), "", true);
    assert_eq!(by_step.frame, Some(4), "{by_step:?}");
    let to_end = look(
        &browser,
        &replay_url(run, "#game=1&step=6"),
        "click('last');",
        true,
    );
    assert_eq!(to_end.frame, Some(6), "{to_end:?}");
    assert_eq!(to_end.frame_text, "frame 6 of 6", "{to_end:?}");
}

#[test]
fn without_webgl_a_view_or_the_folders_viewer_the_page_says_why_and_shows_text_steps() {
    let Some(browser) = chromium() else { return };
    let Some(played) = played() else { return };
    let no_webgl = look(
        &browser,
        &replay_url(&played.run, "#game=0&step=3"),
        "",
        false,
    );
    assert_eq!(no_webgl.sdk, "text", "{no_webgl:?}");
    assert!(
        no_webgl
            .note
            .contains("this browser cannot draw the game (it has no WebGL)"),
        "{no_webgl:?}"
    );
    assert_eq!(no_webgl.step_text, "step 3 of 10", "the text steps stay");
    assert_eq!(no_webgl.rect[2], 0, "no canvas shown: {no_webgl:?}");

    let no_view = look(&browser, &replay_url(&played.no_view, "#game=0"), "", true);
    assert_eq!(no_view.sdk, "text", "{no_view:?}");
    assert!(
        no_view.note.contains("the game has no view of its own"),
        "{no_view:?}"
    );
    assert_eq!(no_view.step_text, "step 0 of 10");

    // A folder without its viewer (from before arbiter drew SDK games, or removed).
    let copy = shared_tempdir();
    copy_tree(&played.run, copy.path(), "");
    std::fs::remove_file(copy.path().join("replays/sdk-view.js")).unwrap();
    let gone = look(&browser, &replay_url(copy.path(), "#game=0"), "", true);
    assert_eq!(gone.sdk, "text", "{gone:?}");
    assert!(
        gone.note
            .contains("this folder has no viewer of the game (replays/sdk-view.js"),
        "{gone:?}"
    );
}

#[test]
fn a_page_of_one_sdk_game_holds_its_viewer_and_the_league_serves_its_own() {
    let Some(browser) = chromium() else { return };
    let Some(played) = played() else { return };
    // `arbiter play --replay FILE` writes the game's viewer beside FILE, for its page.
    let viewer = played.replay.with_extension("sdk-view.js");
    let viewer = std::fs::read_to_string(&viewer).expect("the viewer beside the replay file");
    assert!(viewer.starts_with("/* The viewer of the CodinGame SDK game take"));
    // `arbiter replay FILE --out PAGE` (the real binary) makes a page that draws the game.
    let pages = shared_tempdir();
    let page_file = pages.path().join("replay.html");
    let made = arbiter()
        .arg("replay")
        .arg(&played.replay)
        .arg("--out")
        .arg(&page_file)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let url = format!("file://{}#last", page_file.display());
    let seen = look(&browser, &url, "", true);
    assert_eq!(seen.sdk, "drawn", "arbiter replay's page: {seen:?}");
    assert_eq!(seen.frame, Some(6), "{seen:?}");
    assert!(drawn(&screenshot(&browser, &url).crop(seen.rect)));
    // A page of one game with its viewer inside (as `arbiter replay` makes), from a record of
    // the tournament: one file that draws the game anywhere.
    let line = std::fs::read_to_string(played.run.join("records.jsonl")).unwrap();
    let rec: arbiter::results::records::GameRecord =
        serde_json::from_str(line.lines().next().unwrap()).unwrap();
    use arbiter::report::html::viewer::{page, page_with_viewer, Viewer};
    let dir = shared_tempdir();
    let one = dir.path().join("game.html");
    std::fs::write(
        &one,
        page_with_viewer(&rec, None, Viewer::Inline(&viewer)).unwrap(),
    )
    .unwrap();
    let url = format!("file://{}#last", one.display());
    let seen = look(&browser, &url, "", true);
    assert_eq!(seen.sdk, "drawn", "{seen:?}");
    assert_eq!(seen.frame, Some(6), "{seen:?}");
    assert!(drawn(&screenshot(&browser, &url).crop(seen.rect)));
    // Without one, the page says so and shows the text steps.
    std::fs::write(&one, page(&rec, None).unwrap()).unwrap();
    let seen = look(&browser, &url, "", true);
    assert_eq!(seen.sdk, "text", "{seen:?}");
    assert!(
        seen.note.contains("this page holds no viewer of the game"),
        "{seen:?}"
    );
    assert_eq!(seen.step_text, "step 10 of 10");

    // The league serves its game's viewer, and its replay pages draw with it.
    let (status, bytes) = played.league_viewer;
    assert_eq!(status, 200);
    assert!(bytes > 100_000, "the viewer with PIXI: {bytes} bytes");
    let league = &played.league_page;
    assert_eq!(league.sdk, "drawn", "{league:?}");
    assert_eq!(league.frame, Some(6), "{league:?}");
    assert!(errors_of(&league.console).is_empty(), "{league:?}");
}
