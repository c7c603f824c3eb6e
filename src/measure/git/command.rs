//! Facts for a shell command that has not run yet (the agent door and
//! `git vouch check`, SPEC 2.4): what it would discard from the work tree, which
//! ref updates it stands for, and what a `git push` would send.

use std::path::Path;

use anyhow::{Context, Result, bail};
use git2::{Oid, Status, StatusOptions};

use super::{Moment, Repo, ls_remote_within, tracking_ref};
use crate::classify::facts::{CommandFacts, Discarded, Unmeasured, WorktreeLoss};
use crate::classify::shell::{Facts, SimpleCommand};
use crate::input::git_command::{GitCommand, RefUpdate};
use crate::input::hooks::{PushUpdate, parse_push_argv};

/// How many file names a loss lists.
const FILES_SHOWN: usize = 20;

impl Repo {
    /// The work tree's status within `paths` (all of it when empty), with
    /// untracked (and `ignored`) files when `untracked`; `None` in a bare
    /// repository.
    fn statuses(
        &self,
        paths: &[String],
        untracked: bool,
        ignored: bool,
    ) -> Result<Option<git2::Statuses<'_>>> {
        if self.repo.is_bare() {
            return Ok(None);
        }
        let mut opts = StatusOptions::new();
        opts.include_untracked(untracked)
            .recurse_untracked_dirs(untracked)
            .include_ignored(ignored)
            .recurse_ignored_dirs(ignored)
            .exclude_submodules(true);
        // An argument ends at a NUL byte when the shell hands it to git (and
        // git2 cannot take one): judge what git would be given.
        for p in paths
            .iter()
            .map(|p| p.split('\0').next().unwrap_or_default())
            .filter(|p| !matches!(*p, "." | "./" | ":/"))
        {
            opts.pathspec(p);
        }
        self.repo
            .statuses(Some(&mut opts))
            .map(Some)
            .context("cannot read the work tree's status")
    }

    /// What a command that `discards` would take within `paths` (all of
    /// the work tree when empty).
    pub fn worktree_loss(&self, discards: Discarded, paths: &[String]) -> Result<WorktreeLoss> {
        let Some(statuses) = self.statuses(paths, false, false)? else {
            return Ok(WorktreeLoss::none(discards));
        };
        let wanted = match discards {
            Discarded::UnstagedChanges => {
                Status::WT_MODIFIED | Status::WT_DELETED | Status::WT_TYPECHANGE
            }
            _ => {
                Status::INDEX_NEW
                    | Status::INDEX_MODIFIED
                    | Status::INDEX_DELETED
                    | Status::INDEX_RENAMED
                    | Status::INDEX_TYPECHANGE
                    | Status::WT_MODIFIED
                    | Status::WT_DELETED
                    | Status::WT_TYPECHANGE
                    | Status::WT_RENAMED
            }
        };
        let mut loss = WorktreeLoss::none(discards);
        for entry in statuses.iter() {
            if entry.status().intersects(wanted) {
                loss.files += 1;
                if loss.sample.len() < FILES_SHOWN {
                    loss.sample.push(entry.path().unwrap_or("?").to_owned());
                }
            }
        }
        Ok(loss)
    }

    /// What `git clean` would delete within `paths`: untracked files (and
    /// ignored ones with `-x`; only ignored ones with `-X`), files inside
    /// untracked directories only with `-d`, never those matching an `-e`
    /// pattern.
    pub fn clean_loss(
        &self,
        ignored: bool,
        only_ignored: bool,
        dirs: bool,
        excludes: &[String],
        paths: &[String],
    ) -> Result<WorktreeLoss> {
        let what = if only_ignored {
            Discarded::IgnoredFiles
        } else if ignored {
            Discarded::UntrackedAndIgnoredFiles
        } else {
            Discarded::UntrackedFiles
        };
        let Some(statuses) = self.statuses(paths, true, ignored || only_ignored)? else {
            return Ok(WorktreeLoss::none(what));
        };
        let wanted = if only_ignored {
            Status::IGNORED
        } else if ignored {
            Status::WT_NEW | Status::IGNORED
        } else {
            Status::WT_NEW
        };
        // Directories holding a tracked file: without `-d`, clean only
        // deletes untracked files in these.
        let mut tracked_dirs = std::collections::HashSet::new();
        tracked_dirs.insert(String::new());
        if !dirs && let Ok(index) = self.repo.index() {
            for entry in index.iter() {
                let path = String::from_utf8_lossy(&entry.path).to_string();
                let mut dir = path.as_str();
                while let Some((parent, _)) = dir.rsplit_once('/') {
                    tracked_dirs.insert(parent.to_owned());
                    dir = parent;
                }
            }
        }
        // Each `-e` pattern, compiled once: whether it is anchored (has a
        // `/`), and its matcher.
        let patterns: Vec<(bool, globset::GlobMatcher)> = excludes
            .iter()
            .filter_map(|pattern| {
                let pattern = pattern.trim_end_matches('/');
                let glob = globset::Glob::new(pattern.trim_start_matches('/')).ok()?;
                Some((pattern.contains('/'), glob.compile_matcher()))
            })
            .collect();
        let kept_by_pattern = |path: &str| {
            patterns.iter().any(|(anchored, glob)| {
                if *anchored {
                    // Anchored: the path or one of its leading directories.
                    let mut prefix = String::new();
                    path.split('/').any(|part| {
                        if !prefix.is_empty() {
                            prefix.push('/');
                        }
                        prefix.push_str(part);
                        glob.is_match(&prefix)
                    })
                } else {
                    path.split('/').any(|part| glob.is_match(part))
                }
            })
        };
        let mut loss = WorktreeLoss::none(what);
        for entry in statuses.iter() {
            if !entry.status().intersects(wanted) {
                continue;
            }
            let path = entry.path().unwrap_or("?").to_owned();
            let parent = path.rsplit_once('/').map_or("", |(p, _)| p);
            if !dirs && !tracked_dirs.contains(parent) {
                continue;
            }
            if kept_by_pattern(&path) {
                continue;
            }
            loss.files += 1;
            if loss.sample.len() < FILES_SHOWN {
                loss.sample.push(path);
            }
        }
        Ok(loss)
    }

    /// The ref update a command stands for: `branch` (a name or a full
    /// ref) moving to `to` (a revision), or deleted when `to` is `None`.
    /// `None` when the branch does not exist or `to` does not resolve.
    pub fn planned_update(&self, branch: &str, to: Option<&str>) -> Option<RefUpdate> {
        let name = if branch.starts_with("refs/") {
            branch.to_owned()
        } else {
            format!("refs/heads/{branch}")
        };
        let old = self.ref_oid(&name)?;
        let zero = "0".repeat(old.as_bytes().len() * 2);
        let new = match to {
            None => zero,
            Some(rev) => self.resolve_commit(rev)?.to_string(),
        };
        Some(RefUpdate {
            old: old.to_string(),
            new,
            name,
        })
    }

    /// The ref `HEAD` names (`refs/heads/main`), if a branch is checked out.
    pub fn head_ref(&self) -> Option<String> {
        let head = self.repo.find_reference("HEAD").ok()?;
        head.symbolic_target().ok().flatten().map(str::to_owned)
    }

    fn resolve_commit(&self, rev: &str) -> Option<Oid> {
        self.repo
            .revparse_single(rev)
            .ok()?
            .peel_to_commit()
            .ok()
            .map(|c| c.id())
    }

    /// What `git push [remote] [refspecs...]` would send, as pre-push lines:
    /// the remote (an explicit one, the branch's upstream remote, or
    /// `origin`), its URL, and one line per refspec (none: the current
    /// branch to its upstream or same name, as `push.default=simple`). The
    /// remote's current values come from `git ls-remote` when it answers,
    /// else from the remote-tracking refs (and a note says so).
    pub fn planned_push(
        &self,
        remote: Option<&str>,
        refspecs: &[String],
        delete: bool,
    ) -> Result<(String, String, Vec<PushUpdate>, Option<String>)> {
        let head = self.head_ref();
        let remote = match remote {
            Some(r) => r.to_owned(),
            None => head
                .as_deref()
                .and_then(|h| self.repo.branch_upstream_remote(h).ok())
                .and_then(|b| b.as_str().ok().map(str::to_owned))
                .unwrap_or_else(|| "origin".to_owned()),
        };
        let remote_obj = self.repo.find_remote(&remote).ok();
        let url = remote_obj
            .as_ref()
            .and_then(|r| r.url().ok().map(str::to_owned))
            .unwrap_or_else(|| remote.clone());
        let (listed, note) =
            match ls_remote_within(&self.root(), &remote, std::time::Duration::from_secs(5)) {
                Ok(l) => (Some(l), None),
                Err(e) => (
                    None,
                    Some(format!(
                        "the remote did not answer ({}); its values are the remote-tracking refs",
                        crate::input::text::one_line(&format!("{e:#}"), 160)
                    )),
                ),
            };
        let remote_value = |remote_ref: &str| -> Option<String> {
            if let Some(listed) = &listed {
                return listed
                    .iter()
                    .find(|(_, n)| n == remote_ref)
                    .map(|(o, _)| o.clone());
            }
            let tracking = tracking_ref(remote_obj.as_ref()?, remote_ref)?;
            self.ref_oid(&tracking).map(|o| o.to_string())
        };
        let mut specs: Vec<String> = refspecs.to_vec();
        if specs.is_empty() {
            let Some(h) = &head else {
                bail!("HEAD is detached and the command names no refspec");
            };
            let dst = self
                .repo
                .branch_upstream_merge(h)
                .ok()
                .and_then(|b| b.as_str().ok().map(str::to_owned))
                .unwrap_or_else(|| h.clone());
            specs.push(format!("{h}:{dst}"));
        }
        let mut updates = Vec::new();
        for spec in &specs {
            let spec = spec.strip_prefix('+').unwrap_or(spec);
            let (src, dst) = match spec.split_once(':') {
                Some((s, d)) => (s, d),
                None if delete => ("", spec),
                None => (spec, spec),
            };
            let dst_name = if dst.is_empty() { src } else { dst };
            // A name this repository does not have (a deleted local tag) is
            // whatever the remote has under it, as git resolves it.
            let dst_full = match &listed {
                Some(listed)
                    if !dst_name.starts_with("refs/")
                        && self.ref_oid(&format!("refs/heads/{dst_name}")).is_none()
                        && self.ref_oid(&format!("refs/tags/{dst_name}")).is_none() =>
                {
                    ["refs/heads/", "refs/tags/"]
                        .iter()
                        .map(|p| format!("{p}{dst_name}"))
                        .find(|full| listed.iter().any(|(_, n)| n == full))
                        .unwrap_or_else(|| self.full_ref_name(dst_name))
                }
                _ => self.full_ref_name(dst_name),
            };
            let zero = "0".repeat(40);
            let (local_ref, local_oid) = if src.is_empty() || delete {
                ("(delete)".to_owned(), zero.clone())
            } else {
                let Some(oid) = self.resolve_commit(src) else {
                    bail!("`{src}` does not name a commit here");
                };
                (self.full_ref_name(src), oid.to_string())
            };
            let remote_oid = remote_value(&dst_full).unwrap_or_else(|| zero.clone());
            updates.push(PushUpdate {
                local_ref,
                local_oid,
                remote_ref: dst_full,
                remote_oid,
                lossy_name: false,
            });
        }
        Ok((remote, url, updates, note))
    }

    /// `main` → `refs/heads/main`, `v1` → `refs/tags/v1` when that tag
    /// exists here, `HEAD` → the branch it names; full names stay.
    fn full_ref_name(&self, name: &str) -> String {
        if name.starts_with("refs/") {
            return name.to_owned();
        }
        if name == "HEAD" {
            return self.head_ref().unwrap_or_else(|| "HEAD".to_owned());
        }
        if self.ref_oid(&format!("refs/tags/{name}")).is_some()
            && self.ref_oid(&format!("refs/heads/{name}")).is_none()
        {
            return format!("refs/tags/{name}");
        }
        format!("refs/heads/{name}")
    }

    /// A git alias (`alias.<name>`) from the repository's config.
    pub fn alias(&self, name: &str) -> Option<String> {
        self.repo
            .config()
            .ok()?
            .get_string(&format!("alias.{name}"))
            .ok()
    }

    /// The commits of every stash entry, newest first (from the stash's
    /// reflog; still on disk while `stash clear` waits at `prepared`).
    pub fn stash_oids(&self) -> Vec<String> {
        let Some(reflog) = self.stash_reflog() else {
            return Vec::new();
        };
        reflog.iter().map(|e| e.id_new().to_string()).collect()
    }

    /// The stash entries (`stash@{n}` and subject), newest first.
    pub fn stash_entries(&self) -> Vec<String> {
        let Some(reflog) = self.stash_reflog() else {
            return Vec::new();
        };
        reflog
            .iter()
            .enumerate()
            .map(|(i, e)| {
                format!(
                    "stash@{{{i}}}: {}",
                    e.message().ok().flatten().unwrap_or("")
                )
            })
            .collect()
    }
}

