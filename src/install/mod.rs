//! Hook scripts: their text, and putting them into (and out of) a hooks
//! directory without ever losing what was there (SPEC section 3.1).
//!
//! A foreign hook is renamed `<hook>.local` and chained; installing twice
//! changes nothing; uninstalling puts the foreign hook back byte for byte
//! (a rename, so content, mode and symlinks are kept).
//!
//! Beside it: [`gate`] (the program written as each hook file, which
//! answers most reference-transaction calls itself) and [`managers`] (the
//! hook managers vouch lives beside).

pub mod agent;
pub mod gate;
pub mod managers;
pub mod reach;
pub mod repair;
pub mod trust;

use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use gate::has_marker_line;

/// The program name hooks, recipes and agent settings call vouch by (on
/// `PATH`). Every recipe and hook command is built from this one constant.
pub const PROGRAM: &str = "git-vouch";

/// The path hooks and agent settings call vouch by: the `PATH` entry that
/// is this binary (`/opt/homebrew/bin/git-vouch`, `~/.cargo/bin/git-vouch`), as
/// written, not resolved: a versioned install's link there is what its
/// upgrades keep, while the directory it points into goes away. A binary
/// that is not on `PATH` is called by its own path.
pub fn stable_binary(path_var: Option<&std::ffi::OsStr>) -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot tell where the vouch binary is")?;
    let real = fs::canonicalize(&exe).unwrap_or(exe);
    for dir in path_var.map(std::env::split_paths).into_iter().flatten() {
        let candidate = dir.join(PROGRAM);
        if dir.is_absolute() && fs::canonicalize(&candidate).is_ok_and(|c| c == real) {
            return Ok(candidate);
        }
    }
    Ok(real)
}

/// The marker line every vouch hook carries.
pub use gate::MARKER;

/// The hook script template (`hooks/hook.sh`): `@HOOK@` is the hook's
/// name, `@WHAT@` what it guards.
const TEMPLATE: &str = include_str!("../../hooks/hook.sh");

/// The hooks vouch can install, with what each guards.
pub const HOOKS: &[(&str, &str)] = &[
    ("pre-push", "push"),
    ("pre-commit", "commit"),
    (REF_TX, "ref update"),
];

/// The server door's hook (`git vouch install --server`), with what it guards.
/// Not among [`HOOKS`]: it belongs in a server's bare repositories, not in
/// a clone.
pub const SERVER_HOOK: (&str, &str) = ("pre-receive", "push to this server");

/// The hook git runs for every ref update. In the hooks directory it is
/// always a link to the binary: git calls it many times per command (once
/// per ref on a fetch), so no `sh` may start each time, and git skips a
/// hook file whose link points nowhere, so a missing vouch never breaks a
/// ref update. (A config-defined hook is not skipped that way: `vouch
/// install --config-hooks` registers a guarded command for it instead.)
pub const REF_TX: &str = "reference-transaction";

/// Suffix of a foreign hook kept beside vouch's.
pub const LOCAL_SUFFIX: &str = ".local";

/// What `hook` guards, if vouch has it.
pub fn guards(hook: &str) -> Option<&'static str> {
    HOOKS
        .iter()
        .chain(std::iter::once(&SERVER_HOOK))
        .find(|(n, _)| *n == hook)
        .map(|(_, what)| *what)
}

/// What `hook` guards, or an error that lists the hooks vouch has.
pub fn known(hook: &str) -> Result<&'static str> {
    guards(hook).with_context(|| {
        format!(
            "vouch has no `{hook}` hook; it installs: {}",
            HOOKS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        )
    })
}

/// Quotes `s` for a POSIX shell single-quoted string body, byte for byte
/// (a path need not be UTF-8).
fn sh_single_quote_body(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for b in s {
        if *b == b'\'' {
            out.extend_from_slice(br"'\''");
        } else {
            out.push(*b);
        }
    }
    out
}

/// `path` as one word for a POSIX shell, single-quoted, byte for byte.
pub fn sh_quote(path: &Path) -> Vec<u8> {
    let mut out = b"'".to_vec();
    out.extend(sh_single_quote_body(path.as_os_str().as_bytes()));
    out.push(b'\'');
    out
}

