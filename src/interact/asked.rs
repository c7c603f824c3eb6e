//! Approvals given at an agent's prompt (issue 35 item 1, SPEC 3.4 "One
//! decision per operation").
//!
//! When the agent door answers `ask` and a person answers the agent's
//! prompt, the command runs and passes vouch's git doors (pre-push,
//! reference-transaction). They must not refuse what the person just
//! approved, half way through git, nor let through more than was shown.
//! So the agent door, and only it, writes what it showed: the repository,
//! the agent process the command will run under, the agent's session, the
//! git commands of the line, and every ref it measured with its old and
//! new value and the commits it loses. A git door honours that record for
//! an operation it covers exactly (the same git command, every ref it
//! changes shown with the same values, no more commits lost than shown),
//! within [`ASKED_TTL`], in one git process only; anything else is judged
//! as before.
//!
//! The records live in `<state dir>/asked/`, each with an HMAC-SHA256 over
//! its text under a key only vouch writes there (`asked/key`, mode 0600).
//! What that does and does not stop an agent that runs as the same user
//! is written in `docs/agents.md` ("Approvals at the agent's prompt"): a
//! file written or edited by anything but vouch (an agent's file tool, a
//! shell redirection, a copy of an old record) carries no valid MAC;
//! writing into the state dir from the agent's shell is itself a command
//! the agent door judges critical.

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::classify::facts::CommandFacts;
use crate::classify::operation::{Assessed, Operation};
use crate::input::git_command::{GitCommand, is_zero_oid};

/// How long an approval given at an agent's prompt stays valid: the agent
/// runs the command as soon as its person says yes.
pub const ASKED_TTL: SignedDuration = SignedDuration::from_mins(10);

/// One ref the person was shown, with what the command does to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownRef {
    /// The ref (`refs/heads/main`), or for a push `<remote> <remote ref>`.
    pub name: String,
    /// Its value before.
    pub old: String,
    /// Its value after (zeros for a deletion).
    pub new: String,
    /// The commits it loses, as measured (`None`: not counted).
    pub lost: Option<usize>,
}

/// What the agent door showed the person, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shown {
    /// The agent (`claude`).
    pub agent: String,
    /// The agent's session id, when it sent one.
    pub session: Option<String>,
    /// The repository's root.
    pub repo: String,
    /// The command line, credentials masked (for the audit line).
    pub command: String,
    /// Each git command of the line: its subcommand and arguments, as
    /// [`GitCommand`] reads them (global options left out).
    pub git: Vec<Vec<String>>,
    /// Every ref the line changes, as measured before it ran.
    pub refs: Vec<ShownRef>,
    /// The work-tree files it discards, as measured (said, not matched:
    /// no git door sees the work tree).
    pub files: usize,
    /// The agent process the command runs under, and its executable.
    pub agent_pid: u32,
    /// That process's executable.
    pub agent_exe: PathBuf,
    /// When the person was asked.
    pub asked_at: String,
    /// When the approval lapses.
    pub expires_at: String,
    /// The git process that used it, once one did.
    pub used_by: Option<u32>,
    /// Who decided at the agent door: `person` (they answered its `ask`)
    /// or `verdict` (the verifiers let it through, and the git doors must
    /// not refuse half way what the agent door allowed).
    pub by: String,
}

/// The file: the record's text and its MAC.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Sealed {
    shown: String,
    mac: String,
}

/// Who approved an operation at an agent's prompt, for the audit line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Honoured {
    /// Who decided: `person` or `verdict`.
    pub by: String,
    /// The agent.
    pub agent: String,
    /// Its session.
    pub session: Option<String>,
    /// The command line shown.
    pub command: String,
    /// When the person was asked.
    pub asked_at: String,
}

