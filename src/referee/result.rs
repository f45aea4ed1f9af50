//! What one game produced: the verdict, the scores, the clocks, and (on request) every turn.

use super::verdict::Verdict;
use crate::game::DrawRule;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Why a game ended. The text forms are the `reason` values users see in CSV and JSON, and
/// what is read back from them ([`Reason::parse`], serde): on disk a reason is one of these
/// words, never free text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The rules ended the game with a winner or a ranking (for Impasse: a side removed all 12
    /// checkers).
    Win,
    /// The rules ended the game in a draw, by the rule named (`draw-threefold`, ...).
    Draw(DrawRule),
    /// The turn limit passed: a draw unless the game ranks the seats at the limit (Alva's
    /// points, Moscow Ice's progress).
    TurnLimit,
    /// No answer by the limit plus grace, a pipe left full, or one late answer too many.
    Timeout,
    /// An answer that is not one of the offered moves, or not text at all.
    InvalidMove,
    /// The bot exited, or closed its stdout, before answering.
    Crash,
    /// The bot answered `resign` (the human seat does on Ctrl-C).
    Resigned,
    /// More than 10,000 bytes without a newline.
    OutputTooLong,
    /// The bot (with its children) went over its memory limit and the kernel killed it.
    MemoryLimit,
    /// The bot ended after a process or thread it tried to start went over its process cap.
    ProcessLimit,
    /// The game deactivated the player by its own rules (a CodinGame SDK game: an invalid
    /// action, as the game judges answers); the game's message on it says why.
    Deactivated,
    /// The referee itself failed during this game (recorded so a tournament goes on).
    RefereeError,
    /// A draw whose rule the record does not name: games.csv files written before draws had
    /// reasons say `win` for a drawn game, which reads back as this (`draw`). Read, never
    /// produced by a game.
    UnnamedDraw,
}

/// A text that is none of the [`Reason`]s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a reason arbiter writes (one of: {list}); was the file written by another \
     program or edited by hand?",
    list = Reason::ALL.map(Reason::as_str).join(", ")
)]
pub struct UnknownReason(pub String);

impl Reason {
    pub const ALL: [Reason; 20] = [
        Reason::Win,
        Reason::Draw(DrawRule::Threefold),
        Reason::Draw(DrawRule::TwentyFiveMove),
        Reason::Draw(DrawRule::SixteenMove),
        Reason::Draw(DrawRule::FiveMove),
        Reason::Draw(DrawRule::EqualPoints),
        Reason::Draw(DrawRule::TwoPasses),
        Reason::Draw(DrawRule::FullBoard),
        Reason::Draw(DrawRule::Referee),
        Reason::TurnLimit,
        Reason::Timeout,
        Reason::InvalidMove,
        Reason::Crash,
        Reason::Resigned,
        Reason::OutputTooLong,
        Reason::MemoryLimit,
        Reason::ProcessLimit,
        Reason::Deactivated,
        Reason::RefereeError,
        Reason::UnnamedDraw,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Win => "win",
            Reason::Draw(rule) => match rule {
                DrawRule::Threefold => "draw-threefold",
                DrawRule::TwentyFiveMove => "draw-25-move",
                DrawRule::SixteenMove => "draw-16-move",
                DrawRule::FiveMove => "draw-5-move",
                DrawRule::EqualPoints => "draw-equal-points",
                DrawRule::TwoPasses => "draw-two-passes",
                DrawRule::FullBoard => "draw-full-board",
                DrawRule::Referee => "draw-referee",
            },
            Reason::TurnLimit => "turn-limit",
            Reason::Timeout => "timeout",
            Reason::InvalidMove => "invalid-move",
            Reason::Crash => "crash",
            Reason::Resigned => "resigned",
            Reason::OutputTooLong => "output-too-long",
            Reason::MemoryLimit => "memory-limit",
            Reason::ProcessLimit => "process-limit",
            Reason::Deactivated => "deactivated",
            Reason::RefereeError => "referee-error",
            Reason::UnnamedDraw => "draw",
        }
    }

    /// The reason whose text form is `text`.
    pub fn parse(text: &str) -> Result<Reason, UnknownReason> {
        Reason::ALL
            .into_iter()
            .find(|r| r.as_str() == text)
            .ok_or_else(|| UnknownReason(text.to_string()))
    }

    /// A verdict against one bot rather than a result of play.
    pub fn is_forfeit(self) -> bool {
        !matches!(
            self,
            Reason::Win
                | Reason::Draw(_)
                | Reason::UnnamedDraw
                | Reason::TurnLimit
                | Reason::RefereeError
        )
    }

    /// A reason for which the rules (or the turn limit) ended the game: no forfeit, no referee
    /// failure.
    pub fn is_play(self) -> bool {
        matches!(
            self,
            Reason::Win | Reason::Draw(_) | Reason::UnnamedDraw | Reason::TurnLimit
        )
    }
}

