//! PURE: a staged change to a risk tier (SPEC 2.3). Each finding names the
//! files, and where it matters the lines, that made the tier.

use crate::classify::config::CommitRules;
use crate::classify::facts::{FileStatus, StagedFacts, StagedFile};
use crate::classify::{Assessment, RefRisk, Rule, Tier};
use crate::input::text::one_line;

/// What the pre-commit rules need to read of a staged change, decided from
/// its paths and statuses before any content is read: the text of
/// migrations and manifests, and lines counted only while a line rule
/// (`bulk_deletion`, `large_change`) is still undecided.
pub struct Reading<'a> {
    rules: &'a CommitRules,
}

/// How many more lines the line rules can use, decided from the paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineNeed {
    /// The deleted lines beyond which `bulk_deletion` holds; `None` when
    /// the deleted files alone decided it.
    deleted: Option<usize>,
    /// The added and deleted lines beyond which `large_change` holds;
    /// `None` when the number of files alone decided it.
    changed: Option<usize>,
}

impl<'a> Reading<'a> {
    /// What `rules` read.
    pub fn new(rules: &'a CommitRules) -> Self {
        Self { rules }
    }

    /// True for files whose added and deleted lines the rules read.
    pub fn inspected(&self, path: &str) -> bool {
        self.rules.migrations.is_match(path) || self.rules.manifests.is_match(path)
    }

    /// True for files whose lines count towards the line rules (not
    /// lockfiles and generated files).
    pub fn counted(&self, path: &str) -> bool {
        !self.rules.generated.is_match(path)
    }

    /// What the line rules still need, given the files (paths and statuses).
    pub fn need<'f>(&self, files: impl IntoIterator<Item = &'f StagedFile>) -> LineNeed {
        let (files, deleted_files) = files.into_iter().fold((0, 0), |(n, d), f| {
            (n + 1, d + usize::from(f.status == FileStatus::Deleted))
        });
        LineNeed {
            deleted: (deleted_files <= self.rules.bulk_deleted_files)
                .then_some(self.rules.bulk_deleted_lines),
            changed: (files <= self.rules.large_files).then_some(self.rules.large_lines),
        }
    }
}

impl LineNeed {
    /// Up to how many lines of one more file with `status` are worth
    /// counting, given the `added` and `deleted` lines counted so far:
    /// `None` when the line rules are decided whatever it holds. A
    /// modified or renamed file is diffed whole (`usize::MAX`).
    pub fn wanted(&self, status: FileStatus, added: usize, deleted: usize) -> Option<usize> {
        let deleted_left = self
            .deleted
            .and_then(|y| y.checked_sub(deleted))
            .map(|left| left + 1);
        let changed_left = self
            .changed
            .and_then(|z| z.checked_sub(added + deleted))
            .map(|left| left + 1);
        match status {
            // An added file adds lines and deletes none.
            FileStatus::Added => changed_left,
            FileStatus::Deleted => deleted_left.max(changed_left),
            FileStatus::Modified | FileStatus::Renamed => {
                deleted_left.or(changed_left).map(|_| usize::MAX)
            }
        }
    }
}

/// The SQL statements that destroy data, as they start a clause.
fn destructive_sql(line: &str) -> bool {
    let code = line.split("--").next().unwrap_or("").to_ascii_lowercase();
    let words: Vec<&str> = code
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(2).any(|w| {
        matches!(
            (w[0], w[1]),
            (
                "drop",
                "table" | "column" | "schema" | "database" | "index" | "constraint"
            ) | ("truncate", _)
        )
    }) || (words.contains(&"alter") && words.contains(&"drop"))
        || words.last() == Some(&"truncate")
}

