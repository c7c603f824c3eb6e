//! The hook gate: the program `git vouch install` writes as each hook file,
//! with what it starts appended (`hooks/gate_tail.rs`, which
//! `src/install/gate.rs` compiles too, writes and reads that tail).
//! `build.rs` compiles this file on its own, with the standard library only,
//! linked statically where the C library allows it, else to the C library
//! alone at a fixed address: a hook that is a script pays for `sh` and then
//! vouch on every commit and ref update; this pays for one small program,
//! and for vouch only when vouch has something to decide.
//!
//! What it does, in order:
//!
//! - It reads its own file's tail: the vouch binary, the hook's `sh` script
//!   (the same `hooks/hook.sh` text a script install writes), whether it is
//!   strict and whether it is the reference-transaction gate. A tail it
//!   cannot read runs vouch from `PATH` through `sh` (as the script does).
//! - The reference-transaction hook (gated) decides what vouch would decide
//!   without starting it: with no state argument, or a chained
//!   `<hook>.local`, vouch decides; a state other than `prepared` passes
//!   (vouch judges only `prepared`); `prepared` reads the input and passes
//!   when no line names a guarded ref (`GUARDED_REFS`), or when each
//!   guarded line is routine for the git command that runs it (a commit
//!   moving its branch forward) and no hook of the directory has been taken
//!   over by a hook manager, read by vouch's own code
//!   (`src/input/git_command.rs`, compiled here too); else vouch starts as
//!   a child and gets every byte read on its standard input.
//! - Every other hook, and a reference transaction vouch decides before its
//!   input is read, replaces itself with vouch (`exec`), which sees the
//!   hook's path as its `argv[0]` and git's arguments, input and
//!   environment.
//! - When vouch cannot start, `/bin/sh -c SCRIPT <hook path> <args>` runs
//!   the script, which looks for vouch on `PATH`, then warns and allows or
//!   refuses when strict, and runs a chained hook. When even `sh` cannot
//!   start, the gate says so and exits 1 when strict, else 0.

// Its `main` skips std's start-up where the C library allows it
// (`hooks/start.rs`, which vouch's `main` compiles too).
#![cfg_attr(all(not(test), any(target_env = "gnu", target_os = "macos")), no_main)]

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};

use gate_tail::Fields;

#[expect(dead_code, reason = "vouch writes the tail; the gate only reads it")]
mod gate_tail;
#[macro_use]
mod start;

/// vouch's own reading of git's command lines and of a transaction's
/// lines, compiled here as it is in vouch (where it is
/// `vouch::input::git_command`, beside `git_options`).
#[expect(
    dead_code,
    reason = "the gate uses the part that decides a transaction's routine lines"
)]
#[path = "../src/input/git_command.rs"]
mod git_command;
#[path = "../src/input/git_options.rs"]
mod git_options;
#[cfg(target_os = "linux")]
#[expect(
    dead_code,
    reason = "the gate reads its parent's executable and command line"
)]
#[path = "../src/platform/linux.rs"]
mod linux;
#[cfg(target_os = "linux")]
#[path = "../src/platform/words.rs"]
mod words;

use git_command::{GUARDED_REFS, GitCommand};

/// The script run when the tail cannot be read.
const DAMAGED: &[u8] = b"for v in git-vouch vouch; do command -v $v >/dev/null 2>&1 && exec $v hook \"${0##*/}\" --hook-dir \"${0%/*}\" -- \"$@\"; done
echo \"vouch: warning: the hook $0 is damaged and vouch is not on PATH: NOT checked. Run 'git vouch install' again.\" >&2
exit 0
";

main_without_std_start!(run);

fn run() -> i32 {
    let mut args = std::env::args_os();
    let hook = args.next().unwrap_or_default();
    let rest: Vec<OsString> = args.collect();
    let tail = read_tail(&hook);
    let Some(tail) = tail.as_deref().and_then(gate_tail::read) else {
        // The file is not as vouch wrote it: vouch from `PATH`, else said
        // and allowed (no ordinary git command may break).
        return shell(&hook, &rest, DAMAGED, None, false);
    };
    if tail.gated
        && let Some(state) = rest.first()
        && !has_local(&hook)
    {
        if state != "prepared" {
            return 0;
        }
        // A page set aside: from an empty buffer, `read_to_end` reads 32
        // bytes, then 32 and 64 (three calls for one ref's line).
        let mut input = Vec::with_capacity(4096);
        if std::io::stdin().read_to_end(&mut input).is_err() {
            // vouch would judge what is left of the input: refused.
            let _ = writeln!(
                std::io::stderr(),
                "vouch: cannot read this ref update's input: refused (`git vouch doctor` checks the hooks)"
            );
            return 1;
        }
        if !names_guarded_ref(&input) || (routine(&input) && nothing_displaced(&hook)) {
            return 0;
        }
        return start(&tail, &hook, &rest, Some(&input));
    }
    start(&tail, &hook, &rest, None)
}

/// True when some line of `input` may name a guarded ref.
fn names_guarded_ref(input: &[u8]) -> bool {
    GUARDED_REFS
        .iter()
        .any(|g| input.windows(g.len()).any(|w| w == g.as_bytes()))
}

