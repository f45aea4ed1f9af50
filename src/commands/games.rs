//! `arbiter games [NAME]` lists the games, or shows one game's statement; `arbiter perft` counts
//! move sequences, the rules author's check.

use crate::cli::{GamesArgs, PerftArgs};
use anyhow::{bail, Result};
use arbiter::game;
use arbiter::referee::GameChoice;
use arbiter::report::catalogue::{self, PerftLine};
use std::process::ExitCode;
use std::time::Instant;

pub fn games(args: GamesArgs) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if let Some(referee) = &args.referee {
        let Some(detected) = arbiter::referee::sdk::detect(referee, None) else {
            bail!(
                "{referee} is not a CodinGame SDK game (a source folder with a pom.xml and \
                 src/main/java, or a jar or class path holding com/codingame/game/Referee.class): \
                 `arbiter games --referee` shows an SDK game's players and leagues"
            );
        };
        let folder = arbiter::referee::sdk::game_folder(&detected);
        catalogue::sdk_game(&mut out, referee, folder.as_deref())?;
        return Ok(ExitCode::SUCCESS);
    }
    match &args.name {
        None => catalogue::list(&mut out)?,
        Some(name) => catalogue::statement(&mut out, game::find(name)?)?,
    }
    Ok(ExitCode::SUCCESS)
}

pub fn perft(args: PerftArgs) -> Result<ExitCode> {
    let choice = GameChoice::new(
        &args.game,
        args.variant.as_deref(),
        args.seats,
        args.position.as_deref(),
    )?;
    let game = choice.start(args.seed)?;
    if args.depth == 0 {
        bail!("DEPTH must be at least 1");
    }
    let mut out = std::io::stdout().lock();
    catalogue::perft_header(&mut out, game.as_ref())?;
    if args.divide {
        let rows: Vec<(String, u64)> = game
            .legal_moves()
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut child = game.box_clone();
                child.play(i);
                (m.clone(), game::perft(child.as_ref(), args.depth - 1))
            })
            .collect();
        catalogue::perft_divide(&mut out, &rows)?;
        return Ok(ExitCode::SUCCESS);
    }
    for depth in 1..=args.depth {
        let started = Instant::now();
        let nodes = game::perft(game.as_ref(), depth);
        catalogue::perft_line(
            &mut out,
            &PerftLine {
                depth,
                nodes,
                took: started.elapsed(),
            },
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
