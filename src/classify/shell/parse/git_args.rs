//! PURE: a git command line as git reads it: the global options and
//! `GIT_*` assignments before the subcommand ([`GitCall`]), aliases
//! expanded, the settings and variables git runs as commands read as
//! scripts, glued short option values split off, and settings that change
//! a plain command written out.

use super::{MAX_ALIASES, ParseProblem, Parser, SimpleCommand};
use crate::input::git_command::GitGlobals;

/// Git's global options and environment, resolved before the subcommand.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitCall {
    /// `-C <path>` directories, in order (each relative to the previous).
    pub dirs: Vec<String>,
    /// `-c key=value` settings (a bare `-c key` is `true`), and settings
    /// passed through `GIT_CONFIG_*` assignments or `--config-env`.
    pub config: Vec<(String, String)>,
    /// `--git-dir` or `GIT_DIR=`.
    pub git_dir: Option<String>,
    /// `--work-tree` or `GIT_WORK_TREE=`.
    pub work_tree: Option<String>,
    /// The aliases expanded to reach this command, outermost first.
    pub aliases: Vec<String>,
}

impl GitCall {
    /// The value of a `-c` setting, the key compared case-insensitively
    /// (last one wins, as in git).
    pub fn setting(&self, key: &str) -> Option<&str> {
        self.config
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

impl Parser<'_> {
    /// Normalizes a git command in place. Returns true when an alias was
    /// expanded into git words and the command must be normalized again;
    /// false when the command was recorded (or replaced by a `!` alias).
    pub(super) fn git(
        &mut self,
        command: &mut SimpleCommand,
        depth: usize,
        alias_count: &mut usize,
    ) -> bool {
        let mut call = command.git.take().unwrap_or_default();
        if call.aliases.is_empty() {
            // Settings written by `git config` earlier in the line come
            // first: `-c` and the environment override them.
            call.config.splice(0..0, self.git_config.iter().cloned());
            git_env(&command.env, &mut call);
            // Variables git runs as commands (`GIT_EXTERNAL_DIFF`, `GIT_SSH_COMMAND`, ...).
            for (name, value) in &command.env {
                if COMMAND_VARIABLES.contains(&name.as_str()) {
                    let value = value.clone();
                    self.script(&value, depth + 1, &command.cd);
                }
            }
        }
        let words = &command.argv[1..];
        // Git's global options: the one model of a git command line.
        let (globals, i) = GitGlobals::read(words);
        call.dirs.extend(globals.dirs);
        call.config.extend(globals.config);
        if globals.git_dir.is_some() {
            call.git_dir = globals.git_dir;
        }
        if globals.work_tree.is_some() {
            call.work_tree = globals.work_tree;
        }
        let mut normalized = vec![command.argv[0].clone()];
        // An option missing its value (`git -c`) runs nothing: git refuses it.
        normalized.extend_from_slice(words.get(i..).unwrap_or_default());
        command.argv = normalized;
        if let Some(sub) = command.argv.get(1).cloned()
            && !GIT_BUILTINS.contains(&sub.as_str())
        {
            let key = format!("alias.{sub}");
            let expansion = call
                .setting(&key)
                .map(str::to_owned)
                .or_else(|| (self.aliases)(&sub));
            if let Some(expansion) = expansion {
                *alias_count += 1;
                if *alias_count > MAX_ALIASES || call.aliases.contains(&sub) {
                    self.problem(ParseProblem::AliasLoop { name: sub });
                    command.git = Some(call);
                    self.out.commands.push(std::mem::take(command));
                    return false;
                }
                call.aliases.push(sub);
                if let Some(script) = expansion.strip_prefix('!') {
                    let mut script = script.to_owned();
                    if command.argv.len() > 2 {
                        script.push(' ');
                        script.push_str(&shell_words::join(&command.argv[2..]));
                    }
                    self.script(&script, depth + 1, &command.cd);
                    return false;
                }
                let alias_words = shell_words::split(&expansion)
                    .unwrap_or_else(|_| expansion.split_whitespace().map(str::to_owned).collect());
                let mut expanded = vec![command.argv[0].clone()];
                expanded.extend(alias_words);
                expanded.extend_from_slice(&command.argv[2..]);
                command.argv = expanded;
                command.git = Some(call);
                return true;
            }
        }
        // `git clone -c key=value` sets it for the clone itself as well:
        // read as the call's own settings (a command git runs, a hooks path).
        if command.argv.get(1).is_some_and(|s| s == "clone") {
            call.config.extend(clone_settings(&command.argv[2..]));
        }
        // Settings git runs as commands (`-c diff.external=...`, `core.pager`).
        let runs: Vec<String> = call
            .config
            .iter()
            .filter(|(k, _)| runs_command(k))
            .map(|(_, v)| v.trim_start_matches('!').to_owned())
            .collect();
        for script in runs {
            self.script(&script, depth + 1, &command.cd);
        }
        // A `--` right after an option may be that option's value (`git
        // push -o -- --force`: git reads `--force`), or the end of the
        // options (`git clean -f -x -- -n`: `-n` is a path): vouch does not
        // know every option's value, so it judges both readings.
        let undashed = value_dashdash(&command.argv).map(|at| {
            let mut undashed = command.clone();
            undashed.argv.remove(at);
            undashed
        });
        // Commands a git command is given to run (`rebase --exec`,
        // `grep -O`, `submodule foreach`, ...), read before the glued short
        // values are split (`-nO'rm -rf ~'` is `-n -O'rm -rf ~'`, not `-m`).
        let argv = undashed.as_ref().map_or(&command.argv, |u| &u.argv);
        for (script, appended) in given_commands(argv) {
            // Operands git appends when it runs them (the files found, the
            // repository's path) are judged at their worst, as `xargs`'s
            // are: one command is read as names piped to `xargs` (`-Osh`
            // is `ls | xargs sh`, files run); a longer script's commands
            // each as having operands vouch cannot see.
            let simple = !script.starts_with('-')
                && !script.contains([';', '&', '|', '<', '>', '(', ')', '`', '$', '\n']);
            if appended && simple {
                self.script(&format!("ls | xargs {script}"), depth + 1, &command.cd);
                continue;
            }
            let first = self.out.commands.len();
            self.script(&script, depth + 1, &command.cd);
            if appended {
                for given in &mut self.out.commands[first..] {
                    given.args_from_stdin = true;
                    given.stdin = None;
                }
            }
        }
        normalize_git(command, &call);
        if command.argv.get(1).is_some_and(|s| s == "config") {
            self.git_config_write(command, depth);
        }
        let undashed = undashed.map(|mut undashed| {
            normalize_git(&mut undashed, &call);
            undashed.git = Some(call.clone());
            undashed
        });
        command.git = Some(call);
        self.out.commands.push(std::mem::take(command));
        self.out.commands.extend(undashed);
        false
    }

    /// Remembers what `git config` writes (`git config alias.x '!...'`,
    /// `git config clean.requireForce false`), for the git commands after
    /// it, and judges a command it stores now.
    fn git_config_write(&mut self, command: &SimpleCommand, depth: usize) {
        let args = &command.argv[2..];
        let mut words = Vec::new();
        let mut i = 0;
        let mut unset = false;
        while let Some(arg) = args.get(i) {
            i += 1;
            match arg.as_str() {
                "--file" | "-f" | "--blob" | "--type" | "--default" | "--comment" | "--value" => {
                    i += 1;
                }
                "--unset" | "--unset-all" | "unset" | "--remove-section" | "--rename-section"
                | "--get" | "--get-all" | "--get-regexp" | "get" | "-l" | "--list" | "list" => {
                    unset = true;
                }
                "set" if words.is_empty() => {}
                a if a.starts_with('-') => {}
                _ => words.push(arg.clone()),
            }
        }
        if unset {
            return;
        }
        if let [key, value, ..] = &words[..] {
            if runs_command(key) {
                let script = value.trim_start_matches('!').to_owned();
                self.script(&script, depth + 1, &command.cd);
            }
            self.git_config.push((key.clone(), value.clone()));
        }
    }
}

/// Environment variables whose value git runs as a command.
const COMMAND_VARIABLES: &[&str] = &[
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFFTOOL_EXTCMD",
    "GIT_PAGER",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "PAGER",
    "EDITOR",
    "VISUAL",
];

/// True for a git setting whose value git runs as a command.
fn runs_command(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let last = key.rsplit('.').next().unwrap_or_default();
    matches!(
        key.as_str(),
        "diff.external"
            | "core.pager"
            | "core.editor"
            | "core.sshcommand"
            | "core.askpass"
            | "core.fsmonitor"
            | "core.gitproxy"
            | "sequence.editor"
            | "gpg.program"
            | "credential.helper"
            | "uploadpack.packobjectshook"
            | "imap.tunnel"
            | "gpg.ssh.defaultkeycommand"
            | "core.alternaterefscommand"
            | "gc.recentobjectshook"
            | "interactive.difffilter"
            | "instaweb.httpd"
    ) || key.starts_with("pager.")
        || (key.starts_with("sendemail.") && last.ends_with("cmd"))
        || (key.starts_with("trailer.") && matches!(last, "cmd" | "command"))
        || ((key.starts_with("browser.") || key.starts_with("man."))
            && matches!(last, "cmd" | "path"))
        || (key.starts_with("difftool.") || key.starts_with("mergetool.")) && last == "path"
        || (key.starts_with("submodule.") && last == "update")
        || (key.starts_with("diff.") && matches!(last, "command" | "textconv"))
        || (key.starts_with("difftool.") || key.starts_with("mergetool.")) && last == "cmd"
        || (key.starts_with("merge.") && last == "driver")
        || (key.starts_with("filter.") && matches!(last, "clean" | "smudge" | "process"))
        || (key.starts_with("gpg.") && last == "program")
        || (key.starts_with("remote.") && matches!(last, "receivepack" | "uploadpack" | "vcs"))
        || (key.starts_with("credential.") && last == "helper")
        || (key.starts_with("hook.") && last == "command")
}

/// Where the first `--` of a git command line (`argv`: `git`, the
/// subcommand, its words) follows an option, which may take it as its
/// value (`-o --`, `-e --`, `--exclude --`), and an option-like word
/// follows it, which git then reads as an option: its index. (With no
/// such word after it, both readings are one.)
fn value_dashdash(argv: &[String]) -> Option<usize> {
    let at = argv.iter().skip(2).position(|a| a == "--")? + 2;
    (at > 2
        && argv[at - 1].starts_with('-')
        && argv[at + 1..]
            .iter()
            .any(|a| a.starts_with('-') && a.len() > 1))
    .then_some(at)
}

/// The commands a git command line (`argv`, its global options read) is
/// given to run through the shell, as scripts, each with whether git
/// appends operands to it when it runs it: `rebase --exec`/`-x`, `grep
/// --open-files-in-pager=`/`-O<cmd>` (its optional value is only ever
/// glued; the files found are appended), `difftool --extcmd`/`-x` (two
/// files appended), `submodule foreach` and `bisect run` (the words that
/// follow; `foreach` runs its first word as shell code), the program a
/// transport starts (`--upload-pack`, `--receive-pack`, `--exec`: on the
/// remote over ssh, here for a local path, which is appended),
/// `send-email`'s `--*-cmd`, `daemon --access-hook` and `instaweb
/// --httpd`. Long options are read abbreviated as git
/// reads them, short ones in clusters. A word read as one of these options
/// where git would read it as another option's value only adds a script
/// to judge: never a refusal turned into an allow.
fn given_commands(argv: &[String]) -> Vec<(String, bool)> {
    let Some(sub) = argv.get(1).map(String::as_str) else {
        return Vec::new();
    };
    // `(long option, short letter)` whose value is a command.
    let given: &[(&str, Option<char>)] = match sub {
        "rebase" => &[("exec", Some('x'))],
        "grep" => &[("open-files-in-pager", Some('O'))],
        "difftool" => &[("extcmd", Some('x'))],
        "fetch" | "pull" | "ls-remote" | "fetch-pack" => &[("upload-pack", None), ("exec", None)],
        "clone" => &[("upload-pack", Some('u'))],
        "send-email" => &[
            ("sendmail-cmd", None),
            ("to-cmd", None),
            ("cc-cmd", None),
            ("header-cmd", None),
        ],
        "daemon" => &[("access-hook", None)],
        "instaweb" => &[("httpd", Some('d'))],
        "push" | "send-pack" => &[("receive-pack", None), ("exec", None)],
        "archive" => &[("exec", None)],
        "submodule" | "submodule--helper" => return words_run(&argv[2..], "foreach"),
        "bisect" => return words_run(&argv[2..], "run"),
        _ => return Vec::new(),
    };
    let mut words = argv[2..].to_vec();
    crate::input::git_command::expand_long_options(sub, &mut words);
    let end = words.iter().position(|a| a == "--").unwrap_or(words.len());
    let options = &words[..end];
    // grep's `-O` takes only a glued value (git's optional argument).
    let glued_only = sub == "grep";
    let appended = sub != "rebase";
    let takes_value = short_values(sub);
    let mut scripts = Vec::new();
    for (at, arg) in options.iter().enumerate() {
        let next = options.get(at + 1);
        if let Some(long) = arg.strip_prefix("--") {
            for (name, _) in given {
                if let Some(value) = long.strip_prefix(name).and_then(|v| v.strip_prefix('=')) {
                    scripts.push((value.to_owned(), appended));
                } else if long == *name
                    && !glued_only
                    && let Some(value) = next
                {
                    scripts.push((value.clone(), appended));
                }
            }
            continue;
        }
        let Some(letters) = arg.strip_prefix('-') else {
            continue;
        };
        for (i, c) in letters.char_indices() {
            if given.iter().any(|(_, short)| *short == Some(c)) {
                let rest = &letters[i + c.len_utf8()..];
                if !rest.is_empty() {
                    scripts.push((rest.to_owned(), appended));
                } else if !glued_only && let Some(value) = next {
                    scripts.push((value.clone(), appended));
                }
                break;
            }
            // A letter that takes a value ends the cluster: the rest is its value.
            if takes_value.contains(c) {
                break;
            }
        }
    }
    scripts
}

/// The command the words after `action` (`submodule foreach`, `bisect
/// run`) and its options make: `foreach` runs `sh -c '<first word>
/// "$@"'`, so the first word is shell code and the others its arguments.
fn words_run(args: &[String], action: &str) -> Vec<(String, bool)> {
    let Some(at) = args.iter().position(|a| a == action) else {
        return Vec::new();
    };
    let mut words = args[at + 1..].iter().skip_while(|a| a.starts_with('-'));
    let Some(first) = words.next() else {
        return Vec::new();
    };
    let rest: Vec<&str> = words.map(String::as_str).collect();
    let script = if rest.is_empty() {
        first.clone()
    } else {
        format!("{first} {}", shell_words::join(rest))
    };
    vec![(script, false)]
}

/// The settings `git clone -c key=value` (`--config`, abbreviated too)
/// gives the new repository, up to `--`.
fn clone_settings(args: &[String]) -> Vec<(String, String)> {
    let mut words = args.to_vec();
    crate::input::git_command::expand_long_options("clone", &mut words);
    let mut settings = Vec::new();
    let mut words = words.iter().take_while(|a| *a != "--");
    while let Some(arg) = words.next() {
        let setting = match arg.as_str() {
            "-c" | "--config" => words.next().map(String::as_str),
            a => a.strip_prefix("--config=").or_else(|| a.strip_prefix("-c")),
        };
        if let Some((key, value)) = setting.and_then(|s| s.split_once('=')) {
            settings.push((key.to_owned(), value.to_owned()));
        }
    }
    settings
}

/// Git short options that take a value, by subcommand: a value glued to
/// the letter (`-bfeature`) is split off as git does.
fn short_values(sub: &str) -> &'static str {
    match sub {
        "checkout" => "bBU",
        "switch" => "cC",
        "commit" => "mFCctS",
        "branch" => "u",
        "clean" => "e",
        "push" => "o",
        "stash" => "m",
        "tag" => "mFu",
        "merge" => "mFsX",
        "rebase" => "sXxC",
        "restore" => "s",
        "cherry-pick" | "revert" => "mX",
        "clone" => "bouc",
        "worktree" => "bB",
        "log" | "shortlog" => "n",
        "grep" => "eABCfm",
        _ => "",
    }
}

