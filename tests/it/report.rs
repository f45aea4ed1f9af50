//! The HTML report and replay pages in a real browser (headless Chromium, installed by
//! .ci/run): real tournaments are played, their pages load without a console error, show the
//! numbers of the results files, and stepping to the last turn of a replay shows the final
//! position the rules give after the recorded moves.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn url(path: &Path, fragment: &str) -> String {
    format!("file://{}{fragment}", path.display())
}

/// The text between `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("no {start:?} in the page"))
        + start.len();
    let to = text[from..].find(end).unwrap() + from;
    &text[from..to]
}

/// The cells of a table body: rows of cell texts (tags stripped).
fn rows(table: &str) -> Vec<Vec<String>> {
    let body = between(table, "<tbody>", "</tbody>");
    body.split("</tr>")
        .filter(|r| r.contains("<td"))
        .map(|r| {
            r.split("<td")
                .skip(1)
                .map(|c| {
                    let c = &c[c.find('>').unwrap() + 1..];
                    let c = c.split("</td>").next().unwrap();
                    let mut text = String::new();
                    let mut in_tag = false;
                    for ch in c.chars() {
                        match ch {
                            '<' => in_tag = true,
                            '>' => in_tag = false,
                            _ if !in_tag => text.push(ch),
                            _ => {}
                        }
                    }
                    text
                })
                .collect()
        })
        .collect()
}

/// `cell name -> "seat+label,..."` as the viewer drew the board.
fn drawn_cells(dom: &str) -> Vec<(String, String)> {
    dom.split("data-cell=\"")
        .skip(1)
        .map(|s| {
            let name = s[..s.find('"').unwrap()].to_string();
            let pieces = between(s, "data-pieces=\"", "\"").to_string();
            (name, pieces)
        })
        .collect()
}

/// The address of game `rec`'s replay in the results folder `dir`.
fn replay(dir: &Path, rec: &Value) -> String {
    url(
        &dir.join("replays").join("replay.html"),
        &format!("#game={}", rec["game_id"]),
    )
}

/// Opens a replay page in a frame of a test page, as a person would use it: `actions` is
/// script run on the replay's document `d` once the viewer is ready (`click(id)` presses a
/// button, `key(name)` a key), then `expr` (script giving a string) is what the page reports.
/// Returns that string, with the console messages.
fn probe(browser: &str, page: &str, actions: &str, expr: &str) -> (String, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let harness = dir.path().join("harness.html");
    std::fs::write(
        &harness,
        format!(
            r#"<html><body><pre id="out"></pre><iframe id="f" src="{}"></iframe><script>
document.getElementById('f').onload = function () {{
  var frame = this;
  (function ready() {{
    var d = frame.contentDocument;
    if (!d.body || d.body.getAttribute('data-ready') !== '1') return setTimeout(ready, 20);
    function key(k) {{ d.dispatchEvent(new KeyboardEvent('keydown', {{ key: k }})); }}
    function click(id) {{ d.getElementById(id).click(); }}
    {actions}
    document.getElementById('out').textContent = {expr};
  }})();
}};
</script></body></html>"#,
            page
        ),
    )
    .unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args(["--headless", "--disable-gpu", "--no-sandbox"])
        .args([
            "--allow-file-access-from-files",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", &url(&harness, "")])
        .output()
        .unwrap();
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let text = between(&dom, "<pre id=\"out\">", "</pre>");
    (unescape(text), console)
}

/// Text of the DOM dump back from its HTML escapes.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// [`probe`] reporting the step the page shows ("step N of M") and the cells it drew.
fn drive(browser: &str, page: &str, actions: &str) -> (String, Vec<(String, String)>, Vec<String>) {
    let (text, console) = probe(
        browser,
        page,
        actions,
        "d.getElementById('where').textContent + '\\n' + \
         Array.prototype.map.call(d.querySelectorAll('[data-cell]'), function (g) { \
           return g.getAttribute('data-cell') + '=' + g.getAttribute('data-pieces'); }).join('\\n')",
    );
    let mut lines = text.lines();
    let at = lines.next().unwrap_or_default().to_string();
    let cells = lines
        .map(|l| {
            let (name, pieces) = l.split_once('=').unwrap();
            (name.to_string(), pieces.to_string())
        })
        .collect();
    (at, cells, console)
}

/// The final position the rules give after a record's moves, as the viewer should draw it.
fn final_cells(rec: &Value) -> Vec<(String, String)> {
    let choice = arbiter::referee::GameChoice::new(
        rec["game"].as_str().unwrap(),
        rec["variant"].as_str(),
        rec["seats"].as_u64().map(|n| n as usize),
        None,
    )
    .unwrap();
    let mut g = choice.start(rec["seed"].as_u64().unwrap()).unwrap();
    let plies = rec["opening"]
        .as_array()
        .unwrap()
        .iter()
        .chain(rec["moves"].as_array().unwrap());
    for m in plies {
        let i = g
            .legal_moves()
            .iter()
            .position(|x| x == m.as_str().unwrap())
            .unwrap();
        g.play(i);
    }
    g.view()
        .cells
        .iter()
        .map(|c| {
            let p: Vec<String> = c
                .pieces
                .iter()
                .map(|p| format!("{}{}", p.seat, p.label))
                .collect();
            (c.name.clone(), p.join(","))
        })
        .collect()
}

fn records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("records.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn tournament(dir: &Path, game: &str, bots: &[String]) {
    let out = arbiter()
        .args([
            "tournament",
            "--game",
            game,
            "--games",
            "2",
            "--seed",
            "5",
            "--concurrency",
            "2",
        ])
        .args(["--first-turn-ms", "5000", "--turn-ms", "1000"])
        .arg("--out")
        .arg(dir)
        .args(bots)
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("Report: {}", dir.join("report.html").display())),
        "{stdout}"
    );
}

