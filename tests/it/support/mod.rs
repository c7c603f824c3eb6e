//! The hermetic test environment: a temporary root with `home/`, a bare
//! `remote.git`, a clone `work/`, and vouch's XDG dirs, driven by the real
//! git CLI with every outside variable cleared (STYLE section 6).

#![allow(dead_code)]

pub mod llm;
pub mod skips;
pub mod tmux;

use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use tempfile::TempDir;

/// Skips the calling test because `tool` is missing: named, and counted
/// in the run's last line with what installs it; under `CI` a failure
/// ([`skips::skip`]). The caller returns at once after it.
pub fn missing(tool: &str) {
    missing_all(&[tool]);
}

/// Skips the calling test because `tools` (one or more) are missing, as
/// [`missing`] does, naming each.
pub fn missing_all(tools: &[&str]) {
    let named: Vec<String> = tools.iter().map(|t| format!("`{t}`")).collect();
    let remedies: Vec<String> = tools.iter().map(|t| skips::installs(t)).collect();
    skips::skip(
        &tools.join(" and "),
        &format!(
            "{} {} not installed",
            named.join(" and "),
            if tools.len() == 1 { "is" } else { "are" }
        ),
        &remedies.join(", "),
    );
}

/// Skips the calling test, which needs `need` (not a program: "root"),
/// because of `why`; `remedy` says what makes it run ([`skips::skip`]).
pub fn skip(need: &str, why: &str, remedy: &str) {
    skips::skip(need, why, remedy);
}

/// The hook gate this build compiled (`build.rs`, from `hooks/gate.rs`);
/// `None` (the test skipped, and a failure under `CI`) when it could not
/// build it and hooks are `sh` scripts.
pub fn gate() -> Option<&'static [u8]> {
    let program = vouch::install::gate::PROGRAM;
    if program.is_empty() {
        skip(
            "the hook gate",
            "build.rs could not compile hooks/gate.rs (its warning says why)",
            "a Rust toolchain that links programs for this target",
        );
        return None;
    }
    Some(program)
}

/// The directory of a git 2.55 (git 2.54 and later run config-defined
/// hooks), from `VOUCH_TEST_GIT_255` (the `git` to run: `bin-wrappers/git`
/// of a build tree, which `.ci/run` builds from the vendored tarball); to
/// put first on a test's `PATH`. `None` (the test skipped, and a failure
/// under `CI`) when it is not set or not a git 2.55.
pub fn git_255_dir() -> Option<PathBuf> {
    #[expect(
        clippy::disallowed_methods,
        reason = "the test runner's own environment"
    )]
    let git = std::env::var_os("VOUCH_TEST_GIT_255").map(PathBuf::from);
    let ok = git.as_ref().is_some_and(|g| {
        Command::new(g)
            .arg("version")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with("git version 2.55"))
    });
    if !ok {
        missing("git 2.55");
        return None;
    }
    git.and_then(|g| g.parent().map(Path::to_path_buf))
}

/// The vouch binary under test.
pub fn vouch_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-vouch"))
}

/// The output of a command, with helpers.
#[derive(Debug)]
pub struct Out {
    /// Exit code (-1 when killed).
    pub code: i32,
    /// stdout, lossy.
    pub stdout: String,
    /// stderr, lossy.
    pub stderr: String,
}

impl Out {
    /// From a finished command's output.
    pub fn from_output(o: Output) -> Self {
        Self::from(o)
    }

