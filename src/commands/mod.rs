//! Orchestration: one module per group of subcommands. These use anyhow and
//! call the pure core and the adapters; they hold no policy of their own.

use std::path::Path;

use anyhow::Result;

use crate::config::Config;
use crate::context::Ctx;
use crate::env::vars;
use crate::operation::Operation;
use crate::verify::ai::AiRun;
use crate::verify::programs::{self, Program};
use crate::verify::verdict::VerifierResult;
use crate::{audit, ui};

pub mod agent;
pub mod approve;
pub mod check;
pub mod commit;
pub mod completions;
pub mod config;
pub mod decide;
pub mod doctor;
pub mod door;
pub mod eval;
pub mod label;
pub mod log;
pub mod person;
pub mod pre_push;
pub mod pre_receive;
pub mod reftx;
pub mod rescue;
pub mod setup;
pub mod stats;
pub mod status;
pub mod undo;
pub mod verify;

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
    view: &crate::operation::View,
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
    let _nested = (!programs.is_empty()).then(|| crate::parent::Nested::arm(&state));
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
            let context = serde_json::to_string(&programs::context(op, view)).unwrap_or_default();
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

/// Prints what `--explain` shows for `op` (JSON with `json`), and on
/// stderr why no request would go out at all, when that is so (`verified`:
/// the command would ask the verifiers about this operation).
pub fn print_explained(
    ctx: &Ctx,
    config: &Config,
    op: &Operation,
    root: &Path,
    json: bool,
    verified: bool,
) -> Result<crate::ExitStatus> {
    let explained = explain(op, root);
    if json {
        ui::out(&serde_json::to_string(&explained)?);
    } else {
        ui::out(&explained.text());
    }
    let keyed = crate::verify::ai::providers(config, ctx.env.as_ref())
        .iter()
        .any(crate::verify::ai::Provider::has_key);
    let why_none = if !verified {
        Some(format!(
            "an operation of tier {} is not verified",
            op.assessment().tier
        ))
    } else if !config.ai.enabled {
        Some("the AI verifier is turned off".to_owned())
    } else if !keyed {
        Some("no AI provider has a key".to_owned())
    } else {
        None
    };
    match why_none {
        Some(why) => ui::info(&format!(
            "nothing was sent, and as things stand nothing would be: {why}"
        )),
        None => ui::info("nothing was sent"),
    }
    Ok(crate::ExitStatus::Allowed)
}
