//! The page data as the pages were first built: whole `serde_json::Value` trees, steps then
//! columns. Kept for the tests only, as the reference the direct writer of
//! [`super::frames::page_json`] must match byte for byte (the viewer's script reads exactly
//! this format).

use crate::game::{BoardView, CellView};
use crate::report::html::frames::{fold_lists, Inputs};
use crate::results::rebuild::{rebuild, RebuildError, StepKind};
use crate::results::records::GameRecord;
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
pub fn game_data(rec: &GameRecord, title: &str, inputs: Inputs) -> Result<Value, RebuildError> {
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
    let mut turn = rec.opening.len() as u32;
    let mut seen = vec![false; rec.seats];
    for step in &rebuilt.steps {
        let mut s = serde_json::Map::new();
        // The turn is the previous step's plus one unless said.
        if step.turn != turn + 1 {
            s.insert("turn".into(), json!(step.turn));
        }
        turn = step.turn;
        s.insert("seat".into(), json!(step.seat));
        s.insert("ch".into(), Value::Array(changes(before, &step.view)));
        if step.view.notes != before.notes {
            s.insert("notes".into(), json!(step.view.notes));
        }
        if let Some(input) = &step.input {
            // The first turn of a seat has its own limit.
            let first = !std::mem::replace(&mut seen[step.seat], true);
            if first {
                s.insert("first".into(), json!(1));
            }
            let telling = first
                || matches!(step.kind, StepKind::Forfeit(_))
                || matches!(step.kind, StepKind::Move(i) if rec.is_late(i));
            if inputs == Inputs::All || telling {
                s.insert("input".into(), json!(fold_lists(input)));
            }
        }
        match step.kind {
            StepKind::Opening => {
                s.insert("kind".into(), json!("opening"));
                s.insert("move".into(), json!(step.text));
            }
            StepKind::Move(i) => {
                s.insert("kind".into(), json!("move"));
                s.insert("move".into(), json!(step.text));
                let answer = rec.answer(i);
                let comment = rec.comment(i);
                let plain = if comment.is_empty() {
                    answer == step.text
                } else {
                    answer == format!("{} {comment}", step.text)
                };
                if !plain {
                    s.insert("answer".into(), json!(answer));
                }
                if !comment.is_empty() {
                    s.insert("comment".into(), json!(comment));
                }
                let err = rec.turn_stderr(i);
                if !err.is_empty() {
                    s.insert("err".into(), json!(err));
                }
                if let (Some(w), Some(c)) = (rec.wall_us.get(i), rec.cpu_us.get(i)) {
                    s.insert("wall_us".into(), json!(w));
                    s.insert("cpu_us".into(), json!(c));
                }
                if rec.is_late(i) {
                    strikes[step.seat] += 1;
                    s.insert("late".into(), json!(1));
                }
                if strikes[step.seat] > 0 {
                    s.insert("strikes".into(), json!(strikes[step.seat]));
                }
            }
            StepKind::Forfeit(i) => {
                let f = &rec.forfeits[i];
                s.insert("kind".into(), json!("forfeit"));
                s.insert("reason".into(), json!(f.reason));
                s.insert("detail".into(), json!(f.detail));
                s.insert("strikes".into(), json!(strikes[step.seat]));
                // What the seat wrote to stderr last (the record keeps its tail).
                if let Some(tail) = rec.stderr.get(step.seat).filter(|t| !t.is_empty()) {
                    s.insert("err".into(), json!(tail));
                }
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
        "inputs": if inputs == Inputs::All { "all" } else { "telling" },
        "moves": rec.moves.len(),
        "opening": rec.opening.len(),
        "seats": rec.seats,
        "seed": rec.seed.to_string(),
        "bots": rec.bots,
        "colours": super::seats::palette(rec)
            .iter()
            .map(|c| json!([c.name, c.fill, c.ink]))
            .collect::<Vec<_>>(),
        "clocks": rec.clocks,
        "shape": start.shape,
        "diagonals": start.diagonals,
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
            "placings": super::viewer::placings(&rec.bots, &rec.ranks),
            "scores_text": super::viewer::scores_text(&rec.bots, &rec.scores),
            "verdict": super::viewer::verdict(rec),
        },
    }))
}

/// `data` with its steps turned into columns (`{"input": [...], "move": [...], ...}`, `null`
/// where a step has no such field), as the page embeds it: like values side by side compress
/// to a quarter less than whole steps one after the other.
pub fn columns(data: &Value) -> Value {
    let mut out = data.clone();
    let Some(steps) = data["steps"].as_array() else {
        return out;
    };
    let mut cols: serde_json::Map<String, Value> = serde_json::Map::new();
    for (i, step) in steps.iter().enumerate() {
        for (k, v) in step.as_object().into_iter().flatten() {
            let col = cols
                .entry(k.clone())
                .or_insert_with(|| Value::Array(Vec::new()));
            let col = col.as_array_mut().expect("columns are arrays");
            col.resize(i, Value::Null);
            col.push(v.clone());
        }
    }
    for col in cols.values_mut() {
        col.as_array_mut()
            .expect("columns are arrays")
            .resize(steps.len(), Value::Null);
    }
    out["steps"] = json!({ "n": steps.len(), "cols": cols });
    out
}
