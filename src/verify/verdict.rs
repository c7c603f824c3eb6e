//! PURE: verifier results and verdicts (SPEC sections 4 and 5.3).
//!
//! Reads what a verifier said, checks every field, and combines many
//! results into one outcome. An unusable answer is never read as proceed.
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

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::store::{Empty, Owned, Store};

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

/// One check inside a result, held as `S` says ([`crate::store`]: owned,
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
    #[serde(default, skip_serializing_if = "crate::store::is_empty")]
    pub details: S::Lazy<Value>,
}

/// The result shape every verifier returns (SPEC section 4), held as `S`
/// says ([`crate::store`]: owned, or borrowed from an audit line, its
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

/// A JSON value as the model wrote it: an object keeps every key in
/// order, a repeated one too. `serde_json`'s `Value` keeps only the last of
/// two, and `{"verified": false, ..., "verified": true}` must be read as
/// false (SPEC 5.3: a duplicate key that carries warn or block counts).
#[derive(Debug, Clone, PartialEq)]
enum Json {
    /// `null`, a boolean, a number or a string.
    Leaf(Value),
    /// A list.
    Array(Vec<Json>),
    /// An object: every key with its value, in the order written.
    Object(Vec<(String, Json)>),
}

impl Json {
    fn from_value(v: &Value) -> Self {
        match v {
            Value::Array(items) => Self::Array(items.iter().map(Self::from_value).collect()),
            Value::Object(m) => Self::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), Self::from_value(v)))
                    .collect(),
            ),
            leaf => Self::Leaf(leaf.clone()),
        }
    }

    /// As `serde_json` reads it (of a repeated key, the last), for messages.
    fn to_value(&self) -> Value {
        match self {
            Self::Leaf(v) => v.clone(),
            Self::Array(items) => Value::Array(items.iter().map(Self::to_value).collect()),
            Self::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }

    fn as_object(&self) -> Option<&[(String, Json)]> {
        match self {
            Self::Object(fields) => Some(fields),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Self::Leaf(Value::String(s)) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for Json {
    /// Compact JSON, cut after 100 characters: a message names the value,
    /// it does not repeat a long one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.to_value().to_string();
        match text.char_indices().nth(100) {
            Some((cut, _)) => write!(f, "{}...", &text[..cut]),
            None => f.write_str(&text),
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Json;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }

            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Leaf(Value::Bool(b)))
            }

            fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
                Ok(Json::Leaf(Value::from(n)))
            }

            fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
                Ok(Json::Leaf(Value::from(n)))
            }

            fn visit_f64<E>(self, n: f64) -> Result<Json, E> {
                Ok(Json::Leaf(Value::from(n)))
            }

            fn visit_str<E>(self, s: &str) -> Result<Json, E> {
                Ok(Json::Leaf(Value::String(s.to_owned())))
            }

            fn visit_string<E>(self, s: String) -> Result<Json, E> {
                Ok(Json::Leaf(Value::String(s)))
            }

            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Leaf(Value::Null))
            }

            fn visit_none<E>(self) -> Result<Json, E> {
                Ok(Json::Leaf(Value::Null))
            }

            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
                Json::deserialize(d)
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Json::Array(items))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry::<String, Json>()? {
                    fields.push(entry);
                }
                Ok(Json::Object(fields))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// Every value given for `key` in `fields`, in order.
fn values<'a>(fields: &'a [(String, Json)], key: &'a str) -> impl Iterator<Item = &'a Json> {
    fields.iter().filter(move |(k, _)| k == key).map(|(_, v)| v)
}

/// Names `key` when it is given more than once with different values: each
/// is read at its most cautious, and a proceed with it is not clean.
fn repeated(fields: &[(String, Json)], key: &str, label: &str, defects: &mut Vec<String>) {
    let mut all = values(fields, key);
    let Some(first) = all.next() else {
        return;
    };
    let mut count = 1;
    let mut differ = false;
    for v in all {
        count += 1;
        differ |= v != first;
    }
    if differ {
        defects.push(format!(
            "`{label}` is given {count} times with different values (the most cautious is read)"
        ));
    }
}

/// A number in [0, 1], read leniently: `"0.9"`, `90`, `"90%"` are 0.9.
/// `None` when it cannot be read as one.
fn lenient_unit(v: &Value) -> Option<f64> {
    let (x, percent) = match v {
        Value::Number(n) => (n.as_f64()?, false),
        Value::String(s) => {
            let t = s.trim();
            match t.strip_suffix('%') {
                Some(num) => (num.trim().parse::<f64>().ok()?, true),
                None => (t.parse::<f64>().ok()?, false),
            }
        }
        _ => return None,
    };
    if !x.is_finite() || x < 0.0 {
        None
    } else if percent || x > 1.0 {
        (x <= 100.0).then_some(x / 100.0)
    } else {
        Some(x)
    }
}

/// A `[0, 1]` value: clean, or read leniently with a defect, or missing.
fn unit_field(v: &Json, field: &str, defects: &mut Vec<String>) -> Option<f64> {
    match v {
        Json::Leaf(Value::Number(n)) if n.as_f64().is_some_and(|x| (0.0..=1.0).contains(&x)) => {
            n.as_f64()
        }
        Json::Leaf(Value::Null) => {
            defects.push(format!("`{field}` is missing"));
            None
        }
        Json::Leaf(other) => {
            let read = lenient_unit(other);
            defects.push(match read {
                Some(x) => format!("`{field}` is {v}, not a number in [0, 1] (read as {x})"),
                None => format!("`{field}` is {v}: it must be a number in [0, 1]"),
            });
            read
        }
        _ => {
            defects.push(format!("`{field}` is {v}: it must be a number in [0, 1]"));
            None
        }
    }
}

/// The lowest of every `[0, 1]` value given for `field` (its most cautious
/// reading), each read as [`unit_field`] reads it; missing when none is.
fn lowest<'a>(
    all: impl Iterator<Item = &'a Json>,
    field: &str,
    defects: &mut Vec<String>,
) -> Option<f64> {
    let mut low: Option<f64> = None;
    let mut any = false;
    for v in all {
        any = true;
        if let Some(x) = unit_field(v, field, defects) {
            low = Some(low.map_or(x, |l| l.min(x)));
        }
    }
    if !any {
        defects.push(format!("`{field}` is missing"));
    }
    low
}

