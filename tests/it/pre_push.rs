//! Every row of SPEC 2.1, decided from real pushes to a real bare remote.

use serde_json::Value;

use crate::support::{TestEnv, verdict_body};

/// Refuse whatever is verified and unavailable, so the tier shows in the outcome.
const BLOCK_UNAVAILABLE: &str =
    "[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\nstandard = \"block\"\n";

fn rules(record: &Value) -> Vec<String> {
    record["refs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {} {}",
                r["remote_ref"].as_str().unwrap(),
                r["tier"].as_str().unwrap(),
                r["rule"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn fast_forward_push_is_allowed_without_a_log_line() {
    let env = TestEnv::new();
    env.install_hooks("pre-push");
    env.commit(&env.work, "a.txt", "more work");
    env.push(&["origin", "main"]).code(0);
    assert_eq!(env.remote_ref("main"), Some(env.rev(&env.work, "HEAD")));
    assert!(
        env.audit().is_empty(),
        "tier none writes no audit line by default"
    );
}

#[test]
fn new_branch_and_new_tag_are_routine() {
    let env = TestEnv::new();
    env.write_config("log_all = true\n");
    env.install_hooks("pre-push");
    env.git(&env.work, &["checkout", "-q", "-b", "feature"]);
    env.commit(&env.work, "f.txt", "feature work");
    env.git(&env.work, &["tag", "v9.9.9"]);
    env.push(&["origin", "feature", "v9.9.9"]).code(0);
    let record = env.last_audit_of("pre-push");
    assert_eq!(record["risk_tier"], "none");
    assert_eq!(record["decision"], "allowed");
}

#[test]
fn force_push_to_protected_branch_is_critical_and_counts_lost_commits() {
    let env = TestEnv::new();
    env.install_hooks("pre-push");
    let before = env.remote_ref("main").unwrap();
    env.rewind(2);
    let out = env.push(&["--force", "origin", "main"]);
    // No verifier configured, headless: allowed with a warning (SPEC 6), never silently.
    out.code(0).stderr_has("not verified");
    assert_ne!(env.remote_ref("main").unwrap(), before);
    let record = env.last_audit();
    assert_eq!(record["risk_tier"], "critical");
    assert_eq!(record["result"], "unavailable");
    assert_eq!(record["decision"], "allowed");
    assert_eq!(record["refs"][0]["rule"], "force_push_protected");
    assert_eq!(record["refs"][0]["lost_commits"], 2);
    assert_eq!(record["builtin"]["verifier"], "vouch-facts");
    assert_eq!(
        record["builtin"]["checks"][0]["name"],
        "force_push_protected"
    );
    assert!(
        record["reasons"][0]
            .as_str()
            .unwrap()
            .contains("removes 2 commits by 1 author")
    );
}

#[test]
fn refused_force_push_leaves_the_remote_untouched() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    env.install_hooks("pre-push");
    let before = env.remote_ref("main").unwrap();
    env.rewind(1);
    env.push(&["--force", "origin", "main"])
        .code(1)
        .stderr_has("refused")
        .stderr_has("commit 3");
    assert_eq!(env.remote_ref("main").unwrap(), before);
    let record = env.last_audit();
    assert_eq!(record["decision"], "refused");
    assert_eq!(record["result"], "unavailable");
}

#[test]
fn force_push_destroying_unseen_remote_commits_is_critical() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    env.install_hooks("pre-push");
    // A colleague pushes to a feature branch; we never fetch it.
    env.git(
        &env.work,
        &["push", "-q", "origin", "main:refs/heads/feature"],
    );
    let colleague = env.colleague();
    env.git(&colleague, &["fetch", "-q"]);
    env.git(&colleague, &["checkout", "-q", "feature"]);
    env.commit(&colleague, "theirs.txt", "colleague's work");
    env.git(&colleague, &["push", "-q", "origin", "feature"]);
    let theirs = env.remote_ref("feature").unwrap();
    env.git(&env.work, &["checkout", "-q", "-b", "feature"]);
    env.commit(&env.work, "mine.txt", "my rewrite");
    let out = env.push(&["--force", "origin", "feature"]);
    out.code(1).stderr_has("never fetched");
    assert_eq!(env.remote_ref("feature").unwrap(), theirs);
    assert_eq!(
        rules(&env.last_audit()),
        ["refs/heads/feature critical force_push_unseen"]
    );
}

#[test]
fn unforced_push_behind_the_remote_is_left_to_git() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    env.install_hooks("pre-push");
    let colleague = env.colleague();
    env.commit(&colleague, "theirs.txt", "colleague's work");
    env.git(&colleague, &["push", "-q", "origin", "main"]);
    env.commit(&env.work, "mine.txt", "mine");
    // git rejects it as "fetch first" after the hook; vouch does not refuse it itself.
    let out = env.push(&["origin", "main"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("fetch first"), "{}", out.stderr);
    assert!(!out.stderr.contains("vouch: refused"), "{}", out.stderr);
}

#[test]
fn stale_lease_is_inferred_from_the_remote_tracking_ref() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    env.install_hooks("pre-push");
    env.git(
        &env.work,
        &["push", "-q", "origin", "main:refs/heads/topic"],
    );
    env.git(&env.work, &["fetch", "-q"]);
    let colleague = env.colleague();
    env.git(&colleague, &["fetch", "-q"]);
    env.git(&colleague, &["checkout", "-q", "topic"]);
    env.commit(&colleague, "theirs.txt", "pushed behind our back");
    env.git(&colleague, &["push", "-q", "origin", "topic"]);
    // We have the object (fetched), but our remote-tracking ref still shows the old tip.
    let old_tracking = env.rev(&env.work, "origin/topic");
    env.git(&env.work, &["fetch", "-q"]);
    env.git(
        &env.work,
        &["update-ref", "refs/remotes/origin/topic", &old_tracking],
    );
    env.git(&env.work, &["checkout", "-q", "-b", "topic", &old_tracking]);
    env.commit(&env.work, "mine.txt", "mine");
    env.push(&["--force", "origin", "topic"])
        .code(1)
        .stderr_has("a lease would fail");
    assert_eq!(
        rules(&env.last_audit()),
        ["refs/heads/topic critical force_push_unseen"]
    );
}

