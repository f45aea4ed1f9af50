//! `arbiter league`: serve a league folder, add or remove its bots (through the running server
//! when there is one, else in the folder), print a running league's standings.

use crate::cli::{LeagueAddArgs, LeagueArgs, LeagueCommand, LeagueRemoveArgs, LeagueServeArgs};
use anyhow::{bail, Context, Result};
use arbiter::league::{self, client, folder};
use std::process::ExitCode;
use std::time::Duration;

/// How long the server may take to build and check added bots.
const BUILD_WAIT: Duration = Duration::from_secs(900);

pub fn run(args: LeagueArgs) -> Result<ExitCode> {
    match args.command {
        LeagueCommand::Serve(a) => serve(*a),
        LeagueCommand::Add(a) => add(a),
        LeagueCommand::Remove(a) => remove(a),
        LeagueCommand::Status(a) => status(&a.league),
        LeagueCommand::Token(a) => super::league_work::token(a),
        LeagueCommand::Work(a) => super::league_work::work(a),
        LeagueCommand::Slurm(a) => super::league_slurm::run(a),
    }
}

fn serve(args: LeagueServeArgs) -> Result<ExitCode> {
    args.game.build.apply();
    let dir = &args.dir;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let dir = dir
        .canonicalize()
        .with_context(|| format!("finding {}", dir.display()))?;
    let _lock = arbiter::results::lock::FolderLock::acquire(&dir)?;
    let wanted = args.game.settings();
    let settings = match folder::load_settings(&dir)? {
        Some(old) => {
            let asked = args.game.game.is_some() || args.game.referee.is_some();
            if asked && old.game != wanted {
                let changed = arbiter::engine::settings::changed(&old.game, &wanted)?;
                bail!(
                    "{} is a league of other settings ({}); start it without game options to go \
                     on with its own, or choose a new folder",
                    dir.display(),
                    changed.join(", ")
                );
            }
            old
        }
        None => {
            args.game.check_run(0, None)?;
            let s = folder::LeagueSettings {
                seed: args.seed.unwrap_or_else(arbiter::engine::start::fresh_seed),
                workdir: std::env::current_dir()?,
                game: wanted,
                matchmaking: Default::default(),
                upload: Default::default(),
            };
            folder::save_settings(&dir, &s)?;
            s
        }
    };
    if !args.bots.is_empty() {
        let workdir = std::env::current_dir()?;
        let mut bots = folder::load_bots(&dir)?;
        for origin in &args.bots {
            let name = league::play::name_of(origin, &workdir).map_err(anyhow::Error::msg)?;
            folder::upsert(&mut bots, entry(name, origin, &workdir, None));
        }
        folder::save_bots(&dir, &bots)?;
    }
    let workers = args
        .local_workers
        .unwrap_or_else(|| arbiter::tournament::runner::allowed_cpus().len().max(1));
    let listen = args.listen.unwrap_or(std::net::SocketAddr::from((
        [127, 0, 0, 1],
        league::DEFAULT_PORT,
    )));
    crate::commands::set_stop_hint(format!(
        "go on with: arbiter league serve {}",
        dir.display()
    ));
    league::serve(dir, settings, listen, workers)?;
    Ok(ExitCode::SUCCESS)
}

fn entry(
    name: String,
    origin: &str,
    workdir: &std::path::Path,
    candidate_of: Option<String>,
) -> folder::BotEntry {
    folder::BotEntry {
        name,
        origin: origin.to_string(),
        workdir: workdir.to_path_buf(),
        removed: false,
        candidate_of,
    }
}

/// The URL of the league's running server, if one answers.
fn running(dir: &std::path::Path) -> Option<String> {
    let note = folder::read_server(dir)?;
    client::request(
        &note.url,
        "GET",
        "/api/standings",
        None,
        None,
        Duration::from_secs(5),
    )
    .ok()
    .map(|_| note.url)
}

