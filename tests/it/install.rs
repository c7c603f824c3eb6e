//! `git vouch install`, `uninstall` and `status` against real repositories.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use crate::support::{TestEnv, vouch_bin};

#[test]
fn foreign_hook_is_chained_with_stdin_intact_and_restored_on_uninstall() {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let env = TestEnv::new();
    let hook = env.work.join(".git/hooks/pre-push");
    let seen = env.base().join("foreign-saw");
    let foreign = format!(
        "#!/bin/sh\necho \"args: $*\" > {0}\ncat >> {0}\nexit 0\n",
        seen.display()
    );
    fs::write(&hook, &foreign).unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    env.write_config("log_all = true\n");
    env.vouch(&["install"]).code(0).stderr_has("kept as");
    env.commit(&env.work, "x.txt", "x");
    env.push(&["origin", "main"]).code(0);
    let saw = fs::read_to_string(&seen).unwrap();
    let head = env.rev(&env.work, "HEAD");
    assert!(
        saw.contains(&format!("refs/heads/main {head} refs/heads/main")),
        "{saw}"
    );
    assert!(
        saw.contains(&format!("args: origin {}", env.remote.display())),
        "{saw}"
    );
    let pushes = env
        .audit()
        .iter()
        .filter(|r| r["hook"] == "pre-push")
        .count();
    assert_eq!(pushes, 1, "vouch ran too");
    // Either refusing refuses.
    fs::write(
        env.work.join(".git/hooks/pre-push.local"),
        "#!/bin/sh\nexit 3\n",
    )
    .unwrap();
    env.commit(&env.work, "y.txt", "y");
    env.push(&["origin", "main"])
        .code(1)
        .stderr_has("refused this push (exit 3)");
    fs::write(env.work.join(".git/hooks/pre-push.local"), &foreign).unwrap();
    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    assert_eq!(fs::read_to_string(&hook).unwrap(), foreign);
    assert!(!env.work.join(".git/hooks/pre-push.local").exists());
}

#[test]
fn installing_twice_changes_nothing() {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let env = TestEnv::new();
    env.install();
    let hook = env.work.join(".git/hooks/pre-push");
    let first = fs::read(&hook).unwrap();
    env.vouch(&["install"])
        .code(0)
        .stderr_has("nothing changed");
    assert_eq!(fs::read(&hook).unwrap(), first);
    assert!(
        !env.work.join(".git/hooks/pre-push.local").exists(),
        "vouch never chains itself"
    );
    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    assert!(!hook.exists());
    assert!(!env.work.join(".git/hooks/reference-transaction").exists());
}

/// Every hook is the gate (the program `build.rs` compiled, carrying the
/// hook's script and the binary's path; the reference-transaction one
/// gated and never strict); `--direct` links them to the binary.
#[test]
fn every_hook_is_the_gate_carrying_its_script() {
    let Some(program) = crate::support::gate() else {
        return;
    };
    let env = TestEnv::new();
    env.install();
    let bin = vouch_bin().canonicalize().unwrap();
    for name in ["pre-push", "pre-commit", "reference-transaction"] {
        let hook = env.work.join(".git/hooks").join(name);
        assert!(!fs::symlink_metadata(&hook).unwrap().is_symlink(), "{name}");
        let bytes = fs::read(&hook).unwrap();
        assert!(bytes.starts_with(program), "{name}");
        let carried = vouch::install::gate::read(&bytes).expect("a gate's tail");
        let script = String::from_utf8_lossy(carried.script);
        assert!(script.starts_with("#!/bin/sh"), "{name}: {script}");
        assert!(script.contains(&format!("# vouch-managed-hook: {name}")));
        assert!(script.contains(&format!("vouch_bin='{}'", bin.display())));
        assert_eq!(carried.bin, bin);
        assert_eq!(carried.gated, name == "reference-transaction", "{name}");
        // Never strict here; the reference-transaction hook never is.
        assert!(!carried.strict && script.contains("strict=0"), "{name}");
        assert!(vouch::install::is_ours(&hook), "{name}");
    }
    // And they guard: a forced push is judged.
    env.rewind(1);
    let out = env.push(&["--force", "origin", "main"]);
    assert_eq!(
        env.last_audit_of("pre-push")["risk_tier"],
        "critical",
        "{out:?}"
    );
    env.vouch(&["install", "--direct"]).code(0);
    let hook = env.work.join(".git/hooks/reference-transaction");
    assert_eq!(fs::read_link(&hook).unwrap(), bin);
}

