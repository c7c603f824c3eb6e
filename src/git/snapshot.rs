//! Snapshots of a work tree's state before an agent's command, and undo
//! (SPEC 3.4, issues 28 and 36): the work tree (tracked files as they are,
//! untracked files that are not ignored, ignored files that git lists by
//! name, under size caps), the index, `HEAD`, every branch and tag tip and
//! the stash, written as git objects into vouch's own store
//! ([`super::store`]) through temporary indexes, so the user's index, work
//! tree, reflogs, stash, refs and object files are never touched.
//! Everything goes through the git command line, so reftable and SHA-256
//! repositories are snapshotted like any other.
//!
//! A snapshot is a commit whose tree holds `worktree/` (the files), `index`
//! (the staged tree, when the index has no conflicts), `index.entries`
//! (`git ls-files -s -z`, conflicts included), `refs` (one line per ref:
//! `<oid> <name>`, `HEAD` as `ref: <name>` or an id, the stash entries
//! newest first as `<oid> stash <message>`; snapshots of the first version
//! wrote `<oid> stash`, and read back without messages), `config` (the
//! repository's, to make `.git` again) and `gitdir/` (an operation in
//! progress). Its parents are the commits the refs point at, so the store
//! holds them too.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::store::{Located, Store};
use crate::audit::{LostRecord, RefMove};

/// Where snapshots lived before they had a store of their own: in the
/// user's refs. Moved into the store, and out of the user's refs, when
/// found ([`take`], [`list`]).
pub const LEGACY_PREFIX: &str = "refs/vouch/snapshots/";

/// Untracked files larger than this are named in the snapshot, not copied.
pub const LARGE_FILE: u64 = 50 * 1024 * 1024;

/// An ignored file that git lists by name (`.env`, `secrets.env`,
/// `id_rsa`, `config/local.yml`: what a person wrote and told git to
/// leave alone) is kept up to this size; an agent's `git clean -fdx`
/// takes it too.
pub const IGNORED_FILE: u64 = 1024 * 1024;

/// The most bytes of ignored files one snapshot keeps (past it, the rest
/// are named, not copied).
pub const IGNORED_TOTAL: u64 = 50 * 1024 * 1024;

/// The most ref tips a snapshot keeps alive as parents (the rest are
/// recorded; the rescue refs keep what a deletion would orphan).
const MAX_PARENTS: usize = 200;

/// One snapshot.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Snapshot {
    /// Its ref (`refs/vouch/snapshots/20261126T124501.123456Z`).
    pub name: String,
    /// Its commit.
    pub id: String,
    /// When it was taken (`2026-11-26T12:45:01Z`).
    pub time: String,
    /// Who ran the command (`claude`, `undo`).
    pub agent: String,
    /// The command about to run (credentials masked by the caller).
    pub command: String,
    /// Files named but not copied (untracked files over 50 MB, ignored
    /// files over the caps).
    pub not_copied: Vec<String>,
    /// Ignored directories, named, neither walked nor copied
    /// (`node_modules/`, `target/`).
    pub ignored_dirs: Vec<String>,
    /// The work tree it belongs to (`main`, or a linked one's name).
    pub worktree: String,
    /// The state it holds (its commit's tree): two snapshots of the same
    /// state hold the same tree.
    #[serde(skip)]
    pub state: String,
    /// Whether it recorded the merge, cherry-pick, revert or rebase in
    /// progress (snapshots before this was kept did not): an undo puts
    /// back what it recorded, nothing in progress included.
    #[serde(skip)]
    pub in_progress_kept: bool,
}

/// What git keeps in the git directory while a merge, cherry-pick,
/// revert or rebase is in progress: these files, and the files of these
/// directories. A snapshot keeps them (tree `gitdir`), and an undo puts
/// them back, so that a merge whose conflicts an agent threw away (`git
/// merge --abort`) is a merge again, not a plain commit to be.
const IN_PROGRESS_FILES: &[&str] = &[
    "MERGE_HEAD",
    "MERGE_MSG",
    "MERGE_MODE",
    "MERGE_AUTOSTASH",
    "AUTO_MERGE",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "SQUASH_MSG",
];
/// See [`IN_PROGRESS_FILES`].
const IN_PROGRESS_DIRS: &[&str] = &["rebase-merge", "rebase-apply", "sequencer"];
/// The line of a snapshot's message that says it kept what is in progress.
const IN_PROGRESS_LINE: &str = "in-progress: kept";

/// The files of an operation in progress in `git_dir`, by their path
/// under it (`MERGE_HEAD`, `rebase-merge/done`), sorted.
fn in_progress(git_dir: &Path) -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = IN_PROGRESS_FILES
        .iter()
        .map(|name| ((*name).to_owned(), git_dir.join(name)))
        .filter(|(_, p)| p.is_file())
        .collect();
    for dir in IN_PROGRESS_DIRS {
        let Ok(entries) = std::fs::read_dir(git_dir.join(dir)) else {
            continue;
        };
        let mut files: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                (!name.contains(['\n', '\t'])).then(|| (format!("{dir}/{name}"), e.path()))
            })
            .collect();
        files.sort();
        found.extend(files);
    }
    found
}

impl Snapshot {
    /// The short name people type (`20261126T124501.123456Z`).
    pub fn short(&self) -> &str {
        self.name.rsplit('/').next().unwrap_or(&self.name)
    }
}

