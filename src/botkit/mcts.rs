//! Monte Carlo tree search (UCT) over any game of the library, for any number of seats: the
//! generic baseline bot's brain. It knows nothing of a game beyond the [`Game`] trait: moves are
//! tried by playing them on copies, positions are judged by random playouts to the end (or to the
//! turn limit, where the game's own turn-limit result counts), cut short once the game's own
//! scores tell the seats apart (see [`Config::playout_plies`]).
//!
//! Each node holds the statistics of the seat that played the move into it, so at every level the
//! seat to move picks what is best for itself; an outcome is worth 1 to the first place, 0 to the
//! last, linear in between, tied seats sharing the average of their places.

use crate::game::{Game, Outcome};
use crate::rng::Rng;
use std::time::Instant;

/// How the search trades trying new moves against deepening good ones.
#[derive(Clone, Debug)]
pub struct Config {
    /// The UCB1 exploration constant (rewards are in 0..=1).
    pub exploration: f64,
    /// Nodes kept at most; past it, leaves are no longer expanded (playouts still count).
    pub max_nodes: usize,
    /// Playouts between two looks at the clock.
    pub clock_every: u32,
    /// Random plies after which a playout stops and ranks the seats by the game's scores
    /// (higher is better; equal scores tie), if the scores tell them apart; `None` plays on to
    /// the end or the turn limit. A short playout judged by the score is less noisy than a long
    /// random one: at Impasse, 16 plies win 20 of 20 games against greedy where full playouts
    /// win 14 (and full playouts lose 8 to 12 on a slow wall clock).
    pub playout_plies: Option<u32>,
    /// Past `playout_plies`, play on while every seat has the same score (so a game whose scores
    /// only move at the end gets full playouts); false stops there, ties and all.
    pub until_scores_differ: bool,
    /// The score of a move not yet tried, against the UCB1 scores of those tried; `None` tries
    /// every move once before any twice. Where there are more moves than playouts (Accasta's
    /// hundreds of turns, some 50 playouts in 40 ms) trying each once is all the search would
    /// do; 0.8 lets a move that did well be tried again first (Accasta against random, 40 ms a
    /// move: 19 of 20 games won, against 16 of 20 without).
    pub first_play_urgency: Option<f64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            exploration: 0.7,
            max_nodes: 1 << 21,
            clock_every: 4,
            playout_plies: Some(16),
            until_scores_differ: true,
            first_play_urgency: Some(0.8),
        }
    }
}

/// One node: the position after `mv` was played from its parent.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// Index of the first child in the arena; children are contiguous.
    first_child: u32,
    children: u16,
    expanded: bool,
    /// The move into this node: an index into the parent's legal list.
    mv: u16,
    /// The seat that played `mv`: the statistics are from its point of view.
    mover: u8,
    visits: u32,
    reward: f64,
}

impl Node {
    fn leaf(mv: u16, mover: u8) -> Self {
        Node {
            first_child: 0,
            children: 0,
            expanded: false,
            mv,
            mover,
            visits: 0,
            reward: 0.0,
        }
    }
}

/// When a search stops.
#[derive(Clone, Copy, Debug)]
pub enum Stop {
    /// At this instant (checked every [`Config::clock_every`] playouts).
    At(Instant),
    /// After this many playouts (reproducible, for tests and analysis).
    Playouts(u64),
}

/// Plies of a playout between two looks at the clock.
const PLIES_PER_CLOCK: u32 = 8;

impl Stop {
    /// Whether a deadline has passed (never for a playout count).
    fn passed(&self) -> bool {
        matches!(*self, Stop::At(deadline) if Instant::now() >= deadline)
    }

    fn reached(&self, playouts: u64, clock_every: u32) -> bool {
        match *self {
            Stop::At(deadline) => {
                playouts.is_multiple_of(u64::from(clock_every.max(1))) && Instant::now() >= deadline
            }
            Stop::Playouts(n) => playouts >= n,
        }
    }
}

/// What one search found.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The chosen move: an index into the root position's legal list.
    pub index: usize,
    /// Playouts run.
    pub playouts: u64,
    /// The chosen move's playouts and mean reward for the seat to move.
    pub visits: u32,
    pub value: f64,
}

/// A search tree over one root position, with its random generator.
pub struct Search {
    config: Config,
    nodes: Vec<Node>,
    rng: Rng,
    /// Per-seat values of the last simulated outcome.
    values: Vec<f64>,
    path: Vec<u32>,
}

impl Search {
    pub fn new(config: Config, seed: u64) -> Self {
        Search {
            config,
            nodes: Vec::new(),
            rng: Rng::new(seed),
            values: Vec::new(),
            path: Vec::new(),
        }
    }

    /// Searches `root` (with `turns_left` turns before the turn limit ends the game) until `stop`,
    /// and picks the most visited move (the better mean on equal visits). A lone legal move is
    /// played without searching; with no time at all the search falls back to the first move.
    pub fn choose(&mut self, root: &dyn Game, turns_left: u32, stop: Stop) -> Choice {
        let n = root.move_count();
        assert!(n > 0, "search of a finished game");
        self.nodes.clear();
        self.nodes.push(Node::leaf(0, 0));
        let mut playouts = 0u64;
        if n > 1 {
            loop {
                if stop.reached(playouts, self.config.clock_every) {
                    break;
                }
                if !self.iterate(root, turns_left, stop) {
                    break;
                }
                playouts += 1;
            }
        }
        let root_node = self.nodes[0];
        let mut best: Option<(u32, f64, usize)> = None;
        for c in self.children(&root_node) {
            let node = self.nodes[c];
            let mean = node.reward / f64::from(node.visits.max(1));
            if best.is_none_or(|(v, m, _)| (node.visits, mean) > (v, m)) {
                best = Some((node.visits, mean, node.mv as usize));
            }
        }
        let (visits, value, index) = best.unwrap_or((0, 0.0, 0));
        Choice {
            index,
            playouts,
            visits,
            value,
        }
    }