#[test]
fn force_with_lease_on_a_feature_branch_is_high_and_verified() {
    let env = TestEnv::new();
    env.write_config(&env.verifier("ok", &verdict_body("pass"), ""));
    env.install_hooks("pre-push");
    env.git(&env.work, &["checkout", "-q", "-b", "feature"]);
    env.commit(&env.work, "f.txt", "one");
    env.push(&["-u", "origin", "feature"]).code(0);
    env.git(
        &env.work,
        &["commit", "-q", "--amend", "-m", "one, amended"],
    );
    env.push(&["--force-with-lease", "origin", "feature"])
        .code(0);
    let record = env.last_audit();
    assert_eq!(rules(&record), ["refs/heads/feature high force_push"]);
    assert_eq!(record["result"], "proceed");
    assert_eq!(record["decision"], "allowed");
    assert_eq!(record["verifiers"][0]["verifier"], "ok");
    assert_eq!(record["verifiers"][0]["status"], "pass");
}

#[test]
fn deletions_of_protected_and_other_branches() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    env.git(
        &env.work,
        &["push", "-q", "origin", "main:develop", "main:topic"],
    );
    env.install_hooks("pre-push");
    env.push(&["origin", ":develop"]).code(1);
    assert!(env.remote_ref("develop").is_some());
    assert_eq!(
        rules(&env.last_audit()),
        ["refs/heads/develop critical delete_protected"]
    );
    env.push(&["origin", "--delete", "topic"]).code(1);
    assert_eq!(
        rules(&env.last_audit()),
        ["refs/heads/topic high delete_branch"]
    );
}

