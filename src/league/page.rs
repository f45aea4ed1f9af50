//! The league's pages: `/` (standings with error bars, games in progress, recent games, the
//! workers with their voided games and quarantines, kept
//! up to date by server-sent events, no polling; a hidden tab stops listening and catches up when
//! shown), each bot's page (its score against each opponent, its forfeits with their verdicts,
//! its stderr) and each game's replay in arbiter's viewer. Markup is maud's, which escapes every
//! text; the script builds its rows with `textContent`, so no bot text is ever read as HTML.

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
                p id="summary" { "loading…" }
                h2 { "Standings" }
                table id="standings" {
                    thead { tr { th { "#" } th { "Bot" } th { "Rating" } th { "95% interval" }
                        th { "" } th { "Games" } th { "W/D/L" } th { "Status" } } }
                    tbody {}
                }
                p id="model" {}
                p id="sprt" {}
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
  $('sprt').textContent = t.sprt ? 'SPRT ' + t.sprt.new + ' vs ' + t.sprt.old + ' (nElo ' + t.sprt.elo0 + ' vs ' + t.sprt.elo1 + '): LLR ' + t.sprt.llr.toFixed(2) + ' in [' + t.sprt.lower.toFixed(2) + ', ' + t.sprt.upper.toFixed(2) + '] after ' + t.sprt.pairs + ' pairs: ' + (t.sprt.verdict === 'H1' ? 'H1 accepted: better' : t.sprt.verdict === 'H0' ? 'H0 accepted: not better' : 'running') : '';
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
  for (const kind of ['start', 'standings', 'bot', 'voided', 'quarantined']) source.addEventListener(kind, refresh);
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
/// forfeits and its stderr in its latest game.
pub fn bot_data(s: &Shared, name: &str) -> Option<serde_json::Value> {
    let table = s.standings.read().unwrap().clone();
    let line = table.bots.iter().find(|b| b.name == name)?.clone();
    let versus = s.counted.lock().unwrap().versus(name);
    let notes = s
        .live
        .lock()
        .unwrap()
        .notes
        .get(name)
        .cloned()
        .unwrap_or_default();
    Some(serde_json::json!({
        "bot": line,
        "versus": versus,
        "forfeits": notes.forfeits,
        "stderr": notes.stderr,
        "stderr_game": notes.stderr_game,
    }))
}

/// A bot's page.
pub fn bot(s: &Shared, name: &str) -> Option<String> {
    let table = s.standings.read().unwrap().clone();
    let line = table.bots.iter().find(|b| b.name == name)?.clone();
    let versus = s.counted.lock().unwrap().versus(name);
    let notes = s
        .live
        .lock()
        .unwrap()
        .notes
        .get(name)
        .cloned()
        .unwrap_or_default();
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
                    pre id="stderr" { (notes.stderr) }
                }
            }
        }
        .into_string(),
    )
}

/// The replay page of game `id`, in arbiter's viewer (read from records.jsonl).
pub fn replay(s: &Shared, id: u64) -> Result<String, String> {
    use std::io::{BufRead, Seek};
    let path = s.dir.join(crate::results::records::FILE);
    let offset = s.live.lock().unwrap().offsets.get(id);
    // An older game than those indexed in memory: its record is looked for in the file.
    let offset = match offset {
        Some(o) => Some(o),
        None => super::record_index::find(&path, id).ok().flatten(),
    };
    let Some(offset) = offset else {
        return Err(format!("game {id} has no record here (yet)"));
    };
    let mut file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    file.seek(std::io::SeekFrom::Start(offset))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut line = Vec::new();
    std::io::BufReader::new(file)
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let rec: crate::results::records::GameRecord =
        serde_json::from_slice(&line).map_err(|e| format!("the record of game {id}: {e}"))?;
    crate::report::html::viewer::page(&rec, Some("/"))
        .map_err(|e| format!("the replay of game {id}: {e}"))
}
