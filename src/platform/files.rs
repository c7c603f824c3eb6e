//! File reads for the hooks' fast path, where every system call and every
//! page touched shows in a hook's cost: std's `read_to_end` on a file first
//! asks the file's size (`statx`, and the first `statx` of a process probes
//! the kernel with a second call), and its metadata calls use `statx` too.
//! These read and stat with one call each.

use std::fs::{File, Permissions};
use std::io::{self, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The whole file at `path` ([`read_from`]).
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    read_from(File::open(path)?)
}

/// The file at `path` if it holds at most `cap` bytes; `Ok(None)` when it
/// holds more ([`read_capped_from`]).
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Option<Vec<u8>>> {
    read_capped_from(File::open(path)?, cap)
}

/// What is left to read of `file`, to its end. A page is set aside first:
/// from an empty buffer, `read_to_end` reads 32 bytes, then 32, 64, 128
/// (five calls for a 250-byte git config, two this way).
pub fn read_from(file: File) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4096);
    // `Take` reads to the end without asking the size first.
    file.take(u64::MAX).read_to_end(&mut out)?;
    Ok(out)
}

/// What is left to read of `file` if it is at most `cap` bytes; `Ok(None)`
/// when there is more (read up to one byte past `cap`, whatever size the
/// file had when it was opened).
pub fn read_capped_from(file: File, cap: u64) -> io::Result<Option<Vec<u8>>> {
    let mut out = Vec::with_capacity(4096);
    file.take(cap.saturating_add(1)).read_to_end(&mut out)?;
    Ok((out.len() as u64 <= cap).then_some(out))
}

/// What [`open_no_wait`] found at a path.
pub enum Opened {
    /// A regular file, open for reading, and its length.
    File { file: File, len: u64 },
    /// A directory.
    Directory,
    /// Anything else: a named pipe or a device, where a read could wait
    /// forever. It is not read.
    Other,
}

/// Opens `path` for reading without waiting (opening a named pipe that no
/// one writes waits for a writer), and tells what it is by the descriptor
/// opened, so that nothing can be put in its place in between. A terminal
/// opened so never becomes vouch's controlling terminal.
pub fn open_no_wait(path: &Path) -> io::Result<Opened> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(
            (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY)
                .bits()
                .cast_signed(),
        )
        .open(path)?;
    let stat = rustix::fs::fstat(&file)?;
    Ok(match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
        rustix::fs::FileType::RegularFile => Opened::File {
            file,
            len: u64::try_from(stat.st_size).unwrap_or(0),
        },
        rustix::fs::FileType::Directory => Opened::Directory,
        _ => Opened::Other,
    })
}

/// The whole file at `path` when it is a regular file; `Ok(None)` for
/// anything else (a directory, a named pipe, a device), which is never
/// waited on ([`open_no_wait`]).
pub fn read_no_wait(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match open_no_wait(path)? {
        Opened::File { file, .. } => read_from(file).map(Some),
        Opened::Directory | Opened::Other => Ok(None),
    }
}

/// Whether nothing is at `path` (not even a dangling link); `None` when
/// that cannot be told (a permission error).
pub fn absent(path: &Path) -> Option<bool> {
    match rustix::fs::lstat(path) {
        Ok(_) => Some(false),
        Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR) => Some(true),
        Err(_) => None,
    }
}

/// Whether `path` is a directory (following links).
pub fn is_dir(path: &Path) -> bool {
    rustix::fs::stat(path).is_ok_and(|s| rustix::fs::FileType::from_raw_mode(s.st_mode).is_dir())
}

/// Whether `path` is a file (following links) with an execute bit, as git
/// asks of a hook.
pub fn is_executable(path: &Path) -> bool {
    rustix::fs::stat(path).is_ok_and(|s| {
        rustix::fs::FileType::from_raw_mode(s.st_mode).is_file() && s.st_mode & 0o111 != 0
    })
}

