//! One decision per operation, whichever doors it passes (issue 35): a
//! dry run is no operation at any door; an `ask` the person answered at
//! the agent's prompt reaches the git doors for exactly what was shown;
//! a refusal leaves the repository as it was (`refused_half_way.rs`).

use std::fs;

use serde_json::{Value, json};

use crate::support::{Out, TestEnv, is_decision};

/// The audit lines that record a decision.
fn decisions(env: &TestEnv) -> Vec<Value> {
    env.audit().into_iter().filter(is_decision).collect()
}

/// A command through Claude Code's pre-tool hook, with a permission mode.
fn claude(env: &TestEnv, command: &str, mode: &str) -> Out {
    let input = json!({"session_id": "s-1", "cwd": env.work,
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "permission_mode": mode,
        "tool_input": {"command": command}});
    env.vouch_stdin(&["agent-hook", "claude"], input.to_string().as_bytes())
}

/// The permission decision of a Claude Code reply (`none` when vouch has
/// no opinion).
fn decision(out: &Out) -> String {
    if out.stdout.trim().is_empty() {
        return "none".into();
    }
    let v: Value = serde_json::from_str(out.stdout.trim()).expect("Claude Code's reply is JSON");
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("none")
        .to_owned()
}

/// `git push --dry-run` (git runs `pre-push` on it without saying so),
/// `clean -n`, `rm -n`, `add -n`: nothing changes, so no door judges,
/// asks, refuses or logs them, for a person or an agent; the same pushes
/// without the dry run are refused where an agent drives them.
#[test]
fn a_dry_run_is_no_operation_at_any_door() {
    let mut env = TestEnv::new();
    env.install();
    fs::write(env.work.join("untracked.txt"), "x").unwrap();
    let remote_main = env.remote_ref("refs/heads/main");
    for agent in [false, true] {
        env.extra_env = if agent {
            vec![("CLAUDECODE".into(), "1".into())]
        } else {
            Vec::new()
        };
        for push in [
            &["--dry-run", "--force", "origin", "HEAD~2:main"][..],
            &["-n", "-f", "origin", "HEAD~2:main"],
            &["-fn", "origin", ":main"],
            &["--force", "origin", "HEAD~2:main", "--dry-run"],
        ] {
            let out = env.push(push);
            out.code(0);
            assert!(!out.stderr.contains("refused"), "{push:?}: {}", out.stderr);
        }
        assert_eq!(env.remote_ref("refs/heads/main"), remote_main);
    }
    assert!(decisions(&env).is_empty(), "{:?}", env.audit());
    // The agent door has no opinion, and takes no snapshot: nothing changes.
    env.extra_env.clear();
    for command in [
        "git push --dry-run --force origin HEAD~2:main",
        "git clean -nfd",
        "git rm -rn .",
        "git add -n .",
        "git mv -n file1.txt moved.txt",
    ] {
        let out = claude(&env, command, "default");
        out.code(0);
        assert_eq!(decision(&out), "none", "{command}: {}", out.stdout);
    }
    assert!(env.audit().is_empty(), "{:?}", env.audit());
    // The same push for real, driven by an agent without a verdict: refused.
    env.extra_env = vec![("CLAUDECODE".into(), "1".into())];
    env.push(&["--force", "origin", "HEAD~2:main"]).code(1);
    assert_eq!(env.remote_ref("refs/heads/main"), remote_main);
}

/// A git command run in the agent's shell: Claude Code marks it so.
fn agent_git(env: &TestEnv, args: &[&str]) -> Out {
    Out::from_output(
        env.cmd("setsid", &env.work)
            .arg("-w")
            .arg("git")
            .args(args)
            .env("CLAUDECODE", "1")
            .output()
            .expect("git runs"),
    )
}

