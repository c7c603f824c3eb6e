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
//!   through the caller's [`ScriptReader`];
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

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::rc::Rc;

use super::lex::{self, LexError, Op, RedirectKind, Token, Word};
use crate::input::hooks::GitGlobals;

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
    /// A script file that is run could not be read.
    #[error("cannot read the script `{path}` that is run: {why}")]
    Unreadable {
        /// The path, as written.
        path: String,
        /// Why.
        why: String,
    },
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
    /// Shell aliases defined earlier in the line (`alias g=git`).
    shell_aliases: Vec<(String, String)>,
    /// Git settings written earlier in the line (`git config alias.x ...`),
    /// which the later git commands read.
    git_config: Vec<(String, String)>,
    out: Parsed,
    /// Shell variables assigned earlier in the command line (`X=...` alone
    /// or through `export`), so `CMD="git reset --hard"; $CMD` is read.
    vars: Vec<(String, String)>,
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
            written: HashMap::new(),
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
        match (self.scripts)(path, cd) {
            Ok(Some(text)) => self.script(&text, depth + 1, cd),
            Ok(None) => {}
            Err(why) => self.problem(ParseProblem::Unreadable {
                path: path.to_owned(),
                why,
            }),
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
                "for" | "select" => return None,
                // `coproc CMD`, `coproc NAME { ...; }`: the command runs.
                "coproc" => {
                    words = &words[1..];
                    if let [_, brace, ..] = words
                        && !brace.quoted
                        && brace.text == "{"
                    {
                        words = &words[2..];
                    }
                }
                // `function name { ...; }`: the body's words follow.
                "function" => words = words.get(2..).unwrap_or_default(),
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
        for (index, word) in rest.iter().enumerate() {
            // What a word expands to is paid from the budget, each word
            // it makes at its size in memory: `"$@"` or a variable read
            // many times stays linear in the line.
            let size = match &self.positional {
                Some(p) if word.text.contains('$') => {
                    p.size.saturating_mul(word.text.matches('$').count())
                }
                _ => 0,
            };
            if size > 0 && !self.pay(size) {
                command.argv.push(word.text.clone());
                continue;
            }
            if let Some(p) = &self.positional
                && let Some(words) = positional_words(word, &p.args)
            {
                command.argv.extend(words);
                continue;
            }
            let value = variable_name(&word.text)
                .and_then(|name| self.vars.iter().rev().find(|(n, _)| n == name))
                .map(|(_, v)| v.clone());
            let size = value.as_ref().map_or(0, |v| {
                v.len() + WORD_COST * v.split_whitespace().count().max(1)
            });
            if size > 0 && !self.pay(size) {
                command.argv.push(word.text.clone());
                continue;
            }
            match value {
                // Unquoted, the value is split into words; quoted, it stays one.
                Some(value) if !word.quoted => command
                    .argv
                    .extend(value.split_whitespace().map(str::to_owned)),
                Some(value) => command.argv.push(value),
                // `git${IFS}reset${IFS}--hard`: the shell splits on `$IFS`.
                None if !word.quoted
                    && (word.text.contains("${IFS}") || word.text.contains("$IFS")) =>
                {
                    let text = word.text.replace("${IFS}", " ").replace("$IFS", " ");
                    command
                        .argv
                        .extend(text.split_whitespace().map(str::to_owned));
                }
                None if index == 0 => match self.program_word(word, depth) {
                    Some(words) => command.argv.extend(words),
                    None => command.argv.push(word.text.clone()),
                },
                None => command.argv.push(word.text.clone()),
            }
        }
        let declares = matches!(
            command.argv.first().map(String::as_str),
            Some("export" | "declare" | "typeset" | "local" | "readonly")
        );
        if declares {
            let assigned: Vec<(String, String)> = command.argv[1..]
                .iter()
                .filter_map(|a| assignment(a))
                .collect();
            self.vars.extend(assigned);
        }
        // An array subscript in a variable's value runs its substitutions
        // when the variable is read as a number (`x='a[$(...)]'; echo
        // $((x))`): judged where the value is written, quoted or not.
        for word in words.iter().filter(|w| w.subs.is_empty()) {
            if let Some((_, value)) = assignment(&word.text)
                && (declares || command.argv.is_empty() || command.argv[0] == "let")
                && value.contains('[')
            {
                for sub in lex::substitutions_in(&value) {
                    self.script(&sub, depth + 1, cd);
                }
            }
        }
        // `set -- a b`: the positional parameters `"$@"` reads later.
        if command.argv.first().is_some_and(|p| p == "set") {
            let args = &command.argv[1..];
            let start = args
                .iter()
                .position(|a| a == "--")
                .map(|at| at + 1)
                .or_else(|| {
                    args.first()
                        .filter(|a| !a.starts_with(['-', '+']))
                        .map(|_| 0)
                });
            if let Some(start) = start {
                self.positional = Some(Positional::new(args[start..].to_vec()));
            }
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
        let outputs = command.outputs.clone();
        let tee_files: Vec<String> = if program == "tee" {
            command.argv[1..]
                .iter()
                .filter(|a| !a.starts_with('-'))
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        if program == "alias" {
            for arg in &command.argv[1..] {
                if let Some((name, value)) = arg.split_once('=') {
                    self.shell_aliases.push((name.to_owned(), value.to_owned()));
                }
            }
        }
        let known = match &stdin {
            Stdin::Data(data) if program == "tee" => Some(data.clone()),
            _ => None,
        };
        let output = self.command(command, depth, &stdin);
        if let Some(text) = output.clone().or(known) {
            for file in outputs.iter().chain(&tee_files) {
                self.written
                    .insert(file.trim_start_matches("./").to_owned(), text.clone());
            }
        }
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
                "git" => {
                    if self.git(&mut command, depth, &mut alias_count) {
                        continue;
                    }
                    return None;
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
        } else if let Some(file) = args.get(i) {
            let file = file.clone();
            self.script_file(&file, depth, &command.cd);
        } else {
            match stdin {
                Stdin::Data(data) => self.script(data, depth + 1, &command.cd),
                Stdin::Unknown => self.problem(ParseProblem::OpaqueScript {
                    shell: command.program().to_owned(),
                }),
                Stdin::Inherited => {}
            }
        }
    }

    /// Programs that run another command given in their arguments, beyond
    /// the plain wrappers: `parallel`, `script -c`, `flock`, `watch`, `ssh
    /// host CMD`. Returns where the wrapped command starts in argv, or
    /// `Done` when the command's scripts were parsed here.
    fn runner(
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

    /// Judges the code an interpreter runs: the strings it passes to a
    /// shell (`os.system("git reset --hard")`, `` `git push -f` ``, a list
    /// of words), the files it deletes (`shutil.rmtree(".git")`). Code that
    /// runs commands vouch cannot read is a problem.
    fn code(&mut self, program: &str, code: &str, command: &SimpleCommand, depth: usize) {
        let lower = code.to_ascii_lowercase();
        let runs = RUNS_COMMANDS.iter().any(|m| lower.contains(m))
            || (program.starts_with("awk") || program.ends_with("awk")) && lower.contains("system")
            || lower.contains('`')
            || lower.contains("qx");
        let literals = string_literals(code);
        let cd = command.cd.clone();
        if runs {
            let decoded = DECODES.iter().any(|m| lower.contains(m));
            let mut any = false;
            let mut lists = literal_lists(code);
            lists.dedup();
            let mut seen = Vec::new();
            lists.retain(|l| {
                let fresh = !seen.contains(l);
                seen.push(l.clone());
                fresh
            });
            for list in &lists {
                any = true;
                self.script(&shell_words::join(list), depth + 1, &cd);
            }
            // A literal that is one word of a list is not a command itself.
            for literal in &literals {
                if lists.iter().any(|l| l.len() > 1 && l.contains(literal)) {
                    continue;
                }
                any |= !literal.trim().is_empty();
                self.script(literal, depth + 1, &cd);
            }
            for body in backquoted(code) {
                any = true;
                self.script(&body, depth + 1, &cd);
            }
            if decoded || !any {
                self.problem(ParseProblem::OpaqueCode {
                    program: program.to_owned(),
                });
            }
        }
        let deletes_tree = DELETES_TREE.iter().any(|m| lower.contains(m));
        let deletes_file = DELETES_FILE.iter().any(|m| lower.contains(m));
        if deletes_tree || deletes_file {
            for literal in literals
                .iter()
                .filter(|l| !l.contains(char::is_whitespace) && !l.is_empty())
            {
                let argv = if deletes_tree {
                    vec!["rm".to_owned(), "-rf".to_owned(), literal.clone()]
                } else {
                    vec!["rm".to_owned(), "-f".to_owned(), literal.clone()]
                };
                self.out.commands.push(SimpleCommand {
                    argv,
                    wrappers: vec![program.to_owned()],
                    cd: cd.clone(),
                    depth: depth + 1,
                    ..SimpleCommand::default()
                });
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
                if end > start && depth >= MAX_DEPTH {
                    // Past the walker's reach: read flat, never dropped.
                    self.problem(ParseProblem::TooDeep { max: MAX_DEPTH });
                } else if end > start {
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
        normalize_git(command, &call);
        if command.argv.get(1).is_some_and(|s| s == "config") {
            self.git_config_write(command, depth);
        }
        command.git = Some(call);
        self.out.commands.push(std::mem::take(command));
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
    ) || key.starts_with("pager.")
        || (key.starts_with("diff.") && matches!(last, "command" | "textconv"))
        || (key.starts_with("difftool.") || key.starts_with("mergetool.")) && last == "cmd"
        || (key.starts_with("merge.") && last == "driver")
        || (key.starts_with("filter.") && matches!(last, "clean" | "smudge" | "process"))
        || (key.starts_with("gpg.") && last == "program")
        || (key.starts_with("remote.") && matches!(last, "receivepack" | "uploadpack" | "vcs"))
        || (key.starts_with("credential.") && last == "helper")
        || (key.starts_with("hook.") && last == "command")
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
    crate::input::hooks::expand_long_options(&sub, &mut command.argv[2..]);
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

/// What [`Parser::runner`] found.
enum Runner {
    /// The wrapped command starts at this argv index; the wrapper's name.
    Command(usize, String),
    /// As `Command`, up to the argv index `end` (where parallel's
    /// `:::` inputs start), with its arguments appended from stdin or a
    /// file.
    Stdin(usize, usize),
    /// The scripts were parsed; nothing more to unwrap.
    Done,
}

/// Calls in interpreted code that run a command through a shell or exec.
const RUNS_COMMANDS: &[&str] = &[
    "system",
    "subprocess",
    "popen",
    "exec",
    "spawn",
    "check_call",
    "check_output",
    "call(",
    "run(",
    "shell_exec",
    "passthru",
    "proc_open",
    "child_process",
    "deno.command",
    "deno.run",
    "bun.spawn",
    "$.(",
    "open3",
    "%x",
    "io.popen",
    "os.execute",
    "do shell script",
    "pty.",
];

/// Calls that decode or build a string at run time.
const DECODES: &[&str] = &[
    "b64decode",
    "base64",
    "decode(",
    "fromhex",
    "unhexlify",
    "rot13",
    "codecs",
    "chr(",
    "atob",
    "buffer.from",
    "pack(",
    "reverse",
    "[::-1]",
    "join(",
    "fromcharcode",
    "unpack",
    "eval(",
    "getenv",
    "environ",
    "argv",
    "input(",
    "stdin",
];

/// Calls that delete a directory tree.
const DELETES_TREE: &[&str] = &[
    "rmtree",
    "rm_rf",
    "rm_r(",
    "rmsync",
    "rimraf",
    "remove_tree",
    "remove_dir_all",
    "removedirs",
    "rmdir",
    "recursive: true",
    "recursive=true",
];

/// Calls that delete or truncate a file.
const DELETES_FILE: &[&str] = &[
    "unlink",
    "os.remove",
    "file.delete",
    "fileutils.rm",
    "fs.rm",
    "path.unlink",
];

/// The code an interpreter is given on its command line, if any:
/// `python -c CODE`, `perl -e CODE` (and `-ne`, `-E`), `ruby -e`, `node -e`
/// / `-p` / `--eval`, `deno eval`, `bun -e`, `php -r`, `lua -e`,
/// `osascript -e`, and an `awk` program.
fn interpreter_code(program: &str, args: &[String]) -> Option<String> {
    let family = if program.starts_with("python") || program == "pypy" || program == "pypy3" {
        "python"
    } else if program.starts_with("perl") {
        "perl"
    } else if program.starts_with("ruby") || program == "jruby" {
        "ruby"
    } else if matches!(program, "node" | "nodejs") {
        "node"
    } else if matches!(program, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk") {
        "awk"
    } else {
        program
    };
    let mut code = Vec::new();
    let mut i = 0;
    match family {
        "awk" => {
            while let Some(arg) = args.get(i) {
                i += 1;
                if arg == "--" {
                    break;
                }
                if matches!(arg.as_str(), "-F" | "-v" | "-f" | "--file" | "-i" | "-l") {
                    if arg == "-f" || arg == "--file" {
                        return None;
                    }
                    i += 1;
                    continue;
                }
                if arg.starts_with('-') {
                    continue;
                }
                return Some(arg.clone());
            }
            args.get(i).cloned()
        }
        "deno" | "bun" if args.first().is_some_and(|a| a == "eval") => args.get(1).cloned(),
        _ => {
            let flags: &[&str] = match family {
                "python" => &["-c"],
                "perl" => &["-e", "-E"],
                "ruby" | "lua" | "osascript" | "bun" => &["-e"],
                "node" => &["-e", "--eval", "-p", "--print"],
                "php" => &["-r"],
                _ => return None,
            };
            while let Some(arg) = args.get(i) {
                i += 1;
                if flags.contains(&arg.as_str()) {
                    if let Some(value) = args.get(i) {
                        code.push(value.clone());
                        i += 1;
                    }
                    if family == "python" {
                        break;
                    }
                    continue;
                }
                if let Some(value) = arg
                    .strip_prefix("--eval=")
                    .or_else(|| arg.strip_prefix("--print="))
                {
                    code.push(value.to_owned());
                    continue;
                }
                // Bundled: `perl -ne CODE`, `perl -we CODE`, `python -Sc CODE`.
                if !arg.starts_with("--") && arg.len() > 2 && arg.starts_with('-') {
                    let letters = &arg[1..];
                    let last = letters.chars().last().unwrap_or_default();
                    if flags.iter().any(|f| f.ends_with(last))
                        && letters.chars().all(|c| c.is_ascii_alphabetic())
                    {
                        if let Some(value) = args.get(i) {
                            code.push(value.clone());
                            i += 1;
                        }
                        continue;
                    }
                    if family == "python"
                        && let Some(rest) = arg.strip_prefix("-c")
                    {
                        code.push(rest.to_owned());
                        break;
                    }
                }
                if !arg.starts_with('-') {
                    break;
                }
            }
            (!code.is_empty()).then(|| code.join("\n"))
        }
    }
}

/// The string literals of a piece of code (`'...'`, `"..."`), with the
/// common escapes decoded.
fn string_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\'' && c != '"' {
            continue;
        }
        let mut text = String::new();
        let mut closed = false;
        while let Some(d) = chars.next() {
            if d == '\\' {
                match chars.next() {
                    Some('n') => text.push('\n'),
                    Some('t') => text.push('\t'),
                    Some(e) => text.push(e),
                    None => {}
                }
                continue;
            }
            if d == c {
                closed = true;
                break;
            }
            text.push(d);
        }
        if closed {
            out.push(text);
        }
    }
    out
}

/// Lists of string literals (`["git", "reset", "--hard"]`,
/// `qw(git reset --hard)`), as the words of one command.
fn literal_lists(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (open, close) in [('[', ']'), ('(', ')')] {
        let mut rest = code;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + 1..];
            let Some(end) = after.find(close) else {
                break;
            };
            let inner = &after[..end];
            let literals = string_literals(inner);
            if literals.len() > 1 {
                out.push(literals);
            }
            rest = &after[end..];
        }
    }
    out
}

/// The bodies of backquotes and `qx{...}`/`%x(...)` in Perl or Ruby code.
fn backquoted(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut parts = code.split('`');
    parts.next();
    while let (Some(body), Some(_)) = (parts.next(), parts.next()) {
        out.push(body.to_owned());
    }
    for marker in ["qx{", "qx(", "%x(", "%x{", "qx/"] {
        let mut rest = code;
        while let Some(start) = rest.find(marker) {
            let after = &rest[start + marker.len()..];
            let close = match marker.chars().last() {
                Some('{') => '}',
                Some('(') => ')',
                _ => '/',
            };
            let Some(end) = after.find(close) else {
                break;
            };
            out.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    out
}

/// `xargs`'s short options that take a value.
const XARGS_SHORT_VALUES: &str = "adEILnPs";

/// `xargs`'s long options that take a value.
const XARGS_LONG_VALUES: &[&str] = &[
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
fn option_value(
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

/// True when a command's arguments are appended at run time from data
/// vouch cannot read (`cat list | xargs git branch -D`, `xargs -a FILE`).
pub(crate) fn args_unknown(command: &SimpleCommand) -> bool {
    command.args_from_stdin && command.stdin.is_none()
}

/// The replace token of `xargs -I TOKEN` (`-i` means `{}`).
fn xargs_replace(options: &[String]) -> Option<String> {
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

/// The text `echo`/`printf` would write: the arguments, options dropped.
fn pipe_text(args: &[String]) -> String {
    let mut text = args
        .iter()
        .skip_while(|a| {
            a.len() > 1
                && a.starts_with('-')
                && a[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
        })
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
    /// The `NAME=value` assignments.
    env: Vec<(String, String)>,
    /// `-C DIR`/`--chdir=DIR`: where the command runs.
    chdir: Vec<String>,
    /// The command and its arguments (empty: env only prints).
    command: Vec<String>,
}

/// `env`'s options, assignments and command; `None` when env only prints
/// or fails (`--help`, `--version`). The words of a `-S`/`--split-string`
/// string take the option's place and are read as env's next arguments
/// (assignments, options, the command), as env does (issue 26 item 10):
/// each word is read once, whatever the strings hold.
fn env_options(args: &[String]) -> Option<EnvPrefix> {
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
