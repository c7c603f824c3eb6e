//! Many refs at once at the reference-transaction door: one `git branch
//! -D` of many branches measured by one walk (issue 27 item 3), and a
//! received push that deletes branches by the thousand (issue 38 item 6).

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::TestEnv;

/// Issue 27 item 3 at the reference-transaction door: one `git branch -D`
/// of many unmerged branches is measured by one walk, each branch credited
/// with what its own tip alone holds (two share a history of their own).
#[test]
fn many_branch_deletions_are_each_measured_by_what_their_own_tip_holds() {
    let env = TestEnv::new();
    let commit = |parent: &str, message: &str| env.commit_on(parent, message);
    let main = env.rev(&env.work, "main");
    let mut names: Vec<String> = Vec::new();
    for i in 0..8 {
        let tip = commit(&main, &format!("b{i}"));
        env.git(
            &env.work,
            &["update-ref", &format!("refs/heads/b{i}"), &tip],
        );
        names.push(format!("b{i}"));
    }
    let shared = commit(&commit(&main, "s1"), "s2");
    let own = commit(&shared, "s0 own");
    env.git(&env.work, &["update-ref", "refs/heads/s0", &own]);
    env.git(&env.work, &["update-ref", "refs/heads/s1", &shared]);
    names.extend(["s0".to_owned(), "s1".to_owned()]);
    env.write_config("[on_unavailable]\ncritical = \"allow\"\nhigh = \"allow\"\n");
    env.install();
    let mut delete = vec!["branch", "-q", "-D"];
    delete.extend(names.iter().map(String::as_str));
    env.git_headless(&env.work, &delete).code(0);
    let record = env.last_audit_of("reference-transaction");
    let lost = crate::support::lost_by_ref(&record);
    for i in 0..8 {
        assert_eq!(lost[&format!("refs/heads/b{i}")], 1, "b{i}: {record}");
    }
    assert_eq!(lost["refs/heads/s0"], 3, "{record}");
    assert_eq!(lost["refs/heads/s1"], 2, "{record}");
}

/// Issue 38 item 6: a push received into a repository with vouch's hooks
/// that deletes branches (`git push <bare> :b1 ... :bN`): each branch with
/// a commit of its own is kept under a rescue ref pointing at its old tip,
/// and a branch another ref holds is not. git before 2.51 runs one
/// transaction per deleted ref; git 2.55 runs one for them all, and vouch
/// then measures them in one walk and writes the rescue refs together.
/// `packed`: the receiving repository's refs are packed first (as git
/// 2.55's automatic maintenance leaves them after a large push): git then
/// runs the packed refs' transaction inside the other, whose lines carry
/// zeros for the old values, and the same deletions are judged once.
fn received_deletions(git_dir: Option<&Path>, packed: bool) {
    let mut env = TestEnv::new();
    if let Some(dir) = git_dir {
        env.extra_env.push((
            "PATH".into(),
            format!("{}:/usr/local/bin:/usr/bin:/bin", dir.display()),
        ));
    }
    let main = env.rev(&env.work, "main");
    let mut tips = BTreeMap::new();
    for i in 1..=6 {
        let tip = env.commit_on(&main, &format!("b{i}"));
        env.git(
            &env.work,
            &["update-ref", &format!("refs/heads/b{i}"), &tip],
        );
        tips.insert(format!("b{i}"), tip);
    }
    env.git(&env.work, &["branch", "merged", "main"]);
    env.git(&env.work, &["push", "-q", "origin", "--all"]);
    let remote = env.remote.display().to_string();
    if packed {
        env.git(&env.remote, &["pack-refs", "--all"]);
    }
    env.write_config("[on_unavailable]\ncritical = \"allow\"\nhigh = \"allow\"\n");
    env.vouch(&["install", "--repo", &remote]).code(0);
    let mut push = vec!["origin".to_owned(), ":merged".to_owned()];
    push.extend(tips.keys().map(|b| format!(":{b}")));
    let push: Vec<&str> = push.iter().map(String::as_str).collect();
    env.push(&push).code(0);
    let rescued = env.git(
        &env.remote,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/vouch/rescue/",
        ],
    );
    let rescued: Vec<(&str, &str)> = rescued.lines().filter_map(|l| l.split_once(' ')).collect();
    assert_eq!(rescued.len(), tips.len(), "{rescued:?}");
    for (branch, tip) in &tips {
        assert!(
            rescued.iter().any(|(name, oid)| {
                name.starts_with(&format!("refs/vouch/rescue/{branch}/")) && oid == tip
            }),
            "{branch} ({tip}) is not kept: {rescued:?}"
        );
    }
    assert!(
        env.git(&env.remote, &["for-each-ref", "refs/heads/b1"])
            .is_empty()
    );
    let records: Vec<_> = env
        .audit()
        .into_iter()
        .filter(|r| r["hook"] == "reference-transaction")
        .collect();
    let deleted: usize = records
        .iter()
        .map(|r| r["refs"].as_array().map_or(0, Vec::len))
        .sum();
    if git_dir.is_some() {
        // One transaction: one decision for the whole push, `merged` in it.
        assert_eq!(records.len(), 1, "{records:?}");
        assert_eq!(deleted, tips.len() + 1, "{records:?}");
    } else {
        // A transaction per ref: `merged` alone loses nothing, a routine
        // deletion, not logged.
        assert_eq!(deleted, tips.len(), "{records:?}");
    }
}

