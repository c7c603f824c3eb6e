//! PURE: the lenient reader: a model's whole answer, as its provider's
//! envelope carried it (SPEC 5.3, [`read_answer`]).
//!
//! Used by the AI verifier on every answer a provider returns. A model
//! does not always answer with one clean JSON object: the JSON may be
//! fenced, wrapped (`{"verdict": {...}}`), in a string, in prose, cut off or
//! tangled in broken braces. A hand-written scanner ([`objects`]) finds
//! every object in linear time, each is read by the strict reader
//! ([`super::strict`]), and the prose is read by the intent reader
//! ([`super::intent`]); the rule of [`read_answer`] puts them together.

use serde_json::Value;

use super::intent::{loose_caution, stated_intents};
use super::strict::{INTENT_ALIASES, Json, read_object};
use super::{Recommendation, Verdict};

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

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

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
            toml::from_str(include_str!("../../../fixtures/verdicts/cases.toml")).unwrap();
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
}
