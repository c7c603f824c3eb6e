//! PURE: verifier results and verdicts (SPEC sections 4 and 5.3).
//!
//! Reads what a verifier said, checks every field, and combines many
//! results into one outcome. An unusable answer is never read as proceed.
//!
//! How a model's answer is read (the rule of SPEC 5.3, [`read_answer`]):
//! `verified` is the verifier's judgement that the operation is safe, so
//! `false` beside warn or block is the ordinary dangerous verdict, and a
//! contradiction (`true` with block, `false` with proceed, scores against
//! the recommendation) takes the more cautious reading. An answer is a
//! proceed only when it is one clean proceed; when any part of it carries
//! warn or block, the most cautious reading wins, malformed or not; a
//! truncation, refusal or safety stop makes it unusable unless a warn or
//! block was already said; anything else is unusable, never proceed.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// One check inside a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What was checked.
    pub name: String,
    /// Its status.
    pub status: Status,
    /// One sentence.
    #[serde(default)]
    pub message: String,
    /// Anything else.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub details: Value,
}

/// The result shape every verifier returns (SPEC section 4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifierResult {
    /// The verifier's name.
    pub verifier: String,
    /// Its version, as it says.
    pub version: String,
    /// Its status.
    pub status: Status,
    /// Its checks.
    pub checks: Vec<Check>,
    /// One line.
    pub summary: String,
    /// Whether a fail blocks.
    pub blocking: bool,
    /// A verdict in the shape of SPEC 5.3, when the verifier gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
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
    let lower = word
        .trim()
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
        .replace(['_', '-'], " ");
    let phrase = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    let lookup = |w: &str| match w {
        "proceed" | "allow" | "allowed" | "approve" | "approved" | "safe" | "ok" | "okay"
        | "pass" | "accept" => Some(Recommendation::Proceed),
        "warn"
        | "warning"
        | "warned"
        | "caution"
        | "cautious"
        | "proceed with caution"
        | "ask"
        | "ask user"
        | "ask the user"
        | "review"
        | "needs review"
        | "manual review"
        | "human review"
        | "confirm"
        | "hold"
        | "pause"
        | "escalate" => Some(Recommendation::Warn),
        "block" | "blocked" | "deny" | "denied" | "reject" | "rejected" | "refuse" | "refused"
        | "stop" | "abort" | "no" | "halt" | "forbid" | "forbidden" | "disallow" | "disallowed"
        | "prohibit" | "veto" | "unsafe" | "dangerous" | "fail" | "do not proceed"
        | "don't proceed" | "dont proceed" | "not safe" => Some(Recommendation::Block),
        _ => None,
    };
    lookup(&phrase).or_else(|| {
        // "blocking", "denying", "rejecting": the verb's other forms.
        let stem = phrase.strip_suffix("ing")?;
        lookup(stem).or_else(|| lookup(&format!("{stem}e")))
    })
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

/// A `[0, 1]` field: clean, or read leniently with a defect, or missing.
fn unit_field(v: Option<&Value>, field: &str, defects: &mut Vec<String>) -> Option<f64> {
    match v {
        Some(Value::Number(n)) if n.as_f64().is_some_and(|x| (0.0..=1.0).contains(&x)) => {
            n.as_f64()
        }
        None | Some(Value::Null) => {
            defects.push(format!("`{field}` is missing"));
            None
        }
        Some(other) => {
            let read = lenient_unit(other);
            defects.push(match read {
                Some(x) => format!("`{field}` is {other}, not a number in [0, 1] (read as {x})"),
                None => format!("`{field}` is {other}: it must be a number in [0, 1]"),
            });
            read
        }
    }
}

/// Keys that say what a verdict recommends, besides `recommendation`, in
/// the answers of models that did not follow the schema. They count only
/// for a warn or block.
const INTENT_ALIASES: &[&str] = &["decision", "verdict", "action", "recommend"];

