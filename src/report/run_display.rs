//! A run of many games into a results folder (tournament, sprt, grade) as the terminal follows
//! it: the consumer of the run engine ([`crate::engine`]) that renders the bot-check lines, the
//! notes and warnings before the games, the progress display and the live report. The engine
//! drives; this only shows.

use crate::engine::{self, DriveReport, Event, Note};
use crate::report::{self, progress::Progress};
use crate::tournament::Runner;
use std::ops::ControlFlow;
use std::path::PathBuf;

/// Whether report.html was written (where), or why not.
pub type ReportWritten = Result<PathBuf, report::html::ReportError>;

/// The terminal's view of a run (every event but the kind's own start line, which the command
/// shows): the bot checks, notices, the placement warnings, then for each round of games the
/// progress display and the live report ([`Display`]).
#[derive(Default)]
pub struct Terminal {
    display: Option<Display>,
    report: Option<ReportWritten>,
}

impl Terminal {
    /// The last round's report.html (`None`: no games were played, or a stop signal ended them).
    pub fn take_report(&mut self) -> Option<ReportWritten> {
        self.report.take()
    }
}

impl engine::Consumer for Terminal {
    fn event(&mut self, event: &Event<'_>) -> ControlFlow<()> {
        match event {
            Event::BotBuilding { .. } | Event::BotBuilt { .. } | Event::BotBroken { .. } => {
                return report::progress::bot_check_lines(event)
            }
            Event::Notice(line) => super::run_start::lines([line]),
            Event::Ready(ready) => super::run_start::placement(ready.placement),
            Event::Playing { runner, games, dir } => {
                if let Some(game) = runner.game.sdk_game() {
                    super::run_start::sdk_view(dir, game);
                }
                self.display = Some(Display::new(runner, *games, dir));
            }
            Event::Played(played) => {
                if let Some(display) = self.display.take() {
                    self.report = display.finish(played);
                }
            }
            _ => {
                if let Some(display) = &mut self.display {
                    return display.event(event);
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// What the progress display and the live report are told, on their own thread.
enum ToShow {
    Game(report::progress::GameDone),
    Note(Note),
}

/// The progress display and the live report of a run's games, as one consumer of the engine
/// that runs on a thread of its own ([`engine::Detached`]), so that drawing and page writing
/// delay neither the recording nor a decision taken on the engine's thread.
pub struct Display(engine::Detached<(Progress, report::html::LiveReport), ToShow>);

impl Display {
    /// The display of `games` games played by `runner` into the results folder `out` (where
    /// the live report rewrites report.html as games finish).
    pub fn new(runner: &Runner, games: usize, out: &std::path::Path) -> Display {
        let names: Vec<String> = runner.bots.iter().map(|b| b.name.clone()).collect();
        let progress = Progress::new(games as u64, &names);
        let live = report::html::LiveReport::new(out, &names);
        Display(engine::Detached::spawn(
            (progress, live),
            |event: &Event<'_>| match event {
                Event::GameFinished(f) => {
                    Some(ToShow::Game(report::progress::GameDone::of(&f.result)))
                }
                Event::Note(note) => Some(ToShow::Note((*note).clone())),
                _ => None,
            },
            |(progress, live): &mut (Progress, report::html::LiveReport), shown| match shown {
                ToShow::Game(result) => {
                    live.tick();
                    progress.game_done(&result);
                }
                ToShow::Note(note) => show_note(progress, note),
            },
        ))
    }

    /// Ends the display once the games are over: its last line, the note on games the machine
    /// starved, and report.html written with its missing pages (`None` after a stop signal: the
    /// run ends at once, its games are recorded, and the report is written when it continues).
    pub fn finish(self, played: &DriveReport) -> Option<ReportWritten> {
        let (mut progress, mut live) = self.0.finish();
        progress.finish();
        if played.stopped.is_some() {
            return None;
        }
        super::run_start::starved(&played.starved);
        Some(live.write(report::html::Pages::Missing))
    }
}

impl engine::Consumer for Display {
    fn event(&mut self, event: &Event<'_>) -> ControlFlow<()> {
        self.0.event(event)
    }
}

/// A consumer's note on the progress display.
fn show_note(progress: &mut Progress, note: Note) {
    match note {
        Note::Bounded => progress.bounded(),
        Note::Decided => progress.decided(),
        Note::Sprt {
            llr,
            lower,
            upper,
            elo,
        } => {
            let elo = elo.map_or("n/a".into(), |e| e.elo_text());
            progress.set_extra(format!("LLR {llr:.2} ({lower:.2}, {upper:.2}), Elo {elo}"));
        }
    }
}
