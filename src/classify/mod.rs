//! PURE: facts to a risk tier (SPEC section 2): a push (`push.rs`), a local
//! ref transaction (`local.rs`), a shell command's measured facts
//! (`command.rs`); the staged change is classified in
//! [`crate::classify::staged`] and a shell command by [`shell`]. Every rule has
//! a name (used in config `[tiers]` and in the audit log) and a default
//! tier. Nothing here touches git, the network or the terminal.

mod command;
mod local;
mod push;
mod readonly;
mod server;
pub mod shell;
pub mod staged;

pub use command::{classify_command, discarded_noun};
pub use local::{builtin_local, classify_local};
pub use push::{builtin_result, classify_push, protected_by};
pub use readonly::{Runs, git_commands, read_only, runs};
pub use server::{builtin_server, classify_server, protected_changes};

use crate::verify::verdict::{Check, Status, VerifierResult};
pub use crate::vocab::{Assessment, RefRisk, Rule, Tier};

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
