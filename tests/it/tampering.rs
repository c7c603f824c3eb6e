//! Guard tampering through any program (issue 26 item 11): an agent's hook
//! settings and vouch's own config, changed by any writer (an interpreter
//! one-liner, in its arguments or read from stdin, an in-place editor, `jq`
//! through `sponge`, `cp`/`mv` over the file, a redirection, a relative
//! path after `cd`), is judged as guard tampering: with no verifier, only the person may let
//! it run (Claude Code's `ask`).

use crate::support::TestEnv;

/// Each form as an agent writes it; every one rewrites, replaces or
/// removes a file vouch's guard depends on.
const ATTACKS: &[&str] = &[
    // Interpreters, in their arguments.
    r#"python3 -c "import json;p='.claude/settings.json';d=json.load(open(p));d['hooks']={};json.dump(d,open(p,'w'))""#,
    r#"python3 -c 'import os; os.remove(os.path.expanduser("~/.claude/settings.json"))'"#,
    r#"perl -e 'open(F,">",".claude/settings.json");print F "{}"'"#,
    r#"node -e "require('fs').writeFileSync(require('os').homedir()+'/.codex/hooks.json','{}')""#,
    r#"ruby -e 'File.write(".gemini/settings.json", "{}")'"#,
    r#"python3 -c "from pathlib import Path; Path.home().joinpath('.config/vouch/config.toml').write_text('mode = \"observe\"')""#,
    // Interpreters reading their program from stdin.
    r#"python3 - <<<'open(".claude/settings.json","w").write("{}")'"#,
    "python3 <<'PY'\nopen('.claude/settings.json', 'w').write('{}')\nPY",
    "echo 'require(\"fs\").unlinkSync(\".cursor/hooks.json\")' | node",
    // In-place editors.
    "sed -i 's/PreToolUse/Nothing/' .claude/settings.json",
    "sed -i.bak -e '/vouch/d' ~/.claude/settings.json",
    "perl -pi -e 's/vouch/true/' ~/.codex/hooks.json",
    "yq -i 'del(.hooks)' ~/.codex/config.toml",
    "sd 'git-vouch' 'true' ~/.claude/settings.json",
    "ed -s ~/.config/vouch/config.toml <<< $'1d\\nw'",
    // jq and friends through a second file or sponge.
    "jq '.hooks = {}' .claude/settings.json > /tmp/s.json && mv /tmp/s.json .claude/settings.json",
    "jq 'del(.hooks)' ~/.claude/settings.json | sponge ~/.claude/settings.json",
    "jq 'del(.hooks)' ~/.claude/settings.json | tee ~/.claude/settings.json",
    // Copies, moves, links and redirections over the file.
    "cp /tmp/empty.json ~/.claude/settings.json",
    "cp /tmp/empty.json .claude/settings.local.json",
    "mv /tmp/x.json ~/.gemini/settings.json",
    "install -m644 /tmp/x ~/.claude/settings.json",
    "ln -sf /dev/null ~/.claude/settings.json",
    "echo '{}' > .claude/settings.json",
    "printf '{}' >| ~/.cursor/hooks.json",
    "cat /dev/null > ~/.config/vouch/config.toml",
    "echo 'mode = \"observe\"' >> ~/.config/vouch/config.toml",
    "truncate -s0 ~/.codex/config.toml",
    // Copilot CLI's and OpenCode's hooks, by every kind of writer.
    "sed -i /vouch/d .github/hooks/vouch.json",
    r#"python3 -c "open('.github/hooks/vouch.json','w').write('{}')""#,
    "rm -f .opencode/plugins/vouch.js",
    "echo '' > ~/.config/opencode/plugins/vouch.js",
    "patch ~/.claude/settings.json < /tmp/unhook.diff",
    // Relative paths after `cd`.
    "cd ~/.claude && rm settings.json",
    "cd .claude && echo '{}' > settings.json",
    "cd ~ && cd .config && sed -i /block/d vouch/config.toml",
    "pushd ~/.codex && cp /tmp/x hooks.json",
    // An older copy from git.
    "git checkout HEAD~3 -- .claude/settings.json",
    "git restore --source=HEAD~1 .claude/settings.json",
];

#[test]
fn guard_files_changed_by_any_program_are_tampering() {
    let env = TestEnv::new();
    for attack in ATTACKS {
        let out = env.claude(attack);
        assert!(
            out.stdout.contains(r#""permissionDecision":"ask""#)
                && out.stdout.contains("turns the guard down"),
            "`{attack}` was not judged as tampering (exit {}):\n{}{}",
            out.code,
            out.stdout,
            out.stderr
        );
    }
}

#[test]
fn reading_guard_files_and_unrelated_edits_stay_allowed() {
    let env = TestEnv::new();
    for harmless in [
        "cat ~/.claude/settings.json",
        "jq '.hooks' ~/.claude/settings.json",
        "grep -n vouch .claude/settings.json",
        "sed -i 's/a/b/' notes.txt",
        "cd /tmp && rm settings.json",
        "python3 -c 'print(1)'",
        "echo '{}' > settings.json",
    ] {
        let out = env.claude(harmless);
        assert!(
            !out.stdout.contains("permissionDecision"),
            "`{harmless}` was stopped:\n{}",
            out.stdout
        );
    }
}
