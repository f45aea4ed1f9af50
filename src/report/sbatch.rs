//! The Slurm batch scripts of a tournament played in shards: a job array whose task K plays
//! `--shard K/N` into its own folder, and a merge job run after the array. The scripts are made as
//! text, so they can be checked without a cluster (`results::scripts` writes them); with them,
//! what `arbiter slurm` says about them (the cost of a game, the plan, the jobs submitted). The
//! command submits them.

use crate::options::Opt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Everything the scripts say.
#[derive(Clone, Debug)]
pub struct Job {
    /// The Slurm job name (the merge job adds `-merge`).
    pub name: String,
    pub shards: u32,
    /// CPUs per array task: the games one shard plays at a time.
    pub cpus: u32,
    /// Time limit of each array task.
    pub time_limit: Duration,
    /// The run's folder: shards in `shard-K/`, scripts and logs in `slurm/`, the merge in itself.
    pub run_dir: PathBuf,
    /// Where the bots were named (the tasks start there).
    pub workdir: PathBuf,
    /// The arbiter program (on the shared file system).
    pub arbiter: PathBuf,
    /// `arbiter tournament` options of the run, without --shard, --out and the bots.
    pub options: Vec<String>,
    pub bots: Vec<String>,
    /// `arbiter merge` options (e.g. --anchor).
    pub merge_options: Vec<String>,
    /// Extra `#SBATCH` options for both jobs (partition, account, ...).
    pub sbatch: Vec<String>,
    /// How the command line spells the options the scripts give each task (its table: the
    /// library holds no spelling, and a script cannot fall back on a settings key).
    pub spell: fn(Opt) -> &'static str,
}

fn quote(text: &str) -> String {
    shell_words::quote(text).into_owned()
}

fn path(p: &Path) -> String {
    quote(&p.display().to_string())
}

/// Whole minutes, at least one (sbatch --time takes minutes).
pub fn minutes(d: Duration) -> u64 {
    d.as_secs().div_ceil(60).max(1)
}

impl Job {
    /// The folder of scripts and logs.
    pub fn slurm_dir(&self) -> PathBuf {
        self.run_dir.join("slurm")
    }

    pub fn shards_file(&self) -> PathBuf {
        self.slurm_dir().join("shards.sbatch")
    }

    pub fn merge_file(&self) -> PathBuf {
        self.slurm_dir().join("merge.sbatch")
    }

    pub fn submit_file(&self) -> PathBuf {
        self.slurm_dir().join("submit.sh")
    }

    fn header(&self, out: &mut String, name: &str, time: Duration, log: &str) {
        out.push_str("#!/bin/bash\n");
        out.push_str(&format!("#SBATCH --job-name={}\n", quote(name)));
        out.push_str("#SBATCH --ntasks=1\n");
        out.push_str(&format!("#SBATCH --time={}\n", minutes(time)));
        out.push_str(&format!(
            "#SBATCH --output={}\n",
            path(&self.slurm_dir().join(log))
        ));
        for extra in &self.sbatch {
            out.push_str(&format!("#SBATCH {extra}\n"));
        }
    }

