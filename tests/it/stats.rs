//! `git vouch stats`, `git vouch label`, `git vouch log --export-eval` and `--explain`.
//!
//! `fixtures/stats/audit.jsonl` is a log of known contents: written by
//! [`fixture_records`] through vouch's own `Record` type (run
//! `VOUCH_WRITE_FIXTURES=1 cargo test --test it stats::` to rewrite it),
//! and checked here to be exactly what that type reads and writes. The
//! figures the tests expect were counted by hand from the table in
//! [`fixture_records`].

use std::fs;
use std::path::PathBuf;

use serde_json::{Value, json};
use vouch::audit::{AiUsage, Record, Would};
use vouch::classify::Tier;
use vouch::classify::config::Mode;
use vouch::decide::{AuditResult, Decision};
use vouch::verify::verdict::{Check, Recommendation, Scores, Status, Verdict, VerifierResult};

use crate::support::llm::{LlmServer, Reply, ok};
use crate::support::{TestEnv, verdict_body};

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/stats/audit.jsonl")
}

const APP: &str = "/home/dev/app";
const LIB: &str = "/home/dev/lib";
const HAIKU: &str = "claude-haiku-4-5";
const MINI: &str = "gpt-4.1-mini";
const FLASH: &str = "gemini-2.5-flash";

/// The AI verifier's result as `ai::verify` writes it: one check per
/// provider asked (`<provider> (<model>)`, `<outcome>: <why>`), named
/// `ai:<provider>` with the verdict when one stood, else `ai`.
fn ai_result(
    tried: &[(&str, &str, &str, &str)],
    verdict: Option<(&str, Recommendation)>,
) -> VerifierResult {
    let status = match verdict.map(|v| v.1) {
        Some(Recommendation::Proceed) => Status::Pass,
        Some(Recommendation::Warn) => Status::Warn,
        Some(Recommendation::Block) => Status::Fail,
        None => Status::Error,
    };
    let name = verdict.map_or_else(|| "ai".to_owned(), |(p, _)| format!("ai:{p}"));
    let mut r = VerifierResult::simple(&name, status, "the verifier's reasoning".into(), true);
    r.checks = tried
        .iter()
        .map(|(provider, model, outcome, why)| Check {
            name: format!("{provider} ({model})"),
            status: if *outcome == "verdict" {
                status
            } else {
                Status::Error
            },
            message: format!("{outcome}: {why}"),
            details: Value::Null,
        })
        .collect();
    r.verdict = verdict.map(|(_, rec)| {
        let s = match rec {
            Recommendation::Proceed => 0.9,
            Recommendation::Warn => 0.6,
            Recommendation::Block => 0.2,
        };
        Verdict {
            verified: rec == Recommendation::Proceed,
            confidence: 0.9,
            concerns: if rec == Recommendation::Proceed {
                vec![]
            } else {
                vec!["commits would be destroyed on a shared branch".into()]
            },
            recommendation: rec,
            reasoning: "the verifier's reasoning".into(),
            scores: Some(Scores {
                recoverability: s,
                blast_radius: s,
                intent_fit: s,
                safeguards: s,
            }),
            defects: vec![],
        }
    });
    r
}

fn usage(
    latency_ms: u64,
    tokens: (u64, u64),
    cost: Option<f64>,
    retries: u32,
    cached: bool,
) -> AiUsage {
    AiUsage {
        tokens_in: Some(tokens.0),
        tokens_out: Some(tokens.1),
        cost_usd: cost,
        retries,
        escalated: false,
        cached,
        latency_ms,
    }
}

/// The AI verifier's part of a row: who decided, the usage, its result.
type AiPart<'a> = (Option<(&'a str, &'a str)>, AiUsage, VerifierResult);

#[expect(clippy::too_many_arguments, reason = "one row of the fixture table")]
fn rec(
    at: &str,
    id: &str,
    hook: &str,
    tier: Option<Tier>,
    result: AuditResult,
    decision: Decision,
    repo: &str,
    ai: Option<AiPart<'_>>,
) -> Record {
    let noun = match hook {
        "pre-push" => "push",
        "pre-commit" => "commit",
        "reference-transaction" => "ref-update",
        "approve" => "approve",
        _ => "command",
    };
    let mut r = Record {
        timestamp: at.into(),
        risk_tier: tier,
        latency_ms: 40,
        branch: Some("main".into()),
        reasons: tier
            .filter(|t| *t > Tier::None)
            .map(|t| vec![format!("a {t} finding")])
            .unwrap_or_default(),
        builtin: tier.map(|_| {
            VerifierResult::simple("builtin", Status::Pass, "rules applied".into(), false)
        }),
        ..Record::new(id, noun, hook, repo, result, decision)
    };
    if let Some((decider, usage, result)) = ai {
        r.primary_provider = Some("google".into());
        r.verifier_provider = decider.map(|d| d.0.to_owned());
        r.verifier_model = decider.map(|d| d.1.to_owned());
        r.confidence = result.verdict.as_ref().map(|v| v.confidence);
        r.scores = result.verdict.as_ref().and_then(|v| v.scores);
        r.concerns = result
            .verdict
            .as_ref()
            .map(|v| v.concerns.clone())
            .unwrap_or_default();
        r.ai = Some(usage);
        r.verifiers = vec![result];
    }
    r
}

