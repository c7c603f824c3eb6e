//! The facts of a reference transaction measured with the git command line,
//! for repositories libgit2 cannot open or cannot read as the remote would
//! (reftable, SHA-256, grafts; issue 26 items 1 and 4): the same questions
//! as [`Repo::local_facts`](super::Repo::local_facts), asked of git, and
//! the rescue refs written with `git update-ref`.
//!
//! Where a libgit2 answer has no cheap git equivalent, this side answers
//! more cautiously: a path it cannot compare counts as changed.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};

use super::local::{
    BATCH_FROM, Kept, Moment, PATCH_ID_LIMIT, RESCUE_PREFIX, batch_base, batch_entries,
    batch_message, batched_entries, free_names, is_batch, rescue_base, worth_a_batch,
};
use super::ref_facts::{Cli, History as _, Walked};
use super::{LOST_COUNT_LIMIT, LOST_SAMPLE};
use crate::classify::facts::{LocalChange, LocalFacts, LocalRefFacts, LostBuilder, surviving};
use crate::input::git_command::{RefUpdate, is_zero_oid};

/// How many paths one comparison names on git's command line; more count
/// as changed (the cautious answer).
const PATH_LIMIT: usize = 2_000;

/// A repository read through git: where it is, and what a transaction in it
/// changes.
pub struct CliMeasured {
    /// The git directory, absolute.
    pub git_dir: PathBuf,
    /// The work tree root, or the git directory of a bare repository.
    pub root: PathBuf,
    /// The guarded lines, measured.
    pub facts: LocalFacts,
}

/// Runs git in `dir`; stdout when it succeeds.
pub(super) fn run_bytes(dir: &Path, args: &[&OsStr]) -> Option<Vec<u8>> {
    super::git_in(dir)
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| o.stdout)
}

/// Runs git in `dir`; stdout, trimmed, when it succeeds.
fn run(dir: &Path, args: &[&str]) -> Option<String> {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run_bytes(dir, &args).map(|o| String::from_utf8_lossy(&o).trim_end().to_owned())
}

/// True when git exits 0.
fn succeeds(dir: &Path, args: &[&str]) -> bool {
    run(dir, args).is_some()
}

