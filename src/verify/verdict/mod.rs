//! PURE: verifier results and verdicts (SPEC sections 4 and 5.3).
//!
//! The shapes every verifier returns ([`VerifierResult`], [`Verdict`]),
//! what they combine into ([`combine`]), and three readers, one per kind of
//! text a verifier hands back:
//!
//! - `strict`: one verdict object, every field checked (a verifier
//!   program's `verdict`, through [`from_program`], and each verdict object
//!   the lenient reader finds in a model's answer);
//! - `lenient`: a model's whole answer as its provider carried it
//!   ([`read_answer`], used by the AI verifier): JSON wherever it stands,
//!   fenced, in prose, cut or tangled, found by a hand-written scanner;
//! - `intent`: the warn or block a model states in English around or
//!   instead of its JSON (`Recommendation: block`, `I would block this`,
//!   `do not proceed`), read by the lenient reader on every part.
//!
//! How a model's answer is read (the rule of SPEC 5.3, [`read_answer`]):
//! `verified` is the verifier's judgement that the operation is safe, so
//! `false` beside warn or block is the ordinary dangerous verdict, and a
//! contradiction (`true` with block, `false` with proceed, scores against
//! the recommendation) takes the more cautious reading. The whole answer
//! is read, whatever its size, each part at its most cautious: a key given
//! twice (`verified` false over true, the lowest scores), `verified` as
//! `"false"`, `"no"` or `0`, a second object, a retraction or a block
//! stated in the prose around the JSON (`I would block this`, `do not
//! proceed`, `**BLOCK**`). An answer is a proceed only when it is one clean
//! proceed; when any part of it carries warn or block, the most cautious
//! reading wins, malformed or not; a truncation, refusal or safety stop
//! makes it unusable unless a warn or block was already said; anything
//! else is unusable, never proceed. Reading is linear in the answer's
//! length, whatever it holds.

mod intent;
mod lenient;
mod strict;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use lenient::{Answer, Part, StopKind, Unread, read_answer};
pub use strict::{from_program, parse_verdict};

use crate::verify::store::{Empty, Owned, Store};

/// A verifier's overall status (SPEC section 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Nothing wrong.
    Pass,
    /// Something wrong: the operation should not proceed.
    Fail,
    /// A concern a person should see.
    Warn,
    /// The verifier chose not to judge.
    Skip,
    /// The verifier could not judge (crash, timeout, garbage).
    Error,
}

/// One check inside a result, held as `S` says ([`crate::verify::store`]: owned,
/// or borrowed from an audit line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "S::Str: Serialize, S::Lazy<Value>: Serialize + Empty",
    deserialize = "S::Str: Deserialize<'de>, S::Lazy<Value>: Deserialize<'de> + Default"
))]
pub struct Check<S: Store = Owned> {
    /// What was checked.
    pub name: S::Str,
    /// Its status.
    pub status: Status,
    /// One sentence.
    #[serde(default)]
    pub message: S::Str,
    /// Anything else.
    #[serde(default, skip_serializing_if = "crate::verify::store::is_empty")]
    pub details: S::Lazy<Value>,
}

/// The result shape every verifier returns (SPEC section 4), held as `S`
/// says ([`crate::verify::store`]: owned, or borrowed from an audit line, its
/// verdict then read only when asked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "S::Str: Serialize, Check<S>: Serialize, S::Lazy<Verdict>: Serialize",
    deserialize = "S::Str: Deserialize<'de>, Check<S>: Deserialize<'de>, S::Lazy<Verdict>: Deserialize<'de>"
))]
pub struct VerifierResult<S: Store = Owned> {
    /// The verifier's name.
    pub verifier: S::Str,
    /// Its version, as it says.
    pub version: S::Str,
    /// Its status.
    pub status: Status,
    /// Its checks.
    pub checks: Vec<Check<S>>,
    /// One line.
    pub summary: S::Str,
    /// Whether a fail blocks.
    pub blocking: bool,
    /// A verdict in the shape of SPEC 5.3, when the verifier gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<S::Lazy<Verdict>>,
    /// How long it ran.
    pub duration_ms: u64,
}

impl VerifierResult {
    /// A result with no checks.
    pub fn simple(verifier: &str, status: Status, summary: String, blocking: bool) -> Self {
        Self {
            verifier: verifier.to_owned(),
            version: String::new(),
            status,
            checks: Vec::new(),
            summary,
            blocking,
            verdict: None,
            duration_ms: 0,
        }
    }
}

