use std::os::unix::fs::PermissionsExt as _;

use super::*;
use crate::platform::env::MapEnv;

const OLD: &str = "'/old/bin/vouch' agent-hook";
const NEW: &str = "'/home/u/.cargo/bin/vouch' agent-hook";

fn command(base: &str, agent: Agent) -> String {
    format!("{base} {}", agent.name())
}

fn json_agents() -> impl Iterator<Item = Agent> {
    Agent::ALL.into_iter().filter(|a| *a != Agent::Opencode)
}

/// A file as a user might have it: a foreign handler on vouch's own event,
/// another event, and keys vouch knows nothing about, in no sorted order.
fn busy(agent: Agent) -> String {
    let text = match agent {
        Agent::Claude | Agent::Codex => {
            r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/bin/lint-bash", "timeout": 5}]},
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt-check"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}]
  },
  "env": {"A": "1"}
}"#
        }
        Agent::Gemini => {
            r#"{
  "theme": "GitHub",
  "hooks": {
    "disabled": ["old-hook"],
    "BeforeTool": [
      {"matcher": "write_file|replace", "hooks": [{"name": "secrets", "type": "command", "command": "scan"}]},
      {"matcher": "run_shell_command", "hooks": [{"name": "log", "type": "command", "command": "log-shell"}]}
    ],
    "AfterTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "after"}]}]
  },
  "tools": {"enableHooks": true}
}"#
        }
        Agent::Cursor => {
            r#"{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [{"command": "./hooks/audit.sh"}],
    "afterFileEdit": [{"command": "./hooks/format.sh"}]
  },
  "x-team": "platform"
}"#
        }
        Agent::Copilot => {
            r#"{
  "version": 1,
  "disableAllHooks": false,
  "hooks": {
    "preToolUse": [{"type": "command", "bash": "./scripts/check.sh", "powershell": "./scripts/check.ps1", "timeoutSec": 10}],
    "sessionStart": [{"type": "command", "bash": "echo hi"}]
  }
}"#
        }
        Agent::Opencode => unreachable!("not a JSON agent"),
    };
    format!("{text}\n")
}

fn value(text: &str) -> Value {
    serde_json::from_str(text).expect("valid JSON")
}

/// Every handler of vouch's event, wherever it sits.
fn handlers(agent: Agent, root: &Value) -> Vec<Value> {
    let spec = json_spec(agent).expect("a JSON agent");
    let list = root["hooks"][spec.event]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if spec.group_matcher.is_some() {
        list.iter()
            .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
            .collect()
    } else {
        list
    }
}

fn vouch_handlers(agent: Agent, root: &Value) -> Vec<Value> {
    let keys = json_spec(agent).expect("a JSON agent").command_keys;
    handlers(agent, root)
        .into_iter()
        .filter(|h| is_vouch_handler(h, keys))
        .collect()
}

#[test]
fn agent_names_round_trip() {
    for agent in Agent::ALL {
        assert_eq!(agent.name().parse::<Agent>().unwrap(), agent);
        assert_eq!(agent.to_string(), agent.name());
        let clap_name = clap::ValueEnum::to_possible_value(&agent).unwrap();
        assert_eq!(clap_name.get_name(), agent.name());
    }
    let err = "vim".parse::<Agent>().unwrap_err();
    assert!(err.to_string().contains("`vim`"), "{err}");
}

#[test]
fn vouch_commands_are_recognised_by_program_and_subcommand() {
    assert!(is_vouch_command("git vouch agent-hook claude"));
    assert!(is_vouch_command(
        "'/home/u/.cargo/bin/vouch' agent-hook codex"
    ));
    assert!(is_vouch_command(
        "\"/opt/my tools/vouch\" agent-hook gemini"
    ));
    assert!(is_vouch_command(
        "env X=1 /usr/local/bin/vouch agent-hook cursor"
    ));
    assert!(!is_vouch_command("git vouch hook pre-push"));
    assert!(!is_vouch_command("/usr/bin/lint-bash agent-hook"));
    assert!(!is_vouch_command("echo vouch"));
    assert!(is_vouch_command("exec git-vouch agent-hook claude"));
    // Another program whose name only starts with vouch's is not vouch.
    assert!(!is_vouch_command("vouchsafe agent-hook claude"));
    assert!(!is_vouch_command(
        "/opt/x/git-vouch-helper agent-hook claude"
    ));
}

