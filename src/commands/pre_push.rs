//! `git vouch hook pre-push`: the whole pipeline of SPEC section 1 for a push.
//!
//! stdin -> updates -> facts -> tier -> verifiers -> decision -> prompt or
//! refusal -> audit line. A hook refuses only by returning `Refused`; an
//! internal error prints what to do and exits 2 (git refuses the push too).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result};

use super::decide::Run;
use super::door::HookCall;
use crate::classify::classify_push;
use crate::cli::PrePushArgs;
use crate::context::Ctx;
use crate::operation::Operation;
use crate::policy;

use crate::facts::{Change, PushFacts, RefFacts, RefKind, RemoteTip};
use crate::git::{Loose, Repo};
use crate::input::hooks::{ForceHint, PushUpdate, parse_pre_push, parse_push_argv};
use crate::text::redact_url;
use crate::{ExitStatus, parent, ui};

/// The fast path of git-vouch started as the `pre-push` hook (by the
/// launcher, a script's `exec`, or a link): a push the door would allow at
/// once and silently ([`AtOnce`]) is answered before the command line is
/// parsed or anything else starts; any other push is judged by the whole
/// door with the lines read here ([`super::reftx::Quick::Judge`]).
pub fn quick(args: &[std::ffi::OsString]) -> super::reftx::Quick {
    use super::reftx::Quick;
    let Some(("pre-push", hook_dir, [remote, url])) = crate::install::hook_call(args) else {
        return Quick::Parse;
    };
    let (Some(remote), Some(url)) = (remote.to_str(), url.to_str()) else {
        return Quick::Parse;
    };
    let Ok(cwd) = std::env::current_dir() else {
        return Quick::Parse;
    };
    let ctx = Ctx::new(Box::new(crate::env::ProcessEnv), cwd, None);
    // An old copy of `vouch-hook` handing over: the whole door writes the
    // hook again.
    if ctx.env.var_os(crate::env::vars::VOUCH_HOOK_STALE).is_some() {
        return Quick::Parse;
    }
    // What the answer needs besides the lines is read first: git writes
    // them once it has seen the hook start.
    let Some(at_once) = AtOnce::prepare(&ctx, hook_dir, remote) else {
        return Quick::Parse;
    };
    let mut input = Vec::new();
    if std::io::stdin().read_to_end(&mut input).is_err() {
        return Quick::Parse;
    }
    if at_once.allows(remote, url, &input) {
        return Quick::Pass;
    }
    Quick::Judge(input)
}

/// Runs the pre-push hook.
pub fn pre_push(ctx: &Ctx, args: &PrePushArgs) -> Result<ExitStatus> {
    let started = Instant::now();
    let call = HookCall {
        hook: "pre-push",
        noun: "push",
        dir: args.hook_dir.as_deref(),
        args: &[&args.remote, &args.url],
        url: &args.url,
    };
    let input = call.input(ctx)?;
    // Handed over by a copy of `vouch-hook` an earlier vouch wrote.
    if let Some(dir) = &args.hook_dir
        && ctx.env.var_os(crate::env::vars::VOUCH_HOOK_STALE).is_some()
    {
        super::setup::refresh_old_copy(ctx, dir);
    }
    if let Some(refused) = call.chained(ctx, &input)? {
        return Ok(refused);
    }
    let updates = match parse_pre_push(&input) {
        Ok(u) => u,
        Err(e) => return Ok(call.unreadable(ctx, &e.to_string())),
    };
    if updates.iter().any(|u| u.lossy_name) {
        ui::warn("a ref name is not UTF-8; it is shown with replacement characters");
    }
    let push_args = parent::git_ancestor_argv()
        .map(|argv| parse_push_argv(&argv))
        .unwrap_or_default();
    // Even with no lines the repository is opened: a mirror remote
    // (`remote.<name>.mirror`) deletes refs that git never shows the hook.
    let (facts, root, repo_warning) = match Repo::open_for_history(&ctx.cwd) {
        Ok(repo) => (
            repo.push_facts(&args.remote, &args.url, updates, &push_args),
            repo.root(),
            None,
        ),
        Err(e) => {
            let why = format!("{e:#}");
            match crate::git::cli_push_facts(
                &ctx.cwd,
                &args.remote,
                &args.url,
                updates.clone(),
                &push_args,
            ) {
                Some(facts) => (
                    facts,
                    ctx.cwd.clone(),
                    Some(format!(
                        "git2 cannot measure this repository ({why}); measured with the git command line instead"
                    )),
                ),
                None => (
                    unmeasured(&args.remote, &args.url, updates, push_args.force, &why),
                    ctx.cwd.clone(),
                    Some(format!(
                        "git2 cannot measure this repository ({why}): nothing could be measured, so every change is treated as at least high"
                    )),
                ),
            }
        }
    };
    if facts.refs.is_empty() && facts.mirror_unknown.is_none() {
        return Ok(ExitStatus::Allowed);
    }
    // A config file that cannot be used is left out, as at every door (SPEC 3.2).
    let config = ctx.config(Some(&root));
    let assessment = classify_push(&facts, &config.policy);
    if policy::answers_at_once(assessment.tier, &config, false) {
        for w in &config.warnings {
            ui::warn(w);
        }
        return Ok(ExitStatus::Allowed);
    }

    // Another run of vouch judges this push (git config's, or vouch's hook
    // in front of lefthook's): not twice.
    if super::setup::judged_elsewhere(ctx, "pre-push", args.hook_dir.as_deref()) {
        return Ok(ExitStatus::Allowed);
    }
    let op = Operation::Push { facts, assessment };
    let save = || -> Result<Vec<String>> { Ok(rescue(&root, &op)) };
    let mut run = Run::new(ctx, &config, &root, &op, started).on_allow(&save);
    if let Some(w) = repo_warning {
        run.warn(w);
    }
    for w in &config.warnings {
        run.warn(w.clone());
    }
    run.decide_and_act()
}

