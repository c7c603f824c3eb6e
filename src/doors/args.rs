//! Each door's arguments, as git passes them to a hook or an agent to its
//! hook: the doors read them, and the command line (`crate::commands::cli`)
//! names them under `git vouch hook ...` and `git vouch agent-hook`.

use std::path::PathBuf;

use clap::Args;

/// `git vouch agent-hook`.
#[derive(Debug, Args)]
pub struct AgentHookArgs {
    /// The agent whose protocol is spoken.
    pub agent: crate::install::agent::settings::Agent,
}

/// `git vouch hook pre-receive`.
#[derive(Debug, Args)]
pub struct PreReceiveArgs {
    /// The directory of the hook script, to find a chained `pre-receive.local`.
    #[arg(long, value_name = "DIR")]
    pub hook_dir: Option<PathBuf>,
    /// Arguments git passed (none for pre-receive).
    pub rest: Vec<String>,
}

/// `git vouch hook reference-transaction`.
#[derive(Debug, Args)]
pub struct RefTxArgs {
    /// The directory of the hook, to find a chained `reference-transaction.local`.
    #[arg(long, value_name = "DIR")]
    pub hook_dir: Option<PathBuf>,
    /// The transaction's state: `preparing`, `prepared`, `committed`, `aborted`.
    pub state: String,
}

/// `git vouch hook pre-commit`.
#[derive(Debug, Args)]
pub struct PreCommitArgs {
    /// The directory of the hook script, to find a chained `pre-commit.local`.
    #[arg(long, value_name = "DIR")]
    pub hook_dir: Option<PathBuf>,
    /// Arguments git passed (none for pre-commit).
    pub rest: Vec<String>,
}

/// `git vouch hook pre-push`.
#[derive(Debug, Args)]
pub struct PrePushArgs {
    /// The directory of the hook script, to find a chained `pre-push.local`.
    #[arg(long, value_name = "DIR")]
    pub hook_dir: Option<PathBuf>,
    /// The remote's name (or URL when pushing to a URL).
    pub remote: String,
    /// The remote's URL.
    pub url: String,
}
