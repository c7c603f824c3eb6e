//! PURE: a command rule as written (`[[rules]]` in the config, and the
//! built-in `src/classify/shell/rules.toml`) and the pattern language it
//! is written in, compiled (see [`crate::classify::shell`] for the
//! language). The config compiles each user rule as it reads it, so that a
//! bad one is reported where it is written; the agent door's classifier
//! ([`crate::classify::shell`]) matches the compiled rules against parsed
//! commands. It lives with the config, below the classifier, so that the
//! config never depends on the classifier (issue 39 item 2).
//!
//! Globs made of `*`, `?`, ASCII classes and `{a,b}` groups are matched
//! byte by byte (exactly as globset's regex would match them, tested
//! against it); globset compiles the rest.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;

use crate::classify::glob::{Tok, simple_glob, wildcard};
use crate::classify::vocab::Tier;

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

impl FactsKind {
    /// True when facts of this kind can raise a match above its rule's
    /// tier (commits on no other ref that a branch deletion or a push
    /// would lose): without them, the worst they could show is critical.
    pub(crate) fn may_raise(self) -> bool {
        matches!(self, Self::Branch | Self::Push)
    }
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

pub(crate) const ACCEPTED: &str = "a pattern is the program (a glob on the basename) followed by \
     words: `-f` (short flags), `--force` or `--force=GLOB` (long options), `--` (end of options), \
     `=GLOB` (any argument word), `<GLOB` (stdin data), `>GLOB` (an output redirection), \
     or a positional GLOB; `!` in front negates a word and `|` joins alternatives";

/// A compiled glob or literal.
#[derive(Debug, Clone)]
pub(crate) enum Pat {
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
    pub(crate) fn new(text: &str, ignore_case: bool) -> Result<Self, String> {
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
    pub(crate) fn globset(text: &str, ignore_case: bool) -> Result<Self, String> {
        GlobBuilder::new(text)
            .case_insensitive(ignore_case)
            .literal_separator(false)
            .empty_alternates(true)
            .build()
            .map(|g| Self::Glob(g.compile_matcher()))
            .map_err(|e| format!("bad glob `{text}`: {e}"))
    }

    pub(crate) fn is_match(&self, text: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Literal(l) => l == text,
            Self::Simple { alts, ic, .. } => alts.iter().any(|a| wildcard(a, text.as_bytes(), *ic)),
            Self::Glob(g) => g.is_match(Path::new(text)),
        }
    }
}

/// True when [`fold`] of `text` is `folded`, without building it.
pub(crate) fn folds_to(text: &str, folded: &str) -> bool {
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
pub(crate) fn fold(text: &str) -> String {
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
pub(crate) enum Cond {
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
pub(crate) enum Item {
    /// The next positional argument (in order) matching one of these.
    Positional(Vec<Pat>),
    /// One of these conditions holds (`negated`: none holds).
    Present { any: Vec<Cond>, negated: bool },
}

#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub(crate) ignore_case: bool,
    pub(crate) program: Vec<Pat>,
    pub(crate) items: Vec<Item>,
    pub(crate) allow_args: Vec<Pat>,
    pub(crate) via: Vec<Pat>,
}

/// A user rule, compiled.
pub(crate) fn compile_spec(spec: &RuleSpec) -> Result<Rule, RuleError> {
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

/// Compiles the `words` of `pattern` (split as a shell would).
pub(crate) fn compile<W: AsRef<str>, G: AsRef<str>>(
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

/// A high rule of `pattern` and nothing else, for tests (here and the
/// shell rules').
#[cfg(test)]
pub(crate) fn spec(pattern: &str) -> RuleSpec {
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn bad_patterns_are_named() {
        let error = compile_spec(&spec("!git push")).expect_err("negated program");
        assert!(error.to_string().contains("`!git push`"), "{error}");
        let error = compile_spec(&spec("git push -f|main")).expect_err("mixed");
        assert!(error.to_string().contains("mixes positional"), "{error}");
        let error = compile_spec(&spec("git push [z-a]")).expect_err("bad glob");
        assert!(error.to_string().contains("bad glob"), "{error}");
        let error = compile_spec(&spec("")).expect_err("empty");
        assert!(error.to_string().contains("empty"), "{error}");
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct RuleFile {
        #[expect(dead_code, reason = "read only to see that it parses")]
        rules: Vec<RuleSpec>,
    }

    #[test]
    fn rule_specs_deny_unknown_fields() {
        let result: Result<RuleFile, _> = toml::from_str(
            "[[rules]]\npattern = \"x\"\ntier = \"high\"\nreason = \"r\"\nbogus = 1\n",
        );
        assert!(result.is_err());
    }
}
