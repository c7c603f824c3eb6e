//! The decision protocol carried out for one operation, whatever door it
//! came through: overrides, verifiers, the decision, the prompt or the
//! refusal, the review request and the audit line. The operation is a
//! [`Operation`]; this module knows no push or commit.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Result;

use wait_timeout::ChildExt;

use crate::audit::{self, Record};
use crate::classify::config::{Config, Mode};
use crate::classify::operation::{Operation, View};
use crate::decide::{self, Action, Asker, AuditResult, Decision, Plan, Situation, Skip};
use crate::doors::context::Ctx;
use crate::interact::prompt::Prompter;
use crate::interact::review::{self, ReviewRequest};
use crate::platform::env::vars;
use crate::verify::ai::AiRun;
use crate::verify::programs::{self, Program};
use crate::verify::verdict::{self, Combined, VerifierResult};
use crate::{doors::exit::ExitStatus, interact::report, interact::ui};

/// How the outcome reaches whoever started the operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interaction {
    /// A git hook: a person at `/dev/tty` is asked; headless, refusals are
    /// printed for the person or script that runs git.
    Git,
    /// An AI agent's pre-tool hook: nothing is printed here, the door words
    /// the outcome in the agent's protocol.
    Agent {
        /// The agent's name, for the audit line.
        name: &'static str,
        /// Its protocol can ask its person.
        can_ask: bool,
    },
    /// `git vouch check --verify`: headless; the command prints its own report.
    Report,
    /// The server door (`pre-receive`): always headless; what is printed
    /// reaches the pusher as `remote:` lines, and skips and approvals
    /// travel as push options.
    Server,
}

/// What the runner decided, for the door to word.
#[derive(Debug, Clone)]
pub(crate) struct Decided {
    /// The plan of the decision table.
    pub plan: Plan,
    /// How the door exits.
    pub status: ExitStatus,
    /// The door's time budget ran out before the verdict.
    pub late: bool,
    /// Why the audit line could not be written, when it could not.
    pub unlogged: Option<String>,
    /// What the verifiers concluded, when they ran.
    pub combined: Option<Combined>,
    /// Every verifier's result, when they ran.
    pub results: Option<Vec<VerifierResult>>,
}

/// One decision being made: the one runner of every door. Facts and tier
/// come from the door (its `Operation`); the runner carries the operation
/// through overrides, verifiers, the decision table, the interaction and the
/// audit line.
pub(crate) struct Run<'a> {
    ctx: &'a Ctx,
    config: &'a Config,
    root: &'a Path,
    op: &'a Operation,
    /// What the door does once the operation is allowed, before git goes
    /// on (rescue refs); an error refuses it after all.
    on_allow: Option<&'a dyn Fn() -> Result<Vec<String>>>,
    interaction: Interaction,
    /// The door's time budget (an agent's deadline).
    budget: Option<Duration>,
    session: Option<String>,
    started: Instant,
    /// The operation's one view (its id, tier, refs...).
    view: View,
    warnings: Vec<String>,
    results: Vec<VerifierResult>,
    combined: Option<Combined>,
    ai: Option<crate::verify::ai::AiRun>,
    /// What the subject did once allowed (rescue refs written).
    rescued: Vec<String>,
    /// The agent whose command runs this git hook, if any.
    driven_by: Option<&'static str>,
    /// Why the audit line could not be written, when it could not.
    unlogged: Option<String>,
    /// A skip the door read itself (a push option), in place of `VOUCH_SKIP`,
    /// with the words its override reason starts with.
    skip: Option<(Skip, String)>,
    /// A hook manager draws a progress line at the terminal while vouch
    /// runs (lefthook's spinner): the question gets a line of its own.
    beside_spinner: bool,
}

impl<'a> Run<'a> {
    pub(crate) fn new(
        ctx: &'a Ctx,
        config: &'a Config,
        root: &'a Path,
        op: &'a Operation,
        started: Instant,
    ) -> Self {
        let view = op.view(root);
        Self {
            ctx,
            config,
            root,
            op,
            on_allow: None,
            interaction: Interaction::Git,
            budget: None,
            session: session(ctx, op),
            started,
            view,
            warnings: Vec::new(),
            results: Vec::new(),
            combined: None,
            ai: None,
            rescued: Vec::new(),
            driven_by: None,
            unlogged: None,
            skip: None,
            beside_spinner: false,
        }
    }

