//! External verifier programs (SPEC section 4): discovery and running.
//!
//! A program gets the context JSON on stdin and prints a result JSON; exit 0
//! is pass, 1 fail, 2 error. Programs run in parallel, each with a timeout;
//! one that crashes, hangs or prints garbage is an `error`, never a pass.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use crate::classify::Tier;
use crate::classify::config::{Config, DEFAULT_VERIFIER_TIMEOUT_SECS, VerifierConfig};
use crate::verify::builtin::builtin;
use crate::verify::verdict::{Status, VerifierResult, from_program};
use serde::Serialize;

use crate::classify::operation::{Operation, View};

/// Prefix of verifier programs found on `PATH`.
pub const PATH_PREFIX: &str = "vouch-verify-";

/// Output kept from a program, at most.
const OUTPUT_LIMIT: u64 = 1024 * 1024;

/// A verifier program ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// Its name.
    pub name: String,
    /// The command; empty when configured but not found.
    pub command: Vec<String>,
    /// A fail blocks.
    pub blocking: bool,
    /// Killed past this.
    pub timeout: Duration,
    /// Tiers that run it (`None`: every verified tier).
    pub tiers: Option<Vec<Tier>>,
    /// Where it came from.
    pub source: String,
    /// Turned off in config.
    pub enabled: bool,
}

impl Program {
    /// True when it runs for an operation of `tier`.
    pub fn runs_for(&self, tier: Tier) -> bool {
        self.enabled && self.tiers.as_ref().is_none_or(|t| t.contains(&tier))
    }
}

/// Where programs are looked for.
#[derive(Debug, Clone, Default)]
pub struct SearchPlaces {
    /// `<config dir>/verifiers`.
    pub user_dir: Option<PathBuf>,
    /// `<repo>/.vouch/verifiers`, only for a trusted repository.
    pub repo_dir: Option<PathBuf>,
    /// The `PATH` value.
    pub path: Option<std::ffi::OsString>,
}

fn scan_dir(
    dir: &Path,
    prefix: &str,
    source: &str,
    found: &mut BTreeMap<String, (PathBuf, String)>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    for path in names {
        let Some(file) = path.file_name().and_then(|f| f.to_str()) else {
            continue;
        };
        let Some(name) = file.strip_prefix(prefix) else {
            continue;
        };
        if name.is_empty() || name.starts_with('.') || !crate::platform::files::is_executable(&path)
        {
            continue;
        }
        found
            .entry(name.to_owned())
            .or_insert_with(|| (path.clone(), format!("{source} `{}`", path.display())));
    }
}

/// Finds every verifier: configured ones, then programs in the user's
/// `verifiers/` dir, the trusted repository's `.vouch/verifiers/`, and
/// `vouch-verify-*` on `PATH`. A configured entry without a command
/// configures the program found under its name.
pub fn discover(config: &Config, places: &SearchPlaces) -> Vec<Program> {
    let mut found = BTreeMap::new();
    if let Some(dir) = &places.user_dir {
        scan_dir(dir, "", "user verifiers dir", &mut found);
    }
    if let Some(dir) = &places.repo_dir {
        scan_dir(dir, "", "repository verifiers dir", &mut found);
    }
    if let Some(path) = &places.path {
        for dir in std::env::split_paths(path) {
            scan_dir(&dir, PATH_PREFIX, "PATH", &mut found);
        }
    }
    let mut programs: BTreeMap<String, Program> = found
        .iter()
        .map(|(name, (path, source))| {
            (
                name.clone(),
                Program {
                    name: name.clone(),
                    command: vec![path.display().to_string()],
                    blocking: true,
                    timeout: Duration::from_secs(DEFAULT_VERIFIER_TIMEOUT_SECS),
                    tiers: None,
                    source: source.clone(),
                    enabled: true,
                },
            )
        })
        .collect();
    for (
        name,
        VerifierConfig {
            command,
            blocking,
            timeout_secs,
            tiers,
            enabled,
            source,
        },
    ) in &config.verifiers
    {
        let found_command = programs.get(name).map(|p| p.command.clone());
        programs.insert(
            name.clone(),
            Program {
                name: name.clone(),
                command: command.clone().or(found_command).unwrap_or_default(),
                blocking: *blocking,
                timeout: Duration::from_secs(*timeout_secs),
                tiers: tiers.clone(),
                source: format!("config `{source}`"),
                enabled: *enabled,
            },
        );
    }
    programs.into_values().collect()
}

/// Version of the verifier context layout.
pub const CONTEXT_SCHEMA_VERSION: u32 = 2;

/// What a verifier program reads on stdin: the contract for verifier
/// programs (docs/verifiers.md, "Verifier programs"). Built in one place, the runner.
#[derive(Debug, Clone, Serialize)]
pub struct Context {
    /// Layout version; a field is only ever added within a version.
    pub schema_version: u32,
    /// The vouch that wrote it.
    pub vouch_version: &'static str,
    /// What is about to happen.
    pub operation: OperationInfo,
    /// Its tier.
    pub tier: Tier,
    /// Why the tier is what it is.
    pub reasons: Vec<String>,
    /// The repository root.
    pub repo: PathBuf,
    /// The branch checked out.
    pub branch: Option<String>,
    /// Where a push goes (credentials redacted).
    pub remote: Option<Remote>,
    /// The shell command, for a command (credentials masked).
    pub command: Option<String>,
    /// The measured facts, in the operation's own shape.
    pub facts: serde_json::Value,
    /// What changes: a push's or ref update's refs, a commit's files.
    pub changes: serde_json::Value,
    /// The built-in deterministic checks.
    pub builtin: VerifierResult,
}

