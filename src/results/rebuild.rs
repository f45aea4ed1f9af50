//! Rebuilds a recorded game by replaying its moves through the rules: every position (as a
//! [`BoardView`]) and the exact input each bot was sent, which records do not store.

use crate::game::{self, BoardView, Game};
use crate::referee::GameChoice;
use crate::results::records::GameRecord;

/// Why a record cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum RebuildError {
    #[error(transparent)]
    Game(#[from] game::GameError),
    #[error("game {game_id}: ply {ply} \"{text}\" is not a legal move there (a record of another arbiter version or of other rules?)")]
    Illegal {
        game_id: u64,
        ply: usize,
        text: String,
    },
    #[error("game {game_id}: the game is over before ply {ply}")]
    Over { game_id: u64, ply: usize },
}

/// What happened in one step of a game.
#[derive(Clone, Debug, PartialEq)]
pub enum StepKind {
    /// A ply the referee played before the bots took over.
    Opening,
    /// A bot's move: its index in [`GameRecord::moves`].
    Move(usize),
    /// A forfeit: its index in [`GameRecord::forfeits`] (an elimination, or the game's end).
    Forfeit(usize),
}

/// One step and the position after it.
#[derive(Clone, Debug)]
pub struct ReplayStep {
    pub kind: StepKind,
    /// The game's turn number (1-based, opening plies included).
    pub turn: u32,
    pub seat: usize,
    /// The move played (empty for a forfeit).
    pub text: String,
    /// The input the bot was sent for this turn (none for opening plies).
    pub input: Option<String>,
    pub view: BoardView,
}

/// A whole game rebuilt.
pub struct Rebuilt {
    pub start: BoardView,
    pub steps: Vec<ReplayStep>,
    /// The final position in the game's text form.
    pub final_position: String,
    /// The final game state, for checks against the rules.
    pub last: Box<dyn Game>,
}

/// The game choice a record was played with.
pub fn choice_of(rec: &GameRecord) -> Result<GameChoice, game::GameError> {
    GameChoice::new(
        &rec.game,
        Some(&rec.variant),
        Some(rec.seats),
        rec.position.as_deref(),
    )
}

/// Replays `rec` from its start position through the rules.
pub fn rebuild(rec: &GameRecord) -> Result<Rebuilt, RebuildError> {
    let mut steps = Vec::with_capacity(rec.opening.len() + rec.moves.len() + 1);
    let (start, last) = rebuild_each(rec, |step, _| steps.push(step.clone()))?;
    Ok(Rebuilt {
        start,
        steps,
        final_position: last.position_text(),
        last,
    })
}

/// Where [`rebuild_each`] hands its steps: the view before each, kept only until the next.
/// The steps' storage goes round (a step's view, move text and input are written over the
/// storage of the step before the last), so a step allocates nothing once a few are made.
struct Sink<F> {
    before: BoardView,
    spare: Spare,
    each: F,
}

/// Storage of a step already handed on, for the next step to write over.
#[derive(Default)]
struct Spare {
    view: BoardView,
    text: String,
    input: String,
}

impl<F: FnMut(&ReplayStep, &BoardView)> Sink<F> {
    /// `g`'s view, written over storage no longer needed.
    fn view(&mut self, g: &dyn Game) -> BoardView {
        let mut v = std::mem::take(&mut self.spare.view);
        g.view_into(&mut v);
        v
    }

    /// `text` in storage no longer needed.
    fn text(&mut self, text: &str) -> String {
        let mut t = std::mem::take(&mut self.spare.text);
        t.clear();
        t.push_str(text);
        t
    }

    /// The input `g` sends its seat to move (this seat's first turn or not), in storage no
    /// longer needed.
    fn input(&mut self, g: &dyn Game, first: bool) -> String {
        let mut s = std::mem::take(&mut self.spare.input);
        s.clear();
        g.write_turn_input(first, &mut s);
        s
    }

    fn push(&mut self, step: ReplayStep) {
        (self.each)(&step, &self.before);
        self.spare.view = std::mem::replace(&mut self.before, step.view);
        self.spare.text = step.text;
        if let Some(input) = step.input {
            self.spare.input = input;
        }
    }
}

/// Replays `rec` as [`rebuild`] does, handing each step to `each` with the position before it
/// as soon as it is made, so that only two positions are held at a time (a replay page is
/// written from the differences). Returns the start position and the final game state.
pub fn rebuild_each(
    rec: &GameRecord,
    each: impl FnMut(&ReplayStep, &BoardView),
) -> Result<(BoardView, Box<dyn Game>), RebuildError> {
    let choice = choice_of(rec)?;
    let mut g = choice.start(rec.seed)?;
    let start = g.view();
    let mut sink = Sink {
        before: start.clone(),
        spare: Spare::default(),
        each,
    };
    let mut first = vec![true; rec.seats];
    // Eliminations (forfeits that did not end the game) happen before the ply of their turn.
    let ending = rec.offender.map(|_| rec.forfeits.len().saturating_sub(1));
    let mut pending: Vec<usize> = (0..rec.forfeits.len())
        .filter(|&i| Some(i) != ending)
        .collect();
    let mut ply = 0usize;
    let forfeit_now = |g: &mut Box<dyn Game>,
                       first: &mut [bool],
                       sink: &mut Sink<_>,
                       turn: u32,
                       which: usize,
                       eliminate: bool| {
        let seat = rec.forfeits[which].seat;
        let input = (g.outcome().is_none() && g.to_move() == seat).then(|| {
            let s = sink.input(g.as_ref(), first[seat]);
            first[seat] = false;
            s
        });
        if eliminate {
            g.eliminate(seat);
        }
        let view = sink.view(g.as_ref());
        sink.push(ReplayStep {
            kind: StepKind::Forfeit(which),
            turn,
            seat,
            text: String::new(),
            input,
            view,
        });
    };
    let plies = rec.opening.iter().chain(&rec.moves);
    for text in plies {
        let turn = ply as u32 + 1;
        while let Some(k) = pending.iter().position(|&i| rec.forfeits[i].turn == turn) {
            let which = pending.remove(k);
            forfeit_now(&mut g, &mut first, &mut sink, turn, which, true);
        }
        if g.outcome().is_some() {
            return Err(RebuildError::Over {
                game_id: rec.game_id,
                ply: ply + 1,
            });
        }
        let seat = g.to_move();
        let Some(index) = g.legal_moves().iter().position(|m| m == text) else {
            return Err(RebuildError::Illegal {
                game_id: rec.game_id,
                ply: ply + 1,
                text: text.clone(),
            });
        };
        let (kind, input) = if ply < rec.opening.len() {
            (StepKind::Opening, None)
        } else {
            let s = sink.input(g.as_ref(), first[seat]);
            first[seat] = false;
            (StepKind::Move(ply - rec.opening.len()), Some(s))
        };
        g.play(index);
        let view = sink.view(g.as_ref());
        let text = sink.text(text);
        sink.push(ReplayStep {
            kind,
            turn,
            seat,
            text,
            input,
            view,
        });
        ply += 1;
    }
    let turn = ply as u32 + 1;
    for which in pending {
        forfeit_now(&mut g, &mut first, &mut sink, turn, which, true);
    }
    if let Some(which) = ending {
        forfeit_now(&mut g, &mut first, &mut sink, turn, which, false);
    }
    Ok((start, g))
}
