//! A UCI chess engine that answers every `go` at once with the first legal move of the position.
//!
//! It exists so that `benches/fastchess.sh` can time a chess tournament manager (fastchess) on the
//! same kind of opponent that `bots/first` is for arbiter: a program whose thinking costs nothing,
//! so that the wall time of a game is the manager's own work plus the pipes and processes.
//!
//! The manager sends the whole game with every `position ... moves ...`; replaying it from the start
//! each time would make a ply cost grow with the game, so the engine keeps the position it reached
//! and plays only the moves added since the previous command when the rest is unchanged.

use std::io::{self, BufRead, Write};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

/// The position the manager last set, with the words it was built from.
struct Game {
    /// `startpos` or the FEN text after `position fen`.
    base: String,
    /// The moves played from `base`, as sent.
    moves: Vec<String>,
    pos: Chess,
}

impl Game {
    fn new() -> Game {
        Game {
            base: String::from("startpos"),
            moves: Vec::new(),
            pos: Chess::default(),
        }
    }

    /// Applies the arguments of a `position` command (the words after `position`).
    fn set(&mut self, args: &str) -> Result<(), String> {
        let (base, moves) = match args.find(" moves") {
            Some(at) => (args[..at].trim(), args[at + " moves".len()..].trim()),
            None => (args.trim(), ""),
        };
        let base = base.strip_prefix("fen").map(str::trim).unwrap_or(base);
        let words: Vec<&str> = moves.split_ascii_whitespace().collect();
        let continues = base == self.base
            && words.len() >= self.moves.len()
            && words.iter().zip(&self.moves).all(|(a, b)| a == b);
        if !continues {
            self.pos = if base == "startpos" {
                Chess::default()
            } else {
                let fen = Fen::from_ascii(base.as_bytes()).map_err(|e| format!("bad fen: {e}"))?;
                fen.into_position(CastlingMode::Standard)
                    .map_err(|e| format!("bad position: {e}"))?
            };
            self.base.clear();
            self.base.push_str(base);
            self.moves.clear();
        }
        for word in &words[self.moves.len()..] {
            let uci = UciMove::from_ascii(word.as_bytes()).map_err(|e| format!("{word}: {e}"))?;
            let m = uci.to_move(&self.pos).map_err(|e| format!("{word}: {e}"))?;
            self.pos.play_unchecked(&m);
            self.moves.push((*word).to_string());
        }
        Ok(())
    }

    /// The first legal move in UCI notation, or `0000` when there is none.
    fn first_move(&self) -> String {
        match self.pos.legal_moves().first() {
            Some(m) => m.to_uci(CastlingMode::Standard).to_string(),
            None => String::from("0000"),
        }
    }
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    let mut line = String::new();
    let mut game = Game::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let text = line.trim();
        let (command, args) = text.split_once(' ').unwrap_or((text, ""));
        match command {
            "uci" => out.write_all(b"id name instant-uci\nid author arbiter benches\nuciok\n")?,
            "isready" => out.write_all(b"readyok\n")?,
            "ucinewgame" => game = Game::new(),
            "position" => {
                if let Err(message) = game.set(args) {
                    eprintln!("instant-uci: {message}");
                    game = Game::new();
                }
            }
            "go" => writeln!(out, "bestmove {}", game.first_move())?,
            "quit" => return Ok(()),
            _ => continue,
        }
        out.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::EnPassantMode;

    fn fen(game: &Game) -> String {
        Fen::from_position(game.pos.clone(), EnPassantMode::Legal).to_string()
    }

    fn fresh(args: &str) -> Game {
        let mut game = Game::new();
        game.set(args).unwrap();
        game
    }

    #[test]
    fn plays_the_first_legal_move_of_the_side_to_move() {
        assert_eq!(fresh("startpos").first_move(), "a2a3");
        assert_eq!(fresh("startpos moves a2a3").first_move(), "a7a6");
    }

    #[test]
    fn a_longer_game_continues_from_the_kept_position() {
        let mut game = fresh("startpos moves e2e4 e7e5");
        game.set("startpos moves e2e4 e7e5 g1f3 b8c6").unwrap();
        assert_eq!(game.moves.len(), 4);
        assert_eq!(
            fen(&game),
            fen(&fresh("startpos moves e2e4 e7e5 g1f3 b8c6"))
        );
    }

    #[test]
    fn a_different_game_starts_again() {
        let mut game = fresh("startpos moves e2e4 e7e5");
        game.set("startpos moves d2d4").unwrap();
        assert_eq!(fen(&game), fen(&fresh("startpos moves d2d4")));
        game.set("fen 7k/8/8/8/8/8/8/K7 w - - 0 1 moves a1a2")
            .unwrap();
        assert_eq!(fen(&game), "7k/8/8/8/8/8/K7/8 b - - 1 1");
    }

    #[test]
    fn no_legal_move_is_the_null_move_and_bad_input_is_an_error() {
        assert_eq!(
            fresh("fen 7k/5QQ1/8/8/8/8/8/K7 b - - 0 1").first_move(),
            "0000"
        );
        assert!(Game::new().set("fen not-a-fen").is_err());
        assert!(Game::new().set("startpos moves e2e5").is_err());
    }
}