/// Normalizes a git command as git reads it: glued short option values
/// split off (`-bfeature` is `-b feature`), `--help`/`-h` turned into
/// `git help <sub>` (nothing else runs), and settings that change what a
/// plain command does written out (`clean.requireForce=false` is `-f`,
/// `remote.<name>.mirror` is `--mirror`, `remote.<name>.push` names the
/// refspec).
fn normalize_git(command: &mut SimpleCommand, call: &GitCall) {
    let Some(sub) = command.argv.get(1).cloned() else {
        return;
    };
    // `--mirr` is `--mirror`, as git's parse-options reads it.
    crate::input::git_command::expand_long_options(&sub, &mut command.argv[2..]);
    let values = short_values(&sub);
    let mut argv = vec![command.argv[0].clone(), sub.clone()];
    let mut dashdash = false;
    let mut help = false;
    let mut previous_takes_value = false;
    for arg in &command.argv[2..] {
        if dashdash
            || previous_takes_value
            || arg == "--"
            || !arg.starts_with('-')
            || arg.starts_with("--")
            || arg.len() < 3
        {
            if !dashdash && !previous_takes_value && (arg == "--help" || arg == "-h") {
                help = true;
            }
            dashdash |= arg == "--";
            previous_takes_value = !dashdash
                && arg.len() == 2
                && arg.starts_with('-')
                && arg.chars().nth(1).is_some_and(|c| values.contains(c));
            argv.push(arg.clone());
            continue;
        }
        previous_takes_value = false;
        let letters = &arg[1..];
        let mut flags = String::from("-");
        let mut split = None;
        for (at, c) in letters.char_indices() {
            flags.push(c);
            if values.contains(c) {
                let rest = &letters[at + c.len_utf8()..];
                if rest.is_empty() {
                    previous_takes_value = true;
                } else {
                    split = Some(rest.to_owned());
                }
                break;
            }
        }
        argv.push(flags);
        argv.extend(split);
    }
    if help || sub == "-h" || sub == "--help" {
        command.argv = vec![command.argv[0].clone(), "help".to_owned()];
        return;
    }
    if sub == "clean"
        && call.setting("clean.requireForce").is_some_and(|v| {
            matches!(
                v.to_ascii_lowercase().as_str(),
                "false" | "no" | "off" | "0"
            )
        })
        && !argv.iter().any(|a| a == "-n" || a == "--dry-run")
    {
        argv.insert(2, "-f".to_owned());
    }
    if sub == "push" {
        let positionals: Vec<String> = argv[2..]
            .iter()
            .filter(|a| !a.starts_with('-'))
            .cloned()
            .collect();
        let remote = positionals
            .first()
            .map_or("origin", String::as_str)
            .to_owned();
        let named = !positionals.is_empty();
        let key = |k: &str| format!("remote.{remote}.{k}");
        if call.setting(&key("mirror")).is_some_and(|v| {
            !matches!(
                v.to_ascii_lowercase().as_str(),
                "false" | "no" | "off" | "0"
            )
        }) {
            argv.push("--mirror".to_owned());
        }
        if positionals.len() <= 1
            && let Some(refspec) = call.setting(&key("push"))
        {
            if !named {
                argv.push(remote.clone());
            }
            argv.push(refspec.to_owned());
        }
    }
    command.argv = argv;
}