/// Measures what a shell rule asks for (`facts`) about `command`, before
/// it runs, in `repo` (`None`: no repository where it runs). Only facts:
/// what they make of the rule's tier is [`crate::classify::classify_command`]'s.
pub fn command_facts(repo: Option<&Repo>, facts: &Facts, command: &SimpleCommand) -> CommandFacts {
    let Some(repo) = repo else {
        return CommandFacts::Unmeasured(Unmeasured::NoRepository);
    };
    let argv = &command.argv;
    let git = GitCommand::parse(argv).unwrap_or_default();
    let sub = git.sub.as_str();
    // Another repository named by `--git-dir`, `--work-tree` or `GIT_DIR`:
    // the facts here would be the wrong ones.
    let elsewhere = command
        .git
        .as_ref()
        .is_some_and(|g| g.git_dir.is_some() || g.work_tree.is_some())
        || command
            .env
            .iter()
            .any(|(k, _)| k == "GIT_DIR" || k == "GIT_WORK_TREE");
    if elsewhere {
        return CommandFacts::Unmeasured(Unmeasured::OtherRepository);
    }
    match facts {
        Facts::Worktree { target, paths } => {
            let discards = match sub {
                // From the index: unstaged changes go. From a commit
                // (`checkout <rev> -- <paths>`, `restore --source`): staged ones too.
                "checkout" | "restore"
                    if !paths.is_empty()
                        && target.is_none()
                        && !git.has_flag(&["--staged", "-S"]) =>
                {
                    Discarded::UnstagedChanges
                }
                "worktree" | "submodule" => {
                    return CommandFacts::Unmeasured(Unmeasured::NotApplicable);
                }
                _ => Discarded::TrackedChanges,
            };
            let loss = if sub == "clean" {
                let (dirs, excludes) = git.clean_options();
                repo.clean_loss(
                    git.has_flag(&["-x"]),
                    git.has_flag(&["-X"]),
                    dirs,
                    &excludes,
                    paths,
                )
            } else if sub == "reset" && git.has_flag(&["--merge", "--keep"]) {
                Ok(WorktreeLoss::none(Discarded::KeptOrStops))
            } else {
                repo.worktree_loss(discards, paths)
            };
            let loss = match loss {
                Ok(l) => l,
                Err(e) => return CommandFacts::Unmeasured(Unmeasured::Failed(format!("{e:#}"))),
            };
            // `reset --hard <older>` also moves the branch back.
            let moves = (sub == "reset")
                .then(|| {
                    let update =
                        repo.planned_update(&repo.head_ref()?, Some(target.as_deref()?))?;
                    Some(repo.local_facts(&[update], Moment::Planned))
                })
                .flatten();
            CommandFacts::Worktree { loss, moves }
        }
        Facts::Branch { names } => {
            let deleting = git.has_flag(&["-D", "-d", "--delete"]);
            let updates: Vec<_> = if deleting {
                names
                    .iter()
                    .filter_map(|n| repo.planned_update(n, None))
                    .collect()
            } else {
                names
                    .first()
                    .and_then(|n| {
                        repo.planned_update(n, Some(names.get(1).map_or("HEAD", String::as_str)))
                    })
                    .into_iter()
                    .collect()
            };
            CommandFacts::Branch(
                (!updates.is_empty()).then(|| repo.local_facts(&updates, Moment::Planned)),
            )
        }
        Facts::Tag { names } => CommandFacts::Tags(
            names
                .iter()
                .filter(|n| repo.ref_oid(&format!("refs/tags/{n}")).is_some())
                .cloned()
                .collect(),
        ),
        Facts::Stash { entries } => {
            let all = repo.stash_entries();
            let dropped = if all.is_empty() || git.action() == Some("clear") {
                all
            } else if entries.is_empty() {
                all.into_iter().take(1).collect()
            } else {
                entries.clone()
            };
            CommandFacts::StashDrop(dropped)
        }
        Facts::Push { remote, refspecs } => {
            let push_args = parse_push_argv(argv);
            if push_args.mirror {
                return CommandFacts::Unmeasured(Unmeasured::MirrorPush);
            }
            // `--prune` and wildcard refspecs delete or move refs the
            // planned push does not list.
            if argv.iter().any(|a| a == "--prune") || refspecs.iter().any(|r| r.contains('*')) {
                return CommandFacts::Unmeasured(Unmeasured::PrunesOrPatterns);
            }
            let delete = git.has_flag(&["-d", "--delete"]);
            match repo.planned_push(remote.as_deref(), refspecs, delete) {
                Ok((remote, url, updates, remote_unanswered)) => CommandFacts::Push {
                    facts: repo.push_facts(&remote, &url, updates, &push_args),
                    remote_unanswered,
                },
                Err(e) => CommandFacts::Unmeasured(Unmeasured::PushUnresolved(format!("{e:#}"))),
            }
        }
    }
}

