//! `git vouch undo` and `git vouch snapshots` (SPEC 3.4, issue 28): the
//! state before an agent's command, put back; the snapshots, listed.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::commands::cli::{SnapshotsAction, SnapshotsArgs, UndoArgs};
use crate::doors::context::Ctx;
use crate::input::text::one_line;
use crate::platform::env::vars;
use crate::undo::{self, Snapshot};
use crate::{doors::exit::ExitStatus, interact::ui, measure::parent};

/// The snapshot store of the work tree at `dir` (made when there is none
/// yet), with the snapshots an earlier vouch kept in the repository's refs
/// moved into it; where `dir` has no repository any more (its `.git` is
/// gone), the store that names the work tree, if any.
fn open(ctx: &Ctx, dir: &Path) -> Result<undo::Store> {
    let state = ctx.dirs()?.state;
    if let Some(store) = undo::Store::open(&state, dir)? {
        let _nested = parent::Nested::arm(&state);
        let env = [(vars::VOUCH_NESTED.to_owned(), parent::nested_marker())];
        match undo::migrate(&store, &env) {
            Ok(0) => {}
            Ok(n) => ui::info(&format!(
                "moved {n} snapshot(s) from this repository's refs/vouch/snapshots/ into vouch's own store (`{}`): no push, clone or bundle carries them now",
                store.dir.display()
            )),
            Err(e) => ui::warn(&format!(
                "the snapshots in refs/vouch/snapshots/ were not moved into vouch's store: {e:#}"
            )),
        }
        return Ok(store);
    }
    undo::Store::orphaned(&state, dir)?.with_context(|| {
        format!(
            "`{}` is not in a git work tree, and vouch keeps no snapshot of one here",
            dir.display()
        )
    })
}

/// Retention (issue 28): lets go of the snapshots that are neither among
/// the newest `[snapshots] keep` nor younger than `[snapshots] days`, in
/// the store. Both limits must be passed, so nothing recent goes. An error
/// is said and stops nothing.
fn retain(ctx: &Ctx, store: &undo::Store) {
    let config = ctx.config(Some(&store.root));
    let keep = usize::try_from(config.snapshot_keep).unwrap_or(usize::MAX);
    match undo::retain(store, keep, config.snapshot_days, jiff::Timestamp::now()) {
        Ok(0) => {}
        Ok(n) => ui::info(&format!(
            "let go of {n} snapshot(s) older than {} days beyond the newest {keep} (`[snapshots]` in vouch's config)",
            config.snapshot_days
        )),
        Err(e) => ui::warn(&format!("snapshot retention did not run: {e:#}")),
    }
}

/// The snapshots that number the commands: an undo's own are listed apart
/// (a number a person read stays the same after an undo).
fn commands(all: &[Snapshot]) -> Vec<&Snapshot> {
    all.iter().filter(|s| s.agent != "undo").collect()
}

/// `git vouch snapshots`.
pub fn snapshots(ctx: &Ctx, args: &SnapshotsArgs) -> Result<ExitStatus> {
    let dir = ctx.dir(args.repo.as_ref());
    let store = open(ctx, &dir)?;
    if let Some(SnapshotsAction::Prune {
        keep,
        days,
        dry_run,
    }) = &args.action
    {
        let all = undo::list(&store)?;
        let config = ctx.config(Some(&store.root));
        let keep = keep.unwrap_or(usize::try_from(config.snapshot_keep).unwrap_or(usize::MAX));
        let days = days.unwrap_or(config.snapshot_days);
        return prune(ctx, &store, &all, keep, days, *dry_run);
    }
    if store.repo.is_some() {
        retain(ctx, &store);
    }
    let all = if args.all {
        undo::list_all(&store)?
    } else {
        undo::list(&store)?
    };
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
    let line = |n: &str, s: &Snapshot| {
        let name = if args.all {
            format!("{}/{}", s.worktree, s.short())
        } else {
            s.short().to_owned()
        };
        format!(
            "{n:>3}  {name:<28} {:<20} {:<10} {}",
            s.time,
            s.agent,
            one_line(&s.command, 80)
        )
    };
    ui::out(&format!(
        "{:>3}  {:<28} {:<20} {:<10} COMMAND",
        "N", "NAME", "TIME", "AGENT"
    ));
    for (i, s) in commands(&all).iter().enumerate() {
        ui::out(&line(&(i + 1).to_string(), s));
    }
    let undos: Vec<&Snapshot> = all.iter().filter(|s| s.agent == "undo").collect();
    if !undos.is_empty() {
        ui::out("states before an undo (undone by name):");
        for s in undos {
            ui::out(&line("-", s));
        }
    }
    ui::info(
        "`git vouch undo` puts back the newest state that differs from now; `git vouch undo N` the state before the N-th command",
    );
    Ok(ExitStatus::Allowed)
}

