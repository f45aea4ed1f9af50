//! The line protocol between a CodinGame SDK referee (`RefereeMain`) and the runner that plays
//! it, as the engine's `GameManager` speaks it. Every message is a header `[[NAME] n]` followed
//! by `n` lines. The runner writes `[[INIT] n]` (the player count, then `KEY=VALUE` game
//! parameters, the seed among them), then before each frame `[[GET_GAME_INFO] 0]`, and after a
//! player's turn `[[SET_PLAYER_OUTPUT] n]` (its answer lines, after its time in milliseconds
//! once the referee asked for `[[MONITORING]]`) or `[[SET_PLAYER_TIMEOUT] 0]` (no answer: a
//! timeout or a crash). The referee answers each `GET_GAME_INFO` with a frame: `[[VIEW]]`,
//! `[[INFOS]]`, `[[SUMMARY]]`, `[[TOOLTIP]]`s, then either the next turn
//! (`[[NEXT_PLAYER_INPUT]]` and `[[NEXT_PLAYER_INFO]]`: player, answer lines, time limit in
//! ms) or the game's end (`[[UINPUT]]`, `[[METADATA]]`, `[[SCORES]]`: `player score` lines);
//! `[[FAIL]]` (a stack trace) when the referee itself failed. arbiter's launcher adds one
//! message before each frame's `[[VIEW]]`, `[[ARBITER_STATE]]`: the game's own time limits and
//! which players it still has. Pure: reading and writing text.

use std::time::Duration;

/// The runner's request for the next frame.
pub const GET_GAME_INFO: &str = "[[GET_GAME_INFO] 0]\n";

/// The runner's message for a player that gave no answer (a timeout or a crash, as CodinGame's
/// runner tells both).
pub const PLAYER_TIMEOUT: &str = "[[SET_PLAYER_TIMEOUT] 0]\n";

/// Most answer lines a referee may ask of one player in one turn.
pub const MAX_LINES: usize = 1000;

/// The messages a referee writes (an unknown name is read and its lines skipped: a later
/// engine may add messages a runner need not know).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SdkCommand {
    View,
    Infos,
    NextPlayerInput,
    NextPlayerInfo,
    Scores,
    Uinput,
    Tooltip,
    Summary,
    Metadata,
    Fail,
    Monitoring,
    /// arbiter's launcher's `[[ARBITER_STATE]]`.
    State,
    Other(String),
}

impl SdkCommand {
    fn named(name: &str) -> SdkCommand {
        match name {
            "VIEW" => SdkCommand::View,
            "INFOS" => SdkCommand::Infos,
            "NEXT_PLAYER_INPUT" => SdkCommand::NextPlayerInput,
            "NEXT_PLAYER_INFO" => SdkCommand::NextPlayerInfo,
            "SCORES" => SdkCommand::Scores,
            "UINPUT" => SdkCommand::Uinput,
            "TOOLTIP" => SdkCommand::Tooltip,
            "SUMMARY" => SdkCommand::Summary,
            "METADATA" => SdkCommand::Metadata,
            "FAIL" => SdkCommand::Fail,
            "MONITORING" => SdkCommand::Monitoring,
            "ARBITER_STATE" => SdkCommand::State,
            other => SdkCommand::Other(other.to_string()),
        }
    }
}

/// Reads a header line `[[NAME] n]` (as the engine's own pattern does: a space before the count
/// is optional); `Err` says why the line is not one.
pub fn header(line: &str) -> Result<(SdkCommand, usize), String> {
    let line = line.trim();
    let inner = line
        .strip_prefix("[[")
        .and_then(|l| l.strip_suffix(']'))
        .ok_or("not a message header [[NAME] n]")?;
    let (name, count) = inner
        .rsplit_once(']')
        .ok_or("not a message header [[NAME] n]")?;
    let count = count.trim_start_matches(' ');
    if name.is_empty() || count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return Err("not a message header [[NAME] n]".into());
    }
    let n = count
        .parse::<usize>()
        .map_err(|_| format!("line count {count} is too large"))?;
    Ok((SdkCommand::named(name), n))
}

/// `[[INIT]]`: the player count and the game parameters (`KEY=VALUE`, the seed among them).
pub fn init(seats: usize, params: &[(String, String)]) -> String {
    let mut text = format!("[[INIT] {}]\n{seats}\n", params.len() + 1);
    for (key, value) in params {
        text.push_str(&format!("{key}={value}\n"));
    }
    text
}

