//! Orchestration: one module per group of subcommands. These use anyhow and
//! call the pure core and the adapters; they hold no policy of their own.

pub mod approve;
pub mod hook;
pub mod log;
pub mod setup;
pub mod verify;