/// The operation in the context.
#[derive(Debug, Clone, Serialize)]
pub struct OperationInfo {
    /// Its id (what an approval is bound to).
    pub id: String,
    /// `push`, `commit`, `ref-update`, `command`.
    #[serde(rename = "type")]
    pub kind: String,
    /// What a person reads.
    pub description: String,
}

/// A push's remote.
#[derive(Debug, Clone, Serialize)]
pub struct Remote {
    /// Its name.
    pub name: String,
    /// Its URL, credentials redacted.
    pub url: String,
}

/// The context verifier programs read on stdin: built here and only here,
/// from the operation's one view, and from the operation itself for what
/// is in its own shape (its facts, what changes, the built-in checks).
/// `description` is what a person reads about it, worded by the caller
/// (`interact::report`): the verifiers write no words for people.
pub fn context(op: &Operation, view: &View, description: String) -> Context {
    Context {
        schema_version: CONTEXT_SCHEMA_VERSION,
        vouch_version: env!("CARGO_PKG_VERSION"),
        operation: OperationInfo {
            id: view.id.clone(),
            kind: view.kind.clone(),
            description,
        },
        tier: view.tier.unwrap_or_default(),
        reasons: view.reasons.clone(),
        repo: view.repo.clone(),
        branch: view.branch.clone(),
        remote: view.remote_name.as_ref().map(|name| Remote {
            name: name.clone(),
            url: view.remote.clone().unwrap_or_default(),
        }),
        command: view.command.clone(),
        facts: op.facts_value(),
        changes: op.changes_value(),
        builtin: builtin(op),
    }
}

/// Runs `programs` in parallel, each with `context` on stdin, in `cwd`.
pub fn run_all(programs: &[Program], context: &str, cwd: &Path) -> Vec<VerifierResult> {
    thread::scope(|scope| {
        let handles: Vec<_> = programs
            .iter()
            .map(|p| scope.spawn(move || run_one(p, context, cwd)))
            .collect();
        handles
            .into_iter()
            .zip(programs)
            .map(|(h, p)| {
                h.join().unwrap_or_else(|_| {
                    VerifierResult::simple(
                        &p.name,
                        Status::Error,
                        "vouch failed while running it".into(),
                        p.blocking,
                    )
                })
            })
            .collect()
    })
}

fn reader<R: Read + Send + 'static>(pipe: Option<R>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(pipe) = pipe {
        thread::spawn(move || {
            let mut buf = Vec::new();
            pipe.take(OUTPUT_LIMIT).read_to_end(&mut buf).ok();
            tx.send(buf).ok();
        });
    }
    rx
}

fn run_one(p: &Program, context: &str, cwd: &Path) -> VerifierResult {
    let started = Instant::now();
    let error = |summary: String| {
        let mut r = VerifierResult::simple(&p.name, Status::Error, summary, p.blocking);
        r.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        r
    };
    let Some((program, args)) = p.command.split_first() else {
        return error(format!(
            "configured in {} but has no `command` and no program named `{}` was found",
            p.source, p.name
        ));
    };
    let child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env(
            crate::platform::env::vars::VOUCH_NESTED,
            crate::measure::parent::nested_marker(),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so a timeout kills what it started too.
        .process_group(0)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return error(format!("cannot run `{}`: {e}", p.command.join(" "))),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let context = context.to_owned();
        // A program may exit without reading its input; that is fine.
        thread::spawn(move || stdin.write_all(context.as_bytes()).ok());
    }
    let stdout = reader(child.stdout.take());
    let stderr = reader(child.stderr.take());
    let status = match child.wait_timeout(p.timeout) {
        Ok(Some(status)) => status,
        Ok(None) => {
            kill_group(child.id());
            child.kill().ok();
            child.wait().ok();
            return error(format!(
                "timed out after {} s and was killed",
                p.timeout.as_secs()
            ));
        }
        Err(e) => return error(format!("cannot wait for it: {e}")),
    };
    // Output of an exited program; a grandchild holding the pipe gets a grace period.
    let grace = Duration::from_secs(2);
    let Ok(out) = stdout.recv_timeout(grace) else {
        return error(
            "exited, but its output could not be read (a process it started kept it open)".into(),
        );
    };
    let err = stderr.recv_timeout(grace).unwrap_or_default();
    let mut result = from_program(
        &p.name,
        status.code(),
        &String::from_utf8_lossy(&out),
        p.blocking,
    );
    if result.status == Status::Error && !err.is_empty() {
        let tail: String = String::from_utf8_lossy(&err)
            .lines()
            .last()
            .unwrap_or("")
            .chars()
            .take(200)
            .collect();
        if !tail.is_empty() {
            result.summary = format!("{} (stderr: {tail})", result.summary);
        }
    }
    result.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    result
}

fn kill_group(pid: u32) {
    // `kill -KILL -<pgid>`: std has no process-group kill and unsafe is denied.
    Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok();
}
