//! One games.csv from the games.csv of several shards of a run: rows are copied as they are
//! (every column kept), each game id once, so the merged file reads like the file of a run played
//! on one machine, and the standings, the report and resume all work on it unchanged. The
//! shards' records.jsonl are merged the same way, so the merged run has its replays.

use crate::results::games_csv::{complete_length, GameRow};
use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// What a merge copied.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MergeSummary {
    /// Rows written (distinct game ids).
    pub written: u64,
    /// Rows whose game id was already copied (from the same file or an earlier one), skipped.
    pub repeated: u64,
    /// Files whose last line was cut off (a shard killed while writing): that line was skipped.
    pub torn: Vec<PathBuf>,
}

/// Copies the rows of `inputs` (games.csv files of `seats`-seat games, all with the same
/// columns) into a new file `out`, each game id once: the first row met wins. `check(input,
/// game_id, bots)` sees every row first and may reject it (a game that does not belong there).
pub fn merge_games(
    inputs: &[PathBuf],
    out: &Path,
    seats: usize,
    mut check: impl FnMut(usize, u64, &[String]) -> Result<()>,
) -> Result<MergeSummary> {
    let mut summary = MergeSummary::default();
    let mut writer =
        csv::Writer::from_path(out).with_context(|| format!("writing {}", out.display()))?;
    let mut header: Option<(csv::StringRecord, PathBuf)> = None;
    let mut seen = crate::results::games_csv::DoneSet::default();
    for (n, path) in inputs.iter().enumerate() {
        let mut file = File::open(path).with_context(|| format!("reading {}", path.display()))?;
        let keep = complete_length(&mut file)?;
        if keep < file.metadata()?.len() {
            summary.torn.push(path.clone());
        }
        file.seek(SeekFrom::Start(0))?;
        let mut reader = csv::Reader::from_reader(BufReader::new(file.take(keep)));
        let columns = reader
            .headers()
            .with_context(|| format!("{}: not a CSV file", path.display()))?
            .clone();
        if columns.is_empty() {
            continue;
        }
        match &header {
            Some((first, from)) if *first != columns => bail!(
                "{} and {} have different columns (files of different arbiter versions or \
                 games?); merge files of one run",
                from.display(),
                path.display()
            ),
            Some(_) => {}
            None => {
                writer.write_record(&columns)?;
                header = Some((columns.clone(), path.clone()));
            }
        }
        let col = |name: &str| columns.iter().position(|h| h == name);
        let id_col =
            col("game_id").with_context(|| format!("{}: no game_id column", path.display()))?;
        let bot_cols: Vec<usize> = (0..seats)
            .map(|i| {
                col(&format!("bot{i}")).with_context(|| {
                    format!(
                        "{}: no bot{i} column (not {seats}-seat games)",
                        path.display()
                    )
                })
            })
            .collect::<Result<_>>()?;
        for (line, record) in reader.records().enumerate() {
            let record = record.with_context(|| format!("{}: row {}", path.display(), line + 2))?;
            let id: u64 = record
                .get(id_col)
                .and_then(|v| v.trim().parse().ok())
                .with_context(|| format!("{}: row {} has no game id", path.display(), line + 2))?;
            let bots: Vec<String> = bot_cols
                .iter()
                .map(|&c| record.get(c).unwrap_or("").to_string())
                .collect();
            check(n, id, &bots).with_context(|| format!("{}: row {}", path.display(), line + 2))?;
            if seen.contains(id) {
                summary.repeated += 1;
                continue;
            }
            seen.insert(id);
            writer.write_record(&record)?;
            summary.written += 1;
        }
    }
    if header.is_none() {
        writer.write_record(GameRow::header(seats))?;
    }
    writer.flush()?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_copied_once_per_game_id_and_a_torn_line_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let head = "game_id,pair_id,bot0,bot1,winner\n";
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.csv");
        std::fs::write(&a, format!("{head}0,0,x,y,0\n1,0,y,x,\n")).unwrap();
        std::fs::write(&b, format!("{head}1,0,y,x,1\n2,1,\"x, q\",y,0\n3,1,y,x")).unwrap();
        let out = dir.path().join("out.csv");
        let mut checked = Vec::new();
        let s = merge_games(&[a.clone(), b.clone()], &out, 2, |n, id, bots| {
            checked.push((n, id, bots.join("|")));
            Ok(())
        })
        .unwrap();
        assert_eq!((s.written, s.repeated), (3, 1));
        assert_eq!(s.torn, vec![b.clone()]);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            format!("{head}0,0,x,y,0\n1,0,y,x,\n2,1,\"x, q\",y,0\n")
        );
        assert_eq!(checked[3], (1, 2, "x, q|y".to_string()));
        // A rejected row stops the merge with the file and row named.
        let err = merge_games(std::slice::from_ref(&a), &out, 2, |_, id, _| {
            if id == 1 {
                bail!("not ours")
            }
            Ok(())
        })
        .unwrap_err();
        assert!(
            format!("{err:#}").contains("a.csv: row 3: not ours"),
            "{err:#}"
        );
        // Other columns are refused.
        std::fs::write(&b, "game_id,bot0,bot1,winner\n").unwrap();
        let err = merge_games(&[a, b], &out, 2, |_, _, _| Ok(())).unwrap_err();
        assert!(err.to_string().contains("different columns"), "{err}");
    }
}

