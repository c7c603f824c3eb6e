//! `vouch install`, `vouch uninstall`, `vouch trust` (`vouch status` is `status.rs`).

use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::cli::{InstallArgs, RepoArgs, TrustArgs};
use crate::commands::person;
use crate::context::{Ctx, REPO_CONFIG};
use crate::git::{self, HooksLocation};
use crate::install::{self, HOOKS};
use crate::{ExitStatus, trust, ui};

/// The hooks dir is another tool's (husky), or outside the repository.
fn check_hooks_path(loc: &HooksLocation, force: bool) -> Result<()> {
    let Some(configured) = &loc.hooks_path else {
        return Ok(());
    };
    let dir = loc.dir.display().to_string();
    if dir.contains("/.husky") {
        bail!(
            "`core.hooksPath` is `{configured}`: husky owns the hooks of this repository and regenerates `.husky/_`, so vouch will not write there.\n\
             Call vouch from husky instead: add this line to `.husky/pre-push` (husky passes git's arguments and input through):\n\
             \n    vouch hook pre-push -- \"$@\"\n\n\
             (If `.husky/pre-push` runs other commands that read stdin, put vouch first.)\n\
             On git 2.54 or later, `vouch install --config-hooks` registers vouch's hooks in the repository's git config instead, beside husky's."
        );
    }
    if loc.dir.starts_with(&loc.common_dir) || force {
        return Ok(());
    }
    let recipe = format!(
        "call vouch from the `pre-push` hook there instead:\n\n    vouch hook pre-push -- \"$@\"\n\nor run `vouch install --force` to install into `{dir}` anyway"
    );
    if loc
        .worktree
        .as_ref()
        .is_some_and(|w| loc.dir.starts_with(w))
    {
        bail!(
            "`core.hooksPath` is `{configured}`, a folder of the work tree (usually committed and shared): vouch would rename the hooks there and write this machine's binary path into it; {recipe}"
        );
    }
    bail!(
        "`core.hooksPath` is `{configured}`, outside this repository: hooks written there run for every repository that shares it; {recipe}"
    )
}

/// The path of the running binary, to bake into hooks.
fn current_binary() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot tell where the vouch binary is")?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

/// Where `vouch install --config-hooks` keeps the hook files it registers.
fn config_hooks_dir(loc: &HooksLocation) -> PathBuf {
    loc.common_dir.join("vouch-hooks")
}

/// `vouch install`.
pub fn install(ctx: &Ctx, args: &InstallArgs) -> Result<ExitStatus> {
    let path = ctx.dir(args.repo.as_ref());
    let loc = git::hooks_location(&path)?;
    if args.config_hooks {
        let version = git::git_version().context("cannot tell which git this is")?;
        if version < git::CONFIG_HOOKS_SINCE {
            bail!(
                "config-defined hooks need git {}.{} or later, and this is git {}.{}: install the hook files instead (without --config-hooks), or call `vouch hook <hook> -- \"$@\"` from your hook manager",
                git::CONFIG_HOOKS_SINCE.0,
                git::CONFIG_HOOKS_SINCE.1,
                version.0,
                version.1
            );
        }
    } else {
        check_hooks_path(&loc, args.force)?;
    }
    // Every name is checked before any hook is written.
    for hook in &args.hooks {
        install::known(hook)?;
    }
    let root = loc.root();
    // A broken config file must not keep the guard from being installed
    // (a stranger's repository could ship one): it is left out, and said.
    let config = ctx.config(Some(&root));
    for w in &config.warnings {
        ui::warn(w);
    }
    if args.direct && config.strict {
        bail!(
            "`strict = true` needs the script hook: a hook linked with --direct is skipped silently by git when the binary goes missing. Install without --direct"
        );
    }
    let bin = current_binary()?;
    let dir = if args.config_hooks {
        config_hooks_dir(&loc)
    } else {
        loc.dir.clone()
    };
    for hook in &args.hooks {
        let form = install::Form::for_hook(hook, &bin, config.strict, args.direct)?;
        let said = install::install_hook(&dir, hook, &form)
            .with_context(|| format!("failed to install the `{hook}` hook"))?;
        ui::info(&said);
        if args.config_hooks {
            let name = git::config_hook_name(hook);
            let path = install::sh_quote(&dir.join(hook));
            // git runs a config-defined hook even when its file is gone, and a
            // failing reference-transaction hook aborts every ref update: that
            // one passes when the binary it links to is missing.
            let command = if hook == install::REF_TX {
                [b"test -x ".as_slice(), &path, b" || exit 0; exec ", &path].concat()
            } else {
                path
            };
            let command = std::ffi::OsString::from_vec(command);
            git::set_config_hook(&root, &name, &command, hook)?;
            ui::info(&format!("registered `hook.{name}.command` for `{hook}`"));
        }
    }
    ui::info(&format!(
        "`{}` is now guarded ({}); `vouch status` shows the setup",
        root.display(),
        args.hooks.join(", ")
    ));
    let notice = super::status::no_verifier_notice(ctx, &config, &root);
    if !notice.is_empty() {
        ui::warn(&notice.join("\n"));
    }
    Ok(ExitStatus::Allowed)
}

