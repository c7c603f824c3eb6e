//! `git vouch rescue`: the rescue refs written before an allowed local rewind or
//! deletion, listed, restored and pruned (pruning, which loses commits for
//! good, only by a person at a terminal).

use std::path::Path;

use anyhow::{Context, Result, bail};
use jiff::Timestamp;

use crate::commands::cli::{RescueAction, RescueArgs};
use crate::commands::person;
use crate::doors::context::Ctx;
use crate::input::text::{one_line, short_oid};
use crate::measure::git::{self, RESCUE_PREFIX, Repo, Rescue};
use crate::{doors::exit::ExitStatus, interact::ui};

/// `git vouch rescue`.
pub fn rescue(ctx: &Ctx, args: &RescueArgs) -> Result<ExitStatus> {
    let path = ctx.dir(args.repo.as_ref());
    let repo = Repo::discover(&path)?;
    match &args.action {
        None => list(&repo, false),
        Some(RescueAction::List { json }) => list(&repo, *json),
        Some(RescueAction::Restore { name, as_name }) => {
            restore(&repo, &repo.root(), name, as_name.as_deref())
        }
        Some(RescueAction::Prune {
            older_than,
            dry_run,
        }) => prune(ctx, &repo, older_than, *dry_run),
    }
}

fn list(repo: &Repo, json: bool) -> Result<ExitStatus> {
    let rescues = repo.rescues()?;
    if json {
        // One JSON array, `[]` when there is none.
        ui::out(&serde_json::to_string(&rescues)?);
        return Ok(ExitStatus::Allowed);
    }
    if rescues.is_empty() {
        ui::info("no rescue refs: vouch writes one before it lets a rewind or deletion through");
        return Ok(ExitStatus::Allowed);
    }
    ui::out(&format!(
        "{:<44} {:<22} {:<10} {:>10}  {}",
        "NAME", "SAVED", "COMMIT", "ONLY HERE", "FROM / SUBJECT"
    ));
    for r in &rescues {
        ui::out(&format!(
            "{:<44} {:<22} {:<10} {:>10}  {} / {}",
            r.name.strip_prefix(RESCUE_PREFIX).unwrap_or(&r.name),
            r.saved_at,
            short_oid(&r.oid),
            r.only_here,
            r.original,
            one_line(&r.subject, 60)
        ));
    }
    ui::info(
        "`git vouch rescue restore <NAME>` puts one back; `ONLY HERE` counts commits no other ref holds",
    );
    Ok(ExitStatus::Allowed)
}

fn find(repo: &Repo, name: &str) -> Result<Rescue> {
    let full = if name.starts_with(RESCUE_PREFIX) {
        name.to_owned()
    } else {
        format!("{RESCUE_PREFIX}{name}")
    };
    repo.rescues()?
        .into_iter()
        .find(|r| r.name == full)
        .with_context(|| {
            format!(
                "there is no rescue ref `{name}`; `git vouch rescue list` shows the ones there are"
            )
        })
}

fn restore(repo: &Repo, root: &Path, name: &str, as_name: Option<&str>) -> Result<ExitStatus> {
    let rescue = find(repo, name)?;
    let oid = rescue.oid.as_str();
    if rescue.original == "refs/stash" && as_name.is_none() {
        git::stash_store(root, oid)?;
        ui::info(&format!(
            "put {} back on the stash as `stash@{{0}}`",
            short_oid(oid)
        ));
        return Ok(ExitStatus::Allowed);
    }
    let target = match as_name {
        Some(n) if n.starts_with("refs/") => n.to_owned(),
        Some(n) if rescue.original.starts_with("refs/tags/") => format!("refs/tags/{n}"),
        Some(n) => format!("refs/heads/{n}"),
        None => rescue.original.clone(),
    };
    let short_target = target
        .strip_prefix("refs/heads/")
        .or_else(|| target.strip_prefix("refs/tags/"))
        .unwrap_or(&target);
    match repo.ref_value(&target) {
        None => {
            git::update_ref(root, &target, oid, None)?;
            ui::info(&format!("restored `{short_target}` at {}", short_oid(oid)));
        }
        Some(now) if now == oid => {
            ui::info(&format!(
                "`{short_target}` already points at {}; nothing to do",
                short_oid(oid)
            ));
        }
        Some(now) if as_name.is_none() && repo.contains(oid, &now) => {
            if repo.current_branch().as_deref() == Some(short_target) {
                // Moving a checked-out branch under the work tree would leave
                // its files behind: a fast-forward moves both.
                git::fast_forward(root, rescue.rev()).with_context(|| {
                    format!(
                        "`{short_target}` is checked out and could not be moved forward: commit or stash your changes (`git stash`), then run `git vouch rescue restore {name}` again"
                    )
                })?;
                ui::info(&format!(
                    "moved `{short_target}` (checked out) forward from {} to {}, with its files",
                    short_oid(&now),
                    short_oid(oid)
                ));
                return Ok(ExitStatus::Allowed);
            }
            git::update_ref(root, &target, oid, Some(&now))?;
            ui::info(&format!(
                "moved `{short_target}` forward from {} to {}",
                short_oid(&now),
                short_oid(oid)
            ));
        }
        Some(now) => bail!(
            "`{short_target}` exists and points at {}, which is not behind the rescued {}; restoring would move it sideways. Restore under another name:\n\n    git vouch rescue restore {name} --as {short_target}-restored\n",
            short_oid(&now),
            short_oid(oid)
        ),
    }
    Ok(ExitStatus::Allowed)
}

fn prune(ctx: &Ctx, repo: &Repo, older_than: &str, dry_run: bool) -> Result<ExitStatus> {
    let cutoff = super::log::parse_since(older_than, Timestamp::now())
        .with_context(|| format!("`--older-than {older_than}`: give an age such as `30d`"))?;
    let old: Vec<Rescue> = repo
        .rescues()?
        .into_iter()
        .filter(|r| {
            r.saved_at
                .parse::<Timestamp>()
                .is_ok_and(|saved| saved < cutoff)
        })
        .collect();
    if old.is_empty() {
        ui::info(&format!("no rescue ref is older than {older_than}"));
        return Ok(ExitStatus::Allowed);
    }
    let line = |r: &Rescue, verb: &str| {
        format!(
            "{verb} `{}` ({}, {} commit(s) only there)",
            r.name,
            short_oid(&r.oid),
            r.only_here
        )
    };
    if dry_run {
        for r in &old {
            ui::info(&line(r, "would delete"));
        }
        ui::info("run it again without `--dry-run`, at a terminal, to delete them");
        return Ok(ExitStatus::Allowed);
    }
    // The commits a rescue ref alone holds are gone for good once it is deleted.
    let mut what = String::from("This deletes these rescue refs for good:\n");
    for r in &old {
        what.push_str(&format!("  {}\n", line(r, "delete")));
    }
    what.push_str("The commits only they hold can no longer be restored.");
    if !person::confirms(ctx, "git vouch rescue prune", &what) {
        return Ok(ExitStatus::Refused);
    }
    repo.delete_rescues(&old)?;
    for r in &old {
        ui::info(&line(r, "deleted"));
    }
    Ok(ExitStatus::Allowed)
}