    fn from(o: Output) -> Self {
        Self {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }

    /// Asserts the exit code.
    #[track_caller]
    pub fn code(&self, want: i32) -> &Self {
        assert_eq!(
            self.code, want,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// Asserts stderr contains `text`.
    #[track_caller]
    pub fn stderr_has(&self, text: &str) -> &Self {
        assert!(
            self.stderr.contains(text),
            "stderr lacks {text:?}:\n{}",
            self.stderr
        );
        self
    }

    /// Asserts stdout contains `text`.
    #[track_caller]
    pub fn stdout_has(&self, text: &str) -> &Self {
        assert!(
            self.stdout.contains(text),
            "stdout lacks {text:?}:\n{}",
            self.stdout
        );
        self
    }
}

/// One test's world.
pub struct TestEnv {
    /// Everything lives below this.
    pub root: TempDir,
    /// `$HOME`.
    pub home: PathBuf,
    /// The bare remote.
    pub remote: PathBuf,
    /// The working clone.
    pub work: PathBuf,
    /// Extra variables for every command.
    pub extra_env: Vec<(String, String)>,
}

/// An audit record's lost-commit count per ref (`null` where none was
/// measured).
pub fn lost_by_ref(record: &Value) -> std::collections::BTreeMap<String, Value> {
    record["refs"]
        .as_array()
        .expect("the record lists its refs")
        .iter()
        .map(|r| {
            (
                r["remote_ref"].as_str().unwrap_or_default().to_owned(),
                r["lost_commits"].clone(),
            )
        })
        .collect()
}

impl TestEnv {
    /// A bare remote with `main` holding three commits, cloned to `work/`.
    pub fn new() -> Self {
        let root = tempfile::Builder::new()
            .prefix("vouch-it-")
            .tempdir()
            .expect("temp dir");
        let base = root.path().canonicalize().expect("canonical temp dir");
        let home = base.join("home");
        fs::create_dir_all(&home).unwrap();
        fs::write(
            home.join(".gitconfig"),
            "[user]\n\tname = Test User\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[advice]\n\tdetachedHead = false\n[protocol \"file\"]\n\tallow = always\n",
        )
        .unwrap();
        let env = Self {
            remote: base.join("remote.git"),
            work: base.join("work"),
            home,
            root,
            extra_env: Vec::new(),
        };
        env.git(&base, &["init", "-q", "--bare", "-b", "main", "remote.git"]);
        env.git(&base, &["clone", "-q", "remote.git", "work"]);
        for i in 1..=3 {
            env.commit(&env.work, &format!("file{i}.txt"), &format!("commit {i}"));
        }
        env.git(&env.work, &["push", "-q", "-u", "origin", "main"]);
        env
    }

    /// The base directory.
    pub fn base(&self) -> PathBuf {
        self.home.parent().unwrap().to_path_buf()
    }

    /// The environment every command gets (and nothing else).
    pub fn vars(&self) -> Vec<(String, String)> {
        let base = self.base();
        let mut vars = vec![
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            ("HOME".into(), self.home.display().to_string()),
            (
                "XDG_CONFIG_HOME".into(),
                base.join("config").display().to_string(),
            ),
            (
                "XDG_DATA_HOME".into(),
                base.join("data").display().to_string(),
            ),
            (
                "XDG_STATE_HOME".into(),
                base.join("state").display().to_string(),
            ),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            (
                "GIT_CONFIG_GLOBAL".into(),
                self.home.join(".gitconfig").display().to_string(),
            ),
            ("GIT_AUTHOR_DATE".into(), "2026-01-01T00:00:00Z".into()),
            ("GIT_COMMITTER_DATE".into(), "2026-01-01T00:00:00Z".into()),
            ("GIT_TERMINAL_PROMPT".into(), "0".into()),
            ("NO_COLOR".into(), "1".into()),
            ("LANG".into(), "C".into()),
            ("TERM".into(), "xterm".into()),
        ];
        vars.extend(self.extra_env.iter().cloned());
        vars
    }

    /// A hermetic command.
    pub fn cmd(&self, program: impl AsRef<OsStr>, dir: &Path) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .envs(self.vars())
            .current_dir(dir)
            .stdin(Stdio::null());
        c
    }

    /// Runs git in `dir` and asserts success.
    #[track_caller]
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.git_out(dir, args);
        assert_eq!(
            out.code, 0,
            "git {args:?} failed:\n{}\n{}",
            out.stdout, out.stderr
        );
        out.stdout
    }

    /// Runs git in `dir`.
    pub fn git_out(&self, dir: &Path, args: &[&str]) -> Out {
        Out::from(self.cmd("git", dir).args(args).output().expect("git runs"))
    }

    /// A headless `git push` in `work/`: no controlling terminal (setsid).
    pub fn push(&self, args: &[&str]) -> Out {
        self.push_in(&self.work, args)
    }

    /// A headless `git push` in `dir`.
    pub fn push_in(&self, dir: &Path, args: &[&str]) -> Out {
        let mut all = vec!["push"];
        all.extend_from_slice(args);
        self.git_headless(dir, &all)
    }

    /// A headless git command in `dir` (no terminal: hooks cannot ask).
    pub fn git_headless<S: AsRef<OsStr>>(&self, dir: &Path, args: &[S]) -> Out {
        let out = self
            .cmd("setsid", dir)
            .arg("-w")
            .arg("git")
            .args(args)
            .output()
            .expect("setsid git runs");
        Out::from(out)
    }

    /// `command` through Claude Code's hook, run in `work/`.
    pub fn claude(&self, command: &str) -> Out {
        self.claude_in(&self.work, command)
    }

    /// Claude Code's pre-tool hook for a `Bash` command run in `dir` (a
    /// linked work tree, a clone).
    pub fn claude_in(&self, dir: &Path, command: &str) -> Out {
        let input = serde_json::json!({"session_id": "s-1", "cwd": dir,
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "permission_mode": "default", "tool_input": {"command": command}});
        self.vouch_stdin(&["agent-hook", "claude"], input.to_string().as_bytes())
    }

    /// Claude Code's post-tool hook for a `Bash` command that has run.
    pub fn claude_after(&self, command: &str) -> Out {
        let input = serde_json::json!({"session_id": "s-1", "cwd": self.work,
            "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": "", "stderr": "", "interrupted": false}});
        self.vouch_stdin(&["agent-hook", "claude"], input.to_string().as_bytes())
    }

