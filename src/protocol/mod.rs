//! The CodinGame line protocol as the referee sees it: a length-limited line buffer for a bot's
//! output, and the parse of one answer line into a move text and a comment.
//!
//! Parsing is separate from legality: an answer that is not text at all is *malformed*, a
//! well-formed word that is not among the offered moves is *illegal*. The game never sees either.

use std::fmt::Write as _;

/// The longest answer the arena accepts, in bytes, not counting the line end.
pub const MAX_LINE_BYTES: usize = 10_000;

/// Bytes a bot wrote that the referee has not consumed yet. Lines a bot writes beyond its answer
/// stay here and become its next answers, as they do on CodinGame.
#[derive(Debug, Default)]
pub struct LineBuffer {
    buf: Vec<u8>,
    /// Start of the unconsumed bytes in `buf`.
    start: usize,
    /// How far from `start` the buffer is known to hold no `\n`.
    scanned: usize,
    /// Bytes received in all.
    received: u64,
    /// The longest line it holds before [`LineBuffer::overlong`]; 0 for [`MAX_LINE_BYTES`].
    max_line: usize,
}

impl LineBuffer {
    /// A buffer for a bot's answers, at most [`MAX_LINE_BYTES`] a line.
    pub fn new() -> Self {
        Self::with_max_line(MAX_LINE_BYTES)
    }

    /// A buffer whose lines may be `max_line` bytes long (an external referee's, which carry a
    /// bot's whole input).
    pub fn with_max_line(max_line: usize) -> Self {
        LineBuffer {
            buf: Vec::with_capacity(4096),
            start: 0,
            scanned: 0,
            received: 0,
            max_line,
        }
    }

    /// The longest line it holds.
    pub fn max_line(&self) -> usize {
        match self.max_line {
            0 => MAX_LINE_BYTES,
            n => n,
        }
    }

    /// Bytes the bot has written to stdout since it started.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Appends bytes read from the bot.
    pub fn extend(&mut self, data: &[u8]) {
        self.received += data.len() as u64;
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        } else if self.start > 64 * 1024 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(data);
    }

    /// Takes the next complete line, without its `\n` or `\r\n`.
    pub fn take_line(&mut self) -> Option<Vec<u8>> {
        let pending = &self.buf[self.start..];
        let pos = pending[self.scanned..].iter().position(|&b| b == b'\n');
        match pos {
            None => {
                self.scanned = pending.len();
                None
            }
            Some(p) => {
                let end = self.scanned + p;
                let mut line = pending[..end].to_vec();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.start += end + 1;
                self.scanned = 0;
                Some(line)
            }
        }
    }

    /// True when the unconsumed bytes hold no line end and are already longer than a line may be
    /// ([`LineBuffer::max_line`]). A `\r` at the end may be the start of a `\r\n` split over two writes: it is not
    /// counted, so the rule is the same however the bot's writes are cut.
    pub fn overlong(&self) -> bool {
        let pending = &self.buf[self.start..];
        let body = pending.strip_suffix(b"\r").unwrap_or(pending);
        body.len() > self.max_line() && !pending.contains(&b'\n')
    }

    /// Complete lines waiting to be consumed.
    pub fn complete_lines(&self) -> usize {
        self.buf[self.start..]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    /// The unconsumed bytes (for error messages).
    pub fn pending(&self) -> &[u8] {
        &self.buf[self.start..]
    }
}

/// A bot's answer, well-formed. The comment is shown, never judged: bytes that are not UTF-8
/// in it are replaced, not held against the bot.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer<'a> {
    /// A move text, to be checked against the offered moves.
    Move {
        text: &'a str,
        comment: std::borrow::Cow<'a, str>,
    },
    /// The word `random`: the referee plays a uniformly random offered move.
    Random { comment: std::borrow::Cow<'a, str> },
}

/// Why an answer line is not even a candidate move.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum Malformed {
    #[error("the answer is not valid UTF-8: \"{0}\"")]
    NotUtf8(String),
    #[error("the answer contains control characters: \"{0}\"")]
    ControlCharacters(String),
    #[error("the answer is an empty line")]
    Empty,
    #[error("the answer starts with a space: \"{0}\" (the move comes first; text after the first space is a comment)")]
    LeadingSpace(String),
    #[error("the answer is {0} bytes long, more than the {MAX_LINE_BYTES} an answer may have")]
    TooLong(usize),
}

