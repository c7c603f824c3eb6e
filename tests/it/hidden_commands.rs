//! Issue 26 item 10: shell constructs that hid a command from the agent
//! door. Each test is the attack as an agent could write it, in several
//! forms, through `agent-hook claude`; the door must stop it (ask or deny)
//! and name the hidden command. Ordinary commands using the same
//! constructs still pass.

use std::fs;

use serde_json::Value;

use crate::support::TestEnv;

/// A work tree where every hidden command would lose something: unsaved
/// changes in a tracked file, an untracked file, a branch `feat` whose
/// commit is on no other ref, and a local `main` one commit behind
/// `origin` (a force push would drop the remote's commit).
fn risky() -> TestEnv {
    let env = TestEnv::new();
    env.git(&env.work, &["switch", "-q", "-c", "feat"]);
    env.commit(&env.work, "feat.txt", "only on feat");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.rewind(1);
    fs::write(env.work.join("file1.txt"), "unsaved work\n").unwrap();
    fs::write(env.work.join("notes.txt"), "untracked work\n").unwrap();
    env
}

/// Claude Code's decision and reason for `command`.
fn decision(env: &TestEnv, command: &str) -> (String, String) {
    let out = env.claude(command);
    out.code(0);
    if out.stdout.trim().is_empty() {
        return (String::new(), String::new());
    }
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let text = |x: &Value| x.as_str().unwrap_or_default().to_owned();
    (
        text(&v["hookSpecificOutput"]["permissionDecision"]),
        text(&v["hookSpecificOutput"]["permissionDecisionReason"]),
    )
}

/// Asserts the door stops `command` at `tier` (asks or denies) and that
/// its reason names `hidden`, as vouch normalized it.
#[track_caller]
fn stopped(env: &TestEnv, command: &str, tier: &str, hidden: &str) {
    let (decision, reason) = decision(env, command);
    assert!(
        decision == "ask" || decision == "deny",
        "{command:?} was not stopped: {decision:?} {reason}"
    );
    assert!(
        reason.contains(&format!("is {tier} risk")),
        "{command:?} is not {tier}: {reason}"
    );
    assert!(
        reason.contains(&format!("`{hidden}`")),
        "{command:?}: the reason does not name `{hidden}`: {reason}"
    );
}

/// The door ran nothing: the branch, the unsaved and untracked work are
/// all still there.
#[track_caller]
fn nothing_ran(env: &TestEnv) {
    assert_eq!(env.rev(&env.work, "feat").len(), 40);
    assert_eq!(
        fs::read_to_string(env.work.join("file1.txt")).unwrap(),
        "unsaved work\n"
    );
    assert!(env.work.join("notes.txt").exists());
}

#[test]
fn commands_hidden_in_arithmetic_are_stopped() {
    let env = risky();
    for (command, hidden) in [
        (
            "echo $(( $(git reset --hard HEAD~3) + 1 ))",
            "git reset --hard 'HEAD~3'",
        ),
        (": $(( x = $(git branch -D feat) ))", "git branch -D feat"),
        ("echo $[ $(git clean -fdx) ]", "git clean -fdx"),
        (
            "(( $(git push -f origin main) ))",
            "git push -f origin main",
        ),
        ("let \"x=$(git clean -fdx)\"", "git clean -fdx"),
        ("[[ $(( $(git clean -fdx) )) -eq 1 ]]", "git clean -fdx"),
        ("a[$(git clean -fdx)]=1", "git clean -fdx"),
        ("echo \"$(( 1 + `git clean -fdx` ))\"", "git clean -fdx"),
        ("echo $((git clean -fdx) )", "git clean -fdx"),
        ("x='a[$(git clean -fdx)]'; echo $((x))", "git clean -fdx"),
    ] {
        stopped(&env, command, "critical", hidden);
    }
    nothing_ran(&env);
}

#[test]
fn commands_hidden_in_parameter_expansions_are_stopped() {
    let env = risky();
    stopped(
        &env,
        "echo ${x:-$(git push --force origin main)}",
        "critical",
        "git push --force origin main",
    );
    for command in [
        "echo ${x:=$(git clean -fdx)}",
        ": ${x:+$(git clean -fdx)}",
        "echo ${x:?$(git clean -fdx)}",
        "echo ${x-$(git clean -fdx)}",
        "echo ${a:-${b:-$(git clean -fdx)}}",
        "echo ${x:-`git clean -fdx`}",
        "echo \"${x:-$(git clean -fdx)}\"",
        "echo \"${x:-'$(git clean -fdx)'}\"",
        "echo ${a[$(git clean -fdx)]}",
    ] {
        stopped(&env, command, "critical", "git clean -fdx");
    }
    nothing_ran(&env);
}

