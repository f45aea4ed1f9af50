//! What a game is played under, besides the game and the bots: the clocks (what a turn's
//! limit measures, and how long the first and later turns may take), freezing idle bots, the
//! bots' limits and whether turns are recorded. Plain data, shared by every caller of the
//! referee (play, tournaments, bench, external referees).

use crate::bot::Limits;
use std::time::Duration;

/// How long the bot that just answered may stay unfrozen while the next bot thinks. A freeze
/// (SIGSTOP, then SIGCONT) wakes a sleeping bot twice and costs two context switches; the turns
/// of fast bots end sooner than this, and then no signal is sent at all. Longer than a kernel
/// tick (4 ms at 250 Hz): a shorter wake-up timer is the CPU's next timer event, and arming and
/// cancelling it every turn cost as much as the freeze it saves (measured with `arbiter bench`).
pub const FREEZE_AFTER: Duration = Duration::from_millis(5);

/// CPU time a bot may use between its answer and its next turn (finishing its write, going back
/// to its read) before it counts as thinking on the opponent's time. A bot seen doing that is
/// frozen at once after each of its later answers.
pub const IDLE_CPU_SLACK: Duration = Duration::from_micros(200);

/// The clocks of a game, CodinGame's by default.
#[derive(Clone, Debug)]
pub struct TimeControl {
    /// Limit of each bot's first turn (its start-up included).
    pub first_turn: Duration,
    /// Limit of every later turn.
    pub turn: Duration,
    /// How late an answer may be and still count (as a strike). Zero in strict mode.
    pub grace: Duration,
    /// The late answer that loses: 3 means the third late answer is a timeout.
    pub strikes: u32,
    /// What the limits measure.
    pub clock: Clock,
}

/// What a turn's time limit measures.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Clock {
    /// Wall time from the input written to the answer's newline, less the time the bot (its
    /// whole process tree) and the referee waited for a CPU and, on a virtual machine, the time
    /// the hypervisor took from the bot's CPUs (steal): the time the bot could have run.
    /// On an idle machine it reads as the wall clock; on a busy one a starved bot is not
    /// charged for the starving. A turn still ends at 50 times its limit of wall time
    /// (`FAIR_WALL_FACTOR`: this text is also `--help`'s, which shows no doc link).
    #[default]
    Fair,
    /// Wall time from the input written to the answer's newline (CodinGame's clock).
    Wall,
    /// CPU time of the bot's main process (all its threads), for loaded machines. A bot that
    /// sleeps instead of answering still loses once the wall time reaches ten times the limit
    /// plus grace (10 x (limit + grace)).
    Cpu,
}

impl Clock {
    /// The name users give and records keep: `fair`, `wall` or `cpu`.
    pub fn as_str(self) -> &'static str {
        match self {
            Clock::Fair => "fair",
            Clock::Wall => "wall",
            Clock::Cpu => "cpu",
        }
    }
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            first_turn: Duration::from_millis(1000),
            turn: Duration::from_millis(100),
            grace: Duration::from_millis(50),
            strikes: 3,
            clock: Clock::Fair,
        }
    }
}

/// Everything the referee needs besides the game and the bots.
#[derive(Clone, Debug)]
pub struct RefereeConfig {
    pub time: TimeControl,
    /// Turns (one seat's move each, opening plies included) after which the game ends.
    pub max_turns: u32,
    /// Freeze (SIGSTOP) every bot that is not on turn: [`FREEZE_AFTER`] into the other bot's
    /// turn, or at once after its answer for a bot seen using CPU while idle.
    pub freeze_idle: bool,
    /// How long into the other bot's turn an idle bot is frozen ([`FREEZE_AFTER`]); zero
    /// freezes every bot as soon as it answers.
    pub freeze_after: Duration,
    /// How long a bot has to exit after SIGTERM before SIGKILL.
    pub kill_grace: Duration,
    pub limits: Limits,
    /// Keep every turn's answer, times and stderr (records and replay pages).
    pub record_turns: bool,
    /// With `record_turns`, keep every turn's input too (replay files, `--replays`). Records
    /// and replay pages do not need it (a page rebuilds the inputs from the moves); copying
    /// it every turn was a large allocation a turn on the game's thread.
    pub record_inputs: bool,
}

impl RefereeConfig {
    /// Sets the limits of a bot's first and later turns, and what the bots are told of them
    /// (`ARBITER_FIRST_TURN_MS`, `ARBITER_TURN_MS` in their environment).
    pub fn set_turn_limits(&mut self, first_turn: Duration, turn: Duration) {
        self.time.first_turn = first_turn;
        self.time.turn = turn;
        for (name, value) in self.limits.env.iter_mut() {
            match name.as_str() {
                "ARBITER_FIRST_TURN_MS" => *value = first_turn.as_millis().to_string(),
                "ARBITER_TURN_MS" => *value = turn.as_millis().to_string(),
                _ => {}
            }
        }
    }
}

impl Default for RefereeConfig {
    fn default() -> Self {
        RefereeConfig {
            time: TimeControl::default(),
            max_turns: 250,
            freeze_idle: true,
            freeze_after: FREEZE_AFTER,
            kill_grace: Duration::from_millis(200),
            limits: Limits::default(),
            record_turns: false,
            record_inputs: false,
        }
    }
}
