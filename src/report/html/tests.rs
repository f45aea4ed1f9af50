use super::*;
use crate::game::GAMES;
use crate::referee::GameChoice;
use crate::referee::RefereeConfig;
use crate::results::games_csv::{GameRow, GamesCsv};
use crate::results::records::tests::{simulate, spec};
use crate::results::records::{GameRecord, RecordsFile};

#[test]
fn every_game_and_variant_gets_a_replay_page() {
    let cfg = RefereeConfig::default();
    for info in GAMES {
        for v in info.variants {
            for &seats in v.seats {
                let choice = GameChoice::new(info.name, Some(v.name), Some(seats), None).unwrap();
                let mut r = simulate(&choice, 2, 2, None);
                r.log[0].comment = "</script><script>alert(1)</script>".into();
                r.log[0].answer = format!("{} {}", r.log[0].played, r.log[0].comment);
                let rec = GameRecord::new(&spec(1), &choice, &cfg, &r);
                let html = viewer::page(&rec, Some("../report.html")).unwrap();
                let what = format!("{} {} {seats}", info.name, v.name);
                // One closing tag per script element (the viewer's and the data's): the comment
                // cannot end the data early (it is in the compressed data, not in the page's
                // text).
                assert_eq!(html.matches("</script>").count(), 2, "{what}");
                assert!(!html.contains("alert(1)"), "{what}");
                let data = reference::game_data(&rec, "t", frames::Inputs::All).unwrap();
                let steps = data["steps"].as_array().unwrap();
                assert_eq!(steps.len(), r.opening.len() + r.moves.len(), "{what}");
                assert_eq!(
                    data["cells"].as_array().unwrap().len(),
                    choice.start(2).unwrap().view().cells.len()
                );
                // Each move but a pass changes the board or its notes, and the changes are what
                // the viewer highlights.
                for s in steps.iter().filter(|s| s["move"] != "pass") {
                    assert!(
                        !s["ch"].as_array().unwrap().is_empty() || s.get("notes").is_some(),
                        "{what}: a move that changes nothing: {s}"
                    );
                }
            }
        }
    }
}

/// The page's JSON, written straight into buffers, is byte for byte what the page's script has
/// always read (the reference, built as value trees), for every game, variant and seat count:
/// with and without an opening, with comments, answers that are more than the move, stderr,
/// strikes, eliminations, a forfeit that ends the game and text HTML would escape.
#[test]
fn page_json_is_the_reference_format_byte_for_byte() {
    use crate::referee::{Forfeit, Reason};
    let cfg = RefereeConfig::default();
    for info in GAMES {
        for v in info.variants {
            for &seats in v.seats {
                let choice = GameChoice::new(info.name, Some(v.name), Some(seats), None).unwrap();
                for (seed, plies, drop) in [(2, 2, None), (3, 0, Some((4, 1))), (4, 1, None)] {
                    let mut r = simulate(&choice, seed, plies, drop);
                    let what = format!("{} {} {seats} seed {seed}", info.name, v.name);
                    if seed == 4 {
                        // Answers written otherwise than the move and its comment, and a crash
                        // that ends the game.
                        let l = &mut r.log[1];
                        (l.comment, l.answer) = ("c".into(), format!("{}  c", l.played));
                        let l = &mut r.log[2];
                        (l.comment, l.answer) = ("</script>".into(), format!("{} c", l.played));
                        r.offender = Some(1);
                        r.reason = Reason::Crash;
                        r.forfeits.push(Forfeit {
                            seat: 1,
                            reason: Reason::Crash,
                            detail: "exit status 3 \"<b>\"".into(),
                            turn: r.turns + 1,
                            exit: None,
                        });
                        r.stderr_tails[1] = "Traceback\n  line 3\n</script>".into();
                    }
                    let rec = GameRecord::new(&spec(1), &choice, &cfg, &r);
                    let title = "t <b>\"é\"</b>";
                    for inputs in [frames::Inputs::All, frames::Inputs::Telling] {
                        let want = reference::game_data(&rec, title, inputs).unwrap();
                        let got = frames::page_json(&rec, title, inputs).unwrap();
                        assert_eq!(
                            String::from_utf8(got).unwrap(),
                            serde_json::to_string(&reference::columns(&want)).unwrap(),
                            "{what} {inputs:?}"
                        );
                    }
                }
            }
        }
    }
}

