//! The config files as written: serde types that mirror the TOML, and the
//! parser that names the file, line and key of every error.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use super::{ConfigError, ConfigFile, Mode, OnUnavailable, Price};
use crate::vocab::Tier;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    pub(super) strict: Option<bool>,
    pub(super) mode: Option<Mode>,
    pub(super) verify_standard: Option<bool>,
    pub(super) log_all: Option<bool>,
    pub(super) notify_command: Option<String>,
    pub(super) protected: Option<RawProtected>,
    pub(super) thresholds: Option<RawThresholds>,
    pub(super) tiers: Option<RawTiers>,
    pub(super) on_unavailable: Option<RawOnUnavailable>,
    pub(super) verifiers: Option<BTreeMap<String, RawVerifier>>,
    pub(super) log: Option<RawLog>,
    pub(super) ai: Option<RawAi>,
    pub(super) providers: Option<BTreeMap<String, RawProvider>>,
    pub(super) prices: Option<BTreeMap<String, Price>>,
    pub(super) commit: Option<RawCommit>,
    pub(super) rules: Option<Vec<crate::shell::RuleSpec>>,
    pub(super) agent: Option<RawAgent>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAgent {
    pub(super) budget_secs: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCommit {
    pub(super) migrations: Option<Vec<String>>,
    pub(super) migration_exceptions: Option<Vec<String>>,
    pub(super) generated: Option<Vec<String>>,
    pub(super) credentials: Option<Vec<String>>,
    pub(super) credential_exceptions: Option<Vec<String>>,
    pub(super) ci: Option<Vec<String>>,
    pub(super) infrastructure: Option<Vec<String>>,
    pub(super) manifests: Option<Vec<String>>,
    pub(super) bulk_deleted_files: Option<usize>,
    pub(super) bulk_deleted_lines: Option<usize>,
    pub(super) large_files: Option<usize>,
    pub(super) large_lines: Option<usize>,
    pub(super) tiers: Option<RawCommitTiers>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCommitTiers {
    pub(super) destructive_sql: Option<Tier>,
    pub(super) credential_file: Option<Tier>,
    pub(super) bulk_deletion: Option<Tier>,
    pub(super) ci_config: Option<Tier>,
    pub(super) infrastructure: Option<Tier>,
    pub(super) dependency_major_bump: Option<Tier>,
    pub(super) large_change: Option<Tier>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAi {
    pub(super) enabled: Option<bool>,
    pub(super) order: Option<Vec<String>>,
    pub(super) timeout_secs: Option<u64>,
    pub(super) connect_timeout_secs: Option<u64>,
    pub(super) cache_secs: Option<u64>,
    pub(super) max_output_tokens: Option<u32>,
    pub(super) temperature: Option<f32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawProvider {
    pub(super) kind: Option<crate::provider::Kind>,
    pub(super) family: Option<String>,
    pub(super) model: Option<String>,
    pub(super) strong_model: Option<String>,
    pub(super) base_url: Option<String>,
    pub(super) api_key_env: Option<String>,
    pub(super) api_key: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawProtected {
    pub(super) branches: Option<Vec<String>>,
    pub(super) remote_head: Option<bool>,
    pub(super) release_tags: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawThresholds {
    pub(super) mass_ref_changes: Option<usize>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTiers {
    pub(super) force_push_protected: Option<Tier>,
    pub(super) force_push_unseen: Option<Tier>,
    pub(super) force_push: Option<Tier>,
    pub(super) delete_protected: Option<Tier>,
    pub(super) delete_branch: Option<Tier>,
    pub(super) tag_move: Option<Tier>,
    pub(super) release_tag_move: Option<Tier>,
    pub(super) mass_ref_changes: Option<Tier>,
    pub(super) push_protected: Option<Tier>,
    pub(super) local_rewind: Option<Tier>,
    pub(super) local_rewind_reachable: Option<Tier>,
    pub(super) local_rewrite: Option<Tier>,
    pub(super) local_delete: Option<Tier>,
    pub(super) local_tag: Option<Tier>,
    pub(super) stash_drop: Option<Tier>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOnUnavailable {
    pub(super) critical: Option<OnUnavailable>,
    pub(super) high: Option<OnUnavailable>,
    pub(super) standard: Option<OnUnavailable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawVerifier {
    pub(super) command: Option<String>,
    pub(super) blocking: Option<bool>,
    pub(super) timeout_secs: Option<u64>,
    pub(super) tiers: Option<Vec<Tier>>,
    pub(super) enabled: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLog {
    pub(super) path: Option<PathBuf>,
    pub(super) max_bytes: Option<u64>,
    pub(super) keep: Option<u32>,
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The key written on a line (`key = value`), if any.
pub(super) fn key_on_line(text: &str, line: usize) -> Option<String> {
    let l = text.lines().nth(line.checked_sub(1)?)?;
    let (key, _) = l.split_once('=')?;
    let key = key.trim().trim_matches('"');
    (!key.is_empty() && !key.starts_with('[')).then(|| key.to_owned())
}

/// Finds the line where `key` is set inside `[table]` (`table` may be dotted).
pub(super) fn locate(text: &str, table: &str, key: &str) -> usize {
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

pub(super) fn parse_raw(file: &ConfigFile) -> Result<RawConfig, ConfigError> {
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
