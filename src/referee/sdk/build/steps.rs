//! One build step of an SDK game or engine, run in the build box (or, for builds the user
//! trusts, as the user in the same folder), and the steps' command lines.

use super::{Boxing, SdkBuildError};
use crate::bot::build_box::{self, StepReport};
use std::path::Path;

/// At most this much of a compiler's output is kept in a message (the first errors matter most).
const MESSAGE_BYTES: usize = 8 * 1024;

/// A step from words.
pub fn words(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

/// `javac` compiling `sources` (a file, or `@list`) against `classpath` into `out`, quietly:
/// warnings of someone else's code are not the user's business, its errors are.
pub fn javac(classpath: &str, out: &str, sources: &str) -> Vec<String> {
    words(&[
        "javac",
        "-nowarn",
        "-encoding",
        "UTF-8",
        "-proc:none",
        "-cp",
        classpath,
        "-d",
        out,
        sources,
    ])
}

/// Runs `step` in `dir`: in the build box, or as the user when trusted.
pub fn run(step: &[String], dir: &Path, boxing: Boxing) -> Result<StepReport, SdkBuildError> {
    let program = &step[0];
    if let Some((purpose, package)) = tool_of(program) {
        if build_box::find_system_program(program).is_none() {
            return Err(SdkBuildError::MissingTool {
                program: tool_name(program),
                purpose,
                package,
            });
        }
    }
    match boxing {
        Boxing::Boxed => Ok(build_box::run(step, dir, &build_box::configured())?),
        Boxing::Trusted => {
            let found = build_box::find_system_program(program);
            let output = std::process::Command::new(found.as_deref().unwrap_or(Path::new(program)))
                .args(&step[1..])
                .current_dir(dir)
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|source| SdkBuildError::Spawn {
                    command: step.join(" "),
                    source,
                })?;
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            Ok(StepReport {
                success: output.status.success(),
                status: output.status.to_string(),
                cap: None,
                output: text,
            })
        }
    }
}

/// What a build program is for, and its Debian package.
fn tool_of(program: &str) -> Option<(&'static str, &'static str)> {
    match program {
        "javac" | "jar" => Some((
            "compile CodinGame SDK games and their engine",
            "default-jdk-headless",
        )),
        "tar" => Some(("unpack the engine's source", "tar")),
        _ => None,
    }
}

fn tool_name(program: &str) -> &'static str {
    match program {
        "javac" => "javac",
        "jar" => "jar",
        _ => "tar",
    }
}

/// The first [`MESSAGE_BYTES`] of a compiler's output.
pub fn clip(text: &str) -> String {
    if text.len() <= MESSAGE_BYTES {
        return text.trim_end().to_string();
    }
    let mut end = MESSAGE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[... {} more bytes]", &text[..end], text.len() - end)
}