#[test]
fn a_received_push_that_deletes_branches_keeps_each_under_a_rescue_ref() {
    received_deletions(None, false);
}

#[test]
fn a_received_push_that_deletes_packed_branches_keeps_each_once() {
    received_deletions(None, true);
}

#[test]
fn git_255_a_received_push_deletes_in_one_transaction_and_keeps_each() {
    let Some(dir) = crate::support::git_255_dir() else {
        return;
    };
    received_deletions(Some(&dir), false);
}

#[test]
fn git_255_a_received_push_of_packed_branches_is_judged_once() {
    let Some(dir) = crate::support::git_255_dir() else {
        return;
    };
    received_deletions(Some(&dir), true);
}

/// Issue 38 item 6 at scale: a received push that deletes more branches
/// than vouch writes rescue refs for one by one (`BATCH_FROM`, 16) keeps
/// their tips in one batch ref, not one loose ref each, which git's
/// automatic `pack-refs` would pack running the reference-transaction
/// hook three times for each. `git vouch rescue` lists each deleted branch
/// under the name it always had, restores each, and `git gc --prune=now`
/// loses none of them. `atomic`: one transaction with git before 2.51 too.
fn received_deletions_at_scale(git_dir: Option<&Path>, atomic: bool) {
    const N: usize = 40;
    let mut env = TestEnv::new();
    if let Some(dir) = git_dir {
        env.extra_env.push((
            "PATH".into(),
            format!("{}:/usr/local/bin:/usr/bin:/bin", dir.display()),
        ));
    }
    let main = env.rev(&env.work, "main");
    let mut tips = BTreeMap::new();
    for i in 1..=N {
        let tip = env.commit_on(&main, &format!("b{i}"));
        env.git(
            &env.work,
            &["update-ref", &format!("refs/heads/b{i}"), &tip],
        );
        tips.insert(format!("b{i}"), tip);
    }
    env.git(&env.work, &["push", "-q", "origin", "--all"]);
    let remote = env.remote.display().to_string();
    env.write_config("[on_unavailable]\ncritical = \"allow\"\nhigh = \"allow\"\n");
    env.vouch(&["install", "--repo", &remote]).code(0);
    let mut push = vec!["origin".to_owned()];
    if atomic {
        push.push("--atomic".to_owned());
    }
    push.extend(tips.keys().map(|b| format!(":{b}")));
    let push: Vec<&str> = push.iter().map(String::as_str).collect();
    env.push(&push).code(0);
    assert!(
        env.git(&env.remote, &["for-each-ref", "refs/heads/b1"])
            .is_empty()
    );

    // One ref of vouch's, at most one loose file.
    let own = env.git(
        &env.remote,
        &["for-each-ref", "--format=%(refname)", "refs/vouch/"],
    );
    assert_eq!(own.lines().count(), 1, "{own}");
    assert!(own.starts_with("refs/vouch/rescue/batch/"), "{own}");
    let mut loose = 0;
    let mut dirs = vec![env.remote.join("refs/vouch")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if entry.file_type().unwrap().is_dir() {
                dirs.push(entry.path());
            } else {
                loose += 1;
            }
        }
    }
    assert!(loose <= 1, "{loose} loose refs under refs/vouch");

    // Listed as before: one entry a branch, under `<branch>/<stamp>`.
    let listed = rescue_list(&env, &remote);
    assert_eq!(listed.len(), N, "{listed:?}");
    let mut names = BTreeMap::new();
    for (branch, tip) in &tips {
        let entry = listed
            .iter()
            .find(|r| r["original"] == format!("refs/heads/{branch}"))
            .unwrap_or_else(|| panic!("{branch} is not listed: {listed:?}"));
        assert_eq!(entry["oid"], tip.as_str(), "{entry}");
        assert_eq!(entry["subject"], branch.as_str(), "{entry}");
        assert_eq!(entry["only_here"], 1, "{entry}");
        let name = entry["name"].as_str().unwrap();
        let short = name.strip_prefix("refs/vouch/rescue/").unwrap();
        assert!(short.starts_with(&format!("{branch}/")), "{name}");
        names.insert(branch.clone(), short.to_owned());
    }
    let table = env.vouch(&["rescue", "list", "--repo", &remote]);
    table.code(0).stdout_has(&names["b7"]);

    // Nothing of it is lost to gc.
    env.git(
        &env.remote,
        &[
            "-c",
            "gc.reflogExpireUnreachable=now",
            "-c",
            "gc.reflogExpire=now",
            "gc",
            "-q",
            "--prune=now",
        ],
    );
    for tip in tips.values() {
        env.git(&env.remote, &["cat-file", "-e", tip]);
    }

    // Each restores: where it was, or under another name.
    env.vouch(&["rescue", "restore", &names["b1"], "--repo", &remote])
        .code(0);
    assert_eq!(env.rev(&env.remote, "refs/heads/b1"), tips["b1"]);
    env.vouch(&[
        "rescue",
        "restore",
        &names["b2"],
        "--as",
        "kept",
        "--repo",
        &remote,
    ])
    .code(0);
    assert_eq!(env.rev(&env.remote, "refs/heads/kept"), tips["b2"]);
    assert_eq!(rescue_list(&env, &remote).len(), N);

    // Pruned as one: the batch ref goes with its last entry.
    let dry = env.vouch(&[
        "rescue",
        "prune",
        "--older-than",
        "2030-01-01",
        "--dry-run",
        "--repo",
        &remote,
    ]);
    assert_eq!(
        dry.code(0).stderr.matches("would delete").count(),
        N,
        "{}",
        dry.stderr
    );
    env.work = env.remote.clone();
    crate::support::tmux::vouch_yes(&env, &["rescue", "prune", "--older-than", "2030-01-01"]);
    assert!(rescue_list(&env, &remote).is_empty());
    assert!(
        env.git(&env.remote, &["for-each-ref", "refs/vouch/"])
            .is_empty()
    );
}

