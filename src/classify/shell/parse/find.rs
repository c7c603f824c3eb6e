//! PURE: what a `find` can name (issue 37 items 1 and 7): its start paths
//! bounded by its own filters (`-name`, `-iname`, `-path`, `-maxdepth 0`),
//! as words the rules can match. `find . -name '*.pyc'` names `./*.pyc`,
//! which no rule about the repository or the guard's files matches;
//! `find .git -type f` names `.git/*`, the repository itself; `find .
//! -type f` can name anything, `.git` and the guard's files included, and
//! is judged at its worst.

use crate::classify::glob::{simple_glob, wildcard};

/// The names a `find` can reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reach {
    /// Words standing for every name it can reach (globs as text:
    /// `./*.pyc`, `.git/*`).
    pub(crate) words: Vec<String>,
    /// True when its filters do not bound what it names (`find . -type
    /// f`): it may name any file under its start paths, the repository's
    /// and the guard's included, and what runs on them is judged at its
    /// worst.
    pub(crate) unknown: bool,
    /// Its start paths.
    pub(crate) starts: Vec<String>,
}

/// Tests and options of `find` that take one value (skipped).
const ONE_VALUE: &[&str] = &[
    "-type",
    "-xtype",
    "-newer",
    "-anewer",
    "-cnewer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-size",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-perm",
    "-mindepth",
    "-links",
    "-inum",
    "-samefile",
    "-fprint",
    "-fprint0",
    "-printf",
    "-fls",
    "-context",
    "-used",
    "-fstype",
    "-lname",
    "-ilname",
    "-regextype",
    "-files0-from",
    "-regex",
    "-iregex",
];

/// Names of files a `find` filter must not be able to name for its
/// names to be bounded away from the repository and the guard: git's
/// own files and directories, a branch's usual names, pack and object
/// names, vouch's hooks and the agents' settings.
const SENSITIVE: &[&str] = &[
    ".git",
    "HEAD",
    "ORIG_HEAD",
    "FETCH_HEAD",
    "MERGE_HEAD",
    "config",
    "index",
    "packed-refs",
    "description",
    "COMMIT_EDITMSG",
    "shallow",
    "main",
    "master",
    "stash",
    "pack-0a1b2c.pack",
    "pack-0a1b2c.idx",
    "pack-0a1b2c.rev",
    "pack-0a1b2c.bitmap",
    "0a1b2c3d4e5f60718293a4b5c6d7e8f9012345",
    "0a",
    "objects",
    "refs",
    "heads",
    "tags",
    "remotes",
    "logs",
    "hooks",
    "info",
    "exclude",
    "modules",
    "worktrees",
    "pre-push",
    "pre-commit",
    "reference-transaction",
    "pre-receive",
    "settings.json",
    "settings.local.json",
    "hooks.json",
    "config.toml",
    ".vouch.toml",
    "vouch.json",
    "vouch.js",
    "trust.json",
    "audit.jsonl",
    "vouch",
    ".gitconfig",
    ".claude",
    ".codex",
    ".gemini",
    ".cursor",
    "snapshots",
];

/// True when the glob `name` could match one of [`SENSITIVE`] (or is too
/// intricate to tell).
fn sensitive(name: &str) -> bool {
    let Some(alts) = simple_glob(name, true) else {
        return true;
    };
    SENSITIVE
        .iter()
        .any(|s| alts.iter().any(|a| wildcard(a, s.as_bytes(), true)))
}

/// True when a path glob (`-path`) could match a path of the repository or
/// of the guard's files under a start path.
fn sensitive_path(path: &str) -> bool {
    let Some(alts) = simple_glob(path, true) else {
        return true;
    };
    let samples = [
        "./.git/index",
        "./.git/refs/heads/main",
        "./.git/objects/pack/pack-1.pack",
        "./.git/hooks/pre-push",
        "./.vouch.toml",
        "./.claude/settings.json",
        "./.codex/hooks.json",
    ];
    samples
        .iter()
        .any(|s| alts.iter().any(|a| wildcard(a, s.as_bytes(), true)))
}

/// True when `path` has a `.git` component (or names a bare repository).
fn in_repository(path: &str) -> bool {
    path.split('/')
        .any(|part| part.rsplit_once('.').is_some_and(|(_, ext)| ext == "git"))
}

