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
    /// The field as the request names it (`forfeits[2].seat`).
    pub field: String,
    pub why: Wrong,
}

/// What is wrong with a field: the facts, written only in the refusal sent to the worker.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Wrong {
    #[error("{len} {what}, more than the {max} a game keeps")]
    TooLong {
        len: usize,
        max: usize,
        what: &'static str,
    },
    #[error("{len} entries, for a game of {seats} seats (want {})", want_seats(*.seats, *.referees))]
    NotOnePerSeat {
        len: usize,
        seats: usize,
        /// Whether one more, the referee's, may follow the seats'.
        referees: bool,
    },
    #[error("{us} µs is more than a week")]
    OverAWeek { us: u64 },
    #[error("rank {rank} in a game of {seats} seats (0 is first)")]
    RankPastSeats { rank: u8, seats: usize },
    #[error("{winner:?} does not agree with the ranks {ranks:?} (whose winner is {sole:?})")]
    WinnerDisagrees {
        winner: Option<usize>,
        ranks: Vec<u8>,
        sole: Option<usize>,
    },
    #[error("\"draw\" is read from old files, never made by a referee")]
    OldDraw,
    #[error("played from {played:?}, not from the opening the game was leased with ({leased:?})")]
    NotTheOpening {
        played: Vec<String>,
        leased: Vec<String>,
    },
    #[error("{turns} turns, past the league's limit of {max}")]
    PastTurnLimit { turns: u32, max: u32 },
    #[error("seat {seat} in a game of {seats} seats")]
    SeatPastSeats { seat: usize, seats: usize },
    #[error("seat {seat} forfeits twice")]
    ForfeitsTwice { seat: usize },
    #[error("{reason} is not a forfeit's reason")]
    NotAForfeit { reason: Reason },
    #[error("turn {turn} of a game of {turns} turns")]
    TurnPastGame { turn: u32, turns: u32 },
    #[error("seat {seat} ended the game, but the last forfeit is not its")]
    OffenderNotLast { seat: usize },
    #[error("seat {seat} for a game that ended by {reason}, no forfeit")]
    OffenderWithoutForfeit { seat: usize, reason: Reason },
    #[error("none for a game that ended by {reason}, a forfeit")]
    ForfeitWithoutOffender { reason: Reason },
    #[error("{part} is more than {total_name} {total}")]
    PartOverTotal {
        part: u64,
        total_name: &'static str,
        total: u64,
    },
    #[error("{count} in a game of {turns} turns")]
    CountPastTurns { count: u32, turns: u32 },
}

/// How many entries a field of one per seat wants.
fn want_seats(seats: usize, referees: bool) -> String {
    if referees {
        format!("{seats} (or {} with a referee's)", seats + 1)
    } else {
        seats.to_string()
    }
}

fn bad(field: impl Into<String>, why: Wrong) -> BadField {
    BadField {
        field: field.into(),
        why,
    }
}

fn at_most(field: &str, len: usize, max: usize, what: &'static str) -> Result<(), BadField> {
    if len > max {
        return Err(bad(field, Wrong::TooLong { len, max, what }));
    }
    Ok(())
}

fn seats_long(field: &str, len: usize, seats: usize, extra: bool) -> Result<(), BadField> {
    let fits = len == seats || (extra && len == seats + 1);
    if !fits {
        let referees = extra;
        return Err(bad(
            field,
            Wrong::NotOnePerSeat {
                len,
                seats,
                referees,
            },
        ));
    }
    Ok(())
}

fn micros(field: &str, us: u64) -> Result<(), BadField> {
    if us > MAX_US {
        return Err(bad(field, Wrong::OverAWeek { us }));
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
            Wrong::RankPastSeats { rank: *rank, seats },
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
            Wrong::WinnerDisagrees {
                winner: r.winner,
                ranks: r.ranks.clone(),
                sole,
            },
        ));
    }
    if r.reason == Reason::UnnamedDraw {
        return Err(bad("reason", Wrong::OldDraw));
    }
    at_most("detail", r.detail.len(), MAX_DETAIL, "bytes")?;
    if r.opening != opening {
        return Err(bad(
            "opening",
            Wrong::NotTheOpening {
                played: r.opening.clone(),
                leased: opening.to_vec(),
            },
        ));
    }
    if r.turns > max_turns {
        return Err(bad(
            "turns",
            Wrong::PastTurnLimit {
                turns: r.turns,
                max: max_turns,
            },
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
                Wrong::SeatPastSeats {
                    seat: f.seat,
                    seats,
                },
            ));
        }
        if std::mem::replace(&mut seen[f.seat], true) {
            return Err(bad(
                format!("{field}.seat"),
                Wrong::ForfeitsTwice { seat: f.seat },
            ));
        }
        if !f.reason.is_forfeit() {
            return Err(bad(
                format!("{field}.reason"),
                Wrong::NotAForfeit { reason: f.reason },
            ));
        }
        if f.turn > r.turns.saturating_add(1) {
            return Err(bad(
                format!("{field}.turn"),
                Wrong::TurnPastGame {
                    turn: f.turn,
                    turns: r.turns,
                },
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
        (Some(seat), true) => Err(bad("offender", Wrong::OffenderNotLast { seat })),
        (Some(seat), false) => Err(bad(
            "offender",
            Wrong::OffenderWithoutForfeit {
                seat,
                reason: r.reason,
            },
        )),
        (None, true) => Err(bad(
            "offender",
            Wrong::ForfeitWithoutOffender { reason: r.reason },
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
                Wrong::PartOverTotal {
                    part: m,
                    total_name: total,
                    total: t,
                },
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
                Wrong::CountPastTurns { count: n, turns },
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
                Wrong::SeatPastSeats {
                    seat: t.seat,
                    seats,
                },
            ));
        }
        if t.turn > turns {
            return Err(bad(
                format!("{field}.turn"),
                Wrong::TurnPastGame {
                    turn: t.turn,
                    turns,
                },
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
    fn a_refusal_says_what_is_wrong_with_the_field_in_the_words_workers_were_told() {
        let mut r = honest();
        r.result.reason = Reason::Crash;
        let e = check(&r, &game(), 250, &[]).unwrap_err();
        assert_eq!(
            e.why,
            Wrong::ForfeitWithoutOffender {
                reason: r.result.reason
            }
        );
        assert_eq!(
            e.to_string(),
            format!(
                "offender: none for a game that ended by {}, a forfeit",
                r.result.reason
            )
        );
        let mut r = honest();
        r.stderr_tails = vec![String::new(); 4];
        let e = check(&r, &game(), 250, &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "stderr_tails: 4 entries, for a game of 2 seats (want 2 (or 3 with a referee's))"
        );
        let mut r = honest();
        r.result.turns = 251;
        let e = check(&r, &game(), 250, &[]).unwrap_err();
        assert_eq!(
            e.why,
            Wrong::PastTurnLimit {
                turns: 251,
                max: 250
            }
        );
        assert_eq!(
            e.to_string(),
            "turns: 251 turns, past the league's limit of 250"
        );
        let mut r = honest();
        r.duration_us = MAX_US + 1;
        let e = check(&r, &game(), 250, &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("duration_us: {} µs is more than a week", MAX_US + 1)
        );
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
