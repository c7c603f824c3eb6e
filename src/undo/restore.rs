//! Putting a snapshot back: the work tree, the index, `HEAD`, the refs,
//! the stash and an operation in progress; `.git` made again when it is
//! gone.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::fingerprint::split_entry;
use super::store::Store;
use super::{
    Batch, IN_PROGRESS_DIRS, SETTINGS_FILES, Snapshot, in_progress, parse_refs, refs_of, repo, run,
    text,
};

/// The files of a snapshot's work tree (`ls-tree -r -z --name-only`).
pub(super) fn files_of(store: &Store, tree: &str) -> Result<BTreeSet<Vec<u8>>> {
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
pub(super) fn under(path: &[u8], p: &[u8]) -> bool {
    path == p || (path.starts_with(p) && path.get(p.len()) == Some(&b'/'))
}

/// A path as a person gives it to `undo --path`: `src/`, `./src` and
/// `src` are the same.
pub(super) fn clean_path(p: &str) -> Vec<u8> {
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
    let common = super::store::recorded(&store.dir, "common");
    if store.tree != "main" || common.as_deref() != Some(root.join(".git").as_os_str().as_bytes()) {
        bail!(
            "the repository of `{}` kept its git directory elsewhere than `.git` in it (a linked work tree, a submodule, `--separate-git-dir`): vouch cannot make it again here; its snapshots are in `{}`",
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
        crate::measure::git::git_in(root)
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
    restore_parts(store, target, current, paths, env, None)
}

/// [`restore`] of the whole index and of the files `touched` in the work
/// tree alone: no other file, no ref, `HEAD`, stash or operation in
/// progress is touched. What the reference-transaction hook puts back when
/// it refuses a ref update that git began by rewriting the work tree and
/// the index (issue 35): the refs it would move are locked then, git
/// changed nothing else, and a file git did not write (untracked, or
/// ignored) stays as it is now.
pub fn restore_tree(
    store: &Store,
    target: &Snapshot,
    current: &str,
    touched: &BTreeSet<Vec<u8>>,
) -> Result<Vec<String>> {
    restore_parts(store, target, Some(current), &[], &[], Some(touched))
}

fn restore_parts(
    store: &Store,
    target: &Snapshot,
    current: Option<&str>,
    paths: &[String],
    env: &[(String, String)],
    touched: Option<&BTreeSet<Vec<u8>>>,
) -> Result<Vec<String>> {
    let refs = touched.is_none();
    let touched = |p: &[u8]| touched.is_none_or(|t| t.contains(p));
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
    // Each entry's tag (its flags), and the rest as `--index-info` reads it.
    let tagged: Vec<(Option<u8>, &[u8])> = entries
        .split(|b| *b == 0)
        .filter(|e| !e.is_empty())
        .map(split_entry)
        .collect();
    let path_of = |rest: &[u8]| -> Vec<u8> {
        rest.iter()
            .position(|b| *b == b'\t')
            .map_or_else(Vec::new, |tab| rest[tab + 1..].to_vec())
    };
    for (_, entry) in &tagged {
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
    // A sparse checkout, for a snapshot that did not keep its own: the
    // paths outside it (skip-worktree in the index now) stay out of the
    // work tree, and keep their bit in the index. A snapshot that kept it
    // holds the work tree as it was, flagged files too.
    let sparse: BTreeSet<Vec<u8>> = if target.sparse_kept {
        BTreeSet::new()
    } else {
        run(store.work(None).args(["ls-files", "-t", "-z"]), None)?
            .split(|b| *b == 0)
            .filter_map(|e| e.strip_prefix(b"S "))
            .map(<[u8]>::to_vec)
            .collect()
    };
    let outside = |p: &[u8]| {
        sparse.contains(p) && std::fs::symlink_metadata(root.join(OsStr::from_bytes(p))).is_err()
    };
    let mut list = Vec::new();
    for path in then
        .iter()
        .filter(|p| selected(p) && touched(p) && !outside(p))
    {
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
    let gone: Vec<&Vec<u8>> = now
        .difference(&then)
        .filter(|p| selected(p) && touched(p))
        .collect();
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
        then.iter().filter(|p| selected(p) && touched(p)).count()
    ));
    // The index.
    let info = |keep: &dyn Fn(&[u8]) -> bool| -> Vec<u8> {
        tagged
            .iter()
            .filter(|(_, rest)| keep(&path_of(rest)))
            .flat_map(|(_, rest)| rest.iter().copied().chain([0]))
            .collect()
    };
    if paths.is_empty() {
        run(store.work(None).args(["read-tree", "--empty"]), None)?;
        run(
            store
                .work(None)
                .args(["update-index", "-z", "--index-info"]),
            Some(&info(&|_| true)),
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
        let kept = info(&|p| !p.is_empty() && selected(p));
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
        let listed: BTreeSet<Vec<u8>> = tagged.iter().map(|(_, rest)| path_of(rest)).collect();
        let mut marked = Vec::new();
        for p in sparse.iter().filter(|p| listed.contains(*p)) {
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
    restore_flags(store, &tagged, &|p| selected(p))?;
    done.push("index: restored".to_owned());
    if !paths.is_empty() || !refs {
        return Ok(done);
    }
    // The refs, with vouch's own hook told that vouch moves them.
    let then = then_refs;
    let mut moves = String::new();
    for (name, id) in &then.named {
        if was.named.get(name) != Some(id) {
            moves.push_str(&format!("update {name} {id}\n"));
            done.push(format!("{name} -> {}", crate::input::text::short_oid(id)));
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
    // What `git filter-branch` left of the history it rewrote
    // (`refs/original/...`, naming what is now put back) goes too.
    let originals = run(
        store.work(None).args([
            "for-each-ref",
            "--format=%(objectname) %(refname)",
            "refs/original/",
        ]),
        None,
    )?;
    let mut gone = String::new();
    for line in String::from_utf8_lossy(&originals).lines() {
        if let Some((id, name)) = line.split_once(' ')
            && then.named.values().any(|v| v == id)
        {
            gone.push_str(&format!("delete {name} {id}\n"));
            done.push(format!(
                "{name} removed (a rewrite's backup of what is put back)"
            ));
        }
    }
    if !gone.is_empty() {
        run(
            store
                .work(None)
                .args(["update-ref", "--stdin"])
                .envs(env.iter().map(|(k, v)| (k, v))),
            Some(gone.as_bytes()),
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
        done.extend(restore_in_progress(
            store,
            git_dir,
            &target.id,
            target.sparse_kept,
        )?);
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

/// Puts back the flags of the index entries `tagged` (tags of `git
/// ls-files -s -v`, and `I` for added with intent) whose paths are
/// `selected`: skip-worktree, assume-unchanged, and intent-to-add (the
/// entry written as a staged empty file is added with intent again, its
/// file being back in the work tree).
fn restore_flags(
    store: &Store,
    tagged: &[(Option<u8>, &[u8])],
    selected: &dyn Fn(&[u8]) -> bool,
) -> Result<()> {
    let mut skip = Vec::new();
    let mut assume = Vec::new();
    let mut intent = Vec::new();
    for (tag, rest) in tagged {
        let Some(tag) = *tag else { continue };
        let Some(tab) = rest.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let path = &rest[tab + 1..];
        if !selected(path) {
            continue;
        }
        for (wanted, list) in [
            (tag == b'S' || tag == b's', &mut skip),
            (tag.is_ascii_lowercase(), &mut assume),
            (tag == b'I', &mut intent),
        ] {
            if wanted {
                list.extend_from_slice(path);
                list.push(0);
            }
        }
    }
    for (flag, list) in [("--skip-worktree", &skip), ("--assume-unchanged", &assume)] {
        if !list.is_empty() {
            run(
                store
                    .work(None)
                    .args(["update-index", "-z", flag, "--stdin"]),
                Some(list),
            )?;
        }
    }
    if !intent.is_empty() {
        run(
            store
                .work(None)
                .args(["update-index", "-z", "--force-remove", "--stdin"]),
            Some(&intent),
        )?;
        // Added with intent again where its file is back (an entry kept
        // from an index whose file was deleted since has none: it goes).
        let intent: Vec<u8> = intent
            .split(|b| *b == 0)
            .filter(|p| {
                !p.is_empty()
                    && std::fs::symlink_metadata(store.root.join(OsStr::from_bytes(p))).is_ok()
            })
            .flat_map(|p| p.iter().copied().chain([0]))
            .collect();
        if intent.is_empty() {
            return Ok(());
        }
        run(
            crate::measure::git::git_in(&store.root).args([
                "--literal-pathspecs",
                "add",
                "--intent-to-add",
                "--force",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
            ]),
            Some(&intent),
        )?;
    }
    Ok(())
}

/// Puts back the merge, cherry-pick, revert or rebase that was in
/// progress when snapshot `id` was taken, and ends one begun since: the
/// files of [`super::IN_PROGRESS_FILES`] and [`super::IN_PROGRESS_DIRS`] are those
/// the snapshot kept, byte for byte, and no others. Returns what it says.
pub(super) fn restore_in_progress(
    store: &Store,
    git_dir: &Path,
    id: &str,
    settings: bool,
) -> Result<Vec<String>> {
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
    // A snapshot that did not keep the settings leaves them as they are.
    let mut now = in_progress(git_dir);
    now.retain(|(name, _)| settings || !SETTINGS_FILES.contains(&name.as_str()));
    if now.is_empty() && then.is_empty() {
        return Ok(Vec::new());
    }
    // Unchanged, for the files of one group (in progress, or settings).
    let same = |setting: bool| {
        let ours = |name: &str| SETTINGS_FILES.contains(&name) == setting;
        let now: Vec<_> = now.iter().filter(|(n, _)| ours(n)).collect();
        let then: Vec<_> = then.iter().filter(|(n, _)| ours(n)).collect();
        now.len() == then.len()
            && now.iter().all(|(name, path)| {
                then.iter()
                    .any(|(t, data)| t == name && std::fs::read(path).is_ok_and(|d| &d == data))
            })
    };
    let (same_progress, same_settings) = (same(false), same(true));
    if same_progress && same_settings {
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
        if names
            .iter()
            .any(|n| n.starts_with("rebase-") || *n == "REBASE_HEAD")
        {
            "a rebase"
        } else if names.iter().any(|n| n.starts_with("BISECT_")) {
            "a bisect"
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
    let then_names: Vec<&str> = then
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !SETTINGS_FILES.contains(n))
        .collect();
    let now_names: Vec<&str> = now
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !SETTINGS_FILES.contains(n))
        .collect();
    let mut done = Vec::new();
    if !same_progress {
        done.push(if then_names.is_empty() {
            format!("{} begun since is no longer in progress", what(&now_names))
        } else {
            format!(
                "{} in progress again ({} file(s) in the git directory)",
                what(&then_names),
                then_names.len()
            )
        });
    }
    if !same_settings {
        done.push("the work tree's sparse-checkout setting put back".to_owned());
    }
    Ok(done)
}
