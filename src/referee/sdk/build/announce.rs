//! Telling that an SDK game is being built. Compiling a game's source folder (and the engine
//! it names, the first time) takes tens of seconds before a run's first event, and it happens
//! deep in the resolution of the game, wherever `--referee` is read; the library prints
//! nothing, so the command line sets who is told ([`set_announce`]), as bot builds are told
//! through the engine's events. A build the cache already holds is not told.

use std::sync::RwLock;
use std::time::Duration;

/// What a build of an SDK game that really runs tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildNote<'a> {
    /// The game `name` (its folder's name, as the game is named in records) starts building
    /// with `how` (the compiler, and that it is cached after).
    Building { name: &'a str, how: &'a str },
    /// Its build (announced by [`BuildNote::Building`]) ended after `took`, with `ok` whether
    /// it built.
    Built {
        name: &'a str,
        took: Duration,
        ok: bool,
    },
}

/// Who is told of this process's builds (set once from the command line).
static ANNOUNCE: RwLock<Option<fn(&BuildNote<'_>)>> = RwLock::new(None);

/// Tells `to` of every SDK build of this process that really runs.
pub fn set_announce(to: fn(&BuildNote<'_>)) {
    *ANNOUNCE.write().unwrap_or_else(|e| e.into_inner()) = Some(to);
}

/// Tells `note` to whoever [`set_announce`] named, if anyone.
pub(super) fn announce(note: &BuildNote<'_>) {
    let to = *ANNOUNCE.read().unwrap_or_else(|e| e.into_inner());
    if let Some(to) = to {
        to(note);
    }
}
