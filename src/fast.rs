//! The fast hook program, `vouch-hook`. It answers the push the door
//! allows at once and silently (a fast-forward or a new branch no rule
//! names, read without libgit2:
//! [`crate::commands::pre_push::AtOnce`]) and hands every other
//! push to the vouch binary, with the same name, arguments and input, so
//! that the whole door judges it.
//!
//! Why a second program: a hook is a process per push, and on a virtual
//! machine most of a short process's time goes to `execve`, page faults
//! (about 4 µs each) and file system calls. git-vouch answering a
//! fast-forward takes about 106 faults and 200 calls (libgit2 opens the
//! repository and reads its config files over and over); this program
//! about 40 faults and 60 calls (`BENCHMARKS.md`). The handover costs one
//! more `execve` on a push that is judged.
//!
//! It runs in one of two ways:
//! - as the hook file itself, a copy `git vouch install` made with its
//!   region baked ([`crate::baked`]): git starts one program. The copy
//!   hands over to the binary baked into it, and answers only while the
//!   installed program is still the one it was copied from; after an
//!   upgrade it hands every push over, and git-vouch refreshes it
//!   (`VOUCH_HOOK_STALE`);
//! - as the installed program, started by a launcher ([`crate::launcher`]:
//!   hooks installed by an earlier vouch): it hands over to the binary
//!   baked into the launcher.
//!
//! Either way, when the binary cannot start, the hook's script runs, as
//! the launcher itself would run it: it looks for vouch on `PATH`, then
//! warns, or refuses in strict mode.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

use crate::baked::Baked;
use crate::commands::pre_push::AtOnce;
use crate::context::Ctx;
use crate::env::ProcessEnv;
use crate::{ExitStatus, ui};

/// Runs the program: `args` is its command line as git or the launcher
/// gives it (the hook's path, then git's arguments); `region` is the
/// program's baked region ([`crate::baked`]), filled in when the program
/// is the hook file itself.
pub fn main(args: &[OsString], region: &[u8]) -> ExitCode {
    let copy = crate::baked::read(region);
    // A copy answers only while the installed program is the one it was
    // copied from: after an upgrade, git-vouch judges and refreshes it.
    let stale = copy.is_some_and(|c| !c.is_copy_of(crate::files::identity(c.fast).as_deref()));
    // What the answer needs besides the push's lines is read first: git
    // writes the lines once it has seen this program start, and reading
    // them last gives it that time, so the read need not sleep.
    let Some((at_once, remote, url)) = (!stale).then(|| prepare(args, copy.as_ref())).flatten()
    else {
        // The whole door decides, the input untouched.
        return hand_over(args, None, copy.as_ref(), stale);
    };
    let mut input = Vec::new();
    if let Err(e) = crate::files::read_stdin(usize::MAX, &mut input) {
        // Part of the lines would be judged as the whole push: refuse.
        ui::error(&anyhow::anyhow!(
            "cannot read the ref lines git passes on stdin ({e}): this push is refused; push again"
        ));
        return ExitCode::from(ExitStatus::Error as u8);
    }
    if at_once.allows(remote, url, &input) {
        return ExitCode::SUCCESS;
    }
    hand_over(args, Some(&input), copy.as_ref(), stale)
}

/// When this is a pre-push hook's command line, with vouch there to answer
/// for it: what the push door's answer needs besides the push's lines, and
/// the remote's name and address.
fn prepare<'a>(args: &'a [OsString], copy: Option<&Baked>) -> Option<(AtOnce, &'a str, &'a str)> {
    let [hook, remote, url] = args else {
        return None;
    };
    let (remote, url) = (remote.to_str()?, url.to_str()?);
    // The hook's directory and name, split by hand: git runs it by a plain
    // path (`.git/hooks/pre-push`).
    let hook = hook.as_bytes();
    let (hook_dir, name) = match hook.iter().rposition(|b| *b == b'/') {
        Some(i) => (&hook[..i], &hook[i + 1..]),
        None => (&b""[..], hook),
    };
    if name != b"pre-push" {
        return None;
    }
    // git-vouch must be there to be answered for: a missing one is noticed
    // at every push (the hook's script warns, or refuses when strict).
    let bin = match copy {
        Some(copy) => copy.bin.to_path_buf(),
        None => std::env::current_exe()
            .ok()?
            .with_file_name(crate::install::PROGRAM),
    };
    if !crate::files::is_executable(&bin) {
        return None;
    }
    let cwd = std::env::current_dir().ok()?;
    let hook_dir = Path::new(OsStr::from_bytes(hook_dir));
    let ctx = Ctx::new(Box::new(ProcessEnv), cwd, None);
    let at_once = AtOnce::prepare(&ctx, hook_dir, remote)?;
    Some((at_once, remote, url))
}

