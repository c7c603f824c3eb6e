//! PURE: the figures of `git vouch stats` (SPEC 7), computed from audit records
//! and the labels people gave with `git vouch label`, and their text with bars.
//! Records in, figures out: no file system, no terminal, no clock (the
//! command reads the log and the labels, and prints).
//!
//! How the AI verifier's figures are attributed: the AI verifier's result in
//! a record's `verifiers` (named `ai` or `ai:<provider>`) has one check per
//! provider asked, named `<provider> (<model>)`, whose message starts with
//! its outcome (`verdict`, `unusable` or `unreachable`) and whose details
//! say what asking it cost. Each provider is credited with its own check,
//! as `git vouch eval` credits it ([`Tally`] says what each figure means). A
//! line written before the checks carried their cost has only the whole
//! run's figures (the record's `ai` block): they go to the provider whose
//! verdict decided, or, when none did, to the last provider asked. A
//! verdict reused from the cache made no request: it counts as `cached`
//! and stays out of the latency figures.

use std::collections::HashMap;

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use crate::audit::Record;
use crate::classify::Tier;
use crate::decide::{AuditResult, Decision};
use crate::verify::store::{Borrowed, Text};
use crate::verify::verdict::{Check, VerifierResult};

pub use crate::classify::vocab::Label;
pub use render::{Bars, bar, render};

mod render;

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

/// A share: `count` of `of` (also `git vouch eval`'s rates).
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
    /// Usable verdicts it gave: the one that stood, or a block a
    /// tiebreaker then overruled.
    pub verdicts: u64,
    /// Asked, and no answer was a usable verdict (the feedback retries included).
    pub unusable: Rate,
    /// Asked, and it could not be reached (transport or HTTP failure).
    pub unreachable: Rate,
    /// Decisions settled by a verdict of it reused from the cache (no request).
    pub cached: u64,
    /// Median time spent asking it, its retries included (on lines older
    /// than the per-provider figures, the whole AI verifier run), ms.
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
    /// and `git vouch approve`'s own line are left out: a person decided those.
    pub labelled: u64,
    /// Dangerous decisions that were refused or asked (in observe mode:
    /// that enforcing would have refused or asked).
    pub catch: Rate,
    /// Safe decisions that were refused or asked.
    pub false_positive: Rate,
}

/// What `git vouch stats` shows; `--json` prints it as it is (the contract
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
    /// Decisions let through with a skip and its reason (`VOUCH_SKIP`, or
    /// the server's push option `vouch.skip`).
    pub skips: Rate,
    /// Decisions no verifier was asked about because their tier is not
    /// verified (the result `skipped` without an override): with `skips`
    /// and the approvals, what the result `skipped` counts.
    pub unverified: Rate,
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
const DECISIONS: [Decision; 5] = [
    Decision::Allowed,
    Decision::Refused,
    Decision::AskedPerson,
    Decision::AskedYes,
    Decision::AskedNo,
];

/// What asking one provider cost during one run: written by the AI
/// verifier as the `details` of its check for that provider.
pub use crate::verify::ai::Spent;

/// A check's `details` as [`Spent`] when it is an object, else nothing
/// (another verifier's checks carry details of their own). Read leniently:
/// a key that is not a count (another verifier's `"retries": "none"`) is
/// left at 0, so that a line is never unreadable here for its details,
/// as it is not for `Record`, whose details are any JSON.
fn spent_details<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Spent>, D::Error> {
    struct Details;
    impl<'de> serde::de::Visitor<'de> for Details {
        type Value = Option<Spent>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<M: serde::de::MapAccess<'de>>(
            self,
            mut map: M,
        ) -> Result<Self::Value, M::Error> {
            let mut spent = Spent::default();
            while let Some(key) = map.next_key::<Text<'de>>()? {
                let n = map.next_value::<Num>()?;
                let count = match n {
                    Num::Count(c) => c,
                    _ => 0,
                };
                match key.as_str() {
                    "retries" => spent.retries = u32::try_from(count).unwrap_or(u32::MAX),
                    "tokens_in" => spent.tokens_in = count,
                    "tokens_out" => spent.tokens_out = count,
                    "latency_ms" => spent.latency_ms = count,
                    "cost_usd" => {
                        spent.cost_usd = match n {
                            Num::Float(f) => Some(f),
                            Num::Count(c) => Some(float(c)),
                            Num::Other => None,
                        }
                    }
                    _ => {}
                }
            }
            Ok(Some(spent))
        }
        fn visit_seq<S: serde::de::SeqAccess<'de>>(
            self,
            mut seq: S,
        ) -> Result<Self::Value, S::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Details)
}

