//! PURE: a shell command line to the simple commands that would run.
//!
//! The lexer (`shell::lex`, private) turns the text into words and operators; this
//! module walks them and produces one [`SimpleCommand`] per command that
//! would execute, in order:
//!
//! - lists and pipelines (`&&`, `||`, `;`, `|`, `&`, newlines), subshells
//!   `( ... )` and groups `{ ...; }` are flattened; reserved words (`if`,
//!   `then`, `while`, `do`, `!`, ...) are skipped, `for`/`case` headers and
//!   case patterns are not commands, a function body counts as commands;
//! - `$(...)`, backquotes and `<(...)` run too, so their bodies are parsed
//!   recursively, as are `sh -c`/`bash -c`/`zsh -c`/`dash -c` scripts, `eval`
//!   arguments, `find -exec` commands, heredoc or here-string bodies fed to
//!   a shell, `echo ... | sh`, and git `!` aliases. Nesting is bounded by
//!   [`MAX_DEPTH`]; past it, a [`ParseProblem::TooDeep`] is reported;
//! - leading `VAR=value` words are assignments, not argv; redirections are
//!   not argv either (output targets and stdin data are kept separately);
//! - wrappers that run another command are peeled off and remembered in
//!   [`SimpleCommand::wrappers`]: `env`, `sudo`, `doas`, `xargs`, `timeout`,
//!   `nice`, `nohup`, `command`, `exec`, `time`, `builtin`, `stdbuf`,
//!   `ionice`, `setsid`, `busybox`, `npx`, `bunx`, `pnpx`, `uvx`, and the
//!   two-word `bundle exec`, `poetry run`, `pipenv run`, `uv run`,
//!   `pnpm exec`, `pnpm dlx`, `yarn dlx`;
//! - `git` has its global options (`-C`, `-c`, `--git-dir`, ...) and `GIT_DIR`
//!   style assignments moved into [`GitCall`], so `argv[1]` is always the
//!   subcommand, and aliases are expanded through the caller's lookup.
//!
//! Data is not a command: only the first word after assignments and
//! wrappers is a program; quoted strings passed as arguments
//! (`echo "git reset --hard"`, `git commit -m "rm -rf /"`) stay arguments.

use std::path::PathBuf;

use super::lex::{self, LexError, Op, RedirectKind, Token, Word};

/// How deep `sh -c`, `eval`, substitutions and `!` aliases may nest.
pub const MAX_DEPTH: usize = 4;

/// How many git alias expansions one command may go through.
const MAX_ALIASES: usize = 8;

/// One command that would execute, after normalization.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The program and its arguments, wrappers and git global options removed.
    pub argv: Vec<String>,
    /// Leading `NAME=value` assignments, including those given to `env` or `sudo`.
    pub env: Vec<(String, String)>,
    /// The wrappers peeled off, outermost first (`sudo`, `env`, `xargs`, ...).
    pub wrappers: Vec<String>,
    /// Output redirection targets (`> file`, `>> file`, `&> file`).
    pub outputs: Vec<String>,
    /// Known stdin data: a heredoc or here-string body, or the arguments of an
    /// `echo`/`printf` piped into this command.
    pub stdin: Option<String>,
    /// True when arguments are appended from stdin (`xargs`), so the argv is
    /// incomplete.
    pub args_from_stdin: bool,
    /// `cd` targets run earlier in the same command line, in order.
    pub cd: Vec<String>,
    /// Git's global options, when the program is git.
    pub git: Option<GitCall>,
    /// 0 at the top level, plus one per `sh -c`, `eval`, substitution or alias.
    pub depth: usize,
}

impl SimpleCommand {
    /// The program name without its directory (`/usr/bin/git` is `git`).
    pub fn program(&self) -> &str {
        self.argv.first().map_or("", |p| basename(p))
    }

    /// The directory the command runs in, relative to the caller's, from
    /// `cd` and `git -C`; `None` when neither appears.
    pub fn working_dir(&self) -> Option<PathBuf> {
        let dirs = self.git.as_ref().map_or(&[][..], |g| &g.dirs[..]);
        if self.cd.is_empty() && dirs.is_empty() {
            return None;
        }
        let mut path = PathBuf::new();
        for dir in self.cd.iter().chain(dirs) {
            path.push(dir);
        }
        Some(path)
    }
}

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

