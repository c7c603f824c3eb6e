//! The fingerprint (issue 36 item 5): what changes when anything a
//! snapshot holds changes, read without copying a file: `git status`
//! (ignored directories named, not walked), the stat of every file it
//! lists, the refs, `HEAD`, the stash's reflog, the config and an
//! operation in progress.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::store::{Located, Store};
use super::{in_progress, repo, run};

/// What the fingerprint read, for the snapshot to use: `git status`'s
/// entries, `HEAD` (`ref:
/// <name>`, or an id when detached), and the files of a merge or rebase
/// in progress ([`in_progress`]).
pub(super) struct Seen {
    pub(super) status: Vec<u8>,
    pub(super) head: Option<String>,
    pub(super) in_progress: Vec<(String, PathBuf)>,
    /// The size of each file `git status` listed, as the fingerprint read
    /// it (`None`: not a file, or gone): the snapshot decides what it
    /// copies by the stat the fingerprint holds, without reading it again.
    pub(super) sizes: std::collections::HashMap<Vec<u8>, Option<u64>>,
    /// The index entries whose files `git status` does not look at
    /// ([`Flagged`]).
    pub(super) flagged: Flagged,
}

/// The index entries `git status` leaves out: skip-worktree ones (a
/// sparse checkout's, or set by hand) and assume-unchanged ones, whose
/// files a snapshot reads itself. Read with `git ls-files -s -v` once per
/// index ([`super::write::index_key`]), and remembered in the work tree's
/// folder of the store (`flagged`: `<index key>\0<path>\0...`).
pub(super) struct Flagged {
    /// The index they were read from.
    pub(super) key: String,
    /// Their paths.
    pub(super) paths: Vec<Vec<u8>>,
    /// `git ls-files -s -v -z`, when it was run for them: the snapshot's
    /// `index.entries` of the same index.
    pub(super) entries: Option<Vec<u8>>,
}

/// One entry of `git ls-files -s -z`, or of `-s -v -z` (a tag letter and
/// a space first: `S` skip-worktree, lower case assume-unchanged, and
/// vouch's own `I` for intent-to-add): its tag, and the rest as
/// `update-index --index-info` reads it.
pub(super) fn split_entry(entry: &[u8]) -> (Option<u8>, &[u8]) {
    match entry {
        [tag, b' ', rest @ ..] if tag.is_ascii_alphabetic() => (Some(*tag), rest),
        _ => (None, entry),
    }
}

/// Whether an entry's tag marks a file `git status` does not look at.
pub(super) fn is_flagged(tag: u8) -> bool {
    tag == b'S' || tag.is_ascii_lowercase()
}

/// The [`Flagged`] entries of the index at `index` of `store`'s work tree.
fn flagged(store: &Store, index: &std::path::Path) -> Result<Flagged> {
    let key = super::write::index_key(index);
    let cache = store.folder().join("flagged");
    if key != "-"
        && let Ok(known) = std::fs::read(&cache)
    {
        let mut fields = known.split(|b| *b == 0);
        if fields.next() == Some(key.as_bytes()) {
            return Ok(Flagged {
                key,
                paths: fields
                    .filter(|p| !p.is_empty())
                    .map(<[u8]>::to_vec)
                    .collect(),
                entries: None,
            });
        }
    }
    let entries = run(store.work(None).args(["ls-files", "-s", "-v", "-z"]), None)?;
    let paths: Vec<Vec<u8>> = entries
        .split(|b| *b == 0)
        .filter_map(|e| match split_entry(e) {
            (Some(tag), rest) if is_flagged(tag) => {
                let tab = rest.iter().position(|b| *b == b'\t')?;
                Some(rest[tab + 1..].to_vec())
            }
            _ => None,
        })
        .collect();
    // Remembered only when the index did not change while it was read.
    if key != "-" && super::write::index_key(index) == key {
        let mut record = key.as_bytes().to_vec();
        for p in &paths {
            record.push(0);
            record.extend_from_slice(p);
        }
        crate::platform::files::write_atomic(&cache, &record, 0o600).ok();
    }
    Ok(Flagged {
        key,
        paths,
        entries: Some(entries),
    })
}