/// A JSON value read for a number: a count, a fraction, or anything else.
enum Num {
    Count(u64),
    Float(f64),
    Other,
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Num;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_u64<E>(self, v: u64) -> Result<Num, E> {
                Ok(Num::Count(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Num, E> {
                Ok(Num::Float(v))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Num, E> {
                Ok(Num::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Num, E> {
                Ok(Num::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Num, E> {
                Ok(Num::Other)
            }
            fn visit_unit<E>(self) -> Result<Num, E> {
                Ok(Num::Other)
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(self, mut seq: S) -> Result<Num, S::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Num::Other)
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<Num, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Num::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// What one provider cost, from the `details` of the AI verifier's check
/// for it: `None` when they are not an object (another verifier's checks
/// carry details of their own) or absent.
fn spent(details: &crate::verify::store::Raw<'_, serde_json::Value>) -> Option<Spent> {
    let text = details.text()?;
    spent_details(&mut serde_json::Deserializer::from_str(text))
        .ok()
        .flatten()
}

/// The AI verifier's result among the line's verifiers.
fn ai_result<'l, 'r>(r: &'l Record<Borrowed<'r>>) -> Option<&'l VerifierResult<Borrowed<'r>>> {
    r.verifiers.iter().rev().find(|v| {
        let name = v.verifier.as_str();
        name == "ai" || name.starts_with("ai:")
    })
}

/// Whether vouch stopped the operation: refused it or asked a person
/// (in observe mode: would have).
fn stopped(r: &Record<Borrowed<'_>>) -> bool {
    r.would_decide.is_some()
        || matches!(
            r.decision,
            Decision::Refused | Decision::AskedPerson | Decision::AskedYes | Decision::AskedNo
        )
}

/// Every provider the AI verifier asked, in order, as its checks say.
pub fn attempts<'l>(r: &'l Record<Borrowed<'_>>) -> Vec<Attempt<'l>> {
    ai_result(r)
        .map(|v| v.checks.iter().filter_map(Attempt::of_check).collect())
        .unwrap_or_default()
}

/// What came of asking one provider (the AI verifier's check for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It gave a usable verdict. The first one stands; a block that a
    /// tiebreaker then overruled (SPEC 6) is a usable verdict too.
    Verdict,
    /// It answered, but no answer was a usable verdict (its feedback
    /// retries included): not JSON, a refusal, a safety stop, truncated...
    Unusable,
    /// No answer: a transport or HTTP failure, or not asked because the
    /// time budget ran out.
    Unreachable,
}

impl Outcome {
    /// The word the AI verifier's check message starts with.
    pub fn from_word(word: &str) -> Option<Self> {
        match word {
            "verdict" => Some(Self::Verdict),
            "unusable" => Some(Self::Unusable),
            "unreachable" => Some(Self::Unreachable),
            _ => None,
        }
    }
}

/// One provider asked during one AI verifier run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attempt<'a> {
    /// The provider.
    pub provider: &'a str,
    /// The model asked.
    pub model: &'a str,
    /// What came of it.
    pub outcome: Outcome,
    /// What it cost, when the line says.
    pub spent: Option<Spent>,
}

impl<'a> Attempt<'a> {
    /// The attempt an AI verifier check records: named `<provider>
    /// (<model>)`, its message starting with the outcome.
    pub fn of_check(check: &'a Check<Borrowed<'_>>) -> Option<Self> {
        let (provider, model) = check.name.as_str().rsplit_once(" (")?;
        let model = model.strip_suffix(')')?;
        let word = check.message.as_str().split(':').next()?.trim();
        Some(Self {
            provider,
            model,
            outcome: Outcome::from_word(word)?,
            spent: spent(&check.details),
        })
    }
}

/// One provider's and model's figures, added up the same way by `vouch
/// stats` (from the audit log) and `git vouch eval` (from its runs). What
/// each figure means:
///
/// - `asked`: times the AI verifier asked it, once per decision (or eval
///   case) whatever its HTTP and feedback retries;
/// - `verdicts`: of those, the times it gave a usable verdict: the one
///   that stood, or a block a tiebreaker then overruled;
/// - `unusable`: the times it answered but gave no usable verdict, even
///   after the feedback retries, out of `asked`;
/// - `unreachable`: the times it could not be reached (transport or HTTP
///   failure, or the time budget ran out first), out of `asked`;
/// - `retry_success`: of the times it needed a retry (HTTP or feedback),
///   the ones that still ended in a usable verdict from it;
/// - latency, tokens and cost: what asking it took, its retries included.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Times asked.
    pub asked: u64,
    /// Usable verdicts.
    pub verdicts: u64,
    /// Answered, nothing usable.
    pub unusable: u64,
    /// Not reached.
    pub unreachable: u64,
    /// HTTP and feedback retries.
    pub retries: u64,
    /// Times it needed a retry.
    pub retried: u64,
    /// Of those, times it still gave a usable verdict.
    pub retried_ok: u64,
    /// Time per ask, ms (unsorted).
    pub latencies: Vec<u64>,
    /// Tokens sent.
    pub tokens_in: u64,
    /// Tokens received.
    pub tokens_out: u64,
    /// Estimated costs, in the order added, where a price was known.
    pub costs: Vec<f64>,
}

impl Tally {
    /// Counts one ask.
    pub fn ask(&mut self, outcome: Outcome) {
        self.asked += 1;
        match outcome {
            Outcome::Verdict => self.verdicts += 1,
            Outcome::Unusable => self.unusable += 1,
            Outcome::Unreachable => self.unreachable += 1,
        }
    }

    /// Adds what one ask cost; `ok` when it ended in a usable verdict.
    pub fn spend(&mut self, spent: &Spent, ok: bool) {
        self.latencies.push(spent.latency_ms);
        self.tokens_in += spent.tokens_in;
        self.tokens_out += spent.tokens_out;
        self.costs.extend(spent.cost_usd);
        self.retries += u64::from(spent.retries);
        if spent.retries > 0 {
            self.retried += 1;
            self.retried_ok += u64::from(ok);
        }
    }

    /// Counts one ask and what it cost.
    pub fn add(&mut self, outcome: Outcome, spent: &Spent) {
        self.ask(outcome);
        self.spend(spent, outcome == Outcome::Verdict);
    }

    /// The estimated cost, when any price was known: summed in the order
    /// added, so that the same figures come out however the log was split
    /// among threads.
    pub fn cost(&self) -> Option<f64> {
        (!self.costs.is_empty()).then(|| self.costs.iter().fold(0.0, |a, c| a + c))
    }

    /// Adds `later`'s figures to these.
    pub fn merge(&mut self, later: Self) {
        self.asked += later.asked;
        self.verdicts += later.verdicts;
        self.unusable += later.unusable;
        self.unreachable += later.unreachable;
        self.retries += later.retries;
        self.retried += later.retried;
        self.retried_ok += later.retried_ok;
        self.latencies.extend(later.latencies);
        self.tokens_in += later.tokens_in;
        self.tokens_out += later.tokens_out;
        self.costs.extend(later.costs);
    }

    /// Unusable answers out of the times asked.
    pub fn unusable_rate(&self) -> Rate {
        Rate::new(self.unusable, self.asked)
    }

    /// Failures to reach it out of the times asked.
    pub fn unreachable_rate(&self) -> Rate {
        Rate::new(self.unreachable, self.asked)
    }

    /// Usable verdicts out of the times it needed a retry.
    pub fn retry_success(&self) -> Rate {
        Rate::new(self.retried_ok, self.retried)
    }

    /// The latency percentile `p`, ms.
    pub fn latency(&mut self, p: u64) -> Option<u64> {
        self.latencies.sort_unstable();
        percentile(&self.latencies, p)
    }
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

/// The figures being added up, one line at a time ([`Totals::add`]), so
/// that no more than one generation of the log is held at once.
#[derive(Default)]
pub struct Totals {
    decisions: u64,
    from: Option<String>,
    to: Option<String>,
    doors: HashMap<String, u64>,
    tiers: [u64; TIERS.len()],
    results: [u64; RESULTS.len()],
    decided: [u64; DECISIONS.len()],
    skips: u64,
    unverified: u64,
    overrides: u64,
    providers: HashMap<(String, String), (Tally, u64)>,
    labelled: u64,
    dangerous: u64,
    caught: u64,
    safe: u64,
    false_pos: u64,
}

/// RFC 3339 UTC stamps compare as text up to the second (the fraction,
/// when there is one, has no fixed width).
fn second(s: &str) -> &str {
    s.get(..19).unwrap_or(s)
}

impl Totals {
    /// Adds one decision (already filtered), with `labels` by operation id.
    pub fn add<S: std::hash::BuildHasher>(
        &mut self,
        r: &Record<Borrowed<'_>>,
        labels: &HashMap<String, LabelEntry, S>,
    ) {
        self.decisions += 1;
        let at = r.timestamp.as_str();
        if self.from.as_deref().is_none_or(|f| second(at) < second(f)) {
            self.from = Some(at.to_owned());
        }
        if self.to.as_deref().is_none_or(|t| second(at) > second(t)) {
            self.to = Some(at.to_owned());
        }
        match self.doors.get_mut(r.hook.as_str()) {
            Some(n) => *n += 1,
            None => {
                self.doors.insert(r.hook.as_str().to_owned(), 1);
            }
        }
        let tier = r.risk_tier.map_or("unknown", Tier::as_str);
        if let Some(i) = TIERS.iter().position(|t| *t == tier) {
            self.tiers[i] += 1;
        }
        if let Some(i) = RESULTS.iter().position(|x| *x == r.result) {
            self.results[i] += 1;
        }
        if let Some(i) = DECISIONS.iter().position(|x| *x == r.decision) {
            self.decided[i] += 1;
        }
        if r.was_overridden {
            self.overrides += 1;
            // `VOUCH_SKIP: <why>`, or at the server door `push option
            // vouch.skip from <pusher>: <why>`.
            if r.override_reason.as_ref().is_some_and(|w| {
                w.as_str().starts_with("VOUCH_SKIP")
                    || w.as_str().starts_with("push option vouch.skip")
            }) {
                self.skips += 1;
            }
        } else if r.result == AuditResult::Skipped {
            self.unverified += 1;
        }
        self.account_ai(r);
        if let Some(label) = labels.get(r.operation_id.as_str())
            && !r.was_overridden
            && r.operation_type.as_str() != "approve"
        {
            self.labelled += 1;
            match label.label {
                Label::Dangerous => {
                    self.dangerous += 1;
                    self.caught += u64::from(stopped(r));
                }
                Label::Safe => {
                    self.safe += 1;
                    self.false_pos += u64::from(stopped(r));
                }
            }
        }
    }

    fn provider(&mut self, provider: &str, model: &str) -> &mut (Tally, u64) {
        let key = (provider.to_owned(), model.to_owned());
        self.providers.entry(key).or_default()
    }

    /// Adds one line's AI verifier run to the provider figures. A verdict
    /// reused from the cache made no request: it counts as `cached` for the
    /// provider that gave it, and nothing else. Each provider asked is
    /// credited with what asking it cost, as its check records it; a line
    /// written before vouch recorded that has only the whole run's
    /// figures (the `ai` block), which are credited to the provider whose
    /// verdict decided, or to the last one asked.
    fn account_ai(&mut self, r: &Record<Borrowed<'_>>) {
        let attempts = attempts(r);
        let Some(usage) = &r.ai else {
            for a in &attempts {
                self.provider(a.provider, a.model).0.ask(a.outcome);
            }
            return;
        };
        let decider = r.verifier_provider.as_ref().map(|p| {
            (
                p.as_str(),
                r.verifier_model.as_ref().map_or("", Text::as_str),
            )
        });
        if usage.cached {
            for a in &attempts {
                self.provider(a.provider, a.model).0.ask(a.outcome);
            }
            if let Some((p, m)) = decider.or(attempts.last().map(|a| (a.provider, a.model))) {
                self.provider(p, m).1 += 1;
            }
            return;
        }
        if !attempts.is_empty() && attempts.iter().all(|a| a.spent.is_some()) {
            for a in &attempts {
                let spent = a.spent.unwrap_or_default();
                self.provider(a.provider, a.model).0.add(a.outcome, &spent);
            }
            return;
        }
        // An older line: what each provider cost is not known.
        for a in &attempts {
            self.provider(a.provider, a.model).0.ask(a.outcome);
        }
        let last = attempts.last().map(|a| (a.provider, a.model));
        let Some((p, m)) = decider.or(last) else {
            return;
        };
        let tally = &mut self.provider(p, m).0;
        if last.is_none() {
            // A layout without the providers tried: the decider was asked once.
            tally.ask(Outcome::Verdict);
        }
        tally.spend(
            &Spent {
                retries: usage.retries,
                tokens_in: usage.tokens_in.unwrap_or(0),
                tokens_out: usage.tokens_out.unwrap_or(0),
                latency_ms: usage.latency_ms,
                cost_usd: usage.cost_usd,
            },
            decider.is_some(),
        );
    }

    /// Adds the figures of `later`, the lines that come after these in
    /// the log (a later generation): the result is the figures of both
    /// read in order.
    pub fn merge(&mut self, later: Self) {
        self.decisions += later.decisions;
        if let Some(f) = later.from
            && self.from.as_deref().is_none_or(|s| second(&f) < second(s))
        {
            self.from = Some(f);
        }
        if let Some(t) = later.to
            && self.to.as_deref().is_none_or(|s| second(&t) > second(s))
        {
            self.to = Some(t);
        }
        for (door, n) in later.doors {
            *self.doors.entry(door).or_default() += n;
        }
        for (mine, theirs) in [
            (&mut self.tiers[..], &later.tiers[..]),
            (&mut self.results[..], &later.results[..]),
            (&mut self.decided[..], &later.decided[..]),
        ] {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
        self.skips += later.skips;
        self.unverified += later.unverified;
        self.overrides += later.overrides;
        for (key, (tally, cached)) in later.providers {
            let mine = self.providers.entry(key).or_default();
            mine.0.merge(tally);
            mine.1 += cached;
        }
        self.labelled += later.labelled;
        self.dangerous += later.dangerous;
        self.caught += later.caught;
        self.safe += later.safe;
        self.false_pos += later.false_pos;
    }

    /// The figures.
    pub fn finish(self) -> Stats {
        let mut by_door: Vec<Count> = self
            .doors
            .into_iter()
            .map(|(name, count)| Count { name, count })
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
        let mut providers: Vec<ProviderStats> = self
            .providers
            .into_iter()
            .map(|((provider, model), (mut t, cached))| ProviderStats {
                provider,
                model,
                asked: t.asked,
                verdicts: t.verdicts,
                unusable: t.unusable_rate(),
                unreachable: t.unreachable_rate(),
                cached,
                latency_p50_ms: t.latency(50),
                latency_p95_ms: t.latency(95),
                tokens_in: t.tokens_in,
                tokens_out: t.tokens_out,
                cost_usd: t.cost(),
                retries: t.retries,
                retry_success: t.retry_success(),
            })
            .collect();
        providers.sort_by(|a, b| {
            (b.asked + b.cached)
                .cmp(&(a.asked + a.cached))
                .then_with(|| (&a.provider, &a.model).cmp(&(&b.provider, &b.model)))
        });
        Stats {
            decisions: self.decisions,
            from: self.from,
            to: self.to,
            by_door,
            by_tier: counts(&mut TIERS.iter().copied(), &self.tiers),
            by_result: counts(&mut RESULTS.iter().map(|r| r.as_str()), &self.results),
            by_decision: counts(&mut DECISIONS.iter().map(|d| d.as_str()), &self.decided),
            skips: Rate::new(self.skips, self.decisions),
            unverified: Rate::new(self.unverified, self.decisions),
            overrides: Rate::new(self.overrides, self.decisions),
            providers,
            labels: LabelStats {
                labelled: self.labelled,
                catch: Rate::new(self.caught, self.dangerous),
                false_positive: Rate::new(self.false_pos, self.safe),
            },
        }
    }
}

/// The figures of `records` (already filtered), with `labels` by operation
/// id: full records, each written as its line and read back as `git vouch
/// stats` reads the log.
pub fn compute<'r, S: std::hash::BuildHasher>(
    records: impl IntoIterator<Item = &'r Record>,
    labels: &HashMap<String, LabelEntry, S>,
) -> Stats {
    let mut figures = Totals::default();
    for r in records {
        // A record always has a JSON form, and reads back.
        let Ok(text) = serde_json::to_string(r) else {
            continue;
        };
        if let Ok(line) = Record::parse(&text) {
            figures.add(&line, labels);
        }
    }
    figures.finish()
}

/// A count as a float, for shares and bars.
#[expect(
    clippy::cast_precision_loss,
    reason = "decision counts are far below 2^52"
)]
pub(super) fn float(n: u64) -> f64 {
    n as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::AiUsage;
    use crate::verify::verdict::{Check, Status, VerifierResult};

    pub(super) fn record(id: &str, hook: &str, result: AuditResult, decision: Decision) -> Record {
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
        // The server door's skip, a push option with the pusher's name.
        let mut server = record("d", "pre-receive", AuditResult::Skipped, Decision::Allowed);
        server.was_overridden = true;
        server.override_reason = Some("push option vouch.skip from alice: hotfix".into());
        // Nobody was asked: the tier is not verified.
        let mut low = record("e", "pre-commit", AuditResult::Skipped, Decision::Allowed);
        low.risk_tier = Some(Tier::Standard);
        let records = [
            record("a", "pre-push", AuditResult::Block, Decision::Refused),
            skipped,
            approved,
            server,
            low,
        ];
        let s = compute(&records, &HashMap::new());
        assert_eq!((s.skips.count, s.skips.of), (2, 5), "both skips count");
        assert_eq!((s.unverified.count, s.unverified.of), (1, 5));
        assert!(
            render(&s, Bars::Plain).contains(
                "(the 4 `skipped` results: 2 skipped with a reason, 1 approved or otherwise overridden, 1 not verified because of their tier)"
            ),
            "{}",
            render(&s, Bars::Plain)
        );
        let records = &records[..3];
        let s = compute(records, &HashMap::new());
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
            "allowed=1 refused=1 asked-person=0 asked-yes=1 asked-no=0"
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
}
