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

/// The texts of the errors of `engine/` and `results/lock.rs` name options through
/// [`crate::options::Opt`], never by a flag's spelling (the spellings are the command line's).
#[test]
fn the_engines_errors_spell_no_flag() {
    let src = sources();
    let mut files = Vec::new();
    collect(&src.join("engine"), &mut files, "engine");
    files.push(("results".into(), src.join("results/lock.rs")));
    let tests = test_files(&files);
    let mut spelt = Vec::new();
    for (_, file) in files.iter().filter(|(_, f)| !tests.contains(f)) {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let mut in_error = false;
        for line in code.lines() {
            in_error |= line.contains("#[error(");
            let flag = line.match_indices("--").any(|(at, _)| {
                line[at + 2..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_lowercase())
            });
            if (in_error || line.contains("format!(")) && flag {
                spelt.push(format!("{}: {}", file.display(), line.trim()));
            }
            if line.contains(")]") {
                in_error = false;
            }
        }
    }
    assert!(
        spelt.is_empty(),
        "flags spelt in the library:\n{}",
        spelt.join("\n")
    );
}
