use super::*;
use crate::referee::{Forfeit, Reason, SeatStats, TurnRecord};
use crate::results::rebuild::{rebuild, StepKind};
use crate::rng::Rng;
use std::time::Duration;

/// Plays `choice` with random moves the way the referee does (inputs written before each move,
/// first turns tracked), optionally eliminating `drop` = (turn, seat) on the way, and returns
/// the result with every turn kept.
pub(crate) fn simulate(
    choice: &GameChoice,
    seed: u64,
    plies: u32,
    drop: Option<(u32, usize)>,
) -> GameResult {
    let (mut g, opening) = crate::tournament::opening(choice, seed, plies).unwrap();
    let seats = choice.seats();
    let mut rng = Rng::new(seed);
    let mut first = vec![true; seats];
    let (mut log, mut moves, mut forfeits) = (Vec::new(), Vec::new(), Vec::new());
    let mut turn = opening.len() as u32;
    while g.outcome().is_none() && turn < 400 {
        let seat = g.to_move();
        let mut input = String::new();
        g.write_turn_input(first[seat], &mut input);
        first[seat] = false;
        if drop == Some((turn + 1, seat)) && g.eliminate(seat) {
            forfeits.push(Forfeit {
                seat,
                reason: Reason::Timeout,
                detail: "slept".into(),
                turn: turn + 1,
                exit: None,
            });
            continue;
        }
        let i = rng.below(g.legal_moves().len());
        let played = g.legal_moves()[i].clone();
        let n = log.len();
        log.push(TurnRecord {
            turn: turn + 1,
            seat,
            input,
            answer: if n == 3 {
                "random".into()
            } else if n % 5 == 0 {
                format!("{played} thinking hard")
            } else {
                played.clone()
            },
            comment: if n % 5 == 0 && n != 0 {
                "thinking hard".into()
            } else {
                String::new()
            },
            played: played.clone(),
            time_us: 1000 + n as u64,
            cpu_us: 900,
            waited_us: 0,
            stolen_us: 0,
            late: n == 7,
            extra_lines: 0,
            stderr: if n % 4 == 1 {
                format!("turn {n}: thinking\n")
            } else {
                String::new()
            },
        });
        g.play(i);
        moves.push(played);
        turn += 1;
    }
    GameResult {
        game: choice.name().into(),
        seed,
        bots: (0..seats).map(|s| format!("bot{s}")).collect(),
        opening,
        winner: None,
        ranks: vec![0; seats],
        reason: Reason::TurnLimit,
        detail: String::new(),
        offender: None,
        forfeits,
        turns: turn,
        scores: vec![0; seats],
        game_scores: vec![0; seats],
        stats: vec![SeatStats::default(); seats],
        moves,
        log,
        stderr_tails: vec!["é".repeat(3000); seats],
        stderr_bytes: vec![6000; seats],
        duration: Duration::from_millis(5),
        sdk: None,
    }
}

pub(crate) fn spec(id: u64) -> GameSpec {
    GameSpec {
        game_id: id,
        pair_id: id / 2,
        seed: 9,
        seats: vec![0, 1],
    }
}

#[test]
fn a_record_rebuilds_every_input_and_the_final_position() {
    let cfg = RefereeConfig::default();
    for (name, seats) in [("impasse", 2), ("draughts", 2), ("accasta", 2), ("alva", 2)] {
        let choice = GameChoice::new(name, None, Some(seats), None).unwrap();
        let r = simulate(&choice, 11, 4, None);
        let rec = GameRecord::new(&spec(3), &choice, &cfg, &r);
        // Through the text form, as a report reads it.
        let rec: GameRecord = serde_json::from_str(&rec.to_line()).unwrap();
        assert!(rec.stderr[0].len() <= STDERR_KEEP && rec.stderr[0].ends_with('é'));
        let rebuilt = rebuild(&rec).unwrap();
        assert_eq!(
            rebuilt.steps.len(),
            r.opening.len() + r.moves.len(),
            "{name}"
        );
        let moves: Vec<_> = rebuilt
            .steps
            .iter()
            .filter(|s| matches!(s.kind, StepKind::Move(_)))
            .collect();
        assert_eq!(moves.len(), r.log.len());
        for (step, t) in moves.iter().zip(&r.log) {
            assert_eq!(step.input.as_deref(), Some(t.input.as_str()), "{name}");
            assert_eq!((step.seat, step.turn), (t.seat, t.turn));
        }
        for (i, t) in r.log.iter().enumerate() {
            assert_eq!(rec.answer(i), t.answer, "{name} move {i}");
            assert_eq!(rec.comment(i), t.comment);
            assert_eq!(rec.is_late(i), t.late);
            assert_eq!(rec.wall_us[i], t.time_us);
        }
        // The final position is the rules' own after the same moves.
        let (mut g, _) = crate::tournament::opening(&choice, 11, 4).unwrap();
        for m in &r.moves {
            let i = g.legal_moves().iter().position(|x| x == m).unwrap();
            g.play(i);
        }
        assert_eq!(rebuilt.final_position, g.position_text());
        assert_eq!(rebuilt.steps.last().unwrap().view, g.view());
    }
}

