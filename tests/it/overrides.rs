//! Headless refusals, `VOUCH_SKIP`, review requests and `vouch approve`.

use std::fs;

use crate::support::{TestEnv, tmux, verdict_body};

fn warn_config(env: &TestEnv) -> String {
    env.verifier("careful", &verdict_body("warn"), "")
}

#[test]
fn headless_warning_refuses_and_says_how_a_person_approves() {
    let env = TestEnv::new();
    env.write_config(&warn_config(&env));
    env.install();
    let before = env.remote_ref("main").unwrap();
    env.rewind(1);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1)
        .stderr_has("refused: the verifiers raised concerns and nobody is at a terminal")
        .stderr_has("careful: warn: said warn")
        .stderr_has("vouch approve ")
        .stderr_has("VOUCH_SKIP=");
    assert_eq!(env.remote_ref("main").unwrap(), before);
    let record = env.last_audit();
    assert_eq!(record["result"], "warn");
    assert_eq!(record["decision"], "refused");
    let id = record["operation_id"].as_str().unwrap();
    let review: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(env.state().join(format!("reviews/{id}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(review["refs"][0]["remote_ref"], "refs/heads/main");
    assert!(review["how_to_approve"].as_str().unwrap().contains(id));
}

#[test]
fn block_verdict_refuses_everywhere() {
    let env = TestEnv::new();
    env.write_config(&env.verifier("strict", &verdict_body("fail"), ""));
    env.install();
    env.rewind(1);
    env.push(&["--force", "origin", "main"])
        .code(1)
        .stderr_has("judged this operation unsafe");
    assert_eq!(env.last_audit()["result"], "block");
}

#[test]
fn notify_command_runs_with_the_review_request() {
    let mut env = TestEnv::new();
    let marker = env.base().join("notified");
    let notify = env.script(
        "notify",
        &format!("cp \"$VOUCH_REVIEW_FILE\" {}", marker.display()),
    );
    env.write_config(&format!(
        "notify_command = \"{}\"\n{}",
        notify.display(),
        warn_config(&env)
    ));
    env.extra_env.push(("VOUCH_SESSION".into(), "s-42".into()));
    env.install();
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    let copied = fs::read_to_string(&marker).expect("notify command ran");
    assert!(copied.contains("refs/heads/main"));
    assert_eq!(env.last_audit()["session_id"], "s-42");
}

#[test]
fn skip_with_a_reason_is_allowed_and_logged() {
    let mut env = TestEnv::new();
    env.write_config(&warn_config(&env));
    env.install();
    env.rewind(1);
    env.extra_env.push((
        "VOUCH_SKIP".into(),
        "restoring main after a bad merge".into(),
    ));
    env.push(&["--force", "origin", "main"])
        .code(0)
        .stderr_has("VOUCH_SKIP");
    let record = env.last_audit();
    assert_eq!(record["decision"], "allowed");
    assert_eq!(record["result"], "skipped");
    assert_eq!(record["was_overridden"], true);
    assert_eq!(
        record["override_reason"],
        "VOUCH_SKIP: restoring main after a bad merge"
    );
    assert!(
        record["verifiers"].as_array().unwrap().is_empty(),
        "skipped: no verifier ran"
    );
}

#[test]
fn skip_without_a_reason_is_refused() {
    let mut env = TestEnv::new();
    env.install();
    env.rewind(1);
    env.extra_env.push(("VOUCH_SKIP".into(), String::new()));
    let before = env.remote_ref("main").unwrap();
    env.push(&["--force", "origin", "main"])
        .code(1)
        .stderr_has("a skip needs a reason");
    assert_eq!(env.remote_ref("main").unwrap(), before);
    assert_eq!(env.last_audit()["decision"], "refused");
}

/// A force push refused headless (a verifier warns); its operation id.
fn refused_force_push() -> (TestEnv, String) {
    let env = TestEnv::new();
    env.write_config(&warn_config(&env));
    env.install();
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    let id = env.last_audit()["operation_id"]
        .as_str()
        .unwrap()
        .to_owned();
    (env, id)
}

#[test]
fn approve_refuses_without_a_terminal() {
    let (env, id) = refused_force_push();
    env.vouch(&["approve", &id])
        .code(1)
        .stderr_has("needs a person at a terminal");
    assert!(!env.state().join(format!("approvals/{id}.json")).exists());
    env.vouch(&["approve", "not-an-id"])
        .code(2)
        .stderr_has("is not an operation id");
}

#[test]
fn approve_at_a_terminal_lets_that_exact_push_through_once() {
    if !tmux::available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let (env, id) = refused_force_push();
    let bin = crate::support::vouch_bin();
    let term = tmux::Tmux::start(&env, &env.work, &format!("{} approve {id}", bin.display()));
    term.wait_for("Approve this exact operation");
    term.send("y");
    term.send("Enter");
    term.wait_for("[exit=0]");
    let approval = env.last_audit();
    assert_eq!(approval["operation_type"], "approve");
    assert_eq!(approval["decision"], "asked-yes");
    assert_eq!(approval["operation_id"], id.as_str());
    // The same push, headless, now goes through, and the approval is used up.
    env.push(&["--force", "origin", "main"]).code(0);
    let record = env.last_audit();
    assert_eq!(record["was_overridden"], true);
    assert!(
        record["override_reason"]
            .as_str()
            .unwrap()
            .contains("vouch approve")
    );
    assert_eq!(env.remote_ref("main").unwrap(), env.rev(&env.work, "HEAD"));
    assert!(!env.state().join(format!("approvals/{id}.json")).exists());
}
