//! `git vouch hook pre-push`: the whole pipeline of SPEC section 1 for a push.
//!
//! stdin -> updates -> facts -> tier -> verifiers -> decision -> prompt or
//! refusal -> audit line. A hook refuses only by returning `Refused`; an
//! internal error prints what to do and exits 2 (git refuses the push too).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::{Door, HookCall, Judge, Judged};
use crate::classify::classify_push;
use crate::classify::operation::Operation;
use crate::decide;
use crate::doors::args::PrePushArgs;
use crate::doors::context::Ctx;

use crate::classify::facts::{Change, PushFacts, RefFacts, RefKind, RemoteTip};
use crate::input::hooks::{ForceHint, ParseError, PushUpdate, parse_pre_push, parse_push_argv};
use crate::input::text::redact_url;
use crate::measure::git::{Loose, Repo};
use crate::{doors::exit::ExitStatus, interact::ui, measure::parent};

/// The fast path of git-vouch started as the `pre-push` hook (by the
/// gate, a script's `exec`, or a link): a push the door would allow at
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
    let ctx = Ctx::new(Box::new(crate::platform::env::ProcessEnv), cwd, None);
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
    Quick::Judge(input, ctx.configs)
}

/// The push's lines, parsed once per process: the fast path ([`quick`])
/// reads them first, and the whole door judges the same bytes.
fn push_lines(input: &[u8]) -> Result<Vec<PushUpdate>, ParseError> {
    type Parsed = (Vec<u8>, Result<Vec<PushUpdate>, ParseError>);
    static PARSED: std::sync::Mutex<Option<Parsed>> = std::sync::Mutex::new(None);
    let mut parsed = PARSED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((bytes, lines)) = parsed.as_ref()
        && bytes == input
    {
        return lines.clone();
    }
    let lines = parse_pre_push(input);
    *parsed = Some((input.to_vec(), lines.clone()));
    lines
}

/// The pre-push hook: git's push, as the pusher's repository sees it.
struct PrePush<'a> {
    args: &'a PrePushArgs,
    /// The repository the push is measured in (for the rescue refs).
    root: PathBuf,
    /// The same repository, opened once to measure the push and kept for
    /// its rescue refs.
    repo: Option<Repo>,
}

/// Runs the pre-push hook.
pub fn pre_push(ctx: &Ctx, args: &PrePushArgs) -> Result<ExitStatus> {
    super::drive(
        ctx,
        &mut PrePush {
            args,
            root: ctx.cwd.clone(),
            repo: None,
        },
    )
}