    /// The job array: task K plays shard K/N into `RUN/shard-K`.
    pub fn shards_script(&self) -> String {
        let n = self.shards;
        let mut s = String::new();
        self.header(&mut s, &self.name, self.time_limit, "shard-%a.out");
        s.push_str(&format!("#SBATCH --array=1-{n}\n"));
        s.push_str(&format!("#SBATCH --cpus-per-task={}\n", self.cpus));
        // A minute before the time limit, stop arbiter alone (it kills its bots and keeps every
        // finished game), rather than every process of the task at once.
        s.push_str("#SBATCH --signal=B:TERM@60\n");
        // A rerun of a shard adds to its log rather than wiping the story of the first run.
        s.push_str("#SBATCH --open-mode=append\n");
        s.push_str(&format!(
            "#\n# Written by `arbiter slurm`: array task K plays shard K/{n} of the tournament into\n\
             # {}/shard-K. Rerun a shard with `sbatch --array=K {}`: it plays only the games\n\
             # its folder lacks. The bots were built once beforehand ({}).\n",
            self.run_dir.display(),
            self.shards_file().display(),
            (self.spell)(Opt::NoBuild)
        ));
        s.push_str("set -eu\n");
        s.push_str(&format!("cd {}\n", path(&self.workdir)));
        s.push_str("K=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch}\n");
        // Pin each game to a CPU only where Slurm confined the task to its own CPUs; otherwise
        // every shard on a node would pin its games to the node's first CPUs.
        s.push_str(&format!(
            "pin=auto\n[ \"$(nproc)\" -le {} ] || pin=never\n",
            self.cpus
        ));
        let mut line = vec![path(&self.arbiter), "tournament".into()];
        let spell = |opt| (self.spell)(opt).to_string();
        line.push(spell(Opt::Shard));
        line.push(format!("\"$K/{n}\""));
        line.push(spell(Opt::Out));
        line.push(format!("{}/shard-\"$K\"", path(&self.run_dir)));
        line.push(spell(Opt::Concurrency));
        line.push(self.cpus.to_string());
        line.push(spell(Opt::NoBuild));
        line.push(format!("{}=\"$pin\"", spell(Opt::PinCpus)));
        line.extend(self.options.iter().map(|o| quote(o)));
        line.push("--".into());
        line.extend(self.bots.iter().map(|b| quote(b)));
        s.push_str(&format!("exec {}\n", line.join(" ")));
        s
    }

    /// The merge job: `arbiter merge RUN RUN/shard-1 ... RUN/shard-N`.
    pub fn merge_script(&self) -> String {
        let mut s = String::new();
        let name = format!("{}-merge", self.name);
        self.header(&mut s, &name, Duration::from_secs(30 * 60), "merge.out");
        s.push_str("#SBATCH --cpus-per-task=1\n");
        s.push_str(
            "#\n# Written by `arbiter slurm`: runs after every array task has ended (afterany), so a\n\
             # failed shard is named by the merge instead of blocking it.\n",
        );
        s.push_str("set -eu\n");
        s.push_str(&format!("cd {}\n", path(&self.workdir)));
        let mut line = vec![path(&self.arbiter), "merge".into()];
        line.extend(self.merge_options.iter().map(|o| quote(o)));
        line.push(path(&self.run_dir));
        line.push(format!(
            "{}/shard-{{1..{}}}",
            path(&self.run_dir),
            self.shards
        ));
        s.push_str(&format!("exec {}\n", line.join(" ")));
        s
    }

    /// Submits both jobs by hand: the array, then the merge after it.
    pub fn submit_script(&self) -> String {
        format!(
            "#!/bin/sh\n# Submits the shards and the merge that follows them (written by `arbiter slurm`).\n\
             set -eu\n\
             array=$(sbatch --parsable {})\n\
             array=${{array%%;*}}\n\
             merge=$(sbatch --parsable --dependency=afterany:\"$array\" {})\n\
             echo \"shards: job $array, merge: job ${{merge%%;*}}\"\n",
            path(&self.shards_file()),
            path(&self.merge_file())
        )
    }
}

impl Job {
    /// The three scripts (their paths and texts), to be written into [`Job::slurm_dir`]
    /// ([`crate::results::scripts::write_executables`]).
    pub fn scripts(&self) -> Vec<(PathBuf, String)> {
        vec![
            (self.shards_file(), self.shards_script()),
            (self.merge_file(), self.merge_script()),
            (self.submit_file(), self.submit_script()),
        ]
    }
}

/// On stderr: what a game costs, as measured or from the clocks.
pub fn cost_line(cost: &crate::engine::shards::GameCost) {
    use crate::engine::shards::GameCost;
    let per = cost.per_game();
    match *cost {
        GameCost::Measured { games, took } => eprintln!(
            "arbiter: measured {games} games here in {:.1} s: {:.0} ms a game",
            took.as_secs_f64(),
            per.as_secs_f64() * 1000.0
        ),
        GameCost::Clocks {
            worst,
            max_turns,
            share,
        } => eprintln!(
            "arbiter: a game lasts at most {:.1} s on its clocks ({max_turns} turns); at {:.0}% of each turn: {:.1} s",
            worst.as_secs_f64(),
            share * 100.0,
            per.as_secs_f64()
        ),
    }
}

