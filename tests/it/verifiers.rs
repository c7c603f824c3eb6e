//! Verifier programs: protocol, failures, discovery, trust, `git vouch verify`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Instant;

use crate::support::{TestEnv, verdict_body};

const BLOCK_UNAVAILABLE: &str = "[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\n";

fn force_push_main(env: &TestEnv) -> crate::support::Out {
    env.rewind(1);
    env.push(&["--force", "origin", "main"])
}

#[test]
fn verifier_gets_the_context_on_stdin() {
    let env = TestEnv::new();
    let saved = env.base().join("context.json");
    let body = format!(
        "cat > {}\necho '{{\"status\":\"pass\",\"summary\":\"ok\"}}'",
        saved.display()
    );
    env.write_config(&env.verifier("ctx", &body, ""));
    env.install();
    force_push_main(&env).code(0);
    let context: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(saved).unwrap()).unwrap();
    assert_eq!(context["operation"]["type"], "push");
    assert_eq!(context["tier"], "critical");
    assert_eq!(context["facts"]["refs"][0]["remote_ref"], "refs/heads/main");
    assert_eq!(context["facts"]["refs"][0]["lost"]["count"], 1);
    assert_eq!(
        context["facts"]["refs"][0]["lost"]["commits"][0]["subject"],
        "commit 3"
    );
    assert_eq!(context["branch"], "main");
}

