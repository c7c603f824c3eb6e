//! `git vouch hook pre-commit`: the staged change, judged (SPEC 2.3). The same
//! decision protocol as a push (`runner.rs`), with a commit as its subject.

use anyhow::Result;

use super::{Door, HookCall, Judge, Judged};
use crate::classify::staged::{Reading, classify_commit};
use crate::cli::PreCommitArgs;
use crate::context::Ctx;
use crate::git::Repo;
use crate::operation::Operation;
use crate::{ExitStatus, interact::ui};

/// The pre-commit hook: the staged change.
struct PreCommit<'a> {
    args: &'a PreCommitArgs,
}

/// Runs the pre-commit hook.
pub fn pre_commit(ctx: &Ctx, args: &PreCommitArgs) -> Result<ExitStatus> {
    super::drive(ctx, &mut PreCommit { args })
}

impl Door for PreCommit<'_> {
    fn call(&self) -> HookCall {
        HookCall::new("pre-commit", "commit", self.args.hook_dir.clone())
    }

    /// git passes the pre-commit hook no input.
    fn input(&self, _ctx: &Ctx, _call: &HookCall) -> Result<Vec<u8>> {
        Ok(Vec::new())
    }

    fn judge(&mut self, ctx: &Ctx, _input: &[u8]) -> Result<Judge> {
        let repo = match Repo::open_for_hook(&ctx.cwd) {
            Ok(r) => r,
            Err(e) => {
                // Never break a commit because the repository cannot be read here.
                ui::warn(&format!("{e:#}: this commit is not checked"));
                return Ok(Judge::Pass);
            }
        };
        let root = repo.root();
        // A config file that cannot be used is left out, as at every door (SPEC 3.2).
        let config = ctx.config(Some(&root));
        let staged = match repo.staged(&Reading::new(&config.commit)) {
            Ok(s) => s,
            Err(e) => {
                // libgit2 cannot read every index (split or sparse indexes): never break a commit for it.
                ui::warn(&format!("{e:#}: this commit is not checked"));
                return Ok(Judge::Pass);
            }
        };
        let assessment = classify_commit(&staged, &config.commit);
        let op = Operation::Commit { staged, assessment };
        Ok(Judge::Operation(Box::new(Judged::new(op, config, root))))
    }

    fn judged_elsewhere(&self, ctx: &Ctx) -> bool {
        crate::commands::setup::judged_elsewhere(ctx, "pre-commit", self.args.hook_dir.as_deref())
    }
}
