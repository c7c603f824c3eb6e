//! A shell command, assessed before it runs (SPEC 2.4): the agent door's
//! step from its input to the operation, which `git vouch check` runs too.
//!
//! The command is parsed and classified by the pure [`crate::classify::shell`]; then
//! every match that asks for facts is measured in the real repository by
//! the git adapter ([`git::command_facts`]: what `reset --hard` would
//! discard, which commits `branch -D` would orphan, what `push --force`
//! would destroy on the remote), and the pure
//! [`crate::classify::classify_command`] turns those facts into the tier:
//! facts -> tier, once.

use std::path::Path;

use anyhow::{Context, Result};

use crate::classify::config::Config;
use crate::classify::facts::CommandFacts;
use crate::classify::operation::{Assessed, StepFacts};
use crate::classify::shell::{self, Facts, Match, Rules};
use crate::classify::{Assessment, RefRisk, Rule, Tier, classify_command};
use crate::input::text::one_line;
use crate::measure::git::{self, LazyRepo, Repo};
use crate::platform::files::Opened;

/// Classifies `command` as it would run in `cwd` (in `repo`, the
/// repository there, opened only if an alias or a fact needs it), and
/// measures its facts. `before_waiting` runs before the first step that
/// can wait: opening a repository (for an alias or a fact), or asking
/// whether vouch's hooks are reached (the agent door's watchdog starts
/// there).
pub fn assess(
    config: &Config,
    command: &str,
    cwd: &Path,
    repo: &LazyRepo,
    before_waiting: &dyn Fn(),
) -> Result<Assessed> {
    let rules = Rules::with_user(&config.rules).context("the `[[rules]]` in the config")?;
    let script_read = std::cell::Cell::new(false);
    let mut classification = shell::classify_with(
        command,
        &rules,
        &|name| {
            before_waiting();
            repo.get().and_then(|r| r.alias(name))
        },
        &|path, cd| {
            let read = read_script(cwd, path, cd);
            script_read.set(script_read.get() || matches!(read, Ok(Some(_))));
            read
        },
    );
    // An approval binds the git commands of the line as typed: not those
    // of a script it runs, which this parse read too.
    if script_read.get() {
        classification.runs.git = None;
    }
    let mut refs = Vec::new();
    let mut facts = Vec::new();
    // Asked once, and only when a tier depends on it.
    let reached = std::cell::OnceCell::new();
    let hook_judges = || {
        *reached.get_or_init(|| {
            before_waiting();
            crate::install::reach::hook_reached(cwd, crate::install::REF_TX)
        })
    };
    for m in &classification.matches {
        // A dry run is not an operation (issue 35 item 3): nothing is
        // measured, whatever rule it matched.
        if crate::input::git_command::GitCommand::parse(&m.command.argv)
            .is_some_and(|g| g.is_dry_run())
        {
            let step = redact(&one_line(&shell_words::join(&m.command.argv), 200));
            refs.push(RefRisk {
                tier: Tier::None,
                rule: Rule::Command,
                reason: format!("{}: `{step}` (a dry run: it changes nothing)", m.reason),
            });
            continue;
        }
        let measured = m.facts.as_ref().map(|f| {
            before_waiting();
            measure(f, m, cwd, repo)
        });
        let (tier, note) = classify_command(
            m.tier,
            m.after_change,
            measured.as_ref(),
            &config.policy,
            &hook_judges,
        );
        let step = redact(&one_line(&shell_words::join(&m.command.argv), 200));
        let mut reason = format!("{}: `{step}`", m.reason);
        if let Some(note) = &note {
            reason.push_str(&format!(" ({note})"));
        }
        if let Some(measured) = measured {
            facts.push(StepFacts {
                step,
                measured: Some(measured),
                note,
            });
        }
        refs.push(RefRisk {
            tier,
            rule: Rule::Command,
            reason,
        });
    }
    for problem in &classification.problems {
        refs.push(RefRisk {
            tier: problem.tier(),
            rule: Rule::Command,
            reason: format!("cannot read the whole command: {problem}"),
        });
    }
    let tier = refs.iter().map(|r| r.tier).max().unwrap_or(Tier::None);
    Ok(Assessed {
        command: redact(command),
        cwd: cwd.to_path_buf(),
        assessment: Assessment {
            tier,
            refs,
            push: Vec::new(),
        },
        facts,
        root: repo.root(),
        branch: repo.opened().and_then(Repo::current_branch),
        runs: classification.runs,
    })
}

