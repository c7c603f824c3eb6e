//! PURE: the operation (SPEC 1): what is about to happen, as every door
//! turns its input into it. Each later stage renders it in its own module:
//! the report a person reads ([`crate::report`]), the AI prompt
//! ([`crate::verify::ai::prompt`]), the verifier context and the built-in result
//! ([`crate::verify::programs`]), the approval binding ([`crate::review`]) and the
//! audit refs ([`crate::audit`]). A new door writes one function from its
//! input to an `Operation`.
//!
//! It serializes (and reads back) with its facts and tier, so that any
//! decision can be replayed: `git vouch eval` cases are operations.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::classify::{Assessment, Tier};
use crate::facts::ServerFacts;
use crate::facts::{CommandFacts, LocalFacts, PushFacts, StagedFacts};
use crate::input::receive::Pusher;

/// What is about to happen, with its measured facts and its tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Operation {
    /// A push (the pre-push hook): what would change on the remote.
    Push {
        /// What was measured.
        facts: PushFacts,
        /// Its tier, ref by ref.
        assessment: Assessment,
    },
    /// A commit (the pre-commit hook): the staged change.
    Commit {
        /// What was measured.
        staged: StagedFacts,
        /// Its tier, finding by finding.
        assessment: Assessment,
    },
    /// A local ref transaction (the reference-transaction hook).
    LocalRefs {
        /// What was measured.
        facts: LocalFacts,
        /// Its tier, ref by ref.
        assessment: Assessment,
    },
    /// A shell command (the agent door, `git vouch check`).
    Command {
        /// The command, its findings and facts.
        assessed: Assessed,
        /// `check`, or the agent's name.
        door: String,
        /// The agent's session id.
        session: Option<String>,
    },
    /// A push arriving at the server (the pre-receive hook, SPEC 3.5).
    ServerPush {
        /// What was measured on the server.
        facts: ServerFacts,
        /// Its tier, ref by ref.
        assessment: Assessment,
    },
    /// Decided before it could be judged: a hook message vouch cannot read,
    /// a chained hook's refusal, a person's approval.
    Unjudged(Unjudged),
}

/// One ref of a reviewed operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewRef {
    /// The remote ref.
    pub remote_ref: String,
    /// Old value.
    pub old_oid: String,
    /// New value.
    pub new_oid: String,
}

/// A shell command, assessed (SPEC 2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assessed {
    /// The command line, credentials masked.
    pub command: String,
    /// Where it runs.
    pub cwd: PathBuf,
    /// One finding per rule that matched (after facts) and per problem.
    pub assessment: Assessment,
    /// What was measured for each step whose rule asks for facts.
    #[serde(deserialize_with = "steps_or_sentences")]
    pub facts: Vec<StepFacts>,
    /// The repository's root, when the command runs in one.
    pub root: Option<PathBuf>,
    /// The branch checked out there.
    pub branch: Option<String>,
}

/// One step of a command line whose rule asks for facts, as measured
/// before the line runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepFacts {
    /// The step, its words joined (credentials masked); empty in a line
    /// written before vouch kept it.
    pub step: String,
    /// What was measured; `None` in a line written before vouch kept it
    /// (audit lines, eval cases), which has the note alone.
    pub measured: Option<CommandFacts>,
    /// What the facts say, for people (also in the step's reason).
    pub note: Option<String>,
}

/// A command's facts as they are written now (objects), or as audit lines
/// and eval cases written before held them (one sentence each): a
/// sentence is kept as the note of a step whose facts were not kept.
fn steps_or_sentences<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<StepFacts>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Step(Box<StepFacts>),
        Sentence(String),
    }
    Ok(Vec::<Written>::deserialize(d)?
        .into_iter()
        .map(|w| match w {
            Written::Step(s) => *s,
            Written::Sentence(note) => StepFacts {
                step: String::new(),
                measured: None,
                note: Some(note),
            },
        })
        .collect())
}

/// An operation decided before it could be judged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Unjudged {
    /// `push`, `commit`, `approve`.
    pub noun: String,
    /// The hook or command.
    pub hook: String,
    /// Its id, when it has one already (an approval's).
    pub id: Option<String>,
    /// Its tier, when known.
    pub tier: Option<Tier>,
    /// The remote, redacted.
    pub remote: Option<String>,
    /// Why the tier is what it is, as recorded earlier.
    pub reasons: Vec<String>,
    /// Concerns recorded earlier.
    pub concerns: Vec<String>,
    /// The refs, as recorded earlier.
    pub refs: Vec<ReviewRef>,
    /// An assessment of `tier` with no findings.
    #[serde(skip)]
    pub assessment: Assessment,
}

