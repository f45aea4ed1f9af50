//! A forfeit as facts, and the one place its sentence is written. The turn loop decides what a
//! bot did wrong and keeps the figures ([`Verdict`]: the clock's readings, the offending answer,
//! how the process ended); the reason ([`Verdict::reason`]), the exit kind
//! ([`Verdict::exit`]) and the text users read (`Display`) are all taken from those facts when
//! the game's result is assembled, so that the text cannot say something the facts do not.

use super::clock::{charged, Spent, FAIR_WALL_FACTOR, NOTABLE};
use super::{ms, Clock, Reason};
use crate::bot::{describe_exit, ExitKind};
use crate::protocol::{escape, Malformed, MAX_LINE_BYTES};
use std::fmt;
use std::process::ExitStatus;
use std::time::Duration;

/// A turn as messages name it: the bot's own turn, and the game's turn where they differ.
/// Formatted only when a message is written, never on a turn that goes well.
#[derive(Clone, Copy, Debug)]
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

/// Bytes of a bot's output a verdict shows; one more is kept, so that the text shows the cut.
pub(super) const SHOWN: usize = 100;

/// What a bot did to lose a game (or, in a game of three or more, its seat).
#[derive(Debug)]
pub(super) enum Verdict {
    /// Answered with a line longer than an answer may be (`line`: its first [`SHOWN`] + 1
    /// bytes).
    LongAnswer {
        which: TurnName,
        bytes: usize,
        line: Vec<u8>,
    },
    /// Answered with something that is not a candidate move.
    Malformed { which: TurnName, why: Malformed },
    /// Answered `resign`.
    Resigned { which: TurnName },
    /// Answered a move that was not offered; `hint` says what the answer looks like.
    NotOffered {
        which: TurnName,
        answer: String,
        offered: usize,
        hint: Option<&'static str>,
    },
    /// Answered an external referee's turn with an empty line.
    EmptyAnswer { which: TurnName },
    /// Its process ended, or closed a pipe, instead of answering; `limit` is a limit the
    /// system saw it hit.
    Ended {
        how: ProcessEnd,
        limit: Option<LimitHit>,
    },
    /// Wrote more than an answer may have without a newline (`pending`: the first [`SHOWN`] +
    /// 1 bytes of it).
    Unterminated { which: TurnName, pending: Vec<u8> },
    /// No answer within the limit and grace.
    NoAnswer {
        which: TurnName,
        clock: Clock,
        limit: Duration,
        grace: Duration,
        /// (Boxed: every turn returns a `Result` that may hold a verdict, kept small.)
        spent: Box<Spent>,
        /// It never wrote a byte to stdout.
        silent: bool,
        /// Of a turn that asks for more than one line: the lines that came, and how many were
        /// asked for.
        lines: Option<(usize, usize)>,
    },
    /// On the fair clock, an answer charged past the limit and grace.
    PastGrace {
        which: TurnName,
        limit: Duration,
        grace: Duration,
        charged: Duration,
        wall: Duration,
        excused: Duration,
        /// Taken by the hypervisor (steal), not charged.
        stolen: Duration,
    },
    /// One late answer too many.
    Late {
        which: TurnName,
        strikes: u32,
        took: Duration,
        limit: Duration,
    },
    /// Its input pipe stayed full for `waited`: it did not read.
    PipeFull { waited: Duration },
}

/// How a bot's process stopped answering.
#[derive(Debug)]
pub(super) enum ProcessEnd {
    /// It ended before answering, `after` into the turn; `note` is what the system tells of a
    /// kill by the seccomp filter.
    Exited {
        status: ExitStatus,
        which: TurnName,
        after: Duration,
        note: Option<String>,
    },
    /// It closed its stdout while running (it was then killed).
    ClosedStdout { which: TurnName },
    /// Its stdin was closed when its turn `turn` was written: it had ended (`status`), or
    /// closed it.
    ClosedStdin {
        status: Option<ExitStatus>,
        turn: u32,
        note: Option<String>,
    },
}

/// A limit the system saw a bot that ended hit.
#[derive(Debug, Clone, Copy)]
pub(super) enum LimitHit {
    /// Its memory cgroup's limit, in bytes.
    Memory(u64),
    /// Its process cap.
    Processes(u64),
}

