//! The AI verifier's memory between runs: the circuit breaker and the
//! verdict cache, small JSON files in the state dir.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::BREAKER;
use crate::verify::verdict::Verdict;

/// Reads a JSON state file (missing or broken: empty).
pub(super) fn read_state<T: for<'de> Deserialize<'de> + Default>(path: &Path) -> T {
    fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// Writes a JSON state file (best effort: a cache or a breaker).
pub(super) fn write_state<T: Serialize>(path: &Path, value: &T) {
    if let Ok(text) = serde_json::to_string(value) {
        crate::platform::files::write_atomic(path, text.as_bytes(), 0o600).ok();
    }
}

/// When each provider last failed (unix seconds).
pub(super) type Breaker = BTreeMap<String, i64>;

/// Providers that failed within the breaker's window, with the seconds since.
pub fn recent_failures(state_dir: &Path) -> BTreeMap<String, i64> {
    let now = Timestamp::now().as_second();
    let window = i64::try_from(BREAKER.as_secs()).unwrap_or(i64::MAX);
    read_state::<Breaker>(&state_dir.join("ai-breaker.json"))
        .into_iter()
        .map(|(name, at)| (name, now - at))
        .filter(|(_, ago)| *ago < window)
        .collect()
}

/// A cached verdict.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cached {
    pub(super) at: i64,
    pub(super) provider: String,
    pub(super) model: String,
    pub(super) verdict: Verdict,
}