impl Unjudged {
    /// An operation of `noun` at `hook`, with nothing known about it.
    pub fn new(noun: &str, hook: &str, tier: Option<Tier>) -> Self {
        Self {
            noun: noun.to_owned(),
            hook: hook.to_owned(),
            tier,
            assessment: Assessment {
                tier: tier.unwrap_or_default(),
                ..Assessment::default()
            },
            ..Self::default()
        }
    }
}

impl Operation {
    /// `push`, `commit`, the local change (`branch deletion`, ...), `command`.
    pub fn noun(&self) -> &str {
        match self {
            Self::Push { .. } | Self::ServerPush { .. } => "push",
            Self::Commit { .. } => "commit",
            Self::LocalRefs { facts, assessment } => facts
                .refs
                .iter()
                .zip(&assessment.refs)
                .max_by_key(|(_, risk)| risk.tier)
                .map_or("ref update", |(f, _)| f.change.noun()),
            Self::Command { .. } => "command",
            Self::Unjudged(u) => &u.noun,
        }
    }

    /// The hook or command that decides it.
    pub fn hook(&self) -> &str {
        match self {
            Self::Push { .. } => "pre-push",
            Self::Commit { .. } => "pre-commit",
            Self::LocalRefs { .. } => "reference-transaction",
            Self::ServerPush { .. } => "pre-receive",
            Self::Command { door, .. } => door,
            Self::Unjudged(u) => &u.hook,
        }
    }

    /// Its tier and the reasons.
    pub fn assessment(&self) -> &Assessment {
        match self {
            Self::Push { assessment, .. }
            | Self::Commit { assessment, .. }
            | Self::LocalRefs { assessment, .. }
            | Self::ServerPush { assessment, .. } => assessment,
            Self::Command { assessed, .. } => &assessed.assessment,
            Self::Unjudged(u) => &u.assessment,
        }
    }

    /// Its tier; `None` when it could not be judged.
    pub fn tier(&self) -> Option<Tier> {
        match self {
            Self::Unjudged(u) => u.tier,
            _ => Some(self.assessment().tier),
        }
    }

    /// Where a push goes (redacted).
    pub fn remote(&self) -> Option<String> {
        match self {
            Self::Push { facts, .. } => Some(facts.url.clone()),
            Self::ServerPush { facts, .. } => Some(facts.push.url.clone()),
            Self::Unjudged(u) => u.remote.clone(),
            _ => None,
        }
    }

    /// A push's remote name.
    pub fn remote_name(&self) -> Option<String> {
        match self {
            Self::Push { facts, .. } => Some(facts.remote.clone()),
            _ => None,
        }
    }

    /// The branch checked out.
    pub fn branch(&self) -> Option<String> {
        match self {
            Self::Push { facts, .. } => facts.branch.clone(),
            Self::Commit { staged, .. } => staged.branch.clone(),
            Self::LocalRefs { facts, .. } => facts.branch.clone(),
            Self::Command { assessed, .. } => assessed.branch.clone(),
            Self::ServerPush { .. } | Self::Unjudged(_) => None,
        }
    }

    /// Who pushes, for a push arriving at the server.
    pub fn pusher(&self) -> Option<&Pusher> {
        match self {
            Self::ServerPush { facts, .. } => facts.pusher.as_ref(),
            _ => None,
        }
    }

    /// The shell command, for a command.
    pub fn command(&self) -> Option<&str> {
        match self {
            Self::Command { assessed, .. } => Some(&assessed.command),
            _ => None,
        }
    }

    /// The agent session it belongs to, when the door knows one.
    pub fn session(&self) -> Option<&str> {
        match self {
            Self::Command { session, .. } => session.as_deref(),
            _ => None,
        }
    }

    /// Why the tier is what it is, at most 100 lines.
    pub fn reasons(&self) -> Vec<String> {
        const MAX: usize = 100;
        if let Self::Unjudged(u) = self {
            return u.reasons.clone();
        }
        let all = self.assessment().reasons(Tier::Standard);
        let mut out: Vec<String> = all.iter().take(MAX).map(|r| r.reason.clone()).collect();
        if all.len() > MAX {
            out.push(format!("... and {} more", all.len() - MAX));
        }
        out
    }

    /// Concerns known before the verifiers run (an approval's).
    pub fn noted_concerns(&self) -> Vec<String> {
        match self {
            Self::Unjudged(u) => u.concerns.clone(),
            _ => Vec::new(),
        }
    }

