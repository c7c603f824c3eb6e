//! Undo as the world does it (issue 28 item 6): well over 100 agent
//! commands that lose work, of every kind (plain file edits,
//! redirections, `rm -r`, `mv` over files, interpreters writing files,
//! build tools and scripts running git, git commands the door lets
//! through or a person approves), each sent through Claude Code's hook as
//! Claude Code sends it, run by a shell when the door does not deny it,
//! then `git vouch undo`; the repository must be back byte for byte: work
//! tree, index, untracked and secret-like ignored files, modes, symlinks,
//! branch and tag tips, `HEAD`, the stash and its order. Then the shapes
//! real repositories come in: two agents at once, mid-rebase, a
//! submodule, a sparse checkout, a gigabyte of ignored build output, a
//! path that is not UTF-8.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use crate::support::{Out, TestEnv, vouch_bin};

/// Everything undo restores, read from the repository at `dir`.
#[derive(Debug, PartialEq, Eq)]
struct State {
    files: BTreeMap<Vec<u8>, (u32, Vec<u8>)>,
    index: String,
    refs: String,
    head: String,
    stash: String,
}

fn walk(dir: &Path, prefix: &[u8], out: &mut BTreeMap<Vec<u8>, (u32, Vec<u8>)>) {
    for e in fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name();
        let name = name.as_bytes();
        // Ignored build output is not snapshotted (it can be rebuilt, and
        // may be gigabytes): left out of the comparison.
        if name == b".git" || (prefix.is_empty() && name == b"target") {
            continue;
        }
        let mut path = prefix.to_vec();
        path.extend_from_slice(name);
        let meta = fs::symlink_metadata(e.path()).unwrap();
        if meta.file_type().is_symlink() {
            let target = fs::read_link(e.path()).unwrap();
            out.insert(path, (0o120_000, target.as_os_str().as_bytes().to_vec()));
        } else if meta.is_dir() {
            path.push(b'/');
            walk(&e.path(), &path, out);
        } else {
            out.insert(
                path,
                (
                    meta.permissions().mode() & 0o111,
                    fs::read(e.path()).unwrap(),
                ),
            );
        }
    }
}

fn state(env: &TestEnv, dir: &Path) -> State {
    let mut files = BTreeMap::new();
    walk(dir, b"", &mut files);
    State {
        files,
        // Conflict stages and skip-worktree bits too.
        index: env.git(dir, &["ls-files", "-s", "-t"]),
        refs: env.git(
            dir,
            &[
                "for-each-ref",
                "--format=%(objectname) %(refname)",
                "refs/heads",
                "refs/tags",
            ],
        ),
        head: env.git_out(dir, &["symbolic-ref", "-q", "HEAD"]).stdout
            + &env.git(dir, &["rev-parse", "HEAD"]),
        // The entries, in order, with their messages.
        stash: env
            .git_out(dir, &["log", "-g", "--format=%H %gs", "refs/stash", "--"])
            .stdout,
    }
}

/// Claude Code's `PreToolUse` message for `command` in `dir`.
fn pre_tool(command: &str, dir: &Path) -> Vec<u8> {
    serde_json::json!({
        "session_id": "corpus", "transcript_path": "/tmp/t.jsonl",
        "cwd": dir.to_string_lossy(), "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "agent step"}
    })
    .to_string()
    .into_bytes()
}