    /// The question is asked beside a hook manager's progress line.
    pub(crate) fn beside_spinner(mut self, beside: bool) -> Self {
        self.beside_spinner = beside;
        self
    }

    /// Runs `then` once the operation is allowed (not in observe mode).
    pub(crate) fn on_allow(mut self, then: &'a dyn Fn() -> Result<Vec<String>>) -> Self {
        self.on_allow = Some(then);
        self
    }

    /// Reaches the outcome through `interaction` instead of a git hook's.
    pub(crate) fn through(mut self, interaction: Interaction) -> Self {
        self.interaction = interaction;
        self
    }

    /// A skip the door read itself (the server's push option), in place of
    /// `VOUCH_SKIP`; `label` names it in the override reason.
    pub(crate) fn skip(mut self, skip: Skip, label: String) -> Self {
        self.skip = Some((skip, label));
        self
    }

    /// A deadline for the whole decision (verifier programs are cut to it).
    pub(crate) fn within(mut self, budget: Duration) -> Self {
        self.budget = Some(budget);
        self
    }

    pub(crate) fn warn(&mut self, w: String) {
        if self.is_git() {
            ui::warn(&w);
        }
        self.warnings.push(w);
    }

    /// Whether vouch prints the outcome itself (a git hook, at the client
    /// or at the server).
    fn is_git(&self) -> bool {
        matches!(self.interaction, Interaction::Git | Interaction::Server)
    }

    /// Overrides, verifiers, the decision table, the interaction, the audit line.
    pub(crate) fn run(mut self) -> Result<Decided> {
        let tier = self.op.assessment().tier;
        let env = self.ctx.env.as_ref();
        let dirs = self.ctx.dirs()?;
        let state = dirs.state;
        let skip = match &self.skip {
            Some((skip, _)) => skip.clone(),
            None => Skip::from_value(env.var(vars::VOUCH_SKIP).as_deref()),
        };
        let observe = self.config.mode == Mode::Observe;
        let approved = decide::is_verified(tier, self.config.verify_standard)
            && skip == Skip::No
            // Without a home directory the approvals would live in the
            // repository, where anything that writes files can forge one.
            && dirs.fallback.is_none()
            && review::take_approval(
                &state,
                &self.view.id,
                &self.view.bound,
                self.ctx.now(),
            );
        // A git hook run from an agent's command: the agent is not the person.
        let driven = (self.interaction == Interaction::Git)
            .then(|| crate::platform::env::agent_driving(env))
            .flatten();
        self.driven_by = driven;
        // What the person approved at the agent's prompt, exactly as it was
        // shown to them (issue 35 item 1): one decision per operation.
        let asked = if driven.is_some()
            && !approved
            && decide::is_verified(tier, self.config.verify_standard)
            && skip == Skip::No
            && dirs.fallback.is_none()
        {
            crate::measure::parent::git_ancestor_pid()
                .zip(crate::measure::parent::git_ancestor_argv())
                .and_then(|(pid, argv)| {
                    crate::interact::asked::take(
                        &state,
                        self.root,
                        self.op,
                        pid,
                        &argv,
                        self.ctx.now(),
                    )
                })
        } else {
            None
        };
        let approved = approved || asked.is_some();
        if let Some(asked) = &asked
            && self.session.is_none()
        {
            self.session.clone_from(&asked.session);
        }
        let mut situation = Situation {
            tier,
            verify_standard: self.config.verify_standard,
            skip,
            approved,
            asker: Asker::Nobody,
            on_unavailable: self.config.on_unavailable.for_tier(tier),
            observe,
            late: false,
        };
        let mut tty = None;
        let plan = if let Some(plan) = decide::before_verifying(&situation) {
            plan
        } else {
            // Only now is the terminal worth opening. In observe mode the
            // table still knows who could be asked (to log what enforcing
            // would do), but its plan never asks.
            tty = match self.interaction {
                Interaction::Git if driven.is_none() => self.ctx.terminal(),
                _ => None,
            };
            situation.asker = match self.interaction {
                Interaction::Git if driven.is_some() => Asker::Agent { can_ask: false },
                Interaction::Git if tty.is_some() => Asker::Terminal,
                Interaction::Agent { can_ask, .. } => Asker::Agent { can_ask },
                Interaction::Server => Asker::Pusher,
                Interaction::Git | Interaction::Report => Asker::Nobody,
            };
            self.run_verifiers(tty.is_some())?;
            situation.late = self.budget.is_some_and(|b| self.started.elapsed() >= b);
            let combined = self.combined.as_ref().expect("verifiers ran");
            decide::decide(&situation, &combined.outcome)
        };
        if let Some(would) = &plan.would
            && self.is_git()
        {
            let (word, why) = match would.as_ref() {
                Action::Refuse { why, .. } => ("refused", why.clone()),
                _ => ("asked about", "the verifiers' concerns".to_owned()),
            };
            self.warn(format!(
                "observe mode: enforcing would have {word} this {} ({why}); it goes on",
                self.op.noun()
            ));
        }
        // Who judged, for a person who is not asked: a question or a
        // refusal shows the verdict in its own screen, once.
        if tty.is_some() && matches!(plan.action, Action::Allow { .. }) {
            self.show_ai_verdict();
        }
        let mut plan = plan;
        if let Some(asked) = &asked
            && plan.override_reason.is_some()
        {
            plan.override_reason = Some(asked.reason());
        }
        if let Some((_, label)) = &self.skip
            && let Some(reason) = plan.override_reason.take()
        {
            plan.override_reason = Some(match reason.strip_prefix("VOUCH_SKIP: ") {
                Some(why) => format!("{label}: {why}"),
                None => reason,
            });
        }
        let (decision, status) = self.act(&plan, tty.as_deref(), &state);
        let status = self.log(&plan, decision, status);
        let ran = self.combined.is_some();
        Ok(Decided {
            plan,
            status,
            late: situation.late,
            unlogged: self.unlogged.take(),
            combined: self.combined,
            results: ran.then_some(self.results),
        })
    }

