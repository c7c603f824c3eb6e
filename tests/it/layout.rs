//! The shape of the code (issues 10 and 39): modules depend on one another
//! one way only, so the pipeline of SPEC 1 reads top-down; every folder and
//! file at the top of `src/` has its stage, and a stage imports only its
//! own and the stages below it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The units the cycle and purity checks count, besides each top-level
/// folder as a whole: a folder's part that has a character of its own
/// (`verify::verdict` and `interact::report` are pure, `verify::programs`
/// runs programs, `interact::ui` prints; `classify::config` is read by the
/// rest of `classify`; `measure::git` is the only git2 user). A `*` takes
/// each submodule of the folder as a unit.
const UNITS: &[&str] = &[
    "platform::env",
    "platform::files",
    "input::text",
    "classify::shell",
    "classify::config",
    "classify::facts",
    "classify::operation",
    "classify::vocab",
    "classify::glob",
    "measure::git",
    "measure::parent",
    "verify::*",
    "interact::*",
    "install::agent",
    "install::agent::*",
    "doors::context",
    "doors::runner",
    "doors::exit",
    "commands::cli",
];

/// The unit of a module path given as its words (`["classify", "config",
/// "rule"]` is `classify::config`).
fn unit_of(words: &[&str]) -> Option<String> {
    let top = *words.first()?;
    if top.is_empty() || matches!(top, "lib" | "main") {
        return None;
    }
    let mut best = top.to_owned();
    for unit in UNITS {
        let parts: Vec<&str> = unit.split("::").collect();
        if words.len() < parts.len() {
            continue;
        }
        let fits = parts.iter().zip(words).all(|(p, w)| *p == "*" || p == w);
        if fits && parts.len() > best.matches("::").count() + 1 {
            best = words[..parts.len()].join("::");
        }
    }
    Some(best)
}

/// The unit a source file belongs to (`src/classify/config/rule.rs` is
/// `classify::config`).
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
    unit_of(&parts)
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

/// The unit a `crate::` path names.
fn module_of_path(path: &str) -> Option<String> {
    let words: Vec<String> = path
        .split("::")
        .map(|w| {
            w.chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect()
        })
        .take_while(|w: &String| !w.is_empty())
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    unit_of(&words)
}

/// Every `.rs` file under `src/`: its path relative to `src/`, and its text.
fn sources() -> Vec<(PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = fs::read_to_string(&path).unwrap();
                out.push((path.strip_prefix(&src).unwrap().to_path_buf(), text));
            }
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in sources() {
        let Some(module) = module_of(&rel) else {
            continue;
        };
        let deps = dependencies(&text);
        let entry = graph.entry(module.clone()).or_default();
        entry.extend(deps.into_iter().filter(|d| *d != module));
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
    assert!(graph.contains_key("decide") && graph.contains_key("install::agent::protocol"));
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
        "measure::git",
        "verify::provider",
        "verify::programs",
        "verify::ai",
        "interact::prompt",
        "interact::ui",
        "install",
        "doors::context",
        "commands",
        "undo",
    ];
    for pure in PURE {
        let deps = &graph[*pure];
        for adapter in adapters {
            assert!(!deps.contains(adapter), "`{pure}` uses `{adapter}`");
        }
    }
}

/// The units that touch no git, file, process, network or terminal.
const PURE: &[&str] = &[
    "decide",
    "verify::verdict",
    "verify::builtin",
    "classify::vocab",
    "classify::operation",
    "verify::store",
    "input",
    "install::agent::protocol",
    "classify",
    "classify::shell",
    "classify::config",
    "classify::facts",
    "classify::glob",
    "input::text",
];

/// Nor do they reach the outside world themselves: no file of a pure unit
/// names the file system, processes, git2 or the network in its code.
#[test]
fn the_pure_modules_name_no_outside_world() {
    let mut found = Vec::new();
    for (rel, text) in sources() {
        if module_of(&rel).is_none_or(|unit| !PURE.contains(&unit.as_str())) {
            continue;
        }
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for outside in ["std::fs", "std::process", "git2::", "ureq::", "std::net"] {
                if line.contains(outside) {
                    found.push(format!("`src/{}` names `{outside}`", rel.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "pure modules reaching outside:\n{}",
        found.join("\n")
    );
}

/// The stages of SPEC 1, lowest first, and the top-level folder of `src/`
/// of each (issue 39: at most twelve, and nothing else at the top but
/// `lib.rs` and `main.rs`). A folder imports only its own stage and the
/// stages below it; the import cycles within a stage are the test above's.
/// `measure` measures what the classifier asks it to (a rule's `Facts`,
/// the `Reading` of a staged change) into `classify::facts`' types, so it
/// sits above the pure classifier it serves, as the verifiers do.
const STAGES: &[(&str, &[&str])] = &[
    ("platform", &["platform"]),
    ("input", &["input"]),
    ("tier", &["classify"]),
    ("facts", &["measure"]),
    ("undo", &["undo"]),
    ("verifiers", &["verify"]),
    ("decision", &["decide"]),
    ("interaction", &["interact"]),
    ("audit", &["audit"]),
    ("install", &["install"]),
    ("doors", &["doors"]),
    ("commands", &["commands"]),
];

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
    let (mut unplaced, mut tops) = (Vec::new(), Vec::new());
    for entry in fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
        if !module || matches!(name.as_str(), "lib" | "main") {
            continue;
        }
        if stage_of(&name).is_none() {
            unplaced.push(name.clone());
        }
        tops.push(name);
    }
    tops.sort();
    assert!(
        tops.len() <= 12,
        "at most twelve top-level modules in src/ (issue 39), there are {}: {tops:?}",
        tops.len()
    );
    assert!(
        unplaced.is_empty(),
        "modules with no stage in tests/it/layout.rs's STAGES: {unplaced:?}"
    );
    // Every import of every file goes down, or stays in its stage.
    let mut up = Vec::new();
    for (rel, text) in sources() {
        let top = rel.iter().next().unwrap().to_string_lossy();
        let top = top.trim_end_matches(".rs");
        if matches!(top, "lib" | "main") {
            continue;
        }
        let (from, from_name) = stage_of(top).unwrap();
        for path in crate_paths(&text) {
            let head = head_of(&path);
            let target = head.split("::").next().unwrap_or_default();
            let Some((to, to_name)) = stage_of(target) else {
                continue;
            };
            if to <= from {
                continue;
            }
            up.push(format!(
                "`src/{}` imports `crate::{head}`: {top} ({from_name}) -> {target} ({to_name}) is an arrow up",
                rel.display()
            ));
        }
    }
    up.sort();
    up.dedup();
    assert!(up.is_empty(), "arrows up:\n{}", up.join("\n"));
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
        stage_of("input").unwrap().0 < classify,
        "input is below classify"
    );
    assert!(
        stage_of("measure").unwrap().0 > classify,
        "measure is above classify"
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
