//! Where each agent reads its hooks, and how vouch's entry is merged in and
//! taken out again without disturbing anything else there.
//!
//! This module owns the agents' configuration files and nothing else: it
//! never prints, never reads the process environment (the caller hands an
//! [`Env`]) and does not know what `git vouch agent-hook` answers.
//!
//! The work is split in two: [`merged`] and [`removed`] are pure (text in,
//! text out) and carry the format knowledge; [`install`] and [`uninstall`]
//! read the file, call them, and write the result atomically.
//!
//! # The files, agent by agent
//!
//! `command` below is the full command line vouch passes in
//! ([`hook_command`]): it runs `'/home/u/.cargo/bin/vouch' agent-hook claude`
//! when that binary is there and answers the agent's own refusal when it is
//! not (a missing binary is never "go ahead"). Every agent gets a
//! [`HOOK_TIMEOUT_SECS`] timeout and a matcher so that only its shell tool
//! reaches vouch.
//!
//! | agent | project file | user file |
//! | --- | --- | --- |
//! | `claude` | `.claude/settings.json` | `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR`) |
//! | `codex` | `.codex/hooks.json` | `~/.codex/hooks.json` (`$CODEX_HOME`) |
//! | `gemini` | `.gemini/settings.json` | `~/.gemini/settings.json` |
//! | `cursor` | `.cursor/hooks.json` | `~/.cursor/hooks.json` |
//! | `copilot` | `.github/hooks/vouch.json` | `~/.copilot/hooks/vouch.json` (`$COPILOT_HOME`) |
//! | `opencode` | `.opencode/plugins/vouch.js` | `~/.config/opencode/plugins/vouch.js` (`$XDG_CONFIG_HOME`) |
//!
//! Claude Code and Codex share one shape (Codex's `hooks.json` copies Claude's):
//!
//! ```json
//! {"hooks": {"PreToolUse": [
//!   {"matcher": "Bash", "hooks": [{"type": "command", "command": "…", "timeout": 30,
//!                                  "onFailure": "block"}]}
//! ]}}
//! ```
//!
//! Gemini CLI uses the same nesting with its own names, and milliseconds:
//!
//! ```json
//! {"hooks": {"BeforeTool": [
//!   {"matcher": "run_shell_command",
//!    "hooks": [{"name": "vouch", "type": "command", "command": "…", "timeout": 30000}]}
//! ]}}
//! ```
//!
//! Cursor and Copilot CLI list handlers directly under the event:
//!
//! ```json
//! {"version": 1, "hooks": {"beforeShellExecution": [
//!   {"command": "…", "timeout": 30, "failClosed": true}
//! ]}}
//! {"version": 1, "hooks": {"preToolUse": [
//!   {"type": "command", "bash": "…", "timeoutSec": 30}
//! ]}}
//! ```
//!
//! (Codex's file has no `onFailure`: Codex has no such setting.)
//!
//! # When the hook fails
//!
//! An agent runs the command when its hook times out, unless the hook
//! entry says otherwise: Claude Code's `"onFailure": "block"` (2.1.295 and
//! later; older versions ignore it) and Cursor's `"failClosed": true` do.
//! Codex, Gemini CLI and Copilot CLI have no such setting (Copilot blocks
//! on a crash, not on a timeout). vouch answers within its own deadline
//! whatever happens inside it (`commands::agent`), well before the
//! [`HOOK_TIMEOUT_SECS`] it asks for; `git vouch status` names the agents
//! whose failure would let a command through.
//!
//! Copilot CLI loads every `*.json` in its hooks directories, so vouch keeps
//! a file of its own there; it is still merged like the others, in case
//! someone added to it.
//!
//! # Which entry is vouch's
//!
//! A handler is vouch's when its command runs a program whose file name
//! starts with `vouch` with `agent-hook` as the next word (see
//! [`is_vouch_command`]). Installing again therefore updates that entry in
//! place (a new binary path, a new timeout) instead of adding a second one,
//! and extra copies are dropped. Keys vouch does not set on its own entry are
//! kept. When nothing changes, [`merged`] hands back the text it was given,
//! byte for byte.
//!
//! Uninstalling removes vouch's handlers, then every container that removal
//! left empty: the matcher group, the event's list, the `hooks` object. A
//! file left with nothing else in it (`{}`, or only `version` where the
//! format asks for one) is deleted. Containers that were empty before are
//! left alone.
//!
//! Files are edited in their own text (`jsonc-parser`'s syntax tree): only
//! vouch's entry is written, so comments (Gemini CLI allows `//` and
//! `/* */`), indentation, one-line arrays and key order stay as they were,
//! and uninstalling gives back the text from before. The edit is checked
//! against the same edit made on the parsed value (`serde_json` with
//! `preserve_order`); a file whose shape only the value edit handles is
//! rewritten from the value with its own indentation. Only text that is not
//! JSON at all (comments and trailing commas allowed) or has the wrong
//! shape is refused with [`SettingsError::Malformed`] and left untouched.
//!
//! # The opencode plugin
//!
//! opencode has no command hooks; it loads JavaScript plugins from its
//! `plugins` directories. vouch writes a small one whose first line carries
//! [`PLUGIN_MARKER`]; a file at that path without the marker is someone
//! else's and is never overwritten. On every `tool.execute.before` for the
//! `bash` tool, the plugin runs `command` through `/bin/sh -c` with one JSON
//! object on stdin:
//!
//! ```json
//! {"tool": "bash", "args": {"command": "git push --force", "…": "…"},
//!  "sessionID": "ses_…", "cwd": "/path/to/project"}
//! ```
//!
//! `tool`, `args` and `sessionID` are opencode's own (`args` holds the bash
//! tool's arguments: `command`, and `workdir` or `description` where the
//! model gave them); `cwd` is the plugin's project directory. It expects one
//! JSON object on stdout:
//!
//! ```json
//! {"decision": "allow"}
//! {"decision": "deny", "reason": "why, for the agent"}
//! ```
//!
//! A deny throws an `Error` with the reason, which opencode reports to the
//! model instead of running the command (a missing binary answers that deny
//! itself, see [`hook_command`]). When vouch cannot be run, times out
//! or gives no readable answer, the command is refused the same way: a
//! guard that fails must not let the command through.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use jsonc_parser::cst::{CstArray, CstInputValue, CstRootNode};
use serde_json::{Map, Value, json};

