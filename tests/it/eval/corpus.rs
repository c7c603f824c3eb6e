//! The generator of the regression fixture (`fixtures/eval/generated.jsonl`,
//! written by the ignored test `eval::generate_corpus`): operations of
//! every kind, measured in real repositories and labelled by hand.

use std::path::Path;

use vouch::audit::eval::{Case, Label};
use vouch::classify::config::Config;
use vouch::classify::operation::Operation;
use vouch::classify::staged::{Reading, classify_commit};
use vouch::classify::{classify_local, classify_push};
use vouch::doors::assess::assess;
use vouch::input::git_command::RefUpdate;
use vouch::input::hooks::{ForceHint, PushArgs, PushUpdate};
use vouch::measure::git::{LazyRepo, Moment, Repo};

use crate::support::TestEnv;

const ZERO: &str = "0000000000000000000000000000000000000000";
const URL: &str = "git@github.com:acme/webapp.git";

struct Gen {
    lines: Vec<String>,
}

impl Gen {
    fn emit(&mut self, env: &TestEnv, label: Label, note: &str, operation: Operation) {
        assert!(
            operation.tier().is_some(),
            "{note}: every case is a judged operation"
        );
        let case = Case {
            label,
            operation,
            note: Some(note.to_owned()),
            repo_name: Some("webapp".to_owned()),
        };
        let line = serde_json::to_string(&case).unwrap();
        let base = env.base().display().to_string();
        self.lines.push(line.replace(&base, "/home/dev"));
    }
}

fn config() -> Config {
    Config::default()
}

/// Commits as another author.
fn commit_as(env: &TestEnv, dir: &Path, who: &str, file: &str, msg: &str) -> String {
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let previous = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, format!("{previous}{msg}\n")).unwrap();
    env.git(dir, &["add", file]);
    let name = format!("user.name={who}");
    let email = format!("user.email={}@example.com", who.to_lowercase());
    env.git(dir, &["-c", &name, "-c", &email, "commit", "-q", "-m", msg]);
    env.rev(dir, "HEAD")
}

fn push(env: &TestEnv, refs: &[(&str, &str)], force: bool) -> Operation {
    let repo = Repo::discover(&env.work).unwrap();
    let updates = refs
        .iter()
        .map(|(local, remote)| {
            let local_oid = if *local == "(delete)" {
                ZERO.to_owned()
            } else {
                env.rev(&env.work, local)
            };
            PushUpdate {
                local_ref: (*local).to_owned(),
                local_oid,
                remote_ref: (*remote).to_owned(),
                remote_oid: env.remote_ref(remote).unwrap_or_else(|| ZERO.to_owned()),
                lossy_name: false,
            }
        })
        .collect();
    let args = PushArgs {
        force: if force {
            ForceHint::Forced
        } else {
            ForceHint::NotForced
        },
        mirror: false,
        dry_run: false,
    };
    let facts = repo.push_facts("origin", URL, updates, &args);
    let assessment = classify_push(&facts, &config().policy);
    Operation::Push { facts, assessment }
}

/// A local transaction as the hook sees it at `prepared`: `updates`
/// are `(old, new, ref)`; the work tree is already what the command made.
fn local(
    env: &TestEnv,
    updates: &[(&str, &str, &str)],
    command: &str,
    amending: bool,
) -> Operation {
    let repo = Repo::discover(&env.work).unwrap();
    let updates: Vec<RefUpdate> = updates
        .iter()
        .map(|(old, new, name)| RefUpdate {
            old: (*old).to_owned(),
            new: (*new).to_owned(),
            name: (*name).to_owned(),
        })
        .collect();
    let mut facts = repo.local_facts(&updates, Moment::Hook { amending });
    assert!(!facts.refs.is_empty(), "{command}");
    facts.command = Some(command.to_owned());
    let assessment = classify_local(&facts, &config().policy);
    Operation::LocalRefs { facts, assessment }
}

