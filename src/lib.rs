//! vouch: a git guard that asks for an independent verdict before history is
//! destroyed.
//!
//! The pipeline of SPEC section 1, stage by stage:
//!
//! - input: [`input`] (pure) reads what git passes a hook and git's own
//!   command lines; each door in [`doors`] turns it into one
//!   [`operation::Operation`], and one driver there carries every door's
//!   call through the rest;
//! - facts: [`git`] (the only git2 user) measures them into [`facts`] types;
//! - tier: [`classify`] (pure; the agent door's command rules in
//!   [`classify::shell`]) applies the policy of [`config`];
//! - verifiers: [`verify`]: programs, the AI verifier and its providers, and
//!   the verdicts read (pure);
//! - decision: [`policy`] (pure) applies the protocol of SPEC section 6,
//!   carried out by [`runner`];
//! - interaction: [`interact`]: [`interact::prompt`] asks on `/dev/tty`,
//!   [`interact::ui`] prints, [`interact::report`] words an operation and
//!   its verdict, [`interact::review`] keeps review requests and approvals;
//! - audit: [`audit`] appends one JSON line per decision (and reads them
//!   back for `stats` and `eval`);
//! - install: [`install`] puts the hooks where git runs them, beside the
//!   hook managers; [`agent`] does it for AI coding agents.

pub mod agent;
pub mod audit;
pub mod classify;
pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod doors;
pub mod env;
pub mod exit;
pub mod facts;
pub mod files;
pub mod git;
pub mod glob;
pub mod input;
pub mod install;
pub mod interact;
pub mod operation;
pub mod parent;
pub mod platform;
pub mod policy;
pub mod runner;
pub mod store;
pub mod text;
pub mod trust;
pub mod undo;
pub mod verify;
pub mod vocab;

use anyhow::Result;

use crate::cli::{Cli, Command, HookCommand};
use crate::context::Ctx;
// The home of `ExitStatus` is `exit.rs`; this path stays for the files
// other open issues still touch (issue 39).
pub use crate::exit::ExitStatus;

/// Runs one command.
pub fn run(cli: &Cli, ctx: &Ctx) -> Result<ExitStatus> {
    match &cli.command {
        Command::Install(args) => commands::setup::install(ctx, args),
        Command::Uninstall(args) => commands::setup::uninstall(ctx, args),
        Command::Status(args) => commands::status::status(ctx, args),
        Command::Trust(args) => commands::setup::trust(ctx, args),
        Command::Verify(args) => commands::verify::verify(ctx, args),
        Command::Approve(args) => commands::approve::approve(ctx, args),
        Command::Doctor(args) => commands::doctor::doctor(ctx, args),
        Command::Log(args) => commands::log::log(ctx, args),
        Command::Stats(args) => commands::stats::stats(ctx, args),
        Command::Label(args) => commands::label::label(ctx, args),
        Command::Rescue(args) => commands::rescue::rescue(ctx, args),
        Command::Undo(args) => commands::undo::undo(ctx, args),
        Command::Snapshots(args) => commands::undo::snapshots(ctx, args),
        Command::Check(args) => commands::check::check(ctx, args),
        Command::Eval(args) => commands::eval::eval(ctx, args),
        Command::AgentHook(args) => doors::agent::agent_hook(ctx, args),
        Command::Agent(args) => commands::agent::agent(ctx, args),
        Command::Config => commands::config::config(),
        Command::Completions(args) => commands::completions::completions(args),
        Command::Man(args) => commands::completions::man(ctx, args),
        Command::Hook(hook) => match &hook.hook {
            HookCommand::PrePush(args) => doors::pre_push::pre_push(ctx, args),
            HookCommand::PreCommit(args) => doors::commit::pre_commit(ctx, args),
            HookCommand::ReferenceTransaction(args) => {
                doors::reftx::reference_transaction(ctx, args)
            }
            HookCommand::PreReceive(args) => doors::pre_receive::pre_receive(ctx, args),
        },
    }
}
