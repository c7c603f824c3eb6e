//! PURE: programs that run another command: plain wrappers peeled off
//! (`sudo`, `env`, `xargs`, `timeout`, `nohup`, `npx`, `uv run`, ...), with
//! their options and what they add (`env`'s assignments and `-C`, `xargs`'s
//! arguments), and runners whose command is read here (`parallel`,
//! `script -c`, `flock`, `watch`, `ssh host CMD`, `chroot`, `find -exec`).

use std::collections::VecDeque;

use super::{MAX_DEPTH, ParseProblem, Parser, SimpleCommand, Stdin, assignment};

impl Parser<'_> {
    /// Programs that run another command given in their arguments, beyond
    /// the plain wrappers: `parallel`, `script -c`, `flock`, `watch`, `ssh
    /// host CMD`. Returns where the wrapped command starts in argv, or
    /// `Done` when the command's scripts were parsed here.
    pub(super) fn runner(
        &mut self,
        program: &str,
        args: &[String],
        command: &SimpleCommand,
        depth: usize,
    ) -> Option<Runner> {
        let cd = command.cd.clone();
        match program {
            "parallel" => {
                const SHORT: &str = "jSPNEdIa";
                const LONG: &[&str] = &[
                    "jobs",
                    "sshlogin",
                    "max-procs",
                    "delimiter",
                    "arg-file",
                    "joblog",
                    "results",
                    "tmpdir",
                    "tag-string",
                    "timeout",
                    "retries",
                    "delay",
                ];
                let start = skip_options(args, SHORT, LONG);
                let sep = args
                    .iter()
                    .position(|a| a.starts_with(":::"))
                    .unwrap_or(args.len());
                // `parallel -a FILE cmd`, `parallel cmd :::: FILE`: the
                // arguments are a file's, unknown here, as with `xargs -a`.
                let from_file = option_value(&args[..start], 'a', SHORT, "arg-file", LONG)
                    .is_some()
                    || args[sep.min(args.len())..]
                        .iter()
                        .any(|a| a.starts_with("::::"));
                if from_file && start < sep {
                    return Some(Runner::Stdin(start + 1, sep + 1));
                }
                let inputs: Vec<String> = args
                    .get(sep + 1..)
                    .unwrap_or_default()
                    .iter()
                    .filter(|a| !a.starts_with(":::"))
                    .cloned()
                    .collect();
                if start >= sep {
                    // `parallel ::: "git reset --hard" ...`: each input is a command.
                    for input in &inputs {
                        self.script(input, depth + 1, &cd);
                    }
                    if sep >= args.len() {
                        self.problem(ParseProblem::OpaqueScript {
                            shell: "parallel".to_owned(),
                        });
                    }
                    return Some(Runner::Done);
                }
                let script = shell_words::join(&args[start..sep]);
                if sep < args.len() {
                    for input in &inputs {
                        let line = if script.contains("{}") {
                            script.replace("{}", &shell_words::quote(input))
                        } else {
                            format!("{script} {}", shell_words::quote(input))
                        };
                        self.script(&line, depth + 1, &cd);
                    }
                    if inputs.is_empty() {
                        self.script(&script, depth + 1, &cd);
                    }
                } else {
                    // Arguments from stdin, as `xargs`.
                    let Some(data) = &command.stdin else {
                        return Some(Runner::Stdin(start + 1, sep + 1));
                    };
                    for item in data.lines() {
                        let line = format!("{script} {item}");
                        self.script(&line, depth + 1, &cd);
                    }
                }
                Some(Runner::Done)
            }
            "script" => {
                let mut i = 0;
                while let Some(arg) = args.get(i) {
                    i += 1;
                    let value = if let Some(v) = arg.strip_prefix("--command=") {
                        Some(v.to_owned())
                    } else if arg == "--command" {
                        args.get(i).cloned()
                    } else if !arg.starts_with("--")
                        && arg.starts_with('-')
                        && let Some(at) = arg.find('c')
                    {
                        let rest = &arg[at + 1..];
                        if rest.is_empty() {
                            args.get(i).cloned()
                        } else {
                            Some(rest.to_owned())
                        }
                    } else {
                        None
                    };
                    if let Some(value) = value {
                        self.script(&value, depth + 1, &cd);
                        return Some(Runner::Done);
                    }
                }
                None
            }
            "flock" => {
                let start =
                    skip_options(args, "wEc", &["timeout", "conflict-exit-code", "command"]);
                // `flock -c CMD FILE` or `flock FILE -c CMD`.
                if let Some(at) = args.iter().position(|a| a == "-c" || a == "--command") {
                    if let Some(script) = args.get(at + 1) {
                        let script = script.clone();
                        self.script(&script, depth + 1, &cd);
                    }
                    return Some(Runner::Done);
                }
                (start + 1 < args.len()).then_some(Runner::Command(start + 2, "flock".to_owned()))
            }
            "watch" => {
                let start = skip_options(args, "nqd", &["interval", "differences"]);
                if start < args.len() {
                    let script = args[start..].join(" ");
                    self.script(&script, depth + 1, &cd);
                }
                Some(Runner::Done)
            }
            "ssh" => {
                let start = skip_options(args, "BbcDEeFIiJLlmOopQRSWw", &[]);
                if start + 1 < args.len() {
                    let script = args[start + 1..].join(" ");
                    self.script(&script, depth + 1, &cd);
                }
                Some(Runner::Done)
            }
            "chroot" | "unshare" | "firejail" | "caffeinate" | "chrt" | "taskset"
            | "systemd-run" | "proxychains" | "proxychains4" | "torsocks" | "catchsegv"
            | "valgrind" | "strace" | "ltrace" | "faketime" | "fakeroot" | "prlimit" | "cgexec"
            | "runuser" => {
                let mut start =
                    skip_options(args, "uUgGpoesTd", &["user", "group", "unit", "property"]);
                // A leading operand that is not the command: chroot's new root,
                // chrt's priority, taskset's mask, faketime's time.
                if matches!(
                    program,
                    "chroot" | "chrt" | "taskset" | "faketime" | "cgexec"
                ) {
                    start += 1;
                }
                (start < args.len()).then(|| Runner::Command(start + 1, program.to_owned()))
            }
            _ => None,
        }
    }

    /// Records the commands of `find ... -exec CMD ... ;` (and `-execdir`,
    /// `-ok`, `-okdir`).
    pub(super) fn find_exec(&mut self, command: &SimpleCommand, depth: usize) {
        let args = &command.argv[1..];
        // What it names, bounded by its filters (issue 37 items 1 and 7):
        // `{}` stands for those names, and `-delete` deletes them.
        let reach = super::find::reach(args);
        if args.iter().any(|a| a == "-delete") {
            // Names it cannot bound: a whole-tree delete of its start paths.
            let (flags, names) = if reach.unknown {
                ("-rf", &reach.starts)
            } else {
                ("-f", &reach.words)
            };
            let mut rm = vec!["rm".to_owned(), flags.to_owned()];
            rm.extend(names.iter().cloned());
            self.out.commands.push(SimpleCommand {
                argv: rm,
                wrappers: vec!["find".to_owned()],
                cd: command.cd.clone(),
                depth: depth + 1,
                ..SimpleCommand::default()
            });
        }
        let mut i = 0;
        while i < args.len() {
            if matches!(args[i].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                let start = i + 1;
                let end = args[start..]
                    .iter()
                    .position(|a| a == ";" || a == "+")
                    .map_or(args.len(), |n| start + n);
                if end > start && depth >= MAX_DEPTH {
                    // Past the walker's reach: read flat, never dropped.
                    self.problem(ParseProblem::TooDeep { max: MAX_DEPTH });
                } else if end > start {
                    let mut words = Vec::new();
                    let mut names_found = false;
                    for word in &args[start..end] {
                        if word == "{}" {
                            // Names it cannot bound come at run time.
                            if !reach.unknown {
                                words.extend(reach.words.iter().cloned());
                            }
                            names_found = true;
                        } else if word.contains("{}") {
                            let first = reach.words.first().map_or("", String::as_str);
                            words.push(word.replace("{}", first));
                            names_found = true;
                        } else {
                            words.push(word.clone());
                        }
                    }
                    // Names it cannot bound may be any file: the command is
                    // judged as the most dangerous those names could make it.
                    let unknown = names_found && reach.unknown;
                    let inner = SimpleCommand {
                        argv: words,
                        wrappers: vec!["find".to_owned()],
                        cd: command.cd.clone(),
                        depth: depth + 1,
                        args_from_stdin: unknown,
                        ..SimpleCommand::default()
                    };
                    let _ = self.command(inner, depth + 1, &Stdin::Inherited);
                }
                i = end;
            }
            i += 1;
        }
    }
}

