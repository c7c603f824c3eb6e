//! PURE: the facts vouch measures about an operation, as plain data.
//!
//! `measure::git` fills these in with git2; `classify` turns them into a tier;
//! verifiers, prompts and the audit log read them. Nothing here touches git.

use serde::{Deserialize, Serialize};

use crate::input::hooks::{ForceHint, PushUpdate};
use crate::input::receive::Pusher;

/// What kind of ref a push line names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefKind {
    /// `refs/heads/*`
    Branch,
    /// `refs/tags/*`
    Tag,
    /// Anything else (notes, remote-tracking refs in a mirror push).
    Other,
}

impl RefKind {
    /// The kind of a full ref name.
    pub fn of(name: &str) -> Self {
        if name.starts_with("refs/heads/") {
            Self::Branch
        } else if name.starts_with("refs/tags/") {
            Self::Tag
        } else {
            Self::Other
        }
    }
}

/// How the remote ref changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// The ref is new on the remote.
    Create,
    /// The ref is deleted on the remote.
    Delete,
    /// The new value contains the old one.
    FastForward,
    /// The new value does not contain the old one: commits leave the ref
    /// (for a tag: the tag moves).
    Rewrite,
    /// Old and new are the same.
    Unchanged,
}

impl Change {
    /// What a line says by itself, before any object is looked at: a
    /// non-trivial update starts as a rewrite until ancestry says otherwise.
    pub fn of(update: &PushUpdate) -> Self {
        if update.is_delete() {
            Self::Delete
        } else if update.is_create() {
            Self::Create
        } else if update.local_oid == update.remote_oid {
            Self::Unchanged
        } else {
            Self::Rewrite
        }
    }

    /// The name used in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Delete => "delete",
            Self::FastForward => "fast-forward",
            Self::Rewrite => "rewrite",
            Self::Unchanged => "unchanged",
        }
    }
}

/// Whether the remote's current tip is known in this repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "state", content = "why")]
pub enum RemoteTip {
    /// The remote's object is here: what it holds can be measured.
    Known,
    /// The remote's object is not here: the remote has commits never fetched.
    Unseen,
    /// It cannot be told (shallow clone, unreadable object).
    Unknown(String),
    /// No remote tip: the ref is new.
    None,
}

impl RemoteTip {
    /// The remote's object is not in this repository: never fetched, or (in
    /// a shallow clone) perhaps hidden behind the shallow boundary.
    pub fn missing(shallow: bool) -> Self {
        if shallow {
            Self::Unknown(
                "shallow clone: the remote tip may be hidden behind the shallow boundary".into(),
            )
        } else {
            Self::Unseen
        }
    }

    /// The name used in logs.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Known => "known",
            Self::Unseen => "unseen",
            Self::Unknown(_) => "unknown",
            Self::None => "none",
        }
    }
}

/// What `--force-with-lease` would conclude, inferred from the remote-tracking ref.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "state")]
pub enum Lease {
    /// The remote's tip equals the remote-tracking ref: what would be
    /// replaced was seen here.
    Holds,
    /// The remote's tip differs from the remote-tracking ref: somebody pushed
    /// since the last fetch.
    Stale {
        /// The remote-tracking ref's value.
        tracking_oid: String,
    },
    /// No remote-tracking ref (a push to a URL, or a ref never fetched).
    NoTrackingRef,
    /// Not a replacement of an existing ref.
    NotApplicable,
}

/// One commit that would leave a ref.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitSummary {
    /// Abbreviated id.
    pub short_id: String,
    /// First line of the message (untrusted text).
    pub subject: String,
    /// Author name (untrusted text).
    pub author: String,
}

/// The commits a ref change would destroy on the remote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lost {
    /// How many commits leave the ref.
    pub count: usize,
    /// How many distinct authors wrote them.
    pub authors: usize,
    /// The first few of them, newest first.
    pub commits: Vec<CommitSummary>,
    /// True when the count stopped at a limit and the true number is larger.
    pub truncated: bool,
}

impl Lost {
    /// Nothing lost.
    pub fn none() -> Self {
        Self {
            count: 0,
            authors: 0,
            commits: Vec::new(),
            truncated: false,
        }
    }
}

