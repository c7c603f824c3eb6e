//! The pre-commit door: one staged change per row of SPEC 2.3, ordinary
//! changes that must pass, and the message naming files and lines.

use std::fs;

use crate::support::TestEnv;

const BLOCK: &str =
    "[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\nstandard = \"block\"\n";

fn guarded() -> TestEnv {
    let env = TestEnv::new();
    env.write_config(BLOCK);
    env.install();
    env
}

fn write(env: &TestEnv, path: &str, text: &str) {
    let full = env.work.join(path);
    fs::create_dir_all(full.parent().unwrap()).unwrap();
    fs::write(full, text).unwrap();
    env.git(&env.work, &["add", path]);
}

/// `git commit` without a terminal; returns the output and whether HEAD moved.
fn commit(env: &TestEnv) -> (crate::support::Out, bool) {
    let before = env.rev(&env.work, "HEAD");
    let out = crate::support::Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "commit", "-q", "-m", "change"])
            .output()
            .unwrap(),
    );
    (out, env.rev(&env.work, "HEAD") != before)
}

#[track_caller]
fn refused(env: &TestEnv, rule: &str, says: &str) {
    let (out, moved) = commit(env);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(!moved, "a refused commit records nothing");
    assert!(
        out.stderr.contains(says),
        "stderr lacks {says:?}:\n{}",
        out.stderr
    );
    let record = env.last_audit();
    assert_eq!(record["hook"], "pre-commit");
    assert_eq!(record["operation_type"], "commit");
    assert_eq!(record["decision"], "refused");
    assert!(
        record["refs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["rule"] == rule),
        "{record}"
    );
}

#[test]
fn ordinary_changes_pass_without_a_log_line() {
    let env = guarded();
    write(&env, "src/lib.rs", "pub fn f() {}\n");
    write(&env, "README.md", "hello\n");
    let (out, moved) = commit(&env);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(moved);
    assert!(env.audit().is_empty());
    // A migration that only adds is fine too.
    write(
        &env,
        "db/migrations/001_init.sql",
        "CREATE TABLE users (id int);\n",
    );
    assert!(commit(&env).1);
}

#[test]
fn destructive_sql_in_a_migration_is_critical_and_named_by_line() {
    let env = guarded();
    write(
        &env,
        "db/migrations/002_cleanup.sql",
        "-- cleanup\nALTER TABLE users ADD x int;\nDROP TABLE sessions;\n",
    );
    refused(
        &env,
        "destructive_sql",
        "`db/migrations/002_cleanup.sql` line 3",
    );
    assert_eq!(env.last_audit()["risk_tier"], "critical");
}

#[test]
fn credential_files_are_critical() {
    let env = guarded();
    write(&env, ".env", "API_TOKEN=abc\n");
    refused(&env, "credential_file", "credential file `.env`");
    let env = guarded();
    write(&env, ".env.example", "API_TOKEN=\n");
    assert!(commit(&env).1, "an example file is not a credential");
}

#[test]
fn bulk_deletion_is_high() {
    let env = guarded();
    for i in 0..11 {
        write(&env, &format!("old/f{i}.txt"), "x\n");
    }
    env.git(
        &env.work,
        &["commit", "-q", "--no-verify", "-m", "add old files"],
    );
    env.git(&env.work, &["rm", "-q", "-r", "old"]);
    refused(&env, "bulk_deletion", "bulk deletion: 11 files");
}

#[test]
fn ci_infrastructure_and_dependency_bumps_are_high() {
    let env = guarded();
    write(&env, ".github/workflows/ci.yml", "on: push\n");
    refused(&env, "ci_config", "`.github/workflows/ci.yml`");
    let env = guarded();
    write(&env, "infra/main.tf", "resource \"x\" \"y\" {}\n");
    refused(&env, "infrastructure", "`infra/main.tf`");
    let env = guarded();
    write(&env, "Cargo.toml", "[dependencies]\nserde = \"1.0\"\n");
    env.git(&env.work, &["commit", "-q", "--no-verify", "-m", "deps"]);
    write(&env, "Cargo.toml", "[dependencies]\nserde = \"2.0\"\n");
    refused(
        &env,
        "dependency_major_bump",
        "`serde` goes from major version 1 to 2 in `Cargo.toml` line 2",
    );
}

#[test]
fn large_change_is_standard_and_verified_only_on_request() {
    let mut env = guarded();
    for i in 0..11 {
        write(&env, &format!("src/m{i}.rs"), "// module\n");
    }
    assert!(commit(&env).1, "standard is not verified by default");
    for i in 0..11 {
        write(&env, &format!("src/n{i}.rs"), "// module\n");
    }
    env.extra_env.push(("VOUCH_VERIFY".into(), "1".into()));
    refused(&env, "large_change", "large change: 11 files");
}

#[test]
fn commit_all_uses_the_temporary_index_git_names() {
    let env = guarded();
    write(&env, "db/migrations/003.sql", "SELECT 1;\n");
    env.git(
        &env.work,
        &["commit", "-q", "--no-verify", "-m", "migration"],
    );
    // Not staged with `git add`: `git commit -a` stages it into a temporary index.
    fs::write(
        env.work.join("db/migrations/003.sql"),
        "SELECT 1;\nTRUNCATE TABLE audit;\n",
    )
    .unwrap();
    let before = env.rev(&env.work, "HEAD");
    let out = env.git_out(&env.work, &["commit", "-q", "-a", "-m", "sneaky"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("`db/migrations/003.sql` line 2"),
        "{}",
        out.stderr
    );
    assert_eq!(env.rev(&env.work, "HEAD"), before);
}

#[test]
fn a_skip_with_a_reason_lets_the_commit_through_and_is_logged() {
    let mut env = guarded();
    write(&env, ".env", "X=1\n");
    env.extra_env
        .push(("VOUCH_SKIP".into(), "test fixture, not a secret".into()));
    assert!(commit(&env).1);
    let record = env.last_audit();
    assert_eq!(
        record["override_reason"],
        "VOUCH_SKIP: test fixture, not a secret"
    );
    assert_eq!(record["operation_type"], "commit");
}

#[test]
fn concluding_a_merge_judges_only_what_the_merge_adds() {
    let env = guarded();
    env.git(&env.work, &["checkout", "-q", "-b", "feature"]);
    write(&env, ".github/workflows/ci.yml", "on: push\n");
    env.git(
        &env.work,
        &["commit", "-q", "--no-verify", "-m", "ci on the branch"],
    );
    env.git(&env.work, &["checkout", "-q", "main"]);
    env.commit(&env.work, "other.txt", "meanwhile on main");
    env.git(
        &env.work,
        &["merge", "-q", "--no-ff", "--no-commit", "feature"],
    );
    // Something the merge itself adds is judged like any commit.
    write(&env, ".env", "TOKEN=1\n");
    refused(&env, "credential_file", "credential file `.env`");
    let record = env.last_audit();
    let rules: Vec<&str> = record["refs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule"].as_str().unwrap())
        .collect();
    assert!(
        !rules.contains(&"ci_config"),
        "the branch's own CI change came as committed there: {rules:?}"
    );
    // Without it, the merge concludes.
    env.git(&env.work, &["rm", "-q", "--cached", ".env"]);
    let (out, moved) = commit(&env);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(moved, "the merge commit was recorded");
}

#[test]
fn a_chained_pre_commit_hook_runs_first_and_either_refusing_refuses() {
    use std::os::unix::fs::PermissionsExt;
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let env = TestEnv::new();
    let hook = env.work.join(".git/hooks/pre-commit");
    fs::write(&hook, "#!/bin/sh\nexit 3\n").unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    env.install();
    write(&env, "src/lib.rs", "pub fn f() {}\n");
    let (out, moved) = commit(&env);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(!moved);
    assert!(
        out.stderr
            .contains("`pre-commit.local` refused this commit (exit 3)"),
        "{}",
        out.stderr
    );
    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    assert_eq!(
        fs::read_to_string(&hook).unwrap(),
        "#!/bin/sh\nexit 3\n",
        "restored as it was"
    );
}

#[test]
fn observe_mode_logs_a_commit_it_would_refuse_and_lets_it_through() {
    let env = TestEnv::new();
    env.write_config(&format!("mode = \"observe\"\n{BLOCK}"));
    env.install();
    write(&env, ".env", "TOKEN=1\n");
    let (out, moved) = commit(&env);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(moved);
    assert!(
        out.stderr
            .contains("enforcing would have refused this commit"),
        "{}",
        out.stderr
    );
    let record = env.last_audit_of("pre-commit");
    assert_eq!(record["would_decide"], "refused");
    assert_eq!(record["decision"], "allowed");
}

#[test]
fn a_missing_binary_never_blocks_a_commit_unless_strict() {
    let env = TestEnv::new();
    env.install_from_vanishing_binary("pre-commit");
    write(&env, ".env", "TOKEN=1\n");
    let (out, moved) = commit(&env);
    assert!(moved, "{}", out.stderr);
    assert!(
        out.stderr.contains("this commit is NOT checked"),
        "{}",
        out.stderr
    );
    // Strict, baked in at install time: refused.
    env.write_config("strict = true\n");
    env.install_from_vanishing_binary("pre-commit");
    write(&env, ".env", "TOKEN=2\n");
    let (out, moved) = commit(&env);
    assert!(!moved);
    assert!(
        out.stderr.contains("strict mode is on: commit refused"),
        "{}",
        out.stderr
    );
}

/// The staged change as vouch reads it, in process.
fn staged(env: &TestEnv) -> vouch::classify::facts::StagedFacts {
    let config = vouch::classify::config::Config::default();
    vouch::measure::git::Repo::discover(&env.work)
        .unwrap()
        .staged(&vouch::classify::staged::Reading::new(&config.commit))
        .unwrap()
}

#[test]
fn a_small_change_is_counted_line_for_line_as_git_counts_it() {
    let env = TestEnv::new();
    write(&env, "keep.txt", "a\nb\nc\nd\n");
    write(&env, "gone.txt", "1\n2\n3");
    write(
        &env,
        "moved.txt",
        &"a line that stays the same\n".repeat(20),
    );
    env.git(&env.work, &["commit", "-q", "-m", "base"]);
    // The old blobs packed, as a clone has them.
    env.git(&env.work, &["repack", "-adq"]);
    write(&env, "keep.txt", "a\nB\nc\nd\ne");
    env.git(&env.work, &["rm", "-q", "gone.txt"]);
    env.git(&env.work, &["mv", "moved.txt", "renamed.txt"]);
    fs::write(
        env.work.join("renamed.txt"),
        "a line that stays the same\n".repeat(19) + "one edit\n",
    )
    .unwrap();
    env.git(&env.work, &["add", "renamed.txt"]);
    write(&env, "new.txt", "x\ny\n\nz");
    write(&env, "empty.txt", "");
    fs::write(env.work.join("blob.bin"), b"PNG\0\x01\x02\n\n\n").unwrap();
    env.git(&env.work, &["add", "blob.bin"]);
    std::os::unix::fs::symlink("keep.txt", env.work.join("link")).unwrap();
    env.git(&env.work, &["add", "link"]);

    let numstat = env.git(&env.work, &["diff", "--cached", "--numstat", "-M"]);
    let facts = staged(&env);
    for line in numstat.lines() {
        let mut cols = line.split('\t');
        let (added, deleted) = (cols.next().unwrap(), cols.next().unwrap());
        let path = cols.next().unwrap();
        // `--numstat` names a rename `old => new` in one of its forms.
        let path = path.rsplit(" => ").next().unwrap().trim_end_matches('}');
        let file = facts
            .files
            .iter()
            .find(|f| path.ends_with(&f.path) || f.path.ends_with(path))
            .unwrap_or_else(|| panic!("{path} missing from {facts:?}"));
        let count = |s: &str| s.parse::<usize>().unwrap_or(0); // `-` for binary
        assert_eq!(
            (file.added_lines, file.deleted_lines, file.lines_partial),
            (count(added), count(deleted), false),
            "{line}"
        );
    }
    assert_eq!(facts.files.len(), numstat.lines().count(), "{facts:?}");
    assert!(
        facts
            .files
            .iter()
            .any(|f| f.path == "renamed.txt"
                && f.status == vouch::classify::facts::FileStatus::Renamed),
        "a moved file is a rename, not a deletion: {facts:?}"
    );
}

#[test]
fn a_large_staged_file_is_read_only_as_far_as_the_rules_need() {
    let env = guarded();
    write(&env, "old.txt", &"old line\n".repeat(600));
    env.git(&env.work, &["commit", "-q", "--no-verify", "-m", "old"]);
    // 200,000 lines staged: the large-change rule holds after 501 of them.
    write(&env, "data/big.csv", &"1,2,3\n".repeat(200_000));
    let facts = staged(&env);
    let big = &facts.files[0];
    assert_eq!(
        (big.added_lines, big.deleted_lines, big.lines_partial),
        (501, 0, true),
        "{facts:?}"
    );
    assert_eq!(facts.line_totals(), "at least +501 -0");
    // Standard is not verified by default: the commit goes through, logged.
    let (out, moved) = commit(&env);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(moved);
    let record = env.last_audit();
    assert_eq!(record["risk_tier"], "standard", "{record}");
    assert!(
        record
            .to_string()
            .contains("large change: 1 files, at least +501 -0 lines"),
        "{record}"
    );

    // A deletion is still counted to its end where the bulk-deletion rule
    // needs it, after a large file already decided the large-change rule.
    write(&env, "data/big2.csv", &"4,5,6\n".repeat(100_000));
    env.git(&env.work, &["rm", "-q", "old.txt"]);
    let facts = staged(&env);
    let old = facts.files.iter().find(|f| f.path == "old.txt").unwrap();
    assert_eq!(
        (old.deleted_lines, old.lines_partial),
        (501, true),
        "{facts:?}"
    );
    refused(
        &env,
        "bulk_deletion",
        "bulk deletion: 1 files and at least 501 lines deleted",
    );

    // Below the thresholds every line is counted: 400 deleted is no bulk
    // deletion, 400 + 200 is a large change.
    env.git(&env.work, &["reset", "-q"]);
    fs::write(env.work.join("old.txt"), "old line\n".repeat(200)).unwrap();
    env.git(&env.work, &["add", "old.txt"]);
    fs::remove_file(env.work.join("data/big.csv")).unwrap();
    fs::remove_file(env.work.join("data/big2.csv")).unwrap();
    write(&env, "notes.txt", &"note\n".repeat(200));
    let facts = staged(&env);
    assert_eq!(facts.line_totals(), "+200 -400", "{facts:?}");
}

/// Issue 26 item 14: a staged submodule whose commit is not in this
/// repository's objects is judged by its path, not skipped with the whole
/// commit ("this commit is not checked").
#[test]
fn a_staged_submodule_is_judged_by_its_path() {
    let env = guarded();
    let absent = "1234567890abcdef1234567890abcdef12345678";
    // An ordinary submodule path: the commit goes through, checked.
    env.git(
        &env.work,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{absent},vendor/lib"),
        ],
    );
    let (out, moved) = commit(&env);
    assert!(moved, "{}", out.stderr);
    assert!(!out.stderr.contains("not checked"), "{}", out.stderr);
    // A submodule where the CI configuration lives: the CI rule (high),
    // refused without a verdict.
    env.git(
        &env.work,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{absent},.github/workflows/deploy"),
        ],
    );
    refused(&env, "ci_config", ".github/workflows/deploy");
}

