//! The text and JSON of match statistics and SPRT state, shared by `arbiter sprt` and
//! `arbiter stats`, in the fastchess layout users already read.

use crate::options::Opt;
use crate::rating::{self, Decision, EloEstimate, SprtParams};
use serde_json::{json, Value};
use std::io::{self, Write};

/// A number for JSON: finite as is, infinities as the strings "+inf"/"-inf", NaN as null.
pub fn num(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else if x.is_nan() {
        Value::Null
    } else if x > 0.0 {
        json!("+inf")
    } else {
        json!("-inf")
    }
}

/// "Elo: ... nElo: ..." and "LOS: ..." lines; "n/a" without games.
pub fn print_estimate(out: &mut impl Write, e: Option<&EloEstimate>) -> io::Result<()> {
    match e {
        Some(e) => {
            writeln!(out, "Elo: {}, nElo: {}", e.elo_text(), e.nelo_text())?;
            writeln!(
                out,
                "LOS: {}, {}",
                rating::fmt_percent(e.los),
                draw_ratio(e)
            )
        }
        None => writeln!(out, "Elo: n/a, nElo: n/a (no games)\nLOS: n/a"),
    }
}

/// "DrawRatio: 20.00%" (drawn games) or, for an estimate from pairs, "PairDrawRatio: 44.83%
/// (pairs scoring 1-1)": the share of pairs split even, which a record without a single drawn
/// game may well have.
pub fn draw_ratio(e: &EloEstimate) -> String {
    let ratio = rating::fmt_percent(e.draw_ratio);
    match e.pairs {
        Some(_) => format!("PairDrawRatio: {ratio} (pairs scoring 1-1)"),
        None => format!("DrawRatio: {ratio}"),
    }
}

/// Pairs won over pairs lost, (c3 + c4) / (c0 + c1): "1.25", "inf", or "n/a" without either.
pub fn pairs_ratio(p: &crate::rating::Pentanomial) -> String {
    let c = p.0;
    let (good, bad) = (c[3] + c[4], c[0] + c[1]);
    match (good, bad) {
        (0, 0) => "n/a".to_string(),
        (_, 0) => "inf".to_string(),
        _ => format!("{:.2}", good as f64 / bad as f64),
    }
}

/// "LLR: 1.23 (-2.94, 2.94) [0.00, 5.00]" and the decision it implies.
pub fn print_llr(out: &mut impl Write, p: &SprtParams, llr: f64) -> io::Result<()> {
    let (lower, upper) = p.bounds();
    writeln!(
        out,
        "LLR: {llr:.2} ({lower:.2}, {upper:.2}) [{:.2}, {:.2}] ({} model, alpha {}, beta {})",
        p.elo0, p.elo1, p.model, p.alpha, p.beta
    )?;
    writeln!(out, "Decision: {}", decision_text(rating::decide(llr, p)))
}

pub fn decision_text(d: Decision) -> &'static str {
    match d {
        Decision::AcceptH1 => "H1 accepted (the first bot is better by at least elo1)",
        Decision::AcceptH0 => "H0 accepted (the first bot is not better than elo0)",
        Decision::Continue => "none yet (the LLR is between the bounds)",
    }
}

/// `arbiter stats --json`: elo, elo_margin, los, nelo, nelo_margin, llr, lower, upper.
pub fn stats_json(e: Option<&EloEstimate>, sprt: Option<&(SprtParams, f64)>) -> Value {
    let opt = |f: &dyn Fn(&EloEstimate) -> f64| e.map_or(Value::Null, |e| num(f(e)));
    let (llr, lower, upper) = match sprt {
        Some((p, llr)) => {
            let (lo, up) = p.bounds();
            (num(*llr), num(lo), num(up))
        }
        None => (Value::Null, Value::Null, Value::Null),
    };
    json!({
        "games": e.map_or(0, |e| e.games),
        "elo": opt(&|e| e.elo),
        "elo_margin": opt(&|e| e.elo_margin),
        "los": opt(&|e| e.los),
        "nelo": opt(&|e| e.nelo),
        "nelo_margin": opt(&|e| e.nelo_margin),
        "draw_ratio": opt(&|e| e.draw_ratio),
        "llr": llr,
        "lower": lower,
        "upper": upper,
    })
}

/// "48 games, 24 pairs"; where a game's pair is not complete (the test decided while its other
/// game was played, or that game was dropped), "49 games: 24 pairs and 1 game whose pair was not
/// finished" (the pairs are what the test counts).
fn games_and_pairs(games: u64, pairs: u64) -> String {
    let alone = games.saturating_sub(2 * pairs);
    match alone {
        0 => format!("{games} games, {pairs} pairs"),
        1 => format!("{games} games: {pairs} pairs and 1 game whose pair was not finished"),
        n => format!("{games} games: {pairs} pairs and {n} games whose pairs were not finished"),
    }
}

/// The end of an SPRT: its record and Elo, the pentanomial counts, the LLR and the decision.
pub fn print_result(
    out: &mut impl Write,
    new: &str,
    old: &str,
    p: &rating::PairCounter,
    params: &SprtParams,
    llr: f64,
    decision: Decision,
) -> std::io::Result<()> {
    let games = p.wdl.games();
    writeln!(
        out,
        "Results of {new} vs {old} ({}):",
        games_and_pairs(games, p.penta.pairs())
    )?;
    print_estimate(out, EloEstimate::from_pentanomial(&p.penta).as_ref())?;
    let c = p.penta.0;
    let pairs_ratio = pairs_ratio(&p.penta);
    writeln!(out, "PairsRatio: {pairs_ratio}")?;
    writeln!(
        out,
        "Games: {games}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1}",
        p.wdl.wins,
        p.wdl.losses,
        p.wdl.draws,
        p.wdl.points()
    )?;
    writeln!(
        out,
        "Ptnml(0-2): [{}, {}, {}, {}, {}]",
        c[0], c[1], c[2], c[3], c[4]
    )?;
    if p.voided > 0 {
        writeln!(
            out,
            "Pairs dropped: {} (a game of each could not be played: referee-error; the reason is \
             in games.csv's detail column; `arbiter sprt {}` plays those games again)",
            p.voided,
            Opt::Resume
        )?;
    }
    print_llr(out, params, llr)?;
    if decision == Decision::Continue {
        writeln!(
            out,
            "No decision within the pairs allowed ({}).",
            Opt::MaxPairs
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An SPRT that decided with a game of an unfinished pair said "49 games, 24 pairs".
    #[test]
    fn games_outside_complete_pairs_are_said() {
        assert_eq!(games_and_pairs(48, 24), "48 games, 24 pairs");
        assert_eq!(
            games_and_pairs(49, 24),
            "49 games: 24 pairs and 1 game whose pair was not finished"
        );
    }
}
