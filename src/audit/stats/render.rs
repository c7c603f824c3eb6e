//! PURE: the figures of `git vouch stats` as text: each distribution with
//! bars of Unicode blocks in eighths, or of `#` with `NO_COLOR`, and the
//! rates beside their counts.

use super::{Count, Rate, Stats, float};
use crate::decide::AuditResult;

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
    rate_line(&mut t, "not verified", &stats.unverified);
    // The result `skipped` is every decision no verifier judged: say what
    // its count is made of, so that it and the skip rate do not seem to
    // disagree.
    let skipped = stats
        .by_result
        .iter()
        .find(|c| c.name == AuditResult::Skipped.as_str())
        .map_or(0, |c| c.count);
    if skipped > 0 {
        t.push_str(&format!(
            "  (the {skipped} `skipped` results: {} skipped with a reason, {} approved or otherwise overridden, {} not verified because of their tier)\n",
            stats.skips.count,
            stats.overrides.count.saturating_sub(stats.skips.count),
            stats.unverified.count
        ));
    }
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
        "\nlabelled decisions (`git vouch label`): {}\n",
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
    use std::collections::HashMap;

    use super::super::compute;
    use super::super::tests::record;
    use super::*;
    use crate::decide::Decision;

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
