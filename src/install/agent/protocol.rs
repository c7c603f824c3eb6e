//! PURE: each agent's pre-tool hook protocol (SPEC 3.4): the JSON an agent
//! sends on stdin, read into a [`Request`], and vouch's [`Answer`] written
//! back in that agent's words.
//!
//! | agent | input | answer |
//! | --- | --- | --- |
//! | Claude Code `PreToolUse` | `session_id`, `cwd`, `tool_name`, `tool_input.command`, `permission_mode` (`model` when present) | `hookSpecificOutput.permissionDecision` `deny`, or `ask` in a mode where a person answers, with `permissionDecisionReason` (a deny's for the model, an ask's for the person) |
//! | Codex `PreToolUse` | as Claude's, plus `model`, `turn_id` | only a deny blocks (ask is not supported and would fail open): exit 2, the reason on stderr |
//! | Gemini CLI `BeforeTool` | `session_id`, `cwd`, `tool_name` (`run_shell_command`), `tool_input.command` | `decision` `deny` (or `allow`) with `reason`; no ask |
//! | Cursor `beforeShellExecution` | `command`, `cwd`, `workspace_roots`, `conversation_id` | `permission` `allow`/`deny` with `user_message` and `agent_message` (its `ask` is not put to a person in Auto-review mode) |
//! | Copilot CLI `preToolUse` | `toolName`, `toolArgs` (a JSON string holding `command`), `cwd` | `permissionDecision` `deny` with `permissionDecisionReason`; no ask |
//! | `OpenCode` (vouch's plugin) | `tool`, `args.command`, `sessionID`, `cwd` | `decision` `allow`/`deny` with `reason`; no ask |
//!
//! vouch never grants more than the agent's own settings would: a command it
//! has nothing against gets no opinion (the agent's normal permission flow
//! goes on), so only `deny` and `ask` are ever sent, except to Cursor and to
//! vouch's opencode plugin, which expect an answer and get `allow`.

use serde_json::{Value, json};

use crate::decide::{Action, AuditResult};
use crate::install::agent::Agent;

/// What an agent asks about.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Request {
    /// The tool the agent is about to call.
    pub tool: String,
    /// The shell command, when the tool runs one.
    pub command: Option<String>,
    /// The agent's working directory.
    pub cwd: Option<String>,
    /// The agent's session id.
    pub session: Option<String>,
    /// The model that proposed the command, when the agent says.
    pub model: Option<String>,
    /// The tool has run already: the agent's post-tool hook
    /// (`PostToolUse`, `AfterTool`, `afterShellExecution`, `postToolUse`).
    pub after: bool,
    /// Claude Code's `permission_mode`: who answers its permission prompt.
    pub permission_mode: Option<String>,
}

/// The hook events that run after a tool, by their names in each agent.
const AFTER_EVENTS: [&str; 4] = [
    "PostToolUse",
    "AfterTool",
    "afterShellExecution",
    "postToolUse",
];

/// The agent's input could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read {agent}'s hook input: {why}")]
pub struct BadInput {
    /// The agent's name.
    pub agent: &'static str,
    /// What was wrong.
    pub why: String,
    /// A command found in the raw text anyway, to judge it: a malformed
    /// message must not carry a dangerous command past vouch.
    pub command: Option<String>,
}

