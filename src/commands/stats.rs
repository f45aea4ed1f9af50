//! `arbiter stats`: the match statistics and SPRT figures of a record typed on the command line.

use crate::cli::StatsArgs;
use anyhow::Result;
use arbiter::rating::{self, EloEstimate, Pentanomial, Wdl};
use arbiter::report::sprt_block;
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: StatsArgs) -> Result<ExitCode> {
    if args.wdl.as_ref().is_some_and(|v| v.len() != 3) {
        anyhow::bail!("--wdl takes three counts, W,D,L (e.g. 60,20,20)");
    }
    if args.ptnml.as_ref().is_some_and(|v| v.len() != 5) {
        anyhow::bail!("--ptnml takes five counts, C0,C1,C2,C3,C4 (e.g. 10,20,40,20,10)");
    }
    let (estimate, games_text) = match (&args.wdl, &args.ptnml) {
        (Some(v), _) => {
            let wdl = Wdl::new(v[0], v[1], v[2]);
            (
                EloEstimate::from_wdl(&wdl),
                format!("{} games (W/D/L {}/{}/{})", wdl.games(), v[0], v[1], v[2]),
            )
        }
        (None, Some(v)) => {
            let p = Pentanomial([v[0], v[1], v[2], v[3], v[4]]);
            (
                EloEstimate::from_pentanomial(&p),
                format!("{} pairs, pentanomial {v:?}", p.pairs()),
            )
        }
        (None, None) => unreachable!("clap requires --wdl or --ptnml"),
    };
    let sprt = match (args.elo0, args.elo1) {
        (Some(elo0), Some(elo1)) => {
            let params = args.test.params(elo0, elo1)?;
            let llr = match (&args.wdl, &args.ptnml) {
                (Some(v), _) => rating::llr_wdl(&Wdl::new(v[0], v[1], v[2]), &params),
                (_, Some(v)) => {
                    rating::llr_pentanomial(&Pentanomial([v[0], v[1], v[2], v[3], v[4]]), &params)
                }
                _ => unreachable!(),
            };
            Some((params, llr))
        }
        _ => None,
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let v = sprt_block::stats_json(estimate.as_ref(), sprt.as_ref());
        serde_json::to_writer(&mut out, &v)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{games_text}")?;
        sprt_block::print_estimate(&mut out, estimate.as_ref())?;
        if let Some((params, llr)) = &sprt {
            sprt_block::print_llr(&mut out, params, *llr)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
