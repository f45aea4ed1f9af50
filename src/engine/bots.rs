//! Before any game: each bot of a run resolves, builds (if it has a build command) and starts.
//! A bot that cannot play is kept with its problem, so the command decides whether the run goes
//! on without it; the steps are told as [`Event`]s, never printed here.

use super::{tell, Consumer, Event};
use crate::bot::{BotProcess, BotSpec, SpecError};
use crate::referee::RefereeConfig;
use std::path::PathBuf;
use std::time::Instant;

/// Each bot of a run, checked.
pub struct BotCheck {
    /// Every bot in the order given (a placeholder spec for one that did not resolve).
    pub specs: Vec<BotSpec>,
    /// For each bot, why it cannot play (`None`: it can).
    pub problems: Vec<Option<String>>,
}

/// Two bots share a name (names come from bot.toml or the file name and must be unique).
#[derive(Debug, thiserror::Error)]
#[error(
    "two bots are named '{name}' ({first} and {second}); names come from bot.toml or the file name and must be unique: name one on the command line, e.g. {name}2={}", shell_words::quote(second)
)]
pub struct NameClash {
    pub name: String,
    pub first: String,
    pub second: String,
}

/// Bots that could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum CheckBotsError {
    #[error(transparent)]
    Clash(#[from] NameClash),
    /// The machine could not start a bot to test it: no bot is broken.
    #[error(
        "bot '{bot}' could not be test-started: {}: {detail}; no bot failed, so none is called \
         broken: {}, then start again", fault.what(), fault.advice()
    )]
    Machine {
        bot: String,
        fault: crate::bot::MachineFault,
        detail: String,
    },
}

/// Resolves every BOT argument as typed in `workdir`, where the run began: paths are found from
/// there without changing the process's working directory (shared by every thread).
pub fn resolve_in(
    origins: &[String],
    workdir: &std::path::Path,
) -> Vec<(String, Result<BotSpec, SpecError>)> {
    let elsewhere = (std::env::current_dir().ok().as_deref() != Some(workdir)).then_some(workdir);
    origins
        .iter()
        .map(|o| (o.clone(), BotSpec::resolve_named_in(o, elsewhere)))
        .collect()
}

/// Builds (if `build`) and test-starts every resolved bot (`(origin, resolution)` pairs),
/// telling `consumers` as it goes. A clash of names is an error.
pub fn check_bots(
    resolved: Vec<(String, Result<BotSpec, SpecError>)>,
    cfg: &RefereeConfig,
    build: bool,
    consumers: &mut [&mut dyn Consumer],
) -> Result<BotCheck, CheckBotsError> {
    let mut specs = Vec::new();
    let mut problems: Vec<Option<String>> = Vec::new();
    for (origin, resolution) in resolved {
        match resolution {
            Ok(spec) => {
                specs.push(spec);
                problems.push(None);
            }
            Err(e) => {
                let problem = e.to_string();
                let _ = tell(
                    consumers,
                    &Event::BotBroken {
                        bot: specs.len(),
                        name: &origin,
                        problem: &problem,
                    },
                );
                specs.push(BotSpec {
                    name: origin.clone(),
                    origin: origin.clone(),
                    program: PathBuf::from(&origin),
                    args: Vec::new(),
                    dir: PathBuf::from("."),
                    build: None,
                });
                problems.push(Some(problem));
            }
        }
    }
    for (i, a) in specs.iter().enumerate() {
        if let Some(b) = specs[..i].iter().find(|b| b.name == a.name) {
            return Err(NameClash {
                name: a.name.clone(),
                first: b.origin.clone(),
                second: a.origin.clone(),
            }
            .into());
        }
    }
    for bot in 0..specs.len() {
        if problems[bot].is_some() {
            continue;
        }
        let spec = &specs[bot];
        let built = match &spec.build {
            Some(command) if build => {
                // Announced only when it runs (not for a folder unchanged since its last build).
                let announced = spec.needs_build();
                let name = &spec.name;
                if announced {
                    let _ = tell(consumers, &Event::BotBuilding { bot, name, command });
                }
                let began = Instant::now();
                let built = spec.build();
                if announced {
                    let (took, ok) = (began.elapsed(), built.is_ok());
                    let _ = tell(
                        consumers,
                        &Event::BotBuilt {
                            bot,
                            name,
                            took,
                            ok,
                        },
                    );
                }
                built.map_err(|e| chain(&e))
            }
            _ => Ok(None),
        };
        // A build made in the box runs from its copy in the build cache.
        let built = built.map(|copy| {
            if let Some(copy) = copy {
                specs[bot] = copy;
            }
        });
        let spec = &specs[bot];
        let started = match built {
            Ok(()) => Some(BotProcess::spawn(spec, &cfg.limits, &[])),
            Err(_) => None,
        };
        if let Some(Err(e)) = &started {
            if let Some(fault) = e.machine {
                return Err(CheckBotsError::Machine {
                    bot: spec.name.clone(),
                    fault,
                    detail: chain(e),
                });
            }
        }
        let checked = built.and_then(|()| match started {
            Some(Ok(mut p)) => {
                p.shutdown(cfg.kill_grace);
                Ok(())
            }
            Some(Err(e)) => Err(chain(&e)),
            None => Ok(()),
        });
        match checked {
            Ok(()) => {
                let name = &spec.name;
                let _ = tell(consumers, &Event::BotReady { bot, name });
            }
            Err(problem) => {
                let _ = tell(
                    consumers,
                    &Event::BotBroken {
                        bot,
                        name: &spec.name,
                        problem: &problem,
                    },
                );
                problems[bot] = Some(problem);
            }
        }
    }
    Ok(BotCheck { specs, problems })
}

/// An error with its causes, each said once (see [`crate::errors::chain_text`]).
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    crate::errors::chain_text(e)
}
