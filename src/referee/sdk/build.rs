//! Makes a CodinGame SDK game runnable from what the user names with `--referee`: its source
//! folder (a Maven project: `pom.xml`, `src/main/java`, maybe `src/main/resources`), a built jar,
//! or a class path. Contest repositories are built with Maven against Maven Central; arbiter
//! builds them without either: the game is compiled with `javac` against the engine version its
//! `pom.xml` names (`<gamengine.version>`: a game compiled against another version may not
//! compile or may play differently), and the engine itself is compiled from a clone of
//! codingame-game-engine (`--codingame-engine DIR` or `ARBITER_CODINGAME_ENGINE`: a clone, or a
//! git bundle of one) against Debian's jars of its dependencies (see `jars`).
//!
//! A game's source is someone else's code: like a bot's, it is compiled in the build box
//! ([`crate::bot::build_box`]: unprivileged, offline, only the system folders and its own copy
//! visible) unless the user trusts the builds (`--trust-builds`), in a stage folder moved into
//! the build cache when it succeeded. Both builds are cached: the engine per version
//! (`sdk-engine-VERSION`), the game by the content of its folder (`sdk-game-HASH`). Each game
//! folder in the cache holds everything the referee runs from (its classes, a copy of the
//! engine's jar, arbiter's launcher), so the referee's sandbox needs only that folder and the
//! system's.
//!
//! This is the one part of `referee/` that writes files (the build cache), and why it is here
//! rather than beside the bots' builds in `bot/` is said in the referee's module doc.
//!
//! Known compile failures of official games (see `quirks`) are explained in the error, never
//! patched silently: the game that plays is the one its authors wrote.

mod announce;
mod engine;
mod jars;
mod prebuilt;
mod quirks;
mod steps;

pub use announce::{set_announce, BuildNote};
pub use engine::{engine_origin, set_engine, ENGINE_ENV};
pub use jars::{debian_jars, DebianJar, DEBIAN_JARS};

use crate::bot::build_box::{self, BoxError, BuildStage};
use crate::bot::host::cache_root;
use crate::bot::source::hash_hex;
use std::path::{Path, PathBuf};

/// Bumped whenever the way a game or its run folder is built changes in a way its inputs do not
/// show, so that every cached game is built again.
const GAME_RECIPE: &str = "arbiter-sdk-game-2";

use super::REFEREE_MAIN;

/// An SDK game ready to run: its run folder in the build cache and its class path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltGame {
    /// The folder the referee runs in: everything of the class path that is not a system jar.
    pub dir: PathBuf,
    /// The class path, in order: the game's classes, the engine, Debian's jars.
    pub classpath: Vec<PathBuf>,
    /// The class to start ([`REFEREE_MAIN`]).
    pub main_class: String,
    /// The engine version the game was compiled against (`None` for a jar or class path given
    /// built).
    pub engine_version: Option<String>,
}

/// What `--referee` names, for an SDK game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SdkSource {
    /// A source folder: `pom.xml` and `src/main/java`.
    Folder(PathBuf),
    /// A built jar (a fat jar with the engine, or the game's classes alone).
    Jar(PathBuf),
    /// A class path (`:`-separated jars and class folders).
    ClassPath(Vec<PathBuf>),
}

