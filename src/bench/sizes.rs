//! How much each phase measures: the sample counts of a quick and a full run, and the fixed
//! delays and limit of the timing and strict-limit runs. Kept apart so the size of a run can be
//! read (and tuned) in one place.

/// Sample counts of one run.
pub(super) struct Sizes {
    pub(super) floor: usize,
    pub(super) setup_games: usize,
    pub(super) games: usize,
    pub(super) games_parallel: usize,
    /// Delayed turns wanted per delay: (delay ms, turns).
    pub(super) delays: [(u64, usize); 3],
    pub(super) near_games: usize,
    pub(super) late_games: usize,
}

impl Sizes {
    pub(super) fn of(quick: bool, cores: usize) -> Sizes {
        if quick {
            Sizes {
                floor: 3_000,
                setup_games: 10,
                games: 40,
                games_parallel: 40 * cores,
                delays: [(5, 60), (20, 30), (80, 10)],
                near_games: 2 * cores,
                late_games: 4 * cores,
            }
        } else {
            Sizes {
                floor: 20_000,
                setup_games: 30,
                games: 150,
                games_parallel: 150 * cores,
                delays: [(5, 240), (20, 120), (80, 40)],
                near_games: 5 * cores,
                late_games: 15 * cores,
            }
        }
    }
}

/// Delayed answers per game in the timing and limit runs (each bot's first turn comes on top).
pub(super) const DELAYED_TURNS_PER_GAME: usize = 20;
/// Turn limit of the strict runs, and the delays at 90% and 110% of it.
pub(super) const NEAR_LIMIT_MS: u64 = 50;
pub(super) const NEAR_DELAY_MS: u64 = 45;
pub(super) const LATE_DELAY_MS: u64 = 55;
