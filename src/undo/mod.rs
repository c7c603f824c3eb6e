//! Snapshots of a work tree's state before an agent's command, and undo
//! (SPEC 3.4, issues 28 and 36): the work tree (tracked files as they are,
//! untracked files that are not ignored, ignored files that git lists by
//! name, under size caps), the index, `HEAD`, every branch and tag tip and
//! the stash, written as git objects into vouch's own store
//! (`store`) through temporary indexes, so the user's index, work
//! tree, reflogs, stash, refs and object files are never touched.
//! The repository is read through the git command line, so reftable and
//! SHA-256 repositories are snapshotted like any other; a snapshot's own
//! blobs, trees, commit and ref are written by vouch into its store
//! (`objects`: the store is always in the files format, in the
//! repository's object format).
//!
//! A snapshot is a commit whose tree holds `worktree/` (the files), `index`
//! (the staged tree, when the index has no conflicts), `index.entries`
//! (`git ls-files -s -v -z`, conflicts included, each entry tagged with
//! its flags, `I` for added with intent; untagged in snapshots of earlier
//! versions), `refs` (one line per ref:
//! `<oid> <name>`, `HEAD` as `ref: <name>` or an id, the stash entries
//! newest first as `<oid> stash <message>`; snapshots of the first version
//! wrote `<oid> stash`, and read back without messages), `config` (the
//! repository's, to make `.git` again) and `gitdir/` (an operation in
//! progress, the sparse-checkout setting). Its parents are the commits the refs point at, so the store
//! holds them too.
//!
//! The stage's parts: `store` (where snapshots live), `fingerprint`
//! (whether anything changed), `write` (a snapshot, listed, let go),
//! `objects` (the git objects and refs vouch writes itself),
//! `restore` (undo) and `loss` (what a command lost).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

mod fingerprint;
mod loss;
mod objects;
mod restore;
mod store;
mod write;

pub use loss::{Loss, RefMove, lost_before, lost_between, lost_since};
pub use restore::{recreate, restore, restore_tree};
pub use store::{STORES, Store, other_worktrees};
pub use write::{
    checked, collect, delete, expired, list, list_all, mark_checked, migrate, newest_match, retain,
    retain_among, settled, take,
};

use store::Located;

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
pub(super) const MAX_PARENTS: usize = 200;

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
    /// Whether it recorded the work tree's sparse-checkout setting and the
    /// index's flags (skip-worktree, assume-unchanged, intent-to-add), with
    /// the flagged files as they were on disk: an undo puts them back, and
    /// trusts its work tree for what a sparse checkout leaves out.
    #[serde(skip)]
    pub sparse_kept: bool,
}

/// What git keeps in the git directory while a merge, cherry-pick,
/// revert or rebase is in progress: these files, and the files of these
/// directories. A snapshot keeps them (tree `gitdir`), and an undo puts
/// them back, so that a merge whose conflicts an agent threw away (`git
/// merge --abort`) is a merge again, not a plain commit to be.
pub(super) const IN_PROGRESS_FILES: &[&str] = &[
    "MERGE_HEAD",
    "MERGE_MSG",
    "MERGE_MODE",
    "MERGE_AUTOSTASH",
    "AUTO_MERGE",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "SQUASH_MSG",
    "REBASE_HEAD",
    "BISECT_LOG",
    "BISECT_START",
    "BISECT_TERMS",
    "BISECT_NAMES",
    "BISECT_EXPECTED_REV",
    "BISECT_ANCESTORS_OK",
    "BISECT_FIRST_PARENT",
    "BISECT_RUN",
];
/// What else a work tree's git directory holds of its state: the
/// sparse-checkout setting (`git sparse-checkout disable` rewrites both).
/// Kept and put back as the files of an operation in progress are.
pub(super) const SETTINGS_FILES: &[&str] = &["config.worktree", "info/sparse-checkout"];
/// The line of a snapshot's message that says it kept [`SETTINGS_FILES`]
/// and the index's flags.
pub(super) const SPARSE_LINE: &str = "sparse: kept";
/// See [`IN_PROGRESS_FILES`].
pub(super) const IN_PROGRESS_DIRS: &[&str] = &["rebase-merge", "rebase-apply", "sequencer"];
/// The line of a snapshot's message that says it kept what is in progress.
pub(super) const IN_PROGRESS_LINE: &str = "in-progress: kept";

/// The files of an operation in progress in `git_dir`, and of its
/// [`SETTINGS_FILES`], by their path under it (`MERGE_HEAD`,
/// `rebase-merge/done`, `info/sparse-checkout`), sorted.
pub(super) fn in_progress(git_dir: &Path) -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = IN_PROGRESS_FILES
        .iter()
        .chain(SETTINGS_FILES)
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
    let out = match input {
        Some(input) => crate::measure::git::output_with_input(c, input),
        None => c.output(),
    }
    .with_context(|| format!("cannot run {shown}"))?;
    if !out.status.success() {
        bail!(
            "{shown} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

/// A git process started to run beside other work, read with
/// [`Started::finish`]: what [`run`] does, in two steps.
pub(super) struct Started {
    child: std::process::Child,
    shown: String,
}

/// Starts git with no input, its output read when it is finished.
pub(super) fn start(c: &mut std::process::Command) -> Result<Started> {
    let shown = format!("{c:?}");
    c.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = c.spawn().with_context(|| format!("cannot run {shown}"))?;
    Ok(Started { child, shown })
}

impl Started {
    /// Its stdout, or an error naming the command.
    pub(super) fn finish(self) -> Result<Vec<u8>> {
        let out = self.child.wait_with_output()?;
        if !out.status.success() {
            bail!(
                "{} failed: {}",
                self.shown,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(out.stdout)
    }
}

pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_owned()
}

/// The user's repository of `store`, or an error saying it is gone.
pub(super) fn repo(store: &Store) -> Result<&Located> {
    store.repo.as_ref().with_context(|| {
        format!(
            "`{}` has no git repository any more (its `.git` is gone)",
            store.root.display()
        )
    })
}

/// The refs a snapshot recorded: `HEAD` (`ref: <name>` or an id), the
/// branches and tags by name, and the stash entries, newest first.
pub(super) struct Refs {
    head: Option<String>,
    named: BTreeMap<String, String>,
    stash: Vec<String>,
    /// The stash entries' messages, by id (snapshots before 0.2 kept none).
    stash_messages: BTreeMap<String, String>,
}

pub(super) fn refs_of(store: &Store, snapshot: &str) -> Result<Refs> {
    let listing = text(&run(
        store
            .work(None)
            .args(["cat-file", "blob", &format!("{snapshot}:refs")]),
        None,
    )?);
    Ok(parse_refs(&listing))
}

/// A snapshot's `refs` blob, read.
pub(super) fn parse_refs(listing: &str) -> Refs {
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

/// A `git cat-file --batch`: objects read one after another, each asked
/// for once the one before is read, by one process.
pub(super) struct Batch {
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

/// The commit `HEAD` was at in a snapshot's refs, if any.
pub(super) fn head_commit(was: &Refs) -> Option<String> {
    let h = was.head.as_deref()?;
    h.strip_prefix("ref: ")
        .map_or(Some(h.to_owned()), |name| was.named.get(name).cloned())
}