#[test]
fn an_elimination_is_replayed_at_its_turn() {
    let cfg = RefereeConfig::default();
    let choice = GameChoice::new("moscow-ice", None, Some(4), None).unwrap();
    let r = simulate(&choice, 5, 0, Some((6, 1)));
    assert_eq!(r.forfeits.len(), 1, "the drop happened");
    let rec = GameRecord::new(&spec(0), &choice, &cfg, &r);
    let rebuilt = rebuild(&rec).unwrap();
    let k = rebuilt
        .steps
        .iter()
        .position(|s| s.kind == StepKind::Forfeit(0))
        .unwrap();
    assert_eq!(k, 5);
    assert_eq!(rebuilt.steps[k].seat, 1);
    assert!(rebuilt.steps[k].input.is_some());
    let inputs: Vec<&str> = rebuilt
        .steps
        .iter()
        .filter(|s| matches!(s.kind, StepKind::Move(_)))
        .map(|s| s.input.as_deref().unwrap())
        .collect();
    let logged: Vec<&str> = r.log.iter().map(|t| t.input.as_str()).collect();
    assert_eq!(inputs, logged);
}

#[test]
fn a_torn_last_line_is_cut_on_open_and_skipped_by_readers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE);
    let cfg = RefereeConfig::default();
    let choice = GameChoice::new("impasse", None, None, None).unwrap();
    let r = simulate(&choice, 1, 2, None);
    let mut f = RecordsFile::open(&path).unwrap();
    f.append(&GameRecord::new(&spec(0), &choice, &cfg, &r))
        .unwrap();
    f.append(&GameRecord::new(&spec(1), &choice, &cfg, &r))
        .unwrap();
    drop(f);
    let mut raw = OpenOptions::new().append(true).open(&path).unwrap();
    raw.write_all(b"{\"game_id\":2,\"pair_").unwrap();
    drop(raw);
    let mut ids = Vec::new();
    let s = for_each_record(&path, |r| ids.push(r.game_id)).unwrap();
    assert_eq!((ids.clone(), s.skipped), (vec![0, 1], 1));
    let mut f = RecordsFile::open(&path).unwrap();
    f.append(&GameRecord::new(&spec(1), &choice, &cfg, &r))
        .unwrap();
    drop(f);
    let (all, s) = read_folders(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(
        s,
        ReadRecords {
            records: 3,
            skipped: 0
        }
    );
    let ids: Vec<u64> = all.iter().map(|(_, r)| r.game_id).collect();
    assert_eq!(ids, vec![0, 1], "the game recorded twice counts once");
}

/// Bytes per game of the record for games of random moves (real clocks are about as long).
#[test]
fn records_are_small() {
    let cfg = RefereeConfig::default();
    for name in ["impasse", "draughts"] {
        let choice = GameChoice::new(name, None, None, None).unwrap();
        let mut r = simulate(&choice, 3, 4, None);
        r.stderr_tails = vec![String::new(); 2];
        let line = GameRecord::new(&spec(0), &choice, &cfg, &r).to_line();
        let per_move = line.len() as f64 / r.moves.len() as f64;
        eprintln!(
            "{name}: {} moves, {} bytes, {per_move:.1} bytes per move",
            r.moves.len(),
            line.len()
        );
        assert!(per_move < 40.0, "{name}: {per_move} bytes per move");
    }
}

