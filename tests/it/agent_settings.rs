//! Agents' hook settings (SPEC 3.4): `git vouch agent install` and
//! `uninstall` beside the other hooks a settings file holds, what each
//! agent does when the binary behind vouch's hook is missing, a project's
//! settings for a teammate without vouch, and what `git vouch status` says
//! of each installed agent.

use std::fs;
use std::io::Write as _;

use serde_json::{Value, json};

use crate::agent::{AGENTS, input};
use crate::support::{Out, TestEnv};

#[test]
fn agent_install_keeps_other_hooks_and_uninstall_removes_only_vouch() {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let env = TestEnv::new();
    let settings = env.work.join(".claude/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let theirs = json!({"model": "opus", "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}],
        "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "notify"}]}]}});
    fs::write(&settings, serde_json::to_string_pretty(&theirs).unwrap()).unwrap();
    env.vouch(&["agent", "install", "claude"]).code(0);
    let v: Value = serde_json::from_str(&fs::read_to_string(&settings).unwrap()).unwrap();
    let text = v.to_string();
    assert!(text.contains("my-linter") && text.contains("notify") && text.contains("opus"));
    assert!(text.contains("agent-hook claude"), "{text}");
    env.vouch(&["agent", "install", "claude"]).code(0);
    let again = fs::read_to_string(&settings).unwrap();
    // Once before the command, once after it (issue 28).
    assert_eq!(again.matches("agent-hook claude").count(), 2, "{again}");
    crate::support::tmux::vouch_yes(&env, &["agent", "uninstall", "claude"]);
    let v: Value = serde_json::from_str(&fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v, theirs);
    // Every agent installs and uninstalls in a project.
    for agent in AGENTS {
        env.vouch(&["agent", "install", agent]).code(0);
        crate::support::tmux::vouch_yes(&env, &["agent", "uninstall", agent]);
    }
    // A user-level install goes to HOME, and says what Gemini CLI needs.
    env.vouch(&["agent", "install", "gemini", "--user"])
        .code(0)
        .stderr_has("hooksConfig.enabled");
    assert!(env.home.join(".gemini/settings.json").is_file());
    // Hooks turned off in Gemini's user settings: a project install says so.
    let user = env.home.join(".gemini/settings.json");
    let mut v: Value = serde_json::from_str(&fs::read_to_string(&user).unwrap()).unwrap();
    v["hooksConfig"] = json!({"enabled": false});
    fs::write(&user, v.to_string()).unwrap();
    env.vouch(&["agent", "install", "gemini"])
        .code(0)
        .stderr_has("turns Gemini CLI's hooks off");
}

/// A string value that runs `agent-hook`, anywhere in `v`.
fn agent_hook_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if s.contains("agent-hook") => Some(s.clone()),
        Value::Array(a) => a.iter().find_map(agent_hook_string),
        Value::Object(o) => o.values().find_map(agent_hook_string),
        _ => None,
    }
}

/// The command string vouch's entry holds in a settings file or plugin.
fn hook_command_in(text: &str) -> String {
    if let Some(line) = text.lines().find(|l| l.starts_with("const COMMAND = ")) {
        let literal = line
            .trim_start_matches("const COMMAND = ")
            .trim_end_matches(';');
        return serde_json::from_str(literal).unwrap();
    }
    agent_hook_string(&serde_json::from_str(text).unwrap()).expect("vouch's command")
}

