//! Contracts other programs read, as snapshots (`tests/it/snapshots/`):
//! every agent's reply, the generated hook scripts, the verifier context,
//! an audit line and the refusal a person reads. A change to any of them
//! shows up as a diff to review (`INSTA_UPDATE=always cargo test` rewrites
//! them after a deliberate change).

use std::path::Path;

use vouch::classify::facts::{CommandFacts, Discarded, WorktreeLoss};
use vouch::classify::operation::{Assessed, Operation, StepFacts};
use vouch::classify::{Assessment, RefRisk, Rule, Tier};
use vouch::decide::{Action, AuditResult};
use vouch::install::agent::Agent;
use vouch::install::agent::protocol::{Answer, answer, reply};

use crate::support::{TestEnv, verdict_body};

fn command_op() -> Operation {
    Operation::Command {
        assessed: Assessed {
            command: "git reset --hard".into(),
            cwd: "/work/repo".into(),
            assessment: Assessment {
                tier: Tier::Critical,
                refs: vec![RefRisk {
                    tier: Tier::Critical,
                    rule: Rule::Command,
                    reason: "discards uncommitted changes in the work tree and index: `git reset --hard`".into(),
                }],
                push: Vec::new(),
            },
            facts: vec![StepFacts {
                step: "git reset --hard".into(),
                measured: Some(CommandFacts::Worktree {
                    loss: WorktreeLoss {
                        what: Discarded::TrackedChanges,
                        files: 1,
                        sample: vec!["notes.txt".into()],
                    },
                    moves: None,
                }),
                note: Some("would discard 1 file(s) with uncommitted changes: notes.txt".into()),
            }],
            root: Some("/work/repo".into()),
            branch: Some("main".into()),
            runs: vouch::classify::Runs::default(),
        },
        door: "claude".into(),
        session: Some("session-1".into()),
    }
}

#[test]
fn every_agent_reply() {
    let headline = "vouch: `git reset --hard` is critical risk: discards uncommitted changes";
    let concerns = vec!["uncommitted edits to notes.txt would be lost".to_owned()];
    let answers = [
        ("no-opinion", Answer::NoOpinion),
        (
            "ask",
            answer(
                &Action::Ask,
                AuditResult::Warn,
                headline,
                &concerns,
                None,
                false,
            ),
        ),
        (
            "deny",
            answer(
                &Action::Refuse {
                    why: "unsafe".into(),
                    review: true,
                },
                AuditResult::Block,
                headline,
                &concerns,
                None,
                false,
            ),
        ),
    ];
    let mut all = String::new();
    for agent in Agent::ALL {
        for (name, a) in &answers {
            let r = reply(agent, a);
            all.push_str(&format!(
                "== {} / {name}: exit {}\nstdout: {}\nstderr: {}\n",
                agent.name(),
                r.code,
                r.stdout.trim_end(),
                r.stderr.trim_end()
            ));
        }
    }
    insta::assert_snapshot!(all);
}

#[test]
fn generated_hook_scripts() {
    for hook in ["pre-push", "pre-commit"] {
        let script =
            vouch::install::render(hook, Path::new("/opt/vouch/bin/vouch"), false).unwrap();
        insta::assert_snapshot!(
            format!("hook-{hook}"),
            String::from_utf8(script).expect("an ASCII path")
        );
    }
}

#[test]
fn the_verifier_context() {
    let op = command_op();
    let mut view = op.view(Path::new("/work/repo"));
    view.id = "0123456789ab".into();
    let context =
        vouch::verify::programs::context(&op, &view, vouch::interact::report::describe(&op));
    insta::assert_json_snapshot!(context, {".vouch_version" => "[version]"});
}

/// A force push refused by a verifier: the audit line and the text a person
/// reads, with temporary paths, object ids and times filtered.
#[test]
fn a_refused_force_push_as_logged_and_as_read() {
    let env = TestEnv::new();
    env.write_config(&env.verifier("careful", &verdict_body("fail"), ""));
    env.install();
    env.rewind(1);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1);
    let base = env.base().display().to_string();
    let filters = vec![
        (base.as_str(), "[tmp]"),
        (r"\b[0-9a-f]{40}\b", "[oid]"),
        (r"\b[0-9a-f]{10}\b", "[short]"),
        (r"\b[0-9a-f]{12}\b", "[id]"),
    ];
    insta::with_settings!({filters => filters}, {
        insta::assert_snapshot!("refusal-text", out.stderr);
        insta::assert_json_snapshot!("audit-line", env.last_audit(), {
            ".timestamp" => "[time]",
            ".latency_ms" => "[ms]",
            ".verifiers[].duration_ms" => "[ms]",
        });
    });
}

/// The audit lines of undo (issue 28): a snapshot's, naming what the
/// previous command lost, and a post-tool check's.
#[test]
fn a_snapshot_line_and_a_post_tool_line() {
    let env = TestEnv::new();
    let w = &env.work;
    std::fs::write(w.join("file1.txt"), "uncommitted\n").unwrap();
    std::fs::write(w.join("notes.md"), "untracked\n").unwrap();
    env.git(w, &["branch", "old", "HEAD~1"]);
    let command = "rm -f file1.txt notes.md && git branch -D old";
    env.claude(command);
    env.cmd("sh", w).args(["-c", command]).output().unwrap();
    env.claude_after(command);
    let after = env.audit().pop().unwrap();
    env.git(w, &["branch", "old2", "HEAD~1"]);
    std::fs::write(w.join("file2.txt"), "uncommitted\n").unwrap();
    env.claude("make");
    env.cmd("sh", w)
        .args(["-c", "rm file2.txt; git branch -D old2"])
        .output()
        .unwrap();
    env.claude("make check");
    let snapshot = env.audit().pop().unwrap();
    let base = env.base().display().to_string();
    let filters = vec![
        (base.as_str(), "[tmp]"),
        (r"\b[0-9a-f]{40}\b", "[oid]"),
        (r"\b[0-9a-f]{12}\b", "[id]"),
        (r"\b\d{8}T\d{6}\.\d{6}Z\b", "[snapshot]"),
    ];
    insta::with_settings!({filters => filters}, {
        insta::assert_json_snapshot!("snapshot-line", snapshot, {".timestamp" => "[time]"});
        insta::assert_json_snapshot!("after-command-line", after, {".timestamp" => "[time]"});
    });
}
