//! Configuration: types, parsing, precedence, validation and the trust rule
//! (SPEC section 3.2).
//!
//! PURE: this module parses text it is handed. Reading the files and the
//! trust store is `context.rs`'s job.
//!
//! # Precedence
//!
//! Highest first: flags > `VOUCH_*` environment > the repository's
//! `.vouch.toml` > the user's `config.toml` > built-in defaults.
//!
//! # One trust rule, for every door
//!
//! A repository's `.vouch.toml` is written by whoever committed it: a
//! stranger's cloned repository, or an agent with a shell. Until a person
//! runs `git vouch trust` for its exact content, it may only make the guard
//! stricter. Whatever would lower the guard, run a program, send data or
//! write a file is ignored, and the run says so in one line naming every
//! ignored key and how to trust the file. Restating the value in force is
//! not lowering it and draws no line.
//!
//! A typo never loosens the guard. An unknown key, a value of the wrong
//! type or an invalid value is dropped alone, named with its file, line
//! and key on every run; the rest of the file applies. A file that cannot
//! be read or parsed at all is ignored, on every door alike (a broken
//! repository file leaves the user config and the defaults; a broken user
//! config leaves the defaults and the repository file, under the same
//! trust rule), and until it is fixed critical and high operations are
//! treated with `on_unavailable = "block"`: vouch cannot know what the
//! file asked for, so risky work waits for a verdict while ordinary work
//! goes on. [`Config::broken`] holds the errors for `git vouch doctor`,
//! which exits 2 while there are any.
//!
//! What each setting may do, by who writes it ("any": any value; a direction:
//! only a value at least that strict; "no": ignored). The user config and a
//! trusted repository file may set any value (a repository never an API
//! key); the table's column is the untrusted repository file.
//! `tests::every_setting_has_a_decision` checks that every key the file
//! format accepts is listed here, and `tests::who_may_set_what` checks each
//! row.
//!
//! | setting | untrusted repository | why |
//! |---|---|---|
//! | `mode` | `enforce` only | `observe` turns every door off |
//! | `strict` | `true` only | `false` lets a hook with a missing binary allow |
//! | `verify_standard` | `true` only | more is verified |
//! | `log_all` | `true` only | more is recorded |
//! | `notify_command` | no | runs a program |
//! | `protected.branches`, `protected.release_tags` | added to the lower layers' lists | a list that replaces could drop `main` |
//! | `protected.remote_head` | `true` only | more is protected |
//! | `thresholds.mass_ref_changes` | lower only | fewer changes already count as mass |
//! | `tiers.*` | higher only | a lower tier is verified less |
//! | `on_unavailable.*` | stricter only (`allow` < `ask` < `block`) | `allow` lets an unverified operation through |
//! | `verifiers.*` | no | runs programs; turning one off or non-blocking lowers |
//! | `log.path` | no | writes where the file says; can hide the record |
//! | `log.max_bytes` | higher only | a smaller log keeps fewer records |
//! | `log.keep` | higher only | fewer generations keep fewer records |
//! | `ai.enabled` | `true` only | off means no verdict |
//! | `ai.order` | no | chooses who receives the operation's data |
//! | `ai.timeout_secs`, `ai.connect_timeout_secs` | no | shorter turns verdicts into "unavailable"; longer only delays |
//! | `ai.cache_secs` | lower only | a longer cache reuses an old verdict |
//! | `ai.max_output_tokens`, `ai.temperature` | no | a budget that cuts the verdict short makes it unreadable; the user's money |
//! | `providers.*` | no | endpoints, models and keys: where data is sent |
//! | `prices.*` | no | the user's cost figures |
//! | `commit.migrations`, `credentials`, `ci`, `infrastructure`, `manifests` | added to the lower layers' lists | more paths are watched |
//! | `commit.migration_exceptions`, `credential_exceptions`, `generated` | narrowed only (patterns already in force) | an exception is a path left unwatched |
//! | `commit.bulk_*`, `commit.large_*` | lower only | a lower threshold flags more |
//! | `commit.tiers.*` | higher only | as `tiers.*` |
//! | `[[rules]]` | any (added) | a rule only raises a command's tier |
//! | `snapshots.keep`, `snapshots.days` | higher only | fewer snapshots kept is less an agent's loss can be undone from |
//! | `agent.budget_secs` | no | shorter leaves high-tier commands unverified; longer passes the agent's own hook timeout, and the agent then goes ahead |
//!
//! # The environment
//!
//! `VOUCH_*` variables belong to whoever runs the command: the person, a
//! script, or an agent that writes them inline (the agent door judges an
//! inline `VOUCH_*` assignment as a bypass, SPEC 2.4). In the config, only
//! two raise the guard and neither can lower it: `VOUCH_VERIFY=1`
//! (`verify_standard`) and `VOUCH_STRICT=1` (`strict`); `0` leaves the files'
//! value. `VOUCH_LOG` (where the record is written) and `VOUCH_CONFIG`
//! (which user config is read, `context.rs`) can lower it, as the user's own
//! settings can: they stand in for the user, above the repository file, as
//! SPEC 3.2 orders. Outside the config, `VOUCH_SKIP` skips one operation's
//! verification with a logged reason, `VOUCH_HEADLESS` never prompts, and
//! `VOUCH_PRIMARY` names the proposer (so the judge comes from another
//! provider); `VOUCH_NESTED` counts only while the vouch it names is an
//! ancestor.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::classify::glob::{PathGlob, segments};
use crate::classify::vocab::Tier;

