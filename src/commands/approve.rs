//! `git vouch approve <id>`: a person at a terminal lets one refused operation
//! through after typing `yes`. Without a terminal it refuses, so an agent
//! cannot approve itself.

use anyhow::Result;

use crate::classify::operation::{Operation, Unjudged};
use crate::commands::cli::ApproveArgs;
use crate::commands::person;
use crate::decide::{Action, AuditResult, Decision, Plan};
use crate::doors::context::Ctx;
use crate::doors::runner::Run;
use crate::input::text::short_oid;
use crate::interact::review;
use crate::{doors::exit::ExitStatus, interact::ui};

/// `git vouch approve`.
pub fn approve(ctx: &Ctx, args: &ApproveArgs) -> Result<ExitStatus> {
    let state = ctx.dirs()?.state;
    let request = review::load_request(&state, args.id.trim())?;
    // Without a terminal it refuses, so an agent cannot approve itself.
    let Some(tty) = person::terminal(ctx, "git vouch approve") else {
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
    let yes = person::typed_yes(tty.as_ref(), &text);
    // The approval itself is a decision: it is logged before it takes effect.
    let config = ctx.load_config(None)?;
    let op = Operation::Unjudged(Unjudged {
        id: Some(request.operation_id.clone()),
        remote: Some(request.remote.clone()),
        reasons: request.reasons.clone(),
        concerns: request.concerns.clone(),
        refs: request.refs.clone(),
        ..Unjudged::new(
            "approve",
            "approve",
            crate::classify::Tier::from_name(&request.tier),
        )
    });
    let plan = Plan {
        action: Action::Allow { warning: None },
        result: AuditResult::Skipped,
        override_reason: yes
            .then(|| "approved at the terminal with `git vouch approve`".to_owned()),
        would: None,
    };
    let root = std::path::PathBuf::from(&request.repo);
    let decision = if yes {
        Decision::AskedYes
    } else {
        Decision::AskedNo
    };
    let logged = Run::new(ctx, &config, &root, &op, std::time::Instant::now())
        .log_decided(&plan, decision, None);
    if logged == ExitStatus::Error {
        return Ok(ExitStatus::Error);
    }
    if !yes {
        ui::info("not approved");
        return Ok(ExitStatus::Refused);
    }
    let approval = review::approve(&state, &request, ctx.now())?;
    ui::info(&format!(
        "approved until {}: run the same command again",
        approval.expires_at
    ));
    Ok(ExitStatus::Allowed)
}
