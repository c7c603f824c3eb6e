//! `vouch hook pre-commit`: the staged change, judged (SPEC 2.3). The same
//! decision protocol as a push (`decide.rs`), with a commit as its subject.

use std::time::Instant;

use anyhow::Result;

use super::Subject;
use super::decide::Run;
use super::hook::{log_refusal, run_chained};
use crate::audit::RefRecord;
use crate::classify::{Assessment, Tier};
use crate::cli::PreCommitArgs;
use crate::config::Mode;
use crate::context::Ctx;
use crate::facts::StagedFacts;
use crate::git::Repo;
use crate::review::ReviewRef;
use crate::staged::{classify_commit, inspected};
use crate::text::one_line;
use crate::verdict::VerifierResult;
use crate::{ExitStatus, ui};

/// Runs the pre-commit hook.
pub fn pre_commit(ctx: &Ctx, args: &PreCommitArgs) -> Result<ExitStatus> {
    let started = Instant::now();
    if let Some(dir) = &args.hook_dir
        && let Some(code) = run_chained(dir, "pre-commit", &[], b"")?
        && code != 0
    {
        let why = format!("the chained hook `pre-commit.local` refused this commit (exit {code})");
        ui::info(&why);
        log_refusal(ctx, ("commit", "pre-commit"), "", &why);
        return Ok(ExitStatus::Refused);
    }
    let repo = match Repo::open_for_hook(&ctx.cwd) {
        Ok(r) => r,
        Err(e) => {
            // Never break a commit because the repository cannot be read here.
            ui::warn(&format!("{e:#}: this commit is not checked"));
            return Ok(ExitStatus::Allowed);
        }
    };
    let root = repo.root();
    // A config file that cannot be used is left out, as at every door (SPEC 3.2).
    let config = ctx.config(Some(&root));
    let staged = match repo.staged(&|path| inspected(path, &config.commit)) {
        Ok(s) => s,
        Err(e) => {
            // libgit2 cannot read every index (split or sparse indexes): never break a commit for it.
            ui::warn(&format!("{e:#}: this commit is not checked"));
            return Ok(ExitStatus::Allowed);
        }
    };
    let assessment = classify_commit(&staged, &config.commit);
    if assessment.tier == Tier::None && !config.log_all && config.mode != Mode::Observe {
        for w in &config.warnings {
            ui::warn(w);
        }
        return Ok(ExitStatus::Allowed);
    }
    let subject = CommitSubject {
        staged: &staged,
        assessment: &assessment,
    };
    let mut run = Run::new(ctx, &config, &root, &subject, started);
    for w in &config.warnings {
        run.warn(w.clone());
    }
    run.decide_and_act()
}

/// A commit, as the decision protocol sees it.
pub struct CommitSubject<'a> {
    /// The staged change.
    pub staged: &'a StagedFacts,
    /// Its tier.
    pub assessment: &'a Assessment,
}

impl Subject for CommitSubject<'_> {
    fn noun(&self) -> &'static str {
        "commit"
    }

    fn hook(&self) -> &'static str {
        "pre-commit"
    }

    fn assessment(&self) -> &Assessment {
        self.assessment
    }

    fn describe(&self) -> String {
        let (added, deleted) = self.staged.line_totals();
        let mut text = format!(
            "commit of {} files (+{added} -{deleted} lines){} [{} risk]\n",
            self.staged.files.len(),
            self.staged
                .branch
                .as_ref()
                .map(|b| format!(" on `{}`", one_line(b, 100)))
                .unwrap_or_default(),
            self.assessment.tier
        );
        for r in self.assessment.reasons(Tier::Standard) {
            text.push_str(&format!("  [{}] {}\n", r.tier, one_line(&r.reason, 300)));
        }
        text
    }

    fn review_refs(&self) -> Vec<ReviewRef> {
        // An approval covers exactly these files with exactly this content.
        self.staged
            .files
            .iter()
            .map(|f| ReviewRef {
                remote_ref: f.path.clone(),
                old_oid: f.old_oid.clone(),
                new_oid: f.new_oid.clone(),
            })
            .collect()
    }

    fn record_refs(&self) -> Vec<RefRecord> {
        // The findings, one per line of the audit record (the path is in the reason).
        self.assessment
            .refs
            .iter()
            .map(|r| RefRecord::finding("staged", r))
            .collect()
    }

    fn remote(&self) -> Option<String> {
        None
    }

    fn branch(&self) -> Option<String> {
        self.staged.branch.clone()
    }

    fn builtin(&self) -> VerifierResult {
        // The reasons name the files and lines already.
        crate::classify::builtin_from(self.assessment, |_| serde_json::Value::Null)
    }

    fn prompt(&self, repo_name: &str) -> String {
        crate::ai::prompt::commit_prompt(self.staged, self.assessment, repo_name)
    }

    fn facts_value(&self) -> serde_json::Value {
        serde_json::to_value(self.staged).unwrap_or_default()
    }

    fn changes_value(&self) -> serde_json::Value {
        serde_json::to_value(&self.staged.files).unwrap_or_default()
    }

    fn again(&self) -> String {
        "git commit ...".into()
    }
}
