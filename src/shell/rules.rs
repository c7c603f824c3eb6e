//! PURE: rules (data) matched against parsed simple commands.
//!
//! The built-in rules live in `rules.toml` next to this file, compiled in;
//! user rules use the same format (see the [`super`] module documentation
//! for the pattern language). Globs are compiled once in [`Rules`]; matching
//! a command builds one small `Subject` and looks up only the rules whose
//! program can match.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;

use super::parse::{SimpleCommand, basename};
use crate::vocab::Tier;

/// One rule as written in TOML (`[[rules]]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RuleSpec {
    /// The words to match: the program, then options, positional globs and
    /// the other elements of the pattern language.
    pub pattern: String,
    /// The tier of a command that matches.
    pub tier: Tier,
    /// Why, in a few words; shown to the person and the verifier.
    pub reason: String,
    /// Positional and `=`/`<`/`>` globs ignore case, and runs of whitespace
    /// count as one space (for SQL and other text arguments).
    #[serde(default)]
    pub ignore_case: bool,
    /// The rule does not apply when every positional argument not used by
    /// the pattern matches one of these globs (and none come from stdin).
    #[serde(default)]
    pub allow_args: Vec<String>,
    /// The rule applies only when the command ran through one of these
    /// wrappers (`sudo`, `doas`, ...).
    #[serde(default)]
    pub via: Vec<String>,
    /// What the adapter should measure in the real repository.
    #[serde(default)]
    pub facts: Option<FactsKind>,
}

/// What the adapter should measure before settling on a tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FactsKind {
    /// Uncommitted changes in the work tree (a clean tree makes it harmless).
    Worktree,
    /// The pre-push facts of SPEC 2.1 (protected ref, remote commits unseen).
    Push,
    /// Commits on the branch that are on no other ref (SPEC 2.2).
    Branch,
    /// The stash entries that would be lost.
    Stash,
}

/// The facts hint of a match, with the pieces of the command the adapter needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Facts {
    /// Measure uncommitted changes: `target` is the commit or branch named
    /// (`reset --hard <target>`, `checkout <target> -- ...`), `paths` the
    /// paths named (`checkout -- <paths>`, `restore <paths>`, `clean <paths>`).
    Worktree {
        /// The revision named, if any.
        target: Option<String>,
        /// The paths named, if any (none means the whole tree).
        paths: Vec<String>,
    },
    /// Measure the push: the remote (name or URL) and the refspecs.
    Push {
        /// The remote, if named.
        remote: Option<String>,
        /// The refspecs, as written (`+main`, `:old`, `HEAD:main`).
        refspecs: Vec<String>,
    },
    /// Measure the branches: those named (for `branch -f`, the branch and
    /// then its new start point).
    Branch {
        /// The branch names.
        names: Vec<String>,
    },
    /// Measure the stash: the entries named (none means the newest, or all
    /// for `clear`).
    Stash {
        /// The entries (`stash@{1}`).
        entries: Vec<String>,
    },
}

/// A rule that failed to compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid rule pattern `{pattern}`: {message}")]
pub struct RuleError {
    /// The pattern as written.
    pub pattern: String,
    /// What is wrong and what is accepted.
    pub message: String,
}

const ACCEPTED: &str = "a pattern is the program (a glob on the basename) followed by \
     words: `-f` (short flags), `--force` or `--force=GLOB` (long options), `--` (end of options), \
     `=GLOB` (any argument word), `<GLOB` (stdin data), `>GLOB` (an output redirection), \
     or a positional GLOB; `!` in front negates a word and `|` joins alternatives";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    rules: Vec<RuleSpec>,
}

/// The rule set: the built-in rules plus any user rules. A built-in rule is
/// compiled the first time a command could match it (its program, and a
/// literal word it needs, are there): compiling all of them costs a few
/// milliseconds, more than the agent door may spend on a harmless command.
/// User rules are compiled at once, so that a bad one is reported.
#[derive(Debug, Clone)]
pub struct Rules {
    list: Vec<Entry>,
    /// Rule indexes by literal program name.
    by_program: HashMap<String, Vec<usize>>,
    /// Rules whose program is a glob.
    any_program: Vec<usize>,
}

/// A compiled glob or literal.
#[derive(Debug, Clone)]
enum Pat {
    Any,
    Literal(String),
    Glob(GlobMatcher),
}

