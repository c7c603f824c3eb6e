//! A refusal leaves the repository as it was (issue 35 item 2): every git
//! command that changes the work tree, the index or a reflog before the
//! ref update vouch's `reference-transaction` hook refuses, with the
//! refusal forced, and the repository compared with its state before,
//! file by file and byte for byte. What cannot be the same is named with
//! the test that allows it (`docs/doors.md`, "A refusal after git
//! began").
//!
//! The refusal is forced two ways: a person's own command with no verdict
//! and `on_unavailable = "block"` (nobody at a terminal), and an agent's
//! command the agent door could not read (a script), which a git hook
//! refuses because an agent cannot decide it. Only the second has a
//! snapshot from before the command.

use std::collections::BTreeMap;
use std::fs;

use serde_json::json;

use crate::support::{Out, TestEnv};

/// Every file of the repository (work tree and git directory) by path,
/// with its bytes, vouch's own per-process memo (`.git/vouch-*`) left
/// out; and what git reads of it: the index's entries, the refs, `HEAD`,
/// and the stash's list.
fn state(env: &TestEnv) -> BTreeMap<String, Vec<u8>> {
    state_in(env, &env.work)
}

/// [`state`] of the work tree at `root` (the main one holds the git
/// directory, and a linked one's too).
fn state_in(env: &TestEnv, root: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    let mut stack = vec![env.work.clone()];
    if root != env.work {
        stack.push(root.to_path_buf());
    }
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let rel = path
                .strip_prefix(&env.work)
                .or_else(|_| path.strip_prefix(root))
                .unwrap()
                .display()
                .to_string();
            if rel.starts_with(".git/vouch-") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                all.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    for (key, args) in [
        ("(index entries)", &["ls-files", "-s"][..]),
        (
            "(refs)",
            &["for-each-ref", "--format=%(objectname) %(refname)"],
        ),
        ("(HEAD)", &["symbolic-ref", "-q", "HEAD"]),
        ("(stash)", &["stash", "list", "--format=%H %gs"]),
        (
            "(status)",
            &["status", "--porcelain=v2", "--untracked-files=all"],
        ),
    ] {
        all.insert(key.to_owned(), env.git_out(root, args).stdout.into_bytes());
    }
    all
}

/// What may differ, and why.
const INDEX_TIMES: (&str, &str) = (
    ".git/index",
    "the index caches each file's time and inode, and the files git rewrote were written again; its entries are compared",
);
const ORIG_HEAD: (&str, &str) = (
    ".git/ORIG_HEAD",
    "git's note of the tip before a reset, written in a transaction of its own before the refused one, which no hook of vouch's is shown",
);

/// Asserts the repository is as `before` but for `except` (each named
/// with why).
#[track_caller]
fn assert_same(before: &BTreeMap<String, Vec<u8>>, env: &TestEnv, except: &[(&str, &str)]) {
    assert_same_in(before, env, &env.work, except);
}

#[track_caller]
fn assert_same_in(
    before: &BTreeMap<String, Vec<u8>>,
    env: &TestEnv,
    root: &std::path::Path,
    except: &[(&str, &str)],
) {
    let after = state_in(env, root);
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    let changed: Vec<String> = keys
        .into_iter()
        .filter(|k| before.get(*k) != after.get(*k))
        .filter(|k| !except.iter().any(|(e, _)| e == k))
        .map(|k| {
            format!(
                "{k}:\n  before: {:?}\n  after:  {:?}",
                before
                    .get(k)
                    .map(|b| String::from_utf8_lossy(b).into_owned()),
                after
                    .get(k)
                    .map(|b| String::from_utf8_lossy(b).into_owned())
            )
        })
        .collect();
    assert!(changed.is_empty(), "changed:\n{}", changed.join("\n"));
}

/// No verdict, and vouch refuses what it cannot verify: a person's
/// command, headless, is refused.
fn refuse_unverified(env: &TestEnv) {
    env.write_config("[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\n");
}

/// Two commits on `main` no other ref has (`four.txt`, `five.txt`).
fn two_unpushed(env: &TestEnv) -> String {
    env.commit(&env.work, "four.txt", "four");
    env.commit(&env.work, "five.txt", "five")
}

