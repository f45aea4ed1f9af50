//! arbiter's warm referee launcher (its Java side: `java/ArbiterLauncher.java`, compiled into
//! every SDK game's run folder by `build`).
pub const SOURCE_FILE: &str = "ArbiterLauncher.java";

/// The launcher's source: part of every game's cache key, so a changed launcher is rebuilt.
pub const SOURCE_HASH_INPUT: &str = include_str!("java/ArbiterLauncher.java");

/// Writes the launcher's source into the build folder `dir`.
pub fn write_source(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::write(dir.join(SOURCE_FILE), SOURCE_HASH_INPUT)
}