/// What the push door's answer without libgit2 needs before the push's
/// lines, for the fast path ([`quick`]): read first, so that
/// git has written the lines by the time they are read (a hook that waits
/// on its input waits for git to be scheduled again). `None` when the
/// whole door must decide whatever the lines say: a chained hook, a
/// repository [`Loose`] cannot be sure of, a mirror push or mirror remote,
/// a config file with a warning.
pub struct AtOnce {
    repo: Loose,
    force: ForceHint,
    remote_head: Option<String>,
    config: crate::config::Config,
}

impl AtOnce {
    /// Reads what does not depend on the push's lines.
    pub fn prepare(ctx: &Ctx, hook_dir: &Path, remote: &str) -> Option<Self> {
        let chained = crate::install::local_path(&hook_dir.join("pre-push"));
        if crate::files::absent(&chained) != Some(true) {
            return None;
        }
        let env = ctx.env.as_ref();
        let repo = Loose::at(&ctx.cwd, env)?;
        let push_args = parent::git_ancestor_argv()
            .map(|argv| parse_push_argv(&argv))
            .unwrap_or_default();
        if push_args.mirror || !repo.config_is_plain(env) {
            return None;
        }
        let remote_head = repo.remote_head(remote).ok()?;
        let config = ctx.config(Some(&ctx.cwd));
        config.warnings.is_empty().then_some(Self {
            repo,
            force: push_args.force,
            remote_head,
            config,
        })
    }

    /// True when the whole door would allow this push at once and say
    /// nothing, as it does for a fast-forward or a new branch that no rule
    /// names. Every branch update must be shown a fast-forward through
    /// loose commits ([`Loose`]); anything else, or anything not certain
    /// (a tag, a packed history), is false, and the whole door decides.
    pub fn allows(self, remote: &str, url: &str, input: &[u8]) -> bool {
        let Ok(updates) = parse_pre_push(input) else {
            return false;
        };
        if updates.iter().any(|u| u.lossy_name) {
            return false;
        }
        if updates.is_empty() {
            return true;
        }
        let mut refs = Vec::with_capacity(updates.len());
        for update in updates {
            let change = Change::of(&update);
            let mut f = RefFacts::new(update, change);
            if f.kind != RefKind::Branch {
                return false;
            }
            match change {
                Change::Create | Change::Unchanged => {}
                Change::Rewrite if self.repo.reaches(&f.new_oid, &f.old_oid) => {
                    f.change = Change::FastForward;
                    f.remote_tip = RemoteTip::Known;
                }
                _ => return false,
            }
            refs.push(f);
        }
        let facts = PushFacts {
            remote: redact_url(remote),
            url: redact_url(url),
            refs,
            force: self.force,
            remote_head: self.remote_head,
            ..PushFacts::default()
        };
        policy::answers_at_once(
            classify_push(&facts, &self.config.policy).tier,
            &self.config,
            false,
        )
    }
}