/// Reads an agent's hook input.
pub fn parse(agent: Agent, input: &[u8]) -> Result<Request, BadInput> {
    let bad = |why: String| BadInput {
        agent: agent.name(),
        why,
        command: salvage_command(input),
    };
    let v: Value = serde_json::from_slice(input).map_err(|e| bad(format!("not JSON ({e})")))?;
    if !v.is_object() {
        return Err(bad("expected a JSON object".into()));
    }
    let s = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let request = match agent {
        Agent::Claude | Agent::Codex | Agent::Gemini => Request {
            tool: s("tool_name").unwrap_or_default(),
            command: v
                .pointer("/tool_input/command")
                .and_then(Value::as_str)
                .map(str::to_owned),
            cwd: s("cwd"),
            session: s("session_id"),
            model: s("model"),
            after: false,
            permission_mode: s("permission_mode"),
        },
        Agent::Cursor => Request {
            tool: "shell".into(),
            command: s("command"),
            cwd: s("cwd").or_else(|| {
                v.pointer("/workspace_roots/0")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }),
            session: s("conversation_id").or_else(|| s("session_id")),
            model: s("model"),
            after: false,
            permission_mode: None,
        },
        Agent::Copilot => {
            let args = match v.get("toolArgs") {
                Some(Value::String(text)) => serde_json::from_str::<Value>(text).map_err(|e| {
                    bad(format!(
                        "`toolArgs` is not a JSON string of arguments ({e})"
                    ))
                })?,
                Some(other) => other.clone(),
                None => Value::Null,
            };
            Request {
                tool: s("toolName").unwrap_or_default(),
                command: args
                    .get("command")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                cwd: s("cwd"),
                session: s("sessionId").or_else(|| s("session_id")),
                model: s("model"),
                after: false,
                permission_mode: None,
            }
        }
        Agent::Opencode => Request {
            tool: s("tool").unwrap_or_default(),
            command: v
                .pointer("/args/command")
                .and_then(Value::as_str)
                .map(str::to_owned),
            cwd: s("cwd"),
            session: s("sessionID"),
            model: s("model"),
            after: false,
            permission_mode: None,
        },
    };
    let event = s("hook_event_name").or_else(|| s("hookEventName"));
    let request = Request {
        after: event.is_some_and(|e| AFTER_EVENTS.contains(&e.as_str())),
        ..request
    };
    if request.command.is_none() && is_shell_tool(agent, &request.tool) {
        return Err(bad(format!(
            "the `{}` tool call carries no command",
            request.tool
        )));
    }
    Ok(request)
}

/// True when `tool` runs shell commands in that agent.
pub fn is_shell_tool(agent: Agent, tool: &str) -> bool {
    match agent {
        Agent::Claude | Agent::Codex => {
            matches!(tool, "Bash" | "shell" | "local_shell" | "exec_command")
        }
        Agent::Gemini => tool == "run_shell_command",
        Agent::Cursor => true,
        Agent::Copilot => matches!(tool, "bash" | "shell" | "powershell"),
        Agent::Opencode => tool == "bash",
    }
}

/// The model family an agent is built on (SPEC 3.4), unless its `model`
/// field says otherwise.
pub fn agent_family(agent: Agent) -> Option<&'static str> {
    match agent {
        Agent::Claude => Some("anthropic"),
        Agent::Codex => Some("openai"),
        Agent::Gemini => Some("google"),
        Agent::Cursor | Agent::Copilot | Agent::Opencode => None,
    }
}

/// A string value of a `"command"` key in text that is not valid JSON.
fn salvage_command(input: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(input);
    let at = text.find("\"command\"")?;
    let rest = text[at + "\"command\"".len()..].trim_start();
    let rest = rest.strip_prefix(':')?.trim_start().strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    // Cut off: what was read is still a command to judge.
    (!out.is_empty()).then_some(out)
}

/// vouch's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Nothing against it: the agent's own permission flow decides.
    NoOpinion,
    /// Ask the person (agents that cannot ask get a deny).
    Ask(String),
    /// Refuse.
    Deny(String),
}

