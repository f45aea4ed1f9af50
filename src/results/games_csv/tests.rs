//! games.csv written, torn, continued and read back.

use super::*;

fn row(id: u64, seats: usize) -> GameRow {
    GameRow {
        game_id: id,
        pair_id: id / seats as u64,
        seed: 7,
        opening: "a1b2 c7d6".into(),
        bots: (0..seats)
            .map(|i| {
                if i == 1 {
                    "y, with a comma".into()
                } else {
                    format!("x{i}")
                }
            })
            .collect(),
        winner: None,
        ranks: vec![0; seats],
        reason: Reason::TurnLimit,
        turns: 250,
        scores: vec![0; seats],
        game_scores: vec![3; seats],
        max_ms: vec![1.5; seats],
        mean_ms: vec![0.5; seats],
        strikes: vec![0; seats],
        cpu_ms: vec![0.25; seats],
        forfeits: Vec::new(),
        moves_hash: "0123456789abcdef".into(),
        detail: String::new(),
    }
}

#[test]
fn rows_round_trip_and_a_torn_line_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    let (mut csv, done) = GamesCsv::open(&path, 2).unwrap();
    assert!(done.is_empty());
    csv.append(&row(0, 2)).unwrap();
    csv.append(&row(1, 2)).unwrap();
    drop(csv);
    // A kill in the middle of a write leaves a partial line.
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"2,1,7,a1b2,x,y,0,wi").unwrap();
    drop(f);
    // Readers skip the torn tail of a file still being written, and say so.
    let mut n = 0;
    let summary = for_each_result(std::slice::from_ref(&path), |_| {
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!((n, summary.torn.len()), (2, 1));
    let (mut csv, done) = GamesCsv::open(&path, 2).unwrap();
    assert_eq!(done.len(), 2);
    assert!(done.contains(0) && done.contains(1) && !done.contains(2));
    csv.append(&row(2, 2)).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(text.starts_with("game_id,pair_id,seed,opening,bot0,bot1,winner,rank0,rank1,"));
    let rows = read_results(std::slice::from_ref(&path)).unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0].bots[1], "y, with a comma");
    assert_eq!(rows[0].winner(), None);
    let err = GamesCsv::open(&path, 4).err().unwrap().to_string();
    assert!(err.contains("games of 2 seats, not 4"), "{err}");
}

#[test]
fn the_games_of_changed_bots_are_dropped_and_the_rest_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    let (mut csv, _) = GamesCsv::open(&path, 2).unwrap();
    for (id, a, b) in [
        (0, "ann", "bob"),
        (1, "bob", "ann"),
        (2, "ann", "cy"),
        (3, "cy", "bob"),
    ] {
        let mut r = row(id, 2);
        r.bots = vec![a.into(), b.into()];
        csv.append(&r).unwrap();
    }
    drop(csv);
    assert!(drop_games_of(&path, &[]).unwrap().is_empty());
    let dropped = drop_games_of(&path, &["cy".to_string()]).unwrap();
    assert_eq!(
        dropped,
        vec![
            (2, vec!["ann".to_string(), "cy".to_string()]),
            (3, vec!["cy".to_string(), "bob".to_string()])
        ]
    );
    let (_, done) = GamesCsv::open(&path, 2).unwrap();
    assert_eq!(done.len(), 2);
    assert!(done.contains(0) && done.contains(1) && !done.contains(2));
    assert!(!path.with_extension("csv.tmp").exists());
}

/// The header of games.csv files before seats were counted.
const LEGACY: &str = "game_id,pair_id,seed,opening,bot0,bot1,winner,reason,turns,score0,score1,removed0,removed1,max_ms0,max_ms1,mean_ms0,mean_ms1,strikes0,strikes1,cpu_ms0,cpu_ms1,detail";

