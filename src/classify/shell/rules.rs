//! PURE: rules (data) matched against parsed simple commands.
//!
//! The built-in rules live in `rules.toml` next to this file; `build.rs`
//! turns them into Rust statics, split into words and indexed by program
//! name. User rules use the same format (see the [`super`] module
//! documentation for the pattern language). Matching a command looks up only
//! the rules whose program can match, compiles those not compiled yet, and
//! builds one small `Subject`. Globs made of `*`, `?`, ASCII classes and
//! `{a,b}` groups are matched byte by byte (exactly as globset's regex would
//! match them, tested against it); globset compiles the rest.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;

use super::parse::{SimpleCommand, basename};
use crate::glob::{Tok, simple_glob, wildcard};
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
    /// Whether the tags named exist before the command.
    Tag,
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
    /// Measure the tags named: which exist before the command.
    Tag {
        /// The tag names.
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

#[cfg(test)]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    rules: Vec<RuleSpec>,
}

/// One built-in rule, as `build.rs` writes it from `rules.toml`: the fields
/// of its [`RuleSpec`], the pattern already split into words, and what the
/// index needs to skip it without compiling it.
struct Builtin {
    pattern: &'static str,
    words: &'static [&'static str],
    tier: Tier,
    reason: &'static str,
    ignore_case: bool,
    allow_args: &'static [&'static str],
    via: &'static [&'static str],
    facts: Option<FactsKind>,
    /// For a rule whose program is a glob (not indexed by name): the
    /// program's alternatives when each is a name or a name's prefix
    /// followed by `*` (`mkfs*`), one of which must fit; empty otherwise.
    program_filter: &'static [&'static str],
    /// Some argument must equal one of these words (the rule's first
    /// positional word, when all its alternatives are literal; folded for an
    /// `ignore-case` rule) for the rule to match.
    required: &'static [&'static str],
    /// It matches only a command with an output redirection.
    needs_output: bool,
}

// `BUILTIN`, `BUILTIN_COUNT`, `BY_PROGRAM` and `ANY_PROGRAM`.
include!(concat!(env!("OUT_DIR"), "/rules.rs"));

/// The built-in rules, each compiled the first time a command could match
/// it (its program, a literal word it needs, a redirection it needs are
/// there), once per process: compiling all of them costs milliseconds, more
/// than the agent door may spend on a harmless command. Boxed: the table is
/// 4 KB instead of 28, one page for a hook to write instead of seven.
static COMPILED: [OnceLock<Box<Rule>>; BUILTIN_COUNT] = [const { OnceLock::new() }; BUILTIN_COUNT];

/// The rule set: the built-in rules (compiled in by `build.rs`) plus any
/// user rules, which are compiled at once, so that a bad one is reported.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    user: Vec<UserRule>,
}

#[derive(Debug, Clone)]
struct UserRule {
    spec: RuleSpec,
    rule: Rule,
}

/// A rule that matched: what [`super::classify_with`] reports of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Matched<'r> {
    /// The rule's tier.
    pub tier: Tier,
    /// The rule's reason.
    pub reason: &'r str,
    /// What the adapter should measure.
    pub facts: Option<FactsKind>,
}

/// What of a command is only known when it runs (issue 26 item 10): the
/// rules that could match once it is known are found by
/// [`Rules::matching_unknown`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Unknown {
    /// The program is named at run time (`$cmd push -f origin main`): a
    /// rule of any program may match, when at least one of its words holds
    /// on the arguments that are seen.
    pub program: bool,
    /// More operands are appended at run time (`xargs`, `xargs -a FILE`):
    /// a positional word the visible arguments lack may be one of them,
    /// after the visible ones. Options are not supposed: a run-time list
    /// of names stays names (`git branch --merged | xargs git branch -d`).
    pub operands: bool,
}

impl FactsKind {
    /// True when facts of this kind can raise a match above its rule's
    /// tier (commits on no other ref that a branch deletion or a push
    /// would lose): without them, the worst they could show is critical.
    pub(crate) fn may_raise(self) -> bool {
        matches!(self, Self::Branch | Self::Push)
    }
}