use crate::platform::env::Env;

/// The timeout, in seconds, vouch asks each agent to give its hook.
pub const HOOK_TIMEOUT_SECS: u64 = 30;

/// The line that marks the opencode plugin file as vouch's.
pub const PLUGIN_MARKER: &str = "// @vouch-managed";

pub use super::Agent;

/// Which of an agent's configuration files to edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Scope {
    /// The file inside the project, shared with everyone who clones it.
    Project,
    /// The file in the user's home, for every project.
    User,
    /// The project's file for this machine only, kept out of git by the
    /// agent itself (only where the agent has one: see [`has_local`]).
    Local,
}

/// Whether `agent` has a project settings file of its own for this machine
/// only (Claude Code's `.claude/settings.local.json`, which it keeps out of
/// git).
pub fn has_local(agent: Agent) -> bool {
    agent == Agent::Claude
}

/// Where `agent` reads the hooks of `scope`.
///
/// `project_root` is the top of the working tree; `home` the user's home.
/// For the user scope, the variables the agents themselves honour
/// (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `COPILOT_HOME`, `XDG_CONFIG_HOME`) are
/// read from `env` and used when set to an absolute path.
pub fn settings_path(
    agent: Agent,
    scope: Scope,
    project_root: &Path,
    home: &Path,
    env: &dyn Env,
) -> PathBuf {
    let dir_from = |var: &str, default: PathBuf| {
        env.var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .unwrap_or(default)
    };
    match (agent, scope) {
        (Agent::Claude, Scope::Project) => project_root.join(".claude/settings.json"),
        (Agent::Claude, Scope::Local) => project_root.join(".claude/settings.local.json"),
        (Agent::Claude, Scope::User) => {
            dir_from("CLAUDE_CONFIG_DIR", home.join(".claude")).join("settings.json")
        }
        (Agent::Codex, Scope::Project | Scope::Local) => project_root.join(".codex/hooks.json"),
        (Agent::Codex, Scope::User) => {
            dir_from("CODEX_HOME", home.join(".codex")).join("hooks.json")
        }
        (Agent::Gemini, Scope::Project | Scope::Local) => {
            project_root.join(".gemini/settings.json")
        }
        (Agent::Gemini, Scope::User) => home.join(".gemini/settings.json"),
        (Agent::Cursor, Scope::Project | Scope::Local) => project_root.join(".cursor/hooks.json"),
        (Agent::Cursor, Scope::User) => home.join(".cursor/hooks.json"),
        (Agent::Copilot, Scope::Project | Scope::Local) => {
            project_root.join(".github/hooks/vouch.json")
        }
        (Agent::Copilot, Scope::User) => {
            dir_from("COPILOT_HOME", home.join(".copilot")).join("hooks/vouch.json")
        }
        (Agent::Opencode, Scope::Project | Scope::Local) => {
            project_root.join(".opencode/plugins/vouch.js")
        }
        (Agent::Opencode, Scope::User) => {
            dir_from("XDG_CONFIG_HOME", home.join(".config")).join("opencode/plugins/vouch.js")
        }
    }
}

/// What is wrong with an existing file's text, found by [`merged`] or
/// [`removed`]. [`SettingsError::Malformed`] adds the path.
#[derive(Debug, thiserror::Error)]
pub enum Malformed {
    /// The text is not JSON (comments and trailing commas are allowed).
    #[error("it is not valid JSON: {0}")]
    Json(String),
    /// The JSON is valid but a value vouch has to descend into has the wrong type.
    #[error("`{0}` is not {1}")]
    Shape(String, &'static str),
    /// A plugin file at vouch's path that vouch did not write.
    #[error("it was not written by vouch (it has no `{PLUGIN_MARKER}` line)")]
    NotOurs,
}

/// A failure to install or uninstall vouch's hook.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The file's content is not what vouch can edit; it was left untouched.
    #[error(
        "cannot edit `{}`: fix it by hand or move it away, then run the command again",
        path.display()
    )]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        #[source]
        source: Malformed,
    },
    /// Reading, writing or removing a file or directory failed.
    #[error("cannot {action} `{}`", path.display())]
    Io {
        /// What was being done: "read", "write", "create the directory", …
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: io::Error,
    },
}

