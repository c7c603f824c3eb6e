//! No panic on any input (issue 12, item 5): property tests over every
//! parser a door feeds with outside input: the pre-push and
//! reference-transaction stdin, a hook's git argv, each agent's hook JSON,
//! the shell parser and classifier, and the config loader.
//!
//! Inputs are seeds from `fixtures/fuzz/<target>/` mutated (bytes inserted,
//! deleted, replaced, duplicated; tokens spliced in), plus structured ones
//! built from each format's own tokens. CI runs a short fuzz on every test
//! run; `VOUCH_FUZZ_CASES=20000 cargo test --test it fuzz::` runs a long one.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::json;
use vouch::classify::config::{self, ConfigFile, ConfigInputs};
use vouch::classify::shell::{self, Rules};
use vouch::input::{git_command, hooks};
use vouch::install::agent::protocol;
use vouch::install::agent::settings::Agent;
use vouch::platform::env::MapEnv;

/// Cases per target: a short run by default, `VOUCH_FUZZ_CASES` for more.
fn cases() -> u32 {
    #[expect(
        clippy::disallowed_methods,
        reason = "the test runner's own environment"
    )]
    std::env::var("VOUCH_FUZZ_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(2000)
}

#[expect(clippy::print_stderr, reason = "the count run is the fuzz report")]
fn run<S: Strategy>(name: &str, strategy: S, test: impl Fn(S::Value)) {
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&strategy, |input| {
        test(input);
        Ok(())
    });
    if let Err(e) = result {
        panic!("fuzz target {name}: {e}");
    }
    eprintln!("fuzz target {name}: {} inputs, no panic", cases());
}

/// The seeds of one target.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/fuzz")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    seeds
}

/// One change to an input.
#[derive(Debug, Clone)]
enum Mutation {
    Insert(Index, u8),
    Delete(Index, usize),
    Replace(Index, u8),
    Splice(Index, &'static str),
    Duplicate(Index, usize),
    Truncate(Index),
}

fn apply(mut input: Vec<u8>, mutations: Vec<Mutation>) -> Vec<u8> {
    for m in mutations {
        let at = |i: &Index, extra: usize| i.index(input.len() + extra);
        match m {
            Mutation::Insert(i, b) => {
                let p = at(&i, 1);
                input.insert(p, b);
            }
            Mutation::Delete(i, n) if !input.is_empty() => {
                let p = at(&i, 0);
                let end = (p + n).min(input.len());
                input.drain(p..end);
            }
            Mutation::Replace(i, b) if !input.is_empty() => {
                let p = at(&i, 0);
                input[p] = b;
            }
            Mutation::Splice(i, token) => {
                let p = at(&i, 1);
                input.splice(p..p, token.bytes());
            }
            Mutation::Duplicate(i, n) if !input.is_empty() => {
                let p = at(&i, 0);
                let end = (p + n).min(input.len());
                let copy = input[p..end].to_vec();
                input.splice(p..p, copy);
            }
            Mutation::Truncate(i) => {
                let p = at(&i, 1);
                input.truncate(p);
            }
            _ => {}
        }
    }
    input
}

/// Bytes that matter to most formats here.
const BYTES: &[u8] = b"\0\n\r\t \"'\\$`;&|(){}[]<>=:,.-+*?!#~^@/\xff\xc3\xa9";

fn mutation(tokens: &'static [&'static str]) -> impl Strategy<Value = Mutation> {
    let byte = prop_oneof![select(BYTES), any::<u8>()];
    prop_oneof![
        (any::<Index>(), byte.clone()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<Index>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<Index>(), byte).prop_map(|(i, b)| Mutation::Replace(i, b)),
        (any::<Index>(), select(tokens)).prop_map(|(i, t)| Mutation::Splice(i, t)),
        (any::<Index>(), 1usize..64).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        any::<Index>().prop_map(Mutation::Truncate),
    ]
}

/// A seed of `target` with up to eight mutations.
fn mutated(target: &str, tokens: &'static [&'static str]) -> impl Strategy<Value = Vec<u8>> {
    (
        select(seeds(target)),
        prop::collection::vec(mutation(tokens), 0..8),
    )
        .prop_map(|(seed, ms)| apply(seed, ms))
}

/// Words joined by separators: shell-like text built from `tokens`.
fn words(tokens: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::collection::vec(
        (select(tokens), select(&[" ", "", " ", "\n", "\t", ";"][..])),
        0..24,
    )
    .prop_map(|parts| parts.into_iter().flat_map(|(w, s)| [w, s]).collect())
}

const OID: &str = "8ef89f4847aa2b8b1c4b1f3e3c6d1f0a9b7c6d5e";
const ZERO: &str = "0000000000000000000000000000000000000000";

