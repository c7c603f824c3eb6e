//! `git vouch hook reference-transaction`: local rewinds and deletions, judged
//! (SPEC 2.2), and the rescue refs written before an allowed one.
//!
//! git runs this hook for every ref transaction, several times per command
//! and once per ref on a fetch, so everything that is not a `prepared`
//! transaction touching a branch, a tag or the stash returns at once,
//! before the repository is opened. The traps of
//! `research/git-semantics.md` section 2 are handled here: unknown states
//! pass, all-zero old values are read from disk, `pack-refs` and renames
//! are recognised by the git command that runs the hook, and a rescue ref
//! is written with libgit2, which runs no hooks.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use sha2::Digest;

use super::{Door, HookCall, Judge, Judged, Outcome};
use crate::classify::facts::{LocalChange, LocalFacts, LocalRefFacts};
use crate::classify::operation::Operation;
use crate::classify::{Assessment, Tier, classify_local};
use crate::doors::args::RefTxArgs;
use crate::doors::context::Ctx;
use crate::input::git_command::{GitCommand, RefUpdate, TxState, guarded_updates, left_to_judge};
use crate::input::text::{hex, one_line, short_oid};
use crate::measure::git::{Kept, Moment, Repo};
use crate::platform::env::vars;
use crate::{doors::exit::ExitStatus, interact::ui, measure::parent};

/// The hook's name.
pub const HOOK: &str = "reference-transaction";

/// What the reference-transaction hook (linked, or started by its gate,
/// which already passed most of what this passes) decides before its
/// command line is parsed.
pub enum Quick {
    /// Nothing to judge: exit 0 at once.
    Pass,
    /// Guarded lines (the input, read): judge them, and put back a hook a
    /// manager's reinstall displaced; with the configs read so far, which
    /// the whole door does not read again.
    Judge(Vec<u8>, crate::doors::context::Configs),
    /// Not this hook, or a chained hook must run: parse the command line.
    Parse,
}

/// The fast path of the hook linked as `reference-transaction`: every state
/// but `prepared`, and every transaction that touches no branch, tag or
/// stash (or only moves a branch forward as part of `git commit`, `merge`,
/// ...), passes without opening the repository.
pub fn quick(args: &[std::ffi::OsString]) -> Quick {
    let Some((HOOK, dir, rest)) = crate::install::hook_call(args) else {
        return Quick::Parse;
    };
    if dir
        .join(format!("{HOOK}{}", crate::install::LOCAL_SUFFIX))
        .is_file()
    {
        return Quick::Parse;
    }
    if rest.first().is_none_or(|s| s != "prepared") {
        return Quick::Pass;
    }
    let mut input = Vec::new();
    if std::io::stdin().read_to_end(&mut input).is_err() {
        // Never judged on part of its input: the whole door reads it, and
        // fails as a door fails.
        return Quick::Parse;
    }
    // A hook a manager's reinstall displaced is put back by the full path.
    if judgeable(&input).is_none() && crate::install::repair::displaced(dir).is_empty() {
        return Quick::Pass;
    }
    Quick::Judge(input, crate::doors::context::Configs::default())
}

/// The lines of a transaction worth judging, and the git command that runs
/// it (from the parent process).
struct Judgeable {
    updates: Vec<RefUpdate>,
    argv: Option<Vec<String>>,
    command: Option<GitCommand>,
}

/// The guarded lines that are not routine for the git command running the
/// transaction; `None` when nothing is left to judge.
fn judgeable(input: &[u8]) -> Option<Judgeable> {
    let mut updates = guarded_updates(input);
    if updates.is_empty() {
        return None;
    }
    let argv = parent::git_ancestor_argv();
    let command = argv.as_deref().and_then(GitCommand::parse);
    if let Some(c) = &command {
        updates = left_to_judge(updates, c);
    }
    (!updates.is_empty()).then_some(Judgeable {
        updates,
        argv,
        command,
    })
}

/// The reference-transaction hook: the ref updates of one git command.
struct RefTx<'a> {
    args: &'a RefTxArgs,
    /// Where the rescue refs are written, and whether through the git
    /// command line (a repository libgit2 cannot read).
    rescue_in: Option<(PathBuf, bool)>,
    /// An allowed transaction is not judged again when git runs the hook
    /// again for it.
    memo: Option<Memo>,
    /// The git command that runs the transaction, and the work tree: what
    /// git changed before a refused ref update is read from them.
    command: Option<GitCommand>,
    root: Option<PathBuf>,
}

