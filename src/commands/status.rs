//! `git vouch status`: what is installed, the config in force, the verifiers and
//! the log path. The facts are gathered once into [`Status`]; the text and
//! `--json` are two renderings of it, so they cannot say different things.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::classify::config::{Config, OnUnavailable};
use crate::classify::vocab::Tier;
use crate::commands::cli::StatusArgs;
use crate::doors::context::{Ctx, REPO_CONFIG};
use crate::install::managers;
use crate::install::reach::Place;
use crate::install::{self, HOOKS, HookState};
use crate::measure::git;
use crate::verify::programs;
use crate::{doors::exit::ExitStatus, interact::ui};

/// Everything `git vouch status` reports (`--json` prints it as is).
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// The hook managers found (name and how), e.g. `pre-commit (.pre-commit-config.yaml)`.
    pub hook_managers: Vec<String>,
    /// The agents whose settings call vouch, and a step some still need.
    pub agents: Vec<AgentStatus>,
    /// The repository's work tree (or git dir, when bare).
    pub repository: String,
    /// Where git looks for hooks.
    pub hooks_dir: String,
    /// `core.hooksPath`, when set.
    pub hooks_path: Option<String>,
    /// One entry per hook vouch installs.
    pub hooks: Vec<HookStatus>,
    /// Every hook vouch was installed for (all of them where none was)
    /// reaches vouch, and so does every agent whose settings call it: what
    /// the exit code says (0 when true, 1 when not).
    pub guarded: bool,
    /// The user config file.
    pub user_config: UserConfig,
    /// The repository's `.vouch.toml`, when there is one.
    pub repo_config: Option<RepoConfig>,
    /// What the config files made vouch say (keys ignored, files ignored).
    pub warnings: Vec<String>,
    /// Protected branch globs.
    pub protected: Vec<String>,
    /// Each remote's default branch is protected too.
    pub remote_head: bool,
    /// A hook whose binary is missing refuses.
    pub strict: bool,
    /// Verifier programs found.
    pub verifiers: Vec<String>,
    /// The AI verifier.
    pub ai: AiStatus,
    /// What happens to an operation of each verified tier when no verdict
    /// can be had (always so while no verifier is configured).
    pub without_verdict: WithoutVerdict,
    /// The audit log.
    pub audit_log: String,
}

/// One hook's state.
#[derive(Debug, Clone, Serialize)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "facts of one hook, printed as JSON fields"
)]
pub struct HookStatus {
    /// Whether git reaches vouch through this hook, in words (a hook
    /// manager's script, a moved hook, a missing binary).
    pub reach: String,
    /// Whether git, as it is set up now, runs vouch for this hook: from git
    /// config (git 2.54+), a hook file, a manager's moved copy it runs, or
    /// husky's hook file.
    pub reached: bool,
    /// vouch was installed for this hook (`git vouch install --hooks`), so
    /// an unreached one makes `guarded` false.
    pub expected: bool,
    /// `pre-push`, `pre-commit`, `reference-transaction`.
    pub hook: String,
    /// `installed`, `missing` or `foreign` (another tool's hook).
    pub state: &'static str,
    /// The binary the hook calls, when it is vouch's.
    pub binary: Option<String>,
    /// That binary exists.
    pub binary_found: bool,
    /// The hook is a link to the binary (`git vouch install --direct`).
    pub direct: bool,
    /// The hook chains the one that was there before (`<hook>.local`).
    pub chains_local: bool,
    /// The command registered in git config (`hook.vouch-<hook>.command`).
    pub config_hook: Option<String>,
}

/// The user config file.
#[derive(Debug, Clone, Serialize)]
pub struct UserConfig {
    /// Its path.
    pub path: String,
    /// It exists (otherwise the defaults apply).
    pub exists: bool,
}

/// The repository's config file.
#[derive(Debug, Clone, Serialize)]
pub struct RepoConfig {
    /// Its path.
    pub path: String,
    /// `git vouch trust` was run for its content.
    pub trusted: bool,
}

/// The AI verifier.
#[derive(Debug, Clone, Serialize)]
pub struct AiStatus {
    /// `[ai] enabled`.
    pub enabled: bool,
    /// The providers that have a key, with their model.
    pub providers: Vec<AiProvider>,
}

