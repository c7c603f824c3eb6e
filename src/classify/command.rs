//! PURE: the measured facts of a shell command (SPEC 2.4) to its tier and
//! the sentences people read. The rule that matched the command gives a
//! tier; the facts may lower it (a clean work tree makes `git reset --hard`
//! harmless, a branch whose commits are all on other refs deletes quietly,
//! a push that destroys nothing on the remote is routine) or raise it
//! (`reset --hard <older>` also moves the branch back), never below what a
//! fact measured too early can vouch for.

use super::{Tier, classify_local, classify_push};
use crate::classify::config::Policy;
use crate::classify::facts::{CommandFacts, Discarded, LocalFacts, Unmeasured};

/// The tier of a command whose rule gave `rule`, once its facts are
/// measured (`None`: the rule asks for none), and what the facts say.
/// `after_change`: an earlier command of the line may change the repository
/// first, so the facts, measured before the line runs, cannot lower it.
/// `hook_judges`: whether the repository's reference-transaction hook
/// reaches vouch, which judges what the line commits on a ref it creates;
/// asked only when that matters.
pub fn classify_command(
    rule: Tier,
    after_change: bool,
    facts: Option<&CommandFacts>,
    policy: &Policy,
    hook_judges: &dyn Fn() -> bool,
) -> (Tier, Option<String>) {
    let Some(facts) = facts else {
        return (rule, None);
    };
    let (tier, note) = judge(rule, facts, policy);
    // A ref that does not exist before the line runs holds nothing that
    // exists now: deleting what the line itself creates is no loss to ask
    // about (issue 26 item 15); what the line commits on it in between is
    // judged by the reference-transaction hook as it happens, where that
    // hook reaches vouch (issue 29: where it does not, nothing else would).
    let absent = match facts {
        CommandFacts::Branch(None) => true,
        CommandFacts::Tags(tags) => tags.is_empty(),
        _ => false,
    };
    if after_change && tier < rule && absent && !hook_judges() {
        return (
            rule,
            Some(format!(
                "{}vouch's hooks are not reached in this repository, so nothing judges what the line does in between: judged here at its full tier",
                note.map(|n| format!("{n}; ")).unwrap_or_default()
            )),
        );
    }
    if after_change && tier < rule && !absent {
        return (
            rule,
            Some(format!(
                "{}an earlier command of the line may change the repository first: the facts measured now cannot lower it",
                note.map(|n| format!("{n}; ")).unwrap_or_default()
            )),
        );
    }
    (tier, note)
}

/// What a person reads about a kind of discarded content.
pub fn discarded_noun(what: Discarded) -> &'static str {
    match what {
        Discarded::TrackedChanges => "uncommitted changes (staged or not)",
        Discarded::UnstagedChanges => "unstaged changes",
        Discarded::UntrackedFiles => "untracked files",
        Discarded::UntrackedAndIgnoredFiles => "untracked and ignored files",
        Discarded::IgnoredFiles => "ignored files",
        Discarded::KeptOrStops => "local changes (`--merge`/`--keep` keep them or stop)",
    }
}

fn unmeasured_note(why: &Unmeasured) -> Option<String> {
    Some(match why {
        Unmeasured::NoRepository => "not inside a git repository here: facts not measured".into(),
        Unmeasured::OtherRepository => {
            "the command names another git directory or work tree: facts not measured".into()
        }
        Unmeasured::NotApplicable | Unmeasured::MirrorPush => return None,
        Unmeasured::PrunesOrPatterns => {
            "the push prunes or matches refs by pattern: facts not measured".into()
        }
        Unmeasured::PushUnresolved(e) => format!("the push could not be resolved: {e}"),
        Unmeasured::Failed(e) => e.clone(),
    })
}

/// Every finding of a planned local ref change at standard or above.
fn local_findings(local: &LocalFacts, policy: &Policy) -> (Tier, Vec<String>) {
    let a = classify_local(local, policy);
    let reasons = a
        .reasons(Tier::Standard)
        .iter()
        .map(|r| r.reason.clone())
        .collect();
    (a.tier, reasons)
}

