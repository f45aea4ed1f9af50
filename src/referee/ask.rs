//! Asking one seat for its answer on its clock ([`Turns::ask`]), in three parts kept apart: the
//! clock's policy (the turn's limit, the CPU reading the clock starts from, which idle seats
//! are frozen and when, what the answer is charged), the pipes (the input written, a frozen bot
//! thawed, the answer lines read), and the verdicts (every way a bot fails a turn).

use super::clock::{excused, excused_steal, Spent, Waited, QUICK_ANSWER};
use super::seat::Seat;
use super::turns::{Answered, LoopEnd, Turns};
use super::verdict::TurnName;
use super::verdict::{ProcessEnd, Verdict, SHOWN};
use super::wait::{exit_verdict, wait_answer, Allowed};
use super::{charged, Clock, RefereeConfig, IDLE_CPU_SLACK};
use crate::bot::{ExitKind, SendError, Wait};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

/// How long a bot whose input pipe is closed is given to show its exit, which names its
/// forfeit (see the `SendError::Closed` case of [`Turns::send_failed`]).
const CLOSED_EXIT_WAIT: Duration = Duration::from_secs(1);

/// A turn's clock as it started: when, the limit, and the bot's CPU clock then.
#[derive(Clone, Copy)]
struct Clocked {
    start: Instant,
    limit: Duration,
    cpu_before: Option<Duration>,
}

/// What an answer in time was charged.
struct Charged {
    wall: Duration,
    cpu: Duration,
    /// Waiting for a CPU the fair clock did not charge.
    excused: Duration,
    /// Steal the fair clock did not charge.
    stolen: Duration,
    late: bool,
}

/// The clock's readings when the wait for an answer ended.
struct Reading {
    /// CPU time the bot used in the turn.
    cpu: Duration,
    /// The fair clock's reading of the waiting for a CPU (zero where not read).
    queued: Waited,
}