    fn children(&self, node: &Node) -> std::ops::Range<usize> {
        let first = node.first_child as usize;
        first..first + node.children as usize
    }

    /// One selection, expansion, playout and backpropagation; false (and nothing learned) when
    /// the playout ran into the deadline.
    fn iterate(&mut self, root: &dyn Game, turns_left: u32, stop: Stop) -> bool {
        let mut game = root.search_copy();
        let mut left = turns_left;
        let mut at = 0u32;
        self.path.clear();
        self.path.push(0);
        loop {
            if game.is_over() || left == 0 {
                break;
            }
            if !self.nodes[at as usize].expanded && !self.expand(at, game.as_ref()) {
                break;
            }
            let child = self.select(at);
            game.play(self.nodes[child as usize].mv as usize);
            left -= 1;
            at = child;
            self.path.push(at);
            if self.nodes[at as usize].visits == 0 {
                break;
            }
        }
        if !self.playout(game.as_mut(), left, stop) {
            return false;
        }
        for &i in &self.path {
            let node = &mut self.nodes[i as usize];
            node.visits += 1;
            node.reward += self.values[node.mover as usize];
        }
        true
    }

    /// Gives node `at` one child per legal move, in random order; false when the node budget is
    /// spent.
    fn expand(&mut self, at: u32, game: &dyn Game) -> bool {
        let n = game.move_count();
        if self.nodes.len() + n > self.config.max_nodes || n > usize::from(u16::MAX) {
            return false;
        }
        let first = self.nodes.len();
        let mover = game.to_move() as u8;
        for i in 0..n {
            self.nodes.push(Node::leaf(i as u16, mover));
        }
        // Shuffle so that unvisited children are tried in random order.
        for i in (1..n).rev() {
            let j = self.rng.below(i + 1);
            self.nodes.swap(first + i, first + j);
        }
        let node = &mut self.nodes[at as usize];
        node.first_child = first as u32;
        node.children = n as u16;
        node.expanded = true;
        true
    }

    /// The child of `at` to follow: the best by UCB1, an unvisited one scoring the first-play
    /// urgency (or taken at once without one); equal scores go to the first in the shuffled
    /// order.
    fn select(&self, at: u32) -> u32 {
        let node = self.nodes[at as usize];
        let log_n = f64::from(node.visits.max(1)).ln();
        let mut best = (f64::NEG_INFINITY, node.first_child);
        for c in self.children(&node) {
            let child = &self.nodes[c];
            let score = if child.visits == 0 {
                match self.config.first_play_urgency {
                    None => return c as u32,
                    Some(v) => v,
                }
            } else {
                let n = f64::from(child.visits);
                child.reward / n + self.config.exploration * (log_n / n).sqrt()
            };
            if score > best.0 {
                best = (score, c as u32);
            }
        }
        best.1
    }

    /// Plays random moves until the game ends or `left` turns are spent, and stores every seat's
    /// value of the result in `self.values`. False if the deadline of `stop` passed first: in a
    /// game with slow rules one playout may cost more than a whole turn's budget, so the clock is
    /// also read every [`PLIES_PER_CLOCK`] plies.
    fn playout(&mut self, game: &mut dyn Game, mut left: u32, stop: Stop) -> bool {
        let mut plies = self.config.playout_plies.unwrap_or(u32::MAX);
        let mut played = 0u32;
        let outcome = loop {
            if game.is_over() {
                break game.outcome().expect("a finished game has an outcome");
            }
            if left == 0 {
                break game.outcome_at_turn_limit();
            }
            if plies == 0 {
                let scores: Vec<i64> = game.scores().into_iter().map(i64::from).collect();
                if !self.config.until_scores_differ || scores.iter().any(|&s| s != scores[0]) {
                    break Outcome::from_values(&scores);
                }
            } else {
                plies -= 1;
            }
            played += 1;
            if played.is_multiple_of(PLIES_PER_CLOCK) && stop.passed() {
                return false;
            }
            let n = game.move_count();
            game.play(self.rng.below(n));
            left -= 1;
        };
        rank_values(&outcome, &mut self.values);
        true
    }
}

/// Each seat's value of `outcome`: places 0..k-1 are worth 1 down to 0 in equal steps (1 for a
/// lone seat), and a group of tied seats shares the mean of the places it covers.
pub fn rank_values(outcome: &Outcome, out: &mut Vec<f64>) {
    let k = outcome.ranks.len();
    out.clear();
    let step = if k > 1 { 1.0 / (k - 1) as f64 } else { 0.0 };
    for &r in &outcome.ranks {
        // The group tied at rank r holds the places ahead .. ahead + tied - 1 (counting the
        // seats ahead, not trusting r itself, reads dense and competition ranks alike).
        let ahead = outcome.ranks.iter().filter(|&&o| o < r).count();
        let tied = outcome.ranks.iter().filter(|&&o| o == r).count();
        let mean_place = ahead as f64 + (tied - 1) as f64 / 2.0;
        out.push(1.0 - mean_place * step);
    }
}
