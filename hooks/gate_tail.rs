//! The tail a hook gate's file ends with: what the gate starts, written by
//! vouch (`src/install/gate.rs`) and read by the gate (`hooks/gate.rs`),
//! which both compile this one file, so that they cannot disagree on it.
//!
//! The tail is the fields (flags, the vouch binary's path, then a newline
//! and the hook's rendered `sh` script, each ended by a NUL), their length
//! (4 bytes, little-endian) and [`MAGIC`]. The standard library only.
//!
//! Here too: the [`MARKER`] line every hook script vouch writes carries
//! (the script in a gate's tail as well), by which both tell vouch's hooks,
//! and the [`RECORD`] of the hooks vouch installed.

use std::os::unix::fs::FileExt;

/// The marker line every vouch hook script carries (`hooks/hook.sh`).
pub const MARKER: &str = "# vouch-managed-hook";

/// The file beside the hooks that lists those vouch installed
/// (`vouch::install::RECORD`).
pub const RECORD: &str = ".vouch-hooks";

/// The names the [`RECORD`] in the hooks directory `dir` lists, one a
/// line; `None` when it cannot be read.
pub fn recorded(dir: &std::path::Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(RECORD)).ok()?;
    Some(
        text.lines()
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

/// Whether one of the first five lines of `head` is the [`MARKER`] line.
pub fn has_marker_line(head: &[u8]) -> bool {
    head.split(|b| *b == b'\n')
        .take(5)
        .any(|l| l.starts_with(MARKER.as_bytes()))
}

/// Whether the hook file `file` is vouch's: a script with the [`MARKER`]
/// line among its first lines, or a gate whose tail's script has it.
pub fn is_vouch_hook(file: &std::fs::File) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(512);
    file.take(512).read_to_end(&mut head).is_ok()
        && (has_marker_line(&head)
            || read_end(file)
                .as_deref()
                .and_then(read)
                .is_some_and(|tail| has_marker_line(tail.script)))
}

/// What the tail ends with.
pub const MAGIC: &[u8; 16] = b"\0vouch-gate-v1\0\n";

/// The bytes after the fields: their length, then [`MAGIC`].
const END: usize = 4 + MAGIC.len();

/// What a gate's tail holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fields<'a> {
    /// The vouch binary's path.
    pub bin: &'a [u8],
    /// The rendered script.
    pub script: &'a [u8],
    /// Strict: a missing binary refuses.
    pub strict: bool,
    /// The reference-transaction gate.
    pub gated: bool,
}

/// Appends the tail of `fields` to `out`; `None` when a path or the
/// script holds a NUL byte, the path is empty, or the tail is too long.
pub fn write(out: &mut Vec<u8>, fields: &Fields) -> Option<()> {
    if fields.bin.is_empty() || fields.bin.contains(&0) || fields.script.contains(&0) {
        return None;
    }
    let start = out.len();
    if fields.strict {
        out.push(b's');
    }
    if fields.gated {
        out.push(b'g');
    }
    out.push(0);
    out.extend_from_slice(fields.bin);
    out.push(0);
    // The script starts on a line of its own, so that its marker line is a
    // line of the file.
    out.push(b'\n');
    out.extend_from_slice(fields.script);
    out.push(0);
    let len = u32::try_from(out.len() - start).ok()?;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(MAGIC);
    Some(())
}

/// The fields of `bytes` (a whole file, or its end from the tail on);
/// `None` for anything that does not end with a tail.
pub fn read(bytes: &[u8]) -> Option<Fields<'_>> {
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
    Some(Fields {
        bin,
        script,
        strict: flags.contains(&b's'),
        gated: flags.contains(&b'g'),
    })
}

/// The end of `file` from its tail on, read without the rest of the file;
/// `None` when it has no tail.
pub fn read_end(file: &std::fs::File) -> Option<Vec<u8>> {
    let len = file.metadata().ok()?.len();
    let mut end = [0u8; END];
    file.read_exact_at(&mut end, len.checked_sub(END as u64)?)
        .ok()?;
    if &end[4..] != MAGIC {
        return None;
    }
    let size = u64::from(u32::from_le_bytes(end[..4].try_into().ok()?)) + END as u64;
    let mut tail = vec![0; usize::try_from(size).ok()?];
    file.read_exact_at(&mut tail, len.checked_sub(size)?).ok()?;
    Some(tail)
}