/// The script for `hook` with the binary path (its bytes, exactly) and
/// strictness baked in.
pub fn render(hook: &str, bin: &Path, strict: bool) -> Result<Vec<u8>> {
    let what = known(hook)?;
    let text = TEMPLATE
        .replace("@HOOK@", hook)
        .replace("@WHAT@", what)
        .replace("@VOUCH_STRICT@", if strict { "1" } else { "0" });
    let quoted = sh_single_quote_body(bin.as_os_str().as_bytes());
    let mut out = Vec::with_capacity(text.len() + quoted.len());
    let mut pieces = text.split("@VOUCH_BIN@");
    out.extend_from_slice(pieces.next().unwrap_or_default().as_bytes());
    for piece in pieces {
        out.extend_from_slice(&quoted);
        out.extend_from_slice(piece.as_bytes());
    }
    Ok(out)
}

/// Whether `path` (followed if it is a link) is a vouch hook: a script
/// whose marker line is among the first lines, or a gate carrying one.
pub fn is_ours(path: &Path) -> bool {
    fs::File::open(path).is_ok_and(|f| gate::is_vouch_hook(&f))
}

fn read_up_to(f: &mut fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    use std::io::Read;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Whether `path` is vouch itself in any form a hook file can take: vouch's
/// script (or a copy of it), a link to a vouch binary, or a copy of a vouch
/// binary (`cp` of the linked `reference-transaction` copies the binary).
/// Such a file is never kept as `<hook>.local` and never chained: it would
/// run vouch again, without end.
pub fn is_vouch_file(path: &Path) -> bool {
    if let Ok(target) = fs::read_link(path)
        && links_to_vouch(path, &target)
    {
        return true;
    }
    let Ok(mut f) = fs::File::open(path) else {
        return false;
    };
    let mut head = [0u8; 512];
    let n = read_up_to(&mut f, &mut head).unwrap_or(0);
    if has_marker_line(&head[..n]) || gate::read_file(path).is_some() {
        return true;
    }
    if !is_program(&head[..n]) {
        return false;
    }
    fs::read(path).is_ok_and(|bytes| is_vouch_program(&bytes))
}

/// Whether a file starting with `head` is a compiled program (ELF, or
/// Mach-O in any of its forms).
pub fn is_program(head: &[u8]) -> bool {
    head.starts_with(b"\x7fELF")
        || [
            [0xcf, 0xfa, 0xed, 0xfe],
            [0xfe, 0xed, 0xfa, 0xcf],
            [0xca, 0xfe, 0xba, 0xbe],
        ]
        .iter()
        .any(|magic| head.starts_with(magic))
}

/// Whether `bytes` are a vouch program: every vouch binary carries the hook
/// template, marker and all.
fn is_vouch_program(bytes: &[u8]) -> bool {
    is_program(bytes) && memchr::memmem::find(bytes, MARKER.as_bytes()).is_some()
}

/// Whether a link at `path` pointing at `target` points at a vouch binary
/// by its name alone: `git-vouch` or `vouch` (a link left dangling by an
/// upgrade still names it), or the running binary. A link to anything else
/// (`vouchsafe`) is vouch's only if the file it reaches is one
/// ([`is_vouch_file`] reads it).
fn links_to_vouch(path: &Path, target: &Path) -> bool {
    if target
        .file_name()
        .is_some_and(|n| n == PROGRAM || n == "vouch")
    {
        return true;
    }
    let resolved = fs::canonicalize(path).ok();
    resolved.is_some()
        && std::env::current_exe()
            .ok()
            .and_then(|e| fs::canonicalize(e).ok())
            == resolved
}

/// The state of one hook file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookState {
    /// No file.
    Missing,
    /// vouch's hook, with the binary path it calls.
    Ours {
        /// The path baked in.
        bin: Option<PathBuf>,
        /// A foreign hook is chained.
        chained: bool,
        /// The hook is a link to the binary itself (`--direct`), not a script.
        direct: bool,
    },
    /// Someone else's hook.
    Foreign,
}

