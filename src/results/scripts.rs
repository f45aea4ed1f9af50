//! Executable scripts written into a results folder: a Slurm job's (`arbiter slurm`'s shards,
//! merge and submit scripts; `arbiter league slurm`'s worker job). Their text is made elsewhere
//! (`report::sbatch`, `league::slurm`), so that it can be checked without a cluster; writing
//! them is this folder's business, in one place.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Scripts that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// `doing` (creating, writing, making executable) `path` failed.
    #[error("{doing} {}", path.display())]
    File {
        doing: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Writes each of `scripts` (its path and text) as an executable file (mode 755), creating
/// `dir` (the folder they are in) first.
pub fn write_executables(dir: &Path, scripts: &[(PathBuf, String)]) -> Result<(), ScriptError> {
    let failed = |doing, path: &Path| {
        let path = path.to_path_buf();
        move |source| ScriptError::File {
            doing,
            path,
            source,
        }
    };
    std::fs::create_dir_all(dir).map_err(failed("creating", dir))?;
    for (path, text) in scripts {
        std::fs::write(path, text).map_err(failed("writing", path))?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(failed("making executable", path))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn scripts_are_written_executable_and_a_failure_names_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("slurm");
        let a = dir.join("a.sh");
        write_executables(&dir, &[(a.clone(), "#!/bin/sh\n".into())]).unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "#!/bin/sh\n");
        let mode = std::fs::metadata(&a).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
        // A folder where the script should be: the error names it.
        let b = dir.join("b.sh");
        std::fs::create_dir(&b).unwrap();
        let e = write_executables(&dir, &[(b.clone(), String::new())]).unwrap_err();
        assert_eq!(e.to_string(), format!("writing {}", b.display()));
    }
}