/// Why an SDK game cannot be made runnable. Each names what is missing and how to get it.
#[derive(Debug, thiserror::Error)]
pub enum SdkBuildError {
    #[error("SDK game {folder}: cannot read {path}: {source}")]
    Read {
        folder: PathBuf,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("SDK game {folder}: its pom.xml names no engine version (no <gamengine.version> property and no com.codingame.gameengine dependency with a <version>); arbiter compiles a game against the engine version its pom.xml names: add <gamengine.version>X.Y.Z</gamengine.version> to its <properties>")]
    NoEngineVersion { folder: PathBuf },
    #[error("SDK game {folder}: its pom.xml names engine version '{version}', which is not a version number (expected digits and dots, as 4.5.0)")]
    BadEngineVersion { folder: PathBuf, version: String },
    #[error("the CodinGame SDK game needs the source of the game engine (codingame-game-engine) version {version} to build, and none was given: clone it (git clone https://github.com/CodinGame/codingame-game-engine) and name the clone with {} DIR or the environment variable {ENGINE_ENV}", crate::options::Opt::CodingameEngine)]
    NoEngine { version: String },
    #[error("the engine source {path} (from {given_by}) is neither a git clone of codingame-game-engine nor a git bundle of one: {problem}; clone it (git clone https://github.com/CodinGame/codingame-game-engine) and name the clone")]
    BadEngine {
        path: PathBuf,
        given_by: String,
        problem: String,
    },
    #[error("the engine clone {path} has no tag for version {version} (looked for {tried}); the game's pom.xml names that version: update the clone (git -C {path} fetch --tags) or check the version in the game's pom.xml")]
    NoEngineTag {
        path: PathBuf,
        version: String,
        tried: String,
    },
    #[error("`{program}` is needed to {purpose}, and is not in the system folders ({}); install it (Debian/Ubuntu: apt-get install {package})", build_box::SYSTEM_PATH)]
    MissingTool {
        program: &'static str,
        purpose: &'static str,
        package: &'static str,
    },
    #[error("the CodinGame engine is compiled against Debian's jars of its dependencies, and {path} is missing; install it (Debian/Ubuntu: apt-get install {package})")]
    MissingJar {
        path: PathBuf,
        package: &'static str,
    },
    #[error(
        "the CodinGame engine {version} does not build: `{command}` failed ({status}):\n{output}"
    )]
    EngineCompile {
        version: String,
        command: String,
        status: String,
        output: String,
    },
    #[error(
        "SDK game {} does not build against engine {}: `{}` failed ({}):\n{}{}",
        .0.folder.display(), .0.version, .0.command, .0.status, .0.output, .0.hint
    )]
    GameCompile(Box<GameCompileFailure>),
    #[error("the built SDK game {} holds no CodinGame engine ({REFEREE_MAIN} is in none of it); give a fat jar (with its dependencies, as the SDK's Maven build makes), add the engine's jar to the class path, or give the game's source folder (pom.xml and src/main/java) for arbiter to build", prebuilt::join_paths(given))]
    NoEngineInJar { given: Vec<PathBuf> },
    #[error("cannot use the build cache {path}: {source}")]
    Cache {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the SDK game cannot be built: {0}")]
    Box(#[from] BoxError),
    #[error("`{command}` could not be run: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
}

/// A game's failed compile, for [`SdkBuildError::GameCompile`].
#[derive(Debug)]
pub struct GameCompileFailure {
    pub folder: PathBuf,
    pub version: String,
    pub command: String,
    pub status: String,
    /// The compiler's output, cut.
    pub output: String,
    /// What is known of this failure (a quirk of an official game), or nothing.
    pub hint: String,
}

/// Where a build runs: in the build box, or (the user trusts the builds) as the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boxing {
    Boxed,
    Trusted,
}

impl Boxing {
    /// The boxing `--trust-builds` asks for (see [`crate::bot::build::trusts_build`]).
    pub fn for_folder(dir: &Path) -> Boxing {
        if crate::bot::build::trusts_build(dir) {
            Boxing::Trusted
        } else {
            Boxing::Boxed
        }
    }
}

/// Makes `source` runnable: builds it (and its engine) if it is a source folder, or copies the
/// jar or class path into a run folder; cached (see the module documentation). `engine` is
/// `--codingame-engine`, else [`ENGINE_ENV`] is read.
pub fn build(source: &SdkSource, engine: Option<&Path>) -> Result<BuiltGame, SdkBuildError> {
    let boxing = match source {
        SdkSource::Folder(dir) => Boxing::for_folder(dir),
        _ => Boxing::Boxed,
    };
    build_in(&cache_root(), source, engine_origin(engine), boxing)
}

/// [`build`] with the cache in `root`, the engine source `engine` (a clone or bundle, and what
/// named it) and the boxing given.
pub fn build_in(
    root: &Path,
    source: &SdkSource,
    engine: Option<(PathBuf, String)>,
    boxing: Boxing,
) -> Result<BuiltGame, SdkBuildError> {
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    match source {
        SdkSource::Folder(folder) => build_folder(&root, folder, engine, boxing),
        SdkSource::Jar(jar) => prebuilt::prebuilt(&root, std::slice::from_ref(jar)),
        SdkSource::ClassPath(parts) => prebuilt::prebuilt(&root, parts),
    }
}