/// The hooks an earlier vouch wrote on x86-64 Linux, the launcher (a few
/// hundred bytes of machine code carrying the hook's script;
/// `fixtures/hooks/launcher/` holds the files its last build wrote), are
/// read as vouch's, and `install` writes its hooks over them: none is kept
/// as a foreign `<hook>.local` (which would start vouch twice).
#[test]
fn a_launcher_an_earlier_vouch_wrote_is_read_as_vouchs_and_replaced() {
    let env = TestEnv::new();
    let hooks = env.work.join(".git/hooks");
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hooks/launcher");
    let names = ["pre-commit", "pre-push", "reference-transaction"];
    for name in names {
        let old = fs::read(fixtures.join(name)).unwrap();
        assert!(old.starts_with(b"\x7fELF"), "{name}: not the launcher");
        fs::write(hooks.join(name), &old).unwrap();
        fs::set_permissions(hooks.join(name), fs::Permissions::from_mode(0o755)).unwrap();
        assert!(vouch::install::is_ours(&hooks.join(name)), "{name}");
    }
    let out = env.vouch(&["install"]);
    out.code(0);
    assert!(!out.stderr.contains("kept as"), "{}", out.stderr);
    for name in names {
        let hook = hooks.join(name);
        let now = fs::read(&hook).unwrap();
        assert!(
            !now.starts_with(&fs::read(fixtures.join(name)).unwrap()),
            "{name}"
        );
        assert!(vouch::install::is_ours(&hook), "{name}");
        assert!(!hooks.join(format!("{name}.local")).exists(), "{name}");
    }
    // And they guard: a forced push is judged, once.
    env.rewind(1);
    env.push(&["--force", "origin", "main"]);
    let pushes = env
        .audit()
        .iter()
        .filter(|r| r["hook"] == "pre-push")
        .count();
    assert_eq!(pushes, 1);
}

#[test]
fn config_defined_hooks_need_git_2_54() {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let env = TestEnv::new();
    let version = env.git(&env.work, &["version"]);
    let minor: u32 = version
        .trim()
        .strip_prefix("git version 2.")
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse().ok())
        .unwrap();
    let out = env.vouch(&["install", "--config-hooks"]);
    if minor < 54 {
        out.code(2)
            .stderr_has("config-defined hooks need git 2.54 or later");
        assert!(!env.work.join(".git/vouch-hooks").exists());
        return;
    }
    // git 2.54 or later: registered in the config, and they run even when
    // another tool owns `core.hooksPath`.
    out.code(0);
    let command = env.git(&env.work, &["config", "hook.vouch-pre-push.command"]);
    assert!(command.contains("vouch-hooks/pre-push"), "{command}");
    env.git(&env.work, &["config", "core.hooksPath", ".husky/_"]);
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    assert!(
        env.git_out(&env.work, &["config", "hook.vouch-pre-push.command"])
            .code
            != 0
    );
}

#[test]
fn status_reports_the_setup() {
    let env = TestEnv::new();
    env.install();
    let out = env.vouch(&["status"]);
    out.code(0)
        .stdout_has("pre-push:     installed, calls")
        .stdout_has("pre-commit:   installed, calls")
        .stdout_has("reference-transaction: installed, calls")
        .stdout_has(&vouch_bin().canonicalize().unwrap().display().to_string())
        .stdout_has("audit log:")
        .stdout_has("protected:    main, master");
}

#[test]
fn core_hooks_path_is_respected() {
    let env = TestEnv::new();
    // A hooks folder inside the git dir: installed there.
    env.git(&env.work, &["config", "core.hooksPath", ".git/myhooks"]);
    env.install();
    assert!(env.work.join(".git/myhooks/pre-push").exists());
    assert!(!env.work.join(".git/hooks/pre-push").exists());
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    env.rewind(1);
    env.push(&["--force", "origin", "main"])
        .code(1)
        .stderr_has("vouch: refused");
    assert_eq!(env.last_audit()["decision"], "refused");
}