/// Reads git's environment assignments into `call`.
fn git_env(env: &[(String, String)], call: &mut GitCall) {
    for (name, value) in env {
        match name.as_str() {
            "GIT_DIR" => call.git_dir = Some(value.clone()),
            "GIT_WORK_TREE" => call.work_tree = Some(value.clone()),
            "GIT_CONFIG_PARAMETERS" => {
                // `'key'='value' 'key2'='value2'`: keep the pairs, roughly.
                for pair in shell_words::split(value).unwrap_or_default() {
                    let (k, v) = pair.split_once('=').unwrap_or((&pair, "true"));
                    call.config.push((k.to_owned(), v.to_owned()));
                }
            }
            n if n.starts_with("GIT_CONFIG_KEY_") => {
                let index = &n["GIT_CONFIG_KEY_".len()..];
                let value_name = format!("GIT_CONFIG_VALUE_{index}");
                let v = env
                    .iter()
                    .find(|(k, _)| *k == value_name)
                    .map_or(String::new(), |(_, v)| v.clone());
                call.config.push((value.clone(), v));
            }
            _ => {}
        }
    }
}

/// Git's built-in commands: git never lets an alias shadow these.
const GIT_BUILTINS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "clean",
    "clone",
    "commit",
    "commit-tree",
    "config",
    "count-objects",
    "describe",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "filter-branch",
    "for-each-ref",
    "format-patch",
    "fsck",
    "gc",
    "grep",
    "hash-object",
    "help",
    "init",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "maintenance",
    "merge",
    "merge-base",
    "mergetool",
    "mktag",
    "mktree",
    "mv",
    "notes",
    "pack-refs",
    "prune",
    "pull",
    "push",
    "range-diff",
    "read-tree",
    "rebase",
    "reflog",
    "remote",
    "repack",
    "replace",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "shortlog",
    "show",
    "show-branch",
    "show-ref",
    "sparse-checkout",
    "stash",
    "status",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "update-index",
    "update-ref",
    "var",
    "verify-commit",
    "verify-tag",
    "whatchanged",
    "worktree",
    "write-tree",
];

