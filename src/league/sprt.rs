//! SPRTs inside the league (`league add DIR NEW=BOT --candidate OLD [--elo0 E0 --elo1 E1
//! --max-pairs N]`), as fishtest runs them: several at once, each with its bounds and its
//! limit of pairs. A test counts the pairs of games of NEW against OLD (a shared seed, seats
//! swapped) scheduled after it started, as a pentanomial, and the log-likelihood ratio of
//! `arbiter sprt` (normalized Elo, alpha = beta = 0.05) decides; until it does, the scheduler
//! gives a share of the league's tables to the running tests. An SPRT is a stopping rule: once
//! it ends (H1, H0, its pair limit reached, or its candidate removed or replaced) its verdict
//! and counts stand, and later games of the two are not counted.
//!
//! What survives a restart is kept in `DIR/sprt.jsonl`, a line when a test starts and a line
//! when it ends ([`Line`]); a start reads it ([`Tests::from_lines`]) and counts the games of
//! games.csv again for the course of the LLR, but an ended test keeps the verdict its line
//! says: a decided SPRT is never run again. Pure: the server logs the lines and feeds the games.

use crate::rating::{self, PairCounter, SprtModel, SprtParams};
use crate::utc::UtcTime;
use serde::{Deserialize, Serialize};

/// The bounds unless told (`--elo0`, `--elo1`): normalized Elo, as `arbiter sprt`.
pub const DEFAULT_ELO0: f64 = 0.0;
pub const DEFAULT_ELO1: f64 = 5.0;
/// The pairs after which a test that has not decided ends (`--max-pairs`).
pub const DEFAULT_MAX_PAIRS: u64 = 2000;
/// Points of the LLR's course kept per test (a long test is thinned).
const COURSE_POINTS: usize = 400;

/// A test's bounds and pair limit, as `league add` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    pub elo0: f64,
    pub elo1: f64,
    pub max_pairs: u64,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            elo0: DEFAULT_ELO0,
            elo1: DEFAULT_ELO1,
            max_pairs: DEFAULT_MAX_PAIRS,
        }
    }
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtVerdict {
    Running,
    /// NEW is better by elo1.
    H1,
    /// NEW is not better than elo0.
    H0,
    /// Its pair limit was reached without a decision.
    MaxPairs,
    /// NEW or OLD was removed from the league.
    Removed,
    /// NEW was replaced by another version (a new test runs for it if asked).
    Replaced,
}

impl SprtVerdict {
    /// The verdict as the page and `/api/standings` show it (`H1`, where `sprt.jsonl` writes
    /// `h1`).
    pub fn shown(self) -> &'static str {
        match self {
            SprtVerdict::H1 => "H1",
            SprtVerdict::H0 => "H0",
            SprtVerdict::Running => "running",
            SprtVerdict::MaxPairs => "max-pairs",
            SprtVerdict::Removed => "removed",
            SprtVerdict::Replaced => "replaced",
        }
    }

    fn serialize_shown<S: serde::Serializer>(v: &SprtVerdict, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.shown())
    }
}

/// A line of `sprt.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Line {
    Started {
        test: u64,
        new: String,
        old: String,
        #[serde(flatten)]
        bounds: Bounds,
        /// Games from this id on are counted (those scheduled after the test started).
        from_game: u64,
        at: UtcTime,
    },
    Ended {
        test: u64,
        verdict: SprtVerdict,
        llr: f64,
        pairs: u64,
        at: UtcTime,
    },
}

/// One candidate's test.
pub struct Test {
    pub id: u64,
    pub new: String,
    pub old: String,
    bounds: Bounds,
    params: SprtParams,
    from_game: u64,
    pairs: PairCounter,
    verdict: SprtVerdict,
    /// An ended test read back: counted (for its course) up to this many pairs, never decided
    /// again.
    kept: Option<u64>,
    /// `(pairs, LLR)` after each completed pair, thinned to [`COURSE_POINTS`].
    course: Vec<(u64, f64)>,
}

