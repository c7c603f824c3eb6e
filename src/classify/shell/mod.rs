//! PURE: a shell command an agent is about to run, to a risk tier (SPEC 2.4).
//!
//! This is the pure half of the agent door (SPEC 3.4) and `vouch check`:
//! [`parse()`] reads a command line the way bash would split it into the
//! simple commands that would execute (see [`parse`](mod@parse) for what is
//! understood), and [`classify`] matches each against [`Rules`] and takes
//! the maximum tier. Nothing here touches git2, the file system, the
//! environment, a process or the terminal; the adapter supplies the git
//! alias lookup and then measures the [`Facts`] a match asks for.
//!
//! # Rules
//!
//! Rules are data: the built-in set is `src/classify/shell/rules.toml`, compiled into
//! the binary, and user rules use the same format and are added to it (a
//! user rule can raise a command's tier, never lower it):
//!
//! ```toml
//! [[rules]]
//! pattern = "git push -f|--force"
//! tier = "high"
//! reason = "force push rewrites the remote branch"
//! facts = "push"                # optional: worktree | push | branch | stash
//!
//! [[rules]]
//! pattern = "rm -r|-R|--recursive"
//! tier = "high"
//! reason = "recursive delete"
//! allow-args = ["target", "node_modules", "/tmp/*"]   # optional
//!
//! [[rules]]
//! pattern = "psql|mysql '=*drop table*|<*drop table*'"
//! tier = "critical"
//! reason = "drops a table"
//! ignore-case = true            # optional
//!
//! [[rules]]
//! pattern = "bash|sh|zsh !-c"
//! tier = "high"
//! reason = "an interactive root shell"
//! via = ["sudo", "doas"]        # optional
//! ```
//!
//! A rule matches a simple command after normalization: wrappers (`sudo`,
//! `env`, `xargs`, `timeout`, ...) are peeled off, `VAR=value` assignments
//! and redirections are not arguments, and for git the global options
//! (`-C`, `-c`, `--git-dir`, ...) are removed and aliases expanded, so
//! `argv[1]` is the subcommand.
//!
//! `pattern` is split into words like a shell would (quote a word that holds
//! spaces). The first word is the **program**: a glob matched against the
//! basename of `argv[0]` (`rm` matches `/bin/rm`; `mkfs*` matches
//! `mkfs.ext4`; `*` matches any program). Every other word is one
//! condition, and all must hold:
//!
//! | word | holds when |
//! | --- | --- |
//! | `-f` | the short flag `f` is given, alone or combined (`-fdx`) |
//! | `-fx` | all of the short flags `f` and `x` are given |
//! | `--force` | the long option is given, bare or with a value (`--force-with-lease=main:abc` matches `--force-with-lease`); an unambiguous prefix on the command line (`--forc`) counts, as git and getopt accept it |
//! | `--prune=now` | the long option is given with a value matching the glob |
//! | `--` | the end-of-options marker `--` is given |
//! | `GLOB` | a positional argument matches; positional words match in order, each after the previous one, but need not be adjacent (`kubectl delete` matches `kubectl -n prod delete pod x`) |
//! | `=GLOB` | any argument word matches exactly, option or not (`find =-delete`, `terraform =-destroy`) |
//! | `<GLOB` | the data on stdin (a heredoc, a here-string, or `echo ... \|`) matches |
//! | `>GLOB` | an output redirection target (`>`, `>>`, `&>`) matches |
//!
//! - `a|b|c` inside one word: any alternative (`-r|-R|--recursive`,
//!   `delete|remove`). Positional globs cannot be mixed with the other kinds
//!   in one word.
//! - `!word`: the word must not hold (`!-n|--dry-run`: neither is given;
//!   `!of=/dev/null`: no positional argument is `of=/dev/null`).
//! - Positional arguments are the words that do not start with `-`, plus
//!   every word after `--`; an option's separate value (`-n prod`) counts as
//!   positional, which is why positional words need not be adjacent.
//! - Globs are [`globset`] globs on the whole word: `*` matches any text
//!   including `/`, `?` one character, `[abc]` a class (`[*]` a literal
//!   `*`, `[-]x` a word starting with `-`), `{a,b}` alternatives. Variables
//!   are not expanded, so `$HOME` matches the text `$HOME`.
//!
//! Optional fields: `ignore-case = true` makes positional, `=`, `<` and `>`
//! globs ignore case and treat any run of whitespace as one space (for SQL);
//! `allow-args = [globs]` turns the rule off when every positional argument
//! not consumed by the pattern matches one of the globs (never when
//! `xargs` supplies arguments); `via = [globs]` requires one of these
//! wrappers; `facts` names what the adapter should measure before settling
//! (see [`FactsKind`]): the match then carries the pieces it needs
//! ([`Facts`]). Tiers of facts-dependent rules are the tier before facts.
//!
//! Besides the rules, [`classify`] applies two fixed checks (SPEC 2.4, agent
//! door issue item 7): a command that skips vouch's hooks (`--no-verify`,
//! `git commit -n`, `-c core.hooksPath=...` or `GIT_CONFIG_*` carrying it) is
//! a bypass attempt: critical when the command is otherwise at least
//! standard, high for a plain `git push`, standard otherwise; a setting
//! that changes which hooks run (`-c core.hooksPath=...`, `hook.*`,
//! `core.fsmonitor`, an include), or `GIT_CONFIG_*` variables injecting
//! one into any program, is critical whatever the command (issue 37). A command line
//! that sets a `VOUCH_*` variable other than `VOUCH_VERIFY`, or a git command
//! given `HOME`, `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `XDG_STATE_HOME` or a
//! `GIT_CONFIG*` variable (inline or exported earlier in the line), turns
//! the guard down: critical (issue 12). A command line vouch cannot read
//! completely ([`ParseProblem`]) is at least high. A git command that
//! writes another repository (`--git-dir=../remote.git`, `GIT_DIR=`) is
//! high, and so is one whose arguments come from stdin or a file at run
//! time.
//!
//! What is only known when the line runs is judged at its worst, never as
//! harmless (issue 26 item 10): a command whose operands come at run time
//! (`xargs`, `xargs -a FILE`, `parallel :::: FILE`) also matches the rules
//! those operands could complete, a program named at run time (`$cmd push
//! -f origin main`, `$(echo g)it clean -fdx`) matches the rules of any
//! program its arguments fit, and where facts would have to measure a name
//! only known at run time (`git branch -D "$b"`, `xargs git branch -D`),
//! they are not measured: the rule's tier stands, critical where facts
//! could have shown lost commits (branch and push facts).
//!
//! Facts describe the repository before the line runs: a match after a
//! command that may change the repository (a git command that is not
//! read-only, an unknown program, a redirection into the work tree) is
//! marked [`Match::after_change`], and the adapter must not let facts lower
//! it (SPEC 2.4).

