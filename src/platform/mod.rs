//! The one boundary for calls that differ by operating system or CPU
//! (SPEC 3.1, issue 25): everything else in vouch is portable code.
//!
//! The process tree (a process's parent, its command line, its executable)
//! is read from the kernel, without starting a program, through one call
//! per fact (issue 38 item 1):
//!
//! - `linux`: `/proc`;
//! - `macos`: `sysctl(KERN_PROCARGS2)` for the command line and libproc for
//!   the parent and the executable (the `libc` crate);
//! - `ps`: every other Unix, `ps` (POSIX), a program per call (about 5 ms
//!   here). Built on Linux too under `cfg(test)`, so that its reading is
//!   tested.
//!
//! Every platform's hook files are the same program, the gate
//! (`crate::install::gate`, compiled from Rust by `build.rs`), or an `sh`
//! script where the build could not compile it; only its link differs:
//! static where the C library's static archive allows it. The portable
//! build (`RUSTFLAGS="--cfg vouch_portable"`) links the gate as the system
//! links any program, so that the hooks macOS gets are tested here. No
//! implementation decides anything another would not: each only reads the
//! same facts.

use std::path::PathBuf;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as imp;

#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
use macos as imp;

pub mod counts;
pub mod env;
pub mod files;
#[cfg(any(test, not(any(target_os = "linux", target_os = "macos"))))]
mod ps;
#[cfg(any(test, target_os = "linux", target_os = "macos"))]
mod words;
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
use ps as imp;

/// What std's start-up does for the standard descriptors, where `main.rs`
/// skips it: a closed 0, 1 or 2 is opened on `/dev/null`, so that no file
/// vouch opens later (the audit log, a rescue ref's lock) takes its number
/// and receives what vouch prints.
pub fn open_standard_fds() {
    use std::os::fd::{AsRawFd, IntoRawFd};
    while let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        if null.as_raw_fd() > 2 {
            // 0, 1 and 2 are open: this one is closed again.
            break;
        }
        // Kept open as the standard descriptor it took, and handed on to
        // the programs vouch starts, as std's start-up leaves it (`File`
        // opens with close-on-exec).
        let _ = rustix::io::fcntl_setfd(&null, rustix::io::FdFlags::empty());
        let _ = null.into_raw_fd();
    }
}

/// The name of this platform's implementation, for `status` and tests.
pub const NAME: &str = imp::NAME;

/// True when [`cmdline`] returns a process's arguments exactly (Linux's
/// `/proc/<pid>/cmdline`, macOS's `KERN_PROCARGS2`). `ps` joins them with
/// spaces, so an `argv[0]` that holds spaces (`exec -a "git commit" git
/// reset ...`) reads as more words: there, the routine shortcuts of the
/// reference-transaction door can be talked into by a program that names
/// itself so (the agent door still judges such a command line before it
/// runs).
pub const EXACT_ARGV: bool = imp::EXACT_ARGV;

/// The parent of process `pid`, if it can be read.
pub fn parent_of(pid: u32) -> Option<u32> {
    imp::parent_of(pid)
}

/// The command line of process `pid`, word by word, if it can be read.
/// Where it is read through `ps`, what `ps` prints is split at blanks: a
/// word holding a blank is read as two.
pub fn cmdline(pid: u32) -> Option<Vec<String>> {
    imp::cmdline(pid)
}

/// The executable file of process `pid`, if it can be read.
pub fn exe(pid: u32) -> Option<PathBuf> {
    imp::exe(pid)
}

