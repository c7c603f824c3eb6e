//! A push (SPEC 2.1): what it would change on the remote.

use super::{Assessment, RefRisk, Rule, Tier};
use crate::classify::config::Policy;
use crate::classify::facts::{Change, Lease, Lost, PushFacts, RefFacts, RefKind, RemoteTip};
use crate::input::hooks::ForceHint;
use crate::input::text::short_oid;

/// Classifies a push.
pub fn classify_push(facts: &PushFacts, policy: &Policy) -> Assessment {
    let refs: Vec<RefRisk> = facts
        .refs
        .iter()
        .map(|r| classify_ref(r, facts, policy))
        .collect();
    let mut push = Vec::new();
    let destructive = facts
        .refs
        .iter()
        .zip(&refs)
        .filter(|(_, risk)| risk.rule.is_destructive())
        .count();
    if destructive > policy.mass_ref_changes {
        push.push(RefRisk {
            tier: policy.tiers.mass_ref_changes,
            rule: Rule::MassRefChanges,
            reason: format!(
                "this push deletes or rewrites {destructive} refs at once (more than {})",
                policy.mass_ref_changes
            ),
        });
    }
    if let Some(why) = &facts.mirror_unknown {
        push.push(RefRisk {
            tier: policy.tiers.mass_ref_changes,
            rule: Rule::MassRefChanges,
            reason: format!(
                "mirror push: the refs it would delete on the remote could not be listed ({why})"
            ),
        });
    }
    let tier = refs
        .iter()
        .chain(&push)
        .map(|r| r.tier)
        .max()
        .unwrap_or(Tier::None);
    Assessment { tier, refs, push }
}

/// The protected-branch rule that matches, if any.
pub fn protected_by(branch: &str, facts: &PushFacts, policy: &Policy) -> Option<String> {
    if policy.remote_head && facts.remote_head.as_deref() == Some(branch) {
        return Some(format!("the default branch of `{}`", facts.remote));
    }
    policy
        .protected
        .matches(branch)
        .first()
        .map(|&i| format!("protected by `{}`", policy.protected_patterns[i]))
}

fn lost_phrase(r: &RefFacts) -> String {
    match &r.lost {
        Some(lost) if lost.count > 0 => format!(" and removes {}", commits_by(lost)),
        Some(_) => String::new(),
        None => match &r.remote_tip {
            RemoteTip::Unknown(why) => format!(" (what it removes is unknown: {why})"),
            _ => String::new(),
        },
    }
}

/// `3 commits by 2 authors`.
pub(super) fn commits_by(lost: &Lost) -> String {
    let more = if lost.truncated { " or more" } else { "" };
    let plural = if lost.count == 1 { "" } else { "s" };
    let authors = if lost.authors == 1 {
        "author"
    } else {
        "authors"
    };
    format!(
        "{}{more} commit{plural} by {} {authors}",
        lost.count, lost.authors
    )
}

fn classify_ref(r: &RefFacts, facts: &PushFacts, policy: &Policy) -> RefRisk {
    let tiers = &policy.tiers;
    let name = r.short_name();
    let not_forced = facts.force == ForceHint::NotForced;
    let risk = |tier, rule, reason: String| RefRisk { tier, rule, reason };
    match (r.kind, r.change) {
        (_, Change::Unchanged) => risk(Tier::None, Rule::Routine, format!("`{name}` is unchanged")),
        (RefKind::Tag, Change::Delete | Change::Rewrite | Change::FastForward) => {
            if not_forced && r.change != Change::Delete {
                return risk(
                    Tier::None,
                    Rule::GitWillReject,
                    format!(
                        "tag `{name}` already exists on the remote; git refuses to move it without --force"
                    ),
                );
            }
            let verb = if r.change == Change::Delete {
                "deletes"
            } else {
                "moves"
            };
            if policy.release_tags.is_match(name) {
                risk(
                    tiers.release_tag_move,
                    Rule::ReleaseTagMove,
                    format!("this push {verb} release tag `{name}`"),
                )
            } else {
                risk(
                    tiers.tag_move,
                    Rule::TagMove,
                    format!("this push {verb} tag `{name}`"),
                )
            }
        }
        (_, Change::Delete) => {
            let protected = (r.kind == RefKind::Branch)
                .then(|| protected_by(name, facts, policy))
                .flatten();
            let unseen = unseen_reason(r);
            let base = match &protected {
                Some(why) => risk(
                    tiers.delete_protected,
                    Rule::DeleteProtected,
                    format!(
                        "this push deletes branch `{name}` ({why}){}",
                        lost_phrase(r)
                    ),
                ),
                None => risk(
                    tiers.delete_branch,
                    Rule::DeleteBranch,
                    format!("this push deletes `{name}`{}", lost_phrase(r)),
                ),
            };
            match unseen {
                Some(why) if tiers.force_push_unseen > base.tier => risk(
                    tiers.force_push_unseen,
                    Rule::ForcePushUnseen,
                    format!("deleting `{name}` destroys {why}"),
                ),
                _ => base,
            }
        }
        (_, Change::Rewrite) => {
            if not_forced && r.remote_tip == RemoteTip::Unseen {
                return risk(
                    Tier::None,
                    Rule::GitWillReject,
                    format!(
                        "the remote `{name}` has commits not fetched here; git refuses this unforced push (fetch first)"
                    ),
                );
            }
            let protected = (r.kind == RefKind::Branch)
                .then(|| protected_by(name, facts, policy))
                .flatten();
            if let Some(why) = unseen_reason(r) {
                return risk(
                    tiers.force_push_unseen,
                    Rule::ForcePushUnseen,
                    format!("force push to `{name}` would destroy {why}"),
                );
            }
            let mut out = match &protected {
                Some(why) => risk(
                    tiers.force_push_protected,
                    Rule::ForcePushProtected,
                    format!(
                        "force push rewrites branch `{name}` ({why}){}",
                        lost_phrase(r)
                    ),
                ),
                None => risk(
                    tiers.force_push,
                    Rule::ForcePush,
                    format!("force push rewrites `{name}`{}", lost_phrase(r)),
                ),
            };
            // What cannot be measured is never routine (shallow clones).
            if matches!(r.remote_tip, RemoteTip::Unknown(_)) && out.tier < Tier::High {
                out.tier = Tier::High;
            }
            out
        }
        (kind, Change::FastForward | Change::Create) => {
            let protected = (kind == RefKind::Branch)
                .then(|| protected_by(name, facts, policy))
                .flatten();
            match protected {
                Some(why) => risk(
                    tiers.push_protected,
                    Rule::PushProtected,
                    format!("direct push to `{name}` ({why})"),
                ),
                None => risk(
                    Tier::None,
                    Rule::Routine,
                    format!("`{name}`: routine update"),
                ),
            }
        }
    }
}

