//! The turn loop of one game: whose turn it is, the input written, the answer parsed and
//! played, and every way a bot can fail a turn turned into a forfeit. Asking a seat on its clock
//! is [`Turns::ask`] (`ask.rs`), which is also how an external referee's turns are asked
//! (`external/`).

use super::clock::Excuse;
use super::seat::Seat;
use super::verdict::{TurnName, Verdict, SHOWN};
use super::{Forfeit, Reason, RefereeConfig, SeatStats, TurnRecord, TURN_STDERR_BYTES};
use crate::game::{Game, Outcome};
use crate::protocol::{parse_answer, Answer};
use crate::rng::Rng;
use std::time::Duration;

/// What [`Turns::ask`] read from a seat in time.
pub(super) struct Answered {
    pub(super) lines: Vec<Vec<u8>>,
    pub(super) wall: Duration,
    pub(super) cpu: Duration,
    /// Waiting for a CPU the fair clock did not charge.
    pub(super) excused: Duration,
    /// Steal (time the hypervisor took from the bot's CPUs) the fair clock did not charge.
    pub(super) stolen: Duration,
    pub(super) late: bool,
    pub(super) extra_lines: usize,
    pub(super) which: TurnName,
}

pub(super) enum LoopEnd {
    Outcome(Outcome, Reason),
    /// The seat and what it did.
    Forfeit(usize, Verdict),
}

/// The state of the turn loop that is not the game's.
pub(super) struct Turns {
    pub(super) rng: Rng,
    pub(super) turn: u32,
    /// Each bot's CPU clock when its last answer came (after its freeze, for an eager one).
    pub(super) cpu_seen: Vec<Option<Duration>>,
    /// Bots seen using CPU while idle: frozen as soon as they answer, not
    /// [`FREEZE_AFTER`](super::FREEZE_AFTER) later.
    pub(super) eager: Vec<bool>,
    pub(super) first: Vec<bool>,
    /// Seats taken out of a game of three or more after a forfeit, in order.
    pub(super) forfeits: Vec<Forfeit>,
    /// Seats whose process is gone (eliminated): never written to, frozen or waited on.
    pub(super) out: Vec<bool>,
    pub(super) stats: Vec<SeatStats>,
    pub(super) moves: Vec<String>,
    pub(super) log: Vec<TurnRecord>,
    pub(super) input: String,
    /// The fair clock's readings of the turn in play.
    pub(super) excuse: Excuse,
    /// Bytes each seat had written to stderr when its last turn was recorded.
    pub(super) err_mark: Vec<u64>,
    /// The game's own number for the turn in play, where it counts turns otherwise than one
    /// answer each (an SDK game's engine, whose players answer a turn together): what messages
    /// name as the game turn. `None`: the answers so far, plus one.
    pub(super) game_turn: Option<u32>,
    /// Forfeits of the same `turn` happened together (an SDK game's turn): they rank together,
    /// by the game's ranks, instead of the later one above.
    pub(super) simultaneous: bool,
}

/// What an answered turn adds to the record beside its times ([`Turns::record`]).
pub(super) struct Said {
    /// The input sent (empty where inputs are not recorded).
    pub(super) input: String,
    /// The answer as read.
    pub(super) answer: String,
    pub(super) comment: String,
    /// The move as played.
    pub(super) played: String,
}

impl Turns {
    /// Records `seat`'s answered turn where turns are recorded (`cfg.record_turns`): the one
    /// place a [`TurnRecord`] is made, for built-in games, external referees and SDK games
    /// alike, with the stderr the seat wrote since its last record. `said` is called only then.
    pub(super) fn record<S: Seat>(
        &mut self,
        procs: &mut [S],
        seat: usize,
        cfg: &RefereeConfig,
        answered: &Answered,
        said: impl FnOnce() -> Said,
    ) {
        if !cfg.record_turns {
            return;
        }
        let stderr = procs[seat].stderr_since(self.err_mark[seat], TURN_STDERR_BYTES);
        self.err_mark[seat] = procs[seat].stderr_bytes();
        let Said {
            input,
            answer,
            comment,
            played,
        } = said();
        self.log.push(TurnRecord {
            turn: answered.which.game,
            seat,
            input,
            answer,
            comment,
            played,
            time_us: answered.wall.as_micros() as u64,
            cpu_us: answered.cpu.as_micros() as u64,
            waited_us: answered.excused.as_micros() as u64,
            stolen_us: answered.stolen.as_micros() as u64,
            late: answered.late,
            extra_lines: answered.extra_lines,
            stderr,
        });
    }

