//! The shape of the code (issues 10 and 39): modules depend on one another
//! one way only, so the pipeline of SPEC 1 reads top-down; every folder and
//! file at the top of `src/` has its stage, and a stage imports only its
//! own and the stages below it.

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
    crate_paths(text)
        .iter()
        .filter_map(|path| module_of_path(path))
        .collect()
}

/// Every `crate::` path the code of a file names (tests and comments
/// aside), each item of a `crate::{a, b::c}` group on its own.
fn crate_paths(text: &str) -> Vec<String> {
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut all = Vec::new();
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
        all.extend(paths.into_iter().map(str::to_owned));
    }
    all
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
        "verify::builtin",
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

/// The stages of SPEC 1, lowest first, and the top-level modules of `src/`
/// (folders and files) in each. A module imports only modules of its own
/// stage and of the stages below it; the import cycles within a stage are
/// the test above's. `git` measures what the classifier asks it to (a
/// rule's `Facts`, the `Reading` of a staged change), so it sits above the
/// pure classifier it serves, as the verifiers do.
const STAGES: &[(&str, &[&str])] = &[
    (
        "helpers",
        &["text", "files", "env", "glob", "vocab", "store", "exit"],
    ),
    ("platform", &["platform"]),
    ("input", &["input", "config", "trust"]),
    ("facts", &["facts"]),
    ("tier", &["classify", "operation"]),
    ("measure", &["git", "parent", "undo"]),
    ("verifiers", &["verify"]),
    ("decision", &["policy"]),
    ("interaction", &["interact"]),
    ("audit", &["audit"]),
    ("install", &["install", "agent"]),
    ("the runner", &["context", "runner"]),
    ("the command line", &["cli"]),
    ("doors", &["doors"]),
    ("commands", &["commands"]),
];

/// Arrows up that are still there, each with the path it names: what the
/// doors take from `commands/` moves to `install/`, `classify/` and
/// `undo/` once the issues that touch those files have landed (issue 39
/// item 2). An arrow that is gone must leave this list.
const ALLOWED_UP: &[(&str, &str)] = &[("doors", "commands::setup"), ("doors", "commands::check")];

/// The stage of a top-level module: its index in [`STAGES`] and its name.
fn stage_of(module: &str) -> Option<(usize, &'static str)> {
    STAGES
        .iter()
        .enumerate()
        .find(|(_, (_, modules))| modules.contains(&module))
        .map(|(i, (name, _))| (i, *name))
}

/// The first two words of a `crate::` path (`commands::setup`), or one
/// for a path to an item (`ExitStatus`).
fn head_of(path: &str) -> String {
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_')
            .collect()
    };
    let first = word(path);
    let second = path[first.len()..]
        .strip_prefix("::")
        .map(word)
        .unwrap_or_default();
    if first.is_empty() || second.is_empty() {
        first
    } else {
        format!("{first}::{second}")
    }
}

#[test]
fn every_folder_and_file_has_a_stage_and_no_stage_imports_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // Every folder and file at the top has its stage.
    let mut unplaced = Vec::new();
    for entry in fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
        if module && !matches!(name.as_str(), "lib" | "main") && stage_of(&name).is_none() {
            unplaced.push(name);
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules with no stage in tests/it/layout.rs's STAGES: {unplaced:?}"
    );
    // Every import of every file goes down, or stays in its stage.
    let mut up = Vec::new();
    let mut used = BTreeSet::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&src).unwrap();
            let top = rel.iter().next().unwrap().to_string_lossy();
            let top = top.trim_end_matches(".rs");
            if matches!(top, "lib" | "main") {
                continue;
            }
            let (from, from_name) = stage_of(top).unwrap();
            for path in crate_paths(&fs::read_to_string(src.join(rel)).unwrap()) {
                let head = head_of(&path);
                let target = head.split("::").next().unwrap_or_default();
                let Some((to, to_name)) = stage_of(target) else {
                    continue;
                };
                if to <= from {
                    continue;
                }
                if ALLOWED_UP.contains(&(top, head.as_str())) {
                    used.insert((top.to_owned(), head.clone()));
                    continue;
                }
                up.push(format!(
                    "`src/{}` imports `crate::{head}`: {top} ({from_name}) -> {target} ({to_name}) is an arrow up",
                    rel.display()
                ));
            }
        }
    }
    up.sort();
    up.dedup();
    assert!(up.is_empty(), "arrows up:\n{}", up.join("\n"));
    for (from, to) in ALLOWED_UP {
        assert!(
            used.contains(&((*from).to_owned(), (*to).to_owned())),
            "the arrow `{from} -> {to}` is gone: take it off ALLOWED_UP in tests/it/layout.rs"
        );
    }
}

/// The check itself: an import up is named with its file and stages, an
/// import down is not.
#[test]
fn an_arrow_up_is_named() {
    assert_eq!(head_of("commands::setup::put_back"), "commands::setup");
    assert_eq!(head_of("ExitStatus"), "");
    assert_eq!(head_of("exit::ExitStatus"), "exit");
    assert_eq!(head_of("commands as _;\nfn f() {}"), "commands");
    let classify = stage_of("classify").unwrap().0;
    assert!(
        stage_of("verify").unwrap().0 > classify,
        "verify is above classify"
    );
    assert!(
        stage_of("config").unwrap().0 < classify,
        "config is below classify"
    );
    assert!(stage_of("doors").unwrap().0 < stage_of("commands").unwrap().0);
    let heads: Vec<String> = crate_paths(
        "use crate::{exit::ExitStatus, interact::ui};\nfn f() { crate::verify::verdict::combine(&[]); }",
    )
    .iter()
    .map(|p| head_of(p))
    .collect();
    assert_eq!(heads, ["exit", "interact::ui", "verify::verdict"]);
}
