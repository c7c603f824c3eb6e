//! A local ref transaction (SPEC 2.2): what would vanish.

use super::push::commits_by;
use super::{Assessment, RefRisk, Rule, Tier};
use crate::classify::config::Policy;
use crate::classify::facts::{LocalChange, LocalFacts, LocalRefFacts};
use crate::input::text::short_oid;

/// Classifies a reference transaction (SPEC 2.2): what matters is whether
/// changes would vanish, not whether a ref moved backwards.
pub fn classify_local(facts: &LocalFacts, policy: &Policy) -> Assessment {
    let refs: Vec<RefRisk> = facts
        .refs
        .iter()
        .map(|r| classify_local_ref(r, &policy.tiers))
        .collect();
    let tier = refs.iter().map(|r| r.tier).max().unwrap_or(Tier::None);
    Assessment {
        tier,
        refs,
        push: Vec::new(),
    }
}

fn classify_local_ref(r: &LocalRefFacts, tiers: &crate::classify::config::TierTable) -> RefRisk {
    let name = r.short_name();
    let risk = |tier, rule, reason| RefRisk { tier, rule, reason };
    let vanishing = r.lost.as_ref().filter(|l| l.count > 0);
    if let Some(why) = &r.unknown {
        // What would vanish could not be measured: judge it as if something would.
        let (tier, rule) = match r.change {
            LocalChange::Rewrite => (tiers.local_rewrite, Rule::LocalRewrite),
            LocalChange::MoveTag | LocalChange::DeleteTag => (tiers.local_tag, Rule::LocalTag),
            LocalChange::DropStash => (tiers.stash_drop, Rule::StashDrop),
            LocalChange::Rewind => (tiers.local_rewind, Rule::LocalRewind),
            LocalChange::DeleteBranch => (tiers.local_delete, Rule::LocalDelete),
        };
        return risk(
            tier,
            rule,
            format!(
                "{} of `{name}`: what it would lose is unknown ({why})",
                r.change.noun()
            ),
        );
    }
    match r.change {
        LocalChange::Rewind if r.kept_in_tree => risk(
            Tier::None,
            Rule::Routine,
            format!(
                "`{name}` moves back {} commit(s) but their changes stay in the index or work tree",
                r.left_behind
            ),
        ),
        LocalChange::Rewind => match vanishing {
            Some(lost) => risk(
                tiers.local_rewind,
                Rule::LocalRewind,
                format!(
                    "`{name}` moves back to {} and {} would vanish: on no other ref, never pushed, and not in the work tree",
                    short_oid(&r.new_oid),
                    commits_by(lost)
                ),
            ),
            None => risk(
                tiers.local_rewind_reachable,
                Rule::LocalRewindReachable,
                format!(
                    "`{name}` moves back {} commit(s) to {}; they stay reachable from other refs",
                    r.left_behind,
                    short_oid(&r.new_oid)
                ),
            ),
        },
        LocalChange::Rewrite if r.amend => risk(
            Tier::None,
            Rule::Routine,
            format!("`{name}`: the last commit is amended"),
        ),
        LocalChange::Rewrite => match vanishing {
            Some(lost) => risk(
                tiers.local_rewrite,
                Rule::LocalRewrite,
                format!(
                    "`{name}` is rewritten and the changes of {} appear nowhere in the new history or on another ref",
                    commits_by(lost)
                ),
            ),
            None => risk(
                Tier::None,
                Rule::Routine,
                format!("`{name}` is rewritten; every change reappears in the new history"),
            ),
        },
        LocalChange::DeleteBranch => match vanishing {
            Some(lost) => risk(
                tiers.local_delete,
                Rule::LocalDelete,
                format!(
                    "branch `{name}` is deleted and {} on no other ref would go with it",
                    commits_by(lost)
                ),
            ),
            None => risk(
                Tier::None,
                Rule::Routine,
                format!("branch `{name}` is deleted; its commits are on other refs"),
            ),
        },
        LocalChange::MoveTag => risk(
            tiers.local_tag,
            Rule::LocalTag,
            format!(
                "tag `{name}` moves from {} to {}",
                short_oid(&r.old_oid),
                short_oid(&r.new_oid)
            ),
        ),
        LocalChange::DeleteTag => risk(
            tiers.local_tag,
            Rule::LocalTag,
            format!("tag `{name}` (at {}) is deleted", short_oid(&r.old_oid)),
        ),
        LocalChange::DropStash => risk(
            tiers.stash_drop,
            Rule::StashDrop,
            format!(
                "the stash entry {} is dropped (or the stash cleared)",
                short_oid(&r.old_oid)
            ),
        ),
    }
}
