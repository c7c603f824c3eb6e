//! Orchestration: one module per group of subcommands. These use anyhow and
//! call the pure core and the adapters; they hold no policy of their own.

use std::path::Path;

use anyhow::Result;
use jiff::Timestamp;

use crate::ai::AiRun;
use crate::classify::Assessment;
use crate::config::Config;
use crate::context::Ctx;
use crate::env::vars;
use crate::facts::PushFacts;
use crate::verdict::VerifierResult;
use crate::verifiers::{self, Program};
use crate::{audit, ui};

pub mod approve;
pub mod doctor;
pub mod hook;
pub mod log;
pub mod setup;
pub mod verify;

/// The operation the verifiers are asked about.
pub struct Asked<'a> {
    /// Its facts.
    pub facts: &'a PushFacts,
    /// Its tier and reasons.
    pub assessment: &'a Assessment,
    /// The repository root.
    pub root: &'a Path,
    /// Its id (the cache key).
    pub operation_id: &'a str,
}

/// Runs `programs` and (when `with_ai`) the AI verifier, in parallel; the
/// AI result comes last in the list. A spinner turns at a terminal.
pub fn ask_verifiers(
    ctx: &Ctx,
    config: &Config,
    asked: &Asked<'_>,
    programs: &[Program],
    with_ai: bool,
    interactive: bool,
) -> Result<(Vec<VerifierResult>, Option<AiRun>)> {
    let state = ctx.dirs()?.state;
    let log_path = ctx.log_path(config)?;
    let session = ctx.env.var(vars::VOUCH_SESSION);
    let repo = asked.root.display().to_string();
    let repo_name = asked
        .root
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let prompt = crate::ai::prompt::push_prompt(asked.facts, asked.assessment, &repo_name);
    let prior_blocks = || {
        let hour_ago = Timestamp::now() - jiff::SignedDuration::from_hours(1);
        audit::recent_blocks(&log_path, hour_ago, session.as_deref(), &repo)
    };
    let env = ctx.env.as_ref();
    let spinner = interactive.then(|| ui::Spinner::start("asking the verifiers"));
    let (mut results, ai_run) = std::thread::scope(|s| {
        let ai = with_ai.then(|| {
            s.spawn(|| {
                crate::ai::verify(
                    config,
                    env,
                    &state,
                    asked.operation_id,
                    &prompt,
                    &prior_blocks,
                )
            })
        });
        let results = if programs.is_empty() {
            Vec::new()
        } else {
            let context = verifiers::context(
                asked.operation_id,
                asked.facts,
                asked.assessment,
                asked.root,
            );
            verifiers::run_all(programs, &context, asked.root)
        };
        let ai = ai.and_then(|h| {
            h.join().unwrap_or_else(|_| {
                Some(AiRun {
                    result: Some(VerifierResult::simple(
                        "ai",
                        crate::verdict::Status::Error,
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
