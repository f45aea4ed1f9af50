use super::*;

/// Whether bwrap is here; without it, under CI, the test fails saying what to install.
fn have_bwrap() -> bool {
    if super::super::host::bwrap().is_some() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "bubblewrap is needed by this test: apt-get install bubblewrap"
    );
    eprintln!("bwrap is not installed; this test did nothing");
    false
}

fn sh(script: &str, dir: &Path, limits: &BuildLimits) -> StepReport {
    let step = ["/bin/sh", "-c", script].map(String::from);
    run(&step, dir, limits).unwrap()
}

#[test]
fn a_build_is_unprivileged_offline_and_sees_only_the_system_and_its_folder() {
    if !have_bwrap() {
        return;
    }
    // The secret and the cache under a folder only arbiter's user can enter, as under /root.
    let outer = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(outer.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let stage = BuildStage::new().unwrap();
    let dir = stage.dir().to_path_buf();
    let secret = outer.path().join("secret.txt");
    std::fs::write(&secret, "TOP-SECRET-LINE\n").unwrap();
    let script = format!(
        "id -u; grep CapEff /proc/self/status; echo made > made.txt; \
         cat {} /root/.bashrc 2>&1; echo x > /usr/x 2>&1; ls /home 2>&1; \
         cat /etc/shadow 2>&1 | head -c 20; echo; \
         echo NET=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '); echo PATH=$PATH",
        secret.display()
    );
    let out = sh(&script, &dir, &BuildLimits::default());
    assert!(out.success, "{out:?}");
    let first = out.output.lines().next().unwrap();
    if running_as_root() {
        assert_ne!(first, "0", "{}", out.output);
    }
    assert!(
        out.output.contains("CapEff:\t0000000000000000"),
        "{}",
        out.output
    );
    assert!(!out.output.contains("TOP-SECRET-LINE"), "{}", out.output);
    assert!(!out.output.contains("root:"), "{}", out.output);
    assert!(out.output.contains(&format!("PATH={SYSTEM_PATH}")));
    assert!(out.output.contains("\nNET=lo\n"), "{}", out.output);
    assert_eq!(
        std::fs::read_to_string(dir.join("made.txt")).unwrap(),
        "made\n"
    );
    assert!(!Path::new("/usr/x").exists());
    let cached = outer.path().join("cached");
    stage.install(&cached).unwrap();
    assert!(!dir.exists());
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(cached.join("made.txt")).unwrap();
    assert_eq!(meta.uid(), rustix::process::geteuid().as_raw());
    assert_eq!(meta.mode() & 0o444, 0o444);
    assert_eq!(
        std::fs::read_to_string(cached.join("made.txt")).unwrap(),
        "made\n"
    );
}

#[test]
fn a_flood_is_cut_and_a_build_past_its_time_is_stopped_and_named() {
    if !have_bwrap() {
        return;
    }
    let stage = BuildStage::new().unwrap();
    let limits = BuildLimits {
        output_bytes: 1000,
        ..BuildLimits::default()
    };
    let out = sh("yes flood | head -c 5000000", stage.dir(), &limits);
    assert!(out.success, "{:?}", out.status);
    assert!(out.output.len() < 1200, "{}", out.output.len());
    assert!(out.output.contains("more bytes of output dropped"));
    let limits = BuildLimits {
        time: Duration::from_secs(1),
        ..BuildLimits::default()
    };
    let out = sh("sleep 1000 & sleep 1000", stage.dir(), &limits);
    assert!(!out.success);
    assert!(
        out.status.contains("wall-clock limit of 1 s"),
        "{}",
        out.status
    );
}

/// Whether builds get a memory cgroup here; without one (not root), under CI, the test fails.
fn have_memory_cgroup() -> bool {
    if crate::bot::cgroup::memory_cap_is_full() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "this test needs a memory cgroup for builds: run it as root"
    );
    eprintln!("no memory cgroup can be made here; this test did nothing");
    false
}

#[test]
fn a_build_that_holds_more_memory_in_its_tmp_than_its_cap_fails_naming_the_cap() {
    if !have_bwrap() || !have_memory_cgroup() {
        return;
    }
    let stage = BuildStage::new().unwrap();
    let limits = BuildLimits {
        memory_bytes: 64 << 20,
        tmp_bytes: 1 << 30,
        ..BuildLimits::default()
    };
    // 200 MiB kept in the RAM-backed /tmp (the writer is killed on the way), and an exit 0.
    let out = sh(
        "head -c 200000000 /dev/zero > /tmp/hog; echo held; exit 0",
        stage.dir(),
        &limits,
    );
    assert!(!out.success, "{out:?}");
    assert_eq!(out.cap, Some(Cap::Memory(64 << 20)), "{out:?}");
    assert!(
        out.status.contains("memory cap of 64 MiB")
            && out
                .status
                .contains(&crate::options::Opt::BuildMemoryMb.to_string()),
        "{}",
        out.status
    );
    // The same build within its cap passes.
    let out = sh(
        "head -c 20000000 /dev/zero > /tmp/small; echo held",
        stage.dir(),
        &limits,
    );
    assert!(out.success, "{out:?}");
}

#[test]
fn a_builds_tmp_is_sized() {
    if !have_bwrap() {
        return;
    }
    let stage = BuildStage::new().unwrap();
    let limits = BuildLimits {
        tmp_bytes: 8 << 20,
        ..BuildLimits::default()
    };
    let out = sh(
        "head -c 30000000 /dev/zero > /tmp/big; echo kept=$(wc -c < /tmp/big)",
        stage.dir(),
        &limits,
    );
    assert!(out.output.contains("No space left on device"), "{out:?}");
    assert!(
        out.output.contains(&format!("kept={}\n", 8 << 20)),
        "{out:?}"
    );
}

#[test]
fn a_build_that_fills_its_folder_past_the_cap_is_stopped_naming_the_cap() {
    if !have_bwrap() {
        return;
    }
    let stage = BuildStage::new().unwrap();
    let limits = BuildLimits {
        folder_bytes: 16 << 20,
        ..BuildLimits::default()
    };
    // Left behind at the end of the build.
    let out = sh("head -c 40000000 /dev/zero > big", stage.dir(), &limits);
    assert!(!out.success, "{out:?}");
    assert!(
        matches!(out.cap, Some(Cap::Folder { cap, seen }) if cap == 16 << 20 && seen > cap),
        "{out:?}"
    );
    assert!(
        out.status.contains("cap of 16 MiB")
            && out
                .status
                .contains(&crate::options::Opt::BuildDiskMb.to_string()),
        "{}",
        out.status
    );
    std::fs::remove_file(stage.dir().join("big")).unwrap();
    // Held while the build goes on (in files each under the cap): stopped then, long before
    // its time limit.
    let out = sh(
        "head -c 10000000 /dev/zero > a; head -c 10000000 /dev/zero > b; sleep 100",
        stage.dir(),
        &limits,
    );
    assert!(
        matches!(out.cap, Some(Cap::Folder { .. })),
        "{out:?} (not stopped for its folder)"
    );
}

#[test]
fn a_folder_is_measured_without_following_links() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), vec![1u8; 10_000]).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/b"), vec![1u8; 20_000]).unwrap();
    std::os::unix::fs::symlink("/usr", dir.path().join("usr")).unwrap();
    let bytes = folder_bytes(dir.path());
    assert!((30_000..30_000 + 5 * 4096).contains(&bytes), "{bytes}");
}