/// The kind and path of one entry of `git status --porcelain=v2 -z`
/// (`1`, `2`, `u`, `?`, `!`; `None` for headers). The path is the last
/// field, after a fixed number of others, and may hold spaces.
pub(super) fn status_entry(entry: &[u8]) -> Option<(u8, &[u8])> {
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
pub(super) fn status_entries(status: &[u8]) -> Vec<(u8, [u8; 2], &[u8])> {
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

/// The one listing of the refs a snapshot holds (branches, tags, the
/// stash, a bisect's marks): `<oid> <name> <type> <peeled oid> <peeled type>` a line, the
/// peeled fields empty but for annotated tags.
pub(super) fn ref_lines(store: &Store) -> Result<String> {
    Ok(String::from_utf8_lossy(&run(&mut ref_lines_command(store), None)?).into_owned())
}

/// The git command that lists [`ref_lines`].
pub(super) fn ref_lines_command(store: &Store) -> std::process::Command {
    let mut c = store.work(None);
    c.args([
        "for-each-ref",
        "--format=%(objectname) %(refname) %(objecttype) %(*objectname) %(*objecttype)",
        "refs/heads",
        "refs/tags",
        "refs/stash",
        "refs/bisect",
    ]);
    c
}

/// Each file and folder that holds the refs a snapshot keeps
/// ([`ref_lines`]), with its stat, for the fingerprint: `packed-refs`, the
/// loose refs and their folders (a ref written in place changes its
/// file; one created, deleted or replaced, its folder), and a reftable's
/// tables. A bisect's marks are the work tree's own.
fn ref_files(repo: &Located, seen: &mut dyn FnMut(&Path, &std::fs::Metadata)) {
    fn walk(dir: &Path, depth: usize, seen: &mut dyn FnMut(&Path, &std::fs::Metadata)) {
        let Ok(meta) = std::fs::symlink_metadata(dir) else {
            return;
        };
        seen(dir, &meta);
        if !meta.is_dir() || depth > 64 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            walk(&path, depth + 1, seen);
        }
    }
    for file in ["packed-refs", "reftable/tables.list", "reftable"] {
        if let Ok(m) = std::fs::symlink_metadata(repo.common.join(file)) {
            seen(&repo.common.join(file), &m);
        }
    }
    for dir in ["refs/heads", "refs/tags", "refs/stash"] {
        walk(&repo.common.join(dir), 0, seen);
    }
    walk(&repo.git_dir.join("refs/bisect"), 0, seen);
}

/// The files git keeps in the git directory that a snapshot keeps and the
/// fingerprint watches, with the in-progress ones: the repository's
/// `config` (read back only to make `.git` again).
pub(super) fn config_path(repo: &Located) -> PathBuf {
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
pub(super) fn fingerprint(store: &Store) -> Result<(String, Seen)> {
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
    let mut sizes = std::collections::HashMap::new();
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
        let meta = std::fs::symlink_metadata(root.join(OsStr::from_bytes(path)));
        if let Ok(m) = &meta {
            hash.update(stat(m));
        }
        sizes.insert(
            path.to_vec(),
            meta.ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len()),
        );
    }
    // The files `git status` does not look at: there or not, and their
    // stat.
    let flagged = flagged(store, &repo.git_dir.join("index"))?;
    for path in &flagged.paths {
        hash.update(path);
        match std::fs::symlink_metadata(root.join(OsStr::from_bytes(path))) {
            Ok(m) => hash.update(stat(&m)),
            Err(_) => hash.update(b"absent\n"),
        }
    }
    // The refs, by the stat of the files that hold them (no process).
    ref_files(repo, &mut |path, m| {
        hash.update(path.as_os_str().as_bytes());
        hash.update(stat(m));
    });
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
        crate::input::text::hex(&hash.finalize()),
        Seen {
            status,
            head,
            in_progress,
            sizes,
            flagged,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_read_with_and_without_their_tag() {
        let id = "100644 d00491fd7e5bb6fa28c517a0bb32b8b506539d4d 0\tdir/a b";
        assert_eq!(split_entry(id.as_bytes()), (None, id.as_bytes()));
        for tag in [b'S', b'h', b's', b'I', b'H'] {
            let mut tagged = vec![tag, b' '];
            tagged.extend_from_slice(id.as_bytes());
            assert_eq!(split_entry(&tagged), (Some(tag), id.as_bytes()));
        }
        assert!(is_flagged(b'S') && is_flagged(b'h') && is_flagged(b's'));
        assert!(!is_flagged(b'H') && !is_flagged(b'I'));
    }

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
}
