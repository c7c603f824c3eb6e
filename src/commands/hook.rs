//! `vouch hook pre-push`: the whole pipeline of SPEC section 1 for a push.
//!
//! stdin -> updates -> facts -> tier -> verifiers -> decision -> prompt or
//! refusal -> audit line. A hook refuses only by returning `Refused`; an
//! internal error prints what to do and exits 2 (git refuses the push too).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use jiff::Timestamp;
use wait_timeout::ChildExt;

use crate::audit::{self, Record, RefRecord};
use crate::classify::{Assessment, Tier, classify_push};
use crate::cli::PrePushArgs;
use crate::config::{Config, Mode};
use crate::context::Ctx;
use crate::env::vars;
use crate::facts::{Change, PushFacts, RefFacts, RemoteTip, redact_url};
use crate::git::Repo;
use crate::hooks::{ForceHint, PushUpdate, parse_pre_push, parse_push_argv};
use crate::policy::{self, Action, Plan, Skip};
use crate::prompt::{self, Prompter};
use crate::review::{self, ReviewRef, ReviewRequest};
use crate::verdict::{self, Combined, VerifierResult};
use crate::{ExitStatus, parent, report, ui, verifiers};

/// Runs the pre-push hook.
pub fn pre_push(ctx: &Ctx, args: &PrePushArgs) -> Result<ExitStatus> {
    let started = Instant::now();
    // Read all of git's input before anything else (STYLE section 5).
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .context("cannot read the ref lines git passes on stdin")?;

    if let Some(dir) = &args.hook_dir
        && let Some(code) = run_chained(dir, "pre-push", &[&args.remote, &args.url], &input)?
        && code != 0
    {
        let why = format!("the chained hook `pre-push.local` refused this push (exit {code})");
        ui::info(&why);
        log_refusal(ctx, &args.url, &why);
        return Ok(ExitStatus::Refused);
    }

    let updates = match parse_pre_push(&input) {
        Ok(u) => u,
        Err(e) => {
            ui::error(&anyhow::anyhow!(
                "{e}\nThis push is refused because vouch cannot tell what it changes. If git itself sent this, please report it; to push anyway, use `git push --no-verify`"
            ));
            log_refusal(ctx, &args.url, &e.to_string());
            return Ok(ExitStatus::Error);
        }
    };
    if updates.iter().any(|u| u.lossy_name) {
        ui::warn("a ref name is not UTF-8; it is shown with replacement characters");
    }
    let push_args = parent::git_ancestor_argv()
        .map(|argv| parse_push_argv(&argv))
        .unwrap_or_default();
    // Even with no lines the repository is opened: a mirror remote
    // (`remote.<name>.mirror`) deletes refs that git never shows the hook.
    let (facts, root, repo_warning) = match Repo::open_for_hook(&ctx.cwd) {
        Ok(repo) => (
            repo.push_facts(&args.remote, &args.url, updates, &push_args),
            repo.root(),
            None,
        ),
        Err(e) => {
            let why = format!("{e:#}");
            match crate::git::cli_push_facts(
                &ctx.cwd,
                &args.remote,
                &args.url,
                updates.clone(),
                &push_args,
            ) {
                Some(facts) => (
                    facts,
                    ctx.cwd.clone(),
                    Some(format!(
                        "git2 cannot open this repository ({why}); measured with the git command line instead"
                    )),
                ),
                None => (
                    unmeasured(&args.remote, &args.url, updates, push_args.force, &why),
                    ctx.cwd.clone(),
                    Some(format!(
                        "git2 cannot open this repository ({why}): nothing could be measured, so every change is treated as at least high"
                    )),
                ),
            }
        }
    };
    if facts.refs.is_empty() && facts.mirror_unknown.is_none() {
        return Ok(ExitStatus::Allowed);
    }
    let config = match ctx.load_config(Some(&root)) {
        Ok(c) => c,
        Err(e) => {
            log_refusal(ctx, &args.url, &format!("{e:#}"));
            return Err(e.context(
                "the push is refused until the config is fixed (or push with `git push --no-verify`)",
            ));
        }
    };
    let assessment = classify_push(&facts, &config.policy);
    // Observe mode logs everything: it is how people see what vouch would do.
    if assessment.tier == Tier::None && !config.log_all && config.mode != Mode::Observe {
        return Ok(ExitStatus::Allowed);
    }

    let mut run = Run::new(ctx, &config, &root, &facts, &assessment, started);
    if let Some(w) = repo_warning {
        run.warn(w);
    }
    for w in &config.warnings {
        run.warn(w.clone());
    }
    run.decide_and_act()
}

