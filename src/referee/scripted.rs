//! Scripted seats: the turn loop's clocks, strikes, freezing decisions and verdicts tested
//! through the [`Seat`] seam without processes. A scripted seat answers each turn after a
//! scripted think time; its answer carries the instant it would have arrived (start of the turn
//! plus the think time), so the referee's clock arithmetic is exact and no test sleeps.

use super::seat::Seat;
use super::*;
use crate::bot::{SendError, Wait};
use crate::game;
use crate::protocol::LineBuffer;
use std::cell::Cell;
use std::collections::VecDeque;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Instant;

mod forfeits;

/// What a scripted seat does on one of its turns.
#[derive(Clone, Debug)]
enum Act {
    /// Answers `line` after `think` of wall time and `cpu` of CPU time; afterwards, while idle,
    /// uses `ponder` of CPU (seen at its next turn).
    Answer {
        think: Duration,
        cpu: Duration,
        line: Vec<u8>,
        ponder: Duration,
    },
    /// Exits with `code` after `after`.
    Exit { after: Duration, code: i32 },
    /// Never answers.
    Silent,
}

fn answer(ms: u64, line: &str) -> Act {
    Act::Answer {
        think: Duration::from_millis(ms),
        cpu: Duration::from_millis(ms),
        line: line.as_bytes().to_vec(),
        ponder: Duration::ZERO,
    }
}

#[derive(Debug)]
struct Scripted {
    script: VecDeque<Act>,
    /// After the script: this act forever.
    then: Act,
    out: LineBuffer,
    sent_at: Option<Instant>,
    cpu: Duration,
    /// CPU used while idle, not yet seen by the referee.
    ponder: Duration,
    /// cpu_time() calls since the last answer (the first is the referee's reading at the answer).
    reads: Cell<u32>,
    frozen: bool,
    /// Freezes that happened while this seat had just answered (before any other seat moved).
    freezes: u32,
    exited: Option<ExitStatus>,
    inputs: Vec<String>,
    /// Waiting for a CPU each turn (as if starved), and in all so far.
    starved: Duration,
    waited: Duration,
    /// How long a thaw takes (the freezer's write waiting on the kernel's locks); a thawed seat
    /// starts thinking when the thaw is done.
    thaw_delay: Duration,
    /// How long a freeze takes (the same write, waiting on the same locks).
    freeze_delay: Duration,
    /// A wait for a CPU in each turn after the first, from and until these times into the
    /// turn, that the readings show only once it ends (as the kernel counts a wait when the
    /// task gets its CPU); meanwhile the seat has a runnable task that does not run.
    queued: Option<(Duration, Duration)>,
    /// How far the referee has waited (a wait that times out ends at its deadline, at once:
    /// the scripted seats' time is the referee's deadlines, not the wall clock's).
    seen: Option<Instant>,
    /// Whether this turn's hidden wait is in `waited` already (it ended before the answer).
    queued_counted: bool,
    /// Whether an answer arrives when the referee reads it, as a real bot's does (the referee
    /// cannot tell when a line came into the pipe), rather than at its exact time.
    read_late: bool,
    /// Time the hypervisor takes at the start of each of its turns (as on a busy virtual
    /// machine): the seat neither computes nor waits meanwhile, and a reading `t` into the
    /// turn sees `t` of it, up to the whole.
    stolen: Duration,
    /// How far into this turn the referee has waited (`seen`, this turn only).
    turn_seen: Option<Instant>,
    /// Whether this turn's waiting is still to come: it accrues while the referee waits for the
    /// answer, after the clock started.
    starving: bool,
    /// Whether its CPU time counts all its processes (a cgroup's), so the fair clock's start
    /// readings wait until an answer is slow.
    whole: bool,
    /// Readings of its tasks' waiting so far.
    wait_reads: Cell<u32>,
}

impl Scripted {
    fn new(script: Vec<Act>, then: Act) -> Self {
        Scripted {
            script: script.into(),
            then,
            out: LineBuffer::new(),
            sent_at: None,
            cpu: Duration::ZERO,
            ponder: Duration::ZERO,
            reads: Cell::new(0),
            frozen: false,
            freezes: 0,
            exited: None,
            inputs: Vec::new(),
            starved: Duration::ZERO,
            waited: Duration::ZERO,
            thaw_delay: Duration::ZERO,
            freeze_delay: Duration::ZERO,
            queued: None,
            seen: None,
            queued_counted: false,
            read_late: false,
            starving: false,
            stolen: Duration::ZERO,
            turn_seen: None,
            whole: false,
            wait_reads: Cell::new(0),
        }
    }

