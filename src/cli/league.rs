//! `arbiter league ...`: the options of the league's subcommands.

use super::{GameOpts, OpeningOpts};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct LeagueArgs {
    #[command(subcommand)]
    pub command: LeagueCommand,
}

#[derive(Subcommand, Debug)]
pub enum LeagueCommand {
    /// Run a league in DIR for ever: schedule games, play them on local workers, serve the live
    /// page and the API. A second start of the same DIR goes on where the first stopped.
    Serve(Box<LeagueServeArgs>),
    /// Add bots to the league in DIR (the running server builds and plays them at once; without
    /// one, they are added to DIR and checked when it starts). A bot of the same name is
    /// replaced by the new version.
    Add(LeagueAddArgs),
    /// Stop playing a bot of the league in DIR (its recorded games stay in the standings).
    Remove(LeagueRemoveArgs),
    /// Print the standings of a running league (its URL, or its folder).
    Status(LeagueStatusArgs),
    /// Make a token for a worker on another machine (printed once, kept hashed in DIR), or
    /// revoke one.
    Token(LeagueTokenArgs),
    /// Make a token for the author of bot NAME (printed once, its last line; kept hashed in
    /// DIR): it may upload and replace bot NAME and read its build log, nothing else. Or revoke
    /// one.
    Author(LeagueAuthorArgs),
    /// Play a league's games on this machine: connect out to the league at URL, lease games,
    /// fetch and build their bots, play them in arbiter's sandbox and send the results.
    Work(LeagueWorkArgs),
    /// Write (and with --submit, submit) a Slurm job array of league workers: each task runs
    /// one `arbiter league work URL` until its time limit, playing many games.
    Slurm(LeagueSlurmArgs),
}

#[derive(Args, Debug)]
pub struct LeagueTokenArgs {
    /// The league's folder (on the server).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The worker's name (letters, digits, '-', '_', '.'); a new token replaces its old one.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Revoke NAME's token instead: the worker is refused from its next call.
    #[arg(long)]
    pub revoke: bool,
}

#[derive(Args, Debug)]
pub struct LeagueAuthorArgs {
    /// The league's folder (on the server).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The bot the token may upload (letters, digits, '-', '_', '.', starting with a letter or
    /// a digit); a new token replaces its old one.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Revoke NAME's author token instead: it is refused from its next call.
    #[arg(long)]
    pub revoke: bool,
}

#[derive(Args, Debug)]
pub struct LeagueWorkArgs {
    /// The league: http://HOST:PORT.
    #[arg(value_name = "URL")]
    pub url: String,
    /// The worker token (`arbiter league token DIR NAME` on the server). Other users see a
    /// command line (`ps`): prefer --token-file.
    #[arg(
        long,
        value_name = "T",
        required_unless_present = "token_file",
        conflicts_with = "token_file"
    )]
    pub token: Option<String>,
    /// A file that holds the worker token alone, readable by its owner alone (mode 0600: a file
    /// others can read is refused).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Games played at once [default: the CPUs this process may use].
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
    /// Where fetched bots are kept and built [default: ~/.cache/arbiter/league].
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct LeagueSlurmArgs {
    /// The league: http://HOST:PORT (as the cluster's nodes reach it).
    #[arg(value_name = "URL")]
    pub url: String,
    /// Workers: array tasks, each one `arbiter league work` for the whole time limit.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub workers: u32,
    /// The worker token's file (from `arbiter league token DIR NAME`), on a file system the
    /// nodes see, readable by its owner alone; the script names the file, never the token.
    #[arg(long, value_name = "FILE")]
    pub token_file: PathBuf,
    /// Each task's time limit in minutes: the worker plays until then.
    #[arg(long, value_name = "MIN", default_value_t = 60,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub time_limit: u32,
    /// Games each worker plays at once (and the CPUs each task asks for).
    #[arg(long, value_name = "C", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: u32,
    /// At most K workers at once (sbatch --array=1-N%K).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub throttle: Option<u32>,
    /// The folder for the script and the workers' logs [default:
    /// results/league-workers-<date>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Submit the job with sbatch and print its id (otherwise only write the script).
    #[arg(long)]
    pub submit: bool,
    /// Slurm partition (sbatch --partition).
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// Slurm account (sbatch --account).
    #[arg(long, value_name = "NAME")]
    pub account: Option<String>,
    /// Another #SBATCH line, e.g. --sbatch=--qos=long (repeatable).
    #[arg(long = "sbatch", value_name = "OPTION", allow_hyphen_values = true)]
    pub sbatch: Vec<String>,
}

