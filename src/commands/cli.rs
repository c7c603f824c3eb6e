//! The command line (clap derive only). Help text comes from doc comments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::doors::args::{AgentHookArgs, PreCommitArgs, PrePushArgs, PreReceiveArgs, RefTxArgs};

/// vouch: a git guard. Before history is destroyed (a force push, a branch or
/// tag deletion), vouch gets an independent verdict and then allows the
/// operation, asks you at the terminal, or refuses it.
#[derive(Debug, Parser)]
#[command(
    name = "git-vouch",
    bin_name = "git vouch",
    version,
    propagate_version = true
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Install vouch's git hooks into a repository.
    ///
    /// Hooks go where git looks for them (`core.hooksPath`, the common dir of
    /// linked worktrees, bare repositories). A hook that is already there is
    /// kept as `<hook>.local` and runs first.
    Install(InstallArgs),
    /// Remove vouch's hooks and restore the hooks that were there before.
    Uninstall(RepoArgs),
    /// Show what is installed, the config in force, verifiers and the log path.
    Status(StatusArgs),
    /// Trust this repository's `.vouch.toml`, so it may set verifier programs
    /// and a notify command. Editing the file revokes the trust.
    Trust(TrustArgs),
    /// Run verifiers by hand on the pending push of the current branch.
    Verify(VerifyArgs),
    /// Approve one refused operation, at a terminal (valid 15 minutes, once).
    Approve(ApproveArgs),
    /// Show every AI provider: where its key comes from (never the key),
    /// its base URL and model, and which one would judge.
    Doctor(DoctorArgs),
    /// Show the audit log.
    Log(LogArgs),
    /// Show the audit log's figures: decisions by door, tier, result and
    /// decision, skip and override rates, the AI verifier per provider and
    /// model, and catch and false-positive rates where decisions were labelled.
    Stats(StatsArgs),
    /// Label a logged operation dangerous or safe: the ground truth for the
    /// catch and false-positive rates (`git vouch stats`) and for eval cases
    /// (`git vouch log --export-eval`). A label never changes a decision.
    Label(LabelArgs),
    /// Judge a shell command before it runs: its tier, the reasons, the
    /// repository's facts, and with `--verify` the verdict. Exit 0 allowed
    /// (or, without `--verify`, a tier below high), 1 refused (or a tier that
    /// needs a verdict), 2 error.
    Check(CheckArgs),
    /// Answer an AI coding agent's pre-tool hook: the agent's JSON on stdin,
    /// the answer in its protocol on stdout (what `git vouch agent install` sets up).
    AgentHook(AgentHookArgs),
    /// Install vouch into an AI coding agent's hook settings, or take it out.
    Agent(AgentArgs),
    /// List, restore or prune the rescue refs vouch writes before an allowed
    /// local rewind or deletion (`refs/vouch/rescue/...`).
    Rescue(RescueArgs),
    /// Put back the state before an agent's last command (or the N-th
    /// last, or a snapshot by name): files, index, branches, tags, stash.
    ///
    /// vouch snapshots the repository before every agent shell command that
    /// may change it. The state now is snapshotted first, so an undo can be
    /// undone. An agent may run it: it only puts work back.
    Undo(UndoArgs),
    /// List the snapshots vouch took before agents' commands, newest first.
    Snapshots(SnapshotsArgs),
    /// Measure the AI verifier on a labelled corpus: catch and
    /// false-positive rates, unusable and retry success rates, latency,
    /// tokens and cost per provider and model, and what other score
    /// thresholds would do.
    ///
    /// Each case is asked as a live decision would ask it (same prompt,
    /// same reading of the answer), without the verdict cache.
    Eval(EvalArgs),
    /// Print a commented template of every setting, at its default.
    ///
    /// Copy the lines you want to change into the user config
    /// (`~/.config/vouch/config.toml`, or `VOUCH_CONFIG`) or a repository's
    /// `.vouch.toml`.
    Config,
    /// Print a shell completion script: `bash`, `zsh`, `fish`, `elvish` or
    /// `powershell`.
    ///
    /// bash: `git vouch completions bash > ~/.local/share/bash-completion/completions/git-vouch`;
    /// zsh: `git vouch completions zsh > ~/.zfunc/_git-vouch` (with `~/.zfunc` in `fpath`);
    /// fish: `git vouch completions fish > ~/.config/fish/completions/git-vouch.fish`.
    Completions(CompletionsArgs),
    /// Print the manual page, `git-vouch(1)` (roff), or install it where
    /// `man` finds it.
    ///
    /// `git vouch --help` is `git help vouch`, which runs `man git-vouch`:
    /// `git vouch man --install` (which `./install.sh` runs) writes the page
    /// beside the binary's directory (`~/.cargo/bin` -> `~/.cargo/share/man/man1`),
    /// where `man` looks for every directory on `PATH`, and checks that
    /// `man` finds it. `git vouch -h` and `git vouch help` print the help
    /// without `man`.
    Man(ManArgs),
    /// Entry point of the installed git hooks (not for people).
    #[command(hide = true)]
    Hook(HookArgs),
}