    /// This turn's hidden wait, if it has begun: whether it has ended, and how long it is.
    fn queue_now(&self) -> Option<(bool, Duration)> {
        let ((from, until), sent) = (self.queued?, self.sent_at?);
        if self.queued_counted {
            return None;
        }
        let now = self
            .seen
            .map_or(Instant::now(), |seen| seen.max(Instant::now()));
        let into = now.saturating_duration_since(sent);
        (into >= from).then_some((into >= until, until - from))
    }

    fn next_act(&self) -> Act {
        self.script
            .front()
            .cloned()
            .unwrap_or_else(|| self.then.clone())
    }

    fn consume(&mut self) {
        self.script.pop_front();
    }
}

impl Seat for Scripted {
    fn send(&mut self, data: &[u8], _deadline: Instant) -> Result<(), SendError> {
        if self.exited.is_some() {
            return Err(SendError::Closed);
        }
        self.sent_at = Some(Instant::now());
        self.seen = None;
        self.turn_seen = None;
        self.queued_counted = false;
        self.starving = true;
        self.inputs.push(String::from_utf8_lossy(data).into_owned());
        Ok(())
    }
    fn freeze(&mut self) {
        if !self.frozen {
            self.freezes += 1;
            std::thread::sleep(self.freeze_delay);
        }
        self.frozen = true;
    }
    fn is_frozen(&self) -> bool {
        self.frozen
    }
    fn thaw(&mut self) {
        if self.frozen && !self.thaw_delay.is_zero() {
            std::thread::sleep(self.thaw_delay);
            self.sent_at = Some(Instant::now());
        }
        self.frozen = false;
    }
    fn drain_stdout(&mut self) {}
    fn out(&self) -> &LineBuffer {
        &self.out
    }
    fn cpu_time(&self) -> Option<Duration> {
        let reads = self.reads.get();
        self.reads.set(reads + 1);
        // The first reading after an answer is the referee's own, at the answer; pondering
        // happens after it.
        Some(if reads == 0 {
            self.cpu
        } else {
            self.cpu + self.ponder
        })
    }
    fn cpu_is_whole(&self) -> bool {
        self.whole
    }
    fn run_queue_waits(&self, into: &mut Vec<crate::bot::schedstat::TaskWait>) -> bool {
        self.wait_reads.set(self.wait_reads.get() + 1);
        into.clear();
        let ended = match self.queue_now() {
            Some((true, wait)) => wait,
            _ => Duration::ZERO,
        };
        into.push((1, (self.waited + ended).as_nanos() as u64, 0));
        true
    }
    fn stolen_since_start(&self, _steal: &mut crate::bot::steal::Steal) -> Duration {
        let Some(sent) = self.sent_at else {
            return Duration::ZERO;
        };
        let now = self
            .turn_seen
            .map_or(Instant::now(), |seen| seen.max(Instant::now()));
        now.saturating_duration_since(sent).min(self.stolen)
    }
    fn runnable_tasks(&self, into: &mut Vec<(i32, u64)>) {
        into.clear();
        if let Some((false, _)) = self.queue_now() {
            into.push((1, self.cpu.as_nanos() as u64));
        }
    }
    fn try_exit_status(&mut self) -> Option<ExitStatus> {
        self.exited
    }
    fn memory_limit_hit(&mut self) -> Option<u64> {
        None
    }
    fn shutdown(&mut self, _grace: Duration) {
        self.exited.get_or_insert(ExitStatus::from_raw(15));
    }
    fn stderr_tail(&self) -> String {
        String::new()
    }
    fn stderr_bytes(&self) -> u64 {
        0
    }
    fn shutdown_all(seats: &mut [Self], grace: Duration) {
        for s in seats {
            s.shutdown(grace);
        }
    }
    fn wait_line(seats: &mut [Self], seat: usize, deadline: Instant) -> Wait {
        let s = &mut seats[seat];
        if std::mem::take(&mut s.starving) {
            s.waited += s.starved;
        }
        let start = s.sent_at.expect("input sent before waiting");
        match s.next_act() {
            Act::Silent => Wait::Timeout,
            Act::Exit { after, code } if start + after <= deadline => {
                s.consume();
                let status = ExitStatus::from_raw(code << 8);
                s.exited = Some(status);
                Wait::Exited(status)
            }
            Act::Answer {
                think,
                cpu,
                line,
                ponder,
            } if start + think <= deadline => {
                s.consume();
                s.seen = Some(start + think);
                s.turn_seen = s.seen;
                if let Some((true, wait)) = s.queue_now() {
                    s.waited += wait;
                    s.queued_counted = true;
                }
                s.cpu += s.ponder + cpu;
                s.ponder = ponder;
                s.reads.set(0);
                s.out.extend(&line);
                s.out.extend(b"\n");
                let line = s.out.take_line().expect("a whole line");
                let at = match s.read_late {
                    true => (start + think).max(Instant::now()),
                    false => start + think,
                };
                Wait::Line(line, at)
            }
            _ => {
                s.seen = Some(s.seen.map_or(deadline, |seen| seen.max(deadline)));
                s.turn_seen = Some(s.turn_seen.map_or(deadline, |seen| seen.max(deadline)));
                Wait::Timeout
            }
        }
    }
}

