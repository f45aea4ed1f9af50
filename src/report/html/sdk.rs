//! The replay data of a CodinGame SDK game: no board (the game draws itself, from view frames
//! the record keeps for a later viewer, left out here), but the game told step by step as the
//! viewer steps through a board game: each answer with the player's input, its clocks and
//! stderr, each forfeit where it happened, and after each step what the game said of it (the
//! summary lines and tooltips of the frames the referee wrote next). The engine's `$k` tokens
//! read as the bots' names; the texts are the game's and the bots' own, shown as text.

use super::viewer::{placings, scores_text, verdict};
use crate::referee::sdk::record::{with_names, SdkLog};
use crate::results::records::{ExternalRecord, GameRecord};
use serde_json::{json, Value};

/// What the game said after one step: its summary lines and its `[seat, text]` tooltips.
#[derive(Default)]
struct StepSaid {
    summary: Vec<String>,
    tooltips: Vec<(usize, String)>,
}

/// The JSON text of `rec`'s replay data (an SDK game's record: its external part with the
/// game's `log`), titled `title`, in the shape the viewer steps through (`steps` as a list).
pub fn json(rec: &GameRecord, ext: &ExternalRecord, log: &SdkLog, title: &str) -> Vec<u8> {
    // The steps in the order they happened: each forfeit after the answers before it.
    let mut order: Vec<(usize, Option<usize>)> = rec
        .forfeits
        .iter()
        .enumerate()
        .map(|(k, _)| (answers_before(rec, log, k), Some(k)))
        .collect();
    order.extend((0..rec.moves.len()).map(|i| (i, None)));
    // At one count of answers, the forfeit comes before the answer (it was asked first).
    order.sort_by_key(|&(at, f)| (at, f.is_none()));
    let mut said: Vec<StepSaid> = (0..=order.len()).map(|_| StepSaid::default()).collect();
    for frame in &log.frames {
        // The steps before the frame: its answers, arbiter's forfeits it counts, and the
        // players the game deactivated in turns before it.
        let deactivated = rec
            .forfeits
            .iter()
            .filter(|f| f.reason == crate::referee::Reason::Deactivated && f.turn < frame.turn)
            .count();
        let after = (frame.answer + frame.forfeits + deactivated).min(order.len());
        let s = &mut said[after];
        s.summary
            .extend(frame.summary.iter().map(|l| with_names(l, &rec.bots)));
        s.tooltips.extend(
            frame
                .tooltips
                .iter()
                .map(|(seat, t)| (*seat, with_names(t, &rec.bots))),
        );
    }
    let mut strikes = vec![0u32; rec.seats];
    let mut steps = Vec::with_capacity(order.len());
    for (k, &(at, forfeit)) in order.iter().enumerate() {
        let mut step = match forfeit {
            Some(f) => {
                let f = &rec.forfeits[f];
                let mut s = json!({
                    "kind": "forfeit",
                    "seat": f.seat,
                    "turn": f.turn,
                    "reason": f.reason.as_str(),
                    "detail": f.detail,
                    "strikes": strikes.get(f.seat).copied().unwrap_or(0),
                });
                if let Some(tail) = rec.stderr.get(f.seat).filter(|t| !t.is_empty()) {
                    s["err"] = json!(tail);
                }
                s
            }
            None => {
                let seat = rec.seat.get(at).map_or(0, |&s| s as usize);
                let mut s = json!({
                    "kind": "move",
                    "seat": seat,
                    "turn": game_turn(log, at),
                    "move": rec.moves[at],
                });
                if let Some(input) = ext.inputs.get(at) {
                    s["input"] = json!(input);
                }
                if let (Some(w), Some(c)) = (rec.wall_us.get(at), rec.cpu_us.get(at)) {
                    s["wall_us"] = json!(w);
                    s["cpu_us"] = json!(c);
                }
                if rec.is_late(at) {
                    if let Some(n) = strikes.get_mut(seat) {
                        *n += 1;
                    }
                    s["late"] = json!(1);
                }
                s["strikes"] = json!(strikes.get(seat).copied().unwrap_or(0));
                let err = rec.turn_stderr(at);
                if !err.is_empty() {
                    s["err"] = json!(err);
                }
                s
            }
        };
        put_said(&mut step, &said[k + 1]);
        steps.push(step);
    }
    let mut start = json!({ "notes": [], "p": [] });
    put_said(&mut start, &said[0]);
    let colours: Vec<_> = super::seats::palette(rec)
        .iter()
        .map(|c| (c.name, c.fill, c.ink))
        .collect();
    let data = json!({
        "bots": rec.bots,
        "cells": [],
        "clocks": rec.clocks,
        "colours": colours,
        "diagonals": false,
        "end": {
            "detail": rec.detail,
            "offender": rec.offender,
            "placings": placings(&rec.bots, &rec.ranks),
            "ranks": rec.ranks,
            "reason": rec.reason,
            "referee_stderr": ext.stderr,
            "scores": rec.scores,
            "scores_text": scores_text(&rec.bots, &rec.scores),
            "stderr": rec.stderr,
            "stderr_bytes": rec.stderr_bytes,
            "verdict": verdict(rec),
        },
        "game": rec.game,
        "game_id": rec.game_id,
        "inputs": "all",
        "moves": rec.moves.len(),
        "opening": 0,
        "referee": ext.referee,
        "sdk": true,
        "seats": rec.seats,
        "seed": rec.seed.to_string(),
        "shape": "none",
        "start": start,
        "steps": steps,
        "title": title,
        "variant": rec.variant,
        "view": super::sdk_view::frames_json(rec, log),
        "views_cut": log.views_cut,
    });
    serde_json::to_vec(&data).expect("JSON values serialise")
}

