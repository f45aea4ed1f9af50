//! Starting a bot: what is prepared before its process exists (its environment and `PATH`, its
//! own user and the files that user must reach, the sandbox's command line, its seccomp filter
//! and cgroups), the spawn itself, and a failure that says what to do; and holding a bot started
//! ahead of its game until its game lets it go.

use super::{BotProcess, Limits, SpawnError};
use crate::bot::cleanup;
use crate::bot::spec::BotSpec;
use crate::bot::status::reap;
use crate::options::Opt;
use crate::protocol::LineBuffer;
use rustix::process::{kill_process_group, pidfd_open, Pid, PidfdFlags, Signal};
use std::fs::File;
use std::io::{ErrorKind, Write};
use std::os::fd::AsFd;

fn nonblocking(fd: impl AsFd) -> std::io::Result<()> {
    rustix::io::ioctl_fionbio(fd, true).map_err(std::io::Error::from)
}

impl BotProcess {
    /// Starts `spec` in its own process group with piped stdio and `limits` applied; in a
    /// sandbox, the private files of `others` are hidden from it.
    pub fn spawn(
        spec: &BotSpec,
        limits: &Limits,
        others: &[&BotSpec],
    ) -> Result<BotProcess, SpawnError> {
        // The thread that starts a bot is the one that plays its game.
        crate::bot::sched::short_slice_for_this_thread();
        Self::start(spec, limits, others, None)
    }

    /// Starts `spec` ahead of its game, as [`BotProcess::spawn`] does, but held: its process
    /// (its own user, cgroups, limits, namespaces and seccomp filter in place) waits in a small
    /// gate until [`BotProcess::release`], and only then execs the bot's program, which runs
    /// no code before its game and so still starts up in its first turn. Once let go, it is
    /// pinned to `cpu` (if any). Only an isolated bot can be held ([`BotProcess::can_hold`]);
    /// another is started at once, and its `release` does nothing.
    pub fn spawn_held(
        spec: &BotSpec,
        limits: &Limits,
        others: &[&BotSpec],
        cpu: Option<usize>,
    ) -> Result<BotProcess, SpawnError> {
        // Its processes get the scheduling of the thread that starts them, as a bot started by
        // its game's thread does.
        crate::bot::sched::short_slice_for_this_thread();
        Self::start(spec, limits, others, Some(cpu))
    }

    /// Whether bots started with `limits` can be held before their game: isolated bots (as
    /// root, without the sandbox).
    pub fn can_hold(limits: &Limits) -> bool {
        limits.sandbox.is_none() && crate::bot::isolation::isolate()
    }

    /// Lets a held bot's program start (see [`BotProcess::spawn_held`]).
    pub fn release(&mut self) {
        // The thread that lets a bot go is the one that plays its game.
        crate::bot::sched::short_slice_for_this_thread();
        if let Some(mut go) = self.go.take() {
            let _ = go.write_all(b"g");
        }
    }

