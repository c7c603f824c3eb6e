//! `git vouch eval` (SPEC 8): runs a labelled corpus through the configured AI
//! verifier and reports what it caught. Each case is asked exactly as a
//! live decision asks (the same prompt, [`crate::verify::ai::prompt::for_operation`]
//! and [`crate::verify::ai::prompt::SYSTEM`]; the same provider chain, retries and
//! reading of the answer, [`crate::verify::ai::verify_with`]), with no hook, no
//! question at a terminal and no verdict cache. The figures are computed by
//! the pure [`crate::audit::eval`].
//!
//! Cases are independent: each is judged with a fresh circuit breaker in a
//! private state dir (a provider failing on one case is still asked about
//! the next, and the live breaker is neither read nor tripped), and no
//! session's earlier blocks call the tiebreaker.

use std::fs;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result, bail};

use crate::audit::eval::{self, Asked, Case, CaseRun, Said};
use crate::classify::config::Config;
use crate::commands::cli::EvalArgs;
use crate::doors::context::Ctx;
use crate::platform::env::Env;
use crate::verify::ai::{self, AiRun};
use crate::{doors::exit::ExitStatus, interact::ui};

/// A case as the verifier judged it, and the run's warnings.
type Judged = (CaseRun, Vec<String>);

/// Cases asked at once: the work is waiting on the network, not the CPU.
const PARALLEL: usize = 4;

/// Runs `git vouch eval`.
pub fn eval(ctx: &Ctx, args: &EvalArgs) -> Result<ExitStatus> {
    let text = fs::read_to_string(&args.corpus)
        .with_context(|| format!("cannot read the corpus `{}`", args.corpus.display()))?;
    let cases = eval::parse_corpus(&text)
        .with_context(|| format!("the corpus `{}`", args.corpus.display()))?;
    let mut config = Config::clone(&ctx.config(None));
    for w in &config.warnings {
        ui::warn(w);
    }
    // A cached verdict would measure the cache, not the verifier.
    config.ai.cache_secs = 0;
    let env = ctx.env.as_ref();
    check_providers(&config, env, args.provider.as_deref())?;

    let state = ctx
        .dirs()?
        .state
        .join("eval")
        .join(std::process::id().to_string());
    let workers = PARALLEL.min(cases.len());
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let runs: Mutex<Vec<Option<Judged>>> = Mutex::new(vec![None; cases.len()]);
    let progress = console::Term::stderr().is_term() && !args.json;
    let total = cases.len();
    std::thread::scope(|s| {
        for w in 0..workers {
            let dir = state.join(w.to_string());
            let (config, cases, next, done, runs) = (&config, &cases, &next, &done, &runs);
            let provider = args.provider.as_deref();
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((line, case)) = cases.get(i) else {
                        break;
                    };
                    let run = run_case(config, env, &dir, *line, case, provider);
                    if let Ok(mut all) = runs.lock() {
                        all[i] = Some(run);
                    }
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if progress {
                        ui::err_text(&bar(n, total));
                    }
                }
            });
        }
    });
    if progress {
        ui::err_text(&format!("\r{}\r", " ".repeat(60)));
    }
    fs::remove_dir_all(&state).ok();
    let mut warnings: Vec<String> = Vec::new();
    let mut done_runs = Vec::with_capacity(total);
    for (run, w) in runs.into_inner().unwrap_or_default().into_iter().flatten() {
        for w in w {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        done_runs.push(run);
    }
    for w in &warnings {
        ui::warn(w);
    }
    let report = eval::report(&done_runs);
    if args.json {
        ui::out(&serde_json::to_string_pretty(&report).context("cannot write the report")?);
    } else {
        ui::out(eval::render(&report).trim_end());
    }
    Ok(ExitStatus::Allowed)
}

/// Refuses to start when nothing could be asked: a run of unreachable
/// cases would measure nothing.
fn check_providers(config: &Config, env: &dyn Env, only: Option<&str>) -> Result<()> {
    if !config.ai.enabled {
        bail!("the AI verifier is turned off (`[ai] enabled = false` in the config)");
    }
    let all = ai::providers(config, env);
    match only {
        Some(name) => {
            let Some(p) = all.iter().find(|p| p.name == name) else {
                let names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
                bail!(
                    "no provider `{name}`; the providers are: {} (`git vouch doctor` shows each)",
                    names.join(", ")
                );
            };
            if !p.has_key() {
                bail!(
                    "provider `{name}` has no key: set {} (`git vouch doctor` shows each provider)",
                    p.key_source
                );
            }
        }
        None => {
            if !all.iter().any(ai::Provider::has_key) {
                bail!(
                    "no AI provider has a key: set ANTHROPIC_API_KEY, GEMINI_API_KEY or OPENAI_API_KEY, or configure a local server (`git vouch doctor` shows each provider)"
                );
            }
        }
    }
    Ok(())
}

/// Asks about one case; returns what each provider said, and the run's warnings.
fn run_case(
    config: &Config,
    env: &dyn Env,
    state: &Path,
    line: usize,
    case: &Case,
    only: Option<&str>,
) -> Judged {
    // A fresh breaker: every case is judged on its own.
    fs::remove_file(state.join("ai-breaker.json")).ok();
    let repo_name = case.repo_name.as_deref().unwrap_or("repository");
    let prompt = ai::prompt::for_operation(&case.operation, repo_name);
    // The id keys the verdict cache, which is off for an evaluation.
    let run = ai::verify_with(config, env, state, "eval", &prompt, &|| 0, only);
    let warnings = run.as_ref().map(|r| r.warnings.clone()).unwrap_or_default();
    (
        CaseRun {
            line,
            label: case.label,
            note: case.note.clone(),
            asked: run.map(|r| asked(&r)).unwrap_or_default(),
        },
        warnings,
    )
}

/// Every provider asked during `run`, as the pure report reads them.
fn asked(run: &AiRun) -> Vec<Asked> {
    let verdict = run.result.as_ref().and_then(|r| r.verdict.as_ref());
    run.tried
        .iter()
        .map(|t| Asked {
            provider: t.provider.clone(),
            model: t.model.clone(),
            said: match (t.outcome, verdict) {
                ("verdict", Some(v)) => Said::Verdict {
                    recommendation: v.effective(),
                    scores: v.scores,
                },
                ("unusable" | "verdict", _) => Said::Unusable,
                _ => Said::Unreachable,
            },
            retries: t.retries,
            latency_ms: t.latency_ms,
            tokens_in: t.tokens_in,
            tokens_out: t.tokens_out,
            cost_usd: t.cost_usd,
        })
        .collect()
}

/// The progress line: `[#####.....] 12/60 cases`.
fn bar(done: usize, total: usize) -> String {
    const WIDTH: usize = 30;
    let filled = (done * WIDTH).checked_div(total).unwrap_or(WIDTH);
    format!(
        "\r[{}{}] {done}/{total} cases",
        "#".repeat(filled),
        ".".repeat(WIDTH - filled)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_fills_with_the_cases_done() {
        assert_eq!(bar(0, 4), format!("\r[{}] 0/4 cases", ".".repeat(30)));
        assert_eq!(
            bar(2, 4),
            format!("\r[{}{}] 2/4 cases", "#".repeat(15), ".".repeat(15))
        );
        assert_eq!(bar(4, 4), format!("\r[{}] 4/4 cases", "#".repeat(30)));
    }
}
