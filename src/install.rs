//! Hook scripts: their text, and putting them into (and out of) a hooks
//! directory without ever losing what was there (SPEC section 3.1).
//!
//! A foreign hook is renamed `<hook>.local` and chained; installing twice
//! changes nothing; uninstalling puts the foreign hook back byte for byte
//! (a rename, so content, mode and symlinks are kept).

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The marker line every vouch hook carries.
pub const MARKER: &str = "# vouch-managed-hook";

/// The hook script template (`hooks/hook.sh`): `@HOOK@` is the hook's
/// name, `@WHAT@` what it guards.
const TEMPLATE: &str = include_str!("../hooks/hook.sh");

/// The hooks vouch can install, with what each guards.
pub const HOOKS: &[(&str, &str)] = &[
    ("pre-push", "push"),
    ("pre-commit", "commit"),
    (REF_TX, "ref update"),
];

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

/// Quotes `s` for a POSIX shell single-quoted string body.
fn sh_single_quote_body(s: &str) -> String {
    s.replace('\'', r"'\''")
}

/// The script for `hook` with the binary path and strictness baked in.
pub fn render(hook: &str, bin: &Path, strict: bool) -> Result<String> {
    let what = known(hook)?;
    Ok(TEMPLATE
        .replace("@HOOK@", hook)
        .replace("@WHAT@", what)
        .replace(
            "@VOUCH_BIN@",
            &sh_single_quote_body(&bin.display().to_string()),
        )
        .replace("@VOUCH_STRICT@", if strict { "1" } else { "0" }))
}

/// Whether `path` is a vouch hook.
pub fn is_ours(path: &Path) -> bool {
    fs::read(path).is_ok_and(|bytes| {
        bytes
            .split(|b| *b == b'\n')
            .take(5)
            .any(|l| l.starts_with(MARKER.as_bytes()))
    })
}

/// The state of one hook file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookState {
    /// No file.
    Missing,
    /// vouch's hook, with the binary path it calls.
    Ours {
        /// The path baked in.
        bin: Option<String>,
        /// A foreign hook is chained.
        chained: bool,
        /// The hook is a link to the binary itself (`--direct`), not a script.
        direct: bool,
    },
    /// Someone else's hook.
    Foreign,
}

fn local_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(LOCAL_SUFFIX);
    path.with_file_name(name)
}

/// What is at `dir/hook`.
pub fn state(dir: &Path, hook: &str) -> HookState {
    let path = dir.join(hook);
    let Ok(meta) = fs::symlink_metadata(&path) else {
        return HookState::Missing;
    };
    let chained = fs::symlink_metadata(local_path(&path)).is_ok();
    if meta.file_type().is_symlink() {
        let target = fs::read_link(&path).unwrap_or_default();
        let is_vouch = target
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("vouch"));
        return if is_vouch {
            HookState::Ours {
                bin: Some(target.display().to_string()),
                chained,
                direct: true,
            }
        } else {
            HookState::Foreign
        };
    }
    if !is_ours(&path) {
        return HookState::Foreign;
    }
    let bin = fs::read_to_string(&path).ok().and_then(|t| {
        t.lines().find_map(|l| {
            l.strip_prefix("vouch_bin='")?
                .strip_suffix('\'')
                .map(|b| b.replace(r"'\''", "'"))
        })
    });
    HookState::Ours {
        bin,
        chained,
        direct: false,
    }
}

/// What a hook file is: vouch's script, or a link to the vouch binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// The `sh` script from `hooks/`, with the binary path baked in.
    Script(String),
    /// A symbolic link to the binary, which dispatches on its name: no shell
    /// to start, but a missing binary makes git skip the hook silently.
    Link(PathBuf),
}

impl Form {
    /// The form for `hook`: a link when `direct` (and always for
    /// [`REF_TX`]), else the rendered script.
    pub fn for_hook(hook: &str, bin: &Path, strict: bool, direct: bool) -> Result<Self> {
        known(hook)?;
        Ok(if direct || hook == REF_TX {
            Self::Link(bin.to_path_buf())
        } else {
            Self::Script(render(hook, bin, strict)?)
        })
    }

    fn is_at(&self, path: &Path) -> bool {
        match self {
            Self::Script(text) => {
                !fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
                    && fs::read_to_string(path).is_ok_and(|t| t == *text)
            }
            Self::Link(target) => fs::read_link(path).is_ok_and(|t| t == *target),
        }
    }

