//! What a check of a bot adds to its history ([`crate::league::versions`]): the version it is
//! (a new one for each add or upload, or for files changed since its latest), appended to
//! `versions.jsonl`, and the check's build log kept for that version. Neither is written while
//! a lock of the server is held.

use super::*;
use crate::league::bundle::Sources;
use crate::league::versions::{self, Admission};

impl Shared {
    /// Notes that bot `name` (its files `sources`, when they could be found) is being checked,
    /// `how`: its version number (appended to the folder's log when it is a new version).
    pub(super) fn note_version(
        &self,
        name: &str,
        sources: Option<&Sources>,
        how: Admission,
    ) -> u32 {
        let at = UtcTime::now();
        let hash = sources.and_then(|s| match versions::digest(s) {
            Ok(h) => Some(h),
            Err(e) => {
                eprintln!("arbiter: warning: bot {name}'s files cannot be hashed: {e}");
                None
            }
        });
        let (number, new) = self.state().versions.note(name, hash, how, at);
        if let Some(v) = new {
            if let Err(e) = versions::append(&self.dir, &v) {
                eprintln!(
                    "arbiter: warning: version {number} of bot {name} could not be kept in {}: \
                     {e} (its page lists it until the server stops)",
                    versions::FILE
                );
            }
        }
        number
    }

    /// Keeps the log of the check of version `number` of bot `name`: its build's (or that it
    /// needed none), or why it is broken. A check the machine could not make keeps nothing.
    pub(super) fn keep_build_log(
        &self,
        name: &str,
        number: u32,
        checked: &Result<BotSpec, play::NotChecked>,
    ) {
        let text = match checked {
            Ok(spec) => versions::build_log_of(name, &spec.dir),
            Err(play::NotChecked::Broken(problem)) => format!("bot {name} is broken: {problem}\n"),
            Err(play::NotChecked::Machine { .. }) => return,
        };
        if let Err(e) = versions::keep_log(&self.dir, name, number, &text) {
            eprintln!(
                "arbiter: warning: the build log of version {number} of bot {name} could not be \
                 kept: {e}"
            );
        }
    }
}
