//! The staged change read with the git command line, for repositories
//! libgit2 cannot open or whose index it cannot read (reftable, SHA-256,
//! split and sparse indexes; issue 39 item 5): the same facts as
//! [`Repo::staged`](super::Repo::staged), asked of git, so that the
//! pre-commit door measures what the other doors measure there.
//!
//! Where the libgit2 side reads a blob only as far as a rule needs it,
//! this side takes git's own line counts (`--numstat`) for every file: a
//! large staged change costs more, in these repositories only.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::Path;

use super::local_cli::run_bytes;
use crate::classify::facts::{FileStatus, StagedFacts, StagedFile};
use crate::classify::staged::Reading;

/// How many paths one question names on git's command line; with more,
/// a merge's staged files are all judged (the cautious answer).
const PATH_LIMIT: usize = 2_000;

/// Runs git in `dir`; stdout when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run_bytes(dir, &args)
}

/// Runs `git <args> -- <paths>` with the paths read literally.
fn git_paths(dir: &Path, args: &[&str], paths: &[&str]) -> Option<Vec<u8>> {
    let mut all: Vec<&OsStr> = vec![OsStr::new("--literal-pathspecs")];
    all.extend(args.iter().map(OsStr::new));
    all.push(OsStr::new("--"));
    all.extend(paths.iter().map(OsStr::new));
    run_bytes(dir, &all)
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).trim_end().to_owned()
}

/// The staged change in the repository at `dir` (the index git names in
/// `GIT_INDEX_FILE` against `HEAD`, or against the empty tree before the
/// first commit); `None` when git cannot read it either.
pub fn cli_staged(dir: &Path, reading: &Reading<'_>) -> Option<StagedFacts> {
    let base = match git(dir, &["rev-parse", "-q", "--verify", "HEAD^{tree}"]) {
        Some(tree) => text(&tree),
        // The empty tree of this repository's object format.
        None => text(&git(dir, &["hash-object", "-t", "tree", "/dev/null"])?),
    };
    let raw = git(dir, &["diff-index", "--cached", "-z", "-M", &base])?;
    let counts = numstat(&git(
        dir,
        &["diff-index", "--cached", "-z", "-M", "--numstat", &base],
    )?);
    let mut files: Vec<(StagedFile, Option<String>, bool)> = entries(&raw);
    leave_out_merged(dir, &mut files);
    for (file, old_path, gitlink) in &mut files {
        // A submodule is judged by its path; its commit is never read.
        if *gitlink {
            continue;
        }
        if !reading.inspected(&file.path) && !reading.counted(&file.path) {
            // A lockfile's churn counts for no rule.
            file.lines_partial = true;
            continue;
        }
        if let Some(&(added, deleted)) = counts.get(&file.path) {
            file.added_lines = added;
            file.deleted_lines = deleted;
        }
        if reading.inspected(&file.path) {
            let mut paths = vec![file.path.as_str()];
            paths.extend(old_path.as_deref());
            let patch = git_paths(
                dir,
                &[
                    "diff-index",
                    "--cached",
                    "-p",
                    "-U0",
                    "--no-color",
                    "-M",
                    &base,
                ],
                &paths,
            )?;
            lines_of(&patch, file);
        }
    }
    let branch = git(dir, &["symbolic-ref", "-q", "--short", "HEAD"]).map(|b| text(&b));
    Some(StagedFacts {
        files: files.into_iter().map(|(f, _, _)| f).collect(),
        branch,
        unmeasured: None,
    })
}

/// The files of `git diff-index -z` (its raw format), each with the old
/// path of a rename and whether it is a submodule, no lines read yet.
fn entries(raw: &[u8]) -> Vec<(StagedFile, Option<String>, bool)> {
    let mut out = Vec::new();
    let mut fields = raw.split(|b| *b == 0).filter(|f| !f.is_empty());
    while let Some(head) = fields.next() {
        // `:<old mode> <new mode> <old id> <new id> <status>`
        let head = String::from_utf8_lossy(head);
        let words: Vec<&str> = head.trim_start_matches(':').split(' ').collect();
        let [old_mode, new_mode, old_oid, new_oid, status] = words[..] else {
            break;
        };
        let letter = status.chars().next().unwrap_or('M');
        let Some(first) = fields.next() else {
            break;
        };
        let first = String::from_utf8_lossy(first).into_owned();
        let (path, old_path) = if matches!(letter, 'R' | 'C') {
            let Some(second) = fields.next() else {
                break;
            };
            (String::from_utf8_lossy(second).into_owned(), Some(first))
        } else {
            (first, None)
        };
        let status = match letter {
            'A' | 'C' => FileStatus::Added,
            'D' => FileStatus::Deleted,
            'R' => FileStatus::Renamed,
            _ => FileStatus::Modified,
        };
        let gitlink = old_mode == "160000" || new_mode == "160000";
        out.push((
            StagedFile::unread(path, status, old_oid, new_oid),
            // A copy's source is not part of the change.
            old_path.filter(|_| letter == 'R'),
            gitlink,
        ));
    }
    out
}