#[test]
fn committed_hooks_folder_needs_force() {
    let env = TestEnv::new();
    env.git(&env.work, &["config", "core.hooksPath", ".githooks"]);
    env.vouch(&["install"])
        .code(2)
        .stderr_has("a folder of the work tree")
        .stderr_has("vouch hook pre-push -- \"$@\"");
    assert!(!env.work.join(".githooks/pre-push").exists());
    env.vouch(&["install", "--force"]).code(0);
    assert!(env.work.join(".githooks/pre-push").exists());
}

#[test]
fn husky_hooks_path_gets_vouch_in_its_committed_hook_files() {
    let env = TestEnv::new();
    fs::create_dir_all(env.work.join(".husky/_")).unwrap();
    env.git(&env.work, &["config", "core.hooksPath", ".husky/_"]);
    env.vouch(&["install"])
        .code(0)
        .stderr_has("husky owns the hooks");
    // husky's own stubs are husky's: vouch goes into `.husky/<hook>`.
    assert!(!env.work.join(".husky/_/pre-push").exists());
    let hook = fs::read_to_string(env.work.join(".husky/pre-push")).unwrap();
    assert!(
        hook.contains("command -v git-vouch") && hook.contains("git-vouch hook pre-push -- \"$@\""),
        "{hook}"
    );
}

