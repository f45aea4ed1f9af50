//! How a run of many games is played: openings, seeds, concurrency and CPU placement; and where
//! its results go.

use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;

/// Where each game starts: random opening plies and an opening book (a tournament's, an SPRT's,
/// a grading's and a league's).
#[derive(Args, Debug, Clone)]
pub struct OpeningOpts {
    /// Random legal plies the referee plays before the bots take over, so that deterministic
    /// bots play different games. 0 starts every game from the game's start position, as the
    /// CodinGame arena does. With K > 0 a bot's first input is a position after K random moves
    /// (for Impasse: White's first last move is not `null` and the board is not the standard
    /// start), so only bots that read the position from their input can play [default: 0].
    #[arg(long, value_name = "K")]
    pub opening_plies: Option<u32>,
    /// Start each table round from the next line of an opening book: a file with one opening a
    /// line (move texts from the start, separated by spaces; `#` starts a comment), or a
    /// built-in book (`draughts-3move`). Every line is checked before any game; random
    /// --opening-plies, if any, follow the book's moves [default: no book].
    #[arg(long, value_name = "FILE|NAME")]
    pub openings: Option<String>,
    /// How table rounds walk through the book: `in-order` (round n takes line n, cycling) or
    /// `shuffled` (a permutation drawn from the master seed) [default: in-order].
    #[arg(long, value_enum, value_name = "ORDER")]
    pub openings_order: Option<arbiter::tournament::openings::Order>,
}

impl OpeningOpts {
    /// The random plies asked for (0 unless given).
    pub fn plies(&self) -> u32 {
        self.opening_plies.unwrap_or(0)
    }

    /// The book's order asked for (in order unless given).
    pub fn order(&self) -> arbiter::tournament::openings::Order {
        self.openings_order.unwrap_or_default()
    }
}

/// How a run of many games is played: openings, seeds, and where the games run.
#[derive(Args, Debug)]
pub struct RunOpts {
    #[command(flatten)]
    pub opening: OpeningOpts,
    /// Master seed: fixes every pair's seed and opening [default: random, recorded].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Games played at the same time, at least 1; fewer, with a warning, where the limit of open
    /// files (`ulimit -Hn`, about 64 files a game) cannot hold them [default: the number of CPU
    /// cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub concurrency: Option<u32>,
    /// Run each concurrent game, referee thread and bots, on a CPU of its own. The bots of a game
    /// take turns, so one CPU serves it, and turns cost about half as much as when the kernel
    /// spreads them; but a bot that thinks with several threads gets one CPU. `auto` pins when
    /// the games fit the CPUs (concurrency <= CPUs), idle bots are frozen (no --allow-pondering)
    /// and other work does not already keep every CPU busy (a pinned game cannot move away from
    /// a CPU another program holds); `--pin-cpus` alone means `always`, `--pin-cpus=never` turns
    /// it off.
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        default_value = "auto",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "always"
    )]
    pub pin_cpus: Pinning,
}

impl RunOpts {
    /// Games at a time (as asked, else the number of cores) and whether each is pinned to a
    /// CPU, by this policy, given whether idle bots are frozen.
    pub fn placement(&self, freeze_idle: bool) -> arbiter::engine::Placement {
        arbiter::engine::Placement::decide(
            self.concurrency.map(|c| c as usize),
            self.pin_cpus == Pinning::Auto,
            |concurrency, cpus, busy| self.pin_cpus.pins(concurrency, cpus, freeze_idle, busy),
        )
    }
}

/// Whether each concurrent game gets a CPU of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Pinning {
    /// Pin when the games fit the CPUs, idle bots are frozen, and other work does not already
    /// keep every CPU busy (load average below the CPU count).
    Auto,
    /// Always pin (past the CPU count, games share CPUs in turn).
    Always,
    /// Never: the kernel places every process.
    Never,
}

