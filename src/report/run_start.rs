//! What a run of many games says on stderr as it begins: the bots that cannot play this game,
//! the notes on its limits, the CPU placement warning, the resume line and the start line that
//! sums up what will be played (a tournament's, an SPRT's, a grading's).

use crate::engine::Placement;
use crate::rating::SprtParams;
use crate::tournament::Shard;
use std::fmt::Display;
use std::path::Path;

/// Each of `lines` as an `arbiter: ` line (the bots that do not play this game, a note).
pub fn lines<T: Display>(lines: impl IntoIterator<Item = T>) {
    for line in lines {
        eprintln!("arbiter: {line}");
    }
}

/// The warnings when the open-file limit lowered the games at once, and when more games run at
/// once than the machine has cores.
pub fn placement(p: &Placement) {
    if let Some((wanted, needed, limit)) = p.lowered {
        eprintln!(
            "arbiter: warning: {wanted} games at once would need about {needed} open files, more \
             than this process may open ({limit}: the hard limit, `ulimit -Hn`); playing {} at \
             once (a higher hard limit allows more)",
            p.concurrency
        );
    }
    if p.oversubscribed() {
        eprintln!(
            "arbiter: warning: {} games at once exceed the {} CPU cores; bots will lose time to each other",
            p.concurrency, p.cores
        );
    }
}

/// What a tournament plays: `games` of `game` between `playing` bots.
pub struct TournamentStart<'a> {
    pub dir: &'a Path,
    /// `Some((recorded, to play))` when the folder's run is continued.
    pub resumed: Option<(usize, usize)>,
    pub games: usize,
    pub game: &'a str,
    pub playing: usize,
    pub placement: &'a Placement,
    pub seed: u64,
    pub shard: Option<Shard>,
}

/// A tournament's resume and start lines.
pub fn tournament(s: &TournamentStart<'_>) {
    if let Some((done, todo)) = s.resumed {
        eprintln!(
            "arbiter: resuming {}: {done} games recorded, {todo} to play",
            s.dir.display(),
        );
    }
    eprintln!(
        "arbiter: {} games of {} between {} bots, {}, seed {}{}, results in {}",
        s.games,
        s.game,
        s.playing,
        s.placement.describe(),
        s.seed,
        s.shard.map_or(String::new(), |s| format!(", shard {s}")),
        s.dir.display()
    );
}

/// What an SPRT plays: `new` against `old` under `params`.
pub struct SprtStart<'a> {
    pub dir: &'a Path,
    /// `Some(pairs complete)` when the folder's test is continued.
    pub resumed: Option<u64>,
    pub new: &'a str,
    pub old: &'a str,
    pub params: &'a SprtParams,
    pub max_pairs: u64,
    pub placement: &'a Placement,
    pub seed: u64,
}

/// An SPRT's resume and start lines.
pub fn sprt(s: &SprtStart<'_>) {
    if let Some(pairs) = s.resumed {
        eprintln!(
            "arbiter: resuming {}: {pairs} pairs complete",
            s.dir.display()
        );
    }
    let p = s.params;
    eprintln!(
        "arbiter: SPRT {} vs {}, [{}, {}] {} model, alpha {}, beta {}, up to {} pairs, {}, seed {}, results in {}",
        s.new,
        s.old,
        p.elo0,
        p.elo1,
        p.model,
        p.alpha,
        p.beta,
        s.max_pairs,
        s.placement.describe(),
        s.seed,
        s.dir.display()
    );
}

/// The warning of a grading run without the sandbox.
pub fn no_sandbox() {
    eprintln!(
        "arbiter: warning: {}: the students' bots run with your user's rights, network and files",
        crate::options::Opt::NoSandbox
    );
}

/// The students whose submission changed since the last run, and how many of their games
/// recorded before are played again.
pub fn changed_students(changed: &[String], dropped: usize) {
    eprintln!(
        "arbiter: changed since the last run: {}; {} of their games recorded before are played again",
        changed.join(", "),
        dropped
    );
}