    pub(super) fn new(seats: usize, seed: u64, turn: u32) -> Turns {
        Turns {
            rng: Rng::new(Rng::derive(seed, 0x7261_6e64)),
            turn,
            cpu_seen: vec![None; seats],
            eager: vec![false; seats],
            first: vec![true; seats],
            forfeits: Vec::new(),
            out: vec![false; seats],
            stats: vec![SeatStats::default(); seats],
            moves: Vec::new(),
            log: Vec::new(),
            input: String::with_capacity(1024),
            excuse: Excuse::default(),
            err_mark: vec![0; seats],
            game_turn: None,
            simultaneous: false,
        }
    }

    pub(super) fn run<S: Seat>(
        &mut self,
        game: &mut dyn Game,
        procs: &mut [S],
        cfg: &RefereeConfig,
    ) -> LoopEnd {
        loop {
            if let Some(outcome) = game.outcome() {
                let reason = game.draw_rule().map_or(Reason::Win, Reason::Draw);
                return LoopEnd::Outcome(outcome, reason);
            }
            if self.turn >= cfg.max_turns {
                return LoopEnd::Outcome(game.outcome_at_turn_limit(), Reason::TurnLimit);
            }
            match self.one_turn(game, procs, cfg) {
                Ok(()) => {}
                // In a game of three or more the rules may play on without the seat.
                Err(LoopEnd::Forfeit(seat, verdict)) if game.eliminate(seat) => {
                    procs[seat].shutdown(cfg.kill_grace);
                    self.out[seat] = true;
                    self.forfeits
                        .push(Forfeit::of(seat, &verdict, self.turn + 1));
                }
                Err(end) => return end,
            }
        }
    }

    /// Whether `seat` is frozen the moment its answer is read.
    pub(super) fn freezes_at_answer(&self, seat: usize, cfg: &RefereeConfig) -> bool {
        cfg.freeze_idle && (self.eager[seat] || cfg.freeze_after.is_zero())
    }

    fn one_turn<S: Seat>(
        &mut self,
        game: &mut dyn Game,
        procs: &mut [S],
        cfg: &RefereeConfig,
    ) -> Result<(), LoopEnd> {
        let seat = game.to_move();
        self.input.clear();
        game.write_turn_input(self.first[seat], &mut self.input);
        let input = std::mem::take(&mut self.input);
        let asked = self.ask(procs, seat, input.as_bytes(), 1, cfg);
        self.input = input;
        let mut answered = asked?;
        let line = answered.lines.pop().unwrap_or_default();
        let which = answered.which;
        let forfeit = |verdict| LoopEnd::Forfeit(seat, verdict);

        let moves = game.legal_moves();
        let (index, comment) = match parse_answer(&line) {
            Err(crate::protocol::Malformed::TooLong(bytes)) => {
                let line = line[..line.len().min(SHOWN + 1)].to_vec();
                return Err(forfeit(Verdict::LongAnswer { which, bytes, line }));
            }
            Err(why) => return Err(forfeit(Verdict::Malformed { which, why })),
            Ok(Answer::Random { comment }) => (self.rng.below(moves.len()), comment),
            Ok(Answer::Move { text, comment }) => match game.index_of_move(text) {
                Some(i) => (i, comment),
                None if text == "resign" => return Err(forfeit(Verdict::Resigned { which })),
                None => {
                    return Err(forfeit(Verdict::NotOffered {
                        which,
                        answer: text.to_string(),
                        offered: moves.len(),
                        hint: crate::protocol::debug_hint(&line),
                    }))
                }
            },
        };
        let played = moves[index].clone();
        let input = match cfg.record_turns && cfg.record_inputs {
            true => self.input.clone(),
            false => String::new(),
        };
        self.record(procs, seat, cfg, &answered, || Said {
            input,
            answer: String::from_utf8_lossy(&line).into_owned(),
            comment: comment.to_string(),
            played: played.clone(),
        });
        game.play(index);
        self.turn += 1;
        self.moves.push(played);
        Ok(())
    }
}
