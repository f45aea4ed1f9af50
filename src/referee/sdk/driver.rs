//! Plays one game of a CodinGame SDK referee in place of CodinGame's runner: arbiter starts the
//! referee ([`super::RefereeLauncher`]) and the bots, sends `[[INIT]]` with the seed and the game
//! parameters, and for each frame asks the referee what to do (`protocol`). A player's turn is
//! asked with the same `Turns::ask` as every game (limits, grace and strikes, the fair clock,
//! freezing): its limit is the game's own unless the user set limits: what `[[NEXT_PLAYER_INFO]]`
//! gives, less the soft margin recent engines add (the game's own limit, which the bots were
//! told: see [`super::check`]; arbiter's grace and strikes stand for the margin). A bot that
//! fails its turn (a timeout, a crash, an overlong line) is out of the game and the referee is
//! told as CodinGame's runner tells it (`[[SET_PLAYER_TIMEOUT]]`): the game decides what follows
//! (in three seats or more the others play on). A player the game deactivates (an invalid
//! action, by its rules) is out too, as `deactivated`, with the game's message on it. Players
//! out in the same game turn (the engine's turns, counted by its key frames) are out together:
//! the game's scores rank them, equal scores tie. Otherwise the game ranks the seats by its
//! `[[SCORES]]`; its own messages on a player (its tooltips) are the verdict's text. The referee
//! is untrusted: anything it does wrong (a `[[FAIL]]`, a hang, garbage, an exit) ends the game as
//! `referee-error` with the end of its stderr.

use super::protocol::{self, Frame, GameLimits, PlayerInfo};
use super::record::SdkLog;
use super::SdkGame;
use crate::bot::{self, describe_exit, BotProcess, BotSpec, SendError, Wait};
use crate::game::{DrawRule, ScoreEnd};
use crate::options::Opt;
use crate::protocol::escape;
use crate::referee::assemble::{assemble, GameEnd, GameRun, NoRules, Scoring};
use crate::referee::turns::{LoopEnd, Said, Turns};
use crate::referee::{
    ms, spawn_with_referee, Forfeit, GameResult, Reason, RefereeConfig, RefereeError, Seat,
};
use std::time::{Duration, Instant};

/// Most bytes a referee may write in one frame: the engine's own cap on view data is 1 MiB for
/// the whole game; a referee writing more than this without asking a player is broken.
pub const MAX_FRAME_BYTES: usize = 4 << 20;

/// At most this many bytes of the referee's stderr (or of its `[[FAIL]]` trace) are quoted in a
/// `referee-error` detail.
const QUOTE: usize = 600;

/// At most this many bytes of one game message are kept in a verdict's text.
const MESSAGE_BYTES: usize = 200;

/// How long a referee that closed its output is given to exit, so that its exit status says
/// how it ended.
const EXIT_AFTER_CLOSE: Duration = Duration::from_secs(1);

