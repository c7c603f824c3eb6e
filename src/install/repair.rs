//! What keeps vouch's hooks where git runs them, between installs: whether
//! another run of vouch judges a hook's operation (git's config-defined
//! hook, lefthook's local config), and putting vouch back in front of a
//! hook a manager's reinstall took ([`displaced`], [`put_back`],
//! [`mend_moved`]). The doors run these on their routine calls;
//! `git vouch install` mends with the same code.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::install::managers::{self, Manager};
use crate::install::{self, HookState};
use crate::interact::ui;
use crate::measure::git;

/// Whether this run of `hook` (from a hook file, or a husky hook's block)
/// is one git also runs vouch for from its config: the repository
/// registers vouch's config-defined hook for it, and the git running this
/// hook runs config-defined hooks. Then that run judges, and this one does
/// not, so no operation is judged (asked, logged) twice. False for the
/// config-defined run itself, and whenever it cannot be told (judged twice
/// rather than not at all).
fn judged_by_config_hook(cwd: &Path, hook: &str, hook_dir: Option<&Path>) -> bool {
    // The hooks directory is usually `<git dir>/hooks`: no git to ask.
    let common = match hook_dir.and_then(Path::parent) {
        Some(parent) if parent.join("objects").is_dir() => parent.to_path_buf(),
        _ => match git::hooks_location(cwd) {
            Ok(loc) => loc.common_dir,
            Err(_) => return false,
        },
    };
    let config_dir = common.join(git::CONFIG_HOOKS_DIR);
    if hook_dir.is_some_and(|d| d == config_dir)
        || !matches!(install::state(&config_dir, hook), HookState::Ours { .. })
        || !git::config_hook_enabled(cwd, &git::config_hook_name(hook), hook)
    {
        return false;
    }
    // The command registered must run vouch's hook there (a command set to
    // anything else judges nothing).
    let ours = install::sh_quote(&config_dir.join(hook));
    if !git::config_hook(cwd, &git::config_hook_name(hook)).is_some_and(|command| {
        command
            .as_bytes()
            .windows(ours.len())
            .any(|w| w == ours.as_slice())
    }) {
        return false;
    }
    crate::measure::parent::git_ancestor_exe()
        .and_then(|exe| git::exe_runs_config_hooks(&exe))
        .unwrap_or(false)
}

/// Whether another run of vouch judges this operation of `hook`, so this
/// one does not: git runs vouch from its config too
/// (`judged_by_config_hook`), or lefthook runs this one from
/// `lefthook-local.yml` under vouch's own hook in front of lefthook's, which
/// proves it (`VOUCH_FRONT`, a marker as `VOUCH_NESTED` is).
/// `front` is `VOUCH_FRONT`'s value, `state` vouch's state directory.
pub fn judged_elsewhere(
    cwd: &Path,
    hook: &str,
    hook_dir: Option<&Path>,
    front: Option<&str>,
    state: impl FnOnce() -> Option<PathBuf>,
) -> bool {
    if hook_dir.is_some_and(|d| managers::is_lefthook_script_dir(d, hook))
        && front.is_some_and(|marker| {
            state().is_some_and(|state| crate::measure::parent::is_nested(marker, &state))
        })
    {
        return true;
    }
    judged_by_config_hook(cwd, hook, hook_dir)
}

/// The hooks vouch installed in `dir` (its record) whose place a hook
/// manager's own reinstall has since taken without running vouch:
/// `pre-commit install -f` (vouch's hook deleted), `lefthook install`
/// (moved to `<hook>.old`, never run). Cheap enough for every ref update:
/// a read of the record, and of the first bytes of each hook it lists.
pub fn displaced(dir: &Path) -> Vec<(String, Manager)> {
    install::recorded(dir)
        .into_iter()
        .filter(|hook| hook != install::REF_TX)
        .filter_map(|hook| {
            let owner = managers::script_of(&dir.join(&hook))?;
            // pre-commit's and prek's migration mode runs vouch first.
            let reached = owner.legacy_var().is_some()
                && owner
                    .moved_suffix()
                    .is_some_and(|s| install::is_vouch_file(&dir.join(format!("{hook}{s}"))));
            (!reached).then_some((hook, owner))
        })
        .collect()
}

