//! PURE: the figures of `vouch stats` (SPEC 7), computed from audit records
//! and the labels people gave with `vouch label`, and their text with bars.
//! Records in, figures out: no file system, no terminal, no clock (the
//! command reads the log and the labels, and prints).
//!
//! How the AI verifier's figures are attributed: the AI verifier's result in
//! a record's `verifiers` (named `ai` or `ai:<provider>`) has one check per
//! provider asked, named `<provider> (<model>)`, whose message starts with
//! its outcome (`verdict`, `unusable` or `unreachable`); each check counts
//! once as `asked` for that provider and model. The record's `ai` block
//! (latency, tokens, cost, retries) covers the whole run: it is counted to
//! the provider whose verdict decided (`verifier_provider`,
//! `verifier_model`), or, when none did, to the last provider asked. A
//! verdict reused from the cache made no request: it counts as `cached` and
//! stays out of the latency figures.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::audit::Record;
use crate::classify::Tier;
use crate::policy::{AuditResult, Decision};
use crate::verdict::VerifierResult;

pub use crate::vocab::Label;

/// One line of the labels file (`labels.jsonl` in the state dir).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelEntry {
    /// The operation, as in the audit log.
    pub operation_id: String,
    /// dangerous or safe.
    pub label: Label,
    /// The person's note.
    #[serde(default)]
    pub note: Option<String>,
    /// When it was given (UTC, RFC 3339).
    pub timestamp: String,
}

/// The labels in force, by operation id: the latest line for an id wins.
/// Lines that cannot be read are returned as problems (line number, why).
pub fn read_labels(text: &str) -> (HashMap<String, LabelEntry>, Vec<String>) {
    let mut labels = HashMap::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<LabelEntry>(line) {
            Ok(entry) => {
                labels.insert(entry.operation_id.clone(), entry);
            }
            Err(e) => problems.push(format!("line {}: {e}", i + 1)),
        }
    }
    (labels, problems)
}

/// How many of a group there were.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Count {
    /// The door, tier, result or decision.
    pub name: String,
    /// Decisions.
    pub count: u64,
}

/// A share: `count` of `of` (also `vouch eval`'s rates).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Those that did.
    pub count: u64,
    /// Out of.
    pub of: u64,
    /// `count / of`; `None` when `of` is 0.
    pub rate: Option<f64>,
}

impl Rate {
    /// `count` out of `of`.
    pub fn new<N: TryInto<u64>>(count: N, of: N) -> Self {
        let count = count.try_into().unwrap_or(u64::MAX);
        let of = of.try_into().unwrap_or(u64::MAX);
        let rate = (of > 0).then(|| float(count) / float(of));
        Self { count, of, rate }
    }

    /// `count/of` and the percentage (`-` with nothing to divide).
    pub fn show(&self) -> String {
        match self.rate {
            Some(r) => format!("{}/{} {:.1}%", self.count, self.of, r * 100.0),
            None => format!("{}/{} -", self.count, self.of),
        }
    }
}

/// The AI verifier's figures for one provider and model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProviderStats {
    /// The provider's name in config.
    pub provider: String,
    /// The model.
    pub model: String,
    /// Decisions on which it was asked for a verdict (its HTTP and feedback
    /// retries are in `retries`, not here).
    pub asked: u64,
    /// Times its verdict stood.
    pub verdicts: u64,
    /// Asked, and no answer was a usable verdict (the feedback retries included).
    pub unusable: Rate,
    /// Asked, and it could not be reached (transport or HTTP failure).
    pub unreachable: Rate,
    /// Decisions settled by a verdict of it reused from the cache (no request).
    pub cached: u64,
    /// Median latency of its runs (the whole AI verifier run), ms.
    pub latency_p50_ms: Option<u64>,
    /// 95th percentile latency of its runs, ms.
    pub latency_p95_ms: Option<u64>,
    /// Tokens sent.
    pub tokens_in: u64,
    /// Tokens received.
    pub tokens_out: u64,
    /// Estimated cost, when prices are configured.
    pub cost_usd: Option<f64>,
    /// HTTP and feedback retries.
    pub retries: u64,
    /// Runs that needed a retry, and how many of them still ended in a verdict.
    pub retry_success: Rate,
}

