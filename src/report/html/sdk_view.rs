//! A CodinGame SDK game's own viewer in its replays: the engine's `Drawer`, the modules and the
//! game's view with its sprites, gathered from the game's class path
//! ([`crate::referee::sdk::view`]) and written once per results folder as one script,
//! `replays/sdk-view.js`, which the replay pages load beside the game's data; the viewer's
//! script (`assets/sdk_player.js`) runs it and draws each recorded frame in a canvas.
//!
//! A page opened as a file can fetch nothing and load no module file, so everything is inside
//! that script: the modules' texts (loaded from blob URLs through an import map, see
//! [`modules`]), every asset as a `data:` URL ([`assets`]), and the PIXI library the engine's
//! `Drawer` requires. Those files are the engine's and the game's (under their own licences):
//! arbiter copies them from the user's own build and ships none.

mod assets;
mod modules;

use crate::referee::sdk::record::{with_names, SdkLog};
use crate::referee::sdk::view::{self, ViewFiles};
use crate::referee::sdk::SdkGame;
use crate::results::records::GameRecord;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The viewer of a folder's game, in its `replays/` folder.
pub const FILE: &str = "sdk-view.js";

/// The module every viewer starts from: the engine's.
const ENTRY: &str = "core/Drawer.js";

/// Why a game's replays show it as text, not with its own viewer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoView {
    #[error("the game has no view of its own (no view/config.js on its class path: a game's view is its src/main/resources/view/, which a game built without it lacks)")]
    NoGameView,
    #[error("the class path holds no engine viewer (no view/core/Drawer.js: the engine's jars from Maven or from arbiter's build of a source folder hold it; classes compiled by hand do not)")]
    NoEngineViewer,
    #[error("the engine's viewer names no PIXI version arbiter knows (an engine older than 4.0)")]
    OldEngine,
    #[error("the engine's viewer needs view/lib/{0}, which is not on the class path (the engine's runner jar holds it)")]
    NoPixi(String),
    #[error("{0}")]
    Unreadable(String),
}

/// The PIXI library the engine's `Drawer` requires (`PIXI: 'PIXI6'` in its `requirements`).
fn pixi_of(drawer: &str) -> Option<String> {
    let at = drawer.find("PIXI:")? + "PIXI:".len();
    let rest = drawer[at..].trim_start();
    let quote = rest.chars().next().filter(|q| *q == '\'' || *q == '"')?;
    let name = rest[1..].split(quote).next()?;
    let version = name.strip_prefix("PIXI")?;
    (!version.is_empty() && version.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("pixi{version}.js"))
}

/// JSON text as a JavaScript value that can sit inside a `<script>` element: no `</` and no
/// `<!--` (written `<\/`, `<\!--`, the same strings in JavaScript).
fn script_safe(json: &str) -> String {
    json.replace("</", "<\\/").replace("<!--", "<\\!--")
}

/// The text of `replays/sdk-view.js` for the game `game` whose viewer files are `view`: a call
/// of `arbiterSdkView` with the PIXI library, the modules and the entry.
pub fn bundle(game: &str, view: &ViewFiles) -> Result<String, NoView> {
    let files = &view.files;
    let text = |p: &str| {
        files
            .get(p)
            .map(|b| String::from_utf8_lossy(b).into_owned())
    };
    if !files.contains_key("config.js") {
        return Err(NoView::NoGameView);
    }
    let drawer = text(ENTRY).ok_or(NoView::NoEngineViewer)?;
    let pixi_file = pixi_of(&drawer).ok_or(NoView::OldEngine)?;
    let pixi = text(&format!("lib/{pixi_file}")).ok_or(NoView::NoPixi(pixi_file))?;
    // The runner's generated modules: the assets, and no demo (a demo's avatars are fetched
    // from CodinGame; the replay shows the game's own frames, never a demo).
    let generated: HashMap<&str, String> = [
        ("assets.js", assets::module(files)),
        ("demo.js", "export const demo = null;\n".to_string()),
    ]
    .into_iter()
    .collect();
    let source = |p: &str| -> Option<String> {
        match generated.get(p) {
            Some(t) => Some(t.clone()),
            None if p.starts_with("lib/") => None,
            None => text(p),
        }
    };
    let modules = modules::reachable(ENTRY, &source);
    let data = json!({
        "format": 1,
        "game": game,
        "entry": ENTRY,
        "scheme": modules::SCHEME,
        "pixi": pixi,
        "modules": modules,
    });
    Ok(format!(
        "/* The viewer of the CodinGame SDK game {}, gathered by arbiter from the game's class \
         path: the engine's and the game's own files, under their licences, not arbiter's. */\n\
         arbiterSdkView({});\n",
        game.replace("*/", "* /"),
        script_safe(&data.to_string())
    ))
}

