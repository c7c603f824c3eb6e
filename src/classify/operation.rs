//! PURE: the operation (SPEC 1): what is about to happen, as every door
//! turns its input into it. A new door writes one function from its input
//! to an `Operation`.
//!
//! What the later stages say about it comes from one [`View`], built once
//! per decision ([`Operation::view`]): its id, kind, hook, tier, reasons,
//! remote, branch, command, what an approval binds ([`View::bound`]) and
//! each ref's facts and tier ([`View::refs`]). The verifier context
//! ([`crate::verify::programs::context`]), the review request
//! ([`crate::interact::review::ReviewRequest::of`]), the approval check and the
//! audit line ([`crate::audit::Record::decided`]) read it. Two renderers
//! read the typed facts themselves, because they show what the view
//! leaves out (each commit lost, leases, the lines of a staged change),
//! fitted to their reader: the text a person reads ([`crate::interact::report`]) and
//! the AI prompt ([`crate::verify::ai::prompt`]).
//!
//! It serializes (and reads back) with its facts and tier, so that any
//! decision can be replayed: `git vouch eval` cases are operations.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::classify::facts::ServerFacts;
use crate::classify::facts::{CommandFacts, LocalFacts, PushFacts, StagedFacts};
use crate::classify::{Assessment, RefRisk, Tier};
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
    /// What running it means for its snapshot, read from the parse it was
    /// classified with (not part of the audit line).
    #[serde(skip)]
    pub runs: crate::classify::Runs,
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

/// One ref of an operation with its facts and tier, as the audit line keeps
/// it (`refs`); for a commit or a command, one per finding, with no ref
/// (the reason, which names what it is about, is in the reasons).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefView {
    /// The remote ref (for a local ref update, the ref).
    pub remote_ref: String,
    /// Old value on the remote.
    pub old_oid: String,
    /// New value.
    pub new_oid: String,
    /// How it changes.
    pub change: String,
    /// Its tier.
    pub tier: Tier,
    /// The rule that set the tier.
    pub rule: String,
    /// Whether the remote's tip was known here: known, unseen, unknown, none.
    pub remote_tip: String,
    /// Commits that leave the ref, when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_commits: Option<usize>,
}

impl RefView {
    /// A finding's tier and rule, with no ref (a staged file, a shell
    /// command: its reason, which names what it is about, is in the
    /// reasons); a local ref update fills in the ref's fields.
    pub fn finding(change: &str, risk: &RefRisk) -> Self {
        Self {
            remote_ref: String::new(),
            old_oid: String::new(),
            new_oid: String::new(),
            change: change.to_owned(),
            tier: risk.tier,
            rule: risk.rule.as_str().to_owned(),
            remote_tip: "none".into(),
            lost_commits: None,
        }
    }
}

/// The operation as the stages after its tier read it: built once per
/// decision ([`Operation::view`]), the one walk of the operation for the
/// id, the verifier context, the review request, the approval check and
/// the audit line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct View {
    /// Its id ([`operation_id`]): what an approval and the verdict cache
    /// are bound to.
    pub id: String,
    /// `push`, `commit`, the local change (`branch deletion`, ...), `command`.
    pub kind: String,
    /// The hook or command that decides it.
    pub hook: String,
    /// Its tier; `None` when it could not be judged.
    pub tier: Option<Tier>,
    /// Why the tier is what it is: the findings of standard tier or above,
    /// at most 100, then `... and N more` (for an operation not judged, the
    /// reasons recorded earlier).
    pub reasons: Vec<String>,
    /// Concerns known before the verifiers run (an approval's).
    pub concerns: Vec<String>,
    /// The repository root.
    pub repo: PathBuf,
    /// Where a push goes (credentials redacted).
    pub remote: Option<String>,
    /// A push's remote name.
    pub remote_name: Option<String>,
    /// The branch checked out.
    pub branch: Option<String>,
    /// The shell command, for a command (credentials masked).
    pub command: Option<String>,
    /// Who pushes, for a push arriving at the server: `alice (GL_USERNAME)`.
    pub pusher: Option<String>,
    /// What an approval is bound to: refs and object ids, a commit's files
    /// with their content, a command with its directory.
    pub bound: Vec<ReviewRef>,
    /// Each ref (or finding) with its facts and tier.
    pub refs: Vec<RefView>,
}