/// Puts vouch back in front of each hook a manager's reinstall displaced
/// ([`displaced`]), as `git vouch install` would: the manager's script is
/// kept as `<hook>.local`, which vouch's hook runs first. Run by the
/// reference-transaction hook, which no manager writes, on the next branch
/// or tag update; never fails the ref update (a hook it cannot put back is
/// a warning naming the command that does).
/// `path` is the `PATH` the binary is found on, `strict` the config's.
pub fn put_back(dir: &Path, path: Option<&OsStr>, strict: impl FnOnce() -> bool) {
    let displaced = displaced(dir);
    if displaced.is_empty() {
        return;
    }
    let p = install::PROGRAM;
    let bin = match install::stable_binary(path) {
        Ok(bin) => bin,
        Err(e) => {
            ui::warn(&format!("{e:#}: run `{p} install`"));
            return;
        }
    };
    let strict = strict();
    for (hook, owner) in displaced {
        let done = install::Form::for_hook(&hook, &bin, strict, false, true).and_then(|form| {
            mend_moved(dir, &hook)?;
            install::install_hook(dir, &hook, &form)
        });
        match done {
            Ok(_) => ui::info(&format!(
                "`{r}` had replaced vouch's `{hook}` hook: vouch put itself back in front; git runs vouch's hook, which runs {owner}'s script (now `{hook}.local`) first and then judges",
                owner = owner.name(),
                r = owner.reinstall(),
            )),
            Err(e) => ui::warn(&format!(
                "{}'s own install took the place of vouch's `{hook}` hook, and vouch could not put it back ({e:#}): vouch does NOT check this {}; run `{p} install`",
                owner.name(),
                install::known(&hook).unwrap_or("operation"),
            )),
        }
    }
}

/// What [`mend_moved`] did.
pub enum Mended {
    /// Nothing to mend.
    Nothing,
    /// vouch is reached already, through the manager: leave the hook alone.
    Reached(String),
    /// Something was mended; go on installing.
    Said(String),
}

/// Puts right what a hook manager's reinstall left of vouch's `hook`: a
/// vouch hook moved to `<hook>.old` (lefthook, never run) is taken back,
/// and a stale copy of the manager's script kept as `<hook>.local` while
/// the manager wrote a new one is dropped. vouch's hook moved to
/// `<hook>.legacy` by pre-commit or prek is still run first by them: left.
pub fn mend_moved(dir: &Path, hook: &str) -> Result<Mended> {
    let path = dir.join(hook);
    let owner = managers::script_of(&path);
    let Some(owner) = owner else {
        return Ok(Mended::Nothing);
    };
    let mut said = Vec::new();
    if let Some(suffix) = owner.moved_suffix() {
        let moved = dir.join(format!("{hook}{suffix}"));
        if install::is_vouch_file(&moved) {
            if owner.legacy_var().is_some() {
                return Ok(Mended::Reached(format!(
                    "`{}` is {}'s and runs vouch's hook first (`{}`): vouch is reached; nothing changed",
                    path.display(),
                    owner.name(),
                    moved.display()
                )));
            }
            std::fs::remove_file(&moved)
                .with_context(|| format!("cannot remove `{}`", moved.display()))?;
            said.push(format!(
                "took back vouch's hook from `{}`, where {} had moved it and never ran it",
                moved.display(),
                owner.name()
            ));
        }
    }
    let local = install::local_path(&path);
    if managers::script_of(&local) == Some(owner) {
        std::fs::remove_file(&local)
            .with_context(|| format!("cannot remove `{}`", local.display()))?;
        said.push(format!(
            "removed `{}`, an older copy of {}'s script (`{}` is its new one)",
            local.display(),
            owner.name(),
            path.display()
        ));
    }
    Ok(if said.is_empty() {
        Mended::Nothing
    } else {
        Mended::Said(said.join("; "))
    })
}