/// Runs vouch's Claude Code hook in `dir` with `input`.
fn hook(env: &TestEnv, dir: &Path, input: &[u8]) -> Out {
    use std::io::Write as _;
    let mut child = env
        .cmd(vouch_bin(), dir)
        .args(["agent-hook", "claude"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    Out::from_output(child.wait_with_output().unwrap())
}

/// What Claude Code does with vouch's answer: `deny` stops the command;
/// no opinion runs it; `ask` runs it once the person approves (here they
/// do). Returns whether it ran, and the shell's output.
fn agent_runs(env: &TestEnv, dir: &Path, command: &str) -> (bool, Out) {
    let answer = hook(env, dir, &pre_tool(command, dir));
    assert_eq!(answer.code, 0, "`{command}`: {}", answer.stderr);
    if answer.stdout.contains(r#""permissionDecision":"deny""#) {
        return (false, answer);
    }
    let out = Out::from_output(env.cmd("sh", dir).args(["-c", command]).output().unwrap());
    (true, out)
}

/// A repository with work in every place an agent can destroy it.
fn busy(env: &TestEnv, w: &Path) {
    fs::create_dir_all(w.join("src/deep")).unwrap();
    fs::write(w.join("src/deep/lib.rs"), "pub fn f() {}\n").unwrap();
    fs::write(w.join("src/main.rs"), "fn main() {}\n").unwrap();
    fs::write(w.join("run.sh"), "#!/bin/sh\necho run\n").unwrap();
    fs::set_permissions(w.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("file1.txt", w.join("link")).unwrap();
    fs::write(w.join(".gitignore"), ".env\ntarget/\n*.log\n").unwrap();
    // Build tools and scripts that run git themselves.
    fs::write(
        w.join("Makefile"),
        "clean:\n\tgit clean -fdqx\nreset:\n\tgit checkout -- . && git clean -fdq\nfresh:\n\tgit stash clear\nrewind:\n\tgit reset -q --hard HEAD~1\n",
    )
    .unwrap();
    fs::create_dir_all(w.join("scripts")).unwrap();
    fs::write(
        w.join("scripts/tidy.sh"),
        "#!/bin/sh\ngit checkout -- . && git clean -fdq && git branch -D feature\n",
    )
    .unwrap();
    fs::set_permissions(w.join("scripts/tidy.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(
        w.join("package.json"),
        r#"{"scripts": {"clean": "git clean -fdq && git checkout -- ."}}"#,
    )
    .unwrap();
    env.git(w, &["add", "-A"]);
    env.git(w, &["commit", "-qm", "more files"]);
    env.git(w, &["tag", "v1"]);
    env.git(w, &["tag", "-a", "-m", "release", "v1-annotated"]);
    env.git(w, &["switch", "-q", "-c", "feature"]);
    env.commit(w, "feature.txt", "unmerged work");
    env.git(w, &["switch", "-q", "main"]);
    env.commit(w, "unpushed.txt", "unpushed work");
    // Two stash entries, in an order to keep.
    fs::write(w.join("stashed.txt"), "stashed first\n").unwrap();
    env.git(w, &["add", "stashed.txt"]);
    env.git(w, &["stash", "push", "-q", "-m", "first"]);
    fs::write(w.join("file1.txt"), "stashed second\n").unwrap();
    env.git(w, &["stash", "push", "-q", "-m", "second"]);
    fs::write(w.join("file1.txt"), "modified, not staged\n").unwrap();
    fs::write(w.join("file2.txt"), "modified and staged\n").unwrap();
    env.git(w, &["add", "file2.txt"]);
    fs::write(w.join("file2.txt"), "staged, then modified again\n").unwrap();
    fs::remove_file(w.join("file3.txt")).unwrap();
    fs::write(w.join("notes.md"), "untracked notes\n").unwrap();
    fs::create_dir_all(w.join("drafts/old")).unwrap();
    fs::write(w.join("drafts/plan.md"), "a plan\n").unwrap();
    fs::write(w.join("drafts/old/idea.md"), "an idea\n").unwrap();
    fs::write(w.join("new.txt"), "added, never committed\n").unwrap();
    env.git(w, &["add", "new.txt"]);
    fs::write(w.join(".env"), "API_KEY=sk-test-1234\n").unwrap();
    fs::create_dir_all(w.join("target")).unwrap();
    fs::write(w.join("target/build.o"), "ignored build output\n").unwrap();
}

/// Commands that lose work, by kind. Each runs in a fresh copy of the
/// busy repository.
fn corpus() -> Vec<String> {
    let mut c: Vec<String> = Vec::new();
    // Plain file edits and redirections, over every kind of file: modified,
    // staged and modified, added, untracked, committed, executable, ignored
    // secret.
    let files = [
        "file1.txt",
        "file2.txt",
        "new.txt",
        "notes.md",
        "src/deep/lib.rs",
        "run.sh",
        ".env",
    ];
    for f in files {
        c.push(format!("rm -f {f}"));
        c.push(format!("echo overwritten > {f}"));
        c.push(format!(": > {f}"));
        c.push(format!("cp src/main.rs {f}"));
        c.push(format!("sed -i 's/[a-z]/X/g' {f}"));
        c.push(format!("truncate -s 3 {f}"));
    }
    for f in ["file1.txt", "notes.md", "file2.txt"] {
        c.push(format!("printf 'x' | tee {f} >/dev/null"));
        c.push(format!("perl -pi -e 's/e/E/g' {f}"));
        c.push(format!("dd if=/dev/null of={f} 2>/dev/null"));
        c.push(format!("mv drafts/plan.md {f}"));
        c.push(format!("cat /dev/null > {f}"));
    }
    // Removing trees.
    for d in [
        "src",
        "drafts",
        "src/deep",
        "scripts",
        ". -mindepth 1 -maxdepth 1 -not -name .git",
    ] {
        if d.starts_with('.') {
            c.push(format!("find {d} -exec rm -rf {{}} +"));
        } else {
            c.push(format!("rm -r {d}"));
            c.push(format!("rm -rf {d} notes.md"));
        }
    }
    c.push("find . -name '*.md' -not -path './.git/*' -delete".into());
    c.push("find . -type f -name '*.txt' -not -path './.git/*' -exec rm {} +".into());
    c.push("rm -rf -- * .env".into());
    c.push("mv notes.md file1.txt && mv new.txt file2.txt".into());
    c.push("mv src/deep/lib.rs src/main.rs".into());
    c.push("chmod -x run.sh && chmod +x file1.txt".into());
    c.push("ln -sf file2.txt link && ln -sf notes.md file1.txt".into());
    c.push("rm link && mkdir link".into());
    c.push("unlink run.sh && shred -u notes.md".into());
    c.push("cp -rf src/. drafts/ && rm -rf drafts/old".into());
    // Interpreters writing files.
    for f in ["file1.txt", "notes.md", "new.txt"] {
        c.push(format!("python3 -c \"open('{f}', 'w').write('')\""));
        c.push(format!("python3 -c \"import os; os.remove('{f}')\""));
        c.push(format!(
            "node -e \"require('fs').writeFileSync('{f}', 'js')\""
        ));
        c.push(format!("node -e \"require('fs').unlinkSync('{f}')\""));
        c.push(format!("perl -e 'unlink \"{f}\"'"));
        c.push(format!("awk 'BEGIN {{ printf \"\" > \"{f}\" }}'"));
    }
    c.push("python3 -c \"import shutil; shutil.rmtree('src')\"".into());
    c.push("node -e \"require('fs').rmSync('drafts', {recursive: true})\"".into());
    c.push("bash -c 'for f in *.txt; do : > \"$f\"; done'".into());
    c.push("sh -c 'rm -rf src; echo done'".into());
    c.push("xargs rm -f <<'EOF'\nfile1.txt\nnotes.md\nEOF".into());
    // Build tools and scripts running git.
    for target in ["clean", "reset", "fresh", "rewind"] {
        c.push(format!("make -s {target}"));
    }
    c.push("./scripts/tidy.sh".into());
    c.push("sh scripts/tidy.sh".into());
    c.push("npm run clean --silent 2>/dev/null || sh -c \"$(node -p \"require('./package.json').scripts.clean\")\"".into());
    c.push(
        "python3 -c \"import subprocess; subprocess.run(['git', 'checkout', '--', '.'])\"".into(),
    );
    c.push("node -e \"require('child_process').execSync('git clean -fdq')\"".into());
    // Git commands the door lets through, or asks a person about (who
    // says yes).
    for cmd in [
        "git checkout -- .",
        "git checkout -- file1.txt file2.txt",
        "git checkout HEAD -- .",
        "git checkout -f",
        "git restore .",
        "git restore --staged --worktree .",
        "git restore --source=HEAD~2 --worktree --staged src",
        "git reset -q",
        "git reset -q --hard",
        "git reset -q --hard HEAD~1",
        "git reset -q --hard v1",
        "git checkout -qf main~1",
        "git reset -q --mixed HEAD~2",
        "git reset -q --soft HEAD~2",
        "git clean -fdqx",
        "git clean -fdq",
        "git clean -fqX",
        "git clean -fq drafts",
        "git stash drop -q",
        "git stash drop -q stash@{1}",
        "git stash clear",
        "git stash pop -q; git checkout -- .",
        "git stash push -q",
        "git stash push -q -u",
        "git stash push -q --all",
        "git stash push -q -u && git stash drop -q",
        "git rm -rqf --cached .",
        "git rm -rqf src",
        "git rm -qf new.txt file2.txt",
        "git mv -f notes.md file1.txt 2>/dev/null || git mv -f src/main.rs file1.txt",
        "git add -A && git commit -qm 'agent commit'",
        "git commit -qam 'agent commit' && git reset -q --hard HEAD~3",
        "git branch -D feature",
        "git branch -f feature main~2",
        "git tag -d v1 v1-annotated",
        "git tag -f v1 HEAD~2",
        "git update-ref -d refs/heads/feature",
        "git update-ref refs/heads/main HEAD~2",
        "git switch -q -c elsewhere HEAD~2 && git branch -D main",
        "git checkout -q --detach HEAD~1",
        "git checkout -q -f feature",
        "git switch -q -f -C main HEAD~1",
        "git merge -q --no-edit feature; git reset -q --hard ORIG_HEAD",
        "git rebase -q HEAD~2 --onto HEAD~3 2>/dev/null; git rebase --abort 2>/dev/null; git reset -q --hard HEAD~1",
        "git cherry-pick feature >/dev/null 2>&1; git checkout -- . ",
        "git revert --no-edit HEAD >/dev/null 2>&1; git reset -q --hard HEAD~1",
        "git read-tree HEAD~2 && git checkout-index -af",
        "git checkout-index -af",
        "git diff | git apply -R",
        "git -c core.hooksPath=/dev/null reset -q --hard HEAD~2",
        "GIT_DIR=.git git reset -q --hard",
        "git -C src checkout -- :/",
    ] {
        c.push(cmd.to_owned());
    }
    c
}

/// Copies the repository at `from` to `to` (modes, links, `.git`).
fn copy(env: &TestEnv, from: &Path, to: &Path) {
    let out = env
        .cmd("cp", from.parent().unwrap())
        .arg("-a")
        .arg(from)
        .arg(to)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// Runs every case from `range` of the corpus: through the door, in a
/// shell, then undone, each in its own copy of the busy repository.
/// Returns how many ran (the others the door denied, and they changed
/// nothing).
fn run_cases(range: std::ops::Range<usize>) -> usize {
    let env = TestEnv::new();
    busy(&env, &env.work);
    let template = env.work.clone();
    let cases = corpus();
    let mut ran = 0;
    // The cases that run node are left out where it is missing (named).
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let mut said = false;
    for (i, command) in cases.iter().enumerate().skip(range.start).take(range.len()) {
        if !node && command.contains("node ") {
            if !said {
                crate::support::missing("node");
                said = true;
            }
            continue;
        }
        let dir = env.base().join(format!("case-{i}"));
        copy(&env, &template, &dir);
        let before = state(&env, &dir);
        let (executed, out) = agent_runs(&env, &dir, command);
        if !executed {
            assert_eq!(state(&env, &dir), before, "`{command}` was denied");
            continue;
        }
        ran += 1;
        assert!(
            state(&env, &dir) != before,
            "case {i}: `{command}` changed nothing:\n{}\n{}",
            out.stdout,
            out.stderr
        );
        let undo = env.vouch_in(&dir, &["undo"]);
        assert_eq!(undo.code, 0, "case {i}: `{command}`: {}", undo.stderr);
        let after = state(&env, &dir);
        if after != before {
            let diff: Vec<String> = before
                .files
                .iter()
                .filter(|(k, v)| after.files.get(*k) != Some(v))
                .map(|(k, _)| String::from_utf8_lossy(k).into_owned())
                .chain(
                    after
                        .files
                        .keys()
                        .filter(|k| !before.files.contains_key(*k))
                        .map(|k| format!("+{}", String::from_utf8_lossy(k))),
                )
                .collect();
            panic!(
                "case {i}: `{command}` was not undone: files {diff:?}\nindex {}\nrefs {}\nhead {}\nstash {}\n{}",
                before.index == after.index,
                before.refs == after.refs,
                before.head == after.head,
                before.stash == after.stash,
                undo.stderr
            );
        }
        fs::remove_dir_all(&dir).ok();
    }
    ran
}

#[test]
fn the_corpus_has_more_than_100_losses() {
    assert!(corpus().len() > 100, "{}", corpus().len());
}

/// The corpus in four parts, so that they can run side by side.
#[test]
fn corpus_part_1_is_undone_byte_for_byte() {
    let n = corpus().len();
    assert!(run_cases(0..n / 4) >= 25);
}

#[test]
fn corpus_part_2_is_undone_byte_for_byte() {
    let n = corpus().len();
    assert!(run_cases(n / 4..n / 2) >= 25);
}

#[test]
fn corpus_part_3_is_undone_byte_for_byte() {
    let n = corpus().len();
    assert!(run_cases(n / 2..3 * n / 4) >= 25);
}

#[test]
fn corpus_part_4_is_undone_byte_for_byte() {
    let n = corpus().len();
    assert!(run_cases(3 * n / 4..n) >= 25);
}

/// Runs `command` as an agent in `dir`, then undoes it, and checks the
/// repository is as it was.
fn lose_and_undo(env: &TestEnv, dir: &Path, command: &str) {
    let before = state(env, dir);
    let (executed, out) = agent_runs(env, dir, command);
    assert!(executed, "`{command}` was denied: {}", out.stdout);
    assert!(
        state(env, dir) != before,
        "`{command}` changed nothing: {}",
        out.stderr
    );
    let undo = env.vouch_in(dir, &["undo"]);
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    let after = state(env, dir);
    assert!(
        after == before,
        "`{command}` was not undone: {}\n{}",
        differences(&before, &after),
        undo.stderr
    );
}

/// What differs between two states, for a failure's message: each file
/// that differs with its content before and after, then the other parts.
fn differences(before: &State, after: &State) -> String {
    let shown = |f: Option<&(u32, Vec<u8>)>| {
        f.map_or("(none)".to_owned(), |(mode, content)| {
            format!("{mode:o} {:?}", String::from_utf8_lossy(content))
        })
    };
    let mut out = String::new();
    let paths: std::collections::BTreeSet<&Vec<u8>> =
        before.files.keys().chain(after.files.keys()).collect();
    for path in paths {
        let (b, a) = (before.files.get(path), after.files.get(path));
        if b != a {
            out.push_str(&format!(
                "\nfile {}: before {}, after {}",
                String::from_utf8_lossy(path),
                shown(b),
                shown(a)
            ));
        }
    }
    for (part, b, a) in [
        ("index", &before.index, &after.index),
        ("refs", &before.refs, &after.refs),
        ("head", &before.head, &after.head),
        ("stash", &before.stash, &after.stash),
    ] {
        if b != a {
            out.push_str(&format!("\n{part} before:\n{b}\n{part} after:\n{a}"));
        }
    }
    out
}

/// Two agents in one repository at once: their snapshots are taken one
/// at a time (a lock in the git directory), none is corrupt, and each
/// holds the files as one state of the repository.
#[test]
fn two_agents_at_once_take_whole_snapshots() {
    let env = TestEnv::new();
    busy(&env, &env.work);
    let work = env.work.clone();
    std::thread::scope(|s| {
        for agent in ["a", "b"] {
            let env = &env;
            let work = &work;
            s.spawn(move || {
                for i in 0..8 {
                    fs::write(work.join(format!("{agent}.txt")), format!("{agent} {i}\n")).unwrap();
                    let answer = hook(
                        env,
                        work,
                        &pre_tool(&format!("make step-{agent}-{i}"), work),
                    );
                    assert_eq!(answer.code, 0, "{}", answer.stderr);
                    assert!(!answer.stderr.contains("no snapshot"), "{}", answer.stderr);
                }
            });
        }
    });
    let names = env.snapshot_refs();
    assert!(names.len() >= 8, "{names:?}");
    for name in &names {
        // Every part of every snapshot reads back.
        for part in ["refs", "index.entries"] {
            env.store_git(&["cat-file", "blob", &format!("{name}:{part}")]);
        }
        env.store_git(&["ls-tree", "-r", &format!("{name}:worktree")]);
    }
    // The newest holds the files as they are now.
    let before = state(&env, &work);
    lose_and_undo(&env, &work, "rm -f a.txt b.txt file1.txt");
    assert_eq!(state(&env, &work), before);
}

/// Mid-rebase, with a conflict: an agent's hard reset loses the
/// conflict's stages and the half-resolved file; undo puts them back
/// (the rebase itself, in `.git/rebase-merge`, was never touched).
#[test]
fn a_repository_mid_rebase_gets_its_conflict_back() {
    let env = TestEnv::new();
    let w = &env.work;
    env.git(w, &["switch", "-q", "-c", "side", "HEAD~1"]);
    fs::write(w.join("file1.txt"), "side\n").unwrap();
    env.git(w, &["commit", "-qam", "side"]);
    env.git(w, &["switch", "-q", "main"]);
    fs::write(w.join("file1.txt"), "main\n").unwrap();
    env.git(w, &["commit", "-qam", "main"]);
    let rebase = env.git_out(w, &["rebase", "-q", "side"]);
    assert_ne!(rebase.code, 0, "a conflict");
    fs::write(w.join("file1.txt"), "half resolved by hand\n").unwrap();
    fs::write(w.join("notes.md"), "while rebasing\n").unwrap();
    assert!(state(&env, w).index.contains(" 3\tfile1.txt"));
    lose_and_undo(&env, w, "git reset -q --hard && git clean -fdq");
    assert!(w.join(".git/rebase-merge").is_dir(), "still mid-rebase");
    // An agent's `git rebase --abort` ends the rebase itself: its undo
    // puts the rebase back, byte for byte, and it goes on from there.
    let rebase_files = |w: &Path| {
        let mut files = BTreeMap::new();
        for e in fs::read_dir(w.join(".git/rebase-merge")).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() {
                files.insert(e.file_name(), fs::read(e.path()).unwrap());
            }
        }
        files
    };
    let rebasing = rebase_files(w);
    lose_and_undo(&env, w, "git rebase --abort");
    assert_eq!(rebase_files(w), rebasing);
    fs::write(w.join("file1.txt"), "resolved\n").unwrap();
    env.git(w, &["add", "file1.txt"]);
    let next = env.git_out(w, &["-c", "core.editor=true", "rebase", "--continue"]);
    assert_eq!(next.code, 0, "{}", next.stderr);
    assert!(!w.join(".git/rebase-merge").exists());
}

/// Sets the modification time of `path` to `secs` after the epoch.
fn set_mtime(path: &Path, secs: u64) {
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs))
        .unwrap();
}

/// A change git can tell only by content ("racily clean", git's
/// Documentation/technical/racy-git.txt): a file rewritten with the same
/// size in the same second as the index was written, so that its
/// recorded stat still matches. git compares such entries by content
/// because their time is not older than the index file's; a snapshot that
/// read a copy of the index with a newer time trusted the stale stat and
/// kept the old content, and undo then put the old content back over the
/// person's change. The times are set by hand (with `core.trustctime`
/// off, as some file systems need, since no one can set a ctime), so the
/// race happens every time.
#[test]
fn a_change_made_in_the_same_second_as_the_index_is_kept() {
    let env = TestEnv::new();
    let w = &env.work;
    env.git(w, &["config", "core.trustctime", "false"]);
    let when = 1_600_000_000;
    set_mtime(&w.join("file1.txt"), when);
    env.git(w, &["update-index", "-q", "--refresh"]);
    // The same size as `commit 1\n`, the same time as the recorded stat
    // and as the index file.
    fs::write(w.join("file1.txt"), "modified\n").unwrap();
    set_mtime(&w.join("file1.txt"), when);
    set_mtime(&w.join(".git/index"), when);
    // git sees the change (without rewriting the index as it looks).
    let seen = env.git(w, &["--no-optional-locks", "status", "--porcelain"]);
    assert_eq!(seen, " M file1.txt\n");
    lose_and_undo(&env, w, "git checkout -- file1.txt");
    assert_eq!(
        fs::read_to_string(w.join("file1.txt")).unwrap(),
        "modified\n"
    );
}

/// A submodule: the parent's lost files come back, and the submodule's
/// checkout is left as it was. (It failed now and then under load: its
/// `modified\n` is as long as `commit 1\n`, so a setup that ran within one
/// second made the race of the test above.)
#[test]
fn a_repository_with_a_submodule() {
    let env = TestEnv::new();
    let w = &env.work;
    let lib = env.base().join("lib");
    env.git(&env.base(), &["init", "-q", "-b", "main", "lib"]);
    env.commit(&lib, "lib.txt", "the library");
    env.git(
        w,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            lib.to_str().unwrap(),
            "vendor/lib",
        ],
    );
    env.git(w, &["commit", "-qm", "add the submodule"]);
    fs::write(w.join("file1.txt"), "modified\n").unwrap();
    fs::write(w.join("notes.md"), "untracked\n").unwrap();
    lose_and_undo(&env, w, "rm -f file1.txt notes.md && git checkout -- .");
    assert_eq!(
        fs::read_to_string(w.join("vendor/lib/lib.txt")).unwrap(),
        "the library\n"
    );
}

/// A sparse checkout: what is outside it stays out of the work tree, and
/// keeps its skip-worktree bit in the index.
#[test]
fn a_sparse_checkout_stays_sparse() {
    let env = TestEnv::new();
    let w = &env.work;
    for f in ["app/a.txt", "app/b.txt", "docs/guide.md", "docs/more/x.md"] {
        env.commit(w, f, "content");
    }
    env.git(w, &["sparse-checkout", "set", "app"]);
    assert!(!w.join("docs").exists());
    fs::write(w.join("app/a.txt"), "work in progress\n").unwrap();
    fs::write(w.join("app/new.txt"), "untracked\n").unwrap();
    lose_and_undo(&env, w, "rm -rf app && git checkout -- .");
    assert!(!w.join("docs").exists(), "the sparse checkout was widened");
    assert!(env.git(w, &["ls-files", "-t", "docs"]).starts_with("S "));
}

/// A gigabyte of ignored build output (1,000 files of 1 MiB, sparse on
/// disk so that the test writes little): never copied into a snapshot,
/// and an agent's loss of tracked work next to it undone.
#[test]
fn a_gigabyte_of_ignored_build_output_is_not_copied() {
    let env = TestEnv::new();
    let w = &env.work;
    fs::write(w.join(".gitignore"), "target/\n").unwrap();
    env.git(w, &["add", ".gitignore"]);
    env.git(w, &["commit", "-qm", "ignore"]);
    for d in 0..10 {
        let dir = w.join(format!("target/debug/deps{d}"));
        fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            let file = fs::File::create(dir.join(format!("lib{f}.rlib"))).unwrap();
            file.set_len(1024 * 1024).unwrap();
        }
    }
    fs::write(w.join("file1.txt"), "uncommitted\n").unwrap();
    lose_and_undo(&env, w, "rm -f file1.txt");
    let snapshot = env.snapshot_refs().remove(0);
    let listed = env.store_git(&[
        "ls-tree",
        "-r",
        "--name-only",
        &format!("{snapshot}:worktree"),
    ]);
    assert!(!listed.contains("target/"), "{listed}");
    assert_eq!(fs::read_dir(w.join("target/debug")).unwrap().count(), 10);
}

