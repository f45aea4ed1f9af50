//! A CodinGame SDK game's leagues and players, as its own files list them: a contest is played in
//! leagues (the Wood leagues teach the rules one at a time, the last one has them all), and the
//! game reads its league as `-Dleague.level` (`--league`). The game's `config/` folder (beside
//! its `pom.xml`) says which there are: its statement template's first line `<!-- LEAGUES
//! level1 level2 ... -->` (what CodinGame's site reads), else its `config/levelN` folders; its
//! `config.ini` says how many players it seats. CodinGame names the leagues on its site (Wood 2,
//! Wood 1, Bronze, ...), not in a game's files: a league is its number unless the statement's
//! list names it otherwise. Pure reading of files; nothing here runs the game.

use std::path::{Path, PathBuf};

/// The leagues a game's files list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leagues {
    /// Each league's name where the game names it (`levelN` names no more than the number).
    pub names: Vec<Option<String>>,
    /// The file (or folder) the list was read from.
    pub from: PathBuf,
}

impl Leagues {
    /// How many leagues: the highest is the game's full rules.
    pub fn count(&self) -> u32 {
        self.names.len() as u32
    }

    /// "league 3 of 4" (with its name where the game gives one).
    pub fn describe(&self, league: u32) -> String {
        let name = self
            .names
            .get(league.saturating_sub(1) as usize)
            .and_then(|n| n.as_deref())
            .map(|n| format!(" ({n})"))
            .unwrap_or_default();
        format!("league {league}{name} of {}", self.count())
    }
}

/// The game's own folder for a game given as `entries` (a source folder's, or the class path
/// entry holding the game): the first folder at or above it, past its `classes`, `target` and
/// `build` folders and a jar's own folder, that holds a `config` folder.
pub fn game_folder(entry: &Path) -> Option<PathBuf> {
    let mut at = Some(entry);
    while let Some(p) = at {
        if p.join("config").is_dir() {
            return Some(p.to_path_buf());
        }
        match p.file_name().and_then(|n| n.to_str()) {
            Some("classes" | "target" | "build" | "lib") => at = p.parent(),
            Some(name) if name.ends_with(".jar") => at = p.parent(),
            _ => return None,
        }
    }
    None
}

/// The leagues `folder` (a game's own folder) lists, if it lists them.
pub fn read(folder: &Path) -> Option<Leagues> {
    let config = folder.join("config");
    let mut templates: Vec<PathBuf> = std::fs::read_dir(&config)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("statement") && n.ends_with(".html.tpl"))
        })
        .collect();
    // The English statement first, as CodinGame's site reads it.
    templates.sort_by_key(|p| (!p.ends_with("statement_en.html.tpl"), p.clone()));
    for template in templates {
        let text = std::fs::read_to_string(&template).unwrap_or_default();
        if let Some(names) = listed(&text) {
            return Some(Leagues {
                names,
                from: template,
            });
        }
    }
    let levels = std::fs::read_dir(&config)
        .ok()?
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_prefix("level"))
                .and_then(|n| n.parse::<u32>().ok())
        })
        .max()?;
    Some(Leagues {
        names: vec![None; levels as usize],
        from: config,
    })
}

/// The leagues a statement template's `<!-- LEAGUES ... -->` comment lists, in order.
fn listed(text: &str) -> Option<Vec<Option<String>>> {
    let start = text.find("<!-- LEAGUES")?;
    let rest = &text[start + "<!-- LEAGUES".len()..];
    let list = &rest[..rest.find("-->")?];
    let names: Vec<Option<String>> = list
        .split_whitespace()
        .map(|w| {
            let numbered = w
                .strip_prefix("level")
                .is_some_and(|n| n.parse::<u32>().is_ok());
            (!numbered).then(|| w.to_string())
        })
        .collect();
    (!names.is_empty()).then_some(names)
}

/// The players a game seats, as its `config/config.ini` says (`min_players`, `max_players`).
pub fn players(folder: &Path) -> Option<(usize, usize)> {
    let text = std::fs::read_to_string(folder.join("config/config.ini")).ok()?;
    let value = |key: &str| {
        text.lines()
            .filter_map(|l| l.split_once('='))
            .find(|(k, _)| k.trim() == key)
            .and_then(|(_, v)| v.trim().parse::<usize>().ok())
    };
    Some((value("min_players")?, value("max_players")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leagues_come_from_the_statement_else_the_level_folders() {
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("spring");
        std::fs::create_dir_all(game.join("config/level2")).unwrap();
        std::fs::create_dir_all(game.join("target/classes")).unwrap();
        // Only level folders: as many leagues as the highest.
        let leagues = read(&game).unwrap();
        assert_eq!((leagues.count(), leagues.names[0].clone()), (2, None));
        std::fs::write(
            game.join("config/statement_en.html.tpl"),
            "<!-- LEAGUES level1 level2 level3 level4 -->\n<div>...</div>",
        )
        .unwrap();
        let leagues = read(&game).unwrap();
        assert_eq!(leagues.count(), 4);
        assert_eq!(leagues.describe(4), "league 4 of 4");
        assert!(leagues.from.ends_with("config/statement_en.html.tpl"));
        assert_eq!(
            listed("<!-- LEAGUES wood bronze -->"),
            Some(vec![Some("wood".into()), Some("bronze".into())])
        );
        assert_eq!(listed("<div>no list</div>"), None);
        // A class path entry of the game's build finds the game's own folder above it.
        assert_eq!(
            game_folder(&game.join("target/classes")),
            Some(game.clone())
        );
        assert_eq!(game_folder(dir.path()), None);
        std::fs::write(
            game.join("config/config.ini"),
            "min_players=2\nmax_players=4\ntype=multi",
        )
        .unwrap();
        assert_eq!(players(&game), Some((2, 4)));
    }
}