/// A person's own command, refused: exit 128 (git's `ref updates aborted
/// by hook`).
#[track_caller]
fn refused(env: &TestEnv, args: &[&str]) -> Out {
    let out = env.git_headless(&env.work, args);
    out.code(128).stderr_has("aborted by");
    out
}

/// An agent runs `git args` inside a script the agent door cannot read:
/// the door takes a snapshot and lets it run; vouch's git hook refuses.
#[track_caller]
fn refused_in_agent_script(env: &TestEnv, args: &[&str]) -> Out {
    let script = env.base().join("tidy.pl");
    let words: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    fs::write(
        &script,
        format!("exit(system('git', {}) >> 8);\n", words.join(", ")),
    )
    .unwrap();
    let command = format!("perl {}", script.display());
    let input = json!({"session_id": "s-1", "cwd": env.work,
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "permission_mode": "default", "tool_input": {"command": command}});
    let door = env.vouch_stdin(&["agent-hook", "claude"], input.to_string().as_bytes());
    door.code(0);
    assert!(
        door.stdout.trim().is_empty(),
        "the door has no opinion: {}",
        door.stdout
    );
    let out = Out::from_output(
        env.cmd("setsid", &env.work)
            .arg("-w")
            .arg("perl")
            .arg(&script)
            .env("CLAUDECODE", "1")
            .output()
            .expect("perl runs"),
    );
    assert_ne!(out.code, 0, "{}", out.stderr);
    out.stderr_has("aborted by");
    out
}

/// `git reset --hard HEAD~2` rewrites the index and the work tree before
/// its ref update; refused, vouch moves them back to the commit the
/// branch still names. A clean work tree is then as it was; an
/// uncommitted edit git overwrote is gone, and said to be.
#[test]
fn reset_hard_by_a_person() {
    let env = TestEnv::new();
    env.install();
    refuse_unverified(&env);
    let tip = two_unpushed(&env);
    fs::write(env.work.join("untracked.txt"), "not git's\n").unwrap();
    let before = state(&env);
    refused(&env, &["reset", "--hard", "HEAD~2"]).stderr_has("vouch put them back at");
    assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);
    assert_eq!(env.rev(&env.work, "main"), tip);

    // An uncommitted edit: git overwrites it before any hook runs.
    fs::write(env.work.join("file1.txt"), "uncommitted edit\n").unwrap();
    let out = refused(&env, &["reset", "--hard", "HEAD~2"]);
    out.stderr_has("uncommitted edits, which git overwrote before any hook ran");
    assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);
}

/// The same in a linked work tree: its own index, `HEAD` and
/// `ORIG_HEAD` live in the main repository's `.git/worktrees/<name>/`.
#[test]
fn reset_hard_by_a_person_in_a_linked_work_tree() {
    let env = TestEnv::new();
    env.install();
    refuse_unverified(&env);
    let linked = env.worktree("linked");
    env.commit(&linked, "four.txt", "four");
    env.commit(&linked, "five.txt", "five");
    fs::write(linked.join("untracked.txt"), "not git's\n").unwrap();
    let before = state_in(&env, &linked);
    let out = env.git_headless(&linked, &["reset", "--hard", "HEAD~2"]);
    out.code(128).stderr_has("vouch put them back at");
    assert_same_in(
        &before,
        &env,
        &linked,
        &[
            (".git/worktrees/linked/index", INDEX_TIMES.1),
            (".git/worktrees/linked/ORIG_HEAD", ORIG_HEAD.1),
        ],
    );
}

/// An agent's command with no fresh snapshot of its own (the newest one
/// is an earlier command's, which the post-tool hook has looked at):
/// nothing is put back from it, so a file made since stays; the index and
/// work tree are moved back to HEAD as for a person.
#[test]
fn an_earlier_commands_snapshot_is_not_put_back() {
    let env = TestEnv::new();
    env.install();
    two_unpushed(&env);
    let earlier = "touch made-by-the-agent.txt";
    let door = env.claude(earlier);
    door.code(0);
    fs::write(env.work.join("made-by-the-agent.txt"), "").unwrap();
    env.claude_after(earlier).code(0);
    // Made after that snapshot; not the agent's door's to know of.
    fs::write(env.work.join("made-since.txt"), "the person's\n").unwrap();
    let before = state(&env);
    let out = Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "reset", "--hard", "HEAD~2"])
            .env("CLAUDECODE", "1")
            .output()
            .expect("git runs"),
    );
    out.code(128).stderr_has("vouch put them back at");
    assert!(
        !out.stderr.contains("as they were before `touch"),
        "{}",
        out.stderr
    );
    assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);
}