/// Runs the reference-transaction hook.
pub fn reference_transaction(ctx: &Ctx, args: &RefTxArgs) -> Result<ExitStatus> {
    super::drive(
        ctx,
        &mut RefTx {
            args,
            rescue_in: None,
            memo: None,
            command: None,
            root: None,
        },
    )
}

impl Door for RefTx<'_> {
    /// Only `prepared` is judged: the transaction can still be refused
    /// there. A chained hook runs in every state; its refusal counts only
    /// in `prepared`, as git's own does.
    fn call(&self) -> HookCall {
        HookCall {
            args: vec![self.args.state.clone()],
            judges: TxState::of(&self.args.state) == TxState::Prepared,
            ..HookCall::new(HOOK, "ref update", self.args.hook_dir.clone())
        }
    }

    fn judge(&mut self, ctx: &Ctx, input: &[u8]) -> Result<Judge> {
        // vouch's own ref updates (a rescue ref, an undo) under a run of vouch.
        if nested(ctx) {
            return Ok(Judge::Pass);
        }
        if let Some(dir) = &self.args.hook_dir
            && !guarded_updates(input).is_empty()
        {
            crate::install::repair::put_back(dir, ctx.env.var_os("PATH").as_deref(), || {
                ctx.config(Some(&ctx.cwd)).strict
            });
        }
        let Some(Judgeable {
            updates,
            argv,
            command,
        }) = judgeable(input)
        else {
            return Ok(Judge::Pass);
        };
        let amending = command
            .as_ref()
            .is_some_and(|c| c.sub == "commit" && c.has_flag(&["--amend"]));
        let moment = Moment::Hook { amending };
        let opened = Repo::open_for_history(&ctx.cwd);
        // Known by the old values on disk: the packed refs' half of a
        // deletion carries zeros where the other half names them.
        let early_memo = opened
            .as_ref()
            .ok()
            .map(|repo| Memo::new(&repo.git_dir(), repo.resolved_lines(&updates).as_bytes()));
        if early_memo.as_ref().is_some_and(Memo::is_allowed) {
            return Ok(Judge::Pass);
        }
        let (mut facts, git_dir, root, through_git) = match opened {
            Ok(repo) => (
                repo.local_facts(&updates, moment),
                repo.git_dir(),
                repo.root(),
                None,
            ),
            // reftable, SHA-256, grafts: measured with the git command line.
            Err(e) => match crate::measure::git::cli_local_facts(&ctx.cwd, &updates, moment) {
                Some(m) => (
                    m.facts,
                    m.git_dir,
                    m.root,
                    Some(format!(
                        "git2 cannot measure this repository ({e:#}); measured with the git command line instead"
                    )),
                ),
                None => (
                    unmeasured(&updates, &format!("{e:#}")),
                    ctx.cwd.clone(),
                    ctx.cwd.clone(),
                    Some(format!(
                        "neither git2 nor git can read this repository ({e:#}): nothing could be measured, so every change is treated as at least high"
                    )),
                ),
            },
        };
        let memo = early_memo.unwrap_or_else(|| Memo::new(&git_dir, input));
        // The same lines again in the same git process: the packed-refs half
        // of a deletion, already judged.
        if memo.is_allowed() || facts.refs.is_empty() {
            return Ok(Judge::Pass);
        }
        facts.command = argv.map(|argv| redacted_command(&argv));
        for f in &facts.refs {
            if f.missing_tip {
                ui::info(&format!(
                    "branch `{}` points at {}, an object missing from this repository: nothing of it is left to lose or to rescue",
                    f.short_name(),
                    short_oid(&f.old_oid)
                ));
            }
        }
        // A config file that cannot be used is left out, as at every door (SPEC 3.2).
        let config = ctx.config(Some(&root));
        let assessment = classify_local(&facts, &config.policy);
        self.rescue_in = Some((git_dir, through_git.is_some()));
        self.memo = Some(memo);
        self.command = command;
        self.root = Some(root.clone());
        let op = Operation::LocalRefs { facts, assessment };
        Ok(Judge::Operation(Box::new(Judged {
            warnings: through_git.into_iter().collect(),
            ..Judged::new(op, config, root)
        })))
    }

    fn on_allow(&self, op: &Operation) -> Result<Vec<String>> {
        match &self.rescue_in {
            Some((git_dir, through_git)) => rescue(git_dir, op, *through_git),
            None => Ok(Vec::new()),
        }
    }

    fn answer(
        &mut self,
        ctx: &Ctx,
        op: Option<&Operation>,
        outcome: Outcome,
        _snapshotted: super::Snapshotted,
    ) -> ExitStatus {
        let status = outcome.git_status();
        if let Outcome::Decided(_) = outcome
            && status == ExitStatus::Allowed
            && let Some(memo) = &self.memo
        {
            memo.allow();
        }
        if status != ExitStatus::Allowed
            && let (Some(Operation::LocalRefs { facts, .. }), Some((git_dir, _))) =
                (op, &self.rescue_in)
        {
            put_back(
                ctx,
                git_dir,
                self.root.as_deref(),
                self.command.as_ref(),
                facts,
            );
        }
        status
    }
}

