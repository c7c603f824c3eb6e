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

/// What the fingerprint takes of the file at `path`: its bytes, read
/// without waiting. A named pipe or a device is never read: it stands as a
/// mark no file holds, so putting one in place of a trusted file ends the
/// trust.
fn fingerprinted(path: &Path) -> Vec<u8> {
    match crate::platform::files::read_no_wait(path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) if !path.is_dir() => b"\0not a regular file\0".to_vec(),
        _ => Vec::new(),
    }
}

/// A SHA-256, in hex, over `.vouch.toml` and every file in `.vouch/verifiers/`.
pub fn fingerprint(repo_root: &Path) -> String {
    let mut h = Sha256::new();
    let config = fingerprinted(&repo_root.join(REPO_CONFIG));
    h.update(b".vouch.toml\0");
    h.update(&config);
    h.update(b"\0");
    if let Ok(entries) = fs::read_dir(verifiers_dir(repo_root)) {
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            h.update(path.file_name().unwrap_or_default().as_encoded_bytes());
            h.update(b"\0");
            h.update(fingerprinted(&path));
            h.update(b"\0");
        }
    }
    crate::input::text::hex(&h.finalize())
}

/// The store; empty (nothing trusted) when it cannot be read, or is not a
/// regular file (a named pipe is never waited on).
fn read(data_dir: &Path) -> Store {
    crate::platform::files::read_no_wait(&store_path(data_dir))
        .ok()
        .flatten()
        .and_then(|t| serde_json::from_slice(&t).ok())
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

    /// A named pipe in place of a trusted file, or of the store, is never
    /// waited on, and ends the trust.
    #[test]
    fn a_named_pipe_is_not_waited_on_and_not_trusted() {
        let mkfifo = |path: &Path| {
            let made = std::process::Command::new("mkfifo")
                .arg(path)
                .status()
                .unwrap();
            assert!(made.success());
        };
        let data = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        fs::write(repo.path().join(REPO_CONFIG), "mode = \"enforce\"\n").unwrap();
        let verifiers = verifiers_dir(repo.path());
        fs::create_dir_all(&verifiers).unwrap();
        fs::write(verifiers.join("v"), "#!/bin/sh\n").unwrap();
        set(data.path(), repo.path(), true).unwrap();
        assert!(is_trusted(data.path(), repo.path()));
        fs::remove_file(verifiers.join("v")).unwrap();
        mkfifo(&verifiers.join("v"));
        assert!(!is_trusted(data.path(), repo.path()));
        fs::remove_file(verifiers.join("v")).unwrap();
        fs::write(verifiers.join("v"), "#!/bin/sh\n").unwrap();
        assert!(is_trusted(data.path(), repo.path()));
        fs::remove_file(store_path(data.path())).unwrap();
        mkfifo(&store_path(data.path()));
        assert!(!is_trusted(data.path(), repo.path()));
    }
}
