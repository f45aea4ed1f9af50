//! `arbiter play`: one game, summarised for people or as JSON.

use crate::cli::{self, PlayArgs};
use anyhow::{Context, Result};
use arbiter::game;
use arbiter::referee;
use arbiter::report;
use std::process::ExitCode;

pub fn run(args: PlayArgs) -> Result<ExitCode> {
    let game = game::new_game(&args.game.game, 0)?;
    let mut cfg = args.game.referee_config(game.info().default_max_turns)?;
    if args.bots.len() != game.seats() {
        anyhow::bail!(
            "{} is played by {} bots, but {} were given",
            game.name(),
            game.seats(),
            args.bots.len()
        );
    }
    cfg.record_turns = args.replay.is_some();
    let bots = cli::resolve_bots(&args.bots)?;
    let seed = args.seed.unwrap_or_else(cli::fresh_seed);
    let game = game::new_game(&args.game.game, seed)?;
    let result = referee::play(game, &[], &bots, &cfg, seed)?;
    if let Some(path) = &args.replay {
        report::replay::write(path, &result, &cfg)
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
