//! Plays one game: starts the bots, runs the turn loop with clocks, and turns everything a bot
//! can do wrong into a verdict. Emits a [`GameResult`]; never prints and never writes files.

mod clock;
pub mod external;
mod ranks;
mod result;
pub mod seat;
mod wait;

#[cfg(test)]
mod scripted;

pub use clock::{charged, FAIR_WALL_FACTOR};
use clock::{past_grace, timeout_detail, Excuse, Spent, QUICK_ANSWER};
use ranks::rank_with_eliminations;
pub use result::{Forfeit, GameResult, Reason, SeatStats, TurnRecord, TURN_STDERR_BYTES};
pub use seat::Seat;
use wait::{exit_verdict, wait_answer, Allowed};

use crate::bot::{
    self, describe_exit, BotProcess, BotSpec, ExitKind, Limits, SendError, SpawnError, Wait,
};
use crate::game::{Game, Outcome, ScoreEnd};
use crate::protocol::{escape, parse_answer, Answer};
use crate::rng::Rng;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// How long the bot that just answered may stay unfrozen while the next bot thinks. A freeze
/// (SIGSTOP, then SIGCONT) wakes a sleeping bot twice and costs two context switches; the turns
/// of fast bots end sooner than this, and then no signal is sent at all. Longer than a kernel
/// tick (4 ms at 250 Hz): a shorter wake-up timer is the CPU's next timer event, and arming and
/// cancelling it every turn cost as much as the freeze it saves (measured with `arbiter bench`).
pub const FREEZE_AFTER: Duration = Duration::from_millis(5);

/// How long a bot whose input pipe is closed is given to show its exit, which names its
/// forfeit (see the `SendError::Closed` case of a turn).
const CLOSED_EXIT_WAIT: Duration = Duration::from_secs(1);

/// CPU time a bot may use between its answer and its next turn (finishing its write, going back
/// to its read) before it counts as thinking on the opponent's time. A bot seen doing that is
/// frozen at once after each of its later answers.
pub const IDLE_CPU_SLACK: Duration = Duration::from_micros(200);

/// Plays one game of `choice` (seed `seed`) between `bots`: an external referee's game, or a
/// built-in game from the position `start` makes (its opening plies played), so that every
/// caller plays both kinds with one call.
pub fn play_choice<E: std::fmt::Display>(
    choice: &crate::game::GameChoice,
    start: impl FnOnce() -> Result<(Box<dyn Game>, Vec<String>), E>,
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
) -> Result<GameResult, (Vec<String>, String)> {
    if let Some(referee) = &choice.external {
        return external::play(referee, bots, cfg, seed).map_err(|e| (Vec::new(), e.to_string()));
    }
    let (position, moves) = start().map_err(|e| (Vec::new(), e.to_string()))?;
    play(position, &moves, bots, cfg, seed).map_err(|e| (moves, e.to_string()))
}

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
    /// whole process tree) and the referee waited for a CPU: the time the bot could have run.
    /// On an idle machine it reads as the wall clock; on a busy one a starved bot is not
    /// charged for the starving. A turn still ends at [`FAIR_WALL_FACTOR`] times its limit of
    /// wall time.
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
    /// Keep every turn's input and answer (for replay files).
    pub record_turns: bool,
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
        }
    }
}

/// Why a game could not be played at all.
#[derive(Debug, thiserror::Error)]
pub enum RefereeError {
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    #[error("game '{game}' seats {seats} bots, but {given} were given")]
    SeatCount {
        game: &'static str,
        seats: usize,
        given: usize,
    },
}

/// Plays `game` (already advanced by the `opening` plies) between `bots`, seat `i` played by
/// `bots[i]`. `seed` drives the `random` answer.
pub fn play(
    game: Box<dyn Game>,
    opening: &[String],
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
) -> Result<GameResult, RefereeError> {
    check_seats(game.as_ref(), bots.len())?;
    let started = Instant::now();
    let mut procs = spawn_bots(bots, cfg, seed, None)?;
    let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
    Ok(play_seats(
        game, opening, &names, &mut procs, cfg, seed, started,
    ))
}

