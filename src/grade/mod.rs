//! Grading a class: what `arbiter grade` knows apart from its command line. A class folder is
//! read into students ([`class`]), each submission hashed so that a re-run plays again only the
//! games of students who changed; the games are every student against the baselines and the
//! other students ([`schedule`]); the standings the marks come from are tallied by an engine
//! consumer as games are recorded ([`Tally`]); and a rubric ([`rubric`]) turns each student's
//! results into a mark ([`marks`]). The settings that make a re-run the same run are
//! `engine::settings::GradeSettings`; the page and marks.csv are written by `report::grade`.

pub mod class;
pub mod marks;
pub mod rubric;

use crate::engine::settings::GradeSettings;
use crate::engine::{Detached, Event};
use crate::referee::Reason;
use crate::results::failures;
use crate::results::games_csv::{self, DoneSet, ReadSummary, ResultRow};
use crate::results::standings::{self, Builder, Standings, StandingsError};
use crate::tournament::{games_of_tables, tables, Finished, Format, GameSpec, Plan};
use marks::Student;
use std::path::Path;

/// The tables of a grading run with `students` students (bots `0..students`) and `baselines`
/// baselines (bots after them) in games of `seats`: every student with every set of `seats - 1`
/// baselines, then every table of `seats` students (or `sample` tables drawn as tournaments
/// draw them).
pub fn grade_tables(
    students: usize,
    baselines: usize,
    seats: usize,
    sample: Option<usize>,
    seed: u64,
) -> Vec<Vec<usize>> {
    let plan = |bots, format, tables| Plan {
        bots,
        seats,
        format,
        games_per_table: seats as u32,
        tables,
        master_seed: seed,
    };
    let with_baselines = tables(&plan(1 + baselines, Format::Gauntlet, None));
    let mut out = Vec::new();
    for s in 0..students {
        for t in &with_baselines {
            out.push(
                t.iter()
                    .map(|&i| if i == 0 { s } else { students + i - 1 })
                    .collect(),
            );
        }
    }
    out.extend(tables(&plan(students, Format::RoundRobin, sample)));
    out
}

/// The 95% half-width, in Elo, of a rating from `games` results at an even score (draws only
/// narrow it): 1.96 x 0.5 / sqrt(n) in score, times the Elo curve's slope at 50%, 1600 / ln 10.
pub fn elo_half_width(games: f64) -> f64 {
    1.96 * 0.5 / games.sqrt() * 1600.0 / std::f64::consts::LN_10
}

/// The games of a grading run and what they tell of each student.
pub struct Schedule {
    /// The games still to play: every bot at the table can play, and the game is not recorded.
    pub todo: Vec<GameSpec>,
    /// Students whose bot can play.
    pub built: usize,
    /// Seats taken by students that build over their number, in the games that can be played:
    /// the games of an average student.
    pub per_student: usize,
    /// The games of one student against one baseline.
    pub vs_baseline: usize,
}

/// The games of `settings` for `students` students and `baselines` baselines in games of
/// `seats`, where `active[i]` says whether bot `i` can play and `done` holds the games recorded.
pub fn schedule(
    settings: &GradeSettings,
    students: usize,
    baselines: usize,
    seats: usize,
    active: &[bool],
    done: &DoneSet,
) -> Schedule {
    let n = students;
    let tables = grade_tables(n, baselines, seats, settings.tables, settings.seed);
    let all = games_of_tables(&tables, seats, settings.games, settings.seed);
    let playable = || all.iter().filter(|g| g.seats.iter().all(|&s| active[s]));
    let todo = playable()
        .filter(|g| !done.contains(g.game_id))
        .cloned()
        .collect();
    let built = active[..n].iter().filter(|&&a| a).count();
    let per_student = playable()
        .map(|g| g.seats.iter().filter(|&&s| s < n).count())
        .sum::<usize>()
        / built.max(1);
    let vs_baseline = all
        .iter()
        .filter(|g| g.seats.contains(&0) && g.seats.contains(&n))
        .count();
    Schedule {
        todo,
        built,
        per_student,
        vs_baseline,
    }
}

