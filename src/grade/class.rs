//! The class folder of a grading run: which entries are students, and the hash of each
//! submission, remembered between runs in submissions.csv so that a re-run knows who changed.

use super::marks::Student;
use crate::bot::build_box::BuildStage;
use crate::bot::source::{check_tree, copy_submission, hash_hex, Language, SourceError};
use crate::bot::{BotSpec, SpecError};
use crate::results::games_csv::{from_text_cell, text_cell};
use std::path::{Path, PathBuf};

/// A class folder, a submission or the remembered hashes that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ClassError {
    #[error("reading the class folder {}", dir.display())]
    Folder {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("reading {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("reading {}", path.display())]
    Hashes {
        path: PathBuf,
        #[source]
        source: csv::Error,
    },
    #[error("{} holds no submission (files or folders)", .0.display())]
    Empty(PathBuf),
    #[error("updating {}", path.display())]
    Update {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Csv(#[from] csv::Error),
}

/// The students of a class folder, and what was noticed while reading it (entries skipped,
/// two submissions of one student), in the order noticed.
pub struct Class {
    pub entries: Vec<ClassEntry>,
    pub notes: Vec<String>,
}

impl Class {
    /// Refuses a class folder `dir` without a student.
    pub fn check_not_empty(&self, dir: &Path) -> Result<(), ClassError> {
        if self.entries.is_empty() {
            return Err(ClassError::Empty(dir.to_path_buf()));
        }
        Ok(())
    }
}

/// The file that remembers each student's submission hash between runs.
pub const HASHES: &str = "submissions.csv";

/// Names skipped when hashing a folder: build outputs and caches, which change without the
/// student changing anything.
const NOT_HASHED: &[&str] = &["target", "__pycache__", "node_modules"];

/// One student of a class folder.
pub struct ClassEntry {
    /// The file or folder name in the class folder.
    pub entry: String,
    pub student: String,
    /// Why this submission is not built (read as its author could not, or two submissions).
    pub problem: Option<String>,
}

/// The students of a class folder: every subfolder, and every file that is a bot source or an
/// executable (hidden entries skipped), sorted by name, case aside. A submission with a symlink
/// out of the class folder or a special file gets its problem (see [`check_tree`]); two
/// entries that would be one student (`alice.py`, `alice.c`) are named and that student is not
/// graded, the others are.
pub fn list_students(dir: &Path) -> Result<Class, ClassError> {
    use std::os::unix::fs::PermissionsExt;
    let mut found: Vec<ClassEntry> = Vec::new();
    let mut notes = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|source| ClassError::Folder {
        dir: dir.to_path_buf(),
        source,
    })?;
    for entry in entries {
        let entry = entry?;
        let entry_name = entry.file_name().to_string_lossy().into_owned();
        if entry_name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let problem = check_tree(dir, &path).err();
        // A refused entry is not followed: it is told by its name alone.
        let meta = match problem {
            None => Some(std::fs::metadata(&path)?),
            Some(_) => None,
        };
        let stem = || {
            path.file_stem()
                .map_or(entry_name.clone(), |s| s.to_string_lossy().into_owned())
        };
        let student = match &meta {
            Some(m) if m.is_dir() => entry_name.clone(),
            None if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) => {
                entry_name.clone()
            }
            _ if Language::of(&path).is_some() => stem(),
            Some(m) if m.permissions().mode() & 0o111 != 0 => stem(),
            None => stem(),
            Some(_) => {
                notes.push(format!(
                    "skipping {}: not a bot source file, an executable or a folder",
                    path.display()
                ));
                continue;
            }
        };
        found.push(ClassEntry {
            entry: entry_name,
            // A student's name reaches terminals, tables and pages: no control characters.
            student: crate::protocol::printable(&student).into_owned(),
            problem,
        });
    }
    // As people read a class list: `amy`, `Bob`, `carl` (case apart only to break a tie).
    found.sort_by(|a, b| {
        (a.entry.to_lowercase(), &a.entry).cmp(&(b.entry.to_lowercase(), &b.entry))
    });
    let mut groups: Vec<(ClassEntry, Vec<String>)> = Vec::new();
    for e in found {
        match groups
            .iter_mut()
            .find(|(first, _)| first.student == e.student)
        {
            Some((_, others)) => others.push(e.entry),
            None => groups.push((e, Vec::new())),
        }
    }
    let entries = groups
        .into_iter()
        .map(|(mut first, others)| {
            if !others.is_empty() {
                let all: Vec<&str> = std::iter::once(first.entry.as_str())
                    .chain(others.iter().map(String::as_str))
                    .collect();
                let message = format!(
                    "{} in {} would all be student '{}'; keep one submission per student (this \
                     student is not graded until then, the others are)",
                    all.join(" and "),
                    dir.display(),
                    first.student
                );
                notes.push(message.clone());
                first.problem = Some(message);
            }
            first
        })
        .collect();
    Ok(Class { entries, notes })
}

/// Every bot of a grading: each student of `entries` (of class folder `class`), then the
/// `baselines` as typed in `workdir`, as `(name, resolution)` pairs for the bot checks.
pub fn resolve_all(
    class: &Path,
    entries: &[ClassEntry],
    baselines: &[String],
    workdir: &Path,
) -> Vec<(String, Result<BotSpec, SpecError>)> {
    let students = entries
        .iter()
        .map(|e| (e.student.clone(), resolve_student(class, e)));
    let baselines = baselines
        .iter()
        .map(|b| (b.clone(), BotSpec::resolve_named_in(b, Some(workdir))));
    students.chain(baselines).collect()
}

/// The bot of one student: a folder with a bot.toml is copied into the build cache and built
/// there in the build box (never in the class folder, never as arbiter's user); a source file
/// is built in the build box too; a refused submission is its problem. Every submission but a
/// bare executable (which runs as the bot's own user) is first read into a private copy as its
/// author could read it (`beneath`: no symlink followed at open time, no file the student could
/// not read, no hard link to a private file), and built from that copy alone.
pub fn resolve_student(class: &Path, e: &ClassEntry) -> Result<BotSpec, SpecError> {
    let refused = |message: String| {
        SpecError::Source(SourceError::Refused {
            name: e.student.clone(),
            message,
        })
    };
    if let Some(message) = &e.problem {
        return Err(refused(message.clone()));
    }
    let path = class.join(&e.entry);
    let meta = std::fs::symlink_metadata(&path).map_err(|source| SpecError::Read {
        origin: e.student.clone(),
        path: path.clone(),
        source,
    })?;
    if !meta.is_dir() && Language::of(&path).is_none() {
        let mut spec = BotSpec::resolve(&path.to_string_lossy())?;
        spec.name = e.student.clone();
        return Ok(spec);
    }
    let copy = BuildStage::new().map_err(|err| {
        refused(format!(
            "cannot make a private folder to read the submission into: {err}"
        ))
    })?;
    let read = copy.dir().join(&e.entry);
    copy_submission(class, std::ffi::OsStr::new(&e.entry), &read)
        .map_err(|err| refused(err.to_string()))?;
    let mut spec = BotSpec::resolve(&read.to_string_lossy())?;
    spec.name = e.student.clone();
    if read.is_dir() && spec.dir.join("bot.toml").is_file() {
        spec = spec.snapshot()?;
    }
    spec.name = e.student.clone();
    spec.origin = path.to_string_lossy().into_owned();
    Ok(spec)
}

/// The students of `entries` (of class folder `class`) with the hash of their submission (of
/// the problem's text for a refused one), before any build.
pub fn students(class: &Path, entries: &[ClassEntry]) -> Result<Vec<Student>, ClassError> {
    entries
        .iter()
        .map(|e| {
            Ok(Student {
                name: e.student.clone(),
                hash: match &e.problem {
                    Some(p) => hash_hex(p.as_bytes()),
                    None => submission_hash(&class.join(&e.entry))?,
                },
                problem: None,
            })
        })
        .collect()
}

/// SHA-256 over a submission: a file's bytes, or every file of a folder (relative path and
/// bytes, in name order; hidden entries and build outputs left out).
pub fn submission_hash(path: &Path) -> Result<String, ClassError> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<u8>) -> std::io::Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)?.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || NOT_HASHED.contains(&name.as_str()) {
                continue;
            }
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out)?;
            } else if p.is_file() {
                let rel = p.strip_prefix(root).unwrap_or(&p);
                out.extend_from_slice(rel.to_string_lossy().as_bytes());
                out.push(0);
                out.extend_from_slice(&std::fs::read(&p)?);
                out.push(0);
            }
        }
        Ok(())
    }
    let mut bytes = Vec::new();
    if path.is_dir() {
        walk(path, path, &mut bytes)
    } else {
        std::fs::read(path).map(|b| bytes = b)
    }
    .map_err(|source| ClassError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(hash_hex(&bytes))
}

