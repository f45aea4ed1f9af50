//! What the league tells while it runs: a typed event for each thing the live page and the
//! workers waiting for a game (a long-polled lease wakes on any event) may want to know. The
//! server's parts send these values; only the HTTP edge ([`super::http`]) writes them as
//! server-sent events, each with its name ([`LeagueEvent::name`]) and its JSON
//! ([`LeagueEvent::data`]), which the page's script reads.

use super::lines::LiveGame;
use super::scheduler::CancelWhy;
use super::trust::{Quarantined, Voided};
use crate::engine::{Consumer, Event};
use serde::Serialize;
use std::ops::ControlFlow;

/// One thing that happened in the league.
#[derive(Clone, Debug)]
pub enum LeagueEvent {
    /// A game was leased: its line, with who plays it.
    Started(LiveGame),
    /// A game was recorded: its line, with its ranks and reason (as the engine told it:
    /// [`EngineListener`]).
    Recorded(LiveGame),
    /// A scheduled game will not be played.
    Cancelled(CancelledLine),
    /// A leased game went back to the queue (its worker could not start it, or gave it back).
    Released { game_id: u64 },
    /// New standings, fitted on this many games.
    Standings { games: u64 },
    /// The league stopped recording, and why.
    RecordingFailed { why: String },
    /// A bot is being built and checked.
    Building { name: String },
    /// A bot's check ended, as the engine told it ([`EngineListener`]): it plays (`ready`), or
    /// it cannot (why is on its page, for those allowed to read it, never in the public
    /// stream).
    Checked { name: String, ready: bool },
    /// A worker was quarantined.
    Quarantined(Quarantined),
    /// A game was voided (its worker's machine was too busy for a bot).
    Voided(Voided),
}

/// A cancelled game as the page is told it.
#[derive(Clone, Debug, Serialize)]
pub struct CancelledLine {
    pub game_id: u64,
    pub bots: Vec<String>,
    /// The bot it was cancelled for.
    pub bot: String,
    pub why: CancelWhy,
}

impl LeagueEvent {
    /// The event's name in the stream (the page's script listens by these names).
    pub fn name(&self) -> &'static str {
        match self {
            LeagueEvent::Started(_) => "start",
            LeagueEvent::Recorded(_) => "game",
            LeagueEvent::Cancelled(_) => "cancelled",
            LeagueEvent::Released { .. } => "released",
            LeagueEvent::Standings { .. } => "standings",
            LeagueEvent::RecordingFailed { .. } => "recording",
            LeagueEvent::Building { .. } | LeagueEvent::Checked { .. } => "bot",
            LeagueEvent::Quarantined(_) => "quarantined",
            LeagueEvent::Voided(_) => "voided",
        }
    }

    /// The event's data, as JSON.
    pub fn data(&self) -> String {
        let json = match self {
            LeagueEvent::Started(line) | LeagueEvent::Recorded(line) => serde_json::to_value(line),
            LeagueEvent::Cancelled(c) => serde_json::to_value(c),
            LeagueEvent::Released { game_id } => Ok(serde_json::json!({ "game_id": game_id })),
            LeagueEvent::Standings { games } => Ok(serde_json::json!({ "games": games })),
            LeagueEvent::RecordingFailed { why } => Ok(serde_json::json!({ "failed": why })),
            LeagueEvent::Building { name } => {
                Ok(serde_json::json!({ "name": name, "status": "building" }))
            }
            LeagueEvent::Checked { name, ready } => Ok(serde_json::json!({
                "name": name,
                "status": if *ready { "ready" } else { "broken" },
            })),
            LeagueEvent::Quarantined(q) => serde_json::to_value(q),
            LeagueEvent::Voided(v) => serde_json::to_value(v),
        };
        json.expect("an event serialises").to_string()
    }
}

/// The engine's events, told to the league's listeners (its page's event streams, the workers
/// waiting for a game): the league follows a bot's check and its recorded games as a
/// tournament's live report does, a [`Consumer`] of the engine's events. Of a check it says
/// only whether the bot plays (why it does not is on its page, for its author).
pub struct EngineListener<'a> {
    pub tell: &'a dyn Fn(LeagueEvent),
}