/// A refused transaction leaves the repository as it was where vouch can
/// make it so (issue 35 item 2): git runs this hook after it changed
/// other things (`docs/doors.md`, "A refusal after git began"). `git
/// stash drop` took the entry out of the stash's list first: it is
/// written back. `git reset --hard` (and the like) rewrote the index and
/// the work tree first: they are put back from the snapshot the agent
/// door took before an agent's command, or else moved back to the commit
/// the branch still points at, as `git checkout` would (nothing a person
/// changed since is overwritten). A rebase replayed its commits first:
/// `git rebase --abort` puts everything back, and is said.
fn put_back(
    ctx: &Ctx,
    git_dir: &Path,
    root: Option<&Path>,
    command: Option<&GitCommand>,
    facts: &LocalFacts,
) {
    for f in &facts.refs {
        if f.change == LocalChange::DropStash {
            match crate::measure::git::put_back_stash_entry(git_dir, &f.old_oid) {
                Ok(true) => ui::info(&format!(
                    "put back the stash entry {} that git had already taken out of the list: `git stash list` shows it again",
                    short_oid(&f.old_oid)
                )),
                Ok(false) => {}
                Err(e) => ui::warn(&format!(
                    "git had already taken the stash entry {} out of the list, and vouch could not put it back ({e:#}): `{}` does",
                    short_oid(&f.old_oid),
                    git_restore("refs/stash", &f.old_oid)
                )),
            }
        }
    }
    let (Some(root), Some(command)) = (root, command) else {
        return;
    };
    let rebasing = ["rebase-merge", "rebase-apply"]
        .iter()
        .any(|d| git_dir.join(d).is_dir());
    let changed = changed_before(command, rebasing);
    // The branch whose new value git had already checked out: the one
    // checked out, or the one `checkout -B` switches to.
    let moved = facts.refs.iter().find(|f| {
        matches!(f.change, LocalChange::Rewind | LocalChange::Rewrite)
            && (f.checked_out
                || changed == Changed::Rebase
                || matches!(command.sub.as_str(), "checkout" | "switch"))
    });
    let Some(moved) = moved else {
        return;
    };
    match changed {
        Changed::Nothing => {}
        Changed::Rebase => ui::info(&format!(
            "git had already replayed the rebase's commits (HEAD is at {}, the rebase still in progress), and `{}` stays at {}: `git rebase --abort` puts the branch, HEAD and the files back as they were before it",
            short_oid(&moved.new_oid),
            moved.short_name(),
            short_oid(&moved.old_oid)
        )),
        Changed::Index | Changed::Tree => {
            let cmd = redacted_command(&command_words(command));
            if changed == Changed::Tree
                && crate::platform::env::agent_driving(ctx.env.as_ref()).is_some()
            {
                match from_snapshot(ctx, root, &moved.new_oid, &cmd) {
                    Ok(Some(said)) => {
                        ui::info(&said);
                        return;
                    }
                    Ok(None) => {}
                    Err(e) => ui::warn(&format!(
                        "vouch's snapshot from before `{cmd}` could not be put back ({e:#})"
                    )),
                }
            }
            ui::info(&move_back(root, changed, moved));
        }
    }
}