#[test]
fn tag_moves_and_deletions() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    env.git(&env.work, &["tag", "v1.0.0", "HEAD~1"]);
    env.git(&env.work, &["tag", "nightly", "HEAD~1"]);
    env.git(&env.work, &["push", "-q", "origin", "v1.0.0", "nightly"]);
    env.install_hooks("pre-push");
    env.git(&env.work, &["tag", "-f", "v1.0.0", "HEAD"]);
    env.git(&env.work, &["tag", "-f", "nightly", "HEAD"]);
    env.push(&["--force", "origin", "v1.0.0"]).code(1);
    assert_eq!(
        rules(&env.last_audit()),
        ["refs/tags/v1.0.0 critical release_tag_move"]
    );
    env.push(&["--force", "origin", "nightly"]).code(1);
    assert_eq!(
        rules(&env.last_audit()),
        ["refs/tags/nightly high tag_move"]
    );
    env.push(&["origin", ":refs/tags/nightly"]).code(1);
    assert_eq!(
        rules(&env.last_audit()),
        ["refs/tags/nightly high tag_move"]
    );
    // Unforced, git refuses the move itself ("already exists"): not vouch's refusal.
    let out = env.push(&["origin", "nightly"]);
    assert!(out.stderr.contains("already exists"), "{}", out.stderr);
    assert!(!out.stderr.contains("vouch: refused"), "{}", out.stderr);
}

#[test]
fn remote_default_branch_is_protected() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    env.git(&env.work, &["push", "-q", "origin", "main:stable"]);
    env.git(&env.remote, &["symbolic-ref", "HEAD", "refs/heads/stable"]);
    env.git(&env.work, &["remote", "set-head", "origin", "-a"]);
    env.install_hooks("pre-push");
    env.push(&["--force", "origin", "HEAD~1:stable"])
        .code(1)
        .stderr_has("the default branch of `origin`");
    assert_eq!(
        rules(&env.last_audit()),
        ["refs/heads/stable critical force_push_protected"]
    );
}

#[test]
fn many_deletions_in_one_push_are_critical() {
    let env = TestEnv::new();
    let refspecs: Vec<String> = (0..6).map(|i| format!("main:b{i}")).collect();
    let mut args = vec!["push", "-q", "origin"];
    args.extend(refspecs.iter().map(String::as_str));
    env.git(&env.work, &args);
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    env.install_hooks("pre-push");
    let deletes: Vec<String> = (0..6).map(|i| format!(":b{i}")).collect();
    let mut push = vec!["origin"];
    push.extend(deletes.iter().map(String::as_str));
    env.push(&push)
        .code(1)
        .stderr_has("deletes or rewrites 6 refs at once");
    assert_eq!(env.last_audit()["risk_tier"], "critical");
    assert!(env.remote_ref("b0").is_some());
}

/// Issue 27 item 3: the deletions of one push share one walk, and each is
/// credited with what its own tip alone holds. 60 deleted branches (more
/// than the 50 separate walks vouch used to make): each holds one commit
/// of its own, and two more share a history of three.
#[test]
fn every_deletion_of_a_large_push_is_measured_by_what_its_own_tip_holds() {
    let env = TestEnv::new();
    let main = env.rev(&env.work, "main");
    let commit = |parent: &str, message: &str| env.commit_on(parent, message);
    for i in 0..60 {
        let tip = commit(&main, &format!("b{i}"));
        env.git(
            &env.work,
            &["update-ref", &format!("refs/heads/b{i}"), &tip],
        );
    }
    let shared = commit(&commit(&main, "s1"), "s2");
    let own = commit(&shared, "s0 own");
    env.git(&env.work, &["update-ref", "refs/heads/s0", &own]);
    env.git(&env.work, &["update-ref", "refs/heads/s1", &shared]);
    env.git(
        &env.work,
        &["push", "-q", "origin", "refs/heads/*:refs/heads/*"],
    );
    // The local branches go first: only the remote holds these commits.
    let names: Vec<String> = (0..60)
        .map(|i| format!("b{i}"))
        .chain(["s0".into(), "s1".into()])
        .collect();
    let mut delete = vec!["branch", "-q", "-D"];
    delete.extend(names.iter().map(String::as_str));
    env.git(&env.work, &delete);
    env.write_config("[on_unavailable]\ncritical = \"allow\"\n");
    env.install_hooks("pre-push");
    let mut push = vec!["origin", "--delete"];
    push.extend(names.iter().map(String::as_str));
    env.push(&push).code(0);
    let record = env.last_audit();
    let lost = crate::support::lost_by_ref(&record);
    assert_eq!(lost.len(), 62, "{record}");
    for i in 0..60 {
        assert_eq!(lost[&format!("refs/heads/b{i}")], 1, "b{i}: {record}");
    }
    // s0 reaches its own commit and the shared two; s1 the shared two.
    assert_eq!(lost["refs/heads/s0"], 3, "{record}");
    assert_eq!(lost["refs/heads/s1"], 2, "{record}");
}

