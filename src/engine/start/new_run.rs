//! New runs from requests: a tournament's, an SPRT's and a grading's settings made from the
//! command line's flags (as plain data) and checked, with the run's opening book.

use super::{fresh_seed, StartError};
use crate::engine::settings::{self, OpeningsSettings};
use crate::engine::GameSettings;
use crate::tournament::openings::Order;
use crate::tournament::{Format, Shard};

impl OpeningsSettings {
    /// The opening book `spec` of a new run of `game` (with the book's fingerprint); without a
    /// book the game (an external referee's build) is not needed.
    pub fn of_run(
        spec: Option<String>,
        order: Order,
        game: &GameSettings,
    ) -> Result<OpeningsSettings, StartError> {
        if spec.is_none() {
            return Ok(OpeningsSettings {
                openings_order: order,
                ..Default::default()
            });
        }
        Ok(OpeningsSettings::new(spec, order, &game.choice()?)?)
    }
}

/// What a new tournament is asked to be (the command line's flags, as plain data).
pub struct TournamentRequest {
    pub bots: Vec<String>,
    pub format: Format,
    pub games: u32,
    pub tables: Option<usize>,
    pub opening_plies: u32,
    pub openings: Option<String>,
    pub openings_order: Order,
    /// `None`: a fresh seed.
    pub seed: Option<u64>,
    pub replays: bool,
    pub shard: Option<Shard>,
    pub game: GameSettings,
}

impl settings::TournamentSettings {
    /// The settings of a new run (checked; a fresh seed unless one is given), with the bots
    /// named from the current folder.
    pub fn fresh(r: TournamentRequest) -> Result<Self, StartError> {
        r.game.check_run(r.opening_plies, r.openings.as_deref())?;
        let choice = r.game.choice()?;
        let seats = choice.seats();
        if r.bots.len() < seats {
            return Err(StartError::TooFewBots {
                game: choice.describe(),
                seats,
                got: r.bots.len(),
            });
        }
        check_games(r.games, r.tables, seats, |seats, got| StartError::Games {
            seats,
            got,
        })?;
        if let (Some(shard), None) = (r.shard, r.seed) {
            return Err(StartError::ShardSeed { shard });
        }
        Ok(Self {
            workdir: std::env::current_dir()?,
            openings: OpeningsSettings::of_run(r.openings, r.openings_order, &r.game)?,
            bots: r.bots,
            format: r.format,
            games: r.games,
            tables: r.tables,
            stages: Vec::new(),
            first_bots: None,
            opening_plies: r.opening_plies,
            seed: r.seed.unwrap_or_else(fresh_seed),
            replays: r.replays,
            shard: r.shard,
            game: r.game,
        })
    }
}

/// What a new SPRT is asked to be (the command line's flags, as plain data).
pub struct SprtRequest {
    pub new: String,
    pub old: String,
    pub max_pairs: u64,
    pub opening_plies: u32,
    pub openings: Option<String>,
    pub openings_order: Order,
    /// `None`: a fresh seed.
    pub seed: Option<u64>,
    pub sprt: settings::SprtTestSettings,
    pub game: GameSettings,
}

impl settings::SprtSettings {
    /// The settings of a new SPRT (checked; a fresh seed unless one is given), with the bots
    /// named from the current folder.
    pub fn fresh(r: SprtRequest) -> Result<Self, StartError> {
        if r.max_pairs == 0 {
            return Err(StartError::MaxPairs);
        }
        r.game.check_run(r.opening_plies, r.openings.as_deref())?;
        Ok(Self {
            workdir: std::env::current_dir()?,
            openings: OpeningsSettings::of_run(r.openings, r.openings_order, &r.game)?,
            new: r.new,
            old: r.old,
            max_pairs: r.max_pairs,
            opening_plies: r.opening_plies,
            seed: r.seed.unwrap_or_else(fresh_seed),
            sprt: r.sprt,
            game: r.game,
        })
    }

    /// Refuses a game that is not played by two seats.
    pub fn check_seats(&self, choice: &crate::referee::GameChoice) -> Result<(), StartError> {
        if choice.seats() == 2 {
            return Ok(());
        }
        Err(StartError::SprtSeats {
            game: choice.describe(),
            seats: choice.seats(),
        })
    }

    /// The games of the test not in `done`, pair by pair.
    pub fn games_to_play(
        &self,
        done: &crate::results::games_csv::DoneSet,
    ) -> Result<Vec<crate::tournament::GameSpec>, StartError> {
        let games_per_pair =
            u32::try_from(self.max_pairs.saturating_mul(2)).map_err(StartError::TooManyPairs)?;
        Ok(
            crate::tournament::schedule(2, Format::RoundRobin, games_per_pair, self.seed)
                .into_iter()
                .filter(|g| !done.contains(g.game_id))
                .collect(),
        )
    }
}

impl settings::GradeSettings {
    /// Checks a new grading's settings (the game with `openings`, if given, and the games per
    /// pairing); returns the game's seat count.
    pub fn check(&self, openings: Option<&str>) -> Result<usize, StartError> {
        self.game.check_run(self.opening_plies, openings)?;
        let seats = self.game.choice()?.seats();
        check_games(self.games, self.tables, seats, |seats, got| {
            StartError::GradeGames { seats, got }
        })?;
        Ok(seats)
    }
}

/// Every table of `seats` bots plays rounds of `seats` games (each bot in every seat once):
/// `games` per table must be a positive multiple of `seats` (else the error `wrong(seats,
/// games)` says so), and sampled `tables` at least one.
fn check_games(
    games: u32,
    tables: Option<usize>,
    seats: usize,
    wrong: impl FnOnce(usize, u32) -> StartError,
) -> Result<(), StartError> {
    if games == 0 || !games.is_multiple_of(seats as u32) {
        return Err(wrong(seats, games));
    }
    if tables == Some(0) {
        return Err(StartError::Tables);
    }
    Ok(())
}
