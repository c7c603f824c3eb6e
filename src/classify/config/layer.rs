//! The layering (SPEC 3.2): defaults, the user config, the repository's
//! `.vouch.toml` under the one trust rule, the environment.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::raw::{
    RawAi, RawCommit, RawConfig, RawProvider, RawTiers, RawVerifier, locate, parse_raw,
};
use super::{
    Config, ConfigError, ConfigFile, ConfigInputs, DEFAULT_VERIFIER_TIMEOUT_SECS, Mode,
    OnUnavailable, Source, TierTable, VerifierConfig, compile_globs,
};
use crate::classify::vocab::Tier;
use crate::platform::env::{Env, vars};

fn tier_layer(into: &mut TierTable, raw: RawTiers, gate: &mut Gate) {
    let RawTiers {
        force_push_protected,
        force_push_unseen,
        force_push,
        delete_protected,
        delete_branch,
        tag_move,
        release_tag_move,
        mass_ref_changes,
        push_protected,
        local_rewind,
        local_rewind_reachable,
        local_rewrite,
        local_delete,
        local_tag,
        stash_drop,
    } = raw;
    let pairs = [
        (
            "force_push_protected",
            &mut into.force_push_protected,
            force_push_protected,
        ),
        (
            "force_push_unseen",
            &mut into.force_push_unseen,
            force_push_unseen,
        ),
        ("force_push", &mut into.force_push, force_push),
        (
            "delete_protected",
            &mut into.delete_protected,
            delete_protected,
        ),
        ("delete_branch", &mut into.delete_branch, delete_branch),
        ("tag_move", &mut into.tag_move, tag_move),
        (
            "release_tag_move",
            &mut into.release_tag_move,
            release_tag_move,
        ),
        (
            "mass_ref_changes",
            &mut into.mass_ref_changes,
            mass_ref_changes,
        ),
        ("push_protected", &mut into.push_protected, push_protected),
        ("local_rewind", &mut into.local_rewind, local_rewind),
        (
            "local_rewind_reachable",
            &mut into.local_rewind_reachable,
            local_rewind_reachable,
        ),
        ("local_rewrite", &mut into.local_rewrite, local_rewrite),
        ("local_delete", &mut into.local_delete, local_delete),
        ("local_tag", &mut into.local_tag, local_tag),
        ("stash_drop", &mut into.stash_drop, stash_drop),
    ];
    for (key, slot, value) in pairs {
        if let Some(v) = value
            && gate.allows(&format!("tiers.{key}"), v, v >= *slot)
        {
            *slot = v;
        }
    }
}

/// The keys an untrusted file could not set, for the one line that says so.
struct Gate {
    /// Everything may be set (the user config, a trusted repository file).
    trusted: bool,
    /// What was ignored, as `key = value` or `[table]`.
    ignored: Vec<String>,
}

impl Gate {
    /// True when the value may be applied: the file is trusted, or the
    /// value is at least as strict as the one in force (`stricter`).
    /// Otherwise the key is noted as ignored.
    fn allows(&mut self, key: &str, value: impl serde::Serialize, stricter: bool) -> bool {
        if self.trusted || stricter {
            return true;
        }
        let shown = serde_json::to_string(&value).unwrap_or_default();
        self.ignored.push(format!("`{key} = {shown}`"));
        false
    }

    /// A table or key an untrusted file may not set at all.
    fn only_trusted(&mut self, what: &str) -> bool {
        if !self.trusted {
            self.ignored.push(format!("`{what}`"));
        }
        self.trusted
    }

    /// A list of watched patterns: an untrusted file adds to the patterns
    /// in force and never removes one.
    fn watched(&mut self, key: &str, current: Vec<String>, new: Vec<String>) -> Vec<String> {
        if self.trusted {
            return new;
        }
        if current.iter().any(|p| !new.contains(p)) {
            self.ignored.push(format!(
                "`{key}` as a replacement (its patterns were added to those in force)"
            ));
        }
        let mut all = current;
        for p in new {
            if !all.contains(&p) {
                all.push(p);
            }
        }
        all
    }