impl Pat {
    fn new(text: &str, ignore_case: bool) -> Result<Self, String> {
        if text == "*" {
            return Ok(Self::Any);
        }
        if !text.contains(['*', '?', '[', '{', '\\']) {
            return Ok(Self::Literal(if ignore_case {
                fold(text)
            } else {
                text.to_owned()
            }));
        }
        let text = if ignore_case {
            fold(text)
        } else {
            text.to_owned()
        };
        GlobBuilder::new(&text)
            .case_insensitive(ignore_case)
            .literal_separator(false)
            .empty_alternates(true)
            .build()
            .map(|g| Self::Glob(g.compile_matcher()))
            .map_err(|e| format!("bad glob `{text}`: {e}"))
    }

    fn is_match(&self, text: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Literal(l) => l == text,
            Self::Glob(g) => g.is_match(Path::new(text)),
        }
    }
}

/// Lowercases and collapses whitespace runs into one space.
fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// One condition that must hold (or, negated, must not).
#[derive(Debug, Clone)]
enum Cond {
    /// All these short flags are present.
    Short(Vec<char>),
    /// A long option is present, optionally with a value matching; `glob`
    /// is set when the name itself is a glob (`--remove-*`).
    Long {
        name: String,
        glob: Option<Pat>,
        value: Option<Pat>,
    },
    /// `--` is present.
    DashDash,
    /// Some argument word matches.
    Exact(Pat),
    /// Some positional argument matches (only in negations).
    Positional(Pat),
    /// The stdin data matches.
    Stdin(Pat),
    /// Some output redirection target matches.
    Output(Pat),
}

#[derive(Debug, Clone)]
enum Item {
    /// The next positional argument (in order) matching one of these.
    Positional(Vec<Pat>),
    /// One of these conditions holds (`negated`: none holds).
    Present { any: Vec<Cond>, negated: bool },
}

#[derive(Debug, Clone)]
struct Rule {
    spec: RuleSpec,
    program: Vec<Pat>,
    items: Vec<Item>,
    allow_args: Vec<Pat>,
    via: Vec<Pat>,
}

fn compile(spec: &RuleSpec) -> Result<Rule, RuleError> {
    let error = |message: String| RuleError {
        pattern: spec.pattern.clone(),
        message,
    };
    let words = shell_words::split(&spec.pattern).map_err(|e| error(format!("{e}; {ACCEPTED}")))?;
    let Some((program, rest)) = words.split_first() else {
        return Err(error(format!("the pattern is empty; {ACCEPTED}")));
    };
    if program.starts_with(['!', '-', '=', '<', '>']) {
        return Err(error(format!(
            "the first word must be the program, not `{program}`; {ACCEPTED}"
        )));
    }
    let program = program
        .split('|')
        .map(|p| Pat::new(p, false))
        .collect::<Result<Vec<_>, _>>()
        .map_err(error)?;
    let ic = spec.ignore_case;
    let mut items = Vec::new();
    for word in rest {
        let (negated, body) = match word.strip_prefix('!') {
            Some(body) => (true, body),
            None => (false, word.as_str()),
        };
        let mut positional = Vec::new();
        let mut any = Vec::new();
        for alt in body.split('|') {
            if alt.is_empty() {
                return Err(error(format!("empty alternative in `{word}`; {ACCEPTED}")));
            }
            if alt == "--" {
                any.push(Cond::DashDash);
            } else if let Some(long) = alt.strip_prefix("--") {
                let (name, value) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(Pat::new(v, ic).map_err(error)?)),
                    None => (long, None),
                };
                let glob = if name.contains(['*', '?', '[', '{']) {
                    Some(Pat::new(name, false).map_err(error)?)
                } else {
                    None
                };
                any.push(Cond::Long {
                    name: name.to_owned(),
                    glob,
                    value,
                });
            } else if let Some(letters) = alt.strip_prefix('-') {
                if letters.is_empty() {
                    return Err(error(format!(
                        "`-` alone is not an option; write `[-]` to match a `-` argument; {ACCEPTED}"
                    )));
                }
                any.push(Cond::Short(letters.chars().collect()));
            } else if let Some(glob) = alt.strip_prefix('=') {
                any.push(Cond::Exact(Pat::new(glob, ic).map_err(error)?));
            } else if let Some(glob) = alt.strip_prefix('<') {
                any.push(Cond::Stdin(Pat::new(glob, ic).map_err(error)?));
            } else if let Some(glob) = alt.strip_prefix('>') {
                any.push(Cond::Output(Pat::new(glob, ic).map_err(error)?));
            } else {
                positional.push(Pat::new(alt, ic).map_err(error)?);
            }
        }
        if !positional.is_empty() && !any.is_empty() {
            return Err(error(format!(
                "`{word}` mixes positional globs with options or `=`/`<`/`>` words; {ACCEPTED}"
            )));
        }
        if negated {
            any.extend(positional.into_iter().map(Cond::Positional));
            items.push(Item::Present { any, negated: true });
        } else if positional.is_empty() {
            items.push(Item::Present {
                any,
                negated: false,
            });
        } else {
            items.push(Item::Positional(positional));
        }
    }
    let allow_args = spec
        .allow_args
        .iter()
        .map(|g| Pat::new(g, ic))
        .collect::<Result<Vec<_>, _>>()
        .map_err(error)?;
    let via = spec
        .via
        .iter()
        .map(|g| Pat::new(g, false))
        .collect::<Result<Vec<_>, _>>()
        .map_err(error)?;
    Ok(Rule {
        spec: spec.clone(),
        program,
        items,
        allow_args,
        via,
    })
}

