//! `vouch stats`: the audit log's figures (SPEC 7), filtered as `vouch log`
//! filters. The figures come from the pure [`crate::stats`]; this reads the
//! log and the labels, and prints.

use anyhow::{Context, Result};

use super::log::Filter;
use crate::cli::StatsArgs;
use crate::context::Ctx;
use crate::env::vars;
use crate::stats::{self, Bars};
use crate::{ExitStatus, audit, ui};

/// `vouch stats`.
pub fn stats(ctx: &Ctx, args: &StatsArgs) -> Result<ExitStatus> {
    let config = ctx.config(None);
    let path = ctx.log_path(&config)?;
    let (records, problems) = audit::read_all(&path)?;
    for p in &problems {
        ui::warn(&format!("unreadable audit line: {p}"));
    }
    let filter = Filter::new(ctx, args.since.as_deref(), None, args.repo.as_ref())?;
    let shown = filter.apply(&records);
    let labels = super::label::load(&ctx.dirs()?.state)?;
    let figures = stats::compute(shown.iter().copied(), &labels);
    drop(shown);
    // A hundred thousand records are freed by the exit at once; one by one
    // they cost a sixth of the command's time (bench/stats.sh).
    std::mem::forget(records);
    if args.json {
        ui::out(&serde_json::to_string(&figures).context("cannot print the figures")?);
        return Ok(ExitStatus::Allowed);
    }
    if figures.decisions == 0 {
        ui::out(&format!(
            "no decisions logged in `{}` match",
            path.display()
        ));
        return Ok(ExitStatus::Allowed);
    }
    // NO_COLOR (https://no-color.org: set and not empty) asks for plain text.
    let plain = ctx.env.var(vars::NO_COLOR).is_some_and(|v| !v.is_empty());
    let bars = if plain { Bars::Plain } else { Bars::Blocks };
    ui::out(stats::render(&figures, bars).trim_end());
    Ok(ExitStatus::Allowed)
}
