//! The recorded settings of a grading run (`grade.toml`): the class and its students, the
//! baselines and the games' settings. Not the rubric (marks can change without replaying) and
//! not the submissions' contents (those are tracked by hash, see `grade::class`).

use super::Recorded;
use crate::engine::GameSettings;
use crate::options::Opt;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What decides a grading run's games; saved as grade.toml.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradeSettings {
    /// The class folder.
    pub submissions: PathBuf,
    /// Its entries, one per student, by file or folder name.
    pub students: Vec<String>,
    /// The BOT arguments of the baselines, as typed.
    pub baselines: Vec<String>,
    /// Where they were typed (relative baseline paths are resolved from here).
    pub workdir: PathBuf,
    pub games: u32,
    #[serde(default)]
    pub tables: Option<usize>,
    pub opening_plies: u32,
    pub seed: u64,
    pub game: GameSettings,
}

impl Recorded for GradeSettings {
    const FILE: &'static str = "grade.toml";
    fn seed_mut(&mut self) -> &mut u64 {
        &mut self.seed
    }
}

/// A results folder that holds another grading than the one asked for.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum OtherClass {
    #[error(
        "{} holds the grading of other students (added: {}; removed: {}); grade into \
         another {}, or delete that folder to grade the class afresh",
        out.display(), list(added), list(removed), Opt::Out
    )]
    Students {
        out: PathBuf,
        added: Vec<String>,
        removed: Vec<String>,
    },
    #[error(
        "{} holds a grading of this class with other settings (baselines, game, clocks, \
         {}, {}, {} or the sandbox; see its {}); run with the same options to \
         continue it, or grade into another {}",
        out.display(), Opt::Games, Opt::Tables, Opt::Seed, GradeSettings::FILE, Opt::Out
    )]
    Settings { out: PathBuf },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

impl GradeSettings {
    /// Whether results folder `out` can continue into these settings: a folder graded for other
    /// students cannot be (game ids follow the list of students), nor one with other settings
    /// (the recorded seed counts as given unless `seed_given`). A folder without a readable
    /// grade.toml is left to the shared check of settings files.
    pub fn check_same_class(&self, out: &Path, seed_given: bool) -> Result<(), OtherClass> {
        let Ok(text) = std::fs::read_to_string(out.join(Self::FILE)) else {
            return Ok(());
        };
        let Ok(old) = toml::from_str::<GradeSettings>(&text) else {
            return Ok(()); // the shared check reports a damaged file
        };
        let added: Vec<String> = self
            .students
            .iter()
            .filter(|s| !old.students.contains(s))
            .cloned()
            .collect();
        let removed: Vec<String> = old
            .students
            .iter()
            .filter(|s| !self.students.contains(s))
            .cloned()
            .collect();
        if !added.is_empty() || !removed.is_empty() {
            return Err(OtherClass::Students {
                out: out.to_path_buf(),
                added,
                removed,
            });
        }
        let mut compared = self.clone();
        if !seed_given {
            compared.seed = old.seed;
        }
        if compared != old {
            return Err(OtherClass::Settings {
                out: out.to_path_buf(),
            });
        }
        Ok(())
    }
}
