//! PURE: turns what git hands a hook (argv, stdin) into typed data.
//!
//! Nothing here touches git2, the file system or the terminal. The shape of
//! git's input is documented, observed, in `research/git-semantics.md`
//! section 1: `<local ref> SP <local oid> SP <remote ref> SP <remote oid> LF`,
//! the local ref may hold spaces (so lines split from the right), the zero
//! oid is 40 or 64 characters, and no line says whether the push is forced.

use std::fmt;

use crate::input::git_command::{GitCommand, is_zero_oid, valid_oid};

/// One line of pre-push stdin.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushUpdate {
    /// The local ref or expression (`refs/heads/main`, `HEAD~1`, `(delete)`).
    pub local_ref: String,
    /// The object to be sent; all zeros for a deletion.
    pub local_oid: String,
    /// The ref on the remote.
    pub remote_ref: String,
    /// The remote's current value as advertised by the remote; all zeros when the ref is new.
    pub remote_oid: String,
    /// True when a ref name was not UTF-8 and is shown with replacement characters.
    pub lossy_name: bool,
}

impl PushUpdate {
    /// A deletion of the remote ref.
    pub fn is_delete(&self) -> bool {
        is_zero_oid(&self.local_oid)
    }

    /// A creation of a new remote ref.
    pub fn is_create(&self) -> bool {
        !self.is_delete() && is_zero_oid(&self.remote_oid)
    }

    /// The line as git wrote it (with any non-UTF-8 bytes replaced).
    pub fn line(&self) -> String {
        format!(
            "{} {} {} {}",
            self.local_ref, self.local_oid, self.remote_ref, self.remote_oid
        )
    }
}

/// Why a pre-push line could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub problem: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pre-push input line {}: {}", self.line, self.problem)
    }
}

/// Parses all of pre-push stdin. Empty input (git already rejected every
/// ref, or nothing to push) gives no updates.
/// The non-empty lines git passes a hook on stdin, numbered from 1, as
/// text with whether a ref name had to be read lossily (not UTF-8).
pub(crate) fn input_lines(input: &[u8]) -> impl Iterator<Item = (usize, String, bool)> + '_ {
    input
        .split(|b| *b == b'\n')
        .enumerate()
        .filter_map(|(index, raw)| {
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            if raw.is_empty() {
                return None;
            }
            let (text, lossy) = match std::str::from_utf8(raw) {
                Ok(s) => (s.to_owned(), false),
                Err(_) => (String::from_utf8_lossy(raw).into_owned(), true),
            };
            Some((index + 1, text, lossy))
        })
}

pub fn parse_pre_push(input: &[u8]) -> Result<Vec<PushUpdate>, ParseError> {
    crate::platform::counts::add(crate::platform::counts::Count::RefLines);
    let mut updates = Vec::new();
    for (line_no, text, lossy) in input_lines(input) {
        // Split from the right: the local ref is free text (`main@{1 minute ago}`).
        let mut parts = text.rsplitn(4, ' ');
        let (Some(remote_oid), Some(remote_ref), Some(local_oid), Some(local_ref)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(ParseError {
                line: line_no,
                problem: format!(
                    "expected `<local ref> <local oid> <remote ref> <remote oid>`, got `{}`",
                    crate::input::text::one_line(&text, 120)
                ),
            });
        };
        for (what, oid) in [("local", local_oid), ("remote", remote_oid)] {
            if !valid_oid(oid) {
                return Err(ParseError {
                    line: line_no,
                    problem: format!(
                        "the {what} object id `{}` is not 40 or 64 hex digits",
                        crate::input::text::one_line(oid, 80)
                    ),
                });
            }
        }
        if local_oid.len() != remote_oid.len() {
            return Err(ParseError {
                line: line_no,
                problem: "the two object ids differ in length (SHA-1 and SHA-256 mixed)".into(),
            });
        }
        if remote_ref.is_empty() || local_ref.is_empty() {
            return Err(ParseError {
                line: line_no,
                problem: "a ref name is empty".into(),
            });
        }
        updates.push(PushUpdate {
            local_ref: local_ref.to_owned(),
            local_oid: local_oid.to_ascii_lowercase(),
            remote_ref: remote_ref.to_owned(),
            remote_oid: remote_oid.to_ascii_lowercase(),
            lossy_name: lossy,
        });
    }
    Ok(updates)
}

/// What the `git push` command line says about forcing, read from the parent
/// process. It is a hint: aliases and wrappers hide the real flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForceHint {
    /// A force flag, a `+refspec` or `--mirror` is on the command line.
    Forced,
    /// A plain `git push` with no force of any kind.
    NotForced,
    /// The command line could not be read or is not a plain `git push`.
    #[default]
    Unknown,
}

