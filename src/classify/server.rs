//! A push arriving at the server (SPEC 3.5): the push's own rules (section
//! 2.1) applied to what the server measured. On the server every old tip is
//! known, so "unseen commits" cannot arise; what a ref change removes is the
//! commits on no other ref of the server after the push.

use super::{Assessment, Tier, classify_push, protected_by};
use crate::classify::config::Policy;
use crate::classify::facts::ServerFacts;
use crate::classify::facts::{Change, RefKind};

/// Classifies a push on the server.
pub fn classify_server(facts: &ServerFacts, policy: &Policy) -> Assessment {
    classify_push(&facts.push, policy)
}

/// The branches a push deletes or rewrites that are the server's default
/// branch or protected by the policy (where a skip may be kept off).
pub fn protected_changes(
    facts: &ServerFacts,
    assessment: &Assessment,
    policy: &Policy,
) -> Vec<String> {
    facts
        .push
        .refs
        .iter()
        .zip(&assessment.refs)
        .filter(|(r, risk)| {
            risk.tier > Tier::None
                && r.kind == RefKind::Branch
                && matches!(r.change, Change::Delete | Change::Rewrite)
                && protected_by(r.short_name(), &facts.push, policy).is_some()
        })
        .map(|(r, _)| r.short_name().to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::config::Config;
    use crate::classify::facts::{Lost, PushFacts, RefFacts, RemoteTip};
    use crate::classify::vocab::Rule;
    use crate::input::hooks::{ForceHint, PushUpdate};

    const OLD: &str = "1111111111111111111111111111111111111111";
    const NEW: &str = "2222222222222222222222222222222222222222";
    const Z: &str = "0000000000000000000000000000000000000000";

    fn server(refs: &[(&str, &str, &str, Change, usize)]) -> ServerFacts {
        let refs = refs
            .iter()
            .map(|(name, old, new, change, lost)| {
                let mut f = RefFacts::new(
                    PushUpdate {
                        local_ref: (*name).into(),
                        local_oid: (*new).into(),
                        remote_ref: (*name).into(),
                        remote_oid: (*old).into(),
                        lossy_name: false,
                    },
                    *change,
                );
                if *old != Z {
                    f.remote_tip = RemoteTip::Known;
                }
                if matches!(change, Change::Delete | Change::Rewrite) {
                    f.lost = Some(Lost {
                        count: *lost,
                        authors: usize::from(*lost > 0),
                        commits: Vec::new(),
                        truncated: false,
                    });
                }
                f
            })
            .collect();
        ServerFacts {
            push: PushFacts {
                remote: "team.git".into(),
                url: "/srv/git/team.git".into(),
                refs,
                force: ForceHint::Forced,
                remote_head: Some("main".into()),
                ..PushFacts::default()
            },
            ..ServerFacts::default()
        }
    }

    #[test]
    fn rewriting_the_servers_default_branch_is_critical_and_protected() {
        let policy = Config::default().policy;
        let f = server(&[("refs/heads/main", OLD, NEW, Change::Rewrite, 2)]);
        let a = classify_server(&f, &policy);
        assert_eq!(a.tier, Tier::Critical);
        assert_eq!(a.refs[0].rule, Rule::ForcePushProtected);
        assert!(
            a.refs[0].reason.contains("default branch of `team.git`"),
            "{}",
            a.refs[0].reason
        );
        assert!(
            a.refs[0].reason.contains("2 commits by 1 author"),
            "{}",
            a.refs[0].reason
        );
        assert_eq!(protected_changes(&f, &a, &policy), vec!["main".to_owned()]);
    }

    #[test]
    fn a_fast_forward_and_a_new_branch_are_routine() {
        let policy = Config::default().policy;
        let f = server(&[
            ("refs/heads/main", OLD, NEW, Change::FastForward, 0),
            ("refs/heads/topic", Z, NEW, Change::Create, 0),
        ]);
        let a = classify_server(&f, &policy);
        assert_eq!(a.tier, Tier::None);
        assert!(protected_changes(&f, &a, &policy).is_empty());
    }

    #[test]
    fn deleting_a_branch_and_moving_a_tag_are_judged() {
        let policy = Config::default().policy;
        let f = server(&[
            ("refs/heads/topic", OLD, Z, Change::Delete, 3),
            ("refs/tags/v1.0.0", OLD, NEW, Change::Rewrite, 0),
        ]);
        let a = classify_server(&f, &policy);
        assert!(a.refs[0].tier >= Tier::High, "{:?}", a.refs[0]);
        assert_eq!(a.refs[1].rule, Rule::ReleaseTagMove);
        assert!(protected_changes(&f, &a, &policy).is_empty());
    }
}
