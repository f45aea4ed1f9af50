//! A worker's result checked against the game it leased, before anything of it is written:
//! every field a worker sends is a claim, and the records, the failures folder, the page and
//! the ratings index by seat and trust lengths. A result is taken only if it is one the referee
//! could have made of that game: one rank, score and clock per seat, ranks below the seat count
//! and a winner that agrees with them, forfeits of seats the game has (each once, each a
//! forfeit's reason), the offender among them, no more turns than the league's limit, clocks
//! whose parts add up and stay below a week, and texts no longer than the referee keeps. The
//! first field that is not is named in the refusal (400), and nothing of the result is kept.
//! Pure: no I/O.

use crate::bot::process::STDERR_TAIL_BYTES;
use crate::league::scheduler::LeagueGame;
use crate::league::wire::ResultRequest;
use crate::protocol::MAX_LINE_BYTES;
use crate::referee::{Reason, SeatStats, TURN_STDERR_BYTES};

/// The longest time any clock of a result may show, in microseconds (a week).
pub const MAX_US: u64 = 7 * 24 * 3600 * 1_000_000;
/// The longest verdict or failure text, in bytes.
pub const MAX_DETAIL: usize = 256 << 10;
/// The longest input of one turn a result may keep, in bytes.
pub const MAX_INPUT: usize = 1 << 20;
/// How much longer than its bytes a text read from a bot may be once made valid UTF-8 (each
/// invalid byte becomes U+FFFD, three bytes).
const LOSSY: usize = 3;

/// The first field of a result that no referee could have made of its game, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {why}")]
pub struct BadField {
    pub field: String,
    pub why: String,
}

fn bad(field: impl Into<String>, why: impl Into<String>) -> BadField {
    BadField {
        field: field.into(),
        why: why.into(),
    }
}

fn at_most(field: &str, len: usize, max: usize, what: &str) -> Result<(), BadField> {
    if len > max {
        return Err(bad(
            field,
            format!("{len} {what}, more than the {max} a game keeps"),
        ));
    }
    Ok(())
}

fn seats_long(field: &str, len: usize, seats: usize, extra: bool) -> Result<(), BadField> {
    let fits = len == seats || (extra && len == seats + 1);
    if !fits {
        let want = if extra {
            format!("{seats} (or {} with a referee's)", seats + 1)
        } else {
            seats.to_string()
        };
        return Err(bad(
            field,
            format!("{len} entries, for a game of {seats} seats (want {want})"),
        ));
    }
    Ok(())
}

fn micros(field: &str, us: u64) -> Result<(), BadField> {
    if us > MAX_US {
        return Err(bad(field, format!("{us} µs is more than a week")));
    }
    Ok(())
}

/// Whether `req` is a result the referee could have made of `game` (a league game of at most
/// `max_turns` turns, played from `opening`: the plies it was leased with, none where the
/// league has no openings).
pub fn check(
    req: &ResultRequest,
    game: &LeagueGame,
    max_turns: u32,
    opening: &[String],
) -> Result<(), BadField> {
    let r = &req.result;
    let seats = game.bots.len();
    seats_long("ranks", r.ranks.len(), seats, false)?;
    if let Some((seat, rank)) = r
        .ranks
        .iter()
        .enumerate()
        .find(|(_, &k)| usize::from(k) >= seats)
    {
        return Err(bad(
            format!("ranks[{seat}]"),
            format!("rank {rank} in a game of {seats} seats (0 is first)"),
        ));
    }
    seats_long("stats", r.stats.len(), seats, false)?;
    seats_long("scores", r.scores.len(), seats, false)?;
    if !r.game_scores.is_empty() {
        seats_long("removed", r.game_scores.len(), seats, false)?;
    }
    seats_long("stderr_bytes", r.stderr_bytes.len(), seats, true)?;
    seats_long("stderr_tails", req.stderr_tails.len(), seats, true)?;
    for (seat, tail) in req.stderr_tails.iter().enumerate() {
        let field = format!("stderr_tails[{seat}]");
        at_most(&field, tail.len(), LOSSY * STDERR_TAIL_BYTES, "bytes")?;
    }
    let sole = crate::game::Outcome {
        ranks: r.ranks.clone(),
    }
    .sole_winner();
    if r.winner != sole {
        return Err(bad(
            "winner",
            format!(
                "{:?} does not agree with the ranks {:?} (whose winner is {sole:?})",
                r.winner, r.ranks
            ),
        ));
    }
    if r.reason == Reason::UnnamedDraw {
        return Err(bad(
            "reason",
            "\"draw\" is read from old files, never made by a referee",
        ));
    }
    at_most("detail", r.detail.len(), MAX_DETAIL, "bytes")?;
    if r.opening != opening {
        return Err(bad(
            "opening",
            format!(
                "played from {:?}, not from the opening the game was leased with ({:?})",
                r.opening, opening
            ),
        ));
    }
    if r.turns > max_turns {
        return Err(bad(
            "turns",
            format!("{} turns, past the league's limit of {max_turns}", r.turns),
        ));
    }
    forfeits(r, seats)?;
    for (seat, s) in r.stats.iter().enumerate() {
        stats(&format!("stats[{seat}]"), s, r.turns)?;
    }
    at_most(
        "moves",
        r.moves.len(),
        r.turns as usize,
        "moves for its turns",
    )?;
    if let Some(k) = r
        .moves
        .iter()
        .position(|m| m.len() > LOSSY * MAX_LINE_BYTES)
    {
        at_most(
            &format!("moves[{k}]"),
            r.moves[k].len(),
            LOSSY * MAX_LINE_BYTES,
            "bytes",
        )?;
    }
    log(req, seats)?;
    micros("duration_us", req.duration_us)
}

