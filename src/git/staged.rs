//! The staged change a commit would make: the index against `HEAD`.

use std::path::Path;

use anyhow::{Context, Result};

use super::Repo;
use crate::facts::{FileStatus, StagedFacts, StagedFile};

impl Repo {
    /// The staged change: the index against `HEAD`. A repository opened
    /// for a hook reads the index git names in `GIT_INDEX_FILE` (the
    /// temporary one of `git commit -a` and `git commit <paths>`).
    /// `inspect` says which paths' added and deleted lines are kept.
    pub fn staged(&self, inspect: &dyn Fn(&str) -> bool) -> Result<StagedFacts> {
        let index = self.repo.index().context("cannot read the index")?;
        let head_tree = self.repo.head().ok().and_then(|h| h.peel_to_tree().ok());
        let mut opts = git2::DiffOptions::new();
        opts.context_lines(0);
        let mut diff = self
            .repo
            .diff_tree_to_index(head_tree.as_ref(), Some(&index), Some(&mut opts))
            .context("cannot compare the index with HEAD")?;
        diff.find_similar(None).ok();
        let files = std::cell::RefCell::new(Vec::<StagedFile>::new());
        // Whether the current file's lines are kept: decided once per file, not per line.
        let keep = std::cell::Cell::new(false);
        let mut on_file = |delta: git2::DiffDelta<'_>, _: f32| {
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
            let oid = |f: git2::DiffFile<'_>| {
                if f.id().is_zero() {
                    String::new()
                } else {
                    f.id().to_string()
                }
            };
            keep.set(inspect(&path));
            files.borrow_mut().push(StagedFile {
                path,
                status,
                added_lines: 0,
                deleted_lines: 0,
                old_oid: oid(delta.old_file()),
                new_oid: oid(delta.new_file()),
                added: Vec::new(),
                deleted: Vec::new(),
            });
            true
        };
        let mut on_line =
            |_: git2::DiffDelta<'_>, _: Option<git2::DiffHunk<'_>>, line: git2::DiffLine<'_>| {
                let mut files = files.borrow_mut();
                let Some(file) = files.last_mut() else {
                    return true;
                };
                let keep = keep.get();
                match line.origin() {
                    '+' => {
                        file.added_lines += 1;
                        if keep {
                            let text = String::from_utf8_lossy(line.content())
                                .trim_end()
                                .to_owned();
                            file.added.push((line.new_lineno().unwrap_or(0), text));
                        }
                    }
                    '-' => {
                        file.deleted_lines += 1;
                        if keep {
                            file.deleted.push(
                                String::from_utf8_lossy(line.content())
                                    .trim_end()
                                    .to_owned(),
                            );
                        }
                    }
                    _ => {}
                }
                true
            };
        diff.foreach(&mut on_file, None, None, Some(&mut on_line))
            .context("cannot read the staged change")?;
        let mut files = files.into_inner();
        // Concluding a merge: what is staged exactly as the merged side has it
        // was committed (and judged) there; what the merge itself adds is not.
        // (Looked for as a file first: resolving the name tries six refs.)
        if let Some(theirs) = self
            .repo
            .path()
            .join("MERGE_HEAD")
            .is_file()
            .then(|| self.repo.revparse_single("MERGE_HEAD").ok())
            .flatten()
            .and_then(|o| o.peel_to_tree().ok())
        {
            files.retain(|f| {
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
        Ok(StagedFacts {
            files,
            branch: self.current_branch(),
        })
    }
}
