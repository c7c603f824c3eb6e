//! The repository read without libgit2, for the push's fast path
//! (`doors::pre_push::quick`): the few facts a fast-forward needs, each given only
//! when it is certain. An object is trusted only once its bytes hash to its
//! id (issue 26 item 2): a forged loose file cannot make a rewrite look
//! like a fast-forward. Every "not sure" (`None`, `false`) sends the push to
//! the whole door, which reads the repository with libgit2, so a reading
//! here can only ever be the same as libgit2's or absent.
//!
//! Opening a repository with libgit2 reads and re-reads its config files
//! (some fifty file system calls) and starts its object database; on the
//! fast path a fast-forward needs the new commit's parents (a loose object,
//! as a fresh commit is), whether any config file could make the push a
//! mirror, and the remote's default branch.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::platform::env::Env;
use crate::platform::files;

/// How many commits this reader reads for one push, over all its refs:
/// past that, libgit2 tells the push faster.
const READ_BUDGET: usize = 64;

/// A commit object this reader reads whole, to check that its bytes hash
/// to its id; a larger one (a long message) is left to libgit2.
const OBJECT_LIMIT: usize = 16 * 1024;

/// No file this reader needs is larger; a larger one is left to libgit2.
const FILE_LIMIT: u64 = 1 << 20;

/// Words that, anywhere in a git config file (any case), leave the reading
/// to libgit2: a mirror remote (`remote.<name>.mirror`: deletions git never
/// shows the hook), an included file this reader does not follow
/// (`include.path`, `includeIf`), a work tree elsewhere (`core.worktree`,
/// whose `.vouch.toml` would count), and ref or object formats it cannot read.
const CONFIG_WORDS: [&[u8]; 5] = [
    b"mirror",
    b"include",
    b"worktree",
    b"refstorage",
    b"objectformat",
];

/// A fact this reader cannot be sure of: libgit2 is to read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotSure;

/// A repository whose `.git` is a plain directory.
#[derive(Debug)]
pub struct Loose {
    git_dir: PathBuf,
    /// Commit reads left ([`READ_BUDGET`]).
    budget: std::cell::Cell<usize>,
}

impl Loose {
    /// The repository whose work tree is `cwd` (a hook runs at the top of
    /// its work tree), when it is one this reader can be sure about: `.git`
    /// is a directory (not a linked work tree's file), git has not pointed
    /// at another repository through the environment, and the history is
    /// not cut or rewired (a shallow clone, grafts).
    pub fn at(cwd: &Path, env: &dyn Env) -> Option<Self> {
        const REDIRECTS: [&str; 6] = [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_COMMON_DIR",
            "GIT_OBJECT_DIRECTORY",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "GIT_NAMESPACE",
        ];
        if REDIRECTS.iter().any(|v| env.var_os(v).is_some()) {
            return None;
        }
        let git_dir = cwd.join(".git");
        if !files::is_dir(&git_dir) {
            return None;
        }
        ["commondir", "shallow", "info/grafts"]
            .iter()
            .all(|rel| files::absent(&git_dir.join(rel)) == Some(true))
            .then_some(Self {
                git_dir,
                budget: std::cell::Cell::new(READ_BUDGET),
            })
    }

    /// True when no config file git or libgit2 would read can make this
    /// push a mirror or hide a setting in an included file (`CONFIG_WORDS`),
    /// and no setting comes from the command line (`git -c`). A file that
    /// cannot be read is not sure.
    pub fn config_is_plain(&self, env: &dyn Env) -> bool {
        if ["GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG"]
            .iter()
            .any(|v| env.var_os(v).is_some())
        {
            return false;
        }
        config_files(&self.git_dir, env).iter().all(|path| {
            match files::read_capped(path, FILE_LIMIT) {
                Ok(Some(text)) => !CONFIG_WORDS.iter().any(|w| mentions(&text, w)),
                Ok(None) => false,
                Err(e) => e.kind() == ErrorKind::NotFound,
            }
        })
    }

    /// The remote's default branch (`refs/remotes/<remote>/HEAD`, a
    /// symbolic ref, as libgit2 resolves it); `None` when it has none or
    /// `remote` is a URL (git passes the URL when the remote has no name).
    pub fn remote_head(&self, remote: &str) -> Result<Option<String>, NotSure> {
        if remote.starts_with(['/', '.']) || remote.contains(':') {
            return Ok(None);
        }
        let plain = !remote.is_empty()
            && remote
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if !plain {
            return Err(NotSure);
        }
        let path = self.git_dir.join("refs/remotes").join(remote).join("HEAD");
        let text = match files::read_capped(&path, FILE_LIMIT) {
            Ok(Some(text)) => text,
            // A symbolic ref is never packed: no file, no default branch.
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Ok(None) | Err(_) => return Err(NotSure),
        };
        symref_branch(&text, remote)
    }