#[test]
fn a_missing_binary_behind_the_agent_hook_blocks_in_each_agents_words() {
    let env = TestEnv::new();
    // Installed from a copy of the binary (made with `cp`, see
    // `install_from_vanishing_binary`), which is then removed.
    let copy = env.base().join("bin/vouch");
    fs::create_dir_all(copy.parent().unwrap()).unwrap();
    let status = std::process::Command::new("cp")
        .arg(crate::support::vouch_bin())
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    // The user's settings name this machine's binary (the project's, which
    // teammates share, name vouch on PATH: see the test after this one).
    for agent in AGENTS {
        let out = env
            .cmd(&copy, &env.work)
            .args(["agent", "install", "--user", agent])
            .output()
            .unwrap();
        assert!(out.status.success(), "{agent}: {out:?}");
    }
    let opencode = env.base().join("config/opencode/plugins/vouch.js");
    let files = [
        ("claude", env.home.join(".claude/settings.json")),
        ("codex", env.home.join(".codex/hooks.json")),
        ("gemini", env.home.join(".gemini/settings.json")),
        ("cursor", env.home.join(".cursor/hooks.json")),
        ("copilot", env.home.join(".copilot/hooks/vouch.json")),
        ("opencode", opencode),
    ];
    let run = |agent: &str, command: &str| {
        run_settings_command(&env, agent, command, "rm .git/hooks/pre-push")
    };
    // While the binary is there, the command runs it.
    let claude = hook_command_in(&fs::read_to_string(&files[0].1).unwrap());
    run("claude", &claude)
        .code(0)
        .stdout_has("permissionDecision");
    fs::remove_file(&copy).unwrap();
    for (agent, file) in &files {
        let agent = *agent;
        let command = hook_command_in(&fs::read_to_string(file).unwrap());
        let out = run(agent, &command);
        out.stderr_has("the vouch binary is missing")
            .stderr_has(&format!("vouch agent install {agent}"));
        match agent {
            "claude" | "codex" | "gemini" => {
                out.code(2);
            }
            "cursor" => {
                out.code(2).stdout_has(r#""permission":"deny""#);
            }
            "copilot" => {
                out.code(0).stdout_has(r#""permissionDecision":"deny""#);
            }
            _ => {
                out.code(0).stdout_has(r#""decision":"deny""#);
            }
        }
    }
}

/// Runs the hook command an agent's settings hold, as the agent would, with
/// a request to run `line`.
fn run_settings_command(env: &TestEnv, agent: &str, command: &str, line: &str) -> Out {
    let mut child = env
        .cmd("sh", &env.work)
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let request = input(agent, line, &env.work).to_string();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request.as_bytes())
        .ok();
    Out::from_output(child.wait_with_output().unwrap())
}

#[test]
fn a_projects_settings_let_a_teammate_without_vouch_work() {
    let env = TestEnv::new();
    let files = [
        ("claude", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
        ("cursor", ".cursor/hooks.json"),
        ("copilot", ".github/hooks/vouch.json"),
        ("opencode", ".opencode/plugins/vouch.js"),
    ];
    for (agent, file) in files {
        let out = env.vouch(&["agent", "install", "--project", agent]);
        out.code(0);
        if agent == "codex" {
            out.stderr_has("/hooks");
            // No git hook is installed here: status exits 1 (issue 29).
            env.vouch(&["status"])
                .code(1)
                .stdout_has("agent:        Codex")
                .stdout_has("trust vouch's `PreToolUse` hook");
        }
        let text = fs::read_to_string(env.work.join(file)).unwrap();
        let command = hook_command_in(&text);
        // Nothing of this machine in a file meant to be committed.
        assert!(
            !text.contains(env.base().to_str().unwrap()),
            "{agent}: {text}"
        );
        assert!(!command.contains("target/"), "{agent}: {command}");
        // The test PATH has no vouch: the teammate's agent goes on, told
        // once per clone (the mark is shared with the git hooks' recipes).
        std::fs::remove_file(env.work.join(".git/git-vouch-suggested")).ok();
        for first in [true, false] {
            let out = run_settings_command(&env, agent, &command, "git push --force");
            out.code(0);
            assert_eq!(
                out.stderr.contains("This project suggests git-vouch"),
                first,
                "{agent}, first run {first}: {}",
                out.stderr
            );
            match agent {
                "cursor" => assert_eq!(out.stdout.trim(), r#"{"permission":"allow"}"#),
                "opencode" => assert_eq!(out.stdout.trim(), r#"{"decision":"allow"}"#),
                _ => assert_eq!(out.stdout, "", "{agent}"),
            }
        }
    }
}

#[test]
fn claude_local_settings_are_offered_and_hold_this_machines_binary() {
    let env = TestEnv::new();
    env.vouch(&["agent", "install", "claude"])
        .code(0)
        .stderr_has("--local")
        .stderr_has(".claude/settings.local.json");
    env.vouch(&["agent", "install", "claude", "--local"])
        .code(0);
    let text = fs::read_to_string(env.work.join(".claude/settings.local.json")).unwrap();
    // Not committed: the binary of this machine, refusing when it is gone.
    assert!(
        text.contains(crate::support::vouch_bin().to_str().unwrap()),
        "{text}"
    );
    env.vouch(&["agent", "install", "codex", "--local"])
        .code(2)
        .stderr_has("no settings file for this machine only");
    // No git hook is installed here: status exits 1 (issue 29).
    env.vouch(&["status"])
        .code(1)
        .stdout_has("settings.local.json");
}

/// Issue 26 item 12: `git vouch status` says which installed agents let a
/// command through when vouch's hook fails or times out, and why.
#[test]
fn status_names_the_agents_whose_failed_hook_lets_a_command_run() {
    let mut env = TestEnv::new();
    env.install();
    // A Claude Code of its own version on PATH.
    let bin = env.base().join("agent-bin");
    fs::create_dir_all(&bin).unwrap();
    let claude = bin.join("claude");
    env.extra_env.push((
        "PATH".into(),
        format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
    ));
    env.vouch(&["agent", "install", "claude"]).code(0);
    let settings = fs::read_to_string(env.work.join(".claude/settings.json")).unwrap();
    assert!(settings.contains(r#""onFailure": "block""#), "{settings}");
    let status = |version: &str| {
        fs::write(
            &claude,
            format!("#!/bin/sh\necho '{version} (Claude Code)'\n"),
        )
        .unwrap();
        std::process::Command::new("chmod")
            .args(["+x"])
            .arg(&claude)
            .status()
            .unwrap();
        let out = env.vouch(&["status", "--json"]);
        out.code(0);
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        v["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["agent"] == "Claude Code")
            .cloned()
            .unwrap()
    };
    let recent = status("2.1.302");
    assert_eq!(recent["fails_closed"], true, "{recent}");
    let old = status("2.1.290");
    assert_eq!(old["fails_closed"], false, "{old}");
    assert!(
        old["on_failure"]
            .as_str()
            .unwrap()
            .contains("Update Claude Code"),
        "{old}"
    );
    // Codex has no such setting: said in the text too.
    env.vouch(&["agent", "install", "codex"]).code(0);
    env.vouch(&["status"])
        .code(0)
        .stdout_has("fails open: Codex runs a command whose hook fails or times out");
}
