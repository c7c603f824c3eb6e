//! The pre-push hook's fast program (`vouch-hook`): it answers the pushes
//! the door allows at once without starting git-vouch, and hands every
//! other push, input and all, to git-vouch. Where git-vouch is a stand-in
//! that notes each start, these tests see which program answered.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::support::{Out, TestEnv, vouch_bin};

/// Refuse whatever is verified and unavailable, so the tier shows in the outcome.
const BLOCK_UNAVAILABLE: &str =
    "[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\nstandard = \"block\"\n";

const MISSING: &str = "the vouch binary is missing";

/// Installs the pre-push hook from copies of both programs; returns the
/// copy of git-vouch.
fn install_from_copies(env: &TestEnv) -> PathBuf {
    let fast = PathBuf::from(env!("CARGO_BIN_EXE_vouch-hook"));
    env.install_from_copies(
        &[(vouch_bin(), "git-vouch"), (fast, "vouch-hook")],
        "pre-push",
    )
}

/// Installs from copies and puts in git-vouch's place a stand-in that notes
/// each start in the returned file and allows (so that a handover shows).
fn fast_program_with_stand_in(env: &TestEnv) -> PathBuf {
    let bin = install_from_copies(env);
    stand_in_for(env, &bin)
}

/// Puts in the place of git-vouch (`bin`) a stand-in that notes each start
/// in the returned file and allows (so that a handover shows).
fn stand_in_for(env: &TestEnv, bin: &Path) -> PathBuf {
    let started = env.base().join("git-vouch-started");
    // Written beside and copied in place with `cp`, as the copies are.
    let stand_in = env.script(
        "stand-in",
        &format!(
            "echo \"$0 $*\" >> '{}'\ncat > /dev/null\n",
            started.display()
        ),
    );
    let copied = std::process::Command::new("cp")
        .arg(stand_in)
        .arg(bin)
        .status()
        .unwrap();
    assert!(copied.success());
    started
}

/// Refuses what is verified and unavailable, pushes a branch `side` and
/// rewinds it by a commit: `push -f origin side` is then a rewind the door
/// refuses. `side` stays checked out.
fn side_rewound(env: &TestEnv) {
    env.write_config(BLOCK_UNAVAILABLE);
    env.git(&env.work, &["checkout", "-q", "-b", "side"]);
    env.commit(&env.work, "s.txt", "side");
    env.git(&env.work, &["push", "-q", "origin", "side"]);
    env.rewind(1);
}

/// Whether git-vouch was started since the last look.
fn handed_over(started: &Path) -> bool {
    fs::remove_file(started).is_ok()
}

fn answered_by_the_fast_program(out: &Out, started: &Path) {
    out.code(0);
    assert!(!out.stderr.contains("vouch:"), "{}", out.stderr);
    assert!(!handed_over(started), "git-vouch was started");
}

#[test]
fn the_fast_program_alone_allows_a_fast_forward_and_a_new_branch() {
    let env = TestEnv::new();
    let started = fast_program_with_stand_in(&env);
    env.commit(&env.work, "a.txt", "a");
    env.commit(&env.work, "b.txt", "b");
    answered_by_the_fast_program(&env.push(&["origin", "main"]), &started);
    assert_eq!(env.remote_ref("main"), Some(env.rev(&env.work, "HEAD")));
    env.git(&env.work, &["checkout", "-q", "-b", "feature"]);
    env.commit(&env.work, "f.txt", "feature");
    answered_by_the_fast_program(&env.push(&["origin", "feature"]), &started);
    // More new commits than the fast program reads for one push (64).
    env.git(&env.work, &["checkout", "-q", "main"]);
    for i in 0..65 {
        env.git(
            &env.work,
            &["commit", "-q", "--allow-empty", "-m", &format!("n{i}")],
        );
    }
    env.push(&["origin", "main"]).code(0);
    assert!(handed_over(&started));
    env.git(&env.work, &["checkout", "-q", "feature"]);
    // A rewrite is the whole door's, and git-vouch gets git's arguments (a
    // script sees its own path as `$0`; the launcher test checks the name).
    env.rewind(1);
    env.commit(&env.work, "g.txt", "rewritten");
    env.push(&["-f", "origin", "feature"]).code(0);
    assert_eq!(
        fs::read_to_string(&started).unwrap(),
        format!(
            "{} origin {}\n",
            env.base().join("bin/git-vouch").display(),
            env.remote.display()
        )
    );
}

#[test]
fn a_missing_git_vouch_is_noticed_at_a_fast_forward_too() {
    let env = TestEnv::new();
    let bin = install_from_copies(&env);
    fs::remove_file(&bin).unwrap();
    env.commit(&env.work, "a.txt", "a");
    env.push(&["origin", "main"]).code(0).stderr_has(MISSING);
    env.write_config("strict = true\n");
    install_from_copies(&env);
    fs::remove_file(&bin).unwrap();
    env.commit(&env.work, "b.txt", "b");
    env.push(&["origin", "main"])
        .code(1)
        .stderr_has("strict mode is on");
}