/// A provider that can be asked.
#[derive(Debug, Clone, Serialize)]
pub struct AiProvider {
    /// Its name (`anthropic`, `openai`, ...).
    pub name: String,
    /// The model it is asked with.
    pub model: String,
}

/// `on_unavailable` per tier: `allow`, `ask` or `block`.
#[derive(Debug, Clone, Serialize)]
pub struct WithoutVerdict {
    /// A verifier is configured (a program, or the AI verifier with a key).
    pub verifier_configured: bool,
    /// Critical operations.
    pub critical: OnUnavailable,
    /// High operations.
    pub high: OnUnavailable,
    /// Standard operations (verified only with `verify_standard`).
    pub standard: OnUnavailable,
}

/// `git vouch status`.
pub fn status(ctx: &Ctx, args: &StatusArgs) -> Result<ExitStatus> {
    if args.explain {
        let dir = ctx.dir(args.repo.as_ref());
        let root = git::LazyRepo::new(&dir).root();
        let config = ctx.config(root.as_deref());
        ui::out(&format!(
            "What happens to a verified operation, by what the verifiers say and who started it (this config's `on_unavailable` and mode):\n\n{}\n{}",
            crate::decide::decision_table(&config).trim_end(),
            EXPLAIN_NOTES
        ));
        return Ok(ExitStatus::Allowed);
    }
    let status = gather(ctx, &ctx.dir(args.repo.as_ref()))?;
    if args.json {
        ui::out(&serde_json::to_string_pretty(&status)?);
    } else {
        ui::out(status.text().trim_end());
    }
    // As `lefthook check-install` does: a script can tell.
    Ok(if status.guarded {
        ExitStatus::Allowed
    } else {
        ExitStatus::Refused
    })
}

/// Gathers the facts of `git vouch status` for the repository at `path`.
pub fn gather(ctx: &Ctx, path: &Path) -> Result<Status> {
    let loc = git::hooks_location(path)?;
    let root = loc.root();
    let found = managers::detect(&root, &loc.dir, loc.hooks_path.as_deref());
    let husky = crate::install::managers::is_husky(&found);
    let hook_managers = found
        .iter()
        .map(|f| format!("{} ({})", f.manager.name(), f.by))
        .collect();
    let place = Place::new(loc.clone(), husky);
    let default_dir = loc.common_dir.join("hooks");
    // The hooks vouch was installed for: its record beside the hook files,
    // its config-defined hooks; every hook where there is neither.
    let mut installed: Vec<String> = install::recorded(&loc.dir);
    installed.extend(install::recorded(&default_dir));
    let hooks: Vec<HookStatus> = HOOKS
        .iter()
        .map(|(hook, _)| {
            let state = install::state(&loc.dir, hook);
            let (reach, reached, config_hook) = place.reach(hook, &state);
            let mut h = HookStatus {
                reach,
                reached,
                expected: true,
                hook: (*hook).to_owned(),
                state: "missing",
                binary: None,
                binary_found: false,
                direct: false,
                chains_local: false,
                config_hook,
            };
            match state {
                HookState::Missing => {}
                HookState::Foreign => h.state = "foreign",
                HookState::Ours {
                    bin,
                    chained,
                    direct,
                    ..
                } => {
                    let bin = bin.unwrap_or_default();
                    h.state = "installed";
                    h.binary_found = bin.is_file();
                    h.binary = Some(bin.display().to_string());
                    h.direct = direct;
                    h.chains_local = chained;
                }
            }
            h
        })
        .collect();
    installed.extend(
        hooks
            .iter()
            .filter(|h| h.config_hook.is_some())
            .map(|h| h.hook.clone()),
    );
    let mut hooks = hooks;
    if !installed.is_empty() {
        for h in &mut hooks {
            h.expected = installed.contains(&h.hook);
        }
    }
    let agents = agents_status(ctx, &root);
    let guarded =
        hooks.iter().all(|h| h.reached || !h.expected) && agents.iter().all(|a| a.reached);
    let config = ctx.load_config(Some(&root))?;
    let user = ctx.user_config_path()?;
    let repo_file = root.join(REPO_CONFIG);
    let repo_config = if repo_file.is_file() {
        Some(RepoConfig {
            path: repo_file.display().to_string(),
            trusted: ctx.dirs()?.is_trusted(&root),
        })
    } else {
        None
    };
    let (programs, providers) = verifiers_found(ctx, &config, &root)?;
    let verifier_configured = !programs.is_empty() || (config.ai.enabled && !providers.is_empty());
    Ok(Status {
        hook_managers,
        agents,
        repository: root.display().to_string(),
        hooks_dir: loc.dir.display().to_string(),
        hooks_path: loc.hooks_path.clone(),
        hooks,
        guarded,
        user_config: UserConfig {
            path: user.display().to_string(),
            exists: user.is_file(),
        },
        repo_config,
        warnings: config.warnings.clone(),
        protected: config.policy.protected_patterns.clone(),
        remote_head: config.policy.remote_head,
        strict: config.strict,
        verifiers: programs,
        ai: AiStatus {
            enabled: config.ai.enabled,
            providers,
        },
        without_verdict: without_verdict(&config, verifier_configured),
        audit_log: ctx.log_path(&config)?.display().to_string(),
    })
}

