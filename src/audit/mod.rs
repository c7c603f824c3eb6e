//! The audit log (SPEC section 7): one JSON object per line, appended under a
//! file lock so that hooks running at once never interleave or lose a line,
//! rotated past a size limit. No key, diff or credential is ever written.
//!
//! Beside it, what is read back from the log (both pure): [`stats`] (the
//! figures of `git vouch stats`) and [`eval`] (calibration against labelled
//! cases, SPEC 8).

pub mod eval;
pub mod stats;

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::classify::Tier;
use crate::classify::config::Mode;
use crate::classify::operation::{Operation, View};
use crate::decide::{Action, AuditResult, Decision, Plan};
use crate::verify::ai::AiRun;
use crate::verify::store::{Borrowed, Empty, Owned, Store, Text};
use crate::verify::verdict::{Combined, Scores, VerifierResult};

/// Version of the record layout.
pub const SCHEMA_VERSION: u32 = 3;

/// The `operation_type` of the line the agent door writes when it takes a
/// snapshot before an agent's command (issue 28): not a decision.
pub const SNAPSHOT_LINE: &str = "snapshot";

/// The `operation_type` of the line an agent's post-tool hook writes when
/// the command it ran lost work (issue 28 item 3): not a decision.
pub const AFTER_LINE: &str = "after-command";

/// The snapshot taken before an agent's command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotRecord {
    /// Its short name, as `git vouch undo` takes it.
    pub name: String,
    /// Its commit.
    pub id: String,
    /// The command it was taken before (credentials masked).
    pub command: String,
    /// Files named in it but not copied (too large).
    #[serde(default)]
    pub not_copied: Vec<String>,
}

/// What an agent's command lost, and each ref it moved, as the audit
/// line keeps them: the undo stage's typed loss ([`crate::undo::Loss`]).
pub use crate::undo::{Loss as LostRecord, RefMove};

/// One ref of a logged operation (or one finding, for a commit or a
/// command): the operation's view of it ([`crate::classify::operation::RefView`]).
pub use crate::classify::operation::RefView as RefRecord;

/// `op` as the audit line keeps it: serialized, every string passed through
/// the credential mask (commit subjects, file names and commands can hold
/// a token; none may reach the log).
pub fn operation_value(op: &Operation) -> Option<Value> {
    fn mask(v: &mut Value) {
        match v {
            Value::String(s) => crate::input::text::redact_secrets_in_place(s),
            Value::Array(items) => items.iter_mut().for_each(mask),
            Value::Object(map) => map.values_mut().for_each(mask),
            _ => {}
        }
    }
    let mut value = serde_json::to_value(op).ok()?;
    mask(&mut value);
    Some(value)
}

/// In observe mode, what enforcing would have done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Would {
    /// Refused it.
    Refused,
    /// Asked a person (at the terminal, or through the agent).
    Asked,
}

pub use crate::verify::ai::AiUsage;