#[test]
fn crashing_verifier_is_an_error_never_a_pass() {
    let env = TestEnv::new();
    let config = format!(
        "{}{}{}",
        BLOCK_UNAVAILABLE,
        env.verifier("crash", "kill -SEGV $$", ""),
        env.verifier("ok", &verdict_body("pass"), "")
    );
    env.write_config(&config);
    env.install();
    // One blocking verifier errored, the other passed: a warning, refused headless.
    force_push_main(&env).code(1).stderr_has("crash: ERROR");
    let record = env.last_audit();
    assert_eq!(record["result"], "warn");
    let crash = record["verifiers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["verifier"] == "crash")
        .unwrap();
    assert_eq!(crash["status"], "error");
}

#[test]
fn only_crashing_verifiers_mean_unavailable() {
    let env = TestEnv::new();
    env.write_config(&format!(
        "{BLOCK_UNAVAILABLE}{}",
        env.verifier("crash", "exit 139", "")
    ));
    env.install();
    force_push_main(&env)
        .code(1)
        .stderr_has("every verifier failed to judge");
    assert_eq!(env.last_audit()["result"], "unavailable");
}

#[test]
fn hanging_verifier_is_killed_at_its_timeout() {
    let env = TestEnv::new();
    env.write_config(&format!(
        "{BLOCK_UNAVAILABLE}{}",
        env.verifier("hang", "sleep 30 & sleep 30", "timeout_secs = 1")
    ));
    env.install();
    let started = Instant::now();
    force_push_main(&env)
        .code(1)
        .stderr_has("timed out after 1 s");
    assert!(started.elapsed().as_secs() < 20, "the hang was cut short");
}

#[test]
fn garbage_output_is_an_error() {
    let env = TestEnv::new();
    env.write_config(&format!(
        "{BLOCK_UNAVAILABLE}{}",
        env.verifier("noise", "echo 'LGTM!!'", "")
    ));
    env.install();
    force_push_main(&env)
        .code(1)
        .stderr_has("not a result JSON");
    let record = env.last_audit();
    assert_eq!(record["verifiers"][0]["status"], "error");
    assert_ne!(record["result"], "proceed");
}

#[test]
fn non_blocking_failure_does_not_block() {
    let env = TestEnv::new();
    let config = format!(
        "{}{}",
        env.verifier("lint", &verdict_body("fail"), "blocking = false"),
        env.verifier("ok", &verdict_body("pass"), "")
    );
    env.write_config(&config);
    env.install();
    force_push_main(&env).code(0);
    let record = env.last_audit();
    assert_eq!(record["result"], "proceed");
    assert!(
        record["concerns"][0]
            .as_str()
            .unwrap()
            .contains("lint (non-blocking)")
    );
}

#[test]
fn verifier_tiers_select_which_run() {
    let env = TestEnv::new();
    env.write_config(&format!(
        "{}{}",
        env.verifier(
            "critical-only",
            &verdict_body("fail"),
            "tiers = [\"critical\"]"
        ),
        env.verifier("ok", &verdict_body("pass"), "")
    ));
    env.install();
    env.git(&env.work, &["checkout", "-q", "-b", "feature"]);
    env.commit(&env.work, "f.txt", "f");
    env.push(&["origin", "feature"]).code(0);
    env.git(&env.work, &["commit", "-q", "--amend", "-m", "g"]);
    // High tier: the critical-only verifier does not run.
    env.push(&["--force", "origin", "feature"]).code(0);
    let names: Vec<_> = env.last_audit()["verifiers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["verifier"].clone())
        .collect();
    assert_eq!(names, ["ok"]);
}

fn make_executable(path: &Path, body: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn discovery_list_and_only() {
    let mut env = TestEnv::new();
    make_executable(
        &env.base().join("config/vouch/verifiers/userdir"),
        &verdict_body("pass"),
    );
    let bin = env.base().join("pathbin");
    make_executable(&bin.join("vouch-verify-onpath"), &verdict_body("fail"));
    env.extra_env.push((
        "PATH".into(),
        format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
    ));
    env.write_config(&env.verifier(
        "configured",
        &verdict_body("warn"),
        "blocking = false\ntimeout_secs = 5",
    ));
    let list = env.vouch(&["verify", "--list"]);
    list.code(0)
        .stdout_has("configured\tnon-blocking, timeout 5 s")
        .stdout_has("onpath\tblocking")
        .stdout_has("userdir\tblocking");
    // Verify the pending push of the current branch by hand, with one verifier.
    env.rewind(1);
    let only = env.vouch(&["verify", "--only", "userdir"]);
    only.code(0)
        .stdout_has("userdir: pass")
        .stdout_has("verdict: proceed");
    assert!(!only.stdout.contains("onpath"), "{}", only.stdout);
    env.vouch(&["verify", "--only", "onpath"])
        .code(1)
        .stdout_has("verdict: block");
    env.vouch(&["verify", "--only", "nope"])
        .code(2)
        .stderr_has("no verifier named `nope`");
}

#[test]
fn repository_verifiers_need_trust_and_edits_revoke_it() {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let env = TestEnv::new();
    let script = env.script("repo-verifier", &verdict_body("fail"));
    fs::write(
        env.work.join(".vouch.toml"),
        format!("[verifiers.team]\ncommand = \"{}\"\n", script.display()),
    )
    .unwrap();
    env.install();
    env.rewind(1);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(0).stderr_has("vouch trust");
    assert!(
        env.last_audit()["verifiers"].as_array().unwrap().is_empty(),
        "untrusted: not run"
    );
    crate::support::tmux::vouch_yes(&env, &["trust"]);
    let out = env.push(&["--force", "origin", "main~1:main"]);
    out.code(1).stderr_has("team: FAIL");
    // An edit to the file needs trust again.
    fs::write(
        env.work.join(".vouch.toml"),
        format!(
            "[verifiers.team]\ncommand = \"{}\"\ntimeout_secs = 3\n",
            script.display()
        ),
    )
    .unwrap();
    env.push(&["--force", "origin", "main~1:main"])
        .code(0)
        .stderr_has("vouch trust");
    env.vouch(&["status"]).code(0).stdout_has("not trusted");
}

#[test]
fn example_verifiers_follow_the_protocol() {
    let env = TestEnv::new();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks/verifiers");
    fs::write(
        env.work.join("Makefile"),
        "test:\n\ttrue\nbuild:\n\tfalse\nlint:\n\ttrue\n",
    )
    .unwrap();
    env.git(&env.work, &["add", "Makefile"]);
    env.git(&env.work, &["commit", "-q", "-m", "makefile"]);
    let mut config = String::new();
    for name in ["tests", "build", "lint"] {
        config.push_str(&format!(
            "[verifiers.{name}]\ncommand = \"{}\"\n",
            examples.join(format!("vouch-verify-{name}")).display()
        ));
    }
    env.write_config(&config);
    let out = env.vouch(&["verify"]);
    out.code(1)
        .stdout_has("tests: pass")
        .stdout_has("lint: pass")
        .stdout_has("build: FAIL")
        .stdout_has("verdict: block");
}
