//! Facts of a reference transaction (SPEC 2.2) and vouch's rescue refs.
//!
//! A guarded line is measured against the repository as it is at
//! `prepared`: the ref still holds its old value on disk, and the index and
//! work tree already hold what the command made of them
//! (`research/git-semantics.md` section 2).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use git2::{DiffOptions, Oid};

use super::{LOST_COUNT_LIMIT, Repo};
use crate::classify::facts::{LocalChange, LocalFacts, LocalRefFacts};
use crate::input::git_command::{RefUpdate, is_zero_oid};

/// The namespace of rescue refs.
pub const RESCUE_PREFIX: &str = "refs/vouch/rescue/";

/// How many commits on each side of a rewrite get their patch ids compared.
pub(super) const PATCH_ID_LIMIT: usize = 1_000;

/// One rescue ref: what it holds and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Rescue {
    /// The full ref name (`refs/vouch/rescue/main/20261122T101500Z`).
    pub name: String,
    /// The ref it saved (`refs/heads/main`).
    pub original: String,
    /// The object it holds.
    pub oid: String,
    /// When it was written (`2026-11-22T10:15:00Z`), from its name.
    pub saved_at: String,
    /// The saved tip's subject line (untrusted text).
    pub subject: String,
    /// How many of its commits are on no other ref (up to a limit).
    pub only_here: usize,
    /// The batch ref that holds it ([`BATCH_FROM`]), when it is not a ref
    /// of its own: `name` is then listed and restored as a ref's would be.
    #[serde(skip)]
    pub held_in: Option<String>,
}

impl Rescue {
    /// What git can resolve to the saved object: the ref, or the object id
    /// of an entry in a batch.
    pub fn rev(&self) -> &str {
        if self.held_in.is_some() {
            &self.oid
        } else {
            &self.name
        }
    }
}

/// How many rescue refs one operation writes one by one at most: from
/// this many commits on, they are kept together in one batch ref
/// (`refs/vouch/rescue/batch/<stamp>-batch`), a commit whose parents are
/// the saved tips and whose message names each (`<oid> <name>`). git
/// packs loose refs automatically from 16 of them on (`pack-refs --auto`,
/// its smallest limit), running the reference-transaction hook three
/// times for each; a push received with thousands of deletions would
/// otherwise leave thousands of loose rescue refs for it (issue 38 item 6).
pub const BATCH_FROM: usize = 16;

/// Where one saved object was kept: `name` is the rescue ref, or the name
/// of its entry in the batch ref `within`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// The rescue ref, or the entry's name (`refs/vouch/rescue/b1/<stamp>`).
    pub name: String,
    /// The batch ref that holds it, if any.
    pub within: Option<String>,
}

/// The base name of the batch ref of `stamp` (before any `-2`).
pub(super) fn batch_base(stamp: &str) -> String {
    format!("{RESCUE_PREFIX}batch/{stamp}-batch")
}

