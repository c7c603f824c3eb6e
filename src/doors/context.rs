//! What every command needs from the outside: the environment, the working
//! directory, vouch's own directories, and the config files read from disk.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};

use crate::classify::config::{Config, ConfigError, ConfigFile, ConfigInputs, Source};
use crate::install::trust;
use crate::interact::prompt::Prompter;
use crate::platform::env::{Env, vars};
use jiff::Timestamp;

pub use crate::install::trust::REPO_CONFIG;

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
    /// The configs this process has read, by the repository root each was
    /// read for: each is read once per process (issue 39 item 3), also
    /// where two contexts share it ([`Ctx::sharing`]).
    pub configs: Configs,
    /// Starts the agent door's watchdog, once: the door calls it
    /// ([`Ctx::watch`]) before any step that can wait. `main` gives it;
    /// elsewhere (other doors, in-process tests) it does nothing.
    pub watchdog: Watchdog,
}

/// What [`Ctx::watch`] runs.
pub type Watchdog = Box<dyn Fn() + Send + Sync>;

/// The configs a process has read ([`Ctx::config`]), shared by its
/// contexts.
pub type Configs = Arc<Mutex<ConfigsRead>>;

/// What [`Configs`] holds.
#[derive(Default)]
pub struct ConfigsRead {
    /// Each config in force, by the repository root it was read for.
    configs: Vec<(Option<PathBuf>, Arc<Config>)>,
    /// Each config file, as it was read: a config for another root reads
    /// the user's file from here.
    files: Vec<(PathBuf, Result<Option<ConfigFile>, ConfigError>)>,
}

/// vouch's own directories.
#[derive(Debug, Clone)]
pub struct Dirs {
    /// User config (`config.toml`, `verifiers/`); `None` without a home
    /// directory: there is no user config to read.
    pub config: Option<PathBuf>,
    /// Data (`trust.json`); `None` without a home directory: no repository
    /// is trusted.
    pub data: Option<PathBuf>,
    /// State (`audit.jsonl`, `reviews/`, `approvals/`).
    pub state: PathBuf,
    /// Where the state is when there is no home directory: the
    /// repository's git directory, said on every run ([`Ctx::config`]).
    pub fallback: Option<String>,
}

