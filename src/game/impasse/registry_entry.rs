//! How the arena's Impasse meets the rest of arbiter: its [`Rules`] (the arena's input, byte for
//! byte, over the history [`TextGame`] keeps), its one-line position text, and its registry entry
//! (which also serves the soldier-king variant).

use super::*;

impl Rules for Impasse {
    type Move = Action;

    fn info(&self) -> &'static GameInfo {
        &INFO
    }

    fn variant(&self) -> &'static str {
        "arena"
    }

    fn seats(&self) -> usize {
        2
    }

    fn to_move(&self) -> usize {
        self.to_move
    }

    /// Sorted by text (stable); the same text may be listed more than once.
    fn legal_moves(&self, out: &mut Vec<Action>) {
        self.generate(out);
    }

    fn play(&mut self, a: Action) {
        self.apply(a);
    }

    fn write_move(&self, a: Action, out: &mut String) {
        a.write_text(out);
    }

    fn write_board(&self, out: &mut String) {
        for r in (0..8).rev() {
            for c in 0..8 {
                out.push(CELL_CHARS[self.board[r * 8 + c] as usize] as char);
            }
            out.push('\n');
        }
    }

    /// The arena's input: the colour on a bot's first turn, the board, the last move played
    /// (`null` before the first: after a `--position` too), the number of moves and the moves.
    fn write_turn_input(&self, turn: &TurnText<'_>, out: &mut String) {
        out.reserve(96 + 8 * turn.texts.len());
        if turn.first_turn {
            out.push_str(if self.to_move == 0 { "w\n" } else { "b\n" });
        }
        self.write_board(out);
        match turn.history.all().last() {
            Some((_, last)) => out.push_str(last),
            None => out.push_str("null"),
        }
        out.push('\n');
        let _ = writeln!(out, "{}", turn.texts.len());
        for t in turn.texts {
            out.push_str(t);
            out.push('\n');
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.winner.map(|w| Outcome::winner(2, w))
    }

    fn is_over(&self) -> bool {
        self.winner.is_some()
    }

    fn scores(&self) -> Vec<i32> {
        self.score.to_vec()
    }

    /// The arena's record: -1 for a bot that forfeits and 0 for the other, 0 and 0 at the turn
    /// limit, the checkers removed after a win.
    fn record_scores(&self, end: ScoreEnd) -> Vec<i32> {
        match end {
            ScoreEnd::Rules => self.score.to_vec(),
            ScoreEnd::TurnLimit => vec![0, 0],
            ScoreEnd::Forfeit(seat) => (0..2).map(|s| if s == seat { -1 } else { 0 }).collect(),
        }
    }

    fn position_text(&self) -> String {
        let mut s = String::with_capacity(80);
        for r in (0..8).rev() {
            for c in 0..8 {
                s.push(CELL_CHARS[self.board[r * 8 + c] as usize] as char);
            }
            if r > 0 {
                s.push('/');
            }
        }
        s.push_str(if self.to_move == 0 { " w" } else { " b" });
        s
    }

    fn view(&self) -> BoardView {
        BoardView::filled(|v| self.view_into(v))
    }

    fn view_into(&self, out: &mut BoardView) {
        out.reshape(CellShape::Square, 64, 1);
        let mut i = 0;
        for r in (0..8).rev() {
            for c in 0..8 {
                let sq = (r * 8 + c) as Square;
                let [file, rank] = square_name(sq);
                let mark = if (r + c) % 2 == 0 { "dark" } else { "" };
                let cell = out.cell(i, c as f32, (7 - r) as f32, mark);
                cell.name.clear();
                cell.name.push(char::from(file));
                cell.name.push(char::from(rank));
                let code = self.board[sq as usize];
                let (seat, height) = match code {
                    0 => (0, 0),
                    1 | 2 => (code as usize - 1, 1),
                    _ => (code as usize - 3, 2),
                };
                cell.set_pieces((0..height).map(|_| (seat, "")));
                i += 1;
            }
        }
        let _ = write!(
            out.note(0),
            "removed: White {}, Black {}",
            self.score[0],
            self.score[1]
        );
    }

    fn describe(&self) -> String {
        let mut s = String::with_capacity(128);
        for r in (0..8).rev() {
            for c in 0..8 {
                s.push(CELL_CHARS[self.board[r * 8 + c] as usize] as char);
            }
            s.push('\n');
        }
        let side = ["White", "Black"];
        match self.winner {
            Some(w) => s.push_str(side[w]),
            None => s.push_str(side[self.to_move]),
        }
        let verb = if self.winner.is_some() {
            "has won"
        } else {
            "to move"
        };
        let _ = write!(
            s,
            " {verb} (removed: White {}, Black {})",
            self.score[0], self.score[1]
        );
        s
    }
}

/// Reads the one-line form: the eight rows from row 8 to row 1 joined by `/`, a space, and `w` or
/// `b` for the side to move (`.W.b.W.b/b.W.b.W./......../......../......../......../.B.w.B.w/w.B.w.B. w`).
pub fn from_position_text(text: &str) -> Result<Impasse, PositionError> {
    let (rows, side) = text.trim().split_once(' ').ok_or(PositionError::Form {
        expected: "eight rows joined by '/', a space, and w or b".into(),
        got: None,
    })?;
    let to_move = match side.trim() {
        "w" => 0,
        "b" => 1,
        other => return Err(PositionError::side_w_or_b(other)),
    };
    let rows: Vec<&str> = rows.split('/').collect();
    Impasse::from_rows(&rows, to_move)
}

/// Refuses a `--position` that play cannot reach or that is already over: the game ends when a
/// side has removed all twelve checkers, so no game is ever on with a side that has none.
fn playable(g: Impasse) -> Result<Impasse, PositionError> {
    let none = |seat: usize| g.score(seat) == CHECKERS;
    match (none(0), none(1)) {
        (true, true) => Err(PositionError::EmptyBoard),
        (true, false) | (false, true) => Err(PositionError::NoCheckersLeft {
            side: if none(0) { "White" } else { "Black" },
        }),
        (false, false) => Ok(g),
    }
}

/// The registry entry: the CodinGame arena's Impasse (the default variant) and the soldiers and
/// kings variant of [`soldier_king`].
pub static INFO: GameInfo = GameInfo {
    name: "impasse",
    title: "Impasse",
    about: "Mark Steere's Impasse exactly as the CodinGame arena referees it (its input format)",
    variants: &[
        Variant {
            name: "arena",
            about: "the CodinGame arena's rules and input, byte for byte",
            seats: &[2],
        },
        Variant {
            name: soldier_king::VARIANT,
            about: "soldiers and kings: promotion removes a soldier, kings are demoted, \
                    down to one piece wins (standard input)",
            seats: &[2],
        },
    ],
    default_max_turns: 250,
    books: &[],
    score_name: "checkers removed",
    statement: concat!(
        include_str!("statement.md"),
        "\n",
        include_str!("soldier_king.md")
    ),
    new: |setup: &Setup| match setup.variant {
        soldier_king::VARIANT => Box::new(TextGame::new(soldier_king::SoldierKing::new())),
        _ => Box::new(TextGame::new(Impasse::new())),
    },
    from_position: |setup: &Setup, text: &str| match setup.variant {
        soldier_king::VARIANT => Ok(Box::new(TextGame::new(soldier_king::from_position_text(
            text,
        )?))),
        _ => Ok(Box::new(TextGame::new(playable(from_position_text(
            text,
        )?)?))),
    },
};
