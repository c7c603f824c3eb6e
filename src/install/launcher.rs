//! The compiled hook launcher: what `git vouch install` writes as a hook file on
//! x86-64 Linux instead of the bare `sh` script.
//!
//! A hook that is a script pays for two programs on every commit and push:
//! `sh` (with the dynamic loader and the C library's start-up) and then
//! vouch. A hook that is a link to the binary pays for one, but git skips a
//! link whose binary is gone without a word. The launcher is a static
//! program of a few hundred bytes of code that does one `execve` of the
//! vouch binary (the path baked in at install time, with git's own
//! arguments, input and environment: vouch sees the hook's path as its
//! `argv[0]` and dispatches on its name, as a linked hook does). It has no C
//! library, so starting it costs one `execve` and nothing else.
//!
//! When that `execve` fails (the binary was moved, deleted, or lost its
//! execute bit), the launcher runs `/bin/sh -c SCRIPT <hook path> <args>`,
//! where SCRIPT is the same `hooks/hook.sh` text a script install writes:
//! it looks for vouch on `PATH`, then warns and allows, or refuses in
//! strict mode, and runs a chained `<hook>.local`, exactly as before. When
//! even `/bin/sh` cannot start, it says so on stderr and exits 0 (1 when
//! strict).
//!
//! The file carries the script's text whole, with its marker line near the
//! start, so everything that reads a hook file (`install::is_ours`, the
//! baked binary path for `git vouch status`, the refusal to chain vouch's own
//! hook) reads a launcher as it reads a script.
//!
//! The binary answers a pre-push fast-forward before any other start-up
//! work (`doors::pre_push::quick`), as it passes most ref updates
//! (`doors::reftx::quick`). Launchers an earlier vouch wrote for
//! `pre-push` may name its fast program (`vouch-hook`, no longer built)
//! first: that `execve` fails once the program is gone, and they go on as
//! above.
//!
//! This is a pure byte builder: it writes an ELF executable by hand (headers,
//! then data, then two dozen instructions), so it needs no compiler at install
//! time. Other systems get the gate (`crate::install::gate`), compiled from
//! Rust, which decides the same.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The name of the memory file the reference-transaction gate hands a
/// hook's input over in.
pub const INPUT_NAME: &str = "vouch-hook-input";

/// Where the kernel maps the file (a classic non-PIE executable's address).
const BASE: u64 = 0x40_0000;
/// The ELF header, then two program headers.
const EHDR_LEN: u16 = 64;
const PHDR_LEN: u16 = 56;
const HEADERS_LEN: usize = 64 + 2 * 56;

/// Linux x86-64 system call numbers.
const SYS_WRITE: u32 = 1;
const SYS_EXECVE: u32 = 59;
const SYS_EXIT: u32 = 60;

/// The data the code refers to.
#[derive(Clone, Copy)]
enum Label {
    Bin,
    Sh,
    DashC,
    Script,
    Msg,
    /// The gate's memfd name.
    Memfd,
    /// The gate's refusal.
    InputMsg,
}

/// x86-64 machine code with `rip`-relative references to the data, fixed
/// up once the layout is known.
#[derive(Default)]
struct Code {
    bytes: Vec<u8>,
    fixups: Vec<(usize, Label)>,
}

impl Code {
    fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.bytes.extend_from_slice(b);
        self
    }

    /// `lea <reg>, [rip + label]`; `modrm` selects the register
    /// (0x3d rdi, 0x35 rsi, 0x05 rax).
    fn lea(&mut self, modrm: u8, label: Label) -> &mut Self {
        self.raw(&[0x48, 0x8d, modrm]);
        self.fixups.push((self.bytes.len(), label));
        self.raw(&[0; 4])
    }

    /// `mov <reg32>, imm32`; `op` selects the register (0xb8 eax, 0xba edx, 0xbf edi).
    fn mov_imm(&mut self, op: u8, imm: u32) -> &mut Self {
        self.raw(&[op]).raw(&imm.to_le_bytes())
    }

    fn syscall(&mut self, nr: u32) -> &mut Self {
        self.mov_imm(0xb8, nr).raw(&[0x0f, 0x05])
    }
}

