//! The snapshot store (issue 36 item 1, SPEC 3.4): a bare repository of
//! vouch's own under its state directory, one per repository, where
//! snapshots live out of reach of every git transport, bundle, `--all`
//! walk, `for-each-ref`, fast-import and hook of the user's repository,
//! and where they outlive its `.git`.
//!
//! Layout, under `<state>/snapshots/<key>/` (`key`: the first 20 hex
//! digits of the SHA-256 of the repository's common git directory):
//!
//! - a bare repository (`objects/`, `refs/snapshots/<tree>/<time>`), its
//!   object format the repository's;
//! - `vouch-repo`: where the repository was (`common <path>`), so that a
//!   store is found again once `.git` is gone;
//! - `vouch/<tree>/`: one folder per work tree (`main`, or a linked work
//!   tree's name): its `root` (the work tree's path), the newest
//!   snapshot's fingerprint, the post-tool check and the lock.
//!
//! Objects: while the repository exists, git reads its objects too (as an
//! alternate given in the environment, never written into the store's
//! files), and every object a snapshot needs that the store lacks is
//! copied in when the snapshot is written ([`Store::keep`]): the files,
//! the index, local commits and tags, the stash. The repository's packs
//! are hard-linked in the first time (no copy, no space) where the file
//! system allows. Nothing of a snapshot is ever written into the user's
//! repository: not even an unreachable object, which a local `git clone
//! --mirror` would carry.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Where the stores live, under vouch's state directory.
pub const STORES: &str = "snapshots";
/// Where a work tree's snapshots live in its store.
pub const PREFIX: &str = "refs/snapshots/";
/// The file that says where a store's repository was.
const RECORD: &str = "vouch-repo";

/// The user's repository as a snapshot sees it.
#[derive(Debug, Clone)]
pub struct Located {
    /// This work tree's git directory (`.git`, `.git/worktrees/<name>`).
    pub git_dir: PathBuf,
    /// The common git directory.
    pub common: PathBuf,
    /// Its objects directory.
    pub objects: PathBuf,
    /// The work tree's root.
    pub root: PathBuf,
    /// `sha1` or `sha256`.
    pub format: String,
}

/// One repository's store, opened for one of its work trees.
#[derive(Debug, Clone)]
pub struct Store {
    /// The store's bare repository.
    pub dir: PathBuf,
    /// The work tree's name in it: `main`, or a linked work tree's.
    pub tree: String,
    /// The work tree's root.
    pub root: PathBuf,
    /// The user's repository; `None` once its `.git` is gone.
    pub repo: Option<Located>,
}

/// Where the repository at `dir` keeps its files; `None` outside a
/// repository and for a bare one, which have no work to lose.
pub fn locate(dir: &Path) -> Result<Option<Located>> {
    // One process: git prints the lines it can before it refuses
    // `--show-toplevel` in a bare repository, and none outside one.
    let out = crate::measure::git::git_in(dir)
        .args([
            "rev-parse",
            "--path-format=absolute",
            "--absolute-git-dir",
            "--git-common-dir",
            "--git-path",
            "objects",
            "--show-object-format",
            "--is-bare-repository",
            "--show-toplevel",
        ])
        .stderr(std::process::Stdio::null())
        .output()
        .context("cannot run `git rev-parse`: is git on PATH?")?;
    let path = |b: &[u8]| PathBuf::from(OsStr::from_bytes(b));
    let lines: Vec<&[u8]> = out.stdout.split(|b| *b == b'\n').collect();
    match lines.as_slice() {
        [git_dir, common, objects, format, b"false", root, ..] if !root.is_empty() => {
            Ok(Some(Located {
                git_dir: path(git_dir),
                common: path(common),
                objects: path(objects),
                root: path(root),
                format: String::from_utf8_lossy(format).into_owned(),
            }))
        }
        _ => Ok(None),
    }
}

/// The key of the store of the repository whose common git directory is
/// `common`.
fn key(common: &Path) -> String {
    use sha2::Digest as _;
    let canonical = std::fs::canonicalize(common).unwrap_or_else(|_| common.to_owned());
    let digest = sha2::Sha256::digest(canonical.as_os_str().as_bytes());
    crate::input::text::hex(&digest)[..20].to_owned()
}

/// The name of the work tree whose git directory is `git_dir` in a
/// repository whose common directory is `common`: `main`, or the name git
/// gave a linked work tree (`.git/worktrees/<name>`).
fn tree_name(git_dir: &Path, common: &Path) -> String {
    let same = std::fs::canonicalize(git_dir).ok() == std::fs::canonicalize(common).ok();
    if same {
        return "main".to_owned();
    }
    let name = git_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A ref name's component: no dots at the start, no spaces or
    // specials (git names work trees after their folder).
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() || clean == "main" {
        format!("wt-{clean}")
    } else {
        clean
    }
}