/// Which repository.
#[derive(Debug, Args)]
pub struct RepoArgs {
    /// The repository (default: the current directory).
    #[arg(long, value_name = "PATH")]
    pub repo: Option<PathBuf>,
}

/// `git vouch status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The repository (default: the current directory).
    #[arg(long, value_name = "PATH")]
    pub repo: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Print what happens to a critical or high operation, by what the
    /// verifiers say and who started it, under this repository's config:
    /// the one table every door decides by.
    #[arg(long, conflicts_with = "json")]
    pub explain: bool,
}

/// `git vouch man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write the page where `man` finds it, without root (beside the
    /// binary's `bin` directory, else `~/.local/share/man`), and check that
    /// `man git-vouch` opens it.
    #[arg(long)]
    pub install: bool,
    /// With `--install`: this manual directory instead (the page goes in
    /// its `man1`).
    #[arg(long, value_name = "DIR", requires = "install")]
    pub dir: Option<PathBuf>,
}

/// `git vouch completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    pub shell: clap_complete::Shell,
}

/// `git vouch install`.
#[derive(Debug, Args)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is an independent command-line flag"
)]
pub struct InstallArgs {
    /// The repository (default: the current directory).
    #[arg(long, value_name = "PATH")]
    pub repo: Option<PathBuf>,
    /// The hooks to install, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "pre-push,pre-commit,reference-transaction"
    )]
    pub hooks: Vec<String>,
    /// Install into a `core.hooksPath` outside the repository anyway (it is
    /// shared by every repository that uses it).
    #[arg(long)]
    pub force: bool,
    /// Link the hooks to the vouch binary instead of writing `sh` scripts:
    /// no shell starts on every push, but if the binary goes missing git
    /// skips the hook silently (no warning, `strict` cannot refuse).
    #[arg(long)]
    pub direct: bool,
    /// Register the hooks in the repository's git config
    /// (`hook.vouch-<hook>.command`, git 2.54 or later) instead of the hooks
    /// directory: they run even when another tool owns `core.hooksPath`,
    /// and no hook manager's reinstall can take them. The default where the
    /// git on `PATH` is 2.54 or later.
    #[arg(long, conflicts_with = "hook_files")]
    pub config_hooks: bool,
    /// Write hook files into the hooks directory even where git runs
    /// config-defined hooks (the only way before git 2.54).
    #[arg(long)]
    pub hook_files: bool,
    /// Install the server door instead: vouch's `pre-receive` in a bare
    /// repository on the git server (chaining the `pre-receive` that is
    /// there), and `receive.advertisePushOptions = true` so that pushers
    /// can send `-o vouch.skip=...` and `-o vouch.approve=...`.
    #[arg(long, conflicts_with_all = ["hooks", "config_hooks", "hook_files"])]
    pub server: bool,
    /// With `--server`: every bare repository at or below this directory
    /// (a forge's repository root).
    #[arg(long, value_name = "DIR", requires = "server", conflicts_with = "repo")]
    pub all_under: Option<PathBuf>,
}