const REF_TOKENS: &[&str] = &[
    OID,
    ZERO,
    "refs/heads/",
    "refs/tags/",
    "refs/stash",
    "refs/vouch/rescue/",
    "(delete)",
    "HEAD",
    "ref:",
    " ",
    "\n",
    "\r\n",
    "\0",
    "main@{1}",
    "\u{fffd}",
    "é",
    "8ef89f4847",
];

#[test]
fn pre_push_and_reference_transaction_input_never_panics() {
    run(
        "pre-push stdin",
        prop_oneof![
            mutated("pre-push", REF_TOKENS),
            words(REF_TOKENS).prop_map(String::into_bytes)
        ],
        |input| {
            if let Ok(updates) = hooks::parse_pre_push(&input) {
                for u in &updates {
                    let _ = (u.is_delete(), u.is_create(), u.line());
                }
            }
        },
    );
    run(
        "reference-transaction stdin",
        prop_oneof![
            mutated("ref-tx", REF_TOKENS),
            words(REF_TOKENS).prop_map(String::into_bytes)
        ],
        |input| {
            for u in git_command::guarded_updates(&input) {
                let _ = u.is_delete();
            }
        },
    );
}

const ARGV_TOKENS: &[&str] = &[
    "git",
    "/usr/bin/git",
    "push",
    "branch",
    "tag",
    "reset",
    "stash",
    "update-ref",
    "-C",
    "-c",
    "--git-dir",
    "--git-dir=",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--exec-path",
    "-D",
    "-d",
    "-M",
    "-m",
    "-f",
    "--force",
    "--force-with-lease",
    "--force-with-lease=main:",
    "--mirror",
    "--delete",
    "--hard",
    "+",
    ":",
    "-",
    "--",
    "origin",
    "main",
    "refs/heads/main",
    "\0",
    "",
];

#[test]
fn a_hooks_git_argv_never_panics() {
    let argv = prop_oneof![
        mutated("argv", ARGV_TOKENS).prop_map(|bytes| {
            String::from_utf8_lossy(&bytes)
                .split('\0')
                .map(str::to_owned)
                .collect::<Vec<_>>()
        }),
        prop::collection::vec(select(ARGV_TOKENS).prop_map(str::to_owned), 0..12),
    ];
    let updates = mutated("ref-tx", REF_TOKENS);
    run("git argv", (argv, updates), |(argv, input)| {
        let push = hooks::parse_push_argv(&argv);
        let _ = format!("{push:?}");
        if let Some(command) = git_command::GitCommand::parse(&argv) {
            let _ = (command.action(), command.has_flag(&["-f", "--force"]));
            for u in git_command::guarded_updates(&input) {
                let _ = git_command::rename_target(&command, &u);
                let _ = git_command::routine_because(&command, &u);
            }
        }
    });
}

const AGENTS: [Agent; 6] = [
    Agent::Claude,
    Agent::Codex,
    Agent::Gemini,
    Agent::Cursor,
    Agent::Copilot,
    Agent::Opencode,
];

const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "\\u0000",
    "\\ud800",
    "\\\"",
    "null",
    "true",
    "1e999",
    "\"command\"",
    "\"command\":",
    "\"tool_input\":{",
    "\"toolArgs\":\"",
    "\"args\":{",
    "\"tool_name\":\"Bash\"",
    "\"cwd\":",
    "git reset --hard",
    "git -c",
];

/// A well-formed message of one of the agents, with odd values.
fn agent_message() -> impl Strategy<Value = Vec<u8>> {
    let value = prop_oneof![
        words(SHELL_TOKENS).prop_map(serde_json::Value::String),
        Just(serde_json::Value::Null),
        any::<i64>().prop_map(|n| json!(n)),
        Just(json!(["x", {"command": "git push -f"}])),
        Just(json!({"command": 1})),
    ];
    (
        0usize..5,
        value.clone(),
        value,
        select(&["Bash", "shell", "run_shell_command", "bash", "Read", ""][..]),
    )
        .prop_map(|(shape, command, cwd, tool)| {
            let v = match shape {
                0 => json!({"tool_name": tool, "tool_input": {"command": command}, "cwd": cwd}),
                1 => json!({"command": command, "cwd": cwd, "workspace_roots": [cwd]}),
                2 => json!({"toolName": tool, "toolArgs": json!({"command": command}).to_string(), "cwd": cwd}),
                3 => json!({"toolName": tool, "toolArgs": {"command": command}}),
                _ => json!({"tool": tool, "args": {"command": command}, "sessionID": cwd}),
            };
            v.to_string().into_bytes()
        })
}