/// The lines added and deleted per (new) path, as `--numstat -z` prints
/// them; a binary file has none.
fn numstat(out: &[u8]) -> HashMap<String, (usize, usize)> {
    let mut counts = HashMap::new();
    let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty());
    while let Some(field) = fields.next() {
        let field = String::from_utf8_lossy(field);
        let mut parts = field.splitn(3, '\t');
        let (Some(a), Some(d), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            break;
        };
        let path = if path.is_empty() {
            // A rename: the old path, then the new one.
            fields.next();
            match fields.next() {
                Some(new) => String::from_utf8_lossy(new).into_owned(),
                None => break,
            }
        } else {
            path.to_owned()
        };
        counts.insert(
            path,
            (a.parse().unwrap_or_default(), d.parse().unwrap_or_default()),
        );
    }
    counts
}

/// The added lines (with their line numbers) and deleted lines of `file`
/// in `patch` (`git diff -U0`).
fn lines_of(patch: &[u8], file: &mut StagedFile) {
    let mut next: Option<u32> = None;
    for line in patch.split(|b| *b == b'\n') {
        if line.starts_with(b"diff ") {
            next = None;
        } else if let Some(hunk) = line.strip_prefix(b"@@ ") {
            // `@@ -a,b +c,d @@`: the new side starts at line c.
            next = String::from_utf8_lossy(hunk)
                .split(' ')
                .find_map(|w| w.strip_prefix('+'))
                .and_then(|w| w.split(',').next())
                .and_then(|n| n.parse().ok());
        } else if let Some(at) = next.as_mut() {
            let content = || String::from_utf8_lossy(&line[1..]).trim_end().to_owned();
            match line.first() {
                Some(b'+') => {
                    file.added.push((*at, content()));
                    *at += 1;
                }
                Some(b'-') => file.deleted.push(content()),
                Some(b' ') => *at += 1,
                _ => {}
            }
        }
    }
}

/// Concluding a merge: what is staged exactly as the merged side has it
/// was committed (and judged) there, as in [`Repo::staged`](super::Repo::staged).
fn leave_out_merged(dir: &Path, files: &mut Vec<(StagedFile, Option<String>, bool)>) {
    if files.is_empty() || files.len() > PATH_LIMIT {
        return;
    }
    let Some(theirs) = git(dir, &["rev-parse", "-q", "--verify", "MERGE_HEAD^{tree}"]) else {
        return;
    };
    let theirs = text(&theirs);
    let paths: Vec<&str> = files.iter().map(|(f, _, _)| f.path.as_str()).collect();
    let Some(listed) = git_paths(
        dir,
        &["ls-tree", "-r", "-z", "--full-tree", &theirs],
        &paths,
    ) else {
        return;
    };
    // `<mode> <type> <id>\t<path>`
    let blobs: HashMap<String, String> = listed
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (head, path) = entry.split_once('\t')?;
            let oid = head.split(' ').nth(2)?;
            Some((path.to_owned(), oid.to_owned()))
        })
        .collect();
    files.retain(|(f, _, _)| {
        let theirs_blob = blobs.get(&f.path);
        match f.status {
            FileStatus::Deleted => theirs_blob.is_some(),
            _ => theirs_blob.map(String::as_str) != Some(f.new_oid.as_str()),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_entries_and_counts_are_read_as_git_prints_them() {
        let z = "0".repeat(40);
        let raw = format!(
            ":000000 100644 {z} {a} A\0new.txt\0:100644 100644 {b} {c} R087\0old name\0new name\0:100644 000000 {b} {z} D\0gone\0:160000 160000 {b} {c} M\0sub\0",
            a = "a".repeat(40),
            b = "b".repeat(40),
            c = "c".repeat(40),
        );
        let files = entries(raw.as_bytes());
        let got: Vec<(&str, FileStatus, Option<&str>, bool)> = files
            .iter()
            .map(|(f, old, gitlink)| (f.path.as_str(), f.status, old.as_deref(), *gitlink))
            .collect();
        assert_eq!(
            got,
            [
                ("new.txt", FileStatus::Added, None, false),
                ("new name", FileStatus::Renamed, Some("old name"), false),
                ("gone", FileStatus::Deleted, None, false),
                ("sub", FileStatus::Modified, None, true),
            ]
        );
        assert_eq!(files[0].0.old_oid, "", "an all-zero id is no blob");
        assert_eq!(files[2].0.new_oid, "");
        let counts =
            numstat(b"3\t0\tnew.txt\x001\t1\t\x00old name\x00new name\x00-\t-\tlogo.png\x00");
        assert_eq!(counts["new.txt"], (3, 0));
        assert_eq!(counts["new name"], (1, 1));
        assert_eq!(counts["logo.png"], (0, 0), "a binary file has no lines");
    }

    #[test]
    fn a_zero_context_patch_gives_lines_with_their_numbers() {
        let patch = b"diff --git a/m.sql b/m.sql\nindex 1..2 100644\n--- a/m.sql\n+++ b/m.sql\n@@ -2 +2,2 @@\n-keep me\n+DROP TABLE users;\n+-- done\n@@ -10,0 +12 @@\n+ALTER TABLE t DROP COLUMN c;\n\\ No newline at end of file\n";
        let mut file =
            entries(format!(":100644 100644 {0} {0} M\0m.sql\0", "1".repeat(40)).as_bytes())
                .remove(0)
                .0;
        lines_of(patch, &mut file);
        assert_eq!(
            file.added,
            [
                (2, "DROP TABLE users;".to_owned()),
                (3, "-- done".to_owned()),
                (12, "ALTER TABLE t DROP COLUMN c;".to_owned()),
            ]
        );
        assert_eq!(file.deleted, ["keep me"]);
    }
}