#[test]
fn settings_paths_follow_each_agent_and_its_variables() {
    let root = Path::new("/work/repo");
    let home = Path::new("/home/u");
    let none = MapEnv::default();
    let expect = [
        (
            Agent::Claude,
            "/work/repo/.claude/settings.json",
            "/home/u/.claude/settings.json",
        ),
        (
            Agent::Codex,
            "/work/repo/.codex/hooks.json",
            "/home/u/.codex/hooks.json",
        ),
        (
            Agent::Gemini,
            "/work/repo/.gemini/settings.json",
            "/home/u/.gemini/settings.json",
        ),
        (
            Agent::Cursor,
            "/work/repo/.cursor/hooks.json",
            "/home/u/.cursor/hooks.json",
        ),
        (
            Agent::Copilot,
            "/work/repo/.github/hooks/vouch.json",
            "/home/u/.copilot/hooks/vouch.json",
        ),
        (
            Agent::Opencode,
            "/work/repo/.opencode/plugins/vouch.js",
            "/home/u/.config/opencode/plugins/vouch.js",
        ),
    ];
    for (agent, project, user) in expect {
        assert_eq!(
            settings_path(agent, Scope::Project, root, home, &none),
            Path::new(project)
        );
        assert_eq!(
            settings_path(agent, Scope::User, root, home, &none),
            Path::new(user)
        );
    }
    let moved = MapEnv::from_pairs(&[
        ("CLAUDE_CONFIG_DIR", "/c"),
        ("CODEX_HOME", "/x"),
        ("COPILOT_HOME", "/p"),
        ("XDG_CONFIG_HOME", "relative/is/ignored"),
    ]);
    let user = |agent| settings_path(agent, Scope::User, root, home, &moved);
    assert_eq!(user(Agent::Claude), Path::new("/c/settings.json"));
    assert_eq!(user(Agent::Codex), Path::new("/x/hooks.json"));
    assert_eq!(user(Agent::Copilot), Path::new("/p/hooks/vouch.json"));
    assert_eq!(
        user(Agent::Opencode),
        Path::new("/home/u/.config/opencode/plugins/vouch.js")
    );
    let xdg = MapEnv::from_pairs(&[("XDG_CONFIG_HOME", "/xdg")]);
    assert_eq!(
        settings_path(Agent::Opencode, Scope::User, root, home, &xdg),
        Path::new("/xdg/opencode/plugins/vouch.js")
    );
    // The project scope never looks at the variables.
    assert_eq!(
        settings_path(Agent::Codex, Scope::Project, root, home, &moved),
        Path::new("/work/repo/.codex/hooks.json")
    );
}

