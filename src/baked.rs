//! The data `git vouch install` bakes into the pre-push hook: on x86-64
//! Linux the hook file is a copy of the fast program (`vouch-hook`,
//! [`crate::fast`]), so that git starts one program per push, not a
//! launcher and then the program. The program carries a region of
//! [`LEN`] bytes, [`PLACEHOLDER`] as built; the copy has it filled in:
//!
//! - the vouch binary it hands every push it does not answer to;
//! - the installed fast program it is a copy of, and that file's identity
//!   when it was copied ([`crate::files::identity`]): when the installed
//!   program changes (an upgrade), the copy stops answering, and the vouch
//!   binary it hands the push to refreshes it;
//! - the rendered `hooks/hook.sh`, run by `/bin/sh` when the vouch binary
//!   cannot start (it looks for vouch on `PATH`, then warns, or refuses in
//!   strict mode), exactly as the launcher runs it.
//!
//! Pure: bytes in, bytes out. The region is the mark, a version byte, then
//! the fields, each ended by a NUL, then zeros.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// What the region starts with.
pub const MAGIC: &[u8; 16] = b"\0vouch-hook-bake";

/// The region's size: two paths and the script, with room to spare.
pub const LEN: usize = 16 * 1024;

/// The region as the fast program is built: the mark, then zeros (not
/// baked: the installed program, started by a launcher).
pub const PLACEHOLDER: [u8; LEN] = {
    let mut region = [0; LEN];
    let mut i = 0;
    while i < MAGIC.len() {
        region[i] = MAGIC[i];
        i += 1;
    }
    region
};

/// The version of the fields' layout.
const VERSION: u8 = 1;

/// What a copy of the fast program carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Baked<'a> {
    /// The vouch binary the copy hands pushes to.
    pub bin: &'a Path,
    /// The installed fast program the copy was made from.
    pub fast: &'a Path,
    /// That program's identity when it was copied.
    pub identity: &'a [u8],
    /// The rendered hook script (strictness baked in).
    pub script: &'a [u8],
}

impl Baked<'_> {
    /// Whether the installed fast program, whose identity is now `current`
    /// (`None`: it is gone), is still the one this copy was made from. A
    /// copy that is not answers nothing: it hands every push to the vouch
    /// binary, which makes the copy again.
    pub fn is_copy_of(&self, current: Option<&str>) -> bool {
        current.is_some_and(|id| id.as_bytes() == self.identity)
    }
}

/// The data in `region` (the program's own region, or one found in a
/// file); `None` when it is not baked, or not in this layout.
pub fn read(region: &[u8]) -> Option<Baked<'_>> {
    let rest = region.strip_prefix(MAGIC)?;
    let (&version, rest) = rest.split_first()?;
    if version != VERSION {
        return None;
    }
    let mut fields = rest.splitn(5, |b| *b == 0);
    let bin = fields.next()?;
    let fast = fields.next()?;
    let identity = fields.next()?;
    let script = fields.next()?;
    // The last field ended by its NUL, and the rest of the region zeros:
    // a mark that only happens to start some other bytes is not a region.
    if fields.next()?.iter().any(|b| *b != 0) {
        return None;
    }
    if bin.is_empty() || fast.is_empty() || identity.is_empty() {
        return None;
    }
    Some(Baked {
        bin: Path::new(OsStr::from_bytes(bin)),
        fast: Path::new(OsStr::from_bytes(fast)),
        identity,
        script,
    })
}

/// The data baked into a file's bytes (a hook file that is a copy of the
/// fast program), wherever its region lies.
pub fn find(file: &[u8]) -> Option<Baked<'_>> {
    memchr::memmem::find_iter(file, MAGIC)
        .find_map(|at| read(file.get(at..at + LEN).unwrap_or(&file[at..])))
}

