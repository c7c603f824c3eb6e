//! Measuring a push: what each ref update would destroy on the remote,
//! from local knowledge (the remote-tracking refs), and what `git push`
//! of the current branch would send.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result, bail};
use git2::Oid;

use super::{LOST_COUNT_LIMIT, LOST_SAMPLE, MEASURED_REFS_LIMIT, Repo, git_output};
use crate::facts::{
    Change, Holders, Lease, Lost, LostBuilder, PushFacts, RefFacts, RefKind, RemoteTip,
    mirror_deletions, surviving,
};
use crate::hooks::{PushArgs, PushUpdate, effective_force};
use crate::text::redact_url;
impl Repo {
    /// Measures a push: one [`RefFacts`] per line, plus the deletions of a
    /// mirror push that git never shows the hook.
    pub fn push_facts(
        &self,
        remote: &str,
        url: &str,
        updates: Vec<PushUpdate>,
        args: &PushArgs,
    ) -> PushFacts {
        // A configured remote, as git2's lookup finds one; the remote itself
        // (its refspecs, for tracking refs) is read only when a deletion or
        // a rewrite needs it: a fast-forward never does.
        let is_named_remote = ["url", "pushurl"]
            .iter()
            .any(|k| self.config_has(&format!("remote.{remote}.{k}")));
        let mirror = args.mirror
            || (is_named_remote && self.config_bool(&format!("remote.{remote}.mirror")));
        let force = effective_force(
            args.force,
            mirror,
            &self.config_multi(&format!("remote.{remote}.push")),
        );
        let mut facts = PushFacts {
            remote: redact_url(remote),
            url: redact_url(url),
            force,
            mirror,
            shallow: self.repo.is_shallow(),
            remote_head: is_named_remote.then(|| self.remote_head(remote)).flatten(),
            branch: self.current_branch(),
            ..PushFacts::default()
        };
        let mut updates: Vec<(PushUpdate, bool)> =
            updates.into_iter().map(|u| (u, false)).collect();
        if mirror {
            let pushed: HashSet<String> =
                updates.iter().map(|(u, _)| u.remote_ref.clone()).collect();
            match self.mirror_deletions(remote, url, &pushed) {
                Ok(deletions) => updates.extend(deletions.into_iter().map(|u| (u, true))),
                Err(e) => facts.mirror_unknown = Some(format!("{e:#}")),
            }
        }
        let mut measure = Measure {
            repo: self,
            remote_name: remote,
            remote: std::cell::OnceCell::new(),
            shallow: facts.shallow,
            measured: 0,
            exclude: HashSet::new(),
            survivors: None,
            survivor_set: HashSet::new(),
            present: HashMap::new(),
            peeled: HashMap::new(),
            leaving: HashMap::new(),
            lookups: 0,
            all_refs: None,
        };
        // What a deletion destroys is what no ref left after the push holds.
        measure.exclude = updates
            .iter()
            .filter(|(u, _)| u.is_delete())
            .filter_map(|(u, _)| measure.tracking_ref(&u.remote_ref))
            .collect();
        for (update, by_vouch) in updates {
            let mut f = measure.ref_facts(update);
            f.computed_by_vouch = by_vouch;
            facts.refs.push(f);
        }
        if facts.shallow {
            facts.notes.push(
                "this is a shallow clone: commits behind the shallow boundary cannot be measured"
                    .into(),
            );
        }
        facts
    }

    /// The refs a mirror push deletes: every ref on the remote that is not
    /// here (mirror pushes `refs/*:refs/*` with force and prune).
    fn mirror_deletions(
        &self,
        remote: &str,
        url: &str,
        pushed: &HashSet<String>,
    ) -> Result<Vec<PushUpdate>> {
        let target = if self.repo.find_remote(remote).is_ok() {
            remote
        } else {
            url
        };
        let listed = ls_remote(&self.root(), target)?;
        Ok(mirror_deletions(listed, |name| {
            pushed.contains(name) || self.repo.find_reference(name).is_ok()
        }))
    }

