//! PURE: the decision protocol (SPEC section 6).
//!
//! Tier, overrides and the verifiers' outcome in; allow, ask or refuse out.
//! Nothing here prompts, prints or writes: `commands/hook.rs` carries the
//! plan out.

use serde::Serialize;

use crate::classify::Tier;
use crate::config::OnUnavailable;
use crate::verdict::Outcome;

/// Confidence below which an allowed operation is logged as low-confidence.
pub const LOW_CONFIDENCE: f64 = 0.8;

/// What to do.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "action")]
pub enum Action {
    /// Let it happen; show the warning, if any.
    Allow {
        /// Shown on stderr and logged.
        warning: Option<String>,
    },
    /// Ask the person at the terminal; default No.
    Ask,
    /// Refuse.
    Refuse {
        /// Why, for people.
        why: String,
        /// Write a review request so a person can approve it.
        review: bool,
    },
}

/// The decision and what the audit line says about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// What to do.
    pub action: Action,
    /// The audit `result`: proceed, warn, block, skipped or unavailable.
    pub result: &'static str,
    /// The override reason, when a person overrode the verification.
    pub override_reason: Option<String>,
}

/// `VOUCH_SKIP` as read from the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// Not set.
    No,
    /// Set, with this reason.
    Reason(String),
    /// Set but empty: refused.
    NoReason,
}

impl Skip {
    /// Reads the value of `VOUCH_SKIP`.
    pub fn from_value(value: Option<&str>) -> Self {
        match value {
            None => Self::No,
            Some(v) if v.trim().is_empty() => Self::NoReason,
            Some(v) => Self::Reason(v.trim().to_owned()),
        }
    }
}

/// Whether an operation of `tier` is verified.
pub fn is_verified(tier: Tier, verify_standard: bool) -> bool {
    match tier {
        Tier::Critical | Tier::High => true,
        Tier::Standard => verify_standard,
        Tier::None => false,
    }
}

/// The decision before any verifier runs: tier none, unverified standard,
/// a skip or a person's approval settle it. `None`: run the verifiers.
pub fn before_verifying(
    tier: Tier,
    verify_standard: bool,
    skip: &Skip,
    approved: bool,
) -> Option<Plan> {
    let allow = |result, override_reason| Plan {
        action: Action::Allow { warning: None },
        result,
        override_reason,
    };
    if !is_verified(tier, verify_standard) {
        return Some(allow("skipped", None));
    }
    match skip {
        Skip::NoReason => {
            return Some(Plan {
                action: Action::Refuse {
                    why: "VOUCH_SKIP is set but empty: a skip needs a reason, e.g. VOUCH_SKIP=\"restoring main after a bad merge\"".into(),
                    review: false,
                },
                result: "skipped",
                override_reason: None,
            });
        }
        Skip::Reason(reason) => {
            return Some(allow("skipped", Some(format!("VOUCH_SKIP: {reason}"))));
        }
        Skip::No => {}
    }
    if approved {
        return Some(allow(
            "skipped",
            Some("approved by a person with `vouch approve`".into()),
        ));
    }
    None
}

