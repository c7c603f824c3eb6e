//! Git objects and refs written by vouch itself into its store (issue 36
//! item 5): a snapshot's own blobs (`refs`, `index.entries`, `config`, the
//! files of an operation in progress), its trees and its commit, as loose
//! objects, and its ref, as a loose ref taken with git's own lock, where
//! four git processes (`hash-object`, `mktree`, `commit-tree`,
//! `update-ref`) did it before. The store is vouch's own: always the files
//! format, in the repository's object format, SHA-1 or SHA-256. The bytes
//! are git's (`git cat-file -p` reads them back; `git fsck` finds them
//! whole).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::store::Store;

/// The object format of a store: how its ids are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Sha1,
    Sha256,
}

impl Format {
    /// The format of the store of `store`'s repository, as the store was
    /// made (`Store::create`: SHA-256 for a SHA-256 repository, SHA-1
    /// otherwise); `None` once its `.git` is gone.
    pub(super) fn of(store: &Store) -> Option<Self> {
        Some(if store.repo.as_ref()?.format == "sha256" {
            Self::Sha256
        } else {
            Self::Sha1
        })
    }

    fn digest(self, parts: &[&[u8]]) -> Vec<u8> {
        use sha1::Digest as _;
        match self {
            Self::Sha1 => {
                let mut h = sha1::Sha1::new();
                for p in parts {
                    h.update(p);
                }
                h.finalize().to_vec()
            }
            Self::Sha256 => {
                let mut h = sha2::Sha256::new();
                for p in parts {
                    h.update(p);
                }
                h.finalize().to_vec()
            }
        }
    }

    fn hex_len(self) -> usize {
        match self {
            Self::Sha1 => 40,
            Self::Sha256 => 64,
        }
    }
}

/// Writes the object of `kind` holding `data` into the objects directory
/// `objects` as a loose object (zlib, as git writes them: a temporary file
/// beside it, then a link that never replaces one already there); its id.
/// One already there as a loose object is left as it is.
pub(super) fn write(objects: &Path, format: Format, kind: &str, data: &[u8]) -> Result<String> {
    let header = format!("{kind} {}\0", data.len());
    let id = crate::input::text::hex(&format.digest(&[header.as_bytes(), data]));
    let (fan, rest) = id.split_at(2);
    let dir = objects.join(fan);
    let path = dir.join(rest);
    if path.is_file() {
        return Ok(id);
    }
    let mut whole = Vec::with_capacity(header.len() + data.len());
    whole.extend_from_slice(header.as_bytes());
    whole.extend_from_slice(data);
    // git's own default for loose objects (`core.looseCompression` 1).
    let packed = miniz_oxide::deflate::compress_to_vec_zlib(&whole, 1);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
    // `tmp_obj_`: the name git gives its own, which `git gc` clears away
    // when a writer died half way.
    let mut file = tempfile::Builder::new()
        .prefix("tmp_obj_")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o444))
        .tempfile_in(&dir)
        .with_context(|| format!("cannot write an object in `{}`", dir.display()))?;
    file.write_all(&packed)
        .with_context(|| format!("cannot write an object in `{}`", dir.display()))?;
    match file.persist_noclobber(&path) {
        Ok(_) => {}
        // Written meanwhile (the same bytes, by their id).
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(e.error).with_context(|| format!("cannot write `{}`", path.display()));
        }
    }
    Ok(id)
}

/// One entry of a tree: its mode as git writes it (`100644`, `100755`,
/// `120000`, `160000`, `40000` for a tree), its name (one path component)
/// and its object's id (hex).
pub(super) struct Entry<'a> {
    pub(super) mode: &'a str,
    pub(super) name: &'a [u8],
    pub(super) id: &'a str,
}