/// What vouch reads from the parent `git push` command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushArgs {
    /// Whether the push is forced.
    pub force: ForceHint,
    /// `--mirror` was given.
    pub mirror: bool,
    /// `--dry-run` or `-n` was given ([`GitCommand::is_dry_run`]): git runs
    /// `pre-push` on a dry run too, and does not tell the hook.
    pub dry_run: bool,
}

/// Reads the argv of the `git push` process that runs the hook (or of a
/// `git push` the agent door judges).
pub fn parse_push_argv(argv: &[String]) -> PushArgs {
    let Some(git) = GitCommand::parse(argv).filter(|g| g.sub == "push") else {
        return PushArgs::default();
    };
    let mut forced = false;
    let mut mirror = false;
    // `git -c remote.origin.push=+refs/heads/*:... push` and `-c remote.origin.mirror=true`.
    for (key, value) in &git.globals.config {
        let key = key.to_ascii_lowercase();
        let (section, name) = (
            key.split('.').next().unwrap_or(""),
            key.rsplit('.').next().unwrap_or(""),
        );
        if section != "remote" {
            continue;
        }
        if name == "push" && value.starts_with('+') {
            forced = true;
        }
        if name == "mirror" && matches!(value.as_str(), "true" | "1" | "yes" | "on") {
            mirror = true;
            forced = true;
        }
    }
    let mut positional = 0usize;
    let mut options_done = false;
    for arg in &git.args {
        if !options_done && arg == "--" {
            options_done = true;
            continue;
        }
        if !options_done && arg.starts_with("--") {
            let name = arg.split('=').next().unwrap_or(arg);
            match name {
                "--force" | "--force-with-lease" | "--force-if-includes" => forced = true,
                "--mirror" => {
                    mirror = true;
                    forced = true;
                }
                _ => {}
            }
        } else if !options_done && arg.starts_with('-') && arg.len() > 1 {
            // Short options may be bundled (`-fu`); `-o` and `-C` take a value
            // but a value never matters here.
            if arg[1..].contains('f') {
                forced = true;
            }
        } else {
            positional += 1;
            // The first positional is the repository; the rest are refspecs.
            if positional > 1 && arg.starts_with('+') {
                forced = true;
            }
        }
    }
    let dry_run = git.is_dry_run();
    PushArgs {
        force: if forced {
            ForceHint::Forced
        } else {
            ForceHint::NotForced
        },
        mirror,
        dry_run,
    }
}