/// Catch and false-positive rates over the labelled decisions.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LabelStats {
    /// Labelled decisions counted. An override (`VOUCH_SKIP`, an approval)
    /// and `vouch approve`'s own line are left out: a person decided those.
    pub labelled: u64,
    /// Dangerous decisions that were refused or asked (in observe mode:
    /// that enforcing would have refused or asked).
    pub catch: Rate,
    /// Safe decisions that were refused or asked.
    pub false_positive: Rate,
}

/// What `vouch stats` shows; `--json` prints it as it is (the contract
/// scripts read).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    /// Decisions counted.
    pub decisions: u64,
    /// The oldest decision's timestamp.
    pub from: Option<String>,
    /// The newest decision's timestamp.
    pub to: Option<String>,
    /// By door: the hook or command that decided (`pre-push`, `check`, ...).
    pub by_door: Vec<Count>,
    /// By tier (`unknown`: not judged).
    pub by_tier: Vec<Count>,
    /// By the verifiers' result.
    pub by_result: Vec<Count>,
    /// By what happened.
    pub by_decision: Vec<Count>,
    /// Decisions let through with `VOUCH_SKIP`.
    pub skips: Rate,
    /// Decisions where a person overrode the verification (`VOUCH_SKIP` or
    /// an approval).
    pub overrides: Rate,
    /// The AI verifier, per provider and model, most asked first.
    pub providers: Vec<ProviderStats>,
    /// Where decisions were labelled.
    pub labels: LabelStats,
}

/// The tiers in the order they are shown.
const TIERS: [&str; 5] = ["critical", "high", "standard", "none", "unknown"];
const RESULTS: [AuditResult; 5] = [
    AuditResult::Proceed,
    AuditResult::Warn,
    AuditResult::Block,
    AuditResult::Skipped,
    AuditResult::Unavailable,
];
const DECISIONS: [Decision; 4] = [
    Decision::Allowed,
    Decision::Refused,
    Decision::AskedYes,
    Decision::AskedNo,
];

/// What is added up for one provider and model.
#[derive(Default)]
struct Acc {
    asked: u64,
    verdicts: u64,
    unusable: u64,
    unreachable: u64,
    cached: u64,
    latencies: Vec<u64>,
    tokens_in: u64,
    tokens_out: u64,
    cost: Option<f64>,
    retries: u64,
    retried: u64,
    retried_ok: u64,
}

/// The AI verifier's result among a record's verifiers.
fn ai_result(record: &Record) -> Option<&VerifierResult> {
    record
        .verifiers
        .iter()
        .rev()
        .find(|v| v.verifier == "ai" || v.verifier.starts_with("ai:"))
}

/// A check's `<provider> (<model>)` and the outcome its message starts with.
fn tried(check: &crate::verdict::Check) -> Option<(&str, &str, &str)> {
    let (provider, model) = check.name.rsplit_once(" (")?;
    let model = model.strip_suffix(')')?;
    let outcome = check.message.split(':').next()?.trim();
    Some((provider, model, outcome))
}

/// Whether vouch stopped the operation: refused it or asked a person
/// (in observe mode: would have).
fn stopped(r: &Record) -> bool {
    r.would_decide.is_some()
        || matches!(
            r.decision,
            Decision::Refused | Decision::AskedYes | Decision::AskedNo
        )
}

/// The nearest-rank percentile `p` (0-100] of sorted `values`.
pub fn percentile(sorted: &[u64], p: u64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len() as u64;
    let rank = (p * n).div_ceil(100).clamp(1, n);
    sorted
        .get(usize::try_from(rank - 1).unwrap_or(usize::MAX))
        .copied()
}

