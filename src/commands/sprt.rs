//! `arbiter sprt NEW OLD`: plays pairs of games (same seed and opening, seats swapped) until the
//! sequential probability ratio test on the pentanomial pair scores accepts H0 or H1.
//! Flags -> settings ([`arbiter::engine::start`]) -> the run engine ([`arbiter::engine::run`])
//! with the test as its kind ([`arbiter::engine::sprt`] decides) and the terminal's consumer
//! -> the result block.

use crate::cli::{RunFolder, SprtArgs};
use anyhow::Result;
use arbiter::engine::settings::{Recorded, SprtSettings as Settings};
use arbiter::engine::sprt::SprtFollower;
use arbiter::engine::start::{self, RESUME_MAY_CHANGE};
use arbiter::engine::{self, BotCheck, Context, Event, Kind, Note, RunError};
use arbiter::rating::{Decision, EloEstimate, SprtParams};
use arbiter::referee::{GameChoice, RefereeConfig};
use arbiter::report::{self, run_display, run_start, sprt_block};
use arbiter::results::games_csv::DoneSet;
use arbiter::tournament::GameSpec;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: SprtArgs, given: &crate::cli::Given) -> Result<ExitCode> {
    let changed = given.outside(RESUME_MAY_CHANGE);
    start::check_resume(args.resume.as_deref(), Settings::FILE, changed)?;
    let opened = args.open(|| Settings::fresh(args.request()))?;
    let params = opened.settings.sprt.params()?;
    let placement = |freeze_idle| args.run.placement(freeze_idle);
    let request = engine::Request {
        opened,
        build: true,
        placement: &placement,
    };
    let mut kind = Sprt {
        test: SprtFollower::new(params, ""),
        params,
        names: (String::new(), String::new()),
        max_pairs: 0,
        done: DoneSet::default(),
        bounded: false,
        notes: Vec::new(),
    };
    let mut terminal = run_display::Terminal::default();
    let ran = engine::run(request, &mut kind, &mut [&mut terminal])?;
    if let Some(code) = super::ended(ran.outcome) {
        return Ok(code);
    }

    let (new_name, old_name) = &kind.names;
    let test = &kind.test;
    let mut stdout = std::io::stdout().lock();
    let decision = test.decision;
    sprt_block::print_result(
        &mut stdout,
        new_name,
        old_name,
        &test.pairs,
        &params,
        test.llr(),
        decision,
    )?;
    writeln!(stdout, "Results: {}", ran.dir.display())?;
    let report_path = terminal.take_report().unwrap_or_else(|| {
        report::html::LiveReport::new(&ran.dir, &[new_name.clone(), old_name.clone()])
            .write(report::html::Pages::Missing)
    });
    report::run_end::report_line(&mut stdout, &report_path)?;
    Ok(ExitCode::from(match decision {
        Decision::AcceptH1 => 0,
        Decision::AcceptH0 => 1,
        Decision::Continue => 2,
    }))
}

/// An SPRT as a kind of run: the pairs of games of the candidate and the reference, until the
/// test decides.
struct Sprt {
    test: SprtFollower,
    params: SprtParams,
    /// The candidate's and the reference's names.
    names: (String, String),
    max_pairs: u64,
    /// The games recorded.
    done: DoneSet,
    /// Whether the progress display was told that the games are at most --max-pairs'.
    bounded: bool,
    /// For the progress display, after the game just told.
    notes: Vec<Note>,
}

impl Kind for Sprt {
    type Settings = Settings;

    fn settle(&mut self, settings: Settings, choice: &GameChoice) -> Result<Settings, RunError> {
        settings.check_seats(choice)?;
        self.max_pairs = settings.max_pairs;
        Ok(settings)
    }

    fn configure(&self, _settings: &Settings, cfg: &mut RefereeConfig) {
        cfg.record_turns = true;
    }

    fn check_field(
        &mut self,
        _run: &Context<'_, Settings>,
        field: &mut BotCheck,
    ) -> Result<usize, RunError> {
        field.check_all()?;
        self.names = (field.specs[0].name.clone(), field.specs[1].name.clone());
        Ok(2)
    }

    fn todo(
        &mut self,
        run: &Context<'_, Settings>,
        _field: &BotCheck,
        done: &DoneSet,
        games_csv: &Path,
    ) -> Result<Vec<GameSpec>, RunError> {
        self.test = SprtFollower::new(self.params, &self.names.0);
        self.test
            .read(games_csv)
            .map_err(|e| RunError::Kind(Box::new(e)))?;
        self.done = done.clone();
        // The test stops handing out games when it decides; the games then under way still
        // finish, are recorded and counted, and may take the LLR back between the bounds.
        if self.test.decided() {
            return Ok(Vec::new());
        }
        Ok(run.settings.games_to_play(done)?)
    }

    /// The result is the decision on every game recorded (the set games.csv, `arbiter stats`
    /// and a continued test see), so where the late games undid the decision the test plays on.
    fn again(&mut self, todo: &mut Vec<GameSpec>) -> bool {
        todo.retain(|g| !self.done.contains(g.game_id));
        !self.test.decided() && !todo.is_empty()
    }
}

impl engine::Consumer for Sprt {
    fn event(&mut self, event: &Event<'_>) -> ControlFlow<()> {
        match event {
            Event::Ready(ready) => {
                run_start::sprt(&run_start::SprtStart {
                    dir: ready.dir,
                    resumed: ready.resuming.then(|| self.test.pairs.penta.pairs()),
                    new: &self.names.0,
                    old: &self.names.1,
                    params: &self.params,
                    max_pairs: self.max_pairs,
                    placement: ready.placement,
                    seed: ready.seed,
                });
                super::set_stop_hint(format!(
                    "continue with: arbiter sprt --resume {}",
                    ready.dir.display()
                ));
            }
            Event::Playing { .. } => self.bounded = false,
            Event::GameFinished(finished) => {
                // The games to play are --max-pairs': the time left is at most what they take.
                if !std::mem::replace(&mut self.bounded, true) {
                    self.notes.push(Note::Bounded);
                }
                self.done.insert(finished.spec.game_id);
                if let Some(llr) = self.test.add(finished) {
                    let (lower, upper) = self.params.bounds();
                    let elo = EloEstimate::from_pentanomial(&self.test.pairs.penta);
                    self.notes.push(Note::Sprt {
                        llr,
                        lower,
                        upper,
                        elo,
                    });
                }
                if self.test.decided() {
                    self.notes.push(Note::Decided);
                    return ControlFlow::Break(());
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn notes(&mut self) -> Vec<Note> {
        std::mem::take(&mut self.notes)
    }
}
