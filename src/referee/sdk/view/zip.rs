//! Reads the files of one folder of a jar (a zip file): the `view/` folder of a game's or an
//! engine's jar, as the SDK's runner reads it from the class path. Only what a jar made by
//! `jar` or Maven holds is read: stored or deflated entries, zip64 sizes and offsets included;
//! a jar is someone else's file, so every size and offset is checked and the files read are
//! capped, never trusted.

use flate2::read::DeflateDecoder;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

const END: u32 = 0x0605_4b50;
const END64: u32 = 0x0606_4b50;
const END64_LOCATOR: u32 = 0x0706_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;

/// A jar that cannot be read as one: why.
fn bad(why: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.into())
}

fn u16_at(b: &[u8], at: usize) -> io::Result<u16> {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or_else(|| bad("a record ends early"))
}

fn u32_at(b: &[u8], at: usize) -> io::Result<u32> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| bad("a record ends early"))
}

fn u64_at(b: &[u8], at: usize) -> io::Result<u64> {
    b.get(at..at + 8)
        .map(|s| u64::from_le_bytes(s.try_into().expect("eight bytes")))
        .ok_or_else(|| bad("a record ends early"))
}

fn read_at(file: &mut File, at: u64, len: usize) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(at))?;
    let mut buf = vec![0; len];
    file.read_exact(&mut buf)?;
    Ok(buf)
}

/// Where the central directory is and how many entries it has: `(offset, size, entries)`.
fn directory(file: &mut File, len: u64) -> io::Result<(u64, u64, u64)> {
    // The end record is the last 22 bytes, before a comment of at most 65535 bytes.
    let tail_len = len.min(22 + 65535);
    let tail = read_at(file, len - tail_len, tail_len as usize)?;
    let at = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(&tail, i).ok() == Some(END))
        .ok_or_else(|| bad("no end of central directory (not a zip file)"))?;
    let entries = u64::from(u16_at(&tail, at + 10)?);
    let size = u64::from(u32_at(&tail, at + 12)?);
    let offset = u64::from(u32_at(&tail, at + 16)?);
    if entries != 0xffff && size != 0xffff_ffff && offset != 0xffff_ffff {
        return Ok((offset, size, entries));
    }
    // Zip64: a locator just before the end record names the zip64 end record.
    let locator = (len - tail_len + at as u64)
        .checked_sub(20)
        .ok_or_else(|| bad("a zip64 jar without its locator"))?;
    let loc = read_at(file, locator, 20)?;
    if u32_at(&loc, 0)? != END64_LOCATOR {
        return Err(bad("a zip64 jar without its locator"));
    }
    let end64 = read_at(file, u64_at(&loc, 8)?, 56)?;
    if u32_at(&end64, 0)? != END64 {
        return Err(bad("a zip64 jar without its end record"));
    }
    Ok((
        u64_at(&end64, 48)?,
        u64_at(&end64, 40)?,
        u64_at(&end64, 32)?,
    ))
}

/// One entry of the central directory that is read.
struct ZipEntry {
    name: String,
    method: u16,
    compressed: u64,
    size: u64,
    local: u64,
}

/// The sizes and offset of an entry from its zip64 extra field, where the directory's own say
/// 0xffffffff.
fn zip64_extra(extra: &[u8], e: &mut ZipEntry, sizes: (u32, u32, u32)) -> io::Result<()> {
    let mut at = 0;
    while at + 4 <= extra.len() {
        let (id, len) = (u16_at(extra, at)?, usize::from(u16_at(extra, at + 2)?));
        if id == 1 {
            let field = extra
                .get(at + 4..at + 4 + len)
                .ok_or_else(|| bad("a zip64 field ends early"))?;
            let mut k = 0;
            if sizes.0 == u32::MAX {
                e.size = u64_at(field, k)?;
                k += 8;
            }
            if sizes.1 == u32::MAX {
                e.compressed = u64_at(field, k)?;
                k += 8;
            }
            if sizes.2 == u32::MAX {
                e.local = u64_at(field, k)?;
            }
            return Ok(());
        }
        at += 4 + len;
    }
    Ok(())
}