/// The students whose submission is not the one graded last (`before`: name and hash).
pub fn changed(students: &[Student], before: &[(String, String)]) -> Vec<String> {
    students
        .iter()
        .filter(|s| !before.iter().any(|(n, h)| *n == s.name && *h == s.hash))
        .map(|s| s.name.clone())
        .collect()
}

/// Forgets the recorded games of the `changed` students in results folder `out` (their rows in
/// games.csv and their failures/ files), so that they are played again. Returns how many games.
pub fn forget_games_of(out: &Path, changed: &[String]) -> std::io::Result<usize> {
    let dropped = games_csv::drop_games_of(&out.join("games.csv"), changed)?;
    for (id, bots) in &dropped {
        for bot in bots {
            let _ = std::fs::remove_file(failures::path(out, *id, bot));
        }
    }
    Ok(dropped.len())
}

/// The submissions of `students` that changed since the last grading into `out`, and how many
/// of their games were forgotten to be played again (when the run is continued, `resuming`);
/// then their hashes are remembered for the next run.
pub fn refresh(
    out: &Path,
    students: &[Student],
    resuming: bool,
) -> Result<Option<(Vec<String>, usize)>, class::ClassError> {
    let changed = changed(students, &class::read_hashes(&out.join(class::HASHES))?);
    let mut forgotten = None;
    if resuming && !changed.is_empty() {
        let dropped =
            forget_games_of(out, &changed).map_err(|source| class::ClassError::Update {
                path: out.join("games.csv"),
                source,
            })?;
        forgotten = Some((changed, dropped));
    }
    class::write_hashes(&out.join(class::HASHES), students)?;
    Ok(forgotten)
}

/// What the ratings count of a finished game, as it reads back from games.csv; `None` for a game
/// the referee could not play (ratings skip it).
pub fn result_row(f: &Finished) -> Option<ResultRow> {
    let r = &f.result;
    if r.reason == Reason::RefereeError {
        return None;
    }
    Some(ResultRow {
        bots: r.bots.clone(),
        ranks: r.ranks.clone(),
        reason: Some(r.reason),
        pair_id: Some(f.spec.pair_id),
        game_id: Some(f.spec.game_id),
        moves_hash: Some(games_csv::moves_hash(&r.opening, &r.moves)),
        forfeits: r.forfeits.iter().map(|x| (x.seat, x.reason)).collect(),
    })
}

/// The standings a grading run's marks come from, tallied game by game: the games recorded
/// before the run from games.csv, then each game the engine records (an engine consumer on a
/// thread of its own, see [`Tally::follow`]), so the marks are ready when the last game is.
pub struct Tally {
    builder: Builder,
    read: ReadSummary,
    /// The first game that could not be counted (a bot seated twice).
    error: Option<StandingsError>,
}

impl Tally {
    /// Starts from the games recorded in `games_csv`; `order` lists the bots that play, in
    /// the standings' order.
    pub fn read(games_csv: &Path, order: &[String]) -> Result<Tally, StandingsError> {
        let mut builder = Builder::new(order);
        let read =
            games_csv::try_for_each_result(&[games_csv.to_path_buf()], |row| builder.add(&row))?;
        Ok(Tally {
            builder,
            read,
            error: None,
        })
    }

    /// Counts one more game.
    pub fn add(&mut self, row: &ResultRow) {
        if self.error.is_none() {
            if let Err(e) = self.builder.add(row) {
                self.error = Some(e);
            }
        }
    }

