//! `git vouch completions <shell>` and `git vouch man`: both generated from the
//! command line's definition (`cli.rs`), so they cannot drift from it.
//!
//! The manual page is `git-vouch(1)`: `git vouch --help` runs
//! `man git-vouch`, as git does for every `git-<name>` on `PATH`, so
//! `git vouch man --install` writes it where `man` finds it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::commands::cli::{Cli, CompletionsArgs, ManArgs};
use crate::doors::context::Ctx;
use crate::platform::env::{Env, vars};
use crate::{doors::exit::ExitStatus, interact::ui};

/// The name of the manual page (and of the program git finds as `git vouch`).
pub const MAN_NAME: &str = "git-vouch";

/// The name completions complete: the binary people type.
fn bin_name() -> String {
    Cli::command().get_name().to_owned()
}

/// What bash needs beside clap's script: git's own completion
/// (`git-completion.bash`) completes `git vouch <TAB>` by calling
/// `_git_vouch`, which hands the words after `vouch` to clap's function as
/// if `git-vouch` had been typed (`__git_cmd_idx` is where git's script
/// found the subcommand, after any `-C <dir>`).
const GIT_BASH_WRAPPER: &str = r#"
# `git vouch <TAB>`, through git's own bash completion.
_git_vouch() {
    local idx=${__git_cmd_idx:-1}
    local COMP_WORDS=(git-vouch "${COMP_WORDS[@]:idx+1}")
    local COMP_CWORD=$((COMP_CWORD - idx))
    _git__vouch git-vouch "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}
"#;

/// `git vouch completions <shell>`.
pub fn completions(args: &CompletionsArgs) -> Result<ExitStatus> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), bin_name(), &mut out);
    if args.shell == clap_complete::Shell::Bash {
        // clap_complete names the subcommands' cases `git__subcmd__vouch...`
        // but sets `cmd` to `git__vouch...` for a name with a hyphen, so no
        // subcommand's options would complete.
        let script = String::from_utf8_lossy(&out).replace("git__subcmd__vouch", "git__vouch");
        out = [script.as_bytes(), GIT_BASH_WRAPPER.as_bytes()].concat();
    }
    std::io::Write::write_all(&mut std::io::stdout().lock(), &out).or_else(quiet_pipe)?;
    Ok(ExitStatus::Allowed)
}

