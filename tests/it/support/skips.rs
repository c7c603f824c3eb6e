//! Tests that cannot run here: a test whose outside program is missing is
//! skipped and named, and the run ends with one line that says what was
//! skipped and what installs it. Under `CI` (set and not empty) it fails
//! instead: `.ci/run` installs every program the tests use.
//!
//! Shared by the integration tests (`support::skip`) and the library's
//! unit tests (`env::skip_test`, through `#[path]`): std only.
//!
//! The last line. libtest has no hook at the end of a run, and
//! `unsafe_code` is denied (no `atexit`), so the first skip starts a
//! small `sh` that holds the read end of a pipe: each skip writes the whole
//! summary so far as one line, and when the test process exits the pipe
//! closes and `sh` prints the last line it read to the same stderr, after
//! libtest's `test result:` line. The write end is close-on-exec (std's
//! pipes are), so no program a test starts keeps it open.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// What installs each program the tests use (the README's "Tests" table
/// says the same, with what needs it). A program not listed is named
/// with the README's table as the way to it.
const INSTALLS: &[(&str, &str)] = &[
    ("tmux", "apt install tmux"),
    ("man", "apt install man-db"),
    ("node", "apt install nodejs"),
    ("rsync", "apt install rsync"),
    ("ps", "apt install procps"),
    ("nginx", "apt install nginx"),
    ("fcgiwrap", "apt install fcgiwrap"),
    ("sshd", "apt install openssh-server"),
    ("gitolite", "apt install gitolite3"),
    ("pre-commit", "pip install pre-commit==4.7.0"),
    ("prek", "pip install prek==0.5.11"),
    ("lefthook", "npm install -g lefthook@2.2.2"),
    ("husky", "npm install -g husky@9.1.7"),
    (
        "git 2.55",
        "build ../shared/vendor/git-2.55.0.tar.gz as .ci/run does, then VOUCH_TEST_GIT_255=<its dir>/bin-wrappers/git",
    ),
];

/// The tests skipped so far, by what they need, and the summary's pipe.
struct Skips {
    by_need: BTreeMap<String, (String, Vec<String>)>,
    summary: Option<ChildStdin>,
}

static SKIPS: Mutex<Skips> = Mutex::new(Skips {
    by_need: BTreeMap::new(),
    summary: None,
});

/// What installs `program` ([`INSTALLS`]).
pub fn installs(program: &str) -> String {
    INSTALLS.iter().find(|(p, _)| *p == program).map_or_else(
        || "the README's \"Tests\" says where it comes from".to_owned(),
        |(_, how)| (*how).to_owned(),
    )
}

/// True when the run is CI's (`CI` set and not empty), where nothing may be
/// skipped.
pub fn under_ci() -> bool {
    #[expect(
        clippy::disallowed_methods,
        reason = "the test runner's own environment"
    )]
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// Skips the calling test, which needs `need` (a program, or "root") and
/// cannot run here because of `why`; `remedy` says what makes it run.
/// Under `CI` it fails. Otherwise it writes `SKIPPED <test>: <why>`
/// straight to the process's stderr (cargo holds back what a passing test
/// prints with `eprintln!`, not what it writes to the stream itself) and
/// adds the test to the run's last line. The caller returns at once.
pub fn skip(need: &str, why: &str, remedy: &str) {
    assert!(
        !under_ci(),
        "{why}, and CI must run this test (.ci/run installs every program the tests use; to run it: {remedy})"
    );
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    std::io::stderr()
        .lock()
        .write_all(format!("SKIPPED {test}: {why}\n").as_bytes())
        .ok();
    let mut skips = SKIPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    skips
        .by_need
        .entry(need.to_owned())
        .or_insert_with(|| (remedy.to_owned(), Vec::new()))
        .1
        .push(test);
    let line = summary(&skips.by_need);
    if skips.summary.is_none() {
        skips.summary = Command::new("sh")
            .args([
                "-c",
                r#"last=; while IFS= read -r line; do last=$line; done; [ -z "$last" ] || printf '%s\n' "$last" >&2"#,
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .ok()
            .and_then(|mut child| child.stdin.take());
    }
    let written = skips
        .summary
        .as_mut()
        .is_some_and(|pipe| pipe.write_all(format!("{line}\n").as_bytes()).is_ok());
    if !written {
        // No `sh` to print it at the end: say it now.
        std::io::stderr()
            .lock()
            .write_all(format!("{line}\n").as_bytes())
            .ok();
    }
}

/// The run's last line: how many tests were skipped, and for each thing
/// they need, which tests and what installs it.
fn summary(by_need: &BTreeMap<String, (String, Vec<String>)>) -> String {
    let total: usize = by_need.values().map(|(_, tests)| tests.len()).sum();
    let parts: Vec<String> = by_need
        .iter()
        .map(|(need, (remedy, tests))| {
            let mut tests = tests.clone();
            tests.sort();
            format!(
                "{need}, {} ({}): {remedy}",
                count(tests.len()),
                tests.join(", ")
            )
        })
        .collect();
    format!(
        "SKIPPED {}, for want of (under CI they fail): {}",
        count(total),
        parts.join("; ")
    )
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 test".to_owned()
    } else {
        format!("{n} tests")
    }
}
