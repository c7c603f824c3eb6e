//! `vouch log`: the audit log as a table or as JSON lines, filtered.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use jiff::tz::TimeZone;
use jiff::{Span, Timestamp};

use crate::audit::Record;
use crate::cli::LogArgs;
use crate::context::Ctx;
use crate::{ExitStatus, audit, ui};

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

/// `vouch log`.
pub fn log(ctx: &Ctx, args: &LogArgs) -> Result<ExitStatus> {
    // A broken config file is left out (and said): the log is still shown.
    let config = ctx.config(None);
    let path = ctx.log_path(&config)?;
    let (records, problems) = audit::read_all(&path)?;
    for p in &problems {
        ui::warn(&format!("unreadable audit line: {p}"));
    }
    let since = args
        .since
        .as_deref()
        .map(|s| parse_since(s, Timestamp::now()))
        .transpose()?;
    let repo: Option<PathBuf> = args.repo.as_ref().map(|r| {
        let p = ctx.cwd.join(r);
        p.canonicalize().unwrap_or(p)
    });
    let shown: Vec<&Record> = records
        .iter()
        .filter(|r| since.is_none_or(|s| r.timestamp.parse::<Timestamp>().is_ok_and(|t| t >= s)))
        .filter(|r| {
            args.result
                .as_deref()
                .is_none_or(|want| r.result.as_str() == want || r.decision.as_str() == want)
        })
        .filter(|r| {
            repo.as_ref().is_none_or(|want| {
                let have = PathBuf::from(&r.repo);
                have.canonicalize().unwrap_or(have) == *want
            })
        })
        .collect();
    if args.json {
        for r in shown {
            ui::out(&serde_json::to_string(r).context("cannot print a record")?);
        }
        return Ok(ExitStatus::Allowed);
    }
    if shown.is_empty() {
        ui::out(&format!(
            "no decisions logged in `{}` match",
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
        ui::out(&format!(
            "{time:<20} {:<9} {:<12} {:<10} {:<12} {repo:<20} {}{overridden}",
            r.risk_tier.map_or("unknown", crate::classify::Tier::as_str),
            r.result.as_str(),
            r.decision.as_str(),
            r.operation_id,
            refs.join(", ")
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
