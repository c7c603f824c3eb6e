//! PURE, and the standard library only: git's own command lines (global
//! options, the subcommand, abbreviated long options) and the lines of a
//! reference transaction, with which of them the git command that runs
//! the transaction makes routine. vouch's reference-transaction door reads
//! them here, and so does the hook gate (`hooks/gate.rs`, which compiles
//! this file and its sibling [`super::git_options`] on their own): one
//! reading, in both programs.

/// True for an all-zero object id of either length.
pub fn is_zero_oid(oid: &str) -> bool {
    !oid.is_empty() && oid.bytes().all(|b| b == b'0')
}

/// A full object id (SHA-1 or SHA-256), in hex.
pub fn valid_oid(oid: &str) -> bool {
    (oid.len() == 40 || oid.len() == 64) && oid.bytes().all(|b| b.is_ascii_hexdigit())
}

/// True when a process's program name (`argv[0]`) is git.
pub fn is_git_program(argv0: &str) -> bool {
    let name = argv0.rsplit('/').next().unwrap_or(argv0);
    name == "git" || name == "git.exe"
}

/// True when an executable (a process's, not the name it gives itself) is
/// git: `git`, or one of git's dashed programs (`git-core/git-commit`),
/// never vouch itself.
pub fn is_git_executable(exe: &std::path::Path) -> bool {
    let Some(name) = exe.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    // procps prints a deleted executable's path with this suffix.
    let name = name.strip_suffix(" (deleted)").unwrap_or(name);
    name == "git"
        || name == "git.exe"
        || (name.starts_with("git-") && !name.starts_with("git-vouch"))
}

/// A git process's argv as git reads it: a dashed `argv[0]` (`git-commit`)
/// names the subcommand; any other `argv[0]` is only a name, and the
/// subcommand follows. `None` for an empty argv.
pub fn git_argv(mut argv: Vec<String>) -> Option<Vec<String>> {
    let first = argv.first()?;
    let name = first.rsplit('/').next().unwrap_or(first);
    let sub = name
        .strip_prefix("git-")
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    argv[0] = "git".into();
    if let Some(sub) = sub {
        argv.insert(1, sub);
    }
    Some(argv)
}

/// The long options git's parse-options knows for `sub` (and its
/// `action`, for a command with subcommands); `None` for a command vouch
/// has no table of (its options are read as written).
fn long_options(sub: &str, action: Option<&str>) -> Option<&'static [&'static str]> {
    let table = super::git_options::LONG_OPTIONS;
    let find = |a: Option<&str>| {
        table
            .iter()
            .find(|(c, x, _)| *c == sub && *x == a)
            .map(|(_, _, o)| *o)
    };
    action.and_then(|a| find(Some(a))).or_else(|| find(None))
}

/// The full name git's parse-options reads `--name` as (without the
/// dashes): the name itself when it is an option or the negation of one,
/// else the one option (or negation) it is a prefix of. `None` when it is
/// no abbreviation git accepts (unknown, or ambiguous: git refuses to run).
fn full_option(name: &str, options: &[&str]) -> Option<String> {
    let negated = name.strip_prefix("no-");
    let exact = options
        .iter()
        .any(|o| *o == name || negated == Some(*o) || o.strip_prefix("no-") == Some(name));
    if exact {
        return Some(name.to_owned());
    }
    let mut found: Vec<String> = Vec::new();
    for o in options {
        let mut add = |full: String| {
            if !found.contains(&full) {
                found.push(full);
            }
        };
        if o.starts_with(name) {
            add((*o).to_owned());
        }
        if let Some(positive) = negated
            && !positive.is_empty()
            && !o.starts_with("no-")
            && o.starts_with(positive)
        {
            add(format!("no-{o}"));
        }
        if let Some(bare) = o.strip_prefix("no-")
            && bare.starts_with(name)
        {
            add(bare.to_owned());
        }
    }
    (found.len() == 1).then(|| found.remove(0))
}

