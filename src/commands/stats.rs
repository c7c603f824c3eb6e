//! `vouch stats`: the audit log's figures (SPEC 7), filtered as `vouch log`
//! filters. The figures come from the pure [`crate::stats`]; this reads the
//! log and the labels, and prints.
//!
//! The log is read line by line into [`stats::Line`], a borrowed view of the
//! fields the figures need, one generation at a time: a hundred thousand
//! whole records took seven times the 300 ms the figures may take
//! (bench/stats.sh). `vouch log` reads the full records.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use jiff::Timestamp;

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
    let filter = Filter::new(ctx, args.since.as_deref(), None, args.repo.as_ref())?;
    let labels = super::label::load(&ctx.dirs()?.state)?;
    let mut totals = stats::Totals::default();
    // Each repository path is resolved once, not once per line.
    let mut same_repo: HashMap<String, bool> = HashMap::new();
    audit::for_each_line(&path, |file, n, bytes| {
        let line = match stats::Line::parse(bytes) {
            Ok(l) => l,
            Err(e) => {
                ui::warn(&format!(
                    "unreadable audit line: `{}` line {n}: {e}",
                    file.display()
                ));
                return;
            }
        };
        let recent = filter.since.is_none_or(|s| {
            line.timestamp
                .as_str()
                .parse::<Timestamp>()
                .is_ok_and(|t| t >= s)
        });
        let mut here = || {
            filter.repo.as_ref().is_none_or(|want| {
                let repo = line.repo.as_str();
                if let Some(same) = same_repo.get(repo) {
                    return *same;
                }
                let have = PathBuf::from(repo);
                let same = have.canonicalize().unwrap_or(have) == *want;
                same_repo.insert(repo.to_owned(), same);
                same
            })
        };
        if recent && here() {
            totals.add(&line, &labels);
        }
    })?;
    let figures = totals.finish();
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
