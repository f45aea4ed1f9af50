//! Progress of a long run: an indicatif bar on a terminal, a plain line every few seconds when
//! stderr is a file or a pipe. One factory, so every command shows progress the same way.

use crate::protocol::{printable, printable_lines};
use crate::referee::{GameResult, Reason};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How often the plain progress line is printed.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// What the display counts of a finished game: its verdict and each seat's bot and rank. Sent to
/// the display's thread instead of the whole result, whose moves and turns (hundreds of
/// strings) it has no use for.
pub struct GameDone {
    pub reason: Reason,
    pub bots: Vec<String>,
    pub ranks: Vec<u8>,
    /// The reason of every forfeit of the game (players out on the way in games of three or
    /// more, or out together, count each): what the forfeits table counts.
    pub forfeits: Vec<Reason>,
}

impl GameDone {
    pub fn of(r: &GameResult) -> GameDone {
        GameDone {
            reason: r.reason,
            bots: r.bots.clone(),
            ranks: r.ranks.clone(),
            forfeits: r.forfeits.iter().map(|f| f.reason).collect(),
        }
    }
}

pub struct Progress {
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    started: Instant,
    last_line: Instant,
    /// Points and games of each bot, by name, for the leader.
    points: BTreeMap<String, (f64, u32)>,
    forfeits: BTreeMap<&'static str, u32>,
    /// Extra text after the counts (e.g. the live LLR of an SPRT).
    extra: String,
    /// The run ends before `total` (an SPRT decided): no time left to estimate.
    decided: bool,
    /// `total` is only the most the run may play (an SPRT's --max-pairs): the time left is
    /// shown as an upper bound.
    bounded: bool,
}

impl Progress {
    /// A progress display for `total` games between `bots`.
    pub fn new(total: u64, bots: &[String]) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} games {msg}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            bar,
            total,
            done: 0,
            started: Instant::now(),
            last_line: Instant::now(),
            points: bots.iter().map(|b| (b.clone(), (0.0, 0))).collect(),
            forfeits: BTreeMap::new(),
            extra: String::new(),
            decided: false,
            bounded: false,
        }
    }

    /// Counts one finished game.
    pub fn game_done(&mut self, r: &GameDone) {
        self.done += 1;
        // Counted as the forfeits table counts them: each forfeit, and each referee error.
        for reason in &r.forfeits {
            *self.forfeits.entry(reason.as_str()).or_default() += 1;
        }
        if r.reason == Reason::RefereeError {
            *self.forfeits.entry(r.reason.as_str()).or_default() += 1;
        }
        if r.reason != Reason::RefereeError {
            let others = (r.ranks.len().max(2) - 1) as f64;
            for (seat, name) in r.bots.iter().enumerate() {
                // The share of the other seats this one finished ahead of (half for a tie):
                // 1, 0.5 or 0 in a two-seat game.
                let mine = r.ranks[seat];
                let points = r
                    .ranks
                    .iter()
                    .enumerate()
                    .filter(|&(o, _)| o != seat)
                    .map(|(_, &theirs)| match mine.cmp(&theirs) {
                        std::cmp::Ordering::Less => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Greater => 0.0,
                    })
                    .sum::<f64>()
                    / others;
                let entry = self.points.entry(name.clone()).or_default();
                entry.0 += points;
                entry.1 += 1;
            }
        }
        self.refresh();
    }

    /// The run will end before its total (an SPRT decided; the games under way finish): the
    /// display shows no ETA from now on.
    pub fn decided(&mut self) {
        self.decided = true;
    }

    /// The total is the most the run may play, not what it will (an SPRT stops when it
    /// decides): the ETA reads "at most".
    pub fn bounded(&mut self) {
        self.bounded = true;
    }

    /// Sets text shown after the counts.
    pub fn set_extra(&mut self, extra: String) {
        self.extra = extra;
        self.refresh();
    }

    fn message(&self) -> String {
        let mut msg = String::new();
        let secs = self.started.elapsed().as_secs_f64();
        if self.done > 0 && secs > 0.0 {
            let rate = self.done as f64 / secs;
            msg.push_str(&format!("| {} games/s", one_decimal(rate)));
            if self.done < self.total && !self.decided {
                let left = (self.total - self.done) as f64 / rate;
                let at_most = if self.bounded { "at most " } else { "" };
                let left = clock(Duration::from_secs_f64(left));
                msg.push_str(&format!(", ETA {at_most}{left}"));
            }
            msg.push(' ');
        }
        // The best score share; several bots on the same share are all named.
        let share = |(p, g): &(f64, u32)| p / f64::from(*g);
        let best = self
            .points
            .values()
            .filter(|(_, g)| *g > 0)
            .map(share)
            .fold(f64::NEG_INFINITY, f64::max);
        let leaders: Vec<&str> = self
            .points
            .iter()
            .filter(|(_, pg)| pg.1 > 0 && (share(pg) - best).abs() < 1e-9)
            .map(|(n, _)| n.as_str())
            .collect();
        match leaders.len() {
            0 => {}
            1 => msg.push_str(&format!("| leader {} {:.0}%", leaders[0], 100.0 * best)),
            n if n <= 3 => msg.push_str(&format!(
                "| leaders {} {:.0}%",
                leaders.join(", "),
                100.0 * best
            )),
            n => msg.push_str(&format!(
                "| {n} bots share the lead at {:.0}%",
                100.0 * best
            )),
        }
        if !self.forfeits.is_empty() {
            let list: Vec<String> = self
                .forfeits
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            msg.push_str(&format!(" | forfeits: {}", list.join(", ")));
        }
        if !self.extra.is_empty() {
            msg.push_str(" | ");
            msg.push_str(&self.extra);
        }
        msg
    }

    fn refresh(&mut self) {
        let msg = self.message();
        match &self.bar {
            Some(bar) => {
                bar.set_position(self.done);
                bar.set_message(msg);
            }
            None => {
                if self.last_line.elapsed() >= PLAIN_EVERY {
                    self.last_line = Instant::now();
                    eprintln!("arbiter: {}/{} games {msg}", self.done, self.total);
                }
            }
        }
    }

    /// Ends the display with a last line of totals.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        let secs = self.started.elapsed().as_secs_f64();
        eprintln!(
            "arbiter: {} games in {} {}",
            self.done,
            clock(Duration::from_secs_f64(secs)),
            self.message()
        );
    }
}