mod checks;
mod effects;
mod facts;
mod lex;
pub mod parse;
pub mod readonly;
pub mod rules;

use std::collections::HashSet;
use std::path::PathBuf;

pub use crate::classify::config::rule::{FactsKind, RuleError, RuleSpec};
pub use facts::Facts;
pub use parse::{
    GitCall, MAX_DEPTH, ParseProblem, Parsed, ScriptReader, SimpleCommand, no_scripts, parse,
    parse_with,
};
pub use rules::Rules;

use rules::{Matched, Unknown};

use crate::classify::vocab::Tier;

/// The verdict on a whole command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Classification {
    /// The highest tier of any match or problem.
    pub tier: Tier,
    /// One line per match or problem, for people and the verifier.
    pub reasons: Vec<String>,
    /// Every rule that matched a simple command, in command order.
    pub matches: Vec<Match>,
    /// What could not be read (each makes the tier at least high).
    pub problems: Vec<ParseProblem>,
    /// What running the line means for its snapshot, read from the same
    /// parse.
    pub runs: readonly::Runs,
}

/// One rule matching one simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The normalized command (argv, assignments, wrappers, git options).
    pub command: SimpleCommand,
    /// The rule's tier.
    pub tier: Tier,
    /// The rule's reason.
    pub reason: String,
    /// What to measure, with the pieces of the command it concerns.
    pub facts: Option<Facts>,
    /// The directory the command runs in (`cd`, `git -C`), relative to the
    /// caller's.
    pub dir: Option<PathBuf>,
    /// True when an earlier command of the line may change the repository
    /// (a git command that is not read-only, an unknown program, a
    /// redirection into the work tree): facts measured before the line runs
    /// describe another state, so they must not lower this match's tier.
    pub after_change: bool,
}

