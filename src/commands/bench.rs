//! `arbiter bench`: measures what the referee adds to each turn on this machine and prints the
//! figures as a table (each against the pipe round-trip floor and its target) or as one JSON
//! object. The measuring lives in [`arbiter::bench`].

use crate::cli::BenchArgs;
use anyhow::{bail, Context, Result};
use arbiter::bench::{self, targets, BenchConfig, BenchReport};
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    if let Some(crate::cli::BenchMode::League(a)) = args.mode {
        return super::bench_league::run(a);
    }
    if let Some(referee) = &args.referee {
        bail!(
            "arbiter bench cannot measure the external referee `{referee}`: its instant bots \
             answer with the first legal move of a built-in game, and arbiter does not know the \
             moves of a referee's game (its bots must read the referee's input). Measure it with \
             your own bots instead: `arbiter tournament --referee \"{referee}\" --games 100 \
             BOT_A BOT_B` shows games/s on its progress line; `arbiter bench` (without --referee) gives \
             the per-turn cost of the built-in games on this machine to compare with"
        );
    }
    let exe = std::env::current_exe().context("cannot find the running arbiter executable")?;
    let bot = exe.with_file_name("arbiter-bot-first");
    let game =
        arbiter::referee::GameChoice::new(&args.game, args.variant.as_deref(), Some(2), None)?;
    let cfg = BenchConfig::new(bot, args.quick, game);
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
struct BenchRow {
    label: String,
    figure: String,
    /// The figure over the floor, where the comparison means something.
    ratio: Option<f64>,
    /// The target and whether it was met.
    verdict: Option<(String, bool)>,
}

fn row(label: impl Into<String>, figure: impl Into<String>) -> BenchRow {
    BenchRow {
        label: label.into(),
        figure: figure.into(),
        ratio: None,
        verdict: None,
    }
}

impl BenchRow {
    fn ratio(mut self, r: f64) -> BenchRow {
        self.ratio = Some(r);
        self
    }

    fn target(mut self, target: impl Into<String>, met: bool) -> BenchRow {
        self.verdict = Some((target.into(), met));
        self
    }
}

