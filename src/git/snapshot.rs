//! Snapshots of a repository's state before an agent's command, and undo
//! (SPEC 3.4, issue 28): the work tree (tracked files as they are,
//! untracked files that are not ignored, secret-like ignored files under a
//! size cap), the index, `HEAD`, every branch and tag tip and the stash,
//! written as git objects under `refs/vouch/snapshots/` through temporary
//! indexes, so the user's index, work tree, reflogs and stash are never
//! touched. Everything goes through the git command line, so reftable and
//! SHA-256 repositories are snapshotted like any other.
//!
//! A snapshot is a commit whose tree holds `worktree/` (the files), `index`
//! (the staged tree, when the index has no conflicts), `index.entries`
//! (`git ls-files -s -z`, conflicts included) and `refs` (one line per ref:
//! `<oid> <name>`, `HEAD` as `ref: <name>` or an id, the stash entries
//! newest first as `<oid> stash <message>`; snapshots of the first version
//! wrote `<oid> stash`, and read back without messages). Its parents are the commits the refs point at, so they
//! stay alive while the snapshot does.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::audit::{LostRecord, RefMove};

/// Where snapshots live.
pub const SNAPSHOT_PREFIX: &str = "refs/vouch/snapshots/";

/// Untracked files larger than this are named in the snapshot, not copied.
pub const LARGE_FILE: u64 = 50 * 1024 * 1024;

/// Ignored files that look like secrets or local settings are kept (up to
/// [`SECRET_FILE`] bytes each), by name: `.env`, `.env.*`, `*.pem`, `*.key`,
/// `*.local.*`: an agent's `git clean -fdX` takes them too.
fn secret_like(path: &[u8]) -> bool {
    let name = path.rsplit(|b| *b == b'/').next().unwrap_or(path);
    let name = String::from_utf8_lossy(name).to_ascii_lowercase();
    name == ".env"
        || name.starts_with(".env.")
        || Path::new(&name)
            .extension()
            .is_some_and(|e| e == "pem" || e == "key")
        || name.contains(".local.")
}

/// The largest secret-like ignored file kept.
const SECRET_FILE: u64 = 1024 * 1024;

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
    /// Files named but not copied (untracked files over 50 MB).
    pub not_copied: Vec<String>,
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
        self.name
            .strip_prefix(SNAPSHOT_PREFIX)
            .unwrap_or(&self.name)
    }
}

/// A git command in `dir` (see [`super::git_in`]), with `index` as its
/// index when given. Such an index is vouch's own, temporary: git writes
/// it without the checksum at its end (`index.skipHash`, git 2.40 and
/// later; older ones ignore it): in a repository of 10,000 files that cut
/// a snapshot's `update-index` from 13 to 8 ms and its `write-tree` from
/// 19 to 11 ms (one measurement, under load).
fn git(dir: &Path, index: Option<&Path>) -> std::process::Command {
    let mut c = super::git_in(dir);
    if let Some(index) = index {
        c.args(["-c", "index.skipHash=true"])
            .env("GIT_INDEX_FILE", index);
    }
    c
}