impl Dirs {
    /// The user's directories, as the XDG base directory specification
    /// puts them, on every system (macOS too, where command-line tools
    /// such as git keep theirs in `~/.config`): `$XDG_CONFIG_HOME/vouch`
    /// (else `~/.config/vouch`), `$XDG_DATA_HOME/vouch` (else
    /// `~/.local/share/vouch`), `$XDG_STATE_HOME/vouch` (else
    /// `~/.local/state/vouch`). A relative value is ignored, as the
    /// specification says. Read from the environment alone: no user is
    /// looked up in the system's password database (a statically linked
    /// program cannot load the modules that would do it, and crashes).
    pub fn of_user(env: &dyn Env) -> Option<Self> {
        let absolute = |name: &str| {
            env.var_os(name)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        let home = absolute(vars::HOME);
        let base = |xdg: &str, under_home: &str| {
            absolute(xdg)
                .or_else(|| home.as_ref().map(|h| h.join(under_home)))
                .map(|p| p.join("vouch"))
        };
        Some(Self {
            config: Some(base(vars::XDG_CONFIG_HOME, ".config")?),
            data: Some(base(vars::XDG_DATA_HOME, ".local/share")?),
            state: base(vars::XDG_STATE_HOME, ".local/state")?,
            fallback: None,
        })
    }

    /// True when the person trusted the repository at `root` (never
    /// without a trust store).
    pub fn is_trusted(&self, root: &Path) -> bool {
        self.data
            .as_ref()
            .is_some_and(|data| trust::is_trusted(data, root))
    }

    /// Without a home directory (a container running as a user the system
    /// does not know): the state lives in the repository's git directory,
    /// `<git dir>/vouch`, and there is no user config and no trust store.
    fn in_repository(git_dir: &Path) -> Self {
        let state = git_dir.join("vouch");
        Self {
            config: None,
            data: None,
            fallback: Some(format!(
                "no home directory (HOME is not set): vouch keeps its log in `{}`, reads no user config and trusts no repository file; set HOME to use your own",
                state.display()
            )),
            state,
        }
    }
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
                crate::interact::prompt::interactive(env).map(|t| Box::new(t) as Box<dyn Prompter>)
            }),
            fixed_dirs: None,
            configs: Configs::default(),
            watchdog: Box::new(|| {}),
        }
    }

    /// Another context of the same process (a watchdog's), which reads no
    /// config this one has read.
    #[must_use]
    pub fn sharing(&self, env: Box<dyn Env>, cwd: PathBuf) -> Self {
        Self {
            configs: Arc::clone(&self.configs),
            ..Self::new(env, cwd, None)
        }
    }

    /// Starts the agent door's watchdog unless it runs already
    /// ([`Ctx::watchdog`]).
    pub fn watch(&self) {
        (self.watchdog)();
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

    /// vouch's directories: the user's ([`Dirs::of_user`]), else the
    /// repository's git directory (no user config, no trust store).
    pub fn dirs(&self) -> Result<Dirs> {
        if let Some(dirs) = &self.fixed_dirs {
            return Ok(dirs.clone());
        }
        if let Some(dirs) = Dirs::of_user(self.env.as_ref()) {
            return Ok(dirs);
        }
        crate::measure::git::common_dir(&self.cwd)
            .map(|git_dir| Dirs::in_repository(&git_dir))
            .context("cannot find a home directory, and this is not inside a git repository: set HOME so vouch knows where its config and log live")
    }

    /// The user config file: `VOUCH_CONFIG`, or `<config dir>/config.toml`.
    pub fn user_config_path(&self) -> Result<PathBuf> {
        match self.named_config() {
            Some(p) => Ok(p),
            None => self
                .dirs()?
                .config
                .map(|c| c.join("config.toml"))
                .context("no home directory: there is no user config"),
        }
    }

    /// The user config `VOUCH_CONFIG` names, if it names one.
    fn named_config(&self) -> Option<PathBuf> {
        self.env
            .var_os(vars::VOUCH_CONFIG)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    }

    /// The config in force, as every door reads it (the hooks, the agent
    /// door, `check`, `verify`): the user config and the repository's
    /// `.vouch.toml` (if `repo_root` is given) under the trust rule. This
    /// never fails: a file that cannot be read or used is left out, and
    /// `config.broken` and `config.warnings` say so (SPEC 3.2). Read once
    /// per process and root: every later call hands back the same config.
    pub fn config(&self, repo_root: Option<&Path>) -> Arc<Config> {
        let key = repo_root.map(Path::to_path_buf);
        let mut read = self
            .configs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, config)) = read.configs.iter().find(|(root, _)| *root == key) {
            return Arc::clone(config);
        }
        let config = Arc::new(self.read_config(repo_root, &mut read.files));
        read.configs.push((key, Arc::clone(&config)));
        config
    }

    /// The config in force, from its files ([`Ctx::config`]); a file read
    /// before (in `files`) is not read again.
    fn read_config(
        &self,
        repo_root: Option<&Path>,
        files: &mut Vec<(PathBuf, Result<Option<ConfigFile>, ConfigError>)>,
    ) -> Config {
        let mut read_once = |path: &Path| {
            if let Some((_, read)) = files.iter().find(|(p, _)| p == path) {
                return read.clone();
            }
            let read = read_optional(path);
            files.push((path.to_path_buf(), read.clone()));
            read
        };
        // Found once: without a home directory this runs git.
        let dirs = self.dirs().ok();
        let mut unusable = Vec::new();
        let user_path = self.named_config().or_else(|| {
            dirs.as_ref()?
                .config
                .as_ref()
                .map(|c| c.join("config.toml"))
        });
        // No path: no home directory, so no user config to read.
        let user = user_path.as_ref().and_then(|path| {
            read_once(path).unwrap_or_else(|e| {
                unusable.push((e, Source::User));
                None
            })
        });
        let repo = repo_root.and_then(|root| {
            let path = root.join(REPO_CONFIG);
            match read_once(&path) {
                Ok(file) => file.map(|file| {
                    let trusted = dirs.as_ref().is_some_and(|d| d.is_trusted(root));
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
        if let Some(note) = dirs.and_then(|d| d.fallback) {
            config.warnings.push(note);
        }
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
    pub fn load_config(&self, repo_root: Option<&Path>) -> Result<Arc<Config>> {
        let config = self.config(repo_root);
        if let Some(e) = config.broken.first() {
            return Err(anyhow::Error::new(e.clone()));
        }
        Ok(config)
    }

    /// Where verifier programs are looked for, for the repository at `root`:
    /// its `.vouch/verifiers/` only when the repository is trusted.
    pub fn verifier_places(&self, root: &Path) -> Result<crate::verify::programs::SearchPlaces> {
        let dirs = self.dirs()?;
        Ok(crate::verify::programs::SearchPlaces {
            user_dir: dirs.config.as_ref().map(|c| c.join("verifiers")),
            repo_dir: dirs.is_trusted(root).then(|| trust::verifiers_dir(root)),
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
    use crate::platform::files::{Opened, open_no_wait};
    use std::io::Read;
    crate::platform::counts::add(crate::platform::counts::Count::ConfigFile);
    let unreadable = |message: String| ConfigError::Unreadable {
        path: path.to_path_buf(),
        message,
    };
    // Only a regular file is read: a named pipe or a device would block
    // every door on its read.
    let mut file = match open_no_wait(path) {
        Ok(Opened::File { file, .. }) => file,
        Ok(Opened::Directory) => {
            return Err(unreadable(
                std::io::Error::from(std::io::ErrorKind::IsADirectory).to_string(),
            ));
        }
        Ok(Opened::Other) => return Err(unreadable("not a regular file".into())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| unreadable(e.to_string()))?;
    Ok(Some(ConfigFile {
        path: path.to_path_buf(),
        text,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::env::MapEnv;

    fn of(pairs: &[(&str, &str)]) -> Option<Dirs> {
        Dirs::of_user(&MapEnv::from_pairs(pairs))
    }

    #[test]
    fn the_users_dirs_come_from_the_environment_alone() {
        let d = of(&[("HOME", "/h")]).expect("HOME is enough");
        assert_eq!(d.config, Some(PathBuf::from("/h/.config/vouch")));
        assert_eq!(d.data, Some(PathBuf::from("/h/.local/share/vouch")));
        assert_eq!(d.state, PathBuf::from("/h/.local/state/vouch"));
        let d = of(&[
            ("HOME", "/h"),
            ("XDG_CONFIG_HOME", "/c"),
            ("XDG_STATE_HOME", "relative/state"),
        ])
        .unwrap();
        assert_eq!(d.config, Some(PathBuf::from("/c/vouch")));
        assert_eq!(
            d.state,
            PathBuf::from("/h/.local/state/vouch"),
            "a relative XDG value is ignored"
        );
        // Every XDG directory set: no home needed.
        let d = of(&[
            ("XDG_CONFIG_HOME", "/c"),
            ("XDG_DATA_HOME", "/d"),
            ("XDG_STATE_HOME", "/s"),
        ])
        .unwrap();
        assert_eq!(d.state, PathBuf::from("/s/vouch"));
        assert!(d.fallback.is_none());
        // No home, or a relative one: not the user's.
        assert!(of(&[]).is_none());
        assert!(of(&[("HOME", "")]).is_none());
        assert!(of(&[("HOME", "home")]).is_none());
        assert!(of(&[("XDG_CONFIG_HOME", "/c")]).is_none());
    }

    #[test]
    fn the_repository_fallback_reads_no_user_config_and_trusts_nothing() {
        let d = Dirs::in_repository(Path::new("/r/.git"));
        assert_eq!(d.state, PathBuf::from("/r/.git/vouch"));
        assert!(d.config.is_none() && d.data.is_none());
        assert!(!d.is_trusted(Path::new("/r")));
        assert!(d.fallback.unwrap().contains("`/r/.git/vouch`"));
    }
}