    fn place(&self, path: &Path) -> Result<()> {
        match self {
            Self::Script(text) => write_executable(path, text),
            Self::Link(target) => {
                let tmp = path.with_file_name(format!(
                    ".{}.vouch-tmp",
                    path.file_name().unwrap_or_default().to_string_lossy()
                ));
                fs::remove_file(&tmp).ok();
                std::os::unix::fs::symlink(target, &tmp)
                    .with_context(|| format!("cannot create the link `{}`", tmp.display()))?;
                fs::rename(&tmp, path).with_context(|| format!("cannot write `{}`", path.display()))
            }
        }
    }
}

fn write_executable(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().context("a hook path has no directory")?;
    let tmp = dir.join(format!(
        ".{}.vouch-tmp",
        path.file_name().unwrap_or_default().to_string_lossy()
    ));
    {
        let mut f =
            fs::File::create(&tmp).with_context(|| format!("cannot write `{}`", tmp.display()))?;
        f.write_all(text.as_bytes())
            .with_context(|| format!("cannot write `{}`", tmp.display()))?;
        f.set_permissions(fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make `{}` executable", tmp.display()))?;
    }
    fs::rename(&tmp, path).with_context(|| format!("cannot write `{}`", path.display()))
}

/// Installs `hook` into `dir`. Returns a sentence saying what was done.
pub fn install_hook(dir: &Path, hook: &str, form: &Form) -> Result<String> {
    fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the hooks directory `{}`", dir.display()))?;
    let path = dir.join(hook);
    let local = local_path(&path);
    match state(dir, hook) {
        HookState::Ours { .. } => {
            if form.is_at(&path) {
                return Ok(format!(
                    "`{}` is already installed; nothing changed",
                    path.display()
                ));
            }
            form.place(&path)?;
            Ok(format!("updated `{}`", path.display()))
        }
        HookState::Foreign => {
            if fs::symlink_metadata(&local).is_ok() {
                bail!(
                    "`{}` is someone else's hook and `{}` already exists, so vouch has nowhere to keep it. Move one of them away and run `vouch install` again",
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
                "installed `{}`; the hook that was there is kept as `{}` and runs first",
                path.display(),
                local.display()
            ))
        }
        HookState::Missing => {
            form.place(&path)?;
            Ok(format!("installed `{}`", path.display()))
        }
    }
}

/// Removes vouch's `hook` from `dir` and puts back a chained foreign hook.
pub fn uninstall_hook(dir: &Path, hook: &str) -> Result<String> {
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

/// Rewrites the argv of a binary started as a hook (`.git/hooks/pre-push`
/// linked to vouch) into `vouch hook pre-push --hook-dir <dir> -- <args>`.
/// Any other argv is returned as it is.
pub fn hook_argv(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let Some(first) = args.first() else {
        return args;
    };
    let path = Path::new(first);
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return args;
    };
    if guards(name).is_none() {
        return args;
    }
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

    #[test]
    fn rendered_script_bakes_in_the_binary_and_strictness() {
        let s = render("pre-push", Path::new("/opt/it's here/vouch"), true).unwrap();
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains(MARKER));
        assert!(s.contains(r"vouch_bin='/opt/it'\''s here/vouch'"));
        assert!(s.contains("strict=1"));
        assert!(
            !s.contains("@VOUCH_") && !s.contains("@HOOK@") && !s.contains("@WHAT@"),
            "every placeholder is filled"
        );
        assert!(s.contains("exec \"$vouch_bin\" hook pre-push"));
        let c = render("pre-commit", Path::new("/v"), false).unwrap();
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
        let form = Form::for_hook("pre-push", bin, false, false).unwrap();
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
                bin: Some("/usr/local/bin/vouch".into()),
                chained: true,
                direct: false
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
        let link = Form::for_hook("pre-push", bin, false, true).unwrap();
        install_hook(dir.path(), "pre-push", &link).unwrap();
        assert_eq!(fs::read_link(dir.path().join("pre-push")).unwrap(), bin);
        assert!(matches!(
            state(dir.path(), "pre-push"),
            HookState::Ours { direct: true, .. }
        ));
        let again = install_hook(dir.path(), "pre-push", &link).unwrap();
        assert!(again.contains("nothing changed"), "{again}");
        // Switching back to the script replaces the link.
        let script = Form::for_hook("pre-push", bin, false, false).unwrap();
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
        let form = Form::for_hook("pre-push", Path::new("/v"), false, false).unwrap();
        let err = install_hook(dir.path(), "pre-push", &form).unwrap_err();
        assert!(err.to_string().contains("nowhere to keep it"), "{err}");
    }
}
