//! Copies of `vouch-hook` that an earlier vouch wrote as the pre-push hook
//! (x86-64 Linux, before the fast program was folded into git-vouch): a
//! program carrying a region of [`LEN`] bytes that names the vouch binary
//! it hands pushes to, the installed `vouch-hook` it was copied from, that
//! file's identity, and the hook's script. Such a copy hands every push to
//! the binary once its `vouch-hook` is gone (an upgrade removes it), with
//! `VOUCH_HOOK_STALE` set, and git-vouch writes the hook again as it is
//! written now (`install::repair::refresh_old_copy`); `install` and
//! `status` read a copy as vouch's hook.
//!
//! Pure: bytes in, facts out. The region is the mark, a version byte, then
//! the fields, each ended by a NUL, then zeros.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// What the region starts with.
pub const MAGIC: &[u8; 16] = b"\0vouch-hook-bake";

/// The region's size: two paths and the script, with room to spare.
pub const LEN: usize = 16 * 1024;

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

/// The region an earlier vouch baked for `baked`, as it wrote it: the
/// format this module reads, for the tests of the upgrade (no copy is
/// made any more). `None` when a field holds a NUL or they do not fit.
pub fn region(baked: &Baked) -> Option<Vec<u8>> {
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
    (region.len() <= LEN).then(|| {
        region.resize(LEN, 0);
        region
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn baked() -> Baked<'static> {
        Baked {
            bin: Path::new("/home/me/.cargo/bin/git-vouch"),
            fast: Path::new("/home/me/.cargo/bin/vouch-hook"),
            identity: b"2049:77:3446480:1764052140.5",
            script: b"#!/bin/sh\n# vouch hook\nstrict=1\n",
        }
    }

    /// An old copy: the program's bytes with its region filled in.
    fn copy() -> Vec<u8> {
        let mut p = b"\x7fELF code and data ".to_vec();
        // The mark alone, as a literal elsewhere in the program might be.
        p.extend_from_slice(MAGIC);
        p.extend_from_slice(b" more ");
        p.extend_from_slice(&region(&baked()).unwrap());
        p.extend_from_slice(b" the end");
        p
    }

    #[test]
    fn an_old_copy_is_read_wherever_its_region_lies() {
        assert_eq!(find(&copy()), Some(baked()));
        assert_eq!(find(b"\x7fELF no region"), None);
        let nul = Baked {
            bin: Path::new("/a\0b"),
            ..baked()
        };
        assert_eq!(region(&nul), None);
        let long = vec![b'#'; LEN];
        assert_eq!(
            region(&Baked {
                script: &long,
                ..baked()
            }),
            None
        );
    }

    #[test]
    fn a_region_in_another_layout_or_cut_short_is_not_read() {
        let copy = copy();
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