// The built-in defaults that are data (protected branches, release tags,
// the tier of every rule, the pre-commit rules): `defaults.toml`, turned
// into constants by build.rs.
include!(concat!(env!("OUT_DIR"), "/defaults.rs"));

/// Default verifier program timeout (SPEC section 4).
pub const DEFAULT_VERIFIER_TIMEOUT_SECS: u64 = 30;

/// Default size past which the audit log is rotated.
pub const DEFAULT_LOG_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// Default number of rotated audit log generations kept.
pub const DEFAULT_LOG_KEEP: u32 = 10;

/// Whether decisions take effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Decisions take effect.
    #[default]
    Enforce,
    /// Decisions are made and logged, but nothing is refused or asked: for trying vouch safely.
    Observe,
}

/// What to do when no verdict can be had, from the weakest to the strictest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnUnavailable {
    /// Allow, with a warning, and log the skip.
    Allow,
    /// Ask at a terminal; headless, allow with a warning.
    Ask,
    /// Refuse.
    Block,
}

/// The tier each rule of `classify.rs` gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierTable {
    /// Non-fast-forward update of a protected branch.
    pub force_push_protected: Tier,
    /// Destroys remote commits never fetched here, or the lease would fail.
    pub force_push_unseen: Tier,
    /// Non-fast-forward update of another ref.
    pub force_push: Tier,
    /// Deletion of a protected branch.
    pub delete_protected: Tier,
    /// Deletion of another branch.
    pub delete_branch: Tier,
    /// A tag moved or deleted.
    pub tag_move: Tier,
    /// A release tag moved or deleted.
    pub release_tag_move: Tier,
    /// More destructive ref changes than `thresholds.mass_ref_changes`.
    pub mass_ref_changes: Tier,
    /// A fast-forward or new ref on a protected branch.
    pub push_protected: Tier,
    /// A local branch moved back and the changes left behind vanish.
    pub local_rewind: Tier,
    /// A local branch moved back; what it leaves is on another ref.
    pub local_rewind_reachable: Tier,
    /// A local branch rewritten and some changes appear nowhere else.
    pub local_rewrite: Tier,
    /// A local branch deleted with commits on no other ref.
    pub local_delete: Tier,
    /// A local tag moved or deleted.
    pub local_tag: Tier,
    /// The stash dropped or cleared.
    pub stash_drop: Tier,
}

impl Default for TierTable {
    fn default() -> Self {
        DEFAULT_TIERS
    }
}

/// The policy half of the config: what `classify.rs` needs.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Compiled protected-branch globs.
    pub protected: Globs,
    /// The same globs as written, index for index.
    pub protected_patterns: Vec<String>,
    /// Protect the remote's default branch (`refs/remotes/<r>/HEAD`).
    pub remote_head: bool,
    /// Compiled release-tag globs.
    pub release_tags: Globs,
    /// Release-tag globs as written.
    pub release_tag_patterns: Vec<String>,
    /// More destructive ref changes than this in one push is `mass_ref_changes`.
    pub mass_ref_changes: usize,
    /// The tier of each rule.
    pub tiers: TierTable,
}

