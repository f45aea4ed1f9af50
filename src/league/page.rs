//! The league's pages: `/` (standings with error bars, games in progress, recent games, the
//! workers with their voided games and quarantines, kept
//! up to date by server-sent events, no polling; a hidden tab stops listening and catches up when
//! shown), each bot's page (its score against each opponent, its own recent games with their
//! replays, its forfeits with their verdicts, its stderr) and each game's replay in arbiter's viewer. Markup is maud's, which escapes every
//! text; the script builds its rows with `textContent`, so no bot text is ever read as HTML.

use super::locks::{Locked, RwLocked};
use super::server::Shared;
use maud::{html, Markup, PreEscaped, DOCTYPE};

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #ddd}\
.bar{position:relative;width:200px;height:10px;background:#f3f3f3}\
.bar span{position:absolute;top:2px;height:6px;background:#4a7fd4}\
.bar i{position:absolute;top:0;width:2px;height:10px;background:#123}\
.broken,.suspended{color:#b00}.removed{color:#888}pre{background:#f6f6f6;padding:8px;\
white-space:pre-wrap;max-width:60em}";

fn head(title: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            title { (title) }
            style { (PreEscaped(STYLE)) }
        }
    }
}

/// The league's main page; the script fills it from the API and follows the events. The
/// quarantines are in it from the start (from the folder's log, the latest entry of each
/// worker, as the server reads it back): a page read without its script still says whose games
/// are out of the ratings.
pub fn index(s: &Shared) -> String {
    let game = s.table.choice.describe();
    let quarantined: std::collections::BTreeMap<String, super::trust::Quarantined> =
        super::trust::read_quarantined(&s.dir)
            .into_iter()
            .map(|q| (q.worker.clone(), q))
            .collect();
    html! {
        (DOCTYPE)
        html {
            (head(&format!("League: {game}")))
            body {
                h1 { "League: " (game) }
                @if let Some(why) = s.recording_failure() {
                    p id="recording" class="broken" {
                        "The league stopped recording: " (why) ". No result is accepted and no \
                         game leased until its owner fixes that and starts it again."
                    }
                }
                p id="summary" { "loading…" }
                h2 { "Standings" }
                table id="standings" {
                    thead { tr { th { "#" } th { "Bot" } th { "Rating" } th { "95% interval" }
                        th { "" } th { "Games" } th { "W/D/L" } th { "Status" } } }
                    tbody {}
                }
                p id="model" {}
                div id="sprt" {}
                h2 { "Games in progress" }
                ul id="running" {}
                h2 { "Recent games" }
                table id="recent" {
                    thead { tr { th { "Game" } th { "Bots" } th { "Result" } } }
                    tbody {}
                }
                h2 { "Workers" }
                table id="workers" {
                    thead { tr { th { "Worker" } th { "Host" } th { "Alive" } th { "Games" }
                        th { "Voided" } th { "Last seen" } th { "Status" } } }
                    tbody {}
                }
                h3 { "Voided games (lost to a worker's load, played again)" }
                ul id="voided" {}
                h3 { "Quarantined workers (their games are out of the ratings)" }
                ul id="quarantined" {
                    @for q in quarantined.values() {
                        li class="quarantined" {
                            (q.worker) " since " (q.at) " (" (q.games.len()) " games): " (q.why)
                        }
                    }
                }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    }
    .into_string()
}

const SCRIPT: &str = r#"
const $ = (id) => document.getElementById(id);
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
function link(href, text) { const a = el('a', text); a.href = href; return a; }
function fmt(x) { return x === null || x === undefined ? '–' : (x >= 0 ? '+' : '') + x.toFixed(0); }
async function standings() {
  const t = await (await fetch('/api/standings')).json();
  const lows = t.bots.filter(b => b.low !== null).map(b => b.low), highs = t.bots.filter(b => b.high !== null).map(b => b.high);
  const lo = Math.min(-100, ...lows), hi = Math.max(100, ...highs);
  const x = (v) => (100 * (v - lo) / (hi - lo)).toFixed(1) + '%';
  const body = $('standings').tBodies[0]; body.replaceChildren();
  t.bots.forEach((b, i) => {
    const tr = el('tr'); tr.className = 'bot ' + b.status;
    tr.append(el('td', String(i + 1)));
    const name = el('td'); name.append(link('/bot/' + encodeURIComponent(b.name), b.name)); tr.append(name);
    tr.append(el('td', fmt(b.rating)));
    tr.append(el('td', b.low === null ? '' : fmt(b.low) + ' … ' + fmt(b.high)));
    const bar = el('td'); const box = el('div', undefined, 'bar');
    if (b.low !== null && b.high !== null) { const s = el('span'); s.style.left = x(b.low); s.style.width = 'calc(' + x(b.high) + ' - ' + x(b.low) + ')'; box.append(s); }
    if (b.rating !== null) { const m = el('i'); m.style.left = x(b.rating); box.append(m); }
    bar.append(box); tr.append(bar);
    tr.append(el('td', String(b.games)));
    tr.append(el('td', b.wins + '/' + b.draws + '/' + b.losses));
    tr.append(el('td', b.status + (b.problem ? ': ' + b.problem : ''), b.status));
    body.append(tr);
  });
  $('summary').textContent = t.games + ' games rated, ' + t.bots.length + ' bots';
  $('model').textContent = t.model;
  const sp = $('sprt'); sp.replaceChildren();
  (t.sprts || []).forEach(x => {
    const d = el('div', undefined, 'sprt ' + x.verdict);
    d.append(el('p', 'SPRT ' + x.new + ' vs ' + x.old + ' (nElo ' + x.elo0 + ' vs ' + x.elo1 + ', at most ' + x.max_pairs + ' pairs): LLR ' + x.llr.toFixed(2) + ' in [' + x.lower.toFixed(2) + ', ' + x.upper.toFixed(2) + '] after ' + x.pairs + ' pairs: ' + verdict(x)));
    d.append(course(x)); sp.append(d);
  });
}
function verdict(x) {
  return {H1: 'H1 accepted: better', H0: 'H0 accepted: not better', 'max-pairs': 'ended without a decision at its pair limit', removed: 'ended: a bot of it was removed', replaced: 'ended: the candidate was replaced', running: 'running'}[x.verdict] || x.verdict;
}
function course(x) {
  const ns = 'http://www.w3.org/2000/svg', w = 320, h = 80;
  const svg = document.createElementNS(ns, 'svg'); svg.setAttribute('width', w); svg.setAttribute('height', h); svg.setAttribute('class', 'course');
  const n = Math.max(1, ...x.course.map(p => p[0]));
  const lo = Math.min(x.lower, ...x.course.map(p => p[1])), hi = Math.max(x.upper, ...x.course.map(p => p[1]));
  const X = (v) => (w * v / n).toFixed(1), Y = (v) => (h - h * (v - lo) / (hi - lo)).toFixed(1);
  [x.lower, x.upper, 0].forEach(b => { const l = document.createElementNS(ns, 'line'); l.setAttribute('x1', 0); l.setAttribute('x2', w); l.setAttribute('y1', Y(b)); l.setAttribute('y2', Y(b)); l.setAttribute('stroke', b === 0 ? '#ccc' : '#999'); l.setAttribute('stroke-dasharray', '4 3'); svg.append(l); });
  const pl = document.createElementNS(ns, 'polyline'); pl.setAttribute('fill', 'none'); pl.setAttribute('stroke', '#36c');
  pl.setAttribute('points', [[0, 0]].concat(x.course).map(p => X(p[0]) + ',' + Y(p[1])).join(' ')); svg.append(pl);
  const title = document.createElementNS(ns, 'title'); title.textContent = 'the LLR after each pair'; svg.append(title);
  return svg;
}
function result(g) {
  if (!g.ranks) return 'playing';
  const first = g.ranks.indexOf(0);
  const alone = g.ranks.filter(r => r === 0).length === 1;
  return (alone ? g.bots[first] + ' won' : 'draw') + ' (' + g.reason + ')';
}
function recentRow(r) {
  const tr = el('tr'); tr.className = 'recent'; tr.dataset.game = r.game_id;
  const id = el('td'); id.append(link('/replay/' + r.game_id, String(r.game_id))); tr.append(id);
  tr.append(el('td', r.bots.join(' vs ')));
  tr.append(el('td', result(r)));
  return tr;
}
// A finished game goes into the table the moment its event comes, and stays there when a
// list fetched before the event arrives after it (see games()).
const told = [];
function heard(g) {
  told.push(g);
  if (told.length > 100) told.shift();
  keep($('recent').tBodies[0], g);
}
function keep(body, g) {
  if (!body.querySelector('tr[data-game="' + g.game_id + '"]')) body.prepend(recentRow(g));
  while (body.rows.length > 100) body.deleteRow(-1);
}
async function games() {
  const g = await (await fetch('/api/games')).json();
  const ul = $('running'); ul.replaceChildren();
  g.running.forEach(r => { const li = el('li', 'game ' + r.game_id + ': ' + r.bots.join(' vs ') + ' on ' + (r.worker || '')); li.className = 'running'; ul.append(li); });
  const body = $('recent').tBodies[0]; body.replaceChildren();
  g.recent.forEach(r => body.append(recentRow(r)));
  told.forEach(h => keep(body, h));
}
async function workers() {
  const w = await (await fetch('/api/workers')).json();
  const body = $('workers').tBodies[0]; body.replaceChildren();
  w.workers.forEach(x => {
    const tr = el('tr'); tr.className = 'worker'; tr.dataset.session = x.session;
    tr.append(el('td', x.session));
    tr.append(el('td', x.host + ' (' + x.cores + ' cores, bench ' + x.bench_ms.toFixed(0) + ' ms)'));
    tr.append(el('td', x.alive ? 'yes' : 'no'));
    tr.append(el('td', String(x.games)));
    tr.append(el('td', String(x.voided)));
    tr.append(el('td', x.last_seen_s + ' s ago'));
    tr.append(el('td', x.idle ? 'no games: ' + x.idle : (x.alive ? 'playing' : 'gone'), x.idle ? 'broken' : ''));
    body.append(tr);
  });
  const v = $('voided'); v.replaceChildren();
  w.voided.forEach(x => {
    const li = el('li'); li.className = 'voided'; li.dataset.game = x.game_id;
    li.append(el('span', 'game ' + x.game_id + ' (' + x.bots.join(' vs ') + ') on ' + x.worker + ' at ' + x.at + ': seat ' + x.seat + ' ' + x.reason + ' after waiting ' + (x.waited_total_us / 1000).toFixed(0) + ' ms for a CPU (' + x.starved_turns + ' turns past their limit): ' + x.detail));
    v.append(li);
  });
  const q = $('quarantined'); q.replaceChildren();
  w.quarantined.forEach(x => { const li = el('li', x.worker + ' since ' + x.at + ' (' + x.games.length + ' games): ' + x.why); li.className = 'quarantined'; q.append(li); });
}
// A server that went away (stopped, restarting) is said, not thrown.
function gone() { $('summary').textContent = 'the league server does not answer (stopped or restarting?)'; }
function update() { standings().catch(gone); games().catch(gone); workers().catch(gone); }
let timer = null;
function refresh() { if (timer) return; timer = setTimeout(() => { timer = null; update(); }, 200); }
let source = null;
function listen() {
  if (source) return;
  source = new EventSource('/api/events');
  for (const kind of ['start', 'released', 'standings', 'bot', 'voided', 'quarantined']) source.addEventListener(kind, refresh);
  // The games heard of, on the body (scripts and tests read what the page was told).
  source.addEventListener('game', (e) => {
    const g = JSON.parse(e.data);
    document.body.dataset.heard = ((document.body.dataset.heard || '') + ' ' + g.game_id).trim();
    heard(g);
    refresh();
  });
  source.addEventListener('hello', refresh);
}
function quiet() { if (source) { source.close(); source = null; } }
document.addEventListener('visibilitychange', () => { if (document.hidden) quiet(); else { listen(); refresh(); } });
if (!document.hidden) listen();
update();
"#;

/// What a bot's page shows, as JSON: its standings line, score against each opponent, recent
/// games and forfeits, and its stderr in its latest game (`null` unless `[page] show_stderr`:
/// its author and the admin read it from `/api/bots/NAME/stderr`).
pub fn bot_data(s: &Shared, name: &str) -> Option<serde_json::Value> {
    let show = s.settings.page.show_stderr;
    let table = s.standings.reading().clone();
    let line = table.bots.iter().find(|b| b.name == name)?.clone();
    let versus = s.counted.locked().versus(name);
    let notes = s.live.locked().notes.get(name).cloned().unwrap_or_default();
    Some(serde_json::json!({
        "bot": line,
        "versus": versus,
        "games": notes.games,
        "forfeits": notes.forfeits,
        "stderr": show.then_some(notes.stderr),
        "stderr_game": notes.stderr_game,
    }))
}

/// A bot's page.
pub fn bot(s: &Shared, name: &str) -> Option<String> {
    let table = s.standings.reading().clone();
    let line = table.bots.iter().find(|b| b.name == name)?.clone();
    let versus = s.counted.locked().versus(name);
    let notes = s.live.locked().notes.get(name).cloned().unwrap_or_default();
    let rating = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{x:+.0}"));
    Some(
        html! {
            (DOCTYPE)
            html {
                (head(&format!("League bot {name}")))
                body {
                    p { a href="/" { "← standings" } }
                    h1 { (name) }
                    p class=(line.status) {
                        "Rating " (rating(line.rating)) " (95%: " (rating(line.low)) " … "
                        (rating(line.high)) "), " (line.games) " games, status " (line.status)
                        @if let Some(p) = &line.problem { ": " (p) }
                    }
                    h2 { "Against each opponent" }
                    @if versus.is_empty() { p id="no-versus" { "None: no game recorded yet." } }
                    table id="versus" {
                        thead { tr { th { "Opponent" } th { "Games" } th { "Score" } th { "W/D/L" } } }
                        tbody {
                            @for v in &versus {
                                tr {
                                    td { a href={"/bot/" (v.opponent)} { (v.opponent) } }
                                    td { (v.games) }
                                    td { (format!("{:.1}", v.points)) }
                                    td { (v.wins) "/" (v.draws) "/" (v.losses) }
                                }
                            }
                        }
                    }
                    h2 { "Recent games" }
                    @if notes.games.is_empty() { p id="no-games" { "None recorded yet." } }
                    @else {
                        table id="games" {
                            thead { tr { th { "Game" } th { "Opponents" } th { "Result" }
                                th { "Reason" } } }
                            tbody {
                                @for g in &notes.games {
                                    tr class="game" data-game=(g.game_id) {
                                        td { a href={"/replay/" (g.game_id)} { "game " (g.game_id) } }
                                        td { (opponents(g, name)) }
                                        td { (outcome(g, name)) }
                                        td { (g.reason.as_deref().unwrap_or("")) }
                                    }
                                }
                            }
                        }
                    }
                    h2 { "Forfeits" }
                    @if notes.forfeits.is_empty() { p { "None recorded lately." } }
                    ul id="forfeits" {
                        @for f in &notes.forfeits {
                            li {
                                a href={"/replay/" (f.game_id)} { "game " (f.game_id) } ": "
                                (f.reason) " at turn " (f.turn) ": " (f.detail)
                            }
                        }
                    }
                    h2 { "Stderr" @if let Some(g) = notes.stderr_game { " (game " (g) ")" } }
                    @if !s.settings.page.show_stderr {
                        p id="stderr-private" {
                            "Shown to its author and the league's admin only: "
                            code { "GET /api/bots/" (name) "/stderr" }
                            " with the author's or the admin token (this league's league.toml \
                             does not set " code { "[page] show_stderr = true" } ")."
                        }
                    } @else if notes.stderr.is_empty() {
                        p id="no-stderr" { "None." }
                    } @else {
                        pre id="stderr" { (notes.stderr) }
                    }
                }
            }
        }
        .into_string(),
    )
}

/// The other bots of game `g`, as bot `name`'s page lists them.
fn opponents(g: &super::lines::GameLine, name: &str) -> String {
    let others: Vec<&str> = g
        .bots
        .iter()
        .map(String::as_str)
        .filter(|b| *b != name)
        .collect();
    if others.is_empty() {
        "itself".to_string()
    } else {
        others.join(", ")
    }
}

/// How bot `name` ended game `g`: won, draw, lost, or its place among more than two seats.
fn outcome(g: &super::lines::GameLine, name: &str) -> String {
    let Some(ranks) = &g.ranks else {
        return "playing".to_string();
    };
    let Some(rank) = g
        .bots
        .iter()
        .position(|b| b == name)
        .and_then(|seat| ranks.get(seat))
    else {
        return String::new();
    };
    let tied = ranks.iter().filter(|r| *r == rank).count() > 1;
    match (*rank, tied, ranks.len()) {
        (0, false, _) => "won".to_string(),
        (0, true, _) => "draw".to_string(),
        (_, _, 2) => "lost".to_string(),
        (r, _, n) => format!("place {} of {n}", r + 1),
    }
}

/// Where the league serves its SDK game's own viewer (its folder's `replays/sdk-view.js`).
pub const SDK_VIEW: &str = "/sdk-view.js";

/// The replay page of game `id`, in arbiter's viewer: its one record, read from records.jsonl
/// where the replay index says it is (an unknown game reads nothing of the records).
pub fn replay(s: &Shared, id: u64) -> Result<String, String> {
    use std::io::{BufRead, Read, Seek};
    let path = s.dir.join(crate::results::records::FILE);
    let (latest, file) = {
        let live = s.live.locked();
        (live.offsets.get(id), live.offsets.file())
    };
    let offset = match (latest, file) {
        (Some(o), _) => Some(o),
        (None, Some(index)) => index
            .get(id)
            .map_err(|e| format!("{}: {e}", super::record_index::FILE))?,
        (None, None) => None,
    };
    let Some(offset) = offset else {
        return Err(format!("game {id} has no record here (yet)"));
    };
    let mut file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    file.seek(std::io::SeekFrom::Start(offset))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut line = Vec::new();
    // One record: its line, however long the records after it.
    std::io::BufReader::new(file.take(MAX_RECORD_BYTES))
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let rec: crate::results::records::GameRecord =
        serde_json::from_slice(&line).map_err(|e| format!("the record of game {id}: {e}"))?;
    if rec.game_id != id {
        return Err(format!(
            "the replay index points game {id} at game {}'s record: restart the league to \
             index its records again",
            rec.game_id
        ));
    }
    // An SDK game's page loads the game's own viewer from the server (`/sdk-view.js`).
    use crate::report::html::viewer::{page_with_viewer, Viewer};
    let sdk = rec.external.as_ref().is_some_and(|e| e.sdk.is_some());
    let viewer = if sdk {
        Viewer::Src(SDK_VIEW)
    } else {
        Viewer::None
    };
    page_with_viewer(&rec, Some("/"), viewer).map_err(|e| format!("the replay of game {id}: {e}"))
}

/// The longest record a replay page reads (a worker's result is at most
/// [`super::wire::RESULT_LIMIT`]).
const MAX_RECORD_BYTES: u64 = 2 * super::wire::RESULT_LIMIT as u64;