/// Collects the commits that leave a ref, as a walk yields them (newest
/// first), up to `limit`.
#[derive(Debug)]
pub struct LostBuilder {
    lost: Lost,
    emails: std::collections::HashSet<String>,
    limit: usize,
    sample: usize,
}

impl LostBuilder {
    /// Counts up to `limit` commits and lists the first `sample` of them.
    pub fn new(limit: usize, sample: usize) -> Self {
        Self {
            lost: Lost {
                count: 0,
                authors: 0,
                commits: Vec::new(),
                truncated: false,
            },
            emails: std::collections::HashSet::new(),
            limit,
            sample,
        }
    }

    /// Adds one commit; false once the limit is reached (stop walking).
    pub fn add(&mut self, id: &str, email: &str, author: &str, subject: &str) -> bool {
        if self.lost.count == self.limit {
            self.lost.truncated = true;
            return false;
        }
        self.lost.count += 1;
        self.emails.insert(email.to_owned());
        if self.lost.commits.len() < self.sample {
            self.lost.commits.push(CommitSummary {
                short_id: id.chars().take(10).collect(),
                subject: subject.to_owned(),
                author: author.to_owned(),
            });
        }
        true
    }

    /// The result.
    pub fn finish(mut self) -> Lost {
        self.lost.authors = self.emails.len();
        self.lost
    }
}

/// What holds commits in a repository, read before an operation: every
/// ref that points at an object directly (full names, as git gives them to
/// a hook), a detached `HEAD`, and the stash entries (the stash's reflog,
/// `stash@{0}` first). `T` is an object id: the rule never looks inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holders<T, N = String> {
    /// Direct refs and their targets.
    pub refs: Vec<(N, T)>,
    /// `HEAD`'s target when no branch is checked out.
    pub detached_head: Option<T>,
    /// The stash entries, newest first.
    pub stash: Vec<T>,
}

impl<T, N> Default for Holders<T, N> {
    fn default() -> Self {
        Self {
            refs: Vec::new(),
            detached_head: None,
            stash: Vec::new(),
        }
    }
}