/// Plays one game of `game` between `bots` (seat k is the game's player k); `seed` is the
/// table's seed, sent as the game parameter `seed` (a pair's two games share it).
pub fn play(
    game: &SdkGame,
    bots: &[BotSpec],
    cfg: &RefereeConfig,
    seed: u64,
) -> Result<GameResult, RefereeError> {
    let started = Instant::now();
    let (mut procs, proc) = spawn_with_referee(bots, cfg, seed, MAX_FRAME_BYTES, |others| {
        game.launcher.spawn(game, &cfg.limits, others)
    })?;
    let seats = bots.len();
    let mut driver = Driver::new(game, proc, cfg, seats, seed);
    let end = driver.run(&mut procs, seed);
    let names: Vec<String> = bots.iter().map(|b| b.name.clone()).collect();
    let Driver {
        proc,
        mut turns,
        messages,
        mut log,
        deactivated,
        game_turn,
        ..
    } = driver;
    // A warm launcher keeps its process for the next game when this one ended cleanly.
    let kept = game.launcher.finish(proc, matches!(end, SdkEnd::Scores(_)));
    let referee_tail = match kept {
        Ok(tail) => {
            BotProcess::shutdown_all(&mut procs, cfg.kill_grace);
            tail
        }
        Err(proc) => {
            procs.push(*proc);
            BotProcess::shutdown_all(&mut procs, cfg.kill_grace);
            procs.pop().map(|p| p.stderr_tail()).unwrap_or_default()
        }
    };

    let mut scores = vec![0; seats];
    // Every player out of the game: arbiter's forfeits and the game's deactivations (named as
    // the game names them), in the order of the game turns they happened in; those of one turn
    // are ranked together by the game's scores.
    if !matches!(end, SdkEnd::RefereeError(_)) {
        let mut out: Vec<Forfeit> = std::mem::take(&mut turns.forfeits);
        out.extend(deactivated.into_iter().map(|mut f| {
            f.detail = escape(
                super::record::with_names(&f.detail, &names).as_bytes(),
                MESSAGE_BYTES,
            );
            f
        }));
        out.sort_by_key(|f| f.turn);
        turns.forfeits = out;
        turns.simultaneous = true;
    }
    let end = match end {
        SdkEnd::Scores(game_scores) => {
            scores = game_scores;
            // In two seats the one player out ended the game: its forfeit is the verdict, as
            // in every two-seat game. In more, the game played on without it.
            if seats == 2 && turns.forfeits.len() == 1 {
                GameEnd::Failed(turns.forfeits.pop().expect("one player out"))
            } else {
                let ranks = protocol::ranks_of_scores(&scores);
                let reason = match ranks.iter().all(|&r| r == 0) {
                    true => Reason::Draw(DrawRule::Referee),
                    false => Reason::Win,
                };
                GameEnd::Ranked(ranks, reason)
            }
        }
        SdkEnd::TurnLimit => GameEnd::Ranked(vec![0; seats], Reason::TurnLimit),
        SdkEnd::RefereeError(what) => {
            let quote = tail(&referee_tail, QUOTE).trim_end();
            let command = game.launcher.describe(game);
            GameEnd::RefereeError(match quote.is_empty() {
                true => format!("the SDK referee `{command}` {what} (its stderr is empty)"),
                false => format!("the SDK referee `{command}` {what}; its stderr ends: {quote}"),
            })
        }
    };
    let verdict_text = matches!(end, GameEnd::Ranked(_, Reason::Win | Reason::Draw(_)))
        .then(|| verdict_text(&messages, &names));
    // The end's frame is a key frame of its own: the game turns played are one fewer.
    let game_turns = match &end {
        GameEnd::RefereeError(_) => game_turn,
        _ => game_turn.saturating_sub(1),
    };
    let mut stderr_tails: Vec<String> = procs.iter().map(Seat::stderr_tail).collect();
    stderr_tails.push(referee_tail);
    let played = GameRun {
        game: game.name.clone(),
        seed,
        bots: names,
        opening: Vec::new(),
        turns,
        stderr_tails,
        stderr_bytes: procs.iter().map(Seat::stderr_bytes).collect(),
        duration: started.elapsed(),
    };
    let mut result = assemble(&SdkScores(scores), end, played);
    if let Some(log) = &mut log {
        log.turns = game_turns;
    }
    result.sdk = log;
    if let Some(text) = verdict_text {
        result.detail = text;
    }
    Ok(result)
}

/// Why the start-up check's game gave no first frame.
pub(super) struct NoFirstFrame {
    /// What the referee did, as a game's `referee-error` detail says it.
    pub what: String,
    /// The end of the referee's stderr.
    pub stderr: String,
}

