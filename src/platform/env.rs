//! Every environment variable vouch reads, and the one door through which it
//! reads them.
//!
//! `std::env::var` is banned elsewhere (`clippy.toml`): code asks an [`Env`],
//! so tests can hand a map instead of the process environment.

use std::collections::HashMap;
use std::ffi::OsString;

/// Read access to environment variables.
pub trait Env: Send + Sync {
    /// The raw value of `name`, if set.
    fn var_os(&self, name: &str) -> Option<OsString>;

    /// The value of `name` if it is set and valid UTF-8.
    fn var(&self, name: &str) -> Option<String> {
        self.var_os(name).and_then(|v| v.into_string().ok())
    }

    /// True when `name` is set to something other than empty, `0` or `false`.
    fn flag(&self, name: &str) -> bool {
        self.var(name)
            .is_some_and(|v| !matches!(v.trim(), "" | "0" | "false" | "no"))
    }
}

/// The process environment.
#[derive(Debug, Default, Clone, Copy)]
pub struct ProcessEnv;

impl Env for ProcessEnv {
    #[expect(
        clippy::disallowed_methods,
        reason = "the one place that reads the process environment"
    )]
    fn var_os(&self, name: &str) -> Option<OsString> {
        std::env::var_os(name)
    }
}

/// A fixed map of variables, for tests.
#[derive(Debug, Default, Clone)]
pub struct MapEnv(pub HashMap<String, OsString>);

impl MapEnv {
    /// A map from `(name, value)` pairs.
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        Self(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
                .collect(),
        )
    }
}

impl Env for MapEnv {
    fn var_os(&self, name: &str) -> Option<OsString> {
        self.0.get(name).cloned()
    }
}

/// Names of the variables vouch reads. Each is documented where users see it
/// (docs/configuration.md, `git vouch --help`).
pub mod vars {
    /// Path of the user config file, instead of `<config dir>/vouch/config.toml`.
    pub const VOUCH_CONFIG: &str = "VOUCH_CONFIG";
    /// Path of the audit log, instead of `<state dir>/vouch/audit.jsonl`.
    pub const VOUCH_LOG: &str = "VOUCH_LOG";
    /// `1`: never prompt, even when a terminal is there.
    pub const VOUCH_HEADLESS: &str = "VOUCH_HEADLESS";
    /// A reason: skip verification of this one command, logged with the reason.
    pub const VOUCH_SKIP: &str = "VOUCH_SKIP";
    /// `1`: verify standard-tier operations too.
    pub const VOUCH_VERIFY: &str = "VOUCH_VERIFY";
    /// `1`: a hook whose binary is missing refuses; errors refuse.
    pub const VOUCH_STRICT: &str = "VOUCH_STRICT";
    /// Set by vouch for the programs it runs (verifiers, notify commands) to
    /// its own pid: a git command they run does not call vouch's
    /// reference-transaction hook back (only while that vouch is an ancestor).
    pub const VOUCH_NESTED: &str = "VOUCH_NESTED";
    /// Set by vouch's hook for the lefthook script it chains (a marker
    /// proven as `VOUCH_NESTED` is): the vouch that lefthook runs from
    /// `lefthook-local.yml` leaves the judging to the vouch in front.
    pub const VOUCH_FRONT: &str = "VOUCH_FRONT";
    /// A session id that groups decisions (agents pass their own).
    pub const VOUCH_SESSION: &str = "VOUCH_SESSION";
    /// The provider or model that proposed the operation (`anthropic`, `claude-opus-4`, ...).
    pub const VOUCH_PRIMARY: &str = "VOUCH_PRIMARY";
    /// A debug build prints how often it read the config, opened the
    /// repository and parsed its input (`crate::platform::counts`).
    pub const VOUCH_DEBUG_COUNTS: &str = "VOUCH_DEBUG_COUNTS";
    /// Set by CI systems: headless.
    pub const CI: &str = "CI";
    /// Searched for `vouch-verify-*` verifier programs.
    pub const PATH: &str = "PATH";
    /// The home directory: where vouch's config, data and state live (`context::Dirs`).
    pub const HOME: &str = "HOME";
    /// Where `man` looks for pages (`git vouch man --install` checks its own).
    pub const MANPATH: &str = "MANPATH";
    /// XDG config directory, on every system.
    pub const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";
    /// XDG data directory, on every system.
    pub const XDG_DATA_HOME: &str = "XDG_DATA_HOME";
    /// XDG state directory, on every system.
    pub const XDG_STATE_HOME: &str = "XDG_STATE_HOME";
    /// Colour off.
    pub const NO_COLOR: &str = "NO_COLOR";
}