/// `git vouch man`: the page on stdout, or with `--install` written where
/// `man` finds it, and checked.
pub fn man(ctx: &Ctx, args: &ManArgs) -> Result<ExitStatus> {
    let page = man_page()?;
    if !args.install {
        std::io::Write::write_all(&mut std::io::stdout().lock(), page.as_bytes())
            .or_else(quiet_pipe)?;
        return Ok(ExitStatus::Allowed);
    }
    let root = match &args.dir {
        Some(dir) => ctx.dir(Some(dir)),
        None => default_man_root(ctx.env.as_ref())?,
    };
    let dir = root.join("man1");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
    let path = dir.join(format!("{MAN_NAME}.1"));
    if std::fs::read_to_string(&path).ok().as_deref() != Some(page.as_str()) {
        std::fs::write(&path, &page)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    ui::out(&format!("installed the manual page `{}`", path.display()));
    ui::out(&match man_finds(ctx.env.as_ref()) {
        Found::This(found) if same_file(&found, &path) => {
            "`git vouch --help` and `man git-vouch` open it".to_owned()
        }
        Found::This(other) => format!(
            "note: `man git-vouch` opens another page first, `{}` (another install of vouch?): remove it, or put `{}` first in MANPATH",
            other.display(),
            root.display()
        ),
        Found::Nothing => format!(
            "note: `man` does not look in `{root}`, so `git vouch --help` cannot open the page yet: add `export MANPATH=\"{root}:$MANPATH\"` to your shell's profile; meanwhile `git vouch -h` prints the help",
            root = root.display(),
        ),
        Found::NoMan => "note: there is no `man` program here, and `git vouch --help` runs one (git turns it into `man git-vouch`): install man (`man-db`), or use `git vouch -h` and `git vouch help <command>`, which print the help without it".to_owned(),
    });
    Ok(ExitStatus::Allowed)
}

/// Where `git vouch man --install` puts the page: beside the directory
/// this binary is on `PATH` from when it is a `bin` (`~/.cargo/bin` ->
/// `~/.cargo/share/man`), which `man` searches for every `PATH` entry
/// (man-db on Linux, and macOS's `manpath`, both look at `<dir>/../share/man`
/// for a `<dir>` ending in `/bin`); else `$XDG_DATA_HOME/man` (else
/// `~/.local/share/man`).
fn default_man_root(env: &dyn Env) -> Result<PathBuf> {
    let exe = crate::install::stable_binary(env.var_os(vars::PATH).as_deref())?;
    if let Some(bin) = exe.parent()
        && bin.file_name().is_some_and(|n| n == "bin")
        && let Some(prefix) = bin.parent()
    {
        return Ok(prefix.join("share/man"));
    }
    let absolute = |name: &str| {
        env.var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    absolute(vars::XDG_DATA_HOME)
        .or_else(|| absolute(vars::HOME).map(|h| h.join(".local/share")))
        .map(|d| d.join("man"))
        .context("no home directory (HOME is not set): name the manual directory with `--dir`")
}

/// What `man -w git-vouch` finds, run as `git help` runs man: with git's
/// own manual directory put before `MANPATH` (and a trailing `:`, which
/// keeps the directories `man` works out itself).
enum Found {
    This(PathBuf),
    Nothing,
    NoMan,
}

fn man_finds(env: &dyn Env) -> Found {
    let git_man = std::process::Command::new("git")
        .arg("--man-path")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let mut manpath = std::ffi::OsString::from(format!("{git_man}:"));
    if let Some(old) = env.var_os(vars::MANPATH) {
        manpath.push(old);
    }
    match std::process::Command::new("man")
        .args(["-w", MAN_NAME])
        .env(vars::MANPATH, manpath)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
    {
        Err(_) => Found::NoMan,
        Ok(o) if o.status.success() => {
            let first = String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned();
            if first.is_empty() {
                Found::Nothing
            } else {
                Found::This(PathBuf::from(first))
            }
        }
        Ok(_) => Found::Nothing,
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn quiet_pipe(e: std::io::Error) -> std::io::Result<()> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(e)
    }
}

/// The command line as the manual shows it: `git vouch ...`.
fn man_command() -> clap::Command {
    let mut cmd = Cli::command()
        .name(MAN_NAME)
        .display_name(MAN_NAME)
        .bin_name("git vouch");
    cmd.build();
    cmd
}

/// Escapes text for roff: backslashes, a leading control character, and
/// hyphens that must print as hyphens (option names).
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// The roff text of `git-vouch(1)`: `clap_mangen`'s title, name, synopsis
/// and description, then every subcommand (nested ones too) with its usage,
/// description and options, then the environment.
pub fn man_page() -> Result<String> {
    let cmd = man_command();
    let man = clap_mangen::Man::new(cmd.clone()).title(MAN_NAME.to_uppercase());
    let mut head = Vec::new();
    man.render_title(&mut head)?;
    man.render_name_section(&mut head)?;
    man.render_synopsis_section(&mut head)?;
    man.render_description_section(&mut head)?;
    // Each part opens with the same two lines of string definitions: once is enough.
    let mut page = String::new();
    let mut seen = std::collections::HashSet::new();
    for line in String::from_utf8(head)?.lines() {
        if !(line.starts_with(".ie ") || line.starts_with(".el ")) || seen.insert(line.to_owned()) {
            page.push_str(line);
            page.push('\n');
        }
    }
    page.push_str(".SH COMMANDS\n");
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        command_section(&mut page, sub);
    }
    page.push_str(".SH ENVIRONMENT\n");
    for (name, doc) in crate::platform::env::ENVIRONMENT {
        let _ = writeln!(page, ".TP\n\\fB{}\\fR\n{}", roff(name), roff(doc));
    }
    page.push_str(".SH FILES\n.TP\n\\fI~/.config/vouch/config.toml\\fR\nThe user config; \\fBgit vouch config\\fR prints every setting at its default.\n.TP\n\\fI.vouch.toml\\fR\nA repository's config: until \\fBgit vouch trust\\fR, it may only make the guard stricter.\n");
    let _ = writeln!(
        page,
        ".SH VERSION\nv{}\n.SH SEE ALSO\n\\fBgit\\-push\\fR(1), \\fBgithooks\\fR(5)",
        env!("CARGO_PKG_VERSION")
    );
    Ok(page)
}

fn command_section(page: &mut String, sub: &clap::Command) {
    let usage = sub.clone().render_usage().to_string();
    let usage = usage.trim_start_matches("Usage:").trim();
    let _ = writeln!(page, ".SS \"{}\"", roff(usage));
    if let Some(about) = sub.get_long_about().or_else(|| sub.get_about()) {
        for line in about.to_string().lines() {
            if line.trim().is_empty() {
                page.push_str(".PP\n");
            } else {
                let _ = writeln!(page, "{}", roff(line));
            }
        }
    }
    let args: Vec<&clap::Arg> = sub
        .get_arguments()
        .filter(|a| !a.is_hide_set() && a.get_id() != "help" && a.get_id() != "version")
        .collect();
    for arg in args {
        let mut name = match (arg.get_short(), arg.get_long()) {
            (Some(s), Some(l)) => format!("-{s}, --{l}"),
            (None, Some(l)) => format!("--{l}"),
            (Some(s), None) => format!("-{s}"),
            (None, None) => String::new(),
        };
        let value = arg
            .get_value_names()
            .map(|v| v.iter().map(ToString::to_string).collect::<Vec<_>>())
            .unwrap_or_default();
        if arg.is_positional() {
            name = format!(
                "<{}>",
                value
                    .first()
                    .cloned()
                    .unwrap_or_else(|| arg.get_id().to_string().to_uppercase())
            );
        } else if arg.get_num_args().is_some_and(|n| n.takes_values()) {
            let v = value
                .first()
                .cloned()
                .unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
            name.push_str(&format!(" <{v}>"));
        }
        let _ = writeln!(page, ".TP\n\\fB{}\\fR", roff(&name));
        if let Some(help) = arg.get_long_help().or_else(|| arg.get_help()) {
            for line in help.to_string().lines().filter(|l| !l.trim().is_empty()) {
                let _ = writeln!(page, "{}", roff(line));
            }
        }
        let possible: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_owned())
            .collect();
        if !possible.is_empty() && !arg.is_hide_possible_values_set() {
            let _ = writeln!(page, ".br\nOne of: {}.", roff(&possible.join(", ")));
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        if !defaults.is_empty()
            && !arg.is_positional()
            && arg.get_num_args().is_some_and(|n| n.takes_values())
        {
            let _ = writeln!(page, ".br\nDefault: {}.", roff(&defaults.join(",")));
        }
    }
    for nested in sub.get_subcommands().filter(|s| !s.is_hide_set()) {
        command_section(page, nested);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_man_page_is_git_vouch_and_covers_every_visible_command() {
        let page = man_page().unwrap();
        assert!(page.contains("\n.TH GIT-VOUCH 1 "), "{}", &page[..200]);
        assert_eq!(page.matches(".ie ").count(), 1, "one preamble");
        assert!(
            page.contains("git\\-vouch \\-"),
            "the NAME line names git-vouch"
        );
        for sub in Cli::command()
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
        {
            let heading = format!(".SS \"git vouch {}", roff(sub.get_name()));
            assert!(
                page.contains(&heading),
                "no section for `{}`",
                sub.get_name()
            );
        }
        assert!(
            page.contains(".SS \"git vouch rescue restore"),
            "nested commands"
        );
        assert!(page.contains("\\fB\\-\\-json\\fR"), "options are listed");
        assert!(
            !page.contains(".SS \"git vouch hook"),
            "the hidden hook entry is left out"
        );
        assert!(page.contains("VOUCH_HEADLESS"), "the environment is listed");
    }

    #[test]
    fn completions_are_generated_for_bash_zsh_and_fish() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), bin_name(), &mut out);
            let text = String::from_utf8(out).unwrap();
            for word in ["install", "rescue", "completions", "json", "asked-yes"] {
                assert!(text.contains(word), "{shell}: no `{word}`");
            }
        }
    }
}