/// Opens the repository at or above `dir` for measuring a command, if any.
/// A repository with grafts is not opened: its history is not what a push
/// or a ref update would be measured against, so the command is judged
/// unmeasured, at its full tier.
pub fn repo_at(dir: &Path) -> Option<Repo> {
    Repo::discover(dir)
        .ok()
        .filter(|r| r.refuse_grafts().is_ok())
}

/// The repository at or above a directory, opened the first time it is
/// needed: a harmless command never needs it, and opening one costs a good
/// part of the agent door's time budget for such a command.
pub struct LazyRepo {
    dir: std::path::PathBuf,
    repo: std::cell::OnceCell<Option<Repo>>,
    /// The root found without opening the repository, once looked for.
    found: std::cell::OnceCell<Option<std::path::PathBuf>>,
}

impl LazyRepo {
    /// The repository at or above `dir`, not opened yet.
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            repo: std::cell::OnceCell::new(),
            found: std::cell::OnceCell::new(),
        }
    }

    /// The repository, opened now if it was not.
    pub fn get(&self) -> Option<&Repo> {
        self.repo.get_or_init(|| repo_at(&self.dir)).as_ref()
    }

    /// The repository if it has been opened.
    pub fn opened(&self) -> Option<&Repo> {
        self.repo.get().and_then(Option::as_ref)
    }

    /// The work tree root: the repository's, once opened, else the nearest
    /// directory at or above `dir` that holds `.git` (what git finds
    /// without `GIT_DIR`).
    pub fn root(&self) -> Option<std::path::PathBuf> {
        if let Some(r) = self.opened() {
            return Some(r.root());
        }
        self.found
            .get_or_init(|| {
                self.dir
                    .ancestors()
                    .find(|d| d.join(".git").exists())
                    .map(Path::to_path_buf)
            })
            .clone()
    }
}
