//! The data a replay page embeds: the board's cells once, then each step of the game as the
//! cells it changed, with the input sent, the answer, the clocks and the verdict. Built in Rust
//! by replaying the record through the rules, so the page's script only draws.

use crate::game::{BoardView, CellView};
use crate::report::rebuild::{rebuild, RebuildError, StepKind};
use crate::report::records::GameRecord;
use serde_json::{json, Value};

/// A cell's pieces as `[[seat, label], ...]`, bottom first.
fn pieces(c: &CellView) -> Value {
    Value::Array(c.pieces.iter().map(|p| json!([p.seat, p.label])).collect())
}

/// The cells of `after` that differ from `before`: `[index, pieces]`, with the mark when it
/// changed too.
fn changes(before: &BoardView, after: &BoardView) -> Vec<Value> {
    let mut out = Vec::new();
    for (i, a) in after.cells.iter().enumerate() {
        match before.cells.get(i) {
            Some(b) if b.pieces == a.pieces && b.mark == a.mark => {}
            Some(b) if b.mark == a.mark => out.push(json!([i, pieces(a)])),
            _ => out.push(json!([i, pieces(a), a.mark])),
        }
    }
    out
}

/// Everything a replay page shows of one game, as JSON.
pub fn game_data(rec: &GameRecord, title: &str) -> Result<Value, RebuildError> {
    let rebuilt = rebuild(rec)?;
    let start = &rebuilt.start;
    let cells: Vec<Value> = start
        .cells
        .iter()
        .map(|c| json!([c.name, c.col, c.row, c.mark]))
        .collect();
    let start_pieces: Vec<Value> = start
        .cells
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.pieces.is_empty())
        .map(|(i, c)| json!([i, pieces(c)]))
        .collect();
    let mut steps = Vec::with_capacity(rebuilt.steps.len());
    let mut before = start;
    let mut strikes = vec![0u32; rec.seats];
    let mut seen = vec![false; rec.seats];
    for step in &rebuilt.steps {
        let mut s = serde_json::Map::new();
        s.insert("turn".into(), json!(step.turn));
        s.insert("seat".into(), json!(step.seat));
        s.insert("ch".into(), Value::Array(changes(before, &step.view)));
        if step.view.notes != before.notes {
            s.insert("notes".into(), json!(step.view.notes));
        }
        if let Some(input) = &step.input {
            s.insert("input".into(), json!(input));
            let first = !std::mem::replace(&mut seen[step.seat], true);
            let limit = if first {
                rec.clocks.first_turn_us
            } else {
                rec.clocks.turn_us
            };
            s.insert("limit_us".into(), json!(limit));
        }
        match step.kind {
            StepKind::Opening => {
                s.insert("kind".into(), json!("opening"));
                s.insert("move".into(), json!(step.text));
            }
            StepKind::Move(i) => {
                s.insert("kind".into(), json!("move"));
                s.insert("move".into(), json!(step.text));
                s.insert("answer".into(), json!(rec.answer(i)));
                s.insert("comment".into(), json!(rec.comment(i)));
                if let (Some(w), Some(c)) = (rec.wall_us.get(i), rec.cpu_us.get(i)) {
                    s.insert("wall_us".into(), json!(w));
                    s.insert("cpu_us".into(), json!(c));
                }
                if rec.is_late(i) {
                    strikes[step.seat] += 1;
                    s.insert("late".into(), json!(true));
                }
                s.insert("strikes".into(), json!(strikes[step.seat]));
            }
            StepKind::Forfeit(i) => {
                let f = &rec.forfeits[i];
                s.insert("kind".into(), json!("forfeit"));
                s.insert("reason".into(), json!(f.reason));
                s.insert("detail".into(), json!(f.detail));
                s.insert("strikes".into(), json!(strikes[step.seat]));
            }
        }
        steps.push(Value::Object(s));
        before = &step.view;
    }
    Ok(json!({
        "title": title,
        "game": rec.game,
        "variant": rec.variant,
        "game_id": rec.game_id,
        "seed": rec.seed,
        "bots": rec.bots,
        "clocks": rec.clocks,
        "shape": start.shape,
        "cells": cells,
        "start": { "p": start_pieces, "notes": start.notes },
        "steps": steps,
        "end": {
            "reason": rec.reason,
            "detail": rec.detail,
            "ranks": rec.ranks,
            "scores": rec.scores,
            "offender": rec.offender,
            "stderr": rec.stderr,
            "stderr_bytes": rec.stderr_bytes,
            "position": rebuilt.final_position,
        },
    }))
}

/// JSON text safe inside a `<script>` element: every `<` escaped, so no `</script>` or
/// `<!--` in a bot's comment or stderr can end the element.
pub fn script_json(v: &Value) -> String {
    serde_json::to_string(v)
        .expect("JSON values serialise")
        .replace('<', "\\u003c")
}