/// `<hook>.local` beside `path`.
pub fn local_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(LOCAL_SUFFIX);
    path.with_file_name(name)
}

/// The binary path baked into a vouch script (`vouch_bin='...'`), as bytes.
fn baked_bin(script: &[u8]) -> Option<PathBuf> {
    script.split(|b| *b == b'\n').find_map(|l| {
        let body = l.strip_prefix(b"vouch_bin='")?.strip_suffix(b"'")?;
        let mut out = Vec::with_capacity(body.len());
        let mut i = 0;
        while i < body.len() {
            if body[i..].starts_with(br"'\''") {
                out.push(b'\'');
                i += 4;
            } else {
                out.push(body[i]);
                i += 1;
            }
        }
        Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
    })
}

/// What is at `dir/hook`. A `<hook>.local` that is vouch's own does not
/// count as a chained hook.
pub fn state(dir: &Path, hook: &str) -> HookState {
    let path = dir.join(hook);
    let Ok(meta) = fs::symlink_metadata(&path) else {
        return HookState::Missing;
    };
    let local = local_path(&path);
    let chained = fs::symlink_metadata(&local).is_ok() && !is_vouch_file(&local);
    if meta.file_type().is_symlink() {
        let target = fs::read_link(&path).unwrap_or_default();
        return if links_to_vouch(&path, &target) {
            HookState::Ours {
                bin: Some(target),
                chained,
                direct: true,
            }
        } else if is_ours(&path) {
            HookState::Ours {
                bin: fs::read(&path).ok().and_then(|t| baked_bin(&t)),
                chained,
                direct: false,
            }
        } else {
            HookState::Foreign
        };
    }
    // One read tells every other form: vouch's script (its marker among
    // the first lines), a gate (the script in its tail), a copy of a vouch
    // binary (which calls itself).
    let bytes = fs::read(&path).unwrap_or_default();
    if has_marker_line(&bytes[..bytes.len().min(512)]) {
        return HookState::Ours {
            bin: baked_bin(&bytes),
            chained,
            direct: false,
        };
    }
    if let Some(carried) = gate::read(&bytes) {
        return HookState::Ours {
            bin: Some(carried.bin.to_path_buf()),
            chained,
            direct: false,
        };
    }
    if is_vouch_program(&bytes) {
        return HookState::Ours {
            bin: Some(path),
            chained,
            direct: true,
        };
    }
    HookState::Foreign
}

/// Whether this build writes hooks as programs (the gate `build.rs`
/// compiled); else they are `sh` scripts.
pub fn has_program() -> bool {
    !gate::PROGRAM.is_empty()
}

/// What a hook file is: vouch's script (or the gate that carries it), or
/// a link to the vouch binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// The file's bytes: the gate ([`gate`]: it starts the binary, or runs
    /// the `sh` script when that cannot start) where this build has one,
    /// else the `sh` script from `hooks/`; each with the binary path and
    /// strictness baked in.
    Script(Vec<u8>),
    /// A symbolic link to the binary, which dispatches on its name: no shell
    /// to start, but a missing binary makes git skip the hook silently.
    Link(PathBuf),
}

impl Form {
    /// The form for `hook`: a link when `direct`, else the gate (for
    /// [`REF_TX`] gated: it passes most of what vouch would pass without
    /// starting it), else the rendered script, where this build has no
    /// gate, at the cost of a shell in front of each hook run. `text_only`
    /// asks for the script: hook managers read the hook they find as text
    /// (prek's `install` fails on a binary one).
    pub fn for_hook(
        hook: &str,
        bin: &Path,
        strict: bool,
        direct: bool,
        text_only: bool,
    ) -> Result<Self> {
        known(hook)?;
        if direct {
            return Ok(Self::Link(bin.to_path_buf()));
        }
        let gated = hook == REF_TX;
        // A ref update is never refused because vouch is gone, strict or not
        // (every later git command would fail): the gate's script warns and
        // lets it through.
        let strict = strict && !gated;
        let script = render(hook, bin, strict)?;
        let program = (!text_only)
            .then(|| gate::build(bin, &script, strict, gated))
            .flatten();
        Ok(Self::Script(program.unwrap_or(script)))
    }

