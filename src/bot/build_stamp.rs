//! Whether a bot folder's `bot.toml` build is up to date, told cheaply so that `play` does not
//! run a build command (a `cargo build` takes seconds even when it has nothing to do) before
//! every game: a stamp of the build command, the bot's program and every file of the folder
//! (relative path, size, modification time; hidden entries and the usual build-output folders
//! `target`, `node_modules`, `__pycache__` left out) is taken after a build succeeds, kept in
//! the build cache, and a build whose stamp is unchanged is skipped.
//!
//! A program built outside the bot folder (`run = "../../target/release/bot"`) has inputs
//! outside it too: the stamp then covers the sources its dep-info file lists (`PROGRAM.d`,
//! which cargo writes beside every binary) and the `Cargo.toml` and `Cargo.lock` above its
//! `target` folder; without a dep-info file such a bot is built every time, as before.

use sha2::{Digest, Sha256};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Folders whose contents are build outputs or caches, not inputs.
const OUTPUTS: &[&str] = &["target", "node_modules", "__pycache__"];

/// Past this many entries the folder is not stamped (always built): the walk must stay cheap.
const MAX_ENTRIES: usize = 20_000;

/// Where the stamp of building `dir` with `command` is kept, under `stamps`.
fn stamp_path(stamps: &Path, dir: &Path, command: &str) -> PathBuf {
    let mut h = Sha256::new();
    h.update(dir.as_os_str().as_encoded_bytes());
    h.update([0]);
    h.update(command.as_bytes());
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    stamps.join(&hex[..32])
}

/// The stamp of the folder now, or `None` when it cannot be taken cheaply.
pub fn take(dir: &Path, command: &str, program: &Path) -> Option<String> {
    fn walk(root: &Path, dir: &Path, h: &mut Sha256, n: &mut usize) -> Option<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir).ok()?.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || OUTPUTS.contains(&name.as_ref()) {
                continue;
            }
            *n += 1;
            if *n > MAX_ENTRIES {
                return None;
            }
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).ok()?;
            let rel = p.strip_prefix(root).unwrap_or(&p);
            h.update(rel.as_os_str().as_encoded_bytes());
            h.update(format!(
                "\0{}:{}:{}.{}\0",
                meta.mode(),
                meta.size(),
                meta.mtime(),
                meta.mtime_nsec()
            ));
            if meta.is_dir() {
                walk(root, &p, h, n)?;
            }
        }
        Some(())
    }
    let mut h = Sha256::new();
    h.update(command.as_bytes());
    h.update([0]);
    // The program the build makes: gone or rebuilt elsewhere means building again.
    // (A bare command name such as `python3` is found on PATH: not the build's.)
    if program.is_absolute() {
        let m = std::fs::metadata(program).ok()?;
        h.update(format!("{}:{}.{}\0", m.size(), m.mtime(), m.mtime_nsec()));
        let program = std::path::absolute(program).ok()?;
        let program = normalize(&program);
        if !program.starts_with(normalize(dir)) {
            for input in outside_inputs(&program)? {
                let m = std::fs::metadata(&input).ok()?;
                h.update(input.as_os_str().as_encoded_bytes());
                h.update(format!("\0{}:{}.{}\0", m.size(), m.mtime(), m.mtime_nsec()));
            }
        }
    }
    walk(dir, dir, &mut h, &mut 0)?;
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// `path` with `.` and `..` taken out lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The inputs of a program built outside the bot folder: the files its dep-info file
/// `PROGRAM.d` lists (make syntax, `\ ` for a space), and the Cargo.toml and Cargo.lock of the
/// folder that holds its `target` folder. `None` without a dep-info file.
fn outside_inputs(program: &Path) -> Option<Vec<PathBuf>> {
    let mut dep_info = program.as_os_str().to_owned();
    dep_info.push(".d");
    let text = std::fs::read_to_string(PathBuf::from(dep_info)).ok()?;
    let mut inputs = Vec::new();
    for line in text.lines() {
        let Some((_, deps)) = line.split_once(": ") else {
            continue;
        };
        let mut word = String::new();
        let mut chars = deps.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => word.push(chars.next()?),
                ' ' => {
                    if !word.is_empty() {
                        inputs.push(PathBuf::from(std::mem::take(&mut word)));
                    }
                }
                c => word.push(c),
            }
        }
        if !word.is_empty() {
            inputs.push(PathBuf::from(word));
        }
    }
    let mut above = program.parent();
    while let Some(dir) = above {
        if dir.file_name().is_some_and(|n| n == "target") {
            if let Some(project) = dir.parent() {
                for f in ["Cargo.toml", "Cargo.lock"] {
                    if project.join(f).is_file() {
                        inputs.push(project.join(f));
                    }
                }
            }
            break;
        }
        above = dir.parent();
    }
    Some(inputs)
}

