//! The SPRT section of an SPRT's report.html: the LLR, its bounds, the decision, and the
//! course of the LLR over the pairs as an inline SVG (the page stays one file). Computed from
//! the folder's sprt.toml and games.csv, as `arbiter sprt` decides: the same games, in the
//! order recorded, so the page agrees with the command's result block and exit status.

use crate::engine::settings::{self, SprtSettings};
use crate::engine::sprt::new_score;
use crate::rating::{self, Decision, PairCounter};
use crate::report::sprt_block::decision_text;
use crate::results::games_csv::for_each_result;
use maud::{html, Markup};
use std::fmt::Write;
use std::path::Path;

/// Points of the LLR's course drawn at most (a long test is thinned, its last point kept).
const COURSE_POINTS: usize = 600;

/// What the report shows of an SPRT.
pub struct SprtView {
    pub new: String,
    pub old: String,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: String,
    pub lower: f64,
    pub upper: f64,
    pub llr: f64,
    pub decision: Decision,
    pub pairs: u64,
    /// `(pairs counted, LLR)` after each completed pair, thinned to [`COURSE_POINTS`].
    pub course: Vec<(u64, f64)>,
}

/// The SPRT of results folder `dir`, when it is one (it has sprt.toml) and has games.
pub fn gather(dir: &Path) -> Option<SprtView> {
    let s: SprtSettings = settings::load(dir).ok()?;
    let params = s.sprt.params().ok()?;
    let csv = dir.join("games.csv");
    // The candidate sits first in the first game of each pair (the schedule's first rotation):
    // its name is that game's first bot.
    let mut names: Option<(String, String)> = None;
    let mut rows = Vec::new();
    for_each_result(std::slice::from_ref(&csv), |row| {
        if names.is_none() && row.game_id.is_some_and(|g| g % 2 == 0) && row.bots.len() == 2 {
            names = Some((row.bots[0].clone(), row.bots[1].clone()));
        }
        rows.push(row);
        Ok(())
    })
    .ok()?;
    let (new, old) = names?;
    let mut pairs = PairCounter::default();
    let mut course = Vec::new();
    for row in rows {
        let Some(pair) = row.pair_id else { continue };
        let score = new_score(
            &row.bots[0],
            &new,
            row.winner().map(|w| w as u8),
            row.reason,
        );
        if pairs.add(pair, score) {
            course.push((
                pairs.penta.pairs(),
                rating::llr_pentanomial(&pairs.penta, &params),
            ));
        }
    }
    let llr = rating::llr_pentanomial(&pairs.penta, &params);
    let (lower, upper) = params.bounds();
    Some(SprtView {
        new,
        old,
        elo0: params.elo0,
        elo1: params.elo1,
        alpha: params.alpha,
        beta: params.beta,
        model: params.model.to_string(),
        lower,
        upper,
        llr,
        decision: rating::decide(llr, &params),
        pairs: pairs.penta.pairs(),
        course: thin(course),
    })
}

/// At most [`COURSE_POINTS`] of `course`, evenly spread, the last one kept.
fn thin(course: Vec<(u64, f64)>) -> Vec<(u64, f64)> {
    if course.len() <= COURSE_POINTS {
        return course;
    }
    let step = course.len().div_ceil(COURSE_POINTS);
    let last = *course.last().expect("not empty");
    let mut out: Vec<_> = course.into_iter().step_by(step).collect();
    if out.last() != Some(&last) {
        out.push(last);
    }
    out
}

/// The LLR's course between its bounds, as an SVG polyline.
fn chart(v: &SprtView) -> String {
    let (w, h, pad) = (600.0, 200.0, 4.0);
    let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
    let top = v
        .course
        .iter()
        .map(|p| p.1)
        .chain([v.upper])
        .map(finite)
        .fold(f64::MIN, f64::max);
    let bottom = v
        .course
        .iter()
        .map(|p| p.1)
        .chain([v.lower])
        .map(finite)
        .fold(f64::MAX, f64::min);
    let span = (top - bottom).max(1e-9);
    let most = v.course.last().map_or(1, |p| p.0).max(1) as f64;
    let y = |llr: f64| pad + (top - finite(llr)) / span * (h - 2.0 * pad);
    let x = |pairs: u64| pad + pairs as f64 / most * (w - 2.0 * pad);
    let mut line = String::new();
    for &(p, llr) in &v.course {
        let _ = write!(line, "{:.1},{:.1} ", x(p), y(llr));
    }
    let bound = |llr: f64, colour: &str| {
        format!(
            "<line x1=\"{pad}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" stroke-dasharray=\"4 3\"/>",
            w - pad,
            y = y(llr)
        )
    };
    format!(
        "<svg id=\"sprt-course\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" \
         aria-label=\"LLR over the pairs\">{}{}{}<polyline fill=\"none\" stroke=\"#2d5fa0\" \
         stroke-width=\"1.5\" points=\"{}\"/></svg>",
        bound(v.upper, "#2d8a3e"),
        bound(v.lower, "#a02d20"),
        bound(0.0, "#999"),
        line.trim_end()
    )
}

/// The section: the test, its state, and the LLR's course.
pub fn section(v: &SprtView) -> Markup {
    html! {
        h2 #sprt { "SPRT" }
        p { (v.new) " against " (v.old) ": H0 elo " (v.elo0) ", H1 elo " (v.elo1) " ("
            (v.model) " model, alpha " (v.alpha) ", beta " (v.beta) ")." }
        div.scroll { table #"sprt-state" {
            thead { tr { th { "Pairs" } th { "LLR" } th { "Lower bound" } th { "Upper bound" } th.l { "Decision" } } }
            tbody { tr {
                td { (v.pairs) } td { (format!("{:.2}", v.llr)) }
                td { (format!("{:.2}", v.lower)) } td { (format!("{:.2}", v.upper)) }
                td.l { (decision_text(v.decision)) }
            } }
        } }
        @if v.course.len() > 1 {
            p.muted { "The LLR after each pair (blue), between the lower bound (red, H0) and the upper bound (green, H1)." }
            (maud::PreEscaped(chart(v)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_course_is_thinned_to_its_points_and_keeps_its_last() {
        let course: Vec<(u64, f64)> = (1..=10_001).map(|p| (p, p as f64)).collect();
        let thinned = thin(course);
        assert!(thinned.len() <= COURSE_POINTS + 1, "{}", thinned.len());
        assert_eq!(thinned.last(), Some(&(10_001, 10_001.0)));
        assert_eq!(thinned[0], (1, 1.0));
    }

    #[test]
    fn the_candidate_sits_first_in_each_pairs_first_game() {
        for g in crate::tournament::schedule(2, crate::tournament::Format::RoundRobin, 40, 7) {
            assert_eq!(g.seats[0] == 0, g.game_id % 2 == 0, "{g:?}");
        }
    }
}