/// True when a word of the pattern (after the program) matches only an
/// output redirection (`>GLOB` alternatives, not negated): the rule can only
/// match a command that writes somewhere. Read from the words, so that such
/// a rule is not compiled for a command without a redirection.
fn needs_output(words: &[String]) -> bool {
    words
        .iter()
        .skip(1)
        .any(|word| !word.starts_with('!') && word.split('|').all(|alt| alt.starts_with('>')))
}

/// One rule, compiled on first use.
#[derive(Debug, Clone)]
struct Entry {
    spec: RuleSpec,
    /// Some argument must equal one of these words (the rule's first
    /// literal positional word) before the rule is worth compiling.
    required: Vec<String>,
    /// It matches only a command with an output redirection.
    needs_output: bool,
    compiled: OnceLock<Rule>,
}

impl Entry {
    fn rule(&self) -> &Rule {
        self.compiled
            .get_or_init(|| compile(&self.spec).expect("the built-in rules compile (tested)"))
    }
}

/// True for a pattern word that is a plain text, not a glob.
fn is_literal(word: &str) -> bool {
    !word.is_empty() && !word.contains(['*', '?', '[', '{', '\\'])
}

/// The program alternatives of a pattern, its first positional word's
/// alternatives when they are all literal (empty otherwise), and whether it
/// matches only a command with an output redirection.
fn index_words(spec: &RuleSpec) -> (Vec<String>, Vec<String>, bool) {
    let Ok(words) = shell_words::split(&spec.pattern) else {
        return (Vec::new(), Vec::new(), false);
    };
    let output_only = needs_output(&words);
    let Some((program, rest)) = words.split_first() else {
        return (Vec::new(), Vec::new(), false);
    };
    let programs = program.split('|').map(str::to_owned).collect();
    let required = rest
        .iter()
        .find(|w| !w.starts_with(['!', '-', '=', '<', '>']))
        .filter(|_| !spec.ignore_case)
        .map(|w| w.split('|').map(str::to_owned).collect::<Vec<_>>())
        .filter(|alts| alts.iter().all(|a| is_literal(a)))
        .unwrap_or_default();
    (programs, required, output_only)
}

impl Rules {
    /// The built-in rules (`src/shell/rules.toml`).
    ///
    /// # Panics
    ///
    /// Never in a tested build: the compiled-in rules are checked by the
    /// unit tests.
    pub fn builtin() -> Self {
        Self::with_user(&[]).expect("the built-in rules compile (tested)")
    }

    /// The built-in rules followed by `user` rules.
    pub fn with_user(user: &[RuleSpec]) -> Result<Self, RuleError> {
        // `build.rs` turns `rules.toml` into JSON, which reads several times faster.
        let file: RuleFile =
            serde_json::from_str(include_str!(concat!(env!("OUT_DIR"), "/rules.json"))).map_err(
                |e| RuleError {
                    pattern: "src/shell/rules.toml".to_owned(),
                    message: e.to_string(),
                },
            )?;
        let mut rules = Self {
            list: Vec::new(),
            by_program: HashMap::new(),
            any_program: Vec::new(),
        };
        let builtin = file.rules.len();
        for (i, spec) in file.rules.iter().chain(user).enumerate() {
            let compiled = if i >= builtin {
                OnceLock::from(compile(spec)?)
            } else {
                OnceLock::new()
            };
            let (programs, required, needs_output) = index_words(spec);
            let index = rules.list.len();
            if !programs.is_empty() && programs.iter().all(|p| is_literal(p) && p != "*") {
                for name in programs {
                    rules.by_program.entry(name).or_default().push(index);
                }
            } else {
                rules.any_program.push(index);
            }
            rules.list.push(Entry {
                spec: spec.clone(),
                required,
                needs_output,
                compiled,
            });
        }
        Ok(rules)
    }

