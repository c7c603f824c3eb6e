//! Nothing an agent does is beyond undo (issue 28, SPEC 3.4): a snapshot
//! before every agent shell command that may change the repository, and
//! `git vouch undo` putting back, byte for byte, the work tree (deleted
//! and untracked files, modes, symlinks, secret-like ignored files), the
//! index, the branch and tag tips and the stash.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::{Out, TestEnv};

/// Everything undo restores: each file (mode and bytes, a link's target),
/// the index entries, the refs, HEAD and the stash.
#[derive(Debug, PartialEq, Eq)]
struct State {
    files: BTreeMap<String, (u32, Vec<u8>)>,
    index: String,
    refs: String,
    head: String,
    stash: String,
}

fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, (u32, Vec<u8>)>) {
    for e in fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        // Ignored build output is not snapshotted (it can be rebuilt, and
        // may be gigabytes): left out of the comparison.
        if name == ".git" || (prefix.is_empty() && name == "target") {
            continue;
        }
        let path = format!("{prefix}{name}");
        let meta = fs::symlink_metadata(e.path()).unwrap();
        if meta.file_type().is_symlink() {
            let target = fs::read_link(e.path()).unwrap();
            out.insert(
                path,
                (0o120_000, target.to_string_lossy().as_bytes().to_vec()),
            );
        } else if meta.is_dir() {
            walk(&e.path(), &format!("{path}/"), out);
        } else {
            out.insert(
                path,
                (
                    meta.permissions().mode() & 0o111,
                    fs::read(e.path()).unwrap(),
                ),
            );
        }
    }
}