#[test]
fn agent_hook_json_never_panics() {
    run(
        "agent-hook JSON",
        (
            select(&AGENTS[..]),
            prop_oneof![
                mutated("agent", JSON_TOKENS),
                agent_message(),
                prop::collection::vec(any::<u8>(), 0..256),
            ],
        ),
        |(agent, input)| {
            let answer = match protocol::parse(agent, &input) {
                Ok(request) => request.command.map_or(protocol::Answer::NoOpinion, |c| {
                    protocol::Answer::Deny(format!("`{c}` refused"))
                }),
                Err(bad) => protocol::Answer::Ask(bad.to_string()),
            };
            for a in AGENTS {
                let _ = protocol::reply(a, &answer);
            }
        },
    );
}

const SHELL_TOKENS: &[&str] = &[
    "git",
    "reset",
    "--hard",
    "push",
    "-f",
    "--force",
    "branch",
    "-D",
    "checkout",
    "--",
    "clean",
    "-fdx",
    "stash",
    "drop",
    "-c",
    "-C",
    "--git-dir",
    "--work-tree",
    "--config-env",
    "alias.x=!sh",
    "x",
    "rm",
    "-rf",
    "find",
    "-exec",
    "{}",
    "+",
    "\\;",
    "xargs",
    "sh",
    "bash",
    "-c",
    "eval",
    "exec",
    "env",
    "sudo",
    "nohup",
    "time",
    "command",
    "builtin",
    "cd",
    "GIT_DIR=/x",
    "GIT_CONFIG_COUNT=1",
    "GIT_CONFIG_KEY_0=a",
    "VOUCH_SKIP=1",
    ";",
    "&&",
    "||",
    "|",
    "&",
    "(",
    ")",
    "{",
    "}",
    "$(",
    "`",
    "'",
    "\"",
    "\\",
    "$'\\x41'",
    "${X:-git}",
    "<<EOF",
    "<<-'EOF'",
    "EOF",
    "\n",
    "#",
    "!",
    "\0",
    "é",
    "if",
    "then",
    "fi",
    "for",
    "do",
    "done",
    "while",
    "case",
    "esac",
    "function",
    "=",
];

/// Git aliases, some of them shell scripts, some recursive.
fn alias(name: &str) -> Option<String> {
    match name {
        "x" => Some("!sh -c 'git reset --hard'".into()),
        "nuke" => Some("reset --hard".into()),
        "loop" => Some("loop".into()),
        "p" => Some("push -f".into()),
        _ => None,
    }
}

#[test]
fn the_shell_parser_and_classifier_never_panic() {
    let rules = Rules::builtin();
    run(
        "shell",
        prop_oneof![
            mutated("shell", SHELL_TOKENS).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
            words(SHELL_TOKENS),
            any::<String>(),
        ],
        |cmd| {
            let classified = shell::classify(&cmd, &rules, &alias);
            for m in &classified.matches {
                let _ = (m.command.program(), m.command.working_dir());
            }
        },
    );
}

const CONFIG_TOKENS: &[&str] = &[
    "[protected]",
    "[tiers]",
    "[on_unavailable]",
    "[log]",
    "[verifiers.x]",
    "[[rules]]",
    "[ai]",
    "[agent]",
    "[commit]",
    "mode = \"observe\"",
    "keep = ",
    "max_bytes = ",
    "branches = [\"",
    "pattern = \"",
    "tier = \"",
    "critical",
    "none",
    "command = \"",
    "timeout_secs = ",
    "0",
    "-1",
    "18446744073709551616",
    "\"",
    "'''",
    "[",
    "]",
    "=",
    "\n",
    "é",
    "\u{0}",
    "{",
    "}",
];

#[test]
fn the_config_loader_never_panics() {
    let file = |text: String, path: &str| ConfigFile {
        path: PathBuf::from(path),
        text,
    };
    let text = prop_oneof![
        mutated("config", CONFIG_TOKENS).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        words(CONFIG_TOKENS),
    ];
    run(
        "config",
        (text.clone(), text, any::<bool>()),
        |(user, repo, trusted)| {
            let env = MapEnv::default();
            let inputs = ConfigInputs {
                user: Some(file(user.clone(), "/home/u/.config/vouch/config.toml")),
                repo: Some((file(repo, "/r/.vouch.toml"), trusted)),
            };
            for e in config::Config::resolve(&inputs, &env).broken {
                let _ = e.to_string();
            }
            let alone = ConfigInputs {
                user: Some(file(user, "/home/u/.config/vouch/config.toml")),
                repo: None,
            };
            for e in config::Config::resolve(&alone, &env).broken {
                let _ = e.to_string();
            }
        },
    );
}

