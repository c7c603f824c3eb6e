//! The ONLY module that uses git2 or runs the git CLI. It measures facts
//! and hands back vouch's own types (`facts.rs`).
//!
//! This file holds the open repository and what holds commits in it (the
//! input of the one survivor rule, [`crate::classify::facts::surviving`]); its parts:
//! `ref_facts` (what each ref update of an operation loses: one function
//! over libgit2 and the git command line, one walk for all of an
//! operation's deletions), `push` (a push's facts; the algorithm of
//! `research/git-semantics.md` section 1.4), `receive` (the server's),
//! `staged` (a commit's change), `local` and `local_cli` (local ref
//! transactions and rescue refs), `command` (the facts a shell command's
//! git steps would change) and `hooks` (where git looks for hooks). The
//! snapshot store of undo runs git too, on its own repository
//! ([`crate::undo`]).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use git2::{Oid, Repository};

use crate::classify::facts::{Holders, Lost, LostBuilder, surviving};
use crate::input::text::redact_text;

mod command;
mod hooks;
mod local;
mod local_cli;
mod loose;
mod push;
mod receive;
mod ref_facts;
mod staged;
mod staged_cli;
pub use command::{LazyRepo, command_facts, repo_at};
pub use hooks::{
    CONFIG_HOOKS_DIR, CONFIG_HOOKS_SINCE, HooksLocation, config_hook, config_hook_enabled,
    config_hook_name, config_hooks_dir, exe_runs_config_hooks, git_version, hooks_location,
    parse_git_version, remove_config_hook, runs_config_hooks, set_config_hook,
};
pub use local::{
    BATCH_FROM, Kept, Moment, RESCUE_PREFIX, Rescue, fast_forward, put_back_stash_entry,
    stash_store, update_ref,
};
pub use local_cli::{
    CliMeasured, cli_local_facts, cli_stash_oids, cli_write_rescue, cli_write_rescues,
};
pub use loose::Loose;
use push::tracking_ref;
pub use push::{cli_push_facts, ls_remote, ls_remote_within};
pub use receive::{advertise_push_options, bare_repositories_under};
pub use staged_cli::cli_staged;

/// How many commits a lost-commit count walks before it stops counting.
pub(crate) const LOST_COUNT_LIMIT: usize = 10_000;
/// How many lost commits are listed by subject.
pub(crate) const LOST_SAMPLE: usize = 10;
/// How many rewrites of one push get a lost-commit walk of their own (the
/// deletions of an operation share one walk, whatever their number).
pub(crate) const MEASURED_REFS_LIMIT: usize = 50;

/// An open repository.
pub struct Repo {
    repo: Repository,
}

impl Repo {
    /// Opens the repository a hook runs in: git exports `GIT_DIR` and
    /// friends to hooks in worktrees and bare repositories.
    pub fn open_for_hook(cwd: &Path) -> Result<Self> {
        crate::platform::counts::add(crate::platform::counts::Count::RepoOpen);
        // libgit2 checks every object's hash as it reads it (its default,
        // kept): a forged loose object must not change a decision (issue 26
        // item 2), though it costs a tenth of a deep history walk.
        let repo = Repository::open_from_env()
            .or_else(|_| Repository::discover(cwd))
            .context("git2 cannot open this repository")?;
        Ok(Self { repo })
    }

    /// Opens the repository a hook runs in for measuring history: like
    /// [`Repo::open_for_hook`], but a repository with grafts is refused, so
    /// that the caller measures it through the git command line. libgit2
    /// follows `info/grafts`, a local view of history no push carries, and
    /// cannot be told not to (it ignores replace refs already).
    pub fn open_for_history(cwd: &Path) -> Result<Self> {
        let repo = Self::open_for_hook(cwd)?;
        repo.refuse_grafts()?;
        Ok(repo)
    }

    /// An error when the repository has a graft file that says anything.
    pub fn refuse_grafts(&self) -> Result<()> {
        let grafts = self.repo.commondir().join("info").join("grafts");
        if std::fs::metadata(&grafts).is_ok_and(|m| m.len() > 0) {
            bail!(
                "this repository has grafts (`{}`), a local view of history that the remote does not share",
                grafts.display()
            );
        }
        Ok(())
    }

    /// Opens the repository at or above `path`.
    pub fn discover(path: &Path) -> Result<Self> {
        crate::platform::counts::add(crate::platform::counts::Count::RepoOpen);
        let repo = Repository::discover(path)
            .with_context(|| format!("`{}` is not inside a git repository", path.display()))?;
        Ok(Self { repo })
    }

