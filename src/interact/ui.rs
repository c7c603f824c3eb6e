//! The only module that prints. Messages go to stderr (git shows a hook's
//! stderr; pre-push stdout is git's stdout), command output to stdout.
//! Colour follows `console`, which honours `NO_COLOR` and `CLICOLOR`.

#![expect(clippy::print_stderr, reason = "this module is where vouch prints")]

use console::style;

/// A line of command output, on stdout. A reader that went away
/// (`git vouch log | head`) ends the output quietly.
pub fn out(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

/// Text on stderr exactly as given (a protocol's message).
pub fn err_text(text: &str) {
    eprint!("{text}");
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

/// A spinner on stderr while the verifiers are asked (at a terminal only);
/// it stops and clears its line when dropped.
pub struct Spinner {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Spinner {
    /// Starts spinning with `text`.
    pub fn start(text: &str) -> Self {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let text = text.to_owned();
        let thread = std::thread::spawn(move || {
            let frames = ['|', '/', '-', '\\'];
            let mut i = 0;
            while !flag.load(Ordering::Relaxed) {
                eprint!("\r{} vouch: {text}...", frames[i % frames.len()]);
                i += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            eprint!("\r{}\r", " ".repeat(text.len() + 16));
        });
        Self {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().ok();
        }
    }
}