#[cfg(test)]
mod tests {
    use super::super::tests::no_aliases;
    use super::super::{ParseProblem, parse};
    use super::given_commands;

    /// Each command a git command line gives git to run, read as git
    /// reads its options, and whether git appends operands to it.
    #[test]
    fn commands_given_to_git_are_read_as_git_reads_the_options() {
        let given = |line: &str| {
            let argv = shell_words::split(line).unwrap();
            given_commands(&argv)
        };
        let one = |s: &str, appended: bool| vec![(s.to_owned(), appended)];
        assert_eq!(given("git grep -Orm foo"), one("rm", true));
        assert_eq!(given("git grep -nO'rm -rf ~' foo"), one("rm -rf ~", true));
        assert_eq!(given("git grep --open='rm x' foo"), one("rm x", true));
        // -O's value is only ever glued: a word after it is the pattern.
        assert_eq!(given("git grep -O rm foo"), vec![]);
        assert_eq!(given("git grep --open-files-in-pager rm"), vec![]);
        // A letter that takes a value ends the cluster: `O` is -e's pattern.
        assert_eq!(given("git grep -eOrm"), vec![]);
        assert_eq!(given("git grep -- -Orm"), vec![]);
        assert_eq!(
            given("git rebase --exec 'make test' main"),
            one("make test", false)
        );
        assert_eq!(given("git rebase --exe=x main"), one("x", false));
        assert_eq!(
            given("git rebase -ix 'rm -rf ~' main"),
            one("rm -rf ~", false)
        );
        assert_eq!(
            given("git rebase -x'rm -rf ~' main"),
            one("rm -rf ~", false)
        );
        assert_eq!(
            given("git rebase -x a --exec b main"),
            vec![("a".to_owned(), false), ("b".to_owned(), false)]
        );
        assert_eq!(given("git difftool -yx meld HEAD"), one("meld", true));
        assert_eq!(given("git difftool --extcmd=meld"), one("meld", true));
        assert_eq!(
            given("git submodule foreach 'git pull'"),
            one("git pull", false)
        );
        assert_eq!(
            given("git submodule foreach --recursive rm -rf 'a b'"),
            one("rm -rf 'a b'", false)
        );
        assert_eq!(given("git submodule update"), vec![]);
        assert_eq!(given("git bisect run ./t.sh 1"), one("./t.sh 1", false));
        assert_eq!(given("git fetch --upload-pack=x ../o"), one("x", true));
        assert_eq!(given("git ls-remote --upload-pack x ../o"), one("x", true));
        assert_eq!(given("git clone -u x ../o c"), one("x", true));
        assert_eq!(given("git push --receive-pack=x ../o"), one("x", true));
        assert_eq!(given("git push --exec x ../o"), one("x", true));
        assert_eq!(
            given("git archive --exec=x --remote=../o HEAD"),
            one("x", true)
        );
        assert_eq!(given("git fetch-pack --exec=x ../o"), one("x", true));
        assert_eq!(given("git submodule--helper foreach x"), one("x", false));
        // `foreach` runs its first word as shell code, the rest as its arguments.
        assert_eq!(
            given("git submodule foreach 'rm -rf ~;' x"),
            one("rm -rf ~; x", false)
        );
        // `clone -c` settings are the call's own: the commands they name
        // are judged, the others only kept.
        let programs = |line: &str| -> Vec<String> {
            parse(line, &no_aliases)
                .commands
                .iter()
                .map(|c| c.argv[0].clone())
                .collect()
        };
        assert_eq!(
            programs("git clone -c core.sshCommand=x --config=core.editor=y u c"),
            ["x", "y", "git"]
        );
        assert_eq!(programs("git clone --conf=core.editor=y u c"), ["y", "git"]);
        assert_eq!(programs("git clone -c user.name=x u c"), ["git"]);
        assert_eq!(given("git send-email --to-cmd=x p"), one("x", true));
        assert_eq!(given("git log -x"), vec![]);
        assert_eq!(given("git"), vec![]);
    }

