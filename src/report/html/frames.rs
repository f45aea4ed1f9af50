//! The data a replay page embeds: the board's cells once, then each step of the game as the
//! cells it changed, with the input sent, the answer, the stderr of the turn, the clocks and the
//! verdict. Built in Rust by replaying the record through the rules, so the page's script only
//! draws. What is the same for most steps is left out (an answer that is just the move, no
//! comment, no strike), long lists of legal moves in the inputs are folded, and the whole is
//! compressed ([`packed`]): a 200-turn game is a few kilobytes.
//!
//! A page is written while games are played (the live report), so it is written cheaply: the
//! JSON text straight into buffers, a column at a time, with no tree of values in between, and
//! each position compared with the one before as it is replayed.

use super::columns::{key, put, Col, Columns};
use crate::game::{BoardView, CellView, PieceView};
use crate::results::rebuild::{rebuild_each, RebuildError, ReplayStep, StepKind};
use crate::results::records::GameRecord;
use serde_json::Value;
use std::borrow::Cow;

/// Lists of more lines than this in an input (a count line followed by that many lines, as the
/// legal moves are sent) keep only their first [`FOLD_KEEP`] lines in a page.
pub const FOLD_OVER: usize = 60;
/// The lines of a folded list a page keeps.
pub const FOLD_KEEP: usize = 40;

/// The count a line holds when it is a list's count line, else 0.
fn count_of(line: &str) -> usize {
    line.trim().parse::<usize>().unwrap_or(0)
}

/// `input` with each list of more than [`FOLD_OVER`] lines (a line holding a count `n`, then
/// `n` lines) cut to its first [`FOLD_KEEP`] and a line saying how many were left out; `input`
/// itself (no copy) when it has no such list, as most inputs have none.
pub fn fold_lists(input: &str) -> Cow<'_, str> {
    // Lines: the newlines, and a last line without one.
    let total = input.bytes().filter(|&b| b == b'\n').count()
        + usize::from(!input.is_empty() && !input.ends_with('\n'));
    if total <= FOLD_OVER + 1 {
        return Cow::Borrowed(input);
    }
    // The first list to fold is the first count line, in order, whose list fits in the input.
    let folds = input.split_inclusive('\n').enumerate().any(|(i, line)| {
        let n = count_of(line);
        n > FOLD_OVER && i + 1 + n <= total
    });
    if !folds {
        return Cow::Borrowed(input);
    }
    let lines: Vec<&str> = input.split_inclusive('\n').collect();
    let mut out = String::with_capacity(input.len().min(8 * 1024));
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        out.push_str(line);
        i += 1;
        let n = count_of(line);
        if n > FOLD_OVER && i + n <= lines.len() {
            for l in &lines[i..i + FOLD_KEEP] {
                out.push_str(l);
            }
            out.push_str(&format!(
                "\u{2026} {} more lines of this list not kept in the page\n",
                n - FOLD_KEEP
            ));
            i += n;
        }
    }
    Cow::Owned(out)
}

/// Two short texts alike (most are empty or a few bytes, compared here: a library call costs
/// more than the comparison).
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len()
        && if a.len() <= 16 {
            a.iter().zip(b).all(|(x, y)| x == y)
        } else {
            a == b
        }
}

/// Two cells that look the same: the same pieces (owner and label, bottom first) and mark.
/// The name and place never change within a game.
fn same_cell(a: &CellView, b: &CellView) -> bool {
    a.pieces.len() == b.pieces.len()
        && a.pieces
            .iter()
            .zip(&b.pieces)
            .all(|(p, q)| p.seat == q.seat && same_text(&p.label, &q.label))
        && same_text(&a.mark, &b.mark)
}

/// Appends a cell's pieces as `[[seat,label],...]`, bottom first.
fn put_pieces(out: &mut Vec<u8>, pieces: &[PieceView]) {
    out.push(b'[');
    for (k, p) in pieces.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        out.push(b'[');
        put(out, &p.seat);
        out.push(b',');
        put(out, p.label.as_str());
        out.push(b']');
    }
    out.push(b']');
}