/// One decision: the audit line of SPEC 7, held as `S` says
/// ([`crate::verify::store`]). Writers build the owned `Record` (the runner,
/// `runner.rs`); `git vouch log` reads it back owned, and `git
/// vouch stats` borrowed from each line ([`Record::parse`]): its strings
/// borrowed, the compound values it does not read (refs, reasons, the
/// operation, the built-in checks, verdicts) kept as their raw text. The
/// one layout of the line, for both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "S::Str: Serialize, S::Lazy<Vec<String>>: Serialize + Empty, \
                 S::Lazy<Vec<RefRecord>>: Serialize, S::Lazy<Value>: Serialize, \
                 S::Lazy<VerifierResult>: Serialize, VerifierResult<S>: Serialize, \
                 S::Lazy<SnapshotRecord>: Serialize, S::Lazy<LostRecord>: Serialize",
    deserialize = "S::Str: Deserialize<'de>, S::Lazy<Vec<String>>: Deserialize<'de> + Default, \
                   S::Lazy<Vec<RefRecord>>: Deserialize<'de> + Default, \
                   S::Lazy<Value>: Deserialize<'de>, S::Lazy<VerifierResult>: Deserialize<'de>, \
                   VerifierResult<S>: Deserialize<'de>, S::Lazy<SnapshotRecord>: Deserialize<'de>, \
                   S::Lazy<LostRecord>: Deserialize<'de>"
))]
pub struct Record<S: Store = Owned> {
    /// Layout version.
    pub schema_version: u32,
    /// UTC, RFC 3339.
    pub timestamp: S::Str,
    /// Stable id of the operation (refs and oids), used by `git vouch approve`.
    pub operation_id: S::Str,
    /// `push`, `commit`, `ref-update`, `command`, `approve`.
    pub operation_type: S::Str,
    /// The hook or command that decided.
    pub hook: S::Str,
    /// The tier; `None` when the operation could not be judged at all
    /// (unreadable input, a chained hook's refusal).
    #[serde(deserialize_with = "lenient_tier")]
    pub risk_tier: Option<Tier>,
    /// The provider that proposed the operation, when known.
    pub primary_provider: Option<S::Str>,
    /// The provider whose verdict decided; `None` when no AI verdict did.
    pub verifier_provider: Option<S::Str>,
    /// The model that verified it.
    pub verifier_model: Option<S::Str>,
    /// What the verifiers said.
    pub result: AuditResult,
    /// What happened.
    pub decision: Decision,
    /// The deciding verdict's confidence.
    pub confidence: Option<f64>,
    /// The deciding verdict's scores.
    pub scores: Option<Scores>,
    /// Concerns raised.
    #[serde(default)]
    pub concerns: S::Lazy<Vec<String>>,
    /// The AI verifier's usage, when it was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai: Option<AiUsage>,
    /// A person overrode the verification.
    pub was_overridden: bool,
    /// Why.
    pub override_reason: Option<S::Str>,
    /// Time from start to decision.
    pub latency_ms: u64,
    /// The session (agent session id or `VOUCH_SESSION`).
    pub session_id: Option<S::Str>,
    /// The repository root.
    pub repo: S::Str,
    /// The branch checked out.
    pub branch: Option<S::Str>,
    /// The remote pushed to (credentials redacted).
    pub remote: Option<S::Str>,
    /// The refs (a finding per line for commits and commands).
    #[serde(default)]
    pub refs: S::Lazy<Vec<RefRecord>>,
    /// Why the tier is what it is.
    #[serde(default)]
    pub reasons: S::Lazy<Vec<String>>,
    /// Warnings shown.
    #[serde(default)]
    pub warnings: S::Lazy<Vec<String>>,
    /// `observe` when decisions did not take effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// In observe mode: what enforcing would have done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub would_decide: Option<Would>,
    /// The agent that was told to ask its person (the decision is then
    /// `refused`: the command runs only if the person lets it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_through: Option<S::Str>,
    /// The AI agent whose command ran this git hook, when one said so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driven_by: Option<S::Str>,
    /// Who pushed, as the server knows them (the server door): `alice
    /// (GL_USERNAME)`, or the pushed commit's committer when the server
    /// authenticated nobody.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pusher: Option<S::Str>,
    /// The operation itself, with its facts and tier (credentials masked),
    /// so that a logged decision can be replayed as a `git vouch eval` case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<S::Lazy<Value>>,
    /// The built-in deterministic checks, in the verifier result shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<S::Lazy<VerifierResult>>,
    /// Every verifier's result (the AI verifier's last).
    #[serde(default)]
    pub verifiers: Vec<VerifierResult<S>>,
    /// Rescue refs written before an allowed local rewind or deletion.
    #[serde(skip_serializing_if = "crate::verify::store::is_empty", default)]
    pub rescued: S::Lazy<Vec<String>>,
    /// The snapshot taken before an agent's command (a `snapshot` line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<S::Lazy<SnapshotRecord>>,
    /// What an agent's command lost, found after it ran (an
    /// `after-command` line) or before the next one (a `snapshot` line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<S::Lazy<LostRecord>>,
}