/// Why a command line could not be read completely. The classifier treats
/// any problem as at least high: what vouch cannot read, it cannot clear.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseProblem {
    /// A quote never closed.
    #[error("unterminated {0} quote")]
    UnterminatedQuote(char),
    /// A `$(`, `${`, `<(` or `>(` never closed.
    #[error("unterminated `$(`, `${{`, `<(` or `>(`")]
    UnterminatedSubstitution,
    /// `(` and `)` do not pair up.
    #[error("unbalanced parentheses")]
    UnbalancedParens,
    /// `sh -c`, `eval`, substitutions or aliases nest too deeply.
    #[error(
        "commands nested more than {max} levels deep (`sh -c`, `eval`, `$(...)` or `!` aliases)"
    )]
    TooDeep {
        /// The bound, [`MAX_DEPTH`].
        max: usize,
    },
    /// A git alias expands into itself.
    #[error("git alias `{name}` expands in a loop")]
    AliasLoop {
        /// The alias name.
        name: String,
    },
    /// A shell reads its script from a pipe whose content is unknown
    /// (`curl ... | sh`, `base64 -d | bash`).
    #[error("`{shell}` runs a script from a pipe that vouch cannot read")]
    OpaqueScript {
        /// The shell program.
        shell: String,
    },
}

/// The simple commands of a command line, with any problems met.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Every command that would run, in order (substitutions first).
    pub commands: Vec<SimpleCommand>,
    /// What could not be read.
    pub problems: Vec<ParseProblem>,
}

/// Parses `cmd` as bash would split it. `aliases` looks up a git alias by
/// name (`alias.<name>` from git config) and is only asked for names that are
/// not git built-ins (git ignores aliases that shadow them).
pub fn parse(cmd: &str, aliases: &dyn Fn(&str) -> Option<String>) -> Parsed {
    let mut parser = Parser {
        aliases,
        out: Parsed::default(),
        vars: Vec::new(),
    };
    parser.script(cmd, 0, &[]);
    parser.out
}

/// What stdin holds for a command.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stdin {
    /// Inherited from the caller (a terminal, or nothing).
    Inherited,
    /// Known data (heredoc, here-string, `echo ... |`).
    Data(String),
    /// A pipe or file whose content is unknown.
    Unknown,
}

struct Parser<'a> {
    aliases: &'a dyn Fn(&str) -> Option<String>,
    out: Parsed,
    /// Shell variables assigned earlier in the command line (`X=...` alone
    /// or through `export`), so `CMD="git reset --hard"; $CMD` is read.
    vars: Vec<(String, String)>,
}

/// The words and redirections of one command, before normalization.
#[derive(Default)]
struct Segment {
    words: Vec<Word>,
    redirects: Vec<lex::Redirect>,
}

const RESERVED_SKIP: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "while", "until", "do", "done",
];

const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish"];