/// Why the remote's commits were never seen here, if they were not.
fn unseen_reason(r: &RefFacts) -> Option<String> {
    match (&r.remote_tip, &r.lease) {
        (RemoteTip::Unseen, _) => Some(format!(
            "remote commits never fetched here (the remote tip {} is not in this repository)",
            short_oid(&r.old_oid)
        )),
        (_, Lease::Stale { tracking_oid }) => Some(format!(
            "commits pushed since your last fetch (the remote is at {}, your remote-tracking ref at {}: a lease would fail)",
            short_oid(&r.old_oid),
            short_oid(tracking_oid)
        )),
        _ => None,
    }
}

/// Push facts for tests, here and in the verifiers' (the built-in result).
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use crate::classify::facts::RefFacts;
    use crate::input::hooks::PushUpdate;

    pub(crate) const OLD: &str = "1111111111111111111111111111111111111111";
    pub(crate) const NEW: &str = "2222222222222222222222222222222222222222";
    pub(crate) const Z: &str = "0000000000000000000000000000000000000000";

    pub(crate) fn refacts(remote_ref: &str, new: &str, old: &str, change: Change) -> RefFacts {
        let update = PushUpdate {
            local_ref: remote_ref.into(),
            local_oid: new.into(),
            remote_ref: remote_ref.into(),
            remote_oid: old.into(),
            lossy_name: false,
        };
        let mut f = RefFacts::new(update, change);
        if old != Z {
            f.remote_tip = RemoteTip::Known;
            f.lease = Lease::Holds;
        }
        f
    }

    pub(crate) fn push(refs: Vec<RefFacts>, force: ForceHint) -> PushFacts {
        PushFacts {
            remote: "origin".into(),
            refs,
            force,
            remote_head: Some("trunk".into()),
            ..PushFacts::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;
    use crate::classify::config::Config;
    use crate::classify::facts::{Lost, RefFacts};

    fn tier_of(facts: &PushFacts) -> (Tier, Rule) {
        let policy = Config::default().policy;
        let a = classify_push(facts, &policy);
        let top = a.reasons(Tier::None).first().map_or_else(
            || a.refs.first().map_or(Rule::Routine, |r| r.rule),
            |r| r.rule,
        );
        (a.tier, top)
    }

    #[test]
    fn force_push_to_protected_branch_is_critical() {
        let mut f = refacts("refs/heads/main", NEW, OLD, Change::Rewrite);
        f.lost = Some(Lost {
            count: 2,
            authors: 1,
            commits: vec![],
            truncated: false,
        });
        let facts = push(vec![f], ForceHint::Forced);
        assert_eq!(tier_of(&facts), (Tier::Critical, Rule::ForcePushProtected));
        let a = classify_push(&facts, &Config::default().policy);
        assert!(
            a.refs[0].reason.contains("removes 2 commits by 1 author"),
            "{}",
            a.refs[0].reason
        );
    }

    #[test]
    fn remote_default_branch_is_protected() {
        let f = refacts("refs/heads/trunk", NEW, OLD, Change::Rewrite);
        assert_eq!(tier_of(&push(vec![f], ForceHint::Forced)).0, Tier::Critical);
        let f = refacts("refs/heads/feature", NEW, OLD, Change::Rewrite);
        assert_eq!(
            tier_of(&push(vec![f], ForceHint::Forced)),
            (Tier::High, Rule::ForcePush)
        );
    }

    #[test]
    fn release_glob_protects_release_branches() {
        let f = refacts("refs/heads/release/1.2", NEW, OLD, Change::Rewrite);
        assert_eq!(
            tier_of(&push(vec![f], ForceHint::Unknown)).0,
            Tier::Critical
        );
    }

    #[test]
    fn unseen_remote_commits_are_critical_when_forced_or_unsure() {
        let mut f = refacts("refs/heads/feature", NEW, OLD, Change::Rewrite);
        f.remote_tip = RemoteTip::Unseen;
        assert_eq!(
            tier_of(&push(vec![f.clone()], ForceHint::Forced)),
            (Tier::Critical, Rule::ForcePushUnseen)
        );
        assert_eq!(
            tier_of(&push(vec![f.clone()], ForceHint::Unknown)).0,
            Tier::Critical
        );
        // Unforced: git answers "fetch first" after the hook; nothing to guard.
        assert_eq!(
            tier_of(&push(vec![f], ForceHint::NotForced)),
            (Tier::None, Rule::GitWillReject)
        );
    }

    #[test]
    fn stale_lease_is_critical() {
        let mut f = refacts("refs/heads/feature", NEW, OLD, Change::Rewrite);
        f.lease = Lease::Stale {
            tracking_oid: NEW.into(),
        };
        let (tier, rule) = tier_of(&push(vec![f], ForceHint::Forced));
        assert_eq!((tier, rule), (Tier::Critical, Rule::ForcePushUnseen));
    }

    #[test]
    fn deletions() {
        let f = refacts("refs/heads/main", Z, OLD, Change::Delete);
        assert_eq!(
            tier_of(&push(vec![f], ForceHint::Unknown)),
            (Tier::Critical, Rule::DeleteProtected)
        );
        let f = refacts("refs/heads/topic", Z, OLD, Change::Delete);
        assert_eq!(
            tier_of(&push(vec![f], ForceHint::NotForced)),
            (Tier::High, Rule::DeleteBranch)
        );
        let mut f = refacts("refs/heads/topic", Z, OLD, Change::Delete);
        f.remote_tip = RemoteTip::Unseen;
        assert_eq!(
            tier_of(&push(vec![f], ForceHint::NotForced)),
            (Tier::Critical, Rule::ForcePushUnseen)
        );
    }

    #[test]
    fn tags() {
        let f = refacts("refs/tags/nightly", NEW, OLD, Change::Rewrite);
        assert_eq!(
            tier_of(&push(vec![f], ForceHint::Forced)),
            (Tier::High, Rule::TagMove)
        );
        let f = refacts("refs/tags/v1.0.0", NEW, OLD, Change::Rewrite);
        assert_eq!(
            tier_of(&push(vec![f], ForceHint::Forced)),
            (Tier::Critical, Rule::ReleaseTagMove)
        );
        let f = refacts("refs/tags/v1.0.0", Z, OLD, Change::Delete);
        assert_eq!(
            tier_of(&push(vec![f], ForceHint::NotForced)).0,
            Tier::Critical
        );
        // An unforced tag move is refused by git ("already exists").
        let f = refacts("refs/tags/v1.0.0", NEW, OLD, Change::FastForward);
        assert_eq!(
            tier_of(&push(vec![f], ForceHint::NotForced)),
            (Tier::None, Rule::GitWillReject)
        );
        let f = refacts("refs/tags/v2", NEW, Z, Change::Create);
        assert_eq!(tier_of(&push(vec![f], ForceHint::NotForced)).0, Tier::None);
    }

    #[test]
    fn routine_pushes_are_none() {
        let f = refacts("refs/heads/main", NEW, OLD, Change::FastForward);
        let g = refacts("refs/heads/new", NEW, Z, Change::Create);
        assert_eq!(
            tier_of(&push(vec![f, g], ForceHint::NotForced)).0,
            Tier::None
        );
    }

    #[test]
    fn many_destructive_refs_at_once_are_critical() {
        let refs: Vec<RefFacts> = (0..6)
            .map(|i| refacts(&format!("refs/heads/b{i}"), Z, OLD, Change::Delete))
            .collect();
        assert_eq!(
            tier_of(&push(refs.clone(), ForceHint::Forced)),
            (Tier::Critical, Rule::MassRefChanges)
        );
        assert_eq!(
            tier_of(&push(refs[..5].to_vec(), ForceHint::Forced)).0,
            Tier::High
        );
    }

    #[test]
    fn unknown_remote_tip_is_at_least_high() {
        let mut f = refacts("refs/notes/commits", NEW, OLD, Change::Rewrite);
        f.remote_tip = RemoteTip::Unknown("shallow clone".into());
        let mut policy = Config::default().policy;
        policy.tiers.force_push = Tier::Standard;
        let a = classify_push(&push(vec![f], ForceHint::Forced), &policy);
        assert_eq!(a.tier, Tier::High);
    }

    #[test]
    fn unknown_mirror_deletions_are_critical() {
        let mut facts = push(vec![], ForceHint::Forced);
        facts.mirror = true;
        facts.mirror_unknown = Some("ls-remote failed".into());
        assert_eq!(tier_of(&facts).0, Tier::Critical);
    }
}
