//! Configuration: types, parsing, precedence, validation and the trust rule
//! (SPEC section 3.2).
//!
//! PURE: this module parses text it is handed. Reading the files and the
//! trust store is `context.rs`'s job.
//!
//! Precedence, highest first: flags > `VOUCH_*` environment > the
//! repository's `.vouch.toml` > the user's `config.toml` > defaults. A
//! repository file is untrusted: it may set policy but not programs to run
//! (`[verifiers]`, `notify_command`) or where files are written (`[log]`),
//! unless `vouch trust` was run for its exact content.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::classify::Tier;
use crate::env::{Env, vars};

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

/// What to do when no verdict can be had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
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
    /// Settings that were ignored, and why (untrusted repository keys).
    pub warnings: Vec<String>,
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
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
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

fn tier_layer(into: &mut TierTable, raw: RawTiers) {
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
        (&mut into.force_push_protected, force_push_protected),
        (&mut into.force_push_unseen, force_push_unseen),
        (&mut into.force_push, force_push),
        (&mut into.delete_protected, delete_protected),
        (&mut into.delete_branch, delete_branch),
        (&mut into.tag_move, tag_move),
        (&mut into.release_tag_move, release_tag_move),
        (&mut into.mass_ref_changes, mass_ref_changes),
        (&mut into.push_protected, push_protected),
        (&mut into.local_rewind, local_rewind),
        (&mut into.local_rewind_reachable, local_rewind_reachable),
        (&mut into.local_rewrite, local_rewrite),
        (&mut into.local_delete, local_delete),
        (&mut into.local_tag, local_tag),
        (&mut into.stash_drop, stash_drop),
    ];
    for (slot, value) in pairs {
        if let Some(v) = value {
            *slot = v;
        }
    }
}

impl Config {
    /// Builds the config in force from the files and the environment.
    pub fn resolve(inputs: &ConfigInputs, env: &dyn Env) -> Result<Self, ConfigError> {
        let mut config = Self::default();
        if let Some(file) = &inputs.user {
            let raw = parse_raw(file)?;
            config.layer(raw, file, true, true)?;
        }
        if let Some((file, trusted)) = &inputs.repo {
            let raw = parse_raw(file)?;
            config.layer(raw, file, *trusted, false)?;
        }
        if env.flag(vars::VOUCH_VERIFY) {
            config.verify_standard = true;
        }
        if env.flag(vars::VOUCH_STRICT) {
            config.strict = true;
        }
        if let Some(path) = env.var_os(vars::VOUCH_LOG).filter(|p| !p.is_empty()) {
            config.log_path = Some(PathBuf::from(path));
        }
        Ok(config)
    }

