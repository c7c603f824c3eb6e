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
use std::collections::{BTreeSet, HashMap, HashSet};

use super::{MEASURED_REFS_LIMIT, Repo};
use crate::facts::{Change, PushFacts, RefFacts, RefKind, RemoteTip};
use crate::hooks::{ForceHint, PushUpdate};
use crate::receive::{AllowSkip, ServerFacts, SkipPolicy};

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
        let mut m = Measure {
            repo: self,
            updates,
            survivors: None,
            peeled: HashMap::new(),
            measured: 0,
        };
        let refs = updates.iter().map(|u| m.ref_facts(u.clone())).collect();
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

/// One push being measured.
struct Measure<'a> {
    repo: &'a Repo,
    updates: &'a [PushUpdate],
    /// The commits every ref points at once the push is in, read once.
    survivors: Option<(Vec<Oid>, HashSet<Oid>)>,
    peeled: HashMap<Oid, Option<Oid>>,
    /// Refs whose lost commits were walked.
    measured: usize,
}

impl Measure<'_> {
    fn peel_commit(&mut self, oid: Oid) -> Option<Oid> {
        let repo = self.repo;
        *self
            .peeled
            .entry(oid)
            .or_insert_with(|| repo.peel_commit(oid))
    }

    /// The commits the server's refs hold after the push: the one survivor
    /// rule ([`crate::facts::surviving`]) over the refs the push leaves
    /// alone, and the new value of every ref it sets.
    fn survivors(&mut self) -> &(Vec<Oid>, HashSet<Oid>) {
        if self.survivors.is_none() {
            let updated: HashSet<&str> =
                self.updates.iter().map(|u| u.remote_ref.as_str()).collect();
            let holders = self.repo.holders();
            let mut commits: BTreeSet<Oid> = self
                .repo
                .survivor_commits(&holders, &|n| updated.contains(n))
                .into_iter()
                .collect();
            let set_to: Vec<Oid> = self
                .updates
                .iter()
                .filter(|u| !u.is_delete())
                .filter_map(|u| Oid::from_str(&u.local_oid).ok())
                .collect();
            commits.extend(set_to.into_iter().filter_map(|o| self.peel_commit(o)));
            let set = commits.iter().copied().collect();
            self.survivors = Some((commits.into_iter().collect(), set));
        }
        self.survivors.as_ref().expect("just filled")
    }

    /// The commits only `old` reaches once the push is in.
    fn lost_after(&mut self, f: &mut RefFacts, old: Oid) {
        if self.survivors().1.contains(&old) {
            f.lost = Some(crate::facts::Lost::none());
            return;
        }
        if self.measured >= MEASURED_REFS_LIMIT {
            f.remote_tip = RemoteTip::Unknown(format!(
                "not measured: this push deletes or rewrites more than {MEASURED_REFS_LIMIT} refs"
            ));
            return;
        }
        self.measured += 1;
        let hide = self.survivors().0.clone();
        match self.repo.lost_commits(old, &hide) {
            Ok(lost) => f.lost = Some(lost),
            Err(e) => f.remote_tip = RemoteTip::Unknown(e.message().to_owned()),
        }
    }

    fn ref_facts(&mut self, update: PushUpdate) -> RefFacts {
        let change = Change::of(&update);
        let mut f = RefFacts::new(update, change);
        if matches!(change, Change::Create | Change::Unchanged) {
            return f;
        }
        let Ok(old) = Oid::from_str(&f.old_oid) else {
            f.remote_tip = RemoteTip::Unknown("the old object id is not one git2 can read".into());
            return f;
        };
        if !self.repo.has_object(old) {
            f.remote_tip = RemoteTip::Unknown(format!(
                "the server's own object {} is missing from its repository",
                crate::text::short_oid(&f.old_oid)
            ));
            return f;
        }
        f.remote_tip = RemoteTip::Known;
        let Some(old_commit) = self.peel_commit(old) else {
            return f; // a tag of a tree or blob: nothing to count
        };
        if change == Change::Delete {
            self.lost_after(&mut f, old_commit);
            return f;
        }
        let new_commit = Oid::from_str(&f.new_oid)
            .ok()
            .and_then(|o| self.peel_commit(o));
        let Some(new_commit) = new_commit else {
            f.remote_tip = RemoteTip::Unknown(
                "the new value is not a commit, or not readable (quarantine not found?)".into(),
            );
            return f;
        };
        if new_commit == old_commit {
            // A tag object replaced by another for the same commit still moves the tag.
            f.change = if f.kind == RefKind::Tag {
                Change::Rewrite
            } else {
                Change::Unchanged
            };
            return f;
        }
        match self.repo.lost_commits(old_commit, &[new_commit]) {
            Ok(left) if left.count == 0 => f.change = Change::FastForward,
            Ok(_) => {
                f.change = Change::Rewrite;
                self.lost_after(&mut f, old_commit);
            }
            Err(e) => {
                f.change = Change::Rewrite;
                f.remote_tip = RemoteTip::Unknown(e.message().to_owned());
            }
        }
        f
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
