//! `arbiter play`: one game, summarised for people or as JSON.

use crate::cli::{self, PlayArgs};
use anyhow::{Context, Result};
use arbiter::referee;
use arbiter::report;
use std::process::ExitCode;

pub fn run(args: PlayArgs) -> Result<ExitCode> {
    let choice = args.game.choice()?;
    let mut cfg = args.game.referee_config(choice.info.default_max_turns)?;
    if args.bots.len() != choice.seats {
        anyhow::bail!(
            "{} is played by {} bots, but {} were given{}",
            choice.describe(),
            choice.seats,
            args.bots.len(),
            if choice
                .info
                .variants
                .iter()
                .any(|v| v.seats.contains(&args.bots.len()))
            {
                format!(
                    " (for {} seats add --seats {})",
                    args.bots.len(),
                    args.bots.len()
                )
            } else {
                String::new()
            }
        );
    }
    cfg.record_turns = args.replay.is_some();
    let bots = cli::resolve_bots(&args.bots)?;
    let seed = args.seed.unwrap_or_else(cli::fresh_seed);
    let game = choice.start(seed)?;
    let result = referee::play(game, &[], &bots, &cfg, seed)?;
    if let Some(path) = &args.replay {
        report::replay::write(path, &result, &cfg, &choice)
            .with_context(|| format!("writing the replay to {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        report::play::json(&mut out, &result)?;
    } else {
        report::play::human(&mut out, &result, args.replay.as_deref())?;
    }
    Ok(ExitCode::SUCCESS)
}
