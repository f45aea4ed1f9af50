//! A bot cgroup's control files, opened once when the cgroup is made and read or written in
//! place from then on. A cgroup serves bot after bot (see `pool`), and every bot's end reads a
//! dozen of its files (what is still in it, its OOM-kill and refused-fork counts, its task
//! count, freezer state and memory charge) and writes its next memory limit. Opening a cgroup
//! file, reading it and closing it cost about 7 µs of CPU on the 2-core VM; reading one held
//! open, from offset 0 (the kernel writes it afresh for each read), under 1 µs; and a game's
//! end made some 35 such reads on the game's thread.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The files a cgroup's bots' ends use; `None` (or empty) where the controller is missing, and
/// for a stale cgroup found on disk, whose few files are then read by path.
#[derive(Debug, Default)]
pub(super) struct Control {
    /// `cgroup.procs` of each of the cgroup's folders (one per controller in v1).
    pub(super) procs: Vec<File>,
    /// v1 `memory.oom_control`, v2 `memory.events` (the `oom_kill` count).
    pub(super) oom: Option<File>,
    /// v1 `memory.usage_in_bytes`, v2 `memory.current`.
    pub(super) usage: Option<File>,
    /// v1 `memory.limit_in_bytes`, v2 `memory.max`, read and written.
    pub(super) limit: Option<File>,
    /// v1 `memory.memsw.limit_in_bytes`, where swap is accounted.
    pub(super) memsw: Option<File>,
    /// `pids.events` (the `max` count of refused forks).
    pub(super) pids_events: Option<File>,
    /// `pids.current`.
    pub(super) pids_current: Option<File>,
    /// `pids.peak` (Linux 6.1 and later): the most tasks it ever held at once.
    pub(super) pids_peak: Option<File>,
    /// What tells whether the freezer has thawed: v1 `freezer.state`, v2 `cgroup.events`.
    pub(super) freeze_state: Option<File>,
    /// The CPU time of the cgroup's tasks: v1 `cpuacct.usage` (ns), v2 `cpu.stat` (the
    /// `usage_usec` line); true for v2.
    pub(super) cpu: Option<(File, bool)>,
}

impl Control {
    /// Opens the files of a cgroup made in `dirs` (one per controller in v1), with its memory,
    /// pids and freezer folders where it has those controllers.
    pub(super) fn open(
        dirs: &[PathBuf],
        memory: Option<&Path>,
        pids: Option<&Path>,
        freezer: Option<&Path>,
        cpu: Option<&Path>,
        v2: bool,
    ) -> Control {
        let mut c = Control {
            procs: dirs
                .iter()
                .filter_map(|d| reader(d, "cgroup.procs"))
                .collect(),
            ..Control::default()
        };
        if let Some(dir) = memory {
            let (oom, usage, limit) = match v2 {
                true => ("memory.events", "memory.current", "memory.max"),
                false => (
                    "memory.oom_control",
                    "memory.usage_in_bytes",
                    "memory.limit_in_bytes",
                ),
            };
            c.oom = reader(dir, oom);
            c.usage = reader(dir, usage);
            c.limit = read_writer(dir, limit);
            c.memsw = (!v2)
                .then(|| writer(dir, "memory.memsw.limit_in_bytes"))
                .flatten();
        }
        if let Some(dir) = pids {
            c.pids_events = reader(dir, "pids.events");
            c.pids_current = reader(dir, "pids.current");
            c.pids_peak = reader(dir, "pids.peak");
        }
        if let Some(dir) = freezer {
            let state = if v2 { "cgroup.events" } else { "freezer.state" };
            c.freeze_state = reader(dir, state);
        }
        if let Some(dir) = cpu {
            let file = if v2 { "cpu.stat" } else { "cpuacct.usage" };
            c.cpu = reader(dir, file).map(|f| (f, v2));
        }
        c
    }