/// The decision from the verifiers' outcome (the table of SPEC section 6).
pub fn decide(
    tier: Tier,
    outcome: &Outcome,
    interactive: bool,
    on_unavailable: OnUnavailable,
) -> Plan {
    let plan = |action, result| Plan {
        action,
        result,
        override_reason: None,
    };
    match outcome {
        Outcome::Proceed { confidence } if *confidence >= LOW_CONFIDENCE => {
            plan(Action::Allow { warning: None }, "proceed")
        }
        Outcome::Proceed { confidence } => plan(
            Action::Allow {
                warning: Some(format!(
                    "the verifiers agreed with low confidence ({confidence:.2})"
                )),
            },
            "proceed",
        ),
        Outcome::Warn if interactive => plan(Action::Ask, "warn"),
        Outcome::Warn => plan(
            Action::Refuse {
                why: "the verifiers raised concerns and nobody is at a terminal to weigh them"
                    .into(),
                review: true,
            },
            "warn",
        ),
        Outcome::Block => plan(
            Action::Refuse {
                why: "the verifiers judged this operation unsafe".into(),
                review: true,
            },
            "block",
        ),
        Outcome::Unavailable { reason } => {
            let warning = format!(
                "not verified: {reason} (configure a verifier, or set on_unavailable.{tier} = \"block\" to refuse instead)"
            );
            match on_unavailable {
                OnUnavailable::Block => plan(
                    Action::Refuse {
                        why: format!(
                            "not verified: {reason}; this {tier} operation is refused while verification is unavailable (on_unavailable.{tier} = \"block\")"
                        ),
                        review: true,
                    },
                    "unavailable",
                ),
                OnUnavailable::Ask if interactive => plan(Action::Ask, "unavailable"),
                OnUnavailable::Ask | OnUnavailable::Allow => plan(
                    Action::Allow {
                        warning: Some(warning),
                    },
                    "unavailable",
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proceed(c: f64) -> Outcome {
        Outcome::Proceed { confidence: c }
    }

    fn unavailable() -> Outcome {
        Outcome::Unavailable {
            reason: "no verifier".into(),
        }
    }

    #[test]
    fn the_decision_table() {
        use OnUnavailable::{Allow, Ask};
        let allow = Action::Allow { warning: None };
        for interactive in [true, false] {
            assert_eq!(
                decide(Tier::High, &proceed(0.9), interactive, Allow).action,
                allow
            );
            assert!(matches!(
                decide(Tier::High, &proceed(0.5), interactive, Allow).action,
                Action::Allow { warning: Some(_) }
            ));
            assert!(matches!(
                decide(Tier::High, &Outcome::Block, interactive, Allow).action,
                Action::Refuse { review: true, .. }
            ));
        }
        assert_eq!(
            decide(Tier::High, &Outcome::Warn, true, Allow).action,
            Action::Ask
        );
        assert!(matches!(
            decide(Tier::High, &Outcome::Warn, false, Allow).action,
            Action::Refuse { review: true, .. }
        ));
        // Unavailable: critical asks at a terminal, otherwise allowed with a warning.
        assert_eq!(
            decide(Tier::Critical, &unavailable(), true, Ask).action,
            Action::Ask
        );
        assert!(matches!(
            decide(Tier::Critical, &unavailable(), false, Ask).action,
            Action::Allow { warning: Some(_) }
        ));
        assert!(matches!(
            decide(Tier::High, &unavailable(), true, Allow).action,
            Action::Allow { warning: Some(_) }
        ));
        let blocked = decide(Tier::High, &unavailable(), false, OnUnavailable::Block);
        assert!(matches!(blocked.action, Action::Refuse { .. }));
        assert_eq!(blocked.result, "unavailable");
    }

    #[test]
    fn overrides_before_verification() {
        assert!(before_verifying(Tier::None, false, &Skip::No, false).is_some());
        assert!(
            before_verifying(Tier::Standard, false, &Skip::NoReason, false)
                .is_some_and(|p| matches!(p.action, Action::Allow { .. }))
        );
        assert!(before_verifying(Tier::Standard, true, &Skip::No, false).is_none());
        assert!(before_verifying(Tier::Critical, false, &Skip::No, false).is_none());
        let p = before_verifying(Tier::Critical, false, &Skip::NoReason, false).unwrap();
        assert!(matches!(p.action, Action::Refuse { review: false, .. }));
        let p = before_verifying(
            Tier::Critical,
            false,
            &Skip::from_value(Some(" fixing ")),
            false,
        )
        .unwrap();
        assert_eq!(p.action, Action::Allow { warning: None });
        assert_eq!(p.override_reason.as_deref(), Some("VOUCH_SKIP: fixing"));
        let p = before_verifying(Tier::Critical, false, &Skip::No, true).unwrap();
        assert!(p.override_reason.unwrap().contains("vouch approve"));
    }
}
