//! The terminal: deciding whether anyone is there, and asking them.
//!
//! Interactive means `/dev/tty` opens and the environment is not CI or
//! `VOUCH_HEADLESS=1` (SPEC section 3.3). Hook stdin belongs to git, so the
//! prompt reads and writes `/dev/tty`. The answer defaults to No; Ctrl-C,
//! Esc, or a terminal that goes away are No too.

use std::fs::{File, OpenOptions};
use std::io;

use console::Term;
use dialoguer::Confirm;
use dialoguer::theme::SimpleTheme;

use crate::env::{Env, vars};

/// Something that can ask a yes/no question.
pub trait Prompter {
    /// Shows `text` to the person.
    fn show(&self, text: &str);
    /// Asks `question`; `false` unless the person says yes.
    fn confirm(&self, question: &str) -> bool;
}

/// The controlling terminal.
pub struct Tty {
    term: Term,
}

fn open_tty() -> io::Result<Tty> {
    let write = OpenOptions::new().read(true).write(true).open("/dev/tty")?;
    let read: File = write.try_clone()?;
    let term = Term::read_write_pair(read, write);
    if term.is_term() {
        Ok(Tty { term })
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
        let answer = Confirm::with_theme(&SimpleTheme)
            .with_prompt(question)
            .default(false)
            .show_default(true)
            .wait_for_newline(false)
            .interact_on_opt(&self.term);
        // Ctrl-C in raw mode arrives as an Interrupted error: No.
        let yes = matches!(answer, Ok(Some(true)));
        self.term.show_cursor().ok();
        yes
    }
}

impl Tty {
    /// Shows `question` and reads the whole line typed up to Enter; `None`
    /// when the terminal goes away or the person presses Ctrl-C.
    pub fn read_line(&self, question: &str) -> Option<String> {
        self.term.write_str(question).ok()?;
        let line = self.term.read_line().ok();
        self.term.show_cursor().ok();
        line
    }
}