/// `[[SET_PLAYER_OUTPUT]]`: a player's answer lines, after its time in milliseconds where the
/// referee asked for it (`[[MONITORING]]`).
pub fn player_output(time_ms: Option<u64>, lines: &[String]) -> String {
    let count = lines.len() + usize::from(time_ms.is_some());
    let mut text = format!("[[SET_PLAYER_OUTPUT] {count}]\n");
    if let Some(ms) = time_ms {
        text.push_str(&format!("{ms}\n"));
    }
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Whose turn it is (`[[NEXT_PLAYER_INFO]]`): the player, how many lines it answers, and the
/// turn's time limit the game gives (its limit plus the engine's soft 50 ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerInfo {
    pub player: usize,
    pub lines: usize,
    pub limit: Duration,
}

/// The game's own time limits, as its `GameManager` holds them (`[[ARBITER_STATE]]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameLimits {
    /// A player's first turn.
    pub first_turn: Duration,
    /// Every later turn.
    pub turn: Duration,
    /// What the engine adds to each limit it sends in `[[NEXT_PLAYER_INFO]]` (engines from
    /// 4.7.2: 50 ms, a soft margin whose overruns the game itself counts); zero with a time
    /// bank.
    pub soft: Duration,
    /// The game gives each player a time bank (`setTimebank`): each turn's limit is what is
    /// left of it.
    pub timebank: bool,
}

/// What arbiter's launcher tells of the game before a frame (`[[ARBITER_STATE]]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub limits: GameLimits,
    /// Which players the game still has (not deactivated), by index.
    pub active: Vec<bool>,
}

/// One frame of the referee: what it wrote after a `[[GET_GAME_INFO]]`, up to the next
/// player's turn, the game's end or its failure.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The view's lines (`KEY_FRAME n` and the frame's JSON).
    pub view: Vec<String>,
    /// The frame is the first of a game turn (its view is a `KEY_FRAME`): the engine's game
    /// turns are counted so.
    pub key: bool,
    /// What the launcher told before the frame.
    pub state: Option<State>,
    pub summary: Vec<String>,
    /// (player, message) pairs: the game's notes on a player, its deactivations among them.
    pub tooltips: Vec<(usize, String)>,
    /// The next player's input lines.
    pub input: Vec<String>,
    pub next: Option<PlayerInfo>,
    /// The game's end: each player's score, by player index.
    pub scores: Option<Vec<i64>>,
    /// The game's parameters as the referee used them (`KEY=VALUE`), at its end.
    pub params: Vec<String>,
    /// The referee's failure: its stack trace.
    pub fail: Option<String>,
    /// The referee asked for each answer's time (`[[MONITORING]]`).
    pub monitoring: bool,
}

impl Frame {
    /// Takes one message of a game of `seats` players; `Ok(true)` once the frame is complete
    /// (the next player's turn, the game's end, or a failure). `Err` says what is wrong.
    pub fn take(
        &mut self,
        cmd: SdkCommand,
        lines: Vec<String>,
        seats: usize,
    ) -> Result<bool, String> {
        match cmd {
            SdkCommand::View => {
                self.key = lines.first().is_some_and(|l| l.starts_with("KEY_FRAME"));
                self.view = lines;
            }
            SdkCommand::State => self.state = Some(state(&lines, seats)?),
            SdkCommand::Summary => self.summary = lines,
            SdkCommand::Tooltip => self.tooltips = tooltips(&lines, seats)?,
            SdkCommand::NextPlayerInput => self.input = lines,
            SdkCommand::NextPlayerInfo => {
                self.next = Some(player_info(&lines, seats)?);
                return Ok(true);
            }
            SdkCommand::Scores => {
                self.scores = Some(scores(&lines, seats)?);
                return Ok(true);
            }
            SdkCommand::Uinput => self.params = lines,
            SdkCommand::Fail => {
                self.fail = Some(lines.join("\n"));
                return Ok(true);
            }
            SdkCommand::Monitoring => self.monitoring = true,
            SdkCommand::Infos | SdkCommand::Metadata | SdkCommand::Other(_) => {}
        }
        Ok(false)
    }
}

/// Reads `[[NEXT_PLAYER_INFO]]`'s three lines.
fn player_info(lines: &[String], seats: usize) -> Result<PlayerInfo, String> {
    let [player, count, limit] = lines else {
        return Err(format!(
            "[[NEXT_PLAYER_INFO]] has {} lines (3 expected: player, answer lines, time limit)",
            lines.len()
        ));
    };
    let number = |text: &str, what: &str| {
        text.trim()
            .parse::<u64>()
            .map_err(|_| format!("[[NEXT_PLAYER_INFO]]'s {what} \"{}\" is not a number", text))
    };
    let player = number(player, "player")? as usize;
    if player >= seats {
        return Err(format!(
            "[[NEXT_PLAYER_INFO]] asks player {player}, but the game has {seats} players (0 to {})",
            seats - 1
        ));
    }
    let lines = number(count, "answer line count")? as usize;
    if lines > MAX_LINES {
        return Err(format!(
            "[[NEXT_PLAYER_INFO]] asks for {lines} answer lines (at most {MAX_LINES})"
        ));
    }
    let limit = Duration::from_millis(number(limit, "time limit")?);
    Ok(PlayerInfo {
        player,
        lines,
        limit,
    })
}