/// `reset --keep` and `reset --merge` keep a local edit git does not need
/// to touch; refused, vouch moves the rest back, and the edit stays.
#[test]
fn reset_keep_and_merge_by_a_person() {
    let env = TestEnv::new();
    env.install();
    refuse_unverified(&env);
    two_unpushed(&env);
    // (Both unstage what is staged before any hook runs: only a snapshot
    // brings that back, as `reset_hard_in_an_agent_script` shows.)
    fs::write(env.work.join("file1.txt"), "a local edit\n").unwrap();
    let before = state(&env);
    for mode in ["--keep", "--merge"] {
        refused(&env, &["reset", mode, "HEAD~2"]);
        assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);
    }
}

/// `git reset` (`--mixed`) rewrites the index before its ref update. It
/// is refused where the commits it leaves behind are not all in the work
/// tree (here a file of theirs was deleted there): vouch moves the index
/// back, and the work tree, which git did not touch, is as it was.
#[test]
fn reset_mixed_by_a_person() {
    let env = TestEnv::new();
    env.install();
    refuse_unverified(&env);
    two_unpushed(&env);
    fs::remove_file(env.work.join("five.txt")).unwrap();
    let before = state(&env);
    refused(&env, &["reset", "HEAD~2"]).stderr_has("git had already put the index at");
    assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);
}

/// `checkout -B` and `switch -C` check out the new commit before they
/// move the branch: of the checked-out branch, and of another one (HEAD
/// stays where it was).
#[test]
fn checkout_b_and_switch_c_by_a_person() {
    let env = TestEnv::new();
    env.install();
    refuse_unverified(&env);
    two_unpushed(&env);
    env.git(&env.work, &["switch", "-q", "-c", "other", "HEAD~2"]);
    env.commit(&env.work, "other.txt", "only on other");
    env.git(&env.work, &["switch", "-q", "main"]);
    fs::write(env.work.join("file1.txt"), "a local edit\n").unwrap();
    let before = state(&env);
    for args in [
        &["checkout", "-B", "main", "HEAD~2"][..],
        &["switch", "-C", "main", "HEAD~2"],
        &["checkout", "-B", "other", "HEAD~2"],
        &["switch", "-C", "other", "HEAD~1"],
    ] {
        refused(&env, args);
        assert_same(&before, &env, &[INDEX_TIMES]);
    }
}

/// `git am --abort` puts the index and the work tree at the commit before
/// the mailbox, then moves the branch back over the patches applied.
#[test]
fn am_abort_by_a_person() {
    let env = TestEnv::new();
    env.install();
    let patches = env.base().join("patches");
    env.commit(&env.work, "four.txt", "four");
    env.commit(&env.work, "file2.txt", "five");
    env.git(
        &env.work,
        &["format-patch", "-q", "-2", "-o", patches.to_str().unwrap()],
    );
    env.git_headless(&env.work, &["reset", "-q", "--hard", "HEAD~2"])
        .code(0);
    // The second patch no longer applies.
    env.commit(&env.work, "file2.txt", "in the way");
    let mut mbox: Vec<String> = fs::read_dir(&patches)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    mbox.sort();
    let mut args = vec!["am", "-q"];
    args.extend(mbox.iter().map(String::as_str));
    assert_ne!(
        env.git_out(&env.work, &args).code,
        0,
        "the second patch stops `git am`"
    );
    refuse_unverified(&env);
    let before = state(&env);
    refused(&env, &["am", "--abort"]);
    assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);
}

