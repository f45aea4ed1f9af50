//! The members of an uploaded tar archive, with their GNU long names and PAX headers applied,
//! each such header bounded before a byte of it is read. The tar crate reads a long name or a
//! PAX header whole into memory, whatever size its header announces: a 1 MiB gzip'd upload
//! whose long name asked for 1 GiB took the server to 1.13 GB (the cap on what an upload
//! unpacks to counts files, not headers). So the archive is read raw (every header an entry of
//! its own) and the extension headers are applied here: a name or a PAX header is at most
//! [`MAX_HEADER_BYTES`], a member has at most one of each kind, and a PAX size that differs
//! from the member's own header is refused (two readers would see two archives).

use std::io::Read;
use std::path::PathBuf;
use tar::EntryType;

/// The largest GNU long name, long link name or PAX header, in bytes (a path is at most 4 KiB
/// on Linux).
pub const MAX_HEADER_BYTES: u64 = 64 << 10;

/// A member of the archive: its entry (its data to read) and the path and link target its
/// headers give.
pub struct Member<'a, R: Read> {
    pub entry: tar::Entry<'a, R>,
    pub path: PathBuf,
    /// A link's target (none for a file or a folder).
    pub link: Option<PathBuf>,
}

/// An archive that cannot be read member by member.
#[derive(Debug, thiserror::Error)]
pub enum MemberError {
    #[error(
        "its {what} announces {size} bytes, past the {MAX_HEADER_BYTES} a name or header may \
         hold"
    )]
    TooLong { what: &'static str, size: u64 },
    #[error("it holds two {what}s for one member")]
    Twice { what: &'static str },
    #[error("a PAX header gives a member the size {pax}, and the member's own header {own}")]
    SizeDiffers { pax: String, own: u64 },
    #[error("{0}")]
    Read(#[from] std::io::Error),
}

/// The members of a tar archive (see the module's doc).
pub struct Members<'a, R: Read> {
    entries: tar::Entries<'a, R>,
}

impl<'a, R: Read> Members<'a, R> {
    pub fn new(archive: &'a mut tar::Archive<R>) -> std::io::Result<Members<'a, R>> {
        Ok(Members {
            entries: archive.entries()?.raw(true),
        })
    }
}

/// What the extension headers before a member said.
#[derive(Default)]
struct Extensions {
    long_name: Option<Vec<u8>>,
    long_link: Option<Vec<u8>>,
    pax: Option<Vec<u8>>,
}

fn bytes_path(mut bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    while let [rest @ .., 0] = bytes {
        bytes = rest;
    }
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

impl<'a, R: Read> Iterator for Members<'a, R> {
    type Item = Result<Member<'a, R>, MemberError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut ext = Extensions::default();
        loop {
            let mut entry = match self.entries.next()? {
                Ok(e) => e,
                Err(e) => return Some(Err(e.into())),
            };
            let kind = entry.header().entry_type();
            let what = match kind {
                EntryType::GNULongName => "GNU long name",
                EntryType::GNULongLink => "GNU long link name",
                EntryType::XHeader => "PAX header",
                EntryType::XGlobalHeader => "PAX global header",
                _ => return Some(member(entry, ext)),
            };
            let size = match entry.header().entry_size() {
                Ok(s) => s,
                Err(e) => return Some(Err(e.into())),
            };
            if size > MAX_HEADER_BYTES {
                return Some(Err(MemberError::TooLong { what, size }));
            }
            let mut data = Vec::new();
            if let Err(e) = (&mut entry).take(MAX_HEADER_BYTES).read_to_end(&mut data) {
                return Some(Err(e.into()));
            }
            let slot = match kind {
                EntryType::GNULongName => &mut ext.long_name,
                EntryType::GNULongLink => &mut ext.long_link,
                EntryType::XHeader => &mut ext.pax,
                // A global header says nothing a bot's files need.
                _ => continue,
            };
            if slot.is_some() {
                return Some(Err(MemberError::Twice { what }));
            }
            *slot = Some(data);
        }
    }
}

/// A member with the extension headers before it applied (as the tar crate applies them: a
/// GNU long name before a PAX path, a PAX path before the header's own).
fn member<R: Read>(
    entry: tar::Entry<'_, R>,
    ext: Extensions,
) -> Result<Member<'_, R>, MemberError> {
    let mut pax_path = None;
    let mut pax_link = None;
    if let Some(pax) = &ext.pax {
        for field in tar::PaxExtensions::new(pax) {
            let field = field?;
            match field.key_bytes() {
                b"path" => pax_path = Some(bytes_path(field.value_bytes())),
                b"linkpath" => pax_link = Some(bytes_path(field.value_bytes())),
                b"size" => {
                    let own = entry.header().entry_size()?;
                    let pax = String::from_utf8_lossy(field.value_bytes()).into_owned();
                    if pax.trim().parse::<u64>().ok() != Some(own) {
                        return Err(MemberError::SizeDiffers { pax, own });
                    }
                }
                _ => {}
            }
        }
    }
    let header = entry.header();
    let path = ext
        .long_name
        .as_deref()
        .map(bytes_path)
        .or(pax_path)
        .unwrap_or_else(|| bytes_path(&header.path_bytes()));
    let link = ext
        .long_link
        .as_deref()
        .map(bytes_path)
        .or(pax_link)
        .or_else(|| header.link_name_bytes().map(|b| bytes_path(&b)));
    Ok(Member { entry, path, link })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tar whose first header is of `kind` and announces `size` bytes (only 512 follow).
    fn announcing(kind: EntryType, size: u64) -> Vec<u8> {
        let mut h = tar::Header::new_gnu();
        h.as_gnu_mut().unwrap().name[..13].copy_from_slice(b"././@LongLink");
        h.set_entry_type(kind);
        h.set_size(size);
        h.set_mode(0o644);
        h.set_cksum();
        let mut out = h.as_bytes().to_vec();
        out.extend_from_slice(&[b'a'; 512]);
        out
    }

    fn paths(bytes: &[u8]) -> Result<Vec<(String, Option<String>)>, MemberError> {
        let mut archive = tar::Archive::new(bytes);
        Members::new(&mut archive)?
            .map(|m| {
                m.map(|m| {
                    (
                        m.path.display().to_string(),
                        m.link.map(|l| l.display().to_string()),
                    )
                })
            })
            .collect()
    }

    #[test]
    fn long_names_and_pax_paths_apply_and_huge_ones_are_refused_unread() {
        // Long names as GNU tar and PAX write them (the tar crate's builder writes GNU ones).
        let long = "d/".repeat(80) + "bot.py";
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_size(2);
        h.set_mode(0o644);
        b.append_data(&mut h, &long, &b"ok"[..]).unwrap();
        b.append_pax_extensions([("path", b"p/pax.py".as_slice())])
            .unwrap();
        let mut h = tar::Header::new_ustar();
        h.set_path("short.py").unwrap();
        h.set_size(1);
        h.set_cksum();
        b.append(&h, &b"x"[..]).unwrap();
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(EntryType::Symlink);
        h.set_size(0);
        b.append_link(&mut h, "l", "lib/x.py").unwrap();
        let bytes = b.into_inner().unwrap();
        assert_eq!(
            paths(&bytes).unwrap(),
            vec![
                (long.clone(), None),
                ("p/pax.py".into(), None),
                ("l".into(), Some("lib/x.py".into()))
            ]
        );

        for kind in [
            EntryType::GNULongName,
            EntryType::GNULongLink,
            EntryType::XHeader,
            EntryType::XGlobalHeader,
        ] {
            let err = paths(&announcing(kind, 1 << 30)).err().unwrap();
            assert!(
                matches!(err, MemberError::TooLong { size, .. } if size == 1 << 30),
                "{err}"
            );
        }

        let mut b = tar::Builder::new(Vec::new());
        b.append_pax_extensions([("size", b"100".as_slice())])
            .unwrap();
        let mut h = tar::Header::new_ustar();
        h.set_path("a").unwrap();
        h.set_size(1);
        h.set_cksum();
        b.append(&h, &b"x"[..]).unwrap();
        let err = paths(&b.into_inner().unwrap()).err().unwrap();
        assert!(matches!(err, MemberError::SizeDiffers { .. }), "{err}");
    }
}