    /// What `git push` of the current branch would send, from local
    /// knowledge only (no network): the branch, its upstream, and the
    /// remote-tracking ref as the remote's value.
    pub fn pending_push(&self) -> Result<(String, String, PushUpdate)> {
        let head = self
            .repo
            .head()
            .context("this repository has no commits yet")?;
        if !head.is_branch() {
            bail!("HEAD is detached: check out the branch you mean to push");
        }
        let local_ref = head
            .name()
            .context("the branch name is not UTF-8")?
            .to_owned();
        let local_oid = head.target().context("HEAD points nowhere")?;
        let remote = self
            .repo
            .branch_upstream_remote(&local_ref)
            .ok()
            .and_then(|b| b.as_str().ok().map(str::to_owned))
            .or_else(|| self.repo.find_remote("origin").ok().map(|_| "origin".to_owned()))
            .context("this branch has no upstream and there is no `origin` remote: set one with `git push -u <remote> <branch>`")?;
        let remote_ref = self
            .repo
            .branch_upstream_merge(&local_ref)
            .ok()
            .and_then(|b| b.as_str().ok().map(str::to_owned))
            .unwrap_or_else(|| local_ref.clone());
        let url = self
            .repo
            .find_remote(&remote)
            .ok()
            .and_then(|r| r.url().ok().map(str::to_owned))
            .unwrap_or_else(|| remote.clone());
        let zero = "0".repeat(local_oid.to_string().len());
        let remote_oid = self
            .repo
            .find_remote(&remote)
            .ok()
            .and_then(|r| tracking_ref(&r, &remote_ref))
            .and_then(|t| self.ref_oid(&t))
            .map_or(zero, |o| o.to_string());
        Ok((
            remote,
            url,
            PushUpdate {
                local_ref,
                local_oid: local_oid.to_string(),
                remote_ref,
                remote_oid,
                lossy_name: false,
            },
        ))
    }
}

/// The state of measuring one push: the remote and the survivors are
/// looked up once, not once per ref (a push can carry 10,000 refs).
struct Measure<'r> {
    repo: &'r Repo,
    remote_name: &'r str,
    /// The remote, looked up on first use.
    remote: std::cell::OnceCell<Option<git2::Remote<'r>>>,
    shallow: bool,
    /// How many deleted refs had their lost commits counted.
    measured: usize,
    /// Remote-tracking refs of the refs this push deletes.
    exclude: HashSet<String>,
    /// Commit tips of every other ref, computed on first use, as a list
    /// (to hide in walks) and a set (a deleted tip another ref still holds
    /// loses nothing, with no walk at all).
    survivors: Option<Vec<Oid>>,
    survivor_set: HashSet<Oid>,
    /// Memos: the refs of one push mostly share a few commits (10,000 tags
    /// of one release, a mirror push), so each object is looked up once.
    present: HashMap<Oid, bool>,
    peeled: HashMap<Oid, Option<Oid>>,
    leaving: HashMap<(Oid, Oid), Result<Option<Lost>, String>>,
    /// Ref lookups made, and every ref once there were many.
    lookups: usize,
    all_refs: Option<HashMap<String, Oid>>,
}

