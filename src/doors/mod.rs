//! The doors (SPEC section 3): where an operation comes into vouch. Each
//! door is a small type (`Door`) that turns what its caller passes (git's
//! hook input, an agent's hook message) into one [`Operation`], says who
//! can be asked (`Interaction`) and words the outcome in its caller's
//! terms (an exit code, an agent's reply). `drive` does the rest, the same
//! for every door (issue 27 item 1): the input read whole first (STYLE
//! section 5), the chained `<hook>.local` run first (its refusal is this
//! hook's refusal, said and logged), input that cannot be read, the answer
//! at once for routine work, the runner ([`crate::doors::runner`]), and a runner
//! that fails. Every refusal is said and logged here; what each case
//! decides is a row of [`crate::decide`].

pub mod agent;
pub mod args;
pub mod assess;
mod chained;
pub mod commit;
pub mod context;
pub mod exit;
pub mod pre_push;
pub mod pre_receive;
pub mod reftx;
pub mod runner;
mod snapshot;

use std::io::Read as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::classify::config::Config;
use crate::classify::operation::{Operation, Unjudged};
use crate::decide::{self, Decision, Plan, Skip};
use crate::doors::context::Ctx;
use crate::doors::runner::{Decided, Interaction, Run};
use crate::input::text::{one_line, redact_text, redact_url};
use crate::{doors::exit::ExitStatus, interact::ui};

pub(crate) use chained::run_chained;
pub(crate) use snapshot::{Next, Snapshotted};

/// One call of a hook: which hook, what it guards, and what its caller gave it.
pub(crate) struct HookCall {
    /// The hook's name (`pre-push`).
    pub hook: &'static str,
    /// What it guards, as the audit line names it (`push`, `commit`).
    pub noun: &'static str,
    /// The directory the hook was run from, where a chained
    /// `<hook>.local` lives.
    pub dir: Option<PathBuf>,
    /// git's arguments, given to the chained hook as they are.
    pub args: Vec<String>,
    /// The remote's URL, for a push (redacted before it is logged).
    pub url: String,
    /// Whether vouch judges this call: the reference-transaction hook
    /// judges only its `prepared` state, and its chained hook's answer in
    /// any other state changes nothing.
    pub judges: bool,
}

impl HookCall {
    /// A call of `hook`, guarding `noun`s, run from `dir`.
    pub fn new(hook: &'static str, noun: &'static str, dir: Option<PathBuf>) -> Self {
        Self {
            hook,
            noun,
            dir,
            args: Vec::new(),
            url: String::new(),
            judges: true,
        }
    }

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

    /// Whether a chained `<hook>.local` is there to run.
    fn has_chained(&self) -> bool {
        self.dir
            .as_ref()
            .is_some_and(|d| crate::install::local_path(&d.join(self.hook)).is_file())
    }

