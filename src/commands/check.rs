//! `git vouch check`: a shell command, judged before it runs (SPEC 2.4). The
//! agent door (`agent.rs`) uses the same assessment.
//!
//! The command is parsed and classified by the pure [`crate::classify::shell`]; then
//! every match that asks for facts is measured in the real repository by
//! the git adapter ([`git::command_facts`]: what `reset --hard` would
//! discard, which commits `branch -D` would orphan, what `push --force`
//! would destroy on the remote), and the pure
//! [`crate::classify::classify_command`] turns those facts into the tier:
//! facts -> tier, once.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::classify::shell::{self, Facts, Match, Rules};
use crate::classify::{Assessment, RefRisk, Rule, Tier, classify_command};
use crate::cli::CheckArgs;
use crate::config::Config;
use crate::context::Ctx;
use crate::facts::CommandFacts;
use crate::git::{self, LazyRepo, Repo};
use crate::operation::{Assessed, Operation, StepFacts};
use crate::policy::{self, AuditResult};
use crate::runner::{Interaction, Run};
use crate::text::one_line;
use crate::verify::verdict::VerifierResult;
use crate::{exit::ExitStatus, interact::ui};

/// Classifies `command` as it would run in `cwd` (in `repo`, the
/// repository there, opened only if an alias or a fact needs it), and
/// measures its facts.
pub fn assess(config: &Config, command: &str, cwd: &Path, repo: &LazyRepo) -> Result<Assessed> {
    let rules = Rules::with_user(&config.rules).context("the `[[rules]]` in the config")?;
    let classification = shell::classify_with(
        command,
        &rules,
        &|name| repo.get().and_then(|r| r.alias(name)),
        &|path, cd| read_script(cwd, path, cd),
    );
    let mut refs = Vec::new();
    let mut facts = Vec::new();
    // Asked once, and only when a tier depends on it.
    let reached = std::cell::OnceCell::new();
    let hook_judges = || {
        *reached.get_or_init(|| crate::commands::status::hook_reached(cwd, crate::install::REF_TX))
    };
    for m in &classification.matches {
        // A dry run is not an operation (issue 35 item 3): nothing is
        // measured, whatever rule it matched.
        if crate::input::hooks::GitCommand::parse(&m.command.argv).is_some_and(|g| g.is_dry_run()) {
            let step = redact(&one_line(&shell_words::join(&m.command.argv), 200));
            refs.push(RefRisk {
                tier: Tier::None,
                rule: Rule::Command,
                reason: format!("{}: `{step}` (a dry run: it changes nothing)", m.reason),
            });
            continue;
        }
        let measured = m.facts.as_ref().map(|f| measure(f, m, cwd, repo));
        let (tier, note) = classify_command(
            m.tier,
            m.after_change,
            measured.as_ref(),
            &config.policy,
            &hook_judges,
        );
        let step = redact(&one_line(&shell_words::join(&m.command.argv), 200));
        let mut reason = format!("{}: `{step}`", m.reason);
        if let Some(note) = &note {
            reason.push_str(&format!(" ({note})"));
        }
        if let Some(measured) = measured {
            facts.push(StepFacts {
                step,
                measured: Some(measured),
                note,
            });
        }
        refs.push(RefRisk {
            tier,
            rule: Rule::Command,
            reason,
        });
    }
    for problem in &classification.problems {
        refs.push(RefRisk {
            tier: problem.tier(),
            rule: Rule::Command,
            reason: format!("cannot read the whole command: {problem}"),
        });
    }
    let tier = refs.iter().map(|r| r.tier).max().unwrap_or(Tier::None);
    Ok(Assessed {
        command: redact(command),
        cwd: cwd.to_path_buf(),
        assessment: Assessment {
            tier,
            refs,
            push: Vec::new(),
        },
        facts,
        root: repo.root(),
        branch: repo.opened().and_then(Repo::current_branch),
    })
}

/// The largest script file the agent door reads to judge it.
const SCRIPT_LIMIT: u64 = 64 * 1024;

/// Reads a script the command line runs (`sh scripts/clean.sh`, `./x.sh`),
/// relative to `cwd` and the `cd` targets before it: `Ok(None)` when there
/// is none or it is a binary, `Err` with the reason when it cannot be read.
fn read_script(cwd: &Path, path: &str, cd: &[String]) -> Result<Option<String>, String> {
    let mut file = cwd.to_path_buf();
    for dir in cd {
        file.push(dir);
    }
    file.push(path);
    let meta = match std::fs::metadata(&file) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if meta.is_dir() {
        return Ok(None);
    }
    // A named pipe or a device: what it holds is only known when it runs,
    // and reading it could wait forever.
    if !meta.is_file() {
        return Err("it is not a regular file (a named pipe or a device)".into());
    }
    if meta.len() > SCRIPT_LIMIT {
        return Err(format!(
            "it is {} bytes, more than the {SCRIPT_LIMIT} vouch reads",
            meta.len()
        ));
    }
    let bytes = std::fs::read(&file).map_err(|e| e.to_string())?;
    if bytes.iter().take(1024).any(|b| *b == 0) {
        return Ok(None);
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| "it is not UTF-8 text".to_owned())
}

/// A command as it may be shown and logged: credentials in URLs and tokens
/// that look like keys are masked (`psql postgres://admin:pw@db ...`).
fn redact(text: &str) -> String {
    crate::text::redact_secrets(&crate::text::redact_text(text))
}

/// The facts one match asks for, measured in the repository where its
/// command runs (`cd`, `git -C`).
fn measure(facts: &Facts, m: &Match, cwd: &Path, repo: &LazyRepo) -> CommandFacts {
    let here;
    let repo = match &m.dir {
        Some(dir) => {
            here = git::repo_at(&cwd.join(dir));
            here.as_ref()
        }
        None => repo.get(),
    };
    git::command_facts(repo, facts, &m.command)
}

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
    let mut config = ctx.config(repo.root().as_deref());
    for w in &config.warnings {
        ui::warn(w);
    }
    if let Some(p) = &args.primary {
        config.ai.primary = Some(p.clone());
    }
    // `--verify` asks for a verdict on standard commands too.
    config.verify_standard |= args.verify;
    let assessed = assess(&config, &command, &cwd, &repo)?;
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
        None if policy::stops_unjudged(tier, config.verify_standard) => {
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
fn once(reasons: &[crate::vocab::RefRisk]) -> impl Iterator<Item = &crate::vocab::RefRisk> {
    let mut seen = std::collections::HashSet::new();
    reasons
        .iter()
        .filter(move |r| seen.insert((r.tier, r.reason.as_str())))
}
