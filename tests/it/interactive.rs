//! A real terminal (tmux) answering vouch's prompt during `git push --force`:
//! a whole line answers (`y`/`yes` then Enter), keys typed before the
//! question are discarded, and Ctrl-C or SIGTERM at the prompt is a No that
//! is logged, with the terminal left as it was.

use std::time::{Duration, Instant};

use serde_json::Value;

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
    term.send("Enter");
    term.wait_for("[exit=");
    (env, screen)
}

#[test]
fn critical_push_without_verdict_asks_and_yes_pushes() {
    if !tmux::available() {
        crate::support::missing("tmux");
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
        crate::support::missing("tmux");
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
        crate::support::missing("tmux");
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
        term.send("Enter");
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

/// Waits for an audit record of `hook` (vouch may still be writing it after
/// git is gone); panics with the log after a deadline.
fn wait_for_record(env: &TestEnv, hook: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(r) = env.audit().into_iter().rev().find(|r| r["hook"] == hook) {
            return r;
        }
        assert!(
            Instant::now() < deadline,
            "no audit record of {hook}: {:?}",
            env.audit()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn yes_and_enter_answer_and_nothing_of_the_line_reaches_the_shell() {
    if !tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let env = TestEnv::new();
    env.install();
    env.rewind(1);
    // Whatever the prompt leaves unread, the next `read` gets.
    let term = tmux::Tmux::start(
        &env,
        &env.work,
        "git push --force origin main; echo \"[push=$?]\"; read rest; echo \"[rest=$rest]\"",
    );
    term.wait_for("Allow this push?");
    term.send("yes");
    let typed = term.wait_for("[y/N] yes");
    assert!(
        !typed.contains("[push="),
        "one key does not answer:\n{typed}"
    );
    term.send("Enter");
    term.wait_for("[push=0]");
    term.send("after");
    term.send("Enter");
    let screen = term.wait_for("[rest=");
    assert!(screen.contains("[rest=after]"), "{screen}");
    assert_eq!(env.remote_ref("main").unwrap(), env.rev(&env.work, "HEAD"));
    assert_eq!(env.last_audit()["decision"], "asked-yes");
}

#[test]
fn keys_typed_before_the_question_are_not_its_answer() {
    if !tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let env = TestEnv::new();
    let go = env.base().join("go");
    // A verifier that waits for the test: keys typed meanwhile come before the question.
    let config = env.verifier(
        "slow",
        &format!(
            "cat >/dev/null\nwhile [ ! -e '{}' ]; do sleep 0.05; done\necho '{{\"status\":\"warn\",\"summary\":\"said warn\"}}'",
            go.display()
        ),
        "",
    );
    env.write_config(&config);
    env.install();
    env.rewind(1);
    let term = tmux::Tmux::start(&env, &env.work, "git push --force origin main");
    term.wait_for("asking the verifiers");
    term.send("y");
    term.send("Enter");
    std::fs::write(&go, "").unwrap();
    term.wait_for("Allow this push?");
    term.send("n");
    term.send("Enter");
    let screen = term.wait_for("[exit=");
    assert!(screen.contains("[exit=1]"), "{screen}");
    assert_ne!(env.remote_ref("main").unwrap(), env.rev(&env.work, "HEAD"));
    assert_eq!(env.last_audit()["decision"], "asked-no");
}

#[test]
fn ctrl_c_at_the_prompt_is_a_logged_no_and_the_terminal_is_restored() {
    if !tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let env = TestEnv::new();
    env.install();
    env.rewind(1);
    let term = tmux::Tmux::start(
        &env,
        &env.work,
        "trap 'echo [interrupted]' INT; git push --force origin main; echo \"[push=$?]\"; read x; stty -a | tr ' ;' '\\n\\n' | grep -x -e '-*icanon' -e '-*echo' -e '-*isig' | tr '\\n' ' '; echo \"[done $x]\"",
    );
    term.wait_for("Allow this push?");
    // tmux sends SIGINT to the whole foreground process group: git, the
    // hook and vouch (the test's shell outlives it by its trap).
    term.send("C-c");
    term.wait_for("[push=");
    let record = wait_for_record(&env, "pre-push");
    assert_eq!(record["decision"], "asked-no");
    assert_ne!(env.remote_ref("main").unwrap(), env.rev(&env.work, "HEAD"));
    assert_eq!(term.display("#{cursor_flag}"), "1", "the cursor is shown");
    // A line typed now is read by the shell: the terminal is not left raw.
    term.send("back");
    term.send("Enter");
    let screen = term.wait_for("[done");
    let modes = screen
        .lines()
        .find(|l| l.contains("[done back]"))
        .unwrap_or_else(|| panic!("{screen}"));
    for mode in ["icanon", "echo", "isig"] {
        assert!(
            modes.split(' ').any(|m| m == mode),
            "{mode} is on again: {modes}"
        );
    }
}

/// The processes started under `pid`, it included, depth first, each with
/// its command name, from one `ps` listing: `/proc` is Linux's only, and
/// the release workflow runs this test on macOS too (`ps -o comm=` names
/// the program there by its path, here by its name).
fn descendants(pid: u32) -> Vec<(u32, String)> {
    fn walk(pid: u32, table: &[(u32, u32, String)], out: &mut Vec<(u32, String)>) {
        let name = table
            .iter()
            .find(|(p, _, _)| *p == pid)
            .map(|(_, _, c)| c.clone())
            .unwrap_or_default();
        out.push((pid, name));
        for (child, _, _) in table.iter().filter(|(_, parent, _)| *parent == pid) {
            walk(*child, table, out);
        }
    }
    let out = std::process::Command::new("ps")
        .args(["-A", "-o", "pid=", "-o", "ppid=", "-o", "comm="])
        .output()
        .expect("ps runs");
    let table: Vec<(u32, u32, String)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let id = words.next()?.parse().ok()?;
            let parent = words.next()?.parse().ok()?;
            Some((id, parent, words.collect::<Vec<_>>().join(" ")))
        })
        .collect();
    let mut found = Vec::new();
    walk(pid, &table, &mut found);
    found
}

#[test]
fn sigterm_at_the_prompt_is_a_logged_no() {
    if !tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let env = TestEnv::new();
    env.install();
    env.rewind(1);
    let term = tmux::Tmux::start(&env, &env.work, "git push --force origin main");
    term.wait_for("Allow this push?");
    // The vouch process this test started, found from the pane's shell.
    let shell: u32 = term.display("#{pane_pid}").parse().unwrap();
    let (vouch, _) = descendants(shell)
        .into_iter()
        .find(|(_, name)| name.rsplit('/').next() == Some("git-vouch"))
        .expect("vouch is running");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &vouch.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let screen = term.wait_for("[exit=");
    assert!(screen.contains("[exit=1]"), "{screen}");
    assert_eq!(wait_for_record(&env, "pre-push")["decision"], "asked-no");
    assert_ne!(env.remote_ref("main").unwrap(), env.rev(&env.work, "HEAD"));
}

/// Issue 29 item 6: the prompt says why there is no verdict and what to do
/// next, for each reason (no key, no provider reachable, no usable
/// answer); and after "y" on the force push, where the commit it takes off
/// `origin/main` still lives: kept under a rescue ref, as it is here.
#[test]
fn the_prompt_says_why_there_is_no_verdict_and_yes_keeps_what_the_push_overwrites() {
    use crate::support::llm::{LlmServer, ok};
    if !tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let chatty = LlmServer::start(vec![ok(serde_json::json!({
        "content": [{"type": "text", "text": "Looks fine to me, go ahead."}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 100, "output_tokens": 20}}))]);
    let cases = [
        (
            None,
            "no AI provider has a key, and no verifier program is configured",
            "set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY",
        ),
        (
            Some(format!("http://127.0.0.1:{closed}")),
            "no AI provider could be reached",
            "`git vouch doctor --ping`",
        ),
        (
            Some(chatty.url.clone()),
            "the AI verifier answered, but no answer was a usable verdict",
            "`git vouch verify --explain`",
        ),
    ];
    for (url, why, next) in cases {
        let mut env = TestEnv::new();
        if let Some(url) = url {
            env.extra_env.push(("ANTHROPIC_BASE_URL".into(), url));
            env.extra_env
                .push(("ANTHROPIC_API_KEY".into(), "sk-ant-TEST-0123456789".into()));
            env.write_config("[ai]\ntimeout_secs = 2\nconnect_timeout_secs = 2\n");
        }
        env.install();
        let overwritten = env.rev(&env.work, "HEAD");
        env.rewind(1);
        let term = tmux::Tmux::start(&env, &env.work, "git push --force origin main");
        let screen = term.wait_for("Allow this push?");
        assert!(
            screen.contains(&format!("No verifier could judge this push: {why}.")),
            "{screen}"
        );
        assert!(screen.contains(next), "{next}:\n{screen}");
        term.send("y");
        term.send("Enter");
        let screen = term.wait_for("[exit=");
        assert!(screen.contains("[exit=0]"), "{screen}");
        let kept = env.git(
            &env.work,
            &[
                "for-each-ref",
                "--format=%(refname) %(objectname)",
                "refs/vouch/rescue/",
            ],
        );
        let (name, oid) = kept.trim().split_once(' ').expect("a rescue ref");
        assert_eq!(oid, overwritten);
        assert!(
            name.starts_with("refs/vouch/rescue/origin/main/") && name.ends_with("-remote"),
            "{name}"
        );
        assert!(
            screen.contains(&format!(
                "the commits `main` had on `origin` ({}) are kept here as `{name}`",
                &overwritten[..10]
            )),
            "{screen}"
        );
    }
}
