//! One simple command, normalized and recorded with whatever it runs:
//! wrappers peeled off, git's global options and aliases read, functions
//! called with their arguments, shells, interpreters and scripts read as
//! the commands they run.

use std::rc::Rc;

use super::interpreters::{interpreter_code, reads_code_from_stdin};
use super::printf::{pipe_text, printf_text};
use super::wrappers::{
    Runner, XARGS_LONG_VALUES, XARGS_SHORT_VALUES, env_options, option_value, wrapped_command,
    xargs_replace,
};
use super::{
    MAX_ALIASES, ParseProblem, Parser, SHELLS, SimpleCommand, Stdin, args_unknown, assignment,
    basename, find,
};

impl Parser<'_> {
    /// Normalizes one command (wrappers, shells, git) and records it and
    /// whatever it runs. Returns its known pipe output.
    pub(super) fn command(
        &mut self,
        mut command: SimpleCommand,
        depth: usize,
        stdin: &Stdin,
    ) -> Option<String> {
        if let Stdin::Data(data) = stdin {
            command.stdin = Some(data.clone());
        }
        let mut alias_count = 0usize;
        loop {
            let Some(program) = command.argv.first().map(|p| basename(p).to_owned()) else {
                self.out.commands.push(command);
                return None;
            };
            // An alias defined earlier in the line (`alias g=git; g reset --hard`).
            if alias_count < MAX_ALIASES
                && let Some((_, value)) = self
                    .shell_aliases
                    .iter()
                    .rev()
                    .find(|(n, _)| *n == command.argv[0])
            {
                alias_count += 1;
                let mut words = shell_words::split(value)
                    .unwrap_or_else(|_| value.split_whitespace().map(str::to_owned).collect());
                if words.is_empty() {
                    self.out.commands.push(command);
                    return None;
                }
                words.extend_from_slice(&command.argv[1..]);
                command.argv = words;
                continue;
            }
            // A function defined earlier in the line (`f(){ ...; }; f x`),
            // however it is reached (`command f`, `echo x | xargs f`).
            if let Some(body) = self.functions.get(&command.argv[0]) {
                let body = Rc::clone(body);
                let args = (!args_unknown(&command)).then(|| command.argv[1..].to_vec());
                self.call_function(&body, args, depth, &command.cd);
            }
            // git's dashed programs: `git-push`, `$(git --exec-path)/git-reset`.
            if let Some(sub) = program.strip_prefix("git-")
                && !sub.is_empty()
                && sub.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            {
                let sub = sub.to_owned();
                "git".clone_into(&mut command.argv[0]);
                command.argv.insert(1, sub);
                continue;
            }
            let args = &command.argv[1..];
            let program = program.as_str();
            if let Some(code) = interpreter_code(program, args) {
                self.code(program, &code, &command, depth);
                self.out.commands.push(command);
                return None;
            }
            // Code on stdin is read as `-c` code is (issue 37 item 3).
            if reads_code_from_stdin(program, args) {
                match stdin {
                    Stdin::Data(code) => {
                        let code = code.clone();
                        self.code(program, &code, &command, depth);
                    }
                    Stdin::Unknown => self.problem(ParseProblem::OpaqueScript {
                        shell: program.to_owned(),
                    }),
                    Stdin::Inherited => {}
                }
                self.out.commands.push(command);
                return None;
            }
            if let Some(inner) = self.runner(program, args, &command, depth) {
                match inner {
                    Runner::Command(start, name) => {
                        command.argv.drain(..start);
                        command.wrappers.push(name);
                        continue;
                    }
                    Runner::Stdin(start, end) => {
                        command.argv.truncate(end);
                        command.argv.drain(..start);
                        command.wrappers.push(program.to_owned());
                        command.args_from_stdin = true;
                        command.stdin = None;
                        continue;
                    }
                    Runner::Done => {
                        self.out.commands.push(command);
                        return None;
                    }
                }
            }
            if program == "env" {
                let Some(prefix) = env_options(args) else {
                    self.out.commands.push(command);
                    return None;
                };
                command.env.extend(prefix.env);
                command.cd.extend(prefix.chdir);
                if prefix.command.is_empty() {
                    self.out.commands.push(command);
                    return None;
                }
                command.wrappers.push("env".to_owned());
                command.argv = prefix.command;
                continue;
            }
            if let Some(start) = wrapped_command(program, args) {
                let name = match program {
                    "bundle" | "poetry" | "pipenv" | "uv" | "pnpm" | "yarn" => {
                        format!("{program} {}", args[0])
                    }
                    _ => program.to_owned(),
                };
                let mut start = start;
                if program == "sudo" || program == "doas" {
                    while let Some(pair) = args.get(start).and_then(|a| assignment(a)) {
                        command.env.push(pair);
                        start += 1;
                    }
                    if start >= args.len() {
                        self.out.commands.push(command);
                        return None;
                    }
                }
                if program == "xargs" {
                    command.args_from_stdin = true;
                    let replace = xargs_replace(&args[..start]);
                    // `xargs -a FILE` (`-0aFILE`, `--arg-file=FILE`): the
                    // arguments are the file's, known only when it was
                    // written earlier in the line; stdin is not read.
                    let from_file = option_value(
                        &args[..start],
                        'a',
                        XARGS_SHORT_VALUES,
                        "arg-file",
                        XARGS_LONG_VALUES,
                    )
                    .filter(|file| file != "-");
                    let data = match from_file {
                        Some(file) => {
                            command.stdin = None;
                            self.written_text(&file)
                        }
                        None => command.stdin.take(),
                    };
                    command.argv.drain(..=start);
                    match data {
                        Some(data) => {
                            let items = shell_words::split(&data).unwrap_or_else(|_| {
                                data.split_whitespace().map(str::to_owned).collect()
                            });
                            match replace {
                                Some(token) => {
                                    let item =
                                        data.lines().next().unwrap_or_default().trim().to_owned();
                                    for word in &mut command.argv {
                                        *word = word.replace(&token, &item);
                                    }
                                }
                                None => command.argv.extend(items),
                            }
                            // The arguments are known: `echo --hard | xargs git reset`.
                            command.stdin = Some(data);
                        }
                        None => command.stdin = None,
                    }
                } else {
                    command.argv.drain(..=start);
                }
                command.wrappers.push(name);
                continue;
            }
            if program == "xargs" {
                command.wrappers.push("xargs".to_owned());
                command.args_from_stdin = true;
                command.argv = vec!["echo".to_owned()];
                continue;
            }
            if SHELLS.contains(&program) {
                self.shell(&command, depth, stdin);
                self.out.commands.push(command);
                return None;
            }
            // A script run by its path: `./x.sh`, `scripts/clean.sh`.
            let first = &command.argv[0];
            if first.contains('/') && !first.starts_with('/') && !first.starts_with('~') {
                let path = first.clone();
                self.script_file(&path, depth, &command.cd);
            }
            match program {
                "eval" if !args.is_empty() => {
                    let script = args.join(" ");
                    self.script(&script, depth + 1, &command.cd);
                }
                "source" | "." if !args.is_empty() => {
                    let path = args[0].clone();
                    self.script_file(&path, depth, &command.cd);
                }
                "trap" => {
                    // `trap -- ACTION SIGNAL` is `trap ACTION SIGNAL`.
                    let args = match args.first() {
                        Some(first) if first == "--" => &args[1..],
                        _ => args,
                    };
                    if let Some(action) = args.first()
                        && !action.starts_with('-')
                        && !action.is_empty()
                        && args.len() > 1
                    {
                        let action = action.clone();
                        self.script(&action, depth + 1, &command.cd);
                    }
                }
                "find" => self.find_exec(&command, depth),
                "make" | "gmake" | "npm" | "yarn" | "pnpm" | "bun" | "just" | "task"
                | "go-task" => self.task_runner(program, &command, depth),
                "git" => {
                    if self.git(&mut command, depth, &mut alias_count) {
                        continue;
                    }
                    // The work tree's own diff, reversed: what applying it
                    // does is read by the rules (issue 37 item 5).
                    return self
                        .out
                        .commands
                        .last()
                        .is_some_and(reversed_diff)
                        .then(|| REVERSED_DIFF.to_owned());
                }
                _ => {}
            }
            // A program named only at run time (`$cmd`, `"$@"`, `$(echo
            // g)it`) may be a wrapper: the first plain word after it is
            // judged as the command it would run (`$SUDO git clean -fdx`),
            // once per command.
            if command.argv[0].contains(['$', '`'])
                && !command.wrappers.iter().any(|w| w.contains(['$', '`']))
                && let Some(at) = command.argv[1..]
                    .iter()
                    .position(|a| !a.starts_with('-') && !a.contains(['$', '`']))
            {
                let mut inner = command.clone();
                inner.argv.drain(..=at);
                inner.wrappers.push(command.argv[0].clone());
                let _ = self.command(inner, depth, stdin);
            }
            let output = match program {
                // The names it prints, when its filters bound them.
                "find" => {
                    let reach = find::reach(args);
                    (!reach.unknown).then(|| reach.words.join("\n"))
                }
                "echo" => Some(pipe_text(args)),
                "printf" => Some(printf_text(args)),
                "cat" if args.is_empty() => command.stdin.clone(),
                _ => None,
            };
            self.out.commands.push(command);
            return output;
        }
    }
}

/// What `git diff -R` writes, as the walker knows it: the rules read it
/// on the stdin of `git apply` and `patch`.
const REVERSED_DIFF: &str = "diff --git (reversed: the work tree's own changes undone)\n";

/// True for `git diff` with `-R`/`--reverse`: its output undoes the work
/// tree's changes.
fn reversed_diff(command: &SimpleCommand) -> bool {
    command.program() == "git"
        && command.argv.get(1).is_some_and(|a| a == "diff")
        && command.argv[2..]
            .iter()
            .take_while(|a| *a != "--")
            .any(|a| {
                a == "-R"
                    || a == "--reverse"
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('R'))
            })
}