impl Verdict {
    pub(super) fn reason(&self) -> Reason {
        match self {
            Verdict::LongAnswer { .. } | Verdict::Unterminated { .. } => Reason::OutputTooLong,
            Verdict::Malformed { .. }
            | Verdict::NotOffered { .. }
            | Verdict::EmptyAnswer { .. } => Reason::InvalidMove,
            Verdict::Resigned { .. } => Reason::Resigned,
            Verdict::Ended { limit, .. } => match limit {
                Some(LimitHit::Memory(_)) => Reason::MemoryLimit,
                Some(LimitHit::Processes(_)) => Reason::ProcessLimit,
                None => Reason::Crash,
            },
            Verdict::NoAnswer { .. }
            | Verdict::PastGrace { .. }
            | Verdict::Late { .. }
            | Verdict::PipeFull { .. } => Reason::Timeout,
        }
    }

    /// How its process ended, when it ended by itself or by a signal.
    pub(super) fn exit(&self) -> Option<ExitKind> {
        match self {
            Verdict::Ended {
                how: ProcessEnd::Exited { status, .. },
                ..
            }
            | Verdict::Ended {
                how:
                    ProcessEnd::ClosedStdin {
                        status: Some(status),
                        ..
                    },
                ..
            } => ExitKind::of(*status),
            _ => None,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::LongAnswer { which, bytes, line } => write!(
                f,
                "answered {which} with a line of {bytes} bytes (at most {MAX_LINE_BYTES} allowed): \"{}\"",
                escape(line, SHOWN)
            ),
            Verdict::Malformed { which, why } => write!(f, "{which}: {why}"),
            Verdict::Resigned { which } => write!(f, "resigned on {which}"),
            Verdict::NotOffered {
                which,
                answer,
                offered,
                hint,
            } => {
                write!(
                    f,
                    "{which}: \"{}\" is not one of the {offered} offered moves",
                    escape(answer.as_bytes(), SHOWN)
                )?;
                match hint {
                    Some(h) => write!(f, " ({h})"),
                    None => Ok(()),
                }
            }
            Verdict::EmptyAnswer { which } => write!(
                f,
                "answered {which} with an empty line (arbiter does not pass empty answers to an external referee)"
            ),
            Verdict::Ended { how, limit } => match limit {
                Some(LimitHit::Memory(bytes)) => write!(
                    f,
                    "went over its memory limit of {} MiB (with its children, shared memory and files in RAM) and was killed: {how}",
                    bytes / (1024 * 1024)
                ),
                Some(LimitHit::Processes(n)) => write!(
                    f,
                    "ended after trying to run more than {n} processes and threads at once \
                     (its process cap, {}): {how}",
                    crate::options::Opt::MaxProcesses
                ),
                None => write!(f, "{how}"),
            },
            Verdict::Unterminated { which, pending } => write!(
                f,
                "wrote more than {MAX_LINE_BYTES} bytes without a newline on {which}: \"{}\"",
                escape(pending, SHOWN)
            ),
            Verdict::NoAnswer {
                which,
                clock,
                limit,
                grace,
                spent,
                silent,
                lines,
            } => no_answer(f, *which, *clock, *limit, *grace, spent, *silent, *lines),
            Verdict::PastGrace {
                which,
                limit,
                grace,
                charged,
                wall,
                excused,
                stolen,
            } => write!(
                f,
                "answered {which} after {} of its own time, past the limit of {} + {} grace ({} of wall time, of which {} waiting for a CPU{}, not charged)",
                ms(*charged),
                ms(*limit),
                ms(*grace),
                ms(*wall),
                ms(*excused),
                match *stolen > NOTABLE {
                    false => String::new(),
                    true => format!(" and {} taken by the hypervisor (steal)", ms(*stolen)),
                }
            ),
            Verdict::Late {
                which,
                strikes,
                took,
                limit,
            } => write!(
                f,
                "late answer number {strikes} ({which} took {}, limit {})",
                ms(*took),
                ms(*limit)
            ),
            Verdict::PipeFull { waited } => write!(
                f,
                "did not read its input (the pipe stayed full for {})",
                ms(*waited)
            ),
        }
    }
}

