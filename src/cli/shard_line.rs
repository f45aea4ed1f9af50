//! The command line that plays one shard of a tournament's recorded settings (for `slurm`'s batch
//! script, and for the missing shards a `merge` names): the settings turned back into flags, and
//! checked by parsing them again. Whether two shards' settings differ is the library's
//! (`engine::shards`).

use crate::cli::{Cli, Command};
use anyhow::{bail, Result};
use arbiter::engine::settings::TournamentSettings as Settings;
use arbiter::engine::shards::differences;
use arbiter::engine::GameSettings;

/// The `arbiter tournament` arguments that play the games of `settings` (without `--shard`,
/// `--out` and the bots, which the caller places). Every recorded setting is an option of the
/// same name (snake_case there, kebab-case here), so the line is built from the settings
/// themselves: a setting added later needs no change here (the round-trip test below checks).
/// The game options are given only where they differ from the defaults, to keep it readable.
pub fn options(settings: &Settings) -> Result<Vec<String>> {
    let table = toml::Table::try_from(settings)?;
    let mut out = Vec::new();
    for (key, value) in &table {
        // Not options: the bots (placed last), where they were named, the shard, the game
        // options (below), and fingerprints (recorded from the files the options name).
        if ["bots", "workdir", "shard", "game"].contains(&key.as_str())
            || key.ends_with("_fingerprint")
        {
            continue;
        }
        push_option(&mut out, key, value, false)?;
    }
    let defaults = default_args()?;
    out.extend(game_options(&settings.game, &defaults.game.into())?);
    Ok(out)
}

/// `--key value` for a recorded setting (`--key` for a flag that is on, nothing when off).
fn push_option(
    out: &mut Vec<String>,
    key: &str,
    value: &toml::Value,
    on_by_default: bool,
) -> Result<()> {
    let flag = format!("--{}", key.replace('_', "-"));
    match value {
        toml::Value::Boolean(true) => out.push(flag),
        toml::Value::Boolean(false) if !on_by_default => {}
        toml::Value::String(s) => out.extend([flag, s.clone()]),
        toml::Value::Integer(n) => out.extend([flag, n.to_string()]),
        other => bail!("setting {key} = {other} cannot be given on a command line"),
    }
    Ok(())
}

/// `arbiter tournament` with no argument: every default.
fn default_args() -> Result<crate::cli::TournamentArgs> {
    use clap::Parser;
    match Cli::try_parse_from(["arbiter", "tournament"])?.command {
        Command::Tournament(args) => Ok(args),
        _ => unreachable!("parsed as a tournament"),
    }
}

/// The game options that differ from the defaults, as `--name value` (`--name` for a flag). The
/// settings file and the command line use the same names (snake_case there, kebab-case here).
fn game_options(game: &GameSettings, defaults: &GameSettings) -> Result<Vec<String>> {
    let table = |g: &GameSettings| -> Result<toml::Table> { Ok(toml::Table::try_from(g)?) };
    let (ours, theirs) = (table(game)?, table(defaults)?);
    let mut out = Vec::new();
    for (key, value) in &ours {
        if theirs.get(key) != Some(value) {
            let on = theirs.get(key) == Some(&toml::Value::Boolean(true));
            push_option(&mut out, key, value, on)?;
        }
    }
    Ok(out)
}

/// [`options`], checked: parsed back as a shard's command line would be, they must give the
/// same settings, so a setting that no option can express (a run grown in stages, a setting
/// added later without an option of its name) is an error here, never a wrong command.
pub fn checked_options(settings: &Settings) -> Result<Vec<String>> {
    let words = options(settings)?;
    let mut check: Vec<String> = vec!["arbiter".into(), "tournament".into()];
    check.extend(words.iter().cloned());
    check.extend(["--shard".into(), "1/1".into(), "--".into()]);
    check.extend(settings.bots.iter().cloned());
    use clap::Parser;
    let parsed = match Cli::try_parse_from(&check)?.command {
        Command::Tournament(args) => Settings::fresh(args.request())?,
        _ => unreachable!("parsed as a tournament"),
    };
    let diff: Vec<_> = differences(&parsed, settings)?
        .into_iter()
        .filter(|d| !d.starts_with("shards:"))
        .collect();
    if !diff.is_empty() {
        bail!(
            "the run's settings cannot be written as one command line ({})",
            diff.join("; ")
        );
    }
    Ok(words)
}

/// The checked `arbiter tournament` arguments (after the command name) that play `shard` of the
/// run of `settings` into `out`.
pub fn shard_arguments(settings: &Settings, shard: &str, out: &str) -> Result<Vec<String>> {
    let mut words = checked_options(settings)?;
    words.extend([
        "--shard".into(),
        shard.to_string(),
        "--out".into(),
        out.to_string(),
    ]);
    words.push("--".into());
    words.extend(settings.bots.iter().cloned());
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(words: &[&str]) -> Settings {
        let mut all = vec!["arbiter", "tournament"];
        all.extend_from_slice(words);
        let Command::Tournament(args) = Cli::try_parse_from(all).unwrap().command else {
            unreachable!()
        };
        Settings::fresh(args.request()).unwrap()
    }

    /// The settings → command line → settings round trip, for defaults and for every kind of
    /// option (numbers, texts, enums, flags, optional values).
    #[test]
    fn the_command_line_of_a_shard_gives_back_its_settings() {
        for words in [
            &["--seed", "5", "a", "b"][..],
            &[
                "--seed",
                "9",
                "--format",
                "gauntlet",
                "--games",
                "8",
                "--tables",
                "3",
                "--opening-plies",
                "2",
                "--replays",
                "--game",
                "impasse",
                "--turn-ms",
                "250",
                "--strict",
                "--clock",
                "cpu",
                "--max-turns",
                "90",
                "--max-processes",
                "4",
                "--allow-pondering",
                "x y",
                "b",
                "c",
            ][..],
        ] {
            let settings = parse(words);
            let line = shard_arguments(&settings, "2/3", "some/dir").unwrap();
            let again = parse(&line.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(again.shard.map(|s| s.to_string()), Some("2/3".into()));
            assert_eq!(
                Settings {
                    shard: None,
                    ..again
                },
                settings,
                "{line:?}"
            );
            assert_eq!(line.iter().filter(|w| *w == "some/dir").count(), 1);
            // Through a shell and back.
            let text = shell_words::join(&line);
            assert_eq!(shell_words::split(&text).unwrap(), line);
        }
    }

    #[test]
    fn settings_no_command_line_gives_back_are_refused() {
        let mut bad = parse(&["--seed", "5", "a", "b"]);
        bad.games = 3; // odd: every command line with it is refused
        assert!(checked_options(&bad).is_err());
        assert!(shard_arguments(&bad, "1/2", "x").is_err());
    }

    #[test]
    fn differences_name_each_setting_and_ignore_the_shard() {
        let a = parse(&["--seed", "5", "--shard", "1/4", "a", "b"]);
        let b = parse(&["--seed", "5", "--shard", "3/4", "a", "b"]);
        assert!(differences(&a, &b).unwrap().is_empty());
        let c = parse(&["--seed", "6", "--turn-ms", "50", "--shard", "3/5", "a", "c"]);
        let d = differences(&a, &c).unwrap();
        assert_eq!(
            d,
            vec![
                "bots: [\"a\", \"b\"] vs [\"a\", \"c\"]".to_string(),
                "game.turn_ms: 100 vs 50".into(),
                "seed: 5 vs 6".into(),
                "shards: 4 shards vs 5 shards".into(),
            ]
        );
    }
}
