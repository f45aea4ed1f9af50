//! The turn loop of one game: whose turn it is, the input written, the answer read on the
//! seat's clock, and every way a bot can fail a turn turned into a forfeit. [`Turns::ask`] is
//! also how an external referee's turns are asked (`external/`).

use super::clock::QUICK_ANSWER;
use super::clock::{excused, past_grace, timeout_detail, Excuse, Spent, Waited};
use super::seat::Seat;
use super::wait::{exit_verdict, wait_answer, Allowed};
use super::{
    charged, ms, Clock, Forfeit, Reason, RefereeConfig, SeatStats, TurnRecord, IDLE_CPU_SLACK,
    TURN_STDERR_BYTES,
};
use crate::bot::{describe_exit, ExitKind, SendError, Wait};
use crate::game::{Game, Outcome};
use crate::protocol::{escape, parse_answer, Answer};
use crate::rng::Rng;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// How long a bot whose input pipe is closed is given to show its exit, which names its
/// forfeit (see the `SendError::Closed` case of a turn).
const CLOSED_EXIT_WAIT: Duration = Duration::from_secs(1);

/// A turn as messages name it: the bot's own turn, and the game's turn where they differ.
/// Formatted only when a message is written, never on a turn that goes well.
#[derive(Clone, Copy)]
pub(super) struct TurnName {
    pub(super) own: u32,
    pub(super) game: u32,
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
pub(super) struct Answered {
    pub(super) lines: Vec<Vec<u8>>,
    pub(super) wall: Duration,
    pub(super) cpu: Duration,
    /// Waiting for a CPU the fair clock did not charge.
    pub(super) excused: Duration,
    pub(super) late: bool,
    pub(super) extra_lines: usize,
    pub(super) which: TurnName,
}

pub(super) enum End {
    Outcome(Outcome, Reason),
    /// The seat, the verdict, what it did, and how its process ended if it did.
    Forfeit(usize, Reason, String, Option<ExitKind>),
}

/// The state of the turn loop that is not the game's.
pub(super) struct Turns {
    pub(super) rng: Rng,
    pub(super) turn: u32,
    /// Each bot's CPU clock when its last answer came (after its freeze, for an eager one).
    pub(super) cpu_seen: Vec<Option<Duration>>,
    /// Bots seen using CPU while idle: frozen as soon as they answer, not
    /// [`FREEZE_AFTER`](super::FREEZE_AFTER) later.
    pub(super) eager: Vec<bool>,
    pub(super) first: Vec<bool>,
    /// Seats taken out of a game of three or more after a forfeit, in order.
    pub(super) forfeits: Vec<Forfeit>,
    /// Seats whose process is gone (eliminated): never written to, frozen or waited on.
    pub(super) out: Vec<bool>,
    pub(super) stats: Vec<SeatStats>,
    pub(super) moves: Vec<String>,
    pub(super) log: Vec<TurnRecord>,
    pub(super) input: String,
    /// The fair clock's readings of the turn in play.
    pub(super) excuse: Excuse,
    /// Bytes each seat had written to stderr when its last turn was recorded.
    pub(super) err_mark: Vec<u64>,
}

impl Turns {
    pub(super) fn new(seats: usize, seed: u64, turn: u32) -> Turns {
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

    pub(super) fn run<S: Seat>(
        &mut self,
        game: &mut dyn Game,
        procs: &mut [S],
        cfg: &RefereeConfig,
    ) -> End {
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
                input: match cfg.record_inputs {
                    true => self.input.clone(),
                    false => String::new(),
                },
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
    pub(super) fn ask<S: Seat>(
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
        // A frozen bot cannot read: what its pipe holds is written now, and the rest (an input
        // over the pipe's 64 KiB) once it is thawed and its clock runs, as it reads.
        let sent = match was_frozen {
            true => bot.send_now(input),
            false => bot
                .send(input, start + limit + cfg.time.grace)
                .map(|()| input.len()),
        };
        let mut sent =
            sent.map_err(|e| Self::send_failed(bot, (seat, self.turn), e, limit, cfg))?;
        if was_frozen {
            bot.thaw();
            if fair {
                self.excuse.start(bot);
            }
            start = Instant::now();
            if sent < input.len() {
                bot.send(&input[sent..], start + limit + cfg.time.grace)
                    .map_err(|e| Self::send_failed(bot, (seat, self.turn), e, limit, cfg))?;
                sent = input.len();
            }
        }
        debug_assert_eq!(sent, input.len());
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
        let queued = if fair && !quick {
            self.excuse.waited(&procs[seat])
        } else {
            Waited::default()
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
            })
            .max(queued.ran);
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
                    "{} before answering {which} (after {}){}",
                    describe_exit(status),
                    ms(start.elapsed()),
                    why_killed(&procs[seat], status)
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
                let wall = start.elapsed();
                let detail = timeout_detail(
                    which,
                    &cfg.time,
                    limit,
                    Spent {
                        wall,
                        cpu,
                        excused: excused(wall, queued.waited, cpu),
                        referee_busy: queued.referee_busy,
                    },
                    silent,
                );
                return Err(forfeit(Reason::Timeout, detail));
            }
        };
        let wall = at.saturating_duration_since(start);
        // Only the waiting the charge leaves out is told and recorded as excused.
        let excused = excused(wall, queued.waited, cpu);
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

    /// The verdict on a bot whose turn's input could not be written.
    fn send_failed<S: Seat>(
        bot: &mut S,
        (seat, turn): (usize, u32),
        e: SendError,
        limit: Duration,
        cfg: &RefereeConfig,
    ) -> End {
        match e {
            SendError::Full => End::Forfeit(
                seat,
                Reason::Timeout,
                format!(
                    "did not read its input (the pipe stayed full for {})",
                    ms(limit + cfg.time.grace)
                ),
                None,
            ),
            SendError::Closed => {
                // Its input closed as it died, maybe (a stop of the whole job kills every
                // process): its end names how, and a signal a stop sends holds the game back
                // until the stop is known. An isolated bot's end shows once its init has
                // passed it on. The game is lost either way; the wait only names how.
                let status = bot.exit_status_within(CLOSED_EXIT_WAIT);
                let how = status
                    .map(describe_exit)
                    .unwrap_or_else(|| "closed its standard input".into());
                let why = status.map_or(String::new(), |status| why_killed(bot, status));
                let (reason, detail) =
                    exit_verdict(bot, format!("{how} before turn {}{why}", turn + 1));
                End::Forfeit(seat, reason, detail, status.and_then(ExitKind::of))
            }
        }
    }
}

/// What follows the words of a bot's end: for a kill by the seccomp filter (SIGSYS), which
/// system call it refused, where the system tells. In the sandbox the box passes the kill on as
/// exit status 128 + 31; that status is told as a kill only where the kernel's log shows one.
fn why_killed<S: Seat>(bot: &S, status: ExitStatus) -> String {
    let note = match ExitKind::of(status) {
        Some(ExitKind::Signal(libc::SIGSYS)) => bot.sigsys_note(true),
        Some(ExitKind::Status(code)) if code == 128 + libc::SIGSYS => bot.sigsys_note(false),
        _ => None,
    };
    note.map_or(String::new(), |note| format!(": {note}"))
}