/// The decision table's outcome in the words an agent reads. Nothing here
/// names a way past vouch (no skip variable, no approval command, no
/// `--no-verify`): an agent is told that its person decides.
pub fn answer(
    action: &Action,
    result: AuditResult,
    headline: &str,
    concerns: &[String],
    unavailable: Option<&str>,
    late: bool,
) -> Answer {
    if matches!(action, Action::Allow { .. }) {
        return Answer::NoOpinion;
    }
    let mut sentences = vec![format!("{headline}.")];
    sentences.extend(match result {
        AuditResult::Warn => Some("The verifiers raised concerns.".to_owned()),
        AuditResult::Block => Some("The verifiers judged it unsafe.".to_owned()),
        AuditResult::Unavailable if late => {
            Some("No verdict within the time allowed, so it is refused.".to_owned())
        }
        AuditResult::Unavailable => Some(format!(
            "It could not be verified ({}).",
            unavailable.unwrap_or("no verifier answered")
        )),
        AuditResult::Proceed | AuditResult::Skipped => None,
    });
    if !concerns.is_empty() {
        let shown: Vec<String> = concerns
            .iter()
            .take(3)
            .map(|c| crate::input::text::one_line(c, 200))
            .collect();
        sentences.push(format!("Concerns: {}.", shown.join("; ")));
    }
    // Claude Code shows an `ask` reason to the person and a `deny` reason
    // to the model (issue 35 item 5): each is worded for its reader.
    if *action == Action::Ask {
        sentences.push(
            "If you allow it, vouch lets exactly this command through once, for the refs and commits shown here."
                .to_owned(),
        );
        Answer::Ask(sentences.join(" "))
    } else {
        sentences.push(DENIED_TO_THE_MODEL.to_owned());
        Answer::Deny(sentences.join(" "))
    }
}

/// What a model reads last when vouch refuses its command: what to do
/// instead (never how to get past vouch).
pub const DENIED_TO_THE_MODEL: &str = "Do not run it in another form or work around this check: stop, and tell the person you work for what you meant to do and why. If it is intended, they can run it themselves at their terminal, where vouch asks them.";

/// What vouch writes back: standard output, standard error and exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// Standard output (JSON, or nothing).
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit code.
    pub code: u8,
}

/// Adds `note` (what the previous command lost, and how to undo it) to a
/// reply: on stderr for every agent, and as Claude Code's `systemMessage`,
/// which it shows its person.
pub fn add_note(agent: Agent, reply: &mut Reply, note: &str) {
    reply.stderr.push_str(note);
    reply.stderr.push('\n');
    if agent == Agent::Claude {
        let mut value: Value =
            serde_json::from_str(reply.stdout.trim()).unwrap_or_else(|_| json!({}));
        if let Some(object) = value.as_object_mut() {
            object.insert("systemMessage".into(), Value::String(note.to_owned()));
            reply.stdout = format!("{value}\n");
        }
    }
}

/// The reply to a post-tool hook: nothing, or `note` (what the command
/// lost, and how to undo it) on stderr for every agent, and for Claude
/// Code, Codex and Gemini CLI as the `systemMessage` its person sees and
/// the `additionalContext` the model reads.
pub fn after_reply(agent: Agent, note: Option<&str>) -> Reply {
    let Some(note) = note else {
        return Reply {
            stdout: String::new(),
            stderr: String::new(),
            code: 0,
        };
    };
    let event = match agent {
        Agent::Claude | Agent::Codex => Some("PostToolUse"),
        Agent::Gemini => Some("AfterTool"),
        _ => None,
    };
    let stdout = event.map_or_else(String::new, |event| {
        format!(
            "{}\n",
            json!({
                "systemMessage": note,
                "hookSpecificOutput": {
                    "hookEventName": event,
                    "additionalContext": note,
                },
            })
        )
    });
    Reply {
        stdout,
        stderr: format!("{note}\n"),
        code: 0,
    }
}

/// True when the agent's protocol has an answer that asks its person
/// (`docs/agents.md`, "Who answers an ask"): Claude Code's `ask`. Cursor's
/// `ask` is not put to the person in its Auto-review mode, and its hook is
/// not told the mode; Codex, Gemini CLI, Copilot CLI and vouch's `OpenCode`
/// plugin have none vouch can rely on.
pub fn can_ask(agent: Agent) -> bool {
    agent == Agent::Claude
}

/// Claude Code's permission modes in which a person answers its prompt
/// (`default`, shown as Manual, also typed `manual`; `acceptEdits`;
/// `plan`). In `auto` a classifier answers instead, `dontAsk` denies
/// whatever would prompt, and `bypassPermissions` prompts for nothing.
const PERSON_MODES: [&str; 4] = ["default", "manual", "acceptEdits", "plan"];