/// Reasons a view lists, at most.
const MAX_REASONS: usize = 100;

/// The operation id: 12 hex digits of a hash over everything that identifies it.
pub fn operation_id(kind: &str, repo: &str, remote: &str, refs: &[ReviewRef]) -> String {
    let mut h = Sha256::new();
    for part in [kind, repo, remote] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    let mut sorted = refs.to_vec();
    sorted.sort_by(|a, b| a.remote_ref.cmp(&b.remote_ref));
    for r in &sorted {
        for part in [&r.remote_ref, &r.old_oid, &r.new_oid] {
            h.update(part.as_bytes());
            h.update([0]);
        }
    }
    crate::input::text::hex(&h.finalize()[..6])
}

impl Operation {
    /// The one view of the operation in the repository at `root`.
    pub fn view(&self, root: &Path) -> View {
        let (bound, refs) = self.refs();
        let remote = self.remote();
        let id = match self {
            Self::Unjudged(Unjudged { id: Some(id), .. }) => id.clone(),
            _ => operation_id(
                self.noun(),
                &root.display().to_string(),
                remote.as_deref().unwrap_or_default(),
                &bound,
            ),
        };
        let reasons = if let Self::Unjudged(u) = self {
            u.reasons.clone()
        } else {
            let all = self.assessment().reasons(Tier::Standard);
            let mut out: Vec<String> = all
                .iter()
                .take(MAX_REASONS)
                .map(|r| r.reason.clone())
                .collect();
            if all.len() > MAX_REASONS {
                out.push(format!("... and {} more", all.len() - MAX_REASONS));
            }
            out
        };
        View {
            id,
            kind: self.noun().to_owned(),
            hook: self.hook().to_owned(),
            tier: self.tier(),
            reasons,
            concerns: match self {
                Self::Unjudged(u) => u.concerns.clone(),
                _ => Vec::new(),
            },
            repo: root.to_path_buf(),
            remote,
            remote_name: match self {
                Self::Push { facts, .. } => Some(facts.remote.clone()),
                _ => None,
            },
            branch: self.branch(),
            command: self.command().map(str::to_owned),
            pusher: self.pusher().map(Pusher::shown),
            bound,
            refs,
        }
    }