/// The fixture log. What each line counts for:
///
/// | # | id | door | tier | result | decision | AI | label (tests) |
/// |---|----|------|------|--------|----------|----|---------------|
/// | 1 | d1 | pre-push | critical | block | refused | anthropic verdict, 800 ms | dangerous: caught |
/// | 2 | d2 | pre-push | critical | unavailable | allowed | openai unusable, anthropic unreachable, 3000 ms, 3 retries | dangerous: missed |
/// | 3 | s1 | pre-push | high | proceed | allowed | openai unusable, anthropic verdict, 1500 ms, 2 retries | safe |
/// | 4 | s2 | reference-transaction | high | warn | asked-yes | anthropic verdict, 1200 ms | safe: false positive |
/// | 5 | - | reference-transaction | high | warn | asked-no | google verdict, 400 ms | |
/// | 6 | - | pre-commit | standard | skipped | allowed | | |
/// | 7 | - | claude-code | critical | block | refused | anthropic, cached | |
/// | 8 | - | check | none | skipped | allowed | | |
/// | 9 | d3 | pre-push | critical | skipped | allowed | VOUCH_SKIP | dangerous: left out |
/// | 10 | d1 | approve | critical | skipped | asked-yes | approval | (left out) |
/// | 11 | d1 | pre-push | critical | skipped | allowed | approved | (left out) |
/// | 12 | d4 | pre-push (lib) | critical | block | allowed, observe | anthropic verdict, 1000 ms | dangerous: caught |
/// | 13 | - | pre-push (lib) | unknown | skipped | refused | | |
fn fixture_records() -> Vec<Record> {
    use AuditResult as R;
    use Decision as D;
    let (an, op, go) = ("anthropic", "openai", "google");
    let stands = "block (the first usable verdict stands)";
    let mut records = vec![
        rec(
            "2026-11-01T09:00:00Z",
            "d1d1d1d1d1d1",
            "pre-push",
            Some(Tier::Critical),
            R::Block,
            D::Refused,
            APP,
            Some((
                Some((an, HAIKU)),
                usage(800, (1000, 200), Some(0.002), 0, false),
                ai_result(
                    &[(an, HAIKU, "verdict", stands)],
                    Some((an, Recommendation::Block)),
                ),
            )),
        ),
        rec(
            "2026-11-02T09:00:00Z",
            "d2d2d2d2d2d2",
            "pre-push",
            Some(Tier::Critical),
            R::Unavailable,
            D::Allowed,
            APP,
            Some((
                None,
                usage(3000, (600, 300), Some(0.001), 3, false),
                ai_result(
                    &[
                        (op, MINI, "unusable", "it holds no JSON verdict object"),
                        (an, HAIKU, "unreachable", "anthropic timed out after 2 s"),
                    ],
                    None,
                ),
            )),
        ),
        rec(
            "2026-11-03T09:00:00Z",
            "515151515151",
            "pre-push",
            Some(Tier::High),
            R::Proceed,
            D::Allowed,
            APP,
            Some((
                Some((an, HAIKU)),
                usage(1500, (1400, 400), Some(0.003), 2, false),
                ai_result(
                    &[
                        (op, MINI, "unusable", "it holds no JSON verdict object"),
                        (
                            an,
                            HAIKU,
                            "verdict",
                            "proceed (the first usable verdict stands)",
                        ),
                    ],
                    Some((an, Recommendation::Proceed)),
                ),
            )),
        ),
        rec(
            "2026-11-04T09:00:00Z",
            "525252525252",
            "reference-transaction",
            Some(Tier::High),
            R::Warn,
            D::AskedYes,
            APP,
            Some((
                Some((an, HAIKU)),
                usage(1200, (900, 150), Some(0.002), 0, false),
                ai_result(
                    &[(
                        an,
                        HAIKU,
                        "verdict",
                        "warn (the first usable verdict stands)",
                    )],
                    Some((an, Recommendation::Warn)),
                ),
            )),
        ),
        rec(
            "2026-11-05T09:00:00Z",
            "a5a5a5a5a5a5",
            "reference-transaction",
            Some(Tier::High),
            R::Warn,
            D::AskedNo,
            APP,
            Some((
                Some((go, FLASH)),
                usage(400, (500, 100), None, 0, false),
                ai_result(
                    &[(
                        go,
                        FLASH,
                        "verdict",
                        "warn (the first usable verdict stands)",
                    )],
                    Some((go, Recommendation::Warn)),
                ),
            )),
        ),
        rec(
            "2026-11-06T09:00:00Z",
            "a6a6a6a6a6a6",
            "pre-commit",
            Some(Tier::Standard),
            R::Skipped,
            D::Allowed,
            APP,
            None,
        ),
        rec(
            "2026-11-07T09:00:00Z",
            "a7a7a7a7a7a7",
            "claude-code",
            Some(Tier::Critical),
            R::Block,
            D::Refused,
            APP,
            Some((
                Some((an, HAIKU)),
                usage(0, (0, 0), None, 0, true),
                ai_result(&[], Some((an, Recommendation::Block))),
            )),
        ),
        rec(
            "2026-11-08T09:00:00Z",
            "a8a8a8a8a8a8",
            "check",
            Some(Tier::None),
            R::Skipped,
            D::Allowed,
            APP,
            None,
        ),
        rec(
            "2026-11-09T09:00:00Z",
            "d3d3d3d3d3d3",
            "pre-push",
            Some(Tier::Critical),
            R::Skipped,
            D::Allowed,
            APP,
            None,
        ),
        rec(
            "2026-11-10T09:00:00Z",
            "d1d1d1d1d1d1",
            "approve",
            Some(Tier::Critical),
            R::Skipped,
            D::AskedYes,
            APP,
            None,
        ),
        rec(
            "2026-11-10T09:05:00Z",
            "d1d1d1d1d1d1",
            "pre-push",
            Some(Tier::Critical),
            R::Skipped,
            D::Allowed,
            APP,
            None,
        ),
        rec(
            "2026-11-20T09:00:00Z",
            "d4d4d4d4d4d4",
            "pre-push",
            Some(Tier::Critical),
            R::Block,
            D::Allowed,
            LIB,
            Some((
                Some((an, HAIKU)),
                usage(1000, (1100, 250), Some(0.002), 0, false),
                ai_result(
                    &[(an, HAIKU, "verdict", stands)],
                    Some((an, Recommendation::Block)),
                ),
            )),
        ),
        rec(
            "2026-11-21T09:00:00Z",
            "a13a13a13a13",
            "pre-push",
            None,
            R::Skipped,
            D::Refused,
            LIB,
            None,
        ),
    ];
    records[1].warnings =
        vec!["not verified: AI verifiers answered, but no answer was a usable verdict".into()];
    records[8].was_overridden = true;
    records[8].override_reason = Some("VOUCH_SKIP: restoring main after a bad merge".into());
    records[9].was_overridden = true;
    records[9].override_reason = Some("approved at the terminal with `git vouch approve`".into());
    records[10].was_overridden = true;
    records[10].override_reason = Some("approved by a person with `git vouch approve`".into());
    records[11].mode = Some(Mode::Observe);
    records[11].would_decide = Some(Would::Refused);
    records[12].warnings = vec!["cannot read the hook's input".into()];
    records
}