/// What a verdict recommends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recommendation {
    /// Safe.
    Proceed,
    /// Minor concerns.
    Warn,
    /// Serious concerns.
    Block,
}

/// The four scores of a verdict, each in [0, 1], 1 meaning safe.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// Can it be undone?
    pub recoverability: f64,
    /// How much does it touch? (1: little)
    pub blast_radius: f64,
    /// Does it fit the stated intent?
    pub intent_fit: f64,
    /// Are there safeguards (backups, leases)?
    pub safeguards: f64,
}

impl Scores {
    /// What the overall score says with `proceed_at` and `block_below` as
    /// the band's edges (SPEC 5.3: 0.7 and 0.5; `git vouch eval` tries others).
    pub fn band_at(&self, proceed_at: f64, block_below: f64) -> Recommendation {
        let overall = self.overall();
        if overall >= proceed_at {
            Recommendation::Proceed
        } else if overall < block_below {
            Recommendation::Block
        } else {
            Recommendation::Warn
        }
    }

    /// 0.4 recoverability + 0.2 each of the others (SPEC 5.3).
    pub fn overall(&self) -> f64 {
        0.4 * self.recoverability
            + 0.2 * self.blast_radius
            + 0.2 * self.intent_fit
            + 0.2 * self.safeguards
    }
}

/// A verdict (SPEC 5.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The verifier's own judgement that the operation is safe as described:
    /// `false` beside warn or block is the ordinary dangerous verdict.
    pub verified: bool,
    /// In [0, 1] (0 when the answer gave none that could be read).
    pub confidence: f64,
    /// Concerns, each a sentence.
    pub concerns: Vec<String>,
    /// What it recommends (the most cautious its answer said).
    pub recommendation: Recommendation,
    /// One or two sentences.
    pub reasoning: String,
    /// The scores, when the answer carried all four.
    #[serde(default)]
    pub scores: Option<Scores>,
    /// What was wrong with the answer, read by its warn or block intent
    /// anyway (a proceed is never read from a defective answer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defects: Vec<String>,
}

impl Verdict {
    /// The recommendation the score band supports (the stated one when the
    /// answer carried no scores).
    pub fn band(&self) -> Recommendation {
        let Some(scores) = self.scores else {
            return self.recommendation;
        };
        scores.band_at(0.7, 0.5)
    }

    /// The recommendation to act on. On a contradiction the more cautious
    /// reading wins: between the recommendation and the scores, and between
    /// the recommendation and `verified` (`false` with proceed is at least
    /// a warn; `true` with block stays a block).
    pub fn effective(&self) -> Recommendation {
        let floor = if self.verified {
            Recommendation::Proceed
        } else {
            Recommendation::Warn
        };
        self.recommendation.max(self.band()).max(floor)
    }

    /// True when the recommendation disagrees with the scores or with `verified`.
    pub fn contradicts_scores(&self) -> bool {
        self.recommendation != self.band()
            || (!self.verified && self.recommendation == Recommendation::Proceed)
    }
}

impl Recommendation {
    /// The word of the schema.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Proceed => "proceed",
            Self::Warn => "warn",
            Self::Block => "block",
        }
    }
}