/// What [`Parser::runner`] found.
pub(super) enum Runner {
    /// The wrapped command starts at this argv index; the wrapper's name.
    Command(usize, String),
    /// As `Command`, up to the argv index `end` (where parallel's
    /// `:::` inputs start), with its arguments appended from stdin or a
    /// file.
    Stdin(usize, usize),
    /// The scripts were parsed; nothing more to unwrap.
    Done,
}

/// `xargs`'s short options that take a value.
pub(super) const XARGS_SHORT_VALUES: &str = "adEILnPs";

/// `xargs`'s long options that take a value.
pub(super) const XARGS_LONG_VALUES: &[&str] = &[
    "arg-file",
    "delimiter",
    "max-args",
    "max-procs",
    "max-chars",
    "process-slot-var",
];

/// The value of the option `-SHORT VALUE`, `-xSHORTVALUE` or
/// `--LONG=VALUE`/`--LONG VALUE` (a long name may be cut short, as getopt
/// allows) among `options`, the last one given; `short_values` and
/// `long_values` are the options that take a value, so a letter after one
/// of them is that value, not an option.
pub(super) fn option_value(
    options: &[String],
    short: char,
    short_values: &str,
    long: &str,
    long_values: &[&str],
) -> Option<String> {
    let mut found = None;
    let mut i = 0;
    while let Some(arg) = options.get(i) {
        i += 1;
        if arg == "--" {
            break;
        }
        if let Some(name) = arg.strip_prefix("--") {
            let (name, glued) = match name.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (name, None),
            };
            let takes = !name.is_empty() && long_values.iter().any(|l| l.starts_with(name));
            if !takes {
                continue;
            }
            let value = if glued.is_some() {
                glued
            } else {
                i += 1;
                options.get(i - 1).cloned()
            };
            if long.starts_with(name) {
                found = value;
            }
            continue;
        }
        let Some(letters) = arg.strip_prefix('-') else {
            continue;
        };
        for (at, c) in letters.char_indices() {
            if short_values.contains(c) {
                let rest = &letters[at + c.len_utf8()..];
                let value = if rest.is_empty() {
                    i += 1;
                    options.get(i - 1).cloned()
                } else {
                    Some(rest.to_owned())
                };
                if c == short {
                    found = value;
                }
                break;
            }
        }
    }
    found
}

