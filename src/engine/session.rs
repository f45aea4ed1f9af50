//! What every kind of run opens before its first game, the league's server and its remote
//! workers included: the results folder claimed, the game and its referee configured and
//! checked, the opening book read ([`GameSetup::open`], [`Session::open`]), and games.csv
//! opened ([`Session::open_games`]). One owner for the sequence, so that a tournament, an
//! SPRT, a grading and a league start alike, refuse alike (a referee that cannot start stops
//! each before any game), and a change to the start reaches every kind of run at once. The
//! bots are checked with [`super::check_bots`] and the games recorded with
//! [`super::Recorder`], both shared the same way.

use super::settings::{OpeningsError, OpeningsSettings};
use super::{GameSettings, GameSettingsError, StartError};
use crate::referee::{CheckError, GameChoice, RefereeConfig};
use crate::results::games_csv::{DoneSet, GamesCsv};
use crate::results::lock::{FolderLock, LockError};
use crate::tournament::openings::Book;
use std::path::{Path, PathBuf};

/// Why a session could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    Game(#[from] GameSettingsError),
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    /// The game's referee cannot play (it did not start or speak the protocol).
    #[error(transparent)]
    Referee(#[from] CheckError),
}

/// What a run's game is opened from: its recorded settings' parts.
pub struct GameRequest<'a> {
    pub game: &'a GameSettings,
    /// Where the run's paths were typed (a referee's or a book's relative path is found from
    /// there).
    pub workdir: &'a Path,
    /// The run's seed (a book in random order is shuffled with it).
    pub seed: u64,
    /// The opening book, for runs that have one.
    pub openings: Option<&'a OpeningsSettings>,
}

/// The game every game of a run is played with: the game (or its referee), the referee's
/// configuration, and the opening book, checked.
pub struct GameSetup {
    pub choice: GameChoice,
    pub cfg: RefereeConfig,
    pub book: Option<Book>,
}

impl GameSetup {
    /// Opens the game of `request`: the game, its book (checked against the fingerprint
    /// recorded with it), the referee's configuration (`configure` sets what the kind of run
    /// keeps of each game), then the referee's check: one that cannot start or speak the
    /// protocol refuses the run before any game.
    pub fn open(
        request: &GameRequest<'_>,
        configure: impl FnOnce(&mut RefereeConfig),
    ) -> Result<GameSetup, SessionError> {
        let workdir = Some(request.workdir);
        let choice = request.game.choice_in(workdir)?;
        let book = match request.openings {
            Some(openings) => openings.book(&choice, request.seed)?,
            None => None,
        };
        let mut cfg = request
            .game
            .referee_config_in(choice.default_max_turns(), workdir)?;
        configure(&mut cfg);
        choice.check(&mut cfg)?;
        Ok(GameSetup { choice, cfg, book })
    }
}

/// A results folder claimed by this process (its lock held until this is dropped) and the
/// game its run plays.
pub struct Session {
    /// The results folder.
    pub dir: PathBuf,
    pub game: GameSetup,
    lock: FolderLock,
}

impl Session {
    /// Claims `dir` (made if new; another arbiter's is refused, naming it) and opens the game
    /// of `request` ([`GameSetup::open`]).
    pub fn open(
        dir: PathBuf,
        request: &GameRequest<'_>,
        configure: impl FnOnce(&mut RefereeConfig),
    ) -> Result<Session, SessionError> {
        let lock = FolderLock::acquire(&dir)?;
        Session::open_claimed(dir, lock, request, configure)
    }

    /// [`Session::open`] for a folder this process claimed already (the league's server
    /// claims its folder before it binds its port and writes its settings).
    pub fn open_claimed(
        dir: PathBuf,
        lock: FolderLock,
        request: &GameRequest<'_>,
        configure: impl FnOnce(&mut RefereeConfig),
    ) -> Result<Session, SessionError> {
        let game = GameSetup::open(request, configure)?;
        Ok(Session { dir, game, lock })
    }

    /// Opens games.csv (cut after its last whole row) and reads the ids it records.
    pub fn open_games(&self) -> Result<(GamesCsv, DoneSet), StartError> {
        super::start::open_games(&self.dir, self.game.choice.seats())
    }

    /// The folder, the game, and the folder's lock (held until it is dropped).
    pub fn into_parts(self) -> (PathBuf, GameSetup, FolderLock) {
        (self.dir, self.game, self.lock)
    }
}
