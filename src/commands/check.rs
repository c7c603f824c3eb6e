//! `git vouch check`: a shell command, judged before it runs (SPEC 2.4),
//! with the assessment the agent door uses ([`crate::doors::assess`]).

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::classify::Tier;
use crate::classify::operation::{Operation, StepFacts};
use crate::commands::cli::CheckArgs;
use crate::decide::{self, AuditResult};
use crate::doors::context::Ctx;
use crate::doors::runner::{Interaction, Run};
use crate::input::text::one_line;
use crate::measure::git::LazyRepo;
use crate::verify::verdict::VerifierResult;
use crate::{doors::exit::ExitStatus, interact::ui};

use crate::doors::assess::assess;

/// What `git vouch check --json` prints: the contract scripts read.
#[derive(Debug, Serialize)]
pub struct CheckReport<'a> {
    /// The command, credentials masked.
    pub command: &'a str,
    /// Where it runs.
    pub cwd: &'a Path,
    /// Its tier.
    pub tier: Tier,
    /// One finding per rule that matched.
    pub reasons: Vec<CheckReason<'a>>,
    /// What was measured for each step whose rule asks for facts: the
    /// same typed view the verifier context and the audit line carry.
    pub facts: &'a [StepFacts],
    /// `allowed`, `refused`, or `needs a verdict` (high or critical, not verified).
    pub decision: &'static str,
    /// The verifiers' verdict, with `--verify`.
    pub verdict: Option<CheckVerdict<'a>>,
}

/// One finding of [`CheckReport`].
#[derive(Debug, Serialize)]
pub struct CheckReason<'a> {
    /// Its tier.
    pub tier: Tier,
    /// Why.
    pub reason: &'a str,
}

/// The verdict of [`CheckReport`].
#[derive(Debug, Serialize)]
pub struct CheckVerdict<'a> {
    /// proceed, warn, block, skipped or unavailable.
    pub result: AuditResult,
    /// The deciding verdict's confidence.
    pub confidence: Option<f64>,
    /// Concerns raised.
    pub concerns: &'a [String],
    /// Every verifier's result.
    pub verifiers: &'a [VerifierResult],
}

/// `git vouch check`.
pub fn check(ctx: &Ctx, args: &CheckArgs) -> Result<ExitStatus> {
    let started = Instant::now();
    let command = match (&args.operation, args.command.is_empty()) {
        (Some(op), true) => op.clone(),
        (None, false) => shell_words::join(&args.command),
        (Some(_), false) => {
            anyhow::bail!("give the command either after `--` or with `--operation`, not both")
        }
        (None, true) => anyhow::bail!(
            "no command to check: `git vouch check -- git reset --hard` or `git vouch check --operation \"git reset --hard\"`"
        ),
    };
    // `--cwd ../other` is shown and judged as the directory it names.
    let cwd = ctx.dir(args.cwd.as_ref());
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let repo = LazyRepo::new(&cwd);
    let mut config = crate::classify::config::Config::clone(&ctx.config(repo.root().as_deref()));
    for w in &config.warnings {
        ui::warn(w);
    }
    if let Some(p) = &args.primary {
        config.ai.primary = Some(p.clone());
    }
    // `--verify` asks for a verdict on standard commands too.
    config.verify_standard |= args.verify;
    let assessed = assess(&config, &command, &cwd, &repo, &|| {})?;
    let tier = assessed.assessment.tier;
    let op = Operation::Command {
        assessed: assessed.clone(),
        door: "check".into(),
        session: None,
    };
    if args.explain {
        let root = assessed.root.as_deref().unwrap_or(&assessed.cwd);
        // What `--verify` would send: it asks about every tier above none.
        return super::print_explained(ctx, &config, &op, root, args.json, tier > Tier::None);
    }
    let decided = if args.verify && tier > Tier::None {
        let root = assessed
            .root
            .clone()
            .unwrap_or_else(|| assessed.cwd.clone());
        Some(
            Run::new(ctx, &config, &root, &op, started)
                .through(Interaction::Report)
                .run()?,
        )
    } else {
        None
    };
    let (decision, status) = match &decided {
        None if decide::stops_unjudged(tier, config.verify_standard) => {
            ("needs a verdict", ExitStatus::Refused)
        }
        None => ("allowed", ExitStatus::Allowed),
        Some(d) if d.status == ExitStatus::Allowed => ("allowed", ExitStatus::Allowed),
        Some(d) if d.status == ExitStatus::Error => ("refused", ExitStatus::Error),
        Some(_) => ("refused", ExitStatus::Refused),
    };
    let no_results: &[VerifierResult] = &[];
    let verdict = decided.as_ref().map(|d| CheckVerdict {
        result: d.plan.result,
        confidence: d.combined.as_ref().and_then(|c| c.confidence),
        concerns: d.combined.as_ref().map_or(&[][..], |c| &c.concerns),
        verifiers: d.results.as_deref().unwrap_or(no_results),
    });
    if args.json {
        let report = CheckReport {
            command: &assessed.command,
            cwd: &assessed.cwd,
            tier,
            reasons: once(&assessed.assessment.refs)
                .map(|r| CheckReason {
                    tier: r.tier,
                    reason: &r.reason,
                })
                .collect(),
            facts: &assessed.facts,
            decision,
            verdict,
        };
        ui::out(&serde_json::to_string(&report).context("cannot print the report")?);
    } else {
        ui::out(&format!("tier: {tier}"));
        for r in once(&assessed.assessment.refs) {
            ui::out(&format!("  [{}] {}", r.tier, one_line(&r.reason, 400)));
        }
        if let Some(v) = &verdict {
            ui::out(&format!("verdict: {}", v.result));
            for c in v.concerns {
                ui::out(&format!("  concern: {}", one_line(c, 300)));
            }
        }
        ui::out(&format!("decision: {decision}"));
    }
    Ok(status)
}

/// The reasons in the order found, each once: a function's body is judged
/// where the line defines it and again where it calls it, with the same
/// words.
fn once(
    reasons: &[crate::classify::vocab::RefRisk],
) -> impl Iterator<Item = &crate::classify::vocab::RefRisk> {
    let mut seen = std::collections::HashSet::new();
    reasons
        .iter()
        .filter(move |r| seen.insert((r.tier, r.reason.as_str())))
}
