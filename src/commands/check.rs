//! `vouch check`: a shell command, judged before it runs (SPEC 2.4). The
//! agent door (`agent.rs`) uses the same assessment.
//!
//! The command is parsed and classified by the pure [`crate::shell`]; then
//! every match that asks for facts is measured in the real repository (what
//! `reset --hard` would discard, which commits `branch -D` would orphan,
//! what `push --force` would destroy on the remote), and the facts settle
//! the tier: a clean work tree makes `git reset --hard` harmless, a push
//! whose remote tip was fetched is not one that destroys unseen commits.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;

use super::decide::{Interaction, Run};
use crate::classify::{Assessment, RefRisk, Rule, Tier, classify_local, classify_push};
use crate::cli::CheckArgs;
use crate::config::Config;
use crate::context::Ctx;
use crate::git::{self, Discards, LazyRepo, Moment, Repo};
use crate::hooks::{GitCommand, parse_push_argv};
use crate::operation::{Assessed, Operation};
use crate::policy::AuditResult;
use crate::shell::{self, Facts, Match, Rules};
use crate::text::one_line;
use crate::verdict::VerifierResult;
use crate::{ExitStatus, ui};

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
    for m in &classification.matches {
        let (mut tier, mut note) = measure(config, m, cwd, repo);
        // Facts describe the repository before the line runs; an earlier
        // command may change it first, so they cannot lower this one.
        if m.after_change && m.facts.is_some() && tier < m.tier {
            tier = m.tier;
            note = Some(format!(
                "{}an earlier command of the line may change the repository first: the facts measured now cannot lower it",
                note.map(|n| format!("{n}; ")).unwrap_or_default()
            ));
        }
        let mut reason = format!(
            "{}: `{}`",
            m.reason,
            redact(&one_line(&shell_words::join(&m.command.argv), 200))
        );
        if let Some(note) = note {
            reason.push_str(&format!(" ({note})"));
            facts.push(note);
        }
        refs.push(RefRisk {
            tier,
            rule: Rule::Command,
            reason,
        });
    }
    for problem in &classification.problems {
        refs.push(RefRisk {
            tier: Tier::High,
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

/// `git clean`'s `-d` and its `-e` patterns.
fn clean_options(argv: &[String]) -> (bool, Vec<String>) {
    let mut dirs = false;
    let mut excludes = Vec::new();
    let mut i = 2;
    while let Some(arg) = argv.get(i) {
        i += 1;
        if arg == "--" {
            break;
        }
        if let Some(value) = arg.strip_prefix("--exclude=") {
            excludes.push(value.to_owned());
        } else if arg == "--exclude" {
            excludes.extend(argv.get(i).cloned());
            i += 1;
        } else if let Some(letters) = arg.strip_prefix('-')
            && !letters.starts_with('-')
        {
            for (at, c) in letters.char_indices() {
                if c == 'd' {
                    dirs = true;
                }
                if c == 'e' {
                    let rest = &letters[at + 1..];
                    if rest.is_empty() {
                        excludes.extend(argv.get(i).cloned());
                        i += 1;
                    } else {
                        excludes.push(rest.to_owned());
                    }
                    break;
                }
            }
        }
    }
    (dirs, excludes)
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
    if !meta.is_file() {
        return Ok(None);
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

/// The tier of one match once its facts are measured, and what they say.
fn measure(config: &Config, m: &Match, cwd: &Path, repo: &LazyRepo) -> (Tier, Option<String>) {
    let Some(facts) = &m.facts else {
        return (m.tier, None);
    };
    let here;
    let repo = match &m.dir {
        Some(dir) => {
            here = git::repo_at(&cwd.join(dir));
            here.as_ref()
        }
        None => repo.get(),
    };
    let Some(repo) = repo else {
        return (
            m.tier,
            Some("not inside a git repository here: facts not measured".into()),
        );
    };
    let argv = &m.command.argv;
    let git = GitCommand::parse(argv).unwrap_or_default();
    let sub = git.sub.as_str();
    // Another repository named by `--git-dir`, `--work-tree` or `GIT_DIR`:
    // the facts here would be the wrong ones.
    let elsewhere = m
        .command
        .git
        .as_ref()
        .is_some_and(|g| g.git_dir.is_some() || g.work_tree.is_some())
        || m.command
            .env
            .iter()
            .any(|(k, _)| k == "GIT_DIR" || k == "GIT_WORK_TREE");
    if elsewhere {
        return (
            m.tier,
            Some("the command names another git directory or work tree: facts not measured".into()),
        );
    }
    match facts {
        Facts::Worktree { target, paths } => {
            let discards = match sub {
                // From the index: unstaged changes go. From a commit
                // (`checkout <rev> -- <paths>`, `restore --source`): staged ones too.
                "checkout" | "restore"
                    if !paths.is_empty()
                        && target.is_none()
                        && !git.has_flag(&["--staged", "-S"]) =>
                {
                    Discards::UnstagedChanges
                }
                "worktree" | "submodule" => return (m.tier, None),
                _ => Discards::TrackedChanges,
            };
            let loss = if sub == "clean" {
                let (dirs, excludes) = clean_options(argv);
                repo.clean_loss(
                    git.has_flag(&["-x"]),
                    git.has_flag(&["-X"]),
                    dirs,
                    &excludes,
                    paths,
                )
            } else if sub == "reset" && git.has_flag(&["--merge", "--keep"]) {
                // `--merge` and `--keep` stop rather than lose local changes.
                Ok(git::WorktreeLoss {
                    what: "local changes (`--merge`/`--keep` keep them or stop)".into(),
                    ..git::WorktreeLoss::default()
                })
            } else {
                repo.worktree_loss(discards, paths)
            };
            let loss = match loss {
                Ok(l) => l,
                Err(e) => return (m.tier, Some(format!("{e:#}"))),
            };
            let mut tier = m.tier;
            let mut note = if loss.files == 0 {
                tier = Tier::None;
                format!("nothing would be lost: no {}", loss.what)
            } else {
                format!(
                    "would discard {} file(s) with {}: {}",
                    loss.files,
                    loss.what,
                    loss.sample.join(", ")
                )
            };
            // `reset --hard <older>` also moves the branch back.
            if sub == "reset"
                && let (Some(target), Some(head)) = (target, repo.head_ref())
                && let Some(update) = repo.planned_update(&head, Some(target))
            {
                let local = repo.local_facts(&[update], Moment::Planned);
                let a = classify_local(&local, &config.policy);
                if a.tier > Tier::None {
                    tier = tier.max(a.tier);
                    for r in a.reasons(Tier::Standard) {
                        note.push_str(&format!("; {}", r.reason));
                    }
                }
            }
            (tier, Some(note))
        }
        Facts::Branch { names } => {
            let deleting = git.has_flag(&["-D", "-d", "--delete"]);
            let updates: Vec<_> = if deleting {
                names
                    .iter()
                    .filter_map(|n| repo.planned_update(n, None))
                    .collect()
            } else {
                names
                    .first()
                    .and_then(|n| {
                        repo.planned_update(n, Some(names.get(1).map_or("HEAD", String::as_str)))
                    })
                    .into_iter()
                    .collect()
            };
            if updates.is_empty() {
                return (
                    Tier::None,
                    Some("no such branch here: nothing would be lost".into()),
                );
            }
            let local = repo.local_facts(&updates, Moment::Planned);
            let a = classify_local(&local, &config.policy);
            let note = a
                .refs
                .iter()
                .map(|r| r.reason.clone())
                .collect::<Vec<_>>()
                .join("; ");
            let note = if note.is_empty() {
                "the branch's commits are all on other refs: nothing would be lost".into()
            } else {
                note
            };
            (a.tier, Some(note))
        }
        Facts::Stash { entries } => {
            let all = repo.stash_entries();
            if all.is_empty() {
                return (
                    Tier::None,
                    Some("the stash is empty: nothing would be lost".into()),
                );
            }
            let dropped = if git.action() == Some("clear") {
                all
            } else if entries.is_empty() {
                all.into_iter().take(1).collect()
            } else {
                entries.clone()
            };
            (m.tier, Some(format!("would drop {}", dropped.join("; "))))
        }
        Facts::Push { remote, refspecs } => {
            let push_args = parse_push_argv(argv);
            if push_args.mirror {
                return (m.tier, None);
            }
            // `--prune` and wildcard refspecs delete or move refs the
            // planned push does not list: the rule's tier stands.
            if argv.iter().any(|a| a == "--prune") || refspecs.iter().any(|r| r.contains('*')) {
                return (
                    m.tier,
                    Some("the push prunes or matches refs by pattern: facts not measured".into()),
                );
            }
            let delete = git.has_flag(&["-d", "--delete"]);
            match repo.planned_push(remote.as_deref(), refspecs, delete) {
                Ok((remote, url, updates, ls_note)) => {
                    let facts = repo.push_facts(&remote, &url, updates, &push_args);
                    let a = classify_push(&facts, &config.policy);
                    // The remote's tips unknown: the facts cannot lower the tier.
                    let tier = if ls_note.is_some() {
                        a.tier.max(m.tier)
                    } else {
                        a.tier
                    };
                    let mut notes: Vec<String> = a
                        .reasons(Tier::Standard)
                        .iter()
                        .map(|r| r.reason.clone())
                        .collect();
                    if notes.is_empty() {
                        notes.push("the push would destroy nothing on the remote".into());
                    }
                    notes.extend(ls_note);
                    (tier, Some(notes.join("; ")))
                }
                Err(e) => (
                    m.tier,
                    Some(format!("the push could not be resolved: {e:#}")),
                ),
            }
        }
    }
}

/// What `vouch check --json` prints: the contract scripts read.
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
    /// What the repository's facts say.
    pub facts: &'a [String],
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

/// `vouch check`.
pub fn check(ctx: &Ctx, args: &CheckArgs) -> Result<ExitStatus> {
    let started = Instant::now();
    let command = match (&args.operation, args.command.is_empty()) {
        (Some(op), true) => op.clone(),
        (None, false) => shell_words::join(&args.command),
        (Some(_), false) => {
            anyhow::bail!("give the command either after `--` or with `--operation`, not both")
        }
        (None, true) => anyhow::bail!(
            "no command to check: `vouch check -- git reset --hard` or `vouch check --operation \"git reset --hard\"`"
        ),
    };
    let cwd = ctx.dir(args.cwd.as_ref());
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
        None if tier >= Tier::High => ("needs a verdict", ExitStatus::Refused),
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
            reasons: assessed
                .assessment
                .refs
                .iter()
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
        for r in &assessed.assessment.refs {
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
