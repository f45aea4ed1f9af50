//! The league's standings, refreshed off the scheduler's path: finished games are counted as
//! they come (the same streamed record and Bradley-Terry/Plackett-Luce fit with intervals that
//! `arbiter ratings` uses), and the fit runs on this module's own thread whenever new games
//! arrived, so games never wait for it. Each fit becomes the JSON that `/api/standings` serves
//! and the scheduler's ratings for matchmaking.

use crate::rating::{FieldRecord, FitOptions, RatingValue};
use serde::Serialize;
use std::collections::HashMap;

/// A finished game as the standings count it.
#[derive(Clone, Debug)]
pub struct Counted {
    pub bots: Vec<String>,
    pub ranks: Vec<u8>,
    pub pair_id: u64,
}

/// One bot's line of the standings.
#[derive(Clone, Debug, Serialize)]
pub struct BotLine {
    pub name: String,
    /// Games played (one per game, whatever its seat count).
    pub games: u64,
    /// Elo (mean 0), `null` while unrated.
    pub rating: Option<f64>,
    /// The 95% interval.
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub points: f64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Set by the server from its scheduler (the fit says `playing`).
    pub status: BotStatus,
    /// Why it is not played, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Whether a bot is played, and if not why not, as `/api/standings` says it (`playing`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BotStatus {
    Playing,
    /// Its files are being built.
    Building,
    /// Its files are being checked (a worker of the server's machine plays it first).
    Checking,
    Removed,
    /// It cannot be played (its problem says why).
    Broken,
    /// It forfeited too many games in a row.
    Suspended,
}

impl BotStatus {
    /// The status as `/api/standings` says it and the pages show it.
    pub fn as_str(self) -> &'static str {
        match self {
            BotStatus::Playing => "playing",
            BotStatus::Building => "building",
            BotStatus::Checking => "checking",
            BotStatus::Removed => "removed",
            BotStatus::Broken => "broken",
            BotStatus::Suspended => "suspended",
        }
    }
}

impl std::fmt::Display for BotStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `/api/standings` serves.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Table {
    pub games: u64,
    pub bots: Vec<BotLine>,
    /// How the ratings were computed.
    pub model: String,
    /// A candidate's SPRT inside the league, if one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sprt: Option<super::sprt::LeagueSprtView>,
    /// Every SPRT run inside the league (running, decided, ended), in the order they started.
    pub sprts: Vec<super::sprt::LeagueSprtView>,
}

/// Score against one opponent, from a bot's side.
#[derive(Clone, Debug, Serialize)]
pub struct Versus {
    pub opponent: String,
    pub games: u64,
    pub points: f64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// The games counted so far.
#[derive(Clone, Default)]
pub struct Tally {
    names: Vec<String>,
    index: HashMap<String, usize>,
    record: FieldRecord,
    games: u64,
}

impl Tally {
    fn id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), self.names.len() - 1);
        self.record.table.add_bot();
        self.record.played.push(0);
        self.names.len() - 1
    }

    /// Makes `name` known (a bot with no game yet still has its line).
    pub fn know(&mut self, name: &str) {
        self.id(name);
    }

    /// Counts one game (a game whose bots sit twice is not counted).
    pub fn add(&mut self, g: &Counted) {
        let ids: Vec<usize> = g.bots.iter().map(|b| self.id(b)).collect();
        if self.record.add(&ids, &g.ranks, Some(g.pair_id)).is_ok() {
            self.games += 1;
        }
    }

    /// Fits the ratings: each known bot's line (without status), best first, and each bot's
    /// rating with the width of its interval (for matchmaking).
    pub fn fit(&self) -> (Table, Vec<(String, Option<f64>, f64)>) {
        let fit = self.record.fit(&FitOptions::default());
        let mut table = Table {
            games: self.games,
            bots: Vec::new(),
            model: String::new(),
            sprt: None,
            sprts: Vec::new(),
        };
        let mut widths = Vec::new();
        match fit {
            Ok(fit) => {
                table.model = fit.method.clone();
                for i in fit.ranking() {
                    let r = &fit.ratings[i];
                    let rating = match r.rating {
                        RatingValue::Finite(x) => Some(x),
                        _ => None,
                    };
                    let finite = |x: f64| x.is_finite().then_some(x);
                    widths.push((self.names[i].clone(), rating, r.high - r.low));
                    table.bots.push(BotLine {
                        name: self.names[i].clone(),
                        games: self.record.played.get(i).copied().unwrap_or(0),
                        rating,
                        low: finite(r.low),
                        high: finite(r.high),
                        points: r.points,
                        wins: r.wins,
                        draws: r.draws,
                        losses: r.losses,
                        status: BotStatus::Playing,
                        problem: None,
                    });
                }
            }
            Err(e) => {
                table.model = format!("no fit: {e}");
                for (i, name) in self.names.iter().enumerate() {
                    widths.push((name.clone(), None, f64::INFINITY));
                    table.bots.push(BotLine {
                        name: name.clone(),
                        games: self.record.played.get(i).copied().unwrap_or(0),
                        rating: None,
                        low: None,
                        high: None,
                        points: 0.0,
                        wins: 0,
                        draws: 0,
                        losses: 0,
                        status: BotStatus::Playing,
                        problem: None,
                    });
                }
            }
        }
        (table, widths)
    }

    /// `name`'s score against each opponent it met.
    pub fn versus(&self, name: &str) -> Vec<Versus> {
        let Some(&a) = self.index.get(name) else {
            return Vec::new();
        };
        (0..self.names.len())
            .filter(|&b| b != a && self.record.table.games(a, b) > 0)
            .map(|b| {
                let wdl = self.record.table.pair(a, b);
                Versus {
                    opponent: self.names[b].clone(),
                    games: self.record.table.games(a, b),
                    points: self.record.table.points(a, b),
                    wins: wdl.wins,
                    draws: wdl.draws,
                    losses: wdl.losses,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stronger_bot_is_first_with_an_interval_and_scores_per_opponent() {
        let mut s = Tally::default();
        s.know("idle");
        for k in 0..20 {
            let ranks = if k % 5 == 0 { vec![1, 0] } else { vec![0, 1] };
            s.add(&Counted {
                bots: vec!["strong".into(), "weak".into()],
                ranks,
                pair_id: k / 2,
            });
        }
        let (table, widths) = s.fit();
        assert_eq!(table.games, 20);
        assert_eq!(table.bots[0].name, "strong");
        let strong = &table.bots[0];
        assert!(strong.low.unwrap() < strong.rating.unwrap());
        assert!(strong.rating.unwrap() < strong.high.unwrap());
        assert!(table.bots.iter().any(|b| b.name == "idle" && b.games == 0));
        assert!(widths
            .iter()
            .any(|(n, _, w)| n == "strong" && w.is_finite()));
        let v = s.versus("strong");
        assert_eq!(v.len(), 1);
        assert_eq!((v[0].wins, v[0].losses), (16, 4));
    }

    /// A status is sent and shown as the text the page's script and the tests look for.
    #[test]
    fn a_status_is_sent_and_shown_as_its_text() {
        for (status, text) in [
            (BotStatus::Playing, "playing"),
            (BotStatus::Building, "building"),
            (BotStatus::Checking, "checking"),
            (BotStatus::Removed, "removed"),
            (BotStatus::Broken, "broken"),
            (BotStatus::Suspended, "suspended"),
        ] {
            assert_eq!(serde_json::to_value(status).unwrap(), text);
            assert_eq!(status.to_string(), text);
        }
    }
}
