//! How vouch exits (SPEC section 6): the one type every door and command
//! returns, and the process's exit code it maps to. Nothing here depends on
//! another vouch module; `main.rs` turns it into the exit code.

/// How vouch exits (SPEC section 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// The operation may proceed (exit 0).
    Allowed,
    /// The operation is refused (exit 1).
    Refused,
    /// Usage or internal error; the message says what to do (exit 2).
    Error,
    /// An agent's blocking answer where its protocol blocks by exit code 2
    /// (Codex's deny): a decision, not an error.
    Blocked,
}

impl ExitStatus {
    /// The process's exit code.
    pub fn code(self) -> u8 {
        match self {
            Self::Allowed => 0,
            Self::Refused => 1,
            Self::Error | Self::Blocked => 2,
        }
    }
}