fn rows(r: &BenchReport) -> Vec<BenchRow> {
    let n = r.cores;
    // Each wall time is set against the floor measured with the same placement: the default runs
    // (one CPU per game when pinned) against both processes on one CPU, the kernel-placed ones
    // against the free floor.
    let floor = if r.pinned && r.floor_same_cpu_us > 0.0 {
        r.floor_same_cpu_us
    } else {
        r.floor_us
    };
    let placement = if r.pinned { ", one CPU per game" } else { "" };
    let free = |us: f64| us / r.floor_us;
    let cpu = |label: String, us: f64| row(label, format!("{us:.1} µs"));
    let fastchess = targets::FASTCHESS_US_PER_PLY / r.turn_us;
    let mut rows = vec![
        row(
            "pipe round trip (floor), median, placed by the kernel",
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
        ),
        row(
            "game start + end (2 bots, no turn)",
            format!(
                "{:.0} µs (CPU {:.0} µs)",
                r.game_setup_us, r.game_setup_cpu_us
            ),
        ),
        row(
            format!("turn, concurrency 1{placement}"),
            format!("{:.1} µs (game time / turns)", r.turn_us),
        )
        .ratio(r.turn_us / floor)
        .target(
            format!("<= {:.0}x floor", targets::TURN_OVER_FLOOR),
            r.turn_us <= targets::TURN_OVER_FLOOR * floor,
        ),
        if r.turn_loop_measurable {
            row(
                "  of which the turn loop (start, end, first turns out)",
                format!("{:.1} µs", r.turn_loop_us),
            )
            .ratio(r.turn_loop_us / floor)
            .target(
                format!("<= {:.0}x floor", targets::TURN_LOOP_OVER_FLOOR),
                r.turn_loop_us <= targets::TURN_LOOP_OVER_FLOOR * floor,
            )
        } else {
            row(
                "  of which the turn loop (start, end, first turns out)",
                "not measurable: game starts varied more than whole games (machine busy)",
            )
        },
        row(
            "turn, concurrency 1, --clock wall",
            format!(
                "{:.1} µs (referee CPU {:.1} µs a turn)",
                r.turn_us_wall_clock, r.referee_cpu_us_per_turn_wall_clock
            ),
        )
        .ratio(r.turn_us_wall_clock / floor),
        row(
            "  the fair clock's reading of waiting (CPU)",
            format!("{:.1} µs a turn", r.fair_clock_cpu_us_per_turn),
        ),
        row(
            format!(
                "  fastchess: {:.0} µs a ply (dev. machine)",
                targets::FASTCHESS_US_PER_PLY
            ),
            format!("{fastchess:.1}x as long as this turn"),
        )
        .target(
            format!(">= {:.0}x", targets::FASTER_THAN_FASTCHESS),
            fastchess >= targets::FASTER_THAN_FASTCHESS,
        ),
        row(
            "turn, concurrency 1, placed by the kernel",
            format!("{:.1} µs", r.turn_us_free),
        )
        .ratio(free(r.turn_us_free)),
        row(
            "turn, concurrency 1, bots frozen at every answer",
            format!("{:.1} µs", r.turn_us_eager_freeze),
        )
        .ratio(r.turn_us_eager_freeze / floor),
        row(
            "turn, concurrency 1, idle bot never frozen",
            format!("{:.1} µs", r.turn_us_no_freeze),
        )
        .ratio(r.turn_us_no_freeze / floor),
        row(
            format!("turn, concurrency {n}{placement}"),
            format!("{:.1} µs", r.turn_us_parallel),
        )
        .ratio(r.turn_us_parallel / floor),
        row(
            format!("turn, concurrency {n}, placed by the kernel"),
            format!("{:.1} µs", r.turn_us_parallel_free),
        )
        .ratio(free(r.turn_us_parallel_free)),
        row(
            "games/s, concurrency 1 / placed by the kernel",
            format!(
                "{:.1} / {:.1} ({:.0} turns a game)",
                r.games_per_s, r.games_per_s_free, r.turns_per_game
            ),
        ),
        row(
            format!("games/s, concurrency {n} / placed by the kernel"),
            format!(
                "{:.1} / {:.1} ({:.2}x concurrency 1)",
                r.games_per_s_parallel,
                r.games_per_s_parallel_free,
                r.games_per_s_parallel / r.games_per_s
            ),
        ),
        cpu(
            format!("referee CPU per turn, concurrency 1{placement}"),
            r.referee_cpu_us_per_turn,
        )
        .target(
            format!("<= {:.0} µs", targets::REFEREE_CPU_US_PER_TURN),
            r.referee_cpu_us_per_turn <= targets::REFEREE_CPU_US_PER_TURN,
        ),
        cpu(
            "  of which the game start + end".into(),
            r.game_setup_cpu_us / r.turns_per_game,
        ),
        cpu(
            "referee CPU per turn, placed by the kernel".into(),
            r.referee_cpu_us_per_turn_free,
        ),
        cpu(
            "referee CPU per turn, bots frozen at every answer".into(),
            r.referee_cpu_us_per_turn_eager_freeze,
        ),
        cpu(
            "referee CPU per turn, idle bot never frozen".into(),
            r.referee_cpu_us_per_turn_no_freeze,
        ),
        cpu(
            format!("referee CPU per turn, concurrency {n}{placement}"),
            r.referee_cpu_us_per_turn_parallel,
        ),
        cpu(
            "bots' CPU per turn (both), concurrency 1".into(),
            r.bots_cpu_us_per_turn,
        ),
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
    let width = |f: fn(&BenchRow) -> usize| rows.iter().map(f).max().unwrap_or(0);
    let label_w = width(|row| row.label.chars().count());
    let figure_w = width(|row| row.figure.chars().count());
    let target_w = width(|row| row.verdict.as_ref().map_or(0, |(t, _)| t.chars().count()));
    writeln!(
        out,
        "arbiter bench{} on {} cores, {:.1} s. x floor: a wall time over the floor's round trip \
         with the same placement (one CPU, or placed by the kernel)",
        if r.quick { " --quick" } else { "" },
        r.cores,
        r.seconds
    )?;
    if r.busy {
        writeln!(out, "{}", busy_note(r))?;
    }
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
    match (failed, r.busy) {
        (0, _) => writeln!(out, "every target met"),
        (_, false) => writeln!(out, "{failed} target(s) missed"),
        (_, true) => writeln!(
            out,
            "{failed} target(s) missed, on a busy machine, which alone can explain it: run the \
             bench again when other programs are idle"
        ),
    }
}

/// What a busy machine does to the figures.
fn busy_note(r: &BenchReport) -> String {
    format!(
        "The machine was busy: other programs kept {:.1} of the {} CPUs busy on average (load \
         average {:.1} at the end). Every wall time below includes waiting for a CPU, so it says \
         more about the load than about arbiter; the fair clock (the default) does not charge \
         bots for that waiting.",
        r.other_cpus, r.cores, r.load_average
    )
}
