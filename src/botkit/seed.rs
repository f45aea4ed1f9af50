//! Where a bundled bot's random choices come from: its first argument, else the game's seed that
//! arbiter passes in `ARBITER_SEED` (mixed with the bot's seat and name, since the two games of a
//! pair share a seed with the seats swapped), else the clock. With the game's seed, games are
//! reproducible with arbiter's `--seed`, yet two bots of one program in one game do not draw the
//! same numbers, and the rounds of a tournament do not replay one game.

use crate::rng::Rng;

/// The source of a bot's random numbers, found once at start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seed {
    /// The first argument, used as given.
    Argument(u64),
    /// The game's seed (`ARBITER_SEED`), mixed with the seat once it is known.
    Game(u64),
    /// Neither was given: the clock and the process id.
    Clock(u64),
}

impl Seed {
    /// The first argument if it is a number, else `ARBITER_SEED`, else the clock.
    pub fn find() -> Seed {
        Self::from_parts(std::env::args().nth(1), std::env::var("ARBITER_SEED").ok())
    }

    fn from_parts(argument: Option<String>, game: Option<String>) -> Seed {
        let number = |s: Option<String>| s.and_then(|s| s.trim().parse::<u64>().ok());
        if let Some(n) = number(argument) {
            return Seed::Argument(n);
        }
        if let Some(n) = number(game) {
            return Seed::Game(n);
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Seed::Clock(now.as_nanos() as u64 ^ u64::from(std::process::id()))
    }

    /// The number to seed with for the bot `salt` (a constant of each bot program) at `seat`.
    pub fn value(&self, salt: u64, seat: usize) -> u64 {
        match *self {
            Seed::Argument(n) | Seed::Clock(n) => n,
            Seed::Game(n) => Rng::derive(n, salt.wrapping_add(seat as u64)),
        }
    }

    /// A generator for the bot `salt` at `seat`.
    pub fn rng(&self, salt: u64, seat: usize) -> Rng {
        Rng::new(self.value(salt, seat))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_argument_comes_first_then_the_games_seed_mixed_with_the_seat() {
        let s = |a: Option<&str>, g: Option<&str>| {
            Seed::from_parts(a.map(str::to_string), g.map(str::to_string))
        };
        assert_eq!(s(Some("5"), Some("9")), Seed::Argument(5));
        assert_eq!(s(Some("x"), Some("9")), Seed::Game(9));
        assert_eq!(s(None, Some(" 9\n")), Seed::Game(9));
        assert!(matches!(s(None, Some("nine")), Seed::Clock(_)));
        let game = Seed::Game(9);
        assert_eq!(game.value(1, 0), Seed::Game(9).value(1, 0));
        assert_ne!(game.value(1, 0), game.value(1, 1));
        assert_ne!(game.value(1, 0), game.value(2, 0));
        assert_eq!(Seed::Argument(5).value(1, 1), 5);
    }
}