    /// Logs a decision made before the operation could be judged (a hook
    /// message that cannot be read, a chained hook's refusal, a person's
    /// approval): the same audit line as every other decision.
    pub(crate) fn log_decided(
        mut self,
        plan: &Plan,
        decision: Decision,
        warning: Option<String>,
    ) -> ExitStatus {
        self.warnings.extend(warning);
        let status = if decision == Decision::Allowed || decision == Decision::AskedYes {
            ExitStatus::Allowed
        } else {
            ExitStatus::Refused
        };
        self.log(plan, decision, status)
    }

    /// Verifier programs and the AI verifier, in parallel.
    fn run_verifiers(&mut self, interactive: bool) -> Result<()> {
        let places = self.ctx.verifier_places(self.root)?;
        let tier = self.op.assessment().tier;
        let mut programs: Vec<_> = programs::discover(self.config, &places)
            .into_iter()
            .filter(|p| p.runs_for(tier))
            .collect();
        // Programs stop in time for an answer within the budget.
        if let Some(budget) = self.budget {
            let max = budget
                .saturating_sub(Duration::from_secs(3))
                .max(Duration::from_secs(1));
            for p in &mut programs {
                p.timeout = p.timeout.min(max);
            }
        }
        let (results, ai_run) = ask_verifiers(
            self.ctx,
            self.config,
            self.op,
            self.root,
            &self.view,
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
        let mut combined = verdict::combine(&self.results);
        // Nothing ran: say why (no key, the AI verifier off), not only
        // that nothing ran.
        if self.results.is_empty()
            && let verdict::Outcome::Unavailable { reason } = &mut combined.outcome
        {
            *reason = self.no_verdict().0;
        }
        self.combined = Some(combined);
        Ok(())
    }

    /// Why no verifier gave a usable verdict, and (a sentence) the next
    /// step a person can take: no AI provider has a key, none could be reached, the
    /// answers were unusable, a verifier program failed, or the AI
    /// verifier is off.
    fn no_verdict(&self) -> (String, String) {
        let ai_error = self
            .ai
            .as_ref()
            .and_then(|r| r.result.as_ref())
            .filter(|r| r.status == crate::verify::verdict::Status::Error);
        let tried = self
            .ai
            .as_ref()
            .map(|r| r.tried.as_slice())
            .unwrap_or_default();
        let doctor = "`git vouch doctor --ping` asks each provider and says what fails.".to_owned();
        if tried.iter().any(|t| t.outcome == "unusable") {
            (
                "the AI verifier answered, but no answer was a usable verdict".into(),
                "Judge it yourself; `git vouch verify --explain` shows what the verifier is asked."
                    .into(),
            )
        } else if !tried.is_empty() {
            ("no AI provider could be reached".into(), doctor)
        } else if let Some(r) = ai_error {
            (crate::input::text::one_line(&r.summary, 200), doctor)
        } else if self
            .results
            .iter()
            .any(|r| r.status == crate::verify::verdict::Status::Error)
        {
            (
                "a verifier program failed".into(),
                "`git vouch verify` runs the verifiers and shows what each said.".into(),
            )
        } else if !self.config.ai.enabled {
            (
                "the AI verifier is off (`[ai] enabled = false`) and no verifier program is configured".into(),
                "To have it judged, turn it on, or add a verifier program (`git vouch verify --list`).".into(),
            )
        } else {
            (
                "no AI provider has a key, and no verifier program is configured".into(),
                "To have it judged, set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (another vendor than your coding agent's), then run `git vouch doctor`.".into(),
            )
        }
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
            if run.usage.cached { ", cached" } else { "" },
            if run.usage.escalated {
                ", as tiebreaker"
            } else {
                ""
            },
            crate::input::text::one_line(&verdict.reasoning, 200)
        );
        for c in &verdict.concerns {
            line.push_str(&format!(
                "\n  concern: {}",
                crate::input::text::one_line(c, 200)
            ));
        }
        ui::info(&line);
    }