/// Checks the report against the results files, and the replay of the longest finished game
/// against the rules; returns the records.
fn check_report(browser: &str, dir: &Path) -> Vec<Value> {
    let (dom, console) = load(browser, &url(&dir.join("report.html"), ""));
    assert!(console.is_empty(), "console messages: {console:?}");
    // The standings show ratings.csv's numbers.
    let shown = rows(between(&dom, "id=\"ratings\"", "</table>"));
    let csv = std::fs::read_to_string(dir.join("ratings.csv")).unwrap();
    let expected: Vec<Vec<String>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(shown.len(), expected.len());
    for (row, want) in shown.iter().zip(&expected) {
        // rank, bot, elo, interval, games, points, W/D/L
        assert_eq!(row[1], want[1]);
        assert_eq!(row[4], want[6], "games of {}", want[1]);
        assert_eq!(row[5], want[7], "points of {}", want[1]);
        assert_eq!(row[6], format!("{}/{}/{}", want[8], want[9], want[10]));
    }
    // Every game of games.csv is listed, forfeits marked.
    let games = rows(between(&dom, "id=\"games\"", "</table>"));
    let csv = std::fs::read_to_string(dir.join("games.csv")).unwrap();
    assert_eq!(games.len(), csv.lines().count() - 1);
    assert!(
        dom.contains("of ") && dom.contains("games shown"),
        "the filter script ran"
    );
    // The longest game that ended by the rules, stepped to its end.
    let recs = records(dir);
    let longest = recs
        .iter()
        .filter(|r| r["reason"] == "win")
        .max_by_key(|r| r["moves"].as_array().unwrap().len())
        .expect("a game won by the rules");
    // The replay opens from the index, by the link as the report writes it, and shows the
    // game's last move and its verdict.
    let link = format!("replays/replay.html#game={}", longest["game_id"]);
    assert!(dom.contains(&format!("href=\"{link}\"")), "no link {link}");
    let (opened, console) = load(browser, &format!("file://{}/{link}&last", dir.display()));
    assert!(console.is_empty(), "console messages: {console:?}");
    let last = longest["moves"].as_array().unwrap().last().unwrap();
    assert!(
        opened.contains(&format!("played {}</div>", last.as_str().unwrap())),
        "the last move: {opened}"
    );
    assert!(opened.contains("<b>Verdict: ") && opened.contains(" won (win)</b>"));
    let page = replay(dir, longest);
    let n =
        longest["moves"].as_array().unwrap().len() + longest["opening"].as_array().unwrap().len();
    // The last-step button, then back one step and forward again with the arrow keys.
    let (at, cells, console) = drive(
        browser,
        &page,
        "click('last'); key('ArrowLeft'); key('ArrowRight');",
    );
    assert!(console.is_empty(), "console messages: {console:?}");
    assert_eq!(at, format!("step {n} of {n}"));
    assert_eq!(cells, final_cells(longest));
    // Next from the start, and the End key: the comparison tells positions apart.
    let (at, cells, _) = drive(browser, &page, "click('next'); click('next');");
    assert_eq!(at, format!("step 2 of {n}"));
    assert_ne!(cells, final_cells(longest));
    let (at, cells, _) = drive(browser, &page, "key('End');");
    assert_eq!(
        (at, cells),
        (format!("step {n} of {n}"), final_cells(longest))
    );
    // The address #last opens the page at its end too.
    let (dom, console) = load(browser, &format!("{page}&last"));
    assert!(console.is_empty(), "console messages: {console:?}");
    assert_eq!(drawn_cells(&dom), final_cells(longest));
    recs
}