/// Appends the cells of `after` that differ from `before`: `[index,pieces]`, with the mark
/// when it changed too.
fn put_changes(out: &mut Vec<u8>, before: &BoardView, after: &BoardView) {
    out.push(b'[');
    let mut any = false;
    for (i, a) in after.cells.iter().enumerate() {
        let b = before.cells.get(i);
        if b.is_some_and(|b| same_cell(a, b)) {
            continue;
        }
        if std::mem::replace(&mut any, true) {
            out.push(b',');
        }
        out.push(b'[');
        put(out, &i);
        out.push(b',');
        put_pieces(out, &a.pieces);
        if !b.is_some_and(|b| same_text(&a.mark, &b.mark)) {
            out.push(b',');
            put(out, a.mark.as_str());
        }
        out.push(b']');
    }
    out.push(b']');
}

/// Which turns' inputs a game's replay data keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// Every turn's (a page of one game, `arbiter replay`).
    All,
    /// Only those that tell most: each seat's first turn, late turns and forfeits. A report
    /// keeps these alone: the inputs are most of a game's data (an Impasse input repeats the
    /// board and lists the legal moves), and a report's games are written while the run goes on
    /// (at most 5 KB a game, issue 39).
    Telling,
}

impl Inputs {
    fn name(self) -> &'static str {
        match self {
            Inputs::All => "all",
            Inputs::Telling => "telling",
        }
    }
}

/// What the steps need to carry from one to the next.
struct StepState<'a> {
    rec: &'a GameRecord,
    inputs: Inputs,
    cols: Columns,
    strikes: Vec<u32>,
    turn: u32,
    seen: Vec<bool>,
}

impl StepState<'_> {
    /// Writes one step's fields into the columns.
    fn add(&mut self, step: &ReplayStep, before: &BoardView) {
        let rec = self.rec;
        let cols = &mut self.cols;
        // The turn is the previous step's plus one unless said.
        if step.turn != self.turn + 1 {
            cols.put(Col::Turn, &step.turn);
        }
        self.turn = step.turn;
        cols.put(Col::Seat, &step.seat);
        put_changes(cols.at(Col::Ch), before, &step.view);
        if step.view.notes != before.notes {
            cols.put(Col::Notes, &step.view.notes);
        }
        if let Some(input) = &step.input {
            // The first turn of a seat has its own limit.
            let first = !std::mem::replace(&mut self.seen[step.seat], true);
            if first {
                cols.put(Col::First, &1);
            }
            let telling = first
                || match step.kind {
                    StepKind::Move(i) => rec.is_late(i),
                    StepKind::Forfeit(_) => true,
                    StepKind::Opening => false,
                };
            if self.inputs == Inputs::All || telling {
                cols.put(Col::Input, fold_lists(input).as_ref());
            }
        }
        match step.kind {
            StepKind::Opening => {
                cols.put(Col::Kind, "opening");
                cols.put(Col::Move, step.text.as_str());
            }
            StepKind::Move(i) => {
                cols.put(Col::Kind, "move");
                cols.put(Col::Move, step.text.as_str());
                let comment = rec.comment(i);
                // The answer is shown when it was more than the move and its comment: a
                // record keeps only such answers (the step's text is the record's move).
                if let Some(answer) = rec.kept_answer(i) {
                    if !crate::protocol::is_plain_answer(answer, &step.text, comment) {
                        cols.put(Col::Answer, answer);
                    }
                }
                if !comment.is_empty() {
                    cols.put(Col::Comment, comment);
                }
                let err = rec.turn_stderr(i);
                if !err.is_empty() {
                    cols.put(Col::Err, err);
                }
                if let (Some(w), Some(c)) = (rec.wall_us.get(i), rec.cpu_us.get(i)) {
                    cols.put(Col::WallUs, w);
                    cols.put(Col::CpuUs, c);
                }
                if rec.is_late(i) {
                    self.strikes[step.seat] += 1;
                    cols.put(Col::Late, &1);
                }
                if self.strikes[step.seat] > 0 {
                    cols.put(Col::Strikes, &self.strikes[step.seat]);
                }
            }
            StepKind::Forfeit(i) => {
                let f = &rec.forfeits[i];
                cols.put(Col::Kind, "forfeit");
                cols.put(Col::Reason, f.reason.as_str());
                cols.put(Col::Detail, f.detail.as_str());
                cols.put(Col::Strikes, &self.strikes[step.seat]);
                // What the seat wrote to stderr last (the record keeps its tail).
                if let Some(tail) = rec.stderr.get(step.seat).filter(|t| !t.is_empty()) {
                    cols.put(Col::Err, tail.as_str());
                }
            }
        }
        cols.steps += 1;
    }
}

