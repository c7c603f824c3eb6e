//! The reference-transaction door (SPEC 2.2): a scenario matrix of everyday
//! git commands run without vouch and with vouch in observe mode (identical
//! results), then with enforcement (exactly the dangerous ones stopped),
//! plus the traps of `research/git-semantics.md` section 2 and rescue refs.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::support::{Out, TestEnv, verdict_body};

/// One step of the matrix: a shell command run in `work/`, and whether it
/// destroys history that vouch must stop.
struct Step {
    command: &'static str,
    dangerous: bool,
}

const fn ok(command: &'static str) -> Step {
    Step {
        command,
        dangerous: false,
    }
}

const fn danger(command: &'static str) -> Step {
    Step {
        command,
        dangerous: true,
    }
}

/// Everyday commands, in an order that builds on itself; 50 rows.
const STEPS: &[Step] = &[
    ok("echo a >> file1.txt && git commit -qam 'edit 1'"),
    ok("git commit -q --amend -m 'edit 1, amended'"),
    ok("git checkout -q -b feature"),
    ok("echo f >> f.txt && git add f.txt && git commit -qm 'feature 1'"),
    ok("echo f2 >> f.txt && git commit -qam 'feature 2'"),
    ok("git switch -q main"),
    ok("echo m >> file2.txt && git commit -qam 'main 2'"),
    ok("git merge -q --no-edit feature"),
    ok("git branch -d feature"),
    ok("git switch -q -c topic"),
    ok("echo t >> t.txt && git add t.txt && git commit -qm 'topic 1'"),
    ok("echo t2 >> t.txt && git commit -qam 'topic 2'"),
    ok("git switch -q main && echo m3 >> file3.txt && git commit -qam 'main 3'"),
    ok("git switch -q topic && git rebase -q main"),
    ok("GIT_SEQUENCE_EDITOR='sed -i 2s/^pick/squash/' GIT_EDITOR=true git rebase -q -i HEAD~2"),
    ok("git switch -q main && git cherry-pick topic >/dev/null"),
    ok("git revert --no-edit HEAD >/dev/null"),
    ok("echo s >> file1.txt && git stash push -q"),
    ok("git stash apply -q && git checkout -q -- file1.txt"),
    ok("git stash pop -q"),
    ok("git stash push -q"),
    danger("git stash drop -q"),
    ok("echo x >> file2.txt && git stash -q"),
    danger("git stash clear"),
    ok(
        "cd ../colleague && git fetch -q && git switch -q -c side origin/main && echo c >> c.txt && git add c.txt && git commit -qm colleague && git push -q origin side",
    ),
    ok("git fetch -q"),
    ok(
        "cd ../colleague && git commit -q --amend -m 'colleague, rewritten' && git push -q -f origin side",
    ),
    ok("git fetch -q"),
    ok(
        "cd ../colleague && git switch -q main && git pull -q && echo cm >> cm.txt && git add cm.txt && git commit -qm 'colleague main' && git push -q origin main",
    ),
    ok("git pull -q --rebase origin main"),
    ok("git push -q origin main"),
    ok("git branch renamed topic && git branch -m renamed moved"),
    ok("git tag v1.0 && git tag -a -m annotated v1.1"),
    ok("git worktree add -q ../wt -b wt-branch && git worktree remove ../wt"),
    ok("git submodule add -q ../remote.git sub && git commit -qm 'add sub'"),
    ok("git submodule update -q --init"),
    ok("git gc -q"),
    ok("git pack-refs --all"),
    ok(
        "git bisect start HEAD HEAD~3 >/dev/null && git bisect run true >/dev/null && git bisect reset",
    ),
    ok("git checkout -q HEAD~1 && git checkout -q main"),
    ok("git switch -q -c sw && git switch -q main"),
    ok("echo r >> file1.txt && git commit -qam 'to reset' && git reset -q --soft HEAD~1"),
    ok("git commit -qm 'recommitted' && git reset -q --mixed HEAD~1 && git commit -qam again"),
    ok("git notes add -m note HEAD"),
    danger("git reset -q --hard HEAD~1"),
    ok("git branch -D sw"),
    ok(
        "git switch -q -c doomed && echo d >> d.txt && git add d.txt && git commit -qm doomed && git switch -q main",
    ),
    danger("git branch -D doomed"),
    danger("git tag -d v1.0"),
    ok("git status --short && git log --oneline -3 && git restore . && git clean -fdq"),
];

/// What a step left behind: exit code, output, refs and files.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
    refs: String,
    files: BTreeMap<String, String>,
}

fn run_step(env: &TestEnv, command: &str) -> Out {
    Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "sh", "-c", command])
            .output()
            .unwrap(),
    )
}

/// Every file of the work tree with its content (`.git` left out).
fn files(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(fs::DirEntry::file_name);
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == ".git" {
            continue;
        }
        let path = format!("{prefix}{name}");
        if e.file_type().unwrap().is_dir() {
            files(&e.path(), &format!("{path}/"), out);
        } else {
            out.insert(path, fs::read_to_string(e.path()).unwrap_or_default());
        }
    }
}