/// Logs a push refused before it could be judged (bad input, bad config, a
/// chained hook's refusal): every decision has its audit line.
/// The config may be the broken thing, so only the environment's log path
/// (`VOUCH_LOG`) or the default is used.
fn log_refusal(ctx: &Ctx, url: &str, why: &str) {
    let Ok(config) = Config::resolve(&crate::config::ConfigInputs::default(), ctx.env.as_ref())
    else {
        return;
    };
    let repo = ctx.cwd.display().to_string();
    let url = redact_url(url);
    let record = Record {
        risk_tier: "unknown".into(),
        result: "unavailable".into(),
        decision: "refused".into(),
        remote: Some(url.clone()),
        session_id: ctx.env.var(vars::VOUCH_SESSION),
        warnings: vec![crate::facts::redact_text(why)],
        ..Record::new(
            &review::operation_id("push", &repo, &url, &[]),
            "push",
            "pre-push",
            &repo,
        )
    };
    let written = ctx
        .log_path(&config)
        .and_then(|path| audit::append(&path, config.log_max_bytes, &record));
    if let Err(e) = written {
        ui::warn(&format!("this refusal could not be logged: {e:#}"));
    }
}

/// The reasons worth reading, at most 100 (every ref is in `refs` anyway).
fn capped_reasons(assessment: &Assessment) -> Vec<String> {
    const MAX: usize = 100;
    let all = assessment.reasons(Tier::Standard);
    let mut out: Vec<String> = all.iter().take(MAX).map(|r| r.reason.clone()).collect();
    if all.len() > MAX {
        out.push(format!("... and {} more", all.len() - MAX));
    }
    out
}

/// Facts for a repository git2 cannot open: only what the lines say.
fn unmeasured(
    remote: &str,
    url: &str,
    updates: Vec<PushUpdate>,
    force: ForceHint,
    why: &str,
) -> PushFacts {
    let refs = updates
        .into_iter()
        .map(|u| {
            let change = Change::of(&u);
            let mut f = RefFacts::new(u, change);
            if matches!(change, Change::Delete | Change::Rewrite) {
                f.remote_tip = RemoteTip::Unknown(why.to_owned());
            }
            f
        })
        .collect();
    PushFacts {
        remote: redact_url(remote),
        url: redact_url(url),
        refs,
        force,
        ..PushFacts::default()
    }
}

/// Runs `<dir>/<hook>.local` with `input` on stdin; `None` if there is none.
fn run_chained(dir: &Path, hook: &str, args: &[&str], input: &[u8]) -> Result<Option<i32>> {
    let path = dir.join(format!("{hook}{}", crate::install::LOCAL_SUFFIX));
    if !path.is_file() {
        return Ok(None);
    }
    // As git does with hooks: one that is not executable is skipped, with a word.
    if !verifiers::is_executable(&path) {
        ui::warn(&format!(
            "`{}` is not executable, so it was not run",
            path.display()
        ));
        return Ok(None);
    }
    let mut child = Command::new(&path)
        .args(args)
        .stdin(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run the chained hook `{}`", path.display()))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A hook may exit without reading all of its input.
        stdin.write_all(input).ok();
    }
    let status = child
        .wait()
        .with_context(|| format!("cannot wait for `{}`", path.display()))?;
    Ok(Some(status.code().unwrap_or(1)))
}

/// One decision being made.
struct Run<'a> {
    ctx: &'a Ctx,
    config: &'a Config,
    root: &'a Path,
    facts: &'a PushFacts,
    assessment: &'a Assessment,
    started: Instant,
    operation_id: String,
    refs: Vec<ReviewRef>,
    warnings: Vec<String>,
    results: Vec<VerifierResult>,
    combined: Option<Combined>,
    ai: Option<crate::ai::AiRun>,
    /// In observe mode, what enforcing would have decided, if not to allow.
    would_decide: Option<String>,
}