impl Parser<'_> {
    fn problem(&mut self, problem: ParseProblem) {
        if !self.out.problems.contains(&problem) {
            self.out.problems.push(problem);
        }
    }

    /// Parses a whole script at `depth`, with `cd` targets inherited from
    /// the enclosing command line.
    fn script(&mut self, text: &str, depth: usize, cd: &[String]) {
        if depth > MAX_DEPTH {
            self.problem(ParseProblem::TooDeep { max: MAX_DEPTH });
            return;
        }
        let (tokens, errors) = lex::lex(text);
        for error in errors {
            self.problem(match error {
                LexError::UnterminatedQuote(q) => ParseProblem::UnterminatedQuote(q),
                LexError::UnterminatedSubstitution => ParseProblem::UnterminatedSubstitution,
            });
        }
        let mut cd: Vec<String> = cd.to_vec();
        let mut parens: Vec<usize> = Vec::new();
        let mut cases: Vec<usize> = Vec::new();
        let mut segment = Segment::default();
        let mut piped: Option<Stdin> = None;
        let mut tokens = tokens.into_iter().peekable();
        while let Some(token) = tokens.next() {
            let op = match token {
                Token::Word(word) => {
                    segment.words.push(word);
                    continue;
                }
                Token::Redirect(redirect) => {
                    segment.redirects.push(redirect);
                    continue;
                }
                Token::Op(op) => op,
            };
            // `name() { ...; }`: the name is not a command.
            if op == Op::LParen
                && segment.words.len() == 1
                && tokens.peek() == Some(&Token::Op(Op::RParen))
            {
                tokens.next();
                segment = Segment::default();
                continue;
            }
            let opens_case = segment
                .words
                .first()
                .is_some_and(|w| !w.quoted && w.text == "case");
            let case_pattern =
                op == Op::RParen && (opens_case || cases.last() == Some(&parens.len()));
            let input = piped.take().unwrap_or(Stdin::Inherited);
            let output = self.segment(
                std::mem::take(&mut segment),
                depth,
                &mut cd,
                input,
                &mut cases,
                parens.len(),
                case_pattern,
            );
            match op {
                Op::Pipe => piped = Some(output.map_or(Stdin::Unknown, Stdin::Data)),
                Op::LParen => parens.push(cd.len()),
                Op::RParen if !case_pattern => match parens.pop() {
                    Some(n) => cd.truncate(n),
                    None => self.problem(ParseProblem::UnbalancedParens),
                },
                _ => {}
            }
        }
        let input = piped.take().unwrap_or(Stdin::Inherited);
        self.segment(
            segment,
            depth,
            &mut cd,
            input,
            &mut cases,
            parens.len(),
            false,
        );
        if !parens.is_empty() {
            self.problem(ParseProblem::UnbalancedParens);
        }
    }

    /// Turns one segment into commands. Returns the data it would write to
    /// a pipe, when known (`echo`, `printf`, `cat` of a heredoc).
    #[expect(
        clippy::too_many_arguments,
        reason = "the walker's state, passed down once"
    )]
    fn segment(
        &mut self,
        segment: Segment,
        depth: usize,
        cd: &mut Vec<String>,
        input: Stdin,
        cases: &mut Vec<usize>,
        parens: usize,
        case_pattern: bool,
    ) -> Option<String> {
        let Segment { words, redirects } = segment;
        // Substitutions run whatever the words turn out to be.
        for word in &words {
            for sub in &word.subs {
                self.script(sub, depth + 1, cd);
            }
        }
        for redirect in &redirects {
            for sub in redirect.target.subs.iter().chain(&redirect.body_subs) {
                self.script(sub, depth + 1, cd);
            }
        }
        let mut words = &words[..];
        if case_pattern && words.first().is_none_or(|w| w.quoted || w.text != "case") {
            return None;
        }
        while let Some(first) = words.first() {
            if first.quoted {
                break;
            }
            match first.text.as_str() {
                "case" => {
                    cases.push(parens);
                    return None;
                }
                "for" | "select" | "function" => return None,
                "esac" => {
                    cases.pop();
                    words = &words[1..];
                }
                w if RESERVED_SKIP.contains(&w) => words = &words[1..],
                _ => break,
            }
        }
        let mut command = SimpleCommand {
            depth,
            cd: cd.clone(),
            ..SimpleCommand::default()
        };
        let mut rest = words;
        while let Some((first, tail)) = rest.split_first() {
            match assignment(&first.text) {
                Some(pair) => {
                    command.env.push(pair);
                    rest = tail;
                }
                None => break,
            }
        }
        if rest.is_empty() {
            self.vars.extend(command.env.iter().cloned());
        }
        for word in rest {
            let value = variable_name(&word.text)
                .and_then(|name| self.vars.iter().rev().find(|(n, _)| n == name))
                .map(|(_, v)| v);
            match value {
                // Unquoted, the value is split into words; quoted, it stays one.
                Some(value) if !word.quoted => command
                    .argv
                    .extend(value.split_whitespace().map(str::to_owned)),
                Some(value) => command.argv.push(value.clone()),
                None => command.argv.push(word.text.clone()),
            }
        }
        if matches!(
            command.argv.first().map(String::as_str),
            Some("export" | "declare" | "typeset" | "local" | "readonly")
        ) {
            let assigned: Vec<(String, String)> = command.argv[1..]
                .iter()
                .filter_map(|a| assignment(a))
                .collect();
            self.vars.extend(assigned);
        }
        let mut stdin = input;
        for redirect in redirects {
            match redirect.kind {
                RedirectKind::Output => command.outputs.push(redirect.target.text),
                RedirectKind::Input => stdin = Stdin::Unknown,
                RedirectKind::Heredoc => stdin = Stdin::Data(redirect.body.unwrap_or_default()),
                RedirectKind::HereString => stdin = Stdin::Data(redirect.target.text + "\n"),
                RedirectKind::Dup => {}
            }
        }
        // A bare `> file` runs nothing but still truncates the file.
        if command.argv.is_empty() && command.env.is_empty() && command.outputs.is_empty() {
            return None;
        }
        let program = command.program().to_owned();
        let output = self.command(command, depth, &stdin);
        if program == "cd" || program == "pushd" {
            let target = words
                .iter()
                .skip(1)
                .map(|w| w.text.as_str())
                .find(|w| !w.starts_with('-'))
                .unwrap_or("~");
            cd.push(target.to_owned());
        }
        output
    }

    /// Normalizes one command (wrappers, shells, git) and records it and
    /// whatever it runs. Returns its known pipe output.
    fn command(
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
            let args = &command.argv[1..];
            let program = program.as_str();
            if program == "env" {
                let Some(prefix) = env_options(args) else {
                    self.out.commands.push(command);
                    return None;
                };
                command.env.extend(prefix.env);
                let mut inner = prefix.split;
                inner.extend_from_slice(&args[prefix.start..]);
                if inner.is_empty() {
                    self.out.commands.push(command);
                    return None;
                }
                command.wrappers.push("env".to_owned());
                command.argv = inner;
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
                command.argv.drain(..=start);
                if program == "xargs" {
                    command.args_from_stdin = true;
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
            match program {
                "eval" if !args.is_empty() => {
                    let script = args.join(" ");
                    self.script(&script, depth + 1, &command.cd);
                }
                "find" => self.find_exec(&command, depth),
                "git" => {
                    if self.git(&mut command, depth, &mut alias_count) {
                        continue;
                    }
                    return None;
                }
                _ => {}
            }
            let output = match program {
                "echo" => Some(pipe_text(args)),
                "printf" => Some(printf_text(args)),
                "cat" if args.is_empty() => command.stdin.clone(),
                _ => None,
            };
            self.out.commands.push(command);
            return output;
        }
    }

    /// Parses what a shell runs: its `-c` script, or its stdin script.
    fn shell(&mut self, command: &SimpleCommand, depth: usize, stdin: &Stdin) {
        let args = &command.argv[1..];
        let mut has_c = false;
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            if arg == "--" || arg == "-" {
                i += 1;
                break;
            }
            if let Some(long) = arg.strip_prefix("--") {
                i += if matches!(long, "rcfile" | "init-file") {
                    2
                } else {
                    1
                };
                continue;
            }
            let Some(letters) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('+')) else {
                break;
            };
            if letters.is_empty() {
                break;
            }
            if arg.starts_with('-') && letters.contains('c') {
                has_c = true;
            }
            if letters.contains('o') || letters.contains('O') {
                i += 1;
            }
            i += 1;
        }
        if has_c {
            if let Some(script) = args.get(i) {
                // `xargs -I{} sh -c '{}'`: the script itself comes from stdin.
                let head = script.trim_start();
                if command.args_from_stdin && (head.starts_with("{}") || head.starts_with('$')) {
                    self.problem(ParseProblem::OpaqueScript {
                        shell: command.program().to_owned(),
                    });
                }
                self.script(script, depth + 1, &command.cd);
            }
        } else if i >= args.len() {
            match stdin {
                Stdin::Data(data) => self.script(data, depth + 1, &command.cd),
                Stdin::Unknown => self.problem(ParseProblem::OpaqueScript {
                    shell: command.program().to_owned(),
                }),
                Stdin::Inherited => {}
            }
        }
    }

    /// Records the commands of `find ... -exec CMD ... ;` (and `-execdir`,
    /// `-ok`, `-okdir`).
    fn find_exec(&mut self, command: &SimpleCommand, depth: usize) {
        let args = &command.argv[1..];
        let mut i = 0;
        while i < args.len() {
            if matches!(args[i].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                let start = i + 1;
                let end = args[start..]
                    .iter()
                    .position(|a| a == ";" || a == "+")
                    .map_or(args.len(), |n| start + n);
                if end > start && depth < MAX_DEPTH {
                    let inner = SimpleCommand {
                        argv: args[start..end].to_vec(),
                        wrappers: vec!["find".to_owned()],
                        cd: command.cd.clone(),
                        depth: depth + 1,
                        ..SimpleCommand::default()
                    };
                    let _ = self.command(inner, depth + 1, &Stdin::Inherited);
                }
                i = end;
            }
            i += 1;
        }
    }

    /// Normalizes a git command in place. Returns true when an alias was
    /// expanded into git words and the command must be normalized again;
    /// false when the command was recorded (or replaced by a `!` alias).
    fn git(&mut self, command: &mut SimpleCommand, depth: usize, alias_count: &mut usize) -> bool {
        let mut call = command.git.take().unwrap_or_default();
        if call.aliases.is_empty() {
            git_env(&command.env, &mut call);
        }
        let words = &command.argv[1..];
        let mut i = 0;
        while let Some(arg) = words.get(i) {
            let next = words.get(i + 1).cloned();
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
            );
            if !arg.starts_with('-') || arg == "-" {
                break;
            }
            let value = if takes_value && inline.is_none() {
                i += 1;
                next
            } else {
                inline
            };
            i += 1;
            let value = value.unwrap_or_default();
            match name {
                "-C" => call.dirs.push(value),
                "-c" => call.config.push(match value.split_once('=') {
                    Some((k, v)) => (k.to_owned(), v.to_owned()),
                    None => (value, "true".to_owned()),
                }),
                "--config-env" => {
                    let (k, v) = value.split_once('=').unwrap_or((&value, ""));
                    call.config.push((k.to_owned(), format!("${v}")));
                }
                "--git-dir" => call.git_dir = Some(value),
                "--work-tree" => call.work_tree = Some(value),
                _ => {}
            }
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
        command.git = Some(call);
        self.out.commands.push(std::mem::take(command));
        false
    }
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

