//! The audit log (SPEC section 7): one JSON object per line, appended under a
//! file lock so that hooks running at once never interleave or lose a line,
//! rotated past a size limit. No key, diff or credential is ever written.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::classify::Tier;
use crate::config::Mode;
use crate::policy::{AuditResult, Decision};
use crate::verdict::{Scores, VerifierResult};

/// Version of the record layout.
pub const SCHEMA_VERSION: u32 = 2;

/// One ref of a logged push.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefRecord {
    /// The remote ref.
    pub remote_ref: String,
    /// Old value on the remote.
    pub old_oid: String,
    /// New value.
    pub new_oid: String,
    /// How it changes.
    pub change: String,
    /// Its tier.
    pub tier: Tier,
    /// The rule that set the tier.
    pub rule: String,
    /// Whether the remote's tip was known here: known, unseen, unknown, none.
    pub remote_tip: String,
    /// Commits that leave the ref, when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_commits: Option<usize>,
}

impl RefRecord {
    /// A finding's tier and rule, with no ref (a staged file, a shell
    /// command: its reason, which names what it is about, is in the record's
    /// `reasons`); a local ref update fills in the ref's fields.
    pub fn finding(change: &str, risk: &crate::classify::RefRisk) -> Self {
        Self {
            remote_ref: String::new(),
            old_oid: String::new(),
            new_oid: String::new(),
            change: change.to_owned(),
            tier: risk.tier,
            rule: risk.rule.as_str().to_owned(),
            remote_tip: "none".into(),
            lost_commits: None,
        }
    }
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

/// What the AI verifier cost (absent when it was not asked).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AiUsage {
    /// Tokens sent to models.
    pub tokens_in: Option<u64>,
    /// Tokens received.
    pub tokens_out: Option<u64>,
    /// Estimated cost.
    pub cost_usd: Option<f64>,
    /// HTTP and feedback retries.
    pub retries: u32,
    /// Escalated to a tiebreaker.
    pub escalated: bool,
    /// The verdict was reused from the cache (no request).
    pub cached: bool,
    /// How long the AI verifier took.
    pub latency_ms: u64,
}

/// One decision: the audit line of SPEC 7. Written by the runner
/// (`commands/decide.rs`), read back with the same type by `vouch log`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Layout version.
    pub schema_version: u32,
    /// UTC, RFC 3339.
    pub timestamp: String,
    /// Stable id of the operation (refs and oids), used by `vouch approve`.
    pub operation_id: String,
    /// `push`, `commit`, `ref-update`, `command`, `approve`.
    pub operation_type: String,
    /// The hook or command that decided.
    pub hook: String,
    /// The tier; `None` when the operation could not be judged at all
    /// (unreadable input, a chained hook's refusal).
    #[serde(deserialize_with = "lenient_tier")]
    pub risk_tier: Option<Tier>,
    /// The provider that proposed the operation, when known.
    pub primary_provider: Option<String>,
    /// The provider whose verdict decided; `None` when no AI verdict did.
    pub verifier_provider: Option<String>,
    /// The model that verified it.
    pub verifier_model: Option<String>,
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
    pub concerns: Vec<String>,
    /// The AI verifier's usage, when it was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai: Option<AiUsage>,
    /// A person overrode the verification.
    pub was_overridden: bool,
    /// Why.
    pub override_reason: Option<String>,
    /// Time from start to decision.
    pub latency_ms: u64,
    /// The session (agent session id or `VOUCH_SESSION`).
    pub session_id: Option<String>,
    /// The repository root.
    pub repo: String,
    /// The branch checked out.
    pub branch: Option<String>,
    /// The remote pushed to (credentials redacted).
    pub remote: Option<String>,
    /// The refs (a finding per line for commits and commands).
    #[serde(default)]
    pub refs: Vec<RefRecord>,
    /// Why the tier is what it is.
    #[serde(default)]
    pub reasons: Vec<String>,
    /// Warnings shown.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// `observe` when decisions did not take effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// In observe mode: what enforcing would have done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub would_decide: Option<Would>,
    /// The agent that was told to ask its person (the decision is then
    /// `refused`: the command runs only if the person lets it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_through: Option<String>,
    /// The AI agent whose command ran this git hook, when one said so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driven_by: Option<String>,
    /// The built-in deterministic checks, in the verifier result shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<VerifierResult>,
    /// Every verifier's result (the AI verifier's last).
    #[serde(default)]
    pub verifiers: Vec<VerifierResult>,
    /// Rescue refs written before an allowed local rewind or deletion.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub rescued: Vec<String>,
}

/// Reads a tier, taking a word this version does not know (`unknown` in
/// the first layout) as no tier rather than an unreadable line.
fn lenient_tier<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Tier>, D::Error> {
    let word: Option<String> = Option::deserialize(d)?;
    Ok(word.and_then(|w| serde_json::from_value(Value::String(w)).ok()))
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
            builtin: None,
            verifiers: Vec::new(),
            rescued: Vec::new(),
        }
    }
}

/// Appends one record. The lock is held on a side file so that rotation
/// (a rename) happens under it too.
pub fn append(path: &Path, max_bytes: u64, record: &Record) -> Result<()> {
    let mut line = serde_json::to_string(record).context("cannot encode the audit record")?;
    line.push('\n');
    append_line(path, max_bytes, &line)
}

fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// The rotated file beside `path`.
pub fn rotated_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".1");
    path.with_file_name(name)
}

fn append_line(path: &Path, max_bytes: u64, line: &str) -> Result<()> {
    let context = || format!("cannot write the audit log `{}`", path.display());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(context)?;
    }
    let lock = OpenOptions::new()
        .create(true)
        .append(true)
        .open(lock_path(path))
        .with_context(context)?;
    lock.lock().with_context(context)?;
    let len = fs::metadata(path).map_or(0, |m| m.len());
    if len > 0 && len + line.len() as u64 > max_bytes {
        fs::rename(path, rotated_path(path)).with_context(context)?;
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(context)?;
    // One write of the whole line: with O_APPEND and the lock, lines never interleave.
    file.write_all(line.as_bytes()).with_context(context)?;
    file.sync_data().ok();
    drop(file);
    File::unlock(&lock).ok();
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
    let Ok((records, _)) = read_all(path) else {
        return 0;
    };
    records
        .iter()
        .filter(|r| r.result == AuditResult::Block)
        .filter(|r| {
            r.timestamp
                .parse::<jiff::Timestamp>()
                .is_ok_and(|t| t >= since)
        })
        .filter(|r| match session {
            Some(s) => r.session_id.as_deref() == Some(s),
            None => r.repo == repo,
        })
        // The same push retried is one block, not three.
        .map(|r| r.operation_id.as_str())
        .collect::<std::collections::HashSet<_>>()
        .len()
}

/// Every record, oldest first, from the rotated file and the current one.
/// Lines that cannot be read as a record are reported, not dropped silently.
pub fn read_all(path: &Path) -> Result<(Vec<Record>, Vec<String>)> {
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for file in [rotated_path(path), path.to_path_buf()] {
        let text = match fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot read `{}`", file.display())),
        };
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Record>(line) {
                Ok(v) => records.push(v),
                Err(e) => problems.push(format!("`{}` line {}: {e}", file.display(), i + 1)),
            }
        }
    }
    Ok((records, problems))
}
