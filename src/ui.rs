//! The only module that prints. Messages go to stderr (git shows a hook's
//! stderr; pre-push stdout is git's stdout), command output to stdout.
//! Colour follows `console`, which honours `NO_COLOR` and `CLICOLOR`.

#![expect(
    clippy::print_stderr,
    clippy::print_stdout,
    reason = "this module is where vouch prints"
)]

use console::style;

/// A line of command output, on stdout.
pub fn out(text: &str) {
    println!("{text}");
}

/// An informational line on stderr, prefixed `vouch:`.
pub fn info(text: &str) {
    eprintln!("{} {text}", style("vouch:").bold().for_stderr());
}

/// A warning on stderr.
pub fn warn(text: &str) {
    eprintln!(
        "{} {text}",
        style("vouch: warning:").yellow().bold().for_stderr()
    );
}

/// An error on stderr, with its cause chain.
pub fn error(err: &anyhow::Error) {
    eprintln!("{} {err}", style("vouch: error:").red().bold().for_stderr());
    for cause in err.chain().skip(1) {
        eprintln!("  caused by: {cause}");
    }
}

/// A block of text on stderr, as it is.
pub fn block(text: &str) {
    eprint!("{text}");
    if !text.ends_with('\n') {
        eprintln!();
    }
}