    fn is_at(&self, path: &Path) -> bool {
        match self {
            Self::Script(text) => {
                !fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
                    && fs::read(path).is_ok_and(|t| t == *text)
            }
            Self::Link(target) => fs::read_link(path).is_ok_and(|t| t == *target),
        }
    }

    fn place(&self, path: &Path) -> Result<()> {
        match self {
            Self::Script(text) => write_executable(path, text),
            Self::Link(target) => {
                let tmp = tmp_path(path);
                fs::remove_file(&tmp).ok();
                std::os::unix::fs::symlink(target, &tmp)
                    .with_context(|| format!("cannot create the link `{}`", tmp.display()))?;
                fs::rename(&tmp, path).with_context(|| format!("cannot write `{}`", path.display()))
            }
        }
    }
}

/// `.<hook>.vouch-tmp` beside `path`.
fn tmp_path(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(".vouch-tmp");
    path.with_file_name(name)
}

fn write_executable(path: &Path, text: &[u8]) -> Result<()> {
    // A hook is made executable, whatever the file it replaces was.
    fs::remove_file(path).ok();
    crate::platform::files::write_atomic(path, text, 0o755)
        .with_context(|| format!("cannot write `{}`", path.display()))
}

/// Holds the hooks directory locked (an exclusive `flock` on the directory
/// itself, so nothing is left behind): installs and uninstalls run at once
/// (two terminals, a setup script) take turns, and each sees what the one
/// before it left.
fn lock_dir(dir: &Path) -> Result<fs::File> {
    let f = fs::File::open(dir)
        .with_context(|| format!("cannot open the hooks directory `{}`", dir.display()))?;
    f.lock()
        .with_context(|| format!("cannot lock the hooks directory `{}`", dir.display()))?;
    Ok(f)
}

/// Installs `hook` into `dir`. Returns a sentence saying what was done.
pub fn install_hook(dir: &Path, hook: &str, form: &Form) -> Result<String> {
    fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the hooks directory `{}`", dir.display()))?;
    let _lock = lock_dir(dir)?;
    let path = dir.join(hook);
    let local = local_path(&path);
    // vouch's own hook kept as `<hook>.local` (an older race, or a copy made
    // by hand) would run vouch again from vouch: it goes.
    let mut note = String::new();
    if fs::symlink_metadata(&local).is_ok() && is_vouch_file(&local) {
        fs::remove_file(&local).with_context(|| format!("cannot remove `{}`", local.display()))?;
        note = format!(
            " (removed `{}`: it was vouch's own hook, not one to chain)",
            local.display()
        );
    }
    match state(dir, hook) {
        HookState::Ours { .. } => {
            if form.is_at(&path) {
                return Ok(format!(
                    "`{}` is already installed; nothing changed{note}",
                    path.display()
                ));
            }
            form.place(&path)?;
            Ok(format!("updated `{}`{note}", path.display()))
        }
        HookState::Foreign => {
            if fs::symlink_metadata(&local).is_ok() {
                bail!(
                    "`{}` is someone else's hook and `{}` already exists, so vouch has nowhere to keep it. Move one of them away and run `git vouch install` again",
                    path.display(),
                    local.display()
                );
            }
            fs::rename(&path, &local).with_context(|| {
                format!("cannot move `{}` to `{}`", path.display(), local.display())
            })?;
            if let Err(e) = form.place(&path) {
                // Put the foreign hook back: never leave the repository without it.
                fs::rename(&local, &path).ok();
                return Err(e);
            }
            Ok(format!(
                "installed `{}`; the hook that was there is kept as `{}`, which vouch's hook runs first and then judges{note}",
                path.display(),
                local.display()
            ))
        }
        HookState::Missing => {
            form.place(&path)?;
            Ok(format!("installed `{}`{note}", path.display()))
        }
    }
}