impl<'a> Run<'a> {
    fn new(
        ctx: &'a Ctx,
        config: &'a Config,
        root: &'a Path,
        facts: &'a PushFacts,
        assessment: &'a Assessment,
        started: Instant,
    ) -> Self {
        let refs = review::refs_of(facts);
        let operation_id =
            review::operation_id("push", &root.display().to_string(), &facts.url, &refs);
        Self {
            ctx,
            config,
            root,
            facts,
            assessment,
            started,
            operation_id,
            refs,
            warnings: Vec::new(),
            results: Vec::new(),
            combined: None,
            ai: None,
            would_decide: None,
        }
    }

    fn warn(&mut self, w: String) {
        ui::warn(&w);
        self.warnings.push(w);
    }

    fn decide_and_act(mut self) -> Result<ExitStatus> {
        let tier = self.assessment.tier;
        let env = self.ctx.env.as_ref();
        let state = self.ctx.dirs()?.state;
        let skip = Skip::from_value(env.var(vars::VOUCH_SKIP).as_deref());
        let approved = policy::is_verified(tier, self.config.verify_standard)
            && skip == Skip::No
            && review::take_approval(&state, &self.operation_id, &self.refs, Timestamp::now());
        let observe = self.config.mode == Mode::Observe;
        // Observe mode never asks: nobody is kept waiting.
        let tty = if observe {
            None
        } else {
            prompt::interactive(env)
        };
        let plan = if let Some(plan) =
            policy::before_verifying(tier, self.config.verify_standard, &skip, approved)
        {
            plan
        } else {
            self.run_verifiers(tty.is_some())?;
            if tty.is_some() {
                self.show_ai_verdict();
            }
            let combined = self.combined.as_ref().expect("verifiers ran");
            policy::decide(
                tier,
                &combined.outcome,
                tty.is_some(),
                self.config.on_unavailable.for_tier(tier),
            )
        };
        if observe {
            return self.observe(plan);
        }
        self.act(&plan, tty.as_ref(), &state)
    }

    /// Observe mode: the decision is shown and logged, and the push goes on.
    fn observe(mut self, plan: Plan) -> Result<ExitStatus> {
        let would = match &plan.action {
            Action::Allow { .. } => None,
            Action::Ask => Some(("asked", "the verifiers' concerns".to_owned())),
            Action::Refuse { why, .. } => Some(("refused", why.clone())),
        };
        if let Some((word, why)) = &would {
            self.warn(format!(
                "observe mode: enforcing would have {word} this push ({why}); it goes on"
            ));
        }
        self.would_decide = would.map(|(w, _)| w.to_owned());
        let allowed = Plan {
            action: Action::Allow { warning: None },
            ..plan
        };
        self.log(&allowed, "allowed", ExitStatus::Allowed)
    }

    /// Verifier programs and the AI verifier, in parallel.
    fn run_verifiers(&mut self, interactive: bool) -> Result<()> {
        let places = self.ctx.verifier_places(self.root)?;
        let tier = self.assessment.tier;
        let programs: Vec<_> = verifiers::discover(self.config, &places)
            .into_iter()
            .filter(|p| p.runs_for(tier))
            .collect();
        let asked = super::Asked {
            facts: self.facts,
            assessment: self.assessment,
            root: self.root,
            operation_id: &self.operation_id,
        };
        let (results, ai_run) =
            super::ask_verifiers(self.ctx, self.config, &asked, &programs, true, interactive)?;
        self.results = results;
        if let Some(run) = ai_run {
            for w in &run.warnings {
                self.warn(w.clone());
            }
            self.ai = Some(run);
        }
        self.combined = Some(verdict::combine(&self.results));
        Ok(())
    }

