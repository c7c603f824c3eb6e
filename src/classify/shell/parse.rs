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
//! - `$(...)`, backquotes and `<(...)` run too (inside `$((...))` and
//!   `${...}` as well), so their bodies are parsed
//!   recursively, as are `sh -c`/`bash -c`/`zsh -c`/`dash -c` scripts, `eval`
//!   arguments, `find -exec` commands, heredoc or here-string bodies fed to
//!   a shell, `echo ... | sh`, and git `!` aliases. Nesting is bounded by
//!   [`MAX_DEPTH`]; past it, a [`ParseProblem::TooDeep`] is reported;
//! - leading `VAR=value` words are assignments, not argv; redirections are
//!   not argv either (output targets and stdin data are kept separately);
//! - a function defined in the line is judged where it is defined and, at
//!   each call, again with the call's arguments as `$1`/`"$@"` (`set --`
//!   sets them too);
//! - wrappers that run another command are peeled off and remembered in
//!   [`SimpleCommand::wrappers`]: `env`, `sudo`, `doas`, `xargs`, `timeout`,
//!   `nice`, `nohup`, `command`, `exec`, `time`, `builtin`, `stdbuf`,
//!   `ionice`, `setsid`, `busybox`, `npx`, `bunx`, `pnpx`, `uvx`, and the
//!   two-word `bundle exec`, `poetry run`, `pipenv run`, `uv run`,
//!   `pnpm exec`, `pnpm dlx`, `yarn dlx`;
//! - `git` has its global options (`-C`, `-c`, `--git-dir`, ...) and `GIT_DIR`
//!   style assignments moved into [`GitCall`], so `argv[1]` is always the
//!   subcommand, and aliases are expanded through the caller's lookup;
//! - git by other names is git: a path, a dashed program (`git-push`,
//!   `$(git --exec-path)/git-reset`), `` `which git` ``, `$(command -v git)`,
//!   words joined by `$IFS`; glued option values are split as git splits
//!   them (`-bfeature`), `--help`/`-h` makes any git command `git help`, and
//!   settings that change a plain command are written out
//!   (`clean.requireForce=false`, `remote.<name>.mirror`/`push`), including
//!   those written by `git config` earlier in the line;
//! - settings and variables git runs as commands (`diff.external`,
//!   `core.pager`, `GIT_SSH_COMMAND`, ...) are parsed as scripts, as are
//!   `trap` actions, `script -c`, `watch`, `ssh host CMD`, `flock -c`,
//!   `parallel`, functions and shell aliases defined in the line, and the
//!   commands interpreters run (`python -c`, `perl -e`, `node -e`, `awk`
//!   `system()`);
//! - a script run by path or through a shell or `source` is judged by its
//!   content: written earlier in the line (`cat > x.sh <<EOF`), or read
//!   through the caller's [`ScriptReader`]; so are the recipes task
//!   runners run (`make`, `npm run`, `yarn`, `pnpm`, `bun`, `just`,
//!   `task`), and a file the line fetches or generates before running it
//!   is a [`ParseProblem::FreshScript`] (issue 37 item 2);
//! - code fed to an interpreter on stdin (`python3 - <<EOF`, `node
//!   <<<'...'`, `echo ... | perl`) is read as its `-c` code is;
//! - `find`'s own filters (`-name`, `-path`, `-maxdepth 0`) bound what its
//!   `{}`, its `-delete` and its output name; a `for` loop's variable and
//!   `read`'s from a pipe stand for every name they take;
//! - what cannot be seen (a program named at run time, a decoded string,
//!   `<(...)` run as a script, code that builds its command) is a
//!   [`ParseProblem`]; a program named at run time may also be a wrapper,
//!   so the command after it is read too (`$SUDO git clean -fdx`), and
//!   arguments read from a file (`xargs -a FILE`, `parallel :::: FILE`)
//!   are unknown, unless the line wrote the file.
//!
//! Everything the walker reads, expands or re-reads (nesting, function
//! calls, `"$@"`, variables) is paid from one budget proportional to the
//! line, so the work stays linear in the line, whatever its shape.
//!
//! Data is not a command: only the first word after assignments and
//! wrappers is a program; quoted strings passed as arguments
//! (`echo "git reset --hard"`, `git commit -m "rm -rf /"`) stay arguments.
//!
//! The walker is here (a line's lists, pipelines, functions and nesting);
//! one segment's words, assignments and redirections are read in
//! `parse/segment.rs`, and the simple command they make is normalized in
//! `parse/command.rs`. What it knows of particular programs is in the
//! other files of `parse/`: `git_args.rs` (a git command as git reads it),
//! `wrappers.rs` (programs that run another command), `interpreters.rs`
//! (what shells and other interpreters run) and `printf.rs` (what `echo`
//! and `printf` write).

