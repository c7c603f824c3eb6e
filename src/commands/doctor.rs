//! `git vouch doctor`: the config files in force (a file that cannot be used
//! makes it exit non-zero, naming the error), every AI provider, where its
//! key comes from (never the key), its base URL and model, which one would
//! judge, and with `--ping` a minimal real request and its latency.

use anyhow::Result;
use serde::Serialize;

use crate::commands::cli::DoctorArgs;
use crate::doors::context::Ctx;
use crate::verify::ai::{self, Provider};
use crate::{doors::exit::ExitStatus, interact::ui};

/// Everything `git vouch doctor` finds (`--json` prints it as is).
#[derive(Debug, Clone, Serialize)]
pub struct Doctor {
    /// Config files that cannot be used, with the error (vouch judges without them).
    pub config_errors: Vec<String>,
    /// What the config files made vouch say.
    pub config_warnings: Vec<String>,
    /// The proposer (`--primary`, `VOUCH_PRIMARY`, or an agent's marker), when known.
    pub primary: Option<String>,
    /// `[ai] enabled`.
    pub ai_enabled: bool,
    /// Every provider vouch knows.
    pub providers: Vec<ProviderReport>,
    /// The providers that would judge, in order (empty: none has a key).
    pub judges: Vec<String>,
    /// The first judge is of the proposer's family (less effective).
    pub same_family: bool,
    /// With `--ping`: one real request per provider that has a key.
    pub pings: Vec<Ping>,
    /// The audit log.
    pub audit_log: AuditLog,
}

/// One provider.
#[derive(Debug, Clone, Serialize)]
pub struct ProviderReport {
    /// Its name.
    pub name: String,
    /// Its wire format.
    pub kind: &'static str,
    /// Whose model it serves.
    pub family: String,
    /// The model that judges.
    pub model: String,
    /// Its base URL, credentials redacted.
    pub base_url: String,
    /// A key was found.
    pub has_key: bool,
    /// It needs one.
    pub needs_key: bool,
    /// Where the key comes from (or would: the variable to set). Never the key.
    pub key_source: String,
    /// Seconds since it last failed, while it is skipped for that.
    pub failed_secs_ago: Option<i64>,
}

/// A `--ping` result.
#[derive(Debug, Clone, Serialize)]
pub struct Ping {
    /// The provider.
    pub name: String,
    /// The latency of a successful request.
    pub latency_ms: Option<u128>,
    /// Why it failed.
    pub error: Option<String>,
}

/// Where the audit log is and whether a record can be written.
#[derive(Debug, Clone, Serialize)]
pub struct AuditLog {
    /// Its path, when it could be told.
    pub path: Option<String>,
    /// A record can be written.
    pub writable: bool,
    /// Why not.
    pub error: Option<String>,
}

/// `git vouch doctor`.
pub fn doctor(ctx: &Ctx, args: &DoctorArgs) -> Result<ExitStatus> {
    let root = crate::measure::git::Repo::discover(&ctx.cwd)
        .ok()
        .map(|r| r.root());
    let mut config = crate::classify::config::Config::clone(&ctx.config(root.as_deref()));
    config.ai.primary.clone_from(&args.primary);
    let report = gather(ctx, &config, args.ping)?;
    if args.json {
        ui::out(&serde_json::to_string_pretty(&report)?);
    } else {
        for w in &report.config_warnings {
            ui::warn(w);
        }
        ui::out(report.text().trim_end());
        if let Some(first) = config.broken.first() {
            ui::warn(&format!(
                "fix `{}`: until then vouch judges without it",
                first.path().display()
            ));
        }
    }
    if !report.config_errors.is_empty() || !report.audit_log.writable {
        return Ok(ExitStatus::Error);
    }
    Ok(ExitStatus::Allowed)
}

