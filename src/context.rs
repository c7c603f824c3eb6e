//! What every command needs from the outside: the environment, the working
//! directory, vouch's own directories, and the config files read from disk.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::config::{Config, ConfigError, ConfigFile, ConfigInputs, Source};
use crate::env::{Env, vars};
use crate::prompt::Prompter;
use crate::trust;
use jiff::Timestamp;

pub use crate::trust::REPO_CONFIG;

/// Opens the person's terminal, when there is one to ask.
pub type OpenTerminal = Box<dyn Fn(&dyn Env) -> Option<Box<dyn Prompter>> + Send + Sync>;

/// The outside world, as commands see it.
pub struct Ctx {
    /// Environment variables.
    pub env: Box<dyn Env>,
    /// The directory vouch was started in.
    pub cwd: PathBuf,
    /// Standard input, when it was read before the command line was parsed
    /// (the fast path of a linked reference-transaction hook).
    pub stdin: Option<Vec<u8>>,
    /// What time it is (in-process tests pin it).
    pub clock: Box<dyn Fn() -> Timestamp + Send + Sync>,
    /// The person's terminal, when vouch may ask (in-process tests script
    /// it); `None` when nobody is there.
    pub terminal: OpenTerminal,
    /// vouch's directories when they are fixed (in-process tests); else the
    /// platform's.
    pub fixed_dirs: Option<Dirs>,
}

/// vouch's own directories.
#[derive(Debug, Clone)]
pub struct Dirs {
    /// User config (`config.toml`, `verifiers/`).
    pub config: PathBuf,
    /// Data (`trust.json`).
    pub data: PathBuf,
    /// State (`audit.jsonl`, `reviews/`, `approvals/`).
    pub state: PathBuf,
}

impl Ctx {
    /// The real world: the system clock, `/dev/tty`, the platform's
    /// directories.
    pub fn new(env: Box<dyn Env>, cwd: PathBuf, stdin: Option<Vec<u8>>) -> Self {
        Self {
            env,
            cwd,
            stdin,
            clock: Box::new(Timestamp::now),
            terminal: Box::new(|env| {
                crate::prompt::interactive(env).map(|t| Box::new(t) as Box<dyn Prompter>)
            }),
            fixed_dirs: None,
        }
    }

    /// Now.
    pub fn now(&self) -> Timestamp {
        (self.clock)()
    }

    /// The person's terminal, when vouch may ask: not CI, not
    /// `VOUCH_HEADLESS`, and `/dev/tty` opens (SPEC 3.3).
    pub fn terminal(&self) -> Option<Box<dyn Prompter>> {
        (self.terminal)(self.env.as_ref())
    }

    /// A directory named on the command line (`--repo`, `--cwd`), relative
    /// to the working directory; the working directory when none is given.
    pub fn dir(&self, given: Option<&PathBuf>) -> PathBuf {
        given.map_or_else(|| self.cwd.clone(), |p| self.cwd.join(p))
    }

    /// vouch's directories, where the platform keeps them (XDG on Linux,
    /// `~/Library/Application Support` on macOS), from the `directories` crate.
    pub fn dirs(&self) -> Result<Dirs> {
        if let Some(dirs) = &self.fixed_dirs {
            return Ok(dirs.clone());
        }
        let project = directories::ProjectDirs::from("", "", "vouch").context(
            "cannot find a home directory: set HOME so vouch knows where its config and log live",
        )?;
        Ok(Dirs {
            config: project.config_dir().to_path_buf(),
            data: project.data_dir().to_path_buf(),
            state: project
                .state_dir()
                .unwrap_or_else(|| project.data_dir())
                .to_path_buf(),
        })
    }

    /// The user config file: `VOUCH_CONFIG`, or `<config dir>/config.toml`.
    pub fn user_config_path(&self) -> Result<PathBuf> {
        match self
            .env
            .var_os(vars::VOUCH_CONFIG)
            .filter(|p| !p.is_empty())
        {
            Some(p) => Ok(PathBuf::from(p)),
            None => Ok(self.dirs()?.config.join("config.toml")),
        }
    }

    /// The config in force, as every door reads it (the hooks, the agent
    /// door, `check`, `verify`): the user config and the repository's
    /// `.vouch.toml` (if `repo_root` is given) under the trust rule. This
    /// never fails: a file that cannot be read or used is left out, and
    /// `config.broken` and `config.warnings` say so (SPEC 3.2).
    pub fn config(&self, repo_root: Option<&Path>) -> Config {
        let mut unusable = Vec::new();
        let (user, user_path) = match self.user_config_path() {
            Ok(path) => match read_optional(&path) {
                Ok(file) => (file, Some(path)),
                Err(e) => {
                    unusable.push((e, Source::User));
                    (None, Some(path))
                }
            },
            // No home directory: there is no user config to read.
            Err(_) => (None, None),
        };
        let repo = repo_root.and_then(|root| {
            let path = root.join(REPO_CONFIG);
            match read_optional(&path) {
                Ok(file) => file.map(|file| {
                    let trusted = self
                        .dirs()
                        .is_ok_and(|dirs| trust::is_trusted(&dirs.data, root));
                    (file, trusted)
                }),
                Err(e) => {
                    unusable.push((e, Source::UntrustedRepo));
                    None
                }
            }
        });
        let user_path_mode = user.as_ref().and_then(|f| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(&f.path)
                .ok()
                .map(|m| m.permissions().mode())
        });
        let mut config = Config::resolve(&ConfigInputs { user, repo }, self.env.as_ref());
        for (e, source) in unusable {
            config.ignore_broken(e, source);
        }
        // SPEC 3.2: keys in a file others can read draw a warning.
        if let Some(user_path) = user_path
            && config.providers.values().any(|p| p.api_key.is_some())
            && user_path_mode.is_some_and(|m| m & 0o077 != 0)
        {
            config.warnings.push(format!(
                "`{}` holds API keys and other users can read it: run `chmod 600 {}`",
                user_path.display(),
                user_path.display()
            ));
        }
        config
    }

    /// The config in force, refusing a file that cannot be used: for the
    /// commands that act on the config itself (`install`, `trust`,
    /// `status`), where the person should see and fix the error first.
    /// Doors use [`Ctx::config`].
    pub fn load_config(&self, repo_root: Option<&Path>) -> Result<Config> {
        let config = self.config(repo_root);
        if let Some(e) = config.broken.first() {
            return Err(anyhow::Error::new(e.clone()));
        }
        Ok(config)
    }

    /// Where verifier programs are looked for, for the repository at `root`:
    /// its `.vouch/verifiers/` only when the repository is trusted.
    pub fn verifier_places(&self, root: &Path) -> Result<crate::verifiers::SearchPlaces> {
        let dirs = self.dirs()?;
        Ok(crate::verifiers::SearchPlaces {
            user_dir: Some(dirs.config.join("verifiers")),
            repo_dir: trust::is_trusted(&dirs.data, root).then(|| trust::verifiers_dir(root)),
            path: self.env.var_os(vars::PATH),
        })
    }

    /// The audit log path: config (`VOUCH_LOG` included), else the state dir.
    pub fn log_path(&self, config: &Config) -> Result<PathBuf> {
        match &config.log_path {
            Some(p) => Ok(p.clone()),
            None => Ok(self.dirs()?.state.join("audit.jsonl")),
        }
    }
}

fn read_optional(path: &Path) -> Result<Option<ConfigFile>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(ConfigFile {
            path: path.to_path_buf(),
            text,
        })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ConfigError::Unreadable {
            path: path.to_path_buf(),
            message: e.to_string(),
        }),
    }
}
