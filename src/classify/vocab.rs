//! PURE: the words every stage shares: the risk tier, the rule that set it,
//! a finding (one tier, rule and reason) and an assessment (the findings of
//! one operation). Nothing here depends on another vouch module, so the
//! config, the classifier and the shell rules can all use them without
//! depending on one another.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How much verification an operation gets.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Not verified; fast path.
    #[default]
    None,
    /// Verified only on request.
    Standard,
    /// Verified unless explicitly skipped.
    High,
    /// Always verified.
    Critical,
}

impl Tier {
    /// The tier a name stands for (`critical`, `high`, `standard`, `none`).
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::None, Self::Standard, Self::High, Self::Critical]
            .into_iter()
            .find(|t| t.as_str() == name)
    }

    /// The name used in config and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Standard => "standard",
            Self::High => "high",
            Self::Critical => "critical",
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The rule that set a tier. The names are the keys of config `[tiers]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Non-fast-forward update of a protected branch.
    ForcePushProtected,
    /// A force push or deletion that destroys remote commits never fetched
    /// here, or whose lease would fail.
    ForcePushUnseen,
    /// Non-fast-forward update of any other ref.
    ForcePush,
    /// Deletion of a protected branch.
    DeleteProtected,
    /// Deletion of another branch or ref.
    DeleteBranch,
    /// A tag moved or deleted.
    TagMove,
    /// A release tag (`v*`) moved or deleted.
    ReleaseTagMove,
    /// More refs deleted or rewritten at once than the threshold.
    MassRefChanges,
    /// A fast-forward or new ref on a protected branch.
    PushProtected,
    /// Git itself will refuse this line after the hook (unforced).
    GitWillReject,
    /// Fast-forward, new branch, new tag.
    Routine,
    /// `DROP`/`TRUNCATE`/`ALTER ... DROP` added to a migration.
    DestructiveSql,
    /// A credential file staged.
    CredentialFile,
    /// Many files or lines deleted.
    BulkDeletion,
    /// CI/CD pipeline configuration changed.
    CiConfig,
    /// Infrastructure as code changed.
    Infrastructure,
    /// A dependency's major version raised.
    DependencyMajorBump,
    /// A large change.
    LargeChange,
    /// A local branch moved back and the changes left behind vanish.
    LocalRewind,
    /// A local branch moved back; what it leaves is still on another ref.
    LocalRewindReachable,
    /// A local branch rewritten, and some changes appear nowhere in the new history.
    LocalRewrite,
    /// A local branch deleted while it holds commits on no other ref.
    LocalDelete,
    /// A local tag moved or deleted.
    LocalTag,
    /// The stash dropped or cleared.
    StashDrop,
    /// A shell command matched a rule (`classify/shell/rules.toml` or `[[rules]]`).
    Command,
    /// What a change does could not be measured (a repository neither
    /// git2 nor git can read): at least high.
    Unmeasured,
}

impl Rule {
    /// True for rules about a ref that is deleted, rewritten or moved.
    pub fn is_destructive(self) -> bool {
        matches!(
            self,
            Self::ForcePushProtected
                | Self::ForcePushUnseen
                | Self::ForcePush
                | Self::DeleteProtected
                | Self::DeleteBranch
                | Self::TagMove
                | Self::ReleaseTagMove
        )
    }

    /// The name used in config `[tiers]` and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ForcePushProtected => "force_push_protected",
            Self::ForcePushUnseen => "force_push_unseen",
            Self::ForcePush => "force_push",
            Self::DeleteProtected => "delete_protected",
            Self::DeleteBranch => "delete_branch",
            Self::TagMove => "tag_move",
            Self::ReleaseTagMove => "release_tag_move",
            Self::MassRefChanges => "mass_ref_changes",
            Self::PushProtected => "push_protected",
            Self::GitWillReject => "git_will_reject",
            Self::Routine => "routine",
            Self::DestructiveSql => "destructive_sql",
            Self::CredentialFile => "credential_file",
            Self::BulkDeletion => "bulk_deletion",
            Self::CiConfig => "ci_config",
            Self::Infrastructure => "infrastructure",
            Self::DependencyMajorBump => "dependency_major_bump",
            Self::LargeChange => "large_change",
            Self::LocalRewind => "local_rewind",
            Self::LocalRewindReachable => "local_rewind_reachable",
            Self::LocalRewrite => "local_rewrite",
            Self::LocalDelete => "local_delete",
            Self::LocalTag => "local_tag",
            Self::StashDrop => "stash_drop",
            Self::Command => "command",
            Self::Unmeasured => "unmeasured",
        }
    }
}

/// The tier of one ref, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefRisk {
    /// The tier.
    pub tier: Tier,
    /// The rule that set it.
    pub rule: Rule,
    /// One sentence for people.
    pub reason: String,
}

/// The tier of a whole push.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assessment {
    /// The highest tier of any ref or push-wide rule.
    pub tier: Tier,
    /// One entry per ref in `PushFacts::refs`, same order.
    pub refs: Vec<RefRisk>,
    /// Rules about the push as a whole (many refs at once, unknown mirror deletions).
    pub push: Vec<RefRisk>,
}

impl Assessment {
    /// Every reason at or above `at_least`, most severe first, each once:
    /// the same sentence found twice (a function's body where it is
    /// defined and where it is called, the same command twice in a line)
    /// is one reason, at its highest tier.
    pub fn reasons(&self, at_least: Tier) -> Vec<&RefRisk> {
        let mut all: Vec<&RefRisk> = self
            .push
            .iter()
            .chain(&self.refs)
            .filter(|r| r.tier >= at_least && r.tier > Tier::None)
            .collect();
        all.sort_by_key(|r| std::cmp::Reverse(r.tier));
        let mut seen = std::collections::HashSet::new();
        all.retain(|r| seen.insert(r.reason.as_str()));
        all
    }
}

/// A person's ground truth about an operation (`git vouch label`, `git vouch eval`
/// cases): dangerous means warn or block is a catch, safe means it is a
/// false positive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// The operation should have been stopped.
    Dangerous,
    /// The operation was fine to let through.
    Safe,
}

impl Label {
    /// The word, as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dangerous => "dangerous",
            Self::Safe => "safe",
        }
    }
}
