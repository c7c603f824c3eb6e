//! What a command lost, as a typed [`Loss`]: found between two snapshots
//! (the agent door, at the next command) or between a snapshot and the
//! work tree as it is (the post-tool hook). The words for it are the
//! interaction stage's (`interact::report`).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use anyhow::{Context, Result};

use super::store::Store;
use super::{Batch, Refs, Snapshot, head_commit, parse_refs, refs_of, run, text};

use super::fingerprint::ref_lines;

/// A ref an agent's command moved or deleted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RefMove {
    /// `refs/heads/main`.
    pub name: String,
    /// Where it pointed before the command.
    pub old_oid: String,
    /// Where it points now; empty when the command deleted it.
    pub new_oid: String,
    /// The old tip is not in the new one's history: commits left the ref.
    pub rewound: bool,
}

/// What an agent's command lost (issue 28 item 3), found against the
/// snapshot taken before it. The audit line keeps it as it is
/// (`audit::Loss`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Loss {
    /// The command (credentials masked).
    pub command: String,
    /// The snapshot that holds what was lost (`git vouch undo <it>`).
    pub snapshot: String,
    /// Files that held uncommitted work and were deleted or overwritten.
    #[serde(default)]
    pub files: Vec<String>,
    /// Branches and tags moved or deleted.
    #[serde(default)]
    pub refs: Vec<RefMove>,
    /// Stash entries gone (their commits).
    #[serde(default)]
    pub stash: Vec<String>,
}

impl Loss {
    /// Whether it holds work a person would want back: files with
    /// uncommitted work, refs deleted or rewound, stash entries.
    pub fn is_loss(&self) -> bool {
        !self.files.is_empty() || !self.stash.is_empty() || self.refs.iter().any(|r| r.rewound)
    }

    /// Whether anything moved at all (a ref moved forward too).
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.refs.is_empty() && self.stash.is_empty()
    }
}

/// What the command before the snapshot `taken` lost, when that is not
/// said already: found between the snapshot taken before that command and
/// `taken`, unless the agent's post-tool hook compared them already
/// ([`super::checked`]). `all` is the work tree's snapshots, newest first
/// ([`super::list`]). `None` when nothing moved, or the snapshot before
/// is none, or an undo's.
pub fn lost_before(store: &Store, all: &[Snapshot], taken: &Snapshot) -> Result<Option<Loss>> {
    let Some(previous) = all
        .iter()
        .find(|s| s.name != taken.name)
        .filter(|p| p.agent != "undo" && !super::checked(store, p))
    else {
        return Ok(None);
    };
    let lost = lost_between(store, previous, &taken.id)?;
    Ok((!lost.is_empty()).then_some(lost))
}

/// What was lost between the snapshot `before` and the snapshot `after`
/// (a commit id) of the same repository: files that held uncommitted work
/// in `before` (their content was not `HEAD`'s) and are deleted or changed
/// in `after`, branches and tags moved or deleted, stash entries gone.
/// Two git processes: one `cat-file --batch` for every object read, one
/// `diff-tree --stdin` for both comparisons.
pub fn lost_between(store: &Store, before: &Snapshot, after: &str) -> Result<Loss> {
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
    let mut files = Vec::new();
    let mut looked = 0;
    for d in diff_trees(store, &before_tree, &after_tree, "DMT", None)? {
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

/// The files that differ between trees `a` and `b` of the store, of the
/// kinds `filter` names (`--diff-filter`), renames as a deletion and an
/// addition.
fn diff_trees(
    store: &Store,
    a: &str,
    b: &str,
    filter: &str,
    only: Option<&BTreeSet<Vec<u8>>>,
) -> Result<Vec<Changed>> {
    let mut diff = store.work(None);
    diff.args([
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        &format!("--diff-filter={filter}"),
        a,
        b,
    ]);
    if let Some(paths) = only {
        // Each path as it is: no pathspec magic.
        diff.env("GIT_LITERAL_PATHSPECS", "1")
            .arg("--")
            .args(paths.iter().map(|p| OsStr::from_bytes(p)));
    }
    Ok(diff_entries(&run(&mut diff, None)?))
}

/// One file of a `diff-tree -r` (raw output).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Changed {
    old_id: String,
    new_mode: String,
    new_id: String,
    status: String,
    path: Vec<u8>,
}

/// The files of `git diff-tree -r -z <tree> <tree>`:
/// `:<old mode> <new mode> <old> <new> <status>\0<path>\0` each.
pub(super) fn diff_entries(raw: &[u8]) -> Vec<Changed> {
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
pub(super) const APPENDS_LOOKED_AT: usize = 20;

/// Whether `content` still starts with the blob `old`: the file was added
/// to, and nothing of it was lost (an agent appending to a file it is
/// writing is not told it lost work).
pub(super) fn still_holds(store: &Store, old: &str, content: &[u8]) -> bool {
    run(store.work(None).args(["cat-file", "blob", old]), None)
        .is_ok_and(|old| content.starts_with(&old))
}

/// What was lost since the snapshot `before`, read from the repository as
/// it is now (an agent's post-tool hook, right after the command): only
/// the files that held uncommitted work in `before` are looked at (hashed
/// as `git add` would), with the refs and the stash. No snapshot is written.
pub fn lost_since(store: &Store, before: &Snapshot) -> Result<Loss> {
    let root = &store.root;
    let was = refs_of(store, &before.id)?;
    // Only the files changed since, where the store's index of the work
    // tree describes `before` (git tells by their stat, as `git status`
    // does): the others are neither looked up nor hashed again.
    let changed = changed_since(store, before);
    let mut work = match &changed {
        Some(changed) if changed.is_empty() => BTreeMap::new(),
        Some(changed) if changed.len() <= PATHS_LOOKED_UP => {
            uncommitted(store, &before.id, &was, Some(changed))?
        }
        _ => uncommitted(store, &before.id, &was, None)?,
    };
    if let Some(changed) = &changed {
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
pub(super) fn changed_since(store: &Store, before: &Snapshot) -> Option<BTreeSet<Vec<u8>>> {
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

/// The most changed files the post-tool check looks up by name; past it,
/// the whole work tree is compared with `HEAD`.
const PATHS_LOOKED_UP: usize = 1000;

/// The files of snapshot `id`'s work tree that held uncommitted work (not
/// `HEAD`'s content, `HEAD` as `was` recorded it), with their mode and blob;
/// among `only` when given. Files deleted in the work tree hold nothing to
/// lose.
pub(super) fn uncommitted(
    store: &Store,
    id: &str,
    was: &Refs,
    only: Option<&BTreeSet<Vec<u8>>>,
) -> Result<BTreeMap<Vec<u8>, (String, String)>> {
    let head = head_commit(was);
    let tree = format!("{id}:worktree");
    let mut out = BTreeMap::new();
    if let Some(h) = head {
        for d in diff_trees(store, &format!("{h}^{{tree}}"), &tree, "AMT", only)? {
            out.insert(d.path, (d.new_mode, d.new_id));
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
pub(super) fn compare(
    store: &Store,
    before: &Snapshot,
    was: &Refs,
    now: &Refs,
    files: Vec<String>,
) -> Loss {
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
    Loss {
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

#[cfg(test)]
mod tests {
    use super::*;

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
