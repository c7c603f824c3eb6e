//! PURE: globs matched byte by byte, without building a regex: what
//! globset would match, for the globs it reads as literal bytes, `?`, `*`,
//! ASCII classes and simple `{a,b}` groups. The agent door's rules match
//! command words with them (`simple_glob`, `wildcard`); the config's
//! path globs (`commit.migrations`, `protected`, ...) match paths and ref
//! names with [`PathGlob`]. Anything else is left to globset by the caller;
//! tests compare both with globset on random globs.

/// One element of a simple glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// Any run of bytes (`*`).
    Star,
    /// Any one byte (`?`).
    Any,
    /// This byte.
    Byte(u8),
    /// A byte of this set (`[a-z]`, `[!x]`), as a 256-bit mask.
    Class([u64; 4]),
}

/// The most alternatives a `{a,b}` expansion may give before the glob is
/// left to globset.
const MAX_ALTERNATIVES: usize = 1024;

/// `text` as alternatives of [`Tok`]s when globset would read it as
/// literal bytes, `?`, `*` and ASCII classes, with `{a,b}` groups that are
/// not nested: `None` for anything else (`\` escapes, `**`, nested or
/// unbalanced groups, a class with other characters or a bad range), which
/// globset then reads, or rejects, itself.
pub(crate) fn simple_glob(text: &str, ignore_case: bool) -> Option<Vec<Vec<Tok>>> {
    if text.contains("**") || text.contains('\\') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut alts: Vec<Vec<Tok>> = vec![Vec::new()];
    // The branches of the open `{...}` group.
    let mut group: Option<Vec<Vec<Tok>>> = None;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        let tok = match b {
            b'*' => Tok::Star,
            b'?' => Tok::Any,
            b'[' => {
                let (class, next) = class(bytes, i, ignore_case)?;
                i = next;
                class
            }
            b'{' => {
                if group.is_some() {
                    return None;
                }
                group = Some(vec![Vec::new()]);
                continue;
            }
            b',' if group.is_some() => {
                group.as_mut()?.push(Vec::new());
                continue;
            }
            b'}' => {
                let branches = group.take()?;
                if alts.len() * branches.len() > MAX_ALTERNATIVES {
                    return None;
                }
                alts = alts
                    .iter()
                    .flat_map(|a| {
                        branches.iter().map(move |b| {
                            let mut joined = a.clone();
                            joined.extend(b.iter().cloned());
                            joined
                        })
                    })
                    .collect();
                continue;
            }
            b => Tok::Byte(b),
        };
        match &mut group {
            Some(branches) => branches.last_mut()?.push(tok),
            None => alts.iter_mut().for_each(|a| a.push(tok.clone())),
        }
    }
    group.is_none().then_some(alts)
}

/// The class that starts after the `[` at `bytes[i - 1]`, read as globset
/// reads one (`!` or `^` negates, a leading `]` or `-` is literal, a
/// trailing `-` is literal), and the index after its `]`. Case-insensitive
/// like the regex globset builds: ASCII letters fold before the negation.
fn class(bytes: &[u8], mut i: usize, ignore_case: bool) -> Option<(Tok, usize)> {
    let negated = matches!(bytes.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let mut ranges: Vec<(u8, u8)> = Vec::new();
    let mut first = true;
    let mut in_range = false;
    loop {
        let c = *bytes.get(i)?;
        i += 1;
        if !c.is_ascii() {
            return None;
        }
        match c {
            b']' if !first => break,
            b'-' if first => ranges.push((c, c)),
            b'-' if !in_range => in_range = true,
            _ if in_range => {
                let last = ranges.last_mut()?;
                if c < last.0 {
                    return None;
                }
                last.1 = c;
                in_range = false;
            }
            _ => ranges.push((c, c)),
        }
        first = false;
    }
    if in_range {
        ranges.push((b'-', b'-'));
    }
    let mut mask = [0u64; 4];
    let mut set = |b: u8| mask[usize::from(b / 64)] |= 1 << (b % 64);
    for (from, to) in ranges {
        for b in from..=to {
            set(b);
            if ignore_case {
                set(b.to_ascii_lowercase());
                set(b.to_ascii_uppercase());
            }
        }
    }
    if negated {
        for word in &mut mask {
            *word = !*word;
        }
    }
    Some((Tok::Class(mask), i))
}

impl Tok {
    fn matches(&self, b: u8, ignore_case: bool) -> bool {
        match self {
            Self::Star => false,
            Self::Any => true,
            Self::Byte(x) => *x == b || (ignore_case && x.eq_ignore_ascii_case(&b)),
            Self::Class(mask) => mask[usize::from(b / 64)] & (1 << (b % 64)) != 0,
        }
    }
}

/// True when `pattern` matches all of `text` (`*` any run of bytes, every
/// other element one byte): the usual matcher that retries from the last
/// `*`, exact because every other element is one byte wide.
pub(crate) fn wildcard(pattern: &[Tok], text: &[u8], ignore_case: bool) -> bool {
    let (mut p, mut t) = (0, 0);
    // The last `*` seen, and where in `text` its run ends for now.
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(Tok::Star) => {
                star = Some((p, t));
                p += 1;
                continue;
            }
            Some(tok) if tok.matches(text[t], ignore_case) => {
                p += 1;
                t += 1;
                continue;
            }
            _ => {}
        }
        let Some((sp, st)) = star else {
            return false;
        };
        p = sp + 1;
        t = st + 1;
        star = Some((sp, st + 1));
    }
    pattern[p..].iter().all(|tok| *tok == Tok::Star)
}

