//! Headless refusals, `VOUCH_SKIP`, review requests and `git vouch approve`.

use std::fs;

use crate::support::{Out, TestEnv, tmux, verdict_body};

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
        crate::support::missing("tmux");
        return;
    }
    let (env, id) = refused_force_push();
    let bin = crate::support::vouch_bin();
    let term = tmux::Tmux::start(&env, &env.work, &format!("{} approve {id}", bin.display()));
    term.wait_for("Type `yes`");
    term.send("yes");
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

/// A git hook run from an agent's shell command (Claude Code sets
/// `CLAUDECODE=1` in the commands it runs): the agent is never the person,
/// so the refusal names no override an agent could type, and a critical
/// push without a verdict is refused, not allowed with a warning.
#[test]
fn an_agent_driven_push_is_told_that_a_person_decides() {
    let env = TestEnv::new();
    env.write_config(&warn_config(&env));
    env.install();
    let before = env.remote_ref("main").unwrap();
    env.rewind(1);
    let out = Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "push", "--force", "origin", "main"])
            .env("CLAUDECODE", "1")
            .output()
            .unwrap(),
    );
    out.code(1)
        .stderr_has("started by Claude Code")
        .stderr_has("only the person it works for can");
    for word in ["vouch approve", "VOUCH_SKIP", "--no-verify"] {
        assert!(!out.stderr.contains(word), "names `{word}`: {}", out.stderr);
    }
    assert_eq!(env.remote_ref("main").unwrap(), before);
    let record = env.last_audit();
    assert_eq!(record["driven_by"], "Claude Code");
    assert_eq!(record["decision"], "refused");
    // No verifier at all: a person at git would be let through with a
    // warning (high) or asked (critical); an agent is refused.
    env.write_config("");
    let out = Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "push", "--force", "origin", "main"])
            .env("CLAUDECODE", "1")
            .output()
            .unwrap(),
    );
    out.code(1).stderr_has("an agent cannot decide");
    assert_eq!(env.remote_ref("main").unwrap(), before);
}

#[test]
fn every_command_that_lowers_the_guard_refuses_without_a_terminal() {
    let env = TestEnv::new();
    env.install();
    env.vouch(&["agent", "install", "claude"]).code(0);
    // A rescue ref to prune: a branch deleted with a skip.
    env.git(&env.work, &["switch", "-q", "-c", "old"]);
    env.commit(&env.work, "old.txt", "only on old");
    env.git(&env.work, &["switch", "-q", "main"]);
    Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "branch", "-D", "old"])
            .env("VOUCH_SKIP", "making a rescue ref")
            .output()
            .unwrap(),
    )
    .code(0);
    let rescues = || env.git(&env.work, &["for-each-ref", "refs/vouch"]);
    assert!(!rescues().is_empty());
    fs::write(env.work.join(".vouch.toml"), "mode = \"observe\"\n").unwrap();
    let settings = env.work.join(".claude/settings.json");
    for args in [
        &["uninstall"][..],
        &["trust"],
        &["agent", "uninstall", "claude"],
        &["rescue", "prune", "--older-than", "2030-01-01"],
    ] {
        env.vouch(args)
            .code(1)
            .stderr_has("needs a person at a terminal")
            .stderr_has("the person must run it themselves");
    }
    assert!(env.work.join(".git/hooks/pre-push").is_file());
    assert!(
        fs::read_to_string(&settings)
            .unwrap()
            .contains("agent-hook claude")
    );
    assert!(!rescues().is_empty(), "nothing pruned");
    // A terminal with VOUCH_HEADLESS set is not a person either.
    if tmux::available() {
        let mut headless = TestEnv::new();
        headless.install();
        headless
            .extra_env
            .push(("VOUCH_HEADLESS".into(), "1".into()));
        let bin = crate::support::vouch_bin();
        let term = tmux::Tmux::start(
            &headless,
            &headless.work,
            &format!("{} uninstall", bin.display()),
        );
        let screen = term.wait_for("[exit=");
        assert!(screen.contains("[exit=1]"), "{screen}");
        assert!(headless.work.join(".git/hooks/pre-push").is_file());
    }
}

#[test]
fn a_person_types_yes_in_full_to_turn_the_guard_down() {
    if !tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let env = TestEnv::new();
    env.install();
    let hook = env.work.join(".git/hooks/pre-push");
    // `y` alone, or anything but `yes`, cancels.
    for answer in ["y", "no", ""] {
        let typed = tmux::vouch_typed(&env, &env.work, &["uninstall"], answer);
        assert_eq!(typed.code, 1, "{answer:?}:\n{}", typed.screen);
        assert!(
            typed.screen.contains("nothing was changed"),
            "{}",
            typed.screen
        );
        assert!(hook.is_file(), "{answer:?} keeps the hooks");
    }
    let screen = tmux::vouch_yes(&env, &["uninstall"]);
    assert!(screen.contains("no longer be checked"), "{screen}");
    assert!(!hook.exists());
}

#[test]
fn trust_shows_the_file_it_trusts() {
    if !tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let env = TestEnv::new();
    fs::write(
        env.work.join(".vouch.toml"),
        "mode = \"observe\" # written by an agent\n",
    )
    .unwrap();
    let typed = tmux::vouch_typed(&env, &env.work, &["trust"], "no");
    assert_eq!(typed.code, 1, "{}", typed.screen);
    assert!(
        typed.screen.contains("written by an agent"),
        "{}",
        typed.screen
    );
    assert!(!env.base().join("data/vouch/trust.json").exists());
    tmux::vouch_yes(&env, &["trust"]);
    // No git hook is installed here: status exits 1 (issue 29).
    env.vouch(&["status"]).code(1).stdout_has("(trusted)");
}

#[test]
fn a_script_that_exports_vouch_nested_itself_is_still_judged() {
    let env = TestEnv::new();
    let calls = env.base().join("calls");
    env.write_config(&env.verifier(
        "careful",
        &format!(
            "echo called >> '{}'\n{}",
            calls.display(),
            verdict_body("fail")
        ),
        "",
    ));
    env.install();
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    let tip = env.commit(&env.work, "solo.txt", "only on solo");
    env.git(&env.work, &["switch", "-q", "main"]);
    let token = "0123456789abcdef0123456789abcdef";
    let state = env.state();
    for script in [
        // The shell's own pid: an ancestor of the hook, but not vouch.
        "VOUCH_NESTED=$$ git branch -D solo".to_owned(),
        "export VOUCH_NESTED=$PPID; git branch -D solo".to_owned(),
        // A token file forged for that pid proves nothing either.
        format!(
            "mkdir -p '{dir}' && printf %s {token} > '{dir}'/$$ && VOUCH_NESTED=$$:{token} git branch -D solo",
            dir = state.join("nested").display()
        ),
    ] {
        fs::remove_file(&calls).ok();
        let out = Out::from_output(
            env.cmd("setsid", &env.work)
                .args(["-w", "sh", "-c", &script])
                .output()
                .unwrap(),
        );
        assert_ne!(out.code, 0, "{script}: {out:?}");
        assert!(calls.exists(), "{script}: the verifier was asked");
        assert_eq!(env.rev(&env.work, "solo"), tip, "{script}");
    }
    // vouch's own markers are gone once its verifiers have run: only the
    // forged file is left.
    for entry in fs::read_dir(state.join("nested")).unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(fs::read_to_string(&path).unwrap(), token, "{path:?}");
    }
}