#[test]
fn a_file_from_before_seats_were_counted_is_continued_in_its_own_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    std::fs::write(
        &path,
        format!("{LEGACY}\n0,0,7,,a,b,1,win,80,-1,0,3,4,1.5,2.0,0.5,0.7,0,1,0.2,0.3,\n"),
    )
    .unwrap();
    let (mut csv, done) = GamesCsv::open(&path, 2).unwrap();
    assert!(done.contains(0));
    let mut r = row(1, 2);
    r.winner = Some(0);
    r.ranks = vec![0, 1];
    csv.append(&r).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let last = text.lines().last().unwrap();
    assert_eq!(
        last.matches(',').count(),
        LEGACY.matches(',').count() + 1,
        "{last}"
    );
    let rows = read_results(&[path]).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].ranks, vec![1, 0]);
    assert_eq!(rows[1].ranks, vec![0, 1]);
    assert_eq!(rows[1].bots, vec!["x0", "y, with a comma"]);
}

#[test]
fn four_seat_rows_keep_every_seat() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    let (mut csv, _) = GamesCsv::open(&path, 4).unwrap();
    let mut r = row(5, 4);
    r.ranks = vec![2, 0, 3, 1];
    r.winner = Some(1);
    r.forfeits = vec![(2, Reason::Timeout)];
    csv.append(&r).unwrap();
    let rows = read_results(&[path]).unwrap();
    assert_eq!(rows[0].ranks, vec![2, 0, 3, 1]);
    assert_eq!(rows[0].bots.len(), 4);
    assert_eq!(rows[0].winner(), Some(1));
    assert_eq!(rows[0].game_id, Some(5));
}

#[test]
fn ratings_need_only_the_bot_and_winner_columns_for_two_seats() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("min.csv");
    // A finished file's last row counts without its newline.
    std::fs::write(&path, "bot1,winner,bot0\nb,0,a\nb,,a\na,1,b").unwrap();
    let rows = read_results(std::slice::from_ref(&path)).unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0].bots, vec!["a", "b"]);
    assert_eq!(rows[0].ranks, vec![0, 1]);
    assert_eq!(rows[2].ranks, vec![1, 0]);
    std::fs::write(&path, "bot0,bot1\na,b\n").unwrap();
    let err = format!(
        "{:#}",
        read_results(std::slice::from_ref(&path)).unwrap_err()
    );
    assert!(err.contains("need columns bot0, bot1"), "{err}");
    std::fs::write(&path, "bot0,bot1,winner\na,b,0\na,b,7\n").unwrap();
    let err = format!(
        "{:#}",
        read_results(std::slice::from_ref(&path)).unwrap_err()
    );
    assert!(err.contains("min.csv: row 3: winner \"7\""), "{err}");
    let err = format!(
        "{:#}",
        read_results(&[dir.path().to_path_buf()]).unwrap_err()
    );
    assert!(err.contains("is a folder"), "{err}");
}

#[test]
fn a_game_id_counts_once_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    std::fs::write(
        &path,
        "game_id,bot0,bot1,winner\n0,a,b,0\n1,a,b,1\n0,a,b,0\n",
    )
    .unwrap();
    let mut n = 0;
    let s = for_each_result(std::slice::from_ref(&path), |_| {
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!((n, s.duplicates), (2, 1));
}

#[test]
fn a_name_a_spreadsheet_would_run_is_written_as_text_and_read_back_exactly() {
    for name in [
        "=1+2",
        "+x",
        "-y",
        "@SUM(A1)",
        "\tz",
        "\rw",
        "'quoted",
        "=HYPERLINK(\"a\";\"b\")",
    ] {
        let cell = text_cell(name);
        assert!(cell.starts_with('\''), "{name:?} -> {cell:?}");
        assert_eq!(from_text_cell(&cell), name);
    }
    for name in ["alice", "bot-1", "a=b", ""] {
        assert_eq!(text_cell(name), name);
        assert_eq!(from_text_cell(name), name);
    }
}

#[test]
fn an_old_draw_recorded_as_win_without_a_winner_reads_as_a_draw() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    std::fs::write(
        &path,
        format!(
            "{LEGACY}\n0,0,7,,a,b,,win,80,1,1,0,0,1.5,2.0,0.5,0.7,0,0,0.2,0.3,\n\
             1,0,8,,b,a,0,win,60,2,0,0,0,1.5,2.0,0.5,0.7,0,0,0.2,0.3,\n\
             2,1,9,,a,b,,draw-threefold,90,1,1,0,0,1.5,2.0,0.5,0.7,0,0,0.2,0.3,\n"
        ),
    )
    .unwrap();
    let rows = read_results(&[path]).unwrap();
    assert_eq!(rows[0].ranks, vec![0, 0]);
    assert_eq!(rows[0].reason, Some(Reason::UnnamedDraw));
    assert_eq!(rows[0].reason.unwrap().as_str(), "draw");
    assert_eq!(rows[1].reason, Some(Reason::Win), "a real win stays one");
    assert_eq!(
        rows[2].reason,
        Some(Reason::Draw(crate::game::DrawRule::Threefold))
    );
}