/// A game of `game`'s seats for `given` bots, or why not.
fn check_seats(game: &dyn Game, given: usize) -> Result<(), RefereeError> {
    match game.seats() == given {
        true => Ok(()),
        false => Err(RefereeError::SeatCount {
            game: game.name(),
            seats: game.seats(),
            given,
        }),
    }
}

/// Starts the bots of a game ahead of it, held (see [`BotProcess::spawn_held`]): on another
/// thread while the game before is played, so that the game's thread finds them ready. Each
/// is pinned to `cpu` (if any) when let go. `None` where bots cannot be held.
pub fn start_held(
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
    cpu: Option<usize>,
) -> Option<Result<Vec<BotProcess>, RefereeError>> {
    BotProcess::can_hold(&cfg.limits).then(|| spawn_bots(bots, cfg, seed, Some(cpu)))
}

/// [`play`] with the bots [`start_held`] started (for the same `bots`, `cfg` and `seed`): lets
/// them go together and plays.
pub fn play_held(
    game: Box<dyn Game>,
    opening: &[String],
    bots: &[BotSpec],
    mut procs: Vec<BotProcess>,
    cfg: &RefereeConfig,
    seed: u64,
) -> Result<GameResult, RefereeError> {
    check_seats(game.as_ref(), bots.len())?;
    check_seats(game.as_ref(), procs.len())?;
    let started = Instant::now();
    for p in procs.iter_mut() {
        p.release();
    }
    let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
    Ok(play_seats(
        game, opening, &names, &mut procs, cfg, seed, started,
    ))
}

/// Starts every bot of a game (all or none: a failure ends those already started). In a
/// sandbox each bot's private files are hidden from the others. Each bot gets the game's seed
/// as `ARBITER_SEED` (a decimal u64), so that a bot that draws at random can play the same game
/// again from the same seed.
fn spawn_bots(
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
    held: Option<Option<usize>>,
) -> Result<Vec<BotProcess>, RefereeError> {
    let mut limits = cfg.limits.clone();
    limits
        .env
        .push(("ARBITER_SEED".to_string(), seed.to_string()));
    let mut procs: Vec<BotProcess> = Vec::with_capacity(bots.len());
    for (seat, spec) in bots.iter().enumerate() {
        let others: Vec<&BotSpec> = bots
            .iter()
            .enumerate()
            .filter(|(s, _)| *s != seat)
            .map(|(_, b)| b)
            .collect();
        let started = match held {
            Some(cpu) => BotProcess::spawn_held(spec, &limits, &others, cpu),
            None => BotProcess::spawn(spec, &limits, &others),
        };
        match started {
            Ok(p) => procs.push(p),
            Err(e) => {
                bot::shutdown_all(&mut procs, cfg.kill_grace);
                return Err(e.into());
            }
        }
    }
    Ok(procs)
}

/// Plays `game` between started `seats` (named `names`) to its end and ends them: the turn
/// loop behind [`play`], for any kind of [`Seat`].
pub fn play_seats<S: Seat>(
    mut game: Box<dyn Game>,
    opening: &[String],
    names: &[String],
    procs: &mut [S],
    cfg: &RefereeConfig,
    seed: u64,
    started: Instant,
) -> GameResult {
    let seats = procs.len();
    // Bots start together, as on CodinGame, and may be frozen from their first answer on: a
    // freeze during start-up can catch a wrapper (a sandbox, an interpreter shim) in the middle
    // of setting up, which then never answers.
    let mut state = Turns::new(seats, seed, opening.len() as u32);
    let end = state.run(game.as_mut(), procs, cfg);
    S::shutdown_all(procs, cfg.kill_grace);

    let mut offender_exit = None;
    let (mut ranks, reason, detail, offender, score_end) = match end {
        End::Outcome(outcome, reason) => {
            let how = if reason == Reason::TurnLimit {
                ScoreEnd::TurnLimit
            } else {
                ScoreEnd::Rules
            };
            (outcome.ranks, reason, String::new(), None, how)
        }
        End::Forfeit(seat, reason, detail, exit) => {
            let ranks = game.outcome_of_forfeit(seat).ranks;
            offender_exit = exit;
            (ranks, reason, detail, Some(seat), ScoreEnd::Forfeit(seat))
        }
    };
    if !state.forfeits.is_empty() {
        ranks = rank_with_eliminations(&ranks, &state.forfeits, offender);
    }
    let game_scores = game.scores();
    let mut scores = game.record_scores(score_end);
    for f in &state.forfeits {
        scores[f.seat] = -1;
    }
    // In a game of three or more seats the forfeit that ends it scores -1 like every other one
    // (two-seat games score a forfeit as their rules say: Impasse -1, draughts 0 against 2).
    if let (Some(seat), true) = (offender, seats > 2) {
        scores[seat] = -1;
    }
    let winner = Outcome {
        ranks: ranks.clone(),
    }
    .sole_winner();
    let mut forfeits = state.forfeits;
    if let Some(seat) = offender {
        forfeits.push(Forfeit {
            seat,
            reason,
            detail: detail.clone(),
            turn: state.turn + 1,
            exit: offender_exit,
        });
    }
    GameResult {
        game: game.name().to_string(),
        seed,
        bots: names.to_vec(),
        opening: opening.to_vec(),
        winner,
        ranks,
        reason,
        detail,
        offender,
        forfeits,
        turns: state.turn,
        scores,
        game_scores,
        stats: state.stats,
        moves: state.moves,
        log: state.log,
        stderr_tails: procs.iter().map(Seat::stderr_tail).collect(),
        stderr_bytes: procs.iter().map(Seat::stderr_bytes).collect(),
        duration: started.elapsed(),
    }
}