/// A cherry-pick stopped on a conflict, with one pick committed: `git
/// cherry-pick --abort` (and `revert --abort`) runs `git reset --merge`
/// to where the sequence began, which throws away the conflict in the
/// index and the work tree before its ref update. From an agent's
/// script, the snapshot puts the conflict back, byte for byte.
#[test]
fn cherry_pick_and_revert_abort_in_an_agent_script() {
    let env = TestEnv::new();
    env.install();
    env.git(&env.work, &["switch", "-q", "-c", "side", "HEAD~2"]);
    env.commit(&env.work, "side.txt", "a");
    env.commit(&env.work, "clash.txt", "from side");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.commit(&env.work, "clash.txt", "from main");
    let out = env.git_out(&env.work, &["cherry-pick", "side~1", "side"]);
    assert_ne!(out.code, 0, "the second pick stops on a conflict");
    fs::write(env.work.join("file1.txt"), "an edit while resolving\n").unwrap();
    let before = state(&env);
    refused_in_agent_script(&env, &["cherry-pick", "--abort"])
        .stderr_has("put back the work tree and the index as they were before");
    assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);
    assert!(
        fs::read_to_string(env.work.join("clash.txt"))
            .unwrap()
            .contains("<<<<<<<"),
        "the conflict is back"
    );
    // The person ends it.
    env.git_headless(&env.work, &["cherry-pick", "--abort"])
        .code(0);

    // `git revert` of two commits, stopped on a conflict after the first:
    // `r.txt` was changed since the commit that made it.
    env.commit(&env.work, "r.txt", "1");
    env.commit(&env.work, "r.txt", "2");
    env.commit(&env.work, "other.txt", "other");
    let out = env.git_out(&env.work, &["revert", "--no-edit", "HEAD", "HEAD~2"]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    let before = state(&env);
    refused_in_agent_script(&env, &["revert", "--abort"]);
    assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);
}

/// `git reset --hard` in an agent's script: the snapshot taken before it
/// puts back the uncommitted edit, the staged file and the deleted files,
/// byte for byte; what git had made of them is a snapshot of its own.
#[test]
fn reset_hard_in_an_agent_script() {
    let env = TestEnv::new();
    env.install();
    let tip = two_unpushed(&env);
    fs::write(env.work.join("file1.txt"), "uncommitted edit\n").unwrap();
    fs::write(env.work.join("staged.txt"), "staged\n").unwrap();
    env.git(&env.work, &["add", "staged.txt"]);
    let before = state(&env);
    let out = refused_in_agent_script(&env, &["reset", "--hard", "HEAD~2"]);
    out.stderr_has("put back the work tree and the index as they were before `perl ");
    assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);
    assert_eq!(env.rev(&env.work, "main"), tip);
    // `git vouch undo <name>` brings back what git had left (the reset's
    // files), and `git vouch undo` once more the state before it.
    let said = &out.stderr;
    let name = said
        .split("`git vouch undo ")
        .nth(1)
        .and_then(|s| s.split('`').next())
        .expect("the put-back names the snapshot of what git left");
    env.vouch(&["undo", name]).code(0);
    assert!(!env.work.join("four.txt").exists());
    assert_eq!(
        fs::read_to_string(env.work.join("file1.txt")).unwrap(),
        "commit 1\n"
    );
}

/// A snapshot older than the command (taken before an earlier one, which
/// no post-tool hook has marked) puts back only the files git wrote: a
/// file made since, or an ignored one changed since, stays as it is.
#[test]
fn a_snapshot_puts_back_only_the_files_git_wrote() {
    let env = TestEnv::new();
    env.install();
    let tip = two_unpushed(&env);
    fs::write(env.work.join(".gitignore"), ".env\n").unwrap();
    fs::write(env.work.join(".env"), "KEY=old\n").unwrap();
    fs::write(env.work.join("notes.txt"), "old notes\n").unwrap();
    env.claude("touch made-by-the-agent.txt").code(0);
    assert!(!env.snapshot_refs().is_empty(), "a snapshot was taken");
    fs::write(env.work.join("made-by-the-agent.txt"), "").unwrap();
    // Since that snapshot: an edit, a new file, an ignored file changed.
    fs::write(env.work.join("file1.txt"), "an edit since\n").unwrap();
    fs::write(env.work.join("notes.txt"), "newer notes\n").unwrap();
    fs::write(env.work.join("since.txt"), "made since\n").unwrap();
    fs::write(env.work.join(".env"), "KEY=new\n").unwrap();
    let out = Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "reset", "--hard", "HEAD~2"])
            .env("CLAUDECODE", "1")
            .output()
            .expect("git runs"),
    );
    out.code(128)
        .stderr_has("put back the work tree and the index as they were before `touch");
    assert_eq!(env.rev(&env.work, "main"), tip);
    let read = |f: &str| fs::read_to_string(env.work.join(f)).unwrap();
    assert_eq!(read("notes.txt"), "newer notes\n");
    assert_eq!(read("since.txt"), "made since\n");
    assert_eq!(read(".env"), "KEY=new\n");
    assert!(env.work.join("made-by-the-agent.txt").exists());
    // The files git wrote are the snapshot's: the edit since was git's to
    // overwrite (the snapshot holds the one before it).
    assert_eq!(read("four.txt"), "four\n");
    assert_eq!(read("file1.txt"), "commit 1\n");
}