impl Facts {
    /// True when a piece the adapter would measure is only known when the
    /// command runs (`git branch -D "$b"`, `git push origin $(cat ref)`):
    /// measuring the text as written would describe something else.
    pub fn names_unknown(&self) -> bool {
        let unknown = |s: &String| s.contains(['$', '`']);
        match self {
            Self::Worktree { target, paths } => {
                target.as_ref().is_some_and(unknown) || paths.iter().any(unknown)
            }
            Self::Push { remote, refspecs } => {
                remote.as_ref().is_some_and(unknown) || refspecs.iter().any(unknown)
            }
            Self::Branch { names } | Self::Tag { names } => names.iter().any(unknown),
            Self::Stash { entries } => entries.iter().any(unknown),
        }
    }
}

/// A compiled glob or literal.
#[derive(Debug, Clone)]
enum Pat {
    Any,
    Literal(String),
    /// A glob of `*` and single-byte atoms: one of these alternatives (the
    /// `{a,b}` groups expanded) matches, as globset's regex would.
    Simple {
        alts: Vec<Vec<Tok>>,
        ic: bool,
        /// The glob, as globset would be given it.
        #[cfg_attr(
            not(test),
            expect(dead_code, reason = "the tests compare the matcher with globset")
        )]
        text: String,
    },
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
        if let Some(alts) = simple_glob(&text, ignore_case) {
            return Ok(Self::Simple {
                alts,
                ic: ignore_case,
                text,
            });
        }
        Self::globset(&text, ignore_case)
    }

    /// The glob compiled by globset (to a regex): what [`Pat::Simple`]
    /// stands in for, and the reading of every glob it cannot take.
    fn globset(text: &str, ignore_case: bool) -> Result<Self, String> {
        GlobBuilder::new(text)
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
            Self::Simple { alts, ic, .. } => alts.iter().any(|a| wildcard(a, text.as_bytes(), *ic)),
            Self::Glob(g) => g.is_match(Path::new(text)),
        }
    }
}

/// True when [`fold`] of `text` is `folded`, without building it.
fn folds_to(text: &str, folded: &str) -> bool {
    text.split_whitespace()
        .enumerate()
        .flat_map(|(i, word)| {
            (i > 0)
                .then_some(' ')
                .into_iter()
                .chain(word.chars().flat_map(char::to_lowercase))
        })
        .eq(folded.chars())
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
    ignore_case: bool,
    program: Vec<Pat>,
    items: Vec<Item>,
    allow_args: Vec<Pat>,
    via: Vec<Pat>,
}

/// A user rule, compiled.
fn compile_spec(spec: &RuleSpec) -> Result<Rule, RuleError> {
    let words = shell_words::split(&spec.pattern).map_err(|e| RuleError {
        pattern: spec.pattern.clone(),
        message: format!("{e}; {ACCEPTED}"),
    })?;
    compile(
        &spec.pattern,
        &words,
        spec.ignore_case,
        &spec.allow_args,
        &spec.via,
    )
}

/// A built-in rule, compiled.
fn compile_builtin(builtin: &Builtin) -> Result<Rule, RuleError> {
    compile(
        builtin.pattern,
        builtin.words,
        builtin.ignore_case,
        builtin.allow_args,
        builtin.via,
    )
}