/// Reads `[[ARBITER_STATE]]`: `limits=FIRST TURN SOFT TIMEBANK` (milliseconds, 1 for a time
/// bank) and `active=1 0 ...` (one flag a player).
fn state(lines: &[String], seats: usize) -> Result<State, String> {
    let bad = || format!("[[ARBITER_STATE]] {lines:?} is not `limits=F T S B`, `active=1 0 ...`");
    let mut limits = None;
    let mut active = None;
    for line in lines {
        if let Some(words) = line.strip_prefix("limits=") {
            let n: Vec<u64> = words
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|_| bad())?;
            let [first, turn, soft, bank] = n[..] else {
                return Err(bad());
            };
            limits = Some(GameLimits {
                first_turn: Duration::from_millis(first),
                turn: Duration::from_millis(turn),
                soft: Duration::from_millis(soft),
                timebank: bank == 1,
            });
        } else if let Some(flags) = line.strip_prefix("active=") {
            let flags: Vec<bool> = flags
                .split_whitespace()
                .map(|f| match f {
                    "1" => Ok(true),
                    "0" => Ok(false),
                    _ => Err(bad()),
                })
                .collect::<Result<_, _>>()?;
            if flags.len() != seats {
                return Err(bad());
            }
            active = Some(flags);
        }
    }
    match (limits, active) {
        (Some(limits), Some(active)) => Ok(State { limits, active }),
        _ => Err(bad()),
    }
}

/// Reads `[[SCORES]]`: one `player score` line each (a player left out scores 0, as on
/// CodinGame's runner).
fn scores(lines: &[String], seats: usize) -> Result<Vec<i64>, String> {
    let mut scores = vec![0; seats];
    for line in lines {
        let mut words = line.split_whitespace();
        let (Some(p), Some(s), None) = (words.next(), words.next(), words.next()) else {
            return Err(format!("[[SCORES]] line \"{line}\" is not `player score`"));
        };
        let p: usize = p
            .parse()
            .ok()
            .filter(|&p| p < seats)
            .ok_or_else(|| format!("[[SCORES]] names player \"{p}\" of a game of {seats}"))?;
        scores[p] = s
            .parse()
            .map_err(|_| format!("[[SCORES]] gives player {p} the score \"{s}\""))?;
    }
    Ok(scores)
}

/// Reads `[[TOOLTIP]]`: pairs of lines, the message then the player's index.
fn tooltips(lines: &[String], seats: usize) -> Result<Vec<(usize, String)>, String> {
    lines
        .chunks(2)
        .map(|pair| match pair {
            [text, player] => player
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&p| p < seats)
                .map(|p| (p, text.clone()))
                .ok_or_else(|| format!("[[TOOLTIP]] names player \"{player}\"")),
            _ => Err("[[TOOLTIP]] has an odd number of lines (message, player pairs)".into()),
        })
        .collect()
}