/// On stderr: the job's plan: `games` in `shards` shards, the largest shard's estimate `est`
/// and each task's time `limit` (`given`: as the user gave it).
pub fn plan_line(
    games: usize,
    shards: u32,
    est: &crate::tournament::shard::Estimate,
    per_game: Duration,
    limit: Duration,
    given: bool,
) {
    let half_again = format!(
        " (half as much again plus 5 min; {} MIN to choose)",
        crate::options::Opt::TimeLimit
    );
    eprintln!(
        "arbiter: {games} games in {shards} shards; the largest shard plays {} games, {} at a time: about {} \
         at {:.0} ms a game; time limit {} min per shard{}",
        est.games,
        est.concurrency,
        human(est.shard),
        per_game.as_secs_f64() * 1000.0,
        minutes(limit),
        if given {
            " (as given)"
        } else {
            &half_again
        }
    );
}

/// "2 h 05 min", "3 min 20 s", "12 s".
fn human(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{:.1} s", d.as_secs_f64()),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

/// On stdout: the scripts written for `seed`, and how to submit them unless `submitting`.
pub fn written(job: &Job, seed: u64, submitting: bool) {
    println!("Seed {seed}; scripts in {}:", job.slurm_dir().display());
    println!(
        "  shards.sbatch  the job array ({} tasks, {} CPUs each)",
        job.shards, job.cpus
    );
    println!("  merge.sbatch   the merge into {}", job.run_dir.display());
    println!("  submit.sh      submits both");
    if !submitting {
        println!("Submit with: {}", job.submit_file().display());
    }
}

/// On stdout: the jobs submitted.
pub fn submitted(job: &Job, array: &str, merge: &str) {
    println!(
        "Submitted: shards job {array} (array 1-{}), merge job {merge}",
        job.shards
    );
    println!(
        "Follow with: squeue -j {array},{merge}; logs in {}",
        job.slurm_dir().display()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> Job {
        Job {
            name: "arbiter-league".into(),
            shards: 4,
            cpus: 2,
            time_limit: Duration::from_secs(601),
            run_dir: "/shared/runs/my league".into(),
            workdir: "/shared/bots".into(),
            arbiter: "/shared/bin/arbiter".into(),
            options: vec!["--seed".into(), "7".into()],
            bots: vec!["a".into(), "b=python3 b.py".into()],
            merge_options: vec![],
            sbatch: vec!["--partition=short".into()],
            spell: crate::cli::spelling,
        }
    }

    #[test]
    fn the_array_script_plays_shard_k_of_n_into_its_own_folder() {
        let s = job().shards_script();
        for line in [
            "#SBATCH --array=1-4\n",
            "#SBATCH --cpus-per-task=2\n",
            "#SBATCH --time=11\n",
            "#SBATCH --output='/shared/runs/my league/slurm/shard-%a.out'\n",
            "#SBATCH --partition=short\n",
            "cd /shared/bots\n",
            "exec /shared/bin/arbiter tournament --shard \"$K/4\" --out '/shared/runs/my league'/shard-\"$K\" --concurrency 2 --no-build --pin-cpus=\"$pin\" --seed 7 -- a 'b=python3 b.py'\n",
            "[ \"$(nproc)\" -le 2 ] || pin=never\n",
        ] {
            assert!(s.contains(line), "{line} in\n{s}");
        }
        // Every #SBATCH line comes before the first command (sbatch stops reading there).
        let first_command = s.find("\nset -eu").unwrap();
        assert!(s.rfind("#SBATCH").unwrap() < first_command);
        let m = job().merge_script();
        assert!(
            m.contains("merge '/shared/runs/my league' '/shared/runs/my league'/shard-{1..4}\n"),
            "{m}"
        );
        let sub = job().submit_script();
        assert!(sub.contains("--dependency=afterany:\"$array\""), "{sub}");
        assert_eq!(minutes(Duration::from_secs(1)), 1);
    }
}