/// The reference-transaction gate's bytes (`install/gate.s`, assembled),
/// cut around its two references to data and the message length.
const GATE_HEAD: [u8; 0x82] = [
    0x48, 0x89, 0xe3, 0x48, 0x8b, 0x04, 0x24, 0x48, 0x83, 0xf8, 0x02, 0x0f, 0x82, 0xb4, 0x01, 0x00,
    0x00, 0x48, 0x81, 0xec, 0x00, 0x10, 0x01, 0x00, 0x48, 0x8b, 0x73, 0x08, 0x48, 0x89, 0xe7, 0x48,
    0x8d, 0x8c, 0x24, 0xf0, 0x0f, 0x00, 0x00, 0x8a, 0x06, 0x84, 0xc0, 0x74, 0x12, 0x88, 0x07, 0x48,
    0xff, 0xc6, 0x48, 0xff, 0xc7, 0x48, 0x39, 0xcf, 0x72, 0xed, 0xe9, 0x86, 0x01, 0x00, 0x00, 0x48,
    0xb8, 0x2e, 0x6c, 0x6f, 0x63, 0x61, 0x6c, 0x00, 0x00, 0x48, 0x89, 0x07, 0x48, 0x89, 0xe7, 0x31,
    0xf6, 0xb8, 0x15, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x48, 0x85, 0xc0, 0x0f, 0x84, 0x64, 0x01, 0x00,
    0x00, 0x48, 0x8b, 0x73, 0x10, 0x48, 0xb8, 0x70, 0x72, 0x65, 0x70, 0x61, 0x72, 0x65, 0x64, 0x48,
    0x39, 0x06, 0x0f, 0x85, 0x44, 0x01, 0x00, 0x00, 0x80, 0x7e, 0x08, 0x00, 0x0f, 0x85, 0x3a, 0x01,
    0x00, 0x00,
];
const GATE_MID: [u8; 0x19d - 0x89] = [
    0xbe, 0x01, 0x00, 0x00, 0x00, 0xb8, 0x3f, 0x01, 0x00, 0x00, 0x0f, 0x05, 0x48, 0x85, 0xc0, 0x0f,
    0x88, 0x27, 0x01, 0x00, 0x00, 0x49, 0x89, 0xc6, 0x4c, 0x8d, 0xa4, 0x24, 0x00, 0x10, 0x00, 0x00,
    0x45, 0x31, 0xed, 0x31, 0xff, 0x4b, 0x8d, 0x34, 0x2c, 0xba, 0xf8, 0xff, 0x00, 0x00, 0x4c, 0x29,
    0xea, 0x74, 0x6b, 0x31, 0xc0, 0x0f, 0x05, 0x48, 0x85, 0xc0, 0x78, 0x62, 0x74, 0x05, 0x49, 0x01,
    0xc5, 0xeb, 0xe0, 0x4c, 0x89, 0xe6, 0x4b, 0x8d, 0x0c, 0x2c, 0x49, 0xb8, 0x72, 0x65, 0x66, 0x73,
    0x2f, 0x68, 0x65, 0x61, 0x49, 0xb9, 0x72, 0x65, 0x66, 0x73, 0x2f, 0x74, 0x61, 0x67, 0x49, 0xba,
    0x72, 0x65, 0x66, 0x73, 0x2f, 0x73, 0x74, 0x61, 0x49, 0xbb, 0x72, 0x65, 0x66, 0x73, 0x2f, 0x76,
    0x6f, 0x75, 0x48, 0x39, 0xce, 0x0f, 0x83, 0xb8, 0x00, 0x00, 0x00, 0x48, 0x8b, 0x06, 0x4c, 0x39,
    0xc0, 0x74, 0x14, 0x4c, 0x39, 0xc8, 0x74, 0x0f, 0x4c, 0x39, 0xd0, 0x74, 0x0a, 0x4c, 0x39, 0xd8,
    0x74, 0x05, 0x48, 0xff, 0xc6, 0xeb, 0xdb, 0xe8, 0x4c, 0x00, 0x00, 0x00, 0xeb, 0x24, 0xe8, 0x45,
    0x00, 0x00, 0x00, 0x31, 0xff, 0x4c, 0x89, 0xe6, 0xba, 0xf8, 0xff, 0x00, 0x00, 0x31, 0xc0, 0x0f,
    0x05, 0x48, 0x85, 0xc0, 0x78, 0x59, 0x74, 0x0a, 0x49, 0x89, 0xc5, 0xe8, 0x28, 0x00, 0x00, 0x00,
    0xeb, 0xe1, 0x44, 0x89, 0xf7, 0x31, 0xf6, 0x31, 0xd2, 0xb8, 0x08, 0x00, 0x00, 0x00, 0x0f, 0x05,
    0x48, 0x85, 0xc0, 0x75, 0x3a, 0x44, 0x89, 0xf7, 0x31, 0xf6, 0xb8, 0x21, 0x00, 0x00, 0x00, 0x0f,
    0x05, 0x48, 0x85, 0xc0, 0x75, 0x29, 0xeb, 0x54, 0x4d, 0x89, 0xe7, 0x4d, 0x85, 0xed, 0x74, 0x1d,
    0x44, 0x89, 0xf7, 0x4c, 0x89, 0xfe, 0x4c, 0x89, 0xea, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x05,
    0x48, 0x85, 0xc0, 0x7e, 0x09, 0x49, 0x01, 0xc7, 0x49, 0x29, 0xc5, 0xeb, 0xde, 0xc3, 0x58, 0xbf,
    0x02, 0x00, 0x00, 0x00,
];
const GATE_TAIL: [u8; 0x1c8 - 0x1a9] = [
    0xb8, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xbf, 0x01, 0x00, 0x00, 0x00, 0xb8, 0x3c, 0x00, 0x00,
    0x00, 0x0f, 0x05, 0x31, 0xff, 0xb8, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x05, 0x48, 0x89, 0xdc,
];