impl Turns {
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
    ) -> Result<Answered, LoopEnd> {
        let limit = self.limit(seat, cfg);
        let extra_lines = leftover_lines(&mut procs[seat], cfg);
        let cpu_before = self.cpu_before(&procs[seat], seat, cfg);
        let idle_running = self.idle_running(procs, seat, cfg);
        let start = self.send_input(procs, seat, input, limit, cfg)?;
        let clocked = Clocked {
            start,
            limit,
            cpu_before,
        };
        let freeze_at = idle_running.then(|| start + cfg.freeze_after);
        let (got, waited) = self.read_lines(procs, seat, lines, clocked, freeze_at, cfg);
        let reading = self.stop_clock(procs, seat, clocked, &waited, cfg);
        // Messages name the bot's own turn, and the game's turn when openings or other seats
        // make them differ.
        let which = TurnName {
            own: self.stats[seat].turns + 1,
            game: self.game_turn.unwrap_or(self.turn + 1),
        };
        let forfeit = |verdict| LoopEnd::Forfeit(seat, verdict);
        let came = (got.len(), lines);
        let at = match answered_at(
            &mut procs[seat],
            waited,
            which,
            clocked,
            &reading,
            came,
            cfg,
        ) {
            Ok(at) => at,
            Err(verdict) => {
                // The turn it lost counts in its waiting too: a bot that waited for a CPU
                // longer than its limit in the turn it timed out on was starved in it, and
                // the league voids such a game (`league::trust`).
                if let Verdict::NoAnswer { spent, limit, .. } = &verdict {
                    self.stats[seat].add_waiting(spent.excused, *limit);
                }
                return Err(forfeit(verdict));
            }
        };
        let charged = self
            .charge(seat, clocked, at, reading, cfg, which)
            .map_err(forfeit)?;
        Ok(Answered {
            lines: got,
            wall: charged.wall,
            cpu: charged.cpu,
            excused: charged.excused,
            stolen: charged.stolen,
            late: charged.late,
            extra_lines,
            which,
        })
    }

    // The clock's policy.

    /// The limit of `seat`'s turn now (its first turn has its own), counting it as asked.
    fn limit(&mut self, seat: usize, cfg: &RefereeConfig) -> Duration {
        match std::mem::replace(&mut self.first[seat], false) {
            true => cfg.time.first_turn,
            false => cfg.time.turn,
        }
    }

    /// The bot's CPU clock as its turn starts. A bot frozen since its answer has the same CPU
    /// clock: one system call saved a turn. Any other bot's clock is read, and one that used
    /// CPU while idle becomes eager.
    fn cpu_before<S: Seat>(
        &mut self,
        bot: &S,
        seat: usize,
        cfg: &RefereeConfig,
    ) -> Option<Duration> {
        let frozen_since_answer = self.freezes_at_answer(seat, cfg) && bot.is_frozen();
        match self.cpu_seen[seat] {
            Some(seen) if frozen_since_answer => Some(seen),
            seen => {
                let now = bot.cpu_time_start();
                if let (Some(now), Some(seen), true) = (now, seen, cfg.freeze_idle) {
                    if now.saturating_sub(seen) > IDLE_CPU_SLACK {
                        self.eager[seat] = true;
                    }
                }
                now
            }
        }
    }

    /// Whether idle bots that answered before still run: they are frozen `freeze_after` into
    /// this turn.
    fn idle_running<S: Seat>(&self, procs: &[S], seat: usize, cfg: &RefereeConfig) -> bool {
        cfg.freeze_idle
            && procs
                .iter()
                .enumerate()
                .any(|(i, p)| i != seat && !self.first[i] && !self.out[i] && !p.is_frozen())
    }

    /// Ends the turn's clock once the wait ended: the waiting for a CPU read (where the fair
    /// clock needs it), the bot frozen if it is frozen at its answer, its CPU clock read.
    fn stop_clock<S: Seat>(
        &mut self,
        procs: &mut [S],
        seat: usize,
        c: Clocked,
        waited: &Wait,
        cfg: &RefereeConfig,
    ) -> Reading {
        let fair = cfg.time.clock == Clock::Fair;
        // An answer within `QUICK_ANSWER` (and the limit) is in time whatever the waiting:
        // its waiting is not read (half the fair clock's cost of a fast turn) and counts as 0.
        let took = match waited {
            Wait::Line(_, at) => at.saturating_duration_since(c.start),
            _ => c.start.elapsed(),
        };
        let quick = matches!(waited, Wait::Line(..)) && took < QUICK_ANSWER.min(c.limit);
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
            .zip(c.cpu_before)
            .map_or(Duration::ZERO, |(after, before)| {
                after.saturating_sub(before)
            })
            .max(queued.ran);
        Reading { cpu, queued }
    }

    /// What an answer that came at `at` is charged, added to the seat's clock: its wall time,
    /// CPU time, the waiting and steal excused and whether it was late; the verdict where the
    /// charge passed the limit and grace (fair clock) or made one late answer too many.
    fn charge(
        &mut self,
        seat: usize,
        c: Clocked,
        at: Instant,
        reading: Reading,
        cfg: &RefereeConfig,
        which: TurnName,
    ) -> Result<Charged, Verdict> {
        let Reading { cpu, queued } = reading;
        let limit = c.limit;
        let wall = at.saturating_duration_since(c.start);
        // Only the waiting the charge leaves out is told and recorded as excused.
        let excused = excused(wall, queued.waited, cpu);
        let stolen = excused_steal(wall, excused, cpu, queued.stolen);
        let stats = &mut self.stats[seat];
        stats.add(wall, cpu);
        stats.add_waiting(excused, limit);
        let elapsed = match cfg.time.clock {
            Clock::Fair => charged(wall, excused, cpu, stolen),
            Clock::Wall => wall,
            Clock::Cpu => cpu,
        };
        // On the fair clock an answer can be charged past the limit and grace only where the
        // bot's CPU time (a floor of its charge) showed it late after the wait ended.
        if cfg.time.clock == Clock::Fair && elapsed > limit + cfg.time.grace {
            return Err(Verdict::PastGrace {
                which,
                limit,
                grace: cfg.time.grace,
                charged: elapsed,
                wall,
                excused,
                stolen,
            });
        }
        let late = elapsed > limit;
        if late {
            stats.strikes += 1;
            if stats.strikes >= cfg.time.strikes {
                return Err(Verdict::Late {
                    which,
                    strikes: stats.strikes,
                    took: elapsed,
                    limit,
                });
            }
        }
        Ok(Charged {
            wall,
            cpu,
            excused,
            stolen,
            late,
        })
    }

    // The pipes.

    /// Writes `input` to `seat` and starts its clock; returns when the clock started.
    ///
    /// A running bot's clock starts before the write: writing wakes the bot, which may then run
    /// before this thread does, and a clock started after the write would miss that time. A
    /// frozen bot cannot run before it is thawed, so its clock starts once the thaw returns:
    /// the freezer's write can wait on the kernel's cgroup locks (over 100 ms while other
    /// programs create and remove cgroups fast), time that is neither the bot's nor a wait
    /// for a CPU, and must not be charged to it.
    fn send_input<S: Seat>(
        &mut self,
        procs: &mut [S],
        seat: usize,
        input: &[u8],
        limit: Duration,
        cfg: &RefereeConfig,
    ) -> Result<Instant, LoopEnd> {
        let bot = &mut procs[seat];
        let fair = cfg.time.clock == Clock::Fair;
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
        Ok(start)
    }

    /// Reads up to `lines` answer lines from `seat` on the clock that started at `c.start`,
    /// freezing the idle seats at `freeze_at`; returns the lines read and how the wait ended
    /// (with the last line's time when all came).
    fn read_lines<S: Seat>(
        &mut self,
        procs: &mut [S],
        seat: usize,
        lines: usize,
        c: Clocked,
        freeze_at: Option<Instant>,
        cfg: &RefereeConfig,
    ) -> (Vec<Vec<u8>>, Wait) {
        let fair = cfg.time.clock == Clock::Fair;
        let allowed = Allowed {
            start: c.start,
            allowed: c.limit + cfg.time.grace,
            clock: cfg.time.clock,
            cpu_before: c.cpu_before,
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
                start: c.start,
                allowed: c.limit + cfg.time.grace,
                clock: cfg.time.clock,
                cpu_before: c.cpu_before,
                freeze_at: None,
                excuse: fair.then_some(&mut self.excuse),
            };
            waited = wait_answer(procs, seat, more, &self.first, &self.out);
        }
        (got, waited)
    }

    // The verdicts.

    /// The verdict on a bot whose turn's input could not be written.
    fn send_failed<S: Seat>(
        bot: &mut S,
        (seat, turn): (usize, u32),
        e: SendError,
        limit: Duration,
        cfg: &RefereeConfig,
    ) -> LoopEnd {
        match e {
            SendError::Full => LoopEnd::Forfeit(
                seat,
                Verdict::PipeFull {
                    waited: limit + cfg.time.grace,
                },
            ),
            SendError::Closed => {
                // Its input closed as it died, maybe (a stop of the whole job kills every
                // process): its end names how, and a signal a stop sends holds the game back
                // until the stop is known. An isolated bot's end shows once its init has
                // passed it on. The game is lost either way; the wait only names how.
                let status = bot.exit_status_within(CLOSED_EXIT_WAIT);
                let how = ProcessEnd::ClosedStdin {
                    status,
                    turn: turn + 1,
                    note: status.and_then(|status| why_killed(bot, status)),
                };
                LoopEnd::Forfeit(seat, exit_verdict(bot, how))
            }
        }
    }
}

