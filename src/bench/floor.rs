//! The pipe round-trip floor: one short line sent to the bench bot in its `--echo` mode and read
//! back, over blocking pipes. It is the cheapest exchange between two processes, the yardstick
//! every per-turn figure is set against.

use super::measure::pin;
use super::{io_err, BenchError};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Round trips of one short line to an echo process over blocking pipes, in µs. `pin` puts
/// this thread on the first CPU and the echo process on the second for the measurement.
pub(super) fn pipe_floor(
    bot: &Path,
    samples: usize,
    pinned: Option<(usize, usize)>,
) -> Result<Vec<f64>, BenchError> {
    let mut child = Command::new(bot)
        .arg("--echo")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(io_err(format!("starting {} --echo", bot.display())))?;
    let mut restore = None;
    if let Some((mine, its)) = pinned {
        restore = rustix::thread::sched_getaffinity(None).ok();
        pin(Some(rustix::process::Pid::from_child(&child)), its)
            .and_then(|()| pin(None, mine))
            .map_err(io_err("pinning the floor processes to CPUs"))?;
    }
    let times = echo_round_trips(&mut child, samples);
    if let Some(set) = restore {
        let _ = rustix::thread::sched_setaffinity(None, &set);
    }
    let _ = child.kill();
    let _ = child.wait();
    times
}

fn echo_round_trips(
    child: &mut std::process::Child,
    samples: usize,
) -> Result<Vec<f64>, BenchError> {
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let line = b"ping 1234\n";
    let mut buf = [0u8; 64];
    let mut round_trip = || -> std::io::Result<Duration> {
        let t = Instant::now();
        stdin.write_all(line)?;
        let mut got = 0;
        while got < line.len() {
            match stdout.read(&mut buf[got..])? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => got += n,
            }
        }
        Ok(t.elapsed())
    };
    let warm_up = samples / 10;
    let mut times = Vec::with_capacity(samples);
    for i in 0..warm_up + samples {
        let took = round_trip().map_err(io_err("echo round trip"))?;
        if i >= warm_up {
            times.push(took.as_secs_f64() * 1e6);
        }
    }
    Ok(times)
}
