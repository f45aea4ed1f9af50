//! The league's pages: `/` (standings with error bars, games in progress, recent games, the
//! workers with their voided games and quarantines, kept
//! up to date by server-sent events, no polling; a hidden tab stops listening and catches up when
//! shown; `/?bot=NAME` lists that bot's recent games only), each bot's page ([`bot`]) and each
//! game's replay in arbiter's viewer. Markup is maud's, which escapes every text; the script
//! builds its rows with `textContent`, so no bot text is ever read as HTML. A bot's problem can
//! be kilobytes of compiler output or one long word: it is folded (a `details` element) and
//! wrapped anywhere, so that it never widens the standings past the window.

use super::locks::RwLocked;
use super::server::Shared;
use maud::{html, Markup, PreEscaped, DOCTYPE};

mod bot;
pub use bot::{bot, bot_data};

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\
table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;border-bottom:1px solid #ddd}\
.bar{position:relative;width:200px;height:10px;background:#f3f3f3}\
.bar span{position:absolute;top:2px;height:6px;background:#4a7fd4}\
.bar i{position:absolute;top:0;width:2px;height:10px;background:#123}\
.broken,.suspended{color:#b00}.removed{color:#888}pre{background:#f6f6f6;padding:8px;\
white-space:pre-wrap;overflow-wrap:anywhere;max-width:60em}\
td.status,.problem{overflow-wrap:anywhere;max-width:40em}\
.problem summary{cursor:pointer}.problem pre{max-height:20em;overflow:auto;margin:4px 0}";

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
/// are out of the ratings. With `only` (a bot of the league: `/?bot=NAME`), the recent games
/// are that bot's alone.
pub fn index(s: &Shared, only: Option<&str>) -> String {
    let game = s.table.choice.describe();
    let bots: Vec<String> = (s.standings.reading().bots.iter())
        .map(|b| b.name.clone())
        .collect();
    let quarantined: std::collections::BTreeMap<String, super::trust::Quarantined> =
        super::trust::read_quarantined(&s.dir)
            .into_iter()
            .map(|q| (q.worker.clone(), q))
            .collect();
    html! {
        (DOCTYPE)
        html {
            (head(&format!("League: {game}")))
            body data-bot=[only] {
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
                h2 id="recent-title" { "Recent games" @if let Some(b) = only { " of " (b) } }
                form id="filter" method="get" action="/" {
                    label { "Only the games of "
                        select name="bot" onchange="this.form.submit()" {
                            option value="" { "every bot" }
                            @for b in &bots {
                                option value=(b) selected[only == Some(b.as_str())] { (b) }
                            }
                        }
                    }
                    " " button { "Show" }
                }
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
    tr.append(statusCell(b));
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
// A bot's status and problem; a long problem (a build's errors) folded to its first words, the
// whole text when opened: it never widens the table past the window.
function statusCell(b) {
  const td = el('td', undefined, 'status ' + b.status);
  const p = b.problem || '', first = p.split('\n')[0];
  if (p.length <= 120 && first.length === p.length) { td.textContent = b.status + (p ? ': ' + p : ''); return td; }
  const d = el('details', undefined, 'problem');
  d.append(el('summary', b.status + ': ' + first.slice(0, 120) + '…'), el('pre', p));
  td.append(d);
  return td;
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
// The one bot whose games the page lists (`/?bot=NAME`), if any.
const only = document.body.dataset.bot;
function mine(g) { return !only || g.bots.includes(only); }
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
  const g = await (await fetch('/api/games' + (only ? '?bot=' + encodeURIComponent(only) : ''))).json();
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
    if (!mine(g)) return refresh();
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

/// Where the league serves its SDK game's own viewer (its folder's `replays/sdk-view.js`).
pub const SDK_VIEW: &str = "/sdk-view.js";

/// Why a game's replay page cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// No record of that game here (yet): the asker's miss.
    #[error("game {0} has no record here (yet)")]
    NoRecord(u64),
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("the record of game {id}: {source}")]
    Record { id: u64, source: serde_json::Error },
    #[error(
        "the replay index points game {id} at game {found}'s record: restart the league to \
         index its records again"
    )]
    Misindexed { id: u64, found: u64 },
    #[error("the replay of game {id}: {why}")]
    Page { id: u64, why: String },
}

/// The replay page of game `id`, in arbiter's viewer: its one record, read from records.jsonl
/// where the replay index says it is (an unknown game reads nothing of the records).
pub fn replay(s: &Shared, id: u64) -> Result<String, ReplayError> {
    use std::io::{BufRead, Read, Seek};
    let path = s.dir.join(crate::results::records::FILE);
    let io = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |source| ReplayError::Io { path, source }
    };
    let (latest, file) = {
        let state = s.state();
        (state.live.offsets.get(id), state.live.offsets.file())
    };
    let offset = match (latest, file) {
        (Some(o), _) => Some(o),
        (None, Some(index)) => index
            .get(id)
            .map_err(io(&s.dir.join(super::record_index::FILE)))?,
        (None, None) => None,
    };
    let Some(offset) = offset else {
        return Err(ReplayError::NoRecord(id));
    };
    let mut file = std::fs::File::open(&path).map_err(io(&path))?;
    file.seek(std::io::SeekFrom::Start(offset))
        .map_err(io(&path))?;
    let mut line = Vec::new();
    // One record: its line, however long the records after it.
    std::io::BufReader::new(file.take(MAX_RECORD_BYTES))
        .read_until(b'\n', &mut line)
        .map_err(io(&path))?;
    let rec: crate::results::records::GameRecord =
        serde_json::from_slice(&line).map_err(|source| ReplayError::Record { id, source })?;
    if rec.game_id != id {
        return Err(ReplayError::Misindexed {
            id,
            found: rec.game_id,
        });
    }
    // An SDK game's page loads the game's own viewer from the server (`/sdk-view.js`).
    use crate::report::html::viewer::{page_with_viewer, Viewer};
    let sdk = rec.external.as_ref().is_some_and(|e| e.sdk.is_some());
    let viewer = if sdk {
        Viewer::Src(SDK_VIEW)
    } else {
        Viewer::None
    };
    page_with_viewer(&rec, Some("/"), viewer).map_err(|e| ReplayError::Page {
        id,
        why: e.to_string(),
    })
}

/// The longest record a replay page reads (a worker's result is at most
/// [`super::wire::RESULT_LIMIT`]).
const MAX_RECORD_BYTES: u64 = 2 * super::wire::RESULT_LIMIT as u64;