/// Compiles the `words` of `pattern` (split as a shell would).
fn compile<W: AsRef<str>, G: AsRef<str>>(
    pattern: &str,
    words: &[W],
    ic: bool,
    allow_args: &[G],
    via: &[G],
) -> Result<Rule, RuleError> {
    let error = |message: String| RuleError {
        pattern: pattern.to_owned(),
        message,
    };
    let Some((program, rest)) = words.split_first() else {
        return Err(error(format!("the pattern is empty; {ACCEPTED}")));
    };
    let program = program.as_ref();
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
    let mut items = Vec::new();
    for word in rest {
        let word = word.as_ref();
        let (negated, body) = match word.strip_prefix('!') {
            Some(body) => (true, body),
            None => (false, word),
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
    let allow_args = allow_args
        .iter()
        .map(|g| Pat::new(g.as_ref(), ic))
        .collect::<Result<Vec<_>, _>>()
        .map_err(error)?;
    let via = via
        .iter()
        .map(|g| Pat::new(g.as_ref(), false))
        .collect::<Result<Vec<_>, _>>()
        .map_err(error)?;
    Ok(Rule {
        ignore_case: ic,
        program,
        items,
        allow_args,
        via,
    })
}

impl Builtin {
    /// False when the rule cannot match `command` (whose program is
    /// `program`): no program alternative fits, no argument is a word the
    /// rule needs, or it is about a redirection and none is written
    /// (`unknown`: what may still come at run time).
    fn may_match(&self, program: &str, command: &SimpleCommand, unknown: Unknown) -> bool {
        let fits = |p: &&str| match p.strip_suffix('*') {
            Some(prefix) => program.starts_with(prefix),
            None => program == *p,
        };
        if !unknown.program
            && !self.program_filter.is_empty()
            && !self.program_filter.iter().any(fits)
        {
            return false;
        }
        if !unknown.operands && !self.required.is_empty() {
            let needed = |a: &String| {
                if self.ignore_case {
                    self.required.iter().any(|r| folds_to(a, r))
                } else {
                    self.required.contains(&a.as_str())
                }
            };
            if !command.argv.iter().skip(1).any(needed) {
                return false;
            }
        }
        !self.needs_output || !command.outputs.is_empty()
    }

    /// The rule, compiled on first use.
    fn rule(&'static self, index: usize) -> &'static Rule {
        COMPILED[index].get_or_init(|| {
            Box::new(compile_builtin(self).expect("the built-in rules compile (tested)"))
        })
    }

    fn matched(&'static self) -> Matched<'static> {
        Matched {
            tier: self.tier,
            reason: self.reason,
            facts: self.facts,
        }
    }
}

impl Rules {
    /// The built-in rules (`src/classify/shell/rules.toml`).
    pub fn builtin() -> Self {
        Self::default()
    }

    /// The built-in rules followed by `user` rules.
    pub fn with_user(user: &[RuleSpec]) -> Result<Self, RuleError> {
        let user = user
            .iter()
            .map(|spec| {
                Ok(UserRule {
                    rule: compile_spec(spec)?,
                    spec: spec.clone(),
                })
            })
            .collect::<Result<Vec<_>, RuleError>>()?;
        Ok(Self { user })
    }

    /// Compiles every built-in rule now (they are otherwise compiled on
    /// first use): the test that the data file is valid.
    pub fn compile_all(&self) -> Result<(), RuleError> {
        for builtin in &BUILTIN {
            compile_builtin(builtin)?;
        }
        Ok(())
    }

    /// How many rules there are.
    pub fn len(&self) -> usize {
        BUILTIN_COUNT + self.user.len()
    }

    /// True when there are no rules.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rules that match `command`, in rule order (the built-in ones,
    /// then the user's).
    pub(crate) fn matching(&self, command: &SimpleCommand) -> Vec<Matched<'_>> {
        self.matching_unknown(command, Unknown::default())
    }

    /// The rules that match `command` or could once what `unknown` says
    /// is only known at run time is known, in rule order.
    pub(crate) fn matching_unknown(
        &self,
        command: &SimpleCommand,
        unknown: Unknown,
    ) -> Vec<Matched<'_>> {
        let program = command.program();
        let literal = BY_PROGRAM
            .binary_search_by(|(name, _)| (*name).cmp(program))
            .map_or(&[][..], |i| BY_PROGRAM[i].1);
        let every: Vec<u16>;
        let candidates: &[u16] = if unknown.program {
            every = any_program_candidates(command, unknown);
            &every
        } else {
            literal
        };
        let any = if unknown.program {
            &[][..]
        } else {
            ANY_PROGRAM
        };
        let subject: OnceCell<Subject<'_>> = OnceCell::new();
        let fits =
            |rule: &Rule| unknown.program || rule.program.iter().any(|p| p.is_match(program));
        let mut found: Vec<u16> = Vec::new();
        for &index in candidates.iter().chain(any) {
            let builtin = &BUILTIN[usize::from(index)];
            // Before compiling: a rule that cannot match.
            if !builtin.may_match(program, command, unknown) {
                continue;
            }
            let rule = builtin.rule(usize::from(index));
            if fits(rule)
                && subject
                    .get_or_init(|| Subject::new(command))
                    .matches(rule, unknown)
            {
                found.push(index);
            }
        }
        found.sort_unstable();
        found.dedup();
        let mut out: Vec<Matched<'_>> = found
            .into_iter()
            .map(|i| BUILTIN[usize::from(i)].matched())
            .collect();
        for user in &self.user {
            if fits(&user.rule)
                && subject
                    .get_or_init(|| Subject::new(command))
                    .matches(&user.rule, unknown)
            {
                out.push(Matched {
                    tier: user.spec.tier,
                    reason: &user.spec.reason,
                    facts: user.spec.facts,
                });
            }
        }
        out
    }
}

/// The built-in rules a command whose program is only known at run time
/// could match, in rule order: those that need no literal word, and those
/// whose word is among its arguments (all of them when more operands may
/// come). Indexed once per process: every rule is a candidate here.
fn any_program_candidates(command: &SimpleCommand, unknown: Unknown) -> Vec<u16> {
    /// Rules checked for every such command, and the others by the word
    /// they need.
    type Index = (Vec<u16>, HashMap<&'static str, Vec<u16>>);
    static INDEX: OnceLock<Index> = OnceLock::new();
    let all = (0..BUILTIN_COUNT).filter_map(|i| u16::try_from(i).ok());
    if unknown.operands {
        return all.collect();
    }
    let (always, by_word) = INDEX.get_or_init(|| {
        let mut always = Vec::new();
        let mut by_word: HashMap<&'static str, Vec<u16>> = HashMap::new();
        for i in all {
            let builtin = &BUILTIN[usize::from(i)];
            if builtin.required.is_empty() || builtin.ignore_case {
                always.push(i);
            } else {
                for word in builtin.required {
                    by_word.entry(word).or_default().push(i);
                }
            }
        }
        (always, by_word)
    });
    let mut out = always.clone();
    for arg in command.argv.iter().skip(1) {
        if let Some(rules) = by_word.get(arg.as_str()) {
            out.extend(rules);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
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

    /// True when `rule` matches, or could once what `unknown` says is
    /// only known at run time is known.
    fn matches(&self, rule: &Rule, unknown: Unknown) -> bool {
        let ic = rule.ignore_case;
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
        // Positional words past the visible ones come from the operands
        // appended at run time, in order.
        let mut appended = false;
        // A word of the rule that holds on what is seen: a rule of any
        // program is only supposed for a command whose words it names.
        let mut seen = false;
        for item in &rule.items {
            match item {
                Item::Positional(_) if appended => {}
                Item::Positional(alts) => {
                    let found = (next..positionals.len()).find(|&j| {
                        let word = positionals.get(j);
                        alts.iter().any(|p| {
                            p.is_match(word) || self.in_dir(word).is_some_and(|w| p.is_match(&w))
                        })
                    });
                    match found {
                        Some(found) => {
                            used.push(found);
                            next = found + 1;
                            seen = true;
                        }
                        // Appended operands come after the visible ones:
                        // they cannot stand for a rule's first positional
                        // word (git's subcommand) when the command has one.
                        None if unknown.operands
                            && (!used.is_empty() || positionals.len() == 0) =>
                        {
                            appended = true;
                        }
                        None => return false,
                    }
                }
                Item::Present { any, negated } => {
                    let holds = any.iter().any(|c| self.holds(c, ic));
                    seen |= holds && !*negated;
                    if holds == *negated {
                        return false;
                    }
                }
            }
        }
        if unknown.program && !seen {
            return false;
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

    /// A relative path word as seen from where the line started: after
    /// `cd ~/.claude`, `settings.json` is `~/.claude/settings.json`.
    /// `None` when the command runs where the line started, or the word is
    /// absolute.
    fn in_dir(&self, word: &str) -> Option<String> {
        let cd = &self.command.cd;
        if cd.is_empty() || word.starts_with(['/', '~', '$', '-']) || word.is_empty() {
            return None;
        }
        Some(format!("{}/{word}", cd.join("/")))
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
                (0..words.len()).any(|j| {
                    let word = words.get(j);
                    p.is_match(word) || self.in_dir(word).is_some_and(|w| p.is_match(&w))
                })
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
                    self.command
                        .outputs
                        .iter()
                        .any(|o| p.is_match(o) || self.in_dir(o).is_some_and(|w| p.is_match(&w)))
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
        FactsKind::Tag => Facts::Tag {
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
        let rule = compile_spec(&spec(pattern)).expect("compiles");
        rule.program
            .iter()
            .any(|p| p.is_match(command(argv).program()))
            && Subject::new(&command(argv)).matches(&rule, Unknown::default())
    }

    #[test]
    fn builtin_rules_compile() {
        let rules = Rules::builtin();
        assert!(rules.len() > 50);
        rules.compile_all().unwrap();
    }

    /// Every glob and literal of a compiled rule.
    fn pats(rule: &Rule) -> Vec<&Pat> {
        let mut out: Vec<&Pat> = rule.program.iter().collect();
        for item in &rule.items {
            match item {
                Item::Positional(alts) => out.extend(alts),
                Item::Present { any, .. } => {
                    for cond in any {
                        match cond {
                            Cond::Long { glob, value, .. } => out.extend(glob.iter().chain(value)),
                            Cond::Exact(p)
                            | Cond::Positional(p)
                            | Cond::Stdin(p)
                            | Cond::Output(p) => out.push(p),
                            Cond::Short(_) | Cond::DashDash => {}
                        }
                    }
                }
            }
        }
        out.extend(&rule.allow_args);
        out.extend(&rule.via);
        out
    }

    fn compiled_builtins() -> Vec<Rule> {
        BUILTIN
            .iter()
            .map(|b| compile_builtin(b).expect("compiles"))
            .collect()
    }

    #[test]
    fn the_compiled_in_rules_are_rules_toml() {
        let file: RuleFile = toml::from_str(include_str!("rules.toml")).expect("rules.toml reads");
        assert_eq!(file.rules.len(), BUILTIN_COUNT);
        let literal = |p: &str| !p.is_empty() && !p.contains(['*', '?', '[', '{', '\\']);
        for (i, (spec, b)) in file.rules.iter().zip(&BUILTIN).enumerate() {
            let what = format!("rule {i} `{}`", spec.pattern);
            assert_eq!(b.pattern, spec.pattern, "{what}");
            assert_eq!(b.tier, spec.tier, "{what}");
            assert_eq!(b.reason, spec.reason, "{what}");
            assert_eq!(b.ignore_case, spec.ignore_case, "{what}");
            assert_eq!(b.allow_args, spec.allow_args, "{what}");
            assert_eq!(b.via, spec.via, "{what}");
            assert_eq!(b.facts, spec.facts, "{what}");
            let words = shell_words::split(&spec.pattern).expect("splits");
            assert_eq!(b.words, words, "{what}");
            // Listed under each of its literal programs, or with the rules
            // whose program is a glob.
            let programs: Vec<&str> = words[0].split('|').collect();
            let by_name = programs.iter().all(|p| literal(p));
            let index = u16::try_from(i).expect("fewer than 65,536 rules");
            for name in &programs {
                let listed = BY_PROGRAM
                    .iter()
                    .any(|(n, list)| n == name && list.contains(&index));
                assert_eq!(listed, by_name, "{what}: under `{name}`");
            }
            assert_eq!(ANY_PROGRAM.contains(&index), !by_name, "{what}");
        }
        assert!(BY_PROGRAM.windows(2).all(|w| w[0].0 < w[1].0), "sorted");
    }

    /// The index skips a rule only where it cannot match: `required` is
    /// the literal first positional word, `needs_output` a word of output
    /// targets only.
    #[test]
    fn the_index_skips_only_rules_that_cannot_match() {
        for (b, rule) in BUILTIN.iter().zip(compiled_builtins()) {
            if !b.required.is_empty() {
                let first = rule.items.iter().find_map(|item| match item {
                    Item::Positional(alts) => Some(alts),
                    Item::Present { .. } => None,
                });
                let texts: Vec<&str> = first
                    .expect("a positional word")
                    .iter()
                    .map(|p| match p {
                        Pat::Literal(l) => l.as_str(),
                        other => panic!("{}: {other:?} is not literal", b.pattern),
                    })
                    .collect();
                assert_eq!(texts, b.required, "{}", b.pattern);
            }
            if !b.program_filter.is_empty() {
                let texts: Vec<String> = rule
                    .program
                    .iter()
                    .map(|p| match p {
                        Pat::Literal(l) => l.clone(),
                        Pat::Simple { alts, .. }
                            if alts.len() == 1
                                && alts[0].last() == Some(&Tok::Star)
                                && alts[0][..alts[0].len() - 1]
                                    .iter()
                                    .all(|t| matches!(t, Tok::Byte(_))) =>
                        {
                            let prefix: Vec<u8> = alts[0]
                                .iter()
                                .filter_map(|t| match t {
                                    Tok::Byte(b) => Some(*b),
                                    _ => None,
                                })
                                .collect();
                            format!("{}*", String::from_utf8(prefix).expect("UTF-8"))
                        }
                        other => panic!("{}: {other:?} is no name or prefix", b.pattern),
                    })
                    .collect();
                assert_eq!(texts, b.program_filter, "{}", b.pattern);
            }
            if b.needs_output {
                assert!(
                    rule.items.iter().any(|item| matches!(
                        item,
                        Item::Present { any, negated: false }
                            if any.iter().all(|c| matches!(c, Cond::Output(_)))
                    )),
                    "{}",
                    b.pattern
                );
            }
        }
    }

    #[test]
    fn folds_to_is_fold() {
        for text in [
            "",
            " ",
            "Core.HooksPath",
            "  DROP \t\n TABLE  x ",
            "ΣΑΣ",
            "İx",
            "a b",
        ] {
            for folded in [fold(text), fold(text) + " ", "x".to_owned(), String::new()] {
                assert_eq!(
                    folds_to(text, &folded),
                    fold(text) == folded,
                    "{text:?} {folded:?}"
                );
            }
        }
    }

    #[test]
    fn builtin_globs_need_no_regex() {
        for (b, rule) in BUILTIN.iter().zip(compiled_builtins()) {
            for pat in pats(&rule) {
                assert!(!matches!(pat, Pat::Glob(_)), "{}: {pat:?}", b.pattern);
            }
        }
    }

    /// `text` matched by globset, as `Pat::Glob` would match it.
    fn globset_matches(glob: &str, ignore_case: bool, text: &str) -> Option<bool> {
        match Pat::globset(glob, ignore_case) {
            Ok(Pat::Glob(g)) => Some(g.is_match(Path::new(text))),
            _ => None,
        }
    }

    #[test]
    fn simple_globs_match_as_globset_does() {
        // Every word of the corpus, whole command lines, and their folded forms.
        let mut texts: Vec<String> = Vec::new();
        for line in include_str!("../../../fixtures/commands.tsv").lines() {
            let command = line.split('\t').nth(1).unwrap_or_default();
            texts.push(command.to_owned());
            for word in shell_words::split(command)
                .unwrap_or_default()
                .into_iter()
                .chain(command.split_whitespace().map(str::to_owned))
            {
                for prefix in ["", ">", "="] {
                    if let Some(rest) = word.strip_prefix(prefix) {
                        texts.push(rest.to_owned());
                        texts.push(fold(rest));
                    }
                }
            }
        }
        texts.extend(
            [
                "",
                "/",
                "-",
                "*",
                "?",
                "[",
                "]",
                "{",
                "}",
                ",",
                "é",
                "Ünïcödé",
                "a\nb",
                "\n",
                "/etc/",
                "/etc/x",
                "/etc/é",
                "/tmp/",
                "/tmp/x",
                "$TMPDIR",
                "${TMPDIR}/x",
                "${HOME}",
                "$HOME/*",
                "/*",
                "v1",
                "vX",
                "V1.2",
                "4755",
                "0755",
                "x.git",
                ".git",
                "a/.git/",
                "+main",
                "refs/heads/release/1",
                "origin:main",
                ":x",
                ":",
            ]
            .map(str::to_owned),
        );
        texts.sort();
        texts.dedup();
        let mut checked = 0;
        for (b, rule) in BUILTIN.iter().zip(compiled_builtins()) {
            for pat in pats(&rule) {
                let Pat::Simple { text: glob, ic, .. } = pat else {
                    continue;
                };
                let Ok(Pat::Glob(reference)) = Pat::globset(glob, *ic) else {
                    panic!("{}: globset rejects `{glob}`", b.pattern);
                };
                for text in &texts {
                    assert_eq!(
                        pat.is_match(text),
                        reference.is_match(Path::new(text)),
                        "{}: `{glob}` (ignore-case {ic}) on {text:?}",
                        b.pattern
                    );
                }
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked} globs");
    }

    proptest::proptest! {
        /// Any glob over a small alphabet that globset accepts: the byte
        /// matcher agrees with globset's regex, or leaves the glob to it.
        #[test]
        fn any_simple_glob_matches_as_globset_does(
            glob in "[ab*?,{}!^\\[\\]-]{0,9}",
            texts in proptest::collection::vec("[abAB,/\n\u{e9}-]{0,7}", 1..20),
            ignore_case: bool,
        ) {
            if let Some(alts) = simple_glob(&glob, ignore_case) {
                let simple = Pat::Simple { alts, ic: ignore_case, text: glob.clone() };
                for text in &texts {
                    let reference = globset_matches(&glob, ignore_case, text);
                    proptest::prop_assert!(reference.is_some(), "globset rejects `{}`", glob);
                    proptest::prop_assert_eq!(Some(simple.is_match(text)), reference, "`{}` on {:?}", glob, text);
                }
            }
        }
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
        let rule = compile_spec(&s).expect("compiles");
        assert!(Subject::new(&c).matches(&rule, Unknown::default()));
        let mut c = command(&["echo", "x"]);
        c.outputs.push("/etc/sudoers".to_owned());
        let rule = compile_spec(&spec("* >/etc/sudoers*")).expect("compiles");
        assert!(Subject::new(&c).matches(&rule, Unknown::default()));
    }

    #[test]
    fn allow_args_exempts_only_when_every_argument_is_allowed() {
        let mut s = spec("rm -r");
        s.allow_args = vec!["target".to_owned(), "/tmp/*".to_owned()];
        let rule = compile_spec(&s).expect("compiles");
        assert!(
            !Subject::new(&command(&["rm", "-rf", "target", "/tmp/x"]))
                .matches(&rule, Unknown::default())
        );
        assert!(
            Subject::new(&command(&["rm", "-rf", "target", "src"]))
                .matches(&rule, Unknown::default())
        );
        let mut xargs = command(&["rm", "-rf"]);
        xargs.args_from_stdin = true;
        assert!(Subject::new(&xargs).matches(&rule, Unknown::default()));
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