/// What `find` with `args` (argv after `find`) can name.
pub(crate) fn reach(args: &[String]) -> Reach {
    let mut i = 0;
    // `-H`, `-L`, `-P`, `-D debug`, `-O3`.
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            a if a.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let mut starts: Vec<String> = Vec::new();
    while let Some(arg) = args.get(i) {
        if arg.starts_with('-') || matches!(arg.as_str(), "(" | "!" | ")" | ",") {
            break;
        }
        starts.push(arg.clone());
        i += 1;
    }
    if starts.is_empty() {
        starts.push(".".to_owned());
    }
    let mut names: Vec<String> = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    let mut maxdepth: Option<String> = None;
    // Whether every `-o` alternative so far holds a bound.
    let mut pieces_bounded = true;
    let mut this_bounded = false;
    let mut negated = false;
    while let Some(arg) = args.get(i) {
        i += 1;
        let was_negated = std::mem::take(&mut negated);
        match arg.as_str() {
            "!" | "-not" => negated = true,
            "-o" | "-or" | "," => {
                pieces_bounded &= this_bounded;
                this_bounded = false;
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                while let Some(word) = args.get(i) {
                    i += 1;
                    if word == ";" || word == "+" {
                        break;
                    }
                }
            }
            "-name" | "-iname" => {
                if let Some(value) = args.get(i) {
                    if !was_negated {
                        names.push(value.clone());
                        this_bounded = true;
                    }
                    i += 1;
                }
            }
            "-path" | "-ipath" | "-wholename" | "-iwholename" => {
                if let Some(value) = args.get(i) {
                    if !was_negated {
                        paths.push(value.clone());
                        this_bounded = true;
                    }
                    i += 1;
                }
            }
            "-maxdepth" => {
                maxdepth = args.get(i).cloned();
                i += 1;
            }
            "-fprintf" => i += 2,
            a if ONE_VALUE.contains(&a) => i += 1,
            _ => {}
        }
    }
    pieces_bounded &= this_bounded;
    let trimmed: Vec<String> = starts
        .iter()
        .map(|s| {
            let t = s.trim_end_matches('/');
            if t.is_empty() {
                "/".to_owned()
            } else {
                t.to_owned()
            }
        })
        .collect();
    let join = |start: &str, name: &str| {
        if start == "/" {
            format!("/{name}")
        } else {
            format!("{start}/{name}")
        }
    };
    if maxdepth.as_deref() == Some("0") {
        return Reach {
            words: starts.clone(),
            unknown: false,
            starts,
        };
    }
    if pieces_bounded && !(names.is_empty() && paths.is_empty()) {
        let mut words = Vec::new();
        let mut unknown = false;
        for start in &trimmed {
            for name in &names {
                words.push(join(start, name));
                if !in_repository(start) && sensitive(name) {
                    words.push(join(start, &format!(".git/{name}")));
                }
            }
        }
        for path in &paths {
            words.push(path.clone());
            if !in_repository(path) && sensitive_path(path) {
                unknown = true;
            }
        }
        return Reach {
            words,
            unknown,
            starts,
        };
    }
    let words = trimmed.iter().map(|s| join(s, "*")).collect();
    let unknown = !trimmed.iter().all(|s| in_repository(s));
    Reach {
        words,
        unknown,
        starts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(line: &str) -> Reach {
        let args: Vec<String> = shell_words::split(line).unwrap();
        reach(&args)
    }

    #[test]
    fn names_bound_what_find_reaches() {
        let r = of(". -name *.pyc");
        assert_eq!(r.words, ["./*.pyc"]);
        assert!(!r.unknown);
        let r = of(". ( -name *.pyc -o -name *.pyo ) -type f");
        assert_eq!(r.words, ["./*.pyc", "./*.pyo"]);
        // A name git uses reaches into `.git` too.
        let r = of(". -name *.pack");
        assert_eq!(r.words, ["./*.pack", "./.git/*.pack"]);
        let r = of(".git -type f");
        assert_eq!(r.words, [".git/*"]);
        assert!(!r.unknown);
        assert_eq!(of(". -maxdepth 0").words, ["."]);
    }

    #[test]
    fn what_does_not_bound_is_unknown() {
        assert!(of(". -type f").unknown);
        assert!(of(". ! -name *.keep").unknown);
        assert!(of(". -name *.pyc -o -type f").unknown);
        assert!(of(". -regex .*pyc").unknown);
        assert!(of(". -path */.git/*").words.iter().any(|w| w == "*/.git/*"));
        assert!(of(". -path ./* -delete").unknown);
        assert!(!of(". -path ./build/*").unknown);
    }
}
