//! Reads the command line of the `git push` that runs the hook: the only
//! place a force flag is visible (`research/git-semantics.md` section 1.4).
//! Linux reads `/proc`; elsewhere the hint is unknown and vouch assumes force.

/// The argv of the nearest ancestor (up to three levels) that is a `git`
/// process, if it can be read.
pub fn git_ancestor_argv() -> Option<Vec<String>> {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..3 {
        let argv = read_cmdline(pid)?;
        if argv
            .first()
            .is_some_and(|a| crate::hooks::is_git_program(a))
        {
            return Some(argv);
        }
        pid = parent_of(pid)?;
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
        match parent_of(current) {
            Some(p) if p > 1 => current = p,
            _ => return false,
        }
    }
    false
}

fn read_cmdline(pid: u32) -> Option<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    Some(
        raw.split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}
