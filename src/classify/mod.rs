//! PURE: facts to a risk tier (SPEC section 2): a push (`push.rs`), a local
//! ref transaction (`local.rs`), a shell command's measured facts
//! (`command.rs`); the staged change is classified in
//! [`crate::classify::staged`] and a shell command by [`shell`]. Every rule has
//! a name (used in config `[tiers]` and in the audit log) and a default
//! tier. Nothing here touches git, the network or the terminal.

mod command;
mod local;
mod push;
#[cfg(test)]
pub(crate) use push::fixtures as push_fixtures;
pub mod config;
pub mod facts;
pub mod glob;
pub mod operation;
mod server;
pub mod shell;
pub mod staged;
pub mod vocab;

pub use command::{classify_command, discarded_noun};
pub use local::classify_local;
pub use push::{classify_push, protected_by};
pub use server::{classify_server, protected_changes};
pub use shell::readonly::{Runs, git_commands, read_only, runs};

pub use crate::classify::vocab::{Assessment, RefRisk, Rule, Tier};