/// Plays Impasse (or `game`) between scripted seats with the arena's clocks.
fn play_scripted(game: Box<dyn Game>, seats: &mut [Scripted], cfg: &RefereeConfig) -> GameResult {
    let names: Vec<String> = (0..seats.len()).map(|i| format!("s{i}")).collect();
    play_seats(game, &[], &names, seats, cfg, 1, Instant::now())
}

fn impasse() -> Box<dyn Game> {
    game::new_game("impasse", 0).unwrap()
}

fn cfg() -> RefereeConfig {
    RefereeConfig {
        max_turns: 40,
        ..RefereeConfig::default()
    }
}

#[test]
fn answers_within_the_limits_play_to_the_turn_limit() {
    let mut seats = [
        Scripted::new(vec![answer(900, "random")], answer(90, "random")),
        Scripted::new(vec![], answer(10, "random")),
    ];
    let r = play_scripted(impasse(), &mut seats, &cfg());
    assert_eq!(r.reason, Reason::TurnLimit, "{}", r.detail);
    assert_eq!(r.stats[0].turns, 20);
    assert_eq!(r.stats[0].strikes, 0);
    // The clock runs from its start (just before the input is written) to the answer's arrival:
    // the think time plus the referee's few microseconds between the two, never less. The
    // longest is the 900 ms first turn, not the 90 ms ones after it.
    let (first, later) = (900_000, 90_000);
    let max0 = r.stats[0].max_us;
    assert!((first..first + later).contains(&max0), "{max0} µs");
    let max1 = r.stats[1].max_us;
    assert!((10_000..later).contains(&max1), "{max1} µs");
    // The first input has the colour line, later ones not.
    assert!(seats[0].inputs[0].starts_with("w\n"));
    assert!(!seats[0].inputs[1].starts_with("w\n"));
}

#[test]
fn a_slow_thaw_is_not_charged_to_the_frozen_bot() {
    // Each thaw of seat 0 takes 60 ms (the freezer's write waiting on the kernel's cgroup locks);
    // seat 0 then thinks 60 ms. Its clock starts when the thaw is done: 60 ms a turn, in time.
    // Started before the write, as for a running bot, each turn would be charged 120 ms: late.
    let freezing = RefereeConfig {
        max_turns: 6,
        freeze_idle: true,
        freeze_after: Duration::ZERO,
        ..cfg()
    };
    let mut seats = [
        Scripted::new(vec![], answer(60, "random")),
        Scripted::new(vec![], answer(1, "random")),
    ];
    seats[0].thaw_delay = Duration::from_millis(60);
    let r = play_scripted(impasse(), &mut seats, &freezing);
    assert_eq!(r.reason, Reason::TurnLimit, "{}", r.detail);
    assert!(seats[0].freezes >= 2, "seat 0 was frozen between its turns");
    assert_eq!(r.stats[0].strikes, 0, "{:?}", r.stats[0]);
    let max0 = r.stats[0].max_us;
    assert!((60_000..100_000).contains(&max0), "{max0} µs");
}

