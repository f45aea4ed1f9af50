//! What the record of an SDK game keeps besides every game's facts: the game's own frames, each
//! with its summary lines, its tooltips (the game's notes on players) and its view data (the
//! SDK's frames, so that a later viewer can draw the game's own graphics), size-capped.

use super::protocol::Frame;
use serde::{Deserialize, Serialize};

/// Most bytes of view data a record keeps per game (the engine's own hard quota is 1 MiB, so a
/// game within CodinGame's rules is kept whole); later frames keep their summaries only.
pub const VIEW_BYTES: usize = 1 << 20;

/// An SDK game's frames, in order (when turns are recorded), how many game turns it had and the
/// parameters it was played with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SdkLog {
    #[serde(default)]
    pub frames: Vec<SdkFrame>,
    /// The game turns the engine played (its own count: a turn in which every player answers
    /// at once is one), 0 in records written before it was kept.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub turns: u32,
    /// The game's parameters as the game used them (`KEY=VALUE`, its `[[UINPUT]]` at the end:
    /// the seed it played among them), empty in records written before they were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// Frames whose view was left out past [`VIEW_BYTES`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub views_cut: usize,
}

/// One frame of the game, as the referee wrote it before the answer `answer` (an index into
/// the record's moves; the last frame, the game's end, has the number of moves), after
/// `forfeits` of the record's forfeits: the frame follows step `answer + forfeits` of the game
/// (0: its start), whose outcome its summary and tooltips tell.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SdkFrame {
    pub answer: usize,
    /// The game turn the frame belongs to, as the engine numbers them from 1 (the game's end
    /// is one past its last turn); 0 in records written before it was kept.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub turn: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub forfeits: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<String>,
    /// (player, message) pairs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tooltips: Vec<(usize, String)>,
    /// The view's lines (`KEY_FRAME n`, then the frame's JSON), joined by newlines.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub view: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

/// A game's text about players as shown: the engine's token for player k's name (`$k`)
/// replaced by the bot's name (the higher tokens first, so `$10` is not read as `$1`).
pub fn with_names(text: &str, names: &[String]) -> String {
    let mut named = text.to_string();
    for (k, name) in names.iter().enumerate().rev() {
        named = named.replace(&format!("${k}"), name);
    }
    named
}

impl SdkLog {
    /// Keeps `frame` of game turn `turn`, read before answer number `answer` and after
    /// `forfeits` forfeits.
    pub fn keep(&mut self, frame: &Frame, answer: usize, forfeits: usize, turn: u32) {
        let mut view = frame.view.join("\n");
        let used: usize = self.frames.iter().map(|f| f.view.len()).sum();
        if used + view.len() > VIEW_BYTES {
            view.clear();
            self.views_cut += 1;
        }
        self.frames.push(SdkFrame {
            answer,
            turn,
            forfeits,
            summary: frame.summary.clone(),
            tooltips: frame.tooltips.clone(),
            view,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_past_the_cap_are_left_out_and_counted_but_summaries_stay() {
        let mut log = SdkLog::default();
        let big = Frame {
            view: vec!["KEY_FRAME 0".into(), "x".repeat(VIEW_BYTES / 3)],
            summary: vec!["$0 takes 3".into()],
            ..Frame::default()
        };
        log.keep(&big, 0, 0, 1);
        log.keep(&big, 1, 0, 2);
        log.keep(&big, 2, 1, 3);
        assert_eq!(log.frames.len(), 3);
        assert!(!log.frames[1].view.is_empty() && log.frames[2].view.is_empty());
        assert_eq!(log.views_cut, 1);
        assert_eq!(log.frames[2].summary, vec!["$0 takes 3".to_string()]);
        assert_eq!(log.frames[2].turn, 3);
        let json = serde_json::to_string(&log).unwrap();
        assert_eq!(serde_json::from_str::<SdkLog>(&json).unwrap(), log);
    }
}