#[test]
fn install_into_no_file_writes_the_documented_shape() {
    let expected = |agent: Agent, cmd: &str| match agent {
        // A failed or timed-out hook blocks the command (issue 26 item 12).
        // The post-tool hook says at once what a command lost (issue 28).
        Agent::Claude => json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": cmd, "timeout": 30, "onFailure": "block"}
            ]}
        ], "PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": cmd, "timeout": 30}]}
        ]}}),
        Agent::Codex => json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": cmd, "timeout": 30}]}
        ], "PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": cmd, "timeout": 30}]}
        ]}}),
        Agent::Gemini => json!({"hooks": {"BeforeTool": [
            {"matcher": "run_shell_command",
             "hooks": [{"name": "vouch", "type": "command", "command": cmd, "timeout": 30000}]}
        ], "AfterTool": [
            {"matcher": "run_shell_command",
             "hooks": [{"name": "vouch-after", "type": "command", "command": cmd, "timeout": 30000}]}
        ]}}),
        Agent::Cursor => json!({"version": 1, "hooks": {"beforeShellExecution": [
            {"command": cmd, "timeout": 30, "failClosed": true}
        ]}}),
        Agent::Copilot => json!({"version": 1, "hooks": {"preToolUse": [
            {"type": "command", "bash": cmd, "timeoutSec": 30}
        ]}}),
        Agent::Opencode => unreachable!(),
    };
    for agent in json_agents() {
        let cmd = command(NEW, agent);
        let text = merged(agent, None, &cmd).unwrap();
        assert_eq!(value(&text), expected(agent, &cmd), "{agent}");
        assert!(text.ends_with("}\n"), "{agent}: {text}");
        // Key order as written: `version` first, the handler's keys as listed.
        assert_eq!(text, render(&expected(agent, &cmd)), "{agent}");
        // Blank files count as no file.
        assert_eq!(merged(agent, Some(" \n"), &cmd).unwrap(), text, "{agent}");
    }
}

#[test]
fn install_keeps_other_hooks_events_and_keys_in_their_order() {
    for agent in json_agents() {
        let before = busy(agent);
        let cmd = command(NEW, agent);
        let after = value(&merged(agent, Some(&before), &cmd).unwrap());
        let original = value(&before);

        // Every key of the original is still there, in the same order.
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&after), keys(&original), "{agent}");
        for (key, old) in original.as_object().unwrap() {
            if key != "hooks" {
                assert_eq!(&after[key], old, "{agent}: {key}");
            }
        }
        let event = json_spec(agent).unwrap().event;
        let after_event = after_spec(agent).map(|s| s.event);
        for (key, old) in original["hooks"].as_object().unwrap() {
            if Some(key.as_str()) == after_event {
                // The agent's own post-tool handlers come first, untouched.
                let list = after["hooks"][key].as_array().unwrap();
                let old = old.as_array().unwrap();
                assert_eq!(&list[..old.len()], &old[..], "{agent}: hooks.{key}");
            } else if key != event {
                assert_eq!(&after["hooks"][key], old, "{agent}: hooks.{key}");
            }
        }
        // The old handlers of vouch's event come first, untouched; vouch's is added last.
        let old_list = original["hooks"][event].as_array().unwrap();
        let new_list = after["hooks"][event].as_array().unwrap();
        assert_eq!(new_list.len(), old_list.len() + 1, "{agent}");
        assert_eq!(&new_list[..old_list.len()], &old_list[..], "{agent}");
        let ours = vouch_handlers(agent, &after);
        assert_eq!(ours.len(), 1, "{agent}");
        assert!(ours[0].to_string().contains("agent-hook"), "{agent}");
    }
}

#[test]
fn installing_twice_changes_nothing() {
    for agent in Agent::ALL {
        let cmd = command(NEW, agent);
        let starts: Vec<Option<String>> = if agent == Agent::Opencode {
            vec![None]
        } else {
            vec![None, Some(busy(agent))]
        };
        for start in starts {
            let once = merged(agent, start.as_deref(), &cmd).unwrap();
            let twice = merged(agent, Some(&once), &cmd).unwrap();
            assert_eq!(twice, once, "{agent}");
        }
    }
}

#[test]
fn an_installed_file_in_another_layout_is_returned_byte_for_byte() {
    // Same content as vouch would write, different whitespace: nothing to do.
    let cmd = command(NEW, Agent::Claude);
    let compact =
        serde_json::to_string(&value(&merged(Agent::Claude, None, &cmd).unwrap())).unwrap();
    assert_eq!(
        merged(Agent::Claude, Some(&compact), &cmd).unwrap(),
        compact
    );
}