/// A line of records.jsonl as main wrote it before the exit kind was kept (a crash by SIGSEGV,
/// from `arbiter tournament` with a bot that kills itself).
const OLD_LINE: &str = r#"{"game_id":0,"pair_id":0,"game":"impasse","variant":"arena","seats":2,"seed":1021869836427313,"bots":["crash","random"],"clocks":{"first_turn_us":1000000,"turn_us":100000,"grace_us":50000,"strikes":3,"clock":"fair","max_turns":250},"opening":[],"moves":[],"seat":[],"wall_us":[],"cpu_us":[],"reason":"crash","detail":"killed by signal 11 (SIGSEGV) before answering turn 1 (after 12.1 ms)","ranks":[1,0],"scores":[-1,0],"forfeits":[{"seat":0,"reason":"crash","detail":"killed by signal 11 (SIGSEGV) before answering turn 1 (after 12.1 ms)","turn":1}],"offender":0,"stderr":["",""],"stderr_bytes":[0,0],"duration_ms":32}"#;

/// Reasons and exit kinds are written as their text and read back as the enums; a record of
/// an older run (no exit kind) still reads, and its reason is typed.
#[test]
fn reasons_and_exit_kinds_read_back_typed_and_old_records_still_read() {
    let old: GameRecord = serde_json::from_str(OLD_LINE).unwrap();
    assert_eq!(old.reason, Reason::Crash);
    assert_eq!(old.forfeits[0].reason, Reason::Crash);
    assert_eq!(old.forfeits[0].exit, None);

    let mut rec = old.clone();
    rec.forfeits[0].exit = Some(crate::bot::ExitKind::Signal(libc::SIGSEGV));
    let line = rec.to_line();
    assert!(
        line.contains(r#""reason":"crash""#) && line.contains(r#""exit":{"signal":11}"#),
        "{line}"
    );
    let back: GameRecord = serde_json::from_str(&line).unwrap();
    assert_eq!(back, rec);
    assert_eq!(
        old.to_line(),
        OLD_LINE,
        "an old record is written as it was"
    );

    let bad = OLD_LINE.replacen(r#""reason":"crash""#, r#""reason":"lost""#, 1);
    let err = serde_json::from_str::<GameRecord>(&bad)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("\"lost\" is not a reason arbiter writes"),
        "{err}"
    );
}

/// The steal the fair clock excused in a turn (issue 40 item 4) is kept, typed, in the record
/// and the replay file, so that a charge recomputed from them is the referee's; records and
/// replays written before it read as having none.
#[test]
fn steal_excused_in_a_turn_is_kept_in_the_record_and_the_replay() {
    let cfg = RefereeConfig::default();
    let choice = GameChoice::new("impasse", None, Some(2), None).unwrap();
    let mut r = simulate(&choice, 5, 0, None);
    let t = &mut r.log[2];
    (t.time_us, t.cpu_us, t.waited_us, t.stolen_us) = (190_000, 8_000, 37_000, 120_000);
    let rec = GameRecord::new(&spec(1), &choice, &cfg, &r);
    assert_eq!(rec.stolen_us, [(2, 120_000)]);
    let charged = crate::results::starved::charged_us(&rec);
    assert_eq!(charged[2], 33_000, "wall less waiting less steal");
    assert_eq!(charged[1], 1001, "a turn without steal: its wall time");
    let line = rec.to_line();
    let back: GameRecord = serde_json::from_str(&line).unwrap();
    assert_eq!(back, rec);

    // Without steal the key is not written, and a record without it reads as none.
    r.log[2].stolen_us = 0;
    let plain = GameRecord::new(&spec(1), &choice, &cfg, &r);
    assert!(
        !plain.to_line().contains("stolen_us"),
        "{}",
        plain.to_line()
    );
    let old: GameRecord = serde_json::from_str(&plain.to_line()).unwrap();
    assert!(old.stolen_us.is_empty());
    r.log[2].stolen_us = 120_000;

    // The replay file keeps it per turn; one written before it reads as none.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.jsonl");
    crate::results::replay::write(&path, &r, &cfg, &choice).unwrap();
    let read = crate::results::replay::read(&path).unwrap();
    assert_eq!(read.stolen_us, [(2, 120_000)]);
    assert_eq!(crate::results::starved::charged_us(&read)[2], 33_000);
    let text = std::fs::read_to_string(&path).unwrap();
    let old = text
        .replace("\"stolen_us\":120000,", "")
        .replace("\"stolen_us\":0,", "");
    assert!(!old.contains("stolen_us"));
    std::fs::write(&path, old).unwrap();
    assert!(crate::results::replay::read(&path)
        .unwrap()
        .stolen_us
        .is_empty());
}
