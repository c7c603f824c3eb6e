//! `git vouch log`: the audit log as a table or as JSON lines, filtered.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use jiff::tz::TimeZone;
use jiff::{Span, Timestamp};

use crate::audit::Record;
use crate::audit::stats::LabelEntry;
use crate::commands::cli::LogArgs;
use crate::doors::context::Ctx;
use crate::{audit, doors::exit::ExitStatus, interact::ui};

/// Reads `--since`: a time, a date, or a duration back from `now`.
pub fn parse_since(text: &str, now: Timestamp) -> Result<Timestamp> {
    let text = text.trim();
    if let Ok(t) = text.parse::<Timestamp>() {
        return Ok(t);
    }
    if let Ok(d) = text.parse::<jiff::civil::Date>() {
        return Ok(d.to_zoned(TimeZone::UTC)?.timestamp());
    }
    if let Ok(span) = text.parse::<Span>() {
        let then = now.to_zoned(TimeZone::UTC).checked_sub(span.abs())?;
        return Ok(then.timestamp());
    }
    bail!(
        "`--since {text}` is neither a duration (`2h`, `3 days`) nor a time (`2026-11-01`, `2026-11-01T10:00:00Z`)"
    )
}

/// The filters `git vouch log` and `git vouch stats` share: `--since`, `--result`,
/// `--repo`.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only records at or after this time.
    pub since: Option<Timestamp>,
    /// Only records with this result or decision word.
    pub result: Option<String>,
    /// Only records of this repository (canonical).
    pub repo: Option<PathBuf>,
}

impl Filter {
    /// The filters as given on the command line (`repo` relative to the
    /// current directory).
    pub fn new(
        ctx: &Ctx,
        since: Option<&str>,
        result: Option<&str>,
        repo: Option<&PathBuf>,
    ) -> Result<Self> {
        Ok(Self {
            since: since
                .map(|s| parse_since(s, Timestamp::now()))
                .transpose()?,
            result: result.map(str::to_owned),
            repo: repo.map(|r| {
                let p = ctx.cwd.join(r);
                p.canonicalize().unwrap_or(p)
            }),
        })
    }

    /// The records that pass, in order. Each repository path is resolved
    /// once, not once per record.
    pub fn apply<'r>(&self, records: &'r [Record]) -> Vec<&'r Record> {
        let mut same_repo: HashMap<&str, bool> = HashMap::new();
        records
            .iter()
            .filter(|r| {
                self.since
                    .is_none_or(|s| r.timestamp.parse::<Timestamp>().is_ok_and(|t| t >= s))
            })
            .filter(|r| {
                self.result
                    .as_deref()
                    .is_none_or(|want| r.result.as_str() == want || r.decision.as_str() == want)
            })
            .filter(|r| {
                self.repo.as_ref().is_none_or(|want| {
                    *same_repo.entry(r.repo.as_str()).or_insert_with(|| {
                        let have = PathBuf::from(&r.repo);
                        have.canonicalize().unwrap_or(have) == *want
                    })
                })
            })
            .collect()
    }
}

/// `git vouch log`.
pub fn log(ctx: &Ctx, args: &LogArgs) -> Result<ExitStatus> {
    // A broken config file is left out (and said): the log is still shown.
    let config = ctx.config(None);
    let path = ctx.log_path(&config)?;
    let (records, problems) = audit::read_all(&path)?;
    for p in &problems {
        ui::warn(&format!("unreadable audit line: {p}"));
    }
    let filter = Filter::new(
        ctx,
        args.since.as_deref(),
        args.result.map(crate::commands::cli::ResultFilter::as_str),
        args.repo.as_ref(),
    )?;
    let shown = filter.apply(&records);
    if let Some(file) = &args.export_eval {
        let labels = super::label::load(&ctx.dirs()?.state)?;
        return export_eval(&shown, &labels, file);
    }
    if args.json {
        for r in shown {
            ui::out(&serde_json::to_string(r).context("cannot print a record")?);
        }
        return Ok(ExitStatus::Allowed);
    }
    if shown.is_empty() {
        let hint = if args.since.is_some() || args.result.is_some() || args.repo.is_some() {
            "widen or drop `--since`, `--result` or `--repo`"
        } else {
            "vouch logs the operations it judges; `log_all = true` logs every one"
        };
        ui::out(&format!(
            "no decisions logged in `{}` match ({hint})",
            path.display()
        ));
        return Ok(ExitStatus::Allowed);
    }
    ui::out(&format!(
        "{:<20} {:<9} {:<12} {:<10} {:<12} {:<20} {}",
        "TIME (UTC)", "TIER", "RESULT", "DECISION", "ID", "REPO", "REFS"
    ));
    for r in shown {
        let time = r.timestamp.parse::<Timestamp>().map_or_else(
            |_| r.timestamp.clone(),
            |t| t.strftime("%Y-%m-%d %H:%M:%S").to_string(),
        );
        let repo = r.repo.rsplit('/').next().unwrap_or("").to_owned();
        let refs: Vec<String> = r
            .refs
            .iter()
            .map(|x| {
                let name = x.remote_ref.as_str();
                let name = name.strip_prefix("refs/heads/").unwrap_or(name);
                format!("{name} ({})", x.change)
            })
            .collect();
        let overridden = if r.was_overridden { " [override]" } else { "" };
        // Observe mode: what enforcing would have done, on the line itself
        // (the README's quick start reads it here, not only in `--json`).
        let observed = match (r.mode, r.would_decide) {
            (_, Some(crate::audit::Would::Refused)) => " [observe: enforcing would have refused]",
            (_, Some(crate::audit::Would::Asked)) => " [observe: enforcing would have asked]",
            (Some(crate::classify::config::Mode::Observe), None) => " [observe]",
            _ => "",
        };
        ui::out(&format!(
            "{time:<20} {:<9} {:<12} {:<10} {:<12} {repo:<20} {}{overridden}{observed}",
            r.risk_tier.map_or("unknown", crate::classify::Tier::as_str),
            r.result.as_str(),
            r.decision.as_str(),
            r.operation_id,
            refs.join(", ")
        ));
    }
    Ok(ExitStatus::Allowed)
}