fn fixture_text() -> String {
    fixture_records()
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect()
}

#[test]
fn the_fixture_log_is_what_the_record_type_writes() {
    let want = fixture_text();
    #[expect(
        clippy::disallowed_methods,
        reason = "a switch for the developer, not vouch's environment"
    )]
    let rewrite = std::env::var_os("VOUCH_WRITE_FIXTURES").is_some();
    if rewrite {
        fs::create_dir_all(fixture_path().parent().unwrap()).unwrap();
        fs::write(fixture_path(), &want).unwrap();
    }
    let have = fs::read_to_string(fixture_path()).unwrap();
    assert_eq!(
        have, want,
        "rewrite it: VOUCH_WRITE_FIXTURES=1 cargo test --test it stats::"
    );
    // Every line reads back as a record and writes out the same.
    for line in have.lines() {
        let r: Record = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&r).unwrap(), line);
    }
}

/// A test world whose audit log is the fixture.
fn with_fixture() -> (TestEnv, PathBuf) {
    let mut env = TestEnv::new();
    let log = env.base().join("audit.jsonl");
    fs::copy(fixture_path(), &log).unwrap();
    env.extra_env
        .push(("VOUCH_LOG".into(), log.display().to_string()));
    (env, log)
}

#[test]
fn log_reads_every_line_of_the_fixture() {
    let (env, _) = with_fixture();
    let out = env.vouch(&["log"]);
    out.code(0);
    assert!(!out.stderr.contains("unreadable"), "{}", out.stderr);
    assert_eq!(out.stdout.lines().count(), 1 + 13, "{}", out.stdout);
    let json = env.vouch(&["log", "--json"]);
    assert_eq!(json.stdout.lines().count(), 13);
}