/// A rebase that drops a commit replays the rest onto a detached HEAD
/// before it moves the branch: refused at the end, the rebase is still in
/// progress, and vouch says the command that puts everything back.
#[test]
fn rebase_refused_at_its_end_says_git_rebase_abort() {
    let env = TestEnv::new();
    env.install();
    refuse_unverified(&env);
    env.git(&env.work, &["switch", "-q", "-c", "topic"]);
    env.commit(&env.work, "dropped.txt", "dropped by the rebase");
    env.commit(&env.work, "kept.txt", "kept");
    let before = state(&env);
    let out = refused(&env, &["rebase", "--onto", "main", "topic~1"]);
    out.stderr_has("`git rebase --abort` puts the branch, HEAD and the files back");
    env.git(&env.work, &["rebase", "--abort"]);
    // HEAD's reflog keeps the rebase's steps; the commits it made stay in
    // the object store, unreferenced, until `git gc`.
    let new_objects: Vec<String> = state(&env)
        .into_keys()
        .filter(|k| k.starts_with(".git/objects/") && !before.contains_key(k))
        .collect();
    assert!(!new_objects.is_empty());
    let mut except = vec![
        INDEX_TIMES,
        ORIG_HEAD,
        (
            ".git/logs/HEAD",
            "HEAD's reflog keeps the rebase's steps and the abort",
        ),
    ];
    except.extend(
        new_objects
            .iter()
            .map(|k| (k.as_str(), "an object the rebase wrote, unreferenced")),
    );
    assert_same(&before, &env, &except);
}

/// `git pull --rebase` runs `git rebase` after its fetch: refused at the
/// rebase's end (here an interactive one drops a commit), the same is
/// said, and `git rebase --abort` puts back all but what the fetch,
/// which was not refused, brought.
#[test]
fn pull_rebase_refused_at_its_end_says_git_rebase_abort() {
    let env = TestEnv::new();
    env.install();
    let colleague = env.colleague();
    env.commit(&colleague, "theirs.txt", "theirs");
    env.git(&colleague, &["push", "-q", "origin", "main"]);
    refuse_unverified(&env);
    env.commit(&env.work, "dropped.txt", "dropped by the rebase");
    env.commit(&env.work, "kept.txt", "kept");
    let before = state(&env);
    let out = Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "pull", "--rebase=interactive"])
            .env("GIT_SEQUENCE_EDITOR", "sed -i 1s/^pick/drop/")
            .output()
            .expect("git runs"),
    );
    assert_ne!(out.code, 0, "{}", out.stderr);
    out.stderr_has("`git rebase --abort` puts the branch, HEAD and the files back");
    env.git(&env.work, &["rebase", "--abort"]);
    let new_objects: Vec<String> = state(&env)
        .into_keys()
        .filter(|k| k.starts_with(".git/objects/") && !before.contains_key(k))
        .collect();
    let mut except = vec![
        INDEX_TIMES,
        ORIG_HEAD,
        (
            ".git/logs/HEAD",
            "HEAD's reflog keeps the rebase's steps and the abort",
        ),
        (".git/FETCH_HEAD", "the fetch, which was not refused"),
        (".git/refs/remotes/origin/main", "the fetch"),
        (".git/logs/refs/remotes/origin/main", "the fetch"),
        ("(refs)", "the fetch moved `origin/main`"),
        ("(status)", "`git status` compares with `origin/main`"),
    ];
    except.extend(new_objects.iter().map(|k| {
        (
            k.as_str(),
            "an object the fetch brought or the rebase wrote",
        )
    }));
    assert_same(&before, &env, &except);
    let other_refs = |m: &BTreeMap<String, Vec<u8>>| {
        String::from_utf8_lossy(&m["(refs)"])
            .lines()
            .filter(|l| !l.ends_with(" refs/remotes/origin/main"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(other_refs(&before), other_refs(&state(&env)));
    assert_eq!(
        env.git(&env.work, &["log", "--format=%s", "-2"]),
        "kept\ndropped by the rebase\n"
    );
}

/// `git stash drop` of the only entry rewrites the stash's list before it
/// asks to delete `refs/stash`: refused there (in the agent's shell, where
/// an agent cannot decide it), vouch writes the entry back as `git stash`
/// wrote it.
#[test]
fn stash_drop_by_an_agent() {
    let env = TestEnv::new();
    env.install();
    fs::write(env.work.join("file1.txt"), "work in progress\n").unwrap();
    env.git(&env.work, &["stash", "-q"]);
    let before = state(&env);
    let out = Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "stash", "drop"])
            .env("CLAUDECODE", "1")
            .output()
            .expect("git runs"),
    );
    out.code(128).stderr_has("put back the stash entry");
    assert_same(&before, &env, &[]);
    // And the person can drop it later.
    env.git(&env.work, &["stash", "drop", "-q"]);
    assert_eq!(env.git(&env.work, &["stash", "list"]), "");
}