/// A turn as messages name it: the bot's own turn, and the game's turn where they differ.
/// Formatted only when a message is written, never on a turn that goes well.
#[derive(Clone, Copy)]
struct TurnName {
    own: u32,
    game: u32,
}

impl std::fmt::Display for TurnName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.own == self.game {
            write!(f, "turn {}", self.own)
        } else {
            write!(f, "its turn {} (game turn {})", self.own, self.game)
        }
    }
}

/// What [`Turns::ask`] read from a seat in time.
struct Answered {
    lines: Vec<Vec<u8>>,
    wall: Duration,
    cpu: Duration,
    /// Waiting for a CPU the fair clock did not charge.
    excused: Duration,
    late: bool,
    extra_lines: usize,
    which: TurnName,
}

enum End {
    Outcome(Outcome, Reason),
    /// The seat, the verdict, what it did, and how its process ended if it did.
    Forfeit(usize, Reason, String, Option<ExitKind>),
}

/// The state of the turn loop that is not the game's.
struct Turns {
    rng: Rng,
    turn: u32,
    /// Each bot's CPU clock when its last answer came (after its freeze, for an eager one).
    cpu_seen: Vec<Option<Duration>>,
    /// Bots seen using CPU while idle: frozen as soon as they answer, not [`FREEZE_AFTER`] later.
    eager: Vec<bool>,
    first: Vec<bool>,
    /// Seats taken out of a game of three or more after a forfeit, in order.
    forfeits: Vec<Forfeit>,
    /// Seats whose process is gone (eliminated): never written to, frozen or waited on.
    out: Vec<bool>,
    stats: Vec<SeatStats>,
    moves: Vec<String>,
    log: Vec<TurnRecord>,
    input: String,
    /// The fair clock's readings of the turn in play.
    excuse: Excuse,
    /// Bytes each seat had written to stderr when its last turn was recorded.
    err_mark: Vec<u64>,
}

impl Turns {
    fn new(seats: usize, seed: u64, turn: u32) -> Turns {
        Turns {
            rng: Rng::new(Rng::derive(seed, 0x7261_6e64)),
            turn,
            cpu_seen: vec![None; seats],
            eager: vec![false; seats],
            first: vec![true; seats],
            forfeits: Vec::new(),
            out: vec![false; seats],
            stats: vec![SeatStats::default(); seats],
            moves: Vec::new(),
            log: Vec::new(),
            input: String::with_capacity(1024),
            excuse: Excuse::default(),
            err_mark: vec![0; seats],
        }
    }

