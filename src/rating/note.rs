//! Plain-language notes from the fits (warnings, who has a perfect score) that speak of bots by
//! index: the fits know no names, so a note keeps each bot as an index and the reporter names
//! them ([`FitNote::name_bots`]); shown unnamed, a bot reads "bot 3".

use std::fmt;

/// One piece of a note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Text(String),
    /// A bot, by its index in the field.
    Bot(usize),
}

/// A note: text with bots in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FitNote(pub Vec<Part>);

impl FitNote {
    /// A note of text alone.
    pub fn text(text: impl Into<String>) -> FitNote {
        FitNote(vec![Part::Text(text.into())])
    }

    /// A note that starts with bot `index`.
    pub fn bot(index: usize) -> FitNote {
        FitNote(vec![Part::Bot(index)])
    }

    /// This note followed by `text`.
    pub fn then(mut self, text: impl Into<String>) -> FitNote {
        self.0.push(Part::Text(text.into()));
        self
    }

    /// This note followed by bot `index`.
    pub fn then_bot(mut self, index: usize) -> FitNote {
        self.0.push(Part::Bot(index));
        self
    }

    /// The notes one after the other, `sep` between them.
    pub fn join(notes: &[FitNote], sep: &str) -> FitNote {
        let mut out = FitNote::default();
        for (i, n) in notes.iter().enumerate() {
            if i > 0 {
                out.0.push(Part::Text(sep.into()));
            }
            out.0.extend(n.0.iter().cloned());
        }
        out
    }

    /// The bots the note speaks of, in order.
    pub fn bots(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().filter_map(|p| match p {
            Part::Bot(i) => Some(*i),
            Part::Text(_) => None,
        })
    }

    /// Names every bot of the note with `name` (by index).
    pub fn name_bots(&mut self, name: impl Fn(usize) -> String) {
        for part in &mut self.0 {
            if let Part::Bot(i) = *part {
                *part = Part::Text(name(i));
            }
        }
    }

    /// Whether the note, shown unnamed, starts with `text`.
    pub fn starts_with(&self, text: &str) -> bool {
        self.to_string().starts_with(text)
    }

    /// Whether the note, shown unnamed, contains `text`.
    pub fn contains(&self, text: &str) -> bool {
        self.to_string().contains(text)
    }
}

impl fmt::Display for FitNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.0 {
            match part {
                Part::Text(t) => f.write_str(t)?,
                Part::Bot(i) => write!(f, "bot {i}")?,
            }
        }
        Ok(())
    }
}

/// Written as its text (JSON output keeps a string per note).
impl serde::Serialize for FitNote {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_keeps_bots_as_indices_until_the_reporter_names_them() {
        let mut n = FitNote::join(
            &[
                FitNote::bot(2).then(" won every game"),
                FitNote::bot(0).then(" lost every game"),
            ],
            ", ",
        );
        assert_eq!(n.bots().collect::<Vec<_>>(), [2, 0]);
        assert_eq!(n.to_string(), "bot 2 won every game, bot 0 lost every game");
        let names = ["ann", "bob", "cy 2"];
        n.name_bots(|i| format!("'{}'", names[i]));
        assert_eq!(
            n.to_string(),
            "'cy 2' won every game, 'ann' lost every game"
        );
        assert_eq!(n.bots().count(), 0);
    }
}
