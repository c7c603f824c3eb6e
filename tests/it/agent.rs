//! The agent door (SPEC 2.4, 3.4): `git vouch check` with the repository's
//! facts, every agent's hook protocol end to end, and `git vouch agent install`.

use std::fs;

use serde_json::{Value, json};

use crate::support::llm::{LlmServer, ok};
use crate::support::{Out, TestEnv, verdict_body};

fn check(env: &TestEnv, command: &[&str]) -> Out {
    let mut args = vec!["check", "--"];
    args.extend_from_slice(command);
    env.vouch(&args)
}

fn hook(env: &TestEnv, agent: &str, input: &Value) -> Out {
    env.vouch_stdin(&["agent-hook", agent], input.to_string().as_bytes())
}

/// `git-vouch agent-hook claude` as an agent starts it (no terminal), its
/// streams piped, for a test that writes its input itself.
fn claude_hook(env: &TestEnv) -> std::process::Command {
    let mut cmd = env.cmd("setsid", &env.work);
    cmd.args([
        "-w",
        env!("CARGO_BIN_EXE_git-vouch"),
        "agent-hook",
        "claude",
    ])
    .stdin(std::process::Stdio::piped())
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped());
    cmd
}

#[test]
fn reset_hard_is_critical_in_a_dirty_tree_and_harmless_in_a_clean_one() {
    let env = TestEnv::new();
    check(&env, &["git", "reset", "--hard"])
        .code(0)
        .stdout_has("tier: none")
        .stdout_has("nothing would be lost");
    fs::write(env.work.join("file1.txt"), "unsaved work\n").unwrap();
    check(&env, &["git", "reset", "--hard"])
        .code(1)
        .stdout_has("tier: critical")
        .stdout_has("file1.txt");
    // Paths limit what `checkout --` discards.
    check(&env, &["git", "checkout", "--", "file2.txt"])
        .code(0)
        .stdout_has("tier: none");
    check(&env, &["git", "checkout", "--", "file1.txt"]).code(1);
    // `clean -f` takes untracked files only.
    check(&env, &["git", "clean", "-f"]).code(0);
    fs::write(env.work.join("new.txt"), "x").unwrap();
    check(&env, &["git", "clean", "-fd"])
        .code(1)
        .stdout_has("new.txt");
    // Data, not a command.
    env.vouch(&[
        "check",
        "--operation",
        "echo 'git reset --hard' | grep reset",
    ])
    .code(0)
    .stdout_has("tier: none");
}

#[test]
fn a_force_push_that_destroys_unseen_remote_commits_is_critical() {
    let env = TestEnv::new();
    let colleague = env.colleague();
    env.commit(&colleague, "theirs.txt", "a colleague's commit");
    env.git(&colleague, &["push", "-q", "origin", "main"]);
    env.commit(&env.work, "mine.txt", "my commit");
    let out = env.vouch(&[
        "check", "--json", "--", "git", "push", "--force", "origin", "main",
    ]);
    out.code(1);
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["tier"], "critical", "{v}");
    assert!(
        out.stdout.contains("never fetched")
            || out.stdout.contains("unseen")
            || out.stdout.contains("not seen"),
        "{v}"
    );
    // A feature branch whose remote tip was fetched: a plain force push, high.
    env.git(&env.work, &["switch", "-q", "-c", "feature"]);
    env.git(&env.work, &["push", "-q", "origin", "feature"]);
    env.git(&env.work, &["commit", "-q", "--amend", "-m", "reworded"]);
    let out = env.vouch(&[
        "check", "--json", "--", "git", "push", "-f", "origin", "feature",
    ]);
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["tier"], "high", "{v}");
    // Its fast-forward is nothing at all.
    env.git(&env.work, &["switch", "-q", "main"]);
    env.git(&env.work, &["fetch", "-q"]);
    env.git(&env.work, &["reset", "-q", "--hard", "origin/main"]);
    env.commit(&env.work, "more.txt", "fast-forward");
    check(&env, &["git", "push", "--force", "origin", "main"])
        .code(0)
        .stdout_has("tier: none");
}