/// Reads a tier, taking a word this version does not know (`unknown` in
/// the first layout) as no tier rather than an unreadable line.
fn lenient_tier<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Tier>, D::Error> {
    let word: Option<Text<'de>> = Option::deserialize(d)?;
    Ok(word.and_then(|w| Tier::from_name(w.as_str())))
}

impl<'a> Record<Borrowed<'a>> {
    /// Reads one audit line, borrowing from it.
    ///
    /// # Errors
    ///
    /// serde's words, when the line is not an audit record.
    pub fn parse(line: &'a str) -> serde_json::Result<Self> {
        // From text already known to be UTF-8: serde does not check each
        // string again, as it must for bytes.
        serde_json::from_str(line)
    }
}

impl Record {
    /// A record stamped now, with every verdict field empty.
    pub fn new(
        operation_id: &str,
        operation_type: &str,
        hook: &str,
        repo: &str,
        result: AuditResult,
        decision: Decision,
    ) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            timestamp: jiff::Timestamp::now().to_string(),
            operation_id: operation_id.to_owned(),
            operation_type: operation_type.to_owned(),
            hook: hook.to_owned(),
            risk_tier: None,
            primary_provider: None,
            verifier_provider: None,
            verifier_model: None,
            result,
            decision,
            confidence: None,
            scores: None,
            concerns: Vec::new(),
            ai: None,
            was_overridden: false,
            override_reason: None,
            latency_ms: 0,
            session_id: None,
            repo: repo.to_owned(),
            branch: None,
            remote: None,
            refs: Vec::new(),
            reasons: Vec::new(),
            warnings: Vec::new(),
            mode: None,
            would_decide: None,
            asked_through: None,
            driven_by: None,
            pusher: None,
            operation: None,
            builtin: None,
            verifiers: Vec::new(),
            rescued: Vec::new(),
            snapshot: None,
            lost: None,
        }
    }
}

/// What the runner decided about an operation, beside the operation's
/// view: the parts of the audit line that are not the operation's.
#[derive(Debug, Clone, Copy)]
pub struct Decided<'a> {
    /// When it was decided.
    pub at: jiff::Timestamp,
    /// The decision's plan: its result, override and, in observe mode,
    /// what enforcing would have done.
    pub plan: &'a Plan,
    /// What happened.
    pub decision: Decision,
    /// The agent that was told to ask its person, when one was.
    pub asked_through: Option<&'a str>,
    /// The AI agent whose command ran this git hook, when one said so.
    pub driven_by: Option<&'a str>,
    /// The AI verifier's run, when it was asked.
    pub ai: Option<&'a AiRun>,
    /// What the verifiers concluded, when they ran.
    pub combined: Option<&'a Combined>,
    /// Every verifier's result.
    pub results: &'a [VerifierResult],
    /// Warnings shown.
    pub warnings: &'a [String],
    /// Rescue refs written before an allowed rewind or deletion.
    pub rescued: &'a [String],
    /// The session.
    pub session: Option<&'a str>,
    /// Time from start to decision.
    pub latency_ms: u64,
    /// Decisions did not take effect (observe mode).
    pub observe: bool,
}

impl Record {
    /// The audit line of the undo stage (not a decision: `git vouch
    /// stats` leaves them out): a snapshot taken before `by`'s command
    /// ([`SNAPSHOT_LINE`]), or what a command lost, found after it ran
    /// ([`AFTER_LINE`]). Its `operation_id` is the snapshot's commit,
    /// abbreviated (the one taken, or the one the command is compared
    /// with).
    pub fn undo_line(
        kind: &str,
        snapshot_id: &str,
        by: &str,
        repo: &str,
        session: Option<String>,
        snapshot: Option<SnapshotRecord>,
        lost: Option<LostRecord>,
    ) -> Self {
        Self {
            session_id: session,
            snapshot,
            lost,
            ..Self::new(
                &snapshot_id.chars().take(12).collect::<String>(),
                kind,
                by,
                repo,
                AuditResult::Skipped,
                Decision::Allowed,
            )
        }
    }