/// Whether the build of `dir` with `command` is known up to date (its stamp is unchanged).
pub fn up_to_date(stamps: &Path, dir: &Path, command: &str, program: &Path) -> bool {
    let Some(now) = take(dir, command, program) else {
        return false;
    };
    std::fs::read_to_string(stamp_path(stamps, dir, command)).is_ok_and(|kept| kept == now)
}

/// Remembers that the build of `dir` with `command` just succeeded. A stamp that cannot be
/// written only costs a build next time.
pub fn record(stamps: &Path, dir: &Path, command: &str, program: &Path) {
    let path = stamp_path(stamps, dir, command);
    match take(dir, command, program) {
        Some(stamp) => {
            let _ = std::fs::create_dir_all(stamps);
            let _ = std::fs::write(path, stamp);
        }
        None => {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_follows_the_sources_and_the_program_but_not_the_build_outputs() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("bot");
        let stamps = tmp.path().join("stamps");
        std::fs::create_dir_all(dir.join("target")).unwrap();
        std::fs::write(dir.join("main.c"), "int main(){}").unwrap();
        let program = dir.join("target/bot");
        std::fs::write(&program, "v1").unwrap();
        assert!(!up_to_date(&stamps, &dir, "make", &program));
        record(&stamps, &dir, "make", &program);
        assert!(up_to_date(&stamps, &dir, "make", &program));
        assert!(!up_to_date(&stamps, &dir, "make -j2", &program));
        std::fs::write(dir.join("target/other.o"), "x").unwrap();
        assert!(up_to_date(&stamps, &dir, "make", &program));
        std::fs::write(dir.join("main.c"), "int main(){return 1;}").unwrap();
        assert!(!up_to_date(&stamps, &dir, "make", &program));
        record(&stamps, &dir, "make", &program);
        std::fs::remove_file(&program).unwrap();
        assert!(!up_to_date(&stamps, &dir, "make", &program), "program gone");
    }

    #[test]
    fn a_program_built_outside_the_folder_is_stamped_by_its_dep_info_or_always_built() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("bots/mine");
        let stamps = tmp.path().join("stamps");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(tmp.path().join("target/release")).unwrap();
        std::fs::create_dir_all(tmp.path().join("src dir")).unwrap();
        let program = dir.join("../../target/release/mine");
        std::fs::write(&program, "bin").unwrap();
        let source = tmp.path().join("src dir/main.rs");
        std::fs::write(&source, "fn main() {}").unwrap();
        std::fs::write(tmp.path().join("Cargo.toml"), "[package]").unwrap();
        let command = "cargo build";
        record(&stamps, &dir, command, &program);
        assert!(!up_to_date(&stamps, &dir, command, &program), "no dep-info");
        std::fs::write(
            tmp.path().join("target/release/mine.d"),
            format!(
                "{}: {}\n",
                tmp.path().join("target/release/mine").display(),
                source.display().to_string().replace(' ', "\\ ")
            ),
        )
        .unwrap();
        record(&stamps, &dir, command, &program);
        assert!(up_to_date(&stamps, &dir, command, &program));
        std::fs::write(&source, "fn main() { loop {} }").unwrap();
        assert!(
            !up_to_date(&stamps, &dir, command, &program),
            "source changed"
        );
        record(&stamps, &dir, command, &program);
        std::fs::write(tmp.path().join("Cargo.toml"), "[package]\nname = \"x\"").unwrap();
        assert!(
            !up_to_date(&stamps, &dir, command, &program),
            "Cargo.toml changed"
        );
    }
}