/// The survivor rule, the one answer to "which refs still hold commits
/// once the operation has run", for every door (pre-push, the
/// reference-transaction hook, the command door, rescue listings):
///
/// - a ref the operation deletes or moves (`changing`, full names; `HEAD`
///   for a detached `HEAD`) does not survive with its old value (the
///   caller adds the new values of moved refs);
/// - vouch's own refs (`refs/vouch/*`) never count: a rescue ref must not
///   make the deletion it rescued look harmless;
/// - replace refs (`refs/replace/*`) never count: a replacement object is a
///   local view of history (`git replace --graft` makes a commit with any
///   parents its author names), not a ref that keeps work;
/// - symbolic `*/HEAD` names never count on their own (they name a ref);
/// - a detached `HEAD` holds its commit, as git's own gc and reflog see it;
/// - every stash entry holds its commit (and the commit it was made on),
///   unless the operation changes `refs/stash` (a drop or clear may take any
///   entry: none is counted, the cautious reading).
///
/// Returns the surviving targets, deduplicated and ordered.
pub fn surviving<T: Clone + Ord, N: AsRef<str>>(
    holders: &Holders<T, N>,
    changing: &dyn Fn(&str) -> bool,
) -> Vec<T> {
    // Collected, then sorted and deduplicated once: a repository of 10,000
    // refs often has them on a few commits.
    let mut out = Vec::with_capacity(holders.refs.len() + holders.stash.len() + 1);
    for (name, target) in &holders.refs {
        let name = name.as_ref();
        if name.starts_with("refs/vouch/")
            || name.starts_with("refs/replace/")
            || name.ends_with("/HEAD")
            || name == "refs/stash"
            || changing(name)
        {
            continue;
        }
        out.push(target.clone());
    }
    if let Some(head) = holders.detached_head.clone()
        && !changing("HEAD")
    {
        out.push(head);
    }
    if !changing("refs/stash") {
        out.extend(holders.stash.iter().cloned());
        // The stash ref itself, should its reflog be unreadable.
        out.extend(
            holders
                .refs
                .iter()
                .filter(|(n, _)| n.as_ref() == "refs/stash")
                .map(|(_, t)| t.clone()),
        );
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The deletions a mirror push makes: every ref the remote lists (`git
/// ls-remote` output as `(oid, name)`) that this push does not update and
/// that does not exist here (`updated_or_here`). git never shows them to the
/// hook.
pub fn mirror_deletions(
    listed: Vec<(String, String)>,
    updated_or_here: impl Fn(&str) -> bool,
) -> Vec<PushUpdate> {
    listed
        .into_iter()
        .filter(|(_, name)| name != "HEAD" && !name.ends_with("^{}") && !updated_or_here(name))
        .map(|(oid, name)| PushUpdate {
            local_ref: "(delete)".into(),
            local_oid: "0".repeat(oid.len()),
            remote_ref: name,
            remote_oid: oid,
            lossy_name: false,
        })
        .collect()
}

/// Everything measured about one pushed ref.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefFacts {
    /// The line git passed (or vouch computed, for mirror deletions).
    #[serde(skip)]
    pub update: PushUpdate,
    /// The remote ref name.
    pub remote_ref: String,
    /// The local ref or expression.
    pub local_ref: String,
    /// New value (zeros for a deletion).
    pub new_oid: String,
    /// Old value on the remote (zeros when new).
    pub old_oid: String,
    /// Branch, tag or other.
    pub kind: RefKind,
    /// How the ref changes.
    pub change: Change,
    /// Whether the remote's tip is known here.
    pub remote_tip: RemoteTip,
    /// What a lease would say.
    pub lease: Lease,
    /// Commits that leave the ref, when measured.
    pub lost: Option<Lost>,
    /// True for deletions git never showed the hook (`--mirror`).
    pub computed_by_vouch: bool,
}

impl RefFacts {
    /// Facts for a line that could not be measured (a repository git2
    /// cannot open): only what the line says; what a deletion or rewrite
    /// destroys is unknown, for `why`.
    pub fn unmeasured(update: PushUpdate, why: &str) -> Self {
        let change = Change::of(&update);
        let mut f = Self::new(update, change);
        if matches!(change, Change::Delete | Change::Rewrite) {
            f.remote_tip = RemoteTip::Unknown(why.to_owned());
        }
        f
    }

    /// Facts for a line whose change is already known, with nothing measured yet.
    pub fn new(update: PushUpdate, change: Change) -> Self {
        Self {
            remote_ref: update.remote_ref.clone(),
            local_ref: update.local_ref.clone(),
            new_oid: update.local_oid.clone(),
            old_oid: update.remote_oid.clone(),
            kind: RefKind::of(&update.remote_ref),
            change,
            remote_tip: RemoteTip::None,
            lease: Lease::NotApplicable,
            lost: None,
            computed_by_vouch: false,
            update,
        }
    }

    /// The name shown to people: `main` for `refs/heads/main`, `v1` for a tag.
    pub fn short_name(&self) -> &str {
        self.remote_ref
            .strip_prefix("refs/heads/")
            .or_else(|| self.remote_ref.strip_prefix("refs/tags/"))
            .unwrap_or(&self.remote_ref)
    }
}

/// Everything measured about a push.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PushFacts {
    /// The remote's name, or its URL when pushed to a URL.
    pub remote: String,
    /// The remote's URL, credentials redacted.
    pub url: String,
    /// One entry per ref, git's lines first, then vouch's mirror deletions.
    pub refs: Vec<RefFacts>,
    /// What the command line says about force.
    pub force: ForceHint,
    /// A mirror push (`--mirror` or `remote.<name>.mirror`).
    pub mirror: bool,
    /// Why a mirror push's deletions could not be computed, if they could not.
    pub mirror_unknown: Option<String>,
    /// The repository is a shallow clone.
    pub shallow: bool,
    /// The remote's default branch (from `refs/remotes/<remote>/HEAD`).
    pub remote_head: Option<String>,
    /// The branch checked out here, if any.
    pub branch: Option<String>,
    /// Things a person should know that are not a ref's fact.
    pub notes: Vec<String>,
}