/// The approval records the agent door wrote.
fn asked_files(env: &TestEnv) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = fs::read_dir(env.state().join("asked"))
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The last decision a git door logged.
#[track_caller]
fn last_git_decision(env: &TestEnv) -> Value {
    decisions(env)
        .into_iter()
        .rev()
        .find(|r| r["hook"] != "claude")
        .expect("a git door logged a decision")
}

/// A branch `name` holding one commit no other ref has; `main` checked out.
fn solo_branch(env: &TestEnv, name: &str) -> String {
    env.git(&env.work, &["switch", "-q", "-c", name]);
    let oid = env.commit(
        &env.work,
        &format!("{name}.txt"),
        &format!("only on {name}"),
    );
    env.git(&env.work, &["switch", "-q", "main"]);
    oid
}

fn has_ref(env: &TestEnv, name: &str) -> bool {
    env.git_out(&env.work, &["rev-parse", "--verify", "-q", name])
        .code
        == 0
}

/// Claude Code asks its person (no verdict: no key), the person says yes,
/// the agent runs the command: vouch's git doors let exactly that through,
/// once, and the audit line says who approved it and where. The same line
/// run again is judged as before: refused where an agent drives it.
#[test]
fn an_ask_answered_at_claude_codes_prompt_reaches_the_git_doors_once() {
    let env = TestEnv::new();
    env.install();

    // git reset --hard HEAD~2, losing two commits never pushed.
    let start = env.rev(&env.work, "HEAD");
    env.commit(&env.work, "four.txt", "four");
    let tip = env.commit(&env.work, "five.txt", "five");
    let out = claude(&env, "git reset --hard HEAD~2", "default");
    assert_eq!(decision(&out), "ask", "{}", out.stdout);
    agent_git(&env, &["reset", "--hard", "HEAD~2"]).code(0);
    assert_eq!(env.rev(&env.work, "HEAD"), start);
    let line = last_git_decision(&env);
    assert_eq!(line["hook"], "reference-transaction", "{line}");
    assert_eq!(line["decision"], "allowed", "{line}");
    let why = line["override_reason"].as_str().unwrap_or_default();
    assert!(
        why.contains("Claude Code's prompt") && why.contains("session s-1"),
        "{line}"
    );
    assert_eq!(line["session_id"], "s-1", "{line}");
    // Once: the same line again (the branch put back where it was).
    env.git(&env.work, &["reset", "-q", "--hard", &tip]);
    agent_git(&env, &["reset", "--hard", "HEAD~2"]).code(128);
    assert_eq!(env.rev(&env.work, "refs/heads/main"), tip);

    // git branch -D, orphaning a commit.
    let solo = solo_branch(&env, "solo");
    assert_eq!(
        decision(&claude(&env, "git branch -D solo", "default")),
        "ask"
    );
    agent_git(&env, &["branch", "-D", "solo"]).code(0);
    assert!(!has_ref(&env, "refs/heads/solo"));
    assert_eq!(last_git_decision(&env)["decision"], "allowed");
    env.git(&env.work, &["branch", "solo", &solo]);
    agent_git(&env, &["branch", "-D", "solo"]).code(128);
    assert!(
        has_ref(&env, "refs/heads/solo"),
        "a second run is judged anew"
    );

    // git tag -d (a release tag: critical).
    env.git(&env.work, &["tag", "v1", "HEAD~1"]);
    let out = claude(&env, "git tag -d v1", "default");
    assert_eq!(decision(&out), "ask", "{}", out.stdout);
    agent_git(&env, &["tag", "-d", "v1"]).code(0);
    assert!(!has_ref(&env, "refs/tags/v1"));

    // git stash drop of the only entry.
    fs::write(env.work.join("file1.txt"), "work in progress\n").unwrap();
    env.git(&env.work, &["stash", "-q"]);
    assert_eq!(decision(&claude(&env, "git stash drop", "default")), "ask");
    agent_git(&env, &["stash", "drop"]).code(0);
    assert!(!has_ref(&env, "refs/stash"));
    assert_eq!(env.git(&env.work, &["stash", "list"]), "");

    // git push --force, taking a commit off the remote's main.
    env.git(&env.work, &["reset", "-q", "--hard", &start]);
    env.git(&env.work, &["push", "-q", "origin", "main"]);
    env.rewind(1);
    let out = claude(&env, "git push --force origin main", "default");
    assert_eq!(decision(&out), "ask", "{}", out.stdout);
    agent_git(&env, &["push", "--force", "origin", "main"]).code(0);
    assert_eq!(
        env.remote_ref("refs/heads/main"),
        Some(env.rev(&env.work, "HEAD"))
    );
    let line = last_git_decision(&env);
    assert_eq!(line["hook"], "pre-push", "{line}");
    assert!(
        line["override_reason"]
            .as_str()
            .is_some_and(|r| r.contains("Claude Code's prompt")),
        "{line}"
    );
}