/// A shell snippet for a committed file a teammate without vouch runs (a
/// husky hook, a project's agent settings): it prints `line` on standard
/// error once per clone, leaving `<git-common-dir>/git-vouch-suggested`
/// behind (outside a repository, every time).
pub fn say_once_per_clone(line: &str) -> String {
    let mark = format!("\"$d/{PROGRAM}-suggested\"");
    format!(
        "d=$(git rev-parse --git-common-dir 2>/dev/null) || d=; if [ -z \"$d\" ] || [ ! -e {mark} ]; then [ -z \"$d\" ] || : >{mark} 2>/dev/null; printf '%s\\n' {} >&2; fi",
        shell_words::quote(line)
    )
}

/// The file in a hooks directory that lists the hooks `git vouch install`
/// put there, one name a line: what vouch puts back when a hook manager's
/// own reinstall (`pre-commit install -f`, `lefthook install`) takes their
/// place ([`crate::install::repair::put_back`]). git ignores files that are
/// not named for a hook, and the managers leave them alone. The gate reads
/// it too.
pub use gate::RECORD;

/// The hooks the record in `dir` lists; none without one.
pub fn recorded(dir: &Path) -> Vec<String> {
    gate::recorded(dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|hook| known(hook).is_ok())
        .collect()
}

/// Adds `hooks` to the record in `dir`.
pub fn record(dir: &Path, hooks: &[String]) -> Result<()> {
    // Read, added to and replaced under the lock: installs run at once.
    let _lock = lock_dir(dir)?;
    let mut all = recorded(dir);
    for h in hooks {
        if !all.contains(h) {
            all.push(h.clone());
        }
    }
    let path = dir.join(RECORD);
    let text = all.join("\n") + "\n";
    crate::platform::files::write_atomic(&path, text.as_bytes(), 0o644)
        .with_context(|| format!("cannot write `{}`", path.display()))
}

/// Removes the record from `dir`.
pub fn forget(dir: &Path) {
    fs::remove_file(dir.join(RECORD)).ok();
}

/// Removes vouch's `hook` from `dir` and puts back a chained foreign hook.
pub fn uninstall_hook(dir: &Path, hook: &str) -> Result<String> {
    if !dir.is_dir() {
        return Ok(format!("no `{hook}` hook in `{}`", dir.display()));
    }
    let _lock = lock_dir(dir)?;
    let path = dir.join(hook);
    let local = local_path(&path);
    match state(dir, hook) {
        HookState::Ours { chained, .. } => {
            fs::remove_file(&path)
                .with_context(|| format!("cannot remove `{}`", path.display()))?;
            if chained {
                fs::rename(&local, &path).with_context(|| {
                    format!(
                        "cannot move `{}` back to `{}`",
                        local.display(),
                        path.display()
                    )
                })?;
                Ok(format!(
                    "removed vouch's `{hook}` and restored the hook that was there"
                ))
            } else {
                if fs::symlink_metadata(&local).is_ok() {
                    // vouch's own hook under the chained name: not one to restore.
                    fs::remove_file(&local).ok();
                }
                Ok(format!("removed `{}`", path.display()))
            }
        }
        HookState::Foreign => Ok(format!(
            "`{}` is not vouch's; left as it is",
            path.display()
        )),
        HookState::Missing => Ok(format!("no `{hook}` hook in `{}`", dir.display())),
    }
}

/// The hook a file of the hooks directory stands for: its own name, or
/// the name a hook manager gave vouch's hook when it moved it aside
/// (`pre-commit.legacy` of pre-commit's migration mode, lefthook's
/// `pre-push.old`), which the manager still runs under the hook's name.
pub(crate) fn hook_of_file(file: &str) -> Option<&'static str> {
    let name = [".legacy", ".old"]
        .iter()
        .find_map(|s| file.strip_suffix(s))
        .unwrap_or(file);
    HOOKS
        .iter()
        .chain(std::iter::once(&SERVER_HOOK))
        .map(|(h, _)| *h)
        .find(|h| *h == name)
}