/// The hashes remembered by the last run (none before the first).
pub fn read_hashes(path: &Path) -> Result<Vec<(String, String)>, ClassError> {
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let mut r = csv::Reader::from_path(path)?;
    r.records()
        .map(|rec| {
            let rec = rec.map_err(|source| ClassError::Hashes {
                path: path.to_path_buf(),
                source,
            })?;
            Ok((from_text_cell(&rec[0]).to_string(), rec[1].to_string()))
        })
        .collect()
}

/// Remembers each student's hash for the next run.
pub fn write_hashes(path: &Path, students: &[Student]) -> Result<(), ClassError> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(["student", "source_hash"])?;
    for s in students {
        w.write_record([text_cell(&s.name).as_ref(), &s.hash])?;
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_hash_ignores_build_outputs_and_follows_the_sources() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot.py"), "print(1)").unwrap();
        let a = submission_hash(dir.path()).unwrap();
        std::fs::create_dir(dir.path().join("__pycache__")).unwrap();
        std::fs::write(dir.path().join("__pycache__/bot.pyc"), "x").unwrap();
        assert_eq!(submission_hash(dir.path()).unwrap(), a);
        std::fs::write(dir.path().join("bot.py"), "print(2)").unwrap();
        assert_ne!(submission_hash(dir.path()).unwrap(), a);
    }
}
