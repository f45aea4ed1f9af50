//! The games leased to remote workers and not yet returned, each with the session that holds
//! its lease (and those that held it before it expired), and the bots' archives it needs. A
//! result is heard only from the session that holds its game; an archive is served only to a
//! session that holds a game of its bot; a session holds at most its share of games at once.
//! Game ids are public (`/api/games`), so nothing here trusts an id alone.

use crate::league::scheduler::LeagueGame;
use std::collections::HashMap;

struct Out {
    game: LeagueGame,
    holder: String,
    /// Sessions whose lease of it expired before it went to `holder` (their late results are
    /// dropped, not refused).
    former: Vec<String>,
    /// Its bots' archives, by hash.
    hashes: Vec<String>,
}

/// What a session's result for a game finds.
#[derive(Debug, PartialEq)]
pub enum Taken {
    /// The session holds the game: it is its result to send (and no longer out).
    Yours(LeagueGame),
    /// The session held it once, and its lease ran out: dropped, as any late result.
    Former,
    /// Another session holds it (named).
    Other(String),
    /// Not out (recorded already, voided, or from before a restart).
    NotOut,
}

/// The games out on lease.
#[derive(Default)]
pub struct HeldGames {
    games: HashMap<u64, Out>,
    /// Games out by session.
    count: HashMap<String, usize>,
}

/// The worker name (the token's) of a session `NAME#N`.
pub fn name_of(session: &str) -> &str {
    session.rsplit_once('#').map_or(session, |(name, _)| name)
}

impl HeldGames {
    fn add(&mut self, session: &str, n: isize) {
        let c = self.count.entry(session.to_string()).or_default();
        *c = c.saturating_add_signed(n);
        if *c == 0 {
            self.count.remove(session);
        }
    }

    /// `game` is leased to `session`, needing the archives `hashes`. A game whose lease ran out
    /// and goes to another session keeps its earlier holders as former ones.
    pub fn lease(&mut self, game: LeagueGame, session: &str, hashes: Vec<String>) {
        let mut former = Vec::new();
        if let Some(old) = self.games.remove(&game.game_id) {
            self.add(&old.holder, -1);
            former = old.former;
            if old.holder != session {
                former.push(old.holder);
            }
        }
        self.add(session, 1);
        self.games.insert(
            game.game_id,
            Out {
                game,
                holder: session.to_string(),
                former,
                hashes,
            },
        );
    }

    /// `session`'s claim to game `id` (nothing changes: see [`HeldGames::take`]).
    pub fn claim(&self, id: u64, session: &str) -> Taken {
        match self.games.get(&id) {
            None => Taken::NotOut,
            Some(out) if out.holder == session => Taken::Yours(out.game.clone()),
            Some(out) if out.former.iter().any(|f| f == session) => Taken::Former,
            Some(out) => Taken::Other(out.holder.clone()),
        }
    }

    /// Takes game `id` out if `session` holds it (its result is in, or its worker was
    /// quarantined): true if it did.
    pub fn take(&mut self, id: u64, session: &str) -> bool {
        if self.games.get(&id).is_none_or(|o| o.holder != session) {
            return false;
        }
        self.games.remove(&id);
        self.add(session, -1);
        true
    }

    /// Games `session` holds now.
    pub fn held_by(&self, session: &str) -> usize {
        self.count.get(session).copied().unwrap_or(0)
    }

    /// Whether `session` holds a game that needs archive `hash`.
    pub fn needs_archive(&self, session: &str, hash: &str) -> bool {
        self.count.contains_key(session)
            && self
                .games
                .values()
                .any(|o| o.holder == session && o.hashes.iter().any(|h| h == hash))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: u64) -> LeagueGame {
        LeagueGame {
            game_id: id,
            pair_id: 0,
            seed: 0,
            bots: vec!["a".into(), "b".into()],
            sprt: None,
        }
    }

    #[test]
    fn only_the_holder_takes_its_game_and_a_former_holder_is_told_apart() {
        let mut h = HeldGames::default();
        h.lease(game(1), "a#1", vec!["ha".into()]);
        h.lease(game(2), "a#1", vec!["hb".into()]);
        assert_eq!(h.held_by("a#1"), 2);
        assert!(h.needs_archive("a#1", "hb") && !h.needs_archive("b#2", "hb"));
        assert_eq!(h.claim(1, "b#2"), Taken::Other("a#1".into()));
        assert!(!h.take(1, "b#2"));
        // Game 1's lease ran out and it went to b#2.
        h.lease(game(1), "b#2", vec!["ha".into()]);
        assert_eq!(h.held_by("a#1"), 1);
        assert!(!h.needs_archive("a#1", "ha") && h.needs_archive("b#2", "ha"));
        assert_eq!(h.claim(1, "a#1"), Taken::Former);
        assert_eq!(h.claim(1, "c#3"), Taken::Other("b#2".into()));
        assert_eq!(h.claim(1, "b#2"), Taken::Yours(game(1)));
        assert!(h.take(1, "b#2") && !h.take(1, "b#2"));
        assert_eq!(h.claim(1, "b#2"), Taken::NotOut);
        assert_eq!(h.held_by("b#2"), 0);
        assert!(!h.take(2, "b#2") && h.take(2, "a#1"));
        assert_eq!(h.held_by("a#1"), 0);
        assert_eq!(name_of("lab-1#12"), "lab-1");
    }
}