/// Runs git; stdout as bytes, or an error naming the command.
pub(super) fn run(c: &mut std::process::Command, input: Option<&[u8]>) -> Result<Vec<u8>> {
    let shown = format!("{c:?}");
    c.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if input.is_some() {
        c.stdin(std::process::Stdio::piped());
    }
    let mut child = c.spawn().with_context(|| format!("cannot run {shown}"))?;
    if let Some(input) = input {
        let mut stdin = child.stdin.take().context("no stdin")?;
        let data = input.to_vec();
        std::thread::spawn(move || stdin.write_all(&data));
    }
    let out = child.wait_with_output()?;
    if !out.status.success() {
        bail!(
            "{shown} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_owned()
}

/// The user's repository of `store`, or an error saying it is gone.
fn repo(store: &Store) -> Result<&Located> {
    store.repo.as_ref().with_context(|| {
        format!(
            "`{}` has no git repository any more (its `.git` is gone)",
            store.root.display()
        )
    })
}

/// Copies the index at `from` to `to` (nothing when there is none) with
/// the original's modification time. git trusts an entry's recorded stat
/// only when the entry is older than the index file: a file rewritten at
/// the same size in the same second as the index was written is "racily
/// clean" and compared by content (git's racy-git.txt). A copy with a
/// newer time would make such a change look clean, and the snapshot keep
/// the old content. The time is read before the copy: an index replaced in
/// between is newer than that time, which only makes git compare more
/// files by content.
fn copy_index(from: &Path, to: &Path) -> Result<()> {
    let Ok(meta) = std::fs::metadata(from) else {
        return Ok(());
    };
    let time = meta.modified().context("cannot read the index's time")?;
    std::fs::copy(from, to).context("cannot copy the index")?;
    std::fs::File::options()
        .write(true)
        .open(to)
        .and_then(|f| f.set_modified(time))
        .context("cannot set the time of the index's copy")?;
    Ok(())
}

/// What the fingerprint read, for the snapshot to use: `git status`'s
/// entries, the refs (`for-each-ref` with object types), `HEAD` (`ref:
/// <name>`, or an id when detached), and the files of a merge or rebase
/// in progress ([`in_progress`]).
struct Seen {
    status: Vec<u8>,
    refs: String,
    head: Option<String>,
    in_progress: Vec<(String, PathBuf)>,
}

/// What the newest snapshot was taken with, remembered in
/// the work tree's `last` in the store (one line, fields separated by spaces, `-` for
/// none): its name and fingerprint, then the parts a next snapshot reuses
/// when they have not changed: the index (known by the checksum git writes
/// at the end of the index file) as its `index.entries` blob and `index`
/// tree, and the refs listing (known by its SHA-256) as its blob. Files
/// written by the first version hold only the name and the fingerprint.
struct Last {
    name: String,
    print: String,
    parts: Parts,
}

/// The reusable parts of a snapshot (see [`Last`]).
struct Parts {
    index_key: String,
    entries: String,
    index_tree: String,
    refs_key: String,
    refs_blob: String,
}

impl Last {
    fn read(store: &Store) -> Self {
        let line = std::fs::read_to_string(last_path(store)).unwrap_or_default();
        let mut fields = line.split_whitespace().map(str::to_owned);
        let mut next = || fields.next().unwrap_or_else(|| "-".to_owned());
        Self {
            name: next(),
            print: next(),
            parts: Parts {
                index_key: next(),
                entries: next(),
                index_tree: next(),
                refs_key: next(),
                refs_blob: next(),
            },
        }
    }

    fn line(&self) -> String {
        let p = &self.parts;
        format!(
            "{} {} {} {} {} {} {}\n",
            self.name, self.print, p.index_key, p.entries, p.index_tree, p.refs_key, p.refs_blob
        )
    }
}

/// The state of a repository as git objects: the snapshot's tree, what it
/// did not copy, the commits to keep alive, and the parts the next
/// snapshot may reuse.
struct State {
    tree: String,
    not_copied: Vec<String>,
    ignored_dirs: Vec<String>,
    tips: Vec<String>,
    parts: Parts,
}

/// The kind and path of one entry of `git status --porcelain=v2 -z`
/// (`1`, `2`, `u`, `?`, `!`; `None` for headers). The path is the last
/// field, after a fixed number of others, and may hold spaces.
fn status_entry(entry: &[u8]) -> Option<(u8, &[u8])> {
    let fields = match entry.first()? {
        b'1' => 9,
        b'2' => 10,
        b'u' => 11,
        b'?' | b'!' => return Some((entry[0], entry.get(2..)?)),
        _ => return None,
    };
    Some((
        entry[0],
        entry.splitn(fields, |b| *b == b' ').nth(fields - 1)?,
    ))
}

/// The entries of `git status --porcelain=v2 -z`: kind, XY (two bytes,
/// `..` for untracked and ignored files) and path. A rename's or copy's
/// original path (the field after its entry) is returned as a deletion.
fn status_entries(status: &[u8]) -> Vec<(u8, [u8; 2], &[u8])> {
    let mut out = Vec::new();
    let mut fields = status.split(|b| *b == 0);
    while let Some(entry) = fields.next() {
        let Some((kind, path)) = status_entry(entry) else {
            continue;
        };
        let xy = match kind {
            b'1' | b'2' | b'u' => [
                entry.get(2).copied().unwrap_or(b'.'),
                entry.get(3).copied().unwrap_or(b'.'),
            ],
            _ => [b'.', b'.'],
        };
        out.push((kind, xy, path));
        if kind == b'2'
            && let Some(original) = fields.next()
        {
            out.push((b'1', [b'D', b'D'], original));
        }
    }
    out
}

/// The checksum git writes at the end of the index file at `path` (the
/// last 32 bytes, which hold it for SHA-1 and SHA-256 repositories alike),
/// as hex with the file's length; `-` when there is no index or it has no
/// checksum (`index.skipHash`).
fn index_key(path: &Path) -> String {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let read = || -> std::io::Result<Option<String>> {
        let mut file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        if len < 64 {
            return Ok(None);
        }
        let mut tail = [0u8; 32];
        file.seek(SeekFrom::End(-32))?;
        file.read_exact(&mut tail)?;
        // skipHash leaves the checksum's bytes zero.
        if tail[12..].iter().all(|b| *b == 0) {
            return Ok(None);
        }
        Ok(Some(format!("{len}:{}", crate::text::hex(&tail))))
    };
    read().ok().flatten().unwrap_or_else(|| "-".to_owned())
}

/// Writes `blobs` as git objects; their ids, in order. Two or more go
/// through one `git hash-object --stdin-paths` (files in `scratch`).
fn write_blobs(store: &Store, scratch: &Path, blobs: &[&[u8]]) -> Result<Vec<String>> {
    let one = |data: &[u8]| -> Result<String> {
        Ok(text(&run(
            store.work(None).args(["hash-object", "-w", "--stdin"]),
            Some(data),
        )?))
    };
    let paths: Vec<PathBuf> = (0..blobs.len())
        .map(|i| scratch.join(format!("blob{i}")))
        .collect();
    // `--stdin-paths` reads one path a line.
    if blobs.len() < 2
        || paths
            .iter()
            .any(|p| p.as_os_str().as_bytes().contains(&b'\n'))
    {
        return blobs.iter().map(|b| one(b)).collect();
    }
    let mut list = Vec::new();
    for (path, data) in paths.iter().zip(blobs) {
        std::fs::write(path, data).context("cannot write in the snapshot store")?;
        list.extend_from_slice(path.as_os_str().as_bytes());
        list.push(b'\n');
    }
    let out = run(
        store
            .work(None)
            .args(["hash-object", "-w", "--no-filters", "--stdin-paths"]),
        Some(&list),
    )?;
    let ids: Vec<String> = text(&out).lines().map(str::to_owned).collect();
    if ids.len() != blobs.len() {
        bail!(
            "`git hash-object` wrote {} objects of {}",
            ids.len(),
            blobs.len()
        );
    }
    Ok(ids)
}

/// Reads the state of the repository at `root` into git objects, from
/// what the fingerprint `seen`, reusing the parts of the newest snapshot
/// (`last`, when it still exists) that have not changed.
///
/// One copy of the index serves both trees: its entries and tree are the
/// index as it is; then the files `git status` listed are staged into it
/// (changed and deleted tracked files, untracked files but for large
/// ones, small secret-like ignored files), which is what `git add -A`
/// would stage, without a second walk of the work tree, and its tree is
/// the work tree's.
fn record_state(store: &Store, seen: &Seen, last: Option<&Parts>) -> Result<State> {
    let repo = repo(store)?;
    let root = &store.root;
    let scratch = tempfile::Builder::new()
        .prefix("vouch-snapshot-")
        .tempdir_in(store.folder())
        .context("cannot make a temporary directory in the snapshot store")?;
    let index = scratch.path().join("index");
    copy_index(&repo.git_dir.join("index"), &index)?;
    let index_key = index_key(&index);
    // The index as it is: its entries (conflicts too), and its tree when
    // it has none; the newest snapshot's when the index is the same file.
    let known = last.filter(|l| index_key != "-" && l.index_key == index_key && l.entries != "-");
    let (entries, index_tree) = match known {
        Some(l) => (
            Err(l.entries.clone()),
            (l.index_tree != "-").then(|| l.index_tree.clone()),
        ),
        None => (
            Ok(run(
                store.work(Some(&index)).args(["ls-files", "-s", "-z"]),
                None,
            )?),
            run(store.work(Some(&index)).args(["write-tree"]), None)
                .ok()
                .map(|b| text(&b)),
        ),
    };
    // The work tree.
    let mut not_copied = Vec::new();
    let mut ignored_dirs = Vec::new();
    let mut ignored_bytes = 0;
    let mut staged = Vec::new();
    for (kind, xy, path) in status_entries(&seen.status) {
        let size = || {
            std::fs::symlink_metadata(root.join(OsStr::from_bytes(path)))
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len())
        };
        let path = match kind {
            // Tracked: unmerged, or its file differs from the index.
            b'u' => path,
            b'1' | b'2' if xy[1] != b'.' => path,
            // An untracked directory is another repository: staged as a
            // gitlink, as `git add -A` does. One with no commit yet has
            // nothing a gitlink could name (git refuses to stage it): it is
            // named, not copied.
            b'?' if path.ends_with(b"/") => {
                let dir = &path[..path.len() - 1];
                let committed = run(
                    super::git_in(&root.join(OsStr::from_bytes(dir))).args([
                        "rev-parse",
                        "-q",
                        "--verify",
                        "HEAD",
                    ]),
                    None,
                )
                .is_ok();
                if !committed {
                    not_copied.push(String::from_utf8_lossy(dir).into_owned());
                    continue;
                }
                dir
            }
            b'?' => {
                if size().is_some_and(|s| s > LARGE_FILE) {
                    not_copied.push(String::from_utf8_lossy(path).into_owned());
                    continue;
                }
                path
            }
            // An ignored directory (`node_modules/`, `target/`): named,
            // neither walked nor copied; build output can be made again.
            b'!' if path.ends_with(b"/") => {
                ignored_dirs.push(String::from_utf8_lossy(path).into_owned());
                continue;
            }
            b'!' => match size() {
                Some(s) if s <= IGNORED_FILE && ignored_bytes + s <= IGNORED_TOTAL => {
                    ignored_bytes += s;
                    path
                }
                Some(_) => {
                    not_copied.push(String::from_utf8_lossy(path).into_owned());
                    continue;
                }
                // Not a file (a link, gone since): nothing to keep.
                None => continue,
            },
            _ => continue,
        };
        staged.extend_from_slice(path);
        staged.push(0);
    }
    // The work tree's index of the newest snapshot, kept in the store with
    // its stat data and cache tree: when the user's index is the one that
    // snapshot read and every path it staged is listed again, staging into
    // a copy of it hashes only the files changed since (git skips a file
    // whose stat it has, racy ones aside), and `write-tree` reuses the
    // trees nothing changed. Otherwise the user's index is the start.
    let kept = store.folder().join("work-index");
    let kept_list = store.folder().join("work-listed");
    let fast = known.is_some()
        && kept.is_file()
        && std::fs::read(&kept_list).is_ok_and(|before| {
            // `<index key>\0<tree>\0<path>\0...`: made from this very index.
            let mut before = before.split(|b| *b == 0);
            let now: BTreeSet<&[u8]> = staged.split(|b| *b == 0).collect();
            before.next() == Some(index_key.as_bytes())
                && before.next().is_some()
                && before.all(|p| now.contains(p))
        });
    let work = if fast {
        let work = scratch.path().join("work");
        copy_index(&kept, &work)?;
        work
    } else {
        index.clone()
    };
    let work_tree = match &index_tree {
        Some(tree) if staged.is_empty() && !fast => tree.clone(),
        _ => {
            if !staged.is_empty() {
                // Paths as given (no pathspec magic); deleted files leave
                // the index, and a file may replace a directory or the
                // other way round.
                run(
                    store.work(Some(&work)).args([
                        "update-index",
                        "--add",
                        "--remove",
                        "--replace",
                        "-z",
                        "--stdin",
                    ]),
                    Some(&staged),
                )?;
            }
            let tree = text(&run(store.work(Some(&work)).args(["write-tree"]), None)?);
            // Kept for the next snapshot (same folder: a rename).
            std::fs::remove_file(&kept_list).ok();
            if index_key != "-" && std::fs::rename(&work, &kept).is_ok() {
                let mut list = index_key.as_bytes().to_vec();
                list.push(0);
                list.extend_from_slice(tree.as_bytes());
                list.push(0);
                list.extend_from_slice(&staged);
                crate::files::write_atomic(&kept_list, &list, 0o600).ok();
            }
            tree
        }
    };
    // The refs: HEAD, branches, tags and the stash, as the fingerprint
    // read them.
    let mut refs = String::new();
    let mut tips = BTreeSet::new();
    match &seen.head {
        Some(h) if h.starts_with("ref: ") => refs.push_str(&format!("{h} HEAD\n")),
        Some(id) => {
            refs.push_str(&format!("{id} HEAD\n"));
            tips.insert(id.clone());
        }
        None => {}
    }
    let mut has_stash = false;
    for line in seen.refs.lines() {
        // The peeled fields are empty but for annotated tags.
        let mut parts = line.split(' ');
        let (Some(id), Some(name)) = (parts.next(), parts.next()) else {
            continue;
        };
        if name == "refs/stash" {
            has_stash = true;
            continue;
        }
        let kind = parts.next().unwrap_or_default();
        let peeled = parts.next().unwrap_or_default();
        let peeled_kind = parts.next().unwrap_or_default();
        refs.push_str(&format!("{id} {name}\n"));
        // Only commits can be parents: a tag of a tree is kept by its ref.
        if kind == "commit" {
            tips.insert(id.to_owned());
        } else if peeled_kind == "commit" {
            tips.insert(peeled.to_owned());
        }
    }
    let stash = if has_stash {
        run(
            store
                .work(None)
                .args(["log", "-g", "--format=%H %gs", "refs/stash", "--"]),
            None,
        )
        .map(|b| text(&b))
        .unwrap_or_default()
    } else {
        String::new()
    };
    // `<oid> stash <its message>`, newest first.
    for line in stash.lines() {
        let (id, message) = line.split_once(' ').unwrap_or((line, ""));
        refs.push_str(&format!("{id} stash {message}\n"));
        tips.insert(id.to_owned());
    }
    let refs_key = {
        use sha2::Digest as _;
        crate::text::hex(&sha2::Sha256::digest(refs.as_bytes()))
    };
    // The blobs not known already, in one process.
    let refs_known = last
        .filter(|l| l.refs_key == refs_key && l.refs_blob != "-")
        .map(|l| l.refs_blob.clone());
    // A merge, cherry-pick, revert or rebase in progress: its files, read
    // now (a file gone since it was listed is left out).
    let progress: Vec<(&String, Vec<u8>)> = seen
        .in_progress
        .iter()
        .filter_map(|(name, path)| std::fs::read(path).ok().map(|data| (name, data)))
        .collect();
    let mut new: Vec<&[u8]> = Vec::new();
    if refs_known.is_none() {
        new.push(refs.as_bytes());
    }
    if let Ok(e) = &entries {
        new.push(e);
    }
    new.extend(progress.iter().map(|(_, data)| data.as_slice()));
    // The repository's config (its remotes), to make `.git` again from.
    let config = std::fs::read(config_path(repo)).ok();
    new.extend(config.as_deref());
    let mut written = write_blobs(store, scratch.path(), &new)?.into_iter();
    let mut next = || written.next().context("a blob was not written");
    let refs_blob = match refs_known {
        Some(id) => id,
        None => next()?,
    };
    let entries = match entries {
        Err(id) => id,
        Ok(_) => next()?,
    };
    let mut listing = format!(
        "100644 blob {refs_blob}\trefs\n100644 blob {entries}\tindex.entries\n040000 tree {work_tree}\tworktree\n"
    );
    if let Some(t) = &index_tree {
        listing.push_str(&format!("040000 tree {t}\tindex\n"));
    }
    if !progress.is_empty() {
        let mut info = String::new();
        for (name, _) in &progress {
            info.push_str(&format!("100644 {}\t{name}\n", next()?));
        }
        let progress_index = scratch.path().join("in-progress");
        run(
            store
                .work(Some(&progress_index))
                .args(["update-index", "--add", "--index-info"]),
            Some(info.as_bytes()),
        )?;
        let tree = text(&run(
            store.work(Some(&progress_index)).args(["write-tree"]),
            None,
        )?);
        listing.push_str(&format!("040000 tree {tree}\tgitdir\n"));
    }
    if config.is_some() {
        listing.push_str(&format!("100644 blob {}\tconfig\n", next()?));
    }
    // `git mktree` checks that every object it names exists: a reused part
    // whose snapshot was pruned and collected since fails here.
    let tree = text(&run(
        store.work(None).args(["mktree"]),
        Some(listing.as_bytes()),
    )?);
    let tips = tips.into_iter().take(MAX_PARENTS).collect();
    Ok(State {
        tree,
        not_copied,
        ignored_dirs,
        tips,
        parts: Parts {
            index_key,
            entries,
            index_tree: index_tree.unwrap_or_else(|| "-".to_owned()),
            refs_key,
            refs_blob,
        },
    })
}

/// The one listing of the refs a snapshot holds (branches, tags, the
/// stash): `<oid> <name> <type> <peeled oid> <peeled type>` a line, the
/// peeled fields empty but for annotated tags.
fn ref_lines(store: &Store) -> Result<String> {
    let mut c = store.work(None);
    c.args([
        "for-each-ref",
        "--format=%(objectname) %(refname) %(objecttype) %(*objectname) %(*objecttype)",
        "refs/heads",
        "refs/tags",
        "refs/stash",
    ]);
    Ok(String::from_utf8_lossy(&run(&mut c, None)?).into_owned())
}

/// Whether the store holds the ref `name` (read from its files: the store
/// is vouch's, always in the files format).
fn exists(store: &Store, name: &str) -> bool {
    if !name.starts_with(super::store::PREFIX) {
        return false;
    }
    store.dir.join(name).is_file()
        || std::fs::read_to_string(store.dir.join("packed-refs")).is_ok_and(|packed| {
            packed
                .lines()
                .any(|l| l.split_once(' ').is_some_and(|(_, n)| n == name))
        })
}

/// The files git keeps in the git directory that a snapshot keeps and the
/// fingerprint watches, with the in-progress ones: the repository's
/// `config` (read back only to make `.git` again).
fn config_path(repo: &Located) -> PathBuf {
    repo.common.join("config")
}

/// What changes when anything a snapshot holds changes, read without
/// copying a file: `git status` (staged and unstaged changes, untracked
/// files, ignored files by name and ignored directories by name, not
/// walked) with each listed file's size, time, change time, inode and
/// mode, the refs, `HEAD`, the stash's reflog and the repository's
/// config. Equal fingerprints: nothing to snapshot again. (A file modified
/// twice stays "modified" in `git status`; its stat tells the second
/// change, as git's own racy rules do.)
fn fingerprint(store: &Store) -> Result<(String, Seen)> {
    use sha2::Digest as _;
    use std::os::unix::fs::MetadataExt as _;
    let repo = repo(store)?;
    let root = &store.root;
    let mut hash = sha2::Sha256::new();
    let status = run(
        store.work(None).args([
            "status",
            "--porcelain=v2",
            "-z",
            "--untracked-files=all",
            "--ignored=matching",
            "--no-renames",
            "--branch",
            "--no-ahead-behind",
        ]),
        None,
    )?;
    hash.update(&status);
    let mut branch = None;
    let mut oid = None;
    let stat = |m: &std::fs::Metadata| {
        format!(
            "{} {} {} {} {} {} {}\n",
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
            m.ino(),
            m.mode()
        )
    };
    for entry in status.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        if entry[0] == b'#' {
            let line = String::from_utf8_lossy(entry);
            if let Some(name) = line.strip_prefix("# branch.head ") {
                branch = Some(name.to_owned());
            } else if let Some(id) = line.strip_prefix("# branch.oid ") {
                oid = Some(id.to_owned());
            }
            continue;
        }
        // A rename's original path (there are none with `--no-renames`)
        // is a field of its own, and stat'ed like the others. An ignored
        // directory is not walked: its own stat is all that is read.
        let path = status_entry(entry).map_or(entry, |(_, p)| p);
        if let Ok(m) = std::fs::symlink_metadata(root.join(OsStr::from_bytes(path))) {
            hash.update(stat(&m));
        }
    }
    let refs = ref_lines(store)?;
    hash.update(refs.as_bytes());
    // `git status --branch`: the branch checked out, or the detached id.
    let head = match (branch.as_deref(), oid.as_deref()) {
        (Some("(detached)"), Some(id)) => Some(id.to_owned()),
        (Some(name), _) if name != "(detached)" => Some(format!("ref: refs/heads/{name}")),
        _ => None,
    };
    for watched in [repo.common.join("logs/refs/stash"), config_path(repo)] {
        if let Ok(m) = std::fs::metadata(watched) {
            hash.update(stat(&m));
        }
    }
    // A merge, cherry-pick, revert or rebase begun, ended or gone a step on.
    let in_progress = in_progress(&repo.git_dir);
    for (name, path) in &in_progress {
        if let Ok(m) = std::fs::metadata(path) {
            hash.update(format!("{name} {}", stat(&m)));
        }
    }
    Ok((
        crate::text::hex(&hash.finalize()),
        Seen {
            status,
            refs,
            head,
            in_progress,
        },
    ))
}

