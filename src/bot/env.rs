//! A bot's environment: small, the same with and without the sandbox, and given through the spawn
//! request (the referee's own environment is never passed on: a token or password set for
//! arbiter must not reach a bot, its stderr or a report). A bot gets [`BASE`], then the
//! `ARBITER_*` settings of the run (its clocks; the game's seed, `ARBITER_SEED`, which the
//! referee adds per game) and whatever the user passes on on purpose (`--bot-env`).

use crate::options::Opt;
use std::ffi::CString;

/// What every bot gets: where programs are, a home and a temporary folder it may write (its
/// private /tmp in the sandbox), and a UTF-8 locale.
pub const BASE: [(&str, &str); 4] = [
    ("PATH", super::spawn::DEFAULT_PATH),
    ("HOME", "/tmp"),
    ("TMPDIR", "/tmp"),
    ("LANG", "C.UTF-8"),
];

/// [`BASE`] with `extra` over it (a later value of a name replaces an earlier one).
pub fn bot_env(extra: &[(String, String)]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = BASE
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    for (name, value) in extra {
        match env.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = value.clone(),
            None => env.push((name.clone(), value.clone())),
        }
    }
    env
}

/// The `NAME=VALUE` strings `execve` takes (an entry with a NUL byte is left out).
pub fn entries(env: &[(String, String)]) -> Vec<CString> {
    env.iter()
        .filter_map(|(k, v)| CString::new(format!("{k}={v}")).ok())
        .collect()
}

/// Parses one `--bot-env` value: `NAME=VALUE`, or `NAME` alone for the referee's own value of
/// NAME (an error if it has none).
pub fn parse_bot_env(arg: &str) -> Result<(String, String), String> {
    let (name, value) = match arg.split_once('=') {
        Some((name, value)) => (name, Some(value.to_string())),
        None => (arg, None),
    };
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!(
            "{} {arg}: `{name}` is not a variable name (letters, digits and _, not starting \
             with a digit); give NAME=VALUE, or NAME to pass on arbiter's own value",
            Opt::BotEnv
        ));
    }
    let value = match value {
        Some(v) => v,
        None => std::env::var(name).map_err(|_| {
            format!(
                "{} {name}: arbiter's environment has no {name} to pass on; give \
                 {name}=VALUE instead",
                Opt::BotEnv
            )
        })?,
    };
    Ok((name.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extras_replace_and_extend_the_base() {
        let env = bot_env(&[
            ("PATH".into(), "/opt/x/bin".into()),
            ("ARBITER_TURN_MS".into(), "100".into()),
        ]);
        assert_eq!(env[0], ("PATH".into(), "/opt/x/bin".into()));
        assert_eq!(env.len(), BASE.len() + 1);
        assert_eq!(parse_bot_env("A=b=c").unwrap(), ("A".into(), "b=c".into()));
        assert!(parse_bot_env("1A=b").is_err());
        assert!(parse_bot_env("NO_SUCH_VARIABLE_HERE_4711").is_err());
    }
}
