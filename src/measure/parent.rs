//! Reads the command line of the `git push` that runs the hook: the only
//! place a force flag is visible (`research/git-semantics.md` section 1.4).
//! The process tree is read through [`crate::platform`] (`/proc` on Linux,
//! `ps` elsewhere); where nothing can be read the hint is unknown and vouch
//! assumes force.
//!
//! Also proves nesting: a program vouch starts (a verifier, the notify
//! command) may run git, and the hooks that git runs must not judge again
//! (they would ask the same verifier, without end). The marker vouch gives
//! those programs, `VOUCH_NESTED=<pid>:<token>`, only counts when `<pid>` is
//! an ancestor, is a vouch binary, and wrote `<token>` (random, fresh per
//! run) into `<state dir>/nested/<pid>` for as long as those programs run
//! ([`Nested`]). A variable a script exports by hand, even with the pid of
//! an ancestor, turns nothing off.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::platform;

/// The marker of the programs this process starts, while armed.
static ARMED: Mutex<Option<(String, usize)>> = Mutex::new(None);

/// While alive, the programs this vouch starts carry a marker the hooks
/// they cause can prove ([`is_nested`]); dropping it withdraws the proof.
pub struct Nested {
    path: Option<PathBuf>,
}

impl Nested {
    /// Arms the marker: a fresh random token written to
    /// `<state>/nested/<pid>`. Arming again while armed shares that token.
    pub fn arm(state: &Path) -> Self {
        let mut armed = ARMED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, count)) = armed.as_mut() {
            *count += 1;
            return Self { path: None };
        }
        let pid = std::process::id();
        let path = state.join("nested").join(pid.to_string());
        let Some(token) = random_token() else {
            return Self { path: None };
        };
        let written = std::fs::create_dir_all(path.parent().unwrap_or(state))
            .and_then(|()| std::fs::write(&path, &token));
        if written.is_err() {
            // Without the file nothing is proven: nested hooks judge again.
            return Self { path: None };
        }
        *armed = Some((format!("{pid}:{token}"), 1));
        Self { path: Some(path) }
    }
}

impl Drop for Nested {
    fn drop(&mut self) {
        let mut armed = ARMED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match armed.as_mut() {
            Some((_, count)) if *count > 1 => *count -= 1,
            _ => {
                *armed = None;
                if let Some(path) = &self.path {
                    std::fs::remove_file(path).ok();
                }
            }
        }
    }
}

/// The `VOUCH_NESTED` value for a program this vouch starts: the armed
/// marker, or this pid alone (which proves nothing) when none is armed.
pub fn nested_marker() -> String {
    ARMED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .as_ref()
        .map_or_else(|| std::process::id().to_string(), |(v, _)| v.clone())
}

/// True when `marker` (a `VOUCH_NESTED` value) proves this process runs
/// under a vouch that armed it: the pid is an ancestor, its executable is
/// vouch, and `<state>/nested/<pid>` holds the same token.
pub fn is_nested(marker: &str, state: &Path) -> bool {
    let Some((pid, token)) = marker.split_once(':') else {
        return false;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    if token.len() < 32 || !has_ancestor(pid) || !is_vouch(pid) {
        return false;
    }
    std::fs::read_to_string(state.join("nested").join(pid.to_string()))
        .is_ok_and(|written| written == token)
}

/// True when the executable of `pid` is a vouch binary (its file name
/// starts with `vouch`, or it is the very file this process runs).
fn is_vouch(pid: u32) -> bool {
    let Some(exe) = platform::exe(pid) else {
        return false;
    };
    let same = platform::exe(std::process::id()).is_some_and(|me| me == exe);
    same || exe.file_name().is_some_and(|n| {
        n.to_string_lossy().starts_with("vouch") || n.to_string_lossy().starts_with("git-vouch")
    })
}

/// 128 random bits, hex, from the kernel.
fn random_token() -> Option<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .ok()?;
    Some(crate::input::text::hex(&bytes))
}

/// The argv of the nearest ancestor (up to three levels) whose executable
/// is git, read as git reads it ([`crate::input::git_command::git_argv`]), if it can be
/// read. The executable is checked, not the name the process gives itself:
/// any program can set its `argv[0]` (`exec -a git ... commit`), and a git
/// started under another name still runs as git (issue 26 item 5).
///
/// Read once per process: the push door's fast path and the whole door
/// both ask (on a Unix other than Linux and macOS each read starts `ps`).
pub fn git_ancestor_argv() -> Option<Vec<String>> {
    static ARGV: std::sync::OnceLock<Option<Vec<String>>> = std::sync::OnceLock::new();
    ARGV.get_or_init(read_git_ancestor_argv).clone()
}

