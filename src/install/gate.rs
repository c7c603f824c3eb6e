//! The hook gate: what `git vouch install` writes as a hook file, on every
//! platform where the build made one (`build.rs` compiles `hooks/gate.rs`).
//!
//! A hook that is a script pays for two programs on every commit and ref
//! update: `sh` (with the dynamic loader and the C library's start-up) and
//! then vouch. The gate is one small program, linked statically where the C
//! library allows it (Linux), that answers most reference-transaction calls
//! itself and otherwise starts vouch directly; it runs the same `sh` script
//! a script install writes when vouch cannot start (`hooks/gate.rs` says
//! what it does, in order).
//!
//! The hook file is the gate's bytes followed by its tail: flags, the vouch
//! binary's path and the rendered script, each ended by a NUL, then their
//! length (4 bytes, little-endian) and [`MAGIC`]. The gate reads the tail
//! from its own file. Everything that reads a hook file (`install::is_ours`,
//! the binary path for `git vouch status`, the refusal to chain vouch's own
//! hook) reads the script in the tail as it reads a script.
//!
//! Pure: bytes in, bytes out.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The gate program as this build compiled it; empty when it could not
/// (hooks are then `sh` scripts).
pub const PROGRAM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/gate"));

/// What a gate's tail ends with (`hooks/gate.rs` has the same).
pub const MAGIC: &[u8; 16] = b"\0vouch-gate-v1\0\n";

/// The hook file for a hook starting `bin`, with `script` run when `bin`
/// cannot start; `gated` for the reference-transaction hook. `None` when
/// this build has no gate, or a path or the script holds a NUL byte (write
/// the script then).
pub fn build(bin: &Path, script: &[u8], strict: bool, gated: bool) -> Option<Vec<u8>> {
    let bin = bin.as_os_str().as_bytes();
    if PROGRAM.is_empty() || bin.is_empty() || bin.contains(&0) || script.contains(&0) {
        return None;
    }
    let mut fields = Vec::with_capacity(script.len() + bin.len() + 8);
    if strict {
        fields.push(b's');
    }
    if gated {
        fields.push(b'g');
    }
    fields.push(0);
    fields.extend_from_slice(bin);
    fields.push(0);
    // The script starts on a line of its own, so that its marker line is a
    // line of the file.
    fields.push(b'\n');
    fields.extend_from_slice(script);
    fields.push(0);
    let len = u32::try_from(fields.len()).ok()?;
    let mut out = Vec::with_capacity(PROGRAM.len() + fields.len() + 20);
    out.extend_from_slice(PROGRAM);
    out.extend_from_slice(&fields);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(MAGIC);
    Some(out)
}

/// What a gate file carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Carried<'a> {
    /// The rendered script.
    pub script: &'a [u8],
    /// The vouch binary.
    pub bin: &'a Path,
    /// Strict: a missing binary refuses.
    pub strict: bool,
    /// The reference-transaction gate.
    pub gated: bool,
}

/// The tail of a gate file (`bytes`: the whole file); `None` for any other
/// file.
pub fn read(bytes: &[u8]) -> Option<Carried<'_>> {
    let rest = bytes.strip_suffix(MAGIC)?;
    let (rest, len) = rest.split_at(rest.len().checked_sub(4)?);
    let len = usize::try_from(u32::from_le_bytes(len.try_into().ok()?)).ok()?;
    let fields = rest.get(rest.len().checked_sub(len)?..)?;
    let mut parts = fields.splitn(4, |b| *b == 0);
    let flags = parts.next()?;
    let bin = parts.next()?;
    let script = parts.next()?.strip_prefix(b"\n")?;
    if bin.is_empty() || parts.next() != Some(&[][..]) {
        return None;
    }
    Some(Carried {
        script,
        bin: Path::new(OsStr::from_bytes(bin)),
        strict: flags.contains(&b's'),
        gated: flags.contains(&b'g'),
    })
}

/// The script and binary of the gate file at `path`, reading only its tail.
pub fn read_file(path: &Path) -> Option<(Vec<u8>, PathBuf)> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut end = [0u8; 20];
    file.read_exact_at(&mut end, len.checked_sub(20)?).ok()?;
    if &end[4..] != MAGIC {
        return None;
    }
    let fields = u64::from(u32::from_le_bytes(end[..4].try_into().ok()?));
    let start = len.checked_sub(20 + fields)?;
    let mut tail = vec![0; usize::try_from(fields + 20).ok()?];
    file.read_exact_at(&mut tail, start).ok()?;
    let carried = read(&tail)?;
    Some((carried.script.to_vec(), carried.bin.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_reads_back_and_nothing_else_reads_as_a_gate() {
        if PROGRAM.is_empty() {
            crate::platform::env::skip_test("the hook gate (build.rs could not build it)");
            return;
        }
        let script = b"#!/bin/sh\n# vouch-managed-hook: pre-push\nexit 0\n";
        for path in [
            "/usr/local/bin/git-vouch",
            "/opt/it's here/vouch",
            "/\n/vouch",
        ] {
            for (strict, gated) in [(false, false), (true, false), (false, true)] {
                let bytes = build(Path::new(path), script, strict, gated).unwrap();
                assert!(bytes.starts_with(PROGRAM));
                let carried = read(&bytes).unwrap();
                assert_eq!(
                    carried,
                    Carried {
                        script,
                        bin: Path::new(path),
                        strict,
                        gated
                    }
                );
                let dir = tempfile::tempdir().unwrap();
                let file = dir.path().join("pre-push");
                std::fs::write(&file, &bytes).unwrap();
                assert_eq!(
                    read_file(&file),
                    Some((script.to_vec(), PathBuf::from(path)))
                );
            }
        }
        assert!(build(Path::new("/a\0b"), script, false, false).is_none());
        assert!(build(Path::new("/a"), b"a\0b", false, false).is_none());
        assert_eq!(read(script), None);
        assert_eq!(read(PROGRAM), None);
        let whole = build(Path::new("/a"), script, false, false).unwrap();
        assert_eq!(read(&whole[..whole.len() - 1]), None);
    }
}
