//! The Slurm batch script of a pool of league workers (`arbiter league slurm URL --workers N`):
//! a job array whose every task runs one long-lived `arbiter league work` (it plays many games,
//! until the task's time limit), at most `%K` of them at once where a throttle is given. The
//! script is made as text, so it can be checked without a cluster, then written; the command
//! submits it, and gives the worker's command line (the library spells none of arbiter's
//! flags). The worker token never goes into the script (anyone who may read the script could
//! work as that worker): the script names the token file, which the worker reads.
//!
//! Each task keeps its fetched and built bots in its own cache on the node (`$TMPDIR`, else
//! /tmp), not in one shared folder: two workers building the same bot in one folder at once
//! would overwrite each other's files.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Everything the script says.
#[derive(Clone, Debug)]
pub struct WorkerJob {
    /// The Slurm job name.
    pub name: String,
    /// The league: http://HOST:PORT.
    pub url: String,
    /// Array tasks: one worker each.
    pub workers: u32,
    /// At most this many tasks at once (`--array=1-N%K`).
    pub throttle: Option<u32>,
    /// Games each worker plays at once (and its `--cpus-per-task`).
    pub concurrency: u32,
    /// Each task's time limit: the worker stops then (its leases go to other workers).
    pub time_limit: Duration,
    /// Where the script and the workers' logs are kept.
    pub dir: PathBuf,
    /// The arbiter program (on the shared file system).
    pub arbiter: PathBuf,
    /// What follows the program on each task's line, as the command line spells it (`league
    /// work URL`, the token file's option and path, the games at once, and last the option that
    /// takes the task's cache folder: the library holds no spelling of arbiter's flags).
    pub work: Vec<String>,
    /// Extra `#SBATCH` options (partition, account, ...).
    pub sbatch: Vec<String>,
}

fn quote(text: &str) -> String {
    shell_words::quote(text).into_owned()
}

fn path(p: &Path) -> String {
    quote(&p.display().to_string())
}

impl WorkerJob {
    pub fn script_file(&self) -> PathBuf {
        self.dir.join("workers.sbatch")
    }

    /// The job array: task K runs worker K until its time limit.
    pub fn script(&self) -> String {
        let n = self.workers;
        let mut s = String::new();
        s.push_str("#!/bin/bash\n");
        s.push_str(&format!("#SBATCH --job-name={}\n", quote(&self.name)));
        s.push_str("#SBATCH --ntasks=1\n");
        s.push_str(&format!(
            "#SBATCH --time={}\n",
            crate::report::sbatch::minutes(self.time_limit)
        ));
        s.push_str(&format!(
            "#SBATCH --output={}\n",
            path(&self.dir.join("worker-%a.out"))
        ));
        let throttle = self.throttle.map_or(String::new(), |k| format!("%{k}"));
        s.push_str(&format!("#SBATCH --array=1-{n}{throttle}\n"));
        s.push_str(&format!("#SBATCH --cpus-per-task={}\n", self.concurrency));
        // A minute before the time limit, stop the worker alone (it ends its games' bots);
        // the games it held go to other workers when their leases run out.
        s.push_str("#SBATCH --signal=B:TERM@60\n");
        s.push_str("#SBATCH --open-mode=append\n");
        for extra in &self.sbatch {
            s.push_str(&format!("#SBATCH {extra}\n"));
        }
        s.push_str(&format!(
            "#\n# Written by `arbiter league slurm`: array task K runs one league worker for\n\
             # {url}, {c} game(s) at a time, until the time limit. More workers: submit again\n\
             # (`sbatch --array=1-M {script}`); fewer: scancel some tasks (their games go to\n\
             # the others). The token is read from its file, never written here.\n",
            url = self.url,
            c = self.concurrency,
            script = self.script_file().display()
        ));
        s.push_str("set -eu\n");
        s.push_str("K=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch}\n");
        s.push_str(
            "cache=\"${TMPDIR:-/tmp}/arbiter-league-${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}-$K\"\n",
        );
        let mut line = vec![path(&self.arbiter)];
        line.extend(self.work.iter().map(|w| quote(w)));
        line.push("\"$cache\"".into());
        s.push_str(&format!("exec {}\n", line.join(" ")));
        s
    }

    /// Writes the script (executable) into [`WorkerJob::dir`].
    pub fn write(&self) -> Result<(), crate::results::scripts::ScriptError> {
        let script = (self.script_file(), self.script());
        crate::results::scripts::write_executables(&self.dir, &[script])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> WorkerJob {
        WorkerJob {
            name: "arbiter-league-workers".into(),
            url: "http://league.example.org:8737".into(),
            workers: 40,
            throttle: Some(10),
            concurrency: 2,
            time_limit: Duration::from_secs(3600),
            dir: "/shared/my league/workers".into(),
            arbiter: "/shared/bin/arbiter".into(),
            work: [
                "league",
                "work",
                "http://league.example.org:8737",
                "--token-file",
                "/shared/home/me/.arbiter-token",
                "--concurrency",
                "2",
                "--cache",
            ]
            .map(String::from)
            .to_vec(),
            sbatch: vec!["--partition=short".into()],
        }
    }

    #[test]
    fn the_array_runs_one_worker_per_task_with_the_token_file_not_the_token() {
        let s = job().script();
        for line in [
            "#SBATCH --array=1-40%10\n",
            "#SBATCH --cpus-per-task=2\n",
            "#SBATCH --time=60\n",
            "#SBATCH --output='/shared/my league/workers/worker-%a.out'\n",
            "#SBATCH --partition=short\n",
            "exec /shared/bin/arbiter league work http://league.example.org:8737 --token-file \
             /shared/home/me/.arbiter-token --concurrency 2 --cache \"$cache\"\n",
        ] {
            assert!(s.contains(line), "{line} in\n{s}");
        }
        // Every #SBATCH line comes before the first command (sbatch stops reading there).
        let first_command = s.find("\nset -eu").unwrap();
        assert!(s.rfind("#SBATCH").unwrap() < first_command);
        let mut open = job();
        open.throttle = None;
        assert!(open.script().contains("#SBATCH --array=1-40\n"));
    }
}