/// An Impasse run's results folder with its games.csv and records.jsonl open.
pub(super) struct TestFolder {
    pub(super) _dir: tempfile::TempDir,
    pub(super) d: std::path::PathBuf,
    pub(super) cfg: RefereeConfig,
    pub(super) choice: GameChoice,
    pub(super) csv: GamesCsv,
    pub(super) recs: RecordsFile,
}

impl TestFolder {
    /// Records simulated games `ids` (games.csv and records.jsonl).
    pub(super) fn record(&mut self, ids: std::ops::Range<u64>) {
        for id in ids {
            let r = simulate(&self.choice, id, 0, None);
            self.csv.append(&GameRow::new(&spec(id), &r)).unwrap();
            self.recs
                .append(&GameRecord::new(&spec(id), &self.choice, &self.cfg, &r))
                .unwrap();
        }
    }
}

pub(super) fn folder() -> TestFolder {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    TestFolder {
        cfg: RefereeConfig::default(),
        choice: GameChoice::new("impasse", None, None, None).unwrap(),
        csv: GamesCsv::open(&d.join("games.csv"), 2).unwrap().0,
        recs: RecordsFile::open(&d.join(records::FILE)).unwrap(),
        _dir: dir,
        d,
    }
}

#[test]
fn a_report_lists_every_game_and_links_the_recorded_ones() {
    let TestFolder {
        _dir,
        d,
        cfg,
        choice,
        mut csv,
        mut recs,
    } = folder();
    for id in 0..4 {
        let mut r = simulate(&choice, id, 2, None);
        r.bots = if id % 2 == 0 {
            vec!["a".into(), "b".into()]
        } else {
            vec!["b".into(), "a".into()]
        };
        r.ranks = vec![0, 1];
        r.winner = Some(0);
        csv.append(&GameRow::new(&spec(id), &r)).unwrap();
        // Game 3 has no record (a run from before records, or killed between the two files).
        if id != 3 {
            recs.append(&GameRecord::new(&spec(id), &choice, &cfg, &r))
                .unwrap();
        }
    }
    drop((csv, recs));
    let out = d.join(FILE);
    let w = write_report(std::slice::from_ref(&d), &out, &[], Pages::All).unwrap();
    assert_eq!((w.games, w.pages), (4, 3));
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        html.matches("href=\"replays/replay.html#game=").count(),
        3,
        "links to recorded games only"
    );
    assert!(
        html.contains("<td class=\"games\">4</td>"),
        "each bot played 4 games"
    );
    assert!(replay_path(&d, 2).exists());
    // A live rewrite writes only the replay data that is missing.
    std::fs::write(replay_path(&d, 2), "kept").unwrap();
    let w = write_report(std::slice::from_ref(&d), &out, &[], Pages::Missing).unwrap();
    assert_eq!(w.pages, 0);
    assert_eq!(std::fs::read_to_string(replay_path(&d, 2)).unwrap(), "kept");
}

#[test]
fn a_report_writes_every_missing_games_data_and_the_viewer_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    let cfg = RefereeConfig::default();
    let choice = GameChoice::new("moscow-ice", None, Some(4), None).unwrap();
    let (mut csv, _) = GamesCsv::open(&d.join("games.csv"), 4).unwrap();
    let mut recs = RecordsFile::open(&d.join(records::FILE)).unwrap();
    for id in 0..3 {
        // Game 1 has a seat out by a timeout.
        let drop = (id == 1).then_some((3, 2));
        let mut r = simulate(&choice, id, 0, drop);
        r.bots = vec!["a".into(), "b".into(), "c".into(), "d".into()];
        csv.append(&GameRow::new(&spec(id), &r)).unwrap();
        recs.append(&GameRecord::new(&spec(id), &choice, &cfg, &r))
            .unwrap();
    }
    drop((csv, recs));
    let out = d.join(FILE);
    let w = write_report(std::slice::from_ref(&d), &out, &[], Pages::Missing).unwrap();
    assert_eq!(w.pages, 3);
    let replays: Vec<String> = std::fs::read_dir(d.join("replays"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        replays.len(),
        6,
        "three games' data, the viewer's page, script and style: {replays:?}"
    );
    let data = std::fs::read_to_string(replay_path(&d, 1)).unwrap();
    assert!(data.starts_with("arbiterGame(1,\""), "{data}");
    assert!(
        !data.contains("function drawFrame") && !data.contains('<'),
        "the data alone: {data}"
    );
    let viewer = std::fs::read_to_string(d.join("replays").join(viewer::PAGE_FILE)).unwrap();
    assert!(viewer.contains("<script src=\"viewer.js\">"), "{viewer}");
    assert!(viewer.contains("href=\"../report.html\""), "{viewer}");
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        html.matches("href=\"replays/replay.html#game=").count(),
        3 + 1,
        "every game, and the forfeit's group"
    );
}

