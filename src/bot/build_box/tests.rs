use super::*;

/// Whether bwrap is here; without it, under CI, the test fails saying what to install.
fn have_bwrap() -> bool {
    if super::super::sandbox::bwrap().is_some() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "bubblewrap is needed by this test: apt-get install bubblewrap"
    );
    eprintln!("bwrap is not installed; this test did nothing");
    false
}

fn sh(script: &str, dir: &Path, limits: &BuildLimits) -> Outcome {
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
    let stage = Stage::new().unwrap();
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
    let stage = Stage::new().unwrap();
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