/// The pre-commit rules (SPEC 2.3): which paths each rule watches, the
/// thresholds, and the tier of each rule.
#[derive(Debug, Clone)]
pub struct CommitRules {
    /// Migration files, whose added SQL is read.
    pub migrations: Globs,
    /// Migrations that are meant to drop (down migrations).
    pub migration_exceptions: Globs,
    /// Lockfiles and generated files, left out of the deletion and size counts.
    pub generated: Globs,
    /// Credential files.
    pub credentials: Globs,
    /// Paths that look like credentials but are not (`.env.example`).
    pub credential_exceptions: Globs,
    /// CI/CD pipeline configuration.
    pub ci: Globs,
    /// Infrastructure as code.
    pub infrastructure: Globs,
    /// Dependency manifests, whose version changes are read.
    pub manifests: Globs,
    /// More deleted files than this is a bulk deletion.
    pub bulk_deleted_files: usize,
    /// More deleted lines than this is a bulk deletion.
    pub bulk_deleted_lines: usize,
    /// More files than this is a large change.
    pub large_files: usize,
    /// More changed lines than this is a large change.
    pub large_lines: usize,
    /// The tier of each rule, by name.
    pub tiers: BTreeMap<&'static str, Tier>,
}

fn default_globs(name: &str) -> Globs {
    Globs::built_in(
        COMMIT_GLOBS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(&[], |(_, p)| *p),
    )
}

impl Default for CommitRules {
    fn default() -> Self {
        Self {
            migrations: default_globs("migrations"),
            migration_exceptions: default_globs("migration_exceptions"),
            generated: default_globs("generated"),
            credentials: default_globs("credentials"),
            credential_exceptions: default_globs("credential_exceptions"),
            ci: default_globs("ci"),
            infrastructure: default_globs("infrastructure"),
            manifests: default_globs("manifests"),
            bulk_deleted_files: COMMIT_BULK_DELETED_FILES,
            bulk_deleted_lines: COMMIT_BULK_DELETED_LINES,
            large_files: COMMIT_LARGE_FILES,
            large_lines: COMMIT_LARGE_LINES,
            tiers: COMMIT_TIERS.iter().copied().collect(),
        }
    }
}

impl CommitRules {
    /// The tier of rule `name`.
    pub fn tier(&self, name: &str) -> Tier {
        self.tiers.get(name).copied().unwrap_or(Tier::High)
    }
}

/// What to do when verification is unavailable, per tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnUnavailableTable {
    /// Critical operations (default: ask).
    pub critical: OnUnavailable,
    /// High operations (default: allow).
    pub high: OnUnavailable,
    /// Standard operations (default: allow).
    pub standard: OnUnavailable,
}

impl OnUnavailableTable {
    /// The setting for `tier`.
    pub fn for_tier(&self, tier: Tier) -> OnUnavailable {
        match tier {
            Tier::Critical => self.critical,
            Tier::High => self.high,
            Tier::Standard | Tier::None => self.standard,
        }
    }
}

/// One configured verifier program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifierConfig {
    /// The command, split like a shell; `None` to configure a program found by name.
    pub command: Option<Vec<String>>,
    /// A failing result blocks (default true).
    pub blocking: bool,
    /// Seconds before the program is killed and counted as an error.
    pub timeout_secs: u64,
    /// The tiers that run it; `None`: every verified tier.
    pub tiers: Option<Vec<Tier>>,
    /// Off: never run.
    pub enabled: bool,
    /// The file that configured it.
    pub source: String,
}

/// The AI verifier's settings (`[ai]`).
#[derive(Debug, Clone, PartialEq)]
pub struct AiConfig {
    /// Ask an AI verifier at all.
    pub enabled: bool,
    /// Providers to prefer when the proposer is unknown.
    pub order: Vec<String>,
    /// Whole-request timeout.
    pub timeout_secs: u64,
    /// Connect timeout.
    pub connect_timeout_secs: u64,
    /// How long a verdict is reused for the same operation.
    pub cache_secs: u64,
    /// Output budget (reasoning models need room).
    pub max_output_tokens: u32,
    /// Sent only when set: many models reject it.
    pub temperature: Option<f32>,
    /// The proposer, from a `--primary` flag (above `VOUCH_PRIMARY`).
    pub primary: Option<String>,
}

impl Default for AiConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            order: vec!["anthropic".into(), "google".into(), "openai".into()],
            timeout_secs: 20,
            connect_timeout_secs: 5,
            cache_secs: 600,
            max_output_tokens: 1024,
            temperature: None,
            primary: None,
        }
    }
}

/// One `[providers.NAME]` table as written; unset fields keep the built-in
/// provider's values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderConfig {
    /// Wire format.
    pub kind: Option<provider::Kind>,
    /// Whose model it serves (OpenAI-compatible servers).
    pub family: Option<String>,
    /// Model.
    pub model: Option<String>,
    /// The tiebreaker model.
    pub strong_model: Option<String>,
    /// Base URL.
    pub base_url: Option<String>,
    /// The variable holding the key.
    pub api_key_env: Option<String>,
    /// A key written in the user config (never from a repository file).
    pub api_key: Option<provider::Secret>,
}