/// The start-up check's game ([`super::check`]): starts `game`'s referee for `seats` players
/// with seed 0, sends `[[INIT]]` and `[[GET_GAME_INFO]]`, and reads the first frame, within
/// the referee's time per message; then ends the referee. `Err` says what the referee did
/// (as a game's `referee-error` detail says it), with the end of its stderr.
pub(super) fn first_frame(
    game: &SdkGame,
    seats: usize,
    cfg: &RefereeConfig,
) -> Result<Option<GameLimits>, NoFirstFrame> {
    let proc = game
        .launcher
        .spawn(game, &cfg.limits, &[])
        .map_err(|e| NoFirstFrame {
            what: format!("cannot start: {}", crate::errors::chain_text(&e)),
            stderr: String::new(),
        })?;
    let mut driver = Driver::new(game, proc, cfg, seats, 0);
    let mut request = protocol::init(seats, &driver.params(0));
    request.push_str(protocol::GET_GAME_INFO);
    let read = driver
        .send(request.as_bytes())
        .and_then(|()| driver.frame(seats));
    let (what, limits) = match read {
        Ok(frame) => (
            frame.fail.map(|trace| {
                game.launcher.after_fail(&mut driver.proc);
                failed(&trace)
            }),
            frame.state.map(|s| match (s.limits.timebank, frame.next) {
                (true, Some(next)) => GameLimits {
                    first_turn: next.limit,
                    turn: next.limit,
                    ..s.limits
                },
                _ => s.limits,
            }),
        ),
        Err(what) => (Some(what), None),
    };
    // The game is not over: a warm launcher does not keep its process.
    let stderr = match game.launcher.finish(driver.proc, false) {
        Ok(tail) => tail,
        Err(mut proc) => {
            proc.shutdown(cfg.kill_grace);
            proc.stderr_tail()
        }
    };
    match what {
        None => Ok(limits),
        Some(what) => Err(NoFirstFrame { what, stderr }),
    }
}

/// What a `[[FAIL]]` says: the trace's first line (the rest is in the referee's stderr too).
fn failed(trace: &str) -> String {
    let first = trace.lines().next().unwrap_or("");
    format!("failed ([[FAIL]]): {}", escape(first.as_bytes(), QUOTE))
}

/// The game's last message on each player that had one ("`bot`: message"), in seat order,
/// each escaped and cut to [`MESSAGE_BYTES`]; `$k` (the engine's token for player k's name)
/// reads as the bot's name.
fn verdict_text(messages: &[(usize, String)], names: &[String]) -> String {
    let mut last: Vec<Option<&str>> = vec![None; names.len()];
    for (player, text) in messages {
        last[*player] = Some(text);
    }
    let mut parts = Vec::new();
    for (seat, text) in last.iter().enumerate() {
        if let Some(text) = text {
            let named = super::record::with_names(text, names);
            parts.push(format!(
                "{}: {}",
                names[seat],
                escape(named.as_bytes(), MESSAGE_BYTES)
            ));
        }
    }
    parts.join("; ")
}

/// The game's own scores: what the record keeps as the game's scores; a forfeit is ranked and
/// scored as for any game whose rules live outside arbiter ([`NoRules`]).
struct SdkScores(Vec<i64>);