/// The files of `jar` whose names start with `prefix` (`view/`), as `(name after the prefix,
/// bytes)`, in the jar's order; `budget` is the most bytes read in all (an error past it).
pub fn files_under(jar: &Path, prefix: &str, budget: u64) -> io::Result<Vec<(String, Vec<u8>)>> {
    let mut file = File::open(jar)?;
    let len = file.metadata()?.len();
    if len < 22 {
        return Err(bad("too short to be a zip file"));
    }
    let (offset, size, entries) = directory(&mut file, len)?;
    if offset.checked_add(size).is_none_or(|end| end > len) {
        return Err(bad("its central directory lies outside the file"));
    }
    let dir = read_at(&mut file, offset, size as usize)?;
    let mut wanted = Vec::new();
    let mut at = 0usize;
    for _ in 0..entries {
        if u32_at(&dir, at)? != CENTRAL {
            return Err(bad("a damaged central directory"));
        }
        let method = u16_at(&dir, at + 10)?;
        let sizes = (
            u32_at(&dir, at + 24)?,
            u32_at(&dir, at + 20)?,
            u32_at(&dir, at + 42)?,
        );
        let name_len = usize::from(u16_at(&dir, at + 28)?);
        let extra_len = usize::from(u16_at(&dir, at + 30)?);
        let comment_len = usize::from(u16_at(&dir, at + 32)?);
        let name = dir
            .get(at + 46..at + 46 + name_len)
            .ok_or_else(|| bad("a damaged central directory"))?;
        let extra = dir
            .get(at + 46 + name_len..at + 46 + name_len + extra_len)
            .ok_or_else(|| bad("a damaged central directory"))?;
        at += 46 + name_len + extra_len + comment_len;
        let Ok(name) = std::str::from_utf8(name) else {
            continue;
        };
        let Some(rest) = name.strip_prefix(prefix) else {
            continue;
        };
        if rest.is_empty() || rest.ends_with('/') {
            continue;
        }
        let mut e = ZipEntry {
            name: rest.to_string(),
            method,
            compressed: u64::from(sizes.1),
            size: u64::from(sizes.0),
            local: u64::from(sizes.2),
        };
        zip64_extra(extra, &mut e, sizes)?;
        wanted.push(e);
    }
    let mut out = Vec::with_capacity(wanted.len());
    let mut left = budget;
    for e in wanted {
        if e.size > left {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!("its {prefix} files are over {} MiB", budget >> 20),
            ));
        }
        let head = read_at(&mut file, e.local, 30)?;
        if u32_at(&head, 0)? != LOCAL {
            return Err(bad(format!("the entry {prefix}{} is damaged", e.name)));
        }
        let skip = 30 + u64::from(u16_at(&head, 26)?) + u64::from(u16_at(&head, 28)?);
        let start = e.local + skip;
        if start.checked_add(e.compressed).is_none_or(|end| end > len) {
            return Err(bad(format!(
                "the entry {prefix}{} lies outside the file",
                e.name
            )));
        }
        file.seek(SeekFrom::Start(start))?;
        let raw = (&mut file).take(e.compressed);
        let mut bytes = Vec::with_capacity(e.size as usize);
        match e.method {
            0 => raw.take(e.size).read_to_end(&mut bytes)?,
            8 => DeflateDecoder::new(raw)
                .take(e.size)
                .read_to_end(&mut bytes)?,
            m => {
                return Err(bad(format!(
                    "the entry {prefix}{} is packed by method {m}, which arbiter does not read",
                    e.name
                )))
            }
        };
        if bytes.len() as u64 != e.size {
            return Err(bad(format!("the entry {prefix}{} is damaged", e.name)));
        }
        left -= e.size;
        out.push((e.name, bytes));
    }
    Ok(out)
}

#[cfg(test)]
/// A zip of `files` (name, bytes, deflated?), as `jar` writes one.
pub(super) fn tests_zip(files: &[(&str, &[u8], bool)]) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data, deflate) in files {
        let packed = if *deflate {
            let mut z = flate2::write::DeflateEncoder::new(Vec::new(), Default::default());
            z.write_all(data).unwrap();
            z.finish().unwrap()
        } else {
            data.to_vec()
        };
        let method: u16 = if *deflate { 8 } else { 0 };
        let local = out.len() as u32;
        out.extend_from_slice(&LOCAL.to_le_bytes());
        out.extend_from_slice(&[20, 0, 0, 0]);
        out.extend_from_slice(&method.to_le_bytes());
        out.extend_from_slice(&[0; 8]); // time, date, crc (not checked)
        out.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&packed);
        central.extend_from_slice(&CENTRAL.to_le_bytes());
        central.extend_from_slice(&[20, 0, 20, 0, 0, 0]);
        central.extend_from_slice(&method.to_le_bytes());
        central.extend_from_slice(&[0; 8]);
        central.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        central.extend_from_slice(&(data.len() as u32).to_le_bytes());
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&local.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let at = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&END.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jars_view_folder_is_read_stored_or_deflated_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let jar = dir.path().join("game.jar");
        let big = "export const x = 1;\n".repeat(500);
        std::fs::write(
            &jar,
            tests_zip(&[
                ("com/codingame/game/Referee.class", b"\xca\xfe", false),
                ("view/", b"", false),
                ("view/config.js", big.as_bytes(), true),
                ("view/assets/a.png", b"\x89PNG", false),
            ]),
        )
        .unwrap();
        let files = files_under(&jar, "view/", 1 << 20).unwrap();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["config.js", "assets/a.png"]);
        assert_eq!(files[0].1, big.as_bytes());
        assert_eq!(files[1].1, b"\x89PNG");
        // The budget caps what is read: a bomb is refused, not unpacked.
        let err = files_under(&jar, "view/", 100).unwrap_err();
        assert!(err.to_string().contains("over"), "{err}");
        // Not a zip, or a damaged one: an error, never a panic.
        std::fs::write(&jar, b"not a zip at all, just some bytes").unwrap();
        assert!(files_under(&jar, "view/", 1 << 20).is_err());
        let mut cut = tests_zip(&[("view/config.js", big.as_bytes(), true)]);
        let n = cut.len();
        cut[n - 6..n - 2].copy_from_slice(&u32::MAX.wrapping_sub(5).to_le_bytes());
        std::fs::write(&jar, cut).unwrap();
        assert!(files_under(&jar, "view/", 1 << 20).is_err());
    }
}