/// Splits an answer line into the move and the comment (the text after the first space).
///
/// ```
/// use arbiter::protocol::{parse_answer, Answer};
/// assert_eq!(
///     parse_answer(b"f8g7c5 crowning!").unwrap(),
///     Answer::Move { text: "f8g7c5", comment: "crowning!".into() }
/// );
/// assert!(parse_answer(b"\xff").is_err());
/// ```
pub fn parse_answer(line: &[u8]) -> Result<Answer<'_>, Malformed> {
    if line.len() > MAX_LINE_BYTES {
        return Err(Malformed::TooLong(line.len()));
    }
    let (word, comment) = match line.iter().position(|&b| b == b' ') {
        Some(i) => (&line[..i], String::from_utf8_lossy(&line[i + 1..])),
        None => (line, std::borrow::Cow::Borrowed("")),
    };
    let word = std::str::from_utf8(word).map_err(|_| Malformed::NotUtf8(escape(line, 100)))?;
    if word.chars().any(char::is_control) {
        return Err(Malformed::ControlCharacters(escape(line, 100)));
    }
    if word.is_empty() {
        return Err(if line.is_empty() {
            Malformed::Empty
        } else {
            Malformed::LeadingSpace(escape(line, 100))
        });
    }
    if word == "random" {
        Ok(Answer::Random { comment })
    } else {
        Ok(Answer::Move {
            text: word,
            comment,
        })
    }
}

/// Whether `answer` says no more than its move `text` and `comment`: the move alone, or the move,
/// a space and the comment, as [`parse_answer`] splits it (compared in place: records and replay
/// pages ask it of every answer, and most answers are just the move).
///
/// ```
/// use arbiter::protocol::is_plain_answer;
/// assert!(is_plain_answer("f8g7c5 crowning!", "f8g7c5", "crowning!"));
/// assert!(!is_plain_answer("random", "f8g7c5", ""));
/// ```
pub fn is_plain_answer(answer: &str, text: &str, comment: &str) -> bool {
    if comment.is_empty() {
        return answer == text;
    }
    answer.len() == text.len() + 1 + comment.len()
        && answer.starts_with(text)
        && answer.as_bytes()[text.len()] == b' '
        && answer.ends_with(comment)
}

/// A hint for an answer that looks like debug output rather than a move (several words, or
/// punctuation moves never have), for the verdict's detail.
pub fn debug_hint(line: &[u8]) -> Option<&'static str> {
    let text = String::from_utf8_lossy(line);
    let word = text.split(' ').next().unwrap_or("");
    let looks_like_prose = word.ends_with(':')
        || word.contains('=')
        || (text.split_whitespace().count() >= 3
            && word.len() >= 3
            && word.chars().all(char::is_alphabetic));
    looks_like_prose.then_some(
        "it looks like debug output: a bot's stdout is its answers only; write debug output to stderr",
    )
}