#[derive(Args, Debug)]
pub struct LeagueServeArgs {
    /// The league's folder: settings, bots, records (created if new).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Bots to add at the start (as for `league add`).
    #[arg(value_name = "BOT")]
    pub bots: Vec<String>,
    /// Address to listen on [default: 127.0.0.1:8737]; port 0 takes any free port (the address
    /// is printed, and written to DIR/server.json).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<std::net::SocketAddr>,
    /// Games played at once on this machine [default: the CPUs this process may use]; 0: none
    /// (only remote workers).
    #[arg(long, value_name = "N")]
    pub local_workers: Option<usize>,
    /// Seeds every table of a new league [default: a random seed].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    // Where each game starts, as for `tournament`: each table (the pair of games with seats
    // swapped) plays one opening. Recorded in DIR/league.toml when the league is made.
    #[command(flatten)]
    pub opening: OpeningOpts,
    #[command(flatten)]
    pub game: GameOpts,
}

#[derive(Args, Debug)]
pub struct LeagueAddArgs {
    /// The league's folder, or the address (http://HOST:PORT) of a league on another machine:
    /// each bot's file or folder is then uploaded (with --token).
    #[arg(value_name = "DIR|URL")]
    pub dir: PathBuf,
    /// Bots: paths to executables, folders with a bot.toml, or NAME="COMMAND" (for a URL: a
    /// source file or a folder, NAME=PATH to name it).
    #[arg(value_name = "BOT", required = true)]
    pub bots: Vec<String>,
    /// The league's admin token, for a league given by its URL (the admin-token file in its
    /// folder). Other users see a command line (`ps`): prefer --token-file.
    #[arg(long, value_name = "T", conflicts_with = "token_file")]
    pub token: Option<String>,
    /// A file that holds the token alone (the admin's, or for one bot its author's from
    /// `arbiter league author DIR NAME`), readable by its owner alone (mode 0600: a file others
    /// can read is refused).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Test the (one) new bot against this bot of the league with a pentanomial SPRT (as
    /// fishtest: several candidates may run at once, each its own test): the tests get half of
    /// the league's new tables together (`candidate_share` in league.toml's [matchmaking],
    /// default 0.5), the other bots play the rest. The test ends at H1, H0, --max-pairs, or
    /// when NEW is removed or replaced; its verdict is kept in DIR/sprt.jsonl.
    #[arg(long, value_name = "OLD")]
    pub candidate: Option<String>,
    /// The candidate's H0: NEW is not better than this, in normalized Elo (default 0).
    #[arg(
        long,
        value_name = "ELO",
        requires = "candidate",
        allow_negative_numbers = true
    )]
    pub elo0: Option<f64>,
    /// The candidate's H1: NEW is better by at least this, in normalized Elo (default 5).
    #[arg(
        long,
        value_name = "ELO",
        requires = "candidate",
        allow_negative_numbers = true
    )]
    pub elo1: Option<f64>,
    /// Pairs of games after which the candidate's test ends undecided (default 2000).
    #[arg(long, value_name = "N", requires = "candidate")]
    pub max_pairs: Option<u64>,
}

impl LeagueAddArgs {
    /// The candidate's bounds, the defaults where not given (none without --candidate).
    pub fn sprt_bounds(&self) -> Option<arbiter::league::sprt::Bounds> {
        self.candidate.as_ref()?;
        let d = arbiter::league::sprt::Bounds::default();
        Some(arbiter::league::sprt::Bounds {
            elo0: self.elo0.unwrap_or(d.elo0),
            elo1: self.elo1.unwrap_or(d.elo1),
            max_pairs: self.max_pairs.unwrap_or(d.max_pairs),
        })
    }
}

#[derive(Args, Debug)]
pub struct LeagueRemoveArgs {
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    #[arg(value_name = "NAME")]
    pub name: String,
}

#[derive(Args, Debug)]
pub struct LeagueStatusArgs {
    /// The league: http://HOST:PORT, or its folder (while its server runs).
    #[arg(value_name = "URL|DIR")]
    pub league: String,
}