/// The replace token of `xargs -I TOKEN` (`-i` means `{}`).
pub(super) fn xargs_replace(options: &[String]) -> Option<String> {
    let mut i = 0;
    while let Some(arg) = options.get(i) {
        i += 1;
        if arg == "-I" {
            return options.get(i).cloned();
        }
        if let Some(token) = arg.strip_prefix("-I") {
            return Some(token.to_owned());
        }
        if arg == "-i" || arg == "--replace" {
            return Some("{}".to_owned());
        }
        if let Some(token) = arg.strip_prefix("--replace=") {
            return Some(token.to_owned());
        }
    }
    None
}

/// What `env` puts before the command it runs.
pub(super) struct EnvPrefix {
    /// The `NAME=value` assignments.
    pub(super) env: Vec<(String, String)>,
    /// `-C DIR`/`--chdir=DIR`: where the command runs.
    pub(super) chdir: Vec<String>,
    /// The command and its arguments (empty: env only prints).
    pub(super) command: Vec<String>,
}

/// `env`'s options, assignments and command; `None` when env only prints
/// or fails (`--help`, `--version`). The words of a `-S`/`--split-string`
/// string take the option's place and are read as env's next arguments
/// (assignments, options, the command), as env does (issue 26 item 10):
/// each word is read once, whatever the strings hold.
pub(super) fn env_options(args: &[String]) -> Option<EnvPrefix> {
    let mut prefix = EnvPrefix {
        env: Vec::new(),
        chdir: Vec::new(),
        command: Vec::new(),
    };
    // Split as env splits; a string shell_words cannot split (an odd
    // quote) is split on blanks rather than dropped.
    let split = |value: &str| {
        shell_words::split(value)
            .unwrap_or_else(|_| value.split_whitespace().map(str::to_owned).collect())
    };
    let mut queue: VecDeque<String> = args.iter().cloned().collect();
    let value = |queue: &mut VecDeque<String>| queue.pop_front().unwrap_or_default();
    while let Some(arg) = queue.pop_front() {
        if arg == "--" {
            break;
        }
        if arg == "--help" || arg == "--version" {
            return None;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, glued) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            // getopt accepts a long name cut short (`--split=...`).
            let Some(full) = ["unset", "chdir", "split-string"]
                .into_iter()
                .find(|full| !name.is_empty() && full.starts_with(name))
            else {
                continue;
            };
            let value = glued.unwrap_or_else(|| value(&mut queue));
            match full {
                "chdir" => prefix.chdir.push(value),
                "split-string" => {
                    for word in split(&value).into_iter().rev() {
                        queue.push_front(word);
                    }
                }
                _ => {}
            }
            continue;
        }
        if let Some(letters) = arg.strip_prefix('-') {
            for (at, c) in letters.char_indices() {
                if matches!(c, 'u' | 'C' | 'S' | 'P') {
                    let rest = &letters[at + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        value(&mut queue)
                    } else {
                        rest.to_owned()
                    };
                    match c {
                        'C' => prefix.chdir.push(value),
                        'S' => {
                            for word in split(&value).into_iter().rev() {
                                queue.push_front(word);
                            }
                        }
                        _ => {}
                    }
                    break;
                }
            }
            continue;
        }
        if let Some(pair) = assignment(&arg) {
            prefix.env.push(pair);
            continue;
        }
        queue.push_front(arg);
        break;
    }
    prefix.command = queue.into();
    Some(prefix)
}

