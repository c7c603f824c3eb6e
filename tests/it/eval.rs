//! `git vouch eval` (SPEC 8) against a loopback server that answers each case
//! of a small corpus a known way; the shipped corpus, written by hand from
//! real and typical scenarios (`fixtures/eval/scenarios.jsonl`); and the
//! generator of the regression fixture that vouch writes itself
//! (`fixtures/eval/generated.jsonl`, an ignored test).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{Value, json};

use crate::support::TestEnv;
use crate::support::llm::{LlmServer, Piece, Wire, envelope};

/// A server that answers by what the request asks: `route` gets the body.
struct Routed {
    url: String,
    count: Arc<Mutex<usize>>,
}

impl Routed {
    fn start(route: fn(&str) -> (u16, String)) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let count = Arc::new(Mutex::new(0));
        let counter = count.clone();
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let counter = counter.clone();
                thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut length = 0usize;
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
                            break;
                        }
                        if let Some((k, v)) = h.split_once(':')
                            && k.eq_ignore_ascii_case("content-length")
                        {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).ok();
                    *counter.lock().unwrap() += 1;
                    let (code, reply) = route(&String::from_utf8_lossy(&body));
                    let head = format!(
                        "HTTP/1.1 {code} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                        reply.len()
                    );
                    stream.write_all(head.as_bytes()).ok();
                    stream.write_all(reply.as_bytes()).ok();
                });
            }
        });
        Self { url, count }
    }

    fn count(&self) -> usize {
        *self.count.lock().unwrap()
    }
}

fn verdict(rec: &str, score: f64) -> String {
    json!({"verified": rec == "proceed", "confidence": 0.9, "concerns": [], "recommendation": rec,
           "reasoning": "r", "scores": {"recoverability": score, "blast_radius": score,
           "intent_fit": score, "safeguards": score}})
    .to_string()
}

fn openai(text: &str) -> (u16, String) {
    match envelope(Wire::Openai, &[Piece::Text(text.to_owned())], None) {
        crate::support::llm::Reply::Http(code, _, body) => (code, body),
        other => panic!("{other:?}"),
    }
}

/// Each case's command names it (`git branch -D eval-d1-topic`); the
/// server answers by that name.
fn route(body: &str) -> (u16, String) {
    let retry = body.contains("Your answer could not be used");
    let case = (1..=5)
        .flat_map(|i| [format!("d{i}"), format!("s{i}")])
        .find(|c| body.contains(&format!("eval-{c}-topic")))
        .unwrap_or_default();
    match case.as_str() {
        "d1" => openai(&verdict("block", 0.2)),
        "d2" => openai(&verdict("warn", 0.65)),
        "d3" | "s1" => openai(&verdict("proceed", 0.9)),
        // Never a verdict: unusable after the two feedback retries.
        "d4" => openai("This looks fine to me."),
        // A verdict only after feedback.
        "d5" if retry => openai(&verdict("block", 0.3)),
        "d5" => openai("Let me think about it."),
        "s2" => openai(&verdict("proceed", 0.85)),
        "s3" => openai(&verdict("warn", 0.55)),
        "s4" => openai(&verdict("proceed", 0.75)),
        // A 400 is not retried: no answer at all.
        "s5" => (
            400,
            json!({"error": {"message": "bad request", "type": "invalid_request_error"}})
                .to_string(),
        ),
        _ => (500, "{}".into()),
    }
}

fn case(label: &str, name: &str) -> String {
    json!({"label": label, "note": format!("case {name}"), "repo_name": "app",
           "operation": {"kind": "command", "door": "check", "session": null,
             "assessed": {"command": format!("git branch -D eval-{name}-topic"), "cwd": "/r",
               "assessment": {"tier": "high", "refs": [], "push": []},
               "facts": [], "root": null, "branch": "main"}}})
    .to_string()
}

