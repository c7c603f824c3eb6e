//! `git vouch label <operation_id> dangerous|safe [--note TEXT]`: a person's
//! ground truth for a logged decision, for the catch and false-positive
//! rates of `git vouch stats` and the eval cases of `git vouch log --export-eval`.
//!
//! Labels live in the state dir's `labels.jsonl`, one line appended per
//! label under a lock; the latest label of an operation wins. Labelling
//! needs no terminal: a label only adds information for measuring, it never
//! lets an operation through or lowers the guard.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use jiff::Timestamp;

use crate::audit::stats::{LabelEntry, read_labels};
use crate::commands::cli::LabelArgs;
use crate::doors::context::Ctx;
use crate::{audit, doors::exit::ExitStatus, interact::ui};

/// The labels file in `state`.
pub fn labels_path(state: &Path) -> PathBuf {
    state.join("labels.jsonl")
}

/// The labels in force, by operation id (none when the file does not exist).
/// Unreadable lines are warned about and left out.
pub fn load(state: &Path) -> Result<HashMap<String, LabelEntry>> {
    let path = labels_path(state);
    let text = match fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read `{}`", path.display())),
    };
    let (labels, problems) = read_labels(&text);
    for p in problems {
        ui::warn(&format!("unreadable label in `{}`: {p}", path.display()));
    }
    Ok(labels)
}

/// Appends `entry` to the labels file under an exclusive lock, as one write.
fn append(state: &Path, entry: &LabelEntry) -> Result<()> {
    let path = labels_path(state);
    let fail = || format!("cannot write the labels file `{}`", path.display());
    fs::create_dir_all(state).with_context(fail)?;
    let mut line = serde_json::to_string(entry).context("cannot encode the label")?;
    line.push('\n');
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(fail)?;
    file.lock().with_context(fail)?;
    let written = file.write_all(line.as_bytes());
    File::unlock(&file).ok();
    written.with_context(fail)
}

/// `git vouch label`.
pub fn label(ctx: &Ctx, args: &LabelArgs) -> Result<ExitStatus> {
    let id = args.operation_id.trim();
    let config = ctx.config(None);
    let log = ctx.log_path(&config)?;
    let (records, _) = audit::read_all(&log)?;
    let decisions = records.iter().filter(|r| r.operation_id == id).count();
    if decisions == 0 {
        bail!(
            "no decision on operation `{id}` is in the audit log `{}`: label an id that `git vouch log` shows",
            log.display()
        );
    }
    let state = ctx.dirs()?.state;
    let earlier = load(&state)?.remove(id);
    let entry = LabelEntry {
        operation_id: id.to_owned(),
        label: args.label,
        // The note may end up in an eval corpus that is shared.
        note: args.note.as_deref().map(crate::input::text::redact_secrets),
        timestamp: Timestamp::now().to_string(),
    };
    append(&state, &entry)?;
    let replaced = earlier
        .filter(|e| e.label != entry.label)
        .map(|e| format!(" (it was labelled {} before)", e.label.as_str()))
        .unwrap_or_default();
    ui::info(&format!(
        "operation {id} labelled {}, {decisions} decision(s) logged on it{replaced}",
        entry.label.as_str()
    ));
    Ok(ExitStatus::Allowed)
}