/// Shows at most `max` bytes of `bytes` as printable text: ASCII as is, everything else as `\xNN`,
/// and `…` when cut.
pub fn escape(bytes: &[u8], max: usize) -> String {
    let mut out = String::with_capacity(bytes.len().min(max) + 4);
    for &b in bytes.iter().take(max) {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    if bytes.len() > max {
        out.push('…');
    }
    out
}

/// `text` as it may reach a terminal, a table or a page: every control character (escape
/// sequences, carriage returns, newlines, C1 controls) and every bidirectional override shown
/// as `\xNN` or `\u{NNNN}`, the rest as it is. Names and texts from bots, students and referees
/// pass through here before they are shown: a bot named `\x1b]0;title\x07` set the terminal's
/// title, and a newline in a name broke the standings table.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !hidden(c) => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:04x}}}", c as u32);
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

/// [`printable`] line by line: newlines kept, everything else escaped.
pub fn printable_lines(text: &str) -> String {
    text.split('\n')
        .map(printable)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A character that changes what a terminal shows instead of showing itself.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_escapes_what_a_terminal_would_obey() {
        assert_eq!(printable("greedy-2.1 élan"), "greedy-2.1 élan");
        assert_eq!(printable("a\x1b]0;pwned\x07b"), "a\\x1b]0;pwned\\x07b");
        assert_eq!(printable("two\nlines\r"), "two\\x0alines\\x0d");
        assert_eq!(printable("\u{9b}31m\u{202e}x"), "\\x9b31m\\u{202e}x");
        assert_eq!(printable_lines("one\x1b[2J\ntwo"), "one\\x1b[2J\ntwo");
    }

    fn feed(buf: &mut LineBuffer, data: &[u8]) {
        buf.extend(data);
    }

    #[test]
    fn lines_split_on_lf_and_crlf_and_keep_the_rest() {
        let mut b = LineBuffer::new();
        feed(&mut b, b"a1b2\r\nc3");
        assert_eq!(b.take_line().unwrap(), b"a1b2");
        assert_eq!(b.take_line(), None);
        feed(&mut b, b"d4\nextra\n");
        assert_eq!(b.complete_lines(), 2);
        assert_eq!(b.take_line().unwrap(), b"c3d4");
        assert_eq!(b.take_line().unwrap(), b"extra");
        assert_eq!(b.take_line(), None);
    }

    #[test]
    fn overlong_only_without_a_newline() {
        let mut b = LineBuffer::new();
        feed(&mut b, &vec![b'x'; MAX_LINE_BYTES]);
        assert!(!b.overlong());
        feed(&mut b, b"x");
        assert!(b.overlong());
        feed(&mut b, b"\n");
        assert!(!b.overlong());
    }

    #[test]
    fn answers_split_into_move_and_comment() {
        assert_eq!(
            parse_answer(b"a1b2 hello world").unwrap(),
            Answer::Move {
                text: "a1b2",
                comment: "hello world".into()
            }
        );
        assert_eq!(
            parse_answer(b"random why not").unwrap(),
            Answer::Random {
                comment: "why not".into()
            }
        );
        assert_eq!(parse_answer(b"").unwrap_err(), Malformed::Empty);
        assert!(matches!(
            parse_answer(b" a1b2"),
            Err(Malformed::LeadingSpace(_))
        ));
        assert_eq!(
            parse_answer(b"\xff\xfe\x01ab").unwrap_err(),
            Malformed::NotUtf8("\\xff\\xfe\\x01ab".into())
        );
        assert_eq!(
            parse_answer(b"a1\x07b2").unwrap_err(),
            Malformed::ControlCharacters("a1\\x07b2".into())
        );
    }

    #[test]
    fn escape_cuts_and_marks() {
        assert_eq!(escape(b"abcdef", 3), "abc…");
        assert_eq!(escape(b"a\tb", 10), "a\\x09b");
    }
}

#[cfg(test)]
mod answer_tests {
    use super::*;

    #[test]
    fn a_comment_that_is_not_utf8_does_not_spoil_the_move() {
        match parse_answer(b"a5b4 \xff\xfe").unwrap() {
            Answer::Move { text, comment } => {
                assert_eq!(text, "a5b4");
                assert_eq!(comment, "\u{fffd}\u{fffd}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_answer(b"\xffa5 ok"),
            Err(Malformed::NotUtf8(_))
        ));
    }

    #[test]
    fn debug_looking_answers_get_a_hint_and_moves_do_not() {
        assert!(debug_hint(b"Debug: thinking about a5b4").is_some());
        assert!(debug_hint(b"score=12 depth=3").is_some());
        assert!(debug_hint(b"evaluating the position now please wait").is_some());
        assert!(debug_hint(b"a5b4 best move so far").is_none());
        assert!(debug_hint(b"zz99").is_none());
    }

    #[test]
    fn a_leading_space_is_named_as_such() {
        let err = parse_answer(b" a5b4").unwrap_err().to_string();
        assert!(err.contains("starts with a space: \" a5b4\""), "{err}");
        assert_eq!(parse_answer(b""), Err(Malformed::Empty));
    }

    #[test]
    fn one_length_rule_however_the_writes_are_split() {
        let long = vec![b'x'; MAX_LINE_BYTES];
        // Exactly the limit is an answer, with \n or \r\n, whole or cut anywhere.
        for ending in [&b"\n"[..], &b"\r\n"[..]] {
            let mut whole = long.clone();
            whole.extend_from_slice(ending);
            for cut in [1, MAX_LINE_BYTES - 1, MAX_LINE_BYTES, MAX_LINE_BYTES + 1] {
                let cut = cut.min(whole.len());
                let mut buf = LineBuffer::new();
                buf.extend(&whole[..cut]);
                assert!(!buf.overlong(), "cut at {cut}");
                buf.extend(&whole[cut..]);
                let line = buf.take_line().unwrap();
                assert!(parse_answer(&line).is_ok());
            }
        }
        // One byte more is too long, whether seen before its newline or after.
        let mut buf = LineBuffer::new();
        buf.extend(&[b'x'; MAX_LINE_BYTES + 1]);
        assert!(buf.overlong());
        for n in [MAX_LINE_BYTES + 1, 12_000, 16_000] {
            let mut buf = LineBuffer::new();
            let mut whole = vec![b'x'; n];
            whole.push(b'\n');
            buf.extend(&whole);
            let line = buf.take_line().unwrap();
            assert_eq!(parse_answer(&line), Err(Malformed::TooLong(n)));
        }
    }
}