#[test]
fn the_referee_freezing_an_idle_bot_slowly_is_not_charged_to_the_bot_on_turn() {
    // Seat 1 answered and is idle; 5 ms into each turn of seat 0 the referee freezes it, and
    // that write takes 200 ms (the kernel's cgroup locks, while other programs make and remove
    // cgroups). Seat 0 answers after 50 ms, but the referee reads the line only once the freeze
    // returns: 200 ms on the wall. On the fair clock that lateness is the referee's, not the
    // bot's: no strike. (Before, 150 ms of it were "neither" and charged: 2 in 400 games of
    // mcts lost so on this VM at load 14.)
    let play = |clock: Clock| {
        let mut seats = [
            Scripted::new(vec![answer(5, "random")], answer(50, "random")),
            Scripted::new(vec![], answer(1, "random")),
        ];
        seats[0].read_late = true;
        seats[1].freeze_delay = Duration::from_millis(200);
        let mut cfg = RefereeConfig {
            max_turns: 6,
            ..cfg()
        };
        cfg.time.clock = clock;
        let r = play_scripted(impasse(), &mut seats, &cfg);
        assert!(
            seats[1].freezes >= 2,
            "seat 1 was frozen during seat 0's turns"
        );
        r
    };
    let r = play(Clock::Fair);
    assert_eq!(r.reason, Reason::TurnLimit, "{}", r.detail);
    assert_eq!(r.stats[0].strikes, 0, "{:?}", r.stats[0]);
    // The wall clock charges the same turns whole: strikes.
    let r = play(Clock::Wall);
    assert!(r.stats[0].strikes > 0, "{:?}", r.stats[0]);
}

#[test]
fn a_wait_for_a_cpu_that_has_not_ended_at_the_limit_is_not_charged() {
    // Seat 0 computes 20 ms, then waits in a run queue from 20 to 260 ms into its turn, and
    // answers at 300 ms. The kernel counts that wait only when it ends: at the limit (150 ms
    // with grace) no reading shows it, and the turn looks charged whole. The fair clock looks
    // again while a task of the bot is runnable and does not run: in time, no strike. (On this
    // VM at load 14-24, bots/mcts lost about 1 game in 150 so: "in 168.2 ms it used 9.3 ms of
    // CPU time, waited 18.0 ms for a CPU, and 140.9 ms neither".)
    let play = |clock: Clock| {
        let mut seats = [
            Scripted::new(vec![answer(5, "random")], answer_cpu(300, 20)),
            Scripted::new(vec![], answer(1, "random")),
        ];
        seats[0].queued = Some((Duration::from_millis(20), Duration::from_millis(260)));
        seats[0].read_late = true;
        let mut cfg = RefereeConfig {
            max_turns: 6,
            ..cfg()
        };
        cfg.time.clock = clock;
        play_scripted(impasse(), &mut seats, &cfg)
    };
    let r = play(Clock::Fair);
    assert_eq!(r.reason, Reason::TurnLimit, "{}", r.detail);
    assert_eq!(r.stats[0].strikes, 0, "{:?}", r.stats[0]);
    // The wall clock charges it: strikes, then a timeout.
    let r = play(Clock::Wall);
    assert_eq!((r.reason, r.offender), (Reason::Timeout, Some(0)));
}