mod command;
mod find;
mod git_args;
mod interpreters;
mod printf;
mod runners;
mod segment;
mod wrappers;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

use super::lex::{self, LexError, Op, Token, Word};
pub use git_args::GitCall;

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
    /// True for a command of a function body read where the function is
    /// defined: it runs only when the function is called, where the body
    /// is read again, so it changes nothing for the commands after it.
    pub in_definition: bool,
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
    /// The line makes the walker read more than its budget (nesting that
    /// re-reads the same text over and over).
    #[error("the command is too intricate to read within vouch's budget")]
    TooComplex,
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
    /// What runs is only known at run time: a program named by a
    /// substitution or an unknown variable (`$(echo Z2l0 | base64 -d)`,
    /// `$CMD`), a script from `<(...)`.
    #[error("`{what}` is only known when it runs")]
    RunTime {
        /// The word, as written.
        what: String,
    },
    /// An interpreter runs code that runs commands vouch cannot read
    /// (`python3 -c "os.system(cmd)"`, a decoded string).
    #[error("`{program}` runs commands built by its code, which vouch cannot read")]
    OpaqueCode {
        /// The interpreter.
        program: String,
    },
    /// A file the line writes with content only known when it runs
    /// (`curl -o Makefile ...`, `python3 gen.py > x.sh`), then runs as a
    /// script or a task file: the agent's own fresh creation, judged as the
    /// most dangerous command it could hold (critical, issue 37 item 2).
    #[error(
        "`{path}` is written on this line with content only known when it runs, then run: judged as the most dangerous command it could hold"
    )]
    FreshScript {
        /// The path, as written.
        path: String,
    },
    /// A script file that is run could not be read.
    #[error("cannot read the script `{path}` that is run: {why}")]
    Unreadable {
        /// The path, as written.
        path: String,
        /// Why.
        why: String,
    },
}

impl ParseProblem {
    /// The tier a command line with this problem is at least: high (what
    /// vouch cannot read, it cannot clear), critical for a fresh script
    /// whose content is unknown.
    pub fn tier(&self) -> crate::classify::vocab::Tier {
        match self {
            Self::FreshScript { .. } => crate::classify::vocab::Tier::Critical,
            _ => crate::classify::vocab::Tier::High,
        }
    }
}

/// Reads a script file that the command line runs (`sh scripts/x.sh`,
/// `./x.sh`, `source env.sh`): given the path as written and the `cd`
/// targets before it, `Ok(Some(text))` is the script, `Ok(None)` means
/// there is nothing to judge (no such file, a binary), `Err(why)` that it
/// exists but cannot be read (too large, no permission).
pub type ScriptReader<'a> = &'a dyn Fn(&str, &[String]) -> Result<Option<String>, String>;

/// The reader that reads nothing (pure callers, tests).
pub fn no_scripts(_: &str, _: &[String]) -> Result<Option<String>, String> {
    Ok(None)
}

/// The simple commands of a command line, with any problems met.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Every command that would run, in order (substitutions first).
    pub commands: Vec<SimpleCommand>,
    /// What could not be read.
    pub problems: Vec<ParseProblem>,
    /// Bytes of script text the walker read, nesting included: bounded by
    /// the line's length times 64, plus 8 MiB for the scripts it runs.
    pub read: usize,
}

/// Parses `cmd` as bash would split it. `aliases` looks up a git alias by
/// name (`alias.<name>` from git config) and is only asked for names that are
/// not git built-ins (git ignores aliases that shadow them).
pub fn parse(cmd: &str, aliases: &dyn Fn(&str) -> Option<String>) -> Parsed {
    parse_with(cmd, aliases, &no_scripts)
}

