//! Plays one game whose rules are a process: an external referee speaking the cg-brutaltester
//! protocol (`###Start`, `###Input k`, `###Output k n`, `###End`). The referee decides who is
//! asked and what they see; arbiter still owns the bots, their clocks (the same `Turns::ask`
//! as built-in games: limits, grace and strikes, CPU clock, freezing), the verdicts and the
//! record. The referee is untrusted code too: it runs with the bots' limits and sandbox, has
//! its own time limit per message, and anything it does wrong ends the game as
//! `referee-error` with the end of its stderr, never as a bot's loss.

mod check;
pub mod message;
pub mod spec;

pub use check::{check, RefereeCheckError};

use super::assemble::{assemble, GameEnd, GameRun, NoRules};
use super::turns::{LoopEnd, Said, Turns};
use super::verdict::Verdict;
use super::{ms, Seat};
use super::{spawn_with_referee, GameResult, Reason, RefereeConfig, RefereeError};
use crate::bot::{self, describe_exit, BotProcess, BotSpec, SendError, Wait};
use crate::game::DrawRule;
use crate::protocol::escape;
use message::Message;
use std::time::{Duration, Instant};

/// Most seats an external referee can have: the protocol's player ids are one digit.
pub const MAX_SEATS: usize = 10;

/// The referee's default time per message (a JVM or mono start-up fits in it many times over).
pub const DEFAULT_MESSAGE_LIMIT: Duration = Duration::from_secs(5);

/// An external referee as a run plays it: the process that holds the game's rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct External {
    /// The game's name in records: the referee.toml's `name`, else the program's.
    pub name: String,
    /// The referee's program, arguments, folder and build command.
    pub spec: BotSpec,
    /// Send `###Seed N` before `###Start` (only referees known to read it: others take it as a
    /// player's answer).
    pub seed: bool,
    /// How long the referee may take for each message (its start-up included).
    pub message_limit: Duration,
}

/// Most bytes a referee may write between two requests (`###Output`, `###End`): a referee
/// that only ever writes input or notes would otherwise hold the game and fill arbiter's memory.
pub const MAX_BYTES_BETWEEN_REQUESTS: usize = 4 << 20;

/// At most this many bytes of the referee's stderr are quoted in a `referee-error` detail.
const STDERR_QUOTE: usize = 600;

/// Plays one game of `referee` between `bots` (seat k is the referee's player k). `seed` is the
/// table's seed: with [`External::seed`] the referee gets `###Seed` from it, so the two games of
/// a pair (seats swapped) play the same map.
pub fn play(
    referee: &External,
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
) -> Result<GameResult, RefereeError> {
    let started = Instant::now();
    // A line of the referee may carry a whole input, up to its cap between two requests.
    let max_line = MAX_BYTES_BETWEEN_REQUESTS;
    let (mut procs, proc) = spawn_with_referee(bots, cfg, seed, max_line, |others| {
        BotProcess::spawn(&referee.spec, &cfg.limits, others)
    })?;
    let seats = bots.len();
    let mut game = ExternalDriver {
        referee,
        proc,
        pending: None,
        since_request: 0,
        inputs: vec![String::new(); seats],
        turns: Turns::new(seats, seed, 0),
        cfg,
    };
    let end = game.run(&mut procs, seed);
    let ExternalDriver { proc, turns, .. } = game;
    // The bots and the referee end together (one shared grace). A referee may keep reading or
    // crash once its stdin closes after `###End`: its exit status is never looked at.
    procs.push(proc);
    BotProcess::shutdown_all(&mut procs, cfg.kill_grace);
    let referee_tail = procs.pop().map(|p| p.stderr_tail()).unwrap_or_default();

    let end = match end {
        // Every player in one group (`###End 01`): nobody won, a draw as the rules' draws are.
        ExternalEnd::Ranked(ranks) if ranks.iter().all(|&r| r == 0) => {
            GameEnd::Ranked(ranks, Reason::Draw(DrawRule::Referee))
        }
        ExternalEnd::Ranked(ranks) => GameEnd::Ranked(ranks, Reason::Win),
        ExternalEnd::TurnLimit => GameEnd::Ranked(vec![0; seats], Reason::TurnLimit),
        ExternalEnd::Forfeit(seat, verdict) => GameEnd::Forfeit(seat, verdict),
        ExternalEnd::RefereeError(what) => {
            let quote = tail(&referee_tail, STDERR_QUOTE);
            GameEnd::RefereeError(if quote.trim().is_empty() {
                format!(
                    "the referee `{}` {what} (its stderr is empty)",
                    referee.spec.command_line()
                )
            } else {
                format!(
                    "the referee `{}` {what}; its stderr ends: {}",
                    referee.spec.command_line(),
                    quote.trim_end()
                )
            })
        }
    };
    let mut stderr_tails: Vec<String> = procs.iter().map(Seat::stderr_tail).collect();
    stderr_tails.push(referee_tail);
    let played = GameRun {
        game: referee.name.clone(),
        seed,
        bots: bots.iter().map(|b| b.name.clone()).collect(),
        opening: Vec::new(),
        turns,
        stderr_tails,
        stderr_bytes: procs.iter().map(Seat::stderr_bytes).collect(),
        duration: started.elapsed(),
    };
    // The rules live in the referee: the record has no scores of the game's own.
    Ok(assemble(&NoRules(seats), end, played))
}

