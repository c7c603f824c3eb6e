//! What each ref update of a push would lose: one function ([`measure`])
//! for every door that measures ref updates against a remote or a server,
//! over one interface ([`History`]) with a back end for libgit2 ([`Repo`];
//! on the server it reads the push's quarantine through git's environment)
//! and one for the git command line ([`Cli`]: reftable, SHA-256 and grafted
//! repositories, where libgit2 cannot read history as the remote holds it).
//!
//! The deletions of one operation (and, on the server, its rewrites) are
//! measured by one walk: from every old tip no surviving ref holds, with
//! every survivor hidden once. A push that deletes 5,000 unmerged branches
//! costs one walk, not 5,000 (each of which hid every surviving ref again).
//! Each ref is then credited with the walked commits its own tip reaches
//! ([`attribute`]).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use git2::Oid;

use super::{LOST_COUNT_LIMIT, LOST_SAMPLE, MEASURED_REFS_LIMIT, Repo};
use crate::classify::facts::{
    Change, Holders, Lease, LocalChange, LocalRefFacts, Lost, LostBuilder, RefFacts, RefKind,
    RemoteTip, surviving,
};
use crate::input::hooks::PushUpdate;

/// How many commits the one walk of an operation's deletions reads before
/// it stops: past it, every count is a lower bound and says so.
const WALK_LIMIT: usize = 200_000;

/// A commit as a walk yields it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Walked {
    pub id: String,
    pub parents: Vec<String>,
    pub email: String,
    pub name: String,
    pub subject: String,
}

/// What a back end answers about the repository's history. Object ids are
/// full hexadecimal strings, as git writes them.
pub(crate) trait History {
    /// True when the object is in the repository.
    fn has_object(&mut self, oid: &str) -> bool;
    /// The commit an object peels to; `None` for a tree or a blob (or a
    /// tag of one), or an object that cannot be read.
    fn peel_commit(&mut self, oid: &str) -> Option<String>;
    /// The commits reachable from any of `tips` and from none of `hide`,
    /// newest first, at most `limit`.
    fn walk(
        &mut self,
        tips: &[String],
        hide: &[String],
        limit: usize,
    ) -> Result<Vec<Walked>, String>;
    /// What holds commits here (the survivor rule's input).
    fn holders(&mut self) -> Holders<String>;
    /// The remote-tracking ref that mirrors `remote_ref` of the remote
    /// pushed to.
    fn tracking_ref(&mut self, remote_ref: &str) -> Option<String>;
    /// A ref's value.
    fn ref_value(&mut self, name: &str) -> Option<String>;
}

/// Which side of a push measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The pusher's pre-push hook: its own refs stand for what survives a
    /// deletion (less the remote-tracking refs of the deleted refs), a
    /// rewrite loses what its new value does not contain, and the
    /// remote-tracking ref says whether the pusher's view is current.
    Client { shallow: bool },
    /// The server's pre-receive hook: what its refs hold once the push is
    /// in survives (the refs it leaves alone, and every new value).
    Server,
}

/// One [`RefFacts`] per update, in order; `by_vouch` marks the updates
/// vouch computed itself (a mirror push's deletions).
pub(crate) fn measure(
    history: &mut dyn History,
    side: Side,
    updates: Vec<(PushUpdate, bool)>,
) -> Vec<RefFacts> {
    let mut m = Measure {
        history,
        side,
        peeled: HashMap::new(),
        leaving: HashMap::new(),
        rewrites_walked: 0,
    };
    // The refs whose holding the push takes away.
    let changing: HashSet<String> = match side {
        Side::Client { .. } => updates
            .iter()
            .filter(|(u, _)| u.is_delete())
            .filter_map(|(u, _)| m.history.tracking_ref(&u.remote_ref))
            .collect(),
        Side::Server => updates.iter().map(|(u, _)| u.remote_ref.clone()).collect(),
    };
    let set_to: Vec<String> = match side {
        Side::Client { .. } => Vec::new(),
        Side::Server => updates
            .iter()
            .filter(|(u, _)| !u.is_delete())
            .map(|(u, _)| u.local_oid.clone())
            .collect(),
    };
    let mut facts = Vec::with_capacity(updates.len());
    let mut pending = Vec::new();
    for (update, by_vouch) in updates {
        let change = Change::of(&update);
        let mut f = RefFacts::new(update, change);
        f.computed_by_vouch = by_vouch;
        if let Some(old_commit) = m.ref_facts(&mut f) {
            pending.push((facts.len(), old_commit));
        }
        facts.push(f);
    }
    if !pending.is_empty() {
        m.lost_after(&mut facts, &pending, &changing, &set_to);
    }
    facts
}