impl Honoured {
    /// The override reason the audit line keeps.
    pub fn reason(&self) -> String {
        let who = if self.by == "verdict" {
            format!(
                "allowed by the verifiers at vouch's {} door",
                agent_title(&self.agent)
            )
        } else {
            format!(
                "approved by the person at {}'s prompt",
                agent_title(&self.agent)
            )
        };
        format!(
            "{who}{} at {}, for `{}` as measured before it ran",
            self.session
                .as_deref()
                .map(|s| format!(" (session {s})"))
                .unwrap_or_default(),
            self.asked_at,
            crate::input::text::one_line(&self.command, 200)
        )
    }
}

fn agent_title(name: &str) -> &str {
    match name {
        "claude" => "Claude Code",
        "codex" => "Codex",
        "gemini" => "Gemini CLI",
        "cursor" => "Cursor",
        "copilot" => "Copilot CLI",
        "opencode" => "OpenCode",
        other => other,
    }
}

/// PURE: the refs a command changes, from what the agent door measured;
/// `value` reads a ref's value now (a tag the command deletes, and
/// `stash_top`: the newest stash entry, which a drop of the last one
/// deletes). A step whose refs were not measured adds none: what it
/// changes is judged by the git doors as before.
pub fn shown_refs(
    assessed: &Assessed,
    stash_top: Option<&str>,
    value: &dyn Fn(&str) -> Option<String>,
) -> Vec<ShownRef> {
    let mut refs = Vec::new();
    let local = |refs: &mut Vec<ShownRef>, facts: &crate::classify::facts::LocalFacts| {
        for f in &facts.refs {
            refs.push(ShownRef {
                name: f.name.clone(),
                old: f.old_oid.clone(),
                new: f.new_oid.clone(),
                lost: f.lost.as_ref().map(|l| l.count),
            });
        }
    };
    for step in &assessed.facts {
        let Some(measured) = step.measured.as_ref() else {
            continue;
        };
        match measured {
            CommandFacts::Worktree { moves, .. } => {
                if let Some(moves) = moves {
                    local(&mut refs, moves);
                }
            }
            CommandFacts::Branch(Some(facts)) => local(&mut refs, facts),
            CommandFacts::StashDrop(entries) => {
                if let Some(top) = stash_top {
                    refs.push(ShownRef {
                        name: "refs/stash".into(),
                        old: top.to_owned(),
                        new: "0".repeat(top.len()),
                        lost: Some(entries.len()),
                    });
                }
            }
            CommandFacts::Push { facts, .. } => {
                for f in &facts.refs {
                    refs.push(ShownRef {
                        name: format!("{} {}", facts.remote, f.remote_ref),
                        old: f.old_oid.clone(),
                        new: f.new_oid.clone(),
                        lost: f.lost.as_ref().map(|l| l.count),
                    });
                }
            }
            CommandFacts::Tags(names) => {
                for name in names {
                    let name = format!("refs/tags/{name}");
                    let Some(old) = value(&name) else {
                        continue;
                    };
                    refs.push(ShownRef {
                        new: "0".repeat(old.len()),
                        old,
                        name,
                        // The commits only a tag holds are not counted
                        // before: a deletion that loses some is not covered.
                        lost: None,
                    });
                }
            }
            // No branch of that name, or nothing measured: nothing shown.
            CommandFacts::Branch(None) | CommandFacts::Unmeasured(_) => {}
        }
    }
    refs
}

