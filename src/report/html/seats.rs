//! Each game's seats in its own colours: the pieces, the swatches and the legend of a replay
//! page all take a seat's colour from here, so a game whose first seat is Black (Abande) is
//! drawn and named as its rules say.

/// One seat's look: its colour's name, the piece's fill and the ink of a label drawn on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatColour {
    pub name: &'static str,
    pub fill: &'static str,
    pub ink: &'static str,
}

const WHITE: SeatColour = SeatColour {
    name: "White",
    fill: "#f3efe2",
    ink: "#222",
};
const BLACK: SeatColour = SeatColour {
    name: "Black",
    fill: "#2b2b2b",
    ink: "#f3efe2",
};

/// Seats past the first two, in order (Moscow Ice seats four).
const MORE: [SeatColour; 6] = [
    SeatColour {
        name: "Red",
        fill: "#c0392b",
        ink: "#fff",
    },
    SeatColour {
        name: "Blue",
        fill: "#2a6fdb",
        ink: "#fff",
    },
    SeatColour {
        name: "Green",
        fill: "#27ae60",
        ink: "#fff",
    },
    SeatColour {
        name: "Purple",
        fill: "#8e44ad",
        ink: "#fff",
    },
    SeatColour {
        name: "Orange",
        fill: "#e67e22",
        ink: "#222",
    },
    SeatColour {
        name: "Teal",
        fill: "#16a085",
        ink: "#fff",
    },
];

/// The colour of `seat` in `game`: White then Black, except in games whose rules give seat 0
/// Black (Abande); later seats Red, Blue and so on.
pub fn colour(game: &str, seat: usize) -> SeatColour {
    let first_two = match game {
        "abande" => [BLACK, WHITE],
        _ => [WHITE, BLACK],
    };
    match seat {
        0 | 1 => first_two[seat],
        s => MORE[(s - 2) % MORE.len()],
    }
}

/// The colours of a game's seats.
pub fn palette(game: &str, seats: usize) -> Vec<SeatColour> {
    (0..seats).map(|s| colour(game, s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abande_seat_zero_is_black_and_the_others_white_first() {
        assert_eq!(colour("abande", 0).name, "Black");
        assert_eq!(colour("abande", 1).name, "White");
        for game in [
            "impasse",
            "draughts",
            "accasta",
            "alva",
            "attangle",
            "attraktion",
        ] {
            assert_eq!(colour(game, 0).name, "White", "{game}");
            assert_eq!(colour(game, 1).name, "Black", "{game}");
        }
        let four: Vec<_> = palette("moscow-ice", 4).iter().map(|c| c.name).collect();
        assert_eq!(four, ["White", "Black", "Red", "Blue"]);
    }
}