struct Measure<'h> {
    history: &'h mut dyn History,
    side: Side,
    /// Memos: the refs of one push mostly share a few commits (10,000 tags
    /// of one release, a mirror push), so each is looked up once.
    peeled: HashMap<String, Option<String>>,
    leaving: HashMap<(String, String), Result<Option<Lost>, String>>,
    /// A pusher's rewrites measured, each with a walk of its own.
    rewrites_walked: usize,
}

impl Measure<'_> {
    fn peel_commit(&mut self, oid: &str) -> Option<String> {
        if let Some(p) = self.peeled.get(oid) {
            return p.clone();
        }
        let p = self.history.peel_commit(oid);
        self.peeled.insert(oid.to_owned(), p.clone());
        p
    }

    /// What leaves a ref when `old` is replaced by `new`: `None` when `new`
    /// contains `old` (a fast-forward), else the commits only `old` reaches.
    fn leaving(&mut self, new: &str, old: &str) -> Result<Option<Lost>, String> {
        let key = (new.to_owned(), old.to_owned());
        if let Some(l) = self.leaving.get(&key) {
            return l.clone();
        }
        let l = self
            .history
            .walk(&[old.to_owned()], &[new.to_owned()], LOST_COUNT_LIMIT + 1)
            .map(|walked| (!walked.is_empty()).then(|| summarize(walked.iter(), false)));
        self.leaving.insert(key, l.clone());
        l
    }

    fn lease(&mut self, f: &mut RefFacts) {
        if f.kind == RefKind::Tag || self.side == Side::Server {
            return;
        }
        let tracking = self.history.tracking_ref(&f.remote_ref);
        f.lease = match tracking.and_then(|t| self.history.ref_value(&t)) {
            Some(t) if t == f.old_oid => Lease::Holds,
            Some(t) => Lease::Stale { tracking_oid: t },
            None => Lease::NoTrackingRef,
        };
    }

    /// Measures what one update can be told alone: how the ref changes,
    /// whether the old tip is here, the lease, a pusher's rewrite. Returns
    /// the old commit when what it loses depends on what survives the whole
    /// operation (measured by [`Measure::lost_after`]).
    fn ref_facts(&mut self, f: &mut RefFacts) -> Option<String> {
        if matches!(f.change, Change::Create | Change::Unchanged) {
            return None;
        }
        let old = f.old_oid.clone();
        if !self.history.has_object(&old) {
            f.remote_tip = match self.side {
                Side::Client { shallow } => RemoteTip::missing(shallow),
                Side::Server => RemoteTip::Unknown(format!(
                    "the server's own object {} is missing from its repository",
                    crate::input::text::short_oid(&old)
                )),
            };
            return None;
        }
        f.remote_tip = RemoteTip::Known;
        // A tag of a tree or blob: nothing to count.
        let old_commit = self.peel_commit(&old)?;
        if f.change == Change::Delete {
            self.lease(f);
            return Some(old_commit);
        }
        let new = f.new_oid.clone();
        let Some(new_commit) = self.peel_commit(&new) else {
            f.remote_tip = RemoteTip::Unknown(match self.side {
                Side::Client { .. } => "the new value is not a commit".into(),
                Side::Server => {
                    "the new value is not a commit, or not readable (quarantine not found?)".into()
                }
            });
            return None;
        };
        if new_commit == old_commit {
            // A tag object replaced by another for the same commit still moves the tag.
            f.change = if f.kind == RefKind::Tag {
                Change::Rewrite
            } else {
                Change::Unchanged
            };
            return None;
        }
        let shallow = matches!(self.side, Side::Client { shallow: true });
        let unknown = |e: String| {
            RemoteTip::Unknown(if shallow {
                format!("shallow clone: {e}")
            } else {
                e
            })
        };
        match self.side {
            Side::Client { .. } => {
                if self.rewrites_walked >= MEASURED_REFS_LIMIT {
                    // Past the limit, only the direction is told (one
                    // commit read): a rewrite's loss is not counted.
                    match self.history.walk(&[old_commit], &[new_commit], 1) {
                        Ok(w) if w.is_empty() => f.change = Change::FastForward,
                        Ok(_) => {
                            f.change = Change::Rewrite;
                            self.lease(f);
                        }
                        Err(e) => {
                            f.change = Change::Rewrite;
                            f.remote_tip = unknown(e);
                        }
                    }
                    return None;
                }
                match self.leaving(&new_commit, &old_commit) {
                    Ok(None) => f.change = Change::FastForward,
                    Ok(Some(lost)) => {
                        self.rewrites_walked += 1;
                        f.change = Change::Rewrite;
                        self.lease(f);
                        f.lost = Some(lost);
                    }
                    Err(e) => {
                        f.change = Change::Rewrite;
                        f.remote_tip = unknown(e);
                    }
                }
                None
            }
            Side::Server => {
                match self
                    .history
                    .walk(std::slice::from_ref(&old_commit), &[new_commit], 1)
                {
                    Ok(w) if w.is_empty() => {
                        f.change = Change::FastForward;
                        None
                    }
                    Ok(_) => {
                        f.change = Change::Rewrite;
                        Some(old_commit)
                    }
                    Err(e) => {
                        f.change = Change::Rewrite;
                        f.remote_tip = RemoteTip::Unknown(e);
                        None
                    }
                }
            }
        }
    }

    /// The commits the refs that survive the operation point at, peeled
    /// and deduplicated.
    fn survivors(&mut self, changing: &HashSet<String>, set_to: &[String]) -> Vec<String> {
        let holders = self.history.holders();
        let mut commits: Vec<String> = surviving(&holders, &|n| changing.contains(n))
            .into_iter()
            .chain(set_to.iter().cloned())
            .filter_map(|t| self.peel_commit(&t))
            .collect();
        commits.sort_unstable();
        commits.dedup();
        commits
    }

    /// What each pending ref (`(index into facts, old commit)`) loses once
    /// the operation is in: one walk from every old tip no survivor holds.
    fn lost_after(
        &mut self,
        facts: &mut [RefFacts],
        pending: &[(usize, String)],
        changing: &HashSet<String>,
        set_to: &[String],
    ) {
        let survivors = self.survivors(changing, set_to);
        let tips: Vec<String> = pending.iter().map(|(_, old)| old.clone()).collect();
        match lost_by_tips(self.history, &tips, &survivors) {
            Ok(lost) => {
                for (i, old) in pending {
                    match lost.get(old) {
                        Some(l) => facts[*i].lost = Some(l.clone()),
                        None => facts[*i].remote_tip = RemoteTip::Unknown(not_measured()),
                    }
                }
            }
            Err(e) => {
                for (i, _) in pending {
                    facts[*i].remote_tip = RemoteTip::Unknown(e.clone());
                }
            }
        }
    }
}