/// The gate in front of the reference-transaction launcher: what vouch
/// decides without opening the repository (every state but `prepared`,
/// and every transaction that names no branch, tag or stash), decided
/// without starting vouch. The input read is handed to vouch through a
/// memfd. See `install/gate.s`.
fn gate(c: &mut Code, refusal_len: u32) {
    c.raw(&GATE_HEAD)
        .lea(0x3d, Label::Memfd) // lea rdi, [rip + memname]
        .raw(&GATE_MID)
        .lea(0x35, Label::InputMsg) // lea rsi, [rip + failmsg]
        .mov_imm(0xba, refusal_len) // mov edx, len
        .raw(&GATE_TAIL);
}

/// The program: exec the binary; else `sh -c SCRIPT`; else say so and exit.
fn program(c: &mut Code, exit_code: u32, msg_len: u32) {
    c.raw(&[0x48, 0x8b, 0x04, 0x24]) // mov rax, [rsp]            argc
        .raw(&[0x48, 0x8d, 0x74, 0x24, 0x08]) // lea rsi, [rsp+8]        argv
        .raw(&[0x48, 0x8d, 0x54, 0xc6, 0x08]) // lea rdx, [rsi+rax*8+8]  envp
        .lea(0x3d, Label::Bin) // rdi = the vouch binary
        .syscall(SYS_EXECVE) // execve(bin, argv, envp): returns only on failure
        // argv for sh, built over the argc slot: "/bin/sh", "-c", SCRIPT, argv[0], ...
        .raw(&[0x48, 0x83, 0xec, 0x10]) // sub rsp, 16
        .lea(0x3d, Label::Sh)
        .raw(&[0x48, 0x89, 0x3c, 0x24]) // mov [rsp], rdi
        .lea(0x05, Label::DashC)
        .raw(&[0x48, 0x89, 0x44, 0x24, 0x08]) // mov [rsp+8], rax
        .lea(0x05, Label::Script)
        .raw(&[0x48, 0x89, 0x44, 0x24, 0x10]) // mov [rsp+16], rax
        .raw(&[0x48, 0x89, 0xe6]) // mov rsi, rsp
        .syscall(SYS_EXECVE) // execve("/bin/sh", argv', envp)
        .mov_imm(0xbf, 2) // edi = stderr
        .lea(0x35, Label::Msg)
        .mov_imm(0xba, msg_len)
        .syscall(SYS_WRITE)
        .mov_imm(0xbf, exit_code)
        .syscall(SYS_EXIT);
}