/// The variables AI coding agents set in the shell commands they run, and
/// the agent each names: git hooks run from such a command are driven by an
/// agent, which is never the person (SPEC 6).
pub const AGENT_MARKERS: &[(&str, &str)] = &[
    ("CLAUDECODE", "Claude Code"),
    ("GEMINI_CLI", "Gemini CLI"),
    ("CODEX_SANDBOX", "Codex"),
    ("CODEX_SANDBOX_NETWORK_DISABLED", "Codex"),
    ("CURSOR_AGENT", "Cursor"),
    ("OPENCODE", "OpenCode"),
];

/// The agent whose command runs this process, when one says so.
pub fn agent_driving(env: &dyn Env) -> Option<&'static str> {
    AGENT_MARKERS
        .iter()
        .find(|(var, _)| env.var(var).is_some_and(|v| !v.is_empty()))
        .map(|(_, agent)| *agent)
}

/// Every `VOUCH_*` variable, with what it does: the one list the manual
/// page prints and the table of `docs/configuration.md` must match (`tests/it/cli.rs` checks
/// that every `VOUCH_` name in the sources is in both).
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        vars::VOUCH_CONFIG,
        "Path of the user config file, instead of `~/.config/vouch/config.toml`.",
    ),
    (
        vars::VOUCH_LOG,
        "Path of the audit log, instead of `~/.local/state/vouch/audit.jsonl`.",
    ),
    (
        vars::VOUCH_HEADLESS,
        "`1`: never prompt, even at a terminal (what CI gets).",
    ),
    (
        vars::VOUCH_SKIP,
        "A reason: skip verification of this one command; the reason is logged (empty is refused).",
    ),
    (
        vars::VOUCH_VERIFY,
        "`1`: verify standard-tier operations too (as `verify_standard = true`).",
    ),
    (
        vars::VOUCH_STRICT,
        "`1`: a hook whose binary is missing refuses (as `strict = true`).",
    ),
    (
        vars::VOUCH_PRIMARY,
        "The provider or model that proposed the operation (`anthropic`, `gpt-5`): the judge comes from another family.",
    ),
    (
        vars::VOUCH_SESSION,
        "A session id that groups decisions (three blocks in one session refuse); agents pass their own.",
    ),
    (
        vars::VOUCH_NESTED,
        "Set by vouch for the programs it runs (verifiers, the notify command): their git commands are not judged again. Not for people.",
    ),
    (
        vars::VOUCH_FRONT,
        "Set by vouch's hook for the lefthook hook it chains: the vouch lefthook runs from `lefthook-local.yml` does not judge the same operation again. Not for people.",
    ),
    (
        vars::VOUCH_DEBUG_COUNTS,
        "Set by vouch's tests: a debug build prints how often it read each config file, opened the repository and parsed its input. A release build ignores it.",
    ),
    (
        "VOUCH_REVIEW_FILE",
        "Set by vouch for the notify command: the review request file.",
    ),
    (
        "VOUCH_OPERATION_ID",
        "Set by vouch for the notify command: the operation's id.",
    ),
    (
        "VOUCH_TESTS_COMMAND",
        "Read by the example verifier `run-check tests`: the command of its check.",
    ),
    (
        "VOUCH_BUILD_COMMAND",
        "Read by the example verifier `run-check build`: the command of its check.",
    ),
    (
        "VOUCH_LINT_COMMAND",
        "Read by the example verifier `run-check lint`: the command of its check.",
    ),
    (
        "VOUCH_BIN",
        "Read by the benchmark scripts (`bench/`): the binary to measure, instead of building one.",
    ),
    (
        "VOUCH_DYNAMIC",
        "Read by `install.sh`: `1` builds a dynamically linked binary instead of a static one.",
    ),
];

/// A unit test whose outside program `program` is missing skips, as the
/// integration tests' `support::missing` does (the same code): named, and
/// counted in the run's last line with what installs it; under `CI` a
/// failure (`.ci/run` installs every program the tests use). The caller
/// returns at once after it.
#[cfg(test)]
pub(crate) fn skip_test(program: &str) {
    skips::skip(
        program,
        &format!("`{program}` is not installed"),
        &skips::installs(program),
    );
}

#[cfg(test)]
#[path = "../../tests/it/support/skips.rs"]
mod skips;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_reads_common_false_spellings_as_off() {
        let env = MapEnv::from_pairs(&[
            ("A", "1"),
            ("B", "0"),
            ("C", ""),
            ("D", "false"),
            ("E", "yes"),
        ]);
        assert!(env.flag("A"));
        assert!(!env.flag("B"));
        assert!(!env.flag("C"));
        assert!(!env.flag("D"));
        assert!(env.flag("E"));
        assert!(!env.flag("MISSING"));
    }
}
