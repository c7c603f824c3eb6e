//! The agent door (SPEC 3.4): `git vouch agent-hook <agent>` answers an AI
//! coding agent's pre-tool hook, and `git vouch agent install|uninstall` puts
//! vouch into (or takes it out of) the agent's hook settings.
//!
//! The command is assessed as `git vouch check` does (`check.rs`). Commands
//! vouch has nothing against get no opinion, within milliseconds. Verified
//! ones are judged by the verifier programs and the AI verifier, whose
//! primary is the agent's own vendor (or its `model` field), within the
//! budget `[agent] budget_secs`. The answer never tells the agent how to get
//! past vouch: no skip variable, no approval command.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{Door, HookCall, Judge, Judged, Next, Outcome as DoorOutcome, Snapshotted};
use crate::classify::Tier;
use crate::classify::config::Config;
use crate::classify::operation::Operation;
use crate::decide::{Decision, Plan};
use crate::doors::args::AgentHookArgs;
use crate::doors::assess::assess;
use crate::doors::context::Ctx;
use crate::doors::runner::{Decided, Interaction, Run};
use crate::input::text::{one_line, redact_secrets, redact_text};
use crate::install::agent::protocol::{self, Answer, Request};
use crate::install::agent::settings::{self, Agent};
use crate::platform::env::vars;
use crate::verify::verdict::Outcome as VerdictOutcome;
use crate::{doors::exit::ExitStatus, interact::ui, measure::git};

/// The most hook input read (an agent's message is a few kilobytes).
const MAX_INPUT: usize = 1 << 20;

/// The longest command read without the watchdog (`git status && git
/// log`, not a script pasted whole).
const QUICK_READ: usize = 4096;

/// Starts the watchdog before a line longer than [`QUICK_READ`] is read:
/// the shell reader's work grows faster than the line.
fn watch_a_long_line(ctx: &Ctx, command: &str) {
    if command.len() > QUICK_READ {
        ctx.watch();
    }
}

/// One call of an agent's hook: a message before or after one of its
/// tools runs.
struct AgentHook {
    agent: Agent,
    /// What the message was, once read.
    read: Read,
    /// What the answer says first about a command judged: its tier and
    /// why.
    headline: String,
    /// A person answers the agent's `ask` for this message
    /// ([`protocol::person_answers`]).
    asks: bool,
    /// The policy the command is judged by, once found.
    config: Option<std::sync::Arc<Config>>,
    /// The answer, once settled ([`Door::runs_next`]).
    settled: Option<Answer>,
}

/// What the agent's message turned out to be.
enum Read {
    /// Not read yet.
    Nothing,
    /// A message vouch could not read.
    Bad,
    /// Before a tool runs.
    Before(Request),
    /// After a tool ran (the post-tool hook), with what its command lost.
    After(Option<String>),
}

/// `git vouch agent-hook <agent>`.
pub fn agent_hook(ctx: &Ctx, args: &AgentHookArgs) -> Result<ExitStatus> {
    STARTED.get_or_init(Instant::now);
    super::drive(
        ctx,
        &mut AgentHook {
            agent: args.agent,
            read: Read::Nothing,
            headline: String::new(),
            asks: false,
            config: None,
            settled: None,
        },
    )
}

impl Door for AgentHook {
    /// An agent's hook chains to nothing.
    fn call(&self) -> HookCall {
        HookCall::new(self.agent.name(), "command", None)
    }

    /// The agent reads the outcome in its protocol: nothing is printed for
    /// a person here.
    fn interaction(&self) -> Interaction {
        Interaction::Agent {
            name: self.agent.name(),
            can_ask: self.asks,
        }
    }

    /// What could be read: a read error cuts the message short, and a cut
    /// message is refused if the command in it looks dangerous. An agent
    /// that has not written it all yet is waited for under the watchdog.
    fn input(&self, ctx: &Ctx, _call: &HookCall) -> Result<Vec<u8>> {
        let mut input = Vec::new();
        crate::platform::files::read_stdin(MAX_INPUT, &mut input, &mut || ctx.watch()).ok();
        Ok(input)
    }