    /// The cgroup's CPU time so far (see [`Control::cpu`]).
    pub(super) fn cpu_usage(&self) -> Option<Duration> {
        let (file, v2) = self.cpu.as_ref()?;
        let mut buf = [0u8; 64];
        match v2 {
            // usage_usec is its first line.
            true => {
                let n = file.read_at(&mut buf, 0).ok()?;
                let line = std::str::from_utf8(&buf[..n]).ok()?.lines().next()?;
                let usec = line.strip_prefix("usage_usec ")?.trim().parse().ok()?;
                Some(Duration::from_micros(usec))
            }
            false => {
                let n = file.read_at(&mut buf, 0).ok()?;
                let ns = std::str::from_utf8(&buf[..n]).ok()?.trim().parse().ok()?;
                Some(Duration::from_nanos(ns))
            }
        }
    }
}

/// `dir/name`, open for reading.
pub(super) fn reader(dir: &Path, name: &str) -> Option<File> {
    crate::bot::machine::open(dir.join(name)).ok()
}

/// `dir/name`, open for reading and writing.
pub(super) fn read_writer(dir: &Path, name: &str) -> Option<File> {
    crate::bot::machine::open_with(OpenOptions::new().read(true).write(true), dir.join(name)).ok()
}

/// `dir/name`, open for writing.
pub(super) fn writer(dir: &Path, name: &str) -> Option<File> {
    crate::bot::machine::open_with(OpenOptions::new().write(true), dir.join(name)).ok()
}

/// The whole text of a control file, read from its start into `text`; false if it cannot be
/// read. Control files are lines of at most a few dozen bytes: a read that leaves more room
/// than the longest line in the buffer has reached the end, so a short file takes one call.
pub(super) fn read(file: &File, text: &mut Vec<u8>) -> bool {
    const ROOM: usize = 256;
    text.clear();
    let mut buf = [0u8; 4096];
    loop {
        match file.read_at(&mut buf, text.len() as u64) {
            Ok(0) => return true,
            Ok(n) => {
                text.extend_from_slice(&buf[..n]);
                if n + ROOM <= buf.len() {
                    return true;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// The number a one-number control file holds.
pub(super) fn number(file: &File) -> Option<u64> {
    let mut text = Vec::new();
    read(file, &mut text).then_some(())?;
    std::str::from_utf8(&text).ok()?.trim().parse().ok()
}

/// The number after `key` in a control file of "key value" lines (0 when missing).
pub(super) fn count(text: &[u8], key: &str) -> u64 {
    String::from_utf8_lossy(text)
        .lines()
        .find_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some(key)).then(|| words.next()?.parse().ok())?
        })
        .unwrap_or(0)
}

/// [`count`] of a control file's text (0 when missing or unreadable).
pub(super) fn count_in(file: Option<&File>, key: &str) -> u64 {
    let mut text = Vec::new();
    match file {
        Some(f) if read(f, &mut text) => count(&text, key),
        _ => 0,
    }
}

/// Writes `text` to a control file (each write is one whole setting).
pub(super) fn write(file: &File, text: &str) -> bool {
    file.write_at(text.as_bytes(), 0)
        .is_ok_and(|n| n == text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_longer_than_one_read_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let long: String = (0..3000).map(|i| format!("{i}\n")).collect();
        std::fs::write(dir.path().join("cgroup.procs"), &long).unwrap();
        std::fs::write(dir.path().join("pids.events"), "max 7\n").unwrap();
        let mut text = Vec::new();
        assert!(read(
            &reader(dir.path(), "cgroup.procs").unwrap(),
            &mut text
        ));
        assert_eq!(String::from_utf8(text.clone()).unwrap(), long);
        assert!(read(&reader(dir.path(), "pids.events").unwrap(), &mut text));
        assert_eq!(count(&text, "max"), 7);
        assert_eq!(count(&text, "oom_kill"), 0);
    }

    #[test]
    fn a_file_held_open_reads_its_new_text_and_takes_writes_in_place() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("memory.max"), "1000\n").unwrap();
        let f = read_writer(dir.path(), "memory.max").unwrap();
        assert_eq!(number(&f), Some(1000));
        assert!(write(&f, "2048\n"));
        assert_eq!(number(&f), Some(2048));
        // Changed by someone else: read afresh.
        std::fs::write(dir.path().join("memory.max"), "77\n").unwrap();
        assert_eq!(number(&f), Some(77));
    }
}