impl Serialize for Reason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Reason {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        Reason::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl std::str::FromStr for Reason {
    type Err = UnknownReason;
    fn from_str(text: &str) -> Result<Reason, UnknownReason> {
        Reason::parse(text)
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One bot's clock over a game.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SeatStats {
    /// Answers received.
    pub turns: u32,
    pub total_us: u64,
    pub max_us: u64,
    /// CPU time of the bot's main process over its turns.
    pub cpu_total_us: u64,
    pub cpu_max_us: u64,
    /// Late answers (within the grace).
    pub strikes: u32,
    /// Waiting for a CPU over its turns (the turn it timed out on included), not charged by
    /// the fair clock (zero on other clocks).
    pub waited_total_us: u64,
    pub waited_max_us: u64,
    /// Turns in which it waited for a CPU longer than the turn's limit (the turn it timed out
    /// on included): the machine, not the bot, set the pace.
    pub starved_turns: u32,
}

impl SeatStats {
    pub fn add(&mut self, wall: Duration, cpu: Duration) {
        let us = wall.as_micros() as u64;
        self.turns += 1;
        self.total_us += us;
        self.max_us = self.max_us.max(us);
        let cpu = cpu.as_micros() as u64;
        self.cpu_total_us += cpu;
        self.cpu_max_us = self.cpu_max_us.max(cpu);
    }

    /// Adds one turn's waiting for a CPU, on a turn of `limit`.
    pub fn add_waiting(&mut self, waited: Duration, limit: Duration) {
        let us = waited.as_micros() as u64;
        self.waited_total_us += us;
        self.waited_max_us = self.waited_max_us.max(us);
        if waited > limit {
            self.starved_turns += 1;
        }
    }

    /// Whether waiting for a CPU dominated its games: more than a turn's limit in some turn, or
    /// more waiting than everything else in all.
    pub fn starved(&self) -> bool {
        self.starved_turns > 0 || self.waited_total_us * 2 > self.total_us.max(1)
    }

    pub fn cpu_max_ms(&self) -> f64 {
        self.cpu_max_us as f64 / 1000.0
    }

    pub fn cpu_mean_ms(&self) -> f64 {
        if self.turns == 0 {
            0.0
        } else {
            self.cpu_total_us as f64 / 1000.0 / f64::from(self.turns)
        }
    }

    pub fn max_ms(&self) -> f64 {
        self.max_us as f64 / 1000.0
    }

    pub fn mean_ms(&self) -> f64 {
        if self.turns == 0 {
            0.0
        } else {
            self.total_us as f64 / 1000.0 / f64::from(self.turns)
        }
    }
}

/// A seat that forfeited: the game's end in a two-seat game, an elimination in a larger one.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Forfeit {
    pub seat: usize,
    pub reason: Reason,
    /// What exactly the bot did.
    pub detail: String,
    /// The game's turn number when it happened.
    pub turn: u32,
    /// How its process ended, when it ended by itself or by a signal (a crash); `None` for a
    /// verdict on a bot that was still running (a timeout, an illegal move, ...). Written as
    /// `{"signal":11}` or `{"status":3}`, left out when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<crate::bot::ExitKind>,
}

impl Forfeit {
    /// The forfeit of `seat` on game turn `turn` for what [`Verdict`] says it did: its reason,
    /// exit kind and sentence all from those facts.
    pub(super) fn of(seat: usize, verdict: &Verdict, turn: u32) -> Forfeit {
        Forfeit {
            seat,
            reason: verdict.reason(),
            detail: verdict.to_string(),
            turn,
            exit: verdict.exit(),
        }
    }
}

/// At most this many bytes (the last ones) of what a bot wrote to stderr during one turn are
/// kept in its [`TurnRecord`].
pub const TURN_STDERR_BYTES: usize = 1024;

/// One answered turn, as the replay file keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TurnRecord {
    /// The game's turn number, from 1 (opening plies included).
    pub turn: u32,
    pub seat: usize,
    /// The exact input sent.
    pub input: String,
    /// The answer line as read (invalid UTF-8 shown as U+FFFD).
    pub answer: String,
    pub comment: String,
    /// The move the referee played (the real move when the answer was `random`).
    pub played: String,
    /// Wall time from the input written to the answer's newline, in microseconds.
    pub time_us: u64,
    /// CPU time the bot's main process used in that turn, in microseconds.
    pub cpu_us: u64,
    /// Waiting for a CPU in that turn (the bot's tasks and the referee's), in microseconds: not
    /// charged by the fair clock (zero on other clocks).
    pub waited_us: u64,
    /// Time the hypervisor took from the bot's CPUs in that turn (steal), in microseconds: not
    /// charged by the fair clock (zero on other clocks, and in records older than it).
    #[serde(default)]
    pub stolen_us: u64,
    /// Answered after the limit, within the grace: a strike.
    pub late: bool,
    /// Complete lines the bot had already written before this turn's input was sent (left over
    /// from earlier answers; CodinGame reads them as this turn's answer).
    pub extra_lines: usize,
    /// What the bot wrote to stderr since its previous recorded turn (its last
    /// [`TURN_STDERR_BYTES`]).
    pub stderr: String,
}