/// Price of a model, USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Input tokens.
    pub input_per_mtok: f64,
    /// Output tokens.
    pub output_per_mtok: f64,
}

/// Prices of the default models (`research/providers.md` section 3; check
/// live pricing: these are estimates for the audit log, not bills).
pub fn default_prices() -> BTreeMap<String, Price> {
    [
        ("claude-haiku-4-5", 1.0, 5.0),
        ("claude-sonnet-4-5", 3.0, 15.0),
        ("gpt-4.1-mini", 0.4, 1.6),
        ("gpt-5", 1.25, 10.0),
        ("gemini-2.5-flash", 0.3, 2.5),
        ("gemini-2.5-pro", 1.25, 10.0),
    ]
    .into_iter()
    .map(|(m, i, o)| {
        (
            m.to_owned(),
            Price {
                input_per_mtok: i,
                output_per_mtok: o,
            },
        )
    })
    .collect()
}

/// The configuration in force.
#[derive(Debug, Clone)]
pub struct Config {
    /// A hook whose binary is missing refuses, baked into hooks at install time.
    pub strict: bool,
    /// `enforce` (the default) or `observe`: decide and log, never block or ask.
    pub mode: Mode,
    /// Verify standard-tier operations too.
    pub verify_standard: bool,
    /// Write an audit line for tier-none operations too.
    pub log_all: bool,
    /// Runs when a review request is written (split like a shell).
    pub notify_command: Option<Vec<String>>,
    /// What the classifier needs.
    pub policy: Policy,
    /// What to do without a verdict.
    pub on_unavailable: OnUnavailableTable,
    /// Configured verifier programs by name.
    pub verifiers: BTreeMap<String, VerifierConfig>,
    /// The audit log path, if configured.
    pub log_path: Option<PathBuf>,
    /// Rotate the audit log past this size.
    pub log_max_bytes: u64,
    /// Rotated generations of the audit log kept (`audit.jsonl.1` ..).
    /// An untrusted repository file may raise it, never lower it.
    pub log_keep: u32,
    /// What every run says about the config, one line each: the keys an
    /// untrusted repository file could not set, a file that was ignored.
    pub warnings: Vec<String>,
    /// What could not be used: keys dropped, and files that could not be
    /// read at all ([`ConfigError::is_whole_file`]).
    pub broken: Vec<ConfigError>,
    /// The AI verifier.
    pub ai: AiConfig,
    /// `[providers.NAME]` tables.
    pub providers: BTreeMap<String, ProviderConfig>,
    /// Model prices for the audit log's cost estimate.
    pub prices: BTreeMap<String, Price>,
    /// The pre-commit rules.
    pub commit: CommitRules,
    /// User rules for shell commands (`[[rules]]`), added to the built-in ones.
    pub rules: Vec<rule::RuleSpec>,
    /// `[agent] budget_secs`: how long an agent's command may wait for a verdict.
    pub agent_budget_secs: u64,
    /// `[snapshots] keep`: retention keeps at least this many of the newest
    /// snapshots per repository (issue 28). An untrusted repository file
    /// may raise it, never lower it.
    pub snapshot_keep: u32,
    /// `[snapshots] days`: and every snapshot younger than this many days.
    pub snapshot_days: u32,
}

/// A set of globs. Globs from a config file are checked when read, so that
/// an error names the file. Every glob [`PathGlob`] reads (all the built-in
/// ones) is matched byte by byte; a set holding another is compiled by
/// globset the first time something is matched against it: building
/// globset's regexes for the built-in commit globs was half of the
/// pre-commit hook of a one-file commit.
#[derive(Debug, Clone)]
pub struct Globs {
    /// The globs as written: the built-in ones borrowed, not copied (every
    /// run builds the default config).
    patterns: Vec<Cow<'static, str>>,
    /// Each glob matched byte by byte, when every one can be
    /// ([`PathGlob`]): no regex is ever built. Read on first use, like
    /// `set`: most hook runs match no path at all.
    fast: OnceLock<Option<Vec<PathGlob>>>,
    set: OnceLock<GlobSet>,
}

impl Globs {
    /// Globs already known to be valid (the built-in ones, tested; or
    /// checked by [`compile_globs`]).
    fn valid(patterns: &[String]) -> Self {
        Self::of(patterns.iter().map(|p| Cow::Owned(p.clone())).collect())
    }