/// Expands the abbreviated long options of a git command's arguments
/// (`args`: the words after the subcommand `sub`) to their full names, as
/// git's parse-options reads them (`--mirr` is `--mirror`, `--no-verif` is
/// `--no-verify`, `--forc=x` keeps its value), up to `--` (SPEC 2.1). An
/// abbreviation git would refuse (ambiguous) is left as written.
pub fn expand_long_options(sub: &str, args: &mut [String]) {
    let action = args.iter().find(|a| !a.starts_with('-')).cloned();
    let Some(options) = long_options(sub, action.as_deref()) else {
        return;
    };
    for arg in args.iter_mut() {
        if arg == "--" {
            break;
        }
        let Some(long) = arg.strip_prefix("--") else {
            continue;
        };
        let (name, value) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (long, None),
        };
        if name.is_empty() {
            continue;
        }
        if let Some(full) = full_option(name, options)
            && full != name
        {
            *arg = match value {
                Some(v) => format!("--{full}={v}"),
                None => format!("--{full}"),
            };
        }
    }
}

/// The state a reference-transaction hook is called in
/// (`research/git-semantics.md` section 2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxState {
    /// git 2.54 and later, before any lock is taken; symbolic refs unresolved.
    Preparing,
    /// The refs are locked and hold their old values: the only state vouch judges.
    Prepared,
    /// Written.
    Committed,
    /// Rolled back.
    Aborted,
    /// A state this version of vouch does not know: always let it pass.
    Unknown,
}

impl TxState {
    /// The state named by the hook's first argument.
    pub fn of(arg: &str) -> Self {
        match arg {
            "preparing" => Self::Preparing,
            "prepared" => Self::Prepared,
            "committed" => Self::Committed,
            "aborted" => Self::Aborted,
            _ => Self::Unknown,
        }
    }
}

/// One line of reference-transaction stdin: `<old> <new> <ref>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefUpdate {
    /// The old value; all zeros when git does not say (`branch -f`, `branch -D`).
    pub old: String,
    /// The new value; all zeros for a deletion.
    pub new: String,
    /// The full ref name.
    pub name: String,
}

impl RefUpdate {
    /// The ref is deleted.
    pub fn is_delete(&self) -> bool {
        is_zero_oid(&self.new)
    }
}

/// The refs whose history vouch guards locally: branches, tags (a name
/// ending in `/` is a prefix), the stash and vouch's own rescue refs
/// (deleted with plain git, they are judged like a branch; only `git vouch
/// rescue prune`, at a terminal, removes them without a question). The
/// reference-transaction gate (`hooks/gate.rs`) starts vouch for a
/// `prepared` input with a line holding one of them (a test runs it on
/// each).
pub const GUARDED_REFS: [&str; 4] = ["refs/heads/", "refs/tags/", "refs/stash", "refs/vouch/"];

/// True for the refs whose history vouch guards locally ([`GUARDED_REFS`]).
/// Remote-tracking refs, pseudo-refs and notes are left alone.
fn is_guarded_ref(name: &str) -> bool {
    GUARDED_REFS.iter().any(|g| {
        if g.ends_with('/') {
            name.starts_with(g)
        } else {
            name == *g
        }
    })
}

/// The lines of a reference transaction that could destroy something: a
/// guarded ref whose value may change. Symbolic-ref updates (`ref:` values),
/// unchanged refs and lines that are not git's format are dropped: a hook
/// that cannot read a line must never break the command.
pub fn guarded_updates(input: &[u8]) -> Vec<RefUpdate> {
    input
        .split(|b| *b == b'\n')
        .filter_map(|raw| {
            // A ref name need not be UTF-8: such a line is judged under its
            // lossy name, never dropped.
            let text = String::from_utf8_lossy(raw);
            let mut parts = text.trim_end_matches('\r').splitn(3, ' ');
            let (old, mut new, name) = (parts.next()?, parts.next()?, parts.next()?);
            // A ref turned into a symbolic ref (`git symbolic-ref
            // refs/heads/x refs/heads/main`) loses the value it held, as a
            // deletion does (issue 26 item 5).
            let zero = "0".repeat(old.len());
            if new.starts_with("ref:") && valid_oid(old) {
                new = &zero;
            }
            let keep = is_guarded_ref(name)
                && valid_oid(old)
                && valid_oid(new)
                && (old != new || is_zero_oid(old));
            keep.then(|| RefUpdate {
                old: old.to_ascii_lowercase(),
                new: new.to_ascii_lowercase(),
                name: name.to_owned(),
            })
        })
        .collect()
}

