//! `arbiter bench league`: the league server under simulated workers (the measuring lives in
//! [`arbiter::bench::league`]); prints each phase against its floor, then the server's memory
//! over the long run.

use crate::cli::BenchLeagueArgs;
use anyhow::{bail, Context, Result};
use arbiter::bench::league::{self as load, LoadConfig, LoadReport};
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

pub fn run(args: BenchLeagueArgs) -> Result<ExitCode> {
    let arbiter = std::env::current_exe().context("cannot find the running arbiter executable")?;
    let bot = load::default_bot(&arbiter);
    if !bot.exists() {
        bail!(
            "the load test's league is made of {} (it is test-started, never played): build it \
             beside arbiter with `cargo build --release`",
            bot.display()
        );
    }
    if args.workers.is_empty() || args.workers.contains(&0) || args.bots < 2 {
        bail!("give --workers as counts above 0 (e.g. 100,1000) and --bots of 2 or more");
    }
    let cfg = LoadConfig {
        arbiter,
        bot,
        serve: [
            "--listen",
            "127.0.0.1:0",
            "--local-workers",
            "0",
            "--game",
            "impasse",
        ]
        .map(String::from)
        .to_vec(),
        bots: args.bots,
        workers: args.workers.clone(),
        phase_results: args.phase_results,
        phase_limit: Duration::from_secs(args.phase_seconds),
        memory_results: args.memory_results,
        memory_workers: args.workers[0],
        memory_limit: Duration::from_secs(args.memory_seconds),
    };
    let report = load::run(&cfg, |what| eprintln!("arbiter bench league: {what}..."))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        table(&mut out, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn table(out: &mut impl Write, r: &LoadReport) -> std::io::Result<()> {
    writeln!(
        out,
        "League server under simulated workers ({} bots; one connection per request, as `league work`)",
        r.bots
    )?;
    writeln!(
        out,
        "{:>7}  {:>9} {:>9}  {:>23}  {:>23}  {:>17}  {:>9} {:>8}  {:>7}",
        "workers",
        "leases/s",
        "results/s",
        "lease ms p50/p90/p99",
        "result ms p50/p90/p99",
        "floor req/s (p50)",
        "server CPU",
        "µs/result",
        "RSS MiB"
    )?;
    let ms = |l: &load::Latency| format!("{:.1}/{:.1}/{:.1}", l.p50_ms, l.p90_ms, l.p99_ms);
    for p in &r.phases {
        writeln!(
            out,
            "{:>7}  {:>9.0} {:>9.0}  {:>23}  {:>23}  {:>17}  {:>9.0}% {:>8.0}  {:>7.1}",
            p.workers,
            p.leases_per_s,
            p.results_per_s,
            ms(&p.lease),
            ms(&p.result),
            format!("{:.0} ({:.1} ms)", p.floor_per_s, p.floor.p50_ms),
            p.server_cpu * 100.0,
            p.cpu_us_per_result,
            p.rss_mib_after
        )?;
    }
    for p in &r.phases {
        writeln!(
            out,
            "  {} workers: {} results in {:.1} s ({} requests tried again); a lease and its \
             result: {:.1}x the floor's round trip (p50), {:.1}x its server CPU ({:.0} µs a request)",
            p.workers,
            p.results,
            p.seconds,
            p.retried,
            (p.lease.p50_ms + p.result.p50_ms) / p.floor.p50_ms.max(1e-3),
            p.cpu_us_per_result / p.floor_cpu_us.max(1e-3),
            p.floor_cpu_us
        )?;
    }
    let m = &r.memory;
    writeln!(
        out,
        "Memory (VmRSS) with {} workers, {:.0} results/s over {:.0} s: at start {:.1} MiB",
        m.workers, m.results_per_s, m.seconds, r.rss_mib_start
    )?;
    for (results, mib) in &m.samples {
        writeln!(out, "  after {results:>7} results: {mib:>7.1} MiB")?;
    }
    if let (Some(first), Some(last)) = (m.samples.first(), m.samples.last()) {
        if last.0 > first.0 {
            writeln!(
                out,
                "  growth: {:.1} KiB per 1,000 results over the run",
                (last.1 - first.1) * 1024.0 * 1000.0 / (last.0 - first.0) as f64
            )?;
        }
    }
    Ok(())
}