    fn judge(&mut self, ctx: &Ctx, input: &[u8]) -> Result<Judge> {
        let agent = self.agent;
        let request = match protocol::parse(agent, input) {
            // The post-tool hook: the command has run, nothing to judge.
            Ok(request) if request.after => {
                self.read = Read::After(after_command(ctx, agent, &request));
                return Ok(Judge::Pass);
            }
            Ok(request) => request,
            Err(bad) => {
                ctx.watch();
                self.read = Read::Bad;
                // A message vouch cannot read must not carry a dangerous
                // command past it.
                let read = bad.command.as_deref().and_then(|command| {
                    let repo = git::LazyRepo::new(&ctx.cwd);
                    let config = ctx.config(None);
                    let assessed = assess(&config, command, &ctx.cwd, &repo, &|| {}).ok()?;
                    let root = assessed.root.clone().unwrap_or_else(|| ctx.cwd.clone());
                    let op = Operation::Command {
                        assessed,
                        door: agent.name().into(),
                        session: None,
                    };
                    Some(Box::new(Judged::new(op, config, root)))
                });
                return Ok(Judge::Unreadable {
                    said: format!(
                        "{bad}; the {} hook must send its JSON on stdin",
                        agent.title()
                    ),
                    why: format!("the hook message could not be read: {}", bad.why),
                    read,
                });
            }
        };
        self.asks = protocol::person_answers(agent, &request);
        let judge = self.judge_request(ctx, &request);
        self.read = Read::Before(request);
        Ok(judge)
    }

    /// The answer is settled here (an `ask` written down for the git
    /// doors), and a command it lets run is snapshotted first.
    fn runs_next(
        &mut self,
        ctx: &Ctx,
        op: Option<&Operation>,
        outcome: &DoorOutcome,
    ) -> Option<Next> {
        let answer = self.settle(ctx, op, outcome);
        let denied = matches!(answer, Answer::Deny(_));
        self.settled = Some(answer);
        let Read::Before(request) = &self.read else {
            return None;
        };
        let command = request.command.as_ref()?;
        if denied || !protocol::is_shell_tool(self.agent, &request.tool) {
            return None;
        }
        // A read-only command changes nothing: it does not pay. Read from
        // the parse the command was judged with.
        let runs = match op {
            Some(Operation::Command { assessed, .. }) => assessed.runs.clone(),
            _ => crate::classify::runs(command),
        };
        if runs.read_only {
            return None;
        }
        let dir = request_dir(ctx, request);
        Some(Next {
            command: redact_secrets(command),
            by: self.agent.name(),
            session: request.session.clone(),
            removes_worktrees: runs.removes_worktrees,
            config: self.config.take().unwrap_or_else(|| ctx.config(None)),
            time: snapshot_time(ctx),
            dir,
        })
    }

    fn answer(
        &mut self,
        ctx: &Ctx,
        op: Option<&Operation>,
        outcome: DoorOutcome,
        snapshotted: Snapshotted,
    ) -> ExitStatus {
        let agent = self.agent;
        let bad = matches!(self.read, Read::Bad);
        let answer = match self.settled.take() {
            Some(answer) => answer,
            None => self.settle(ctx, op, &outcome),
        };
        if let Read::After(note) = std::mem::replace(&mut self.read, Read::Nothing) {
            answer_once(&protocol::after_reply(agent, note.as_deref()), || {});
            return ExitStatus::Allowed;
        }
        // The person reads how to take it back, when it can be.
        let answer = match answer {
            Answer::Ask(text) if snapshotted.name.is_some() => Answer::Ask(format!(
                "{text} vouch took a snapshot first: `git vouch undo` brings back what it discards."
            )),
            answer => answer,
        };
        let mut reply = protocol::reply(agent, &answer);
        if let Some(note) = &snapshotted.note {
            protocol::add_note(agent, &mut reply, note);
        }
        answer_once(&reply, || {});
        match reply.code {
            0 if bad && answer == Answer::NoOpinion => ExitStatus::Refused, // a non-blocking error
            0 => ExitStatus::Allowed,
            2 => ExitStatus::Blocked,
            _ => ExitStatus::Refused,
        }
    }
}

