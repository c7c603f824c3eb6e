//! `git vouch verify`: list verifiers, or run them by hand on the pending push
//! of the current branch.

use anyhow::{Result, bail};

use crate::classify::classify_push;
use crate::classify::operation::Operation;
use crate::commands::cli::VerifyArgs;
use crate::doors::context::Ctx;
use crate::input::hooks::{ForceHint, PushArgs};
use crate::measure::git::Repo;
use crate::verify::programs;
use crate::verify::verdict::{self, Outcome};
use crate::{doors::exit::ExitStatus, interact::report, interact::ui};

/// `git vouch verify`.
pub fn verify(ctx: &Ctx, args: &VerifyArgs) -> Result<ExitStatus> {
    let start = match &args.repo {
        Some(p) => ctx.cwd.join(p),
        None => ctx.cwd.clone(),
    };
    let repo = Repo::discover(&start)?;
    let root = repo.root();
    let mut config = crate::classify::config::Config::clone(&ctx.config(Some(&root)));
    for w in &config.warnings {
        crate::interact::ui::warn(w);
    }
    config.ai.primary.clone_from(&args.primary);
    let places = ctx.verifier_places(&root)?;
    let programs = programs::discover(&config, &places);
    if args.list {
        if programs.is_empty() {
            ui::out("no verifiers found");
            ui::out(
                "  configure `[verifiers.NAME] command = \"...\"`, put programs in the user config dir's `verifiers/`, or `vouch-verify-*` on PATH",
            );
        }
        for p in &programs {
            let tiers = p.tiers.as_ref().map_or_else(
                || "every verified tier".to_owned(),
                |t| t.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", "),
            );
            let command = if p.command.is_empty() {
                "(not found)".to_owned()
            } else {
                p.command.join(" ")
            };
            ui::out(&format!(
                "{}\t{}, timeout {} s, tiers: {tiers}{}\n\t{command}\n\tfrom {}",
                p.name,
                if p.blocking {
                    "blocking"
                } else {
                    "non-blocking"
                },
                p.timeout.as_secs(),
                if p.enabled { "" } else { ", disabled" },
                p.source
            ));
        }
        return Ok(ExitStatus::Allowed);
    }
    // `ai` names the AI verifier.
    let with_ai = args.only.is_empty() || args.only.iter().any(|n| n == "ai");
    let selected: Vec<_> = if args.only.is_empty() {
        programs.into_iter().filter(|p| p.enabled).collect()
    } else {
        let mut chosen = Vec::new();
        for name in args.only.iter().filter(|n| *n != "ai") {
            match programs.iter().find(|p| &p.name == name) {
                Some(p) => chosen.push(p.clone()),
                None => bail!(
                    "no verifier named `{name}`; `git vouch verify --list` shows those found: {}",
                    programs
                        .iter()
                        .map(|p| p.name.as_str())
                        .chain(std::iter::once("ai"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
        chosen
    };
    let (remote, url, update) = repo.pending_push()?;
    let hint = PushArgs {
        force: ForceHint::Forced,
        mirror: false,
        dry_run: false,
    };
    let facts = repo.push_facts(&remote, &url, vec![update], &hint);
    let assessment = classify_push(&facts, &config.policy);
    let op = Operation::Push { facts, assessment };
    if args.explain {
        return super::print_explained(ctx, &config, &op, &root, false, true);
    }
    ui::out(&format!(
        "pending: {}",
        crate::interact::report::describe(&op).trim_end()
    ));
    let view = op.view(&root);
    let (results, ai_run) = crate::doors::runner::ask_verifiers(
        ctx, &config, &op, &root, &view, &selected, with_ai, false,
    )?;
    if results.is_empty() {
        ui::out(
            "no verifiers ran: none configured, and no AI provider has a key (`git vouch verify --list`, `git vouch doctor`)",
        );
        return Ok(ExitStatus::Error);
    }
    if let Some(run) = &ai_run {
        for w in &run.warnings {
            ui::warn(w);
        }
    }
    let combined = verdict::combine(&results);
    ui::out(report::verifier_details(&results, Some(&combined)).trim_end());
    let word = combined.outcome.result_word();
    ui::out(&format!("verdict: {word}"));
    Ok(match combined.outcome {
        Outcome::Proceed { .. } => ExitStatus::Allowed,
        Outcome::Warn | Outcome::Block => ExitStatus::Refused,
        Outcome::Unavailable { .. } => ExitStatus::Error,
    })
}