/// The snapshot `which` names: a number (the N-th command listed, 1 the
/// newest) or a name (an undo's own too).
fn pick(all: &[Snapshot], which: &str) -> Result<Snapshot> {
    let found = match which.parse::<usize>() {
        Ok(n) if n >= 1 => commands(all).get(n - 1).copied(),
        _ => all.iter().find(|s| {
            s.short() == which
                || s.name == which
                || format!("{}/{}", s.worktree, s.short()) == which
                || (which.len() >= 7 && s.id.starts_with(which))
        }),
    };
    found.cloned().with_context(|| {
        format!("there is no snapshot `{which}`; `git vouch snapshots` lists the ones there are")
    })
}

/// `git vouch undo`.
pub fn undo(ctx: &Ctx, args: &UndoArgs) -> Result<ExitStatus> {
    let dir = ctx.dir(args.repo.as_ref());
    let state = ctx.dirs()?.state;
    let mut store = open(ctx, &dir)?;
    if let Some(name) = &args.worktree {
        store = other_tree(&state, &store, name)?;
    }
    let all = undo::list(&store)?;
    if all.is_empty() {
        bail!(
            "there is nothing to undo: no snapshot was taken in this work tree (`git vouch snapshots --all` lists every work tree's)"
        );
    }
    let mut said = Vec::new();
    // `.git` is gone: made again from the store, then filled.
    let (target, current) = if store.repo.is_none() {
        let target = match args.which.as_deref() {
            Some(which) => pick(&all, which)?,
            None => all[0].clone(),
        };
        let (made, done) = undo::recreate(&state, &store, &target)?;
        store = made;
        said.extend(done);
        (target, None)
    } else {
        // The state now first, so that this undo can be undone.
        let before = undo::take(&store, "undo", "git vouch undo")?;
        let now = before.clone().unwrap_or_else(|| all[0].clone());
        let target = match args.which.as_deref() {
            Some(which) => pick(&all, which)?,
            // The newest state that is not the present one.
            None => all
                .iter()
                .find(|s| s.state != now.state && s.name != now.name)
                .cloned()
                .context("there is nothing to undo: every snapshot of this work tree holds the state it is in now")?,
        };
        if let Some(b) = &before {
            said.push(format!(
                "the state before this undo is snapshot {}: `git vouch undo {}` brings it back",
                b.short(),
                b.short()
            ));
        }
        (target, Some(now.id))
    };
    // vouch's own reference-transaction hook lets the refs vouch moves
    // through (a branch moved back by an undo is in the snapshot above).
    let _nested = parent::Nested::arm(&state);
    let env = [(vars::VOUCH_NESTED.to_owned(), parent::nested_marker())];
    let done = undo::restore(&store, &target, current.as_deref(), &args.paths, &env)?;
    ui::info(&format!(
        "put back the state of {} (before `{}`, {})",
        target.short(),
        one_line(&target.command, 80),
        target.time
    ));
    for line in said
        .iter()
        .filter(|l| !l.starts_with("the state before"))
        .chain(&done)
    {
        ui::info(&format!("  {line}"));
    }
    for line in said.iter().filter(|l| l.starts_with("the state before")) {
        ui::info(line);
    }
    if !target.not_copied.is_empty() {
        ui::warn(&format!(
            "not in the snapshot (too large to copy): {}",
            target.not_copied.join(", ")
        ));
    }
    if !target.ignored_dirs.is_empty() {
        ui::info(&format!(
            "ignored directories are named, not kept (build output: make them again): {}",
            target.ignored_dirs.join(", ")
        ));
    }
    if current.is_none() {
        ui::info(
            "the hooks and everything else `.git` held besides refs, index, stash and config are not in a snapshot: run `git vouch install` again, and `git fetch` for the remote branches",
        );
    }
    retain(ctx, &store);
    Ok(ExitStatus::Allowed)
}