fn not_measured() -> String {
    format!(
        "not measured: the refs this operation removes hold more than {WALK_LIMIT} commits no other ref holds"
    )
}

/// What each of `tips` (commits) loses once no ref but `survivors`
/// (commits) holds anything: one walk for all of them. A tip missing from
/// the answer could not be measured (the walk stopped at its limit first).
///
/// # Errors
///
/// The back end's words, when the walk fails.
pub(crate) fn lost_by_tips(
    history: &mut dyn History,
    tips: &[String],
    survivors: &[String],
) -> Result<HashMap<String, Lost>, String> {
    let held: HashSet<&str> = survivors.iter().map(String::as_str).collect();
    let mut out = HashMap::new();
    let mut walk_from: Vec<String> = Vec::new();
    for tip in tips {
        if held.contains(tip.as_str()) {
            // Another ref that stays holds this very commit: nothing
            // leaves (the common case of a clean-up push).
            out.insert(tip.clone(), Lost::none());
        } else {
            walk_from.push(tip.clone());
        }
    }
    if walk_from.is_empty() {
        return Ok(out);
    }
    walk_from.sort_unstable();
    walk_from.dedup();
    let walked = history.walk(&walk_from, survivors, WALK_LIMIT)?;
    let truncated = walked.len() >= WALK_LIMIT;
    out.extend(attribute(&walked, &walk_from, truncated));
    Ok(out)
}

