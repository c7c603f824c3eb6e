//! Every other Unix (macOS first): the process tree from `ps` (POSIX).

use std::path::PathBuf;
use std::process::{Command, Stdio};

pub const NAME: &str = "portable";

pub const EXACT_ARGV: bool = false;

/// One field of `ps` for `pid`, trimmed; `None` when there is no such
/// process or `ps` cannot run.
fn ps(field: &str, pid: u32) -> Option<String> {
    let out = Command::new("ps")
        .args(["-ww", "-o", &format!("{field}="), "-p", &pid.to_string()])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (!text.is_empty()).then_some(text)
}

pub fn parent_of(pid: u32) -> Option<u32> {
    ps("ppid", pid)?.parse().ok()
}

pub fn cmdline(pid: u32) -> Option<Vec<String>> {
    Some(
        ps("args", pid)?
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
    )
}

pub fn exe(pid: u32) -> Option<PathBuf> {
    if pid == std::process::id() {
        return std::env::current_exe().ok();
    }
    // macOS prints the executable's path; procps its name (at most 15
    // bytes), which is what the callers compare.
    ps("comm", pid).map(PathBuf::from)
}
