//! Paths as bytes (issue 12, item 4): a repository, a hooks directory and a
//! vouch binary under names that are not UTF-8, and a branch whose name is
//! not UTF-8, are guarded exactly like any other.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use crate::support::{Out, TestEnv, vouch_bin};

fn bytes_path(base: &Path, name: &[u8]) -> PathBuf {
    base.join(OsStr::from_bytes(name))
}

/// Every file and directory name below `dir` that holds U+FFFD (a path
/// made from a lossy conversion).
fn replacement_names(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if e.file_name()
            .as_bytes()
            .windows(3)
            .any(|w| w == "\u{fffd}".as_bytes())
        {
            found.push(path.clone());
        }
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            replacement_names(&path, found);
        }
    }
}

/// A clone of the remote under `<base>/\xff-dir/work`, with vouch installed
/// from a copy of the binary under `<base>/bin-\xfe/`.
fn non_utf8_repo(env: &TestEnv) -> (PathBuf, PathBuf) {
    let parent = bytes_path(&env.base(), b"\xff-dir");
    fs::create_dir_all(&parent).unwrap();
    let repo = parent.join("work");
    env.git_headless(
        &env.base(),
        &[
            OsStr::new("clone"),
            OsStr::new("-q"),
            env.remote.as_os_str(),
            repo.as_os_str(),
        ],
    )
    .code(0);
    let bin_dir = bytes_path(&env.base(), b"bin-\xfe 'q'");
    fs::create_dir_all(&bin_dir).unwrap();
    let bin = bin_dir.join("vouch");
    // `cp`, not fs::copy: see `install_from_vanishing_binary`.
    assert!(
        env.cmd("cp", &env.base())
            .arg(vouch_bin())
            .arg(&bin)
            .status()
            .unwrap()
            .success()
    );
    (repo, bin)
}

#[test]
fn a_repository_under_a_non_utf8_path_is_guarded_like_any_other() {
    let env = TestEnv::new();
    let (repo, bin) = non_utf8_repo(&env);
    let out = Out::from_output(
        env.cmd("setsid", &repo)
            .arg("-w")
            .arg(&bin)
            .arg("install")
            .output()
            .unwrap(),
    );
    out.code(0);
    let hooks = repo.join(".git/hooks");
    let script = fs::read(hooks.join("pre-push")).unwrap();
    // The binary's path, byte for byte, single-quoted for `sh`.
    let mut baked = b"vouch_bin='".to_vec();
    baked.extend_from_slice(
        &bin.as_os_str()
            .as_bytes()
            .iter()
            .flat_map(|b| {
                if *b == b'\'' {
                    br"'\''".to_vec()
                } else {
                    vec![*b]
                }
            })
            .collect::<Vec<u8>>(),
    );
    baked.extend_from_slice(b"'\n");
    assert!(
        script.windows(baked.len()).any(|w| w == baked),
        "{}",
        String::from_utf8_lossy(&script)
    );
    let reftx = fs::read(hooks.join("reference-transaction")).unwrap();
    assert!(
        reftx.windows(baked.len()).any(|w| w == baked),
        "{}",
        String::from_utf8_lossy(&reftx)
    );
    let mut twins = Vec::new();
    replacement_names(&env.base(), &mut twins);
    assert!(twins.is_empty(), "a lossy twin was made: {twins:?}");
    Out::from_output(
        env.cmd("setsid", &repo)
            .arg("-w")
            .arg(&bin)
            .arg("status")
            .output()
            .unwrap(),
    )
    .code(0)
    .stdout_has("pre-push:     installed");

    // Judged exactly as elsewhere: a rewrite of the protected main is refused...
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    env.git_headless(
        &repo,
        &[
            OsStr::new("reset"),
            OsStr::new("-q"),
            OsStr::new("--soft"),
            OsStr::new("HEAD~1"),
        ],
    )
    .code(0);
    let before = env.remote_ref("main").unwrap();
    env.git_headless(
        &repo,
        &[
            OsStr::new("commit"),
            OsStr::new("-qm"),
            OsStr::new("rewritten"),
        ],
    )
    .code(0);
    let out = env.git_headless(
        &repo,
        &[
            OsStr::new("push"),
            OsStr::new("--force"),
            OsStr::new("origin"),
            OsStr::new("main"),
        ],
    );
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        env.remote_ref("main").unwrap(),
        before,
        "the remote kept main"
    );
    let record = env.last_audit_of("pre-push");
    assert_eq!(
        record["refs"][0]["rule"], "force_push_protected",
        "{record}"
    );
    assert_eq!(record["decision"], "refused", "{record}");

    // ...and so is the deletion of a branch holding the only copy of a commit.
    env.git_headless(
        &repo,
        &[
            OsStr::new("switch"),
            OsStr::new("-q"),
            OsStr::new("-c"),
            OsStr::new("solo"),
        ],
    )
    .code(0);
    fs::write(repo.join("solo.txt"), "solo\n").unwrap();
    env.git_headless(&repo, &[OsStr::new("add"), OsStr::new("solo.txt")])
        .code(0);
    env.git_headless(
        &repo,
        &[OsStr::new("commit"), OsStr::new("-qm"), OsStr::new("solo")],
    )
    .code(0);
    env.git_headless(
        &repo,
        &[OsStr::new("switch"), OsStr::new("-q"), OsStr::new("-")],
    )
    .code(0);
    let out = env.git_headless(
        &repo,
        &[OsStr::new("branch"), OsStr::new("-D"), OsStr::new("solo")],
    );
    assert_ne!(out.code, 0, "{}", out.stderr);
    let record = env.last_audit_of("reference-transaction");
    assert_eq!(record["refs"][0]["rule"], "local_delete", "{record}");
    env.git_headless(
        &repo,
        &[
            OsStr::new("rev-parse"),
            OsStr::new("--verify"),
            OsStr::new("solo"),
        ],
    )
    .code(0);
    let mut twins = Vec::new();
    replacement_names(&env.base(), &mut twins);
    assert!(twins.is_empty(), "a lossy twin was made: {twins:?}");
}

