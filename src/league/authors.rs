//! Who may change the league over HTTP (issue 45). The admin token (made at the first start,
//! see [`super::folder`]) may do everything; an author token (`arbiter league author DIR NAME`,
//! kept hashed in `author-tokens.toml`, see [`super::tokens`]) may upload and replace bot NAME
//! (`POST /api/bots/NAME`) and read its build log (`GET /api/bots/NAME/build`) and its stderr
//! (`GET /api/bots/NAME/stderr`, shown to everyone only under `[page] show_stderr`), nothing else:
//! adding bots by path, removing one or touching another bot need the admin token, and are
//! refused (403) saying so. Every refusal says which token was seen and what it may do.

use super::folder;
use super::locks::{Locked, RwLocked};
use super::scheduler::Idle;
use super::server::Shared;
use super::tokens::Refusal;
use axum::extract::{Path, State};
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

/// `GET /api/bots/NAME/build` (the admin, or NAME's author): the log of its latest build (each
/// command and its output), or why it is broken.
pub async fn build_log(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Response {
    if let Err(r) = owner(&s, &headers, &name) {
        return *r;
    }
    let dir = s.specs.reading().get(&name).map(|spec| spec.dir.clone());
    let broken = match s.sched.locked().idle(&name) {
        Some(Idle::Broken(problem)) => Some(problem.clone()),
        _ => None,
    };
    let text = match (broken, dir) {
        (Some(problem), _) => format!("bot {name} is broken: {problem}"),
        (None, Some(dir)) => match std::fs::read_to_string(dir.join("build.log")) {
            Ok(log) => log,
            Err(_) => format!("bot {name} needed no build (it runs as it was given)"),
        },
        (None, None) => {
            return (
                StatusCode::NOT_FOUND,
                format!("bot {name} is not built (not in this league, or being checked)\n"),
            )
                .into_response()
        }
    };
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// `GET /api/bots/NAME/stderr` (the admin, or NAME's author): its stderr in its latest
/// recorded game (the tail the record keeps), after a line naming that game.
pub async fn stderr(
    State(s): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Response {
    if let Err(r) = owner(&s, &headers, &name) {
        return *r;
    }
    let known = s.standings.reading().bots.iter().any(|b| b.name == name);
    let notes = s
        .live
        .locked()
        .notes
        .get(&name)
        .cloned()
        .unwrap_or_default();
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
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; charset=utf-8",
        )],
        text,
    )
        .into_response()
}