    /// Compiles every rule now (the built-in ones are otherwise compiled on
    /// first use): the test that the data file is valid.
    pub fn compile_all(&self) -> Result<(), RuleError> {
        for entry in &self.list {
            if entry.compiled.get().is_none() {
                compile(&entry.spec)?;
            }
        }
        Ok(())
    }

    /// How many rules there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// True when there are no rules.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The rules that match `command`, in rule order.
    pub(crate) fn matching<'r>(&'r self, command: &SimpleCommand) -> Vec<&'r RuleSpec> {
        let program = command.program();
        let literal = self.by_program.get(program).map_or(&[][..], Vec::as_slice);
        if literal.is_empty() && self.any_program.is_empty() {
            return Vec::new();
        }
        let subject: OnceCell<Subject<'_>> = OnceCell::new();
        let mut found: Vec<usize> = Vec::new();
        for &index in literal.iter().chain(&self.any_program) {
            let entry = &self.list[index];
            if !entry.required.is_empty()
                && !command
                    .argv
                    .iter()
                    .skip(1)
                    .any(|a| entry.required.contains(a))
            {
                continue;
            }
            // Before compiling: a rule about a redirection, and none is written.
            if entry.needs_output && command.outputs.is_empty() {
                continue;
            }
            let rule = entry.rule();
            if rule.program.iter().any(|p| p.is_match(program))
                && subject.get_or_init(|| Subject::new(command)).matches(rule)
            {
                found.push(index);
            }
        }
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|i| &self.list[i].spec).collect()
    }
}

/// Positional arguments as written or folded (`ignore-case`), without
/// copying either.
enum Words<'s> {
    Raw(&'s [&'s str]),
    Folded(&'s [String]),
}

impl Words<'_> {
    fn len(&self) -> usize {
        match self {
            Self::Raw(w) => w.len(),
            Self::Folded(w) => w.len(),
        }
    }

    fn get(&self, j: usize) -> &str {
        match self {
            Self::Raw(w) => w[j],
            Self::Folded(w) => &w[j],
        }
    }
}

/// A command's arguments, sorted into options and positionals once.
struct Subject<'a> {
    command: &'a SimpleCommand,
    args: &'a [String],
    shorts: Vec<char>,
    longs: Vec<(&'a str, Option<&'a str>)>,
    positionals: Vec<&'a str>,
    dashdash: bool,
    folded_args: OnceCell<Vec<String>>,
    folded_positionals: OnceCell<Vec<String>>,
    folded_stdin: OnceCell<Option<String>>,
    folded_outputs: OnceCell<Vec<String>>,
}