impl Measure<'_> {
    fn tracking_ref(&self, remote_ref: &str) -> Option<String> {
        let remote = self
            .remote
            .get_or_init(|| self.repo.repo.find_remote(self.remote_name).ok());
        tracking_ref(remote.as_ref()?, remote_ref)
    }

    /// Every ref and its target, read once.
    fn all_refs(&mut self) -> &HashMap<String, Oid> {
        let repo = self.repo;
        self.all_refs.get_or_insert_with(|| {
            let mut map = HashMap::new();
            if let Ok(refs) = repo.repo.references() {
                for r in refs.flatten() {
                    if let (Ok(n), Some(t)) = (r.name(), r.target()) {
                        map.insert(n.to_owned(), t);
                    }
                }
            }
            map
        })
    }

    /// The value of ref `name`. Past a few lookups, every ref is read once
    /// into a map instead of one file lookup each.
    fn ref_target(&mut self, name: &str) -> Option<Oid> {
        self.lookups += 1;
        if self.all_refs.is_none() && self.lookups <= 64 {
            return self.repo.ref_oid(name);
        }
        self.all_refs().get(name).copied()
    }

    /// What still holds commits after the push (the survivor rule,
    /// [`crate::facts::surviving`], with the remote-tracking refs of the
    /// deleted refs as what the push removes), computed once.
    fn survivors(&mut self) -> &[Oid] {
        if self.survivors.is_none() {
            self.all_refs();
            let refs = self
                .all_refs
                .iter()
                .flatten()
                .map(|(n, o)| (n.as_str(), *o))
                .collect();
            let holders = self.repo.holders_with(refs);
            let exclude = &self.exclude;
            let commits = self
                .repo
                .survivor_commits(&holders, &|n| exclude.contains(n));
            self.survivor_set = commits.iter().copied().collect();
            self.survivors = Some(commits);
        }
        self.survivors.as_deref().unwrap_or_default()
    }

    fn lease(&mut self, remote_ref: &str, remote_oid: Oid) -> Lease {
        let tracking = self.tracking_ref(remote_ref);
        match tracking.and_then(|t| self.ref_target(&t)) {
            Some(t) if t == remote_oid => Lease::Holds,
            Some(t) => Lease::Stale {
                tracking_oid: t.to_string(),
            },
            None => Lease::NoTrackingRef,
        }
    }

    fn has_object(&mut self, oid: Oid) -> bool {
        let repo = self.repo;
        *self
            .present
            .entry(oid)
            .or_insert_with(|| repo.has_object(oid))
    }

    fn peel_commit(&mut self, oid: Oid) -> Option<Oid> {
        let repo = self.repo;
        *self
            .peeled
            .entry(oid)
            .or_insert_with(|| repo.peel_commit(oid))
    }

    /// What leaves a ref when `old` is replaced by `new`: `None` when `new`
    /// contains `old` (a fast-forward), else the commits only `old` reaches.
    /// One walk answers both questions (a separate ancestry check would walk
    /// the same history twice).
    fn leaving(&mut self, new: Oid, old: Oid) -> Result<Option<Lost>, String> {
        let repo = self.repo;
        self.leaving
            .entry((new, old))
            .or_insert_with(|| {
                repo.lost_commits(old, &[new])
                    .map(|lost| (lost.count > 0).then_some(lost))
                    .map_err(|e| e.message().to_owned())
            })
            .clone()
    }

    fn ref_facts(&mut self, update: PushUpdate) -> RefFacts {
        let repo = self.repo;
        let change = Change::of(&update);
        let mut f = RefFacts::new(update, change);
        if matches!(change, Change::Create | Change::Unchanged) {
            return f;
        }
        let Ok(remote_oid) = Oid::from_str(&f.old_oid) else {
            f.remote_tip =
                RemoteTip::Unknown("the remote object id is not one git2 can read".into());
            return f;
        };
        if !self.has_object(remote_oid) {
            f.remote_tip = RemoteTip::missing(self.shallow);
            return f;
        }
        f.remote_tip = RemoteTip::Known;
        let Some(old_commit) = self.peel_commit(remote_oid) else {
            return f; // a tag of a tree or blob: nothing to count
        };
        if change == Change::Delete {
            if f.kind != RefKind::Tag {
                f.lease = self.lease(&f.remote_ref, remote_oid);
            }
            self.survivors();
            if self.survivor_set.contains(&old_commit) {
                // Another ref that stays holds this very commit: nothing
                // leaves, and no walk is needed (the common case of a
                // clean-up push, however many refs it deletes).
                f.lost = Some(crate::facts::Lost::none());
            } else if self.measured < MEASURED_REFS_LIMIT {
                self.measured += 1;
                let hide = self.survivors();
                match repo.lost_commits(old_commit, hide) {
                    Ok(lost) => f.lost = Some(lost),
                    Err(e) => f.remote_tip = RemoteTip::Unknown(e.message().to_owned()),
                }
            }
            return f;
        }
        let new_commit = Oid::from_str(&f.new_oid)
            .ok()
            .and_then(|o| repo.peel_commit(o));
        let Some(new_commit) = new_commit else {
            f.remote_tip = RemoteTip::Unknown("the new value is not a commit".into());
            return f;
        };
        if new_commit == old_commit {
            // A tag object replaced by another for the same commit still moves the tag.
            f.change = if f.kind == RefKind::Tag {
                Change::Rewrite
            } else {
                Change::Unchanged
            };
            return f;
        }
        match self.leaving(new_commit, old_commit) {
            Ok(None) => f.change = Change::FastForward,
            Ok(Some(lost)) => {
                f.change = Change::Rewrite;
                if f.kind != RefKind::Tag {
                    f.lease = self.lease(&f.remote_ref, remote_oid);
                }
                f.lost = Some(lost);
            }
            Err(e) => {
                f.change = Change::Rewrite;
                f.remote_tip = RemoteTip::Unknown(if self.shallow {
                    format!("shallow clone: {e}")
                } else {
                    e
                });
            }
        }
        f
    }
}