    /// Runs vouch in `work/`.
    pub fn vouch(&self, args: &[&str]) -> Out {
        self.vouch_in(&self.work, args)
    }

    /// Runs vouch in `dir`, headless.
    pub fn vouch_in(&self, dir: &Path, args: &[&str]) -> Out {
        Out::from(
            self.cmd("setsid", dir)
                .arg("-w")
                .arg(vouch_bin())
                .args(args)
                .output()
                .expect("vouch runs"),
        )
    }

    /// Runs vouch with `input` on stdin.
    pub fn vouch_stdin(&self, args: &[&str], input: &[u8]) -> Out {
        let mut child = self
            .cmd("setsid", &self.work)
            .arg("-w")
            .arg(vouch_bin())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("vouch runs");
        // As git does: a hook may exit without reading its input.
        child.stdin.take().unwrap().write_all(input).ok();
        Out::from(child.wait_with_output().unwrap())
    }

    /// Writes `file` in `dir`, commits it, and returns the new commit id.
    pub fn commit(&self, dir: &Path, file: &str, message: &str) -> String {
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        let previous = fs::read_to_string(&path).unwrap_or_default();
        fs::write(&path, format!("{previous}{message}\n")).unwrap();
        self.git(dir, &["add", file]);
        self.git(dir, &["commit", "-q", "-m", message]);
        self.rev(dir, "HEAD")
    }

    /// `git rev-parse` in `dir`.
    pub fn rev(&self, dir: &Path, rev: &str) -> String {
        self.git(dir, &["rev-parse", rev]).trim().to_owned()
    }

    /// A commit on `parent` with `parent`'s tree, written in `work/` without
    /// touching its work tree or refs: its id.
    pub fn commit_on(&self, parent: &str, message: &str) -> String {
        let tree = self.rev(&self.work, &format!("{parent}^{{tree}}"));
        self.git(
            &self.work,
            &["commit-tree", &tree, "-p", parent, "-m", message],
        )
        .trim()
        .to_owned()
    }

    /// The remote's value of `name`, if it exists.
    pub fn remote_ref(&self, name: &str) -> Option<String> {
        let out = self.git_out(&self.remote, &["rev-parse", "--verify", "-q", name]);
        (out.code == 0).then(|| out.stdout.trim().to_owned())
    }

    /// A second clone of the remote (a colleague).
    pub fn colleague(&self) -> PathBuf {
        let dir = self.base().join("colleague");
        if !dir.exists() {
            self.git(&self.base(), &["clone", "-q", "remote.git", "colleague"]);
        }
        dir
    }

    /// A linked work tree of `work/` at `<base>/<branch>`, on a new `branch`.
    pub fn worktree(&self, branch: &str) -> PathBuf {
        let dir = self.base().join(branch);
        self.git(
            &self.work,
            &["worktree", "add", "-q", "-b", branch, dir.to_str().unwrap()],
        );
        dir
    }

    /// Installs vouch into `work/`.
    pub fn install(&self) {
        self.vouch(&["install"]).code(0);
    }

    /// Installs only `hooks` (comma-separated) into `work/`: tests of one
    /// door are not disturbed by the others (a rewind before a force push).
    pub fn install_hooks(&self, hooks: &str) {
        self.vouch(&["install", "--hooks", hooks]).code(0);
    }

    /// Installs `hook` from a copy of the binary, then removes the copy:
    /// the hook's baked path points nowhere and vouch is not on PATH. The
    /// copy is made with `cp`: one written by this process could be held
    /// open by a child another test thread forks, and executing it would
    /// fail with "Text file busy".
    pub fn install_from_vanishing_binary(&self, hook: &str) {
        let copy = self.install_from_copies(&[(vouch_bin(), "vouch")], hook);
        fs::remove_file(&copy).unwrap();
    }

