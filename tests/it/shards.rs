//! Shards without a cluster: a tournament played as `--shard K/N` slices one after another and
//! put back together by `arbiter merge` gives the single run's games and standings; the merge
//! refuses folders of different runs and names what is missing.

use crate::common::{arbiter, first_bot, greedy_bot, random_bot};
use std::path::Path;

fn bots() -> Vec<String> {
    vec![
        format!("r={} 3", random_bot()),
        format!("f={}", first_bot()),
        format!("g={}", greedy_bot()),
    ]
}

fn tournament(dir: &Path, extra: &[&str]) -> std::process::Output {
    arbiter()
        .args([
            "tournament",
            "--games",
            "4",
            "--opening-plies",
            "4",
            "--out",
        ])
        .arg(dir)
        .args(extra)
        .arg("--")
        .args(bots())
        .output()
        .unwrap()
}

#[test]
fn three_shards_merge_into_the_single_run_and_missing_ones_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let no_seed = tournament(&t.join("x"), &["--shard", "1/3"]);
    let err = String::from_utf8_lossy(&no_seed.stderr);
    assert!(err.contains("--shard 1/3 needs --seed"), "{err}");
    for k in 1..=3 {
        let out = tournament(
            &t.join(format!("shard-{k}")),
            &["--seed", "5", "--shard", &format!("{k}/3")],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let toml = std::fs::read_to_string(t.join("shard-2/tournament.toml")).unwrap();
    assert!(toml.contains("shard = \"2/3\""), "{toml}");
    // Only two shards: the merge writes what it has, names shard 3 and exits 1.
    let part = arbiter()
        .args(["merge"])
        .arg(t.join("part"))
        .arg(t.join("shard-1"))
        .arg(t.join("shard-2"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&part.stdout);
    assert_eq!(part.status.code(), Some(1), "{said}");
    assert!(said.contains("shard 3/3: no results folder"), "{said}");
    assert!(said.contains("--shard 3/3 --out"), "{said}");
    // All three equal the single run.
    let merged = arbiter()
        .arg("merge")
        .arg(t.join("all"))
        .args((1..=3).map(|k| t.join(format!("shard-{k}"))))
        .output()
        .unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stdout)
    );
    let single = tournament(&t.join("single"), &["--seed", "5"]);
    assert!(single.status.success());
    let mut ids: Vec<u64> = csv::Reader::from_path(t.join("all/games.csv"))
        .unwrap()
        .records()
        .map(|r| r.unwrap()[0].parse().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..12).collect::<Vec<u64>>());
    for file in ["ratings.csv", "crosstable.csv", "los.csv"] {
        assert_eq!(
            std::fs::read_to_string(t.join("all").join(file)).unwrap(),
            std::fs::read_to_string(t.join("single").join(file)).unwrap(),
            "{file}"
        );
    }
    // A shard of another run is refused, with what differs.
    let other = tournament(&t.join("other"), &["--seed", "6", "--shard", "3/3"]);
    assert!(other.status.success());
    let mixed = arbiter()
        .arg("merge")
        .arg(t.join("mixed"))
        .arg(t.join("shard-1"))
        .arg(t.join("other"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&mixed.stderr);
    assert_eq!(mixed.status.code(), Some(3));
    assert!(
        err.contains("are not shards of the same run") && err.contains("seed: 5 vs 6"),
        "{err}"
    );
}
