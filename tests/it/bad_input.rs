//! Bad input of every kind: a clear message, never a panic, never a silent
//! allow of a critical operation.

use crate::support::TestEnv;

const Z: &str = "0000000000000000000000000000000000000000";

fn hook(env: &TestEnv, input: &[u8]) -> crate::support::Out {
    let url = env.remote.display().to_string();
    env.vouch_stdin(&["hook", "pre-push", "--", "origin", &url], input)
}

#[test]
fn malformed_pre_push_lines_are_refused_with_the_line_named() {
    let env = TestEnv::new();
    let out = hook(&env, b"refs/heads/main deadbeef\n");
    out.code(2)
        .stderr_has("pre-push input line 1")
        .stderr_has("--no-verify");
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
    out.code(2).stderr_has("line 2");
}

/// A refusal logged before the operation is judged goes where the user's
/// `[log] path` says, so `vouch log` shows it (it went to the default).
#[test]
fn a_refusal_before_judging_goes_to_the_users_log() {
    let env = TestEnv::new();
    let custom = env.base().join("custom-audit.jsonl");
    env.write_config(&format!("[log]\npath = \"{}\"\n", custom.display()));
    hook(&env, b"refs/heads/main deadbeef\n").code(2);
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

#[test]
fn unknown_config_key_refuses_the_push_naming_file_line_and_key() {
    let env = TestEnv::new();
    env.install();
    env.write_config("strict = false\n[protected]\nbranchez = [\"main\"]\n");
    env.rewind(1);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1)
        .stderr_has("config.toml")
        .stderr_has("line 3")
        .stderr_has("`branchez`")
        .stderr_has("accepted keys");
    assert!(!out.stderr.contains("panicked"));
    assert!(
        env.last_audit()["warnings"][0]
            .as_str()
            .unwrap()
            .contains("branchez")
    );
}

#[test]
fn wrong_type_in_config_is_a_clear_error() {
    let env = TestEnv::new();
    env.write_config("[on_unavailable]\ncritical = true\n");
    env.vouch(&["status"])
        .code(2)
        .stderr_has("line 2")
        .stderr_has("key `critical`");
}

#[test]
fn broken_config_refuses_even_a_routine_push_with_a_clear_message() {
    // The tier depends on the config (protected branches, tiers): a broken
    // config is never mistaken for a working guard.
    let env = TestEnv::new();
    env.install();
    env.commit(&env.work, "a.txt", "a");
    env.write_config("nonsense = 1\n");
    env.push(&["origin", "main"])
        .code(1)
        .stderr_has("unknown key `nonsense`");
    // A commit too: `git commit --no-verify` is the way around, as the message says.
    std::fs::write(env.work.join("b.txt"), "b").unwrap();
    env.git(&env.work, &["add", "b.txt"]);
    let out = env.git_out(&env.work, &["commit", "-q", "-m", "b"]);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains("git commit --no-verify"),
        "{}",
        out.stderr
    );
}