    /// A `--` right after an option may be its value: the command is also
    /// read without it, and judged by the worse reading.
    #[test]
    fn a_dashdash_after_an_option_is_read_both_ways() {
        let words = |line: &str| shell_words::split(line).unwrap();
        assert_eq!(
            super::value_dashdash(&words("git push -o -- --force")),
            Some(3)
        );
        assert_eq!(
            super::value_dashdash(&words("git clean -e -- -fdx")),
            Some(3)
        );
        assert_eq!(super::value_dashdash(&words("git checkout -- f")), None);
        // Nothing after it that git could read as an option: one reading.
        assert_eq!(super::value_dashdash(&words("git clean -f -- a.txt")), None);
        assert_eq!(
            super::value_dashdash(&words("git clean -f -x -- -n")),
            Some(4)
        );
        assert_eq!(super::value_dashdash(&words("git log main -- f")), None);
        assert_eq!(super::value_dashdash(&words("git log")), None);
        let parsed = parse("git push -o -- --force origin main", &no_aliases);
        let argvs: Vec<&Vec<String>> = parsed.commands.iter().map(|c| &c.argv).collect();
        assert_eq!(
            argvs,
            [
                &words("git push -o -- --force origin main"),
                &words("git push -o --force origin main"),
            ]
        );
    }