/// Git's global options, the ones before the subcommand (`git -C dir -c
/// k=v --git-dir=x <sub>`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitGlobals {
    /// `-C <path>` directories, in order (each relative to the previous).
    pub dirs: Vec<String>,
    /// `-c key=value` settings (a bare `-c key` is `true`; `--config-env
    /// key=VAR` is `$VAR`).
    pub config: Vec<(String, String)>,
    /// `--git-dir`.
    pub git_dir: Option<String>,
    /// `--work-tree`.
    pub work_tree: Option<String>,
}

impl GitGlobals {
    /// Reads the global options at the start of `words` (the argv after
    /// `git`); returns them and how many words they took. An option missing
    /// its value (`git -c`) takes the rest: git refuses to run it. An option
    /// git does not know (git 2.47 to 2.55 `git.c`, which compares them
    /// whole) ends them, and is read as the subcommand: git refuses to run
    /// it, and the word after an option a later git adds is never read as
    /// the subcommand (`git --shallow-file commit reset --hard` runs
    /// `reset`).
    pub fn read(words: &[String]) -> (Self, usize) {
        /// The global options that take no value.
        const FLAGS: &[&str] = &[
            "-p",
            "--paginate",
            "-P",
            "--no-pager",
            "--no-lazy-fetch",
            "--no-replace-objects",
            "--bare",
            "--literal-pathspecs",
            "--no-literal-pathspecs",
            "--glob-pathspecs",
            "--noglob-pathspecs",
            "--icase-pathspecs",
            "--no-optional-locks",
            "--no-advice",
            "--exec-path",
            "--html-path",
            "--man-path",
            "--info-path",
        ];
        let mut globals = Self::default();
        let mut i = 0;
        while let Some(arg) = words.get(i) {
            if !arg.starts_with('-') || arg == "-" {
                break;
            }
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
                _ => (arg.as_str(), None),
            };
            let takes_value = matches!(
                name,
                "-C" | "-c"
                    | "--git-dir"
                    | "--work-tree"
                    | "--namespace"
                    | "--config-env"
                    | "--super-prefix"
                    | "--list-cmds"
                    | "--attr-source"
                    | "--shallow-file"
            );
            if !takes_value && !FLAGS.contains(&name) {
                break;
            }
            let value = if takes_value && inline.is_none() {
                i += 1;
                words.get(i).cloned()
            } else {
                inline
            };
            i += 1;
            let value = value.unwrap_or_default();
            match name {
                "-C" => globals.dirs.push(value),
                "-c" => globals.config.push(match value.split_once('=') {
                    Some((k, v)) => (k.to_owned(), v.to_owned()),
                    None => (value, "true".to_owned()),
                }),
                "--config-env" => {
                    let (k, v) = value.split_once('=').unwrap_or((&value, ""));
                    globals.config.push((k.to_owned(), format!("${v}")));
                }
                "--git-dir" => globals.git_dir = Some(value),
                "--work-tree" => globals.work_tree = Some(value),
                _ => {}
            }
        }
        (globals, i.min(words.len()))
    }

    /// The value of a `-c` setting, the key compared case-insensitively
    /// (the last one wins, as in git).
    pub fn setting(&self, key: &str) -> Option<&str> {
        self.config
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// The one model of a git command line: global options, the subcommand,
/// its options and operands (`git -C dir -c k=v branch -D x` is `branch`
/// with `-D x`). Read from the argv of the git process that runs a hook,
/// from a shell command the agent door judges, and used by the command
/// facts and the shell rules' read-only test.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitCommand {
    /// The options before the subcommand.
    pub globals: GitGlobals,
    /// The subcommand (`branch`, `reset`); empty when none was found.
    pub sub: String,
    /// Its arguments.
    pub args: Vec<String>,
}

impl GitCommand {
    /// Reads a `git` argv; `None` for another program.
    pub fn parse(argv: &[String]) -> Option<Self> {
        if !argv.first().is_some_and(|a| is_git_program(a)) {
            return None;
        }
        let words = &argv[1..];
        let (globals, used) = GitGlobals::read(words);
        let Some((sub, rest)) = words[used..].split_first() else {
            return Some(Self {
                globals,
                ..Self::default()
            });
        };
        let mut read = rest.to_vec();
        expand_long_options(sub, &mut read);
        Some(Self {
            globals,
            sub: sub.clone(),
            args: read,
        })
    }

