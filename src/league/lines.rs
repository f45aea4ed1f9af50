//! The page's data lines: a game (running or recorded), a forfeit, and what the page shows of a
//! bot besides its standings, as the server's live state keeps them ([`super::server::Live`]),
//! its events carry them ([`super::events`]) and the page shows them ([`super::page`]). Data
//! only: the server and the events both take them from here.

use crate::referee::Reason;
use serde::Serialize;
use std::collections::VecDeque;

/// A game as the page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct LiveGame {
    pub game_id: u64,
    pub bots: Vec<String>,
    /// Ranks by seat once finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<Vec<u8>>,
    /// Why it ended, once finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// Who plays it (a local worker's name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
}

/// A forfeit as a bot's page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct ForfeitLine {
    pub game_id: u64,
    pub reason: Reason,
    pub detail: String,
    pub turn: u32,
}

/// What the page shows of a bot besides its standings line.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BotNotes {
    /// Its latest recorded games, newest first.
    pub games: VecDeque<LiveGame>,
    pub forfeits: VecDeque<ForfeitLine>,
    /// Its stderr in its latest game (the tail the record keeps).
    pub stderr: String,
    pub stderr_game: Option<u64>,
}