#[test]
fn mirror_push_deletions_are_computed_by_vouch() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    let colleague = env.colleague();
    env.commit(&colleague, "only.txt", "only on the remote");
    env.git(
        &colleague,
        &["push", "-q", "origin", "HEAD:refs/heads/only-remote"],
    );
    env.install_hooks("pre-push");
    // Abbreviated as git's parse-options reads it (issue 26 item 3).
    for mirror in ["--mirr", "--mi"] {
        env.push(&[mirror, "origin"])
            .code(1)
            .stderr_has("computed by vouch");
        assert!(env.remote_ref("only-remote").is_some(), "{mirror}");
    }
    env.push(&["--mirror", "origin"])
        .code(1)
        .stderr_has("computed by vouch");
    let record = env.last_audit();
    let refs = rules(&record);
    assert!(
        // Its commit was never fetched here: deleting it destroys unseen work.
        refs.iter()
            .any(|r| r == "refs/heads/only-remote critical force_push_unseen"),
        "{refs:?}"
    );
    assert!(
        env.remote_ref("only-remote").is_some(),
        "the refused mirror push deleted nothing"
    );
}

#[test]
fn shallow_clone_with_unknown_remote_tip_is_at_least_high() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    env.git(&env.work, &["push", "-q", "origin", "main:feature"]);
    let url = format!("file://{}", env.remote.display());
    env.git(
        &env.base(),
        &[
            "clone", "-q", "--depth", "1", "--branch", "feature", &url, "shallow",
        ],
    );
    let shallow = env.base().join("shallow");
    let colleague = env.colleague();
    env.git(&colleague, &["fetch", "-q"]);
    env.git(&colleague, &["checkout", "-q", "feature"]);
    env.commit(&colleague, "c.txt", "unseen");
    env.git(&colleague, &["push", "-q", "origin", "feature"]);
    env.vouch_in(&shallow, &["install"]).code(0);
    env.commit(&shallow, "s.txt", "mine");
    env.push_in(&shallow, &["--force", "origin", "feature"])
        .code(1);
    let record = env.last_audit();
    assert_eq!(record["refs"][0]["tier"], "high");
    assert_eq!(record["refs"][0]["rule"], "force_push");
    assert_eq!(
        record["refs"][0]["remote_tip"], "unknown",
        "shallow: the remote tip cannot be measured"
    );
}

#[test]
fn mirror_remote_from_config_is_checked_even_with_no_lines() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    let colleague = env.colleague();
    env.git(
        &colleague,
        &["push", "-q", "origin", "HEAD:refs/heads/extra"],
    );
    env.git(&env.work, &["fetch", "-q"]);
    env.git(&env.work, &["config", "remote.origin.mirror", "true"]);
    env.install_hooks("pre-push");
    // Everything local is up to date: git shows the hook no line at all, yet
    // the mirror push would delete `extra` (and the remote-tracking refs' twins).
    env.push(&["origin"])
        .code(1)
        .stderr_has("computed by vouch");
    assert!(env.remote_ref("extra").is_some());
    let refs = rules(&env.last_audit());
    assert!(
        refs.iter()
            .any(|r| r == "refs/heads/extra high delete_branch"),
        "{refs:?}"
    );
}

