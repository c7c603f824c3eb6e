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
//! The hook file is the gate's bytes followed by its tail
//! (`hooks/gate_tail.rs`, which the gate compiles too): flags, the vouch
//! binary's path and the rendered script. The gate reads the tail from its
//! own file. Everything that reads a hook file (`install::is_ours`,
//! the binary path for `git vouch status`, the refusal to chain vouch's own
//! hook) reads the script in the tail as it reads a script.
//!
//! Bytes in, bytes out, but for [`read_file`], which reads a file's tail.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

#[path = "../../hooks/gate_tail.rs"]
mod gate_tail;

pub use gate_tail::{MAGIC, MARKER, RECORD, has_marker_line, is_vouch_hook, recorded};

/// The gate program as this build compiled it; empty when it could not
/// (hooks are then `sh` scripts).
pub const PROGRAM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/gate"));

/// The hook file for a hook starting `bin`, with `script` run when `bin`
/// cannot start; `gated` for the reference-transaction hook. `None` when
/// this build has no gate, or a path or the script holds a NUL byte (write
/// the script then).
pub fn build(bin: &Path, script: &[u8], strict: bool, gated: bool) -> Option<Vec<u8>> {
    if PROGRAM.is_empty() {
        return None;
    }
    let mut out = PROGRAM.to_vec();
    let fields = gate_tail::Fields {
        bin: bin.as_os_str().as_bytes(),
        script,
        strict,
        gated,
    };
    gate_tail::write(&mut out, &fields)?;
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
    let fields = gate_tail::read(bytes)?;
    Some(Carried {
        script: fields.script,
        bin: Path::new(OsStr::from_bytes(fields.bin)),
        strict: fields.strict,
        gated: fields.gated,
    })
}

/// The script and binary of the gate file at `path`, reading only its tail.
pub fn read_file(path: &Path) -> Option<(Vec<u8>, PathBuf)> {
    let tail = gate_tail::read_end(&std::fs::File::open(path).ok()?)?;
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
