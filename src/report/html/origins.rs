//! Bots' stderr as their authors know their files: a bot given as a source file runs from its
//! build folder in the cache (`~/.cache/arbiter/build/<hash>/bob.py`), so its tracebacks name
//! that folder, which means nothing to the person who typed `students/bob.py`. The report and
//! the replay pages show such paths as the bot's origin, the path the user gave, read from the
//! run's settings (tournament.toml, sprt.toml).

use crate::results::records::GameRecord;
use crate::results::replay::ReplayFileError;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A replay file's record ([`crate::results::replay::read`]), as people are shown the game: paths into the build cache in a source bot's stderr
/// are shown as the path the user gave (`students/bob.py`), from the bots as typed (kept by
/// `arbiter play --replay`) or, for a file in a results folder's `replays/`, from that run's
/// settings. The file itself keeps the raw text.
pub fn read_shown(path: &Path) -> Result<GameRecord, ReplayFileError> {
    let (mut rec, start) = crate::results::replay::parse(path)?;
    let typed = &start["typed"];
    let origins = match typed["bots"].as_array() {
        Some(bots) => {
            let bots: Vec<String> = bots
                .iter()
                .filter_map(|b| b.as_str().map(str::to_string))
                .collect();
            let dir = |key: &str| Path::new(typed[key].as_str().unwrap_or_default()).to_path_buf();
            Origins::of_args(&bots, &dir("workdir"), &dir("cache"))
        }
        None => match path.parent().filter(|p| p.ends_with("replays")) {
            Some(replays) => Origins::of_folder(replays.parent().unwrap_or(replays)),
            None => Origins::default(),
        },
    };
    origins.apply(&mut rec);
    Ok(rec)
}

/// Each bot's build folder as shown, by bot name.
#[derive(Debug, Default)]
pub struct Origins {
    /// The build cache with a trailing `/`.
    cache: String,
    /// Bot name to what its build folder is shown as: `students/bob/` for a folder given as
    /// `students/bob`, `students/` for the file `students/bob.py`, empty for `bob.py`.
    shown: HashMap<String, String>,
}