/// The verifier programs found for the repository at `root`, and the AI
/// providers that have a key.
fn verifiers_found(
    ctx: &Ctx,
    config: &Config,
    root: &Path,
) -> Result<(Vec<String>, Vec<AiProvider>)> {
    let places = ctx.verifier_places(root)?;
    let programs = programs::discover(config, &places)
        .into_iter()
        .map(|p| p.name)
        .collect();
    let providers = crate::verify::ai::providers(config, ctx.env.as_ref())
        .iter()
        .filter(|p| p.has_key())
        .map(|p| AiProvider {
            name: p.name.clone(),
            model: p.model.clone(),
        })
        .collect();
    Ok((programs, providers))
}

/// What `git vouch install` says when no verifier is configured for the
/// repository at `root` (nothing when one is): the same lines as
/// `git vouch status`.
pub fn no_verifier_notice(ctx: &Ctx, config: &Config, root: &Path) -> Vec<String> {
    let Ok((programs, providers)) = verifiers_found(ctx, config, root) else {
        return Vec::new();
    };
    let configured = !programs.is_empty() || (config.ai.enabled && !providers.is_empty());
    no_verifier_lines(&without_verdict(config, configured), config.verify_standard)
}

fn without_verdict(config: &Config, verifier_configured: bool) -> WithoutVerdict {
    let t = &config.on_unavailable;
    WithoutVerdict {
        verifier_configured,
        critical: t.critical,
        high: t.high,
        standard: t.standard,
    }
}

/// An agent whose settings call vouch.
#[derive(Debug, Clone, Serialize)]
pub struct AgentStatus {
    /// The agent's name.
    pub agent: String,
    /// The settings file that calls vouch.
    pub settings: String,
    /// Whether the agent runs vouch's hook (false: its settings turn hooks off).
    pub reached: bool,
    /// A step of the agent's own that vouch cannot take (Codex's hook trust).
    pub step: Option<String>,
    /// True when the agent blocks a command whose hook fails or times out.
    pub fails_closed: bool,
    /// When it does not: what happens, and what to do.
    pub on_failure: Option<String>,
}

/// What `status --explain` says under the table: the cases it has no
/// column for.
pub const EXPLAIN_NOTES: &str = "
- standard operations are verified only with `verify_standard = true` (then as high); `none` always goes on.
- `VOUCH_SKIP=\"<reason>\"` and `git vouch approve <id>` (at a terminal) allow one operation, logged; the agent door judges an agent's command that uses either critical.
- when an agent's person said yes at its prompt, or the agent door let a command through on a verdict, the git hooks that command runs honour that, once, for exactly what was measured before it ran.
- a dry run (`git push -n`, `clean -n`, `rm -n`, `add -n`) is no operation: allowed at every door, not logged.
- observe mode (`mode = \"observe\"`) allows everything and logs what enforcing would have done.";

/// What an operation of `tier` meets without a verdict, in words.
pub fn unverified_meaning(tier: Tier, rule: OnUnavailable) -> String {
    let what = match rule {
        OnUnavailable::Allow => "allowed, with a warning",
        OnUnavailable::Ask => {
            "asked at a terminal; allowed with a warning where nobody can be asked and no agent drives git (CI, GUIs, scripts)"
        }
        OnUnavailable::Block => "refused",
    };
    // An agent is never the person (SPEC 6), whatever the rule says.
    let agents = if tier >= Tier::High && rule != OnUnavailable::Block {
        "; an agent's are put to its person where they answer its questions, else refused"
    } else {
        ""
    };
    format!("{tier} operations are {what}{agents}")
}

