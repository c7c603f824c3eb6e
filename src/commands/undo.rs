//! `git vouch undo` and `git vouch snapshots` (SPEC 3.4, issue 28): the
//! state before an agent's command, put back; the snapshots, listed.

use anyhow::{Context, Result, bail};

use crate::cli::{SnapshotsArgs, UndoArgs};
use crate::context::Ctx;
use crate::env::vars;
use crate::git::{self, Snapshot};
use crate::text::one_line;
use crate::{ExitStatus, parent, ui};

/// `git vouch snapshots`.
pub fn snapshots(ctx: &Ctx, args: &SnapshotsArgs) -> Result<ExitStatus> {
    let dir = ctx.dir(args.repo.as_ref());
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
    Ok(ExitStatus::Allowed)
}
