//! Writing snapshots into the store, listing them, and letting them go
//! (retention), in the store alone.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::store::Store;
use super::{
    IGNORED_FILE, IGNORED_TOTAL, IN_PROGRESS_LINE, LARGE_FILE, LEGACY_PREFIX, MAX_PARENTS,
    SPARSE_LINE, Snapshot, repo, run, start, text,
};

use super::fingerprint::{
    Seen, config_path, fingerprint, ref_lines_command, split_entry, status_entries,
};
use super::objects::{self, Format};

/// Copies the index at `from` to `to` (nothing when there is none) with
/// the original's modification time. git trusts an entry's recorded stat
/// only when the entry is older than the index file: a file rewritten at
/// the same size in the same second as the index was written is "racily
/// clean" and compared by content (git's racy-git.txt). A copy with a
/// newer time would make such a change look clean, and the snapshot keep
/// the old content. The time is read before the copy: an index replaced in
/// between is newer than that time, which only makes git compare more
/// files by content.
pub(super) fn copy_index(from: &Path, to: &Path) -> Result<()> {
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

/// What the newest snapshot was taken with, remembered in
/// the work tree's `last` in the store (one line, fields separated by spaces, `-` for
/// none): its name and fingerprint, then the parts a next snapshot reuses
/// when they have not changed: the index (known by the checksum git writes
/// at the end of the index file) as its `index.entries` blob and `index`
/// tree, the refs listing (known by its SHA-256) as its blob, and (after
/// `flags`) its `worktree` tree. Files written by the first version hold
/// only the name and the fingerprint.
pub(super) struct Last {
    name: String,
    print: String,
    parts: Parts,
    /// Its parts hold the index's flags (the eighth field, `flags`):
    /// those of an earlier version (untagged entries, a kept work-tree
    /// index with flagged entries in it) are not reused.
    flags: bool,
}

/// The reusable parts of a snapshot (see [`Last`]).
pub(super) struct Parts {
    index_key: String,
    entries: String,
    index_tree: String,
    refs_key: String,
    refs_blob: String,
    /// The snapshot's `worktree` tree: when the work tree's index kept in
    /// the store made it, the store holds every object that index names.
    work_tree: String,
}

impl Last {
    fn read(store: &Store) -> Self {
        let line = std::fs::read_to_string(last_path(store)).unwrap_or_default();
        let mut fields = line.split_whitespace().map(str::to_owned);
        let mut next = || fields.next().unwrap_or_else(|| "-".to_owned());
        let (name, print) = (next(), next());
        let (index_key, entries, index_tree, refs_key, refs_blob) =
            (next(), next(), next(), next(), next());
        let flags = next() == "flags";
        Self {
            name,
            print,
            parts: Parts {
                index_key,
                entries,
                index_tree,
                refs_key,
                refs_blob,
                work_tree: next(),
            },
            flags,
        }
    }

    fn line(&self) -> String {
        let p = &self.parts;
        format!(
            "{} {} {} {} {} {} {} flags {}\n",
            self.name,
            self.print,
            p.index_key,
            p.entries,
            p.index_tree,
            p.refs_key,
            p.refs_blob,
            p.work_tree
        )
    }
}

/// The state of a repository as git objects: the snapshot's tree, what it
/// did not copy, the commits to keep alive, and the parts the next
/// snapshot may reuse.
pub(super) struct State {
    tree: String,
    not_copied: Vec<String>,
    ignored_dirs: Vec<String>,
    tips: Vec<String>,
    parts: Parts,
    /// The store holds every object the tree names, by how it was made:
    /// the newest snapshot's index, refs and work-tree index were reused,
    /// and what changed was written into the store alone. Nothing is to be
    /// copied from the repository.
    closed: bool,
}

/// The checksum git writes at the end of the index file at `path` (the
/// last 32 bytes, which hold it for SHA-1 and SHA-256 repositories alike),
/// as hex with the file's length; `-` when there is no index or it has no
/// checksum (`index.skipHash`).
pub(super) fn index_key(path: &Path) -> String {
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
        Ok(Some(format!("{len}:{}", crate::input::text::hex(&tail))))
    };
    read().ok().flatten().unwrap_or_else(|| "-".to_owned())
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
pub(super) fn record_state(store: &Store, seen: &Seen, last: Option<&Parts>) -> Result<State> {
    let repo = repo(store)?;
    let root = &store.root;
    let format = Format::of(store).context("the repository is gone")?;
    let objects = store.dir.join("objects");
    // The refs, listed while the work tree is staged.
    let listing = start(&mut ref_lines_command(store))?;
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
            Ok(match &seen.flagged.entries {
                Some(e) if seen.flagged.key == index_key => e.clone(),
                _ => run(
                    store
                        .work(Some(&index))
                        .args(["ls-files", "-s", "-v", "-z"]),
                    None,
                )?,
            }),
            run(store.work(Some(&index)).args(["write-tree"]), None)
                .ok()
                .map(|b| text(&b)),
        ),
    };
    // Entries added with intent (`git add -N`) look like staged empty
    // files: tagged `I`, for undo to add them with intent again.
    let entries = entries.map(|e| tag_intent(&e, &seen.status));
    // The work tree.
    let mut not_copied = Vec::new();
    let mut ignored_dirs = Vec::new();
    let mut ignored_bytes = 0;
    let mut staged = Vec::new();
    for (kind, xy, path) in status_entries(&seen.status) {
        // As the fingerprint found it (read again only for a path it did
        // not list, which git never prints).
        let size = || match seen.sizes.get(path) {
            Some(size) => *size,
            None => std::fs::symlink_metadata(root.join(OsStr::from_bytes(path)))
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len()),
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
                    crate::measure::git::git_in(&root.join(OsStr::from_bytes(dir))).args([
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
    // The files `git status` does not look at (skip-worktree,
    // assume-unchanged) as they are on disk: read, or left out of the
    // work tree's tree where there is none (outside a sparse checkout).
    for path in &seen.flagged.paths {
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
    let kept_tree = (known.is_some() && kept.is_file())
        .then(|| std::fs::read(&kept_list).ok())
        .flatten()
        .and_then(|before| {
            // `<index key>\0<tree>\0<path>\0...`: made from this very index.
            let mut before = before.split(|b| *b == 0);
            let now: BTreeSet<&[u8]> = staged.split(|b| *b == 0).collect();
            let tree = (before.next() == Some(index_key.as_bytes()))
                .then(|| before.next())
                .flatten()
                .map(|t| String::from_utf8_lossy(t).into_owned())?;
            before.all(|p| now.contains(p)).then_some(tree)
        });
    let fast = kept_tree.is_some();
    // The kept index made the newest snapshot's work tree: every object
    // it names is in the store (the snapshot's, copied in when it was
    // written). Staged without the repository's objects, every object
    // that changed since is written into the store too, where git would
    // leave one the repository has where it is.
    let closed = kept_tree.is_some_and(|t| last.is_some_and(|l| l.work_tree == t));
    let staging = |c: &mut std::process::Command| {
        if closed {
            c.env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES");
        }
    };
    let work = if fast {
        let work = scratch.path().join("work");
        copy_index(&kept, &work)?;
        work
    } else {
        // git neither reads nor removes a flagged entry's file: the flags
        // go first, in this copy only (the kept copy has none left).
        let paths: Vec<u8> = seen
            .flagged
            .paths
            .iter()
            .flat_map(|p| p.iter().copied().chain([0]))
            .collect();
        if !paths.is_empty() {
            for flag in ["--no-assume-unchanged", "--no-skip-worktree"] {
                run(
                    store
                        .work(Some(&index))
                        .args(["update-index", "-z", flag, "--stdin"]),
                    Some(&paths),
                )?;
            }
        }
        index.clone()
    };
    let work_tree = match &index_tree {
        Some(tree) if staged.is_empty() && !fast => tree.clone(),
        _ => {
            if !staged.is_empty() {
                // Paths as given (no pathspec magic); deleted files leave
                // the index, and a file may replace a directory or the
                // other way round.
                let mut add = store.work(Some(&work));
                add.args([
                    "update-index",
                    "--add",
                    "--remove",
                    "--replace",
                    "-z",
                    "--stdin",
                ]);
                staging(&mut add);
                run(&mut add, Some(&staged))?;
            }
            // Staged into the store alone, its tree is made by vouch (the
            // trees git cached as they are, the others from the entries);
            // otherwise, or where vouch leaves the index to git, by git.
            let made = if closed {
                objects::index_tree(&work, &objects, format).ok().flatten()
            } else {
                None
            };
            let tree = if let Some(tree) = made {
                tree
            } else {
                let mut write = store.work(Some(&work));
                write.arg("write-tree");
                staging(&mut write);
                text(&run(&mut write, None)?)
            };
            // Kept for the next snapshot (same folder: a rename).
            std::fs::remove_file(&kept_list).ok();
            if index_key != "-" && std::fs::rename(&work, &kept).is_ok() {
                let mut record = index_key.as_bytes().to_vec();
                record.push(0);
                record.extend_from_slice(tree.as_bytes());
                record.push(0);
                record.extend_from_slice(&staged);
                crate::platform::files::write_atomic(&kept_list, &record, 0o600).ok();
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
    for line in String::from_utf8_lossy(&listing.finish()?).lines() {
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
        crate::input::text::hex(&sha2::Sha256::digest(refs.as_bytes()))
    };
    // The refs' blob, when it is the newest snapshot's.
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
    // The blobs not known already, and the snapshot's tree, written into
    // the store by vouch itself.
    let blob = |data: &[u8]| objects::write(&objects, format, "blob", data);
    let refs_closed = refs_known.is_some();
    let refs_blob = match refs_known {
        Some(id) => id,
        None => blob(refs.as_bytes())?,
    };
    let entries = match entries {
        Err(id) => id,
        Ok(e) => blob(&e)?,
    };
    let mut top = vec![
        ("100644", "refs".to_owned(), refs_blob.clone()),
        ("100644", "index.entries".to_owned(), entries.clone()),
        ("40000", "worktree".to_owned(), work_tree.clone()),
    ];
    if let Some(t) = &index_tree {
        top.push(("40000", "index".to_owned(), t.clone()));
    }
    if !progress.is_empty() {
        let ids = progress
            .iter()
            .map(|(_, data)| blob(data))
            .collect::<Result<Vec<String>>>()?;
        let files: Vec<(&str, &str)> = progress
            .iter()
            .zip(&ids)
            .map(|((name, _), id)| (name.as_str(), id.as_str()))
            .collect();
        let tree = objects::write_files(&objects, format, &files)?;
        top.push(("40000", "gitdir".to_owned(), tree));
    }
    // The repository's config (its remotes), to make `.git` again from.
    if let Ok(config) = std::fs::read(config_path(repo)) {
        top.push(("100644", "config".to_owned(), blob(&config)?));
    }
    let listed: Vec<objects::Entry<'_>> = top
        .iter()
        .map(|(mode, name, id)| objects::Entry {
            mode,
            name: name.as_bytes(),
            id,
        })
        .collect();
    let tree = objects::write(&objects, format, "tree", &objects::tree(format, &listed)?)?;
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
            work_tree,
        },
        closed: closed && refs_closed,
    })
}

/// `entries` (`git ls-files -s -v -z`) with the tag of each entry `git
/// status` (`status`) shows as added with intent (`.A`) made `I`.
fn tag_intent(entries: &[u8], status: &[u8]) -> Vec<u8> {
    let intent: BTreeSet<&[u8]> = status_entries(status)
        .into_iter()
        .filter(|(kind, xy, _)| *kind == b'1' && xy == b".A")
        .map(|(_, _, path)| path)
        .collect();
    if intent.is_empty() {
        return entries.to_vec();
    }
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let (tag, rest) = split_entry(entry);
        let path = rest
            .iter()
            .position(|b| *b == b'\t')
            .map_or(&rest[..0], |tab| &rest[tab + 1..]);
        if tag.is_some() && intent.contains(path) {
            out.extend_from_slice(b"I ");
            out.extend_from_slice(rest);
        } else {
            out.extend_from_slice(entry);
        }
        out.push(0);
    }
    out
}

/// Whether the store holds the ref `name` (read from its files: the store
/// is vouch's, always in the files format).
pub(super) fn exists(store: &Store, name: &str) -> bool {
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

/// Takes the work tree's snapshot lock (`lock` in its folder of the
/// store), waiting up to 10 s for another snapshot to finish; held until
/// the file returned is dropped.
pub(super) fn lock(store: &Store) -> Result<std::fs::File> {
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
pub(super) fn last_path(store: &Store) -> PathBuf {
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
    let reuse = (last_exists && last.flags).then_some(&last.parts);
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
    message.push_str(SPARSE_LINE);
    message.push('\n');
    // The commit, written into the store by vouch itself (vouch as author
    // and committer, no signature whatever the user's configuration).
    let format = Format::of(store).context("the repository is gone")?;
    let id = objects::write(
        &store.dir.join("objects"),
        format,
        "commit",
        &objects::commit(&state.tree, &state.tips, now.as_second(), &message),
    )?;
    // Everything it needs, in the store before its ref names it (nothing
    // to copy when the state was written into the store alone).
    // The newest snapshot and its tree: what both hold is walked no
    // further (an untracked file unchanged since is not listed again).
    if !state.closed {
        let last_tree = format!("{}^{{tree}}", last.name);
        let have: Vec<&str> = if last_exists {
            vec![last.name.as_str(), last_tree.as_str()]
        } else {
            Vec::new()
        };
        store.keep(&[&id], &have)?;
    }
    let prefix = store.prefix();
    let mut name = format!("{prefix}{stamp}");
    let mut n = 1;
    // Create only: two agents at once take turns for a name.
    loop {
        let made = objects::create_ref(&store.dir, &name, &id);
        if matches!(made, Ok(true)) {
            break;
        }
        n += 1;
        if n > 20 {
            return Err(made.err().unwrap_or_else(|| anyhow::anyhow!("it exists")))
                .with_context(|| format!("cannot write the snapshot ref `{name}`"));
        }
        name = format!("{prefix}{stamp}-{n}");
    }
    let remembered = Last {
        name: name.clone(),
        print,
        parts: state.parts,
        flags: true,
    };
    crate::platform::files::write_atomic(&last_path(store), remembered.line().as_bytes(), 0o600)
        .ok();
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
        sparse_kept: true,
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
pub(super) fn checked_path(store: &Store) -> PathBuf {
    store.folder().join("checked")
}

/// Whether a post-tool hook has said what the command after `snapshot`
/// did.
pub fn checked(store: &Store, snapshot: &Snapshot) -> bool {
    std::fs::read_to_string(checked_path(store)).is_ok_and(|t| t.trim() == snapshot.name)
}

/// Whether the door has nothing to do after the snapshot `taken` (of the
/// work tree of `store`) that needs the snapshots' listing: what the
/// command before it did was said already by the agent's post-tool hook
/// (the snapshot before `taken` is the one checked, so [`lost_before`]
/// finds nothing to compare), and retention would let none go (at most
/// `keep` snapshots, or every one past the newest `keep` taken within
/// `days` of `now`, by the time its name holds, with an hour to spare).
/// Read from the store's ref files (vouch's own store, always in the
/// files format), without a process; `false` whenever they cannot be read
/// so, and the listing decides.
///
/// [`lost_before`]: super::lost_before
pub fn settled(
    store: &Store,
    taken: &Snapshot,
    keep: usize,
    days: u32,
    now: jiff::Timestamp,
) -> bool {
    let Some(names) = names(store) else {
        return false;
    };
    // No snapshot before: nothing to compare.
    let said = names
        .iter()
        .find(|n| **n != taken.name)
        .is_none_or(|previous| {
            std::fs::read_to_string(checked_path(store)).is_ok_and(|t| t.trim() == previous)
        });
    let cutoff = now - jiff::SignedDuration::from_hours(24 * i64::from(days) - 1);
    let young = |name: &String| {
        let stamp = name.rsplit('/').next().unwrap_or(name);
        let stamp = stamp.get(..15).unwrap_or_default();
        jiff::civil::DateTime::strptime("%Y%m%dT%H%M%S", stamp)
            .and_then(|t| t.to_zoned(jiff::tz::TimeZone::UTC))
            .is_ok_and(|t| t.timestamp() >= cutoff)
    };
    said && names.iter().skip(keep).all(young)
}

/// The names of the snapshots of the work tree of `store`, newest first,
/// as [`list`] names them, read from the store's loose refs and
/// `packed-refs`; `None` when there is a folder among them, or they
/// cannot be read.
fn names(store: &Store) -> Option<Vec<String>> {
    let prefix = store.prefix();
    let mut names = BTreeSet::new();
    match std::fs::read_dir(store.dir.join(&prefix)) {
        Ok(entries) => {
            for entry in entries {
                let entry = entry.ok()?;
                if !entry.file_type().ok()?.is_file() {
                    return None;
                }
                let name = entry.file_name().into_string().ok()?;
                // A ref being written (git's lock, or vouch's).
                if Path::new(&name).extension().is_none_or(|e| e != "lock") {
                    names.insert(format!("{prefix}{name}"));
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return None,
    }
    match std::fs::read_to_string(store.dir.join("packed-refs")) {
        Ok(packed) => names.extend(
            packed
                .lines()
                .filter_map(|l| l.split_once(' ').map(|(_, n)| n))
                .filter(|n| n.starts_with(&prefix))
                .map(str::to_owned),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return None,
    }
    Some(names.into_iter().rev().collect())
}

/// Remembers that a post-tool hook said what the command after
/// `snapshot` did.
pub fn mark_checked(store: &Store, snapshot: &Snapshot) {
    crate::platform::files::write_atomic(
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
        crate::measure::git::git_in(&store.root).args([
            "for-each-ref",
            "--format=%(refname)",
            LEGACY_PREFIX,
        ]),
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
            crate::measure::git::git_in(&store.root)
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
pub(super) fn tree_of(name: &str) -> &str {
    name.strip_prefix(super::store::PREFIX)
        .and_then(|rest| rest.split_once('/'))
        .map_or("main", |(tree, _)| tree)
}

/// The snapshots whose refs match `pattern` in the store, newest first.
pub(super) fn listed(store: &Store, pattern: &str) -> Result<Vec<Snapshot>> {
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
            sparse_kept: body.lines().any(|l| l == SPARSE_LINE),
        });
    }
    Ok(snapshots)
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
    retain_among(store, &list(store)?, keep, days, now)
}

/// [`retain`] of `all`, the work tree's snapshots as [`list`] gave them.
pub fn retain_among(
    store: &Store,
    all: &[Snapshot],
    keep: usize,
    days: u32,
    now: jiff::Timestamp,
) -> Result<usize> {
    if all.len() <= keep {
        return Ok(0);
    }
    let old = expired(all, keep, days, now);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A store of the work tree `main` in `dir`, with no repository.
    fn bare_store(dir: &Path) -> Store {
        Store {
            dir: dir.to_owned(),
            tree: "main".into(),
            root: dir.to_owned(),
            repo: None,
        }
    }

    #[test]
    fn parts_an_earlier_version_remembered_are_not_reused() {
        let dir = tempfile::tempdir().unwrap();
        let store = bare_store(dir.path());
        std::fs::create_dir_all(store.folder()).unwrap();
        let old = "refs/snapshots/main/1 print key entries tree refs blob\n";
        std::fs::write(last_path(&store), old).unwrap();
        let last = Last::read(&store);
        assert!(!last.flags);
        assert_eq!(last.parts.entries, "entries");
        std::fs::write(last_path(&store), last.line()).unwrap();
        let again = Last::read(&store);
        assert!(again.flags);
        assert_eq!(again.line(), last.line());
    }

    /// The listing is left out only when the names of the refs tell that
    /// neither the loss before nor retention has anything to do.
    #[test]
    fn a_snapshot_is_settled_only_when_the_names_tell_so() {
        let dir = tempfile::tempdir().unwrap();
        let store = bare_store(dir.path());
        let refs = dir.path().join("refs/snapshots/main");
        std::fs::create_dir_all(&refs).unwrap();
        std::fs::create_dir_all(store.folder()).unwrap();
        let now: jiff::Timestamp = "2026-11-28T12:00:00Z".parse().unwrap();
        let taken = |name: &str| Snapshot {
            name: format!("refs/snapshots/main/{name}"),
            id: String::new(),
            time: String::new(),
            agent: "claude".into(),
            command: String::new(),
            not_copied: Vec::new(),
            ignored_dirs: Vec::new(),
            worktree: "main".into(),
            state: String::new(),
            in_progress_kept: true,
            sparse_kept: true,
        };
        let new = taken("20261128T115900.000001Z");
        std::fs::write(refs.join("20261128T115900.000001Z"), "1\n").unwrap();
        // The first snapshot: nothing before it.
        assert!(settled(&store, &new, 100, 14, now));
        // One before, not checked by a post-tool hook: its loss is to be found.
        std::fs::write(refs.join("20261128T115000.000001Z"), "1\n").unwrap();
        std::fs::write(refs.join("20261128T115000.000001Z.lock"), "1\n").unwrap();
        assert!(!settled(&store, &new, 100, 14, now));
        std::fs::write(
            checked_path(&store),
            "refs/snapshots/main/20261128T115000.000001Z\n",
        )
        .unwrap();
        assert!(settled(&store, &new, 100, 14, now));
        // Past `keep`, an old one (packed) is retention's to let go.
        std::fs::write(
            dir.path().join("packed-refs"),
            "# pack-refs with: peeled fully-peeled sorted\n1 refs/snapshots/main/20261101T000000.000001Z\n",
        )
        .unwrap();
        assert_eq!(names(&store).unwrap().len(), 3);
        assert!(settled(&store, &new, 3, 14, now));
        assert!(!settled(&store, &new, 2, 14, now));
        assert!(settled(&store, &new, 2, 30, now));
        // A name that holds no time, or a folder: the listing decides.
        std::fs::write(refs.join("someday"), "1\n").unwrap();
        assert!(!settled(&store, &new, 2, 30, now));
        std::fs::remove_file(refs.join("someday")).unwrap();
        std::fs::create_dir(refs.join("20261128T115959.000001Z")).unwrap();
        assert!(names(&store).is_none());
        assert!(!settled(&store, &new, 100, 14, now));
    }
}