/// `git vouch trust`.
#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The repository (default: the current directory).
    #[arg(long, value_name = "PATH")]
    pub repo: Option<PathBuf>,
    /// Withdraw the trust instead.
    #[arg(long)]
    pub revoke: bool,
}

/// `git vouch verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// List the verifiers vouch finds, and exit.
    #[arg(long)]
    pub list: bool,
    /// Run only these verifiers (comma-separated names).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub only: Vec<String>,
    /// The repository (default: the current directory).
    #[arg(long, value_name = "PATH")]
    pub repo: Option<PathBuf>,
    /// The provider or model that proposed the operation (`anthropic`,
    /// `gpt-5`, ...); the AI verifier is chosen from another family.
    #[arg(long, value_name = "PROVIDER|MODEL")]
    pub primary: Option<String>,
    /// Print the request the AI verifier would be sent (system prompt and
    /// user message, redacted), and send nothing.
    #[arg(long, conflicts_with_all = ["list", "only"])]
    pub explain: bool,
}

/// `git vouch doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Send each available provider a minimal real request and show its latency.
    #[arg(long)]
    pub ping: bool,
    /// The provider or model that proposed the operation.
    #[arg(long, value_name = "PROVIDER|MODEL")]
    pub primary: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `git vouch approve`.
#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// The operation id printed with the refusal.
    pub id: String,
}

/// `git vouch check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// The directory the command would run in (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Ask the verifiers (programs and the AI verifier) for a verdict.
    #[arg(long)]
    pub verify: bool,
    /// Print the request the AI verifier would be sent (system prompt and
    /// user message, redacted), and send nothing.
    #[arg(long, conflicts_with = "verify")]
    pub explain: bool,
    /// The provider or model that proposed the command.
    #[arg(long, value_name = "PROVIDER|MODEL")]
    pub primary: Option<String>,
    /// The command as one string, as a shell would read it.
    #[arg(long, value_name = "COMMAND")]
    pub operation: Option<String>,
    /// The command's words, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `git vouch agent`.
#[derive(Debug, Args)]
pub struct AgentArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: AgentAction,
}

/// `git vouch agent <action>`.
#[derive(Debug, Subcommand)]
pub enum AgentAction {
    /// Add vouch to the agent's hook settings, keeping every other hook.
    Install(AgentInstallArgs),
    /// Remove only vouch's entry from the agent's hook settings.
    Uninstall(AgentInstallArgs),
}

/// `git vouch agent install|uninstall`.
#[derive(Debug, Args)]
pub struct AgentInstallArgs {
    /// The agent.
    pub agent: crate::install::agent::settings::Agent,
    /// The project's settings (the default): in the repository or directory given by `--repo`.
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// The user's settings, for every project.
    #[arg(long)]
    pub user: bool,
    /// This project's settings for this machine only, where the agent has
    /// such a file and keeps it out of git (Claude Code's
    /// `.claude/settings.local.json`).
    #[arg(long, conflicts_with_all = ["user", "project"])]
    pub local: bool,
    /// The project directory (default: the current one).
    #[arg(long, value_name = "PATH")]
    pub repo: Option<PathBuf>,
}

/// `git vouch undo`.
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// Which snapshot: N is the state before the N-th command `git vouch
    /// snapshots` lists (1 the newest); or a snapshot's name as it lists
    /// it (an undo's own too). Default: the newest state that differs
    /// from now.
    pub which: Option<String>,
    /// Restore only these paths (files or directories), not the refs.
    #[arg(long = "path", value_name = "PATH")]
    pub paths: Vec<String>,
    /// Another work tree's snapshots (its name, as `git vouch snapshots
    /// --all` lists it): its work is put back where that work tree was,
    /// made again when it was removed.
    #[arg(long, value_name = "NAME")]
    pub worktree: Option<String>,
    /// The repository (default: the current directory).
    #[arg(long, value_name = "PATH")]
    pub repo: Option<PathBuf>,
}