/// How a local ref changes in a reference transaction (SPEC 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LocalChange {
    /// A branch moves backwards: the new tip is an ancestor of the old.
    Rewind,
    /// A branch moves to a tip that is neither ancestor nor descendant
    /// (rebase, amend, `branch -f` elsewhere, `checkout -B`).
    Rewrite,
    /// A branch is deleted.
    DeleteBranch,
    /// A tag is moved.
    MoveTag,
    /// A tag is deleted.
    DeleteTag,
    /// `refs/stash` is dropped or cleared.
    DropStash,
}

impl LocalChange {
    /// How the guarded ref `name` changes, before ancestry is measured: a
    /// branch (or rescue ref) that moves is a rewrite until ancestry says
    /// otherwise. `None` for a push onto the stash, which keeps the old
    /// entry in its reflog.
    pub fn of(name: &str, deleted: bool) -> Option<Self> {
        Some(if name == "refs/stash" {
            if !deleted {
                return None;
            }
            Self::DropStash
        } else if name.starts_with("refs/tags/") {
            if deleted {
                Self::DeleteTag
            } else {
                Self::MoveTag
            }
        } else if deleted {
            Self::DeleteBranch
        } else {
            Self::Rewrite
        })
    }

    /// The words people read (`branch deletion`).
    pub fn noun(self) -> &'static str {
        match self {
            Self::Rewind => "branch rewind",
            Self::Rewrite => "branch rewrite",
            Self::DeleteBranch => "branch deletion",
            Self::MoveTag => "tag move",
            Self::DeleteTag => "tag deletion",
            Self::DropStash => "stash drop",
        }
    }
}

/// Everything measured about one guarded ref of a reference transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is an independent fact about the ref"
)]
pub struct LocalRefFacts {
    /// The full ref name.
    pub name: String,
    /// Its value before (read from disk when git passed zeros).
    pub old_oid: String,
    /// Its value after; zeros for a deletion.
    pub new_oid: String,
    /// How it changes.
    pub change: LocalChange,
    /// How many commits the old tip reaches that the new one does not.
    pub left_behind: usize,
    /// Of those, the ones whose changes would vanish: on no other ref and,
    /// for a rewrite, with no equivalent (same patch id, or same content)
    /// in the new history.
    pub lost: Option<Lost>,
    /// A rewind of the checked-out branch whose changes are all still in
    /// the index or the work tree (`reset --soft`, `reset --mixed`).
    pub kept_in_tree: bool,
    /// The new tip has the old tip's parents (`commit --amend`).
    pub amend: bool,
    /// The branch is the one checked out.
    pub checked_out: bool,
    /// A deleted branch whose tip object is missing from the repository:
    /// nothing of it is left to lose or to rescue.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missing_tip: bool,
    /// Why a measurement could not be made, if one could not.
    pub unknown: Option<String>,
}

impl LocalRefFacts {
    /// A change of `name` from `old_oid` to `new_oid` (zeros for a
    /// deletion), nothing measured yet.
    pub fn new(
        name: &str,
        old_oid: String,
        new_oid: String,
        change: LocalChange,
        checked_out: bool,
    ) -> Self {
        Self {
            name: name.to_owned(),
            old_oid,
            new_oid,
            change,
            left_behind: 0,
            lost: None,
            kept_in_tree: false,
            amend: false,
            checked_out,
            missing_tip: false,
            unknown: None,
        }
    }

    /// The name shown to people: `main` for `refs/heads/main`, `v1` for a tag.
    pub fn short_name(&self) -> &str {
        self.name
            .strip_prefix("refs/heads/")
            .or_else(|| self.name.strip_prefix("refs/tags/"))
            .unwrap_or(&self.name)
    }

    /// How many commits would vanish.
    pub fn lost_count(&self) -> usize {
        self.lost.as_ref().map_or(0, |l| l.count)
    }
}

/// Everything measured about a reference transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct LocalFacts {
    /// The guarded refs that change, one entry each.
    pub refs: Vec<LocalRefFacts>,
    /// The git command that runs the transaction, when it can be read.
    pub command: Option<String>,
    /// The branch checked out, if any.
    pub branch: Option<String>,
    /// A rebase is in progress (`rebase-merge/` or `rebase-apply/`).
    pub rebase: bool,
}