    /// The work tree root, or the git dir of a bare repository.
    pub fn root(&self) -> PathBuf {
        // git2 ends these with a slash; compare and print them without.
        self.repo
            .workdir()
            .unwrap_or_else(|| self.repo.path())
            .components()
            .collect()
    }

    /// The branch checked out, if any.
    pub fn current_branch(&self) -> Option<String> {
        let head = self.repo.head().ok()?;
        head.is_branch()
            .then(|| head.shorthand().ok().map(str::to_owned))
            .flatten()
    }

    fn config_has(&self, key: &str) -> bool {
        self.repo.config().is_ok_and(|c| c.get_entry(key).is_ok())
    }

    fn config_bool(&self, key: &str) -> bool {
        self.repo
            .config()
            .and_then(|c| c.get_bool(key))
            .unwrap_or(false)
    }

    fn config_multi(&self, key: &str) -> Vec<String> {
        let Ok(config) = self.repo.config() else {
            return Vec::new();
        };
        let Ok(mut entries) = config.multivar(key, None) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        while let Some(Ok(entry)) = entries.next() {
            if let Ok(v) = entry.value() {
                out.push(v.to_owned());
            }
        }
        out
    }

    fn ref_oid(&self, name: &str) -> Option<Oid> {
        self.repo.refname_to_id(name).ok()
    }

    fn has_object(&self, oid: Oid) -> bool {
        self.repo.odb().is_ok_and(|odb| odb.exists(oid))
    }

    fn peel_commit(&self, oid: Oid) -> Option<Oid> {
        self.repo
            .find_object(oid, None)
            .ok()?
            .peel_to_commit()
            .ok()
            .map(|c| c.id())
    }

    /// The default branch of `remote` (`refs/remotes/<remote>/HEAD`).
    fn remote_head(&self, remote: &str) -> Option<String> {
        let head = self
            .repo
            .find_reference(&format!("refs/remotes/{remote}/HEAD"))
            .ok()?;
        let target = head.symbolic_target().ok().flatten()?;
        target
            .strip_prefix(&format!("refs/remotes/{remote}/"))
            .map(str::to_owned)
    }

    /// Every direct ref and its target; names made UTF-8 lossily, as git
    /// gives them to a hook.
    fn direct_refs(&self) -> Vec<(String, Oid)> {
        let mut out = Vec::new();
        if let Ok(refs) = self.repo.references() {
            for r in refs.flatten() {
                if let Some(t) = r.target() {
                    out.push((String::from_utf8_lossy(r.name_bytes()).into_owned(), t));
                }
            }
        }
        out
    }

    /// What holds commits here (the survivor rule's input,
    /// [`crate::classify::facts::surviving`]): every direct ref, a detached `HEAD`
    /// and the stash entries.
    pub(crate) fn holders(&self) -> Holders<Oid> {
        self.holders_with(self.direct_refs())
    }

    /// The stash's reflog (its entries), read only where it exists:
    /// libgit2 creates an empty `logs/refs/stash` when asked for one that
    /// is not there, which would change the repository of every command
    /// whose ref update vouch judges (and of a refused one, issue 35).
    pub(crate) fn stash_reflog(&self) -> Option<git2::Reflog> {
        self.repo
            .commondir()
            .join("logs/refs/stash")
            .is_file()
            .then(|| self.repo.reflog("refs/stash").ok())
            .flatten()
    }

    /// [`Repo::holders`], with the refs already read.
    pub(crate) fn holders_with<N>(&self, refs: Vec<(N, Oid)>) -> Holders<Oid, N> {
        let detached_head = self
            .repo
            .head()
            .ok()
            .filter(|h| !h.is_branch())
            .and_then(|h| h.target());
        let stash = self
            .stash_reflog()
            .map(|log| log.iter().map(|e| e.id_new()).collect())
            .unwrap_or_default();
        Holders {
            refs,
            detached_head,
            stash,
        }
    }

    /// The commits the refs that survive an operation point at (the one
    /// survivor rule, [`crate::classify::facts::surviving`]), peeled and deduplicated:
    /// what to hide in a lost-commit walk.
    pub(crate) fn survivor_commits(
        &self,
        holders: &Holders<Oid, impl AsRef<str>>,
        changing: &dyn Fn(&str) -> bool,
    ) -> Vec<Oid> {
        let mut commits: Vec<Oid> = surviving(holders, changing)
            .into_iter()
            .filter_map(|t| self.peel_commit(t))
            .collect();
        commits.sort_unstable();
        commits.dedup();
        commits
    }