    /// True when one of `flags` is among the options (bundled short options
    /// such as `-fd` count for `-f`).
    pub fn has_flag(&self, flags: &[&str]) -> bool {
        self.args.iter().take_while(|a| *a != "--").any(|a| {
            flags.iter().any(|f| {
                a == f
                    || a.split_once('=').is_some_and(|(name, _)| name == *f)
                    || (f.len() == 2
                        && !f.starts_with("--")
                        && a.starts_with('-')
                        && !a.starts_with("--")
                        && a.len() > 2
                        && a[1..].contains(&f[1..]))
            })
        })
    }

    /// True when git runs this command as a dry run (issue 35 item 3): it
    /// says what it would do and changes nothing. `-n` or `--dry-run` of
    /// `push`, `clean`, `rm`, `add` and `mv`, of `prune`, `remote prune`,
    /// `worktree prune` and `reflog expire|delete`, read as git's
    /// parse-options reads them: the last of `--dry-run` and
    /// `--no-dry-run` counts, `-n` may sit in a bundle (`-fn`) but not
    /// after a short option that takes the rest as its value (`-o`, `-e`),
    /// and a word that is an option's value (`--push-option -n`) or comes
    /// after `--` is no option. Anything else, or anything uncertain, is
    /// no dry run: the command is judged as a real one.
    pub fn is_dry_run(&self) -> bool {
        // The short options that take a value, and the long ones that take
        // the next word when no `=` is given (git 2.47-2.55 `builtin/*.c`).
        let (short_value, long_value): (&[char], &[&str]) = match (self.sub.as_str(), self.action())
        {
            ("push", _) => (
                &['o'],
                &[
                    "--repo",
                    "--receive-pack",
                    "--exec",
                    "--push-option",
                    "--recurse-submodules",
                ],
            ),
            ("clean", _) => (&['e'], &["--exclude"]),
            ("rm", _) => (&[], &["--pathspec-from-file"]),
            ("add", _) => (&[], &["--chmod", "--pathspec-from-file"]),
            ("mv" | "prune", _) | ("remote" | "worktree", Some("prune")) => (&[], &["--expire"]),
            ("reflog", Some("expire" | "delete")) => (&[], &["--expire", "--expire-unreachable"]),
            _ => return false,
        };
        let mut dry = false;
        let mut words = self.args.iter();
        while let Some(arg) = words.next() {
            if arg == "--" {
                break;
            }
            if let Some(long) = arg.strip_prefix("--") {
                match long {
                    "dry-run" => dry = true,
                    "no-dry-run" => dry = false,
                    _ if long_value.contains(&arg.as_str()) => {
                        words.next();
                    }
                    _ => {}
                }
            } else if let Some(letters) = arg.strip_prefix('-') {
                for (at, c) in letters.char_indices() {
                    if short_value.contains(&c) {
                        // The rest of the word is the value, or the next word is.
                        if at + c.len_utf8() == letters.len() {
                            words.next();
                        }
                        break;
                    }
                    if c == 'n' {
                        dry = true;
                    }
                }
            }
        }
        dry
    }

    /// The first word after the subcommand that is not an option
    /// (`pop` in `git stash pop`).
    pub fn action(&self) -> Option<&str> {
        self.args
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(String::as_str)
    }

    /// The operands: the words that are not options (everything after `--`).
    pub fn operands(&self) -> Vec<&str> {
        let mut dashdash = false;
        self.args
            .iter()
            .filter(|a| {
                let operand = dashdash || !a.starts_with('-') || *a == "-";
                dashdash |= *a == "--";
                operand && *a != "--"
            })
            .map(String::as_str)
            .collect()
    }

