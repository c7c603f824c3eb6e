//! One decision per operation, whichever doors it passes (issue 35): a
//! dry run is no operation at any door; an `ask` the person answered at
//! the agent's prompt reaches the git doors for exactly what was shown;
//! a refusal leaves the repository as it was.

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