/// What uninstalling leaves of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removal {
    /// The file, without vouch's entry.
    Rewrite(String),
    /// Nothing but vouch's entry was there: delete the file.
    Delete,
}

/// The new text of `agent`'s file with vouch's hook running `command`.
///
/// `existing` is the file's current text (`None`: no file). Other hooks and
/// keys are kept, in their order; vouch's own entry is updated in place. When
/// nothing changes, the result is `existing` itself.
pub fn merged(agent: Agent, existing: Option<&str>, command: &str) -> Result<String, Malformed> {
    match json_spec(agent) {
        Some(spec) => {
            let text = merged_json(&spec, existing, command)?;
            match after_spec(agent) {
                Some(after) => merged_json(&after, Some(&text), command),
                None => Ok(text),
            }
        }
        None => merged_plugin(existing, command),
    }
}

/// What remains of `agent`'s file once vouch's hook is taken out; `None`
/// when there is nothing of vouch's in `existing`.
pub fn removed(agent: Agent, existing: &str) -> Result<Option<Removal>, Malformed> {
    match json_spec(agent) {
        Some(spec) => {
            let first = removed_json(&spec, existing)?;
            let Some(after) = after_spec(agent) else {
                return Ok(first);
            };
            let rest = match &first {
                Some(Removal::Delete) => return Ok(first),
                Some(Removal::Rewrite(text)) => text.as_str(),
                None => existing,
            };
            Ok(removed_json(&after, rest)?.or(first))
        }
        None => Ok(existing.contains(PLUGIN_MARKER).then_some(Removal::Delete)),
    }
}

/// Installs vouch's hook for `agent` into the file at `path`, creating it and
/// its directories as needed. Returns a sentence saying what was done.
///
/// The file is replaced atomically (a temporary file renamed over it) and
/// keeps its permissions; a symbolic link is followed, not replaced. When the
/// existing file cannot be edited, nothing is written.
pub fn install(agent: Agent, path: &Path, command: &str) -> Result<String, SettingsError> {
    let existing = read_optional(path)?;
    let malformed = |source| SettingsError::Malformed {
        path: path.to_owned(),
        source,
    };
    let text = merged(agent, existing.as_deref(), command).map_err(malformed)?;
    let what = hook_name(agent);
    let shown = path.display();
    let Some(old) = existing else {
        write_atomic(path, &text)?;
        return Ok(format!("created `{shown}` with vouch's {what}"));
    };
    if old == text {
        return Ok(format!("`{shown}` already has vouch's {what}"));
    }
    let had_vouch = removed(agent, &old).map_err(malformed)?.is_some();
    write_atomic(path, &text)?;
    Ok(if had_vouch {
        format!("updated vouch's {what} in `{shown}`")
    } else {
        format!("added vouch's {what} to `{shown}`")
    })
}

/// Removes vouch's hook for `agent` from the file at `path`, leaving the rest.
/// Returns a sentence saying what was done.
pub fn uninstall(agent: Agent, path: &Path) -> Result<String, SettingsError> {
    let what = hook_name(agent);
    let shown = path.display();
    let Some(existing) = read_optional(path)? else {
        return Ok(format!("`{shown}` does not exist; nothing to remove"));
    };
    let removal = removed(agent, &existing).map_err(|source| SettingsError::Malformed {
        path: path.to_owned(),
        source,
    })?;
    match removal {
        None => Ok(format!(
            "`{shown}` has no {what} of vouch's; left as it was"
        )),
        Some(Removal::Rewrite(text)) => {
            write_atomic(path, &text)?;
            Ok(format!("removed vouch's {what} from `{shown}`"))
        }
        Some(Removal::Delete) => {
            fs::remove_file(path).map_err(|source| SettingsError::Io {
                action: "remove",
                path: path.to_owned(),
                source,
            })?;
            Ok(format!("removed `{shown}`, which held only vouch's {what}"))
        }
    }
}

/// The command vouch's entry in `agent`'s settings runs: the binary at
/// `bin` with `agent-hook <agent>` when it is there; when it is gone, the
/// agent's own blocking answer with a message saying vouch is missing, so a
/// deleted or moved binary never reads as "go ahead" (the shell's exit 127
/// would, for every agent). Claude Code, Codex and Gemini CLI block on exit
/// 2 with the reason on stderr; Cursor gets its deny object and exit 2;
/// Copilot CLI and the opencode plugin read a deny object on stdout.
pub fn hook_command(agent: Agent, bin: &Path) -> String {
    let shown = bin.display().to_string();
    let quoted = shell_words::quote(&shown).into_owned();
    let name = agent.name();
    let message = format!(
        "vouch: the vouch binary is missing (not at {shown}), so this command cannot be checked and is refused. A person must reinstall vouch (./install.sh) and run `git vouch agent install {name}` again"
    );
    let say = |text: &str| format!("printf '%s\\n' {}", shell_words::quote(text));
    let refuse = match agent {
        Agent::Claude | Agent::Codex | Agent::Gemini => format!("{} >&2; exit 2", say(&message)),
        Agent::Cursor => {
            let answer =
                json!({"permission": "deny", "user_message": message, "agent_message": message});
            format!(
                "{}; {} >&2; exit 2",
                say(&answer.to_string()),
                say(&message)
            )
        }
        Agent::Copilot => {
            let answer = json!({"permissionDecision": "deny", "permissionDecisionReason": message});
            format!(
                "{}; {} >&2; exit 0",
                say(&answer.to_string()),
                say(&message)
            )
        }
        Agent::Opencode => {
            let answer = json!({"decision": "deny", "reason": message});
            format!(
                "{}; {} >&2; exit 0",
                say(&answer.to_string()),
                say(&message)
            )
        }
    };
    // The refusal reads the request first: an agent whose write fails
    // (the hook exited before reading) might take that as a hook error.
    format!("[ -x {quoted} ] && exec {quoted} agent-hook {name}; cat >/dev/null 2>&1; {refuse}")
}

