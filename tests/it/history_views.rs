//! History as the remote will hold it (SPEC 2.1, issue 26 item 1): replace
//! refs and `info/grafts` are local views of history that no push carries,
//! so they may not make a loss look like a fast-forward or a merged
//! branch, at any door, through libgit2 or the git command line.

use std::fs;
use std::path::Path;

use crate::support::{Out, TestEnv};

const BLOCK_UNAVAILABLE: &str =
    "[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\nstandard = \"block\"\n";

/// Writes `info/grafts` in the repository at `work`: `commit` gets `parents`.
fn graft(env: &TestEnv, work: &Path, commit: &str, parents: &[&str]) {
    let common = env.git(work, &["rev-parse", "--git-common-dir"]);
    let info = work.join(common.trim()).join("info");
    fs::create_dir_all(&info).unwrap();
    fs::write(
        info.join("grafts"),
        format!("{commit} {}\n", parents.join(" ")),
    )
    .unwrap();
}

/// The local view each test plays: a graft file, or a replace ref made
/// with `git replace --graft` (git's own tool for it).
#[derive(Clone, Copy, Debug)]
enum View {
    Grafts,
    Replace,
}

fn bend(env: &TestEnv, work: &Path, view: View, commit: &str, parents: &[&str]) {
    match view {
        View::Grafts => graft(env, work, commit, parents),
        View::Replace => {
            let mut args = vec!["replace", "--graft", commit];
            args.extend_from_slice(parents);
            env.git(work, &args);
        }
    }
}

/// A clone of `remote.git` next to `work/`, with refs in `format`
/// (`files` is read by libgit2, `reftable` only by the git command line).
fn clone_with(env: &TestEnv, format: &str) -> std::path::PathBuf {
    let dir = env.base().join(format!("clone-{format}"));
    env.git(
        &env.base(),
        &[
            "clone",
            "-q",
            &format!("--ref-format={format}"),
            "remote.git",
            dir.to_str().unwrap(),
        ],
    );
    dir
}

/// Rewrites `main` in `work` to drop the remote's last two commits, and
/// bends history so that the new tip looks like it descends from the old.
fn rewritten_main(env: &TestEnv, work: &Path, view: View) -> (String, String) {
    let old = env.rev(work, "main");
    env.git(work, &["reset", "-q", "--hard", "HEAD~2"]);
    let new = env.commit(work, "other.txt", "a different history");
    bend(env, work, view, &new, &[&old]);
    // git itself now believes the push is a fast-forward.
    assert!(
        env.git_out(work, &["merge-base", "--is-ancestor", &old, &new])
            .code
            == 0
    );
    (old, new)
}

#[test]
fn a_bent_history_does_not_make_a_force_push_look_like_a_fast_forward() {
    for format in ["files", "reftable"] {
        for view in [View::Grafts, View::Replace] {
            let env = TestEnv::new();
            let work = clone_with(&env, format);
            let (old, _) = rewritten_main(&env, &work, view);
            env.write_config(BLOCK_UNAVAILABLE);
            env.vouch_in(&work, &["install"]).code(0);
            let out = env.push_in(&work, &["--force", "origin", "main"]);
            assert_eq!(
                out.code, 1,
                "{format}/{view:?}: the push loses two commits:\n{}",
                out.stderr
            );
            assert_eq!(env.remote_ref("main").as_deref(), Some(old.as_str()));
            let record = env.last_audit();
            assert_eq!(record["risk_tier"], "critical", "{format}/{view:?}");
            assert_eq!(record["refs"][0]["lost_commits"], 2, "{format}/{view:?}");
        }
    }
}

/// A repository whose `feature` holds a commit no other ref holds, and
/// a `main` tip bent to look like it merged `feature`.
fn unmerged_feature(env: &TestEnv, work: &Path, view: View) {
    env.git(work, &["switch", "-q", "-c", "feature"]);
    let feature = env.commit(work, "feature.txt", "work only feature holds");
    env.git(work, &["switch", "-q", "main"]);
    let main = env.rev(work, "main");
    let parent = env.rev(work, "main~1");
    bend(env, work, view, &main, &[&parent, &feature]);
    assert_eq!(
        env.git_out(work, &["merge-base", "--is-ancestor", &feature, "main"])
            .code,
        0,
        "git itself now believes `feature` is merged"
    );
}

#[test]
fn a_bent_history_does_not_make_a_branch_look_merged_to_the_agent_door() {
    for view in [View::Grafts, View::Replace] {
        let env = TestEnv::new();
        unmerged_feature(&env, &env.work, view);
        let out = env.vouch(&["check", "--", "git", "branch", "-D", "feature"]);
        assert_eq!(out.code, 1, "{view:?}:\n{}{}", out.stdout, out.stderr);
        assert!(
            !out.stdout.contains("tier: none") && !out.stdout.contains("tier: standard"),
            "{view:?}:\n{}",
            out.stdout
        );
    }
}

#[test]
fn a_bent_history_does_not_make_a_branch_look_merged_to_the_ref_update_door() {
    for format in ["files", "reftable"] {
        for view in [View::Grafts, View::Replace] {
            let env = TestEnv::new();
            let work = clone_with(&env, format);
            unmerged_feature(&env, &work, view);
            env.write_config(BLOCK_UNAVAILABLE);
            env.vouch_in(&work, &["install"]).code(0);
            let out: Out = env.git_headless(&work, &["branch", "-D", "feature"]);
            assert_ne!(
                out.code, 0,
                "{format}/{view:?}: deleting `feature` loses a commit:\n{}",
                out.stderr
            );
            assert!(
                env.git_out(&work, &["rev-parse", "--verify", "-q", "feature"])
                    .code
                    == 0,
                "{format}/{view:?}: the branch is still there"
            );
            let record = env.last_audit_of("reference-transaction");
            assert_eq!(record["refs"][0]["lost_commits"], 1, "{format}/{view:?}");
        }
    }
}