impl AgentHook {
    /// The outcome in the agent's terms. An `ask` is a question to the
    /// person only where one answers it (issue 35 item 1), and their yes
    /// must reach vouch's git doors: what was shown is written down for
    /// them. Where either fails, the command is refused, worded for the
    /// model.
    fn settle(&self, ctx: &Ctx, op: Option<&Operation>, outcome: &DoorOutcome) -> Answer {
        let agent = self.agent;
        let tier = op.map_or(Tier::None, |op| op.assessment().tier);
        // The verifiers let a verified command through: its git doors
        // must not refuse it half way (issue 35 item 2).
        let verified_allow = matches!(outcome, DoorOutcome::Decided(d)
            if matches!(d.plan.action, crate::decide::Action::Allow { .. })
                && d.combined.is_some()
                && d.status == ExitStatus::Allowed);
        let answer = match outcome {
            DoorOutcome::Passed
            | DoorOutcome::Unreadable { refused: false }
            | DoorOutcome::Failed { refused: false, .. } => Answer::NoOpinion,
            DoorOutcome::Chained => Answer::Deny("a chained hook refused this command".into()),
            DoorOutcome::Unreadable { refused: true } => Answer::Deny(format!(
                "vouch could not read this hook message, and the command in it looks {tier}: refused"
            )),
            DoorOutcome::Failed { refused: true, why } => {
                Answer::Deny(format!("{}. {why}, so it is refused.", self.headline))
            }
            DoorOutcome::Decided(decided) => self.decided(decided),
        };
        let request = match &self.read {
            Read::Before(request) => Some(request),
            _ => None,
        };
        match (answer, op, request) {
            (Answer::NoOpinion, Some(op), Some(request)) if verified_allow => {
                if let Err(e) = write_asked(ctx, agent, request, op, "verdict") {
                    ui::warn(&format!(
                        "vouch could not record its decision for its git hooks ({e:#}); they judge this command again"
                    ));
                }
                Answer::NoOpinion
            }
            (Answer::Ask(text), Some(op), Some(request)) if self.asks => {
                match write_asked(ctx, agent, request, op, "person") {
                    Ok(()) => Answer::Ask(text),
                    Err(e) => Answer::Deny(format!(
                        "{}. vouch could not record the person's answer for its git hooks ({}), so it is refused. {}",
                        self.headline,
                        one_line(&format!("{e:#}"), 200),
                        protocol::DENIED_TO_THE_MODEL
                    )),
                }
            }
            (Answer::Ask(_), ..) => Answer::Deny(format!(
                "{}. A person must decide, and none answers this agent's questions here. {}",
                self.headline,
                protocol::DENIED_TO_THE_MODEL
            )),
            (answer, ..) => answer,
        }
    }

