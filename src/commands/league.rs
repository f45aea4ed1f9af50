//! `arbiter league`: serve a league folder, add or remove its bots (through the running server
//! when there is one, else in the folder), print a running league's standings.

use crate::cli::{LeagueAddArgs, LeagueArgs, LeagueCommand, LeagueRemoveArgs, LeagueServeArgs};
use anyhow::{bail, Context, Result};
use arbiter::engine::settings::OpeningsSettings;
use arbiter::league::client::Client;
use arbiter::league::wire::{AddRequest, Added};
use arbiter::league::{self, folder, settings};
use std::process::ExitCode;
use std::time::Duration;

/// How long a connection to the league may take to open.
const CONNECT: Duration = Duration::from_secs(5);

pub fn run(args: LeagueArgs) -> Result<ExitCode> {
    match args.command {
        LeagueCommand::Serve(a) => serve(*a),
        LeagueCommand::Add(a) => add(a),
        LeagueCommand::Remove(a) => remove(a),
        LeagueCommand::Status(a) => status(&a.league),
        LeagueCommand::Token(a) => super::league_work::token(a),
        LeagueCommand::Author(a) => super::league_work::author(a),
        LeagueCommand::Work(a) => super::league_work::work(a),
        LeagueCommand::Slurm(a) => super::league_slurm::run(a),
    }
}

fn serve(args: LeagueServeArgs) -> Result<ExitCode> {
    args.game.build.apply();
    // The folder locked (made if new, and removed again if nothing is written into it), then
    // the port bound, before anything is written: a second server of the folder, or a taken
    // port, leaves the folder as it was.
    let lock = folder::lock(&args.dir)?;
    let dir = args
        .dir
        .canonicalize()
        .with_context(|| format!("finding {}", args.dir.display()))?;
    let listen = args.listen.unwrap_or(std::net::SocketAddr::from((
        [127, 0, 0, 1],
        league::DEFAULT_PORT,
    )));
    let bound = league::bind_port(listen)?;
    let (settings, new) = settings_of(&args, &dir)?;
    if new {
        folder::save_settings(&dir, &settings)?;
    }
    if !args.bots.is_empty() {
        let workdir = std::env::current_dir()?;
        let mut bots = folder::load_bots(&dir)?;
        for origin in &args.bots {
            let name = league::play::name_of(origin, &workdir).map_err(anyhow::Error::msg)?;
            folder::upsert(&mut bots, entry(name, origin, &workdir, None, None));
        }
        folder::save_bots(&dir, &bots)?;
    }
    let workers = args
        .local_workers
        .unwrap_or_else(|| arbiter::tournament::runner::allowed_cpus().len().max(1));
    crate::commands::set_stop_hint(format!(
        "go on with: arbiter league serve {}",
        dir.display()
    ));
    league::serve(bound, lock, dir, settings, workers)?;
    Ok(ExitCode::SUCCESS)
}

/// The league's settings and whether they are new: those recorded in `dir` (the options given
/// must agree with them: one that differs is refused, naming what differs), or new ones made
/// from the options.
fn settings_of(
    args: &LeagueServeArgs,
    dir: &std::path::Path,
) -> Result<(settings::LeagueSettings, bool)> {
    let o = &args.opening;
    let Some(old) = folder::load_settings(dir)? else {
        args.game.check_run(o.plies(), o.openings.as_deref())?;
        let game = args.game.settings();
        let openings =
            OpeningsSettings::of_run(o.openings.as_deref().map(book_path), o.order(), &game)?;
        let s = settings::LeagueSettings {
            seed: args.seed.unwrap_or_else(arbiter::engine::start::fresh_seed),
            workdir: std::env::current_dir()?,
            opening_plies: o.plies(),
            openings,
            game,
            matchmaking: Default::default(),
            upload: Default::default(),
            workers: Default::default(),
            http: Default::default(),
            page: Default::default(),
        };
        return Ok((s, true));
    };
    let mut asked = old.clone();
    if args.game.game.is_some() || args.game.referee.is_some() {
        asked.game = args.game.settings();
    }
    if let Some(seed) = args.seed {
        asked.seed = seed;
    }
    if let Some(plies) = o.opening_plies {
        asked.opening_plies = plies;
    }
    if o.openings.is_some() || o.openings_order.is_some() {
        let spec = match &o.openings {
            Some(book) => Some(book_path(book)),
            None => old.openings.openings.clone(),
        };
        let order = o.openings_order.unwrap_or(old.openings.openings_order);
        asked.openings = OpeningsSettings::of_run(spec, order, &asked.game)?;
    }
    if asked != old {
        let changed = arbiter::engine::settings::changed(&old, &asked)?;
        bail!(
            "{} is a league of other settings ({}); start it without these options to go on \
             with its own, or choose a new folder",
            dir.display(),
            changed.join(", ")
        );
    }
    Ok((old, false))
}

