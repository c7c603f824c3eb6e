//! PURE: task runners read as the recipes they run (issue 37 item 2):
//! `make` (a Makefile's recipes, with their prerequisites), `npm`/`yarn`/
//! `pnpm`/`bun` (a `package.json` script, with its `pre` and `post`
//! scripts), `just` (a justfile's recipe) and `task` (a Taskfile's
//! commands). The file is read as it will be when it runs: written earlier
//! on the line (`printf ... > Makefile && make`), or read through the
//! caller's reader. A file the line writes with content vouch cannot read
//! (`curl -o Makefile ...`, `python3 gen.py > Makefile`) is the agent's own
//! fresh creation: judged as a program only known when it runs. A project's
//! own file is judged by what it runs, so `make test` and `npm run build`
//! stay free.

use std::collections::{HashMap, HashSet};

use super::{ParseProblem, Parser, SimpleCommand};

/// The files task runners read.
pub(super) const TASK_FILES: &[&str] = &[
    "Makefile",
    "makefile",
    "GNUmakefile",
    "package.json",
    "justfile",
    "Justfile",
    ".justfile",
    "Taskfile.yml",
    "Taskfile.yaml",
    "taskfile.yml",
    "taskfile.yaml",
];

/// The most recipes one run reads (prerequisites included).
const MAX_RECIPES: usize = 64;

impl Parser<'_> {
    /// Judges what a task runner runs, when `program` is one.
    pub(super) fn task_runner(&mut self, program: &str, command: &SimpleCommand, depth: usize) {
        let args = &command.argv[1..];
        let mut cd = command.cd.clone();
        let script = match program {
            "make" | "gmake" => self.make(args, &mut cd),
            "npm" | "yarn" | "pnpm" | "bun" => self.package_scripts(program, args, &cd),
            "just" => self.justfile(args, &cd),
            "task" | "go-task" => self.taskfile(args, &cd),
            _ => None,
        };
        if let Some(script) = script
            && !script.trim().is_empty()
        {
            self.script(&script, depth + 1, &cd);
        }
    }

    /// The text of the first of `names` there is, as it will be when the
    /// runner reads it; `None` when there is none. A file the line wrote
    /// with content vouch cannot read is a problem.
    fn task_file(&mut self, names: &[&str], cd: &[String]) -> Option<String> {
        for name in names {
            if let Some(text) = self.written_text(name) {
                return Some(text);
            }
            if self.written_unknown.contains(name.trim_start_matches("./")) {
                self.problem(ParseProblem::FreshScript {
                    path: (*name).to_owned(),
                });
                return None;
            }
            // A project's own file vouch cannot read (too large) is not
            // judged: its everyday tasks stay free.
            if let Ok(Some(text)) = (self.scripts)(name, cd) {
                return Some(text);
            }
        }
        None
    }

    fn make(&mut self, args: &[String], cd: &mut Vec<String>) -> Option<String> {
        let mut files: Vec<String> = Vec::new();
        let mut targets: Vec<String> = Vec::new();
        let mut vars: HashMap<String, String> = HashMap::new();
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            i += 1;
            match arg.as_str() {
                "-n" | "--dry-run" | "--just-print" | "--recon" | "-q" | "--question" | "-p"
                | "--print-data-base" | "-v" | "--version" | "-h" | "--help" => return None,
                "-f" | "--file" | "--makefile" => {
                    files.extend(args.get(i).cloned());
                    i += 1;
                }
                "-C" | "--directory" => {
                    cd.extend(args.get(i).cloned());
                    i += 1;
                }
                "-j" | "-l" | "-o" | "-W" | "-I" | "--jobs" | "--load-average" => {
                    // `-j` may stand alone.
                    if args
                        .get(i)
                        .is_some_and(|a| a.chars().all(|c| c.is_ascii_digit()))
                        || !matches!(arg.as_str(), "-j" | "--jobs" | "-l")
                    {
                        i += 1;
                    }
                }
                a if a.starts_with("-f") && a.len() > 2 => files.push(a[2..].to_owned()),
                a if a.starts_with("-C") && a.len() > 2 => cd.push(a[2..].to_owned()),
                a if a.starts_with("--file=") || a.starts_with("--makefile=") => {
                    files.push(
                        a.split_once('=')
                            .map(|(_, v)| v.to_owned())
                            .unwrap_or_default(),
                    );
                }
                a if a.starts_with('-') => {}
                a => match a.split_once('=') {
                    Some((name, value)) if !name.is_empty() => {
                        vars.insert(name.to_owned(), value.to_owned());
                    }
                    _ => targets.push(a.to_owned()),
                },
            }
        }
        let names: Vec<&str> = if files.is_empty() {
            vec!["GNUmakefile", "makefile", "Makefile"]
        } else {
            files.iter().map(String::as_str).collect()
        };
        let text = self.task_file(&names, cd)?;
        Some(make_recipes(&text, &targets, vars))
    }

    fn package_scripts(&mut self, program: &str, args: &[String], cd: &[String]) -> Option<String> {
        let words: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .take_while(|a| *a != "--")
            .filter(|a| !a.starts_with('-'))
            .collect();
        let names: Vec<String> = match (program, words.as_slice()) {
            (_, ["run" | "run-script" | "rum" | "urn", name, ..]) => vec![(*name).to_owned()],
            ("npm" | "pnpm", ["test" | "t" | "tst", ..]) => vec!["test".into()],
            ("npm" | "pnpm" | "yarn" | "bun", ["start" | "stop" | "restart", ..]) => {
                vec![words[0].to_owned()]
            }
            ("npm", ["install" | "i" | "ci" | "add", ..]) | ("yarn", []) => {
                vec!["install".into(), "prepare".into()]
            }
            ("yarn" | "pnpm" | "bun", [name, ..]) if !PACKAGE_BUILTINS.contains(name) => {
                vec![(*name).to_owned()]
            }
            ("yarn", ["test", ..]) => vec!["test".into()],
            _ => return None,
        };
        let text = self.task_file(&["package.json"], cd)?;
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
            return None;
        };
        let scripts = json.get("scripts")?;
        let mut out = Vec::new();
        for name in names {
            for each in [format!("pre{name}"), name.clone(), format!("post{name}")] {
                if let Some(script) = scripts.get(&each).and_then(serde_json::Value::as_str) {
                    out.push(script.to_owned());
                }
            }
        }
        Some(out.join("\n"))
    }

    fn justfile(&mut self, args: &[String], cd: &[String]) -> Option<String> {
        let recipes: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .filter(|a| !a.starts_with('-'))
            .collect();
        let text = self.task_file(&["justfile", "Justfile", ".justfile"], cd)?;
        Some(just_recipes(&text, recipes.first().copied()))
    }

    fn taskfile(&mut self, args: &[String], cd: &[String]) -> Option<String> {
        let tasks: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .take_while(|a| *a != "--")
            .filter(|a| !a.starts_with('-'))
            .collect();
        let text = self.task_file(
            &[
                "Taskfile.yml",
                "Taskfile.yaml",
                "taskfile.yml",
                "taskfile.yaml",
            ],
            cd,
        )?;
        let tasks = if tasks.is_empty() {
            vec!["default"]
        } else {
            tasks
        };
        Some(
            tasks
                .iter()
                .map(|t| task_commands(&text, t))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    }
}

