//! git's own option parsing (issue 26 item 3): git accepts any unambiguous
//! prefix of a long option, so every door reads `--mirr` as `--mirror`.
//! Each abbreviation below was checked against the real git: it runs as
//! the full option does. (The push behind the pre-push hook:
//! `pre_push::mirror_push_deletions_are_computed_by_vouch`.)

use std::fs;

use crate::support::TestEnv;

/// The tier and decision lines `git vouch check` prints for a command.
fn verdict(env: &TestEnv, command: &str) -> (i32, String) {
    let words = shell_words::split(command).unwrap();
    let mut args = vec!["check", "--"];
    args.extend(words.iter().map(String::as_str));
    let out = env.vouch(&args);
    let tier = out
        .stdout
        .lines()
        .find(|l| l.starts_with("tier:"))
        .unwrap_or_default()
        .to_owned();
    (out.code, tier)
}

#[test]
fn the_agent_door_reads_abbreviated_options_as_git_does() {
    let env = TestEnv::new();
    let work = &env.work;
    // A branch and a tag holding work no other ref holds, a dirty tree, an
    // untracked file and a worktree: every option below has something to
    // destroy.
    env.git(work, &["tag", "v1"]);
    env.git(work, &["switch", "-q", "-c", "feature"]);
    env.commit(work, "feature.txt", "only on feature");
    env.git(work, &["switch", "-q", "main"]);
    env.commit(work, "unpushed.txt", "unpushed on main");
    fs::write(work.join("file1.txt"), "unsaved\n").unwrap();
    fs::write(work.join("scratch.txt"), "untracked\n").unwrap();
    let wt = env.base().join("wt");
    env.git(
        work,
        &["worktree", "add", "-q", wt.to_str().unwrap(), "feature"],
    );
    fs::write(wt.join("feature.txt"), "unsaved in the worktree\n").unwrap();
    let pairs = [
        ("git push --mirror origin", "git push --mirr origin"),
        ("git push --mirror origin", "git push --mi origin"),
        (
            "git push --delete origin main",
            "git push --delet origin main",
        ),
        ("git push --delete origin main", "git push --de origin main"),
        (
            "git push --force-with-lease origin HEAD~3:main",
            "git push --force-w origin HEAD~3:main",
        ),
        (
            "git push --prune origin 'refs/heads/*:refs/heads/*'",
            "git push --pru origin 'refs/heads/*:refs/heads/*'",
        ),
        (
            "git push --no-verify origin main",
            "git push --no-verif origin main",
        ),
        (
            "git branch --delete --force feature",
            "git branch --delet --forc feature",
        ),
        (
            "git branch --delete --force feature",
            "git branch --del --fo feature",
        ),
        ("git tag --delete v1", "git tag --delet v1"),
        ("git reset --hard HEAD~1", "git reset --har HEAD~1"),
        ("git reset --hard", "git reset --ha"),
        ("git clean --force", "git clean --forc"),
        (
            "git switch --discard-changes feature",
            "git switch --disc feature",
        ),
        (
            "git restore --source=HEAD~1 file1.txt",
            "git restore --sour=HEAD~1 file1.txt",
        ),
        ("git commit --no-verify -m x", "git commit --no-verif -m x"),
        ("git update-ref --stdin", "git update-ref --std"),
        (
            "git reflog expire --expire=now --all",
            "git reflog expire --expire=now --al",
        ),
        ("git gc --prune=now", "git gc --prun=now"),
        (
            "git worktree remove --force ../wt",
            "git worktree remove --forc ../wt",
        ),
    ];
    for (full, short) in pairs {
        let want = verdict(&env, full);
        assert!(
            !want.1.is_empty() && want.1 != "tier: none",
            "`{full}` has something to judge: {want:?}"
        );
        assert_eq!(verdict(&env, short), want, "`{short}` reads as `{full}`");
    }
}