/// The forfeits: seats of the game, each once, each for a forfeit's reason, on a turn of the
/// game; the offender (there is one exactly when the game ended in a forfeit) the last of them.
fn forfeits(r: &crate::referee::GameResult, seats: usize) -> Result<(), BadField> {
    let mut seen = vec![false; seats];
    for (k, f) in r.forfeits.iter().enumerate() {
        let field = format!("forfeits[{k}]");
        if f.seat >= seats {
            return Err(bad(
                format!("{field}.seat"),
                format!("seat {} in a game of {seats} seats", f.seat),
            ));
        }
        if std::mem::replace(&mut seen[f.seat], true) {
            return Err(bad(
                format!("{field}.seat"),
                format!("seat {} forfeits twice", f.seat),
            ));
        }
        if !f.reason.is_forfeit() {
            return Err(bad(
                format!("{field}.reason"),
                format!("{} is not a forfeit's reason", f.reason),
            ));
        }
        if f.turn > r.turns.saturating_add(1) {
            return Err(bad(
                format!("{field}.turn"),
                format!("turn {} of a game of {} turns", f.turn, r.turns),
            ));
        }
        at_most(
            &format!("{field}.detail"),
            f.detail.len(),
            MAX_DETAIL,
            "bytes",
        )?;
    }
    match (r.offender, r.reason.is_forfeit()) {
        (None, false) => Ok(()),
        (Some(seat), true) if r.forfeits.last().is_some_and(|f| f.seat == seat) => Ok(()),
        (Some(seat), true) => Err(bad(
            "offender",
            format!("seat {seat} ended the game, but the last forfeit is not its"),
        )),
        (Some(seat), false) => Err(bad(
            "offender",
            format!(
                "seat {seat} for a game that ended by {}, no forfeit",
                r.reason
            ),
        )),
        (None, true) => Err(bad(
            "offender",
            format!("none for a game that ended by {}, a forfeit", r.reason),
        )),
    }
}

/// One seat's clock over a game of `turns` turns: its parts add up, each below a week.
fn stats(field: &str, s: &SeatStats, turns: u32) -> Result<(), BadField> {
    for (name, us) in [
        ("total_us", s.total_us),
        ("max_us", s.max_us),
        ("cpu_total_us", s.cpu_total_us),
        ("cpu_max_us", s.cpu_max_us),
        ("waited_total_us", s.waited_total_us),
        ("waited_max_us", s.waited_max_us),
    ] {
        micros(&format!("{field}.{name}"), us)?;
    }
    let pairs = [
        ("max_us", s.max_us, "total_us", s.total_us),
        ("cpu_max_us", s.cpu_max_us, "cpu_total_us", s.cpu_total_us),
        (
            "waited_max_us",
            s.waited_max_us,
            "waited_total_us",
            s.waited_total_us,
        ),
    ];
    for (max, m, total, t) in pairs {
        if m > t {
            return Err(bad(
                format!("{field}.{max}"),
                format!("{m} is more than {total} {t}"),
            ));
        }
    }
    // The turn a seat timed out on counts in its waiting, not in its answers.
    let bound = turns.saturating_add(1);
    for (name, n) in [
        ("turns", s.turns),
        ("strikes", s.strikes),
        ("starved_turns", s.starved_turns),
    ] {
        if n > bound {
            return Err(bad(
                format!("{field}.{name}"),
                format!("{n} in a game of {turns} turns"),
            ));
        }
    }
    Ok(())
}

