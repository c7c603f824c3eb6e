//! `git vouch log` and the audit file under concurrency.

use std::io::Write;
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

/// Every line of the log at `path` and its generations, oldest first.
fn lines_across_generations(path: &std::path::Path) -> Vec<String> {
    let mut files: Vec<std::path::PathBuf> = (1..100_000)
        .map(|n| vouch::audit::generation(path, n))
        .take_while(|g| g.exists())
        .collect();
    files.reverse();
    files.push(path.to_path_buf());
    files
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn record(id: &str) -> vouch::audit::Record {
    vouch::audit::Record::new(
        id,
        "push",
        "pre-push",
        "/repo",
        vouch::decide::AuditResult::Proceed,
        vouch::decide::Decision::Allowed,
    )
}

#[test]
fn eight_writers_of_a_thousand_records_lose_none_across_rotations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    thread::scope(|s| {
        for w in 0..8 {
            let path = &path;
            s.spawn(move || {
                for i in 0..1000 {
                    vouch::audit::append(path, 64 * 1024, 10_000, &record(&format!("w{w}-{i}")))
                        .unwrap();
                }
            });
        }
    });
    assert!(
        vouch::audit::generation(&path, 10).exists(),
        "rotated many times"
    );
    let lines = lines_across_generations(&path);
    assert_eq!(lines.len(), 8000, "no record lost");
    let mut ids: Vec<String> = lines
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("every line whole");
            v["operation_id"].as_str().unwrap().to_owned()
        })
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 8000, "each record once");
    for n in 1..=5 {
        let size = std::fs::metadata(vouch::audit::generation(&path, n))
            .unwrap()
            .len();
        assert!(size <= 64 * 1024, "generation {n} is {size} bytes");
    }
    let (records, problems) = vouch::audit::read_all(&path).unwrap();
    assert_eq!((records.len(), problems.len()), (8000, 0));
}

#[test]
fn rotation_drops_only_the_oldest_generation_past_keep() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    for i in 0..200 {
        vouch::audit::append(&path, 4096, 3, &record(&format!("op-{i:03}"))).unwrap();
    }
    assert!(vouch::audit::generation(&path, 3).exists());
    assert!(!vouch::audit::generation(&path, 4).exists(), "keep = 3");
    let ids: Vec<String> = lines_across_generations(&path)
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["operation_id"].as_str().unwrap().to_owned()
        })
        .collect();
    // What is kept is the newest records, in order, with no gap.
    let first: usize = ids[0].trim_start_matches("op-").parse().unwrap();
    let want: Vec<String> = (first..200).map(|i| format!("op-{i:03}")).collect();
    assert_eq!(ids, want);
    assert!(first > 0, "the oldest generation was dropped");
}

const FRAGMENT: &str =
    r#"{"schema_version":1,"timestamp":"2026-11-23T10:00:00Z","operation_id":"torn"#;

#[test]
fn a_line_cut_short_by_kill_9_is_ended_before_the_next_record() {
    let env = TestEnv::new();
    env.write_config(BLOCK);
    let head = env.rev(&env.work, "HEAD");
    let url = env.remote.display().to_string();
    let delete = |name: &str| {
        let line = format!("(delete) {Z} refs/heads/{name} {head}\n");
        env.vouch_stdin(&["hook", "pre-push", "--", "origin", &url], line.as_bytes())
            .code(1);
    };
    delete("before");
    // A writer killed in the middle of its line leaves it without a newline.
    let log = env.state().join("audit.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str(FRAGMENT);
    std::fs::write(&log, &text).unwrap();
    delete("after");
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[1], FRAGMENT, "the fragment keeps its own line");
    let after: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
    assert_eq!(after["refs"][0]["remote_ref"], "refs/heads/after");
    let log = env.vouch(&["log", "--json"]);
    log.code(0).stderr_has("unreadable audit line");
    assert_eq!(log.stdout.lines().count(), 2, "{}", log.stdout);
}

