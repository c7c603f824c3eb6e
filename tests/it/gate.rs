//! The program a hook file is, as git runs it: the gate (`hooks/gate.rs`,
//! a file `install::gate` builds), started with git's arguments and input
//! in front of a stand-in for vouch that says how it was started.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use vouch::install::gate;

/// The hook file `install::gate` builds: the binary, the script run when
/// it cannot start, strict, gated.
fn build(bin: &Path, script: &[u8], strict: bool, gated: bool) -> Vec<u8> {
    gate::build(bin, script, strict, gated).unwrap()
}

/// An executable `sh` script at `dir/name`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    write_executable(&path, format!("#!/bin/sh\n{body}").as_bytes());
    path
}

/// Writes `bytes` as the executable file `path`, by a child process (`sh`):
/// a file this process wrote could be held open for writing by a child
/// another test thread forks at that moment, and executing it (the test
/// running a hook, or the hook starting vouch) would fail with "Text file
/// busy".
fn write_executable(path: &Path, bytes: &[u8]) {
    let mut child = Command::new("sh")
        .args(["-c", "cat > \"$0\" && chmod 755 \"$0\""])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), bytes).unwrap();
    assert!(
        child.wait().unwrap().success(),
        "cannot write {}",
        path.display()
    );
}

/// Writes `bytes` as the executable hook `dir/name` and runs it with
/// `args` and `stdin`, `PATH` set to `path`: its exit code, stdout and
/// stderr.
fn run(dir: &Path, name: &str, bytes: &[u8], args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let hook = dir.join(name);
    if fs::read(&hook).ok().as_deref() != Some(bytes) {
        write_executable(&hook, bytes);
    }
    // Another test's fork may hold a file open for writing for a moment
    // (ETXTBSY).
    let mut tries = 0;
    let mut child = loop {
        match Command::new(&hook)
            .args(args)
            .env("PATH", "/usr/bin:/bin")
            .env("GATE_PROBE", "set")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(c) => break c,
            Err(e) if e.raw_os_error() == Some(26) && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => panic!("{e}"),
        }
    };
    // A hook may exit without reading its input (git ignores the EPIPE).
    match child.stdin.take().unwrap().write_all(stdin) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.unwrap(),
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every hook but the reference transaction's: vouch replaces the hook's
/// program, with the hook's path as its `argv[0]` and git's arguments,
/// input and environment; when vouch cannot start, the script runs under
/// the hook's name with the same.
#[test]
fn starts_vouch_with_the_hooks_arguments_input_and_name() {
    if crate::support::gate().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = script(
        dir.path(),
        "fake vouch",
        "echo \"bin $0 [$1] [$2] $GATE_PROBE\"; cat; exit 7\n",
    );
    let fallback = b"echo \"fallback $0 [$1] [$2]\"; cat; exit 5\n";
    let hook = build(&bin, fallback, false, false);
    let start = |bytes: &[u8]| {
        run(
            dir.path(),
            "pre-push",
            bytes,
            &["origin", "a b"],
            b"ref lines\n",
        )
    };
    // (A script started by the kernel sees its own path as `$0`; vouch
    // itself gets the hook's path as `argv[0]`, which the integration
    // tests' hooks rely on.)
    let (code, out, _) = start(&hook);
    assert_eq!(code, 7);
    assert_eq!(
        out,
        format!("bin {} [origin] [a b] set\nref lines\n", bin.display())
    );
    // The binary is gone: the script runs, under the hook's own name.
    fs::remove_file(&bin).unwrap();
    let (code, out, _) = start(&hook);
    assert_eq!(code, 5);
    let path = dir.path().join("pre-push");
    assert_eq!(
        out,
        format!("fallback {} [origin] [a b]\nref lines\n", path.display())
    );
}