/// The executable path and the arguments in the bytes macOS's
/// `sysctl(KERN_PROCARGS2)` returns for a process: its `argc` (a native
/// `int`), the path it was started from ended by a NUL, NULs up to the
/// next word boundary, then `argc` arguments each ended by a NUL, then its
/// environment (not read). `None` for bytes not in that shape.
#[cfg(any(test, target_os = "macos"))]
fn procargs2(bytes: &[u8]) -> Option<(PathBuf, Vec<String>)> {
    use std::os::unix::ffi::OsStrExt;
    let (count, rest) = bytes.split_first_chunk::<4>()?;
    let count = usize::try_from(i32::from_ne_bytes(*count)).ok()?;
    let end = memchr::memchr(0, rest)?;
    let path = PathBuf::from(std::ffi::OsStr::from_bytes(&rest[..end]));
    let padded = &rest[end..];
    let words = &padded[padded.iter().position(|b| *b != 0).unwrap_or(padded.len())..];
    // The arguments end at the NUL after the `count`-th; the environment follows.
    let mut cut = 0;
    for _ in 0..count {
        cut += memchr::memchr(0, &words[cut..])? + 1;
    }
    Some((path, self::words::nul_words(&words[..cut], count)))
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
        let own: Vec<String> = std::env::args().collect();
        if EXACT_ARGV {
            assert_eq!(argv, own, "{NAME}");
        }
        assert_eq!(
            exe(me).and_then(|p| p.file_name().map(ToOwned::to_owned)),
            exe_name.file_name().map(ToOwned::to_owned),
            "{NAME}"
        );
        assert_eq!(parent_of(u32::MAX - 7), None);
        assert_eq!(cmdline(u32::MAX - 7), None);
    }

    /// A child whose arguments hold a space and an empty word, read by
    /// this platform's implementation: exactly where [`EXACT_ARGV`] says so.
    #[test]
    fn a_childs_command_line_is_read_word_for_word() {
        // `sh` waits on its input, which this test holds open.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "read x", "probe", "", "a b"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("sh runs");
        let pid = child.id();
        // The spawn returns once the exec has begun: the new command line
        // is in place a moment later.
        let mut argv = cmdline(pid);
        for _ in 0..400 {
            if argv.as_ref().is_some_and(|a| a.len() > 1) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
            argv = cmdline(pid);
        }
        drop(child.stdin.take());
        child.wait().ok();
        let argv = argv.expect("the child's command line");
        assert!(argv[0].ends_with("sh"), "{NAME}: {argv:?}");
        if EXACT_ARGV {
            assert_eq!(argv[1..], ["-c", "read x", "probe", "", "a b"], "{NAME}");
        } else {
            assert_eq!(argv[1..], ["-c", "read", "x", "probe", "a", "b"], "{NAME}");
        }
    }

    /// `KERN_PROCARGS2` as macOS lays it out (xnu `sysctl_procargsx`):
    /// argc, the exec path, NUL padding, the arguments, the environment.
    #[test]
    fn macos_procargs2_is_read_to_the_arguments_and_no_further() {
        let mut bytes = 4i32.to_ne_bytes().to_vec();
        bytes.extend_from_slice(b"/usr/bin/git\0\0\0\0\0");
        bytes.extend_from_slice(b"git\0push\0\0--force a\0");
        bytes.extend_from_slice(b"HOME=/Users/me\0PATH=/usr/bin\0\0\0");
        let (path, args) = procargs2(&bytes).unwrap();
        assert_eq!(path, PathBuf::from("/usr/bin/git"));
        assert_eq!(args, ["git", "push", "", "--force a"]);
        // No arguments at all.
        let mut none = 0i32.to_ne_bytes().to_vec();
        none.extend_from_slice(b"/bin/x\0\0\0HOME=/\0");
        assert_eq!(procargs2(&none), Some((PathBuf::from("/bin/x"), vec![])));
        // Cut short: fewer arguments than argc, no path, no argc.
        let mut short = 3i32.to_ne_bytes().to_vec();
        short.extend_from_slice(b"/bin/x\0x\0y");
        assert_eq!(procargs2(&short), None);
        assert_eq!(procargs2(&4i32.to_ne_bytes()), None);
        assert_eq!(procargs2(b"\x01"), None);
        assert_eq!(procargs2(&(-1i32).to_ne_bytes()), None);
    }
}
