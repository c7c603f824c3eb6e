//! `git vouch config`: prints the commented template of every setting at its
//! default ([`crate::config::template`]).

use anyhow::Result;

use crate::{exit::ExitStatus, interact::ui};

/// `git vouch config`.
pub fn config() -> Result<ExitStatus> {
    ui::out(crate::config::template().trim_end());
    Ok(ExitStatus::Allowed)
}
