//! `git vouch install`, `git vouch uninstall`, `git vouch trust` (`git vouch status` is `status.rs`).

use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::commands::cli::{InstallArgs, RepoArgs, TrustArgs};
use crate::commands::person;
use crate::doors::context::{Ctx, REPO_CONFIG};
use crate::install::managers::{self, Manager};
use crate::install::repair::{Mended, mend_moved};
use crate::install::{self, HOOKS, HookState};
use crate::measure::git::{self, HooksLocation};
use crate::{doors::exit::ExitStatus, install::trust, interact::ui};

/// The hooks dir is another tool's (husky), or outside the repository.
fn check_hooks_path(loc: &HooksLocation, force: bool) -> Result<()> {
    let Some(configured) = &loc.hooks_path else {
        return Ok(());
    };
    let dir = loc.dir.display().to_string();
    if loc.dir.starts_with(&loc.common_dir) || force {
        return Ok(());
    }
    let recipe = format!(
        "call vouch from the `pre-push` hook there instead:\n\n    git vouch hook pre-push -- \"$@\"\n\nor run `git vouch install --force` to install into `{dir}` anyway"
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

/// The path of the running binary, to bake into hooks: its `PATH` name
/// when it has one (a link that upgrades keep).
fn current_binary(ctx: &Ctx) -> Result<PathBuf> {
    install::stable_binary(ctx.env.var_os("PATH").as_deref())
}

/// Where lefthook manages the hooks, on a git without config-defined
/// hooks: vouch's scripts in `.lefthook-local/<hook>/` and vouch's block in
/// `lefthook-local.yml` (lefthook's own local config, which it reads on
/// every run; both kept out of git in `.git/info/exclude`), so that lefthook
/// runs vouch whatever its reinstall does to vouch's hook file. A sentence
/// saying why not, when vouch cannot add itself there.
fn lefthook_local(loc: &HooksLocation, bin: &Path, hooks: &[String]) -> Result<Option<String>> {
    let root = loc.root();
    let hooks: Vec<&str> = hooks
        .iter()
        .map(String::as_str)
        .filter(|h| *h != install::REF_TX)
        .collect();
    if hooks.is_empty() {
        return Ok(None);
    }
    let file = root.join(managers::LEFTHOOK_LOCAL);
    for stem in [
        "lefthook-local",
        ".lefthook-local",
        ".config/lefthook-local",
    ] {
        for ext in ["yml", "yaml", "json", "jsonc", "toml"] {
            let other = root.join(format!("{stem}.{ext}"));
            if other != file && other.is_file() {
                return Ok(Some(format!(
                    "`{}` is lefthook's local config here, a format vouch does not add to",
                    other.display()
                )));
            }
        }
    }
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let rest = managers::without_block(&text).unwrap_or_else(|| text.clone());
    if let Some(hook) = hooks
        .iter()
        .find(|h| rest.lines().any(|l| l.starts_with(&format!("{h}:"))))
    {
        return Ok(Some(format!(
            "`{}` has a `{hook}:` section of its own, which vouch does not edit",
            file.display()
        )));
    }
    for hook in &hooks {
        let dir = root.join(managers::LEFTHOOK_LOCAL_DIR).join(hook);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create `{}`", dir.display()))?;
        let script = dir.join(managers::LEFTHOOK_SCRIPT);
        crate::platform::files::write_atomic(&script, &managers::lefthook_script(hook, bin), 0o755)
            .with_context(|| format!("cannot write `{}`", script.display()))?;
    }
    let mut new = rest;
    if !new.is_empty() && !new.ends_with('\n') {
        new.push('\n');
    }
    new.push_str(&managers::lefthook_local_block(&hooks));
    if new != text {
        std::fs::write(&file, new).with_context(|| format!("cannot write `{}`", file.display()))?;
    }
    let exclude = loc.common_dir.join("info").join("exclude");
    let mut listed = std::fs::read_to_string(&exclude).unwrap_or_default();
    let mut changed = false;
    for line in [
        format!("/{}", managers::LEFTHOOK_LOCAL),
        format!("/{}/", managers::LEFTHOOK_LOCAL_DIR),
    ] {
        if !listed.lines().any(|l| l == line) {
            if !listed.is_empty() && !listed.ends_with('\n') {
                listed.push('\n');
            }
            listed.push_str(&line);
            listed.push('\n');
            changed = true;
        }
    }
    if changed {
        std::fs::create_dir_all(exclude.parent().unwrap_or(&loc.common_dir)).ok();
        std::fs::write(&exclude, listed)
            .with_context(|| format!("cannot write `{}`", exclude.display()))?;
    }
    Ok(None)
}

/// Takes vouch out of `lefthook-local.yml` and `.lefthook-local/`.
fn lefthook_local_out(root: &Path) -> Result<()> {
    let file = root.join(managers::LEFTHOOK_LOCAL);
    if let Ok(text) = std::fs::read_to_string(&file)
        && let Some(rest) = managers::without_block(&text)
    {
        if rest.trim().is_empty() {
            std::fs::remove_file(&file)
                .with_context(|| format!("cannot remove `{}`", file.display()))?;
        } else {
            std::fs::write(&file, rest)
                .with_context(|| format!("cannot write `{}`", file.display()))?;
        }
        ui::info(&format!("removed vouch from `{}`", file.display()));
    }
    let dir = root.join(managers::LEFTHOOK_LOCAL_DIR);
    for (hook, _) in HOOKS {
        let script = dir.join(hook).join(managers::LEFTHOOK_SCRIPT);
        if install::is_vouch_file(&script) {
            std::fs::remove_file(&script)
                .with_context(|| format!("cannot remove `{}`", script.display()))?;
            std::fs::remove_dir(dir.join(hook)).ok();
        }
    }
    std::fs::remove_dir(&dir).ok();
    Ok(())
}

/// `git vouch install`.
pub fn install(ctx: &Ctx, args: &InstallArgs) -> Result<ExitStatus> {
    if args.server {
        return install_server(ctx, args);
    }
    let path = ctx.dir(args.repo.as_ref());
    let loc = git::hooks_location(&path)?;
    let version = git::git_version();
    let config_hooks = args.config_hooks
        || (!args.hook_files && version.is_some_and(|v| v >= git::CONFIG_HOOKS_SINCE));
    if args.config_hooks {
        let version = version.context("cannot tell which git this is")?;
        if version < git::CONFIG_HOOKS_SINCE {
            bail!(
                "config-defined hooks need git {}.{} or later, and this is git {}.{}: install the hook files instead (without --config-hooks), or call `git vouch hook <hook> -- \"$@\"` from your hook manager",
                git::CONFIG_HOOKS_SINCE.0,
                git::CONFIG_HOOKS_SINCE.1,
                version.0,
                version.1
            );
        }
    }
    // Every name is checked before any hook is written.
    for hook in &args.hooks {
        install::known(hook)?;
    }
    let root = loc.root();
    let found = managers::detect(&root, &loc.dir, loc.hooks_path.as_deref());
    if !config_hooks {
        if found.iter().any(|f| f.manager == Manager::Overcommit) {
            bail!("{}", overcommit_refusal());
        }
        if managers::is_husky(&found) {
            return install_husky(ctx, args, &loc);
        }
        check_hooks_path(&loc, args.force)?;
    }
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
    let bin = current_binary(ctx)?;
    let dir = if config_hooks {
        git::config_hooks_dir(&loc)
    } else {
        loc.dir.clone()
    };
    // Beside a hook manager the hook stays a script: managers read the
    // hook they find as text.
    let text_only = !found.is_empty();
    if !text_only && !args.direct && !install::has_program() {
        ui::warn(
            "this build of vouch has no hook gate (its build could not compile `hooks/gate.rs`): the hooks are `sh` scripts, which start a shell before vouch on every commit and ref update. Building vouch again from a checkout (`./install.sh`) shows why",
        );
    }
    for hook in &args.hooks {
        let form = install::Form::for_hook(hook, &bin, config.strict, args.direct, text_only)?;
        if !config_hooks {
            match mend_moved(&dir, hook)? {
                Mended::Reached(said) => {
                    ui::info(&said);
                    continue;
                }
                Mended::Said(said) => ui::info(&said),
                Mended::Nothing => {}
            }
        }
        let said = install::install_hook(&dir, hook, &form)
            .with_context(|| format!("failed to install the `{hook}` hook"))?;
        ui::info(&said);
        if config_hooks {
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
    // husky set up in the repository (`.husky/`) but not yet here (`npm
    // install` has not run it): once it sets `core.hooksPath`, git no
    // longer reads `.git/hooks`. vouch is put where husky will run it, now.
    let husky_dir = root.join(".husky");
    if !config_hooks && husky_dir.is_dir() && !managers::is_husky(&found) {
        let committed = husky_hooks(&root, &husky_dir.join("_"), &args.hooks, || {
            install::Form::for_hook(install::REF_TX, &bin, config.strict, args.direct, true)
        })?;
        ui::info(&format!(
            "husky is set up in this repository (`.husky/`) but has not set `core.hooksPath` here yet: vouch is also where husky will run it ({}), so the hooks still reach vouch once `npm install` runs husky{}",
            ".husky/_/reference-transaction",
            if committed.is_empty() {
                String::new()
            } else {
                format!("; commit {}", committed.join(" and "))
            }
        ));
    }
    if config_hooks {
        // git runs the config-defined hooks and the hook files both: vouch's
        // own files go, so that no operation is judged twice (a manager's
        // script vouch chained is put back in their place).
        remove_hook_files(&loc)?;
        lefthook_local_out(&root)?;
    } else {
        install::record(&dir, &args.hooks)?;
        // vouch in git config too would run twice where git runs both.
        remove_config_hooks(&loc)?;
        if found.iter().any(|f| f.manager == Manager::Lefthook) {
            match lefthook_local(&loc, &bin, &args.hooks)? {
                None => ui::info(&format!(
                    "lefthook: vouch is also in `{}` (and `{}/`, both kept out of git in `.git/info/exclude`), so lefthook runs it whatever its reinstall does to vouch's hook file",
                    managers::LEFTHOOK_LOCAL,
                    managers::LEFTHOOK_LOCAL_DIR
                )),
                Some(why) => ui::warn(&format!(
                    "{why}: after `lefthook install` the next push is not checked until the next commit puts vouch back (`{} status` tells)",
                    install::PROGRAM
                )),
            }
        }
        for f in &found {
            if let Some(note) = manager_note(f.manager) {
                ui::info(&format!("{} ({}): {note}", f.manager.name(), f.by));
            }
        }
    }
    ui::info(&format!(
        "`{}` is now guarded ({}); `git vouch status` shows the setup",
        root.display(),
        args.hooks.join(", ")
    ));
    let notice = super::status::no_verifier_notice(ctx, &config, &root);
    if !notice.is_empty() {
        ui::warn(&notice.join("\n"));
    }
    Ok(ExitStatus::Allowed)
}

/// Takes vouch's own hook files out of the hooks directory (and of
/// `.git/hooks`, when `core.hooksPath` points elsewhere), wherever a
/// manager moved them, putting back what vouch had chained: once vouch is
/// registered in git config, git would run those files too.
fn remove_hook_files(loc: &HooksLocation) -> Result<()> {
    let default_dir = loc.common_dir.join("hooks");
    let mut dirs = vec![loc.dir.clone()];
    if default_dir != loc.dir {
        dirs.push(default_dir);
    }
    for dir in &dirs {
        let mut removed = false;
        for (hook, _) in HOOKS {
            if matches!(install::state(dir, hook), HookState::Ours { .. }) {
                install::uninstall_hook(dir, hook)?;
                removed = true;
            }
            removed |= uninstall_moved_file(dir, hook)?;
        }
        install::forget(dir);
        if removed {
            ui::info(&format!(
                "removed vouch's hook files from `{}`: git runs vouch from its config now, and would run them too",
                dir.display()
            ));
        }
    }
    Ok(())
}

/// Why vouch does not install beside overcommit, and what to do instead.
fn overcommit_refusal() -> String {
    format!(
        "overcommit manages the hooks of this repository (`.overcommit.yml`): it moves every other hook to `.git/hooks/old-hooks/`, never runs it, and `overcommit --install --force` deletes it, so a hook of vouch's there would stop guarding without a word.\n\
         On git 2.54 or later, `{p} install --config-hooks` registers vouch in the repository's git config, where overcommit does not reach and git runs it beside overcommit's hooks.\n\
         On an older git, vouch has no recipe through overcommit that it has tested; `{p} install --force` would install vouch's hooks anyway (each `overcommit --install` then moves them away: `{p} status` tells)",
        p = install::PROGRAM
    )
}

/// What a manager does to vouch's hooks later, said once at install.
fn manager_note(manager: Manager) -> Option<String> {
    let p = install::PROGRAM;
    match manager {
        Manager::PreCommit | Manager::Prek => Some(format!(
            "git runs vouch's hook, which runs {m}'s script first (kept as `<hook>.local`) and then judges; `{r}` keeps vouch (it moves vouch's hook to `<hook>.legacy` and runs it first), but `{r} -f` deletes it: vouch puts itself back at the next branch or tag update (a commit), and `{p} install` does at once (`{p} status` tells whether vouch is reached)",
            m = manager.name(),
            r = manager.reinstall()
        )),
        Manager::Lefthook => Some(format!(
            "git runs vouch's hook, which runs lefthook's script first (kept as `<hook>.local`) and then judges; `lefthook install` (and lefthook's own resync when its config changes) moves vouch's hook to `<hook>.old`, where lefthook never runs it: vouch takes it back at the next branch or tag update (a commit), and `{p} install` does at once (`{p} status` tells). A lefthook job is no substitute: lefthook skips jobs when a push changes no files, as a rewind, an amend or a branch deletion does"
        )),
        Manager::Husky | Manager::Overcommit => None,
    }
}

/// `git vouch install` where husky owns the hooks: vouch's block goes into the
/// committed `.husky/<hook>` files (husky runs them with git's arguments
/// and input; the block calls vouch only where it is installed), and the
/// local-history hook into `.husky/_`, which husky regenerates without
/// removing files of others.
fn install_husky(ctx: &Ctx, args: &InstallArgs, loc: &HooksLocation) -> Result<ExitStatus> {
    let root = loc.root();
    // vouch in git config too would run twice where git runs both.
    remove_config_hooks(loc)?;
    let bin = current_binary(ctx)?;
    let config = ctx.config(Some(&root));
    let committed = husky_hooks(&root, &loc.dir, &args.hooks, || {
        install::Form::for_hook(install::REF_TX, &bin, config.strict, args.direct, true)
    })?;
    if !committed.is_empty() {
        ui::info(&format!(
            "husky owns the hooks here (`core.hooksPath` = `{}`), so vouch is called from {}: commit it. A teammate without vouch sees one line saying the repository suggests it, and goes on",
            loc.hooks_path.as_deref().unwrap_or_default(),
            committed.join(" and ")
        ));
    }
    ui::info(&format!(
        "`{}` is now guarded ({}); `git vouch status` shows the setup",
        root.display(),
        args.hooks.join(", ")
    ));
    Ok(ExitStatus::Allowed)
}

/// Puts vouch where husky runs it: its block into the committed
/// `.husky/<hook>` files (husky runs them with git's arguments and input;
/// the block calls vouch only where it is installed), and the
/// local-history hook into `dir` (`.husky/_`, git's hooks directory once
/// husky is installed), which husky regenerates without removing files of
/// others. Returns the committed files it changed.
fn husky_hooks(
    root: &Path,
    dir: &Path,
    hooks: &[String],
    reftx: impl Fn() -> Result<install::Form>,
) -> Result<Vec<String>> {
    let mut committed = Vec::new();
    for hook in hooks {
        if hook == install::REF_TX {
            if !dir.is_dir() {
                // Before husky made it: ignored as husky ignores it.
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create `{}`", dir.display()))?;
                std::fs::write(dir.join(".gitignore"), "*")
                    .with_context(|| format!("cannot write `{}`", dir.display()))?;
            }
            ui::info(&install::install_hook(dir, hook, &reftx()?)?);
            continue;
        }
        let file = root.join(".husky").join(hook);
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        match managers::with_block(&text, hook) {
            None => ui::info(&format!(
                "`{}` already calls vouch; nothing changed",
                file.display()
            )),
            Some(new) => {
                std::fs::write(&file, new)
                    .with_context(|| format!("cannot write `{}`", file.display()))?;
                ui::info(&format!("added vouch to `{}`", file.display()));
                committed.push(format!(".husky/{hook}"));
            }
        }
    }
    Ok(committed)
}

/// Takes vouch out of what a hook manager keeps: vouch's hook moved to
/// `<hook>.legacy` (pre-commit, prek) or `<hook>.old` (lefthook), and
/// vouch's block in husky's `.husky/<hook>`. What vouch had chained goes
/// where the manager keeps a hook it found (its own stale script goes).
fn uninstall_moved(root: &Path, dir: &Path, hook: &str) -> Result<()> {
    uninstall_moved_file(dir, hook)?;
    let husky = root.join(".husky").join(hook);
    if let Ok(text) = std::fs::read_to_string(&husky)
        && let Some(rest) = managers::without_block(&text)
    {
        if managers::is_empty_script(&rest) {
            std::fs::remove_file(&husky)
                .with_context(|| format!("cannot remove `{}`", husky.display()))?;
        } else {
            std::fs::write(&husky, rest)
                .with_context(|| format!("cannot write `{}`", husky.display()))?;
        }
        ui::info(&format!("removed vouch from `{}`", husky.display()));
    }
    Ok(())
}

/// Takes out vouch's hook moved to `<hook>.legacy` (pre-commit, prek) or
/// `<hook>.old` (lefthook); true if there was one.
fn uninstall_moved_file(dir: &Path, hook: &str) -> Result<bool> {
    let path = dir.join(hook);
    if let Some(owner) = managers::script_of(&path)
        && let Some(suffix) = owner.moved_suffix()
    {
        let moved = dir.join(format!("{hook}{suffix}"));
        if install::is_vouch_file(&moved) {
            std::fs::remove_file(&moved)
                .with_context(|| format!("cannot remove `{}`", moved.display()))?;
            let local = install::local_path(&path);
            if std::fs::symlink_metadata(&local).is_ok() {
                if managers::script_of(&local).is_some() {
                    std::fs::remove_file(&local).ok();
                } else {
                    std::fs::rename(&local, &moved).with_context(|| {
                        format!("cannot move `{}` to `{}`", local.display(), moved.display())
                    })?;
                }
            }
            ui::info(&format!(
                "removed vouch's hook `{}` ({} runs as it did without vouch)",
                moved.display(),
                owner.name()
            ));
            return Ok(true);
        }
    }
    Ok(false)
}

/// `git vouch install --server`: the server door in one bare repository, or in
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
    let bin = current_binary(ctx)?;
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
        let form = install::Form::for_hook(hook, &bin, config.strict, args.direct, false)?;
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

/// `git vouch uninstall`.
pub fn uninstall(ctx: &Ctx, args: &RepoArgs) -> Result<ExitStatus> {
    let path = ctx.dir(args.repo.as_ref());
    let loc = git::hooks_location(&path)?;
    if !person::confirms(
        ctx,
        "git vouch uninstall",
        &format!(
            "This removes vouch's hooks from `{}` (hooks dir `{}`): its pushes, commits and branch deletions will no longer be checked.",
            loc.root().display(),
            loc.dir.display()
        ),
    ) {
        return Ok(ExitStatus::Refused);
    }
    let root = loc.root();
    // vouch's hooks from before another tool set `core.hooksPath` go too.
    let default_dir = loc.common_dir.join("hooks");
    for (hook, _) in HOOKS {
        ui::info(&install::uninstall_hook(&loc.dir, hook)?);
        uninstall_moved(&root, &loc.dir, hook)?;
        if default_dir != loc.dir && install::is_vouch_file(&default_dir.join(hook)) {
            ui::info(&install::uninstall_hook(&default_dir, hook)?);
        }
    }
    lefthook_local_out(&root)?;
    let husky_dir = root.join(".husky").join("_");
    if husky_dir != loc.dir && install::is_vouch_file(&husky_dir.join(install::REF_TX)) {
        ui::info(&install::uninstall_hook(&husky_dir, install::REF_TX)?);
    }
    install::forget(&loc.dir);
    install::forget(&default_dir);
    // The server door, where `git vouch install --server` put it.
    let (server_hook, _) = install::SERVER_HOOK;
    if matches!(
        install::state(&loc.dir, server_hook),
        HookState::Ours { .. }
    ) {
        ui::info(&install::uninstall_hook(&loc.dir, server_hook)?);
    }
    remove_config_hooks(&loc)?;
    Ok(ExitStatus::Allowed)
}

/// Takes vouch's config-defined hooks out of git config, and their files.
fn remove_config_hooks(loc: &HooksLocation) -> Result<()> {
    let config_dir = git::config_hooks_dir(loc);
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
    Ok(())
}

/// `git vouch trust`.
pub fn trust(ctx: &Ctx, args: &TrustArgs) -> Result<ExitStatus> {
    let path = ctx.dir(args.repo.as_ref());
    let loc = git::hooks_location(&path)?;
    let root = loc.root();
    let data = ctx.dirs()?.data.context(
        "no home directory (HOME is not set): there is no trust store to write; set HOME",
    )?;
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
        "git vouch trust",
        &trust_summary(&root, &file, &verifiers_dir),
    ) {
        return Ok(ExitStatus::Refused);
    }
    trust::set_as_seen(&data, &root, seen)?;
    ui::info(&format!(
        "trusted `{}` as it is now: its `{REPO_CONFIG}` may now also lower the guard and set verifier programs, the notify command and the log path, and `.vouch/verifiers/` may run. Any change to those files needs `git vouch trust` again",
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
