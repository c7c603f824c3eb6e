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

/// Trusts the repository's files as `git vouch trust` does once a person has
/// confirmed at a terminal (the command itself is tested where it lives).
pub fn trust(env: &TestEnv) {
    vouch::install::trust::set(&env.base().join("data/vouch"), &env.work, true).unwrap();
}

/// The lines that say what an untrusted repository file could not set.
fn ignored_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("which is not trusted"))
        .collect()
}

#[test]
fn a_trusted_repository_file_may_lower_the_user_config_an_untrusted_one_may_not() {
    let env = TestEnv::new();
    env.write_config("[on_unavailable]\nhigh = \"block\"\ncritical = \"block\"\n");
    // The team protects `main` only as `high`.
    fs::write(
        env.work.join(".vouch.toml"),
        "[tiers]\nforce_push_protected = \"high\"\n",
    )
    .unwrap();
    env.install();
    env.rewind(1);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1);
    assert_eq!(
        ignored_lines(&out.stderr).len(),
        1,
        "one line per run:\n{}",
        out.stderr
    );
    out.stderr_has("`tiers.force_push_protected = \"high\"`")
        .stderr_has("vouch trust")
        .stderr_has("at a terminal");
    assert_eq!(env.last_audit()["risk_tier"], "critical");
    trust(&env);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1);
    assert!(ignored_lines(&out.stderr).is_empty(), "{}", out.stderr);
    assert_eq!(env.last_audit()["risk_tier"], "high");
}

/// A repository cloned from a stranger, with a committed `.vouch.toml`, and a
/// user config that refuses what cannot be verified (no verifier, no key).
fn stranger_repository(repo_file: &str) -> TestEnv {
    let env = TestEnv::new();
    env.write_config("[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\n");
    env.commit(&env.work, ".vouch.toml", repo_file);
    env.commit(&env.work, "later.txt", "a later commit");
    env.git(&env.work, &["push", "-q", "origin", "main"]);
    env.install();
    env
}

/// Asserts Claude Code was told to deny, and nothing it could act on itself.
#[track_caller]
fn denied(out: &crate::support::Out) {
    out.code(0).stdout_has(r#""permissionDecision":"deny""#);
    for hint in ["vouch trust", "--no-verify", "VOUCH_SKIP", "vouch approve"] {
        assert!(
            !out.stdout.contains(hint) && !out.stderr.contains(hint),
            "the agent was told `{hint}`: {}{}",
            out.stdout,
            out.stderr
        );
    }
}

#[test]
fn an_untrusted_observe_file_turns_no_door_off() {
    let env = stranger_repository("mode = \"observe\"");
    // pre-push: the force push of `main` is refused.
    env.rewind(1);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1).stderr_has("`mode = \"observe\"`");
    assert_eq!(ignored_lines(&out.stderr).len(), 1, "{}", out.stderr);
    assert!(!out.stderr.contains("observe mode:"), "{}", out.stderr);
    assert_ne!(
        env.remote_ref("main").unwrap(),
        env.rev(&env.work, "HEAD"),
        "the remote keeps its history"
    );
    let record = env.last_audit_of("pre-push");
    assert_eq!(record["decision"], "refused");
    assert!(record.get("mode").is_none(), "{record}");
    // reference-transaction: deleting a branch of unique work is refused.
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    env.commit(&env.work, "solo.txt", "only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    let out = env.git_headless(&env.work, &["branch", "-D", "solo"]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert_eq!(env.rev(&env.work, "solo").len(), 40, "the branch is kept");
    assert_eq!(
        env.last_audit_of("reference-transaction")["decision"],
        "refused"
    );
    // The agent door: `git reset --hard` over unsaved work is denied.
    fs::write(env.work.join("file1.txt"), "unsaved work\n").unwrap();
    let out = env.claude("git reset --hard");
    denied(&out);
    let record = env.last_audit_of("claude");
    assert_eq!(record["decision"], "refused");
    assert!(record.get("mode").is_none(), "{record}");
    assert!(
        record["warnings"].to_string().contains("mode = "),
        "the audit line says what was ignored: {record}"
    );
}

#[test]
fn every_lowering_setting_of_an_untrusted_file_is_ignored_with_one_line() {
    let always_pass = "[verifiers.pass]\ncommand = \"true\"\nblocking = false";
    let files = [
        (
            "[tiers]\nforce_push_protected = \"none\"",
            "tiers.force_push_protected",
        ),
        ("[protected]\nbranches = []", "protected.branches"),
        (
            "[on_unavailable]\ncritical = \"allow\"",
            "on_unavailable.critical",
        ),
        ("[tiers]\nlocal_delete = \"none\"", "tiers.local_delete"),
        ("mode = \"observe\"", "mode"),
        (always_pass, "[verifiers]"),
        ("[ai]\nenabled = false", "ai.enabled"),
        ("[agent]\nbudget_secs = 600", "agent.budget_secs"),
        ("[log]\npath = \"/dev/null\"", "log.path"),
        (
            "[providers.anthropic]\nbase_url = \"http://127.0.0.1:9\"",
            "[providers]",
        ),
    ];
    let env = stranger_repository("# the team's file, rewritten below");
    env.rewind(1);
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    env.commit(&env.work, "solo.txt", "only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    for (text, key) in files {
        fs::write(env.work.join(".vouch.toml"), format!("{text}\n")).unwrap();
        let out = env.push(&["--force", "origin", "main"]);
        out.code(1).stderr_has(&format!("`{key}"));
        assert_eq!(
            ignored_lines(&out.stderr).len(),
            1,
            "{text}:\n{}",
            out.stderr
        );
        assert_eq!(
            env.last_audit_of("pre-push")["risk_tier"],
            "critical",
            "{text}"
        );
        let out = env.git_headless(&env.work, &["branch", "-D", "solo"]);
        assert_ne!(out.code, 0, "{text}: {}", out.stderr);
        assert_eq!(
            ignored_lines(&out.stderr).len(),
            1,
            "{text}:\n{}",
            out.stderr
        );
    }
    assert_eq!(env.rev(&env.work, "solo").len(), 40, "the branch is kept");
    // A file that only raises the guard is applied, and says nothing: a
    // fast-forward of `main` becomes high, which the user config refuses.
    env.git(&env.work, &["reset", "-q", "--hard", "origin/main"]);
    fs::write(
        env.work.join(".vouch.toml"),
        "verify_standard = true\n[tiers]\npush_protected = \"high\"\n",
    )
    .unwrap();
    env.commit(&env.work, "ff.txt", "a fast-forward");
    let out = env.push(&["origin", "main"]);
    out.code(1);
    assert!(ignored_lines(&out.stderr).is_empty(), "{}", out.stderr);
    let record = env.last_audit_of("pre-push");
    assert_eq!(record["risk_tier"], "high", "{record}");
    assert_eq!(record["refs"][0]["rule"], "push_protected", "{record}");
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
    // `git vouch log` says it on each line, not only `--json` (README,
    // "Quick start", step 2).
    let log = env.vouch(&["log"]);
    log.code(0);
    // Observe mode logs every hook's decision: the rewind, the force push,
    // the commit and the fast-forward.
    let line = |what: &str| {
        log.stdout
            .lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no line with {what:?}:\n{}", log.stdout))
    };
    assert!(
        line("main (rewrite)").contains("critical")
            && line("main (rewrite)").ends_with("[observe: enforcing would have refused]"),
        "{}",
        log.stdout
    );
    assert!(
        line("main (fast-forward)").ends_with(" [observe]"),
        "{}",
        log.stdout
    );
}