/// Takes the work tree's snapshot lock (`lock` in its folder of the
/// store), waiting up to 10 s for another snapshot to finish; held until
/// the file returned is dropped.
fn lock(store: &Store) -> Result<std::fs::File> {
    let folder = store.folder();
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create `{}`", folder.display()))?;
    let path = folder.join("lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open `{}`", path.display()))?;
    let started = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock)
                if started.elapsed() < std::time::Duration::from_secs(10) =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => bail!(
                "another snapshot of this work tree has held `{}` for 10 s: {e}",
                path.display()
            ),
        }
    }
}

/// Where the newest snapshot and its fingerprint are remembered.
fn last_path(store: &Store) -> PathBuf {
    store.folder().join("last")
}

/// Snapshots the work tree of `store` before `command` runs; `None` when
/// the state is the one the last snapshot holds (nothing new is written).
pub fn take(store: &Store, agent: &str, command: &str) -> Result<Option<Snapshot>> {
    // One snapshot at a time in a work tree (two agents at once): the
    // second sees the first's, and the remembered fingerprint always
    // names the snapshot it was taken with.
    let _lock = lock(store)?;
    // Unchanged since the newest snapshot (which still exists): nothing to
    // write, and nothing copied to find that out.
    let last = Last::read(store);
    let (print, seen) = fingerprint(store)?;
    let last_exists = exists(store, &last.name);
    if last_exists && last.print == print {
        return Ok(None);
    }
    let reuse = last_exists.then_some(&last.parts);
    let state = match record_state(store, &seen, reuse) {
        // A reused part may be gone (its snapshot pruned, its objects
        // collected): everything read again.
        Err(_) if reuse.is_some() => record_state(store, &seen, None)?,
        state => state?,
    };
    let now = jiff::Timestamp::now();
    let stamp = now.strftime("%Y%m%dT%H%M%S.%6fZ").to_string();
    let one_line = |s: &str| s.replace(['\n', '\r'], " ");
    let mut message = format!(
        "vouch snapshot\n\nagent: {}\ncommand: {}\ntime: {}\nworktree: {}\n",
        one_line(agent),
        one_line(command),
        now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        one_line(&store.root.to_string_lossy()),
    );
    for big in &state.not_copied {
        message.push_str(&format!("not-copied: {}\n", one_line(big)));
    }
    for dir in &state.ignored_dirs {
        message.push_str(&format!("ignored-dir: {}\n", one_line(dir)));
    }
    message.push_str(IN_PROGRESS_LINE);
    message.push('\n');
    let mut commit = store.work(None);
    commit
        .args(["commit-tree", &state.tree])
        .env("GIT_AUTHOR_NAME", "vouch")
        .env("GIT_AUTHOR_EMAIL", "vouch@localhost")
        .env("GIT_COMMITTER_NAME", "vouch")
        .env("GIT_COMMITTER_EMAIL", "vouch@localhost");
    for tip in &state.tips {
        commit.args(["-p", tip]);
    }
    commit.args(["-F", "-"]);
    let id = text(&run(&mut commit, Some(message.as_bytes()))?);
    // Everything it needs, in the store before its ref names it.
    // The newest snapshot and its tree: what both hold is walked no
    // further (an untracked file unchanged since is not listed again).
    let last_tree = format!("{}^{{tree}}", last.name);
    let have: Vec<&str> = if last_exists {
        vec![last.name.as_str(), last_tree.as_str()]
    } else {
        Vec::new()
    };
    store.keep(&[&id], &have)?;
    let prefix = store.prefix();
    let mut name = format!("{prefix}{stamp}");
    let mut n = 1;
    // Create only: two agents at once take turns for a name.
    while run(
        store
            .own()
            .args(["update-ref", "-m", "vouch: snapshot", &name, &id, ""]),
        None,
    )
    .is_err()
    {
        n += 1;
        if n > 20 {
            bail!("cannot write the snapshot ref `{name}`");
        }
        name = format!("{prefix}{stamp}-{n}");
    }
    let remembered = Last {
        name: name.clone(),
        print,
        parts: state.parts,
    };
    crate::files::write_atomic(&last_path(store), remembered.line().as_bytes(), 0o600).ok();
    let state_tree = state.tree.clone();
    Ok(Some(Snapshot {
        worktree: store.tree.clone(),
        state: state_tree,
        name,
        id,
        time: now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        agent: agent.to_owned(),
        command: command.to_owned(),
        not_copied: state.not_copied,
        ignored_dirs: state.ignored_dirs,
        in_progress_kept: true,
    }))
}