/// The figures of `records` (already filtered), with `labels` by operation id.
pub fn compute<'r, S: std::hash::BuildHasher>(
    records: impl IntoIterator<Item = &'r Record>,
    labels: &HashMap<String, LabelEntry, S>,
) -> Stats {
    let mut decisions = 0u64;
    let mut from: Option<&str> = None;
    let mut to: Option<&str> = None;
    let mut doors: BTreeMap<&str, u64> = BTreeMap::new();
    let mut tiers = [0u64; TIERS.len()];
    let mut results = [0u64; RESULTS.len()];
    let mut decided = [0u64; DECISIONS.len()];
    let (mut skips, mut overrides) = (0u64, 0u64);
    let mut providers: BTreeMap<(&str, &str), Acc> = BTreeMap::new();
    let mut labelled = LabelStats::default();
    let (mut dangerous, mut caught, mut safe, mut false_pos) = (0u64, 0u64, 0u64, 0u64);
    for r in records {
        decisions += 1;
        // RFC 3339 UTC stamps compare as text up to the second (the
        // fraction, when there is one, has no fixed width).
        let at = r.timestamp.as_str();
        let second = |s: &'r str| s.get(..19).unwrap_or(s);
        if from.is_none_or(|f| second(at) < second(f)) {
            from = Some(at);
        }
        if to.is_none_or(|t| second(at) > second(t)) {
            to = Some(at);
        }
        *doors.entry(r.hook.as_str()).or_default() += 1;
        let tier = r.risk_tier.map_or("unknown", Tier::as_str);
        if let Some(i) = TIERS.iter().position(|t| *t == tier) {
            tiers[i] += 1;
        }
        if let Some(i) = RESULTS.iter().position(|x| *x == r.result) {
            results[i] += 1;
        }
        if let Some(i) = DECISIONS.iter().position(|x| *x == r.decision) {
            decided[i] += 1;
        }
        if r.was_overridden {
            overrides += 1;
            if r.override_reason
                .as_deref()
                .is_some_and(|w| w.starts_with("VOUCH_SKIP"))
            {
                skips += 1;
            }
        }
        account_ai(r, &mut providers);
        if let Some(label) = labels.get(&r.operation_id)
            && !r.was_overridden
            && r.operation_type != "approve"
        {
            labelled.labelled += 1;
            match label.label {
                Label::Dangerous => {
                    dangerous += 1;
                    caught += u64::from(stopped(r));
                }
                Label::Safe => {
                    safe += 1;
                    false_pos += u64::from(stopped(r));
                }
            }
        }
    }
    labelled.catch = Rate::new(caught, dangerous);
    labelled.false_positive = Rate::new(false_pos, safe);
    let mut by_door: Vec<Count> = doors
        .into_iter()
        .map(|(name, count)| Count {
            name: name.to_owned(),
            count,
        })
        .collect();
    by_door.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    let counts = |names: &mut dyn Iterator<Item = &str>, n: &[u64]| -> Vec<Count> {
        names
            .zip(n)
            .map(|(name, &count)| Count {
                name: name.to_owned(),
                count,
            })
            .collect()
    };
    let mut providers: Vec<ProviderStats> = providers
        .into_iter()
        .map(|((provider, model), mut a)| {
            a.latencies.sort_unstable();
            ProviderStats {
                provider: provider.to_owned(),
                model: model.to_owned(),
                asked: a.asked,
                verdicts: a.verdicts,
                unusable: Rate::new(a.unusable, a.asked),
                unreachable: Rate::new(a.unreachable, a.asked),
                cached: a.cached,
                latency_p50_ms: percentile(&a.latencies, 50),
                latency_p95_ms: percentile(&a.latencies, 95),
                tokens_in: a.tokens_in,
                tokens_out: a.tokens_out,
                cost_usd: a.cost,
                retries: a.retries,
                retry_success: Rate::new(a.retried_ok, a.retried),
            }
        })
        .collect();
    providers.sort_by(|a, b| {
        (b.asked + b.cached)
            .cmp(&(a.asked + a.cached))
            .then_with(|| (&a.provider, &a.model).cmp(&(&b.provider, &b.model)))
    });
    Stats {
        decisions,
        from: from.map(str::to_owned),
        to: to.map(str::to_owned),
        by_door,
        by_tier: counts(&mut TIERS.iter().copied(), &tiers),
        by_result: counts(&mut RESULTS.iter().map(|r| r.as_str()), &results),
        by_decision: counts(&mut DECISIONS.iter().map(|d| d.as_str()), &decided),
        skips: Rate::new(skips, decisions),
        overrides: Rate::new(overrides, decisions),
        providers,
        labels: labelled,
    }
}

