//! `arbiter bench`: measures what the referee adds to each turn on this machine and prints the
//! figures as a table (each against the pipe round-trip floor and its target) or as one JSON
//! object. The measuring lives in [`arbiter::bench`].

use crate::cli::BenchArgs;
use anyhow::{Context, Result};
use arbiter::bench::{self, targets, BenchConfig, BenchReport};
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let exe = std::env::current_exe().context("cannot find the running arbiter executable")?;
    let bot = exe.with_file_name("arbiter-bot-first");
    let cfg = BenchConfig::new(bot, args.quick);
    let show_progress = !args.json;
    let report = bench::run(&cfg, |phase| {
        if show_progress {
            eprintln!("arbiter bench: {phase}...");
        }
    })?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        table(&mut out, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One line of the table.
struct Row {
    label: String,
    figure: String,
    /// The figure over the floor, where the comparison means something.
    ratio: Option<f64>,
    /// The target and whether it was met.
    verdict: Option<(String, bool)>,
}

fn row(label: impl Into<String>, figure: impl Into<String>) -> Row {
    Row {
        label: label.into(),
        figure: figure.into(),
        ratio: None,
        verdict: None,
    }
}

impl Row {
    fn ratio(mut self, r: f64) -> Row {
        self.ratio = Some(r);
        self
    }

    fn target(mut self, target: impl Into<String>, met: bool) -> Row {
        self.verdict = Some((target.into(), met));
        self
    }
}

/// " (1.6x the two-CPU floor)": a time against the floor measured with the same placement.
fn matched(us: f64, floor: f64, which: &str) -> String {
    if floor > 0.0 {
        format!(" ({:.1}x the {which} floor)", us / floor)
    } else {
        String::new()
    }
}

fn rows(r: &BenchReport) -> Vec<Row> {
    let floor = r.floor_us;
    let over = |us: f64| us / floor;
    let n = r.cores;
    let mut rows = vec![
        row(
            "pipe round trip (floor), median",
            format!("{:.1} µs (p99 {:.1})", r.floor_us, r.floor_p99_us),
        )
        .ratio(1.0),
        row(
            "  both pinned to one CPU / to two CPUs",
            format!(
                "{:.1} / {:.1} µs",
                r.floor_same_cpu_us, r.floor_cross_cpu_us
            ),
        ),
        row(
            "  CPU of this side per round trip",
            format!("{:.1} µs", r.floor_cpu_us),
        )
        .ratio(1.0),
        row(
            "game start + end (2 bots, no turn)",
            format!(
                "{:.0} µs (CPU {:.0} µs)",
                r.game_setup_us, r.game_setup_cpu_us
            ),
        ),
        row(
            "turn, concurrency 1 (game time / turns)",
            format!(
                "{:.1} µs{}",
                r.turn_us,
                matched(r.turn_us, r.floor_cross_cpu_us, "two-CPU")
            ),
        )
        .ratio(over(r.turn_us))
        .target(
            format!("<= {:.0}x floor", targets::TURN_OVER_FLOOR),
            r.turn_us <= targets::TURN_OVER_FLOOR * floor,
        ),
        row(
            "  of which the turn loop (start + end out)",
            format!("{:.1} µs", r.turn_loop_us),
        )
        .ratio(over(r.turn_loop_us)),
        row(
            "turn, concurrency 1, idle bot not frozen",
            format!("{:.1} µs", r.turn_us_no_freeze),
        )
        .ratio(over(r.turn_us_no_freeze)),
        row(
            "turn, concurrency 1, game pinned to one CPU",
            format!(
                "{:.1} µs{}",
                r.turn_us_pinned,
                matched(r.turn_us_pinned, r.floor_same_cpu_us, "one-CPU")
            ),
        )
        .ratio(over(r.turn_us_pinned)),
        row(
            format!("turn, concurrency {n}"),
            format!("{:.1} µs", r.turn_us_parallel),
        )
        .ratio(over(r.turn_us_parallel)),
        row(
            format!("turn, concurrency {n}, one CPU per game"),
            format!("{:.1} µs", r.turn_us_parallel_pinned),
        )
        .ratio(over(r.turn_us_parallel_pinned)),
        row(
            "games/s, concurrency 1",
            format!(
                "{:.1} ({:.0} turns a game)",
                r.games_per_s, r.turns_per_game
            ),
        ),
        row(
            format!("games/s, concurrency {n}"),
            format!(
                "{:.1} ({:.2}x concurrency 1)",
                r.games_per_s_parallel,
                r.games_per_s_parallel / r.games_per_s
            ),
        ),
        row(
            format!("games/s, concurrency {n}, one CPU per game"),
            format!(
                "{:.1} ({:.2}x concurrency 1)",
                r.games_per_s_parallel_pinned,
                r.games_per_s_parallel_pinned / r.games_per_s
            ),
        ),
        row(
            "referee CPU per turn, concurrency 1",
            format!("{:.1} µs", r.referee_cpu_us_per_turn),
        )
        .ratio(r.referee_cpu_us_per_turn / r.floor_cpu_us)
        .target(
            format!("<= {:.0} µs", targets::REFEREE_CPU_US_PER_TURN),
            r.referee_cpu_us_per_turn <= targets::REFEREE_CPU_US_PER_TURN,
        ),
        row(
            format!("referee CPU per turn, concurrency {n}"),
            format!("{:.1} µs", r.referee_cpu_us_per_turn_parallel),
        )
        .ratio(r.referee_cpu_us_per_turn_parallel / r.floor_cpu_us),
        row(
            "referee CPU per turn, game pinned to one CPU",
            format!("{:.1} µs", r.referee_cpu_us_per_turn_pinned),
        )
        .ratio(r.referee_cpu_us_per_turn_pinned / r.floor_cpu_us),
        row(
            "referee CPU per turn, idle bot not frozen",
            format!("{:.1} µs", r.referee_cpu_us_per_turn_no_freeze),
        )
        .ratio(r.referee_cpu_us_per_turn_no_freeze / r.floor_cpu_us),
        row(
            "bots' CPU per turn (both), concurrency 1",
            format!("{:.1} µs", r.bots_cpu_us_per_turn),
        )
        .ratio(r.bots_cpu_us_per_turn / r.floor_cpu_us),
    ];
    for d in &r.timing {
        rows.push(row(
            format!("timing error, {} ms delay ({} turns)", d.delay_ms, d.turns),
            format!(
                "median {:.3} / p99 {:.3} / max {:.3} ms",
                d.median_ms, d.p99_ms, d.max_ms
            ),
        ));
    }
    rows.push(
        row(
            format!("timing error, all delays, concurrency {n}"),
            format!(
                "median {:.3} / p99 {:.3} / max {:.3} ms",
                r.timing_error_ms_median, r.timing_error_ms_p99, r.timing_error_ms_max
            ),
        )
        .target(
            format!("p99 <= {:.0} ms", targets::TIMING_ERROR_MS_P99),
            r.timing_error_ms_p99 <= targets::TIMING_ERROR_MS_P99,
        ),
    );
    rows.push(row(
        "  of which pipes + referee (sleep overshoot out)",
        format!(
            "median {:.3} / p99 {:.3} / max {:.3} ms",
            r.referee_error_ms_median, r.referee_error_ms_p99, r.referee_error_ms_max
        ),
    ));
    rows.push(
        row(
            format!(
                "timeouts at 90% ({} of {} ms, strict)",
                r.near_delay_ms, r.near_limit_ms
            ),
            format!(
                "{} of {} games ({} turns, slowest {:.2} ms)",
                r.false_timeouts, r.near_games, r.near_turns, r.near_max_ms
            ),
        )
        .target(
            format!("= {}", targets::FALSE_TIMEOUTS),
            r.false_timeouts == targets::FALSE_TIMEOUTS,
        ),
    );
    rows.push(
        row(
            "flagged on first late turn at 110%",
            format!("{} of {} games", r.late_flagged, r.late_total),
        )
        .target("all", r.late_flagged == r.late_total),
    );
    rows
}

fn table(out: &mut impl Write, r: &BenchReport) -> std::io::Result<()> {
    let rows = rows(r);
    let width = |f: fn(&Row) -> usize| rows.iter().map(f).max().unwrap_or(0);
    let label_w = width(|row| row.label.chars().count());
    let figure_w = width(|row| row.figure.chars().count());
    let target_w = width(|row| row.verdict.as_ref().map_or(0, |(t, _)| t.chars().count()));
    writeln!(
        out,
        "arbiter bench{} on {} cores, {:.1} s. x floor: a wall time over the floor's round trip, \
         a CPU time over the floor's CPU per round trip",
        if r.quick { " --quick" } else { "" },
        r.cores,
        r.seconds
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:label_w$}  {:figure_w$}  {:>8}  {:target_w$}  result",
        "measure", "figure", "x floor", "target"
    )?;
    let failed = rows
        .iter()
        .filter(|row| row.verdict.as_ref().is_some_and(|(_, met)| !met))
        .count();
    for row in &rows {
        let ratio = row.ratio.map_or(String::new(), |x| format!("{x:.2}x"));
        let (target, verdict) = match &row.verdict {
            Some((t, met)) => (t.as_str(), if *met { "PASS" } else { "FAIL" }),
            None => ("", ""),
        };
        let line = format!(
            "{:label_w$}  {:figure_w$}  {ratio:>8}  {target:target_w$}  {verdict}",
            row.label, row.figure
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    writeln!(out)?;
    if failed == 0 {
        writeln!(out, "every target met")
    } else {
        writeln!(out, "{failed} target(s) missed")
    }
}
