//! PURE: the decision protocol (SPEC section 6), the one decision table of
//! every door.
//!
//! The tier, the overrides, who can be asked and the verifiers' outcome go
//! in; allow, ask or refuse comes out, with the audit `result`. Nothing here
//! prompts, prints or writes: the runner (`runner.rs`) carries the
//! plan out, and each door only words it (the agent protocols translate
//! [`Action`] into their agent's answer).

use serde::{Deserialize, Serialize};

use crate::classify::Tier;
use crate::classify::config::{Config, Mode, OnUnavailable};
use crate::verify::verdict::Outcome;

/// Confidence below which an allowed operation is logged as low-confidence.
pub const LOW_CONFIDENCE: f64 = 0.8;

/// Who can be asked to weigh concerns (SPEC 3.3, 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asker {
    /// A person at `/dev/tty`.
    Terminal,
    /// An AI agent: it is never the person, but some agents can ask theirs.
    Agent {
        /// The agent's protocol has an "ask the user" answer.
        can_ask: bool,
    },
    /// Nobody: CI, scripts, GUI clients, `VOUCH_HEADLESS`.
    Nobody,
    /// A person pushing to the server door: reads every message as a
    /// `remote:` line but cannot be asked, so `on_unavailable = "ask"`
    /// refuses there (the pusher is told how to get approval).
    Pusher,
}

/// The audit log's `result` (SPEC 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuditResult {
    /// The verifiers said proceed.
    Proceed,
    /// The verifiers raised concerns.
    Warn,
    /// The verifiers judged it unsafe.
    Block,
    /// Not verified: tier below verification, a skip or an approval.
    Skipped,
    /// No usable verdict.
    Unavailable,
}

impl AuditResult {
    /// The word, as logged.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Proceed => "proceed",
            Self::Warn => "warn",
            Self::Block => "block",
            Self::Skipped => "skipped",
            Self::Unavailable => "unavailable",
        }
    }

    /// The result word of the verifiers' outcome.
    pub fn of(outcome: &Outcome) -> Self {
        match outcome {
            Outcome::Proceed { .. } => Self::Proceed,
            Outcome::Warn => Self::Warn,
            Outcome::Block => Self::Block,
            Outcome::Unavailable { .. } => Self::Unavailable,
        }
    }
}

impl std::fmt::Display for AuditResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The audit log's `decision` (SPEC 7): what happened to the operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// It went ahead.
    Allowed,
    /// vouch refused it.
    Refused,
    /// An agent was told to ask its person (Claude Code's `ask`): the
    /// person's answer is given in the agent, where vouch does not see it.
    AskedPerson,
    /// A person at the terminal said yes.
    AskedYes,
    /// A person at the terminal said no (or pressed Ctrl-C).
    AskedNo,
}

impl Decision {
    /// The word, as logged.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allowed => "allowed",
            Self::Refused => "refused",
            Self::AskedPerson => "asked-person",
            Self::AskedYes => "asked-yes",
            Self::AskedNo => "asked-no",
        }
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What to do.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "action")]
pub enum Action {
    /// Let it happen; show the warning, if any.
    Allow {
        /// Shown on stderr and logged.
        warning: Option<String>,
    },
    /// Ask the person: at the terminal, or through the agent; default No.
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
    /// The audit `result`.
    pub result: AuditResult,
    /// The override reason, when a person overrode the verification.
    pub override_reason: Option<String>,
    /// Observe mode: what enforcing would have done, when it was not to
    /// allow (the action itself is then an allow).
    pub would: Option<Box<Action>>,
}

impl Plan {
    /// The refusal of an operation that could not be judged (input vouch
    /// cannot read, a chained hook's refusal): unavailable, no review.
    pub fn refused_unjudged(why: String) -> Self {
        Self {
            action: Action::Refuse { why, review: false },
            result: AuditResult::Unavailable,
            override_reason: None,
            would: None,
        }
    }
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

/// Everything the table reads besides the verifiers' outcome.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is an independent input of the table"
)]
pub struct Situation {
    /// The operation's tier.
    pub tier: Tier,
    /// `verify_standard`: standard operations are verified too.
    pub verify_standard: bool,
    /// `VOUCH_SKIP`.
    pub skip: Skip,
    /// A person approved this exact operation with `git vouch approve`.
    pub approved: bool,
    /// Who can be asked.
    pub asker: Asker,
    /// `on_unavailable` for this tier.
    pub on_unavailable: OnUnavailable,
    /// Observe mode: decide and log, never block or ask.
    pub observe: bool,
    /// The door's time budget ran out before a verdict (the agent door).
    pub late: bool,
}