/// True for a batch ref's name (`refs/vouch/rescue/batch/<stamp>-batch[-n]`).
pub(super) fn is_batch(name: &str) -> bool {
    name.strip_prefix(RESCUE_PREFIX)
        .and_then(|r| r.strip_prefix("batch/"))
        .and_then(|r| r.get(16..))
        .and_then(|r| r.strip_prefix("-batch"))
        .is_some_and(|n| {
            n.is_empty()
                || n.strip_prefix('-')
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// The message of a batch commit: a subject, then `<oid> <name>` for each
/// entry.
pub(super) fn batch_message(entries: &[(String, String)]) -> String {
    let mut m = format!("vouch: rescue of {} refs\n\n", entries.len());
    for (name, oid) in entries {
        m.push_str(&format!("{oid} {name}\n"));
    }
    m
}

/// The `(name, oid)` entries of a batch commit's message whose object is
/// one of its parents (what the commit does not hold is not listed) and
/// whose name is a rescue ref's.
pub(super) fn batch_entries(message: &str, parents: &HashSet<String>) -> Vec<(String, String)> {
    message
        .lines()
        .skip(2)
        .filter_map(|l| l.split_once(' '))
        .filter(|(oid, name)| parents.contains(*oid) && rescue_origin(name).is_some())
        .map(|(oid, name)| (name.to_owned(), oid.to_owned()))
        .collect()
}

/// Whether the commits among an operation's rescues (`batched`, one flag
/// an item) are enough for a batch ref ([`BATCH_FROM`]).
pub(super) fn worth_a_batch(batched: &[bool]) -> bool {
    batched.iter().filter(|b| **b).count() >= BATCH_FROM
}

/// The `(name, oid)` entries of a batch: the items `batched` marks, under
/// their free `names`.
pub(super) fn batched_entries(
    names: &[String],
    items: &[(&str, &str)],
    batched: &[bool],
) -> Vec<(String, String)> {
    names
        .iter()
        .zip(items)
        .zip(batched)
        .filter(|(_, b)| **b)
        .map(|((name, (_, oid)), _)| (name.clone(), (*oid).to_owned()))
        .collect()
}

/// Free names for `items` under `stamp`: [`rescue_base`], then `-2`,
/// `-3`, ... past the names `taken` (which it extends) and those `exists`
/// says are refs already.
pub(super) fn free_names(
    items: &[(&str, &str)],
    stamp: &str,
    taken: &mut HashSet<String>,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    items
        .iter()
        .map(|(original, _)| {
            let base = rescue_base(original, stamp);
            let mut name = base.clone();
            let mut n = 1;
            while taken.contains(&name) || exists(&name) {
                n += 1;
                name = format!("{base}-{n}");
            }
            taken.insert(name.clone());
            name
        })
        .collect()
}

/// When local facts are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// In the reference-transaction hook: the command has already written
    /// the index and work tree, so changes it kept are there to be seen.
    /// `amending`: the command is `git commit --amend`, the only one whose
    /// move to a tip with the old tip's parents is an amend (a reset to a
    /// sibling commit has the same shape).
    Hook {
        /// The command is `git commit --amend`.
        amending: bool,
    },
    /// Before a command runs (the agent door): nothing it would discard is
    /// kept anywhere yet, and no move is an amend.
    Planned,
}

impl Repo {
    /// The git directory (`.git`, or a worktree's own directory).
    pub fn git_dir(&self) -> PathBuf {
        self.repo.path().components().collect()
    }

    /// Measures the guarded lines of a reference transaction (or the ref
    /// updates a command stands for, at `Moment::Planned`). Lines that
    /// create a ref, or leave it where it is, are dropped: they destroy
    /// nothing.
    pub fn local_facts(&self, updates: &[RefUpdate], moment: Moment) -> LocalFacts {
        let head = self.repo.find_reference("HEAD").ok();
        let checked_out = head
            .as_ref()
            .and_then(|h| h.symbolic_target().ok().flatten().map(str::to_owned));
        let git_dir = self.repo.path();
        let mut facts = LocalFacts {
            refs: Vec::new(),
            command: None,
            branch: self.current_branch(),
            rebase: git_dir.join("rebase-merge").exists() || git_dir.join("rebase-apply").exists(),
        };
        // What survives the transaction: every other ref, and the new values
        // of the refs it moves.
        // Asked of every ref: a sorted list is searched without hashing
        // each of 10,000 names.
        let mut names: Vec<&str> = updates.iter().map(|u| u.name.as_str()).collect();
        names.sort_unstable();
        let changing = |n: &str| names.binary_search(&n).is_ok();
        let mut survivors = None;
        for update in updates {
            let Some(old) = self.old_value(update) else {
                continue; // a creation
            };
            let new = if update.is_delete() {
                None
            } else {
                match Oid::from_str(&update.new) {
                    Ok(n) if n == old => continue,
                    Ok(n) => Some(n),
                    Err(_) => continue,
                }
            };
            let (survivors, tip_set) = survivors.get_or_insert_with(|| {
                let mut tips = self.survivor_commits(&self.holders(), &changing);
                tips.extend(updates.iter().filter_map(|u| {
                    (!u.is_delete())
                        .then(|| Oid::from_str(&u.new).ok())
                        .flatten()
                        .and_then(|o| self.peel_commit(o))
                }));
                let tip_set: HashSet<Oid> = tips.iter().copied().collect();
                (tips, tip_set)
            });
            let is_checked_out = checked_out.as_deref() == Some(update.name.as_str());
            if new.is_none()
                && !update.name.starts_with("refs/tags/")
                && update.name != "refs/stash"
                && self.peel_commit(old).is_some_and(|c| tip_set.contains(&c))
            {
                // A branch whose tip another surviving ref holds loses
                // nothing: no walk (`git branch -D` of many merged branches).
                facts
                    .refs
                    .push(Self::held_deletion(update, old, is_checked_out));
                continue;
            }
            if let Some(f) =
                self.local_ref_facts(update, old, new, survivors, is_checked_out, moment)
            {
                facts.refs.push(f);
            }
        }
        if let Some((survivors, _)) = survivors {
            let survivors: Vec<String> = survivors.iter().map(Oid::to_string).collect();
            let mut history = super::ref_facts::Git2::new(self, None);
            super::ref_facts::measure_local_deletions(&mut history, &mut facts.refs, &survivors);
        }
        facts
    }

    /// The facts of deleting a branch whose tip another ref holds.
    fn held_deletion(update: &RefUpdate, old: Oid, checked_out: bool) -> LocalRefFacts {
        let mut f = LocalRefFacts::new(
            &update.name,
            old.to_string(),
            "0".repeat(old.as_bytes().len() * 2),
            LocalChange::DeleteBranch,
            checked_out,
        );
        f.lost = Some(crate::classify::facts::Lost::none());
        f
    }

    /// `updates` as lines `<old> <new> <name>`, sorted, each old value
    /// read from disk where git passed zeros: the two transactions git runs
    /// to delete a packed ref (the packed refs' own, inside the other, its
    /// lines with zeros for the old values) read the same, so that the
    /// second is known as the first again before anything is measured.
    pub fn resolved_lines(&self, updates: &[RefUpdate]) -> String {
        let mut lines: Vec<String> = updates
            .iter()
            .map(|u| {
                let old = self
                    .old_value(u)
                    .map_or_else(|| u.old.clone(), |o| o.to_string());
                format!("{old} {} {}\n", u.new, u.name)
            })
            .collect();
        lines.sort_unstable();
        lines.concat()
    }

    /// The ref's old value: git's, or the value on disk when git passed zeros.
    fn old_value(&self, update: &RefUpdate) -> Option<Oid> {
        if is_zero_oid(&update.old) {
            self.ref_oid(&update.name)
                .or_else(|| self.lossy_ref_oid(&update.name))
        } else {
            Oid::from_str(&update.old).ok()
        }
    }

    /// The value of the ref whose name, made UTF-8 with replacement
    /// characters, is `lossy` (git gives a hook the bytes of a name that is
    /// not UTF-8; vouch carries it lossily).
    fn lossy_ref_oid(&self, lossy: &str) -> Option<Oid> {
        if !lossy.contains('\u{fffd}') {
            return None;
        }
        self.repo.references().ok()?.flatten().find_map(|r| {
            (String::from_utf8_lossy(r.name_bytes()) == lossy)
                .then(|| r.target())
                .flatten()
        })
    }

    fn local_ref_facts(
        &self,
        update: &RefUpdate,
        old: Oid,
        new: Option<Oid>,
        survivors: &[Oid],
        checked_out: bool,
        moment: Moment,
    ) -> Option<LocalRefFacts> {
        let name = update.name.as_str();
        let change = LocalChange::of(name, new.is_none())?;
        let new_oid = new.map_or_else(|| "0".repeat(old.as_bytes().len() * 2), |n| n.to_string());
        let mut f = LocalRefFacts::new(name, old.to_string(), new_oid, change, checked_out);
        if !matches!(change, LocalChange::Rewrite | LocalChange::DeleteBranch) {
            return Some(f);
        }
        if change == LocalChange::DeleteBranch && !self.has_object(old) {
            // The tip object is gone already (t3200 "removes dangling
            // branch"): the deletion cannot lose it, and there is nothing to
            // rescue. Refusing would keep the broken branch forever.
            f.lost = Some(crate::classify::facts::Lost::none());
            f.missing_tip = true;
            return Some(f);
        }
        let Some(old_commit) = self.peel_commit(old) else {
            f.unknown = Some("the old value is not a commit".into());
            return Some(f);
        };
        if change == LocalChange::DeleteBranch {
            // Measured with every other deletion of the transaction, in one
            // walk ([`super::ref_facts::measure_local_deletions`]).
            return Some(f);
        }
        let Some(new_commit) = new.and_then(|n| self.peel_commit(n)) else {
            f.unknown = Some("the new value is not a commit".into());
            return Some(f);
        };
        match self.measure_move(&mut f, old_commit, new_commit, survivors, moment) {
            Ok(true) => Some(f),
            Ok(false) => None, // a fast-forward
            Err(e) => {
                f.unknown = Some(e.message().to_owned());
                Some(f)
            }
        }
    }

    /// Fills in a branch that moves from `old` to `new`; false for a
    /// fast-forward, which destroys nothing.
    fn measure_move(
        &self,
        f: &mut LocalRefFacts,
        old: Oid,
        new: Oid,
        survivors: &[Oid],
        moment: Moment,
    ) -> Result<bool, git2::Error> {
        let new_c = self.repo.find_commit(new)?;
        // A commit, merge or cherry-pick on top: the common case, with no walk.
        if new_c.parent_ids().any(|p| p == old) {
            return Ok(false);
        }
        let left = self.reachable_only(old, &[new], LOST_COUNT_LIMIT + 1)?;
        if left.is_empty() {
            return Ok(false);
        }
        f.left_behind = left.len().min(LOST_COUNT_LIMIT);
        let mut hide = survivors.to_vec();
        hide.push(new);
        let gone = self.reachable_only(old, &hide, LOST_COUNT_LIMIT + 1)?;
        if self.repo.graph_descendant_of(old, new)? {
            f.change = LocalChange::Rewind;
            f.lost = Some(self.summarize(&gone)?);
            f.kept_in_tree = moment != Moment::Planned
                && f.checked_out
                && self.changes_kept(old, new).unwrap_or(false);
            return Ok(true);
        }
        let old_c = self.repo.find_commit(old)?;
        f.amend = moment == (Moment::Hook { amending: true })
            && old_c.parent_ids().eq(new_c.parent_ids());
        let vanished = if f.amend || gone.is_empty() {
            Vec::new()
        } else {
            self.vanished(&gone, old, new)?
        };
        f.lost = Some(self.summarize(&vanished)?);
        Ok(true)
    }

    /// The commits of `gone` whose change appears nowhere in `new`'s history.
    /// When `new` holds every path the old side changed (since the merge
    /// base) with the old tip's content, nothing vanished: a squash, a
    /// reword, a reorder or a clean rebase. Otherwise each commit is kept
    /// when a new commit has its patch id, or `new` holds the content it
    /// gave its paths.
    fn vanished(&self, gone: &[Oid], old: Oid, new: Oid) -> Result<Vec<Oid>, git2::Error> {
        let new_tree = self.repo.find_commit(new)?.tree()?;
        if let Ok(base) = self.repo.merge_base(old, new) {
            let net = self.repo.diff_tree_to_tree(
                Some(&self.repo.find_commit(base)?.tree()?),
                Some(&self.repo.find_commit(old)?.tree()?),
                None,
            )?;
            if content_kept(&net, &new_tree) {
                return Ok(Vec::new());
            }
        }
        let new_side = self.reachable_only(new, &[old], PATCH_ID_LIMIT)?;
        let mut ids = HashSet::new();
        for c in &new_side {
            if let Some(id) = self.patch_id(*c)? {
                ids.insert(id);
            }
        }
        let mut out = Vec::new();
        for (i, c) in gone.iter().enumerate() {
            if i >= PATCH_ID_LIMIT {
                out.push(*c);
                continue;
            }
            if self.patch_id(*c)?.is_some_and(|id| ids.contains(&id)) {
                continue;
            }
            if !content_kept(&self.first_parent_diff(*c)?, &new_tree) {
                out.push(*c);
            }
        }
        Ok(out)
    }

    fn first_parent_diff(&self, commit: Oid) -> Result<git2::Diff<'_>, git2::Error> {
        let c = self.repo.find_commit(commit)?;
        let parent_tree = c.parents().next().map(|p| p.tree()).transpose()?;
        self.repo
            .diff_tree_to_tree(parent_tree.as_ref(), Some(&c.tree()?), None)
    }

    /// The patch id of a commit's change against its first parent; none for
    /// a merge or an empty change.
    fn patch_id(&self, commit: Oid) -> Result<Option<Oid>, git2::Error> {
        if self.repo.find_commit(commit)?.parent_count() > 1 {
            return Ok(None);
        }
        let diff = self.first_parent_diff(commit)?;
        if diff.deltas().len() == 0 {
            return Ok(None);
        }
        diff.patchid(None).map(Some)
    }

    /// A rewind of the checked-out branch keeps its changes when every path
    /// that differs between the two tips still has the old tip's content in
    /// the index or in the work tree (`reset --soft`, `reset --mixed`).
    fn changes_kept(&self, old: Oid, new: Oid) -> Result<bool, git2::Error> {
        let old_tree = self.repo.find_commit(old)?.tree()?;
        let new_tree = self.repo.find_commit(new)?.tree()?;
        let paths = diff_paths(&self.repo.diff_tree_to_tree(
            Some(&new_tree),
            Some(&old_tree),
            None,
        )?);
        if paths.is_empty() {
            return Ok(true);
        }
        if self.repo.is_bare() {
            return Ok(false);
        }
        let restricted = |untracked: bool| {
            let mut opts = DiffOptions::new();
            opts.disable_pathspec_match(true)
                .include_untracked(untracked)
                .recurse_untracked_dirs(untracked);
            for p in &paths {
                opts.pathspec(p);
            }
            opts
        };
        let index = self.repo.index()?;
        let in_index = diff_paths(&self.repo.diff_tree_to_index(
            Some(&old_tree),
            Some(&index),
            Some(&mut restricted(false)),
        )?);
        let in_work_tree = diff_paths(
            &self
                .repo
                .diff_tree_to_workdir(Some(&old_tree), Some(&mut restricted(true)))?,
        );
        Ok(in_index.intersection(&in_work_tree).next().is_none())
    }

    /// Writes `oid` to a rescue ref for `original` with libgit2, which runs
    /// no hooks (the reference-transaction hook is not re-entered).
    /// `stamp` is the time part of the name (`20261122T101500Z`).
    pub fn write_rescue(&self, original: &str, oid: &str, stamp: &str) -> Result<String> {
        let target = Oid::from_str(oid).with_context(|| format!("`{oid}` is not an object id"))?;
        let base = rescue_base(original, stamp);
        let taken: HashSet<String> = self
            .batches_of(stamp)
            .into_iter()
            .flat_map(|(_, entries)| entries.into_iter().map(|(name, _)| name))
            .collect();
        let mut name = base.clone();
        let mut n = 1;
        while taken.contains(&name) || self.repo.find_reference(&name).is_ok() {
            n += 1;
            name = format!("{base}-{n}");
        }
        self.repo
            .reference(
                &name,
                target,
                false,
                &format!("vouch: rescue of {original}"),
            )
            .with_context(|| format!("cannot write the rescue ref `{name}`"))?;
        Ok(name)
    }

    /// Writes the rescue refs of one operation together, all in one
    /// libgit2 transaction, all or none: each `(original, oid)` under a
    /// free name ([`Self::write_rescue`]'s), or, from [`BATCH_FROM`]
    /// commits on, the commits as entries of one batch ref (a push received
    /// into this repository that deletes thousands of branches leaves one
    /// ref, not thousands of loose refs for git to pack). What was kept
    /// where, in `items`' order.
    pub fn write_rescues(&self, items: &[(&str, &str)], stamp: &str) -> Result<Vec<Kept>> {
        let mut targets = Vec::with_capacity(items.len());
        for (_, oid) in items {
            targets
                .push(Oid::from_str(oid).with_context(|| format!("`{oid}` is not an object id"))?);
        }
        // Only a commit can be a parent: a tag object keeps a ref of its own.
        let mut batched: Vec<bool> = if items.len() >= BATCH_FROM {
            targets
                .iter()
                .map(|t| self.repo.find_commit(*t).is_ok())
                .collect()
        } else {
            vec![false; items.len()]
        };
        if !worth_a_batch(&batched) {
            batched.fill(false);
        }
        let mut taken: HashSet<String> = self
            .batches_of(stamp)
            .into_iter()
            .flat_map(|(_, entries)| entries.into_iter().map(|(name, _)| name))
            .collect();
        let names = free_names(items, stamp, &mut taken, &|n| {
            self.repo.find_reference(n).is_ok()
        });
        let mut tx = self
            .repo
            .transaction()
            .context("cannot start writing the rescue refs")?;
        let mut batch = None;
        if batched.contains(&true) {
            let entries = batched_entries(&names, items, &batched);
            let parents: Vec<Oid> = targets
                .iter()
                .zip(&batched)
                .filter(|(_, b)| **b)
                .map(|(t, _)| *t)
                .collect();
            let commit = self
                .batch_commit(&entries, &parents)
                .context("cannot write the rescue refs' batch commit")?;
            let base = batch_base(stamp);
            let mut name = base.clone();
            let mut n = 1;
            while self.repo.find_reference(&name).is_ok() {
                n += 1;
                name = format!("{base}-{n}");
            }
            tx.lock_ref(&name)
                .with_context(|| format!("cannot write the rescue ref `{name}`"))?;
            tx.set_target(
                &name,
                commit,
                None,
                &format!("vouch: rescue of {} refs", entries.len()),
            )
            .with_context(|| format!("cannot write the rescue ref `{name}`"))?;
            batch = Some(name);
        }
        for ((name, target), ((original, _), b)) in
            names.iter().zip(&targets).zip(items.iter().zip(&batched))
        {
            if *b {
                continue;
            }
            tx.lock_ref(name)
                .with_context(|| format!("cannot write the rescue ref `{name}`"))?;
            tx.set_target(name, *target, None, &format!("vouch: rescue of {original}"))
                .with_context(|| format!("cannot write the rescue ref `{name}`"))?;
        }
        tx.commit().context("cannot write the rescue refs")?;
        Ok(names
            .into_iter()
            .zip(batched)
            .map(|(name, b)| Kept {
                name,
                within: b.then(|| batch.clone()).flatten(),
            })
            .collect())
    }

    /// A batch commit: the empty tree, `parents` (each once), and
    /// [`batch_message`] of `entries`.
    fn batch_commit(&self, entries: &[(String, String)], parents: &[Oid]) -> Result<Oid> {
        let tree = self.repo.treebuilder(None)?.write()?;
        let tree = self.repo.find_tree(tree)?;
        let mut seen = HashSet::with_capacity(parents.len());
        let parents: Vec<git2::Commit<'_>> = parents
            .iter()
            .filter(|p| seen.insert(**p))
            .map(|p| self.repo.find_commit(*p))
            .collect::<Result<_, _>>()?;
        let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
        let who = git2::Signature::now("vouch", "vouch@localhost")?;
        Ok(self
            .repo
            .commit(None, &who, &who, &batch_message(entries), &tree, &parents)?)
    }

    /// The entries of a batch ref's commit ([`batch_entries`]).
    fn batch_at(&self, target: Oid) -> Vec<(String, String)> {
        let Ok(commit) = self.repo.find_commit(target) else {
            return Vec::new();
        };
        let parents: HashSet<String> = commit.parent_ids().map(|p| p.to_string()).collect();
        batch_entries(&String::from_utf8_lossy(commit.message_bytes()), &parents)
    }

    /// The batch refs written at `stamp`, with their entries.
    fn batches_of(&self, stamp: &str) -> Vec<(String, Vec<(String, String)>)> {
        let Ok(refs) = self
            .repo
            .references_glob(&format!("{}*", batch_base(stamp)))
        else {
            return Vec::new();
        };
        refs.flatten()
            .filter_map(|r| {
                let name = r.name().ok()?.to_owned();
                (is_batch(&name)).then(|| {
                    (
                        name,
                        r.target().map(|t| self.batch_at(t)).unwrap_or_default(),
                    )
                })
            })
            .collect()
    }

    /// Every rescue ref, and every entry of a batch ref, newest first.
    pub fn rescues(&self) -> Result<Vec<Rescue>> {
        let refs = self
            .repo
            .references_glob(&format!("{RESCUE_PREFIX}*"))
            .context("cannot list the rescue refs")?;
        let mut out = Vec::new();
        let mut survivors = None;
        let mut saved = |name: &str, target: Oid, held_in: Option<&str>| {
            let Some((original, saved_at)) = rescue_origin(name) else {
                return;
            };
            let commit = self.peel_commit(target);
            let subject = commit
                .and_then(|c| self.repo.find_commit(c).ok())
                .and_then(|c| c.summary().ok().flatten().map(str::to_owned))
                .unwrap_or_default();
            // Every other ref is read once, for all rescue refs.
            let survivors =
                survivors.get_or_insert_with(|| self.survivor_commits(&self.holders(), &|_| false));
            let only_here = commit.map_or(0, |c| {
                self.reachable_only(c, survivors, LOST_COUNT_LIMIT)
                    .map_or(0, |w| w.len())
            });
            out.push(Rescue {
                name: name.to_owned(),
                original,
                oid: target.to_string(),
                saved_at,
                subject,
                only_here,
                held_in: held_in.map(str::to_owned),
            });
        };
        for r in refs.flatten() {
            let (Ok(name), Some(target)) = (r.name(), r.target()) else {
                continue;
            };
            if is_batch(name) {
                for (entry, oid) in self.batch_at(target) {
                    if let Ok(oid) = Oid::from_str(&oid) {
                        saved(&entry, oid, Some(name));
                    }
                }
            } else {
                saved(name, target, None);
            }
        }
        out.sort_by(|a, b| b.saved_at.cmp(&a.saved_at).then(a.name.cmp(&b.name)));
        Ok(out)
    }

    /// Deletes rescue refs with libgit2, and entries of batch refs: a batch
    /// left with none is deleted, one left with some is written again
    /// without the others (its commit's parents follow).
    pub fn delete_rescues(&self, which: &[Rescue]) -> Result<()> {
        let mut batches: Vec<(&str, HashSet<&str>)> = Vec::new();
        for r in which {
            if !r.name.starts_with(RESCUE_PREFIX) {
                bail!("`{}` is not a rescue ref", r.name);
            }
            match &r.held_in {
                Some(batch) => match batches.iter_mut().find(|(b, _)| b == batch) {
                    Some((_, names)) => {
                        names.insert(&r.name);
                    }
                    None => batches.push((batch, HashSet::from([r.name.as_str()]))),
                },
                None => self
                    .repo
                    .find_reference(&r.name)
                    .and_then(|mut found| found.delete())
                    .with_context(|| format!("cannot delete `{}`", r.name))?,
            }
        }
        for (batch, names) in batches {
            let mut found = self
                .repo
                .find_reference(batch)
                .with_context(|| format!("cannot read `{batch}`"))?;
            let target = found
                .target()
                .with_context(|| format!("`{batch}` is not a batch of rescue refs"))?;
            let left: Vec<(String, String)> = self
                .batch_at(target)
                .into_iter()
                .filter(|(name, _)| !names.contains(name.as_str()))
                .collect();
            if left.is_empty() {
                found
                    .delete()
                    .with_context(|| format!("cannot delete `{batch}`"))?;
                continue;
            }
            let parents: Vec<Oid> = left
                .iter()
                .filter_map(|(_, oid)| Oid::from_str(oid).ok())
                .collect();
            let commit = self.batch_commit(&left, &parents)?;
            self.repo
                .reference_matching(
                    batch,
                    commit,
                    true,
                    target,
                    &format!("git vouch rescue prune: {} left", left.len()),
                )
                .with_context(|| format!("cannot write `{batch}`"))?;
        }
        Ok(())
    }

    /// True when `ancestor` is `descendant` or one of its ancestors.
    pub fn contains(&self, descendant: &str, ancestor: &str) -> bool {
        let (Ok(d), Ok(a)) = (Oid::from_str(descendant), Oid::from_str(ancestor)) else {
            return false;
        };
        d == a || self.repo.graph_descendant_of(d, a).unwrap_or(false)
    }

    /// The current value of `name`, if it exists.
    pub fn ref_value(&self, name: &str) -> Option<String> {
        self.ref_oid(name).map(|o| o.to_string())
    }
}

/// Sets `name` to `oid` with the git CLI, so that git writes the reflog and
/// runs its own checks, and only if it still holds `expected` (or does not
/// exist, when `expected` is `None`).
pub fn update_ref(dir: &Path, name: &str, oid: &str, expected: Option<&str>) -> Result<()> {
    let zero = "0".repeat(oid.len());
    let out = super::git_in(dir)
        .args(["update-ref", "-m", "git vouch rescue restore", name, oid])
        .arg(expected.unwrap_or(&zero))
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        bail!(
            "git update-ref {name} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// Moves the checked-out branch forward to `rev` with `git merge --ff-only`,
/// so that the index and work tree follow (git refuses, touching nothing,
/// when an uncommitted change would be overwritten).
pub fn fast_forward(dir: &Path, rev: &str) -> Result<()> {
    let out = super::git_in(dir)
        .args(["merge", "--ff-only", "--quiet", rev])
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        bail!(
            "git merge --ff-only {rev} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// Puts `oid` back on the stash with the git CLI.
pub fn stash_store(dir: &Path, oid: &str) -> Result<()> {
    let out = super::git_in(dir)
        .args(["stash", "store", "-m", "restored by vouch", oid])
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        bail!(
            "git stash store failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// True when every path `diff` changes holds, in `tree`, the content the
/// diff gave it.
fn content_kept(diff: &git2::Diff<'_>, tree: &git2::Tree<'_>) -> bool {
    diff.deltas().all(|d| {
        let Some(path) = d.new_file().path().or_else(|| d.old_file().path()) else {
            return false;
        };
        let now = tree.get_path(path).ok().map(|e| e.id());
        let wanted = (!d.new_file().id().is_zero()).then(|| d.new_file().id());
        now == wanted
    })
}

fn diff_paths(diff: &git2::Diff<'_>) -> HashSet<PathBuf> {
    diff.deltas()
        .flat_map(|d| [d.old_file().path(), d.new_file().path()])
        .flatten()
        .map(Path::to_path_buf)
        .collect()
}

/// The rescue ref name for `original` (before any `-2` to make it unique):
/// `refs/vouch/rescue/<branch>/<stamp>` for a branch,
/// `refs/vouch/rescue/<tag>/<stamp>-tag` for a tag and
/// `refs/vouch/rescue/stash/<stamp>-stash` for the stash.
pub(super) fn rescue_base(original: &str, stamp: &str) -> String {
    if let Some(branch) = original.strip_prefix("refs/heads/") {
        format!("{RESCUE_PREFIX}{branch}/{stamp}")
    } else if let Some(tag) = original.strip_prefix("refs/tags/") {
        format!("{RESCUE_PREFIX}{tag}/{stamp}-tag")
    } else if let Some(remote) = original.strip_prefix("refs/remotes/") {
        // What a push took off a remote's branch (`<remote>/<branch>`).
        format!("{RESCUE_PREFIX}{remote}/{stamp}-remote")
    } else if let Some(own) = original.strip_prefix("refs/vouch/") {
        // A rescue ref removed with plain git, and let through.
        format!("{RESCUE_PREFIX}{own}/{stamp}-rescue")
    } else {
        format!("{RESCUE_PREFIX}stash/{stamp}-stash")
    }
}

/// The ref a rescue ref saved and the time it was written
/// (`2026-11-22T10:15:00Z`), read back from its name.
fn rescue_origin(name: &str) -> Option<(String, String)> {
    let rest = name.strip_prefix(RESCUE_PREFIX)?;
    let (path, last) = rest.rsplit_once('/')?;
    let stamp = last.get(..16)?;
    // `<stamp>[-tag|-stash|-rescue|-remote][-<n>]`
    let mut suffix = &last[16..];
    if let Some((head, n)) = suffix.rsplit_once('-')
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        suffix = head;
    }
    let kind = suffix.strip_prefix('-').unwrap_or(suffix);
    let original = match kind {
        "" => format!("refs/heads/{path}"),
        "tag" => format!("refs/tags/{path}"),
        "stash" if path == "stash" => "refs/stash".to_owned(),
        "rescue" => format!("refs/vouch/{path}"),
        "remote" => format!("refs/remotes/{path}"),
        _ => return None,
    };
    let b = stamp.as_bytes();
    if b.len() != 16 || b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    let saved_at = format!(
        "{}-{}-{}T{}:{}:{}Z",
        &stamp[0..4],
        &stamp[4..6],
        &stamp[6..8],
        &stamp[9..11],
        &stamp[11..13],
        &stamp[13..15]
    );
    Some((original, saved_at))
}

/// Puts back the stash entry `oid` that `git stash drop` took out of the
/// stash's reflog before the ref update vouch refused (issue 35 item 2):
/// git rewrites `logs/refs/stash` first, and only then asks to delete
/// `refs/stash`; refused, the ref still names the entry but `git stash
/// list` no longer shows it. The line written back is the one `git stash`
/// wrote: the entry's committer and time, and its subject. `Ok(false)`
/// when nothing was missing (or `refs/stash` no longer names `oid`).
pub fn put_back_stash_entry(git_dir: &Path, oid: &str) -> Result<bool> {
    let repo = git2::Repository::open(git_dir)
        .with_context(|| format!("cannot open `{}`", git_dir.display()))?;
    let named = repo
        .find_reference("refs/stash")
        .ok()
        .and_then(|r| r.target())
        .map(|o| o.to_string());
    if named.as_deref() != Some(oid) {
        return Ok(false);
    }
    let log = repo.commondir().join("logs/refs/stash");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    if lines
        .iter()
        .any(|l| l.split(' ').nth(1).is_some_and(|new| new == oid))
    {
        return Ok(false);
    }
    let commit = repo
        .find_commit(Oid::from_str(oid)?)
        .with_context(|| format!("the stash entry {oid} is not a commit here"))?;
    let who = commit.committer();
    let when = who.when();
    let offset = when.offset_minutes();
    let ident = format!(
        "{} <{}> {} {}{:02}{:02}",
        String::from_utf8_lossy(who.name_bytes()),
        String::from_utf8_lossy(who.email_bytes()),
        when.seconds(),
        if offset < 0 { '-' } else { '+' },
        offset.abs() / 60,
        offset.abs() % 60
    );
    let subject = String::from_utf8_lossy(commit.message_bytes())
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let old = lines
        .last()
        .and_then(|l| l.split(' ').nth(1))
        .map_or_else(|| "0".repeat(oid.len()), str::to_owned);
    let mut out = text;
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("{old} {oid} {ident}\t{subject}\n"));
    crate::platform::files::write_atomic(&log, out.as_bytes(), 0o644)
        .with_context(|| format!("cannot write `{}`", log.display()))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rescue_names_round_trip() {
        let stamp = "20261122T101500Z";
        for original in [
            "refs/heads/main",
            "refs/heads/feature/x",
            "refs/tags/v1.0",
            "refs/stash",
            "refs/vouch/rescue/main/20261101T090000Z",
        ] {
            let name = rescue_base(original, stamp);
            assert!(name.starts_with(RESCUE_PREFIX), "{name}");
            let (back, at) = rescue_origin(&name).unwrap();
            assert_eq!(back, original, "{name}");
            assert_eq!(at, "2026-11-22T10:15:00Z");
            let (back2, _) = rescue_origin(&format!("{name}-2")).unwrap();
            assert_eq!(back2, original);
        }
        assert_eq!(
            rescue_base("refs/heads/main", stamp),
            "refs/vouch/rescue/main/20261122T101500Z"
        );
        assert!(rescue_origin("refs/vouch/rescue/main/not-a-time").is_none());
        assert!(rescue_origin("refs/heads/main").is_none());
    }

    /// A batch's message names its entries as the rescue refs they stand
    /// for; what its commit does not hold, or a name that is not a rescue
    /// ref's, is not listed, and a batch ref is never an entry.
    #[test]
    fn batch_entries_round_trip() {
        let stamp = "20261128T101500Z";
        let (a, b, c) = ("a".repeat(40), "b".repeat(40), "c".repeat(40));
        let items = [
            ("refs/heads/x", a.as_str()),
            ("refs/heads/x", b.as_str()),
            ("refs/tags/v1", c.as_str()),
        ];
        let mut taken = HashSet::from([rescue_base("refs/tags/v1", stamp)]);
        let names = free_names(&items, stamp, &mut taken, &|n| {
            n == "refs/vouch/rescue/x/20261128T101500Z"
        });
        assert_eq!(
            names,
            [
                "refs/vouch/rescue/x/20261128T101500Z-2",
                "refs/vouch/rescue/x/20261128T101500Z-3",
                "refs/vouch/rescue/v1/20261128T101500Z-tag-2",
            ]
        );
        let entries: Vec<(String, String)> = names
            .iter()
            .zip(&items)
            .map(|(n, (_, oid))| (n.clone(), (*oid).to_owned()))
            .collect();
        let mut message = batch_message(&entries);
        message.push_str(&format!("{a} refs/heads/not-a-rescue\n"));
        message.push_str(&format!("{a} {}\n", batch_base(stamp)));
        let parents = HashSet::from([a.clone(), c.clone()]);
        let back = batch_entries(&message, &parents);
        assert_eq!(back, [entries[0].clone(), entries[2].clone()]);
        assert!(is_batch(&batch_base(stamp)));
        assert!(is_batch(&format!("{}-12", batch_base(stamp))));
        assert!(!is_batch(&format!("{}-x", batch_base(stamp))));
        assert!(!is_batch("refs/vouch/rescue/batch/20261128T101500Z"));
        assert!(rescue_origin(&batch_base(stamp)).is_none());
    }
}
