//! macOS: the process tree from the kernel, without starting a program:
//! `sysctl(KERN_PROCARGS2)` for a command line, libproc
//! (`proc_pidinfo`, `proc_pidpath`) for the parent and the executable.
//!
//! The only `unsafe` in vouch: three calls into the C library, each
//! handed a buffer it owns and its exact size.
#![expect(
    unsafe_code,
    reason = "the process table is read through the C library (issue 38 item 1)"
)]

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

pub const NAME: &str = "macos";

pub const EXACT_ARGV: bool = true;

pub fn parent_of(pid: u32) -> Option<u32> {
    let pid = libc::c_int::try_from(pid).ok()?;
    let size = libc::c_int::try_from(std::mem::size_of::<libc::proc_bsdinfo>()).ok()?;
    let mut info = std::mem::MaybeUninit::<libc::proc_bsdinfo>::zeroed();
    // SAFETY: `info` is a `proc_bsdinfo` of `size` bytes; the call writes
    // at most `size` bytes and returns how many.
    let n = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTBSDINFO,
            0,
            info.as_mut_ptr().cast(),
            size,
        )
    };
    // SAFETY: zeroed, then filled whole (`n == size`): every field is an integer.
    (n == size).then(|| unsafe { info.assume_init() }.pbi_ppid)
}

/// The bytes of `sysctl(KERN_PROCARGS2)` for `pid`, at most the system's
/// `KERN_ARGMAX`.
fn procargs(pid: u32) -> Option<Vec<u8>> {
    let pid = libc::c_int::try_from(pid).ok()?;
    let mut argmax: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>();
    let mut mib = [libc::CTL_KERN, libc::KERN_ARGMAX];
    // SAFETY: `argmax` is an `int` and `len` its size.
    let ok = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            2,
            (&raw mut argmax).cast(),
            &raw mut len,
            std::ptr::null_mut(),
            0,
        )
    } == 0;
    let mut buf = vec![0u8; usize::try_from(argmax).ok().filter(|n| ok && *n > 0)?];
    let mut len = buf.len();
    let mut mib = [libc::CTL_KERN, libc::KERN_PROCARGS2, pid];
    // SAFETY: `buf` has `len` bytes; the call writes at most `len` and
    // sets `len` to what it wrote.
    let ok = unsafe {
        libc::sysctl(
            mib.as_mut_ptr(),
            3,
            buf.as_mut_ptr().cast(),
            &raw mut len,
            std::ptr::null_mut(),
            0,
        )
    } == 0;
    ok.then(|| {
        buf.truncate(len);
        buf
    })
}

pub fn cmdline(pid: u32) -> Option<Vec<String>> {
    super::procargs2(&procargs(pid)?).map(|(_, args)| args)
}

pub fn exe(pid: u32) -> Option<PathBuf> {
    let pid = libc::c_int::try_from(pid).ok()?;
    let mut buf = vec![0u8; usize::try_from(libc::PROC_PIDPATHINFO_MAXSIZE).ok()?];
    let size = u32::try_from(buf.len()).ok()?;
    // SAFETY: `buf` has `size` bytes; the call returns the path's length.
    let n = unsafe { libc::proc_pidpath(pid, buf.as_mut_ptr().cast(), size) };
    let n = usize::try_from(n).ok().filter(|n| *n > 0)?;
    buf.truncate(n);
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(&buf)))
}