/// Facts for a repository git2 cannot open: only what the lines say.
fn unmeasured(
    remote: &str,
    url: &str,
    updates: Vec<PushUpdate>,
    force: ForceHint,
    why: &str,
) -> PushFacts {
    let refs = updates
        .into_iter()
        .map(|u| RefFacts::unmeasured(u, why))
        .collect();
    PushFacts {
        remote: redact_url(remote),
        url: redact_url(url),
        refs,
        force,
        ..PushFacts::default()
    }
}

/// Runs `<dir>/<hook>.local` with `input` on stdin; `None` if there is none.
///
/// The chained hook sees the path git ran the hook by (`<dir>/<hook>`) as
/// its `$0`, as it did before vouch was installed: a shell script is read by
/// its shell under that name, a binary gets it as `argv[0]`. (A script for
/// another interpreter is started by the kernel, which gives it its own
/// path.) vouch's own hook under that name is never run: it would start
/// vouch again, without end.
pub(crate) fn run_chained(
    env: &dyn crate::env::Env,
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
    if !crate::files::is_executable(&path) {
        ui::warn(&format!(
            "`{}` is not executable, so it was not run",
            path.display()
        ));
        return Ok(None);
    }
    let mut command = chained_command(&path, &as_run);
    if let Some(marker) = front {
        command.env(crate::env::vars::VOUCH_FRONT, marker);
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
    } else if with_slash && !head.is_empty() && !head.starts_with(b"\x7fELF") {
        // No `#!` line: git runs such a hook with `sh`.
        return source("/bin/sh".into(), Vec::new());
    }
    let mut c = Command::new(path);
    c.arg0(as_run);
    c
}

/// Before an allowed push that rewrites or deletes a branch or tag on the
/// remote: where the commits it takes off the remote ref still live. Those
/// in this repository are kept under a rescue ref
/// (`refs/vouch/rescue/<remote>/<branch>/<time>-remote`, listed by `git
/// vouch rescue`); of those never fetched, it says that only the remote
/// has them now. A rescue ref that cannot be written does not refuse the
/// push: it is said, with the commit's id.
fn rescue(root: &Path, op: &Operation) -> Vec<String> {
    let Operation::Push { facts, .. } = op else {
        return Vec::new();
    };
    let stamp = jiff::Timestamp::now()
        .strftime("%Y%m%dT%H%M%SZ")
        .to_string();
    // A remote pushed to by URL has no name a ref may carry.
    let plain = |name: &str| {
        !name.is_empty()
            && !name.starts_with('.')
            && !name.contains("..")
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    let remote = if plain(&facts.remote) {
        facts.remote.as_str()
    } else {
        "url"
    };
    let mut repo = None;
    let mut said = Vec::new();
    for f in &facts.refs {
        let gone = matches!(f.change, Change::Rewrite | Change::Delete)
            && !crate::input::hooks::is_zero_oid(&f.old_oid)
            && (f.lost.as_ref().is_none_or(|l| l.count > 0) || f.kind == RefKind::Tag);
        if !gone {
            continue;
        }
        let what = format!(
            "the commits `{}` had on `{}` ({})",
            f.short_name(),
            facts.remote,
            crate::text::short_oid(&f.old_oid)
        );
        if f.remote_tip != RemoteTip::Known {
            said.push(format!(
                "{what} are not in this repository, so vouch keeps no copy: only `{}` has them now, unreferenced, until its garbage collection removes them",
                facts.remote
            ));
            continue;
        }
        let original = format!("refs/remotes/{remote}/{}", f.short_name());
        let repo = repo.get_or_insert_with(|| Repo::discover(root));
        let written = match repo {
            Ok(r) => r.write_rescue(&original, &f.old_oid, &stamp),
            Err(_) => crate::git::cli_write_rescue(root, &original, &f.old_oid, &stamp),
        };
        match written {
            Ok(name) => said.push(format!(
                "{what} are kept here as `{name}`: `git vouch rescue restore {} --as <branch>` makes them a branch, and `git push --force-with-lease {} {name}:{}` puts them back",
                name.strip_prefix(crate::git::RESCUE_PREFIX).unwrap_or(&name),
                facts.remote,
                f.remote_ref
            )),
            Err(e) => said.push(format!(
                "{what} are in this repository, but vouch could not keep them under a rescue ref ({e:#}): `git branch <name> {}` does, until `git gc` prunes them",
                f.old_oid
            )),
        }
    }
    said
}
