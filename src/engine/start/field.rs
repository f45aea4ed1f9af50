//! The field of a run: which bots checked before the first game can play, and whether the run
//! may go on with them (a tournament's, an SPRT's, a grading's rules).

use super::StartError;
use crate::engine::BotCheck;

impl BotCheck {
    /// Marks every bot that can play but does not play `game` (see [`crate::bot::BotSpec::plays`])
    /// and returns those problems for the reporter.
    pub fn mark_wrong_game(&mut self, game: &str) -> Vec<crate::bot::SpecError> {
        crate::bot::spec::mark_wrong_game(&self.specs, &mut self.problems, game)
    }

    /// For each bot, whether it can play.
    pub fn active(&self) -> Vec<bool> {
        self.problems.iter().map(Option::is_none).collect()
    }

    /// The names of the bots that can play, in order (the standings' order).
    pub fn playing(&self) -> Vec<String> {
        self.with_problem(false)
            .map(|(b, _)| b.name.clone())
            .collect()
    }

    /// Each bot that cannot play, with why.
    pub fn left_out(&self) -> Vec<(&str, &str)> {
        self.with_problem(true)
            .map(|(b, p)| (b.name.as_str(), p.unwrap_or_default()))
            .collect()
    }

    fn with_problem(
        &self,
        broken: bool,
    ) -> impl Iterator<Item = (&crate::bot::BotSpec, Option<&str>)> {
        self.specs
            .iter()
            .zip(&self.problems)
            .filter(move |(_, p)| p.is_some() == broken)
            .map(|(b, p)| (b, p.as_deref()))
    }

    /// A tournament's field: refused when a bot cannot play (unless `skip_broken`) or fewer
    /// bots than `seats` can. Returns how many play.
    pub fn check_field(
        &self,
        skip_broken: bool,
        seats: usize,
        game: &str,
    ) -> Result<usize, StartError> {
        let broken: Vec<String> = self.left_out().iter().map(|(b, _)| b.to_string()).collect();
        if !broken.is_empty() && !skip_broken {
            return Err(StartError::Broken { names: broken });
        }
        let playing = self.specs.len() - broken.len();
        if playing < seats {
            return Err(StartError::FewerPlaying {
                playing,
                game: game.to_string(),
                seats,
            });
        }
        Ok(playing)
    }
}

impl BotCheck {
    /// Refuses a run where any bot cannot play (an SPRT's two), naming the first.
    pub fn check_all(&self) -> Result<(), StartError> {
        match self
            .specs
            .iter()
            .zip(&self.problems)
            .find(|(_, p)| p.is_some())
        {
            Some((bot, _)) => Err(StartError::SprtBot {
                origin: bot.origin.clone(),
            }),
            None => Ok(()),
        }
    }
}

impl BotCheck {
    /// A grading's field: the bots from `students` on are the baselines, which must all play
    /// (see also [`check_baseline_count`]). Returns the baselines' names.
    pub fn check_baselines(&self, students: usize) -> Result<Vec<String>, StartError> {
        let baselines = &self.specs[students..];
        if let Some((bot, why)) = baselines
            .iter()
            .zip(&self.problems[students..])
            .find_map(|(b, p)| p.as_ref().map(|p| (b, p)))
        {
            return Err(StartError::Baseline {
                name: bot.name.clone(),
                why: why.clone(),
            });
        }
        Ok(baselines.iter().map(|b| b.name.clone()).collect())
    }
}

/// A grading seats each student with baselines only: games of `seats` seats need `seats - 1`
/// baselines or more.
pub fn check_baseline_count(baselines: usize, seats: usize) -> Result<(), StartError> {
    if baselines + 1 < seats {
        return Err(StartError::FewBaselines { seats });
    }
    Ok(())
}