#[test]
fn with_its_whole_cpu_time_accounted_a_bots_waiting_is_read_only_for_slow_answers() {
    // Fast answers (under SETTLE_AFTER): the waiting is never read where the bot's CPU time
    // is its cgroup's; elsewhere the start readings are taken every turn (their running is a
    // floor of the CPU time there).
    let quick = |whole: bool| {
        let mut seats = [
            Scripted::new(vec![], answer(0, "random")),
            Scripted::new(vec![], answer(0, "random")),
        ];
        seats[0].whole = whole;
        let r = play_scripted(impasse(), &mut seats, &cfg());
        assert_eq!(r.reason, Reason::TurnLimit, "{}", r.detail);
        seats[0].wait_reads.get()
    };
    assert_eq!(quick(true), 0);
    assert!(quick(false) >= 20, "{}", quick(false));
    // A wait for a CPU past SETTLE_AFTER (20 to 260 ms into a 300 ms turn of 20 ms of
    // computing) is read and excused all the same: in time.
    let queued = |whole: bool, queued: bool| {
        let mut seats = [
            Scripted::new(vec![answer(5, "random")], answer_cpu(300, 20)),
            Scripted::new(vec![], answer(1, "random")),
        ];
        seats[0].whole = whole;
        match queued {
            true => seats[0].queued = Some((Duration::from_millis(20), Duration::from_millis(260))),
            false => seats[0].starved = Duration::from_millis(240),
        }
        seats[0].read_late = true;
        let cfg = RefereeConfig {
            max_turns: 6,
            ..cfg()
        };
        play_scripted(impasse(), &mut seats, &cfg)
    };
    for whole in [true, false] {
        let r = queued(whole, true);
        assert_eq!(r.reason, Reason::TurnLimit, "{whole}: {}", r.detail);
        assert_eq!(r.stats[0].strikes, 0, "{whole}: {:?}", r.stats[0]);
    }
    // Waiting before the readings were taken (here all of a seat's `starved`, which the
    // scripted seat takes in the first wait for its answer, that is, before SETTLE_AFTER):
    // excused where they are taken at the start, charged where they wait.
    let r = queued(false, false);
    assert_eq!(r.reason, Reason::TurnLimit, "{}", r.detail);
    let r = queued(true, false);
    assert_eq!(
        (r.reason, r.offender),
        (Reason::Timeout, Some(0)),
        "{}",
        r.detail
    );
}

#[test]
fn late_answers_are_strikes_and_the_third_one_loses() {
    let late = answer(120, "random");
    let mut seats = [
        Scripted::new(vec![answer(5, "random")], late.clone()),
        Scripted::new(vec![], answer(5, "random")),
    ];
    let r = play_scripted(impasse(), &mut seats, &cfg());
    assert_eq!(r.reason, Reason::Timeout);
    assert_eq!(r.offender, Some(0));
    assert!(
        r.detail
            .starts_with("late answer number 3 (its turn 4 (game turn 7) took 120"),
        "{}",
        r.detail
    );
    // Strict: the first late answer loses.
    let strict = RefereeConfig {
        time: TimeControl {
            grace: Duration::ZERO,
            strikes: 1,
            ..TimeControl::default()
        },
        ..cfg()
    };
    let mut seats = [
        Scripted::new(vec![answer(5, "random")], late),
        Scripted::new(vec![], answer(5, "random")),
    ];
    let r = play_scripted(impasse(), &mut seats, &strict);
    assert_eq!((r.reason, r.offender), (Reason::Timeout, Some(0)));
    assert!(r.detail.contains("turn 2"), "{}", r.detail);
}

#[test]
fn past_the_grace_is_a_timeout_and_silence_gets_a_hint() {
    let mut seats = [
        Scripted::new(vec![answer(5, "random")], answer(151, "random")),
        Scripted::new(vec![], answer(5, "random")),
    ];
    let r = play_scripted(impasse(), &mut seats, &cfg());
    assert_eq!((r.reason, r.offender), (Reason::Timeout, Some(0)));
    assert!(
        r.detail
            .starts_with("no answer to its turn 2 (game turn 3) within 100 ms + 50 ms grace"),
        "{}",
        r.detail
    );
    assert!(!r.detail.contains("flush"), "it did write before");
    let mut seats = [
        Scripted::new(vec![], answer(5, "random")),
        Scripted::new(vec![], Act::Silent),
    ];
    let r = play_scripted(impasse(), &mut seats, &cfg());
    assert_eq!((r.reason, r.offender), (Reason::Timeout, Some(1)));
    assert!(r.detail.contains("1000 ms + 50 ms grace"), "{}", r.detail);
    assert!(
        r.detail
            .contains("never wrote a byte to stdout and was mostly not running"),
        "{}",
        r.detail
    );
    assert_eq!(r.ranks, vec![0, 1]);
}

