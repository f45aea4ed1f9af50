//! The layers of the library, checked from its sources: `report/` renders and is imported by no
//! other module but those above it (the league's server, which serves its pages), and the imports between top-level modules form a DAG (no module reaches back
//! to one that imports it). Reads every `crate::X` path outside comments and test code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Which top-level modules each top-level module imports (`crate::X` in its code).
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            collect(&path, &mut files, &name);
        } else if path.extension().is_some_and(|e| e == "rs")
            && !["lib", "main", "build", "layers"].contains(&name.as_str())
        {
            files.push((name, path));
        }
    }
    let tests = test_files(&files);
    for (module, file) in files {
        let deps: &mut BTreeSet<String> = graph.entry(module.clone()).or_default();
        if tests.contains(&file) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        for (at, _) in code.match_indices("crate::") {
            let name: String = code[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != module {
                deps.insert(name);
            }
        }
    }
    graph
}

fn collect(dir: &Path, files: &mut Vec<(String, PathBuf)>, module: &str) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, files, module);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push((module.to_string(), path));
        }
    }
}

/// The files that are test code: declared under `#[cfg(test)]` (`mod x;`, with or without a
/// `#[path]`), with everything under them.
fn test_files(files: &[(String, PathBuf)]) -> BTreeSet<PathBuf> {
    let mut tests = BTreeSet::new();
    for (_, file) in files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let stem = file.file_stem().unwrap().to_string_lossy();
        let dir = if stem == "mod" {
            file.parent().unwrap().to_path_buf()
        } else {
            file.parent().unwrap().join(&*stem)
        };
        for (i, line) in lines.iter().enumerate() {
            if *line != "#[cfg(test)]" {
                continue;
            }
            let mut j = i + 1;
            let mut path = None;
            while let Some(attr) = lines.get(j).filter(|l| l.starts_with("#[")) {
                if let Some(p) = attr.strip_prefix("#[path = \"") {
                    path = p
                        .strip_suffix("\"]")
                        .map(|p| file.parent().unwrap().join(p));
                }
                j += 1;
            }
            let Some(name) = lines
                .get(j)
                .and_then(|l| {
                    l.strip_prefix("mod ")
                        .or_else(|| l.strip_prefix("pub mod "))
                        .or_else(|| l.strip_prefix("pub(crate) mod "))
                })
                .and_then(|l| l.strip_suffix(';'))
            else {
                continue;
            };
            match path {
                Some(p) => {
                    tests.insert(p);
                }
                None => {
                    tests.insert(dir.join(format!("{name}.rs")));
                    let folder = dir.join(name);
                    for (_, f) in files {
                        if f.starts_with(&folder) {
                            tests.insert(f.clone());
                        }
                    }
                }
            }
        }
    }
    tests
}

/// The code of a file without its comments and its `#[cfg(test)]` items.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut skip_next_item = false;
    let mut depth = 0usize;
    let mut skipping = false;
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        if line.trim() == "#[cfg(test)]" {
            skip_next_item = true;
            continue;
        }
        if skip_next_item && !skipping {
            if code.trim().starts_with("#[") {
                continue;
            }
            skip_next_item = false;
            if !code.contains('{') {
                continue; // `mod tests;`: its file is left out by `test_files`
            }
            skipping = true;
            depth = 0;
        }
        if skipping {
            depth += code.matches('{').count();
            depth = depth.saturating_sub(code.matches('}').count());
            if depth == 0 {
                skipping = false;
            }
            continue;
        }
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// A cycle in `graph`, as the modules along it, if there is one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The library's modules that sit above `report/`, as the commands do: they show what it renders
/// (the league's server serves its pages and replays). Nothing imports them back (the DAG test).
const ABOVE_REPORT: &[&str] = &["league"];

#[test]
fn no_module_below_report_imports_it() {
    let graph = imports(&sources());
    assert!(graph.contains_key("report") && graph.contains_key("engine"));
    let importers: Vec<&String> = graph
        .iter()
        .filter(|(m, deps)| {
            *m != "report" && !ABOVE_REPORT.contains(&m.as_str()) && deps.contains("report")
        })
        .map(|(m, _)| m)
        .collect();
    assert!(importers.is_empty(), "report/ is imported by {importers:?}");
}

#[test]
fn the_imports_between_top_level_modules_form_a_dag() {
    let graph = imports(&sources());
    assert_eq!(cycle(&graph), None, "{graph:#?}");
}

