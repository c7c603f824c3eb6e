//! vouch: a git guard that asks for an independent verdict before history is
//! destroyed.
//!
//! The pipeline of SPEC section 1, one folder per stage, lowest first (a
//! stage imports only its own and those below it: `tests/it/layout.rs`):
//!
//! - [`platform`]: every call that differs by system, the environment
//!   ([`platform::env`]) and file reads and writes ([`platform::files`]);
//! - [`input`] (pure): what git passes a hook and git's own command lines,
//!   and the text helpers untrusted input passes through;
//! - tier: [`classify`] (pure) turns facts into a tier by the policy of
//!   [`classify::config`]; the agent door's command reader and rules are
//!   [`classify::shell`]; the typed facts ([`classify::facts`]) and
//!   [`classify::operation::Operation`], what every door hands the runner,
//!   live here too;
//! - facts: [`measure`] (the only git2 user, [`measure::git`]) measures
//!   them, and reads the parent process ([`measure::parent`]);
//! - [`undo`]: snapshots before agent commands, and undo;
//! - verifiers: [`verify`]: programs, the AI verifier and its providers,
//!   and the verdicts read (pure);
//! - decision: [`decide`] (pure) applies the protocol of SPEC section 6;
//! - interaction: [`interact`]: [`interact::prompt`] asks on `/dev/tty`,
//!   [`interact::ui`] prints, [`interact::report`] words an operation and
//!   its verdict, [`interact::review`] keeps review requests and approvals;
//! - audit: [`audit`] appends one JSON line per decision (and reads them
//!   back for `stats` and `eval`);
//! - [`install`] puts the hooks where git runs them, beside the hook
//!   managers, and into AI coding agents ([`install::agent`]);
//! - [`doors`]: each door turns its input into one operation, and one
//!   driver carries it through [`doors::runner`] (the process's context is
//!   [`doors::context`], what it exits with [`doors::exit`]);
//! - [`commands`]: every other subcommand, and the command line
//!   ([`commands::cli`]).

pub mod audit;
pub mod classify;
pub mod commands;
pub mod decide;
pub mod doors;
pub mod input;
pub mod install;
pub mod interact;
pub mod measure;
pub mod platform;
pub mod undo;
pub mod verify;

use anyhow::Result;

use crate::commands::cli::{Cli, Command, HookCommand};
use crate::doors::context::Ctx;
use crate::doors::exit::ExitStatus;

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