#[test]
fn a_new_binary_path_updates_vouchs_entry_in_place() {
    for agent in json_agents() {
        let old = merged(agent, Some(&busy(agent)), &command(OLD, agent)).unwrap();
        let new = merged(agent, Some(&old), &command(NEW, agent)).unwrap();
        let (old_v, new_v) = (value(&old), value(&new));
        let event = json_spec(agent).unwrap().event;
        assert_eq!(
            old_v["hooks"][event].as_array().unwrap().len(),
            new_v["hooks"][event].as_array().unwrap().len(),
            "{agent}: no second entry"
        );
        let ours = vouch_handlers(agent, &new_v);
        assert_eq!(ours.len(), 1, "{agent}");
        assert!(
            ours[0].to_string().contains("/home/u/.cargo/bin/vouch"),
            "{agent}"
        );
        assert!(!new.contains("/old/bin/vouch"), "{agent}: {new}");
        // Only the command changed.
        assert_eq!(new.replace(NEW, OLD), old, "{agent}");
    }
}

#[test]
fn updating_keeps_keys_the_user_added_to_vouchs_entry_and_drops_duplicates() {
    let old = command(OLD, Agent::Claude);
    let before = json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": old, "timeout": 99, "statusMessage": "vouch is looking"}
        ]},
        {"matcher": "Bash", "hooks": [
            {"type": "command", "command": "other"},
            {"type": "command", "command": old}
        ]},
        {"matcher": "*", "hooks": [{"type": "command", "command": old}]}
    ]}})
    .to_string();
    let after = value(&merged(Agent::Claude, Some(&before), &command(NEW, Agent::Claude)).unwrap());
    assert_eq!(
        after,
        json!({"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": command(NEW, Agent::Claude), "timeout": 30,
                 "statusMessage": "vouch is looking",
                 "onFailure": "block"}
            ]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other"}]}
        ], "PostToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": command(NEW, Agent::Claude), "timeout": 30}
            ]}
        ]}})
    );
}

#[test]
fn an_entry_under_the_wrong_matcher_moves_to_vouchs_own_group() {
    let before = json!({"hooks": {"PreToolUse": [
        {"matcher": "*", "hooks": [
            {"type": "command", "command": "keep-me"},
            {"type": "command", "command": command(OLD, Agent::Codex)}
        ]}
    ]}})
    .to_string();
    let cmd = command(NEW, Agent::Codex);
    let after = value(&merged(Agent::Codex, Some(&before), &cmd).unwrap());
    assert_eq!(
        after,
        json!({"hooks": {"PreToolUse": [
            {"matcher": "*", "hooks": [{"type": "command", "command": "keep-me"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": cmd, "timeout": 30}]}
        ], "PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": cmd, "timeout": 30}]}
        ]}})
    );
}

#[test]
fn uninstall_gives_back_exactly_what_was_there() {
    for agent in json_agents() {
        let before = busy(agent);
        let with = merged(agent, Some(&before), &command(NEW, agent)).unwrap();
        let Some(Removal::Rewrite(after)) = removed(agent, &with).unwrap() else {
            panic!("{agent}: expected a rewrite");
        };
        assert_eq!(value(&after), value(&before), "{agent}");
        if json_spec(agent).unwrap().group_matcher.is_some() {
            assert_eq!(after, before, "{agent}: the file comes back byte for byte");
        } else {
            // A one-line list vouch added to was made one item a line, and stays so.
            assert!(!after.contains("agent-hook"), "{agent}: {after}");
        }
        assert_eq!(
            removed(agent, &after).unwrap(),
            None,
            "{agent}: nothing left to remove"
        );
    }
}

#[test]
fn uninstall_of_a_file_vouch_created_deletes_it() {
    for agent in Agent::ALL {
        let with = merged(agent, None, &command(NEW, agent)).unwrap();
        assert_eq!(
            removed(agent, &with).unwrap(),
            Some(Removal::Delete),
            "{agent}"
        );
    }
}

