//! `vouch install`, `vouch uninstall`, `vouch status`, `vouch trust`.

use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::cli::{InstallArgs, RepoArgs, TrustArgs};
use crate::commands::person;
use crate::context::{Ctx, REPO_CONFIG};
use crate::git::{self, HooksLocation};
use crate::install::{self, HOOKS, HookState};
use crate::{ExitStatus, trust, ui, verifiers};

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
    if args.server {
        return install_server(ctx, args);
    }
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
    Ok(ExitStatus::Allowed)
}

/// `vouch install --server`: the server door in one bare repository, or in
/// every one under `--all-under`.
fn install_server(ctx: &Ctx, args: &InstallArgs) -> Result<ExitStatus> {
    let (hook, _) = install::SERVER_HOOK;
    let repos = match &args.all_under {
        Some(dir) => {
            let found = git::bare_repositories_under(dir);
            if found.is_empty() {
                bail!("no bare repository at or below `{}`", dir.display());
            }
            found
        }
        None => vec![ctx.dir(args.repo.as_ref())],
    };
    let bin = current_binary()?;
    for repo in &repos {
        let loc = git::hooks_location(repo)?;
        if loc.worktree.is_some() {
            bail!(
                "`{}` has a work tree: the server door belongs in the bare repository a server receives pushes into (`git init --bare`)",
                repo.display()
            );
        }
        check_hooks_path(&loc, args.force)?;
        let config = ctx.config(Some(&loc.common_dir));
        for w in &config.warnings {
            ui::warn(w);
        }
        let form = install::Form::for_hook(hook, &bin, config.strict, args.direct)?;
        let said = install::install_hook(&loc.dir, hook, &form)
            .with_context(|| format!("failed to install the `{hook}` hook"))?;
        ui::info(&said);
        git::advertise_push_options(&loc.common_dir)?;
    }
    ui::info(&format!(
        "{} guarded by vouch's pre-receive; pushers may send `-o vouch.skip=\"<reason>\"` and `-o vouch.approve=<id>` (receive.advertisePushOptions = true)",
        if repos.len() == 1 {
            format!("`{}` is", repos[0].display())
        } else {
            format!("{} repositories are", repos.len())
        }
    ));
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
    // The server door, where `vouch install --server` put it.
    let (server_hook, _) = install::SERVER_HOOK;
    if matches!(
        install::state(&loc.dir, server_hook),
        HookState::Ours { .. }
    ) {
        ui::info(&install::uninstall_hook(&loc.dir, server_hook)?);
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

/// `vouch status`.
pub fn status(ctx: &Ctx, args: &RepoArgs) -> Result<ExitStatus> {
    let path = ctx.dir(args.repo.as_ref());
    let loc = git::hooks_location(&path)?;
    let root = loc.root();
    ui::out(&format!("repository:   {}", root.display()));
    match &loc.hooks_path {
        Some(p) => ui::out(&format!(
            "hooks dir:    {} (core.hooksPath = {p})",
            loc.dir.display()
        )),
        None => ui::out(&format!("hooks dir:    {}", loc.dir.display())),
    }
    for (hook, _) in HOOKS {
        let line = match install::state(&loc.dir, hook) {
            HookState::Missing => "not installed".to_owned(),
            HookState::Foreign => "someone else's hook (run `vouch install`)".to_owned(),
            HookState::Ours {
                bin,
                chained,
                direct,
            } => {
                let bin = bin.unwrap_or_default();
                let found = match (bin.is_file(), direct) {
                    (true, false) => "",
                    (true, true) => " (linked directly)",
                    (false, false) => " (MISSING: the hook falls back to PATH)",
                    (false, true) => {
                        " (MISSING: git skips this hook silently; run `vouch install` again)"
                    }
                };
                let chained = if chained {
                    format!("; chains `{hook}.local`")
                } else {
                    String::new()
                };
                format!("installed, calls `{}`{found}{chained}", bin.display())
            }
        };
        ui::out(&format!("{:<13} {line}", format!("{hook}:")));
        if let Some(command) = git::config_hook(&root, &git::config_hook_name(hook)) {
            ui::out(&format!(
                "{:<13} also registered in git config: `{command}` (git 2.54+)",
                ""
            ));
        }
    }
    let config = ctx.load_config(Some(&root))?;
    let user = ctx.user_config_path()?;
    ui::out(&format!(
        "user config:  {}{}",
        user.display(),
        if user.is_file() {
            ""
        } else {
            " (none; defaults)"
        }
    ));
    let repo_config = root.join(REPO_CONFIG);
    if repo_config.is_file() {
        let dirs = ctx.dirs()?;
        let trusted = if trust::is_trusted(&dirs.data, &root) {
            "trusted"
        } else {
            "not trusted: it may only make the guard stricter"
        };
        ui::out(&format!(
            "repo config:  {} ({trusted})",
            repo_config.display()
        ));
    }
    for w in &config.warnings {
        ui::out(&format!("warning:      {w}"));
    }
    ui::out(&format!(
        "protected:    {}{}",
        config.policy.protected_patterns.join(", "),
        if config.policy.remote_head {
            ", and each remote's default branch"
        } else {
            ""
        }
    ));
    ui::out(&format!("strict:       {}", config.strict));
    let places = ctx.verifier_places(&root)?;
    let programs = verifiers::discover(&config, &places);
    if programs.is_empty() {
        ui::out(
            "verifiers:    none (verified operations are decided by the unavailable rule; see `vouch verify --list`)",
        );
    } else {
        let names: Vec<_> = programs.iter().map(|p| p.name.as_str()).collect();
        ui::out(&format!("verifiers:    {}", names.join(", ")));
    }
    let providers = crate::ai::providers(&config, ctx.env.as_ref());
    let with_keys: Vec<String> = providers
        .iter()
        .filter(|p| p.has_key())
        .map(|p| format!("{} ({})", p.name, p.model))
        .collect();
    if !config.ai.enabled {
        ui::out("AI verifier: off (`[ai] enabled = false`)");
    } else if with_keys.is_empty() {
        ui::out("AI verifier: no provider has a key (see `vouch doctor`)");
    } else {
        ui::out(&format!("AI providers: {}", with_keys.join(", ")));
    }
    ui::out(&format!(
        "audit log:    {}",
        ctx.log_path(&config)?.display()
    ));
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