/// The lines that say no verifier is configured and what that means for
/// each tier, with the next step; empty when a verifier is configured.
pub fn no_verifier_lines(w: &WithoutVerdict, verify_standard: bool) -> Vec<String> {
    if w.verifier_configured {
        return Vec::new();
    }
    let mut lines = vec![
        "no verifier is configured: nothing can give a verdict, so".to_owned(),
        format!("  {}", unverified_meaning(Tier::Critical, w.critical)),
        format!("  {}", unverified_meaning(Tier::High, w.high)),
    ];
    if verify_standard {
        lines.push(format!(
            "  {}",
            unverified_meaning(Tier::Standard, w.standard)
        ));
    }
    lines.push(
        "  next: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (then `git vouch doctor`), or stricten `[on_unavailable]` (`git vouch config` shows it); `git vouch status --explain` shows every case"
            .to_owned(),
    );
    lines
}

/// The agents whose settings (this project's or the user's) call vouch,
/// and a step of their own some still need.
fn agents_status(ctx: &Ctx, root: &Path) -> Vec<AgentStatus> {
    use crate::install::agent::settings::{self, Agent, Scope};
    let mut found = Vec::new();
    let home = ctx
        .env
        .var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute());
    for agent in Agent::ALL {
        let local = settings::has_local(agent).then_some(Scope::Local);
        for scope in [Some(Scope::Project), local, Some(Scope::User)]
            .into_iter()
            .flatten()
        {
            if scope == Scope::User && home.is_none() {
                continue;
            }
            let home = home.clone().unwrap_or_default();
            let path = settings::settings_path(agent, scope, root, &home, ctx.env.as_ref());
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if !text.contains("agent-hook") {
                continue;
            }
            let version = (agent == Agent::Claude)
                .then(|| program_version("claude"))
                .flatten();
            let on_failure = settings::failure_note(agent, &text, version);
            found.push(AgentStatus {
                agent: agent.title().to_owned(),
                settings: path.display().to_string(),
                reached: !(agent == Agent::Gemini && settings::gemini_hooks_off(&text)),
                step: settings::agent_step(agent).map(str::to_owned),
                fails_closed: on_failure.is_none(),
                on_failure,
            });
        }
    }
    found
}

/// The version `program --version` prints, within a few seconds.
fn program_version(program: &str) -> Option<(u32, u32, u32)> {
    use std::process::{Command, Stdio};
    use wait_timeout::ChildExt;
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let Ok(Some(_)) = child.wait_timeout(std::time::Duration::from_secs(5)) else {
        child.kill().ok();
        child.wait().ok();
        return None;
    };
    let mut text = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut text).ok()?;
    crate::install::agent::settings::parse_version(&text)
}