/// The text of a `replays/sdk-view.js` that says why there is no viewer.
pub fn none(why: &NoView) -> String {
    let data = json!({ "format": 1, "none": why.to_string() });
    format!("arbiterSdkView({});\n", script_safe(&data.to_string()))
}

/// What a folder's replays show an SDK game with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    /// Its own viewer: `replays/sdk-view.js` of `bytes`.
    Drawn { bytes: u64 },
    /// Text steps only, for this reason (also in `replays/sdk-view.js`, for the pages).
    Text(NoView),
}

/// What [`install`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub shown: Shown,
    /// Whether the file was written (false: it was there already as it would be written).
    pub written: bool,
}

/// The viewer of the game whose class path is `classpath`, made once per run for each game
/// (a sprt's rounds and a league's restarts find it made).
fn made(name: &str, classpath: &[PathBuf]) -> Arc<Result<String, NoView>> {
    type Made = Mutex<HashMap<Vec<PathBuf>, Arc<Result<String, NoView>>>>;
    static MADE: OnceLock<Made> = OnceLock::new();
    let mut made = MADE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    made.entry(classpath.to_vec())
        .or_insert_with(|| {
            Arc::new(
                view::of_class_path(classpath)
                    .map_err(|e| NoView::Unreadable(e.to_string()))
                    .and_then(|files| bundle(name, &files)),
            )
        })
        .clone()
}

/// Writes the viewer of `game` (or why there is none) as `FILE` in the folder `replays`,
/// unless it is there already as it would be written.
pub fn install(replays: &Path, game: &SdkGame) -> std::io::Result<Installed> {
    std::fs::create_dir_all(replays)?;
    install_at(&replays.join(FILE), game)
}

/// Where `arbiter play --replay FILE` writes the viewer of an SDK game: beside FILE, as
/// `FILE.sdk-view.js` (its extension replaced).
pub fn beside(replay: &Path) -> PathBuf {
    replay.with_extension(FILE)
}

/// The viewer for the page of the replay file `replay` (`arbiter replay`): the one beside it
/// ([`beside`]), or its results folder's (a replay file in `replays/`, or beside them).
pub fn for_replay(replay: &Path) -> Option<String> {
    let dir = replay.parent().unwrap_or(Path::new("."));
    [
        beside(replay),
        dir.join(FILE),
        dir.join("replays").join(FILE),
    ]
    .iter()
    .find_map(|p| std::fs::read_to_string(p).ok())
}

/// [`install`] at the file `path`.
pub fn install_at(path: &Path, game: &SdkGame) -> std::io::Result<Installed> {
    let made = made(&game.name, &game.classpath);
    let (text, shown) = match &*made {
        Ok(text) => (
            text.clone(),
            Shown::Drawn {
                bytes: text.len() as u64,
            },
        ),
        Err(why) => (none(why), Shown::Text(why.clone())),
    };
    let written = std::fs::read(path).ok().as_deref() != Some(text.as_bytes());
    if written {
        let tmp = path.with_extension("js.tmp");
        std::fs::write(&tmp, text.as_bytes())?;
        std::fs::rename(&tmp, path)?;
    }
    Ok(Installed { shown, written })
}

/// The frames of an SDK game as its viewer draws them, for the game's replay data: the key
/// frames' view texts (the engine's `Drawer` draws those; an intermediate frame only carries
/// a player's answer), after how many of the replay's steps each one is shown (`at`), the
/// tooltips by key frame (`[frame, player, text]`, with the bots' names), and how many frames
/// the record kept no view of (past its size cap: neither they nor any after are drawn).
pub fn frames_json(rec: &GameRecord, log: &SdkLog) -> Value {
    let drawn = log
        .frames
        .iter()
        .position(|f| f.view.is_empty())
        .unwrap_or(log.frames.len());
    let (mut views, mut at) = (Vec::new(), Vec::new());
    let mut key_of = Vec::with_capacity(drawn);
    for f in &log.frames[..drawn] {
        if f.view.starts_with("KEY_FRAME") {
            views.push(f.view.as_str());
            at.push(f.answer + f.forfeits);
        }
        // An intermediate frame belongs to the key frame after it (as CodinGame groups them).
        key_of.push(views.len());
    }
    let last = views.len().saturating_sub(1);
    let tips: Vec<Value> = log.frames[..drawn]
        .iter()
        .enumerate()
        .flat_map(|(i, f)| {
            let key = if f.view.starts_with("KEY_FRAME") {
                key_of[i] - 1
            } else {
                key_of[i].min(last)
            };
            f.tooltips
                .iter()
                .map(move |(seat, text)| json!([key, seat, with_names(text, &rec.bots)]))
        })
        .collect();
    json!({
        "frames": views,
        "at": at,
        "tips": tips,
        "cut": log.frames.len() - drawn,
    })
}

#[cfg(test)]
mod tests;