/// What a git command changed before the ref update the
/// reference-transaction hook can refuse (git's `builtin/reset.c`,
/// `builtin/checkout.c`, `builtin/am.c`, `sequencer.c`; each observed in
/// `tests/it/refused_half_way.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Changed {
    /// Nothing vouch puts back (`reset --soft`, `branch -f`; `ORIG_HEAD`,
    /// which `reset` writes first, is git's own note of the old tip).
    Nothing,
    /// The index (`reset`, `reset --mixed`).
    Index,
    /// The index and the work tree: `reset --hard`, `--keep`, `--merge`
    /// (which `cherry-pick --abort` and `revert --abort` run), `checkout
    /// -B`, `switch -C`, `am --abort`.
    Tree,
    /// A rebase's (or `pull --rebase`'s) commits, replayed onto a detached
    /// HEAD; the rebase is still in progress.
    Rebase,
}

fn changed_before(command: &GitCommand, rebasing: bool) -> Changed {
    match command.sub.as_str() {
        "reset" if command.has_flag(&["--soft"]) => Changed::Nothing,
        "reset" if command.has_flag(&["--hard", "--keep", "--merge"]) => Changed::Tree,
        "reset" => Changed::Index,
        "checkout" | "switch" | "am" => Changed::Tree,
        "rebase" | "pull" if rebasing => Changed::Rebase,
        _ => Changed::Nothing,
    }
}

/// The command's words, for people.
fn command_words(command: &GitCommand) -> Vec<String> {
    std::iter::once("git".to_owned())
        .chain(std::iter::once(command.sub.clone()))
        .chain(command.args.iter().cloned())
        .collect()
}

/// Puts back the work tree and the index from the snapshot the agent
/// door took before the agent's command: only a fresh one (taken in the
/// last 30 minutes, for a command no post-tool hook has looked at yet)
/// taken at the commit HEAD is at now (the refused update left it there),
/// so that a snapshot from before other commands is not put back. The
/// state git left is snapshotted first: nothing is lost, and `git vouch
/// undo` brings it back. What it says; `None` when there is no such
/// snapshot.
///
/// This runs in the hook, while git waits at `prepared`: git holds the
/// locks of the refs it updates, and none on the index (`reset`,
/// `checkout`, `switch` and `am` commit their index before the ref
/// update; `tests/it/refused_half_way.rs`), and it dies as soon as the
/// hook refuses, touching nothing more. A write that finds the index
/// locked fails, and the failure is said.
fn from_snapshot(ctx: &Ctx, root: &Path, new_oid: &str, cmd: &str) -> Result<Option<String>> {
    let state = ctx.dirs()?.state;
    let Some(store) = crate::undo::Store::find(&state, &ctx.cwd)? else {
        return Ok(None);
    };
    let Some(target) = crate::undo::newest_match(&store)? else {
        return Ok(None);
    };
    let fresh = target
        .time
        .parse::<jiff::Timestamp>()
        .is_ok_and(|t| ctx.now().duration_since(t) < jiff::SignedDuration::from_mins(30));
    if !fresh || crate::undo::checked(&store, &target) {
        return Ok(None);
    }
    // Only for the commit HEAD is at now (the refused update left it
    // there): a snapshot from before other commits is not this command's.
    let recorded = store
        .own()
        .args(["cat-file", "blob", &format!("{}:refs", target.id)])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| head_of(&String::from_utf8_lossy(&o.stdout)));
    if recorded.is_none() || recorded != head_commit(root) {
        return Ok(None);
    }
    // The state git left, first (listed apart, as an undo's is).
    let Some(now) = crate::undo::take(
        &store,
        "undo",
        &format!("vouch, putting back what `{cmd}` changed before its refused ref update"),
    )?
    else {
        // The state is the snapshot's: git changed nothing it holds.
        return Ok(Some(format!(
            "the work tree and the index are as they were before `{}`",
            one_line(&target.command, 120)
        )));
    };
    // The files git may have written or removed: those of the commit it
    // checked out, of HEAD, and of the index before (the snapshot's).
    let mut touched = std::collections::BTreeSet::new();
    let list = |mut c: std::process::Command| -> Result<Vec<u8>> {
        let out = c.output()?;
        if !out.status.success() {
            bail!(
                "cannot list the files git wrote: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(out.stdout)
    };
    for tree in [new_oid, "HEAD"] {
        let mut c = crate::measure::git::git_in(root);
        c.args(["ls-tree", "-r", "-z", "--name-only", "--full-tree", tree]);
        for path in list(c)?.split(|b| *b == 0).filter(|p| !p.is_empty()) {
            touched.insert(path.to_vec());
        }
    }
    let mut c = store.own();
    c.args(["cat-file", "blob", &format!("{}:index.entries", target.id)]);
    // `ls-files -s -z` entries: `<mode> <id> <stage>\t<path>`.
    for entry in list(c)?.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        if let Some(tab) = entry.iter().position(|b| *b == b'\t') {
            touched.insert(entry[tab + 1..].to_vec());
        }
    }
    crate::undo::restore_tree(&store, &target, &now.id, &touched)?;
    Ok(Some(format!(
        "put back the work tree and the index as they were before `{}` (vouch's snapshot {}); what git had made of them is snapshot {}: `git vouch undo {}` brings it back",
        one_line(&target.command, 120),
        target.short(),
        now.short(),
        now.short()
    )))
}

