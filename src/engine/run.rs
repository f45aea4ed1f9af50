//! One run, start to end, as one call: [`run`] does the start sequence every kind of run shares
//! (lock the results folder, the game and its referee, the opening book, the referee's check,
//! the bots resolved, built and test-started, the settings saved, games.csv opened, the CPU
//! placement), then plays and records the games and tells the consumers, until the games are
//! done, the kind of run has seen enough, a record fails, or a stop signal ends it in order.
//! The start alone is [`prepare`]: `arbiter slurm`, whose games the cluster plays, checks and
//! measures with it.
//!
//! What differs between a tournament, an SPRT and a grading is a [`Kind`] (the league opens the
//! same [`super::session::Session`], and its games, dealt from its schedule rather than listed,
//! go through the same play-and-record loop, [`super::play_dealt`]): the
//! engine calls it at fixed points of the sequence (which bots, which field may play, which
//! games) and it follows the games as a [`Consumer`] (an SPRT decides there). What is shown is
//! the consumers' (as cargo-nextest wires its runner to its reporter): the engine tells
//! [`Event`]s and prints nothing.

use super::session::{GameRequest, GameSetup, Session, SessionError};
use super::settings::{self, OpeningsSettings, Recorded, SettingsError};
use super::start::{self, Opened, StartError};
use super::{check_bots, tell, BotCheck, Consumer, Event, GameSettings, Placement, RecordError};
use crate::bot::{BotSpec, SpecError};
use crate::referee::{GameChoice, RefereeConfig};
use crate::results::games_csv::DoneSet;
use crate::results::lock::FolderLock;
use crate::tournament::openings::Book;
use crate::tournament::{GameSpec, Runner};
use std::path::{Path, PathBuf};

/// Why a run stopped before its games, or could not record one.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Start(#[from] StartError),
    #[error(transparent)]
    Record(#[from] RecordError),
    /// What the kind of run itself refused (a grading's rubric, its class folder).
    #[error(transparent)]
    Kind(Box<dyn std::error::Error + Send + Sync>),
    /// The game's referee cannot play (it did not start or speak the protocol).
    #[error(transparent)]
    Referee(#[from] crate::referee::CheckError),
    /// The machine could not start a game's processes: the run stopped rather than record
    /// games no bot lost.
    #[error(
        "{0}. The run stopped (the games recorded are kept): {advice}, then run the same command \
         again to play the rest",
        advice = .0.fault.advice()
    )]
    Machine(crate::tournament::Unplayed),
}

impl From<SessionError> for RunError {
    fn from(e: SessionError) -> RunError {
        match e {
            SessionError::Lock(e) => e.into(),
            SessionError::Game(e) => e.into(),
            SessionError::Openings(e) => e.into(),
            SessionError::Referee(e) => RunError::Referee(e),
        }
    }
}

macro_rules! start_error {
    ($($t:ty),*) => {$(
        impl From<$t> for RunError {
            fn from(e: $t) -> RunError {
                RunError::Start(e.into())
            }
        }
    )*};
}
start_error!(
    SettingsError,
    super::GameSettingsError,
    super::settings::OpeningsError,
    super::settings::GrowError,
    crate::results::lock::LockError,
    super::CheckBotsError,
    std::io::Error
);

/// What every kind of run's recorded settings hold.
pub trait RunSettings: Recorded + Clone {
    fn game(&self) -> &GameSettings;
    /// Where the bots were typed (relative paths are found from there).
    fn workdir(&self) -> &Path;
    fn seed(&self) -> u64;
    fn opening_plies(&self) -> u32;
    /// The BOT arguments as typed, which [`Kind::bots`] resolves unless the kind finds its
    /// bots itself (a grading's students come from its class folder).
    fn bots(&self) -> Vec<String>;
    /// The opening book, for kinds that have one.
    fn openings(&self) -> Option<&OpeningsSettings> {
        None
    }
    /// Whether each game's replay file is written (replays/).
    fn replays(&self) -> bool {
        false
    }
}

