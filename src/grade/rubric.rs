//! The teacher's marking rule of a grading run: points for scoring at least a share of the
//! points against each baseline, points by rank among the students, and a fixed mark for a bot
//! that does not build. Read from a small TOML file, or the documented default. Pure: no I/O
//! beyond reading the file.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A rubric that cannot be read, or that does not fit the run.
#[derive(Debug, thiserror::Error)]
pub enum RubricError {
    #[error("reading the rubric {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not a valid rubric (see \"Rubric\" in docs/grading.md)", path.display())]
    Parse {
        path: PathBuf,
        #[source]
        source: toml::de::Error,
    },
    #[error(
        "the rubric gives points against '{name}', which is not a baseline of this run \
         (baselines: {})",
        baselines.join(", ")
    )]
    NotABaseline {
        name: String,
        baselines: Vec<String>,
    },
    #[error(
        "the rubric's min_score against '{name}' is {min_score}: it is a percentage, 0 to 100"
    )]
    Threshold { name: String, min_score: f64 },
}

/// A marking rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rubric {
    /// The mark of a bot that does not build or cannot start.
    #[serde(default)]
    pub not_built: f64,
    /// Points for results against baselines; several entries may name the same baseline
    /// (e.g. 2 points from 50%, 2 more from 75%).
    #[serde(default, rename = "baseline")]
    pub baselines: Vec<BaselineRule>,
    /// Points by rank among the students who built.
    #[serde(default)]
    pub rank: RankRule,
}

/// `points` for a score of at least `min_score` percent (win 1, draw 1/2, loss 0) against the
/// baseline named `name`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineRule {
    pub name: String,
    pub min_score: f64,
    pub points: f64,
}

/// `points[0]` for rank 1, `points[1]` for rank 2, ...; `others` for every later rank.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankRule {
    #[serde(default)]
    pub points: Vec<f64>,
    #[serde(default)]
    pub others: f64,
}

/// What the rubric is applied to: one student's results.
pub struct Results<'a> {
    pub built: bool,
    /// Per baseline name: the student's score against it (0 to 1), `None` without games.
    pub scores: &'a [(String, Option<f64>)],
    /// Rank among the students who built (1 = best); `None` for a bot that did not build.
    pub rank: Option<usize>,
}

/// A mark and how it was reached.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub total: f64,
    /// For example `random 75% >= 50%: +4; rank 2: +1`.
    pub detail: String,
}

impl Rubric {
    /// The default: 4 points for scoring at least 50% against each baseline, 2 points for rank
    /// 1 and 1 for rank 2, 0 for a bot that does not build.
    pub fn default_for(baselines: &[String]) -> Rubric {
        Rubric {
            not_built: 0.0,
            baselines: baselines
                .iter()
                .map(|name| BaselineRule {
                    name: name.clone(),
                    min_score: 50.0,
                    points: 4.0,
                })
                .collect(),
            rank: RankRule {
                points: vec![2.0, 1.0],
                others: 0.0,
            },
        }
    }

