//! `git vouch hook pre-commit`: the staged change, judged (SPEC 2.3). The same
//! decision protocol as a push (`runner.rs`), with a commit as its subject.

use anyhow::Result;

use super::{Door, HookCall, Judge, Judged};
use crate::classify::facts::StagedFacts;
use crate::classify::operation::Operation;
use crate::classify::staged::{Reading, classify_commit};
use crate::doors::args::PreCommitArgs;
use crate::doors::context::Ctx;
use crate::doors::exit::ExitStatus;
use crate::measure::git::Repo;

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

    /// The staged change, read with git2, else with the git command line
    /// (reftable, SHA-256, split and sparse indexes). When neither can read
    /// it, nothing is measured and the commit is judged at least high, as
    /// the other doors judge what they cannot measure: the decision
    /// table's row decides it (issue 39 item 5).
    fn judge(&mut self, ctx: &Ctx, _input: &[u8]) -> Result<Judge> {
        let repo = Repo::open_for_hook(&ctx.cwd);
        let root = repo.as_ref().map_or_else(|_| ctx.cwd.clone(), Repo::root);
        // A config file that cannot be used is left out, as at every door (SPEC 3.2).
        let config = ctx.config(Some(&root));
        let reading = Reading::new(&config.commit);
        let (staged, warning) = match repo.and_then(|r| r.staged(&reading)) {
            Ok(s) => (s, None),
            Err(e) => match crate::measure::git::cli_staged(&ctx.cwd, &reading) {
                Some(s) => (
                    s,
                    Some(format!(
                        "git2 cannot read this commit's staged change ({e:#}); read with the git command line instead"
                    )),
                ),
                None => (
                    StagedFacts {
                        unmeasured: Some(format!("{e:#}")),
                        ..StagedFacts::default()
                    },
                    Some(format!(
                        "neither git2 nor git can read this repository ({e:#}): nothing could be measured, so the commit is treated as at least high"
                    )),
                ),
            },
        };
        let assessment = classify_commit(&staged, &config.commit);
        let op = Operation::Commit { staged, assessment };
        Ok(Judge::Operation(Box::new(Judged {
            warnings: warning.into_iter().collect(),
            ..Judged::new(op, config, root)
        })))
    }

    fn judged_elsewhere(&self, ctx: &Ctx) -> bool {
        super::judged_elsewhere(ctx, "pre-commit", self.args.hook_dir.as_deref())
    }
}