/// The command for a project's settings file, which is committed and read
/// by teammates' agents too: vouch by its `PATH` name when it is installed;
/// otherwise one line per clone saying the project suggests vouch, and no opinion
/// (the agent's own permissions decide), so a teammate without vouch can
/// still work.
pub fn project_hook_command(agent: Agent) -> String {
    let program = crate::install::PROGRAM;
    let name = agent.name();
    let note = format!(
        "This project suggests {program} (a guard for history-destroying commands); it is not installed here, so this command is not checked"
    );
    let allow = match agent {
        Agent::Cursor => format!(
            "printf '%s\\n' {}; ",
            shell_words::quote(r#"{"permission":"allow"}"#)
        ),
        Agent::Opencode => format!(
            "printf '%s\\n' {}; ",
            shell_words::quote(r#"{"decision":"allow"}"#)
        ),
        _ => String::new(),
    };
    format!(
        "command -v {program} >/dev/null 2>&1 && exec {program} agent-hook {name}; cat >/dev/null 2>&1; {}; {allow}exit 0",
        crate::install::say_once_per_clone(&note)
    )
}

/// The first Claude Code that reads `"onFailure": "block"`.
pub const CLAUDE_ON_FAILURE_SINCE: (u32, u32, u32) = (2, 1, 295);

/// Reads a version such as `2.1.302 (Claude Code)`.
pub fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let word = text.split_whitespace().find(|w| w.contains('.'))?;
    let mut parts = word
        .trim_start_matches('v')
        .split('.')
        .map(str::parse::<u32>);
    Some((
        parts.next()?.ok()?,
        parts.next()?.ok()?,
        parts.next()?.ok()?,
    ))
}

/// What happens when vouch's hook in `agent`'s settings (`text`) cannot
/// answer in time or fails, when that lets the command run: `None` when
/// the agent blocks it. `version` is the installed agent's, when known.
pub fn failure_note(agent: Agent, text: &str, version: Option<(u32, u32, u32)>) -> Option<String> {
    let deadline = HOOK_TIMEOUT_SECS - 3;
    let runs = format!(
        "{} runs a command whose hook fails or times out; vouch answers within {deadline} s of its {HOOK_TIMEOUT_SECS} s timeout",
        agent.title()
    );
    match agent {
        Agent::Claude if !text.contains("\"onFailure\"") => Some(format!(
            "{runs}. Run `git vouch agent install claude` again to add `\"onFailure\": \"block\"`"
        )),
        Agent::Claude => match version {
            Some(v) if v >= CLAUDE_ON_FAILURE_SINCE => None,
            Some((a, b, c)) => Some(format!(
                "Claude Code {a}.{b}.{c} ignores `\"onFailure\": \"block\"` (2.1.295 and later read it): {runs}. Update Claude Code"
            )),
            None => Some(format!(
                "Claude Code 2.1.295 and later block a command whose hook fails; `claude --version` could not be read here, and an older one {}",
                runs.trim_start_matches("Claude Code ")
            )),
        },
        Agent::Cursor if text.contains("\"failClosed\"") => None,
        Agent::Cursor => Some(format!(
            "{runs}. Run `git vouch agent install cursor` again to add `\"failClosed\": true`"
        )),
        // vouch's own plugin denies when vouch gives no verdict.
        Agent::Opencode => None,
        Agent::Codex | Agent::Gemini | Agent::Copilot => {
            Some(format!("{runs} (it has no setting that blocks instead)"))
        }
    }
}

/// What a person must still do in the agent itself before vouch's hook
/// runs, if anything.
pub fn agent_step(agent: Agent) -> Option<&'static str> {
    match agent {
        Agent::Codex => Some(
            "Codex runs a hook only once you have reviewed and trusted it: open `/hooks` in Codex and trust vouch's `PreToolUse` hook (again after any change to it). Project hooks in `.codex/` load only in a project Codex trusts, and `[features] hooks = false` in `config.toml` turns hooks off",
        ),
        Agent::Gemini => Some(
            "Gemini CLI runs hooks unless `hooksConfig.enabled` is false in one of its settings files (on by default since Gemini CLI 0.27; older versions need `\"hooksConfig\": {\"enabled\": true}`), and reads a project's `.gemini/settings.json` only in a folder it trusts",
        ),
        _ => None,
    }
}

/// True when the Gemini CLI settings text turns hooks off
/// (`"hooksConfig": {"enabled": false}`): no hook of the file, or of any
/// other Gemini settings file, runs then.
pub fn gemini_hooks_off(text: &str) -> bool {
    parse(text).is_ok_and(|v| v.pointer("/hooksConfig/enabled") == Some(&Value::Bool(false)))
}