/// Adds one record's AI verifier run to the provider figures.
fn account_ai<'r>(r: &'r Record, providers: &mut BTreeMap<(&'r str, &'r str), Acc>) {
    let result = ai_result(r);
    let mut last = None;
    for check in result.map_or(&[][..], |v| v.checks.as_slice()) {
        let Some((provider, model, outcome)) = tried(check) else {
            continue;
        };
        let acc = providers.entry((provider, model)).or_default();
        acc.asked += 1;
        match outcome {
            "verdict" => acc.verdicts += 1,
            "unusable" => acc.unusable += 1,
            "unreachable" => acc.unreachable += 1,
            _ => {}
        }
        last = Some((provider, model));
    }
    let Some(usage) = &r.ai else { return };
    let decider = match (&r.verifier_provider, &r.verifier_model) {
        (Some(p), m) => Some((p.as_str(), m.as_deref().unwrap_or(""))),
        (None, _) => None,
    };
    let Some(key) = decider.or(last) else { return };
    let acc = providers.entry(key).or_default();
    if usage.cached {
        acc.cached += 1;
        return;
    }
    if last.is_none() {
        // A layout without the providers tried: the decider was asked once.
        acc.asked += 1;
        acc.verdicts += u64::from(decider.is_some());
    }
    acc.latencies.push(usage.latency_ms);
    acc.tokens_in += usage.tokens_in.unwrap_or(0);
    acc.tokens_out += usage.tokens_out.unwrap_or(0);
    if let Some(c) = usage.cost_usd {
        *acc.cost.get_or_insert(0.0) += c;
    }
    acc.retries += u64::from(usage.retries);
    if usage.retries > 0 {
        acc.retried += 1;
        acc.retried_ok += u64::from(decider.is_some());
    }
}

/// How bars are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bars {
    /// Unicode block characters, in eighths.
    Blocks,
    /// Plain `#` (with `NO_COLOR`).
    Plain,
}

/// The width of a full bar, in characters.
const BAR: u64 = 30;
/// Eighths of a block.
const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/// A count as a float, for shares and bars.
#[expect(
    clippy::cast_precision_loss,
    reason = "decision counts are far below 2^52"
)]
fn float(n: u64) -> f64 {
    n as f64
}

/// A bar of `value` against `max`: at least a sliver when `value` is not 0.
pub fn bar(value: f64, max: f64, bars: Bars) -> String {
    if !(value > 0.0 && max > 0.0) {
        return String::new();
    }
    let share = (value / max).min(1.0);
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "a share in [0, 1] times a small width"
    )]
    match bars {
        Bars::Plain => {
            let n = ((share * BAR as f64).round() as usize).max(1);
            "#".repeat(n)
        }
        Bars::Blocks => {
            let eighths = ((share * (BAR * 8) as f64).round() as usize).max(1);
            format!("{}{}", "█".repeat(eighths / 8), PARTS[eighths % 8])
        }
    }
}

fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "-".to_owned(), |r| format!("{:.1}%", r * 100.0))
}

