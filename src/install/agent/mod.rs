//! Guarding AI coding agents: vouch sits in each agent's pre-tool hook and
//! judges the shell commands the agent wants to run.
//!
//! - [`protocol`] (pure) reads each agent's hook input and writes vouch's
//!   answer in that agent's words;
//! - [`settings`] writes vouch's hook into an agent's configuration and takes
//!   it out again (`git vouch agent install` / `git vouch agent uninstall`), leaving
//!   every other hook and setting in the file as it was.

pub mod protocol;
pub mod settings;

use std::fmt;
use std::str::FromStr;

/// An AI coding agent whose hooks vouch knows how to configure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Cursor.
    Cursor,
    /// GitHub Copilot CLI.
    Copilot,
    /// The opencode coding agent.
    Opencode,
}

impl Agent {
    /// Every agent, in the order they are listed to users.
    pub const ALL: [Agent; 6] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Cursor,
        Agent::Copilot,
        Agent::Opencode,
    ];

    /// The name used on the command line (`git vouch agent-hook <name>`).
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::Copilot => "copilot",
            Agent::Opencode => "opencode",
        }
    }

    /// The product's own name, for messages.
    pub fn title(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Cursor => "Cursor",
            Agent::Copilot => "Copilot CLI",
            Agent::Opencode => "OpenCode",
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of [`Agent::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent `{0}` (known: claude, codex, gemini, cursor, copilot, opencode)")]
pub struct UnknownAgent(pub String);

impl FromStr for Agent {
    type Err = UnknownAgent;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Agent::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| UnknownAgent(s.to_owned()))
    }
}