/// [`RunSettings`] for settings whose fields of the same names hold what it reads, with
/// `$more` the methods that differ.
macro_rules! run_settings {
    ($settings:ty { $($more:tt)* }) => {
        impl RunSettings for $settings {
            fn game(&self) -> &GameSettings {
                &self.game
            }
            fn workdir(&self) -> &Path {
                &self.workdir
            }
            fn seed(&self) -> u64 {
                self.seed
            }
            fn opening_plies(&self) -> u32 {
                self.opening_plies
            }
            $($more)*
        }
    };
}

run_settings!(settings::TournamentSettings {
    fn bots(&self) -> Vec<String> {
        self.bots.clone()
    }
    fn openings(&self) -> Option<&OpeningsSettings> {
        Some(&self.openings)
    }
    fn replays(&self) -> bool {
        self.replays
    }
});

run_settings!(settings::SprtSettings {
    /// The candidate, then the reference.
    fn bots(&self) -> Vec<String> {
        vec![self.new.clone(), self.old.clone()]
    }
    fn openings(&self) -> Option<&OpeningsSettings> {
        Some(&self.openings)
    }
});

run_settings!(settings::GradeSettings {
    /// The baselines (the students are the class folder's).
    fn bots(&self) -> Vec<String> {
        self.baselines.clone()
    }
});

/// What a kind's hooks see of the run being started.
pub struct Context<'a, S> {
    pub settings: &'a S,
    /// The results folder, absolute.
    pub dir: &'a Path,
    /// Whether the folder already held this run (it is continued).
    pub resuming: bool,
    pub choice: &'a GameChoice,
    pub cfg: &'a RefereeConfig,
}

/// What differs between the kinds of run. The engine calls the hooks in the order below; the
/// kind also follows every event of the run (after the other consumers, so that it speaks
/// last on [`Event::Ready`]).
pub trait Kind: Consumer {
    type Settings: RunSettings;
    /// Whether the settings are saved before the bots are checked (a grading, whose folder
    /// tracks its submissions), rather than once the field is known to play.
    const SAVE_FIRST: bool = false;

    /// With the folder locked and the game opened ([`Session::open`]: its referee checked,
    /// its book read): the settings to play (a grown tournament's) or a refusal of them. What
    /// the game was opened with (the game, its referee's settings, the openings and the seed)
    /// cannot change here.
    fn settle(
        &mut self,
        settings: Self::Settings,
        _choice: &GameChoice,
    ) -> Result<Self::Settings, RunError> {
        Ok(settings)
    }

    /// What the referee keeps of each game, on the run's referee configuration.
    fn configure(&self, _settings: &Self::Settings, _cfg: &mut RefereeConfig) {}

    /// Before the bots are checked (the settings saved where [`Kind::SAVE_FIRST`]).
    fn before_bots(&mut self, _run: &Context<'_, Self::Settings>) -> Result<(), RunError> {
        Ok(())
    }

    /// Every bot of the run, as its argument and what it resolved to: by default the settings'
    /// BOT arguments ([`RunSettings::bots`]), resolved where they were typed.
    fn bots(&self, run: &Context<'_, Self::Settings>) -> Vec<(String, Result<BotSpec, SpecError>)> {
        super::resolve_in(&run.settings.bots(), run.settings.workdir())
    }

    /// Whether the default [`Kind::check_field`] leaves out the bots that cannot play rather
    /// than refusing the run (`--skip-broken-bots`).
    fn skip_broken_bots(&self) -> bool {
        false
    }

    /// The field checked: refuses bots that cannot play where the kind needs them; returns how
    /// many play. By default a tournament's field ([`BotCheck::check_field`]).
    fn check_field(
        &mut self,
        run: &Context<'_, Self::Settings>,
        field: &mut BotCheck,
    ) -> Result<usize, RunError> {
        let (seats, game) = (run.choice.seats(), run.choice.describe());
        Ok(field.check_field(self.skip_broken_bots(), seats, &game)?)
    }

    /// The games to play, given those games.csv (at `games_csv`) holds.
    fn todo(
        &mut self,
        run: &Context<'_, Self::Settings>,
        field: &BotCheck,
        done: &DoneSet,
        games_csv: &Path,
    ) -> Result<Vec<GameSpec>, RunError>;