    /// Reads a rubric file.
    pub fn load(path: &Path) -> Result<Rubric, RubricError> {
        let text = std::fs::read_to_string(path).map_err(|source| RubricError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        toml::from_str(&text).map_err(|source| RubricError::Parse {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Checks that every rule names a baseline of the run and has a sensible threshold.
    pub fn check(&self, baselines: &[String]) -> Result<(), RubricError> {
        for rule in &self.baselines {
            if !baselines.contains(&rule.name) {
                return Err(RubricError::NotABaseline {
                    name: rule.name.clone(),
                    baselines: baselines.to_vec(),
                });
            }
            if !(0.0..=100.0).contains(&rule.min_score) {
                return Err(RubricError::Threshold {
                    name: rule.name.clone(),
                    min_score: rule.min_score,
                });
            }
        }
        Ok(())
    }

    /// The most a student can get.
    pub fn maximum(&self) -> f64 {
        let best_rank = self
            .rank
            .points
            .iter()
            .copied()
            .fold(self.rank.others, f64::max);
        self.baselines.iter().map(|r| r.points).sum::<f64>() + best_rank
    }

    /// The mark of one student.
    pub fn mark(&self, r: &Results) -> Mark {
        if !r.built {
            return Mark {
                total: self.not_built,
                detail: "does not build".into(),
            };
        }
        let mut total = 0.0;
        let mut parts = Vec::new();
        for rule in &self.baselines {
            let score = r
                .scores
                .iter()
                .find(|(name, _)| *name == rule.name)
                .and_then(|(_, s)| *s);
            let Some(score) = score else {
                parts.push(format!("{}: no games", rule.name));
                continue;
            };
            let percent = score * 100.0;
            // Compare in tenths of a percent, as printed, so 49.99...% from rounding counts.
            if (percent * 10.0).round() >= (rule.min_score * 10.0).round() {
                total += rule.points;
                parts.push(format!(
                    "{} {percent:.1}% >= {}%: +{}",
                    rule.name, rule.min_score, rule.points
                ));
            } else {
                parts.push(format!(
                    "{} {percent:.1}% < {}%: +0",
                    rule.name, rule.min_score
                ));
            }
        }
        if let Some(rank) = r.rank {
            let points = self
                .rank
                .points
                .get(rank - 1)
                .copied()
                .unwrap_or(self.rank.others);
            total += points;
            parts.push(format!("rank {rank}: +{points}"));
        }
        Mark {
            total,
            detail: parts.join("; "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(list: &[(&str, Option<f64>)]) -> Vec<(String, Option<f64>)> {
        list.iter().map(|(n, s)| (n.to_string(), *s)).collect()
    }

    #[test]
    fn the_default_rubric_gives_points_per_baseline_and_for_the_top_ranks() {
        let names = vec!["random".to_string(), "mcts".to_string()];
        let rubric = Rubric::default_for(&names);
        rubric.check(&names).unwrap();
        assert_eq!(rubric.maximum(), 10.0);
        let s = scores(&[("random", Some(0.75)), ("mcts", Some(0.25))]);
        let m = rubric.mark(&Results {
            built: true,
            scores: &s,
            rank: Some(2),
        });
        assert_eq!(m.total, 5.0);
        assert_eq!(
            m.detail,
            "random 75.0% >= 50%: +4; mcts 25.0% < 50%: +0; rank 2: +1"
        );
        let exactly_half = scores(&[("random", Some(0.5)), ("mcts", None)]);
        let m = rubric.mark(&Results {
            built: true,
            scores: &exactly_half,
            rank: Some(3),
        });
        assert_eq!(m.total, 4.0, "{}", m.detail);
        assert!(m.detail.contains("mcts: no games"), "{}", m.detail);
        let m = rubric.mark(&Results {
            built: false,
            scores: &[],
            rank: None,
        });
        assert_eq!((m.total, m.detail.as_str()), (0.0, "does not build"));
    }

    #[test]
    fn a_rubric_file_is_read_and_checked_against_the_baselines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rubric.toml");
        std::fs::write(
            &path,
            "not_built = 1\n\n[[baseline]]\nname = \"random\"\nmin_score = 50\npoints = 2\n\n\
             [[baseline]]\nname = \"random\"\nmin_score = 90\npoints = 3\n\n\
             [rank]\npoints = [5]\nothers = 0.5\n",
        )
        .unwrap();
        let rubric = Rubric::load(&path).unwrap();
        rubric.check(&["random".to_string()]).unwrap();
        assert_eq!(rubric.maximum(), 10.0);
        let s = scores(&[("random", Some(0.95))]);
        let m = rubric.mark(&Results {
            built: true,
            scores: &s,
            rank: Some(4),
        });
        assert_eq!(m.total, 5.5, "{}", m.detail);
        let err = rubric.check(&["mcts".to_string()]).unwrap_err().to_string();
        assert!(err.contains("'random', which is not a baseline"), "{err}");
        std::fs::write(&path, "[[baseline]]\nname = \"x\"\nmin = 5\n").unwrap();
        let err = crate::errors::chain_text(&Rubric::load(&path).unwrap_err());
        assert!(err.contains("not a valid rubric"), "{err}");
    }
}