    /// The one lost-commit walk: commits reachable from `from` and from none
    /// of `hide`, newest first, at most `limit`.
    pub(crate) fn reachable_only(
        &self,
        from: Oid,
        hide: &[Oid],
        limit: usize,
    ) -> Result<Vec<Oid>, git2::Error> {
        let mut walk = self.repo.revwalk()?;
        walk.push(from)?;
        for h in hide {
            walk.hide(*h)?;
        }
        walk.take(limit).collect()
    }

    /// Summarises commits a walk yielded (newest first); more than the
    /// count limit marks the summary truncated.
    pub(crate) fn summarize(&self, commits: &[Oid]) -> Result<Lost, git2::Error> {
        let mut lost = LostBuilder::new(LOST_COUNT_LIMIT, LOST_SAMPLE);
        for oid in commits {
            let commit = self.repo.find_commit(*oid)?;
            let author = commit.author();
            let more = lost.add(
                &oid.to_string(),
                &String::from_utf8_lossy(author.email_bytes()),
                &String::from_utf8_lossy(author.name_bytes()),
                commit.summary().ok().flatten().unwrap_or(""),
            );
            if !more {
                break;
            }
        }
        Ok(lost.finish())
    }
}

/// The repository's common git directory (shared by its worktrees), as
/// git finds it from `cwd` (a hook's `GIT_DIR` included), absolute.
pub fn common_dir(cwd: &Path) -> Option<PathBuf> {
    let out = git_output_bytes(
        cwd,
        &[
            OsStr::new("rev-parse"),
            OsStr::new("--path-format=absolute"),
            OsStr::new("--git-common-dir"),
        ],
    )
    .ok()?;
    let line = out.strip_suffix(b"\n").unwrap_or(&out);
    let dir = PathBuf::from(<OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(line));
    dir.is_absolute().then_some(dir)
}

/// Runs `cmd` (a [`git_in`] command, its stdout and stderr as the caller
/// set them) with `input` on its stdin, written beside the reading: git
/// may answer before it has read all, and a large input would fill the
/// pipe while git's output filled the other. Every git process vouch feeds
/// runs through here.
pub(crate) fn output_with_input(
    cmd: &mut Command,
    input: &[u8],
) -> std::io::Result<std::process::Output> {
    use std::io::Write as _;
    let mut child = cmd.stdin(std::process::Stdio::piped()).spawn()?;
    let mut stdin = child.stdin.take().expect("stdin was piped");
    std::thread::scope(|s| {
        // A git that ends without reading all of it says so by its status.
        s.spawn(move || stdin.write_all(input).ok());
        child.wait_with_output()
    })
}

/// A git command run in `dir` that reads history as the remote holds it
/// (SPEC 2.1, issue 26 item 1): replace refs and `info/grafts` are local
/// views of history that a push does not carry, so a lookup ignores them
/// (`GIT_NO_REPLACE_OBJECTS`; a graft file that is empty); it never
/// fetches from a promisor remote, nor rewrites the index in passing. stdin is empty unless the caller says
/// otherwise. Every git process vouch runs is built here.
pub(crate) fn git_in(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(dir)
        // Reading an (empty) graft file makes git print a deprecation hint.
        .args(["-c", "advice.graftFileDeprecated=false"])
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .env("GIT_GRAFT_FILE", "/dev/null")
        .env("GIT_NO_LAZY_FETCH", "1")
        // `git status` and friends leave the user's index as it is.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(std::process::Stdio::null());
    c
}

/// Runs `git` with `args` in `dir` and returns its stdout.
fn git_output(dir: &Path, args: &[&str]) -> Result<String> {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    Ok(String::from_utf8_lossy(&git_output_bytes(dir, &args)?).into_owned())
}

/// Runs `git` with `args` in `dir` and returns its stdout as bytes: paths
/// git prints need not be UTF-8, and are used exactly as printed.
fn git_output_bytes(dir: &Path, args: &[&OsStr]) -> Result<Vec<u8>> {
    let shown = || {
        args.iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let out = git_in(dir)
        .args(args)
        .output()
        .with_context(|| format!("cannot run `git {}`: is git on PATH?", shown()))?;
    if !out.status.success() {
        bail!(redact_text(&format!(
            "`git {}` failed: {}",
            shown(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}