    /// The audit line of one decision on `op`: the operation's part from
    /// its `view`, the rest from what the runner `decided`. The one place
    /// a decision's line is built.
    pub fn decided(op: &Operation, view: &View, decided: &Decided<'_>) -> Self {
        let Decided {
            at,
            plan,
            decision,
            asked_through,
            driven_by,
            ai,
            combined,
            results,
            warnings,
            rescued,
            session,
            latency_ms,
            observe,
        } = *decided;
        Self {
            timestamp: at.to_string(),
            risk_tier: view.tier,
            primary_provider: ai.and_then(|a| a.primary.clone()),
            verifier_provider: ai.and_then(|a| a.provider.clone()),
            verifier_model: ai.and_then(|a| a.model.clone()),
            ai: ai.map(|a| a.usage.clone()),
            confidence: combined.and_then(|c| c.confidence),
            scores: combined.and_then(|c| c.scores),
            concerns: combined.map_or_else(|| view.concerns.clone(), |c| c.concerns.clone()),
            was_overridden: plan.override_reason.is_some(),
            override_reason: plan.override_reason.clone(),
            latency_ms,
            session_id: session.map(str::to_owned),
            branch: view.branch.clone(),
            remote: view.remote.clone(),
            refs: view.refs.clone(),
            reasons: view.reasons.clone(),
            warnings: warnings.to_vec(),
            mode: observe.then_some(Mode::Observe),
            would_decide: plan.would.as_deref().map(|a| match a {
                Action::Ask => Would::Asked,
                _ => Would::Refused,
            }),
            asked_through: asked_through.map(str::to_owned),
            driven_by: driven_by.map(str::to_owned),
            pusher: view.pusher.clone(),
            operation: match op {
                Operation::Unjudged(_) => None,
                op if op.assessment().tier > Tier::None => operation_value(op),
                _ => None,
            },
            builtin: view.tier.map(|_| crate::verify::builtin::builtin(op)),
            verifiers: results.to_vec(),
            rescued: rescued.to_vec(),
            ..Self::new(
                &view.id,
                &view.kind,
                &view.hook,
                &view.repo.display().to_string(),
                plan.result,
                decision,
            )
        }
    }
}

/// Appends one record: one `write` of the whole line, or nothing (a short
/// write is rolled back). Past `max_bytes` the file is rotated first, under
/// the lock: `audit.jsonl` becomes `audit.jsonl.1`, `.1` becomes `.2`, and
/// so on; only the generation past `keep` is dropped, nothing is truncated.
/// The lock is held on a side file so that rotation happens under it too.
pub fn append(path: &Path, max_bytes: u64, keep: u32, record: &Record) -> Result<()> {
    let mut line = serde_json::to_string(record).context("cannot encode the audit record")?;
    line.push('\n');
    append_line(path, max_bytes, keep, &line, true)
}

/// [`append`] without waiting for the disk (`fsync`): for a line that
/// records no decision (a snapshot's), written on an agent's every
/// command, where waiting for a loaded disk would cost more than the
/// snapshot itself. Lines still never interleave.
pub fn append_unsynced(path: &Path, max_bytes: u64, keep: u32, record: &Record) -> Result<()> {
    let mut line = serde_json::to_string(record).context("cannot encode the audit record")?;
    line.push('\n');
    append_line(path, max_bytes, keep, &line, false)
}

fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// Generation `n` of the log at `path` (`audit.jsonl.<n>`; 1 is the newest).
pub fn generation(path: &Path, n: u32) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{n}"));
    path.with_file_name(name)
}