/// How a staged file changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileStatus {
    /// New file.
    Added,
    /// Changed file.
    Modified,
    /// Removed file.
    Deleted,
    /// Moved (and perhaps changed).
    Renamed,
}

impl FileStatus {
    /// The name used in logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Added => "added",
            Self::Modified => "modified",
            Self::Deleted => "deleted",
            Self::Renamed => "renamed",
        }
    }
}

/// One file of a staged change (the index against `HEAD`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagedFile {
    /// Path in the repository (the new path of a rename).
    pub path: String,
    /// How it changes.
    pub status: FileStatus,
    /// Lines added (at least this many when `lines_partial`).
    pub added_lines: usize,
    /// Lines deleted (at least this many when `lines_partial`).
    pub deleted_lines: usize,
    /// The line counts are lower bounds: the rules had what they needed
    /// before the rest of this file was read (SPEC 2.3: content is read
    /// only where a rule needs it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lines_partial: bool,
    /// Blob before (empty when added).
    pub old_oid: String,
    /// Blob after (empty when deleted).
    pub new_oid: String,
    /// Added lines with their line numbers, kept only for files whose
    /// content the rules read (migrations, dependency manifests).
    #[serde(skip)]
    pub added: Vec<(u32, String)>,
    /// Deleted lines, for the same files.
    #[serde(skip)]
    pub deleted: Vec<String>,
}

impl StagedFile {
    /// A file of a staged change as its paths and status tell it, no
    /// lines read yet; a blob id of zeros (none) as empty.
    pub fn unread(path: String, status: FileStatus, old_oid: &str, new_oid: &str) -> Self {
        let oid = |o: &str| {
            if o.bytes().all(|b| b == b'0') {
                String::new()
            } else {
                o.to_owned()
            }
        };
        Self {
            path,
            status,
            added_lines: 0,
            deleted_lines: 0,
            lines_partial: false,
            old_oid: oid(old_oid),
            new_oid: oid(new_oid),
            added: Vec::new(),
            deleted: Vec::new(),
        }
    }
}

/// A staged change: what `git commit` is about to record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct StagedFacts {
    /// The files.
    pub files: Vec<StagedFile>,
    /// The branch checked out.
    pub branch: Option<String>,
    /// Why nothing of the change could be measured (a repository neither
    /// git2 nor git can read): it is then judged at least high, as every
    /// door judges what it cannot measure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmeasured: Option<String>,
}

impl StagedFacts {
    /// Lines added and deleted, in all files, as people read them:
    /// `+12 -3`, or `at least +600 -0` where not every line was counted.
    pub fn line_totals(&self) -> String {
        let (added, deleted, partial) = self.files.iter().fold((0, 0, false), |(a, d, p), f| {
            (a + f.added_lines, d + f.deleted_lines, p || f.lines_partial)
        });
        let least = if partial { "at least " } else { "" };
        format!("{least}+{added} -{deleted}")
    }
}

/// What kind of content a command would take from the work tree or index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Discarded {
    /// Staged and unstaged changes to tracked files (`reset --hard`, `checkout -f`).
    TrackedChanges,
    /// Unstaged changes to tracked files (`checkout -- <paths>`, `restore <paths>`).
    UnstagedChanges,
    /// Untracked files (`clean -f`).
    UntrackedFiles,
    /// Untracked and ignored files (`clean -fx`).
    UntrackedAndIgnoredFiles,
    /// Ignored files only (`clean -fX`).
    IgnoredFiles,
    /// Nothing: `reset --merge` and `--keep` keep local changes or stop.
    KeptOrStops,
}

/// What a command would take from the work tree (or index).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeLoss {
    /// What kind of content.
    pub what: Discarded,
    /// How many files would lose it.
    pub files: usize,
    /// The first few of them.
    pub sample: Vec<String>,
}

impl WorktreeLoss {
    /// Nothing of kind `what`.
    pub fn none(what: Discarded) -> Self {
        Self {
            what,
            files: 0,
            sample: Vec::new(),
        }
    }
}

