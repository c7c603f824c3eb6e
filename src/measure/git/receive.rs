//! The server door's facts (SPEC 3.5): what a push arriving at the server
//! would remove from the server's refs, measured in the bare repository
//! `pre-receive` runs in.
//!
//! The pushed objects are not in the repository yet: git keeps them in a
//! quarantine directory until the hook accepts (`GIT_QUARANTINE_PATH`), and
//! tells the hook where through `GIT_OBJECT_DIRECTORY` (the quarantine) and
//! `GIT_ALTERNATE_OBJECT_DIRECTORIES` (the repository's own objects). git2's
//! `Repository::open_from_env` reads both, so every object of the push is
//! readable here.

use git2::Oid;

use super::Repo;
use super::ref_facts::{Git2, Side, measure};
use crate::classify::facts::PushFacts;
use crate::classify::facts::ServerFacts;
use crate::input::hooks::{ForceHint, PushUpdate};
use crate::input::receive::{AllowSkip, SkipPolicy};

impl Repo {
    /// The server's default branch: what its `HEAD` names.
    pub fn default_branch(&self) -> Option<String> {
        let head = self.repo.find_reference("HEAD").ok()?;
        let target = head.symbolic_target().ok().flatten()?;
        target.strip_prefix("refs/heads/").map(str::to_owned)
    }

    /// The committer of commit `oid` (the pusher's last resort).
    pub fn committer_of(&self, oid: &str) -> Option<String> {
        let commit = self.repo.find_commit(Oid::from_str(oid).ok()?).ok()?;
        let committer = commit.committer();
        let name = String::from_utf8_lossy(committer.name_bytes()).into_owned();
        let email = String::from_utf8_lossy(committer.email_bytes()).into_owned();
        Some(format!("{name} <{email}>"))
    }

    /// The server's skip policy, from its git config (the server account's
    /// global or system config, or the repository's own `config`): never
    /// from anything pushed.
    pub fn skip_policy(&self) -> SkipPolicy {
        let allow = self
            .repo
            .config()
            .ok()
            .and_then(|c| c.get_string("vouch.allowSkip").ok());
        SkipPolicy {
            allow: AllowSkip::from_value(allow.as_deref()),
            users: self.config_multi("vouch.skipUser"),
        }
    }

    /// Measures a push on the server: for each ref, how it changes and,
    /// for a deletion or a rewrite, the commits that would be on no ref of
    /// the server once the push is in.
    pub fn receive_facts(&self, updates: &[PushUpdate], quarantine: bool) -> ServerFacts {
        let git_dir = self.git_dir();
        let mut name = git_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name == ".git" {
            name = git_dir
                .parent()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or(name);
        }
        let updates = updates.iter().map(|u| (u.clone(), false)).collect();
        let refs = measure(&mut Git2::new(self, None), Side::Server, updates);
        ServerFacts {
            push: PushFacts {
                remote: name,
                url: git_dir.display().to_string(),
                refs,
                // What reaches the server is what the client sent, forced or not.
                force: ForceHint::Forced,
                shallow: self.repo.is_shallow(),
                remote_head: self.default_branch(),
                ..PushFacts::default()
            },
            pusher: None,
            quarantine,
        }
    }
}

/// Lets the clients of the bare repository at `git_dir` send push options
/// (`receive.advertisePushOptions = true`): without it `git push -o` fails.
pub fn advertise_push_options(git_dir: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let repo = git2::Repository::open_bare(git_dir)
        .with_context(|| format!("`{}` is not a bare git repository", git_dir.display()))?;
    repo.config()
        .and_then(|c| c.open_level(git2::ConfigLevel::Local))
        .and_then(|mut c| c.set_bool("receive.advertisePushOptions", true))
        .with_context(|| {
            format!(
                "cannot set `receive.advertisePushOptions` in `{}`",
                git_dir.display()
            )
        })
}

/// Every bare repository at or below `dir` (a forge's repository root:
/// `<owner>/<name>.git`, GitLab's `@hashed/ab/cd/<hash>.git`), sorted. A
/// repository's own directories are not searched further, and links are
/// not followed.
pub fn bare_repositories_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    fn is_bare(p: &std::path::Path) -> bool {
        p.join("HEAD").is_file() && p.join("objects").is_dir() && p.join("refs").is_dir()
    }
    let mut found = Vec::new();
    let mut todo = vec![(dir.to_path_buf(), 0usize)];
    while let Some((d, depth)) = todo.pop() {
        if is_bare(&d) {
            found.push(d);
            continue;
        }
        if depth >= 8 {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push((e.path(), depth + 1));
            }
        }
    }
    found.sort();
    found
}