impl fmt::Display for ProcessEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let note =
            |note: &Option<String>| note.as_ref().map_or(String::new(), |n| format!(": {n}"));
        match self {
            ProcessEnd::Exited {
                status,
                which,
                after,
                note: n,
            } => write!(
                f,
                "{} before answering {which} (after {}){}",
                describe_exit(*status),
                ms(*after),
                note(n)
            ),
            ProcessEnd::ClosedStdout { which } => write!(
                f,
                "closed its standard output before answering {which} (still running; it was killed)"
            ),
            ProcessEnd::ClosedStdin {
                status,
                turn,
                note: n,
            } => {
                let how = status.map_or_else(|| "closed its standard input".into(), describe_exit);
                write!(f, "{how} before turn {turn}{}", note(n))
            }
        }
    }
}

/// What a bot that did not answer in time did meanwhile: how long it ran and waited, and when it
/// wrote nothing at all, what that suggests.
#[allow(clippy::too_many_arguments)]
fn no_answer(
    f: &mut fmt::Formatter<'_>,
    which: TurnName,
    clock: Clock,
    limit: Duration,
    grace: Duration,
    spent: &Spent,
    silent: bool,
    lines: Option<(usize, usize)>,
) -> fmt::Result {
    let measure = match clock {
        Clock::Fair => format!(
            " (wall time less waiting for a CPU and steal, at most {FAIR_WALL_FACTOR} times that \
             in wall time)"
        ),
        Clock::Wall => String::new(),
        Clock::Cpu => " of CPU time (or ten times that in wall time)".into(),
    };
    let waited = match clock {
        Clock::Fair => {
            // The rest of the wall time: neither the bot's CPU time nor waiting for a CPU nor
            // steal seen.
            let neither = spent
                .wall
                .saturating_sub(spent.excused)
                .saturating_sub(spent.stolen)
                .saturating_sub(spent.cpu);
            let stolen = match spent.stolen > NOTABLE {
                false => String::new(),
                true => format!(
                    ", {} taken by the hypervisor (steal, not charged)",
                    ms(spent.stolen)
                ),
            };
            let rest = match neither > NOTABLE {
                true => format!(
                    "{stolen}, and {} neither (charged: blocked or asleep, reading from disk or \
                     waiting for memory, or on a virtual machine the hypervisor running another \
                     machine on its CPU)",
                    ms(neither)
                ),
                false if !stolen.is_empty() => format!(" and{}", &stolen[1..]),
                false => String::new(),
            };
            let busy = spent.referee_busy.min(spent.excused);
            match busy > NOTABLE {
                true => format!(
                    ", waited {} for a CPU and {} for the referee freezing the idle bots (not \
                     charged){rest}",
                    ms(spent.excused - busy),
                    ms(busy)
                ),
                false => format!(
                    ", waited {} for a CPU (not charged){rest}",
                    ms(spent.excused)
                ),
            }
        }
        _ => String::new(),
    };
    // A turn of several lines: how many came.
    let came = match lines {
        Some((got, asked)) => format!(" ({got} of the {asked} lines it must write came)"),
        None => String::new(),
    };
    write!(
        f,
        "no answer to {which}{came} within {} + {} grace{measure}: in {} it used {} of CPU \
         time{waited}",
        ms(limit),
        ms(grace),
        ms(spent.wall),
        ms(spent.cpu)
    )?;
    if silent {
        f.write_str("; it never wrote a byte to stdout")?;
        // Little CPU over the charged time: it was blocked, not computing.
        let charged_time = charged(spent.wall, spent.excused, spent.cpu, spent.stolen);
        if spent.cpu * 2 < charged_time {
            f.write_str(
                " and was mostly not running (blocked: waiting for more input than it was sent, sleeping, or holding its answer in an unflushed buffer)",
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    /// The sentences are those users have read (and tests in tests/ grep) since before the
    /// facts were kept: each verdict's reason, exit kind and text come from one value.
    #[test]
    fn each_verdict_says_what_the_bot_did_in_the_words_users_know() {
        let ms = Duration::from_millis;
        let which = TurnName { own: 3, game: 6 };
        let first = TurnName { own: 1, game: 1 };
        let mut cases: Vec<(Verdict, Reason, &str)> = vec![
            (
                Verdict::NoAnswer {
                    which,
                    clock: Clock::Fair,
                    limit: ms(100),
                    grace: ms(50),
                    spent: Box::new(Spent {
                        wall: ms(300),
                        cpu: ms(1),
                        excused: ms(120),
                        referee_busy: ms(0),
                        stolen: ms(0),
                    }),
                    silent: true,
                    lines: None,
                },
                Reason::Timeout,
                "no answer to its turn 3 (game turn 6) within 100 ms + 50 ms grace (wall time less \
                 waiting for a CPU and steal, at most 50 times that in wall time): in 300 ms it used 1 ms of \
                 CPU time, waited 120 ms for a CPU (not charged), and 179 ms neither (charged: \
                 blocked or asleep, reading from disk or waiting for memory, or on a virtual \
                 machine the hypervisor running another machine on its CPU); it never wrote a \
                 byte to stdout and was mostly not running (blocked: waiting for more input than \
                 it was sent, sleeping, or holding its answer in an unflushed buffer)",
            ),
            (
                Verdict::NoAnswer {
                    which: first,
                    clock: Clock::Cpu,
                    limit: ms(100),
                    grace: ms(0),
                    spent: Box::new(Spent {
                        wall: ms(150),
                        cpu: Duration::from_micros(100_500),
                        excused: ms(0),
                        referee_busy: ms(0),
                        stolen: ms(0),
                    }),
                    silent: false,
                    lines: None,
                },
                Reason::Timeout,
                "no answer to turn 1 within 100 ms + 0 ms grace of CPU time (or ten times that in \
                 wall time): in 150 ms it used 100.5 ms of CPU time",
            ),
            (
                Verdict::PastGrace {
                    which: first,
                    limit: ms(100),
                    grace: ms(50),
                    charged: ms(180),
                    wall: ms(400),
                    excused: ms(220),
                    stolen: ms(0),
                },
                Reason::Timeout,
                "answered turn 1 after 180 ms of its own time, past the limit of 100 ms + 50 ms \
                 grace (400 ms of wall time, of which 220 ms waiting for a CPU, not charged)",
            ),
            (
                Verdict::Late {
                    which,
                    strikes: 3,
                    took: ms(120),
                    limit: ms(100),
                },
                Reason::Timeout,
                "late answer number 3 (its turn 3 (game turn 6) took 120 ms, limit 100 ms)",
            ),
            (
                Verdict::PipeFull { waited: ms(150) },
                Reason::Timeout,
                "did not read its input (the pipe stayed full for 150 ms)",
            ),
            (
                Verdict::LongAnswer {
                    which: first,
                    bytes: 20_000,
                    line: vec![b'x'; SHOWN + 1],
                },
                Reason::OutputTooLong,
                "answered turn 1 with a line of 20000 bytes (at most 10000 allowed): \"xxxxxxxxxx\
                 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\
                 xxxxxxxxxx…\"",
            ),
            (
                Verdict::NotOffered {
                    which: first,
                    answer: "a1\"b2".into(),
                    offered: 7,
                    hint: Some("a hint"),
                },
                Reason::InvalidMove,
                "turn 1: \"a1\\\"b2\" is not one of the 7 offered moves (a hint)",
            ),
            (
                Verdict::Malformed {
                    which: first,
                    why: Malformed::Empty,
                },
                Reason::InvalidMove,
                "turn 1: the answer is an empty line",
            ),
            (
                Verdict::Resigned { which },
                Reason::Resigned,
                "resigned on its turn 3 (game turn 6)",
            ),
            (
                Verdict::Ended {
                    how: ProcessEnd::ClosedStdout { which: first },
                    limit: Some(LimitHit::Memory(64 << 20)),
                },
                Reason::MemoryLimit,
                "went over its memory limit of 64 MiB (with its children, shared memory and files \
                 in RAM) and was killed: closed its standard output before answering turn 1 (still \
                 running; it was killed)",
            ),
            (
                Verdict::Ended {
                    how: ProcessEnd::ClosedStdin {
                        status: None,
                        turn: 4,
                        note: None,
                    },
                    limit: Some(LimitHit::Processes(16)),
                },
                Reason::ProcessLimit,
                // (The library's tests have no command line: an option shows as its key.)
                "ended after trying to run more than 16 processes and threads at once (its process \
                 cap, max_processes): closed its standard input before turn 4",
            ),
        ];
        // The referee's time freezing the idle bots is told apart from waiting for a CPU.
        cases.push((
            Verdict::NoAnswer {
                which,
                clock: Clock::Fair,
                limit: ms(100),
                grace: ms(50),
                spent: Box::new(Spent {
                    wall: ms(400),
                    cpu: ms(10),
                    excused: ms(180),
                    referee_busy: ms(140),
                    stolen: ms(0),
                }),
                silent: false,
                lines: None,
            },
            Reason::Timeout,
            "no answer to its turn 3 (game turn 6) within 100 ms + 50 ms grace (wall time less \
             waiting for a CPU and steal, at most 50 times that in wall time): in 400 ms it used 10 ms of \
             CPU time, waited 40 ms for a CPU and 140 ms for the referee freezing the idle bots \
             (not charged), and 210 ms neither (charged: blocked or asleep, reading from disk or \
             waiting for memory, or on a virtual machine the hypervisor running another machine \
             on its CPU)",
        ));
        // Time the hypervisor took (steal) is told apart, not charged (issue 40 item 4); a turn
        // can still time out past it, or at the wall-time cap.
        let us = Duration::from_micros;
        cases.push((
            Verdict::NoAnswer {
                which,
                clock: Clock::Fair,
                limit: ms(100),
                grace: ms(50),
                spent: Box::new(Spent {
                    wall: ms(300),
                    cpu: us(7_600),
                    excused: us(37_500),
                    referee_busy: ms(0),
                    stolen: ms(100),
                }),
                silent: false,
                lines: None,
            },
            Reason::Timeout,
            "no answer to its turn 3 (game turn 6) within 100 ms + 50 ms grace (wall time less \
             waiting for a CPU and steal, at most 50 times that in wall time): in 300 ms it \
             used 7.6 ms of CPU time, waited 37.5 ms for a CPU (not charged), 100 ms taken by \
             the hypervisor (steal, not charged), and 154.9 ms neither (charged: blocked or \
             asleep, reading from disk or waiting for memory, or on a virtual machine the \
             hypervisor running another machine on its CPU)",
        ));
        cases.push((
            Verdict::NoAnswer {
                which,
                clock: Clock::Fair,
                limit: ms(100),
                grace: ms(50),
                spent: Box::new(Spent {
                    wall: ms(7_500),
                    cpu: ms(140),
                    excused: ms(60),
                    referee_busy: ms(0),
                    stolen: ms(7_300),
                }),
                silent: false,
                lines: None,
            },
            Reason::Timeout,
            "no answer to its turn 3 (game turn 6) within 100 ms + 50 ms grace (wall time less \
             waiting for a CPU and steal, at most 50 times that in wall time): in 7500 ms it \
             used 140 ms of CPU time, waited 60 ms for a CPU (not charged) and 7300 ms taken by \
             the hypervisor (steal, not charged)",
        ));
        cases.push((
            Verdict::PastGrace {
                which: first,
                limit: ms(100),
                grace: ms(50),
                charged: ms(160),
                wall: ms(400),
                excused: ms(100),
                stolen: ms(140),
            },
            Reason::Timeout,
            "answered turn 1 after 160 ms of its own time, past the limit of 100 ms + 50 ms \
             grace (400 ms of wall time, of which 100 ms waiting for a CPU and 140 ms taken by \
             the hypervisor (steal), not charged)",
        ));
        for (verdict, reason, text) in cases {
            assert_eq!(verdict.reason(), reason, "{verdict:?}");
            assert_eq!(verdict.to_string(), text);
            assert_eq!(verdict.exit(), None);
        }

        let segv = Verdict::Ended {
            how: ProcessEnd::Exited {
                status: ExitStatus::from_raw(libc::SIGSEGV),
                which: first,
                after: Duration::from_micros(12_100),
                note: None,
            },
            limit: None,
        };
        assert_eq!(segv.reason(), Reason::Crash);
        assert_eq!(segv.exit(), Some(ExitKind::Signal(libc::SIGSEGV)));
        assert_eq!(
            segv.to_string(),
            "killed by signal 11 (SIGSEGV) before answering turn 1 (after 12.1 ms)"
        );
        let sys = Verdict::Ended {
            how: ProcessEnd::ClosedStdin {
                status: Some(ExitStatus::from_raw(3 << 8)),
                turn: 2,
                note: Some("it called ptrace".into()),
            },
            limit: None,
        };
        assert_eq!(sys.exit(), Some(ExitKind::Status(3)));
        assert_eq!(
            sys.to_string(),
            "exited with status 3 before turn 2: it called ptrace"
        );
    }
}