    /// A list of exceptions: an untrusted file may only drop some of the
    /// patterns in force, never add one.
    fn exceptions(&mut self, key: &str, current: &[String], new: Vec<String>) -> Vec<String> {
        if self.trusted {
            return new;
        }
        let (kept, added): (Vec<String>, Vec<String>) =
            new.into_iter().partition(|p| current.contains(p));
        if !added.is_empty() {
            self.ignored.push(format!(
                "`{key}` additions {}",
                added
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        kept
    }
}

/// The keys of one file that cannot be used, each with its line.
struct Problems<'a> {
    file: &'a ConfigFile,
    dropped: Vec<ConfigError>,
}

impl Problems<'_> {
    /// `key` of `[table]` holds a value that cannot be used: it is dropped.
    fn invalid(&mut self, table: &str, key: &str, message: &str) {
        self.dropped.push(ConfigError::Invalid {
            path: self.file.path.clone(),
            line: locate(&self.file.text, table, key),
            key: Some(if table.is_empty() {
                key.to_owned()
            } else {
                format!("{table}.{key}")
            }),
            message: message.to_owned(),
        });
    }

    /// A list of globs holds one that cannot be compiled.
    fn bad_glob(&mut self, table: &str, key: &str, patterns: &[String], i: usize, why: &str) {
        let glob = patterns.get(i).map_or("", String::as_str);
        self.invalid(table, key, &format!("bad glob `{glob}`: {why}"));
    }

    /// The `i`-th `[[rules]]` entry cannot be compiled: it is dropped.
    fn rule(&mut self, i: usize, message: String) {
        let line = self
            .file
            .text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with("[[rules]]"))
            .nth(i)
            .map_or(1, |(n, _)| n + 1);
        self.dropped.push(ConfigError::Invalid {
            path: self.file.path.clone(),
            line,
            key: Some(format!("rules[{i}]")),
            message,
        });
    }
}

impl Config {
    /// Builds the config in force from the files and the environment. A
    /// key that cannot be used is left out, a file that cannot be read at
    /// all too (and risky work waits, [`Config::ignore_broken`]); both are
    /// noted in [`Config::broken`] and [`Config::warnings`]. This never
    /// fails.
    pub fn resolve(inputs: &ConfigInputs, env: &dyn Env) -> Self {
        let mut config = Self::default();
        if let Some(file) = &inputs.user {
            config.apply(file, Source::User);
        }
        if let Some((file, trusted)) = &inputs.repo {
            let source = if *trusted {
                Source::TrustedRepo
            } else {
                Source::UntrustedRepo
            };
            config.apply(file, source);
        }
        // The environment belongs to whoever runs the command: these two
        // only raise the guard (module doc, "The environment").
        if env.flag(vars::VOUCH_VERIFY) {
            config.verify_standard = true;
        }
        if env.flag(vars::VOUCH_STRICT) {
            config.strict = true;
        }
        if let Some(path) = env.var_os(vars::VOUCH_LOG).filter(|p| !p.is_empty()) {
            config.log_path = Some(PathBuf::from(path));
        }
        // A file read later (a trusted repository's) may not lower what an
        // unreadable one holds.
        if config.broken.iter().any(ConfigError::is_whole_file) {
            config.hold_risky_work();
        }
        config
    }

    /// Applies one file over what is there: every key that can be used.
    /// A key that cannot is dropped and said; a file that cannot be read
    /// as a whole holds risky work ([`Config::ignore_broken`]).
    fn apply(&mut self, file: &ConfigFile, source: Source) {
        let (raw, mut dropped) = match parse_raw(file) {
            Ok(parsed) => parsed,
            Err(e) => return self.ignore_broken(e, source),
        };
        let mut problems = Problems {
            file,
            dropped: Vec::new(),
        };
        let ignored = self.layer(raw, source, &mut problems);
        dropped.append(&mut problems.dropped);
        if !ignored.is_empty() {
            self.warnings.push(format!(
                "ignored in `{}`, which is not trusted: {}. A repository's file may only make the guard stricter until a person reads it and runs `git vouch trust` in this repository at a terminal",
                file.path.display(),
                ignored.join(", ")
            ));
        }
        for e in dropped {
            self.warnings.push(format!(
                "{e}; only this key is dropped, the rest of the file applies (`git vouch doctor` lists every error)"
            ));
            self.broken.push(e);
        }
    }