/// The bytes of the tree object holding `entries`, in git's order (names
/// compared as bytes, a tree's as if it ended with `/`). An error when an
/// id is not one of `format`'s, or a name is not one component.
pub(super) fn tree(format: Format, entries: &[Entry<'_>]) -> Result<Vec<u8>> {
    let key = |e: &Entry<'_>| {
        let mut k = e.name.to_vec();
        if e.mode == "40000" {
            k.push(b'/');
        }
        k
    };
    let mut sorted: Vec<(Vec<u8>, &Entry<'_>)> = entries.iter().map(|e| (key(e), e)).collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = Vec::new();
    for (_, e) in sorted {
        if e.name.is_empty() || e.name.contains(&b'/') || e.name.contains(&0) {
            bail!(
                "`{}` is not a name in a tree",
                String::from_utf8_lossy(e.name)
            );
        }
        let raw = crate::input::text::unhex(e.id)
            .filter(|_| e.id.len() == format.hex_len())
            .with_context(|| format!("`{}` is not an object id", e.id))?;
        out.extend_from_slice(e.mode.as_bytes());
        out.push(b' ');
        out.extend_from_slice(e.name);
        out.push(0);
        out.extend_from_slice(&raw);
    }
    Ok(out)
}

/// Writes the trees that hold the blobs `files` (`(path, id)`, paths of
/// one or more components, `/` between them, mode 100644) into `objects`;
/// the top tree's id.
pub(super) fn write_files(
    objects: &Path,
    format: Format,
    files: &[(&str, &str)],
) -> Result<String> {
    let mut below: std::collections::BTreeMap<&str, Vec<(&str, &str)>> =
        std::collections::BTreeMap::new();
    for (path, id) in files {
        if let Some((dir, rest)) = path.split_once('/') {
            below.entry(dir).or_default().push((rest, id));
        }
    }
    let mut entries: Vec<(&str, &[u8], String)> = files
        .iter()
        .filter(|(p, _)| !p.contains('/'))
        .map(|(p, id)| ("100644", p.as_bytes(), (*id).to_owned()))
        .collect();
    for (dir, inner) in &below {
        let sub = write_files(objects, format, inner)?;
        entries.push(("40000", dir.as_bytes(), sub));
    }
    let listed: Vec<Entry<'_>> = entries
        .iter()
        .map(|(mode, name, id)| Entry {
            mode,
            name,
            id: id.as_str(),
        })
        .collect();
    write(objects, format, "tree", &tree(format, &listed)?)
}

/// The bytes of a snapshot's commit: `tree`, `parents`, vouch as author
/// and committer at `seconds` (UTC), then `message`.
pub(super) fn commit(tree: &str, parents: &[String], seconds: i64, message: &str) -> Vec<u8> {
    let mut out = format!("tree {tree}\n");
    for p in parents {
        out.push_str(&format!("parent {p}\n"));
    }
    out.push_str(&format!(
        "author vouch <vouch@localhost> {seconds} +0000\ncommitter vouch <vouch@localhost> {seconds} +0000\n\n{message}"
    ));
    out.into_bytes()
}

/// Creates the ref `name` of the store's repository at `dir` (files
/// format) pointing at `id`, as `git update-ref <name> <id> ""` does: only
/// when there is no such ref yet, loose or packed, under git's own lock
/// (`<name>.lock`, made exclusively), written whole before it is renamed
/// into place. `Ok(false)` when the ref exists or is being written.
pub(super) fn create_ref(dir: &Path, name: &str, id: &str) -> Result<bool> {
    let path: PathBuf = dir.join(name);
    let parent = path.parent().context("a ref has a folder")?;
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create `{}`", parent.display()))?;
    let mut lock_path = path.clone().into_os_string();
    lock_path.push(".lock");
    let lock_path = PathBuf::from(lock_path);
    let mut lock = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lock_path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) => {
            return Err(e).with_context(|| format!("cannot write `{}`", lock_path.display()));
        }
    };
    let written = (|| -> Result<bool> {
        if std::fs::symlink_metadata(&path).is_ok() || packed(dir, name) {
            return Ok(false);
        }
        lock.write_all(format!("{id}\n").as_bytes())?;
        lock.sync_all()?;
        std::fs::rename(&lock_path, &path)?;
        Ok(true)
    })();
    if !matches!(written, Ok(true)) {
        std::fs::remove_file(&lock_path).ok();
    }
    written.with_context(|| format!("cannot write the ref `{name}`"))
}

