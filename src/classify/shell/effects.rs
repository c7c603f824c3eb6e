//! PURE: which simple commands may change the repository before a later
//! one runs (SPEC 2.4, "facts describe the repository before the command
//! runs").
//!
//! The adapter measures facts once, before the whole command line runs. A
//! segment that follows one that may change the repository (a git command
//! that is not read-only, an unknown program, a redirection into the work
//! tree) would run in a state nobody measured: its rule's tier stands.

use super::facts::Facts;
use super::parse::SimpleCommand;
use crate::input::git_command::GitCommand;

/// Git subcommands that never change refs, the index, the stash or the work
/// tree (with the arguments they are given, see [`git_reads_only`]).
/// `fetch` and `remote update` only move remote-tracking refs, which makes
/// the facts measured before them the more cautious ones (a tip not yet
/// fetched counts as unseen), so they count as reading.
const GIT_READERS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "ls-remote",
    "cat-file",
    "for-each-ref",
    "show-ref",
    "show-branch",
    "merge-base",
    "describe",
    "blame",
    "annotate",
    "grep",
    "shortlog",
    "help",
    "version",
    "var",
    "check-ignore",
    "check-attr",
    "count-objects",
    "diff-files",
    "diff-index",
    "diff-tree",
    "whatchanged",
    "name-rev",
    "cherry",
    "range-diff",
    "verify-commit",
    "verify-tag",
    "fsck",
];

/// True when a git command (argv starting with `git`) only reads.
pub(crate) fn git_reads_only(argv: &[String]) -> bool {
    let Some(git) = GitCommand::parse(argv) else {
        return true;
    };
    if git.sub.is_empty() {
        return true;
    }
    let sub = git.sub.as_str();
    let rest = git.args.as_slice();
    let positionals = || rest.iter().filter(|a| !a.starts_with('-')).count();
    match sub {
        "hash-object" => !rest.iter().any(|a| a == "-w"),
        // A fetch moves remote-tracking refs (see `fetches`); one whose
        // refspec names another destination (`git fetch . +HEAD~2:feature`)
        // moves a branch like `branch -f`.
        "fetch" => !rest
            .iter()
            .filter(|a| !a.starts_with('-'))
            .skip(1)
            .any(|spec| {
                spec.split_once(':')
                    .is_some_and(|(_, dst)| !dst.is_empty() && !dst.starts_with("refs/remotes/"))
            }),
        s if GIT_READERS.contains(&s) => true,
        "branch" | "tag" => {
            let listing = rest.iter().all(|a| {
                matches!(
                    a.as_str(),
                    "-a" | "-r"
                        | "-v"
                        | "-vv"
                        | "-l"
                        | "--list"
                        | "--all"
                        | "--remotes"
                        | "--show-current"
                        | "--merged"
                        | "--no-merged"
                        | "--contains"
                        | "--no-contains"
                        | "-n"
                ) || a.starts_with("--format")
                    || a.starts_with("--sort")
                    || a.starts_with("--points-at")
                    || a.starts_with("--merged=")
                    || a.starts_with("--contains=")
            });
            listing && (positionals() == 0 || rest.iter().any(|a| a == "-l" || a == "--list"))
        }
        "stash" => matches!(rest.first().map(String::as_str), Some("list" | "show")),
        "remote" => {
            rest.is_empty()
                || matches!(
                    rest.first().map(String::as_str),
                    Some("-v" | "--verbose" | "show" | "get-url" | "update")
                )
        }
        // Config changes what later git commands do, which the parser
        // follows (`git config alias.x ...`), not the repository's state.
        "config" => true,
        "worktree" => matches!(rest.first().map(String::as_str), Some("list")),
        "submodule" => matches!(rest.first().map(String::as_str), Some("status" | "summary")),
        "reflog" => matches!(
            rest.first().map(String::as_str),
            None | Some("show" | "exists")
        ),
        "symbolic-ref" => positionals() <= 1 && !rest.iter().any(|a| a == "-d"),
        "notes" => matches!(
            rest.first().map(String::as_str),
            None | Some("list" | "show")
        ),
        _ => false,
    }
}

