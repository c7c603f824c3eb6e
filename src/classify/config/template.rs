//! PURE: the commented template `git vouch config` prints: every setting, with
//! its default taken from [`Config::default`] (so the two cannot drift), and
//! commented examples for the tables that have no default (`[verifiers.*]`,
//! `[providers.*]`, `[[rules]]`). The tests check that every key the file
//! format accepts is in it and that it reads back as the defaults.

use std::fmt::Write as _;

use super::{COMMIT_GLOBS, Config};

/// A value as TOML writes it.
fn val<T: serde::Serialize>(value: T) -> String {
    toml::Value::try_from(value).map_or_else(|_| "?".to_owned(), |v| v.to_string())
}

/// Appends `# doc` lines (each line of `doc`) and `key = value`.
fn setting(out: &mut String, doc: &str, key: &str, value: &str) {
    for line in doc.lines() {
        let _ = writeln!(out, "# {line}");
    }
    let _ = writeln!(out, "{key} = {value}");
}

/// The template, at the defaults of `vouch` as built.
#[expect(
    clippy::many_single_char_names,
    reason = "short names for the default tables read below"
)]
pub fn template() -> String {
    let d = Config::default();
    let mut out = String::new();
    out.push_str(
        "# vouch configuration: every setting, at its default.\n\
         #\n\
         # Where: the user config (`~/.config/vouch/config.toml`, or the file\n\
         # VOUCH_CONFIG names) may set anything; a repository's `.vouch.toml` may\n\
         # only make the guard stricter until you run `git vouch trust` there.\n\
         # Keep only the lines you change: a setting left out follows vouch's\n\
         # default, also when a later version improves it. Lines `# key = ...`\n\
         # are examples of settings without a default.\n\n",
    );
    setting(
        &mut out,
        "A hook whose vouch binary is missing refuses instead of falling back\nto PATH. Written into the hooks: run `git vouch install` again after a change.",
        "strict",
        &val(d.strict),
    );
    setting(
        &mut out,
        "`enforce`, or `observe`: decide and log, but never refuse or ask\n(to try vouch safely; `git vouch log` shows what it would have done).",
        "mode",
        &val(d.mode),
    );
    setting(
        &mut out,
        "Verify standard-tier operations too (VOUCH_VERIFY=1 for one command).",
        "verify_standard",
        &val(d.verify_standard),
    );
    setting(
        &mut out,
        "Write an audit record for operations of no risk too.",
        "log_all",
        &val(d.log_all),
    );
    out.push_str(
        "# A command run when a review request is written (split like a shell);\n\
         # it gets VOUCH_REVIEW_FILE and VOUCH_OPERATION_ID.\n\
         # notify_command = \"notify-send vouch $VOUCH_OPERATION_ID\"\n",
    );

    out.push_str("\n[protected]\n");
    setting(
        &mut out,
        "Branches whose rewrite or deletion is critical (globs).",
        "branches",
        &val(&d.policy.protected_patterns),
    );
    setting(
        &mut out,
        "Each remote's default branch (`refs/remotes/<remote>/HEAD`) is protected too.",
        "remote_head",
        &val(d.policy.remote_head),
    );
    setting(
        &mut out,
        "Tags whose move or deletion is critical (globs).",
        "release_tags",
        &val(&d.policy.release_tag_patterns),
    );

    out.push_str("\n[thresholds]\n");
    setting(
        &mut out,
        "More destructive ref changes than this in one push is a mass change.",
        "mass_ref_changes",
        &val(d.policy.mass_ref_changes),
    );

    out.push_str(
        "\n# The tier each rule gives: `none`, `standard`, `high` or `critical`.\n\
         # critical is always verified, high unless skipped (VOUCH_SKIP), standard\n\
         # only on request, none never.\n[tiers]\n",
    );
    let t = &d.policy.tiers;
    for (key, doc, tier) in [
        (
            "force_push_protected",
            "A protected branch rewritten (force push).",
            t.force_push_protected,
        ),
        (
            "force_push_unseen",
            "A force push that destroys remote commits never fetched here.",
            t.force_push_unseen,
        ),
        ("force_push", "Another branch rewritten.", t.force_push),
        (
            "delete_protected",
            "A protected branch deleted on the remote.",
            t.delete_protected,
        ),
        (
            "delete_branch",
            "Another branch deleted on the remote.",
            t.delete_branch,
        ),
        (
            "tag_move",
            "A tag moved or deleted on the remote.",
            t.tag_move,
        ),
        (
            "release_tag_move",
            "A release tag moved or deleted on the remote.",
            t.release_tag_move,
        ),
        (
            "mass_ref_changes",
            "More destructive ref changes than `thresholds.mass_ref_changes`.",
            t.mass_ref_changes,
        ),
        (
            "push_protected",
            "A fast-forward or new ref on a protected branch.",
            t.push_protected,
        ),
        (
            "local_rewind",
            "A local branch moved back, and what it leaves is on no other ref.",
            t.local_rewind,
        ),
        (
            "local_rewind_reachable",
            "A local branch moved back; what it leaves is on another ref.",
            t.local_rewind_reachable,
        ),
        (
            "local_rewrite",
            "A local branch rewritten, and some changes appear nowhere else.",
            t.local_rewrite,
        ),
        (
            "local_delete",
            "A local branch deleted with commits on no other ref.",
            t.local_delete,
        ),
        ("local_tag", "A local tag moved or deleted.", t.local_tag),
        ("stash_drop", "The stash dropped or cleared.", t.stash_drop),
    ] {
        setting(&mut out, doc, key, &val(tier));
    }

    out.push_str(
        "\n# What happens to a verified operation when no verdict can be had (no\n\
         # verifier configured, a timeout, an error): `allow` (with a warning),\n\
         # `ask` (at a terminal; allowed with a warning where nobody can be\n\
         # asked: CI, agents, GUI clients) or `block`.\n[on_unavailable]\n",
    );
    let u = &d.on_unavailable;
    for (key, value) in [
        ("critical", u.critical),
        ("high", u.high),
        ("standard", u.standard),
    ] {
        let _ = writeln!(out, "{key} = {}", val(value));
    }

    out.push_str("\n[log]\n");
    out.push_str(
        "# Where the audit log is written (default: `~/.local/state/vouch/audit.jsonl`;\n\
         # VOUCH_LOG overrides).\n\
         # path = \"/home/you/vouch-audit.jsonl\"\n",
    );
    setting(
        &mut out,
        "Rotate the audit log past this size (bytes).",
        "max_bytes",
        &val(d.log_max_bytes),
    );
    setting(
        &mut out,
        "Rotated generations kept (`audit.jsonl.1`, ...).",
        "keep",
        &val(d.log_keep),
    );

    out.push_str("\n[ai]\n");
    let a = &d.ai;
    setting(
        &mut out,
        "Ask an AI verifier at all.",
        "enabled",
        &val(a.enabled),
    );
    setting(
        &mut out,
        "Providers to prefer, when the proposer (VOUCH_PRIMARY, `--primary`) is\nunknown; a judge is always taken from another family than the proposer.",
        "order",
        &val(&a.order),
    );
    setting(
        &mut out,
        "Whole-request timeout, seconds.",
        "timeout_secs",
        &val(a.timeout_secs),
    );
    setting(
        &mut out,
        "Connect timeout, seconds.",
        "connect_timeout_secs",
        &val(a.connect_timeout_secs),
    );
    setting(
        &mut out,
        "How long a verdict is reused for the same operation, seconds.",
        "cache_secs",
        &val(a.cache_secs),
    );
    setting(
        &mut out,
        "Output budget of a verdict, tokens (reasoning models need room).",
        "max_output_tokens",
        &val(a.max_output_tokens),
    );
    out.push_str("# Sent only when set (many models reject it).\n# temperature = 0.0\n");

    out.push_str("\n[agent]\n");
    setting(
        &mut out,
        "How long an agent's command may wait for a verdict, seconds (below the\nagents' own 30 s hook timeout).",
        "budget_secs",
        &val(d.agent_budget_secs),
    );

    out.push_str("\n# Snapshots before agents' commands (`git vouch undo`): a snapshot is let\n# go only once it is neither among the newest `keep` nor younger than\n# `days`, and only by a person's command, never an agent's.\n[snapshots]\n");
    setting(
        &mut out,
        "The newest snapshots kept per repository.",
        "keep",
        &val(d.snapshot_keep),
    );
    setting(
        &mut out,
        "Snapshots younger than this many days are kept.",
        "days",
        &val(d.snapshot_days),
    );

    out.push_str(
        "\n# The pre-commit rules: the paths each watches (globs) and the thresholds.\n[commit]\n",
    );
    for (name, _) in COMMIT_GLOBS {
        let patterns = match *name {
            "migrations" => d.commit.migrations.patterns(),
            "migration_exceptions" => d.commit.migration_exceptions.patterns(),
            "generated" => d.commit.generated.patterns(),
            "credentials" => d.commit.credentials.patterns(),
            "credential_exceptions" => d.commit.credential_exceptions.patterns(),
            "ci" => d.commit.ci.patterns(),
            "infrastructure" => d.commit.infrastructure.patterns(),
            "manifests" => d.commit.manifests.patterns(),
            _ => Vec::new(),
        };
        let _ = writeln!(out, "{name} = {}", val(patterns));
    }
    let c = &d.commit;
    for (key, value) in [
        ("bulk_deleted_files", c.bulk_deleted_files),
        ("bulk_deleted_lines", c.bulk_deleted_lines),
        ("large_files", c.large_files),
        ("large_lines", c.large_lines),
    ] {
        let _ = writeln!(out, "{key} = {value}");
    }
    out.push_str("\n# The tier of each pre-commit rule.\n[commit.tiers]\n");
    for (key, tier) in &c.tiers {
        let _ = writeln!(out, "{key} = {}", val(tier));
    }

    out.push_str(
        "\n# Verifier programs (no default): `vouch-verify-NAME` on PATH or in\n\
         # `.vouch/verifiers/` is found by name; a table configures one or adds a command.\n\
         # [verifiers.tests]\n\
         # command = \"make test\"\n\
         # blocking = true\n",
    );
    let _ = writeln!(
        out,
        "# timeout_secs = {}\n# tiers = [\"critical\", \"high\"]\n# enabled = true",
        super::DEFAULT_VERIFIER_TIMEOUT_SECS
    );
    out.push_str(
        "\n# AI providers (no table needed: anthropic, openai, google and openrouter\n\
         # are built in and need only their key variable, such as ANTHROPIC_API_KEY).\n\
         # A table changes a built-in one or adds an OpenAI-compatible server.\n\
         # [providers.local]\n\
         # kind = \"openai-compatible\"\n\
         # family = \"llama\"\n\
         # model = \"llama3.1\"\n\
         # strong_model = \"llama3.1:70b\"\n\
         # base_url = \"http://localhost:11434/v1\"\n\
         # api_key_env = \"LOCAL_API_KEY\"\n\
         # api_key = \"a key written here (user config only)\"\n",
    );
    out.push_str(
        "\n# Shell-command rules for the agent door, added to the built-in ones\n\
         # (the pattern language: docs/agents.md in vouch's source).\n\
         # [[rules]]\n\
         # pattern = \"terraform destroy\"\n\
         # tier = \"critical\"\n\
         # reason = \"destroys infrastructure\"\n\
         # ignore-case = false\n\
         # allow-args = []\n\
         # via = []\n\
         # facts = \"worktree\"\n",
    );
    out.push_str("\n# Model prices, USD per million tokens, for the audit log's cost estimate.\n");
    for (model, price) in &d.prices {
        let _ = writeln!(
            out,
            "[prices.{}]\ninput_per_mtok = {}\noutput_per_mtok = {}",
            val(model),
            val(price.input_per_mtok),
            val(price.output_per_mtok)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::config::{ConfigFile, ConfigInputs};
    use crate::platform::env::MapEnv;
    use std::path::PathBuf;

    fn resolve(text: &str) -> Config {
        let inputs = ConfigInputs {
            user: Some(ConfigFile {
                path: PathBuf::from("/home/u/.config/vouch/config.toml"),
                text: text.into(),
            }),
            repo: None,
        };
        Config::resolve(&inputs, &MapEnv::default())
    }

    /// Every setting of a config, as text to compare.
    fn settings(c: &Config) -> String {
        let commit = &c.commit;
        format!(
            "{:?}",
            (
                (
                    c.strict,
                    c.mode,
                    c.verify_standard,
                    c.log_all,
                    &c.notify_command
                ),
                (
                    &c.policy.protected_patterns,
                    c.policy.remote_head,
                    &c.policy.release_tag_patterns,
                    c.policy.mass_ref_changes,
                    &c.policy.tiers,
                ),
                (
                    c.on_unavailable,
                    &c.verifiers,
                    &c.log_path,
                    c.log_max_bytes,
                    c.log_keep
                ),
                (
                    &c.ai,
                    &c.providers,
                    &c.prices,
                    &c.rules,
                    c.agent_budget_secs,
                    (c.snapshot_keep, c.snapshot_days)
                ),
                (
                    [
                        commit.migrations.patterns(),
                        commit.migration_exceptions.patterns(),
                        commit.generated.patterns(),
                        commit.credentials.patterns(),
                        commit.credential_exceptions.patterns(),
                        commit.ci.patterns(),
                        commit.infrastructure.patterns(),
                        commit.manifests.patterns(),
                    ],
                    (
                        commit.bulk_deleted_files,
                        commit.bulk_deleted_lines,
                        commit.large_files,
                        commit.large_lines,
                    ),
                    &commit.tiers,
                ),
            )
        )
    }

    /// The template with its examples switched on.
    fn with_examples(text: &str) -> String {
        text.lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest)
                    if rest.starts_with('[')
                        || rest
                            .split_once(" = ")
                            .is_some_and(|(k, _)| !k.contains(' ')) =>
                {
                    rest.to_owned()
                }
                _ => l.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_template_reads_back_as_the_defaults() {
        let c = resolve(&template());
        assert!(c.broken.is_empty(), "{:?}", c.broken);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert_eq!(settings(&c), settings(&Config::default()));
        // And the defaults are not the empty config by accident.
        assert!(template().contains("critical = \"ask\""));
    }

    #[test]
    fn the_templates_examples_are_valid_settings() {
        let text = with_examples(&template());
        let c = resolve(&text);
        assert!(c.broken.is_empty(), "{:?}\n{text}", c.broken);
        assert!(c.verifiers.contains_key("tests"));
        assert!(c.providers.contains_key("local"));
        assert_eq!(c.rules.len(), 1);
        assert!(c.notify_command.is_some() && c.log_path.is_some() && c.ai.temperature.is_some());
    }

    /// The keys a table of the file format accepts, as its unknown-key error lists them.
    fn accepted_keys(table: &str) -> Vec<String> {
        let text = if table.is_empty() {
            "zzz_unknown = 1\n".to_owned()
        } else if table == "rules" {
            "[[rules]]\nzzz_unknown = 1\n".to_owned()
        } else {
            format!("[{table}]\nzzz_unknown = 1\n")
        };
        let c = resolve(&text);
        let e = c
            .broken
            .first()
            .expect("an unknown key is an error")
            .to_string();
        let list = e
            .split_once("accepted")
            .expect("the error lists the keys")
            .1;
        list.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn every_key_the_config_accepts_is_in_the_template() {
        let parsed: toml::Table = with_examples(&template()).parse().unwrap();
        let mut seen = 0;
        for (table, path) in [
            ("", vec![]),
            ("protected", vec!["protected"]),
            ("thresholds", vec!["thresholds"]),
            ("tiers", vec!["tiers"]),
            ("on_unavailable", vec!["on_unavailable"]),
            ("log", vec!["log"]),
            ("ai", vec!["ai"]),
            ("agent", vec!["agent"]),
            ("commit", vec!["commit"]),
            ("commit.tiers", vec!["commit", "tiers"]),
            ("verifiers.x", vec!["verifiers", "tests"]),
            ("providers.x", vec!["providers", "local"]),
            ("prices.x", vec!["prices", "gpt-5"]),
            ("rules", vec!["rules"]),
        ] {
            let mut node = toml::Value::Table(parsed.clone());
            for step in &path {
                node = node
                    .get(*step)
                    .cloned()
                    .unwrap_or_else(|| panic!("no `{step}`"));
            }
            if let toml::Value::Array(items) = node {
                node = items[0].clone();
            }
            for key in accepted_keys(table) {
                seen += 1;
                assert!(
                    node.get(&key).is_some(),
                    "`{table}.{key}` is accepted but not in `git vouch config`'s template"
                );
            }
        }
        assert!(seen > 80, "{seen} keys read");
    }
}