#[test]
fn uninstall_removes_only_the_containers_it_emptied() {
    // Another event left empty by the user stays; vouch's emptied event goes,
    // and `hooks` stays because something else is in it.
    let before = json!({"hooks": {
        "Stop": [],
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": command(NEW, Agent::Claude)}
        ]}]
    }, "model": "opus"})
    .to_string();
    let Some(Removal::Rewrite(after)) = removed(Agent::Claude, &before).unwrap() else {
        panic!("expected a rewrite");
    };
    assert_eq!(
        value(&after),
        json!({"hooks": {"Stop": []}, "model": "opus"})
    );

    // A group with other handlers keeps them and its matcher.
    let before = json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
        {"name": "log", "type": "command", "command": "log-shell"},
        {"name": "vouch", "type": "command", "command": command(NEW, Agent::Gemini)}
    ]}]}})
    .to_string();
    let Some(Removal::Rewrite(after)) = removed(Agent::Gemini, &before).unwrap() else {
        panic!("expected a rewrite");
    };
    assert_eq!(
        value(&after),
        json!({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
            {"name": "log", "type": "command", "command": "log-shell"}
        ]}]}})
    );

    // Only `hooks` was vouch's: the other keys stay, `hooks` goes.
    let before = json!({"version": 1, "x": true, "hooks": {"beforeShellExecution": [
        {"command": command(NEW, Agent::Cursor), "timeout": 30}
    ]}})
    .to_string();
    let Some(Removal::Rewrite(after)) = removed(Agent::Cursor, &before).unwrap() else {
        panic!("expected a rewrite");
    };
    assert_eq!(value(&after), json!({"version": 1, "x": true}));
}

#[test]
fn uninstall_without_vouchs_entry_reports_nothing() {
    for agent in json_agents() {
        assert_eq!(removed(agent, &busy(agent)).unwrap(), None, "{agent}");
        assert_eq!(removed(agent, "{}").unwrap(), None, "{agent}");
    }
    assert_eq!(
        removed(Agent::Opencode, "export const Mine = 1;\n").unwrap(),
        None
    );
}

#[test]
fn malformed_files_are_refused_with_what_is_wrong() {
    for agent in json_agents() {
        let event = json_spec(agent).unwrap().event;
        let cases = [
            ("{\"hooks\": ", "not valid JSON"),
            ("[1, 2]", "`the top level` is not an object"),
            ("{\"hooks\": []}", "`hooks` is not an object"),
        ];
        for (text, says) in cases {
            let err = merged(agent, Some(text), "git vouch agent-hook x").unwrap_err();
            assert!(err.to_string().contains(says), "{agent} {text}: {err}");
            let err = removed(agent, text).unwrap_err();
            assert!(err.to_string().contains(says), "{agent} {text}: {err}");
        }
        let text = format!("{{\"hooks\": {{\"{event}\": {{}}}}}}");
        let err = merged(agent, Some(&text), "git vouch agent-hook x").unwrap_err();
        assert_eq!(err.to_string(), format!("`hooks.{event}` is not a list"));
    }
}