/// Lines the bot wrote since its last answer, counted for the turn's record. Without a record
/// nothing needs them at once: the wait reads them first all the same (they are this turn's
/// answer, as they would be after a drain), so the read that nearly always finds the pipe empty
/// is saved.
fn leftover_lines<S: Seat>(bot: &mut S, cfg: &RefereeConfig) -> usize {
    if cfg.record_turns {
        bot.drain_stdout();
        bot.out().complete_lines()
    } else {
        0
    }
}

/// When the answer's last line came, or the verdict on a seat whose wait ended without it
/// (`waited`: how the wait ended).
/// `came`: the answer lines that came, and how many the turn asks for.
fn answered_at<S: Seat>(
    bot: &mut S,
    waited: Wait,
    which: TurnName,
    c: Clocked,
    reading: &Reading,
    came: (usize, usize),
    cfg: &RefereeConfig,
) -> Result<Instant, Verdict> {
    Err(match waited {
        Wait::Line(_, at) => return Ok(at),
        Wait::Exited(status) => {
            let how = ProcessEnd::Exited {
                status,
                which,
                after: c.start.elapsed(),
                note: why_killed(bot, status),
            };
            exit_verdict(bot, how)
        }
        Wait::ClosedStdout => exit_verdict(bot, ProcessEnd::ClosedStdout { which }),
        Wait::TooLong => {
            let pending = bot.out().pending();
            let pending = pending[..pending.len().min(SHOWN + 1)].to_vec();
            Verdict::Unterminated { which, pending }
        }
        Wait::Timeout => {
            let silent = bot.out().received() == 0;
            let wall = c.start.elapsed();
            let (waited, cpu) = (reading.queued.waited, reading.cpu);
            Verdict::NoAnswer {
                which,
                clock: cfg.time.clock,
                limit: c.limit,
                grace: cfg.time.grace,
                spent: Box::new(Spent {
                    wall,
                    cpu: reading.cpu,
                    excused: excused(wall, waited, cpu),
                    referee_busy: reading.queued.referee_busy,
                    stolen: excused_steal(wall, waited, cpu, reading.queued.stolen),
                }),
                silent,
                lines: (came.1 > 1).then_some(came),
            }
        }
    })
}

/// What follows the words of a bot's end: for a kill by the seccomp filter (SIGSYS), which
/// system call it refused, where the system tells. In the sandbox the box passes the kill on as
/// exit status 128 + 31; that status is told as a kill only where the kernel's log shows one.
fn why_killed<S: Seat>(bot: &S, status: ExitStatus) -> Option<String> {
    match ExitKind::of(status) {
        Some(ExitKind::Signal(libc::SIGSYS)) => bot.sigsys_note(true),
        Some(ExitKind::Status(code)) if code == 128 + libc::SIGSYS => bot.sigsys_note(false),
        _ => None,
    }
}
