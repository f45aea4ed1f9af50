//! The engine's dependencies, taken from Debian's packages rather than Maven Central (which an
//! offline build box cannot reach): Guice without AOP (the engine's injector), javax.inject,
//! Guava, Gson (its view and summaries) and Commons Logging. The engine's `runner` module would
//! also need undertow (not in Debian), but only for its web viewer: arbiter never builds it.

use super::SdkBuildError;
use std::path::PathBuf;

/// One jar the engine needs, and the Debian package that installs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DebianJar {
    pub path: &'static str,
    pub package: &'static str,
}

/// Every jar an SDK referee compiles and runs against, in class-path order.
pub const DEBIAN_JARS: [DebianJar; 5] = [
    DebianJar {
        path: "/usr/share/java/guice-no-aop.jar",
        package: "libguice-java",
    },
    DebianJar {
        path: "/usr/share/java/atinject-jsr330-api.jar",
        package: "libatinject-jsr330-api-java",
    },
    DebianJar {
        path: "/usr/share/java/guava.jar",
        package: "libguava-java",
    },
    DebianJar {
        path: "/usr/share/java/gson.jar",
        package: "libgoogle-gson-java",
    },
    DebianJar {
        path: "/usr/share/java/commons-logging.jar",
        package: "libcommons-logging-java",
    },
];

/// The jars of [`DEBIAN_JARS`], or the first one missing, named with its package.
pub fn debian_jars() -> Result<Vec<PathBuf>, SdkBuildError> {
    DEBIAN_JARS
        .iter()
        .map(|jar| {
            let path = PathBuf::from(jar.path);
            if path.is_file() {
                Ok(path)
            } else {
                Err(SdkBuildError::MissingJar {
                    path,
                    package: jar.package,
                })
            }
        })
        .collect()
}