/// Measures the branch deletions of a local reference transaction whose
/// loss is not told yet (`lost` and `unknown` both unset) with one walk,
/// as [`measure`] does for a push.
pub(crate) fn measure_local_deletions(
    history: &mut dyn History,
    refs: &mut [LocalRefFacts],
    survivors: &[String],
) {
    let pending: Vec<(usize, String)> = refs
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.change == LocalChange::DeleteBranch && f.lost.is_none() && f.unknown.is_none()
        })
        .filter_map(|(i, f)| Some((i, history.peel_commit(&f.old_oid)?)))
        .collect();
    if pending.is_empty() {
        return;
    }
    let tips: Vec<String> = pending.iter().map(|(_, c)| c.clone()).collect();
    match lost_by_tips(history, &tips, survivors) {
        Ok(lost) => {
            for (i, tip) in &pending {
                match lost.get(tip) {
                    Some(l) => refs[*i].lost = Some(l.clone()),
                    None => refs[*i].unknown = Some(not_measured()),
                }
            }
        }
        Err(e) => {
            for (i, _) in &pending {
                refs[*i].unknown = Some(e.clone());
            }
        }
    }
}

/// Credits each tip with the walked commits it reaches: the walk holds
/// exactly the commits some tip reaches and no survivor does, so a tip's
/// loss is what it reaches through walked commits alone (a path through a
/// survivor's commit would make the commit at its end a survivor's too).
/// `truncated` (the walk stopped at its limit) makes every count a lower
/// bound.
pub(crate) fn attribute(
    walked: &[Walked],
    tips: &[String],
    truncated: bool,
) -> HashMap<String, Lost> {
    let position: HashMap<&str, usize> = walked
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let mut out = HashMap::new();
    for tip in tips {
        let mut reached: Vec<usize> = Vec::new();
        let mut seen: HashSet<usize> = HashSet::new();
        let Some(start) = position.get(tip.as_str()).copied() else {
            // A tip the walk never reached: a survivor holds it, unless the
            // walk stopped first (then it is not measured).
            if !truncated {
                out.insert(tip.clone(), Lost::none());
            }
            continue;
        };
        let mut stack = vec![start];
        let mut over = false;
        while let Some(p) = stack.pop() {
            if !seen.insert(p) {
                continue;
            }
            if reached.len() > LOST_COUNT_LIMIT {
                over = true;
                break;
            }
            reached.push(p);
            for parent in &walked[p].parents {
                if let Some(q) = position.get(parent.as_str())
                    && !seen.contains(q)
                {
                    stack.push(*q);
                }
            }
        }
        // Newest first, as the walk gave them.
        reached.sort_unstable();
        let mut lost = summarize(reached.iter().map(|p| &walked[*p]), over);
        lost.truncated |= truncated;
        out.insert(tip.clone(), lost);
    }
    out
}

/// Summarises commits newest first; more than the count limit (or
/// `truncated`) marks the summary truncated.
fn summarize<'a>(commits: impl Iterator<Item = &'a Walked>, truncated: bool) -> Lost {
    let mut lost = LostBuilder::new(LOST_COUNT_LIMIT, LOST_SAMPLE);
    for c in commits {
        if !lost.add(&c.id, &c.email, &c.name, &c.subject) {
            break;
        }
    }
    let mut lost = lost.finish();
    lost.truncated |= truncated;
    lost
}

/// libgit2's answers, in the repository a hook runs in (on the server,
/// with the push's quarantine, which git names in the environment).
pub(crate) struct Git2<'r> {
    repo: &'r Repo,
    /// The remote pushed to, for its fetch refspecs (a pusher's side).
    remote: Option<&'r str>,
    remote_found: std::cell::OnceCell<Option<git2::Remote<'r>>>,
    /// Every ref, read once past a few lookups.
    refs: Option<HashMap<String, String>>,
    lookups: usize,
}

impl<'r> Git2<'r> {
    pub fn new(repo: &'r Repo, remote: Option<&'r str>) -> Self {
        Self {
            repo,
            remote,
            remote_found: std::cell::OnceCell::new(),
            refs: None,
            lookups: 0,
        }
    }
}

fn oid(s: &str) -> Option<Oid> {
    Oid::from_str(s).ok()
}