#[test]
fn the_opencode_plugin_carries_the_marker_and_the_command() {
    let cmd = "'/opt/my tools/vouch' agent-hook opencode";
    let text = merged(Agent::Opencode, None, cmd).unwrap();
    assert!(text.starts_with(PLUGIN_MARKER), "{text}");
    assert!(
        text.contains(r#"const COMMAND = "'/opt/my tools/vouch' agent-hook opencode";"#),
        "{text}"
    );
    assert!(text.contains("\"tool.execute.before\""), "{text}");
    // A path change rewrites the command.
    let newer = merged(
        Agent::Opencode,
        Some(&text),
        "git vouch agent-hook opencode",
    )
    .unwrap();
    assert!(newer.contains(r#"const COMMAND = "git vouch agent-hook opencode";"#));
    assert!(!newer.contains("/opt/my tools"));
    // Someone else's file is never overwritten.
    let err = merged(
        Agent::Opencode,
        Some("export const Mine = async () => ({});\n"),
        cmd,
    )
    .unwrap_err();
    assert!(matches!(err, Malformed::NotOurs), "{err}");
}

fn install_in(dir: &Path, agent: Agent) -> PathBuf {
    settings_path(
        agent,
        Scope::Project,
        dir,
        Path::new("/nonexistent"),
        &MapEnv::default(),
    )
}

#[test]
fn file_adapters_create_update_and_remove() {
    for agent in Agent::ALL {
        let tmp = tempfile::tempdir().unwrap();
        let path = install_in(tmp.path(), agent);

        let said = install(agent, &path, &command(OLD, agent)).unwrap();
        assert!(said.starts_with("created"), "{agent}: {said}");
        let first = fs::read_to_string(&path).unwrap();

        let said = install(agent, &path, &command(OLD, agent)).unwrap();
        assert!(said.contains("already has"), "{agent}: {said}");
        assert_eq!(fs::read_to_string(&path).unwrap(), first, "{agent}");

        let said = install(agent, &path, &command(NEW, agent)).unwrap();
        assert!(said.starts_with("updated"), "{agent}: {said}");
        assert!(
            fs::read_to_string(&path)
                .unwrap()
                .contains("/home/u/.cargo/bin/vouch")
        );

        let said = uninstall(agent, &path).unwrap();
        assert!(said.starts_with("removed"), "{agent}: {said}");
        assert!(!path.exists(), "{agent}: vouch's own file is deleted");

        let said = uninstall(agent, &path).unwrap();
        assert!(said.contains("does not exist"), "{agent}: {said}");
        // No temporary files left behind.
        let left: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().collect();
        assert!(left.is_empty(), "{agent}: {left:?}");
    }
}

#[test]
fn file_adapters_keep_a_busy_file_and_its_mode() {
    for agent in json_agents() {
        let tmp = tempfile::tempdir().unwrap();
        let path = install_in(tmp.path(), agent);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, busy(agent)).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();

        let said = install(agent, &path, &command(NEW, agent)).unwrap();
        assert!(said.starts_with("added"), "{agent}: {said}");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            vouch_handlers(agent, &value(&fs::read_to_string(&path).unwrap())).len(),
            1
        );

        let said = uninstall(agent, &path).unwrap();
        assert!(said.starts_with("removed vouch's"), "{agent}: {said}");
        assert_eq!(
            value(&fs::read_to_string(&path).unwrap()),
            value(&busy(agent))
        );
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );

        let said = uninstall(agent, &path).unwrap();
        assert!(said.contains("left as it was"), "{agent}: {said}");
    }
}

#[test]
fn malformed_files_are_left_untouched_and_named() {
    for agent in Agent::ALL {
        let tmp = tempfile::tempdir().unwrap();
        let path = install_in(tmp.path(), agent);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let junk = if agent == Agent::Opencode {
            "export const Mine = async () => ({});\n"
        } else {
            "{\"hooks\": {,}\n"
        };
        fs::write(&path, junk).unwrap();

        let err = install(agent, &path, &command(NEW, agent)).unwrap_err();
        assert!(
            matches!(err, SettingsError::Malformed { .. }),
            "{agent}: {err}"
        );
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{agent}: {err}"
        );
        assert!(std::error::Error::source(&err).is_some(), "{agent}");
        assert_eq!(fs::read_to_string(&path).unwrap(), junk, "{agent}");

        if agent != Agent::Opencode {
            let err = uninstall(agent, &path).unwrap_err();
            assert!(
                matches!(err, SettingsError::Malformed { .. }),
                "{agent}: {err}"
            );
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), junk, "{agent}");
        let left = fs::read_dir(path.parent().unwrap()).unwrap().count();
        assert_eq!(left, 1, "{agent}: no temporary file left");
    }
}