/// Why a command's facts were not measured (its rule's tier stands).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", content = "detail", rename_all = "kebab-case")]
pub enum Unmeasured {
    /// No repository where the command runs.
    NoRepository,
    /// `--git-dir`, `--work-tree` or `GIT_DIR` name another repository.
    OtherRepository,
    /// `git worktree` or `git submodule`: nothing here to measure.
    NotApplicable,
    /// A mirror push: every ref, measured by the pre-push door when it runs.
    MirrorPush,
    /// `--prune` or a wildcard refspec: refs the planned push does not list.
    PrunesOrPatterns,
    /// The push could not be resolved (no upstream, an unknown revision).
    PushUnresolved(String),
    /// Reading the repository failed.
    Failed(String),
}

/// The facts of one command of a shell line, measured before the line
/// runs (SPEC 2.4) by the git adapter; [`crate::classify`] turns them into
/// its tier and sentences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "facts", rename_all = "kebab-case")]
pub enum CommandFacts {
    /// Not measured: the rule's tier stands.
    Unmeasured(Unmeasured),
    /// What the command would discard from the work tree; for
    /// `reset <rev>`, also the move of the checked-out branch.
    Worktree {
        /// The loss.
        loss: WorktreeLoss,
        /// The branch move `reset <rev>` stands for.
        moves: Option<LocalFacts>,
    },
    /// The planned ref updates of `branch -D`/`-f`; `None` when no branch
    /// named exists here.
    Branch(Option<LocalFacts>),
    /// The stash entries that would be dropped (`stash@{n}: subject`);
    /// empty when the stash is empty.
    StashDrop(Vec<String>),
    /// The tags named that exist before the command (`tag -d`).
    Tags(Vec<String>),
    /// The planned push, measured as the pre-push door would.
    Push {
        /// Its facts.
        facts: PushFacts,
        /// Why the remote's values are the remote-tracking refs, when the
        /// remote did not answer.
        remote_unanswered: Option<String>,
    },
}

/// Everything measured about a push on the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ServerFacts {
    /// The push as the ref facts of every door see it: `remote` is the
    /// repository's name, `url` its path on the server, `remote_head` the
    /// server's default branch, and each ref's `lost` the commits on no
    /// other ref of the server after the push.
    pub push: PushFacts,
    /// Who pushes.
    pub pusher: Option<Pusher>,
    /// The pushed objects were read from git's quarantine directory.
    pub quarantine: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holders() -> Holders<u32> {
        Holders {
            refs: vec![
                ("refs/heads/main".into(), 1),
                ("refs/heads/topic".into(), 2),
                ("refs/tags/v1".into(), 3),
                ("refs/remotes/origin/main".into(), 4),
                ("refs/remotes/origin/HEAD".into(), 5),
                ("refs/vouch/rescue/gone/20261122T101500Z".into(), 6),
                ("refs/stash".into(), 7),
                ("refs/replace/0123abcd".into(), 10),
            ],
            detached_head: Some(8),
            stash: vec![7, 9],
        }
    }

    #[test]
    fn stash_entries_hold_their_commits() {
        // Every entry, not only `stash@{0}`: `git stash drop` of one keeps
        // the others, and each keeps the commit it was made on.
        let s = surviving(&holders(), &|_| false);
        assert!(s.contains(&7) && s.contains(&9), "{s:?}");
    }

    #[test]
    fn an_operation_on_the_stash_keeps_none_of_its_entries() {
        let s = surviving(&holders(), &|n| n == "refs/stash");
        assert!(!s.contains(&7) && !s.contains(&9), "{s:?}");
        assert!(s.contains(&1));
    }

    #[test]
    fn a_detached_head_holds_its_commit() {
        let s = surviving(&holders(), &|_| false);
        assert!(s.contains(&8), "{s:?}");
        // ... unless the operation moves HEAD itself.
        let s = surviving(&holders(), &|n| n == "HEAD");
        assert!(!s.contains(&8), "{s:?}");
    }

    #[test]
    fn changing_refs_vouch_refs_replace_refs_and_symbolic_heads_do_not_survive() {
        let s = surviving(&holders(), &|n| n == "refs/heads/topic");
        assert_eq!(s, vec![1, 3, 4, 7, 8, 9]);
    }
}