/// True when `command` runs `git vouch agent-hook …`: some word names a program
/// whose file name is `git-vouch` or `vouch`, and the next word is `agent-hook`.
pub fn is_vouch_command(command: &str) -> bool {
    let Ok(words) = shell_words::split(command) else {
        return command.contains("vouch") && command.contains("agent-hook");
    };
    words.windows(2).any(|w| {
        w[1] == "agent-hook"
            && Path::new(&w[0])
                .file_name()
                .is_some_and(|n| n == crate::install::PROGRAM || n == "vouch")
    })
}

/// How one JSON-configured agent lays out its hooks.
struct JsonSpec {
    /// The key under `hooks` whose list holds the handlers.
    event: &'static str,
    /// `Some(m)`: handlers sit in matcher groups `{"matcher": m, "hooks": […]}`.
    /// `None`: they sit directly in the event's list.
    group_matcher: Option<&'static str>,
    /// Keys of a handler that may hold its command.
    command_keys: &'static [&'static str],
    /// The format needs a top-level `"version": 1`.
    versioned: bool,
    /// vouch's handler for a command.
    handler: fn(&str) -> Value,
}

fn json_spec(agent: Agent) -> Option<JsonSpec> {
    Some(match agent {
        // Claude Code 2.1.295 and later block the command when the hook
        // cannot start, times out or exits with another code than 0 or 2
        // (`onFailure`); earlier versions ignore the key and let it run.
        Agent::Claude => JsonSpec {
            event: "PreToolUse",
            group_matcher: Some("Bash"),
            command_keys: &["command"],
            versioned: false,
            handler: |command| {
                json!({"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS,
                       "onFailure": "block"})
            },
        },
        // Codex's `hooks.json` copies Claude Code's format; it has no
        // setting that makes a failed hook block.
        Agent::Codex => JsonSpec {
            event: "PreToolUse",
            group_matcher: Some("Bash"),
            command_keys: &["command"],
            versioned: false,
            handler: |command| json!({"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS}),
        },
        Agent::Gemini => JsonSpec {
            event: "BeforeTool",
            group_matcher: Some("run_shell_command"),
            command_keys: &["command"],
            versioned: false,
            handler: |command| {
                json!({"name": "vouch", "type": "command", "command": command,
                       "timeout": HOOK_TIMEOUT_SECS * 1000})
            },
        },
        Agent::Cursor => JsonSpec {
            event: "beforeShellExecution",
            group_matcher: None,
            command_keys: &["command"],
            versioned: true,
            // A hook that crashes, times out or prints nothing blocks
            // (`failClosed`): vouch always prints its answer.
            handler: |command| json!({"command": command, "timeout": HOOK_TIMEOUT_SECS, "failClosed": true}),
        },
        Agent::Copilot => JsonSpec {
            event: "preToolUse",
            group_matcher: None,
            command_keys: &["bash", "command"],
            versioned: true,
            handler: |command| {
                // Copilot CLI's `preToolUse` has no matcher: vouch answers
                // only for its shell tools.
                json!({"type": "command", "bash": command, "timeoutSec": HOOK_TIMEOUT_SECS})
            },
        },
        Agent::Opencode => return None,
    })
}

/// vouch's post-tool hook, where the agent has one in the same file
/// (issue 28 item 3): Claude Code's and Codex's `PostToolUse` and Gemini
/// CLI's `AfterTool`, which run the same command; the door tells the events apart by
/// `hook_event_name`. What the command lost is then said at once, instead
/// of at the agent's next command. It decides nothing, so it has no
/// `onFailure`.
fn after_spec(agent: Agent) -> Option<JsonSpec> {
    match agent {
        Agent::Claude | Agent::Codex => Some(JsonSpec {
            event: "PostToolUse",
            group_matcher: Some("Bash"),
            command_keys: &["command"],
            versioned: false,
            handler: |command| json!({"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS}),
        }),
        Agent::Gemini => Some(JsonSpec {
            event: "AfterTool",
            group_matcher: Some("run_shell_command"),
            command_keys: &["command"],
            versioned: false,
            handler: |command| {
                json!({"name": "vouch-after", "type": "command", "command": command,
                       "timeout": HOOK_TIMEOUT_SECS * 1000})
            },
        }),
        _ => None,
    }
}

/// The hooks vouch writes for `agent`, named as its settings name them
/// (issue 35 item 6: every one, the post-tool hook too).
fn hook_name(agent: Agent) -> String {
    match (json_spec(agent), after_spec(agent)) {
        (Some(spec), Some(after)) => format!("{} and {} hooks", spec.event, after.event),
        (Some(spec), None) => format!("{} hook", spec.event),
        (None, _) => "plugin".to_owned(),
    }
}

/// Parses a file's text, comments and trailing commas allowed (Gemini CLI
/// and VS Code-style settings have them); blank text counts as an empty
/// object.
fn parse(text: &str) -> Result<Value, Malformed> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let root = cst(text)?;
    root.value()
        .and_then(|v| v.to_serde_value())
        .ok_or_else(|| Malformed::Json("it holds no value".to_owned()))
}

fn cst(text: &str) -> Result<CstRootNode, Malformed> {
    CstRootNode::parse(text, &jsonc_parser::ParseOptions::default())
        .map_err(|e| Malformed::Json(e.to_string()))
}

/// A JSON value as input for the syntax tree.
fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(o) => {
            CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

/// Edits the file's own text as [`merged_json`] edits its value, so that
/// its comments, indentation and line layout stay; `None` when the text
/// has a shape only the value edit handles.
fn merged_text(spec: &JsonSpec, text: &str, want: &Value) -> Option<String> {
    let root = cst(text).ok()?;
    let top = root.object_value()?;
    if spec.versioned && top.get("version").is_none() {
        top.insert(0, "version", CstInputValue::Number("1".to_owned()));
    }
    let hooks = top.object_value_or_create("hooks")?;
    let list = hooks.array_value_or_create(spec.event)?;
    let kept = match spec.group_matcher {
        Some(matcher) => {
            let mut kept = false;
            for group in list.elements() {
                let Some(group) = group.as_object() else {
                    continue;
                };
                let same = group
                    .get("matcher")
                    .and_then(|p| p.value())
                    .and_then(|v| v.to_serde_value())
                    == Some(Value::String(matcher.to_owned()));
                let Some(handlers) = group.array_value("hooks") else {
                    continue;
                };
                let before = handlers.elements().len();
                kept |= keep_one_text(
                    &handlers,
                    spec.command_keys,
                    (same && !kept).then_some(want),
                );
                if before > 0 && handlers.elements().is_empty() {
                    group.remove();
                }
            }
            if !kept {
                list.append(input(&json!({"matcher": matcher, "hooks": [want]})));
            }
            true
        }
        None => keep_one_text(&list, spec.command_keys, Some(want)),
    };
    if !kept {
        if !list.elements().is_empty() {
            list.ensure_multiline();
        }
        list.append(input(want));
    }
    Some(root.to_string())
}

/// [`keep_one`] on the file's text.
fn keep_one_text(list: &CstArray, keys: &[&str], want: Option<&Value>) -> bool {
    let mut kept = false;
    for element in list.elements() {
        let Some(value) = element.to_serde_value() else {
            continue;
        };
        if !is_vouch_handler(&value, keys) {
            continue;
        }
        match want {
            Some(want) if !kept => {
                kept = true;
                let mut updated = value.clone();
                update(&mut updated, want, keys);
                if updated != value
                    && let Some(object) = element.as_object()
                {
                    update_text(&object, &updated);
                }
            }
            _ => element.remove(),
        }
    }
    kept
}

/// Makes the handler `object` in the file's text hold `updated`, one key at
/// a time, so its layout stays.
fn update_text(object: &jsonc_parser::cst::CstObject, updated: &Value) {
    let Some(updated) = updated.as_object() else {
        return;
    };
    for prop in object.properties() {
        let Some(name) = prop.name().and_then(|n| n.decoded_value().ok()) else {
            continue;
        };
        match updated.get(&name) {
            None => prop.remove(),
            Some(v) if prop.value().and_then(|n| n.to_serde_value()).as_ref() != Some(v) => {
                prop.set_value(input(v));
            }
            Some(_) => {}
        }
    }
    for (key, v) in updated {
        if object.get(key).is_none() {
            object.append(key, input(v));
        }
    }
}

/// Takes vouch's handlers out of the file's own text, and the containers
/// that emptied; `None` when the text has a shape only the value edit handles.
fn removed_text(spec: &JsonSpec, text: &str) -> Option<String> {
    let root = cst(text).ok()?;
    let top = root.object_value()?;
    let hooks_prop = top.get("hooks")?;
    let hooks = hooks_prop.object_value()?;
    let list_prop = hooks.get(spec.event)?;
    let list = list_prop.array_value()?;
    let had = list.elements().len();
    if spec.group_matcher.is_some() {
        for group in list.elements() {
            let Some(handlers) = group.as_object().and_then(|g| g.array_value("hooks")) else {
                continue;
            };
            let before = handlers.elements().len();
            keep_one_text(&handlers, spec.command_keys, None);
            if before > 0 && handlers.elements().is_empty() {
                group.remove();
            }
        }
        if list.elements().len() < had {
            rejoin_one_line(&list);
        }
    } else {
        keep_one_text(&list, spec.command_keys, None);
    }
    if had > 0 && list.elements().is_empty() {
        list_prop.remove();
        if hooks.properties().is_empty() {
            hooks_prop.remove();
        }
    }
    Some(root.to_string())
}

/// A group vouch appends to an array written on one line (`[{...}]`)
/// puts the close bracket on a line of its own; once that group is gone
/// again, the bracket goes back up to the line the others are on, so the
/// file is what it was. An array written over several lines is left as it
/// is.
fn rejoin_one_line(list: &CstArray) {
    let children = list.children();
    let Some(close) = children.iter().rposition(|c| c.token_char() == Some(']')) else {
        return;
    };
    let before = &children[..close];
    let end = before
        .iter()
        .rposition(|c| !c.is_newline() && !c.is_whitespace())
        .map_or(0, |i| i + 1);
    let (body, trailing) = before.split_at(end);
    if trailing.iter().any(jsonc_parser::cst::CstNode::is_newline)
        && !body.iter().any(jsonc_parser::cst::CstNode::is_newline)
    {
        for node in trailing {
            node.clone().remove();
        }
    }
}

#[cfg(test)]
fn render(root: &Value) -> String {
    render_indented(root, b"  ")
}

/// `root` as JSON indented with `indent`, and a final newline.
fn render_indented(root: &Value, indent: &[u8]) -> String {
    use serde::Serialize as _;
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    root.serialize(&mut ser)
        .expect("a JSON value always serializes");
    let mut text = String::from_utf8(out).expect("serde_json writes UTF-8");
    text.push('\n');
    text
}

/// The indentation a file's text uses (the first indented line's), so an
/// edit keeps a 4-space or tab-indented file as it was; two spaces for a
/// new or one-line file.
fn indent_of(text: Option<&str>) -> Vec<u8> {
    text.and_then(|t| {
        t.lines().skip(1).find_map(|l| {
            let n = l.len() - l.trim_start_matches([' ', '\t']).len();
            (n > 0 && !l.trim().is_empty()).then(|| l.as_bytes()[..n].to_vec())
        })
    })
    .unwrap_or_else(|| b"  ".to_vec())
}

fn is_vouch_handler(handler: &Value, keys: &[&str]) -> bool {
    keys.iter().any(|k| {
        handler
            .get(k)
            .and_then(Value::as_str)
            .is_some_and(is_vouch_command)
    })
}

/// The object at `key` in `map`, inserted empty when absent.
fn object_at<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
    shown: &str,
) -> Result<&'a mut Map<String, Value>, Malformed> {
    map.entry(key)
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| Malformed::Shape(shown.to_owned(), "an object"))
}

fn merged_json(
    spec: &JsonSpec,
    existing: Option<&str>,
    command: &str,
) -> Result<String, Malformed> {
    let original = existing.map(parse).transpose()?;
    let mut root = original
        .clone()
        .unwrap_or_else(|| Value::Object(Map::new()));
    let top = root
        .as_object_mut()
        .ok_or_else(|| Malformed::Shape("the top level".to_owned(), "an object"))?;
    if spec.versioned && !top.contains_key("version") {
        top.insert("version".to_owned(), json!(1));
    }
    let hooks = object_at(top, "hooks", "hooks")?;
    let shown = format!("hooks.{}", spec.event);
    let list = hooks
        .entry(spec.event)
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| Malformed::Shape(shown.clone(), "a list"))?;
    let want = (spec.handler)(command);
    let kept = match spec.group_matcher {
        Some(matcher) => keep_one_grouped(list, matcher, spec.command_keys, &want),
        None => keep_one(list, spec.command_keys, Some(&want)),
    };
    if !kept {
        let entry = match spec.group_matcher {
            Some(matcher) => json!({"matcher": matcher, "hooks": [want]}),
            None => want.clone(),
        };
        list.push(entry);
    }
    match (existing, original) {
        (Some(text), Some(before)) if before == root => Ok(text.to_owned()),
        // The file's own text, edited where vouch's entry goes: its
        // comments and layout stay. Checked against the value edit.
        (Some(text), Some(_))
            if let Some(edited) = merged_text(spec, text, &want)
                && parse(&edited).is_ok_and(|v| v == root) =>
        {
            Ok(edited)
        }
        _ => Ok(render_indented(&root, &indent_of(existing))),
    }
}