/// Where no person answers Claude Code's prompt (`auto`: a classifier
/// does; `dontAsk`; `bypassPermissions`; a message naming no mode), vouch
/// denies instead of asking, in words for the model, and writes no
/// approval.
#[test]
fn where_no_person_answers_the_prompt_the_door_denies() {
    let env = TestEnv::new();
    solo_branch(&env, "solo");
    for mode in ["auto", "dontAsk", "bypassPermissions", ""] {
        let input = if mode.is_empty() {
            json!({"session_id": "s-1", "cwd": env.work, "hook_event_name": "PreToolUse",
                "tool_name": "Bash", "tool_input": {"command": "git branch -D solo"}})
        } else {
            json!({"session_id": "s-1", "cwd": env.work, "hook_event_name": "PreToolUse",
                "tool_name": "Bash", "permission_mode": mode,
                "tool_input": {"command": "git branch -D solo"}})
        };
        let out = env.vouch_stdin(&["agent-hook", "claude"], input.to_string().as_bytes());
        assert_eq!(decision(&out), "deny", "{mode}: {}", out.stdout);
        assert!(
            out.stdout.contains("tell the person"),
            "{mode}: {}",
            out.stdout
        );
        assert!(asked_files(&env).is_empty(), "{mode}");
    }
    // The person's own modes ask, worded for the person.
    for mode in ["default", "acceptEdits", "plan"] {
        let out = claude(&env, "git branch -D solo", mode);
        assert_eq!(decision(&out), "ask", "{mode}: {}", out.stdout);
        assert!(
            out.stdout.contains("If you allow it") && !out.stdout.contains("tell the person"),
            "{mode}: {}",
            out.stdout
        );
    }
}