/// The part of a path after the last `/`.
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `NAME` for a word that is exactly `$NAME` or `${NAME}`.
fn variable_name(word: &str) -> Option<&str> {
    let name = word.strip_prefix('$')?;
    let name = name
        .strip_prefix('{')
        .and_then(|n| n.strip_suffix('}'))
        .unwrap_or(name);
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

/// `NAME=value` or `NAME+=value` as an assignment.
fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    let first = chars.next()?;
    if !(first.is_ascii_alphabetic() || first == '_')
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    Some((name.to_owned(), value.to_owned()))
}

/// The text `echo`/`printf` would write: the arguments, options dropped.
fn pipe_text(args: &[String]) -> String {
    let mut text = args
        .iter()
        .skip_while(|a| a.starts_with('-') && a.len() > 1)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ");
    text.push('\n');
    text
}

/// The text `printf FORMAT ARGS...` would write, roughly: `\n`, `\t` and
/// `\\` decoded, each `%s` (or other conversion) replaced by the next
/// argument, and arguments left over appended.
fn printf_text(args: &[String]) -> String {
    let args: Vec<&String> = args.iter().skip_while(|a| a.starts_with('-')).collect();
    let Some((format, rest)) = args.split_first() else {
        return String::new();
    };
    let mut rest = rest.iter();
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().copied()) {
            ('\\', Some('n')) => {
                chars.next();
                out.push('\n');
            }
            ('\\', Some('t')) => {
                chars.next();
                out.push('\t');
            }
            ('\\', Some('\\')) => {
                chars.next();
                out.push('\\');
            }
            ('%', Some('%')) => {
                chars.next();
                out.push('%');
            }
            ('%', Some(_)) => {
                // Skip flags and width up to the conversion letter.
                for next in chars.by_ref() {
                    if next.is_ascii_alphabetic() {
                        break;
                    }
                }
                if let Some(arg) = rest.next() {
                    out.push_str(arg);
                }
            }
            _ => out.push(c),
        }
    }
    for arg in rest {
        out.push(' ');
        out.push_str(arg);
    }
    out
}