/// A glob over `/`-separated paths, matched as globset matches it with
/// `literal_separator(true)` (`*`, `?` and classes never match `/`; a
/// `**` segment matches whole directories), without building a regex:
/// compiling the built-in commit globs into globset's regexes was half of
/// a pre-commit hook's work.
#[derive(Debug, Clone)]
pub struct PathGlob {
    segs: Vec<Seg>,
}

/// One `/`-separated part of a [`PathGlob`].
#[derive(Debug, Clone)]
enum Seg {
    /// `**`: any number of whole segments (at least one at the end: `a/**`
    /// is `a/` and anything).
    Dirs,
    /// One segment's glob.
    Name(Vec<Tok>),
}

impl PathGlob {
    /// The glob, or `None` where it would not match exactly as globset
    /// does: `\` escapes, `{a,b}` groups, a `**` that is not a whole
    /// segment, a class that could match `/`, an empty segment (a leading,
    /// trailing or doubled `/`).
    pub fn new(text: &str) -> Option<Self> {
        if text.contains(['\\', '{', '}']) {
            return None;
        }
        let mut segs = Vec::new();
        for part in text.split('/') {
            if part.is_empty() {
                return None;
            }
            if part == "**" {
                segs.push(Seg::Dirs);
                continue;
            }
            // No `{`: one alternative.
            let toks = simple_glob(part, false)?.pop()?;
            let slash = |t: &Tok| matches!(t, Tok::Class(mask) if mask[0] & (1 << b'/') != 0);
            if toks.iter().any(slash) {
                return None;
            }
            segs.push(Seg::Name(toks));
        }
        Some(Self { segs })
    }

    /// True when the glob matches all of `path`.
    pub fn is_match(&self, path: &str) -> bool {
        self.matches_segments(&segments(path))
    }

    /// True when the glob matches the path [`segments`] split: a set of
    /// globs splits each path once.
    pub fn matches_segments(&self, parts: &[&[u8]]) -> bool {
        matches_parts(&self.segs, parts)
    }
}

/// `path` split at every `/`.
pub fn segments(path: &str) -> Vec<&[u8]> {
    path.as_bytes().split(|b| *b == b'/').collect()
}

fn matches_parts(segs: &[Seg], parts: &[&[u8]]) -> bool {
    match segs.split_first() {
        None => parts.is_empty(),
        Some((Seg::Dirs, [])) => !parts.is_empty(),
        Some((Seg::Dirs, rest)) => {
            (0..=parts.len()).any(|skip| matches_parts(rest, &parts[skip..]))
        }
        Some((Seg::Name(toks), rest)) => parts
            .split_first()
            .is_some_and(|(first, more)| wildcard(toks, first, false) && matches_parts(rest, more)),
    }
}