/// The largest script file the agent door reads to judge it.
const SCRIPT_LIMIT: u64 = 64 * 1024;

/// Reads a script the command line runs (`sh scripts/clean.sh`, `./x.sh`),
/// relative to `cwd` and the `cd` targets before it: `Ok(None)` when there
/// is none or it is a binary, `Err` with the reason when it cannot be read.
fn read_script(cwd: &Path, path: &str, cd: &[String]) -> Result<Option<String>, String> {
    let mut file = cwd.to_path_buf();
    for dir in cd {
        file.push(dir);
    }
    file.push(path);
    let (opened, len) = match crate::platform::files::open_no_wait(&file) {
        Ok(Opened::File { file, len }) => (file, len),
        Ok(Opened::Directory) => return Ok(None),
        // A named pipe or a device: what it holds is only known when it
        // runs, and reading it could wait forever.
        Ok(Opened::Other) => {
            return Err("it is not a regular file (a named pipe or a device)".into());
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    if len > SCRIPT_LIMIT {
        return Err(format!(
            "it is {len} bytes, more than the {SCRIPT_LIMIT} vouch reads"
        ));
    }
    // A file that grew since it was opened is not judged by its first part.
    let bytes = crate::platform::files::read_capped_from(opened, SCRIPT_LIMIT)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("it grew past the {SCRIPT_LIMIT} bytes vouch reads"))?;
    if bytes.iter().take(1024).any(|b| *b == 0) {
        return Ok(None);
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| "it is not UTF-8 text".to_owned())
}

/// A command as it may be shown and logged: credentials in URLs and tokens
/// that look like keys are masked (`psql postgres://admin:pw@db ...`).
fn redact(text: &str) -> String {
    crate::input::text::redact_secrets(&crate::input::text::redact_text(text))
}

/// The facts one match asks for, measured in the repository where its
/// command runs (`cd`, `git -C`).
fn measure(facts: &Facts, m: &Match, cwd: &Path, repo: &LazyRepo) -> CommandFacts {
    let here;
    let repo = match &m.dir {
        Some(dir) => {
            here = git::repo_at(&cwd.join(dir));
            here.as_ref()
        }
        None => repo.get(),
    };
    git::command_facts(repo, facts, &m.command)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an approval binds is read from the parse the line was judged
    /// with, unless that parse read a script the line runs: its git
    /// commands are the script's, not the line's as typed.
    #[test]
    fn the_git_commands_of_a_line_come_from_its_parse_unless_it_read_a_script() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.sh"), "git reset --hard\n").unwrap();
        let repo = LazyRepo::new(dir.path());
        let config = Config::default();
        let plain = assess(
            &config,
            "git status && git log -1",
            dir.path(),
            &repo,
            &|| {},
        )
        .unwrap();
        assert_eq!(
            plain.runs.git,
            Some(vec![
                vec!["status".to_owned()],
                vec!["log".to_owned(), "-1".to_owned()]
            ])
        );
        let script = assess(&config, "sh x.sh && git status", dir.path(), &repo, &|| {}).unwrap();
        assert!(
            script
                .assessment
                .refs
                .iter()
                .any(|r| r.reason.contains("reset")),
            "the script was read: {:?}",
            script.assessment.refs
        );
        assert_eq!(script.runs.git, None);
    }
}