/// The rotated generations that exist, oldest first.
fn generations(path: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for n in 1..=MAX_GENERATIONS {
        let g = generation(path, n);
        if fs::symlink_metadata(&g).is_err() {
            break;
        }
        found.push(g);
    }
    found.reverse();
    found
}

/// Generations read (and renamed) at most, whatever `keep` says.
const MAX_GENERATIONS: u32 = 10_000;

/// What went wrong writing the log, in words a person can act on.
fn why_not(e: &std::io::Error) -> Option<&'static str> {
    use std::io::ErrorKind;
    Some(match e.kind() {
        ErrorKind::StorageFull => "the disk is full",
        ErrorKind::FileTooLarge => "the file size limit is reached (`ulimit -f`)",
        ErrorKind::ReadOnlyFilesystem => "the file system is read-only",
        ErrorKind::PermissionDenied => "its directory or file is not writable",
        ErrorKind::IsADirectory => "the log path is a directory",
        ErrorKind::NotADirectory => "a parent of the log path is not a directory",
        ErrorKind::QuotaExceeded => "the disk quota is exceeded",
        _ => return None,
    })
}

fn append_line(path: &Path, max_bytes: u64, keep: u32, line: &str, sync: bool) -> Result<()> {
    let fail = |e: std::io::Error| {
        let why = why_not(&e).map(|w| format!(": {w}")).unwrap_or_default();
        anyhow::Error::new(e).context(format!(
            "cannot write the audit log `{}`{why}",
            path.display()
        ))
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(fail)?;
    }
    if path.is_dir() {
        return Err(fail(std::io::Error::from(std::io::ErrorKind::IsADirectory)));
    }
    let lock = OpenOptions::new()
        .create(true)
        .append(true)
        .open(lock_path(path))
        .map_err(fail)?;
    lock.lock().map_err(fail)?;
    let written = write_locked(path, max_bytes, keep, line.as_bytes(), sync);
    File::unlock(&lock).ok();
    written.map_err(fail)
}