#[test]
fn bad_answers_and_exits_get_their_verdicts() {
    let cases: [(Act, Reason, &str); 4] = [
        (
            answer(5, "zz99"),
            Reason::InvalidMove,
            "\"zz99\" is not one of the 22 offered moves",
        ),
        (
            Act::Answer {
                think: Duration::from_millis(5),
                cpu: Duration::ZERO,
                line: b"\xffa5".to_vec(),
                ponder: Duration::ZERO,
            },
            Reason::InvalidMove,
            "not valid UTF-8",
        ),
        (
            answer(5, &"x".repeat(10_001)),
            Reason::OutputTooLong,
            "10001 bytes",
        ),
        (
            Act::Exit {
                after: Duration::from_millis(3),
                code: 3,
            },
            Reason::Crash,
            "exited with status 3 before answering turn 1",
        ),
    ];
    for (act, reason, detail) in cases {
        let mut seats = [
            Scripted::new(vec![act], answer(5, "random")),
            Scripted::new(vec![], answer(5, "random")),
        ];
        let r = play_scripted(impasse(), &mut seats, &cfg());
        assert_eq!((r.reason, r.offender), (reason, Some(0)), "{}", r.detail);
        assert!(r.detail.contains(detail), "{}", r.detail);
        assert_eq!(r.scores, vec![-1, 0], "the arena's record of a forfeit");
    }
}

#[test]
fn a_seat_seen_thinking_while_idle_is_frozen_at_its_answers_from_then_on() {
    let ponderer = Act::Answer {
        think: Duration::from_millis(1),
        cpu: Duration::from_millis(1),
        line: b"random".to_vec(),
        ponder: Duration::from_millis(3),
    };
    let mut seats = [
        Scripted::new(vec![], ponderer),
        Scripted::new(vec![], answer(1, "random")),
    ];
    let r = play_scripted(impasse(), &mut seats, &cfg());
    assert_eq!(r.reason, Reason::TurnLimit);
    // The ponderer: frozen at each answer once seen (from its second turn on); the quiet seat
    // answers within 5 ms, so no signal is ever sent to it.
    assert_eq!(seats[0].freezes, 19, "frozen at answers 2..20");
    assert_eq!(seats[1].freezes, 0);
    // Without freezing nobody is stopped.
    let pondering = RefereeConfig {
        freeze_idle: false,
        ..cfg()
    };
    let ponderer = Act::Answer {
        think: Duration::from_millis(1),
        cpu: Duration::from_millis(1),
        line: b"random".to_vec(),
        ponder: Duration::from_millis(3),
    };
    let mut seats = [
        Scripted::new(vec![], ponderer),
        Scripted::new(vec![], answer(1, "random")),
    ];
    play_scripted(impasse(), &mut seats, &pondering);
    assert_eq!((seats[0].freezes, seats[1].freezes), (0, 0));
}

#[test]
fn four_seats_play_on_without_a_seat_that_timed_out() {
    let (info, setup) = game::lookup("moscow-ice", Some("standard"), Some(4), 0).unwrap();
    let mut seats = [
        Scripted::new(vec![], answer(1, "random")),
        Scripted::new(vec![], answer(1, "random")),
        Scripted::new(vec![answer(1, "random")], Act::Silent),
        Scripted::new(vec![], answer(1, "random")),
    ];
    let cfg = RefereeConfig {
        max_turns: 800,
        ..cfg()
    };
    let r = play_scripted(info.start(&setup), &mut seats, &cfg);
    assert_eq!(r.forfeits.len(), 1, "{:?}", r.forfeits);
    assert_eq!(
        (r.forfeits[0].seat, r.forfeits[0].reason),
        (2, Reason::Timeout)
    );
    assert!(
        r.forfeits[0].detail.contains("its turn 2 (game turn 7)"),
        "{}",
        r.forfeits[0].detail
    );
    assert!(r.turns > 7, "the others played on");
    assert_eq!(r.ranks[2], 3);
    assert_eq!(r.scores[2], -1);
    // Seat 2 was sent two inputs and never another after it was out.
    assert_eq!(seats[2].inputs.len(), 2);
}

/// An answer after `think` of wall time of which the seat computed `cpu`.
fn answer_cpu(think: u64, cpu: u64) -> Act {
    Act::Answer {
        think: Duration::from_millis(think),
        cpu: Duration::from_millis(cpu),
        line: b"random".to_vec(),
        ponder: Duration::ZERO,
    }
}