/// `git vouch snapshots`.
#[derive(Debug, Args)]
pub struct SnapshotsArgs {
    /// What to do (default: list).
    #[command(subcommand)]
    pub action: Option<SnapshotsAction>,
    /// Print them as one JSON array.
    #[arg(long)]
    pub json: bool,
    /// Every work tree's snapshots, a removed one's too (default: this
    /// work tree's).
    #[arg(long)]
    pub all: bool,
    /// The repository (default: the current directory).
    #[arg(long, value_name = "PATH", global = true)]
    pub repo: Option<PathBuf>,
}

/// `git vouch snapshots <action>`.
#[derive(Debug, Subcommand)]
pub enum SnapshotsAction {
    /// Delete old snapshots: every one that is neither among the newest
    /// `--keep` nor younger than `--days`. Needs a person at a terminal
    /// (what only a snapshot holds is gone for good).
    Prune {
        /// How many of the newest to keep, whatever their age (default:
        /// `[snapshots] keep` in the config, 100).
        #[arg(long)]
        keep: Option<usize>,
        /// Keep every snapshot younger than this many days (default:
        /// `[snapshots] days`, 14).
        #[arg(long)]
        days: Option<u32>,
        /// Say what would be deleted, and delete nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// `git vouch rescue`.
#[derive(Debug, Args)]
pub struct RescueArgs {
    /// What to do (default: list).
    #[command(subcommand)]
    pub action: Option<RescueAction>,
    /// The repository (default: the current directory).
    #[arg(long, value_name = "PATH", global = true)]
    pub repo: Option<PathBuf>,
}

/// `git vouch rescue <action>`.
#[derive(Debug, Subcommand)]
pub enum RescueAction {
    /// List the rescue refs, newest first, with what they hold.
    List {
        /// Print a JSON array instead of a table (`[]` when there is none).
        #[arg(long)]
        json: bool,
    },
    /// Put a rescued tip back where it was: recreate the branch or tag, move
    /// the branch forward to it, or put the entry back on the stash.
    Restore {
        /// The rescue ref, as listed (`main/20261122T101500Z`) or in full.
        name: String,
        /// Restore as a new branch (or tag) of this name instead.
        #[arg(long = "as", value_name = "NAME")]
        as_name: Option<String>,
    },
    /// Delete rescue refs older than an age.
    Prune {
        /// The age: `30d`, `2 weeks`, `12h`.
        #[arg(long, value_name = "AGE")]
        older_than: String,
        /// Only show what would be deleted.
        #[arg(long)]
        dry_run: bool,
    },
}

/// `git vouch log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// Print the JSON lines instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Only records newer than this: a duration (`2h`, `3 days`) or a time
    /// (`2026-11-01`, `2026-11-01T10:00:00Z`).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only records with this result (what the verifiers said) or decision
    /// (what happened to the operation).
    #[arg(long, value_name = "RESULT")]
    pub result: Option<ResultFilter>,
    /// Only records of this repository.
    #[arg(long, value_name = "PATH")]
    pub repo: Option<PathBuf>,
    /// Write the labelled decisions (`git vouch label`) as eval cases, one JSON
    /// line each, to FILE (`-` or none: stdout).
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub export_eval: Option<PathBuf>,
}

/// A result or decision word of the audit log, for `git vouch log --result`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ResultFilter {
    /// Result: the verifiers said proceed.
    Proceed,
    /// Result: the verifiers raised concerns.
    Warn,
    /// Result: the verifiers judged it unsafe.
    Block,
    /// Result: not verified (tier below verification, a skip, an approval).
    Skipped,
    /// Result: no usable verdict.
    Unavailable,
    /// Decision: it went ahead.
    Allowed,
    /// Decision: vouch refused it.
    Refused,
    /// Decision: an agent was told to ask its person.
    AskedPerson,
    /// Decision: the person at the terminal said yes.
    AskedYes,
    /// Decision: the person at the terminal said no.
    AskedNo,
}