    /// The built-in globs (valid: tested).
    fn built_in(patterns: &'static [&'static str]) -> Self {
        Self::of(patterns.iter().map(|p| Cow::Borrowed(*p)).collect())
    }

    fn of(patterns: Vec<Cow<'static, str>>) -> Self {
        Self {
            patterns,
            fast: OnceLock::new(),
            set: OnceLock::new(),
        }
    }

    fn fast(&self) -> Option<&[PathGlob]> {
        self.fast
            .get_or_init(|| self.patterns.iter().map(|p| PathGlob::new(p)).collect())
            .as_deref()
    }

    fn set(&self) -> &GlobSet {
        self.set.get_or_init(|| {
            let mut builder = GlobSetBuilder::new();
            for p in &self.patterns {
                builder.add(glob(p).expect("globs are checked before they are kept"));
            }
            builder.build().unwrap_or_else(|_| GlobSet::empty())
        })
    }

    /// True when a glob matches `path`.
    pub fn is_match(&self, path: impl AsRef<Path>) -> bool {
        match (self.fast(), path.as_ref().to_str()) {
            (Some(fast), Some(text)) => {
                let parts = segments(text);
                fast.iter().any(|g| g.matches_segments(&parts))
            }
            _ => self.set().is_match(path),
        }
    }

    /// The globs as written.
    pub fn patterns(&self) -> Vec<String> {
        self.patterns
            .iter()
            .map(|p| p.clone().into_owned())
            .collect()
    }

    /// The indexes of the globs that match `path`.
    pub fn matches(&self, path: impl AsRef<Path>) -> Vec<usize> {
        match (self.fast(), path.as_ref().to_str()) {
            (Some(fast), Some(text)) => {
                let parts = segments(text);
                (0..fast.len())
                    .filter(|&i| fast[i].matches_segments(&parts))
                    .collect()
            }
            _ => self.set().matches(path),
        }
    }
}

fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern).literal_separator(true).build()
}

/// Checks globs from a config file now (parsed, no regex built); an error
/// gives the index of the bad one.
fn compile_globs(patterns: &[String]) -> Result<Globs, (usize, String)> {
    for (i, p) in patterns.iter().enumerate() {
        glob(p).map_err(|e| (i, e.kind().to_string()))?;
    }
    Ok(Globs::valid(patterns))
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            protected: Globs::built_in(DEFAULT_PROTECTED),
            protected_patterns: strings(DEFAULT_PROTECTED),
            remote_head: true,
            release_tags: Globs::built_in(DEFAULT_RELEASE_TAGS),
            release_tag_patterns: strings(DEFAULT_RELEASE_TAGS),
            mass_ref_changes: DEFAULT_MASS_REF_CHANGES,
            tiers: TierTable::default(),
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            strict: false,
            mode: Mode::Enforce,
            verify_standard: false,
            log_all: false,
            notify_command: None,
            policy: Policy::default(),
            on_unavailable: OnUnavailableTable {
                critical: OnUnavailable::Ask,
                high: OnUnavailable::Allow,
                standard: OnUnavailable::Allow,
            },
            verifiers: BTreeMap::new(),
            log_path: None,
            log_max_bytes: DEFAULT_LOG_MAX_BYTES,
            log_keep: DEFAULT_LOG_KEEP,
            warnings: Vec::new(),
            broken: Vec::new(),
            ai: AiConfig::default(),
            providers: BTreeMap::new(),
            prices: default_prices(),
            commit: CommitRules::default(),
            rules: Vec::new(),
            agent_budget_secs: DEFAULT_AGENT_BUDGET_SECS,
            snapshot_keep: DEFAULT_SNAPSHOT_KEEP,
            snapshot_days: DEFAULT_SNAPSHOT_DAYS,
        }
    }
}

/// The newest snapshots retention keeps, by default (issue 28).
pub const DEFAULT_SNAPSHOT_KEEP: u32 = 100;

/// Snapshots younger than this many days are kept, by default.
pub const DEFAULT_SNAPSHOT_DAYS: u32 = 14;

/// How long an agent's command may wait for a verdict, by default: below
/// the 30 s hook timeout vouch writes into the agents' settings.
pub const DEFAULT_AGENT_BUDGET_SECS: u64 = 20;

// ----------------------------------------------------------------------------
// The file format. Every table denies unknown keys.

mod error;
mod layer;
pub mod provider;
mod raw;
pub mod rule;
mod template;
#[cfg(test)]
mod tests;

pub use error::{ConfigError, ConfigFile, ConfigInputs, Source};
pub use layer::split_command;
pub use template::template;
