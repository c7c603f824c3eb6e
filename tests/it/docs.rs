//! Issue 29 item 5: the README and `docs/` show only commands that exist.
//! Every line of their `sh` blocks names a program that is there (git's
//! subcommands included), and every `git vouch` line parses with the
//! command line's own definition (its subcommand, options and values); a
//! `git vouch <subcommand>` in running text names a subcommand that exists.
//! A block the tests cannot run (a forge's paths) is marked
//! `<!-- example: not run ... -->` on the line before it, and is still
//! parsed; the retired program name `vouch` is never one to type.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::{CommandFactory, Parser};
use vouch::cli::Cli;

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

/// A block the tests cannot run is marked as an example, and the retired
/// recipes are gone: the forge hook runs `git-vouch`'s own server hook, and
/// husky's block calls `git-vouch`.
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
        "forge examples are marked"
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