impl Pinning {
    /// Whether `concurrency` games are pinned, given `cpus` usable CPUs, whether idle bots are
    /// frozen (pondering bots of one game would compete for its CPU), and whether other work
    /// already keeps the CPUs busy (a pinned game cannot move off a CPU another program holds,
    /// and its bots then stall for whole scheduler slices: measured as timeouts of a bot using
    /// 40% of its limit on a machine with a load average of 10).
    pub fn pins(self, concurrency: usize, cpus: usize, freeze_idle: bool, busy: bool) -> bool {
        match self {
            Pinning::Always => cpus > 0,
            Pinning::Never => false,
            Pinning::Auto => freeze_idle && cpus > 0 && concurrency <= cpus && !busy,
        }
    }
}

/// The flags of a command that plays many games into a results folder: `--resume DIR`, or
/// `--out DIR` (by default `results/NAME-DATE`), and the run's options.
pub trait RunFolder {
    /// The folder's default name (see [`default_out_dir`]).
    const NAME: &'static str;
    fn resume(&self) -> Option<&std::path::Path>;
    fn out(&self) -> Option<&std::path::Path>;
    fn run(&self) -> &RunOpts;

    /// The run's settings (the recorded ones with `--resume`, else `fresh`, or the same run
    /// again in `--out`), its folder (absolute) and whether it is continued; see
    /// [`arbiter::engine::start::open`].
    fn open<S: arbiter::engine::settings::Recorded>(
        &self,
        fresh: impl FnOnce() -> Result<S, arbiter::engine::StartError>,
    ) -> Result<arbiter::engine::start::Opened<S>, arbiter::engine::StartError> {
        arbiter::engine::start::open(
            self.resume(),
            self.out(),
            || default_out_dir(Self::NAME),
            self.run().seed.is_some(),
            fresh,
        )
    }
}

/// Parses `--anchor BOT=ELO`.
pub fn parse_anchor(text: &str) -> Result<(String, f64)> {
    let (bot, elo) = text
        .rsplit_once('=')
        .with_context(|| format!("--anchor '{text}': expected BOT=ELO, e.g. greedy=1500"))?;
    let elo: f64 = elo
        .trim()
        .parse()
        .with_context(|| format!("--anchor '{text}': '{elo}' is not a number"))?;
    Ok((bot.trim().to_string(), elo))
}

/// `results/<name>-<UTC date-time>`.
pub fn default_out_dir(name: &str) -> PathBuf {
    let now = jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S");
    PathBuf::from("results").join(format!("{name}-{now}"))
}

#[cfg(test)]
mod tests {
    use super::Pinning;

    #[test]
    fn the_default_results_folder_is_named_by_the_utc_date_and_time() {
        let now = || arbiter::utc::UtcTime::now().to_string();
        let before = now();
        let dir = super::default_out_dir("tournament");
        let after = now();
        let name = dir.strip_prefix("results").unwrap().to_str().unwrap();
        let stamp = name.strip_prefix("tournament-").unwrap();
        assert_eq!(stamp.len(), "YYYYMMDD-HHMMSS".len(), "{name}");
        assert!(stamp[..8]
            .bytes()
            .chain(stamp[9..].bytes())
            .all(|b| b.is_ascii_digit()));
        // Its date is the day's (the clock read before and after it: midnight may fall between).
        let day = |t: &str| t[..10].replace('-', "");
        assert!(
            stamp[..8] == day(&before) || stamp[..8] == day(&after),
            "{name} vs {before} / {after}"
        );
    }

    #[test]
    fn auto_pins_only_games_that_fit_the_cpus_with_frozen_idle_bots() {
        assert!(Pinning::Auto.pins(2, 2, true, false));
        assert!(
            !Pinning::Auto.pins(3, 2, true, false),
            "more games than CPUs"
        );
        assert!(
            !Pinning::Auto.pins(1, 2, false, false),
            "pondering bots share a CPU"
        );
        assert!(!Pinning::Auto.pins(1, 0, true, false), "affinity unknown");
        assert!(!Pinning::Auto.pins(1, 2, true, true), "the CPUs are busy");
        assert!(Pinning::Always.pins(3, 2, false, true));
        assert!(!Pinning::Never.pins(1, 8, true, false));
    }
}