#[test]
fn quantiles() {
    let mut times = data::BotTimes::default();
    for us in (1..=100).rev() {
        times.add(us);
    }
    assert_eq!(times.quantile(0.5), Some(50));
    assert_eq!(times.quantile(0.99), Some(99));
    assert_eq!(times.quantile(1.0), Some(100));
    assert_eq!(data::BotTimes::default().quantile(0.5), None);
    // Past 1 ms, times count to three significant digits.
    times.add(123_456);
    times.add(123_556);
    assert_eq!(times.counts.get(&123_000), Some(&1));
    assert_eq!(times.counts.get(&124_000), Some(&1));
    assert_eq!(times.quantile(1.0), Some(124_000));
}

#[test]
fn a_live_report_is_written_at_once_then_after_its_pause() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    let choice = GameChoice::new("impasse", None, None, None).unwrap();
    let (mut csv, _) = GamesCsv::open(&d.join("games.csv"), 2).unwrap();
    let r = simulate(&choice, 1, 0, None);
    csv.append(&GameRow::new(&spec(0), &r)).unwrap();
    let mut live = LiveReport::new(&d, &["bot0".into(), "bot1".into()]);
    live.tick();
    live.settle();
    assert!(d.join(FILE).exists(), "the first game writes the report");
    std::fs::remove_file(d.join(FILE)).unwrap();
    live.tick();
    live.settle();
    assert!(!d.join(FILE).exists(), "not again within the pause");
    assert_eq!(live.write(Pages::Missing).unwrap(), d.join(FILE));
    assert!(d.join(FILE).exists());
}

/// A rewrite under way when the run ends is stopped, and the run's last rewrite writes every
/// game's replay data still missing.
#[test]
fn the_last_rewrite_of_a_live_report_writes_every_missing_games_data() {
    let games = 200u64;
    let mut f = folder();
    f.record(0..games);
    let TestFolder { _dir, d, .. } = f;
    std::fs::create_dir(d.join("replays")).unwrap();
    let mut live = LiveReport::new(&d, &["bot0".into(), "bot1".into()]);
    live.tick();
    // The run ends at once: whatever the background rewrite did, every game's data is there.
    live.write(Pages::Missing).unwrap();
    for id in 0..games {
        assert!(replay_path(&d, id).exists(), "data of game {id}");
    }
    let html = std::fs::read_to_string(d.join(FILE)).unwrap();
    assert!(html.contains("replays/"), "the report links the games");
}

/// Every game's replay data is written as its record comes, whatever the run: nothing is left
/// for the run's end (which used to write most pages where games kept every CPU, issue 39).
/// The report written meanwhile (by a thread of its own) links only games whose data is there
/// (no dead link).
#[test]
fn a_live_report_writes_every_games_data_before_the_runs_end() {
    let games = 200u64;
    let mut f = folder();
    f.record(0..games);
    let TestFolder { _dir, d, .. } = f;
    let mut live = LiveReport::new(&d, &["bot0".into(), "bot1".into()]);
    live.tick();
    live.settle();
    for id in 0..games {
        assert!(replay_path(&d, id).exists(), "data of game {id}");
    }
    let html = std::fs::read_to_string(d.join(FILE)).unwrap();
    let linked: Vec<u64> = (0..games)
        .filter(|&id| html.contains(&format!("replays/replay.html#game={id}\"")))
        .collect();
    live.write(Pages::Missing).unwrap();
    // The rewrite may have run before or after the data: whatever it links is there.
    let html = std::fs::read_to_string(d.join(FILE)).unwrap();
    for id in linked {
        assert!(html.contains(&format!("replays/replay.html#game={id}\"")));
    }
}