impl History for Git2<'_> {
    fn has_object(&mut self, o: &str) -> bool {
        oid(o).is_some_and(|o| self.repo.has_object(o))
    }

    fn peel_commit(&mut self, o: &str) -> Option<String> {
        self.repo.peel_commit(oid(o)?).map(|c| c.to_string())
    }

    fn walk(
        &mut self,
        tips: &[String],
        hide: &[String],
        limit: usize,
    ) -> Result<Vec<Walked>, String> {
        let msg = |e: git2::Error| e.message().to_owned();
        let parse = |s: &String| oid(s).ok_or_else(|| format!("`{s}` is not an object id"));
        let repo = &self.repo.repo;
        let tips = tips.iter().map(parse).collect::<Result<Vec<_>, _>>()?;
        let hide = hide.iter().map(parse).collect::<Result<Vec<_>, _>>()?;
        let mut out = Vec::new();
        for id in date_walk(repo, &tips, &hide)
            .map_err(msg)?
            .into_iter()
            .take(limit)
        {
            let commit = repo.find_commit(id).map_err(msg)?;
            let author = commit.author();
            out.push(Walked {
                id: commit.id().to_string(),
                parents: commit.parent_ids().map(|p| p.to_string()).collect(),
                email: String::from_utf8_lossy(author.email_bytes()).into_owned(),
                name: String::from_utf8_lossy(author.name_bytes()).into_owned(),
                subject: commit.summary().ok().flatten().unwrap_or("").to_owned(),
            });
        }
        Ok(out)
    }

    fn holders(&mut self) -> Holders<String> {
        let refs: Vec<(String, String)> = self.all_refs().clone().into_iter().collect();
        // The refs are read above (as strings); the rest as every door reads it.
        let h = self.repo.holders_with(Vec::<(String, Oid)>::new());
        Holders {
            refs,
            detached_head: h.detached_head.map(|o| o.to_string()),
            stash: h.stash.iter().map(Oid::to_string).collect(),
        }
    }

    fn tracking_ref(&mut self, remote_ref: &str) -> Option<String> {
        let repo = self.repo;
        let name = self.remote?;
        let remote = self
            .remote_found
            .get_or_init(|| repo.repo.find_remote(name).ok());
        super::tracking_ref(remote.as_ref()?, remote_ref)
    }

    fn ref_value(&mut self, name: &str) -> Option<String> {
        // Past a few lookups, every ref is read once into a map instead of
        // one file lookup each.
        self.lookups += 1;
        if self.refs.is_none() && self.lookups <= 64 {
            return self.repo.ref_oid(name).map(|o| o.to_string());
        }
        self.all_refs().get(name).cloned()
    }
}

/// The commits reachable from `tips` and from none of `hide` (each peeled
/// to its commit, as libgit2's revwalk peels), newest first: `git rev-list
/// <tips> --not <hide>`. libgit2's limited revwalk, with its queue in a
/// binary heap: libgit2 keeps the queue as a list sorted by insertion and
/// scans it for a commit still of interest after every step, so hiding the
/// thousands of refs that survive a mass deletion cost the square of their
/// number (a second per deleted branch among 5,000, issue 38 item 6).
/// As libgit2 does: commits are taken newest first by committer time (of
/// equal times, the first queued first); a hidden commit hides its
/// parents, and at once every ancestor already taken; the walk goes on
/// while a queued commit is wanted or is as new as the last taken, then a
/// few more (its slop, for clocks that went backwards).
fn date_walk(repo: &git2::Repository, tips: &[Oid], hide: &[Oid]) -> Result<Vec<Oid>, git2::Error> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    const SLOP: usize = 5;
    /// What is known of a commit: hidden, queued, and once taken its
    /// parents.
    struct Mark {
        hidden: bool,
        queued: bool,
        parents: Option<Vec<Oid>>,
    }
    struct Walk<'r> {
        repo: &'r git2::Repository,
        marks: HashMap<Oid, Mark>,
        // (committer time, order queued, id): the newest first.
        queue: BinaryHeap<(i64, Reverse<u64>, Oid)>,
        seq: u64,
        // Queued commits not hidden.
        wanted: usize,
    }
    impl Walk<'_> {
        fn enqueue(&mut self, id: Oid, hidden: bool) -> Result<(), git2::Error> {
            if self.marks.contains_key(&id) {
                if hidden {
                    self.hide(id);
                }
                return Ok(());
            }
            let time = self.repo.find_commit(id)?.time().seconds();
            self.seq += 1;
            self.queue.push((time, Reverse(self.seq), id));
            self.marks.insert(
                id,
                Mark {
                    hidden,
                    queued: true,
                    parents: None,
                },
            );
            if !hidden {
                self.wanted += 1;
            }
            Ok(())
        }

        /// Hides `id` and every ancestor of it already taken.
        fn hide(&mut self, id: Oid) {
            let mut stack = vec![id];
            while let Some(id) = stack.pop() {
                let Some(m) = self.marks.get_mut(&id) else {
                    continue;
                };
                if m.hidden {
                    continue;
                }
                m.hidden = true;
                if m.queued {
                    self.wanted -= 1;
                }
                if let Some(parents) = &m.parents {
                    stack.extend(parents.iter().copied());
                }
            }
        }
    }
    let mut w = Walk {
        repo,
        marks: HashMap::new(),
        queue: BinaryHeap::new(),
        seq: 0,
        wanted: 0,
    };
    let peel = |id: Oid| -> Result<Oid, git2::Error> {
        Ok(repo.find_object(id, None)?.peel_to_commit()?.id())
    };
    for h in hide {
        w.enqueue(peel(*h)?, true)?;
    }
    for t in tips {
        w.enqueue(peel(*t)?, false)?;
    }
    let mut order: Vec<Oid> = Vec::new();
    let mut slop = SLOP;
    while let Some((time, _, id)) = w.queue.pop() {
        let parents: Vec<Oid> = repo.find_commit(id)?.parent_ids().collect();
        let hidden = {
            let Some(m) = w.marks.get_mut(&id) else {
                continue;
            };
            m.queued = false;
            m.parents = Some(parents.clone());
            m.hidden
        };
        if hidden {
            for p in parents {
                w.enqueue(p, true)?;
            }
        } else {
            w.wanted -= 1;
            order.push(id);
            for p in parents {
                w.enqueue(p, false)?;
            }
        }
        let as_new = w.queue.peek().is_some_and(|(t, _, _)| *t >= time);
        if w.wanted > 0 || as_new {
            slop = SLOP;
        } else if w.queue.is_empty() {
            break;
        } else {
            slop -= 1;
            if slop == 0 {
                break;
            }
        }
    }
    // Newest first, less what a hidden commit reached after it was taken.
    Ok(order
        .into_iter()
        .filter(|id| w.marks.get(id).is_some_and(|m| !m.hidden))
        .collect())
}