fn outcome(env: &TestEnv, out: &Out) -> Outcome {
    let base = env.base().display().to_string();
    let mut tree = BTreeMap::new();
    files(&env.work, "", &mut tree);
    let refs = env.git(
        &env.work,
        &["for-each-ref", "--format=%(objectname) %(refname)"],
    ) + &env.git(&env.work, &["stash", "list"])
        + &env.git(&env.work, &["status", "--short", "--branch"]);
    Outcome {
        code: out.code,
        stdout: out.stdout.replace(&base, "<base>"),
        stderr: out.stderr.replace(&base, "<base>"),
        refs,
        files: tree,
    }
}

/// A repository for the matrix: `work/` and a colleague's clone.
fn matrix_env() -> TestEnv {
    let env = TestEnv::new();
    env.colleague();
    env
}

fn vouch_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("vouch:")).collect()
}

#[test]
fn observe_mode_changes_nothing_in_fifty_everyday_commands() {
    assert!(STEPS.len() >= 40);
    let plain = matrix_env();
    let observed = matrix_env();
    // Enforcing, this config would refuse every dangerous step.
    observed.write_config(
        "mode = \"observe\"\n[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\n",
    );
    observed.install();
    for (i, step) in STEPS.iter().enumerate() {
        let a = outcome(&plain, &run_step(&plain, step.command));
        let mut b = outcome(&observed, &run_step(&observed, step.command));
        let said = vouch_lines(&b.stderr)
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>();
        if step.dangerous {
            assert!(
                said.iter().any(|l| l.contains("observe mode")),
                "step {i} `{}`: observe mode says what enforcing would do:\n{}",
                step.command,
                b.stderr
            );
        } else {
            assert!(
                said.is_empty(),
                "step {i} `{}`: vouch spoke on a routine command:\n{}",
                step.command,
                b.stderr
            );
        }
        b.stderr = b
            .stderr
            .lines()
            .filter(|l| !l.starts_with("vouch:"))
            .fold(String::new(), |acc, l| acc + l + "\n");
        assert_eq!(
            a.code, 0,
            "step {i} `{}` fails:\n{}",
            step.command, a.stderr
        );
        assert_eq!(a, b, "step {i} `{}` differs under vouch", step.command);
    }
    // Observe mode writes no rescue refs: nothing in the repository differs.
    assert!(
        observed
            .git(&observed.work, &["for-each-ref", "refs/vouch"])
            .is_empty()
    );
    let audit = observed.audit();
    let would: Vec<_> = audit
        .iter()
        .filter(|r| r["hook"] == "reference-transaction")
        .map(|r| r["risk_tier"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        would.contains(&"critical".to_owned()) && would.contains(&"high".to_owned()),
        "observe mode logs what it judged: {would:?}"
    );
}

#[test]
fn enforcement_stops_exactly_the_dangerous_commands() {
    let env = matrix_env();
    enforce_the_matrix(&env);
    // The refused deletion is let through with a reason: a rescue ref is
    // written first, and it restores the branch.
    let doomed = env.rev(&env.work, "doomed");
    let out = skip_delete(&env, "doomed");
    out.code(0).stderr_has("vouch rescue restore doomed/");
    let record = env.last_audit_of("reference-transaction");
    assert_eq!(record["decision"], "allowed");
    assert_eq!(
        record["override_reason"],
        "VOUCH_SKIP: cleaning up, checked by hand"
    );
    let rescued = record["rescued"][0].as_str().unwrap().to_owned();
    assert!(rescued.contains("refs/vouch/rescue/doomed/"), "{rescued}");
    let list = env.vouch(&["rescue", "list"]);
    list.code(0)
        .stdout_has("refs/heads/doomed")
        .stdout_has("doomed");
    let name = list
        .stdout
        .lines()
        .find_map(|l| {
            l.split_whitespace()
                .next()
                .filter(|n| n.starts_with("doomed/"))
        })
        .unwrap()
        .to_owned();
    assert!(
        env.git_out(&env.work, &["rev-parse", "--verify", "-q", "doomed"])
            .code
            != 0
    );
    env.vouch(&["rescue", "restore", &name]).code(0);
    assert_eq!(env.rev(&env.work, "doomed"), doomed);
}

/// Runs every step of the matrix in `env`, with vouch enforcing: exactly
/// the dangerous ones are stopped, and a stopped one changes no ref.
fn enforce_the_matrix(env: &TestEnv) {
    let calls = judged(env);
    let count = || fs::read_to_string(&calls).map_or(0, |t| t.lines().count());
    for (i, step) in STEPS.iter().enumerate() {
        let refs_before = env.git(
            &env.work,
            &["for-each-ref", "--format=%(objectname) %(refname)"],
        );
        let calls_before = count();
        let out = run_step(env, step.command);
        let judged = count() > calls_before;
        if step.dangerous {
            assert_ne!(out.code, 0, "step {i} `{}` was not stopped", step.command);
            assert!(
                judged,
                "step {i} `{}`: the verifier was asked",
                step.command
            );
            assert!(
                out.stderr.contains("ref updates aborted by hook"),
                "step {i}: {}",
                out.stderr
            );
            assert_eq!(
                env.git(
                    &env.work,
                    &["for-each-ref", "--format=%(objectname) %(refname)"]
                ),
                refs_before,
                "step {i} `{}`: a refused command leaves every ref as it was",
                step.command
            );
            let record = env.last_audit_of("reference-transaction");
            assert_eq!(record["decision"], "refused");
            // What a person does after a refused `reset --hard`: the branch
            // never moved, so `git reset --hard` brings its files back.
            env.git(&env.work, &["reset", "-q", "--hard"]);
        } else {
            assert_eq!(
                out.code, 0,
                "step {i} `{}` was stopped:\n{}",
                step.command, out.stderr
            );
            assert!(
                !judged,
                "step {i} `{}`: a routine command asked the verifier",
                step.command
            );
        }
    }
}

/// The matrix in a repository libgit2 cannot open (issue 26 item 4):
/// refs in reftable, objects in SHA-256. vouch measures it through the git
/// command line and stops exactly what it stops in any other repository.
#[test]
fn repositories_libgit2_cannot_open_are_judged_the_same() {
    for format in ["reftable", "sha256"] {
        let env = TestEnv::new();
        let base = env.base();
        fs::remove_dir_all(&env.work).unwrap();
        if format == "sha256" {
            fs::remove_dir_all(&env.remote).unwrap();
            env.git(
                &base,
                &[
                    "init",
                    "-q",
                    "--bare",
                    "--object-format=sha256",
                    "-b",
                    "main",
                    "remote.git",
                ],
            );
            env.git(&base, &["clone", "-q", "remote.git", "work"]);
            for i in 1..=3 {
                env.commit(&env.work, &format!("file{i}.txt"), &format!("commit {i}"));
            }
            env.git(&env.work, &["push", "-q", "-u", "origin", "main"]);
        } else {
            env.git(
                &base,
                &["clone", "-q", "--ref-format=reftable", "remote.git", "work"],
            );
        }
        env.colleague();
        enforce_the_matrix(&env);
        let record = env.last_audit_of("reference-transaction");
        assert!(
            record["warnings"]
                .as_array()
                .is_some_and(|w| w.iter().any(|w| w
                    .as_str()
                    .is_some_and(|w| w.contains("measured with the git command line")))),
            "{format}: {record}"
        );
        // A refused deletion let through with a reason: the branch's tip is
        // saved, or (reftable, whose refs git holds locked during the
        // transaction) its id is given, with the command that restores it.
        env.git(&env.work, &["switch", "-q", "-c", "doomed2"]);
        env.commit(&env.work, "d2.txt", "doomed again");
        env.git(&env.work, &["switch", "-q", "main"]);
        let tip = env.rev(&env.work, "doomed2");
        let out = skip_delete(&env, "doomed2");
        out.code(0).stderr_has("git update-ref refs/heads/doomed2 ");
        let line = out
            .stderr
            .lines()
            .find(|l| l.contains("git update-ref refs/heads/doomed2 "))
            .unwrap();
        let restore = line
            .split('`')
            .find(|p| p.starts_with("git update-ref"))
            .unwrap()
            .to_owned();
        let args: Vec<&str> = restore.split_whitespace().skip(1).collect();
        env.git(&env.work, &args);
        assert_eq!(env.rev(&env.work, "doomed2"), tip, "{format}: {line}");
    }
}

/// `git branch -D <branch>`, let through with `VOUCH_SKIP` and a reason.
fn skip_delete(env: &TestEnv, branch: &str) -> Out {
    Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "branch", "-D", branch])
            .env("VOUCH_SKIP", "cleaning up, checked by hand")
            .output()
            .unwrap(),
    )
}