    /// `git clean`'s `-d` and its `-e`/`--exclude` patterns.
    pub fn clean_options(&self) -> (bool, Vec<String>) {
        let mut dirs = false;
        let mut excludes = Vec::new();
        let mut words = self.args.iter();
        while let Some(arg) = words.next() {
            if arg == "--" {
                break;
            }
            if let Some(value) = arg.strip_prefix("--exclude=") {
                excludes.push(value.to_owned());
            } else if arg == "--exclude" {
                excludes.extend(words.next().cloned());
            } else if let Some(letters) = arg.strip_prefix('-')
                && !letters.starts_with('-')
            {
                for (at, c) in letters.char_indices() {
                    if c == 'd' {
                        dirs = true;
                    }
                    if c == 'e' {
                        let rest = &letters[at + 1..];
                        if rest.is_empty() {
                            excludes.extend(words.next().cloned());
                        } else {
                            excludes.push(rest.to_owned());
                        }
                        break;
                    }
                }
            }
        }
        (dirs, excludes)
    }
}

/// The branch a rename overwrites: `git branch -M a b` (or `-m --force`)
/// reports only the deletion of `a`, yet moves an existing `b` to `a`'s
/// commit. The update returned has a zero old value (read it from disk; a
/// `b` that does not exist is a plain creation).
pub fn rename_target(command: &GitCommand, update: &RefUpdate) -> Option<RefUpdate> {
    let forced = command.has_flag(&["-M"])
        || (command.has_flag(&["-m", "--move"]) && command.has_flag(&["-f", "--force"]));
    if command.sub != "branch"
        || !forced
        || !update.is_delete()
        || is_zero_oid(&update.old)
        || !update.name.starts_with("refs/heads/")
    {
        return None;
    }
    let target = command.args.iter().rfind(|a| !a.starts_with('-'))?;
    Some(RefUpdate {
        old: "0".repeat(update.old.len()),
        new: update.old.clone(),
        name: format!("refs/heads/{target}"),
    })
}

/// Why git's own command makes a guarded line routine, read from the git
/// command that runs the transaction. `None` when the line must be judged.
///
/// - `pack-refs`, `gc` and `maintenance` move refs into `packed-refs`: their
///   lines look exactly like deleting the branch;
/// - `branch -m` reports only the deletion of the old name;
/// - `stash pop` and an autostash (`rebase`, `merge`, `pull`) drop the stash
///   entry they have just applied;
/// - `commit` (without `--amend`), `merge`, `cherry-pick`, `revert` and `am`
///   only ever add commits on top of a branch, except under `--abort`,
///   `--quit` or `--skip`, which move it back.
///
/// The command is the one whose executable is git
/// ([`crate::measure::parent::git_ancestor_argv`]), never a name a process gave
/// itself.
pub fn routine_because(command: &GitCommand, update: &RefUpdate) -> Option<&'static str> {
    // `--abort` (and `--quit`, `--skip`) of a sequencer command moves the
    // branch back to where it started: judged by what it loses.
    let stopping = command.has_flag(&["--abort", "--quit", "--skip"]);
    let branch_moves = update.name.starts_with("refs/heads/") && !update.is_delete() && !stopping;
    match command.sub.as_str() {
        "pack-refs" | "gc" | "maintenance" => Some("refs are being packed; no value changes"),
        "commit" if branch_moves && !command.has_flag(&["--amend"]) => {
            Some("a new commit on top of the branch")
        }
        "merge" | "cherry-pick" | "revert" | "am" if branch_moves => {
            Some("commits added on top of the branch")
        }
        "branch"
            if update.is_delete()
                && update.name.starts_with("refs/heads/")
                && command.has_flag(&["-m", "-M", "--move"]) =>
        {
            Some("a branch rename")
        }
        "stash" if update.name == "refs/stash" && command.action() == Some("pop") => {
            Some("`stash pop` drops the entry it applied")
        }
        "rebase" | "merge" | "pull" if update.name == "refs/stash" && update.is_delete() => {
            Some("an autostash is dropped after it is applied")
        }
        _ => None,
    }
}

