//! Shards on a real Slurm: the test starts a one-node cluster on this machine (munged, slurmctld
//! and slurmd on localhost, with a slurm.conf written into a temporary folder), submits what
//! `arbiter slurm --submit` writes for a small tournament in 4 shards, kills one shard in the
//! middle with scancel, resubmits it, and checks the merge against a run on one machine. Where
//! the daemons cannot start (no Slurm installed, not root) it says so and passes: `.ci/run`
//! installs slurm-wlm and munge, so CI runs it for real.

use crate::common::{arbiter, first_bot, greedy_bot, random_bot};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Shown even when the test passes (the harness captures only the print macros).
fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// A one-node Slurm cluster living in a temporary folder; shut down when dropped.
pub(crate) struct Cluster {
    dir: tempfile::TempDir,
    pub(crate) conf: PathBuf,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn found(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

impl Cluster {
    /// Starts the daemons for `test`; where they cannot run here, fails under CI (.ci/run
    /// installs Slurm, so there a cluster that cannot start is a failure) and otherwise says that
    /// the test is skipped and why, and gives none.
    pub(crate) fn start_or_skip(test: &str) -> Option<Cluster> {
        match Cluster::start() {
            Ok(c) => Some(c),
            Err(why) => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "{test} needs a one-node Slurm cluster: {why}"
                );
                say(&format!(
                    "SKIPPED {test}: the Slurm daemons cannot start here: {why}"
                ));
                None
            }
        }
    }