    fn summary(&self) -> String {
        let mut text = report::describe(self.op);
        // The concerns are in the details, each once.
        text.push_str(&report::verifier_details(
            &self.results,
            self.combined.as_ref(),
        ));
        text
    }

    fn act(
        &mut self,
        plan: &Plan,
        tty: Option<&dyn Prompter>,
        state: &Path,
    ) -> (Decision, ExitStatus) {
        let noun = self.op.noun();
        let (decision, status) = match &plan.action {
            Action::Allow { warning } => {
                if let Some(w) = warning {
                    let tier = self.op.assessment().tier;
                    self.warn(format!("{w}; allowing this {tier} {noun}"));
                }
                if let Some(reason) = &plan.override_reason
                    && self.is_git()
                {
                    ui::info(&format!("allowed without verification: {reason} (logged)"));
                }
                (Decision::Allowed, ExitStatus::Allowed)
            }
            Action::Ask => match tty {
                Some(tty) => {
                    tty.show(&self.summary());
                    if plan.result == AuditResult::Unavailable {
                        let (why, next) = self.no_verdict();
                        tty.show(&format!(
                            "No verifier could judge this {noun}: {why}.\n{next}"
                        ));
                    }
                    let question = format!("Allow this {noun}?");
                    let yes = if self.beside_spinner {
                        // lefthook redraws its progress line where the
                        // cursor is, over a question on that line (issue
                        // 35 item 6): the question gets its own line.
                        tty.show(&format!(
                            "{question} [y/N]: type y and Enter (lefthook's progress line below may hide what you type)"
                        ));
                        tty.confirm("")
                    } else {
                        tty.confirm(&question)
                    };
                    if yes {
                        (Decision::AskedYes, ExitStatus::Allowed)
                    } else {
                        ui::info(&format!("{noun} refused at the terminal"));
                        (Decision::AskedNo, ExitStatus::Refused)
                    }
                }
                // An agent asks its person, who answers in the agent.
                None => (Decision::AskedPerson, ExitStatus::Refused),
            },
            Action::Refuse { why, review } => {
                let review_path = if *review {
                    self.write_review(why, state)
                } else {
                    None
                };
                if self.is_git() {
                    self.print_refusal(why, review_path.as_deref(), *review);
                }
                (Decision::Refused, ExitStatus::Refused)
            }
        };
        if status == ExitStatus::Allowed && plan.would.is_none() {
            let done = self.on_allow.map_or_else(|| Ok(Vec::new()), |then| then());
            match done {
                Ok(done) => {
                    if self.is_git() {
                        for line in &done {
                            ui::info(line);
                        }
                    }
                    self.rescued = done;
                }
                Err(e) => {
                    let why = format!("{e:#}");
                    if self.is_git() {
                        ui::info(&format!(
                            "refused: {why}\nThe {noun} was allowed, but vouch could not save what it would remove, so it is refused."
                        ));
                    }
                    self.warnings.push(why);
                    return (Decision::Refused, ExitStatus::Refused);
                }
            }
        }
        (decision, status)
    }

