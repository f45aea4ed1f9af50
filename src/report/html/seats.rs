//! Each game's seats in its own colours: the pieces, the swatches and the legend of a replay
//! page all take a seat's colour from here, and here asks the game ([`crate::game::Rules::seat_colours`]), so
//! a game whose first seat is Black (Abande) is drawn and named as its rules say.

use crate::game::{self, SeatColour};
use crate::results::records::GameRecord;

/// The colours of the seats of the game `rec` records, seat 0 first: its rules' own (asked of
/// the start position of its variant and seat count), or [`SeatColour::standard`] for a game
/// whose rules are not arbiter's (an external referee's).
pub fn palette(rec: &GameRecord) -> Vec<SeatColour> {
    let rules = match rec.external {
        Some(_) => None,
        None => game::lookup(&rec.game, Some(&rec.variant), Some(rec.seats), rec.seed).ok(),
    };
    match rules {
        Some((info, setup)) => info.start(&setup).seat_colours(),
        None => SeatColour::standard(rec.seats),
    }
}

/// The colour of `seat` in `colours` (a [`palette`]); the standard colour of a seat past its end.
pub fn colour(colours: &[SeatColour], seat: usize) -> SeatColour {
    colours
        .get(seat)
        .copied()
        .unwrap_or_else(|| SeatColour::standard(seat + 1)[seat])
}

#[cfg(test)]
mod tests {
    use super::super::{frames, viewer};
    use super::*;
    use crate::referee::{GameChoice, RefereeConfig};
    use crate::results::records::tests::{simulate, spec};

    fn record(game: &str, seats: usize) -> GameRecord {
        let choice = GameChoice::new(game, None, Some(seats), None).unwrap();
        let r = simulate(&choice, 2, 2, None);
        GameRecord::new(&spec(1), &choice, &RefereeConfig::default(), &r)
    }

    /// The colours in a page's data (`"colours":[["Black","#2b2b2b","#f3efe2"],...]`).
    fn page_colours(rec: &GameRecord) -> Vec<(String, String, String)> {
        let json = frames::page_json(rec, "t", frames::Inputs::All).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        serde_json::from_value(v["colours"].clone()).unwrap()
    }

    #[test]
    fn a_games_own_colours_reach_its_page() {
        // Abande's rules name seat 0 Black: the page's pieces, swatches and legend say so.
        let rec = record("abande", 2);
        let colours = page_colours(&rec);
        let names: Vec<_> = colours.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(names, ["Black", "White"]);
        assert_eq!(colours[0].1, SeatColour::BLACK.fill);
        // The viewer draws the legend and the swatches from these colours (its page is checked
        // in Chromium by tests/it/report.rs); the one page of `arbiter replay` holds them.
        let html = viewer::page(&rec, None).unwrap();
        assert!(
            html.contains("arbiterGame(1,"),
            "the page holds its game's data"
        );
    }

    #[test]
    fn a_game_that_names_no_colours_gets_the_standard_ones() {
        let names = |rec: &GameRecord| -> Vec<String> {
            page_colours(rec).into_iter().map(|c| c.0).collect()
        };
        assert_eq!(names(&record("draughts", 2)), ["White", "Black"]);
        assert_eq!(
            names(&record("moscow-ice", 4)),
            ["White", "Black", "Red", "Blue"]
        );
        // The default for N seats: White, Black, then the others in order, again past the last.
        let eight: Vec<_> = SeatColour::standard(9).iter().map(|c| c.name).collect();
        assert_eq!(
            eight,
            ["White", "Black", "Red", "Blue", "Green", "Purple", "Orange", "Teal", "Red"]
        );
        assert_eq!(colour(&SeatColour::standard(2), 3).name, "Blue");
    }
}
