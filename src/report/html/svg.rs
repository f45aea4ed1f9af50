//! Small SVG charts built in Rust (no script needed to see them): ratings with their
//! intervals as error bars, and a bot's think-time distribution against the limit.

use super::data::{BotTimes, RatingRow};
use crate::rating::fmt_elo;
use maud::{html, Markup};

fn f(x: f64) -> String {
    format!("{x:.1}")
}

/// Microseconds as "12.3 ms" / "850 µs" (the charts' axes and the page's tables).
pub fn ms(us: u64) -> String {
    if us < 1000 {
        format!("{us} \u{b5}s")
    } else if us < 10_000 {
        format!("{:.2} ms", us as f64 / 1000.0)
    } else {
        format!("{:.1} ms", us as f64 / 1000.0)
    }
}

/// One row per bot, best first: a dot at the rating and a bar over its 95% interval; an
/// unbounded end runs to the chart's edge with an arrow.
pub fn error_bars(rows: &[RatingRow]) -> Markup {
    let finite = |x: f64| x.is_finite().then_some(x);
    let ends: Vec<f64> = rows
        .iter()
        .flat_map(|r| [finite(r.low), finite(r.high), r.value])
        .flatten()
        .collect();
    let (mut lo, mut hi) = ends
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    if !lo.is_finite() {
        (lo, hi) = (-100.0, 100.0);
    }
    if hi - lo < 20.0 {
        lo -= 10.0;
        hi += 10.0;
    }
    let pad = (hi - lo) * 0.05;
    let (lo, hi) = (lo - pad, hi + pad);
    let (left, width, row_h) = (150.0, 420.0, 22.0);
    let x = |v: f64| left + (v.clamp(lo, hi) - lo) / (hi - lo) * width;
    let height = rows.len() as f64 * row_h + 30.0;
    let zero = (lo..=hi).contains(&0.0).then(|| x(0.0));
    html! {
        svg.chart xmlns="http://www.w3.org/2000/svg" viewBox={ "0 0 " (f(left + width + 20.0)) " " (f(height)) }
            width=(f(left + width + 20.0)) role="img" aria-label="ratings with 95% intervals" {
            @if let Some(z) = zero {
                line x1=(f(z)) x2=(f(z)) y1="0" y2=(f(height - 22.0)) stroke="#bbb" stroke-dasharray="3 3" {}
            }
            @for (k, r) in rows.iter().enumerate() {
                @let y = 14.0 + k as f64 * row_h;
                text x=(f(left - 8.0)) y=(f(y + 4.0)) text-anchor="end" font-size="12" { (r.name) }
                @if let Some(v) = r.value {
                    @let (a, b) = (x(r.low), x(r.high));
                    line x1=(f(a)) x2=(f(b)) y1=(f(y)) y2=(f(y)) stroke="#2a6fdb" stroke-width="2" {}
                    @if r.low.is_finite() { line x1=(f(a)) x2=(f(a)) y1=(f(y - 5.0)) y2=(f(y + 5.0)) stroke="#2a6fdb" stroke-width="2" {} }
                    @else { path d={ "M" (f(a)) " " (f(y)) " l6 -5 v10 z" } fill="#2a6fdb" {} }
                    @if r.high.is_finite() { line x1=(f(b)) x2=(f(b)) y1=(f(y - 5.0)) y2=(f(y + 5.0)) stroke="#2a6fdb" stroke-width="2" {} }
                    @else { path d={ "M" (f(b)) " " (f(y)) " l-6 -5 v10 z" } fill="#2a6fdb" {} }
                    circle cx=(f(x(v))) cy=(f(y)) r="4" fill="#1d1d1f" { title { (r.name) ": " (r.elo) " [" (fmt_elo(r.low)) ", " (fmt_elo(r.high)) "]" } }
                } @else {
                    text x=(f(left)) y=(f(y + 4.0)) font-size="11" fill="#666" { "unrated" }
                }
            }
            @for v in ticks(lo, hi) {
                text x=(f(x(v))) y=(f(height - 6.0)) text-anchor="middle" font-size="11" fill="#666" { (fmt_elo(v)) }
            }
        }
    }
}

/// Round tick values across `[lo, hi]`.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let raw = (hi - lo) / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut v = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while v <= hi {
        out.push(v);
        v += step;
    }
    out
}

/// A small histogram of a bot's turn times on a log scale, with the limit as a red line.
pub fn time_histogram(t: &BotTimes, limit_us: u64) -> Markup {
    const BINS: usize = 24;
    let (w, h) = (240.0, 48.0);
    let top = t
        .counts
        .keys()
        .next_back()
        .copied()
        .unwrap_or(1)
        .max(limit_us)
        .max(10) as f64
        * 1.3;
    let (lo, hi) = (10f64.log10(), top.log10());
    let pos = |us: f64| ((us.max(10.0).log10() - lo) / (hi - lo)).clamp(0.0, 1.0);
    let mut bins = [0u64; BINS];
    for (&us, &n) in &t.counts {
        bins[((pos(us as f64) * BINS as f64) as usize).min(BINS - 1)] += n;
    }
    let most = bins.iter().copied().max().unwrap_or(0).max(1) as f64;
    let bw = w / BINS as f64;
    let limit_x = pos(limit_us as f64) * w;
    html! {
        svg.chart xmlns="http://www.w3.org/2000/svg" viewBox={ "0 0 " (f(w)) " " (f(h + 12.0)) } width=(f(w)) role="img"
            aria-label={ "turn times of " (t.name) } {
            rect x="0" y="0" width=(f(w)) height=(f(h)) fill="#f1eee6" {}
            @for (i, &n) in bins.iter().enumerate() {
                @if n > 0 {
                    @let bh = (n as f64 / most).sqrt() * (h - 2.0);
                    rect x=(f(i as f64 * bw + 0.5)) y=(f(h - bh)) width=(f(bw - 1.0)) height=(f(bh)) fill="#2a6fdb" { title { (n) " turns" } }
                }
            }
            line x1=(f(limit_x)) x2=(f(limit_x)) y1="0" y2=(f(h)) stroke="#c0392b" stroke-width="1.5" {}
            text x="0" y=(f(h + 10.0)) font-size="9" fill="#666" { "10 \u{b5}s" }
            text x=(f(limit_x - 2.0)) y="9" font-size="9" fill="#c0392b" text-anchor="end" { "limit" }
            text x=(f(w)) y=(f(h + 10.0)) font-size="9" fill="#666" text-anchor="end" { (ms(top as u64)) }
        }
    }
}