    fn start(
        spec: &BotSpec,
        limits: &Limits,
        others: &[&BotSpec],
        hold: Option<Option<usize>>,
    ) -> Result<BotProcess, SpawnError> {
        let failed = |reason: String, machine: Option<crate::bot::MachineFault>| SpawnError {
            name: spec.name.clone(),
            command: spec.command_line(),
            dir: spec.dir.display().to_string(),
            reason,
            machine,
        };
        let fail = |reason: String| failed(reason, None);
        let mut env = crate::bot::env::bot_env(&limits.env);
        // Its folder, as a shell (and bwrap) would say.
        env.push(("PWD".to_string(), spec.dir.display().to_string()));
        let env_c = crate::bot::env::entries(&env);
        let path = crate::bot::spawn::bot_path(&env_c);
        // arbiter's own human seat talks to the person on arbiter's terminal: it keeps the
        // session and the user (it runs no code of anyone else's).
        let human_seat = spec.args.first().is_some_and(|a| a == "human-seat")
            && std::env::current_exe().is_ok_and(|me| me == spec.program);
        // As root, the bot runs as a user of its own, which must be able to reach its files.
        let user = if human_seat {
            None
        } else {
            crate::bot::isolation::SeatId::take()
                .transpose()
                .map_err(&fail)?
        };
        // An isolated bot (as root, without the sandbox) gets scratch folders of its own over the
        // machine's shared writable ones, with its own files below them bound in.
        let isolated = limits.sandbox.is_none() && crate::bot::isolation::isolate();
        let scratch = if isolated {
            crate::bot::reach::scratch_folders()
        } else {
            Vec::new()
        };
        let reach = if user.is_some() || isolated {
            super::reach_plan::plan_for(spec, limits, user.is_some(), &scratch, path)
                .map_err(&fail)?
        } else {
            std::sync::Arc::new(crate::bot::reach::ReachPlan::default())
        };
        let (program, args) = match &limits.sandbox {
            Some(bwrap) => {
                let c = crate::bot::sandbox::command(bwrap, spec, others, limits.memory_bytes);
                (c.program, c.args)
            }
            None => (spec.program.clone(), spec.args.clone()),
        };
        let seccomp = crate::bot::seccomp::filter();
        // An isolated bot's network namespace: one a bot before it left untouched, where there
        // is one (else the spawner makes one with the bot).
        let net = if isolated {
            crate::bot::netns::take()
        } else {
            None
        };
        // A cgroup where possible: it caps processes without counting the user's others, and
        // finds every process of the bot at the end.
        let cgroup = crate::bot::cgroup::Cgroup::create(limits.max_processes, limits.memory_bytes);
        let memory_cap = cgroup.as_ref().and_then(|g| g.memory_bytes);
        let process_cap = cgroup.as_ref().and_then(|g| g.max_pids);
        let procs: Vec<&std::ffi::CStr> = cgroup
            .iter()
            .flat_map(|g| g.procs.iter().map(|p| p.as_c_str()))
            .collect();
        let request = crate::bot::spawn::SpawnRequest {
            program: &program,
            args: &args,
            dir: &spec.dir,
            // A memory cgroup covers the bot; otherwise RLIMIT_DATA caps each process's own.
            memory_bytes: if memory_cap.is_some() {
                None
            } else {
                limits.memory_bytes
            },
            // (The init of an isolated bot is a process of the bot's user too.)
            max_processes: if cgroup.is_some() {
                None
            } else {
                limits.max_processes.map(|n| n + u64::from(isolated))
            },
            cgroup_procs: &procs,
            // bwrap makes its own namespaces.
            shm_bytes: limits.memory_bytes,
            isolate: isolated,
            net: net.as_ref().map(|n| n.fd()),
            env: &env_c,
            user: user.as_ref().map(|u| u.id),
            reach: &reach.ops,
            seccomp: seccomp.as_deref(),
            new_session: !human_seat,
            hold: hold.filter(|_| isolated),
        };
        let child = crate::bot::spawn::spawn(&request).map_err(|e| {
            // The machine's own state (no descriptor, memory or process left) is no bot's fault.
            if let Some(machine) = crate::bot::MachineFault::of(&e) {
                return failed(e.to_string(), Some(machine));
            }
            fail(match e.kind() {
                // A path (not a name looked up in PATH) that names nothing.
                ErrorKind::NotFound
                    if spec.program.components().count() > 1 && !spec.program.exists() =>
                {
                    format!(
                        "{} does not exist: check the path (a bot is an executable, a source \
                         file, a folder with a bot.toml, or a command line)",
                        spec.program.display()
                    )
                }
                ErrorKind::NotFound if spec.program.components().count() > 1 => format!(
                    "its interpreter, named on its #! line, is missing (or is not in the bot's \
                     PATH, {path}; `{} PATH` passes arbiter's own): {e}",
                    Opt::BotEnv
                ),
                ErrorKind::NotFound => format!(
                    "no such program in the bot's PATH ({path}; `{} PATH` passes \
                     arbiter's own), or its interpreter, named on its #! line, is missing: {e}",
                    Opt::BotEnv
                ),
                ErrorKind::PermissionDenied if user.is_some() => format!(
                    "permission denied (is the file executable, try chmod +x; and may every \
                     user read it and enter its folders? arbiter runs bots as root under an \
                     unprivileged user of their own, with PATH={path}): {e}"
                ),
                ErrorKind::PermissionDenied => {
                    format!("permission denied (is the file executable? try chmod +x): {e}")
                }
                _ => e.to_string(),
            })
        })?;
        let pgid = Pid::from_raw(child.pid).expect("a child's pid is positive");
        cleanup::register(pgid);
        let parts = (|| -> std::io::Result<_> {
            let (stdin, stdout, stderr) = (
                File::from(child.stdin),
                File::from(child.stdout),
                File::from(child.stderr),
            );
            nonblocking(&stdin)?;
            nonblocking(&stdout)?;
            nonblocking(&stderr)?;
            let pidfd = pidfd_open(pgid, PidfdFlags::empty())?;
            let status = child.status.map(File::from);
            if let Some(s) = &status {
                nonblocking(s)?;
            }
            Ok((
                stdin,
                stdout,
                stderr,
                pidfd,
                status,
                child.go.map(File::from),
            ))
        })();
        match parts {
            Ok((stdin, stdout, stderr, pidfd, status, go)) => Ok(BotProcess {
                name: spec.name.clone(),
                pgid,
                stdin: Some(stdin),
                stdout: Some(stdout),
                stderr: Some(stderr),
                pidfd,
                out: LineBuffer::new(),
                err_tail: Vec::new(),
                err_total: 0,
                exited: None,
                frozen: false,
                ended: false,
                sandboxed: limits.sandbox.is_some(),
                isolated,
                status,
                cgroup,
                net,
                memory_cap,
                memory_hit: false,
                process_cap,
                process_hit: false,
                inner_pid: std::cell::Cell::new(None),
                go,
                _user: user,
                waits: Default::default(),
                sole: Default::default(),
            }),
            Err(e) => {
                let _ = kill_process_group(pgid, Signal::KILL);
                let _ = reap(pgid, true);
                cleanup::unregister(pgid);
                Err(failed(e.to_string(), crate::bot::MachineFault::of(&e)))
            }
        }
    }
}