impl Consumer for EngineListener<'_> {
    fn event(&mut self, event: &Event<'_>) -> ControlFlow<()> {
        let checked = |name: &str, ready| LeagueEvent::Checked {
            name: name.to_string(),
            ready,
        };
        match *event {
            Event::BotReady { name, .. } => (self.tell)(checked(name, true)),
            Event::BotBroken { name, .. } => (self.tell)(checked(name, false)),
            Event::GameFinished(f) => (self.tell)(LeagueEvent::Recorded(LiveGame {
                game_id: f.spec.game_id,
                bots: f.result.bots.clone(),
                ranks: Some(f.result.ranks.clone()),
                reason: Some(f.result.reason),
                worker: None,
            })),
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_event_keeps_the_name_and_fields_the_page_reads() {
        let line = LiveGame {
            game_id: 4,
            bots: vec!["a".into(), "b".into()],
            ranks: Some(vec![0, 1]),
            reason: Some(crate::referee::Reason::Win),
            worker: None,
        };
        let e = LeagueEvent::Recorded(line);
        assert_eq!(e.name(), "game");
        let v: serde_json::Value = serde_json::from_str(&e.data()).unwrap();
        assert_eq!(v["game_id"], 4);
        assert_eq!(v["ranks"], serde_json::json!([0, 1]));
        assert_eq!(v["reason"], "win");
        let c = LeagueEvent::Cancelled(CancelledLine {
            game_id: 9,
            bots: vec!["a".into(), "b".into()],
            bot: "a".into(),
            why: CancelWhy::Suspended,
        });
        let v: serde_json::Value = serde_json::from_str(&c.data()).unwrap();
        assert_eq!((c.name(), &v["why"]), ("cancelled", &"suspended".into()));
        let r = LeagueEvent::RecordingFailed { why: "disk".into() };
        assert_eq!(r.data(), r#"{"failed":"disk"}"#);
        let b = LeagueEvent::Building { name: "x".into() };
        assert_eq!(b.name(), "bot");
        let c = LeagueEvent::Checked {
            name: "x".into(),
            ready: false,
        };
        assert_eq!(c.name(), "bot");
        assert_eq!(c.data(), r#"{"name":"x","status":"broken"}"#);
        assert_eq!(
            LeagueEvent::Released { game_id: 3 }.data(),
            r#"{"game_id":3}"#
        );
    }

    #[test]
    fn a_bots_check_is_told_from_the_engines_events_without_its_problem() {
        let told = std::cell::RefCell::new(Vec::new());
        let tell = |e: LeagueEvent| told.borrow_mut().push(e.data());
        let mut listener = EngineListener { tell: &tell };
        let _ = listener.event(&Event::BotBroken {
            bot: 0,
            name: "a",
            problem: "secret compiler output",
        });
        let _ = listener.event(&Event::Notice("not a bot's"));
        let _ = listener.event(&Event::BotReady { bot: 1, name: "b" });
        assert_eq!(
            *told.borrow(),
            [
                r#"{"name":"a","status":"broken"}"#,
                r#"{"name":"b","status":"ready"}"#
            ]
        );
    }

    #[test]
    fn a_game_the_engine_finished_is_told_as_the_pages_recorded_game() {
        let choice = crate::referee::GameChoice::new("impasse", None, None, None).unwrap();
        let result = crate::results::records::tests::simulate(&choice, 5, 2, None);
        let spec = crate::tournament::GameSpec {
            game_id: 12,
            pair_id: 6,
            seed: 5,
            seats: vec![0, 1],
        };
        let f = crate::tournament::Finished { spec, result };
        let told = std::cell::RefCell::new(Vec::new());
        let tell = |e: LeagueEvent| told.borrow_mut().push((e.name(), e.data()));
        let _ = EngineListener { tell: &tell }.event(&Event::GameFinished(&f));
        let told = told.into_inner();
        assert_eq!(told.len(), 1);
        assert_eq!(told[0].0, "game");
        let v: serde_json::Value = serde_json::from_str(&told[0].1).unwrap();
        assert_eq!(v["game_id"], 12);
        assert_eq!(v["bots"], serde_json::json!(f.result.bots));
        assert_eq!(v["ranks"], serde_json::json!(f.result.ranks));
        assert_eq!(v["reason"], f.result.reason.as_str());
        assert!(v.get("worker").is_none(), "{v}");
    }
}