#[test]
fn husky_recipe_works() {
    let env = TestEnv::new();
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    let husky = env.work.join(".husky");
    fs::create_dir_all(husky.join("_")).unwrap();
    // husky v9's runner, reduced: the stub runs `.husky/<hook>` with `sh -e`, passing argv and stdin.
    fs::write(
        husky.join("_/pre-push"),
        "#!/bin/sh\nsh -e \"$(dirname \"$(dirname \"$0\")\")/pre-push\" \"$@\"\n",
    )
    .unwrap();
    fs::set_permissions(husky.join("_/pre-push"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(
        husky.join("pre-push"),
        format!("{} hook pre-push -- \"$@\"\n", vouch_bin().display()),
    )
    .unwrap();
    env.git(&env.work, &["config", "core.hooksPath", ".husky/_"]);
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    assert_eq!(env.last_audit()["refs"][0]["rule"], "force_push_protected");
}

#[test]
fn hooks_path_outside_the_repository_needs_force() {
    let env = TestEnv::new();
    let shared = env.base().join("shared-hooks");
    fs::create_dir_all(&shared).unwrap();
    env.git(
        &env.work,
        &["config", "core.hooksPath", &shared.display().to_string()],
    );
    env.vouch(&["install"])
        .code(2)
        .stderr_has("outside this repository");
    env.vouch(&["install", "--force"]).code(0);
    assert!(shared.join("pre-push").exists());
}

#[test]
fn linked_worktree_installs_into_the_common_dir() {
    let env = TestEnv::new();
    let wt = env.worktree("wt-branch");
    env.vouch_in(&wt, &["install"]).code(0);
    assert!(env.work.join(".git/hooks/pre-push").exists());
    assert!(
        !env.work
            .join(".git/worktrees/wt-branch/hooks/pre-push")
            .exists()
    );
    env.write_config("[on_unavailable]\nhigh = \"block\"\n");
    env.push_in(&wt, &["origin", "wt-branch"]).code(0);
    env.git(&wt, &["commit", "-q", "--amend", "-m", "rewritten"]);
    env.push_in(&wt, &["--force", "origin", "wt-branch"])
        .code(1);
    assert_eq!(env.last_audit()["branch"], "wt-branch");
}

#[test]
fn bare_repository_is_guarded() {
    let env = TestEnv::new();
    env.git(
        &env.base(),
        &["clone", "-q", "--bare", "remote.git", "mirror.git"],
    );
    let bare = env.base().join("mirror.git");
    env.vouch_in(&bare, &["install"]).code(0);
    assert!(bare.join("hooks/pre-push").exists());
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    let url = env.remote.display().to_string();
    env.push_in(&bare, &["--force", &url, "main~1:main"])
        .code(1);
    assert_eq!(env.last_audit()["refs"][0]["rule"], "force_push_protected");
}

#[test]
fn missing_binary_warns_and_allows_but_strict_refuses() {
    let env = TestEnv::new();
    env.install_from_vanishing_binary("pre-push");
    env.commit(&env.work, "a.txt", "a");
    env.push(&["origin", "main"])
        .code(0)
        .stderr_has("the vouch binary is missing");
    // Strict, baked in at install time.
    env.write_config("strict = true\n");
    env.install_from_vanishing_binary("pre-push");
    env.commit(&env.work, "b.txt", "b");
    env.push(&["origin", "main"])
        .code(1)
        .stderr_has("strict mode is on");
}

#[test]
fn direct_install_links_the_binary_and_guards_pushes() {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let env = TestEnv::new();
    let hook = env.work.join(".git/hooks/pre-push");
    let seen = env.base().join("foreign-saw");
    fs::write(&hook, format!("#!/bin/sh\ncat > {}\n", seen.display())).unwrap();
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    env.vouch(&["install", "--direct"]).code(0);
    assert!(
        fs::symlink_metadata(&hook)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    env.vouch(&["status"])
        .code(0)
        .stdout_has("linked directly")
        .stdout_has("chains");
    env.write_config("[on_unavailable]\ncritical = \"block\"\n");
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    assert_eq!(env.last_audit()["refs"][0]["rule"], "force_push_protected");
    assert!(
        fs::read_to_string(&seen)
            .unwrap()
            .contains("refs/heads/main"),
        "the chained hook got the input"
    );
    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    assert!(
        !fs::symlink_metadata(&hook)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the foreign hook is back"
    );
}

#[test]
fn an_unknown_hook_name_installs_nothing() {
    let env = TestEnv::new();
    env.vouch(&["install", "--hooks", "pre-push,post-merge"])
        .code(2)
        .stderr_has("vouch has no `post-merge` hook; it installs: pre-push, pre-commit");
    assert!(
        !env.work.join(".git/hooks/pre-push").exists(),
        "checked before anything is written"
    );
}

/// Writes an executable hook file.
fn write_hook(path: &std::path::Path, text: &str) {
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn four_installs_at_once_end_with_one_chain_and_no_hook_lost() {
    let env = TestEnv::new();
    let hooks = env.work.join(".git/hooks");
    let ran = env.base().join("foreign-ran");
    let foreign = |hook: &str| {
        format!(
            "#!/bin/sh\n# the team's {hook}\necho {hook} >> '{}'\ncat > /dev/null\n",
            ran.display()
        )
    };
    for round in 0..20 {
        for name in ["pre-push", "pre-commit", "reference-transaction"] {
            for file in [name.to_owned(), format!("{name}.local")] {
                fs::remove_file(hooks.join(file)).ok();
            }
        }
        write_hook(&hooks.join("pre-push"), &foreign("pre-push"));
        write_hook(&hooks.join("pre-commit"), &foreign("pre-commit"));
        // Spawned at once, then waited for.
        let children: Vec<_> = (0..4)
            .map(|_| {
                env.cmd(crate::support::vouch_bin(), &env.work)
                    .arg("install")
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        for name in ["pre-push", "pre-commit"] {
            let text = fs::read(hooks.join(name)).unwrap();
            assert!(
                String::from_utf8_lossy(&text).contains("# vouch-managed-hook"),
                "round {round}: {name} is vouch's"
            );
            assert_eq!(
                fs::read_to_string(hooks.join(format!("{name}.local"))).unwrap(),
                foreign(name),
                "round {round}: the team's {name} is chained, byte for byte"
            );
        }
        assert!(
            vouch::install::is_ours(&hooks.join("reference-transaction")),
            "round {round}: reference-transaction is vouch's"
        );
        assert!(
            !hooks.join("reference-transaction.local").exists(),
            "round {round}: vouch's own hook is never kept as .local"
        );
        let leftovers: Vec<_> = fs::read_dir(&hooks)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".vouch-tmp"))
            .collect();
        assert!(leftovers.is_empty(), "round {round}: {leftovers:?}");
    }
    env.write_config("log_all = true\n");
    env.commit(&env.work, "after.txt", "after the installs");
    env.push(&["origin", "main"]).code(0);
    assert_eq!(
        env.remote_ref("main").unwrap(),
        env.rev(&env.work, "HEAD"),
        "the push went through"
    );
    assert_eq!(
        fs::read_to_string(&ran).unwrap(),
        "pre-commit\npre-push\n",
        "each foreign hook ran once"
    );
    let hooks_seen: Vec<_> = env
        .audit()
        .iter()
        .map(|r| r["hook"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(
        hooks_seen.contains(&"pre-push".to_owned())
            && hooks_seen.contains(&"pre-commit".to_owned()),
        "vouch judged both: {hooks_seen:?}"
    );
}

#[test]
fn a_vouch_hook_copied_to_local_is_never_chained() {
    let env = TestEnv::new();
    env.install();
    let hooks = env.work.join(".git/hooks");
    // `cp` follows the link: the `.local` is a copy of the binary itself.
    for name in ["pre-commit", "reference-transaction"] {
        let status = env
            .cmd("cp", &env.work)
            .arg(hooks.join(name))
            .arg(hooks.join(format!("{name}.local")))
            .status()
            .unwrap();
        assert!(status.success());
    }
    fs::write(env.work.join("c.txt"), "c\n").unwrap();
    env.git(&env.work, &["add", "c.txt"]);
    // Without the guard this recursed without end; `timeout` makes a
    // regression fail instead of hanging the suite.
    let out = crate::support::Out::from_output(
        env.cmd("timeout", &env.work)
            .args(["120", "git", "commit", "-q", "-m", "c"])
            .output()
            .unwrap(),
    );
    out.code(0)
        .stderr_has("pre-commit.local` is vouch's own hook, not one to chain")
        .stderr_has("reference-transaction.local` is vouch's own hook");
    env.vouch(&["status"])
        .code(0)
        .stdout_has("pre-commit:   installed");
    assert!(
        !env.vouch(&["status"]).stdout.contains("chains"),
        "vouch's own copy is not a chained hook"
    );
    env.vouch(&["install"])
        .code(0)
        .stderr_has("it was vouch's own hook, not one to chain");
    assert!(!hooks.join("pre-commit.local").exists());
    assert!(!hooks.join("reference-transaction.local").exists());
    // A link to the binary under the chained name is vouch's too.
    std::os::unix::fs::symlink(
        crate::support::vouch_bin().canonicalize().unwrap(),
        hooks.join("pre-push.local"),
    )
    .unwrap();
    env.commit(&env.work, "d.txt", "d");
    env.push(&["origin", "main"])
        .code(0)
        .stderr_has("pre-push.local` is vouch's own hook");
    env.vouch(&["install"]).code(0);
    assert!(fs::symlink_metadata(hooks.join("pre-push.local")).is_err());
}

/// What a hook records as its `$0`, before and after vouch is installed:
/// the chained hook sees the same path git ran it by.
#[test]
fn chained_hooks_see_the_path_git_ran_them_by_as_dollar_zero() {
    let env = TestEnv::new();
    let hooks = env.work.join(".git/hooks");
    let seen = env.base().join("zero");
    let scripts = [
        (
            "pre-commit",
            "#!/bin/sh\necho \"pre-commit $0\" >> \"$ZERO\"\n",
        ),
        (
            "reference-transaction",
            "#!/usr/bin/env bash\necho \"reftx $0 $1\" >> \"$ZERO\"\ncat > /dev/null\n",
        ),
        // No `#!` line: git runs it with `sh`.
        (
            "pre-push",
            "echo \"pre-push $0 $1\" >> \"$ZERO\"\ncat > /dev/null\n",
        ),
    ];
    for (name, text) in scripts {
        write_hook(&hooks.join(name), text);
    }
    let mut env = env;
    env.extra_env
        .push(("ZERO".into(), seen.display().to_string()));
    let run = |env: &TestEnv, n: &str| {
        env.commit(&env.work, &format!("{n}.txt"), n);
        env.push(&["origin", "main"]).code(0);
        fs::read_to_string(&seen).unwrap_or_default()
    };
    let without = run(&env, "one");
    fs::remove_file(&seen).unwrap();
    assert!(without.contains("pre-commit "), "{without}");
    assert!(without.contains("pre-push "), "{without}");
    env.install();
    assert!(hooks.join("reference-transaction.local").exists());
    let with = run(&env, "two");
    assert_eq!(
        with, without,
        "the chained hooks saw the same $0 and arguments"
    );
    assert!(!with.contains(".local"), "{with}");
}