#[test]
fn log_reads_across_every_generation() {
    let env = TestEnv::new();
    env.write_config(&format!("{BLOCK}[log]\nmax_bytes = 4096\nkeep = 50\n"));
    let head = env.rev(&env.work, "HEAD");
    let url = env.remote.display().to_string();
    for i in 0..12 {
        let line = format!("(delete) {Z} refs/heads/topic-{i} {head}\n");
        env.vouch_stdin(&["hook", "pre-push", "--", "origin", &url], line.as_bytes())
            .code(1);
    }
    assert!(env.state().join("audit.jsonl.2").exists(), "two rotations");
    let out = env.vouch(&["log", "--json"]);
    assert_eq!(out.stdout.lines().count(), 12, "{}", out.stdout);
}

/// Unverified high-tier operations are refused.
const BLOCK: &str = "[on_unavailable]\nhigh = \"block\"\n";

/// A refused deletion (no verifier, [`BLOCK`]), run under `wrap`.
fn refused_deletion(env: &TestEnv, wrap: &[&str]) -> crate::support::Out {
    let head = env.rev(&env.work, "HEAD");
    let url = env.remote.display().to_string();
    let input = format!("(delete) {Z} refs/heads/topic {head}\n");
    let mut child = env
        .cmd(wrap[0], &env.work)
        .args(&wrap[1..])
        .arg(crate::support::vouch_bin())
        .args(["hook", "pre-push", "--", "origin", &url])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).ok();
    crate::support::Out::from_output(child.wait_with_output().unwrap())
}

#[test]
fn a_full_disk_is_a_warning_and_the_refusal_stands() {
    let mut env = TestEnv::new();
    env.write_config(BLOCK);
    let log = env.base().join("full.jsonl");
    // Every write to /dev/full fails with ENOSPC.
    std::os::unix::fs::symlink("/dev/full", &log).unwrap();
    env.extra_env
        .push(("VOUCH_LOG".into(), log.display().to_string()));
    refused_deletion(&env, &["env"])
        .code(1)
        .stderr_has("disk is full")
        .stderr_has("refused");
}

#[test]
fn a_file_size_limit_is_a_warning_not_a_killed_process() {
    let env = TestEnv::new();
    env.write_config(BLOCK);
    let log = env.state().join("audit.jsonl");
    std::fs::create_dir_all(env.state()).unwrap();
    // A log already past the limit: the next record cannot fit.
    std::fs::write(&log, format!("{}\n", "x".repeat(8000))).unwrap();
    let out = refused_deletion(&env, &["sh", "-c", "ulimit -f 1; exec \"$@\"", "sh"]);
    out.code(1)
        .stderr_has("file size limit")
        .stderr_has("this decision was not logged");
    assert_eq!(std::fs::read_to_string(&log).unwrap().len(), 8001);
    // Room for part of the record only: the part written is taken back.
    std::fs::write(&log, "{}\n").unwrap();
    refused_deletion(&env, &["sh", "-c", "ulimit -f 1; exec \"$@\"", "sh"])
        .code(1)
        .stderr_has("taken back")
        .stderr_has("this decision was not logged");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "{}\n",
        "nothing half-written"
    );
}

/// Runs `wrap`ped so that `dir` is read-only: a read-only bind mount in a
/// private mount namespace for root (who writes anywhere), else its mode.
fn read_only(dir: &std::path::Path) -> Vec<String> {
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    if root {
        let d = dir.display().to_string();
        vec![
            "unshare".into(),
            "-m".into(),
            "sh".into(),
            "-c".into(),
            "mount --bind -o ro \"$0\" \"$0\" && exec \"$@\"".into(),
            d,
        ]
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        vec!["env".into()]
    }
}

#[test]
fn a_read_only_log_directory_is_a_warning_and_the_refusal_stands() {
    let env = TestEnv::new();
    env.write_config(BLOCK);
    std::fs::create_dir_all(env.state()).unwrap();
    let wrap = read_only(&env.state());
    let wrap: Vec<&str> = wrap.iter().map(String::as_str).collect();
    refused_deletion(&env, &wrap)
        .code(1)
        .stderr_has("cannot write the audit log")
        .stderr_has("this decision was not logged");
    let bin = crate::support::vouch_bin();
    let mut doctor = wrap.clone();
    doctor.extend([bin.to_str().unwrap(), "doctor"]);
    let out = crate::support::Out::from_output(
        env.cmd(doctor[0], &env.work)
            .args(&doctor[1..])
            .output()
            .unwrap(),
    );
    out.code(2).stdout_has("cannot be written");
}