/// A dependency line's name and major version: `serde = "1.0"`,
/// `"react": "^18.2.0"`, `requests>=2.31`, `github.com/x/y v1.2.3`.
pub fn dependency(line: &str) -> Option<(String, u64)> {
    let t = line.trim().trim_start_matches(['"', '\'', '-', ' ']);
    let name: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || "_-.@/".contains(*c))
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if [
        "version",
        "name",
        "edition",
        "module",
        "go",
        "python",
        "description",
    ]
    .contains(&name.as_str())
    {
        return None;
    }
    let mut rest = &t[name.len()..];
    let mut name = name;
    // Gemfile: `gem 'rails', '~> 7.0'`.
    if name == "gem" {
        let quoted = rest.trim_start().trim_start_matches(['"', '\'']);
        name = quoted
            .chars()
            .take_while(|c| !matches!(c, '"' | '\''))
            .collect();
        rest = &quoted[name.len().min(quoted.len())..];
    }
    let bytes = rest.as_bytes();
    // A version, not any number: quoted, after an operator, or `v1.2.3`;
    // never a bare `key = 88` setting.
    let start = (1..bytes.len()).find(|&i| {
        bytes[i].is_ascii_digit()
            && match bytes[i - 1] {
                b'"' | b'\'' | b'^' | b'~' | b'>' | b'<' => true,
                b'=' => i >= 2 && b"=<>~!".contains(&bytes[i - 2]),
                b'v' => i >= 2 && b" \"'".contains(&bytes[i - 2]),
                // `~> 7.0`, `>= 2` (but not the ` = 3` of a setting).
                b' ' => {
                    i >= 2
                        && (b"<>~^".contains(&bytes[i - 2])
                            || (bytes[i - 2] == b'=' && i >= 3 && b"=<>~!".contains(&bytes[i - 3])))
                }
                _ => false,
            }
    })?;
    let digits: String = rest[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((name, digits.parse().ok()?))
}

fn risk(rules: &CommitRules, rule: Rule, reason: String) -> RefRisk {
    RefRisk {
        tier: rules.tier(rule.as_str()),
        rule,
        reason,
    }
}