    /// Notes a file that cannot be used at all (unreadable, not TOML). It
    /// is left out and every run says so, and until it is fixed critical
    /// and high operations are treated with `on_unavailable = "block"`:
    /// vouch cannot know what the file asked for, and a typo must never
    /// loosen the guard (SPEC 3.2). Ordinary work goes on.
    pub fn ignore_broken(&mut self, error: ConfigError, source: Source) {
        let whose = match source {
            Source::User => "vouch judges with its built-in defaults",
            Source::TrustedRepo | Source::UntrustedRepo => {
                "vouch judges with the user config and the defaults"
            }
        };
        self.warnings.push(format!(
            "{error}; the file is ignored: {whose}, and until it is fixed critical and high operations are refused when no verdict can be had (`on_unavailable = \"block\"`); ordinary work goes on (`git vouch doctor`)"
        ));
        self.broken.push(error);
        self.hold_risky_work();
    }

    /// A policy file that cannot be read: critical and high operations
    /// wait for a verdict.
    pub(super) fn hold_risky_work(&mut self) {
        self.on_unavailable.critical = OnUnavailable::Block;
        self.on_unavailable.high = OnUnavailable::Block;
    }

    /// Applies one parsed file over what is there; returns what an untrusted
    /// file could not set.
    fn layer(&mut self, raw: RawConfig, source: Source, problems: &mut Problems) -> Vec<String> {
        let mut gate = Gate {
            trusted: source != Source::UntrustedRepo,
            ignored: Vec::new(),
        };
        let RawConfig {
            strict,
            mode,
            verify_standard,
            log_all,
            notify_command,
            protected,
            thresholds,
            tiers,
            on_unavailable,
            verifiers,
            log,
            ai,
            providers,
            prices,
            commit,
            rules,
            agent,
            snapshots,
        } = raw;
        // Retention: a file that keeps fewer snapshots lets loss go for
        // good sooner, so an untrusted one may only keep more.
        if let Some(s) = snapshots {
            if let Some(keep) = s.keep
                && gate.allows("snapshots.keep", keep, keep >= self.snapshot_keep)
            {
                self.snapshot_keep = keep;
            }
            if let Some(days) = s.days
                && gate.allows("snapshots.days", days, days >= self.snapshot_days)
            {
                self.snapshot_days = days;
            }
        }
        if let Some(rules) = rules {
            // Rules only raise a command's tier, so any file may add them.
            for (i, rule) in rules.into_iter().enumerate() {
                match super::rule::compile_spec(&rule) {
                    Ok(_) => self.rules.push(rule),
                    Err(e) => problems.rule(i, e.to_string()),
                }
            }
        }
        if let Some(budget) = agent.and_then(|a| a.budget_secs)
            && gate.allows(
                "agent.budget_secs",
                budget,
                budget == self.agent_budget_secs,
            )
        {
            if budget == 0 {
                problems.invalid(
                    "agent",
                    "budget_secs",
                    "must be at least 1 (seconds an agent's command may wait for a verdict)",
                );
            } else {
                self.agent_budget_secs = budget;
            }
        }
        if let Some(v) = strict
            && gate.allows("strict", v, v >= self.strict)
        {
            self.strict = v;
        }
        if let Some(v) = mode
            && gate.allows("mode", v, v == Mode::Enforce || self.mode == Mode::Observe)
        {
            self.mode = v;
        }
        if let Some(v) = verify_standard
            && gate.allows("verify_standard", v, v >= self.verify_standard)
        {
            self.verify_standard = v;
        }
        if let Some(v) = log_all
            && gate.allows("log_all", v, v >= self.log_all)
        {
            self.log_all = v;
        }
        if let Some(cmd) = notify_command {
            match split_command(&cmd) {
                Err(m) => problems.invalid("", "notify_command", &m),
                Ok(words) => {
                    if self.notify_command.as_ref() == Some(&words)
                        || gate.only_trusted("notify_command")
                    {
                        self.notify_command = Some(words);
                    }
                }
            }
        }
        if let Some(p) = protected {
            if let Some(branches) = p.branches {
                let branches = gate.watched(
                    "protected.branches",
                    self.policy.protected_patterns.clone(),
                    branches,
                );
                match compile_globs(&branches) {
                    Ok(globs) => {
                        self.policy.protected = globs;
                        self.policy.protected_patterns = branches;
                    }
                    Err((i, m)) => problems.bad_glob("protected", "branches", &branches, i, &m),
                }
            }
            if let Some(v) = p.remote_head
                && gate.allows("protected.remote_head", v, v >= self.policy.remote_head)
            {
                self.policy.remote_head = v;
            }
            if let Some(tags) = p.release_tags {
                let tags = gate.watched(
                    "protected.release_tags",
                    self.policy.release_tag_patterns.clone(),
                    tags,
                );
                match compile_globs(&tags) {
                    Ok(globs) => {
                        self.policy.release_tags = globs;
                        self.policy.release_tag_patterns = tags;
                    }
                    Err((i, m)) => problems.bad_glob("protected", "release_tags", &tags, i, &m),
                }
            }
        }
        if let Some(t) = thresholds.and_then(|t| t.mass_ref_changes)
            && gate.allows(
                "thresholds.mass_ref_changes",
                t,
                t <= self.policy.mass_ref_changes,
            )
        {
            self.policy.mass_ref_changes = t;
        }
        if let Some(t) = tiers {
            tier_layer(&mut self.policy.tiers, t, &mut gate);
        }
        if let Some(o) = on_unavailable {
            for (key, value, slot) in [
                ("critical", o.critical, &mut self.on_unavailable.critical),
                ("high", o.high, &mut self.on_unavailable.high),
                ("standard", o.standard, &mut self.on_unavailable.standard),
            ] {
                if let Some(v) = value
                    && gate.allows(&format!("on_unavailable.{key}"), v, v >= *slot)
                {
                    *slot = v;
                }
            }
        }
        if let Some(verifiers) = verifiers
            && gate.only_trusted("[verifiers]")
        {
            self.layer_verifiers(verifiers, problems);
        }
        if let Some(ai) = ai {
            self.layer_ai(ai, &mut gate, problems);
        }
        if let Some(providers) = providers
            && gate.only_trusted("[providers]")
        {
            for (name, p) in providers {
                let mut p = p;
                if p.api_key.is_some() && source != Source::User {
                    problems.invalid(
                        &format!("providers.{name}"),
                        "api_key",
                        "API keys are read from the environment or the user config, never from a repository file; remove it and set the key's variable",
                    );
                    p.api_key = None;
                }
                let entry = self.providers.entry(name).or_default();
                let RawProvider {
                    kind,
                    family,
                    model,
                    strong_model,
                    base_url,
                    api_key_env,
                    api_key,
                } = p;
                entry.kind = kind.or(entry.kind);
                entry.family = family.or(entry.family.take());
                entry.model = model.or(entry.model.take());
                entry.strong_model = strong_model.or(entry.strong_model.take());
                entry.base_url = base_url.or(entry.base_url.take());
                entry.api_key_env = api_key_env.or(entry.api_key_env.take());
                if let Some(k) = api_key {
                    entry.api_key = Some(super::provider::Secret::new(k));
                }
            }
        }
        if let Some(prices) = prices {
            let same = prices.iter().all(|(m, p)| self.prices.get(m) == Some(p));
            if same || gate.only_trusted("[prices]") {
                self.prices.extend(prices);
            }
        }
        if let Some(c) = commit {
            self.layer_commit(c, &mut gate, problems);
        }
        if let Some(log) = log {
            if let Some(path) = log.path
                && (self.log_path.as_ref() == Some(&path) || gate.only_trusted("log.path"))
            {
                self.log_path = Some(path);
            }
            if let Some(max) = log.max_bytes
                && gate.allows("log.max_bytes", max, max >= self.log_max_bytes)
            {
                if max < 4096 {
                    problems.invalid("log", "max_bytes", "must be at least 4096 (bytes)");
                } else {
                    self.log_max_bytes = max;
                }
            }
            if let Some(keep) = log.keep
                && gate.allows("log.keep", keep, keep >= self.log_keep)
            {
                if keep == 0 {
                    problems.invalid(
                        "log",
                        "keep",
                        "must be at least 1 (rotated generations kept)",
                    );
                } else {
                    self.log_keep = keep;
                }
            }
        }
        gate.ignored
    }

