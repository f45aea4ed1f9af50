use super::*;
use std::os::unix::fs::PermissionsExt;

fn dir_fd(path: &Path) -> OwnedFd {
    rustix::fs::open(path, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap()
}

/// The symlink swap, made deterministic: the folder the check saw is a symlink to a folder
/// outside the class by the time it is opened, and so is a file. Neither open follows it.
#[test]
fn a_symlink_swapped_in_for_a_folder_or_a_file_is_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let class = tmp.path().join("class");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(class.join("alice/lib")).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "SECRET").unwrap();
    std::fs::write(class.join("alice/lib/secret.txt"), "mine").unwrap();
    let base = dir_fd(&class);
    let rel = Path::new("alice/lib/secret.txt");
    assert!(open_beneath(&base, rel).is_ok());
    // Swapped after the check: the folder becomes a symlink out of the class.
    std::fs::remove_dir_all(class.join("alice/lib")).unwrap();
    std::os::unix::fs::symlink(&outside, class.join("alice/lib")).unwrap();
    assert!(std::fs::read_to_string(class.join(rel)).unwrap() == "SECRET");
    assert!(
        open_beneath(&base, rel).is_err(),
        "followed a folder symlink"
    );
    // The file itself becomes one.
    std::fs::remove_file(class.join("alice/lib")).unwrap();
    std::fs::create_dir(class.join("alice/lib")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), class.join(rel)).unwrap();
    assert!(open_beneath(&base, rel).is_err(), "followed a file symlink");
    assert!(open_beneath(&base, Path::new("alice/../alice/lib")).is_err());
}

/// A hard link to a private file of the grader's is refused wherever it is in a submission,
/// and so is a file the student cannot read; the student's own files and links inside the
/// class folder are copied.
#[test]
fn a_hard_link_to_a_private_file_or_a_file_the_student_cannot_read_is_not_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let class = tmp.path().join("class");
    std::fs::create_dir_all(class.join("alice/lib")).unwrap();
    std::fs::write(class.join("alice/bot.py"), "print(1)").unwrap();
    std::os::unix::fs::symlink(class.join("alice/bot.py"), class.join("alice/lib/same.py"))
        .unwrap();
    let copy = tmp.path().join("copy");
    copy_submission(&class, OsStr::new("alice"), &copy).unwrap();
    assert_eq!(
        std::fs::read_to_string(copy.join("lib/same.py")).unwrap(),
        "print(1)"
    );
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, "SECRET").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::hard_link(&secret, class.join("alice/lib/data.txt")).unwrap();
    let copy = tmp.path().join("copy2");
    let err = copy_submission(&class, OsStr::new("alice"), &copy).unwrap_err();
    assert!(matches!(err, BeneathError::HardLink { .. }), "{err}");
    assert!(err.to_string().contains("data.txt"), "{err}");
    // One file submission that is the hard link.
    std::fs::hard_link(&secret, class.join("leak.py")).unwrap();
    let err = copy_submission(&class, OsStr::new("leak.py"), &tmp.path().join("c3")).unwrap_err();
    assert!(matches!(err, BeneathError::HardLink { .. }), "{err}");
    if rustix::process::geteuid().is_root() {
        // Alice is uid 4242: a private file of root's in her folder is not hers to read.
        std::fs::remove_file(class.join("alice/lib/data.txt")).unwrap();
        std::os::unix::fs::chown(class.join("alice"), Some(4242), Some(4242)).unwrap();
        let private = class.join("alice/lib/private.txt");
        std::fs::write(&private, "SECRET").unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
        let err = copy_submission(&class, OsStr::new("alice"), &tmp.path().join("c4")).unwrap_err();
        assert!(matches!(err, BeneathError::Unreadable { .. }), "{err}");
        std::os::unix::fs::chown(&private, Some(4242), None).unwrap();
        copy_submission(&class, OsStr::new("alice"), &tmp.path().join("c5")).unwrap();
    }
}