/// Every snapshot of the work tree of `store`, newest first.
pub fn list(store: &Store) -> Result<Vec<Snapshot>> {
    listed(store, &store.prefix())
}

/// Every snapshot of every work tree of the repository of `store`,
/// newest first (a removed work tree's too).
pub fn list_all(store: &Store) -> Result<Vec<Snapshot>> {
    let mut all = listed(store, super::store::PREFIX)?;
    all.sort_by(|a, b| b.short().cmp(a.short()));
    Ok(all)
}

/// The snapshot that holds the state as the newest snapshot-taking command
/// found it (the one written then, or the one that state matched): the
/// state before the agent's command that just ran. `None` when there is
/// none, or it was deleted.
pub fn newest_match(store: &Store) -> Result<Option<Snapshot>> {
    let name = Last::read(store).name;
    if !exists(store, &name) {
        return Ok(None);
    }
    Ok(listed(store, &name)?.into_iter().find(|s| s.name == name))
}

/// Where the snapshot whose command a post-tool hook has looked at is
/// remembered: the next command does not report its losses again.
fn checked_path(store: &Store) -> PathBuf {
    store.folder().join("checked")
}

/// Whether a post-tool hook has said what the command after `snapshot`
/// did.
pub fn checked(store: &Store, snapshot: &Snapshot) -> bool {
    std::fs::read_to_string(checked_path(store)).is_ok_and(|t| t.trim() == snapshot.name)
}

/// Remembers that a post-tool hook said what the command after
/// `snapshot` did.
pub fn mark_checked(store: &Store, snapshot: &Snapshot) {
    crate::files::write_atomic(
        &checked_path(store),
        format!("{}\n", snapshot.name).as_bytes(),
        0o600,
    )
    .ok();
}

