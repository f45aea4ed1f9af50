//! Builds as hostile submissions make them: a build that holds memory in the box's RAM-backed
//! `/tmp`, one that fills the build cache. Each is stopped by its cap, its verdict names the cap,
//! and the rest of the class is graded.

use crate::common::*;
use std::path::Path;

/// Reads the Impasse arena input and answers the first offered move.
const PY_BOT: &str = r#"import sys
turn = 0
while True:
    turn += 1
    if turn == 1:
        input()  # colour
    for _ in range(8):
        input()
    input()  # last move
    moves = [input() for _ in range(int(input()))]
    print(moves[0])
"#;

/// Whether bwrap is here and, as root, cgroups can be made: else, under CI, the test fails.
fn boxed_builds_or_fail() -> bool {
    let bwrap = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"]
        .iter()
        .any(|p| Path::new(p).is_file());
    let root = rustix::process::geteuid().is_root();
    if !bwrap || !root {
        crate::common::skip("this test needs bubblewrap (apt-get install bubblewrap) and root (for the builds' memory cgroup)");
        return false;
    }
    true
}

/// The bytes under `dir`, without following symlinks.
fn bytes_under(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match std::fs::symlink_metadata(e.path()) {
            Ok(m) if m.is_dir() => bytes_under(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// A class folder under `tmp` with an honest student and `hostile` student folders (name,
/// bot.toml build command).
fn class_with(tmp: &Path, hostile: &[(&str, &str)]) -> std::path::PathBuf {
    let class = tmp.join("class");
    std::fs::create_dir_all(&class).unwrap();
    std::fs::write(class.join("honest.py"), PY_BOT).unwrap();
    for (name, build) in hostile {
        let dir = class.join(name);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("bot.py"), PY_BOT).unwrap();
        std::fs::write(
            dir.join("bot.toml"),
            format!("run = \"python3 bot.py\"\nbuild = {build:?}\n"),
        )
        .unwrap();
    }
    class
}

fn grade(class: &Path, out: &Path, cache: &Path, extra: &[&str]) -> std::process::Output {
    arbiter()
        .env("ARBITER_CACHE", cache)
        .args(["grade", "--games", "2", "--seed", "3", "--clock", "cpu"])
        .args(["--first-turn-ms", "5000", "--turn-ms", "1000"])
        .args(["--baseline", &first_bot()])
        .args(extra)
        .arg("--out")
        .arg(out)
        .arg(class)
        .output()
        .unwrap()
}

#[test]
fn a_build_over_its_memory_or_its_cache_cap_fails_saying_which() {
    if !boxed_builds_or_fail() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let class = class_with(
        tmp.path(),
        &[
            // 300 MB held in the box's /tmp (files under the file-size limit), then an exit 0.
            (
                "hog",
                "sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do head -c 30000000 /dev/zero > /tmp/hog$i; done; true'",
            ),
            // 200 MB left in the build folder, that is in the build cache.
            ("filler", "sh -c 'head -c 200000000 /dev/zero > cache.bin'"),
        ],
    );
    let (out, cache) = (tmp.path().join("out"), tmp.path().join("cache"));
    let run = grade(
        &class,
        &out,
        &cache,
        &["--build-memory-mb", "100", "--build-disk-mb", "50"],
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let rows = read_csv(&out.join("marks.csv"));
    let row = |name: &str| rows.iter().find(|r| r["student"] == name).unwrap();
    assert_eq!(row("honest")["built"], "yes", "{rows:?}");
    for (name, says) in [
        ("hog", "memory cap of 100 MiB"),
        ("filler", "over the cap of 50 MiB"),
    ] {
        assert_eq!(row(name)["built"], "no", "{name}: {:?}", row(name));
        let log = std::fs::read_to_string(out.join(format!("builds/{name}.log"))).unwrap();
        assert!(log.contains(says), "{name}: {log}");
    }
    // Nothing of theirs was kept in the cache.
    let kept = bytes_under(&cache);
    assert!(kept < 10 << 20, "the cache holds {kept} bytes");
}

/// Files under `dir` that hold `needle`.
fn holding(dir: &Path, needle: &[u8]) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for e in entries.flatten() {
        let p = e.path();
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => found.extend(holding(&p, needle)),
            Ok(m) if m.is_file() => {
                let bytes = std::fs::read(&p).unwrap_or_default();
                if bytes.windows(needle.len()).any(|w| w == needle) {
                    found.push(p.display().to_string());
                }
            }
            _ => {}
        }
    }
    found
}

/// Hard links to a root-only file in a class: one a build prints into its log, one a whole
/// submission whose syntax error would quote it. Both are refused, naming the hard link, and
/// the secret is nowhere in the results, the cache or arbiter's output.
#[test]
fn a_hard_link_to_a_root_only_file_is_not_read_into_any_output() {
    if !boxed_builds_or_fail() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    let secret_word = format!("HARDSECRET{}X", std::process::id());
    let secret = tmp.path().join("secret.py");
    std::fs::write(&secret, format!("{secret_word} is not python\n")).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let class = class_with(tmp.path(), &[("mallory", "cat leak.txt")]);
    // Mallory's folder is hers (uid 4243); the link in it is to root's private file.
    std::os::unix::fs::chown(class.join("mallory"), Some(4243), Some(4243)).unwrap();
    std::fs::hard_link(&secret, class.join("mallory/leak.txt")).unwrap();
    std::fs::hard_link(&secret, class.join("linked.py")).unwrap();
    let (out, cache) = (tmp.path().join("out"), tmp.path().join("cache"));
    let run = grade(&class, &out, &cache, &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stderr}");
    assert!(!stderr.contains(&secret_word), "{stderr}");
    assert!(!stdout.contains(&secret_word), "{stdout}");
    assert_eq!(holding(&out, secret_word.as_bytes()), Vec::<String>::new());
    assert_eq!(
        holding(&cache, secret_word.as_bytes()),
        Vec::<String>::new()
    );
    let rows = read_csv(&out.join("marks.csv"));
    let row = |name: &str| rows.iter().find(|r| r["student"] == name).unwrap();
    assert_eq!(row("honest")["built"], "yes", "{rows:?}");
    for name in ["mallory", "linked"] {
        assert_eq!(row(name)["built"], "no", "{name}: {:?}", row(name));
        assert!(
            row(name)["problem"].contains("hard link"),
            "{:?}",
            row(name)
        );
    }
}

/// The folders under `cache` holding `file`, and that file's text.
fn built_copies(cache: &Path, file: &str) -> Vec<String> {
    std::fs::read_dir(cache)
        .map(|d| {
            d.flatten()
                .filter_map(|e| std::fs::read_to_string(e.path().join(file)).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// A stranger's bot.toml build in a tournament runs in the build box by default (unprivileged,
/// in a copy of the folder in the cache), not as root in place; `--trust-builds` runs it as the
/// user, in place, as before.
#[test]
fn a_strangers_bot_toml_build_runs_in_the_box_unless_trusted() {
    if !boxed_builds_or_fail() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let stranger = tmp.path().join("stranger");
    std::fs::create_dir(&stranger).unwrap();
    std::fs::write(
        stranger.join("bot.toml"),
        format!(
            "name = \"stranger\"\nrun = \"{}\"\nbuild = \"sh -c 'id -u > uid.txt; grep CapEff /proc/self/status >> uid.txt'\"\n",
            first_bot()
        ),
    )
    .unwrap();
    let cache = tmp.path().join("cache");
    let tournament = |out: &str, extra: &[&str]| {
        let run = arbiter()
            .env("ARBITER_CACHE", &cache)
            .args([
                "tournament",
                "--games",
                "2",
                "--seed",
                "1",
                "--turn-ms",
                "1000",
            ])
            .args(extra)
            .arg("--out")
            .arg(tmp.path().join(out))
            .arg(&stranger)
            .arg(random_bot())
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    };
    tournament("boxed", &[]);
    assert!(!stranger.join("uid.txt").exists(), "built in place");
    let copies = built_copies(&cache, "uid.txt");
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert!(
        !copies[0].starts_with("0\n"),
        "built as root: {}",
        copies[0]
    );
    assert!(
        copies[0].contains("CapEff:\t0000000000000000"),
        "{}",
        copies[0]
    );
    tournament("trusted", &["--trust-builds"]);
    let here = std::fs::read_to_string(stranger.join("uid.txt")).unwrap();
    assert!(here.starts_with("0\n"), "{here}");
}

/// A referee.toml build runs in the build box too, and the referee plays from its copy.
#[test]
fn a_referee_toml_build_runs_in_the_box() {
    if !boxed_builds_or_fail() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let referee = tmp.path().join("stones");
    std::fs::create_dir(&referee).unwrap();
    let example = root().join("examples/referee/stones");
    for file in ["referee.py", "bot.py"] {
        std::fs::copy(example.join(file), referee.join(file)).unwrap();
    }
    let toml = std::fs::read_to_string(example.join("referee.toml")).unwrap();
    std::fs::write(
        referee.join("referee.toml"),
        format!("{toml}build = \"sh -c 'id -u > built-by.txt'\"\n"),
    )
    .unwrap();
    let cache = tmp.path().join("cache");
    let bot = format!("{} {}", python(), example.join("bot.py").display());
    let run = arbiter()
        .env("ARBITER_CACHE", &cache)
        .args(["play", "--json", "--seed", "2", "--referee"])
        .arg(&referee)
        .args([&bot, &bot])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert_eq!(json_of(&run)["game"], "stones", "{stderr}");
    assert!(!referee.join("built-by.txt").exists(), "built in place");
    let copies = built_copies(&cache, "built-by.txt");
    assert_eq!(copies.len(), 1, "{copies:?}");
    assert_ne!(copies[0].trim(), "0", "built as root");
}
