//! A run of many games into a results folder (tournament, sprt, grade) as the terminal follows
//! it: the run engine ([`crate::engine`]) with the reporter's consumers (the bot-check lines,
//! the progress display, the live report).

use crate::bot::{BotSpec, SpecError};
use crate::engine::{self, BotCheck, Event, NameClash, RecordError};
use crate::report::{self, progress::Progress};
use crate::results::games_csv::GamesCsv;
use crate::tournament::{Finished, GameSpec, Runner};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Builds and test-starts every resolved bot (`(origin, resolution)` pairs) with
/// [`engine::check_bots`], telling each step on stderr. A bot that fails is reported and kept
/// with its problem (a placeholder spec stands in for one that did not resolve); a clash of
/// names is an error.
pub fn check_bots(
    resolved: Vec<(String, Result<BotSpec, SpecError>)>,
    cfg: &crate::referee::RefereeConfig,
    build: bool,
) -> Result<BotCheck, NameClash> {
    let mut tell = report::progress::bot_check_lines;
    engine::check_bots(resolved, cfg, build, &mut [&mut tell])
}

/// Whether report.html was written (where), or why not.
pub type ReportWritten = Result<PathBuf, report::html::ReportError>;

/// How [`play_and_record`] ended.
pub struct Played {
    /// The first game that could not be recorded, and why (games stopped being handed out).
    pub failure: Option<RecordError>,
    /// The live report's last writing.
    pub report: ReportWritten,
}

/// What the progress display and the live report are told, on their own thread.
pub enum Shown {
    Game(report::progress::GameDone),
    Extra(String),
    Decided,
    Bounded,
}

/// The progress display as a follower of the games sees it: its notes are queued for the
/// display's thread, so drawing never delays the follower's decision.
pub struct ProgressNote<'a>(&'a engine::Detached<(Progress, report::html::LiveReport), Shown>);

impl ProgressNote<'_> {
    /// Text shown after the counts (an SPRT's LLR).
    pub fn set_extra(&mut self, extra: String) {
        self.0.send(Shown::Extra(extra));
    }

    /// The games to play are only the most the run may play (an SPRT's --max-pairs): the
    /// time left is shown as an upper bound.
    pub fn bounded(&mut self) {
        self.0.send(Shown::Bounded);
    }

    /// The run ends before every game is played (an SPRT decided).
    pub fn decided(&mut self) {
        self.0.send(Shown::Decided);
    }
}

/// Plays `todo` with `runner` under a progress display, recording each finished game in `out`
/// (games.csv through `csv`, records.jsonl, failures/, with `replays` its replay file) and
/// rewriting report.html as games finish; `follow` sees each recorded game too, on the
/// recording thread, with the progress display's notes (an SPRT's decision: `Break` stops
/// handing out games). The progress display and the live report run on a thread of their own,
/// so they delay neither the recording nor `follow`; `other` (the grading's tally) is told
/// every event too.
/// The first error in recording stops handing out games and is returned (with the report's
/// path) once the games under way have ended; failing to open the records is the error.
pub fn play_and_record(
    runner: &Runner,
    todo: &[GameSpec],
    csv: &mut GamesCsv,
    out: &Path,
    replays: bool,
    follow: &mut dyn FnMut(&Finished, &mut ProgressNote<'_>) -> ControlFlow<()>,
    other: Option<&mut dyn engine::Consumer>,
) -> Result<Played, RecordError> {
    let names: Vec<String> = runner.bots.iter().map(|b| b.name.clone()).collect();
    let progress = Progress::new(todo.len() as u64, &names);
    let live = report::html::LiveReport::new(out, &names);
    let mut recorder = engine::Recorder::open(csv, out, replays, runner.game, runner.referee)?;
    let display = engine::Detached::spawn(
        (progress, live),
        |_: &Event<'_>| None, // told by `shown` below, with the follower's notes in order
        |(progress, live): &mut (Progress, report::html::LiveReport), shown| match shown {
            Shown::Game(result) => {
                live.tick();
                progress.game_done(&result);
            }
            Shown::Extra(extra) => progress.set_extra(extra),
            Shown::Decided => progress.decided(),
            Shown::Bounded => progress.bounded(),
        },
    );
    let mut shown = |event: &Event<'_>| match event {
        Event::GameFinished(f) => {
            display.send(Shown::Game(report::progress::GameDone::of(&f.result)));
            follow(f, &mut ProgressNote(&display))
        }
        _ => ControlFlow::Continue(()),
    };
    let end = match other {
        Some(other) => engine::play(runner, todo, &mut recorder, &mut [&mut shown, other]),
        None => engine::play(runner, todo, &mut recorder, &mut [&mut shown]),
    };
    let (mut progress, mut live) = display.finish();
    progress.finish();
    super::run_start::starved(recorder.starved());
    Ok(Played {
        failure: end.failure.map(|(_, e)| e),
        report: live.write(report::html::Pages::Missing),
    })
}