/// Reads one verdict object: its intent (the recommendation, most
/// cautious reading) and the verdict with every defect named.
fn read_object(m: &serde_json::Map<String, Value>) -> (Option<Recommendation>, Verdict) {
    let mut defects = Vec::new();
    let verified = match m.get("verified") {
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("true") => {
            defects.push("`verified` is a string, not true or false".into());
            Some(true)
        }
        Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("false") => {
            defects.push("`verified` is a string, not true or false".into());
            Some(false)
        }
        None | Some(Value::Null) => {
            defects.push("`verified` is missing".into());
            None
        }
        Some(other) => {
            defects.push(format!("`verified` is {other}: it must be true or false"));
            None
        }
    };
    let mut intent = match m.get("recommendation") {
        Some(Value::String(s)) => {
            let r = recommendation_word(s);
            if r.is_none() {
                defects.push(format!(
                    "`recommendation` is {s:?}: it must be one of `proceed`, `warn`, `block`"
                ));
            }
            r
        }
        None | Some(Value::Null) => {
            defects.push("`recommendation` is missing".into());
            None
        }
        Some(other) => {
            defects.push(format!(
                "`recommendation` is {other}: it must be one of `proceed`, `warn`, `block`"
            ));
            None
        }
    };
    if intent.is_none() {
        intent = INTENT_ALIASES
            .iter()
            .filter_map(|k| m.get(*k).and_then(Value::as_str))
            .filter_map(recommendation_word)
            .filter(|r| *r > Recommendation::Proceed)
            .max();
    }
    if intent.is_none() && verified == Some(false) {
        // The verifier said it is not safe, without a usable word for what to do.
        intent = Some(Recommendation::Warn);
        defects.push("no recommendation: `verified: false` is read as warn".into());
    }
    let confidence = unit_field(m.get("confidence"), "confidence", &mut defects).unwrap_or(0.0);
    let concerns = match m.get("concerns") {
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect(),
        Some(Value::Array(items)) => {
            defects.push("`concerns` must be a list of strings".into());
            items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
                .collect()
        }
        Some(Value::String(s)) => {
            defects.push("`concerns` is a string, not a list of strings".into());
            vec![s.clone()]
        }
        _ => {
            defects.push("`concerns` must be a list of strings".into());
            Vec::new()
        }
    };
    let reasoning = if let Some(s) = m.get("reasoning").and_then(Value::as_str) {
        s.to_owned()
    } else {
        defects.push("`reasoning` must be a string".into());
        String::new()
    };
    let scores = if let Some(s) = m.get("scores").and_then(Value::as_object) {
        let mut g = |k: &str| unit_field(s.get(k), &format!("scores.{k}"), &mut defects);
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
    } else {
        defects.push(
            "`scores` must be an object with recoverability, blast_radius, intent_fit, safeguards"
                .into(),
        );
        None
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
    (intent, verdict)
}

/// Validates a verdict object (a verifier program's `verdict`). A proceed
/// must be complete and clean; a recognisable warn or block is that
/// verdict whatever else is wrong with it; anything else is unusable, with
/// every problem named so that a retry can say exactly what to fix.
pub fn parse_verdict(v: &Value) -> Result<Verdict, Vec<String>> {
    let Some(obj) = v.as_object() else {
        return Err(vec!["the verdict must be a JSON object".into()]);
    };
    match read_object(obj) {
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

/// At most this much of one part is read (a verdict is a few hundred bytes).
const MAX_PART: usize = 64 * 1024;

fn capped(text: &str) -> &str {
    if text.len() <= MAX_PART {
        return text;
    }
    let mut end = MAX_PART;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Every outermost JSON object in `text`, with its byte span.
fn objects(text: &str) -> Vec<(usize, usize, Value)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' {
            let mut stream = serde_json::Deserializer::from_str(&text[i..]).into_iter::<Value>();
            if let Some(Ok(v @ Value::Object(_))) = stream.next() {
                let end = i + stream.byte_offset();
                out.push((i, end, v));
                i = end;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Collects every object inside `v` that looks like a verdict: `v` itself,
/// and whatever it wraps (`{"verdict": {...}}`, `{"result": "{...}"}`,
/// lists of verdicts), a few levels deep.
fn verdict_objects(v: &Value, depth: usize, out: &mut Vec<serde_json::Map<String, Value>>) {
    if depth > 4 {
        return;
    }
    match v {
        Value::Object(m) => {
            let looks = m.contains_key("recommendation")
                || m.contains_key("verified")
                || INTENT_ALIASES
                    .iter()
                    .any(|k| m.get(*k).is_some_and(Value::is_string));
            if looks {
                out.push(m.clone());
            }
            for inner in m.values() {
                verdict_objects(inner, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for inner in items {
                verdict_objects(inner, depth + 1, out);
            }
        }
        Value::String(s) if s.contains('{') => {
            for (_, _, inner) in objects(capped(s)) {
                verdict_objects(&inner, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// Warn and block intents stated anywhere in `text`, JSON or prose, each
/// occurrence on its own: `"recommendation": "block"` twice in one object
/// (a JSON parser keeps only the last), in a broken or cut object,
/// `**Recommendation:** BLOCK`, `Verdict: deny`, `I recommend blocking`.
fn stated_intents(text: &str) -> Vec<Recommendation> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    for key in ["recommend", "verdict", "decision", "final answer"] {
        let mut from = 0;
        while let Some(at) = lower[from..].find(key) {
            let start = from + at + key.len();
            from = start;
            let mut rest = &lower[start..];
            let bare_verb = key == "recommend"
                && !rest.starts_with("ation")
                && !rest.starts_with("ed")
                && !rest.starts_with('s');
            for suffix in ["ation", "ed", "s"] {
                if key == "recommend"
                    && let Some(r) = rest.strip_prefix(suffix)
                {
                    rest = r;
                    break;
                }
            }
            let skip = |r: &str| {
                r.trim_start_matches(|c: char| {
                    c.is_whitespace() || matches!(c, '"' | '\'' | '*' | '_' | '`' | '\\')
                })
                .to_owned()
            };
            let mut after = skip(rest);
            if let Some(r) = after.strip_prefix([':', '=']) {
                after = skip(r);
            } else if bare_verb {
                after = after.strip_prefix("to ").map_or(after.clone(), skip);
            } else {
                continue;
            }
            let phrase: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, ' ' | '\'' | '-' | '_'))
                .take(40)
                .collect();
            let words: Vec<&str> = phrase.split_whitespace().collect();
            let found = (1..=words.len().min(3))
                .rev()
                .find_map(|n| recommendation_word(&words[..n].join(" ")));
            if let Some(r) = found
                && r > Recommendation::Proceed
            {
                out.push(r);
            }
        }
    }
    out
}

/// Words that, in the prose around a proceed, mean it is not one clean
/// proceed.
const CAUTION_WORDS: &[&str] = &[
    "block",
    "blocked",
    "blocking",
    "warn",
    "warning",
    "deny",
    "denied",
    "reject",
    "rejected",
    "refuse",
    "refused",
    "unsafe",
    "dangerous",
    "abort",
];

/// The first caution word in the prose of `text` outside `spans` (its JSON
/// objects) and outside `<think>` sections (a reasoning model's draft).
fn loose_caution(text: &str, spans: &[(usize, usize)]) -> Option<String> {
    let mut prose = String::new();
    let mut last = 0;
    for (s, e) in spans {
        prose.push_str(&text[last..*s]);
        prose.push(' ');
        last = *e;
    }
    prose.push_str(&text[last..]);
    let mut lower = prose.to_lowercase();
    while let Some(s) = lower.find("<think>") {
        let end = lower[s..]
            .find("</think>")
            .map_or(lower.len(), |e| s + e + "</think>".len());
        lower.replace_range(s..end, " ");
    }
    lower
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| CAUTION_WORDS.contains(w))
        .map(str::to_owned)
}

/// Reads a model's whole answer as one verdict (SPEC 5.3).
///
/// The rule, written down once:
///
/// - Every part counts: every content block, candidate, choice and tool
///   call; every JSON object in a text, fenced or in prose, and every object
///   one of them wraps (`{"verdict": {...}}`); every `recommendation` key
///   even when a JSON parser would keep only the last of two; every
///   recommendation stated in prose (`Recommendation: block`).
/// - When any part carries warn or block, the most cautious of them is the
///   verdict, even when the answer is otherwise malformed (a missing field,
///   `"confidence": "90%"`, a cut object): a recognisable intent to stop the
///   operation is never "unavailable". Its defects are recorded.
/// - An answer is a proceed only when it is one clean proceed: every
///   verdict object in it says proceed and is complete and well typed, and
///   the prose around it raises nothing (`block`, `warn`, `unsafe`, ...;
///   a reasoning model's `<think>` draft aside).
/// - A truncation, a refusal or a safety stop makes the whole answer
///   unusable whichever part was read, with one exception that cannot turn
///   a stop into an allow: a warn or block already said stands.
/// - Anything else is unusable: never proceed.
pub fn read_answer(answer: &Answer) -> Result<Verdict, Unread> {
    let mut reads: Vec<(Option<Recommendation>, Verdict)> = Vec::new();
    let mut stated = Vec::new();
    let mut loose = None;
    let mut blank = true;
    for part in &answer.parts {
        let (text, is_tool) = match part {
            Part::Text(t) => (capped(t), false),
            Part::Tool(t) => (capped(t), true),
        };
        blank &= text.trim().is_empty();
        let found = objects(text);
        let mut objs = Vec::new();
        for (_, _, v) in &found {
            verdict_objects(v, 0, &mut objs);
        }
        reads.extend(objs.iter().map(read_object));
        stated.extend(stated_intents(text));
        if !is_tool && loose.is_none() {
            let spans: Vec<(usize, usize)> = found.iter().map(|(s, e, _)| (*s, *e)).collect();
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
            // With one object, this is reached only when its intent is not
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
        let mut parts: Vec<Part> = c
            .text
            .iter()
            .map(|t| Part::Text(t.clone()))
            .chain(c.tool.iter().map(|t| Part::Tool(t.clone())))
            .collect();
        parts.extend(c.parts.iter().map(|p| match p {
            FixturePart::Text(t) => Part::Text(t.clone()),
            FixturePart::Tool(t) => Part::Tool(t.clone()),
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
        let cases: Cases = toml::from_str(include_str!("../fixtures/verdicts/cases.toml")).unwrap();
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
