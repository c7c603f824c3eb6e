//! Measuring a push: what each ref update would destroy on the remote,
//! from local knowledge (the remote-tracking refs), and what `git push`
//! of the current branch would send.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::ref_facts::{Cli, Side, measure};
use super::{Repo, git_output};
use crate::classify::facts::{PushFacts, mirror_deletions};
use crate::input::hooks::{PushArgs, PushUpdate, effective_force};
use crate::input::text::redact_url;
impl Repo {
    /// Measures a push: one [`RefFacts`](crate::classify::facts::RefFacts) per line, plus the deletions of a
    /// mirror push that git never shows the hook.
    pub fn push_facts(
        &self,
        remote: &str,
        url: &str,
        updates: Vec<PushUpdate>,
        args: &PushArgs,
    ) -> PushFacts {
        // A configured remote, as git2's lookup finds one; the remote itself
        // (its refspecs, for tracking refs) is read only when a deletion or
        // a rewrite needs it: a fast-forward never does.
        let is_named_remote = ["url", "pushurl"]
            .iter()
            .any(|k| self.config_has(&format!("remote.{remote}.{k}")));
        let mirror = args.mirror
            || (is_named_remote && self.config_bool(&format!("remote.{remote}.mirror")));
        let force = effective_force(
            args.force,
            mirror,
            &self.config_multi(&format!("remote.{remote}.push")),
        );
        let mut facts = PushFacts {
            remote: redact_url(remote),
            url: redact_url(url),
            force,
            mirror,
            shallow: self.repo.is_shallow(),
            remote_head: is_named_remote.then(|| self.remote_head(remote)).flatten(),
            branch: self.current_branch(),
            ..PushFacts::default()
        };
        let mut updates: Vec<(PushUpdate, bool)> =
            updates.into_iter().map(|u| (u, false)).collect();
        if mirror {
            let pushed: HashSet<String> =
                updates.iter().map(|(u, _)| u.remote_ref.clone()).collect();
            match self.mirror_deletions(remote, url, &pushed) {
                Ok(deletions) => updates.extend(deletions.into_iter().map(|u| (u, true))),
                Err(e) => facts.mirror_unknown = Some(format!("{e:#}")),
            }
        }
        let mut history = super::ref_facts::Git2::new(self, Some(remote));
        let side = Side::Client {
            shallow: facts.shallow,
        };
        facts.refs = measure(&mut history, side, updates);
        if facts.shallow {
            facts.notes.push(
                "this is a shallow clone: commits behind the shallow boundary cannot be measured"
                    .into(),
            );
        }
        facts
    }

    /// The refs a mirror push deletes: every ref on the remote that is not
    /// here (mirror pushes `refs/*:refs/*` with force and prune).
    fn mirror_deletions(
        &self,
        remote: &str,
        url: &str,
        pushed: &HashSet<String>,
    ) -> Result<Vec<PushUpdate>> {
        let target = if self.repo.find_remote(remote).is_ok() {
            remote
        } else {
            url
        };
        let listed = ls_remote(&self.root(), target)?;
        Ok(mirror_deletions(listed, |name| {
            pushed.contains(name) || self.repo.find_reference(name).is_ok()
        }))
    }

    /// What `git push` of the current branch would send, from local
    /// knowledge only (no network): the branch, its upstream, and the
    /// remote-tracking ref as the remote's value.
    pub fn pending_push(&self) -> Result<(String, String, PushUpdate)> {
        let head = self
            .repo
            .head()
            .context("this repository has no commits yet")?;
        if !head.is_branch() {
            bail!("HEAD is detached: check out the branch you mean to push");
        }
        let local_ref = head
            .name()
            .context("the branch name is not UTF-8")?
            .to_owned();
        let local_oid = head.target().context("HEAD points nowhere")?;
        let remote = self
            .repo
            .branch_upstream_remote(&local_ref)
            .ok()
            .and_then(|b| b.as_str().ok().map(str::to_owned))
            .or_else(|| self.repo.find_remote("origin").ok().map(|_| "origin".to_owned()))
            .context("this branch has no upstream and there is no `origin` remote: set one with `git push -u <remote> <branch>`")?;
        let remote_ref = self
            .repo
            .branch_upstream_merge(&local_ref)
            .ok()
            .and_then(|b| b.as_str().ok().map(str::to_owned))
            .unwrap_or_else(|| local_ref.clone());
        let url = self
            .repo
            .find_remote(&remote)
            .ok()
            .and_then(|r| r.url().ok().map(str::to_owned))
            .unwrap_or_else(|| remote.clone());
        let zero = "0".repeat(local_oid.to_string().len());
        let remote_oid = self
            .repo
            .find_remote(&remote)
            .ok()
            .and_then(|r| tracking_ref(&r, &remote_ref))
            .and_then(|t| self.ref_oid(&t))
            .map_or(zero, |o| o.to_string());
        Ok((
            remote,
            url,
            PushUpdate {
                local_ref,
                local_oid: local_oid.to_string(),
                remote_ref,
                remote_oid,
                lossy_name: false,
            },
        ))
    }
}