/// The reference-transaction gate starts vouch only for what vouch would
/// judge: every state but `prepared` passes, and a `prepared` input that
/// names none of vouch's guarded refs (`GUARDED_REFS`, each tried here).
#[test]
fn the_gate_starts_vouch_only_for_what_vouch_would_judge() {
    if crate::support::gate().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = script(dir.path(), "vouch", "echo \"bin [$1]\"; cat; exit 3\n");
    let hook = build(&bin, b"echo \"fallback [$1]\"; cat; exit 4\n", false, true);
    let name = "reference-transaction";
    let run_as = run;
    let run = |args: &[&str], input: &str| run(dir.path(), name, &hook, args, input.as_bytes());
    let z = "0".repeat(40);
    let a = "a".repeat(40);
    let remote = format!("{z} {a} refs/remotes/origin/topic\n");
    let branch = format!("{a} {z} refs/heads/main\n");
    let pass = (0, String::new(), String::new());
    for state in ["committed", "aborted", "preparing", "prepare"] {
        assert_eq!(run(&[state], &branch), pass, "{state}");
    }
    assert_eq!(run(&["prepared"], &remote.repeat(3)), pass);
    assert_eq!(run(&["prepared"], ""), pass);
    // Each guarded ref: vouch gets every byte the gate read.
    for guarded in vouch::input::git_command::GUARDED_REFS {
        let line = format!(
            "{a} {z} {guarded}{}\n",
            if guarded.ends_with('/') { "x" } else { "" }
        );
        let input = format!("{remote}{line}{remote}");
        let (code, out, _) = run(&["prepared"], &input);
        assert_eq!(
            (code, out),
            (3, format!("bin [prepared]\n{input}")),
            "{guarded}"
        );
    }
    // More than a pipe holds, the branch last.
    let big = format!("{}{branch}", remote.repeat(3000));
    let (code, out, _) = run(&["prepared"], &big);
    assert_eq!((code, out), (3, format!("bin [prepared]\n{big}")));
    // The gate reads all of it: no guarded ref, no vouch.
    assert_eq!(run(&["prepared"], &remote.repeat(3000)), pass);
    // No state: vouch decides.
    assert_eq!(run(&[], "x").0, 3);
    // A chained `.local` hook: vouch runs it, in every state.
    fs::write(dir.path().join(format!("{name}.local")), "").unwrap();
    assert_eq!(
        run(&["committed"], "x"),
        (3, "bin [committed]\nx".into(), String::new())
    );
    fs::remove_file(dir.path().join(format!("{name}.local"))).unwrap();
    // vouch ends without reading its input: its answer stands, whether or
    // not it ended before the gate wrote (never a SIGPIPE).
    for code in [6, 0] {
        script(dir.path(), "vouch", &format!("exit {code}\n"));
        for input in [&branch, &big] {
            for _ in 0..20 {
                assert_eq!(run(&["prepared"], input).0, code);
            }
        }
    }
    // vouch is gone: the script gets the input the gate read.
    fs::remove_file(&bin).unwrap();
    let (code, out, _) = run(&["prepared"], &branch);
    assert_eq!((code, out), (4, format!("fallback [prepared]\n{branch}")));
    assert_eq!(run(&["committed"], &branch).0, 0);
    // The script as it runs when vouch is gone warns and reads nothing: the
    // ref update goes on, whatever the input's size.
    let quiet = build(&bin, b"echo gone >&2; exit 0\n", false, true);
    for input in [&branch, &big] {
        for _ in 0..20 {
            let (code, _, err) = run_as(dir.path(), name, &quiet, &["prepared"], input.as_bytes());
            assert_eq!((code, err.as_str()), (0, "gone\n"));
        }
    }
}

/// A gate whose tail cannot be read (the file cut short) runs vouch from
/// `PATH`, and where there is none says so and lets git go on.
#[test]
fn a_damaged_gate_says_so_and_lets_git_go_on() {
    let Some(program) = crate::support::gate() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(dir.path(), "pre-commit", program, &[], b"");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("is damaged and vouch is not on PATH: NOT checked"),
        "{err}"
    );
}