fn python_bot(script: &str, mode: &str) -> String {
    format!(
        "{} {}/tests/bots/{script} {mode}",
        python(),
        root().display()
    )
}

#[test]
fn an_impasse_report_and_its_replays_in_a_browser() {
    let Some(browser) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("impasse");
    tournament(
        &dir,
        "impasse",
        &[
            format!("random={}", env!("CARGO_BIN_EXE_arbiter-bot-random")),
            format!("first={}", env!("CARGO_BIN_EXE_arbiter-bot-first")),
            format!("bad={}", python_bot("hostile.py", "invalid 3 zz99")),
        ],
    );
    let recs = check_report(&browser, &dir);
    // A forfeit shows its verdict and detail at the end.
    let lost = recs.iter().find(|r| r["reason"] == "invalid-move").unwrap();
    let page = replay(&dir, lost);
    let (dom, console) = load(&browser, &format!("{page}&last"));
    assert!(console.is_empty(), "{console:?}");
    assert!(dom.contains("bad forfeited (invalid-move)"), "{dom}");
    assert!(dom.contains("zz99"), "the detail names the answer");
    assert!(
        dom.contains("<div id=\"end\">"),
        "the verdict is shown at the last step"
    );
    // `arbiter report` rebuilds the same report from the files.
    std::fs::remove_dir_all(dir.join("replays")).unwrap();
    let out = arbiter().arg("report").arg(&dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir
        .join(format!("replays/game-{}.js", lost["game_id"]))
        .is_file());
    check_report(&browser, &dir);
    // Written elsewhere (--out X), the report's replays go beside X, none into DIR.
    std::fs::remove_dir_all(dir.join("replays")).unwrap();
    let elsewhere = tmp.path().join("www");
    std::fs::create_dir(&elsewhere).unwrap();
    let out = arbiter()
        .arg("report")
        .arg(&dir)
        .arg("--out")
        .arg(elsewhere.join("class.html"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!dir.join("replays").exists(), "nothing written into DIR");
    let (dom, console) = load(&browser, &format!("{}&last", replay(&elsewhere, lost)));
    assert!(console.is_empty(), "{console:?}");
    assert!(dom.contains("bad forfeited (invalid-move)"), "{dom}");
    let (report, console) = load(&browser, &url(&elsewhere.join("class.html"), ""));
    assert!(console.is_empty(), "{console:?}");
    assert!(
        report.contains("href=\"replays/replay.html#game="),
        "{report}"
    );
}

#[test]
fn a_draughts_report_shows_a_crash_with_its_stderr() {
    let Some(browser) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("draughts");
    tournament(
        &dir,
        "draughts",
        &[
            format!("r1={}", python_bot("standard.py", "random 1")),
            format!("r2={}", python_bot("standard.py", "random 2")),
            format!("crash={}", python_bot("standard.py", "crash-at 3")),
        ],
    );
    let recs = check_report(&browser, &dir);
    let crashed = recs.iter().find(|r| r["reason"] == "crash").unwrap();
    let page = replay(&dir, crashed);
    let (dom, console) = load(&browser, &format!("{page}&last"));
    assert!(console.is_empty(), "{console:?}");
    assert!(dom.contains("crash forfeited (crash)"), "{dom}");
    assert!(
        dom.contains("Traceback"),
        "the crashing bot's stderr is shown"
    );
    assert_eq!(drawn_cells(&dom), final_cells(crashed));
}

#[test]
fn a_replay_file_of_play_becomes_a_page() {
    let Some(browser) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let file: PathBuf = tmp.path().join("g.jsonl");
    let out = arbiter()
        .args([
            "play",
            "--game",
            "alva",
            "--seed",
            "4",
            "--first-turn-ms",
            "5000",
            "--turn-ms",
            "1000",
        ])
        .arg("--replay")
        .arg(&file)
        .arg(python_bot("standard.py", "random 1"))
        .arg(python_bot("standard.py", "random 2"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = arbiter().arg("replay").arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = tmp.path().join("g.html");
    let (dom, console) = load(&browser, &url(&page, "#last"));
    assert!(console.is_empty(), "{console:?}");
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let start = &lines[0];
    let rec = serde_json::json!({
        "game": "alva", "variant": start["variant"], "seats": start["seats"], "seed": start["seed"],
        "opening": start["opening"],
        "moves": lines.iter().filter(|l| l["type"] == "turn").map(|l| l["played"].clone()).collect::<Vec<_>>(),
    });
    assert_eq!(drawn_cells(&dom), final_cells(&rec));
}

#[test]
fn the_console_check_sees_a_script_error() {
    let Some(browser) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("bad.html");
    std::fs::write(
        &page,
        "<html><body><script>throw new Error('boom')</script></body></html>",
    )
    .unwrap();
    let (_, console) = load(&browser, &url(&page, ""));
    assert!(console.iter().any(|l| l.contains("boom")), "{console:?}");
}

/// The `i`-th step (from 1) of a record at which seat `seat` moved, with its own turn number.
fn own_turns(rec: &Value, seat: u64) -> Vec<(usize, usize)> {
    let opening = rec["opening"].as_array().unwrap().len();
    rec["seat"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, s)| s.as_u64() == Some(seat))
        .enumerate()
        .map(|(own, (i, _))| (opening + i + 1, own + 1))
        .collect()
}

#[test]
fn an_abande_replay_shows_each_turns_stderr_a_move_list_and_black_first() {
    let Some(browser) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("abande");
    tournament(
        &dir,
        "abande",
        &[
            format!("talker={}", python_bot("standard.py", "talk")),
            format!("quiet={}", python_bot("standard.py", "random 2")),
        ],
    );
    let recs = records(&dir);
    let rec = &recs[0];
    let talker = rec["bots"]
        .as_array()
        .unwrap()
        .iter()
        .position(|b| b == "talker")
        .unwrap() as u64;
    let page = replay(&dir, rec);
    let n = rec["moves"].as_array().unwrap().len() + rec["opening"].as_array().unwrap().len();

    // Each of the talker's frames shows what it wrote in that turn, and only that.
    let turns = own_turns(rec, talker);
    for &(step, own) in [turns[0], turns[1], turns[turns.len() - 1]].iter() {
        let (err, console) = probe(
            &browser,
            &page,
            &format!("key('Home'); for (var i = 0; i < {step}; i++) click('next');"),
            "d.getElementById('err-box').hidden + '|' + d.getElementById('err').textContent",
        );
        assert!(console.is_empty(), "{console:?}");
        let (hidden, text) = err.split_once('|').unwrap();
        assert_eq!(hidden, "false", "step {step}: {err}");
        let mv = rec["moves"][step - 1 - rec["opening"].as_array().unwrap().len()]
            .as_str()
            .unwrap();
        assert!(
            text.contains(&format!("turn {own}: "))
                && text.trim_end().ends_with(&format!("I play {mv}")),
            "step {step} (own turn {own}, move {mv}): {text:?}"
        );
        assert_eq!(text.matches("turn ").count(), 1, "{text:?}");
        assert_eq!(text.contains("playing abande"), own == 1, "{text:?}");
    }
    // The quiet bot's frames have no stderr box.
    let quiet = own_turns(rec, 1 - talker)[2].0;
    let (hidden, _) = probe(
        &browser,
        &page,
        &format!("for (var i = 0; i < {quiet}; i++) click('next');"),
        "String(d.getElementById('err-box').hidden)",
    );
    assert_eq!(hidden, "true");

    // The move list: one line per step and the verdict; a click shows that step.
    let (list, console) = probe(
        &browser,
        &page,
        "d.querySelector('#moves li[data-step=\"5\"]').click();",
        "d.querySelectorAll('#moves li').length + '|' + d.getElementById('where').textContent + '|' + \
         d.querySelector('#moves li.at').textContent + '|' + d.querySelector('#moves li.verdict').textContent",
    );
    assert!(console.is_empty(), "{console:?}");
    let parts: Vec<&str> = list.split('|').collect();
    assert_eq!(parts[0], (n + 1).to_string());
    assert_eq!(parts[1], format!("step 5 of {n}"));
    let bot5 = &rec["bots"][rec["seat"][4].as_u64().unwrap() as usize];
    assert_eq!(
        parts[2],
        format!(
            "{}: {}",
            bot5.as_str().unwrap(),
            rec["moves"][4].as_str().unwrap()
        )
    );
    assert!(parts[3].starts_with("Verdict: "), "{list}");
    // Clicking the verdict goes to the end.
    let (at, cells, _) = drive(
        &browser,
        &page,
        "d.querySelector('#moves li.verdict').click();",
    );
    assert_eq!(at, format!("step {n} of {n}"));
    assert_eq!(cells, final_cells(rec));

    // Seat 0 is Black in Abande: its pieces are drawn dark and the legend says so.
    let (fills, _) = probe(
        &browser,
        &page,
        "key('End');",
        "Array.prototype.map.call(d.querySelectorAll('[data-cell]'), function (g) { \
           var e = g.querySelectorAll('ellipse'); \
           return e.length ? g.getAttribute('data-pieces').split(',').pop()[0] + '=' + \
             e[e.length - 1].getAttribute('fill') : ''; \
         }).filter(String).join(' ') + '|' + d.getElementById('legend').textContent",
    );
    let (fills, legend) = fills.split_once('|').unwrap();
    let mut seen = [false; 2];
    for f in fills.split_whitespace() {
        let seat = f.as_bytes()[0] - b'0';
        let fill = f.rsplit('=').next().unwrap();
        let want = if seat == 0 { "#2b2b2b" } else { "#f3efe2" };
        assert_eq!(fill, want, "top piece of seat {seat}: {f}");
        seen[seat as usize] = true;
    }
    assert_eq!(seen, [true, true], "{fills}");
    assert!(legend.contains("seat 0 (Black)"), "{legend}");
    assert!(legend.contains("seat 1 (White)"), "{legend}");
}

#[test]
fn a_merged_slurm_style_run_has_its_records_report_and_replays() {
    let Some(browser) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    // As the Slurm jobs lay it out: shards in RUN/shard-K, the merge in RUN itself.
    let run = tmp.path().join("run");
    for k in 1..=2 {
        let out = arbiter()
            .args([
                "tournament",
                "--game",
                "impasse",
                "--games",
                "4",
                "--seed",
                "9",
            ])
            .args(["--shard", &format!("{k}/2"), "--opening-plies", "2"])
            .args(["--first-turn-ms", "5000", "--turn-ms", "1000", "--out"])
            .arg(run.join(format!("shard-{k}")))
            .args([
                format!("random={}", env!("CARGO_BIN_EXE_arbiter-bot-random")),
                format!("first={}", env!("CARGO_BIN_EXE_arbiter-bot-first")),
                format!("greedy={}", env!("CARGO_BIN_EXE_arbiter-bot-greedy")),
            ])
            .timeout(Duration::from_secs(300))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = arbiter()
        .arg("merge")
        .arg(&run)
        .arg(run.join("shard-1"))
        .arg(run.join("shard-2"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("Report: {}", run.join("report.html").display())),
        "{stdout}"
    );
    // Every game of the shards is recorded once in the merge, and every one has its page.
    let shard_games: usize = (1..=2)
        .map(|k| records(&run.join(format!("shard-{k}"))).len())
        .sum();
    let recs = check_report(&browser, &run);
    assert_eq!(recs.len(), shard_games);
    assert_eq!(recs.len(), 12, "4 games for each of 3 pairs");
    let (dom, _) = load(&browser, &url(&run.join("report.html"), ""));
    for r in &recs {
        assert!(
            dom.contains(&format!(
                "href=\"replays/replay.html#game={}\"",
                r["game_id"]
            )),
            "game {} is linked",
            r["game_id"]
        );
    }
}

/// A bot given as a source file runs from its build folder in the cache: its traceback names
/// `CACHE/<hash>/bob.py`. The replay page and the report show the path the user gave instead.
#[test]
fn a_source_bots_stderr_names_its_origin_not_the_build_cache() {
    let Some(browser) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (work, cache, dir) = (tmp.path(), tmp.path().join("cache"), tmp.path().join("t"));
    std::fs::create_dir(work.join("students")).unwrap();
    std::fs::write(
        work.join("students/bob.py"),
        "import sys\nsys.stdin.readline()\nraise RuntimeError('bob gives up')\n",
    )
    .unwrap();
    let out = arbiter()
        .current_dir(work)
        .env("ARBITER_CACHE", &cache)
        .args([
            "tournament",
            "--games",
            "2",
            "--seed",
            "5",
            "--concurrency",
            "2",
        ])
        .args(["--first-turn-ms", "5000", "--turn-ms", "1000", "--out"])
        .arg(&dir)
        .arg("students/bob.py")
        .arg(format!("first={}", env!("CARGO_BIN_EXE_arbiter-bot-first")))
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cache_text = format!("{}/", cache.display());
    let recs = records(&dir);
    let lost = recs.iter().find(|r| r["reason"] == "crash").unwrap();
    let seat = lost["offender"].as_u64().unwrap() as usize;
    let tail = lost["stderr"][seat].as_str().unwrap();
    assert!(
        tail.contains(&cache_text),
        "the record keeps the raw text: {tail}"
    );
    let page = replay(&dir, lost);
    let (dom, console) = load(&browser, &format!("{page}&last"));
    assert!(console.is_empty(), "{console:?}");
    assert!(dom.contains("bob gives up"), "{dom}");
    assert!(dom.contains("File \"students/bob.py\", line 3"), "{dom}");
    assert!(!dom.contains(&cache_text), "{dom}");
    let report = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(report.contains("students/bob.py&quot;, line 3"), "{report}");
    assert!(!report.contains(&cache_text));
}

/// The same for one game: `arbiter play` names a source bot's files as the user gave them in
/// its summary, and so does the page `arbiter replay` makes of its replay file, wherever that
/// runs; the replay file keeps the raw text.
#[test]
fn a_played_games_summary_and_replay_page_name_the_bots_files_not_the_build_cache() {
    let Some(browser) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (work, cache) = (tmp.path().join("w"), tmp.path().join("cache"));
    std::fs::create_dir_all(work.join("students")).unwrap();
    std::fs::write(
        work.join("students/bob.py"),
        "import sys\nsys.stdin.readline()\nraise RuntimeError('bob gives up')\n",
    )
    .unwrap();
    let out = arbiter()
        .current_dir(&work)
        .env("ARBITER_CACHE", &cache)
        .args(["play", "--seed", "5", "--first-turn-ms", "5000"])
        .args(["--replay", "game.jsonl", "students/bob.py"])
        .arg(env!("CARGO_BIN_EXE_arbiter-bot-first"))
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{summary}");
    let cache_text = format!("{}/", cache.display());
    assert!(summary.contains("bob loses by crash"), "{summary}");
    assert!(
        summary.contains("File \"students/bob.py\", line 3"),
        "{summary}"
    );
    assert!(!summary.contains(&cache_text), "{summary}");
    let replay = work.join("game.jsonl");
    assert!(
        std::fs::read_to_string(&replay)
            .unwrap()
            .contains(&cache_text),
        "the replay file keeps the raw text"
    );
    // Made elsewhere, with another cache.
    let out = arbiter()
        .current_dir(tmp.path())
        .env("ARBITER_CACHE", tmp.path().join("other"))
        .arg("replay")
        .arg(&replay)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let (dom, console) = load(&browser, &url(&work.join("game.html"), "#last"));
    assert!(console.is_empty(), "{console:?}");
    assert!(dom.contains("bob gives up"), "{dom}");
    assert!(dom.contains("File \"students/bob.py\", line 3"), "{dom}");
    assert!(!dom.contains(&cache_text), "{dom}");
}

/// A bot's comment is shown once in the answer box: after the move when the answer was just
/// the move and its comment, and inside the line as written when the answer was kept.
#[test]
fn the_answer_box_shows_a_comment_once() {
    let Some(browser) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("comments");
    tournament(
        &dir,
        "impasse",
        &[
            format!("talker={}", python_bot("hostile.py", "comment")),
            format!("first={}", env!("CARGO_BIN_EXE_arbiter-bot-first")),
        ],
    );
    let rec = &records(&dir)[0];
    let talker = rec["bots"]
        .as_array()
        .unwrap()
        .iter()
        .position(|b| b == "talker")
        .unwrap() as u64;
    let page = replay(&dir, rec);
    let (step, _) = own_turns(rec, talker)[1];
    let (answer, console) = probe(
        &browser,
        &page,
        &format!("key('Home'); for (var i = 0; i < {step}; i++) click('next');"),
        "d.getElementById('answer').textContent",
    );
    assert!(console.is_empty(), "{console:?}");
    assert_eq!(
        answer.matches("some comment text").count(),
        1,
        "step {step}: {answer:?}"
    );
}
