use super::*;

/// tournament.toml as arbiter wrote it before the settings moved into the library.
const BEFORE: &str = include_str!("../../../tests/runs/before-settings-move/tournament.toml");

fn before() -> TournamentSettings {
    toml::from_str(BEFORE).expect("a settings file of an earlier arbiter reads")
}

#[test]
fn a_settings_file_written_before_the_move_reads_and_is_written_back_the_same() {
    let s = before();
    assert_eq!(s.bots.len(), 2);
    assert_eq!((s.games, s.seed), (2, 11));
    assert_eq!(s.game.game.as_deref(), Some("impasse"));
    assert_eq!((s.game.first_turn_ms, s.game.turn_ms), (1000, 100));
    assert_eq!(toml::to_string_pretty(&s).unwrap(), BEFORE);
}

#[test]
fn a_different_run_in_the_folder_is_refused_naming_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let old = before();
    save(dir.path(), &old).unwrap();

    // The same run again continues, with the recorded seed when none is given.
    let mut same = old.clone();
    same.seed = 99;
    let (s, resuming) = continue_or_start(dir.path(), same, false).unwrap();
    assert!(resuming);
    assert_eq!(s, old);

    let mut other = old.clone();
    other.game.turn_ms = 200;
    other.bots.push("bots/new".into());
    let e = continue_or_start(dir.path(), other, false).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("game.turn_ms: 100 -> 200"), "{text}");
    assert!(text.contains("bots: ["), "{text}");
    assert!(!text.contains("seed"), "{text}");
    assert!(text.contains("resume"), "{text}");

    // A given seed that differs is a different run.
    let mut seeded = old.clone();
    seeded.seed = 12;
    let text = continue_or_start(dir.path(), seeded, true)
        .unwrap_err()
        .to_string();
    assert!(text.contains("seed: 11 -> 12"), "{text}");

    // A folder without settings starts a new run.
    let empty = tempfile::tempdir().unwrap();
    assert!(!continue_or_start(empty.path(), old, false).unwrap().1);
}

#[test]
fn a_folder_without_settings_is_a_clear_error_on_load() {
    let dir = tempfile::tempdir().unwrap();
    let e = load::<TournamentSettings>(dir.path()).unwrap_err();
    assert!(
        e.to_string().contains("a results folder of this command"),
        "{e}"
    );
}

#[test]
fn a_run_grows_by_stages_and_refuses_what_it_cannot_play() {
    let s = before();
    assert_eq!(
        s.clone().grow(Some(1), &[], 2).unwrap_err(),
        GrowError::Fewer {
            asked: 1,
            now: 2,
            seats: 2
        }
    );
    assert_eq!(
        s.clone().grow(None, &[], 2).unwrap_err(),
        GrowError::Nothing { now: 2 }
    );
    let grown = s.clone().grow(Some(4), &["bots/c".into()], 2).unwrap();
    assert_eq!(grown.first_bots, Some(2));
    assert_eq!(grown.bots.len(), 3);
    assert_eq!(grown.games_now(), 4);
    let old: Vec<_> = s.schedule(2);
    let new = grown.schedule(2);
    assert!(new.len() > old.len());
    for g in &old {
        assert!(new.contains(g), "game {} kept as it was", g.game_id);
    }
    let mut sampled = s;
    sampled.tables = Some(1);
    assert_eq!(
        sampled.grow(Some(4), &[], 2).unwrap_err(),
        GrowError::Sampled
    );
}
