//! Who may change the league over HTTP (issue 45). The admin token (made at the first start,
//! see [`super::folder`]) may do everything; an author token (`arbiter league author DIR NAME`,
//! kept hashed in `author-tokens.toml`, see [`super::tokens`]) may upload and replace bot NAME
//! (`POST /api/bots/NAME`) and read its build log (`GET /api/bots/NAME/build`) and its stderr
//! (`GET /api/bots/NAME/stderr`; both everyone's only under `[page] show_stderr`), nothing else:
//! adding bots by path, removing one or touching another bot need the admin token, and are
//! refused (403) saying so. Every refusal says which token was seen and what it may do.

use super::folder;
use super::locks::RwLocked;
use super::scheduler::Idle;
use super::server::Shared;
use super::tokens::Refusal;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// Who a request's token belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    Admin,
    /// The author of this bot.
    Author(String),
}

fn refuse(status: StatusCode, why: impl std::fmt::Display) -> Box<Response> {
    Box::new((status, format!("{why}\n")).into_response())
}

/// Whose token the request carries, or the refusal (401 without one, 403 for one the league
/// does not take).
pub fn who(s: &Shared, headers: &HeaderMap) -> Result<Who, Box<Response>> {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let Some(token) = token else {
        return Err(refuse(
            StatusCode::UNAUTHORIZED,
            "this needs the admin token, or for one bot its author's: send 'Authorization: \
             Bearer TOKEN' (the league folder's admin-token file, or the token `arbiter league \
             author DIR NAME` printed)",
        ));
    };
    if folder::token_hash(token) == s.token_hash {
        return Ok(Who::Admin);
    }
    match s.authors.check(token) {
        Ok(bot) => Ok(Who::Author(bot)),
        Err(why @ Refusal::Revoked { .. }) => Err(refuse(StatusCode::FORBIDDEN, why)),
        Err(Refusal::Unknown { .. }) => Err(refuse(
            StatusCode::FORBIDDEN,
            "wrong token: use the admin token (the admin-token file in the league's folder), or \
             for one bot its author's (`arbiter league author DIR NAME`)",
        )),
    }
}

/// For what only the admin may do (add bots by path, remove one).
pub fn admin(s: &Shared, headers: &HeaderMap) -> Result<(), Box<Response>> {
    match who(s, headers)? {
        Who::Admin => Ok(()),
        Who::Author(bot) => Err(refuse(
            StatusCode::FORBIDDEN,
            format!(
                "this is the author token of bot {bot:?}: it may upload and replace bot {bot} \
                 and read its build log and stderr only (POST /api/bots/{bot}, GET \
                 /api/bots/{bot}/build, GET /api/bots/{bot}/stderr); this needs the admin \
                 token"
            ),
        )),
    }
}

/// For what the admin or bot `name`'s author may do (upload it, read its build log and stderr).
pub fn owner(s: &Shared, headers: &HeaderMap, name: &str) -> Result<(), Box<Response>> {
    match who(s, headers)? {
        Who::Admin => Ok(()),
        Who::Author(bot) if bot == name => Ok(()),
        Who::Author(bot) => Err(refuse(
            StatusCode::FORBIDDEN,
            format!(
                "this is the author token of bot {bot:?}: it may upload, replace and read the \
                 build log and stderr of bot {bot} only, not of {name:?}"
            ),
        )),
    }
}

/// For what bot `name`'s author and the admin may read, and everyone where the league's
/// `[page] show_stderr` says so (its build logs, its stderr).
fn reader(s: &Shared, headers: &HeaderMap, name: &str) -> Result<(), Box<Response>> {
    if s.settings.page.show_stderr {
        return Ok(());
    }
    owner(s, headers, name)
}

/// Which version's build log `GET /api/bots/NAME/build` reads (its latest check's without).
#[derive(serde::Deserialize)]
pub struct BuildQuery {
    version: Option<String>,
}

fn text(body: String) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; charset=utf-8",
        )],
        body,
    )
        .into_response()
}

/// `GET /api/bots/NAME/build[?version=N]` (the admin, or NAME's author; everyone under `[page]
/// show_stderr`): the log of its latest build (each command and its output), or why it is
/// broken; with a version, the log kept of that version's latest check.
pub async fn build_log(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(name): Path<String>,
    query: Result<Query<BuildQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    if let Err(r) = reader(&s, &headers, &name) {
        return *r;
    }
    let version = match query.map(|Query(q)| q.version) {
        Ok(None) => None,
        Ok(Some(v)) => match v.parse::<u32>() {
            Ok(n) => Some(n),
            Err(_) => {
                return (
                    StatusCode::BAD_REQUEST,
                    format!("version={v:?}: a version is a number (1 for a bot's first)\n"),
                )
                    .into_response()
            }
        },
        Err(e) => return (StatusCode::BAD_REQUEST, format!("{e}\n")).into_response(),
    };
    if let Some(n) = version {
        return version_log(s, name, n).await;
    }
    let (dir, broken) = {
        let state = s.state();
        let dir = state.specs.get(&name).map(|spec| spec.dir.clone());
        let broken = match state.sched.idle(&name) {
            Some(Idle::Broken(problem)) => Some(problem.clone()),
            _ => None,
        };
        (dir, broken)
    };
    let text = match (broken, dir) {
        (Some(problem), _) => format!("bot {name} is broken: {problem}"),
        (None, Some(dir)) => match std::fs::read_to_string(dir.join("build.log")) {
            Ok(log) => log,
            Err(_) => format!("bot {name} needed no build (it runs as it was given)\n"),
        },
        (None, None) => {
            return (
                StatusCode::NOT_FOUND,
                format!("bot {name} is not built (not in this league, or being checked)\n"),
            )
                .into_response()
        }
    };
    self::text(text)
}

/// The build log kept of version `n` of bot `name`, or why there is none.
async fn version_log(s: Arc<Shared>, name: String, n: u32) -> Response {
    let count = s.state().versions.of(&name).len();
    let dir = s.dir.clone();
    let bot = name.clone();
    let read =
        tokio::task::spawn_blocking(move || crate::league::versions::read_log(&dir, &bot, n)).await;
    match read {
        Ok(Ok(Some(log))) => text(log),
        Ok(Ok(None)) if (1..=count as u32).contains(&n) => (
            StatusCode::NOT_FOUND,
            format!("version {n} of bot {name} has no build log yet: it is being checked\n"),
        )
            .into_response(),
        Ok(Ok(None)) => (
            StatusCode::NOT_FOUND,
            match count {
                0 => format!("bot {name} has no version in this league\n"),
                _ => format!("bot {name} has no version {n}: its versions are 1 to {count}\n"),
            },
        )
            .into_response(),
        Ok(Err(e)) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response(),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "reading the build log failed\n",
        )
            .into_response(),
    }
}

/// `GET /api/bots/NAME/stderr` (the admin, or NAME's author; everyone under `[page]
/// show_stderr`): its stderr in its latest recorded game (the tail the record keeps), after a
/// line naming that game.
pub async fn stderr(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Response {
    if let Err(r) = reader(&s, &headers, &name) {
        return *r;
    }
    let known = s.standings.reading().bots.iter().any(|b| b.name == name);
    let notes = s.state().live.notes.get(&name).cloned().unwrap_or_default();
    let text = match notes.stderr_game {
        Some(game) => format!("bot {name}'s stderr in game {game}:\n{}", notes.stderr),
        None if known => format!("bot {name} has played no recorded game yet\n"),
        None => {
            return (
                StatusCode::NOT_FOUND,
                format!("no bot {name} in this league\n"),
            )
                .into_response()
        }
    };
    self::text(text)
}
