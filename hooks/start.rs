//! A program's `main` without std's start-up, for the two programs every
//! hook starts: the gate (`hooks/gate.rs`) and vouch (`src/main.rs`), which
//! both compile this one file.
//!
//! glibc and macOS hand a program's arguments to the standard library
//! before `main` runs, so there the C library's `main` can be the program's
//! own, and std's start-up is skipped: it reads `/proc/self/maps` for the
//! main thread's stack and sets up a stack-overflow handler, about 0.17 ms
//! of a dynamically linked program's start here, paid on every hook run
//! (BENCHMARKS.md, issue 38 item 1, fifth session). What the programs need
//! of it, this `main` does: SIGPIPE ignored, and an exit through
//! `std::process::exit`, which flushes standard output as std's `main` does
//! on return. A stack overflow then ends the program without std's message.
//! Elsewhere, and in a test harness, std's `main` runs. The crate root says
//! `no_main` under the same condition:
//! `#![cfg_attr(all(not(test), any(target_env = "gnu", target_os = "macos")), no_main)]`.

/// Defines `main`, which exits with what `$run` (a function returning
/// `i32`) returns.
macro_rules! main_without_std_start {
    ($run:path) => {
        #[cfg(all(not(test), any(target_env = "gnu", target_os = "macos")))]
        #[expect(
            unsafe_code,
            reason = "the C library calls `main` by its name, and std's start-up, skipped, would have ignored SIGPIPE"
        )]
        #[unsafe(no_mangle)]
        extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
            unsafe extern "C" {
                safe fn signal(signum: i32, handler: usize) -> usize;
            }
            // As std's start-up does: a write to a closed pipe (a reader
            // gone, a child that ended without reading its input) fails with
            // EPIPE, which the program reports or ignores, instead of ending
            // it. SIGPIPE is 13 and SIG_IGN is 1 on Linux and macOS; std sets
            // it back to the default in every program it starts.
            signal(13, 1);
            std::process::exit($run())
        }

        #[cfg(not(all(not(test), any(target_env = "gnu", target_os = "macos"))))]
        fn main() {
            std::process::exit($run())
        }
    };
}
