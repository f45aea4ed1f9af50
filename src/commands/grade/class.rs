//! The class folder of `arbiter grade`: which entries are students, and the hash of each
//! submission, remembered between runs in submissions.csv so that a re-run knows who changed.

use super::marks::Student;
use anyhow::{bail, Context, Result};
use arbiter::bot::source::{hash_hex, Language};
use std::path::Path;

/// The file that remembers each student's submission hash between runs.
pub const HASHES: &str = "submissions.csv";

/// Names skipped when hashing a folder: build outputs and caches, which change without the
/// student changing anything.
const NOT_HASHED: &[&str] = &["target", "__pycache__", "node_modules"];

/// The students of a class folder: every subfolder, and every file that is a bot source or an
/// executable (hidden entries skipped), sorted by name. Returns `(entry name, student name)`.
pub fn list_students(dir: &Path) -> Result<Vec<(String, String)>> {
    use std::os::unix::fs::PermissionsExt;
    let mut found = Vec::new();
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("reading the class folder {}", dir.display()))?;
    for entry in entries {
        let entry = entry?;
        let entry_name = entry.file_name().to_string_lossy().into_owned();
        if entry_name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let meta = std::fs::metadata(&path)?;
        let student = if meta.is_dir() {
            entry_name.clone()
        } else if Language::of(&path).is_some() || meta.permissions().mode() & 0o111 != 0 {
            path.file_stem()
                .map_or(entry_name.clone(), |s| s.to_string_lossy().into_owned())
        } else {
            eprintln!(
                "arbiter: skipping {}: not a bot source file, an executable or a folder",
                path.display()
            );
            continue;
        };
        found.push((entry_name, student));
    }
    found.sort();
    for (i, (entry, student)) in found.iter().enumerate() {
        if let Some((other, _)) = found[..i].iter().find(|(_, s)| s == student) {
            bail!(
                "{other} and {entry} in {} would both be student '{student}'; keep one submission per student",
                dir.display()
            );
        }
    }
    Ok(found)
}

/// SHA-256 over a submission: a file's bytes, or every file of a folder (relative path and
/// bytes, in name order; hidden entries and build outputs left out).
pub fn submission_hash(path: &Path) -> Result<String> {
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
    .with_context(|| format!("reading {}", path.display()))?;
    Ok(hash_hex(&bytes))
}

pub fn read_hashes(path: &Path) -> Result<Vec<(String, String)>> {
    if !path.is_file() {
        return Ok(Vec::new());
    }
    let mut r = csv::Reader::from_path(path)?;
    r.records()
        .map(|rec| {
            let rec = rec.with_context(|| format!("reading {}", path.display()))?;
            Ok((rec[0].to_string(), rec[1].to_string()))
        })
        .collect()
}

pub fn write_hashes(path: &Path, students: &[Student]) -> Result<()> {
    let mut w = csv::Writer::from_path(path)?;
    w.write_record(["student", "source_hash"])?;
    for s in students {
        w.write_record([&s.name, &s.hash])?;
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
