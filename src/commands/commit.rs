//! `git vouch hook pre-commit`: the staged change, judged (SPEC 2.3). The same
//! decision protocol as a push (`decide.rs`), with a commit as its subject.

use std::time::Instant;

use anyhow::Result;

use super::decide::Run;
use super::door::HookCall;
use crate::classify::staged::{Reading, classify_commit};
use crate::cli::PreCommitArgs;
use crate::context::Ctx;
use crate::git::Repo;
use crate::operation::Operation;
use crate::policy;
use crate::{ExitStatus, ui};

/// Runs the pre-commit hook.
pub fn pre_commit(ctx: &Ctx, args: &PreCommitArgs) -> Result<ExitStatus> {
    let started = Instant::now();
    let call = HookCall {
        hook: "pre-commit",
        noun: "commit",
        dir: args.hook_dir.as_deref(),
        args: &[],
        url: "",
    };
    // git passes the pre-commit hook no input.
    if let Some(refused) = call.chained(ctx, b"")? {
        return Ok(refused);
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
    // Snapshot retention, when the agent door has noted more snapshots
    // than are kept (a person's commit; `retain` skips an agent's).
    if crate::git::prune_due(&repo.git_dir()) {
        super::undo::retain(ctx, &root);
    }
    let staged = match repo.staged(&Reading::new(&config.commit)) {
        Ok(s) => s,
        Err(e) => {
            // libgit2 cannot read every index (split or sparse indexes): never break a commit for it.
            ui::warn(&format!("{e:#}: this commit is not checked"));
            return Ok(ExitStatus::Allowed);
        }
    };
    let assessment = classify_commit(&staged, &config.commit);
    if policy::answers_at_once(assessment.tier, &config, false) {
        for w in &config.warnings {
            ui::warn(w);
        }
        return Ok(ExitStatus::Allowed);
    }
    // Another run of vouch judges this commit (git config's, or vouch's
    // hook in front of lefthook's): not twice.
    if super::setup::judged_elsewhere(ctx, "pre-commit", args.hook_dir.as_deref()) {
        return Ok(ExitStatus::Allowed);
    }
    let op = Operation::Commit { staged, assessment };
    let mut run = Run::new(ctx, &config, &root, &op, started);
    for w in &config.warnings {
        run.warn(w.clone());
    }
    run.decide_and_act()
}
