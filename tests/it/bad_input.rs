//! Bad input of every kind: a clear message, never a panic, never a silent
//! allow of a critical operation.

use crate::support::{Out, TestEnv, verdict_body};

const Z: &str = "0000000000000000000000000000000000000000";

fn hook(env: &TestEnv, input: &[u8]) -> crate::support::Out {
    let url = env.remote.display().to_string();
    env.vouch_stdin(&["hook", "pre-push", "--", "origin", &url], input)
}

#[test]
fn malformed_pre_push_lines_are_refused_with_the_line_named() {
    let env = TestEnv::new();
    let out = hook(&env, b"refs/heads/main deadbeef\n");
    out.code(1).stderr_has("pre-push input line 1");
    assert!(
        !out.stderr.contains("--no-verify"),
        "no refusal names a way past vouch: {}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    let record = env.last_audit();
    assert_eq!(
        record["decision"], "refused",
        "a refusal before judging is logged too"
    );
    assert!(record["warnings"][0].as_str().unwrap().contains("line 1"));
    let head = env.rev(&env.work, "HEAD");
    let out = hook(
        &env,
        format!("refs/heads/main {head} refs/heads/main {head}\ngarbage\n").as_bytes(),
    );
    out.code(1).stderr_has("line 2");
}

/// A malformed line reaching the server door is refused, named as a
/// pre-receive line (the line reader is shared with pre-push).
#[test]
fn malformed_pre_receive_lines_are_refused_with_the_hook_named() {
    let env = TestEnv::new();
    let out = env.vouch_stdin(&["hook", "pre-receive"], b"deadbeef refs/heads/main\n");
    out.code(1).stderr_has("pre-receive input line 1");
    assert!(!out.stderr.contains("pre-push"), "{}", out.stderr);
}

/// A refusal logged before the operation is judged goes where the user's
/// `[log] path` says, so `git vouch log` shows it (it went to the default).
#[test]
fn a_refusal_before_judging_goes_to_the_users_log() {
    let env = TestEnv::new();
    let custom = env.base().join("custom-audit.jsonl");
    env.write_config(&format!("[log]\npath = \"{}\"\n", custom.display()));
    hook(&env, b"refs/heads/main deadbeef\n").code(1);
    let text = std::fs::read_to_string(&custom).expect("the user's log was written");
    let record: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(record["decision"], "refused");
    assert_eq!(record["risk_tier"], serde_json::Value::Null);
    assert!(env.audit().is_empty(), "nothing went to the default log");
    env.vouch(&["log"]).code(0).stdout_has("refused");
}

#[test]
fn non_utf8_ref_name_is_judged_not_crashed() {
    let env = TestEnv::new();
    env.write_config("[on_unavailable]\nhigh = \"block\"\ncritical = \"block\"\n");
    let head = env.rev(&env.work, "HEAD");
    let mut line = b"(delete) ".to_vec();
    line.extend_from_slice(Z.as_bytes());
    line.extend_from_slice(b" refs/heads/caf\xe9 ");
    line.extend_from_slice(head.as_bytes());
    line.push(b'\n');
    let out = hook(&env, &line);
    out.code(1).stderr_has("not UTF-8");
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert_eq!(env.last_audit()["refs"][0]["rule"], "delete_branch");
}

/// Asserts the run said, in one line, that the file at `file` was ignored
/// and why (`what`), and named no way around vouch.
#[track_caller]
fn said_ignored(out: &Out, file: &str, what: &str) {
    said_once(out, file, "the file is ignored", what);
}

/// Asserts the run said, in one line naming `file` and `kind`, `what`,
/// and named no way around vouch.
#[track_caller]
fn said_once(out: &Out, file: &str, kind: &str, what: &str) {
    let lines: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains(file) && l.contains(kind))
        .collect();
    assert_eq!(lines.len(), 1, "one line:\n{}", out.stderr);
    assert!(lines[0].contains(what), "{what}: {}", lines[0]);
    assert!(!out.stderr.contains("--no-verify"), "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

/// A branch with a commit no other ref has, and `main` checked out.
fn unique_branch(env: &TestEnv) {
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    env.commit(&env.work, "solo.txt", "only here");
    env.git(&env.work, &["switch", "-q", "main"]);
}

#[test]
fn an_unparsable_repository_file_is_ignored_alike_at_every_door() {
    let env = TestEnv::new();
    // The user's own verifier refuses: it must survive the broken team file.
    env.write_config(&env.verifier("judge", &verdict_body("fail"), "blocking = true"));
    env.install();
    // The team's file is not TOML (a table header left open on line 2).
    let broken = "mode = \"observe\"\n[protected\nbranches = [\"main\"]\n";
    env.commit(&env.work, ".vouch.toml", broken);
    let what = "line 2";
    // An ordinary commit and push go on, and say why the file is ignored.
    std::fs::write(env.work.join("b.txt"), "b").unwrap();
    env.git(&env.work, &["add", "b.txt"]);
    let out = env.git_out(&env.work, &["commit", "-q", "-m", "b"]);
    out.code(0);
    said_ignored(&out, ".vouch.toml", what);
    out.stderr_has("cannot be parsed");
    let out = env.push(&["origin", "main"]);
    out.code(0);
    said_ignored(&out, ".vouch.toml", what);
    // pre-push: a risky push is judged by the user's config (its verifier).
    env.rewind(1);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1).stderr_has("judge: FAIL");
    said_ignored(&out, ".vouch.toml", what);
    let record = env.last_audit_of("pre-push");
    assert_eq!(record["decision"], "refused");
    assert!(
        record.get("mode").is_none(),
        "nothing of the file applies: {record}"
    );
    assert!(
        record["warnings"].to_string().contains("cannot be parsed"),
        "{record}"
    );
    // reference-transaction: the user's verifier refuses a lost branch.
    unique_branch(&env);
    let out = env.git_headless(&env.work, &["branch", "-D", "solo"]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    out.stderr_has("judge: FAIL");
    said_ignored(&out, ".vouch.toml", what);
    assert_eq!(env.rev(&env.work, "solo").len(), 40);
    // The agent door: denied by the user's verifier; the reason is logged.
    std::fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    let out = env.claude("git reset --hard");
    out.code(0).stdout_has(r#""permissionDecision":"deny""#);
    let record = env.last_audit_of("claude");
    assert_eq!(record["verifiers"][0]["verifier"], "judge", "{record}");
    assert!(
        record["warnings"].to_string().contains("cannot be parsed"),
        "{record}"
    );
    // `git vouch check` and `git vouch verify`.
    let out = env.vouch(&["check", "--", "git", "reset", "--hard"]);
    out.code(1).stdout_has("tier: critical");
    said_ignored(&out, ".vouch.toml", what);
    let out = env.vouch(&["check", "--", "ls"]);
    out.code(0);
    said_ignored(&out, ".vouch.toml", what);
    env.git(&env.work, &["checkout", "-q", "--", "file1.txt"]);
    let out = env.vouch(&["verify"]);
    out.code(1).stdout_has("judge");
    said_ignored(&out, ".vouch.toml", what);
    // `git vouch doctor` names it and exits non-zero.
    let out = env.vouch(&["doctor"]);
    out.code(2).stdout_has(".vouch.toml").stdout_has("line 2");
}

/// Issue 26 item 8: one unknown key (or a value of the wrong type) drops
/// that key alone; the user's strict policy stays in force at every door.
#[test]
fn a_typo_in_the_user_config_drops_only_that_key() {
    let env = TestEnv::new();
    env.install();
    let policy = "[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\n";
    for (typo, key, line) in [
        ("branchez = [\"main\"]", "on_unavailable.branchez", 4),
        ("strict = \"yes\"", "strict", 1),
        ("[protected]\nbranches = \"main\"", "protected.branches", 5),
        ("[ai]\ntimeout_secs = 0", "ai.timeout_secs", 5),
    ] {
        let text = if line == 1 {
            format!("{typo}\n{policy}")
        } else {
            format!("{policy}{typo}\n")
        };
        env.write_config(&text);
        // Ordinary work goes on, and says which key was dropped.
        env.commit(&env.work, "a.txt", key);
        let out = env.push(&["origin", "main"]);
        out.code(0);
        said_once(
            &out,
            "config.toml",
            "only this key is dropped",
            &format!("line {line}"),
        );
        out.stderr_has(&format!("key `{key}`"));
        // The rest applies: a forced push nobody can verify is refused
        // (the defaults would let it through headless).
        env.rewind(1);
        let out = env.push(&["--force", "origin", "main"]);
        out.code(1);
        let record = env.last_audit_of("pre-push");
        assert_eq!(record["decision"], "refused", "{typo}: {record}");
        assert!(record["warnings"].to_string().contains(key), "{record}");
        env.git(&env.work, &["reset", "-q", "--hard", "origin/main"]);
        // `git vouch doctor` names it and exits 2.
        env.vouch(&["doctor"])
            .code(2)
            .stdout_has("config.toml")
            .stdout_has(&format!("line {line}"))
            .stdout_has(key);
    }
    env.write_config(policy);
    env.vouch(&["doctor"]).code(0);
}

/// Issue 26 item 8: a user config that cannot be parsed at all is said on
/// every run, and until it is fixed critical and high operations are
/// treated with `on_unavailable = "block"` at every door.
#[test]
fn an_unparsable_user_config_holds_risky_work_until_fixed() {
    let env = TestEnv::new();
    env.install();
    env.write_config("[on_unavailable\ncritical = \"block\"\n");
    let what = "line 1";
    // Ordinary work goes on.
    std::fs::write(env.work.join("b.txt"), "b").unwrap();
    env.git(&env.work, &["add", "b.txt"]);
    let out = env.git_out(&env.work, &["commit", "-q", "-m", "b"]);
    out.code(0);
    said_ignored(&out, "config.toml", what);
    out.stderr_has("on_unavailable = \"block\"");
    let out = env.push(&["origin", "main"]);
    out.code(0);
    said_ignored(&out, "config.toml", what);
    // pre-push: a high operation (a force push of another branch) and a
    // critical one (of `main`) wait for a verdict: refused headless.
    env.git(&env.work, &["switch", "-q", "-c", "topic"]);
    env.commit(&env.work, "t.txt", "topic");
    env.push(&["-q", "origin", "topic"]).code(0);
    env.git(&env.work, &["reset", "-q", "--hard", "HEAD~1"]);
    let out = env.push(&["--force", "origin", "topic"]);
    out.code(1);
    assert_eq!(env.last_audit_of("pre-push")["risk_tier"], "high");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.rewind(1);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1);
    said_ignored(&out, "config.toml", what);
    let record = env.last_audit_of("pre-push");
    assert_eq!(record["risk_tier"], "critical");
    assert_eq!(record["decision"], "refused");
    assert!(
        record["warnings"].to_string().contains("cannot be parsed"),
        "{record}"
    );
    env.git(&env.work, &["reset", "-q", "--hard", "origin/main"]);
    // reference-transaction: a branch with unique commits stays.
    unique_branch(&env);
    let out = env.git_headless(&env.work, &["branch", "-D", "solo"]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    said_ignored(&out, "config.toml", what);
    assert_eq!(env.rev(&env.work, "solo").len(), 40);
    // The agent door and `check`.
    std::fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    let out = env.claude("git reset --hard");
    out.code(0).stdout_has(r#""permissionDecision":"deny""#);
    let out = env.vouch(&["check", "--", "git", "reset", "--hard"]);
    out.code(1);
    said_ignored(&out, "config.toml", what);
    // `git vouch doctor` exits 2 naming the error, until it is fixed.
    env.vouch(&["doctor"])
        .code(2)
        .stdout_has("config.toml")
        .stdout_has("line 1");
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    let out = env.vouch(&["doctor"]);
    out.code(0);
    assert!(!out.stderr.contains("is ignored"), "{}", out.stderr);
    // Fixed: the defaults for high again (allowed headless, with a warning).
    env.git(&env.work, &["switch", "-q", "topic"]);
    env.push(&["--force", "origin", "topic"]).code(0);
}

#[test]
fn a_broken_repository_file_does_not_keep_vouch_from_being_installed() {
    let env = TestEnv::new();
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    std::fs::write(env.work.join(".vouch.toml"), "mode = observe\n").unwrap();
    let out = env.vouch(&["install"]);
    out.code(0);
    said_ignored(&out, ".vouch.toml", "line 1");
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
}

#[test]
fn an_unreadable_user_config_is_ignored_the_same_way() {
    let env = TestEnv::new();
    env.install();
    // A directory where the file should be: it cannot be read.
    std::fs::create_dir_all(env.config_path()).unwrap();
    env.commit(&env.work, "a.txt", "a");
    let out = env.push(&["origin", "main"]);
    out.code(0);
    said_ignored(&out, "config.toml", "cannot read config");
    // Risky work waits for a readable policy.
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    env.vouch(&["doctor"])
        .code(2)
        .stdout_has("cannot read config");
    // A named pipe nobody writes: said at once, never waited on.
    std::fs::remove_dir(env.config_path()).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(env.config_path())
        .status()
        .unwrap();
    assert!(made.success());
    let out = env.vouch(&["check", "--", "ls"]);
    out.code(0);
    said_ignored(&out, "config.toml", "not a regular file");
}

#[test]
fn wrong_type_in_config_is_a_clear_error() {
    let env = TestEnv::new();
    env.write_config("[on_unavailable]\ncritical = true\n");
    env.vouch(&["status"])
        .code(2)
        .stderr_has("line 2")
        .stderr_has("key `on_unavailable.critical`");
}

/// A container running as a uid the system does not know, with no `HOME`:
/// runs `program args` in `dir` as such a user (`setpriv`, as root).
fn as_unknown_user(env: &TestEnv, dir: &std::path::Path, program: &str, args: &[&str]) -> Out {
    let vars = env
        .vars()
        .into_iter()
        .filter(|(k, _)| k != "HOME" && !k.starts_with("XDG_"));
    let out = std::process::Command::new("setpriv")
        .args(["--reuid", "48151", "--regid", "48151", "--clear-groups"])
        .args(["setsid", "-w", program])
        .args(args)
        .env_clear()
        .envs(vars)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("setpriv runs");
    Out::from_output(out)
}

/// Root can become a uid with no passwd entry (`.ci/run` runs as root);
/// anyone else skips, and says so ([`crate::support::skip`]).
fn can_become_unknown_user() -> bool {
    let id = std::process::Command::new("id").arg("-u").output().unwrap();
    let root = String::from_utf8_lossy(&id.stdout).trim() == "0";
    if !root {
        crate::support::skip(
            "root",
            "only root can run a command as a uid with no passwd entry",
            "run the tests as root, as .ci/run does",
        );
    }
    root
}

/// SPEC 3.2, issue 26 item 13: with `HOME` unset and a uid that has no
/// passwd entry, no door crashes or breaks ordinary work. vouch looks no
/// user up (a static build crashed in NSS), keeps its log in the
/// repository's git directory, says so, and judges as always.
#[test]
fn no_home_and_an_unknown_uid_guard_what_they_can() {
    if !can_become_unknown_user() {
        return;
    }
    let env = TestEnv::new();
    env.install();
    let status = std::process::Command::new("chown")
        .args(["-R", "48151:48151"])
        .arg(env.base())
        .status()
        .unwrap();
    assert!(status.success());
    let bin = crate::support::vouch_bin();
    let bin = bin.to_str().unwrap();
    let git_log = env.work.join(".git/vouch/audit.jsonl");
    let said = "no home directory (HOME is not set)";
    // An ordinary commit and push go on, and say where the log went.
    std::fs::write(env.work.join("n.txt"), "n").unwrap();
    as_unknown_user(&env, &env.work, "git", &["add", "n.txt"]).code(0);
    let out = as_unknown_user(&env, &env.work, "git", &["commit", "-q", "-m", "n"]);
    out.code(0).stderr_has(said);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    as_unknown_user(&env, &env.work, "git", &["push", "-q", "origin", "main"]).code(0);
    // The agent door answers (no crash, no silent allow) and logs.
    std::fs::write(env.work.join("file1.txt"), "unsaved\n").unwrap();
    let input = serde_json::json!({"session_id": "s-1", "cwd": env.work,
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "git reset --hard HEAD~2"}});
    let script = env.script(
        "claude-hook",
        &format!("echo '{input}' | {bin} agent-hook claude"),
    );
    let out = as_unknown_user(&env, &env.work, script.to_str().unwrap(), &[]);
    out.code(0);
    let reply: serde_json::Value = serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("a reply ({e}): {out:?}"));
    let decision = &reply["hookSpecificOutput"]["permissionDecision"];
    assert!(decision == "ask" || decision == "deny", "{reply}");
    // `check` judges; a forced push is judged by the pre-push hook.
    let out = as_unknown_user(
        &env,
        &env.work,
        bin,
        &["check", "--", "git", "reset", "--hard"],
    );
    out.code(1).stdout_has("tier: critical");
    as_unknown_user(
        &env,
        &env.work,
        "git",
        &["checkout", "-q", "--", "file1.txt"],
    )
    .code(0);
    as_unknown_user(&env, &env.work, "git", &["reset", "-q", "--hard", "HEAD~1"]).code(0);
    let out = as_unknown_user(
        &env,
        &env.work,
        "git",
        &["push", "-q", "--force", "origin", "main"],
    );
    out.stderr_has(said);
    let text = std::fs::read_to_string(&git_log).expect("the log is in the git directory");
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for hook in ["claude", "pre-push"] {
        assert!(
            records.iter().any(|r| r["hook"] == hook),
            "{hook} logged: {text}"
        );
    }
    assert!(env.audit().is_empty(), "nothing went to a home directory");
}
