//! `git vouch agent install|uninstall`: puts vouch into (or takes it out
//! of) an AI coding agent's hook settings. The hook itself, `git vouch
//! agent-hook <agent>`, is a door (`doors/agent.rs`).

use std::path::PathBuf;

use anyhow::Result;

use crate::commands::cli::{AgentAction, AgentArgs};
use crate::doors::context::Ctx;
use crate::install::agent::settings::{self, Agent, Scope};
use crate::{doors::exit::ExitStatus, interact::ui, measure::git};

/// `git vouch agent install|uninstall`.
pub fn agent(ctx: &Ctx, args: &AgentArgs) -> Result<ExitStatus> {
    let (AgentAction::Install(a) | AgentAction::Uninstall(a)) = &args.action;
    let project = ctx.dir(a.repo.as_ref());
    // The project's settings live at its root when it is a git repository.
    let project = git::repo_at(&project).map_or(project, |r| r.root());
    let scope = if a.user {
        Scope::User
    } else if a.local {
        if !settings::has_local(a.agent) {
            anyhow::bail!(
                "{} has no settings file for this machine only: use the project's (the default) or `--user`",
                a.agent.title()
            );
        }
        Scope::Local
    } else {
        Scope::Project
    };
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
            // A project's file is committed: teammates' agents run it too,
            // so it names vouch on PATH and lets them work without it. The
            // user's file names this machine's binary by a path upgrades keep.
            let command = match scope {
                Scope::Project => settings::project_hook_command(a.agent),
                Scope::User | Scope::Local => {
                    let bin = crate::install::stable_binary(ctx.env.var_os("PATH").as_deref())?;
                    settings::hook_command(a.agent, &bin)
                }
            };
            let said = settings::install(a.agent, &path, &command)?;
            if a.agent == Agent::Gemini {
                let user = settings::settings_path(
                    a.agent,
                    Scope::User,
                    &project,
                    &home,
                    ctx.env.as_ref(),
                );
                let files = if user == path {
                    vec![&path]
                } else {
                    vec![&path, &user]
                };
                for file in files {
                    if std::fs::read_to_string(file).is_ok_and(|t| settings::gemini_hooks_off(&t)) {
                        ui::warn(&format!(
                            "`{}` turns Gemini CLI's hooks off (`\"hooksConfig\": {{\"enabled\": false}}`): vouch's hook will not run until that is removed",
                            file.display()
                        ));
                    }
                }
            }
            if scope == Scope::Project && settings::has_local(a.agent) {
                ui::info(&said);
                ui::info(&format!(
                    "`{}` is meant to be committed: where vouch is installed it judges, and a teammate without it is told once per clone that the project suggests it. For this machine only, `git vouch agent install {} --local` writes `{}` instead, which {} keeps out of git",
                    path.display(),
                    a.agent.name(),
                    settings::settings_path(
                        a.agent,
                        Scope::Local,
                        &project,
                        &home,
                        ctx.env.as_ref()
                    )
                    .display(),
                    a.agent.title()
                ));
                return Ok(ExitStatus::Allowed);
            }
            if let Some(step) = settings::agent_step(a.agent) {
                ui::info(&said);
                ui::info(&format!("{}: {step}", a.agent.title()));
                return Ok(ExitStatus::Allowed);
            }
            said
        }
        AgentAction::Uninstall(_) => {
            let what = format!(
                "This removes vouch's hook from `{}`: {}'s shell commands will no longer be checked.",
                path.display(),
                a.agent.title()
            );
            if !super::person::confirms(ctx, "git vouch agent uninstall", &what) {
                return Ok(ExitStatus::Refused);
            }
            settings::uninstall(a.agent, &path)?
        }
    };
    ui::info(&said);
    Ok(ExitStatus::Allowed)
}
