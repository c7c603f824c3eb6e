//! PURE: what the adapter measures before a command's tier is settled
//! ([`Facts`]): the pieces of a git command a rule's `facts` names (the
//! revision and paths of a `reset --hard`, the remote and refspecs of a
//! push, the branches, tags or stash entries it names), read from the
//! parsed command.

use super::parse::SimpleCommand;
use crate::classify::config::rule::FactsKind;

/// The facts hint of a match, with the pieces of the command the adapter needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Facts {
    /// Measure uncommitted changes: `target` is the commit or branch named
    /// (`reset --hard <target>`, `checkout <target> -- ...`), `paths` the
    /// paths named (`checkout -- <paths>`, `restore <paths>`, `clean <paths>`).
    Worktree {
        /// The revision named, if any.
        target: Option<String>,
        /// The paths named, if any (none means the whole tree).
        paths: Vec<String>,
    },
    /// Measure the push: the remote (name or URL) and the refspecs.
    Push {
        /// The remote, if named.
        remote: Option<String>,
        /// The refspecs, as written (`+main`, `:old`, `HEAD:main`).
        refspecs: Vec<String>,
    },
    /// Measure the branches: those named (for `branch -f`, the branch and
    /// then its new start point).
    Branch {
        /// The branch names.
        names: Vec<String>,
    },
    /// Measure the tags named: which exist before the command.
    Tag {
        /// The tag names.
        names: Vec<String>,
    },
    /// Measure the stash: the entries named (none means the newest, or all
    /// for `clear`).
    Stash {
        /// The entries (`stash@{1}`).
        entries: Vec<String>,
    },
}

impl Facts {
    /// True when a piece the adapter would measure is only known when the
    /// command runs (`git branch -D "$b"`, `git push origin $(cat ref)`):
    /// measuring the text as written would describe something else.
    pub fn names_unknown(&self) -> bool {
        let unknown = |s: &String| s.contains(['$', '`']);
        match self {
            Self::Worktree { target, paths } => {
                target.as_ref().is_some_and(unknown) || paths.iter().any(unknown)
            }
            Self::Push { remote, refspecs } => {
                remote.as_ref().is_some_and(unknown) || refspecs.iter().any(unknown)
            }
            Self::Branch { names } | Self::Tag { names } => names.iter().any(unknown),
            Self::Stash { entries } => entries.iter().any(unknown),
        }
    }
}