/// Updates the first of vouch's handlers in `list` to `want` and drops the
/// others (all of them when `want` is `None`). Returns whether one was kept.
fn keep_one(list: &mut Vec<Value>, keys: &[&str], want: Option<&Value>) -> bool {
    let mut kept = false;
    list.retain_mut(|handler| {
        if !is_vouch_handler(handler, keys) {
            return true;
        }
        match want {
            Some(want) if !kept => {
                kept = true;
                update(handler, want, keys);
                true
            }
            _ => false,
        }
    });
    kept
}

/// [`keep_one`] over matcher groups: the handler kept must sit in a group
/// whose matcher is `matcher`; groups this leaves empty are dropped.
fn keep_one_grouped(list: &mut Vec<Value>, matcher: &str, keys: &[&str], want: &Value) -> bool {
    let mut kept = false;
    list.retain_mut(|group| {
        let same = group.get("matcher").and_then(Value::as_str) == Some(matcher);
        let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = handlers.len();
        let keep_here = same && !kept;
        let here = keep_one(handlers, keys, keep_here.then_some(want));
        kept |= here;
        !(handlers.is_empty() && before > 0)
    });
    kept
}

/// Sets vouch's keys on an existing handler, keeping any others; a stale
/// command under another command key is dropped.
fn update(handler: &mut Value, want: &Value, keys: &[&str]) {
    let (Some(handler), Some(want)) = (handler.as_object_mut(), want.as_object()) else {
        return;
    };
    for key in keys {
        if !want.contains_key(*key)
            && handler
                .get(*key)
                .and_then(Value::as_str)
                .is_some_and(is_vouch_command)
        {
            handler.remove(*key);
        }
    }
    // Older vouch versions wrote a `matcher` into their Copilot CLI handler;
    // its `preToolUse` has no such field.
    if want.contains_key("bash") && handler.get("matcher") == Some(&json!("bash")) {
        handler.remove("matcher");
    }
    for (key, value) in want {
        handler.insert(key.clone(), value.clone());
    }
}