/// Whether an operation of `tier` is verified.
pub fn is_verified(tier: Tier, verify_standard: bool) -> bool {
    match tier {
        Tier::Critical | Tier::High => true,
        Tier::Standard => verify_standard,
        Tier::None => false,
    }
}

impl Situation {
    /// Whether the operation is verified.
    pub fn is_verified(&self) -> bool {
        is_verified(self.tier, self.verify_standard)
    }
}

/// The decision before any verifier runs: tier none, unverified standard,
/// a skip or a person's approval settle it. `None`: run the verifiers.
pub fn before_verifying(s: &Situation) -> Option<Plan> {
    let allow = |override_reason| Plan {
        action: Action::Allow { warning: None },
        result: AuditResult::Skipped,
        override_reason,
        would: None,
    };
    if !s.is_verified() {
        return Some(allow(None));
    }
    let plan = match &s.skip {
        Skip::NoReason => Plan {
            action: Action::Refuse {
                why: "VOUCH_SKIP is set but empty: a skip needs a reason, e.g. VOUCH_SKIP=\"restoring main after a bad merge\"".into(),
                review: false,
            },
            result: AuditResult::Skipped,
            override_reason: None,
            would: None,
        },
        Skip::Reason(reason) => allow(Some(format!("VOUCH_SKIP: {reason}"))),
        Skip::No if s.approved => allow(Some("approved by a person with `git vouch approve`".into())),
        Skip::No => return None,
    };
    Some(observed(s, plan))
}

/// The decision from the verifiers' outcome (the table of SPEC section 6).
pub fn decide(s: &Situation, outcome: &Outcome) -> Plan {
    let plan = |action, result| Plan {
        action,
        result,
        override_reason: None,
        would: None,
    };
    let can_ask = match s.asker {
        Asker::Terminal => true,
        Asker::Agent { can_ask } => can_ask,
        Asker::Nobody | Asker::Pusher => false,
    };
    let tier = s.tier;
    let planned = match outcome {
        Outcome::Proceed { confidence } if *confidence >= LOW_CONFIDENCE => {
            plan(Action::Allow { warning: None }, AuditResult::Proceed)
        }
        Outcome::Proceed { confidence } => plan(
            Action::Allow {
                warning: Some(format!(
                    "the verifiers agreed with low confidence ({confidence:.2})"
                )),
            },
            AuditResult::Proceed,
        ),
        Outcome::Warn if can_ask => plan(Action::Ask, AuditResult::Warn),
        Outcome::Warn => plan(
            Action::Refuse {
                why: "the verifiers raised concerns and nobody is at a terminal to weigh them"
                    .into(),
                review: true,
            },
            AuditResult::Warn,
        ),
        Outcome::Block => plan(
            Action::Refuse {
                why: "the verifiers judged this operation unsafe".into(),
                review: true,
            },
            AuditResult::Block,
        ),
        Outcome::Unavailable { reason } => {
            let refuse = |why: String| {
                plan(
                    Action::Refuse { why, review: true },
                    AuditResult::Unavailable,
                )
            };
            let agent = matches!(s.asker, Asker::Agent { .. });
            match s.on_unavailable {
                _ if s.late && tier == Tier::Critical => refuse(format!(
                    "no verdict within the time allowed ({reason}); a {tier} operation is refused"
                )),
                OnUnavailable::Block => refuse(format!(
                    "not verified: {reason}; this {tier} operation is refused while verification is unavailable (on_unavailable.{tier} = \"block\")"
                )),
                // An agent is never the person: a high or critical operation
                // goes to the person behind it, or does not happen.
                _ if agent && tier >= Tier::High && can_ask => {
                    plan(Action::Ask, AuditResult::Unavailable)
                }
                _ if agent && tier >= Tier::High => refuse(format!(
                    "not verified: {reason}; an agent cannot decide a {tier} operation for the person"
                )),
                OnUnavailable::Ask if can_ask => plan(Action::Ask, AuditResult::Unavailable),
                OnUnavailable::Ask if s.asker == Asker::Pusher => refuse(format!(
                    "not verified: {reason}; on_unavailable.{tier} = \"ask\", and nobody can be asked on the server, so this {tier} operation is refused"
                )),
                OnUnavailable::Ask | OnUnavailable::Allow => plan(
                    Action::Allow {
                        warning: Some(format!(
                            "not verified: {reason} (configure a verifier, or set on_unavailable.{tier} = \"block\" to refuse instead)"
                        )),
                    },
                    AuditResult::Unavailable,
                ),
            }
        }
    };
    observed(s, planned)
}

