//! `git vouch config`: prints the commented template of every setting at its
//! default ([`crate::classify::config::template`]).

use anyhow::Result;

use crate::{doors::exit::ExitStatus, interact::ui};

/// `git vouch config`.
pub fn config() -> Result<ExitStatus> {
    ui::out(crate::classify::config::template().trim_end());
    Ok(ExitStatus::Allowed)
}
