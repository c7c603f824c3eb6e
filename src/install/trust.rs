//! The trust store: which repositories' `.vouch.toml` may set programs and
//! paths, and whose `.vouch/verifiers/` may run. Keyed by the repository
//! path and a SHA-256 over the config file and every verifier program, so an
//! edited or added file must be trusted again (as direnv does).

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The name of the repository's team policy file.
pub const REPO_CONFIG: &str = ".vouch.toml";

#[derive(Debug, Default, Serialize, Deserialize)]
struct Store {
    /// Canonical repository path to the trusted content hash.
    repos: BTreeMap<String, String>,
}

fn store_path(data_dir: &Path) -> PathBuf {
    data_dir.join("trust.json")
}

fn key(repo_root: &Path) -> String {
    fs::canonicalize(repo_root)
        .unwrap_or_else(|_| repo_root.to_path_buf())
        .display()
        .to_string()
}

/// The repository's verifier programs directory.
pub fn verifiers_dir(repo_root: &Path) -> PathBuf {
    repo_root.join(".vouch").join("verifiers")
}

/// A SHA-256, in hex, over `.vouch.toml` and every file in `.vouch/verifiers/`.
pub fn fingerprint(repo_root: &Path) -> String {
    let mut h = Sha256::new();
    let config = fs::read(repo_root.join(REPO_CONFIG)).unwrap_or_default();
    h.update(b".vouch.toml\0");
    h.update(&config);
    h.update(b"\0");
    if let Ok(entries) = fs::read_dir(verifiers_dir(repo_root)) {
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            h.update(path.file_name().unwrap_or_default().as_encoded_bytes());
            h.update(b"\0");
            h.update(fs::read(&path).unwrap_or_default());
            h.update(b"\0");
        }
    }
    crate::input::text::hex(&h.finalize())
}

fn read(data_dir: &Path) -> Store {
    fs::read_to_string(store_path(data_dir))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// True when `git vouch trust` was run for this repository and its files are
/// unchanged since.
pub fn is_trusted(data_dir: &Path, repo_root: &Path) -> bool {
    read(data_dir)
        .repos
        .get(&key(repo_root))
        .is_some_and(|h| *h == fingerprint(repo_root))
}

/// Trusts the repository's current files (`trust = true`) or revokes trust.
pub fn set(data_dir: &Path, repo_root: &Path, trust: bool) -> Result<()> {
    store(data_dir, repo_root, trust.then(|| fingerprint(repo_root)))
}

/// Trusts the files as they were when the person read them (`seen`, their
/// [`fingerprint`] then): an edit made meanwhile is not trusted, and that is
/// an error saying so.
pub fn set_as_seen(data_dir: &Path, repo_root: &Path, seen: String) -> Result<()> {
    let changed = fingerprint(repo_root) != seen;
    store(data_dir, repo_root, Some(seen))?;
    if changed {
        anyhow::bail!(
            "the files changed while you read them, so what is there now is not trusted: run `git vouch trust` again"
        );
    }
    Ok(())
}

fn store(data_dir: &Path, repo_root: &Path, fingerprint: Option<String>) -> Result<()> {
    fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create `{}`", data_dir.display()))?;
    let lock_path = data_dir.join("trust.json.lock");
    let lock = File::create(&lock_path)
        .with_context(|| format!("cannot open `{}`", lock_path.display()))?;
    lock.lock()
        .with_context(|| format!("cannot lock `{}`", lock_path.display()))?;
    let mut store = read(data_dir);
    match fingerprint {
        Some(hash) => store.repos.insert(key(repo_root), hash),
        None => store.repos.remove(&key(repo_root)),
    };
    let path = store_path(data_dir);
    crate::platform::files::write_atomic(
        &path,
        serde_json::to_string_pretty(&store)?.as_bytes(),
        0o600,
    )
    .with_context(|| format!("cannot write `{}`", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An edit made while the person reads the file is not trusted.
    #[test]
    fn what_is_trusted_is_what_was_read() {
        let data = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let file = repo.path().join(REPO_CONFIG);
        fs::write(&file, "mode = \"enforce\"\n").unwrap();
        let seen = fingerprint(repo.path());
        set_as_seen(data.path(), repo.path(), seen).unwrap();
        assert!(is_trusted(data.path(), repo.path()));
        let seen = fingerprint(repo.path());
        fs::write(&file, "mode = \"observe\"\n").unwrap();
        let err = set_as_seen(data.path(), repo.path(), seen).unwrap_err();
        assert!(err.to_string().contains("changed while you read"), "{err}");
        assert!(!is_trusted(data.path(), repo.path()));
    }
}