fn names(paths: &[&str]) -> String {
    let shown: Vec<String> = paths
        .iter()
        .take(5)
        .map(|p| format!("`{}`", one_line(p, 120)))
        .collect();
    let more = paths.len().saturating_sub(5);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Classifies a staged change.
pub fn classify_commit(staged: &StagedFacts, rules: &CommitRules) -> Assessment {
    let mut findings = Vec::new();
    if let Some(why) = &staged.unmeasured {
        // Nothing could be measured: judged as if the change were harmful,
        // as a push or a local rewind that cannot be measured is (at least
        // high, so that the decision table's row decides it).
        findings.push(RefRisk {
            tier: Tier::High,
            rule: Rule::Unmeasured,
            reason: format!("what this commit changes could not be read ({why})"),
        });
    }
    for f in &staged.files {
        if rules.migrations.is_match(&f.path) && !rules.migration_exceptions.is_match(&f.path) {
            for (line, text) in f.added.iter().filter(|(_, t)| destructive_sql(t)) {
                findings.push(risk(
                    rules,
                    Rule::DestructiveSql,
                    format!(
                        "destructive SQL in `{}` line {line}: `{}`",
                        f.path,
                        one_line(text, 120)
                    ),
                ));
            }
        }
        if f.status != FileStatus::Deleted
            && rules.credentials.is_match(&f.path)
            && !rules.credential_exceptions.is_match(&f.path)
        {
            findings.push(risk(
                rules,
                Rule::CredentialFile,
                format!("credential file `{}` is {}", f.path, f.status.as_str()),
            ));
        }
        if rules.manifests.is_match(&f.path) {
            let before: Vec<(String, u64)> =
                f.deleted.iter().filter_map(|l| dependency(l)).collect();
            for (line, text) in &f.added {
                let Some((name, new)) = dependency(text) else {
                    continue;
                };
                if let Some((_, old)) = before.iter().find(|(n, _)| *n == name)
                    && new > *old
                {
                    findings.push(risk(
                        rules,
                        Rule::DependencyMajorBump,
                        format!(
                            "`{name}` goes from major version {old} to {new} in `{}` line {line}",
                            f.path
                        ),
                    ));
                }
            }
        }
    }
    let matching = |set: &crate::classify::config::Globs| -> Vec<&str> {
        staged
            .files
            .iter()
            .filter(|f| set.is_match(&f.path))
            .map(|f| f.path.as_str())
            .collect()
    };
    let ci = matching(&rules.ci);
    if !ci.is_empty() {
        findings.push(risk(
            rules,
            Rule::CiConfig,
            format!("CI/CD configuration changes: {}", names(&ci)),
        ));
    }
    let iac = matching(&rules.infrastructure);
    if !iac.is_empty() {
        findings.push(risk(
            rules,
            Rule::Infrastructure,
            format!("infrastructure as code changes: {}", names(&iac)),
        ));
    }
    // Lower bounds where a file was not read to its end: the reader stops
    // only once a rule holds (`Reading`), so the bounds decide as the
    // full counts would.
    let (added, deleted, partial) = staged
        .files
        .iter()
        .filter(|f| !rules.generated.is_match(&f.path))
        .fold((0, 0, false), |(a, d, p), f| {
            (a + f.added_lines, d + f.deleted_lines, p || f.lines_partial)
        });
    let least = if partial { "at least " } else { "" };
    let deleted_files: Vec<&str> = staged
        .files
        .iter()
        .filter(|f| f.status == FileStatus::Deleted)
        .map(|f| f.path.as_str())
        .collect();
    if deleted_files.len() > rules.bulk_deleted_files || deleted > rules.bulk_deleted_lines {
        findings.push(risk(
            rules,
            Rule::BulkDeletion,
            format!(
                "bulk deletion: {} files and {least}{deleted} lines deleted{}",
                deleted_files.len(),
                if deleted_files.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", names(&deleted_files))
                }
            ),
        ));
    }
    if staged.files.len() > rules.large_files || added + deleted > rules.large_lines {
        findings.push(risk(
            rules,
            Rule::LargeChange,
            format!(
                "large change: {} files, {least}+{added} -{deleted} lines",
                staged.files.len()
            ),
        ));
    }
    let tier = findings.iter().map(|r| r.tier).max().unwrap_or(Tier::None);
    Assessment {
        tier,
        refs: findings,
        push: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::facts::StagedFile;

    fn file(path: &str, status: FileStatus, added: &[&str], deleted: &[&str]) -> StagedFile {
        StagedFile {
            path: path.into(),
            status,
            added_lines: added.len(),
            deleted_lines: deleted.len(),
            lines_partial: false,
            old_oid: String::new(),
            new_oid: String::new(),
            added: added
                .iter()
                .enumerate()
                .map(|(i, t)| (u32::try_from(i).unwrap() + 1, (*t).to_owned()))
                .collect(),
            deleted: deleted.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    fn tier(files: Vec<StagedFile>) -> (Tier, Vec<Rule>, Vec<String>) {
        let staged = StagedFacts {
            files,
            branch: None,
            unmeasured: None,
        };
        let a = classify_commit(&staged, &CommitRules::default());
        (
            a.tier,
            a.refs.iter().map(|r| r.rule).collect(),
            a.refs.iter().map(|r| r.reason.clone()).collect(),
        )
    }

    #[test]
    fn lines_are_wanted_only_while_a_line_rule_is_undecided() {
        let rules = CommitRules::default();
        let reading = Reading::new(&rules);
        let one = [file("a.txt", FileStatus::Modified, &[], &[])];
        let need = reading.need(&one);
        // Nothing counted yet: an added file up to 501 lines, a deleted one
        // the same, a modified one whole.
        assert_eq!(need.wanted(FileStatus::Added, 0, 0), Some(501));
        assert_eq!(need.wanted(FileStatus::Deleted, 0, 0), Some(501));
        assert_eq!(need.wanted(FileStatus::Modified, 0, 0), Some(usize::MAX));
        // 300 added so far: 201 more decide the large change.
        assert_eq!(need.wanted(FileStatus::Added, 300, 0), Some(201));
        assert_eq!(need.wanted(FileStatus::Deleted, 300, 0), Some(501));
        // Large change decided: added files need no reading, deleted ones do.
        assert_eq!(need.wanted(FileStatus::Added, 501, 0), None);
        assert_eq!(need.wanted(FileStatus::Deleted, 501, 0), Some(501));
        assert_eq!(need.wanted(FileStatus::Renamed, 501, 0), Some(usize::MAX));
        // Both decided: nothing more is read.
        for status in [FileStatus::Added, FileStatus::Deleted, FileStatus::Modified] {
            assert_eq!(need.wanted(status, 0, 501), None, "{status:?}");
        }
        // Eleven files decide the large change and eleven deleted files the
        // bulk deletion, from their paths alone.
        let many: Vec<StagedFile> = (0..11)
            .map(|i| file(&format!("f{i}"), FileStatus::Deleted, &[], &[]))
            .collect();
        let need = reading.need(&many);
        for status in [FileStatus::Added, FileStatus::Deleted, FileStatus::Modified] {
            assert_eq!(need.wanted(status, 0, 0), None, "{status:?}");
        }
        // Lockfiles count for nothing; migrations are read whatever the counts.
        assert!(!reading.counted("Cargo.lock") && reading.counted("src/lib.rs"));
        assert!(reading.inspected("db/migrations/1.sql") && !reading.inspected("src/lib.rs"));
    }

    #[test]
    fn counts_that_stopped_early_say_at_least() {
        let mut big = file("big.csv", FileStatus::Added, &[], &[]);
        big.added_lines = 501;
        big.lines_partial = true;
        let (t, rules, reasons) = tier(vec![big]);
        assert_eq!((t, rules), (Tier::Standard, vec![Rule::LargeChange]));
        assert_eq!(reasons, ["large change: 1 files, at least +501 -0 lines"]);
    }

    #[test]
    fn destructive_sql_in_migrations_names_file_and_line() {
        let (t, rules, reasons) = tier(vec![file(
            "db/migrations/003_drop.sql",
            FileStatus::Added,
            &[
                "-- drop table comments are fine",
                "ALTER TABLE users ADD age int;",
                "DROP TABLE users;",
            ],
            &[],
        )]);
        assert_eq!((t, rules), (Tier::Critical, vec![Rule::DestructiveSql]));
        assert!(
            reasons[0].contains("db/migrations/003_drop.sql` line 3"),
            "{reasons:?}"
        );
        for sql in [
            "truncate table logs;",
            "ALTER TABLE t DROP COLUMN c;",
            "TRUNCATE logs",
        ] {
            assert!(destructive_sql(sql), "{sql}");
        }
        for sql in [
            "CREATE TABLE dropbox (id int);",
            "-- DROP TABLE x",
            "SELECT 'drop'",
        ] {
            assert!(!destructive_sql(sql), "{sql}");
        }
    }

    #[test]
    fn credential_files_but_not_examples() {
        for path in [
            ".env",
            "config/.env.production",
            "certs/server.pem",
            "home/.ssh/id_rsa",
            ".aws/credentials",
        ] {
            assert_eq!(
                tier(vec![file(path, FileStatus::Added, &["x"], &[])]).1,
                [Rule::CredentialFile],
                "{path}"
            );
        }
        for path in [".env.example", "src/platform/env.rs", "id_rsa.pub"] {
            assert!(
                tier(vec![file(path, FileStatus::Added, &["x"], &[])])
                    .1
                    .is_empty(),
                "{path}"
            );
        }
        assert!(
            tier(vec![file(".env", FileStatus::Deleted, &[], &["x"])])
                .1
                .is_empty(),
            "removing one is good"
        );
    }

    #[test]
    fn ci_infrastructure_and_dependency_bumps() {
        assert_eq!(
            tier(vec![file(
                ".github/workflows/ci.yml",
                FileStatus::Modified,
                &["x"],
                &[]
            )])
            .1,
            [Rule::CiConfig]
        );
        assert_eq!(
            tier(vec![file(
                "infra/main.tf",
                FileStatus::Modified,
                &["x"],
                &[]
            )])
            .1,
            [Rule::Infrastructure]
        );
        let bump = file(
            "Cargo.toml",
            FileStatus::Modified,
            &["serde = \"2.0\""],
            &["serde = \"1.0.200\""],
        );
        let (t, rules, reasons) = tier(vec![bump]);
        assert_eq!((t, rules), (Tier::High, vec![Rule::DependencyMajorBump]));
        assert!(
            reasons[0].contains("from major version 1 to 2"),
            "{reasons:?}"
        );
        let minor = file(
            "package.json",
            FileStatus::Modified,
            &["  \"react\": \"^18.3.0\","],
            &["  \"react\": \"^18.2.0\","],
        );
        assert!(tier(vec![minor]).1.is_empty());
        assert_eq!(dependency("requests>=2.31"), Some(("requests".into(), 2)));
        assert_eq!(
            dependency("\tgithub.com/x/y v1.2.3"),
            Some(("github.com/x/y".into(), 1))
        );
        assert_eq!(dependency("version = \"0.1.0\""), None);
        assert_eq!(
            dependency("line-length = 100"),
            None,
            "a setting is no dependency"
        );
        assert_eq!(dependency("opt-level = 3"), None);
        assert_eq!(
            dependency("gem 'rails', '~> 7.0'"),
            Some(("rails".into(), 7))
        );
        assert_eq!(
            dependency("serde = { version = \"1.0\", features = [\"derive\"] }"),
            Some(("serde".into(), 1))
        );
        let settings = file(
            "pyproject.toml",
            FileStatus::Modified,
            &["line-length = 100"],
            &["line-length = 88"],
        );
        assert!(tier(vec![settings]).1.is_empty());
    }

    #[test]
    fn bulk_deletion_and_large_change() {
        let many: Vec<StagedFile> = (0..11)
            .map(|i| file(&format!("old/f{i}.txt"), FileStatus::Deleted, &[], &["x"]))
            .collect();
        let (t, rules, _) = tier(many);
        assert_eq!(t, Tier::High);
        assert!(rules.contains(&Rule::BulkDeletion) && rules.contains(&Rule::LargeChange));
        let big = file("src/big.rs", FileStatus::Added, &["x"; 501], &[]);
        assert_eq!(
            tier(vec![big]),
            (
                Tier::Standard,
                vec![Rule::LargeChange],
                vec!["large change: 1 files, +501 -0 lines".into()]
            )
        );
        let lock = file("Cargo.lock", FileStatus::Modified, &["x"; 10], &["y"; 900]);
        assert!(
            tier(vec![lock]).1.is_empty(),
            "lockfile churn is no bulk deletion"
        );
        let down = file(
            "db/migrations/004.down.sql",
            FileStatus::Added,
            &["DROP TABLE t;"],
            &[],
        );
        assert!(
            tier(vec![down]).1.is_empty(),
            "a down migration is meant to drop"
        );
        let chart = file(
            "src/components/charts/Bar.tsx",
            FileStatus::Modified,
            &["x"],
            &[],
        );
        assert!(
            tier(vec![chart]).1.is_empty(),
            "a chart component is no Helm chart"
        );
        let small = file("src/lib.rs", FileStatus::Modified, &["a", "b"], &["c"]);
        assert_eq!(tier(vec![small]).0, Tier::None);
    }
}