    fn print_refusal(&self, why: &str, review_path: Option<&Path>, approvable: bool) {
        let mut text = format!("refused: {why}\n{}", self.summary());
        let noun = self.op.noun();
        if let Some(agent) = self.driven_by {
            // Nothing an agent reads names a way past vouch it could type itself.
            text.push_str(&format!(
                "This {noun} was started by {agent}, and an agent cannot decide it: only the person it works for can, at their own terminal.\n"
            ));
        } else if approvable && self.interaction == Interaction::Server {
            let id = &self.view.id;
            text.push_str(&format!(
                "To let this exact push through, a person who runs the server approves it there, as the account git runs under:\n    git vouch approve {id}\nand you push again within 15 minutes:\n    git push -o vouch.approve={id} ...\nOr skip verification with a reason that is logged with your name (where the server's policy lets you):\n    git push -o vouch.skip=\"<why this is safe>\" ...\n"
            ));
        } else if approvable {
            text.push_str(&format!(
                "To let this exact {noun} through, a person at a terminal runs:\n    git vouch approve {}\nand runs it again within 15 minutes.\n",
                self.view.id
            ));
            text.push_str(&format!(
                "Or skip verification for one {noun}, with a reason that is logged:\n    VOUCH_SKIP=\"<why this is safe>\" {}\n",
                report::again(self.op)
            ));
        }
        // A pusher cannot open a file on the server: the approval text says
        // what to do there.
        if let Some(p) = review_path
            && self.interaction != Interaction::Server
        {
            text.push_str(&format!("Review request: {}\n", p.display()));
        }
        ui::info(&text);
    }

    fn write_review(&mut self, why: &str, state: &Path) -> Option<PathBuf> {
        let concerns = self.combined.as_ref().map(|c| c.concerns.clone());
        let request = ReviewRequest::of(
            &self.view,
            self.ctx.now().to_string(),
            concerns.unwrap_or_default(),
            why,
        );
        match review::write_request(state, &request) {
            Ok(path) => {
                self.notify(&path, state);
                Some(path)
            }
            Err(e) => {
                self.warn(format!("cannot write the review request: {e:#}"));
                None
            }
        }
    }

    /// Runs the configured notify command with the review request.
    fn notify(&mut self, path: &Path, state: &Path) {
        let Some(command) = self.config.notify_command.clone() else {
            return;
        };
        // The git commands it runs are vouch's own: their hooks do not judge again.
        let _nested = crate::measure::parent::Nested::arm(state);
        let result = Command::new(&command[0])
            .args(&command[1..])
            .current_dir(self.root)
            .env(vars::VOUCH_NESTED, crate::measure::parent::nested_marker())
            .env("VOUCH_REVIEW_FILE", path)
            .env("VOUCH_OPERATION_ID", &self.view.id)
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

    /// The audit line of this decision ([`Record::decided`]).
    fn record(&self, plan: &Plan, decision: Decision) -> Record {
        let asked_through = match (self.interaction, &plan.action) {
            (Interaction::Agent { name, .. }, Action::Ask) => Some(name),
            _ => None,
        };
        Record::decided(
            self.op,
            &self.view,
            &audit::Decided {
                at: self.ctx.now(),
                plan,
                decision,
                asked_through,
                driven_by: self.driven_by,
                ai: self.ai.as_ref(),
                combined: self.combined.as_ref(),
                results: &self.results,
                warnings: &self.warnings,
                rescued: &self.rescued,
                session: self.session.as_deref(),
                latency_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
                observe: self.config.mode == Mode::Observe,
            },
        )
    }

    fn log(&mut self, plan: &Plan, decision: Decision, status: ExitStatus) -> ExitStatus {
        let observe = self.config.mode == Mode::Observe;
        if !decide::is_logged(
            self.op.assessment().tier,
            observe,
            plan,
            self.config.log_all,
        ) {
            return status;
        }
        let record = self.record(plan, decision);
        let written = self.ctx.log_path(self.config).and_then(|path| {
            audit::append(
                &path,
                self.config.log_max_bytes,
                self.config.log_keep,
                &record,
            )
        });
        if let Err(e) = written {
            let why = format!("{e:#}");
            self.unlogged = Some(why.clone());
            if decide::must_log(observe, plan) && status == ExitStatus::Allowed {
                if self.is_git() {
                    ui::error(&e.context(
                        "every decision on a guarded operation must be logged, so this one is refused; fix the log path (config `[log] path` or `VOUCH_LOG`)",
                    ));
                }
                return ExitStatus::Error;
            }
            if self.is_git() {
                ui::warn(&format!("{why}; this decision was not logged"));
            }
        }
        status
    }
}

#[cfg(test)]
mod tests {
    //! The runner in-process: a scripted person, a pinned clock, a fixed
    //! state directory (the tmux tests cover the real terminal).

    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::audit::Would;
    use crate::classify::operation::Assessed;
    use crate::classify::vocab::{Assessment, RefRisk, Rule, Tier};
    use crate::platform::env::MapEnv;