    /// True when `old` is an ancestor of `new` (both full object ids),
    /// found through loose commits, at most `READ_BUDGET` (64) read over
    /// all calls; false when that cannot be shown here (a packed commit, a
    /// longer history, a spent budget, a rewrite).
    pub fn reaches(&self, new: &str, old: &str) -> bool {
        if !is_oid(new) || !is_oid(old) || new == old {
            return false;
        }
        let mut queue = vec![new.to_owned()];
        let mut seen = Vec::new();
        while let Some(oid) = queue.pop() {
            let Some(left) = self.budget.get().checked_sub(1) else {
                return false;
            };
            self.budget.set(left);
            let Some(head) = self.commit(&oid) else {
                return false;
            };
            let Some(parents) = commit_parents(&head) else {
                return false;
            };
            for parent in parents {
                if parent == old.as_bytes() {
                    return true;
                }
                let parent = String::from_utf8_lossy(parent).into_owned();
                if !seen.contains(&parent) && !queue.contains(&parent) {
                    queue.push(parent);
                }
            }
            seen.push(oid);
        }
        false
    }

    /// A loose commit, inflated whole, when its bytes are what its id
    /// says: the header names a commit of the size that follows, and the
    /// SHA-1 of the whole object is `oid`. A forged or damaged file (bytes
    /// that hash to another id) is not sure, so libgit2 reads the push.
    fn commit(&self, oid: &str) -> Option<Vec<u8>> {
        use miniz_oxide::inflate::TINFLStatus;
        use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
        use sha1::Digest as _;
        let (dir, file) = oid.split_at(2);
        let path = self.git_dir.join("objects").join(dir).join(file);
        let raw = files::read_capped(&path, FILE_LIMIT).ok()??;
        let mut state = DecompressorOxide::new();
        let mut out = vec![0u8; OBJECT_LIMIT];
        let flags = inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER
            | inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        let (status, _, written) = decompress(&mut state, &raw, &mut out, 0, flags);
        if status != TINFLStatus::Done {
            return None;
        }
        out.truncate(written);
        let nul = out.iter().position(|b| *b == 0)?;
        let size: usize = std::str::from_utf8(out[..nul].strip_prefix(b"commit ")?)
            .ok()?
            .parse()
            .ok()?;
        if size != out.len() - nul - 1 {
            return None;
        }
        let digest = sha1::Sha1::digest(&out);
        (crate::input::text::hex(&digest) == oid).then_some(out)
    }
}

/// The config files git (its own `etc/gitconfig` beside `GIT_EXEC_PATH`'s
/// prefix) or libgit2 (`/etc/gitconfig`, the XDG and home files, whatever
/// `GIT_CONFIG_GLOBAL` and `GIT_CONFIG_SYSTEM` say) could read for this
/// repository: more than either reads, never fewer.
fn config_files(git_dir: &Path, env: &dyn Env) -> Vec<PathBuf> {
    // `config.worktree` counts only with `extensions.worktreeConfig`, which
    // the repository's config names, and `worktree` there is not sure.
    let mut files = vec![git_dir.join("config"), PathBuf::from("/etc/gitconfig")];
    for var in ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"] {
        if let Some(path) = env.var_os(var).filter(|p| !p.is_empty()) {
            files.push(PathBuf::from(path));
        }
    }
    let home = env
        .var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    if let Some(home) = &home {
        files.push(home.join(".gitconfig"));
    }
    match env.var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
        Some(xdg) => files.push(PathBuf::from(xdg).join("git/config")),
        None => files.extend(home.map(|h| h.join(".config/git/config"))),
    }
    if let Some(exec) = env.var_os("GIT_EXEC_PATH")
        && let Some(prefix) = Path::new(&exec).parent().and_then(Path::parent)
        && exec.as_encoded_bytes().ends_with(b"/libexec/git-core")
    {
        files.push(prefix.join("etc/gitconfig"));
    }
    files.dedup();
    files
}

/// True when `word` (lowercase) is in `text`, in any case.
fn mentions(text: &[u8], word: &[u8]) -> bool {
    text.windows(word.len())
        .any(|w| w.eq_ignore_ascii_case(word))
}