/// The subcommands of yarn, pnpm and bun that are not a package's scripts.
const PACKAGE_BUILTINS: &[&str] = &[
    "add",
    "install",
    "i",
    "remove",
    "rm",
    "upgrade",
    "up",
    "update",
    "init",
    "info",
    "why",
    "link",
    "unlink",
    "list",
    "ls",
    "outdated",
    "pack",
    "publish",
    "login",
    "logout",
    "cache",
    "config",
    "create",
    "dlx",
    "exec",
    "x",
    "global",
    "bin",
    "import",
    "audit",
    "version",
    "versions",
    "workspace",
    "workspaces",
    "store",
    "setup",
    "env",
    "fetch",
    "patch",
    "help",
    "node",
    "plugin",
    "set",
    "constraints",
    "dedupe",
    "explain",
    "npm",
    "rebuild",
    "prune",
    "licenses",
    "server",
    "test",
    "pm",
    "upgrade-interactive",
];

/// Make's variables with the values make gives them unless a Makefile does.
const MAKE_DEFAULTS: &[(&str, &str)] = &[
    ("RM", "rm -f"),
    ("MAKE", "make"),
    ("CC", "cc"),
    ("CXX", "g++"),
    ("AR", "ar"),
    ("SHELL", "/bin/sh"),
    ("MAKEFLAGS", ""),
];

