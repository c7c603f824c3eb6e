//! How often one process derived each fact that issue 39 item 3 says it
//! derives once: the config files read, the repository opened with
//! libgit2, the ref lines and the shell line parsed. Counted in debug
//! builds only (what the tests run); `git-vouch` prints the counts on exit
//! when `VOUCH_DEBUG_COUNTS` is set, and a release build counts nothing.

#[cfg(debug_assertions)]
use std::sync::atomic::{AtomicUsize, Ordering};

/// What is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// A config file read from disk (the user's or a repository's).
    ConfigFile,
    /// The repository opened with libgit2.
    RepoOpen,
    /// A hook's ref lines parsed (pre-push).
    RefLines,
    /// A shell command line parsed (the agent door).
    ShellParse,
}

const ALL: [(Count, &str); 4] = [
    (Count::ConfigFile, "config-files"),
    (Count::RepoOpen, "repo-opens"),
    (Count::RefLines, "ref-line-parses"),
    (Count::ShellParse, "shell-parses"),
];

#[cfg(debug_assertions)]
static COUNTS: [AtomicUsize; 4] = [const { AtomicUsize::new(0) }; 4];

/// Counts one more `what` (a debug build only).
#[inline]
pub fn add(what: Count) {
    #[cfg(debug_assertions)]
    COUNTS[what as usize].fetch_add(1, Ordering::Relaxed);
    #[cfg(not(debug_assertions))]
    let _ = what;
}

/// How many of `what` this process counted (0 in a release build).
fn get(what: Count) -> usize {
    #[cfg(debug_assertions)]
    return COUNTS[what as usize].load(Ordering::Relaxed);
    #[cfg(not(debug_assertions))]
    {
        let _ = what;
        0
    }
}

/// The counts in one line: `config-files=1 repo-opens=1 ...`.
pub fn report() -> String {
    ALL.iter()
        .map(|(what, name)| format!("{name}={}", get(*what)))
        .collect::<Vec<_>>()
        .join(" ")
}