    fn layer_verifiers(
        &mut self,
        verifiers: BTreeMap<String, RawVerifier>,
        problems: &mut Problems,
    ) {
        for (name, mut v) in verifiers {
            let table = format!("verifiers.{name}");
            // A verifier whose name or program cannot be read is dropped
            // whole: without its command it would run another program.
            if !valid_verifier_name(&name) {
                problems.invalid(
                    "",
                    &table,
                    &format!("verifier name `{name}` may hold only letters, digits, `-` and `_`"),
                );
                continue;
            }
            let command = match v.command.as_deref().map(split_command).transpose() {
                Ok(command) => command,
                Err(m) => {
                    problems.invalid(&table, "command", &format!("{m}; the verifier is not run"));
                    continue;
                }
            };
            if v.timeout_secs == Some(0) {
                problems.invalid(&table, "timeout_secs", "must be at least 1 (seconds)");
                v.timeout_secs = None;
            }
            if v.tiers.as_ref().is_some_and(|t| t.contains(&Tier::None)) {
                problems.invalid(
                    &table,
                    "tiers",
                    "tier `none` is never verified; accepted: `critical`, `high`, `standard`",
                );
                v.tiers = None;
            }
            let entry = self.verifiers.entry(name).or_insert(VerifierConfig {
                command: None,
                blocking: true,
                timeout_secs: DEFAULT_VERIFIER_TIMEOUT_SECS,
                tiers: None,
                enabled: true,
                source: problems.file.path.display().to_string(),
            });
            if command.is_some() {
                entry.command = command;
            }
            if let Some(b) = v.blocking {
                entry.blocking = b;
            }
            if let Some(t) = v.timeout_secs {
                entry.timeout_secs = t;
            }
            if v.tiers.is_some() {
                entry.tiers = v.tiers;
            }
            if let Some(e) = v.enabled {
                entry.enabled = e;
            }
            entry.source = problems.file.path.display().to_string();
        }
    }