    /// At a terminal: who judged and what they said.
    fn show_ai_verdict(&self) {
        let Some(run) = &self.ai else { return };
        let Some(verdict) = run.result.as_ref().and_then(|r| r.verdict.as_ref()) else {
            return;
        };
        let mut line = format!(
            "{} ({}) says {}, confidence {:.2}{}{}: {}",
            run.provider.as_deref().unwrap_or("?"),
            run.model.as_deref().unwrap_or("?"),
            format!("{:?}", verdict.effective()).to_lowercase(),
            verdict.confidence,
            if run.cached { ", cached" } else { "" },
            if run.escalated { ", as tiebreaker" } else { "" },
            crate::text::one_line(&verdict.reasoning, 200)
        );
        for c in &verdict.concerns {
            line.push_str(&format!("\n  concern: {}", crate::text::one_line(c, 200)));
        }
        ui::info(&line);
    }

    fn summary(&self) -> String {
        let mut text = format!(
            "{} [{} risk]\n{}",
            report::describe_push(self.facts),
            self.assessment.tier,
            report::push_details(self.facts, self.assessment)
        );
        text.push_str(&report::verifier_details(
            &self.results,
            self.combined.as_ref(),
        ));
        if let Some(c) = &self.combined {
            for concern in &c.concerns {
                text.push_str(&format!(
                    "  concern: {}\n",
                    crate::text::one_line(concern, 300)
                ));
            }
        }
        text
    }

    fn act(mut self, plan: &Plan, tty: Option<&prompt::Tty>, state: &Path) -> Result<ExitStatus> {
        let (decision, status) = match &plan.action {
            Action::Allow { warning } => {
                if let Some(w) = warning {
                    let tier = self.assessment.tier;
                    self.warn(format!("{w}; allowing this {tier} push"));
                }
                if let Some(reason) = &plan.override_reason {
                    ui::info(&format!("allowed without verification: {reason} (logged)"));
                }
                ("allowed", ExitStatus::Allowed)
            }
            Action::Ask => {
                let tty = tty.expect("ask is planned only with a terminal");
                tty.show(&self.summary());
                if plan.result == "unavailable" {
                    tty.show("No verifier could judge this operation.");
                }
                if tty.confirm("Allow this push?") {
                    ("asked-yes", ExitStatus::Allowed)
                } else {
                    ui::info("push refused at the terminal");
                    ("asked-no", ExitStatus::Refused)
                }
            }
            Action::Refuse { why, review } => {
                let review_path = if *review {
                    self.write_review(why, state)
                } else {
                    None
                };
                self.print_refusal(why, review_path.as_deref(), *review);
                ("refused", ExitStatus::Refused)
            }
        };
        self.log(plan, decision, status)
    }

    fn print_refusal(&self, why: &str, review_path: Option<&Path>, approvable: bool) {
        let mut text = format!("refused: {why}\n{}", self.summary());
        if approvable {
            text.push_str(&format!(
                "To let this exact push through, a person at a terminal runs:\n    vouch approve {}\nand pushes again within 15 minutes.\n",
                self.operation_id
            ));
            text.push_str("Or skip verification for one push, with a reason that is logged:\n    VOUCH_SKIP=\"<why this is safe>\" git push ...\n");
        }
        if let Some(p) = review_path {
            text.push_str(&format!("Review request: {}\n", p.display()));
        }
        ui::info(&text);
    }

    fn write_review(&mut self, why: &str, state: &Path) -> Option<PathBuf> {
        let request = ReviewRequest {
            operation_id: self.operation_id.clone(),
            created_at: Timestamp::now().to_string(),
            repo: self.root.display().to_string(),
            remote: self.facts.url.clone(),
            tier: self.assessment.tier.to_string(),
            refs: self.refs.clone(),
            reasons: capped_reasons(self.assessment),
            concerns: self
                .combined
                .as_ref()
                .map(|c| c.concerns.clone())
                .unwrap_or_default(),
            refused_because: why.to_owned(),
            how_to_approve: format!("vouch approve {} (at a terminal)", self.operation_id),
        };
        match review::write_request(state, &request) {
            Ok(path) => {
                self.notify(&path);
                Some(path)
            }
            Err(e) => {
                self.warn(format!("cannot write the review request: {e:#}"));
                None
            }
        }
    }

