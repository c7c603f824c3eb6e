//! Whether git reaches vouch for each hook of a repository, in words and
//! as a fact: through git's config (git 2.54+), vouch's hook file, a hook
//! manager that runs it, or husky's block. `git vouch status` prints the
//! words; the agent door asks whether the reference-transaction hook
//! judges what a command does later.

use std::path::Path;

use crate::install::managers;
use crate::install::{self, HookState};
use crate::measure::git;

/// Where git looks for vouch in one repository, to tell whether each hook
/// reaches it.
pub struct Place {
    loc: git::HooksLocation,
    husky: bool,
    runs_config: bool,
}

impl Place {
    pub fn new(loc: git::HooksLocation, husky: bool) -> Self {
        Self {
            loc,
            husky,
            runs_config: git::runs_config_hooks(),
        }
    }

    /// Whether git runs vouch for `hook` (whose file in the hooks directory
    /// is in `state`), in words and as a fact, and vouch's config-defined
    /// command for it.
    pub fn reach(&self, hook: &str, state: &HookState) -> (String, bool, Option<String>) {
        let loc = &self.loc;
        let root = loc.root();
        let name = git::config_hook_name(hook);
        let config_hook = git::config_hook(&root, &name);
        let config_dir = git::config_hooks_dir(loc);
        let default_dir = loc.common_dir.join("hooks");
        let from_config = config_hook.is_some()
            && self.runs_config
            && git::config_hook_enabled(&root, &name, hook)
            && matches!(
                install::state(&config_dir, hook),
                HookState::Ours { bin: Some(ref b), .. } if b.is_file()
            );
        if from_config {
            return (
                format!(
                    "reached from git config (`hook.{name}.command`, git 2.54+): no hook manager or `core.hooksPath` can take it"
                ),
                true,
                config_hook,
            );
        }
        let (mut reach, mut reached) = if self.husky && hook != install::REF_TX {
            husky_reach(&root, &loc.dir, hook)
        } else {
            hook_reach(&loc.dir, hook, state)
        };
        if !reached
            && managers::script_of(&loc.dir.join(hook)) == Some(managers::Manager::Lefthook)
            && crate::install::managers::lefthook_local_reaches(&root, hook)
        {
            reach = format!(
                "lefthook's hook; vouch is reached: lefthook runs it from `{}`",
                managers::LEFTHOOK_LOCAL
            );
            reached = true;
        }
        if !reached
            && default_dir != loc.dir
            && matches!(install::state(&default_dir, hook), HookState::Ours { .. })
        {
            reach = format!(
                "vouch's hook is in `{}`, which git does not read while `core.hooksPath` is `{}`: vouch is NOT reached ({})",
                default_dir.display(),
                loc.hooks_path.as_deref().unwrap_or_default(),
                unreachable_next_step()
            );
        }
        if !reached && config_hook.is_some() && !self.runs_config {
            reach.push_str(&format!(
                "; `hook.{name}.command` is set, but this git runs no config-defined hooks (git 2.54+ does)"
            ));
        }
        (reach, reached, config_hook)
    }
}

/// Whether git runs vouch for `hook` in the repository at `path`, as
/// `git vouch status` tells it (false when that cannot be told). The
/// agent door asks before it counts on a hook to judge what a command
/// does later.
pub fn hook_reached(path: &Path, hook: &str) -> bool {
    let Ok(loc) = git::hooks_location(path) else {
        return false;
    };
    let found = managers::detect(&loc.root(), &loc.dir, loc.hooks_path.as_deref());
    let state = install::state(&loc.dir, hook);
    Place::new(loc, crate::install::managers::is_husky(&found))
        .reach(hook, &state)
        .1
}

/// What brings vouch back where nothing of it is reached now.
fn unreachable_next_step() -> String {
    let p = install::PROGRAM;
    if git::runs_config_hooks() {
        format!(
            "`{p} install` registers vouch in git config, which git runs whatever the hooks directory holds"
        )
    } else {
        format!(
            "`{p} install` puts it back where it can; from git 2.54 on, vouch is registered in git config, where no hook manager reaches"
        )
    }
}

