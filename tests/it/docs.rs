//! Issue 29 item 5: the README and `docs/` show only commands that exist,
//! and their examples run. Every line of their `sh` blocks names a program
//! that is there (git's subcommands included), and every `git vouch` line
//! parses with the command line's own definition (its subcommand, options
//! and values); a `git vouch <subcommand>` in running text names a
//! subcommand that exists; the retired program name `vouch` is never one
//! to type.
//!
//! Every `sh` block then runs, line by line, in a scratch world. The line
//! before a block may hold a marker, `<!-- example: CLAUSE; CLAUSE -->`:
//!
//! - `not run: <why>`: a block the tests cannot run (a forge, the internet,
//!   the whole suite); it is still parsed;
//! - `world NAME`: the world it runs in, built by [`build_world`] (a fresh
//!   clone with `git-vouch` on `PATH` when there is none);
//! - `exits 0 1 yes ...`: each line's exit code (all 0 when not given);
//!   `yes` runs the line at a terminal, where a person types `yes`;
//! - `scratch /PATH`: an absolute path the block names (a server's), made
//!   a directory of the scratch world.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::{CommandFactory, Parser};
use vouch::commands::cli::Cli;

/// The documents: the README and every file in `docs/`.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("a docs/ folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 5, "{docs:?}");
    files.extend(docs);
    files
}

/// The command lines of a document's `sh` blocks, with their line numbers.
fn shell_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut shell = false;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            if in_block {
                in_block = false;
            } else {
                in_block = true;
                shell = matches!(info.trim(), "sh" | "bash" | "shell");
            }
            continue;
        }
        if in_block && shell && !trimmed.is_empty() && !trimmed.starts_with('#') {
            out.push((n + 1, trimmed.to_owned()));
        }
    }
    out
}