/// The turns kept: no more than the game's, each of a seat it has, texts as long as the referee
/// keeps at most.
fn log(req: &ResultRequest, seats: usize) -> Result<(), BadField> {
    let turns = req.result.turns;
    at_most(
        "log",
        req.log.len(),
        turns as usize,
        "turns kept for its turns",
    )?;
    for (k, t) in req.log.iter().enumerate() {
        let field = format!("log[{k}]");
        if t.seat >= seats {
            return Err(bad(
                format!("{field}.seat"),
                format!("seat {} in a game of {seats} seats", t.seat),
            ));
        }
        if t.turn > turns {
            return Err(bad(
                format!("{field}.turn"),
                format!("turn {} of a game of {turns} turns", t.turn),
            ));
        }
        let line = LOSSY * MAX_LINE_BYTES;
        for (name, len, max) in [
            ("input", t.input.len(), MAX_INPUT),
            ("answer", t.answer.len(), line),
            ("comment", t.comment.len(), line),
            ("played", t.played.len(), line),
            ("stderr", t.stderr.len(), LOSSY * TURN_STDERR_BYTES),
        ] {
            at_most(&format!("{field}.{name}"), len, max, "bytes")?;
        }
        for (name, us) in [
            ("time_us", t.time_us),
            ("cpu_us", t.cpu_us),
            ("waited_us", t.waited_us),
            ("stolen_us", t.stolen_us),
        ] {
            micros(&format!("{field}.{name}"), us)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::{Forfeit, TurnRecord};

    fn game() -> LeagueGame {
        LeagueGame {
            game_id: 7,
            pair_id: 3,
            seed: 1,
            bots: vec!["a".into(), "b".into()],
            sprt: None,
        }
    }

    fn honest() -> ResultRequest {
        crate::bench::league::fabricated("w#1", &game(), 1)
    }

    fn refused(change: impl Fn(&mut ResultRequest)) -> String {
        let mut r = honest();
        change(&mut r);
        match check(&r, &game(), 250, &[]) {
            Err(e) => e.field,
            Ok(()) => panic!("taken"),
        }
    }

    fn turn(seat: usize, turn: u32) -> TurnRecord {
        TurnRecord {
            turn,
            seat,
            input: String::new(),
            answer: "a1b2".into(),
            comment: String::new(),
            played: "a1b2".into(),
            time_us: 10,
            cpu_us: 5,
            waited_us: 0,
            stolen_us: 0,
            late: false,
            extra_lines: 0,
            stderr: String::new(),
        }
    }

    #[test]
    fn honest_results_are_taken() {
        for n in 0..3 {
            let r = crate::bench::league::fabricated("w#1", &game(), n);
            assert_eq!(check(&r, &game(), 250, &[]), Ok(()), "{n}");
        }
        // Played from the opening it was leased with; another opening (or none) is refused.
        let told = vec!["a1b2".to_string(), "c3d4".to_string()];
        let mut r = honest();
        r.result.opening = told.clone();
        assert_eq!(check(&r, &game(), 250, &told), Ok(()));
        r.result.opening.pop();
        let e = check(&r, &game(), 250, &told).unwrap_err();
        assert_eq!(e.field, "opening", "{e}");
        assert!(check(&honest(), &game(), 250, &told).is_err());
        // A forfeit, as the referee makes one, with its turns kept and a referee's stderr.
        let mut r = honest();
        r.result.reason = Reason::Timeout;
        r.result.winner = Some(1);
        r.result.ranks = vec![1, 0];
        r.result.offender = Some(0);
        r.result.forfeits = vec![Forfeit {
            seat: 0,
            reason: Reason::Timeout,
            detail: "no answer".into(),
            turn: 61,
            exit: None,
        }];
        r.log = vec![turn(0, 1), turn(1, 2)];
        r.stderr_tails.push("referee".into());
        r.result.stderr_bytes.push(7);
        assert_eq!(check(&r, &game(), 250, &[]), Ok(()));
        let mut e = r;
        e.result =
            crate::referee::GameResult::unplayed("impasse", 1, game().bots, vec![], "x".into());
        e.stderr_tails = vec![String::new(); 2];
        e.log = Vec::new();
        assert_eq!(check(&e, &game(), 250, &[]), Ok(()));
    }

    #[test]
    fn every_forged_field_is_named() {
        use crate::referee::Reason::*;
        let forfeit = |seat, reason| Forfeit {
            seat,
            reason,
            detail: String::new(),
            turn: 1,
            exit: None,
        };
        assert_eq!(
            refused(|r| r.result.forfeits = vec![forfeit(7, Crash)]),
            "forfeits[0].seat"
        );
        assert_eq!(
            refused(|r| r.result.forfeits = vec![forfeit(0, Crash), forfeit(0, Crash)]),
            "forfeits[1].seat"
        );
        assert_eq!(
            refused(|r| r.result.forfeits = vec![forfeit(1, Win)]),
            "forfeits[0].reason"
        );
        assert_eq!(refused(|r| r.result.ranks = vec![0]), "ranks");
        assert_eq!(refused(|r| r.result.ranks = vec![0, 7]), "ranks[1]");
        assert_eq!(refused(|r| r.result.winner = Some(5)), "winner");
        assert_eq!(refused(|r| r.result.offender = Some(3)), "offender");
        assert_eq!(
            refused(|r| {
                r.result.reason = Crash;
                r.result.forfeits = vec![forfeit(1, Crash)];
            }),
            "offender"
        );
        assert_eq!(refused(|r| r.result.reason = UnnamedDraw), "reason");
        assert_eq!(refused(|r| r.result.turns = 251), "turns");
        assert_eq!(
            refused(|r| r.result.stats.pop().map(drop).unwrap_or(())),
            "stats"
        );
        assert_eq!(
            refused(|r| r.result.stats[1].waited_total_us = u64::MAX),
            "stats[1].waited_total_us"
        );
        assert_eq!(
            refused(|r| r.result.stats[0].max_us = r.result.stats[0].total_us + 1),
            "stats[0].max_us"
        );
        assert_eq!(
            refused(|r| r.result.stats[0].strikes = 1000),
            "stats[0].strikes"
        );
        assert_eq!(refused(|r| r.result.scores = vec![0]), "scores");
        assert_eq!(refused(|r| r.result.moves = vec!["a1".into(); 61]), "moves");
        assert_eq!(
            refused(|r| r.result.moves[0] = "x".repeat(40_000)),
            "moves[0]"
        );
        assert_eq!(
            refused(|r| r.result.detail = "x".repeat(MAX_DETAIL + 1)),
            "detail"
        );
        assert_eq!(
            refused(|r| r.result.opening = vec!["a1b2".into()]),
            "opening"
        );
        assert_eq!(
            refused(|r| r.stderr_tails = vec![String::new()]),
            "stderr_tails"
        );
        assert_eq!(
            refused(|r| r.stderr_tails[1] = "x".repeat(LOSSY * STDERR_TAIL_BYTES + 1)),
            "stderr_tails[1]"
        );
        assert_eq!(refused(|r| r.log = vec![turn(9, 1)]), "log[0].seat");
        assert_eq!(refused(|r| r.log = vec![turn(0, 99)]), "log[0].turn");
        assert_eq!(refused(|r| r.log = vec![turn(0, 1); 61]), "log");
        assert_eq!(
            refused(|r| {
                let mut t = turn(0, 1);
                t.stderr = "x".repeat(LOSSY * TURN_STDERR_BYTES + 1);
                r.log = vec![t];
            }),
            "log[0].stderr"
        );
        assert_eq!(refused(|r| r.duration_us = u64::MAX), "duration_us");
    }
}