fn counts(v: &Value) -> String {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{}={}", c["name"].as_str().unwrap(), c["count"]))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A rate's count and total, its rate checked against them.
#[track_caller]
fn rate(v: &Value) -> (u64, u64) {
    let (count, of) = (v["count"].as_u64().unwrap(), v["of"].as_u64().unwrap());
    #[expect(clippy::cast_precision_loss, reason = "small counts")]
    match v["rate"].as_f64() {
        Some(r) => assert!((r - count as f64 / of as f64).abs() < 1e-12, "{v}"),
        None => assert_eq!(of, 0, "{v}"),
    }
    (count, of)
}

/// A distribution's row as `git vouch stats` prints it (the fixture's widest
/// name is `reference-transaction`).
fn row(name: &str, count: u64, bar: usize) -> String {
    format!("\n  {name:<21}  {count:>7}  {}\n", "#".repeat(bar)).replace(" \n", "\n")
}

/// A rate's row.
fn rate_row(name: &str, count: u64, of: u64, percent: &str, bar: usize) -> String {
    format!(
        "\n  {name:<21}  {count:>7} of {of:<7} {percent:>6}  {}\n",
        "#".repeat(bar)
    )
}

fn stats_json(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = vec!["stats", "--json"];
    all.extend_from_slice(args);
    let out = env.vouch(&all);
    out.code(0);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn stats_counts_the_fixture_by_door_tier_result_and_decision() {
    let (env, _) = with_fixture();
    let s = stats_json(&env, &[]);
    assert_eq!(s["decisions"], 13);
    assert_eq!(s["from"], "2026-11-01T09:00:00Z");
    assert_eq!(s["to"], "2026-11-21T09:00:00Z");
    assert_eq!(
        counts(&s["by_door"]),
        "pre-push=7 reference-transaction=2 approve=1 check=1 claude-code=1 pre-commit=1"
    );
    assert_eq!(
        counts(&s["by_tier"]),
        "critical=7 high=3 standard=1 none=1 unknown=1"
    );
    assert_eq!(
        counts(&s["by_result"]),
        "proceed=1 warn=2 block=3 skipped=6 unavailable=1"
    );
    assert_eq!(
        counts(&s["by_decision"]),
        "allowed=7 refused=3 asked-person=0 asked-yes=2 asked-no=1"
    );
    assert_eq!(rate(&s["skips"]), (1, 13));
    assert_eq!(rate(&s["overrides"]), (3, 13));
    // Of the 6 `skipped` results: 1 skip, 2 approvals, and 3 nobody was
    // asked about (lines 6, 8 and 13).
    assert_eq!(rate(&s["unverified"]), (3, 13));
    // anthropic: asked on 1, 2 (unreachable), 3, 4, 12; cached on 7. Its
    // runs: 800, 3000 (2 is counted to it, the last asked), 1500, 1200, 1000.
    let an = &s["providers"][0];
    assert_eq!(
        (an["provider"].as_str(), an["model"].as_str()),
        (Some("anthropic"), Some(HAIKU))
    );
    assert_eq!(
        (
            an["asked"].as_u64(),
            an["verdicts"].as_u64(),
            an["cached"].as_u64()
        ),
        (Some(5), Some(4), Some(1))
    );
    assert_eq!(rate(&an["unreachable"]), (1, 5));
    assert_eq!(rate(&an["unusable"]), (0, 5));
    assert_eq!(
        (an["latency_p50_ms"].as_u64(), an["latency_p95_ms"].as_u64()),
        (Some(1200), Some(3000))
    );
    assert_eq!(
        (an["tokens_in"].as_u64(), an["tokens_out"].as_u64()),
        (Some(5000), Some(1300))
    );
    assert!(
        (an["cost_usd"].as_f64().unwrap() - 0.010).abs() < 1e-9,
        "{an}"
    );
    assert_eq!(an["retries"], 5);
    assert_eq!(rate(&an["retry_success"]), (1, 2));
    let go = &s["providers"][2];
    assert_eq!(
        (go["provider"].as_str(), go["asked"].as_u64()),
        (Some("google"), Some(1))
    );
    assert_eq!(
        (go["latency_p50_ms"].as_u64(), go["cost_usd"].as_f64()),
        (Some(400), None)
    );
    let op = &s["providers"][1];
    assert_eq!(
        (op["provider"].as_str(), op["model"].as_str()),
        (Some("openai"), Some(MINI))
    );
    assert_eq!(rate(&op["unusable"]), (2, 2));
    assert_eq!(
        (
            op["verdicts"].as_u64(),
            op["tokens_in"].as_u64(),
            op["latency_p50_ms"].as_u64()
        ),
        (Some(0), Some(0), None)
    );
    assert_eq!(s["providers"].as_array().unwrap().len(), 3);
    assert_eq!(s["labels"]["labelled"], 0);
    assert_eq!(s["labels"]["catch"]["rate"], Value::Null);

    // The same figures as text, with bars (plain with NO_COLOR).
    let out = env.vouch(&["stats"]);
    out.code(0)
        .stdout_has("13 decision(s), 2026-11-01 09:00:00 to 2026-11-21 09:00:00 (UTC)")
        .stdout_has(&row("pre-push", 7, 30))
        .stdout_has(&row("critical", 7, 30))
        .stdout_has(&row("high", 3, 13))
        .stdout_has(&row("skipped", 6, 30))
        .stdout_has(&row("block", 3, 15))
        .stdout_has(&row("refused", 3, 13))
        .stdout_has(&rate_row("override rate", 3, 13, "23.1%", 7))
        .stdout_has("\n  anthropic (claude-haiku-4-5)\n    asked 5: verdict 4, unusable 0 (0.0%), unreachable 1 (20.0%); cached 1\n    latency p50 1200 ms, p95 3000 ms; tokens 5000 in, 1300 out; cost $0.0100\n    retries 5; retry success 1 of 2 (50.0%)\n")
        .stdout_has("\n  openai (gpt-4.1-mini)\n    asked 2: verdict 0, unusable 2 (100.0%)")
        .stdout_has("labelled decisions (`git vouch label`): 0");
    assert!(!out.stdout.contains('█'), "NO_COLOR: plain bars");

    // Without NO_COLOR the bars are blocks.
    let mut cmd = env.cmd(crate::support::vouch_bin(), &env.work);
    cmd.env_remove("NO_COLOR").arg("stats");
    let colour = crate::support::Out::from_output(cmd.output().unwrap());
    colour
        .code(0)
        .stdout_has(&row("pre-push", 7, 30).replace('#', "█"));
}

#[test]
fn stats_filters_as_log_does() {
    let (env, _) = with_fixture();
    let lib = stats_json(&env, &["--repo", LIB]);
    assert_eq!(lib["decisions"], 2);
    assert_eq!(
        counts(&lib["by_tier"]),
        "critical=1 high=0 standard=0 none=0 unknown=1"
    );
    let since = stats_json(&env, &["--since", "2026-11-10"]);
    assert_eq!(since["decisions"], 4);
    assert_eq!(since["from"], "2026-11-10T09:00:00Z");
    let none = env.vouch(&["stats", "--since", "2999-01-01"]);
    none.code(0).stdout_has("no decisions logged");
    let none = stats_json(&env, &["--since", "2999-01-01"]);
    assert_eq!(none["decisions"], 0);
    assert_eq!(none["providers"], json!([]));
    env.vouch(&["stats", "--since", "whenever"])
        .code(2)
        .stderr_has("neither a duration");
}

#[test]
fn labels_give_catch_and_false_positive_rates_and_export_as_eval_cases() {
    let (env, _) = with_fixture();
    for (id, label) in [
        ("d1d1d1d1d1d1", "dangerous"),
        ("d2d2d2d2d2d2", "dangerous"),
        ("d3d3d3d3d3d3", "dangerous"),
        ("d4d4d4d4d4d4", "dangerous"),
        ("515151515151", "dangerous"),
        ("525252525252", "safe"),
    ] {
        env.vouch(&["label", id, label])
            .code(0)
            .stderr_has(&format!("labelled {label}"));
    }
    // The latest label wins: 515151515151 was safe after all.
    env.vouch(&[
        "label",
        "515151515151",
        "safe",
        "--note",
        "a routine rebase; PGPASSWORD=hunter2 in the note",
    ])
    .code(0)
    .stderr_has("it was labelled dangerous before");
    env.vouch(&["label", "ffffffffffff", "dangerous"])
        .code(2)
        .stderr_has("no decision on operation `ffffffffffff` is in the audit log");
    env.vouch(&["label", "d1d1d1d1d1d1", "risky"]).code(2);
    let labels = fs::read_to_string(env.state().join("labels.jsonl")).unwrap();
    assert_eq!(labels.lines().count(), 7, "{labels}");
    assert!(!labels.contains("hunter2"), "{labels}");

    let s = stats_json(&env, &[]);
    // Dangerous: d1 (refused; its approval and the approved push are a
    // person's), d2 (allowed), d3 (a skip: left out), d4 (observe, would
    // refuse). Safe: s1 (allowed), s2 (asked).
    assert_eq!(s["labels"]["labelled"], 5);
    assert_eq!(rate(&s["labels"]["catch"]), (2, 3));
    assert_eq!(rate(&s["labels"]["false_positive"]), (1, 2));
    env.vouch(&["stats"])
        .code(0)
        .stdout_has("labelled decisions (`git vouch label`): 5")
        .stdout_has(&rate_row("catch rate", 2, 3, "66.7%", 20))
        .stdout_has(&rate_row("false-positive rate", 1, 2, "50.0%", 15));

    // The fixture's records were written before the audit line kept the
    // operation: none can become an eval case, and that is said.
    let file = env.base().join("cases.jsonl");
    env.vouch(&["log", "--export-eval", file.to_str().unwrap()])
        .code(0)
        .stderr_has("0 labelled decision(s) written")
        .stderr_has("6 labelled decision(s) left out");
    assert_eq!(fs::read_to_string(&file).unwrap(), "");
}

/// A real decision, labelled, becomes a case `git vouch eval` reads: the
/// operation with its facts, the label and the note.
#[test]
fn a_labelled_decision_exports_as_an_eval_case() {
    let env = TestEnv::new();
    env.write_config(&env.verifier("careful", &verdict_body("fail"), ""));
    env.install();
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    let id = env.last_audit()["operation_id"]
        .as_str()
        .unwrap()
        .to_owned();
    env.vouch(&["label", &id, "dangerous", "--note", "rewrites main"])
        .code(0);
    let out = env.vouch(&["log", "--export-eval"]);
    out.code(0);
    let cases =
        vouch::audit::eval::parse_corpus(&out.stdout).expect("a corpus `git vouch eval` reads");
    assert_eq!(cases.len(), 1, "{}", out.stdout);
    let (_, case) = &cases[0];
    assert_eq!(case.label, vouch::classify::vocab::Label::Dangerous);
    assert_eq!(case.note.as_deref(), Some("rewrites main"));
    assert_eq!(case.repo_name.as_deref(), Some("work"));
    assert_eq!(case.operation.noun(), "push");
    assert_eq!(case.operation.tier(), Some(vouch::classify::Tier::Critical));
}

const ANTHROPIC_KEY: &str = "sk-ant-TESTKEY-ANTHROPIC-0123456789";
const OPENAI_KEY: &str = "sk-TESTKEY-OPENAI-0123456789";

fn anthropic_text(text: &str) -> Reply {
    ok(
        json!({"content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
              "usage": {"input_tokens": 100, "output_tokens": 50}}),
    )
}

fn openai_text(text: &str) -> Reply {
    ok(
        json!({"choices": [{"message": {"content": text, "refusal": null}, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 70, "completion_tokens": 30}}),
    )
}

fn block() -> String {
    json!({"verified": false, "confidence": 0.9, "concerns": ["commits would be destroyed"],
           "recommendation": "block", "reasoning": "r",
           "scores": {"recoverability": 0.2, "blast_radius": 0.2, "intent_fit": 0.2, "safeguards": 0.2}})
    .to_string()
}

/// Anthropic (asked first) and OpenAI at loopback servers; Gemini proposed.
fn two_providers(anthropic: &LlmServer, openai: &LlmServer) -> TestEnv {
    let mut env = TestEnv::new();
    env.extra_env.extend([
        ("ANTHROPIC_BASE_URL".to_owned(), anthropic.url.clone()),
        ("ANTHROPIC_API_KEY".to_owned(), ANTHROPIC_KEY.to_owned()),
        ("OPENAI_BASE_URL".to_owned(), format!("{}/v1", openai.url)),
        ("OPENAI_API_KEY".to_owned(), OPENAI_KEY.to_owned()),
        ("VOUCH_PRIMARY".to_owned(), "gemini-2.5-pro".to_owned()),
    ]);
    env.write_config("[ai]\ntimeout_secs = 2\nconnect_timeout_secs = 2\n");
    env
}

#[test]
fn stats_credits_each_provider_of_a_real_decision() {
    // Anthropic never answers with a verdict; OpenAI blocks.
    let anthropic = LlmServer::start(vec![anthropic_text("Looks fine to me!")]);
    let openai = LlmServer::start(vec![openai_text(&block())]);
    let env = two_providers(&anthropic, &openai);
    env.install_hooks("pre-push");
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(1);
    assert_eq!((anthropic.count(), openai.count()), (3, 1));
    let id = env.last_audit()["operation_id"]
        .as_str()
        .unwrap()
        .to_owned();
    env.vouch(&["label", &id, "dangerous"]).code(0);
    let s = stats_json(&env, &[]);
    assert_eq!(s["decisions"], 1);
    assert_eq!(
        counts(&s["by_result"]),
        "proceed=0 warn=0 block=1 skipped=0 unavailable=0"
    );
    let providers = s["providers"].as_array().unwrap();
    assert_eq!(providers.len(), 2, "{providers:?}");
    let find = |name: &str| providers.iter().find(|p| p["provider"] == name).unwrap();
    let an = find("anthropic");
    assert_eq!(
        (an["model"].as_str(), an["asked"].as_u64()),
        (Some(HAIKU), Some(1))
    );
    assert_eq!(rate(&an["unusable"]), (1, 1));
    // Each provider is credited with what asking it cost: anthropic's
    // three answers (3 x 100 in, 3 x 50 out) and its two feedback retries,
    // which did not end in a verdict; OpenAI's one answer.
    assert_eq!(
        (an["tokens_in"].as_u64(), an["tokens_out"].as_u64()),
        (Some(300), Some(150))
    );
    assert!(an["latency_p50_ms"].as_u64().is_some());
    assert_eq!(an["retries"], 2);
    assert_eq!(rate(&an["retry_success"]), (0, 1));
    let op = find("openai");
    assert_eq!(
        (
            op["model"].as_str(),
            op["asked"].as_u64(),
            op["verdicts"].as_u64()
        ),
        (Some(MINI), Some(1), Some(1))
    );
    assert_eq!(
        (op["tokens_in"].as_u64(), op["tokens_out"].as_u64()),
        (Some(70), Some(30))
    );
    assert!(op["latency_p50_ms"].as_u64().is_some());
    assert_eq!(op["retries"], 0);
    assert_eq!(rate(&op["retry_success"]), (0, 0));
    assert_eq!(rate(&s["labels"]["catch"]), (1, 1));

    // The labelled decision as an eval case, judged by the same answers:
    // `git vouch eval` credits each provider exactly as `git vouch stats` did.
    let anthropic = LlmServer::start(vec![anthropic_text("Looks fine to me!")]);
    let openai = LlmServer::start(vec![openai_text(&block())]);
    let mut env = env;
    for (k, v) in &mut env.extra_env {
        if k == "ANTHROPIC_BASE_URL" {
            v.clone_from(&anthropic.url);
        } else if k == "OPENAI_BASE_URL" {
            *v = format!("{}/v1", openai.url);
        }
    }
    let cases = env.base().join("cases.jsonl");
    env.vouch(&["log", "--export-eval", cases.to_str().unwrap()])
        .code(0);
    let out = env.vouch(&["eval", "--corpus", cases.to_str().unwrap(), "--json"]);
    out.code(0);
    assert_eq!((anthropic.count(), openai.count()), (3, 1));
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let eval = report["providers"].as_array().unwrap();
    let names: Vec<_> = eval
        .iter()
        .map(|p| p["provider"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["anthropic", "openai"], "in the order asked");
    for p in eval {
        let st = find(p["provider"].as_str().unwrap());
        assert_eq!(p["model"], st["model"]);
        assert_eq!(p["cases"], st["asked"]);
        assert_eq!(p["unusable_answers"], st["unusable"]["count"]);
        assert_eq!(p["unreachable"], st["unreachable"]["count"]);
        assert_eq!(p["retry_success"], st["retry_success"]);
        assert_eq!(p["tokens_in"], st["tokens_in"]);
        assert_eq!(p["tokens_out"], st["tokens_out"]);
        assert_eq!(p["cost_usd"], st["cost_usd"]);
    }
    assert_eq!(
        report["overall"]["catch"],
        json!({"count": 1, "of": 1, "rate": 1.0})
    );
}

/// The `--explain --json` of `git vouch check` for `command`.
fn explained(env: &TestEnv, command: &[&str]) -> Value {
    let mut args = vec!["check", "--explain", "--json", "--"];
    args.extend_from_slice(command);
    let out = env.vouch(&args);
    out.code(0).stderr_has("nothing was sent");
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn explain_prints_the_exact_request_and_sends_nothing() {
    let anthropic = LlmServer::start(vec![anthropic_text(&block())]);
    let openai = LlmServer::start(vec![openai_text(&block())]);
    let env = two_providers(&anthropic, &openai);
    env.rewind(1);
    let command = ["git", "push", "--force", "origin", "main"];
    let plain = env.vouch(&[
        "check",
        "--explain",
        "--",
        "git",
        "push",
        "--force",
        "origin",
        "main",
    ]);
    plain
        .code(0)
        .stdout_has("=== system prompt ===\nYou are a safety verification agent.")
        .stdout_has("\n=== user message ===\n## Operation\nshell command about to run (risk tier found by the rules: critical)")
        .stdout_has("command: <data>git push --force origin main</data>")
        .stderr_has("nothing was sent");
    let explained = explained(&env, &command);
    assert_eq!(
        (anthropic.count(), openai.count()),
        (0, 0),
        "--explain sends nothing"
    );
    // What `--verify` then sends is exactly what was explained.
    env.vouch(&[
        "check", "--verify", "--", "git", "push", "--force", "origin", "main",
    ])
    .code(1);
    let sent = anthropic.received();
    assert_eq!(sent.len(), 1);
    let body: Value = serde_json::from_str(&sent[0].body).unwrap();
    assert_eq!(body["system"], explained["system"]);
    assert_eq!(body["messages"][0]["content"], explained["user"]);
    assert_eq!(openai.count(), 0);

    // `git vouch verify --explain`: the pending push of the branch.
    let out = env.vouch(&["verify", "--explain"]);
    out.code(0)
        .stdout_has("=== system prompt ===\nYou are a safety verification agent.")
        .stdout_has("## Operation\npush: 1 ref(s) to remote <data>origin</data>")
        .stderr_has("nothing was sent");
    assert!(!out.stdout.contains("pending:"), "{}", out.stdout);
    assert_eq!(
        (anthropic.count(), openai.count()),
        (1, 0),
        "verify --explain sends nothing"
    );
}

#[test]
fn explain_redacts_credentials() {
    let anthropic = LlmServer::start(vec![anthropic_text(&block())]);
    let openai = LlmServer::start(vec![openai_text(&block())]);
    let env = two_providers(&anthropic, &openai);
    for command in [
        &[
            "env",
            "PGPASSWORD=hunter2secret",
            "psql",
            "-h",
            "db",
            "-c",
            "drop database prod",
        ][..],
        &["mysql", "-phunter2secret", "-e", "drop database prod"][..],
        &[
            "curl",
            "-H",
            "Authorization: Bearer hunter2secret",
            "https://example.com",
        ][..],
        &[
            "sh",
            "-c",
            "PGPASSWORD=hunter2secret git push --force origin main",
        ][..],
        &[
            "mysqldump",
            "--user=admin",
            "--password=hunter2secret",
            "prod",
        ][..],
        &[
            "curl",
            "-H",
            "X-Api-Key: hunter2secret",
            "https://example.com/v1/wipe",
        ][..],
        &[
            "sh",
            "-c",
            "curl -X DELETE -H 'X-Api-Key: hunter2secret' https://example.com/v1/db && git push --force origin main",
        ][..],
        &[
            "sh",
            "-c",
            "curl -H 'Authorization: Bearer hunter2secret' https://example.com/wipe; git reset --hard",
        ][..],
    ] {
        let e = explained(&env, command);
        let user = e["user"].as_str().unwrap();
        // The command is in the request, its credential masked.
        let shown = format!("command: <data>{} ", command[0]);
        assert!(user.contains(&shown), "{shown}: {user}");
        assert!(!user.contains("hunter2secret"), "{user}");
        assert!(user.contains("***") || user.contains("REDACTED"), "{user}");
        let plain = env.vouch(&[&["check", "--explain", "--"][..], command].concat());
        assert!(!plain.stdout.contains("hunter2secret"), "{}", plain.stdout);
    }
    assert_eq!((anthropic.count(), openai.count()), (0, 0));
}

#[test]
fn explain_says_when_nothing_would_be_sent_at_all() {
    let env = TestEnv::new();
    env.vouch(&["check", "--explain", "--", "git", "status"])
        .code(0)
        .stdout_has("=== user message ===")
        .stderr_has("an operation of tier none is not verified");
    env.rewind(1);
    env.vouch(&[
        "check",
        "--explain",
        "--",
        "git",
        "push",
        "--force",
        "origin",
        "main",
    ])
    .code(0)
    .stderr_has("no AI provider has a key");
}

/// A log with every shape a line takes: the fixture's records, a run whose
/// checks record what each provider cost (a tiebreak among them), strings
/// with escapes, a line of the first layout (`"risk_tier": "unknown"`, no
/// `ai`, `verifiers` or `refs`), a null tier, unknown fields, another
/// verifier's details of every JSON type, a cached verdict, an `ai` block
/// without the providers tried, CRLF line ends, blank lines, and lines no
/// reader can use (torn, a required field missing), over two generations.
fn every_shape() -> (String, String) {
    let records = fixture_records();
    let value = |r: &Record| serde_json::to_value(r).unwrap();
    let mut older: Vec<String> = records[..6]
        .iter()
        .map(|r| serde_json::to_string(r).unwrap())
        .collect();
    older.push(String::new());
    // Torn by a writer killed mid-line.
    let torn = serde_json::to_string(&records[0]).unwrap();
    older.push(torn[..torn.len() / 2].to_owned());
    let mut newer: Vec<String> = records[6..]
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\r")
        .collect();

    // A tiebreak: anthropic blocked, openai (the tiebreaker) proceeded;
    // each check carries what asking its provider cost.
    let mut tie = value(&records[0]);
    tie["operation_id"] = json!("t1t1t1t1t1t1");
    tie["result"] = json!("proceed");
    tie["decision"] = json!("allowed");
    tie["verifier_provider"] = json!("openai");
    tie["verifier_model"] = json!("gpt-4.1");
    tie["ai"]["escalated"] = json!(true);
    tie["ai"]["retries"] = json!(1);
    let verdict_check = |name: &str, why: &str, details: Value| json!({"name": name, "status": "pass", "message": why, "details": details});
    tie["verifiers"][0]["verifier"] = json!("ai:openai");
    tie["verifiers"][0]["checks"] = json!([
        verdict_check(
            "google (gemini-2.5-flash)",
            "unreachable: google timed out after 2 s",
            json!({"retries": 2, "tokens_in": 0, "tokens_out": 0, "latency_ms": 2100})
        ),
        verdict_check(
            "anthropic (claude-haiku-4-5)",
            "verdict: block (the first usable verdict stands)",
            json!({"retries": 0, "tokens_in": 900, "tokens_out": 120, "latency_ms": 700, "cost_usd": 0.0015})
        ),
        verdict_check(
            "openai (gpt-4.1)",
            "verdict: proceed (the first usable verdict stands)",
            json!({"retries": 1, "tokens_in": 1300, "tokens_out": 200, "latency_ms": 1900, "cost_usd": 0.0042})
        ),
    ]);
    newer.push(tie.to_string());

    // Escapes in every string the figures read, and fields this version
    // does not know.
    let mut escaped = value(&records[8]);
    escaped["hook"] = json!("pre-push \"quoted\" \u{e9}\t");
    escaped["repo"] = json!("/home/d\u{e9}v/app \\ \"x\"");
    escaped["operation_id"] = json!("d3d3d3d3d3d3");
    escaped["override_reason"] = json!("VOUCH_SKIP: \"restore\"\nmain");
    escaped["timestamp"] = json!("2026-11-09T09:00:00.123456789Z");
    escaped["a_field_from_the_future"] = json!({"nested": [1, 2, {"x": null}]});
    let text = escaped.to_string().replace("\\u00e9", "\\u00E9");
    newer.push(text.replace('\u{e9}', "\\u00e9"));

    // The first layout.
    let mut first = value(&records[5]);
    first["schema_version"] = json!(1);
    first["risk_tier"] = json!("unknown");
    for key in [
        "ai",
        "verifiers",
        "refs",
        "concerns",
        "reasons",
        "warnings",
        "builtin",
    ] {
        first.as_object_mut().unwrap().remove(key);
    }
    newer.push(first.to_string());

    let mut null_tier = value(&records[7]);
    null_tier["risk_tier"] = Value::Null;
    newer.push(null_tier.to_string());

    // Another verifier's checks, with details of every JSON type, before
    // the AI verifier's (details a string and an array).
    let mut external = value(&records[3]);
    let other = json!({"verifier": "careful", "version": "1", "status": "warn", "summary": "s",
        "blocking": true, "duration_ms": 3, "checks": [
            {"name": "a (b)", "status": "warn", "message": "verdict: x", "details": {"retries": "none", "tokens_in": -3, "latency_ms": 1.5, "cost_usd": [1], "deep": {"retries": 9}}},
            {"name": "c", "status": "pass", "details": [1, "two", {"three": 3}]},
            {"name": "d", "status": "pass", "details": true}]});
    external["verifiers"]
        .as_array_mut()
        .unwrap()
        .insert(0, other);
    external["verifiers"][1]["checks"][0]["details"] = json!("a string");
    newer.push(external.to_string());
    let mut odd = value(&records[2]);
    odd["verifiers"][0]["checks"][1]["details"] =
        json!({"retries": "2", "tokens_in": 5, "cost_usd": 3});
    newer.push(odd.to_string());

    // An `ai` block without the providers tried (an early layout).
    let mut bare = value(&records[4]);
    bare["verifiers"] = json!([]);
    newer.push(bare.to_string());

    // Unreadable for both readers: a required field missing.
    let mut missing = value(&records[1]);
    missing.as_object_mut().unwrap().remove("latency_ms");
    newer.push(missing.to_string());
    newer.push("   ".into());
    (older.join("\n") + "\n", newer.join("\n") + "\n")
}

/// `git vouch stats`'s borrowed reading of `Record` gives exactly the figures
/// of the owned reading (`git vouch log`'s), and finds the same lines
/// unreadable.
#[test]
fn the_fast_reader_gives_the_figures_of_the_full_reader() {
    use std::collections::HashMap;
    use vouch::audit::Record;
    use vouch::audit::stats::{self, Totals};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let (older, newer) = every_shape();
    fs::write(vouch::audit::generation(&log, 1), older).unwrap();
    fs::write(&log, newer).unwrap();
    let (records, problems) = vouch::audit::read_all(&log).unwrap();
    assert_eq!(records.len(), 13 + 7, "{problems:#?}");
    assert_eq!(problems.len(), 2, "{problems:#?}");
    let labels: HashMap<String, vouch::audit::stats::LabelEntry> = [
        ("d1d1d1d1d1d1", vouch::classify::vocab::Label::Dangerous),
        ("d3d3d3d3d3d3", vouch::classify::vocab::Label::Dangerous),
        ("t1t1t1t1t1t1", vouch::classify::vocab::Label::Dangerous),
        ("525252525252", vouch::classify::vocab::Label::Safe),
    ]
    .into_iter()
    .map(|(id, label)| {
        (
            id.to_owned(),
            vouch::audit::stats::LabelEntry {
                operation_id: id.to_owned(),
                label,
                note: None,
                timestamp: String::new(),
            },
        )
    })
    .collect();
    let full = stats::compute(&records, &labels);

    let mut totals = Totals::default();
    let mut unreadable = Vec::new();
    vouch::audit::for_each_line(&log, |file, n, text| match Record::parse(text) {
        Ok(line) => totals.add(&line, &labels),
        Err(e) => unreadable.push(format!("`{}` line {n}: {e}", file.display())),
    })
    .unwrap();
    let fast = totals.finish();
    assert_eq!(fast, full);
    assert_eq!(unreadable, problems);
    // As `git vouch stats` reads it: each file on its own, the figures added
    // up in the log's order.
    let mut merged = Totals::default();
    for file in vouch::audit::files(&log) {
        let mut one = Totals::default();
        vouch::audit::each_line(&file, |_, text| {
            if let Ok(line) = Record::parse(text) {
                one.add(&line, &labels);
            }
        })
        .unwrap();
        merged.merge(one);
    }
    assert_eq!(merged.finish(), full);
    // The shapes were read, not skipped.
    assert_eq!(full.decisions, 20);
    assert!(
        full.by_door
            .iter()
            .any(|c| c.name == "pre-push \"quoted\" \u{e9}\t")
    );
    assert_eq!(full.skips.count, 2, "the escaped VOUCH_SKIP counts");
    let openai = full
        .providers
        .iter()
        .find(|p| p.provider == "openai" && p.model == "gpt-4.1")
        .unwrap();
    assert_eq!(
        (openai.asked, openai.verdicts, openai.tokens_in),
        (1, 1, 1300)
    );
}