#[test]
fn several_refs_in_one_push_take_the_highest_tier() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    env.git(&env.work, &["push", "-q", "origin", "main:topic"]);
    env.install_hooks("pre-push");
    env.git(&env.work, &["branch", "new-one"]);
    env.push(&["origin", "new-one", ":topic"]).code(1);
    let record = env.last_audit();
    assert_eq!(record["risk_tier"], "high");
    let mut got = rules(&record);
    got.sort();
    assert_eq!(
        got,
        [
            "refs/heads/new-one none routine",
            "refs/heads/topic high delete_branch"
        ]
    );
    assert!(
        env.remote_ref("new-one").is_none(),
        "a refused push sends nothing"
    );
}

#[test]
fn sha256_repository_is_measured_with_the_git_cli() {
    // libgit2 cannot open SHA-256 repositories; vouch falls back to the git CLI.
    let env = TestEnv::new();
    let base = env.base();
    env.git(
        &base,
        &[
            "init",
            "-q",
            "--bare",
            "--object-format=sha256",
            "-b",
            "main",
            "r256.git",
        ],
    );
    env.git(&base, &["clone", "-q", "r256.git", "w256"]);
    let work = base.join("w256");
    for i in 1..=3 {
        env.commit(&work, "f.txt", &format!("c{i}"));
    }
    env.git(&work, &["push", "-q", "-u", "origin", "main"]);
    env.write_config(BLOCK_UNAVAILABLE);
    env.vouch_in(&work, &["install"]).code(0);
    env.commit(&work, "g.txt", "fast-forward");
    env.push_in(&work, &["origin", "main"]).code(0);
    env.git(&work, &["reset", "-q", "--hard", "HEAD~2"]);
    let out = env.push_in(&work, &["--force", "origin", "main"]);
    out.code(1).stderr_has("measured with the git command line");
    let record = env.last_audit();
    assert_eq!(
        rules(&record),
        ["refs/heads/main critical force_push_protected"]
    );
    assert_eq!(record["refs"][0]["lost_commits"], 2);
    assert_eq!(record["refs"][0]["old_oid"].as_str().unwrap().len(), 64);
    // Deletions use the same survivor rule: a detached HEAD holds `held`,
    // nothing holds `gone`.
    for side in ["held", "gone"] {
        env.git(&work, &["switch", "-q", "-c", side, "main"]);
        env.commit(&work, &format!("{side}.txt"), side);
        env.git(&work, &["push", "-q", "--no-verify", "origin", side]);
    }
    env.git(&work, &["switch", "-q", "--detach", "held"]);
    env.git(&work, &["branch", "-q", "-D", "held", "gone"]);
    for (side, lost) in [("held", 0), ("gone", 1)] {
        env.push_in(&work, &["origin", "--delete", side]).code(1);
        assert_eq!(env.last_audit()["refs"][0]["lost_commits"], lost, "{side}");
    }
}

/// The survivor rule (issue 10) at the push door: a remote branch whose
/// commits a detached `HEAD` or an older stash entry still holds here is
/// deleted with no commit counted lost.
#[test]
fn a_deletion_counts_nothing_lost_that_a_detached_head_or_stash_entry_holds() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    for side in ["side1", "side2", "side3"] {
        env.git(&env.work, &["switch", "-q", "-c", side, "main"]);
        env.commit(&env.work, &format!("{side}.txt"), side);
        env.git(&env.work, &["push", "-q", "origin", side]);
    }
    // side1: held by the stash's older entry.
    env.git(&env.work, &["switch", "-q", "side1"]);
    std::fs::write(env.work.join("file1.txt"), "made on side1\n").unwrap();
    env.git(&env.work, &["stash", "-q"]);
    env.git(&env.work, &["switch", "-q", "main"]);
    std::fs::write(env.work.join("file1.txt"), "made on main\n").unwrap();
    env.git(&env.work, &["stash", "-q"]);
    // side2: held by a detached HEAD. side3: held by nothing here.
    env.git(&env.work, &["switch", "-q", "--detach", "side2"]);
    for side in ["side1", "side2", "side3"] {
        env.git(&env.work, &["branch", "-q", "-D", side]);
    }
    env.install_hooks("pre-push");
    let lost = |side: &str| {
        env.push(&["origin", "--delete", side]).code(1);
        env.last_audit()["refs"][0]["lost_commits"].clone()
    };
    assert_eq!(lost("side1"), 0);
    assert_eq!(lost("side2"), 0);
    assert_eq!(lost("side3"), 1);
}