/// A function body is judged where it is defined and again at each call,
/// with the call's arguments (issue 26 item 10; every body is judged).
#[test]
fn functions_defined_and_called_in_the_line_are_stopped() {
    let env = risky();
    for (command, hidden) in [
        (
            "f(){ git push -f origin main; }; f",
            "git push -f origin main",
        ),
        (
            "function f { git branch -D feat; }; f",
            "git branch -D feat",
        ),
        (
            "f() ( git reset --hard HEAD~1 ); f",
            "git reset --hard 'HEAD~1'",
        ),
        ("ls(){ git clean -fdx; }; ls", "git clean -fdx"),
        (
            "f(){ git \"$@\"; } && git status && f branch -D feat",
            "git branch -D feat",
        ),
        (
            "f(){ git branch -D \"$1\"; }; command f feat",
            "git branch -D feat",
        ),
        (
            "f(){ \"$@\"; }; echo clean -fdx | xargs f git",
            "git clean -fdx",
        ),
        (
            "f()\n{\n  git push --force origin \"$1\"\n}\nf main",
            "git push --force origin main",
        ),
    ] {
        stopped(&env, command, "critical", hidden);
    }
    nothing_ran(&env);
}

#[test]
fn env_split_strings_are_peeled_like_env_itself() {
    let env = risky();
    for (command, hidden) in [
        (
            "env -S 'GIT_DIR=/tmp/x git push -f origin main'",
            "git push -f origin main",
        ),
        ("env -S\"git branch -D feat\"", "git branch -D feat"),
        (
            "env --split-string='A=1 git reset --hard'",
            "git reset --hard",
        ),
        ("env -iS 'A=1 B=2 git clean -fdx'", "git clean -fdx"),
        ("env -u HOME -S 'A=1 git clean -fdx'", "git clean -fdx"),
    ] {
        stopped(&env, command, "critical", hidden);
    }
    nothing_ran(&env);
}

/// `xargs -a FILE` takes its arguments from a file the door does not
/// read: judged as the worst they could be, even when the file names a
/// branch that does not exist.
#[test]
fn arguments_from_a_file_are_judged_at_their_worst() {
    let env = risky();
    fs::write(env.work.join("list.txt"), "gone\n").unwrap();
    for (command, hidden) in [
        ("xargs -a list.txt git branch -D", "git branch -D"),
        ("xargs -0a list.txt git branch -D", "git branch -D"),
        ("xargs --arg-file=list.txt git branch -D", "git branch -D"),
        (
            "echo gone | xargs -alist.txt git branch -D",
            "git branch -D",
        ),
        ("xargs -a list.txt git push", "git push"),
        ("parallel git branch -D :::: list.txt", "git branch -D"),
    ] {
        stopped(&env, command, "critical", hidden);
    }
    nothing_ran(&env);
}

/// Where the walker cannot resolve what runs, the line is judged at least
/// as strictly as the most dangerous command its words could make.
#[test]
fn what_the_door_cannot_resolve_is_judged_by_its_worst_reading() {
    let env = risky();
    for (command, hidden) in [
        ("$cmd push -f origin main", "'$cmd' push -f origin main"),
        ("$(echo g)it clean -fdx", "'$(echo g)it' clean -fdx"),
        ("$SUDO git clean -fdx", "git clean -fdx"),
        ("git branch -D \"$b\"", "git branch -D '$b'"),
        ("set -- clean -fdx; git \"$@\"", "git clean -fdx"),
        ("trap -- 'git clean -fdx' EXIT", "git clean -fdx"),
        ("coproc git clean -fdx", "git clean -fdx"),
    ] {
        stopped(&env, command, "critical", hidden);
    }
    let (decision, reason) = decision(&env, "$cmd push -f origin main");
    assert_eq!(decision, "ask");
    assert!(
        reason.contains("the program is only known when it runs"),
        "{reason}"
    );
    stopped(&env, "eval \"$x\"", "high", "$x");
    nothing_ran(&env);
}

/// Not "deny everything": the same constructs in ordinary commands pass
/// with no opinion, and a function's argument reaches the facts.
#[test]
fn ordinary_commands_with_these_constructs_pass() {
    let env = risky();
    for command in [
        "echo $((1+2))",
        "echo ${HOME:-/tmp}",
        "f(){ echo hi; }; f",
        "env -S 'FOO=1 ls'",
        "f(){ git log \"$@\"; }; f --oneline -3",
        "git branch --merged | grep -v main | xargs git branch -d",
        // The call names a branch that does not exist: nothing is lost.
        "f(){ git branch -D \"$1\"; }; f gone",
    ] {
        let (decision, reason) = decision(&env, command);
        assert_eq!(decision, "", "{command:?}: {reason}");
    }
}