    fn layer_commit(&mut self, raw: RawCommit, gate: &mut Gate, problems: &mut Problems) {
        let rules = &mut self.commit;
        // Watched paths: an untrusted file adds to them.
        let watched = [
            ("migrations", raw.migrations, &mut rules.migrations),
            ("credentials", raw.credentials, &mut rules.credentials),
            ("ci", raw.ci, &mut rules.ci),
            (
                "infrastructure",
                raw.infrastructure,
                &mut rules.infrastructure,
            ),
            ("manifests", raw.manifests, &mut rules.manifests),
        ];
        for (key, patterns, slot) in watched {
            if let Some(p) = patterns {
                let p = gate.watched(&format!("commit.{key}"), slot.patterns(), p);
                match compile_globs(&p) {
                    Ok(globs) => *slot = globs,
                    Err((i, m)) => problems.bad_glob("commit", key, &p, i, &m),
                }
            }
        }
        // Paths left unwatched: an untrusted file may only narrow them.
        let exceptions = [
            (
                "migration_exceptions",
                raw.migration_exceptions,
                &mut rules.migration_exceptions,
            ),
            ("generated", raw.generated, &mut rules.generated),
            (
                "credential_exceptions",
                raw.credential_exceptions,
                &mut rules.credential_exceptions,
            ),
        ];
        for (key, patterns, slot) in exceptions {
            if let Some(p) = patterns {
                let p = gate.exceptions(&format!("commit.{key}"), &slot.patterns(), p);
                match compile_globs(&p) {
                    Ok(globs) => *slot = globs,
                    Err((i, m)) => problems.bad_glob("commit", key, &p, i, &m),
                }
            }
        }
        // Thresholds: lower flags more.
        for (key, value, slot) in [
            (
                "bulk_deleted_files",
                raw.bulk_deleted_files,
                &mut rules.bulk_deleted_files,
            ),
            (
                "bulk_deleted_lines",
                raw.bulk_deleted_lines,
                &mut rules.bulk_deleted_lines,
            ),
            ("large_files", raw.large_files, &mut rules.large_files),
            ("large_lines", raw.large_lines, &mut rules.large_lines),
        ] {
            if let Some(v) = value
                && gate.allows(&format!("commit.{key}"), v, v <= *slot)
            {
                *slot = v;
            }
        }
        if let Some(t) = raw.tiers {
            for (name, value) in [
                ("destructive_sql", t.destructive_sql),
                ("credential_file", t.credential_file),
                ("bulk_deletion", t.bulk_deletion),
                ("ci_config", t.ci_config),
                ("infrastructure", t.infrastructure),
                ("dependency_major_bump", t.dependency_major_bump),
                ("large_change", t.large_change),
            ] {
                if let Some(v) = value
                    && gate.allows(&format!("commit.tiers.{name}"), v, v >= rules.tier(name))
                {
                    rules.tiers.insert(name, v);
                }
            }
        }
    }

