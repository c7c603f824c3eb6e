//! `git vouch undo` and `git vouch snapshots` (SPEC 3.4, issue 28): the
//! state before an agent's command, put back; the snapshots, listed.

use anyhow::{Context, Result, bail};

use crate::cli::{SnapshotsAction, SnapshotsArgs, UndoArgs};
use crate::context::Ctx;
use crate::env::vars;
use crate::git::{self, Snapshot};
use crate::text::one_line;
use crate::{ExitStatus, interact::ui, parent};

/// Retention (issue 28): lets go of the snapshots that are neither among
/// the newest `[snapshots] keep` nor younger than `[snapshots] days`. Run
/// at a person's commands (`git vouch undo`, `git vouch snapshots`, and
/// `git commit` once the agent door has noted more snapshots than are
/// kept), never from an agent: not at the agent door, and not in a command
/// an agent runs. Both limits must be passed, so even a command an agent
/// disguised as a person's lets go of nothing recent. An error is said and
/// stops nothing.
pub fn retain(ctx: &Ctx, dir: &std::path::Path) {
    if crate::env::agent_driving(ctx.env.as_ref()).is_some() {
        return;
    }
    let root = git::repo_at(dir).map(|r| r.root());
    let config = ctx.config(root.as_deref());
    let Ok(all) = git::snapshots(dir) else {
        return;
    };
    let keep = usize::try_from(config.snapshot_keep).unwrap_or(usize::MAX);
    let old = expired(&all, keep, config.snapshot_days, jiff::Timestamp::now());
    if !old.is_empty() {
        let Ok(dirs) = ctx.dirs() else { return };
        let _nested = parent::Nested::arm(&dirs.state);
        let env = [(vars::VOUCH_NESTED.to_owned(), parent::nested_marker())];
        let names: Vec<&str> = old.iter().map(|s| s.name.as_str()).collect();
        match git::delete_snapshots(dir, &names, &env) {
            Ok(()) => ui::info(&format!(
                "let go of {} snapshot(s) older than {} days beyond the newest {keep} (`[snapshots]` in vouch's config)",
                old.len(),
                config.snapshot_days
            )),
            Err(e) => {
                ui::warn(&format!("snapshot retention did not run: {e:#}"));
                return;
            }
        }
    }
    git::clear_prune_due(dir);
}

/// `git vouch snapshots`.
pub fn snapshots(ctx: &Ctx, args: &SnapshotsArgs) -> Result<ExitStatus> {
    let dir = ctx.dir(args.repo.as_ref());
    if let Some(SnapshotsAction::Prune {
        keep,
        days,
        dry_run,
    }) = &args.action
    {
        let all = git::snapshots(&dir)?;
        let config = ctx.config(git::repo_at(&dir).map(|r| r.root()).as_deref());
        let keep = keep.unwrap_or(usize::try_from(config.snapshot_keep).unwrap_or(usize::MAX));
        let days = days.unwrap_or(config.snapshot_days);
        return prune(ctx, &dir, &all, keep, days, *dry_run);
    }
    retain(ctx, &dir);
    let all = git::snapshots(&dir)?;
    if args.json {
        ui::out(&serde_json::to_string(&all)?);
        return Ok(ExitStatus::Allowed);
    }
    if all.is_empty() {
        ui::info(
            "no snapshots: vouch takes one before each agent command that may change the repository",
        );
        return Ok(ExitStatus::Allowed);
    }
    ui::out(&format!(
        "{:>3}  {:<28} {:<20} {:<10} COMMAND",
        "N", "NAME", "TIME", "AGENT"
    ));
    for (i, s) in all.iter().enumerate() {
        ui::out(&format!(
            "{:>3}  {:<28} {:<20} {:<10} {}",
            i + 1,
            s.short(),
            s.time,
            s.agent,
            one_line(&s.command, 80)
        ));
    }
    ui::info(
        "`git vouch undo` puts back the state before the newest; `git vouch undo N` before the N-th",
    );
    Ok(ExitStatus::Allowed)
}

/// The snapshot `which` names: a number (1 is the newest) or a name.
fn pick(all: &[Snapshot], which: Option<&str>) -> Result<Snapshot> {
    let which = which.unwrap_or("1");
    let found = match which.parse::<usize>() {
        Ok(n) if n >= 1 => all.get(n - 1),
        _ => all
            .iter()
            .find(|s| s.short() == which || s.name == which || s.id.starts_with(which)),
    };
    found.cloned().with_context(|| {
        format!("there is no snapshot `{which}`; `git vouch snapshots` lists the ones there are")
    })
}