/// What the page and `/api/standings` show of a test.
#[derive(Clone, Debug, Serialize)]
pub struct LeagueSprtView {
    pub test: u64,
    pub new: String,
    pub old: String,
    pub elo0: f64,
    pub elo1: f64,
    pub max_pairs: u64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// Complete pairs counted.
    pub pairs: u64,
    /// Shown as `running`, `H1`, `H0`, `max-pairs`, `removed` or `replaced`.
    #[serde(serialize_with = "SprtVerdict::serialize_shown")]
    pub verdict: SprtVerdict,
    /// The LLR after each pair (`[pairs, llr]`, thinned).
    pub course: Vec<(u64, f64)>,
}

impl Test {
    fn new(id: u64, new: &str, old: &str, bounds: Bounds, from_game: u64) -> Test {
        Test {
            id,
            new: new.to_string(),
            old: old.to_string(),
            bounds,
            params: SprtParams {
                elo0: bounds.elo0,
                elo1: bounds.elo1,
                alpha: 0.05,
                beta: 0.05,
                model: SprtModel::Normalized,
            },
            from_game,
            pairs: PairCounter::default(),
            verdict: SprtVerdict::Running,
            kept: None,
            course: Vec::new(),
        }
    }

    pub fn running(&self) -> bool {
        self.verdict == SprtVerdict::Running
    }

    pub fn verdict(&self) -> SprtVerdict {
        self.verdict
    }

    /// Counts game `game_id` if it is NEW against OLD and the test counts it; the test's end,
    /// if this game decided it (at `at`).
    fn add(
        &mut self,
        game_id: u64,
        bots: &[String],
        ranks: &[u8],
        pair_id: u64,
        at: UtcTime,
    ) -> Option<Line> {
        let [a, b] = bots else { return None };
        let score = |mine: u8, theirs: u8| match mine.cmp(&theirs) {
            std::cmp::Ordering::Less => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Greater => 0.0,
        };
        let of_new = if *a == self.new && *b == self.old {
            score(*ranks.first()?, *ranks.get(1)?)
        } else if *a == self.old && *b == self.new {
            score(*ranks.get(1)?, *ranks.first()?)
        } else {
            return None;
        };
        if game_id < self.from_game {
            return None;
        }
        match self.kept {
            Some(n) if self.pairs.penta.pairs() >= n => return None,
            None if !self.running() => return None,
            _ => {}
        }
        if !self.pairs.add(pair_id, Some(of_new)) {
            return None;
        }
        let llr = self.llr();
        self.course.push((self.pairs.penta.pairs(), llr));
        if self.course.len() > COURSE_POINTS {
            // Every other point, the last kept.
            let last = *self.course.last().expect("not empty");
            let mut k = 0;
            self.course.retain(|_| {
                k += 1;
                k % 2 == 1
            });
            if self.course.last() != Some(&last) {
                self.course.push(last);
            }
        }
        if self.kept.is_some() {
            return None;
        }
        let verdict = match rating::decide(llr, &self.params) {
            rating::Decision::AcceptH1 => SprtVerdict::H1,
            rating::Decision::AcceptH0 => SprtVerdict::H0,
            rating::Decision::Continue if self.pairs.penta.pairs() >= self.bounds.max_pairs => {
                SprtVerdict::MaxPairs
            }
            rating::Decision::Continue => return None,
        };
        Some(self.end(verdict, at))
    }

    /// Ends the test with `verdict`: its `Ended` line (at `at`).
    fn end(&mut self, verdict: SprtVerdict, at: UtcTime) -> Line {
        self.verdict = verdict;
        Line::Ended {
            test: self.id,
            verdict,
            llr: self.llr(),
            pairs: self.pairs.penta.pairs(),
            at,
        }
    }

    fn llr(&self) -> f64 {
        rating::llr_pentanomial(&self.pairs.penta, &self.params)
    }

    pub fn shown(&self) -> LeagueSprtView {
        let (lower, upper) = self.params.bounds();
        LeagueSprtView {
            test: self.id,
            new: self.new.clone(),
            old: self.old.clone(),
            elo0: self.bounds.elo0,
            elo1: self.bounds.elo1,
            max_pairs: self.bounds.max_pairs,
            llr: self.llr(),
            lower,
            upper,
            pairs: self.pairs.penta.pairs(),
            verdict: self.verdict,
            course: self.course.clone(),
        }
    }
}

