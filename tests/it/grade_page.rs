//! The grading page in a real browser: every game of every student is linked to its replay,
//! a student's identical crashes are one entry, no build-cache path is shown, and each student's
//! folder (their page and their replays) works on its own, moved elsewhere.

use crate::common::*;
use std::path::Path;

/// Reads the Impasse arena input and answers the first offered move; `BEHAVIOUR` runs first.
const PY_LOOP: &str = r#"import sys
turn = 0
while True:
    turn += 1
    if turn == 1:
        input()  # colour
    for _ in range(8):
        input()
    input()  # last move
    moves = [input() for _ in range(int(input()))]
    BEHAVIOUR
    print(moves[0], flush=True)
"#;

/// A page's address, opened at its last step.
fn page_url(page: &Path) -> String {
    format!("file://{}#last", page.display())
}

/// The `href`s of a page that point to replays.
fn replay_links(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .filter(|l| l.starts_with("replays/"))
        .collect()
}

#[test]
fn the_grading_page_links_every_game_groups_failures_and_each_student_folder_stands_alone() {
    let Some(browser) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let class = tmp.path().join("class");
    std::fs::create_dir_all(class.join("bea")).unwrap();
    std::fs::write(class.join("ann.py"), PY_LOOP.replace("BEHAVIOUR", "pass")).unwrap();
    // Bea always crashes on her second turn with the same traceback, from a folder submission.
    std::fs::write(
        class.join("bea/bot.py"),
        PY_LOOP.replace("BEHAVIOUR", "if turn == 2: raise ValueError('bad board')"),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let run = arbiter()
        .env("ARBITER_CACHE", tmp.path().join("cache"))
        .args(["grade", "--games", "2", "--seed", "3"])
        .args(["--first-turn-ms", "3000", "--turn-ms", "1000"])
        .args(["--baseline", &first_bot(), "--baseline", &random_bot()])
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    let csv = read_csv(&out.join("games.csv"));
    for student in ["ann", "bea"] {
        // Every game the student played is linked from their section and their own page.
        let mut ids: Vec<String> = csv
            .iter()
            .filter(|r| r.values().any(|v| v == student))
            .map(|r| r["game_id"].clone())
            .collect();
        ids.sort();
        assert_eq!(
            ids.len(),
            6,
            "{student}: 2 games against each baseline and the other student"
        );
        let section = page
            .split(&format!("id=\"student-{student}\""))
            .nth(1)
            .unwrap()
            .split("<h2")
            .next()
            .unwrap();
        let own_dir = out.join("students").join(format!("student-{student}"));
        let own = std::fs::read_to_string(own_dir.join("report.html")).unwrap();
        for html in [section, own.as_str()] {
            let mut linked: Vec<String> = replay_links(html)
                .iter()
                .map(|l| {
                    l.strip_prefix("replays/replay.html#game=")
                        .unwrap_or_else(|| panic!("a replay link: {l}"))
                        .to_string()
                })
                .collect();
            linked.sort();
            linked.dedup();
            assert_eq!(linked, ids, "{student}");
        }
        // The folder stands alone: moved away, its links resolve and a replay plays.
        let moved = tmp.path().join(format!("sent-{student}"));
        std::fs::rename(&own_dir, &moved).unwrap();
        for l in replay_links(&own) {
            let (page, id) = l.split_once("#game=").unwrap();
            assert!(moved.join(page).is_file(), "{student}: {l}");
            let data = moved.join(format!("replays/game-{id}.js"));
            assert!(data.is_file(), "{student}: {l}: no {}", data.display());
        }
        let (dom, console) = load(
            &browser,
            &format!(
                "file://{}#game={}&last",
                moved.join("replays/replay.html").display(),
                ids[0]
            ),
        );
        assert!(console.is_empty(), "{console:?}");
        assert!(dom.contains("data-ready=\"1\""), "the replay ran");
        let (dom, console) = load(&browser, &page_url(&moved.join("report.html")));
        assert!(console.is_empty(), "{console:?}");
        assert!(dom.contains("Mark "), "{student}'s mark");
    }
    // Bea's six crashes are one entry, with her traceback, her paths as in the class folder.
    let bea = page.split("id=\"student-bea\"").nth(1).unwrap();
    assert_eq!(bea.matches("class=\"failure\"").count(), 1, "{bea}");
    assert!(bea.contains("crash</b>, 6 games"), "{bea}");
    assert!(bea.contains("ValueError: bad board"), "{bea}");
    assert!(bea.contains("bea/bot.py"), "the path in the class: {bea}");
    let cache = tmp.path().join("cache").display().to_string();
    assert!(!page.contains(&cache), "a build-cache path is shown");
}

/// How a class reads its page: names in the order people sort them (case aside), the mark
/// column with its maximum, and a student whose code does not build sees the compiler's error
/// first, not folded away.
#[test]
fn the_grading_page_sorts_names_states_the_maximum_and_shows_a_failed_build_first() {
    let tmp = tempfile::tempdir().unwrap();
    let class = tmp.path().join("class");
    std::fs::create_dir_all(&class).unwrap();
    std::fs::write(class.join("Zoe.py"), PY_LOOP.replace("BEHAVIOUR", "pass")).unwrap();
    std::fs::write(class.join("amy.py"), PY_LOOP.replace("BEHAVIOUR", "pass")).unwrap();
    std::fs::write(
        class.join("bob.cpp"),
        "int main() { return undefined_thing; }\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let run = arbiter()
        .env("ARBITER_CACHE", tmp.path().join("cache"))
        .args(["grade", "--games", "2", "--seed", "3"])
        .args(["--first-turn-ms", "3000", "--turn-ms", "1000"])
        .args(["--baseline", &first_bot()])
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    let at = |s: &str| page.find(s).unwrap_or_else(|| panic!("{s} missing"));
    let (amy, bob, zoe) = (
        at("id=\"student-amy\""),
        at("id=\"student-bob\""),
        at("id=\"student-Zoe\""),
    );
    assert!(amy < bob && bob < zoe, "amy, bob, Zoe in that order");
    let table = &page[..amy];
    assert!(
        table.find("#student-amy").unwrap() < table.find("#student-bob").unwrap()
            && table.find("#student-bob").unwrap() < table.find("#student-Zoe").unwrap(),
        "the marks table in the same order"
    );
    let csv = read_csv(&out.join("marks.csv"));
    let names: Vec<&str> = csv.iter().map(|r| r["student"].as_str()).collect();
    assert_eq!(names, ["amy", "bob", "Zoe"], "marks.csv in the same order");
    assert!(
        page.contains("<th>Mark (/"),
        "the mark column states its maximum"
    );
    // Bob's section opens with the compiler's error, and his build log is open.
    let section = &page[bob..zoe];
    let error = section
        .find("undefined_thing")
        .expect("the compiler's error");
    assert!(error < section.find("Mark ").unwrap(), "{section}");
    assert!(
        section.contains("<details open"),
        "the build log is open: {section}"
    );
}
