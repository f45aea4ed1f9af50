//! `arbiter play`: one game, summarised for people or as JSON.

use crate::cli::{self, PlayArgs};
use anyhow::{Context, Result};
use arbiter::referee;
use arbiter::report;
use std::process::ExitCode;

/// The BOT argument that seats a person at the terminal.
const HUMAN: &str = "human";

/// Resolves the bots, seating a person for each `human` argument (when no file of that name is
/// there) through arbiter's own human seat.
fn resolve(args: &[String]) -> Result<Vec<arbiter::bot::BotSpec>> {
    let mut specs = Vec::with_capacity(args.len());
    for a in args {
        if a == HUMAN && !std::path::Path::new(a).exists() {
            specs.push(arbiter::bot::BotSpec::command(
                HUMAN,
                std::env::current_exe().context("finding arbiter's own program")?,
                vec!["human-seat".into()],
                std::env::current_dir()?,
            ));
        } else {
            specs.extend(cli::resolve_bots(std::slice::from_ref(a))?);
        }
    }
    Ok(specs)
}

pub fn run(args: PlayArgs, given: &cli::Given) -> Result<ExitCode> {
    let choice = args.game.choice()?;
    let mut cfg = args.game.referee_config(choice.default_max_turns())?;
    if args.bots.len() != choice.seats() {
        anyhow::bail!(
            "{} is played by {} bots, but {} were given{}",
            choice.describe(),
            choice.seats(),
            args.bots.len(),
            if choice.can_seat(args.bots.len()) {
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
    if let Some(note) = args.game.memory_note() {
        eprintln!("arbiter: {note}");
    }
    // An SDK game's referee is checked as a run's is: its first frame tells the game's own
    // turn limits, which the bots are then told (and the replay keeps) as each turn enforces.
    if choice.sdk_game().is_some() {
        choice.check(&mut cfg)?;
    }
    cfg.record_turns = args.replay.is_some();
    cfg.record_inputs = cfg.record_turns;
    let bots = resolve(&args.bots)?;
    for bot in &bots {
        bot.plays(choice.name())?;
    }
    // A person has no clock unless one is asked for (--turn-ms, --first-turn-ms).
    let clocked = given
        .options
        .iter()
        .any(|(id, _)| id.replace('_', "-").contains("turn-ms"));
    if args.bots.iter().any(|b| b == HUMAN) && !clocked {
        cfg.time.turn = std::time::Duration::from_secs(86_400);
        cfg.time.first_turn = cfg.time.turn;
    }
    let seed = args.seed.unwrap_or_else(cli::fresh_seed);
    let start = || choice.start(seed).map(|g| (g, Vec::new()));
    let result =
        referee::play_choice(&choice, start, &bots, &cfg, seed).map_err(|e| match e.machine() {
            Some(m) => anyhow::anyhow!("{}; {} ({})", e.detail(), m.what(), m.advice()),
            None => anyhow::Error::msg(e.detail()),
        })?;
    // A bot given as a source file runs from its build folder in the cache: its stderr is
    // shown with the path the user gave instead (the replay file keeps the raw text, and the
    // bots as typed for its page).
    let workdir = std::path::absolute(".")?;
    let cache = arbiter::bot::host::cache_root();
    if let Some(path) = &args.replay {
        let typed = arbiter::results::replay::Typed {
            bots: &args.bots,
            workdir: &workdir,
            cache: &cache,
        };
        arbiter::results::replay::write_typed(path, &result, &cfg, &choice, Some(typed))
            .with_context(|| format!("writing the replay to {}", path.display()))?;
        // An SDK game's own viewer, for the page `arbiter replay` makes of the file.
        if let Some(game) = choice.sdk_game() {
            let viewer = report::html::sdk_view::beside(path);
            if let Err(e) = report::html::sdk_view::install_at(&viewer, game) {
                eprintln!(
                    "arbiter: warning: the replay's page will show the game as text steps: its \
                     viewer could not be written to {}: {e}",
                    viewer.display()
                );
            }
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        report::play::json(&mut out, &result)?;
    } else {
        let mut shown = result;
        report::html::origins::Origins::of_args(&args.bots, &workdir, &cache)
            .show_seats(&shown.bots, &mut shown.stderr_tails);
        report::play::human(
            &mut out,
            &shown,
            choice.own_scores(),
            args.replay.as_deref(),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
