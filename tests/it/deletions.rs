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