/// The force hint once the remote's config is known: a mirror remote and a
/// `+` in `remote.<name>.push` force every push.
pub fn effective_force(hint: ForceHint, mirror: bool, configured_push: &[String]) -> ForceHint {
    if hint == ForceHint::NotForced
        && (mirror || configured_push.iter().any(|s| s.starts_with('+')))
    {
        ForceHint::Forced
    } else {
        hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";
    const Z: &str = "0000000000000000000000000000000000000000";

    #[test]
    fn parses_update_create_and_delete_lines() {
        let input = format!(
            "refs/heads/main {A} refs/heads/main {B}\nrefs/heads/new {A} refs/heads/new {Z}\n(delete) {Z} refs/heads/old {B}\n"
        );
        let updates = parse_pre_push(input.as_bytes()).unwrap();
        assert_eq!(updates.len(), 3);
        assert!(!updates[0].is_create() && !updates[0].is_delete());
        assert!(updates[1].is_create());
        assert!(updates[2].is_delete());
        assert_eq!(updates[2].local_ref, "(delete)");
    }

    #[test]
    fn local_ref_with_spaces_is_split_from_the_right() {
        let input = format!("main@{{1 minute ago}} {A} refs/heads/space-test {Z}\n");
        let updates = parse_pre_push(input.as_bytes()).unwrap();
        assert_eq!(updates[0].local_ref, "main@{1 minute ago}");
        assert_eq!(updates[0].remote_ref, "refs/heads/space-test");
    }

    #[test]
    fn sha256_zero_oid_is_a_deletion() {
        let z64 = "0".repeat(64);
        let b64 = "ab".repeat(32);
        let input = format!("(delete) {z64} refs/heads/x {b64}\n");
        let updates = parse_pre_push(input.as_bytes()).unwrap();
        assert!(updates[0].is_delete());
    }

    /// A dry run is not an operation (issue 35 item 3): read as git reads
    /// its options, and never where the `-n` is an option's value, after
    /// `--`, or of a command whose `-n` means something else.
    #[test]
    fn dry_runs_are_read_as_git_reads_them() {
        let dry = |line: &str| {
            let words: Vec<String> = shell_words::split(line).unwrap();
            GitCommand::parse(&words).unwrap().is_dry_run()
        };
        for yes in [
            "git push --dry-run --force origin HEAD~4:main",
            "git push -n -f origin :main",
            "git push -fn origin :main",
            "git push origin main -n",
            "git push --dry origin main",
            "git push -o ci.skip -n origin main",
            "git push --push-option=x -n origin main",
            "git -C sub push --no-dry-run --dry-run origin main",
            "git clean -n",
            "git clean -nfd",
            "git clean --dry-run -fdx",
            "git rm -n f",
            "git rm -rn .",
            "git add -n .",
            "git add --dry-run -A",
            "git mv -n a b",
            "git remote prune -n origin",
            "git worktree prune --dry-run",
            "git reflog expire -n --all",
            "git prune -n",
        ] {
            assert!(dry(yes), "{yes}");
        }
        for no in [
            "git push --force origin main",
            "git push --dry-run --no-dry-run origin main",
            "git push -o -n origin main",
            "git push --push-option -n origin main",
            "git push -on origin main",
            "git push origin -- -n",
            "git clean -fe -n",
            "git clean -f -e -n",
            "git clean -f --exclude -n",
            "git commit -n -m x",
            "git branch -D -n",
            "git fetch -n",
            "git stash drop -n",
            "git reset --hard -n",
            "git reflog show -n 3",
            "git remote -n",
        ] {
            assert!(!dry(no), "{no}");
        }
        assert!(parse_push_argv(&argv("git push -n --force origin main")).dry_run);
        assert!(!parse_push_argv(&argv("git push --force origin main")).dry_run);
    }

    #[test]
    fn empty_input_means_nothing_to_check() {
        assert!(parse_pre_push(b"").unwrap().is_empty());
        assert!(parse_pre_push(b"\n").unwrap().is_empty());
    }

    #[test]
    fn malformed_lines_name_the_line_and_the_problem() {
        let err = parse_pre_push(b"refs/heads/main abc\n").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.problem.contains("expected"), "{err}");

        let input = format!("refs/heads/main {A} refs/heads/main nothex\n");
        let err = parse_pre_push(input.as_bytes()).unwrap_err();
        assert!(err.problem.contains("remote object id"), "{err}");

        let input = format!("refs/heads/main {A} refs/heads/main {}\n", "0".repeat(64));
        let err = parse_pre_push(input.as_bytes()).unwrap_err();
        assert!(err.problem.contains("differ in length"), "{err}");
    }

    #[test]
    fn non_utf8_ref_names_are_kept_lossily_and_marked() {
        let mut input = b"refs/heads/caf\xe9 ".to_vec();
        input.extend_from_slice(format!("{A} refs/heads/caf\u{e9}x {B}\n").as_bytes());
        let updates = parse_pre_push(&input).unwrap();
        assert!(updates[0].lossy_name);
        assert!(updates[0].local_ref.contains('\u{fffd}'));
    }

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn push_argv_hints() {
        assert_eq!(
            parse_push_argv(&argv("git push origin main")).force,
            ForceHint::NotForced
        );
        assert_eq!(
            parse_push_argv(&argv("git push --force origin main")).force,
            ForceHint::Forced
        );
        assert_eq!(
            parse_push_argv(&argv("git push -fu origin main")).force,
            ForceHint::Forced
        );
        assert_eq!(
            parse_push_argv(&argv("git push origin +main")).force,
            ForceHint::Forced
        );
        assert_eq!(
            parse_push_argv(&argv("git push --force-with-lease=main:abc origin main")).force,
            ForceHint::Forced
        );
        let mirror = parse_push_argv(&argv("/usr/bin/git push --mirror origin"));
        assert!(mirror.mirror);
        assert_eq!(mirror.force, ForceHint::Forced);
        assert_eq!(parse_push_argv(&argv("git pf")).force, ForceHint::Unknown);
        assert_eq!(
            parse_push_argv(&argv("sh .git/hooks/pre-push")).force,
            ForceHint::Unknown
        );
        // Options before `push` are git's own.
        assert_eq!(
            parse_push_argv(&argv("git -C dir push origin main")).force,
            ForceHint::NotForced
        );
        let configured = parse_push_argv(&argv("git -c remote.origin.mirror=true push origin"));
        assert!(configured.mirror);
        assert_eq!(
            parse_push_argv(&argv(
                "git -c remote.origin.push=+refs/heads/*:refs/heads/* push"
            ))
            .force,
            ForceHint::Forced
        );
    }
}
