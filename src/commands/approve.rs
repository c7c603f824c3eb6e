//! `vouch approve <id>`: a person at a terminal lets one refused operation
//! through. Without a terminal it refuses, so an agent cannot approve itself.

use anyhow::{Result, anyhow};
use jiff::Timestamp;

use crate::cli::ApproveArgs;
use crate::context::Ctx;
use crate::prompt::{self, Prompter};
use crate::review;
use crate::{ExitStatus, ui};

/// `vouch approve`.
pub fn approve(ctx: &Ctx, args: &ApproveArgs) -> Result<ExitStatus> {
    let state = ctx.dirs()?.state;
    let request = review::load_request(&state, args.id.trim())?;
    let Some(tty) = prompt::interactive(ctx.env.as_ref()) else {
        return Err(anyhow!(
            "`vouch approve` needs a person at a terminal, and there is none (no /dev/tty, or CI / VOUCH_HEADLESS is set): an agent or a script cannot approve its own operation. Run it yourself in a terminal"
        ));
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
            short(&r.old_oid),
            short(&r.new_oid)
        ));
    }
    for reason in &request.reasons {
        text.push_str(&format!("  reason: {reason}\n"));
    }
    for concern in &request.concerns {
        text.push_str(&format!("  concern: {concern}\n"));
    }
    tty.show(&text);
    if !tty.confirm("Approve this exact operation (valid 15 minutes, once)?") {
        ui::info("not approved");
        return Ok(ExitStatus::Refused);
    }
    let approval = review::approve(&state, &request, Timestamp::now())?;
    ui::info(&format!(
        "approved until {}: run the same push again",
        approval.expires_at
    ));
    Ok(ExitStatus::Allowed)
}

fn short(oid: &str) -> &str {
    &oid[..oid.len().min(10)]
}