/// `env` with `work/` made again in `format` (`reftable` or `sha256`):
/// repositories libgit2 cannot open.
fn unopenable(format: &str) -> TestEnv {
    let env = TestEnv::new();
    let base = env.base();
    fs::remove_dir_all(&env.work).unwrap();
    let init = if format == "sha256" {
        "--object-format=sha256"
    } else {
        "--ref-format=reftable"
    };
    env.git(&base, &["init", "-q", init, "-b", "main", "work"]);
    env.commit(&env.work, "README.md", "first");
    env
}

/// Repositories libgit2 cannot open (reftable refs, SHA-256 objects) or
/// whose index it cannot read (a split index): the
/// staged change is read with the git command line, judged as anywhere
/// else (issue 39 item 5; before, such a commit was not checked at all).
#[test]
fn a_repository_libgit2_cannot_open_is_read_with_the_git_command_line() {
    for format in ["reftable", "sha256"] {
        let env = unopenable(format);
        env.write_config(BLOCK);
        env.install();
        write(&env, "src/lib.rs", "pub fn f() {}\n");
        let (out, moved) = commit(&env);
        assert_eq!(out.code, 0, "{format}: {}", out.stderr);
        assert!(moved, "{format}: a routine commit goes through");
        assert!(env.audit().is_empty(), "{format}: and leaves no line");
        write(
            &env,
            "db/migrations/002_cleanup.sql",
            "-- cleanup\nALTER TABLE users ADD x int;\nDROP TABLE sessions;\n",
        );
        refused(
            &env,
            "destructive_sql",
            "`db/migrations/002_cleanup.sql` line 3",
        );
        let record = env.last_audit();
        assert_eq!(record["risk_tier"], "critical", "{format}: {record}");
        assert!(
            record["warnings"][0]
                .as_str()
                .is_some_and(|w| w.contains("read with the git command line")),
            "{format}: {record}"
        );
        env.git(&env.work, &["reset", "-q"]);
        write(&env, ".env", "API_TOKEN=abc\n");
        refused(&env, "credential_file", "credential file `.env`");
    }
    // A split index, which libgit2 cannot read: the same.
    let env = guarded();
    env.git(&env.work, &["update-index", "--split-index"]);
    write(&env, "deploy/id_rsa", "key\n");
    refused(&env, "credential_file", "credential file `deploy/id_rsa`");
    let record = env.last_audit();
    assert!(
        record["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("read with the git command line")),
        "{record}"
    );
}

/// A repository neither git2 nor git can read, for the pre-commit door:
/// refs in reftable (libgit2 cannot open it) and, in the hook, a `git`
/// that reads nothing (git puts its exec path first on its hooks' PATH).
/// Nothing is measured, so the commit is judged at least high, as the
/// other doors judge what they cannot measure, and the decision table's
/// row decides it: without a verdict, allowed with a warning; with a
/// verifier that blocks, refused. The audit line says why either way
/// (issue 39 item 5; before, pre-commit let every such commit through
/// unlogged).
#[test]
fn a_repository_nothing_can_read_is_judged_at_least_high() {
    use std::os::unix::fs::PermissionsExt as _;
    let env = unopenable("reftable");
    env.install();
    let blind = env.base().join("blind");
    fs::create_dir_all(&blind).unwrap();
    let git = blind.join("git");
    fs::write(
        &git,
        "#!/bin/sh\necho 'fatal: this git reads nothing' >&2\nexit 128\n",
    )
    .unwrap();
    fs::set_permissions(&git, fs::Permissions::from_mode(0o755)).unwrap();
    let commit_blind = |env: &TestEnv| {
        let before = env.rev(&env.work, "HEAD");
        let out = crate::support::Out::from_output(
            env.cmd("setsid", &env.work)
                .args(["-w", "git", "commit", "-q", "-m", "change"])
                .env("GIT_EXEC_PATH", &blind)
                .output()
                .unwrap(),
        );
        (out, env.rev(&env.work, "HEAD") != before)
    };
    let said = "neither git2 nor git can read this repository";

    // No verifier: the table's "high, no verdict" row for nobody at a
    // terminal allows it, with a warning, and logs it.
    write(&env, "notes.txt", "a harmless line\n");
    let (out, moved) = commit_blind(&env);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(moved);
    assert!(out.stderr.contains(said), "{}", out.stderr);
    let record = env.last_audit_of("pre-commit");
    assert_eq!(record["operation_type"], "commit");
    assert_eq!(record["risk_tier"], "high", "{record}");
    assert_eq!(record["decision"], "allowed", "{record}");
    assert_eq!(record["result"], "unavailable", "{record}");
    assert_eq!(record["refs"][0]["rule"], "unmeasured", "{record}");
    assert!(
        record["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains(said)),
        "{record}"
    );

    // A verifier that blocks: refused, as a push nothing could measure is.
    env.write_config(&env.verifier(
        "judge",
        &crate::support::verdict_body("fail"),
        "blocking = true",
    ));
    write(&env, "notes.txt", "another harmless line\n");
    let (out, moved) = commit_blind(&env);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(!moved, "a refused commit records nothing");
    let record = env.last_audit_of("pre-commit");
    assert_eq!(record["risk_tier"], "high", "{record}");
    assert_eq!(record["decision"], "refused", "{record}");
    assert_eq!(record["refs"][0]["rule"], "unmeasured", "{record}");
}