#[cfg(test)]
mod tests {
    use super::PathGlob;

    fn globset(glob: &str, path: &str) -> Option<bool> {
        let g = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
            .ok()?;
        Some(g.compile_matcher().is_match(path))
    }

    #[test]
    fn path_globs_match_as_globset_does() {
        let cases = [
            ("**/migrations/**", "db/migrations/001.sql"),
            ("**/migrations/**", "migrations/001.sql"),
            ("**/migrations/**", "migrations"),
            ("**/migrations/**", "a/migrations"),
            ("**/*.pem", "server.pem"),
            ("**/*.pem", "certs/a/server.pem"),
            ("**/*.pem", "certs/a/server.pem.bak"),
            ("**/.env.*", ".env.production"),
            ("**/.env.*", "config/.env"),
            ("*.sql", "a/b.sql"),
            ("release/*", "release/1.0"),
            ("release/*", "release/1.0/hotfix"),
            ("v[0-9]*", "v1.2"),
            ("v[0-9]*", "vx"),
            ("a/**/b", "a/b"),
            ("a/**/b", "a/x/y/b"),
            ("a/**/b", "ab"),
            ("**", "anything/at/all"),
            ("a/**", "a"),
            ("a/**", "a/"),
            ("?", "/"),
            ("a?b", "a/b"),
        ];
        for (glob, path) in cases {
            let ours = PathGlob::new(glob).unwrap_or_else(|| panic!("`{glob}` is read"));
            assert_eq!(
                Some(ours.is_match(path)),
                globset(glob, path),
                "`{glob}` on `{path}`"
            );
        }
        for glob in [
            "a\\*", "{a,b}/*", "a**", "**b/c", "a[/]b", "[!a]", "**/", "/a", "a//b",
        ] {
            assert!(PathGlob::new(glob).is_none(), "`{glob}` is left to globset");
        }
    }

    #[test]
    fn every_built_in_glob_matches_as_globset_does() {
        let paths = [
            "",
            ".env",
            ".env.example",
            "a/.env.local",
            "db/migrations/1.sql",
            "db/migrate/x.rb",
            "x/2024_add_migration.sql",
            "schema.down.sql",
            "a/b/down.sql",
            "Cargo.lock",
            "sub/package-lock.json",
            "id_rsa",
            "home/.ssh/id_rsa.pub",
            ".aws/credentials",
            "service-account-prod.json",
            ".github/workflows/ci.yml",
            "a/.github/actions/x/y.yml",
            ".gitlab-ci.yml",
            "Jenkinsfile",
            "infra/main.tf",
            "k8s/deploy.yaml",
            "Cargo.toml",
            "web/package.json",
            "go.mod",
            "requirements.txt",
            "main",
            "release/1.0",
            "v1.2.3",
            "release-2",
            "feature/x",
            "src/lib.rs",
            "a/b/c/d/e.pem",
        ];
        let config = crate::classify::config::Config::default();
        let mut globs: Vec<String> = crate::classify::config::COMMIT_GLOBS
            .iter()
            .flat_map(|(_, list)| list.iter().map(|g| (*g).to_owned()))
            .collect();
        globs.extend(config.policy.protected.patterns());
        globs.extend(config.policy.release_tags.patterns());
        assert!(globs.len() > 50, "{globs:?}");
        for glob in &globs {
            let ours = PathGlob::new(glob).unwrap_or_else(|| panic!("built-in `{glob}` is read"));
            for path in paths {
                assert_eq!(
                    Some(ours.is_match(path)),
                    globset(glob, path),
                    "`{glob}` on `{path}`"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn random_path_globs_match_as_globset_does(
            glob in "([ab.*?/]|\\*\\*|\\[!?[ab.-]\\]){0,8}",
            paths in proptest::collection::vec("[ab./]{0,8}", 1..20),
        ) {
            if let Some(ours) = PathGlob::new(&glob) {
                for path in &paths {
                    let reference = globset(&glob, path);
                    proptest::prop_assert!(reference.is_some(), "globset rejects `{}`", glob);
                    proptest::prop_assert_eq!(Some(ours.is_match(path)), reference, "`{}` on {:?}", glob, path);
                }
            }
        }
    }
}