/// PURE: why the operation a git door judges is not what was shown
/// (`None`: it is covered). `argv` is the git command running the hook.
pub fn not_covered(shown: &Shown, op: &Operation, argv: &[String]) -> Option<String> {
    let Some(git) = GitCommand::parse(argv) else {
        return Some("the git command running this hook cannot be read".into());
    };
    let mut words = vec![git.sub.clone()];
    words.extend(git.args.iter().cloned());
    if !shown.git.contains(&words) {
        return Some(format!(
            "`{}` is not the command the person approved",
            crate::input::text::one_line(&shell_words::join(argv), 200)
        ));
    }
    let changes: Vec<ShownRef> = match op {
        Operation::LocalRefs { facts, .. } => facts
            .refs
            .iter()
            .map(|f| ShownRef {
                name: f.name.clone(),
                old: f.old_oid.clone(),
                new: f.new_oid.clone(),
                lost: Some(f.lost_count()),
            })
            .collect(),
        Operation::Push { facts, .. } => facts
            .refs
            .iter()
            .map(|f| ShownRef {
                name: format!("{} {}", facts.remote, f.remote_ref),
                old: f.old_oid.clone(),
                new: f.new_oid.clone(),
                lost: Some(f.lost.as_ref().map_or(0, |l| l.count)),
            })
            .collect(),
        _ => return Some("only ref updates and pushes are approved at an agent's prompt".into()),
    };
    if let Operation::Push { facts, .. } = op
        && facts.mirror_unknown.is_some()
    {
        return Some("a mirror push deletes refs that were not measured".into());
    }
    for change in &changes {
        let seen = shown.refs.iter().find(|s| {
            s.name == change.name
                && s.old.eq_ignore_ascii_case(&change.old)
                && (s.new.eq_ignore_ascii_case(&change.new)
                    || (is_zero_oid(&s.new) && is_zero_oid(&change.new)))
        });
        let Some(seen) = seen else {
            return Some(format!(
                "`{}` ({} -> {}) was not shown to the person",
                change.name,
                crate::input::text::short_oid(&change.old),
                crate::input::text::short_oid(&change.new)
            ));
        };
        if let (Some(now), Some(then)) = (change.lost, seen.lost)
            && now > then
        {
            return Some(format!(
                "`{}` would now lose {now} commit(s); the person was shown {then}",
                change.name
            ));
        }
        if change.lost.is_some_and(|n| n > 0) && seen.lost.is_none() {
            return Some(format!(
                "`{}` loses commits the person was not shown",
                change.name
            ));
        }
    }
    None
}

fn dir(state: &Path) -> PathBuf {
    state.join("asked")
}

fn key_path(state: &Path) -> PathBuf {
    dir(state).join("key")
}

/// The MAC key: read, or (`create`) made once, 32 random bytes, mode 0600.
fn key(state: &Path, create: bool) -> Option<Vec<u8>> {
    use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
    let path = key_path(state);
    if let Ok(meta) = fs::metadata(&path) {
        // A key others could read or that someone else owns proves nothing.
        if meta.mode() & 0o077 != 0 || meta.uid() != current_uid(state)? {
            return None;
        }
        return fs::read(&path).ok().filter(|k| k.len() == 32);
    }
    if !create {
        return None;
    }
    let mut bytes = [0u8; 32];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .ok()?;
    fs::create_dir_all(dir(state)).ok()?;
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .ok();
    match &mut file {
        Some(f) => {
            use std::io::Write as _;
            f.write_all(&bytes).ok()?;
            Some(bytes.to_vec())
        }
        // Another run made it first.
        None => key(state, false),
    }
}

/// The user this process runs as: the owner of the state dir, which vouch
/// made (no `libc` call: the layout keeps system calls to `platform`).
fn current_uid(state: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt as _;
    fs::metadata(state).ok().map(|m| m.uid())
}

