//! The decision protocol carried out for one operation, whatever door it
//! came through: overrides, verifiers, the decision, the prompt or the
//! refusal, the review request and the audit line. The operation is a
//! [`Subject`]; this module knows no push or commit.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Result;
use jiff::Timestamp;
use wait_timeout::ChildExt;

use super::Subject;
use crate::audit::{self, Record};
use crate::classify::{Assessment, Tier};
use crate::config::{Config, Mode};
use crate::context::Ctx;
use crate::env::vars;
use crate::policy::{self, Action, Plan, Skip};
use crate::prompt::{self, Prompter};
use crate::review::{self, ReviewRef, ReviewRequest};
use crate::verdict::{self, Combined, VerifierResult};
use crate::{ExitStatus, report, ui, verifiers};

/// The reasons worth reading, at most 100 (every ref is in `refs` anyway).
pub fn capped_reasons(assessment: &Assessment) -> Vec<String> {
    const MAX: usize = 100;
    let all = assessment.reasons(Tier::Standard);
    let mut out: Vec<String> = all.iter().take(MAX).map(|r| r.reason.clone()).collect();
    if all.len() > MAX {
        out.push(format!("... and {} more", all.len() - MAX));
    }
    out
}

/// One decision being made.
pub(crate) struct Run<'a> {
    ctx: &'a Ctx,
    config: &'a Config,
    root: &'a Path,
    subject: &'a dyn Subject,
    started: Instant,
    operation_id: String,
    refs: Vec<ReviewRef>,
    warnings: Vec<String>,
    results: Vec<VerifierResult>,
    combined: Option<Combined>,
    ai: Option<crate::ai::AiRun>,
    /// In observe mode, what enforcing would have decided, if not to allow.
    would_decide: Option<String>,
    /// What the subject did once allowed (rescue refs written).
    rescued: Vec<String>,
}

impl<'a> Run<'a> {
    pub(crate) fn new(
        ctx: &'a Ctx,
        config: &'a Config,
        root: &'a Path,
        subject: &'a dyn Subject,
        started: Instant,
    ) -> Self {
        let refs = subject.review_refs();
        let operation_id = subject.operation_id(root);
        Self {
            ctx,
            config,
            root,
            subject,
            started,
            operation_id,
            refs,
            warnings: Vec::new(),
            results: Vec::new(),
            combined: None,
            ai: None,
            would_decide: None,
            rescued: Vec::new(),
        }
    }

    pub(crate) fn warn(&mut self, w: String) {
        ui::warn(&w);
        self.warnings.push(w);
    }

    pub(crate) fn decide_and_act(mut self) -> Result<ExitStatus> {
        let tier = self.subject.assessment().tier;
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
            return Ok(self.observe(plan));
        }
        Ok(self.act(&plan, tty.as_ref(), &state))
    }

    /// Observe mode: the decision is shown and logged, and the push goes on.
    fn observe(mut self, plan: Plan) -> ExitStatus {
        let would = match &plan.action {
            Action::Allow { .. } => None,
            Action::Ask => Some(("asked", "the verifiers' concerns".to_owned())),
            Action::Refuse { why, .. } => Some(("refused", why.clone())),
        };
        if let Some((word, why)) = &would {
            self.warn(format!(
                "observe mode: enforcing would have {word} this {} ({why}); it goes on",
                self.subject.noun()
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
        let tier = self.subject.assessment().tier;
        let programs: Vec<_> = verifiers::discover(self.config, &places)
            .into_iter()
            .filter(|p| p.runs_for(tier))
            .collect();
        let (results, ai_run) = super::ask_verifiers(
            self.ctx,
            self.config,
            self.subject,
            self.root,
            &self.operation_id,
            &programs,
            true,
            interactive,
        )?;
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
        let mut text = self.subject.describe();
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

    fn act(mut self, plan: &Plan, tty: Option<&prompt::Tty>, state: &Path) -> ExitStatus {
        let (decision, status) = match &plan.action {
            Action::Allow { warning } => {
                if let Some(w) = warning {
                    let tier = self.subject.assessment().tier;
                    let noun = self.subject.noun();
                    self.warn(format!("{w}; allowing this {tier} {noun}"));
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
                if tty.confirm(&format!("Allow this {}?", self.subject.noun())) {
                    ("asked-yes", ExitStatus::Allowed)
                } else {
                    ui::info(&format!("{} refused at the terminal", self.subject.noun()));
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
        if status == ExitStatus::Allowed {
            match self.subject.on_allow() {
                Ok(done) => {
                    for line in &done {
                        ui::info(line);
                    }
                    self.rescued = done;
                }
                Err(e) => {
                    let why = format!("{e:#}");
                    ui::info(&format!(
                        "refused: {why}\nThe {} was allowed, but vouch could not save what it would remove, so it is refused.",
                        self.subject.noun()
                    ));
                    self.warnings.push(why);
                    return self.log(plan, "refused", ExitStatus::Refused);
                }
            }
        }
        self.log(plan, decision, status)
    }

    fn print_refusal(&self, why: &str, review_path: Option<&Path>, approvable: bool) {
        let mut text = format!("refused: {why}\n{}", self.summary());
        if approvable {
            let noun = self.subject.noun();
            text.push_str(&format!(
                "To let this exact {noun} through, a person at a terminal runs:\n    vouch approve {}\nand runs it again within 15 minutes.\n",
                self.operation_id
            ));
            text.push_str(&format!(
                "Or skip verification for one {noun}, with a reason that is logged:\n    VOUCH_SKIP=\"<why this is safe>\" {}\n",
                self.subject.again()
            ));
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
            remote: self.subject.remote().unwrap_or_default(),
            tier: self.subject.assessment().tier.to_string(),
            refs: self.refs.clone(),
            reasons: capped_reasons(self.subject.assessment()),
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
            .env(vars::VOUCH_NESTED, std::process::id().to_string())
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

    fn log(&self, plan: &Plan, decision: &str, status: ExitStatus) -> ExitStatus {
        let combined = self.combined.as_ref();
        let refs = self.subject.record_refs();
        let record = Record {
            risk_tier: self.subject.assessment().tier.to_string(),
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
            branch: self.subject.branch(),
            remote: self.subject.remote(),
            refs,
            reasons: capped_reasons(self.subject.assessment()),
            warnings: self.warnings.clone(),
            mode: (self.config.mode == Mode::Observe).then(|| "observe".to_owned()),
            would_decide: self.would_decide.clone(),
            builtin: Some(self.subject.builtin()),
            verifiers: self.results.clone(),
            rescued: self.rescued.clone(),
            ..Record::new(
                &self.operation_id,
                self.subject.noun(),
                self.subject.hook(),
                &self.root.display().to_string(),
            )
        };
        let written = self.ctx.log_path(self.config).and_then(|path| {
            audit::append(
                &path,
                self.config.log_max_bytes,
                self.config.log_keep,
                &record,
            )
        });
        if let Err(e) = written {
            // A verified or overridden decision must leave its line; a routine
            // one (unverified, or observe mode) must not break git.
            // A refusal stands as it is, with the warning.
            let must_log = self.config.mode != Mode::Observe
                && status == ExitStatus::Allowed
                && (plan.result != "skipped" || plan.override_reason.is_some());
            if must_log {
                ui::error(&e.context(
                    "every decision on a guarded operation must be logged, so this one is refused; fix the log path (config `[log] path` or `VOUCH_LOG`)",
                ));
                return ExitStatus::Error;
            }
            ui::warn(&format!("{e:#}; this decision was not logged"));
        }
        status
    }
}
