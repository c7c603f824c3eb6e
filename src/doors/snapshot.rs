//! The undo stage at the doors (SPEC 3.4, issue 36 item 7). Before a
//! command its caller runs once answered (an agent's shell command that
//! is not refused and may change something), [`super::drive`] has the
//! work tree snapshotted, within the hook's time; after it ran (an agent's
//! post-tool hook), what it lost is found. The snapshot is
//! [`crate::undo`]'s, the words [`crate::interact::report`]'s, the audit
//! line [`crate::audit`]'s.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::audit;
use crate::classify::config::Config;
use crate::doors::context::Ctx;
use crate::interact::{report, ui};
use crate::undo;

/// A command the caller runs once it has its answer: what the undo stage
/// snapshots the repository for.
pub(crate) struct Next {
    /// The directory it runs in.
    pub dir: PathBuf,
    /// The command, credentials masked.
    pub command: String,
    /// Who runs it (`claude`).
    pub by: &'static str,
    /// The agent's session.
    pub session: Option<String>,
    /// It may remove other work trees: they are snapshotted too.
    pub removes_worktrees: bool,
    /// The policy it was judged by (retention, the audit log).
    pub config: std::sync::Arc<Config>,
    /// How long the snapshot may take before the caller must be answered.
    pub time: Duration,
}

/// What the undo stage did before the command: the snapshot's name, when
/// one was written, and the line to say (what the command before lost,
/// or that no snapshot could be taken in time).
#[derive(Debug, Default)]
pub(crate) struct Snapshotted {
    /// The snapshot's short name, when one was written.
    pub name: Option<String>,
    /// The line to say, to the agent and its person.
    pub note: Option<String>,
}

/// Snapshots the work tree `next` runs in, so that `git vouch undo` can
/// put back what the door could not predict. A snapshot still running
/// when the caller must be answered is given up (the process ends with
/// the answer; the store keeps no half snapshot), said, and the command is
/// judged as if there were none. One that cannot be taken is said, and
/// never stops the command.
///
/// Taking it also tells what the previous command did (for agents without
/// a post-tool hook): when uncommitted work, a branch, a tag or a stash
/// entry was lost since the last snapshot, the note says what, and how to
/// bring it back. A new snapshot leaves an audit line (its name, what it
/// did not copy, what the previous command lost); an unchanged state
/// writes nothing. Retention runs here, in the store, and lets go only of
/// what is past both of its limits.
pub(crate) fn before(ctx: &Ctx, next: &Next) -> Snapshotted {
    let Some(store) = open(ctx, &next.dir) else {
        return Snapshotted::default();
    };
    let (sent, received) = std::sync::mpsc::channel();
    {
        let (store, by, command) = (store.clone(), next.by, next.command.clone());
        // The door may have answered and gone on: nobody to tell then.
        std::thread::spawn(move || sent.send(undo::take(&store, by, &command)).is_ok());
    }
    let taken = match received.recv_timeout(next.time) {
        Ok(Ok(Some(taken))) => taken,
        Ok(Ok(None)) => return Snapshotted::default(),
        Ok(Err(e)) => {
            ui::warn(&format!("no snapshot before this command: {e:#}"));
            return Snapshotted::default();
        }
        Err(_) => {
            let said = format!(
                "vouch: no snapshot before this command: it did not finish within the {} s the hook had left, and `git vouch undo` cannot bring back what this command changes",
                next.time.as_secs()
            );
            ui::warn(said.trim_start_matches("vouch: "));
            return Snapshotted {
                name: None,
                note: Some(said),
            };
        }
    };
    if next.removes_worktrees {
        others(ctx, next);
    }
    // The work tree's snapshots, listed once: what the command before
    // lost, then retention, in the store (only what is past both limits
    // goes, so no command can make a recent snapshot go). Not listed when
    // neither has anything to do (the names of the refs tell).
    let keep = usize::try_from(next.config.snapshot_keep).unwrap_or(usize::MAX);
    let now = jiff::Timestamp::now();
    let all = if undo::settled(&store, &taken, keep, next.config.snapshot_days, now) {
        Vec::new()
    } else {
        undo::list(&store).unwrap_or_else(|e| {
            ui::warn(&format!("snapshot retention did not run: {e:#}"));
            Vec::new()
        })
    };
    let lost = undo::lost_before(&store, &all, &taken).unwrap_or_default();
    if let Err(e) = undo::retain_among(&store, &all, keep, next.config.snapshot_days, now)
        .and_then(|_| undo::collect(&store, false))
    {
        ui::warn(&format!("snapshot retention did not run: {e:#}"));
    }
    let note = lost.as_ref().and_then(report::loss_note);
    let record = audit::SnapshotRecord {
        name: taken.short().to_owned(),
        id: taken.id.clone(),
        command: next.command.clone(),
        not_copied: taken.not_copied.clone(),
    };
    log(
        ctx,
        &next.config,
        audit::Record::undo_line(
            audit::SNAPSHOT_LINE,
            &taken.id,
            next.by,
            &store.root.display().to_string(),
            next.session.clone(),
            Some(record),
            lost,
        ),
    );
    Snapshotted {
        name: Some(taken.short().to_owned()),
        note,
    }
}

