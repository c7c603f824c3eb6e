//! The staged change a commit would make: the index against `HEAD`.
//!
//! Paths and statuses come from the index and the trees alone; blobs are
//! read only where a rule needs them (`staged::Reading`): the text of
//! migrations and manifests, and line counts while a line rule is still
//! undecided. So a commit's cost does not grow with the size of what it
//! stages.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result};

use super::Repo;
use crate::classify::facts::{FileStatus, StagedFacts, StagedFile};
use crate::classify::staged::Reading;

/// How much of a blob git reads to tell binary from text (`xdiff`'s
/// `FIRST_FEW_BYTES`): a NUL in it makes the blob binary, and a binary
/// blob has no lines.
const BINARY_SNIFF: usize = 8000;

impl Repo {
    /// The staged change: the index against `HEAD`. A repository opened
    /// for a hook reads the index git names in `GIT_INDEX_FILE` (the
    /// temporary one of `git commit -a` and `git commit <paths>`).
    pub fn staged(&self, reading: &Reading<'_>) -> Result<StagedFacts> {
        let index = self.repo.index().context("cannot read the index")?;
        let head_tree = self.repo.head().ok().and_then(|h| h.peel_to_tree().ok());
        let mut opts = git2::DiffOptions::new();
        opts.context_lines(0);
        let mut diff = self
            .repo
            .diff_tree_to_index(head_tree.as_ref(), Some(&index), Some(&mut opts))
            .context("cannot compare the index with HEAD")?;
        // Renames: a moved file is no deletion. Only a change that both adds
        // and deletes files can hold one, and only then is content compared.
        let has = |s: git2::Delta| diff.deltas().any(|d| d.status() == s);
        if has(git2::Delta::Added) && has(git2::Delta::Deleted) {
            diff.find_similar(None).ok();
        }
        // Each file with the index of its delta in `diff`.
        let mut files: Vec<(usize, StagedFile)> = diff
            .deltas()
            .enumerate()
            .map(|(i, delta)| (i, staged_file(&delta)))
            .collect();
        self.leave_out_merged(&mut files);

        let need = reading.need(files.iter().map(|(_, f)| f));
        let (mut added, mut deleted) = (0, 0);
        for (i, file) in &mut files {
            let counted = reading.counted(&file.path);
            // A submodule (a gitlink) is a path and a commit id: judged by
            // its path, its commit never read (it need not be in this
            // repository's objects).
            let gitlink = diff.get_delta(*i).is_some_and(|d| {
                d.new_file().mode() == git2::FileMode::Commit
                    || d.old_file().mode() == git2::FileMode::Commit
            });
            if gitlink {
                continue;
            }
            if reading.inspected(&file.path) {
                read_patch(&diff, *i, file, true)?;
            } else if !counted {
                // A lockfile's churn counts for no rule.
                file.lines_partial = true;
            } else {
                match (need.wanted(file.status, added, deleted), file.status) {
                    (None, _) => file.lines_partial = true,
                    // A new blob (a copy too: all of it is new here) is
                    // counted; a gone one likewise.
                    (Some(cap), FileStatus::Added) => {
                        let (n, whole) = self.count_lines(&file.new_oid, cap)?;
                        file.added_lines = n;
                        file.lines_partial = !whole;
                    }
                    (Some(cap), FileStatus::Deleted) => {
                        let (n, whole) = self.count_lines(&file.old_oid, cap)?;
                        file.deleted_lines = n;
                        file.lines_partial = !whole;
                    }
                    // Modified, renamed, a type change or a submodule:
                    // git's own diff.
                    (Some(_), FileStatus::Modified | FileStatus::Renamed) => {
                        read_patch(&diff, *i, file, false)?;
                    }
                }
            }
            if counted {
                added += file.added_lines;
                deleted += file.deleted_lines;
            }
        }
        Ok(StagedFacts {
            files: files.into_iter().map(|(_, f)| f).collect(),
            branch: self.current_branch(),
            unmeasured: None,
        })
    }