/// Facts from the git command line, for repositories git2 cannot open
/// (reftable, SHA-256; `research/git-semantics.md` section 6): the same
/// questions, one git process each. `None` when git cannot find a repository
/// either.
pub fn cli_push_facts(
    dir: &Path,
    remote: &str,
    url: &str,
    updates: Vec<PushUpdate>,
    args: &PushArgs,
) -> Option<PushFacts> {
    let probe = Cli::new(dir, None);
    let run = |a: &[&str]| probe.run(a);
    run(&["rev-parse", "--git-dir"])?;
    let config_key = |k: &str| format!("remote.{remote}.{k}");
    let named = run(&["config", "--get", &config_key("url")]).is_some();
    let mirror =
        args.mirror || run(&["config", "--bool", &config_key("mirror")]).as_deref() == Some("true");
    let configured: Vec<String> = run(&["config", "--get-all", &config_key("push")])
        .map(|t| t.lines().map(str::to_owned).collect())
        .unwrap_or_default();
    let mut facts = PushFacts {
        remote: redact_url(remote),
        url: redact_url(url),
        force: effective_force(args.force, mirror, &configured),
        mirror,
        shallow: run(&["rev-parse", "--is-shallow-repository"]).as_deref() == Some("true"),
        remote_head: named
            .then(|| run(&["symbolic-ref", "-q", &format!("refs/remotes/{remote}/HEAD")]))
            .flatten()
            .and_then(|t| {
                t.strip_prefix(&format!("refs/remotes/{remote}/"))
                    .map(str::to_owned)
            }),
        branch: run(&["symbolic-ref", "-q", "--short", "HEAD"]),
        ..PushFacts::default()
    };
    let mut updates: Vec<(PushUpdate, bool)> = updates.into_iter().map(|u| (u, false)).collect();
    if mirror {
        let pushed: HashSet<String> = updates.iter().map(|(u, _)| u.remote_ref.clone()).collect();
        let local: HashSet<String> = run(&["for-each-ref", "--format=%(refname)"])
            .map(|t| t.lines().map(str::to_owned).collect())
            .unwrap_or_default();
        match ls_remote(dir, if named { remote } else { url }) {
            Ok(listed) => updates.extend(
                mirror_deletions(listed, |n| pushed.contains(n) || local.contains(n))
                    .into_iter()
                    .map(|u| (u, true)),
            ),
            Err(e) => facts.mirror_unknown = Some(format!("{e:#}")),
        }
    }
    let mut history = Cli::new(dir, named.then_some(remote));
    let side = Side::Client {
        shallow: facts.shallow,
    };
    facts.refs = measure(&mut history, side, updates);
    Some(facts)
}

/// The remote-tracking ref that mirrors `remote_ref` of `remote`.
pub(super) fn tracking_ref(remote: &git2::Remote<'_>, remote_ref: &str) -> Option<String> {
    // No ref name holds a NUL byte (and git2 cannot take one): nothing tracks it.
    if remote_ref.contains('\0') {
        return None;
    }
    remote
        .refspecs()
        .filter(|s| s.direction() == git2::Direction::Fetch && s.src_matches(remote_ref))
        .find_map(|s| {
            s.transform(remote_ref)
                .ok()?
                .as_str()
                .ok()
                .map(str::to_owned)
        })
}

/// `git ls-remote` of a remote name or URL: `(oid, ref)` pairs.
pub fn ls_remote(dir: &Path, remote: &str) -> Result<Vec<(String, String)>> {
    let text = git_output(dir, &["ls-remote", "--", remote])?;
    Ok(text
        .lines()
        .filter_map(|l| {
            let (oid, name) = l.split_once('\t')?;
            Some((oid.to_owned(), name.to_owned()))
        })
        .collect())
}

/// `git ls-remote` that gives up after `timeout` (a remote that needs a
/// password or a network that hangs must not hold an agent's command).
pub fn ls_remote_within(
    dir: &Path,
    remote: &str,
    timeout: std::time::Duration,
) -> Result<Vec<(String, String)>> {
    use std::io::Read;
    use wait_timeout::ChildExt;
    let mut child = super::git_in(dir)
        .args(["ls-remote", "--", remote])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .context("cannot run `git ls-remote`")?;
    let mut out = String::new();
    let reader = child.stdout.take().map(|mut s| {
        std::thread::spawn(move || {
            let mut text = String::new();
            s.read_to_string(&mut text).ok();
            text
        })
    });
    let Some(status) = child.wait_timeout(timeout)? else {
        child.kill().ok();
        child.wait().ok();
        bail!(
            "`git ls-remote {remote}` did not answer within {} s",
            timeout.as_secs()
        );
    };
    if let Some(r) = reader {
        out = r.join().unwrap_or_default();
    }
    if !status.success() {
        bail!("`git ls-remote {remote}` failed");
    }
    Ok(out
        .lines()
        .filter_map(|l| {
            let (oid, name) = l.split_once('\t')?;
            Some((oid.to_owned(), name.to_owned()))
        })
        .collect())
}
