//! Configuration in force: file locations, layering, standard-tier requests.

use std::fs;

use crate::support::{TestEnv, verdict_body};

#[test]
fn vouch_config_names_the_user_config_file() {
    let mut env = TestEnv::new();
    let elsewhere = env.base().join("elsewhere.toml");
    fs::write(&elsewhere, "[on_unavailable]\ncritical = \"block\"\n").unwrap();
    env.extra_env
        .push(("VOUCH_CONFIG".into(), elsewhere.display().to_string()));
    env.install();
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    env.vouch(&["status"]).code(0).stdout_has("elsewhere.toml");
}

#[test]
fn repository_policy_overrides_the_user_config() {
    let env = TestEnv::new();
    env.write_config("[on_unavailable]\nhigh = \"block\"\ncritical = \"block\"\n");
    // The team protects `main` only as `high`: its file wins over the default.
    fs::write(
        env.work.join(".vouch.toml"),
        "[tiers]\nforce_push_protected = \"high\"\n",
    )
    .unwrap();
    env.install();
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    assert_eq!(env.last_audit()["risk_tier"], "high");
}

#[test]
fn direct_pushes_to_protected_branches_are_verified_only_on_request() {
    let mut env = TestEnv::new();
    let config = format!(
        "[tiers]\npush_protected = \"standard\"\n{}",
        env.verifier("strict", &verdict_body("fail"), "")
    );
    env.write_config(&config);
    env.install();
    env.commit(&env.work, "a.txt", "a");
    // Standard tier, not requested: allowed, no verifier runs.
    env.push(&["origin", "main"]).code(0);
    env.commit(&env.work, "b.txt", "b");
    env.extra_env.push(("VOUCH_VERIFY".into(), "1".into()));
    env.push(&["origin", "main"])
        .code(1)
        .stderr_has("strict: FAIL");
    let record = env.last_audit();
    assert_eq!(record["risk_tier"], "standard");
    assert_eq!(record["refs"][0]["rule"], "push_protected");
}

#[test]
fn observe_mode_decides_and_logs_but_never_blocks() {
    let env = TestEnv::new();
    env.write_config("mode = \"observe\"\n[on_unavailable]\ncritical = \"block\"\n");
    env.install();
    env.rewind(1);
    env.push(&["--force", "origin", "main"])
        .code(0)
        .stderr_has("observe mode: enforcing would have refused this push");
    assert_eq!(
        env.remote_ref("main").unwrap(),
        env.rev(&env.work, "HEAD"),
        "the push went through"
    );
    let record = env.last_audit();
    assert_eq!(record["decision"], "allowed");
    assert_eq!(record["mode"], "observe");
    assert_eq!(record["would_decide"], "refused");
    assert_eq!(record["risk_tier"], "critical");
    assert!(
        !env.state().join("reviews").exists(),
        "nothing was refused, so nothing waits for review"
    );
    env.commit(&env.work, "ff.txt", "a routine push");
    env.push(&["origin", "main"]).code(0);
    let record = env.last_audit_of("pre-push");
    assert_eq!(
        record["risk_tier"], "none",
        "observe mode logs routine pushes too"
    );
    assert!(record.get("would_decide").is_none());
}