/// An approval is bound to what was shown: forged, edited or widened, used
/// for another command or from another agent process, or outdone by the
/// repository changing since, it lets nothing through; and the agent's
/// own shell cannot write one past the agent door.
#[test]
fn an_approval_cannot_be_forged_widened_or_carried_elsewhere() {
    let env = TestEnv::new();
    env.install();
    let solo = solo_branch(&env, "solo");
    solo_branch(&env, "other");

    // Forged: the record as the door wrote it, with another MAC.
    assert_eq!(
        decision(&claude(&env, "git branch -D solo", "default")),
        "ask"
    );
    let files = asked_files(&env);
    assert_eq!(files.len(), 1);
    let real: Value = serde_json::from_slice(&fs::read(&files[0]).unwrap()).unwrap();
    let forged = json!({"shown": real["shown"], "mac": "0".repeat(64)});
    fs::write(&files[0], forged.to_string()).unwrap();
    agent_git(&env, &["branch", "-D", "solo"]).code(128);
    assert!(has_ref(&env, "refs/heads/solo"));

    // Widened: the shown text edited to name another branch, MAC kept.
    let mut shown: Value = serde_json::from_str(real["shown"].as_str().unwrap()).unwrap();
    shown["git"] = json!([["branch", "-D", "solo", "other"]]);
    let widened = json!({"shown": shown.to_string(), "mac": real["mac"]});
    fs::write(&files[0], widened.to_string()).unwrap();
    agent_git(&env, &["branch", "-D", "solo", "other"]).code(128);
    assert!(has_ref(&env, "refs/heads/solo") && has_ref(&env, "refs/heads/other"));

    // A genuine record, used for more than it shows.
    fs::write(&files[0], serde_json::to_vec(&real).unwrap()).unwrap();
    agent_git(&env, &["branch", "-D", "solo", "other"]).code(128);
    assert!(has_ref(&env, "refs/heads/solo") && has_ref(&env, "refs/heads/other"));
    // ... or for another command of the same session.
    agent_git(&env, &["branch", "-D", "other"]).code(128);
    assert!(has_ref(&env, "refs/heads/other"));
    // ... or after the branch gained a commit the person was not shown.
    env.git(&env.work, &["switch", "-q", "solo"]);
    env.commit(&env.work, "more.txt", "one more");
    env.git(&env.work, &["switch", "-q", "main"]);
    agent_git(&env, &["branch", "-D", "solo"]).code(128);
    assert!(has_ref(&env, "refs/heads/solo"));
    env.git(&env.work, &["branch", "-f", "solo", &solo]);

    // Written for another agent process (another session): not this one's.
    for f in asked_files(&env) {
        fs::remove_file(f).unwrap();
    }
    let input = json!({"session_id": "s-2", "cwd": env.work, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "permission_mode": "default",
        "tool_input": {"command": "git branch -D solo"}});
    let mut child = env
        .cmd("perl", &env.work)
        .args(["-e", "exit(system(@ARGV) >> 8)"])
        .arg(crate::support::vouch_bin())
        .args(["agent-hook", "claude"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("perl runs");
    {
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(r#""permissionDecision":"ask""#));
    assert_eq!(asked_files(&env).len(), 1);
    agent_git(&env, &["branch", "-D", "solo"]).code(128);
    assert!(has_ref(&env, "refs/heads/solo"));

    // The agent's shell cannot put a record there without vouch judging it.
    let store = env.state().join("asked");
    for command in [
        format!("cp /tmp/approval.json {}/", store.display()),
        format!("echo '{{}}' > {}/x.json", store.display()),
        format!("tee {}/x.json < /tmp/approval.json", store.display()),
    ] {
        let out = claude(&env, &command, "default");
        assert_ne!(decision(&out), "none", "{command}: {}", out.stdout);
    }
}

/// What the agent door let through on a verdict, the git doors do not
/// refuse half way, even when a second verdict would differ; a command the
/// agent door never saw is judged there.
#[test]
fn a_command_the_agent_door_allowed_is_not_refused_half_way() {
    let env = TestEnv::new();
    env.install();
    let mark = env.base().join("judged-once");
    let body = format!(
        "cat >/dev/null\nif [ -e '{m}' ]; then echo '{{\"status\":\"fail\",\"summary\":\"said fail\"}}'; exit 1; fi\ntouch '{m}'\necho '{{\"status\":\"pass\",\"summary\":\"said pass\"}}'",
        m = mark.display()
    );
    env.write_config(&env.verifier("once", &body, "blocking = true"));
    solo_branch(&env, "solo");
    solo_branch(&env, "other");
    assert_eq!(
        decision(&claude(&env, "git branch -D solo", "default")),
        "none"
    );
    agent_git(&env, &["branch", "-D", "solo"]).code(0);
    assert!(!has_ref(&env, "refs/heads/solo"));
    let line = last_git_decision(&env);
    assert!(
        line["override_reason"]
            .as_str()
            .is_some_and(|r| r.contains("allowed by the verifiers")),
        "{line}"
    );
    // Not seen by the agent door: the verifier, asked now, refuses.
    agent_git(&env, &["branch", "-D", "other"]).code(128);
    assert!(has_ref(&env, "refs/heads/other"));
}
