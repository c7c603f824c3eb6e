//! The terminal: deciding whether anyone is there, and asking them.
//!
//! Interactive means `/dev/tty` opens and the environment is not CI or
//! `VOUCH_HEADLESS=1` (SPEC section 3.3). Hook stdin belongs to git, so the
//! prompt reads and writes `/dev/tty`. The question is answered with a
//! whole line (`y` or `yes`, then Enter); anything else is No, and so are
//! Ctrl-C, SIGTERM, end of file, or a terminal that goes away. Keys typed
//! before the question are discarded, and the answer's line is read whole,
//! so nothing of it reaches the shell afterwards.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use console::Term;
use rustix::event::{PollFd, PollFlags, poll};
use rustix::termios::{self, InputModes, LocalModes, OptionalActions, QueueSelector};

use crate::platform::env::{Env, vars};

/// Something that can ask a person: the terminal, or a script in tests.
pub trait Prompter {
    /// Shows `text` to the person.
    fn show(&self, text: &str);
    /// Asks `question`; `false` unless the person says yes.
    fn confirm(&self, question: &str) -> bool;
    /// Shows `question` and reads the whole line typed up to Enter; `None`
    /// when the terminal goes away or the person presses Ctrl-C.
    fn read_line(&self, question: &str) -> Option<String>;
}

/// The controlling terminal.
pub struct Tty {
    term: Term,
    file: File,
}

fn open_tty() -> io::Result<Tty> {
    let file = OpenOptions::new().read(true).write(true).open("/dev/tty")?;
    let term = Term::read_write_pair(file.try_clone()?, file.try_clone()?);
    if term.is_term() {
        Ok(Tty { term, file })
    } else {
        Err(io::Error::other("/dev/tty is not a terminal"))
    }
}

/// The terminal, when vouch may prompt: not CI, not `VOUCH_HEADLESS`, and
/// `/dev/tty` opens (it does not for GUI clients, agents, cron).
pub fn interactive(env: &dyn Env) -> Option<Tty> {
    if env.flag(vars::VOUCH_HEADLESS) || env.flag(vars::CI) {
        return None;
    }
    open_tty().ok()
}

impl Prompter for Tty {
    fn show(&self, text: &str) {
        for line in text.lines() {
            self.term.write_line(line).ok();
        }
    }

    fn confirm(&self, question: &str) -> bool {
        self.read_answer(&format!("{question} [y/N] "))
            .is_ok_and(|line| is_yes(&line))
    }

    fn read_line(&self, question: &str) -> Option<String> {
        self.read_answer(question).ok()
    }
}

/// True for `y` or `yes` (any case, surrounding blanks ignored): nothing else
/// is a yes.
pub fn is_yes(line: &str) -> bool {
    let answer = line.trim();
    answer.eq_ignore_ascii_case("y") || answer.eq_ignore_ascii_case("yes")
}

impl Tty {
    /// Asks `question` and reads one whole line. Ctrl-C and SIGTERM end the
    /// wait with an error (the caller's No); the terminal is left as found.
    fn read_answer(&self, question: &str) -> io::Result<String> {
        // Outside a prompt the signals keep their default action (the
        // handler below emulates it); at the prompt they only wake the wait.
        static OUTSIDE: AtomicBool = AtomicBool::new(true);
        static DEFAULT: Once = Once::new();
        const SIGNALS: [i32; 2] = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];
        DEFAULT.call_once(|| {
            for sig in SIGNALS {
                signal_hook::flag::register_conditional_default(sig, &OUTSIDE).ok();
            }
        });
        let (wake, woken) = UnixStream::pair()?;
        OUTSIDE.store(false, Ordering::SeqCst);
        let ids: Vec<_> = SIGNALS
            .into_iter()
            .filter_map(|sig| {
                let end = wake.try_clone().ok()?;
                signal_hook::low_level::pipe::register(sig, end).ok()
            })
            .collect();
        drop(wake);
        let answer = self.read_cooked(question, &woken);
        for id in ids {
            signal_hook::low_level::unregister(id);
        }
        OUTSIDE.store(true, Ordering::SeqCst);
        answer
    }

    fn read_cooked(&self, question: &str, woken: &UnixStream) -> io::Result<String> {
        // Keys typed before the question are not its answer.
        termios::tcflush(&self.file, QueueSelector::IFlush).ok();
        // A line, echoed, with Ctrl-C as a signal: the terminal's usual mode,
        // set only if someone left it otherwise, and put back after.
        let found = termios::tcgetattr(&self.file).ok();
        let changed = found.as_ref().and_then(|t| {
            let mut cooked = t.clone();
            cooked.local_modes |= LocalModes::ICANON | LocalModes::ECHO | LocalModes::ISIG;
            cooked.input_modes |= InputModes::ICRNL;
            (cooked.local_modes != t.local_modes || cooked.input_modes != t.input_modes)
                .then(|| termios::tcsetattr(&self.file, OptionalActions::Now, &cooked).ok())
                .flatten()
                .map(|()| t.clone())
        });
        let answer = self.wait_for_line(question, woken);
        if let Some(t) = changed {
            termios::tcsetattr(&self.file, OptionalActions::Now, &t).ok();
        }
        answer
    }

    fn wait_for_line(&self, question: &str, woken: &UnixStream) -> io::Result<String> {
        let mut out = &self.file;
        write!(out, "{question}")?;
        out.flush()?;
        let mut line = Vec::new();
        loop {
            let mut fds = [
                PollFd::new(&self.file, PollFlags::IN),
                PollFd::new(woken, PollFlags::IN),
            ];
            match poll(&mut fds, None) {
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
            if !fds[1].revents().is_empty() {
                writeln!(out).ok();
                return Err(io::Error::new(
                    io::ErrorKind::Interrupted,
                    "interrupted at the prompt",
                ));
            }
            if fds[0].revents().is_empty() {
                continue;
            }
            let mut buf = [0u8; 256];
            let n = match (&self.file).read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                // End of file (Ctrl-D) or the terminal went away: no Enter, no yes.
                return Ok(String::new());
            }
            line.extend_from_slice(&buf[..n]);
            if let Some(end) = line.iter().position(|&b| b == b'\n') {
                line.truncate(end);
                return Ok(String::from_utf8_lossy(&line).into_owned());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_y_or_yes_is_a_yes() {
        for yes in ["y", "Y", "yes", "YES", " Yes ", "y\r"] {
            assert!(is_yes(yes), "{yes:?}");
        }
        for no in [
            "",
            "n",
            "no",
            "ye",
            "yess",
            "y es",
            "yes please",
            "oui",
            "1",
        ] {
            assert!(!is_yes(no), "{no:?}");
        }
    }
}
