//! `vouch doctor`: the config files in force (a file that cannot be used
//! makes it exit non-zero, naming the error), every AI provider, where its
//! key comes from (never the key), its base URL and model, which one would
//! judge, and with `--ping` a minimal real request and its latency.

use anyhow::Result;

use crate::ai::{self, Provider};
use crate::cli::DoctorArgs;
use crate::context::Ctx;
use crate::{ExitStatus, ui};

/// `vouch doctor`.
pub fn doctor(ctx: &Ctx, args: &DoctorArgs) -> Result<ExitStatus> {
    let root = crate::git::Repo::discover(&ctx.cwd).ok().map(|r| r.root());
    let mut config = ctx.config(root.as_deref());
    for w in &config.warnings {
        ui::warn(w);
    }
    for e in &config.broken {
        ui::out(&format!("config: cannot be used: {e}"));
    }
    config.ai.primary.clone_from(&args.primary);
    let all = ai::providers(&config, ctx.env.as_ref());
    let primary = ai::primary(config.ai.primary.as_deref(), ctx.env.as_ref());
    ui::out(&format!(
        "proposer (primary): {}",
        primary
            .as_deref()
            .unwrap_or("unknown (set --primary or VOUCH_PRIMARY)")
    ));
    if !config.ai.enabled {
        ui::out("the AI verifier is turned off (`[ai] enabled = false`)");
    }
    let failures = ai::recent_failures(&ctx.dirs()?.state);
    for p in &all {
        let failed = failures
            .get(&p.name)
            .map(|ago| format!("; failed {ago} s ago, skipped for 5 minutes after a failure"))
            .unwrap_or_default();
        let key = if p.key.is_some() {
            format!("key from {}", p.key_source)
        } else if p.needs_key {
            format!("no key (set {})", p.key_source)
        } else {
            "no key needed".to_owned()
        };
        ui::out(&format!(
            "{:<12} {:<18} family {:<10} model {:<22} {}\n             {key}{failed}",
            p.name,
            p.kind.as_str(),
            p.family,
            p.model,
            crate::text::redact_url(&p.base_url)
        ));
    }
    let never = |_: &str| false;
    let (chain, same_family) = ai::select(&all, primary.as_deref(), &config.ai.order, &never);
    let names: Vec<&str> = chain.iter().map(|p| p.name.as_str()).collect();
    if names.is_empty() {
        ui::out(
            "judges: none: no provider has a key, so verified operations follow `on_unavailable`",
        );
    } else {
        let note = if same_family {
            " (same family as the proposer: less effective)"
        } else {
            ""
        };
        ui::out(&format!("judges, in order: {}{note}", names.join(", ")));
    }
    if args.ping {
        // Every provider that can be asked, judge or not.
        for p in all.iter().filter(|p| p.has_key()) {
            ui::out(&ping_line(p, &config));
        }
    }
    let log_ok = log_writable(ctx, &config);
    if let Some(first) = config.broken.first() {
        ui::warn(&format!(
            "fix `{}`: until then vouch judges without it",
            first.path().display()
        ));
        return Ok(ExitStatus::Error);
    }
    if !log_ok {
        return Ok(ExitStatus::Error);
    }
    Ok(ExitStatus::Allowed)
}

/// Says where the audit log is and whether a record can be written to it;
/// false when it cannot (decisions would go unrecorded).
fn log_writable(ctx: &Ctx, config: &crate::config::Config) -> bool {
    let checked = ctx
        .log_path(config)
        .and_then(|path| crate::audit::check_writable(&path).map(|()| path));
    match checked {
        Ok(path) => {
            ui::out(&format!("audit log: {} (writable)", path.display()));
            true
        }
        Err(e) => {
            ui::out(&format!(
                "audit log: {e:#}; decisions would not be recorded (fix it, or set `[log] path` or VOUCH_LOG)"
            ));
            false
        }
    }
}

fn ping_line(p: &Provider, config: &crate::config::Config) -> String {
    match ai::ping(p, config) {
        Ok(latency) => format!("ping {}: ok in {} ms", p.name, latency.as_millis()),
        Err(e) => format!("ping {}: failed: {e}", p.name),
    }
}
