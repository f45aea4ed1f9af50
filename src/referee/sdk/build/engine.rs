//! The CodinGame engine a game is compiled against, built once per version: its source is taken
//! from a clone of codingame-game-engine (or a git bundle of one) at the tag of the version the
//! game's `pom.xml` names, unpacked and compiled in the build box (the engine's `core` and its
//! modules: everything a referee loads; never its `runner`, which needs undertow), and kept in
//! the cache as one jar, `sdk-engine-VERSION/engine.jar`. The jar also holds the engine's viewer
//! under `view/`, as Maven's jars of the engine do: the core's and the modules'
//! `src/main/resources/view/`, and the runner's PIXI libraries (`view/lib/pixi*.js`), so that a
//! game's class path holds everything its replays draw it with ([`crate::referee::sdk::view`]).

use super::steps;
use super::{Boxing, SdkBuildError};
use crate::bot::build_box::{self, BuildStage};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable that names the engine's clone when `--codingame-engine` is not given.
pub const ENGINE_ENV: &str = "ARBITER_CODINGAME_ENGINE";

/// The engine's jar, in an engine's cache folder and in every game's run folder.
pub const JAR: &str = "engine.jar";

/// Bumped when the engine's recipe changes, to build every cached engine again.
const ENGINE_RECIPE: &str = "2";

/// The folders of the engine's source that a referee needs (those that exist at a tag).
const PARTS: [&str; 3] = ["engine/core", "engine/modules", "engine/community-modules"];

/// The runner's libraries, whose PIXI (`pixi4.js` to `pixi6.js`, as the engine's `Drawer`
/// requires) the viewer loads.
const RUNNER_LIB: &str = "runner/src/main/resources/view/lib";

/// `--codingame-engine` of this run (set once from the command line: builds start deep in the
/// resolution of the game, far from the options).
static FLAG: std::sync::RwLock<Option<PathBuf>> = std::sync::RwLock::new(None);

/// Sets `--codingame-engine` for every SDK build of this run.
pub fn set_engine(dir: Option<PathBuf>) {
    *FLAG.write().unwrap_or_else(|e| e.into_inner()) = dir;
}

/// Where the engine's source comes from: `flag`, else `--codingame-engine` ([`set_engine`]),
/// else [`ENGINE_ENV`]; with what named it, for messages.
pub fn engine_origin(flag: Option<&Path>) -> Option<(PathBuf, String)> {
    let set = FLAG.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(dir) = flag.map(Path::to_path_buf).or(set) {
        return Some((dir, crate::options::Opt::CodingameEngine.to_string()));
    }
    std::env::var_os(ENGINE_ENV)
        .filter(|v| !v.is_empty())
        .map(|v| (PathBuf::from(v), ENGINE_ENV.to_string()))
}

/// The engine `version`'s jar in the cache `root`, built from `origin` if it is not there yet.
pub fn built(
    root: &Path,
    version: &str,
    origin: Option<(PathBuf, String)>,
    boxing: Boxing,
) -> Result<PathBuf, SdkBuildError> {
    let dest = root.join(format!("sdk-engine-{version}-r{ENGINE_RECIPE}"));
    let jar = dest.join(JAR);
    if jar.is_file() {
        return Ok(jar);
    }
    let (path, given_by) = origin.ok_or_else(|| SdkBuildError::NoEngine {
        version: version.to_string(),
    })?;
    let jars = super::jars::debian_jars()?;
    let cache_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SdkBuildError::Cache { path, source }
    };
    std::fs::create_dir_all(root).map_err(cache_err(root))?;
    let stage = BuildStage::new().map_err(cache_err(&std::env::temp_dir()))?;
    let work = stage.dir();
    archive(&path, &given_by, version, &work.join("engine.tar"))?;
    // A bundle's bare clone, if one was made, is not for the box.
    let _ = std::fs::remove_dir_all(work.join("engine.git"));
    let log_step = |log: &mut String, step: &[String]| -> Result<(), SdkBuildError> {
        let outcome = steps::run(step, work, boxing)?;
        log.push_str(&format!("$ {}\n{}", step.join(" "), outcome.output));
        if outcome.success {
            return Ok(());
        }
        Err(SdkBuildError::EngineCompile {
            version: version.to_string(),
            command: step.join(" "),
            status: outcome.status,
            output: steps::clip(&outcome.output),
        })
    };
    let mut log = String::new();
    log_step(&mut log, &steps::words(&["tar", "-xf", "engine.tar"]))?;
    let _ = std::fs::remove_file(work.join("engine.tar"));
    let mut sources = Vec::new();
    for part in PARTS {
        let dir = work.join(part);
        if !dir.is_dir() {
            continue;
        }
        let java = |p: &Path| {
            p.extension().is_some_and(|e| e == "java")
                && p.components().any(|c| c.as_os_str() == "main")
        };
        for rel in super::files_under(&dir, &java).map_err(cache_err(&dir))? {
            sources.push(format!("{part}/{}\n", rel.display()));
        }
    }
    std::fs::write(work.join("sources.txt"), sources.concat()).map_err(cache_err(work))?;
    let cp = jars
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    log_step(&mut log, &steps::javac(&cp, "classes", "@sources.txt"))?;
    for step in view_steps(work).map_err(cache_err(work))? {
        log_step(&mut log, &step)?;
    }
    log_step(
        &mut log,
        &steps::words(&["jar", "cf", JAR, "-C", "classes", "."]),
    )?;
    for leftover in ["engine", "runner", "classes", "sources.txt"] {
        let path = work.join(leftover);
        let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
    }
    build_box::write_own_file(work, "build.log", log.as_bytes()).map_err(cache_err(work))?;
    stage.install(&dest)?;
    Ok(jar)
}