/// The live report's rewrite writes no replay data and links a game only once its data is
/// there (it runs beside the data writer: writing the same file from both would race).
#[test]
fn a_live_rewrite_links_only_games_whose_data_is_there_and_writes_none() {
    let games = 20u64;
    let mut f = folder();
    f.record(0..games);
    let TestFolder { _dir, d, .. } = f;
    let out = d.join(FILE);
    std::fs::create_dir(d.join("replays")).unwrap();
    let mut written = 0;
    records::for_each_record(&d.join(records::FILE), |rec| {
        if rec.game_id % 2 == 0 {
            let path = replay_path(&d, rec.game_id);
            assert!(matches!(
                super::pages::write_page(&rec, path),
                Ok(super::pages::Page::Written(_))
            ));
            written += 1;
        }
    })
    .unwrap();
    let w = super::write_report_unless(
        std::slice::from_ref(&d),
        &out,
        &[],
        Pages::Linked,
        1,
        &std::sync::atomic::AtomicBool::new(false),
        None,
    )
    .unwrap();
    assert_eq!(w.pages, 0, "a live rewrite writes no data");
    let html = std::fs::read_to_string(&out).unwrap();
    for id in 0..games {
        let link = html.contains(&format!("replays/replay.html#game={id}\""));
        assert_eq!(link, id % 2 == 0, "game {id} linked iff its data is there");
        assert_eq!(replay_path(&d, id).exists(), id % 2 == 0);
    }
    assert_eq!(written, games / 2);
}

/// Replay data does not wait for the report's pause: each game's is written once its record is
/// there, so none is left for the run's end.
#[test]
fn a_live_report_writes_each_new_games_page_between_its_rewrites() {
    let mut f = folder();
    f.record(0..1);
    let d = f.d.clone();
    let mut live = LiveReport::new(&d, &["bot0".into(), "bot1".into()]);
    live.tick();
    live.settle();
    assert!(replay_path(&d, 0).exists(), "the first game's page");
    std::fs::remove_file(d.join(FILE)).unwrap();
    for id in 1..6 {
        f.record(id..id + 1);
        live.tick();
    }
    live.settle();
    for id in 1..6 {
        assert!(
            replay_path(&d, id).exists(),
            "page of game {id} before the run's end"
        );
    }
    assert!(!d.join(FILE).exists(), "the report waits for its pause");
    live.write(Pages::Missing).unwrap();
    assert!(d.join(FILE).exists());
}

#[test]
fn a_record_the_rules_reject_is_listed_without_a_replay() {
    let TestFolder {
        _dir,
        d,
        cfg,
        choice,
        mut csv,
        mut recs,
    } = folder();
    let r = simulate(&choice, 1, 0, None);
    csv.append(&GameRow::new(&spec(0), &r)).unwrap();
    let mut rec = GameRecord::new(&spec(0), &choice, &cfg, &r);
    rec.moves[2] = "z9z9".into();
    recs.append(&rec).unwrap();
    drop((csv, recs));
    let out = d.join(FILE);
    let w = write_report(std::slice::from_ref(&d), &out, &[], Pages::All).unwrap();
    assert_eq!((w.games, w.pages, w.failed.len()), (1, 0, 1));
    assert!(w.failed[0].contains("ply 3 \"z9z9\""), "{:?}", w.failed);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(!html.contains("href=\"replays/"));
    assert!(html.contains("a game cannot be replayed"));
}

/// Standard base64 back to bytes (the page's script does it with `atob`).
fn unbase64(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

#[test]
fn packed_data_unpacks_to_the_same_json() {
    use std::io::Read;
    for len in 0..5 {
        let v = serde_json::json!({ "s": "é</script>".repeat(len), "n": [1, 2, 3] });
        let mut json = String::new();
        flate2::read::ZlibDecoder::new(&unbase64(&frames::packed(&v))[..])
            .read_to_string(&mut json)
            .unwrap();
        assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap(), v);
    }
}