/// The commit `HEAD` names in a snapshot's `refs` listing (`ref: <name>
/// HEAD` and `<id> <name>` lines, or `<id> HEAD`).
fn head_of(listing: &str) -> Option<String> {
    let head = listing.lines().find_map(|l| l.strip_suffix(" HEAD"))?;
    match head.strip_prefix("ref: ") {
        Some(name) => listing.lines().find_map(|l| {
            l.split_once(' ')
                .filter(|(_, n)| *n == name)
                .map(|(id, _)| id.to_owned())
        }),
        None => Some(head.to_owned()),
    }
}

/// The commit `HEAD` is at in the work tree `root` (its old value while
/// the hook holds the update at `prepared`).
fn head_commit(root: &Path) -> Option<String> {
    crate::measure::git::git_in(root)
        .args(["rev-parse", "--verify", "-q", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
}

/// Moves the index (and, for [`Changed::Tree`], the work tree) from the
/// commit git had already checked out back to the one `HEAD` still
/// names, the way `git checkout` moves between two commits (`git
/// read-tree -m`): a file that differs from both is left alone and the
/// move refused, so nothing is overwritten that git did not write. What
/// it says, in one sentence.
fn move_back(root: &Path, changed: Changed, moved: &LocalRefFacts) -> String {
    let tree = changed == Changed::Tree;
    let (what, them) = if tree {
        ("the index and the work tree", "them")
    } else {
        ("the index", "it")
    };
    // What a person runs where vouch could not: for the index alone `git
    // reset` (the work tree stays); for both, `git reset --hard`, which
    // also throws away the edits git kept (a stash keeps them).
    let by_hand = if tree {
        "`git stash` (keeps the edits git left) then `git reset --hard`"
    } else {
        "`git reset`"
    };
    let Some(head) = head_commit(root) else {
        return format!(
            "git had already put {what} at {}, and HEAD cannot be read now: {by_hand} puts {them} back at the branch's commit",
            short_oid(&moved.new_oid)
        );
    };
    let mut c = crate::measure::git::git_in(root);
    c.arg("read-tree").arg("-m");
    if tree {
        c.arg("-u");
    }
    c.args([&moved.new_oid, &head]);
    match c.output() {
        Ok(o) if o.status.success() && tree => format!(
            "git had already put {what} at {}; vouch put {them} back at {} (HEAD), as they were unless they held uncommitted edits, which git overwrote before any hook ran",
            short_oid(&moved.new_oid),
            short_oid(&head)
        ),
        Ok(o) if o.status.success() => format!(
            "git had already put {what} at {}; vouch put {them} back at {} (HEAD), as it was unless it held staged changes, which git replaced before any hook ran",
            short_oid(&moved.new_oid),
            short_oid(&head)
        ),
        Ok(o) => format!(
            "git had already put {what} at {}, and vouch could not move {them} back ({}): {by_hand} puts {them} back at {} (HEAD)",
            short_oid(&moved.new_oid),
            one_line(String::from_utf8_lossy(&o.stderr).trim(), 200),
            short_oid(&head)
        ),
        Err(e) => format!(
            "git had already put {what} at {}, and vouch could not run git ({e}): {by_hand} puts {them} back at {} (HEAD)",
            short_oid(&moved.new_oid),
            short_oid(&head)
        ),
    }
}

/// True when a program vouch started (a verifier, the notify command) runs
/// the git command: `VOUCH_NESTED` must prove it ([`parent::is_nested`]; a
/// variable set by hand turns nothing off).
fn nested(ctx: &Ctx) -> bool {
    ctx.env.var(vars::VOUCH_NESTED).is_some_and(|marker| {
        ctx.dirs()
            .is_ok_and(|dirs| parent::is_nested(&marker, &dirs.state))
    })
}

/// The plain git command that puts `saved` (an object id or a rescue ref)
/// back where `original` was.
fn git_restore(original: &str, saved: &str) -> String {
    if original == "refs/stash" {
        format!("git stash store -m 'restored by vouch' {saved}")
    } else {
        format!("git update-ref {original} {saved}")
    }
}

/// Where rescue refs are written: with libgit2, which runs no hooks, or
/// with the git command line for a repository libgit2 cannot measure.
enum Rescuer<'a> {
    Lib(Repo),
    Git(&'a Path),
}

impl Rescuer<'_> {
    fn stash_oids(&self) -> Vec<String> {
        match self {
            Self::Lib(repo) => repo.stash_oids(),
            Self::Git(dir) => crate::measure::git::cli_stash_oids(dir),
        }
    }

    /// Writes every `(original, oid)` of one operation: with libgit2 in one
    /// transaction; with git one `update-ref` each, so that a ref git holds
    /// locked (reftable) fails alone. Both keep the commits of a large
    /// operation in one batch ref ([`crate::measure::git::BATCH_FROM`]). Where each
    /// was kept, or why it was not.
    fn write_all(&self, items: &[(&str, &str)], stamp: &str) -> Result<Vec<Result<Kept>>> {
        match self {
            Self::Lib(repo) => Ok(repo
                .write_rescues(items, stamp)?
                .into_iter()
                .map(Ok)
                .collect()),
            Self::Git(dir) => Ok(crate::measure::git::cli_write_rescues(dir, items, stamp)),
        }
    }
}

/// Facts for a repository nothing can read: each line, with what it would
/// lose unknown (at least high).
fn unmeasured(updates: &[RefUpdate], why: &str) -> LocalFacts {
    let refs = updates
        .iter()
        .filter_map(|u| {
            let change = LocalChange::of(&u.name, u.is_delete())?;
            let mut f = LocalRefFacts::new(&u.name, u.old.clone(), u.new.clone(), change, false);
            f.unknown = Some(why.to_owned());
            Some(f)
        })
        .collect();
    LocalFacts {
        refs,
        command: None,
        branch: None,
        rebase: false,
    }
}

/// The git command line for people and logs: one line, URLs' credentials
/// and tokens redacted.
fn redacted_command(argv: &[String]) -> String {
    crate::input::text::redact_secrets(&one_line(&shell_words::join(argv), 300))
}

/// Remembers an allowed transaction for the git process that runs it:
/// git runs the hook twice for one deletion of a packed ref (the packed
/// refs' transaction inside the other, its lines with zeros for the old
/// values), and the person is asked once, the loss measured once and one
/// rescue ref written. Keyed by the lines with the old values read from
/// disk ([`Repo::resolved_lines`]), so that both halves match.
struct Memo {
    path: PathBuf,
    key: String,
}

impl Memo {
    fn new(git_dir: &Path, input: &[u8]) -> Self {
        let mut hash = sha2::Sha256::new();
        let git = parent::git_ancestor_pid().unwrap_or_else(std::os::unix::process::parent_id);
        hash.update(git.to_le_bytes());
        hash.update(input);
        Self {
            path: git_dir.join("vouch-allowed-transaction"),
            key: hex(&hash.finalize()),
        }
    }

    fn is_allowed(&self) -> bool {
        std::fs::read_to_string(&self.path).is_ok_and(|k| k.trim() == self.key)
    }

    fn allow(&self) {
        std::fs::write(&self.path, &self.key).ok();
    }
}

/// The refs whose old value must be saved before the change goes on.
fn to_rescue<'f>(
    facts: &'f LocalFacts,
    assessment: &'f Assessment,
) -> impl Iterator<Item = &'f LocalRefFacts> {
    facts
        .refs
        .iter()
        .zip(&assessment.refs)
        .filter(|(f, risk)| {
            risk.tier > Tier::None
                && (f.lost_count() > 0
                    || f.unknown.is_some()
                    || matches!(
                        f.change,
                        LocalChange::MoveTag | LocalChange::DeleteTag | LocalChange::DropStash
                    ))
        })
        .map(|(f, _)| f)
}