    /// Concluding a merge: what is staged exactly as the merged side has it
    /// was committed (and judged) there; what the merge itself adds is not.
    /// (Looked for as a file first: resolving the name tries six refs.)
    fn leave_out_merged(&self, files: &mut Vec<(usize, StagedFile)>) {
        let Some(theirs) = self
            .repo
            .path()
            .join("MERGE_HEAD")
            .is_file()
            .then(|| self.repo.revparse_single("MERGE_HEAD").ok())
            .flatten()
            .and_then(|o| o.peel_to_tree().ok())
        else {
            return;
        };
        files.retain(|(_, f)| {
            let theirs_blob = theirs
                .get_path(Path::new(&f.path))
                .ok()
                .map(|e| e.id().to_string());
            match f.status {
                FileStatus::Deleted => theirs_blob.is_some(),
                _ => theirs_blob.as_deref() != Some(f.new_oid.as_str()),
            }
        });
    }

    /// The lines of a blob, counted up to `cap`: `(lines, whole)`, where
    /// `whole` is false when counting stopped at `cap` (the blob has at
    /// least that many). A binary blob has none, as in git's diff. A blob
    /// written by `git add` is read as a stream, so a large one costs only
    /// what is counted.
    fn count_lines(&self, oid: &str, cap: usize) -> Result<(usize, bool)> {
        let oid = git2::Oid::from_str(oid).context("a staged blob has no valid id")?;
        let odb = self.repo.odb().context("cannot open the object database")?;
        // Loose objects stream; packed ones are read whole.
        if let Ok((mut reader, _, _)) = odb.reader(oid) {
            let mut counter = LineCounter::new(cap);
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = reader
                    .read(&mut buf)
                    .with_context(|| format!("cannot read blob {oid}"))?;
                if n == 0 || !counter.feed(&buf[..n]) {
                    break;
                }
            }
            return Ok(counter.finish());
        }
        let blob = self
            .repo
            .find_blob(oid)
            .with_context(|| format!("cannot read blob {oid}"))?;
        let mut counter = LineCounter::new(cap);
        counter.feed(blob.content());
        Ok(counter.finish())
    }
}

/// A file of the diff as its paths and status tell it, no lines read yet.
fn staged_file(delta: &git2::DiffDelta<'_>) -> StagedFile {
    let path = delta
        .new_file()
        .path()
        .or_else(|| delta.old_file().path())
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    let status = match delta.status() {
        git2::Delta::Added | git2::Delta::Copied => FileStatus::Added,
        git2::Delta::Deleted => FileStatus::Deleted,
        git2::Delta::Renamed => FileStatus::Renamed,
        _ => FileStatus::Modified,
    };
    StagedFile::unread(
        path,
        status,
        &delta.old_file().id().to_string(),
        &delta.new_file().id().to_string(),
    )
}

/// Diffs one file of `diff` whole: its line counts, and with `keep` the
/// added and deleted lines themselves.
fn read_patch(diff: &git2::Diff<'_>, i: usize, file: &mut StagedFile, keep: bool) -> Result<()> {
    let Some(patch) = git2::Patch::from_diff(diff, i)
        .with_context(|| format!("cannot read the staged change of `{}`", file.path))?
    else {
        // Unchanged content (a mode change): no lines.
        return Ok(());
    };
    let (_, added, deleted) = patch.line_stats()?;
    file.added_lines = added;
    file.deleted_lines = deleted;
    if !keep {
        return Ok(());
    }
    for h in 0..patch.num_hunks() {
        for l in 0..patch.num_lines_in_hunk(h)? {
            let line = patch.line_in_hunk(h, l)?;
            let text = || {
                String::from_utf8_lossy(line.content())
                    .trim_end()
                    .to_owned()
            };
            match line.origin() {
                '+' => file.added.push((line.new_lineno().unwrap_or(0), text())),
                '-' => file.deleted.push(text()),
                _ => {}
            }
        }
    }
    Ok(())
}