/// Everything one game produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GameResult {
    pub game: String,
    pub seed: u64,
    /// Bot names by seat.
    pub bots: Vec<String>,
    /// Plies the referee played before the bots took over.
    pub opening: Vec<String>,
    /// The seat that won, `None` for a draw.
    pub winner: Option<usize>,
    /// Finishing rank of each seat (0 = first; equal = tie).
    pub ranks: Vec<u8>,
    pub reason: Reason,
    /// For a forfeit: what exactly the bot did.
    pub detail: String,
    /// The seat whose forfeit ended the game.
    pub offender: Option<usize>,
    /// Every forfeit of the game in order: seats eliminated on the way (games of three or more
    /// seats play on without them), then the one that ended the game, if any.
    pub forfeits: Vec<Forfeit>,
    /// Turns played in all, opening plies included.
    pub turns: u32,
    /// Scores of the record as the game reports them (Impasse: the arena's, -1 for a forfeit;
    /// draughts: 0 for a forfeit, 2 for the other); in games of three or more seats -1 for every
    /// seat that forfeited.
    pub scores: Vec<i32>,
    /// The game's own per-seat scores at the end ([`crate::game::Rules::scores`]; their name is
    /// the game's [`crate::game::GameInfo::score_name`], for Impasse checkers removed). Written
    /// as `removed` (replay files, `play --json`), the name files already on disk use.
    #[serde(rename = "removed")]
    pub game_scores: Vec<i32>,
    pub stats: Vec<SeatStats>,
    /// The moves the bots played, in order.
    pub moves: Vec<String>,
    #[serde(skip)]
    pub log: Vec<TurnRecord>,
    /// Each bot's stderr tail by seat; for an external referee's game one more, last: the
    /// referee's.
    #[serde(skip)]
    pub stderr_tails: Vec<String>,
    pub stderr_bytes: Vec<u64>,
    #[serde(skip)]
    pub duration: Duration,
    /// A CodinGame SDK game's own frames (summaries, tooltips, views), when turns are recorded.
    #[serde(skip)]
    pub sdk: Option<Box<crate::referee::sdk::record::SdkLog>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_reads_back_and_draws_name_their_rule() {
        for r in Reason::ALL {
            assert_eq!(Reason::parse(r.as_str()), Ok(r), "{r}");
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(serde_json::from_str::<Reason>(&json).unwrap(), r, "{json}");
        }
        for rule in DrawRule::ALL {
            let r = Reason::Draw(rule);
            assert_eq!(r.as_str(), format!("draw-{}", rule.as_str()));
            assert!(!r.is_forfeit() && r.is_play(), "{r}");
        }
        let json = serde_json::to_string(&Reason::Draw(DrawRule::Threefold)).unwrap();
        assert_eq!(json, "\"draw-threefold\"");
        let err = Reason::parse("lost-on-time").unwrap_err().to_string();
        assert!(
            err.contains("\"lost-on-time\" is not a reason") && err.contains("referee-error"),
            "{err}"
        );
        assert!(serde_json::from_str::<Reason>("\"nonsense\"").is_err());
    }

    /// The game's own scores are serialised under the name files already on disk use.
    #[test]
    fn game_scores_serialise_as_removed() {
        let choice = crate::referee::GameChoice::new("impasse", None, Some(2), None).unwrap();
        let mut r = crate::results::records::tests::simulate(&choice, 1, 2, None);
        r.game_scores = vec![4, 2];
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["removed"], serde_json::json!([4, 2]));
        assert!(v.get("game_scores").is_none(), "{v}");
    }
}
