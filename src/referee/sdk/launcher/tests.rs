use super::*;
use crate::referee::sdk::build::tests::{built_sum_game, play_sum, RefereeLines};
use crate::referee::sdk::{SdkGame, DEFAULT_MESSAGE_LIMIT};
use std::sync::Arc;

fn sum_game(launcher: Arc<dyn RefereeLauncher>) -> Option<SdkGame> {
    let built = built_sum_game()?;
    Some(SdkGame {
        name: "sum".into(),
        origin: "tests/sdk_build/sum".into(),
        classpath: built.classpath,
        main_class: built.main_class,
        dir: built.dir,
        league: 1,
        leagues: None,
        league_given: false,
        params: Vec::new(),
        game_limits: true,
        message_limit: DEFAULT_MESSAGE_LIMIT,
        launcher,
    })
}

/// The referee process, as the sum game's tests talk to it.
impl RefereeLines for BotProcess {
    fn send(&mut self, text: &str) {
        BotProcess::send(
            self,
            text.as_bytes(),
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap();
    }

    /// Within 60 s (a JVM starting on a loaded machine).
    fn line(&mut self) -> String {
        match bot::wait_line(
            std::slice::from_mut(self),
            0,
            Instant::now() + Duration::from_secs(60),
        ) {
            Wait::Line(l, _) => String::from_utf8_lossy(&l).into_owned(),
            other => panic!(
                "the referee wrote no line ({}): {}",
                match other {
                    Wait::Exited(s) => format!("exited: {s}"),
                    Wait::Timeout => "timeout".into(),
                    _ => "closed or too long".into(),
                },
                self.stderr_tail()
            ),
        }
    }
}

/// One game of the sum game over `proc` with answers `a` and `b` ([`play_sum`]).
fn play(proc: &mut BotProcess, a: &str, b: &str) -> (Vec<i64>, Vec<String>) {
    play_sum(proc, &[a, b], 3)
}

#[test]
fn a_warm_launcher_plays_game_after_game_each_in_fresh_classes_and_is_replaced_when_it_dies() {
    let warm = Arc::new(WarmJvm::new());
    let Some(game) = sum_game(warm.clone()) else {
        return;
    };
    let limits = Limits::default();
    let mut first = warm.spawn(&game, &limits, &[]).unwrap();
    let pid = first.pid();
    assert_eq!(
        play(&mut first, "1", "2"),
        (vec![3, 6], vec!["games seen by this class: 1".to_string()])
    );
    let Ok(tail) = warm.finish(first, true) else {
        panic!("not kept after a clean game")
    };
    assert!(!tail.contains("Exception"), "{tail}");
    assert_eq!(warm.idle_count(), 1);

    // The same JVM, the game's classes loaded afresh: its static counter is 1 again.
    let mut second = warm.spawn(&game, &limits, &[]).unwrap();
    assert_eq!(
        second.pid(),
        pid,
        "the waiting launcher serves the next game"
    );
    let (scores, summaries) = play(&mut second, "9", "0");
    assert_eq!(scores, vec![27, 0]);
    assert_eq!(summaries, vec!["games seen by this class: 1".to_string()]);
    // A game cut short (the driver gave up on it): the launcher is not kept.
    assert!(warm.finish(second, false).is_err());
    assert_eq!(warm.idle_count(), 0);

    // A launcher that died while it waited is replaced by a new one.
    let mut third = warm.spawn(&game, &limits, &[]).unwrap();
    play(&mut third, "0", "0");
    let dead = third.pid();
    assert!(warm.finish(third, true).is_ok(), "kept");
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(dead as i32).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let mut fourth = warm.spawn(&game, &limits, &[]).unwrap();
    assert_ne!(fourth.pid(), dead);
    assert_eq!(play(&mut fourth, "5", "5").0, vec![15, 15]);
    fourth.shutdown(Duration::from_millis(100));
}

/// A launcher serves only the thread that started it: when that thread ends, the launcher's
/// parent-death signal kills it, so one taken by another thread would die in that thread's game.
#[test]
fn a_launcher_is_never_served_to_another_thread_whose_game_its_first_thread_would_end() {
    let warm = Arc::new(WarmJvm::new());
    let Some(game) = sum_game(warm.clone()) else {
        return;
    };
    let game = Arc::new(game);
    let limits = Limits::default();
    let (done, end) = std::sync::mpsc::channel::<()>();
    let (kept, first_pid) = std::sync::mpsc::channel::<u32>();
    let first = {
        let (warm, game, limits) = (warm.clone(), game.clone(), limits.clone());
        std::thread::spawn(move || {
            let mut proc = warm.spawn(&game, &limits, &[]).unwrap();
            play(&mut proc, "1", "1");
            let pid = proc.pid();
            assert!(warm.finish(proc, true).is_ok(), "kept");
            kept.send(pid).unwrap();
            // This thread lives until the other thread has its launcher.
            let _ = end.recv();
        })
    };
    let first_pid = first_pid.recv().unwrap();
    assert_eq!(warm.idle_count(), 1);
    let mut mine = warm.spawn(&game, &limits, &[]).unwrap();
    assert_ne!(
        mine.pid(),
        first_pid,
        "another thread's launcher was served"
    );
    done.send(()).unwrap();
    first.join().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    // The first thread has ended (its launcher with it); this game plays on.
    assert_eq!(play(&mut mine, "2", "3").0, vec![6, 9]);
    mine.shutdown(Duration::from_millis(100));
}

#[test]
fn launchers_are_kept_apart_by_the_bots_they_were_hidden_from() {
    let game = SdkGame {
        name: "g".into(),
        origin: "g".into(),
        classpath: vec!["/cache/g/classes".into(), "/usr/share/java/gson.jar".into()],
        main_class: crate::referee::sdk::REFEREE_MAIN.into(),
        dir: "/cache/g".into(),
        league: 2,
        leagues: None,
        league_given: true,
        params: Vec::new(),
        game_limits: true,
        message_limit: DEFAULT_MESSAGE_LIMIT,
        launcher: Arc::new(WarmJvm::new()),
    };
    let command = WarmJvm::command(&game);
    let cp_at = command.args.iter().position(|a| a == "-cp").unwrap();
    // The JVM's class path: the launcher and the system's jars; the game's part is loaded per
    // game, from the arguments.
    assert_eq!(
        command.args[cp_at + 1],
        "/cache/g/launcher:/usr/share/java/gson.jar"
    );
    assert_eq!(
        command.args[cp_at + 2..],
        ["ArbiterLauncher", "/cache/g/classes"]
    );
    // The game's properties, after what is private to the launcher where it has its own (as
    // root: a process-id namespace and scratch folders, which it empties after each game).
    let header = WarmJvm::header(&game, &Limits::default());
    assert!(header.starts_with("[[ARBITER_GAME]] "), "{header}");
    assert!(
        header.contains(" game.mode=multi league.level=2 "),
        "{header}"
    );
    let private = " --own-pids --scratch=/tmp:/var/tmp:/run/lock:/dev/shm ";
    assert_eq!(
        header.contains(private),
        BotProcess::can_hold(&Limits::default()),
        "{header}"
    );
    let a = BotSpec::command("a", "python3", vec!["a.py".into()], "/bots/a");
    let b = BotSpec::command("b", "python3", vec!["b.py".into()], "/bots/b");
    let limits = Limits::default();
    let ab = WarmJvm::key(&game, &limits, &[&a, &b]);
    assert_eq!(
        ab,
        WarmJvm::key(&game, &limits, &[&b, &a]),
        "seat order does not matter"
    );
    assert_ne!(ab, WarmJvm::key(&game, &limits, &[&a, &a]));
    let capped = Limits {
        memory_bytes: Some(1 << 30),
        ..Limits::default()
    };
    assert_ne!(ab, WarmJvm::key(&game, &capped, &[&a, &b]));
}