/// Parses `cmd` and classifies every simple command it would run against
/// `rules`; `aliases` looks up git aliases (`alias.<name>`).
pub fn classify(
    cmd: &str,
    rules: &Rules,
    aliases: &dyn Fn(&str) -> Option<String>,
) -> Classification {
    classify_with(cmd, rules, aliases, &no_scripts)
}

/// [`classify`], with `scripts` reading the script files the line runs
/// (`sh scripts/clean.sh`, `./x.sh`), which are judged by their content.
pub fn classify_with(
    cmd: &str,
    rules: &Rules,
    aliases: &dyn Fn(&str) -> Option<String>,
    scripts: ScriptReader<'_>,
) -> Classification {
    let parsed = parse_with(cmd, aliases, scripts);
    let runs = readonly::runs_of(cmd, &parsed);
    // Text the walker did not reach (nested too deep, or past its budget)
    // is read flat: every run of words between the shell's operators is
    // taken as a command that may run, after anything, and judged by the
    // same rules (issue 26 item 10: what cannot be resolved is judged at
    // least as strictly as the most dangerous command word in it).
    let unreached = parsed
        .problems
        .iter()
        .any(|p| matches!(p, ParseProblem::TooDeep { .. } | ParseProblem::TooComplex));
    let flat: Vec<SimpleCommand> = if unreached {
        // A set, not a scan per piece: a line past the budget can hold
        // hundreds of thousands of both.
        let walked: HashSet<&[String]> = parsed.commands.iter().map(|c| &c.argv[..]).collect();
        flat_commands(cmd, aliases)
            .into_iter()
            .filter(|f| !walked.contains(&f.argv[..]))
            .collect()
    } else {
        Vec::new()
    };
    let vouch_env = parsed.commands.iter().find_map(vouch_variable);
    // Config variables exported by an earlier command of the line.
    let mut exported: Vec<String> = Vec::new();
    let mut out = Classification::default();
    let mut changed = false;
    let mut fetched = false;
    let walked = parsed.commands.iter().map(|c| (c, false));
    for (command, flat) in walked.chain(flat.iter().map(|c| (c, true))) {
        let after_change = changed || flat;
        let after_fetch = fetched;
        // A function's body where it is defined runs nothing yet: its
        // call, read again, does.
        if !command.in_definition {
            changed |= effects::may_change(command);
            fetched |= effects::fetches(command);
        }
        let found = |tier, reason, facts, after_change| Match {
            command: command.clone(),
            tier,
            reason,
            facts,
            dir: command.working_dir(),
            after_change,
        };
        let mut best = Tier::None;
        // A piece read flat may hold its command anywhere in its words
        // (`sh -c sh -c find . -exec git clean -fdx`): as for a program
        // named at run time, any program its words fit.
        let unknown = Unknown {
            program: flat || program_named_at_run_time(command),
            operands: parse::args_unknown(command),
        };
        for (spec, supposed) in matching(rules, command, unknown) {
            let facts = spec.facts.and_then(|kind| facts::facts(kind, command));
            // Facts measured on names only known at run time describe
            // something else: not measured, the worst case stands.
            let unseen = supposed.is_some()
                || unknown.operands
                || facts.as_ref().is_some_and(Facts::names_unknown);
            let (tier, reason, facts) = match supposed {
                Some(note) => (worst_tier(spec), format!("{} ({note})", spec.reason), None),
                None if unseen && spec.facts.is_some() => (
                    worst_tier(spec),
                    format!(
                        "{} (what it names is only known when it runs: judged at its worst)",
                        spec.reason
                    ),
                    None,
                ),
                None => (spec.tier, spec.reason.to_owned(), facts),
            };
            best = best.max(tier);
            // A fetch moves remote-tracking refs: a later command that names
            // one (`git reset --hard origin/main`) would see another commit.
            let names_remote = facts.as_ref().is_some_and(effects::names_remote_ref);
            out.matches.push(found(
                tier,
                reason,
                facts,
                after_change || (after_fetch && names_remote),
            ));
        }
        let mut turned_down: Vec<String> = vouch_env.iter().cloned().collect();
        if command.program() == "git" {
            let inline = command.env.iter().map(|(n, _)| n);
            for name in inline.chain(&exported) {
                if is_config_variable(name) && !turned_down.contains(name) {
                    turned_down.push(name.clone());
                }
            }
        }
        exported.extend(exported_config_variables(command));
        if !turned_down.is_empty() {
            let names: Vec<String> = turned_down.iter().map(|n| format!("`{n}`")).collect();
            out.matches.push(found(
                Tier::Critical,
                format!(
                    "sets {}: changes the config, hooks or state vouch and git read, which turns the guard down",
                    names.join(", ")
                ),
                None,
                after_change,
            ));
        }
        if let Some(names) = injected_hook_config(command) {
            out.matches.push(found(
                Tier::Critical,
                format!(
                    "sets {names} carrying a setting that changes which hooks run: every git it starts reads it, which turns the guard down"
                ),
                None,
                after_change,
            ));
        }
        for (tier, reason) in checks::fixed(command) {
            best = best.max(tier);
            out.matches.push(found(tier, reason, None, after_change));
        }
        let (markers, hooks_changed) = hook_skips(command);
        if markers.is_empty() {
            continue;
        }
        // Which hooks run, changed for this command (issue 37 item 4):
        // critical whatever the command.
        if !hooks_changed.is_empty() {
            out.matches.push(found(
                Tier::Critical,
                format!(
                    "{} changes which hooks run for this command, so vouch's hooks may not run: turns the guard down",
                    hooks_changed.join(", ")
                ),
                None,
                after_change,
            ));
        }
        let markers = markers.join(", ");
        let is_push =
            command.program() == "git" && command.argv.get(1).is_some_and(|s| s == "push");
        let (tier, reason) = if best >= Tier::Standard {
            (
                Tier::Critical,
                format!("bypass attempt: {markers} on a destructive command"),
            )
        } else if is_push {
            (
                Tier::High,
                format!("{markers} skips the pre-push hook, so vouch cannot check the push"),
            )
        } else {
            (Tier::Standard, format!("{markers} skips vouch's checks"))
        };
        out.matches.push(found(tier, reason, None, after_change));
    }
    for m in &out.matches {
        out.tier = out.tier.max(m.tier);
        let line = format!("{}: `{}`", m.reason, shell_words::join(&m.command.argv));
        if !out.reasons.contains(&line) {
            out.reasons.push(line);
        }
    }
    for problem in &parsed.problems {
        out.tier = out.tier.max(problem.tier());
        out.reasons
            .push(format!("cannot read the whole command: {problem}"));
    }
    out.problems = parsed.problems;
    out.runs = runs;
    out
}