#[test]
fn branch_deletion_counts_the_commits_it_would_orphan() {
    let env = TestEnv::new();
    env.git(&env.work, &["branch", "merged"]);
    check(&env, &["git", "branch", "-D", "merged"]).code(0);
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    env.commit(&env.work, "solo.txt", "only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    check(&env, &["git", "branch", "-D", "solo"])
        .code(1)
        .stdout_has("tier: critical")
        .stdout_has("1 commit by 1 author");
    // `git -C` and `cd` name the repository the command runs in.
    let elsewhere = env.base();
    env.vouch_in(
        &elsewhere,
        &["check", "--operation", "cd work && git branch -D solo"],
    )
    .code(1)
    .stdout_has("tier: critical");
}

#[test]
fn check_verify_asks_the_verifiers_and_logs() {
    let env = TestEnv::new();
    fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    env.write_config(&env.verifier("judge", &verdict_body("fail"), "blocking = true"));
    env.vouch(&["check", "--verify", "--", "git", "reset", "--hard"])
        .code(1)
        .stdout_has("decision: refused");
    let record = env.last_audit();
    assert_eq!(record["operation_type"], "command");
    assert_eq!(record["hook"], "check");
    assert_eq!(record["decision"], "refused");
}

fn claude_input(command: &str, cwd: &std::path::Path) -> Value {
    json!({"session_id": "sess-1", "cwd": cwd, "hook_event_name": "PreToolUse",
           "tool_name": "Bash", "permission_mode": "default", "tool_input": {"command": command}})
}

/// One agent's input for `command`, in that agent's shape.
pub(crate) fn input(agent: &str, command: &str, cwd: &std::path::Path) -> Value {
    match agent {
        "claude" => claude_input(command, cwd),
        "codex" => {
            let mut v = claude_input(command, cwd);
            v["model"] = json!("gpt-5");
            v["turn_id"] = json!("t-1");
            v
        }
        "gemini" => json!({"session_id": "s", "cwd": cwd, "hook_event_name": "BeforeTool",
                           "tool_name": "run_shell_command", "tool_input": {"command": command}}),
        "cursor" => json!({"command": command, "cwd": cwd, "workspace_roots": [cwd],
                           "conversation_id": "c-1", "hook_event_name": "beforeShellExecution"}),
        "copilot" => json!({"timestamp": 1_700_000_000, "cwd": cwd, "toolName": "bash",
                            "toolArgs": json!({"command": command, "description": "d"}).to_string()}),
        "opencode" => {
            json!({"tool": "bash", "args": {"command": command}, "sessionID": "o-1", "cwd": cwd})
        }
        _ => unreachable!(),
    }
}

pub(crate) const AGENTS: [&str; 6] = ["claude", "codex", "gemini", "cursor", "copilot", "opencode"];

/// The decision and reason `agent` read from vouch's reply (Codex: exit 2
/// and the reason on stderr is its deny).
pub(crate) fn decision_of(agent: &str, out: &Out) -> (String, String) {
    if agent == "codex" {
        out.code(2);
        return ("deny".into(), out.stderr.clone());
    }
    out.code(0);
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let (decision, reason) = match agent {
        "claude" => (
            &v["hookSpecificOutput"]["permissionDecision"],
            &v["hookSpecificOutput"]["permissionDecisionReason"],
        ),
        "gemini" | "opencode" => (&v["decision"], &v["reason"]),
        "cursor" => (&v["permission"], &v["agent_message"]),
        "copilot" => (&v["permissionDecision"], &v["permissionDecisionReason"]),
        _ => unreachable!(),
    };
    let text = |x: &Value| x.as_str().unwrap_or_default().to_owned();
    (text(decision), text(reason))
}

#[test]
fn every_agent_protocol_end_to_end() {
    let env = TestEnv::new();
    env.write_config(&env.verifier("judge", &verdict_body("fail"), "blocking = true"));
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    env.commit(&env.work, "solo.txt", "only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    for agent in AGENTS {
        // Harmless: no opinion (Cursor, which expects an answer, gets allow).
        let out = hook(
            &env,
            agent,
            &input(agent, "git status && git log -3", &env.work),
        );
        out.code(0);
        if agent == "cursor" {
            assert_eq!(out.stdout.trim(), r#"{"permission":"allow"}"#);
        } else if agent == "opencode" {
            // vouch's plugin warns on anything but an explicit allow.
            assert_eq!(out.stdout.trim(), r#"{"decision":"allow"}"#);
        } else {
            assert_eq!(out.stdout, "", "{agent}");
        }
        // Dangerous, and the verifier refuses: denied in the agent's words.
        let out = hook(&env, agent, &input(agent, "git branch -D solo", &env.work));
        let (decision, reason) = decision_of(agent, &out);
        assert_eq!(decision, "deny", "{agent}: {}", out.stdout);
        assert!(reason.contains("git branch -D solo"), "{agent}: {reason}");
        // Nothing that lets the agent approve itself.
        for hint in ["VOUCH_SKIP", "vouch approve", "--no-verify"] {
            assert!(
                !reason.contains(hint),
                "{agent} was told `{hint}`: {reason}"
            );
        }
        let record = env.last_audit();
        assert_eq!(record["hook"], agent);
        assert_eq!(record["decision"], "refused");
        assert_eq!(record["risk_tier"], "critical");
    }
    assert!(
        env.rev(&env.work, "solo").len() == 40,
        "the hook only answers; the branch is untouched"
    );
}

#[test]
fn warnings_ask_where_the_agent_can_ask_and_deny_where_it_cannot() {
    let env = TestEnv::new();
    env.write_config(&env.verifier("careful", &verdict_body("warn"), ""));
    fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    let claude = hook(
        &env,
        "claude",
        &input("claude", "git reset --hard", &env.work),
    );
    claude.code(0).stdout_has(r#""permissionDecision":"ask""#);
    // Handed to the person, who answers in the agent (issue 27 item 1:
    // no longer logged as a refusal).
    let record = env.last_audit();
    assert_eq!(record["decision"], "asked-person");
    assert_eq!(record["asked_through"], "claude");
    assert_eq!(record["result"], "warn");
    let codex = hook(
        &env,
        "codex",
        &input("codex", "git reset --hard", &env.work),
    );
    codex.code(2);
    let gemini = hook(
        &env,
        "gemini",
        &input("gemini", "git reset --hard", &env.work),
    );
    gemini.code(0).stdout_has(r#""decision":"deny""#);
}

#[test]
fn malformed_input_is_a_clear_error_and_a_critical_looking_command_is_denied() {
    let env = TestEnv::new();
    let out = env.vouch_stdin(&["agent-hook", "claude"], b"not json at all");
    out.code(1).stderr_has("cannot read claude's hook input");
    assert_eq!(out.stdout, "");
    let out = env.vouch_stdin(
        &["agent-hook", "claude"],
        br#"{"tool_name":"Bash","tool_input":{"command":"rm -rf / --no-preserve-root"#,
    );
    out.code(0).stdout_has(r#""permissionDecision":"deny""#);
    let out = env.vouch_stdin(
        &["agent-hook", "copilot"],
        br#"{"toolName":"bash","toolArgs":"{broken"}"#,
    );
    out.code(1).stderr_has("toolArgs");
    env.vouch_stdin(&["agent-hook", "nobody"], b"{}")
        .code(2)
        .stderr_has("claude");
}

#[test]
fn a_message_over_a_mebibyte_is_cut_there_and_judged_on_what_was_read() {
    let env = TestEnv::new();
    let message = |command: &str| {
        let mut m =
            format!(r#"{{"tool_name":"Bash","tool_input":{{"command":"{command}"}},"padding":""#)
                .into_bytes();
        m.resize(3 << 20, b'x');
        m.extend_from_slice(br#""}"#);
        m
    };
    // Whole, it is well-formed: read up to 1 MiB only, it is not.
    env.vouch_stdin(&["agent-hook", "claude"], &message("git status"))
        .code(1)
        .stderr_has("cannot read claude's hook input");
    env.vouch_stdin(
        &["agent-hook", "claude"],
        &message("rm -rf / --no-preserve-root"),
    )
    .code(0)
    .stdout_has(r#""permissionDecision":"deny""#);
}

#[test]
fn a_bypass_inside_the_command_is_critical() {
    let env = TestEnv::new();
    for command in [
        "VOUCH_SKIP=ok git push --force origin main",
        "git -c core.hooksPath=/dev/null push --force origin main",
        "git push --no-verify --force origin main",
    ] {
        let out = env.vouch(&["check", "--json", "--operation", command]);
        let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
        assert_eq!(v["tier"], "critical", "{command}: {v}");
    }
}

#[test]
fn the_agent_is_the_primary_and_another_vendor_judges() {
    let server = LlmServer::start(vec![ok(json!({
        "choices": [{"message": {"content": json!({"verified": true, "confidence": 0.95,
            "concerns": [], "recommendation": "proceed", "reasoning": "fine",
            "scores": {"recoverability": 0.9, "blast_radius": 0.9, "intent_fit": 0.9, "safeguards": 0.9}}).to_string()},
            "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}}))]);
    let mut env = TestEnv::new();
    env.extra_env.extend([
        ("OPENAI_BASE_URL".to_owned(), format!("{}/v1", server.url)),
        (
            "OPENAI_API_KEY".to_owned(),
            "sk-TESTKEY-OPENAI-0123".to_owned(),
        ),
        (
            "ANTHROPIC_API_KEY".to_owned(),
            "sk-ant-TESTKEY-0123".to_owned(),
        ),
        (
            "ANTHROPIC_BASE_URL".to_owned(),
            "http://127.0.0.1:9".to_owned(),
        ),
    ]);
    fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    let out = hook(
        &env,
        "claude",
        &input("claude", "git reset --hard", &env.work),
    );
    out.code(0);
    assert_eq!(
        out.stdout, "",
        "a verified command goes on to the agent's own checks"
    );
    let record = env.last_audit();
    assert_eq!(record["primary_provider"], "anthropic");
    assert_eq!(record["verifier_provider"], "openai");
    assert_eq!(record["session_id"], "sess-1");
    assert_eq!(server.count(), 1);
    let prompt = &server.received()[0].body;
    assert!(
        prompt.contains("git reset --hard") && prompt.contains("file1.txt"),
        "{prompt}"
    );
}

#[test]
fn a_critical_command_without_a_verdict_in_time_is_denied() {
    let env = TestEnv::new();
    env.write_config(&format!(
        "[agent]\nbudget_secs = 1\n{}",
        env.verifier(
            "slow",
            &format!("sleep 2\n{}", verdict_body("pass")),
            "timeout_secs = 10"
        )
    ));
    fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    hook(
        &env,
        "gemini",
        &input("gemini", "git reset --hard", &env.work),
    )
    .code(0)
    .stdout_has(r#""decision":"deny""#)
    .stdout_has("No verdict within the time allowed");
}

#[test]
fn user_rules_raise_a_command_and_a_bad_rule_names_the_file() {
    let env = TestEnv::new();
    env.vouch(&["check", "--", "make", "deploy-prod"])
        .code(0)
        .stdout_has("tier: none");
    env.write_config(
        "[[rules]]\npattern = \"make deploy-prod\"\ntier = \"critical\"\nreason = \"our production deploy\"\n",
    );
    env.vouch(&["check", "--", "make", "deploy-prod"])
        .code(1)
        .stdout_has("tier: critical")
        .stdout_has("our production deploy");
    // A repository's `.vouch.toml` may add rules too (they only raise tiers).
    fs::write(
        env.work.join(".vouch.toml"),
        "[[rules]]\npattern = \"wipe-db.sh\"\ntier = \"high\"\nreason = \"wipes the database\"\n",
    )
    .unwrap();
    env.vouch(&["check", "--operation", "./scripts/wipe-db.sh --all"])
        .code(1)
        .stdout_has("wipes the database");
    // A bad rule leaves the whole file out, said on every run (SPEC 3.2);
    // the repository's rule still applies.
    env.write_config("[[rules]]\npattern = \"-f git\"\ntier = \"high\"\nreason = \"x\"\n");
    env.vouch(&["check", "--", "ls"])
        .code(0)
        .stderr_has("config.toml")
        .stderr_has("the first word must be the program");
    env.vouch(&["check", "--operation", "./scripts/wipe-db.sh --all"])
        .code(1)
        .stderr_has("the first word must be the program")
        .stdout_has("wipes the database");
}

#[test]
fn facts_never_lower_a_tier_they_cannot_see() {
    let env = TestEnv::new();
    // `checkout -B` resets the named branch.
    env.git(&env.work, &["switch", "-q", "-c", "topic"]);
    env.commit(&env.work, "t.txt", "only on topic");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.vouch(&["check", "--", "git", "checkout", "-B", "topic", "main"])
        .code(1)
        .stdout_has("tier: critical");
    // From a commit, `checkout -- <paths>` discards staged changes too.
    fs::write(env.work.join("file1.txt"), "staged\n").unwrap();
    env.git(&env.work, &["add", "file1.txt"]);
    env.vouch(&["check", "--", "git", "checkout", "HEAD", "--", "."])
        .code(1)
        .stdout_has("file1.txt");
    // Another repository named by --git-dir: not measured here, the rule's tier stays.
    env.git(&env.work, &["reset", "-q", "--hard"]);
    env.vouch(&[
        "check",
        "--operation",
        "git --git-dir=../elsewhere/.git --work-tree=../elsewhere reset --hard",
    ])
    .code(1)
    .stdout_has("facts not measured");
    // A remote that cannot be reached: its tips are unknown.
    env.vouch(&[
        "check",
        "--",
        "git",
        "push",
        "--force",
        "/nonexistent/remote.git",
        "main",
    ])
    .code(1)
    .stdout_has("did not answer");
}

#[test]
fn credentials_in_a_command_never_reach_the_log() {
    let env = TestEnv::new();
    env.write_config(&env.verifier("judge", &verdict_body("fail"), "blocking = true"));
    env.vouch(&[
        "check",
        "--verify",
        "--operation",
        "psql \"postgres://admin:S3cretPassw0rd@db.prod/app\" -c \"DROP TABLE users\"",
    ])
    .code(1);
    let log = fs::read_to_string(env.state().join("audit.jsonl")).unwrap();
    assert!(log.contains("DROP TABLE") || log.contains("drop"), "{log}");
    assert!(!log.contains("S3cretPassw0rd"), "{log}");
}

#[test]
fn deleting_a_remote_tag_that_is_gone_here_is_a_tag_deletion() {
    let env = TestEnv::new();
    env.git(&env.work, &["tag", "v1.0"]);
    env.git(&env.work, &["push", "-q", "origin", "v1.0"]);
    env.git(&env.work, &["tag", "-d", "v1.0"]);
    let out = env.vouch(&["check", "--", "git", "push", "--delete", "origin", "v1.0"]);
    out.code(1).stdout_has("release tag");
}

#[test]
fn observe_mode_answers_nothing_and_logs_what_it_would_have_done() {
    let env = TestEnv::new();
    env.write_config(&format!(
        "mode = \"observe\"\n{}",
        env.verifier("judge", &verdict_body("fail"), "blocking = true")
    ));
    fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    let out = hook(
        &env,
        "claude",
        &input("claude", "git reset --hard", &env.work),
    );
    out.code(0);
    assert_eq!(out.stdout, "", "observe mode never blocks an agent");
    let record = env.last_audit();
    assert_eq!(record["mode"], "observe");
    assert_eq!(record["decision"], "allowed");
    assert_eq!(record["would_decide"], "refused");
}

/// One decision table for every door: an empty `VOUCH_SKIP` is refused at
/// the agent door as at the git hooks (the agent door used to accept it),
/// and what the agent reads names no override.
#[test]
fn an_empty_skip_is_refused_at_the_agent_door_too() {
    let env = TestEnv::new();
    fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    let mut child = claude_hook(&env).env("VOUCH_SKIP", " ").spawn().unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        claude_input("git reset --hard", &env.work)
            .to_string()
            .as_bytes(),
    )
    .unwrap();
    let out = Out::from_output(child.wait_with_output().unwrap());
    out.code(0).stdout_has(r#""permissionDecision":"deny""#);
    for override_word in ["VOUCH_SKIP", "vouch approve", "--no-verify"] {
        assert!(
            !out.stdout.contains(override_word),
            "the agent is told an override: {}",
            out.stdout
        );
    }
    let record = env.last_audit();
    assert_eq!(record["decision"], "refused");
    assert_eq!(record["result"], "skipped");
}

/// `git vouch check --json` is a contract: words, never Rust `Debug` text.
#[test]
fn check_json_carries_the_result_word() {
    let env = TestEnv::new();
    fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    env.write_config(&env.verifier("judge", &verdict_body("fail"), "blocking = true"));
    let out = env.vouch(&[
        "check", "--verify", "--json", "--", "git", "reset", "--hard",
    ]);
    out.code(1);
    let report: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(report["verdict"]["result"], "block");
    assert_eq!(report["decision"], "refused");
    assert_eq!(report["tier"], "critical");
    assert!(!out.stdout.contains("Proceed {") && !out.stdout.contains("Block"));
}

#[test]
fn turning_vouch_itself_down_is_critical_at_the_agent_door() {
    let env = TestEnv::new();
    env.install();
    let tier = |command: &str| {
        let out = env.vouch(&["check", "--json", "--operation", command]);
        let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
        v["tier"].as_str().unwrap().to_owned()
    };
    // Each of these switched the guard off at tier none (issue 12).
    for command in [
        "vouch uninstall",
        "vouch agent uninstall claude --user",
        "echo '{}' > ~/.claude/settings.json",
        "sed -i 's/enforce/observe/' \"$VOUCH_CONFIG\"",
        "rm .git/hooks/pre-push",
        "ln -sf /bin/true .git/hooks/reference-transaction",
        "git config --global core.hooksPath ~/nohooks",
        "vouch rescue prune --older-than 0d",
        "git update-ref -d refs/vouch/rescue/main/20261122T101500Z",
        // Snapshots (issue 28) are guarded as the rescue refs are.
        "git update-ref -d refs/vouch/snapshots/20261126T124501.123456Z",
        "rm -rf .git/refs/vouch",
        "printf '' > .git/packed-refs",
        "git reflog expire --expire=now --all && git gc --prune=now",
        "git vouch snapshots prune --keep 0 --days 0",
        "vouch trust",
        "rm -f \"$(command -v vouch)\"",
        "VOUCH_NESTED=$$ git branch -D x",
        "GIT_CONFIG_GLOBAL=/dev/null git commit -m x",
    ] {
        assert_eq!(tier(command), "critical", "{command}");
    }
    for command in [
        "cat ~/.claude/settings.json",
        "vouch status",
        "vouch log",
        "cat .git/hooks/pre-push",
    ] {
        assert_eq!(tier(command), "none", "{command}");
    }
    // Through an agent's protocol: not let through silently.
    for agent in AGENTS {
        let out = hook(
            &env,
            agent,
            &input(agent, "rm .git/hooks/pre-push", &env.work),
        );
        let (decision, reason) = decision_of(agent, &out);
        assert!(
            decision == "deny" || decision == "ask",
            "{agent}: {decision} {reason}"
        );
        assert!(reason.contains("critical"), "{agent}: {reason}");
        assert_eq!(env.last_audit()["risk_tier"], "critical");
    }
}

#[test]
fn facts_cannot_lower_a_segment_that_runs_after_a_change() {
    let env = TestEnv::new();
    // The stash is empty and the tree clean: alone, each is harmless.
    check(&env, &["git", "stash", "drop"])
        .code(0)
        .stdout_has("tier: none");
    check(&env, &["git", "reset", "--hard"]).code(0);
    // Read-only before: the facts still hold.
    env.vouch(&["check", "--operation", "git status && git reset --hard"])
        .code(0)
        .stdout_has("tier: none");
    // After a command that may change the repository, the rule's tier stands.
    fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    env.vouch(&["check", "--operation", "git stash && git stash drop"])
        .code(1)
        .stdout_has("tier: high")
        .stdout_has("an earlier command of the line may change the repository first");
    env.vouch(&[
        "check",
        "--operation",
        "git reset --soft HEAD~2 && git push -f origin HEAD:main",
    ])
    .code(1)
    .stdout_has("tier: critical");
}

#[test]
fn a_script_the_command_runs_is_read_and_judged() {
    let env = TestEnv::new();
    fs::create_dir_all(env.work.join("scripts")).unwrap();
    fs::write(
        env.work.join("scripts/clean.sh"),
        "#!/bin/sh\ngit clean -fdx\n",
    )
    .unwrap();
    fs::write(env.work.join("notes.txt"), "my notes\n").unwrap();
    check(&env, &["sh", "scripts/clean.sh"])
        .code(1)
        .stdout_has("tier: critical")
        .stdout_has("notes.txt");
    // The `-e` patterns keep every untracked file: nothing would be lost.
    check(
        &env,
        &["git", "clean", "-fdq", "-e", "notes.txt", "-e", "scripts"],
    )
    .code(0)
    .stdout_has("tier: none");
    // Too large to read: said, and at least high.
    fs::write(env.work.join("big.sh"), "echo hi\n".repeat(10_000)).unwrap();
    check(&env, &["bash", "big.sh"])
        .code(1)
        .stdout_has("cannot read the script `big.sh` that is run")
        .stdout_has("more than the 65536 vouch reads");
    // Written and run in the same line: judged by what was written.
    env.vouch(&[
        "check",
        "--operation",
        "echo 'git clean -fdx' > \"$TMPDIR/x.sh\"; sh \"$TMPDIR/x.sh\"",
    ])
    .code(1)
    .stdout_has("tier: critical");
}

/// The git hooks know when an agent drives them, for every agent's marker
/// (issue 13, item 2): an unverifiable force push is refused, never allowed
/// with a warning as for a person at git.
#[test]
fn a_push_from_any_agents_shell_is_refused_without_a_verdict() {
    for (var, value, name) in [
        ("GEMINI_CLI", "1", "Gemini CLI"),
        ("CODEX_SANDBOX", "seatbelt", "Codex"),
        ("CURSOR_AGENT", "1", "Cursor"),
        ("OPENCODE", "1", "OpenCode"),
    ] {
        let env = TestEnv::new();
        env.install();
        let before = env.remote_ref("main").unwrap();
        env.rewind(1);
        let out = crate::support::Out::from_output(
            env.cmd("setsid", &env.work)
                .args(["-w", "git", "push", "--force", "origin", "main"])
                .env(var, value)
                .output()
                .unwrap(),
        );
        out.code(1)
            .stderr_has(&format!("started by {name}"))
            .stderr_has("an agent cannot decide");
        assert_eq!(env.remote_ref("main").unwrap(), before, "{var}");
        // The same push from a person's shell: allowed with a warning.
        let out = env.push(&["--force", "origin", "main"]);
        out.code(0);
    }
}

/// A fetch into a local branch moves it like `branch -f`: a push after it
/// keeps its rule's tier, since the facts were measured before the move.
#[test]
fn a_fetch_into_a_local_branch_is_a_change_before_the_push() {
    let env = TestEnv::new();
    env.git(&env.work, &["branch", "feature"]);
    env.git(&env.work, &["push", "-q", "origin", "feature"]);
    // Alone, the push is measured: the remote has what is here, nothing goes.
    check(&env, &["git", "push", "-f", "origin", "feature"])
        .code(0)
        .stdout_has("tier: none");
    env.vouch(&[
        "check",
        "--operation",
        "git fetch . +HEAD~1:feature && git push -f origin feature",
    ])
    .code(1)
    .stdout_has("tier: high");
    // A fetch into remote-tracking refs changes no branch.
    env.vouch(&[
        "check",
        "--operation",
        "git fetch origin && git push -f origin feature",
    ])
    .code(0)
    .stdout_has("tier: none");
}

/// Issue 26 item 12: a judgement that cannot finish within the deadline is
/// denied by the door's watchdog, in every agent's words, and logged: an
/// agent runs the command when its hook times out. Here the repository
/// cannot be read (`packed-refs` is a named pipe nobody writes).
#[test]
fn a_judgement_past_the_deadline_is_denied_in_time() {
    let env = TestEnv::new();
    // The deadline is the verdict's budget and a margin: 1 s + 5 s.
    env.write_config("[agent]\nbudget_secs = 1\n");
    env.git(&env.work, &["pack-refs", "--all"]);
    let packed = env.work.join(".git/packed-refs");
    fs::remove_file(&packed).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&packed)
        .status()
        .unwrap();
    assert!(made.success());
    // A credential in the command never reaches the log.
    let command = "PGPASSWORD=hunter2 git push --force origin main";
    for agent in ["claude", "codex", "cursor"] {
        let out = hook(&env, agent, &input(agent, command, &env.work));
        let (decision, reason) = decision_of(agent, &out);
        assert_eq!(decision, "deny", "{agent}: {out:?}");
        assert!(
            reason.contains("could not finish judging this command within 6 s"),
            "{agent}: {reason}"
        );
        let record = env.last_audit_of(agent);
        assert_eq!(record["decision"], "refused", "{record}");
        assert_eq!(record["risk_tier"], "critical", "{record}");
        assert!(
            record["reasons"].to_string().contains("git push --force"),
            "{record}"
        );
        assert!(!record.to_string().contains("hunter2"), "{record}");
    }
}

/// An agent that never finishes writing its message (its pipe stays open)
/// gets the watchdog's denial in time too: the door starts the watchdog
/// before it waits for the rest.
#[test]
fn a_message_never_finished_is_denied_in_time() {
    let env = TestEnv::new();
    env.write_config("[agent]\nbudget_secs = 1\n");
    let mut child = claude_hook(&env).spawn().unwrap();
    let message = claude_input("git push --force origin main", &env.work).to_string();
    // Half of it, and the pipe kept open while vouch answers.
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, &message.as_bytes()[..message.len() / 2]).unwrap();
    // A vouch that waits for the rest fails the test (and gets its end).
    let waited = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(30),
            "vouch waited for the message past its deadline"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = Out::from_output(child.wait_with_output().unwrap());
    drop(stdin);
    let (decision, reason) = decision_of("claude", &out);
    assert_eq!(decision, "deny", "{out:?}");
    assert!(
        reason.contains("could not finish judging this command within 6 s"),
        "{reason}"
    );
    let record = env.last_audit();
    assert_eq!(record["decision"], "refused", "{record}");
    assert_eq!(record["risk_tier"], "critical", "{record}");
}

/// Issue 26 item 12: nesting that took seconds per level to read is read
/// at once, in every shape, and the buried command keeps its tier.
#[test]
fn deeply_nested_commands_are_judged_at_once_by_what_they_run() {
    let env = TestEnv::new();
    fs::write(env.work.join("notes.txt"), "untracked work\n").unwrap();
    let shapes: [fn(&str) -> String; 4] = [
        |c| format!("$({c})"),
        |c| format!("echo $({c})"),
        |c| format!("sh -c \"$({c})\""),
        |c| format!("x=$( {c} )"),
    ];
    for wrap in shapes {
        let mut line = "git clean -fdx".to_owned();
        for _ in 0..24 {
            line = wrap(&line);
        }
        let out = env.claude(&line);
        let (decision, reason) = decision_of("claude", &out);
        assert!(decision == "ask" || decision == "deny", "{line}: {out:?}");
        assert!(reason.contains("is critical risk"), "{line}: {reason}");
        assert!(reason.contains("git clean -fdx"), "{line}: {reason}");
    }
}

/// Issue 26 item 12: text outside ASCII before a colon (a commit subject,
/// an `echo`) is read, never an internal error, at every door.
#[test]
fn text_outside_ascii_is_judged_not_a_crash() {
    let env = TestEnv::new();
    for command in [
        "git commit -m \"café: fix\"",
        "echo \"Größe: 5\"",
        "printf '%s\\n' \"日本語: テスト\"",
    ] {
        let out = env.claude(command);
        out.code(0);
        assert!(out.stdout.trim().is_empty(), "no opinion: {out:?}");
        assert!(!out.stderr.contains("panicked"), "{out:?}");
        env.vouch(&["check", "--operation", command]).code(0);
    }
    env.vouch(&["check", "--", "git", "commit", "-m", "café: fix"])
        .code(0);
}

/// A script the line runs that is a named pipe holds what only the run
/// knows: judged as unreadable (high), never waited on.
#[test]
fn a_named_pipe_run_as_a_script_is_not_waited_on() {
    let env = TestEnv::new();
    let made = std::process::Command::new("mkfifo")
        .arg(env.work.join("job.sh"))
        .status()
        .unwrap();
    assert!(made.success());
    env.vouch(&["check", "--operation", "bash job.sh"])
        .code(1)
        .stdout_has("tier: high")
        .stdout_has("not a regular file");
}

/// Issue 26 item 15: a ref the command itself creates and then removes is
/// no loss to ask about (what the line commits on it is judged by the
/// reference-transaction hook); a ref that exists before the command still
/// is. Issue 29: where that hook does not reach vouch, nothing would judge
/// it, and the door judges the line at its full tier.
#[test]
fn a_ref_created_and_removed_in_the_same_command_is_no_stop() {
    let env = TestEnv::new();
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    env.commit(&env.work, "solo.txt", "only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.git(&env.work, &["tag", "kept"]);
    let unguarded = "git checkout -b tmp && git commit -q --allow-empty -m x && git checkout - && git branch -D tmp";
    let (decision, reason) = decision_of("claude", &env.claude(unguarded));
    assert!(
        (decision == "ask" || decision == "deny") && reason.contains("not reached"),
        "{decision}: {reason}"
    );
    env.install();
    let out = env.claude(unguarded);
    out.code(0);
    assert!(out.stdout.trim().is_empty(), "{out:?}");
    for command in [
        "git branch x && git branch -D x",
        "git branch x; git branch --delete --force x",
        "git checkout -b tmp && git checkout - && git branch -D tmp",
        "git switch -c y && git switch - && git branch -d y",
        "git tag t1 && git tag -d t1",
        "git tag -a t2 -m note && git tag --delete t2",
        "git tag v9.9 && git tag -d v9.9",
    ] {
        let out = env.claude(command);
        out.code(0);
        assert!(out.stdout.trim().is_empty(), "{command}: {out:?}");
    }
    // What exists before the command is still judged.
    for command in [
        "git branch x && git branch -D solo",
        "git tag t1 && git tag -d kept",
    ] {
        let (decision, reason) = decision_of("claude", &env.claude(command));
        assert!(
            decision == "ask" || decision == "deny",
            "{command}: {reason}"
        );
    }
}

/// Issue 26 item 7: dropping a stash entry that is not the last makes no
/// ref update, so no git hook sees it; the agent door judges every
/// spelling of it (and of clearing the stash, or deleting it as a ref).
#[test]
fn every_spelling_of_dropping_a_stash_entry_is_judged() {
    let env = TestEnv::new();
    for (file, text) in [("file1.txt", "first"), ("file2.txt", "second")] {
        fs::write(env.work.join(file), text).unwrap();
        env.git(&env.work, &["stash", "-q"]);
    }
    for command in [
        "git stash drop",
        "git stash drop stash@{1}",
        "git stash drop 1",
        "git stash drop -q stash@{1}",
        "git stash drop --quiet 1",
        "git stash clear",
        "git -c core.pager=cat stash drop stash@{1}",
        "git -C . stash drop 1",
        "git reflog delete refs/stash@{1}",
        "git reflog delete --updateref stash@{0}",
        "git update-ref -d refs/stash",
        "git reflog expire --expire-unreachable=now refs/stash",
    ] {
        let (decision, reason) = decision_of("claude", &env.claude(command));
        assert!(
            decision == "ask" || decision == "deny",
            "{command}: {reason}"
        );
    }
    assert_eq!(
        env.git(&env.work, &["stash", "list"]).lines().count(),
        2,
        "nothing ran"
    );
}

/// Issue 29 item 6: a shell function defined and called in the line is
/// judged where it is defined and where it is called; its reason appears
/// once in the agent's answer, which also says why there is no verdict.
#[test]
fn a_function_defined_and_called_gives_its_reason_once() {
    let env = TestEnv::new();
    env.rewind(1);
    let out = env.claude("f() { git push --force origin main; }; f");
    out.code(0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert_eq!(
        reason.matches("force push to a protected branch").count(),
        1,
        "{reason}"
    );
    assert_eq!(
        reason
            .matches("force push rewrites the remote branch")
            .count(),
        1,
        "{reason}"
    );
    assert!(reason.contains("no AI provider has a key"), "{reason}");
    let check = env.vouch(&[
        "check",
        "--operation",
        "f() { git push --force origin main; }; f",
    ]);
    assert_eq!(
        check
            .stdout
            .matches("force push to a protected branch")
            .count(),
        1,
        "{}",
        check.stdout
    );
}

/// `check --cwd` with a relative path shows and judges the directory it
/// names, not the path as typed.
#[test]
fn check_shows_the_directory_cwd_names() {
    let env = TestEnv::new();
    let other = env.base().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let out = env.vouch(&[
        "check",
        "--json",
        "--cwd",
        "../other",
        "--operation",
        "git status",
    ]);
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(
        v["cwd"].as_str().unwrap(),
        std::fs::canonicalize(&other).unwrap().to_str().unwrap(),
        "{v}"
    );
}

/// What `check` cannot judge without `--verify` is held where it would be
/// verified: a standard command only with `verify_standard = true`.
#[test]
fn check_holds_a_standard_command_only_when_standard_is_verified() {
    let env = TestEnv::new();
    let check = |env: &TestEnv| env.vouch(&["check", "--json", "--operation", "git rebase main"]);
    let out = check(&env);
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["tier"], "standard", "{v}");
    out.code(0);
    env.write_config("verify_standard = true\n");
    check(&env).code(1);
}