/// Everything a replay shows of one game, as the JSON text the viewer unpacks: the game,
/// its cells, its start, its steps as columns (`{"n":N,"cols":{"input":[...],...}}`, `null`
/// where a step has no such field: like values side by side compress to a quarter less than
/// whole steps one after the other; the turns' `inputs` kept), its end with the verdict's
/// texts, and the counts the summary line gives. Keys are in name order.
pub fn page_json(rec: &GameRecord, title: &str, inputs: Inputs) -> Result<Vec<u8>, RebuildError> {
    let mut state = StepState {
        rec,
        inputs,
        cols: Columns::default(),
        strikes: vec![0; rec.seats],
        turn: rec.opening.len() as u32,
        seen: vec![false; rec.seats],
    };
    let (start, last) = rebuild_each(rec, |step, before| state.add(step, before))?;
    let mut out = Vec::with_capacity(16 * 1024);
    out.push(b'{');
    key(&mut out, "bots");
    put(&mut out, &rec.bots);
    out.push(b',');
    key(&mut out, "cells");
    out.push(b'[');
    for (k, c) in start.cells.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        put(
            &mut out,
            &(&c.name, f64::from(c.col), f64::from(c.row), &c.mark),
        );
    }
    out.extend_from_slice(b"],");
    key(&mut out, "clocks");
    // Through a value, whose keys are in name order like the rest.
    put(
        &mut out,
        &serde_json::to_value(&rec.clocks).expect("clocks serialise"),
    );
    out.push(b',');
    key(&mut out, "colours");
    let colours: Vec<_> = super::seats::palette(rec)
        .iter()
        .map(|c| (c.name, c.fill, c.ink))
        .collect();
    put(&mut out, &colours);
    out.push(b',');
    key(&mut out, "diagonals");
    put(&mut out, &start.diagonals);
    out.push(b',');
    key(&mut out, "end");
    out.push(b'{');
    key(&mut out, "detail");
    put(&mut out, &rec.detail);
    out.push(b',');
    key(&mut out, "offender");
    put(&mut out, &rec.offender);
    out.push(b',');
    key(&mut out, "placings");
    put(&mut out, &super::viewer::placings(&rec.bots, &rec.ranks));
    out.push(b',');
    key(&mut out, "position");
    put(&mut out, &last.position_text());
    out.push(b',');
    key(&mut out, "ranks");
    put(&mut out, &rec.ranks);
    out.push(b',');
    key(&mut out, "reason");
    put(&mut out, &rec.reason);
    out.push(b',');
    key(&mut out, "scores");
    put(&mut out, &rec.scores);
    out.push(b',');
    key(&mut out, "scores_text");
    put(
        &mut out,
        &super::viewer::scores_text(&rec.bots, &rec.scores),
    );
    out.push(b',');
    key(&mut out, "stderr");
    put(&mut out, &rec.stderr);
    out.push(b',');
    key(&mut out, "stderr_bytes");
    put(&mut out, &rec.stderr_bytes);
    out.push(b',');
    key(&mut out, "verdict");
    put(&mut out, &super::viewer::verdict(rec));
    out.extend_from_slice(b"},");
    key(&mut out, "game");
    put(&mut out, &rec.game);
    out.push(b',');
    key(&mut out, "game_id");
    put(&mut out, &rec.game_id);
    out.push(b',');
    key(&mut out, "inputs");
    put(&mut out, inputs.name());
    out.push(b',');
    key(&mut out, "moves");
    put(&mut out, &rec.moves.len());
    out.push(b',');
    key(&mut out, "opening");
    put(&mut out, &rec.opening.len());
    out.push(b',');
    key(&mut out, "seats");
    put(&mut out, &rec.seats);
    out.push(b',');
    // As text: a seed may be past the integers a script's numbers hold exactly.
    key(&mut out, "seed");
    put(&mut out, &rec.seed.to_string());
    out.push(b',');
    key(&mut out, "shape");
    put(&mut out, &start.shape);
    out.push(b',');
    key(&mut out, "start");
    out.push(b'{');
    key(&mut out, "notes");
    put(&mut out, &start.notes);
    out.push(b',');
    key(&mut out, "p");
    out.push(b'[');
    let mut any = false;
    for (i, c) in start.cells.iter().enumerate() {
        if c.pieces.is_empty() {
            continue;
        }
        if std::mem::replace(&mut any, true) {
            out.push(b',');
        }
        out.push(b'[');
        put(&mut out, &i);
        out.push(b',');
        put_pieces(&mut out, &c.pieces);
        out.push(b']');
    }
    out.extend_from_slice(b"]},");
    key(&mut out, "steps");
    state.cols.finish(&mut out);
    out.push(b',');
    key(&mut out, "title");
    put(&mut out, title);
    out.push(b',');
    key(&mut out, "variant");
    put(&mut out, &rec.variant);
    out.push(b'}');
    Ok(out)
}