/// The figures as text, each distribution with bars.
pub fn render(stats: &Stats, bars: Bars) -> String {
    let mut t = String::new();
    let stamp = |s: &Option<String>| {
        s.as_deref().map_or_else(String::new, |s| {
            s.parse::<jiff::Timestamp>().map_or_else(
                |_| s.to_owned(),
                |t| t.strftime("%Y-%m-%d %H:%M:%S").to_string(),
            )
        })
    };
    t.push_str(&format!(
        "{} decision(s), {} to {} (UTC)\n",
        stats.decisions,
        stamp(&stats.from),
        stamp(&stats.to)
    ));
    let width = [
        &stats.by_door,
        &stats.by_tier,
        &stats.by_result,
        &stats.by_decision,
    ]
    .iter()
    .flat_map(|c| c.iter().map(|c| c.name.len()))
    .max()
    .unwrap_or(0)
    .max(19);
    let section = |t: &mut String, title: &str, counts: &[Count]| {
        let max = float(counts.iter().map(|c| c.count).max().unwrap_or(0));
        t.push_str(&format!("\nby {title}\n"));
        for c in counts {
            t.push_str(
                format!(
                    "  {:<width$}  {:>7}  {}\n",
                    c.name,
                    c.count,
                    bar(float(c.count), max, bars)
                )
                .trim_end(),
            );
            t.push('\n');
        }
    };
    section(&mut t, "door", &stats.by_door);
    section(&mut t, "tier", &stats.by_tier);
    section(&mut t, "result", &stats.by_result);
    section(&mut t, "decision", &stats.by_decision);
    let rate_line = |t: &mut String, name: &str, r: &Rate| {
        t.push_str(
            format!(
                "  {name:<width$}  {:>7} of {:<7} {:>6}  {}",
                r.count,
                r.of,
                percent(r.rate),
                bar(r.rate.unwrap_or(0.0), 1.0, bars)
            )
            .trim_end(),
        );
        t.push('\n');
    };
    t.push_str("\noverrides\n");
    rate_line(&mut t, "skip rate", &stats.skips);
    rate_line(&mut t, "override rate", &stats.overrides);
    t.push_str("\nAI verifier, per provider and model\n");
    if stats.providers.is_empty() {
        t.push_str("  no AI verifier was asked\n");
    }
    for p in &stats.providers {
        let ms = |v: Option<u64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v} ms"));
        t.push_str(&format!("  {} ({})\n", p.provider, p.model));
        t.push_str(&format!(
            "    asked {}: verdict {}, unusable {} ({}), unreachable {} ({}); cached {}\n",
            p.asked,
            p.verdicts,
            p.unusable.count,
            percent(p.unusable.rate),
            p.unreachable.count,
            percent(p.unreachable.rate),
            p.cached
        ));
        t.push_str(&format!(
            "    latency p50 {}, p95 {}; tokens {} in, {} out; cost {}\n",
            ms(p.latency_p50_ms),
            ms(p.latency_p95_ms),
            p.tokens_in,
            p.tokens_out,
            p.cost_usd
                .map_or_else(|| "-".to_owned(), |c| format!("${c:.4}"))
        ));
        t.push_str(&format!(
            "    retries {}; retry success {} of {} ({})\n",
            p.retries,
            p.retry_success.count,
            p.retry_success.of,
            percent(p.retry_success.rate)
        ));
    }
    t.push_str(&format!(
        "\nlabelled decisions (`vouch label`): {}\n",
        stats.labels.labelled
    ));
    if stats.labels.labelled > 0 {
        rate_line(&mut t, "catch rate", &stats.labels.catch);
        rate_line(&mut t, "false-positive rate", &stats.labels.false_positive);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::AiUsage;
    use crate::verdict::{Check, Status};

    fn record(id: &str, hook: &str, result: AuditResult, decision: Decision) -> Record {
        Record {
            timestamp: "2026-11-20T10:00:00Z".into(),
            risk_tier: Some(Tier::Critical),
            ..Record::new(id, "push", hook, "/r", result, decision)
        }
    }

    fn ai(checks: &[(&str, &str)], provider: Option<&str>) -> VerifierResult {
        let mut v = VerifierResult::simple(
            &provider.map_or_else(|| "ai".to_owned(), |p| format!("ai:{p}")),
            if provider.is_some() {
                Status::Fail
            } else {
                Status::Error
            },
            String::new(),
            true,
        );
        v.checks = checks
            .iter()
            .map(|(name, message)| Check {
                name: (*name).to_owned(),
                status: Status::Error,
                message: (*message).to_owned(),
                details: serde_json::Value::Null,
            })
            .collect();
        v
    }

    fn usage(latency_ms: u64, retries: u32, cached: bool) -> AiUsage {
        AiUsage {
            tokens_in: Some(100),
            tokens_out: Some(50),
            cost_usd: Some(0.001),
            retries,
            escalated: false,
            cached,
            latency_ms,
        }
    }

    #[test]
    fn distributions_count_every_record_once() {
        let mut skipped = record("b", "check", AuditResult::Skipped, Decision::Allowed);
        skipped.risk_tier = None;
        skipped.was_overridden = true;
        skipped.override_reason = Some("VOUCH_SKIP: hotfix".into());
        let mut approved = record("c", "approve", AuditResult::Skipped, Decision::AskedYes);
        approved.was_overridden = true;
        approved.override_reason = Some("approved at the terminal".into());
        approved.timestamp = "2026-11-21T10:00:00Z".into();
        let records = [
            record("a", "pre-push", AuditResult::Block, Decision::Refused),
            skipped,
            approved,
        ];
        let s = compute(&records, &HashMap::new());
        assert_eq!(s.decisions, 3);
        assert_eq!(s.from.as_deref(), Some("2026-11-20T10:00:00Z"));
        assert_eq!(s.to.as_deref(), Some("2026-11-21T10:00:00Z"));
        let names = |c: &[Count]| {
            c.iter()
                .map(|c| format!("{}={}", c.name, c.count))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(names(&s.by_door), "approve=1 check=1 pre-push=1");
        assert_eq!(
            names(&s.by_tier),
            "critical=2 high=0 standard=0 none=0 unknown=1"
        );
        assert_eq!(
            names(&s.by_result),
            "proceed=0 warn=0 block=1 skipped=2 unavailable=0"
        );
        assert_eq!(
            names(&s.by_decision),
            "allowed=1 refused=1 asked-yes=1 asked-no=0"
        );
        assert_eq!((s.skips.count, s.skips.of), (1, 3));
        assert_eq!((s.overrides.count, s.overrides.of), (2, 3));
        assert!(s.providers.is_empty());
    }

    #[test]
    fn providers_are_credited_with_what_each_did() {
        // openai was unusable, then anthropic's verdict stood.
        let mut a = record("a", "pre-push", AuditResult::Block, Decision::Refused);
        a.verifier_provider = Some("anthropic".into());
        a.verifier_model = Some("claude-haiku-4-5".into());
        a.ai = Some(usage(900, 2, false));
        a.verifiers = vec![ai(
            &[
                ("openai (gpt-4.1-mini)", "unusable: not JSON"),
                ("anthropic (claude-haiku-4-5)", "verdict: block (stands)"),
            ],
            Some("anthropic"),
        )];
        // Nobody reachable: the run is counted to the last one asked.
        let mut b = record("b", "pre-push", AuditResult::Unavailable, Decision::Allowed);
        b.ai = Some(usage(300, 1, false));
        b.verifiers = vec![ai(
            &[("anthropic (claude-haiku-4-5)", "unreachable: timed out")],
            None,
        )];
        // A cached verdict: no request, no latency.
        let mut c = record("c", "pre-push", AuditResult::Block, Decision::Refused);
        c.verifier_provider = Some("anthropic".into());
        c.verifier_model = Some("claude-haiku-4-5".into());
        c.ai = Some(usage(0, 0, true));
        c.verifiers = vec![ai(&[], Some("anthropic"))];
        let s = compute(&[a, b, c], &HashMap::new());
        assert_eq!(s.providers.len(), 2);
        let an = &s.providers[0];
        assert_eq!((an.provider.as_str(), an.asked), ("anthropic", 2));
        assert_eq!((an.verdicts, an.unreachable.count, an.cached), (1, 1, 1));
        assert_eq!(
            (an.latency_p50_ms, an.latency_p95_ms),
            (Some(300), Some(900))
        );
        assert_eq!((an.tokens_in, an.tokens_out, an.retries), (200, 100, 3));
        assert_eq!((an.retry_success.count, an.retry_success.of), (1, 2));
        let op = &s.providers[1];
        assert_eq!((op.provider.as_str(), op.asked), ("openai", 1));
        assert_eq!((op.unusable.count, op.unusable.rate), (1, Some(1.0)));
        assert_eq!((op.tokens_in, op.latency_p50_ms), (0, None));
    }

    #[test]
    fn labels_give_catch_and_false_positive_rates() {
        let label = |id: &str, l: Label| {
            (
                id.to_owned(),
                LabelEntry {
                    operation_id: id.into(),
                    label: l,
                    note: None,
                    timestamp: String::new(),
                },
            )
        };
        let labels: HashMap<_, _> = [
            label("d1", Label::Dangerous),
            label("d2", Label::Dangerous),
            label("d3", Label::Dangerous),
            label("s1", Label::Safe),
            label("s2", Label::Safe),
        ]
        .into();
        let mut observed = record("d3", "pre-push", AuditResult::Block, Decision::Allowed);
        observed.would_decide = Some(crate::audit::Would::Refused);
        let mut skipped = record("s2", "pre-push", AuditResult::Skipped, Decision::Allowed);
        skipped.was_overridden = true;
        let records = [
            record("d1", "pre-push", AuditResult::Block, Decision::Refused),
            record("d2", "pre-push", AuditResult::Proceed, Decision::Allowed),
            observed,
            record("s1", "pre-push", AuditResult::Warn, Decision::AskedYes),
            skipped,
            record("other", "pre-push", AuditResult::Block, Decision::Refused),
        ];
        let s = compute(&records, &labels);
        assert_eq!(s.labels.labelled, 4, "the override is left out");
        assert_eq!((s.labels.catch.count, s.labels.catch.of), (2, 3));
        assert_eq!(
            (s.labels.false_positive.count, s.labels.false_positive.of),
            (1, 1)
        );
    }

    #[test]
    fn the_latest_label_wins_and_bad_lines_are_reported() {
        let text = "{\"operation_id\":\"a\",\"label\":\"safe\",\"timestamp\":\"t1\"}\nnot json\n{\"operation_id\":\"a\",\"label\":\"dangerous\",\"note\":\"n\",\"timestamp\":\"t2\"}\n";
        let (labels, problems) = read_labels(text);
        assert_eq!(labels["a"].label, Label::Dangerous);
        assert_eq!(labels["a"].note.as_deref(), Some("n"));
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("line 2"), "{problems:?}");
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&v, 50), Some(10));
        assert_eq!(percentile(&v, 95), Some(19));
        assert_eq!(percentile(&[7], 95), Some(7));
        assert_eq!(percentile(&[], 50), None);
    }

    #[test]
    fn bars_scale_to_the_largest_and_never_vanish() {
        assert_eq!(bar(10.0, 10.0, Bars::Plain), "#".repeat(30));
        assert_eq!(bar(5.0, 10.0, Bars::Plain), "#".repeat(15));
        assert_eq!(bar(0.01, 10.0, Bars::Plain), "#");
        assert_eq!(bar(0.0, 10.0, Bars::Plain), "");
        assert_eq!(bar(10.0, 10.0, Bars::Blocks), "█".repeat(30));
        // 1/16 of 240 eighths is 15: one full block and seven eighths.
        assert_eq!(bar(1.0, 16.0, Bars::Blocks), "█▉");
        assert_eq!(bar(0.001, 10.0, Bars::Blocks), "▏");
    }

    #[test]
    fn render_shows_bars_and_rates() {
        let a = record("a", "pre-push", AuditResult::Block, Decision::Refused);
        let b = record("b", "pre-push", AuditResult::Proceed, Decision::Allowed);
        let c = record("c", "pre-push", AuditResult::Proceed, Decision::Allowed);
        let s = compute(&[a, b, c], &HashMap::new());
        let text = render(&s, Bars::Plain);
        assert!(
            text.contains(&format!(
                "\n  pre-push                   3  {}\n",
                "#".repeat(30)
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "\n  block                      1  {}\n",
                "#".repeat(15)
            )),
            "{text}"
        );
        assert!(
            text.contains("\n  warn                       0\n"),
            "{text}"
        );
        assert!(
            text.contains("\n  skip rate                  0 of 3         0.0%\n"),
            "{text}"
        );
        assert!(!text.contains('█'));
        assert!(render(&s, Bars::Blocks).contains('█'));
    }
}