/// The engine version `pom.xml` names: the `gamengine.version` property, else the version of a
/// `com.codingame.gameengine` dependency (when it is a number, not a property).
pub fn engine_version(pom: &str) -> Option<String> {
    let inner = |text: &str, tag: &str| -> Option<String> {
        let open = format!("<{tag}>");
        let start = text.find(&open)? + open.len();
        let end = text[start..].find(&format!("</{tag}>"))? + start;
        Some(text[start..end].trim().to_string())
    };
    if let Some(v) = inner(pom, "gamengine.version") {
        return Some(v);
    }
    // <dependency><groupId>com.codingame.gameengine</groupId>...<version>4.5.0</version>
    pom.split("<dependency>")
        .skip(1)
        .filter_map(|d| d.split("</dependency>").next())
        .filter(|d| inner(d, "groupId").as_deref() == Some("com.codingame.gameengine"))
        .filter_map(|d| inner(d, "version"))
        .find(|v| !v.starts_with("${"))
}

/// Whether `version` is digits and dots (what the engine's tags are made of).
fn plain_version(version: &str) -> bool {
    !version.is_empty()
        && version
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The files of `dir` below it, relative, sorted; `keep` picks which.
pub(super) fn files_under(
    dir: &Path,
    keep: &dyn Fn(&Path) -> bool,
) -> std::io::Result<Vec<PathBuf>> {
    fn walk(
        root: &Path,
        dir: &Path,
        keep: &dyn Fn(&Path) -> bool,
        out: &mut Vec<PathBuf>,
    ) -> std::io::Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let path = e.path();
            let meta = std::fs::symlink_metadata(&path)?;
            if meta.is_dir() {
                walk(root, &path, keep, out)?;
            } else if meta.is_file() && keep(&path) {
                out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, keep, &mut out)?;
    Ok(out)
}

/// The bytes that name a source folder's build: its `pom.xml` and everything under `src/main`
/// (paths and contents, sorted), after the recipe, the engine version and the launcher.
fn folder_key(folder: &Path, version: &str) -> std::io::Result<Vec<u8>> {
    let mut key = Vec::new();
    for part in [GAME_RECIPE, version, super::launcher::SOURCE_HASH_INPUT] {
        key.extend_from_slice(part.as_bytes());
        key.push(0);
    }
    key.extend_from_slice(&std::fs::read(folder.join("pom.xml"))?);
    key.push(0);
    let main = folder.join("src/main");
    for rel in files_under(&main, &|_| true)? {
        key.extend_from_slice(rel.as_os_str().as_encoded_bytes());
        key.push(0);
        key.extend_from_slice(&std::fs::read(main.join(&rel))?);
        key.push(0);
    }
    Ok(key)
}

/// Builds the source folder `folder` (see the module documentation).
fn build_folder(
    root: &Path,
    folder: &Path,
    engine: Option<(PathBuf, String)>,
    boxing: Boxing,
) -> Result<BuiltGame, SdkBuildError> {
    let read_err = |path: &Path| {
        let folder = folder.to_path_buf();
        let path = path.to_path_buf();
        move |source| SdkBuildError::Read {
            folder,
            path,
            source,
        }
    };
    let pom_path = folder.join("pom.xml");
    let pom = std::fs::read_to_string(&pom_path).map_err(read_err(&pom_path))?;
    let version = engine_version(&pom).ok_or_else(|| SdkBuildError::NoEngineVersion {
        folder: folder.to_path_buf(),
    })?;
    if !plain_version(&version) {
        return Err(SdkBuildError::BadEngineVersion {
            folder: folder.to_path_buf(),
            version,
        });
    }
    let key = folder_key(folder, &version).map_err(read_err(folder))?;
    let dest = root.join(format!("sdk-game-{}", &hash_hex(&key)[..32]));
    if !dest.is_dir() {
        // Tens of seconds the first time (the engine too, once per version): told, as bot
        // builds are, so that the wait before the first game is not silent.
        let name = std::path::absolute(folder)
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| folder.display().to_string());
        let how = "javac, first time; cached after";
        announce::announce(&BuildNote::Building { name: &name, how });
        let started = std::time::Instant::now();
        let built = engine::built(root, &version, engine, boxing).and_then(|engine_jar| {
            let jars = jars::debian_jars()?;
            compile_game(root, folder, &version, &engine_jar, &jars, boxing, &dest)
        });
        let (took, ok) = (started.elapsed(), built.is_ok());
        announce::announce(&BuildNote::Built {
            name: &name,
            took,
            ok,
        });
        built?;
    }
    Ok(run_folder(dest, Some(version)))
}

