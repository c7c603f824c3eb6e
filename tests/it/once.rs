//! Each fact once per operation (issue 39 item 3): one force push and one
//! agent command read each config file once, open the repository with
//! libgit2 once, and parse their input once. A debug build of `git-vouch`
//! counts them (`src/platform/counts.rs`) and prints the counts when
//! `VOUCH_DEBUG_COUNTS` is set.

use std::collections::BTreeMap;

use crate::support::{Out, TestEnv};

/// The counts each run of `git-vouch` printed, in order.
fn counts(out: &Out) -> Vec<BTreeMap<String, usize>> {
    out.stderr
        .lines()
        .filter_map(|l| l.strip_prefix("vouch counts: "))
        .map(|l| {
            l.split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_owned(), v.parse().expect("a count")))
                .collect()
        })
        .collect()
}

#[test]
fn a_force_push_reads_its_config_opens_its_repository_and_parses_its_lines_once() {
    let mut env = TestEnv::new();
    env.install_hooks("pre-push");
    env.extra_env = vec![("VOUCH_DEBUG_COUNTS".into(), "1".into())];
    env.rewind(2);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(0).stderr_has("not verified");
    let runs = counts(&out);
    assert_eq!(
        runs.len(),
        1,
        "one run of the pre-push hook: {}",
        out.stderr
    );
    let run = &runs[0];
    // The user's config and the repository's `.vouch.toml`, each once
    // (the fast path read them, and the whole door did not again).
    assert_eq!(run["config-files"], 2, "{}", out.stderr);
    // Measured, then its rescue ref written, in one opened repository.
    assert_eq!(run["repo-opens"], 1, "{}", out.stderr);
    assert_eq!(run["ref-line-parses"], 1, "{}", out.stderr);
    assert_eq!(run["shell-parses"], 0, "{}", out.stderr);
    // What it decided is what it did before counting: a rescue ref kept.
    assert!(
        env.git(&env.work, &["for-each-ref", "refs/vouch/rescue/"])
            .contains("refs/vouch/rescue/"),
        "the rewritten commits are kept"
    );
}

#[test]
fn an_agent_command_reads_its_config_and_parses_its_line_once() {
    let mut env = TestEnv::new();
    env.extra_env = vec![("VOUCH_DEBUG_COUNTS".into(), "1".into())];
    std::fs::write(env.work.join("file1.txt"), "an edit\n").unwrap();
    // A command with facts to measure, and a snapshot before it runs.
    let out = env.claude("git reset --hard HEAD~1");
    let runs = counts(&out);
    assert_eq!(runs.len(), 1, "one run of the agent hook: {}", out.stderr);
    let run = &runs[0];
    // The watchdog's deadline and the door read the same files.
    assert_eq!(run["config-files"], 2, "{}", out.stderr);
    // Classified, measured and snapshotted from one parse of the line.
    assert_eq!(run["shell-parses"], 1, "{}", out.stderr);
    assert_eq!(run["repo-opens"], 1, "{}", out.stderr);
    assert_eq!(run["ref-line-parses"], 0, "{}", out.stderr);
}