impl Git2<'_> {
    /// Every direct ref and its target (names lossily UTF-8, as git gives
    /// them to a hook), read once.
    fn all_refs(&mut self) -> &HashMap<String, String> {
        let repo = self.repo;
        self.refs.get_or_insert_with(|| {
            repo.direct_refs()
                .into_iter()
                .map(|(n, o)| (n, o.to_string()))
                .collect()
        })
    }
}

/// The git command line's answers, for repositories libgit2 cannot read
/// as the remote holds them. Each question is one git process, except the
/// refs, read once.
pub(crate) struct Cli<'d> {
    dir: &'d Path,
    /// The remote pushed to, when it is a configured remote (its usual
    /// fetch refspec names the tracking refs; git2 is not here to read it).
    remote: Option<&'d str>,
    /// Every direct ref and its value, read once.
    refs: Option<HashMap<String, String>>,
    /// Objects and the commits they peel to (the refs' values, read with
    /// them: a push may keep 10,000 refs, one process each would not do).
    peeled: HashMap<String, Option<String>>,
}

impl<'d> Cli<'d> {
    pub fn new(dir: &'d Path, remote: Option<&'d str>) -> Self {
        Self {
            dir,
            remote,
            refs: None,
            peeled: HashMap::new(),
        }
    }

    /// One git command's output, when it succeeds.
    pub fn run(&self, args: &[&str]) -> Option<String> {
        super::git_in(self.dir)
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim_end().to_owned())
    }

    fn refs(&mut self) -> &HashMap<String, String> {
        if self.refs.is_none() {
            let text = self
                .run(&[
                    "for-each-ref",
                    "--format=%(objectname) %(objecttype) %(*objectname) %(*objecttype) %(refname) %(symref)",
                ])
                .unwrap_or_default();
            let mut refs = HashMap::new();
            for line in text.lines() {
                let mut p = line.splitn(6, ' ');
                let (Some(oid), Some(kind), Some(peeled), Some(peeled_kind), Some(name)) =
                    (p.next(), p.next(), p.next(), p.next(), p.next())
                else {
                    continue;
                };
                if !p.next().unwrap_or("").is_empty() {
                    continue; // a symbolic ref
                }
                let commit = match (kind, peeled_kind) {
                    ("commit", _) => Some(Some(oid.to_owned())),
                    ("tag", "commit") => Some(Some(peeled.to_owned())),
                    // A tag of a tag is peeled by asking git.
                    ("tag", "tag") => None,
                    _ => Some(None),
                };
                if let Some(commit) = commit {
                    self.peeled.insert(oid.to_owned(), commit);
                }
                refs.insert(name.to_owned(), oid.to_owned());
            }
            self.refs = Some(refs);
        }
        self.refs.as_ref().expect("just read")
    }
}