fn removed_json(spec: &JsonSpec, existing: &str) -> Result<Option<Removal>, Malformed> {
    let before = parse(existing)?;
    let mut root = before.clone();
    let Some(top) = root.as_object_mut() else {
        return Err(Malformed::Shape("the top level".to_owned(), "an object"));
    };
    let Some(hooks_value) = top.get_mut("hooks") else {
        return Ok(None);
    };
    let hooks = hooks_value
        .as_object_mut()
        .ok_or_else(|| Malformed::Shape("hooks".to_owned(), "an object"))?;
    let Some(list_value) = hooks.get_mut(spec.event) else {
        return Ok(None);
    };
    let list = list_value
        .as_array_mut()
        .ok_or_else(|| Malformed::Shape(format!("hooks.{}", spec.event), "a list"))?;
    let had = list.len();
    if spec.group_matcher.is_some() {
        list.retain_mut(|group| {
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let before = handlers.len();
            keep_one(handlers, spec.command_keys, None);
            !(handlers.is_empty() && before > 0)
        });
    } else {
        keep_one(list, spec.command_keys, None);
    }
    if root == before {
        return Ok(None);
    }
    // Drop the containers this removal emptied, innermost first.
    let top = root.as_object_mut().expect("checked above");
    let hooks = top
        .get_mut("hooks")
        .and_then(Value::as_object_mut)
        .expect("checked above");
    if had > 0
        && hooks
            .get(spec.event)
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
    {
        hooks.remove(spec.event);
        if hooks.is_empty() {
            top.remove("hooks");
        }
    }
    let only_version = spec.versioned && top.len() == 1 && top.contains_key("version");
    if top.is_empty() || only_version {
        return Ok(Some(Removal::Delete));
    }
    if let Some(edited) = removed_text(spec, existing)
        && parse(&edited).is_ok_and(|v| v == root)
    {
        return Ok(Some(Removal::Rewrite(edited)));
    }
    Ok(Some(Removal::Rewrite(render_indented(
        &root,
        &indent_of(Some(existing)),
    ))))
}