/// `git stash clear` asks to delete `refs/stash` before it touches the
/// list: refused, nothing changed.
#[test]
fn stash_clear_by_a_person() {
    let env = TestEnv::new();
    env.install();
    refuse_unverified(&env);
    for edit in ["one", "two"] {
        fs::write(env.work.join("file1.txt"), format!("{edit}\n")).unwrap();
        env.git(&env.work, &["stash", "-q"]);
    }
    let before = state(&env);
    refused(&env, &["stash", "clear"]);
    assert_same(&before, &env, &[]);
    assert_eq!(env.git(&env.work, &["stash", "list"]).lines().count(), 2);
}

/// A ref update vouch judges and lets through leaves no file behind that
/// git would not have written (libgit2 made an empty `logs/refs/stash`
/// when asked for a stash that is not there).
#[test]
fn a_judged_update_writes_nothing_of_vouchs_own() {
    let env = TestEnv::new();
    env.install();
    env.git(&env.work, &["branch", "other"]);
    env.git_headless(&env.work, &["branch", "-D", "other"])
        .code(0);
    assert!(!env.work.join(".git/logs/refs/stash").exists());
}

/// The same put-backs with git 2.55 (its `preparing` state comes first,
/// and passes): `reset --hard`, `reset --keep` and `checkout -B` by a
/// person, and `stash drop` by an agent.
#[test]
fn with_git_2_55() {
    let Some(dir) = crate::support::git_255_dir() else {
        return;
    };
    let mut env = TestEnv::new();
    env.extra_env.push((
        "PATH".into(),
        format!("{}:/usr/local/bin:/usr/bin:/bin", dir.display()),
    ));
    assert!(
        env.git(&env.work, &["version"])
            .starts_with("git version 2.55")
    );
    env.install();
    refuse_unverified(&env);
    two_unpushed(&env);
    fs::write(env.work.join("file1.txt"), "a local edit\n").unwrap();
    let before = state(&env);
    for args in [
        &["reset", "--keep", "HEAD~2"][..],
        &["checkout", "-B", "main", "HEAD~2"],
    ] {
        refused(&env, args).stderr_has("vouch put them back at");
        assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);
    }
    env.git(&env.work, &["checkout", "-q", "--", "file1.txt"]);
    let before = state(&env);
    refused(&env, &["reset", "--hard", "HEAD~2"]);
    assert_same(&before, &env, &[INDEX_TIMES, ORIG_HEAD]);

    fs::write(env.work.join("file1.txt"), "work in progress\n").unwrap();
    env.git(&env.work, &["stash", "-q"]);
    let before = state(&env);
    let out = Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "stash", "drop"])
            .env("CLAUDECODE", "1")
            .output()
            .expect("git runs"),
    );
    out.code(128).stderr_has("put back the stash entry");
    assert_same(&before, &env, &[]);
}