/// vouch installed in `env`, enforcing, with a verifier that refuses and
/// counts its calls in the file returned.
fn judged(env: &TestEnv) -> std::path::PathBuf {
    let calls = env.base().join("verifier-calls");
    env.write_config(&env.verifier(
        "judge",
        &format!(
            "echo called >> '{}'\n{}",
            calls.display(),
            verdict_body("fail")
        ),
        "blocking = true",
    ));
    env.install();
    calls
}

/// A repository with vouch enforcing and a verifier that refuses and counts.
fn judged_env() -> (TestEnv, std::path::PathBuf) {
    let env = TestEnv::new();
    let calls = judged(&env);
    (env, calls)
}

#[test]
fn rewinds_are_judged_by_what_would_vanish() {
    let (env, _) = judged_env();
    // Pushed commits stay on `origin/main`: a rewind loses nothing (standard, not verified).
    env.git_headless(&env.work, &["reset", "-q", "--hard", "HEAD~1"])
        .code(0);
    let record = env.last_audit_of("reference-transaction");
    assert_eq!(record["risk_tier"], "standard");
    assert_eq!(record["refs"][0]["rule"], "local_rewind_reachable");
    env.git(&env.work, &["reset", "-q", "--hard", "origin/main"]);
    let unpushed = env.commit(&env.work, "new.txt", "unpushed work");
    // `--soft` and `--mixed` keep the changes in the index or work tree.
    for mode in ["--soft", "--mixed"] {
        env.git_headless(&env.work, &["reset", "-q", mode, "HEAD~1"])
            .code(0);
        env.git(&env.work, &["add", "-A"]);
        env.git(&env.work, &["reset", "-q", "--soft", &unpushed]);
    }
    assert_eq!(env.rev(&env.work, "HEAD"), unpushed);
    // `--hard` throws them away: critical, refused, and the branch stays.
    let out = env.git_headless(&env.work, &["reset", "-q", "--hard", "HEAD~1"]);
    out.code(128)
        .stderr_has("git has already rewritten the index and work tree");
    assert_eq!(env.rev(&env.work, "main"), unpushed);
    let record = env.last_audit_of("reference-transaction");
    assert_eq!(record["risk_tier"], "critical");
    assert_eq!(record["refs"][0]["rule"], "local_rewind");
    assert_eq!(record["refs"][0]["lost_commits"], 1);
    // `branch -f` passes an all-zero old value: vouch reads the real one.
    env.git(&env.work, &["reset", "-q", "--hard"]);
    env.git(&env.work, &["switch", "-q", "--detach", "origin/main"]);
    let out = env.git_headless(&env.work, &["branch", "-f", "main", "HEAD~2"]);
    out.code(128);
    assert_eq!(env.rev(&env.work, "main"), unpushed);
}

