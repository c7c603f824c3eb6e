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
        let socket = env.base().join(format!("tmux-{}.sock", std::process::id()));
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