/// [`parse`], with `scripts` reading the script files the line runs.
pub fn parse_with(
    cmd: &str,
    aliases: &dyn Fn(&str) -> Option<String>,
    scripts: ScriptReader<'_>,
) -> Parsed {
    crate::platform::counts::add(crate::platform::counts::Count::ShellParse);
    let budget = BUDGET_PER_BYTE * cmd.len() + BUDGET_BASE;
    let mut parser = Parser::new(aliases, scripts, budget);
    parser.script(cmd, 0, &[]);
    parser.out.read = budget - parser.budget;
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
    scripts: ScriptReader<'a>,
    /// Files written earlier in the line with known content (`cat > x.sh
    /// <<EOF`), so a script written and run in one line is judged by it.
    /// Keyed by the path without a leading `./`; the last write wins.
    written: HashMap<String, String>,
    /// Files written earlier in the line with content only known when it
    /// runs (`curl -o Makefile`, `python3 gen.py > x.sh`): run as a script
    /// or a task file, they are the agent's fresh creation.
    written_unknown: HashSet<String>,
    /// Shell aliases defined earlier in the line (`alias g=git`).
    shell_aliases: Vec<(String, String)>,
    /// Git settings written earlier in the line (`git config alias.x ...`),
    /// which the later git commands read.
    git_config: Vec<(String, String)>,
    out: Parsed,
    /// Shell variables assigned earlier in the command line (`X=...` alone
    /// or through `export`), so `CMD="git reset --hard"; $CMD` is read.
    vars: Vec<(String, String)>,
    /// Variables that take each of several names in turn: a `for` loop's
    /// (`for f in .git/refs/heads/*`) and `read`'s from a pipe (`find ... |
    /// while read f`); a word that reads one stands for all of them, and
    /// `true` marks names only known when the line runs (issue 37 item 1).
    lists: HashMap<String, (Vec<String>, bool)>,
    /// Bytes of script text still to be read ([`BUDGET_PER_BYTE`]).
    budget: usize,
    /// Shell functions defined earlier in the line, with their bodies'
    /// text, so a call is judged by what the body runs with its arguments.
    functions: HashMap<String, Rc<str>>,
    /// The positional parameters (`$1`, `"$@"`) when known: a function's
    /// arguments while its body is read for a call, or `set -- ...`.
    positional: Option<Positional>,
    /// Bytes of function bodies calls may still re-read: a 32nd of the
    /// budget.
    calls_left: usize,
}

/// How much script text one command line may make the walker read, in
/// bytes per byte of the line, plus [`BUDGET_BASE`] for the scripts it runs.
/// Nesting re-reads text (each `$(...)` is read at its own level), within
/// [`MAX_DEPTH`] levels; a line that needs more is judged as one vouch
/// cannot read ([`ParseProblem::TooComplex`]).
const BUDGET_PER_BYTE: usize = 64;

/// Script text any line may bring in besides its own (script files it
/// runs, known up to 1 MiB each).
const BUDGET_BASE: usize = 8 << 20;

/// What one word made by an expansion (`"$@"`, `$var`) costs from the
/// budget besides its bytes: its place in memory.
const WORD_COST: usize = 32;

/// The positional parameters, with what expanding all of them costs.
#[derive(Debug, Clone)]
struct Positional {
    args: Vec<String>,
    /// Their bytes plus [`WORD_COST`] each.
    size: usize,
}

impl Positional {
    fn new(args: Vec<String>) -> Self {
        let size = args.iter().map(|a| a.len() + WORD_COST).sum();
        Self { args, size }
    }
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

impl<'a> Parser<'a> {
    /// A walker that has read nothing yet, with `budget` bytes to read.
    fn new(
        aliases: &'a dyn Fn(&str) -> Option<String>,
        scripts: ScriptReader<'a>,
        budget: usize,
    ) -> Self {
        Self {
            aliases,
            scripts,
            out: Parsed::default(),
            vars: Vec::new(),
            lists: HashMap::new(),
            written: HashMap::new(),
            written_unknown: HashSet::new(),
            shell_aliases: Vec::new(),
            git_config: Vec::new(),
            budget,
            functions: HashMap::new(),
            positional: None,
            calls_left: budget / 32,
        }
    }

    fn problem(&mut self, problem: ParseProblem) {
        if !self.out.problems.contains(&problem) {
            self.out.problems.push(problem);
        }
    }

    /// Takes `bytes` from the budget; false (and the line is too complex
    /// to read) when it does not hold them.
    fn pay(&mut self, bytes: usize) -> bool {
        if let Some(left) = self.budget.checked_sub(bytes) {
            self.budget = left;
            return true;
        }
        self.budget = 0;
        self.problem(ParseProblem::TooComplex);
        false
    }

    /// The commands of `text` read on their own, one level below `depth`,
    /// out of the same budget; what they meet is not this line's problem
    /// (the caller walks `text` itself too).
    fn nested(&mut self, text: &str, depth: usize) -> Parsed {
        let mut inner = Parser::new(self.aliases, &no_scripts, self.budget);
        inner.script(text, depth + 1, &[]);
        self.budget = inner.budget;
        inner.out
    }

