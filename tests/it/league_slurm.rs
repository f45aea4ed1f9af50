//! League workers on a real Slurm (issue 38): a league server on a loopback port with no local
//! workers, and `arbiter league slurm --workers 2 --submit` on the one-node test cluster that
//! the shards test starts ([`crate::slurm::Cluster`]); the two array tasks are real `arbiter
//! league work` processes that fill the league. Where the daemons cannot start it says so and
//! passes, except on CI (`.ci/run` installs Slurm), where that fails.

use crate::common::league::{arbiter, games_of, json, recorded, serve, token, wait_for, DEADLINE};
use crate::common::{first_bot, greedy_bot, random_bot};
use crate::slurm::{text, Cluster};
use std::collections::HashSet;
use std::os::unix::fs::PermissionsExt;

#[test]
fn league_slurm_runs_two_workers_on_the_cluster_that_fill_a_league() {
    let Some(cluster) = Cluster::start_or_skip("league_slurm_runs_two_workers...") else {
        return;
    };
    let tmp = crate::common::shared_tempdir();
    let dir = tmp.path().join("league");
    let (_server, url) = serve(&dir, &[random_bot(), greedy_bot(), first_bot()]);
    let secret = token(&dir, "cluster");
    let token_file = tmp.path().join("worker-token");
    std::fs::write(&token_file, format!("{secret}\n")).unwrap();
    let jobs = tmp.path().join("workers");
    let slurm = |mode: u32| {
        std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(mode)).unwrap();
        arbiter()
            .env("SLURM_CONF", &cluster.conf)
            .args([
                "league",
                "slurm",
                &url,
                "--workers",
                "2",
                "--time-limit",
                "5",
            ])
            .args(["--throttle", "2", "--submit", "--token-file"])
            .arg(&token_file)
            .arg("--out")
            .arg(&jobs)
            .output()
            .unwrap()
    };

    // A token file others can read is refused before anything is written or submitted.
    let open = slurm(0o644);
    assert_eq!(open.status.code(), Some(3), "{}", text(&open));
    let err = String::from_utf8_lossy(&open.stderr);
    assert!(
        err.contains("can be read by others") && err.contains("chmod 600"),
        "{err}"
    );
    assert!(!jobs.exists(), "nothing written for a refused token file");

    let out = slurm(0o600);
    assert!(out.status.success(), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    let id: String = said
        .split("workers job ")
        .nth(1)
        .unwrap_or_else(|| panic!("no job id in {said}"))
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let script = std::fs::read_to_string(jobs.join("workers.sbatch")).unwrap();
    assert!(!script.contains(&secret), "the token is not in the script");
    assert!(
        script.contains("#SBATCH --array=1-2%2\n")
            && script.contains(&format!("--token-file {}", token_file.display())),
        "{script}"
    );

    // Both array tasks work for the league (each its own session of the one token), and the
    // league fills: every pair plays its floor of games, so each bot plays at least four.
    let sessions = wait_for("two Slurm workers that filled the league", || {
        let s = json(&url, "/api/standings");
        let full = [
            "arbiter-bot-random",
            "arbiter-bot-greedy",
            "arbiter-bot-first",
        ]
        .iter()
        .all(|b| games_of(&s, b) >= 4);
        let workers = json(&url, "/api/workers");
        let playing: Vec<String> = workers["workers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["name"] == "cluster" && w["games"].as_u64().unwrap() >= 1)
            .map(|w| w["session"].as_str().unwrap().to_string())
            .collect();
        let seen = format!(
            "{s}\n{workers}\nqueue: {}",
            cluster.output("squeue", &["-h", "-o", "%i %T %R"])
        );
        ((full && playing.len() == 2).then_some(playing), seen)
    });
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    for k in 1..=2 {
        let log = std::fs::read_to_string(jobs.join(format!("worker-{k}.out"))).unwrap();
        assert!(log.contains("working for the league"), "task {k}: {log}");
    }

    let cancel = cluster.command("scancel").arg(&id).output().unwrap();
    assert!(cancel.status.success(), "{}", text(&cancel));
    cluster.wait(&id, DEADLINE);
    let ids = recorded(&dir);
    let unique: HashSet<u64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "no game recorded twice: {ids:?}");
}
