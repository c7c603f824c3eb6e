//! `git vouch stats`: the audit log's figures (SPEC 7), filtered as `git vouch log`
//! filters. The figures come from the pure [`crate::audit::stats`]; this reads the
//! log and the labels, and prints.
//!
//! The log is read line by line as a borrowed [`audit::Record`] (its strings
//! borrowed from the line, the values the figures do not read kept as their
//! raw text: [`audit::Record::parse`]), one generation at a time and the generations on
//! every core; the figures of each generation are then added up in the
//! log's order ([`stats::Totals::merge`]), so that they are the same
//! however the work was split. A hundred thousand whole records took
//! seven times the 300 ms the figures may take (bench/stats.sh). `vouch
//! log` reads the full records.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use jiff::Timestamp;

use super::log::Filter;
use crate::audit::stats::{self, Bars, LabelEntry, Totals};
use crate::commands::cli::StatsArgs;
use crate::doors::context::Ctx;
use crate::platform::env::vars;
use crate::{audit, doors::exit::ExitStatus, interact::ui};

/// One file's figures and its unreadable lines.
type Read = Result<(Totals, Vec<String>)>;

/// `git vouch stats`.
pub fn stats(ctx: &Ctx, args: &StatsArgs) -> Result<ExitStatus> {
    let config = ctx.config(None);
    let path = ctx.log_path(&config)?;
    let filter = Filter::new(ctx, args.since.as_deref(), None, args.repo.as_ref())?;
    let labels = super::label::load(&ctx.dirs()?.state)?;
    let lock = audit::read_lock(&path);
    let files = audit::files(&path);
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(files.len());
    let next = AtomicUsize::new(0);
    let read: Vec<Mutex<Option<Read>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let figures = read_file(file, &filter, &labels);
                    if let Ok(mut slot) = read[i].lock() {
                        *slot = Some(figures);
                    }
                }
            });
        }
    });
    drop(lock);
    let mut totals = Totals::default();
    for slot in read {
        let Some(figures) = slot.into_inner().ok().flatten() else {
            continue;
        };
        let (figures, problems) = figures?;
        for p in &problems {
            ui::warn(&format!("unreadable audit line: {p}"));
        }
        totals.merge(figures);
    }
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

/// The figures of one file of the log, its lines filtered as `git vouch log`
/// filters them, and the lines that could not be read.
fn read_file(file: &Path, filter: &Filter, labels: &HashMap<String, LabelEntry>) -> Read {
    let mut totals = Totals::default();
    let mut problems = Vec::new();
    // Each repository path is resolved once, not once per line.
    let mut same_repo: HashMap<String, bool> = HashMap::new();
    audit::each_line(file, |n, line_text| {
        let line = match audit::Record::parse(line_text) {
            Ok(l) => l,
            Err(e) => {
                problems.push(format!("`{}` line {n}: {e}", file.display()));
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
        // A snapshot's line and a post-tool check's are not decisions.
        let decision = !matches!(
            line.operation_type.as_str(),
            audit::SNAPSHOT_LINE | audit::AFTER_LINE
        );
        if decision && recent && here() {
            totals.add(&line, labels);
        }
    })?;
    Ok((totals, problems))
}