/// Skips options: `short` are letters that take a value, `long` are long
/// option names that take a separate value. Returns the index of the first
/// non-option word.
fn skip_options(args: &[String], short: &str, long: &[&str]) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return i + 1;
        }
        if let Some(name) = arg.strip_prefix("--") {
            // getopt accepts a long name cut short: `--arg FILE` is
            // `--arg-file FILE`.
            let takes =
                !name.is_empty() && !name.contains('=') && long.iter().any(|l| l.starts_with(name));
            i += if takes { 2 } else { 1 };
            continue;
        }
        if let Some(letters) = arg.strip_prefix('-')
            && !letters.is_empty()
        {
            for (at, c) in letters.char_indices() {
                if short.contains(c) {
                    if at + c.len_utf8() == letters.len() {
                        i += 1;
                    }
                    break;
                }
            }
            i += 1;
            continue;
        }
        return i;
    }
    i
}

/// For a wrapper program, the index in `args` (argv after the program) of
/// the wrapped command's first word; `None` when `program` is not a wrapper
/// or runs nothing here.
pub(super) fn wrapped_command(program: &str, args: &[String]) -> Option<usize> {
    let has_flag = |flag: char| {
        args.iter()
            .take_while(|a| a.starts_with('-') && *a != "--")
            .any(|a| !a.starts_with("--") && a.contains(flag))
    };
    let start = match program {
        "sudo" => {
            let no_command = [
                "-e",
                "-l",
                "-v",
                "-V",
                "-K",
                "--edit",
                "--list",
                "--validate",
            ];
            if args
                .iter()
                .take_while(|a| a.starts_with('-'))
                .any(|a| no_command.contains(&a.as_str()))
            {
                return None;
            }
            skip_options(
                args,
                "CDghprRtTUu",
                &[
                    "close-from",
                    "chdir",
                    "group",
                    "host",
                    "prompt",
                    "chroot",
                    "role",
                    "type",
                    "command-timeout",
                    "other-user",
                    "user",
                ],
            )
        }
        "doas" => skip_options(args, "uC", &[]),
        "xargs" => skip_options(args, XARGS_SHORT_VALUES, XARGS_LONG_VALUES),
        "timeout" => skip_options(args, "ks", &["kill-after", "signal"]) + 1,
        "nice" => skip_options(args, "n", &["adjustment"]),
        "nohup" | "builtin" | "busybox" => 0,
        "command" => {
            if has_flag('v') || has_flag('V') {
                return None;
            }
            skip_options(args, "", &[])
        }
        "exec" => skip_options(args, "a", &[]),
        "time" => skip_options(args, "fo", &["format", "output"]),
        "stdbuf" => skip_options(args, "ioe", &["input", "output", "error"]),
        "ionice" => skip_options(args, "cnp", &["class", "classdata", "pid", "pgid", "uid"]),
        "setsid" => skip_options(args, "", &[]),
        "npx" | "bunx" | "pnpx" => skip_options(args, "p", &["package", "node-options"]),
        "uvx" => skip_options(args, "p", &["from", "with", "python", "index", "index-url"]),
        "bundle" | "poetry" | "pipenv" | "uv" | "pnpm" | "yarn" => {
            let sub = args.first()?.as_str();
            let ok = matches!(
                (program, sub),
                ("bundle", "exec")
                    | ("poetry" | "pipenv" | "uv", "run")
                    | ("pnpm", "exec" | "dlx")
                    | ("yarn", "dlx")
            );
            if !ok {
                return None;
            }
            1 + skip_options(
                &args[1..],
                "pw",
                &[
                    "with",
                    "python",
                    "project",
                    "directory",
                    "env-file",
                    "package",
                    "from",
                    "extra",
                    "group",
                ],
            )
        }
        _ => return None,
    };
    (start < args.len()).then_some(start)
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::super::tests::{argvs, no_aliases};

    #[test]
    fn wrappers_are_peeled() {
        let parsed = parse(
            "sudo -u root -E env FOO=1 nice -n 5 timeout -s KILL 10 rm -rf /x",
            &no_aliases,
        );
        let c = &parsed.commands[0];
        assert_eq!(c.argv, ["rm", "-rf", "/x"]);
        assert_eq!(c.wrappers, ["sudo", "env", "nice", "timeout"]);
        assert_eq!(c.env, [("FOO".to_owned(), "1".to_owned())]);
    }

    #[test]
    fn xargs_marks_arguments_from_stdin() {
        let parsed = parse("git branch --merged | xargs -n1 git branch -D", &no_aliases);
        let c = &parsed.commands[1];
        assert_eq!(c.argv, ["git", "branch", "-D"]);
        assert!(c.args_from_stdin);
    }

    #[test]
    fn find_exec_runs_a_command() {
        assert_eq!(
            argvs(r"find . -name x -exec rm -rf {} \;"),
            ["rm -rf ./x", "find . -name x -exec rm -rf {} ;"]
        );
    }
}
