//! Why a change to the league's bots or standings failed, typed until the HTTP edge or the
//! command line says it: a bot unknown to the league, a name it cannot carry, a bot that does
//! not build or start (the checker's own words), the machine that could not check it, or the
//! league's folder that could not be read or written.

use super::folder::FolderError;

/// A failed change to the league's bots or standings.
#[derive(Debug, thiserror::Error)]
pub enum LeagueError {
    #[error("no bot named '{0}' in this league")]
    UnknownBot(String),
    #[error(transparent)]
    BadName(#[from] super::names::BadName),
    /// A BOT argument that names no bot (no such file, no bot.toml, ...): why.
    #[error("{0}")]
    Unresolved(String),
    /// The bot cannot play: what its build or start-up check said.
    #[error("{0}")]
    Broken(String),
    /// This machine could not check the bot (out of descriptors, memory, processes or disk):
    /// no verdict on the bot; it is checked again after a pause.
    #[error("{0}")]
    Machine(String),
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// `games.csv` could not be read to count the standings again.
    #[error("{0}")]
    GamesCsv(String),
}