fn add(args: LeagueAddArgs) -> Result<ExitCode> {
    if let Some(url) = args
        .dir
        .to_str()
        .filter(|d| d.starts_with("http://") || d.starts_with("https://"))
    {
        return upload(url, &args);
    }
    let dir = &args.dir;
    if folder::load_settings(dir)?.is_none() {
        return Err(folder::FolderError::NoLeague { dir: dir.clone() }.into());
    }
    let workdir = std::env::current_dir()?;
    if args.candidate.is_some() && args.bots.len() != 1 {
        bail!("--candidate tests one new bot: give one BOT");
    }
    if let Some(url) = running(dir) {
        let token = folder::admin_token(dir)?;
        let body = serde_json::json!({
            "bots": args.bots,
            "workdir": workdir,
            "candidate_of": args.candidate,
        });
        eprintln!(
            "arbiter: the league at {url} builds and checks {} (a build may take a minute)",
            args.bots.join(", ")
        );
        let answer = client::request(
            &url,
            "POST",
            "/api/bots",
            Some(&token),
            Some(&body.to_string()),
            BUILD_WAIT,
        )?;
        let failed = tell_added(&answer, &url)?;
        return Ok(if failed {
            ExitCode::from(super::ERROR_EXIT)
        } else {
            ExitCode::SUCCESS
        });
    }
    let _lock = arbiter::results::lock::FolderLock::acquire(dir)?;
    let mut bots = folder::load_bots(dir)?;
    for origin in &args.bots {
        let name = league::play::name_of(origin, &workdir).map_err(anyhow::Error::msg)?;
        println!(
            "added {name} to {} (no server runs: it is built and checked when the league starts)",
            dir.display()
        );
        folder::upsert(
            &mut bots,
            entry(name, origin, &workdir, args.candidate.clone()),
        );
    }
    folder::save_bots(dir, &bots)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints what the server said of each bot added; whether any cannot play.
fn tell_added(answer: &str, url: &str) -> Result<bool> {
    let answer: serde_json::Value = serde_json::from_str(answer)?;
    let mut failed = false;
    for a in answer["added"].as_array().into_iter().flatten() {
        if a["ok"].as_bool() == Some(true) {
            println!(
                "added {} to the league at {url}",
                a["name"].as_str().unwrap_or("?")
            );
        } else {
            failed = true;
            eprintln!(
                "arbiter: error: a bot cannot play: {}",
                arbiter::protocol::printable_lines(a["problem"].as_str().unwrap_or("?"))
            );
        }
    }
    Ok(failed)
}

/// `league add URL BOT... --token T`: uploads each bot's source file or folder to the league
/// at URL, which builds, checks and plays it as `league add` on its own machine does.
fn upload(url: &str, args: &LeagueAddArgs) -> Result<ExitCode> {
    let Some(token) = &args.token else {
        bail!(
            "adding bots to the league at {url} uploads them, which needs its admin token: give \
             --token T (the admin-token file in the league's folder on the server)"
        );
    };
    if args.candidate.is_some() && args.bots.len() != 1 {
        bail!("--candidate tests one new bot: give one BOT");
    }
    let workdir = std::env::current_dir()?;
    let mut failed = false;
    for origin in &args.bots {
        let (name, path) = upload_source(origin, &workdir)?;
        let mut query = Vec::new();
        let bytes = if path.is_dir() {
            league::upload::pack_folder(&path)
                .with_context(|| format!("packing the folder {}", path.display()))?
        } else {
            let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
            query.push(format!("file={}", percent(&file.unwrap_or_default())));
            std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?
        };
        if let Some(old) = &args.candidate {
            query.push(format!("candidate={}", percent(old)));
        }
        let mut path = format!("/api/bots/{}", percent(&name));
        if !query.is_empty() {
            path += &format!("?{}", query.join("&"));
        }
        eprintln!(
            "arbiter: uploading {name}; the league at {url} then builds and checks it (a build \
             may take a minute)"
        );
        let answer = client::upload(url, &path, token, &bytes, BUILD_WAIT)
            .with_context(|| format!("uploading bot {name}"))?;
        failed |= tell_added(&answer, url)?;
    }
    Ok(if failed {
        ExitCode::from(super::ERROR_EXIT)
    } else {
        ExitCode::SUCCESS
    })
}

/// The name and the file or folder of a BOT argument to upload (`PATH` or `NAME=PATH`).
fn upload_source(origin: &str, workdir: &std::path::Path) -> Result<(String, std::path::PathBuf)> {
    let path = workdir.join(origin);
    if path.exists() {
        let name = league::play::name_of(origin, workdir).map_err(anyhow::Error::msg)?;
        return Ok((name, path));
    }
    if let Some((name, rest)) = origin.split_once('=') {
        if workdir.join(rest).exists() {
            return Ok((name.to_string(), workdir.join(rest)));
        }
    }
    bail!(
        "{origin} is neither a file nor a folder here: a league on another machine takes a \
         bot's source file or folder, uploaded (a command such as \"python3 bot.py\" runs on the \
         server's machine only: give the file bot.py)"
    )
}

fn remove(args: LeagueRemoveArgs) -> Result<ExitCode> {
    let dir = &args.dir;
    if folder::load_settings(dir)?.is_none() {
        return Err(folder::FolderError::NoLeague { dir: dir.clone() }.into());
    }
    if let Some(url) = running(dir) {
        let token = folder::admin_token(dir)?;
        let path = format!("/api/bots/{}", percent(&args.name));
        client::request(&url, "DELETE", &path, Some(&token), None, BUILD_WAIT)?;
        println!("removed {} from the league at {url}", args.name);
        return Ok(ExitCode::SUCCESS);
    }
    let _lock = arbiter::results::lock::FolderLock::acquire(dir)?;
    let mut bots = folder::load_bots(dir)?;
    let Some(b) = bots.iter_mut().find(|b| b.name == args.name) else {
        let names: Vec<&str> = bots.iter().map(|b| b.name.as_str()).collect();
        bail!(
            "no bot named '{}' in {}; its bots: {}",
            args.name,
            dir.display(),
            names.join(", ")
        );
    };
    b.removed = true;
    folder::save_bots(dir, &bots)?;
    println!("removed {} from {}", args.name, dir.display());
    Ok(ExitCode::SUCCESS)
}

/// A bot name as one URL path segment.
fn percent(name: &str) -> String {
    name.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn status(league_arg: &str) -> Result<ExitCode> {
    let url = if league_arg.starts_with("http://") {
        league_arg.to_string()
    } else {
        let dir = std::path::Path::new(league_arg);
        match folder::read_server(dir) {
            Some(note) => note.url,
            None => bail!(
                "{league_arg} is not a URL, nor a league folder whose server runs: give \
                 http://HOST:PORT, or start it with `arbiter league serve {league_arg}`"
            ),
        }
    };
    let body = client::request(
        &url,
        "GET",
        "/api/standings",
        None,
        None,
        Duration::from_secs(30),
    )?;
    let table: serde_json::Value = serde_json::from_str(&body)?;
    let mut out = std::io::stdout().lock();
    use std::io::Write;
    writeln!(out, "{} games rated ({url})", table["games"])?;
    writeln!(
        out,
        "{:>3}  {:<24} {:>7}  {:>15}  {:>6}  {:>13}  status",
        "#", "bot", "rating", "95% interval", "games", "W/D/L"
    )?;
    let elo = |v: &serde_json::Value| v.as_f64().map_or("-".to_string(), |x| format!("{x:+.0}"));
    for (i, b) in table["bots"].as_array().into_iter().flatten().enumerate() {
        let name = arbiter::protocol::printable_lines(b["name"].as_str().unwrap_or("?"));
        writeln!(
            out,
            "{:>3}  {:<24} {:>7}  {:>15}  {:>6}  {:>13}  {}",
            i + 1,
            name,
            elo(&b["rating"]),
            format!("{} .. {}", elo(&b["low"]), elo(&b["high"])),
            b["games"].to_string(),
            format!("{}/{}/{}", b["wins"], b["draws"], b["losses"]),
            arbiter::protocol::printable_lines(b["status"].as_str().unwrap_or("")),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
