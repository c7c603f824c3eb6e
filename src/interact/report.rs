//! PURE: the text people read about an operation: what it does, what it
//! would destroy, and what the verifiers said. Used by the prompt, the
//! refusal message and `git vouch verify`.

use std::fmt::Write as _;

use crate::classify::facts::{Change, LocalChange, LocalFacts, PushFacts};
use crate::classify::operation::Operation;
use crate::classify::{Assessment, Tier};
use crate::input::text::one_line;
use crate::input::text::short_oid;
use crate::verify::verdict::{Combined, Status, VerifierResult};

/// A one-line description of a push.
pub fn describe_push(facts: &PushFacts) -> String {
    let forced = facts.refs.iter().any(|r| r.change == Change::Rewrite);
    let deletes = facts
        .refs
        .iter()
        .filter(|r| r.change == Change::Delete)
        .count();
    let what = match (facts.mirror, forced, deletes) {
        (true, _, _) => "mirror push",
        (false, true, _) => "force push",
        (false, false, n) if n > 0 => "push that deletes refs",
        _ => "push",
    };
    if facts.url.is_empty() || facts.url == facts.remote {
        format!("{what} to `{}`", facts.remote)
    } else {
        format!("{what} to `{}` ({})", facts.remote, facts.url)
    }
}

/// The facts and reasons of a push, indented, for a terminal.
pub fn push_details(facts: &PushFacts, assessment: &Assessment) -> String {
    const SHOWN: usize = 20;
    let mut out = String::new();
    let mut shown = 0;
    let mut hidden = 0;
    for (f, risk) in facts.refs.iter().zip(&assessment.refs) {
        if risk.tier == Tier::None && assessment.tier > Tier::None && facts.refs.len() > 10 {
            continue;
        }
        if shown == SHOWN {
            hidden += 1;
            continue;
        }
        shown += 1;
        let by_vouch = if f.computed_by_vouch {
            " (computed by vouch: git does not show mirror deletions)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  [{}] {}{by_vouch}",
            risk.tier,
            one_line(&risk.reason, 300)
        );
        if let Some(lost) = &f.lost {
            for c in &lost.commits {
                let _ = writeln!(
                    out,
                    "         {}  {}  ({})",
                    c.short_id,
                    one_line(&c.subject, 60),
                    one_line(&c.author, 30)
                );
            }
            if lost.count > lost.commits.len() {
                let _ = writeln!(
                    out,
                    "         ... and {} more",
                    lost.count - lost.commits.len()
                );
            }
        }
    }
    if hidden > 0 {
        let _ = writeln!(out, "  ... and {hidden} more refs (all in the audit log)");
    }
    for risk in &assessment.push {
        let _ = writeln!(out, "  [{}] {}", risk.tier, one_line(&risk.reason, 300));
    }
    for note in &facts.notes {
        let _ = writeln!(out, "  note: {}", one_line(note, 300));
    }
    out
}

/// What each verifier said, then the reasoning and the concerns, each said
/// once: a verdict's reasoning is usually its summary, and a verifier's
/// summary is also its first concern, so what was already said is not
/// repeated (one screen: what would be lost, the verdict, the question).
pub fn verifier_details(results: &[VerifierResult], combined: Option<&Combined>) -> String {
    let mut out = String::new();
    // Texts already on screen, as `label: text`.
    let mut said: Vec<String> = Vec::new();
    if !results.is_empty() {
        let _ = writeln!(out, "  verifiers:");
    }
    for r in results {
        let status = match r.status {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::Warn => "warn",
            Status::Skip => "skip",
            Status::Error => "ERROR",
        };
        let blocking = if r.blocking { "" } else { " (non-blocking)" };
        let _ = writeln!(
            out,
            "    {}{blocking}: {status}: {}",
            r.verifier,
            one_line(&r.summary, 200)
        );
        let label = if r.blocking {
            r.verifier.clone()
        } else {
            format!("{} (non-blocking)", r.verifier)
        };
        said.push(format!("{label}: {}", r.summary));
        for c in r.checks.iter().filter(|c| c.status != Status::Pass) {
            let _ = writeln!(out, "      - {}: {}", c.name, one_line(&c.message, 160));
        }
    }
    if let Some(c) = combined {
        for reason in &c.reasoning {
            if !said.contains(reason) {
                let _ = writeln!(out, "  reasoning: {}", one_line(reason, 300));
                said.push(reason.clone());
            }
        }
        for concern in &c.concerns {
            if !said.contains(concern) {
                let _ = writeln!(out, "  concern: {}", one_line(concern, 300));
                said.push(concern.clone());
            }
        }
    }
    out
}