    /// Parses a whole script at `depth`, with `cd` targets inherited from
    /// the enclosing command line.
    fn script(&mut self, text: &str, depth: usize, cd: &[String]) {
        if depth > MAX_DEPTH {
            self.problem(ParseProblem::TooDeep { max: MAX_DEPTH });
            return;
        }
        // Every script read, however it nests, is paid from one budget:
        // the work is bounded by the line's length, whatever its shape.
        let Some(left) = self.budget.checked_sub(text.len() + 1) else {
            self.budget = 0;
            self.problem(ParseProblem::TooComplex);
            return;
        };
        self.budget = left;
        let (tokens, starts, errors) = lex::lex_with_starts(text);
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
        // The name of a function whose `name()` was just read: its body
        // comes next.
        let mut defining: Option<String> = None;
        // Where the bodies being read close, with the positional
        // parameters outside them.
        let mut bodies: Vec<(usize, Option<Positional>, usize)> = Vec::new();
        let mut tokens = tokens.into_iter().zip(starts).peekable();
        while let Some((token, start)) = tokens.next() {
            let brace = matches!(&token, Token::Word(w) if !w.quoted && w.text == "{");
            let body_opens = brace || token == Token::Op(Op::LParen);
            // `function name { ...; }` has no parentheses.
            let keyword_name = if brace {
                defined_name(&segment.words, true)
            } else {
                None
            };
            // `f()` and its body on the next line wait for it.
            if token != Token::Op(Op::Newline) {
                let named = if body_opens { defining.take() } else { None };
                defining = None;
                if let Some(name) = keyword_name.or(named)
                    && let Some(close) = self.define(name, text, start)
                {
                    // The body as written runs only when called, with the
                    // arguments of the call (judged then): read here, its
                    // `$1` and `"$@"` are empty.
                    let outer = self.positional.replace(Positional::new(Vec::new()));
                    bodies.push((close, outer, self.out.commands.len()));
                }
            }
            while let Some((close, _, _)) = bodies.last()
                && *close < start
            {
                let (_, outer, first) = bodies.pop().expect("just seen");
                self.positional = outer;
                self.defined_only(first);
            }
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
                && tokens.peek().map(|(t, _)| t) == Some(&Token::Op(Op::RParen))
                && let Some(name) = defined_name(&segment.words, false)
            {
                tokens.next();
                defining = Some(name);
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
        if let Some((_, outer, first)) = bodies.into_iter().next() {
            self.positional = outer;
            self.defined_only(first);
        }
        if !parens.is_empty() {
            self.problem(ParseProblem::UnbalancedParens);
        }
    }

    /// Remembers the function `name` whose body opens at byte `open` of
    /// `text` (`{` or `(`), and returns where the body closes. Reading the
    /// body's extent is paid from the budget, so definitions nested in
    /// definitions stay linear.
    fn define(&mut self, name: String, text: &str, open: usize) -> Option<usize> {
        if self.budget == 0 {
            return None;
        }
        let body = lex::enclosed(text, open)?;
        if !self.pay(body.len()) {
            return None;
        }
        let close = open + 1 + body.len();
        self.functions.insert(name, body.into());
        Some(close)
    }

    /// Marks the commands from index `first` on as read in a function's
    /// definition (see [`SimpleCommand::in_definition`]).
    fn defined_only(&mut self, first: usize) {
        for command in self.out.commands.get_mut(first..).unwrap_or_default() {
            command.in_definition = true;
        }
    }

    /// Reads a `for NAME in WORDS` header: `$NAME` stands for every word,
    /// a `$(find ...)` for the names the find can reach.
    fn loop_header(&mut self, words: &[Word], depth: usize) {
        let [_, name, rest @ ..] = words else {
            return;
        };
        let values = match rest {
            [keyword, values @ ..] if !keyword.quoted && keyword.text == "in" => values,
            _ => return,
        };
        let mut names = Vec::new();
        let mut unknown = false;
        for word in values {
            if !matches!(word.text.as_str(), "do" | ";") && word.subs.is_empty() {
                names.push(word.text.clone());
                continue;
            }
            let [body] = &word.subs[..] else {
                continue;
            };
            let parsed = self.nested(body, depth);
            match &parsed.commands[..] {
                [only] if only.program() == "find" => {
                    let reach = find::reach(&only.argv[1..]);
                    if reach.unknown {
                        // Any file under its start paths: the repository's
                        // among them, for what writes to `$f`.
                        unknown = true;
                        for start in &reach.starts {
                            names.push(format!("{}/.git/*", start.trim_end_matches('/')));
                        }
                    }
                    names.extend(reach.words);
                }
                // Names only known when it runs: the word as written, as
                // a command's own `$(...)` argument is.
                _ => names.push(word.text.clone()),
            }
        }
        self.lists.insert(name.text.clone(), (names, unknown));
    }

    /// `read NAME...` with `stdin`: the first name takes every line of
    /// known data (a pipe vouch cannot read leaves it as written, `$f`).
    fn read_names(&mut self, args: &[String], stdin: &Stdin) {
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            if !arg.starts_with('-') {
                break;
            }
            i += if matches!(
                arg.as_str(),
                "-a" | "-d" | "-p" | "-n" | "-N" | "-t" | "-u" | "-i"
            ) {
                2
            } else {
                1
            };
        }
        let Some(name) = args.get(i) else {
            return;
        };
        if let Stdin::Data(data) = stdin {
            let names = data.lines().map(str::to_owned).collect();
            self.lists.insert(name.clone(), (names, false));
        }
    }

    /// The text written earlier in the line to `path` (`cat > x <<EOF`,
    /// `printf ... > x`), when known.
    fn written_text(&self, path: &str) -> Option<String> {
        self.written.get(path.trim_start_matches("./")).cloned()
    }

    /// Reads the body of a function the line defined, for a call with
    /// `args` (`None`: only known when it runs), one level deeper: what
    /// the body runs with its `$1` and `"$@"` set is judged as any
    /// command (issue 26 item 10). The body was judged as written where it
    /// was defined, too.
    fn call_function(
        &mut self,
        body: &str,
        args: Option<Vec<String>>,
        depth: usize,
        cd: &[String],
    ) {
        // Calls re-read their bodies: at most twice the line's length in
        // all (and what any line may bring), or each call would multiply
        // the commands to judge.
        let Some(left) = self.calls_left.checked_sub(body.len()) else {
            self.problem(ParseProblem::TooComplex);
            return;
        };
        self.calls_left = left;
        let saved = std::mem::replace(&mut self.positional, args.map(Positional::new));
        self.script(body, depth + 1, cd);
        self.positional = saved;
    }

    /// The words a command's first word stands for when the shell builds it
    /// at run time: `$(git --exec-path)/git-push` is `git-push`,
    /// `` `which git` `` and `$(command -v git)` are `git`. A program vouch
    /// cannot name (`$(echo Z2l0 | base64 -d)`, `$CMD`) is a problem.
    fn program_word(&mut self, word: &Word, depth: usize) -> Option<Vec<String>> {
        let text = &word.text;
        let dynamic = !word.subs.is_empty() || text.contains('$');
        if !dynamic {
            return None;
        }
        // A fixed name after the last `/`: the directory is what varies.
        let base = basename(text);
        if !base.is_empty() && !base.contains(['$', '`', '(', ')', '{', '}']) {
            return Some(vec![base.to_owned()]);
        }
        if let [body] = &word.subs[..] {
            let whole = text == &format!("$({body})") || text == &format!("`{body}`");
            if whole {
                // Read at the next depth, as the substitution itself is:
                // a fresh parse here doubled the work at every level.
                let parsed = self.nested(body, depth);
                if let [only] = &parsed.commands[..] {
                    let args: Vec<&str> = only.argv.iter().map(String::as_str).collect();
                    let name = match args[..] {
                        ["which" | "whereis", .., name] | ["echo" | "printf", name] => Some(name),
                        ["command" | "type", flag, name] if flag.starts_with('-') => Some(name),
                        _ => None,
                    };
                    // Tools that print shell settings for `eval` (`ssh-agent -s`).
                    if ENV_PRINTERS.contains(&only.program()) {
                        return None;
                    }
                    if let Some(name) = name
                        && !name.contains(['$', '`'])
                    {
                        return Some(
                            shell_words::split(name)
                                .unwrap_or_else(|_| vec![name.to_owned()])
                                .into_iter()
                                .map(|w| {
                                    if w.contains('/') {
                                        basename(&w).to_owned()
                                    } else {
                                        w
                                    }
                                })
                                .collect(),
                        );
                    }
                }
            }
        }
        self.problem(ParseProblem::RunTime { what: text.clone() });
        None
    }

    /// Runs a script file: written earlier in the line, or read through
    /// the reader; `forced` is true when a shell is told to run it.
    fn script_file(&mut self, path: &str, depth: usize, cd: &[String]) {
        if path.contains("<(") {
            self.problem(ParseProblem::RunTime {
                what: path.to_owned(),
            });
            return;
        }
        if let Some(text) = self.written_text(path) {
            self.script(&text, depth + 1, cd);
            return;
        }
        if self.written_unknown.contains(path.trim_start_matches("./")) {
            self.problem(ParseProblem::FreshScript {
                path: path.to_owned(),
            });
            return;
        }
        match (self.scripts)(path, cd) {
            Ok(Some(text)) => self.script(&text, depth + 1, cd),
            Ok(None) => {}
            Err(why) => self.problem(ParseProblem::Unreadable {
                path: path.to_owned(),
                why,
            }),
        }
    }
}

/// Tools whose output is shell settings meant for `eval "$(...)"`.
const ENV_PRINTERS: &[&str] = &[
    "ssh-agent",
    "direnv",
    "rbenv",
    "pyenv",
    "nodenv",
    "goenv",
    "jenv",
    "conda",
    "brew",
    "fnm",
    "starship",
    "zoxide",
    "opam",
    "keychain",
    "mise",
    "rtx",
    "dircolors",
    "gpg-agent",
    "thefuck",
    "atuin",
    "register-python-argcomplete",
    "luarocks",
    "asdf",
];

/// True when a command's arguments are appended at run time from data
/// vouch cannot read (`cat list | xargs git branch -D`, `xargs -a FILE`).
pub(crate) fn args_unknown(command: &SimpleCommand) -> bool {
    command.args_from_stdin && command.stdin.is_none()
}

/// The part of a path after the last `/`.
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The name a function definition gives when `words` end with one:
/// `name` (before `()`; not when `keyword_only`) or `function name`
/// (before `()` or `{`), where a command starts, alone or after a
/// reserved word (`{ f() { ...; }; }`, `then f() ...`). Looks at the last
/// three words only, so a long segment costs nothing more.
fn defined_name(words: &[Word], keyword_only: bool) -> Option<String> {
    let starts = |before: &[Word]| {
        before
            .last()
            .is_none_or(|w| !w.quoted && RESERVED_SKIP.contains(&w.text.as_str()))
    };
    match words {
        [before @ .., keyword, name]
            if !keyword.quoted && keyword.text == "function" && starts(before) =>
        {
            Some(name.text.clone())
        }
        [before @ .., name] if !keyword_only && starts(before) => Some(name.text.clone()),
        _ => None,
    }
}

/// The words `word` stands for when it reads the positional parameters
/// `args` (`$1`, `${2}`, `"$@"`, `$*`, `--ref=$1`), split as bash splits
/// them; `None` when it reads none.
fn positional_words(word: &Word, args: &[String]) -> Option<Vec<String>> {
    let text = word.text.as_str();
    if !text.contains('$') {
        return None;
    }
    let each = match text {
        "$@" | "${@}" => Some(true),
        "$*" | "${*}" => Some(false),
        _ => None,
    };
    if let Some(each) = each {
        return Some(match (word.quoted, each) {
            (true, true) => args.to_vec(),
            (true, false) => vec![args.join(" ")],
            (false, _) => args
                .iter()
                .flat_map(|a| a.split_whitespace())
                .map(str::to_owned)
                .collect(),
        });
    }
    let mut out = String::new();
    let mut found = false;
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, len) = match after.strip_prefix('{') {
            Some(inner) => inner
                .find('}')
                .map_or(("", 0), |end| (&inner[..end], end + 2)),
            None => (after.get(..1).unwrap_or_default(), 1),
        };
        let value = match name {
            "@" | "*" => Some(args.join(" ")),
            n if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && n != "0" => Some(
                n.parse::<usize>()
                    .ok()
                    .and_then(|i| i.checked_sub(1))
                    .and_then(|i| args.get(i))
                    .cloned()
                    .unwrap_or_default(),
            ),
            _ => None,
        };
        if let Some(value) = value {
            out.push_str(&value);
            found = true;
            rest = &after[len..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    found.then(|| {
        if word.quoted {
            vec![out]
        } else {
            out.split_whitespace().map(str::to_owned).collect()
        }
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn no_aliases(_: &str) -> Option<String> {
        None
    }

    pub(super) fn argvs(cmd: &str) -> Vec<String> {
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
            ["rm a b", "ls", "pwd"]
        );
    }
}
