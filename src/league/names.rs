//! The names a league takes for its bots, authors and workers: names that mean the same thing
//! everywhere they go (a folder under `uploads/`, a token file's entry, a URL's path, a
//! command line, a CSV cell), so a plain set: 1 to 64 ASCII letters, digits, `-`, `_` and `.`,
//! starting with a letter or a digit. A name starting with `-` reads as an option to the
//! command it is given to (`-rf`), one starting with `.` as a hidden or parent folder.

/// A name the league does not take, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{name:?} cannot name a {what}: use 1 to 64 letters, digits, '-', '_' and '.', starting with \
     a letter or a digit (a name starting with '-' reads as an option on a command line, one \
     starting with '.' as a hidden folder)"
)]
pub struct BadName {
    pub name: String,
    pub what: &'static str,
}

/// Whether `name` is a plain name (see the module's doc).
pub fn plain(name: &str) -> bool {
    name.len() <= 64
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// `name` if it is plain; else why not, for a `what` ("bot", "worker", ...).
pub fn check(name: &str, what: &'static str) -> Result<(), BadName> {
    if plain(name) {
        Ok(())
    } else {
        Err(BadName {
            name: name.into(),
            what,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_only() {
        for good in ["alice", "a", "bot-2", "v1.0_b", "X"] {
            assert!(plain(good), "{good}");
        }
        let long = "a".repeat(65);
        for bad in [
            "",
            "-rf",
            ".hidden",
            "..",
            "a b",
            "a/b",
            "é",
            "a;b",
            long.as_str(),
        ] {
            assert!(!plain(bad), "{bad}");
        }
        let e = check("-rf", "bot").unwrap_err().to_string();
        assert!(
            e.contains("\"-rf\" cannot name a bot") && e.contains("option"),
            "{e}"
        );
    }
}