/// The ranks (0 = first, equal = tie) of the game's scores: the higher score ranks first.
pub fn ranks_of_scores(scores: &[i64]) -> Vec<u8> {
    scores
        .iter()
        .map(|s| scores.iter().filter(|o| *o > s).count() as u8)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn headers_read_as_the_engine_writes_them_and_garbage_says_why() {
        assert_eq!(header("[[VIEW] 2]"), Ok((SdkCommand::View, 2)));
        assert_eq!(header("[[INFOS]0]"), Ok((SdkCommand::Infos, 0)));
        assert_eq!(
            header("[[NEXT_PLAYER_INFO] 3]\r"),
            Ok((SdkCommand::NextPlayerInfo, 3))
        );
        assert_eq!(
            header("[[SOMETHING_NEW] 1]"),
            Ok((SdkCommand::Other("SOMETHING_NEW".into()), 1))
        );
        for bad in ["hello", "[[VIEW]]", "[[VIEW] x]", "[VIEW] 1]", "[[] 1]", ""] {
            assert!(header(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_runner_messages_are_the_engines() {
        assert_eq!(
            init(3, &[("seed".into(), "42".into()), ("a".into(), "b".into())]),
            "[[INIT] 3]\n3\nseed=42\na=b\n"
        );
        assert_eq!(init(2, &[]), "[[INIT] 1]\n2\n");
        assert_eq!(
            player_output(Some(12), &lines(&["MOVE 1", "WAIT"])),
            "[[SET_PLAYER_OUTPUT] 3]\n12\nMOVE 1\nWAIT\n"
        );
        assert_eq!(player_output(None, &[]), "[[SET_PLAYER_OUTPUT] 0]\n");
    }

    #[test]
    fn a_frame_is_complete_at_the_next_turn_the_end_or_a_failure() {
        let mut f = Frame::default();
        assert_eq!(f.take(SdkCommand::Monitoring, vec![], 3), Ok(false));
        assert_eq!(
            f.take(
                SdkCommand::Tooltip,
                lines(&["timeout!", "2", "bad", "0"]),
                3
            ),
            Ok(false)
        );
        assert_eq!(
            f.take(SdkCommand::NextPlayerInput, lines(&["5", "1 2"]), 3),
            Ok(false)
        );
        assert_eq!(
            f.take(SdkCommand::NextPlayerInfo, lines(&["1", "1", "150"]), 3),
            Ok(true)
        );
        assert!(f.monitoring);
        assert_eq!(
            f.tooltips,
            vec![(2, "timeout!".to_string()), (0, "bad".to_string())]
        );
        assert_eq!(
            f.next,
            Some(PlayerInfo {
                player: 1,
                lines: 1,
                limit: Duration::from_millis(150)
            })
        );
        let mut end = Frame::default();
        assert_eq!(
            end.take(SdkCommand::Scores, lines(&["0 10", "1 -1"]), 3),
            Ok(true)
        );
        assert_eq!(end.scores, Some(vec![10, -1, 0]));
        assert_eq!(
            Frame::default().take(SdkCommand::Fail, lines(&["java.lang.X", "  at Y"]), 2),
            Ok(true)
        );

        let err = |cmd, l: &[&str]| Frame::default().take(cmd, lines(l), 2).unwrap_err();
        assert!(err(SdkCommand::NextPlayerInfo, &["2", "1", "50"]).contains("asks player 2"));
        assert!(err(SdkCommand::NextPlayerInfo, &["0", "1"]).contains("has 2 lines"));
        assert!(err(SdkCommand::NextPlayerInfo, &["0", "x", "1"]).contains("\"x\""));
        assert!(err(SdkCommand::Scores, &["0"]).contains("not `player score`"));
        assert!(err(SdkCommand::Scores, &["5 1"]).contains("player \"5\""));
        assert!(err(SdkCommand::Tooltip, &["x"]).contains("odd number"));
    }

    /// The launcher's state before a frame: the game's limits and its active players; the view
    /// tells a game turn's first frame.
    #[test]
    fn the_launchers_state_and_key_frames_are_read() {
        let mut f = Frame::default();
        let state = lines(&["limits=1000 50 50 0", "active=1 0 1"]);
        assert_eq!(f.take(SdkCommand::State, state, 3), Ok(false));
        assert_eq!(
            f.state,
            Some(State {
                limits: GameLimits {
                    first_turn: Duration::from_millis(1000),
                    turn: Duration::from_millis(50),
                    soft: Duration::from_millis(50),
                    timebank: false,
                },
                active: vec![true, false, true],
            })
        );
        assert_eq!(header("[[ARBITER_STATE] 2]"), Ok((SdkCommand::State, 2)));
        f.take(SdkCommand::View, lines(&["KEY_FRAME 3", "{}"]), 3)
            .unwrap();
        assert!(f.key);
        f.take(SdkCommand::View, lines(&["INTERMEDIATE_FRAME 4", "{}"]), 3)
            .unwrap();
        assert!(!f.key);
        let err = |l: &[&str]| {
            Frame::default()
                .take(SdkCommand::State, lines(l), 2)
                .unwrap_err()
        };
        assert!(err(&["limits=1 2 3", "active=1 1"]).contains("ARBITER_STATE"));
        assert!(err(&["limits=1 2 3 0", "active=1"]).contains("ARBITER_STATE"));
        assert!(err(&["active=1 1"]).contains("ARBITER_STATE"));
    }

    #[test]
    fn higher_scores_rank_first_and_equal_scores_tie() {
        assert_eq!(ranks_of_scores(&[3, 7]), vec![1, 0]);
        assert_eq!(ranks_of_scores(&[5, -1, 5]), vec![0, 2, 0]);
        assert_eq!(ranks_of_scores(&[0, 0]), vec![0, 0]);
    }
}