/// The recipes `targets` (the default goal when empty) run, with their
/// prerequisites', in the order make runs them, make's variables
/// expanded (`$$` is `$`; a variable with no known value is empty).
pub(super) fn make_recipes(
    text: &str,
    targets: &[String],
    mut vars: HashMap<String, String>,
) -> String {
    let text = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut rules: HashMap<String, (Vec<String>, Vec<String>)> = HashMap::new();
    let mut first: Option<String> = None;
    let mut current: Vec<String> = Vec::new();
    let mut assigned: HashMap<String, String> = HashMap::new();
    for line in text.lines() {
        if let Some(recipe) = line.strip_prefix('\t') {
            for target in &current {
                if let Some(rule) = rules.get_mut(target) {
                    rule.1.push(recipe.to_owned());
                }
            }
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        current.clear();
        // An assignment: `A = b`, `A := b`, `A ?= b`, `A += b`, `export A = b`.
        let body = trimmed.strip_prefix("export ").unwrap_or(trimmed);
        if let Some(at) = body.find('=') {
            let before = &body[..at];
            let colon = before.find(':');
            let is_assignment = match colon {
                None => true,
                // `A := b`, `A ::= b`.
                Some(c) => before[c..].chars().all(|ch| ch == ':'),
            };
            if is_assignment {
                let name = before.trim_end_matches([':', '?', '+', '!']).trim();
                if !name.contains(char::is_whitespace) && !name.is_empty() {
                    let value = body[at + 1..].trim().to_owned();
                    let value = if before.ends_with('+') {
                        format!(
                            "{} {value}",
                            assigned.get(name).cloned().unwrap_or_default()
                        )
                    } else {
                        value
                    };
                    assigned.insert(name.to_owned(), value);
                    continue;
                }
            }
        }
        let Some((names, rest)) = trimmed.split_once(':') else {
            continue;
        };
        let rest = rest.trim_start_matches(':');
        let (prereqs, inline) = match rest.split_once(';') {
            Some((p, r)) => (p, Some(r.trim())),
            None => (rest, None),
        };
        let prereqs: Vec<String> = prereqs
            .split('|')
            .flat_map(str::split_whitespace)
            .map(str::to_owned)
            .collect();
        for name in names.split_whitespace() {
            if name == ".DEFAULT_GOAL" {
                continue;
            }
            if first.is_none() && !name.starts_with('.') && !name.contains('%') {
                first = Some(name.to_owned());
            }
            let rule = rules.entry(name.to_owned()).or_default();
            rule.0.extend(prereqs.iter().cloned());
            if let Some(inline) = inline.filter(|r| !r.is_empty()) {
                rule.1.push(inline.to_owned());
            }
            current.push(name.to_owned());
        }
    }
    for (name, value) in assigned {
        vars.entry(name).or_insert(value);
    }
    for (name, value) in MAKE_DEFAULTS {
        vars.entry((*name).to_owned())
            .or_insert_with(|| (*value).to_owned());
    }
    let goal = vars.get(".DEFAULT_GOAL").cloned().or(first);
    let wanted: Vec<String> = if targets.is_empty() {
        goal.into_iter().collect()
    } else {
        targets.to_vec()
    };
    let mut seen: HashSet<String> = HashSet::new();
    let mut out: Vec<String> = Vec::new();
    let mut stack: Vec<(String, bool)> = wanted.into_iter().rev().map(|t| (t, false)).collect();
    while let Some((target, expanded)) = stack.pop() {
        if seen.len() > MAX_RECIPES {
            break;
        }
        let Some((prereqs, recipe)) = rules.get(&target) else {
            continue;
        };
        if expanded {
            for line in recipe {
                let line = line.trim_start_matches(['@', '-', '+', ' ']);
                out.push(expand_make(line, &vars, &target, prereqs));
            }
            continue;
        }
        if !seen.insert(target.clone()) {
            continue;
        }
        stack.push((target.clone(), true));
        for p in prereqs.iter().rev() {
            if !seen.contains(p) {
                stack.push((p.clone(), false));
            }
        }
    }
    out.join("\n")
}

/// `line` with make's variables expanded: `$$` is `$`, `$@` the target,
/// `$<`/`$^` the prerequisites, `$(X)`/`${X}` a variable's value (empty
/// when unknown), a few levels deep.
fn expand_make(
    line: &str,
    vars: &HashMap<String, String>,
    target: &str,
    prereqs: &[String],
) -> String {
    let mut text = line.to_owned();
    for _ in 0..4 {
        let mut out = String::with_capacity(text.len());
        let mut chars = text.char_indices().peekable();
        let mut changed = false;
        while let Some((at, c)) = chars.next() {
            if c != '$' {
                out.push(c);
                continue;
            }
            match chars.peek().map(|(_, n)| *n) {
                Some('$') => {
                    chars.next();
                    // Kept escaped until the last pass.
                    out.push_str("$$");
                }
                Some('@') => {
                    chars.next();
                    out.push_str(target);
                    changed = true;
                }
                Some('<') => {
                    chars.next();
                    out.push_str(prereqs.first().map_or("", String::as_str));
                    changed = true;
                }
                Some('^') => {
                    chars.next();
                    out.push_str(&prereqs.join(" "));
                    changed = true;
                }
                Some(open @ ('(' | '{')) => {
                    let close = if open == '(' { ')' } else { '}' };
                    let rest = &text[at + 2..];
                    let Some(end) = rest.find(close) else {
                        out.push(c);
                        continue;
                    };
                    let name = &rest[..end];
                    out.push_str(vars.get(name.trim()).map_or("", String::as_str));
                    changed = true;
                    for _ in 0..name.chars().count() + 2 {
                        chars.next();
                    }
                }
                _ => out.push(c),
            }
        }
        text = out;
        if !changed {
            break;
        }
    }
    text.replace("$$", "$")
}

/// The body of justfile recipe `name` (the first recipe when `None`),
/// after its dependencies' bodies.
pub(super) fn just_recipes(text: &str, name: Option<&str>) -> String {
    let mut recipes: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(last) = recipes.last_mut() {
                let body = line.trim().trim_start_matches(['@', '-']);
                if !body.is_empty() && !body.starts_with('#') {
                    last.2.push(body.to_owned());
                }
            }
            continue;
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('[') {
            continue;
        }
        if trimmed.contains(":=") || trimmed.starts_with("set ") || trimmed.starts_with("alias ") {
            continue;
        }
        let Some((head, deps)) = trimmed.split_once(':') else {
            continue;
        };
        let head = head.trim_start_matches('@');
        let Some(recipe) = head.split_whitespace().next() else {
            continue;
        };
        let deps = deps.split_whitespace().map(str::to_owned).collect();
        recipes.push((recipe.to_owned(), deps, Vec::new()));
    }
    let start = match name {
        Some(n) => n.to_owned(),
        None => match recipes.first() {
            Some(r) => r.0.clone(),
            None => return String::new(),
        },
    };
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![(start, false)];
    while let Some((recipe, expanded)) = stack.pop() {
        let Some((_, deps, body)) = recipes.iter().find(|r| r.0 == recipe) else {
            continue;
        };
        if expanded {
            out.extend(body.iter().cloned());
            continue;
        }
        if !seen.insert(recipe.clone()) || seen.len() > MAX_RECIPES {
            continue;
        }
        stack.push((recipe, true));
        for dep in deps.iter().rev() {
            stack.push((dep.clone(), false));
        }
    }
    out.join("\n")
}