impl<'a> Subject<'a> {
    fn new(command: &'a SimpleCommand) -> Self {
        let args = command.argv.get(1..).unwrap_or(&[]);
        let mut subject = Subject {
            command,
            args,
            shorts: Vec::new(),
            longs: Vec::new(),
            positionals: Vec::new(),
            dashdash: false,
            folded_args: OnceCell::new(),
            folded_positionals: OnceCell::new(),
            folded_stdin: OnceCell::new(),
            folded_outputs: OnceCell::new(),
        };
        for arg in args {
            if subject.dashdash {
                subject.positionals.push(arg);
            } else if arg == "--" {
                subject.dashdash = true;
            } else if let Some(long) = arg.strip_prefix("--") {
                subject.longs.push(match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                });
            } else if let Some(letters) = arg.strip_prefix('-')
                && !letters.is_empty()
            {
                subject.shorts.extend(letters.chars());
            } else {
                subject.positionals.push(arg);
            }
        }
        subject
    }

    fn matches(&self, rule: &Rule) -> bool {
        let ic = rule.spec.ignore_case;
        if !rule.via.is_empty()
            && !self
                .command
                .wrappers
                .iter()
                .any(|w| rule.via.iter().any(|v| v.is_match(basename(w))))
        {
            return false;
        }
        let positionals = self.positionals(ic);
        let mut next = 0;
        let mut used: Vec<usize> = Vec::new();
        for item in &rule.items {
            match item {
                Item::Positional(alts) => {
                    let Some(found) = (next..positionals.len())
                        .find(|&j| alts.iter().any(|p| p.is_match(positionals.get(j))))
                    else {
                        return false;
                    };
                    used.push(found);
                    next = found + 1;
                }
                Item::Present { any, negated } => {
                    if any.iter().any(|c| self.holds(c, ic)) == *negated {
                        return false;
                    }
                }
            }
        }
        if !rule.allow_args.is_empty() && !self.command.args_from_stdin {
            let all_allowed = (0..positionals.len())
                .filter(|j| !used.contains(j))
                .all(|j| {
                    rule.allow_args
                        .iter()
                        .any(|a| a.is_match(positionals.get(j)))
                });
            if all_allowed {
                return false;
            }
        }
        true
    }

    fn positionals(&self, ic: bool) -> Words<'_> {
        if ic {
            Words::Folded(
                self.folded_positionals
                    .get_or_init(|| self.positionals.iter().map(|p| fold(p)).collect()),
            )
        } else {
            Words::Raw(&self.positionals)
        }
    }

    fn holds(&self, cond: &Cond, ic: bool) -> bool {
        match cond {
            Cond::Short(letters) => letters.iter().all(|l| self.shorts.contains(l)),
            Cond::Long { name, glob, value } => self.longs.iter().any(|(n, v)| {
                let name_ok = match glob {
                    Some(g) => g.is_match(n),
                    None => *n == name || (n.len() >= 2 && name.starts_with(n)),
                };
                name_ok
                    && value.as_ref().is_none_or(|p| {
                        v.is_some_and(|v| {
                            if ic {
                                p.is_match(&fold(v))
                            } else {
                                p.is_match(v)
                            }
                        })
                    })
            }),
            Cond::DashDash => self.dashdash,
            Cond::Exact(p) => {
                if ic {
                    self.folded_args
                        .get_or_init(|| self.args.iter().map(|a| fold(a)).collect())
                        .iter()
                        .any(|a| p.is_match(a))
                } else {
                    self.args.iter().any(|a| p.is_match(a))
                }
            }
            Cond::Positional(p) => {
                let words = self.positionals(ic);
                (0..words.len()).any(|j| p.is_match(words.get(j)))
            }
            Cond::Stdin(p) => {
                if ic {
                    self.folded_stdin
                        .get_or_init(|| self.command.stdin.as_deref().map(fold))
                        .as_deref()
                        .is_some_and(|s| p.is_match(s))
                } else {
                    self.command.stdin.as_deref().is_some_and(|s| p.is_match(s))
                }
            }
            Cond::Output(p) => {
                if ic {
                    self.folded_outputs
                        .get_or_init(|| self.command.outputs.iter().map(|o| fold(o)).collect())
                        .iter()
                        .any(|o| p.is_match(o))
                } else {
                    self.command.outputs.iter().any(|o| p.is_match(o))
                }
            }
        }
    }
}

