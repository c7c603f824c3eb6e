//! The agent door (SPEC 3.4): `vouch agent-hook <agent>` answers an AI
//! coding agent's pre-tool hook, and `vouch agent install|uninstall` puts
//! vouch into (or takes it out of) the agent's hook settings.
//!
//! The command is assessed as `vouch check` does (`check.rs`). Commands
//! vouch has nothing against get no opinion, within milliseconds. Verified
//! ones are judged by the verifier programs and the AI verifier, whose
//! primary is the agent's own vendor (or its `model` field), within the
//! budget `[agent] budget_secs`. The answer never tells the agent how to get
//! past vouch: no skip variable, no approval command.

use std::io::Read;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;

use super::check::{self, CommandSubject, Judged, assess};
use crate::agent::protocol::{self, Answer, Request};
use crate::agent::settings::{self, Agent, Scope};
use crate::classify::Tier;
use crate::cli::{AgentAction, AgentArgs, AgentHookArgs};
use crate::config::{Config, Mode, OnUnavailable};
use crate::context::Ctx;
use crate::env::vars;
use crate::policy::{self, Skip};
use crate::text::one_line;
use crate::verdict::Outcome;
use crate::{ExitStatus, git, ui};

/// The most hook input read (an agent's message is a few kilobytes).
const MAX_INPUT: u64 = 1 << 20;

/// `vouch agent-hook <agent>`.
pub fn agent_hook(ctx: &Ctx, args: &AgentHookArgs) -> Result<ExitStatus> {
    let started = Instant::now();
    let agent = args.agent;
    let mut input = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT)
        .read_to_end(&mut input)
        .ok();
    let (answer, bad) = match protocol::parse(agent, &input) {
        Ok(request) => (decide(ctx, agent, &request, started), false),
        Err(bad) => {
            ui::info(&format!(
                "{bad}; the {} hook must send its JSON on stdin",
                agent.title()
            ));
            // A message vouch cannot read must not carry a dangerous command past it.
            let answer = bad.command.as_deref().map_or(Answer::NoOpinion, |cmd| {
                salvaged(ctx, agent, cmd, &bad.why, started)
            });
            (answer, true)
        }
    };
    let reply = protocol::reply(agent, &answer);
    if !reply.stdout.is_empty() {
        ui::out(reply.stdout.trim_end());
    }
    if !reply.stderr.is_empty() {
        ui::err_text(&reply.stderr);
    }
    Ok(match reply.code {
        0 if bad && answer == Answer::NoOpinion => ExitStatus::Refused, // a non-blocking error
        0 => ExitStatus::Allowed,
        2 => ExitStatus::Error,
        _ => ExitStatus::Refused,
    })
}

/// The answer for a command found in a message vouch could not read: a
/// dangerous one is denied, and that refusal is logged.
fn salvaged(ctx: &Ctx, agent: Agent, command: &str, why: &str, started: Instant) -> Answer {
    let repo = git::LazyRepo::new(&ctx.cwd);
    let config = ctx.load_config(None).unwrap_or_default();
    let Ok(assessed) = assess(&config, command, &ctx.cwd, &repo) else {
        return Answer::NoOpinion;
    };
    if assessed.assessment.tier < Tier::High {
        return Answer::NoOpinion;
    }
    let subject = CommandSubject {
        assessed: &assessed,
        door: agent.name(),
        session: None,
    };
    check::log_decision(
        ctx,
        &config,
        &subject,
        None,
        "unavailable",
        "refused",
        started,
        vec![format!("the hook message could not be read: {why}")],
    );
    Answer::Deny(format!(
        "vouch could not read this hook message, and the command in it looks {}: refused",
        assessed.assessment.tier
    ))
}

