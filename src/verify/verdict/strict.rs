//! PURE: the strict reader: one verdict object, every field checked
//! (SPEC 5.3).
//!
//! Used for a verifier program's output ([`from_program`]: its result and
//! the `verdict` object in it, [`parse_verdict`]) and, by the lenient
//! reader ([`super::lenient`]), for each verdict object found in a model's
//! answer. A proceed must be complete and clean; a recognisable warn or
//! block is that verdict whatever else is wrong with it, its defects named;
//! a key given twice is read at its most cautious ([`Json`] keeps both).

use std::fmt;

use serde::Deserialize;
use serde_json::Value;

use super::{Check, Recommendation, Scores, Status, Verdict, VerifierResult, recommendation_word};

/// A JSON value as the model wrote it: an object keeps every key in
/// order, a repeated one too. `serde_json`'s `Value` keeps only the last of
/// two, and `{"verified": false, ..., "verified": true}` must be read as
/// false (SPEC 5.3: a duplicate key that carries warn or block counts).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Json {
    /// `null`, a boolean, a number or a string.
    Leaf(Value),
    /// A list.
    Array(Vec<Json>),
    /// An object: every key with its value, in the order written.
    Object(Vec<(String, Json)>),
}

impl Json {
    pub(super) fn from_value(v: &Value) -> Self {
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

    pub(super) fn as_object(&self) -> Option<&[(String, Json)]> {
        match self {
            Self::Object(fields) => Some(fields),
            _ => None,
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
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
pub(super) const INTENT_ALIASES: &[&str] = &["decision", "verdict", "action", "recommend"];

/// Reads one verdict object: its most cautious reading and the verdict
/// with every defect named. Every key is read in every occurrence: a
/// repeated one at its most cautious (`verified` false over true, the
/// lowest confidence and scores, the most cautious recommendation), and
/// named as a defect when its values differ. The reading is the stated
/// recommendation raised by `verified: false` (at least warn) and by the
/// score band; `None` when no recommendation can be read.
pub(super) fn read_object(m: &[(String, Json)]) -> (Option<Recommendation>, Verdict) {
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
                crate::input::text::one_line(trimmed, 100)
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

#[cfg(test)]
mod tests {
    use super::super::tests::verdict_json;
    use super::super::{Outcome, combine};
    use super::*;
    use serde_json::json;

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