impl Status {
    /// The text `git vouch status` prints.
    pub fn text(&self) -> String {
        let mut out = Vec::new();
        out.push(format!("repository:   {}", self.repository));
        match &self.hooks_path {
            Some(p) => out.push(format!(
                "hooks dir:    {} (core.hooksPath = {p})",
                self.hooks_dir
            )),
            None => out.push(format!("hooks dir:    {}", self.hooks_dir)),
        }
        if !self.hook_managers.is_empty() {
            out.push(format!("hook manager: {}", self.hook_managers.join(", ")));
        }
        for h in &self.hooks {
            let line = &h.reach;
            out.push(format!("{:<13} {line}", format!("{}:", h.hook)));
            if let Some(command) = &h.config_hook {
                out.push(format!(
                    "{:<13} git config (git 2.54+) runs: `{command}`",
                    ""
                ));
            }
        }
        for a in &self.agents {
            out.push(format!("agent:        {} (`{}`)", a.agent, a.settings));
            if let Some(step) = &a.step {
                out.push(format!("              {step}"));
            }
            if let Some(note) = &a.on_failure {
                out.push(format!("              fails open: {note}"));
            }
        }
        out.push(format!(
            "user config:  {}{}",
            self.user_config.path,
            if self.user_config.exists {
                ""
            } else {
                " (none; defaults; `git vouch config` shows every setting)"
            }
        ));
        if let Some(r) = &self.repo_config {
            let trusted = if r.trusted {
                "trusted"
            } else {
                "not trusted: it may only make the guard stricter; `git vouch trust` lifts that"
            };
            out.push(format!("repo config:  {} ({trusted})", r.path));
        }
        for w in &self.warnings {
            out.push(format!("warning:      {w}"));
        }
        out.push(format!(
            "protected:    {}{}",
            self.protected.join(", "),
            if self.remote_head {
                ", and each remote's default branch"
            } else {
                ""
            }
        ));
        out.push(format!("strict:       {}", self.strict));
        if self.verifiers.is_empty() {
            out.push("verifiers:    none (programs; see `git vouch verify --list`)".to_owned());
        } else {
            out.push(format!("verifiers:    {}", self.verifiers.join(", ")));
        }
        if !self.ai.enabled {
            out.push("AI verifier: off (`[ai] enabled = false`)".to_owned());
        } else if self.ai.providers.is_empty() {
            out.push("AI verifier: no provider has a key (see `git vouch doctor`)".to_owned());
        } else {
            let names: Vec<String> = self
                .ai
                .providers
                .iter()
                .map(|p| format!("{} ({})", p.name, p.model))
                .collect();
            out.push(format!("AI providers: {}", names.join(", ")));
        }
        out.extend(no_verifier_lines(&self.without_verdict, false));
        out.push(format!("audit log:    {}", self.audit_log));
        if !self.guarded {
            let unreached: Vec<&str> = self
                .hooks
                .iter()
                .filter(|h| h.expected && !h.reached)
                .map(|h| h.hook.as_str())
                .chain(
                    self.agents
                        .iter()
                        .filter(|a| !a.reached)
                        .map(|a| a.agent.as_str()),
                )
                .collect();
            out.push(format!(
                "NOT guarded:  vouch is not reached for {} (exit 1)",
                unreached.join(", ")
            ));
        }
        let mut text = out.join("\n");
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(keyed: bool) -> Status {
        Status {
            hook_managers: Vec::new(),
            agents: Vec::new(),
            repository: "/r".into(),
            hooks_dir: "/r/.git/hooks".into(),
            hooks_path: None,
            guarded: true,
            hooks: vec![HookStatus {
                reach: "installed, calls `/bin/vouch`".into(),
                reached: true,
                expected: true,
                hook: "pre-push".into(),
                state: "installed",
                binary: Some("/bin/vouch".into()),
                binary_found: true,
                direct: false,
                chains_local: false,
                config_hook: None,
            }],
            user_config: UserConfig {
                path: "/h/.config/vouch/config.toml".into(),
                exists: false,
            },
            repo_config: None,
            warnings: Vec::new(),
            protected: vec!["main".into()],
            remote_head: true,
            strict: false,
            verifiers: Vec::new(),
            ai: AiStatus {
                enabled: true,
                providers: if keyed {
                    vec![AiProvider {
                        name: "openai".into(),
                        model: "gpt-5".into(),
                    }]
                } else {
                    Vec::new()
                },
            },
            without_verdict: WithoutVerdict {
                verifier_configured: keyed,
                critical: OnUnavailable::Ask,
                high: OnUnavailable::Allow,
                standard: OnUnavailable::Allow,
            },
            audit_log: "/s/audit.jsonl".into(),
        }
    }

    #[test]
    fn without_a_verifier_the_text_says_what_each_tier_meets() {
        let text = sample(false).text();
        assert!(text.contains("no verifier is configured"), "{text}");
        assert!(
            text.contains("critical operations are asked at a terminal; allowed with a warning where nobody can be asked"),
            "{text}"
        );
        assert!(
            text.contains("high operations are allowed, with a warning; an agent's are put to its person where they answer its questions, else refused"),
            "{text}"
        );
        assert!(text.contains("git vouch status --explain"), "{text}");
        assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
        let keyed = sample(true).text();
        assert!(!keyed.contains("no verifier is configured"), "{keyed}");
        assert!(keyed.contains("AI providers: openai (gpt-5)"), "{keyed}");
    }

    #[test]
    fn a_blocking_rule_reads_as_refused() {
        assert_eq!(
            unverified_meaning(Tier::Critical, OnUnavailable::Block),
            "critical operations are refused"
        );
    }
}