/// What people read about an operation: what it is, its tier, and what it
/// would change.
pub fn describe(op: &Operation) -> String {
    match op {
        Operation::Push { facts, assessment } => format!(
            "{} [{} risk]\n{}",
            describe_push(facts),
            assessment.tier,
            push_details(facts, assessment)
        ),
        Operation::Commit { staged, assessment } => {
            let mut text = format!(
                "commit of {} files ({} lines){} [{} risk]\n",
                staged.files.len(),
                staged.line_totals(),
                staged
                    .branch
                    .as_ref()
                    .map(|b| format!(" on `{}`", one_line(b, 100)))
                    .unwrap_or_default(),
                assessment.tier
            );
            for r in assessment.reasons(Tier::Standard) {
                let _ = writeln!(text, "  [{}] {}", r.tier, one_line(&r.reason, 300));
            }
            text
        }
        Operation::LocalRefs { facts, assessment } => describe_local(op.noun(), facts, assessment),
        Operation::ServerPush { facts, assessment } => describe_server(facts, assessment),
        Operation::Command { assessed, .. } => {
            let mut text = format!(
                "command `{}` [{} risk]\n",
                one_line(&assessed.command, 300),
                assessed.assessment.tier
            );
            for r in assessed.assessment.reasons(Tier::Standard) {
                let _ = writeln!(text, "  [{}] {}", r.tier, one_line(&r.reason, 400));
            }
            text
        }
        Operation::Unjudged(u) => format!("{} (not judged)\n", u.noun),
    }
}

fn describe_local(noun: &str, facts: &LocalFacts, assessment: &Assessment) -> String {
    let mut text = format!(
        "{noun}{} [{} risk]\n",
        facts
            .command
            .as_ref()
            .map(|c| format!(" by `{c}`"))
            .unwrap_or_default(),
        assessment.tier
    );
    for (f, risk) in facts.refs.iter().zip(&assessment.refs) {
        if risk.tier == Tier::None {
            continue;
        }
        let _ = writeln!(text, "  [{}] {}", risk.tier, one_line(&risk.reason, 300));
        if let Some(lost) = &f.lost {
            for c in &lost.commits {
                let _ = writeln!(text, "      {} {}", c.short_id, one_line(&c.subject, 100));
            }
        }
        if f.checked_out && matches!(f.change, LocalChange::Rewind | LocalChange::Rewrite) {
            let _ = writeln!(
                text,
                "  note: git has already rewritten the index and work tree. If this is refused, `{}` still points at {}, and vouch puts the index and work tree back: as they were before an agent's command (from vouch's snapshot), otherwise at that commit (uncommitted edits the command overwrote cannot be saved by any git hook).",
                f.short_name(),
                short_oid(&f.old_oid)
            );
        }
    }
    text
}

/// A push arriving at the server: what it does, who pushes, the facts.
fn describe_server(facts: &crate::classify::facts::ServerFacts, assessment: &Assessment) -> String {
    let mut text = format!(
        "{}{} [{} risk]\n",
        describe_push(&facts.push),
        facts
            .pusher
            .as_ref()
            .map(|p| format!(" by {}", one_line(&p.shown(), 200)))
            .unwrap_or_default(),
        assessment.tier
    );
    text.push_str(&push_details(&facts.push, assessment));
    text
}

/// The command a person runs again with a skip (`git push ...`).
pub fn again(op: &Operation) -> String {
    match op {
        Operation::Push { .. } | Operation::ServerPush { .. } => "git push ...".into(),
        Operation::Commit { .. } => "git commit ...".into(),
        Operation::LocalRefs { facts, .. } => {
            facts.command.clone().unwrap_or_else(|| "git ...".into())
        }
        Operation::Command { assessed, .. } => assessed.command.clone(),
        Operation::Unjudged(_) => String::new(),
    }
}

/// The one line an agent and its person read when a command lost work,
/// naming the `git vouch undo` that brings it back; `None` when it lost
/// nothing.
pub fn loss_note(lost: &crate::undo::Loss) -> Option<String> {
    lost.is_loss().then(|| {
        format!(
            "vouch: `{}` lost {}. If that was not meant, `git vouch undo {}` brings it back.",
            crate::input::text::one_line(&lost.command, 80),
            loss_lines(lost).join("; "),
            lost.snapshot
        )
    })
}

/// `lost` for people, one line each (only what [`crate::undo::Loss::is_loss`] counts).
pub fn loss_lines(lost: &crate::undo::Loss) -> Vec<String> {
    let mut out = Vec::new();
    if !lost.files.is_empty() {
        let shown: Vec<&str> = lost.files.iter().take(5).map(String::as_str).collect();
        out.push(format!(
            "{} file(s) with uncommitted work deleted or overwritten: {}{}",
            lost.files.len(),
            shown.join(", "),
            if lost.files.len() > 5 { ", ..." } else { "" }
        ));
    }
    for r in lost.refs.iter().filter(|r| r.rewound) {
        if r.new_oid.is_empty() {
            out.push(format!("`{}` deleted", r.name));
        } else {
            out.push(format!(
                "`{}` moved off {}",
                r.name,
                crate::input::text::short_oid(&r.old_oid)
            ));
        }
    }
    let gone = lost.stash.len();
    if gone > 0 {
        out.push(format!(
            "{gone} stash entr{} dropped",
            if gone == 1 { "y" } else { "ies" }
        ));
    }
    out
}
