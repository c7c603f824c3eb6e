//! `vouch log` and the audit file under concurrency.

use std::thread;

use crate::support::TestEnv;

const Z: &str = "0000000000000000000000000000000000000000";

#[test]
fn log_shows_a_table_json_and_filters() {
    let env = TestEnv::new();
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    env.install_hooks("pre-push");
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    env.write_config("");
    env.push(&["--force", "origin", "main"]).code(0);
    let table = env.vouch(&["log"]);
    table
        .code(0)
        .stdout_has("TIER")
        .stdout_has("refused")
        .stdout_has("allowed")
        .stdout_has("main (rewrite)");
    let json = env.vouch(&["log", "--json", "--result", "refused"]);
    json.code(0);
    let lines: Vec<&str> = json.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", json.stdout);
    let record: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(record["decision"], "refused");
    let work = env.work.display().to_string();
    let repo = env.vouch(&["log", "--json", "--since", "1h", "--repo", &work]);
    assert_eq!(repo.stdout.lines().count(), 2, "{}", repo.stdout);
    let other = env.vouch(&["log", "--json", "--repo", "/nonexistent"]);
    assert_eq!(other.stdout.lines().count(), 0);
    let future = env.vouch(&["log", "--json", "--since", "2999-01-01"]);
    assert_eq!(future.stdout.lines().count(), 0);
    env.vouch(&["log", "--since", "whenever"])
        .code(2)
        .stderr_has("neither a duration");
}

#[test]
fn concurrent_hooks_lose_no_audit_line() {
    let env = TestEnv::new();
    env.write_config("[on_unavailable]\nhigh = \"allow\"\n");
    let head = env.rev(&env.work, "HEAD");
    let url = env.remote.display().to_string();
    thread::scope(|s| {
        for i in 0..16 {
            let env = &env;
            let head = &head;
            let url = &url;
            s.spawn(move || {
                let line = format!("(delete) {Z} refs/heads/topic-{i} {head}\n");
                env.vouch_stdin(&["hook", "pre-push", "--", "origin", url], line.as_bytes())
                    .code(0);
            });
        }
    });
    let records = env.audit();
    assert_eq!(records.len(), 16);
    let mut names: Vec<String> = records
        .iter()
        .map(|r| r["refs"][0]["remote_ref"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 16, "every hook's line is there, whole");
}

#[test]
fn log_rotates_past_its_size_limit() {
    let env = TestEnv::new();
    env.write_config("[log]\nmax_bytes = 4096\n");
    let head = env.rev(&env.work, "HEAD");
    let url = env.remote.display().to_string();
    for i in 0..6 {
        let line = format!("(delete) {Z} refs/heads/topic-{i} {head}\n");
        env.vouch_stdin(&["hook", "pre-push", "--", "origin", &url], line.as_bytes())
            .code(0);
    }
    assert!(env.state().join("audit.jsonl.1").exists(), "rotated");
    let out = env.vouch(&["log", "--json"]);
    assert!(out.stdout.lines().count() >= 2);
}