    /// The tally as an engine consumer: every recorded game is counted on a thread of its own.
    /// [`Detached::finish`] gives the tally back once every game is counted.
    pub fn follow(self) -> Detached<Tally, ResultRow> {
        Detached::spawn(
            self,
            |e: &Event<'_>| match e {
                Event::GameFinished(f) => result_row(f),
                _ => None,
            },
            |tally: &mut Tally, row| tally.add(&row),
        )
    }

    /// The standings of every game counted (with the notes of reading games.csv).
    pub fn finish(self) -> Result<Standings, StandingsError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut table = self.builder.finish(None)?;
        standings::note_read(&mut table, &self.read);
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_student_meets_every_baseline_and_every_other_student() {
        let t = grade_tables(3, 2, 2, None, 1);
        // 3 students x 2 baselines, then the 3 pairs of students.
        assert_eq!(t.len(), 6 + 3);
        for s in 0..3 {
            for b in 3..5 {
                assert!(t.iter().any(|x| x.contains(&s) && x.contains(&b)));
            }
        }
        assert!(t[6..].iter().all(|x| x.iter().all(|&i| i < 3)));
        let sampled = grade_tables(30, 1, 2, Some(45), 1);
        assert_eq!(sampled.len(), 30 + 45);
        // Four seats and three baselines: each student sits with all three.
        let four = grade_tables(5, 3, 4, None, 1);
        assert_eq!(four.len(), 5 + 5);
        assert_eq!(four[0], vec![0, 5, 6, 7]);
    }

    /// The tally the marks come from, fed by the engine's events, holds the standings that
    /// games.csv gives once the run is over (games recorded before the run included).
    #[test]
    fn the_tally_of_the_events_is_the_standings_of_the_file() {
        use crate::bot::BotSpec;
        use crate::engine::{play, Consumer, Recorder};
        use crate::referee::GameChoice;
        use crate::referee::RefereeConfig;
        use crate::results::games_csv::GamesCsv;
        use crate::tournament::{schedule, Runner};

        let dir = tempfile::tempdir().unwrap();
        // Real processes that lose at once, each its own way: a crash, a malformed answer, a
        // silent exit; so the games have winners, losers and forfeits by seat.
        let bots: Vec<BotSpec> = [
            ("a", "exit 3"),
            ("b", "read line; echo '!!'; sleep 1"),
            ("c", "read line; exit 0"),
        ]
        .map(|(name, script)| {
            BotSpec::command(name, "/bin/sh", vec!["-c".into(), script.into()], ".")
        })
        .into();
        let cfg = RefereeConfig::default();
        let choice = GameChoice::new("impasse", None, None, None).unwrap();
        let runner = Runner {
            bots: &bots,
            game: &choice,
            opening_plies: 0,
            book: None,
            referee: &cfg,
            concurrency: 2,
            pin_cpus: false,
        };
        let games = schedule(3, Format::RoundRobin, 4, 7);
        let (before, after) = games.split_at(5);
        let path = dir.path().join("games.csv");
        let order: Vec<String> = ["a", "b", "c"].map(String::from).into();
        for todo in [before, after] {
            let (mut csv, _) = GamesCsv::open(&path, 2).unwrap();
            let mut recorder = Recorder::open(&mut csv, dir.path(), false, &choice, &cfg).unwrap();
            let mut tally = Tally::read(&path, &order).unwrap().follow();
            let end = play(
                &runner,
                todo,
                &mut recorder,
                &mut [&mut tally as &mut dyn Consumer],
            );
            assert_eq!(end.recorded, todo.len());
            let tallied = tally.finish().finish().unwrap();
            let (read, _) =
                standings::from_files(std::slice::from_ref(&path), &order, None).unwrap();
            assert_eq!(tallied.names, read.names);
            assert_eq!(tallied.played, read.played);
            assert_eq!(tallied.forfeits, read.forfeits);
            let sum = |s: &Standings| s.fit.ratings.iter().map(|r| r.games).sum::<u64>();
            assert_eq!(sum(&tallied), sum(&read));
            for (t, r) in tallied.fit.ratings.iter().zip(&read.fit.ratings) {
                assert_eq!((t.rating, t.points, t.games), (r.rating, r.points, r.games));
            }
        }
        let (read, _) = standings::from_files(std::slice::from_ref(&path), &order, None).unwrap();
        assert_eq!(read.played.iter().sum::<u64>(), 2 * games.len() as u64);
        assert!(
            !read.forfeits.is_empty(),
            "no forfeit: the test compares too little"
        );
    }

    #[test]
    fn the_interval_narrows_with_the_square_root_of_the_games() {
        assert!((elo_half_width(100.0) - 68.1).abs() < 0.1);
        assert!((elo_half_width(400.0) - 34.0).abs() < 0.1);
    }
}