/// What a launcher starts: the vouch binary, and the rendered
/// `hooks/hook.sh` run when the binary cannot start.
pub struct Targets<'a> {
    /// The vouch binary.
    pub bin: &'a Path,
    /// The script.
    pub script: &'a [u8],
}

/// The launcher for a hook: `what` is what the hook guards (for the
/// last-resort message); `gated` puts the reference-transaction gate in
/// front. `None` when a path cannot be written into it (a NUL byte), or
/// the script has one: write the script then.
pub fn build(targets: &Targets, strict: bool, what: &str, gated: bool) -> Option<Vec<u8>> {
    let bin = targets.bin.as_os_str().as_bytes();
    let script = targets.script;
    if bin.contains(&0) || script.contains(&0) {
        return None;
    }
    let msg = format!(
        "vouch: neither the vouch binary nor /bin/sh can start: this {what} is {}\n",
        if strict { "refused" } else { "NOT checked" }
    );
    let msg_len = u32::try_from(msg.len()).ok()?;
    // Data first (so the script's marker line is near the start of the
    // file), each string ended by a NUL; the script starts on a line of its own.
    let mut data = vec![b'\n'];
    let at = |data: &mut Vec<u8>, s: &[u8], nul: bool| {
        let off = HEADERS_LEN + data.len();
        data.extend_from_slice(s);
        if nul {
            data.push(0);
        }
        off
    };
    let script_at = at(&mut data, script, true);
    let bin_at = at(&mut data, bin, true);
    let sh_at = at(&mut data, b"/bin/sh", true);
    let dash_c_at = at(&mut data, b"-c", true);
    let msg_at = at(&mut data, msg.as_bytes(), false);
    let refusal = format!(
        "vouch: cannot hand this ref update's input to vouch: the {what} is refused (`git vouch doctor` checks the hooks)\n"
    );
    let (memfd_at, refusal_at) = if gated {
        (
            at(&mut data, INPUT_NAME.as_bytes(), true),
            at(&mut data, refusal.as_bytes(), false),
        )
    } else {
        (0, 0)
    };
    let mut code = Code::default();
    if gated {
        gate(&mut code, u32::try_from(refusal.len()).ok()?);
    }
    program(&mut code, u32::from(strict), msg_len);
    // Padding before the code moves the entry point and the file size, the
    // only header fields that vary: pick one that puts no newline byte in
    // the headers, so the marker line stays among the file's first lines.
    for pad in 0..256 {
        let code_at = HEADERS_LEN + data.len() + pad;
        let mut out = headers(code_at, code_at + code.bytes.len());
        if out.contains(&b'\n') {
            continue;
        }
        out.extend_from_slice(&data);
        out.resize(code_at, 0);
        let mut bytes = code.bytes.clone();
        for &(pos, label) in &code.fixups {
            let target = match label {
                Label::Bin => bin_at,
                Label::Sh => sh_at,
                Label::DashC => dash_c_at,
                Label::Script => script_at,
                Label::Msg => msg_at,
                Label::Memfd => memfd_at,
                Label::InputMsg => refusal_at,
            };
            // rip is the end of the 4-byte displacement (each lea ends there).
            let rip = code_at + pos + 4;
            let rel = i32::try_from(i64::try_from(target).ok()? - i64::try_from(rip).ok()?).ok()?;
            bytes[pos..pos + 4].copy_from_slice(&rel.to_le_bytes());
        }
        out.extend_from_slice(&bytes);
        return Some(out);
    }
    None
}