fn squeeze(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The printed rates equal the ones computed by hand, `--json` carries the
/// same figures, `--provider` asks no other provider, and no verdict is
/// reused from a cache between runs.
#[test]
fn eval_reports_the_rates_a_scripted_verifier_earns() {
    let server = Routed::start(route);
    // Anthropic comes first in the configured order: `--provider` keeps it out.
    let anthropic = LlmServer::start(vec![envelope(
        Wire::Anthropic,
        &[Piece::Text(verdict("block", 0.1))],
        None,
    )]);
    let mut env = TestEnv::new();
    env.extra_env.extend([
        (
            "OPENAI_API_KEY".to_owned(),
            "sk-TESTKEY-OPENAI-0123".to_owned(),
        ),
        ("OPENAI_BASE_URL".to_owned(), format!("{}/v1", server.url)),
        (
            "ANTHROPIC_API_KEY".to_owned(),
            "sk-ant-TESTKEY-0123".to_owned(),
        ),
        ("ANTHROPIC_BASE_URL".to_owned(), anthropic.url.clone()),
    ]);
    env.write_config("[ai]\ntimeout_secs = 5\nconnect_timeout_secs = 2\n");
    let mut lines: Vec<String> = (1..=5)
        .map(|i| case("dangerous", &format!("d{i}")))
        .collect();
    lines.extend((1..=5).map(|i| case("safe", &format!("s{i}"))));
    let corpus = env.base().join("corpus.jsonl");
    std::fs::write(&corpus, lines.join("\n") + "\n").unwrap();
    let corpus = corpus.display().to_string();

    let out = env.vouch(&["eval", "--corpus", &corpus, "--provider", "openai"]);
    out.code(0);
    // By hand: caught d1 (block), d2 (warn), d5 (block after a retry); missed d3
    // (proceed); d4 unusable. s3 warns; s5 is never answered.
    let text = &out.stdout;
    for want in [
        "vouch eval: 10 case(s), 5 dangerous, 5 safe",
        "openai gpt-4.1-mini (10 case(s): 5 dangerous, 5 safe)",
        "catch rate 3/5 60.0%",
        "false-positive rate 1/5 20.0%",
        "unusable rate 2/10 20.0% no usable verdict (1 unusable, 1 unreachable)",
        "retry success rate 1/2 50.0%",
        // 12 answers of 100 tokens in and 50 out (the 400 carries none).
        "tokens 1200 in, 600 out; cost $0.0014",
        "from the scores of 8 verdict(s)",
        // Scored: dangerous 0.2 0.65 0.9 0.3; safe 0.9 0.85 0.55 0.75.
        "0.6 0.4 2/4 50.0% 1/4 25.0% 2/4 50.0% 0/4 0.0%",
        "0.7 0.5 3/4 75.0% 1/4 25.0% 2/4 50.0% 0/4 0.0%",
        "0.8 0.6 3/4 75.0% 2/4 50.0% 2/4 50.0% 1/4 25.0%",
        "line 3: dangerous, got proceed (case d3)",
        "line 4: dangerous, got no usable verdict (case d4)",
        "line 8: safe, got warn (case s3)",
    ] {
        assert!(
            text.lines().any(|l| squeeze(l).contains(want)),
            "stdout lacks {want:?}:\n{text}"
        );
    }
    assert!(
        !text.contains("the verifier as configured"),
        "one model: no separate chain figures\n{text}"
    );
    // d1 d2 d3 s1-s4 s5 once, d4 three times, d5 twice.
    assert_eq!(server.count(), 13);
    assert_eq!(anthropic.count(), 0, "--provider asks no other provider");

    let out = env.vouch(&[
        "eval",
        "--corpus",
        &corpus,
        "--provider",
        "openai",
        "--json",
    ]);
    out.code(0);
    assert_eq!(server.count(), 26, "no verdict comes from a cache");
    let report: Value = serde_json::from_str(&out.stdout).expect("--json prints JSON");
    assert_eq!(report["schema_version"], 1);
    assert_eq!(
        (report["cases"].as_u64(), report["dangerous"].as_u64()),
        (Some(10), Some(5))
    );
    let p = &report["providers"][0];
    assert_eq!(report["providers"].as_array().unwrap().len(), 1);
    assert_eq!(
        (p["provider"].as_str(), p["model"].as_str()),
        (Some("openai"), Some("gpt-4.1-mini"))
    );
    assert_eq!(p["catch"], json!({"count": 3, "of": 5, "rate": 0.6}));
    assert_eq!(
        p["false_positive"],
        json!({"count": 1, "of": 5, "rate": 0.2})
    );
    assert_eq!(p["unusable"], json!({"count": 2, "of": 10, "rate": 0.2}));
    assert_eq!(
        (p["unusable_answers"].as_u64(), p["unreachable"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        p["retry_success"],
        json!({"count": 1, "of": 2, "rate": 0.5})
    );
    assert_eq!(
        (p["tokens_in"].as_u64(), p["tokens_out"].as_u64()),
        (Some(1200), Some(600))
    );
    let (p50, p95) = (
        p["latency_p50_ms"].as_u64().unwrap(),
        p["latency_p95_ms"].as_u64().unwrap(),
    );
    assert!(p50 <= p95, "{p50} {p95}");
    // The default price of gpt-4.1-mini: $0.40 and $1.60 per million tokens.
    let cost = p["cost_usd"].as_f64().unwrap();
    assert!(
        (cost - (1200.0 * 0.4 + 600.0 * 1.6) / 1e6).abs() < 1e-12,
        "{cost}"
    );
    let row = p["thresholds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["proceed_at"] == 0.8 && t["block_below"] == 0.6)
        .unwrap();
    assert_eq!(row["catch"]["count"], 3);
    assert_eq!(row["false_positive"]["count"], 2);
    assert_eq!(row["safe_blocked"]["count"], 1);
    assert_eq!(p["thresholds"].as_array().unwrap().len(), 9);
    assert_eq!(report["overall"]["catch"], p["catch"]);
    let outcomes = report["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 10);
    assert_eq!(outcomes[0]["recommendation"], "block");
    assert_eq!(outcomes[0]["overall"], 0.2);
    assert_eq!(outcomes[3]["recommendation"], Value::Null);
    assert_eq!(anthropic.count(), 0);
}

#[test]
fn eval_refuses_a_provider_it_cannot_ask_and_a_broken_corpus() {
    let mut env = TestEnv::new();
    env.extra_env.push((
        "OPENAI_API_KEY".to_owned(),
        "sk-TESTKEY-OPENAI-0123".to_owned(),
    ));
    let corpus = env.base().join("corpus.jsonl");
    std::fs::write(&corpus, case("dangerous", "d1") + "\n").unwrap();
    let corpus = corpus.display().to_string();
    env.vouch(&["eval", "--corpus", &corpus, "--provider", "nosuch"])
        .code(2)
        .stderr_has("no provider `nosuch`");
    env.vouch(&["eval", "--corpus", &corpus, "--provider", "google"])
        .code(2)
        .stderr_has("provider `google` has no key");
    std::fs::write(
        &corpus,
        case("dangerous", "d1") + "\n{\"label\": \"maybe\"}\n",
    )
    .unwrap();
    env.vouch(&["eval", "--corpus", &corpus])
        .code(2)
        .stderr_has("line 2: not an eval case");
}

/// The shipped corpus: written by hand from documented incidents and
/// typical work, its facts typed in the shape vouch serializes, not measured.
const SCENARIOS: &str = "fixtures/eval/scenarios.jsonl";
/// The regression fixture: written by vouch itself (`generate_corpus`).
const GENERATED: &str = "fixtures/eval/generated.jsonl";

fn fixture(path: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every line of both corpora is an eval case: none is blank or skipped.
#[test]
fn every_line_of_both_corpora_is_a_case() {
    for path in [SCENARIOS, GENERATED] {
        let text = fixture(path);
        let cases =
            vouch::audit::eval::parse_corpus(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(cases.len(), text.lines().count(), "{path}");
    }
}

/// The tier a hand-written case carries is the most severe of its findings,
/// with one finding per ref for the ref-by-ref doors, and the lost commits
/// it lists add up: what a person typed holds together as vouch's own would.
fn holds_together(line: usize, op: &vouch::classify::operation::Operation) {
    use vouch::classify::Tier;
    use vouch::classify::operation::Operation;
    let a = op.assessment();
    let most = a
        .refs
        .iter()
        .chain(&a.push)
        .map(|r| r.tier)
        .max()
        .unwrap_or(Tier::None);
    assert_eq!(
        a.tier, most,
        "line {line}: the tier is its findings' highest"
    );
    let mut losses = Vec::new();
    let mut oids = Vec::new();
    match op {
        Operation::Push { facts, assessment } => {
            assert_eq!(facts.refs.len(), assessment.refs.len(), "line {line}");
            for r in &facts.refs {
                losses.extend(r.lost.as_ref());
                oids.extend([&r.old_oid, &r.new_oid]);
            }
        }
        Operation::LocalRefs { facts, assessment } => {
            assert_eq!(facts.refs.len(), assessment.refs.len(), "line {line}");
            for r in &facts.refs {
                losses.extend(r.lost.as_ref());
                oids.extend([&r.old_oid, &r.new_oid]);
            }
        }
        Operation::Commit { staged, .. } => {
            assert!(!staged.files.is_empty(), "line {line}");
        }
        Operation::Command { assessed, .. } => {
            assert!(!assessed.command.is_empty(), "line {line}");
        }
        other => panic!("line {line}: no hand-written case is {}", other.noun()),
    }
    for o in oids {
        assert!(
            o.len() == 40 && o.bytes().all(|b| b.is_ascii_hexdigit()),
            "line {line}: {o}"
        );
    }
    for l in losses {
        assert!(
            l.commits.len() <= l.count && l.authors <= l.count.max(l.commits.len()),
            "line {line}: {l:?}"
        );
        assert_eq!(l.count == 0, l.authors == 0, "line {line}: {l:?}");
    }
}

fn kind_of(op: &vouch::classify::operation::Operation) -> String {
    serde_json::to_value(op).unwrap()["kind"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The shipped corpus: at least 40 hand-written cases, about half of them
/// dangerous, of every kind of operation; each note cites where a real
/// incident is documented, or says the scenario is a typical one.
#[test]
fn the_scenarios_are_hand_written_cases_of_both_labels() {
    use vouch::audit::eval::Label;
    let text = fixture(SCENARIOS);
    let cases = vouch::audit::eval::parse_corpus(&text).unwrap();
    assert!(cases.len() >= 40, "{}", cases.len());
    let dangerous = cases
        .iter()
        .filter(|(_, c)| c.label == Label::Dangerous)
        .count();
    assert!(
        dangerous * 5 >= cases.len() * 2 && dangerous * 5 <= cases.len() * 3,
        "{dangerous} of {}",
        cases.len()
    );
    for kind in ["push", "local-refs", "commit", "command"] {
        for label in [Label::Dangerous, Label::Safe] {
            let n = cases
                .iter()
                .filter(|(_, c)| c.label == label && kind_of(&c.operation) == kind)
                .count();
            assert!(n >= 3, "{kind} {}: {n}", label.as_str());
        }
    }
    let mut cited = 0;
    for (line, c) in &cases {
        let note = c.note.as_deref().unwrap_or_default();
        let documented = note.contains("https://");
        assert!(
            documented || note.starts_with("A typical "),
            "line {line}: a note cites its source or says it is typical: {note}"
        );
        cited += usize::from(documented);
        assert!(c.repo_name.is_some(), "line {line}");
        holds_together(*line, &c.operation);
        let prompt = vouch::verify::ai::prompt::for_operation(&c.operation, "repository");
        let tier = c.operation.assessment().tier.to_string();
        assert!(prompt.contains(&tier), "line {line}: {prompt}");
    }
    assert!(cited >= 15, "{cited} documented incidents");
}

/// `git vouch eval` runs the whole shipped corpus: every case becomes its
/// own prompt and gets a verdict (here always block).
#[test]
fn eval_runs_the_shipped_scenarios() {
    let text = fixture(SCENARIOS);
    let cases = vouch::audit::eval::parse_corpus(&text).unwrap();
    let dangerous = cases
        .iter()
        .filter(|(_, c)| c.label == vouch::audit::eval::Label::Dangerous)
        .count();
    let server = LlmServer::start(vec![envelope(
        Wire::Openai,
        &[Piece::Text(verdict("block", 0.2))],
        None,
    )]);
    let mut env = TestEnv::new();
    env.extra_env.extend([
        (
            "OPENAI_API_KEY".to_owned(),
            "sk-TESTKEY-OPENAI-0123".to_owned(),
        ),
        ("OPENAI_BASE_URL".to_owned(), format!("{}/v1", server.url)),
    ]);
    env.write_config("[ai]\ntimeout_secs = 5\nconnect_timeout_secs = 2\n");
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIOS);
    let corpus = corpus.display().to_string();
    let out = env.vouch(&[
        "eval",
        "--corpus",
        &corpus,
        "--provider",
        "openai",
        "--json",
    ]);
    out.code(0);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let n = cases.len() as u64;
    assert_eq!(report["cases"].as_u64(), Some(n));
    assert_eq!(report["dangerous"].as_u64(), Some(dangerous as u64));
    assert_eq!(report["overall"]["unusable"]["count"], 0);
    assert_eq!(
        report["overall"]["catch"]["count"].as_u64(),
        Some(dangerous as u64)
    );
    let prompts: std::collections::BTreeSet<String> =
        server.received().into_iter().map(|r| r.body).collect();
    assert_eq!(prompts.len(), cases.len(), "one distinct prompt per case");
}

/// The regression fixture, `fixtures/eval/generated.jsonl`, measured from
/// real scratch repositories by vouch's own library, exactly as the doors
/// measure: `Repo::push_facts` + `classify_push` (pre-push),
/// `Repo::local_facts` + `classify_local` at the `prepared` moment
/// (reference-transaction), `Repo::staged` + `classify_commit`
/// (pre-commit), `doors::assess::assess` (agent door). Each case is
/// labelled by hand below. Temporary paths become `/home/dev`. Its facts
/// are vouch's own, so it tells whether a change moved what vouch measures,
/// not whether vouch measures the world right: that is the scenarios' job.
///
/// Regenerate with `cargo test --test it eval::generate_corpus -- --ignored`.
#[test]
#[ignore = "writes fixtures/eval/generated.jsonl"]
fn generate_corpus() {
    let cases = corpus::all();
    let dangerous = cases
        .iter()
        .filter(|l| l.contains(r#""label":"dangerous""#))
        .count();
    assert!(cases.len() >= 60, "{}", cases.len());
    assert!(dangerous * 3 >= cases.len() && dangerous * 3 <= cases.len() * 2);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GENERATED);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, cases.join("\n") + "\n").unwrap();
}

/// The regression fixture reads back as cases, about half of them
/// dangerous, of every kind of operation.
#[test]
fn the_generated_fixture_is_labelled_operations_of_every_kind() {
    let text = fixture(GENERATED);
    let cases = vouch::audit::eval::parse_corpus(&text).unwrap();
    assert!(cases.len() >= 60, "{}", cases.len());
    let dangerous = cases
        .iter()
        .filter(|(_, c)| c.label == vouch::audit::eval::Label::Dangerous)
        .count();
    assert!(
        dangerous * 5 >= cases.len() * 2 && dangerous * 5 <= cases.len() * 3,
        "{dangerous}"
    );
    for kind in ["push", "commit", "local-refs", "command"] {
        assert!(
            text.lines()
                .filter(|l| l.contains(&format!(r#""kind":"{kind}""#)))
                .count()
                >= 8,
            "{kind}"
        );
    }
    assert!(!text.contains("vouch-it-"), "no temporary path is left");
    for (_, c) in &cases {
        assert!(c.note.as_deref().is_some_and(|n| !n.is_empty()));
        // The prompt carries what makes the case what it is: its tier.
        let prompt = vouch::verify::ai::prompt::for_operation(&c.operation, "webapp");
        let tier = c.operation.assessment().tier.to_string();
        assert!(prompt.contains(&tier), "{prompt}");
    }
}

mod corpus;

/// Without `--provider`, each case goes through the provider chain as the
/// config orders it, exactly as a live decision: the first usable verdict
/// stands, and a provider without one is passed over.
#[test]
fn eval_without_provider_asks_in_the_configured_order() {
    // Anthropic never gives a verdict; OpenAI blocks.
    let anthropic = LlmServer::start(vec![envelope(
        Wire::Anthropic,
        &[Piece::Text("Looks fine to me!".into())],
        None,
    )]);
    let openai = LlmServer::start(vec![envelope(
        Wire::Openai,
        &[Piece::Text(verdict("block", 0.2))],
        None,
    )]);
    let mut env = TestEnv::new();
    env.extra_env.extend([
        (
            "OPENAI_API_KEY".to_owned(),
            "sk-TESTKEY-OPENAI-0123".to_owned(),
        ),
        ("OPENAI_BASE_URL".to_owned(), format!("{}/v1", openai.url)),
        (
            "ANTHROPIC_API_KEY".to_owned(),
            "sk-ant-TESTKEY-0123".to_owned(),
        ),
        ("ANTHROPIC_BASE_URL".to_owned(), anthropic.url.clone()),
    ]);
    let corpus = env.base().join("corpus.jsonl");
    std::fs::write(
        &corpus,
        [case("dangerous", "d1"), case("safe", "s1")].join("\n") + "\n",
    )
    .unwrap();
    let corpus = corpus.display().to_string();
    let providers = |report: &Value| -> Vec<(String, u64, u64)> {
        report["providers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["provider"].as_str().unwrap().to_owned(),
                    p["cases"].as_u64().unwrap(),
                    p["unusable_answers"].as_u64().unwrap(),
                )
            })
            .collect()
    };

    // The default order: Anthropic first (asked, then given feedback
    // twice), then OpenAI, whose block stands for both cases.
    env.write_config("[ai]\ntimeout_secs = 5\nconnect_timeout_secs = 2\n");
    let out = env.vouch(&["eval", "--corpus", &corpus, "--json"]);
    out.code(0);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        providers(&report),
        [("anthropic".to_owned(), 2, 2), ("openai".to_owned(), 2, 0)]
    );
    assert_eq!((anthropic.count(), openai.count()), (6, 2));
    assert_eq!(
        report["overall"]["catch"],
        json!({"count": 1, "of": 1, "rate": 1.0})
    );
    assert_eq!(
        report["overall"]["false_positive"],
        json!({"count": 1, "of": 1, "rate": 1.0})
    );
    assert_eq!(report["outcomes"][0]["provider"], "openai");

    // OpenAI ordered first: its verdict stands, Anthropic is never asked.
    env.write_config(
        "[ai]\ntimeout_secs = 5\nconnect_timeout_secs = 2\norder = [\"openai\", \"anthropic\"]\n",
    );
    let out = env.vouch(&["eval", "--corpus", &corpus, "--json"]);
    out.code(0);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(providers(&report), [("openai".to_owned(), 2, 0)]);
    assert_eq!((anthropic.count(), openai.count()), (6, 4));
}