/// Rotates if needed and writes `line`; the caller holds the lock.
fn write_locked(
    path: &Path,
    max_bytes: u64,
    keep: u32,
    line: &[u8],
    sync: bool,
) -> std::io::Result<()> {
    let len = fs::metadata(path).map_or(0, |m| m.len());
    if len > 0 && len + line.len() as u64 > max_bytes {
        rotate(path, keep)?;
    }
    let mut open = OpenOptions::new();
    open.create(true).append(true);
    // Read too, to see how the file ends; a log that may only be appended to
    // is written all the same.
    let (mut file, readable) = match open.clone().read(true).open(path) {
        Ok(f) => (f, true),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => (open.open(path)?, false),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    // A line left without its newline (a writer killed mid-write) is ended
    // first, so that this record is not glued to it.
    let mut bytes = Vec::with_capacity(line.len() + 1);
    if readable && len > 0 && !ends_with_newline(&mut file, len)? {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line);
    // One write of the whole line: with O_APPEND and the lock, lines never
    // interleave; a short write is taken back, so no half line stays.
    match file.write(&bytes) {
        Ok(n) if n == bytes.len() => {
            if sync {
                file.sync_data().ok();
            }
            Ok(())
        }
        Ok(_) => {
            file.set_len(len).ok();
            Err(std::io::Error::other(
                "only part of the record could be written (a full disk or a file size limit), and that part was taken back",
            ))
        }
        Err(e) => {
            file.set_len(len).ok();
            Err(e)
        }
    }
}

fn ends_with_newline(file: &mut File, len: u64) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// Shifts every generation up by one (the one past `keep` is dropped) and
/// makes the current file generation 1: renames only, nothing truncated.
fn rotate(path: &Path, keep: u32) -> std::io::Result<()> {
    let keep = keep.clamp(1, MAX_GENERATIONS);
    match fs::remove_file(generation(path, keep)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    for n in (1..keep).rev() {
        match fs::rename(generation(path, n), generation(path, n + 1)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    fs::rename(path, generation(path, 1))
}

/// Makes a file-size limit (`ulimit -f`, SIGXFSZ) fail the write with EFBIG,
/// which is reported, instead of killing vouch and the git command with it.
/// Called once by the binary, before any command runs.
pub fn survive_file_size_limit() {
    static HIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    signal_hook::flag::register(signal_hook::consts::SIGXFSZ, &HIT).ok();
}

/// Whether the audit log at `path` can take a record now: `git vouch doctor`.
/// Nothing is written: the directory and the file are opened for appending.
pub fn check_writable(path: &Path) -> Result<()> {
    let fail = |e: std::io::Error| {
        let why = why_not(&e).map(|w| format!(": {w}")).unwrap_or_default();
        anyhow::Error::new(e).context(format!(
            "the audit log `{}` cannot be written{why}",
            path.display()
        ))
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(fail)?;
    }
    if path.is_dir() {
        return Err(fail(std::io::Error::from(std::io::ErrorKind::IsADirectory)));
    }
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(lock_path(path))
        .map_err(fail)?;
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(fail)?;
    Ok(())
}

/// How many blocks were logged since `since` in this session (when there is
/// a session id) or else in this repository: the escalation count (SPEC 6).
pub fn recent_blocks(
    path: &Path,
    since: jiff::Timestamp,
    session: Option<&str>,
    repo: &str,
) -> usize {
    // Each line read borrowed (a hook pays this when it refuses): only
    // the ids of matching blocks are kept.
    let stamp = |r: &Record<Borrowed<'_>>| r.timestamp.as_str().parse::<jiff::Timestamp>().ok();
    let mut blocks = std::collections::HashSet::new();
    // Newest first, and no further back than the first file that starts
    // before `since`: older generations cannot hold a recent block.
    let mut files = vec![path.to_path_buf()];
    files.extend(generations(path).into_iter().rev());
    for file in files {
        let mut first = true;
        let mut starts_before = false;
        let read = each_line(&file, |_, line| {
            let Ok(r) = Record::parse(line) else {
                return;
            };
            if std::mem::take(&mut first) {
                starts_before = stamp(&r).is_none_or(|t| t < since);
            }
            let here = match session {
                Some(s) => r.session_id.as_ref().map(Text::as_str) == Some(s),
                None => r.repo.as_str() == repo,
            };
            if r.result == AuditResult::Block && here && stamp(&r).is_some_and(|t| t >= since) {
                // The same push retried is one block, not three.
                blocks.insert(r.operation_id.as_str().to_owned());
            }
        });
        if read.is_err() || starts_before {
            break;
        }
    }
    blocks.len()
}

/// Every record, oldest first, from every rotated generation and the
/// current file. Lines that cannot be read as a record are reported, not
/// dropped silently.
pub fn read_all(path: &Path) -> Result<(Vec<Record>, Vec<String>)> {
    let mut records = Vec::new();
    let mut problems = Vec::new();
    // A shared lock, where it can be taken, keeps a rotation from moving
    // the files while they are read.
    let lock = File::open(lock_path(path)).ok();
    if let Some(l) = &lock {
        l.lock_shared().ok();
    }
    let mut files = generations(path);
    files.push(path.to_path_buf());
    for file in files {
        read_file(&file, &mut records, &mut problems)?;
    }
    Ok((records, problems))
}

/// The log's files, oldest first: every rotated generation, then the
/// current file (which may not exist).
pub fn files(path: &Path) -> Vec<PathBuf> {
    let mut files = generations(path);
    files.push(path.to_path_buf());
    files
}

/// A shared lock on the log, where it can be taken: while it is held, no
/// rotation moves the files being read.
pub fn read_lock(path: &Path) -> Option<File> {
    let lock = File::open(lock_path(path)).ok()?;
    lock.lock_shared().ok();
    Some(lock)
}

/// Calls `each` with every non-blank line of one file of the log (none
/// when it does not exist) and its 1-based line number: the lines
/// [`read_all`] reads as records. A torn line may end inside a character:
/// a file that is not valid UTF-8 is read with replacement characters, and
/// such a line is reported where it is read; valid UTF-8 (the usual case)
/// is taken as it is, uncopied. `git vouch stats` reads each line as a
/// borrowed [`Record::parse`] instead of a whole owned [`Record`].
pub fn each_line(file: &Path, mut each: impl FnMut(usize, &str)) -> Result<()> {
    let text = match fs::read(file) {
        Ok(t) => String::from_utf8(t)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot read `{}`", file.display())),
    };
    // `str::lines`, with the newline found by `memchr` (the log's lines
    // are long: this is most of the cost of splitting them).
    let mut rest = text.as_str();
    let mut n = 0;
    while !rest.is_empty() {
        n += 1;
        let (line, next) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(at) => (&rest[..at], &rest[at + 1..]),
            None => (rest, ""),
        };
        rest = next;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if !line.trim().is_empty() {
            each(n, line);
        }
    }
    Ok(())
}

/// [`each_line`] over every file of the log, oldest first, under the
/// shared lock, with the file each line comes from.
pub fn for_each_line(path: &Path, mut each: impl FnMut(&Path, usize, &str)) -> Result<()> {
    let _lock = read_lock(path);
    for file in files(path) {
        each_line(&file, |n, line| each(&file, n, line))?;
    }
    Ok(())
}

/// Appends the records of one file (none when it does not exist).
fn read_file(file: &Path, records: &mut Vec<Record>, problems: &mut Vec<String>) -> Result<()> {
    each_line(file, |n, line| match serde_json::from_str::<Record>(line) {
        Ok(v) => records.push(v),
        Err(e) => problems.push(format!("`{}` line {n}: {e}", file.display())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(id: &str, at: &str) -> Record {
        Record {
            timestamp: at.to_owned(),
            ..Record::new(
                id,
                "push",
                "pre-push",
                "/r",
                AuditResult::Block,
                Decision::Refused,
            )
        }
    }

    #[test]
    fn recent_blocks_are_counted_across_generations_back_to_since() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let since: jiff::Timestamp = "2026-11-23T10:00:00Z".parse().unwrap();
        for (i, at) in [
            "2026-11-23T08:00:00Z",
            "2026-11-23T09:00:00Z",
            "2026-11-23T10:30:00Z",
            "2026-11-23T10:40:00Z",
            "2026-11-23T10:50:00Z",
        ]
        .iter()
        .enumerate()
        {
            append(&path, 4096, 10, &block(&format!("op{i}"), at)).unwrap();
            // One record per file: each append rotates the one before.
            if i < 4 {
                rotate(&path, 10).unwrap();
            }
        }
        assert!(generation(&path, 4).exists());
        assert_eq!(recent_blocks(&path, since, None, "/r"), 3);
        let (all, problems) = read_all(&path).unwrap();
        assert_eq!((all.len(), problems.len()), (5, 0));
        assert_eq!(all[0].operation_id, "op0", "oldest first");
    }

    #[test]
    fn a_failed_write_says_why_and_touches_no_other_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        append(&path, 1 << 20, 10, &block("a", "2026-11-23T10:00:00Z")).unwrap();
        let before = fs::read(&path).unwrap();
        let full = dir.path().join("full.jsonl");
        std::os::unix::fs::symlink("/dev/full", &full).unwrap();
        let e = append(&full, 1 << 20, 10, &block("b", "2026-11-23T10:00:00Z")).unwrap_err();
        assert!(format!("{e:#}").contains("the disk is full"), "{e:#}");
        assert_eq!(fs::read(&path).unwrap(), before);
        let e = append(dir.path(), 1 << 20, 10, &block("c", "2026-11-23T10:00:00Z")).unwrap_err();
        assert!(format!("{e:#}").contains("is a directory"), "{e:#}");
    }
}
