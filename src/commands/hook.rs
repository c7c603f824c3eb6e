//! `vouch hook pre-push`: the whole pipeline of SPEC section 1 for a push.
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
use crate::classify::{Tier, classify_push};
use crate::cli::PrePushArgs;
use crate::config::Mode;
use crate::context::Ctx;
use crate::operation::{Operation, Unjudged};

use crate::facts::{Change, PushFacts, RefFacts, RemoteTip};
use crate::git::Repo;
use crate::hooks::{ForceHint, PushUpdate, parse_pre_push, parse_push_argv};
use crate::policy::{Action, AuditResult, Decision, Plan};
use crate::text::redact_url;
use crate::{ExitStatus, parent, ui, verifiers};

/// Runs the pre-push hook.
pub fn pre_push(ctx: &Ctx, args: &PrePushArgs) -> Result<ExitStatus> {
    let started = Instant::now();
    // Read all of git's input before anything else (STYLE section 5).
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .context("cannot read the ref lines git passes on stdin")?;

    if let Some(dir) = &args.hook_dir
        && let Some(code) = run_chained(dir, "pre-push", &[&args.remote, &args.url], &input)?
        && code != 0
    {
        let why = format!("the chained hook `pre-push.local` refused this push (exit {code})");
        ui::info(&why);
        log_refusal(ctx, ("push", "pre-push"), &args.url, &why);
        return Ok(ExitStatus::Refused);
    }

    let updates = match parse_pre_push(&input) {
        Ok(u) => u,
        Err(e) => {
            ui::error(&anyhow::anyhow!(
                "{e}\nThis push is refused because vouch cannot tell what it changes. If git itself sent this, please report it"
            ));
            log_refusal(ctx, ("push", "pre-push"), &args.url, &e.to_string());
            return Ok(ExitStatus::Error);
        }
    };
    if updates.iter().any(|u| u.lossy_name) {
        ui::warn("a ref name is not UTF-8; it is shown with replacement characters");
    }
    let push_args = parent::git_ancestor_argv()
        .map(|argv| parse_push_argv(&argv))
        .unwrap_or_default();
    // Even with no lines the repository is opened: a mirror remote
    // (`remote.<name>.mirror`) deletes refs that git never shows the hook.
    let (facts, root, repo_warning) = match Repo::open_for_hook(&ctx.cwd) {
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
                        "git2 cannot open this repository ({why}); measured with the git command line instead"
                    )),
                ),
                None => (
                    unmeasured(&args.remote, &args.url, updates, push_args.force, &why),
                    ctx.cwd.clone(),
                    Some(format!(
                        "git2 cannot open this repository ({why}): nothing could be measured, so every change is treated as at least high"
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
    // Observe mode logs everything: it is how people see what vouch would do.
    if assessment.tier == Tier::None && !config.log_all && config.mode != Mode::Observe {
        for w in &config.warnings {
            ui::warn(w);
        }
        return Ok(ExitStatus::Allowed);
    }

    let op = Operation::Push { facts, assessment };
    let mut run = Run::new(ctx, &config, &root, &op, started);
    if let Some(w) = repo_warning {
        run.warn(w);
    }
    for w in &config.warnings {
        run.warn(w.clone());
    }
    run.decide_and_act()
}

/// Logs a push or commit refused before it could be judged (bad input,
/// bad config, a chained hook's refusal): every decision has its audit line.
/// The user's config says where the log is.
pub(crate) fn log_refusal(
    ctx: &Ctx,
    (noun, hook): (&'static str, &'static str),
    url: &str,
    why: &str,
) {
    // A broken config file is left out: the user's log path still counts.
    let config = ctx.config(None);
    let op = Operation::Unjudged(Unjudged {
        remote: (!url.is_empty()).then(|| redact_url(url)),
        ..Unjudged::new(noun, hook, None)
    });
    let plan = Plan {
        action: Action::Refuse {
            why: why.to_owned(),
            review: false,
        },
        result: AuditResult::Unavailable,
        override_reason: None,
        would: None,
    };
    let root = ctx.cwd.clone();
    Run::new(ctx, &config, &root, &op, Instant::now()).log_decided(
        &plan,
        Decision::Refused,
        Some(crate::text::redact_text(why)),
    );
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
        .map(|u| {
            let change = Change::of(&u);
            let mut f = RefFacts::new(u, change);
            if matches!(change, Change::Delete | Change::Rewrite) {
                f.remote_tip = RemoteTip::Unknown(why.to_owned());
            }
            f
        })
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
pub(crate) fn run_chained(
    dir: &Path,
    hook: &str,
    args: &[&str],
    input: &[u8],
) -> Result<Option<i32>> {
    let path = dir.join(format!("{hook}{}", crate::install::LOCAL_SUFFIX));
    if !path.is_file() {
        return Ok(None);
    }
    // As git does with hooks: one that is not executable is skipped, with a word.
    if !verifiers::is_executable(&path) {
        ui::warn(&format!(
            "`{}` is not executable, so it was not run",
            path.display()
        ));
        return Ok(None);
    }
    let mut child = Command::new(&path)
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
