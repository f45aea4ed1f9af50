//! A game given built: a jar or a class path, copied into a run folder of the build cache (named
//! by its contents) with arbiter's launcher compiled beside it, so that a sandboxed referee sees
//! only that folder and the system's. The engine must be in it: without a pom.xml arbiter cannot
//! tell which engine version the game was written against.

use super::{files_under, run_folder, steps, Boxing, BuiltGame, SdkBuildError, GAME_RECIPE};
use crate::bot::build_box::BuildStage;
use crate::bot::source::hash_hex;
use crate::referee::sdk::launcher;
use std::path::{Path, PathBuf};

/// The engine class whose presence says a jar or class path holds the engine already.
const REFEREE_MAIN_FILE: &str = "com/codingame/gameengine/core/RefereeMain.class";

/// A jar or class path given built: copied into a run folder of the cache (named by the
/// contents), with arbiter's launcher compiled beside it. The engine must be in it (a fat jar,
/// as the SDK's Maven template makes): arbiter cannot tell its version.
pub(super) fn prebuilt(root: &Path, parts: &[PathBuf]) -> Result<BuiltGame, SdkBuildError> {
    let read_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SdkBuildError::Read {
            folder: path.clone(),
            path,
            source,
        }
    };
    let mut key = Vec::new();
    for part in [GAME_RECIPE, "prebuilt", launcher::SOURCE_HASH_INPUT] {
        key.extend_from_slice(part.as_bytes());
        key.push(0);
    }
    for (i, part) in parts.iter().enumerate() {
        key.extend_from_slice(format!("{i}\0").as_bytes());
        if part.is_dir() {
            for rel in files_under(part, &|_| true).map_err(read_err(part))? {
                key.extend_from_slice(rel.as_os_str().as_encoded_bytes());
                key.push(0);
                key.extend_from_slice(&std::fs::read(part.join(&rel)).map_err(read_err(part))?);
            }
        } else {
            key.extend_from_slice(&std::fs::read(part).map_err(read_err(part))?);
        }
        key.push(0);
    }
    let dest = root.join(format!("sdk-built-{}", &hash_hex(&key)[..32]));
    let engine_in = parts.iter().any(|p| {
        if p.is_dir() {
            p.join(REFEREE_MAIN_FILE).is_file()
        } else {
            jar_holds(p, REFEREE_MAIN_FILE)
        }
    });
    if !engine_in {
        return Err(SdkBuildError::NoEngineInJar {
            given: parts.to_vec(),
        });
    }
    if !dest.is_dir() {
        let jars = super::jars::debian_jars()?;
        let cache_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| SdkBuildError::Cache { path, source }
        };
        std::fs::create_dir_all(root).map_err(cache_err(root))?;
        let stage = BuildStage::new().map_err(cache_err(&std::env::temp_dir()))?;
        let work = stage.dir();
        for (i, part) in parts.iter().enumerate() {
            let to = work.join("lib").join(format!("{i:03}"));
            if part.is_dir() {
                for rel in files_under(part, &|_| true).map_err(read_err(part))? {
                    let file = to.join(&rel);
                    std::fs::create_dir_all(file.parent().unwrap_or(&to))
                        .map_err(cache_err(&file))?;
                    std::fs::copy(part.join(&rel), &file).map_err(read_err(&part.join(&rel)))?;
                }
            } else {
                std::fs::create_dir_all(work.join("lib")).map_err(cache_err(work))?;
                std::fs::copy(part, to.with_extension("jar")).map_err(read_err(part))?;
            }
        }
        launcher::write_source(work).map_err(cache_err(work))?;
        let cp = jars
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":");
        let step = steps::javac(&cp, "launcher", launcher::SOURCE_FILE);
        let outcome = steps::run(&step, work, Boxing::Boxed)?;
        if !outcome.success {
            return Err(SdkBuildError::EngineCompile {
                version: "(arbiter's launcher)".into(),
                command: step.join(" "),
                status: outcome.status,
                output: steps::clip(&outcome.output),
            });
        }
        let _ = std::fs::remove_file(work.join(launcher::SOURCE_FILE));
        stage.install(&dest)?;
    }
    Ok(run_folder(dest, None))
}

pub(super) fn join_paths(paths: &[PathBuf]) -> String {
    let texts: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    texts.join(":")
}

/// Whether the zip file `jar` names an entry `name` (its central directory is read as bytes:
/// a name is stored plainly there).
fn jar_holds(jar: &Path, name: &str) -> bool {
    std::fs::read(jar).is_ok_and(|bytes| bytes.windows(name.len()).any(|w| w == name.as_bytes()))
}
