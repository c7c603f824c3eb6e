//! Review requests and approvals, files in the state dir.
//!
//! A refused operation leaves `reviews/<id>.json`; `git vouch approve <id>`, at a
//! terminal, turns it into `approvals/<id>.json`, valid for 15 minutes and
//! good for one use. The id is a hash of the repository, the remote and every
//! ref with its oids, so an approval cannot be carried to other refs.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::classify::operation::{Operation, View};

/// How long an approval stays valid.
pub const APPROVAL_TTL: SignedDuration = SignedDuration::from_mins(15);

pub use crate::classify::operation::ReviewRef;

/// What a person reads before approving.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReviewRequest {
    /// The operation id.
    pub operation_id: String,
    /// When it was refused.
    pub created_at: String,
    /// The repository root.
    pub repo: String,
    /// The remote (credentials redacted).
    pub remote: String,
    /// The tier.
    pub tier: String,
    /// The refs and oids.
    pub refs: Vec<ReviewRef>,
    /// Why the tier is what it is.
    pub reasons: Vec<String>,
    /// What the verifiers said.
    pub concerns: Vec<String>,
    /// Why it was refused.
    pub refused_because: String,
    /// How a person approves it.
    pub how_to_approve: String,
}

/// A person's approval.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Approval {
    /// The operation id.
    pub operation_id: String,
    /// The refs it covers.
    pub refs: Vec<ReviewRef>,
    /// When it was given.
    pub approved_at: String,
    /// When it lapses.
    pub expires_at: String,
}

pub use crate::classify::operation::operation_id;

impl ReviewRequest {
    /// The review request for the operation seen as `view`, refused at
    /// `created_at` because of `why`, with the verifiers' `concerns`.
    pub fn of(view: &View, created_at: String, concerns: Vec<String>, why: &str) -> Self {
        Self {
            operation_id: view.id.clone(),
            created_at,
            repo: view.repo.display().to_string(),
            remote: view.remote.clone().unwrap_or_default(),
            tier: view.tier.unwrap_or_default().to_string(),
            refs: view.bound.clone(),
            reasons: view.reasons.clone(),
            concerns,
            refused_because: why.to_owned(),
            how_to_approve: format!("git vouch approve {} (at a terminal)", view.id),
        }
    }
}

fn valid_id(id: &str) -> bool {
    id.len() == 12 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

fn review_path(state: &Path, id: &str) -> PathBuf {
    state.join("reviews").join(format!("{id}.json"))
}

fn approval_path(state: &Path, id: &str) -> PathBuf {
    state.join("approvals").join(format!("{id}.json"))
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    crate::platform::files::write_atomic(
        path,
        serde_json::to_string_pretty(value)?.as_bytes(),
        0o600,
    )
    .with_context(|| format!("cannot write `{}`", path.display()))
}

/// Writes a review request and returns its path.
pub fn write_request(state: &Path, request: &ReviewRequest) -> Result<PathBuf> {
    let path = review_path(state, &request.operation_id);
    write_json(&path, request)?;
    Ok(path)
}

/// Loads the review request for `id`.
pub fn load_request(state: &Path, id: &str) -> Result<ReviewRequest> {
    if !valid_id(id) {
        bail!(
            "`{id}` is not an operation id: it is the 12 hex digits vouch printed with the refusal"
        );
    }
    let path = review_path(state, id);
    let text = fs::read_to_string(&path).with_context(|| {
        format!(
            "no refused operation `{id}` is waiting for review (looked for `{}`)",
            path.display()
        )
    })?;
    serde_json::from_str(&text)
        .with_context(|| format!("`{}` is not a review request", path.display()))
}

/// Records a person's approval of `request`.
pub fn approve(state: &Path, request: &ReviewRequest, now: Timestamp) -> Result<Approval> {
    let approval = Approval {
        operation_id: request.operation_id.clone(),
        refs: request.refs.clone(),
        approved_at: now.to_string(),
        expires_at: (now + APPROVAL_TTL).to_string(),
    };
    write_json(&approval_path(state, &request.operation_id), &approval)?;
    Ok(approval)
}

/// Takes a valid approval for `id` covering exactly `refs`: true if there
/// was one. It is removed, so it serves once; an expired one is removed too.
pub fn take_approval(state: &Path, id: &str, refs: &[ReviewRef], now: Timestamp) -> bool {
    let path = approval_path(state, id);
    let Ok(text) = fs::read_to_string(&path) else {
        return false;
    };
    let Ok(approval) = serde_json::from_str::<Approval>(&text) else {
        return false;
    };
    // Valid from its approval for 15 minutes, whatever the file claims.
    let approved_at = approval.approved_at.parse::<Timestamp>().ok();
    let expires_at = approval.expires_at.parse::<Timestamp>().ok();
    let expired = match (approved_at, expires_at) {
        (Some(from), Some(until)) => now < from || now >= until || now >= from + APPROVAL_TTL,
        _ => true,
    };
    let mut mine = refs.to_vec();
    let mut theirs = approval.refs.clone();
    mine.sort_by(|a, b| a.remote_ref.cmp(&b.remote_ref));
    theirs.sort_by(|a, b| a.remote_ref.cmp(&b.remote_ref));
    if expired {
        fs::remove_file(&path).ok();
        return false;
    }
    if mine != theirs {
        return false;
    }
    // Only the process that manages to remove it may use it.
    fs::remove_file(&path).is_ok()
}

/// The id of `op` in the repository at `root` ([`View::id`]): what an
/// approval and the verdict cache are bound to.
pub fn id_of(op: &Operation, root: &Path) -> String {
    op.view(root).id
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(name: &str, old: &str) -> ReviewRef {
        ReviewRef {
            remote_ref: name.into(),
            old_oid: old.into(),
            new_oid: "b".into(),
        }
    }

    #[test]
    fn operation_id_binds_refs_and_oids_in_any_order() {
        let a = operation_id("push", "/r", "origin", &[r("x", "1"), r("y", "2")]);
        let b = operation_id("push", "/r", "origin", &[r("y", "2"), r("x", "1")]);
        assert_eq!(a, b);
        assert_eq!(a.len(), 12);
        assert_ne!(
            a,
            operation_id("push", "/r", "origin", &[r("x", "1"), r("y", "3")])
        );
        assert_ne!(
            a,
            operation_id("push", "/r", "upstream", &[r("x", "1"), r("y", "2")])
        );
    }

    #[test]
    fn approvals_serve_once_and_lapse() {
        let dir = tempfile::tempdir().unwrap();
        let refs = vec![r("refs/heads/main", "1")];
        let id = operation_id("push", "/r", "o", &refs);
        let req = ReviewRequest {
            operation_id: id.clone(),
            created_at: String::new(),
            repo: "/r".into(),
            remote: "o".into(),
            tier: "critical".into(),
            refs: refs.clone(),
            reasons: vec![],
            concerns: vec![],
            refused_because: String::new(),
            how_to_approve: String::new(),
        };
        let now = Timestamp::now();
        approve(dir.path(), &req, now).unwrap();
        assert!(!take_approval(
            dir.path(),
            &id,
            &[r("refs/heads/main", "9")],
            now
        ));
        assert!(take_approval(dir.path(), &id, &refs, now));
        assert!(
            !take_approval(dir.path(), &id, &refs, now),
            "an approval serves once"
        );
        approve(dir.path(), &req, now).unwrap();
        assert!(!take_approval(
            dir.path(),
            &id,
            &refs,
            now + SignedDuration::from_mins(16)
        ));
        assert!(load_request(dir.path(), "nothex").is_err());
    }
}