/// The steps that copy the engine's viewer (unpacked in `work`) into `classes/view/`: each
/// part's `src/main/resources/view/` (the core's, every module's) and the runner's PIXI
/// libraries, as Maven puts them in the engine's jars.
fn view_steps(work: &Path) -> std::io::Result<Vec<Vec<String>>> {
    let mut views = Vec::new();
    let resources = |dir: &Path| dir.join("src/main/resources/view");
    for part in PARTS {
        let dir = work.join(part);
        if part.ends_with("core") {
            views.push(resources(&dir));
        } else if dir.is_dir() {
            let mut modules: Vec<PathBuf> = std::fs::read_dir(&dir)?
                .map(|e| e.map(|e| resources(&e.path())))
                .collect::<Result<_, _>>()?;
            modules.sort();
            views.extend(modules);
        }
    }
    let mut steps = vec![steps::words(&["mkdir", "-p", "classes/view/lib"])];
    for view in views.iter().filter(|v| v.is_dir()) {
        let from = format!("{}/.", view.strip_prefix(work).unwrap_or(view).display());
        steps.push(steps::words(&["cp", "-R", &from, "classes/view/"]));
    }
    let lib = work.join(RUNNER_LIB);
    if lib.is_dir() {
        let mut pixi: Vec<String> = std::fs::read_dir(&lib)?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with("pixi") && n.ends_with(".js"))
            .map(|n| format!("{RUNNER_LIB}/{n}"))
            .collect();
        if !pixi.is_empty() {
            pixi.sort();
            let mut cp = vec!["cp".to_string()];
            cp.extend(pixi);
            cp.push("classes/view/lib/".into());
            steps.push(cp);
        }
    }
    Ok(steps)
}

/// Writes the engine's source at `version` (the parts a referee needs) from the clone or
/// bundle `path` as a tar file `to`. A bundle is cloned (bare) beside `to` first.
fn archive(path: &Path, given_by: &str, version: &str, to: &Path) -> Result<(), SdkBuildError> {
    let bad = |problem: String| SdkBuildError::BadEngine {
        path: path.to_path_buf(),
        given_by: given_by.to_string(),
        problem,
    };
    if build_box::find_system_program("git").is_none() {
        return Err(SdkBuildError::MissingTool {
            program: "git",
            purpose: "take the engine's source from its clone",
            package: "git",
        });
    }
    let bare;
    let repo = if path.is_file() {
        // A bundle (git bundle create ... --all): cloned once for this build.
        bare = to.with_extension("git");
        let out = git(None, &["clone", "--quiet", "--bare"], &[path, &bare])?;
        if !out.status.success() {
            return Err(bad(format!(
                "git clone of the bundle failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        bare.as_path()
    } else if path.is_dir() {
        path
    } else {
        return Err(bad("no such file or folder".into()));
    };
    let tags = [format!("v{version}"), version.to_string()];
    let tag = tags
        .iter()
        .find(|t| {
            let spec = format!("refs/tags/{t}^{{commit}}");
            git(
                Some(repo),
                &["rev-parse", "--verify", "--quiet", &spec],
                &[],
            )
            .is_ok_and(|o| o.status.success())
        })
        .ok_or_else(|| {
            let is_repo =
                git(Some(repo), &["rev-parse", "--git-dir"], &[]).is_ok_and(|o| o.status.success());
            if !is_repo {
                return bad("git does not know it as a repository".into());
            }
            SdkBuildError::NoEngineTag {
                path: path.to_path_buf(),
                version: version.to_string(),
                tried: tags.join(", "),
            }
        })?;
    // Only the parts that exist at that tag (community modules came later).
    let has = |part: &str| {
        git(
            Some(repo),
            &["ls-tree", "--name-only", tag, "--", part],
            &[],
        )
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty())
    };
    let parts: Vec<&Path> = PARTS
        .iter()
        .chain([&RUNNER_LIB])
        .filter(|p| has(p))
        .map(|p| Path::new(*p))
        .collect();
    if !parts.iter().any(|p| p.ends_with("core")) {
        return Err(bad(format!("its tag {tag} has no engine/core folder")));
    }
    let out_arg = format!("--output={}", to.display());
    let mut args = vec![
        "archive",
        "--format=tar",
        out_arg.as_str(),
        tag.as_str(),
        "--",
    ];
    let part_texts: Vec<String> = parts.iter().map(|p| p.display().to_string()).collect();
    args.extend(part_texts.iter().map(String::as_str));
    let out = git(Some(repo), &args, &[])?;
    if !out.status.success() {
        return Err(bad(format!(
            "git archive failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

/// Runs git (in `repo` when given) with `args` and then `paths`; its output.
fn git(
    repo: Option<&Path>,
    args: &[&str],
    paths: &[&Path],
) -> Result<std::process::Output, SdkBuildError> {
    let mut command = Command::new("git");
    // A clone owned by another user is still read (as root, git refuses it by default).
    command.args(["-c", "safe.directory=*"]);
    if let Some(repo) = repo {
        command.arg("-C").arg(repo);
    }
    command
        .args(args)
        .args(paths)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| SdkBuildError::Spawn {
            command: format!("git {}", args.join(" ")),
            source,
        })
}