    /// Runs the chained `<hook>.local` with `input`; its exit code, `None`
    /// when there is none.
    fn run_chained(&self, ctx: &Ctx, input: &[u8]) -> Result<Option<i32>> {
        let Some(dir) = &self.dir else {
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
        .map(|dirs| crate::measure::parent::Nested::arm(&dirs.state));
        let front = armed
            .as_ref()
            .map(|_| crate::measure::parent::nested_marker());
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        run_chained(
            ctx.env.as_ref(),
            dir,
            self.hook,
            &args,
            input,
            front.as_deref(),
        )
    }

    /// Git's input cannot be read: the problem (which names the line), and
    /// why that refuses the operation.
    pub fn unreadable(&self, problem: &str) -> Judge {
        Judge::Unreadable {
            said: format!(
                "{problem}\nThis {} is refused because vouch cannot tell what it changes. If git itself sent this, please report it",
                self.noun
            ),
            why: problem.to_owned(),
            read: None,
        }
    }
}

/// What a door made of its input.
pub(crate) enum Judge {
    /// Nothing here for vouch to judge (no ref changes, a routine update,
    /// a command vouch has nothing against): the operation goes on.
    Pass,
    /// The input cannot be read whole.
    Unreadable {
        /// What is said about it, naming what could not be read.
        said: String,
        /// The same, for the audit line.
        why: String,
        /// What could be read of it, judged (an agent's command in a
        /// broken message).
        read: Option<Box<Judged>>,
    },
    /// An operation to judge.
    Operation(Box<Judged>),
}

/// An operation a door measured and classified, with what judging it needs.
pub(crate) struct Judged {
    /// The operation, with its facts and tier.
    pub op: Operation,
    /// The policy it is judged by (the repository's, the server's).
    pub config: Arc<Config>,
    /// The repository (its git directory at the server).
    pub root: PathBuf,
    /// What the door has to say before the config's own warnings (a
    /// measurement that fell back to the git command line, a push option
    /// not honoured).
    pub warnings: Vec<String>,
    /// A skip the door read itself (the server's push option), in place of
    /// `VOUCH_SKIP`, with the words its override reason starts with.
    pub skip: Option<(Skip, String)>,
    /// The time the whole decision may take (an agent's budget).
    pub budget: Option<Duration>,
}

impl Judged {
    /// An operation judged by `config` in `root`, with nothing more to say.
    pub fn new(op: Operation, config: impl Into<Arc<Config>>, root: PathBuf) -> Self {
        Self {
            op,
            config: config.into(),
            root,
            warnings: Vec::new(),
            skip: None,
            budget: None,
        }
    }
}

/// How a door's call ended, for the door to word in its caller's terms.
pub(crate) enum Outcome {
    /// Nothing was judged, or the operation was answered at once: it goes on.
    Passed,
    /// The chained hook refused it (said and logged).
    Chained,
    /// Its input could not be read (said; logged when refused).
    Unreadable {
        /// [`decide::stops_unreadable`]'s answer.
        refused: bool,
    },
    /// The runner failed before a decision (said; logged when refused).
    Failed {
        /// [`decide::stops_unjudged`]'s answer.
        refused: bool,
        /// What failed.
        why: String,
    },
    /// The runner's decision (said and logged by the runner).
    Decided(Box<Decided>),
}

impl Outcome {
    /// A git hook's exit: 0 lets git go on; a refusal exits 1, and a
    /// failure of vouch's own exits 2 (git refuses on both).
    pub fn git_status(&self) -> ExitStatus {
        match self {
            Self::Passed
            | Self::Unreadable { refused: false }
            | Self::Failed { refused: false, .. } => ExitStatus::Allowed,
            Self::Chained | Self::Unreadable { refused: true } => ExitStatus::Refused,
            Self::Failed { refused: true, .. } => ExitStatus::Error,
            Self::Decided(d) => d.status,
        }
    }
}

/// One door: what it is called with, how it turns that into an operation,
/// and how it answers.
pub(crate) trait Door {
    /// The hook and what it guards.
    fn call(&self) -> HookCall;

    /// Who can be asked, and how the outcome reaches them.
    fn interaction(&self) -> Interaction {
        Interaction::Git
    }

    /// The caller's input: all of git's stdin by default.
    fn input(&self, ctx: &Ctx, call: &HookCall) -> Result<Vec<u8>> {
        call.input(ctx)
    }

    /// Turns the input into the operation to judge: its facts measured,
    /// its tier classified, by the policy found for its repository.
    fn judge(&mut self, ctx: &Ctx, input: &[u8]) -> Result<Judge>;

    /// Whether another run of vouch judges this operation (git config's,
    /// or vouch's hook in front of a hook manager's): then not twice.
    fn judged_elsewhere(&self, _ctx: &Ctx) -> bool {
        false
    }

    /// What the door does once the operation is allowed, before its caller
    /// goes on (rescue refs): lines to say; an error refuses it after all.
    fn on_allow(&self, _op: &Operation) -> Result<Vec<String>> {
        Ok(Vec::new())
    }

    /// The command the caller runs once it has `outcome` (an agent's shell
    /// command, unless refused), for the undo stage to snapshot first
    /// (SPEC 3.4); asked once, just before [`Door::answer`]. `None` by
    /// default: git calls its hooks once it has begun.
    fn runs_next(
        &mut self,
        _ctx: &Ctx,
        _op: Option<&Operation>,
        _outcome: &Outcome,
    ) -> Option<Next> {
        None
    }

