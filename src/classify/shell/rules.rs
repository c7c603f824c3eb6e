//! PURE: rules (data) matched against parsed simple commands.
//!
//! The built-in rules live in `rules.toml` next to this file; `build.rs`
//! turns them into Rust statics, split into words and indexed by program
//! name. User rules use the same format (see the [`super`] module
//! documentation for the pattern language), read and compiled by
//! [`crate::classify::config::rule`]. Matching a command looks up only the rules
//! whose program can match, compiles those not compiled yet, and builds one
//! small `Subject`.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::sync::OnceLock;

use super::parse::{SimpleCommand, basename};
use crate::classify::config::rule::{
    Cond, FactsKind, Item, Rule, RuleError, RuleSpec, compile, compile_spec, fold, folds_to,
};
use crate::classify::vocab::Tier;

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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde::Deserialize;

    use super::*;
    use crate::classify::config::rule::{Pat, spec};
    use crate::classify::glob::{Tok, simple_glob};

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RuleFile {
        rules: Vec<RuleSpec>,
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
}