/// Reads a recommendation as models spell it: any case, surrounding
/// whitespace, quotes or markdown, and the words models use instead of the
/// schema's. Only clean "go ahead" words are a proceed; anything not on
/// these lists is not a recommendation at all (never a proceed).
pub fn recommendation_word(word: &str) -> Option<Recommendation> {
    let word = word.trim_matches(|c: char| !c.is_alphanumeric());
    if !(2..=64).contains(&word.len()) {
        // Shorter or longer than any word or phrase on these lists.
        return None;
    }
    // Lower case, `_` and `-` as spaces, one space between words.
    let mut phrase = String::with_capacity(word.len());
    let mut space = false;
    for c in word.chars() {
        let c = match c {
            '_' | '-' => ' ',
            '\u{2019}' => '\'',
            c => c,
        };
        if c.is_whitespace() {
            space = true;
        } else {
            if space {
                phrase.push(' ');
                space = false;
            }
            phrase.extend(c.to_lowercase());
        }
    }
    let lookup = |w: &str| match w {
        "proceed" | "allow" | "allowed" | "approve" | "approved" | "safe" | "ok" | "okay"
        | "pass" | "accept" => Some(Recommendation::Proceed),
        "warn"
        | "warning"
        | "warned"
        | "caution"
        | "cautious"
        | "proceed with caution"
        | "proceed carefully"
        | "ask"
        | "ask user"
        | "ask the user"
        | "review"
        | "needs review"
        | "manual review"
        | "human review"
        | "confirm"
        | "needs confirmation"
        | "flag"
        | "flagged"
        | "hold"
        | "pause"
        | "escalate" => Some(Recommendation::Warn),
        "block" | "blocked" | "deny" | "denied" | "reject" | "rejected" | "refuse" | "refused"
        | "stop" | "abort" | "no" | "halt" | "forbid" | "forbidden" | "disallow" | "disallowed"
        | "prohibit" | "veto" | "unsafe" | "dangerous" | "fail" | "do not proceed"
        | "don't proceed" | "dont proceed" | "not proceed" | "should not proceed"
        | "must not proceed" | "cannot proceed" | "can't proceed" | "do not push"
        | "don't push" | "do not allow" | "don't allow" | "not allowed" | "not approved"
        | "not safe" | "no go" => Some(Recommendation::Block),
        _ => None,
    };
    lookup(&phrase).or_else(|| {
        // "blocking", "denying", "proceeding with caution": the verb's
        // other forms, at the end of the phrase or as its first word.
        let ending = phrase
            .strip_suffix("ing")
            .and_then(|stem| lookup(stem).or_else(|| lookup(&format!("{stem}e"))));
        ending.or_else(|| {
            let (first, rest) = phrase.split_once(' ')?;
            let stem = first.strip_suffix("ing")?;
            lookup(&format!("{stem} {rest}")).or_else(|| lookup(&format!("{stem}e {rest}")))
        })
    })
}

/// What the verifiers concluded together.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "result")]
pub enum Outcome {
    /// Safe, with this confidence.
    Proceed {
        /// In [0, 1].
        confidence: f64,
    },
    /// Concerns a person should weigh.
    Warn,
    /// Serious concerns.
    Block,
    /// No usable verdict.
    Unavailable {
        /// Why.
        reason: String,
    },
}

impl Outcome {
    /// The audit log's `result` word.
    pub fn result_word(&self) -> &'static str {
        match self {
            Self::Proceed { .. } => "proceed",
            Self::Warn => "warn",
            Self::Block => "block",
            Self::Unavailable { .. } => "unavailable",
        }
    }
}

/// The combined outcome and what people should read about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Combined {
    /// The outcome.
    pub outcome: Outcome,
    /// Concerns from every verifier that raised any.
    pub concerns: Vec<String>,
    /// The reasoning of verdicts that gave one.
    pub reasoning: Vec<String>,
    /// Scores of the deciding verdict, when there was one.
    pub scores: Option<Scores>,
    /// Confidence of the deciding verdict.
    pub confidence: Option<f64>,
}