/// The rules `command` matches, each with `None`; and when `unknown` says
/// part of it is only known at run time, the most dangerous rule it could
/// match once known, if worse than those, with a note saying why it is
/// supposed.
fn matching<'r>(
    rules: &'r Rules,
    command: &SimpleCommand,
    unknown: Unknown,
) -> Vec<(Matched<'r>, Option<&'static str>)> {
    let mut specs: Vec<(Matched<'r>, Option<&'static str>)> = rules
        .matching(command)
        .into_iter()
        .map(|m| (m, None))
        .collect();
    if unknown == Unknown::default() {
        return specs;
    }
    let matched = specs.iter().map(|(m, _)| worst_tier(*m)).max();
    let mut worst: Option<Matched<'r>> = None;
    for m in rules.matching_unknown(command, unknown) {
        if specs.iter().any(|(s, _)| *s == m) {
            continue;
        }
        // The worst, and of those equally bad, the most specific rule.
        if worst.is_none_or(|w| (worst_tier(m), m.tier) > (worst_tier(w), w.tier)) {
            worst = Some(m);
        }
    }
    if let Some(m) = worst
        && matched.is_none_or(|t| worst_tier(m) > t)
    {
        let note = if unknown.program && program_named_at_run_time(command) {
            "the program is only known when it runs: judged as the most dangerous one these arguments fit"
        } else if unknown.program {
            "read flat, past the walker's reach: judged as the most dangerous command these words fit"
        } else {
            "its arguments are only known when it runs: judged as the most dangerous they could make it"
        };
        specs.push((m, Some(note)));
    }
    specs
}