impl ResultFilter {
    /// The word, as logged.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Proceed => "proceed",
            Self::Warn => "warn",
            Self::Block => "block",
            Self::Skipped => "skipped",
            Self::Unavailable => "unavailable",
            Self::Allowed => "allowed",
            Self::Refused => "refused",
            Self::AskedPerson => "asked-person",
            Self::AskedYes => "asked-yes",
            Self::AskedNo => "asked-no",
        }
    }
}

/// `git vouch stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Print the figures as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Only records newer than this: a duration (`2h`, `3 days`) or a time
    /// (`2026-11-01`, `2026-11-01T10:00:00Z`).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only records of this repository.
    #[arg(long, value_name = "PATH")]
    pub repo: Option<PathBuf>,
}

/// `git vouch label`.
#[derive(Debug, Args)]
pub struct LabelArgs {
    /// The operation id, as `git vouch log` shows it.
    pub operation_id: String,
    /// What it was.
    pub label: crate::audit::stats::Label,
    /// Why, in a few words.
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
}

/// `git vouch eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The corpus: JSONL, one labelled case a line
    /// (`{"label": "dangerous"|"safe", "operation": {...}, "note": "..."}`).
    #[arg(long, value_name = "FILE")]
    pub corpus: PathBuf,
    /// Ask only this provider (a name `git vouch doctor` lists), with its own
    /// model, and no other in its place.
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `git vouch hook <name> ...`.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The hook.
    #[command(subcommand)]
    pub hook: HookCommand,
}

/// The hooks.
#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// git's pre-push: `<remote> <url>`, ref lines on stdin.
    PrePush(PrePushArgs),
    /// git's pre-commit: judges the staged change.
    PreCommit(PreCommitArgs),
    /// git's reference-transaction: `<state>`, ref lines on stdin.
    ReferenceTransaction(RefTxArgs),
    /// git's pre-receive on a server: ref lines on stdin, push options in
    /// the environment.
    PreReceive(PreReceiveArgs),
}

/// The command line of a binary started as a hook (by the gate or a
/// link), built without clap: git passes each hook fixed arguments, and
/// building the whole command-line parser cost a tenth of a pre-commit
/// hook. `None` when the arguments are not what git passes (or not
/// UTF-8): [`crate::install::hook_argv`] and clap then take them, and say what is wrong.
pub fn hook_cli(args: &[std::ffi::OsString]) -> Option<Cli> {
    use crate::install::{REF_TX, hook_of_file};
    use std::path::Path;
    let path = Path::new(args.first()?);
    let Some(name) = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(hook_of_file)
    else {
        return agent_hook_cli(args);
    };
    let hook_dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map(Path::to_path_buf);
    let rest = args[1..]
        .iter()
        .map(|a| a.to_str().map(str::to_owned))
        .collect::<Option<Vec<String>>>()?;
    let hook = match (name, rest.as_slice()) {
        ("pre-commit", _) => HookCommand::PreCommit(PreCommitArgs { hook_dir, rest }),
        ("pre-push", [remote, url]) => HookCommand::PrePush(PrePushArgs {
            hook_dir,
            remote: remote.clone(),
            url: url.clone(),
        }),
        (REF_TX, [state]) => HookCommand::ReferenceTransaction(RefTxArgs {
            hook_dir,
            state: state.clone(),
        }),
        _ => return None,
    };
    Some(Cli {
        command: Command::Hook(HookArgs { hook }),
    })
}