    /// How the outcome reaches the caller: a git hook's exit code by
    /// default. `op` is the operation judged, when there was one;
    /// `snapshotted`, what the undo stage did for [`Door::runs_next`].
    fn answer(
        &mut self,
        _ctx: &Ctx,
        _op: Option<&Operation>,
        outcome: Outcome,
        _snapshotted: Snapshotted,
    ) -> ExitStatus {
        outcome.git_status()
    }
}

/// Carries one call of `door` through the pipeline of SPEC section 1:
/// the decision, then the undo stage's snapshot before what the caller
/// runs next, then the answer.
pub(crate) fn drive(ctx: &Ctx, door: &mut dyn Door) -> Result<ExitStatus> {
    let (op, outcome) = decide(ctx, door)?;
    let snapshotted = door
        .runs_next(ctx, op.as_ref(), &outcome)
        .map(|next| snapshot::before(ctx, &next))
        .unwrap_or_default();
    Ok(door.answer(ctx, op.as_ref(), outcome, snapshotted))
}

/// The outcome of one call of `door`, and the operation it judged.
fn decide(ctx: &Ctx, door: &mut dyn Door) -> Result<(Option<Operation>, Outcome)> {
    let started = Instant::now();
    let call = door.call();
    let interaction = door.interaction();
    if !call.judges && !call.has_chained() {
        return Ok((None, Outcome::Passed));
    }
    let input = door.input(ctx, &call)?;
    if let Some(code) = call.run_chained(ctx, &input)?
        && code != 0
        && call.judges
    {
        let why = format!(
            "the chained hook `{}.local` refused this {} (exit {code})",
            call.hook, call.noun
        );
        ui::info(&why);
        log_refusal(ctx, &call, interaction, None, &why);
        return Ok((None, Outcome::Chained));
    }
    if !call.judges {
        return Ok((None, Outcome::Passed));
    }
    let judged = match door.judge(ctx, &input)? {
        Judge::Pass => return Ok((None, Outcome::Passed)),
        Judge::Unreadable { said, why, read } => {
            let refused = decide::stops_unreadable(
                read.as_ref().map(|j| j.op.assessment().tier),
                read.as_ref().is_some_and(|j| j.config.verify_standard),
                matches!(interaction, Interaction::Agent { .. }),
            );
            if refused {
                ui::error(&anyhow::anyhow!("{said}"));
                log_refusal(ctx, &call, interaction, read.as_deref(), &why);
            } else {
                ui::info(&said);
            }
            return Ok((read.map(|j| j.op), Outcome::Unreadable { refused }));
        }
        Judge::Operation(judged) => judged,
    };
    // Who can be asked may depend on what the door read (an agent's
    // permission mode).
    let interaction = door.interaction();
    let Judged {
        op,
        config,
        root,
        warnings,
        skip,
        budget,
    } = *judged;
    let tier = op.assessment().tier;
    let says = matches!(interaction, Interaction::Git | Interaction::Server);
    let quiet = matches!(interaction, Interaction::Agent { .. });
    if decide::answers_at_once(tier, &config, quiet) {
        if says {
            for w in &config.warnings {
                ui::warn(w);
            }
        }
        return Ok((Some(op), Outcome::Passed));
    }
    if door.judged_elsewhere(ctx) {
        return Ok((Some(op), Outcome::Passed));
    }
    let ran = {
        let door: &dyn Door = door;
        let save = || door.on_allow(&op);
        // lefthook runs vouch from `lefthook-local.yml` under its spinner.
        let beside_spinner = call.dir.as_ref().is_some_and(|d| {
            d.parent().and_then(std::path::Path::file_name)
                == Some(std::ffi::OsStr::new(
                    crate::install::managers::LEFTHOOK_LOCAL_DIR,
                ))
        });
        let mut run = Run::new(ctx, &config, &root, &op, started)
            .through(interaction)
            .on_allow(&save)
            .beside_spinner(beside_spinner);
        if let Some((skip, label)) = skip {
            run = run.skip(skip, label);
        }
        if let Some(budget) = budget {
            run = run.within(budget);
        }
        for w in warnings.into_iter().chain(config.warnings.iter().cloned()) {
            run.warn(w);
        }
        run.run()
    };
    let outcome = match ran {
        Ok(decided) => Outcome::Decided(Box::new(decided)),
        // vouch itself failed: what would be verified does not go through
        // unjudged, and that refusal is on record.
        Err(e) => {
            let why = format!(
                "vouch could not judge it ({})",
                one_line(&format!("{e:#}"), 200)
            );
            let refused = decide::stops_unjudged(tier, config.verify_standard);
            if refused {
                ui::error(&e.context(format!("this {} is refused", call.noun)));
                let judged = Judged::new(op.clone(), config, root);
                log_refusal(ctx, &call, interaction, Some(&judged), &why);
            } else {
                ui::warn(&format!("{e:#}; this {} is not judged", call.noun));
            }
            Outcome::Failed { refused, why }
        }
    };
    Ok((Some(op), outcome))
}

/// Logs a refusal made before the operation was judged: `judged` when the
/// door had an operation, else one that names only the hook and remote.
fn log_refusal(
    ctx: &Ctx,
    call: &HookCall,
    interaction: Interaction,
    judged: Option<&Judged>,
    why: &str,
) {
    let plan = Plan::refused_unjudged(why.to_owned());
    let warning = Some(redact_text(why));
    if let Some(j) = judged {
        Run::new(ctx, &j.config, &j.root, &j.op, Instant::now())
            .through(interaction)
            .log_decided(&plan, Decision::Refused, warning);
        return;
    }
    // A broken config file is left out: the user's log path still counts.
    let config = ctx.config(None);
    let op = Operation::Unjudged(Unjudged {
        remote: (!call.url.is_empty()).then(|| redact_url(&call.url)),
        ..Unjudged::new(call.noun, call.hook, None)
    });
    let root = ctx.cwd.clone();
    Run::new(ctx, &config, &root, &op, Instant::now())
        .through(interaction)
        .log_decided(&plan, Decision::Refused, warning);
}

/// Whether another run of vouch judges this run's operation of `hook`
/// ([`crate::install::repair::judged_elsewhere`]), read from the process.
fn judged_elsewhere(ctx: &Ctx, hook: &str, hook_dir: Option<&std::path::Path>) -> bool {
    crate::install::repair::judged_elsewhere(
        &ctx.cwd,
        hook,
        hook_dir,
        ctx.env
            .var(crate::platform::env::vars::VOUCH_FRONT)
            .as_deref(),
        || ctx.dirs().ok().map(|dirs| dirs.state),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::Tier;
    use crate::doors::context::Dirs;
    use crate::platform::env::MapEnv;

    /// A door that hands the driver what it is told to, and keeps the
    /// outcome it is given to answer.
    struct Fake {
        interaction: Interaction,
        dir: Option<PathBuf>,
        judge: Option<Judge>,
        outcome: Option<&'static str>,
    }

    impl Door for Fake {
        fn call(&self) -> HookCall {
            HookCall::new("pre-push", "push", self.dir.clone())
        }
        fn interaction(&self) -> Interaction {
            self.interaction
        }
        fn input(&self, _ctx: &Ctx, _call: &HookCall) -> Result<Vec<u8>> {
            Ok(b"input\n".to_vec())
        }
        fn judge(&mut self, _ctx: &Ctx, _input: &[u8]) -> Result<Judge> {
            Ok(self.judge.take().expect("judged once"))
        }
        fn answer(
            &mut self,
            _ctx: &Ctx,
            _op: Option<&Operation>,
            outcome: Outcome,
            _snapshotted: Snapshotted,
        ) -> ExitStatus {
            self.outcome = Some(match &outcome {
                Outcome::Passed => "passed",
                Outcome::Chained => "chained",
                Outcome::Unreadable { refused: true } => "unreadable, refused",
                Outcome::Unreadable { refused: false } => "unreadable, passed",
                Outcome::Failed { .. } => "failed",
                Outcome::Decided(_) => "decided",
            });
            outcome.git_status()
        }
    }

    const GIT: Interaction = Interaction::Git;
    const SERVER: Interaction = Interaction::Server;
    const AGENT: Interaction = Interaction::Agent {
        name: "claude",
        can_ask: true,
    };

    fn ctx(dir: &std::path::Path) -> Ctx {
        let mut ctx = Ctx::new(
            Box::new(MapEnv::from_pairs(&[("HOME", &dir.display().to_string())])),
            dir.to_path_buf(),
            None,
        );
        ctx.fixed_dirs = Some(Dirs {
            config: None,
            data: None,
            state: dir.join("state"),
            fallback: None,
        });
        ctx
    }

    fn unreadable(read: Option<Tier>) -> Judge {
        Judge::Unreadable {
            said: "line 1: not three words".into(),
            why: "line 1: not three words".into(),
            read: read.map(|tier| {
                let op = Operation::Unjudged(Unjudged::new("command", "claude", Some(tier)));
                Box::new(Judged::new(op, Config::default(), PathBuf::from("/")))
            }),
        }
    }

    /// Drives `judge` through a door of `interaction`: the outcome the door
    /// was given, its exit status, and how many audit lines were written.
    fn drive_one(
        interaction: Interaction,
        dir: Option<PathBuf>,
        judge: Judge,
    ) -> (&'static str, ExitStatus, usize) {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = ctx(tmp.path());
        let mut door = Fake {
            interaction,
            dir,
            judge: Some(judge),
            outcome: None,
        };
        let status = drive(&ctx, &mut door).unwrap();
        let lines = std::fs::read_to_string(tmp.path().join("state/audit.jsonl"))
            .map_or(0, |log| log.lines().count());
        (door.outcome.expect("answered"), status, lines)
    }

    /// Unreadable input, at each kind of door: refused and logged at git's
    /// doors whatever was read; at an agent's, by what could be read.
    #[test]
    fn unreadable_input_is_decided_alike_and_every_refusal_is_logged() {
        for (interaction, read, outcome, status, lines) in [
            (GIT, None, "unreadable, refused", ExitStatus::Refused, 1),
            (SERVER, None, "unreadable, refused", ExitStatus::Refused, 1),
            (AGENT, None, "unreadable, passed", ExitStatus::Allowed, 0),
            (
                AGENT,
                Some(Tier::Standard),
                "unreadable, passed",
                ExitStatus::Allowed,
                0,
            ),
            (
                AGENT,
                Some(Tier::Critical),
                "unreadable, refused",
                ExitStatus::Refused,
                1,
            ),
        ] {
            assert_eq!(
                drive_one(interaction, None, unreadable(read)),
                (outcome, status, lines),
                "{interaction:?}, read {read:?}"
            );
        }
    }

    /// A chained hook's refusal is the door's, said and logged, at every
    /// door; its success lets the door judge.
    #[test]
    fn a_chained_hooks_refusal_is_refused_and_logged() {
        use std::os::unix::fs::PermissionsExt as _;
        for (code, outcome, status, lines) in [
            (3, "chained", ExitStatus::Refused, 1),
            (0, "passed", ExitStatus::Allowed, 0),
        ] {
            let hooks = tempfile::tempdir().unwrap();
            let local = hooks.path().join("pre-push.local");
            std::fs::write(&local, format!("#!/bin/sh\ncat >/dev/null\nexit {code}\n")).unwrap();
            std::fs::set_permissions(&local, std::fs::Permissions::from_mode(0o755)).unwrap();
            for interaction in [GIT, SERVER] {
                assert_eq!(
                    drive_one(interaction, Some(hooks.path().to_path_buf()), Judge::Pass),
                    (outcome, status, lines),
                    "{interaction:?}, chained exit {code}"
                );
            }
        }
    }

    /// What is below what is logged is answered at once, at every door,
    /// with no audit line.
    #[test]
    fn routine_work_is_answered_at_once_without_a_line() {
        for interaction in [GIT, SERVER, AGENT] {
            let op = Operation::Unjudged(Unjudged::new("push", "pre-push", Some(Tier::None)));
            let judged = Judged::new(op, Config::default(), PathBuf::from("/"));
            assert_eq!(
                drive_one(interaction, None, Judge::Operation(Box::new(judged))),
                ("passed", ExitStatus::Allowed, 0),
                "{interaction:?}"
            );
        }
    }
}