fn state(env: &TestEnv) -> State {
    let mut files = BTreeMap::new();
    walk(&env.work, "", &mut files);
    State {
        files,
        index: env.git(&env.work, &["ls-files", "-s"]),
        refs: env.git(
            &env.work,
            &[
                "for-each-ref",
                "--format=%(objectname) %(refname)",
                "refs/heads",
                "refs/tags",
            ],
        ),
        // A branch, or the detached id.
        head: env
            .git_out(&env.work, &["symbolic-ref", "-q", "HEAD"])
            .stdout
            + &env.git(&env.work, &["rev-parse", "HEAD"]),
        stash: env
            .git_out(
                &env.work,
                &["log", "-g", "--format=%H %s", "refs/stash", "--"],
            )
            .stdout
            .lines()
            .map(|l| l.split(' ').next().unwrap_or("").to_owned())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// A repository with work in every place an agent can destroy it:
/// committed and unpushed commits, a branch and a tag, modified, staged,
/// deleted, untracked and executable files, a symlink, an ignored `.env`,
/// and a stash entry.
fn busy(env: &TestEnv) {
    let w = &env.work;
    fs::create_dir_all(w.join("src/deep")).unwrap();
    fs::write(w.join("src/deep/lib.rs"), "pub fn f() {}\n").unwrap();
    fs::write(w.join("run.sh"), "#!/bin/sh\necho run\n").unwrap();
    fs::set_permissions(w.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("file1.txt", w.join("link")).unwrap();
    fs::write(w.join(".gitignore"), ".env\ntarget/\n").unwrap();
    env.git(w, &["add", "-A"]);
    env.git(w, &["commit", "-qm", "more files"]);
    env.git(w, &["tag", "v1"]);
    env.git(w, &["branch", "feature"]);
    env.commit(w, "unpushed.txt", "unpushed work");
    fs::write(w.join("stashed.txt"), "stashed\n").unwrap();
    env.git(w, &["add", "stashed.txt"]);
    env.git(w, &["stash", "push", "-q", "-m", "kept for later"]);
    fs::write(w.join("file1.txt"), "modified, not staged\n").unwrap();
    fs::write(w.join("file2.txt"), "modified and staged\n").unwrap();
    env.git(w, &["add", "file2.txt"]);
    fs::remove_file(w.join("file3.txt")).unwrap();
    fs::write(w.join("notes.md"), "untracked notes\n").unwrap();
    fs::write(w.join(".env"), "API_KEY=sk-test-1234\n").unwrap();
    fs::create_dir_all(w.join("target")).unwrap();
    fs::write(w.join("target/build.o"), "ignored build output\n").unwrap();
}

/// Runs `command` as an agent would: through Claude Code's hook first (the
/// snapshot), then in a shell.
fn agent_runs(env: &TestEnv, command: &str) -> Out {
    env.claude(command);
    Out::from_output(
        env.cmd("sh", &env.work)
            .args(["-c", command])
            .output()
            .unwrap(),
    )
}

/// Commands that lose work of every kind, each undone.
const LOSSES: &[&str] = &[
    "rm -rf src run.sh link .env notes.md",
    "echo gone > file1.txt && : > file2.txt",
    "mv notes.md file1.txt",
    "sed -i 's/.*/x/' file1.txt src/deep/lib.rs",
    "python3 -c \"open('file2.txt','w').write('')\"",
    "git reset -q --hard HEAD~2",
    "git clean -fdqx",
    "git checkout -- . && git clean -fdq",
    "git stash clear",
    "git stash drop -q",
    "git branch -D feature && git tag -d v1",
    "git add -A && git commit -qm 'agent commit' && git reset -q --hard HEAD~3",
    "git rm -rq src && git commit -qm 'drop src'",
    "git switch -q -c elsewhere HEAD~2 && git branch -D main",
    "chmod -x run.sh && ln -sf file2.txt link",
    "git restore --staged . && git checkout -q .",
    "git stash push -q -u && git stash drop -q",
    "find . -name '*.txt' -not -path './.git/*' -delete",
    "git update-ref -d refs/heads/feature && git update-ref refs/heads/main HEAD~3",
    "printf 'x' > .env && rm -f .gitignore",
    "git checkout -q --detach HEAD~1 && git branch -D feature main",
];

#[test]
fn every_kind_of_loss_is_undone_byte_for_byte() {
    for command in LOSSES {
        let env = TestEnv::new();
        busy(&env);
        let before = state(&env);
        let out = agent_runs(&env, command);
        assert_ne!(
            state(&env),
            before,
            "`{command}` changed nothing:\n{}",
            out.stderr
        );
        let undo = env.vouch(&["undo"]);
        assert_eq!(undo.code, 0, "`{command}`: {}", undo.stderr);
        assert_eq!(
            state(&env),
            before,
            "`{command}` was not undone:\n{}",
            undo.stderr
        );
    }
}

#[test]
fn an_undo_can_be_undone_and_paths_restore_alone() {
    let env = TestEnv::new();
    busy(&env);
    let before = state(&env);
    agent_runs(&env, "rm -rf src notes.md && echo new > file2.txt");
    let after = state(&env);
    env.vouch(&["undo"]).code(0).stderr_has("brings it back");
    assert_eq!(state(&env), before);
    // The state the undo replaced is a snapshot too.
    env.vouch(&["undo"]).code(0);
    assert_eq!(state(&env), after);
    // One path from an older snapshot, nothing else: N counts the
    // commands listed (an undo's own state is listed apart), so the
    // number read before these undos still names the agent's command, and
    // `src/` is `src`.
    env.vouch(&["undo", "1", "--path", "src/"]).code(0);
    let now = state(&env);
    assert_eq!(
        now.files.get("src/deep/lib.rs"),
        before.files.get("src/deep/lib.rs")
    );
    assert_eq!(now.files.get("file2.txt"), after.files.get("file2.txt"));
    assert!(!now.files.contains_key("notes.md"));
    let list = env.vouch(&["snapshots"]);
    list.code(0).stdout_has("claude").stdout_has("undo");
}

#[test]
fn reading_commands_and_an_unchanged_state_write_no_snapshot() {
    let env = TestEnv::new();
    busy(&env);
    let count = || env.snapshot_refs().len();
    for reads in [
        "git status",
        "ls -la && cat file1.txt",
        "git log --oneline -3",
        "grep -rn fn src",
    ] {
        env.claude(reads);
    }
    assert_eq!(count(), 0, "a read-only command pays nothing");
    env.claude("make build");
    assert_eq!(count(), 1);
    // Nothing changed since: no new snapshot.
    env.claude("make test");
    assert_eq!(count(), 1);
    fs::write(env.work.join("file1.txt"), "changed again\n").unwrap();
    env.claude("make test");
    assert_eq!(count(), 2);
    // The index, work tree and stash are as they were: a snapshot touches
    // none of them.
    let before = state(&env);
    env.claude("make");
    assert_eq!(state(&env), before);
}

#[test]
fn a_repository_mid_merge_gets_its_conflicts_back() {
    let env = TestEnv::new();
    let w = &env.work;
    env.git(w, &["switch", "-q", "-c", "side"]);
    fs::write(w.join("file1.txt"), "side\n").unwrap();
    env.git(w, &["commit", "-qam", "side"]);
    env.git(w, &["switch", "-q", "main"]);
    fs::write(w.join("file1.txt"), "main\n").unwrap();
    env.git(w, &["commit", "-qam", "main"]);
    let merge = env.git_out(w, &["merge", "-q", "side"]);
    assert_ne!(merge.code, 0, "a conflict");
    let before = state(&env);
    let merging = |name: &str| fs::read(w.join(".git").join(name)).ok();
    let (head, message) = (merging("MERGE_HEAD"), merging("MERGE_MSG"));
    assert!(head.is_some() && message.is_some());
    assert!(before.index.contains(" 2\tfile1.txt"), "{}", before.index);
    agent_runs(&env, "git merge --abort; git reset -q --hard HEAD~1");
    assert_ne!(state(&env), before);
    assert_eq!(merging("MERGE_HEAD"), None);
    let undo = env.vouch(&["undo"]);
    undo.code(0).stderr_has("a merge in progress again");
    assert_eq!(state(&env), before);
    // The merge itself is back: resolved and committed, it has both parents.
    assert_eq!(
        (merging("MERGE_HEAD"), merging("MERGE_MSG")),
        (head, message)
    );
    fs::write(w.join("file1.txt"), "both\n").unwrap();
    env.git(w, &["commit", "-qam", "merged"]);
    let parents = env.git(w, &["rev-list", "--parents", "-n1", "HEAD"]);
    assert_eq!(parents.split_whitespace().count(), 3, "{parents}");
    // A merge an agent began is no longer in progress after its undo.
    fs::write(w.join("file1.txt"), "main again\n").unwrap();
    env.git(w, &["commit", "-qam", "main again"]);
    env.git(w, &["switch", "-q", "-c", "other", "HEAD~1"]);
    fs::write(w.join("file1.txt"), "other\n").unwrap();
    env.git(w, &["commit", "-qam", "other"]);
    env.git(w, &["switch", "-q", "main"]);
    let before = state(&env);
    agent_runs(&env, "git merge -q other");
    assert!(
        merging("MERGE_HEAD").is_some(),
        "the agent's merge stopped on a conflict"
    );
    env.vouch(&["undo"])
        .code(0)
        .stderr_has("is no longer in progress");
    assert_eq!(merging("MERGE_HEAD"), None);
    assert_eq!(state(&env), before);
    env.git(w, &["status", "--porcelain"]);
}

#[test]
fn snapshots_are_pruned_only_by_a_person() {
    let env = TestEnv::new();
    let count = || env.snapshot_refs().len();
    for i in 0..3 {
        fs::write(env.work.join("file1.txt"), format!("change {i}\n")).unwrap();
        env.claude("make");
    }
    assert_eq!(count(), 3);
    // Not by an agent, nor headless, nor with plain git.
    let agent = env.claude("git vouch snapshots prune --keep 0 --days 0");
    assert!(
        agent.stdout.contains("permissionDecision"),
        "{}",
        agent.stdout
    );
    env.vouch(&["snapshots", "prune", "--keep", "0", "--days", "0"])
        .code(1);
    // Not through the repository's refs either: the snapshots are not
    // there, and an agent that reaches for the store is stopped.
    let first = env.snapshot_refs().pop().unwrap();
    assert!(first.starts_with("refs/snapshots/main/"), "{first}");
    assert_eq!(env.git(&env.work, &["for-each-ref", "refs/vouch"]), "");
    let store = env.snapshot_store();
    for reach in [
        format!("git --git-dir={} update-ref -d {first}", store.display()),
        format!("rm -rf {}", store.display()),
    ] {
        let agent = env.claude(&reach);
        assert!(
            agent.stdout.contains("\"deny\"") || agent.stdout.contains("\"ask\""),
            "{reach}: {}",
            agent.stdout
        );
    }
    assert_eq!(count(), 3);
    // A person at a terminal prunes all but the newest.
    env.vouch(&[
        "snapshots",
        "prune",
        "--keep",
        "1",
        "--days",
        "0",
        "--dry-run",
    ])
    .code(0)
    .stderr_has("would delete");
    if !crate::support::tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    crate::support::tmux::vouch_yes(&env, &["snapshots", "prune", "--keep", "1", "--days", "0"]);
    assert_eq!(count(), 1);
}

/// What the previous command lost is told at the next one (issue 28 item
/// 3), to the person (Claude Code's `systemMessage`) and on stderr, with
/// the command that brings it back.
#[test]
fn the_next_command_says_what_the_last_one_lost() {
    let env = TestEnv::new();
    busy(&env);
    agent_runs(
        &env,
        "rm -f file1.txt notes.md && git stash clear && git branch -D feature",
    );
    let next = env.claude("make");
    let message: serde_json::Value = serde_json::from_str(next.stdout.trim()).unwrap();
    let said = message["systemMessage"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(said.contains("2 file(s) with uncommitted work"), "{said}");
    assert!(
        said.contains("file1.txt") && said.contains("notes.md"),
        "{said}"
    );
    assert!(said.contains("`refs/heads/feature` deleted"), "{said}");
    assert!(said.contains("1 stash entry dropped"), "{said}");
    assert!(next.stderr.contains(&said), "{}", next.stderr);
    // The name it gives brings the work back.
    let name = said
        .split("`git vouch undo ")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .unwrap()
        .to_owned();
    env.vouch(&["undo", &name]).code(0);
    assert!(env.work.join("notes.md").exists());
    // A command that lost nothing says nothing, and neither does the one
    // after a command that only added to a file.
    let quiet = env.claude("make check");
    assert!(!quiet.stdout.contains("systemMessage"), "{}", quiet.stdout);
    agent_runs(&env, "echo more >> notes.md");
    let quiet = env.claude("make check");
    assert!(!quiet.stdout.contains("systemMessage"), "{}", quiet.stdout);
}

/// The audit line of a snapshot (issue 28): its name, the command, the
/// large file named but not copied, and what the previous command lost.
#[test]
fn a_snapshot_leaves_an_audit_line_naming_what_it_holds_and_what_was_lost() {
    let env = TestEnv::new();
    busy(&env);
    // A sparse file past the cap: named, never read.
    let big = fs::File::create(env.work.join("dump.bin")).unwrap();
    big.set_len(60 * 1024 * 1024).unwrap();
    agent_runs(
        &env,
        "rm -f notes.md && git stash clear && git branch -D feature",
    );
    let first = env
        .audit()
        .into_iter()
        .find(|r| r["operation_type"] == "snapshot")
        .expect("a snapshot line");
    assert_eq!(first["hook"], "claude");
    assert_eq!(first["decision"], "allowed");
    assert_eq!(first["session_id"], "s-1");
    assert_eq!(first["schema_version"], 3);
    let name = first["snapshot"]["name"].as_str().unwrap().to_owned();
    assert!(
        first["snapshot"]["command"]
            .as_str()
            .unwrap()
            .starts_with("rm -f notes.md")
    );
    assert_eq!(
        first["snapshot"]["not_copied"],
        serde_json::json!(["dump.bin"])
    );
    assert!(first.get("lost").is_none(), "{first}");
    env.claude("make");
    let second = env.audit().pop().unwrap();
    assert_eq!(second["operation_type"], "snapshot");
    let lost = &second["lost"];
    assert_eq!(lost["snapshot"], name.as_str());
    assert_eq!(lost["files"], serde_json::json!(["notes.md"]));
    assert_eq!(lost["refs"][0]["name"], "refs/heads/feature");
    assert_eq!(lost["refs"][0]["new_oid"], "");
    assert_eq!(lost["refs"][0]["rewound"], true);
    assert_eq!(lost["stash"].as_array().unwrap().len(), 1);
    // Not decisions: `git vouch stats` counts none of them.
    let stats = env.vouch(&["stats", "--json"]);
    let v: serde_json::Value = serde_json::from_str(stats.stdout.trim()).unwrap();
    let decisions = env
        .audit()
        .iter()
        .filter(|r| crate::support::is_decision(r))
        .count();
    assert_eq!(v["decisions"], decisions, "{v}");
    assert!(env.audit().len() > decisions);
}

/// Where the agent has a post-tool hook (Claude Code's `PostToolUse`),
/// what the command lost is said right after it, once: to the person
/// (`systemMessage`), to the model (`additionalContext`) and in an audit
/// line; the next command does not say it again.
#[test]
fn the_post_tool_hook_says_at_once_what_the_command_lost() {
    let env = TestEnv::new();
    busy(&env);
    let command = "rm -f file1.txt && git reset -q --hard HEAD~1 && git stash drop -q";
    agent_runs(&env, command);
    let after = env.claude_after(command);
    assert_eq!(after.code, 0, "{}", after.stderr);
    let v: serde_json::Value = serde_json::from_str(after.stdout.trim()).unwrap();
    let said = v["systemMessage"].as_str().unwrap().to_owned();
    assert_eq!(v["hookSpecificOutput"]["additionalContext"], said.as_str());
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    assert!(said.contains("uncommitted work"), "{said}");
    assert!(
        said.contains("file1.txt") && said.contains("file2.txt"),
        "{said}"
    );
    assert!(said.contains("`refs/heads/main` moved off"), "{said}");
    assert!(said.contains("1 stash entry dropped"), "{said}");
    assert!(after.stderr.contains(&said));
    let line = env.audit().pop().unwrap();
    assert_eq!(line["operation_type"], "after-command");
    assert_eq!(line["lost"]["command"], command);
    let name = line["lost"]["snapshot"].as_str().unwrap().to_owned();
    assert!(said.contains(&format!("`git vouch undo {name}`")), "{said}");
    // Said once: the next command does not repeat it.
    let next = env.claude("make");
    assert!(!next.stdout.contains("systemMessage"), "{}", next.stdout);
    // A command that lost nothing says nothing after it either: a new
    // file, or more written to a file that held uncommitted work.
    for adds in ["echo new > new.txt", "echo more >> notes.md"] {
        agent_runs(&env, adds);
        let quiet = env.claude_after(adds);
        assert_eq!(quiet.stdout, "", "{adds}: {}", quiet.stdout);
    }
    // And the undo it names brings it back.
    env.vouch(&["undo", &name]).code(0);
    assert_eq!(
        fs::read_to_string(env.work.join("file1.txt")).unwrap(),
        "modified, not staged\n"
    );
}

/// Gemini CLI's `AfterTool` hook, as Gemini CLI sends it (its shell tool's
/// response included): the loss is said in its own JSON, to the person
/// and to the model; and `agent install gemini` puts the hook in.
#[test]
fn gemini_clis_after_tool_hook_says_what_the_command_lost() {
    let env = TestEnv::new();
    busy(&env);
    let command = "rm -f file1.txt";
    let before = serde_json::json!({"session_id": "g-1", "cwd": env.work,
        "hook_event_name": "BeforeTool", "timestamp": "2026-11-26T18:00:00.000Z",
        "tool_name": "run_shell_command", "tool_input": {"command": command}});
    env.vouch_stdin(&["agent-hook", "gemini"], before.to_string().as_bytes())
        .code(0);
    fs::remove_file(env.work.join("file1.txt")).unwrap();
    let after = serde_json::json!({"session_id": "g-1", "cwd": env.work,
        "hook_event_name": "AfterTool", "timestamp": "2026-11-26T18:00:01.000Z",
        "tool_name": "run_shell_command", "tool_input": {"command": command},
        "tool_response": {"llmContent": "Command: rm -f file1.txt\nExit Code: 0",
            "returnDisplay": ""}});
    let out = env.vouch_stdin(&["agent-hook", "gemini"], after.to_string().as_bytes());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let said = v["systemMessage"].as_str().unwrap();
    assert!(
        said.contains("file1.txt") && said.contains("git vouch undo"),
        "{said}"
    );
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "AfterTool");
    assert_eq!(v["hookSpecificOutput"]["additionalContext"], said);
    env.vouch(&["agent", "install", "gemini"]).code(0);
    let settings: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(env.work.join(".gemini/settings.json")).unwrap())
            .unwrap();
    let hook = &settings["hooks"]["AfterTool"][0];
    assert_eq!(hook["matcher"], "run_shell_command");
    assert!(
        hook["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("agent-hook gemini"),
        "{settings}"
    );
}

/// Claude Code's settings carry the post-tool hook next to the pre-tool
/// one.
#[test]
fn installing_for_claude_code_adds_the_post_tool_hook() {
    let env = TestEnv::new();
    env.vouch(&["agent", "install", "claude"]).code(0);
    let settings: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(env.work.join(".claude/settings.json")).unwrap())
            .unwrap();
    let after = &settings["hooks"]["PostToolUse"][0];
    assert_eq!(after["matcher"], "Bash");
    assert!(
        after["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("agent-hook claude"),
        "{settings}"
    );
}

/// Retention (issues 28 and 36): the newest `[snapshots] keep` and those
/// younger than `[snapshots] days` stay; it runs in the store when a
/// snapshot is written, and never inside a person's `git commit`.
#[test]
fn retention_runs_in_the_store_never_in_a_commit() {
    let env = TestEnv::new();
    env.write_config("[snapshots]\nkeep = 2\n");
    env.install();
    let count = || env.snapshot_refs().len();
    for i in 0..4 {
        fs::write(env.work.join("notes.md"), format!("change {i}\n")).unwrap();
        env.claude("make");
    }
    assert_eq!(count(), 4, "younger than 14 days: none went");
    env.write_config("[snapshots]\nkeep = 2\ndays = 0\n");
    // A person's commit lets go of none.
    let out = env.git_out(&env.work, &["commit", "-q", "--allow-empty", "-m", "mine"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(count(), 4, "{}", out.stderr);
    assert!(!out.stderr.contains("let go of"), "{}", out.stderr);
    // The next snapshot does, in the store: past both limits only.
    fs::write(env.work.join("notes.md"), "change 4\n").unwrap();
    env.claude("make");
    assert_eq!(count(), 2);
    // The newest are the ones kept: the last change can still be undone.
    fs::write(env.work.join("notes.md"), "change 5\n").unwrap();
    env.vouch(&["undo"]).code(0);
    assert_eq!(
        fs::read_to_string(env.work.join("notes.md")).unwrap(),
        "change 4\n"
    );
}

/// Runs `command` as an agent would, in `dir`: Claude Code's hook first
/// (the snapshot), then a shell.
fn agent_runs_in(env: &TestEnv, dir: &Path, command: &str) -> Out {
    env.claude_in(dir, command);
    Out::from_output(env.cmd("sh", dir).args(["-c", command]).output().unwrap())
}

/// Snapshots never leave the machine (issue 36 item 1): after an agent's
/// command snapshotted an ignored `.env`, a mirror push, a push of
/// `refs/*:refs/*`, a bundle of `--all` and a mirror clone of the
/// directory carry no snapshot ref and not the secret's object; `git log
/// --all` shows no snapshot, and the repository's own object files never
/// held it.
#[test]
fn snapshots_never_leave_the_machine() {
    let env = TestEnv::new();
    busy(&env);
    fs::write(env.work.join(".env"), "SECRET=do-not-upload-4711\n").unwrap();
    let secret = env
        .git(&env.work, &["hash-object", ".env"])
        .trim()
        .to_owned();
    agent_runs(&env, "rm -f .env");
    assert!(!env.snapshot_refs().is_empty(), "a snapshot was taken");
    env.store_git(&["cat-file", "-e", &secret]);
    let lacks = |git_dir: &Path| {
        let refs = env.git(git_dir, &["for-each-ref", "--format=%(refname)"]);
        assert!(!refs.contains("snapshots"), "{refs}");
        let has = env
            .cmd("git", git_dir)
            .args(["cat-file", "-e", &secret])
            .output()
            .unwrap();
        assert!(
            !has.status.success(),
            "{} holds the secret",
            git_dir.display()
        );
    };
    lacks(&env.work);
    let all = env.git(&env.work, &["log", "--all", "--format=%s"]);
    assert!(!all.contains("vouch snapshot"), "{all}");
    for (name, push) in [
        ("mirror.git", vec!["push", "-q", "--mirror"]),
        ("all-refs.git", vec!["push", "-q", "--force"]),
    ] {
        let bare = env.base().join(name);
        env.git(&env.base(), &["init", "-q", "--bare", name]);
        let mut args = push.clone();
        args.push(bare.to_str().unwrap());
        if name == "all-refs.git" {
            args.push("refs/*:refs/*");
        }
        let out = env.git_out(&env.work, &args);
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        lacks(&bare);
    }
    let bundle = env.base().join("all.bundle");
    env.git(
        &env.work,
        &["bundle", "create", "-q", bundle.to_str().unwrap(), "--all"],
    );
    let heads = env.git(
        &env.work,
        &["bundle", "list-heads", bundle.to_str().unwrap()],
    );
    assert!(!heads.contains("snapshots"), "{heads}");
    env.git(
        &env.base(),
        &[
            "clone",
            "-q",
            "--bare",
            bundle.to_str().unwrap(),
            "from-bundle.git",
        ],
    );
    lacks(&env.base().join("from-bundle.git"));
    env.git(
        &env.base(),
        &[
            "clone",
            "-q",
            "--mirror",
            env.work.to_str().unwrap(),
            "cloned.git",
        ],
    );
    lacks(&env.base().join("cloned.git"));
}

/// Undo after `.git` is gone (issue 36 item 2): the repository is made
/// again from the store, byte for byte: files, index, branches, tags,
/// `HEAD`, the stash, and the config with its remote.
#[test]
fn undo_makes_git_again_after_it_was_deleted_or_replaced() {
    let have = |p: &str| {
        std::process::Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    for command in [
        "rm -rf .git",
        "mkdir -p ../empty && rsync -a --delete ../empty/ .git/",
        "tar --remove-files -cf ../g.tar .git",
    ] {
        if command.contains("rsync") && !have("rsync") {
            crate::support::missing("rsync");
            continue;
        }
        let env = TestEnv::new();
        busy(&env);
        let before = state(&env);
        let remote = env.git(&env.work, &["remote", "get-url", "origin"]);
        let out = agent_runs(&env, command);
        assert_eq!(out.code, 0, "{command}: {}", out.stderr);
        assert!(
            env.cmd("git", &env.work)
                .args(["rev-parse", "--git-dir"])
                .output()
                .is_ok_and(|o| !o.status.success()),
            "{command} left a repository"
        );
        env.vouch(&["undo"]).code(0).stderr_has(".git made again");
        assert_eq!(state(&env), before, "{command}");
        assert_eq!(
            env.git(&env.work, &["remote", "get-url", "origin"]),
            remote,
            "{command}"
        );
        env.git(&env.work, &["fsck", "--no-progress", "--connectivity-only"]);
    }
}

/// One work tree at a time (issue 36 item 3): each work tree's undo puts
/// back its own files, index and `HEAD`, never another's; and a work tree
/// an agent removed with its work comes back by name.
#[test]
fn each_work_tree_undoes_its_own_commands() {
    let env = TestEnv::new();
    busy(&env);
    let linked = env.worktree("side");
    fs::write(
        linked.join("side.txt"),
        "the linked tree's untracked work\n",
    )
    .unwrap();
    fs::write(linked.join("file1.txt"), "the linked tree's edit\n").unwrap();
    let main_before = state(&env);
    let side_files = |dir: &Path| {
        let mut files = BTreeMap::new();
        walk(dir, "", &mut files);
        files.remove(".git");
        files
    };
    let side_before = side_files(&linked);
    let side_head = env.git(&linked, &["symbolic-ref", "HEAD"]);
    // Each loses work in its own tree.
    agent_runs_in(&env, &linked, "rm -f side.txt file1.txt");
    agent_runs(&env, "rm -rf src notes.md");
    // The linked tree's undo puts back its own, and leaves main's loss.
    env.vouch_in(&linked, &["undo"]).code(0);
    assert_eq!(side_files(&linked), side_before);
    assert_eq!(env.git(&linked, &["symbolic-ref", "HEAD"]), side_head);
    assert!(
        !env.work.join("notes.md").exists(),
        "main's loss is main's to undo"
    );
    assert!(!linked.join(".env").exists(), "main's secrets stay in main");
    // Main's undo puts back main's.
    env.vouch(&["undo"]).code(0);
    assert_eq!(state(&env), main_before);
    // An agent removes the linked tree with its work: it was snapshotted
    // first, and comes back by name.
    fs::write(linked.join("later.txt"), "written after the undo\n").unwrap();
    let side_before = side_files(&linked);
    let out = agent_runs(
        &env,
        &format!("git worktree remove --force {}", linked.display()),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!linked.exists());
    let listed = env.vouch(&["snapshots", "--all"]);
    listed.code(0).stdout_has("side/");
    env.vouch(&["undo", "--worktree", "side", "1"]).code(0);
    assert_eq!(side_files(&linked), side_before);
}

/// Ignored files a person wrote are kept by name (issue 36 item 4); an
/// ignored directory is named, not walked and not copied.
#[test]
fn ignored_files_a_person_wrote_come_back_and_build_output_is_named() {
    let env = TestEnv::new();
    let w = &env.work;
    fs::write(
        w.join(".gitignore"),
        "*.env\n.npmrc\nid_rsa\nconfig/local.yml\nnotes/\nnode_modules/\n",
    )
    .unwrap();
    env.git(w, &["add", ".gitignore"]);
    env.git(w, &["commit", "-qm", "ignore"]);
    let written = [
        ("secrets.env", "TOKEN=abc\n"),
        ("prod.env", "DB=prod\n"),
        (".npmrc", "//registry/:_authToken=x\n"),
        ("id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n"),
        ("config/local.yml", "debug: true\n"),
        ("notes/todo.md", "call back\n"),
    ];
    for (path, body) in written {
        let file = w.join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, body).unwrap();
    }
    // A dependency folder of 20,000 files (the shape of an npm install).
    for d in 0..200 {
        let dir = w.join(format!("node_modules/pkg{d}"));
        fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            fs::write(dir.join(format!("f{f}.js")), "module.exports = 1;\n").unwrap();
        }
    }
    agent_runs(&env, "git clean -fdqx");
    assert!(!w.join("secrets.env").exists() && !w.join("node_modules").exists());
    let undone = env.vouch(&["undo"]);
    undone.code(0).stderr_has("node_modules/");
    for (path, body) in written {
        // `notes/` is an ignored directory: named, not kept.
        if path.starts_with("notes/") {
            continue;
        }
        assert_eq!(fs::read_to_string(w.join(path)).unwrap(), body, "{path}");
    }
    assert!(
        !w.join("node_modules").exists(),
        "build output is not copied"
    );
    let store_objects = env.store_git(&["count-objects", "-v"]);
    assert!(store_objects.contains("count:"), "{store_objects}");
}

/// A rewrite that keeps size and modification time (`tar x`, `rsync -t`)
/// is seen (issue 36 item 6): the change time and inode tell it.
#[test]
fn a_rewrite_that_keeps_size_and_time_is_seen() {
    let env = TestEnv::new();
    busy(&env);
    let before = state(&env);
    agent_runs(
        &env,
        "touch -r file1.txt ../stamp && printf 'MODIFIED, NOT STAGED\\n' > file1.txt && touch -r ../stamp file1.txt",
    );
    assert_ne!(state(&env), before);
    env.vouch(&["undo"]).code(0);
    assert_eq!(state(&env), before);
}

/// Snapshots an earlier vouch kept in the repository's refs move into the
/// store on upgrade, and leave the repository's refs.
#[test]
fn snapshots_in_the_repositorys_refs_move_into_the_store() {
    let env = TestEnv::new();
    let w = &env.work;
    // A snapshot as the earlier vouch wrote it: the same commit, under
    // the repository's refs/vouch/snapshots/.
    fs::write(w.join("file1.txt"), "old work\n").unwrap();
    env.claude("make old");
    let name = env.snapshot_refs().remove(0);
    let stamp = name.rsplit('/').next().unwrap().to_owned();
    let store = env.snapshot_store();
    env.git(
        w,
        &[
            "fetch",
            "-q",
            store.to_str().unwrap(),
            &format!("{name}:refs/vouch/snapshots/{stamp}"),
        ],
    );
    fs::remove_dir_all(env.state().join("snapshots")).unwrap();
    let listed = env.vouch(&["snapshots"]);
    listed.code(0).stdout_has("make old");
    assert_eq!(env.git(w, &["for-each-ref", "refs/vouch/snapshots"]), "");
    assert!(
        env.snapshot_refs()
            .contains(&format!("refs/snapshots/main/{stamp}")),
        "{:?}",
        env.snapshot_refs()
    );
    // And it still undoes.
    fs::write(w.join("file1.txt"), "later\n").unwrap();
    env.vouch(&["undo", &stamp]).code(0);
    assert_eq!(
        fs::read_to_string(w.join("file1.txt")).unwrap(),
        "old work\n"
    );
}

/// A bisect an agent reset comes back (issue 36 item 6): its files in the
/// git directory and its marks (`refs/bisect/`).
#[test]
fn a_bisect_an_agent_reset_comes_back() {
    let env = TestEnv::new();
    busy(&env);
    let w = &env.work;
    env.git(w, &["stash", "-q", "-u"]);
    env.git(w, &["bisect", "start"]);
    env.git(w, &["bisect", "bad"]);
    let good = env.rev(w, "HEAD~2");
    env.git_out(w, &["bisect", "good", &good]);
    let log = env.git(w, &["bisect", "log"]);
    let marks = env.git(w, &["for-each-ref", "refs/bisect"]);
    let out = agent_runs(&env, "git bisect reset");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(env.git(w, &["for-each-ref", "refs/bisect"]), "");
    env.vouch(&["undo"])
        .code(0)
        .stderr_has("a bisect in progress again");
    assert_eq!(env.git(w, &["bisect", "log"]), log);
    assert_eq!(env.git(w, &["for-each-ref", "refs/bisect"]), marks);
}

/// An agent's `git filter-branch`, undone: the branch as it was, and the
/// backup it left under `refs/original/` gone (issue 36 item 6).
#[test]
fn a_filter_branch_undone_leaves_no_backup_refs() {
    let env = TestEnv::new();
    busy(&env);
    let w = &env.work;
    env.git(w, &["stash", "-q", "-u"]);
    let before = state(&env);
    let out = agent_runs(
        &env,
        "FILTER_BRANCH_SQUELCH_WARNING=1 git filter-branch -f --msg-filter 'cat; echo rewritten' HEAD",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_ne!(env.git(w, &["for-each-ref", "refs/original"]), "");
    env.vouch(&["undo"]).code(0);
    assert_eq!(state(&env), before);
    assert_eq!(env.git(w, &["for-each-ref", "refs/original"]), "");
}

/// A snapshot that cannot finish in the hook's time is given up, said to
/// the person, and the command judged as if there were none (issue 36
/// item 7): here `git status` waits on a file-system monitor that takes
/// longer than the hook has.
#[test]
fn a_snapshot_that_cannot_finish_in_time_is_given_up_and_said() {
    let env = TestEnv::new();
    env.write_config("[agent]\nbudget_secs = 1\n");
    let slow = env.script("slow-fsmonitor", "sleep 20");
    env.git(
        &env.work,
        &["config", "core.fsmonitor", slow.to_str().unwrap()],
    );
    fs::write(env.work.join("notes.md"), "work\n").unwrap();
    let out = env.claude("make");
    out.code(0).stderr_has("did not finish within");
    assert!(
        out.stdout.contains("no snapshot before this command"),
        "the person is told: {}",
        out.stdout
    );
    assert!(!out.stdout.contains("\"deny\""), "{}", out.stdout);
    assert!(env.snapshot_refs().is_empty());
}

/// A repository moved to another folder finds its snapshots again (issue
/// 36 item 1): the store follows it by its root commits once its old path
/// is gone.
#[test]
fn a_moved_repository_keeps_its_snapshots() {
    let env = TestEnv::new();
    busy(&env);
    let before = state(&env);
    agent_runs(&env, "rm -rf src notes.md");
    let moved = env.base().join("moved");
    fs::rename(&env.work, &moved).unwrap();
    let listed = env.vouch_in(&moved, &["snapshots"]);
    listed.code(0).stdout_has("rm -rf src notes.md");
    env.vouch_in(&moved, &["undo"]).code(0);
    fs::rename(&moved, &env.work).unwrap();
    assert_eq!(state(&env), before);
}

/// What `git status` does not show comes back too (issue 36 item 6):
/// edits in skip-worktree and assume-unchanged files, each with its flag,
/// and a file added with intent (`git add -N`), after an agent cleared
/// the flags and reset the work tree.
#[test]
fn flagged_files_and_intents_come_back_with_their_flags() {
    let env = TestEnv::new();
    let w = &env.work;
    env.commit(w, "hidden.txt", "committed");
    env.commit(w, "trusted.txt", "committed");
    env.git(w, &["update-index", "--skip-worktree", "hidden.txt"]);
    env.git(w, &["update-index", "--assume-unchanged", "trusted.txt"]);
    fs::write(w.join("hidden.txt"), "a local edit git does not look at\n").unwrap();
    fs::write(w.join("trusted.txt"), "an edit git is told to trust\n").unwrap();
    fs::write(w.join("planned.txt"), "added with intent\n").unwrap();
    env.git(w, &["add", "-N", "planned.txt"]);
    assert_eq!(
        env.git(w, &["status", "--porcelain"]),
        " A planned.txt\n",
        "git status shows neither edit"
    );
    let flags = env.git(w, &["ls-files", "-v"]);
    let status = env.git(w, &["status", "--porcelain=v2"]);
    let files =
        || ["hidden.txt", "trusted.txt", "planned.txt"].map(|f| fs::read_to_string(w.join(f)).ok());
    let before = files();
    let out = agent_runs(
        &env,
        "git update-index --no-skip-worktree hidden.txt && git update-index --no-assume-unchanged trusted.txt && git reset -q --hard",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_ne!(files(), before, "the command lost the edits");
    env.vouch(&["undo"]).code(0);
    assert_eq!(files(), before);
    assert_eq!(env.git(w, &["ls-files", "-v"]), flags);
    assert_eq!(env.git(w, &["status", "--porcelain=v2"]), status);
}

/// `git sparse-checkout disable` undone: the setting, the flags and the
/// work tree of the sparse checkout as they were (issue 36 item 6).
#[test]
fn a_sparse_checkout_an_agent_disabled_comes_back() {
    let env = TestEnv::new();
    let w = &env.work;
    env.commit(w, "app/main.rs", "fn main() {}");
    env.commit(w, "docs/guide.md", "a guide");
    env.git(w, &["sparse-checkout", "set", "--cone", "app"]);
    assert!(!w.join("docs").exists());
    fs::write(w.join("app/main.rs"), "fn main() { work(); }\n").unwrap();
    let setting = |env: &TestEnv| {
        (
            env.git(w, &["sparse-checkout", "list"]),
            env.git_out(w, &["config", "--worktree", "core.sparseCheckout"])
                .stdout,
            env.git(w, &["ls-files", "-t"]),
        )
    };
    let before = (setting(&env), state(&env));
    let out = agent_runs(&env, "git sparse-checkout disable");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(w.join("docs/guide.md").exists(), "disabled: {}", out.stderr);
    env.vouch(&["undo"])
        .code(0)
        .stderr_has("sparse-checkout setting put back");
    assert_eq!((setting(&env), state(&env)), before);
}

/// `.git` is made again only where it was a folder of the work tree
/// (issue 36 item 2): a linked work tree whose `.git` file is gone, and a
/// repository whose git directory lived elsewhere, are each told why and
/// where their snapshots are, and nothing in them is touched.
#[test]
fn undo_does_not_make_git_again_where_it_lived_elsewhere() {
    let env = TestEnv::new();
    let linked = env.worktree("side");
    fs::write(linked.join("side.txt"), "linked work\n").unwrap();
    agent_runs_in(&env, &linked, "rm -f side.txt");
    fs::remove_file(linked.join(".git")).unwrap();
    let separate = env.root.path().join("separate");
    let git_dir = env.root.path().join("separate.git");
    env.git(
        env.root.path(),
        &[
            "init",
            "-q",
            "--separate-git-dir",
            git_dir.to_str().unwrap(),
            separate.to_str().unwrap(),
        ],
    );
    env.commit(&separate, "a.txt", "one");
    fs::write(separate.join("notes.md"), "notes\n").unwrap();
    agent_runs_in(&env, &separate, "rm -f notes.md");
    fs::remove_file(separate.join(".git")).unwrap();
    for dir in [&linked, &separate] {
        let mut before = BTreeMap::new();
        walk(dir, "", &mut before);
        env.vouch_in(dir, &["undo"])
            .code(2)
            .stderr_has("kept its git directory elsewhere than `.git`")
            .stderr_has("its snapshots are in");
        let mut after = BTreeMap::new();
        walk(dir, "", &mut after);
        assert_eq!(after, before, "{} is left as it was", dir.display());
        assert!(!dir.join(".git").exists());
    }
}

/// The post-tool check looks up only the files changed since the
/// snapshot (issue 36 item 5), each by its name as it is: files whose
/// names read as pathspecs (`[a].txt`, `:/notes.md`) are found, and their
/// loss said.
#[test]
fn the_post_tool_check_finds_files_whose_names_read_as_patterns() {
    let env = TestEnv::new();
    let w = &env.work;
    fs::create_dir_all(w.join(":")).unwrap();
    for name in ["a.txt", "[a].txt", "notes.md", ":/notes.md"] {
        fs::write(w.join(name), "committed\n").unwrap();
    }
    env.git(w, &["add", "-A"]);
    env.git(w, &["commit", "-qm", "names"]);
    fs::write(w.join("[a].txt"), "uncommitted work\n").unwrap();
    fs::write(w.join(":/notes.md"), "uncommitted too\n").unwrap();
    let command = "git checkout -- .";
    agent_runs(&env, command);
    let after = env.claude_after(command);
    assert_eq!(after.code, 0, "{}", after.stderr);
    let line = env.audit().pop().unwrap();
    assert_eq!(line["operation_type"], "after-command");
    assert_eq!(
        line["lost"]["files"],
        serde_json::json!([":/notes.md", "[a].txt"]),
        "{}",
        after.stdout
    );
}

/// A ref a person rewrote in place (same size, no other change) is seen
/// by the next snapshot (issue 36 items 5 and 6): the fingerprint reads
/// the refs' files by their stat, and undo puts back the person's value.
#[test]
fn a_ref_rewritten_in_place_is_seen() {
    let env = TestEnv::new();
    busy(&env);
    let w = &env.work;
    agent_runs(&env, "sh -c true");
    assert_eq!(env.snapshot_refs().len(), 1, "a snapshot of the state now");
    let older = env.rev(w, "HEAD~1");
    let loose = w.join(".git/refs/heads/feature");
    assert!(loose.is_file(), "the branch is a loose ref");
    fs::write(&loose, format!("{older}\n")).unwrap();
    let out = agent_runs(&env, "git branch -q -D feature");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(env.snapshot_refs().len(), 2, "the person's change is seen");
    env.vouch(&["undo"]).code(0);
    assert_eq!(env.rev(w, "refs/heads/feature"), older);
}

/// A file added with intent and then deleted (the index unchanged, so a
/// snapshot reuses its entries) does not stop an undo half way: the refs
/// come back too (issue 36 item 6).
#[test]
fn an_intent_whose_file_is_gone_does_not_stop_an_undo() {
    let env = TestEnv::new();
    busy(&env);
    let w = &env.work;
    fs::write(w.join("planned.txt"), "added with intent\n").unwrap();
    env.git(w, &["add", "-N", "planned.txt"]);
    agent_runs(&env, "sh -c true");
    fs::remove_file(w.join("planned.txt")).unwrap();
    let feature = env.rev(w, "refs/heads/feature");
    let out = agent_runs(&env, "git branch -q -D feature");
    assert_eq!(out.code, 0, "{}", out.stderr);
    env.vouch(&["undo"]).code(0);
    assert_eq!(env.rev(w, "refs/heads/feature"), feature);
}

/// A snapshot of a state whose index and refs the snapshot before it had
/// too is staged into the store alone (issue 36 item 5): what changed
/// since is written into the store, even content the repository holds
/// already (here a blob nothing reaches, which no copy would take), so
/// that it comes back once `.git` is gone.
#[test]
fn a_snapshot_after_another_keeps_its_own_copy_of_what_changed() {
    let env = TestEnv::new();
    busy(&env);
    let w = &env.work;
    let content = "only in the repository, reached by nothing\n";
    let blob = std::process::Command::new("git")
        .current_dir(w)
        .args(["hash-object", "-w", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write as _;
            c.stdin.take().unwrap().write_all(content.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(blob.status.success());
    agent_runs(&env, "echo one > one.txt");
    // The same index and refs: the next snapshot starts from this one's.
    fs::write(w.join("kept.txt"), content).unwrap();
    fs::write(w.join("file1.txt"), "changed again\n").unwrap();
    agent_runs(&env, "echo two > two.txt");
    fs::remove_file(w.join("two.txt")).unwrap();
    let before = state(&env);
    fs::remove_dir_all(w.join(".git")).unwrap();
    env.vouch(&["undo"]).code(0).stderr_has(".git made again");
    assert_eq!(state(&env), before);
    env.git(w, &["fsck", "--no-progress", "--connectivity-only"]);
}
