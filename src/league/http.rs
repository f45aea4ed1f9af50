//! The league's HTTP side (axum on a small tokio runtime; the games stay on their blocking
//! threads): the page (`/?bot=NAME`: one bot's recent games) and each bot's page, every game's
//! replay page (and an SDK game's own viewer for them, `/sdk-view.js`), the JSON contract that
//! scripts and tests use (`/api/standings`, `/api/games[?bot=NAME]`, `/api/bots/NAME`; a bot's
//! stderr and build logs, `/api/bots/NAME/stderr` and `/api/bots/NAME/build[?version=N]`, for
//! its author and the admin unless `[page] show_stderr`), the server-sent events (`/api/events`:
//! one per started and finished game, and per refit), and the admin
//! calls that add and remove bots (`Authorization: Bearer TOKEN`, checked against the hash in
//! the folder). Malformed requests get a 4xx answer with the reason; nothing a client sends can
//! stop the server.

use super::folder::BotEntry;
use super::lines::LiveGame;
use super::listen::announced_length;
use super::page;
use super::server::Shared;
use super::wire::AddRequest;
use crate::league::locks::RwLocked;
use axum::extract::rejection::QueryRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use std::convert::Infallible;
use std::sync::Arc;
use tokio_stream::StreamExt;

/// The largest body of a JSON request (an upload's cap is its own, `[upload] max_mib`), in
/// bytes.
pub const BODY_LIMIT: usize = 64 << 10;

pub fn router(s: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/bot/{name}", get(bot_page))
        .route("/replay/{id}", get(replay))
        .route(page::SDK_VIEW, get(sdk_view))
        .route("/api/standings", get(standings))
        .route("/api/games", get(games))
        .route(
            "/api/bots/{name}",
            get(bot_json).delete(remove_bot).post(super::upload::upload),
        )
        .route("/api/bots/{name}/build", get(super::authors::build_log))
        .route("/api/bots/{name}/stderr", get(super::authors::stderr))
        .route("/api/bots", post(add_bots))
        .route("/api/events", get(events))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(s.clone())
        .merge(super::remote::routes(s))
}

/// An answer with a status and a plain-text reason.
fn refuse(status: StatusCode, why: impl Into<String>) -> Response {
    (status, why.into() + "\n").into_response()
}

/// Which bot's games alone a page or `/api/games` lists (`?bot=NAME`; empty: every bot's).
#[derive(serde::Deserialize, Default)]
struct OnlyBot {
    bot: Option<String>,
}

/// A `?bot=NAME` that names no bot of the league, or a query that is not one.
#[derive(Debug, thiserror::Error)]
enum OnlyBotError {
    #[error("{0}")]
    Query(QueryRejection),
    #[error(
        "no bot {0:?} in this league: its page lists every game without ?bot=, and \
         /api/standings names its bots"
    )]
    Unknown(String),
}

impl IntoResponse for OnlyBotError {
    fn into_response(self) -> Response {
        let status = match self {
            OnlyBotError::Query(_) => StatusCode::BAD_REQUEST,
            OnlyBotError::Unknown(_) => StatusCode::NOT_FOUND,
        };
        refuse(status, self.to_string())
    }
}

impl OnlyBot {
    /// The bot asked for, if any.
    fn of(
        s: &Shared,
        query: Result<Query<OnlyBot>, QueryRejection>,
    ) -> Result<Option<String>, OnlyBotError> {
        let Query(q) = query.map_err(OnlyBotError::Query)?;
        match q.bot.filter(|b| !b.is_empty()) {
            None => Ok(None),
            Some(b) if s.knows(&b) => Ok(Some(b)),
            Some(b) => Err(OnlyBotError::Unknown(b)),
        }
    }
}