/// A repository under a path that is not UTF-8, with a file named in such
/// bytes: Claude Code's message cannot carry the path (JSON is UTF-8), so
/// the hook works in its own directory, and the file comes back.
#[test]
fn a_repository_under_a_path_that_is_not_utf8() {
    let env = TestEnv::new();
    let dir = env
        .base()
        .join(std::ffi::OsStr::from_bytes(b"proj-\xff\xfe"));
    copy(&env, &env.work, &dir);
    fs::write(
        dir.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt")),
        "latin-1 name\n",
    )
    .unwrap();
    fs::write(dir.join("file1.txt"), "uncommitted\n").unwrap();
    lose_and_undo(&env, &dir, "rm -f caf* file1.txt");
}

/// An untracked repository with no commit yet inside the work tree
/// (`git init` of a new project): git cannot stage it as a gitlink, so
/// the snapshot names it and copies the rest; what the command loses
/// around it comes back.
#[test]
fn an_empty_nested_repository_does_not_stop_the_snapshot() {
    let env = TestEnv::new();
    let work = env.work.clone();
    busy(&env, &work);
    env.git(&work, &["init", "-q", "new-project"]);
    fs::write(
        work.join("new-project/draft.txt"),
        "not committed anywhere\n",
    )
    .unwrap();
    let answer = hook(&env, &work, &pre_tool("make", &work));
    assert!(!answer.stderr.contains("no snapshot"), "{}", answer.stderr);
    let snapshot = env
        .audit()
        .into_iter()
        .rev()
        .find(|l| l["operation_type"] == "snapshot");
    let snapshot = snapshot.expect("a snapshot's audit line");
    assert_eq!(
        snapshot["snapshot"]["not_copied"][0], "new-project",
        "{snapshot}"
    );
    lose_and_undo(&env, &work, "rm -f file1.txt notes.md");
}
