//! The league's HTTP side (axum on a small tokio runtime; the games stay on their blocking
//! threads): the page and each bot's page, every game's replay page, the JSON contract that
//! scripts and tests use (`/api/standings`, `/api/games`, `/api/bots/NAME`), the server-sent
//! events (`/api/events`: one per started and finished game, and per refit), and the admin
//! calls that add and remove bots (`Authorization: Bearer TOKEN`, checked against the hash in
//! the folder). Malformed requests get a 4xx answer with the reason; nothing a client sends can
//! stop the server.

use super::folder::{self, BotEntry};
use super::page;
use super::server::Shared;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use std::convert::Infallible;
use std::sync::Arc;
use tokio_stream::StreamExt;

/// The largest admin request (a bot upload included), in bytes.
pub const BODY_LIMIT: usize = 4 << 20;

pub fn router(s: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/bot/{name}", get(bot_page))
        .route("/replay/{id}", get(replay))
        .route("/api/standings", get(standings))
        .route("/api/games", get(games))
        .route("/api/bots/{name}", get(bot_json).delete(remove_bot))
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

async fn index(State(s): State<Arc<Shared>>) -> Html<String> {
    Html(page::index(&s))
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
        Ok(Err(why)) => refuse(StatusCode::NOT_FOUND, why),
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "the replay page failed"),
    }
}

async fn standings(State(s): State<Arc<Shared>>) -> Response {
    let table = s.standings.read().unwrap().clone();
    Json(&*table).into_response()
}

async fn games(State(s): State<Arc<Shared>>) -> Response {
    let live = s.live.lock().unwrap();
    let running: Vec<_> = live.running.values().cloned().collect();
    let recent: Vec<_> = live.recent.iter().cloned().collect();
    drop(live);
    Json(serde_json::json!({ "running": running, "recent": recent })).into_response()
}

async fn bot_json(State(s): State<Arc<Shared>>, Path(name): Path<String>) -> Response {
    match page::bot_data(&s, &name) {
        Some(v) => Json(v).into_response(),
        None => refuse(StatusCode::NOT_FOUND, "no bot of that name in this league"),
    }
}

async fn events(
    State(s): State<Arc<Shared>>,
) -> Sse<impl tokio_stream::Stream<Item = Result<Event, Infallible>>> {
    let rx = s.events.subscribe();
    let hello = tokio_stream::once(Ok(Event::default().event("hello").data("{}")));
    let stream = tokio_stream::wrappers::BroadcastStream::new(rx)
        .filter_map(|m| m.ok())
        .map(|(name, data)| Ok(Event::default().event(name).data(data)));
    Sse::new(hello.chain(stream)).keep_alive(KeepAlive::default())
}

/// Whether the request carries the admin token.
pub fn admin(s: &Shared, headers: &HeaderMap) -> Result<(), Box<Response>> {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match token {
        Some(t) if folder::token_hash(t.trim()) == s.token_hash => Ok(()),
        Some(_) => Err(Box::new(refuse(
            StatusCode::FORBIDDEN,
            "wrong admin token: use the one in the league folder's admin-token file",
        ))),
        None => Err(Box::new(refuse(
            StatusCode::UNAUTHORIZED,
            "this needs the admin token: send 'Authorization: Bearer TOKEN' (the league \
             folder's admin-token file)",
        ))),
    }
}

#[derive(Deserialize)]
pub struct AddRequest {
    /// BOT arguments as on the command line.
    pub bots: Vec<String>,
    /// Where their paths are found from.
    pub workdir: std::path::PathBuf,
    /// An SPRT of the (one) new bot against this one.
    #[serde(default)]
    pub candidate_of: Option<String>,
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
                };
                s.admit(entry).map(|()| name)
            })
            .map(|r| match r {
                Ok(name) => serde_json::json!({ "name": name, "ok": true }),
                Err(problem) => serde_json::json!({ "ok": false, "problem": problem }),
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
    body: Result<Json<AddRequest>, axum::extract::rejection::JsonRejection>,
) -> Response {
    if let Err(r) = admin(&s, &headers) {
        return *r;
    }
    let Json(req) = match body {
        Ok(b) => b,
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
        Ok(Err(why)) => refuse(StatusCode::NOT_FOUND, why),
        Err(_) => refuse(StatusCode::INTERNAL_SERVER_ERROR, "removing the bot failed"),
    }
}