impl Store {
    /// The store of the work tree at or above `dir`, made when there is
    /// none yet; `None` where there is no work tree (outside a repository,
    /// a bare one).
    pub fn open(state: &Path, dir: &Path) -> Result<Option<Self>> {
        let Some(this) = Self::at(state, dir)? else {
            return Ok(None);
        };
        this.create()?;
        Ok(Some(this))
    }

    /// The store of the work tree at or above `dir` when there is one
    /// already (nothing is made or taken over): for reading.
    pub fn find(state: &Path, dir: &Path) -> Result<Option<Self>> {
        Ok(Self::at(state, dir)?.filter(|s| s.dir.join("HEAD").is_file()))
    }

    /// Where the store of the work tree at or above `dir` is, or would be.
    fn at(state: &Path, dir: &Path) -> Result<Option<Self>> {
        let Some(repo) = locate(dir)? else {
            return Ok(None);
        };
        Ok(Some(Self {
            dir: state.join(STORES).join(key(&repo.common)),
            tree: tree_name(&repo.git_dir, &repo.common),
            root: repo.root.clone(),
            repo: Some(repo),
        }))
    }

    /// The store of the work tree at or above `dir` whose repository is
    /// gone (`.git` deleted or replaced by something that is not it):
    /// found by the work tree's path among the stores under `state`.
    /// `None` when no store names such a work tree.
    pub fn orphaned(state: &Path, dir: &Path) -> Result<Option<Self>> {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
        let Ok(entries) = std::fs::read_dir(state.join(STORES)) else {
            return Ok(None);
        };
        let mut best: Option<Self> = None;
        for store in entries.filter_map(Result::ok).map(|e| e.path()) {
            let Ok(trees) = std::fs::read_dir(store.join("vouch")) else {
                continue;
            };
            for tree in trees.filter_map(Result::ok) {
                let Ok(root) = std::fs::read(tree.path().join("root")) else {
                    continue;
                };
                let root =
                    PathBuf::from(OsStr::from_bytes(root.strip_suffix(b"\n").unwrap_or(&root)));
                // The deepest work tree that holds `dir`.
                if dir.starts_with(&root)
                    && best
                        .as_ref()
                        .is_none_or(|b| root.as_os_str().len() > b.root.as_os_str().len())
                {
                    best = Some(Self {
                        dir: store.clone(),
                        tree: tree.file_name().to_string_lossy().into_owned(),
                        root,
                        repo: None,
                    });
                }
            }
        }
        Ok(best)
    }

    /// Makes the store's repository and this work tree's folder when they
    /// are not there yet.
    fn create(&self) -> Result<()> {
        let Some(repo) = &self.repo else {
            return Ok(());
        };
        let folder = self.folder();
        if !self.dir.join("HEAD").is_file() {
            self.adopt(repo);
        }
        if !self.dir.join("HEAD").is_file() {
            // Made beside, then renamed into place: two hooks at once make
            // one store (the second's rename fails, and it uses the first's).
            let parent = self.dir.parent().context("a store has a parent folder")?;
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create `{}`", parent.display()))?;
            let scratch = tempfile::Builder::new()
                .prefix(".new-")
                .tempdir_in(parent)
                .with_context(|| format!("cannot make a folder in `{}`", parent.display()))?;
            let format = if repo.format == "sha256" {
                "sha256"
            } else {
                "sha1"
            };
            let out = isolated(Command::new("git"))
                .args(["init", "-q", "--bare", "--template="])
                .arg(format!("--object-format={format}"))
                .arg(scratch.path())
                .output()
                .context("cannot run `git init`")?;
            if !out.status.success() {
                bail!(
                    "cannot make the snapshot store `{}`: {}",
                    self.dir.display(),
                    String::from_utf8_lossy(&out.stderr).trim()
                );
            }
            // No hook runs in the store, whoever installed one where.
            isolated(Command::new("git"))
                .env("GIT_DIR", scratch.path())
                .args(["config", "core.hooksPath", "/dev/null"])
                .output()
                .ok();
            crate::platform::files::write_atomic(
                &scratch.path().join(RECORD),
                &record(repo),
                0o600,
            )?;
            let made = scratch.keep();
            if std::fs::rename(&made, &self.dir).is_err() {
                std::fs::remove_dir_all(&made).ok();
                if !self.dir.join("HEAD").is_file() {
                    bail!("cannot make the snapshot store `{}`", self.dir.display());
                }
            }
        }
        let root_file = folder.join("root");
        let mut root = self.root.as_os_str().as_bytes().to_vec();
        root.push(b'\n');
        if std::fs::read(&root_file).ok().as_deref() != Some(root.as_slice()) {
            std::fs::create_dir_all(&folder)
                .with_context(|| format!("cannot create `{}`", folder.display()))?;
            crate::platform::files::write_atomic(&root_file, &root, 0o600)?;
        }
        Ok(())
    }