/// A whole replay page carries its game's JSON exactly: the data in the page, base64 then
/// zlib undone, is byte for byte [`frames::page_json`] (proven equal to the reference
/// format above), whatever deflate implementation and level wrote it. Pages are compared by
/// content, not by their compressed bytes, which change with the compressor.
#[test]
fn a_page_embeds_its_games_json_byte_for_byte() {
    use std::io::Read;
    let cfg = RefereeConfig::default();
    for info in GAMES {
        let choice = GameChoice::new(info.name, None, None, None).unwrap();
        let mut r = simulate(&choice, 5, 1, None);
        r.log[0].comment = "</script> \u{e9}".into();
        r.log[0].answer = format!("{} {}", r.log[0].played, r.log[0].comment);
        let rec = GameRecord::new(&spec(7), &choice, &cfg, &r);
        let html = viewer::page(&rec, None).unwrap();
        let open = "arbiterGame(7,\"";
        let start = html.find(open).expect("the page's data") + open.len();
        let len = html[start..].find('"').expect("the data ends");
        let mut json = Vec::new();
        flate2::read::ZlibDecoder::new(&unbase64(&html[start..start + len])[..])
            .read_to_end(&mut json)
            .unwrap();
        let title = format!("{} game 7: {}", rec.game, rec.bots.join(" vs "));
        let want = frames::page_json(&rec, &title, frames::Inputs::All).unwrap();
        assert_eq!(
            String::from_utf8(json).unwrap(),
            String::from_utf8(want).unwrap(),
            "{}",
            info.name
        );
    }
}

#[test]
fn long_lists_in_inputs_are_folded_and_short_ones_kept() {
    let short = "board\n3\na\nb\nc\n";
    assert_eq!(frames::fold_lists(short), short);
    let moves: Vec<String> = (0..100).map(|i| format!("m{i}")).collect();
    let long = format!("board\n100\n{}\nafter\n", moves.join("\n"));
    let folded = frames::fold_lists(&long);
    let lines: Vec<&str> = folded.lines().collect();
    assert_eq!(lines[..3], ["board", "100", "m0"]);
    assert_eq!(lines[2 + frames::FOLD_KEEP - 1], "m39");
    assert_eq!(
        lines[2 + frames::FOLD_KEEP],
        "\u{2026} 60 more lines of this list not kept in the page"
    );
    assert_eq!(lines[3 + frames::FOLD_KEEP], "after");
}

#[test]
fn placings_and_scores_read_as_words() {
    let bots: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
    assert_eq!(
        viewer::placings(&bots, &[0, 2, 0, 2]),
        "a and c 1st, b and d 3rd"
    );
    assert_eq!(viewer::scores_text(&bots[..2], &[1, -1]), "a 1, b -1");
    assert_eq!(viewer::ordinal(12), "12th");
    assert_eq!(viewer::ordinal(22), "22nd");
}

#[test]
fn failures_that_differ_only_in_numbers_group_together() {
    assert_eq!(
        data::numbers_hidden("seat 0 of 2, line 12\nValueError"),
        data::numbers_hidden("seat 1 of 2, line 12\nValueError")
    );
    assert_ne!(
        data::numbers_hidden("KeyError: 'a'"),
        data::numbers_hidden("KeyError: 'b'")
    );
    assert_eq!(data::numbers_hidden("t 123 ms"), "t # ms");
}

#[test]
fn a_long_run_lists_its_last_games_and_says_where_the_others_are() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    let choice = GameChoice::new("impasse", None, None, None).unwrap();
    let (mut csv, _) = GamesCsv::open(&d.join("games.csv"), 2).unwrap();
    let r = simulate(&choice, 1, 0, None);
    let n = data::GAMES_LISTED as u64 + 3;
    for id in 0..n {
        csv.append(&GameRow::new(&spec(id), &r)).unwrap();
    }
    drop(csv);
    let out = d.join(FILE);
    let w = write_report(std::slice::from_ref(&d), &out, &[], Pages::All).unwrap();
    assert_eq!(w.games as u64, n);
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        html.contains(&format!("{n} games: the list below shows the last")),
        "the note"
    );
    let rows = html.split("<tbody>").last().unwrap().matches("<tr").count();
    assert_eq!(rows, data::GAMES_LISTED, "the last games only");
}

/// Pages written on several threads come back in the order of the records: the report reads
/// the same (here, the games that cannot be replayed are told in order) and every page is there.
#[test]
fn pages_written_on_several_threads_are_taken_in_record_order() {
    let TestFolder {
        _dir,
        d,
        cfg,
        choice,
        mut csv,
        mut recs,
    } = folder();
    let bad: Vec<u64> = (0..40).filter(|id| id % 3 == 1).collect();
    for id in 0..40 {
        let r = simulate(&choice, id, 0, None);
        csv.append(&GameRow::new(&spec(id), &r)).unwrap();
        let mut rec = GameRecord::new(&spec(id), &choice, &cfg, &r);
        if bad.contains(&id) {
            rec.moves[2] = "z9z9".into();
        }
        recs.append(&rec).unwrap();
    }
    drop((csv, recs));
    let never = std::sync::atomic::AtomicBool::new(false);
    let w = write_report_unless(
        std::slice::from_ref(&d),
        &d.join(FILE),
        &[],
        Pages::All,
        4,
        &never,
        None,
    )
    .unwrap();
    assert_eq!(w.pages, 40 - bad.len());
    let told: Vec<String> = w
        .failed
        .iter()
        .map(|f| f.split(':').next().unwrap().to_string())
        .collect();
    let want: Vec<String> = bad.iter().map(|id| format!("game {id}")).collect();
    assert_eq!(told, want);
    for id in (0..40).filter(|id| !bad.contains(id)) {
        assert!(replay_path(&d, id).exists(), "page of game {id}");
    }
}