/// The commands of task `name` in a Taskfile: under `tasks:`, the lines
/// of its block that are list items (`- git ...`) or `cmd:` values.
pub(super) fn task_commands(text: &str, name: &str) -> String {
    let mut out = Vec::new();
    let mut in_tasks = false;
    let mut block: Option<usize> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if indent == 0 {
            in_tasks = trimmed == "tasks:";
            block = None;
            continue;
        }
        if !in_tasks {
            continue;
        }
        if let Some(at) = block {
            if indent <= at {
                block = None;
            } else {
                let item = trimmed.strip_prefix("- ").unwrap_or(trimmed);
                let item = item.strip_prefix("cmd:").map_or(item, str::trim);
                let is_key = item.split_once(':').is_some_and(|(k, _)| {
                    !k.contains(char::is_whitespace)
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
                if trimmed.starts_with("- ") && !is_key || trimmed.starts_with("cmd:") {
                    out.push(unquote(item).to_owned());
                }
                continue;
            }
        }
        let key = trimmed.trim_end_matches(':');
        if trimmed.ends_with(':') && unquote(key) == name {
            block = Some(indent);
        }
    }
    out.join("\n")
}

fn unquote(text: &str) -> &str {
    let t = text.trim();
    for q in ['"', '\''] {
        if let Some(inner) = t.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_runs_the_goal_with_its_prerequisites() {
        let text = "GIT := git\nall: build\n\t@echo done\nbuild: gen\n\t$(GIT) clean -fdx\ngen:\n\t-$(RM) -r out\nclean:\n\trm -rf .git\n";
        assert_eq!(
            make_recipes(text, &[], HashMap::new()),
            "rm -f -r out\ngit clean -fdx\necho done"
        );
        assert_eq!(
            make_recipes(text, &["clean".into()], HashMap::new()),
            "rm -rf .git"
        );
        assert_eq!(
            make_recipes("x:\n\techo $$HOME $(UNSET)\n", &[], HashMap::new()),
            "echo $HOME "
        );
    }

    #[test]
    fn just_and_task_read_the_named_recipe() {
        let just = "default: test\n\ntest:\n    cargo test\n\nwipe: test\n    @git clean -fdx\n";
        assert_eq!(
            just_recipes(just, Some("wipe")),
            "cargo test\ngit clean -fdx"
        );
        assert_eq!(just_recipes(just, None), "cargo test");
        let task = "version: '3'\ntasks:\n  build:\n    cmds:\n      - go build ./...\n  wipe:\n    deps: [build]\n    cmds:\n      - git reset --hard\n      - cmd: rm -rf .git\n";
        assert_eq!(task_commands(task, "wipe"), "git reset --hard\nrm -rf .git");
        assert_eq!(task_commands(task, "build"), "go build ./...");
    }
}