/// The NUL-separated paths git printed.
fn paths_of(out: &[u8]) -> Vec<Vec<u8>> {
    out.split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// The paths that differ between two trees (`git diff --name-only -z`).
fn changed_paths(dir: &Path, from: &str, to: &str) -> Option<Vec<Vec<u8>>> {
    let args = ["diff", "--no-renames", "--name-only", "-z", from, to, "--"];
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run_bytes(dir, &args).map(|o| paths_of(&o))
}

/// Runs `git <args> -- <paths>` with the paths read literally; `None` when
/// there are too many to name or git fails.
fn with_paths(dir: &Path, args: &[&str], paths: &[Vec<u8>]) -> Option<Vec<u8>> {
    if paths.len() > PATH_LIMIT {
        return None;
    }
    let mut all: Vec<&OsStr> = vec![OsStr::new("--literal-pathspecs")];
    all.extend(args.iter().map(OsStr::new));
    all.push(OsStr::new("--"));
    all.extend(paths.iter().map(|p| OsStr::from_bytes(p)));
    run_bytes(dir, &all)
}

/// True when `tree` holds, at every one of `paths`, what `source` holds.
fn same_at(dir: &Path, source: &str, tree: &str, paths: &[Vec<u8>]) -> bool {
    paths.is_empty()
        || with_paths(
            dir,
            &["diff", "--no-renames", "--quiet", source, tree],
            paths,
        )
        .is_some()
}

/// The commit an object id peels to, if it is one.
fn peel_commit(dir: &Path, oid: &str) -> Option<String> {
    run(
        dir,
        &["rev-parse", "-q", "--verify", &format!("{oid}^{{commit}}")],
    )
}

/// Measures the guarded lines of a reference transaction with git, as
/// [`Repo::local_facts`](super::Repo::local_facts) does with libgit2.
/// `None` when git cannot find a repository at `dir` either.
pub fn cli_local_facts(dir: &Path, updates: &[RefUpdate], moment: Moment) -> Option<CliMeasured> {
    let git_dir = PathBuf::from(run(dir, &["rev-parse", "--absolute-git-dir"])?);
    let bare = run(dir, &["rev-parse", "--is-bare-repository"]).as_deref() == Some("true");
    let root = if bare {
        git_dir.clone()
    } else {
        run(dir, &["rev-parse", "--show-toplevel"]).map_or_else(|| git_dir.clone(), PathBuf::from)
    };
    let checked_out = run(dir, &["symbolic-ref", "-q", "HEAD"]);
    let mut facts = LocalFacts {
        refs: Vec::new(),
        command: None,
        branch: checked_out
            .as_deref()
            .and_then(|r| r.strip_prefix("refs/heads/"))
            .map(str::to_owned),
        rebase: git_dir.join("rebase-merge").exists() || git_dir.join("rebase-apply").exists(),
    };
    let mut history = Cli::new(dir, None);
    let holders = history.holders();
    let mut names: Vec<&str> = updates.iter().map(|u| u.name.as_str()).collect();
    names.sort_unstable();
    let changing = |n: &str| names.binary_search(&n).is_ok();
    let mut survivors: Option<(Vec<String>, HashSet<String>)> = None;
    for update in updates {
        let old = if is_zero_oid(&update.old) {
            match holders.refs.iter().find(|(n, _)| *n == update.name) {
                Some((_, oid)) => oid.clone(),
                None => continue, // a creation
            }
        } else {
            update.old.clone()
        };
        let new = (!update.is_delete()).then(|| update.new.clone());
        if new.as_deref() == Some(old.as_str()) {
            continue;
        }
        let (survivors, tip_set) = survivors.get_or_insert_with(|| {
            let mut tips: Vec<String> = surviving(&holders, &changing)
                .into_iter()
                .filter_map(|t| history.peel_commit(&t))
                .collect();
            tips.extend(
                updates
                    .iter()
                    .filter(|u| !u.is_delete())
                    .filter_map(|u| history.peel_commit(&u.new)),
            );
            tips.sort_unstable();
            tips.dedup();
            let set = tips.iter().cloned().collect();
            (tips, set)
        });
        let is_checked_out = checked_out.as_deref() == Some(update.name.as_str());
        if let Some(f) = measure(
            dir,
            update,
            &old,
            new.as_deref(),
            survivors,
            tip_set,
            is_checked_out,
            moment,
            bare,
        ) {
            facts.refs.push(f);
        }
    }
    if let Some((survivors, _)) = &survivors {
        super::ref_facts::measure_local_deletions(&mut history, &mut facts.refs, survivors);
    }
    Some(CliMeasured {
        git_dir,
        root,
        facts,
    })
}

/// The facts of one guarded line; `None` when it destroys nothing (a
/// fast-forward, a push onto the stash).
#[allow(clippy::too_many_arguments)]
fn measure(
    dir: &Path,
    update: &RefUpdate,
    old: &str,
    new: Option<&str>,
    survivors: &[String],
    tip_set: &HashSet<String>,
    checked_out: bool,
    moment: Moment,
    bare: bool,
) -> Option<LocalRefFacts> {
    let name = update.name.as_str();
    let change = LocalChange::of(name, new.is_none())?;
    let new_oid = new.map_or_else(|| "0".repeat(old.len()), str::to_owned);
    let mut f = LocalRefFacts::new(name, old.to_owned(), new_oid, change, checked_out);
    if !matches!(change, LocalChange::Rewrite | LocalChange::DeleteBranch) {
        return Some(f);
    }
    if change == LocalChange::DeleteBranch && !succeeds(dir, &["cat-file", "-e", old]) {
        f.lost = Some(crate::classify::facts::Lost::none());
        f.missing_tip = true;
        return Some(f);
    }
    let Some(old_c) = peel_commit(dir, old) else {
        f.unknown = Some("the old value is not a commit".into());
        return Some(f);
    };
    if change == LocalChange::DeleteBranch {
        if tip_set.contains(&old_c) {
            f.lost = Some(crate::classify::facts::Lost::none());
            return Some(f);
        }
        // Measured with every other deletion of the transaction, in one
        // walk ([`super::ref_facts::measure_local_deletions`]).
        return Some(f);
    }
    let Some(new_c) = new.and_then(|n| peel_commit(dir, n)) else {
        f.unknown = Some("the new value is not a commit".into());
        return Some(f);
    };
    if succeeds(dir, &["merge-base", "--is-ancestor", &old_c, &new_c]) {
        return None; // a fast-forward
    }
    let Some(left) = reachable_only(dir, &old_c, std::slice::from_ref(&new_c)) else {
        f.unknown = Some("git could not list its commits".into());
        return Some(f);
    };
    if left.is_empty() {
        return None;
    }
    f.left_behind = left.len().min(LOST_COUNT_LIMIT);
    let mut hide = survivors.to_vec();
    hide.push(new_c.clone());
    if succeeds(dir, &["merge-base", "--is-ancestor", &new_c, &old_c]) {
        f.change = LocalChange::Rewind;
        f.kept_in_tree =
            moment != Moment::Planned && checked_out && !bare && changes_kept(dir, &old_c, &new_c);
        f.lost = lost_of(dir, &old_c, &hide, &HashSet::new());
    } else {
        f.amend = moment == (Moment::Hook { amending: true })
            && run(dir, &["rev-parse", &format!("{old_c}^@")])
                == run(dir, &["rev-parse", &format!("{new_c}^@")]);
        f.lost = if f.amend {
            Some(crate::classify::facts::Lost::none())
        } else {
            match kept_in_rewrite(dir, &old_c, &new_c) {
                None => Some(crate::classify::facts::Lost::none()),
                Some(kept) => lost_of(dir, &old_c, &hide, &kept),
            }
        };
    }
    if f.lost.is_none() {
        f.unknown = Some("git could not list its commits".into());
    }
    Some(f)
}

/// The commits reachable from `from` and none of `hide`, newest first, at
/// most one more than [`LOST_COUNT_LIMIT`].
fn reachable_only(dir: &Path, from: &str, hide: &[String]) -> Option<Vec<Walked>> {
    Cli::new(dir, None)
        .walk(&[from.to_owned()], hide, LOST_COUNT_LIMIT + 1)
        .ok()
}

/// The commits reachable from `from` and none of `hide`, summarised,
/// leaving out those in `kept`.
fn lost_of(
    dir: &Path,
    from: &str,
    hide: &[String],
    kept: &HashSet<String>,
) -> Option<crate::classify::facts::Lost> {
    let mut lost = LostBuilder::new(LOST_COUNT_LIMIT, LOST_SAMPLE);
    let commits: Vec<Walked> = reachable_only(dir, from, hide)?;
    for c in commits.iter().filter(|c| !kept.contains(&c.id)) {
        if !lost.add(&c.id, &c.email, &c.name, &c.subject) {
            break;
        }
    }
    Some(lost.finish())
}

/// The commits of `old`'s side of a rewrite whose change `new`'s history
/// still holds, as [`Repo::local_facts`](super::Repo::local_facts) reads
/// it: every one when `new` holds every path the old side changed with the
/// old tip's content (`None`); else those with a patch-id equivalent on
/// the new side (`git cherry` marks them `-`; it lists no merge, and a
/// merge is never kept) and those whose content `new` holds. When git
/// cannot tell, none is kept.
fn kept_in_rewrite(dir: &Path, old: &str, new: &str) -> Option<HashSet<String>> {
    if let Some(base) = run(dir, &["merge-base", old, new])
        && let Some(paths) = changed_paths(dir, &base, old)
        && same_at(dir, old, new, &paths)
    {
        return None;
    }
    let mut kept = HashSet::new();
    let Some(cherry) = run(dir, &["cherry", new, old]) else {
        return Some(kept);
    };
    let mut looked = 0;
    for line in cherry.lines() {
        if let Some(id) = line.strip_prefix("- ") {
            kept.insert(id.to_owned());
        } else if let Some(id) = line.strip_prefix("+ ") {
            // Beyond the limit, a commit counts as vanished without a look.
            looked += 1;
            if looked <= PATCH_ID_LIMIT
                && run(dir, &["rev-parse", &format!("{id}^")]).is_some_and(|parent| {
                    changed_paths(dir, &parent, id).is_some_and(|p| same_at(dir, id, new, &p))
                })
            {
                kept.insert(id.to_owned());
            }
        }
    }
    Some(kept)
}

/// A rewind of the checked-out branch keeps its changes when every path
/// that differs between the two tips still has the old tip's content in
/// the index or in the work tree (`reset --soft`, `reset --mixed`).
fn changes_kept(dir: &Path, old: &str, new: &str) -> bool {
    let Some(paths) = changed_paths(dir, new, old) else {
        return false;
    };
    if paths.is_empty() {
        return true;
    }
    let differs = |args: &[&str]| -> Option<HashSet<Vec<u8>>> {
        with_paths(dir, args, &paths).map(|o| paths_of(&o).into_iter().collect())
    };
    let (Some(in_index), Some(in_work_tree)) = (
        differs(&[
            "diff-index",
            "--no-renames",
            "--cached",
            "--name-only",
            "-z",
            old,
        ]),
        differs(&["diff-index", "--no-renames", "--name-only", "-z", old]),
    ) else {
        return false;
    };
    // `diff-index` reports a file the index no longer tracks as deleted
    // from the work tree even when it is still there (`reset --mixed` of a
    // commit that added it): such a file keeps the change when its content
    // is the old tip's.
    in_index
        .intersection(&in_work_tree)
        .all(|p| work_tree_holds(dir, old, p))
}

/// True when the work tree file at `path` has the content `commit` holds.
fn work_tree_holds(dir: &Path, commit: &str, path: &[u8]) -> bool {
    let path = OsStr::from_bytes(path);
    let Some(want) = run_bytes(
        dir,
        &[
            OsStr::new("rev-parse"),
            OsStr::new("-q"),
            OsStr::new("--verify"),
            &[OsStr::new(commit), OsStr::new(":"), path].join(OsStr::new("")),
        ],
    ) else {
        return false;
    };
    let Some(have) = run_bytes(
        dir,
        &[
            OsStr::new("hash-object"),
            OsStr::new("--path"),
            path,
            OsStr::new("--"),
            path,
        ],
    ) else {
        return false;
    };
    want.trim_ascii() == have.trim_ascii()
}

/// The stash entries' commits, newest first, read with git.
pub fn cli_stash_oids(dir: &Path) -> Vec<String> {
    run(dir, &["log", "-g", "--format=%H", "refs/stash"])
        .map(|t| t.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Runs git in `dir` with `input` on its stdin, as vouch (the identity of
/// a commit it writes); stdout, trimmed, when it succeeds.
fn run_with_input(dir: &Path, args: &[&str], input: &[u8]) -> Option<String> {
    use std::process::Stdio;
    let mut git = super::git_in(dir);
    git.args(args)
        .env("GIT_AUTHOR_NAME", "vouch")
        .env("GIT_AUTHOR_EMAIL", "vouch@localhost")
        .env("GIT_COMMITTER_NAME", "vouch")
        .env("GIT_COMMITTER_EMAIL", "vouch@localhost")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let out = super::output_with_input(&mut git, input)
        .ok()
        .filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).trim_end().to_owned())
}

/// Writes the rescue refs of one operation with git: one `git update-ref`
/// each ([`cli_write_rescue`]), or, from [`BATCH_FROM`] commits on, one
/// batch ref for the commits (as [`Repo::write_rescues`](super::Repo::write_rescues)
/// does), so that a ref git holds locked (reftable) fails once for them.
/// What was kept where, or why not, in `items`' order.
pub fn cli_write_rescues(dir: &Path, items: &[(&str, &str)], stamp: &str) -> Vec<Result<Kept>> {
    let one_by_one = |items: &[(&str, &str)]| -> Vec<Result<Kept>> {
        items
            .iter()
            .map(|(original, oid)| {
                cli_write_rescue(dir, original, oid, stamp).map(|name| Kept { name, within: None })
            })
            .collect()
    };
    if items.len() < BATCH_FROM {
        return one_by_one(items);
    }
    let mut oids = String::new();
    for (_, oid) in items {
        oids.push_str(oid);
        oids.push('\n');
    }
    let types = run_with_input(
        dir,
        &["cat-file", "--batch-check=%(objecttype)"],
        oids.as_bytes(),
    )
    .unwrap_or_default();
    let types: Vec<&str> = types.lines().collect();
    let batched: Vec<bool> = (0..items.len())
        .map(|i| types.get(i) == Some(&"commit"))
        .collect();
    if !worth_a_batch(&batched) {
        return one_by_one(items);
    }
    let refs: HashSet<String> = run(dir, &["for-each-ref", "--format=%(refname)", RESCUE_PREFIX])
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    let mut taken: HashSet<String> = HashSet::new();
    for batch in refs
        .iter()
        .filter(|r| is_batch(r) && r.starts_with(&batch_base(stamp)))
    {
        let Some(commit) = run(dir, &["cat-file", "commit", batch]) else {
            continue;
        };
        let (head, message) = commit.split_once("\n\n").unwrap_or((&commit, ""));
        let parents: HashSet<String> = head
            .lines()
            .filter_map(|l| l.strip_prefix("parent "))
            .map(str::to_owned)
            .collect();
        taken.extend(batch_entries(message, &parents).into_iter().map(|(n, _)| n));
    }
    let names = free_names(items, stamp, &mut taken, &|n| refs.contains(n));
    let entries = batched_entries(&names, items, &batched);
    let written = write_batch(dir, &entries, stamp, &refs);
    names
        .into_iter()
        .zip(items)
        .zip(batched)
        .map(|((name, (original, oid)), b)| {
            if !b {
                return cli_write_rescue(dir, original, oid, stamp)
                    .map(|name| Kept { name, within: None });
            }
            match &written {
                Ok(batch) => Ok(Kept {
                    name,
                    within: Some(batch.clone()),
                }),
                Err(e) => Err(anyhow!("{e}")),
            }
        })
        .collect()
}

/// Writes a batch commit of `entries` and creates a batch ref of `stamp`
/// for it (a name not among `refs`, and not taken meanwhile); its name.
fn write_batch(
    dir: &Path,
    entries: &[(String, String)],
    stamp: &str,
    refs: &HashSet<String>,
) -> Result<String> {
    let tree = run_with_input(dir, &["mktree"], b"")
        .ok_or_else(|| anyhow!("cannot write the empty tree of the rescue refs' batch"))?;
    let mut args = vec!["commit-tree".to_owned(), tree];
    let mut seen = HashSet::new();
    for (_, oid) in entries {
        if seen.insert(oid.as_str()) {
            args.extend(["-p".to_owned(), oid.clone()]);
        }
    }
    args.extend(["-F".to_owned(), "-".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let commit = run_with_input(dir, &args, batch_message(entries).as_bytes())
        .ok_or_else(|| anyhow!("cannot write the rescue refs' batch commit"))?;
    let base = batch_base(stamp);
    let message = format!("vouch: rescue of {} refs", entries.len());
    for n in 1..=100 {
        let name = if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        if refs.contains(&name) {
            continue;
        }
        // An empty old value: create, never overwrite.
        if succeeds(dir, &["update-ref", "-m", &message, &name, &commit, ""]) {
            return Ok(name);
        }
        // Not a name taken meanwhile (reftable, which git holds locked
        // during its transaction): the next name fails as this one did.
        if !succeeds(dir, &["rev-parse", "-q", "--verify", &name]) {
            break;
        }
    }
    bail!("cannot write the rescue refs' batch under `{base}` (commit {commit})")
}

/// Writes `oid` to a rescue ref for `original` with `git update-ref`,
/// which only creates it (a name taken meanwhile fails, and the next one
/// is tried). `stamp` is the time part of the name.
pub fn cli_write_rescue(dir: &Path, original: &str, oid: &str, stamp: &str) -> Result<String> {
    let base = rescue_base(original, stamp);
    for n in 1..=100 {
        let name = if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        let message = format!("vouch: rescue of {original}");
        // An empty old value: create, never overwrite.
        if succeeds(dir, &["update-ref", "-m", &message, &name, oid, ""]) {
            return Ok(name);
        }
    }
    bail!("cannot write a rescue ref for `{original}` under `{base}`")
}

#[cfg(test)]
pub(super) mod tests {
    //! A differential test: random histories (merges, roots, rewinds,
    //! deletions, tags), each ref update measured by libgit2
    //! ([`Repo::local_facts`](super::super::Repo::local_facts)), by the git
    //! command line ([`cli_local_facts`]), and against `git rev-list` on the
    //! same repository.

    use std::process::Command;

    use super::*;
    use crate::measure::git::Repo;

    /// A small deterministic generator (xorshift64*): the same seed, the
    /// same history.
    pub(crate) struct Rng(pub u64);

    impl Rng {
        pub(crate) fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            usize::try_from(self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33).unwrap_or(0) % n
        }
    }

    pub(crate) fn git(dir: &Path, args: &[&str], input: Option<&str>) -> String {
        use std::io::Write as _;
        let mut child = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "A")
            .env("GIT_AUTHOR_EMAIL", "a@example.com")
            .env("GIT_COMMITTER_NAME", "A")
            .env("GIT_COMMITTER_EMAIL", "a@example.com")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.unwrap_or("").as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// A bare repository with `commits` random commits (some merges, some
    /// roots), each changing a file of its own and sometimes a shared one,
    /// and branches and tags on random commits.
    pub(crate) fn random_repo(
        dir: &Path,
        rng: &mut Rng,
        commits: usize,
    ) -> (Vec<String>, Vec<String>) {
        git(dir, &["init", "-q", "--bare", "-b", "b0"], None);
        let mut ids: Vec<String> = Vec::new();
        for i in 0..commits {
            let own = git(
                dir,
                &["hash-object", "-w", "--stdin"],
                Some(&format!("{i}\n")),
            );
            let shared = git(
                dir,
                &["hash-object", "-w", "--stdin"],
                Some(&format!("{}\n", rng.below(3))),
            );
            let tree = git(
                dir,
                &["mktree"],
                Some(&format!(
                    "100644 blob {own}\tf{i}\n100644 blob {shared}\tshared\n"
                )),
            );
            let mut args = vec!["commit-tree".to_owned(), tree, "-m".into(), format!("c{i}")];
            if !ids.is_empty() && rng.below(8) != 0 {
                let first = rng.below(ids.len());
                args.extend(["-p".into(), ids[first].clone()]);
                let second = rng.below(ids.len());
                if second != first && rng.below(4) == 0 {
                    args.extend(["-p".into(), ids[second].clone()]);
                }
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            ids.push(git(dir, &args, None));
        }
        let mut branches = Vec::new();
        for b in 0..6 {
            let name = format!("refs/heads/b{b}");
            git(
                dir,
                &["update-ref", &name, &ids[rng.below(ids.len())]],
                None,
            );
            branches.push(name);
        }
        for t in 0..2 {
            git(
                dir,
                &[
                    "update-ref",
                    &format!("refs/tags/t{t}"),
                    &ids[rng.below(ids.len())],
                ],
                None,
            );
        }
        (ids, branches)
    }

    fn summary(f: &LocalRefFacts) -> (LocalChange, usize, Option<usize>, Option<bool>) {
        (
            f.change,
            f.left_behind,
            f.lost.as_ref().map(|l| l.count),
            f.lost.as_ref().map(|l| l.truncated),
        )
    }

    #[test]
    fn libgit2_and_the_git_command_line_measure_every_update_alike() {
        for seed in 1..=12u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let dir = tempfile::tempdir().unwrap();
            let (ids, branches) = random_repo(dir.path(), &mut rng, 30);
            let repo = Repo::discover(dir.path()).unwrap();
            for _ in 0..8 {
                let name = &branches[rng.below(branches.len())];
                let old = git(dir.path(), &["rev-parse", name], None);
                let new = if rng.below(3) == 0 {
                    "0".repeat(40)
                } else {
                    ids[rng.below(ids.len())].clone()
                };
                let update = RefUpdate {
                    old: old.clone(),
                    new: new.clone(),
                    name: name.clone(),
                };
                let by_lib = repo.local_facts(std::slice::from_ref(&update), Moment::Planned);
                let by_git =
                    cli_local_facts(dir.path(), std::slice::from_ref(&update), Moment::Planned)
                        .unwrap()
                        .facts;
                let lib: Vec<_> = by_lib.refs.iter().map(summary).collect();
                let cli: Vec<_> = by_git.refs.iter().map(summary).collect();
                let case = format!("seed {seed}: {name} {old} -> {new}");
                let deleted = is_zero_oid(&new);
                if deleted || lib.first().is_some_and(|f| f.0 == LocalChange::Rewind) {
                    // Deletions and rewinds: the same answer, exactly.
                    assert_eq!(lib, cli, "{case}");
                } else {
                    // A rewrite: the same shape; what vanished is judged by
                    // patch ids and content on both sides, and the git side
                    // may only count more.
                    assert_eq!(lib.len(), cli.len(), "{case}");
                    for (l, c) in lib.iter().zip(&cli) {
                        assert_eq!((l.0, l.1), (c.0, c.1), "{case}");
                        assert!(c.2 >= l.2, "{case}: {l:?} {c:?}");
                    }
                }
                // And against git itself: a deletion loses what no other
                // ref reaches.
                if deleted && let Some(f) = by_lib.refs.first() {
                    let mut args = vec!["rev-list".to_owned(), "--count".into(), old.clone()];
                    args.push("--not".into());
                    for other in
                        git(dir.path(), &["for-each-ref", "--format=%(refname)"], None).lines()
                    {
                        if other != name {
                            args.push(other.to_owned());
                        }
                    }
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    let count: usize = git(dir.path(), &args, None).parse().unwrap();
                    assert_eq!(f.lost.as_ref().map(|l| l.count), Some(count), "{case}");
                }
            }
            // Three branches deleted in one transaction (one walk for all):
            // each loses what neither the refs that stay nor the others hold.
            let gone: Vec<&String> = branches.iter().take(3).collect();
            let updates: Vec<RefUpdate> = gone
                .iter()
                .map(|name| RefUpdate {
                    old: git(dir.path(), &["rev-parse", name], None),
                    new: "0".repeat(40),
                    name: (*name).clone(),
                })
                .collect();
            let by_lib = repo.local_facts(&updates, Moment::Planned);
            let by_git = cli_local_facts(dir.path(), &updates, Moment::Planned)
                .unwrap()
                .facts;
            let lib: Vec<_> = by_lib.refs.iter().map(summary).collect();
            let cli: Vec<_> = by_git.refs.iter().map(summary).collect();
            assert_eq!(lib, cli, "seed {seed}: {gone:?}");
            let stay: Vec<String> = git(dir.path(), &["for-each-ref", "--format=%(refname)"], None)
                .lines()
                .filter(|r| !gone.iter().any(|g| g.as_str() == *r))
                .map(str::to_owned)
                .collect();
            for f in &by_lib.refs {
                let mut args = vec!["rev-list", "--count", f.old_oid.as_str(), "--not"];
                args.extend(stay.iter().map(String::as_str));
                let count: usize = git(dir.path(), &args, None).parse().unwrap();
                assert_eq!(
                    f.lost.as_ref().map(|l| l.count),
                    Some(count),
                    "seed {seed}: {}",
                    f.name
                );
            }
        }
    }
}