/// What merging records copied.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct RecordsMerged {
    /// Records written (distinct game ids).
    pub written: u64,
    /// Records of a game id already copied, skipped.
    pub repeated: u64,
    /// Lines that are not records (a torn last line of a shard killed while writing), skipped.
    pub skipped: u64,
}

/// Copies the records.jsonl lines of `inputs` (missing files have none) into a new file `out`,
/// each game id once, the first met winning as in [`merge_games`]; lines are copied as they
/// are, one at a time.
pub fn merge_records(inputs: &[PathBuf], out: &Path) -> Result<RecordsMerged> {
    use std::io::{BufRead, Write};
    #[derive(serde::Deserialize)]
    struct Id {
        game_id: u64,
    }
    let mut summary = RecordsMerged::default();
    let tmp = out.with_extension("jsonl.tmp");
    let mut writer = std::io::BufWriter::new(
        File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?,
    );
    let mut seen = crate::results::games_csv::DoneSet::default();
    let mut line = Vec::new();
    for path in inputs {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let mut reader = BufReader::new(file);
        loop {
            line.clear();
            if reader
                .read_until(b'\n', &mut line)
                .with_context(|| format!("reading {}", path.display()))?
                == 0
            {
                break;
            }
            let id = match serde_json::from_slice::<Id>(&line) {
                Ok(id) if line.ends_with(b"\n") => id.game_id,
                _ => {
                    summary.skipped += 1;
                    continue;
                }
            };
            if seen.contains(id) {
                summary.repeated += 1;
                continue;
            }
            seen.insert(id);
            writer.write_all(&line)?;
            summary.written += 1;
        }
    }
    writer
        .into_inner()
        .map_err(|e| e.into_error())
        .and_then(|f| f.sync_all())
        .with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, out).with_context(|| format!("writing {}", out.display()))?;
    Ok(summary)
}

#[cfg(test)]
mod records_tests {
    use super::*;

    #[test]
    fn records_are_merged_each_game_once_and_torn_lines_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, out) = (
            dir.path().join("a.jsonl"),
            dir.path().join("b.jsonl"),
            dir.path().join("out.jsonl"),
        );
        std::fs::write(
            &a,
            "{\"game_id\":1,\"x\":\"a\"}\n{\"game_id\":2,\"x\":\"a\"}\n",
        )
        .unwrap();
        std::fs::write(
            &b,
            "{\"game_id\":2,\"x\":\"b\"}\n{\"game_id\":3}\n{\"game_id\":4,\"x\"",
        )
        .unwrap();
        let missing = dir.path().join("none.jsonl");
        let s = merge_records(&[a, missing, b], &out).unwrap();
        assert_eq!(
            s,
            RecordsMerged {
                written: 3,
                repeated: 1,
                skipped: 1
            }
        );
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "{\"game_id\":1,\"x\":\"a\"}\n{\"game_id\":2,\"x\":\"a\"}\n{\"game_id\":3}\n"
        );
    }
}
