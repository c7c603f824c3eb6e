//! PURE: verifier results and verdicts (SPEC sections 4 and 5.3).
//!
//! Reads what a verifier said, checks every field, and combines many
//! results into one outcome. An unusable answer is never read as proceed.

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
    /// The verifier judged the operation.
    pub verified: bool,
    /// In [0, 1].
    pub confidence: f64,
    /// Concerns, each a sentence.
    pub concerns: Vec<String>,
    /// What it recommends.
    pub recommendation: Recommendation,
    /// One or two sentences.
    pub reasoning: String,
    /// The scores.
    pub scores: Scores,
}

impl Verdict {
    /// The recommendation the score band supports.
    pub fn band(&self) -> Recommendation {
        let overall = self.scores.overall();
        if overall >= 0.7 {
            Recommendation::Proceed
        } else if overall < 0.5 {
            Recommendation::Block
        } else {
            Recommendation::Warn
        }
    }

    /// The recommendation to act on: on a contradiction between the stated
    /// recommendation and the scores, the more cautious reading wins.
    pub fn effective(&self) -> Recommendation {
        self.recommendation.max(self.band())
    }

    /// True when the recommendation and the overall score disagree.
    pub fn contradicts_scores(&self) -> bool {
        self.recommendation != self.band()
    }
}

fn unit(v: &Value, field: &str, problems: &mut Vec<String>) -> f64 {
    match v.as_f64() {
        Some(x) if (0.0..=1.0).contains(&x) => x,
        Some(x) => {
            problems.push(format!("`{field}` is {x}, outside [0, 1]"));
            0.0
        }
        None => {
            problems.push(format!("`{field}` must be a number in [0, 1]"));
            0.0
        }
    }
}

/// Validates a verdict object field by field. Every problem is named, so a
/// retry can say exactly what to fix.
pub fn parse_verdict(v: &Value) -> Result<Verdict, Vec<String>> {
    let mut problems = Vec::new();
    let Some(obj) = v.as_object() else {
        return Err(vec!["the verdict must be a JSON object".into()]);
    };
    let get = |k: &str| obj.get(k).unwrap_or(&Value::Null);
    let verified = get("verified").as_bool().unwrap_or_else(|| {
        problems.push("`verified` must be true or false".into());
        false
    });
    let confidence = unit(get("confidence"), "confidence", &mut problems);
    let concerns = match get("concerns").as_array() {
        Some(items) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect(),
        _ => {
            problems.push("`concerns` must be a list of strings".into());
            Vec::new()
        }
    };
    let recommendation = match get("recommendation").as_str() {
        Some("proceed") => Some(Recommendation::Proceed),
        Some("warn") => Some(Recommendation::Warn),
        Some("block") => Some(Recommendation::Block),
        _ => {
            problems.push("`recommendation` must be one of `proceed`, `warn`, `block`".into());
            None
        }
    };
    let reasoning = get("reasoning").as_str().map_or_else(
        || {
            problems.push("`reasoning` must be a string".into());
            String::new()
        },
        str::to_owned,
    );
    let scores = if let Some(s) = get("scores").as_object() {
        let g = |k: &str| s.get(k).unwrap_or(&Value::Null);
        Scores {
            recoverability: unit(g("recoverability"), "scores.recoverability", &mut problems),
            blast_radius: unit(g("blast_radius"), "scores.blast_radius", &mut problems),
            intent_fit: unit(g("intent_fit"), "scores.intent_fit", &mut problems),
            safeguards: unit(g("safeguards"), "scores.safeguards", &mut problems),
        }
    } else {
        problems.push(
            "`scores` must be an object with recoverability, blast_radius, intent_fit, safeguards"
                .into(),
        );
        Scores {
            recoverability: 0.0,
            blast_radius: 0.0,
            intent_fit: 0.0,
            safeguards: 0.0,
        }
    };
    if obj.get("verified").and_then(Value::as_bool) == Some(false) {
        problems.push("`verified` is false: the verifier declined to judge".into());
    }
    match (problems.is_empty(), recommendation) {
        (true, Some(recommendation)) => Ok(Verdict {
            verified,
            confidence,
            concerns,
            recommendation,
            reasoning,
            scores,
        }),
        _ => Err(problems),
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
                (v.effective().max(from_status), v.confidence, Some(v.scores))
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
        assert!((v.scores.overall() - 0.9).abs() < 1e-9);
        let mut bad = verdict_json("maybe", 1.5);
        bad["confidence"] = json!("high");
        let problems = parse_verdict(&bad).unwrap_err();
        let mut declined = verdict_json("proceed", 0.9);
        declined["verified"] = json!(false);
        assert!(parse_verdict(&declined).unwrap_err()[0].contains("declined"));
        assert!(problems.iter().any(|p| p.contains("recommendation")));
        assert!(problems.iter().any(|p| p.contains("confidence")));
        assert!(problems.iter().any(|p| p.contains("outside [0, 1]")));
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