    fn run<S: Seat>(&mut self, game: &mut dyn Game, procs: &mut [S], cfg: &RefereeConfig) -> End {
        loop {
            if let Some(outcome) = game.outcome() {
                let reason = game.draw_rule().map_or(Reason::Win, Reason::Draw);
                return End::Outcome(outcome, reason);
            }
            if self.turn >= cfg.max_turns {
                return End::Outcome(game.outcome_at_turn_limit(), Reason::TurnLimit);
            }
            match self.one_turn(game, procs, cfg) {
                Ok(()) => {}
                // In a game of three or more the rules may play on without the seat.
                Err(End::Forfeit(seat, reason, detail, exit)) if game.eliminate(seat) => {
                    procs[seat].shutdown(cfg.kill_grace);
                    self.out[seat] = true;
                    self.forfeits.push(Forfeit {
                        seat,
                        reason,
                        detail,
                        turn: self.turn + 1,
                        exit,
                    });
                }
                Err(end) => return end,
            }
        }
    }

    /// Whether `seat` is frozen the moment its answer is read.
    fn freezes_at_answer(&self, seat: usize, cfg: &RefereeConfig) -> bool {
        cfg.freeze_idle && (self.eager[seat] || cfg.freeze_after.is_zero())
    }

    fn one_turn<S: Seat>(
        &mut self,
        game: &mut dyn Game,
        procs: &mut [S],
        cfg: &RefereeConfig,
    ) -> Result<(), End> {
        let seat = game.to_move();
        self.input.clear();
        game.write_turn_input(self.first[seat], &mut self.input);
        let input = std::mem::take(&mut self.input);
        let asked = self.ask(procs, seat, input.as_bytes(), 1, cfg);
        self.input = input;
        let Answered {
            mut lines,
            wall,
            cpu,
            excused,
            late,
            extra_lines,
            which,
        } = asked?;
        let line = lines.pop().unwrap_or_default();
        let turn_no = which.game;
        let forfeit = |reason, detail: String| End::Forfeit(seat, reason, detail, None);

        let moves = game.legal_moves();
        let (index, comment) = match parse_answer(&line) {
            Err(crate::protocol::Malformed::TooLong(n)) => {
                return Err(forfeit(
                    Reason::OutputTooLong,
                    format!(
                        "answered {which} with a line of {n} bytes (at most {} allowed): \"{}\"",
                        crate::protocol::MAX_LINE_BYTES,
                        escape(&line, 100)
                    ),
                ));
            }
            Err(malformed) => {
                return Err(forfeit(
                    Reason::InvalidMove,
                    format!("{which}: {malformed}"),
                ));
            }
            Ok(Answer::Random { comment }) => (self.rng.below(moves.len()), comment),
            Ok(Answer::Move { text, comment }) => match game.index_of_move(text) {
                Some(i) => (i, comment),
                None if text == "resign" => {
                    return Err(forfeit(Reason::Resigned, format!("resigned on {which}")))
                }
                None => {
                    return Err(forfeit(
                        Reason::InvalidMove,
                        format!(
                            "{which}: \"{}\" is not one of the {} offered moves{}",
                            escape(text.as_bytes(), 100),
                            moves.len(),
                            crate::protocol::debug_hint(&line)
                                .map(|h| format!(" ({h})"))
                                .unwrap_or_default()
                        ),
                    ))
                }
            },
        };
        let played = moves[index].clone();
        if cfg.record_turns {
            let stderr = procs[seat].stderr_since(self.err_mark[seat], TURN_STDERR_BYTES);
            self.err_mark[seat] = procs[seat].stderr_bytes();
            self.log.push(TurnRecord {
                turn: turn_no,
                seat,
                input: self.input.clone(),
                answer: String::from_utf8_lossy(&line).into_owned(),
                comment: comment.to_string(),
                played: played.clone(),
                time_us: wall.as_micros() as u64,
                cpu_us: cpu.as_micros() as u64,
                waited_us: excused.as_micros() as u64,
                late,
                extra_lines,
                stderr,
            });
        }
        game.play(index);
        self.turn += 1;
        self.moves.push(played);
        Ok(())
    }