fn read_git_ancestor_argv() -> Option<Vec<String>> {
    crate::input::git_command::git_argv(platform::cmdline(git_ancestor_pid()?)?)
}

/// The pid of the nearest ancestor (up to three levels) whose executable
/// is git: the git command that runs this hook (its parent, or its
/// grandparent where the hook gate started vouch as its child). Looked
/// for once per process.
pub fn git_ancestor_pid() -> Option<u32> {
    static PID: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *PID.get_or_init(find_git_ancestor)
}

fn find_git_ancestor() -> Option<u32> {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..3 {
        if platform::exe(pid).is_some_and(|exe| crate::input::git_command::is_git_executable(&exe))
        {
            return Some(pid);
        }
        pid = platform::parent_of(pid)?;
    }
    None
}

/// Programs that only start another (a shell running one command, a
/// wrapper): the process an agent's hook runs under is the nearest
/// ancestor that is none of these.
const GO_BETWEENS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "env", "setsid", "nice", "nohup",
    "timeout", "stdbuf", "ionice", "chrt", "taskset", "busybox",
    // `git vouch agent-hook` in an agent's settings: git starts git-vouch
    // as its child and waits.
    "git",
];

/// The agent process this hook runs under (issue 35 item 1): the nearest
/// ancestor, up to six levels, that is neither a shell nor a wrapper, with
/// its executable; `None` when none can be read. The commands the agent
/// runs are its descendants while it lives ([`runs_under`]).
pub fn agent_process() -> Option<(u32, PathBuf)> {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..6 {
        if pid <= 1 {
            return None;
        }
        let exe = platform::exe(pid)?;
        let name = exe
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = name.strip_suffix(" (deleted)").unwrap_or(&name);
        if !GO_BETWEENS.contains(&name) {
            return Some((pid, exe));
        }
        pid = platform::parent_of(pid)?;
    }
    None
}

/// True when process `pid`, running `exe`, is an ancestor of this one (up
/// to sixteen levels): this process runs under that agent.
pub fn runs_under(pid: u32, exe: &Path) -> bool {
    if pid <= 1 {
        return false;
    }
    let mut current = std::os::unix::process::parent_id();
    for _ in 0..16 {
        if current == pid {
            return platform::exe(pid).is_some_and(|e| e == exe);
        }
        match platform::parent_of(current) {
            Some(p) if p > 1 => current = p,
            _ => return false,
        }
    }
    false
}

/// The executable of the nearest ancestor (up to four levels: husky runs
/// a hook through two shells) that is git: the git running this hook.
pub fn git_ancestor_exe() -> Option<PathBuf> {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..4 {
        if let Some(exe) =
            platform::exe(pid).filter(|e| crate::input::git_command::is_git_executable(e))
        {
            return Some(exe);
        }
        pid = platform::parent_of(pid)?;
    }
    None
}

/// True when `pid` is this process's parent or one of its ancestors (up
/// to eight levels).
pub fn has_ancestor(pid: u32) -> bool {
    let mut current = std::os::unix::process::parent_id();
    for _ in 0..8 {
        if current == pid {
            return true;
        }
        match platform::parent_of(current) {
            Some(p) if p > 1 => current = p,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_armed_marker_lives_as_long_as_its_guard() {
        let state = tempfile::tempdir().unwrap();
        let pid = std::process::id();
        assert_eq!(nested_marker(), pid.to_string(), "nothing armed");
        let file = state.path().join("nested").join(pid.to_string());
        {
            let _outer = Nested::arm(state.path());
            let marker = nested_marker();
            let (p, token) = marker.split_once(':').unwrap();
            assert_eq!(p, pid.to_string());
            assert_eq!(token.len(), 32);
            assert_eq!(std::fs::read_to_string(&file).unwrap(), token);
            {
                let _inner = Nested::arm(state.path());
                assert_eq!(nested_marker(), marker, "arming again shares the token");
            }
            assert!(file.exists(), "the outer guard still holds it");
            // This process is not its own ancestor: the marker proves nothing here.
            assert!(!is_nested(&marker, state.path()));
        }
        assert!(!file.exists());
        assert_eq!(nested_marker(), pid.to_string());
    }

    #[test]
    fn markers_set_by_hand_prove_nothing() {
        let state = tempfile::tempdir().unwrap();
        let parent = std::os::unix::process::parent_id();
        let token = "0123456789abcdef0123456789abcdef";
        // A token file forged for an ancestor that is not vouch (the test runner's parent).
        let dir = state.path().join("nested");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(parent.to_string()), token).unwrap();
        for marker in [
            "1".to_owned(),
            parent.to_string(),
            format!("{parent}:short"),
            format!("{parent}:{token}"),
            format!("x:{token}"),
            String::new(),
        ] {
            assert!(!is_nested(&marker, state.path()), "{marker:?}");
        }
    }
}