/// How an external game ended.
enum ExternalEnd {
    /// The referee's `###End`, as ranks.
    Ranked(Vec<u8>),
    /// arbiter's turn limit (`--max-turns` answers) came first: a draw.
    TurnLimit,
    /// A bot's forfeit decided by arbiter (timeout, crash, overlong line, memory).
    Forfeit(usize, Verdict),
    /// The referee failed: what it did.
    RefereeError(String),
}

/// One game under way.
struct ExternalDriver<'a> {
    referee: &'a External,
    proc: BotProcess,
    /// A line read past the end of an `###Input` block, handled next.
    pending: Option<Vec<u8>>,
    /// Bytes the referee wrote since its last request.
    since_request: usize,
    /// What each player is sent with its next turn (every `###Input` block since its last one).
    inputs: Vec<String>,
    turns: Turns,
    cfg: &'a RefereeConfig,
}

impl ExternalDriver<'_> {
    fn run(&mut self, procs: &mut [BotProcess], seed: u64) -> ExternalEnd {
        let seats = procs.len();
        if let Err(what) = self.start(seats, seed) {
            return ExternalEnd::RefereeError(what);
        }
        loop {
            let msg = match self.next_message(seats) {
                Ok(msg) => msg,
                Err(what) => return ExternalEnd::RefereeError(what),
            };
            match msg {
                Message::Error | Message::Input(_) => {}
                Message::Output(k, n) => {
                    if self.turns.turn >= self.cfg.max_turns {
                        return ExternalEnd::TurnLimit;
                    }
                    if let Some(end) = self.turn(procs, k, n) {
                        return end;
                    }
                }
                Message::End(groups) => {
                    return match message::ranks(&groups, seats) {
                        Ok(ranks) => ExternalEnd::Ranked(ranks),
                        Err(why) => {
                            ExternalEnd::RefereeError(format!("ended the game badly: {why}"))
                        }
                    }
                }
            }
        }
    }

    /// Up to the referee's first request of a player (`###Output`) or `###End`, for the
    /// start-up check ([`check()`]): `Err` says what it did wrong.
    fn first_request(&mut self, seats: usize) -> Result<(), String> {
        self.start(seats, 0)?;
        loop {
            if let Message::Output(..) | Message::End(_) = self.next_message(seats)? {
                return Ok(());
            }
        }
    }

    /// `###Seed` (where the referee reads it) and `###Start`.
    fn start(&mut self, seats: usize, seed: u64) -> Result<(), String> {
        let mut start = String::new();
        if self.referee.seed {
            // Many referees read the seed as a Java int: keep it in 0..2^31.
            start.push_str(&format!("###Seed {}\n", seed & 0x7fff_ffff));
        }
        start.push_str(&format!("###Start {seats}\n"));
        let limit = self.referee.message_limit;
        match self.proc.send(start.as_bytes(), Instant::now() + limit) {
            Ok(()) => Ok(()),
            // A referee that stopped reading at once (`echo hello`) may have said why on its
            // output: what it wrote, or how it ended, tells more than a closed pipe.
            Err(SendError::Closed) => Err(match self.next_message(seats) {
                Err(what) => what,
                Ok(_) => self.send_error(SendError::Closed),
            }),
            Err(e) => Err(self.send_error(e)),
        }
    }

    /// The referee's next message (blank lines skipped); an `###Input` block is read into its
    /// player's next input. `Err` says what the referee did wrong.
    fn next_message(&mut self, seats: usize) -> Result<Message, String> {
        let line = loop {
            let line = self.read_line()?;
            if !String::from_utf8_lossy(&line).trim().is_empty() {
                break line;
            }
        };
        let text = String::from_utf8_lossy(&line);
        if !text.starts_with("###") {
            return Err(format!(
                "wrote \"{}\" where ###Input, ###Output or ###End was expected",
                escape(&line, 100)
            ));
        }
        let msg = message::parse(&text)
            .map_err(|why| format!("wrote \"{}\": {why}", escape(&line, 100)))?;
        let missing = |k: usize| {
            format!(
                "asked for player {k}, but the game has {seats} players (0 to {})",
                seats - 1
            )
        };
        match msg {
            Message::Input(k) | Message::Output(k, _) if k >= seats => Err(missing(k)),
            Message::Input(k) => self.read_block(k).map(|()| msg),
            msg => Ok(msg),
        }
    }

    /// Reads the lines of an `###Input k` block (up to the next `###` line) into player k's
    /// next input.
    fn read_block(&mut self, k: usize) -> Result<(), String> {
        loop {
            let line = self.read_line()?;
            if line.starts_with(b"###") {
                self.pending = Some(line);
                return Ok(());
            }
            let input = &mut self.inputs[k];
            input.push_str(&String::from_utf8_lossy(&line));
            input.push('\n');
        }
    }

    /// Player k's turn: its input, its `n` answer lines on its clock, passed to the referee.
    /// `Some` ends the game.
    fn turn(&mut self, procs: &mut [BotProcess], k: usize, n: usize) -> Option<ExternalEnd> {
        let input = std::mem::take(&mut self.inputs[k]);
        let answered = match self.turns.ask(procs, k, input.as_bytes(), n, self.cfg) {
            Ok(a) => a,
            Err(LoopEnd::Forfeit(seat, verdict)) => {
                return Some(ExternalEnd::Forfeit(seat, verdict))
            }
            Err(LoopEnd::Outcome(..)) => unreachable!("asking a seat ends no game by the rules"),
        };
        if answered
            .lines
            .iter()
            .any(|l| l.iter().all(u8::is_ascii_whitespace))
        {
            // Some referees crash on an empty answer: that is the bot's fault, judged here.
            let which = answered.which;
            return Some(ExternalEnd::Forfeit(k, Verdict::EmptyAnswer { which }));
        }
        let mut answer = String::new();
        for line in &answered.lines {
            answer.push_str(&String::from_utf8_lossy(line));
            answer.push('\n');
        }
        let played = answer.trim_end_matches('\n').to_string();
        self.turns.record(procs, k, self.cfg, &answered, || Said {
            input,
            answer: played.clone(),
            comment: String::new(),
            played: played.clone(),
        });
        self.turns.moves.push(played);
        self.turns.turn += 1;
        self.send(answer.as_bytes())
            .err()
            .map(ExternalEnd::RefereeError)
    }

    /// Writes to the referee within its message limit.
    fn send(&mut self, data: &[u8]) -> Result<(), String> {
        let limit = self.referee.message_limit;
        self.proc
            .send(data, Instant::now() + limit)
            .map_err(|e| self.send_error(e))
    }

    /// What a failed write to the referee says of it.
    fn send_error(&mut self, e: SendError) -> String {
        match e {
            SendError::Full => format!(
                "did not read its input for {} (its time per message)",
                ms(self.referee.message_limit)
            ),
            SendError::Closed => match self.proc.try_exit_status() {
                Some(status) => format!("{} before ###End", describe_exit(status)),
                None => "closed its standard input before ###End".into(),
            },
        }
    }

    /// Why the referee's output ended: a process that closes its output is most often exiting, so
    /// its exit status is awaited a little (up to [`EXIT_AFTER_CLOSE`]) to say how it ended.
    fn closed_stdout(&mut self) -> String {
        let until = Instant::now() + EXIT_AFTER_CLOSE;
        loop {
            if let Some(status) = self.proc.try_exit_status() {
                return format!("{} before ###End", describe_exit(status));
            }
            if Instant::now() >= until {
                return "closed its standard output before ###End".into();
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// The referee's next line (without its line end) within its message limit.
    fn read_line(&mut self) -> Result<Vec<u8>, String> {
        if let Some(line) = self.pending.take() {
            return Ok(line);
        }
        let limit = self.referee.message_limit;
        let deadline = Instant::now() + limit;
        match bot::wait_line(std::slice::from_mut(&mut self.proc), 0, deadline) {
            Wait::Line(mut line, _) => {
                if line.starts_with(b"###Output") || line.starts_with(b"###End") {
                    self.since_request = 0;
                } else {
                    self.since_request += line.len() + 1;
                    if self.since_request > MAX_BYTES_BETWEEN_REQUESTS {
                        return Err(format!(
                            "wrote more than {} MiB without asking a player for an answer or ending the game",
                            MAX_BYTES_BETWEEN_REQUESTS >> 20
                        ));
                    }
                }
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Ok(line)
            }
            Wait::Exited(status) => Err(format!("{} before ###End", describe_exit(status))),
            Wait::ClosedStdout => Err(self.closed_stdout()),
            Wait::TooLong => Err(format!(
                "wrote more than {} MiB without a newline",
                self.proc.out.max_line() >> 20
            )),
            Wait::Timeout => Err(format!(
                "wrote nothing for {} (its time per message, {})",
                ms(limit),
                crate::options::Opt::RefereeTimeoutMs
            )),
        }
    }
}

/// How long a referee that closed its output is given to exit, so that its exit status (a crash)
/// is what the verdict says; on a loaded machine the exit is seen some time after the close.
const EXIT_AFTER_CLOSE: std::time::Duration = std::time::Duration::from_secs(1);

/// The last `keep` bytes of `text`, cut at a character boundary.
fn tail(text: &str, keep: usize) -> &str {
    let mut start = text.len().saturating_sub(keep);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}