/// Whether the `packed-refs` of the repository at `dir` names `name`.
fn packed(dir: &Path, name: &str) -> bool {
    std::fs::read_to_string(dir.join("packed-refs")).is_ok_and(|packed| {
        packed
            .lines()
            .any(|l| l.split_once(' ').is_some_and(|(_, n)| n == name))
    })
}

/// The tree of the index at `path` (as `git write-tree` writes it), made
/// by vouch: the trees git's cache of them holds (the index's `TREE`
/// extension) as they are, the others made from the entries and written
/// into `objects`. `None` when the index holds what this reader leaves to
/// git: a version other than 2 or 3, an entry in conflict, added with
/// intent or outside a sparse checkout's cone, a sparse directory, a split
/// index, or an extension git requires to be understood.
///
/// Only for an index whose valid cached trees and entries' objects the
/// store holds already (a work-tree index kept in the store, staged into
/// the store alone): nothing checks that here.
pub(super) fn index_tree(path: &Path, objects: &Path, format: Format) -> Result<Option<String>> {
    let data = std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    let Some(index) = Index::read(&data, format) else {
        return Ok(None);
    };
    let entries: Vec<(&[u8], &str, &[u8])> = index
        .entries
        .iter()
        .map(|e| (e.path, e.mode, e.id))
        .collect();
    Ok(Some(index_dir(
        &entries,
        b"",
        &index.cached,
        objects,
        format,
    )?))
}

/// One entry of an index: its path, mode (as a tree writes it) and id.
struct IndexEntry<'a> {
    path: &'a [u8],
    mode: &'static str,
    id: &'a [u8],
}

/// An index as [`index_tree`] reads it: its entries, in order, and the
/// trees its cache holds valid, by folder (`""` for the top).
struct Index<'a> {
    entries: Vec<IndexEntry<'a>>,
    cached: std::collections::HashMap<Vec<u8>, String>,
}

impl<'a> Index<'a> {
    fn read(data: &'a [u8], format: Format) -> Option<Self> {
        let hash = format.hex_len() / 2;
        let u32_at = |at: usize| -> Option<usize> {
            usize::try_from(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?)).ok()
        };
        if data.get(..4)? != b"DIRC" {
            return None;
        }
        let version = u32_at(4)?;
        if version != 2 && version != 3 {
            return None;
        }
        let count = u32_at(8)?;
        // The checksum (zeros with `index.skipHash`) ends the file.
        let end = data.len().checked_sub(hash)?;
        let mut at = 12;
        let mut entries = Vec::with_capacity(count);
        for _ in 0..count {
            // ctime, mtime, dev and ino (24 bytes), the mode, uid, gid and
            // size (16), the id, the flags (2), the path.
            let mode = u32_at(at + 24)?;
            let id = data.get(at + 40..at + 40 + hash)?;
            let flags = data.get(at + 40 + hash..at + 42 + hash)?;
            // Extended flags (intent-to-add, skip-worktree), or a stage
            // (a conflict): left to git.
            if flags[0] & 0x40 != 0 || flags[0] & 0x30 != 0 {
                return None;
            }
            let name_at = at + 42 + hash;
            let len = data.get(name_at..end)?.iter().position(|b| *b == 0)?;
            let path = &data[name_at..name_at + len];
            let mode = match mode {
                0o100_644 => "100644",
                0o100_755 => "100755",
                0o120_000 => "120000",
                0o160_000 => "160000",
                // A sparse directory, or a mode git never writes.
                _ => return None,
            };
            if path.is_empty()
                || path.starts_with(b"/")
                || path.ends_with(b"/")
                || path.windows(2).any(|w| w == b"//")
            {
                return None;
            }
            entries.push(IndexEntry { path, mode, id });
            // Padded with 1 to 8 NULs to a multiple of 8 bytes.
            at += (42 + hash + len + 8) & !7;
        }
        let mut cached = std::collections::HashMap::new();
        while at < end {
            let signature = data.get(at..at + 4)?;
            let size = u32_at(at + 4)?;
            let ext = data.get(at + 8..(at + 8).checked_add(size)?)?;
            if signature == b"TREE" {
                let mut rest = ext;
                cache_tree(&mut rest, b"", hash, &mut cached)?;
            } else if signature[0].is_ascii_lowercase() {
                // One git requires to be understood (`link`: a split
                // index; `sdir`: a sparse one).
                return None;
            }
            at += 8 + size;
        }
        (at == end).then_some(Self { entries, cached })
    }
}