/// How many answers came before forfeit `k` of `rec`. A record whose frames know their game
/// turns keeps each forfeit's game turn: arbiter's forfeits are counted by the frames (the
/// first frame after forfeit j counts j + 1), and a player the game deactivated went out after
/// the answers of its turn (seen in the first frame of a later turn). An older record's forfeit
/// turn counted answers: forfeit at turn t came after t - 1 answers.
fn answers_before(rec: &GameRecord, log: &SdkLog, k: usize) -> usize {
    let f = &rec.forfeits[k];
    if log.frames.iter().all(|fr| fr.turn == 0) {
        return (f.turn as usize).saturating_sub(1);
    }
    let first = |found: &dyn Fn(&crate::referee::sdk::record::SdkFrame) -> bool| {
        log.frames
            .iter()
            .find(|fr| found(fr))
            .map_or(rec.moves.len(), |fr| fr.answer)
    };
    match f.reason {
        crate::referee::Reason::Deactivated => first(&|fr| fr.turn > f.turn),
        _ => {
            let j = rec.forfeits[..k]
                .iter()
                .filter(|g| g.reason != crate::referee::Reason::Deactivated)
                .count();
            first(&|fr| fr.forfeits > j)
        }
    }
}

/// The game turn answer `at` was given in: the turn of the frame that asked it (the last frame
/// before it), as the engine numbers them; an older record's answers are numbered one a turn.
fn game_turn(log: &SdkLog, at: usize) -> u32 {
    log.frames
        .iter()
        .rev()
        .find(|fr| fr.answer == at && fr.turn > 0)
        .map_or(at as u32 + 1, |fr| fr.turn)
}

/// Adds what the game said (when it said anything) to a step's object.
fn put_said(step: &mut Value, said: &StepSaid) {
    if !said.summary.is_empty() {
        step["summary"] = json!(said.summary);
    }
    if !said.tooltips.is_empty() {
        step["tooltips"] = json!(said.tooltips);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::sdk::record::SdkFrame;
    use crate::referee::Reason;
    use crate::results::records::{Clocks, RecordForfeit};

    /// A frame's summary belongs to the step it follows: the answer before it, or the forfeit
    /// when one came after that answer.
    #[test]
    fn each_frame_is_told_after_the_step_it_follows() {
        let frame = |answer, forfeits, summary: &str| SdkFrame {
            answer,
            turn: 0,
            forfeits,
            summary: vec![summary.into()],
            tooltips: vec![(1, "$1 timeout!".into())],
            view: String::new(),
        };
        let log = SdkLog {
            frames: vec![
                frame(0, 0, "dealt"),
                frame(1, 0, "$0 took"),
                frame(2, 0, "$1 took"),
                frame(2, 1, "after the forfeit"),
                frame(3, 1, "the end"),
            ],
            ..SdkLog::default()
        };
        let ext = ExternalRecord {
            referee: "java".into(),
            inputs: (0..3).map(|i| format!("input {i}")).collect(),
            stderr: String::new(),
            sdk: None,
        };
        let rec = GameRecord {
            game_id: 0,
            pair_id: 0,
            game: "take".into(),
            variant: "codingame-sdk".into(),
            seats: 2,
            seed: 1,
            position: None,
            bots: vec!["ann".into(), "bob".into()],
            clocks: Clocks::of(&crate::referee::RefereeConfig::default()),
            opening: Vec::new(),
            moves: vec!["1".into(), "2".into(), "3".into()],
            seat: vec![0, 1, 0],
            wall_us: vec![10, 20, 30],
            cpu_us: vec![1, 2, 3],
            waited_us: Vec::new(),
            stolen_us: Vec::new(),
            late: Vec::new(),
            comments: Vec::new(),
            answers: Vec::new(),
            extra_lines: Vec::new(),
            turn_stderr: Vec::new(),
            reason: Reason::Win,
            detail: String::new(),
            ranks: vec![0, 1],
            scores: vec![1, -1],
            forfeits: vec![RecordForfeit {
                seat: 1,
                reason: Reason::Timeout,
                detail: "no answer".into(),
                turn: 3,
                exit: None,
            }],
            offender: None,
            stderr: vec![String::new(), String::new()],
            stderr_bytes: vec![0, 0],
            duration_ms: 0,
            external: None,
        };
        let data: Value = serde_json::from_slice(&json(&rec, &ext, &log, "t")).unwrap();
        let steps = data["steps"].as_array().unwrap();
        let kinds: Vec<&str> = steps.iter().map(|s| s["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["move", "move", "forfeit", "move"]);
        assert_eq!(data["start"]["summary"], json!(["dealt"]));
        assert_eq!(steps[0]["summary"], json!(["ann took"]));
        assert_eq!(steps[0]["input"], "input 0");
        assert_eq!(steps[1]["summary"], json!(["bob took"]));
        assert_eq!(steps[2]["summary"], json!(["after the forfeit"]));
        assert_eq!(steps[2]["tooltips"], json!([[1, "bob timeout!"]]));
        assert_eq!(steps[3]["summary"], json!(["the end"]));
        assert_eq!(steps[3]["move"], "3");
    }
}
