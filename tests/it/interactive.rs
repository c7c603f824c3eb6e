//! A real terminal (tmux) answering vouch's prompt during `git push --force`.

use crate::support::{TestEnv, tmux, verdict_body};

fn prompt_and_answer(answer: &str, config: Option<&str>) -> (TestEnv, String) {
    let env = TestEnv::new();
    if let Some(c) = config {
        env.write_config(c);
    }
    env.install();
    env.rewind(1);
    let term = tmux::Tmux::start(&env, &env.work, "git push --force origin main");
    let screen = term.wait_for("Allow this push?");
    term.send(answer);
    term.wait_for("[exit=");
    (env, screen)
}

#[test]
fn critical_push_without_verdict_asks_and_yes_pushes() {
    if !tmux::available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let (env, screen) = prompt_and_answer("y", None);
    assert!(screen.contains("force push to `origin`"), "{screen}");
    assert!(screen.contains("[critical]"), "{screen}");
    assert!(
        screen.contains("commit 3"),
        "the commit that would be destroyed is shown:\n{screen}"
    );
    assert!(screen.contains("No verifier could judge"), "{screen}");
    assert_eq!(env.remote_ref("main").unwrap(), env.rev(&env.work, "HEAD"));
    let record = env.last_audit();
    assert_eq!(record["decision"], "asked-yes");
    assert_eq!(record["result"], "unavailable");
}

#[test]
fn warning_shows_concerns_and_no_refuses() {
    if !tmux::available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let probe = TestEnv::new();
    let config = probe.verifier("careful", &verdict_body("warn"), "");
    // The verifier script lives in `probe`'s directory, which stays alive for the test.
    let (env, screen) = prompt_and_answer("n", Some(&config));
    assert!(screen.contains("careful: warn: said warn"), "{screen}");
    assert_ne!(
        env.remote_ref("main").unwrap(),
        env.rev(&env.work, "HEAD"),
        "remote unchanged"
    );
    let record = env.last_audit();
    assert_eq!(record["decision"], "asked-no");
    assert_eq!(record["result"], "warn");
    drop(probe);
}

#[test]
fn a_local_deletion_asks_at_the_terminal_and_yes_leaves_a_rescue_ref() {
    if !tmux::available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    for (answer, kept) in [("n", true), ("y", false)] {
        let env = TestEnv::new();
        env.install();
        env.git(&env.work, &["switch", "-q", "-c", "solo"]);
        let tip = env.commit(&env.work, "solo.txt", "only on solo");
        env.git(&env.work, &["switch", "-q", "main"]);
        let term = tmux::Tmux::start(&env, &env.work, "git branch -D solo");
        let screen = term.wait_for("Allow this branch deletion?");
        assert!(screen.contains("only on solo"), "{screen}");
        term.send(answer);
        term.wait_for("[exit=");
        let exists = env
            .git_out(&env.work, &["rev-parse", "--verify", "-q", "solo"])
            .code
            == 0;
        assert_eq!(exists, kept, "answer {answer}");
        let record = env.last_audit_of("reference-transaction");
        let rescues = env.git(
            &env.work,
            &[
                "for-each-ref",
                "--format=%(objectname)",
                "refs/vouch/rescue",
            ],
        );
        if kept {
            assert_eq!(record["decision"], "asked-no");
            assert!(rescues.is_empty());
        } else {
            assert_eq!(record["decision"], "asked-yes");
            assert_eq!(rescues.trim(), tip, "the deleted tip is rescued");
        }
    }
}