#[test]
fn rewrites_that_keep_every_change_are_routine_and_dropping_one_is_not() {
    let (env, calls) = judged_env();
    env.git(&env.work, &["switch", "-q", "-c", "feat"]);
    for i in 1..=3 {
        env.commit(&env.work, &format!("feat{i}.txt"), &format!("feat {i}"));
    }
    env.git(&env.work, &["switch", "-q", "main"]);
    env.commit(&env.work, "main.txt", "main moves on");
    env.git(&env.work, &["switch", "-q", "feat"]);
    env.git_headless(&env.work, &["rebase", "-q", "main"])
        .code(0);
    env.git_headless(
        &env.work,
        &["commit", "-q", "--amend", "-m", "feat 3, reworded"],
    )
    .code(0);
    assert!(!calls.exists(), "a rebase and an amend ask no verifier");
    let before = env.rev(&env.work, "feat");
    // Dropping a commit in an interactive rebase loses its change: high.
    let out = Out::from_output(
        env.cmd("setsid", &env.work)
            .args(["-w", "git", "rebase", "-q", "-i", "HEAD~3"])
            .env("GIT_SEQUENCE_EDITOR", "sed -i 1s/^pick/drop/")
            .output()
            .unwrap(),
    );
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert_eq!(env.rev(&env.work, "feat"), before);
    let record = env.last_audit_of("reference-transaction");
    assert_eq!(record["risk_tier"], "high");
    assert_eq!(record["refs"][0]["rule"], "local_rewrite");
    env.git(&env.work, &["rebase", "--abort"]);
}