/// True when the program of `command` is only known when it runs (`$cmd`,
/// `"$@"`, `$(echo g)it`).
fn program_named_at_run_time(command: &SimpleCommand) -> bool {
    command.argv.first().is_some_and(|p| p.contains(['$', '`']))
}

/// The tier of a match whose facts cannot be measured: its rule's, or
/// critical when facts could have raised it (lost commits).
fn worst_tier(m: Matched<'_>) -> Tier {
    if m.facts.is_some_and(FactsKind::may_raise) {
        Tier::Critical
    } else {
        m.tier
    }
}

/// The commands of `cmd` read without nesting: the text between the
/// shell's operators (`$(`, backquotes, `;`, `|`, `&`, parentheses, braces,
/// redirections), quotes and escapes dropped, each read as one simple
/// command. Linear in the text: no piece holds anything that nests.
fn flat_commands(cmd: &str, aliases: &dyn Fn(&str) -> Option<String>) -> Vec<SimpleCommand> {
    cmd.split(|c: char| "$`;|&(){}<>\n".contains(c))
        .map(|piece| piece.replace(['\'', '"', '\\'], " "))
        .filter(|piece| !piece.trim().is_empty())
        .flat_map(|piece| parse(&piece, aliases).commands)
        .collect()
}

/// The ways a git command skips vouch's hooks, described; and of those,
/// the settings that change which hooks run (`-c core.hooksPath=...`,
/// `hook.*`, `core.fsmonitor`, an include).
fn hook_skips(command: &SimpleCommand) -> (Vec<String>, Vec<String>) {
    let Some(git) = &command.git else {
        return (Vec::new(), Vec::new());
    };
    let mut markers = Vec::new();
    let sub = command.argv.get(1).map_or("", String::as_str);
    let mut no_verify = false;
    for arg in command.argv.iter().skip(2) {
        if arg == "--" {
            break;
        }
        if arg.len() >= "--no-v".len() && "--no-verify".starts_with(arg.as_str()) {
            no_verify = true;
        }
        if sub == "commit" && arg.starts_with('-') && !arg.starts_with("--") && arg.contains('n') {
            no_verify = true;
        }
    }
    if no_verify {
        markers.push("`--no-verify`".to_owned());
    }
    let mut changed = Vec::new();
    if let Some(path) = git.setting("core.hooksPath") {
        changed.push(format!("`core.hooksPath={path}`"));
    }
    // git 2.54+: `hook.<event>.enabled` turns off every hook of an event,
    // `hook.vouch-<hook>.enabled` vouch's config-defined one; `hook.*`
    // defines others; an include can set any of them.
    for (key, value) in &git.config {
        let key = key.to_ascii_lowercase();
        if key.starts_with("hook.")
            || key == "core.fsmonitor"
            || key == "include.path"
            || (key.starts_with("includeif.")
                && key.rsplit_once('.').is_some_and(|(_, last)| last == "path"))
        {
            changed.push(format!("`{key}={value}`"));
        }
    }
    markers.extend(changed.iter().cloned());
    (markers, changed)
}