/// One `verified` as models write it. Only a JSON boolean is clean. False
/// is also `"false"`, `"False"`, `"no"`, `0`, `"0"`: read as false, with a
/// defect. A clear true in another spelling (`"true"`, `"yes"`, `1`) is
/// read as true with a defect, so that it can stand beside a warn or a
/// block but never makes a clean proceed; anything else is not read at
/// all. Neither reading can turn a refusal into an allow.
fn truth(v: &Json, defects: &mut Vec<String>) -> Option<bool> {
    let word = match v {
        Json::Leaf(Value::Bool(b)) => return Some(*b),
        Json::Leaf(Value::Null) => {
            defects.push("`verified` is missing".into());
            return None;
        }
        Json::Leaf(Value::String(s)) => s
            .trim()
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase(),
        Json::Leaf(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    let read = match word.as_str() {
        "false" | "no" | "n" | "f" | "0" | "0.0" | "off" | "unverified" | "not verified"
        | "unsafe" | "not safe" | "fail" | "failed" => Some(false),
        "true" | "yes" | "y" | "t" | "1" | "1.0" | "on" | "verified" | "safe" => Some(true),
        _ => None,
    };
    defects.push(match read {
        Some(b) => format!("`verified` is {v}, not {b} (read as {b})"),
        None => format!("`verified` is {v}: it must be true or false"),
    });
    read
}

/// Keys that say what a verdict recommends, besides `recommendation`, in
/// the answers of models that did not follow the schema. They count only
/// for a warn or block.
const INTENT_ALIASES: &[&str] = &["decision", "verdict", "action", "recommend"];

/// Reads one verdict object: its most cautious reading and the verdict
/// with every defect named. Every key is read in every occurrence: a
/// repeated one at its most cautious (`verified` false over true, the
/// lowest confidence and scores, the most cautious recommendation), and
/// named as a defect when its values differ. The reading is the stated
/// recommendation raised by `verified: false` (at least warn) and by the
/// score band; `None` when no recommendation can be read.
fn read_object(m: &[(String, Json)]) -> (Option<Recommendation>, Verdict) {
    let mut defects = Vec::new();
    for key in [
        "verified",
        "recommendation",
        "confidence",
        "concerns",
        "reasoning",
        "scores",
    ]
    .iter()
    .chain(INTENT_ALIASES)
    {
        repeated(m, key, key, &mut defects);
    }
    let readings: Vec<Option<bool>> = values(m, "verified")
        .map(|v| truth(v, &mut defects))
        .collect();
    let verified = if readings.is_empty() {
        defects.push("`verified` is missing".into());
        None
    } else if readings.contains(&Some(false)) {
        Some(false)
    } else if readings.contains(&None) {
        None
    } else {
        Some(true)
    };
    let mut stated = Vec::new();
    let mut given = false;
    for v in values(m, "recommendation") {
        given = true;
        match v {
            Json::Leaf(Value::String(s)) => match recommendation_word(s) {
                Some(r) => stated.push(r),
                None => defects.push(format!(
                    "`recommendation` is {v}: it must be one of `proceed`, `warn`, `block`"
                )),
            },
            Json::Leaf(Value::Null) => defects.push("`recommendation` is missing".into()),
            other => defects.push(format!(
                "`recommendation` is {other}: it must be one of `proceed`, `warn`, `block`"
            )),
        }
    }
    if !given {
        defects.push("`recommendation` is missing".into());
    }
    stated.extend(
        INTENT_ALIASES
            .iter()
            .flat_map(|k| values(m, k))
            .filter_map(Json::as_str)
            .filter_map(recommendation_word)
            .filter(|r| *r > Recommendation::Proceed),
    );
    let mut intent = stated.iter().copied().max();
    if intent.is_none() && verified == Some(false) {
        // The verifier said it is not safe, without a usable word for what to do.
        intent = Some(Recommendation::Warn);
        defects.push("no recommendation: `verified: false` is read as warn".into());
    }
    let confidence = lowest(values(m, "confidence"), "confidence", &mut defects).unwrap_or(0.0);
    let mut concerns = Vec::new();
    let mut first: Option<&Json> = None;
    for v in values(m, "concerns") {
        if first.is_some_and(|f| f == v) {
            continue;
        }
        first.get_or_insert(v);
        match v {
            Json::Array(items) => {
                if !items.iter().all(|i| i.as_str().is_some()) {
                    defects.push("`concerns` must be a list of strings".into());
                }
                concerns.extend(items.iter().map(|i| {
                    i.as_str()
                        .map_or_else(|| i.to_value().to_string(), str::to_owned)
                }));
            }
            Json::Leaf(Value::String(s)) => {
                defects.push("`concerns` is a string, not a list of strings".into());
                concerns.push(s.clone());
            }
            _ => defects.push("`concerns` must be a list of strings".into()),
        }
    }
    if first.is_none() {
        defects.push("`concerns` must be a list of strings".into());
    }
    let mut texts: Vec<&str> = Vec::new();
    let mut any = false;
    for v in values(m, "reasoning") {
        any = true;
        match v.as_str() {
            Some(s) if texts.first() == Some(&s) => {}
            Some(s) => texts.push(s),
            None => defects.push("`reasoning` must be a string".into()),
        }
    }
    if !any {
        defects.push("`reasoning` must be a string".into());
    }
    let reasoning = texts.join(" / ");
    let given = values(m, "scores").count();
    let tables: Vec<&[(String, Json)]> = values(m, "scores").filter_map(Json::as_object).collect();
    if tables.is_empty() || tables.len() != given {
        defects.push(
            "`scores` must be an object with recoverability, blast_radius, intent_fit, safeguards"
                .into(),
        );
    }
    let scores = if tables.is_empty() {
        None
    } else {
        let mut g = |k: &str| {
            let label = format!("scores.{k}");
            for t in &tables {
                repeated(t, k, &label, &mut defects);
            }
            lowest(
                tables.iter().flat_map(|t| values(t, k)),
                &label,
                &mut defects,
            )
        };
        match (
            g("recoverability"),
            g("blast_radius"),
            g("intent_fit"),
            g("safeguards"),
        ) {
            (Some(recoverability), Some(blast_radius), Some(intent_fit), Some(safeguards)) => {
                Some(Scores {
                    recoverability,
                    blast_radius,
                    intent_fit,
                    safeguards,
                })
            }
            _ => None,
        }
    };
    let verdict = Verdict {
        verified: verified.unwrap_or(false),
        confidence,
        concerns,
        recommendation: intent.unwrap_or(Recommendation::Block),
        reasoning,
        scores,
        defects,
    };
    let floor = if verified == Some(false) {
        Recommendation::Warn
    } else {
        Recommendation::Proceed
    };
    let caution = intent.map(|i| i.max(verdict.band()).max(floor));
    (caution, verdict)
}

/// Validates a verdict object (a verifier program's `verdict`). A proceed
/// must be complete and clean; a recognisable warn or block is that
/// verdict whatever else is wrong with it; anything else is unusable, with
/// every problem named so that a retry can say exactly what to fix.
pub fn parse_verdict(v: &Value) -> Result<Verdict, Vec<String>> {
    let Some(obj) = v.as_object() else {
        return Err(vec!["the verdict must be a JSON object".into()]);
    };
    let fields: Vec<(String, Json)> = obj
        .iter()
        .map(|(k, v)| (k.clone(), Json::from_value(v)))
        .collect();
    match read_object(&fields) {
        (Some(Recommendation::Proceed), v) if !v.defects.is_empty() => Err(v.defects),
        (Some(_), v) => Ok(v),
        (None, v) => Err(v.defects),
    }
}

/// One part of a model's answer: a content block, a candidate, a choice or
/// a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text the model wrote: JSON, fenced JSON, JSON in prose, or prose.
    Text(String),
    /// A tool call's input, as its raw JSON text (duplicate keys kept).
    Tool(String),
}

/// How an answer stopped short of a finished one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopKind {
    /// Cut at the output budget (or stopped for another non-final reason).
    Truncated,
    /// The model refused.
    Refused,
    /// A safety system stopped the prompt or the answer.
    Safety,
}

/// A model's answer, as its provider's envelope carried it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    /// Every part, in order.
    pub parts: Vec<Part>,
    /// The first refusal or safety stop, else the first truncation, with
    /// what the provider said.
    pub stop: Option<(StopKind, String)>,
}

/// Why an answer holds no verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// What is wrong, in words the model can act on.
    pub problem: String,
    /// The answer stopped short this way.
    pub stop: Option<StopKind>,
}

impl Unread {
    /// Worth asking the same model again with feedback: not after a refusal
    /// or a safety stop (it would refuse again).
    pub fn retry(&self) -> bool {
        !matches!(self.stop, Some(StopKind::Refused | StopKind::Safety))
    }
}

/// A clean proceed is at most this long: a verdict is a few hundred bytes.
/// A longer answer is still read whole for a warn or a block (a block
/// buried in it stands), but it is never taken as one clean proceed.
const MAX_PART: usize = 64 * 1024;

/// Verdict objects are looked for this many levels deep (wrappers such as
/// `{"verdict": {...}}` and verdicts in strings); anything deeper is not
/// read, and an answer with such a part is not one clean proceed.
const MAX_DEPTH: usize = 4;

/// Every outermost JSON object in `text` with its byte span, and whether
/// every `{` in it was tried. Where no object parses at a `{`, the next
/// `{` is tried (an object may start inside a broken one), which costs the
/// length of the failed attempt; past a budget of twice the text's
/// length the rest is left untried, so that reading stays linear in the
/// answer's size. An answer that tangled is not one clean proceed (the
/// caller's rule), and a warn or block in it is still found in its words.
fn objects(text: &str) -> (Vec<(usize, usize, Json)>, bool) {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut budget = text.len().saturating_mul(2).saturating_add(64 * 1024);
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'{', &bytes[i..]) {
        let start = i + at;
        // Recognised without a value built, then parsed once; most `{` in
        // prose are not followed by a key or `}` and fail at once.
        let next = skip_space(bytes, start + 1);
        let parsed = if matches!(bytes.get(next), Some(b'"' | b'}')) {
            match skip_value(bytes, start, 0) {
                Ok(end) => serde_json::from_str::<Json>(&text[start..end])
                    .map(|v| (end, v))
                    .map_err(|_| end),
                Err(failed) => Err(failed + 1),
            }
        } else {
            Err(next + 1)
        };
        match parsed {
            Ok((end, v)) => {
                out.push((start, end, v));
                i = end;
            }
            Err(reached) => {
                let cost = reached - start;
                if cost > budget {
                    return (out, false);
                }
                budget -= cost;
                i = start + 1;
            }
        }
    }
    (out, true)
}

/// How deep `serde_json` nests before it gives up.
const JSON_DEPTH: usize = 128;