    /// What an approval binds, and each ref (or finding) with its facts
    /// and tier: one walk of the refs.
    fn refs(&self) -> (Vec<ReviewRef>, Vec<RefView>) {
        let bind = |name: &str, old: &str, new: &str| ReviewRef {
            remote_ref: name.to_owned(),
            old_oid: old.to_owned(),
            new_oid: new.to_owned(),
        };
        let push = |facts: &PushFacts, assessment: &Assessment| {
            let bound = facts
                .refs
                .iter()
                .map(|f| bind(&f.remote_ref, &f.old_oid, &f.new_oid))
                .collect();
            let refs = facts
                .refs
                .iter()
                .zip(&assessment.refs)
                .map(|(f, risk)| RefView {
                    remote_ref: f.remote_ref.clone(),
                    old_oid: f.old_oid.clone(),
                    new_oid: f.new_oid.clone(),
                    change: f.change.as_str().to_owned(),
                    tier: risk.tier,
                    rule: risk.rule.as_str().to_owned(),
                    remote_tip: f.remote_tip.as_str().to_owned(),
                    lost_commits: f.lost.as_ref().map(|l| l.count),
                })
                .collect();
            (bound, refs)
        };
        let findings = |change: &str, assessment: &Assessment| -> Vec<RefView> {
            assessment
                .refs
                .iter()
                .map(|r| RefView::finding(change, r))
                .collect()
        };
        match self {
            Self::Push { facts, assessment } => push(facts, assessment),
            Self::ServerPush { facts, assessment } => push(&facts.push, assessment),
            Self::Commit { staged, assessment } => (
                staged
                    .files
                    .iter()
                    .map(|f| bind(&f.path, &f.old_oid, &f.new_oid))
                    .collect(),
                findings("staged", assessment),
            ),
            Self::LocalRefs { facts, assessment } => (
                facts
                    .refs
                    .iter()
                    .map(|f| bind(&f.name, &f.old_oid, &f.new_oid))
                    .collect(),
                facts
                    .refs
                    .iter()
                    .zip(&assessment.refs)
                    .map(|(f, risk)| RefView {
                        remote_ref: f.name.clone(),
                        old_oid: f.old_oid.clone(),
                        new_oid: f.new_oid.clone(),
                        lost_commits: f.lost.as_ref().map(|l| l.count),
                        ..RefView::finding(&f.change.noun().replace(' ', "-"), risk)
                    })
                    .collect(),
            ),
            Self::Command { assessed, .. } => (
                vec![bind(
                    &assessed.command,
                    &assessed.cwd.display().to_string(),
                    "",
                )],
                findings("command", &assessed.assessment),
            ),
            Self::Unjudged(u) => (u.refs.clone(), Vec::new()),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {

    /// What a `git reset --hard` that discards one file measured: the
    /// runner's tests use it too.
    pub(crate) fn reset_hard_facts() -> Vec<StepFacts> {
        vec![StepFacts {
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
        }]
    }
    use super::*;
    use crate::classify::facts::{Discarded, WorktreeLoss};
    use crate::classify::{RefRisk, Rule};

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
                    facts: reset_hard_facts(),
                    root: Some("/r".into()),
                    branch: Some("main".into()),
                    runs: crate::classify::Runs::default(),
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
                runs: crate::classify::Runs::default(),
            },
            door: "check".into(),
            session: None,
        })
        .unwrap();
        assert!(text.starts_with(r#"{"kind":"command""#), "{text}");
    }

    /// A push of `refs` (name, old, new), the first rewritten and critical
    /// with 2 commits lost, the rest fast-forwards of no tier.
    fn push(refs: &[(&str, &str, &str)]) -> Operation {
        use crate::classify::facts::{Change, Lost, RefFacts};
        use crate::input::hooks::PushUpdate;
        let facts = PushFacts {
            remote: "origin".into(),
            url: "https://example.com/r.git".into(),
            branch: Some("main".into()),
            refs: refs
                .iter()
                .enumerate()
                .map(|(i, (name, old, new))| {
                    let update = PushUpdate {
                        local_ref: (*name).into(),
                        local_oid: (*new).into(),
                        remote_ref: (*name).into(),
                        remote_oid: (*old).into(),
                        lossy_name: false,
                    };
                    let mut f =
                        RefFacts::new(update, [Change::Rewrite, Change::FastForward][i.min(1)]);
                    if i == 0 {
                        f.lost = Some(Lost {
                            count: 2,
                            ..Lost::none()
                        });
                    }
                    f
                })
                .collect(),
            ..PushFacts::default()
        };
        let assessment = Assessment {
            tier: Tier::Critical,
            refs: (0..refs.len())
                .map(|i| RefRisk {
                    tier: [Tier::Critical, Tier::None][i.min(1)],
                    rule: Rule::Command,
                    reason: format!("ref {i}"),
                })
                .collect(),
            push: Vec::new(),
        };
        Operation::Push { facts, assessment }
    }

    #[test]
    fn the_view_binds_every_ref_and_keeps_each_with_its_facts_and_tier() {
        let op = push(&[
            ("refs/heads/main", "a1", "b1"),
            ("refs/heads/dev", "a2", "b2"),
        ]);
        let view = op.view(Path::new("/r"));
        assert_eq!(
            (view.kind.as_str(), view.hook.as_str()),
            ("push", "pre-push")
        );
        assert_eq!(view.tier, Some(Tier::Critical));
        assert_eq!(view.remote.as_deref(), Some("https://example.com/r.git"));
        assert_eq!(view.remote_name.as_deref(), Some("origin"));
        assert_eq!(view.branch.as_deref(), Some("main"));
        let bound: Vec<_> = view
            .bound
            .iter()
            .map(|r| {
                (
                    r.remote_ref.as_str(),
                    r.old_oid.as_str(),
                    r.new_oid.as_str(),
                )
            })
            .collect();
        assert_eq!(
            bound,
            [
                ("refs/heads/main", "a1", "b1"),
                ("refs/heads/dev", "a2", "b2")
            ]
        );
        let refs: Vec<_> = view
            .refs
            .iter()
            .map(|r| {
                (
                    r.remote_ref.as_str(),
                    r.change.as_str(),
                    r.tier,
                    r.lost_commits,
                )
            })
            .collect();
        assert_eq!(
            refs,
            [
                ("refs/heads/main", "rewrite", Tier::Critical, Some(2)),
                ("refs/heads/dev", "fast-forward", Tier::None, None)
            ]
        );
        // The reasons of standard tier and above only.
        assert_eq!(view.reasons, ["ref 0"]);
        // The id binds the refs and their oids, in any order, and the repository.
        assert_eq!(
            view.id,
            push(&[
                ("refs/heads/dev", "a2", "b2"),
                ("refs/heads/main", "a1", "b1")
            ])
            .view(Path::new("/r"))
            .id
        );
        assert_ne!(
            view.id,
            push(&[
                ("refs/heads/main", "a1", "b9"),
                ("refs/heads/dev", "a2", "b2")
            ])
            .view(Path::new("/r"))
            .id
        );
        assert_ne!(view.id, op.view(Path::new("/other")).id);
        assert_eq!(
            view.id,
            operation_id("push", "/r", "https://example.com/r.git", &view.bound)
        );
    }

    #[test]
    fn the_view_lists_at_most_a_hundred_reasons_and_says_how_many_more() {
        let many: Vec<(String, String, String)> = (0..150)
            .map(|i| (format!("refs/heads/b{i}"), "a".into(), "b".into()))
            .collect();
        let refs: Vec<(&str, &str, &str)> = many
            .iter()
            .map(|(n, o, w)| (n.as_str(), o.as_str(), w.as_str()))
            .collect();
        let Operation::Push {
            facts,
            mut assessment,
        } = push(&refs)
        else {
            unreachable!()
        };
        for r in &mut assessment.refs {
            r.tier = Tier::High;
        }
        let view = Operation::Push { facts, assessment }.view(Path::new("/r"));
        assert_eq!(view.reasons.len(), 101);
        assert_eq!(view.reasons[99], "ref 99");
        assert_eq!(view.reasons[100], "... and 50 more");
        assert_eq!((view.bound.len(), view.refs.len()), (150, 150));
    }

    #[test]
    fn an_unjudged_view_keeps_its_recorded_id_reasons_and_refs() {
        let op = Operation::Unjudged(Unjudged {
            id: Some("0123456789ab".into()),
            reasons: vec!["recorded".into()],
            concerns: vec!["noted".into()],
            refs: vec![ReviewRef {
                remote_ref: "refs/heads/main".into(),
                old_oid: "a".into(),
                new_oid: "b".into(),
            }],
            ..Unjudged::new("approve", "approve", Some(Tier::High))
        });
        let view = op.view(Path::new("/r"));
        assert_eq!(view.id, "0123456789ab");
        assert_eq!(
            (view.reasons, view.concerns),
            (vec!["recorded".to_owned()], vec!["noted".to_owned()])
        );
        assert_eq!(view.bound.len(), 1);
        assert!(view.refs.is_empty());
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