/// Counts lines as git's diff does (a last line without a newline is a
/// line; a blob with a NUL in its first 8,000 bytes is binary and has
/// none), stopping at a cap.
struct LineCounter {
    cap: usize,
    lines: usize,
    /// The first bytes, kept until there are enough to tell binary.
    head: Vec<u8>,
    binary: Option<bool>,
    last: Option<u8>,
}

impl LineCounter {
    fn new(cap: usize) -> Self {
        Self {
            cap,
            lines: 0,
            head: Vec::new(),
            binary: None,
            last: None,
        }
    }

    /// Takes the next bytes; false once the count is settled (the cap
    /// reached, or the blob binary).
    fn feed(&mut self, bytes: &[u8]) -> bool {
        if self.binary.is_none() {
            self.head.extend_from_slice(bytes);
            if self.head.len() < BINARY_SNIFF {
                return true;
            }
            return self.settle_head();
        }
        self.count(bytes)
    }

    fn settle_head(&mut self) -> bool {
        let head = std::mem::take(&mut self.head);
        let binary = memchr::memchr(0, &head[..head.len().min(BINARY_SNIFF)]).is_some();
        self.binary = Some(binary);
        !binary && self.count(&head)
    }

    fn count(&mut self, bytes: &[u8]) -> bool {
        self.last = bytes.last().copied().or(self.last);
        for _ in memchr::memchr_iter(b'\n', bytes) {
            self.lines += 1;
            if self.lines >= self.cap {
                return false;
            }
        }
        true
    }

    /// `(lines, whole)`.
    fn finish(mut self) -> (usize, bool) {
        if self.binary.is_none() {
            self.settle_head();
        }
        if self.binary == Some(true) {
            return (0, true);
        }
        if self.lines >= self.cap {
            return (self.cap, false);
        }
        // A last line without a newline.
        if self.last.is_some_and(|b| b != b'\n') {
            self.lines += 1;
        }
        (self.lines, true)
    }
}

#[cfg(test)]
mod tests {
    use super::LineCounter;

    fn count(chunks: &[&[u8]], cap: usize) -> (usize, bool) {
        let mut c = LineCounter::new(cap);
        for chunk in chunks {
            if !c.feed(chunk) {
                break;
            }
        }
        c.finish()
    }

    #[test]
    fn lines_are_counted_as_gits_diff_counts_them() {
        assert_eq!(count(&[b""], 100), (0, true));
        assert_eq!(count(&[b"a"], 100), (1, true), "no newline at the end");
        assert_eq!(count(&[b"a\n"], 100), (1, true));
        assert_eq!(count(&[b"a\nb"], 100), (2, true));
        assert_eq!(count(&[b"a\n", b"b\n", b"c"], 100), (3, true));
        assert_eq!(count(&[b"\n\n\n"], 100), (3, true));
        assert_eq!(count(&[b"a\0b\nc\n"], 100), (0, true), "binary");
        // A NUL past the first 8,000 bytes is text, as in git.
        let mut late = vec![b'x'; 9000];
        late.extend_from_slice(b"\n\0\n");
        assert_eq!(count(&[&late], 100), (2, true));
        // Split across reads, the sniff still sees a NUL in the first 8,000.
        let first = vec![b'a'; 5000];
        let mut second = vec![b'b'; 2000];
        second.push(0);
        assert_eq!(count(&[&first, &second], 100), (0, true));
    }

    #[test]
    fn counting_stops_at_the_cap_and_says_so() {
        let text = b"1\n2\n3\n4\n5\n".repeat(4000);
        assert_eq!(count(&[&text], 7), (7, false));
        assert_eq!(count(&[&text], 20_000), (20_000, false));
        assert_eq!(count(&[&text], 20_001), (20_000, true));
        assert_eq!(
            count(&[b"a\nb\n"], 2),
            (2, false),
            "two lines reach a cap of two"
        );
    }
}