/// An input the gate cannot read to its end (here a pipe that would block,
/// its writer still open) is refused: vouch never judges part of it.
#[test]
fn an_input_that_cannot_be_read_is_refused() {
    if crate::support::gate().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = script(dir.path(), "vouch", "cat >/dev/null; exit 0\n");
    let hook = dir.path().join("reference-transaction");
    write_executable(&hook, &build(&bin, b"exit 0\n", false, true));
    let (reader, mut writer) = std::io::pipe().unwrap();
    let z = "0".repeat(40);
    writeln!(writer, "{} {z} refs/heads/main", "a".repeat(40)).unwrap();
    rustix::fs::fcntl_setfl(&reader, rustix::fs::OFlags::NONBLOCK).unwrap();
    let out = Command::new(&hook)
        .arg("prepared")
        .stdin(reader)
        .output()
        .unwrap();
    drop(writer);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("refused"), "{said}");
}

/// The reference-transaction gate reads the git command that runs a
/// transaction as vouch's door does (`vouch::input::git_command`, which it
/// compiles too), from its parent on Linux: a commit moving its branch
/// forward passes without starting vouch; an amend (abbreviated too), a
/// new branch and a rewind (behind a global option too) start it, and so
/// does any transaction while a hook manager's script holds one of vouch's
/// hooks (vouch puts itself back on a guarded transaction) or the record of
/// vouch's hooks is gone. Elsewhere vouch reads the command itself.
#[test]
fn a_commits_own_branch_update_passes_the_gate_without_vouch() {
    if !cfg!(target_os = "linux") || crate::support::gate().is_none() {
        return;
    }
    let env = crate::support::TestEnv::new();
    let hooks = env.work.join(".git/hooks");
    let log = env.base().join("started");
    let bin = script(
        &env.base(),
        "vouch",
        &format!("echo \"$*\" >> '{}'; cat >/dev/null\n", log.display()),
    );
    for hook in ["pre-commit", "reference-transaction"] {
        let script = format!("# vouch-managed-hook: {hook}\nexit 0\n");
        let program = gate::build(
            &bin,
            script.as_bytes(),
            false,
            hook == "reference-transaction",
        );
        write_executable(&hooks.join(hook), &program.unwrap());
    }
    fs::write(
        hooks.join(".vouch-hooks"),
        "pre-commit\nreference-transaction\n",
    )
    .unwrap();
    // How often vouch was started for a `prepared` transaction since last asked.
    let judged = || {
        let text = fs::read_to_string(&log).unwrap_or_default();
        fs::write(&log, "").unwrap();
        text.lines().filter(|l| *l == "prepared").count()
    };
    // (The dates are fixed: each commit gets its own message, so that an
    // amend changes the branch.)
    let made = std::cell::Cell::new(0);
    let commit = |args: &[&str]| {
        made.set(made.get() + 1);
        let message = format!("commit {}", made.get());
        env.git(
            &env.work,
            &[args, &["-q", "--allow-empty", "-m", &message]].concat(),
        );
        judged()
    };
    assert_eq!(commit(&["commit"]), 0);
    assert_eq!(commit(&["-c", "user.name=Other", "commit", "--no-edit"]), 0);
    assert_eq!(commit(&["commit", "--amend"]), 1);
    assert_eq!(commit(&["commit", "--am"]), 1);
    env.git(&env.work, &["branch", "side"]);
    assert_eq!(judged(), 1);
    env.git(&env.work, &["reset", "-q", "--hard", "HEAD~1"]);
    assert_eq!(judged(), 1);
    // `--shallow-file` takes the next word: git runs `reset` here.
    env.git(
        &env.work,
        &[
            "--shallow-file",
            "commit",
            "reset",
            "-q",
            "--hard",
            "HEAD~1",
        ],
    );
    assert_eq!(judged(), 1);
    // A hook manager's reinstall took the pre-commit hook: vouch runs.
    script(
        &hooks,
        "pre-commit",
        "# File generated by pre-commit\nexit 0\n",
    );
    assert_eq!(commit(&["commit"]), 1);
    // vouch's own script in its place (as vouch puts itself back) is vouch's.
    script(
        &hooks,
        "pre-commit",
        "# vouch-managed-hook: pre-commit\nexit 0\n",
    );
    assert_eq!(commit(&["commit"]), 0);
    // Without the record of what vouch installed, vouch decides.
    fs::remove_file(hooks.join(".vouch-hooks")).unwrap();
    assert_eq!(commit(&["commit"]), 1);
}