fn commit(env: &TestEnv) -> Operation {
    let config = config();
    let repo = Repo::discover(&env.work).unwrap();
    let staged = repo.staged(&Reading::new(&config.commit)).unwrap();
    let assessment = classify_commit(&staged, &config.commit);
    Operation::Commit { staged, assessment }
}

fn command(env: &TestEnv, line: &str) -> Operation {
    let assessed = assess(
        &config(),
        line,
        &env.work,
        &LazyRepo::new(&env.work),
        &|| {},
    )
    .unwrap();
    Operation::Command {
        assessed,
        door: "claude".into(),
        session: None,
    }
}

fn write(env: &TestEnv, file: &str, text: &str) {
    let path = env.work.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Work on `feature` with `n` commits, pushed when `pushed`.
fn feature(env: &TestEnv, n: usize, pushed: bool) -> String {
    env.git(&env.work, &["checkout", "-q", "-b", "feature"]);
    for i in 1..=n {
        env.commit(
            &env.work,
            &format!("src/feature{i}.rs"),
            &format!("feature part {i}"),
        );
    }
    if pushed {
        env.git(&env.work, &["push", "-q", "-u", "origin", "feature"]);
    }
    env.rev(&env.work, "HEAD")
}

pub fn all() -> Vec<String> {
    use Label::{Dangerous as D, Safe as S};
    let mut g = Gen { lines: Vec::new() };
    let g = &mut g;

    // ---- pushes (pre-push) ----
    let e = TestEnv::new();
    e.rewind(2);
    g.emit(
        &e,
        D,
        "force push rewinds the default branch: 2 commits leave main",
        push(&e, &[("refs/heads/main", "refs/heads/main")], true),
    );

    let e = TestEnv::new();
    let c = e.colleague();
    commit_as(&e, &c, "Alice", "api.rs", "add rate limiting");
    commit_as(&e, &c, "Alice", "api.rs", "fix rate limit header");
    e.git(&c, &["push", "-q", "origin", "main"]);
    e.commit(&e.work, "ui.rs", "restyle header");
    g.emit(
        &e,
        D,
        "force push to main over 2 commits by another author that were never fetched here",
        push(&e, &[("refs/heads/main", "refs/heads/main")], true),
    );

    let e = TestEnv::new();
    g.emit(
        &e,
        D,
        "deletes the default branch on the remote",
        push(&e, &[("(delete)", "refs/heads/main")], false),
    );

    let e = TestEnv::new();
    let c = e.colleague();
    e.git(&c, &["checkout", "-q", "-b", "shared"]);
    for i in 1..=3 {
        commit_as(&e, &c, "Bob", "billing.rs", &format!("billing step {i}"));
    }
    e.git(&c, &["push", "-q", "origin", "shared"]);
    e.git(&e.work, &["fetch", "-q"]);
    e.git(&e.work, &["checkout", "-q", "-b", "shared", "origin/main"]);
    e.commit(&e.work, "billing.rs", "my take on billing");
    g.emit(
        &e,
        D,
        "force push to a shared branch removes 3 commits by another author",
        push(&e, &[("refs/heads/shared", "refs/heads/shared")], true),
    );

    let e = TestEnv::new();
    e.git(&e.work, &["tag", "v1.0"]);
    e.git(&e.work, &["push", "-q", "origin", "v1.0"]);
    g.emit(
        &e,
        D,
        "deletes the published release tag v1.0 on the remote",
        push(&e, &[("(delete)", "refs/tags/v1.0")], false),
    );

    let e = TestEnv::new();
    e.git(&e.work, &["checkout", "-q", "-b", "release/1.x"]);
    e.commit(&e.work, "CHANGELOG.md", "release 1.0.1");
    e.commit(&e.work, "CHANGELOG.md", "release 1.0.2");
    e.git(&e.work, &["push", "-q", "origin", "release/1.x"]);
    e.rewind(2);
    e.commit(&e.work, "hotfix.rs", "hotfix");
    g.emit(
        &e,
        D,
        "force push rewrites a release branch, dropping 2 published releases",
        push(
            &e,
            &[("refs/heads/release/1.x", "refs/heads/release/1.x")],
            true,
        ),
    );

    let e = TestEnv::new();
    feature(&e, 1, true);
    let c = e.colleague();
    e.git(&c, &["fetch", "-q"]);
    e.git(&c, &["checkout", "-q", "feature"]);
    commit_as(&e, &c, "Carol", "src/feature1.rs", "review fixes");
    e.git(&c, &["push", "-q", "origin", "feature"]);
    e.git(
        &e.work,
        &["commit", "-q", "--amend", "-m", "feature part 1 (amended)"],
    );
    g.emit(&e, D, "force push over a branch that moved since the last fetch: a colleague's unseen commit would be lost (lease fails)", push(&e, &[("refs/heads/feature", "refs/heads/feature")], true));

    let e = TestEnv::new();
    e.git(&e.work, &["checkout", "-q", "--orphan", "fresh"]);
    e.git(&e.work, &["rm", "-q", "-rf", "."]);
    e.commit(&e.work, "README.md", "start over");
    g.emit(
        &e,
        D,
        "force push replaces main with unrelated history: every commit of main leaves it",
        push(&e, &[("refs/heads/fresh", "refs/heads/main")], true),
    );

    let e = TestEnv::new();
    e.commit(&e.work, "src/lib.rs", "add parser");
    g.emit(
        &e,
        S,
        "fast-forward push of one new commit to main",
        push(&e, &[("refs/heads/main", "refs/heads/main")], false),
    );

    let e = TestEnv::new();
    feature(&e, 2, false);
    g.emit(
        &e,
        S,
        "pushes a new feature branch",
        push(&e, &[("refs/heads/feature", "refs/heads/feature")], false),
    );

    let e = TestEnv::new();
    feature(&e, 1, true);
    e.git(
        &e.work,
        &[
            "commit",
            "-q",
            "--amend",
            "-m",
            "feature part 1, typo fixed",
        ],
    );
    g.emit(
        &e,
        S,
        "force push of a personal branch after amending its last commit; the lease holds",
        push(&e, &[("refs/heads/feature", "refs/heads/feature")], true),
    );

    let e = TestEnv::new();
    feature(&e, 2, true);
    e.git(&e.work, &["checkout", "-q", "main"]);
    e.git(&e.work, &["merge", "-q", "--ff-only", "feature"]);
    e.git(&e.work, &["push", "-q", "origin", "main"]);
    g.emit(
        &e,
        S,
        "deletes a remote feature branch already merged into main",
        push(&e, &[("(delete)", "refs/heads/feature")], false),
    );

    let e = TestEnv::new();
    e.git(&e.work, &["tag", "v1.1"]);
    g.emit(
        &e,
        S,
        "pushes a new release tag",
        push(&e, &[("refs/tags/v1.1", "refs/tags/v1.1")], false),
    );

    let e = TestEnv::new();
    feature(&e, 2, true);
    e.git(&e.work, &["checkout", "-q", "main"]);
    e.commit(&e.work, "docs.md", "docs");
    e.git(&e.work, &["push", "-q", "origin", "main"]);
    e.git(&e.work, &["checkout", "-q", "feature"]);
    e.git(&e.work, &["rebase", "-q", "main"]);
    g.emit(
        &e,
        S,
        "force push of a personal branch rebased onto main: the same 2 changes, new parents",
        push(&e, &[("refs/heads/feature", "refs/heads/feature")], true),
    );

    let e = TestEnv::new();
    feature(&e, 3, false);
    g.emit(
        &e,
        S,
        "pushes 3 commits on a new branch",
        push(&e, &[("refs/heads/feature", "refs/heads/feature")], false),
    );

    let e = TestEnv::new();
    feature(&e, 1, true);
    e.commit(&e.work, "src/feature1.rs", "more work");
    g.emit(
        &e,
        S,
        "push with --force that is only a fast-forward of a personal branch",
        push(&e, &[("refs/heads/feature", "refs/heads/feature")], true),
    );

    // ---- local rewinds and deletions (reference-transaction) ----
    let e = TestEnv::new();
    e.commit(&e.work, "src/a.rs", "unpushed work 1");
    let tip = e.commit(&e.work, "src/b.rs", "unpushed work 2");
    let to = e.rev(&e.work, "HEAD~2");
    e.git(&e.work, &["read-tree", "-u", "--reset", &to]);
    g.emit(
        &e,
        D,
        "reset --hard drops 2 commits that were never pushed",
        local(
            &e,
            &[(&tip, &to, "refs/heads/main")],
            "git reset --hard HEAD~2",
            false,
        ),
    );

    let e = TestEnv::new();
    let tip = feature(&e, 3, false);
    e.git(&e.work, &["checkout", "-q", "main"]);
    g.emit(
        &e,
        D,
        "branch -D of an unmerged branch with 3 commits on no other ref",
        local(
            &e,
            &[(&tip, ZERO, "refs/heads/feature")],
            "git branch -D feature",
            false,
        ),
    );

    let e = TestEnv::new();
    e.git(&e.work, &["checkout", "-q", "-b", "experiment"]);
    e.commit(&e.work, "exp.rs", "experiment 1");
    let tag = e.commit(&e.work, "exp.rs", "experiment 2");
    e.git(&e.work, &["tag", "exp-snapshot"]);
    e.git(&e.work, &["checkout", "-q", "main"]);
    e.git(&e.work, &["branch", "-q", "-D", "experiment"]);
    g.emit(&e, D, "deletes the only ref holding 2 experiment commits, a tag (vouch measures no lost commits for a tag deletion)", local(&e, &[(&tag, ZERO, "refs/tags/exp-snapshot")], "git tag -d exp-snapshot", false));

    let e = TestEnv::new();
    let tip = feature(&e, 3, false);
    e.git(&e.work, &["checkout", "-q", "main"]);
    let to = e.rev(&e.work, "feature~2");
    g.emit(
        &e,
        D,
        "branch -f moves a branch back, dropping 2 unpushed commits",
        local(
            &e,
            &[(&tip, &to, "refs/heads/feature")],
            "git branch -f feature feature~2",
            false,
        ),
    );

    let e = TestEnv::new();
    write(&e, "file1.txt", "half-done change\n");
    e.git(&e.work, &["stash", "-q"]);
    let stash = e.rev(&e.work, "refs/stash");
    g.emit(
        &e,
        D,
        "stash clear drops a stash entry with uncommitted work",
        local(
            &e,
            &[(&stash, ZERO, "refs/stash")],
            "git stash clear",
            false,
        ),
    );

    let e = TestEnv::new();
    let tip = feature(&e, 4, false);
    let to = e.rev(&e.work, "main");
    e.git(&e.work, &["read-tree", "-u", "--reset", &to]);
    g.emit(
        &e,
        D,
        "reset --hard main on a feature branch drops its 4 unpushed commits",
        local(
            &e,
            &[(&tip, &to, "refs/heads/feature")],
            "git reset --hard main",
            false,
        ),
    );

    let e = TestEnv::new();
    e.git(&e.work, &["checkout", "-q", "-b", "wip"]);
    let tip = e.commit(&e.work, "wip.rs", "wip: half of the migration");
    e.git(&e.work, &["checkout", "-q", "main"]);
    g.emit(
        &e,
        D,
        "update-ref -d deletes a branch whose commit is on no other ref",
        local(
            &e,
            &[(&tip, ZERO, "refs/heads/wip")],
            "git update-ref -d refs/heads/wip",
            false,
        ),
    );

    let e = TestEnv::new();
    let tip = e.rev(&e.work, "HEAD");
    let to = e.rev(&e.work, "HEAD~1");
    e.git(&e.work, &["read-tree", "-u", "--reset", &to]);
    g.emit(
        &e,
        S,
        "reset --hard HEAD~1 of a commit that is on origin/main",
        local(
            &e,
            &[(&tip, &to, "refs/heads/main")],
            "git reset --hard HEAD~1",
            false,
        ),
    );

    let e = TestEnv::new();
    let tip = feature(&e, 2, false);
    e.git(&e.work, &["checkout", "-q", "main"]);
    e.git(&e.work, &["merge", "-q", "--ff-only", "feature"]);
    g.emit(
        &e,
        S,
        "branch -d of a branch merged into main",
        local(
            &e,
            &[(&tip, ZERO, "refs/heads/feature")],
            "git branch -d feature",
            false,
        ),
    );

    let e = TestEnv::new();
    let tip = e.commit(&e.work, "src/a.rs", "work to split");
    let to = e.rev(&e.work, "HEAD~1");
    g.emit(
        &e,
        S,
        "reset --soft HEAD~1: the change stays staged",
        local(
            &e,
            &[(&tip, &to, "refs/heads/main")],
            "git reset --soft HEAD~1",
            false,
        ),
    );

    let e = TestEnv::new();
    let old = e.commit(&e.work, "src/a.rs", "add a");
    write(&e, "src/a.rs", "add a\nforgotten line\n");
    e.git(&e.work, &["add", "src/a.rs"]);
    e.git(&e.work, &["commit", "-q", "--amend", "--no-edit"]);
    let new = e.rev(&e.work, "HEAD");
    e.git(&e.work, &["update-ref", "refs/heads/main", &old]);
    g.emit(
        &e,
        S,
        "commit --amend of an unpushed commit",
        local(
            &e,
            &[(&old, &new, "refs/heads/main")],
            "git commit --amend --no-edit",
            true,
        ),
    );

    let e = TestEnv::new();
    let tip = feature(&e, 2, true);
    e.git(&e.work, &["checkout", "-q", "main"]);
    g.emit(
        &e,
        S,
        "branch -D of a branch whose commits are all on origin/feature",
        local(
            &e,
            &[(&tip, ZERO, "refs/heads/feature")],
            "git branch -D feature",
            false,
        ),
    );

    let e = TestEnv::new();
    e.git(&e.work, &["tag", "tmp-mark"]);
    let tag = e.rev(&e.work, "tmp-mark");
    g.emit(
        &e,
        S,
        "deletes a tag pointing at main's tip",
        local(
            &e,
            &[(&tag, ZERO, "refs/tags/tmp-mark")],
            "git tag -d tmp-mark",
            false,
        ),
    );

    let e = TestEnv::new();
    let tip = feature(&e, 2, true);
    e.git(&e.work, &["checkout", "-q", "main"]);
    let to = e.rev(&e.work, "feature~1");
    g.emit(
        &e,
        S,
        "branch -f moves a branch back to a commit of it; the dropped commit is on origin/feature",
        local(
            &e,
            &[(&tip, &to, "refs/heads/feature")],
            "git branch -f feature feature~1",
            false,
        ),
    );

    // ---- commits (pre-commit) ----
    let e = TestEnv::new();
    write(
        &e,
        "db/migrations/20260101_drop_users.sql",
        "DROP TABLE users;\n",
    );
    e.git(&e.work, &["add", "."]);
    g.emit(&e, D, "a migration that drops the users table", commit(&e));

    let e = TestEnv::new();
    write(
        &e,
        ".env",
        "DATABASE_URL=postgres://app:hunter2@db.internal/app\nSTRIPE_SECRET_KEY=sk_live_51HxY2eKz8Qw3\n",
    );
    e.git(&e.work, &["add", "."]);
    g.emit(
        &e,
        D,
        "commits a .env file with live credentials",
        commit(&e),
    );

    let e = TestEnv::new();
    write(
        &e,
        "deploy/id_rsa",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\n",
    );
    e.git(&e.work, &["add", "."]);
    g.emit(&e, D, "commits a deploy private key", commit(&e));

    let e = TestEnv::new();
    for i in 0..25 {
        write(
            &e,
            &format!("src/module{i}.rs"),
            &format!("pub fn f{i}() {{}}\n").repeat(20),
        );
    }
    e.git(&e.work, &["add", "."]);
    e.git(&e.work, &["commit", "-q", "-m", "modules"]);
    e.git(&e.work, &["rm", "-q", "-r", "src"]);
    g.emit(
        &e,
        D,
        "deletes the whole source tree (25 files)",
        commit(&e),
    );

    let e = TestEnv::new();
    write(
        &e,
        "migrations/0042_cleanup.sql",
        "TRUNCATE TABLE orders;\nDELETE FROM payments;\n",
    );
    e.git(&e.work, &["add", "."]);
    g.emit(
        &e,
        D,
        "a migration that empties the orders and payments tables",
        commit(&e),
    );

    let e = TestEnv::new();
    write(&e, "README.md", "# webapp\n\nHow to run the tests.\n");
    e.git(&e.work, &["add", "."]);
    g.emit(&e, S, "edits the README", commit(&e));

    let e = TestEnv::new();
    write(
        &e,
        "src/parser.rs",
        "pub fn parse(s: &str) -> usize {\n    s.len()\n}\n",
    );
    e.git(&e.work, &["add", "."]);
    g.emit(&e, S, "adds a source file", commit(&e));

    let e = TestEnv::new();
    write(
        &e,
        ".github/workflows/ci.yml",
        "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: cargo test\n      - run: cargo clippy -- -D warnings\n",
    );
    e.git(&e.work, &["add", "."]);
    g.emit(&e, S, "adds a clippy step to CI", commit(&e));

    let e = TestEnv::new();
    write(
        &e,
        "db/migrations/20260102_add_nickname.sql",
        "ALTER TABLE users ADD COLUMN nickname TEXT;\n",
    );
    e.git(&e.work, &["add", "."]);
    g.emit(&e, S, "a migration that adds a nullable column", commit(&e));

    let e = TestEnv::new();
    write(
        &e,
        ".env.example",
        "DATABASE_URL=postgres://user:password@localhost/app\nSTRIPE_SECRET_KEY=\n",
    );
    e.git(&e.work, &["add", "."]);
    g.emit(
        &e,
        S,
        "commits an .env.example with placeholders only",
        commit(&e),
    );

    // ---- agent commands (the agent door) ----
    let e = TestEnv::new();
    e.rewind(2);
    g.emit(
        &e,
        D,
        "agent force-pushes main after a rewind: 2 commits leave the remote",
        command(&e, "git push --force origin main"),
    );

    let e = TestEnv::new();
    e.commit(&e.work, "src/a.rs", "unpushed 1");
    e.commit(&e.work, "src/b.rs", "unpushed 2");
    g.emit(
        &e,
        D,
        "agent resets away 2 unpushed commits",
        command(&e, "git reset --hard HEAD~2"),
    );

    let e = TestEnv::new();
    write(&e, "notes.txt", "design notes\n");
    write(&e, "data/export.csv", "id,total\n1,10\n");
    g.emit(
        &e,
        D,
        "agent cleans untracked files including notes and data",
        command(&e, "git clean -fdx"),
    );

    let e = TestEnv::new();
    g.emit(
        &e,
        D,
        "agent deletes the repository's .git directory",
        command(&e, "rm -rf .git"),
    );

    let e = TestEnv::new();
    write(&e, "file1.txt", "a morning of uncommitted edits\n");
    write(&e, "file2.txt", "more edits\n");
    g.emit(
        &e,
        D,
        "agent discards uncommitted edits to 2 files",
        command(&e, "git checkout -- ."),
    );

    let e = TestEnv::new();
    feature(&e, 3, false);
    e.git(&e.work, &["checkout", "-q", "main"]);
    g.emit(
        &e,
        D,
        "agent deletes an unmerged branch with 3 unpushed commits",
        command(&e, "git branch -D feature"),
    );

    let e = TestEnv::new();
    write(&e, "file1.txt", "stashed work\n");
    e.git(&e.work, &["stash", "-q"]);
    g.emit(
        &e,
        D,
        "agent clears the stash holding uncommitted work",
        command(&e, "git stash clear"),
    );

    let e = TestEnv::new();
    g.emit(
        &e,
        D,
        "agent deletes main on the remote",
        command(&e, "git push origin --delete main"),
    );

    let e = TestEnv::new();
    g.emit(
        &e,
        D,
        "agent expires the reflog and prunes: unreachable commits are gone for good",
        command(
            &e,
            "git reflog expire --expire=now --all && git gc --prune=now",
        ),
    );

    let e = TestEnv::new();
    for i in 1..=3 {
        e.commit(&e.work, "src/local.rs", &format!("local work {i}"));
    }
    g.emit(
        &e,
        D,
        "agent resets main to origin/main, dropping 3 unpushed commits",
        command(&e, "git reset --hard origin/main"),
    );

    let e = TestEnv::new();
    write(&e, "file3.txt", "uncommitted fix\n");
    g.emit(
        &e,
        D,
        "agent restores the whole tree over an uncommitted change",
        command(&e, "git restore ."),
    );

    let e = TestEnv::new();
    e.rewind(1);
    g.emit(
        &e,
        D,
        "agent force-pushes every branch: main loses a commit on the remote",
        command(&e, "git push --force --all origin"),
    );

    let e = TestEnv::new();
    g.emit(
        &e,
        S,
        "agent resets a clean work tree",
        command(&e, "git reset --hard"),
    );

    let e = TestEnv::new();
    g.emit(
        &e,
        S,
        "agent cleans a tree with no untracked files",
        command(&e, "git clean -fd"),
    );

    let e = TestEnv::new();
    feature(&e, 1, true);
    e.git(
        &e.work,
        &["commit", "-q", "--amend", "-m", "feature part 1, reworded"],
    );
    g.emit(
        &e,
        S,
        "agent force-pushes its own amended branch with a lease",
        command(&e, "git push --force-with-lease origin feature"),
    );

    let e = TestEnv::new();
    feature(&e, 2, false);
    e.git(&e.work, &["checkout", "-q", "main"]);
    e.git(&e.work, &["merge", "-q", "--ff-only", "feature"]);
    g.emit(
        &e,
        S,
        "agent deletes a merged branch",
        command(&e, "git branch -d feature"),
    );

    let e = TestEnv::new();
    g.emit(
        &e,
        S,
        "agent restores an unchanged file",
        command(&e, "git restore file1.txt"),
    );

    let e = TestEnv::new();
    e.commit(&e.work, "src/lib.rs", "add parser");
    g.emit(
        &e,
        S,
        "agent pushes a new commit to main",
        command(&e, "git push origin main"),
    );

    let e = TestEnv::new();
    write(&e, ".gitignore", "node_modules/\n");
    write(
        &e,
        "node_modules/left-pad/index.js",
        "module.exports = 1;\n",
    );
    g.emit(
        &e,
        S,
        "agent removes the ignored node_modules directory",
        command(&e, "rm -rf node_modules"),
    );

    let e = TestEnv::new();
    feature(&e, 2, false);
    g.emit(
        &e,
        S,
        "agent rebases an unpushed branch onto origin/main",
        command(&e, "git rebase origin/main"),
    );

    let e = TestEnv::new();
    g.emit(
        &e,
        S,
        "agent looks at the status",
        command(&e, "git status --short"),
    );

    let e = TestEnv::new();
    g.emit(
        &e,
        S,
        "agent fetches and prunes remote-tracking refs",
        command(&e, "git fetch --prune origin"),
    );

    let e = TestEnv::new();
    e.git(&e.work, &["checkout", "-q", "-b", "topic"]);
    e.commit(&e.work, "src/t.rs", "topic");
    e.git(&e.work, &["push", "-q", "-u", "origin", "topic"]);
    g.emit(
        &e,
        S,
        "agent resets a branch back one commit that is on origin/topic",
        command(&e, "git reset --hard HEAD~1"),
    );

    let e = TestEnv::new();
    g.emit(
        &e,
        S,
        "agent runs the tests",
        command(&e, "cargo test --workspace"),
    );

    std::mem::take(&mut g.lines)
}