#[test]
fn the_fast_program_hands_over_what_it_cannot_be_sure_of() {
    let env = TestEnv::new();
    let started = fast_program_with_stand_in(&env);
    let handed = |out: Out| {
        out.code(0);
        assert!(handed_over(&started), "answered without git-vouch");
    };
    let push_after_commit = |name: &str, args: &[&str]| {
        env.commit(&env.work, &format!("{name}.txt"), name);
        env.push(args)
    };
    // A tag.
    env.git(&env.work, &["tag", "v1"]);
    handed(env.push(&["origin", "v1"]));
    // A config file that mentions a mirror, or includes another file.
    env.git(&env.work, &["config", "remote.other.mirror", "false"]);
    handed(push_after_commit("m", &["origin", "main"]));
    env.git(&env.work, &["config", "--unset", "remote.other.mirror"]);
    let global = env.home.join(".gitconfig");
    let kept = fs::read_to_string(&global).unwrap();
    fs::write(
        &global,
        format!("{kept}[include]\n\tpath = more.gitconfig\n"),
    )
    .unwrap();
    handed(push_after_commit("i", &["origin", "main"]));
    fs::write(&global, &kept).unwrap();
    // `git -c` settings reach the hook through the environment.
    env.commit(&env.work, "c.txt", "c");
    handed(env.git_headless(
        &env.work,
        &["-c", "core.abbrev=9", "push", "origin", "main"],
    ));
    // A commit that is packed: its parents are libgit2's to read.
    env.commit(&env.work, "p.txt", "packed");
    env.git(&env.work, &["gc", "-q"]);
    handed(push_after_commit("loose", &["origin", "main"]));
    // A chained hook beside vouch's.
    let local = env.work.join(".git/hooks/pre-push.local");
    fs::write(&local, "#!/bin/sh\nexit 0\n").unwrap();
    fs::set_permissions(&local, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    handed(push_after_commit("l", &["origin", "main"]));
    fs::remove_file(&local).unwrap();
    // A linked work tree (its `.git` is a file).
    let tree = env.worktree("side");
    env.commit(&tree, "w.txt", "in a work tree");
    handed(env.push_in(&tree, &["origin", "side"]));
    // With nothing unsure left, the fast program answers again.
    answered_by_the_fast_program(&push_after_commit("z", &["origin", "main"]), &started);
}

#[test]
fn what_the_config_makes_judged_the_fast_program_hands_to_the_door() {
    let env = TestEnv::new();
    install_from_copies(&env);
    // A fast-forward to a protected branch, made a tier that is verified.
    env.write_config(&format!(
        "{BLOCK_UNAVAILABLE}[tiers]\npush_protected = \"high\"\n"
    ));
    env.commit(&env.work, "a.txt", "a");
    env.push(&["origin", "main"])
        .code(1)
        .stderr_has("direct push to `main`");
    // Observe mode logs every push, a fast-forward too.
    env.write_config("mode = \"observe\"\n");
    env.push(&["origin", "main"]).code(0);
    let record = env.last_audit_of("pre-push");
    assert_eq!(record["risk_tier"], "none");
    assert_eq!(record["refs"][0]["change"], "fast-forward");
    // A config file with a problem: the door says so.
    fs::write(env.config_path(), "mode = \"sometimes\"\n").unwrap();
    env.commit(&env.work, "b.txt", "b");
    env.push(&["origin", "main"])
        .code(0)
        .stderr_has("config.toml")
        .stderr_has("sometimes");
}

#[test]
fn a_push_of_many_refs_is_handed_over_whole() {
    let env = TestEnv::new();
    env.write_config(BLOCK_UNAVAILABLE);
    install_from_copies(&env);
    env.git(
        &env.work,
        &["push", "-q", "origin", "HEAD:refs/heads/zzz-gone"],
    );
    env.git(&env.work, &["fetch", "-q"]);
    let head = env.rev(&env.work, "HEAD");
    let mut lines = String::new();
    for i in 0..800 {
        writeln!(lines, "create refs/heads/new-{i:04} {head}").unwrap();
    }
    let mut update = env
        .cmd("git", &env.work)
        .args(["update-ref", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(update.stdin.as_mut().unwrap(), lines.as_bytes()).unwrap();
    assert!(update.wait().unwrap().success());
    // 800 new branches (more than 64 KiB of lines), and last in git's order,
    // a deletion: the door must see every line.
    env.push(&["origin", "refs/heads/new-*:refs/heads/new-*", ":zzz-gone"])
        .code(1)
        .stderr_has("zzz-gone");
    assert!(env.remote_ref("zzz-gone").is_some());
    assert!(env.remote_ref("new-0000").is_none());
}

#[test]
fn the_pre_push_hook_is_a_copy_of_the_fast_program_naming_git_vouch() {
    let env = TestEnv::new();
    let bin = install_from_copies(&env);
    let fast = bin.with_file_name("vouch-hook");
    let hook = env.work.join(".git/hooks/pre-push");
    let bytes = fs::read(&hook).unwrap();
    assert_eq!(bytes.len(), fs::read(&fast).unwrap().len());
    let baked = vouch::baked::find(&bytes).expect("a baked region");
    assert_eq!(baked.bin, bin);
    assert_eq!(baked.fast, fast);
    assert!(baked.is_copy_of(vouch::files::identity(&fast).as_deref()));
    // The rest of vouch reads it as vouch's hook.
    env.vouch(&["status"])
        .code(0)
        .stdout_has(&format!("installed, calls `{}`", bin.display()));
    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    assert!(!hook.exists());
}

#[test]
fn after_an_upgrade_the_copy_hands_over_and_git_vouch_refreshes_it() {
    let env = TestEnv::new();
    let bin = install_from_copies(&env);
    let fast = bin.with_file_name("vouch-hook");
    let hook = env.work.join(".git/hooks/pre-push");
    let before = fs::read(&hook).unwrap();
    side_rewound(&env);
    env.git(&env.work, &["checkout", "-q", "main"]);
    // An upgrade as install.sh and `cargo install` make one: a new file
    // renamed into place.
    let new = env.base().join("vouch-hook.new");
    fs::copy(&fast, &new).unwrap();
    fs::rename(&new, &fast).unwrap();
    env.vouch(&["status"])
        .code(0)
        .stdout_has("the next push refreshes it");
    // The stale copy hands the push over with its lines unread: git-vouch
    // refreshes the copy, and the door still sees the rewind.
    let side = env.rev(&env.work, "side");
    env.push(&["-f", "origin", "side"])
        .code(1)
        .stderr_has("refreshed `.git/hooks/pre-push`");
    assert_ne!(env.remote_ref("side"), Some(side));
    env.commit(&env.work, "a.txt", "a");
    env.push(&["origin", "main"]).code(0);
    let status = env.vouch(&["status"]);
    assert!(!status.stdout.contains("refreshes"), "{}", status.stdout);
    assert_eq!(env.remote_ref("main"), Some(env.rev(&env.work, "HEAD")));
    let after = fs::read(&hook).unwrap();
    assert_ne!(after, before);
    let baked = vouch::baked::find(&after).expect("a baked region");
    assert!(baked.is_copy_of(vouch::files::identity(&fast).as_deref()));
    // The refreshed copy answers alone again.
    let started = stand_in_for(&env, &bin);
    env.commit(&env.work, "b.txt", "b");
    answered_by_the_fast_program(&env.push(&["origin", "main"]), &started);
    // An installed program that is gone: every push is handed over.
    fs::remove_file(&fast).unwrap();
    env.commit(&env.work, "c.txt", "c");
    env.push(&["origin", "main"]).code(0);
    assert!(handed_over(&started));
}

#[test]
fn a_stale_mark_on_a_current_copy_refreshes_nothing() {
    // `VOUCH_HOOK_STALE` set where the copy is current (by hand, or left in
    // an environment): git-vouch checks the hook file itself, leaves it,
    // and judges the push as always.
    let mut env = TestEnv::new();
    install_from_copies(&env);
    let hook = env.work.join(".git/hooks/pre-push");
    let before = fs::read(&hook).unwrap();
    side_rewound(&env);
    env.extra_env.push(("VOUCH_HOOK_STALE".into(), "1".into()));
    let out = env.push(&["-f", "origin", "side"]);
    out.code(1);
    assert!(!out.stderr.contains("refreshed"), "{}", out.stderr);
    assert_eq!(fs::read(&hook).unwrap(), before);
    env.git(&env.work, &["checkout", "-q", "main"]);
    env.commit(&env.work, "a.txt", "a");
    env.push(&["origin", "main"]).code(0);
    assert_eq!(fs::read(&hook).unwrap(), before);
}

#[test]
fn a_launcher_an_earlier_install_wrote_still_starts_the_fast_program() {
    let env = TestEnv::new();
    let started = fast_program_with_stand_in(&env);
    let bin = env.base().join("bin/git-vouch");
    let fast = bin.with_file_name("vouch-hook");
    let script = vouch::install::render("pre-push", &bin, false).unwrap();
    let targets = vouch::launcher::Targets {
        bin: &bin,
        fast: Some(&fast),
        script: &script,
    };
    let launcher = vouch::launcher::build(&targets, false, "push", false).unwrap();
    let hook = env.work.join(".git/hooks/pre-push");
    fs::write(&hook, launcher).unwrap();
    env.commit(&env.work, "a.txt", "a");
    answered_by_the_fast_program(&env.push(&["origin", "main"]), &started);
    env.git(&env.work, &["tag", "v1"]);
    env.push(&["origin", "v1"]).code(0);
    assert!(handed_over(&started), "a tag answered without git-vouch");
    // Without git-vouch, its script speaks.
    fs::remove_file(&bin).unwrap();
    env.commit(&env.work, "b.txt", "b");
    env.push(&["origin", "main"]).code(0).stderr_has(MISSING);
}