/// Programs that only read (or only print), whatever their arguments,
/// unless they write through a redirection.
const READERS: &[&str] = &[
    "echo",
    "printf",
    "cat",
    "ls",
    "ll",
    "pwd",
    "cd",
    "pushd",
    "popd",
    "true",
    "false",
    "test",
    "[",
    "[[",
    ":",
    "sleep",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "head",
    "tail",
    "wc",
    "sort",
    "uniq",
    "cut",
    "tr",
    "which",
    "type",
    "whereis",
    "date",
    "diff",
    "cmp",
    "jq",
    "less",
    "more",
    "file",
    "stat",
    "du",
    "df",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "whoami",
    "id",
    "uname",
    "hostname",
    "tree",
    "xxd",
    "hexdump",
    "od",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "nproc",
    "seq",
    "column",
    "paste",
    "comm",
    "fold",
    "nl",
    "tac",
    "rev",
    "base64",
    "ps",
    "uptime",
    "free",
    "man",
    "printenv",
    "locale",
    "tput",
    "clear",
    "expr",
    "export",
    "set",
    "unset",
    "declare",
    "typeset",
    "local",
    "readonly",
    "shift",
    "read",
    "wait",
    "jobs",
    "exit",
    "return",
    "break",
    "continue",
    "history",
    "env",
    "command",
    "alias",
    "shopt",
];

/// True when `command` may change the repository (refs, index, stash, work
/// tree) for the commands after it.
pub(crate) fn may_change(command: &SimpleCommand) -> bool {
    if command.outputs.iter().any(|o| !outside_work_tree(o)) {
        return true;
    }
    let program = command.program();
    if program.is_empty() {
        return false;
    }
    if program == "git" {
        return !git_reads_only(&command.argv);
    }
    if command.argv.len() == 1 && command.argv[0].contains('=') {
        return false;
    }
    match program {
        "sed" => command
            .argv
            .iter()
            .any(|a| a == "-i" || a.starts_with("--in-place") || a.starts_with("-i")),
        "find" => command.argv.iter().any(|a| {
            matches!(
                a.as_str(),
                "-delete" | "-exec" | "-execdir" | "-ok" | "-okdir" | "-fprint"
            )
        }),
        "awk" | "gawk" | "mawk" => command
            .argv
            .iter()
            .skip(1)
            .any(|a| a.contains("system") || a.contains('>')),
        p => !READERS.contains(&p),
    }
}

/// True for a redirection target that cannot be in the work tree
/// (`/dev/null`, a temporary file).
fn outside_work_tree(target: &str) -> bool {
    target.starts_with("/dev/")
        || target.starts_with("/tmp/")
        || target.starts_with("/proc/")
        || target.starts_with('&')
        || target == "-"
        || target.starts_with("$TMPDIR")
        || target.starts_with("${TMPDIR}")
}

/// True for a git command that moves remote-tracking refs (`fetch`,
/// `pull`, `remote update`).
pub(crate) fn fetches(command: &SimpleCommand) -> bool {
    command.program() == "git"
        && match command.argv.get(1).map(String::as_str) {
            Some("fetch" | "pull") => true,
            Some("remote") => command.argv.get(2).is_some_and(|a| a == "update"),
            _ => false,
        }
}

/// True when the facts name a ref a fetch may move (`origin/main`,
/// `refs/remotes/...`, `FETCH_HEAD`, `@{u}`).
pub(crate) fn names_remote_ref(facts: &Facts) -> bool {
    let remote = |name: &str| {
        name.contains('/')
            || name.contains("FETCH_HEAD")
            || name.contains("@{u")
            || name.contains("@{upstream")
    };
    match facts {
        Facts::Worktree { target, .. } => target.as_deref().is_some_and(remote),
        Facts::Branch { names } => names.iter().skip(1).any(|n| remote(n)),
        Facts::Push { refspecs, .. } => refspecs
            .iter()
            .any(|r| remote(r.split(':').next().unwrap_or_default())),
        Facts::Stash { .. } | Facts::Tag { .. } => false,
    }
}