impl History for Cli<'_> {
    fn has_object(&mut self, oid: &str) -> bool {
        self.run(&["cat-file", "-e", oid]).is_some()
    }

    fn peel_commit(&mut self, oid: &str) -> Option<String> {
        self.refs();
        if let Some(commit) = self.peeled.get(oid) {
            return commit.clone();
        }
        let commit = self.run(&["rev-parse", "-q", "--verify", &format!("{oid}^{{commit}}")]);
        self.peeled.insert(oid.to_owned(), commit.clone());
        commit
    }

    fn walk(
        &mut self,
        tips: &[String],
        hide: &[String],
        limit: usize,
    ) -> Result<Vec<Walked>, String> {
        let limit = limit.to_string();
        let mut git = super::git_in(self.dir);
        git.args([
            "log",
            "--format=%H%x00%P%x00%ae%x00%an%x00%s",
            "-n",
            &limit,
            "--stdin",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
        // Given on stdin: a push may keep 10,000 refs.
        let mut input = String::new();
        for t in tips {
            input.push_str(t);
            input.push('\n');
        }
        for h in hide {
            input.push('^');
            input.push_str(h);
            input.push('\n');
        }
        let out = super::output_with_input(&mut git, input.as_bytes())
            .map_err(|e| format!("git log cannot start: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git log failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|line| {
                let mut p = line.split('\0');
                let mut next = || p.next().unwrap_or_default().to_owned();
                Walked {
                    id: next(),
                    parents: next().split_whitespace().map(str::to_owned).collect(),
                    email: next(),
                    name: next(),
                    subject: next(),
                }
            })
            .collect())
    }

    fn holders(&mut self) -> Holders<String> {
        let refs = self
            .refs()
            .iter()
            .map(|(n, v)| (n.clone(), v.clone()))
            .collect();
        let detached_head = self
            .run(&["symbolic-ref", "-q", "HEAD"])
            .is_none()
            .then(|| self.run(&["rev-parse", "-q", "--verify", "HEAD"]))
            .flatten();
        let stash = if self.refs().contains_key("refs/stash") {
            self.run(&["log", "-g", "--format=%H", "refs/stash"])
                .map(|t| t.lines().map(str::to_owned).collect())
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        Holders {
            refs,
            detached_head,
            stash,
        }
    }

    fn tracking_ref(&mut self, remote_ref: &str) -> Option<String> {
        // The usual fetch refspec; good enough where git2 cannot read the config.
        let remote = self.remote?;
        remote_ref
            .strip_prefix("refs/heads/")
            .map(|b| format!("refs/remotes/{remote}/{b}"))
    }

    fn ref_value(&mut self, name: &str) -> Option<String> {
        self.refs().get(name).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    use crate::measure::git::local_cli::tests::{Rng, git, random_repo};

    fn commit(id: &str, parents: &[&str]) -> Walked {
        Walked {
            id: id.into(),
            parents: parents.iter().map(|p| (*p).to_owned()).collect(),
            email: format!("{id}@example.com"),
            name: id.into(),
            subject: format!("subject {id}"),
        }
    }

    #[test]
    fn each_tip_is_credited_with_what_it_alone_reaches_through_the_walk() {
        // a3 -> a2 -> a1 -> (hidden base); b1 -> a1; c1 -> (hidden base).
        let walked = [
            commit("a3", &["a2"]),
            commit("b1", &["a1"]),
            commit("a2", &["a1"]),
            commit("c1", &["base"]),
            commit("a1", &["base"]),
        ];
        let tips = [
            "a3".to_owned(),
            "b1".to_owned(),
            "c1".to_owned(),
            "gone".to_owned(),
        ];
        let lost = attribute(&walked, &tips, false);
        let ids = |t: &str| -> Vec<String> {
            lost[t].commits.iter().map(|c| c.short_id.clone()).collect()
        };
        assert_eq!(ids("a3"), ["a3", "a2", "a1"]);
        assert_eq!(ids("b1"), ["b1", "a1"]);
        assert_eq!(ids("c1"), ["c1"]);
        assert_eq!(lost["a3"].authors, 3);
        // A tip the walk never reached is held by a survivor.
        assert_eq!(lost["gone"], Lost::none());
        assert!(!lost["a3"].truncated);
        let cut = attribute(&walked, &tips, true);
        assert!(cut["c1"].truncated);
        assert!(
            !cut.contains_key("gone"),
            "unreached by a cut walk: not measured"
        );
    }

    fn update(name: &str, old: &str, new: &str) -> (PushUpdate, bool) {
        let update = PushUpdate {
            local_ref: name.to_owned(),
            local_oid: new.to_owned(),
            remote_ref: name.to_owned(),
            remote_oid: old.to_owned(),
            lossy_name: false,
        };
        (update, false)
    }

    fn summary(f: &RefFacts) -> (Change, Option<usize>, Option<bool>, bool) {
        (
            f.change,
            f.lost.as_ref().map(|l| l.count),
            f.lost.as_ref().map(|l| l.truncated),
            matches!(f.remote_tip, RemoteTip::Unknown(_)),
        )
    }

    /// A differential test: random histories (merges, roots, tags, and a
    /// shallow boundary in some), several deletions and rewrites measured
    /// as one operation by libgit2 and by the git command line, on both
    /// sides of a push, and the server's losses against `git rev-list`.
    #[test]
    fn every_back_end_measures_an_operation_as_git_counts_it() {
        for seed in 1..=16u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let dir = tempfile::tempdir().unwrap();
            let (ids, branches) = random_repo(dir.path(), &mut rng, 30);
            if seed % 4 == 0 {
                // A shallow boundary at two commits (as a shallow clone has).
                let cut = format!(
                    "{}\n{}\n",
                    ids[rng.below(ids.len())],
                    ids[rng.below(ids.len())]
                );
                std::fs::write(dir.path().join("shallow"), cut).unwrap();
            }
            let repo = Repo::discover(dir.path()).unwrap();
            let mut updates = Vec::new();
            let mut names: Vec<&String> = branches.iter().collect();
            for _ in 0..4 {
                let name = names.remove(rng.below(names.len()));
                let old = git(dir.path(), &["rev-parse", name], None);
                let new = if rng.below(2) == 0 {
                    "0".repeat(40)
                } else {
                    ids[rng.below(ids.len())].clone()
                };
                updates.push(update(name, &old, &new));
            }
            let case = format!("seed {seed}: {updates:?}");
            for side in [Side::Server, Side::Client { shallow: false }] {
                let by_lib = measure(&mut Git2::new(&repo, None), side, updates.clone());
                let by_git = measure(&mut Cli::new(dir.path(), None), side, updates.clone());
                let lib: Vec<_> = by_lib.iter().map(summary).collect();
                let cli: Vec<_> = by_git.iter().map(summary).collect();
                assert_eq!(lib, cli, "{side:?} {case}");
            }
            // The server: what a deletion or a rewrite loses is what no ref
            // reaches once the push is in.
            let facts = measure(&mut Git2::new(&repo, None), Side::Server, updates.clone());
            let pushed: Vec<&str> = updates.iter().map(|(u, _)| u.remote_ref.as_str()).collect();
            let mut keep: Vec<String> =
                git(dir.path(), &["for-each-ref", "--format=%(refname)"], None)
                    .lines()
                    .filter(|r| !pushed.contains(r))
                    .map(str::to_owned)
                    .collect();
            keep.extend(
                updates
                    .iter()
                    .filter(|(u, _)| !u.is_delete())
                    .map(|(u, _)| u.local_oid.clone()),
            );
            for f in &facts {
                // The direction, as `git merge-base --is-ancestor` tells it.
                if matches!(f.change, Change::FastForward | Change::Rewrite) {
                    let ancestor = Command::new("git")
                        .args(["-C"])
                        .arg(dir.path())
                        .args(["merge-base", "--is-ancestor", &f.old_oid, &f.new_oid])
                        .status()
                        .unwrap()
                        .success();
                    assert_eq!(
                        ancestor,
                        f.change == Change::FastForward,
                        "{} {case}",
                        f.remote_ref
                    );
                }
                if !matches!(f.change, Change::Delete | Change::Rewrite) {
                    continue;
                }
                let mut args = vec!["rev-list", "--count", f.old_oid.as_str(), "--not"];
                args.extend(keep.iter().map(String::as_str));
                let count: usize = git(dir.path(), &args, None).parse().unwrap();
                assert_eq!(
                    f.lost.as_ref().map(|l| l.count),
                    Some(count),
                    "{} {case}",
                    f.remote_ref
                );
            }
        }
    }
}