/// `git-vouch agent-hook <agent>`, the command line an agent's hook
/// settings run for every tool call, also read without clap (clap's parser
/// cost half of the agent door's answer to a harmless command). `None` for
/// any other command line.
fn agent_hook_cli(args: &[std::ffi::OsString]) -> Option<Cli> {
    let [_, command, agent] = args else {
        return None;
    };
    if command != "agent-hook" {
        return None;
    }
    let agent = <crate::install::agent::settings::Agent as clap::ValueEnum>::from_str(
        agent.to_str()?,
        false,
    )
    .ok()?;
    Some(Cli {
        command: Command::AgentHook(AgentHookArgs { agent }),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_hook_command_line_reads_as_clap_reads_it() {
        use clap::Parser;
        let argv = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        for args in [
            argv(&[".git/hooks/pre-push", "origin", "/r.git"]),
            argv(&["/abs/hooks/pre-push", "--force", "-x"]),
            argv(&["/abs/hooks/pre-commit"]),
            argv(&["hooks/pre-commit", "extra", "--hook-dir"]),
            argv(&[".git/hooks/reference-transaction", "prepared"]),
            argv(&["reference-transaction", "committed"]),
            argv(&["git-vouch", "agent-hook", "claude"]),
            argv(&["/home/u/.cargo/bin/git-vouch", "agent-hook", "opencode"]),
            argv(&["vouch", "agent-hook", "codex"]),
        ] {
            let ours = hook_cli(&args).expect("a hook's command line");
            let clap = Cli::parse_from(crate::install::hook_argv(args.clone()));
            assert_eq!(format!("{ours:?}"), format!("{clap:?}"), "{args:?}");
        }
        // A hook a manager moved aside (pre-commit's migration mode,
        // lefthook's `.old`) is still the hook it was.
        for moved in [".git/hooks/pre-commit.legacy", ".git/hooks/pre-commit.old"] {
            let moved = hook_cli(&argv(&[moved])).expect("a moved hook");
            let plain = hook_cli(&argv(&[".git/hooks/pre-commit"])).expect("the hook");
            assert_eq!(format!("{moved:?}"), format!("{plain:?}"));
        }
        assert!(hook_cli(&argv(&[".git/hooks/pre-commit.sample"])).is_none());
        // Not what git passes: left to clap.
        assert!(hook_cli(&argv(&[".git/hooks/pre-push", "origin"])).is_none());
        assert!(hook_cli(&argv(&["/usr/bin/vouch", "status"])).is_none());
        assert!(hook_cli(&argv(&["git-vouch", "agent-hook", "nobody"])).is_none());
        assert!(hook_cli(&argv(&["git-vouch", "agent-hook", "Claude"])).is_none());
        assert!(hook_cli(&argv(&["git-vouch", "agent-hook", "claude", "x"])).is_none());
        assert!(hook_cli(&argv(&["git-vouch", "agent-hook", "--help"])).is_none());
    }

    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn result_filter_words_are_the_logged_words() {
        use crate::decide::{AuditResult, Decision};
        use clap::ValueEnum;
        let logged: Vec<&str> = [
            AuditResult::Proceed,
            AuditResult::Warn,
            AuditResult::Block,
            AuditResult::Skipped,
            AuditResult::Unavailable,
        ]
        .map(AuditResult::as_str)
        .into_iter()
        .chain(
            [
                Decision::Allowed,
                Decision::Refused,
                Decision::AskedPerson,
                Decision::AskedYes,
                Decision::AskedNo,
            ]
            .map(Decision::as_str),
        )
        .collect();
        let accepted: Vec<&str> = ResultFilter::value_variants()
            .iter()
            .map(|v| v.as_str())
            .collect();
        assert_eq!(accepted, logged);
        for v in ResultFilter::value_variants() {
            let name = v.to_possible_value().unwrap();
            assert_eq!(
                name.get_name(),
                v.as_str(),
                "clap's word is the logged word"
            );
        }
    }
}