/// Reads one node of an index's cache of trees (its `TREE` extension:
/// `<name>\0<entries> <subtrees>\n<id>`, the id only when it is valid,
/// then its subtrees) from `rest`, recording each valid tree by its folder.
fn cache_tree(
    rest: &mut &[u8],
    parent: &[u8],
    hash: usize,
    cached: &mut std::collections::HashMap<Vec<u8>, String>,
) -> Option<()> {
    let nul = rest.iter().position(|b| *b == 0)?;
    let name = &rest[..nul];
    let folder = if parent.is_empty() {
        name.to_vec()
    } else {
        [parent, b"/", name].concat()
    };
    let line_end = rest.iter().position(|b| *b == b'\n')?;
    let counts = std::str::from_utf8(rest.get(nul + 1..line_end)?).ok()?;
    let (entries, subtrees) = counts.split_once(' ')?;
    let entries: i64 = entries.parse().ok()?;
    let subtrees: usize = subtrees.parse().ok()?;
    *rest = &rest[line_end + 1..];
    if entries >= 0 {
        let id = rest.get(..hash)?;
        cached.insert(folder.clone(), crate::input::text::hex(id));
        *rest = &rest[hash..];
    }
    for _ in 0..subtrees {
        cache_tree(rest, &folder, hash, cached)?;
    }
    Some(())
}

