//! The command line's options as the library names them in its messages, typed: the library
//! holds no flag's spelling. An error that must name an option carries an [`Opt`]; its text
//! shows the option as the command line spells it, through the one table of spellings the
//! command line gives at start ([`set_spelling`]: the table is `cli`'s). Without one (the
//! library used by another program, its unit tests) an option is shown by its settings key.

use std::fmt;
use std::sync::OnceLock;

/// An option of a run that a message names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    AddBot,
    Anchor,
    BotEnv,
    BuildDiskMb,
    BuildMemoryMb,
    Candidate,
    Clock,
    CodingameEngine,
    Concurrency,
    FirstTurnMs,
    Format,
    Game,
    GameParam,
    Games,
    Grow,
    League,
    Listen,
    MaxPairs,
    MaxProcesses,
    MaxTurns,
    MemoryMb,
    NoBuild,
    NoSandbox,
    OpeningPlies,
    Openings,
    Out,
    PinCpus,
    Position,
    Referee,
    RefereeSeed,
    RefereeTimeoutMs,
    Replay,
    Resume,
    Sandbox,
    Seats,
    Seed,
    Shard,
    SkipBrokenBots,
    Strikes,
    Tables,
    TimeLimit,
    Token,
    TokenFile,
    TrustBuilds,
    TurnMs,
    Variant,
}

impl Opt {
    /// The option's key in the settings files (and its name without a command line).
    pub fn key(self) -> &'static str {
        match self {
            Opt::AddBot => "add_bot",
            Opt::Anchor => "anchor",
            Opt::BotEnv => "bot_env",
            Opt::BuildDiskMb => "build_disk_mb",
            Opt::BuildMemoryMb => "build_memory_mb",
            Opt::Candidate => "candidate",
            Opt::Clock => "clock",
            Opt::CodingameEngine => "codingame_engine",
            Opt::Concurrency => "concurrency",
            Opt::FirstTurnMs => "first_turn_ms",
            Opt::Format => "format",
            Opt::Game => "game",
            Opt::GameParam => "game_params",
            Opt::Games => "games",
            Opt::Grow => "grow",
            Opt::League => "league",
            Opt::Listen => "listen",
            Opt::MaxPairs => "max_pairs",
            Opt::MaxProcesses => "max_processes",
            Opt::MaxTurns => "max_turns",
            Opt::MemoryMb => "memory_mb",
            Opt::NoBuild => "no_build",
            Opt::NoSandbox => "no_sandbox",
            Opt::OpeningPlies => "opening_plies",
            Opt::Openings => "openings",
            Opt::Out => "out",
            Opt::PinCpus => "pin_cpus",
            Opt::Position => "position",
            Opt::Referee => "referee",
            Opt::RefereeSeed => "referee_seed",
            Opt::RefereeTimeoutMs => "referee_timeout_ms",
            Opt::Replay => "replay",
            Opt::Resume => "resume",
            Opt::Sandbox => "sandbox",
            Opt::Seats => "seats",
            Opt::Seed => "seed",
            Opt::Shard => "shard",
            Opt::SkipBrokenBots => "skip_broken_bots",
            Opt::Strikes => "strikes",
            Opt::Tables => "tables",
            Opt::TimeLimit => "time_limit",
            Opt::Token => "token",
            Opt::TokenFile => "token_file",
            Opt::TrustBuilds => "trust_builds",
            Opt::TurnMs => "turn_ms",
            Opt::Variant => "variant",
        }
    }
}

static SPELLING: OnceLock<fn(Opt) -> &'static str> = OnceLock::new();

/// How the options are spelt in every message from now on (the command line's table); the
/// first call decides.
pub fn set_spelling(spell: fn(Opt) -> &'static str) {
    let _ = SPELLING.set(spell);
}

impl fmt::Display for Opt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(SPELLING.get().map_or(self.key(), |spell| spell(*self)))
    }
}