/// True when an `ask` answered to this request is put to a person
/// (issue 35 item 1): the agent can ask, and, for Claude Code, the
/// `permission_mode` its message names is one where a person answers. A
/// message without a mode is not certain to reach one: no.
pub fn person_answers(agent: Agent, request: &Request) -> bool {
    can_ask(agent)
        && request
            .permission_mode
            .as_deref()
            .is_some_and(|m| PERSON_MODES.contains(&m))
}

/// Writes `answer` in the agent's protocol.
pub fn reply(agent: Agent, answer: &Answer) -> Reply {
    let ok = |stdout: Value| Reply {
        stdout: format!("{stdout}\n"),
        stderr: String::new(),
        code: 0,
    };
    let (decision, reason) = match answer {
        Answer::NoOpinion => {
            return if agent == Agent::Cursor {
                ok(json!({"permission": "allow"}))
            } else if agent == Agent::Opencode {
                // vouch's plugin reads every answer; no opinion is an allow.
                ok(json!({"decision": "allow"}))
            } else {
                Reply {
                    stdout: String::new(),
                    stderr: String::new(),
                    code: 0,
                }
            };
        }
        Answer::Ask(r) if can_ask(agent) => ("ask", r.as_str()),
        Answer::Ask(r) | Answer::Deny(r) => ("deny", r.as_str()),
    };
    match agent {
        Agent::Claude => ok(json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "permissionDecisionReason": reason,
            }
        })),
        // Only a deny blocks in Codex; exit 2 with the reason on stderr is the
        // form every version honours.
        Agent::Codex => Reply {
            stdout: String::new(),
            stderr: format!("{reason}\n"),
            code: 2,
        },
        Agent::Gemini | Agent::Opencode => ok(json!({"decision": decision, "reason": reason})),
        Agent::Cursor => ok(json!({
            "permission": decision,
            "user_message": reason,
            "agent_message": reason,
        })),
        Agent::Copilot => ok(json!({
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        })),
    }
}

/// The agent's blocking answer when vouch itself failed while judging: the
/// command is refused in that agent's own words, never a bare exit code the
/// agent would read as "go ahead".
pub fn blocking(agent: Agent, why: &str) -> Reply {
    reply(
        agent,
        &Answer::Deny(format!(
            "vouch failed while judging this command ({}), so it is refused. A person must decide at their terminal.",
            crate::input::text::one_line(why, 300)
        )),
    )
}