/// `git vouch undo`.
pub fn undo(ctx: &Ctx, args: &UndoArgs) -> Result<ExitStatus> {
    let dir = ctx.dir(args.repo.as_ref());
    let all = git::snapshots(&dir)?;
    if all.is_empty() {
        bail!("there is nothing to undo: no snapshot was taken in this repository");
    }
    let target = pick(&all, args.which.as_deref())?;
    // The state now first, so that this undo can be undone.
    let before = git::take_snapshot(&dir, "undo", &format!("git vouch undo {}", target.short()))?;
    let current = before
        .as_ref()
        .map_or_else(|| all[0].id.clone(), |s| s.id.clone());
    // vouch's own reference-transaction hook lets the refs vouch moves
    // through (a branch moved back by an undo is in the snapshot above).
    let state = ctx.dirs()?.state;
    let _nested = parent::Nested::arm(&state);
    let env = [(vars::VOUCH_NESTED.to_owned(), parent::nested_marker())];
    let done = git::restore_snapshot(&dir, &target, &current, &args.paths, &env)?;
    ui::info(&format!(
        "put back the state of {} (before `{}`, {})",
        target.short(),
        one_line(&target.command, 80),
        target.time
    ));
    for line in &done {
        ui::info(&format!("  {line}"));
    }
    if let Some(b) = &before {
        ui::info(&format!(
            "the state before this undo is snapshot {}: `git vouch undo {}` brings it back",
            b.short(),
            b.short()
        ));
    }
    if !target.not_copied.is_empty() {
        ui::warn(&format!(
            "not in the snapshot (too large to copy): {}",
            target.not_copied.join(", ")
        ));
    }
    retain(ctx, &dir);
    Ok(ExitStatus::Allowed)
}

/// The snapshots retention lets go: neither among the newest `keep` nor
/// taken within `days` of `now`. A snapshot whose time cannot be read is
/// kept.
fn expired(all: &[Snapshot], keep: usize, days: u32, now: jiff::Timestamp) -> Vec<&Snapshot> {
    let cutoff = now - jiff::SignedDuration::from_hours(24 * i64::from(days));
    all.iter()
        .skip(keep)
        .filter(|s| s.time.parse::<jiff::Timestamp>().is_ok_and(|t| t < cutoff))
        .collect()
}

/// `git vouch snapshots prune`: only a person at a terminal.
fn prune(
    ctx: &Ctx,
    dir: &std::path::Path,
    all: &[Snapshot],
    keep: usize,
    days: u32,
    dry_run: bool,
) -> Result<ExitStatus> {
    let old = expired(all, keep, days, jiff::Timestamp::now());
    if old.is_empty() {
        ui::info(&format!(
            "nothing to prune: {} snapshot(s), all among the newest {keep} or younger than {days} days",
            all.len()
        ));
        return Ok(ExitStatus::Allowed);
    }
    let line = |s: &Snapshot| format!("{} ({}, `{}`)", s.short(), s.time, one_line(&s.command, 60));
    if dry_run {
        for s in &old {
            ui::info(&format!("would delete {}", line(s)));
        }
        ui::info("run it again without `--dry-run`, at a terminal, to delete them");
        return Ok(ExitStatus::Allowed);
    }
    let mut what = format!("This deletes {} snapshot(s) for good:\n", old.len());
    for s in old.iter().take(20) {
        what.push_str(&format!("  {}\n", line(s)));
    }
    what.push_str("What only they hold can no longer be undone.");
    if !super::person::confirms(ctx, "git vouch snapshots prune", &what) {
        return Ok(ExitStatus::Refused);
    }
    let state = ctx.dirs()?.state;
    let _nested = parent::Nested::arm(&state);
    let env = [(vars::VOUCH_NESTED.to_owned(), parent::nested_marker())];
    let names: Vec<&str> = old.iter().map(|s| s.name.as_str()).collect();
    git::delete_snapshots(dir, &names, &env)?;
    ui::info(&format!("deleted {} snapshot(s)", old.len()));
    Ok(ExitStatus::Allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(i: usize, time: &str) -> Snapshot {
        Snapshot {
            name: format!("refs/vouch/snapshots/{i}"),
            id: String::new(),
            time: time.to_owned(),
            agent: "claude".into(),
            command: "make".into(),
            not_copied: Vec::new(),
            in_progress_kept: true,
        }
    }

    #[test]
    fn retention_keeps_the_newest_and_the_recent() {
        let now: jiff::Timestamp = "2026-11-26T12:00:00Z".parse().unwrap();
        let all = vec![
            snap(1, "2026-11-26T11:00:00Z"),
            snap(2, "2026-11-01T11:00:00Z"),
            snap(3, "2026-11-20T11:00:00Z"),
            snap(4, "2026-10-01T11:00:00Z"),
            snap(5, "not a time"),
        ];
        let names = |v: Vec<&Snapshot>| v.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        // Newest 1 kept, and everything younger than 14 days.
        assert_eq!(
            names(expired(&all, 1, 14, now)),
            ["refs/vouch/snapshots/2", "refs/vouch/snapshots/4"]
        );
        assert_eq!(names(expired(&all, 100, 14, now)), Vec::<String>::new());
        assert_eq!(names(expired(&all, 0, 0, now)).len(), 4);
    }
}