/// HMAC-SHA256 (RFC 2104).
fn mac(key: &[u8], text: &[u8]) -> String {
    const BLOCK: usize = 64;
    let mut k = [0u8; BLOCK];
    if key.len() > BLOCK {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| k.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(text)
        .finalize();
    let outer = Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize();
    crate::input::text::hex(&outer)
}

fn seal(key: &[u8], shown: &Shown) -> anyhow::Result<Vec<u8>> {
    let text = serde_json::to_string(shown)?;
    let sealed = Sealed {
        mac: mac(key, text.as_bytes()),
        shown: text,
    };
    Ok(serde_json::to_vec_pretty(&sealed)?)
}

fn open(key: &[u8], bytes: &[u8]) -> Option<Shown> {
    let sealed: Sealed = serde_json::from_slice(bytes).ok()?;
    let want = mac(key, sealed.shown.as_bytes());
    // Compared whole; the MAC is not a secret once written.
    if want != sealed.mac {
        return None;
    }
    serde_json::from_str(&sealed.shown).ok()
}

/// Writes what the agent door showed the person (the agent door only).
/// Returns the record's name.
pub fn write(state: &Path, shown: &Shown) -> anyhow::Result<String> {
    let key = key(state, true).ok_or_else(|| {
        anyhow::anyhow!(
            "cannot make or read the approval key `{}`",
            key_path(state).display()
        )
    })?;
    // Lapsed records nobody used are let go (only this door writes here).
    if let Ok(entries) = fs::read_dir(dir(state)) {
        let old = std::time::Duration::from_secs(2 * ASKED_TTL.as_secs().unsigned_abs());
        for entry in entries.flatten() {
            let path = entry.path();
            let lapsed = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > old));
            if lapsed && path.extension().is_some_and(|e| e == "json") {
                fs::remove_file(&path).ok();
            }
        }
    }
    let mut nonce = [0u8; 12];
    fs::File::open("/dev/urandom")?.read_exact(&mut nonce)?;
    let name = crate::input::text::hex(&nonce);
    let path = dir(state).join(format!("{name}.json"));
    crate::platform::files::write_atomic(&path, &seal(&key, shown)?, 0o600)?;
    Ok(name)
}

/// The git door's side: an approval given at an agent's prompt that covers
/// `op` exactly, run by the git process `git_pid` with `argv`, in `repo`,
/// under an agent process still alive, at `now`. It is marked used by that
/// git process (another git process, a second run of the same line, finds
/// it used); a lapsed one is removed.
pub fn take(
    state: &Path,
    repo: &Path,
    op: &Operation,
    git_pid: u32,
    argv: &[String],
    now: Timestamp,
) -> Option<Honoured> {
    let key = key(state, false)?;
    let repo = repo.display().to_string();
    let entries = fs::read_dir(dir(state)).ok()?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        // Claimed by renaming: one process at a time reads and marks it.
        let claim = path.with_extension(format!("claim-{}", std::process::id()));
        if fs::rename(&path, &claim).is_err() {
            continue;
        }
        let mut keep = true;
        let found = fs::read(&claim)
            .ok()
            .and_then(|bytes| open(&key, &bytes))
            .and_then(|mut shown| {
                let from = shown.asked_at.parse::<Timestamp>().ok();
                let until = shown.expires_at.parse::<Timestamp>().ok();
                let lapsed = match (from, until) {
                    (Some(from), Some(until)) => {
                        now < from || now >= until || now >= from + ASKED_TTL
                    }
                    _ => true,
                };
                if lapsed {
                    keep = false;
                    return None;
                }
                if shown.repo != repo
                    || shown.used_by.is_some_and(|pid| pid != git_pid)
                    || !crate::measure::parent::runs_under(shown.agent_pid, &shown.agent_exe)
                    || not_covered(&shown, op, argv).is_some()
                {
                    return None;
                }
                shown.used_by = Some(git_pid);
                let sealed = seal(&key, &shown).ok()?;
                crate::platform::files::write_atomic(&claim, &sealed, 0o600).ok()?;
                Some(Honoured {
                    by: shown.by,
                    agent: shown.agent,
                    session: shown.session,
                    command: shown.command,
                    asked_at: shown.asked_at,
                })
            });
        if keep {
            fs::rename(&claim, &path).ok();
        } else {
            fs::remove_file(&claim).ok();
        }
        if found.is_some() {
            return found;
        }
    }
    None
}

