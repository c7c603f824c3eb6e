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

use super::{Door, HookCall, Judge, Judged, Outcome as DoorOutcome};
use crate::agent::protocol::{self, Answer, Request};
use crate::agent::settings::{self, Agent};
use crate::classify::Tier;
use crate::cli::AgentHookArgs;
use crate::commands::check::assess;
use crate::context::Ctx;
use crate::env::vars;
use crate::operation::Operation;
use crate::policy::{Decision, Plan};
use crate::runner::{Decided, Interaction, Run};
use crate::text::{one_line, redact_secrets, redact_text};
use crate::verify::verdict::Outcome as VerdictOutcome;
use crate::{ExitStatus, audit, git, interact::ui, undo};

/// The most hook input read (an agent's message is a few kilobytes).
const MAX_INPUT: usize = 1 << 20;

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
    super::drive(
        ctx,
        &mut AgentHook {
            agent: args.agent,
            read: Read::Nothing,
            headline: String::new(),
            asks: false,
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
    /// message is refused if the command in it looks dangerous.
    fn input(&self, _ctx: &Ctx, _call: &HookCall) -> Result<Vec<u8>> {
        let mut input = Vec::new();
        crate::files::read_stdin(MAX_INPUT, &mut input).ok();
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
                self.read = Read::Bad;
                // A message vouch cannot read must not carry a dangerous
                // command past it.
                let read = bad.command.as_deref().and_then(|command| {
                    let repo = git::LazyRepo::new(&ctx.cwd);
                    let config = ctx.config(None);
                    let assessed = assess(&config, command, &ctx.cwd, &repo).ok()?;
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

    fn answer(&mut self, ctx: &Ctx, op: Option<&Operation>, outcome: DoorOutcome) -> ExitStatus {
        let agent = self.agent;
        let bad = matches!(self.read, Read::Bad);
        let request = match std::mem::replace(&mut self.read, Read::Nothing) {
            Read::After(note) => {
                answer_once(&protocol::after_reply(agent, note.as_deref()), || {});
                return ExitStatus::Allowed;
            }
            Read::Before(request) => Some(request),
            Read::Bad | Read::Nothing => None,
        };
        let tier = op.map_or(Tier::None, |op| op.assessment().tier);
        // The verifiers let a verified command through: its git doors
        // must not refuse it half way (issue 35 item 2).
        let verified_allow = matches!(&outcome, DoorOutcome::Decided(d)
            if matches!(d.plan.action, crate::policy::Action::Allow { .. })
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
            DoorOutcome::Decided(decided) => self.decided(&decided),
        };
        // An `ask` is a question to the person only where one answers it
        // (issue 35 item 1), and their yes must reach vouch's git doors:
        // what was shown is written down for them. Where either fails, the
        // command is refused, worded for the model.
        let answer = match (answer, op, request.as_ref()) {
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
        };
        let (snapshot, note) = request
            .as_ref()
            .map(|request| snapshot_before(ctx, agent, request, &answer))
            .unwrap_or_default();
        // The person reads how to take it back, when it can be.
        let answer = match answer {
            Answer::Ask(text) if snapshot.is_some() => Answer::Ask(format!(
                "{text} vouch took a snapshot first: `git vouch undo` brings back what it discards."
            )),
            answer => answer,
        };
        let mut reply = protocol::reply(agent, &answer);
        if let Some(note) = &note {
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
        let cwd = request_dir(ctx, request);
        let repo = git::LazyRepo::new(&cwd);
        let root = repo.root();
        // A config file that cannot be used is left out, as at every door
        // (SPEC 3.2). What was left out goes to the audit log, not to the
        // agent: the line names `git vouch trust`, which is for a person.
        let mut config = ctx.config(root.as_deref());
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
                return Judge::Pass;
            }
        };
        let tier = assessed.assessment.tier;
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

/// Snapshots the repository before a shell command that may change it
/// runs (SPEC 3.4, issue 28), so that `git vouch undo` can put back what
/// the door could not predict. A denied command does not run, and a
/// read-only one changes nothing: neither pays. A snapshot that cannot be
/// taken is said, and never stops the command.
///
/// Taking it also tells what the previous command did (issue 28 item 3,
/// for agents without a post-tool hook): when uncommitted work, a branch,
/// a tag or a stash entry was lost since the last snapshot, the line
/// returned says what, and how to bring it back. A new snapshot leaves an
/// audit line (its name, what it did not copy, what the previous command
/// lost); an unchanged state writes nothing. Retention runs here, in the
/// store, and lets go only of what is past both of its limits. Returns the
/// snapshot's name, when one was written, and the line to say.
fn snapshot_before(
    ctx: &Ctx,
    agent: Agent,
    request: &Request,
    answer: &Answer,
) -> (Option<String>, Option<String>) {
    let Some(command) = request.command.as_ref() else {
        return (None, None);
    };
    if matches!(answer, Answer::Deny(_))
        || !protocol::is_shell_tool(agent, &request.tool)
        || crate::classify::read_only(command)
    {
        return (None, None);
    }
    let cwd = request_dir(ctx, request);
    let shown = crate::text::redact_secrets(command);
    let Some(store) = snapshot_store(ctx, &cwd) else {
        return (None, None);
    };
    // Within the hook's time: a snapshot still running when the door must
    // answer is given up (the process ends with the answer; the store
    // keeps no half snapshot), said, and the command is judged as if
    // there were none.
    let left = snapshot_time(ctx);
    let (sent, received) = std::sync::mpsc::channel();
    {
        let (store, shown) = (store.clone(), shown.clone());
        // The door may have answered and gone on: nobody to tell then.
        std::thread::spawn(move || sent.send(undo::take(&store, agent.name(), &shown)).is_ok());
    }
    let taken = match received.recv_timeout(left) {
        Ok(Ok(Some(taken))) => taken,
        Ok(Ok(None)) => return (None, None),
        Ok(Err(e)) => {
            ui::warn(&format!("no snapshot before this command: {e:#}"));
            return (None, None);
        }
        Err(_) => {
            let said = format!(
                "vouch: no snapshot before this command: it did not finish within the {} s the hook had left, and `git vouch undo` cannot bring back what this command changes",
                left.as_secs()
            );
            ui::warn(said.trim_start_matches("vouch: "));
            return (None, Some(said));
        }
    };
    // `git worktree remove --force` or `prune` takes another work tree's
    // work: each other work tree is snapshotted first (in its own name).
    if command.contains("worktree") && (command.contains("remove") || command.contains("prune")) {
        for other in undo::other_worktrees(&cwd) {
            let taken = ctx.dirs().and_then(|d| undo::Store::open(&d.state, &other));
            if let Err(e) =
                taken.and_then(|s| s.map_or(Ok(None), |s| undo::take(&s, agent.name(), &shown)))
            {
                ui::warn(&format!(
                    "no snapshot of the work tree at {}: {e:#}",
                    other.display()
                ));
            }
        }
    }
    let root = store.root.clone();
    let config = ctx.config(Some(&root));
    // Retention, in the store: only what is past both limits goes, so no
    // command can make a recent snapshot go.
    let keep = usize::try_from(config.snapshot_keep).unwrap_or(usize::MAX);
    match undo::retain(&store, keep, config.snapshot_days, jiff::Timestamp::now())
        .and_then(|_| undo::collect(&store, false))
    {
        Ok(()) => {}
        Err(e) => ui::warn(&format!("snapshot retention did not run: {e:#}")),
    }
    // The one before the snapshot just taken (listed only when one was:
    // an unchanged state pays for nothing more), unless the agent's
    // post-tool hook has said what its command did already.
    let all = undo::list(&store).unwrap_or_default();
    let previous = all
        .into_iter()
        .find(|s| s.name != taken.name)
        .filter(|p| p.agent != "undo");
    let lost = previous
        .as_ref()
        .and_then(|p| undo::lost_between(&store, p, &taken.id).ok())
        // Said already by the post-tool hook (asked only when there is
        // something to say).
        .filter(|l| {
            (l.files.is_empty() && l.refs.is_empty() && l.stash.is_empty())
                || !previous.as_ref().is_some_and(|p| undo::checked(&store, p))
        });
    let note = lost.as_ref().and_then(loss_note);
    let record = crate::audit::SnapshotRecord {
        name: taken.short().to_owned(),
        id: taken.id.clone(),
        command: shown,
        not_copied: taken.not_copied.clone(),
    };
    let lost = lost.filter(|l| !l.files.is_empty() || !l.refs.is_empty() || !l.stash.is_empty());
    log_line(
        ctx,
        Some((&config, &root)),
        agent,
        request,
        (audit::SNAPSHOT_LINE, &taken.id),
        Some(record),
        lost,
    );
    (Some(taken.short().to_owned()), note)
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
            Some(crate::facts::CommandFacts::StashDrop(_) | crate::facts::CommandFacts::Tags(_))
        )
    });
    let repo = reads.then(|| git::Repo::discover(&root).ok()).flatten();
    let stash_top = repo
        .as_ref()
        .and_then(|r| r.stash_oids().into_iter().next());
    let value = |name: &str| repo.as_ref().and_then(|r| r.ref_value(name));
    let refs = crate::interact::asked::shown_refs(assessed, stash_top.as_deref(), &value);
    let (agent_pid, agent_exe) = crate::parent::agent_process()
        .ok_or_else(|| anyhow::anyhow!("the agent's process cannot be read"))?;
    let command = request.command.as_deref().unwrap_or_default();
    let git = crate::classify::git_commands(command);
    // No git command: no git door to reach.
    if git.is_empty() {
        return Ok(());
    }
    let files = assessed
        .facts
        .iter()
        .filter_map(|f| match &f.measured {
            Some(crate::facts::CommandFacts::Worktree { loss, .. }) => Some(loss.files),
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
/// what it lost is found against the snapshot taken before it, written
/// into an audit line, and said to the agent and its person in one line
/// naming the `git vouch undo` that brings it back.
fn after_command(ctx: &Ctx, agent: Agent, request: &Request) -> Option<String> {
    let command = request.command.as_ref()?;
    if !protocol::is_shell_tool(agent, &request.tool) || crate::classify::read_only(command) {
        return None;
    }
    let cwd = request_dir(ctx, request);
    let store = snapshot_store(ctx, &cwd)?;
    let before = undo::newest_match(&store).ok()??;
    let lost = match undo::lost_since(&store, &before) {
        Ok(lost) => lost,
        Err(e) => {
            ui::warn(&format!(
                "vouch could not compare the repository with the snapshot before this command: {e:#}"
            ));
            return None;
        }
    };
    undo::mark_checked(&store, &before);
    let note = loss_note(&lost);
    if !lost.files.is_empty() || !lost.refs.is_empty() || !lost.stash.is_empty() {
        let lost = crate::audit::LostRecord {
            command: crate::text::redact_secrets(command),
            ..lost
        };
        log_line(
            ctx,
            None,
            agent,
            request,
            (audit::AFTER_LINE, &before.id),
            None,
            Some(lost),
        );
    }
    note
}

/// The snapshot store of the work tree at `cwd` (SPEC 3.4), with the
/// snapshots an earlier vouch kept in the repository's refs moved into it;
/// `None` where there is no work tree, or nowhere to keep one (said).
fn snapshot_store(ctx: &Ctx, cwd: &std::path::Path) -> Option<undo::Store> {
    let state = match ctx.dirs() {
        Ok(dirs) => dirs.state,
        Err(e) => {
            ui::warn(&format!("no snapshot before this command: {e:#}"));
            return None;
        }
    };
    let store = match undo::Store::open(&state, cwd) {
        Ok(store) => store?,
        Err(e) => {
            ui::warn(&format!("no snapshot before this command: {e:#}"));
            return None;
        }
    };
    let _nested = crate::parent::Nested::arm(&state);
    let env = [(
        crate::env::vars::VOUCH_NESTED.to_owned(),
        crate::parent::nested_marker(),
    )];
    if let Err(e) = undo::migrate(&store, &env) {
        ui::warn(&format!(
            "the snapshots in this repository's refs/vouch/snapshots/ were not moved into vouch's store: {e:#}"
        ));
    }
    Some(store)
}

/// The one line an agent and its person read when a command lost work.
fn loss_note(lost: &crate::audit::LostRecord) -> Option<String> {
    lost.is_loss().then(|| {
        format!(
            "vouch: `{}` lost {}. If that was not meant, `git vouch undo {}` brings it back.",
            one_line(&lost.command, 80),
            crate::interact::report::loss_lines(lost).join("; "),
            lost.snapshot
        )
    })
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

/// Writes a snapshot's or a post-tool check's audit line (not a
/// decision: `git vouch stats` leaves them out). A line that cannot be
/// written is said, and stops nothing: the snapshot is taken either way.
/// Its `operation_id` is the snapshot's commit, abbreviated (the one taken,
/// or the one a post-tool check compared with).
fn log_line(
    ctx: &Ctx,
    known: Option<(&crate::config::Config, &std::path::Path)>,
    agent: Agent,
    request: &Request,
    (kind, id): (&str, &str),
    snapshot: Option<crate::audit::SnapshotRecord>,
    lost: Option<crate::audit::LostRecord>,
) {
    let found;
    let (config, root) = if let Some(k) = known {
        k
    } else {
        let cwd = request_dir(ctx, request);
        let root = git::LazyRepo::new(&cwd).root().unwrap_or(cwd);
        found = (ctx.config(Some(&root)), root);
        (&found.0, found.1.as_path())
    };
    let record = audit::Record {
        timestamp: ctx.now().to_string(),
        session_id: request.session.clone(),
        snapshot,
        lost,
        ..audit::Record::new(
            &id.chars().take(12).collect::<String>(),
            kind,
            agent.name(),
            &root.display().to_string(),
            crate::policy::AuditResult::Skipped,
            Decision::Allowed,
        )
    };
    let written = ctx.log_path(config).and_then(|path| {
        audit::append_unsynced(&path, config.log_max_bytes, config.log_keep, &record)
    });
    if let Err(e) = written {
        ui::warn(&format!(
            "{e:#}; this snapshot's audit line was not written"
        ));
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

/// When this hook began (set by [`deadline`], which `main` asks first).
static STARTED: OnceLock<Instant> = OnceLock::new();

/// How long a snapshot may take: what is left of the [`deadline`], less
/// two seconds to answer in.
fn snapshot_time(ctx: &Ctx) -> Duration {
    let started = *STARTED.get_or_init(Instant::now);
    deadline(ctx)
        .saturating_sub(started.elapsed())
        .saturating_sub(Duration::from_secs(2))
}

/// How long the agent door may take before its watchdog answers for it:
/// the verdict's budget (`[agent] budget_secs`) and a margin for reading
/// the repository, always below the [`settings::HOOK_TIMEOUT_SECS`] it
/// asks the agent for. An agent runs the command when its hook times out
/// (most have no setting against it), so vouch must answer first.
pub fn deadline(ctx: &Ctx) -> Duration {
    STARTED.get_or_init(Instant::now);
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
        let mut op = crate::operation::Unjudged::new("command", agent.name(), Some(Tier::Critical));
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
