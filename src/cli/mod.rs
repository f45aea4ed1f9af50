//! Command-line definitions (clap) and their translation into validated configuration.
//! Nothing here plays, prints results or writes files.

use clap::{Parser, Subcommand};

mod args;
mod game;
mod league;
mod run;
pub mod shard_line;

pub use args::*;
pub use game::*;
pub use league::*;
pub use run::*;

#[derive(Parser, Debug)]
#[command(
    name = "arbiter",
    version,
    about = "A referee for bot-vs-bot games in the CodinGame line format: play games, run tournaments, rate bots.",
    long_about = None,
    args_override_self = true,
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The options the user typed on the command line (as opposed to defaults), by long name.
#[derive(Debug, Default)]
pub struct Given {
    pub options: Vec<(String, String)>,
}

impl Given {
    /// The options of the subcommand that came from the command line, with their values.
    pub fn from_matches(m: &clap::ArgMatches) -> Given {
        let Some((name, sub)) = m.subcommand() else {
            return Given::default();
        };
        use clap::CommandFactory;
        let command = Cli::command();
        let args: Vec<String> = command
            .find_subcommand(name)
            .map(|c| {
                c.get_arguments()
                    .map(|a| a.get_id().as_str().to_string())
                    .collect()
            })
            .unwrap_or_default();
        let mut options = Vec::new();
        for id in sub.ids() {
            let id = id.as_str();
            if !args.iter().any(|a| a == id) {
                continue; // a group of flattened options, not an option
            }
            if sub.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
                continue;
            }
            let value = sub
                .get_raw(id)
                .map(|vals| {
                    vals.map(|v| v.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            options.push((id.replace('_', "-"), value));
        }
        Given { options }
    }

    /// Whether option `id` (its long name) was given.
    pub fn has(&self, id: &str) -> bool {
        self.options.iter().any(|(given, _)| given == id)
    }

    /// The given options that are not in `allowed`, as `--name value`.
    pub fn outside(&self, allowed: &[&str]) -> Vec<String> {
        self.options
            .iter()
            .filter(|(id, _)| !allowed.contains(&id.as_str()))
            .map(|(id, v)| {
                if v.is_empty() || v == "true" {
                    format!("--{id}")
                } else {
                    format!("--{id} {v}")
                }
            })
            .collect()
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Referee one game between bot programs and show who won and why.
    Play(PlayArgs),
    /// Play many games between two or more bots, record them in games.csv, and rate the field.
    Tournament(TournamentArgs),
    /// Grade a class: build every student's bot (single source files as on the CodinGame arena,
    /// or bot folders), play each against the baselines and the other students in the sandbox,
    /// and write marks.csv with a mark per student from a rubric.
    Grade(GradeArgs),
    /// Recompute standings from one or more games.csv files (e.g. shards from several machines).
    Ratings(RatingsArgs),
    /// Is NEW better than OLD? Play pairs of games until a sequential probability ratio test
    /// decides. Exit status: 0 = H1 accepted (NEW better by at least elo1), 1 = H0 accepted
    /// (not better than elo0), 2 = no decision within --max-pairs, 3 = error.
    Sprt(SprtArgs),
    /// Write report.html for one or more results folders (standings, charts, every game's
    /// replay page); tournament and sprt write it themselves as they run.
    Report(ReportArgs),
    /// Write the replay page of one game recorded with `arbiter play --replay FILE`.
    Replay(ReplayArgs),
    /// The human seat's side of `arbiter play human BOT` (started by arbiter itself).
    #[command(hide = true)]
    HumanSeat,
    /// Offline calculator: Elo, LOS, nElo and (with bounds) the SPRT log-likelihood ratio of a
    /// W/D/L or pentanomial record.
    Stats(StatsArgs),
    /// Measure what the referee adds to every turn, against the pipe round-trip floor.
    Bench(BenchArgs),
    /// List the games with their variants and seat counts, or show one game's statement for
    /// bot writers (rules, coordinates, input lines, move syntax, end of game).
    Games(GamesArgs),
    /// Count the move sequences of each depth from a position: the rules author's check.
    Perft(PerftArgs),
    /// Put the results folders of a tournament's shards (`tournament --shard K/N`) together:
    /// one games.csv and the standings of the whole run, and the missing games named. Exit
    /// status 1 when games are missing (the files are written anyway), 3 on error.
    Merge(MergeArgs),
    /// Write (and with --submit, submit) a Slurm job array that plays a tournament in shards on
    /// a cluster, then merges them: `arbiter slurm --shards 16 --seed 7 --out DIR BOT...`.
    Slurm(Box<SlurmArgs>),
    /// A league that never stops: a server that plays games for ever between bots that come and
    /// go, with live standings in the browser (`league serve DIR --game G`, `league add DIR BOT`).
    League(Box<LeagueArgs>),
}

/// How the command line spells each option the library's messages name (the one table; see
/// [`arbiter::options`]).
pub fn spelling(opt: arbiter::options::Opt) -> &'static str {
    use arbiter::options::Opt;
    match opt {
        Opt::AddBot => "--add-bot",
        Opt::Anchor => "--anchor",
        Opt::BotEnv => "--bot-env",
        Opt::BuildDiskMb => "--build-disk-mb",
        Opt::BuildMemoryMb => "--build-memory-mb",
        Opt::Candidate => "--candidate",
        Opt::Clock => "--clock",
        Opt::CodingameEngine => "--codingame-engine",
        Opt::Concurrency => "--concurrency",
        Opt::FirstTurnMs => "--first-turn-ms",
        Opt::Format => "--format",
        Opt::Game => "--game",
        Opt::GameParam => "--game-param",
        Opt::Games => "--games",
        Opt::Grow => "--grow",
        Opt::League => "--league",
        Opt::Listen => "--listen",
        Opt::MaxPairs => "--max-pairs",
        Opt::MaxProcesses => "--max-processes",
        Opt::MaxTurns => "--max-turns",
        Opt::MemoryMb => "--memory-mb",
        Opt::NoBuild => "--no-build",
        Opt::NoSandbox => "--no-sandbox",
        Opt::OpeningPlies => "--opening-plies",
        Opt::Openings => "--openings",
        Opt::Out => "--out",
        Opt::PinCpus => "--pin-cpus",
        Opt::Position => "--position",
        Opt::Referee => "--referee",
        Opt::RefereeSeed => "--referee-seed",
        Opt::RefereeTimeoutMs => "--referee-timeout-ms",
        Opt::Replay => "--replay",
        Opt::Resume => "--resume",
        Opt::Sandbox => "--sandbox",
        Opt::Seats => "--seats",
        Opt::Seed => "--seed",
        Opt::Shard => "--shard",
        Opt::SkipBrokenBots => "--skip-broken-bots",
        Opt::Strikes => "--strikes",
        Opt::Tables => "--tables",
        Opt::TimeLimit => "--time-limit",
        Opt::Token => "--token",
        Opt::TokenFile => "--token-file",
        Opt::TrustBuilds => "--trust-builds",
        Opt::TurnMs => "--turn-ms",
        Opt::Variant => "--variant",
    }
}
