//! What the commands that play many games into a results folder share (tournament, grade):
//! checking that each resolved bot builds and starts, and playing a list of games while each
//! finished game is recorded (games.csv, failures/, replays/) the moment it ends.

use anyhow::{bail, Result};
use arbiter::bot::{BotProcess, BotSpec, SpecError};
use arbiter::game::GameChoice;
use arbiter::report::games_csv::{GameRow, GamesCsv};
use arbiter::report::{self, progress::Progress};
use arbiter::tournament::{GameSpec, Runner};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Builds and test-starts every resolved bot (`(origin, resolution)` pairs). A bot that fails is
/// reported and kept with its problem (a placeholder spec stands in for one that did not
/// resolve); a clash of names is an error.
pub fn check_bots(
    resolved: Vec<(String, Result<BotSpec, SpecError>)>,
    cfg: &arbiter::referee::RefereeConfig,
    build: bool,
) -> Result<(Vec<BotSpec>, Vec<Option<String>>)> {
    let mut specs = Vec::new();
    let mut ok: Vec<Option<String>> = Vec::new();
    for (origin, resolution) in resolved {
        match resolution {
            Ok(spec) => {
                specs.push(spec);
                ok.push(None);
            }
            Err(e) => {
                eprintln!("arbiter: bot '{origin}' cannot play: {e}");
                specs.push(BotSpec {
                    name: origin.clone(),
                    origin: origin.clone(),
                    program: PathBuf::from(&origin),
                    args: Vec::new(),
                    dir: PathBuf::from("."),
                    build: None,
                });
                ok.push(Some(e.to_string()));
            }
        }
    }
    for (i, a) in specs.iter().enumerate() {
        if let Some(b) = specs[..i].iter().find(|b| b.name == a.name) {
            bail!(
                "two bots are named '{}' ({} and {}); names come from bot.toml or the file name and must be unique: name one on the command line, e.g. {}2={}",
                a.name,
                b.origin,
                a.origin,
                a.name,
                shell_words::quote(&a.origin)
            );
        }
    }
    for (spec, ok) in specs
        .iter()
        .zip(ok.iter_mut())
        .filter(|(_, ok)| ok.is_none())
    {
        let built = match &spec.build {
            Some(command) if build => {
                eprintln!("arbiter: building {} ({command})", spec.name);
                spec.build()
            }
            _ => Ok(()),
        };
        let checked = built.map_err(anyhow::Error::from).and_then(|()| {
            let mut p = BotProcess::spawn(spec, &cfg.limits, &[])?;
            p.shutdown(cfg.kill_grace);
            Ok(())
        });
        if let Err(e) = checked {
            let text = arbiter::report::errors::chain_text(e.as_ref());
            eprintln!("arbiter: bot '{}' cannot play: {text}", spec.name);
            *ok = Some(text);
        }
    }
    Ok((specs, ok))
}

/// Plays `todo` with `runner` under a progress display, appending each finished game to `csv`
/// and to the records (records.jsonl, from which the report's replay pages are drawn), writing
/// its forfeits (and with `replays` its replay file) under `out`, and rewriting report.html as
/// games finish. The first error in recording stops handing out games and is returned (with the
/// report's path) once the games under way have ended.
pub fn play_and_record(
    runner: &Runner,
    todo: &[GameSpec],
    csv: &mut GamesCsv,
    out: &Path,
    replays: bool,
    choice: &GameChoice,
) -> Result<(Option<anyhow::Error>, Result<PathBuf>)> {
    let names: Vec<String> = runner.bots.iter().map(|b| b.name.clone()).collect();
    let mut progress = Progress::new(todo.len() as u64, &names);
    let mut records = report::records::RecordsFile::open(&out.join(report::records::FILE))?;
    let mut live = report::html::LiveReport::new(out, &names);
    let mut failure: Option<anyhow::Error> = None;
    let mut starved = report::starved::Starved::default();
    runner.run(todo, |finished| {
        if killed_while_stopping(&finished.result) {
            return ControlFlow::Break(());
        }
        let row = GameRow::new(&finished.spec, &finished.result);
        let mut write = || -> Result<()> {
            csv.append(&row)?;
            let record = report::records::GameRecord::new(
                &finished.spec,
                choice,
                runner.referee,
                &finished.result,
            );
            starved.add(&record);
            records.append(&record)?;
            report::failures::write(out, finished.spec.game_id, &finished.result)?;
            if replays {
                let path = out
                    .join("replays")
                    .join(format!("game-{}.jsonl", finished.spec.game_id));
                report::replay::write(&path, &finished.result, runner.referee, choice)?;
            }
            Ok(())
        };
        if let Err(e) = write() {
            failure = Some(e.context(format!("recording game {}", finished.spec.game_id)));
            return ControlFlow::Break(());
        }
        progress.game_done(&finished.result);
        live.tick();
        ControlFlow::Continue(())
    });
    progress.finish();
    starved.eprint();
    let report_path = live.write(report::html::Pages::Missing);
    Ok((failure, report_path))
}

/// Whether a game ended by a bot killed by a signal is the work of a stop of the whole job
/// (see [`arbiter::bot::cleanup::stopping_within`]): such a game is not recorded.
fn killed_while_stopping(result: &arbiter::referee::GameResult) -> bool {
    result
        .forfeits
        .iter()
        .any(|f| f.detail.contains("killed by signal"))
        && arbiter::bot::cleanup::stopping_within(std::time::Duration::from_millis(500))
}