/// `program` (the fast program's bytes) with `baked` written into its
/// region; `None` when the program has no placeholder, or more than one,
/// or a field holds a NUL, or the fields do not fit.
pub fn bake(program: &[u8], baked: &Baked) -> Option<Vec<u8>> {
    let mut at = memchr::memmem::find_iter(program, MAGIC)
        .filter(|&i| program.get(i..i + LEN) == Some(&PLACEHOLDER[..]));
    let (Some(at), None) = (at.next(), at.next()) else {
        return None;
    };
    let fields = [
        baked.bin.as_os_str().as_bytes(),
        baked.fast.as_os_str().as_bytes(),
        baked.identity,
        baked.script,
    ];
    if fields.iter().any(|f| f.contains(&0)) {
        return None;
    }
    let mut region = MAGIC.to_vec();
    region.push(VERSION);
    for field in fields {
        region.extend_from_slice(field);
        region.push(0);
    }
    if region.len() > LEN {
        return None;
    }
    let mut out = program.to_vec();
    out[at..at + region.len()].copy_from_slice(&region);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program() -> Vec<u8> {
        let mut p = b"\x7fELF code and data ".to_vec();
        // The mark alone, as a literal elsewhere in the program might be.
        p.extend_from_slice(MAGIC);
        p.extend_from_slice(b" more ");
        p.extend_from_slice(&PLACEHOLDER);
        p.extend_from_slice(b" the end");
        p
    }

    fn baked() -> Baked<'static> {
        Baked {
            bin: Path::new("/home/me/.cargo/bin/git-vouch"),
            fast: Path::new("/home/me/.cargo/bin/vouch-hook"),
            identity: b"2049:77:3446480:1764052140.5",
            script: b"#!/bin/sh\n# vouch hook\nstrict=1\n",
        }
    }

    #[test]
    fn a_baked_copy_reads_back_and_keeps_its_length() {
        let program = program();
        assert_eq!(read(&PLACEHOLDER), None, "the placeholder is not baked");
        assert_eq!(find(&program), None);
        let copy = bake(&program, &baked()).unwrap();
        assert_eq!(copy.len(), program.len());
        assert_eq!(find(&copy), Some(baked()));
        let id = std::str::from_utf8(baked().identity).unwrap();
        assert!(baked().is_copy_of(Some(id)));
        assert!(!baked().is_copy_of(Some("2049:78:3446480:1764052140.5")));
        assert!(!baked().is_copy_of(None));
        assert!(copy.ends_with(b" the end"));
        // Everything but the region is the program's.
        let at = program.len() - LEN - 8;
        assert_eq!(copy[..at], program[..at]);
    }

    #[test]
    fn what_cannot_be_baked_is_refused() {
        // No placeholder, or two: no copy.
        assert_eq!(bake(b"\x7fELF", &baked()), None);
        let mut two = program();
        two.extend_from_slice(&PLACEHOLDER);
        assert_eq!(bake(&two, &baked()), None);
        // A NUL in a field, or fields longer than the region.
        let nul = Baked {
            bin: Path::new("/a\0b"),
            ..baked()
        };
        assert_eq!(bake(&program(), &nul), None);
        let long = vec![b'#'; LEN];
        let too_long = Baked {
            script: &long,
            ..baked()
        };
        assert_eq!(bake(&program(), &too_long), None);
    }

    #[test]
    fn a_region_in_another_layout_or_cut_short_is_not_read() {
        let copy = bake(&program(), &baked()).unwrap();
        let at = memchr::memmem::find_iter(&copy, MAGIC).last().unwrap();
        let mut other = copy.clone();
        other[at + MAGIC.len()] = VERSION + 1;
        assert_eq!(find(&other), None);
        // Other bytes after the fields, where the region has zeros.
        let mut tail = copy.clone();
        tail[at + LEN - 1] = b'x';
        assert_eq!(find(&tail), None);
        // Cut inside the script: its NUL is gone.
        let script = at + memchr::memmem::find(&copy[at..], b"strict=1").unwrap();
        assert_eq!(find(&copy[..script]), None);
    }
}