/// Runs the agent door's `work`; a panic or an error inside it becomes the
/// agent's [`blocking`] answer (the `Err`), so the door fails closed.
pub fn fail_closed<T>(agent: Agent, work: impl FnOnce() -> anyhow::Result<T>) -> Result<T, Reply> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(Ok(done)) => Ok(done),
        Ok(Err(e)) => Err(blocking(agent, &format!("{e:#}"))),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            Err(blocking(agent, &format!("internal error: {what}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agent_input_is_read() {
        let claude = br#"{"session_id":"s1","cwd":"/r","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}"#;
        let r = parse(Agent::Claude, claude).unwrap();
        assert_eq!(r.command.as_deref(), Some("git status"));
        assert_eq!(r.session.as_deref(), Some("s1"));
        let codex = br#"{"session_id":"s","cwd":"/r","tool_name":"Bash","tool_input":{"command":"ls"},"model":"gpt-5","turn_id":"t"}"#;
        assert_eq!(
            parse(Agent::Codex, codex).unwrap().model.as_deref(),
            Some("gpt-5")
        );
        let cursor = br#"{"command":"rm -rf /","cwd":"","workspace_roots":["/w"]}"#;
        let r = parse(Agent::Cursor, cursor).unwrap();
        assert_eq!(r.cwd.as_deref(), Some(""));
        let copilot = br#"{"timestamp":1,"cwd":"/r","toolName":"bash","toolArgs":"{\"command\":\"git push -f\"}"}"#;
        assert_eq!(
            parse(Agent::Copilot, copilot).unwrap().command.as_deref(),
            Some("git push -f")
        );
        let opencode = br#"{"tool":"bash","args":{"command":"ls"},"sessionID":"x","cwd":"/r"}"#;
        assert_eq!(
            parse(Agent::Opencode, opencode).unwrap().session.as_deref(),
            Some("x")
        );
        let other_tool = br#"{"tool_name":"Read","tool_input":{"file_path":"/x"}}"#;
        assert_eq!(parse(Agent::Claude, other_tool).unwrap().command, None);
    }

    #[test]
    fn malformed_input_is_an_error_that_still_finds_the_command() {
        let e = parse(
            Agent::Claude,
            b"{\"tool_input\": {\"command\": \"git reset --hard\"",
        )
        .unwrap_err();
        assert_eq!(e.command.as_deref(), Some("git reset --hard"));
        assert!(e.to_string().contains("not JSON"), "{e}");
        let e = parse(Agent::Claude, br#"{"tool_name":"Bash","tool_input":{}}"#).unwrap_err();
        assert!(e.why.contains("carries no command"));
        assert!(parse(Agent::Gemini, b"[1,2]").is_err());
    }

    #[test]
    fn answers_follow_each_protocol() {
        let deny = Answer::Deny("no".into());
        let ask = Answer::Ask("sure?".into());
        let claude = reply(Agent::Claude, &ask);
        assert!(
            claude.stdout.contains(r#""permissionDecision":"ask""#),
            "{}",
            claude.stdout
        );
        let codex = reply(Agent::Codex, &ask);
        assert_eq!((codex.code, codex.stderr.as_str()), (2, "sure?\n"));
        let gemini = reply(Agent::Gemini, &ask);
        assert!(gemini.stdout.contains(r#""decision":"deny""#));
        let cursor = reply(Agent::Cursor, &deny);
        assert!(
            cursor.stdout.contains(r#""permission":"deny""#)
                && cursor.stdout.contains("agent_message")
        );
        assert_eq!(
            reply(Agent::Cursor, &Answer::NoOpinion).stdout,
            "{\"permission\":\"allow\"}\n"
        );
        let copilot = reply(Agent::Copilot, &ask);
        assert!(copilot.stdout.contains(r#""permissionDecision":"deny""#));
        assert_eq!(reply(Agent::Claude, &Answer::NoOpinion).stdout, "");
        // The opencode plugin takes anything but an allow for a failure.
        assert_eq!(
            reply(Agent::Opencode, &Answer::NoOpinion).stdout,
            "{\"decision\":\"allow\"}\n"
        );
    }
    #[test]
    fn a_panic_or_an_error_in_the_door_is_each_agents_blocking_answer() {
        for agent in [
            Agent::Claude,
            Agent::Codex,
            Agent::Gemini,
            Agent::Cursor,
            Agent::Copilot,
            Agent::Opencode,
        ] {
            let panicked =
                fail_closed(agent, || -> anyhow::Result<()> { panic!("boom") }).unwrap_err();
            let failed = fail_closed(agent, || -> anyhow::Result<()> { anyhow::bail!("broken") })
                .unwrap_err();
            for (reply, cause) in [(&panicked, "boom"), (&failed, "broken")] {
                let text = format!("{}{}", reply.stdout, reply.stderr);
                assert!(text.contains(cause), "{agent:?}: {text}");
                assert!(text.contains("refused"), "{agent:?}: {text}");
                if agent == Agent::Codex {
                    assert_eq!(reply.code, 2, "Codex blocks with exit 2");
                } else {
                    assert_eq!(
                        reply.code, 0,
                        "{agent:?}: the JSON answer is read on exit 0"
                    );
                    let v: Value = serde_json::from_str(&reply.stdout).unwrap();
                    let decision = v
                        .pointer("/hookSpecificOutput/permissionDecision")
                        .or_else(|| v.get("decision"))
                        .or_else(|| v.get("permission"))
                        .or_else(|| v.get("permissionDecision"));
                    assert_eq!(decision, Some(&json!("deny")), "{agent:?}: {v}");
                }
            }
            assert_eq!(fail_closed(agent, || Ok(7)), Ok(7));
        }
    }
}