/// Compiles the game of `folder` against `engine_jar` into the cache folder `dest`.
fn compile_game(
    root: &Path,
    folder: &Path,
    version: &str,
    engine_jar: &Path,
    jars: &[PathBuf],
    boxing: Boxing,
    dest: &Path,
) -> Result<(), SdkBuildError> {
    let cache_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SdkBuildError::Cache { path, source }
    };
    std::fs::create_dir_all(root).map_err(cache_err(root))?;
    let stage = BuildStage::new().map_err(cache_err(&std::env::temp_dir()))?;
    let work = stage.dir();
    // The game's own files, read as the user could (its pom and src/main, nothing else).
    let main = folder.join("src/main");
    let copy_err = |path: &Path| {
        let folder = folder.to_path_buf();
        let path = path.to_path_buf();
        move |source| SdkBuildError::Read {
            folder,
            path,
            source,
        }
    };
    for rel in files_under(&main, &|_| true).map_err(copy_err(&main))? {
        let to = work.join("src/main").join(&rel);
        std::fs::create_dir_all(to.parent().unwrap_or(work)).map_err(cache_err(&to))?;
        std::fs::copy(main.join(&rel), &to).map_err(copy_err(&main.join(&rel)))?;
    }
    std::fs::copy(engine_jar, work.join(engine::JAR)).map_err(cache_err(engine_jar))?;
    super::launcher::write_source(work).map_err(cache_err(work))?;
    let java_dir = work.join("src/main/java");
    let sources = files_under(&java_dir, &|p| p.extension().is_some_and(|e| e == "java"))
        .map_err(copy_err(&java_dir))?;
    let list: String = sources
        .iter()
        .map(|p| format!("src/main/java/{}\n", p.display()))
        .collect();
    std::fs::write(work.join("sources.txt"), list).map_err(cache_err(work))?;
    let compile_cp = std::iter::once(PathBuf::from(engine::JAR))
        .chain(jars.iter().cloned())
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    let mut all = vec![
        steps::javac(&compile_cp, "classes", "@sources.txt"),
        // arbiter's launcher (the warm JVM), compiled beside the game: see `super::launcher`.
        steps::javac(&compile_cp, "launcher", super::launcher::SOURCE_FILE),
    ];
    if work.join("src/main/resources").is_dir() {
        // Resources beside the classes, as Maven's jar has them.
        all.push(steps::words(&[
            "cp",
            "-R",
            "src/main/resources/.",
            "classes/",
        ]));
    }
    let mut log = String::new();
    for step in &all {
        let outcome = steps::run(step, work, boxing)?;
        log.push_str(&format!("$ {}\n{}", step.join(" "), outcome.output));
        if !outcome.success {
            let hint = quirks::explain(&outcome.output);
            return Err(SdkBuildError::GameCompile(Box::new(GameCompileFailure {
                folder: folder.to_path_buf(),
                version: version.to_string(),
                command: step.join(" "),
                status: outcome.status,
                output: steps::clip(&outcome.output),
                hint,
            })));
        }
    }
    for leftover in ["src", "sources.txt", super::launcher::SOURCE_FILE] {
        let path = work.join(leftover);
        let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
    }
    build_box::write_own_file(work, "build.log", log.as_bytes()).map_err(cache_err(work))?;
    // The game's name, for a class path into this folder given later (not `sdk-game-HASH`).
    let name = std::path::absolute(folder)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "sdk-game".into());
    build_box::write_own_file(work, super::NAME_FILE, name.as_bytes()).map_err(cache_err(work))?;
    stage.install(dest)?;
    Ok(())
}

/// The run folder `dir` as a [`BuiltGame`]: its game classes (a `classes` folder, else its
/// jars in `lib`, sorted), the engine's jar when it holds one, Debian's jars.
fn run_folder(dir: PathBuf, engine_version: Option<String>) -> BuiltGame {
    let mut classpath = Vec::new();
    if dir.join("classes").is_dir() {
        classpath.push(dir.join("classes"));
    }
    let lib = dir.join("lib");
    if let Ok(entries) = std::fs::read_dir(&lib) {
        let mut parts: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        parts.sort();
        classpath.extend(parts);
    }
    if dir.join(engine::JAR).is_file() {
        classpath.push(dir.join(engine::JAR));
    }
    classpath.extend(DEBIAN_JARS.iter().map(|j| PathBuf::from(j.path)));
    BuiltGame {
        dir,
        classpath,
        main_class: REFEREE_MAIN.to_string(),
        engine_version,
    }
}

#[cfg(test)]
pub(crate) mod tests;