#[test]
fn a_merged_report_elsewhere_links_its_runs_relatively() {
    let (mut a, mut b) = (folder(), folder());
    a.record(0..2);
    b.record(0..2);
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path().join("shared/merged.html");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    write_report(&[a.d.clone(), b.d.clone()], &out, &[], Pages::All).unwrap();
    let html = std::fs::read_to_string(&out).unwrap();
    let links: Vec<&str> = html
        .split("href=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .filter(|l| l.contains("#game="))
        .collect();
    assert_eq!(links.len(), 4, "{links:?}");
    for l in links {
        assert!(!l.starts_with('/'), "an absolute link: {l}");
        let (page, game) = l.split_once("#game=").unwrap();
        let page = out.parent().unwrap().join(page);
        assert!(page.is_file(), "{l} does not resolve");
        let data = page.with_file_name(viewer::data_file(game.parse().unwrap()));
        assert!(data.is_file(), "{l}: no {}", data.display());
    }
    // Its replays are beside it, one folder a run: nothing is written into the runs' folders.
    let replays = out.parent().unwrap().join("replays-1");
    assert!(replays.join(viewer::data_file(1)).is_file());
    assert!(out.parent().unwrap().join("replays-2").is_dir());
    assert!(!a.d.join("replays").exists() && !b.d.join("replays").exists());
    // The viewer links back to the merged report, relatively too.
    let page = std::fs::read_to_string(replays.join(viewer::PAGE_FILE)).unwrap();
    let back = page
        .split("href=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .find(|l| l.ends_with("merged.html"))
        .expect("a link back");
    assert!(!back.starts_with('/'), "{back}");
    assert_eq!(
        std::fs::canonicalize(replays.join(back)).unwrap(),
        std::fs::canonicalize(&out).unwrap()
    );
}

/// `arbiter report DIR --out X`: the report and its replays beside X, nothing written into
/// DIR (its replays folder is not made); its own report keeps its replays in DIR/replays.
#[test]
fn a_report_elsewhere_writes_its_replays_beside_it_and_nothing_into_the_folder() {
    let mut a = folder();
    a.record(0..3);
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path().join("class.html");
    let w = write_report(std::slice::from_ref(&a.d), &out, &[], Pages::All).unwrap();
    assert_eq!(w.pages, 3);
    assert!(
        !a.d.join("replays").exists(),
        "the folder read is left as it was"
    );
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(html.matches("href=\"replays/replay.html#game=").count(), 3);
    for id in 0..3 {
        assert!(replay_path(elsewhere.path(), id).is_file(), "game {id}");
    }
    write_report(std::slice::from_ref(&a.d), &a.d.join(FILE), &[], Pages::All).unwrap();
    assert!(replay_path(&a.d, 2).is_file());
}

#[test]
fn an_external_referees_report_is_titled_by_its_game() {
    let run = |settings: &[(&str, &str)], game: Option<&str>| data::Folder {
        path: "/r".into(),
        settings: settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        game: game.map(str::to_string),
    };
    let referee = [("game.referee", "python3 refs/stones.py")];
    // Named as its records name it (referee.toml's name, else its program's).
    assert_eq!(game_of(&[run(&referee, Some("pebbles"))]), "pebbles");
    // Before any record, by its command's program.
    assert_eq!(game_of(&[run(&referee, None)]), "stones");
    assert_eq!(
        game_of(&[run(&[("game.referee", "mono drones.exe")], None)]),
        "drones"
    );
    assert_eq!(
        game_of(&[run(&[("game.referee", "examples/stones/")], None)]),
        "stones"
    );
    assert_eq!(
        game_of(&[run(&[("game.game", "draughts")], Some("draughts"))]),
        "draughts"
    );
}
