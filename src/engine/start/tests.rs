use super::*;
use crate::bot::BotSpec;
use crate::engine::settings::TournamentSettings;
use crate::engine::{BotCheck, GameSettings};
use crate::tournament::openings::Order;
use crate::tournament::Format;

/// The game as a run of an earlier version recorded it (the defaults of its flags).
fn game() -> GameSettings {
    let text = include_str!("../../../tests/runs/before-settings-move/tournament.toml");
    let s: TournamentSettings = toml::from_str(text).unwrap();
    s.game
}

fn request(bots: &[&str], games: u32) -> TournamentRequest {
    TournamentRequest {
        bots: bots.iter().map(|b| b.to_string()).collect(),
        format: Format::RoundRobin,
        games,
        tables: None,
        opening_plies: 0,
        openings: None,
        openings_order: Order::default(),
        seed: None,
        replays: false,
        shard: None,
        game: game(),
    }
}

#[test]
fn a_new_tournament_is_refused_with_what_to_change() {
    let err = |r| TournamentSettings::fresh(r).unwrap_err().to_string();
    assert!(err(request(&["a"], 2)).contains("needs 2 or more bots (got 1)"));
    assert!(err(request(&["a", "b"], 3)).starts_with("games must be a positive multiple of 2"));
    let mut r = request(&["a", "b"], 2);
    r.tables = Some(0);
    assert_eq!(err(r), "tables must be at least 1");
    let mut r = request(&["a", "b"], 2);
    r.shard = Some(Shard::new(1, 3).unwrap());
    assert!(err(r).contains("shard 1/3 needs seed"));
    let mut r = request(&["a", "b"], 4);
    r.seed = Some(7);
    let s = TournamentSettings::fresh(r).unwrap();
    assert_eq!((s.seed, s.games, s.bots.len()), (7, 4, 2));
    assert_eq!(s.workdir, std::env::current_dir().unwrap());
}

#[test]
fn options_a_continued_run_would_ignore_are_refused() {
    let dir = Path::new("/r");
    assert!(check_resume(None, "t.toml", vec!["--games 4".into()]).is_ok());
    assert!(check_resume(Some(dir), "t.toml", Vec::new()).is_ok());
    let e = check_resume(Some(dir), "t.toml", vec!["--games 4".into()]).unwrap_err();
    assert!(
        e.to_string()
            .contains("(/r/t.toml), so --games 4 would be ignored; leave it out"),
        "{e}"
    );
    assert!(check_grow(vec!["--seed 3".into()])
        .unwrap_err()
        .to_string()
        .ends_with("--seed 3 cannot change"));
}

#[test]
fn a_field_with_broken_bots_plays_only_when_told_to_skip_them() {
    let spec = |n: &str| BotSpec::command(n, "/bin/true", Vec::new(), ".");
    let field = BotCheck {
        specs: vec![spec("a"), spec("b"), spec("c")],
        problems: vec![None, Some("does not start".into()), None],
    };
    let e = field.check_field(false, 2, "impasse").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("b cannot play (see above); fix it, or pass skip_broken_bots"),
        "{e}"
    );
    assert_eq!(field.check_field(true, 2, "impasse").unwrap(), 2);
    assert!(matches!(
        field.check_field(true, 3, "x"),
        Err(StartError::FewerPlaying { playing: 2, .. })
    ));
    assert_eq!(field.playing(), vec!["a", "c"]);
    assert_eq!(field.left_out(), vec![("b", "does not start")]);
    assert!(matches!(field.check_all(), Err(StartError::SprtBot { .. })));
    assert!(matches!(
        field.check_baselines(1),
        Err(StartError::Baseline { .. })
    ));
    assert_eq!(field.check_baselines(2).unwrap(), vec!["c"]);
    assert!(check_baseline_count(1, 3).is_err());
}
