//! Guarding AI coding agents: vouch sits in each agent's pre-tool hook and
//! judges the shell commands the agent wants to run.
//!
//! - [`protocol`] (pure) reads each agent's hook input and writes vouch's
//!   answer in that agent's words;
//! - [`settings`] writes vouch's hook into an agent's configuration and takes
//!   it out again (`vouch agent install` / `vouch agent uninstall`), leaving
//!   every other hook and setting in the file as it was.

pub mod protocol;
pub mod settings;
