//! PURE: checks that are not rules because they depend on how a command
//! reaches git, not on its words (agent door issue 13, item 4).

use super::effects::git_reads_only;
use super::parse::SimpleCommand;
use crate::classify::vocab::Tier;

/// The fixed findings for one command: tier and reason.
pub(crate) fn fixed(command: &SimpleCommand) -> Vec<(Tier, String)> {
    let mut out = Vec::new();
    if command.program() != "git" {
        return out;
    }
    let reads = git_reads_only(&command.argv);
    if let Some(dir) = vouch_store(command)
        && !reads
    {
        out.push((
            Tier::Critical,
            format!(
                "writes vouch's own store `{dir}` (its snapshots or state) with git: what only it holds could no longer be undone, which turns the guard down"
            ),
        ));
    }
    if let Some(dir) = other_repository(command)
        && !reads
    {
        out.push((
            Tier::High,
            format!(
                "writes the repository `{dir}` directly, past its hooks: judged as a push to it"
            ),
        ));
    }
    if command.args_from_stdin && command.stdin.is_none() && !reads && !harmless_with_more(command)
    {
        out.push((
            Tier::High,
            "its arguments come from stdin or a file at run time (`xargs`), so vouch cannot see them"
                .into(),
        ));
    }
    out
}

/// The directory of vouch's own state (its snapshot store,
/// `<state>/vouch/snapshots/`) a git command works in, through
/// `--git-dir`, `--work-tree`, `GIT_DIR`, `-C` or `cd`.
fn vouch_store(command: &SimpleCommand) -> Option<String> {
    let git = command.git.as_ref()?;
    let mut dirs: Vec<&String> = git.git_dir.iter().chain(&git.work_tree).collect();
    dirs.extend(&git.dirs);
    dirs.extend(&command.cd);
    dirs.extend(
        command
            .env
            .iter()
            .filter(|(n, _)| n == "GIT_DIR" || n == "GIT_WORK_TREE")
            .map(|(_, v)| v),
    );
    dirs.into_iter()
        .find(|d| {
            let d = d.trim_end_matches('/');
            d.contains("state/vouch") || d.contains("vouch/snapshots") || d.ends_with("/vouch")
        })
        .cloned()
}

/// The git directory or work tree a command names, when it is not the one
/// the command runs in (`--git-dir=../remote.git`, `GIT_DIR=...`).
fn other_repository(command: &SimpleCommand) -> Option<String> {
    let git = command.git.as_ref()?;
    let named = git.git_dir.as_ref().or(git.work_tree.as_ref())?;
    let here = matches!(
        named.trim_end_matches('/'),
        ".git" | "./.git" | "." | "" | "$PWD/.git" | "$(pwd)/.git"
    );
    (!here).then(|| named.clone())
}

/// Git commands that more arguments cannot turn destructive: `add`, a safe
/// `branch -d`.
fn harmless_with_more(command: &SimpleCommand) -> bool {
    let argv = &command.argv;
    match argv.get(1).map(String::as_str) {
        Some("add" | "commit" | "fetch" | "pull") => true,
        Some("branch") => {
            argv.iter().any(|a| a == "-d" || a == "--delete")
                && !argv
                    .iter()
                    .any(|a| a == "-D" || a == "-f" || a == "--force")
        }
        _ => false,
    }
}