/// What a grading plays (see `grade::Plan`).
pub struct GradeStart<'a> {
    pub dir: &'a Path,
    pub students: usize,
    pub built: usize,
    pub baselines: usize,
    pub per_student: usize,
    pub vs_baseline: usize,
    /// Seats of a game.
    pub seats: usize,
    pub games: usize,
    pub game: &'a str,
    pub placement: &'a Placement,
    pub seed: u64,
}

/// A grading's start lines: what each student plays and how precise its marks will be, then
/// the games.
pub fn grade(s: &GradeStart<'_>) {
    eprintln!(
        "arbiter: {} students ({} build), {} baselines; each student plays {} games ({} against \
         each baseline): a rating interval of about ±{:.0} Elo at 95% for an even score, and a \
         score against a baseline known to about ±{:.0} percentage points",
        s.students,
        s.built,
        s.baselines,
        s.per_student,
        s.vs_baseline,
        crate::grade::elo_half_width((s.per_student * (s.seats - 1)) as f64),
        98.0 / (s.vs_baseline.max(1) as f64).sqrt(),
    );
    eprintln!(
        "arbiter: {} games of {} to play, {}, seed {}, results in {}",
        s.games,
        s.game,
        s.placement.describe(),
        s.seed,
        s.dir.display()
    );
}

/// For the start of a run: when other work already keeps every CPU busy (a 1-minute load
/// average of at least the number of CPUs), what that does to the games on `clock`.
pub fn busy_note(clock: crate::referee::Clock) -> Option<String> {
    let load = crate::engine::load_average()?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if load < cpus as f64 {
        return None;
    }
    let wall;
    let effect = match clock {
        crate::referee::Clock::Fair => {
            "bots will wait for a CPU; the fair clock does not charge that waiting, but games run \
             slower and the turn times recorded include it (the end of the run says if it was \
             too much)"
        }
        crate::referee::Clock::Wall => {
            wall = format!(
                "on the wall clock bots are charged for waiting for a CPU and may lose on time; \
                 the default {} fair does not charge it",
                crate::options::Opt::Clock
            );
            &wall
        }
        crate::referee::Clock::Cpu => {
            "on the CPU clock bots are not charged for waiting for a CPU, but games run slower"
        }
    };
    Some(format!(
        "the machine is busy (load average {load:.1} on {cpus} CPUs): {effect}"
    ))
}

/// Prints [`busy_note`], if any, to stderr (the start of a run).
pub fn eprint_busy(clock: crate::referee::Clock) {
    if let Some(note) = busy_note(clock) {
        eprintln!("arbiter: note: {note}");
    }
}

/// The note on games the machine starved (see [`crate::results::starved::Starved::note`]), if
/// any, on stderr.
pub fn starved(starved: &crate::results::starved::Starved) {
    if let Some(note) = starved.note() {
        eprintln!("arbiter: note: {note}");
    }
}

/// Writes the viewer of the SDK game `game` into the results folder `dir`
/// ([`crate::report::html::sdk_view`]) and says so the first time: the replays draw the game
/// with its own viewer, at what cost, or show text steps, and why.
pub fn sdk_view(dir: &Path, game: &crate::referee::sdk::SdkGame) {
    use crate::report::html::sdk_view::{install, Shown, FILE};
    let replays = dir.join("replays");
    match install(&replays, game) {
        Ok(done) if !done.written => {}
        Ok(done) => match done.shown {
            Shown::Drawn { bytes } => eprintln!(
                "arbiter: the replays draw {} with its own viewer (copied from its class path \
                 into {}, {:.1} MB)",
                game.name,
                replays.join(FILE).display(),
                bytes as f64 / 1e6
            ),
            Shown::Text(why) => eprintln!(
                "arbiter: the replays show {} as text steps, not with its own viewer: {why}",
                game.name
            ),
        },
        Err(e) => eprintln!(
            "arbiter: warning: the replays show {} as text steps: its viewer could not be \
             written into {}: {e}",
            game.name,
            replays.display()
        ),
    }
}