/// Runs git; stdout as bytes, or an error naming the command.
fn run(c: &mut std::process::Command, input: Option<&[u8]>) -> Result<Vec<u8>> {
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

/// Where the repository at `dir` keeps its files: (git dir, work tree
/// root); `None` outside a repository and for a bare one, which have no
/// work to lose.
fn locate(dir: &Path) -> Result<Option<(PathBuf, PathBuf)>> {
    // One process: git prints the lines it can before it refuses
    // `--show-toplevel` in a bare repository, and none outside one.
    let out = git(dir, None)
        .args([
            "rev-parse",
            "--absolute-git-dir",
            "--is-bare-repository",
            "--show-toplevel",
        ])
        .stderr(std::process::Stdio::null())
        .output()
        .context("cannot run `git rev-parse`: is git on PATH?")?;
    // Paths as bytes: a repository's path need not be UTF-8.
    let mut lines = out.stdout.split(|b| *b == b'\n');
    match (lines.next(), lines.next(), lines.next()) {
        (Some(git_dir), Some(b"false"), Some(root)) if !root.is_empty() => Ok(Some((
            PathBuf::from(OsStr::from_bytes(git_dir)),
            PathBuf::from(OsStr::from_bytes(root)),
        ))),
        _ => Ok(None),
    }
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
/// <name>`, or an id when detached), and whether the newest snapshot still
/// exists (its ref is asked for in the same `for-each-ref`), and the files
/// of a merge or rebase in progress ([`in_progress`]).
struct Seen {
    status: Vec<u8>,
    refs: String,
    head: Option<String>,
    last_exists: bool,
    in_progress: Vec<(String, PathBuf)>,
}

/// What the newest snapshot was taken with, remembered in
/// `vouch-snapshot-last` (one line, fields separated by spaces, `-` for
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
    fn read(git_dir: &Path) -> Self {
        let line = std::fs::read_to_string(last_path(git_dir)).unwrap_or_default();
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
fn write_blobs(root: &Path, scratch: &Path, blobs: &[&[u8]]) -> Result<Vec<String>> {
    let one = |data: &[u8]| -> Result<String> {
        Ok(text(&run(
            git(root, None).args(["hash-object", "-w", "--stdin"]),
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
        std::fs::write(path, data).context("cannot write in the git directory")?;
        list.extend_from_slice(path.as_os_str().as_bytes());
        list.push(b'\n');
    }
    let out = run(
        git(root, None).args(["hash-object", "-w", "--no-filters", "--stdin-paths"]),
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
fn record_state(root: &Path, git_dir: &Path, seen: &Seen, last: Option<&Parts>) -> Result<State> {
    let scratch = tempfile::Builder::new()
        .prefix("vouch-snapshot-")
        .tempdir_in(git_dir)
        .context("cannot make a temporary directory in the git directory")?;
    let index = scratch.path().join("index");
    copy_index(&git_dir.join("index"), &index)?;
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
                git(root, Some(&index)).args(["ls-files", "-s", "-z"]),
                None,
            )?),
            run(git(root, Some(&index)).args(["write-tree"]), None)
                .ok()
                .map(|b| text(&b)),
        ),
    };
    // The work tree.
    let mut not_copied = Vec::new();
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
                    git(&root.join(OsStr::from_bytes(dir)), None).args([
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
            b'!' if !path.ends_with(b"/")
                && secret_like(path)
                && size().is_some_and(|s| s <= SECRET_FILE) =>
            {
                path
            }
            _ => continue,
        };
        staged.extend_from_slice(path);
        staged.push(0);
    }
    let work_tree = match &index_tree {
        Some(tree) if staged.is_empty() => tree.clone(),
        _ => {
            if !staged.is_empty() {
                // Paths as given (no pathspec magic); deleted files leave
                // the index, and a file may replace a directory or the
                // other way round.
                run(
                    git(root, Some(&index)).args([
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
            text(&run(git(root, Some(&index)).args(["write-tree"]), None)?)
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
            git(root, None).args(["log", "-g", "--format=%H %gs", "refs/stash", "--"]),
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
    let mut written = write_blobs(root, scratch.path(), &new)?.into_iter();
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
            git(root, Some(&progress_index)).args(["update-index", "--add", "--index-info"]),
            Some(info.as_bytes()),
        )?;
        let tree = text(&run(
            git(root, Some(&progress_index)).args(["write-tree"]),
            None,
        )?);
        listing.push_str(&format!("040000 tree {tree}\tgitdir\n"));
    }
    // `git mktree` checks that every object it names exists: a reused part
    // whose snapshot was pruned and collected since fails here.
    let tree = text(&run(
        git(root, None).args(["mktree"]),
        Some(listing.as_bytes()),
    )?);
    let tips = tips.into_iter().take(MAX_PARENTS).collect();
    Ok(State {
        tree,
        not_copied,
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
/// stash), with `also` (a ref name) when given: `<oid> <name> <type>
/// <peeled oid> <peeled type>` a line, the peeled fields empty but for
/// annotated tags.
fn ref_lines(root: &Path, also: Option<&str>) -> Result<String> {
    let mut c = git(root, None);
    c.args([
        "for-each-ref",
        "--format=%(objectname) %(refname) %(objecttype) %(*objectname) %(*objecttype)",
        "refs/heads",
        "refs/tags",
        "refs/stash",
    ]);
    c.args(also);
    Ok(String::from_utf8_lossy(&run(&mut c, None)?).into_owned())
}

/// What changes when anything a snapshot holds changes, read without
/// copying a file: `git status` (staged and unstaged changes, untracked
/// and ignored files) with each listed file's size, time and mode, the
/// refs, `HEAD`, and the stash's reflog. Equal fingerprints: nothing to
/// snapshot again. (A file modified twice stays "modified" in `git
/// status`; its time and size tell the second change.) The same
/// `for-each-ref` tells whether the newest snapshot `last` still exists.
fn fingerprint(root: &Path, git_dir: &Path, last: &str) -> Result<(String, Seen)> {
    use sha2::Digest as _;
    let mut hash = sha2::Sha256::new();
    let status = run(
        git(root, None).args([
            "status",
            "--porcelain=v2",
            "-z",
            "--untracked-files=all",
            "--ignored=traditional",
            "--no-renames",
            "--branch",
            "--no-ahead-behind",
        ]),
        None,
    )?;
    hash.update(&status);
    let mut branch = None;
    let mut oid = None;
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
        // is a field of its own, and stat'ed like the others.
        let path = status_entry(entry).map_or(entry, |(_, p)| p);
        if let Ok(m) = std::fs::symlink_metadata(root.join(OsStr::from_bytes(path))) {
            use std::os::unix::fs::MetadataExt as _;
            hash.update(format!(
                "{} {} {} {}\n",
                m.len(),
                m.mtime(),
                m.mtime_nsec(),
                m.mode()
            ));
        }
    }
    let last = last.starts_with(SNAPSHOT_PREFIX).then_some(last);
    let mut last_exists = false;
    let mut refs = String::new();
    for line in ref_lines(root, last)?.lines() {
        if last.is_some_and(|l| line.split(' ').nth(1) == Some(l)) {
            last_exists = true;
        } else {
            refs.push_str(line);
            refs.push('\n');
        }
    }
    hash.update(refs.as_bytes());
    // `git status --branch`: the branch checked out, or the detached id.
    let head = match (branch.as_deref(), oid.as_deref()) {
        (Some("(detached)"), Some(id)) => Some(id.to_owned()),
        (Some(name), _) if name != "(detached)" => Some(format!("ref: refs/heads/{name}")),
        _ => None,
    };
    if let Ok(m) = std::fs::metadata(git_dir.join("logs/refs/stash")) {
        use std::os::unix::fs::MetadataExt as _;
        hash.update(format!("{} {} {}", m.len(), m.mtime(), m.mtime_nsec()));
    }
    // A merge, cherry-pick, revert or rebase begun, ended or gone a step on.
    let in_progress = in_progress(git_dir);
    for (name, path) in &in_progress {
        if let Ok(m) = std::fs::metadata(path) {
            use std::os::unix::fs::MetadataExt as _;
            hash.update(format!(
                "{name} {} {} {}\n",
                m.len(),
                m.mtime(),
                m.mtime_nsec()
            ));
        }
    }
    Ok((
        crate::text::hex(&hash.finalize()),
        Seen {
            status,
            refs,
            head,
            last_exists,
            in_progress,
        },
    ))
}

/// Takes the repository's snapshot lock (`vouch-snapshot.lock` in the git
/// directory), waiting up to 10 s for another snapshot to finish; held
/// until the file returned is dropped.
fn lock(git_dir: &Path) -> Result<std::fs::File> {
    let path = git_dir.join("vouch-snapshot.lock");
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
                "another snapshot of this repository has held `{}` for 10 s: {e}",
                path.display()
            ),
        }
    }
}

/// Where the newest snapshot and its fingerprint are remembered.
fn last_path(git_dir: &Path) -> PathBuf {
    git_dir.join("vouch-snapshot-last")
}

/// Snapshots the repository at or above `dir` before `command` runs;
/// `None` when the state is the one the last snapshot holds (nothing new
/// is written), or there is no work tree (no repository, a bare one).
pub fn take(dir: &Path, agent: &str, command: &str) -> Result<Option<Snapshot>> {
    let Some((git_dir, root)) = locate(dir)? else {
        return Ok(None);
    };
    // One snapshot at a time in a repository (two agents at once): the
    // second sees the first's, and the remembered fingerprint always
    // names the snapshot it was taken with.
    let _lock = lock(&git_dir)?;
    // Unchanged since the newest snapshot (which still exists): nothing to
    // write, and nothing copied to find that out.
    let last = Last::read(&git_dir);
    let (print, seen) = fingerprint(&root, &git_dir, &last.name)?;
    if seen.last_exists && last.print == print {
        return Ok(None);
    }
    let reuse = seen.last_exists.then_some(&last.parts);
    let state = match record_state(&root, &git_dir, &seen, reuse) {
        // A reused part may be gone (its snapshot pruned, its objects
        // collected): everything read again.
        Err(_) if reuse.is_some() => record_state(&root, &git_dir, &seen, None)?,
        state => state?,
    };
    let now = jiff::Timestamp::now();
    let stamp = now.strftime("%Y%m%dT%H%M%S.%6fZ").to_string();
    let one_line = |s: &str| s.replace(['\n', '\r'], " ");
    let mut message = format!(
        "vouch snapshot\n\nagent: {}\ncommand: {}\ntime: {}\n",
        one_line(agent),
        one_line(command),
        now.strftime("%Y-%m-%dT%H:%M:%SZ")
    );
    for big in &state.not_copied {
        message.push_str(&format!("not-copied: {}\n", one_line(big)));
    }
    message.push_str(IN_PROGRESS_LINE);
    message.push('\n');
    let mut commit = git(&root, None);
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
    let mut name = format!("{SNAPSHOT_PREFIX}{stamp}");
    let mut n = 1;
    // Create only: two agents at once take turns for a name.
    while run(
        git(&root, None).args(["update-ref", "-m", "vouch: snapshot", &name, &id, ""]),
        None,
    )
    .is_err()
    {
        n += 1;
        if n > 20 {
            bail!("cannot write the snapshot ref `{name}`");
        }
        name = format!("{SNAPSHOT_PREFIX}{stamp}-{n}");
    }
    let remembered = Last {
        name: name.clone(),
        print,
        parts: state.parts,
    };
    crate::files::write_atomic(&last_path(&git_dir), remembered.line().as_bytes(), 0o644).ok();
    Ok(Some(Snapshot {
        name,
        id,
        time: now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        agent: agent.to_owned(),
        command: command.to_owned(),
        not_copied: state.not_copied,
        in_progress_kept: true,
    }))
}

/// Every snapshot of the repository at or above `dir`, newest first.
pub fn list(dir: &Path) -> Result<Vec<Snapshot>> {
    listed(dir, SNAPSHOT_PREFIX)
}

/// The snapshot that holds the state as the newest snapshot-taking command
/// found it (the one written then, or the one that state matched): the
/// state before the agent's command that just ran. `None` when there is
/// none, or it was deleted.
pub fn newest_match(dir: &Path) -> Result<Option<Snapshot>> {
    let Some((git_dir, root)) = locate(dir)? else {
        return Ok(None);
    };
    let name = Last::read(&git_dir).name;
    if !name.starts_with(SNAPSHOT_PREFIX) {
        return Ok(None);
    }
    Ok(listed(&root, &name)?.into_iter().find(|s| s.name == name))
}

/// Where the snapshot whose command a post-tool hook has looked at is
/// remembered: the next command does not report its losses again.
fn checked_path(git_dir: &Path) -> PathBuf {
    git_dir.join("vouch-snapshot-checked")
}

/// Whether a post-tool hook has said what the command after `snapshot`
/// did.
pub fn checked(dir: &Path, snapshot: &Snapshot) -> bool {
    locate(dir).ok().flatten().is_some_and(|(git_dir, _)| {
        std::fs::read_to_string(checked_path(&git_dir)).is_ok_and(|t| t.trim() == snapshot.name)
    })
}

/// Remembers that a post-tool hook said what the command after
/// `snapshot` did.
pub fn mark_checked(dir: &Path, snapshot: &Snapshot) {
    if let Ok(Some((git_dir, _))) = locate(dir) {
        crate::files::write_atomic(
            &checked_path(&git_dir),
            format!("{}\n", snapshot.name).as_bytes(),
            0o644,
        )
        .ok();
    }
}

/// Where the agent door notes that there are more snapshots than
/// retention keeps: a person's next command (`git commit`, `git vouch
/// undo`, `git vouch snapshots`) prunes; the agent door never does.
fn due_path(git_dir: &Path) -> PathBuf {
    git_dir.join("vouch-snapshot-prune-due")
}

/// Notes that retention is due in the repository at or above `dir`.
pub fn mark_prune_due(dir: &Path) {
    if let Ok(Some((git_dir, _))) = locate(dir) {
        std::fs::write(due_path(&git_dir), b"").ok();
    }
}

/// Whether retention is due, in the git directory `git_dir` (a file's
/// existence: the pre-commit door pays one `stat`).
pub fn prune_due(git_dir: &Path) -> bool {
    due_path(git_dir).exists()
}

/// Retention has run in the repository at or above `dir`.
pub fn clear_prune_due(dir: &Path) {
    if let Ok(Some((git_dir, _))) = locate(dir) {
        std::fs::remove_file(due_path(&git_dir)).ok();
    }
}

/// The snapshots whose refs match `pattern`, newest first.
fn listed(dir: &Path, pattern: &str) -> Result<Vec<Snapshot>> {
    let out = text(&run(
        git(dir, None).args([
            "for-each-ref",
            "--sort=-refname",
            "--format=%(refname)%00%(objectname)%00%(contents:body)%00%00",
            pattern,
        ]),
        None,
    )?);
    let mut snapshots = Vec::new();
    for record in out.split("\0\0").map(|r| r.trim_start_matches('\n')) {
        let mut parts = record.splitn(3, '\0');
        let (Some(name), Some(id), Some(body)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let field = |key: &str| {
            body.lines()
                .find_map(|l| l.strip_prefix(key).map(str::to_owned))
                .unwrap_or_default()
        };
        snapshots.push(Snapshot {
            name: name.to_owned(),
            id: id.to_owned(),
            time: field("time: "),
            agent: field("agent: "),
            command: field("command: "),
            not_copied: body
                .lines()
                .filter_map(|l| l.strip_prefix("not-copied: ").map(str::to_owned))
                .collect(),
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

fn refs_of(root: &Path, snapshot: &str) -> Result<Refs> {
    let listing = text(&run(
        git(root, None).args(["cat-file", "blob", &format!("{snapshot}:refs")]),
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
fn files_of(root: &Path, tree: &str) -> Result<BTreeSet<Vec<u8>>> {
    let out = run(
        git(root, None).args(["ls-tree", "-r", "-z", "--name-only", "--full-tree", tree]),
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

/// Puts the state `target` holds back in the repository at or above
/// `dir`: the work tree (files the current state has and the target has
/// not are removed), the index, `HEAD`, branch and tag tips and missing
/// stash entries; with `paths`, only those files and their index entries.
/// `current` is a snapshot of the state now (taken first, so that an undo
/// can be undone). `env` goes to every git command that moves a ref (it
/// tells vouch's own reference-transaction hook that vouch runs them).
/// Returns what it did, one line each.
pub fn restore(
    dir: &Path,
    target: &Snapshot,
    current: &str,
    paths: &[String],
    env: &[(String, String)],
) -> Result<Vec<String>> {
    let Some((git_dir, root)) = locate(dir)? else {
        bail!("there is no work tree to restore here (not a repository, or a bare one)");
    };
    let wanted: Vec<Vec<u8>> = paths.iter().map(|p| p.as_bytes().to_vec()).collect();
    let selected = |p: &[u8]| wanted.is_empty() || wanted.iter().any(|w| under(p, w));
    let mut done = Vec::new();
    let then = files_of(&root, &format!("{}:worktree", target.id))?;
    let scratch = tempfile::Builder::new()
        .prefix("vouch-undo-")
        .tempdir_in(&git_dir)
        .context("cannot make a temporary directory in the git directory")?;
    let temp_index = scratch.path().join("index");
    run(
        git(&root, Some(&temp_index)).args(["read-tree", &format!("{}:worktree", target.id)]),
        None,
    )?;
    // A sparse checkout: the paths outside it (skip-worktree in the index
    // now) stay out of the work tree, and keep their bit in the index.
    let sparse: BTreeSet<Vec<u8>> = run(git(&root, None).args(["ls-files", "-t", "-z"]), None)?
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
            git(&root, Some(&temp_index)).args(["checkout-index", "-f", "-z", "--stdin"]),
            Some(&list),
        )?;
    }
    // Then what the state now has and the target has not (created since),
    // but for files the target's own rules ignore (build output that a
    // reset made visible is not the agent's to lose).
    let now = files_of(&root, &format!("{current}:worktree"))?;
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
            git(&root, None).args(["check-ignore", "--no-index", "-z", "--stdin"]),
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
            while let Some(d) = parent.filter(|d| *d != root) {
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
    let entries = run(
        git(&root, None).args(["cat-file", "blob", &format!("{}:index.entries", target.id)]),
        None,
    )?;
    if paths.is_empty() {
        run(git(&root, None).args(["read-tree", "--empty"]), None)?;
        run(
            git(&root, None).args(["update-index", "-z", "--index-info"]),
            Some(&entries),
        )?;
    } else {
        let mut removal = Vec::new();
        for p in &wanted {
            removal.extend_from_slice(p);
            removal.push(0);
        }
        run(
            git(&root, None).args(["update-index", "-z", "--force-remove", "--stdin"]),
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
                git(&root, None).args(["update-index", "-z", "--index-info"]),
                Some(&kept),
            )?;
        }
    }
    // Fresh stat data, so that `git status` does not see every file as
    // changed.
    run(
        git(&root, None).args(["update-index", "-q", "--refresh"]),
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
            git(&root, None).args(["update-index", "-z", "--skip-worktree", "--stdin"]),
            Some(&marked),
        )?;
    }
    done.push("index: restored".to_owned());
    if !paths.is_empty() {
        return Ok(done);
    }
    // The refs, with vouch's own hook told that vouch moves them.
    let was = refs_of(&root, current)?;
    let then = refs_of(&root, &target.id)?;
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
            git(&root, None)
                .args(["update-ref", "-m", "vouch undo", "--stdin"])
                .envs(env.iter().map(|(k, v)| (k, v))),
            Some(moves.as_bytes()),
        )?;
    }
    match then.head.as_deref() {
        Some(h) if was.head.as_deref() != Some(h) => {
            let mut c = git(&root, None);
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
        done.extend(restore_in_progress(&root, &git_dir, &target.id)?);
    }
    // The stash as it was: its entries in their order, with their
    // messages (entries added since are in the snapshot taken before this
    // undo).
    if then.stash != was.stash {
        if !was.stash.is_empty() {
            run(
                git(&root, None)
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
                git(&root, None)
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
fn restore_in_progress(root: &Path, git_dir: &Path, id: &str) -> Result<Vec<String>> {
    let mut then: Vec<(String, Vec<u8>)> = Vec::new();
    let listing = run(
        git(root, None).args(["ls-tree", "-r", "-z", "--full-tree", id, "--", "gitdir"]),
        None,
    )?;
    if !listing.is_empty() {
        let mut batch = Batch::new(root)?;
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

/// Deletes the snapshots `names` (full ref names) in one transaction;
/// `env` tells vouch's own reference-transaction hook that vouch deletes
/// them.
pub fn delete(dir: &Path, names: &[&str], env: &[(String, String)]) -> Result<()> {
    let mut lines = String::new();
    for name in names {
        if !name.starts_with(SNAPSHOT_PREFIX) {
            bail!("`{name}` is not a snapshot");
        }
        lines.push_str(&format!("delete {name}\n"));
    }
    run(
        git(dir, None)
            .args(["update-ref", "--stdin"])
            .envs(env.iter().map(|(k, v)| (k, v))),
        Some(lines.as_bytes()),
    )?;
    Ok(())
}

/// What was lost between the snapshot `before` and the snapshot `after`
/// (a commit id) of the same repository: files that held uncommitted work
/// in `before` (their content was not `HEAD`'s) and are deleted or changed
/// in `after`, branches and tags moved or deleted, stash entries gone.
/// Two git processes: one `cat-file --batch` for every object read, one
/// `diff-tree --stdin` for both comparisons.
pub fn lost_between(dir: &Path, before: &Snapshot, after: &str) -> Result<LostRecord> {
    let mut batch = Batch::new(dir)?;
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
    // What `after` changed of `before`'s files, then (with a `HEAD`) what
    // `before` held that `HEAD` did not.
    let mut pairs = format!("{before_tree} {after_tree}\n");
    if let Some(h) = &head_tree {
        pairs.push_str(&format!("{h} {before_tree}\n"));
    }
    let raw = run(
        git(dir, None).args(["diff-tree", "--stdin", "-r", "-z", "--no-renames"]),
        Some(pairs.as_bytes()),
    )?;
    let mut sections = diff_sections(&raw).into_iter();
    let mut changed = BTreeMap::new();
    for d in sections.next().unwrap_or_default() {
        if !matches!(d.status.as_str(), "D" | "M" | "T") {
            continue;
        }
        // The new blob of a file still there as a file, to see whether the
        // old content is still in it.
        let new = (d.status == "M" && d.new_mode.starts_with("100")).then_some(d.new_id);
        changed.insert(d.path, new);
    }
    let work = match head_tree {
        Some(_) => sections
            .next()
            .unwrap_or_default()
            .into_iter()
            .filter(|d| matches!(d.status.as_str(), "A" | "M" | "T"))
            .map(|d| (d.path, (d.new_mode, d.new_id)))
            .collect(),
        None => uncommitted(dir, &before.id, &was)?,
    };
    let mut files = Vec::new();
    let mut looked = 0;
    for (path, (_, old)) in &work {
        let Some(new) = changed.get(path) else {
            continue;
        };
        if let Some(new) = new
            && looked < APPENDS_LOOKED_AT
        {
            looked += 1;
            let content = batch.get(new)?.map(|(_, _, c)| c).unwrap_or_default();
            if batch
                .get(old)?
                .is_some_and(|(_, _, old)| content.starts_with(&old))
            {
                continue;
            }
        }
        files.push(String::from_utf8_lossy(path).into_owned());
    }
    drop(batch);
    Ok(compare(dir, before, &was, &now, files))
}

/// A `git cat-file --batch`: objects read one after another, each asked
/// for once the one before is read, by one process.
struct Batch {
    child: std::process::Child,
    input: Option<std::process::ChildStdin>,
    output: std::io::BufReader<std::process::ChildStdout>,
}

impl Batch {
    fn new(dir: &Path) -> Result<Self> {
        let mut child = git(dir, None)
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
    new_mode: String,
    new_id: String,
    status: String,
    path: Vec<u8>,
}

/// The diffs of `git diff-tree --stdin -r -z` given pairs of trees, in
/// order: each starts with a line naming its two trees, then
/// `:<old mode> <new mode> <old> <new> <status>\0<path>\0` per file.
fn diff_sections(raw: &[u8]) -> Vec<Vec<Changed>> {
    let mut sections: Vec<Vec<Changed>> = Vec::new();
    let mut fields = raw.split(|b| *b == 0);
    while let Some(field) = fields.next() {
        // The lines that name trees (one per diff, an empty diff's too),
        // then the file's meta data.
        let meta = match field.iter().rposition(|b| *b == b'\n') {
            Some(end) => {
                let starts = memchr::memchr_iter(b'\n', &field[..=end]).count();
                sections.extend((0..starts).map(|_| Vec::new()));
                &field[end + 1..]
            }
            None => field,
        };
        let Some(meta) = meta.strip_prefix(b":") else {
            continue;
        };
        let Some(path) = fields.next() else {
            break;
        };
        let meta = String::from_utf8_lossy(meta);
        let parts: Vec<&str> = meta.split(' ').collect();
        if let (Some(section), [_, new_mode, _, new_id, status, ..]) =
            (sections.last_mut(), &parts[..])
        {
            section.push(Changed {
                new_mode: (*new_mode).to_owned(),
                new_id: (*new_id).to_owned(),
                status: (*status).to_owned(),
                path: path.to_vec(),
            });
        }
    }
    sections
}

/// Changed files whose old content is looked for in the new at most (past
/// it, a change counts as a loss).
const APPENDS_LOOKED_AT: usize = 20;

/// Whether `content` still starts with the blob `old`: the file was added
/// to, and nothing of it was lost (an agent appending to a file it is
/// writing is not told it lost work).
fn still_holds(dir: &Path, old: &str, content: &[u8]) -> bool {
    run(git(dir, None).args(["cat-file", "blob", old]), None)
        .is_ok_and(|old| content.starts_with(&old))
}

/// What was lost since the snapshot `before`, read from the repository as
/// it is now (an agent's post-tool hook, right after the command): only
/// the files that held uncommitted work in `before` are looked at (hashed
/// as `git add` would), with the refs and the stash. No snapshot is written.
pub fn lost_since(dir: &Path, before: &Snapshot) -> Result<LostRecord> {
    let Some((_, root)) = locate(dir)? else {
        bail!("there is no work tree here (not a repository, or a bare one)");
    };
    let was = refs_of(&root, &before.id)?;
    let work = uncommitted(&root, &before.id, &was)?;
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
                    git(&root, None).args(["hash-object", "--stdin"]),
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
            git(&root, None).args(["hash-object", "--stdin-paths"]),
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
                if std::fs::read(&file).is_ok_and(|c| still_holds(&root, id, &c)) {
                    continue;
                }
            }
            files.push(shown);
        }
    }
    files.sort();
    let refs = ref_lines(&root, None)?;
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
            git(&root, None).args(["log", "-g", "--format=%H", "refs/stash", "--"]),
            None,
        )?)
        .lines()
        .map(str::to_owned)
        .collect();
    }
    Ok(compare(&root, before, &was, &now, files))
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
fn uncommitted(dir: &Path, id: &str, was: &Refs) -> Result<BTreeMap<Vec<u8>, (String, String)>> {
    let head = head_commit(was);
    let tree = format!("{id}:worktree");
    let mut out = BTreeMap::new();
    if let Some(h) = head {
        // Raw output: `:<old mode> <new mode> <old> <new> <status>\0<path>\0`.
        let raw = run(
            git(dir, None).args([
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
            git(dir, None).args(["ls-tree", "-r", "-z", "--full-tree", &tree]),
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
    dir: &Path,
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
            || !git(dir, None)
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
    fn diff_sections_split_at_each_pair_of_trees_even_an_empty_diff() {
        let raw = b"t1 t2\n:100644 100644 o1 n1 M\0a file\0:100644 000000 o2 z D\0gone\0\
t3 t4\nt5 t6\n:000000 120000 z n3 A\0new\nline\0";
        let entry = |status: &str, mode: &str, id: &str, path: &[u8]| Changed {
            new_mode: mode.to_owned(),
            new_id: id.to_owned(),
            status: status.to_owned(),
            path: path.to_vec(),
        };
        assert_eq!(
            diff_sections(raw),
            vec![
                vec![
                    entry("M", "100644", "n1", b"a file"),
                    entry("D", "000000", "z", b"gone"),
                ],
                vec![],
                vec![entry("A", "120000", "n3", b"new\nline")],
            ]
        );
    }
}