    /// Takes over the store of this repository from where it was before it
    /// was moved: a store whose repository's path is gone and whose root
    /// commits are this one's. Nothing is taken over when none is, or when
    /// the repository has no commit yet.
    fn adopt(&self, repo: &Located) {
        let mut ours = None;
        let Some(stores) = self.dir.parent() else {
            return;
        };
        let Ok(entries) = std::fs::read_dir(stores) else {
            return;
        };
        for other in entries.filter_map(Result::ok).map(|e| e.path()) {
            let (Some(common), Some(theirs)) =
                (recorded(&other, "common"), recorded(&other, "roots"))
            else {
                continue;
            };
            if Path::new(OsStr::from_bytes(&common)).exists() {
                continue;
            }
            let ours = ours.get_or_insert_with(|| roots(repo));
            if !ours.is_empty()
                && theirs == ours.as_bytes()
                && std::fs::rename(&other, &self.dir).is_ok()
            {
                crate::platform::files::write_atomic(&self.dir.join(RECORD), &record(repo), 0o600)
                    .ok();
                return;
            }
        }
    }

    /// This work tree's folder in the store (fingerprint, checks, lock).
    pub fn folder(&self) -> PathBuf {
        self.dir.join("vouch").join(&self.tree)
    }

    /// Where this work tree's snapshots live (`refs/snapshots/<tree>/`).
    pub fn prefix(&self) -> String {
        format!("{PREFIX}{}/", self.tree)
    }

    /// The objects directories git reads besides the store's own: the
    /// repository's, while it exists.
    fn alternates(&self) -> Option<&Path> {
        self.repo
            .as_ref()
            .map(|r| r.objects.as_path())
            .filter(|p| p.is_dir())
    }

    /// A git command on the store alone (its refs, its objects and, while
    /// the repository exists, the repository's objects to read), with no
    /// user or system configuration: no hook of any kind runs.
    pub fn own(&self) -> Command {
        let mut c = isolated(crate::measure::git::git_in(&self.dir));
        c.env("GIT_DIR", &self.dir);
        self.objects(&mut c);
        c
    }

    /// A git command in the work tree (its index, its refs, the user's
    /// configuration) whose objects are the store's: what it writes goes
    /// into the store, and it reads the repository's objects and the
    /// store's alike. With `index`, that file is its index.
    pub fn work(&self, index: Option<&Path>) -> Command {
        let mut c = crate::measure::git::git_in(&self.root);
        if let Some(index) = index {
            c.args(["-c", "index.skipHash=true"])
                .env("GIT_INDEX_FILE", index);
        }
        self.objects(&mut c);
        c
    }

    fn objects(&self, c: &mut Command) {
        c.env("GIT_OBJECT_DIRECTORY", self.dir.join("objects"));
        match self.alternates() {
            Some(objects) => c.env("GIT_ALTERNATE_OBJECT_DIRECTORIES", objects),
            None => c.env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES"),
        };
    }

    /// Copies into the store every object reachable from `want` (and not
    /// from `have`, whose objects it holds already) that it lacks, so that
    /// a snapshot can be put back without the repository. The first time,
    /// the repository's packs are hard-linked in.
    pub fn keep(&self, want: &[&str], have: &[&str]) -> Result<()> {
        let Some(objects) = self.alternates() else {
            return Ok(());
        };
        let own = self.dir.join("objects");
        if std::fs::read_dir(own.join("pack")).is_ok_and(|mut d| d.next().is_none()) {
            link_packs(&objects.join("pack"), &own.join("pack"));
        }
        copy_missing(|| self.own(), &own, &self.dir, want, have)
    }

    /// Copies into the repository (its objects directory `objects`) what
    /// `want` reaches that it lacks and `have` does not: what a restored
    /// index, ref or stash entry names.
    pub fn give(&self, objects: &Path, want: &[&str], have: &[&str]) -> Result<()> {
        copy_missing(|| self.own(), objects, &self.dir, want, have)
    }
}

/// A field of what the store at `dir` records of its repository
/// ([`record`]): `common` (its common git directory) or `roots`.
pub(super) fn recorded(dir: &Path, field: &str) -> Option<Vec<u8>> {
    let text = std::fs::read(dir.join(RECORD)).ok()?;
    let key = format!("{field} ");
    text.split(|b| *b == b'\n')
        .find_map(|l| l.strip_prefix(key.as_bytes()))
        .map(<[u8]>::to_vec)
}