/// Combines results. Blocking results decide, the most cautious first;
/// non-blocking ones only add concerns. A blocking verifier that errored
/// turns an otherwise clean outcome into a warning: an error is never a pass.
pub fn combine(results: &[VerifierResult]) -> Combined {
    let mut concerns = Vec::new();
    let mut reasoning = Vec::new();
    let mut worst: Option<(Recommendation, f64, Option<Scores>)> = None;
    let mut errors = Vec::new();
    for r in results {
        let label = if r.blocking {
            r.verifier.clone()
        } else {
            format!("{} (non-blocking)", r.verifier)
        };
        if matches!(r.status, Status::Fail | Status::Warn | Status::Error) {
            concerns.push(format!("{label}: {}", r.summary));
        }
        if let Some(v) = &r.verdict {
            concerns.extend(v.concerns.iter().map(|c| format!("{label}: {c}")));
            if !v.reasoning.is_empty() {
                reasoning.push(format!("{label}: {}", v.reasoning));
            }
        }
        if !r.blocking || r.status == Status::Skip {
            continue;
        }
        let judged = match (&r.verdict, r.status) {
            (_, Status::Error) => {
                errors.push(format!("{}: {}", r.verifier, r.summary));
                continue;
            }
            (Some(v), status) => {
                let from_status = match status {
                    Status::Fail => Recommendation::Block,
                    Status::Warn => Recommendation::Warn,
                    _ => Recommendation::Proceed,
                };
                (v.effective().max(from_status), v.confidence, v.scores)
            }
            (None, Status::Pass) => (Recommendation::Proceed, 1.0, None),
            (None, Status::Warn) => (Recommendation::Warn, 1.0, None),
            (None, _) => (Recommendation::Block, 1.0, None),
        };
        worst = Some(match worst {
            None => judged,
            Some(w) if judged.0 > w.0 => judged,
            Some(w) if judged.0 == w.0 && judged.1 < w.1 => judged,
            Some(w) => w,
        });
    }
    let (outcome, scores, confidence) = match worst {
        None if errors.is_empty() => (
            Outcome::Unavailable {
                reason: "no verifier ran for this operation".into(),
            },
            None,
            None,
        ),
        None => (
            Outcome::Unavailable {
                reason: format!("every verifier failed to judge ({})", errors.join("; ")),
            },
            None,
            None,
        ),
        Some((Recommendation::Proceed, _, scores)) if !errors.is_empty() => {
            (Outcome::Warn, scores, None)
        }
        Some((Recommendation::Proceed, confidence, scores)) => {
            (Outcome::Proceed { confidence }, scores, Some(confidence))
        }
        Some((Recommendation::Warn, c, scores)) => (Outcome::Warn, scores, Some(c)),
        Some((Recommendation::Block, c, scores)) => (Outcome::Block, scores, Some(c)),
    };
    Combined {
        outcome,
        concerns,
        reasoning,
        scores,
        confidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A verdict object with every field, `rec` recommended and every
    /// score `s` (the tests of every reader use it).
    pub(super) fn verdict_json(rec: &str, s: f64) -> Value {
        json!({"verified": true, "confidence": 0.9, "concerns": ["c1"], "recommendation": rec,
               "reasoning": "r", "scores": {"recoverability": s, "blast_radius": s, "intent_fit": s, "safeguards": s}})
    }

    #[test]
    fn recommendation_words_are_read_deliberately() {
        use Recommendation::{Block, Proceed, Warn};
        for (word, want) in [
            ("proceed", Some(Proceed)),
            (" Proceed ", Some(Proceed)),
            ("ALLOW", Some(Proceed)),
            ("ok", Some(Proceed)),
            ("Block", Some(Block)),
            ("**BLOCK**", Some(Block)),
            ("blocking", Some(Block)),
            ("deny", Some(Block)),
            ("Reject", Some(Block)),
            ("refusing", Some(Block)),
            ("do_not_proceed", Some(Block)),
            ("no", Some(Block)),
            ("caution", Some(Warn)),
            ("proceed with caution", Some(Warn)),
            ("needs-review", Some(Warn)),
            ("yes", None),
            ("maybe", None),
            ("proceed|warn|block", None),
            ("", None),
        ] {
            assert_eq!(recommendation_word(word), want, "{word:?}");
        }
    }

    fn result(name: &str, status: Status, blocking: bool) -> VerifierResult {
        VerifierResult::simple(name, status, format!("{name} said {status:?}"), blocking)
    }

    #[test]
    fn combine_takes_the_most_cautious_blocking_result() {
        let c = combine(&[
            result("a", Status::Pass, true),
            result("b", Status::Warn, true),
        ]);
        assert_eq!(c.outcome, Outcome::Warn);
        let c = combine(&[
            result("a", Status::Fail, true),
            result("b", Status::Warn, true),
        ]);
        assert_eq!(c.outcome, Outcome::Block);
        let c = combine(&[result("a", Status::Pass, true)]);
        assert_eq!(c.outcome, Outcome::Proceed { confidence: 1.0 });
    }

    #[test]
    fn non_blocking_results_only_add_concerns() {
        let c = combine(&[
            result("a", Status::Pass, true),
            result("lint", Status::Fail, false),
        ]);
        assert_eq!(c.outcome, Outcome::Proceed { confidence: 1.0 });
        assert!(c.concerns[0].contains("lint (non-blocking)"));
    }

    #[test]
    fn errors_are_never_a_pass() {
        let c = combine(&[result("a", Status::Error, true)]);
        assert!(matches!(c.outcome, Outcome::Unavailable { .. }));
        let c = combine(&[
            result("a", Status::Pass, true),
            result("b", Status::Error, true),
        ]);
        assert_eq!(c.outcome, Outcome::Warn);
        let c = combine(&[]);
        assert!(matches!(c.outcome, Outcome::Unavailable { .. }));
    }
}