/// Starts the vouch binary in this process: the one baked into this copy,
/// or into the launcher the program was started from (the hook file), or
/// else the one beside it. Its standard input is `input`, the lines read
/// so far, or this program's own when none were read. When it cannot
/// start, the hook's script. Returns only when neither can. `stale` (a
/// copy older than the installed program) tells git-vouch to refresh the
/// hook.
fn hand_over(
    args: &[OsString],
    input: Option<&[u8]>,
    copy: Option<&Baked>,
    stale: bool,
) -> ExitCode {
    let Some(hook) = args.first() else {
        ui::error(&anyhow::anyhow!(
            "{} is started by vouch's pre-push hook, not by hand",
            crate::install::FAST_PROGRAM
        ));
        return ExitCode::from(ExitStatus::Error as u8);
    };
    let launcher;
    let baked = if let Some(copy) = copy {
        Some((copy.script, copy.bin.to_path_buf()))
    } else {
        launcher = std::fs::read(hook).unwrap_or_default();
        crate::launcher::read(&launcher)
    };
    let bin = match &baked {
        Some((_, bin)) => Some(bin.clone()),
        None => std::env::current_exe()
            .ok()
            .map(|me| me.with_file_name(crate::install::PROGRAM)),
    };
    let stdin = match input.map_or(Ok(Stdin::Inherited), input_file) {
        Ok(file) => file,
        Err(e) => {
            ui::error(&anyhow::anyhow!(
                "cannot hand this push's ref lines to vouch ({e}): the push is refused (`git vouch doctor` checks the hooks)"
            ));
            return ExitCode::from(ExitStatus::Refused as u8);
        }
    };
    let rest = &args[1..];
    // `exec` returns only when the program could not start.
    let start = |command: &mut Command| match stdin.stdio() {
        Ok(input) => command.stdin(input).exec().to_string(),
        Err(e) => format!("its input cannot be passed: {e}"),
    };
    let mut why = String::from("no vouch binary is named");
    if let Some(bin) = &bin {
        let mut command = Command::new(bin);
        command.arg0(hook).args(rest);
        if stale {
            command.env(crate::env::vars::VOUCH_HOOK_STALE, "1");
        }
        let err = start(&mut command);
        why = format!("{}: {err}", bin.display());
    }
    if let Some((script, _)) = &baked {
        let err = start(
            Command::new("/bin/sh")
                .arg("-c")
                .arg(OsStr::from_bytes(script))
                .arg(hook)
                .args(rest),
        );
        why = format!("{why}; /bin/sh: {err}");
    }
    // As the launcher's last resort: strict mode (baked into its script)
    // refuses, otherwise the push goes on unchecked, with a word.
    let strict = baked
        .as_ref()
        .is_none_or(|(script, _)| script.split(|b| *b == b'\n').any(|l| l == b"strict=1"));
    ui::error(&anyhow::anyhow!(
        "neither the vouch binary nor /bin/sh can start ({why}): this push is {}; reinstall vouch (./install.sh) or run `git vouch uninstall`",
        if strict { "refused" } else { "NOT checked" }
    ));
    if strict {
        ExitCode::from(ExitStatus::Refused as u8)
    } else {
        ExitCode::SUCCESS
    }
}

/// The input as a file at its start, for the next program's standard
/// input ([`crate::platform::input_file`]), or where none can be made, a
/// pipe (which holds a page, enough for a few dozen refs).
fn input_file(input: &[u8]) -> std::io::Result<Stdin> {
    match crate::platform::input_file(input) {
        Ok(file) => Ok(Stdin::File(file)),
        Err(e) if input.len() > 4096 => Err(e),
        Err(_) => {
            let (reader, mut writer) = std::io::pipe()?;
            writer.write_all(input)?;
            Ok(Stdin::Pipe(reader))
        }
    }
}

/// Where the handed-over input is read from.
enum Stdin {
    /// This program's own, unread.
    Inherited,
    File(File),
    Pipe(std::io::PipeReader),
}

impl Stdin {
    /// A standard input for one start; a start that fails leaves the input
    /// unread for the next.
    fn stdio(&self) -> std::io::Result<Stdio> {
        match self {
            Self::Inherited => Ok(Stdio::inherit()),
            Self::File(f) => f.try_clone().map(Stdio::from),
            Self::Pipe(p) => p.try_clone().map(Stdio::from),
        }
    }
}