/// `git worktree remove --force` or `prune` takes another work tree's
/// work: each other work tree is snapshotted first (in its own name).
fn others(ctx: &Ctx, next: &Next) {
    for other in undo::other_worktrees(&next.dir) {
        let taken = ctx
            .dirs()
            .and_then(|d| undo::Store::open(&d.state, &other))
            .and_then(|s| s.map_or(Ok(None), |s| undo::take(&s, next.by, &next.command)));
        if let Err(e) = taken {
            ui::warn(&format!(
                "no snapshot of the work tree at {}: {e:#}",
                other.display()
            ));
        }
    }
}

/// After `command` ran in `dir` (an agent's post-tool hook, issue 28 item
/// 3): what it lost, found against the snapshot taken before it, written
/// into an audit line, and said in one line naming the `git vouch undo`
/// that brings it back.
pub(crate) fn after(
    ctx: &Ctx,
    dir: &Path,
    command: &str,
    by: &str,
    session: Option<String>,
) -> Option<String> {
    let store = open(ctx, dir)?;
    let before = undo::newest_match(&store).ok()??;
    let lost = match undo::lost_since(&store, &before) {
        Ok(lost) => lost,
        Err(e) => {
            ui::warn(&format!(
                "vouch could not compare the repository with the snapshot before this command: {e:#}"
            ));
            return None;
        }
    };
    undo::mark_checked(&store, &before);
    let note = report::loss_note(&lost);
    if !lost.is_empty() {
        let lost = undo::Loss {
            command: crate::input::text::redact_secrets(command),
            ..lost
        };
        let config = ctx.config(Some(&store.root));
        log(
            ctx,
            &config,
            audit::Record::undo_line(
                audit::AFTER_LINE,
                &before.id,
                by,
                &store.root.display().to_string(),
                session,
                None,
                Some(lost),
            ),
        );
    }
    note
}

/// The snapshot store of the work tree at `dir` (SPEC 3.4), with the
/// snapshots an earlier vouch kept in the repository's refs moved into it;
/// `None` where there is no work tree, or nowhere to keep one (said).
fn open(ctx: &Ctx, dir: &Path) -> Option<undo::Store> {
    let state = match ctx.dirs() {
        Ok(dirs) => dirs.state,
        Err(e) => {
            ui::warn(&format!("vouch cannot open its snapshot store: {e:#}"));
            return None;
        }
    };
    let store = match undo::Store::open(&state, dir) {
        Ok(store) => store?,
        Err(e) => {
            ui::warn(&format!("vouch cannot open its snapshot store: {e:#}"));
            return None;
        }
    };
    let _nested = crate::measure::parent::Nested::arm(&state);
    let env = [(
        crate::platform::env::vars::VOUCH_NESTED.to_owned(),
        crate::measure::parent::nested_marker(),
    )];
    if let Err(e) = undo::migrate(&store, &env) {
        ui::warn(&format!(
            "the snapshots in this repository's refs/vouch/snapshots/ were not moved into vouch's store: {e:#}"
        ));
    }
    Some(store)
}

/// Writes an undo-stage audit line. A line that cannot be written is
/// said, and stops nothing: the snapshot is taken either way.
fn log(ctx: &Ctx, config: &Config, record: audit::Record) {
    let record = audit::Record {
        timestamp: ctx.now().to_string(),
        ..record
    };
    let written = ctx.log_path(config).and_then(|path| {
        audit::append_unsynced(&path, config.log_max_bytes, config.log_keep, &record)
    });
    if let Err(e) = written {
        ui::warn(&format!(
            "{e:#}; this snapshot's audit line was not written"
        ));
    }
}