    #[test]
    fn git_global_options_are_resolved() {
        let parsed = parse(
            "GIT_DIR=/r/.git git -C sub -c core.hooksPath=/dev/null --no-pager --work-tree=/w push -f",
            &no_aliases,
        );
        let c = &parsed.commands[0];
        assert_eq!(c.argv, ["git", "push", "-f"]);
        let git = c.git.as_ref().expect("git call");
        assert_eq!(git.dirs, ["sub"]);
        assert_eq!(git.setting("core.hookspath"), Some("/dev/null"));
        assert_eq!(git.git_dir.as_deref(), Some("/r/.git"));
        assert_eq!(git.work_tree.as_deref(), Some("/w"));
    }

    #[test]
    fn git_aliases_expand_and_loops_stop() {
        let aliases = |name: &str| match name {
            "nuke" => Some("reset --hard".to_owned()),
            "yolo" => Some("!git push -f".to_owned()),
            "a" => Some("b".to_owned()),
            "b" => Some("a".to_owned()),
            "reset" => Some("status".to_owned()),
            _ => None,
        };
        let argv = |cmd: &str| -> Vec<String> {
            parse(cmd, &aliases)
                .commands
                .into_iter()
                .map(|c| c.argv.join(" "))
                .collect()
        };
        assert_eq!(argv("git nuke HEAD~1"), ["git reset --hard HEAD~1"]);
        assert_eq!(argv("git yolo origin main"), ["git push -f origin main"]);
        assert_eq!(argv("git reset --hard"), ["git reset --hard"]);
        let parsed = parse("git a", &aliases);
        assert_eq!(
            parsed.problems,
            [ParseProblem::AliasLoop {
                name: "a".to_owned()
            }]
        );
    }
}