/// The script and the binary a launcher carries (its data starts with a
/// newline, the script and the binary's path, each ended by a NUL); `None`
/// for a file that is not a launcher.
pub fn read(bytes: &[u8]) -> Option<(&[u8], PathBuf)> {
    if !bytes.starts_with(b"\x7fELF") {
        return None;
    }
    let data = bytes.get(HEADERS_LEN..)?.strip_prefix(b"\n")?;
    let mut parts = data.splitn(3, |b| *b == 0);
    let script = parts.next()?;
    let bin = parts.next()?;
    parts.next()?;
    (!bin.is_empty()).then(|| (script, PathBuf::from(std::ffi::OsStr::from_bytes(bin))))
}

/// The ELF header and program headers of a static executable whose code
/// starts at file offset `entry` and whose file is `len` bytes: one
/// read-and-execute segment holding the whole file, and a stack that is not
/// executable.
fn headers(entry: usize, len: usize) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADERS_LEN);
    let u16_ = |h: &mut Vec<u8>, v: u16| h.extend_from_slice(&v.to_le_bytes());
    let u32_ = |h: &mut Vec<u8>, v: u32| h.extend_from_slice(&v.to_le_bytes());
    let u64_ = |h: &mut Vec<u8>, v: u64| h.extend_from_slice(&v.to_le_bytes());
    let len = len as u64;
    // e_ident: ELF, 64-bit, little-endian, version 1, System V ABI.
    h.extend_from_slice(b"\x7fELF\x02\x01\x01\x00");
    h.extend_from_slice(&[0; 8]);
    u16_(&mut h, 2); // e_type: ET_EXEC
    u16_(&mut h, 0x3e); // e_machine: x86-64
    u32_(&mut h, 1); // e_version
    u64_(&mut h, BASE + entry as u64); // e_entry
    u64_(&mut h, u64::from(EHDR_LEN)); // e_phoff
    u64_(&mut h, 0); // e_shoff: no sections
    u32_(&mut h, 0); // e_flags
    u16_(&mut h, EHDR_LEN); // e_ehsize
    u16_(&mut h, PHDR_LEN); // e_phentsize
    u16_(&mut h, 2); // e_phnum
    u16_(&mut h, 0); // e_shentsize
    u16_(&mut h, 0); // e_shnum
    u16_(&mut h, 0); // e_shstrndx
    // PT_LOAD, readable and executable: the whole file at BASE.
    u32_(&mut h, 1);
    u32_(&mut h, 5);
    u64_(&mut h, 0); // p_offset
    u64_(&mut h, BASE); // p_vaddr
    u64_(&mut h, BASE); // p_paddr
    u64_(&mut h, len); // p_filesz
    u64_(&mut h, len); // p_memsz
    u64_(&mut h, 0x1000); // p_align
    // PT_GNU_STACK, readable and writable (not executable).
    u32_(&mut h, 0x6474_e551);
    u32_(&mut h, 6);
    for _ in 0..6 {
        u64_(&mut h, 0);
    }
    debug_assert_eq!(h.len(), HEADERS_LEN);
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_point_at_the_code_and_hold_no_newline() {
        let script = b"#!/bin/sh\n# vouch-managed-hook: pre-push\nexit 0\n";
        for path in ["/usr/local/bin/vouch", "/opt/it's here/vouch", "/\n/vouch"] {
            let targets = Targets {
                bin: Path::new(path),
                script,
            };
            let bytes = build(&targets, false, "push", false).unwrap();
            assert!(bytes.starts_with(b"\x7fELF\x02\x01\x01"));
            assert!(!bytes[..HEADERS_LEN].contains(&b'\n'), "{path}");
            let entry = u64::from_le_bytes(bytes[24..32].try_into().unwrap()) - BASE;
            let filesz = u64::from_le_bytes(bytes[96..104].try_into().unwrap());
            assert_eq!(filesz, bytes.len() as u64);
            // The code is last, and starts with `mov rax, [rsp]`.
            assert_eq!(
                &bytes[usize::try_from(entry).unwrap()..][..4],
                &[0x48, 0x8b, 0x04, 0x24]
            );
            let tail = &bytes[usize::try_from(entry).unwrap()..];
            let mut c = Code::default();
            program(&mut c, 0, 1);
            assert_eq!(tail.len(), c.bytes.len());
            // The binary's path is there as a C string, and reads back.
            let mut needle = path.as_bytes().to_vec();
            needle.push(0);
            assert!(bytes.windows(needle.len()).any(|w| w == needle));
            assert_eq!(read(&bytes), Some((&script[..], PathBuf::from(path))));
        }
        let bad = Targets {
            bin: Path::new("/a\0b"),
            script,
        };
        assert!(build(&bad, false, "push", false).is_none());
        assert_eq!(read(script), None);
    }

    // What a launcher does when git runs it, beside the gate, is in
    // `tests/it/gate.rs`.

    /// The gate's bytes are `install/gate.s` assembled (binutils: always
    /// under `CI`, said when missing elsewhere).
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn the_gate_is_its_listing_assembled() {
        let dir = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/install/gate.s");
        let obj = dir.path().join("gate.o");
        let bin = dir.path().join("gate.bin");
        let ran = std::process::Command::new("as")
            .args(["--64", "-o"])
            .arg(&obj)
            .arg(&src)
            .status()
            .is_ok_and(|s| s.success())
            && std::process::Command::new("objcopy")
                .args(["-O", "binary", "-j", ".text"])
                .arg(&obj)
                .arg(&bin)
                .status()
                .is_ok_and(|s| s.success());
        if !ran {
            // Under CI the listing is always checked (`.ci/run` installs
            // binutils); elsewhere a missing assembler is said.
            crate::platform::env::skip_test("as");
            return;
        }
        let assembled = std::fs::read(&bin).unwrap();
        let mut c = Code::default();
        gate(&mut c, 0x1234_5678);
        // The listing's data references are placeholders (rip + the end of
        // the listing); compare everything else.
        let mut ours = c.bytes.clone();
        for &(pos, _) in &c.fixups {
            ours[pos..pos + 4].copy_from_slice(&assembled[pos..pos + 4]);
        }
        assert_eq!(ours, assembled);
    }

    /// The refs the gate starts vouch for are the ones vouch guards: its
    /// four 8-byte constants (`movabs r8` to `r11`) are the first 8 bytes
    /// of each entry of `git_command::GUARDED_REFS`, so every guarded ref holds
    /// one of them (the gate may start vouch for more, never for fewer).
    #[test]
    fn the_gate_passes_what_the_guarded_refs_table_leaves_alone() {
        let mut c = Code::default();
        gate(&mut c, 0);
        let mut constants: Vec<[u8; 8]> = Vec::new();
        for reg in [0xb8u8, 0xb9, 0xba, 0xbb] {
            let at = c
                .bytes
                .windows(2)
                .position(|w| w == [0x49, reg])
                .expect("movabs of a constant into r8, r9, r10 or r11");
            constants.push(c.bytes[at + 2..at + 10].try_into().unwrap());
        }
        let mut table: Vec<[u8; 8]> = crate::input::git_command::GUARDED_REFS
            .iter()
            .map(|g| g.as_bytes()[..8].try_into().expect("8 bytes or longer"))
            .collect();
        constants.sort_unstable();
        table.sort_unstable();
        assert_eq!(
            constants, table,
            "install/gate.s and git_command::GUARDED_REFS differ"
        );
        // And the gate's scan finds each guarded ref's prefix in its name.
        for name in [
            "refs/heads/main",
            "refs/tags/v1",
            "refs/stash",
            "refs/vouch/rescue/main/20261126T101500Z",
        ] {
            assert!(
                constants
                    .iter()
                    .any(|k| name.as_bytes().windows(8).any(|w| w == k)),
                "{name}"
            );
        }
    }
}