/// The root commits of the repository's `HEAD`, sorted, one line; empty
/// without a commit.
fn roots(repo: &Located) -> String {
    let out = crate::measure::git::git_in(&repo.root)
        .args(["rev-list", "--max-parents=0", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output();
    let mut ids: Vec<String> = out
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids.join(" ")
}

/// What a store records of its repository: where its common git
/// directory is (`common <path>`), and its root commits (`roots <ids>`),
/// by which a moved repository finds its store again.
fn record(repo: &Located) -> Vec<u8> {
    let mut record = b"common ".to_vec();
    record.extend_from_slice(repo.common.as_os_str().as_bytes());
    record.push(b'\n');
    record.extend_from_slice(format!("roots {}\n", roots(repo)).as_bytes());
    record
}

/// A git command that reads neither the user's nor the system's
/// configuration.
fn isolated(mut c: Command) -> Command {
    c.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_CONFIG_PARAMETERS")
        .env_remove("GIT_CONFIG_COUNT");
    c
}

/// Hard-links the packs (`.pack` then `.idx`) of `from` into `to`; a pack
/// that cannot be linked (another file system) is left: its objects are
/// copied one by one instead.
fn link_packs(from: &Path, to: &Path) {
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    for pack in entries.filter_map(Result::ok).map(|e| e.path()) {
        if pack.extension() != Some(OsStr::new("pack")) {
            continue;
        }
        let idx = pack.with_extension("idx");
        let (Some(pack_name), Some(idx_name)) = (pack.file_name(), idx.file_name()) else {
            continue;
        };
        if !idx.is_file() {
            continue;
        }
        if std::fs::hard_link(&pack, to.join(pack_name)).is_ok()
            && std::fs::hard_link(&idx, to.join(idx_name)).is_err()
        {
            std::fs::remove_file(to.join(pack_name)).ok();
        }
    }
}

/// Copies into the objects directory `dest` the objects reachable from
/// `want` and not from `have` that `dest` does not hold, read through
/// `view` (a git command that sees every object). Three processes: the
/// walk, the check in `dest` alone, one pack of what is missing.
fn copy_missing(
    view: impl Fn() -> Command,
    dest: &Path,
    git_dir: &Path,
    want: &[&str],
    have: &[&str],
) -> Result<()> {
    if want.is_empty() {
        return Ok(());
    }
    let mut input = String::new();
    for w in want {
        input.push_str(w);
        input.push('\n');
    }
    for h in have {
        input.push('^');
        input.push_str(h);
        input.push('\n');
    }
    let listed = super::run(
        view().args(["rev-list", "--objects", "--missing=allow-any", "--stdin"]),
        Some(input.as_bytes()),
    )?;
    let mut ids = Vec::new();
    for line in listed.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let id = line.split(|b| *b == b' ').next().unwrap_or(line);
        ids.extend_from_slice(id);
        ids.push(b'\n');
    }
    if ids.is_empty() {
        return Ok(());
    }
    // What `dest` holds on its own (its alternates file, if any, counts:
    // those objects stay where they are).
    let mut check = isolated(Command::new("git"));
    check
        .env("GIT_DIR", git_dir)
        .env("GIT_OBJECT_DIRECTORY", dest)
        .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
        .env("GIT_NO_LAZY_FETCH", "1")
        .args(["cat-file", "--batch-check=%(objectname)"]);
    let checked = super::run(&mut check, Some(&ids))?;
    let mut missing = Vec::new();
    for line in checked.split(|b| *b == b'\n') {
        if let Some(id) = line.strip_suffix(b" missing") {
            missing.extend_from_slice(id);
            missing.push(b'\n');
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let pack = dest.join("pack");
    std::fs::create_dir_all(&pack)
        .with_context(|| format!("cannot create `{}`", pack.display()))?;
    super::run(
        view().arg("pack-objects").arg("-q").arg(pack.join("pack")),
        Some(&missing),
    )?;
    Ok(())
}

/// The other work trees of the repository at `dir` (not the one `dir` is
/// in), by their paths; none when git cannot list them.
pub fn other_worktrees(dir: &Path) -> Vec<PathBuf> {
    let Ok(Some(here)) = locate(dir) else {
        return Vec::new();
    };
    let Ok(out) = crate::measure::git::git_in(dir)
        .args(["worktree", "list", "--porcelain", "-z"])
        .output()
    else {
        return Vec::new();
    };
    out.stdout
        .split(|b| *b == 0)
        .filter_map(|l| l.strip_prefix(b"worktree "))
        .map(|p| PathBuf::from(OsStr::from_bytes(p)))
        .filter(|p| *p != here.root && p.is_dir())
        .collect()
}