/// An opening book as the league records it: a file by its full path (the server may start
/// again from another folder), a built-in book by its name.
fn book_path(book: &str) -> String {
    let path = std::path::Path::new(book);
    match std::path::absolute(path) {
        Ok(full) if path.is_file() => full.to_string_lossy().into_owned(),
        _ => book.to_string(),
    }
}

fn entry(
    name: String,
    origin: &str,
    workdir: &std::path::Path,
    candidate_of: Option<String>,
    sprt: Option<league::sprt::Bounds>,
) -> folder::BotEntry {
    folder::BotEntry {
        name,
        origin: origin.to_string(),
        workdir: workdir.to_path_buf(),
        removed: false,
        candidate_of,
        sprt,
        suspended: None,
    }
}

/// The URL of the league's running server, if one answers.
fn running(dir: &std::path::Path) -> Option<String> {
    let note = folder::read_server(dir)?;
    let client = Client::new(&note.url, None, CONNECT).ok()?;
    client
        .waiting(Duration::from_secs(5))
        .standings()
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
        let ask = AddRequest {
            bots: args.bots.clone(),
            workdir,
            candidate_of: args.candidate.clone(),
            sprt: args.sprt_bounds(),
        };
        eprintln!(
            "arbiter: the league at {url} builds and checks {} (a build may take a minute)",
            args.bots.join(", ")
        );
        let answer = Client::new(&url, Some(&token), CONNECT)?.add(&ask)?;
        let failed = tell_added(&answer, &url);
        return Ok(if failed {
            ExitCode::from(super::ERROR_EXIT)
        } else {
            ExitCode::SUCCESS
        });
    }
    let _lock = folder::lock(dir)?;
    let mut bots = folder::load_bots(dir)?;
    for origin in &args.bots {
        let name = league::play::name_of(origin, &workdir).map_err(anyhow::Error::msg)?;
        println!(
            "added {name} to {} (no server runs: it is built and checked when the league starts)",
            dir.display()
        );
        folder::upsert(
            &mut bots,
            entry(
                name,
                origin,
                &workdir,
                args.candidate.clone(),
                args.sprt_bounds(),
            ),
        );
    }
    folder::save_bots(dir, &bots)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints what the server said of each bot added; whether any cannot play.
fn tell_added(answer: &Added, url: &str) -> bool {
    let mut failed = false;
    for a in &answer.added {
        if a.ok {
            println!(
                "added {} to the league at {url}",
                a.name.as_deref().unwrap_or("?")
            );
        } else {
            failed = true;
            eprintln!(
                "arbiter: error: a bot cannot play: {}",
                arbiter::protocol::printable_lines(a.problem.as_deref().unwrap_or("?"))
            );
        }
    }
    failed
}

/// `league add URL BOT... --token T`: uploads each bot's source file or folder to the league
/// at URL, which builds, checks and plays it as `league add` on its own machine does.
fn upload(url: &str, args: &LeagueAddArgs) -> Result<ExitCode> {
    let token = match (&args.token, &args.token_file) {
        (Some(t), _) => t.clone(),
        (None, Some(file)) => arbiter::league::token_file::read(file)?,
        (None, None) => bail!(
            "adding bots to the league at {url} uploads them, which needs its admin token or \
             the bot's author token: give --token-file FILE (a file only you read holding the \
             admin-token file's line, or the token `arbiter league author DIR NAME` printed)"
        ),
    };
    let client = Client::new(url, Some(&token), CONNECT)?;
    if args.candidate.is_some() && args.bots.len() != 1 {
        bail!("--candidate tests one new bot: give one BOT");
    }
    if args.elo0.is_some() || args.elo1.is_some() || args.max_pairs.is_some() {
        bail!(
            "an uploaded candidate's test takes the default bounds (nElo 0 against 5, {} {}): \
             to choose others, run `arbiter league add DIR ...` with the league's folder on \
             its machine",
            arbiter::options::Opt::MaxPairs,
            league::sprt::DEFAULT_MAX_PAIRS
        );
    }
    let workdir = std::env::current_dir()?;
    let mut failed = false;
    for origin in &args.bots {
        let (name, path) = upload_source(origin, &workdir)?;
        let (bytes, file) = if path.is_dir() {
            let packed = league::upload::pack_folder(&path)
                .with_context(|| format!("packing the folder {}", path.display()))?;
            (packed, None)
        } else {
            let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
            let read =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            (read, Some(file.unwrap_or_default()))
        };
        eprintln!(
            "arbiter: uploading {name}; the league at {url} then builds and checks it (a build \
             may take a minute)"
        );
        let answer = client
            .upload(&name, file.as_deref(), args.candidate.as_deref(), &bytes)
            .with_context(|| format!("uploading bot {name}"))?;
        failed |= tell_added(&answer, url);
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
        Client::new(&url, Some(&token), CONNECT)?.remove(&args.name)?;
        println!("removed {} from the league at {url}", args.name);
        return Ok(ExitCode::SUCCESS);
    }
    let _lock = folder::lock(dir)?;
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
    let table = Client::new(&url, None, CONNECT)?.standings()?;
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
