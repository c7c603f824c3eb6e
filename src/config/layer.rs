//! The layering (SPEC 3.2): defaults, the user config, the repository's
//! `.vouch.toml` under the one trust rule, the environment.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::raw::{
    RawAi, RawCommit, RawConfig, RawProvider, RawTiers, RawVerifier, locate, parse_raw,
};
use super::{
    Config, ConfigError, ConfigFile, ConfigInputs, DEFAULT_VERIFIER_TIMEOUT_SECS, Globs, Mode,
    Source, TierTable, VerifierConfig, compile_globs,
};
use crate::env::{Env, vars};
use crate::vocab::Tier;

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

impl Config {
    /// Builds the config in force from the files and the environment. A
    /// file that cannot be used is left out, noted in [`Config::broken`]
    /// and [`Config::warnings`]; this never fails.
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
        config
    }

    /// Applies one file over what is there, all of it or nothing.
    fn apply(&mut self, file: &ConfigFile, source: Source) {
        let layered = parse_raw(file).and_then(|raw| {
            let mut next = self.clone();
            let ignored = next.layer(raw, file, source)?;
            Ok((next, ignored))
        });
        match layered {
            Ok((next, ignored)) => {
                *self = next;
                if !ignored.is_empty() {
                    self.warnings.push(format!(
                        "ignored in `{}`, which is not trusted: {}. A repository's file may only make the guard stricter until a person reads it and runs `git vouch trust` in this repository at a terminal",
                        file.path.display(),
                        ignored.join(", ")
                    ));
                }
            }
            Err(e) => self.ignore_broken(e, source),
        }
    }

    /// Notes a file that cannot be used: it is left out, and every run says so.
    pub fn ignore_broken(&mut self, error: ConfigError, source: Source) {
        let then = match source {
            Source::User => {
                "it is ignored, and vouch judges with its built-in defaults until it is fixed (`git vouch doctor`)"
            }
            Source::TrustedRepo | Source::UntrustedRepo => {
                "it is ignored: ordinary work goes on, and risky operations are judged by the user config and the defaults"
            }
        };
        self.warnings.push(format!("{error}; {then}"));
        self.broken.push(error);
    }

    /// Applies one parsed file over what is there; returns what an untrusted
    /// file could not set.
    fn layer(
        &mut self,
        raw: RawConfig,
        file: &ConfigFile,
        source: Source,
    ) -> Result<Vec<String>, ConfigError> {
        let invalid = |table: &str, key: &str, message: String| ConfigError::Invalid {
            path: file.path.clone(),
            line: locate(&file.text, table, key),
            key: Some(if table.is_empty() {
                key.to_owned()
            } else {
                format!("{table}.{key}")
            }),
            message,
        };
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
        } = raw;
        if let Some(rules) = rules {
            // Rules only raise a command's tier, so any file may add them.
            crate::shell::Rules::with_user(&rules)
                .map_err(|e| invalid("rules", "pattern", e.to_string()))?;
            self.rules.extend(rules);
        }
        if let Some(budget) = agent.and_then(|a| a.budget_secs)
            && gate.allows(
                "agent.budget_secs",
                budget,
                budget == self.agent_budget_secs,
            )
        {
            if budget == 0 {
                return Err(invalid(
                    "agent",
                    "budget_secs",
                    "must be at least 1 (seconds an agent's command may wait for a verdict)".into(),
                ));
            }
            self.agent_budget_secs = budget;
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
            let words = split_command(&cmd).map_err(|m| invalid("", "notify_command", m))?;
            if self.notify_command.as_ref() == Some(&words) || gate.only_trusted("notify_command") {
                self.notify_command = Some(words);
            }
        }
        if let Some(p) = protected {
            if let Some(branches) = p.branches {
                let branches = gate.watched(
                    "protected.branches",
                    self.policy.protected_patterns.clone(),
                    branches,
                );
                self.policy.protected = compile_globs(&branches).map_err(|(i, m)| {
                    invalid(
                        "protected",
                        "branches",
                        format!(
                            "bad glob `{}`: {m}",
                            branches.get(i).map_or("", String::as_str)
                        ),
                    )
                })?;
                self.policy.protected_patterns = branches;
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
                self.policy.release_tags = compile_globs(&tags).map_err(|(i, m)| {
                    invalid(
                        "protected",
                        "release_tags",
                        format!("bad glob `{}`: {m}", tags.get(i).map_or("", String::as_str)),
                    )
                })?;
                self.policy.release_tag_patterns = tags;
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
            self.layer_verifiers(verifiers, file, &invalid)?;
        }
        if let Some(ai) = ai {
            self.layer_ai(ai, &mut gate)
                .map_err(|(key, m)| invalid("ai", key, m))?;
        }
        if let Some(providers) = providers
            && gate.only_trusted("[providers]")
        {
            for (name, p) in providers {
                if p.api_key.is_some() && source != Source::User {
                    return Err(invalid(
                        &format!("providers.{name}"),
                        "api_key",
                        "API keys are read from the environment or the user config, never from a repository file; remove it and set the key's variable".into(),
                    ));
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
                    entry.api_key = Some(crate::provider::Secret::new(k));
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
            self.layer_commit(c, &mut gate)
                .map_err(|(key, m)| invalid("commit", key, m))?;
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
                    return Err(invalid(
                        "log",
                        "max_bytes",
                        "must be at least 4096 (bytes)".into(),
                    ));
                }
                self.log_max_bytes = max;
            }
            if let Some(keep) = log.keep
                && gate.allows("log.keep", keep, keep >= self.log_keep)
            {
                if keep == 0 {
                    return Err(invalid(
                        "log",
                        "keep",
                        "must be at least 1 (rotated generations kept)".into(),
                    ));
                }
                self.log_keep = keep;
            }
        }
        Ok(gate.ignored)
    }

    fn layer_verifiers(
        &mut self,
        verifiers: BTreeMap<String, RawVerifier>,
        file: &ConfigFile,
        invalid: &dyn Fn(&str, &str, String) -> ConfigError,
    ) -> Result<(), ConfigError> {
        for (name, v) in verifiers {
            let table = format!("verifiers.{name}");
            if !valid_verifier_name(&name) {
                return Err(invalid(
                    "",
                    &table,
                    format!("verifier name `{name}` may hold only letters, digits, `-` and `_`"),
                ));
            }
            let command = match v.command {
                Some(c) => Some(split_command(&c).map_err(|m| invalid(&table, "command", m))?),
                None => None,
            };
            if v.timeout_secs == Some(0) {
                return Err(invalid(
                    &table,
                    "timeout_secs",
                    "must be at least 1 (seconds)".into(),
                ));
            }
            if v.tiers.as_ref().is_some_and(|t| t.contains(&Tier::None)) {
                return Err(invalid(
                    &table,
                    "tiers",
                    "tier `none` is never verified; accepted: `critical`, `high`, `standard`"
                        .into(),
                ));
            }
            let entry = self.verifiers.entry(name).or_insert(VerifierConfig {
                command: None,
                blocking: true,
                timeout_secs: DEFAULT_VERIFIER_TIMEOUT_SECS,
                tiers: None,
                enabled: true,
                source: file.path.display().to_string(),
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
            entry.source = file.path.display().to_string();
        }
        Ok(())
    }

    fn layer_commit(
        &mut self,
        raw: RawCommit,
        gate: &mut Gate,
    ) -> Result<(), (&'static str, String)> {
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
                *slot = compile_commit_globs(key, &p)?;
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
                *slot = compile_commit_globs(key, &p)?;
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
        Ok(())
    }

    fn layer_ai(&mut self, raw: RawAi, gate: &mut Gate) -> Result<(), (&'static str, String)> {
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
                    return Err((key, "must be at least 1 (seconds)".into()));
                }
                *slot = v;
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
                return Err((
                    "max_output_tokens",
                    "must be at least 64; reasoning models need 1024 or more".into(),
                ));
            }
            ai.max_output_tokens = v;
        }
        if let Some(t) = temperature
            && gate.allows("ai.temperature", t, ai.temperature == Some(t))
        {
            if !(0.0..=2.0).contains(&t) {
                return Err(("temperature", "must be between 0 and 2".into()));
            }
            ai.temperature = Some(t);
        }
        Ok(())
    }
}

fn compile_commit_globs(
    key: &'static str,
    patterns: &[String],
) -> Result<Globs, (&'static str, String)> {
    compile_globs(patterns).map_err(|(i, m)| {
        (
            key,
            format!(
                "bad glob `{}`: {m}",
                patterns.get(i).map_or("", String::as_str)
            ),
        )
    })
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
