//! vouch's own deterministic checks, in the result shape every verifier
//! returns (SPEC section 4): the findings the classifier made of an
//! operation's facts, one check each, recorded beside the other verifiers'
//! results (the audit line's `builtin`, the verifier context). Non-blocking:
//! the facts already set the tier. Pure: it reads the facts and the
//! assessment; it lives with the verifiers so that the classifier never
//! depends on a verifier's shapes (issue 39 item 2).

use crate::classify::facts::{LocalFacts, PushFacts, ServerFacts};
use crate::classify::operation::Operation;
use crate::classify::{Assessment, Tier};
use crate::verify::verdict::{Check, Status, VerifierResult};

/// vouch's own deterministic checks on `op`, in the verifier result shape.
pub fn builtin(op: &Operation) -> VerifierResult {
    match op {
        Operation::Push { facts, assessment } => builtin_result(facts, assessment),
        Operation::LocalRefs { facts, assessment } => builtin_local(facts, assessment),
        Operation::ServerPush { facts, assessment } => builtin_server(facts, assessment),
        // The reasons name the files, lines and commands already.
        Operation::Commit { assessment, .. } => {
            builtin_from(assessment, |_| serde_json::Value::Null)
        }
        Operation::Command { assessed, .. } => {
            builtin_from(&assessed.assessment, |_| serde_json::Value::Null)
        }
        Operation::Unjudged(_) => {
            VerifierResult::simple("builtin", Status::Skip, "not judged".into(), false)
        }
    }
}

/// How many findings the built-in result lists.
const BUILTIN_CHECKS_SHOWN: usize = 100;

/// The built-in deterministic checks in the result shape every verifier
/// uses (SPEC section 4): one check per finding above tier none (with
/// `details(i)` for the `i`-th entry of `assessment.refs`) and per
/// operation-wide rule. Non-blocking: the facts already set the tier; this
/// result records them beside the other verifiers'.
pub fn builtin_from(
    assessment: &Assessment,
    details: impl Fn(usize) -> serde_json::Value,
) -> VerifierResult {
    let status_of = |tier: Tier| {
        if tier >= Tier::High {
            Status::Warn
        } else {
            Status::Pass
        }
    };
    let findings = assessment
        .refs
        .iter()
        .enumerate()
        .filter(|(_, risk)| risk.tier > Tier::None);
    let total = findings.clone().count();
    // Every ref is in the audit's `refs`; the findings are listed up to a cap.
    let mut checks: Vec<Check> = findings
        .take(BUILTIN_CHECKS_SHOWN)
        .map(|(i, risk)| Check {
            name: risk.rule.as_str().to_owned(),
            status: status_of(risk.tier),
            message: risk.reason.clone(),
            details: details(i),
        })
        .collect();
    if total > BUILTIN_CHECKS_SHOWN {
        let more = total - BUILTIN_CHECKS_SHOWN;
        checks.push(Check {
            name: "more".into(),
            status: Status::Warn,
            message: format!("... and {more} more with the same kinds of findings"),
            details: serde_json::Value::Null,
        });
    }
    checks.extend(assessment.push.iter().map(|risk| Check {
        name: risk.rule.as_str().to_owned(),
        status: status_of(risk.tier),
        message: risk.reason.clone(),
        details: serde_json::Value::Null,
    }));
    VerifierResult {
        verifier: "vouch-facts".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        status: status_of(assessment.tier),
        summary: format!(
            "{} risk: {} finding(s) from the repository's facts",
            assessment.tier,
            total + assessment.push.len()
        ),
        checks,
        blocking: false,
        verdict: None,
        duration_ms: 0,
    }
}

/// The built-in result of a push, each finding with the ref's measured facts.
pub fn builtin_result(facts: &PushFacts, assessment: &Assessment) -> VerifierResult {
    builtin_from(assessment, |i| {
        let f = &facts.refs[i];
        serde_json::json!({
            "remote_ref": f.remote_ref,
            "change": f.change.as_str(),
            "remote_tip": f.remote_tip.as_str(),
            "lease": f.lease,
            "lost_commits": f.lost.as_ref().map(|l| l.count),
            "tier": assessment.refs[i].tier,
        })
    })
}

/// The built-in result of a reference transaction.
pub fn builtin_local(facts: &LocalFacts, assessment: &Assessment) -> VerifierResult {
    builtin_from(assessment, |i| {
        let f = &facts.refs[i];
        serde_json::json!({
            "ref": f.name,
            "change": f.change,
            "left_behind": f.left_behind,
            "lost_commits": f.lost.as_ref().map(|l| l.count),
            "kept_in_tree": f.kept_in_tree,
            "tier": assessment.refs[i].tier,
        })
    })
}

/// The built-in result of a push on the server.
pub fn builtin_server(facts: &ServerFacts, assessment: &Assessment) -> VerifierResult {
    builtin_result(&facts.push, assessment)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::classify_push;
    use crate::classify::config::Config;
    use crate::classify::facts::{Change, Lost};
    use crate::classify::push_fixtures::{NEW, OLD, Z, push, refacts};
    use crate::input::hooks::ForceHint;

    #[test]
    fn builtin_checks_use_the_verifier_result_shape() {
        let mut f = refacts("refs/heads/main", NEW, OLD, Change::Rewrite);
        f.lost = Some(Lost {
            count: 3,
            authors: 2,
            commits: vec![],
            truncated: false,
        });
        let g = refacts("refs/heads/new", NEW, Z, Change::Create);
        let facts = push(vec![f, g], ForceHint::Forced);
        let a = classify_push(&facts, &Config::default().policy);
        let r = builtin_result(&facts, &a);
        assert_eq!(r.verifier, "vouch-facts");
        assert_eq!(r.status, Status::Warn);
        assert!(!r.blocking);
        assert_eq!(r.checks.len(), 1, "routine refs are not findings");
        assert_eq!(r.checks[0].name, "force_push_protected");
        assert_eq!(r.checks[0].details["lost_commits"], 3);
    }
}