    fn layer_ai(&mut self, raw: RawAi, gate: &mut Gate, problems: &mut Problems) {
        let RawAi {
            enabled,
            order,
            timeout_secs,
            connect_timeout_secs,
            cache_secs,
            max_output_tokens,
            temperature,
        } = raw;
        let ai = &mut self.ai;
        if let Some(v) = enabled
            && gate.allows("ai.enabled", v, v >= ai.enabled)
        {
            ai.enabled = v;
        }
        if let Some(v) = order
            && gate.allows("ai.order", &v, v == ai.order)
        {
            ai.order = v;
        }
        for (key, value, slot) in [
            ("timeout_secs", timeout_secs, &mut ai.timeout_secs),
            (
                "connect_timeout_secs",
                connect_timeout_secs,
                &mut ai.connect_timeout_secs,
            ),
        ] {
            if let Some(v) = value
                && gate.allows(&format!("ai.{key}"), v, v == *slot)
            {
                if v == 0 {
                    problems.invalid("ai", key, "must be at least 1 (seconds)");
                } else {
                    *slot = v;
                }
            }
        }
        if let Some(v) = cache_secs
            && gate.allows("ai.cache_secs", v, v <= ai.cache_secs)
        {
            ai.cache_secs = v;
        }
        if let Some(v) = max_output_tokens
            && gate.allows("ai.max_output_tokens", v, v == ai.max_output_tokens)
        {
            if v < 64 {
                problems.invalid(
                    "ai",
                    "max_output_tokens",
                    "must be at least 64; reasoning models need 1024 or more",
                );
            } else {
                ai.max_output_tokens = v;
            }
        }
        if let Some(t) = temperature
            && gate.allows("ai.temperature", t, ai.temperature == Some(t))
        {
            if (0.0..=2.0).contains(&t) {
                ai.temperature = Some(t);
            } else {
                problems.invalid("ai", "temperature", "must be between 0 and 2");
            }
        }
    }
}

fn valid_verifier_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Splits a command as a POSIX shell would (quotes, escapes; no expansion).
pub fn split_command(command: &str) -> Result<Vec<String>, String> {
    let words = shell_words::split(command)
        .map_err(|e| format!("cannot split `{command}` like a shell: {e}; check its quotes"))?;
    if words.is_empty() {
        return Err("the command is empty; give a program and its arguments".into());
    }
    Ok(words)
}
