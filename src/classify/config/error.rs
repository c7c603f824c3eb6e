//! Config errors and the inputs of the layering: which files, from where.

use std::path::{Path, PathBuf};

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
    /// The file is not TOML at all (or not a table of settings).
    #[error("config `{path}` cannot be parsed, line {line}: {message}")]
    Unparsable {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What the parser says.
        message: String,
    },
    /// A key or value is not valid, with where and what is accepted.
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
            Self::Unreadable { path, .. }
            | Self::Unparsable { path, .. }
            | Self::Invalid { path, .. } => path,
        }
    }

    /// True when nothing of the file could be read: vouch does not know
    /// the policy written there.
    pub fn is_whole_file(&self) -> bool {
        matches!(self, Self::Unreadable { .. } | Self::Unparsable { .. })
    }
}

/// Who wrote a config file, which decides what it may set (SPEC 3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The user's own config: anything.
    User,
    /// A repository file the user trusted with `git vouch trust`: anything but API keys.
    TrustedRepo,
    /// A repository file not trusted: only what makes the guard stricter.
    UntrustedRepo,
}

/// The inputs of [`Config::resolve`](super::Config::resolve).
#[derive(Debug, Clone, Default)]
pub struct ConfigInputs {
    /// The user's config file, if it exists.
    pub user: Option<ConfigFile>,
    /// The repository's `.vouch.toml`, if it exists, and whether it is trusted.
    pub repo: Option<(ConfigFile, bool)>,
}