    /// What vouch makes of one well-formed request before its tool runs.
    fn judge_request(&mut self, ctx: &Ctx, request: &Request) -> Judge {
        let agent = self.agent;
        let Some(command) = &request.command else {
            return Judge::Pass;
        };
        JUDGING.get_or_init(|| command.clone());
        if !protocol::is_shell_tool(agent, &request.tool) {
            return Judge::Pass;
        }
        // The watchdog answers for the door wherever its work can wait:
        // the reading of a long line, opening the repository or asking
        // whether the hooks are reached (`assess` says when), and a
        // verdict, an audit line or a snapshot (below). A short command
        // judged from its text and the config alone, at tier none and
        // read-only, is answered without it.
        watch_a_long_line(ctx, command);
        let cwd = request_dir(ctx, request);
        let repo = git::LazyRepo::new(&cwd);
        let root = repo.root();
        // A config file that cannot be used is left out, as at every door
        // (SPEC 3.2). What was left out goes to the audit log, not to the
        // agent: the line names `git vouch trust`, which is for a person.
        let read = ctx.config(root.as_deref());
        let mut config = Config::clone(&read);
        self.config = Some(read);
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
        let assessed = match assess(&config, command, &cwd, &repo, &|| ctx.watch()) {
            Ok(a) => a,
            Err(e) => {
                ui::warn(&format!("{e:#}"));
                // Not judged, and snapshotted unless read-only.
                ctx.watch();
                return Judge::Pass;
            }
        };
        let tier = assessed.assessment.tier;
        if !crate::decide::answers_at_once(tier, &config, true) || !assessed.runs.read_only {
            ctx.watch();
        }
        self.headline = format!(
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
        let run_root = assessed
            .root
            .clone()
            .unwrap_or_else(|| assessed.cwd.clone());
        let op = Operation::Command {
            assessed,
            door: agent.name().into(),
            session: request.session.clone(),
        };
        Judge::Operation(Box::new(Judged {
            budget: Some(Duration::from_secs(budget)),
            ..Judged::new(op, config, run_root)
        }))
    }

    /// The runner's decision, in the agent's terms.
    fn decided(&self, decided: &Decided) -> Answer {
        // A verified command is not let through silently when its decision
        // cannot be logged: the person decides, told why (a deny where the
        // agent cannot ask).
        if decided.status == ExitStatus::Error {
            let why = decided
                .unlogged
                .as_deref()
                .unwrap_or("its audit line could not be written");
            return if self.asks {
                Answer::Ask(format!(
                    "{}. vouch allowed it, but {why}, so the decision is not on record: you decide.",
                    self.headline
                ))
            } else {
                Answer::Deny(format!(
                    "{}. vouch allowed it, but {why}, so the decision is not on record and it is refused. {}",
                    self.headline,
                    protocol::DENIED_TO_THE_MODEL
                ))
            };
        }
        let unavailable = match decided.combined.as_ref().map(|c| &c.outcome) {
            Some(VerdictOutcome::Unavailable { reason }) => Some(reason.as_str()),
            _ => None,
        };
        let concerns = decided
            .combined
            .as_ref()
            .map(|c| c.concerns.as_slice())
            .unwrap_or_default();
        protocol::answer(
            &decided.plan.action,
            decided.plan.result,
            &self.headline,
            concerns,
            unavailable,
            decided.late,
        )
    }
}

/// Writes what the agent door shows the person with its `ask` (issue 35
/// item 1): the git doors the command passes honour it for exactly that
/// ([`crate::interact::asked`]). An error means no approval can reach
/// them: the command is refused instead.
fn write_asked(ctx: &Ctx, agent: Agent, request: &Request, op: &Operation, by: &str) -> Result<()> {
    let Operation::Command { assessed, .. } = op else {
        anyhow::bail!("not a shell command");
    };
    let dirs = ctx.dirs()?;
    // Without a home directory the state dir lives in the repository,
    // where anything that writes files could write an approval.
    if dirs.fallback.is_some() {
        anyhow::bail!("vouch has no state directory of its own here (no home directory)");
    }
    let root = assessed
        .root
        .clone()
        .ok_or_else(|| anyhow::anyhow!("the command runs in no git repository"))?;
    // The values the facts do not carry: a stash entry or tag deleted.
    let reads = assessed.facts.iter().any(|f| {
        matches!(
            f.measured,
            Some(
                crate::classify::facts::CommandFacts::StashDrop(_)
                    | crate::classify::facts::CommandFacts::Tags(_)
            )
        )
    });
    let repo = reads.then(|| git::Repo::discover(&root).ok()).flatten();
    let stash_top = repo
        .as_ref()
        .and_then(|r| r.stash_oids().into_iter().next());
    let value = |name: &str| repo.as_ref().and_then(|r| r.ref_value(name));
    let refs = crate::interact::asked::shown_refs(assessed, stash_top.as_deref(), &value);
    let (agent_pid, agent_exe) = crate::measure::parent::agent_process()
        .ok_or_else(|| anyhow::anyhow!("the agent's process cannot be read"))?;
    let command = request.command.as_deref().unwrap_or_default();
    // Read from the parse the command was judged with, unless it expanded
    // an alias.
    let git = assessed
        .runs
        .git
        .clone()
        .unwrap_or_else(|| crate::classify::git_commands(command));
    // No git command: no git door to reach.
    if git.is_empty() {
        return Ok(());
    }
    let files = assessed
        .facts
        .iter()
        .filter_map(|f| match &f.measured {
            Some(crate::classify::facts::CommandFacts::Worktree { loss, .. }) => Some(loss.files),
            _ => None,
        })
        .sum();
    let now = ctx.now();
    let shown = crate::interact::asked::Shown {
        agent: agent.name().to_owned(),
        session: request.session.clone(),
        repo: root.display().to_string(),
        command: assessed.command.clone(),
        git,
        refs,
        files,
        agent_pid,
        agent_exe,
        asked_at: now.to_string(),
        expires_at: crate::interact::asked::expires(now).to_string(),
        used_by: None,
        by: by.to_owned(),
    };
    crate::interact::asked::write(&dirs.state, &shown)?;
    Ok(())
}

/// The agent's post-tool hook (issue 28 item 3): the command has run;
/// what it lost, said ([`super::snapshot::after`]).
fn after_command(ctx: &Ctx, agent: Agent, request: &Request) -> Option<String> {
    let command = request.command.as_ref()?;
    if !protocol::is_shell_tool(agent, &request.tool) {
        return None;
    }
    watch_a_long_line(ctx, command);
    if crate::classify::read_only(command) {
        return None;
    }
    ctx.watch();
    super::snapshot::after(
        ctx,
        &request_dir(ctx, request),
        command,
        agent.name(),
        request.session.clone(),
    )
}

/// The directory the agent's command runs in: the one its message names,
/// or the hook's own (inherited from the agent) when that one does not
/// exist (JSON carries no path that is not UTF-8: a directory named in
/// other bytes arrives mangled).
fn request_dir(ctx: &Ctx, request: &Request) -> PathBuf {
    match request.cwd.as_deref().filter(|c| !c.is_empty()) {
        Some(c) if ctx.cwd.join(c).is_dir() => ctx.cwd.join(c),
        _ => ctx.cwd.clone(),
    }
}

/// Whether the agent has had its answer: the door's own, or the
/// watchdog's when the door is late ([`answer_in_time`]).
static ANSWERED: Mutex<bool> = Mutex::new(false);

/// The command the door is judging, for the watchdog's audit line.
static JUDGING: OnceLock<String> = OnceLock::new();

/// Writes `reply` unless the agent has had an answer already, then runs
/// `then` (still holding the answer, so that no second one follows: the
/// watchdog exits there, and a late door waits for that exit).
pub fn answer_once(reply: &protocol::Reply, then: impl FnOnce()) {
    let mut answered = ANSWERED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if *answered {
        return;
    }
    *answered = true;
    if !reply.stdout.is_empty() {
        ui::out(reply.stdout.trim_end());
    }
    if !reply.stderr.is_empty() {
        ui::err_text(&reply.stderr);
    }
    then();
}

/// When this hook began ([`agent_hook`]): its [`deadline`] counts from
/// there, however late its watchdog starts.
static STARTED: OnceLock<Instant> = OnceLock::new();

/// The [`deadline`], once read.
static DEADLINE: OnceLock<Duration> = OnceLock::new();

/// What is left of the [`deadline`].
pub fn time_left(ctx: &Ctx) -> Duration {
    let started = *STARTED.get_or_init(Instant::now);
    deadline(ctx).saturating_sub(started.elapsed())
}

/// How long a snapshot may take: what is left of the [`deadline`], less
/// two seconds to answer in.
fn snapshot_time(ctx: &Ctx) -> Duration {
    time_left(ctx).saturating_sub(Duration::from_secs(2))
}

/// How long the agent door may take before its watchdog answers for it:
/// the verdict's budget (`[agent] budget_secs`) and a margin for reading
/// the repository, always below the [`settings::HOOK_TIMEOUT_SECS`] it
/// asks the agent for. An agent runs the command when its hook times out
/// (most have no setting against it), so vouch must answer first.
pub fn deadline(ctx: &Ctx) -> Duration {
    *DEADLINE.get_or_init(|| deadline_of(ctx))
}

/// [`deadline`], read from the config.
fn deadline_of(ctx: &Ctx) -> Duration {
    let hook = settings::HOOK_TIMEOUT_SECS - 3;
    let budget = ctx.config(None).agent_budget_secs;
    Duration::from_secs(budget.saturating_add(5).min(hook))
}

/// The watchdog's answer when the door did not finish judging within
/// `deadline`: a denial that says why, and its audit line; then `exit`
/// with its code, while no other answer can follow. Does nothing when the
/// door answered first.
pub fn answer_in_time(ctx: &Ctx, agent: Agent, deadline: Duration, exit: impl FnOnce(u8)) {
    let why = format!(
        "vouch could not finish judging this command within {} s (a command too intricate to read, or a repository too slow to measure), so it is refused. A person must decide at their terminal",
        deadline.as_secs()
    );
    let reply = protocol::reply(agent, &Answer::Deny(why.clone()));
    answer_once(&reply, || {
        let config = ctx.config(None);
        let mut op = crate::classify::operation::Unjudged::new(
            "command",
            agent.name(),
            Some(Tier::Critical),
        );
        // As `check` shows a command: credentials masked.
        op.reasons = JUDGING
            .get()
            .map(|c| one_line(&redact_secrets(&redact_text(c)), 300))
            .into_iter()
            .collect();
        let op = Operation::Unjudged(op);
        let started = Instant::now()
            .checked_sub(deadline)
            .unwrap_or_else(Instant::now);
        Run::new(ctx, &config, &ctx.cwd, &op, started)
            .through(Interaction::Agent {
                name: agent.name(),
                can_ask: false,
            })
            .log_decided(
                &Plan::refused_unjudged(why.clone()),
                Decision::Refused,
                Some(why.clone()),
            );
        exit(reply.code);
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::doors::context::Dirs;
    use crate::platform::env::MapEnv;

    /// How often judging Claude's `message` starts the watchdog, with
    /// `config` as the user's config (`{cwd}` in the message names the
    /// directory it runs in).
    fn watches(config: &str, message: &str) -> usize {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("config")).unwrap();
        std::fs::write(root.join("config/config.toml"), config).unwrap();
        let mut ctx = Ctx::new(
            Box::new(MapEnv::from_pairs(&[("HOME", &root.display().to_string())])),
            root.to_path_buf(),
            None,
        );
        ctx.fixed_dirs = Some(Dirs {
            config: Some(root.join("config")),
            data: None,
            state: root.join("state"),
            fallback: None,
        });
        let started = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&started);
        ctx.watchdog = Box::new(move || {
            count.fetch_add(1, Ordering::SeqCst);
        });
        let mut door = AgentHook {
            agent: Agent::Claude,
            read: Read::Nothing,
            headline: String::new(),
            asks: false,
            config: None,
            settled: None,
        };
        let message = message.replace("{cwd}", &root.display().to_string());
        door.judge(&ctx, message.as_bytes()).unwrap();
        started.load(Ordering::SeqCst)
    }

    /// Claude's message for `tool` about to run (`PreToolUse`) or having
    /// run `command`.
    fn message(event: &str, tool: &str, command: &str) -> String {
        serde_json::json!({"session_id": "s", "cwd": "{cwd}", "hook_event_name": event,
            "tool_name": tool, "tool_input": {"command": command}})
        .to_string()
    }

    /// The watchdog answers for the door wherever its work can wait: only
    /// a read-only command that nothing in the config asks more of, or a
    /// tool that runs no command, is judged without it.
    #[test]
    fn the_watchdog_starts_for_all_but_a_harmless_read() {
        let before = |config, command| watches(config, &message("PreToolUse", "Bash", command));
        for command in ["git status && git log --oneline -5", "ls -la | head"] {
            assert_eq!(before("", command), 0, "{command}");
        }
        assert_eq!(watches("", &message("PreToolUse", "Read", "cargo test")), 0);
        assert_eq!(
            watches("", &message("PostToolUse", "Bash", "git status")),
            0
        );
        // A snapshot, facts, a verdict or an audit line follows.
        for command in ["cargo test", "git reset --hard HEAD~1", "git push -f"] {
            assert!(before("", command) > 0, "{command}");
        }
        // A long line, however harmless, takes time to read.
        let long = "git status; ".repeat(400);
        assert!(before("", &long) > 0);
        assert!(watches("", &message("PostToolUse", "Bash", &long)) > 0);
        assert!(watches("", &message("PostToolUse", "Bash", "cargo test")) > 0);
        let named = "[[rules]]\npattern = \"git status\"\ntier = \"high\"\nreason = \"x\"\n";
        assert!(before(named, "git status") > 0);
        assert!(before("log_all = true\n", "git status") > 0);
        // A message vouch cannot read.
        assert!(watches("", r#"{"tool_input": {"command": "git status"}"#) > 0);
    }
}