/// True when vouch's door would find nothing to judge in `input`: each
/// guarded line is routine for the git command that runs the transaction
/// (a commit's branch moving forward), read as the door reads it
/// (`git_command::left_to_judge`). False whenever that command cannot be
/// read here: vouch reads it.
fn routine(input: &[u8]) -> bool {
    let updates = git_command::guarded_updates(input);
    updates.is_empty()
        || parent_git_command()
            .is_some_and(|command| git_command::left_to_judge(updates, &command).is_empty())
}

/// The command line of the git process that runs this hook: the gate's
/// parent, when its executable is git. Read on Linux, from `/proc`, with
/// vouch's own reader (`src/platform/linux.rs` and the `words.rs` beside
/// it, compiled here too); elsewhere vouch reads it.
#[cfg(target_os = "linux")]
fn parent_git_command() -> Option<GitCommand> {
    let pid = std::os::unix::process::parent_id();
    if !linux::exe(pid).is_some_and(|exe| git_command::is_git_executable(&exe)) {
        return None;
    }
    GitCommand::parse(&git_command::git_argv(linux::cmdline(pid)?)?)
}

#[cfg(not(target_os = "linux"))]
fn parent_git_command() -> Option<GitCommand> {
    None
}

/// True when no hook of this directory has been taken over by a hook
/// manager's reinstall: every hook `.vouch-hooks` lists, but this one, is
/// still vouch's (`gate_tail::is_vouch_hook`, as `vouch::install::is_ours`
/// reads it). Otherwise vouch runs, and puts itself back in front of a
/// manager's script (`install::repair::put_back`, which it runs on a
/// guarded transaction).
fn nothing_displaced(hook: &OsStr) -> bool {
    let hook = std::path::Path::new(hook);
    let (Some(dir), Some(this)) = (hook.parent(), hook.file_name()) else {
        return false;
    };
    let Some(recorded) = gate_tail::recorded(dir) else {
        return false;
    };
    recorded
        .iter()
        .filter(|name| OsStr::new(name) != this)
        .all(|name| std::fs::File::open(dir.join(name)).is_ok_and(|f| gate_tail::is_vouch_hook(&f)))
}

/// `<hook>.local` exists: vouch runs it, in every state.
fn has_local(hook: &OsStr) -> bool {
    let mut local = hook.to_os_string();
    local.push(".local");
    std::fs::symlink_metadata(local).is_ok()
}

/// Starts vouch (`input`: the bytes already read, handed to it as a
/// child's standard input; else it replaces this process), or the script
/// when vouch cannot start.
fn start(tail: &Fields, hook: &OsStr, rest: &[OsString], input: Option<&[u8]>) -> i32 {
    let mut vouch = Command::new(OsStr::from_bytes(tail.bin));
    vouch.arg0(hook).args(rest);
    if let Some(code) = launch(&mut vouch, input) {
        return code;
    }
    shell(hook, rest, tail.script, input, tail.strict)
}

/// `/bin/sh -c SCRIPT <hook> <args>`; when `sh` cannot start either, the
/// last word, and 1 when strict.
fn shell(
    hook: &OsStr,
    rest: &[OsString],
    script: &[u8],
    input: Option<&[u8]>,
    strict: bool,
) -> i32 {
    let mut sh = Command::new("/bin/sh");
    sh.arg("-c")
        .arg(OsStr::from_bytes(script))
        .arg(hook)
        .args(rest);
    if let Some(code) = launch(&mut sh, input) {
        return code;
    }
    let name = std::path::Path::new(hook)
        .file_name()
        .unwrap_or(hook.as_ref());
    let verdict = if strict { "refused" } else { "NOT checked" };
    let _ = writeln!(
        std::io::stderr(),
        "vouch: neither the vouch binary nor /bin/sh can start: this {} hook is {verdict}",
        name.to_string_lossy()
    );
    i32::from(strict)
}

/// Runs `cmd`: with no input, in place of this process (returns only when
/// it cannot start); with input, as a child fed those bytes, whose exit
/// code (128 and the signal when one ended it) is returned. `None` when it
/// cannot start.
fn launch(cmd: &mut Command, input: Option<&[u8]>) -> Option<i32> {
    let Some(input) = input else {
        let _ = cmd.exec();
        return None;
    };
    let mut child = cmd.stdin(Stdio::piped()).spawn().ok()?;
    let mut stdin = child.stdin.take()?;
    // A closed pipe means the child has ended without reading it all
    // (vouch reads its whole input before it decides; the script when
    // vouch is gone reads none): its exit code stands.
    let fed = match stdin.write_all(input) {
        Ok(()) => true,
        Err(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
    };
    drop(stdin);
    if !fed {
        // vouch would decide on part of the input: refused.
        let _ = child.kill();
        let _ = child.wait();
        let _ = writeln!(
            std::io::stderr(),
            "vouch: cannot hand this ref update's input to vouch: refused (`git vouch doctor` checks the hooks)"
        );
        return Some(1);
    }
    // vouch has judged: a status that cannot be read is a refusal, never
    // a second run.
    let status = child.wait().ok();
    Some(
        status
            .and_then(|s| s.code().or_else(|| s.signal().map(|n| 128 + n)))
            .unwrap_or(1),
    )
}

/// This program's tail, read from its own file: the running executable
/// (on Linux through `/proc`), else the path git started it by.
fn read_tail(hook: &OsStr) -> Option<Vec<u8>> {
    let file = std::env::current_exe()
        .and_then(std::fs::File::open)
        .or_else(|_| std::fs::File::open(hook))
        .ok()?;
    gate_tail::read_end(&file)
}
