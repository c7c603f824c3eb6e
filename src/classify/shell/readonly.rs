//! Which agent commands change nothing (issue 28): they pay for no
//! snapshot. A short list on purpose: a command is read-only only when every
//! command the line runs is one of these, none writes to a file through a
//! redirection, and git's own are its reading subcommands without an
//! option that writes.

use super::{Parsed, SimpleCommand, parse};

/// Programs that only read (with the options that would write left out
/// below).
const READERS: &[&str] = &[
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "ag", "pwd", "echo",
    "printf", "which", "stat", "file", "tree", "du", "df", "less", "more", "bat", "jq", "true",
    "date", "whoami", "id", "uname", "diff", "cmp", "realpath", "basename", "dirname", "test",
];

/// git's reading subcommands.
const GIT_READERS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "grep",
    "ls-files",
    "ls-tree",
    "rev-parse",
    "describe",
    "shortlog",
    "cat-file",
    "whatchanged",
    "rev-list",
    "merge-base",
    "for-each-ref",
];

/// Long options with which a reader writes a file or runs a program.
const WRITING: &[&str] = &[
    "--output",
    "--ext-diff",
    "--exec",
    "--pre",
    "--open-files-in-pager",
];

/// Options with which a reader writes a file or runs a program: `-o`;
/// one of [`WRITING`], also abbreviated as git takes it (`--outp`,
/// `--open`); and a short `O` anywhere in a cluster (`git grep -O<program>`
/// runs the program on the files it finds, also written `-nOrm`).
fn writes(command: &SimpleCommand) -> bool {
    command.argv.iter().skip(1).any(|a| {
        let name = a.split('=').next().unwrap_or(a);
        a == "-o"
            || (name.len() > 2
                && name.starts_with("--")
                && WRITING
                    .iter()
                    .any(|w| w.starts_with(name) || name.starts_with(w)))
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('O'))
    })
}

fn is_reader(command: &SimpleCommand) -> bool {
    if command.outputs.iter().any(|o| o != "/dev/null") || writes(command) {
        return false;
    }
    match command.program() {
        "git" => {
            command.git.as_ref().is_some_and(|g| g.aliases.is_empty())
                && (command
                    .argv
                    .get(1)
                    .is_some_and(|sub| GIT_READERS.contains(&sub.as_str()))
                    // A dry run changes nothing (issue 35 item 3).
                    || crate::input::git_command::GitCommand::parse(&command.argv)
                        .is_some_and(|g| g.is_dry_run()))
        }
        program => READERS.contains(&program) && command.wrappers.is_empty(),
    }
}

/// What running a command line means for its snapshot (SPEC 3.4), read
/// from one parse.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Runs {
    /// It certainly changes nothing in a repository: no snapshot. Unknown
    /// programs, git aliases, anything the parser could not read and every
    /// write are "may change".
    pub read_only: bool,
    /// It may remove other work trees (`git worktree remove` or `prune`):
    /// each is snapshotted too. A line that cannot be read whole counts
    /// when it names them at all.
    pub removes_worktrees: bool,
    /// The git commands it runs, as [`git_commands`] reads them; `None`
    /// when the parse expanded a git alias (what an approval binds is the
    /// command as typed, which only a parse without aliases keeps).
    pub git: Option<Vec<Vec<String>>>,
}

/// What running `command` means for its snapshot ([`Runs`]).
pub fn runs(command: &str) -> Runs {
    runs_of(command, &parse(command, &|_| None))
}

/// What running `command` means for its snapshot, read from its parse:
/// the one the agent door classified it with.
pub fn runs_of(command: &str, parsed: &Parsed) -> Runs {
    let read = parsed.problems.is_empty();
    let git = parsed
        .commands
        .iter()
        .filter(|c| c.program() == "git")
        .filter_map(|c| crate::input::git_command::GitCommand::parse(&c.argv));
    let removes = |g: crate::input::git_command::GitCommand| {
        g.sub == "worktree" && g.args.iter().any(|a| a == "remove" || a == "prune")
    };
    let expanded = parsed
        .commands
        .iter()
        .any(|c| c.git.as_ref().is_some_and(|g| !g.aliases.is_empty()));
    Runs {
        git: (!expanded).then(|| git_commands_of(parsed)),
        read_only: read && !parsed.commands.is_empty() && parsed.commands.iter().all(is_reader),
        removes_worktrees: git.into_iter().any(removes)
            || (!read
                && command.contains("worktree")
                && (command.contains("remove") || command.contains("prune"))),
    }
}

/// True when the command line certainly changes nothing in a repository
/// ([`Runs::read_only`]).
pub fn read_only(command: &str) -> bool {
    runs(command).read_only
}

/// The git commands a command line runs, each as its subcommand and
/// arguments read as git reads them (global options left out): what an
/// approval at an agent's prompt binds (issue 35 item 1). Commands in a
/// line that cannot be read whole are left out: a git door never finds
/// them approved.
pub fn git_commands(command: &str) -> Vec<Vec<String>> {
    git_commands_of(&parse(command, &|_| None))
}

/// [`git_commands`], read from a parse.
fn git_commands_of(parsed: &Parsed) -> Vec<Vec<String>> {
    parsed
        .commands
        .iter()
        .filter(|c| c.program() == "git" && !c.in_definition)
        .filter_map(|c| crate::input::git_command::GitCommand::parse(&c.argv))
        .map(|g| std::iter::once(g.sub).chain(g.args).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{read_only, runs};

    #[test]
    fn removing_work_trees_is_read_from_the_parse() {
        for removes in [
            "git worktree remove --force ../side",
            "cd .. && git -C repo worktree prune",
            "git worktree remove ../side; echo $(",
        ] {
            assert!(runs(removes).removes_worktrees, "{removes}");
        }
        for keeps in [
            "git worktree list",
            "git worktree add ../side",
            "echo 'git worktree remove' > notes.md",
            "git rm remove-me && git commit -m worktree",
        ] {
            assert!(!runs(keeps).removes_worktrees, "{keeps}");
        }
    }

    #[test]
    fn reading_commands_pay_nothing_and_anything_else_is_snapshotted() {
        for reads in [
            "ls -la",
            "cat README.md",
            "git status",
            "git status --short && git log --oneline -5",
            "git diff HEAD~1 -- src/",
            "git show HEAD:src/main.rs | head -20",
            "grep -rn TODO src",
            "rg -n 'fn main' src",
            "cat a.txt 2>/dev/null",
            "git clean -nfd",
            "git push --dry-run --force origin HEAD~4:main",
            "git rm -rn .",
        ] {
            assert!(read_only(reads), "{reads}");
        }
        for changes in [
            "rm -rf src",
            "echo x > notes.txt",
            "cat a > b",
            "git commit -am wip",
            "git reset --hard",
            "git diff --output=patch.txt",
            "git log --output=log.txt",
            "git diff --outp=patch.txt",
            "git grep -Orm foo",
            "git grep -nOrm foo",
            "git grep --open=rm foo",
            "git grep --open-files-in-pager=rm foo",
            "python3 build.py",
            "make",
            "sed -i s/a/b/ f",
            "ls; rm f",
            "git st",
            "git clean -fd",
            "git push -o -n origin main",
            "find . -delete",
            "sort -o out.txt in.txt",
            "",
        ] {
            assert!(!read_only(changes), "{changes}");
        }
    }
}
