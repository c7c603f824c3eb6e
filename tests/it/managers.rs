//! vouch beside the real hook managers (pre-commit, prek, lefthook, husky),
//! as `.ci/run` installs them: both install orders, the manager's own
//! reinstall and `-f`, a force push of a rewritten `main` and the deletion
//! of a protected branch from a clean HEAD (both judged), the manager's own
//! hook still running, and `git vouch uninstall`.
//!
//! A manager missing from this machine skips its test with a line; with
//! `CI` set a missing manager fails the test (never a silent skip).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{Out, TestEnv};

/// Refuse whatever is verified and unavailable: a judged push is refused.
const BLOCK_UNAVAILABLE: &str =
    "[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\nstandard = \"block\"\n";

/// The directory holding `tool`, found on the test runner's own PATH.
fn tool_dir(tool: &str) -> Option<PathBuf> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .ok()?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && !path.is_empty())
        .then(|| Path::new(&path).parent().unwrap().to_path_buf())
}

/// A test world with `tool` on its PATH and the refusing config; `None`
/// (said) when the tool is missing outside CI.
fn with_tool(tool: &str) -> Option<TestEnv> {
    let Some(dir) = tool_dir(tool) else {
        crate::support::missing(tool);
        return None;
    };
    let mut env = TestEnv::new();
    env.extra_env.push((
        "PATH".into(),
        format!("{}:/usr/local/bin:/usr/bin:/bin", dir.display()),
    ));
    env.write_config(BLOCK_UNAVAILABLE);
    Some(env)
}

fn run(env: &TestEnv, program: &str, args: &[&str]) -> Out {
    Out::from_output(env.cmd(program, &env.work).args(args).output().unwrap())
}

fn hooks(env: &TestEnv) -> PathBuf {
    env.work.join(".git/hooks")
}

/// A force push of a rewritten `main` and the deletion of the protected
/// `develop`, from a clean HEAD: both judged, refused and logged.
#[track_caller]
fn destructive_pushes_are_judged(env: &TestEnv) {
    let before = env.remote_ref("main").unwrap();
    env.rewind(1);
    env.push(&["--force", "origin", "main"])
        .code(1)
        .stderr_has("refused");
    assert_eq!(
        env.remote_ref("main").unwrap(),
        before,
        "the remote is untouched"
    );
    let record = env.last_audit_of("pre-push");
    assert_eq!(record["decision"], "refused");
    assert_eq!(record["refs"][0]["rule"], "force_push_protected");
    env.git(&env.work, &["reset", "-q", "--hard", &before]);
    env.push(&["origin", "--delete", "develop"])
        .code(1)
        .stderr_has("refused");
    assert!(env.remote_ref("develop").is_some());
    let record = env.last_audit_of("pre-push");
    assert_eq!(record["decision"], "refused");
    assert_eq!(record["refs"][0]["rule"], "delete_protected");
}