    /// Starts the daemons, or says why they cannot run here.
    pub(crate) fn start() -> Result<Cluster, String> {
        for p in [
            "munged",
            "slurmctld",
            "slurmd",
            "sbatch",
            "squeue",
            "scancel",
        ] {
            if !found(p) {
                return Err(format!(
                    "{p} is not installed (apt-get install slurm-wlm munge; .ci/run does it)"
                ));
            }
        }
        if rustix::process::geteuid().as_raw() != 0 {
            return Err("slurmd must run as root to start jobs; run the tests as root".into());
        }
        let dir = tempfile::Builder::new()
            .prefix("arbiter-slurm-")
            .tempdir()
            .unwrap();
        let d = dir.path().to_path_buf();
        for sub in ["state", "spool", "log"] {
            std::fs::create_dir(d.join(sub)).unwrap();
        }
        let key: Vec<u8> = (0..1024u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 ^ std::process::id() as u8)
            .collect();
        std::fs::write(d.join("munge.key"), key).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("munge.key"), std::fs::Permissions::from_mode(0o600))
            .unwrap();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let p = |name: &str| d.join(name).display().to_string();
        let conf = format!(
            "ClusterName=arbitertest\n\
             SlurmctldHost=localhost\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             AuthType=auth/munge\n\
             CredType=cred/munge\n\
             AuthInfo=socket={sock}\n\
             SlurmctldPort={ctld}\n\
             SlurmdPort={slurmd}\n\
             StateSaveLocation={state}\n\
             SlurmdSpoolDir={spool}\n\
             SlurmctldPidFile={ctldpid}\n\
             SlurmdPidFile={slurmdpid}\n\
             SlurmctldLogFile={ctldlog}\n\
             SlurmdLogFile={slurmdlog}\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\n\
             SchedulerType=sched/backfill\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\n\
             MpiDefault=none\n\
             ReturnToService=2\n\
             NodeName=localhost NodeHostname=localhost CPUs={cpus} RealMemory=500 State=UNKNOWN\n\
             PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n",
            sock = p("munge.sock"),
            ctld = free_port(),
            slurmd = free_port(),
            state = p("state"),
            spool = p("spool"),
            ctldpid = p("slurmctld.pid"),
            slurmdpid = p("slurmd.pid"),
            ctldlog = p("log/slurmctld.log"),
            slurmdlog = p("log/slurmd.log"),
        );
        let conf_path = d.join("slurm.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let cluster = Cluster {
            dir,
            conf: conf_path,
        };
        let run = |program: &str, args: &[String]| -> Result<(), String> {
            let out = Command::new(program)
                .args(args)
                .env("SLURM_CONF", &cluster.conf)
                .output()
                .map_err(|e| format!("{program}: {e}"))?;
            if out.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "{program} failed ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ))
            }
        };
        let conf = cluster.conf.display().to_string();
        run(
            "munged",
            &[
                format!("--key-file={}", p("munge.key")),
                format!("--socket={}", p("munge.sock")),
                format!("--pid-file={}", p("munged.pid")),
                format!("--log-file={}", p("log/munged.log")),
                format!("--seed-file={}", p("munge.seed")),
            ],
        )?;
        run("slurmctld", &["-f".into(), conf.clone(), "-i".into()])?;
        run(
            "slurmd",
            &["-f".into(), conf, "-N".into(), "localhost".into()],
        )?;
        // The node must come up idle.
        let start = Instant::now();
        loop {
            let state = cluster.output("sinfo", &["-h", "-o", "%T"]);
            if state.trim() == "idle" {
                return Ok(cluster);
            }
            if start.elapsed() > Duration::from_secs(30) {
                return Err(format!(
                    "the node did not come up (state {:?}); slurmctld log:\n{}",
                    state.trim(),
                    cluster.log("slurmctld.log")
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    pub(crate) fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// A Slurm client's stdout (empty when it fails).
    pub(crate) fn output(&self, program: &str, args: &[&str]) -> String {
        self.command(program)
            .args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    pub(crate) fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join("log").join(name)).unwrap_or_default()
    }

    /// Waits until none of `jobs` is pending or running.
    pub(crate) fn wait(&self, jobs: &str, limit: Duration) {
        let start = Instant::now();
        loop {
            let left = self.output("squeue", &["-h", "-j", jobs, "-o", "%i %T"]);
            if left.trim().is_empty() {
                return;
            }
            assert!(
                start.elapsed() < limit,
                "jobs {jobs} still queued after {limit:?}:\n{left}\nslurmctld log:\n{}",
                self.log("slurmctld.log")
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.command("scontrol").arg("shutdown").output();
        std::thread::sleep(Duration::from_millis(500));
        for pidfile in ["slurmd.pid", "slurmctld.pid", "munged.pid"] {
            if let Ok(pid) = std::fs::read_to_string(self.dir.path().join(pidfile)) {
                if let Ok(pid) = pid.trim().parse::<i32>() {
                    unsafe { libc::kill(pid, libc::SIGTERM) };
                }
            }
        }
    }
}

fn game_ids(csv: &Path) -> Vec<u64> {
    let mut r = csv::Reader::from_path(csv).unwrap();
    r.records()
        .map(|rec| rec.unwrap()[0].parse().unwrap())
        .collect()
}

/// A finished command's status and output, for a failing assertion's message.
pub(crate) fn text(o: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_tournament_in_four_shards_on_slurm_merges_into_the_single_machine_result() {
    let Some(cluster) = Cluster::start_or_skip("a_tournament_in_four_shards_on_slurm...") else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    // The random bot starts slowly (1 s) so that a shard lasts long enough to be killed in the
    // middle; it gets a fixed seed so that every run plays the same games.
    let slow_random = format!("r=sh -c 'sleep 1; exec {} 7'", random_bot());
    // greedy comes as a folder whose build step counts its runs: built once for all shards.
    let greedy = w.join("greedy");
    std::fs::create_dir(&greedy).unwrap();
    std::fs::write(
        greedy.join("bot.toml"),
        format!(
            "name = \"g\"\nbuild = \"sh -c 'echo built >> {}'\"\nrun = \"{}\"\n",
            w.join("builds.log").display(),
            greedy_bot()
        ),
    )
    .unwrap();
    let bots = [
        slow_random,
        format!("f={}", first_bot()),
        "greedy".to_string(),
    ];
    let game = [
        "--seed",
        "11",
        "--games",
        "8",
        "--opening-plies",
        "6",
        "--first-turn-ms",
        "5000",
        "--turn-ms",
        "1000",
    ];
    let run = w.join("run");
    let started = Instant::now();
    let out = arbiter()
        .current_dir(w)
        .env("SLURM_CONF", &cluster.conf)
        .args([
            "slurm",
            "--trust-builds",
            "--shards",
            "4",
            "--sample",
            "2",
            "--submit",
            "--out",
        ])
        .arg(&run)
        .args(game)
        .arg("--")
        .args(&bots)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    say(&format!("arbiter slurm said:\n{stderr}{said}"));
    assert!(stderr.contains("measured 2 games here"), "{stderr}");
    assert!(
        stderr.contains("the largest shard plays 6 games, 1 at a time"),
        "{stderr}"
    );
    // "Submitted: shards job A (array 1-4), merge job M"
    let job_after = |label: &str| -> String {
        let at = said
            .find(label)
            .unwrap_or_else(|| panic!("no '{label}' in {said}"));
        said[at + label.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect()
    };
    let (array, merge) = (job_after("shards job "), job_after("merge job "));
    let script = std::fs::read_to_string(run.join("slurm/shards.sbatch")).unwrap();
    assert!(
        script.contains("#SBATCH --array=1-4\n#SBATCH --cpus-per-task=1\n"),
        "{script}"
    );

    // Kill shard 1 once it has recorded a game, before it has recorded all 6.
    let shard1 = run.join("shard-1").join("games.csv");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&shard1).map_or(0, |t| t.lines().count()) < 2 {
        assert!(Instant::now() < deadline, "shard 1 never recorded a game");
        std::thread::sleep(Duration::from_millis(20));
    }
    let cancel = cluster
        .command("scancel")
        .arg(format!("{array}_1"))
        .output()
        .unwrap();
    assert!(cancel.status.success(), "{}", text(&cancel));
    cluster.wait(&format!("{array},{merge}"), Duration::from_secs(90));
    let array_time = started.elapsed();
    let kept = game_ids(&shard1);
    assert!(
        !kept.is_empty() && kept.len() < 6,
        "the kill should leave shard 1 part-played: {kept:?}"
    );
    // The merge ran after the array although a task failed (afterany), and named what is missing.
    let merge_log = std::fs::read_to_string(run.join("slurm/merge.out")).unwrap();
    assert!(merge_log.contains("Missing:"), "{merge_log}");
    assert!(
        merge_log.contains(&format!(
            "shard 1/4: {} of its games missing",
            6 - kept.len()
        )),
        "{merge_log}"
    );
    assert!(merge_log.contains("sbatch --array=1 "), "{merge_log}");

    // Resubmitted, shard 1 plays only the games it lacks.
    let again = cluster
        .command("sbatch")
        .args(["--parsable", "--array=1"])
        .arg(run.join("slurm/shards.sbatch"))
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", text(&again));
    let again_id = String::from_utf8_lossy(&again.stdout)
        .trim()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    cluster.wait(&again_id, Duration::from_secs(60));
    let log = std::fs::read_to_string(run.join("slurm/shard-1.out")).unwrap();
    assert!(
        log.contains("stopped by signal 15"),
        "the cancelled run's lines are kept:\n{log}"
    );
    assert!(
        log.contains(&format!(
            "{} games recorded, {} to play",
            kept.len(),
            6 - kept.len()
        )),
        "{log}"
    );
    // On this node Slurm does not confine a task to its CPUs (task/none), so the script lets
    // the kernel place the games instead of pinning every shard to the first CPU.
    if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
        assert!(log.contains("concurrency 1, seed 11"), "{log}");
    }
    let after = game_ids(&shard1);
    assert_eq!(after.len(), 6, "{after:?}");
    assert_eq!(
        &after[..kept.len()],
        &kept[..],
        "earlier rows kept as they were"
    );
    assert_eq!(after.iter().collect::<HashSet<_>>().len(), 6);

    // Merged: every scheduled game exactly once.
    let merged = arbiter()
        .current_dir(w)
        .arg("merge")
        .arg(&run)
        .args((1..=4).map(|k| run.join(format!("shard-{k}"))))
        .output()
        .unwrap();
    assert!(merged.status.success(), "{}", text(&merged));
    let total = started.elapsed();
    let mut all = game_ids(&run.join("games.csv"));
    all.sort_unstable();
    assert_eq!(all, (0..24).collect::<Vec<u64>>());
    let builds = std::fs::read_to_string(w.join("builds.log")).unwrap();
    assert_eq!(builds.lines().count(), 1, "built once, not per shard");

    // The same tournament on one machine gives the same standings.
    let single = w.join("single");
    let one = arbiter()
        .current_dir(w)
        .args([
            "tournament",
            "--trust-builds",
            "--concurrency",
            "2",
            "--out",
        ])
        .arg(&single)
        .args(game)
        .arg("--")
        .args(&bots)
        .output()
        .unwrap();
    assert!(one.status.success(), "{}", text(&one));
    for file in ["ratings.csv", "crosstable.csv", "los.csv", "forfeits.csv"] {
        assert_eq!(
            std::fs::read_to_string(run.join(file)).unwrap(),
            std::fs::read_to_string(single.join(file)).unwrap(),
            "{file}"
        );
    }
    say(&format!(
        "slurm test: 24 games in 4 shards; array with one shard killed: {:.1} s; after the \
         resubmitted shard and the merge: {:.1} s",
        array_time.as_secs_f64(),
        total.as_secs_f64()
    ));
}