/// Standard input up to `max` bytes, appended to `out`, read without std's
/// buffered `Stdin` (whose first use allocates its 8 KiB buffer). What was
/// read before an error stays in `out`. `before_waiting` runs before a
/// read that would wait for the writer (nothing to read yet, and no end).
pub fn read_stdin(
    max: usize,
    out: &mut Vec<u8>,
    before_waiting: &mut dyn FnMut(),
) -> io::Result<()> {
    let mut buf = [0u8; 4096];
    let start = out.len();
    while out.len() - start < max {
        let room = (max - (out.len() - start)).min(buf.len());
        if !stdin_ready() {
            before_waiting();
        }
        match rustix::io::read(rustix::stdio::stdin(), &mut buf[..room]) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Whether a read of standard input returns at once: data or its end is
/// there (an error too, which the read then reports).
fn stdin_ready() -> bool {
    let stdin = rustix::stdio::stdin();
    let mut fds = [rustix::event::PollFd::new(
        &stdin,
        rustix::event::PollFlags::IN,
    )];
    // No timeout: this asks, it does not wait.
    matches!(rustix::event::poll(&mut fds, Some(&rustix::event::Timespec::default())), Ok(n) if n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_whole_capped_and_tells_absence() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"12345").unwrap();
        assert_eq!(read(&f).unwrap(), b"12345");
        assert_eq!(read_capped(&f, 5).unwrap(), Some(b"12345".to_vec()));
        assert_eq!(read_capped(&f, 4).unwrap(), None);
        assert!(read(&dir.path().join("none")).is_err());
        assert_eq!(absent(&f), Some(false));
        assert_eq!(absent(&dir.path().join("none")), Some(true));
        assert_eq!(absent(&f.join("below a file")), Some(true));
        std::os::unix::fs::symlink("nowhere", dir.path().join("dangling")).unwrap();
        assert_eq!(absent(&dir.path().join("dangling")), Some(false));
        assert!(is_dir(dir.path()));
        assert!(!is_dir(&f));
        assert!(!is_executable(&f));
        assert!(!is_executable(dir.path()));
        std::fs::set_permissions(&f, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        assert!(is_executable(&f));
    }

    #[test]
    fn opens_without_waiting_and_tells_what_it_opened() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"12345").unwrap();
        assert!(matches!(
            open_no_wait(&f).unwrap(),
            Opened::File { len: 5, .. }
        ));
        assert!(matches!(
            open_no_wait(dir.path()).unwrap(),
            Opened::Directory
        ));
        let missing = open_no_wait(&dir.path().join("none")).err().unwrap();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        // A named pipe no one writes: opened at once, and not a file.
        let pipe = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(open_no_wait(&pipe).unwrap(), Opened::Other));
        assert_eq!(read_no_wait(&f).unwrap(), Some(b"12345".to_vec()));
        assert_eq!(read_no_wait(&pipe).unwrap(), None);
        assert_eq!(read_no_wait(dir.path()).unwrap(), None);
    }
}

/// Replaces the file at `path` with `bytes` at once: written to a
/// temporary file beside it, flushed to disk, and renamed over it
/// (`tempfile`'s persist), so that a reader sees the old file or the new
/// one, never a half-written one. The new file keeps the old one's
/// permissions, or gets `mode` (`0o644`, `0o755`) when there was none. The
/// directory is created when missing.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let permissions =
        std::fs::metadata(path).map_or_else(|_| Permissions::from_mode(mode), |m| m.permissions());
    let mut file = tempfile::Builder::new()
        .prefix(".vouch-tmp-")
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().set_permissions(permissions)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod write_tests {
    use super::*;

    #[test]
    fn an_atomic_write_replaces_keeps_permissions_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("f.json");
        write_atomic(&path, b"one", 0o640).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o640);
        std::fs::set_permissions(&path, Permissions::from_mode(0o600)).unwrap();
        write_atomic(&path, b"two", 0o755).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(mode(&path), 0o600, "the old file's permissions are kept");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f.json"], "no temporary file is left");
    }
}
