//! Linux: the process tree from `/proc`. The standard library only: the
//! hook gate (`hooks/gate.rs`) compiles this file too, and reads its git
//! parent with it.

use std::path::PathBuf;

pub const NAME: &str = "linux";

pub const EXACT_ARGV: bool = true;

pub fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    let stat = String::from_utf8_lossy(&stat);
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

pub fn cmdline(pid: u32) -> Option<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    Some(super::words::nul_words(&raw, usize::MAX))
}

pub fn exe(pid: u32) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/exe")).ok()
}