/// The end of the JSON value at `i` (after whitespace) in `b`, or the
/// offset where it stops being one. A recogniser only (nothing is built):
/// the same grammar as `serde_json`, so that a failed try at a `{` costs
/// no more than the bytes it looked at.
fn skip_value(b: &[u8], i: usize, depth: usize) -> Result<usize, usize> {
    let i = skip_space(b, i);
    match b.get(i) {
        Some(open @ (b'{' | b'[')) => {
            if depth >= JSON_DEPTH {
                return Err(i);
            }
            let (object, close) = (*open == b'{', if *open == b'{' { b'}' } else { b']' });
            let mut j = skip_space(b, i + 1);
            if b.get(j) == Some(&close) {
                return Ok(j + 1);
            }
            loop {
                if object {
                    if b.get(j) != Some(&b'"') {
                        return Err(j);
                    }
                    j = skip_space(b, skip_string(b, j)?);
                    if b.get(j) != Some(&b':') {
                        return Err(j);
                    }
                    j += 1;
                }
                j = skip_space(b, skip_value(b, j, depth + 1)?);
                match b.get(j) {
                    Some(b',') => j = skip_space(b, j + 1),
                    Some(c) if *c == close => return Ok(j + 1),
                    _ => return Err(j),
                }
            }
        }
        Some(b'"') => skip_string(b, i),
        Some(b't') => skip_word(b, i, b"true"),
        Some(b'f') => skip_word(b, i, b"false"),
        Some(b'n') => skip_word(b, i, b"null"),
        Some(b'-' | b'0'..=b'9') => skip_number(b, i),
        _ => Err(i),
    }
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

fn skip_word(b: &[u8], i: usize, word: &[u8]) -> Result<usize, usize> {
    for (k, c) in word.iter().enumerate() {
        if b.get(i + k) != Some(c) {
            return Err(i + k);
        }
    }
    Ok(i + word.len())
}

/// A string at `i` (its opening quote): escapes as JSON has them, no raw
/// control character.
fn skip_string(b: &[u8], i: usize) -> Result<usize, usize> {
    let mut j = i + 1;
    loop {
        match b.get(j) {
            Some(b'"') => return Ok(j + 1),
            Some(b'\\') => match b.get(j + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => j += 2,
                Some(b'u') => {
                    let hex = b.get(j + 2..j + 6).ok_or(b.len())?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return Err(j);
                    }
                    j += 6;
                }
                _ => return Err(j),
            },
            Some(c) if *c >= 0x20 => j += 1,
            _ => return Err(j),
        }
    }
}

/// A number at `i`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn skip_number(b: &[u8], i: usize) -> Result<usize, usize> {
    let digits = |mut j: usize| {
        let from = j;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j == from { Err(j) } else { Ok(j) }
    };
    let mut j = i + usize::from(b.get(i) == Some(&b'-'));
    j = if b.get(j) == Some(&b'0') {
        j + 1
    } else {
        digits(j)?
    };
    if b.get(j) == Some(&b'.') {
        j = digits(j + 1)?;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        j += 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        j = digits(j)?;
    }
    Ok(j)
}

/// Reads every object inside `v` that looks like a verdict into `reads`:
/// `v` itself, and whatever it wraps (`{"verdict": {...}}`,
/// `{"result": "{...}"}`, lists of verdicts), [`MAX_DEPTH`] levels deep.
/// `complete` turns false when something was left unread.
fn verdict_objects(
    v: &Json,
    depth: usize,
    reads: &mut Vec<(Option<Recommendation>, Verdict)>,
    complete: &mut bool,
) {
    let nested = match v {
        Json::Leaf(Value::String(s)) => s.contains('{'),
        Json::Leaf(_) => false,
        Json::Array(_) | Json::Object(_) => true,
    };
    if !nested {
        return;
    }
    if depth > MAX_DEPTH {
        *complete = false;
        return;
    }
    match v {
        Json::Object(fields) => {
            let looks = fields.iter().any(|(k, v)| {
                k == "recommendation"
                    || k == "verified"
                    || (INTENT_ALIASES.contains(&k.as_str()) && v.as_str().is_some())
            });
            if looks {
                reads.push(read_object(fields));
            }
            for (_, inner) in fields {
                verdict_objects(inner, depth + 1, reads, complete);
            }
        }
        Json::Array(items) => {
            for inner in items {
                verdict_objects(inner, depth + 1, reads, complete);
            }
        }
        Json::Leaf(Value::String(s)) => {
            let (found, whole) = objects(s);
            *complete &= whole;
            for (_, _, inner) in &found {
                verdict_objects(inner, depth + 1, reads, complete);
            }
        }
        Json::Leaf(_) => {}
    }
}

/// The words after which a model states its verdict: `Recommendation:
/// block`, `my verdict is BLOCK`, `I recommend blocking`, `I'd advise
/// against proceeding`, `## Decision` then `**Deny**`. The rest of the
/// word is skipped (`recommend|ation`, `suggest|ion`).
const INTENT_KEYS: &[&str] = &[
    "recommend",
    "verdict",
    "decision",
    "answer",
    "conclusion",
    "assessment",
    "advise",
    "suggest",
];

/// Words that may stand between an intent key and the word it states:
/// "my recommendation *is to* block", "I recommend *that you* block",
/// "*final* verdict *would be*: block".
const FILLERS: &[&str] = &[
    "is",
    "was",
    "would",
    "will",
    "should",
    "must",
    "be",
    "remains",
    "stays",
    "stands",
    "changes",
    "changed",
    "now",
    "then",
    "therefore",
    "still",
    "here",
    "to",
    "that",
    "we",
    "you",
    "i",
    "it",
    "this",
    "a",
    "an",
    "my",
    "our",
    "the",
    "final",
    "firm",
    "firmly",
    "clear",
    "clearly",
    "strongly",
    "definitely",
    "revised",
    "updated",
    "action",
    "course",
    "of",
    "as",
];

/// Words that turn what follows around: "I recommend *against* proceeding".
const NEGATIONS: &[&str] = &["not", "against", "never"];

/// Words that, negated, say "do not go ahead": a verb of [`GO_VERBS`]
/// ("do not *proceed*", "I cannot *recommend* this") or what it points at
/// ("I recommend against *it*").
fn is_go_word(word: &str) -> bool {
    GO_VERBS.contains(&word) || matches!(word, "it" | "this" | "that")
}

/// The recommendation that the longest of the first three words of
/// `phrase` spells, if any. A lone "no" counts only when nothing follows it
/// in the phrase ("Verdict: no." is a block, "Verdict: no data loss" is not).
fn phrase_word(phrase: &str) -> Option<Recommendation> {
    // Where each of the first three words ends.
    let mut ends = [0; 3];
    let mut n = 0;
    let mut in_word = false;
    for (i, c) in phrase.char_indices() {
        if !c.is_whitespace() {
            in_word = true;
        } else if in_word {
            in_word = false;
            ends[n] = i;
            n += 1;
            if n == ends.len() {
                break;
            }
        }
    }
    if in_word && n < ends.len() {
        ends[n] = phrase.len();
        n += 1;
    }
    (1..=n).rev().find_map(|k| {
        let words = &phrase[..ends[k - 1]];
        if k == 1 && n > 1 && words.trim() == "no" {
            return None;
        }
        recommendation_word(words)
    })
}

/// The warn or block stated in `window`, the lower-case text right after
/// an intent key. A negated go-ahead ("not to proceed", "against it") is a
/// block; a negated block is nothing stated (the prose rule still sees it).
fn intent_after(window: &str) -> Option<Recommendation> {
    let mut rest = window.trim_start_matches(char::is_alphanumeric);
    let mut negated = false;
    let mut fillers = 0;
    loop {
        rest = rest.trim_start_matches(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\''
                        | '*'
                        | '_'
                        | '`'
                        | '\\'
                        | '#'
                        | '>'
                        | ':'
                        | '='
                        | '-'
                        | '\u{2014}'
                        | '\u{2013}'
                        | '\u{2192}'
                )
        });
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '\''))
            .unwrap_or(rest.len());
        if len == 0 {
            return None;
        }
        let word = &rest[..len];
        if NEGATIONS.contains(&word) {
            negated = true;
        } else if negated && is_go_word(word) {
            return Some(Recommendation::Block);
        } else if FILLERS.contains(&word) && fillers < 5 {
            fillers += 1;
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || matches!(c, ' ' | '\'' | '-' | '_')))
                .unwrap_or(rest.len());
            let phrase = &rest[..rest.floor_char_boundary(end.min(40))];
            return match phrase_word(phrase) {
                Some(Recommendation::Proceed) if negated => Some(Recommendation::Block),
                Some(r) if !negated && r > Recommendation::Proceed => Some(r),
                _ => None,
            };
        }
        rest = &rest[len..];
    }
}

