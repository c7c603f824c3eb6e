//! The one boundary for calls that differ by operating system or CPU
//! (SPEC 3.1, issue 25): everything else in vouch is portable code.
//!
//! Two implementations, chosen at build time:
//!
//! - `linux`: Linux's own interface, `/proc`, for the process tree;
//! - `portable`: what every Unix has, `ps` (one call for a push, to read
//!   the `git push` command line; more only on slow paths such as a nested
//!   run), used on macOS and every other system, and on Linux when built
//!   with `RUSTFLAGS="--cfg vouch_portable"` so that this code is tested
//!   here.
//!
//! The compiled hook launcher (`crate::install::launcher`, hand-written x86-64
//! machine code) is an optional layer: [`COMPILED_HOOKS`] says whether this
//! build may write it; without it hooks are `sh` scripts. No implementation
//! decides anything the other would not: each only reads the same facts.

use std::path::PathBuf;

#[cfg(all(target_os = "linux", not(vouch_portable)))]
mod linux;
#[cfg(all(target_os = "linux", not(vouch_portable)))]
use linux as imp;

#[cfg(any(not(target_os = "linux"), vouch_portable))]
mod portable;
#[cfg(any(not(target_os = "linux"), vouch_portable))]
use portable as imp;

/// True when this build writes the compiled hook launcher (x86-64 Linux,
/// not the portable build); elsewhere hooks are `sh` scripts.
pub const COMPILED_HOOKS: bool = cfg!(all(
    target_os = "linux",
    target_arch = "x86_64",
    not(vouch_portable)
));

/// The name of this platform's implementation, for `status` and tests.
pub const NAME: &str = imp::NAME;

/// True when [`cmdline`] returns a process's arguments exactly (Linux's
/// `/proc/<pid>/cmdline`). The portable `ps` joins them with spaces, so an
/// `argv[0]` that holds spaces (`exec -a "git commit" git reset ...`) reads
/// as more words: there, the routine shortcuts of the reference-transaction
/// door can be talked into by a program that names itself so (the agent
/// door still judges such a command line before it runs).
pub const EXACT_ARGV: bool = imp::EXACT_ARGV;

/// The parent of process `pid`, if it can be read.
pub fn parent_of(pid: u32) -> Option<u32> {
    imp::parent_of(pid)
}

/// The command line of process `pid`, word by word, if it can be read.
/// The portable implementation splits what `ps` prints at blanks: a word
/// holding a blank is read as two.
pub fn cmdline(pid: u32) -> Option<Vec<String>> {
    imp::cmdline(pid)
}

/// The executable file of process `pid`, if it can be read.
pub fn exe(pid: u32) -> Option<PathBuf> {
    imp::exe(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_read_as_the_system_sees_it() {
        let me = std::process::id();
        let parent = std::os::unix::process::parent_id();
        assert_eq!(parent_of(me), Some(parent), "{NAME}");
        let argv = cmdline(me).expect("own command line");
        let exe_name = std::env::current_exe().unwrap();
        let first = std::path::Path::new(&argv[0]);
        assert_eq!(first.file_name(), exe_name.file_name(), "{NAME}: {argv:?}");
        assert_eq!(
            exe(me).and_then(|p| p.file_name().map(ToOwned::to_owned)),
            exe_name.file_name().map(ToOwned::to_owned),
            "{NAME}"
        );
        assert_eq!(parent_of(u32::MAX - 7), None);
        assert_eq!(cmdline(u32::MAX - 7), None);
    }
}