fn judge(rule: Tier, facts: &CommandFacts, policy: &Policy) -> (Tier, Option<String>) {
    match facts {
        CommandFacts::Unmeasured(why) => (rule, unmeasured_note(why)),
        CommandFacts::Worktree { loss, moves } => {
            let what = discarded_noun(loss.what);
            let (mut tier, mut note) = if loss.files == 0 {
                (Tier::None, format!("nothing would be lost: no {what}"))
            } else {
                (
                    rule,
                    format!(
                        "would discard {} file(s) with {what}: {}",
                        loss.files,
                        loss.sample.join(", ")
                    ),
                )
            };
            if let Some(local) = moves {
                let (moved, reasons) = local_findings(local, policy);
                if moved > Tier::None {
                    tier = tier.max(moved);
                    for r in reasons {
                        note.push_str(&format!("; {r}"));
                    }
                }
            }
            (tier, Some(note))
        }
        CommandFacts::Branch(None) => (
            Tier::None,
            Some(
                "no such branch before this command: nothing that exists now would be lost".into(),
            ),
        ),
        CommandFacts::Branch(Some(local)) => {
            let a = classify_local(local, policy);
            let note = a
                .refs
                .iter()
                .map(|r| r.reason.clone())
                .collect::<Vec<_>>()
                .join("; ");
            let note = if note.is_empty() {
                "the branch's commits are all on other refs: nothing would be lost".into()
            } else {
                note
            };
            (a.tier, Some(note))
        }
        CommandFacts::Tags(tags) if tags.is_empty() => (
            Tier::None,
            Some("no such tag before this command: nothing that exists now would be lost".into()),
        ),
        CommandFacts::Tags(tags) => (rule, Some(format!("deletes {}", tags.join(", ")))),
        CommandFacts::StashDrop(dropped) if dropped.is_empty() => (
            Tier::None,
            Some("the stash is empty: nothing would be lost".into()),
        ),
        CommandFacts::StashDrop(dropped) => {
            (rule, Some(format!("would drop {}", dropped.join("; "))))
        }
        CommandFacts::Push {
            facts,
            remote_unanswered,
        } => {
            let a = classify_push(facts, policy);
            // The remote's tips unknown: the facts cannot lower the tier.
            let tier = if remote_unanswered.is_some() {
                a.tier.max(rule)
            } else {
                a.tier
            };
            let mut notes: Vec<String> = a
                .reasons(Tier::Standard)
                .iter()
                .map(|r| r.reason.clone())
                .collect();
            if notes.is_empty() {
                notes.push("the push would destroy nothing on the remote".into());
            }
            notes.extend(remote_unanswered.iter().cloned());
            (tier, Some(notes.join("; ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::facts::{LocalChange, LocalRefFacts, Lost, WorktreeLoss};

    fn policy() -> Policy {
        crate::classify::config::Config::default().policy
    }

    fn worktree(files: usize, what: Discarded) -> CommandFacts {
        CommandFacts::Worktree {
            loss: WorktreeLoss {
                what,
                files,
                sample: (0..files).map(|i| format!("f{i}")).collect(),
            },
            moves: None,
        }
    }

    #[test]
    fn a_clean_tree_makes_reset_hard_harmless() {
        let (tier, note) = classify_command(
            Tier::High,
            false,
            Some(&worktree(0, Discarded::TrackedChanges)),
            &policy(),
            &|| true,
        );
        assert_eq!(tier, Tier::None);
        assert_eq!(
            note.unwrap(),
            "nothing would be lost: no uncommitted changes (staged or not)"
        );
        let (tier, note) = classify_command(
            Tier::High,
            false,
            Some(&worktree(2, Discarded::UntrackedFiles)),
            &policy(),
            &|| true,
        );
        assert_eq!(tier, Tier::High);
        assert_eq!(
            note.unwrap(),
            "would discard 2 file(s) with untracked files: f0, f1"
        );
    }

    #[test]
    fn facts_measured_before_an_earlier_change_cannot_lower_the_tier() {
        let (tier, note) = classify_command(
            Tier::High,
            true,
            Some(&worktree(0, Discarded::TrackedChanges)),
            &policy(),
            &|| true,
        );
        assert_eq!(tier, Tier::High);
        assert!(note.unwrap().contains("cannot lower it"));
    }

    #[test]
    fn a_reset_that_also_loses_commits_is_raised_by_the_move() {
        let lost = Lost {
            count: 1,
            authors: 1,
            commits: Vec::new(),
            truncated: false,
        };
        let moves = LocalFacts {
            refs: vec![LocalRefFacts {
                name: "refs/heads/main".into(),
                old_oid: "a".repeat(40),
                new_oid: "b".repeat(40),
                change: LocalChange::Rewind,
                left_behind: 1,
                lost: Some(lost),
                kept_in_tree: false,
                amend: false,
                checked_out: true,
                missing_tip: false,
                unknown: None,
            }],
            ..LocalFacts::default()
        };
        let facts = CommandFacts::Worktree {
            loss: WorktreeLoss::none(Discarded::TrackedChanges),
            moves: Some(moves),
        };
        let (tier, note) = classify_command(Tier::High, false, Some(&facts), &policy(), &|| true);
        assert_eq!(tier, policy().tiers.local_rewind);
        assert!(note.unwrap().contains("would vanish"));
    }

    #[test]
    fn unmeasured_facts_leave_the_rule_s_tier() {
        for why in [
            Unmeasured::NoRepository,
            Unmeasured::OtherRepository,
            Unmeasured::MirrorPush,
            Unmeasured::PrunesOrPatterns,
            Unmeasured::Failed("x".into()),
        ] {
            let facts = CommandFacts::Unmeasured(why);
            assert_eq!(
                classify_command(Tier::Critical, false, Some(&facts), &policy(), &|| true).0,
                Tier::Critical
            );
        }
        assert_eq!(
            classify_command(Tier::High, false, None, &policy(), &|| true),
            (Tier::High, None)
        );
    }

    #[test]
    fn an_empty_stash_or_a_missing_branch_loses_nothing() {
        let p = policy();
        assert_eq!(
            classify_command(
                Tier::High,
                false,
                Some(&CommandFacts::StashDrop(vec![])),
                &p,
                &|| true,
            )
            .0,
            Tier::None
        );
        assert_eq!(
            classify_command(
                Tier::High,
                false,
                Some(&CommandFacts::Branch(None)),
                &p,
                &|| true
            )
            .0,
            Tier::None
        );
        let dropped = CommandFacts::StashDrop(vec!["stash@{0}: WIP".into()]);
        assert_eq!(
            classify_command(Tier::High, false, Some(&dropped), &p, &|| true),
            (Tier::High, Some("would drop stash@{0}: WIP".into()))
        );
    }
}