impl Origins {
    /// The origins of the bots of the results folder `dir`, from its settings; none (every
    /// text shown as it is) for a folder without settings.
    pub fn of_folder(dir: &Path) -> Origins {
        let mut origins = Origins::new(&crate::bot::host::cache_root());
        for file in ["tournament.toml", "sprt.toml"] {
            let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
                continue;
            };
            let Ok(table) = text.parse::<toml::Table>() else {
                continue;
            };
            let workdir = table
                .get("workdir")
                .and_then(|w| w.as_str())
                .map_or_else(|| dir.to_path_buf(), PathBuf::from);
            let mut args: Vec<&str> = table
                .get("bots")
                .and_then(|b| b.as_array())
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            args.extend(
                ["new", "old"]
                    .iter()
                    .filter_map(|k| table.get(*k)?.as_str()),
            );
            for arg in args {
                origins.add(arg, &workdir);
            }
        }
        origins
    }

    /// The origins of one game's bots, given as the BOT arguments `bots` typed in `workdir`,
    /// built in the cache `cache` (`arbiter play`).
    pub fn of_args(bots: &[String], workdir: &Path, cache: &Path) -> Origins {
        let mut origins = Origins::new(cache);
        for arg in bots {
            origins.add(arg, workdir);
        }
        origins
    }

    /// No bots yet, with the build cache `cache`.
    pub fn new(cache: &Path) -> Origins {
        Origins {
            cache: format!("{}/", cache.display()),
            shown: HashMap::new(),
        }
    }

    /// A BOT argument as typed in `workdir` (`name=path`, a source file or a folder); command
    /// lines and programs do not run from the build cache and are left out.
    pub fn add(&mut self, arg: &str, workdir: &Path) {
        let (name, origin) = match arg.split_once('=') {
            Some((name, rest)) if !workdir.join(arg).exists() => (Some(name), rest),
            _ => (None, arg),
        };
        let path = workdir.join(origin);
        let trimmed = origin.trim_end_matches('/');
        let (stem, shown) = if path.is_dir() {
            let stem = std::path::absolute(&path)
                .ok()
                .and_then(|p| Some(p.file_stem()?.to_string_lossy().into_owned()));
            (stem, format!("{trimmed}/"))
        } else if path.is_file() {
            let stem = Path::new(origin)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned());
            let parent = Path::new(trimmed)
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            let shown = if parent.is_empty() {
                String::new()
            } else {
                format!("{parent}/")
            };
            (stem, shown)
        } else {
            return;
        };
        if let Some(name) = name.map(str::to_string).or(stem) {
            self.shown.insert(name, shown);
        }
    }

    /// `text`, written by the bot `bot`, with every path into a build folder of the cache
    /// (`CACHE/<hash>/`) shown from the bot's origin instead.
    pub fn show(&self, bot: &str, text: &str) -> String {
        let Some(shown) = self.shown.get(bot) else {
            return text.to_string();
        };
        let mut out = text.to_string();
        let mut from = 0;
        while let Some(at) = out[from..].find(&self.cache).map(|k| k + from) {
            let rest = at + self.cache.len();
            // The hash folder's name: up to the next `/`, never across a space.
            let end = out[rest..]
                .find('/')
                .filter(|&k| !out[rest..rest + k].contains(char::is_whitespace))
                .map_or(rest, |k| rest + k + 1);
            out.replace_range(at..end, shown);
            from = at + shown.len();
        }
        out
    }

    /// The stderr tails of a game's seats (`bots` by seat) with paths shown from each bot's
    /// origin.
    pub fn show_seats(&self, bots: &[String], tails: &mut [String]) {
        for (text, bot) in tails.iter_mut().zip(bots) {
            *text = self.show(bot, text);
        }
    }

    /// The record's stderr texts (tails, and per turn) with paths shown from each bot's
    /// origin.
    pub fn apply(&self, rec: &mut crate::results::records::GameRecord) {
        if self.shown.is_empty() {
            return;
        }
        for (seat, text) in rec.stderr.iter_mut().enumerate() {
            if let Some(bot) = rec.bots.get(seat) {
                *text = self.show(bot, text);
            }
        }
        for (i, text) in rec.turn_stderr.iter_mut() {
            // Past the moves: the forfeit's turn, whose answer never came.
            let seat = rec
                .seat
                .get(*i as usize)
                .map(|&s| s as usize)
                .or(rec.offender);
            if let Some(bot) = seat.and_then(|s| rec.bots.get(s)) {
                *text = self.show(bot, text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_folder_in_a_traceback_is_shown_as_the_bots_origin() {
        let class = tempfile::tempdir().unwrap();
        let w = class.path();
        std::fs::create_dir_all(w.join("students/carol")).unwrap();
        std::fs::write(w.join("students/bob.py"), "").unwrap();
        std::fs::write(w.join("alice.py"), "").unwrap();
        std::fs::write(w.join("students/carol/main.py"), "").unwrap();
        let mut o = Origins::new(Path::new("/root/.cache/arbiter/build"));
        for arg in [
            "students/bob.py",
            "alice.py",
            "c=students/carol/",
            "python3 x.py",
        ] {
            o.add(arg, w);
        }
        let tb = |h: &str, f: &str| {
            format!("  File \"/root/.cache/arbiter/build/{h}/{f}\", line 3, in <module>\n")
        };
        let h = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            o.show("bob", &tb(h, "bob.py")),
            "  File \"students/bob.py\", line 3, in <module>\n"
        );
        assert_eq!(
            o.show("alice", &tb(h, "alice.py")),
            "  File \"alice.py\", line 3, in <module>\n"
        );
        assert_eq!(
            o.show("c", &(tb(h, "main.py") + &tb(h, "lib/util.py"))),
            "  File \"students/carol/main.py\", line 3, in <module>\n  \
             File \"students/carol/lib/util.py\", line 3, in <module>\n"
        );
        // A bot not given as a file or folder, and other paths, are left as they are.
        assert_eq!(o.show("x", &tb(h, "x.py")), tb(h, "x.py"));
        assert_eq!(
            o.show("bob", "/usr/lib/python3/x.py"),
            "/usr/lib/python3/x.py"
        );
    }
}