impl Scoring for SdkScores {
    fn seats(&self) -> usize {
        self.0.len()
    }
    fn ranks_of_forfeit(&self, seat: usize) -> Vec<u8> {
        NoRules(self.0.len()).ranks_of_forfeit(seat)
    }
    fn record_scores(&self, end: ScoreEnd) -> Vec<i32> {
        NoRules(self.0.len()).record_scores(end)
    }
    fn own_scores(&self) -> Vec<i32> {
        self.0
            .iter()
            .map(|&s| s.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
            .collect()
    }
}

/// How an SDK game ended.
enum SdkEnd {
    /// The game's `[[SCORES]]`, by player.
    Scores(Vec<i64>),
    /// arbiter's turn limit (`--max-turns` answers) came first: a draw.
    TurnLimit,
    /// The referee failed: what it did.
    RefereeError(String),
}

/// One game under way.
struct Driver<'a> {
    game: &'a SdkGame,
    proc: BotProcess,
    /// The run's settings, with each turn's limits set to the game's where it gives them.
    cfg: RefereeConfig,
    turns: Turns,
    /// The referee asked for each answer's time (`[[MONITORING]]`).
    monitoring: bool,
    /// Bytes the referee wrote since its last request.
    since_request: usize,
    /// The game's messages on players (its tooltips), in order.
    messages: Vec<(usize, String)>,
    /// The game's frames (kept when turns are recorded), its turns and its parameters.
    log: Option<Box<SdkLog>>,
    /// Input of each player sent in frames that asked it for no answer, not yet written.
    pending: Vec<String>,
    /// The engine's game turn: how many key frames came so far (the end's is one more).
    game_turn: u32,
    /// The game turn of the frame before this one: what a player found out of the game in
    /// this frame was put out in.
    last_turn: u32,
    /// The game's own limits, as the launcher last told them.
    limits: Option<GameLimits>,
    /// Which players the game had, as the launcher last told.
    active: Vec<bool>,
    /// The players the game deactivated itself (not after a forfeit of arbiter's), with its
    /// last message on each (its `$k` tokens not yet read as names).
    deactivated: Vec<Forfeit>,
}

