//! `vouch-hook`: the pre-push hook's fast program (`vouch::fast`). No logic
//! lives here.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    vouch::fast::main(&args)
}