/// Writes one eval case line (the shape `git vouch eval --corpus` reads) for
/// `record`, labelled `entry`; `false` when the record keeps no operation
/// (written before vouch kept them, or a decision that was never judged).
pub fn write_case(out: &mut dyn Write, entry: &LabelEntry, record: &Record) -> Result<bool> {
    let Some(operation) = record
        .operation
        .as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok())
    else {
        return Ok(false);
    };
    let case = crate::audit::eval::Case {
        label: entry.label,
        operation,
        note: entry.note.clone(),
        repo_name: Path::new(&record.repo)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned()),
    };
    serde_json::to_writer(&mut *out, &case).context("cannot encode an eval case")?;
    out.write_all(b"\n")?;
    Ok(true)
}

/// `git vouch log --export-eval FILE` (`-`: stdout): one case per labelled
/// operation among `shown`, from its latest decision (a `git vouch approve`
/// line is not a decision on the operation's facts: it is used only when
/// the operation has no other).
fn export_eval(
    shown: &[&Record],
    labels: &HashMap<String, LabelEntry>,
    file: &Path,
) -> Result<ExitStatus> {
    let mut latest: HashMap<&str, &Record> = HashMap::new();
    let mut order = Vec::new();
    for r in shown {
        if !labels.contains_key(&r.operation_id) {
            continue;
        }
        match latest.get(r.operation_id.as_str()) {
            None => {
                order.push(r.operation_id.as_str());
                latest.insert(&r.operation_id, r);
            }
            Some(had) if r.operation_type != "approve" || had.operation_type == "approve" => {
                latest.insert(&r.operation_id, r);
            }
            Some(_) => {}
        }
    }
    let to_stdout = file.as_os_str() == "-";
    let mut out: Box<dyn Write> = if to_stdout {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(std::io::BufWriter::new(
            std::fs::File::create(file)
                .with_context(|| format!("cannot write `{}`", file.display()))?,
        ))
    };
    let mut written = 0;
    let mut without = 0;
    for id in &order {
        if write_case(&mut out, &labels[*id], latest[id])? {
            written += 1;
        } else {
            without += 1;
        }
    }
    out.flush()
        .with_context(|| format!("cannot write `{}`", file.display()))?;
    drop(out);
    if !to_stdout {
        ui::info(&format!(
            "{written} labelled decision(s) written to `{}`",
            file.display()
        ));
    }
    if without > 0 {
        ui::warn(&format!(
            "{without} labelled decision(s) left out: their audit line keeps no operation (logged by an older vouch, or never judged)"
        ));
    }
    Ok(ExitStatus::Allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_accepts_times_dates_and_durations() {
        let now: Timestamp = "2026-11-22T12:00:00Z".parse().unwrap();
        assert_eq!(
            parse_since("2h", now).unwrap().to_string(),
            "2026-11-22T10:00:00Z"
        );
        assert_eq!(
            parse_since("3 days", now).unwrap().to_string(),
            "2026-11-19T12:00:00Z"
        );
        assert_eq!(
            parse_since("2026-11-01", now).unwrap().to_string(),
            "2026-11-01T00:00:00Z"
        );
        assert!(parse_since("yesterday-ish", now).is_err());
    }
}