#[test]
fn a_symlinked_settings_file_is_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("dotfiles/settings.json");
    fs::create_dir_all(real.parent().unwrap()).unwrap();
    fs::write(&real, "{\"model\": \"opus\"}\n").unwrap();
    let link = install_in(tmp.path(), Agent::Claude);
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();

    install(Agent::Claude, &link, &command(NEW, Agent::Claude)).unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        vouch_handlers(Agent::Claude, &value(&fs::read_to_string(&real).unwrap())).len(),
        1
    );
}

/// Loads the generated plugin in Node (when present), with a fake vouch that
/// answers from a file, and checks each answer's effect.
#[test]
fn the_opencode_plugin_runs_vouch_and_obeys_its_answer() {
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        // CI installs node (`.ci/run`): there, a missing node is a failure.
        crate::platform::env::skip_test("node");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let fake = tmp.path().join("vouch");
    let seen = tmp.path().join("seen.json");
    let answer = tmp.path().join("answer");
    fs::write(
        &fake,
        format!(
            "#!/bin/sh\ncat > '{}'\ncat '{}'\n",
            seen.display(),
            answer.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let cmd = hook_command(Agent::Opencode, &fake);
    let plugin = tmp.path().join("vouch.mjs");
    fs::write(&plugin, merged(Agent::Opencode, None, &cmd).unwrap()).unwrap();
    let driver = tmp.path().join("drive.mjs");
    fs::write(
        &driver,
        r#"
const mod = await import(process.argv[2]);
const exports = Object.values(mod);
if (exports.length !== 1 || typeof exports[0] !== "function") throw new Error("one function export");
const hooks = await exports[0]({ directory: "/proj" });
const before = hooks["tool.execute.before"];
await before({ tool: "read", sessionID: "s" }, { args: { filePath: "x" } });
try {
  await before({ tool: "bash", sessionID: "s1", callID: "c" }, { args: { command: "git push -f" } });
  console.log("allowed");
} catch (e) {
  console.log("denied: " + e.message);
}
"#,
    )
    .unwrap();
    let run = |reply: &str| {
        fs::write(&answer, reply).unwrap();
        let out = std::process::Command::new("node")
            .arg(&driver)
            .arg(&plugin)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };

    assert_eq!(run(r#"{"decision":"allow"}"#), "allowed");
    assert_eq!(
        value(&fs::read_to_string(&seen).unwrap()),
        json!({"tool": "bash", "args": {"command": "git push -f"}, "sessionID": "s1", "cwd": "/proj"})
    );
    assert_eq!(
        run(r#"{"decision":"deny","reason":"force push to main"}"#),
        "denied: force push to main"
    );
    // No readable verdict is a refusal (issue 26 item 12: a failed hook
    // must not let the command through).
    for reply in ["garbage", "", "{}", r#"{"decision":"maybe"}"#] {
        let said = run(reply);
        assert!(
            said.starts_with("denied: vouch gave no verdict"),
            "{reply}: {said}"
        );
    }
    // The binary gone: the command answers deny itself.
    fs::remove_file(&fake).unwrap();
    let said = run("");
    assert!(
        said.starts_with("denied: vouch: the vouch binary is missing"),
        "{said}"
    );
    assert!(said.contains("git vouch agent install opencode"), "{said}");
}

#[test]
fn the_hook_command_is_recognised_as_vouch_and_names_the_binary() {
    for agent in Agent::ALL {
        let command = hook_command(agent, Path::new("/opt/my tools/vouch"));
        assert!(is_vouch_command(&command), "{agent}: {command}");
        assert!(
            command.starts_with(
                "[ -x '/opt/my tools/vouch' ] && exec '/opt/my tools/vouch' agent-hook "
            ),
            "{command}"
        );
        // Installing over an entry of the old form updates it in place.
        let old = merged(agent, None, &format!("{OLD} {}", agent.name())).unwrap();
        let new = merged(agent, Some(&old), &command).unwrap();
        // Opencode's plugin names it twice; Claude Code, Codex and Gemini
        // CLI run it after the command too.
        let expected = match agent {
            Agent::Opencode | Agent::Claude | Agent::Codex | Agent::Gemini => 2,
            _ => 1,
        };
        assert_eq!(
            new.matches("agent-hook").count(),
            expected,
            "{agent}: {new}"
        );
    }
}

#[test]
fn an_edit_keeps_the_files_indentation() {
    let four = "{\n    \"model\": \"x\",\n    \"hooks\": {}\n}\n";
    let cmd = command(NEW, Agent::Claude);
    let text = merged(Agent::Claude, Some(four), &cmd).unwrap();
    assert!(
        text.starts_with("{\n    \"model\": \"x\",\n    \"hooks\": {\n        \"PreToolUse\""),
        "{text}"
    );
    let Some(Removal::Rewrite(back)) = removed(Agent::Claude, &text).unwrap() else {
        panic!("vouch's entry is there to remove");
    };
    assert_eq!(back, "{\n    \"model\": \"x\"\n}\n");
    let tabs = "{\n\t\"model\": \"x\"\n}\n";
    assert!(
        merged(Agent::Claude, Some(tabs), &cmd)
            .unwrap()
            .contains("\n\t\"hooks\": {\n\t\t")
    );
}

#[test]
fn a_project_command_names_vouch_on_path_and_lets_a_teammate_without_it_work() {
    for agent in Agent::ALL {
        let cmd = project_hook_command(agent);
        assert!(is_vouch_command(&cmd), "{agent}: {cmd}");
        assert!(cmd.starts_with("command -v git-vouch "), "{agent}: {cmd}");
        assert!(
            !cmd.contains('/') || cmd.contains("/dev/null"),
            "{agent}: no machine path: {cmd}"
        );
        assert!(cmd.ends_with("exit 0"), "{agent}: {cmd}");
    }
}

#[test]
fn comments_and_inline_arrays_stay_through_install_and_uninstall() {
    let gemini = "// my Gemini settings\n{\n    \"theme\": \"dark\", // the theme\n    \"excludeTools\": [\"a\", \"b\"],\n    /* block */\n    \"hooks\": {\n        \"BeforeTool\": [\n            {\"matcher\": \"read_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"mine\"}]}\n        ]\n    }\n}\n";
    let cmd = command(NEW, Agent::Gemini);
    let text = merged(Agent::Gemini, Some(gemini), &cmd).unwrap();
    for kept in [
        "// my Gemini settings",
        "\"theme\": \"dark\", // the theme",
        "\"excludeTools\": [\"a\", \"b\"],",
        "/* block */",
        "{\"matcher\": \"read_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"mine\"}]}",
    ] {
        assert!(text.contains(kept), "lost {kept:?}:\n{text}");
    }
    assert!(
        text.contains("run_shell_command") && text.contains(&cmd[..20]),
        "{text}"
    );
    assert_eq!(
        merged(Agent::Gemini, Some(&text), &cmd).unwrap(),
        text,
        "twice changes nothing"
    );
    let Some(Removal::Rewrite(back)) = removed(Agent::Gemini, &text).unwrap() else {
        panic!("vouch's entry is there to remove");
    };
    assert_eq!(back, gemini, "uninstall gives the file back as it was");
}

#[test]
fn the_matcher_an_older_vouch_wrote_for_copilot_goes() {
    let old = r#"{"version": 1, "hooks": {"preToolUse": [
  {"type": "command", "bash": "'/old/vouch' agent-hook copilot", "matcher": "bash", "timeoutSec": 30}
]}}"#;
    let cmd = command(NEW, Agent::Copilot);
    let text = merged(Agent::Copilot, Some(old), &cmd).unwrap();
    assert!(!text.contains("matcher"), "{text}");
    assert!(text.contains("agent-hook copilot"), "{text}");
}