    /// Copies `programs` (each from a path, to a name) into `bin/` with `cp`
    /// (see above) and installs `hook` from the first; returns its copy.
    pub fn install_from_copies(&self, programs: &[(PathBuf, &str)], hook: &str) -> PathBuf {
        let dir = self.base().join("bin");
        fs::create_dir_all(&dir).unwrap();
        for (from, name) in programs {
            let status = Command::new("cp")
                .arg(from)
                .arg(dir.join(name))
                .status()
                .unwrap();
            assert!(status.success());
        }
        let copy = dir.join(programs[0].1);
        let out = self
            .cmd(&copy, &self.work)
            .args(["install", "--hooks", hook])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        copy
    }

    /// The user config file.
    pub fn config_path(&self) -> PathBuf {
        self.base().join("config/vouch/config.toml")
    }

    /// Writes the user config.
    pub fn write_config(&self, text: &str) {
        let path = self.config_path();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// The state dir.
    pub fn state(&self) -> PathBuf {
        self.base().join("state/vouch")
    }

    /// vouch's snapshot store for `work/` (issue 36): a bare repository
    /// of its own under the state dir.
    pub fn snapshot_store(&self) -> PathBuf {
        let stores = self.state().join("snapshots");
        let mut found: Vec<PathBuf> = fs::read_dir(&stores)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        assert_eq!(
            found.len(),
            1,
            "one store under {}: {found:?}",
            stores.display()
        );
        found.remove(0)
    }

    /// git on the snapshot store, reading `work/`'s objects too (as vouch
    /// does).
    pub fn store_git(&self, args: &[&str]) -> String {
        let out = self
            .cmd("git", &self.work)
            .env("GIT_DIR", self.snapshot_store())
            .env(
                "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                self.work.join(".git/objects"),
            )
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?} on the store: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// The snapshots' ref names in the store (every work tree's), newest
    /// first; none when there is no store yet.
    pub fn snapshot_refs(&self) -> Vec<String> {
        if !self.state().join("snapshots").is_dir() {
            return Vec::new();
        }
        self.store_git(&[
            "for-each-ref",
            "--sort=-refname",
            "--format=%(refname)",
            "refs/snapshots",
        ])
        .lines()
        .map(str::to_owned)
        .collect()
    }

    /// The audit log, parsed.
    pub fn audit(&self) -> Vec<Value> {
        match fs::read_to_string(self.state().join("audit.jsonl")) {
            Ok(text) => text
                .lines()
                .map(|l| serde_json::from_str(l).expect("every audit line is JSON"))
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The last audit record of a decision (the agent door's lines for a
    /// snapshot and for a post-tool check are not decisions).
    #[track_caller]
    pub fn last_audit(&self) -> Value {
        self.audit()
            .into_iter()
            .rev()
            .find(is_decision)
            .expect("an audit line was written")
    }

    /// The last audit record written by `hook` (a commit in between may have logged too).
    #[track_caller]
    pub fn last_audit_of(&self, hook: &str) -> Value {
        self.audit()
            .into_iter()
            .rev()
            .filter(is_decision)
            .find(|r| r["hook"] == hook)
            .expect("an audit line of that hook was written")
    }

    /// Writes an executable script and returns its path.
    pub fn script(&self, name: &str, body: &str) -> PathBuf {
        let dir = self.base().join("scripts");
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// Configures one verifier program with `body` as its shell script.
    pub fn verifier(&self, name: &str, body: &str, extra: &str) -> String {
        let path = self.script(&format!("verifier-{name}"), body);
        format!(
            "[verifiers.{name}]\ncommand = \"{}\"\n{extra}\n",
            path.display()
        )
    }

    /// Rewinds local `main` by `n` commits (a force push then rewrites the remote).
    pub fn rewind(&self, n: usize) {
        self.git(&self.work, &["reset", "-q", "--hard", &format!("HEAD~{n}")]);
    }
}

/// A verifier that prints `status` with a summary.
pub fn verdict_body(status: &str) -> String {
    format!(
        "cat >/dev/null\necho '{{\"status\":\"{status}\",\"summary\":\"said {status}\"}}'\n[ {status} = fail ] && exit 1\nexit 0"
    )
}

/// Whether an audit line records a decision (not a snapshot's line or a
/// post-tool check's).
pub fn is_decision(r: &Value) -> bool {
    r["operation_type"] != "snapshot" && r["operation_type"] != "after-command"
}