    /// Runs the configured notify command with the review request.
    fn notify(&mut self, path: &Path) {
        let Some(command) = self.config.notify_command.clone() else {
            return;
        };
        let result = Command::new(&command[0])
            .args(&command[1..])
            .current_dir(self.root)
            .env("VOUCH_REVIEW_FILE", path)
            .env("VOUCH_OPERATION_ID", &self.operation_id)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .and_then(|mut child| {
                if let Some(status) = child.wait_timeout(Duration::from_secs(10))? {
                    Ok(status.code())
                } else {
                    child.kill().ok();
                    child.wait().ok();
                    Ok(None)
                }
            });
        match result {
            Ok(Some(0)) => {}
            Ok(Some(code)) => self.warn(format!(
                "the notify command `{}` exited {code}",
                command.join(" ")
            )),
            Ok(None) => self.warn(format!(
                "the notify command `{}` timed out after 10 s",
                command.join(" ")
            )),
            Err(e) => self.warn(format!(
                "cannot run the notify command `{}`: {e}",
                command.join(" ")
            )),
        }
    }

    fn log(&self, plan: &Plan, decision: &str, status: ExitStatus) -> Result<ExitStatus> {
        let combined = self.combined.as_ref();
        let refs = self
            .facts
            .refs
            .iter()
            .zip(&self.assessment.refs)
            .map(|(f, risk)| RefRecord {
                remote_ref: f.remote_ref.clone(),
                old_oid: f.old_oid.clone(),
                new_oid: f.new_oid.clone(),
                change: f.change.as_str().to_owned(),
                tier: risk.tier.to_string(),
                rule: risk.rule.as_str().to_owned(),
                remote_tip: f.remote_tip.as_str().to_owned(),
                lost_commits: f.lost.as_ref().map(|l| l.count),
            })
            .collect();
        let record = Record {
            risk_tier: self.assessment.tier.to_string(),
            primary_provider: self.ai.as_ref().and_then(|a| a.primary.clone()),
            verifier_provider: self
                .ai
                .as_ref()
                .and_then(|a| a.provider.clone())
                .or_else(|| (!self.results.is_empty()).then(|| "programs".to_owned())),
            verifier_model: self.ai.as_ref().and_then(|a| a.model.clone()),
            tokens_in: self.ai.as_ref().and_then(|a| a.tokens_in),
            tokens_out: self.ai.as_ref().and_then(|a| a.tokens_out),
            cost_usd: self.ai.as_ref().and_then(|a| a.cost_usd),
            retries: self.ai.as_ref().map_or(0, |a| a.retries),
            escalated: self.ai.as_ref().is_some_and(|a| a.escalated),
            cached: self.ai.as_ref().is_some_and(|a| a.cached),
            result: plan.result.into(),
            decision: decision.into(),
            confidence: combined.and_then(|c| c.confidence),
            scores: combined.and_then(|c| c.scores),
            concerns: combined.map(|c| c.concerns.clone()).unwrap_or_default(),
            was_overridden: plan.override_reason.is_some(),
            override_reason: plan.override_reason.clone(),
            latency_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            session_id: self.ctx.env.var(vars::VOUCH_SESSION),
            branch: self.facts.branch.clone(),
            remote: Some(self.facts.url.clone()),
            refs,
            reasons: capped_reasons(self.assessment),
            warnings: self.warnings.clone(),
            mode: (self.config.mode == Mode::Observe).then(|| "observe".to_owned()),
            would_decide: self.would_decide.clone(),
            builtin: Some(crate::classify::builtin_result(self.facts, self.assessment)),
            verifiers: self.results.clone(),
            ..Record::new(
                &self.operation_id,
                "push",
                "pre-push",
                &self.root.display().to_string(),
            )
        };
        let path = self.ctx.log_path(self.config)?;
        if let Err(e) = audit::append(&path, self.config.log_max_bytes, &record) {
            ui::error(&e.context(
                "every decision on a guarded push must be logged, so this push is refused; fix the log path (config `[log] path` or `VOUCH_LOG`)",
            ));
            return Ok(ExitStatus::Error);
        }
        Ok(status)
    }
}
