//! The command line as a tool: `--json` of `status`, `doctor` and `rescue
//! list` (snapshots in `tests/it/snapshots/`), `config`, completions, the
//! manual page, filter values, the environment table of the README, and
//! the restore hint `rescue` prints.

use std::fs;
use std::path::Path;

use crate::support::TestEnv;

/// Filters for paths of this run, for snapshots.
fn filters(env: &TestEnv) -> Vec<(String, &'static str)> {
    vec![
        (regex_escape(&env.base().display().to_string()), "[tmp]"),
        (
            regex_escape(&crate::support::vouch_bin().display().to_string()),
            "[vouch]",
        ),
    ]
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '/' || c == '_' || c == '-' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

#[test]
fn status_json_is_one_object_of_the_same_facts_as_the_text() {
    let env = TestEnv::new();
    env.install();
    let out = env.vouch(&["status", "--json"]);
    out.code(0);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let filters = filters(&env);
    let filters: Vec<(&str, &str)> = filters.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    insta::with_settings!({filters => filters}, {
        insta::assert_json_snapshot!("status-json", value);
    });
    let text = env.vouch(&["status"]);
    text.code(0).stdout_has("no verifier is configured");
    assert_eq!(value["without_verdict"]["verifier_configured"], false);
}

/// Issue 29 item 2: `git vouch status` exits 1 when a door is not reached
/// (as `lefthook check-install` does), and `--json` says which.
#[test]
fn status_exits_1_and_says_which_door_is_not_reached() {
    let env = TestEnv::new();
    // Not installed at all: nothing is guarded.
    let out = env.vouch(&["status", "--json"]);
    out.code(1);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(value["guarded"], false);
    assert!(
        value["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["reached"] == false && h["expected"] == true),
        "{value}"
    );
    env.vouch(&["status"]).code(1).stdout_has(
        "NOT guarded:  vouch is not reached for pre-push, pre-commit, reference-transaction",
    );
    // Only the pre-push hook installed: the others are not expected.
    env.install_hooks("pre-push");
    let value: serde_json::Value =
        serde_json::from_str(&env.vouch(&["status", "--json"]).code(0).stdout).unwrap();
    assert_eq!(value["guarded"], true);
    assert_eq!(value["hooks"][0]["reached"], true);
    assert_eq!(value["hooks"][1]["expected"], false);
    // Another tool takes the hooks directory: the hook is no longer reached.
    env.git(&env.work, &["config", "core.hooksPath", ".githooks"]);
    let out = env.vouch(&["status", "--json"]);
    out.code(1);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(value["hooks"][0]["reached"], false);
    assert!(
        value["hooks"][0]["reach"]
            .as_str()
            .unwrap()
            .contains("which git does not read while `core.hooksPath` is `.githooks`"),
        "{value}"
    );
    // An agent whose settings turn its hooks off is not reached.
    env.git(&env.work, &["config", "--unset", "core.hooksPath"]);
    env.vouch(&["agent", "install", "gemini"]).code(0);
    env.vouch(&["status"]).code(0);
    let settings = env.work.join(".gemini/settings.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    v["hooksConfig"] = serde_json::json!({"enabled": false});
    std::fs::write(&settings, v.to_string()).unwrap();
    let out = env.vouch(&["status", "--json"]);
    out.code(1);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(value["agents"][0]["reached"], false, "{value}");
}

#[test]
fn doctor_json_is_one_object_and_keeps_the_exit_code() {
    let env = TestEnv::new();
    let out = env.vouch(&["doctor", "--json"]);
    out.code(0);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let filters = filters(&env);
    let filters: Vec<(&str, &str)> = filters.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    insta::with_settings!({filters => filters}, {
        insta::assert_json_snapshot!("doctor-json", value);
    });
    // A broken config file: the JSON names it, and the exit says so.
    env.write_config("strict = maybe\n");
    let out = env.vouch(&["doctor", "--json"]);
    out.code(2);
    let value: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        value["config_errors"].as_array().unwrap().len(),
        1,
        "{value}"
    );
}

#[test]
fn rescue_list_json_is_an_array_and_empty_is_brackets() {
    let env = TestEnv::new();
    env.vouch(&["rescue", "list", "--json"])
        .code(0)
        .stdout_has("[]");
    assert_eq!(env.vouch(&["rescue", "list", "--json"]).stdout.trim(), "[]");
}

/// The hint printed when an allowed rewind of the checked-out branch is
/// saved is a command that works when pasted: the branch and its files
/// come back.
#[test]
fn the_restore_hint_for_the_checked_out_branch_works_when_pasted() {
    let env = TestEnv::new();
    env.install();
    // A commit on no other ref: the rewind loses it, so it is saved.
    let tip = env.commit(&env.work, "file4.txt", "unpushed");
    let out = env.git_headless(&env.work, &["reset", "--hard", "HEAD~1"]);
    out.code(0);
    assert!(!env.work.join("file4.txt").exists());
    let hint = out
        .stderr
        .split('`')
        .find(|s| s.contains("rescue restore"))
        .unwrap_or_else(|| panic!("no restore hint: {}", out.stderr))
        .to_owned();
    // The command as printed, run by the binary under test.
    let words: Vec<&str> = hint
        .split_whitespace()
        .skip_while(|w| *w != "rescue")
        .collect();
    env.vouch(&words).code(0);
    assert_eq!(env.rev(&env.work, "main"), tip);
    assert!(env.work.join("file4.txt").exists(), "the files came back");
    let status = env.git(&env.work, &["status", "--porcelain"]);
    assert!(status.trim().is_empty(), "a clean tree: {status}");
}

#[test]
fn a_checked_out_branch_with_conflicting_edits_is_left_alone_and_told_what_to_do() {
    let env = TestEnv::new();
    env.install();
    env.commit(&env.work, "file4.txt", "unpushed");
    let out = env.git_headless(&env.work, &["reset", "--hard", "HEAD~1"]);
    out.code(0);
    // An uncommitted file where the restore would write one.
    fs::write(env.work.join("file4.txt"), "mine\n").unwrap();
    let name = env
        .git(
            &env.work,
            &["for-each-ref", "--format=%(refname)", "refs/vouch/rescue"],
        )
        .trim()
        .to_owned();
    let name = name.trim_start_matches("refs/vouch/rescue/");
    env.vouch(&["rescue", "restore", name])
        .code(2)
        .stderr_has("commit or stash your changes");
    assert_eq!(
        fs::read_to_string(env.work.join("file4.txt")).unwrap(),
        "mine\n"
    );
}

#[test]
fn unknown_filter_values_are_errors_that_list_the_accepted_ones() {
    let env = TestEnv::new();
    let out = env.vouch(&["log", "--result", "bogus"]);
    out.code(2)
        .stderr_has("invalid value 'bogus'")
        .stderr_has("asked-yes");
    env.vouch(&["log", "--result", "asked-no"]).code(0);
    env.vouch(&["install", "--hooks", "pre-pus"])
        .code(2)
        .stderr_has("reference-transaction");
}

#[test]
fn config_prints_a_template_that_is_a_valid_config() {
    let env = TestEnv::new();
    let out = env.vouch(&["config"]);
    out.code(0).stdout_has("[on_unavailable]");
    // Used as the user config as printed, it reads without a warning.
    env.write_config(&out.stdout);
    env.vouch(&["doctor"]).code(0);
    let doctor = env.vouch(&["doctor"]);
    assert!(!doctor.stderr.contains("warning"), "{}", doctor.stderr);
}

#[test]
fn completions_and_the_manual_page_are_printed() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish"] {
        env.vouch(&["completions", shell])
            .code(0)
            .stdout_has("rescue");
    }
    // bash: as `git-vouch` and through git's own completion as `git vouch`,
    // subcommands and their options alike.
    let script = env.work.join("completion.bash");
    std::fs::write(&script, &env.vouch(&["completions", "bash"]).code(0).stdout).unwrap();
    let git_completion = "/usr/share/bash-completion/completions/git";
    let complete = |words: &[&str], via_git: bool| -> String {
        let cword = words.len() - 1;
        let call = if via_git {
            format!(
                "source {git_completion}; __git_wrap__git_main git '{}' '{}'",
                words[cword],
                words[cword - 1]
            )
        } else {
            format!(
                "_git__vouch git-vouch '{}' '{}'",
                words[cword],
                words[cword - 1]
            )
        };
        let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
        let line = words.join(" ");
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source '{}'; COMP_WORDS=({}); COMP_CWORD={cword}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; {call}; echo \"${{COMPREPLY[*]}}\"",
                script.display(),
                quoted.join(" ")
            ))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert_eq!(complete(&["git-vouch", "ins"], false), "install");
    assert_eq!(complete(&["git-vouch", "log", "--res"], false), "--result");
    assert!(complete(&["git-vouch", "log", "--result", ""], false).contains("asked-yes"));
    assert!(
        std::path::Path::new(git_completion).is_file(),
        "git's bash completion (Debian's git package) is at {git_completion}"
    );
    assert_eq!(complete(&["git", "vouch", "ins"], true), "install");
    assert_eq!(
        complete(&["git", "-C", "/tmp", "vouch", "log", "--res"], true),
        "--result"
    );
    env.vouch(&["completions", "tcsh"])
        .code(2)
        .stderr_has("fish");
    env.vouch(&["man"])
        .code(0)
        .stdout_has(".TH GIT-VOUCH 1")
        .stdout_has("VOUCH_SKIP");
}

