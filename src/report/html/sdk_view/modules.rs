//! The viewer's ES modules made loadable from a page opened as a file: each module's relative
//! imports (`from '../config.js'`) are renamed to the module's absolute name in the view folder
//! (`from 'arbiter-sdk:/config.js'`), which the page's import map points at the module's text
//! (a blob URL), so the modules keep their semantics (live bindings, cycles) with no file
//! fetched. Only the modules the entry reaches are kept.

use std::collections::{BTreeMap, BTreeSet};

/// The scheme of the modules' names in the page's import map.
pub const SCHEME: &str = "arbiter-sdk:/";

/// `path` joined to the folder of `from` (both `/`-separated, relative to the view folder),
/// `..` and `.` resolved; `None` above the view folder.
pub fn resolve(from: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    if path.starts_with('/') {
        parts.clear();
    }
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Whether the byte before `at` can end an identifier or a member access (then a word found at
/// `at` is part of a longer name: `platform`, `x.import`).
fn joined_before(text: &[u8], at: usize) -> bool {
    at > 0 && {
        let b = text[at - 1];
        b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.'
    }
}

/// `text` (the module at `path`) with each relative import that names a module in `exists`
/// renamed to [`SCHEME`] and that module's path; and the modules it names. Imports are found as
/// `from '...'`, `import '...'` and `import('...')` with any spaces between.
pub fn rewrite(path: &str, text: &str, exists: &dyn Fn(&str) -> bool) -> (String, Vec<String>) {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 64);
    let mut deps = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let word = if bytes[i..].starts_with(b"from") {
            4
        } else if bytes[i..].starts_with(b"import") {
            6
        } else {
            i += 1;
            continue;
        };
        let after = i + word;
        let alone = !joined_before(bytes, i)
            && bytes
                .get(after)
                .is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$'));
        if !alone {
            i = after;
            continue;
        }
        let mut j = after;
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        if word == 6 && bytes.get(j) == Some(&b'(') {
            j += 1;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
        }
        let Some(&quote) = bytes.get(j).filter(|q| **q == b'\'' || **q == b'"') else {
            i = after;
            continue;
        };
        let start = j + 1;
        let Some(len) = bytes[start..]
            .iter()
            .position(|&b| b == quote || b == b'\n')
        else {
            break;
        };
        let spec = &text[start..start + len];
        let end = start + len;
        let relative = spec.starts_with("./") || spec.starts_with("../") || spec.starts_with('/');
        if let Some(target) = relative.then(|| resolve(path, spec)).flatten() {
            if exists(&target) {
                out.push_str(&text[copied..start]);
                out.push_str(SCHEME);
                out.push_str(&target);
                copied = end;
                deps.push(target);
            }
        }
        i = end;
    }
    out.push_str(&text[copied..]);
    (out, deps)
}

/// The modules `entry` reaches through its imports, each rewritten ([`rewrite`]); `text` gives
/// a module's text (`None`: not a module of the view).
pub fn reachable(entry: &str, text: &dyn Fn(&str) -> Option<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut seen = BTreeSet::new();
    let mut todo = vec![entry.to_string()];
    let exists = |p: &str| p.ends_with(".js") && text(p).is_some();
    while let Some(path) = todo.pop() {
        if !seen.insert(path.clone()) {
            continue;
        }
        let Some(source) = text(&path) else { continue };
        let (rewritten, deps) = rewrite(&path, &source, &exists);
        todo.extend(deps);
        out.insert(path, rewritten);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_imports_are_named_absolutely_and_the_rest_is_left() {
        let exists = |p: &str| {
            [
                "config.js",
                "core/utils.js",
                "core/Drawer.js",
                "lib/x.js",
                "graphics/hex.js",
            ]
            .contains(&p)
        };
        let text = "import { a } from '../config.js'\n\
                    import * as u from \"./utils.js\";\n\
                    export { b } from  './utils.js'\n\
                    import '../lib/x.js'\n\
                    const m = import ( '../graphics/hex.js' )\n\
                    import { gone } from './missing.js'\n\
                    import PIXI from 'pixi.js'\n\
                    const platform = 'from ./utils.js'; x.import('./utils.js')\n";
        let (out, deps) = rewrite("core/Drawer.js", text, &exists);
        assert_eq!(
            out,
            "import { a } from 'arbiter-sdk:/config.js'\n\
             import * as u from \"arbiter-sdk:/core/utils.js\";\n\
             export { b } from  'arbiter-sdk:/core/utils.js'\n\
             import 'arbiter-sdk:/lib/x.js'\n\
             const m = import ( 'arbiter-sdk:/graphics/hex.js' )\n\
             import { gone } from './missing.js'\n\
             import PIXI from 'pixi.js'\n\
             const platform = 'from ./utils.js'; x.import('./utils.js')\n"
        );
        assert_eq!(
            deps,
            [
                "config.js",
                "core/utils.js",
                "core/utils.js",
                "lib/x.js",
                "graphics/hex.js"
            ]
        );
        assert_eq!(resolve("a/b/c.js", "../../d.js").as_deref(), Some("d.js"));
        assert_eq!(resolve("a/c.js", "../../d.js"), None);
        assert_eq!(resolve("a/c.js", "/d.js").as_deref(), Some("d.js"));
    }

    #[test]
    fn only_the_modules_the_entry_reaches_are_kept_cycles_included() {
        let files = [
            ("core/Drawer.js", "import { c } from '../config.js'"),
            (
                "config.js",
                "import { M } from './m/M.js'; export const c = 1",
            ),
            (
                "m/M.js",
                "import { c } from '../config.js'; export class M {}",
            ),
            ("unused.js", "export const u = 1"),
        ];
        let text = |p: &str| {
            files
                .iter()
                .find(|(n, _)| *n == p)
                .map(|(_, t)| t.to_string())
        };
        let kept = reachable("core/Drawer.js", &text);
        let names: Vec<&str> = kept.keys().map(String::as_str).collect();
        assert_eq!(names, ["config.js", "core/Drawer.js", "m/M.js"]);
        assert_eq!(
            kept["m/M.js"],
            "import { c } from 'arbiter-sdk:/config.js'; export class M {}"
        );
    }
}