/// The league's tests, in the order they started.
#[derive(Default)]
pub struct Tests {
    pub list: Vec<Test>,
}

impl Tests {
    /// The tests `sprt.jsonl` holds: each started one, with its verdict if it ended.
    pub fn from_lines(lines: &[Line]) -> Tests {
        let mut t = Tests::default();
        for line in lines {
            match line {
                Line::Started {
                    test,
                    new,
                    old,
                    bounds,
                    from_game,
                    ..
                } => t.list.push(Test::new(*test, new, old, *bounds, *from_game)),
                Line::Ended {
                    test,
                    verdict,
                    pairs,
                    ..
                } => {
                    if let Some(x) = t.list.iter_mut().find(|x| x.id == *test) {
                        x.verdict = *verdict;
                        x.kept = Some(*pairs);
                    }
                }
            }
        }
        t
    }

    /// Starts a test of `new` against `old` counting games from `from_game` on: its line, after
    /// the `Ended` line of a test of `new` still running (replaced by this one).
    pub fn start(
        &mut self,
        new: &str,
        old: &str,
        bounds: Bounds,
        from_game: u64,
        at: UtcTime,
    ) -> Vec<Line> {
        let mut lines = self.end_of(new, SprtVerdict::Replaced, at);
        let id = self.list.iter().map(|t| t.id + 1).max().unwrap_or(0);
        self.list.push(Test::new(id, new, old, bounds, from_game));
        lines.push(Line::Started {
            test: id,
            new: new.to_string(),
            old: old.to_string(),
            bounds,
            from_game,
            at,
        });
        lines
    }

    /// Ends the running tests whose candidate is `bot` (and, if it is removed, those of which it
    /// is the reference): their lines.
    pub fn end_of(&mut self, bot: &str, why: SprtVerdict, at: UtcTime) -> Vec<Line> {
        self.list
            .iter_mut()
            .filter(|t| {
                t.running() && (t.new == bot || (why == SprtVerdict::Removed && t.old == bot))
            })
            .map(|t| t.end(why, at))
            .collect()
    }

    /// Counts a recorded game in every test it belongs to: the lines of the tests it ended
    /// (at `at`).
    pub fn add(
        &mut self,
        game_id: u64,
        bots: &[String],
        ranks: &[u8],
        pair_id: u64,
        at: UtcTime,
    ) -> Vec<Line> {
        self.list
            .iter_mut()
            .filter_map(|t| t.add(game_id, bots, ranks, pair_id, at))
            .collect()
    }

    /// The running tests' pairs `(new, old)`, for the scheduler.
    pub fn running(&self) -> Vec<(String, String)> {
        self.list
            .iter()
            .filter(|t| t.running())
            .map(|t| (t.new.clone(), t.old.clone()))
            .collect()
    }