#[test]
fn a_branch_whose_name_is_not_utf8_is_guarded() {
    let env = TestEnv::new();
    env.install();
    env.write_config("[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\n");
    let name = OsString::from_vec(b"caf\xe9".to_vec());
    let work = env.work.clone();
    env.git_headless(
        &work,
        &[
            OsStr::new("switch"),
            OsStr::new("-q"),
            OsStr::new("-c"),
            &name,
        ],
    )
    .code(0);
    let tip = env.commit(&work, "cafe.txt", "only on the latin-1 branch");
    env.git_headless(
        &work,
        &[
            OsStr::new("push"),
            OsStr::new("-q"),
            OsStr::new("origin"),
            &name,
        ],
    )
    .code(0);
    env.git_headless(
        &work,
        &[OsStr::new("switch"), OsStr::new("-q"), OsStr::new("main")],
    )
    .code(0);
    // Deleting it on the remote is judged like any branch deletion.
    let mut delete = OsString::from(":refs/heads/");
    delete.push(&name);
    let out = env.git_headless(&work, &[OsStr::new("push"), OsStr::new("origin"), &delete]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    let record = env.last_audit_of("pre-push");
    assert_eq!(record["decision"], "refused", "{record}");
    // A local deletion of the only copy is judged too.
    env.git_headless(
        &work,
        &[OsStr::new("fetch"), OsStr::new("-q"), OsStr::new("--prune")],
    )
    .code(0);
    let mut tracking = OsString::from("refs/remotes/origin/");
    tracking.push(&name);
    env.git_headless(
        &work,
        &[OsStr::new("update-ref"), OsStr::new("-d"), &tracking],
    )
    .code(0);
    let out = env.git_headless(&work, &[OsStr::new("branch"), OsStr::new("-D"), &name]);
    assert_ne!(out.code, 0, "the deletion was refused: {}", out.stderr);
    let record = env.last_audit_of("reference-transaction");
    assert_eq!(record["refs"][0]["rule"], "local_delete", "{record}");
    assert_eq!(record["refs"][0]["lost_commits"], 1, "{record}");
    let mut full = OsString::from("refs/heads/");
    full.push(&name);
    let still = env.git_headless(&work, &[OsStr::new("rev-parse"), &full]);
    assert_eq!(still.stdout.trim(), tip, "the branch is still there");
}