/// How hard a game's replay data is compressed (zlib's levels, 0 to 9), by zlib-rs (flate2's
/// `zlib-rs` backend). Measured on 1,000 pages of 214-turn Impasse games with every input
/// (49 KB of JSON each), the whole page's CPU on one CPU: level 3 1.0 ms with miniz_oxide,
/// 0.78 ms with zlib-rs, for pages of 11.8 and 12.3 KB; levels 4 and 6 cost 0.1 and 0.3 ms
/// more for 11.8 and 11.2 KB. A report's data keeps only the telling inputs ([`Inputs`]), some
/// 14 KB of JSON for an instant bots' Impasse game: there level 6 makes 3.9 KB in base64
/// against 4.3 KB at level 3 (and 3.8 at 9), for about 0.1 ms more (Python's zlib on 40 such
/// games, 2026-11-27).
pub const ZLIB_LEVEL: u32 = 6;

/// A game's replay data: the JSON compressed (zlib) and in base64, decompressed by the
/// viewer's script. Compression keeps repeated inputs, board rows and keys to a small part of their
/// text.
pub fn packed(v: &Value) -> String {
    pack(&serde_json::to_vec(v).expect("JSON values serialise"))
}

thread_local! {
    /// The compressor of this thread's pages, reset for each: a new one allocates and clears
    /// some 300 KB of tables (with page faults and an unmap each time), which cost more than a
    /// small page's compression.
    static ZLIB: std::cell::RefCell<Option<flate2::Compress>> = const { std::cell::RefCell::new(None) };
}

/// [`packed`] of JSON text already written ([`page_json`]).
pub fn pack(json: &[u8]) -> String {
    ZLIB.with(|cell| {
        let mut cell = cell.borrow_mut();
        let z = cell.get_or_insert_with(|| {
            flate2::Compress::new(flate2::Compression::new(ZLIB_LEVEL), true)
        });
        z.reset();
        let mut bytes = Vec::with_capacity(json.len() / 4 + 64);
        loop {
            let done = z.total_in() as usize;
            let status = z
                .compress_vec(&json[done..], &mut bytes, flate2::FlushCompress::Finish)
                .expect("compressing in memory cannot fail");
            if status == flate2::Status::StreamEnd {
                break;
            }
            bytes.reserve(bytes.capacity().max(64));
        }
        base64(&bytes)
    })
}

/// Standard base64 with padding (the page's script decodes it with `atob`).
pub(super) fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// JSON text safe inside a `<script>` element: every `<` escaped, so no `</script>` or
/// `<!--` in a bot's comment or stderr can end the element.
pub fn script_json(v: &Value) -> String {
    serde_json::to_string(v)
        .expect("JSON values serialise")
        .replace('<', "\\u003c")
}

#[cfg(test)]
mod base64_tests {
    use proptest::prelude::*;

    /// The hand-written encoder this module had before the crate: the crate must give the same
    /// text.
    fn reference(bytes: &[u8]) -> String {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for c in bytes.chunks(3) {
            let n = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            for k in 0..4 {
                if k <= c.len() {
                    out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    #[test]
    fn every_length_and_byte_is_encoded_as_before() {
        let all: Vec<u8> = (0..=255).collect();
        for len in 0..=all.len() {
            assert_eq!(super::base64(&all[..len]), reference(&all[..len]), "{len}");
        }
        assert_eq!(super::base64(b"PNG1"), "UE5HMQ==");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn any_bytes_are_encoded_as_before(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            prop_assert_eq!(super::base64(&bytes), reference(&bytes));
        }
    }
}