/// `text` without its `<think>` sections (a reasoning model's draft; one
/// left open runs to the end), in one pass.
fn without_think(lower: &str) -> String {
    let mut out = String::with_capacity(lower.len());
    let mut rest = lower;
    while let Some(s) = rest.find("<think>") {
        out.push_str(&rest[..s]);
        out.push('\n');
        rest = rest[s..]
            .find("</think>")
            .map_or("", |e| &rest[s + e + "</think>".len()..]);
    }
    out.push_str(rest);
    out
}

/// The verbs that, negated, say "do not go ahead": "should not *push*".
const GO_VERBS: &[&str] = &[
    "proceed",
    "proceeding",
    "push",
    "pushing",
    "allow",
    "allowing",
    "approve",
    "approving",
    "recommend",
    "recommending",
    "endorse",
    "sanction",
    "permit",
];

/// Words between the subject and the verb: "I *would strongly* block".
const SUBJECT_FILLERS: &[&str] = &[
    "would",
    "will",
    "should",
    "must",
    "have",
    "has",
    "need",
    "to",
    "am",
    "are",
    "going",
    "now",
    "still",
    "actually",
    "instead",
    "definitely",
    "strongly",
    "clearly",
    "really",
    "therefore",
    "also",
    "rather",
    "shall",
    "do",
    "hereby",
    "firmly",
    "ultimately",
    "better",
    "then",
    "so",
];

/// Verbs of stopping an operation.
const BLOCK_VERBS: &[&str] = &[
    "block",
    "blocking",
    "deny",
    "denying",
    "reject",
    "rejecting",
    "refuse",
    "refusing",
    "veto",
    "vetoing",
    "abort",
    "aborting",
    "halt",
    "halting",
    "disallow",
    "disallowing",
    "forbid",
    "forbidding",
    "prohibit",
    "prohibiting",
];

/// Verbs of raising a concern for a person.
const WARN_VERBS: &[&str] = &[
    "warn",
    "warning",
    "flag",
    "flagging",
    "escalate",
    "escalating",
];

/// Participles of stopping an operation: "this should be *blocked*".
const BLOCKED: &[&str] = &[
    "blocked",
    "denied",
    "rejected",
    "refused",
    "vetoed",
    "aborted",
    "halted",
    "stopped",
    "prevented",
    "disallowed",
    "forbidden",
    "prohibited",
];

/// Words before which a statement is a hypothesis ("*if* it were main I
/// would block it", "*nothing* we need to block"), not a verdict. Such a
/// statement is not read as a block; the prose rule still makes a proceed
/// beside it unclean.
const HYPOTHETICAL: &[&str] = &[
    "if",
    "unless",
    "whether",
    "were",
    "nothing",
    "anything",
    "no",
    "not",
    "never",
    "otherwise",
    "would've",
    "could",
    "might",
];

/// A modal negated in one word: "*don't* proceed", "*cannot* approve".
const NEGATED: u8 = 1;
/// A modal that "not" negates: "*do* not proceed", "*should* not push".
const MODAL: u8 = 2;
/// Who states a verdict: "*I* would block this", "*we* should reject it".
const SUBJECT: u8 = 4;
/// A modal of judgement: "this *should* be blocked", "it *would* be a block".
const JUDGE: u8 = 8;
/// A plain negation: "*not* safe", "*isn't* advisable".
const NOT: u8 = 16;
/// A change of mind: "*changing* my answer to block".
const CHANGE: u8 = 32;

/// What a statement in prose may start with `w` (one `match`: prose is
/// read word by word).
fn cues(w: &str) -> u8 {
    // No cue starts with another letter: most words are decided here.
    if !matches!(
        w.as_bytes().first(),
        Some(
            b'a' | b'c'
                | b'd'
                | b'e'
                | b'h'
                | b'i'
                | b'm'
                | b'n'
                | b'o'
                | b'r'
                | b's'
                | b'u'
                | b'w'
        )
    ) {
        return 0;
    }
    match w {
        "don't" | "dont" | "shouldn't" | "shouldnt" | "mustn't" | "mustnt" | "cannot" | "can't"
        | "cant" | "wouldn't" | "wouldnt" | "won't" => NEGATED,
        "do" | "will" | "can" | "could" | "shall" => MODAL,
        "should" | "must" | "would" => MODAL | JUDGE,
        "needs" | "need" | "has" | "have" | "ought" => JUDGE,
        "i" | "we" | "i'd" | "i'll" | "i'm" | "we'd" | "we'll" | "we're" => SUBJECT,
        "not" | "isn't" | "isnt" => NOT,
        "change" | "changing" | "changed" | "revise" | "revising" | "revised" | "update"
        | "updating" | "updated" | "upgrade" | "upgrading" | "upgraded" | "switch"
        | "switching" | "switched" | "escalate" | "escalating" | "escalated" | "amend"
        | "amending" | "amended" => CHANGE,
        _ => 0,
    }
}

/// Calls `sentence` with the words of each sentence of `lower`, in one pass
/// over its bytes. A word is ASCII letters, digits and apostrophes (quotes
/// around it dropped); anything else separates words, and `.`, `!`, `?`,
/// `;`, a line break, a double quote or a bracket ends a sentence (so
/// that the strings of a JSON object are sentences of their own).
fn sentences<'a>(lower: &'a str, mut sentence: impl FnMut(&[&'a str])) {
    let b = lower.as_bytes();
    let mut words: Vec<&'a str> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphanumeric() || b[i] == b'\'' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'\'') {
                i += 1;
            }
            let w = lower[start..i].trim_matches('\'');
            if !w.is_empty() {
                words.push(w);
            }
            continue;
        }
        if matches!(
            b[i],
            b'.' | b'!' | b'?' | b';' | b'\n' | b'"' | b'{' | b'}' | b'[' | b']'
        ) && !words.is_empty()
        {
            sentence(&words);
            words.clear();
        }
        i += 1;
    }
    if !words.is_empty() {
        sentence(&words);
    }
}

/// Warn and block intents that prose states without a key: "do not
/// proceed", "this should not be allowed", "I would block this", "this
/// should be a block", "I'm changing my answer to BLOCK", and a line that
/// is only a verdict word (`**BLOCK**`). `prose` is lower case, `<think>`
/// sections removed. A statement is read within its sentence, a
/// hypothesis aside.
fn prose_intents(prose: &str, out: &mut Vec<Recommendation>) {
    for line in prose.lines() {
        if line.len() <= 40
            && let Some(r) = recommendation_word(line)
            && r > Recommendation::Proceed
        {
            out.push(r);
        }
    }
    sentences(prose, |words| {
        for (i, w) in words.iter().enumerate() {
            let cue = cues(w);
            if cue != 0 {
                statement(words, i, cue, out);
            }
        }
    });
}