    /// A person who answers from a script and remembers what they saw.
    struct Scripted {
        yes: bool,
        seen: Arc<Mutex<Vec<String>>>,
    }

    impl Prompter for Scripted {
        fn show(&self, text: &str) {
            self.seen.lock().unwrap().push(text.to_owned());
        }

        fn confirm(&self, question: &str) -> bool {
            self.seen.lock().unwrap().push(question.to_owned());
            self.yes
        }

        fn read_line(&self, _question: &str) -> Option<String> {
            Some(if self.yes { "yes" } else { "no" }.to_owned())
        }
    }

    const PINNED: &str = "2026-11-23T12:00:00Z";

    fn ctx(dir: &Path, yes: bool, seen: &Arc<Mutex<Vec<String>>>) -> Ctx {
        let seen = Arc::clone(seen);
        let mut ctx = Ctx::new(Box::new(MapEnv::default()), dir.to_path_buf(), None);
        ctx.clock = Box::new(|| PINNED.parse().expect("a valid time"));
        ctx.terminal = Box::new(move |_| {
            Some(Box::new(Scripted {
                yes,
                seen: Arc::clone(&seen),
            }) as Box<dyn Prompter>)
        });
        ctx.fixed_dirs = Some(crate::doors::context::Dirs {
            config: Some(dir.join("config")),
            data: Some(dir.join("data")),
            state: dir.join("state"),
            fallback: None,
        });
        ctx
    }

    fn reset_hard(dir: &Path) -> Operation {
        Operation::Command {
            assessed: Assessed {
                command: "git reset --hard".into(),
                cwd: dir.to_path_buf(),
                assessment: Assessment {
                    tier: Tier::Critical,
                    refs: vec![RefRisk {
                        tier: Tier::Critical,
                        rule: Rule::Command,
                        reason: "discards uncommitted changes".into(),
                    }],
                    push: Vec::new(),
                },
                facts: crate::classify::operation::tests::reset_hard_facts(),
                root: Some(dir.to_path_buf()),
                branch: Some("main".into()),
                runs: crate::classify::Runs::default(),
            },
            door: "check".into(),
            session: None,
        }
    }

    fn logged(dir: &Path) -> Vec<Record> {
        let (records, problems) = audit::read_all(&dir.join("state/audit.jsonl")).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        records
    }

    /// No verifier at all, a critical operation, a person at the terminal:
    /// SPEC 6 asks them (`on_unavailable.critical = "ask"`), and the answer
    /// decides and is logged at the pinned time.
    #[test]
    fn the_person_is_asked_and_their_answer_decides() {
        for yes in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let seen = Arc::new(Mutex::new(Vec::new()));
            let ctx = ctx(dir.path(), yes, &seen);
            let mut config = Config::default();
            config.ai.enabled = false;
            let op = reset_hard(dir.path());
            let decided = Run::new(&ctx, &config, dir.path(), &op, Instant::now())
                .run()
                .unwrap();
            assert_eq!(decided.plan.action, Action::Ask);
            assert_eq!(decided.plan.result, AuditResult::Unavailable);
            let expected = if yes {
                ExitStatus::Allowed
            } else {
                ExitStatus::Refused
            };
            assert_eq!(decided.status, expected);
            let seen = seen.lock().unwrap().join("\n");
            assert!(seen.contains("git reset --hard"), "{seen}");
            assert!(seen.contains("Allow this command?"), "{seen}");
            let records = logged(dir.path());
            assert_eq!(records.len(), 1);
            let r = &records[0];
            assert_eq!(r.timestamp, PINNED);
            assert_eq!(
                r.decision,
                if yes {
                    Decision::AskedYes
                } else {
                    Decision::AskedNo
                }
            );
            assert_eq!(r.risk_tier, Some(Tier::Critical));
            assert_eq!(r.hook, "check");
        }
    }