#[test]
fn pack_refs_renames_and_stash_pop_are_not_deletions() {
    let (env, calls) = judged_env();
    env.git(&env.work, &["branch", "keep"]);
    env.git(&env.work, &["tag", "t1"]);
    env.git_headless(&env.work, &["pack-refs", "--all"]).code(0);
    env.git_headless(&env.work, &["gc", "-q"]).code(0);
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    env.commit(&env.work, "solo.txt", "only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.git_headless(&env.work, &["branch", "-m", "solo", "solo-renamed"])
        .code(0);
    fs::write(env.work.join("file1.txt"), "dirty\n").unwrap();
    env.git_headless(&env.work, &["stash", "-q"]).code(0);
    env.git_headless(&env.work, &["stash", "pop", "-q"]).code(0);
    assert!(!calls.exists(), "no verifier was asked");
    assert!(
        env.audit()
            .iter()
            .all(|r| r["hook"] != "reference-transaction"),
        "routine ref updates leave no audit line"
    );
}

#[test]
fn a_packed_and_loose_branch_is_judged_once_and_rescued_once() {
    let (env, calls) = judged_env();
    env.write_config(&env.verifier(
        "judge",
        &format!(
            "echo called >> '{}'\n{}",
            calls.display(),
            verdict_body("pass")
        ),
        "blocking = true",
    ));
    env.git(&env.work, &["switch", "-q", "-c", "twice"]);
    env.commit(&env.work, "a.txt", "packed");
    env.git(&env.work, &["pack-refs", "--all"]);
    env.commit(&env.work, "b.txt", "loose too");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.git_headless(&env.work, &["branch", "-D", "twice"])
        .code(0);
    assert_eq!(fs::read_to_string(&calls).unwrap().lines().count(), 1);
    let rescues = env.git(&env.work, &["for-each-ref", "refs/vouch/rescue"]);
    assert_eq!(rescues.lines().count(), 1, "{rescues}");
}

#[test]
fn a_merged_branch_deletes_quietly_and_tags_are_guarded() {
    let (env, calls) = judged_env();
    env.git(&env.work, &["branch", "merged"]);
    env.git_headless(&env.work, &["branch", "-d", "merged"])
        .code(0);
    env.git_headless(&env.work, &["tag", "v9"]).code(0);
    assert!(!calls.exists());
    env.git_headless(&env.work, &["tag", "-f", "v9", "HEAD~1"])
        .code(128);
    assert_eq!(env.rev(&env.work, "v9"), env.rev(&env.work, "HEAD"));
    let record = env.last_audit_of("reference-transaction");
    assert_eq!(record["refs"][0]["rule"], "local_tag");
}

#[test]
fn rescue_restore_refuses_to_move_a_branch_sideways_and_prune_removes_old_ones() {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let env = TestEnv::new();
    env.install();
    env.git(&env.work, &["switch", "-q", "-c", "topic"]);
    let old = env.commit(&env.work, "topic.txt", "topic work");
    env.git(&env.work, &["switch", "-q", "main"]);
    // No verifier: a critical deletion headless is allowed with a warning, and rescued.
    env.git_headless(&env.work, &["branch", "-D", "topic"])
        .code(0);
    let name = env
        .git(
            &env.work,
            &["for-each-ref", "--format=%(refname)", "refs/vouch/rescue"],
        )
        .trim()
        .strip_prefix("refs/vouch/rescue/")
        .unwrap()
        .to_owned();
    // A new `topic` elsewhere: restoring would move it sideways.
    env.git(&env.work, &["switch", "-q", "-c", "topic"]);
    env.commit(&env.work, "other.txt", "another topic");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.vouch(&["rescue", "restore", &name])
        .code(2)
        .stderr_has("--as topic-restored");
    env.vouch(&["rescue", "restore", &name, "--as", "topic-restored"])
        .code(0);
    assert_eq!(env.rev(&env.work, "topic-restored"), old);
    // A branch behind the rescued tip is moved forward.
    env.git_headless(&env.work, &["branch", "-D", "topic"])
        .code(0);
    env.git(&env.work, &["branch", "topic", "main"]);
    env.vouch(&["rescue", "restore", &name]).code(0);
    assert_eq!(env.rev(&env.work, "topic"), old);
    env.vouch(&["rescue", "restore", "nope/20260101T000000Z"])
        .code(2)
        .stderr_has("vouch rescue list");
    env.vouch(&["rescue", "list", "--json"])
        .code(0)
        .stdout_has("\"original\":\"refs/heads/topic\"");
    env.vouch(&["rescue", "prune", "--older-than", "1h"])
        .code(0)
        .stderr_has("no rescue ref is older");
    env.vouch(&["rescue", "prune", "--older-than", "2030-01-01", "--dry-run"])
        .code(0)
        .stderr_has("would delete");
    crate::support::tmux::vouch_yes(&env, &["rescue", "prune", "--older-than", "2030-01-01"]);
    assert!(
        env.git(&env.work, &["for-each-ref", "refs/vouch"])
            .is_empty()
    );
}

#[test]
fn a_missing_binary_never_breaks_a_ref_update() {
    let env = TestEnv::new();
    env.write_config("strict = true\n");
    env.install_from_vanishing_binary("reference-transaction");
    env.git_headless(&env.work, &["branch", "x"]).code(0);
    env.git_headless(
        &env.work,
        &["commit", "-q", "--allow-empty", "-m", "still works"],
    )
    .code(0);
    env.git_headless(&env.work, &["branch", "-D", "x"]).code(0);
}

#[test]
fn unknown_states_pass_at_once_and_a_chained_hook_keeps_its_say() {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let env = TestEnv::new();
    let z = "0".repeat(40);
    let head = env.rev(&env.work, "HEAD");
    let deletion = format!("{head} {z} refs/heads/main\n");
    for state in ["preparing", "committed", "aborted", "some-future-state"] {
        env.vouch_stdin(
            &["hook", "reference-transaction", state],
            deletion.as_bytes(),
        )
        .code(0);
    }
    // A foreign hook is kept and chained: it sees every state and the lines,
    // and its refusal at `prepared` refuses.
    let hooks = env.work.join(".git/hooks");
    let seen = env.base().join("seen");
    fs::write(
        hooks.join("reference-transaction"),
        format!(
            "#!/bin/sh\necho \"$1 $(cat)\" >> '{}'\n[ \"$1\" = prepared ] && grep -q refs/heads/blocked '{}' && exit 1\nexit 0\n",
            seen.display(),
            seen.display()
        ),
    )
    .unwrap();
    fs::set_permissions(
        hooks.join("reference-transaction"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    env.install();
    assert!(hooks.join("reference-transaction.local").is_file());
    // The linked hook itself (its fast path, before the command line is
    // parsed) passes unknown states too.
    let out = Out::from_output(
        env.cmd(hooks.join("reference-transaction"), &env.work)
            .arg("some-future-state")
            .output()
            .unwrap(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    env.git_headless(&env.work, &["branch", "fine"]).code(0);
    env.git_headless(&env.work, &["branch", "blocked"])
        .code(128);
    // Said and logged, as every door logs a chained hook's refusal.
    let record = env.last_audit_of("reference-transaction");
    assert_eq!(record["decision"], "refused");
    assert!(
        record["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("`reference-transaction.local` refused")),
        "{record}"
    );
    let log = fs::read_to_string(&seen).unwrap();
    assert!(
        log.contains("prepared") && log.contains("committed") && log.contains("refs/heads/fine"),
        "{log}"
    );
    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    assert!(!hooks.join("reference-transaction.local").exists());
    assert!(
        fs::read_to_string(hooks.join("reference-transaction"))
            .unwrap()
            .contains("seen")
    );
}

#[test]
fn programs_vouch_runs_do_not_call_the_hook_back() {
    let env = TestEnv::new();
    let calls = env.base().join("calls");
    env.git(&env.work, &["switch", "-q", "-c", "keep"]);
    env.commit(&env.work, "keep.txt", "kept only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    // The verifier itself rewinds `keep` (critical): were the hook called
    // back, it would judge that too and ask this verifier again.
    env.write_config(&env.verifier(
        "nested",
        &format!(
            "echo called >> '{}'\ngit branch -f keep main\n{}",
            calls.display(),
            verdict_body("pass")
        ),
        "blocking = true",
    ));
    env.install();
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    env.commit(&env.work, "solo.txt", "only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.git_headless(&env.work, &["branch", "-D", "solo"])
        .code(0);
    assert_eq!(fs::read_to_string(&calls).unwrap().lines().count(), 1);
    assert_eq!(
        env.rev(&env.work, "keep"),
        env.rev(&env.work, "main"),
        "the verifier's own git command ran"
    );
}

#[test]
fn a_move_to_a_sibling_commit_is_not_an_amend() {
    let (env, _) = judged_env();
    // `main` holds an unpushed commit; the remote got another on the same parent.
    let colleague = env.colleague();
    env.commit(&colleague, "theirs.txt", "a colleague's commit");
    env.git(&colleague, &["push", "-q", "origin", "main"]);
    let mine = env.commit(&env.work, "mine.txt", "my unpushed commit");
    env.git(&env.work, &["fetch", "-q"]);
    // Same parents as an amend would have, but nothing of `mine` survives.
    env.git_headless(&env.work, &["reset", "-q", "--hard", "origin/main"])
        .code(128);
    assert_eq!(env.rev(&env.work, "main"), mine);
    let record = env.last_audit_of("reference-transaction");
    assert_eq!(record["refs"][0]["rule"], "local_rewrite");
}

#[test]
fn a_forced_rename_over_an_existing_branch_is_judged() {
    let (env, _) = judged_env();
    env.git(&env.work, &["switch", "-q", "-c", "keep"]);
    let kept = env.commit(&env.work, "keep.txt", "only on keep");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.git(&env.work, &["branch", "other"]);
    env.git_headless(&env.work, &["branch", "-M", "other", "keep"])
        .code(128);
    assert_eq!(env.rev(&env.work, "keep"), kept);
    // A plain rename onto a new name stays routine.
    env.git_headless(&env.work, &["branch", "-m", "other", "fresh"])
        .code(0);
}

#[test]
fn a_hand_set_nested_variable_turns_nothing_off() {
    let (mut env, calls) = judged_env();
    env.extra_env.push(("VOUCH_NESTED".into(), "1".into()));
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    env.commit(&env.work, "solo.txt", "only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.git_headless(&env.work, &["branch", "-D", "solo"])
        .code(128);
    assert!(calls.exists(), "the verifier was asked");
}

#[test]
fn rescued_tags_and_stash_entries_come_back() {
    let env = TestEnv::new();
    env.install();
    let skip = |args: &[&str]| {
        Out::from_output(
            env.cmd("setsid", &env.work)
                .arg("-w")
                .arg("git")
                .args(args)
                .env("VOUCH_SKIP", "testing rescue")
                .output()
                .unwrap(),
        )
    };
    env.git(&env.work, &["tag", "v9", "HEAD~1"]);
    let tagged = env.rev(&env.work, "v9");
    skip(&["tag", "-d", "v9"]).code(0).stderr_has("-tag");
    // Two stash entries, cleared at once: both are kept.
    for text in ["first", "second"] {
        fs::write(env.work.join("file1.txt"), format!("{text}\n")).unwrap();
        env.git(&env.work, &["stash", "-q"]);
    }
    let entries: Vec<String> = (0..2)
        .map(|i| env.rev(&env.work, &format!("stash@{{{i}}}")))
        .collect();
    skip(&["stash", "clear"]).code(0);
    let listed = env.vouch(&["rescue", "list", "--json"]);
    listed.code(0);
    let rescues: Vec<serde_json::Value> = serde_json::from_str(&listed.stdout).unwrap();
    for oid in entries.iter().chain([&tagged]) {
        assert!(
            rescues.iter().any(|r| r["oid"] == oid.as_str()),
            "{oid} is rescued: {}",
            listed.stdout
        );
    }
    let name = |original: &str| {
        rescues
            .iter()
            .find(|r| r["original"] == original)
            .map(|r| r["name"].as_str().unwrap().to_owned())
            .unwrap()
    };
    env.vouch(&["rescue", "restore", &name("refs/tags/v9")])
        .code(0);
    assert_eq!(env.rev(&env.work, "v9"), tagged);
    env.vouch(&["rescue", "restore", &name("refs/stash")])
        .code(0);
    let back = env.rev(&env.work, "stash@{0}");
    assert!(entries.contains(&back), "a stash entry is back: {back}");
}

#[test]
fn a_branch_whose_tip_object_is_missing_can_be_deleted() {
    let (env, calls) = judged_env();
    // A branch with a commit of its own: deleting it is refused...
    env.git(&env.work, &["switch", "-q", "-c", "gone"]);
    let tip = env.commit(&env.work, "gone.txt", "only on gone");
    env.git(&env.work, &["switch", "-q", "main"]);
    let out = env.git_headless(&env.work, &["branch", "-D", "gone"]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(calls.exists(), "judged, and refused");
    fs::remove_file(&calls).unwrap();
    // ...until its tip object is removed (git's t3200 "removes dangling branch").
    let object = env
        .work
        .join(".git/objects")
        .join(&tip[..2])
        .join(&tip[2..]);
    fs::rename(&object, env.base().join("moved-away")).unwrap();
    env.git_headless(&env.work, &["branch", "--delete", "--force", "gone"])
        .code(0)
        .stderr_has(
            "an object missing from this repository: nothing of it is left to lose or to rescue",
        );
    assert_eq!(env.git(&env.work, &["for-each-ref", "refs/heads/gone"]), "");
    // A loose ref written by hand, naming an object that never existed.
    let never = "1234567890abcdef1234567890abcdef12345678";
    fs::write(env.work.join(".git/refs/heads/never"), format!("{never}\n")).unwrap();
    env.git_headless(&env.work, &["branch", "-D", "never"])
        .code(0)
        .stderr_has("missing from this repository");
    assert_eq!(
        env.git(&env.work, &["for-each-ref", "refs/heads/never"]),
        ""
    );
    assert!(
        !calls.exists(),
        "nothing to judge: the verifier was never asked"
    );
    assert!(
        env.git(&env.work, &["for-each-ref", "refs/vouch/"])
            .is_empty(),
        "no rescue ref for an object that is not there"
    );
}

/// The survivor rule (issue 10): every stash entry, not only the newest,
/// and a detached `HEAD` still hold their commits, so deleting a branch
/// they hold loses nothing.
#[test]
fn a_branch_a_stash_entry_or_a_detached_head_still_holds_deletes_quietly() {
    let (env, calls) = judged_env();
    env.git(&env.work, &["switch", "-q", "-c", "solo"]);
    env.commit(&env.work, "solo.txt", "only here");
    fs::write(env.work.join("file1.txt"), "made on solo\n").unwrap();
    env.git(&env.work, &["stash", "-q"]);
    env.git(&env.work, &["switch", "-q", "main"]);
    fs::write(env.work.join("file1.txt"), "made on main\n").unwrap();
    env.git(&env.work, &["stash", "-q"]);
    // `solo`'s commit is now held only by `stash@{1}`.
    env.git_headless(&env.work, &["branch", "-D", "solo"])
        .code(0);
    assert!(!calls.exists(), "no verifier was asked");
    env.git(&env.work, &["switch", "-q", "-c", "solo2"]);
    env.commit(&env.work, "solo2.txt", "only here too");
    env.git(&env.work, &["switch", "-q", "--detach", "solo2"]);
    env.git_headless(&env.work, &["branch", "-D", "solo2"])
        .code(0);
    assert!(!calls.exists(), "no verifier was asked");
    // Without the stash entry the commit is lost: judged, and refused.
    env.git(&env.work, &["switch", "-q", "-c", "solo3"]);
    env.commit(&env.work, "solo3.txt", "really only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    let out = env.git_headless(&env.work, &["branch", "-D", "solo3"]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(calls.exists(), "the verifier was asked");
}

/// vouch's rescue refs are guarded (issue 26 item 6): removing one with
/// plain git, in any spelling, is judged like deleting an unmerged branch;
/// packing and gc leave them alone, and one whose commits another ref holds
/// goes without a question.
#[test]
fn rescue_refs_deleted_with_plain_git_are_judged() {
    let (env, calls) = judged_env();
    env.git(&env.work, &["switch", "-q", "-c", "doomed"]);
    env.commit(&env.work, "d.txt", "only doomed holds this");
    env.git(&env.work, &["switch", "-q", "main"]);
    let out = skip_delete(&env, "doomed");
    out.code(0);
    let rescue = env
        .git(
            &env.work,
            &["for-each-ref", "--format=%(refname)", "refs/vouch"],
        )
        .trim()
        .to_owned();
    assert!(rescue.starts_with("refs/vouch/rescue/doomed/"), "{rescue}");
    let tip = env.rev(&env.work, &rescue);
    let count = || fs::read_to_string(&calls).map_or(0, |t| t.lines().count());
    for attack in [
        format!("git update-ref -d {rescue}"),
        format!("git update-ref -d {rescue} {tip}"),
        "git for-each-ref --format='%(refname)' refs/vouch | xargs -n1 git update-ref -d".into(),
        format!("printf 'delete {rescue}\\n' | git update-ref --stdin"),
        format!("git update-ref {rescue} HEAD"),
        format!("git -c core.logAllRefUpdates=false update-ref -d --no-deref {rescue}"),
    ] {
        let before = count();
        let out = run_step(&env, &attack);
        assert_ne!(
            out.code, 0,
            "`{attack}` removed a rescue ref:\n{}",
            out.stderr
        );
        assert!(count() > before, "`{attack}`: the verifier was asked");
        assert_eq!(env.rev(&env.work, &rescue), tip, "`{attack}`");
    }
    // Packing, gc and an expired reflog keep it, and ask nothing.
    let before = count();
    for routine in [
        "git pack-refs --all",
        "git reflog expire --expire=now --all && git gc -q --prune=now",
    ] {
        run_step(&env, routine).code(0);
        assert_eq!(env.rev(&env.work, &rescue), tip, "`{routine}`");
    }
    assert_eq!(count(), before, "routine upkeep asked the verifier");
    env.git(&env.work, &["cat-file", "-e", &tip]);
    // A rescue ref whose commits `main` holds loses nothing.
    env.git(
        &env.work,
        &["update-ref", "refs/vouch/rescue/held/x", "main"],
    );
    run_step(&env, "git update-ref -d refs/vouch/rescue/held/x").code(0);
    assert_eq!(count(), before);
}

/// A ref update is judged by what it loses, not by the command's name
/// (issue 26 item 5): a branch turned into a symbolic ref, a branch moved
/// back by a sequencer's `--abort`, and a command line any program can set
/// (`exec -a`) are all judged.
#[test]
fn what_a_ref_update_loses_is_judged_whatever_command_runs_it() {
    let (env, calls) = judged_env();
    let count = || fs::read_to_string(&calls).map_or(0, |t| t.lines().count());
    // Two patches, the second at odds with every `keep` branch.
    env.git(&env.work, &["switch", "-q", "-c", "side", "main"]);
    env.commit(&env.work, "a.txt", "A");
    fs::write(env.work.join("file1.txt"), "side\n").unwrap();
    env.git(&env.work, &["commit", "-qam", "B"]);
    let patches = env.base().join("patches");
    env.git(
        &env.work,
        &[
            "format-patch",
            "-q",
            "main..side",
            "-o",
            patches.to_str().unwrap(),
        ],
    );
    let setup = |env: &TestEnv, branch: &str| {
        env.git(&env.work, &["switch", "-q", "-c", branch, "main"]);
        env.commit(&env.work, &format!("{branch}1.txt"), "unpushed 1");
        fs::write(env.work.join("file1.txt"), "mine\n").unwrap();
        env.git(&env.work, &["commit", "-qam", "unpushed 2"]);
        env.rev(&env.work, branch)
    };
    let attacks = [
        // Turned into a symbolic ref: its two commits are on no other ref.
        "git switch -q main && git symbolic-ref refs/heads/keep refs/heads/main",
        // `am --abort` and `cherry-pick --abort` go back to where they
        // started, as written in files any command can change.
        "git am -q ../patches/*.patch >/dev/null 2>&1; git update-ref ORIG_HEAD HEAD~3 && git am --abort",
        "git cherry-pick side~1 side >/dev/null 2>&1; git rev-parse HEAD~3 > .git/sequencer/head && git cherry-pick --abort",
        // A process that calls itself `git commit` runs a git started
        // under another name.
        "git switch -q main && exec -a git bash -c '(exec -a foo git update-ref refs/heads/keep keep~2)' commit",
    ];
    // An argv[0] with spaces: told apart only where the command line is
    // read exactly (not through `ps`; README, "Platforms").
    let spaced =
        "exec -a git bash -c '(exec -a \"git commit\" git reset -q --hard HEAD~2)' cherry-pick";
    let attacks: Vec<&str> = attacks
        .into_iter()
        .chain(vouch::platform::EXACT_ARGV.then_some(spaced))
        .collect();
    for (i, attack) in attacks.iter().enumerate() {
        let branch = format!("keep{i}");
        let attack = attack.replace("keep", &branch);
        let tip = setup(&env, &branch);
        let before = count();
        let out = Out::from_output(
            env.cmd("setsid", &env.work)
                .args(["-w", "bash", "-c", &attack])
                .output()
                .unwrap(),
        );
        assert!(
            count() > before,
            "`{attack}` was not judged:\n{}",
            out.stderr
        );
        assert_ne!(out.code, 0, "`{attack}` went through:\n{}", out.stderr);
        // Whatever the command added first, the two commits are still there.
        assert_eq!(
            env.git_out(
                &env.work,
                &[
                    "merge-base",
                    "--is-ancestor",
                    &tip,
                    &format!("refs/heads/{branch}")
                ]
            )
            .code,
            0,
            "`{attack}` lost the branch's commits"
        );
        run_step(
            &env,
            "git am --quit 2>/dev/null; git cherry-pick --quit 2>/dev/null; git reset -q --hard && git switch -q main",
        )
        .code(0);
    }
    // The agent door reads `symbolic-ref` as what it does to the ref.
    let tip = setup(&env, "pointed");
    env.vouch(&[
        "check",
        "--",
        "git",
        "symbolic-ref",
        "refs/heads/pointed",
        "refs/heads/main",
    ])
    .code(1)
    .stdout_has("tier: critical");
    env.vouch(&[
        "check",
        "--",
        "git",
        "symbolic-ref",
        "HEAD",
        "refs/heads/main",
    ])
    .code(0)
    .stdout_has("tier: none");
    assert_eq!(env.rev(&env.work, "pointed"), tip);
    env.git(&env.work, &["switch", "-q", "main"]);
    // The same names on honest work stay routine.
    let before = count();
    setup(&env, "honest");
    run_step(&env, "git commit -q --allow-empty -m more && git switch -q main && git merge -q --no-edit honest").code(0);
    assert_eq!(count(), before, "a commit and a merge asked the verifier");
}