/// A commit after `tool`'s reinstall took `hooks` from vouch: the branch
/// update puts vouch back in front of each, and says so.
#[track_caller]
fn put_back_by_a_commit(env: &TestEnv, tool: &str, hooks: &[&str]) {
    let out = env.git_out(
        &env.work,
        &[
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "a commit after the reinstall",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    for hook in hooks {
        assert!(
            out.stderr.contains(&format!(
                "had replaced vouch's `{hook}` hook: vouch put itself back in front"
            )),
            "{hook}: {}",
            out.stderr
        );
    }
    env.push(&["origin", "main"]).code(0);
    let said = status(env);
    assert!(!said.contains("NOT reached"), "{said}");
    for hook in hooks {
        assert!(
            said.contains(&format!("{hook}.local")) || said.contains(tool),
            "{said}"
        );
    }
}

/// `git vouch status`, whose exit code says whether every door is reached
/// (issue 29 item 2).
fn status(env: &TestEnv) -> String {
    let out = env.vouch(&["status"]);
    let unreached = out.stdout.contains("NOT reached");
    out.code(i32::from(unreached));
    out.stdout
}

// ---- pre-commit and prek ---------------------------------------------------

/// A pre-commit config whose hooks write a marker for each stage.
fn pre_commit_config(env: &TestEnv) {
    fs::write(
        env.work.join(".pre-commit-config.yaml"),
        "default_install_hook_types: [pre-commit, pre-push]\nrepos:\n- repo: local\n  hooks:\n  - id: marker\n    name: marker\n    entry: sh -c 'echo ran >> .git/manager-ran'\n    language: system\n    always_run: true\n    pass_filenames: false\n    stages: [pre-commit, pre-push]\n",
    )
    .unwrap();
    env.git(&env.work, &["add", ".pre-commit-config.yaml"]);
    env.git(
        &env.work,
        &["commit", "-q", "--no-verify", "-m", "pre-commit config"],
    );
    env.git(
        &env.work,
        &[
            "push",
            "-q",
            "--no-verify",
            "origin",
            "main",
            "main:develop",
        ],
    );
}

fn manager_ran(env: &TestEnv) -> usize {
    fs::read_to_string(env.work.join(".git/manager-ran"))
        .unwrap_or_default()
        .lines()
        .count()
}

fn pre_commit_like(tool: &str, manager_first: bool) {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let Some(env) = with_tool(tool) else {
        return;
    };
    pre_commit_config(&env);
    if manager_first {
        run(&env, tool, &["install"]).code(0);
        env.vouch(&["install"])
            .code(0)
            .stderr_has(&format!("{tool} install -f"));
    } else {
        env.vouch(&["install"]).code(0);
    }
    // The manager's routine reinstall (onboarding, `make setup`): migration mode.
    run(&env, tool, &["install"]).code(0);
    assert!(
        status(&env).contains("vouch is reached"),
        "{}",
        status(&env)
    );
    // Commits still work, and the manager's own hooks still run.
    let ran = manager_ran(&env);
    env.commit(&env.work, "more.txt", "more");
    assert!(manager_ran(&env) > ran, "{tool}'s pre-commit hook ran");
    env.push(&["origin", "main"]).code(0);
    assert!(manager_ran(&env) > ran + 1, "{tool}'s pre-push hook ran");
    destructive_pushes_are_judged(&env);

    // `-f`: the manager deletes vouch, and status says so. The next branch
    // update puts vouch back: the reference-transaction hook, which no
    // manager writes, finds the hooks of vouch's record taken.
    run(&env, tool, &["install", "-f"]).code(0);
    let said = status(&env);
    assert!(said.contains("vouch is NOT reached"), "{said}");
    assert!(said.contains(tool), "{said}");
    assert!(
        said.contains("vouch puts itself back at the next commit"),
        "{said}"
    );
    let ran = manager_ran(&env);
    put_back_by_a_commit(&env, tool, &["pre-commit", "pre-push"]);
    assert!(manager_ran(&env) > ran, "{tool}'s pre-commit hook ran");
    destructive_pushes_are_judged(&env);
    // The manager's hooks still run, after vouch's.
    let ran = manager_ran(&env);
    env.commit(&env.work, "after-f.txt", "after -f");
    env.push(&["origin", "main"]).code(0);
    assert!(
        manager_ran(&env) > ran + 1,
        "{tool}'s hooks ran after vouch's"
    );
    // And its next routine reinstall is migration mode again.
    run(&env, tool, &["install"]).code(0);
    assert!(
        status(&env).contains("vouch is reached"),
        "{}",
        status(&env)
    );
    destructive_pushes_are_judged(&env);

    // Uninstall leaves the manager as it works without vouch.
    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    assert!(
        !hooks(&env).join(".vouch-hooks").exists(),
        "uninstall forgets what install recorded: nothing is put back"
    );
    for name in [
        "pre-push",
        "pre-push.legacy",
        "pre-push.local",
        "pre-commit.legacy",
    ] {
        let path = hooks(&env).join(name);
        assert!(
            !fs::read_to_string(&path)
                .unwrap_or_default()
                .contains("vouch"),
            "`{name}` is not vouch's"
        );
    }
    let ran = manager_ran(&env);
    env.commit(&env.work, "after.txt", "after");
    env.push(&["origin", "main"]).code(0);
    assert!(manager_ran(&env) > ran + 1, "{tool}'s hooks still run");
    env.rewind(2);
    env.push(&["--force", "origin", "main"]).code(0);
}

#[test]
fn pre_commit_installed_first() {
    pre_commit_like("pre-commit", true);
}

#[test]
fn pre_commit_installed_after_vouch() {
    pre_commit_like("pre-commit", false);
}

#[test]
fn prek_installed_first() {
    pre_commit_like("prek", true);
}

#[test]
fn prek_installed_after_vouch() {
    pre_commit_like("prek", false);
}

/// A hook vouch cannot put back (the user's own hook already kept as
/// `pre-push.local` when `pre-commit install -f` took vouch's place): the
/// ref update goes on, and the warning names the command that mends it.
#[test]
fn a_hook_vouch_cannot_put_back_is_said_and_the_commit_goes_on() {
    let Some(env) = with_tool("pre-commit") else {
        return;
    };
    pre_commit_config(&env);
    let mine = "#!/bin/sh\necho mine >> .git/mine-ran\n";
    fs::write(hooks(&env).join("pre-push"), mine).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(
            hooks(&env).join("pre-push"),
            fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    env.vouch(&["install"]).code(0);
    run(&env, "pre-commit", &["install"]).code(0);
    run(&env, "pre-commit", &["install", "-f"]).code(0);
    assert_eq!(
        fs::read_to_string(hooks(&env).join("pre-push.local")).unwrap(),
        mine,
        "the user's hook is still kept where vouch put it"
    );
    let out = env.git_out(
        &env.work,
        &["commit", "-q", "--allow-empty", "-m", "after -f"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("could not put it back")
            && out.stderr.contains("run `git-vouch install`"),
        "{}",
        out.stderr
    );
    // pre-commit's own hook is where it was; the user's is untouched.
    assert!(
        fs::read_to_string(hooks(&env).join("pre-push"))
            .unwrap()
            .contains("File generated by pre-commit")
    );
    assert_eq!(
        fs::read_to_string(hooks(&env).join("pre-push.local")).unwrap(),
        mine
    );
}

// ---- lefthook ---------------------------------------------------------------

fn lefthook(manager_first: bool) {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let Some(env) = with_tool("lefthook") else {
        return;
    };
    fs::write(
        env.work.join("lefthook.yml"),
        "pre-push:\n  jobs:\n    - name: marker\n      run: echo ran >> .git/manager-ran\n",
    )
    .unwrap();
    env.git(&env.work, &["add", "lefthook.yml"]);
    env.git(&env.work, &["commit", "-q", "-m", "lefthook config"]);
    env.git(&env.work, &["push", "-q", "origin", "main", "main:develop"]);
    if manager_first {
        run(&env, "lefthook", &["install"]).code(0);
        env.vouch(&["install"])
            .code(0)
            .stderr_has("vouch is also in `lefthook-local.yml`");
        assert!(
            status(&env).contains("chains lefthook's hook"),
            "{}",
            status(&env)
        );
    } else {
        env.vouch(&["install"]).code(0);
        // lefthook moves vouch's hook to `pre-push.old` and never runs it;
        // it runs vouch from `lefthook-local.yml`.
        run(&env, "lefthook", &["install"]).code(0);
        let said = status(&env);
        assert!(
            said.contains("lefthook runs it from `lefthook-local.yml`"),
            "{said}"
        );
    }
    // vouch's local lefthook files are kept out of git.
    assert_eq!(
        env.git(
            &env.work,
            &["status", "--porcelain", "--untracked-files=all"]
        ),
        "",
        "nothing of vouch's to commit"
    );
    everything_judged_once(&env, "installed");
    // A file-changing push runs lefthook's job too.
    let ran = manager_ran(&env);
    env.commit(&env.work, "more.txt", "more");
    env.push(&["origin", "main"]).code(0);
    assert!(manager_ran(&env) > ran, "lefthook's job ran");

    // lefthook's reinstall and `-f` move vouch's hook aside: lefthook runs
    // vouch from `lefthook-local.yml`, so the very next push, commit and
    // branch deletion are judged (and the next branch update puts vouch's
    // hook back in front, which leaves the judging to itself: once).
    for args in [&["install"][..], &["install", "-f"][..]] {
        run(&env, "lefthook", args).code(0);
        everything_judged_once(&env, &format!("lefthook {args:?}"));
        everything_judged_once(&env, &format!("lefthook {args:?}, then a branch update"));
        let ran = manager_ran(&env);
        env.commit(&env.work, "more.txt", "more");
        env.push(&["origin", "main"]).code(0);
        assert!(
            manager_ran(&env) > ran,
            "lefthook's job still runs: {args:?}"
        );
    }

    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    let hook = fs::read_to_string(hooks(&env).join("pre-push")).unwrap();
    assert!(
        hook.contains("lefthook") && !hook.contains("vouch"),
        "{hook}"
    );
    assert!(!hooks(&env).join("pre-push.local").exists());
    assert!(!hooks(&env).join("pre-push.old").exists());
    assert!(!env.work.join("lefthook-local.yml").exists());
    assert!(!env.work.join(".lefthook-local").exists());
    let ran = manager_ran(&env);
    env.commit(&env.work, "again.txt", "again");
    env.push(&["origin", "main"]).code(0);
    assert!(manager_ran(&env) > ran, "lefthook still runs its job");
}

#[test]
fn lefthook_installed_first() {
    lefthook(true);
}

#[test]
fn lefthook_installed_after_vouch() {
    lefthook(false);
}

/// lefthook runs vouch from `lefthook-local.yml` under its spinner, which
/// redraws the line the cursor is on (issue 35 item 6): at a real terminal
/// vouch's question stays on the screen while the spinner runs below it,
/// and the answer typed decides.
#[test]
fn lefthooks_spinner_leaves_vouchs_question_on_the_screen() {
    let Some(env) = with_tool("lefthook") else {
        return;
    };
    if !crate::support::tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    // The defaults: a critical push without a verdict is asked at a terminal.
    env.write_config("");
    fs::write(
        env.work.join("lefthook.yml"),
        "pre-push:\n  jobs:\n    - name: marker\n      run: echo ran >> .git/manager-ran\n",
    )
    .unwrap();
    env.git(&env.work, &["add", "lefthook.yml"]);
    env.git(&env.work, &["commit", "-q", "-m", "lefthook config"]);
    env.git(&env.work, &["push", "-q", "origin", "main"]);
    env.vouch(&["install"]).code(0);
    run(&env, "lefthook", &["install"]).code(0);
    let before = env.remote_ref("refs/heads/main");
    let term =
        crate::support::tmux::Tmux::start(&env, &env.work, "git push --force origin HEAD~2:main");
    term.wait_for("Allow this push? [y/N]");
    let screen = term.wait_for("waiting: git-vouch.sh");
    assert!(
        screen.contains("Allow this push? [y/N]"),
        "the spinner hid the question:\n{screen}"
    );
    term.send("n");
    term.send("Enter");
    term.wait_for("[exit=1]");
    assert_eq!(env.remote_ref("refs/heads/main"), before);
}

// ---- husky -------------------------------------------------------------------

fn husky(manager_first: bool) {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let Some(mut env) = with_tool("husky") else {
        return;
    };
    env.git(&env.work, &["push", "-q", "origin", "main:develop"]);
    // husky's hook files call vouch by its PATH name: this machine has it.
    let bin_dir = crate::support::vouch_bin().parent().unwrap().to_path_buf();
    let path = env.extra_env.pop().unwrap().1;
    let with_vouch = format!("{}:{path}", bin_dir.display());
    env.extra_env.push(("PATH".into(), with_vouch));
    let husky = |env: &TestEnv| {
        run(env, "husky", &[]).code(0);
    };
    if !manager_first {
        env.vouch(&["install"]).code(0);
    }
    husky(&env);
    fs::write(
        env.work.join(".husky/pre-push"),
        "echo ran >> .git/manager-ran\n",
    )
    .unwrap();
    if !manager_first {
        // husky's `core.hooksPath` silences `.git/hooks`: status says so.
        assert!(
            status(&env).contains("vouch is NOT reached"),
            "{}",
            status(&env)
        );
    }
    env.vouch(&["install"]).code(0).stderr_has("commit it");
    // Its reinstall (`npm install` runs `husky`) keeps vouch.
    husky(&env);
    assert!(
        status(&env).contains("reached through husky"),
        "{}",
        status(&env)
    );
    env.commit(&env.work, "more.txt", "more");
    env.push(&["origin", "main"]).code(0);
    assert!(manager_ran(&env) >= 1, "the user's husky hook ran");
    destructive_pushes_are_judged(&env);

    // A teammate without vouch: one line, and the push goes on.
    let teammate = env.colleague();
    env.git(&env.work, &["add", ".husky/pre-push"]);
    env.git(&env.work, &["commit", "-q", "-m", "husky hooks"]);
    env.push(&["origin", "main"]).code(0);
    env.git(&teammate, &["pull", "-q"]);
    run(
        &env,
        "sh",
        &["-c", &format!("cd '{}' && husky", teammate.display())],
    )
    .code(0);
    // The teammate has husky but no vouch.
    let without = |args: &[&str]| {
        Out::from_output(
            env.cmd("git", &teammate)
                .env("PATH", &path)
                .args(args)
                .output()
                .unwrap(),
        )
    };
    fs::write(teammate.join("theirs.txt"), "theirs\n").unwrap();
    without(&["add", "theirs.txt"]).code(0);
    without(&["commit", "-q", "-m", "theirs"]).code(0);
    without(&["push", "origin", "main"])
        .code(0)
        .stderr_has("This repository suggests git-vouch");
    // Said once per clone.
    fs::write(teammate.join("theirs.txt"), "theirs again\n").unwrap();
    without(&["commit", "-q", "-am", "theirs again"]).code(0);
    let out = without(&["push", "origin", "main"]);
    out.code(0);
    assert!(!out.stderr.contains("suggests vouch"), "{}", out.stderr);

    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    let hook = fs::read_to_string(env.work.join(".husky/pre-push")).unwrap();
    assert_eq!(hook, "echo ran >> .git/manager-ran\n", "back as it was");
}

/// The common order on a team that uses husky, on a git before 2.54:
/// clone (`.husky/` committed), `git vouch install`, then `npm install`
/// (which runs husky, setting `core.hooksPath`): vouch put itself where
/// husky runs it at install, so the very next push, commit and branch
/// deletion are judged, and again after husky's reinstall.
#[test]
fn husky_set_up_in_the_repository_then_vouch_then_npm_install() {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let Some(mut env) = with_tool("husky") else {
        return;
    };
    let bin_dir = crate::support::vouch_bin().parent().unwrap().to_path_buf();
    let path = env.extra_env.pop().unwrap().1;
    env.extra_env
        .push(("PATH".into(), format!("{}:{path}", bin_dir.display())));
    env.git(&env.work, &["push", "-q", "origin", "main:develop"]);
    fs::create_dir_all(env.work.join(".husky")).unwrap();
    fs::write(
        env.work.join(".husky/pre-push"),
        "echo ran >> .git/manager-ran\n",
    )
    .unwrap();
    env.git(&env.work, &["add", ".husky"]);
    env.git(&env.work, &["commit", "-q", "--no-verify", "-m", "husky"]);
    env.git(&env.work, &["push", "-q", "origin", "main"]);
    env.vouch(&["install", "--hook-files"])
        .code(0)
        .stderr_has("husky is set up in this repository")
        .stderr_has("commit .husky/pre-push and .husky/pre-commit");
    env.git(&env.work, &["add", ".husky"]);
    env.git(
        &env.work,
        &["commit", "-q", "--no-verify", "-m", "vouch in husky"],
    );
    // The rewinds below go back one commit: not past vouch's block.
    env.commit(&env.work, "later.txt", "later");
    env.git(&env.work, &["push", "-q", "--no-verify", "origin", "main"]);
    everything_judged_once(&env, "before husky");
    run(&env, "husky", &[]).code(0);
    assert_eq!(
        env.git(&env.work, &["config", "core.hooksPath"]).trim(),
        ".husky/_"
    );
    everything_judged_once(&env, "after husky");
    run(&env, "husky", &[]).code(0);
    everything_judged_once(&env, "after husky again");
    let ran = manager_ran(&env);
    env.commit(&env.work, "more.txt", "more");
    env.push(&["origin", "main"]).code(0);
    assert!(manager_ran(&env) > ran, "the user's husky hook ran");
    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    assert!(!env.work.join(".husky/_/reference-transaction").exists());
    assert_eq!(
        fs::read_to_string(env.work.join(".husky/pre-push")).unwrap(),
        "echo ran >> .git/manager-ran\n"
    );
}

#[test]
fn husky_installed_first() {
    husky(true);
}

#[test]
fn husky_installed_after_vouch() {
    husky(false);
}

// ---- overcommit (not installable here: found by its files) ------------------

#[test]
fn overcommit_is_refused_with_a_recipe() {
    let env = TestEnv::new();
    fs::write(
        env.work.join(".overcommit.yml"),
        "PreCommit:\n  ALL:\n    enabled: true\n",
    )
    .unwrap();
    env.vouch(&["install"])
        .code(2)
        .stderr_has("overcommit")
        .stderr_has("--config-hooks");
    assert!(!hooks(&env).join("pre-push").exists());
}

// ---- upgrades ------------------------------------------------------------------

/// A versioned install (Homebrew, nix): `bin/git-vouch` is a link into a
/// versioned directory, which an upgrade replaces. Hooks call the link.
#[test]
fn an_upgrade_of_a_versioned_install_keeps_the_hooks_working() {
    let mut env = TestEnv::new();
    let base = env.base();
    let install_version = |v: &str| {
        let dir = base.join(format!("cellar/vouch/{v}"));
        fs::create_dir_all(&dir).unwrap();
        // `cp`, not fs::copy: see `install_from_vanishing_binary`.
        assert!(
            Command::new("cp")
                .arg(crate::support::vouch_bin())
                .arg(dir.join("git-vouch"))
                .status()
                .unwrap()
                .success()
        );
        let link = base.join("bin/git-vouch");
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        fs::remove_file(&link).ok();
        std::os::unix::fs::symlink(dir.join("git-vouch"), &link).unwrap();
    };
    install_version("1.0");
    env.extra_env.push((
        "PATH".into(),
        format!(
            "{}:/usr/local/bin:/usr/bin:/bin",
            base.join("bin").display()
        ),
    ));
    run(&env, "git-vouch", &["install"]).code(0);
    // A script, or the gate that carries the script's text.
    let script =
        String::from_utf8_lossy(&fs::read(hooks(&env).join("pre-push")).unwrap()).into_owned();
    assert!(
        script.contains(&format!(
            "vouch_bin='{}'",
            base.join("bin/git-vouch").display()
        )),
        "the PATH name, not the versioned file: {script}"
    );
    let reftx =
        String::from_utf8_lossy(&fs::read(hooks(&env).join("reference-transaction")).unwrap())
            .into_owned();
    assert!(
        reftx.contains(&format!(
            "vouch_bin='{}'",
            base.join("bin/git-vouch").display()
        )),
        "the PATH name, not the versioned file: {reftx}"
    );
    // The upgrade: a new versioned directory, the old one gone.
    install_version("2.0");
    fs::remove_dir_all(base.join("cellar/vouch/1.0")).unwrap();
    env.git(&env.work, &["switch", "-q", "-c", "doomed"]);
    env.commit(&env.work, "doomed.txt", "only here");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.git_headless(&env.work, &["branch", "-D", "doomed"])
        .code(0)
        .stderr_has("vouch rescue restore doomed/");
    let record = env.last_audit_of("reference-transaction");
    assert_eq!(record["hook"], "reference-transaction");
    // And the push hook still judges.
    env.write_config(BLOCK_UNAVAILABLE);
    env.rewind(1);
    env.push(&["--force", "origin", "main"])
        .code(1)
        .stderr_has("refused");
}

/// Issue 29 item 6: a repository with `.pre-commit-config.yaml` and only
/// prek installed (prek reads that file too): vouch names prek, the
/// manager that is there, not pre-commit.
#[test]
fn the_manager_named_is_the_one_installed() {
    let mut env = TestEnv::new();
    fs::write(env.work.join(".pre-commit-config.yaml"), "repos: []\n").unwrap();
    let prek = env.script("prek", "exit 0");
    env.extra_env.push((
        "PATH".into(),
        format!(
            "{}:/usr/local/bin:/usr/bin:/bin",
            prek.parent().unwrap().display()
        ),
    ));
    let out = env.vouch(&["install"]);
    out.code(0);
    assert!(out.stderr.contains("vouch: prek (`"), "{}", out.stderr);
    assert!(!out.stderr.contains("pre-commit install"), "{}", out.stderr);
}

// ---- git 2.55: vouch in git config, every order ------------------------------
//
// Issue 29 item 1: on git 2.54 and later `git vouch install` registers vouch
// as config-defined hooks (`hook.vouch-<hook>.command`), which git runs
// beside the hook files whatever `core.hooksPath` says and whatever a
// manager rewrites. With each manager, in each order, and after each of its
// reinstalls, the very next push, commit and branch deletion are judged,
// each exactly once.

/// A test world like [`with_tool`]'s, with git 2.55 first on its PATH
/// (`None`, said, when there is none: a failure under CI).
fn with_git_255(tool: Option<&str>) -> Option<TestEnv> {
    let git = crate::support::git_255_dir()?;
    let mut env = if let Some(tool) = tool {
        with_tool(tool)?
    } else {
        let env = TestEnv::new();
        env.write_config(BLOCK_UNAVAILABLE);
        env
    };
    let path = env
        .extra_env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map_or_else(|| "/usr/local/bin:/usr/bin:/bin".into(), |(_, v)| v.clone());
    // husky's hook files call vouch by its PATH name.
    let bin_dir = crate::support::vouch_bin().parent().unwrap().to_path_buf();
    env.extra_env.push((
        "PATH".into(),
        format!("{}:{}:{path}", git.display(), bin_dir.display()),
    ));
    assert!(
        env.git(&env.work, &["version"])
            .starts_with("git version 2.55"),
        "the tests run git 2.55"
    );
    Some(env)
}

/// `git vouch install` on git 2.55: registered in git config, no hook file.
#[track_caller]
fn install_in_config(env: &TestEnv) {
    env.vouch(&["install"])
        .code(0)
        .stderr_has("registered `hook.vouch-pre-push.command`");
    for hook in ["pre-push", "pre-commit", "reference-transaction"] {
        let file = fs::read(hooks(env).join(hook)).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&file).contains("vouch-managed-hook"),
            "no vouch hook file in `.git/hooks/{hook}`: git would run vouch twice"
        );
    }
}

/// How many audit lines `hook` wrote.
fn judged(env: &TestEnv, hook: &str) -> usize {
    env.audit().iter().filter(|r| r["hook"] == hook).count()
}

/// The very next push, commit and branch deletion are judged, each once;
/// status says every door is reached (exit 0).
#[track_caller]
fn everything_judged_once(env: &TestEnv, when: &str) {
    let said = status(env);
    assert!(!said.contains("NOT"), "{when}: {said}");
    if env
        .git(&env.work, &["version"])
        .starts_with("git version 2.55")
    {
        assert!(said.contains("reached from git config"), "{when}: {said}");
    }
    let pushes = judged(env, "pre-push");
    destructive_pushes_are_judged(env);
    assert_eq!(
        judged(env, "pre-push"),
        pushes + 2,
        "{when}: each push judged once"
    );
    // A commit of a credential file: critical, refused.
    fs::write(env.work.join(".env"), "API_TOKEN=abc123\n").unwrap();
    env.git(&env.work, &["add", ".env"]);
    let commits = judged(env, "pre-commit");
    let out = env.git_headless(&env.work, &["commit", "-q", "-m", "credentials"]);
    assert_eq!(out.code, 1, "{when}: the commit is refused: {}", out.stderr);
    assert_eq!(
        judged(env, "pre-commit"),
        commits + 1,
        "{when}: the commit judged once"
    );
    env.git(&env.work, &["rm", "-q", "--cached", ".env"]);
    fs::remove_file(env.work.join(".env")).unwrap();
    // A branch whose commit is on no other ref, deleted: judged, refused.
    env.git(&env.work, &["switch", "-q", "-c", "doomed"]);
    env.git(
        &env.work,
        &[
            "commit",
            "-q",
            "--no-verify",
            "--allow-empty",
            "-m",
            "only here",
        ],
    );
    env.git(&env.work, &["switch", "-q", "main"]);
    let deletions = judged(env, "reference-transaction");
    env.git_headless(&env.work, &["branch", "-D", "doomed"])
        .code(128)
        .stderr_has("refused");
    assert_eq!(
        judged(env, "reference-transaction"),
        deletions + 1,
        "{when}: the deletion judged once"
    );
    env.git_headless(&env.work, &["branch", "-D", "doomed"])
        .code(128);
    let out = env
        .cmd("git", &env.work)
        .env("VOUCH_SKIP", "test cleanup")
        .args(["branch", "-q", "-D", "doomed"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{when}");
}

fn pre_commit_like_255(tool: &str, manager_first: bool) {
    // `git vouch uninstall`/`trust`/`prune` ask at a terminal (tmux).
    if !crate::support::tmux::needed() {
        return;
    }
    let Some(env) = with_git_255(Some(tool)) else {
        return;
    };
    pre_commit_config(&env);
    if manager_first {
        run(&env, tool, &["install"]).code(0);
        install_in_config(&env);
    } else {
        install_in_config(&env);
        run(&env, tool, &["install"]).code(0);
    }
    everything_judged_once(&env, &format!("{tool} install"));
    let ran = manager_ran(&env);
    env.commit(&env.work, "more.txt", "more");
    env.push(&["origin", "main"]).code(0);
    assert!(manager_ran(&env) > ran + 1, "{tool}'s hooks still run");
    run(&env, tool, &["install", "-f"]).code(0);
    everything_judged_once(&env, &format!("{tool} install -f"));
    crate::support::tmux::vouch_yes(&env, &["uninstall"]);
    assert!(
        env.git_out(&env.work, &["config", "--get-regexp", "^hook\\."])
            .stdout
            .is_empty(),
        "uninstall takes vouch out of git config"
    );
    let ran = manager_ran(&env);
    env.commit(&env.work, "after.txt", "after");
    env.push(&["origin", "main"]).code(0);
    assert!(manager_ran(&env) > ran + 1, "{tool}'s hooks still run");
}

#[test]
fn git_255_pre_commit_installed_first() {
    pre_commit_like_255("pre-commit", true);
}

#[test]
fn git_255_pre_commit_installed_after_vouch() {
    pre_commit_like_255("pre-commit", false);
}

#[test]
fn git_255_prek_installed_first() {
    pre_commit_like_255("prek", true);
}

#[test]
fn git_255_prek_installed_after_vouch() {
    pre_commit_like_255("prek", false);
}

fn lefthook_255(manager_first: bool) {
    let Some(env) = with_git_255(Some("lefthook")) else {
        return;
    };
    fs::write(
        env.work.join("lefthook.yml"),
        "pre-push:\n  jobs:\n    - name: marker\n      run: echo ran >> .git/manager-ran\n",
    )
    .unwrap();
    env.git(&env.work, &["add", "lefthook.yml"]);
    env.git(&env.work, &["commit", "-q", "-m", "lefthook config"]);
    env.git(&env.work, &["push", "-q", "origin", "main", "main:develop"]);
    if manager_first {
        run(&env, "lefthook", &["install"]).code(0);
        install_in_config(&env);
    } else {
        install_in_config(&env);
        run(&env, "lefthook", &["install"]).code(0);
    }
    for args in [&["install"][..], &["install", "-f"][..]] {
        run(&env, "lefthook", args).code(0);
        everything_judged_once(&env, &format!("lefthook {args:?}"));
        let ran = manager_ran(&env);
        env.commit(&env.work, "more.txt", "more");
        env.push(&["origin", "main"]).code(0);
        assert!(manager_ran(&env) > ran, "lefthook's job still runs");
    }
}

#[test]
fn git_255_lefthook_installed_first() {
    lefthook_255(true);
}

#[test]
fn git_255_lefthook_installed_after_vouch() {
    lefthook_255(false);
}

fn husky_255(manager_first: bool) {
    let Some(env) = with_git_255(Some("husky")) else {
        return;
    };
    env.git(&env.work, &["push", "-q", "origin", "main:develop"]);
    if manager_first {
        run(&env, "husky", &[]).code(0);
        install_in_config(&env);
    } else {
        // The common order: clone, `git vouch install`, `npm install`.
        install_in_config(&env);
        run(&env, "husky", &[]).code(0);
    }
    fs::write(
        env.work.join(".husky/pre-push"),
        "echo ran >> .git/manager-ran\n",
    )
    .unwrap();
    everything_judged_once(&env, "husky");
    // Its reinstall (`npm install` runs `husky`).
    run(&env, "husky", &[]).code(0);
    everything_judged_once(&env, "husky again");
    let ran = manager_ran(&env);
    env.commit(&env.work, "more.txt", "more");
    env.push(&["origin", "main"]).code(0);
    assert!(manager_ran(&env) > ran, "the user's husky hook ran");
    // A teammate on an older git committed vouch's block into the husky
    // hook: here git runs vouch from config, and the block leaves it to that.
    let block = format!(
        "{}\ngit-vouch hook pre-push -- \"$@\" || exit $?\n{}\n",
        "# >>> vouch (`git vouch uninstall` removes this block)", "# <<< vouch"
    );
    fs::write(
        env.work.join(".husky/pre-push"),
        format!("{block}echo ran >> .git/manager-ran\n"),
    )
    .unwrap();
    everything_judged_once(&env, "husky with vouch's block committed");
}

#[test]
fn git_255_husky_installed_first() {
    husky_255(true);
}

#[test]
fn git_255_husky_installed_after_vouch() {
    husky_255(false);
}

/// `core.hooksPath` set by hand, before vouch and after it.
#[test]
fn git_255_hooks_path_set_by_hand_in_either_order() {
    for hooks_path_first in [true, false] {
        let Some(env) = with_git_255(None) else {
            return;
        };
        env.git(&env.work, &["push", "-q", "origin", "main:develop"]);
        let set = || {
            let dir = env.work.join(".githooks");
            fs::create_dir_all(&dir).unwrap();
            fs::write(
                dir.join("pre-push"),
                "#!/bin/sh\necho ran >> .git/manager-ran\n",
            )
            .unwrap();
            {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(dir.join("pre-push"), fs::Permissions::from_mode(0o755))
                    .unwrap();
            }
            env.git(&env.work, &["config", "core.hooksPath", ".githooks"]);
        };
        if hooks_path_first {
            set();
            install_in_config(&env);
        } else {
            install_in_config(&env);
            set();
        }
        everything_judged_once(&env, &format!("hooksPath first: {hooks_path_first}"));
        let ran = manager_ran(&env);
        env.commit(&env.work, "more.txt", "more");
        env.push(&["origin", "main"]).code(0);
        assert!(manager_ran(&env) > ran, "the hook there still runs");
    }
}

/// Hook files from an install on an older git, then `git vouch install` on
/// git 2.55: the files go (what they chained comes back), so nothing runs
/// twice.
#[test]
fn git_255_an_older_install_moves_into_git_config() {
    let Some(env) = with_git_255(Some("lefthook")) else {
        return;
    };
    env.git(&env.work, &["push", "-q", "origin", "main:develop"]);
    fs::write(
        env.work.join("lefthook.yml"),
        "pre-push:\n  jobs:\n    - name: marker\n      run: echo ran >> .git/manager-ran\n",
    )
    .unwrap();
    run(&env, "lefthook", &["install"]).code(0);
    env.vouch(&["install", "--hook-files"]).code(0);
    assert!(
        hooks(&env).join("pre-push.local").exists(),
        "lefthook's, chained"
    );
    env.vouch(&["install"])
        .code(0)
        .stderr_has("removed vouch's hook files");
    assert!(!hooks(&env).join("pre-push.local").exists());
    let hook = fs::read_to_string(hooks(&env).join("pre-push")).unwrap();
    assert!(hook.contains("lefthook"), "lefthook's hook is back: {hook}");
    assert!(
        !env.work.join("lefthook-local.yml").exists(),
        "vouch left lefthook's local config: git config runs vouch now"
    );
    everything_judged_once(&env, "after the move");
    // And back to hook files: out of git config, so nothing runs twice.
    env.vouch(&["install", "--hook-files"])
        .code(0)
        .stderr_has("removed the config-defined hook `vouch-pre-push`");
    let pushes = judged(&env, "pre-push");
    destructive_pushes_are_judged(&env);
    assert_eq!(
        judged(&env, "pre-push"),
        pushes + 2,
        "each push judged once"
    );
}

/// A hook file of vouch's leaves the judging to git config's run only when
/// that run is vouch's: a registration whose command was changed to
/// anything else (here `true`) judges nothing, so the file's run judges.
#[test]
fn git_255_a_changed_config_command_leaves_the_hook_file_judging() {
    let Some(env) = with_git_255(None) else {
        return;
    };
    env.git(&env.work, &["push", "-q", "origin", "main:develop"]);
    install_in_config(&env);
    let config_hook = env.work.join(".git/vouch-hooks/pre-push");
    fs::copy(&config_hook, hooks(&env).join("pre-push")).unwrap();
    env.git(
        &env.work,
        &["config", "hook.vouch-pre-push.command", "true"],
    );
    destructive_pushes_are_judged(&env);
}