    /// After the games of `todo` were played: whether to play again (an SPRT whose decision
    /// games finishing late took back), with `todo` the games left.
    fn again(&mut self, _todo: &mut Vec<GameSpec>) -> bool {
        false
    }
}

/// A run to begin: its settings and folder as opened ([`start::open`]).
pub struct Request<'a, S> {
    pub opened: Opened<S>,
    /// Whether bots with a build command are built (else only test-started).
    pub build: bool,
    /// The games at once and their CPUs, given whether idle bots are frozen.
    pub placement: &'a dyn Fn(bool) -> Placement,
}

/// What a run is about to play, told as [`Event::Ready`] once the start is done.
pub struct Ready<'a> {
    pub dir: &'a Path,
    /// Whether the folder already held this run.
    pub resuming: bool,
    /// Games already recorded.
    pub done: usize,
    /// Games to play.
    pub games: usize,
    /// The game, as the start line says it.
    pub game: &'a str,
    /// Bots that play.
    pub playing: usize,
    pub placement: &'a Placement,
    pub seed: u64,
    pub clock: crate::referee::Clock,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// Every game was played (or the kind saw enough).
    Finished,
    /// A stop signal (number `signal`) ended it: every game that ended before it is recorded.
    Stopped { signal: i32 },
}

/// A run that ended: what it played, and the folder's lock (held until this is dropped).
pub struct Ran<S> {
    pub settings: S,
    pub dir: PathBuf,
    pub choice: GameChoice,
    pub field: BotCheck,
    /// games.csv.
    pub games_csv: PathBuf,
    pub outcome: Completion,
    _lock: FolderLock,
}

/// A run started up to its first game by [`prepare`]: the folder locked, the game, its referee
/// checked, the opening book, the bots resolved, built and test-started, the field checked.
pub struct Prepared<S> {
    pub settings: S,
    /// The results folder, absolute.
    pub dir: PathBuf,
    /// Whether the folder already held this run.
    pub resuming: bool,
    pub choice: GameChoice,
    pub cfg: RefereeConfig,
    pub book: Option<Book>,
    pub field: BotCheck,
    /// How many bots play ([`Kind::check_field`]).
    pub playing: usize,
    lock: FolderLock,
}

impl<S: RunSettings> Prepared<S> {
    /// What the kind's hooks see of this run.
    pub fn context(&self) -> Context<'_, S> {
        Context {
            settings: &self.settings,
            dir: &self.dir,
            resuming: self.resuming,
            choice: &self.choice,
            cfg: &self.cfg,
        }
    }

    /// A runner of this run's games (the bots of the field), `concurrency` at a time.
    pub fn runner(&self, concurrency: usize, pin_cpus: bool) -> Runner<'_> {
        Runner {
            bots: &self.field.specs,
            game: &self.choice,
            opening_plies: self.settings.opening_plies(),
            book: self.book.as_ref(),
            referee: &self.cfg,
            concurrency,
            pin_cpus,
        }
    }
}

/// The start sequence every kind of run shares, up to its games (see the module's doc; the
/// folder and the game are the engine's [`Session`], which the league opens too): what a
/// run plays next, or what a kind that plays elsewhere (a Slurm job's shards) measures. The
/// settings are saved here only where [`Kind::SAVE_FIRST`]; [`run`] saves the others once the
/// field plays. `build`: whether bots with a build command are built (else only test-started).
pub fn prepare<K: Kind>(
    opened: Opened<K::Settings>,
    build: bool,
    kind: &mut K,
    consumers: &mut [&mut dyn Consumer],
) -> Result<Prepared<K::Settings>, RunError> {
    let Opened {
        settings,
        dir,
        resuming,
    } = opened;
    let request = GameRequest {
        game: settings.game(),
        workdir: settings.workdir(),
        seed: settings.seed(),
        openings: settings.openings(),
    };
    let session = Session::open(dir, &request, |cfg| kind.configure(&settings, cfg))?;
    let (dir, GameSetup { choice, cfg, book }, lock) = session.into_parts();
    let settings = kind.settle(settings, &choice)?;
    let context = Context {
        settings: &settings,
        dir: &dir,
        resuming,
        choice: &choice,
        cfg: &cfg,
    };
    if K::SAVE_FIRST {
        settings::save(&dir, &settings)?;
    }
    kind.before_bots(&context)?;
    let resolved = kind.bots(&context);
    let mut field = {
        let mut all = with_kind(consumers, kind);
        check_bots(resolved, &cfg, build, &mut all)?
    };
    for wrong in field.mark_wrong_game(choice.name()) {
        notice(consumers, kind, &wrong.to_string());
    }
    let playing = kind.check_field(&context, &mut field)?;
    Ok(Prepared {
        settings,
        dir,
        resuming,
        choice,
        cfg,
        book,
        field,
        playing,
        lock,
    })
}