#[test]
fn the_agent_door_does_not_let_a_verified_command_through_unlogged() {
    let mut env = TestEnv::new();
    let config = env.verifier("ok", &crate::support::verdict_body("pass"), "");
    env.write_config(&config);
    std::fs::write(env.work.join("file1.txt"), "unsaved work\n").unwrap();
    let input = serde_json::json!({
        "session_id": "s",
        "cwd": env.work.display().to_string(),
        "tool_name": "Bash",
        "permission_mode": "default",
        "tool_input": {"command": "git reset --hard"},
    })
    .to_string();
    // With a log, the verifier's pass lets it through.
    env.vouch_stdin(&["agent-hook", "claude"], input.as_bytes())
        .code(0);
    assert_eq!(env.last_audit()["result"], "proceed");
    // The log path is a directory: the person is asked, and told why.
    let dir = env.base().join("a-directory");
    std::fs::create_dir_all(&dir).unwrap();
    env.extra_env
        .push(("VOUCH_LOG".into(), dir.display().to_string()));
    let out = env.vouch_stdin(&["agent-hook", "claude"], input.as_bytes());
    out.code(0)
        .stdout_has(r#""permissionDecision":"ask""#)
        .stdout_has("is a directory");
    // An agent that cannot ask is refused.
    env.vouch_stdin(&["agent-hook", "codex"], input.as_bytes())
        .code(2)
        .stderr_has("is a directory");
    env.vouch(&["doctor"]).code(2).stdout_has("is a directory");
}

#[test]
fn a_commit_under_a_file_size_limit_goes_on_with_a_warning() {
    let env = TestEnv::new();
    env.write_config("log_all = true\n");
    env.install();
    std::fs::create_dir_all(env.state()).unwrap();
    let log = env.state().join("audit.jsonl");
    // Past the limit below; git's own small files are not.
    std::fs::write(&log, format!("{}\n", "x".repeat(20_000))).unwrap();
    std::fs::write(env.work.join("small.txt"), "small\n").unwrap();
    env.git(&env.work, &["add", "small.txt"]);
    let before = env.rev(&env.work, "HEAD");
    let out = crate::support::Out::from_output(
        env.cmd("sh", &env.work)
            .args(["-c", "ulimit -f 16; git commit -q -m small"])
            .output()
            .unwrap(),
    );
    out.code(0)
        .stderr_has("file size limit")
        .stderr_has("not logged");
    assert_ne!(env.rev(&env.work, "HEAD"), before, "the commit was made");
}

/// A logged decision keeps its operation, so that it can become an eval
/// case; a token in a commit subject is masked there as everywhere.
#[test]
fn the_audit_line_keeps_the_operation_with_credentials_masked() {
    let env = TestEnv::new();
    env.write_config(&env.verifier("careful", &crate::support::verdict_body("fail"), ""));
    env.install();
    env.commit(
        &env.work,
        "leak.txt",
        "use token ghp_0123456789abcdefghijABCDEFGHIJ0123",
    );
    env.push(&["origin", "main"]).code(0);
    let remote_main = env.remote_ref("main").unwrap();
    // The commit with the token is what the force push would remove.
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    assert_eq!(env.remote_ref("main").unwrap(), remote_main);
    let record = env.last_audit();
    let op: vouch::classify::operation::Operation =
        serde_json::from_value(record["operation"].clone()).expect("an Operation");
    assert_eq!(op.noun(), "push");
    assert_eq!(op.tier(), Some(vouch::classify::Tier::Critical));
    let text = record["operation"].to_string();
    assert!(!text.contains("ghp_0123456789"), "{text}");
}