fn merged_plugin(existing: Option<&str>, command: &str) -> Result<String, Malformed> {
    match existing {
        Some(text) if !text.trim().is_empty() && !text.contains(PLUGIN_MARKER) => {
            Err(Malformed::NotOurs)
        }
        _ => Ok(plugin_text(command)),
    }
}

/// The opencode plugin; the module documentation describes its protocol.
fn plugin_text(command: &str) -> String {
    let command = serde_json::to_string(command).expect("a string always serializes");
    let timeout_ms = HOOK_TIMEOUT_SECS * 1000;
    format!(
        r#"{PLUGIN_MARKER}: written by `git vouch agent install opencode`; `git vouch agent uninstall opencode` removes it.
// Every bash command the agent wants to run is first put to `git vouch agent-hook opencode`,
// which answers {{"decision": "allow" | "deny", "reason": "..."}} on stdout.
import {{ spawnSync }} from "node:child_process";

const COMMAND = {command};
const TIMEOUT_MS = {timeout_ms};

// A hook that fails must not let the command through: no verdict is a refusal.
function noVerdict(why) {{
  throw new Error(`vouch gave no verdict (${{why}}), so the command is refused; a person must decide`);
}}

export const VouchGuard = async ({{ directory }}) => ({{
  "tool.execute.before": async (input, output) => {{
    if (input.tool !== "bash") return;
    const request = JSON.stringify({{
      tool: input.tool,
      args: output.args,
      sessionID: input.sessionID,
      cwd: directory,
    }});
    const run = spawnSync("/bin/sh", ["-c", COMMAND], {{
      input: request,
      encoding: "utf8",
      timeout: TIMEOUT_MS,
    }});
    // A deny on stdout stands even when writing the request failed (a
    // refusal that exits without reading it: EPIPE); nothing else does.
    let answer;
    try {{
      answer = JSON.parse(run.stdout);
    }} catch {{
      if (run.error) return noVerdict(run.error.message);
      return noVerdict(`unreadable answer, exit status ${{run.status}}`);
    }}
    if (answer && answer.decision === "deny") {{
      throw new Error(answer.reason || "vouch refused this command");
    }}
    if (run.error) return noVerdict(run.error.message);
    if (!answer || answer.decision !== "allow") return noVerdict("no decision in the answer");
  }},
}});
"#
    )
}

fn read_optional(path: &Path) -> Result<Option<String>, SettingsError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SettingsError::Io {
            action: "read",
            path: path.to_owned(),
            source,
        }),
    }
}

/// Writes `text` to `path` through a temporary file in the same directory,
/// keeping the old file's permissions and following a symbolic link.
fn write_atomic(path: &Path, text: &str) -> Result<(), SettingsError> {
    let io_error = |action, path: &Path| {
        let path = path.to_owned();
        move |source| SettingsError::Io {
            action,
            path,
            source,
        }
    };
    let target = match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            fs::canonicalize(path).map_err(io_error("follow the link", path))?
        }
        _ => path.to_owned(),
    };
    crate::platform::files::write_atomic(&target, text.as_bytes(), 0o644)
        .map_err(io_error("write", &target))
}

#[cfg(test)]
mod tests;