    /// Sends `input` to `seat` and reads `lines` answer lines on its clock: the clock starts when
    /// the input is written and stops at the last line. Every way a bot can fail to answer in
    /// time (a full pipe, an exit, a closed stdout, an overlong line, a timeout, one late answer
    /// too many) is the seat's forfeit. Used by the built-in games (one line a turn) and by
    /// external referees (any count the referee asks for).
    fn ask<S: Seat>(
        &mut self,
        procs: &mut [S],
        seat: usize,
        input: &[u8],
        lines: usize,
        cfg: &RefereeConfig,
    ) -> Result<Answered, End> {
        let first = std::mem::replace(&mut self.first[seat], false);
        let limit = if first {
            cfg.time.first_turn
        } else {
            cfg.time.turn
        };
        let bot = &mut procs[seat];
        // Lines the bot wrote since its last answer are counted for the turn's record. Without
        // a record nothing needs them at once: the wait below reads them first all the same
        // (they are this turn's answer, as they would be after a drain), so the read that
        // nearly always finds the pipe empty is saved.
        let extra_lines = if cfg.record_turns {
            bot.drain_stdout();
            bot.out().complete_lines()
        } else {
            0
        };
        let forfeit = |reason, detail: String| End::Forfeit(seat, reason, detail, None);
        let ended = |reason, detail: String, exit: Option<ExitStatus>| {
            End::Forfeit(seat, reason, detail, exit.and_then(ExitKind::of))
        };
        // A bot frozen since its answer has the same CPU clock: one system call saved a turn.
        // Any other bot's clock is read, and one that used CPU while idle becomes eager.
        let frozen_since_answer = self.freezes_at_answer(seat, cfg) && bot.is_frozen();
        let cpu_before = match self.cpu_seen[seat] {
            Some(seen) if frozen_since_answer => Some(seen),
            seen => {
                let now = bot.cpu_time();
                if let (Some(now), Some(seen), true) = (now, seen, cfg.freeze_idle) {
                    if now.saturating_sub(seen) > IDLE_CPU_SLACK {
                        self.eager[seat] = true;
                    }
                }
                now
            }
        };
        // Idle bots that answered before and still run are frozen `freeze_after` into this turn.
        let idle_running = cfg.freeze_idle
            && procs
                .iter()
                .enumerate()
                .any(|(i, p)| i != seat && !self.first[i] && !self.out[i] && !p.is_frozen());
        let bot = &mut procs[seat];
        let fair = cfg.time.clock == Clock::Fair;
        // A running bot's clock starts before the write: writing wakes the bot, which may then run
        // before this thread does, and a clock started after the write would miss that time. A
        // frozen bot cannot run before it is thawed, so its clock starts once the thaw returns:
        // the freezer's write can wait on the kernel's cgroup locks (over 100 ms while other
        // programs create and remove cgroups fast), time that is neither the bot's nor a wait
        // for a CPU, and must not be charged to it.
        let was_frozen = bot.is_frozen();
        if fair && !was_frozen {
            self.excuse.start(bot);
        }
        let mut start = Instant::now();
        match bot.send(input, Instant::now() + limit + cfg.time.grace) {
            Ok(()) => {}
            Err(SendError::Full) => {
                return Err(forfeit(
                    Reason::Timeout,
                    format!(
                        "did not read its input (the pipe stayed full for {})",
                        ms(limit + cfg.time.grace)
                    ),
                ))
            }
            Err(SendError::Closed) => {
                // Its input closed as it died, maybe (a stop of the whole job kills every
                // process): its end names how, and a signal a stop sends holds the game back
                // until the stop is known. An isolated bot's end shows once its init has
                // passed it on. The game is lost either way; the wait only names how.
                let status = bot.exit_status_within(CLOSED_EXIT_WAIT);
                let how = status
                    .map(describe_exit)
                    .unwrap_or_else(|| "closed its standard input".into());
                let (reason, detail) =
                    exit_verdict(bot, format!("{how} before turn {}", self.turn + 1));
                return Err(ended(reason, detail, status));
            }
        }
        if was_frozen {
            bot.thaw();
            if fair {
                self.excuse.start(bot);
            }
            start = Instant::now();
        }
        let freeze_at = idle_running.then(|| start + cfg.freeze_after);
        let allowed = Allowed {
            start,
            allowed: limit + cfg.time.grace,
            clock: cfg.time.clock,
            cpu_before,
            freeze_at,
            excuse: fair.then_some(&mut self.excuse),
        };
        let mut got = Vec::with_capacity(lines);
        let mut waited = wait_answer(procs, seat, allowed, &self.first, &self.out);
        while let Wait::Line(line, at) = waited {
            got.push(line);
            if got.len() >= lines {
                waited = Wait::Line(Vec::new(), at);
                break;
            }
            // The same clock goes on for the next line; the idle seats are frozen by now.
            let more = Allowed {
                start,
                allowed: limit + cfg.time.grace,
                clock: cfg.time.clock,
                cpu_before,
                freeze_at: None,
                excuse: fair.then_some(&mut self.excuse),
            };
            waited = wait_answer(procs, seat, more, &self.first, &self.out);
        }
        // An answer within `QUICK_ANSWER` (and the limit) is in time whatever the waiting:
        // its waiting is not read (half the fair clock's cost of a fast turn) and counts as 0.
        let took = match &waited {
            Wait::Line(_, at) => at.saturating_duration_since(start),
            _ => start.elapsed(),
        };
        let quick = matches!(waited, Wait::Line(..)) && took < QUICK_ANSWER.min(limit);
        let excused = if fair && !quick {
            self.excuse.waited(&procs[seat])
        } else {
            Duration::ZERO
        };
        if self.freezes_at_answer(seat, cfg) {
            procs[seat].freeze();
        }
        let cpu_after = procs[seat].cpu_time();
        self.cpu_seen[seat] = cpu_after;
        let cpu = cpu_after
            .zip(cpu_before)
            .map_or(Duration::ZERO, |(after, before)| {
                after.saturating_sub(before)
            });
        let turn_no = self.turn + 1;
        // Messages name the bot's own turn, and the game's turn when openings or other seats
        // make them differ.
        let which = TurnName {
            own: self.stats[seat].turns + 1,
            game: turn_no,
        };
        let at = match waited {
            Wait::Line(_, at) => at,
            Wait::Exited(status) => {
                let how = format!(
                    "{} before answering {which} (after {})",
                    describe_exit(status),
                    ms(start.elapsed())
                );
                let (reason, detail) = exit_verdict(&mut procs[seat], how);
                return Err(ended(reason, detail, Some(status)));
            }
            Wait::ClosedStdout => {
                let how = format!("closed its standard output before answering {which} (still running; it was killed)");
                let (reason, detail) = exit_verdict(&mut procs[seat], how);
                return Err(forfeit(reason, detail));
            }
            Wait::TooLong => {
                return Err(forfeit(
                    Reason::OutputTooLong,
                    format!(
                        "wrote more than {} bytes without a newline on {which}: \"{}\"",
                        crate::protocol::MAX_LINE_BYTES,
                        escape(procs[seat].out().pending(), 100)
                    ),
                ))
            }
            Wait::Timeout => {
                let silent = procs[seat].out().received() == 0;
                let detail = timeout_detail(
                    which,
                    &cfg.time,
                    limit,
                    Spent {
                        wall: start.elapsed(),
                        cpu,
                        excused,
                    },
                    silent,
                );
                return Err(forfeit(Reason::Timeout, detail));
            }
        };
        let wall = at.saturating_duration_since(start);
        let stats = &mut self.stats[seat];
        stats.add(wall, cpu);
        stats.add_waiting(excused, limit);
        let elapsed = match cfg.time.clock {
            Clock::Fair => charged(wall, excused, cpu),
            Clock::Wall => wall,
            Clock::Cpu => cpu,
        };
        if let Some(detail) = fair
            .then(|| past_grace(which, &cfg.time, limit, elapsed, wall, excused))
            .flatten()
        {
            return Err(forfeit(Reason::Timeout, detail));
        }
        let late = elapsed > limit;
        if late {
            stats.strikes += 1;
            if stats.strikes >= cfg.time.strikes {
                return Err(forfeit(
                    Reason::Timeout,
                    format!(
                        "late answer number {} ({which} took {}, limit {})",
                        stats.strikes,
                        ms(elapsed),
                        ms(limit)
                    ),
                ));
            }
        }
        Ok(Answered {
            lines: got,
            wall,
            cpu,
            excused,
            late,
            extra_lines,
            which,
        })
    }
}

/// A duration for messages: "100 ms", "12.3 ms".
pub fn ms(d: Duration) -> String {
    let v = d.as_secs_f64() * 1000.0;
    if v.fract() == 0.0 {
        format!("{v:.0} ms")
    } else {
        format!("{v:.1} ms")
    }
}
