//! Real terminals for prompt tests: an isolated tmux server per test
//! (private socket, no user config, fixed size), polled with
//! `capture-pane` until the expected text appears (fish-shell's
//! isolated-tmux approach). No bare sleeps.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::TestEnv;

/// A tmux session running one shell command.
pub struct Tmux {
    socket: PathBuf,
}

/// True when tmux is installed; otherwise the calling test is skipped
/// (named, and a failure under `CI`: [`super::missing`]) and returns.
pub fn needed() -> bool {
    let found = available();
    if !found {
        super::missing("tmux");
    }
    found
}

/// True when tmux is installed.
pub fn available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

impl Tmux {
    /// Starts `command` (a shell line) in `dir` with the test's environment.
    pub fn start(env: &TestEnv, dir: &Path, command: &str) -> Self {
        // One socket per session: a server still shutting down keeps its own.
        static SESSIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let socket = env
            .base()
            .join(format!("tmux-{}-{n}.sock", std::process::id()));
        let mut line = String::from("env -i");
        for (k, v) in env.vars() {
            line.push(' ');
            line.push_str(&shell_words::quote(&format!("{k}={v}")));
        }
        let script = format!(
            "cd {} && {command}; echo \"[exit=$?]\"; sleep 600",
            shell_words::quote(&dir.display().to_string())
        );
        line.push_str(" sh -c ");
        line.push_str(&shell_words::quote(&script));
        let status = Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args([
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "120",
                "-y",
                "50",
                &line,
            ])
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("TERM", "xterm")
            .status()
            .expect("tmux runs");
        assert!(status.success(), "tmux new-session failed");
        Self { socket }
    }

    /// The screen, with scrollback.
    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(["capture-pane", "-p", "-J", "-S", "-500"])
            .output()
            .expect("tmux capture-pane runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen shows `text`; panics with the screen after a deadline.
    #[track_caller]
    pub fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        #[expect(
            clippy::disallowed_methods,
            reason = "the test runner's own environment"
        )]
        let poll = if std::env::var_os("CI").is_some() {
            200
        } else {
            50
        };
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {text:?}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(poll));
        }
    }

    /// A tmux format expanded for the pane (`#{cursor_flag}`).
    pub fn display(&self, format: &str) -> String {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(["display-message", "-p", "-t", "0", format])
            .output()
            .expect("tmux display-message runs");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Types `keys` (tmux key names or literal text).
    pub fn send(&self, keys: &str) {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(["send-keys", "-t", "0", keys])
            .status()
            .expect("tmux send-keys runs");
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .output()
            .ok();
    }
}

/// What a command run at a terminal left on the screen, and its exit code.
pub struct Typed {
    /// The screen.
    pub screen: String,
    /// The exit code.
    pub code: i32,
}

/// Runs `vouch <args>` in `dir` at a terminal (tmux, which CI installs),
/// waits for the typed confirmation, types `answer` and Enter, and returns
/// once vouch has exited. Commands that turn the guard down run only so.
#[track_caller]
pub fn vouch_typed(env: &TestEnv, dir: &Path, args: &[&str], answer: &str) -> Typed {
    assert!(
        available(),
        "tmux is needed to run `vouch {args:?}` at a terminal"
    );
    let mut line = shell_words::quote(&super::vouch_bin().display().to_string()).into_owned();
    for a in args {
        line.push(' ');
        line.push_str(&shell_words::quote(a));
    }
    let term = Tmux::start(env, dir, &line);
    term.wait_for("Type `yes`");
    if !answer.is_empty() {
        term.send(answer);
    }
    term.send("Enter");
    let screen = term.wait_for("[exit=");
    let code = screen
        .rsplit("[exit=")
        .next()
        .and_then(|rest| rest.split(']').next())
        .and_then(|n| n.parse().ok())
        .expect("an exit code on the screen");
    Typed { screen, code }
}

/// `vouch <args>` in `work/`, confirmed with `yes` at a terminal; asserts exit 0.
#[track_caller]
pub fn vouch_yes(env: &TestEnv, args: &[&str]) -> String {
    let typed = vouch_typed(env, &env.work, args, "yes");
    assert_eq!(typed.code, 0, "vouch {args:?}:\n{}", typed.screen);
    typed.screen
}
