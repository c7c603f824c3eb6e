//! `vouch-hook`: the pre-push hook's fast program (`vouch::fast`). No logic
//! lives here, only the region `git vouch install` fills in when it makes
//! the hook file a copy of this program (`vouch::baked`).

use std::process::ExitCode;

/// The baked region: the placeholder here, the install's data in a copy.
static BAKED: [u8; vouch::baked::LEN] = vouch::baked::PLACEHOLDER;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    // Read through an opaque reference: the bytes in the file are not the
    // ones the compiler saw.
    vouch::fast::main(&args, std::hint::black_box(&BAKED))
}