/// The store of the work tree `name` of the same repository as `store`:
/// where it still is, that work tree's own; where it was removed, made
/// again (`git worktree add --detach` at the path it had) so that its work
/// can be put back there.
fn other_tree(state: &Path, store: &undo::Store, name: &str) -> Result<undo::Store> {
    let folder = store.dir.join("vouch").join(name);
    let root = std::fs::read(folder.join("root")).with_context(|| {
        format!(
            "no work tree `{name}` has snapshots: `git vouch snapshots --all` lists those that do"
        )
    })?;
    let root = std::path::PathBuf::from(
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(
            root.strip_suffix(b"\n").unwrap_or(&root),
        ),
    );
    if let Some(other) = undo::Store::open(state, &root)?
        && other.tree == name
    {
        return Ok(other);
    }
    if root.exists() {
        bail!(
            "`{}`, where work tree `{name}` was, is something else now: move it away first",
            root.display()
        );
    }
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(&store.root)
        .args(["worktree", "add", "--detach", "-q"])
        .arg(&root)
        .output()
        .context("cannot run `git worktree add`")?;
    if !out.status.success() {
        bail!(
            "cannot make work tree `{name}` again at `{}`: {}",
            root.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    ui::info(&format!(
        "made work tree `{name}` again at {}",
        root.display()
    ));
    let other = undo::Store::open(state, &root)?
        .with_context(|| format!("`{}` is not a work tree", root.display()))?;
    if other.tree != name {
        bail!(
            "git named the work tree made again at `{}` `{}`, not `{name}`: `git vouch undo --worktree {name}` from inside it cannot find its snapshots; its store is `{}`",
            root.display(),
            other.tree,
            store.dir.display()
        );
    }
    Ok(other)
}

/// `git vouch snapshots prune`: only a person at a terminal.
fn prune(
    ctx: &Ctx,
    store: &undo::Store,
    all: &[Snapshot],
    keep: usize,
    days: u32,
    dry_run: bool,
) -> Result<ExitStatus> {
    let old = undo::expired(all, keep, days, jiff::Timestamp::now());
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
    let names: Vec<&str> = old.iter().map(|s| s.name.as_str()).collect();
    undo::delete(store, &names)?;
    undo::collect(store, true)?;
    ui::info(&format!("deleted {} snapshot(s)", old.len()));
    Ok(ExitStatus::Allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(i: usize, time: &str) -> Snapshot {
        Snapshot {
            name: format!("refs/snapshots/main/{i}"),
            id: String::new(),
            worktree: "main".into(),
            state: format!("tree{i}"),
            time: time.to_owned(),
            agent: "claude".into(),
            command: "make".into(),
            not_copied: Vec::new(),
            ignored_dirs: Vec::new(),
            in_progress_kept: true,
            sparse_kept: true,
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
            names(undo::expired(&all, 1, 14, now)),
            ["refs/snapshots/main/2", "refs/snapshots/main/4"]
        );
        assert_eq!(
            names(undo::expired(&all, 100, 14, now)),
            Vec::<String>::new()
        );
        assert_eq!(names(undo::expired(&all, 0, 0, now)).len(), 4);
    }
}