    /// Observe mode never asks, even with a person at the terminal.
    #[test]
    fn observe_mode_never_asks() {
        let dir = tempfile::tempdir().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let ctx = ctx(dir.path(), false, &seen);
        let mut config = Config::default();
        config.ai.enabled = false;
        config.mode = Mode::Observe;
        let op = reset_hard(dir.path());
        let decided = Run::new(&ctx, &config, dir.path(), &op, Instant::now())
            .run()
            .unwrap();
        assert_eq!(decided.status, ExitStatus::Allowed);
        assert!(seen.lock().unwrap().is_empty(), "nobody was asked");
        let records = logged(dir.path());
        assert_eq!(records[0].would_decide, Some(Would::Asked));
        assert_eq!(records[0].mode, Some(Mode::Observe));
    }
}

/// The session an operation belongs to: the agent's session id, else
/// `VOUCH_SESSION` (SPEC 6: blocks are counted per session).
pub(crate) fn session(ctx: &Ctx, op: &Operation) -> Option<String> {
    op.session()
        .map(str::to_owned)
        .or_else(|| ctx.env.var(vars::VOUCH_SESSION))
}

/// Runs `programs` and (when `with_ai`) the AI verifier, in parallel; the
/// AI result comes last in the list. A spinner turns at a terminal.
#[expect(
    clippy::too_many_arguments,
    reason = "each is a distinct input of one call"
)]
pub fn ask_verifiers(
    ctx: &Ctx,
    config: &Config,
    op: &Operation,
    root: &Path,
    view: &crate::classify::operation::View,
    programs: &[Program],
    with_ai: bool,
    interactive: bool,
) -> Result<(Vec<VerifierResult>, Option<AiRun>)> {
    let state = ctx.dirs()?.state;
    let log_path = ctx.log_path(config)?;
    let session = session(ctx, op);
    let repo = root.display().to_string();
    // The same request `--explain` shows.
    let prompt = explain(op, root).user;
    // Reading the log is paid once, and only when a block asks for the count.
    let blocks = std::sync::OnceLock::new();
    let prior_blocks = || {
        *blocks.get_or_init(|| {
            let hour_ago = ctx.now() - jiff::SignedDuration::from_hours(1);
            audit::recent_blocks(&log_path, hour_ago, session.as_deref(), &repo)
        })
    };
    let env = ctx.env.as_ref();
    // The git commands verifier programs run are vouch's own: their hooks do not judge again.
    let _nested = (!programs.is_empty()).then(|| crate::measure::parent::Nested::arm(&state));
    let spinner = interactive.then(|| ui::Spinner::start("asking the verifiers"));
    let (mut results, ai_run) = std::thread::scope(|s| {
        let ai = with_ai.then(|| {
            s.spawn(|| {
                crate::verify::ai::verify(config, env, &state, &view.id, &prompt, &prior_blocks)
            })
        });
        let results = if programs.is_empty() {
            Vec::new()
        } else {
            let context = serde_json::to_string(&programs::context(op, view, report::describe(op)))
                .unwrap_or_default();
            programs::run_all(programs, &context, root)
        };
        let ai = ai.and_then(|h| {
            h.join().unwrap_or_else(|_| {
                Some(AiRun {
                    result: Some(VerifierResult::simple(
                        "ai",
                        crate::verify::verdict::Status::Error,
                        "the AI verifier failed inside vouch".into(),
                        true,
                    )),
                    ..AiRun::default()
                })
            })
        });
        (results, ai)
    });
    drop(spinner);
    if let Some(run) = &ai_run {
        results.extend(run.result.clone());
    }
    Ok((results, ai_run))
}

/// The request the AI verifier would be sent about `op`
/// (`--explain`): the system prompt and the user message, built from the
/// same parts as [`ask_verifiers`] builds them, credentials redacted.
/// Nothing is sent.
#[derive(Debug, serde::Serialize)]
pub struct Explained {
    /// The system prompt.
    pub system: &'static str,
    /// The user message: the operation and its facts.
    pub user: String,
}

/// What `--explain` prints: the request of [`Explained`], and nothing is sent.
pub fn explain(op: &Operation, root: &Path) -> Explained {
    let repo_name = root
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Explained {
        system: crate::verify::ai::prompt::SYSTEM,
        user: crate::verify::ai::prompt::for_operation(op, &repo_name),
    }
}

impl Explained {
    /// As text: each part under a heading of its own.
    pub fn text(&self) -> String {
        format!(
            "=== system prompt ===\n{}\n\n=== user message ===\n{}",
            self.system.trim_end(),
            self.user.trim_end()
        )
    }
}
