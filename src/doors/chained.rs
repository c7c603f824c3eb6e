//! The hook a door chains to: `<hook>.local`, the hook that was in place
//! before vouch (or a hook manager's script), run first with git's input.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use crate::interact::ui;

/// Runs `<dir>/<hook>.local` with `input` on stdin; `None` if there is none.
///
/// The chained hook sees the path git ran the hook by (`<dir>/<hook>`) as
/// its `$0`, as it did before vouch was installed: a shell script is read by
/// its shell under that name, a binary gets it as `argv[0]`. (A script for
/// another interpreter is started by the kernel, which gives it its own
/// path.) vouch's own hook under that name is never run: it would start
/// vouch again, without end.
pub(crate) fn run_chained(
    env: &dyn crate::platform::env::Env,
    dir: &Path,
    hook: &str,
    args: &[&str],
    input: &[u8],
    front: Option<&str>,
) -> Result<Option<i32>> {
    let as_run = dir.join(hook);
    let path = crate::install::local_path(&as_run);
    if !path.is_file() {
        return Ok(None);
    }
    if crate::install::is_vouch_file(&path) {
        ui::warn(&format!(
            "`{}` is vouch's own hook, not one to chain, so it was not run (`git vouch install` removes it)",
            path.display()
        ));
        return Ok(None);
    }
    // A hook manager running vouch in its migration mode (vouch's hook moved
    // to `<hook>.legacy`) already runs its own hooks: its script kept here
    // would start it again, and it refuses that.
    if crate::install::managers::chained_is_the_caller(&path, env).is_some() {
        return Ok(None);
    }
    // As git does with hooks: one that is not executable is skipped, with a word.
    if !crate::platform::files::is_executable(&path) {
        ui::warn(&format!(
            "`{}` is not executable, so it was not run",
            path.display()
        ));
        return Ok(None);
    }
    let mut command = chained_command(&path, &as_run);
    if let Some(marker) = front {
        command.env(crate::platform::env::vars::VOUCH_FRONT, marker);
    }
    let mut child = command
        .args(args)
        .stdin(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run the chained hook `{}`", path.display()))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A hook may exit without reading all of its input.
        stdin.write_all(input).ok();
    }
    let status = child
        .wait()
        .with_context(|| format!("cannot wait for `{}`", path.display()))?;
    Ok(Some(status.code().unwrap_or(1)))
}

/// The shells whose scripts are read with `.` under the hook's own name.
const SHELLS: &[&[u8]] = &[b"sh", b"bash", b"dash", b"ksh", b"mksh", b"zsh", b"ash"];

/// The command that runs the chained hook at `path` (`<hook>.local`) so that
/// its `$0` is `as_run`, the path git ran the hook by.
fn chained_command(path: &Path, as_run: &Path) -> Command {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::os::unix::process::CommandExt;

    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(path) {
        f.take(256).read_to_end(&mut head).ok();
    }
    let first = head.split(|b| *b == b'\n').next().unwrap_or_default();
    // `sh -c '. "$0.local"' <dir>/<hook> <args>`: `$0.local` is `path`, and a
    // name with a slash is never looked up on PATH.
    let source = |shell: std::ffi::OsString, options: Vec<std::ffi::OsString>| {
        let mut c = Command::new(shell);
        c.args(options).arg("-c").arg(". \"$0.local\"").arg(as_run);
        c
    };
    let with_slash = as_run.as_os_str().as_bytes().contains(&b'/');
    if with_slash && let Some(line) = first.strip_prefix(b"#!") {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let mut words = line
            .split(|b| *b == b' ' || *b == b'\t')
            .filter(|w| !w.is_empty());
        let interpreter = words.next().unwrap_or_default();
        let rest: Vec<&[u8]> = words.collect();
        let base = interpreter
            .rsplit(|b| *b == b'/')
            .next()
            .unwrap_or_default();
        let os = |b: &[u8]| std::ffi::OsString::from_vec(b.to_vec());
        if SHELLS.contains(&base) && rest.iter().all(|w| w.starts_with(b"-")) {
            return source(os(interpreter), rest.iter().map(|w| os(w)).collect());
        }
        if base == b"env" && rest.len() == 1 && SHELLS.contains(&rest[0]) {
            let mut c = Command::new(os(interpreter));
            c.arg(os(rest[0]))
                .arg("-c")
                .arg(". \"$0.local\"")
                .arg(as_run);
            return c;
        }
    } else if with_slash && !head.is_empty() && !crate::install::is_program(&head) {
        // No `#!` line: git runs such a hook with `sh`.
        return source("/bin/sh".into(), Vec::new());
    }
    let mut c = Command::new(path);
    c.arg0(as_run);
    c
}