/// The warn or block stated by the words of a sentence from `i` on, where
/// `words[i]` has the cues `cue`.
fn statement(words: &[&str], i: usize, cue: u8, out: &mut Vec<Recommendation>) {
    use Recommendation::{Block, Warn};
    let at = |i: usize| words.get(i).copied().unwrap_or("");
    let w = words[i];
    // "do not proceed", "cannot approve", "should not be allowed".
    let after = if cue & NEGATED != 0 {
        Some(i + 1)
    } else if cue & MODAL != 0 && at(i + 1) == "not" {
        Some(i + 2)
    } else {
        None
    };
    if let Some(mut j) = after {
        if matches!(at(j), "yet" | "safely" | "really" | "simply" | "just") {
            j += 1;
        }
        let v = at(j);
        let passive = matches!(
            at(j + 1),
            "allowed" | "approved" | "permitted" | "pushed" | "merged" | "accepted"
        );
        if GO_VERBS.contains(&v) || (v == "go" && at(j + 1) == "ahead") || (v == "be" && passive) {
            out.push(Block);
        }
    }
    // "not safe", "not recommended", "is not advisable".
    if cue & NOT != 0 {
        let j = i + 1 + usize::from(matches!(at(i + 1), "be" | "very" | "entirely"));
        if matches!(
            at(j),
            "safe" | "recommended" | "advisable" | "approved" | "acceptable" | "wise"
        ) {
            out.push(Block);
        }
    }
    // "change my answer to block", "upgrading this to a warn".
    if cue & CHANGE != 0
        && let Some(to) = (i + 1..(i + 6).min(words.len())).find(|&j| words[j] == "to")
    {
        let k = to + 1 + usize::from(matches!(at(to + 1), "a" | "an"));
        let tail = &words[k.min(words.len())..(k + 3).min(words.len())];
        if let Some(r) = phrase_word(&tail.join(" "))
            && r > Recommendation::Proceed
        {
            out.push(r);
        }
    }
    if cue & (SUBJECT | JUDGE) == 0
        || words[i.saturating_sub(6)..i]
            .iter()
            .any(|p| HYPOTHETICAL.contains(p))
    {
        return;
    }
    // "I would block this", "we should reject it", "I'm blocking".
    if cue & SUBJECT != 0 {
        let mut j = i + 1;
        while j < i + 4 && SUBJECT_FILLERS.contains(&at(j)) {
            j += 1;
        }
        let v = at(j);
        // "I refuse to evaluate this" is a refusal, not a verdict.
        let refusal = v.starts_with("refus") && at(j + 1) == "to";
        if BLOCK_VERBS.contains(&v) && !refusal {
            out.push(Block);
        } else if WARN_VERBS.contains(&v) {
            out.push(Warn);
        }
    }
    // "this should be blocked", "it must be a block", "should be flagged".
    if cue & JUDGE != 0 {
        let mut j = i + 1;
        if matches!(
            at(j),
            "to" | "probably" | "definitely" | "clearly" | "really"
        ) {
            j += 1;
        }
        if at(j) == "to" {
            j += 1;
        }
        if at(j) != "be" {
            return;
        }
        j += 1;
        while j < i + 8
            && matches!(
                at(j),
                "a" | "an"
                    | "treated"
                    | "considered"
                    | "marked"
                    | "classed"
                    | "as"
                    | "clear"
                    | "hard"
                    | "definite"
            )
        {
            j += 1;
        }
        let v = at(j);
        // "would be rejected by the server" describes; "should" judges.
        let judged = w != "would";
        if v == "block" || (judged && BLOCKED.contains(&v)) {
            out.push(Block);
        } else if matches!(v, "warn" | "warning")
            || (judged && matches!(v, "flagged" | "reviewed" | "escalated"))
        {
            out.push(Warn);
        }
    }
}

/// Warn and block intents stated anywhere in `text`, JSON or prose, each
/// occurrence on its own: `"recommendation": "block"` twice in one object
/// (a JSON parser keeps only the last), in a broken or cut object, after an
/// intent key (`**Recommendation:** BLOCK`, `Verdict: deny`, `my
/// recommendation is to block`, `I recommend against proceeding`), or in
/// prose ([`prose_intents`]). Linear in the text's length: every key is
/// read in a window of bounded length after it.
fn stated_intents(text: &str) -> Vec<Recommendation> {
    let lower = text.to_lowercase().replace('\u{2019}', "'");
    let mut out = Vec::new();
    for key in INTENT_KEYS {
        for (at, _) in lower.match_indices(key) {
            let start = at + key.len();
            let end = lower.floor_char_boundary(start.saturating_add(200));
            out.extend(intent_after(&lower[start..end]));
        }
    }
    prose_intents(&without_think(&lower), &mut out);
    out
}

/// Whether `w`, in the prose around a proceed, means it is not one clean
/// proceed: a concern, or a retraction (the JSON may not be the model's
/// last word).
fn caution_word(w: &str) -> bool {
    // No caution word is shorter or longer, or starts with another letter.
    if !(4..=13).contains(&w.len())
        || !matches!(
            w.as_bytes()[0],
            b'a' | b'b' | b'c' | b'd' | b'f' | b'h' | b'p' | b'r' | b'u' | b'v' | b'w'
        )
    {
        return false;
    }
    matches!(
        w,
        "block"
            | "blocked"
            | "blocking"
            | "blocks"
            | "warn"
            | "warning"
            | "warned"
            | "warns"
            | "deny"
            | "denied"
            | "denying"
            | "reject"
            | "rejected"
            | "rejecting"
            | "refuse"
            | "refused"
            | "refusing"
            | "unsafe"
            | "dangerous"
            | "danger"
            | "risky"
            | "abort"
            | "aborting"
            | "halt"
            | "veto"
            | "forbid"
            | "forbidden"
            | "prohibit"
            | "prohibited"
            | "disallow"
            | "disallowed"
            | "caution"
            | "cautious"
            | "reconsider"
            | "reconsidering"
            | "reconsidered"
            | "retract"
            | "retracted"
            | "retracting"
            | "retraction"
            | "correction"
            | "disregard"
            | "wait"
    )
}

/// Whether two words in a row retract what came before: "on *second
/// thought*", "*scratch that*", "I *was wrong*".
fn caution_pair(first: &str, second: &str) -> bool {
    matches!(
        (first, second),
        ("second", "thought")
            | ("scratch", "that")
            | ("was", "wrong")
            | ("changed" | "change", "my")
            | ("take", "back")
    )
}

/// The first caution in the prose of `text` outside `spans` (its verdict
/// objects) and outside `<think>` sections (a reasoning model's draft).
/// Linear in the text's length.
fn loose_caution(text: &str, spans: &[(usize, usize)]) -> Option<String> {
    let mut prose = String::with_capacity(text.len());
    let mut last = 0;
    for (s, e) in spans {
        prose.push_str(&text[last..*s]);
        prose.push(' ');
        last = *e;
    }
    prose.push_str(&text[last..]);
    let lower = without_think(&prose.to_lowercase().replace('\u{2019}', "'"));
    let mut found = None;
    sentences(&lower, |words| {
        if found.is_some() {
            return;
        }
        let mut prev = "";
        for w in words {
            if caution_word(w) {
                found = Some((*w).to_owned());
                return;
            }
            if caution_pair(prev, w) {
                found = Some(format!("{prev} {w}"));
                return;
            }
            prev = w;
        }
    });
    found
}