/// Gathers what `git vouch doctor` reports.
pub fn gather(ctx: &Ctx, config: &crate::classify::config::Config, ping: bool) -> Result<Doctor> {
    let all = ai::providers(config, ctx.env.as_ref());
    let primary = ai::primary(config.ai.primary.as_deref(), ctx.env.as_ref());
    let failures = ai::recent_failures(&ctx.dirs()?.state);
    let providers = all
        .iter()
        .map(|p| ProviderReport {
            name: p.name.clone(),
            kind: p.kind.as_str(),
            family: p.family.clone(),
            model: p.model.clone(),
            base_url: crate::input::text::redact_url(&p.base_url),
            has_key: p.key.is_some(),
            needs_key: p.needs_key,
            key_source: p.key_source.clone(),
            failed_secs_ago: failures.get(&p.name).copied(),
        })
        .collect();
    let never = |_: &str| false;
    let (chain, same_family) = ai::select(&all, primary.as_deref(), &config.ai.order, &never);
    let judges: Vec<String> = chain.iter().map(|p| p.name.clone()).collect();
    let pings = if ping {
        // Every provider that can be asked, judge or not.
        all.iter()
            .filter(|p| p.has_key())
            .map(|p| ping_one(p, config))
            .collect()
    } else {
        Vec::new()
    };
    let audit_log = match ctx.log_path(config) {
        Ok(path) => match crate::audit::check_writable(&path) {
            Ok(()) => AuditLog {
                path: Some(path.display().to_string()),
                writable: true,
                error: None,
            },
            Err(e) => AuditLog {
                path: Some(path.display().to_string()),
                writable: false,
                error: Some(format!("{e:#}")),
            },
        },
        Err(e) => AuditLog {
            path: None,
            writable: false,
            error: Some(format!("{e:#}")),
        },
    };
    Ok(Doctor {
        config_errors: config.broken.iter().map(ToString::to_string).collect(),
        config_warnings: config.warnings.clone(),
        primary,
        ai_enabled: config.ai.enabled,
        same_family: same_family && !judges.is_empty(),
        providers,
        judges,
        pings,
        audit_log,
    })
}

impl Doctor {
    /// The text `git vouch doctor` prints on stdout.
    pub fn text(&self) -> String {
        let mut out = Vec::new();
        for e in &self.config_errors {
            out.push(format!("config: cannot be used: {e}"));
        }
        out.push(format!(
            "proposer (primary): {}",
            self.primary
                .as_deref()
                .unwrap_or("unknown (set --primary or VOUCH_PRIMARY)")
        ));
        if !self.ai_enabled {
            out.push("the AI verifier is turned off (`[ai] enabled = false`)".to_owned());
        }
        for p in &self.providers {
            let failed = p
                .failed_secs_ago
                .map(|ago| format!("; failed {ago} s ago, skipped for 5 minutes after a failure"))
                .unwrap_or_default();
            let key = if p.has_key {
                format!("key from {}", p.key_source)
            } else if p.needs_key {
                format!("no key (set {})", p.key_source)
            } else {
                "no key needed".to_owned()
            };
            out.push(format!(
                "{:<12} {:<18} family {:<10} model {:<22} {}\n             {key}{failed}",
                p.name, p.kind, p.family, p.model, p.base_url
            ));
        }
        if self.judges.is_empty() {
            out.push(
                "judges: none: no provider has a key, so verified operations follow `on_unavailable` (`git vouch status` says what that means; set a key above to get verdicts)"
                    .to_owned(),
            );
        } else {
            let note = if self.same_family {
                " (same family as the proposer: less effective)"
            } else {
                ""
            };
            out.push(format!(
                "judges, in order: {}{note}",
                self.judges.join(", ")
            ));
        }
        for p in &self.pings {
            out.push(match (&p.latency_ms, &p.error) {
                (Some(ms), _) => format!("ping {}: ok in {ms} ms", p.name),
                (None, e) => format!(
                    "ping {}: failed: {}",
                    p.name,
                    e.as_deref().unwrap_or("unknown error")
                ),
            });
        }
        match (&self.audit_log.path, self.audit_log.writable) {
            (Some(path), true) => out.push(format!("audit log: {path} (writable)")),
            _ => out.push(format!(
                "audit log: {}; decisions would not be recorded (fix it, or set `[log] path` or VOUCH_LOG)",
                self.audit_log.error.as_deref().unwrap_or("unknown error")
            )),
        }
        let mut text = out.join("\n");
        text.push('\n');
        text
    }
}

fn ping_one(p: &Provider, config: &crate::classify::config::Config) -> Ping {
    match ai::ping(p, config) {
        Ok(latency) => Ping {
            name: p.name.clone(),
            latency_ms: Some(latency.as_millis()),
            error: None,
        },
        Err(e) => Ping {
            name: p.name.clone(),
            latency_ms: None,
            error: Some(e),
        },
    }
}