/// vouch's answer to one well-formed request.
fn decide(ctx: &Ctx, agent: Agent, request: &Request, started: Instant) -> Answer {
    let Some(command) = &request.command else {
        return Answer::NoOpinion;
    };
    if !protocol::is_shell_tool(agent, &request.tool) {
        return Answer::NoOpinion;
    }
    let cwd = match request.cwd.as_deref().filter(|c| !c.is_empty()) {
        Some(c) => ctx.cwd.join(c),
        None => ctx.cwd.clone(),
    };
    let repo = git::LazyRepo::new(&cwd);
    let mut warnings = Vec::new();
    let root = repo.root();
    let mut config = ctx.load_config(root.as_deref()).unwrap_or_else(|e| {
        warnings.push(format!("{e:#}; judged with the default config"));
        Config::default()
    });
    // SPEC 5.1: `VOUCH_PRIMARY` first, then what the agent says of itself.
    if ctx.env.var(vars::VOUCH_PRIMARY).is_none() {
        config.ai.primary = request
            .model
            .clone()
            .or_else(|| protocol::agent_family(agent).map(str::to_owned));
    }
    // The whole AI exchange (up to three tries) must fit in the budget.
    let budget = config.agent_budget_secs;
    config.ai.timeout_secs = config.ai.timeout_secs.min((budget / 3).max(1));
    let assessed = match assess(&config, command, &cwd, &repo) {
        Ok(a) => a,
        Err(e) => {
            ui::warn(&format!("{e:#}"));
            return Answer::NoOpinion;
        }
    };
    let tier = assessed.assessment.tier;
    let subject = CommandSubject {
        assessed: &assessed,
        door: agent.name(),
        session: request.session.clone(),
    };
    if !policy::is_verified(tier, config.verify_standard) {
        if config.log_all || (config.mode == Mode::Observe && tier > Tier::None) {
            check::log_decision(
                ctx, &config, &subject, None, "skipped", "allowed", started, warnings,
            );
        }
        return Answer::NoOpinion;
    }
    let headline = format!(
        "vouch: `{}` is {tier} risk: {}",
        one_line(command, 200),
        assessed
            .assessment
            .reasons(Tier::Standard)
            .iter()
            .take(3)
            .map(|r| one_line(&r.reason, 300))
            .collect::<Vec<_>>()
            .join("; ")
    );
    if let Skip::Reason(reason) = Skip::from_value(ctx.env.var(vars::VOUCH_SKIP).as_deref()) {
        warnings.push(format!("VOUCH_SKIP: {reason}"));
        check::log_decision(
            ctx, &config, &subject, None, "skipped", "allowed", started, warnings,
        );
        return Answer::NoOpinion;
    }
    // Programs stop in time for an answer within the budget (the AI's own
    // limit is set above).
    let max_program_time = std::time::Duration::from_secs(budget.saturating_sub(3).max(1));
    let judged = match check::judge(ctx, &config, &subject, Some(max_program_time)) {
        Ok(j) => Some(j),
        Err(e) => {
            warnings.push(format!("{e:#}"));
            None
        }
    };
    let late = started.elapsed().as_secs() >= budget;
    let (answer, result) = answer_for(
        &headline,
        tier,
        judged.as_ref(),
        late,
        config.on_unavailable.for_tier(tier),
    );
    let decision = match &answer {
        Answer::NoOpinion => "allowed",
        Answer::Ask(_) if protocol::can_ask(agent) => "asked",
        _ => "refused",
    };
    check::log_decision(
        ctx,
        &config,
        &subject,
        judged.as_ref(),
        result,
        decision,
        started,
        warnings,
    );
    if config.mode == Mode::Observe {
        return Answer::NoOpinion;
    }
    answer
}

/// The answer for a verified command, and the audit `result`.
fn answer_for(
    headline: &str,
    tier: Tier,
    judged: Option<&Judged>,
    late: bool,
    on_unavailable: OnUnavailable,
) -> (Answer, &'static str) {
    let concerns = judged
        .map(|j| {
            j.combined
                .concerns
                .iter()
                .take(3)
                .map(|c| one_line(c, 200))
                .collect::<Vec<_>>()
                .join("; ")
        })
        .filter(|c| !c.is_empty())
        .map(|c| format!(" Concerns: {c}."))
        .unwrap_or_default();
    let person = " If it is intended, the person you work for can run it themselves.";
    if late && tier == Tier::Critical {
        return (
            Answer::Deny(format!(
                "{headline}. No verdict within the time allowed, so it is refused.{person}"
            )),
            "unavailable",
        );
    }
    let outcome = judged.map_or(
        Outcome::Unavailable {
            reason: "the verifiers could not be asked".into(),
        },
        |j| j.combined.outcome.clone(),
    );
    match outcome {
        Outcome::Proceed { .. } => (Answer::NoOpinion, "proceed"),
        Outcome::Warn => (
            Answer::Ask(format!(
                "{headline}. The verifiers raised concerns.{concerns}{person}"
            )),
            "warn",
        ),
        Outcome::Block => (
            Answer::Deny(format!(
                "{headline}. The verifiers judged it unsafe.{concerns}{person}"
            )),
            "block",
        ),
        Outcome::Unavailable { reason } => {
            let text = format!("{headline}. Not verified: {reason}.{person}");
            match on_unavailable {
                OnUnavailable::Block => (Answer::Deny(text), "unavailable"),
                OnUnavailable::Ask => (Answer::Ask(text), "unavailable"),
                OnUnavailable::Allow => (Answer::NoOpinion, "unavailable"),
            }
        }
    }
}

/// `vouch agent install|uninstall`.
pub fn agent(ctx: &Ctx, args: &AgentArgs) -> Result<ExitStatus> {
    let (AgentAction::Install(a) | AgentAction::Uninstall(a)) = &args.action;
    let project = ctx.dir(a.repo.as_ref());
    // The project's settings live at its root when it is a git repository.
    let project = git::repo_at(&project).map_or(project, |r| r.root());
    let scope = if a.user { Scope::User } else { Scope::Project };
    let home = ctx
        .env
        .var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .ok_or_else(|| {
            anyhow::anyhow!("HOME is not set: vouch cannot find the agent's user settings")
        })?;
    let path = settings::settings_path(a.agent, scope, &project, &home, ctx.env.as_ref());
    let said = match &args.action {
        AgentAction::Install(_) => {
            let exe = std::env::current_exe()?;
            let bin = exe.canonicalize().unwrap_or(exe);
            let command = settings::hook_command(a.agent, &bin);
            settings::install(a.agent, &path, &command)?
        }
        AgentAction::Uninstall(_) => {
            let what = format!(
                "This removes vouch's hook from `{}`: {}'s shell commands will no longer be checked.",
                path.display(),
                a.agent.title()
            );
            if !super::person::confirms(ctx, "vouch agent uninstall", &what) {
                return Ok(ExitStatus::Refused);
            }
            settings::uninstall(a.agent, &path)?
        }
    };
    ui::info(&said);
    Ok(ExitStatus::Allowed)
}