/// What `env` puts before the command it runs.
struct EnvPrefix {
    /// The index of the first command word in `env`'s arguments.
    start: usize,
    /// The `NAME=value` assignments.
    env: Vec<(String, String)>,
    /// The words of a `-S`/`--split-string` string, which come first.
    split: Vec<String>,
}

/// `env`'s options; `None` when env only prints or fails (`--help`,
/// `--version`).
fn env_options(args: &[String]) -> Option<EnvPrefix> {
    let mut env = Vec::new();
    let mut split = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            break;
        }
        if arg == "--help" || arg == "--version" {
            return None;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            if matches!(name, "unset" | "chdir" | "split-string") {
                let value = if let Some(v) = value {
                    v
                } else {
                    i += 1;
                    args.get(i - 1).cloned().unwrap_or_default()
                };
                if name == "split-string" {
                    split = shell_words::split(&value).unwrap_or_default();
                    return Some(EnvPrefix {
                        start: i,
                        env,
                        split,
                    });
                }
            }
            continue;
        }
        if let Some(letters) = arg.strip_prefix('-') {
            if letters.is_empty() {
                continue;
            }
            for (at, c) in letters.char_indices() {
                if matches!(c, 'u' | 'C' | 'S' | 'P') {
                    let rest = &letters[at + c.len_utf8()..];
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).cloned().unwrap_or_default()
                    } else {
                        rest.to_owned()
                    };
                    if c == 'S' {
                        split = shell_words::split(&value).unwrap_or_default();
                        return Some(EnvPrefix {
                            start: i,
                            env,
                            split,
                        });
                    }
                    break;
                }
            }
            continue;
        }
        if let Some(pair) = assignment(arg) {
            env.push(pair);
            continue;
        }
        return Some(EnvPrefix {
            start: i - 1,
            env,
            split,
        });
    }
    Some(EnvPrefix {
        start: args.len(),
        env,
        split,
    })
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
            i += if !name.contains('=') && long.contains(&name) {
                2
            } else {
                1
            };
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
fn wrapped_command(program: &str, args: &[String]) -> Option<usize> {
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
        "xargs" => skip_options(
            args,
            "adEILnPs",
            &[
                "arg-file",
                "delimiter",
                "max-args",
                "max-procs",
                "max-chars",
                "process-slot-var",
            ],
        ),
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
    use super::*;

    fn no_aliases(_: &str) -> Option<String> {
        None
    }

    fn argvs(cmd: &str) -> Vec<String> {
        parse(cmd, &no_aliases)
            .commands
            .into_iter()
            .map(|c| c.argv.join(" "))
            .collect()
    }

    #[test]
    fn lists_and_pipelines_are_split() {
        assert_eq!(
            argvs("cd src && cargo test || echo fail; ls | wc -l & sleep 1\nmake"),
            [
                "cd src",
                "cargo test",
                "echo fail",
                "ls",
                "wc -l",
                "sleep 1",
                "make"
            ]
        );
    }

    #[test]
    fn data_is_not_a_command() {
        assert_eq!(
            argvs(r#"echo "git reset --hard"; git commit -m "rm -rf /""#),
            ["echo git reset --hard", "git commit -m rm -rf /"]
        );
    }

    #[test]
    fn substitutions_and_shells_are_parsed() {
        assert_eq!(
            argvs(r"echo $(git rev-parse HEAD) && bash -c 'git push -f origin main'"),
            [
                "git rev-parse HEAD",
                "echo $(git rev-parse HEAD)",
                "git push -f origin main",
                "bash -c git push -f origin main"
            ]
        );
    }

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

    #[test]
    fn heredoc_to_a_shell_is_a_script_and_to_cat_is_data() {
        assert_eq!(
            argvs("bash <<'EOF'\ngit reset --hard\nEOF\ncat <<EOF\nrm -rf /\nEOF"),
            ["git reset --hard", "bash", "cat"]
        );
    }

    #[test]
    fn nesting_is_bounded() {
        let mut cmd = "ls".to_owned();
        for _ in 0..6 {
            cmd = format!("sh -c {}", shell_words::quote(&cmd));
        }
        let parsed = parse(&cmd, &no_aliases);
        assert!(
            parsed
                .problems
                .contains(&ParseProblem::TooDeep { max: MAX_DEPTH }),
            "{parsed:?}"
        );
    }

    #[test]
    fn cd_is_tracked_for_later_commands() {
        let parsed = parse(
            "cd /repo && (cd sub; git status) && git -C x log",
            &no_aliases,
        );
        let dirs: Vec<Option<PathBuf>> = parsed
            .commands
            .iter()
            .map(SimpleCommand::working_dir)
            .collect();
        assert_eq!(
            dirs,
            [
                None,
                Some("/repo".into()),
                Some("/repo/sub".into()),
                Some("/repo/x".into())
            ]
        );
    }

    #[test]
    fn piped_echo_feeds_a_shell() {
        assert_eq!(
            argvs("echo 'rm -rf /' | sh"),
            ["echo rm -rf /", "rm -rf /", "sh"]
        );
        let parsed = parse("curl -s https://x | bash", &no_aliases);
        assert_eq!(
            parsed.problems,
            [ParseProblem::OpaqueScript {
                shell: "bash".to_owned()
            }]
        );
    }

    #[test]
    fn case_patterns_and_for_headers_are_not_commands() {
        assert_eq!(
            argvs("for f in a b; do rm $f; done; case $x in a|b) ls ;; *) pwd ;; esac"),
            ["rm $f", "ls", "pwd"]
        );
    }

    #[test]
    fn find_exec_runs_a_command() {
        assert_eq!(
            argvs(r"find . -name x -exec rm -rf {} \;"),
            ["rm -rf {}", "find . -name x -exec rm -rf {} ;"]
        );
    }
}
