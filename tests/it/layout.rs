//! The shape of the code (issue 10): modules depend on one another one way
//! only, so the pipeline of SPEC 1 reads top-down.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The module a source file belongs to: its top-level module (a folder
/// counts whole: `input/` is pure, all of it), and for `agent/`,
/// `verify/` and `interact/` the submodule (`agent::protocol`,
/// `verify::verdict` and `interact::report` are pure, `agent::settings`
/// writes files, `verify::programs` runs them, `interact::ui` prints).
/// `classify/shell/` counts whole on its own: the command reader, which
/// `config` reads user rules with, while the rest of `classify` reads
/// `config`.
fn module_of(rel: &Path) -> Option<String> {
    let parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let parts: Vec<&str> = parts
        .iter()
        .map(String::as_str)
        .filter(|p| *p != "mod" && *p != "tests")
        .collect();
    match parts.as_slice() {
        ["lib" | "main"] | [] => None,
        [top @ ("agent" | "verify" | "interact"), sub, ..]
        | [top @ "classify", sub @ "shell", ..] => Some(format!("{top}::{sub}")),
        [top, ..] => Some((*top).to_owned()),
    }
}

fn dependencies(text: &str) -> BTreeSet<String> {
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut deps = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        // `crate::{a, b::c}`: each item of the group is a path of its own.
        let paths: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => {
                let mut depth = 0;
                let end = group
                    .char_indices()
                    .find(|&(_, c)| {
                        depth += i32::from(c == '{') - i32::from(c == '}');
                        depth < 0
                    })
                    .map_or(group.len(), |(at, _)| at);
                let mut items = Vec::new();
                let (mut depth, mut start) = (0, 0);
                for (at, c) in group[..end].char_indices() {
                    depth += i32::from(c == '{') - i32::from(c == '}');
                    if c == ',' && depth == 0 {
                        items.push(group[start..at].trim());
                        start = at + 1;
                    }
                }
                items.push(group[start..end].trim());
                items
            }
            None => vec![rest],
        };
        for path in paths {
            if let Some(module) = module_of_path(path) {
                deps.insert(module);
            }
        }
    }
    deps
}

/// The module a `crate::` path names (its first word, and for the folders
/// counted by submodule, its second).
fn module_of_path(path: &str) -> Option<String> {
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect()
    };
    let top = word(path);
    if top.is_empty() {
        return None;
    }
    if matches!(top.as_str(), "agent" | "verify" | "interact" | "classify") {
        let sub = word(path[top.len()..].strip_prefix("::").unwrap_or_default());
        if !sub.is_empty() && (top != "classify" || sub == "shell") {
            return Some(format!("{top}::{sub}"));
        }
    }
    Some(top)
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(&src).unwrap();
                let Some(module) = module_of(rel) else {
                    continue;
                };
                let deps = dependencies(&fs::read_to_string(&path).unwrap());
                let entry = graph.entry(module.clone()).or_default();
                entry.extend(deps.into_iter().filter(|d| *d != module));
            }
        }
    }
    graph
}

/// A path from `from` back to itself, if there is one.
fn cycle_through(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut stack = vec![(from.to_owned(), vec![from.to_owned()])];
    let mut seen = BTreeSet::new();
    while let Some((node, path)) = stack.pop() {
        for next in graph.get(&node).into_iter().flatten() {
            if next == from {
                let mut cycle = path.clone();
                cycle.push(next.clone());
                return Some(cycle);
            }
            if graph.contains_key(next) && seen.insert(next.clone()) {
                let mut p = path.clone();
                p.push(next.clone());
                stack.push((next.clone(), p));
            }
        }
    }
    None
}

#[test]
fn no_module_imports_itself_through_others() {
    let graph = graph();
    assert!(graph.contains_key("policy") && graph.contains_key("agent::protocol"));
    assert!(graph.contains_key("classify::shell"));
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|m| cycle_through(&graph, m))
        .map(|c| c.join(" -> "))
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The pure modules never reach the adapters (git2, ureq, the terminal,
/// processes, files): SPEC 1's "everything before Verifiers is pure".
#[test]
fn the_pure_modules_touch_no_adapter() {
    let graph = graph();
    let adapters = [
        "git",
        "verify::provider",
        "verify::programs",
        "verify::ai",
        "interact::prompt",
        "interact::ui",
        "install",
        "context",
        "commands",
        "undo",
    ];
    for pure in [
        "policy",
        "verify::verdict",
        "vocab",
        "operation",
        "store",
        "input",
        "agent::protocol",
        "classify",
        "classify::shell",
    ] {
        let deps = &graph[pure];
        for adapter in adapters {
            assert!(!deps.contains(adapter), "`{pure}` uses `{adapter}`");
        }
    }
}