/// A full, lowercase SHA-1 object id.
fn is_oid(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The branch a `refs/remotes/<remote>/HEAD` file points at: `None` for a
/// direct ref or a target outside the remote's refs (libgit2's reading
/// gives no default branch then).
fn symref_branch(text: &[u8], remote: &str) -> Result<Option<String>, NotSure> {
    let text = std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.strip_suffix('\n'))
        .ok_or(NotSure)?;
    let under = |target: &str| {
        target
            .strip_prefix("refs/remotes/")?
            .strip_prefix(remote)?
            .strip_prefix('/')
            .map(str::to_owned)
    };
    let Some(target) = text.strip_prefix("ref: ") else {
        return if is_oid(text) { Ok(None) } else { Err(NotSure) };
    };
    if target.is_empty() || target.contains(char::is_whitespace) {
        return Err(NotSure);
    }
    Ok(under(target))
}

/// The parents of a commit, from its inflated loose object
/// (`commit <size>\0tree <id>\nparent <id>\n...`); `None` when it is not a
/// commit or its headers end before its parents do.
fn commit_parents(object: &[u8]) -> Option<Vec<&[u8]>> {
    let nul = object.iter().position(|b| *b == 0)?;
    let body = object[..nul]
        .strip_prefix(b"commit ")
        .map(|_| &object[nul + 1..])?;
    let mut lines = body.split(|b| *b == b'\n');
    let tree = lines.next()?.strip_prefix(b"tree ")?;
    if tree.len() != 40 {
        return None;
    }
    let mut parents = Vec::new();
    for line in lines {
        match line.strip_prefix(b"parent ") {
            Some(id) if id.len() == 40 => parents.push(id),
            // The next header (`author`) ends the parents; a line cut
            // short by the read limit would not start with it.
            None if line.starts_with(b"author ") || line.starts_with(b"committer ") => {
                return Some(parents);
            }
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::env::MapEnv;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    #[test]
    fn a_commits_parents_are_read_up_to_its_author() {
        let one = format!("commit 200\0tree {A}\nparent {B}\nauthor A <a@b> 1 +0000\n\nmsg\n");
        assert_eq!(commit_parents(one.as_bytes()), Some(vec![B.as_bytes()]));
        let merge = format!("commit 9\0tree {A}\nparent {A}\nparent {B}\nauthor x\n");
        assert_eq!(
            commit_parents(merge.as_bytes()),
            Some(vec![A.as_bytes(), B.as_bytes()])
        );
        let root = format!("commit 9\0tree {A}\nauthor x\n");
        assert_eq!(commit_parents(root.as_bytes()), Some(vec![]));
        // Not a commit, cut short, or malformed: not sure.
        for bad in [
            format!("tag 9\0object {A}\n"),
            format!("commit 9\0tree {A}\nparent {B}"),
            format!("commit 9\0tree {A}\nparent {B}\nparen"),
            format!("commit 9\0tree {A}\nparent 12\nauthor x\n"),
            format!("commit 9\0tree {A}\nmergetag object x\nauthor x\n"),
            "commit 9 tree".to_owned(),
        ] {
            assert_eq!(commit_parents(bad.as_bytes()), None, "{bad:?}");
        }
    }

    #[test]
    fn a_remote_head_is_a_branch_only_under_the_remotes_refs() {
        let read = |t: &str| symref_branch(t.as_bytes(), "origin");
        assert_eq!(
            read("ref: refs/remotes/origin/main\n"),
            Ok(Some("main".into()))
        );
        assert_eq!(
            read("ref: refs/remotes/origin/team/main\n"),
            Ok(Some("team/main".into()))
        );
        assert_eq!(read("ref: refs/heads/main\n"), Ok(None));
        assert_eq!(read(&format!("{A}\n")), Ok(None));
        assert_eq!(read("ref: refs/remotes/origin/main"), Err(NotSure));
        assert_eq!(read("garbage\n"), Err(NotSure));
    }

    #[test]
    fn config_words_match_in_any_case() {
        assert!(mentions(b"[remote \"o\"]\n\tMirror = true\n", b"mirror"));
        assert!(mentions(b"[includeIf \"gitdir:~/w/\"]", b"include"));
        assert!(!mentions(b"[remote \"o\"]\n\turl = x\n", b"mirror"));
    }

    #[test]
    fn config_files_cover_git_and_libgit2() {
        let env = MapEnv::from_pairs(&[
            ("HOME", "/h"),
            ("GIT_CONFIG_GLOBAL", "/g/config"),
            ("GIT_EXEC_PATH", "/usr/local/libexec/git-core"),
        ]);
        let files = config_files(Path::new("/r/.git"), &env);
        for f in [
            "/r/.git/config",
            "/etc/gitconfig",
            "/g/config",
            "/h/.gitconfig",
            "/h/.config/git/config",
            "/usr/local/etc/gitconfig",
        ] {
            assert!(files.contains(&PathBuf::from(f)), "{f}: {files:?}");
        }
    }
}