/// Facts from the git command line, for repositories git2 cannot open
/// (reftable, SHA-256; `research/git-semantics.md` section 6): the same
/// questions, one git process each. `None` when git cannot find a repository
/// either.
pub fn cli_push_facts(
    dir: &Path,
    remote: &str,
    url: &str,
    updates: Vec<PushUpdate>,
    args: &PushArgs,
) -> Option<PushFacts> {
    let run = |a: &[&str]| {
        super::git_in(dir)
            .args(a)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim_end().to_owned())
    };
    run(&["rev-parse", "--git-dir"])?;
    let config_key = |k: &str| format!("remote.{remote}.{k}");
    let named = run(&["config", "--get", &config_key("url")]).is_some();
    let mirror =
        args.mirror || run(&["config", "--bool", &config_key("mirror")]).as_deref() == Some("true");
    let configured: Vec<String> = run(&["config", "--get-all", &config_key("push")])
        .map(|t| t.lines().map(str::to_owned).collect())
        .unwrap_or_default();
    let mut facts = PushFacts {
        remote: redact_url(remote),
        url: redact_url(url),
        force: effective_force(args.force, mirror, &configured),
        mirror,
        shallow: run(&["rev-parse", "--is-shallow-repository"]).as_deref() == Some("true"),
        remote_head: named
            .then(|| run(&["symbolic-ref", "-q", &format!("refs/remotes/{remote}/HEAD")]))
            .flatten()
            .and_then(|t| {
                t.strip_prefix(&format!("refs/remotes/{remote}/"))
                    .map(str::to_owned)
            }),
        branch: run(&["symbolic-ref", "-q", "--short", "HEAD"]),
        ..PushFacts::default()
    };
    let mut updates: Vec<(PushUpdate, bool)> = updates.into_iter().map(|u| (u, false)).collect();
    if mirror {
        let pushed: HashSet<String> = updates.iter().map(|(u, _)| u.remote_ref.clone()).collect();
        let local: HashSet<String> = run(&["for-each-ref", "--format=%(refname)"])
            .map(|t| t.lines().map(str::to_owned).collect())
            .unwrap_or_default();
        match ls_remote(dir, if named { remote } else { url }) {
            Ok(listed) => updates.extend(
                mirror_deletions(listed, |n| pushed.contains(n) || local.contains(n))
                    .into_iter()
                    .map(|u| (u, true)),
            ),
            Err(e) => facts.mirror_unknown = Some(format!("{e:#}")),
        }
    }
    // The usual fetch refspec; good enough where git2 cannot read the config.
    let tracking = |remote_ref: &str| {
        remote_ref
            .strip_prefix("refs/heads/")
            .filter(|_| named)
            .map(|b| format!("refs/remotes/{remote}/{b}"))
    };
    // What a deletion destroys is what no ref left after the push holds
    // (the same survivor rule as git2's measurement), read on first use.
    let deleted: HashSet<String> = updates
        .iter()
        .filter(|(u, _)| u.is_delete())
        .filter_map(|(u, _)| tracking(&u.remote_ref))
        .collect();
    let mut survivors: Option<Vec<String>> = None;
    let mut measured = 0;
    for (update, by_vouch) in updates {
        let change = Change::of(&update);
        let mut f = RefFacts::new(update, change);
        f.computed_by_vouch = by_vouch;
        if !matches!(change, Change::Create | Change::Unchanged) {
            let old = f.old_oid.clone();
            if run(&["cat-file", "-e", &old]).is_none() {
                f.remote_tip = RemoteTip::missing(facts.shallow);
            } else {
                f.remote_tip = RemoteTip::Known;
                let hide: Vec<String> = if change == Change::Delete {
                    survivors
                        .get_or_insert_with(|| {
                            surviving(&cli_holders(&run), &|n| deleted.contains(n))
                        })
                        .clone()
                } else if run(&["merge-base", "--is-ancestor", &old, &f.new_oid]).is_some() {
                    f.change = Change::FastForward;
                    Vec::new()
                } else {
                    vec![f.new_oid.clone()]
                };
                if f.change != Change::FastForward {
                    if f.kind != RefKind::Tag {
                        let tracked = tracking(&f.remote_ref)
                            .and_then(|t| run(&["rev-parse", "-q", "--verify", &t]));
                        f.lease = match tracked {
                            Some(t) if t == old => Lease::Holds,
                            Some(t) => Lease::Stale { tracking_oid: t },
                            None => Lease::NoTrackingRef,
                        };
                    }
                    measured += 1;
                    f.lost = (measured <= MEASURED_REFS_LIMIT)
                        .then(|| cli_lost_commits(dir, &old, &hide))
                        .flatten();
                }
            }
        }
        facts.refs.push(f);
    }
    Some(facts)
}

