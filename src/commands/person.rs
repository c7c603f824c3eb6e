//! Commands that turn the guard down (`git vouch trust`, `git vouch approve`, `vouch
//! uninstall`, `git vouch agent uninstall`, `git vouch rescue prune`) are for a
//! person at a terminal (SPEC 3.2): without `/dev/tty`, in CI or with
//! `VOUCH_HEADLESS` they refuse; at a terminal the person types `yes` in
//! full, read as a whole line. There is no flag or variable that answers for
//! them: anything an agent or a script can pass, it can pass itself.

use crate::doors::context::Ctx;
use crate::interact::prompt::Prompter;
use crate::interact::ui;

/// The word the person types.
pub const WORD: &str = "yes";

/// Why `command` does not run here: it needs a person at a terminal.
pub fn refusal(command: &str) -> String {
    format!(
        "refused: `{command}` turns vouch's guard down, so it needs a person at a terminal, and there is none here (no /dev/tty, or CI or VOUCH_HEADLESS is set). An agent or a script cannot run it: the person must run it themselves, at their own terminal"
    )
}

/// The terminal of the person who must confirm `command`; `None`, after
/// saying why it is refused, when there is none.
pub fn terminal(ctx: &Ctx, command: &str) -> Option<Box<dyn Prompter>> {
    let tty = ctx.terminal();
    if tty.is_none() {
        ui::info(&refusal(command));
    }
    tty
}

/// Shows `what` and asks the person to type `yes`; `true` only for that word.
pub fn typed_yes(tty: &dyn Prompter, what: &str) -> bool {
    tty.show(what);
    let line = tty.read_line(&format!("Type `{WORD}` to go on (anything else cancels): "));
    line.is_some_and(|l| l.trim().eq_ignore_ascii_case(WORD))
}

/// `true` when a person at the terminal typed `yes` to `what`; otherwise
/// `command` is refused (no terminal) or cancelled, and that is said.
pub fn confirms(ctx: &Ctx, command: &str, what: &str) -> bool {
    let Some(tty) = terminal(ctx, command) else {
        return false;
    };
    if typed_yes(tty.as_ref(), what) {
        return true;
    }
    ui::info(&format!("`{command}` cancelled: nothing was changed"));
    false
}
