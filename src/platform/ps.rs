//! Every Unix but Linux and macOS: the process tree from `ps` (POSIX), a
//! program started per call.

use std::path::PathBuf;
use std::process::{Command, Stdio};

pub const NAME: &str = "ps";

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

#[cfg(test)]
mod tests {
    use super::*;

    /// `ps` reads this process as the kernel does, less the word
    /// boundaries (on Linux, where another implementation is in use, this
    /// keeps the one other systems get tested).
    #[test]
    fn ps_reads_this_process() {
        if Command::new("ps").arg("-p1").output().is_err() {
            crate::platform::env::skip_test("ps");
            return;
        }
        const { assert!(!EXACT_ARGV) };
        assert_eq!(NAME, "ps");
        let me = std::process::id();
        assert_eq!(parent_of(me), Some(std::os::unix::process::parent_id()));
        let argv = cmdline(me).expect("own command line");
        let own = std::env::current_exe().unwrap();
        assert_eq!(
            std::path::Path::new(&argv[0]).file_name(),
            own.file_name(),
            "{argv:?}"
        );
        assert_eq!(exe(me), Some(own));
        let parent = exe(std::os::unix::process::parent_id()).expect("the parent's program");
        assert!(!parent.as_os_str().is_empty());
        assert_eq!(parent_of(u32::MAX - 7), None);
        assert_eq!(cmdline(u32::MAX - 7), None);
    }
}
