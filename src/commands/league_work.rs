//! `arbiter league token` (on the server's folder) and `arbiter league work` (on any machine):
//! workers on other machines (issue 38); `arbiter league author` (on the server's folder): a
//! token for one bot's author (issue 45).

use crate::cli::{LeagueAuthorArgs, LeagueTokenArgs, LeagueWorkArgs};
use anyhow::Result;
use arbiter::league::{folder, tokens, worker};
use std::process::ExitCode;

pub fn token(args: LeagueTokenArgs) -> Result<ExitCode> {
    if folder::load_settings(&args.dir)?.is_none() {
        return Err(folder::FolderError::NoLeague { dir: args.dir }.into());
    }
    if args.revoke {
        tokens::revoke(&args.dir, &args.name)?;
        eprintln!("revoked the token of worker {}", args.name);
    } else {
        let token = tokens::issue(&args.dir, &args.name)?;
        // The example keeps the token off the worker's command line, where `ps` shows it to
        // every user of that machine.
        eprintln!(
            "worker {}'s token (shown once, on stdout; kept hashed in {}). On the worker \
             machine, put it in a file only you read and start the worker with it:\n  \
             (umask 077; cat > ~/.arbiter-token)    # paste the token, then Ctrl-D\n  \
             arbiter league work http://SERVER:PORT --token-file ~/.arbiter-token",
            args.name,
            args.dir.join(tokens::FILE).display()
        );
        println!("{token}");
    }
    Ok(ExitCode::SUCCESS)
}

pub fn author(args: LeagueAuthorArgs) -> Result<ExitCode> {
    if folder::load_settings(&args.dir)?.is_none() {
        return Err(folder::FolderError::NoLeague { dir: args.dir }.into());
    }
    let kind = tokens::TokenKind::Author;
    if args.revoke {
        tokens::revoke_for(&args.dir, kind, &args.name)?;
        eprintln!("revoked the author token of bot {}", args.name);
    } else {
        let token = tokens::issue_for(&args.dir, kind, &args.name)?;
        eprintln!(
            "the author token of bot {} (shown once; kept hashed in {}): it may upload and \
             replace bot {} and read its build log, nothing else. Give it to its author, who \
             puts it in a file only they read and runs\n  \
             arbiter league add http://SERVER:PORT {}=PATH --token-file FILE",
            args.name,
            args.dir.join(kind.file()).display(),
            args.name,
            args.name
        );
        println!("{token}");
    }
    Ok(ExitCode::SUCCESS)
}

pub fn work(args: LeagueWorkArgs) -> Result<ExitCode> {
    let cache = match args.cache {
        Some(c) => c,
        None => {
            let home = std::env::var_os("XDG_CACHE_HOME")
                .map(std::path::PathBuf::from)
                .or_else(|| {
                    std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cache"))
                })
                .unwrap_or_else(std::env::temp_dir);
            home.join("arbiter").join("league")
        }
    };
    let concurrency = args
        .concurrency
        .unwrap_or_else(|| arbiter::tournament::runner::allowed_cpus().len().max(1));
    let token = match (args.token, args.token_file) {
        (Some(t), _) => t,
        (None, Some(file)) => arbiter::league::token_file::read(&file)?,
        (None, None) => unreachable!("clap requires --token or --token-file"),
    };
    worker::work(worker::Options {
        url: args.url.trim_end_matches('/').to_string(),
        token,
        concurrency,
        cache,
    })?;
    Ok(ExitCode::SUCCESS)
}