/// Issue 26 item 2: a forged loose object (a rewrite's new commit whose
/// file claims the remote tip as its parent) cannot make a force push look
/// like a fast-forward, whichever reader judges it: an object is trusted
/// only once its bytes hash to its id.
#[test]
fn a_forged_loose_object_cannot_turn_a_rewrite_into_a_fast_forward() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    env.install();
    let remote_tip = env.rev(&env.work, "HEAD");
    env.rewind(1);
    let rewritten = env.commit(&env.work, "new.txt", "rewritten history");
    let tree = env.rev(&env.work, "HEAD^{tree}");
    // What the forger wants git to read as the new commit.
    let body = format!(
        "tree {tree}\nparent {remote_tip}\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nforged\n"
    );
    let object = format!("commit {}\0{body}", body.len());
    let path = env
        .work
        .join(".git/objects")
        .join(&rewritten[..2])
        .join(&rewritten[2..]);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o644);
    std::fs::set_permissions(&path, perms).unwrap();
    std::fs::write(
        &path,
        miniz_oxide::deflate::compress_to_vec_zlib(object.as_bytes(), 6),
    )
    .unwrap();
    let out = env.push(&["--force", "origin", "main"]);
    assert_ne!(out.code, 0, "{out:?}");
    assert_eq!(env.remote_ref("main").as_deref(), Some(remote_tip.as_str()));
    let record = env.last_audit_of("pre-push");
    assert_eq!(record["decision"], "refused", "{record}");
    assert_eq!(record["risk_tier"], "critical", "{record}");
}

/// Issue 29 item 6: a force push let through says where the commits it
/// takes off the remote still live: here, under a rescue ref that puts them
/// back; a colleague's commit never fetched, only on the remote.
#[test]
fn an_allowed_force_push_says_where_the_overwritten_commits_live() {
    let env = TestEnv::new();
    env.install();
    let overwritten = env.rev(&env.work, "HEAD");
    env.rewind(1);
    let mut env = env;
    env.extra_env
        .push(("VOUCH_SKIP".into(), "restoring main".into()));
    let out = env.push(&["--force", "origin", "main"]);
    out.code(0);
    let kept = env.git(
        &env.work,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/vouch/rescue/",
        ],
    );
    let (name, oid) = kept.trim().split_once(' ').expect("a rescue ref");
    assert_eq!(oid, overwritten);
    out.stderr_has(&format!("are kept here as `{name}`"));
    // What the message says puts them back does.
    let short = name.strip_prefix("refs/vouch/rescue/").unwrap();
    env.vouch(&["rescue", "restore", short, "--as", "saved"])
        .code(0);
    assert_eq!(env.rev(&env.work, "saved"), overwritten);
    let back = env.push(&[
        "--force-with-lease",
        "origin",
        &format!("{name}:refs/heads/main"),
    ]);
    back.code(0);
    assert_eq!(env.remote_ref("main").unwrap(), overwritten);

    // A colleague's commit this clone never fetched: only the remote has it.
    let colleague = env.colleague();
    let theirs = env.commit(&colleague, "theirs.txt", "their work");
    env.git(&colleague, &["push", "-q", "origin", "main"]);
    env.commit(&env.work, "mine.txt", "my work");
    let out = env.push(&["--force", "origin", "main"]);
    out.code(0).stderr_has(&format!(
        "the commits `main` had on `origin` ({}) are not in this repository, so vouch keeps no copy: only `origin` has them now",
        &theirs[..10]
    ));
}