/// `vouch uninstall`.
pub fn uninstall(ctx: &Ctx, args: &RepoArgs) -> Result<ExitStatus> {
    let path = ctx.dir(args.repo.as_ref());
    let loc = git::hooks_location(&path)?;
    if !person::confirms(
        ctx,
        "vouch uninstall",
        &format!(
            "This removes vouch's hooks from `{}` (hooks dir `{}`): its pushes, commits and branch deletions will no longer be checked.",
            loc.root().display(),
            loc.dir.display()
        ),
    ) {
        return Ok(ExitStatus::Refused);
    }
    for (hook, _) in HOOKS {
        ui::info(&install::uninstall_hook(&loc.dir, hook)?);
    }
    let config_dir = config_hooks_dir(&loc);
    for (hook, _) in HOOKS {
        let name = git::config_hook_name(hook);
        if git::remove_config_hook(&loc.root(), &name)? {
            ui::info(&format!("removed the config-defined hook `{name}`"));
        }
        if config_dir.is_dir() {
            install::uninstall_hook(&config_dir, hook)?;
        }
    }
    std::fs::remove_dir(&config_dir).ok();
    Ok(ExitStatus::Allowed)
}

/// `vouch trust`.
pub fn trust(ctx: &Ctx, args: &TrustArgs) -> Result<ExitStatus> {
    let path = ctx.dir(args.repo.as_ref());
    let loc = git::hooks_location(&path)?;
    let root = loc.root();
    let data = ctx.dirs()?.data;
    if args.revoke {
        trust::set(&data, &root, false)?;
        ui::info(&format!("`{}` is no longer trusted", root.display()));
        return Ok(ExitStatus::Allowed);
    }
    let file = root.join(REPO_CONFIG);
    let verifiers_dir = trust::verifiers_dir(&root);
    if !file.is_file() && !verifiers_dir.is_dir() {
        bail!(
            "`{}` has no `{REPO_CONFIG}` and no `.vouch/verifiers/`: there is nothing to trust",
            root.display()
        );
    }
    // Refuse to trust a file that does not even parse: the person should see the error first.
    ctx.load_config(Some(&root))?;
    // What is trusted is what the person reads, not what is there after.
    let seen = trust::fingerprint(&root);
    if !person::confirms(
        ctx,
        "vouch trust",
        &trust_summary(&root, &file, &verifiers_dir),
    ) {
        return Ok(ExitStatus::Refused);
    }
    trust::set_as_seen(&data, &root, seen)?;
    ui::info(&format!(
        "trusted `{}` as it is now: its `{REPO_CONFIG}` may now also lower the guard and set verifier programs, the notify command and the log path, and `.vouch/verifiers/` may run. Any change to those files needs `vouch trust` again",
        root.display()
    ));
    Ok(ExitStatus::Allowed)
}

/// What the person is asked to trust: the file as it is now (it may run
/// programs and loosen the guard) and the verifier programs there.
fn trust_summary(root: &Path, file: &Path, verifiers_dir: &Path) -> String {
    let mut text = format!(
        "Trusting `{}` lets its `{REPO_CONFIG}` loosen the guard and run programs, and runs the programs in `.vouch/verifiers/`.\n",
        root.display()
    );
    if let Ok(content) = std::fs::read_to_string(file) {
        text.push_str(&format!("`{}` now reads:\n", file.display()));
        let lines: Vec<&str> = content.lines().collect();
        for line in lines.iter().take(40) {
            text.push_str(&format!("  | {line}\n"));
        }
        if lines.len() > 40 {
            text.push_str(&format!("  | ... ({} more lines)\n", lines.len() - 40));
        }
    }
    if let Ok(entries) = std::fs::read_dir(verifiers_dir) {
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        if !names.is_empty() {
            text.push_str(&format!("verifier programs: {}\n", names.join(", ")));
        }
    }
    text.push_str("Did you write or review these yourself?");
    text
}