/// The pieces of a git command the adapter needs for `kind`; `None` when
/// the command is not git.
pub(crate) fn facts(kind: FactsKind, command: &SimpleCommand) -> Option<Facts> {
    if command.program() != "git" || command.argv.len() < 2 {
        return None;
    }
    let sub = command.argv[1].as_str();
    let args = &command.argv[2..];
    let value_options: &[&str] = match sub {
        "push" => &["-o", "--push-option", "--repo", "--receive-pack", "--exec"],
        "restore" => &["-s", "--source"],
        "checkout" | "switch" => &["-b", "-B", "-c", "-C", "--orphan"],
        "clean" => &["-e", "--exclude"],
        "branch" => &["-u", "--set-upstream-to"],
        "stash" => &["-m", "--message"],
        _ => &[],
    };
    let mut before: Vec<String> = Vec::new();
    let mut after = Vec::new();
    let mut dashdash = false;
    let mut source = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if dashdash {
            after.push(arg.clone());
        } else if arg == "--" {
            dashdash = true;
        } else if arg.starts_with('-') && arg.len() > 1 {
            if let Some(v) = arg.strip_prefix("--source=") {
                source = Some(v.to_owned());
            }
            if value_options.contains(&arg.as_str()) {
                if matches!(arg.as_str(), "-s" | "--source") {
                    source = args.get(i).cloned();
                }
                // `checkout -B <branch>`, `switch -C <branch>`: the value is
                // the branch that is reset.
                if matches!(arg.as_str(), "-B" | "-C")
                    && let Some(branch) = args.get(i)
                {
                    before.push(branch.clone());
                }
                i += 1;
            }
        } else {
            before.push(arg.clone());
        }
    }
    Some(match kind {
        FactsKind::Worktree => match sub {
            "restore" => Facts::Worktree {
                target: source,
                paths: before.into_iter().chain(after).collect(),
            },
            "clean" | "rm" => Facts::Worktree {
                target: None,
                paths: before.into_iter().chain(after).collect(),
            },
            "worktree" | "submodule" => Facts::Worktree {
                target: None,
                paths: before.into_iter().skip(1).chain(after).collect(),
            },
            "checkout"
                if !dashdash
                    && before
                        .iter()
                        .any(|p| p == "." || p.contains(['*', '?', '/'])) =>
            {
                // `checkout [<rev>] <paths>`: a first word that is not
                // path-like, followed by more, is the revision.
                let path_like = |p: &String| p == "." || p.contains(['*', '?', '/']);
                let target = (before.len() > 1 && !path_like(&before[0])).then(|| before.remove(0));
                Facts::Worktree {
                    target,
                    paths: before,
                }
            }
            _ => {
                let mut before = before.into_iter();
                let target = before.next();
                Facts::Worktree {
                    target,
                    paths: before.chain(after).collect(),
                }
            }
        },
        FactsKind::Push => {
            let mut words = before.into_iter().chain(after);
            Facts::Push {
                remote: words.next(),
                refspecs: words.collect(),
            }
        }
        FactsKind::Branch => Facts::Branch {
            names: before.into_iter().chain(after).collect(),
        },
        FactsKind::Tag => Facts::Tag {
            names: before.into_iter().chain(after).collect(),
        },
        FactsKind::Stash => Facts::Stash {
            entries: before
                .into_iter()
                .filter(|w| !matches!(w.as_str(), "drop" | "clear"))
                .collect(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(argv: &[&str]) -> SimpleCommand {
        SimpleCommand {
            argv: argv.iter().map(|&a| a.to_owned()).collect(),
            ..SimpleCommand::default()
        }
    }

    #[test]
    fn facts_pick_the_pieces() {
        let f = |argv: &[&str], kind| facts(kind, &command(argv));
        assert_eq!(
            f(
                &["git", "push", "-o", "ci.skip", "--force", "origin", "+main"],
                FactsKind::Push
            ),
            Some(Facts::Push {
                remote: Some("origin".to_owned()),
                refspecs: vec!["+main".to_owned()]
            })
        );
        assert_eq!(
            f(&["git", "reset", "--hard", "HEAD~2"], FactsKind::Worktree),
            Some(Facts::Worktree {
                target: Some("HEAD~2".to_owned()),
                paths: vec![]
            })
        );
        assert_eq!(
            f(&["git", "checkout", "--", "a", "b"], FactsKind::Worktree),
            Some(Facts::Worktree {
                target: None,
                paths: vec!["a".to_owned(), "b".to_owned()]
            })
        );
        assert_eq!(
            f(
                &["git", "restore", "--source=HEAD~1", "src"],
                FactsKind::Worktree
            ),
            Some(Facts::Worktree {
                target: Some("HEAD~1".to_owned()),
                paths: vec!["src".to_owned()]
            })
        );
        assert_eq!(
            f(&["git", "branch", "-D", "a", "b"], FactsKind::Branch),
            Some(Facts::Branch {
                names: vec!["a".to_owned(), "b".to_owned()]
            })
        );
        assert_eq!(
            f(&["git", "stash", "drop", "stash@{1}"], FactsKind::Stash),
            Some(Facts::Stash {
                entries: vec!["stash@{1}".to_owned()]
            })
        );
        assert_eq!(
            f(&["git", "checkout", "HEAD~1", "."], FactsKind::Worktree),
            Some(Facts::Worktree {
                target: Some("HEAD~1".to_owned()),
                paths: vec![".".to_owned()]
            })
        );
        assert_eq!(f(&["rm", "-rf", "x"], FactsKind::Worktree), None);
    }
}