/// Every `VOUCH_*` name in the sources (`src/`, `hooks/`, `install.sh`)
/// is a row of the environment table (`docs/configuration.md`), and every
/// row is one the manual page lists (`env::ENVIRONMENT`).
#[test]
fn every_vouch_variable_is_in_the_readme_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("docs/configuration.md")).unwrap();
    let table: Vec<&str> = readme
        .split("<!-- environment-table -->")
        .nth(1)
        .expect("the README marks its environment table")
        .lines()
        .take_while(|l| l.starts_with('|') || l.trim().is_empty())
        .filter(|l| l.starts_with("| `VOUCH_"))
        .collect();
    let rows: Vec<String> = table
        .iter()
        .map(|l| l.split('`').nth(1).unwrap().to_owned())
        .collect();
    let mut names = std::collections::BTreeSet::new();
    let mut files = vec![root.join("install.sh")];
    for dir in ["src", "hooks", "bench"] {
        collect(&root.join(dir), &mut files);
    }
    for file in files {
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        for (at, _) in text.match_indices("VOUCH_") {
            // `@VOUCH_BIN@` is a placeholder in the hook script, not a variable.
            if text[..at].ends_with('@') {
                continue;
            }
            let name: String = text[at..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                .collect();
            // `VOUCH_<KIND>_COMMAND` is written out as its instances.
            if name.len() > "VOUCH_".len() && !name.ends_with('_') {
                names.insert(name);
            }
        }
    }
    assert!(names.len() > 10, "{names:?}");
    for name in &names {
        assert!(
            rows.contains(name),
            "`{name}` is used in the sources but not in the environment table of docs/configuration.md"
        );
    }
    let documented: Vec<&str> = vouch::platform::env::ENVIRONMENT
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(
        rows, documented,
        "the docs/configuration.md table and `env::ENVIRONMENT` list the same variables, in order"
    );
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The screen a person reads at a terminal when the AI verifier has
/// concerns: each fact once, in the order what would be lost, the verdict,
/// the question.
#[test]
fn the_verdict_screen_says_each_thing_once() {
    use crate::support::llm::{LlmServer, ok};
    use crate::support::tmux;
    if !tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let verdict = serde_json::json!({"verified": true, "confidence": 0.9,
        "concerns": ["commit 3 exists nowhere else"], "recommendation": "warn",
        "reasoning": "the force push destroys a commit nobody else has",
        "scores": {"recoverability": 0.5, "blast_radius": 0.5, "intent_fit": 0.5, "safeguards": 0.5}});
    let server = LlmServer::start(vec![ok(serde_json::json!({
        "content": [{"type": "text", "text": verdict.to_string()}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 100, "output_tokens": 50}}))]);
    let mut env = TestEnv::new();
    env.extra_env
        .push(("ANTHROPIC_BASE_URL".into(), server.url.clone()));
    env.extra_env
        .push(("ANTHROPIC_API_KEY".into(), "sk-ant-TEST-0123456789".into()));
    env.extra_env
        .push(("VOUCH_PRIMARY".into(), "openai".into()));
    env.install();
    env.rewind(1);
    let term = tmux::Tmux::start(&env, &env.work, "git push --force origin main");
    let screen = term.wait_for("Allow this push?");
    term.send("n");
    term.send("Enter");
    term.wait_for("[exit=");
    let once = |text: &str| {
        assert_eq!(
            screen.matches(text).count(),
            1,
            "`{text}` once on the screen:\n{screen}"
        );
    };
    once("the force push destroys a commit nobody else has");
    once("commit 3 exists nowhere else");
    once("commit 3  (Test User)");
    // In order: what would be lost, the verdict, the question.
    let lost = screen.find("commit 3  (Test User)").unwrap();
    let verdict = screen.find("warn: the force push").unwrap();
    let question = screen.find("Allow this push?").unwrap();
    assert!(lost < verdict && verdict < question, "{screen}");
    assert_eq!(env.last_audit()["decision"], "asked-no");
}

/// Issue 29 item 3: right after `./install.sh`, `git vouch --help` (which
/// git turns into `man git-vouch`) shows the manual page and exits 0, and
/// `man -w git-vouch` finds it, for a user without root: install.sh runs in
/// a fresh `HOME`, with a stand-in `cargo` whose `install` copies the
/// binary under test into `$CARGO_HOME/bin` (the release build is cargo's
/// own business, and takes minutes).
#[test]
fn install_sh_installs_the_manual_page_that_git_vouch_help_opens() {
    use crate::support::Out;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let man = std::process::Command::new("man")
        .arg("-w")
        .arg("man")
        .output();
    if !man.is_ok_and(|o| o.status.success()) {
        crate::support::missing("man");
        return;
    }
    let mut env = TestEnv::new();
    let cargo_home = env.home.join(".cargo");
    let tools = env.base().join("scripts");
    let script = |name: &str, body: &str| {
        env.script(name, body);
    };
    script("rustc", "echo 'host: x86_64-unknown-linux-gnu'");
    script(
        "cargo",
        &format!(
            "[ \"$1\" = install ] || exit 1\nmkdir -p \"$CARGO_HOME/bin\" && cp '{}' \"$CARGO_HOME/bin/git-vouch\"",
            crate::support::vouch_bin().display()
        ),
    );
    env.extra_env.push((
        "PATH".into(),
        format!(
            "{}:{}:/usr/local/bin:/usr/bin:/bin",
            cargo_home.join("bin").display(),
            tools.display()
        ),
    ));
    env.extra_env
        .push(("CARGO_HOME".into(), cargo_home.display().to_string()));
    env.extra_env.push(("VOUCH_DYNAMIC".into(), "1".into()));
    env.extra_env.push(("MANPAGER".into(), "cat".into()));
    env.extra_env.push(("PAGER".into(), "cat".into()));
    let installed = Out::from_output(
        env.cmd(root.join("install.sh"), &env.work)
            .output()
            .unwrap(),
    );
    installed.code(0);
    let page = cargo_home.join("share/man/man1/git-vouch.1");
    assert!(
        installed
            .stdout
            .contains(&format!("installed the manual page `{}`", page.display())),
        "{}{}",
        installed.stdout,
        installed.stderr
    );
    assert!(
        installed
            .stdout
            .contains("`git vouch --help` and `man git-vouch` open it"),
        "{}",
        installed.stdout
    );
    let help = env.git_out(&env.work, &["vouch", "--help"]);
    help.code(0)
        .stdout_has("GIT-VOUCH(1)")
        .stdout_has("git vouch install");
    let found = Out::from_output(
        env.cmd("man", &env.work)
            .args(["-w", "git-vouch"])
            .output()
            .unwrap(),
    );
    found.code(0);
    assert_eq!(found.stdout.trim(), page.display().to_string());
    // The page is the binary's own: `git vouch man` prints the same text.
    assert_eq!(
        fs::read_to_string(&page).unwrap(),
        env.vouch(&["man"]).stdout
    );
}

/// Where `man` cannot find the page, `git vouch man --install` says what
/// to do, and `git vouch -h` (which git passes through) prints the help.
#[test]
fn a_manual_page_man_cannot_find_is_said() {
    let mut env = TestEnv::new();
    let bin = crate::support::vouch_bin();
    env.extra_env.push((
        "PATH".into(),
        format!(
            "{}:/usr/local/bin:/usr/bin:/bin",
            bin.parent().unwrap().display()
        ),
    ));
    let dir = env.base().join("elsewhere");
    let out = env.vouch(&["man", "--install", "--dir", dir.to_str().unwrap()]);
    out.code(0);
    assert!(dir.join("man1/git-vouch.1").is_file());
    assert!(
        out.stdout.contains("does not look in") || out.stdout.contains("no `man` program"),
        "{}",
        out.stdout
    );
    env.git_out(&env.work, &["vouch", "-h"])
        .code(0)
        .stdout_has("Usage: git vouch");
}

/// Issue 29 item 4: every program a test starts, or skips without, is a
/// row of the README's table of the tests' programs.
#[test]
fn the_readme_names_every_program_the_tests_use() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let table: String = readme
        .split("<!-- test-tools -->")
        .nth(1)
        .expect("the README marks its table of the tests' programs")
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('|').nth(1).unwrap_or_default().to_owned())
        .collect();
    let mut files = Vec::new();
    collect(&root.join("tests"), &mut files);
    collect(&root.join("src"), &mut files);
    let mut used = std::collections::BTreeSet::new();
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
    {
        let text = fs::read_to_string(file).unwrap();
        // `need(&["nginx", "fcgiwrap"])` names each program in a list
        // (the opener is built, so that this line is not one).
        let opener = concat!("need", "(&[");
        for (at, _) in text.match_indices(opener) {
            let list = &text[at + opener.len()..];
            let list = &list[..list.find(']').unwrap_or_default()];
            for program in list.split('"').skip(1).step_by(2) {
                used.insert(program.to_owned());
            }
        }
        for opener in [
            "Command::new(\"",
            ".cmd(\"",
            "missing(\"",
            "with_tool(\"",
            "pre_commit_like(\"",
        ] {
            for (at, _) in text.match_indices(opener) {
                let name: String = text[at + opener.len()..]
                    .chars()
                    .take_while(|c| *c != '"')
                    .collect();
                // The program is the first word (`missing("git 2.55 (...)")`).
                let program = name.split_whitespace().next().unwrap_or_default();
                used.insert(program.rsplit('/').next().unwrap_or_default().to_owned());
            }
        }
    }
    used.remove("git");
    let mut missing = Vec::new();
    assert!(used.contains("tmux") && used.contains("nginx"), "{used:?}");
    for name in &used {
        if !table.contains(&format!("`{name}`")) {
            missing.push(name.as_str());
        }
    }
    assert!(
        missing.is_empty(),
        "the tests use {missing:?}, which the README's \"Tests\" table does not name"
    );
}

/// A reader that has gone (`git vouch man | head`, a pager quit early) ends
/// no command by a signal: vouch ignores SIGPIPE, as std's start-up did
/// before `main.rs` skipped it, and ends as it would have.
#[test]
fn a_closed_output_pipe_ends_no_command_by_a_signal() {
    let env = TestEnv::new();
    for args in [&["man"][..], &["--version"], &["completions", "bash"]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let status = env
            .cmd(crate::support::vouch_bin(), &env.work)
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {status:?}");
    }
}