#[test]
fn the_checks_see_an_import_and_a_cycle_but_not_comments_or_tests() {
    let text = "//! crate::report\nuse crate::engine;\n#[cfg(test)]\nmod tests {\n    use crate::report;\n}\nfn f() { crate::rating::x() } // crate::grade\n";
    let code = code_of(text);
    assert!(code.contains("crate::engine") && code.contains("crate::rating"));
    assert!(
        !code.contains("report") && !code.contains("grade"),
        "{code}"
    );
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(m, d)| (m.into(), d.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

/// Arbiter's own long flags (`--name`, aliases included), from the command line's clap
/// definitions: every subcommand's, at any depth.
fn own_flags() -> BTreeSet<String> {
    fn walk(command: &clap::Command, flags: &mut BTreeSet<String>) {
        for arg in command.get_arguments() {
            for long in arg.get_long_and_visible_aliases().into_iter().flatten() {
                flags.insert(format!("--{long}"));
            }
            for long in arg.get_aliases().into_iter().flatten() {
                flags.insert(format!("--{long}"));
            }
        }
        for sub in command.get_subcommands() {
            walk(sub, flags);
        }
    }
    use clap::CommandFactory;
    let mut flags = BTreeSet::new();
    walk(&crate::cli::Cli::command(), &mut flags);
    flags.remove("--help");
    flags.remove("--version");
    flags
}

/// Other programs' flags that are also arbiter's, where the library passes them to those
/// programs (or tells the user to): (file under src/, flag, whose it is).
const FOREIGN_FLAGS: &[(&str, &str, &str)] = &[(
    "referee/sdk/build/engine.rs",
    "--format",
    "git archive's --format=tar",
)];

/// The string literals of a Rust source, each with the line it starts on (escaped line ends
/// removed), and the text with comments and literals blanked out (line ends kept), in which to
/// find the `#[cfg(test)]` items.
fn literals(text: &str) -> (Vec<(usize, String)>, String) {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied();
    let mut found = Vec::new();
    let mut code = String::new();
    let mut i = 0;
    let mut line = 1;
    while let Some(c) = at(i) {
        if c == '/' && at(i + 1) == Some('/') {
            while at(i).is_some_and(|c| c != '\n') {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == Some('*') {
            while at(i).is_some() && !(at(i) == Some('*') && at(i + 1) == Some('/')) {
                if at(i) == Some('\n') {
                    line += 1;
                    code.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else if c == '\'' {
            // A char literal ('x', '\n', '"', '\''), or a lifetime ('a).
            i = if at(i + 1) == Some('\\') {
                (i + 3..chars.len())
                    .find(|&j| chars[j] == '\'')
                    .unwrap_or(i)
                    + 1
            } else if at(i + 2) == Some('\'') {
                i + 3
            } else {
                i + 1
            };
            code.push(' ');
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while at(i).is_some_and(|c| c.is_alphanumeric() || c == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let hashes = chars[i..].iter().take_while(|&&c| c == '#').count();
            if (word == "r" || word == "br") && at(i + hashes) == Some('"') {
                i += hashes + 1;
                let start = line;
                let mut lit = String::new();
                let closing =
                    |j: usize| at(j) == Some('"') && (1..=hashes).all(|k| at(j + k) == Some('#'));
                while at(i).is_some() && !closing(i) {
                    if chars[i] == '\n' {
                        line += 1;
                        code.push('\n');
                    }
                    lit.push(chars[i]);
                    i += 1;
                }
                i += 1 + hashes;
                found.push((start, lit));
            } else {
                code.push_str(&word);
            }
        } else if c == '"' {
            let start = line;
            let mut lit = String::new();
            i += 1;
            while let Some(c) = at(i).filter(|&c| c != '"') {
                if c == '\n' {
                    line += 1;
                    code.push('\n');
                }
                if c == '\\' && at(i + 1) == Some('\n') {
                    // A line continued: the line end and the next line's indent are not text.
                    i += 1;
                    while at(i).is_some_and(char::is_whitespace) {
                        if at(i) == Some('\n') {
                            line += 1;
                            code.push('\n');
                        }
                        i += 1;
                    }
                    continue;
                }
                if c == '\\' {
                    lit.push(c);
                    i += 1;
                    lit.extend(at(i));
                    i += 1;
                    continue;
                }
                lit.push(c);
                i += 1;
            }
            i += 1;
            found.push((start, lit));
        } else {
            if c == '\n' {
                line += 1;
            }
            code.push(c);
            i += 1;
        }
    }
    (found, code)
}

/// The flags that `text` spells: `--name` (letters, digits, '-') not inside a longer word.
fn spelt_flags(text: &str) -> Vec<String> {
    let mut flags = Vec::new();
    for (at, _) in text.match_indices("--") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_') {
            continue;
        }
        let name: String = text[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if name.starts_with(|c: char| c.is_ascii_lowercase()) {
            flags.push(format!("--{}", name.trim_end_matches('-')));
        }
    }
    flags
}

/// The lines of `code` (literals and comments blanked) that are `#[cfg(test)]` items.
fn test_lines(code: &str) -> BTreeSet<usize> {
    let mut lines = BTreeSet::new();
    let mut pending = false;
    let mut depth = 0usize;
    let mut inside = false;
    for (n, line) in code.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed == "#[cfg(test)]" {
            pending = true;
            lines.insert(n + 1);
            continue;
        }
        if pending && !inside {
            lines.insert(n + 1);
            if trimmed.starts_with("#[") || trimmed.is_empty() {
                continue;
            }
            pending = false;
            if !line.contains('{') {
                continue;
            }
            inside = true;
            depth = 0;
        }
        if inside {
            lines.insert(n + 1);
            depth += line.matches('{').count();
            depth = depth.saturating_sub(line.matches('}').count());
            inside = depth > 0;
        }
    }
    lines
}

/// Where the library (all of src/ but the command line: `cli/`, `commands/`, `main.rs`) spells
/// one of arbiter's own flags in a string literal outside test code, as `file:line: flag`.
fn flags_spelt_in_the_library(src: &Path) -> Vec<String> {
    let flags = own_flags();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() && !["cli", "commands"].contains(&name.as_str()) {
            collect(&path, &mut files, &name);
        } else if name.ends_with(".rs")
            && !["main.rs", "lib.rs", "layers.rs"].contains(&name.as_str())
        {
            // lib.rs declares modules (and the tests' `cli`); layers.rs is test code.
            files.push((name, path));
        }
    }
    let tests = test_files(&files);
    let mut spelt = Vec::new();
    for (_, file) in files.iter().filter(|(_, f)| !tests.contains(f)) {
        let relative = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let (found, code) = literals(&std::fs::read_to_string(file).unwrap());
        let skip = test_lines(&code);
        for (line, text) in found.iter().filter(|(line, _)| !skip.contains(line)) {
            for flag in spelt_flags(text) {
                let foreign = FOREIGN_FLAGS
                    .iter()
                    .any(|(f, name, _)| *f == relative && *name == flag);
                if flags.contains(&flag) && !foreign {
                    spelt.push(format!("src/{relative}:{line}: {flag}"));
                }
            }
        }
    }
    spelt
}

/// The library names arbiter's options by [`crate::options::Opt`], never by a flag's spelling:
/// the spellings are the command line's (`cli::spelling`), whoever else uses the library.
#[test]
fn the_library_spells_no_flag_of_arbiters_own() {
    let spelt = flags_spelt_in_the_library(&sources());
    assert!(
        spelt.is_empty(),
        "the library spells arbiter's own flags (name the option with options::Opt, or, for \
         another program's flag, add it to FOREIGN_FLAGS with the reason):\n{}",
        spelt.join("\n")
    );
}

#[test]
fn the_flag_check_reads_literals_and_knows_arbiters_flags() {
    let flags = own_flags();
    for flag in [
        "--turn-ms",
        "--referee",
        "--resume",
        "--shard",
        "--token",
        "--sbatch",
    ] {
        assert!(flags.contains(flag), "{flag} not in {flags:?}");
    }
    // Every spelling in the command line's table is one of its flags.
    let table = std::fs::read_to_string(sources().join("cli/mod.rs")).unwrap();
    let spellings: Vec<&str> = table
        .split("Opt::")
        .filter_map(|arm| arm.split_once(" => \"")?.1.split_once('"'))
        .map(|(flag, _)| flag)
        .collect();
    assert!(spellings.len() > 40, "{spellings:?}");
    for flag in spellings {
        assert!(
            flags.contains(flag),
            "cli::spelling gives {flag}, not a flag of arbiter's"
        );
    }
    let text = "// \"--turn-ms\"\nlet a = '\"'; let b = \"x --seed 3\";\n/* \"--out\" */ let c = r#\"\"--games\"\"#;\nlet d = \"a \\\n   --shard K/N\"; let e: &'static str = \"a--b ---c --Tee\";\n#[cfg(test)]\nmod tests {\n    const F: &str = \"--resume\";\n}\n";
    let (found, code) = literals(text);
    let spelt: Vec<(usize, Vec<String>)> =
        found.iter().map(|(l, t)| (*l, spelt_flags(t))).collect();
    assert_eq!(
        spelt,
        vec![
            (2, vec!["--seed".to_string()]),
            (3, vec!["--games".to_string()]),
            (4, vec!["--shard".to_string()]),
            (5, vec![]),
            (8, vec!["--resume".to_string()]),
        ]
    );
    assert_eq!(code.lines().count(), text.lines().count());
    assert_eq!(test_lines(&code), BTreeSet::from([6, 7, 8, 9]));
}
