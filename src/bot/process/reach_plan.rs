//! The mounts that make a bot's files reachable for its own user ([`crate::bot::reach`]),
//! planned once per bot and reused for its later games while its program and folder are
//! unchanged. Planning looks at every folder on the way to every file the bot needs (its
//! program, script, interpreter's installation, folder) and at what a shell script names:
//! some 50 µs of the referee's CPU a bot on the 2-core VM, for the same answer game after
//! game. A plan is kept with the program's and the folder's identity and times (device,
//! inode, mode, size, modification and change times); a bot whose program or folder changed
//! since is planned afresh.

use crate::bot::reach::ReachPlan;
use crate::bot::spec::BotSpec;
use crate::bot::Limits;
use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Plans kept at most (a league's bots); past it the cache starts again.
const MAX_PLANS: usize = 512;

/// What a plan was made for.
#[derive(Clone, PartialEq, Eq, Hash)]
struct PlanKey {
    program: PathBuf,
    args: Vec<String>,
    dir: PathBuf,
    path: String,
    user: bool,
    sandbox: bool,
    scratch: Vec<PathBuf>,
}

/// A file's identity and times: (device, inode, mode, size, mtime ns, ctime ns).
type Stamp = (u64, u64, u32, u64, i128, i128);

fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
    Some((
        m.dev(),
        m.ino(),
        m.mode(),
        m.size(),
        ns(m.mtime(), m.mtime_nsec()),
        ns(m.ctime(), m.ctime_nsec()),
    ))
}

/// The plans made, by bot, with the stamps of its program and folder when each was made.
type Plans = HashMap<PlanKey, ((Stamp, Stamp), Arc<ReachPlan>)>;

static PLANS: Mutex<Option<Plans>> = Mutex::new(None);

/// The plan for `spec` (run as a user of its own where `user`, with scratch folders over
/// `scratch`), whose PATH is `path`: the one made before for it where its program and folder
/// are unchanged, else a new one. The error says why its user cannot reach its files.
pub(super) fn plan_for(
    spec: &BotSpec,
    limits: &Limits,
    user: bool,
    scratch: &[PathBuf],
    path: &str,
) -> Result<Arc<ReachPlan>, String> {
    let resolved =
        crate::bot::spawn::resolve(&spec.program, path).unwrap_or_else(|_| spec.program.clone());
    let key = PlanKey {
        program: spec.program.clone(),
        args: spec.args.clone(),
        dir: spec.dir.clone(),
        path: path.to_string(),
        user,
        sandbox: limits.sandbox.is_some(),
        scratch: scratch.to_vec(),
    };
    let stamps = stamp(&resolved).zip(stamp(&spec.dir));
    if let Some(stamps) = stamps {
        let plans = PLANS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((made, plan)) = plans.as_ref().and_then(|p| p.get(&key)) {
            if *made == stamps {
                return Ok(Arc::clone(plan));
            }
        }
    }
    let plan = Arc::new(make(spec, limits, user, scratch, path, &resolved)?);
    if let Some(stamps) = stamps {
        let mut plans = PLANS.lock().unwrap_or_else(|e| e.into_inner());
        let plans = plans.get_or_insert_with(HashMap::new);
        if plans.len() >= MAX_PLANS {
            plans.clear();
        }
        plans.insert(key, (stamps, Arc::clone(&plan)));
    }
    Ok(plan)
}

/// Plans the mounts for `spec`, whose program is `resolved`.
fn make(
    spec: &BotSpec,
    limits: &Limits,
    user: bool,
    scratch: &[PathBuf],
    path: &str,
    resolved: &Path,
) -> Result<ReachPlan, String> {
    // A version manager's shim (pyenv, rbenv, asdf) runs the manager from its whole
    // installation, which stays closed to the bot's user: say so before any game.
    let is_shim = |p: &Path| {
        p.parent()
            .is_some_and(|d| d.file_name().is_some_and(|n| n == "shims"))
            && crate::bot::reach::first_blocked(p).is_some()
    };
    if user && is_shim(resolved) {
        return Err(format!(
            "{} is a version manager's shim (pyenv, rbenv, asdf) in a folder other \
                 users cannot enter, and arbiter runs bots as root under an unprivileged \
                 user of their own: name the interpreter itself (`pyenv which python3` \
                 prints it), or the system's (`python3` in the bot's PATH {path})",
            resolved.display()
        ));
    }
    let mut paths = crate::bot::sandbox::needed_paths(spec, resolved);
    paths.push(spec.dir.clone());
    // A command line the user typed may start its programs through a shell
    // (`sh -c 'exec /root/py/bin/python3 bot.py'`): what the script names is made
    // reachable as a plain command's program is. Not for a bot.toml's run line
    // (someone else's, maybe: its files must lie in its folder), nor in the
    // sandbox, which binds the program and script only.
    let own_folder = ["bot.toml", "referee.toml"]
        .iter()
        .any(|f| spec.dir.join(f).is_file());
    if limits.sandbox.is_none() && !own_folder {
        for file in crate::bot::reach::shell_script_files(resolved, &spec.args, &spec.dir) {
            let file = std::path::absolute(&file).unwrap_or(file);
            if user && is_shim(&file) {
                return Err(format!(
                    "its shell script names {}, a version manager's shim (pyenv, \
                         rbenv, asdf) in a folder other users cannot enter, and arbiter \
                         runs bots as root under an unprivileged user of their own: name \
                         the interpreter itself (`pyenv which python3` prints it), or \
                         the system's (`python3` in the bot's PATH {path})",
                    file.display()
                ));
            }
            paths.extend(crate::bot::sandbox::program_paths(&file));
        }
    }
    let plan = crate::bot::reach::plan(&paths, scratch)
            .map_err(|e| format!("its own user (arbiter runs bots as root under an unprivileged user of their own) cannot use its files: {e}"))?;
    if let Some(top) = plan
        .covered
        .first()
        .filter(|_| !crate::bot::isolation::isolate())
    {
        return Err(format!(
            "its own unprivileged user (arbiter runs bots as root under a user of \
                 their own) cannot enter {} (mode {:o}), and this referee cannot mount \
                 (no CAP_SYS_ADMIN) to show it the bot's files; move the bot to a folder \
                 every user may enter, or let others enter it (chmod o+x {})",
            top.display(),
            std::fs::metadata(top)
                .map(|m| m.mode() & 0o7777)
                .unwrap_or(0),
            top.display()
        ));
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_plan_is_reused_until_the_bots_program_or_folder_changes() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("bot");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let spec = BotSpec::command("b", &program, vec![], dir.path().to_path_buf());
        let limits = Limits::default();
        let plan = || plan_for(&spec, &limits, false, &[], "/usr/bin:/bin").unwrap();
        let first = plan();
        assert!(Arc::ptr_eq(&first, &plan()), "planned again, unchanged");
        // A change of mode (or anything else of the program) plans afresh.
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o775)).unwrap();
        let changed = plan();
        assert!(!Arc::ptr_eq(&first, &changed));
        assert!(Arc::ptr_eq(&changed, &plan()));
        // So does a change in its folder (a file added).
        std::fs::write(dir.path().join("data"), "x").unwrap();
        assert!(!Arc::ptr_eq(&changed, &plan()));
    }
}