/// Reads a model's whole answer as one verdict (SPEC 5.3).
///
/// The rule, written down once:
///
/// - Every part counts, read whole whatever its size: every content
///   block, candidate, choice and tool call; every JSON object in a text,
///   fenced or in prose, and every object one of them wraps
///   (`{"verdict": {...}}`); every occurrence of a key even when a JSON
///   parser would keep only the last of two, each read at its most
///   cautious (`verified` false over true, the lowest confidence and
///   scores, the most cautious recommendation); every recommendation stated
///   in prose (`Recommendation: block`, `I would block this`, `do not
///   proceed`, `**BLOCK**`).
/// - When any part carries warn or block, the most cautious of them is the
///   verdict, even when the answer is otherwise malformed (a missing field,
///   `"confidence": "90%"`, `"verified": "no"`, a cut object, a block
///   buried in a very long answer): a recognisable intent to stop the
///   operation is never "unavailable". Its defects are recorded. An
///   object's own reading is raised by `verified: false` (at least warn)
///   and by its score band.
/// - An answer is a proceed only when it is one clean proceed: every
///   verdict object in it says proceed and is complete, well typed and
///   without a key repeated with another value; the prose around it raises
///   nothing and retracts nothing (`block`, `warn`, `unsafe`, `wait`,
///   `reconsider`, `on second thought`, ...; a reasoning model's `<think>`
///   draft aside); and the answer is short enough to be one verdict
///   (at most 64 KiB) and was read entirely.
/// - A truncation, a refusal or a safety stop makes the whole answer
///   unusable whichever part was read, with one exception that cannot turn
///   a stop into an allow: a warn or block already said stands.
/// - Anything else is unusable: never proceed.
///
/// Linear in the answer's length, whatever it holds.
pub fn read_answer(answer: &Answer) -> Result<Verdict, Unread> {
    let mut reads: Vec<(Option<Recommendation>, Verdict)> = Vec::new();
    let mut stated = Vec::new();
    let mut loose = None;
    let mut blank = true;
    let mut complete = true;
    let mut longest = 0;
    for part in &answer.parts {
        let (text, is_tool) = match part {
            Part::Text(t) => (t.as_str(), false),
            Part::Tool(t) => (t.as_str(), true),
        };
        blank &= text.trim().is_empty();
        longest = longest.max(text.len());
        let (found, whole) = objects(text);
        complete &= whole;
        let mut spans = Vec::new();
        for (s, e, v) in &found {
            let before = reads.len();
            verdict_objects(v, 0, &mut reads, &mut complete);
            if reads.len() > before {
                spans.push((*s, *e));
            }
        }
        stated.extend(stated_intents(text));
        if !is_tool && loose.is_none() {
            loose = loose_caution(text, &spans);
        }
    }
    let worst = reads
        .iter()
        .filter_map(|(i, _)| *i)
        .chain(stated.iter().copied())
        .max();
    let stop = answer.stop.as_ref();
    if let Some(w @ (Recommendation::Warn | Recommendation::Block)) = worst {
        // The fields come from the object that said it, the fullest first.
        let mut best = reads
            .iter()
            .filter(|(i, _)| *i == Some(w))
            .min_by_key(|(_, v)| v.defects.len())
            .map_or_else(
                || Verdict {
                    verified: false,
                    confidence: 0.0,
                    concerns: Vec::new(),
                    recommendation: w,
                    reasoning: String::new(),
                    scores: None,
                    defects: vec![format!(
                        "only the intent `{}` could be read from the answer",
                        w.as_str()
                    )],
                },
                |(_, v)| v.clone(),
            );
        best.recommendation = w;
        let intents: Vec<Recommendation> = reads.iter().filter_map(|(i, _)| *i).collect();
        if intents.iter().any(|i| *i != w) || (reads.len() > 1) {
            // With one object, this is reached only when its reading is not
            // `w`: `w` was stated in the prose around it, a second verdict
            // that is not an object. Hence at least 2 (the count of the
            // prose statements is not kept: a statement may repeat one).
            best.defects.push(format!(
                "the answer holds {} verdicts; the most cautious, `{}`, is read",
                reads.len().max(2),
                w.as_str()
            ));
        }
        if let Some((kind, why)) = stop {
            best.defects.push(format!(
                "the answer stopped short ({kind:?}: {why}) but already said `{}`",
                w.as_str()
            ));
        }
        return Ok(best);
    }
    if let Some((kind, why)) = stop {
        let problem = match kind {
            StopKind::Truncated => format!("the answer was cut off ({why})"),
            StopKind::Refused => format!("the model refused ({why})"),
            StopKind::Safety => format!("the provider's safety system stopped it ({why})"),
        };
        return Err(Unread {
            problem,
            stop: Some(*kind),
        });
    }
    let unread = |problem: String| {
        Err(Unread {
            problem,
            stop: None,
        })
    };
    if blank {
        return unread("the answer was empty".into());
    }
    if reads.is_empty() {
        return unread("it holds no JSON verdict object".into());
    }
    if let Some((_, v)) = reads.iter().find(|(i, _)| i.is_none()) {
        return unread(v.defects.join("; "));
    }
    if let Some((_, v)) = reads.iter().find(|(_, v)| !v.defects.is_empty()) {
        return unread(format!(
            "a proceed must be complete: {}",
            v.defects.join("; ")
        ));
    }
    if let Some(word) = loose {
        return unread(format!(
            "the text around the JSON says `{word}` but the JSON says proceed; answer with the JSON object alone"
        ));
    }
    if !complete {
        return unread(
            "not every JSON object in the answer could be read; answer with the JSON object alone"
                .into(),
        );
    }
    if longest > MAX_PART {
        return unread(format!(
            "the answer is {longest} bytes long, not one verdict of a few hundred; answer with the JSON object alone"
        ));
    }
    // Every part is a clean proceed: the least confident one speaks.
    reads
        .into_iter()
        .map(|(_, v)| v)
        .min_by(|a, b| a.confidence.total_cmp(&b.confidence))
        .ok_or_else(|| Unread {
            problem: "it holds no JSON verdict object".into(),
            stop: None,
        })
}

