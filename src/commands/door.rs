//! What every git-hook door does before it measures anything (issue 27
//! item 1), decided once for all of them: git's input is read whole first
//! (STYLE section 5); the chained `<hook>.local` runs first, and its
//! refusal is this hook's refusal, said and logged; input vouch cannot read
//! is refused, said and logged, with one exit code (1) at every door.

use std::io::Read as _;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};

use super::decide::Run;
use super::pre_push::run_chained;
use crate::context::Ctx;
use crate::operation::{Operation, Unjudged};
use crate::policy::{Decision, Plan};
use crate::text::{redact_text, redact_url};
use crate::{ExitStatus, ui};

/// One call of a git hook: which hook, what it guards, and what git gave it.
pub(crate) struct HookCall<'a> {
    /// The hook's name (`pre-push`).
    pub hook: &'static str,
    /// What it guards, as the audit line names it (`push`, `commit`).
    pub noun: &'static str,
    /// The directory the hook was run from, where a chained
    /// `<hook>.local` lives.
    pub dir: Option<&'a Path>,
    /// git's arguments, given to the chained hook as they are.
    pub args: &'a [&'a str],
    /// The remote's URL, for a push (redacted before it is logged).
    pub url: &'a str,
}

impl HookCall<'_> {
    /// git's input: what the fast path read already, or all of stdin.
    pub fn input(&self, ctx: &Ctx) -> Result<Vec<u8>> {
        if let Some(input) = &ctx.stdin {
            return Ok(input.clone());
        }
        let mut input = Vec::new();
        std::io::stdin().read_to_end(&mut input).with_context(|| {
            format!(
                "cannot read what git passes the {} hook on stdin",
                self.hook
            )
        })?;
        Ok(input)
    }

    /// Runs the chained `<hook>.local` with `input`; its exit code, `None`
    /// when there is none.
    pub fn run_chained(&self, ctx: &Ctx, input: &[u8]) -> Result<Option<i32>> {
        let Some(dir) = self.dir else {
            return Ok(None);
        };
        // lefthook's script, chained: the vouch it runs from
        // `lefthook-local.yml` must not judge this operation again, and can
        // prove it runs under this one.
        let local = crate::install::local_path(&dir.join(self.hook));
        let armed = (crate::install::managers::script_of(&local)
            == Some(crate::install::managers::Manager::Lefthook))
        .then(|| ctx.dirs().ok())
        .flatten()
        .map(|dirs| crate::parent::Nested::arm(&dirs.state));
        let front = armed.as_ref().map(|_| crate::parent::nested_marker());
        run_chained(
            ctx.env.as_ref(),
            dir,
            self.hook,
            self.args,
            input,
            front.as_deref(),
        )
    }

    /// Runs the chained hook; `Some(Refused)` when it refused, said and
    /// logged (the operation is refused before vouch judges it).
    pub fn chained(&self, ctx: &Ctx, input: &[u8]) -> Result<Option<ExitStatus>> {
        match self.run_chained(ctx, input)? {
            Some(code) if code != 0 => Ok(Some(self.refused_by_chained(ctx, code))),
            _ => Ok(None),
        }
    }

    /// The chained hook refused with `code`: said and logged.
    pub fn refused_by_chained(&self, ctx: &Ctx, code: i32) -> ExitStatus {
        let why = format!(
            "the chained hook `{}.local` refused this {} (exit {code})",
            self.hook, self.noun
        );
        ui::info(&why);
        self.log_refusal(ctx, &why);
        ExitStatus::Refused
    }

    /// git's input cannot be read: what it changes is unknown, so the
    /// operation is refused, said (with `problem`, which names the line)
    /// and logged.
    pub fn unreadable(&self, ctx: &Ctx, problem: &str) -> ExitStatus {
        ui::error(&anyhow::anyhow!(
            "{problem}\nThis {} is refused because vouch cannot tell what it changes. If git itself sent this, please report it",
            self.noun
        ));
        self.log_refusal(ctx, problem);
        ExitStatus::Refused
    }

    /// Logs a refusal made before the operation was judged.
    pub fn log_refusal(&self, ctx: &Ctx, why: &str) {
        // A broken config file is left out: the user's log path still counts.
        let config = ctx.config(None);
        let op = Operation::Unjudged(Unjudged {
            remote: (!self.url.is_empty()).then(|| redact_url(self.url)),
            ..Unjudged::new(self.noun, self.hook, None)
        });
        let plan = Plan::refused_unjudged(why.to_owned());
        let root = ctx.cwd.clone();
        Run::new(ctx, &config, &root, &op, Instant::now()).log_decided(
            &plan,
            Decision::Refused,
            Some(redact_text(why)),
        );
    }
}