/// Observe mode: whatever enforcing would do, the operation goes on, and
/// the plan keeps what would have happened.
fn observed(s: &Situation, plan: Plan) -> Plan {
    if !s.observe || matches!(plan.action, Action::Allow { .. }) {
        return plan;
    }
    Plan {
        action: Action::Allow { warning: None },
        would: Some(Box::new(plan.action)),
        ..plan
    }
}

/// Whether a door can answer at once, without the runner: there is nothing
/// to verify and nothing the audit log keeps. The git doors log every
/// operation above tier none; a `quiet` door (the agent door, which sees
/// every command an agent runs) logs an unverified one only with `log_all`,
/// or in observe mode above tier none.
pub fn answers_at_once(tier: Tier, config: &Config, quiet: bool) -> bool {
    if config.log_all || is_verified(tier, config.verify_standard) {
        return false;
    }
    let observe = config.mode == Mode::Observe;
    if tier == Tier::None {
        quiet || !observe
    } else {
        quiet && !observe
    }
}

/// The row for an operation the pipeline never judged because the door
/// could not run it to a verdict: `check` without `--verify`, an agent's
/// hook message that could not be read, a runner that failed, at every
/// door. What would be verified (high and critical, standard with
/// `verify_standard`) is stopped, anything lower passes (SPEC 3.1: a
/// refusal is never turned into an allow, and routine work is never held
/// up by vouch's own failure).
pub fn stops_unjudged(tier: Tier, verify_standard: bool) -> bool {
    is_verified(tier, verify_standard)
}

/// The row for input a door cannot read whole: `read` is the tier of what
/// could be read of it (the command in an agent's broken message), `None`
/// when nothing could. Unreadable input a git hook is given is refused:
/// what it changes is unknown. An agent's message with no command in it
/// names nothing vouch could judge, and passes with an error the agent
/// shows; a command that could be read is held to [`stops_unjudged`].
pub fn stops_unreadable(read: Option<Tier>, verify_standard: bool, agent: bool) -> bool {
    match read {
        Some(tier) => stops_unjudged(tier, verify_standard),
        None => !agent,
    }
}

/// Whether a decision leaves an audit line: every one above tier none,
/// every override or refusal; tier none only with `log_all` or in observe
/// mode (observe mode is how people see what vouch would do).
pub fn is_logged(tier: Tier, observe: bool, plan: &Plan, log_all: bool) -> bool {
    log_all
        || observe
        || tier > Tier::None
        || plan.override_reason.is_some()
        || matches!(plan.action, Action::Refuse { .. })
}

/// Whether a decision that could not be logged must be refused: a verified
/// or overridden one must leave its line; a routine one, or observe mode,
/// must not break git.
pub fn must_log(observe: bool, plan: &Plan) -> bool {
    !observe && (plan.result != AuditResult::Skipped || plan.override_reason.is_some())
}

/// Who a decision reaches, as the table of [`decision_table`] names them.
pub const WHO: [(&str, Asker); 5] = [
    ("a person at a terminal", Asker::Terminal),
    (
        "nobody at a terminal (GUI, script, CI, `VOUCH_HEADLESS`)",
        Asker::Nobody,
    ),
    (
        "an agent whose person answers its questions (Claude Code in `default`, `acceptEdits`, `plan`)",
        Asker::Agent { can_ask: true },
    ),
    (
        "any other agent; and every git hook an agent's command runs",
        Asker::Agent { can_ask: false },
    ),
    ("the server (`pre-receive`)", Asker::Pusher),
];