#[test]
fn the_fair_clock_excuses_waiting_for_a_cpu_but_not_computing() {
    let starved = |then: Act, clock: Clock| {
        let mut seats = [
            Scripted::new(vec![answer(5, "random")], then),
            Scripted::new(vec![], answer(5, "random")),
        ];
        seats[0].starved = Duration::from_millis(300);
        let mut cfg = cfg();
        cfg.time.clock = clock;
        cfg.record_turns = true;
        play_scripted(impasse(), &mut seats, &cfg)
    };
    // 70 ms of computing spread over 370 ms by 300 ms of waiting: in time, and recorded.
    let r = starved(answer_cpu(370, 70), Clock::Fair);
    assert_eq!(r.reason, Reason::TurnLimit, "{}", r.detail);
    assert_eq!(r.stats[0].strikes, 0);
    assert!(r.stats[0].starved_turns > 0 && r.stats[0].starved());
    let t = r.log.iter().find(|t| t.seat == 0 && t.turn > 2).unwrap();
    // The seat's 300 ms, plus whatever the test's own thread really waited for a CPU, but no
    // more than the wall time its computing left (370 - 70 ms, give or take the timer's slack).
    assert!((295_000..400_000).contains(&t.waited_us), "{}", t.waited_us);
    // The same turn on the wall clock is a timeout.
    let r = starved(answer_cpu(370, 70), Clock::Wall);
    assert_eq!((r.reason, r.offender), (Reason::Timeout, Some(0)));
    // 160 ms of computing loses whatever the waiting: cut when its charge reaches the limit.
    let r = starved(answer_cpu(460, 160), Clock::Fair);
    assert_eq!((r.reason, r.offender), (Reason::Timeout, Some(0)));
    // (The verdict tells the waiting left out of the charge: at most the wall time less the
    // CPU time, and the scripted seats take no wall time.)
    assert!(r.detail.contains("for a CPU (not charged)"), "{}", r.detail);
    // Starved past FAIR_WALL_FACTOR times the limit: a timeout all the same.
    let mut seats = [
        Scripted::new(vec![answer(5, "random")], answer_cpu(8100, 10)),
        Scripted::new(vec![], answer(5, "random")),
    ];
    seats[0].starved = Duration::from_millis(8000);
    let r = play_scripted(impasse(), &mut seats, &cfg());
    assert_eq!((r.reason, r.offender), (Reason::Timeout, Some(0)));
    assert!(r.detail.contains("for a CPU (not charged)"), "{}", r.detail);
}

#[test]
fn time_the_hypervisor_took_is_not_charged_but_computing_is() {
    // Issue 40 item 4: on a busy VM the hypervisor takes the bot's CPU (steal) for 250 ms of
    // a turn; the bot then computes 20 ms and answers at 300 ms, on a 100 ms limit with 50 ms
    // of grace. Neither its CPU time nor waiting for a CPU: before, charged whole.
    let play = |then: Act, clock: Clock| {
        let mut seats = [
            Scripted::new(vec![answer(5, "random")], then),
            Scripted::new(vec![], answer(5, "random")),
        ];
        seats[0].stolen = Duration::from_millis(250);
        let mut cfg = RefereeConfig {
            max_turns: 6,
            record_turns: true,
            ..cfg()
        };
        cfg.time.clock = clock;
        play_scripted(impasse(), &mut seats, &cfg)
    };
    let r = play(answer_cpu(300, 20), Clock::Fair);
    assert_eq!(r.reason, Reason::TurnLimit, "{}", r.detail);
    assert_eq!(r.stats[0].strikes, 0, "{:?}", r.stats[0]);
    let t = r.log.iter().find(|t| t.seat == 0 && t.turn > 2).unwrap();
    // All 250 ms, less whatever the test's own thread really waited for a CPU (excused as
    // waiting first, out of the same 280 ms that were neither computing nor waiting).
    assert!(
        (200_000..=250_000).contains(&t.stolen_us),
        "{}",
        t.stolen_us
    );
    // The wall clock charges it: strikes, then a timeout.
    let r = play(answer_cpu(300, 20), Clock::Wall);
    assert_eq!((r.reason, r.offender), (Reason::Timeout, Some(0)));
    // 160 ms of its own computing after the same steal: cut when its charge reaches the limit
    // and grace (at 400 ms), whatever the steal.
    let r = play(answer_cpu(410, 160), Clock::Fair);
    assert_eq!((r.reason, r.offender), (Reason::Timeout, Some(0)));
}