/// The simple commands of a line: its words split at `&&`, `||`, `|` and
/// `;`, with redirections and leading `NAME=value` words left out, and a
/// `# comment` cut off.
fn simple_commands(line: &str) -> Vec<Vec<String>> {
    let code = match line.find(" # ") {
        Some(at) => &line[..at],
        None => line,
    };
    let words = shell_words::split(code).unwrap_or_else(|e| panic!("`{line}`: {e}"));
    let mut out = vec![Vec::new()];
    let mut skip_next = false;
    for word in words {
        if skip_next {
            skip_next = false;
            continue;
        }
        match word.as_str() {
            "&&" | "||" | "|" | ";" => out.push(Vec::new()),
            ">" | ">>" | "<" | "2>" | "2>&1" => skip_next = word != "2>&1",
            _ => {
                let current = out.last_mut().unwrap();
                let assignment = current.is_empty()
                    && word.split_once('=').is_some_and(|(name, _)| {
                        !name.is_empty()
                            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    });
                if !assignment {
                    current.push(word);
                }
            }
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

/// True when `program` is a program on this machine's `PATH`, a shell
/// builtin, or a file of the repository (`./install.sh`).
fn exists(program: &str, cache: &mut HashMap<String, bool>) -> bool {
    if let Some(known) = cache.get(program) {
        return *known;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = if program.starts_with("./") {
        root.join(program).is_file()
    } else {
        Command::new("sh")
            .args(["-c", &format!("command -v {}", shell_words::quote(program))])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    cache.insert(program.to_owned(), found);
    found
}

/// The git subcommand of a `git ...` command line, past `-c`/`-C` options.
fn git_subcommand(words: &[String]) -> Option<&str> {
    let mut i = 1;
    while let Some(w) = words.get(i) {
        match w.as_str() {
            "-c" | "-C" => i += 2,
            w if w.starts_with('-') => i += 1,
            w => return Some(w),
        }
    }
    None
}

fn git_knows(sub: &str, cache: &mut HashMap<String, bool>) -> bool {
    let key = format!("git {sub}");
    if let Some(known) = cache.get(&key) {
        return *known;
    }
    // An unknown command exits 1 ("is not a git command"); a known one
    // prints its usage for `-h` and exits 129.
    let known = Command::new("git")
        .args([sub, "-h"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .is_ok_and(|o| o.status.code() == Some(129));
    cache.insert(key, known);
    known
}

#[test]
fn every_command_in_the_readme_and_docs_exists_and_parses() {
    let mut cache = HashMap::new();
    let mut problems = Vec::new();
    let mut vouch_lines = 0;
    for file in documents() {
        let text = fs::read_to_string(&file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for (n, line) in shell_lines(&text) {
            for words in simple_commands(&line) {
                let program = words[0].as_str();
                let at = format!("{name}:{n}: `{line}`");
                let vouch_args = match program {
                    "git" if words.get(1).is_some_and(|w| w == "vouch") => Some(&words[2..]),
                    "git-vouch" => Some(&words[1..]),
                    "vouch" => {
                        problems.push(format!("{at}: the program is `git-vouch` (`git vouch`)"));
                        None
                    }
                    _ => None,
                };
                if let Some(args) = vouch_args {
                    vouch_lines += 1;
                    let argv = std::iter::once("git-vouch".to_owned()).chain(args.iter().cloned());
                    if let Err(e) = Cli::try_parse_from(argv) {
                        use clap::error::ErrorKind;
                        if !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                            problems.push(format!("{at}: {}", e.render()));
                        }
                    }
                } else if program == "git" {
                    match git_subcommand(&words) {
                        Some(sub) if !git_knows(sub, &mut cache) => {
                            problems.push(format!("{at}: git has no `{sub}` command"));
                        }
                        _ => {}
                    }
                } else if program != "vouch" && !exists(program, &mut cache) {
                    problems.push(format!("{at}: no program `{program}` here"));
                }
            }
        }
        // `git vouch <subcommand>` in running text and tables.
        let subcommands: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|s| s.get_name().to_owned())
            .chain(["help".to_owned()])
            .collect();
        for (at, _) in text.match_indices("`git vouch ") {
            let rest = &text[at + "`git vouch ".len()..];
            let word: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if word.starts_with('-') || word.is_empty() {
                continue;
            }
            if !subcommands.contains(&word) {
                let line = text[..at].lines().count();
                problems.push(format!(
                    "{name}:{line}: `git vouch {word}` is no subcommand"
                ));
            }
        }
    }
    assert!(vouch_lines > 20, "{vouch_lines} `git vouch` lines found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The retired recipes are gone: the forge hook runs `git-vouch`'s own
/// server hook, and husky's block calls `git-vouch`; the blocks the tests
/// cannot run are marked.
#[test]
fn forge_recipes_are_marked_and_name_git_vouch() {
    let all: String = documents()
        .iter()
        .map(|f| fs::read_to_string(f).unwrap())
        .collect();
    assert!(
        !all.contains("/usr/local/bin/vouch "),
        "the old forge recipe"
    );
    assert!(!all.contains("then vouch hook"), "the old husky block");
    assert!(
        all.contains("<!-- example: not run"),
        "the blocks the tests cannot run are marked"
    );
}

/// The README's quick start, run as a new user runs it, block by block, in
/// a fresh clone with `git vouch` on `PATH`: each line exits 0 and does
/// what the README says. The two uninstall commands want a person at a
/// terminal, who types `yes` (tmux); `cargo uninstall` and removing the
/// manual page act on the installation, not on this test's, and are
/// checked by the test above only.
#[test]
fn the_readme_quick_start_runs() {
    use crate::support::{Out, TestEnv, tmux};
    if !tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme.find("## Quick start").expect("a quick start");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let mut env = TestEnv::new();
    let bin = crate::support::vouch_bin();
    env.extra_env.push((
        "PATH".into(),
        format!(
            "{}:/usr/local/bin:/usr/bin:/bin",
            bin.parent().unwrap().display()
        ),
    ));
    // The README's config path, `~/.config/vouch`.
    env.extra_env.push((
        "XDG_CONFIG_HOME".into(),
        env.home.join(".config").display().to_string(),
    ));
    let config = env.home.join(".config/vouch/config.toml");
    let mut ran = Vec::new();
    for (_, line) in shell_lines(section) {
        let program = simple_commands(&line)[0][0].clone();
        if program == "cargo" || program == "rm" {
            continue;
        }
        if line.starts_with("VOUCH_SKIP=") && line.contains("git push --force") {
            // Step 4's push: after a rewind, as the README says, and with
            // observe mode's line removed, as step 2 says.
            fs::write(&config, "").unwrap();
            env.rewind(1);
        }
        let words = &simple_commands(&line)[0];
        if words.len() >= 3 && words[0] == "git" && words.iter().any(|w| w == "uninstall") {
            let typed = line.split(" # ").next().unwrap().trim().to_owned();
            let term = tmux::Tmux::start(&env, &env.work, &typed);
            term.wait_for("yes");
            term.send("yes");
            term.send("Enter");
            let screen = term.wait_for("[exit=");
            assert!(screen.contains("[exit=0]"), "`{line}`:\n{screen}");
            ran.push(line);
            continue;
        }
        let out = Out::from_output(
            env.cmd("setsid", &env.work)
                .args(["-w", "sh", "-c", &line])
                .output()
                .unwrap(),
        );
        assert_eq!(out.code, 0, "`{line}`:\n{}{}", out.stdout, out.stderr);
        if line.starts_with("git vouch install") {
            assert!(env.work.join(".git/hooks/pre-push").is_file());
        }
        if line.starts_with("git vouch agent install claude") {
            let settings = fs::read_to_string(env.work.join(".claude/settings.json")).unwrap();
            assert!(settings.contains("agent-hook claude"), "{settings}");
        }
        if line.starts_with("mkdir -p ~/.config/vouch") {
            assert!(fs::read_to_string(&config).unwrap().contains("observe"));
        }
        if line.starts_with("VOUCH_SKIP=") {
            assert!(
                out.stderr
                    .contains("are kept here as `refs/vouch/rescue/origin/main/"),
                "{}",
                out.stderr
            );
        }
        ran.push(line);
    }
    assert!(ran.len() >= 10, "{ran:?}");
    // Step 5 put back what was there: no hooks, no agent entry.
    assert!(!env.work.join(".git/hooks/pre-push").exists());
    let settings = fs::read_to_string(env.work.join(".claude/settings.json")).unwrap_or_default();
    assert!(!settings.contains("agent-hook"), "{settings}");
}

/// A fenced `sh` block of a document: where it starts, the section it is
/// in, the `<!-- example: ... -->` marker on the line before it (if any),
/// and its command lines with their line numbers.
struct Block {
    file: String,
    line: usize,
    section: String,
    marker: Option<String>,
    lines: Vec<(usize, String)>,
}

/// The `sh` blocks of a document.
fn blocks(file: &str, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut previous = "";
    // Inside a fence: `Some(block)` for an `sh` one, `None` for another.
    let mut fence: Option<Option<Block>> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            if let Some(block) = fence.take() {
                out.extend(block);
            } else {
                let sh = matches!(info.trim(), "sh" | "bash" | "shell");
                fence = Some(sh.then(|| {
                    Block {
                        file: file.to_owned(),
                        line: n + 1,
                        section: section.clone(),
                        marker: previous
                            .strip_prefix("<!-- example:")
                            .and_then(|m| m.strip_suffix("-->"))
                            .map(|m| m.trim().to_owned()),
                        lines: Vec::new(),
                    }
                }));
            }
        } else if let Some(inside) = fence.as_mut() {
            if let Some(block) = inside
                && !trimmed.is_empty()
                && !trimmed.starts_with('#')
            {
                block.lines.push((n + 1, trimmed.to_owned()));
            }
        } else if let Some(heading) = trimmed.strip_prefix("## ") {
            heading.clone_into(&mut section);
        }
        if !trimmed.is_empty() {
            previous = trimmed;
        }
    }
    out
}

/// What a block's marker asks of its run: the world it runs in, each
/// line's exit code (`None`: typed `yes` at a terminal, exit 0), and the
/// absolute paths that live in the scratch directory instead.
struct Plan {
    world: String,
    exits: Option<Vec<Option<i32>>>,
    scratch: Vec<String>,
}

/// Reads a marker: clauses split at `;`, each `world NAME`, `exits A B ...`
/// (a number, or `yes`) or `scratch /PATH`.
fn plan(marker: Option<&str>) -> Result<Plan, String> {
    let mut plan = Plan {
        world: "plain".into(),
        exits: None,
        scratch: Vec::new(),
    };
    for clause in marker.unwrap_or("").split(';').map(str::trim) {
        let mut words = clause.split_whitespace();
        match words.next() {
            None => {}
            Some("world") => plan.world = words.next().ok_or("`world` without a name")?.into(),
            Some("exits") => {
                let codes = words
                    .map(|w| match w {
                        "yes" => Ok(None),
                        n => n.parse().map(Some).map_err(|_| format!("exit `{n}`")),
                    })
                    .collect::<Result<_, _>>()?;
                plan.exits = Some(codes);
            }
            Some("scratch") => {
                for path in words {
                    if !path.starts_with('/') {
                        return Err(format!("`scratch {path}`: an absolute path"));
                    }
                    plan.scratch.push(path.to_owned());
                }
            }
            Some(other) => return Err(format!("unknown marker clause `{other}`")),
        }
    }
    Ok(plan)
}

/// Builds the world a block runs in, in `env` (a fresh clone of a remote
/// with three pushed commits, `git-vouch` on `PATH`, the XDG defaults).
fn build_world(env: &crate::support::TestEnv, world: &str) -> Result<(), String> {
    let git = |args: &[&str]| env.git(&env.work, args);
    match world {
        "plain" => {}
        // `git-vouch` as `cargo install` puts it: in `~/.cargo/bin`, first
        // on `PATH`.
        "installed" => {
            let bin = env.home.join(".cargo/bin");
            fs::create_dir_all(&bin).unwrap();
            // `cp`, not `fs::copy`: a file this process wrote could be held
            // open by a child another test thread forks ("Text file busy").
            let copied = Command::new("cp")
                .arg(crate::support::vouch_bin())
                .arg(bin.join("git-vouch"))
                .status()
                .unwrap();
            if !copied.success() {
                return Err("cannot copy git-vouch".into());
            }
        }
        // Three snapshots an agent's commands left, with `src/` changed
        // after each.
        "snapshots" => {
            env.commit(&env.work, "src/lib.rs", "fn one() {}");
            for (i, command) in ["cargo fmt", "sed -i s/one/two/ src/lib.rs", "rm -rf src"]
                .into_iter()
                .enumerate()
            {
                env.claude(command).code(0);
                fs::write(env.work.join("src/lib.rs"), format!("fn edit{i}() {{}}\n")).unwrap();
            }
            // A linked work tree `side` with a snapshot of its own.
            let side = env.worktree("side");
            fs::write(side.join("notes.md"), "side work\n").unwrap();
            env.claude_in(&side, "make").code(0);
        }
        // Uncommitted work, an untracked file in `app/`, a second clone
        // `../other` one commit behind the remote, and a branch `old` with a
        // commit on no other branch.
        "check" => {
            git(&["switch", "-q", "-c", "old"]);
            env.commit(&env.work, "old.txt", "only on old");
            git(&["switch", "-q", "main"]);
            fs::write(env.work.join("file1.txt"), "work not committed\n").unwrap();
            fs::create_dir_all(env.work.join("app")).unwrap();
            fs::write(env.work.join("app/notes.txt"), "not tracked\n").unwrap();
            env.git(&env.base(), &["clone", "-q", "remote.git", "other"]);
            env.git(
                &env.base().join("other"),
                &["reset", "-q", "--hard", "HEAD~1"],
            );
        }
        // `main` rewound by one commit, which a rescue ref of 22 November
        // keeps.
        "rescue" => {
            let tip = env.commit(&env.work, "lost.txt", "a commit a rewind took");
            git(&[
                "update-ref",
                "refs/vouch/rescue/main/20261122T101500Z",
                &tip,
            ]);
            env.rewind(1);
        }
        // Two decisions in the audit log, with the operation ids the
        // document labels.
        "labels" => {
            for branch in ["old", "spike"] {
                git(&["switch", "-q", "-c", branch, "main"]);
                env.commit(
                    &env.work,
                    &format!("{branch}.txt"),
                    &format!("only on {branch}"),
                );
            }
            git(&["switch", "-q", "main"]);
            for branch in ["old", "spike"] {
                env.vouch(&["check", "--verify", "--", "git", "branch", "-D", branch]);
            }
            let log = env.home.join(".local/state/vouch/audit.jsonl");
            let text = fs::read_to_string(&log).map_err(|e| format!("{}: {e}", log.display()))?;
            let records: Vec<serde_json::Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let mut ids = records
                .iter()
                .filter_map(|r| r["operation_id"].as_str().map(str::to_owned));
            let (Some(first), Some(second)) = (ids.next(), ids.next()) else {
                return Err(format!("two operation ids in the log:\n{text}"));
            };
            let text = text
                .replace(&first, "3f9c2a71b04e")
                .replace(&second, "88d0e1c2f7aa");
            fs::write(&log, text).unwrap();
        }
        // Two verifier programs, `tests` and `lint`, and a commit not yet
        // pushed.
        "verifiers" => {
            let mut config = String::new();
            for name in ["tests", "lint"] {
                config.push_str(&env.verifier(name, &crate::support::verdict_body("pass"), ""));
            }
            let path = env.home.join(".config/vouch/config.toml");
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, config).unwrap();
            env.commit(&env.work, "pending.txt", "not pushed yet");
        }
        // Bare repositories under `/srv/git` (a scratch directory).
        "server" => {
            let srv = env.base().join("srv/git");
            fs::create_dir_all(srv.join("apps")).unwrap();
            for repo in ["team.git", "apps/web.git"] {
                env.git(&srv, &["init", "-q", "--bare", repo]);
            }
        }
        // Gitea's repositories directory with `team/app.git`, under the
        // scratch `/var/lib/gitea`: what the recipe's commands need (Gitea
        // itself is not here), and the scratch `/tmp`.
        "gitea" => {
            let repos = env.base().join("var/lib/gitea/repositories/team");
            fs::create_dir_all(&repos).unwrap();
            env.git(&repos, &["init", "-q", "--bare", "app.git"]);
            fs::create_dir_all(repos.join("app.git/hooks/pre-receive.d")).unwrap();
            fs::create_dir_all(env.base().join("tmp")).unwrap();
        }
        other => return Err(format!("no world `{other}` (tests/it/docs.rs)")),
    }
    Ok(())
}

/// What a block's lines did in its world, beyond their exit codes.
fn world_after(env: &crate::support::TestEnv, world: &str, block: &Block) -> Vec<String> {
    let mut problems = Vec::new();
    // A file of at least `lines` lines (0: any file, a compiled hook too).
    let mut file = |path: PathBuf, lines: usize| match fs::read(&path) {
        Ok(bytes) if bytes.split(|b| *b == b'\n').count() > lines => {}
        Ok(_) => problems.push(format!("{}: under {lines} lines", path.display())),
        Err(e) => problems.push(format!("{}: {e}", path.display())),
    };
    match world {
        "installed" => {
            for path in [
                ".local/share/bash-completion/completions/git-vouch",
                ".zfunc/_git-vouch",
                ".config/fish/completions/git-vouch.fish",
                ".cargo/share/man/man1/git-vouch.1",
            ] {
                file(env.home.join(path), 10);
            }
        }
        "labels"
            if block
                .lines
                .iter()
                .any(|(_, l)| l.starts_with("git vouch label")) =>
        {
            file(env.home.join(".local/state/vouch/labels.jsonl"), 2);
            file(env.work.join("cases.jsonl"), 2);
        }
        "server" => {
            for repo in ["team.git", "apps/web.git"] {
                file(
                    env.base()
                        .join("srv/git")
                        .join(repo)
                        .join("hooks/pre-receive"),
                    0,
                );
            }
        }
        "gitea" => {
            use std::os::unix::fs::PermissionsExt;
            let hook = env
                .base()
                .join("var/lib/gitea/repositories/team/app.git/hooks/pre-receive.d/vouch");
            let written = env.base().join("tmp/vouch-hook.git/hooks/pre-receive");
            match (fs::read(&hook), fs::read(&written), fs::metadata(&hook)) {
                (Ok(a), Ok(b), Ok(m)) if a == b && m.permissions().mode() & 0o111 != 0 => {}
                _ => problems.push(format!(
                    "{} is not vouch's server hook, executable",
                    hook.display()
                )),
            }
        }
        "rescue" => {
            let rescued = env.rev(&env.work, "refs/vouch/rescue/main/20261122T101500Z");
            for branch in ["main", "old-main"] {
                if env.rev(&env.work, branch) != rescued {
                    problems.push(format!("`{branch}` is not at the rescued commit"));
                }
            }
        }
        _ => {}
    }
    problems
}

/// Runs one block, line by line, in its world; the problems found.
fn run_block(block: &Block) -> Vec<String> {
    use crate::support::{Out, TestEnv, tmux};
    let here = format!("{}:{}", block.file, block.line);
    let plan = match plan(block.marker.as_deref()) {
        Ok(p) => p,
        Err(e) => return vec![format!("{here}: the marker: {e}")],
    };
    if let Some(exits) = &plan.exits
        && exits.len() != block.lines.len()
    {
        return vec![format!(
            "{here}: the marker gives {} exit codes for {} lines",
            exits.len(),
            block.lines.len()
        )];
    }
    let mut env = TestEnv::new();
    let bin = crate::support::vouch_bin();
    env.extra_env.push((
        "PATH".into(),
        format!(
            "{}:/usr/local/bin:/usr/bin:/bin",
            bin.parent().unwrap().display()
        ),
    ));
    // A user's defaults: `~/.config`, `~/.local/share`, `~/.local/state`.
    for (var, dir) in [
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
    ] {
        env.extra_env
            .push((var.into(), env.home.join(dir).display().to_string()));
    }
    if let Err(e) = build_world(&env, &plan.world) {
        return vec![format!("{here}: world `{}`: {e}", plan.world)];
    }
    if plan.world == "installed" {
        let path = format!(
            "{}:{}:/usr/local/bin:/usr/bin:/bin",
            env.home.join(".cargo/bin").display(),
            bin.parent().unwrap().display()
        );
        env.extra_env.push(("PATH".into(), path));
    }
    let mut problems = Vec::new();
    for (i, (n, line)) in block.lines.iter().enumerate() {
        let at = format!("{}:{n}: `{line}`", block.file);
        let mut command = line.clone();
        for path in &plan.scratch {
            command = command.replace(
                path.as_str(),
                &env.base().join(&path[1..]).display().to_string(),
            );
        }
        let want = plan.exits.as_ref().map_or(Some(0), |e| e[i]);
        let Some(want) = want else {
            // A person at a terminal, who types `yes`.
            let typed = command.split(" # ").next().unwrap().trim().to_owned();
            let term = tmux::Tmux::start(&env, &env.work, &typed);
            term.wait_for("Type `yes`");
            term.send("yes");
            term.send("Enter");
            let screen = term.wait_for("[exit=");
            if !screen.contains("[exit=0]") {
                problems.push(format!(
                    "{at}: typed `yes` at a terminal, it did not exit 0:\n{screen}"
                ));
            }
            continue;
        };
        let out = Out::from_output(
            env.cmd("setsid", &env.work)
                .args(["-w", "sh", "-c", &command])
                .output()
                .unwrap(),
        );
        let said = format!("{}{}", out.stdout, out.stderr);
        // sh says `sh: 1: NAME: not found` and exits 127; clap's usage
        // errors start with `error:` and show the usage.
        if out.code == 127 || out.stderr.contains(": not found") {
            problems.push(format!(
                "{at}: a program is not found (exit {}):\n{said}",
                out.code
            ));
        } else if out.stderr.starts_with("error: ") && out.stderr.contains("Usage: ") {
            problems.push(format!("{at}: a usage error (exit {}):\n{said}", out.code));
        } else if out.code != want {
            problems.push(format!(
                "{at}: exit {}, the document says {want}:\n{said}",
                out.code
            ));
        }
    }
    problems.extend(
        world_after(&env, &plan.world, block)
            .into_iter()
            .map(|p| format!("{here}: after the block, in world `{}`: {p}", plan.world)),
    );
    problems
}

/// Every `sh` block of `docs/` and the README runs as shown, line by line
/// (each line in its own `sh -c`, headless), in a fresh scratch world with
/// `git vouch` on `PATH`: no program missing, no usage error, each line's
/// exit code as its block's marker says (0 unless `exits ...` says
/// otherwise; `yes`: at a terminal, in tmux, a person types `yes`), and
/// what some worlds check afterwards ([`world_after`]). A block the tests
/// cannot run is marked `<!-- example: not run: <why> -->`; the README's
/// quick start is run, step by step, by `the_readme_quick_start_runs`.
#[test]
fn every_example_in_the_readme_and_docs_runs() {
    if !crate::support::tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let mut to_run = Vec::new();
    let mut not_run = Vec::new();
    for file in documents() {
        let text = fs::read_to_string(&file).unwrap();
        let name = file
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap()
            .display()
            .to_string()
            .trim_start_matches('/')
            .to_owned();
        for block in blocks(&name, &text) {
            if name == "README.md" && block.section == "Quick start" {
                continue;
            }
            match block.marker.as_deref() {
                Some(m) if m.starts_with("not run") => {
                    assert!(
                        m.strip_prefix("not run: ")
                            .is_some_and(|why| why.len() > 10),
                        "{name}:{}: `not run: <why>`, with the reason",
                        block.line
                    );
                    not_run.push(format!("{name}:{}", block.line));
                }
                _ => to_run.push(block),
            }
        }
    }
    // Two at a time: each block is a fresh world.
    let problems: Vec<String> = std::thread::scope(|s| {
        let (a, b): (Vec<_>, Vec<_>) = to_run.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let handles: Vec<_> = [a, b]
            .into_iter()
            .map(|half| {
                s.spawn(move || {
                    half.into_iter()
                        .flat_map(|(_, b)| run_block(b))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(to_run.len() >= 10, "{} blocks run", to_run.len());
    // Each one a deliberate exception, with its reason.
    assert!(not_run.len() <= 5, "more blocks not run: {not_run:?}");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
