//! `arbiter tournament`: flags -> settings ([`arbiter::engine::start`]) -> the run engine
//! ([`arbiter::engine::run`]) with the terminal's consumer ([`arbiter::report::run_display`])
//! -> standings.

use crate::cli::{self, RunFolder, TournamentArgs};
use anyhow::Result;
use arbiter::engine::settings::Recorded;
use arbiter::engine::settings::TournamentSettings as Settings;
use arbiter::engine::start::{self, GROW_MAY_CHANGE, RESUME_MAY_CHANGE};
use arbiter::engine::{self, BotCheck, Context, Event, Kind, RunError};
use arbiter::referee::{GameChoice, RefereeConfig};
use arbiter::report::{run_display, run_start, standings};
use arbiter::results::games_csv::DoneSet;
use arbiter::tournament::{GameSpec, Shard};
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: TournamentArgs, given: &cli::Given) -> Result<ExitCode> {
    if args.grow {
        start::check_grow(given.outside(&[RESUME_MAY_CHANGE, GROW_MAY_CHANGE].concat()))?;
    } else {
        let changed = given.outside(RESUME_MAY_CHANGE);
        start::check_resume(args.resume.as_deref(), Settings::FILE, changed)?;
    }
    let anchor = args.anchor.as_deref().map(cli::parse_anchor).transpose()?;
    let opened = args.open(|| Settings::fresh(args.request()))?;
    let placement = |freeze_idle| args.run.placement(freeze_idle);
    let request = engine::Request {
        opened,
        build: !args.no_build,
        placement: &placement,
    };
    let mut kind = Tournament {
        args: &args,
        grow_games: given.has("games").then_some(args.games),
        shard: None,
    };
    let mut terminal = run_display::Terminal::default();
    let ran = engine::run(request, &mut kind, &mut [&mut terminal])?;
    if let Some(code) = super::ended(ran.outcome) {
        return Ok(code);
    }
    let out = &ran.dir;
    let order = ran.field.playing();
    let report = terminal.take_report().unwrap_or_else(|| {
        // Every game was recorded already: the report is written all the same.
        let names: Vec<String> = ran.field.specs.iter().map(|b| b.name.clone()).collect();
        arbiter::report::html::LiveReport::new(out, &names)
            .write(arbiter::report::html::Pages::Missing)
    });
    let (table, _) = arbiter::results::standings::from_files(
        std::slice::from_ref(&ran.games_csv),
        &order,
        anchor.as_ref(),
    )?;
    standings::write_files(out, &table)?;
    arbiter::report::run_end::tournament(
        &mut std::io::stdout().lock(),
        &table,
        &ran.field.left_out(),
        out,
        &report,
        ran.settings.shard,
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

/// A tournament as a kind of run: every scheduled game of the bots that can play.
struct Tournament<'a> {
    args: &'a TournamentArgs,
    /// `--games` as given with `--grow`.
    grow_games: Option<u32>,
    /// The run's shard, for the start line.
    shard: Option<Shard>,
}

impl Kind for Tournament<'_> {
    type Settings = Settings;

    fn settle(&mut self, settings: Settings, choice: &GameChoice) -> Result<Settings, RunError> {
        self.shard = settings.shard;
        if !self.args.grow {
            return Ok(settings);
        }
        let seats = choice.seats() as u32;
        Ok(settings.grow(self.grow_games, &self.args.add_bot, seats)?)
    }

    fn configure(&self, settings: &Settings, cfg: &mut RefereeConfig) {
        // Every game keeps its turns for records.jsonl (the replay pages of report.html).
        cfg.record_turns = true;
        // Replay files (`--replays`) hold the inputs too.
        cfg.record_inputs = settings.replays;
    }

    fn skip_broken_bots(&self) -> bool {
        self.args.skip_broken_bots
    }

    fn todo(
        &mut self,
        run: &Context<'_, Settings>,
        field: &BotCheck,
        done: &DoneSet,
        _games_csv: &Path,
    ) -> Result<Vec<GameSpec>, RunError> {
        let seats = run.choice.seats();
        Ok(run.settings.games_to_play(seats, &field.active(), done))
    }
}

impl engine::Consumer for Tournament<'_> {
    fn event(&mut self, event: &Event<'_>) -> ControlFlow<()> {
        if let Event::Ready(ready) = event {
            run_start::tournament(&run_start::TournamentStart {
                dir: ready.dir,
                resumed: ready.resuming.then_some((ready.done, ready.games)),
                games: ready.games,
                game: ready.game,
                playing: ready.playing,
                placement: ready.placement,
                seed: ready.seed,
                shard: self.shard,
            });
            run_start::eprint_busy(ready.clock);
            super::set_stop_hint(format!(
                "continue with: arbiter tournament --resume {}",
                ready.dir.display()
            ));
        }
        ControlFlow::Continue(())
    }
}