    /// Applies one file over what is there. `may_run` is false for an
    /// untrusted repository file: its program and path settings are dropped
    /// with a warning.
    fn layer(
        &mut self,
        raw: RawConfig,
        file: &ConfigFile,
        may_run: bool,
        user_file: bool,
    ) -> Result<(), ConfigError> {
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
        let untrusted = |what: &str| {
            format!(
                "ignored {what} in `{}`: a repository config may set programs and paths only after `vouch trust` (run it in this repository after reading the file)",
                file.path.display()
            )
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
            // Rules only raise a command's tier, so a repository may add them.
            crate::shell::Rules::with_user(&rules)
                .map_err(|e| invalid("rules", "pattern", e.to_string()))?;
            self.rules.extend(rules);
        }
        if let Some(budget) = agent.and_then(|a| a.budget_secs) {
            if budget == 0 {
                return Err(invalid(
                    "agent",
                    "budget_secs",
                    "must be at least 1 (seconds an agent's command may wait for a verdict)".into(),
                ));
            }
            self.agent_budget_secs = budget;
        }
        if let Some(v) = strict {
            self.strict = v;
        }
        if let Some(v) = mode {
            self.mode = v;
        }
        if let Some(v) = verify_standard {
            self.verify_standard = v;
        }
        if let Some(v) = log_all {
            self.log_all = v;
        }
        if let Some(cmd) = notify_command {
            if may_run {
                let words = split_command(&cmd).map_err(|m| invalid("", "notify_command", m))?;
                self.notify_command = Some(words);
            } else {
                self.warnings.push(untrusted("`notify_command`"));
            }
        }
        if let Some(p) = protected {
            if let Some(branches) = p.branches {
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
            if let Some(v) = p.remote_head {
                self.policy.remote_head = v;
            }
            if let Some(tags) = p.release_tags {
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
        if let Some(t) = thresholds.and_then(|t| t.mass_ref_changes) {
            self.policy.mass_ref_changes = t;
        }
        if let Some(t) = tiers {
            tier_layer(&mut self.policy.tiers, t);
        }
        if let Some(o) = on_unavailable {
            if let Some(v) = o.critical {
                self.on_unavailable.critical = v;
            }
            if let Some(v) = o.high {
                self.on_unavailable.high = v;
            }
            if let Some(v) = o.standard {
                self.on_unavailable.standard = v;
            }
        }
        if let Some(verifiers) = verifiers {
            if may_run {
                for (name, v) in verifiers {
                    let table = format!("verifiers.{name}");
                    if !valid_verifier_name(&name) {
                        return Err(invalid(
                            "",
                            &table,
                            format!(
                                "verifier name `{name}` may hold only letters, digits, `-` and `_`"
                            ),
                        ));
                    }
                    let command = match v.command {
                        Some(c) => {
                            Some(split_command(&c).map_err(|m| invalid(&table, "command", m))?)
                        }
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
                            "tier `none` is never verified; accepted: `critical`, `high`, `standard`".into(),
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
            } else {
                self.warnings.push(untrusted("`[verifiers]`"));
            }
        }
        if let Some(ai) = ai {
            self.layer_ai(ai)
                .map_err(|(key, m)| invalid("ai", key, m))?;
        }
        if let Some(providers) = providers {
            if may_run {
                for (name, p) in providers {
                    if p.api_key.is_some() && !user_file {
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
            } else {
                self.warnings.push(untrusted("`[providers]`"));
            }
        }
        if let Some(prices) = prices {
            self.prices.extend(prices);
        }
        if let Some(c) = commit {
            self.layer_commit(c)
                .map_err(|(key, m)| invalid("commit", key, m))?;
        }
        if let Some(log) = log {
            if let Some(path) = log.path {
                if may_run {
                    self.log_path = Some(path);
                } else {
                    self.warnings.push(untrusted("`log.path`"));
                }
            }
            if let Some(max) = log.max_bytes {
                if max < 4096 {
                    return Err(invalid(
                        "log",
                        "max_bytes",
                        "must be at least 4096 (bytes)".into(),
                    ));
                }
                self.log_max_bytes = max;
            }
            if let Some(keep) = log.keep {
                if keep == 0 {
                    return Err(invalid(
                        "log",
                        "keep",
                        "must be at least 1 (rotated generations kept)".into(),
                    ));
                }
                if may_run || keep >= self.log_keep {
                    self.log_keep = keep;
                } else {
                    self.warnings.push(format!(
                        "ignored `log.keep = {keep}` in `{}`: an untrusted repository config may keep more audit log generations, never fewer (`vouch trust` after reading the file)",
                        file.path.display()
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Config {
    fn layer_commit(&mut self, raw: RawCommit) -> Result<(), (&'static str, String)> {
        let rules = &mut self.commit;
        let globs = [
            ("migrations", raw.migrations, &mut rules.migrations),
            (
                "migration_exceptions",
                raw.migration_exceptions,
                &mut rules.migration_exceptions,
            ),
            ("generated", raw.generated, &mut rules.generated),
            ("credentials", raw.credentials, &mut rules.credentials),
            (
                "credential_exceptions",
                raw.credential_exceptions,
                &mut rules.credential_exceptions,
            ),
            ("ci", raw.ci, &mut rules.ci),
            (
                "infrastructure",
                raw.infrastructure,
                &mut rules.infrastructure,
            ),
            ("manifests", raw.manifests, &mut rules.manifests),
        ];
        for (key, patterns, slot) in globs {
            if let Some(p) = patterns {
                *slot = compile_globs(&p).map_err(|(i, m)| {
                    (
                        key,
                        format!("bad glob `{}`: {m}", p.get(i).map_or("", String::as_str)),
                    )
                })?;
            }
        }
        for (value, slot) in [
            (raw.bulk_deleted_files, &mut rules.bulk_deleted_files),
            (raw.bulk_deleted_lines, &mut rules.bulk_deleted_lines),
            (raw.large_files, &mut rules.large_files),
            (raw.large_lines, &mut rules.large_lines),
        ] {
            if let Some(v) = value {
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
                if let Some(v) = value {
                    rules.tiers.insert(name, v);
                }
            }
        }
        Ok(())
    }

    fn layer_ai(&mut self, raw: RawAi) -> Result<(), (&'static str, String)> {
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
        if let Some(v) = enabled {
            ai.enabled = v;
        }
        if let Some(v) = order {
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
            if let Some(v) = value {
                if v == 0 {
                    return Err((key, "must be at least 1 (seconds)".into()));
                }
                *slot = v;
            }
        }
        if let Some(v) = cache_secs {
            ai.cache_secs = v;
        }
        if let Some(v) = max_output_tokens {
            if v < 64 {
                return Err((
                    "max_output_tokens",
                    "must be at least 64; reasoning models need 1024 or more".into(),
                ));
            }
            ai.max_output_tokens = v;
        }
        if let Some(t) = temperature {
            if !(0.0..=2.0).contains(&t) {
                return Err(("temperature", "must be between 0 and 2".into()));
            }
            ai.temperature = Some(t);
        }
        Ok(())
    }
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
        Config::resolve(inputs, &MapEnv::default())
            .unwrap_err()
            .to_string()
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
    fn repo_overrides_user_policy() {
        let mut inputs =
            user("[tiers]\nforce_push = \"critical\"\n[protected]\nbranches = [\"main\"]\n");
        inputs.repo = repo("[protected]\nbranches = [\"prod\"]\n", false).repo;
        let c = Config::resolve(&inputs, &MapEnv::default()).unwrap();
        assert_eq!(c.policy.tiers.force_push, Tier::Critical);
        assert!(c.policy.protected.is_match("prod"));
        assert!(!c.policy.protected.is_match("main"));
    }

    #[test]
    fn log_keep_defaults_to_ten_and_an_untrusted_file_may_only_raise_it() {
        let c = Config::resolve(&ConfigInputs::default(), &MapEnv::default()).unwrap();
        assert_eq!(c.log_keep, DEFAULT_LOG_KEEP);
        let c = Config::resolve(&user("[log]\nkeep = 3\n"), &MapEnv::default()).unwrap();
        assert_eq!(c.log_keep, 3);
        let c = Config::resolve(&repo("[log]\nkeep = 2\n", false), &MapEnv::default()).unwrap();
        assert_eq!(c.log_keep, DEFAULT_LOG_KEEP);
        assert!(c.warnings[0].contains("log.keep"), "{:?}", c.warnings);
        let c = Config::resolve(&repo("[log]\nkeep = 50\n", false), &MapEnv::default()).unwrap();
        assert_eq!(c.log_keep, 50);
        let c = Config::resolve(&repo("[log]\nkeep = 2\n", true), &MapEnv::default()).unwrap();
        assert_eq!(c.log_keep, 2);
        assert!(err(&user("[log]\nkeep = 0\n")).contains("log.keep"));
    }

    #[test]
    fn untrusted_repo_file_cannot_set_programs_or_paths() {
        let text = "notify_command = \"curl evil\"\n[verifiers.x]\ncommand = \"sh -c evil\"\n[log]\npath = \"/tmp/x\"\n";
        let c = Config::resolve(&repo(text, false), &MapEnv::default()).unwrap();
        assert!(c.verifiers.is_empty());
        assert!(c.notify_command.is_none());
        assert!(c.log_path.is_none());
        assert_eq!(c.warnings.len(), 3);
        assert!(c.warnings[0].contains("vouch trust"));
        let c = Config::resolve(&repo(text, true), &MapEnv::default()).unwrap();
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
        )
        .unwrap();
        assert!(c.verify_standard);
        assert_eq!(c.log_path.unwrap(), PathBuf::from("/x/log.jsonl"));
    }

    #[test]
    fn providers_and_keys_follow_the_trust_rule() {
        let text = "[providers.anthropic]\nbase_url = \"http://evil\"\n";
        let c = Config::resolve(&repo(text, false), &MapEnv::default()).unwrap();
        assert!(
            c.providers.is_empty(),
            "an untrusted repository cannot point vouch elsewhere"
        );
        let c = Config::resolve(&repo(text, true), &MapEnv::default()).unwrap();
        assert_eq!(
            c.providers["anthropic"].base_url.as_deref(),
            Some("http://evil")
        );
        let with_key = "[providers.openai]\napi_key = \"sk-123\"\n";
        let e = err(&repo(with_key, true));
        assert!(e.contains("never from a repository file"), "{e}");
        let c = Config::resolve(&user(with_key), &MapEnv::default()).unwrap();
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
        let c = Config::resolve(&inputs, &MapEnv::default()).unwrap();
        let v = &c.verifiers["tests"];
        assert_eq!(v.command.as_deref().unwrap(), ["make", "test"]);
        assert!(!v.blocking);
    }
}