/// The pieces of a git command the adapter needs for `kind`; `None` when
/// the command is not git.
pub(crate) fn facts(kind: FactsKind, command: &SimpleCommand) -> Option<Facts> {
    if command.program() != "git" || command.argv.len() < 2 {
        return None;
    }
    let sub = command.argv[1].as_str();
    let args = &command.argv[2..];
    let value_options: &[&str] = match sub {
        "push" => &["-o", "--push-option", "--repo", "--receive-pack", "--exec"],
        "restore" => &["-s", "--source"],
        "checkout" | "switch" => &["-b", "-B", "-c", "-C", "--orphan"],
        "clean" => &["-e", "--exclude"],
        "branch" => &["-u", "--set-upstream-to"],
        "stash" => &["-m", "--message"],
        _ => &[],
    };
    let mut before: Vec<String> = Vec::new();
    let mut after = Vec::new();
    let mut dashdash = false;
    let mut source = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if dashdash {
            after.push(arg.clone());
        } else if arg == "--" {
            dashdash = true;
        } else if arg.starts_with('-') && arg.len() > 1 {
            if let Some(v) = arg.strip_prefix("--source=") {
                source = Some(v.to_owned());
            }
            if value_options.contains(&arg.as_str()) {
                if matches!(arg.as_str(), "-s" | "--source") {
                    source = args.get(i).cloned();
                }
                // `checkout -B <branch>`, `switch -C <branch>`: the value is
                // the branch that is reset.
                if matches!(arg.as_str(), "-B" | "-C")
                    && let Some(branch) = args.get(i)
                {
                    before.push(branch.clone());
                }
                i += 1;
            }
        } else {
            before.push(arg.clone());
        }
    }
    Some(match kind {
        FactsKind::Worktree => match sub {
            "restore" => Facts::Worktree {
                target: source,
                paths: before.into_iter().chain(after).collect(),
            },
            "clean" | "rm" => Facts::Worktree {
                target: None,
                paths: before.into_iter().chain(after).collect(),
            },
            "worktree" | "submodule" => Facts::Worktree {
                target: None,
                paths: before.into_iter().skip(1).chain(after).collect(),
            },
            "checkout"
                if !dashdash
                    && before
                        .iter()
                        .any(|p| p == "." || p.contains(['*', '?', '/'])) =>
            {
                // `checkout [<rev>] <paths>`: a first word that is not
                // path-like, followed by more, is the revision.
                let path_like = |p: &String| p == "." || p.contains(['*', '?', '/']);
                let target = (before.len() > 1 && !path_like(&before[0])).then(|| before.remove(0));
                Facts::Worktree {
                    target,
                    paths: before,
                }
            }
            _ => {
                let mut before = before.into_iter();
                let target = before.next();
                Facts::Worktree {
                    target,
                    paths: before.chain(after).collect(),
                }
            }
        },
        FactsKind::Push => {
            let mut words = before.into_iter().chain(after);
            Facts::Push {
                remote: words.next(),
                refspecs: words.collect(),
            }
        }
        FactsKind::Branch => Facts::Branch {
            names: before.into_iter().chain(after).collect(),
        },
        FactsKind::Stash => Facts::Stash {
            entries: before
                .into_iter()
                .filter(|w| !matches!(w.as_str(), "drop" | "clear"))
                .collect(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pattern: &str) -> RuleSpec {
        RuleSpec {
            pattern: pattern.to_owned(),
            tier: Tier::High,
            reason: "test".to_owned(),
            ignore_case: false,
            allow_args: Vec::new(),
            via: Vec::new(),
            facts: None,
        }
    }

    fn command(argv: &[&str]) -> SimpleCommand {
        SimpleCommand {
            argv: argv.iter().map(|&a| a.to_owned()).collect(),
            ..SimpleCommand::default()
        }
    }

    fn matches(pattern: &str, argv: &[&str]) -> bool {
        let rule = compile(&spec(pattern)).expect("compiles");
        rule.program
            .iter()
            .any(|p| p.is_match(command(argv).program()))
            && Subject::new(&command(argv)).matches(&rule)
    }

    #[test]
    fn builtin_rules_compile() {
        let rules = Rules::builtin();
        assert!(rules.len() > 50);
        rules.compile_all().unwrap();
    }

    #[test]
    fn short_flags_combine_in_any_order() {
        assert!(matches("git clean -f -x", &["git", "clean", "-dxf"]));
        assert!(matches("git clean -fx", &["git", "clean", "-x", "-f"]));
        assert!(!matches("git clean -f !-n", &["git", "clean", "-fn"]));
    }

    #[test]
    fn long_options_match_values_and_abbreviations() {
        assert!(matches(
            "git push --force-with-lease",
            &["git", "push", "--force-with-lease=main:abc"]
        ));
        assert!(!matches(
            "git push --force",
            &["git", "push", "--force-with-lease"]
        ));
        assert!(matches("git clean --force", &["git", "clean", "--forc"]));
        assert!(matches(
            "git gc --prune=now|--prune=all",
            &["git", "gc", "--prune=now"]
        ));
        assert!(!matches(
            "git gc --prune=now",
            &["git", "gc", "--prune=2.weeks.ago"]
        ));
    }

    #[test]
    fn positionals_match_in_order_as_globs() {
        assert!(matches("git push +*", &["git", "push", "origin", "+main"]));
        assert!(matches(
            "kubectl delete",
            &["kubectl", "-n", "prod", "delete", "pod", "x"]
        ));
        assert!(!matches(
            "git reset --hard",
            &["git", "commit", "-m", "reset --hard"]
        ));
        assert!(matches("rm -r /", &["/bin/rm", "-r", "-f", "--", "/"]));
    }

    #[test]
    fn exact_words_stdin_and_outputs() {
        assert!(matches(
            "find =-delete",
            &["find", ".", "-name", "x", "-delete"]
        ));
        let mut c = command(&["psql"]);
        c.stdin = Some("DROP   TABLE users;\n".to_owned());
        let mut s = spec("psql <*drop?table*");
        s.ignore_case = true;
        let rule = compile(&s).expect("compiles");
        assert!(Subject::new(&c).matches(&rule));
        let mut c = command(&["echo", "x"]);
        c.outputs.push("/etc/sudoers".to_owned());
        let rule = compile(&spec("* >/etc/sudoers*")).expect("compiles");
        assert!(Subject::new(&c).matches(&rule));
    }

    #[test]
    fn allow_args_exempts_only_when_every_argument_is_allowed() {
        let mut s = spec("rm -r");
        s.allow_args = vec!["target".to_owned(), "/tmp/*".to_owned()];
        let rule = compile(&s).expect("compiles");
        assert!(!Subject::new(&command(&["rm", "-rf", "target", "/tmp/x"])).matches(&rule));
        assert!(Subject::new(&command(&["rm", "-rf", "target", "src"])).matches(&rule));
        let mut xargs = command(&["rm", "-rf"]);
        xargs.args_from_stdin = true;
        assert!(Subject::new(&xargs).matches(&rule));
    }

    #[test]
    fn bad_patterns_are_named() {
        let error = Rules::with_user(&[spec("!git push")]).expect_err("negated program");
        assert!(error.to_string().contains("`!git push`"), "{error}");
        let error = Rules::with_user(&[spec("git push -f|main")]).expect_err("mixed");
        assert!(error.to_string().contains("mixes positional"), "{error}");
        let error = Rules::with_user(&[spec("git push [z-a]")]).expect_err("bad glob");
        assert!(error.to_string().contains("bad glob"), "{error}");
        let error = Rules::with_user(&[spec("")]).expect_err("empty");
        assert!(error.to_string().contains("empty"), "{error}");
    }

    #[test]
    fn rule_specs_deny_unknown_fields() {
        let result: Result<RuleFile, _> = toml::from_str(
            "[[rules]]\npattern = \"x\"\ntier = \"high\"\nreason = \"r\"\nbogus = 1\n",
        );
        assert!(result.is_err());
    }

    #[test]
    fn facts_pick_the_pieces() {
        let f = |argv: &[&str], kind| facts(kind, &command(argv));
        assert_eq!(
            f(
                &["git", "push", "-o", "ci.skip", "--force", "origin", "+main"],
                FactsKind::Push
            ),
            Some(Facts::Push {
                remote: Some("origin".to_owned()),
                refspecs: vec!["+main".to_owned()]
            })
        );
        assert_eq!(
            f(&["git", "reset", "--hard", "HEAD~2"], FactsKind::Worktree),
            Some(Facts::Worktree {
                target: Some("HEAD~2".to_owned()),
                paths: vec![]
            })
        );
        assert_eq!(
            f(&["git", "checkout", "--", "a", "b"], FactsKind::Worktree),
            Some(Facts::Worktree {
                target: None,
                paths: vec!["a".to_owned(), "b".to_owned()]
            })
        );
        assert_eq!(
            f(
                &["git", "restore", "--source=HEAD~1", "src"],
                FactsKind::Worktree
            ),
            Some(Facts::Worktree {
                target: Some("HEAD~1".to_owned()),
                paths: vec!["src".to_owned()]
            })
        );
        assert_eq!(
            f(&["git", "branch", "-D", "a", "b"], FactsKind::Branch),
            Some(Facts::Branch {
                names: vec!["a".to_owned(), "b".to_owned()]
            })
        );
        assert_eq!(
            f(&["git", "stash", "drop", "stash@{1}"], FactsKind::Stash),
            Some(Facts::Stash {
                entries: vec!["stash@{1}".to_owned()]
            })
        );
        assert_eq!(
            f(&["git", "checkout", "HEAD~1", "."], FactsKind::Worktree),
            Some(Facts::Worktree {
                target: Some("HEAD~1".to_owned()),
                paths: vec![".".to_owned()]
            })
        );
        assert_eq!(f(&["rm", "-rf", "x"], FactsKind::Worktree), None);
    }
}
