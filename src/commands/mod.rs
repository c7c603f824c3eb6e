//! Orchestration: one module per group of subcommands. These use anyhow and
//! call the pure core and the adapters; they hold no policy of their own.

use std::path::Path;

use anyhow::Result;

use crate::classify::config::Config;
use crate::classify::operation::Operation;
use crate::doors::context::Ctx;
use crate::interact::ui;

pub mod agent;
pub mod approve;
pub mod check;
pub mod cli;
pub mod completions;
pub mod config;
pub mod doctor;
pub mod eval;
pub mod label;
pub mod log;
pub mod person;
pub mod rescue;
pub mod setup;
pub mod stats;
pub mod status;
pub mod undo;
pub mod verify;

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
) -> Result<crate::doors::exit::ExitStatus> {
    let explained = crate::doors::runner::explain(op, root);
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
    Ok(crate::doors::exit::ExitStatus::Allowed)
}
