//! Rows of a games.csv that no reader takes (a row a forged result left before results were
//! checked, a hand edit gone wrong), set aside so that the rest of the file is read: each goes,
//! with its row number, its text and why, to a log beside it, and the file is rewritten without
//! it (whole or not at all: a new file renamed over the old). A league does this at its start
//! (issue 45): one bad row no longer refuses the whole league, and its game, never recorded,
//! is played again.

use super::complete_length;
use super::read::CsvColumns;
use crate::utc::UtcTime;
use serde::Serialize;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// A row set aside.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SetAside {
    /// The file it was in.
    pub file: String,
    /// Its row (the header is row 1).
    pub row: u64,
    /// Why no reader takes it.
    pub why: String,
    /// Its text as it was.
    pub text: String,
    /// When it was set aside.
    pub at: UtcTime,
}

/// Sets aside every row of the games.csv at `path` that is not a game (see the module's doc):
/// appended to the JSON-lines log `log`, then the file rewritten without them. A missing file,
/// or one whose header is no results file's, is left as it is (its reader says why). Returns
/// the rows set aside.
pub fn set_aside(path: &Path, log: &Path, at: UtcTime) -> io::Result<Vec<SetAside>> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let complete = complete_length(&mut file)?;
    file.seek(SeekFrom::Start(0))?;
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(BufReader::new((&file).take(complete)));
    let Ok(headers) = reader.headers().cloned() else {
        return Ok(Vec::new());
    };
    let Ok(cols) = CsvColumns::find(&headers, path) else {
        return Ok(Vec::new());
    };
    let id_col = headers.iter().position(|h| h == "game_id");
    // (row, start, end, why) of each bad row.
    let mut bad: Vec<(u64, u64, u64, String)> = Vec::new();
    let mut rec = csv::StringRecord::new();
    let mut row = 1u64;
    loop {
        let start = reader.position().byte();
        let more = match reader.read_record(&mut rec) {
            Ok(more) => more,
            Err(e) => {
                // Not CSV from here on (an unclosed quote): the rest goes aside whole.
                bad.push((row + 1, start, complete, format!("not a CSV row: {e}")));
                break;
            }
        };
        if !more {
            break;
        }
        row += 1;
        let end = reader.position().byte();
        let why = if rec.len() != headers.len() {
            Some(format!(
                "{} fields where the header has {}",
                rec.len(),
                headers.len()
            ))
        } else {
            match cols.read(&rec) {
                Err(why) => Some(why),
                Ok(r) if id_col.is_some() && r.game_id.is_none() => Some("no game id".into()),
                Ok(_) => None,
            }
        };
        if let Some(why) = why {
            bad.push((row, start, end, why));
        }
    }
    drop(reader);
    if bad.is_empty() {
        return Ok(Vec::new());
    }
    let text_of = |file: &mut File, start: u64, end: u64| -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; (end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut buf)?;
        Ok(buf)
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut aside = Vec::new();
    for (row, start, end, why) in &bad {
        let text = text_of(&mut file, *start, *end)?;
        aside.push(SetAside {
            file: name.clone(),
            row: *row,
            why: why.clone(),
            text: String::from_utf8_lossy(&text).trim_end().to_string(),
            at,
        });
    }
    // The log first: a row is never lost, even if the rewrite is cut short.
    let mut lines = Vec::new();
    for a in &aside {
        serde_json::to_writer(&mut lines, a).map_err(io::Error::other)?;
        lines.push(b'\n');
    }
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    out.write_all(&lines)?;
    out.sync_all()?;
    // The file without them (and its torn tail, if any, as it was).
    let total = file.metadata()?.len();
    let tmp = path.with_extension("csv.set-aside.tmp");
    {
        let mut w = io::BufWriter::new(File::create(&tmp)?);
        let mut at = 0u64;
        for (_, start, end, _) in &bad {
            w.write_all(&text_of(&mut file, at, *start)?)?;
            at = *end;
        }
        w.write_all(&text_of(&mut file, at, total)?)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(aside)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_rows_are_set_aside_with_their_row_and_why_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let log = dir.path().join("aside.jsonl");
        let head = "game_id,pair_id,bot0,bot1,rank0,rank1,reason,forfeits\n";
        let good1 = "0,0,a,b,0,1,win,\n";
        let bad1 = "1,0,b,a,1,0,crash,7:crash\n";
        let good2 = "2,1,a,b,0,0,draw-threefold,\n";
        let bad2 = "not,a,row\n";
        let torn = "3,1,b,a,0";
        std::fs::write(&path, [head, good1, bad1, good2, bad2, torn].concat()).unwrap();
        let aside = set_aside(&path, &log, UtcTime::now()).unwrap();
        assert_eq!(aside.len(), 2, "{aside:?}");
        assert_eq!((aside[0].row, aside[1].row), (3, 5));
        assert!(aside[0].why.contains("forfeits"), "{aside:?}");
        assert_eq!(aside[0].text, bad1.trim_end());
        assert!(aside[1].why.contains("3 fields"), "{aside:?}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            [head, good1, good2, torn].concat()
        );
        let kept = std::fs::read_to_string(&log).unwrap();
        assert_eq!(kept.lines().count(), 2);
        assert!(kept.contains("7:crash"), "{kept}");
        // A clean file is left alone; a missing one too.
        assert!(set_aside(&path, &log, UtcTime::now()).unwrap().is_empty());
        assert!(
            set_aside(&dir.path().join("none.csv"), &log, UtcTime::now())
                .unwrap()
                .is_empty()
        );
    }
}