/// The agent's input carrying `command`, in that agent's shape.
fn agent_input(agent: Agent, command: &str, cwd: &Path) -> String {
    let cwd = cwd.display().to_string();
    match agent {
        Agent::Claude | Agent::Codex => {
            json!({"session_id": "s", "cwd": cwd, "tool_name": "Bash", "tool_input": {"command": command}})
        }
        Agent::Gemini => {
            json!({"session_id": "s", "cwd": cwd, "tool_name": "run_shell_command", "tool_input": {"command": command}})
        }
        Agent::Cursor => json!({"command": command, "cwd": cwd, "conversation_id": "c"}),
        Agent::Copilot => {
            json!({"cwd": cwd, "toolName": "bash", "toolArgs": json!({"command": command}).to_string()})
        }
        Agent::Opencode => {
            json!({"tool": "bash", "args": {"command": command}, "sessionID": "x", "cwd": cwd})
        }
    }
    .to_string()
}

/// True when `out` is `agent`'s blocking answer.
fn blocks(agent: Agent, out: &crate::support::Out) -> bool {
    if agent == Agent::Codex {
        return out.code == 2 && !out.stderr.trim().is_empty();
    }
    let Ok(v) = serde_json::from_str::<serde_json::Value>(out.stdout.trim()) else {
        return false;
    };
    let decision = v
        .pointer("/hookSpecificOutput/permissionDecision")
        .or_else(|| v.get("decision"))
        .or_else(|| v.get("permission"))
        .or_else(|| v.get("permissionDecision"));
    out.code == 0 && decision == Some(&json!("deny"))
}

#[test]
fn reset_hard_then_a_dangling_git_option_is_judged_by_every_agent_door() {
    let env = crate::support::TestEnv::new();
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    std::fs::write(env.work.join("file1.txt"), "unsaved work\n").unwrap();
    for tail in ["git -c", "git -C", "git --git-dir"] {
        let command = format!("git reset --hard; {tail}");
        for agent in AGENTS {
            let out = env.vouch_stdin(
                &["agent-hook", agent.name()],
                agent_input(agent, &command, &env.work).as_bytes(),
            );
            assert!(
                blocks(agent, &out),
                "{agent:?} `{command}`: exit {}\n{}\n{}",
                out.code,
                out.stdout,
                out.stderr
            );
            assert!(
                format!("{}{}", out.stdout, out.stderr).contains("critical"),
                "{agent:?}: judged as critical: {}{}",
                out.stdout,
                out.stderr
            );
        }
    }
}

#[test]
fn a_nul_byte_reaching_git_is_judged_not_a_crash() {
    let env = crate::support::TestEnv::new();
    env.write_config("[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\n");
    std::fs::write(env.work.join("file1.txt"), "unsaved work\n").unwrap();
    // The shell hands git `file1.txt`: the argument ends at the NUL.
    for agent in AGENTS {
        let out = env.vouch_stdin(
            &["agent-hook", agent.name()],
            agent_input(agent, "git checkout -- file1.txt\u{0}", &env.work).as_bytes(),
        );
        assert!(
            blocks(agent, &out),
            "{agent:?}: exit {}\n{}\n{}",
            out.code,
            out.stdout,
            out.stderr
        );
    }
    // A pre-push line naming a ref with a NUL byte.
    let head = env.rev(&env.work, "HEAD");
    let url = env.remote.display().to_string();
    let line = format!("(delete) {ZERO} refs/heads/ma\0in {head}\n");
    let out = env.vouch_stdin(&["hook", "pre-push", "--", "origin", &url], line.as_bytes());
    assert!(
        out.code == 1 && out.stderr.contains("refused"),
        "exit {}\n{}",
        out.code,
        out.stderr
    );
}

#[test]
fn the_agent_door_answers_every_mutated_message_in_its_protocol() {
    let env = crate::support::TestEnv::new();
    std::fs::write(env.work.join("file1.txt"), "unsaved work\n").unwrap();
    let mut runner = TestRunner::new(Config {
        cases: 1,
        failure_persistence: None,
        ..Config::default()
    });
    let inputs = (
        select(&AGENTS[..]),
        prop_oneof![mutated("agent", JSON_TOKENS), agent_message()],
    );
    // A few dozen runs of the real binary: the door as agents see it.
    for _ in 0..48 {
        let (agent, input) = inputs.new_tree(&mut runner).unwrap().current();
        let out = env.vouch_stdin(&["agent-hook", agent.name()], &input);
        // 0 (an answer), 1 (a message vouch cannot read), 2 (Codex's block): never 101.
        assert!(
            [0, 1, 2].contains(&out.code) && !out.stderr.contains("panicked"),
            "{agent:?} {:?}: exit {}\n{}\n{}",
            String::from_utf8_lossy(&input),
            out.code,
            out.stdout,
            out.stderr
        );
    }
}