    pub fn shown(&self) -> Vec<LeagueSprtView> {
        self.list.iter().map(Test::shown).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> UtcTime {
        "2026-01-02 03:04 UTC".parse().unwrap()
    }

    fn play(t: &mut Tests, game: &mut u64, new_wins: bool, pair: u64) -> Vec<Line> {
        let (new, old) = ("new".to_string(), "old".to_string());
        let mut lines = t.add(
            *game,
            &[new.clone(), old.clone()],
            if new_wins { &[0, 1] } else { &[1, 0] },
            pair,
            at(),
        );
        lines.extend(t.add(
            *game + 1,
            &[old, new],
            if new_wins { &[1, 0] } else { &[0, 1] },
            pair,
            at(),
        ));
        *game += 2;
        lines
    }

    #[test]
    fn a_clear_gain_is_accepted_its_end_is_kept_and_read_back_it_is_not_decided_again() {
        let mut t = Tests::default();
        let mut log = t.start("new", "old", Bounds::default(), 2, at());
        let mut game = 0;
        // Games before the test started are not counted; others' games neither.
        play(&mut t, &mut game, true, 0);
        t.add(game, &["new".into(), "x".into()], &[0, 1], 1, at());
        assert_eq!(t.shown()[0].pairs, 0);
        let mut pair = 1;
        while t.list[0].running() && pair < 10_000 {
            // NEW wins both games of 3 pairs in 4, and loses both of the fourth.
            log.extend(play(&mut t, &mut game, pair % 4 != 0, pair));
            pair += 1;
        }
        let shown = t.shown()[0].clone();
        assert_eq!(shown.verdict, SprtVerdict::H1, "{shown:?}");
        assert!(shown.llr >= shown.upper && !shown.course.is_empty());
        // Decided, it stands: later pairs (here all lost) are not counted.
        for p in pair..pair + 200 {
            play(&mut t, &mut game, false, p);
        }
        assert_eq!(t.shown()[0].pairs, shown.pairs);
        assert!(t.running().is_empty());
        // Read back from its lines, with every game counted again: the same verdict, never
        // run again.
        assert!(matches!(
            log.last(),
            Some(Line::Ended {
                verdict: SprtVerdict::H1,
                ..
            })
        ));
        let mut again = Tests::from_lines(&log);
        let mut game = 0;
        for p in 0..pair + 200 {
            play(&mut again, &mut game, p < pair && p % 4 != 0, p);
        }
        let back = again.shown()[0].clone();
        assert_eq!((back.verdict, back.pairs), (SprtVerdict::H1, shown.pairs));
        assert!(again.running().is_empty());
    }

    #[test]
    fn two_tests_run_at_once_a_replaced_candidates_test_ends_and_a_limit_ends_one() {
        let mut t = Tests::default();
        let small = Bounds {
            max_pairs: 3,
            ..Bounds::default()
        };
        t.start("new", "old", small, 0, at());
        t.start("other", "old", Bounds::default(), 0, at());
        assert_eq!(
            t.running().len(),
            2,
            "a second test does not replace the first"
        );
        let mut game = 0;
        let mut ended = Vec::new();
        for p in 0..3 {
            // Even pairs: no decision.
            ended.extend(play(&mut t, &mut game, p % 2 == 0, p));
        }
        assert!(
            matches!(
                ended[..],
                [Line::Ended {
                    verdict: SprtVerdict::MaxPairs,
                    pairs: 3,
                    ..
                }]
            ),
            "{ended:?}"
        );
        let lines = t.start("other", "old", Bounds::default(), game, at());
        assert!(matches!(
            lines[0],
            Line::Ended {
                test: 1,
                verdict: SprtVerdict::Replaced,
                ..
            }
        ));
        assert_eq!(t.running(), [("other".to_string(), "old".to_string())]);
        assert_eq!(t.list.len(), 3);
        let lines = t.end_of("old", SprtVerdict::Removed, at());
        assert_eq!(lines.len(), 1);
        assert!(t.running().is_empty());
    }

    /// The page and the API show a verdict as they did when it was a text (`H1`), and
    /// `sprt.jsonl` keeps writing and reading its own (`h1`), with its time.
    #[test]
    fn a_verdict_is_shown_as_before_and_an_old_log_line_still_reads() {
        let mut t = Tests::default();
        t.start("new", "old", Bounds::default(), 0, at());
        let shown = |v: SprtVerdict| {
            let mut view = t.shown()[0].clone();
            view.verdict = v;
            serde_json::to_value(view).unwrap()["verdict"].clone()
        };
        for (v, text) in [
            (SprtVerdict::Running, "running"),
            (SprtVerdict::H1, "H1"),
            (SprtVerdict::H0, "H0"),
            (SprtVerdict::MaxPairs, "max-pairs"),
            (SprtVerdict::Removed, "removed"),
            (SprtVerdict::Replaced, "replaced"),
        ] {
            assert_eq!(shown(v), text);
            assert_eq!(v.shown(), text);
        }
        let old = r#"{"event":"ended","test":0,"verdict":"h1","llr":3.1,"pairs":120,"at":"2025-06-30 23:59 UTC"}"#;
        let line: Line = serde_json::from_str(old).unwrap();
        let Line::Ended { verdict, at, .. } = &line else {
            panic!("{line:?}")
        };
        assert_eq!(
            (*verdict, at.to_string().as_str()),
            (SprtVerdict::H1, "2025-06-30 23:59 UTC")
        );
        assert_eq!(serde_json::to_string(&line).unwrap(), old);
    }
}