/// Moves the snapshots an earlier vouch kept in the repository's own refs
/// (`refs/vouch/snapshots/`) into the store, then deletes them there
/// (`env` tells vouch's own reference-transaction hook that vouch does).
/// Looked for once per work tree; the count moved.
pub fn migrate(store: &Store, env: &[(String, String)]) -> Result<usize> {
    let Some(repo) = &store.repo else {
        return Ok(0);
    };
    let done = store.folder().join("legacy-moved");
    if done.exists() {
        return Ok(0);
    }
    let names = text(&run(
        super::git_in(&store.root).args(["for-each-ref", "--format=%(refname)", LEGACY_PREFIX]),
        None,
    )?);
    let names: Vec<&str> = names.lines().filter(|l| !l.is_empty()).collect();
    if !names.is_empty() {
        // Everything they reach comes along (a fetch from the repository).
        run(
            store
                .own()
                .args(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head"])
                .arg(&repo.git_dir)
                .arg(format!(
                    "+{LEGACY_PREFIX}*:{PREFIX}main/*",
                    PREFIX = super::store::PREFIX
                )),
            None,
        )?;
        let mut lines = String::new();
        for name in &names {
            lines.push_str(&format!("delete {name}\n"));
        }
        run(
            super::git_in(&store.root)
                .args(["update-ref", "--stdin"])
                .envs(env.iter().map(|(k, v)| (k, v))),
            Some(lines.as_bytes()),
        )?;
    }
    std::fs::create_dir_all(store.folder()).ok();
    std::fs::write(&done, b"").ok();
    Ok(names.len())
}

/// The work tree a snapshot's ref name (`refs/snapshots/<tree>/<time>`)
/// belongs to.
fn tree_of(name: &str) -> &str {
    name.strip_prefix(super::store::PREFIX)
        .and_then(|rest| rest.split_once('/'))
        .map_or("main", |(tree, _)| tree)
}

/// The snapshots whose refs match `pattern` in the store, newest first.
fn listed(store: &Store, pattern: &str) -> Result<Vec<Snapshot>> {
    let out = text(&run(
        store.own().args([
            "for-each-ref",
            "--sort=-refname",
            "--format=%(refname)%00%(objectname)%00%(tree)%00%(contents:body)%00%00",
            pattern,
        ]),
        None,
    )?);
    let mut snapshots = Vec::new();
    for record in out.split("\0\0").map(|r| r.trim_start_matches('\n')) {
        let mut parts = record.splitn(4, '\0');
        let (Some(name), Some(id), Some(state), Some(body)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let field = |key: &str| {
            body.lines()
                .find_map(|l| l.strip_prefix(key).map(str::to_owned))
                .unwrap_or_default()
        };
        let fields = |key: &str| {
            body.lines()
                .filter_map(|l| l.strip_prefix(key).map(str::to_owned))
                .collect()
        };
        snapshots.push(Snapshot {
            worktree: tree_of(name).to_owned(),
            state: state.to_owned(),
            name: name.to_owned(),
            id: id.to_owned(),
            time: field("time: "),
            agent: field("agent: "),
            command: field("command: "),
            not_copied: fields("not-copied: "),
            ignored_dirs: fields("ignored-dir: "),
            in_progress_kept: body.lines().any(|l| l == IN_PROGRESS_LINE),
        });
    }
    Ok(snapshots)
}

/// The refs a snapshot recorded: `HEAD` (`ref: <name>` or an id), the
/// branches and tags by name, and the stash entries, newest first.
struct Refs {
    head: Option<String>,
    named: BTreeMap<String, String>,
    stash: Vec<String>,
    /// The stash entries' messages, by id (snapshots before 0.2 kept none).
    stash_messages: BTreeMap<String, String>,
}

fn refs_of(store: &Store, snapshot: &str) -> Result<Refs> {
    let listing = text(&run(
        store
            .work(None)
            .args(["cat-file", "blob", &format!("{snapshot}:refs")]),
        None,
    )?);
    Ok(parse_refs(&listing))
}

/// A snapshot's `refs` blob, read.
fn parse_refs(listing: &str) -> Refs {
    let mut refs = Refs {
        head: None,
        named: BTreeMap::new(),
        stash: Vec::new(),
        stash_messages: BTreeMap::new(),
    };
    for line in listing.lines() {
        if let Some((id, rest)) = line.split_once(' ')
            && let Some(message) = rest.strip_prefix("stash ")
        {
            refs.stash.push(id.to_owned());
            refs.stash_messages
                .insert(id.to_owned(), message.to_owned());
            continue;
        }
        if let Some(name) = line
            .strip_prefix("ref: ")
            .and_then(|l| l.strip_suffix(" HEAD"))
        {
            refs.head = Some(format!("ref: {name}"));
        } else if let Some((id, name)) = line.split_once(' ') {
            match name {
                "HEAD" => refs.head = Some(id.to_owned()),
                "stash" => refs.stash.push(id.to_owned()),
                _ => {
                    refs.named.insert(name.to_owned(), id.to_owned());
                }
            }
        }
    }
    refs
}

/// The files of a snapshot's work tree (`ls-tree -r -z --name-only`).
fn files_of(store: &Store, tree: &str) -> Result<BTreeSet<Vec<u8>>> {
    let out = run(
        store
            .work(None)
            .args(["ls-tree", "-r", "-z", "--name-only", "--full-tree", tree]),
        None,
    )?;
    Ok(out
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(<[u8]>::to_vec)
        .collect())
}

/// True when `path` is `p` or below it.
fn under(path: &[u8], p: &[u8]) -> bool {
    path == p || (path.starts_with(p) && path.get(p.len()) == Some(&b'/'))
}

/// A path as a person gives it to `undo --path`: `src/`, `./src` and
/// `src` are the same.
fn clean_path(p: &str) -> Vec<u8> {
    let mut p = p.trim_end_matches('/');
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.as_bytes().to_vec()
}

/// Makes `.git` again for the work tree of `store`, whose repository is
/// gone: a fresh repository of the store's object format with the config
/// `target` kept (its remotes). Anything left where `.git` was that git
/// cannot open is moved aside first, not deleted. Returns the store opened
/// on the new repository and what it did. Only a main work tree whose git
/// directory was its `.git` folder can be made again.
pub fn recreate(state: &Path, store: &Store, target: &Snapshot) -> Result<(Store, Vec<String>)> {
    let root = &store.root;
    let mut done = Vec::new();
    let record = std::fs::read(store.dir.join("vouch-repo")).unwrap_or_default();
    let mut common = root.join(".git").as_os_str().as_bytes().to_vec();
    common.insert(0, b' ');
    common.splice(0..0, b"common".iter().copied());
    if store.tree != "main" || !record.starts_with(&common) {
        bail!(
            "the repository of `{}` kept its git directory elsewhere than `.git` in it (a linked work tree or a submodule): vouch cannot make it again here; its snapshots are in `{}`",
            root.display(),
            store.dir.display()
        );
    }
    std::fs::create_dir_all(root).with_context(|| format!("cannot create `{}`", root.display()))?;
    let dot_git = root.join(".git");
    if std::fs::symlink_metadata(&dot_git).is_ok() {
        let aside = root.join(format!(
            ".git.vouch-moved-{}",
            jiff::Timestamp::now().strftime("%Y%m%dT%H%M%S")
        ));
        std::fs::rename(&dot_git, &aside)
            .with_context(|| format!("cannot move `{}` aside", dot_git.display()))?;
        done.push(format!(
            "what was left at .git is not a repository git can open: moved to {}",
            aside.display()
        ));
    }
    let format = text(&run(
        store.own().args(["rev-parse", "--show-object-format"]),
        None,
    )?);
    run(
        super::git_in(root)
            .args(["init", "-q"])
            .arg(format!("--object-format={format}")),
        None,
    )?;
    if let Ok(config) = run(
        store
            .own()
            .args(["cat-file", "blob", &format!("{}:config", target.id)]),
        None,
    ) {
        std::fs::write(dot_git.join("config"), config)
            .context("cannot write the repository's config")?;
        done.push(".git made again, with the config it had (its remotes)".to_owned());
    } else {
        done.push(
            ".git made again (this snapshot kept no config: add the remotes again)".to_owned(),
        );
    }
    let store = Store::open(state, root)?
        .with_context(|| format!("`{}` is still not a repository", root.display()))?;
    Ok((store, done))
}

/// Puts the state `target` holds back in the work tree of `store`: the
/// work tree (files the current state has and the target has not are
/// removed), the index, `HEAD`, branch and tag tips and missing stash
/// entries; with `paths`, only those files and their index entries.
/// `current` is a snapshot of the state now (taken first, so that an undo
/// can be undone), `None` when `.git` was made again: then nothing is
/// removed and every ref is written. What the index, refs and stash name
/// is copied from the store into the repository first; nothing else of a
/// snapshot enters it. `env` goes to every git command that moves a ref
/// (it tells vouch's own reference-transaction hook that vouch runs
/// them). Returns what it did, one line each.
pub fn restore(
    store: &Store,
    target: &Snapshot,
    current: Option<&str>,
    paths: &[String],
    env: &[(String, String)],
) -> Result<Vec<String>> {
    let repo = repo(store)?;
    let (git_dir, root) = (&repo.git_dir, &store.root);
    let wanted: Vec<Vec<u8>> = paths.iter().map(|p| clean_path(p)).collect();
    let selected =
        |p: &[u8]| wanted.is_empty() || wanted.iter().any(|w| w.is_empty() || under(p, w));
    let mut done = Vec::new();
    let then = files_of(store, &format!("{}:worktree", target.id))?;
    let was = match current {
        Some(c) => refs_of(store, c)?,
        None => parse_refs(""),
    };
    let then_refs = refs_of(store, &target.id)?;
    let entries = run(
        store
            .work(None)
            .args(["cat-file", "blob", &format!("{}:index.entries", target.id)]),
        None,
    )?;
    // What the restored index, refs and stash name, into the repository.
    let mut want: Vec<String> = then_refs.named.values().cloned().collect();
    want.extend(then_refs.stash.iter().cloned());
    want.extend(
        then_refs
            .head
            .iter()
            .filter(|h| !h.starts_with("ref: "))
            .cloned(),
    );
    for entry in entries.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let meta = String::from_utf8_lossy(entry.split(|b| *b == b'\t').next().unwrap_or_default());
        let mut fields = meta.split(' ');
        if let (Some(mode), Some(id)) = (fields.next(), fields.next())
            && mode != "160000"
        {
            want.push(id.to_owned());
        }
    }
    let want: Vec<&str> = want.iter().map(String::as_str).collect();
    let have: Vec<&str> = was.named.values().map(String::as_str).collect();
    store.give(&repo.objects, &want, &have)?;
    let scratch = tempfile::Builder::new()
        .prefix("vouch-undo-")
        .tempdir_in(store.folder())
        .context("cannot make a temporary directory in the snapshot store")?;
    let temp_index = scratch.path().join("index");
    run(
        store
            .work(Some(&temp_index))
            .args(["read-tree", &format!("{}:worktree", target.id)]),
        None,
    )?;
    // A sparse checkout: the paths outside it (skip-worktree in the index
    // now) stay out of the work tree, and keep their bit in the index.
    let sparse: BTreeSet<Vec<u8>> = run(store.work(None).args(["ls-files", "-t", "-z"]), None)?
        .split(|b| *b == 0)
        .filter_map(|e| e.strip_prefix(b"S "))
        .map(<[u8]>::to_vec)
        .collect();
    let outside = |p: &[u8]| {
        sparse.contains(p) && std::fs::symlink_metadata(root.join(OsStr::from_bytes(p))).is_err()
    };
    let mut list = Vec::new();
    for path in then.iter().filter(|p| selected(p) && !outside(p)) {
        list.extend_from_slice(path);
        list.push(0);
    }
    if !list.is_empty() {
        run(
            store
                .work(Some(&temp_index))
                .args(["checkout-index", "-f", "-z", "--stdin"]),
            Some(&list),
        )?;
    }
    // Then what the state now has and the target has not (created since),
    // but for files the target's own rules ignore (build output that a
    // reset made visible is not the agent's to lose).
    let now = match current {
        Some(c) => files_of(store, &format!("{c}:worktree"))?,
        None => BTreeSet::new(),
    };
    let gone: Vec<&Vec<u8>> = now.difference(&then).filter(|p| selected(p)).collect();
    let mut asked = Vec::new();
    for p in &gone {
        asked.extend_from_slice(p);
        asked.push(0);
    }
    let ignored: BTreeSet<Vec<u8>> = if gone.is_empty() {
        BTreeSet::new()
    } else {
        run(
            store
                .work(None)
                .args(["check-ignore", "--no-index", "-z", "--stdin"]),
            Some(&asked),
        )
        .unwrap_or_default()
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
    };
    let mut removed = 0;
    for path in gone.into_iter().filter(|p| !ignored.contains(*p)) {
        let file = root.join(OsStr::from_bytes(path));
        if std::fs::symlink_metadata(&file).is_ok() {
            std::fs::remove_file(&file)
                .with_context(|| format!("cannot remove `{}`", file.display()))?;
            removed += 1;
            // Directories left empty go too.
            let mut parent = file.parent();
            while let Some(d) = parent.filter(|d| d != root) {
                if std::fs::remove_dir(d).is_err() {
                    break;
                }
                parent = d.parent();
            }
        }
    }
    done.push(format!(
        "work tree: {} file(s) written, {removed} removed",
        then.iter().filter(|p| selected(p)).count()
    ));
    // The index.
    if paths.is_empty() {
        run(store.work(None).args(["read-tree", "--empty"]), None)?;
        run(
            store
                .work(None)
                .args(["update-index", "-z", "--index-info"]),
            Some(&entries),
        )?;
    } else {
        let mut removal = Vec::new();
        for p in &wanted {
            removal.extend_from_slice(p);
            removal.push(0);
        }
        run(
            store
                .work(None)
                .args(["update-index", "-z", "--force-remove", "--stdin"]),
            Some(&removal),
        )
        .ok();
        let kept: Vec<u8> = entries
            .split(|b| *b == 0)
            .filter(|e| {
                e.iter()
                    .position(|b| *b == b'\t')
                    .is_some_and(|tab| selected(&e[tab + 1..]))
            })
            .flat_map(|e| e.iter().copied().chain([0]))
            .collect();
        if !kept.is_empty() {
            run(
                store
                    .work(None)
                    .args(["update-index", "-z", "--index-info"]),
                Some(&kept),
            )?;
        }
    }
    // Fresh stat data, so that `git status` does not see every file as
    // changed.
    run(
        store.work(None).args(["update-index", "-q", "--refresh"]),
        None,
    )
    .ok();
    if !sparse.is_empty() {
        let listed: BTreeSet<&[u8]> = entries
            .split(|b| *b == 0)
            .filter_map(|e| e.iter().position(|b| *b == b'\t').map(|tab| &e[tab + 1..]))
            .collect();
        let mut marked = Vec::new();
        for p in sparse.iter().filter(|p| listed.contains(p.as_slice())) {
            marked.extend_from_slice(p);
            marked.push(0);
        }
        run(
            store
                .work(None)
                .args(["update-index", "-z", "--skip-worktree", "--stdin"]),
            Some(&marked),
        )?;
    }
    done.push("index: restored".to_owned());
    if !paths.is_empty() {
        return Ok(done);
    }
    // The refs, with vouch's own hook told that vouch moves them.
    let then = then_refs;
    let mut moves = String::new();
    for (name, id) in &then.named {
        if was.named.get(name) != Some(id) {
            moves.push_str(&format!("update {name} {id}\n"));
            done.push(format!("{name} -> {}", crate::text::short_oid(id)));
        }
    }
    for name in was.named.keys().filter(|n| !then.named.contains_key(*n)) {
        moves.push_str(&format!("delete {name}\n"));
        done.push(format!(
            "{name} removed (it is in the snapshot taken before this undo)"
        ));
    }
    if !moves.is_empty() {
        run(
            store
                .work(None)
                .args(["update-ref", "-m", "vouch undo", "--stdin"])
                .envs(env.iter().map(|(k, v)| (k, v))),
            Some(moves.as_bytes()),
        )?;
    }
    match then.head.as_deref() {
        Some(h) if was.head.as_deref() != Some(h) => {
            let mut c = store.work(None);
            if let Some(name) = h.strip_prefix("ref: ") {
                c.args(["symbolic-ref", "HEAD", name]);
            } else {
                c.args(["update-ref", "--no-deref", "HEAD", h]);
            }
            run(c.envs(env.iter().map(|(k, v)| (k, v))), None)?;
            done.push(format!("HEAD -> {h}"));
        }
        _ => {}
    }
    if target.in_progress_kept {
        done.extend(restore_in_progress(store, git_dir, &target.id)?);
    }
    // The stash as it was: its entries in their order, with their
    // messages (entries added since are in the snapshot taken before this
    // undo).
    if then.stash != was.stash {
        if !was.stash.is_empty() {
            run(
                store
                    .work(None)
                    .args(["update-ref", "-d", "refs/stash"])
                    .envs(env.iter().map(|(k, v)| (k, v))),
                None,
            )?;
        }
        for id in then.stash.iter().rev() {
            let message = then
                .stash_messages
                .get(id)
                .filter(|m| !m.is_empty())
                .map_or("restored by git vouch undo", String::as_str);
            run(
                store
                    .work(None)
                    .args(["stash", "store", "-m", message, id])
                    .envs(env.iter().map(|(k, v)| (k, v))),
                None,
            )?;
        }
        done.push(format!(
            "stash: {} entr{} put back in order",
            then.stash.len(),
            if then.stash.len() == 1 { "y" } else { "ies" }
        ));
    }
    Ok(done)
}

/// Puts back the merge, cherry-pick, revert or rebase that was in
/// progress when snapshot `id` was taken, and ends one begun since: the
/// files of [`IN_PROGRESS_FILES`] and [`IN_PROGRESS_DIRS`] are those
/// the snapshot kept, byte for byte, and no others. Returns what it says.
fn restore_in_progress(store: &Store, git_dir: &Path, id: &str) -> Result<Vec<String>> {
    let mut then: Vec<(String, Vec<u8>)> = Vec::new();
    let listing = run(
        store
            .work(None)
            .args(["ls-tree", "-r", "-z", "--full-tree", id, "--", "gitdir"]),
        None,
    )?;
    if !listing.is_empty() {
        let mut batch = Batch::new(store)?;
        for entry in listing.split(|b| *b == 0).filter(|e| !e.is_empty()) {
            let entry = String::from_utf8_lossy(entry);
            let Some((meta, path)) = entry.split_once('\t') else {
                continue;
            };
            let (Some(blob), Some(name)) = (meta.split(' ').nth(2), path.strip_prefix("gitdir/"))
            else {
                continue;
            };
            let data = batch
                .get(blob)?
                .with_context(|| format!("the snapshot's `{path}` is missing"))?
                .2;
            then.push((name.to_owned(), data));
        }
    }
    let now = in_progress(git_dir);
    if now.is_empty() && then.is_empty() {
        return Ok(Vec::new());
    }
    let unchanged = now.len() == then.len()
        && now.iter().all(|(name, path)| {
            then.iter()
                .any(|(t, data)| t == name && std::fs::read(path).is_ok_and(|d| &d == data))
        });
    if unchanged {
        return Ok(Vec::new());
    }
    for (_, path) in &now {
        std::fs::remove_file(path)
            .with_context(|| format!("cannot remove `{}`", path.display()))?;
    }
    for dir in IN_PROGRESS_DIRS {
        std::fs::remove_dir(git_dir.join(dir)).ok();
    }
    for (name, data) in &then {
        let path = git_dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create `{}`", parent.display()))?;
        }
        std::fs::write(&path, data)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    let what = |names: &[&str]| {
        if names.iter().any(|n| n.starts_with("rebase-")) {
            "a rebase"
        } else if names.contains(&"MERGE_HEAD") {
            "a merge"
        } else if names.contains(&"CHERRY_PICK_HEAD") {
            "a cherry-pick"
        } else if names.contains(&"REVERT_HEAD") {
            "a revert"
        } else {
            "an operation"
        }
    };
    let then_names: Vec<&str> = then.iter().map(|(n, _)| n.as_str()).collect();
    let now_names: Vec<&str> = now.iter().map(|(n, _)| n.as_str()).collect();
    Ok(vec![if then.is_empty() {
        format!("{} begun since is no longer in progress", what(&now_names))
    } else {
        format!(
            "{} in progress again ({} file(s) in the git directory)",
            what(&then_names),
            then.len()
        )
    }])
}

/// Deletes the snapshots `names` (full ref names in the store) in one
/// transaction, then lets the store's objects that no snapshot needs any
/// more go (in the store: the user's repository is not touched).
pub fn delete(store: &Store, names: &[&str]) -> Result<()> {
    let mut lines = String::new();
    for name in names {
        if !name.starts_with(super::store::PREFIX) {
            bail!("`{name}` is not a snapshot");
        }
        lines.push_str(&format!("delete {name}\n"));
    }
    run(
        store.own().args(["update-ref", "--stdin"]),
        Some(lines.as_bytes()),
    )?;
    Ok(())
}

/// Packs the store: the objects only deleted snapshots held (and the
/// repository's packs linked in the first time) go at once with `now`,
/// else after git's own two weeks, in the background, and only once the
/// store has many packs (one is written per snapshot that needed objects).
/// No alternate is read: the store holds all its snapshots need.
pub fn collect(store: &Store, now: bool) -> Result<()> {
    let mut gc = store.own();
    gc.env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES");
    if now {
        gc.args(["gc", "--quiet", "--prune=now"]);
    } else {
        let packs = std::fs::read_dir(store.dir.join("objects/pack"))
            .map_or(0, |d| d.filter_map(Result::ok).count());
        // Two files a pack.
        if packs < 2 * 50 {
            return Ok(());
        }
        gc.args(["gc", "--auto", "--quiet"]);
    }
    run(&mut gc, None)?;
    Ok(())
}

/// Retention, in the store (issue 28, issue 36 item 1): the snapshots of
/// the work tree of `store` that are neither among the newest `keep` nor
/// younger than `days` (by `now`) go. Both limits must be passed, so no
/// command, an agent's included, can make a recent snapshot go. Returns
/// how many went.
pub fn retain(store: &Store, keep: usize, days: u32, now: jiff::Timestamp) -> Result<usize> {
    let all = list(store)?;
    if all.len() <= keep {
        return Ok(0);
    }
    let old = expired(&all, keep, days, now);
    if old.is_empty() {
        return Ok(0);
    }
    let names: Vec<&str> = old.iter().map(|s| s.name.as_str()).collect();
    delete(store, &names)?;
    Ok(old.len())
}

/// The snapshots retention lets go: neither among the newest `keep` nor
/// taken within `days` of `now`. A snapshot whose time cannot be read is
/// kept.
pub fn expired(all: &[Snapshot], keep: usize, days: u32, now: jiff::Timestamp) -> Vec<&Snapshot> {
    let cutoff = now - jiff::SignedDuration::from_hours(24 * i64::from(days));
    all.iter()
        .skip(keep)
        .filter(|s| s.time.parse::<jiff::Timestamp>().is_ok_and(|t| t < cutoff))
        .collect()
}

/// What was lost between the snapshot `before` and the snapshot `after`
/// (a commit id) of the same repository: files that held uncommitted work
/// in `before` (their content was not `HEAD`'s) and are deleted or changed
/// in `after`, branches and tags moved or deleted, stash entries gone.
/// Two git processes: one `cat-file --batch` for every object read, one
/// `diff-tree --stdin` for both comparisons.
pub fn lost_between(store: &Store, before: &Snapshot, after: &str) -> Result<LostRecord> {
    let mut batch = Batch::new(store)?;
    let mut refs = |id: &str| -> Result<Refs> {
        let (_, _, data) = batch
            .get(&format!("{id}:refs"))?
            .with_context(|| format!("snapshot {id} has no refs"))?;
        Ok(parse_refs(&String::from_utf8_lossy(&data)))
    };
    let now = refs(after)?;
    let was = refs(&before.id)?;
    let mut oid = |name: String| -> Result<String> {
        Ok(batch
            .get(&name)?
            .with_context(|| format!("`{name}` is not in the repository"))?
            .0)
    };
    let before_tree = oid(format!("{}:worktree", before.id))?;
    let after_tree = oid(format!("{after}:worktree"))?;
    let head_tree = head_commit(&was)
        .map(|h| oid(format!("{h}^{{tree}}")))
        .transpose()?;
    // What `after` changed of `before`'s files; of those, the ones whose
    // content in `before` was not `HEAD`'s held uncommitted work (looked
    // up one by one: a few files, where a diff against `HEAD` would list
    // every untracked file).
    let raw = run(
        store.work(None).args([
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            &before_tree,
            &after_tree,
        ]),
        None,
    )?;
    let mut files = Vec::new();
    let mut looked = 0;
    for d in diff_entries(&raw) {
        if !matches!(d.status.as_str(), "D" | "M" | "T") {
            continue;
        }
        let committed = match &head_tree {
            // A name git cannot be asked for counts as uncommitted work.
            Some(h) => std::str::from_utf8(&d.path).ok().is_some_and(|path| {
                batch
                    .get(&format!("{h}:{path}"))
                    .ok()
                    .flatten()
                    .is_some_and(|(id, _, _)| id == d.old_id)
            }),
            None => false,
        };
        if committed {
            continue;
        }
        // A file still there as a file: is the old content still in it
        // (appended to, nothing lost)?
        if d.status == "M" && d.new_mode.starts_with("100") && looked < APPENDS_LOOKED_AT {
            looked += 1;
            let content = batch.get(&d.new_id)?.map(|(_, _, c)| c).unwrap_or_default();
            if batch
                .get(&d.old_id)?
                .is_some_and(|(_, _, old)| content.starts_with(&old))
            {
                continue;
            }
        }
        files.push(String::from_utf8_lossy(&d.path).into_owned());
    }
    drop(batch);
    Ok(compare(store, before, &was, &now, files))
}

/// A `git cat-file --batch`: objects read one after another, each asked
/// for once the one before is read, by one process.
struct Batch {
    child: std::process::Child,
    input: Option<std::process::ChildStdin>,
    output: std::io::BufReader<std::process::ChildStdout>,
}

impl Batch {
    fn new(store: &Store) -> Result<Self> {
        let mut child = store
            .work(None)
            .args(["cat-file", "--batch"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .context("cannot run `git cat-file --batch`")?;
        let input = child.stdin.take();
        let output = std::io::BufReader::new(child.stdout.take().context("no stdout")?);
        Ok(Self {
            child,
            input,
            output,
        })
    }

    /// The object `name` names (`<id>`, `<commit>:<path>`, `<rev>^{tree}`):
    /// its id, type and content; `None` when there is none.
    fn get(&mut self, name: &str) -> Result<Option<(String, String, Vec<u8>)>> {
        use std::io::{BufRead as _, Read as _};
        if name.contains('\n') {
            bail!("an object name holds a line break: {name:?}");
        }
        let input = self.input.as_mut().context("no stdin")?;
        input.write_all(format!("{name}\n").as_bytes())?;
        input.flush()?;
        let mut header = String::new();
        if self.output.read_line(&mut header)? == 0 {
            bail!("`git cat-file --batch` ended early");
        }
        // `<id> <type> <size>`, or `<name> missing` (or `ambiguous`).
        let fields: Vec<&str> = header.split_whitespace().collect();
        let [id, kind, size] = fields[..] else {
            return Ok(None);
        };
        let size: usize = size
            .parse()
            .with_context(|| format!("`git cat-file --batch` said {header:?}"))?;
        let mut data = vec![0; size + 1];
        self.output.read_exact(&mut data)?;
        data.pop();
        Ok(Some((id.to_owned(), kind.to_owned(), data)))
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        // End of input: git exits.
        drop(self.input.take());
        self.child.wait().ok();
    }
}

/// One file of a `diff-tree -r` (raw output).
#[derive(Debug, Default, PartialEq, Eq)]
struct Changed {
    old_id: String,
    new_mode: String,
    new_id: String,
    status: String,
    path: Vec<u8>,
}

/// The files of `git diff-tree -r -z <tree> <tree>`:
/// `:<old mode> <new mode> <old> <new> <status>\0<path>\0` each.
fn diff_entries(raw: &[u8]) -> Vec<Changed> {
    let mut out = Vec::new();
    let mut fields = raw.split(|b| *b == 0);
    while let (Some(meta), Some(path)) = (fields.next(), fields.next()) {
        let Some(meta) = meta.strip_prefix(b":") else {
            break;
        };
        let meta = String::from_utf8_lossy(meta);
        if let [_, new_mode, old_id, new_id, status, ..] = meta.split(' ').collect::<Vec<_>>()[..] {
            out.push(Changed {
                old_id: old_id.to_owned(),
                new_mode: new_mode.to_owned(),
                new_id: new_id.to_owned(),
                status: status.to_owned(),
                path: path.to_vec(),
            });
        }
    }
    out
}

/// Changed files whose old content is looked for in the new at most (past
/// it, a change counts as a loss).
const APPENDS_LOOKED_AT: usize = 20;

/// Whether `content` still starts with the blob `old`: the file was added
/// to, and nothing of it was lost (an agent appending to a file it is
/// writing is not told it lost work).
fn still_holds(store: &Store, old: &str, content: &[u8]) -> bool {
    run(store.work(None).args(["cat-file", "blob", old]), None)
        .is_ok_and(|old| content.starts_with(&old))
}

/// What was lost since the snapshot `before`, read from the repository as
/// it is now (an agent's post-tool hook, right after the command): only
/// the files that held uncommitted work in `before` are looked at (hashed
/// as `git add` would), with the refs and the stash. No snapshot is written.
pub fn lost_since(store: &Store, before: &Snapshot) -> Result<LostRecord> {
    let root = &store.root;
    let was = refs_of(store, &before.id)?;
    let mut work = uncommitted(store, &before.id, &was)?;
    // Only the files changed since, where the store's index of the work
    // tree describes `before` (git tells by their stat, as `git status`
    // does): the others are not hashed again.
    if let Some(changed) = changed_since(store, before) {
        work.retain(|path, _| changed.contains(path));
    }
    let mut files = Vec::new();
    let mut hashed = Vec::new();
    let mut list = Vec::new();
    for (path, (mode, id)) in &work {
        let file = root.join(OsStr::from_bytes(path));
        let shown = String::from_utf8_lossy(path).into_owned();
        match std::fs::symlink_metadata(&file) {
            Err(_) => files.push(shown),
            Ok(m) if (mode == "120000") != m.file_type().is_symlink() || m.is_dir() => {
                files.push(shown);
            }
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&file).unwrap_or_default();
                let now = text(&run(
                    store.work(None).args(["hash-object", "--stdin"]),
                    Some(target.as_os_str().as_bytes()),
                )?);
                if &now != id {
                    files.push(shown);
                }
            }
            Ok(_) => {
                list.extend_from_slice(path);
                list.push(b'\n');
                hashed.push((file, shown, id));
            }
        }
    }
    if !hashed.is_empty() {
        let out = run(
            store.work(None).args(["hash-object", "--stdin-paths"]),
            Some(&list),
        )?;
        let ids: Vec<String> = text(&out).lines().map(str::to_owned).collect();
        let mut looked = 0;
        for ((file, shown, id), now) in hashed.into_iter().zip(ids) {
            if &now == id {
                continue;
            }
            if looked < APPENDS_LOOKED_AT {
                looked += 1;
                // Read as `git add` would not (no filters): an appended
                // file with a clean filter may still count as a loss.
                if std::fs::read(&file).is_ok_and(|c| still_holds(store, id, &c)) {
                    continue;
                }
            }
            files.push(shown);
        }
    }
    files.sort();
    let refs = ref_lines(store)?;
    let mut now = Refs {
        head: None,
        named: BTreeMap::new(),
        stash: Vec::new(),
        stash_messages: BTreeMap::new(),
    };
    let mut has_stash = false;
    for line in refs.lines() {
        let mut fields = line.split(' ');
        if let (Some(id), Some(name)) = (fields.next(), fields.next()) {
            if name == "refs/stash" {
                has_stash = true;
            } else {
                now.named.insert(name.to_owned(), id.to_owned());
            }
        }
    }
    if has_stash {
        now.stash = text(&run(
            store
                .work(None)
                .args(["log", "-g", "--format=%H", "refs/stash", "--"]),
            None,
        )?)
        .lines()
        .map(str::to_owned)
        .collect();
    }
    Ok(compare(store, before, &was, &now, files))
}

/// The files of the work tree that differ from `before`'s, told by the
/// store's index of the work tree (`git diff-files`: by stat, and by
/// content where the stat cannot tell); `None` when that index is not
/// `before`'s.
fn changed_since(store: &Store, before: &Snapshot) -> Option<BTreeSet<Vec<u8>>> {
    let kept = store.folder().join("work-index");
    let list = std::fs::read(store.folder().join("work-listed")).ok()?;
    let tree = list.split(|b| *b == 0).nth(1)?;
    let wanted = run(
        store
            .work(None)
            .args(["rev-parse", &format!("{}:worktree", before.id)]),
        None,
    )
    .ok()?;
    if wanted.trim_ascii() != tree {
        return None;
    }
    let out = run(
        store
            .work(Some(&kept))
            .args(["diff-files", "-z", "--name-only"]),
        None,
    )
    .ok()?;
    Some(
        out.split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
    )
}

/// The commit `HEAD` was at in a snapshot's refs, if any.
fn head_commit(was: &Refs) -> Option<String> {
    let h = was.head.as_deref()?;
    h.strip_prefix("ref: ")
        .map_or(Some(h.to_owned()), |name| was.named.get(name).cloned())
}

/// The files of snapshot `id`'s work tree that held uncommitted work (not
/// `HEAD`'s content, `HEAD` as `was` recorded it), with their mode and blob.
/// Files deleted in the work tree hold nothing to lose.
fn uncommitted(store: &Store, id: &str, was: &Refs) -> Result<BTreeMap<Vec<u8>, (String, String)>> {
    let head = head_commit(was);
    let tree = format!("{id}:worktree");
    let mut out = BTreeMap::new();
    if let Some(h) = head {
        // Raw output: `:<old mode> <new mode> <old> <new> <status>\0<path>\0`.
        let raw = run(
            store.work(None).args([
                "diff-tree",
                "-r",
                "-z",
                "--no-renames",
                "--diff-filter=AMT",
                &format!("{h}^{{tree}}"),
                &tree,
            ]),
            None,
        )?;
        let mut fields = raw.split(|b| *b == 0);
        while let (Some(meta), Some(path)) = (fields.next(), fields.next()) {
            let meta = String::from_utf8_lossy(meta);
            let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
            if let (Some(mode), Some(blob)) = (parts.get(1), parts.get(3)) {
                out.insert(path.to_vec(), ((*mode).to_owned(), (*blob).to_owned()));
            }
        }
    } else {
        let listing = run(
            store
                .work(None)
                .args(["ls-tree", "-r", "-z", "--full-tree", &tree]),
            None,
        )?;
        for entry in listing.split(|b| *b == 0).filter(|e| !e.is_empty()) {
            let Some(tab) = entry.iter().position(|b| *b == b'\t') else {
                continue;
            };
            let meta = String::from_utf8_lossy(&entry[..tab]);
            let parts: Vec<&str> = meta.split(' ').collect();
            if let (Some(mode), Some(blob)) = (parts.first(), parts.get(2)) {
                out.insert(
                    entry[tab + 1..].to_vec(),
                    ((*mode).to_owned(), (*blob).to_owned()),
                );
            }
        }
    }
    Ok(out)
}

/// The loss record: `files` as found, the refs and stash compared.
fn compare(
    store: &Store,
    before: &Snapshot,
    was: &Refs,
    now: &Refs,
    files: Vec<String>,
) -> LostRecord {
    let mut refs = Vec::new();
    for (name, old) in &was.named {
        let new = now.named.get(name).cloned().unwrap_or_default();
        if &new == old {
            continue;
        }
        // Commits left the ref when its old tip is not in the new one's
        // history (a tag moved or a ref deleted counts too).
        let rewound = new.is_empty()
            || !store
                .work(None)
                .args(["merge-base", "--is-ancestor", old, &new])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
        refs.push(RefMove {
            name: name.clone(),
            old_oid: old.clone(),
            new_oid: new,
            rewound,
        });
    }
    LostRecord {
        command: before.command.clone(),
        snapshot: before.short().to_owned(),
        files,
        refs,
        stash: was
            .stash
            .iter()
            .filter(|s| !now.stash.contains(s))
            .cloned()
            .collect(),
    }
}

/// Whether `lost` holds work a person would want back: files with
/// uncommitted work, refs deleted or rewound, stash entries.
pub fn is_loss(lost: &LostRecord) -> bool {
    !lost.files.is_empty() || !lost.stash.is_empty() || lost.refs.iter().any(|r| r.rewound)
}

/// `lost` for people, one line each (only what [`is_loss`] counts).
pub fn loss_lines(lost: &LostRecord) -> Vec<String> {
    let mut out = Vec::new();
    if !lost.files.is_empty() {
        let shown: Vec<&str> = lost.files.iter().take(5).map(String::as_str).collect();
        out.push(format!(
            "{} file(s) with uncommitted work deleted or overwritten: {}{}",
            lost.files.len(),
            shown.join(", "),
            if lost.files.len() > 5 { ", ..." } else { "" }
        ));
    }
    for r in lost.refs.iter().filter(|r| r.rewound) {
        if r.new_oid.is_empty() {
            out.push(format!("`{}` deleted", r.name));
        } else {
            out.push(format!(
                "`{}` moved off {}",
                r.name,
                crate::text::short_oid(&r.old_oid)
            ));
        }
    }
    let gone = lost.stash.len();
    if gone > 0 {
        out.push(format!(
            "{gone} stash entr{} dropped",
            if gone == 1 { "y" } else { "ies" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_entries_keep_paths_with_spaces_and_a_renames_original() {
        let status = b"# branch.oid 1234\0# branch.head main\0\
1 .M N... 100644 100644 100644 aaaa aaaa dir/with space.txt\0\
u UU N... 100644 100644 100644 100644 b1 b2 b3 conflicted file\0\
2 R. N... 100644 100644 100644 cccc cccc R100 new name\0old name\0\
? untracked one\0! .env\0";
        let entries: Vec<(u8, [u8; 2], &[u8])> = status_entries(status);
        assert_eq!(
            entries,
            vec![
                (b'1', *b".M", &b"dir/with space.txt"[..]),
                (b'u', *b"UU", &b"conflicted file"[..]),
                (b'2', *b"R.", &b"new name"[..]),
                (b'1', *b"DD", &b"old name"[..]),
                (b'?', *b"..", &b"untracked one"[..]),
                (b'!', *b"..", &b".env"[..]),
            ]
        );
    }

    #[test]
    fn diff_entries_read_each_file_of_a_raw_diff_paths_with_line_breaks_too() {
        let raw = b":100644 100644 o1 n1 M\0a file\0:100644 000000 o2 z D\0gone\0\
:000000 120000 z n3 A\0new\nline\0";
        let entry = |status: &str, mode: &str, old: &str, id: &str, path: &[u8]| Changed {
            old_id: old.to_owned(),
            new_mode: mode.to_owned(),
            new_id: id.to_owned(),
            status: status.to_owned(),
            path: path.to_vec(),
        };
        assert_eq!(
            diff_entries(raw),
            vec![
                entry("M", "100644", "o1", "n1", b"a file"),
                entry("D", "000000", "o2", "z", b"gone"),
                entry("A", "120000", "z", "n3", b"new\nline"),
            ]
        );
        assert_eq!(diff_entries(b""), vec![]);
    }
}