/// The bot checks before a run, on stderr: a build starting and how long it took, a bot that
/// cannot play.
pub fn bot_check_lines(event: &crate::engine::Event<'_>) -> std::ops::ControlFlow<()> {
    use crate::engine::Event;
    match event {
        Event::BotBuilding { name, command, .. } => eprintln!(
            "arbiter: building {} ({})",
            printable(name),
            printable(command)
        ),
        Event::BotBuilt { name, took, ok, .. } => eprintln!(
            "arbiter: {} {} in {}",
            if *ok { "built" } else { "failed to build" },
            printable(name),
            clock(*took)
        ),
        Event::BotBroken { name, problem, .. } => eprintln!(
            "arbiter: bot '{}' cannot play: {}",
            printable(name),
            printable_lines(problem)
        ),
        _ => {}
    }
    std::ops::ControlFlow::Continue(())
}

/// An SDK game's build, on stderr as a bot's build is told ([`bot_check_lines`]).
pub fn sdk_build_line(note: &crate::referee::sdk::build::BuildNote<'_>) {
    use crate::referee::sdk::build::BuildNote;
    match note {
        BuildNote::Building { name, how } => {
            eprintln!("arbiter: building SDK game {} ({how})", printable(name))
        }
        BuildNote::Built { name, took, ok } => eprintln!(
            "arbiter: {} SDK game {} in {}",
            if *ok { "built" } else { "failed to build" },
            printable(name),
            clock(*took)
        ),
    }
}

/// A rate for people: one decimal, none past 100.
fn one_decimal(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// `42 s`, `3 min 05 s`, `2 h 07 min`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{}.{} s", s, d.subsec_millis() / 100),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last progress line counts forfeits as the run's forfeits table does: each player out,
    /// not each game's reason (a game of three in which one player timed out and the winner
    /// was then decided, or two players out together, counted one or none before).
    #[test]
    fn the_forfeit_counts_are_the_tables() {
        let bots = ["a".to_string(), "b".to_string(), "c".to_string()];
        let mut p = Progress::new(10, &bots);
        p.game_done(&GameDone {
            reason: Reason::Win,
            bots: bots.to_vec(),
            ranks: vec![0, 2, 1],
            forfeits: vec![Reason::Timeout],
        });
        p.game_done(&GameDone {
            reason: Reason::Draw(crate::game::DrawRule::Referee),
            bots: bots[..2].to_vec(),
            ranks: vec![0, 0],
            forfeits: vec![Reason::Crash, Reason::Timeout],
        });
        p.game_done(&GameDone {
            reason: Reason::Timeout,
            bots: bots[..2].to_vec(),
            ranks: vec![0, 1],
            forfeits: vec![Reason::Timeout],
        });
        assert!(
            p.message().contains("forfeits: crash 1, timeout 3"),
            "{}",
            p.message()
        );
    }

    #[test]
    fn the_eta_of_a_run_that_may_stop_early_is_an_upper_bound() {
        let bots = ["a".to_string(), "b".to_string()];
        let game = GameDone {
            reason: Reason::Win,
            bots: bots.to_vec(),
            ranks: vec![0, 1],
            forfeits: Vec::new(),
        };
        let mut whole = Progress::new(40_000, &bots);
        whole.game_done(&game);
        let msg = whole.message();
        assert!(msg.contains(", ETA ") && !msg.contains("at most"), "{msg}");
        let mut sprt = Progress::new(40_000, &bots);
        sprt.bounded();
        sprt.game_done(&game);
        assert!(
            sprt.message().contains(", ETA at most "),
            "{}",
            sprt.message()
        );
    }
}