/// The tree of the folder `folder` (`""`: the top) holding `entries` (an
/// index's, in its order, each path under `folder`): the cached one when
/// it is valid, else made of its files and subfolders' trees and written.
fn index_dir(
    entries: &[(&[u8], &str, &[u8])],
    folder: &[u8],
    cached: &std::collections::HashMap<Vec<u8>, String>,
    objects: &Path,
    format: Format,
) -> Result<String> {
    if let Some(id) = cached.get(folder) {
        return Ok(id.clone());
    }
    let skip = if folder.is_empty() {
        0
    } else {
        folder.len() + 1
    };
    let mut listed: Vec<(&str, &[u8], String)> = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let (path, mode, id) = &entries[i];
        let rest = &path[skip..];
        match rest.iter().position(|b| *b == b'/') {
            // Its id as hex only here: most entries are in cached trees.
            None => {
                listed.push((mode, rest, crate::input::text::hex(id)));
                i += 1;
            }
            Some(slash) => {
                let name = &rest[..slash];
                let inner = &path[..skip + slash];
                // Its entries follow one another: the index is sorted.
                let n = entries[i..]
                    .iter()
                    .take_while(|(p, _, _)| {
                        p.len() > inner.len() && p.starts_with(inner) && p[inner.len()] == b'/'
                    })
                    .count();
                let sub = index_dir(&entries[i..i + n], inner, cached, objects, format)?;
                listed.push(("40000", name, sub));
                i += n;
            }
        }
    }
    let mut names = std::collections::HashSet::new();
    if !listed.iter().all(|(_, name, _)| names.insert(*name)) {
        bail!("a name is twice in a folder of the index");
    }
    let tree_entries: Vec<Entry<'_>> = listed
        .iter()
        .map(|(mode, name, id)| Entry { mode, name, id })
        .collect();
    write(objects, format, "tree", &tree(format, &tree_entries)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Vec<u8> {
        let mut c = std::process::Command::new("git");
        c.env("GIT_DIR", dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args(args);
        super::super::run(&mut c, input).unwrap()
    }

    fn bare(format: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let out = std::process::Command::new("git")
            .args(["init", "-q", "--bare"])
            .arg(format!("--object-format={format}"))
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        dir
    }

    /// What vouch writes is what git writes for the same content: the
    /// same ids, and objects git reads back and `fsck` finds whole.
    #[test]
    fn objects_and_refs_are_the_ones_git_writes() {
        for (name, format) in [("sha1", Format::Sha1), ("sha256", Format::Sha256)] {
            let dir = bare(name);
            let objects = dir.path().join("objects");
            let text = |b: Vec<u8>| String::from_utf8(b).unwrap().trim().to_owned();
            let data = b"line one\nline two\n";
            let blob = write(&objects, format, "blob", data).unwrap();
            assert_eq!(
                blob,
                text(git(dir.path(), &["hash-object", "--stdin"], Some(data)))
            );
            let empty = write(&objects, format, "blob", b"").unwrap();
            // `index` (a tree) sorts after `index.entries`, as git sorts.
            let inner = write_files(
                &objects,
                format,
                &[("x", &blob), ("rebase-merge/done", &empty)],
            )
            .unwrap();
            let listing = format!(
                "100644 blob {blob}\tindex.entries\n040000 tree {inner}\tindex\n100644 blob {empty}\tconfig\n"
            );
            let bytes = tree(
                format,
                &[
                    Entry {
                        mode: "100644",
                        name: b"index.entries",
                        id: &blob,
                    },
                    Entry {
                        mode: "40000",
                        name: b"index",
                        id: &inner,
                    },
                    Entry {
                        mode: "100644",
                        name: b"config",
                        id: &empty,
                    },
                ],
            )
            .unwrap();
            let top = write(&objects, format, "tree", &bytes).unwrap();
            assert_eq!(
                top,
                text(git(dir.path(), &["mktree"], Some(listing.as_bytes())))
            );
            let shown = text(git(dir.path(), &["ls-tree", "-r", &top], None));
            assert!(shown.contains("index/rebase-merge/done"), "{shown}");
            let message = "vouch snapshot\n\nagent: a\n";
            let c = write(
                &objects,
                format,
                "commit",
                &commit(&top, &[], 1_700_000_000, message),
            )
            .unwrap();
            assert!(create_ref(dir.path(), "refs/snapshots/main/1", &c).unwrap());
            // Create only: a second write of the same name is refused.
            assert!(!create_ref(dir.path(), "refs/snapshots/main/1", &blob).unwrap());
            assert_eq!(
                text(git(
                    dir.path(),
                    &["rev-parse", "refs/snapshots/main/1"],
                    None
                )),
                c
            );
            assert_eq!(
                text(git(
                    dir.path(),
                    &["log", "-1", "--format=%B%an%ct", "refs/snapshots/main/1"],
                    None
                )),
                "vouch snapshot\n\nagent: a\nvouch1700000000"
            );
            // The commit `git commit-tree` writes of the same.
            let mut by_git = std::process::Command::new("git");
            by_git
                .env("GIT_DIR", dir.path())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_AUTHOR_NAME", "vouch")
                .env("GIT_AUTHOR_EMAIL", "vouch@localhost")
                .env("GIT_AUTHOR_DATE", "1700000000 +0000")
                .env("GIT_COMMITTER_NAME", "vouch")
                .env("GIT_COMMITTER_EMAIL", "vouch@localhost")
                .env("GIT_COMMITTER_DATE", "1700000000 +0000")
                .args(["commit-tree", &top, "-F", "-"]);
            let by_git = text(super::super::run(&mut by_git, Some(message.as_bytes())).unwrap());
            assert_eq!(c, by_git);
            git(dir.path(), &["fsck", "--strict", "--no-dangling"], None);
            git(dir.path(), &["pack-refs", "--all"], None);
            assert!(!create_ref(dir.path(), "refs/snapshots/main/1", &c).unwrap());
            assert!(!dir.path().join("refs/snapshots/main/1.lock").exists());
        }
    }

    /// The tree vouch makes of an index is the one `git write-tree`
    /// writes: names git sorts apart from bytes, folders in folders, modes,
    /// a link, and a cache of trees partly valid; an index it leaves to
    /// git is said.
    #[test]
    fn an_index_makes_the_tree_git_writes() {
        for (name, format) in [("sha1", Format::Sha1), ("sha256", Format::Sha256)] {
            index_of(name, format);
        }
    }

    fn index_of(name: &str, format: Format) {
        let dir = tempfile::tempdir().unwrap();
        let w = dir.path();
        let git = |args: &[&str]| -> String {
            let mut c = std::process::Command::new("git");
            c.current_dir(w)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .args(args);
            String::from_utf8(super::super::run(&mut c, None).unwrap())
                .unwrap()
                .trim()
                .to_owned()
        };
        git(&["init", "-q", &format!("--object-format={name}")]);
        for (path, text) in [
            ("a-b", "1"),
            ("a/b", "2"),
            ("a.b", "3"),
            ("a0", "4"),
            ("a/c/d", "5"),
            ("a/c/e f", "6"),
            ("x/y/z", "7"),
            ("run.sh", "8"),
        ] {
            let file = w.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, text).unwrap();
        }
        std::fs::set_permissions(
            w.join("run.sh"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        std::os::unix::fs::symlink("a-b", w.join("link")).unwrap();
        git(&["add", "-A"]);
        let index = w.join(".git/index");
        let objects = w.join(".git/objects");
        // No cache of trees yet: every tree made here.
        let made = index_tree(&index, &objects, format).unwrap().unwrap();
        assert_eq!(made, git(&["write-tree"]));
        // Cached, then one folder changed: the others as cached.
        std::fs::write(w.join("a/c/d"), "changed").unwrap();
        git(&["update-index", "a/c/d"]);
        let made = index_tree(&index, &objects, format).unwrap().unwrap();
        let copy = w.join("copy");
        std::fs::copy(&index, &copy).unwrap();
        let by_git = {
            let mut c = std::process::Command::new("git");
            c.current_dir(w)
                .env("GIT_INDEX_FILE", &copy)
                .args(["write-tree"]);
            String::from_utf8(super::super::run(&mut c, None).unwrap()).unwrap()
        };
        assert_eq!(made, by_git.trim());
        git(&["fsck", "--strict", "--no-dangling"]);
        // Left to git: an entry added with intent, an index of version 4.
        std::fs::write(w.join("planned"), "9").unwrap();
        git(&["add", "-N", "planned"]);
        assert_eq!(index_tree(&index, &objects, format).unwrap(), None);
        git(&["rm", "-q", "--cached", "planned"]);
        assert!(index_tree(&index, &objects, format).unwrap().is_some());
        git(&["update-index", "--index-version", "4"]);
        assert_eq!(index_tree(&index, &objects, format).unwrap(), None);
    }

    #[test]
    fn a_bad_id_or_name_makes_no_tree() {
        let zeros = "0".repeat(40);
        let e = |name: &'static [u8], id: &str| -> Vec<u8> {
            let entry = Entry {
                mode: "100644",
                name,
                id,
            };
            tree(Format::Sha1, &[entry]).unwrap_or_default()
        };
        assert!(e(b"a", "12").is_empty());
        assert!(e(b"a/b", &zeros).is_empty());
        assert!(e(b"a", &zeros).len() == "100644 a\0".len() + 20);
        let long = Entry {
            mode: "100644",
            name: b"a",
            id: &zeros,
        };
        assert!(tree(Format::Sha256, &[long]).is_err());
    }
}