/// True for a config key or text that changes which hooks run.
fn changes_hooks(text: &str) -> bool {
    let text = text.to_ascii_lowercase();
    [
        "hookspath",
        "hook.",
        "fsmonitor",
        "include.path",
        "includeif.",
    ]
    .iter()
    .any(|k| text.contains(k))
}

/// The `GIT_CONFIG_*` variables a command sets (inline, through `env`, or
/// exported) that inject a setting changing which hooks run, for any
/// program: every git it starts reads them (issue 37 item 4).
fn injected_hook_config(command: &SimpleCommand) -> Option<String> {
    let exported = matches!(
        command.program(),
        "export" | "declare" | "typeset" | "readonly" | "local" | "set"
    );
    let mut pairs: Vec<(String, String)> = command.env.clone();
    if exported {
        pairs.extend(
            command.argv[1..]
                .iter()
                .filter_map(|a| a.split_once('='))
                .map(|(n, v)| (n.to_owned(), v.to_owned())),
        );
    }
    let names: Vec<String> = pairs
        .iter()
        .filter(|(name, value)| {
            (name == "GIT_CONFIG_PARAMETERS" || name.starts_with("GIT_CONFIG_KEY_"))
                && changes_hooks(value)
        })
        .map(|(name, _)| format!("`{name}`"))
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// True for a variable that changes which config, hooks or state git and
/// vouch read when set on a git command: `HOME` (`~/.gitconfig`, vouch's
/// directories), `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `XDG_STATE_HOME` and
/// git's `GIT_CONFIG*` (`GIT_CONFIG_GLOBAL`, `GIT_CONFIG_PARAMETERS`,
/// `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, ...).
fn is_config_variable(name: &str) -> bool {
    matches!(
        name,
        "HOME" | "XDG_CONFIG_HOME" | "XDG_DATA_HOME" | "XDG_STATE_HOME"
    ) || name.starts_with("GIT_CONFIG")
}

/// The config variables (see [`is_config_variable`]) a command exports to
/// the commands after it (`export GIT_CONFIG_GLOBAL=/dev/null`).
fn exported_config_variables(command: &SimpleCommand) -> Vec<String> {
    if !matches!(
        command.program(),
        "export" | "declare" | "typeset" | "readonly" | "set"
    ) {
        return Vec::new();
    }
    command.argv[1..]
        .iter()
        .filter_map(|arg| arg.split_once('=').map(|(n, _)| n))
        .filter(|n| is_config_variable(n))
        .map(str::to_owned)
        .collect()
}

/// The `VOUCH_*` variable a command sets, if any (`VOUCH_VERIFY` only asks
/// for more checking and does not count).
fn vouch_variable(command: &SimpleCommand) -> Option<String> {
    let is_bypass = |name: &str| name.starts_with("VOUCH_") && name != "VOUCH_VERIFY";
    if let Some((name, _)) = command.env.iter().find(|(n, _)| is_bypass(n)) {
        return Some(name.clone());
    }
    if matches!(
        command.program(),
        "export" | "declare" | "typeset" | "readonly" | "local" | "set"
    ) {
        for arg in &command.argv[1..] {
            let name = arg.split_once('=').map_or(arg.as_str(), |(n, _)| n);
            if is_bypass(name) {
                return Some(name.to_owned());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