/// When an approval written at `now` lapses.
pub fn expires(now: Timestamp) -> Timestamp {
    now + ASKED_TTL
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::facts::{LocalChange, LocalFacts, LocalRefFacts, Lost};
    use crate::classify::vocab::Assessment;

    const OLD: &str = "1111111111111111111111111111111111111111";
    const NEW: &str = "2222222222222222222222222222222222222222";

    fn rewind(lost: usize) -> Operation {
        let mut f = LocalRefFacts::new(
            "refs/heads/main",
            OLD.into(),
            NEW.into(),
            LocalChange::Rewind,
            true,
        );
        f.lost = Some(Lost {
            count: lost,
            ..Lost::none()
        });
        Operation::LocalRefs {
            facts: LocalFacts {
                refs: vec![f],
                command: None,
                branch: None,
                rebase: false,
            },
            assessment: Assessment::default(),
        }
    }

    fn shown(lost: Option<usize>) -> Shown {
        Shown {
            agent: "claude".into(),
            session: Some("s".into()),
            repo: "/r".into(),
            command: "git reset --hard HEAD~2".into(),
            git: vec![vec!["reset".into(), "--hard".into(), "HEAD~2".into()]],
            refs: vec![ShownRef {
                name: "refs/heads/main".into(),
                old: OLD.into(),
                new: NEW.into(),
                lost,
            }],
            files: 1,
            agent_pid: 4242,
            agent_exe: "/usr/bin/claude".into(),
            asked_at: "2026-11-28T12:00:00Z".into(),
            expires_at: "2026-11-28T12:10:00Z".into(),
            used_by: None,
            by: "person".into(),
        }
    }

    fn argv(line: &str) -> Vec<String> {
        shell_words::split(line).unwrap()
    }

    /// Covered: the same git command (global options aside) and refs, no
    /// more commits lost; anything else names what was not shown.
    #[test]
    fn only_what_was_shown_is_covered() {
        let s = shown(Some(2));
        assert_eq!(
            not_covered(&s, &rewind(2), &argv("git reset --hard HEAD~2")),
            None
        );
        assert_eq!(
            not_covered(&s, &rewind(1), &argv("git -C /r reset --hard HEAD~2")),
            None
        );
        for (op, line, why) in [
            (rewind(2), "git reset --hard HEAD~3", "not the command"),
            (
                rewind(3),
                "git reset --hard HEAD~2",
                "the person was shown 2",
            ),
            (rewind(2), "git branch -f main HEAD~2", "not the command"),
        ] {
            let said = not_covered(&s, &op, &argv(line)).expect(line);
            assert!(said.contains(why), "{line}: {said}");
        }
        let mut other = shown(Some(2));
        other.refs[0].old = NEW.into();
        assert!(
            not_covered(&other, &rewind(2), &argv("git reset --hard HEAD~2"))
                .is_some_and(|w| w.contains("was not shown"))
        );
        // Commits lost where none were counted for the person.
        assert!(not_covered(&shown(None), &rewind(1), &argv("git reset --hard HEAD~2")).is_some());
    }

    /// A record is read only under its own key, as written; a lapsed one
    /// is removed unread.
    #[test]
    fn a_record_is_sealed_and_lapses() {
        let state = tempfile::tempdir().unwrap();
        let s = shown(Some(2));
        let name = write(state.path(), &s).unwrap();
        let path = dir(state.path()).join(format!("{name}.json"));
        let key = key(state.path(), false).expect("the key was made");
        assert_eq!(open(&key, &fs::read(&path).unwrap()), Some(s.clone()));
        assert_eq!(open(&[7u8; 32], &fs::read(&path).unwrap()), None);
        let mut edited: serde_json::Value =
            serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        edited["shown"] = serde_json::Value::String(
            edited["shown"]
                .as_str()
                .unwrap()
                .replace("HEAD~2", "HEAD~9"),
        );
        assert_eq!(open(&key, edited.to_string().as_bytes()), None);
        let late: Timestamp = "2026-11-28T12:11:00Z".parse().unwrap();
        let argv = argv("git reset --hard HEAD~2");
        assert_eq!(
            take(state.path(), Path::new("/r"), &rewind(2), 1, &argv, late),
            None
        );
        assert!(!path.exists(), "a lapsed record is removed");
    }

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        assert_eq!(
            mac(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