/// [`Repo::holders`] read with the git CLI: every direct ref
/// (`for-each-ref`), a detached `HEAD` and the stash entries.
pub(super) fn cli_holders(run: &dyn Fn(&[&str]) -> Option<String>) -> Holders<String> {
    let lines = |args: &[&str]| -> Vec<String> {
        run(args)
            .map(|t| t.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let refs = lines(&[
        "for-each-ref",
        "--format=%(objectname) %(refname) %(symref)",
    ])
    .into_iter()
    .filter_map(|l| {
        let mut parts = l.splitn(3, ' ');
        let (oid, name, symref) = (parts.next()?, parts.next()?, parts.next().unwrap_or(""));
        symref.is_empty().then(|| (name.to_owned(), oid.to_owned()))
    })
    .collect::<Vec<_>>();
    let detached_head = run(&["symbolic-ref", "-q", "HEAD"])
        .is_none()
        .then(|| run(&["rev-parse", "-q", "--verify", "HEAD"]))
        .flatten();
    let stash = if refs.iter().any(|(n, _)| n == "refs/stash") {
        lines(&["log", "-g", "--format=%H", "refs/stash"])
    } else {
        Vec::new()
    };
    Holders {
        refs,
        detached_head,
        stash,
    }
}

/// [`Repo::lost_commits`] with the git CLI: commits reachable from `from`
/// and from none of `hide` (given on stdin: a push may keep 10,000 refs).
pub(super) fn cli_lost_commits(dir: &Path, from: &str, hide: &[String]) -> Option<Lost> {
    let mut lost = LostBuilder::new(LOST_COUNT_LIMIT, LOST_SAMPLE);
    for c in cli_reachable_only(dir, from, hide)? {
        if !lost.add(&c.id, &c.email, &c.name, &c.subject) {
            break;
        }
    }
    Some(lost.finish())
}

/// A commit as `git log` lists it.
pub(super) struct LoggedCommit {
    pub id: String,
    pub email: String,
    pub name: String,
    pub subject: String,
}

/// The commits reachable from `from` and from none of `hide`, newest
/// first, at most one more than [`LOST_COUNT_LIMIT`].
pub(super) fn cli_reachable_only(
    dir: &Path,
    from: &str,
    hide: &[String],
) -> Option<Vec<LoggedCommit>> {
    use std::io::Write;
    let limit = (LOST_COUNT_LIMIT + 1).to_string();
    let mut child = super::git_in(dir)
        .args([
            "log",
            "--format=%H%x00%ae%x00%an%x00%s",
            "-n",
            &limit,
            "--stdin",
            from,
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut input = String::new();
    for h in hide {
        input.push('^');
        input.push_str(h);
        input.push('\n');
    }
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|line| {
                let mut p = line.split('\0').map(str::to_owned);
                LoggedCommit {
                    id: p.next().unwrap_or_default(),
                    email: p.next().unwrap_or_default(),
                    name: p.next().unwrap_or_default(),
                    subject: p.next().unwrap_or_default(),
                }
            })
            .collect(),
    )
}

/// The remote-tracking ref that mirrors `remote_ref` of `remote`.
pub(super) fn tracking_ref(remote: &git2::Remote<'_>, remote_ref: &str) -> Option<String> {
    // No ref name holds a NUL byte (and git2 cannot take one): nothing tracks it.
    if remote_ref.contains('\0') {
        return None;
    }
    remote
        .refspecs()
        .filter(|s| s.direction() == git2::Direction::Fetch && s.src_matches(remote_ref))
        .find_map(|s| {
            s.transform(remote_ref)
                .ok()?
                .as_str()
                .ok()
                .map(str::to_owned)
        })
}

/// `git ls-remote` of a remote name or URL: `(oid, ref)` pairs.
pub fn ls_remote(dir: &Path, remote: &str) -> Result<Vec<(String, String)>> {
    let text = git_output(dir, &["ls-remote", "--", remote])?;
    Ok(text
        .lines()
        .filter_map(|l| {
            let (oid, name) = l.split_once('\t')?;
            Some((oid.to_owned(), name.to_owned()))
        })
        .collect())
}

/// `git ls-remote` that gives up after `timeout` (a remote that needs a
/// password or a network that hangs must not hold an agent's command).
pub fn ls_remote_within(
    dir: &Path,
    remote: &str,
    timeout: std::time::Duration,
) -> Result<Vec<(String, String)>> {
    use std::io::Read;
    use wait_timeout::ChildExt;
    let mut child = super::git_in(dir)
        .args(["ls-remote", "--", remote])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .context("cannot run `git ls-remote`")?;
    let mut out = String::new();
    let reader = child.stdout.take().map(|mut s| {
        std::thread::spawn(move || {
            let mut text = String::new();
            s.read_to_string(&mut text).ok();
            text
        })
    });
    let Some(status) = child.wait_timeout(timeout)? else {
        child.kill().ok();
        child.wait().ok();
        bail!(
            "`git ls-remote {remote}` did not answer within {} s",
            timeout.as_secs()
        );
    };
    if let Some(r) = reader {
        out = r.join().unwrap_or_default();
    }
    if !status.success() {
        bail!("`git ls-remote {remote}` failed");
    }
    Ok(out
        .lines()
        .filter_map(|l| {
            let (oid, name) = l.split_once('\t')?;
            Some((oid.to_owned(), name.to_owned()))
        })
        .collect())
}
