//! `arbiter tournament`: flags -> settings ([`arbiter::engine::start`]) -> bots checked -> the
//! run engine with the terminal's consumers ([`arbiter::report::run_display`]) -> standings.

use crate::cli::{self, RunFolder, TournamentArgs};
use anyhow::Result;
use arbiter::engine::settings::Recorded;
use arbiter::engine::settings::TournamentSettings as Settings;
use arbiter::engine::start::{self, GROW_MAY_CHANGE, RESUME_MAY_CHANGE};
use arbiter::report::{run_display, run_start, standings};
use arbiter::results::lock::FolderLock;
use arbiter::tournament::Runner;
use std::process::ExitCode;

pub fn run(args: TournamentArgs, given: &cli::Given) -> Result<ExitCode> {
    if args.grow {
        start::check_grow(given.outside(&[RESUME_MAY_CHANGE, GROW_MAY_CHANGE].concat()))?;
    } else {
        let changed = given.outside(RESUME_MAY_CHANGE);
        start::check_resume(args.resume.as_deref(), Settings::FILE, changed)?;
    }
    let anchor = args.anchor.as_deref().map(cli::parse_anchor).transpose()?;
    let (settings, out, resuming) = args.open(|| Settings::fresh(args.request()))?;
    let _lock = FolderLock::acquire(&out)?;
    let settings = if args.grow {
        let seats = settings.game.choice_in(Some(&settings.workdir))?.seats() as u32;
        let games = given.has("games").then_some(args.games);
        settings.grow(games, &args.add_bot, seats)?
    } else {
        settings
    };
    let choice = settings.game.choice_in(Some(&settings.workdir))?;
    let book = settings.openings.book(&choice, settings.seed)?;
    let seats = choice.seats();
    let mut cfg = settings
        .game
        .referee_config_in(choice.default_max_turns(), Some(&settings.workdir))?;
    // Every game keeps its turns for records.jsonl (the replay pages of report.html).
    cfg.record_turns = true;
    // Replay files (`--replays`) hold the inputs too.
    cfg.record_inputs = settings.replays;
    // A referee that cannot start or speak the protocol stops the run before any game.
    choice.check(&cfg)?;
    let resolved = arbiter::engine::resolve_in(&settings.bots, &settings.workdir);
    let mut field = run_display::check_bots(resolved, &cfg, !args.no_build)?;
    run_start::lines(field.mark_wrong_game(choice.name()));
    let playing = field.check_field(args.skip_broken_bots, seats, &choice.describe())?;
    let active = field.active();

    arbiter::engine::settings::save(&out, &settings)?;
    let (mut csv, done) = start::open_games(&out, seats)?;
    let todo = settings.games_to_play(seats, &active, &done);
    run_start::lines(settings.game.memory_note());
    let placement = args.run.placement(cfg.freeze_idle);
    run_start::placement(&placement);
    run_start::tournament(&run_start::TournamentStart {
        dir: &out,
        resumed: resuming.then_some((done.len(), todo.len())),
        games: todo.len(),
        game: &choice.describe(),
        playing,
        placement: &placement,
        seed: settings.seed,
        shard: settings.shard,
    });
    arbiter::report::run_start::eprint_busy(cfg.time.clock);

    arbiter::bot::cleanup::set_stop_hint(format!(
        "continue with: arbiter tournament --resume {}",
        out.display()
    ));
    let runner = Runner {
        bots: &field.specs,
        game: &choice,
        opening_plies: settings.opening_plies,
        book: book.as_ref(),
        referee: &cfg,
        concurrency: placement.concurrency,
        pin_cpus: placement.pin_cpus,
    };
    let played = run_display::play_and_record(
        &runner,
        &todo,
        &mut csv,
        &out,
        settings.replays,
        &mut |_, _| std::ops::ControlFlow::Continue(()),
        None,
    )?;
    if let Some(e) = played.failure {
        return Err(e.into());
    }

    let order = field.playing();
    let (table, _) = standings::from_files(&[csv.path().to_path_buf()], &order, anchor.as_ref())?;
    standings::write_files(&out, &table)?;
    arbiter::report::run_end::tournament(
        &mut std::io::stdout().lock(),
        &table,
        &field.left_out(),
        &out,
        &played.report,
        settings.shard,
    )?;
    if table.referee_errors > 0 {
        eprintln!(
            "arbiter: error: {} games could not be played: the referee failed (see Referee \
             errors above); fix the referee, then play them again in a new results folder",
            table.referee_errors
        );
        return Ok(ExitCode::from(crate::commands::ERROR_EXIT));
    }
    Ok(ExitCode::SUCCESS)
}
