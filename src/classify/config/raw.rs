//! The config files as written: serde types that mirror the TOML, and the
//! parser that names the file, line and key of every error.

use std::collections::BTreeMap;
use std::path::PathBuf;

use std::ops::Range;

use serde::Deserialize;
use toml::de::{DeArray, DeTable, DeValue};

use super::{ConfigError, ConfigFile, Mode, OnUnavailable, Price};
use crate::classify::vocab::Tier;

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
    pub(super) rules: Option<Vec<super::rule::RuleSpec>>,
    pub(super) agent: Option<RawAgent>,
    pub(super) snapshots: Option<RawSnapshots>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSnapshots {
    pub(super) keep: Option<u32>,
    pub(super) days: Option<u32>,
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
    pub(super) kind: Option<super::provider::Kind>,
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

/// Parses a file key by key (SPEC 3.2): text that is not TOML at all is
/// one error for the whole file; a key the format does not know, or a
/// value of the wrong type, is dropped and named with its line, and the
/// rest of the file is read. In an array of tables (`[[rules]]`) the one
/// entry holding the error is dropped.
pub(super) fn parse_raw(file: &ConfigFile) -> Result<(RawConfig, Vec<ConfigError>), ConfigError> {
    let mut root = DeTable::parse(&file.text).map_err(|e| ConfigError::Unparsable {
        path: file.path.clone(),
        line: e.span().map_or(1, |s| line_of(&file.text, s.start)),
        message: e.message().trim().to_owned(),
    })?;
    let mut dropped = Vec::new();
    // The entries of arrays of tables dropped so far, by their place in
    // the file: later entries are named by theirs too.
    let mut gone: Vec<(String, usize)> = Vec::new();
    loop {
        let e = match RawConfig::deserialize(toml::de::Deserializer::from(root.clone())) {
            Ok(raw) => return Ok((raw, dropped)),
            Err(e) => e,
        };
        let line = e.span().map_or(1, |s| line_of(&file.text, s.start));
        let message = accepted(e.message());
        // Each round drops one entry, so this ends.
        let Some(key) = e
            .span()
            .and_then(|s| drop_at(root.get_mut(), &s, &mut gone))
        else {
            // An error no key holds: the file as a whole is not a config.
            return Err(ConfigError::Unparsable {
                path: file.path.clone(),
                line,
                message,
            });
        };
        dropped.push(ConfigError::Invalid {
            path: file.path.clone(),
            line,
            key: Some(key),
            message,
        });
    }
}

/// serde's wording, in the config's terms.
fn accepted(message: &str) -> String {
    let mut message = message.trim().to_owned();
    if message.starts_with("unknown field") {
        message = message.replacen("unknown field", "unknown key", 1);
        message = message.replace(", expected one of", "; accepted keys:");
        message = message.replace(", expected", "; accepted:");
    }
    if message.contains("unknown variant") {
        message = message.replace(", expected one of", "; accepted values:");
    }
    message
}

fn holds(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// Removes the innermost entry of `table` whose key or value holds `span`
/// (an element of an array of tables, whole), and returns its dotted name;
/// `gone` holds the elements already removed, by their place in the file.
fn drop_at(
    table: &mut DeTable<'_>,
    span: &Range<usize>,
    gone: &mut Vec<(String, usize)>,
) -> Option<String> {
    let (mut path, element) = find(table, span)?;
    let last = path.pop()?;
    let mut at = table;
    for name in &path {
        match at.get_mut(name.as_str())?.get_mut() {
            DeValue::Table(t) => at = t,
            _ => return None,
        }
    }
    path.push(last);
    let name = path.join(".");
    let Some(i) = element else {
        at.remove(path.last()?.as_str())?;
        return Some(name);
    };
    let DeValue::Array(items) = at.get_mut(path.last()?.as_str())?.get_mut() else {
        return None;
    };
    let mut kept = DeArray::new();
    for (j, item) in items.iter().enumerate() {
        if j != i {
            kept.push(item.clone());
        }
    }
    *items = kept;
    // Named by its place in the file, counting the ones dropped before.
    let mut earlier: Vec<usize> = gone
        .iter()
        .filter(|(p, _)| *p == name)
        .map(|(_, j)| *j)
        .collect();
    earlier.sort_unstable();
    let place = earlier
        .into_iter()
        .fold(i, |place, j| if j <= place { place + 1 } else { place });
    gone.push((name.clone(), place));
    Some(format!("{name}[{place}]"))
}

/// The keys leading to the innermost entry holding `span`, and the index
/// when it is an element of an array of tables.
fn find(table: &DeTable<'_>, span: &Range<usize>) -> Option<(Vec<String>, Option<usize>)> {
    for (key, value) in table {
        let name = key.get_ref().to_string();
        match value.get_ref() {
            DeValue::Table(inner) => {
                if let Some((mut deeper, element)) = find(inner, span) {
                    deeper.insert(0, name);
                    return Some((deeper, element));
                }
            }
            DeValue::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let DeValue::Table(inner) = item.get_ref()
                        && (holds(&item.span(), span) || find(inner, span).is_some())
                    {
                        return Some((vec![name], Some(i)));
                    }
                }
            }
            _ => {}
        }
        if holds(&key.span(), span) || holds(&value.span(), span) {
            return Some((vec![name], None));
        }
    }
    None
}