/// The guarded lines of a transaction (`updates`, from [`guarded_updates`])
/// left to judge once those `command` (the git command that runs it) makes
/// routine ([`routine_because`]) are set aside, with the branch a rename
/// overwrites ([`rename_target`]). Empty when nothing is left to judge.
pub fn left_to_judge(mut updates: Vec<RefUpdate>, command: &GitCommand) -> Vec<RefUpdate> {
    // `branch -M a b` reports only the deletion of `a`: what it may
    // destroy is `b`'s old value, still on disk.
    let overwritten: Vec<RefUpdate> = updates
        .iter()
        .filter_map(|u| rename_target(command, u))
        .collect();
    updates.retain(|u| routine_because(command, u).is_none());
    updates.extend(overwritten);
    updates
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const Z: &str = "0000000000000000000000000000000000000000";

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    /// The git command line `s`, read.
    fn cmd(s: &str) -> GitCommand {
        GitCommand::parse(&argv(s)).unwrap()
    }

    /// A transaction's line: `old new name`.
    fn line(old: &str, new: &str, name: &str) -> RefUpdate {
        RefUpdate {
            old: old.into(),
            new: new.into(),
            name: name.into(),
        }
    }

    #[test]
    fn reference_transaction_keeps_only_guarded_changing_lines() {
        let input = format!(
            "{Z} {A} HEAD\n{A} {B} refs/heads/main\n{Z} ref:refs/heads/x HEAD\n{A} {A} refs/heads/same\n{Z} {Z} refs/heads/gone\n{A} {B} refs/remotes/origin/main\n{B} {Z} refs/stash\n{A} {Z} refs/tags/v1\nnot a line\n{A} {B} refs/vouch/rescue/main/1\n"
        );
        let kept: Vec<_> = guarded_updates(input.as_bytes())
            .into_iter()
            .map(|u| u.name)
            .collect();
        assert_eq!(
            kept,
            [
                "refs/heads/main",
                "refs/heads/gone",
                "refs/stash",
                "refs/tags/v1",
                "refs/vouch/rescue/main/1"
            ]
        );
        assert!(guarded_updates(b"").is_empty());
        assert_eq!(TxState::of("prepared"), TxState::Prepared);
        assert_eq!(TxState::of("preparing"), TxState::Preparing);
        assert_eq!(TxState::of("some-future-state"), TxState::Unknown);
    }

    #[test]
    fn git_command_skips_global_options() {
        let c = GitCommand::parse(&argv("git -C dir -c a=b --no-pager branch -D x")).unwrap();
        assert_eq!(c.sub, "branch");
        assert_eq!(c.args, ["-D", "x"]);
        assert!(c.has_flag(&["-D"]) && !c.has_flag(&["-m"]));
        assert!(
            GitCommand::parse(&argv("git clean -fdx"))
                .unwrap()
                .has_flag(&["-f"])
        );
        assert!(GitCommand::parse(&argv("sh -c x")).is_none());
        let stash = GitCommand::parse(&argv("/usr/bin/git stash pop -q")).unwrap();
        assert_eq!(stash.action(), Some("pop"));
    }

    /// Global options as git reads them (`git.c`): one that takes a value
    /// with its value; one git does not know ends them and is the
    /// subcommand, routine for nothing (a later git's option may take the
    /// next word as its value).
    #[test]
    fn global_options_are_read_as_git_reads_them() {
        assert_eq!(
            cmd("git --shallow-file commit reset -q --hard HEAD~2").sub,
            "reset"
        );
        assert_eq!(
            cmd("git --attr-source HEAD --no-advice -P --literal-pathspecs commit -m x").sub,
            "commit"
        );
        assert_eq!(
            cmd("git --exec-path=/x --namespace=n --git-dir=.git commit").sub,
            "commit"
        );
        assert_eq!(
            cmd("git --future-option commit reset --hard").sub,
            "--future-option"
        );
        assert_eq!(cmd("git -cx=y commit").sub, "-cx=y");
        let forward = line(A, B, "refs/heads/main");
        for (line, update) in [
            (
                "git --shallow-file commit reset -q --hard HEAD~2",
                forward.clone(),
            ),
            ("git --future-option commit reset --hard", forward),
            (
                "git --shallow-file pack-refs branch -D keep",
                line(A, Z, "refs/heads/keep"),
            ),
            (
                "git --shallow-file gc tag -d v1",
                line(A, Z, "refs/tags/v1"),
            ),
        ] {
            assert!(routine_because(&cmd(line), &update).is_none(), "{line}");
        }
    }

    #[test]
    fn one_model_reads_globals_options_and_operands() {
        let c = GitCommand::parse(&argv(
            "git -C a -C b -c user.name=x -c Core.Bare --git-dir=.g --work-tree w --no-pager clean -fd -e keep -- p q",
        ))
        .unwrap();
        assert_eq!(c.globals.dirs, ["a", "b"]);
        assert_eq!(c.globals.setting("core.bare"), Some("true"));
        assert_eq!(c.globals.setting("USER.NAME"), Some("x"));
        assert_eq!(c.globals.git_dir.as_deref(), Some(".g"));
        assert_eq!(c.globals.work_tree.as_deref(), Some("w"));
        assert_eq!(c.sub, "clean");
        assert_eq!(c.operands(), ["keep", "p", "q"]);
        assert_eq!(c.clean_options(), (true, vec!["keep".to_owned()]));
        let c = GitCommand::parse(&argv("git clean -fdekeep --exclude=x --exclude y")).unwrap();
        assert_eq!(c.clean_options().1, ["keep", "x", "y"]);
        // No subcommand: an empty one, never a global option's value.
        let c = GitCommand::parse(&argv("git -C dir")).unwrap();
        assert_eq!((c.sub.as_str(), c.globals.dirs.len()), ("", 1));
    }

    #[test]
    fn routine_lines_are_recognised_by_the_git_command() {
        assert!(
            routine_because(&cmd("git pack-refs --all"), &line(A, Z, "refs/heads/main")).is_some()
        );
        assert!(routine_because(&cmd("git branch -m a b"), &line(A, Z, "refs/heads/a")).is_some());
        assert!(routine_because(&cmd("git branch -D a"), &line(A, Z, "refs/heads/a")).is_none());
        let over = rename_target(&cmd("git branch -M a b"), &line(A, Z, "refs/heads/a")).unwrap();
        assert_eq!((over.name.as_str(), over.new.as_str()), ("refs/heads/b", A));
        assert!(rename_target(&cmd("git branch -m a b"), &line(A, Z, "refs/heads/a")).is_none());
        assert!(rename_target(&cmd("git branch -m -f a b"), &line(A, Z, "refs/heads/a")).is_some());
        assert!(routine_because(&cmd("git stash pop"), &line(A, Z, "refs/stash")).is_some());
        assert!(routine_because(&cmd("git stash drop"), &line(A, Z, "refs/stash")).is_none());
        assert!(routine_because(&cmd("git rebase main"), &line(A, Z, "refs/stash")).is_some());
        assert!(routine_because(&cmd("git rebase main"), &line(A, Z, "refs/heads/a")).is_none());
        let forward = line(A, B, "refs/heads/main");
        assert!(routine_because(&cmd("git commit -m x"), &forward).is_some());
        assert!(routine_because(&cmd("git commit --amend"), &forward).is_none());
        assert!(routine_because(&cmd("git merge topic"), &forward).is_some());
        assert!(routine_because(&cmd("git reset --hard HEAD~1"), &forward).is_none());
        // Stopping a sequencer command moves the branch back (item 5).
        for stop in [
            "git merge --abort",
            "git am --abort",
            "git am --skip",
            "git cherry-pick --abort",
            "git cherry-pick --quit",
            "git revert --abort",
        ] {
            assert!(routine_because(&cmd(stop), &forward).is_none(), "{stop}");
        }
        // ... while an autostash applied by `rebase --abort` is still routine.
        assert!(routine_because(&cmd("git rebase --abort"), &line(A, Z, "refs/stash")).is_some());
    }

    /// What the door and the hook gate are left to judge: nothing of a
    /// commit's own branch update; an amend's, and a rename's overwritten
    /// branch in place of the renamed one's deletion.
    #[test]
    fn what_is_left_to_judge_is_read_from_the_git_command() {
        let input = format!("{Z} {B} HEAD\n{A} {B} refs/heads/main\n");
        let left = |command: &str| left_to_judge(guarded_updates(input.as_bytes()), &cmd(command));
        assert_eq!(left("git commit -q -m x"), []);
        assert_eq!(left("git -c a=b commit --allow-empty -m x"), []);
        for judged in [
            "git commit --amend -m x",
            "git commit --am -m x",
            "git reset --hard HEAD~1",
            "git merge --abort",
        ] {
            assert_eq!(left(judged).len(), 1, "{judged}");
        }
        let renamed = left_to_judge(
            guarded_updates(format!("{A} {Z} refs/heads/a\n").as_bytes()),
            &cmd("git branch -M a b"),
        );
        assert_eq!(renamed, [line(Z, A, "refs/heads/b")]);
    }

    /// Abbreviations as git 2.47 and 2.55 read them (checked against the
    /// real `git push`, `git branch` and `git commit`).
    #[test]
    fn abbreviated_long_options_are_read_as_git_reads_them() {
        let expand = |sub: &str, args: &str| {
            let mut a = argv(args);
            expand_long_options(sub, &mut a);
            a.join(" ")
        };
        assert_eq!(expand("push", "--mirr origin"), "--mirror origin");
        assert_eq!(expand("push", "--mir origin"), "--mirror origin");
        assert_eq!(expand("push", "--delet origin x"), "--delete origin x");
        assert_eq!(expand("push", "--no-verif origin"), "--no-verify origin");
        assert_eq!(
            expand("push", "--force-w=main:abc origin"),
            "--force-with-lease=main:abc origin"
        );
        assert_eq!(
            expand("push", "--force-i origin"),
            "--force-if-includes origin"
        );
        assert_eq!(expand("push", "--no-mirr origin"), "--no-mirror origin");
        // `--verify` is the negation of `--no-verify`.
        assert_eq!(expand("push", "--verif origin"), "--verify origin");
        // Ambiguous in git too: left as written (git refuses to run them).
        assert_eq!(expand("push", "--forc origin"), "--forc origin");
        assert_eq!(expand("push", "--no-ver origin"), "--no-ver origin");
        assert_eq!(expand("push", "--d origin"), "--d origin");
        assert_eq!(expand("push", "--de origin"), "--delete origin");
        // Exact names stay, past `--` nothing changes, and a command vouch
        // has no table of is read as written.
        assert_eq!(expand("push", "--force origin"), "--force origin");
        assert_eq!(expand("push", "-- --mirr"), "-- --mirr");
        assert_eq!(expand("frobnicate", "--mirr"), "--mirr");
        assert_eq!(expand("branch", "--delet x"), "--delete x");
        assert_eq!(expand("commit", "--am --no-edit"), "--amend --no-edit");
        assert_eq!(expand("reset", "--har HEAD~1"), "--hard HEAD~1");
        assert_eq!(expand("clean", "--forc -d"), "--force -d");
        assert_eq!(expand("update-ref", "--std"), "--stdin");
        assert_eq!(
            expand("reflog", "expire --expire=now --al"),
            "expire --expire=now --all"
        );
        assert_eq!(expand("stash", "drop --qui"), "drop --quiet");
        assert_eq!(expand("worktree", "remove --forc wt"), "remove --force wt");
        assert_eq!(expand("gc", "--prun=now"), "--prune=now");
        // Through the one model of a git command line.
        let c = GitCommand::parse(&argv("git -C x push --mirr origin")).unwrap();
        assert!(c.has_flag(&["--mirror"]));
    }

    #[test]
    fn a_git_process_is_read_as_git_reads_its_argv() {
        let git = |s: &str| git_argv(argv(s)).unwrap();
        assert_eq!(git("foo update-ref -d x"), argv("git update-ref -d x"));
        assert_eq!(git("/usr/bin/git commit"), argv("git commit"));
        assert_eq!(
            git("/usr/lib/git-core/git-update-ref -d x"),
            argv("git update-ref -d x")
        );
        assert!(git_argv(Vec::new()).is_none());
        for exe in [
            "/usr/bin/git",
            "/usr/lib/git-core/git-commit",
            "/usr/local/bin/git (deleted)",
        ] {
            assert!(is_git_executable(std::path::Path::new(exe)), "{exe}");
        }
        for exe in [
            "/bin/bash",
            "/usr/bin/git-vouch",
            "/tmp/gitx",
            "/usr/bin/python3",
        ] {
            assert!(!is_git_executable(std::path::Path::new(exe)), "{exe}");
        }
    }

    #[test]
    fn a_branch_turned_into_a_symbolic_ref_is_a_deletion() {
        let input = format!(
            "{Z} ref:refs/heads/main refs/heads/topic\n{A} ref:refs/heads/main refs/heads/x\n{A} {B} HEAD\n"
        );
        let u = guarded_updates(input.as_bytes());
        assert_eq!(u.len(), 2, "{u:?}");
        assert!(u.iter().all(RefUpdate::is_delete), "{u:?}");
        assert_eq!(u[1].old, A);
    }
}