    /// The measured facts, in the operation's own shape (verifier context).
    pub fn facts_value(&self) -> serde_json::Value {
        let value = match self {
            Self::Push { facts, .. } => serde_json::to_value(facts),
            Self::Commit { staged, .. } => serde_json::to_value(staged),
            Self::LocalRefs { facts, .. } => serde_json::to_value(facts),
            Self::ServerPush { facts, .. } => serde_json::to_value(facts),
            Self::Command { assessed, .. } => serde_json::to_value(&assessed.facts),
            Self::Unjudged(_) => Ok(serde_json::Value::Null),
        };
        value.unwrap_or_default()
    }

    /// What changes: refs or files (verifier context).
    pub fn changes_value(&self) -> serde_json::Value {
        let value = match self {
            Self::Push { facts, .. } => serde_json::to_value(&facts.refs),
            Self::Commit { staged, .. } => serde_json::to_value(&staged.files),
            Self::LocalRefs { facts, .. } => serde_json::to_value(&facts.refs),
            Self::ServerPush { facts, .. } => serde_json::to_value(&facts.push.refs),
            Self::Command { .. } | Self::Unjudged(_) => Ok(serde_json::Value::Null),
        };
        value.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::{RefRisk, Rule};
    use crate::facts::{Discarded, WorktreeLoss};

    fn assessment(tier: Tier) -> Assessment {
        Assessment {
            tier,
            refs: vec![RefRisk {
                tier,
                rule: Rule::Command,
                reason: "discards uncommitted changes".into(),
            }],
            push: Vec::new(),
        }
    }

    /// An operation reads back as it was written: any logged decision can
    /// become an eval case.
    /// Audit lines and eval cases written before command facts were typed
    /// hold one sentence per step: each reads as the note of a step whose
    /// facts were not kept, and nothing else is made up.
    #[test]
    fn command_facts_written_as_sentences_still_read() {
        let assessed: Assessed = serde_json::from_value(serde_json::json!({
            "command": "git reset --hard",
            "cwd": "/r",
            "assessment": {"tier": "critical", "refs": [], "push": []},
            "facts": ["would discard 1 file(s)"],
            "root": "/r",
            "branch": "main",
        }))
        .unwrap();
        assert_eq!(
            assessed.facts,
            [StepFacts {
                step: String::new(),
                measured: None,
                note: Some("would discard 1 file(s)".into()),
            }]
        );
    }

    #[test]
    fn an_operation_round_trips_through_json() {
        let ops = [
            Operation::Push {
                facts: PushFacts::default(),
                assessment: assessment(Tier::Critical),
            },
            Operation::Commit {
                staged: StagedFacts::default(),
                assessment: assessment(Tier::High),
            },
            Operation::LocalRefs {
                facts: LocalFacts::default(),
                assessment: assessment(Tier::Critical),
            },
            Operation::ServerPush {
                facts: ServerFacts {
                    pusher: Some(Pusher {
                        name: "alice".into(),
                        source: "REMOTE_USER".into(),
                    }),
                    quarantine: true,
                    ..ServerFacts::default()
                },
                assessment: assessment(Tier::Critical),
            },
            Operation::Command {
                assessed: Assessed {
                    command: "git reset --hard".into(),
                    cwd: "/r".into(),
                    assessment: assessment(Tier::Critical),
                    facts: vec![StepFacts {
                        step: "git reset --hard".into(),
                        measured: Some(CommandFacts::Worktree {
                            loss: WorktreeLoss {
                                what: Discarded::TrackedChanges,
                                files: 1,
                                sample: vec!["notes.txt".into()],
                            },
                            moves: None,
                        }),
                        note: Some("would discard 1 file(s)".into()),
                    }],
                    root: Some("/r".into()),
                    branch: Some("main".into()),
                },
                door: "claude".into(),
                session: Some("s".into()),
            },
        ];
        for op in ops {
            let text = serde_json::to_string(&op).unwrap();
            let back: Operation = serde_json::from_str(&text).unwrap();
            assert_eq!(back, op, "{text}");
        }
        let text = serde_json::to_string(&Operation::Command {
            assessed: Assessed {
                command: "ls".into(),
                cwd: "/".into(),
                assessment: Assessment::default(),
                facts: Vec::new(),
                root: None,
                branch: None,
            },
            door: "check".into(),
            session: None,
        })
        .unwrap();
        assert!(text.starts_with(r#"{"kind":"command""#), "{text}");
    }

    #[test]
    fn an_unjudged_operation_has_no_tier_unless_one_was_recorded() {
        let op = Operation::Unjudged(Unjudged::new("push", "pre-push", None));
        assert_eq!(op.tier(), None);
        assert_eq!(op.noun(), "push");
        let op = Operation::Unjudged(Unjudged::new("approve", "approve", Some(Tier::High)));
        assert_eq!(op.tier(), Some(Tier::High));
        assert_eq!(op.assessment().tier, Tier::High);
    }
}
