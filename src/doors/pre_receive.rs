//! `git vouch hook pre-receive`: the server door (SPEC 3.5). The pipeline of
//! SPEC section 1 for a push arriving at the team's git server, where no
//! client can skip it (`--no-verify` only skips the client's own hooks).
//!
//! stdin (`<old> <new> <ref>` lines) -> facts measured on the server ->
//! tier -> verifiers -> decision -> the pusher reads it as `remote:` lines
//! -> audit line with the pusher. Always headless. Skips and approvals come
//! as push options (`git push -o vouch.skip="..."`, `-o vouch.approve=<id>`);
//! the server's git config decides who may skip (`vouch.allowSkip`,
//! `vouch.skipUser`). The policy is the server account's vouch config plus
//! `.vouch.toml` in the bare repository's git directory: never anything
//! pushed.

use anyhow::Result;

use super::{Door, HookCall, Judge, Judged};
use crate::classify::facts::ServerFacts;
use crate::classify::facts::{PushFacts, RefFacts};
use crate::classify::operation::Operation;
use crate::classify::{classify_server, protected_changes};
use crate::decide::Skip;
use crate::doors::args::PreReceiveArgs;
use crate::doors::context::Ctx;
use crate::doors::runner::Interaction;
use crate::input::hooks::{ForceHint, PushUpdate};
use crate::input::receive::{PushOptions, Pusher, parse_pre_receive};
use crate::measure::git::Repo;
use crate::{doors::exit::ExitStatus, interact::review};

/// git's count of push options; each is `GIT_PUSH_OPTION_<n>`.
const PUSH_OPTION_COUNT: &str = "GIT_PUSH_OPTION_COUNT";
/// Set by git while the pushed objects wait in quarantine.
const QUARANTINE_PATH: &str = "GIT_QUARANTINE_PATH";

/// The pre-receive hook: a push arriving at the server.
struct PreReceive<'a> {
    args: &'a PreReceiveArgs,
}

/// Runs the pre-receive hook.
pub fn pre_receive(ctx: &Ctx, args: &PreReceiveArgs) -> Result<ExitStatus> {
    super::drive(ctx, &mut PreReceive { args })
}

impl Door for PreReceive<'_> {
    /// The server's own hook (a forge's, an admin's) is the chained one:
    /// it runs first and may refuse.
    fn call(&self) -> HookCall {
        HookCall::new("pre-receive", "push", self.args.hook_dir.clone())
    }

    /// Always headless: what is printed reaches the pusher as `remote:`
    /// lines, and skips and approvals travel as push options.
    fn interaction(&self) -> Interaction {
        Interaction::Server
    }

    fn judge(&mut self, ctx: &Ctx, input: &[u8]) -> Result<Judge> {
        let updates = match parse_pre_receive(input) {
            Ok(u) => u,
            // The shared line error names pre-push: say which hook read it.
            Err(e) => {
                let problem = format!("pre-receive input line {}: {}", e.line, e.problem);
                return Ok(self.call().unreadable(&problem));
            }
        };
        if updates.is_empty() {
            return Ok(Judge::Pass);
        }
        let env = ctx.env.as_ref();
        let quarantine = env.var_os(QUARANTINE_PATH).is_some();
        let (mut facts, git_dir, skip_policy, repo_warning, committer) =
            match Repo::open_for_history(&ctx.cwd) {
                Ok(repo) => {
                    let committer = updates
                        .iter()
                        .find(|u| !u.is_delete())
                        .and_then(|u| repo.committer_of(&u.local_oid));
                    (
                        repo.receive_facts(&updates, quarantine),
                        repo.git_dir(),
                        repo.skip_policy(),
                        None,
                        committer,
                    )
                }
                Err(e) => {
                    let why = format!("{e:#}");
                    (
                        unmeasured(&ctx.cwd.display().to_string(), updates, &why, quarantine),
                        ctx.cwd.clone(),
                        // Nothing can be read from the server's config: no skips.
                        crate::input::receive::SkipPolicy {
                            allow: crate::input::receive::AllowSkip::Never,
                            users: Vec::new(),
                        },
                        Some(format!(
                            "git2 cannot measure this repository ({why}): nothing could be measured, so every change is treated as at least high"
                        )),
                        None,
                    )
                }
            };
        facts.pusher = Pusher::find(|name| env.var(name), committer);

        // The server's policy: its account's config and the bare repository's
        // own `.vouch.toml` (in the git directory, where no push can write).
        let config = ctx.config(Some(&git_dir));
        let assessment = classify_server(&facts, &config.policy);
        let mut notes = Vec::new();

        let count = env
            .var(PUSH_OPTION_COUNT)
            .and_then(|c| c.trim().parse::<usize>().ok())
            .unwrap_or(0);
        let options: Vec<String> = (0..count.min(1000))
            .filter_map(|i| env.var(&format!("GIT_PUSH_OPTION_{i}")))
            .collect();
        let options = PushOptions::parse(&options);
        let protected = protected_changes(&facts, &assessment, &config.policy);
        let pusher_shown = facts
            .pusher
            .as_ref()
            .map_or_else(|| "an unknown pusher".to_owned(), Pusher::shown);
        // Only a push option skips here: the server's own environment does not.
        let skip = match options.skip.as_deref() {
            None => Skip::No,
            Some("") => {
                notes.push(
                    "`-o vouch.skip` needs a reason (`git push -o vouch.skip=\"<why this is safe>\"`): this push is judged as usual".to_owned(),
                );
                Skip::No
            }
            Some(reason) => match skip_policy.may_skip(facts.pusher.as_ref(), &protected) {
                Ok(()) => Skip::Reason(reason.to_owned()),
                Err(why) => {
                    notes.push(format!(
                        "`-o vouch.skip` is not honoured: {why}; this push is judged as usual"
                    ));
                    Skip::No
                }
            },
        };

        let op = Operation::ServerPush { facts, assessment };
        // The id the runner binds an approval to; worked out here only when
        // the pusher names one, to say when it is another push's.
        if let Some(asked) = options.approve.as_deref() {
            let id = review::id_of(&op, &git_dir);
            if asked != id {
                notes.push(format!(
                    "`-o vouch.approve={}` names another operation: this push is `{id}` (its refs or their values differ)",
                    crate::input::text::one_line(asked, 80)
                ));
            }
        }
        let mut warnings: Vec<String> = repo_warning.into_iter().collect();
        warnings.extend(notes);
        Ok(Judge::Operation(Box::new(Judged {
            warnings,
            skip: Some((skip, format!("push option vouch.skip from {pusher_shown}"))),
            ..Judged::new(op, config, git_dir)
        })))
    }
}

/// Facts for a repository git2 cannot open: only what the lines say.
fn unmeasured(git_dir: &str, updates: Vec<PushUpdate>, why: &str, quarantine: bool) -> ServerFacts {
    let refs = updates
        .into_iter()
        .map(|u| RefFacts::unmeasured(u, why))
        .collect();
    ServerFacts {
        push: PushFacts {
            remote: git_dir.to_owned(),
            url: git_dir.to_owned(),
            refs,
            force: ForceHint::Forced,
            ..PushFacts::default()
        },
        pusher: None,
        quarantine,
    }
}