/// Rewrites the argv of a binary started as a hook (`.git/hooks/pre-push`
/// linked to vouch) into `git vouch hook pre-push --hook-dir <dir> -- <args>`.
/// Any other argv is returned as it is.
/// A hook's command line as git-vouch receives it, in either shape: run
/// by the hook's own path (the gate, a link: `.git/hooks/NAME ARGS`) or
/// by the script (`git-vouch hook NAME --hook-dir DIR -- ARGS`): the hook's
/// name, its directory, and git's arguments. `None` for anything else.
pub fn hook_call(args: &[OsString]) -> Option<(&str, &Path, &[OsString])> {
    if let [_, hook, name, flag, dir, dashes, rest @ ..] = args
        && hook == "hook"
        && flag == "--hook-dir"
        && dashes == "--"
    {
        return Some((name.to_str()?, Path::new(dir), rest));
    }
    let path = Path::new(args.first()?);
    let name = path.file_name()?.to_str()?;
    hook_of_file(name)?;
    Some((name, path.parent().unwrap_or(Path::new(".")), &args[1..]))
}

pub fn hook_argv(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let Some(first) = args.first() else {
        return args;
    };
    let path = Path::new(first);
    let Some(name) = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(hook_of_file)
    else {
        return args;
    };
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut out: Vec<std::ffi::OsString> = vec!["vouch".into(), "hook".into(), name.into()];
    if !dir.as_os_str().is_empty() {
        out.push("--hook-dir".into());
        out.push(dir.into_os_string());
    }
    out.push("--".into());
    out.extend(args.into_iter().skip(1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_hooks_command_line_is_read_in_either_shape() {
        let os = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
        let by_path = os(&[".git/hooks/pre-push", "origin", "url"]);
        let (name, dir, rest) = hook_call(&by_path).unwrap();
        assert_eq!((name, dir), ("pre-push", Path::new(".git/hooks")));
        assert_eq!(rest, &by_path[1..]);
        let by_script = os(&[
            "/bin/git-vouch",
            "hook",
            "reference-transaction",
            "--hook-dir",
            "/r/.git/hooks",
            "--",
            "prepared",
        ]);
        let (name, dir, rest) = hook_call(&by_script).unwrap();
        assert_eq!(
            (name, dir),
            ("reference-transaction", Path::new("/r/.git/hooks"))
        );
        assert_eq!(rest, &by_script[6..]);
        // Not a hook: vouch's other command lines, an unknown hook name.
        for args in [
            os(&["git-vouch", "status"]),
            os(&["git-vouch", "hook", "pre-push", "--", "origin", "url"]),
            os(&[".git/hooks/post-merge", "0"]),
            os(&[]),
        ] {
            assert_eq!(hook_call(&args), None, "{args:?}");
        }
    }

    #[test]
    fn a_link_is_vouchs_by_its_exact_name_or_by_what_it_reaches() {
        let dir = tempfile::tempdir().unwrap();
        let link = |name: &str, target: &Path| {
            let path = dir.path().join(name);
            std::os::unix::fs::symlink(target, &path).unwrap();
            path
        };
        // Dangling, as an upgrade leaves them: the name decides.
        assert!(is_vouch_file(&link("a", Path::new("/gone/git-vouch"))));
        assert!(is_vouch_file(&link("b", Path::new("/gone/vouch"))));
        assert!(!is_vouch_file(&link("c", Path::new("/gone/vouchsafe"))));
        assert!(!is_vouch_file(&link("d", Path::new("/gone/git-vouch-old"))));
        // Another name reaching vouch's script is vouch's; reaching anything else is not.
        let script = dir.path().join("hook-script");
        fs::write(&script, render("pre-push", Path::new("/v"), false).unwrap()).unwrap();
        assert!(is_vouch_file(&link("e", &script)));
        let other = dir.path().join("vouchsafe");
        fs::write(&other, "#!/bin/sh\nexit 0\n").unwrap();
        assert!(!is_vouch_file(&link("f", &other)));
    }

    #[test]
    fn rendered_script_bakes_in_the_binary_and_strictness() {
        let s =
            String::from_utf8(render("pre-push", Path::new("/opt/it's here/vouch"), true).unwrap())
                .unwrap();
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains(MARKER));
        assert!(s.contains(r"vouch_bin='/opt/it'\''s here/vouch'"));
        assert!(s.contains("strict=1"));
        assert!(
            !s.contains("@VOUCH_") && !s.contains("@HOOK@") && !s.contains("@WHAT@"),
            "every placeholder is filled"
        );
        assert!(s.contains("exec \"$vouch_bin\" hook pre-push"));
        let c = String::from_utf8(render("pre-commit", Path::new("/v"), false).unwrap()).unwrap();
        assert!(
            c.contains("hook pre-commit")
                && c.contains("pre-commit.local")
                && c.contains("this commit is NOT checked")
        );
        assert!(render("post-merge", Path::new("/v"), false).is_err());
    }

    #[test]
    fn install_chain_and_uninstall_restore_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let foreign = b"#!/bin/sh\necho foreign\r\n\x00binary-ish\n";
        let hook = dir.path().join("pre-push");
        fs::write(&hook, foreign).unwrap();
        fs::set_permissions(&hook, fs::Permissions::from_mode(0o750)).unwrap();
        let bin = Path::new("/usr/local/bin/vouch");
        let form = Form::for_hook("pre-push", bin, false, false, false).unwrap();
        install_hook(dir.path(), "pre-push", &form).unwrap();
        assert!(is_ours(&hook));
        assert_eq!(
            fs::read(dir.path().join("pre-push.local")).unwrap(),
            foreign
        );
        let again = install_hook(dir.path(), "pre-push", &form).unwrap();
        assert!(again.contains("nothing changed"), "{again}");
        assert_eq!(
            state(dir.path(), "pre-push"),
            HookState::Ours {
                bin: Some(PathBuf::from("/usr/local/bin/vouch")),
                chained: true,
                direct: false,
            }
        );
        uninstall_hook(dir.path(), "pre-push").unwrap();
        assert_eq!(fs::read(&hook).unwrap(), foreign);
        assert_eq!(
            fs::metadata(&hook).unwrap().permissions().mode() & 0o777,
            0o750
        );
        assert!(!dir.path().join("pre-push.local").exists());
    }

    #[test]
    fn a_binary_started_as_a_hook_dispatches_on_its_name() {
        let argv = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(
            hook_argv(argv(&[".git/hooks/pre-push", "origin", "/r.git"])),
            argv(&[
                "vouch",
                "hook",
                "pre-push",
                "--hook-dir",
                ".git/hooks",
                "--",
                "origin",
                "/r.git"
            ])
        );
        assert_eq!(
            hook_argv(argv(&["/usr/bin/vouch", "status"])),
            argv(&["/usr/bin/vouch", "status"])
        );
    }

    #[test]
    fn direct_install_links_the_binary_and_uninstall_removes_it() {
        let dir = tempfile::tempdir().unwrap();
        let bin = Path::new("/opt/bin/vouch");
        let link = Form::for_hook("pre-push", bin, false, true, false).unwrap();
        install_hook(dir.path(), "pre-push", &link).unwrap();
        assert_eq!(fs::read_link(dir.path().join("pre-push")).unwrap(), bin);
        assert!(matches!(
            state(dir.path(), "pre-push"),
            HookState::Ours { direct: true, .. }
        ));
        let again = install_hook(dir.path(), "pre-push", &link).unwrap();
        assert!(again.contains("nothing changed"), "{again}");
        // Switching back to the script replaces the link.
        let script = Form::for_hook("pre-push", bin, false, false, false).unwrap();
        install_hook(dir.path(), "pre-push", &script).unwrap();
        assert!(matches!(
            state(dir.path(), "pre-push"),
            HookState::Ours { direct: false, .. }
        ));
        uninstall_hook(dir.path(), "pre-push").unwrap();
        assert_eq!(state(dir.path(), "pre-push"), HookState::Missing);
    }

    #[test]
    fn refuses_when_both_foreign_hook_and_local_exist() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("pre-push"), "#!/bin/sh\n").unwrap();
        fs::write(dir.path().join("pre-push.local"), "#!/bin/sh\n").unwrap();
        let form = Form::for_hook("pre-push", Path::new("/v"), false, false, false).unwrap();
        let err = install_hook(dir.path(), "pre-push", &form).unwrap_err();
        assert!(err.to_string().contains("nowhere to keep it"), "{err}");
    }
}