/// Starts ([`prepare`]), plays and records a run of `kind` (see the module's doc), telling
/// `consumers` and `kind` every event.
pub fn run<K: Kind>(
    request: Request<'_, K::Settings>,
    kind: &mut K,
    consumers: &mut [&mut dyn Consumer],
) -> Result<Ran<K::Settings>, RunError> {
    let prepared = prepare(request.opened, request.build, kind, consumers)?;
    if !K::SAVE_FIRST {
        settings::save(&prepared.dir, &prepared.settings)?;
    }
    let (dir, settings) = (&prepared.dir, &prepared.settings);
    let (mut csv, done) = start::open_games(dir, prepared.choice.seats())?;
    let mut todo = kind.todo(&prepared.context(), &prepared.field, &done, csv.path())?;
    if let Some(note) = settings.game().memory_note() {
        notice(consumers, kind, &note);
    }
    let placement = (request.placement)(prepared.cfg.freeze_idle);
    let game = prepared.choice.describe();
    let ready = Ready {
        dir,
        resuming: prepared.resuming,
        done: done.len(),
        games: todo.len(),
        game: &game,
        playing: prepared.playing,
        placement: &placement,
        seed: settings.seed(),
        clock: prepared.cfg.time.clock,
    };
    let _ = tell(&mut with_kind(consumers, kind), &Event::Ready(&ready));

    let mut outcome = Completion::Finished;
    while !todo.is_empty() {
        let runner = prepared.runner(placement.concurrency, placement.pin_cpus);
        let mut all = with_kind(consumers, kind);
        let _ = tell(
            &mut all,
            &Event::Playing {
                runner: &runner,
                games: todo.len(),
                dir,
            },
        );
        let played = super::play_into(&runner, &todo, &mut csv, dir, settings.replays(), &mut all)?;
        let _ = tell(&mut all, &Event::Played(&played));
        drop(all);
        if let Some(e) = played.failure {
            return Err(e.into());
        }
        if let Some(unplayed) = played.unplayed {
            return Err(RunError::Machine(unplayed));
        }
        if let Some(signal) = played.stopped {
            outcome = Completion::Stopped { signal };
            break;
        }
        if !kind.again(&mut todo) {
            break;
        }
    }
    let games_csv = csv.path().to_path_buf();
    let Prepared {
        settings,
        dir,
        choice,
        field,
        lock,
        ..
    } = prepared;
    Ok(Ran {
        settings,
        dir,
        choice,
        field,
        games_csv,
        outcome,
        _lock: lock,
    })
}

/// The consumers, then the kind.
fn with_kind<'a>(
    consumers: &'a mut [&mut dyn Consumer],
    kind: &'a mut dyn Consumer,
) -> Vec<&'a mut dyn Consumer> {
    let mut all: Vec<&mut dyn Consumer> = Vec::with_capacity(consumers.len() + 1);
    for c in consumers.iter_mut() {
        all.push(&mut **c);
    }
    all.push(kind);
    all
}

fn notice(consumers: &mut [&mut dyn Consumer], kind: &mut dyn Consumer, line: &str) {
    let _ = tell(&mut with_kind(consumers, kind), &Event::Notice(line));
}