impl<'a> Driver<'a> {
    fn new(
        game: &'a SdkGame,
        proc: BotProcess,
        cfg: &RefereeConfig,
        seats: usize,
        seed: u64,
    ) -> Driver<'a> {
        Driver {
            game,
            proc,
            cfg: cfg.clone(),
            turns: Turns::new(seats, seed, 0),
            monitoring: false,
            since_request: 0,
            messages: Vec::new(),
            log: Some(Box::default()),
            pending: vec![String::new(); seats],
            game_turn: 0,
            last_turn: 0,
            limits: None,
            active: vec![true; seats],
            deactivated: Vec::new(),
        }
    }

    /// Takes in what a frame says of the game besides its messages: its game turn, its limits,
    /// the players it deactivated since the frame before (in that frame's game turn).
    fn follow(&mut self, frame: &Frame) {
        if frame.key {
            self.game_turn += 1;
        }
        if let Some(state) = &frame.state {
            self.limits = Some(state.limits);
            for (seat, now) in state.active.iter().enumerate() {
                if self.active[seat] && !now && !self.turns.out[seat] {
                    let said = frame.tooltips.iter().rev().find(|(p, _)| *p == seat);
                    self.deactivated.push(Forfeit {
                        seat,
                        reason: Reason::Deactivated,
                        detail: said.map_or_else(
                            || "the game deactivated it (without a message)".to_string(),
                            |(_, text)| text.clone(),
                        ),
                        turn: self.last_turn,
                        exit: None,
                    });
                }
            }
            self.active.clone_from(&state.active);
        }
        self.last_turn = self.game_turn;
    }

    fn run(&mut self, procs: &mut [BotProcess], seed: u64) -> SdkEnd {
        let seats = procs.len();
        let mut request = protocol::init(seats, &self.params(seed));
        loop {
            request.push_str(protocol::GET_GAME_INFO);
            if let Err(what) = self.send(request.as_bytes()) {
                return SdkEnd::RefereeError(what);
            }
            let frame = match self.frame(seats) {
                Ok(frame) => frame,
                Err(what) => return SdkEnd::RefereeError(what),
            };
            self.monitoring |= frame.monitoring;
            self.follow(&frame);
            if let (Some(log), true) = (&mut self.log, self.cfg.record_turns) {
                log.keep(
                    &frame,
                    self.turns.moves.len(),
                    self.turns.forfeits.len(),
                    self.game_turn,
                );
            }
            self.messages.extend(frame.tooltips.iter().cloned());
            if let Some(trace) = &frame.fail {
                self.game.launcher.after_fail(&mut self.proc);
                return SdkEnd::RefereeError(failed(trace));
            }
            if let Some(scores) = frame.scores {
                if let Some(log) = &mut self.log {
                    log.params = frame.params;
                }
                return SdkEnd::Scores(scores);
            }
            let Some(info) = frame.next else {
                unreachable!("a complete frame has a next player, scores or a failure")
            };
            if info.lines > 0 && self.turns.turn >= self.cfg.max_turns {
                return SdkEnd::TurnLimit;
            }
            request = self.turn(procs, info, &frame.input);
        }
    }

    /// The game parameters `[[INIT]]` sends: the seed (unless the user gave one), then the
    /// user's.
    fn params(&self, seed: u64) -> Vec<(String, String)> {
        let mut params = Vec::with_capacity(self.game.params.len() + 1);
        if !self.game.params.iter().any(|(k, _)| k == "seed") {
            // The engine reads the seed as a Java long.
            params.push(("seed".to_string(), (seed & i64::MAX as u64).to_string()));
        }
        params.extend(self.game.params.iter().cloned());
        params
    }

    /// Player `info.player`'s turn: its input, its answer lines on its clock; what the referee
    /// is told (its answer, or that it gave none).
    fn turn(&mut self, procs: &mut [BotProcess], info: PlayerInfo, input: &[String]) -> String {
        let seat = info.player;
        let time = |ms: u64| self.monitoring.then_some(ms);
        // A frame in which the referee executed no player asks for no answer, but its input
        // (often the game's global information, sent before the first turn) is the player's:
        // it reaches the bot with its next turn's input.
        if info.lines == 0 {
            for line in input {
                self.pending[seat].push_str(line);
                self.pending[seat].push('\n');
            }
            return protocol::player_output(time(0), &[]);
        }
        // A player out of the game gives no answer, as a dead process gives none on CodinGame.
        if self.turns.out[seat] {
            return protocol::PLAYER_TIMEOUT.to_string();
        }
        if self.game.game_limits {
            // The game's own limit: what the engine sends less the soft margin it adds (whose
            // overruns arbiter's grace and strikes count, as the game does).
            let soft = self.limits.map_or(Duration::ZERO, |l| l.soft);
            let limit = info
                .limit
                .saturating_sub(soft)
                .max(Duration::from_millis(1));
            self.cfg.time.first_turn = limit;
            self.cfg.time.turn = limit;
        }
        self.turns.game_turn = Some(self.game_turn.max(1));
        let mut text = std::mem::take(&mut self.pending[seat]);
        for line in input {
            text.push_str(line);
            text.push('\n');
        }
        let answered = match self
            .turns
            .ask(procs, seat, text.as_bytes(), info.lines, &self.cfg)
        {
            Ok(a) => a,
            Err(LoopEnd::Forfeit(seat, verdict)) => {
                procs[seat].shutdown(self.cfg.kill_grace);
                self.turns.out[seat] = true;
                let turn = self.game_turn.max(1);
                self.turns.forfeits.push(Forfeit::of(seat, &verdict, turn));
                return protocol::PLAYER_TIMEOUT.to_string();
            }
            Err(LoopEnd::Outcome(..)) => unreachable!("asking a seat ends no game by the rules"),
        };
        let lines: Vec<String> = answered
            .lines
            .iter()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect();
        let played = lines.join("\n");
        self.turns
            .record(procs, seat, &self.cfg, &answered, || Said {
                input: text,
                answer: played.clone(),
                comment: String::new(),
                played: played.clone(),
            });
        self.turns.moves.push(played);
        self.turns.turn += 1;
        // The time the referee checks against the game's own limit: what arbiter's clock
        // charged (the wall time less waiting and steal the fair clock excuses).
        let charged = match self.cfg.time.clock {
            crate::referee::Clock::Cpu => answered.cpu,
            _ => answered
                .wall
                .saturating_sub(answered.excused + answered.stolen),
        };
        protocol::player_output(time(charged.as_millis() as u64), &lines)
    }

    /// Reads one frame: messages up to the next turn, the game's end or a failure.
    fn frame(&mut self, seats: usize) -> Result<Frame, String> {
        self.since_request = 0;
        let mut frame = Frame::default();
        loop {
            let line = loop {
                let line = self.read_line()?;
                if !line.trim().is_empty() {
                    break line;
                }
            };
            let (cmd, count) = protocol::header(&line).map_err(|why| {
                format!(
                    "wrote \"{}\" where a message [[NAME] n] was expected: {why}",
                    escape(line.as_bytes(), 100)
                )
            })?;
            let mut lines = Vec::with_capacity(count.min(64));
            for _ in 0..count {
                lines.push(self.read_line()?);
            }
            let complete = frame
                .take(cmd, lines, seats)
                .map_err(|why| format!("wrote a bad message: {why}"))?;
            if complete {
                return Ok(frame);
            }
        }
    }

    /// Writes to the referee within its time per message. A referee that closed its input is
    /// not an error here: the read that follows says how it ended.
    fn send(&mut self, data: &[u8]) -> Result<(), String> {
        let limit = self.game.message_limit;
        match self.proc.send(data, Instant::now() + limit) {
            Ok(()) | Err(SendError::Closed) => Ok(()),
            Err(SendError::Full) => Err(format!(
                "did not read its input for {} (its time per message, {})",
                ms(limit),
                Opt::RefereeTimeoutMs
            )),
        }
    }

    /// The referee's next line (without its line end) within its time per message.
    fn read_line(&mut self) -> Result<String, String> {
        let limit = self.game.message_limit;
        let deadline = Instant::now() + limit;
        match bot::wait_line(std::slice::from_mut(&mut self.proc), 0, deadline) {
            Wait::Line(mut line, _) => {
                self.since_request += line.len() + 1;
                if self.since_request > MAX_FRAME_BYTES {
                    return Err(format!(
                        "wrote more than {} MiB without asking a player for an answer or ending the game",
                        MAX_FRAME_BYTES >> 20
                    ));
                }
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Ok(String::from_utf8_lossy(&line).into_owned())
            }
            Wait::Exited(status) => Err(format!("{} before its [[SCORES]]", describe_exit(status))),
            Wait::ClosedStdout => Err(self.closed_stdout()),
            Wait::TooLong => Err(format!(
                "wrote more than {} MiB without a newline",
                self.proc.out.max_line() >> 20
            )),
            Wait::Timeout => Err(format!(
                "wrote nothing for {} (its time per message, {})",
                ms(limit),
                Opt::RefereeTimeoutMs
            )),
        }
    }

    /// Why the referee's output ended, by its exit status where it shows within a second.
    fn closed_stdout(&mut self) -> String {
        let until = Instant::now() + EXIT_AFTER_CLOSE;
        loop {
            if let Some(status) = self.proc.try_exit_status() {
                return format!("{} before its [[SCORES]]", describe_exit(status));
            }
            if Instant::now() >= until {
                return "closed its standard output before its [[SCORES]]".into();
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// The last `keep` bytes of `text`, cut at a character boundary.
fn tail(text: &str, keep: usize) -> &str {
    let mut start = text.len().saturating_sub(keep);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_text_is_each_players_last_message_with_names() {
        let names = vec!["alpha".to_string(), "beta".to_string(), "gamma".to_string()];
        let messages = vec![
            (1, "$1 played \"x\": invalid action".to_string()),
            (0, "old".to_string()),
            (0, "$0 timed out".to_string()),
        ];
        assert_eq!(
            verdict_text(&messages, &names),
            "alpha: alpha timed out; beta: beta played \\\"x\\\": invalid action"
        );
        assert_eq!(verdict_text(&[], &names), "");
    }
}