/// Saves what an allowed local change would orphan as rescue refs, before
/// git goes on; what it says is shown and logged.
fn rescue(git_dir: &Path, op: &Operation, through_git: bool) -> Result<Vec<String>> {
    let Operation::LocalRefs { facts, assessment } = op else {
        return Ok(Vec::new());
    };
    let stamp = jiff::Timestamp::now()
        .strftime("%Y%m%dT%H%M%SZ")
        .to_string();
    let mut items: Vec<(&LocalRefFacts, String)> = Vec::new();
    let mut repo = None;
    for f in to_rescue(facts, assessment) {
        let repo = match &repo {
            Some(r) => r,
            None if through_git => repo.insert(Rescuer::Git(git_dir)),
            None => repo.insert(Rescuer::Lib(Repo::discover(git_dir)?)),
        };
        items.push((f, f.old_oid.clone()));
        // `stash clear` drops every entry, not only the newest.
        if f.change == LocalChange::DropStash {
            for oid in repo.stash_oids() {
                if oid != f.old_oid && !items.iter().any(|(g, o)| g.name == f.name && *o == oid) {
                    items.push((f, oid));
                }
            }
        }
    }
    let Some(repo) = repo else {
        return Ok(Vec::new());
    };
    // The operation's rescue refs together (one transaction with libgit2).
    let pairs: Vec<(&str, &str)> = items
        .iter()
        .map(|(f, oid)| (f.name.as_str(), oid.as_str()))
        .collect();
    let written = repo.write_all(&pairs, &stamp)?;
    let mut done = Vec::new();
    for ((f, oid), written) in items.iter().zip(written) {
        let kept = match written {
            Ok(kept) => kept,
            Err(e) => {
                // reftable locks every ref while git holds the
                // transaction: the commit stays in the object store.
                done.push(format!(
                    "could not save `{}` ({}) as a rescue ref ({e:#}); until `git gc` prunes it, `{}` brings it back",
                    f.short_name(),
                    short_oid(oid),
                    git_restore(&f.name, oid)
                ));
                continue;
            }
        };
        let name = &kept.name;
        let short = name
            .strip_prefix(crate::measure::git::RESCUE_PREFIX)
            .unwrap_or(name);
        let how = match (through_git, &kept.within) {
            // `git vouch rescue` reads the repository with libgit2.
            (true, None) => git_restore(&f.name, name),
            (true, Some(_)) => git_restore(&f.name, oid),
            (false, _) => format!("git vouch rescue restore {short}"),
        };
        let as_what = match &kept.within {
            None => format!("as `{name}`"),
            Some(batch) => format!("as `{short}` in `{batch}`"),
        };
        done.push(format!(
            "saved `{}` ({}) {as_what}; `{how}` brings it back",
            f.short_name(),
            short_oid(oid)
        ));
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(line: &str, rebasing: bool) -> Changed {
        let words = shell_words::split(line).expect("a command line");
        changed_before(&GitCommand::parse(&words).expect("git"), rebasing)
    }

    /// What git changed before the ref update, read from the command as
    /// git's sources order it.
    #[test]
    fn what_git_changed_before_the_ref_update() {
        for (line, want) in [
            ("git reset --hard HEAD~2", Changed::Tree),
            ("git reset --keep HEAD~2", Changed::Tree),
            ("git reset --merge 1234567", Changed::Tree),
            ("git reset HEAD~2", Changed::Index),
            ("git reset --mixed HEAD~2", Changed::Index),
            ("git reset --soft HEAD~2", Changed::Nothing),
            ("git checkout -B main HEAD~2", Changed::Tree),
            ("git switch -C main HEAD~2", Changed::Tree),
            ("git am --abort", Changed::Tree),
            ("git branch -f other HEAD~2", Changed::Nothing),
            ("git update-ref refs/heads/main HEAD~2", Changed::Nothing),
            ("git rebase --onto main topic~1", Changed::Nothing),
        ] {
            assert_eq!(changed(line, false), want, "{line}");
        }
        assert_eq!(changed("git rebase main", true), Changed::Rebase);
        assert_eq!(changed("git pull --rebase", true), Changed::Rebase);
    }

    #[test]
    fn head_of_a_snapshots_refs() {
        let listing = "ref: refs/heads/main HEAD\n1111 refs/heads/main\n2222 refs/heads/other\n3333 stash WIP on main\n";
        assert_eq!(head_of(listing).as_deref(), Some("1111"));
        assert_eq!(
            head_of("4444 HEAD\n1111 refs/heads/main\n").as_deref(),
            Some("4444")
        );
        assert_eq!(head_of("1111 refs/heads/main\n"), None);
        assert_eq!(head_of("ref: refs/heads/gone HEAD\n"), None);
    }
}