impl Door for PrePush<'_> {
    fn call(&self) -> HookCall {
        HookCall {
            args: vec![self.args.remote.clone(), self.args.url.clone()],
            url: self.args.url.clone(),
            ..HookCall::new("pre-push", "push", self.args.hook_dir.clone())
        }
    }

    fn judge(&mut self, ctx: &Ctx, input: &[u8]) -> Result<Judge> {
        let args = self.args;
        let updates = match push_lines(input) {
            Ok(u) => u,
            Err(e) => return Ok(self.call().unreadable(&e.to_string())),
        };
        if updates.iter().any(|u| u.lossy_name) {
            ui::warn("a ref name is not UTF-8; it is shown with replacement characters");
        }
        let push_args = parent::git_ancestor_argv()
            .map(|argv| parse_push_argv(&argv))
            .unwrap_or_default();
        // git runs this hook on a dry run too and does not say so: only
        // the command line does (issue 35 item 3). Nothing is sent.
        if push_args.dry_run {
            return Ok(Judge::Pass);
        }
        // Even with no lines the repository is opened: a mirror remote
        // (`remote.<name>.mirror`) deletes refs that git never shows the hook.
        let (facts, root, repo_warning) = match Repo::open_for_history(&ctx.cwd) {
            Ok(repo) => {
                let facts = repo.push_facts(&args.remote, &args.url, updates, &push_args);
                let root = repo.root();
                self.repo = Some(repo);
                (facts, root, None)
            }
            Err(e) => {
                let why = format!("{e:#}");
                match crate::measure::git::cli_push_facts(
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
            return Ok(Judge::Pass);
        }
        // A config file that cannot be used is left out, as at every door (SPEC 3.2).
        let config = ctx.config(Some(&root));
        let assessment = classify_push(&facts, &config.policy);
        self.root.clone_from(&root);
        let op = Operation::Push { facts, assessment };
        Ok(Judge::Operation(Box::new(Judged {
            warnings: repo_warning.into_iter().collect(),
            ..Judged::new(op, config, root)
        })))
    }

    fn judged_elsewhere(&self, ctx: &Ctx) -> bool {
        super::judged_elsewhere(ctx, "pre-push", self.args.hook_dir.as_deref())
    }

    fn on_allow(&self, op: &Operation) -> Result<Vec<String>> {
        Ok(rescue(&self.root, self.repo.as_ref(), op))
    }
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
    config: std::sync::Arc<crate::classify::config::Config>,
    /// A dry run (`git push -n`): nothing is sent, nothing to judge.
    dry_run: bool,
}

impl AtOnce {
    /// Reads what does not depend on the push's lines.
    pub fn prepare(ctx: &Ctx, hook_dir: &Path, remote: &str) -> Option<Self> {
        let chained = crate::install::local_path(&hook_dir.join("pre-push"));
        if crate::platform::files::absent(&chained) != Some(true) {
            return None;
        }
        let env = ctx.env.as_ref();
        let repo = Loose::at(&ctx.cwd, env)?;
        let push_args = parent::git_ancestor_argv()
            .map(|argv| parse_push_argv(&argv))
            .unwrap_or_default();
        if push_args.dry_run {
            return Some(Self {
                repo,
                force: push_args.force,
                remote_head: None,
                config: std::sync::Arc::default(),
                dry_run: true,
            });
        }
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
            dry_run: false,
        })
    }

    /// True when the whole door would allow this push at once and say
    /// nothing, as it does for a fast-forward or a new branch that no rule
    /// names. Every branch update must be shown a fast-forward through
    /// loose commits ([`Loose`]); anything else, or anything not certain
    /// (a tag, a packed history), is false, and the whole door decides.
    pub fn allows(self, remote: &str, url: &str, input: &[u8]) -> bool {
        if self.dry_run {
            return true;
        }
        let Ok(updates) = push_lines(input) else {
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
        decide::answers_at_once(
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

/// Before an allowed push that rewrites or deletes a branch or tag on the
/// remote: where the commits it takes off the remote ref still live. Those
/// in this repository are kept under a rescue ref
/// (`refs/vouch/rescue/<remote>/<branch>/<time>-remote`, listed by `git
/// vouch rescue`); of those never fetched, it says that only the remote
/// has them now. A rescue ref that cannot be written does not refuse the
/// push: it is said, with the commit's id.
fn rescue(root: &Path, opened: Option<&Repo>, op: &Operation) -> Vec<String> {
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
            && !crate::input::git_command::is_zero_oid(&f.old_oid)
            && (f.lost.as_ref().is_none_or(|l| l.count > 0) || f.kind == RefKind::Tag);
        if !gone {
            continue;
        }
        let what = format!(
            "the commits `{}` had on `{}` ({})",
            f.short_name(),
            facts.remote,
            crate::input::text::short_oid(&f.old_oid)
        );
        if f.remote_tip != RemoteTip::Known {
            said.push(format!(
                "{what} are not in this repository, so vouch keeps no copy: only `{}` has them now, unreferenced, until its garbage collection removes them",
                facts.remote
            ));
            continue;
        }
        let original = format!("refs/remotes/{remote}/{}", f.short_name());
        let repo = match opened {
            Some(r) => Some(r),
            None => repo
                .get_or_insert_with(|| Repo::discover(root).ok())
                .as_ref(),
        };
        let written = match repo {
            Some(r) => r.write_rescue(&original, &f.old_oid, &stamp),
            None => crate::measure::git::cli_write_rescue(root, &original, &f.old_oid, &stamp),
        };
        match written {
            Ok(name) => said.push(format!(
                "{what} are kept here as `{name}`: `git vouch rescue restore {} --as <branch>` makes them a branch, and `git push --force-with-lease {} {name}:{}` puts them back",
                name.strip_prefix(crate::measure::git::RESCUE_PREFIX).unwrap_or(&name),
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