/// Reasons are read back as the enums they were written from; a reason arbiter never writes is
/// an error naming the file, the row and the words it knows, not a game of unknown kind.
#[test]
fn reasons_read_back_typed_and_an_unknown_one_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    let (mut csv, _) = GamesCsv::open(&path, 2).unwrap();
    let mut r = row(0, 2);
    r.reason = Reason::Crash;
    r.ranks = vec![1, 0];
    r.forfeits = vec![(0, Reason::Crash)];
    csv.append(&r).unwrap();
    drop(csv);
    let rows = read_results(std::slice::from_ref(&path)).unwrap();
    assert_eq!(rows[0].reason, Some(Reason::Crash));
    assert_eq!(rows[0].forfeits, vec![(0, Reason::Crash)]);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(",crash,") && text.contains(",0:crash,"),
        "{text}"
    );

    for (bad, what) in [(",crash,", ",lost-on-time,"), (",0:crash,", ",0:lost,")] {
        std::fs::write(&path, text.replacen(bad, what, 1)).unwrap();
        let err = read_results(std::slice::from_ref(&path))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("games.csv: row 2:")
                && err.contains("is not a reason arbiter writes")
                && err.contains("referee-error"),
            "{err}"
        );
    }
    std::fs::write(&path, text.replacen(",crash,", ",lost-on-time,", 1)).unwrap();
    let err = GamesCsv::open(&path, 2).err().unwrap().to_string();
    assert!(
        err.contains("row 2: \"lost-on-time\" is not a reason"),
        "{err}"
    );
}

/// A game the referee could not play is not done: a resumed run plays it again, and every
/// reader counts the game once, as played (the failed row stays in the file).
#[test]
fn a_referee_error_is_played_again_and_its_new_row_supersedes_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    let (mut csv, _) = GamesCsv::open(&path, 2).unwrap();
    csv.append(&row(0, 2)).unwrap();
    let mut failed = row(1, 2);
    failed.reason = Reason::RefereeError;
    csv.append(&failed).unwrap();
    csv.append(&failed).unwrap(); // failed again on a first resume
    drop(csv);
    let (mut csv, done) = GamesCsv::open(&path, 2).unwrap();
    assert!(done.contains(0) && !done.contains(1), "{done:?}");
    let s = for_each_result(std::slice::from_ref(&path), |_| Ok(())).unwrap();
    assert_eq!((s.games, s.referee_errors, s.duplicates), (1, 1, 0));

    let mut played = row(1, 2);
    played.ranks = vec![0, 1];
    csv.append(&played).unwrap();
    csv.append(&failed).unwrap(); // a stray failure after the game was played is a repeat
    drop(csv);
    let (_, done) = GamesCsv::open(&path, 2).unwrap();
    assert!(done.contains(0) && done.contains(1));
    let rows = read_results(std::slice::from_ref(&path)).unwrap();
    let s = for_each_result(std::slice::from_ref(&path), |_| Ok(())).unwrap();
    assert_eq!((s.games, s.referee_errors, s.duplicates), (2, 0, 1));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].ranks, vec![0, 1]);
    assert_eq!(rows[1].reason, Some(Reason::TurnLimit));
}
