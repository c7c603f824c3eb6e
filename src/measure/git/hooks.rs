//! Where git looks for hooks, and the config-based hooks of newer gits.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{git_output, git_output_bytes};

/// Where git looks for hooks, and how it got there.
#[derive(Debug, Clone)]
pub struct HooksLocation {
    /// The effective hooks directory, absolute.
    pub dir: PathBuf,
    /// `core.hooksPath`, when set, as written.
    pub hooks_path: Option<String>,
    /// The work tree root (`None` for a bare repository).
    pub worktree: Option<PathBuf>,
    /// The common git dir.
    pub common_dir: PathBuf,
}

impl HooksLocation {
    /// The work tree root, or the git dir of a bare repository.
    pub fn root(&self) -> PathBuf {
        self.worktree
            .clone()
            .unwrap_or_else(|| self.common_dir.clone())
    }
}

/// Resolves the hooks directory exactly as git does, by asking git: it
/// honours `core.hooksPath` in every scope, linked worktrees and bare
/// repositories.
pub fn hooks_location(repo_path: &Path) -> Result<HooksLocation> {
    // Paths as bytes: a repository under a name that is not UTF-8 gets its
    // hooks exactly there, never in a lossy twin.
    let path_of = |line: &[u8]| PathBuf::from(OsStr::from_bytes(line));
    let text = git_output_bytes(
        repo_path,
        &[
            "rev-parse",
            "--path-format=absolute",
            "--git-path",
            "hooks",
            "--git-common-dir",
            "--is-bare-repository",
        ]
        .map(OsStr::new),
    )
    .with_context(|| format!("`{}` is not a git repository", repo_path.display()))?;
    let mut lines = text.split(|b| *b == b'\n');
    let dir = path_of(lines.next().context("git rev-parse printed nothing")?);
    let common_dir = path_of(
        lines
            .next()
            .filter(|l| !l.is_empty())
            .context("git rev-parse printed no common dir")?,
    );
    let bare = lines.next() == Some(b"true".as_slice());
    let worktree = if bare {
        None
    } else {
        let top = git_output_bytes(
            repo_path,
            &[OsStr::new("rev-parse"), OsStr::new("--show-toplevel")],
        )?;
        Some(path_of(top.strip_suffix(b"\n").unwrap_or(&top)))
    };
    let hooks_path = git_output(repo_path, &["config", "--get", "core.hooksPath"])
        .ok()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    Ok(HooksLocation {
        dir,
        hooks_path,
        worktree,
        common_dir,
    })
}

/// The first git version with config-defined hooks (`hook.<name>.command`).
pub const CONFIG_HOOKS_SINCE: (u32, u32) = (2, 54);

/// git's version as `(major, minor)`, from `git version`.
pub fn git_version() -> Option<(u32, u32)> {
    let text = git_output(Path::new("."), &["version"]).ok()?;
    parse_git_version(&text)
}

/// Whether the git in use (the `git` on `PATH`, which hooks and managers
/// run) runs config-defined hooks.
pub fn runs_config_hooks() -> bool {
    git_version().is_some_and(|v| v >= CONFIG_HOOKS_SINCE)
}

/// Whether the git at `exe` runs config-defined hooks (`<exe> version`);
/// `None` when it cannot be asked.
pub fn exe_runs_config_hooks(exe: &Path) -> Option<bool> {
    let out = std::process::Command::new(exe)
        .arg("version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let version = parse_git_version(&String::from_utf8_lossy(&out.stdout))?;
    Some(version >= CONFIG_HOOKS_SINCE)
}

/// Whether git runs the config-defined hook `name` for `event` in the
/// repository at `repo`: its command is set, and neither
/// `hook.<name>.enabled` nor `hook.<event>.enabled` is false (in any scope).
pub fn config_hook_enabled(repo: &Path, name: &str, event: &str) -> bool {
    let off = |key: String| {
        git_output(repo, &["config", "--type=bool", "--get", &key])
            .is_ok_and(|v| v.trim() == "false")
    };
    config_hook(repo, name).is_some()
        && !off(format!("hook.{name}.enabled"))
        && !off(format!("hook.{event}.enabled"))
}

/// The folder of the common git directory where `git vouch install
/// --config-hooks` keeps the hook files it registers.
pub const CONFIG_HOOKS_DIR: &str = "vouch-hooks";

/// Where `git vouch install --config-hooks` keeps the hook files it registers.
pub fn config_hooks_dir(loc: &HooksLocation) -> PathBuf {
    loc.common_dir.join(CONFIG_HOOKS_DIR)
}

/// Reads `git version 2.47.3` (or `2.54.0.windows.1`).
pub fn parse_git_version(text: &str) -> Option<(u32, u32)> {
    let version = text.trim().strip_prefix("git version ")?;
    let mut parts = version.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// The friendly name vouch registers a config-defined hook under
/// (`hook.<name>.command`); it must not equal an event name.
pub fn config_hook_name(hook: &str) -> String {
    format!("vouch-{hook}")
}

/// Registers `command` (a shell command line; git appends the hook's
/// arguments) as the config-defined hook `name` for `event`, in the
/// repository's own config (shared by its worktrees).
pub fn set_config_hook(repo: &Path, name: &str, command: &OsStr, event: &str) -> Result<()> {
    let key = format!("hook.{name}.command");
    git_output_bytes(
        repo,
        &[
            OsStr::new("config"),
            OsStr::new("--local"),
            OsStr::new(&key),
            command,
        ],
    )?;
    git_output(
        repo,
        &[
            "config",
            "--local",
            "--replace-all",
            &format!("hook.{name}.event"),
            event,
        ],
    )?;
    Ok(())
}

/// The command of config-defined hook `name` in the repository's config.
pub fn config_hook(repo: &Path, name: &str) -> Option<String> {
    git_output(
        repo,
        &[
            "config",
            "--local",
            "--get",
            &format!("hook.{name}.command"),
        ],
    )
    .ok()
    .map(|s| s.trim().to_owned())
}

/// Removes config-defined hook `name`; true if it was there.
pub fn remove_config_hook(repo: &Path, name: &str) -> Result<bool> {
    if config_hook(repo, name).is_none() {
        return Ok(false);
    }
    git_output(
        repo,
        &[
            "config",
            "--local",
            "--remove-section",
            &format!("hook.{name}"),
        ],
    )?;
    Ok(true)
}

#[cfg(test)]
mod version_tests {
    use super::*;

    #[test]
    fn git_versions_are_read() {
        assert_eq!(parse_git_version("git version 2.47.3\n"), Some((2, 47)));
        assert_eq!(
            parse_git_version("git version 2.54.0.windows.1"),
            Some((2, 54))
        );
        assert_eq!(parse_git_version("nonsense"), None);
        assert!(parse_git_version("git version 2.55.0").unwrap() >= CONFIG_HOOKS_SINCE);
    }
}