/// A plan in the words of [`decision_table`].
fn cell(plan: &Plan) -> &'static str {
    match &plan.action {
        Action::Allow { warning: None } => "allow",
        Action::Allow { warning: Some(_) } => "allow, with a warning",
        Action::Ask => "ask",
        Action::Refuse { review: true, .. } => "refuse (review request)",
        Action::Refuse { review: false, .. } => "refuse",
    }
}

/// One table of what happens (issue 35 item 4): for each verified tier and
/// each thing the verifiers can say, what [`decide`] does for each of
/// [`WHO`], under `config`'s `on_unavailable` and mode. `git vouch status
/// --explain` prints it, and `docs/doors.md` holds it for the defaults (a
/// test compares them), so the docs, `status` and the behaviour are one.
pub fn decision_table(config: &Config) -> String {
    let mut out = String::from("| tier | the verifiers say |");
    for (who, _) in WHO {
        out.push_str(&format!(" {who} |"));
    }
    out.push_str("\n| --- | --- |");
    for _ in WHO {
        out.push_str(" --- |");
    }
    out.push('\n');
    let outcomes = [
        ("proceed", Outcome::Proceed { confidence: 0.9 }),
        (
            "proceed, confidence below 0.8",
            Outcome::Proceed { confidence: 0.5 },
        ),
        ("warn", Outcome::Warn),
        ("block", Outcome::Block),
        (
            "no verdict (no key, no verifier, all failed)",
            Outcome::Unavailable {
                reason: String::new(),
            },
        ),
    ];
    for tier in [Tier::Critical, Tier::High] {
        for (said, outcome) in &outcomes {
            out.push_str(&format!("| {tier} | {said} |"));
            for (_, asker) in WHO {
                let situation = Situation {
                    tier,
                    verify_standard: config.verify_standard,
                    skip: Skip::No,
                    approved: false,
                    asker,
                    on_unavailable: config.on_unavailable.for_tier(tier),
                    observe: config.mode == Mode::Observe,
                    late: false,
                };
                out.push_str(&format!(" {} |", cell(&decide(&situation, outcome))));
            }
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table `docs/doors.md` shows is the one the code decides by.
    #[test]
    fn the_docs_hold_the_decision_table_of_the_defaults() {
        let docs = include_str!("../../docs/doors.md");
        let table = decision_table(&Config::default());
        assert!(
            docs.contains(&table),
            "docs/doors.md must hold `git vouch status --explain`'s table:\n{table}"
        );
    }

    /// The one row for what a door could not judge, for every door that
    /// has such a case (`check`, the agent door's unreadable message and
    /// failed runner).
    #[test]
    fn what_no_pipeline_judged_stops_where_it_would_be_verified() {
        for (tier, verify_standard, stops) in [
            (Tier::None, false, false),
            (Tier::Standard, false, false),
            (Tier::High, false, true),
            (Tier::Critical, false, true),
            (Tier::None, true, false),
            (Tier::Standard, true, true),
            (Tier::High, true, true),
        ] {
            assert_eq!(stops_unjudged(tier, verify_standard), stops, "{tier}");
        }
    }

    /// Unreadable input, for each kind of door: a git hook's is refused
    /// whatever it is; an agent's message is judged by the command read
    /// from it, and passes when none could be.
    #[test]
    fn unreadable_input_is_refused_unless_an_agent_message_names_nothing_verified() {
        for (read, agent, stops) in [
            (None, false, true),
            (None, true, false),
            (Some(Tier::None), true, false),
            (Some(Tier::Standard), true, false),
            (Some(Tier::High), true, true),
            (Some(Tier::Critical), true, true),
            (Some(Tier::Critical), false, true),
        ] {
            assert_eq!(
                stops_unreadable(read, false, agent),
                stops,
                "{read:?}, agent {agent}"
            );
        }
    }

    const ASKERS: [Asker; 5] = [
        Asker::Terminal,
        Asker::Agent { can_ask: true },
        Asker::Agent { can_ask: false },
        Asker::Nobody,
        Asker::Pusher,
    ];

    fn situation(tier: Tier, asker: Asker, on_unavailable: OnUnavailable) -> Situation {
        Situation {
            tier,
            verify_standard: false,
            skip: Skip::No,
            approved: false,
            asker,
            on_unavailable,
            observe: false,
            late: false,
        }
    }

    fn proceed(c: f64) -> Outcome {
        Outcome::Proceed { confidence: c }
    }

    fn unavailable() -> Outcome {
        Outcome::Unavailable {
            reason: "no verifier".into(),
        }
    }

    fn is_refuse(p: &Plan) -> bool {
        matches!(p.action, Action::Refuse { review: true, .. })
    }

    fn is_allow(p: &Plan, warned: bool) -> bool {
        matches!(&p.action, Action::Allow { warning } if warning.is_some() == warned)
    }

    /// Every row of SPEC 6, for every kind of asker.
    #[test]
    fn the_decision_table() {
        use OnUnavailable::{Allow, Ask, Block};
        for asker in ASKERS {
            let person = asker == Asker::Terminal;
            let can_ask = matches!(asker, Asker::Terminal | Asker::Agent { can_ask: true });
            let agent = matches!(asker, Asker::Agent { .. });
            let pusher = asker == Asker::Pusher;
            for tier in [Tier::Critical, Tier::High] {
                let s = situation(tier, asker, Allow);
                let d = |o: &Outcome| decide(&s, o);
                // proceed, confidence >= 0.8: allow.
                let p = d(&proceed(0.9));
                assert!(is_allow(&p, false), "{asker:?} {tier}");
                assert_eq!(p.result, AuditResult::Proceed);
                // proceed, low confidence: allow, with the low confidence logged.
                assert!(is_allow(&d(&proceed(0.5)), true), "{asker:?}");
                // warn: ask where someone can be asked, else refuse with a review request.
                let p = d(&Outcome::Warn);
                assert_eq!(p.result, AuditResult::Warn);
                if can_ask {
                    assert_eq!(p.action, Action::Ask, "{asker:?}");
                } else {
                    assert!(is_refuse(&p), "{asker:?}");
                }
                // block: refuse, always.
                let p = d(&Outcome::Block);
                assert!(is_refuse(&p), "{asker:?}");
                assert_eq!(p.result, AuditResult::Block);
                // unavailable, on_unavailable = block: refuse, for everyone.
                let p = decide(&situation(tier, asker, Block), &unavailable());
                assert!(is_refuse(&p), "{asker:?}");
                assert_eq!(p.result, AuditResult::Unavailable);
                // unavailable, ask: the person is asked; nobody: allowed with a warning;
                // an agent is never the person: it asks its person or is refused;
                // on a server nobody can be asked, and "ask" refuses.
                let p = decide(&situation(tier, asker, Ask), &unavailable());
                match (person, agent, can_ask) {
                    (true, _, _) | (_, true, true) => assert_eq!(p.action, Action::Ask),
                    (_, true, false) => assert!(is_refuse(&p), "{asker:?}"),
                    _ if pusher => assert!(is_refuse(&p), "{asker:?}"),
                    _ => assert!(is_allow(&p, true), "{asker:?}"),
                }
                // unavailable, allow: allowed with a warning, except for an agent.
                let p = decide(&situation(tier, asker, Allow), &unavailable());
                match (agent, can_ask) {
                    (true, true) => assert_eq!(p.action, Action::Ask),
                    (true, false) => assert!(is_refuse(&p), "{asker:?}"),
                    _ => assert!(is_allow(&p, true), "{asker:?}"),
                }
            }
            // A standard operation verified on request follows on_unavailable as it is.
            let mut s = situation(Tier::Standard, asker, Allow);
            s.verify_standard = true;
            assert!(is_allow(&decide(&s, &unavailable()), true), "{asker:?}");
        }
    }

    #[test]
    fn a_late_critical_verdict_is_a_refusal() {
        for asker in ASKERS {
            let mut s = situation(Tier::Critical, asker, OnUnavailable::Allow);
            s.late = true;
            assert!(is_refuse(&decide(&s, &unavailable())), "{asker:?}");
        }
    }

    #[test]
    fn observe_mode_allows_and_keeps_what_would_have_happened() {
        for asker in ASKERS {
            let mut s = situation(Tier::Critical, asker, OnUnavailable::Block);
            s.observe = true;
            let p = decide(&s, &Outcome::Block);
            assert!(is_allow(&p, false));
            assert!(matches!(p.would.as_deref(), Some(Action::Refuse { .. })));
            assert_eq!(p.result, AuditResult::Block);
            assert!(is_logged(s.tier, s.observe, &p, false));
            assert!(!must_log(s.observe, &p));
            let p = decide(&s, &proceed(0.9));
            assert!(p.would.is_none());
            s.skip = Skip::NoReason;
            let p = before_verifying(&s).unwrap();
            assert!(is_allow(&p, false));
            assert!(p.would.is_some());
        }
    }

    #[test]
    fn overrides_before_verification_are_the_same_at_every_door() {
        for asker in ASKERS {
            let s = |tier, skip: Skip, approved| Situation {
                skip,
                approved,
                ..situation(tier, asker, OnUnavailable::Allow)
            };
            let p = before_verifying(&s(Tier::None, Skip::No, false)).unwrap();
            assert_eq!(p.result, AuditResult::Skipped);
            // Unverified tiers ignore a skip, even an empty one.
            assert!(
                before_verifying(&s(Tier::Standard, Skip::NoReason, false))
                    .is_some_and(|p| is_allow(&p, false))
            );
            assert!(before_verifying(&s(Tier::Critical, Skip::No, false)).is_none());
            // An empty skip is refused, at every door (it was accepted by the agent door).
            let p = before_verifying(&s(Tier::Critical, Skip::NoReason, false)).unwrap();
            assert!(matches!(p.action, Action::Refuse { review: false, .. }));
            let p = before_verifying(&s(
                Tier::Critical,
                Skip::from_value(Some(" fixing ")),
                false,
            ))
            .unwrap();
            assert!(is_allow(&p, false));
            assert_eq!(p.override_reason.as_deref(), Some("VOUCH_SKIP: fixing"));
            assert!(is_logged(Tier::Critical, false, &p, false));
            let p = before_verifying(&s(Tier::Critical, Skip::No, true)).unwrap();
            assert!(p.override_reason.unwrap().contains("git vouch approve"));
            let mut standard = s(Tier::Standard, Skip::No, false);
            standard.verify_standard = true;
            assert!(before_verifying(&standard).is_none());
        }
    }

    /// Which operations a door answers without the runner: the git doors
    /// log everything above tier none, the agent door only what it verifies
    /// (or observe mode, or `log_all`).
    #[test]
    fn what_a_door_answers_at_once() {
        use Tier::{Critical, High, None, Standard};
        // (tier, verify_standard, log_all, observe) -> (git door, agent door)
        let table = [
            ((None, false, false, false), (true, true)),
            ((None, false, false, true), (false, true)),
            ((None, false, true, false), (false, false)),
            ((Standard, false, false, false), (false, true)),
            ((Standard, false, false, true), (false, false)),
            ((Standard, true, false, false), (false, false)),
            ((Standard, false, true, false), (false, false)),
            ((High, false, false, false), (false, false)),
            ((Critical, false, false, true), (false, false)),
        ];
        for ((tier, standard, all, observe), (git, agent)) in table {
            let config = Config {
                verify_standard: standard,
                log_all: all,
                mode: if observe {
                    Mode::Observe
                } else {
                    Mode::Enforce
                },
                ..Config::default()
            };
            assert_eq!(
                answers_at_once(tier, &config, false),
                git,
                "git door: {tier} {standard} {all} {observe}"
            );
            assert_eq!(
                answers_at_once(tier, &config, true),
                agent,
                "agent door: {tier} {standard} {all} {observe}"
            );
        }
    }

    #[test]
    fn what_is_logged() {
        let s = situation(Tier::None, Asker::Nobody, OnUnavailable::Allow);
        let p = before_verifying(&s).unwrap();
        assert!(!is_logged(s.tier, s.observe, &p, false));
        assert!(is_logged(s.tier, s.observe, &p, true));
        assert!(!must_log(s.observe, &p));
        let observe = Situation {
            observe: true,
            ..s.clone()
        };
        assert!(is_logged(observe.tier, observe.observe, &p, false));
        // Standard, not verified: logged, but a log failure does not refuse it.
        let s = situation(Tier::Standard, Asker::Nobody, OnUnavailable::Allow);
        let p = before_verifying(&s).unwrap();
        assert!(is_logged(s.tier, s.observe, &p, false));
        assert!(!must_log(s.observe, &p));
        let s = situation(Tier::High, Asker::Nobody, OnUnavailable::Allow);
        let p = decide(&s, &unavailable());
        assert!(is_logged(s.tier, s.observe, &p, false));
        assert!(must_log(s.observe, &p));
    }
}
