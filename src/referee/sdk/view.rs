//! The files of an SDK game's own viewer, gathered from its class path as the SDK's runner
//! gathers them: every entry's `view/` folder (a class folder's, or a jar's), the game's first.
//! A game's `src/main/resources/view/` (its `config.js`, its modules and `assets/`) reaches
//! its class path when it is built (by Maven, or by arbiter: see [`super::build`]), and the
//! engine's (the core's `Drawer`, each module's view, the runner's PIXI library) is in the
//! engine's jars: Maven's, or the one arbiter builds from the user's clone of the engine. The
//! replay pages draw the game from these files ([`crate::report::html::sdk_view`]); arbiter
//! ships none of them (they are the engine's and the game's, under their own licences).

mod zip;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Most bytes of view files read from one class path (Spring Challenge 2021's whole view, the
/// engine's included, is 6 MB).
pub const VIEW_BUDGET: u64 = 64 << 20;

/// A viewer's files by their path in the view folder (`core/Drawer.js`, `config.js`,
/// `assets/board.png`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ViewFiles {
    pub files: BTreeMap<String, Vec<u8>>,
}

/// Why a class path's view files could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error("cannot read the view files of {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the view files of the class path are over {} MiB: not copied", VIEW_BUDGET >> 20)]
    TooBig,
}

/// The view files of `classpath` (folders and jars, in order): for a path found in several
/// entries, the first entry's, as the runner serves the game's own files before the engine's.
/// Entries that do not exist, and the system's jars, are passed over.
pub fn of_class_path(classpath: &[PathBuf]) -> Result<ViewFiles, ViewError> {
    let mut view = ViewFiles::default();
    let mut left = VIEW_BUDGET;
    for entry in classpath {
        if entry.starts_with("/usr/share/java") {
            continue;
        }
        let found = if entry.is_dir() {
            folder_files(&entry.join("view"), left)
        } else if entry.is_file() {
            zip::files_under(entry, "view/", left)
        } else {
            continue;
        };
        let found = found.map_err(|source| match source.kind() {
            std::io::ErrorKind::FileTooLarge => ViewError::TooBig,
            _ => ViewError::Read {
                path: entry.clone(),
                source,
            },
        })?;
        for (name, bytes) in found {
            if let std::collections::btree_map::Entry::Vacant(e) = view.files.entry(name) {
                left = left.saturating_sub(bytes.len() as u64);
                e.insert(bytes);
            }
        }
    }
    Ok(view)
}

/// The files under `dir` (none when it is missing), by their `/`-joined path below it; links
/// are not followed.
fn folder_files(dir: &Path, budget: u64) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut left = budget;
    let mut out = Vec::new();
    for rel in super::build::files_under(dir, &|_| true)? {
        let Some(name) = rel.to_str() else { continue };
        let bytes = std::fs::read(dir.join(&rel))?;
        if bytes.len() as u64 > left {
            return Err(std::io::ErrorKind::FileTooLarge.into());
        }
        left -= bytes.len() as u64;
        out.push((name.to_string(), bytes));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_games_view_comes_before_the_engines_and_jars_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("classes");
        std::fs::create_dir_all(game.join("view/assets")).unwrap();
        std::fs::write(game.join("view/config.js"), "game").unwrap();
        std::fs::write(game.join("view/assets/a.png"), "png").unwrap();
        let jar = dir.path().join("engine.jar");
        std::fs::write(
            &jar,
            zip::tests_zip(&[
                ("view/core/Drawer.js", b"drawer", true),
                ("view/config.js", b"engine's", false),
            ]),
        )
        .unwrap();
        let missing = dir.path().join("no-such.jar");
        let view = of_class_path(&[game, missing, jar]).unwrap();
        let names: Vec<&str> = view.files.keys().map(String::as_str).collect();
        assert_eq!(names, ["assets/a.png", "config.js", "core/Drawer.js"]);
        assert_eq!(view.files["config.js"], b"game");
        assert_eq!(view.files["core/Drawer.js"], b"drawer");
    }
}
