//! `vouch approve <id>`: a person at a terminal lets one refused operation
//! through after typing `yes`. Without a terminal it refuses, so an agent
//! cannot approve itself.

use anyhow::Result;
use jiff::Timestamp;

use crate::audit::{self, Record};
use crate::cli::ApproveArgs;
use crate::commands::person;
use crate::context::Ctx;
use crate::env::vars;
use crate::review;
use crate::text::short_oid;
use crate::{ExitStatus, ui};

/// `vouch approve`.
pub fn approve(ctx: &Ctx, args: &ApproveArgs) -> Result<ExitStatus> {
    let state = ctx.dirs()?.state;
    let request = review::load_request(&state, args.id.trim())?;
    // Without a terminal it refuses, so an agent cannot approve itself.
    let Some(tty) = person::terminal(ctx, "vouch approve") else {
        return Ok(ExitStatus::Refused);
    };
    let mut text = format!(
        "Operation {} in `{}` ({} risk), refused at {}:\n  refused because: {}\n",
        request.operation_id,
        request.repo,
        request.tier,
        request.created_at,
        request.refused_because
    );
    text.push_str(&format!("  remote: {}\n", request.remote));
    for r in &request.refs {
        text.push_str(&format!(
            "  {}: {} -> {}\n",
            r.remote_ref,
            short_oid(&r.old_oid),
            short_oid(&r.new_oid)
        ));
    }
    for reason in &request.reasons {
        text.push_str(&format!("  reason: {reason}\n"));
    }
    for concern in &request.concerns {
        text.push_str(&format!("  concern: {concern}\n"));
    }
    text.push_str("Approve this exact operation (valid 15 minutes, once)?");
    let yes = person::typed_yes(&tty, &text);
    // The approval itself is a decision: it is logged before it takes effect.
    let config = ctx.load_config(None)?;
    let record = Record {
        risk_tier: request.tier.clone(),
        result: "skipped".into(),
        decision: if yes { "asked-yes" } else { "asked-no" }.into(),
        was_overridden: yes,
        override_reason: yes.then(|| "approved at the terminal with `vouch approve`".to_owned()),
        concerns: request.concerns.clone(),
        reasons: request.reasons.clone(),
        remote: Some(request.remote.clone()),
        session_id: ctx.env.var(vars::VOUCH_SESSION),
        ..Record::new(&request.operation_id, "approve", "approve", &request.repo)
    };
    audit::append(&ctx.log_path(&config)?, config.log_max_bytes, &record)?;
    if !yes {
        ui::info("not approved");
        return Ok(ExitStatus::Refused);
    }
    let approval = review::approve(&state, &request, Timestamp::now())?;
    ui::info(&format!(
        "approved until {}: run the same command again",
        approval.expires_at
    ));
    Ok(ExitStatus::Allowed)
}