/// Whether git reaches vouch through `dir/hook`, in words, and as a fact.
fn hook_reach(dir: &Path, hook: &str, state: &HookState) -> (String, bool) {
    let p = install::PROGRAM;
    match state {
        HookState::Missing => (format!("not installed (run `{p} install`)"), false),
        HookState::Foreign => {
            let path = dir.join(hook);
            let Some(owner) = managers::script_of(&path) else {
                return (
                    format!("someone else's hook; vouch is NOT reached (run `{p} install`)"),
                    false,
                );
            };
            let moved = owner
                .moved_suffix()
                .map(|s| dir.join(format!("{hook}{s}")))
                .filter(|m| install::is_vouch_file(m));
            match moved {
                Some(m) if owner.legacy_var().is_some() => (
                    format!(
                        "{}'s hook; vouch is reached: {} runs `{}` first (`{} -f` would delete it)",
                        owner.name(),
                        owner.name(),
                        m.display(),
                        owner.reinstall()
                    ),
                    true,
                ),
                Some(m) => (
                    format!(
                        "{}'s hook; vouch is NOT reached: {} moved vouch's hook to `{}` and never runs it ({})",
                        owner.name(),
                        owner.name(),
                        m.display(),
                        put_back_words(dir, hook)
                    ),
                    false,
                ),
                None => (
                    format!(
                        "{}'s hook; vouch is NOT reached ({})",
                        owner.name(),
                        put_back_words(dir, hook)
                    ),
                    false,
                ),
            }
        }
        HookState::Ours {
            bin,
            chained,
            direct,
        } => {
            let bin = bin.clone().unwrap_or_default();
            let found = match (bin.is_file(), *direct) {
                (true, false) => "",
                (true, true) => " (linked directly)",
                (false, false) => " (MISSING: the hook falls back to PATH)",
                (false, true) => {
                    " (MISSING: git skips this hook silently; run `git vouch install` again)"
                }
            };
            let local = install::local_path(&dir.join(hook));
            let chained = match (*chained, managers::script_of(&local)) {
                (true, Some(m)) => format!("; chains {}'s hook (`{hook}.local`)", m.name()),
                (true, None) => format!("; chains `{hook}.local`"),
                (false, _) => String::new(),
            };
            (
                format!("installed, calls `{}`{found}{chained}", bin.display()),
                bin.is_file() || !*direct,
            )
        }
    }
}

/// Whether husky's `.husky/<hook>` calls vouch, in words and as a fact:
/// git runs husky's stub in `dir` (`.husky/_`), which runs it.
fn husky_reach(root: &Path, dir: &Path, hook: &str) -> (String, bool) {
    let file = root.join(".husky").join(hook);
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    if !text.contains(managers::BLOCK_BEGIN) {
        (
            format!(
                "husky owns this hook and `{}` does not call vouch: vouch is NOT reached (run `{} install`)",
                file.display(),
                install::PROGRAM
            ),
            false,
        )
    } else if !dir.join(hook).is_file() {
        (
            format!(
                "`{}` calls vouch, but husky's `{}` is missing, so git runs nothing: vouch is NOT reached (run `husky`, or `npm install`)",
                file.display(),
                dir.join(hook).display()
            ),
            false,
        )
    } else {
        (
            format!("reached through husky: `{}` calls vouch", file.display()),
            true,
        )
    }
}

/// What puts vouch back in front of a manager's `hook`: the next branch or
/// tag update where `git vouch install` recorded it, and that command now.
fn put_back_words(dir: &Path, hook: &str) -> String {
    let p = install::PROGRAM;
    if install::recorded(dir).iter().any(|h| h == hook) {
        format!(
            "vouch puts itself back at the next commit or other branch update; `{p} install` does it now"
        )
    } else {
        format!("run `{p} install`")
    }
}