/// `git vouch rescue list --json` of `repo`.
fn rescue_list(env: &TestEnv, repo: &str) -> Vec<serde_json::Value> {
    let out = env.vouch(&["rescue", "list", "--json", "--repo", repo]);
    serde_json::from_str(&out.code(0).stdout).unwrap()
}

#[test]
fn a_received_atomic_push_of_many_deletions_keeps_them_in_one_ref() {
    received_deletions_at_scale(None, true);
}

#[test]
fn git_255_a_received_push_of_many_deletions_keeps_them_in_one_ref() {
    let Some(dir) = crate::support::git_255_dir() else {
        return;
    };
    received_deletions_at_scale(Some(&dir), false);
}

/// The same at scale in repositories libgit2 cannot open, whose rescue
/// refs git writes: SHA-256 objects keep the deleted tips in one batch ref
/// (its commit's parents); reftable, whose refs git holds locked during
/// its transaction, lets the push through and says, for each branch, the
/// command that brings it back, as it did one ref at a time.
#[test]
fn repositories_libgit2_cannot_open_keep_many_deletions_alike() {
    const N: usize = 20;
    for format in ["sha256", "reftable"] {
        let env = TestEnv::new();
        let base = env.base();
        std::fs::remove_dir_all(&env.work).unwrap();
        std::fs::remove_dir_all(&env.remote).unwrap();
        let flag = if format == "sha256" {
            "--object-format=sha256"
        } else {
            "--ref-format=reftable"
        };
        env.git(
            &base,
            &["init", "-q", "--bare", flag, "-b", "main", "remote.git"],
        );
        env.git(&base, &["clone", "-q", "remote.git", "work"]);
        env.commit(&env.work, "base.txt", "base");
        let main = env.rev(&env.work, "HEAD");
        let mut tips = BTreeMap::new();
        for i in 1..=N {
            let tip = env.commit_on(&main, &format!("b{i}"));
            env.git(
                &env.work,
                &["update-ref", &format!("refs/heads/b{i}"), &tip],
            );
            tips.insert(format!("b{i}"), tip);
        }
        env.git(&env.work, &["push", "-q", "origin", "--all"]);
        let remote = env.remote.display().to_string();
        env.write_config("[on_unavailable]\ncritical = \"allow\"\nhigh = \"allow\"\n");
        env.vouch(&["install", "--repo", &remote]).code(0);
        let mut push = vec!["origin".to_owned(), "--atomic".to_owned()];
        push.extend(tips.keys().map(|b| format!(":{b}")));
        let push: Vec<&str> = push.iter().map(String::as_str).collect();
        let out = env.push(&push);
        out.code(0);
        assert!(
            env.git(&env.remote, &["for-each-ref", "refs/heads/b1"])
                .is_empty(),
            "{format}"
        );
        let own = env.git(
            &env.remote,
            &["for-each-ref", "--format=%(refname)", "refs/vouch/"],
        );
        if format == "reftable" {
            assert!(own.is_empty(), "{own}");
            for (branch, tip) in &tips {
                out.stderr_has(&format!("git update-ref refs/heads/{branch} {tip}"));
            }
            continue;
        }
        assert_eq!(own.lines().count(), 1, "{own}");
        assert!(own.starts_with("refs/vouch/rescue/batch/"), "{own}");
        let commit = env.git(&env.remote, &["cat-file", "commit", own.trim()]);
        for (branch, tip) in &tips {
            assert!(
                commit.contains(&format!("\nparent {tip}\n")),
                "{branch}: {commit}"
            );
            assert!(
                commit.contains(&format!("\n{tip} refs/vouch/rescue/{branch}/")),
                "{branch}: {commit}"
            );
            out.stderr_has(&format!("in `{}`", own.trim()));
        }
    }
}