async fn index(
    State(s): State<Arc<Shared>>,
    query: Result<Query<OnlyBot>, QueryRejection>,
) -> Response {
    match OnlyBot::of(&s, query) {
        Ok(only) => Html(page::index(&s, only.as_deref())).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn bot_page(State(s): State<Arc<Shared>>, Path(name): Path<String>) -> Response {
    match page::bot(&s, &name) {
        Some(html) => Html(html).into_response(),
        None => refuse(StatusCode::NOT_FOUND, "no bot of that name in this league"),
    }
}

async fn replay(State(s): State<Arc<Shared>>, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<u64>() else {
        return refuse(StatusCode::BAD_REQUEST, "a game id is a number");
    };
    let s2 = s.clone();
    let page = tokio::task::spawn_blocking(move || page::replay(&s2, id)).await;
    match page {
        Ok(Ok(html)) => Html(html).into_response(),
        Ok(Err(e @ page::ReplayError::NoRecord(_))) => refuse(StatusCode::NOT_FOUND, e.to_string()),
        Ok(Err(e)) => refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "the replay page failed"),
    }
}

/// The league's SDK game's own viewer, for its replay pages.
async fn sdk_view(State(s): State<Arc<Shared>>) -> Response {
    let path = s
        .dir
        .join("replays")
        .join(crate::report::html::sdk_view::FILE);
    match tokio::task::spawn_blocking(move || std::fs::read(path)).await {
        Ok(Ok(bytes)) => ([(header::CONTENT_TYPE, "text/javascript")], bytes).into_response(),
        _ => refuse(StatusCode::NOT_FOUND, "this league's game has no viewer"),
    }
}

async fn standings(State(s): State<Arc<Shared>>) -> Response {
    let table = s.standings.reading().clone();
    Json(&*table).into_response()
}

/// `GET /api/games[?bot=NAME]`: the games in progress and the latest recorded (of bot NAME
/// only: its latest 20, as its page lists them).
async fn games(
    State(s): State<Arc<Shared>>,
    query: Result<Query<OnlyBot>, QueryRejection>,
) -> Response {
    let only = match OnlyBot::of(&s, query) {
        Ok(only) => only,
        Err(e) => return e.into_response(),
    };
    let state = s.state();
    let live = &state.live;
    let mine = |g: &&LiveGame| only.as_ref().is_none_or(|b| g.bots.contains(b));
    let running: Vec<_> = live.running.values().filter(mine).cloned().collect();
    let recent: Vec<_> = match &only {
        None => live.recent.iter().cloned().collect(),
        Some(b) => live
            .notes
            .get(b)
            .map_or_else(Vec::new, |n| n.games.iter().cloned().collect()),
    };
    drop(state);
    Json(serde_json::json!({ "running": running, "recent": recent, "bot": only })).into_response()
}

async fn bot_json(State(s): State<Arc<Shared>>, Path(name): Path<String>) -> Response {
    match page::bot_data(&s, &name) {
        Some(v) => Json(v).into_response(),
        None => refuse(StatusCode::NOT_FOUND, "no bot of that name in this league"),
    }
}

async fn events(State(s): State<Arc<Shared>>) -> Response {
    let Some(slot) = EventStream::take(&s) else {
        let cap = s.settings.http.max_event_streams;
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "{cap} pages follow this league's events already (its [http] \
                 max_event_streams): try again later"
            ),
        );
    };
    let rx = s.events.subscribe();
    let hello = tokio_stream::once(Ok::<_, Infallible>(
        Event::default().event("hello").data("{}"),
    ));
    let stream = tokio_stream::wrappers::BroadcastStream::new(rx)
        .filter_map(|m| m.ok())
        .map(move |e| {
            // The stream's place is given back when the stream ends (its client went).
            let _held = &slot;
            Ok(Event::default().event(e.name()).data(e.data()))
        });
    Sse::new(hello.chain(stream))
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// A place among the event streams (`[http] max_event_streams`), given back when dropped.
struct EventStream(Arc<Shared>);

impl EventStream {
    fn take(s: &Arc<Shared>) -> Option<EventStream> {
        use std::sync::atomic::Ordering;
        let cap = s.settings.http.max_event_streams;
        s.event_streams
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < cap).then_some(n + 1)
            })
            .ok()
            .map(|_| EventStream(s.clone()))
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.0
            .event_streams
            .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
    }
}

/// Whether the request carries the admin token (an author token is refused, saying what it
/// may do: see [`super::authors`]).
pub fn admin(s: &Shared, headers: &HeaderMap) -> Result<(), Box<Response>> {
    super::authors::admin(s, headers)
}

/// Checks and adds each bot on a blocking thread; answers with each one's outcome.
pub async fn admit_all(s: Arc<Shared>, req: AddRequest) -> Response {
    if req.candidate_of.is_some() && req.bots.len() != 1 {
        let why = format!("{} takes one new bot", crate::options::Opt::Candidate);
        return refuse(StatusCode::BAD_REQUEST, why);
    }
    let done = tokio::task::spawn_blocking(move || {
        req.bots
            .iter()
            .map(|origin| {
                let name = super::play::name_of(origin, &req.workdir)?;
                let entry = BotEntry {
                    name: name.clone(),
                    origin: origin.clone(),
                    workdir: req.workdir.clone(),
                    removed: false,
                    candidate_of: req.candidate_of.clone(),
                    sprt: req.sprt,
                    suspended: None,
                };
                s.admit(entry, super::versions::Admission::New)
                    .map(|()| name)
            })
            .map(|r| match r {
                Ok(name) => serde_json::json!({ "name": name, "ok": true }),
                Err(problem) => {
                    serde_json::json!({ "ok": false, "problem": problem.to_string() })
                }
            })
            .collect::<Vec<_>>()
    })
    .await;
    match done {
        Ok(results) => Json(serde_json::json!({ "added": results })).into_response(),
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "adding the bots failed"),
    }
}

async fn add_bots(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Response {
    // The token before the body: a stranger's body is never read.
    if let Err(r) = admin(&s, &headers) {
        return *r;
    }
    let too_large = || {
        refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("a request to add bots is at most {BODY_LIMIT} bytes"),
        )
    };
    if announced_length(&headers).is_some_and(|n| n > BODY_LIMIT as u64) {
        return too_large();
    }
    let bytes = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(b) => b,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                format!("the request did not arrive whole, or is over {BODY_LIMIT} bytes: {e}"),
            )
        }
    };
    let req: AddRequest = match serde_json::from_slice(&bytes) {
        Ok(r) => r,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                format!("not a request to add bots: {e}"),
            )
        }
    };
    admit_all(s, req).await
}

async fn remove_bot(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Response {
    if let Err(r) = admin(&s, &headers) {
        return *r;
    }
    let s2 = s.clone();
    match tokio::task::spawn_blocking(move || s2.remove(&name)).await {
        Ok(Ok(())) => Json(serde_json::json!({ "removed": true })).into_response(),
        Ok(Err(e @ super::error::LeagueError::UnknownBot(_))) => {
            refuse(StatusCode::NOT_FOUND, e.to_string())
        }
        Ok(Err(e)) => refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "removing the bot failed"),
    }
}