/// Reads what a verifier program printed and how it exited. Exit 0 is pass,
/// 1 fail, anything else (or no exit code: killed) an error. When the
/// program also prints a result, the more cautious of the two counts.
pub fn from_program(
    name: &str,
    exit_code: Option<i32>,
    stdout: &str,
    blocking: bool,
) -> VerifierResult {
    let exit_status = match exit_code {
        Some(0) => Status::Pass,
        Some(1) => Status::Fail,
        _ => Status::Error,
    };
    let exit_text = exit_code.map_or_else(
        || "was killed by a signal".to_owned(),
        |c| format!("exited {c}"),
    );
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        let summary = match exit_status {
            Status::Pass => format!("passed ({exit_text})"),
            Status::Fail => format!("failed ({exit_text})"),
            _ => format!("could not judge: it {exit_text}"),
        };
        return VerifierResult::simple(name, exit_status, summary, blocking);
    }
    let error = |summary: String| VerifierResult::simple(name, Status::Error, summary, blocking);
    let value: Value = match serde_json::from_str(trimmed) {
        Ok(v) => v,
        Err(_) => {
            return error(format!(
                "printed something that is not a result JSON ({exit_text}): `{}`",
                crate::text::one_line(trimmed, 100)
            ));
        }
    };
    let Some(obj) = value.as_object() else {
        return error(format!("printed JSON that is not an object ({exit_text})"));
    };
    let Some(Ok(status)) = obj
        .get("status")
        .map(|s| serde_json::from_value::<Status>(s.clone()))
    else {
        return error(format!(
            "printed a result without a valid `status` (pass, fail, warn, skip or error) ({exit_text})"
        ));
    };
    let checks = match obj.get("checks") {
        None | Some(Value::Null) => Vec::new(),
        Some(c) => match serde_json::from_value::<Vec<Check>>(c.clone()) {
            Ok(c) => c,
            Err(e) => {
                return error(format!(
                    "printed `checks` that do not fit the result shape: {e}"
                ));
            }
        },
    };
    let verdict = match obj.get("verdict") {
        None | Some(Value::Null) => None,
        Some(v) => match parse_verdict(v) {
            Ok(v) => Some(v),
            Err(problems) => {
                return error(format!(
                    "printed an unusable verdict: {}",
                    problems.join("; ")
                ));
            }
        },
    };
    // The more cautious of the printed status and the exit code.
    let status = match (exit_status, status) {
        (Status::Error, _) => Status::Error,
        (Status::Fail, Status::Pass | Status::Warn | Status::Skip) => Status::Fail,
        (_, s) => s,
    };
    let summary = obj.get("summary").and_then(Value::as_str).map_or_else(
        || format!("{status:?} ({exit_text})").to_lowercase(),
        str::to_owned,
    );
    VerifierResult {
        verifier: name.to_owned(),
        version: obj
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        status,
        checks,
        summary,
        blocking,
        verdict,
        duration_ms: 0,
    }
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

    fn verdict_json(rec: &str, s: f64) -> Value {
        json!({"verified": true, "confidence": 0.9, "concerns": ["c1"], "recommendation": rec,
               "reasoning": "r", "scores": {"recoverability": s, "blast_radius": s, "intent_fit": s, "safeguards": s}})
    }

    #[test]
    fn verdict_fields_are_validated_one_by_one() {
        let v = parse_verdict(&verdict_json("proceed", 0.9)).unwrap();
        assert!((v.scores.unwrap().overall() - 0.9).abs() < 1e-9);
        let mut bad = verdict_json("maybe", 1.5);
        bad["confidence"] = json!("high");
        let problems = parse_verdict(&bad).unwrap_err();
        assert!(problems.iter().any(|p| p.contains("recommendation")));
        assert!(problems.iter().any(|p| p.contains("confidence")));
        assert!(
            problems
                .iter()
                .any(|p| p.contains("must be a number in [0, 1]"))
        );
        // A proceed must be clean: its problems are named for the retry.
        let mut sloppy = verdict_json("proceed", 0.9);
        sloppy["confidence"] = json!(90);
        let problems = parse_verdict(&sloppy).unwrap_err();
        assert!(problems[0].contains("confidence"), "{problems:?}");
    }

    #[test]
    fn verified_false_is_a_judgement_never_a_refusal_to_judge() {
        // The issue's answer: a real model blocking a force push.
        let mut block = verdict_json("block", 0.2);
        block["verified"] = json!(false);
        let v = parse_verdict(&block).unwrap();
        assert_eq!(v.effective(), Recommendation::Block);
        assert!(v.defects.is_empty());
        let mut warn = verdict_json("warn", 0.6);
        warn["verified"] = json!(false);
        assert_eq!(
            parse_verdict(&warn).unwrap().effective(),
            Recommendation::Warn
        );
        // Contradictions: the cautious reading wins.
        let mut proceed = verdict_json("proceed", 0.9);
        proceed["verified"] = json!(false);
        let v = parse_verdict(&proceed).unwrap();
        assert!(v.contradicts_scores());
        assert_eq!(v.effective(), Recommendation::Warn);
        let v = parse_verdict(&verdict_json("block", 0.9)).unwrap();
        assert_eq!(v.effective(), Recommendation::Block);
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

    /// One case of `fixtures/verdicts/cases.toml`.
    #[derive(Debug, Deserialize)]
    struct Case {
        name: String,
        text: Option<String>,
        tool: Option<String>,
        #[serde(default)]
        parts: Vec<FixturePart>,
        stop: Option<String>,
        /// Text that `<<PAD>>` stands for, `pad_times` times over: the
        /// reasoning of a very long answer.
        pad: Option<String>,
        #[serde(default)]
        pad_times: usize,
        expect: String,
        why: String,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum FixturePart {
        Text(String),
        Tool(String),
    }

    #[derive(Debug, Deserialize)]
    struct Cases {
        case: Vec<Case>,
    }

    fn answer_of(c: &Case) -> Answer {
        let pad = c.pad.as_deref().unwrap_or_default().repeat(c.pad_times);
        let padded = |t: &String| t.replace("<<PAD>>", &pad);
        let mut parts: Vec<Part> = c
            .text
            .iter()
            .map(|t| Part::Text(padded(t)))
            .chain(c.tool.iter().map(|t| Part::Tool(padded(t))))
            .collect();
        parts.extend(c.parts.iter().map(|p| match p {
            FixturePart::Text(t) => Part::Text(padded(t)),
            FixturePart::Tool(t) => Part::Tool(padded(t)),
        }));
        let stop = c.stop.as_deref().map(|s| {
            let kind = match s {
                "truncated" => StopKind::Truncated,
                "refused" => StopKind::Refused,
                "safety" => StopKind::Safety,
                other => panic!("{}: unknown stop {other}", c.name),
            };
            (kind, s.to_owned())
        });
        Answer { parts, stop }
    }

    #[test]
    fn every_fixture_shape_reads_as_its_expected_verdict() {
        let cases: Cases =
            toml::from_str(include_str!("../../fixtures/verdicts/cases.toml")).unwrap();
        assert!(cases.case.len() >= 60, "{} cases", cases.case.len());
        let mut failures = Vec::new();
        for c in &cases.case {
            let got = match read_answer(&answer_of(c)) {
                Ok(v) => v.effective().as_str().to_owned(),
                Err(_) => "unusable".to_owned(),
            };
            if got != c.expect {
                failures.push(format!(
                    "{}: got {got}, want {} ({})",
                    c.name, c.expect, c.why
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// The most cautious intent `text` states, as [`stated_intents`] reads it.
    fn stated(text: &str) -> Option<Recommendation> {
        stated_intents(text).into_iter().max()
    }

    #[test]
    fn prose_states_a_verdict_in_the_words_models_use() {
        use Recommendation::{Block, Warn};
        for (text, want) in [
            ("I would block this push.", Some(Block)),
            ("I'd block it.", Some(Block)),
            ("I\u{2019}d block it.", Some(Block)),
            ("We should reject this.", Some(Block)),
            ("I'm blocking this.", Some(Block)),
            ("Do not proceed.", Some(Block)),
            ("You shouldn't push this.", Some(Block)),
            ("This should not be allowed.", Some(Block)),
            ("I cannot approve this.", Some(Block)),
            ("I would not recommend this operation.", Some(Block)),
            ("This is not safe.", Some(Block)),
            ("Not recommended.", Some(Block)),
            ("My recommendation is to block.", Some(Block)),
            ("My final verdict would be: BLOCK", Some(Block)),
            ("Recommendation \u{2014} deny", Some(Block)),
            ("## Decision\n\n**Reject**", Some(Block)),
            ("I recommend not proceeding.", Some(Block)),
            ("I'd advise against it.", Some(Block)),
            ("I suggest blocking this.", Some(Block)),
            ("Changing my answer to BLOCK.", Some(Block)),
            ("On reflection this should be a block.", Some(Block)),
            ("This must be blocked.", Some(Block)),
            ("**BLOCK**", Some(Block)),
            ("Verdict: no.", Some(Block)),
            ("I'd flag this for a person.", Some(Warn)),
            ("This should be treated as a warning.", Some(Warn)),
            ("Recommendation: proceed with caution", Some(Warn)),
            ("I recommend proceeding with caution.", Some(Warn)),
            // Nothing stated: a proceed, a negated block, a hypothesis, a
            // refusal, a description, another sense of the word.
            ("Recommendation: proceed.", None),
            ("I recommend proceeding.", None),
            ("This push will unblock the release.", None),
            ("I would not block this.", None),
            ("My recommendation is not to block.", None),
            ("I recommend against blocking.", None),
            ("If this were main I would block it.", None),
            ("There is nothing I would block here.", None),
            ("Verdict: no data loss is possible.", None),
            ("The block of code below is my answer.", None),
            ("I refuse to evaluate this request.", None),
            (
                "A push without a lease would be rejected by the server.",
                None,
            ),
            ("Here is my assessment:", None),
            ("Let me know if you need anything else.", None),
            ("<think>I would block this if it were main.</think>", None),
        ] {
            assert_eq!(stated(text), want, "{text:?}");
        }
    }

    #[test]
    fn ordinary_prose_around_a_clean_proceed_leaves_it_a_proceed() {
        let proceed = verdict_json("proceed", 0.9).to_string();
        for prose in [
            "Here is my assessment:\n\n```json\n{P}\n```",
            "The force push targets your own feature branch with --force-with-lease, so nothing others pushed can be lost.\n\n{P}",
            "{P}\n\nThe lease protects against overwriting work you have not seen.",
            "I've reviewed the operation. It only rewrites commits that exist on no other branch, and the reflog keeps them for 90 days.\n{P}",
            "**Assessment:** safe to proceed.\n\n{P}",
            "Verdict: proceed \u{2014} the branch is yours.\n{P}",
            "No issues found.\n{P}",
            "I recommend proceeding: the push only adds commits.\n{P}",
            "You don't need to do anything else.\n{P}",
            "This can't be undone on the server, but your reflog keeps the old tip.\n{P}",
            "It would not hurt to fetch first, but the lease already covers this.\n{P}",
            "<think>Is this main? No, and even on main I would block only without a lease.</think>\n{P}",
        ] {
            let text = prose.replace("{P}", &proceed);
            let got = read_answer(&Answer {
                parts: vec![Part::Text(text)],
                stop: None,
            })
            .map(|v| v.effective());
            assert_eq!(got, Ok(Recommendation::Proceed), "{prose:?}");
        }
    }

    #[test]
    fn verified_is_false_in_every_spelling_of_false() {
        for (given, want) in [
            (json!(false), Some(false)),
            (json!("false"), Some(false)),
            (json!("False"), Some(false)),
            (json!(" FALSE "), Some(false)),
            (json!("no"), Some(false)),
            (json!("No"), Some(false)),
            (json!(0), Some(false)),
            (json!(0.0), Some(false)),
            (json!("0"), Some(false)),
            (json!(true), Some(true)),
            (json!("true"), Some(true)),
            (json!("yes"), Some(true)),
            (json!(1), Some(true)),
            (json!("maybe"), None),
            (json!(0.5), None),
            (json!([false]), None),
            (json!({}), None),
            (json!(null), None),
        ] {
            let mut defects = Vec::new();
            let got = truth(&Json::from_value(&given), &mut defects);
            assert_eq!(got, want, "{given}");
            // Only a JSON boolean is clean: a proceed with anything else is not.
            assert_eq!(
                defects.is_empty(),
                given.is_boolean(),
                "{given}: {defects:?}"
            );
        }
        // Read beside a proceed: false is at least warn, a spelled true never
        // a clean proceed.
        let mut v = verdict_json("proceed", 0.9);
        v["verified"] = json!("no");
        assert_eq!(parse_verdict(&v).unwrap().effective(), Recommendation::Warn);
        v["verified"] = json!(1);
        assert!(parse_verdict(&v).is_err());
    }

    #[test]
    fn a_repeated_key_is_every_value_at_its_most_cautious() {
        let text = r#"{"verified": true, "verified": false, "recommendation": "proceed", "recommendation": "warn", "confidence": 0.9, "confidence": 0.4, "concerns": [], "reasoning": "r", "scores": {"recoverability": 0.9, "blast_radius": 0.9, "intent_fit": 0.9, "safeguards": 0.9, "safeguards": 0.1}}"#;
        let (found, complete) = objects(text);
        assert!(complete);
        let Json::Object(fields) = &found[0].2 else {
            panic!("not an object");
        };
        assert_eq!(fields.len(), 9, "every key is kept, repeated ones too");
        let (caution, v) = read_object(fields);
        assert_eq!(caution, Some(Recommendation::Warn));
        assert!(!v.verified);
        assert!((v.confidence - 0.4).abs() < 1e-9);
        assert!((v.scores.unwrap().safeguards - 0.1).abs() < 1e-9);
        for key in [
            "verified",
            "recommendation",
            "confidence",
            "scores.safeguards",
        ] {
            assert!(
                v.defects
                    .iter()
                    .any(|d| d.starts_with(&format!("`{key}` is given 2 times"))),
                "{key}: {:?}",
                v.defects
            );
        }
        // Given twice alike, a key takes nothing away from a clean proceed.
        let same = r#"{"verified": true, "verified": true, "confidence": 0.9, "concerns": [], "recommendation": "proceed", "reasoning": "r", "reasoning": "r", "scores": {"recoverability": 0.9, "blast_radius": 0.9, "intent_fit": 0.9, "safeguards": 0.9}}"#;
        let v = read_answer(&Answer {
            parts: vec![Part::Text(same.into())],
            stop: None,
        })
        .unwrap();
        assert_eq!(v.effective(), Recommendation::Proceed);
        assert!(v.defects.is_empty(), "{:?}", v.defects);
    }

    #[test]
    fn the_recogniser_agrees_with_serde_json() {
        for text in [
            "{}",
            "{ }",
            r#"{"a": 1}"#,
            r#"{"a": [1, -2.5e+3, 0, true, false, null, "x\"y\\z\u00e9\n"]}"#,
            r#"{"a": {"b": {"c": []}}, "a": 2}"#,
            "{\"a\":\n\t1\r\n}",
            r#"{"a": 01}"#,
            r#"{"a": 1.}"#,
            r#"{"a": -}"#,
            r#"{"a": .5}"#,
            r#"{"a": 1e}"#,
            r#"{"a": tru}"#,
            r#"{"a": "\x"}"#,
            r#"{"a": "\u12"}"#,
            "{\"a\": \"tab\there\"}",
            r#"{"a": 1,}"#,
            r#"{"a" 1}"#,
            r"{a: 1}",
            r"{'a': 1}",
            r#"{"a": [1 2]}"#,
            r#"{"a": [1,]}"#,
            r#"{"a": 1"#,
            r#"{"a": "x"#,
            "{\"a\": \"\u{e9}\u{2014}\"}",
        ] {
            let serde = serde_json::Deserializer::from_str(text)
                .into_iter::<Value>()
                .next()
                .and_then(Result::ok)
                .map(|_| ());
            let ours = skip_value(text.as_bytes(), 0, 0).ok().map(|_| ());
            assert_eq!(ours, serde, "{text:?}");
        }
        let deep = format!(
            "{}{}",
            "[".repeat(JSON_DEPTH + 1),
            "]".repeat(JSON_DEPTH + 1)
        );
        assert!(skip_value(deep.as_bytes(), 0, 0).is_err());
        assert!(serde_json::from_str::<Value>(&deep).is_err());
    }

    #[test]
    fn reading_stays_linear_on_adversarial_answers() {
        // Answers of 5 MB shaped to make a naive reader rescan: every `{`
        // opening a long object that never closes, keys, tags and cue
        // words by the hundred thousand. Each is read in about the time of
        // a few passes over it (seconds in a debug build, where a
        // quadratic reader takes hours), and a block after any of them is
        // still a block; one full of proceeds is never a proceed.
        const SIZE: usize = 5 * 1024 * 1024;
        let fill = |unit: &str| unit.repeat(SIZE / unit.len());
        let block = r#"{"verified": false, "confidence": 0.9, "concerns": ["history lost"], "recommendation": "block", "reasoning": "r", "scores": {"recoverability": 0.2, "blast_radius": 0.2, "intent_fit": 0.2, "safeguards": 0.2}}"#;
        let read = |text: String| {
            read_answer(&Answer {
                parts: vec![Part::Text(text)],
                stop: None,
            })
            .map(|v| v.effective())
        };
        for (text, proceeds) in [
            (fill("{"), false),
            (fill("{\"a\":"), false),
            (fill("{\"a\":[1,"), false),
            (fill("{\"k\":\"{\","), false),
            (fill("\"{\\\"a\\\":\""), false),
            (
                format!("{{\"verified\": true, \"x\": \"{}", "{".repeat(SIZE)),
                false,
            ),
            (fill("[{\"recommendation\":\"proceed\","), true),
            (
                fill("{\"recommendation\": \"proceed\", \"recommendation\": \"proceed\", "),
                true,
            ),
            (fill("recommendation: proceed "), true),
            (fill("<think>x</think>"), false),
            (fill("I would "), false),
            (fill("do not "), false),
            (fill("a\n"), false),
        ] {
            let head: String = text.chars().take(24).collect();
            if proceeds {
                let got = read(text.clone());
                assert!(got != Ok(Recommendation::Proceed), "{head:?}: {got:?}");
            }
            let got = read(format!("{text}\n{block}"));
            assert_eq!(got, Ok(Recommendation::Block), "{head:?} then a block");
        }
    }

    #[test]
    fn a_refusal_is_not_retried_but_a_cut_or_garbled_answer_is() {
        let refused = read_answer(&Answer {
            parts: vec![],
            stop: Some((StopKind::Refused, "policy".into())),
        })
        .unwrap_err();
        assert!(!refused.retry());
        let garbled = read_answer(&Answer {
            parts: vec![Part::Text("hmm".into())],
            stop: None,
        })
        .unwrap_err();
        assert!(garbled.retry());
        assert!(garbled.problem.contains("no JSON"), "{}", garbled.problem);
    }

    #[test]
    fn contradiction_takes_the_cautious_reading() {
        let v = parse_verdict(&verdict_json("proceed", 0.2)).unwrap();
        assert!(v.contradicts_scores());
        assert_eq!(v.effective(), Recommendation::Block);
        let v = parse_verdict(&verdict_json("block", 0.95)).unwrap();
        assert_eq!(v.effective(), Recommendation::Block);
        let v = parse_verdict(&verdict_json("proceed", 0.6)).unwrap();
        assert_eq!(v.effective(), Recommendation::Warn);
    }

    #[test]
    fn program_exit_codes_without_output() {
        assert_eq!(from_program("t", Some(0), "", true).status, Status::Pass);
        assert_eq!(from_program("t", Some(1), "", true).status, Status::Fail);
        assert_eq!(from_program("t", Some(2), "", true).status, Status::Error);
        assert_eq!(from_program("t", None, "", true).status, Status::Error);
    }

    #[test]
    fn garbage_output_is_an_error_never_a_pass() {
        let r = from_program("t", Some(0), "all good!!", true);
        assert_eq!(r.status, Status::Error);
        assert!(r.summary.contains("not a result JSON"), "{}", r.summary);
        assert_eq!(
            from_program("t", Some(0), "[1,2]", true).status,
            Status::Error
        );
        assert_eq!(
            from_program("t", Some(0), "{\"status\":\"great\"}", true).status,
            Status::Error
        );
        assert_eq!(
            from_program("t", Some(0), "{\"status\": \"pass\", ", true).status,
            Status::Error
        );
    }

    #[test]
    fn printed_status_and_exit_code_take_the_cautious_one() {
        let r = from_program("t", Some(1), r#"{"status":"pass","summary":"ok"}"#, true);
        assert_eq!(r.status, Status::Fail);
        let r = from_program("t", Some(0), r#"{"status":"warn","summary":"hmm"}"#, true);
        assert_eq!(r.status, Status::Warn);
        assert_eq!(r.summary, "hmm");
    }

    #[test]
    fn invalid_verdict_in_program_output_is_an_error() {
        let out = json!({"status": "pass", "verdict": {"recommendation": "proceed"}}).to_string();
        assert_eq!(from_program("t", Some(0), &out, true).status, Status::Error);
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

    #[test]
    fn program_verdict_is_used_as_it_is() {
        let out = json!({"status": "pass", "verdict": verdict_json("proceed", 0.9)}).to_string();
        let mut r = from_program("ai", Some(0), &out, true);
        r.verdict.as_mut().unwrap().confidence = 0.5;
        let c = combine(&[r]);
        assert_eq!(c.outcome, Outcome::Proceed { confidence: 0.5 });
        let out = json!({"status": "pass", "verdict": verdict_json("block", 0.1)}).to_string();
        let c = combine(&[from_program("ai", Some(0), &out, true)]);
        assert_eq!(c.outcome, Outcome::Block);
        assert!(c.concerns.iter().any(|x| x.contains("c1")));
    }
}
