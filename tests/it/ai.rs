//! The AI verifier against local servers speaking each provider's wire
//! format: every kind of answer, and the decision that follows from it.

use std::fs;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::TestEnv;
use crate::support::llm::{LlmServer, Piece, Reply, Wire, envelope, ok, status};

/// Unusable verdicts refuse (instead of the default "allow with a warning"
/// when headless), so a test can tell "proceed" from "unavailable".
const CONFIG: &str = "[on_unavailable]\ncritical = \"block\"\nhigh = \"block\"\n[ai]\ntimeout_secs = 2\nconnect_timeout_secs = 2\n";

const ANTHROPIC_KEY: &str = "sk-ant-TESTKEY-ANTHROPIC-0123456789";
const GEMINI_KEY: &str = "AIzaTESTKEY-GEMINI-0123456789";
const OPENAI_KEY: &str = "sk-TESTKEY-OPENAI-0123456789";

fn verdict(rec: &str, score: f64) -> Value {
    json!({"verified": true, "confidence": 0.9, "concerns": ["c-1"], "recommendation": rec,
           "reasoning": "r", "scores": {"recoverability": score, "blast_radius": score,
           "intent_fit": score, "safeguards": score}})
}

fn proceed() -> String {
    verdict("proceed", 0.9).to_string()
}

fn text(wire: Wire, text: &str) -> Reply {
    ok(match wire {
        Wire::Anthropic => {
            json!({"content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                                  "usage": {"input_tokens": 100, "output_tokens": 50}})
        }
        Wire::Openai => {
            json!({"choices": [{"message": {"content": text, "refusal": null}, "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 100, "completion_tokens": 50}})
        }
        Wire::Google => {
            json!({"candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP"}],
                               "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 50}})
        }
    })
}

fn truncated(wire: Wire) -> Reply {
    ok(match wire {
        Wire::Anthropic => {
            json!({"content": [{"type": "text", "text": "{\"verified\": tr"}], "stop_reason": "max_tokens"})
        }
        Wire::Openai => {
            json!({"choices": [{"message": {"content": ""}, "finish_reason": "length"}]})
        }
        Wire::Google => json!({"candidates": [{"content": {}, "finishReason": "MAX_TOKENS"}]}),
    })
}

fn refused(wire: Wire) -> Reply {
    ok(match wire {
        Wire::Anthropic => json!({"content": [], "stop_reason": "refusal"}),
        Wire::Openai => {
            json!({"choices": [{"message": {"content": null, "refusal": "I can't help with that"}, "finish_reason": "stop"}]})
        }
        Wire::Google => json!({"promptFeedback": {"blockReason": "SAFETY"}}),
    })
}

fn safety_blocked(wire: Wire) -> Reply {
    ok(match wire {
        Wire::Anthropic => {
            json!({"content": [], "stop_reason": "refusal", "stop_details": {"type": "refusal", "category": "cyber", "explanation": "policy"}})
        }
        Wire::Openai => {
            json!({"choices": [{"message": {"content": ""}, "finish_reason": "content_filter"}]})
        }
        Wire::Google => json!({"candidates": [{"content": {}, "finishReason": "SAFETY"}]}),
    })
}

fn empty(wire: Wire) -> Reply {
    ok(match wire {
        Wire::Anthropic => json!({"content": [], "stop_reason": "end_turn"}),
        Wire::Openai => json!({"choices": [{"message": {"content": ""}, "finish_reason": "stop"}]}),
        Wire::Google => json!({"candidates": [{"content": {}, "finishReason": "STOP"}]}),
    })
}

fn error_body(wire: Wire, code: u16, message: &str) -> Value {
    match wire {
        Wire::Anthropic => {
            json!({"type": "error", "error": {"type": "x_error", "message": message}})
        }
        Wire::Openai => json!({"error": {"message": message, "type": "x", "code": null}}),
        Wire::Google => json!({"error": {"code": code, "message": message, "status": "X"}}),
    }
}

/// A repository whose `main` is about to be force-pushed back by one commit
/// (critical), with `wire`'s server the only provider with a key.
fn setup(wire: Wire, server: &LlmServer, config: &str) -> TestEnv {
    let mut env = TestEnv::new();
    let vars: [(&str, String); 3] = match wire {
        Wire::Anthropic => [
            ("ANTHROPIC_BASE_URL", server.url.clone()),
            ("ANTHROPIC_API_KEY", ANTHROPIC_KEY.into()),
            ("VOUCH_PRIMARY", "openai".into()),
        ],
        Wire::Openai => [
            ("OPENAI_BASE_URL", format!("{}/v1", server.url)),
            ("OPENAI_API_KEY", OPENAI_KEY.into()),
            ("VOUCH_PRIMARY", "anthropic".into()),
        ],
        Wire::Google => [
            ("GOOGLE_GEMINI_BASE_URL", server.url.clone()),
            ("GEMINI_API_KEY", GEMINI_KEY.into()),
            ("VOUCH_PRIMARY", "anthropic".into()),
        ],
    };
    env.extra_env
        .extend(vars.into_iter().map(|(k, v)| (k.to_owned(), v)));
    env.write_config(config);
    env.install();
    env.rewind(1);
    env
}

struct Case {
    name: &'static str,
    wire: Wire,
    script: Vec<Reply>,
    /// Exit code of `git push`: 0 allowed, 1 refused.
    code: i32,
    /// The audit `result`.
    result: &'static str,
    /// Requests the server must have seen.
    requests: usize,
}

fn run(case: Case) {
    let server = LlmServer::start(case.script);
    let env = setup(case.wire, &server, CONFIG);
    let out = env.push(&["--force", "origin", "main"]);
    assert_eq!(
        out.code, case.code,
        "{}: exit code\n{}",
        case.name, out.stderr
    );
    let record = env.last_audit();
    assert_eq!(
        record["result"], case.result,
        "{}: result\n{}",
        case.name, out.stderr
    );
    assert_eq!(server.count(), case.requests, "{}: requests", case.name);
}

fn cases(wire: Wire) -> Vec<Case> {
    let c = |name, script, code, result, requests| Case {
        name,
        wire,
        script,
        code,
        result,
        requests,
    };
    let err = |code: u16, msg: &str| status(code, error_body(wire, code, msg));
    vec![
        c("success", vec![text(wire, &proceed())], 0, "proceed", 1),
        c(
            "block verdict",
            vec![text(wire, &verdict("block", 0.1).to_string())],
            1,
            "block",
            1,
        ),
        c(
            "warn verdict, headless",
            vec![text(wire, &verdict("warn", 0.6).to_string())],
            1,
            "warn",
            1,
        ),
        c(
            "fenced JSON",
            vec![text(wire, &format!("```json\n{}\n```", proceed()))],
            0,
            "proceed",
            1,
        ),
        c(
            "JSON in prose",
            vec![text(
                wire,
                &format!("My assessment: {} Hope this helps.", proceed()),
            )],
            0,
            "proceed",
            1,
        ),
        c(
            "not JSON, then fixed after feedback",
            vec![text(wire, "Looks fine to me!"), text(wire, &proceed())],
            0,
            "proceed",
            2,
        ),
        c(
            "missing fields every time",
            vec![text(wire, "{\"recommendation\": \"proceed\"}")],
            1,
            "unavailable",
            3,
        ),
        c(
            "proceed contradicting its scores",
            vec![text(wire, &verdict("proceed", 0.1).to_string())],
            1,
            "block",
            1,
        ),
        c("truncated", vec![truncated(wire)], 1, "unavailable", 3),
        c("refused", vec![refused(wire)], 1, "unavailable", 1),
        c(
            "safety-blocked",
            vec![safety_blocked(wire)],
            1,
            "unavailable",
            1,
        ),
        c("empty content", vec![empty(wire)], 1, "unavailable", 3),
        c("400", vec![err(400, "bad request")], 1, "unavailable", 1),
        c("401", vec![err(401, "invalid key")], 1, "unavailable", 1),
        c("404", vec![err(404, "no such model")], 1, "unavailable", 1),
        c(
            "429 with Retry-After",
            vec![
                Reply::Http(
                    429,
                    vec![("retry-after".into(), "1".into())],
                    error_body(wire, 429, "slow down").to_string(),
                ),
                text(wire, &proceed()),
            ],
            0,
            "proceed",
            2,
        ),
        c(
            "429 without Retry-After",
            vec![err(429, "slow down"), text(wire, &proceed())],
            0,
            "proceed",
            2,
        ),
        c(
            "500 then success",
            vec![err(500, "oops"), text(wire, &proceed())],
            0,
            "proceed",
            2,
        ),
        c(
            "503 then success",
            vec![err(503, "overloaded"), text(wire, &proceed())],
            0,
            "proceed",
            2,
        ),
        c(
            "529 every time",
            vec![err(529, "Overloaded")],
            1,
            "unavailable",
            3,
        ),
        c(
            "connection reset, then success",
            vec![Reply::Reset, text(wire, &proceed())],
            0,
            "proceed",
            2,
        ),
        c(
            "body cut in the middle of the JSON, every time",
            vec![Reply::Cut(proceed(), 40)],
            1,
            "unavailable",
            3,
        ),
    ]
}

#[test]
fn anthropic_wire_format_every_answer_kind() {
    for case in cases(Wire::Anthropic) {
        run(case);
    }
    // A tool call's input is the verdict.
    run(Case {
        name: "tool call",
        wire: Wire::Anthropic,
        script: vec![ok(
            json!({"content": [{"type": "tool_use", "id": "t", "name": "record_verdict",
            "input": verdict("proceed", 0.9)}], "stop_reason": "tool_use"}),
        )],
        code: 0,
        result: "proceed",
        requests: 1,
    });
}

#[test]
fn openai_wire_format_every_answer_kind() {
    for case in cases(Wire::Openai) {
        run(case);
    }
    run(Case {
        name: "tool call",
        wire: Wire::Openai,
        script: vec![ok(
            json!({"choices": [{"message": {"content": null, "tool_calls": [{"type": "function",
            "function": {"name": "record_verdict", "arguments": proceed()}}]}, "finish_reason": "tool_calls"}]}),
        )],
        code: 0,
        result: "proceed",
        requests: 1,
    });
}

#[test]
fn an_openai_compatible_server_from_ollama_host() {
    let server = LlmServer::start(vec![text(Wire::Openai, &proceed())]);
    let mut env = TestEnv::new();
    let host = server.url.trim_start_matches("http://").to_owned();
    env.extra_env.push(("OLLAMA_HOST".into(), host));
    env.extra_env
        .push(("VOUCH_PRIMARY".into(), "anthropic".into()));
    env.write_config(CONFIG);
    env.install();
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(0);
    assert_eq!(
        server.received()[0].line,
        "POST /v1/chat/completions HTTP/1.1"
    );
    let record = env.last_audit();
    assert_eq!(record["verifier_provider"], "ollama");
    assert_eq!(record["result"], "proceed");
}

#[test]
fn a_truncated_answer_is_asked_again_with_a_larger_budget() {
    let server = LlmServer::start(vec![
        truncated(Wire::Anthropic),
        text(Wire::Anthropic, &proceed()),
    ]);
    let env = setup(Wire::Anthropic, &server, CONFIG);
    env.push(&["--force", "origin", "main"]).code(0);
    let budgets: Vec<u64> = server
        .received()
        .iter()
        .map(|r| {
            serde_json::from_str::<Value>(&r.body).unwrap()["max_tokens"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(budgets, [1024, 2048]);
}

#[test]
fn the_proposers_own_family_is_the_last_resort_and_says_so() {
    let anthropic = LlmServer::start(vec![text(Wire::Anthropic, &proceed())]);
    let google = LlmServer::start(vec![status(
        503,
        error_body(Wire::Google, 503, "overloaded"),
    )]);
    let mut env = setup(Wire::Anthropic, &anthropic, CONFIG);
    env.extra_env.retain(|(k, _)| k != "VOUCH_PRIMARY");
    env.extra_env
        .push(("VOUCH_PRIMARY".into(), "claude-opus-4".into()));
    env.extra_env
        .push(("GOOGLE_GEMINI_BASE_URL".into(), google.url.clone()));
    env.extra_env
        .push(("GEMINI_API_KEY".into(), GEMINI_KEY.into()));
    // Google (another family) fails every time; Anthropic, the proposer's family, answers.
    env.push(&["--force", "origin", "main"])
        .code(0)
        .stderr_has("less effective");
    let record = env.last_audit();
    assert_eq!(record["verifier_provider"], "anthropic");
    assert_eq!(
        record["verifier_model"], "claude-sonnet-4-5",
        "the other, stronger model of the same provider"
    );
    assert!(record["warnings"].to_string().contains("less effective"));
    assert_eq!(google.count(), 3);
}

#[test]
fn gemini_wire_format_every_answer_kind() {
    for case in cases(Wire::Google) {
        run(case);
    }
}

#[test]
fn a_timeout_is_unavailable_never_proceed() {
    let slow = Reply::Slow(
        Duration::from_secs(4),
        Box::new(text(Wire::Anthropic, &proceed())),
    );
    run(Case {
        name: "timeout",
        wire: Wire::Anthropic,
        script: vec![slow],
        code: 1,
        result: "unavailable",
        requests: 3,
    });
}

#[test]
fn a_401_names_the_variable_the_key_came_from() {
    let server = LlmServer::start(vec![status(
        401,
        error_body(Wire::Anthropic, 401, "invalid x-api-key"),
    )]);
    let env = setup(Wire::Anthropic, &server, CONFIG);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1)
        .stderr_has("rejected the API key")
        .stderr_has("ANTHROPIC_API_KEY");
}

#[test]
fn the_request_carries_the_facts_and_the_audit_line_the_cost() {
    let server = LlmServer::start(vec![text(Wire::Anthropic, &proceed())]);
    let env = setup(Wire::Anthropic, &server, CONFIG);
    env.push(&["--force", "origin", "main"]).code(0);
    let request = &server.received()[0];
    assert_eq!(request.line, "POST /v1/messages HTTP/1.1");
    assert!(
        request
            .headers
            .iter()
            .any(|(k, v)| k == "x-api-key" && v == ANTHROPIC_KEY)
    );
    let body: Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(body["model"], "claude-haiku-4-5");
    assert!(body.get("temperature").is_none());
    let prompt = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        prompt.contains("refs/heads/main") && prompt.contains("commit 3"),
        "{prompt}"
    );
    let record = env.last_audit();
    assert_eq!(record["verifier_provider"], "anthropic");
    assert_eq!(record["verifier_model"], "claude-haiku-4-5");
    assert_eq!(record["primary_provider"], "openai");
    assert_eq!(record["ai"]["tokens_in"], 100);
    assert_eq!(record["ai"]["tokens_out"], 50);
    assert!(
        (record["ai"]["cost_usd"].as_f64().unwrap() - (100.0 * 1.0 + 50.0 * 5.0) / 1e6).abs()
            < 1e-12
    );
}

#[test]
fn overloaded_provider_falls_back_to_the_next_family() {
    let anthropic = LlmServer::start(vec![status(
        529,
        error_body(Wire::Anthropic, 529, "Overloaded"),
    )]);
    let google = LlmServer::start(vec![text(Wire::Google, &proceed())]);
    let mut env = setup(Wire::Anthropic, &anthropic, CONFIG);
    env.extra_env
        .push(("GOOGLE_GEMINI_BASE_URL".into(), google.url.clone()));
    env.extra_env
        .push(("GEMINI_API_KEY".into(), GEMINI_KEY.into()));
    env.push(&["--force", "origin", "main"]).code(0);
    let record = env.last_audit();
    assert_eq!(record["verifier_provider"], "google");
    assert_eq!(record["result"], "proceed");
    assert_eq!(
        anthropic.count(),
        3,
        "the first provider was retried, then given up"
    );
    assert_eq!(google.count(), 1);
}

#[test]
fn three_blocks_in_a_session_call_a_tiebreaker() {
    let anthropic = LlmServer::start(vec![text(
        Wire::Anthropic,
        &verdict("block", 0.1).to_string(),
    )]);
    let google = LlmServer::start(vec![text(Wire::Google, &proceed())]);
    let mut env = TestEnv::new();
    for i in 4..=6 {
        env.commit(&env.work, "more.txt", &format!("commit {i}"));
    }
    env.git(&env.work, &["push", "-q", "origin", "main"]);
    env.extra_env.extend([
        ("ANTHROPIC_BASE_URL".to_owned(), anthropic.url.clone()),
        ("ANTHROPIC_API_KEY".to_owned(), ANTHROPIC_KEY.to_owned()),
        ("GOOGLE_GEMINI_BASE_URL".to_owned(), google.url.clone()),
        ("GEMINI_API_KEY".to_owned(), GEMINI_KEY.to_owned()),
        ("VOUCH_PRIMARY".to_owned(), "openai".to_owned()),
        ("VOUCH_SESSION".to_owned(), "agent-session-1".to_owned()),
    ]);
    env.write_config(CONFIG);
    env.install();
    for _ in 0..2 {
        env.rewind(1);
        env.push(&["--force", "origin", "main"]).code(1);
        assert_eq!(env.last_audit()["result"], "block");
    }
    assert_eq!(google.count(), 0);
    env.rewind(1);
    env.push(&["--force", "origin", "main"]).code(0);
    let record = env.last_audit();
    assert_eq!(record["ai"]["escalated"], true);
    assert_eq!(record["verifier_provider"], "google");
    assert_eq!(
        record["verifier_model"], "gemini-2.5-pro",
        "the strong model breaks the tie"
    );
    let body: Value = serde_json::from_str(&google.received()[0].body).unwrap();
    assert!(
        body.to_string().contains("c-1"),
        "the tiebreaker sees the concerns"
    );
}

/// At the agent door the session is the agent's own `session_id` (no
/// `VOUCH_SESSION`): three blocks in it call the tiebreaker even when the
/// third is in another repository.
#[test]
fn three_blocks_in_an_agent_session_call_a_tiebreaker() {
    let anthropic = LlmServer::start(vec![text(
        Wire::Anthropic,
        &verdict("block", 0.1).to_string(),
    )]);
    let google = LlmServer::start(vec![text(Wire::Google, &proceed())]);
    let mut env = TestEnv::new();
    env.extra_env.extend([
        ("ANTHROPIC_BASE_URL".to_owned(), anthropic.url.clone()),
        ("ANTHROPIC_API_KEY".to_owned(), ANTHROPIC_KEY.to_owned()),
        ("GOOGLE_GEMINI_BASE_URL".to_owned(), google.url.clone()),
        ("GEMINI_API_KEY".to_owned(), GEMINI_KEY.to_owned()),
        ("VOUCH_PRIMARY".to_owned(), "openai".to_owned()),
    ]);
    env.write_config(CONFIG);
    let other = env.base().join("other");
    fs::create_dir_all(&other).unwrap();
    env.git(&other, &["init", "-q"]);
    env.commit(&other, "file1.txt", "one");
    for dir in [&env.work, &other] {
        fs::write(dir.join("file1.txt"), "unsaved work\n").unwrap();
    }
    let ask = |dir: &std::path::Path, command: &str| {
        let input = json!({"session_id": "agent-s1", "cwd": dir, "hook_event_name": "PreToolUse",
                           "tool_name": "Bash", "tool_input": {"command": command}});
        env.vouch_stdin(&["agent-hook", "claude"], input.to_string().as_bytes())
    };
    for command in ["git reset --hard", "git checkout -- ."] {
        ask(&env.work, command).code(0).stdout_has("deny");
        assert_eq!(env.last_audit()["result"], "block");
        assert_eq!(env.last_audit()["session_id"], "agent-s1");
    }
    assert_eq!(google.count(), 0);
    ask(&other, "git reset --hard").code(0);
    let record = env.last_audit();
    assert_eq!(record["ai"]["escalated"], true, "{record}");
    assert_eq!(record["verifier_provider"], "google");
    assert_eq!(google.count(), 1);
}

#[test]
fn a_repeated_operation_reuses_the_verdict() {
    let server = LlmServer::start(vec![text(
        Wire::Anthropic,
        &verdict("block", 0.1).to_string(),
    )]);
    let env = setup(Wire::Anthropic, &server, CONFIG);
    env.push(&["--force", "origin", "main"]).code(1);
    env.push(&["--force", "origin", "main"]).code(1);
    assert_eq!(
        server.count(),
        1,
        "the second push was answered from the cache"
    );
    assert_eq!(env.last_audit()["ai"]["cached"], true);
}

#[test]
fn keys_never_reach_logs_reviews_or_output_and_urls_are_redacted() {
    let server = LlmServer::start(vec![text(
        Wire::Anthropic,
        &verdict("warn", 0.6).to_string(),
    )]);
    let mut env = setup(Wire::Anthropic, &server, CONFIG);
    // Keys of other providers are in the environment too (their servers are unreachable).
    env.extra_env.extend([
        ("GEMINI_API_KEY".to_owned(), GEMINI_KEY.to_owned()),
        (
            "GOOGLE_GEMINI_BASE_URL".to_owned(),
            "http://127.0.0.1:9".to_owned(),
        ),
        ("OPENAI_API_KEY".to_owned(), OPENAI_KEY.to_owned()),
        (
            "OPENAI_BASE_URL".to_owned(),
            "http://127.0.0.1:9/v1".to_owned(),
        ),
    ]);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1);
    // A push to a URL with credentials, judged directly by the hook.
    let head = env.rev(&env.work, "HEAD");
    let old = env.remote_ref("main").unwrap();
    let line = format!("refs/heads/main {head} refs/heads/main {old}\n");
    let url = "https://user:tok3n-VERY-SECRET@example.invalid/r.git";
    let direct = env.vouch_stdin(&["hook", "pre-push", "--", url, url], line.as_bytes());
    let mut everything = out.stdout + &out.stderr + &direct.stdout + &direct.stderr;
    for state_file in ["ai-cache.json", "ai-breaker.json"] {
        everything.push_str(&fs::read_to_string(env.state().join(state_file)).unwrap_or_default());
    }
    everything.push_str(&fs::read_to_string(env.state().join("audit.jsonl")).unwrap());
    for entry in fs::read_dir(env.state().join("reviews")).unwrap() {
        everything.push_str(&fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    for key in [ANTHROPIC_KEY, GEMINI_KEY, OPENAI_KEY] {
        assert!(!everything.contains(key), "a key leaked: {key}");
    }
    assert!(!everything.contains("tok3n"), "a URL credential leaked");
    for r in server.received() {
        assert!(
            !r.body.contains(ANTHROPIC_KEY),
            "the key is in a header, never in the prompt"
        );
        assert!(
            !r.body.contains("tok3n"),
            "the URL reaches the server redacted"
        );
    }
    assert!(
        server
            .received()
            .iter()
            .any(|r| r.body.contains("***@example.invalid"))
    );
}

#[test]
fn doctor_shows_where_keys_come_from_never_the_keys() {
    let mut env = TestEnv::new();
    env.extra_env
        .push(("ANTHROPIC_API_KEY".into(), ANTHROPIC_KEY.into()));
    env.extra_env
        .push(("GOOGLE_API_KEY".into(), GEMINI_KEY.into()));
    let out = env.vouch(&["doctor", "--primary", "claude-opus-4"]);
    out.code(0)
        .stdout_has("proposer (primary): anthropic")
        .stdout_has("key from ANTHROPIC_API_KEY")
        .stdout_has("key from GOOGLE_API_KEY")
        .stdout_has("no key (set OPENAI_API_KEY)")
        .stdout_has("judges, in order: google");
    assert!(!out.stdout.contains(ANTHROPIC_KEY) && !out.stdout.contains(GEMINI_KEY));
    // No git hook is installed here: status exits 1 (issue 29).
    env.vouch(&["status"])
        .code(1)
        .stdout_has("AI providers: anthropic (claude-haiku-4-5), google");
}

#[test]
fn doctor_ping_makes_a_real_request() {
    let server = LlmServer::start(vec![text(Wire::Google, &proceed())]);
    let mut env = TestEnv::new();
    env.extra_env
        .push(("GOOGLE_GEMINI_BASE_URL".into(), server.url.clone()));
    env.extra_env
        .push(("GEMINI_API_KEY".into(), GEMINI_KEY.into()));
    env.vouch(&["doctor", "--ping"])
        .code(0)
        .stdout_has("ping google: ok in");
    assert_eq!(server.count(), 1);
}

#[test]
fn verify_by_hand_asks_the_ai_verifier() {
    let server = LlmServer::start(vec![text(
        Wire::Anthropic,
        &verdict("block", 0.1).to_string(),
    )]);
    let env = setup(Wire::Anthropic, &server, CONFIG);
    let out = env.vouch(&["verify", "--only", "ai", "--primary", "gpt-5"]);
    out.code(1)
        .stdout_has("ai:anthropic")
        .stdout_has("verdict: block");
}

#[test]
fn keys_in_a_user_config_others_can_read_draw_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    env.write_config("[providers.openai]\napi_key = \"sk-in-file-0123456789abcdef\"\n");
    fs::set_permissions(env.config_path(), fs::Permissions::from_mode(0o644)).unwrap();
    // No git hook is installed here: status exits 1 (issue 29).
    env.vouch(&["status"]).code(1).stdout_has("chmod 600");
    fs::set_permissions(env.config_path(), fs::Permissions::from_mode(0o600)).unwrap();
    let out = env.vouch(&["status"]);
    assert!(!out.stdout.contains("chmod 600"), "{}", out.stdout);
}

/// One case of `fixtures/verdicts/cases.toml`.
#[derive(Debug, serde::Deserialize)]
struct Shape {
    name: String,
    text: Option<String>,
    tool: Option<String>,
    #[serde(default)]
    parts: Vec<ShapePart>,
    stop: Option<String>,
    /// Text that `<<PAD>>` stands for, `pad_times` times over: the
    /// reasoning of a very long answer.
    pad: Option<String>,
    #[serde(default)]
    pad_times: usize,
    expect: String,
    why: String,
}

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum ShapePart {
    Text(String),
    Tool(String),
}

impl Shape {
    fn pieces(&self) -> Vec<Piece> {
        let pad = self
            .pad
            .as_deref()
            .unwrap_or_default()
            .repeat(self.pad_times);
        let padded = |t: &String| t.replace("<<PAD>>", &pad);
        let mut out: Vec<Piece> = self
            .text
            .iter()
            .map(|t| Piece::Text(padded(t)))
            .chain(self.tool.iter().map(|t| Piece::Tool(padded(t))))
            .collect();
        out.extend(self.parts.iter().map(|p| match p {
            ShapePart::Text(t) => Piece::Text(padded(t)),
            ShapePart::Tool(t) => Piece::Tool(padded(t)),
        }));
        out
    }

    /// Exit code, audit `result` and requests at the server it must lead to
    /// (headless, with unavailable refused by `CONFIG`).
    fn expected(&self) -> (i32, &'static str, usize) {
        match self.expect.as_str() {
            "proceed" => (0, "proceed", 1),
            "warn" => (1, "warn", 1),
            "block" => (1, "block", 1),
            // A refusal or a safety stop is not asked again; anything else
            // gets its two feedback retries.
            "unusable" => match self.stop.as_deref() {
                Some("refused" | "safety") => (1, "unavailable", 1),
                _ => (1, "unavailable", 3),
            },
            other => panic!("{}: unknown expectation {other}", self.name),
        }
    }
}

fn shapes() -> Vec<Shape> {
    #[derive(serde::Deserialize)]
    struct Cases {
        case: Vec<Shape>,
    }
    let text = include_str!("../../fixtures/verdicts/cases.toml");
    toml::from_str::<Cases>(text).unwrap().case
}

/// The variable holding `wire`'s base URL, and its value for `server`.
fn base_var(wire: Wire, server: &LlmServer) -> (&'static str, String) {
    match wire {
        Wire::Anthropic => ("ANTHROPIC_BASE_URL", server.url.clone()),
        Wire::Openai => ("OPENAI_BASE_URL", format!("{}/v1", server.url)),
        Wire::Google => ("GOOGLE_GEMINI_BASE_URL", server.url.clone()),
    }
}

fn point_at(env: &mut TestEnv, wire: Wire, server: &LlmServer) {
    let (var, url) = base_var(wire, server);
    env.extra_env.retain(|(k, _)| k != var);
    env.extra_env.push((var.to_owned(), url));
}

/// Every verdict shape of `fixtures/verdicts/` through `wire`'s real
/// envelope: the decision, the audit `result` and the requests made. Most
/// go through `git vouch check --verify` on the same force push (one process,
/// the real HTTP client and parsing, the audit line); every refused shape
/// in six also through `git push` and the pre-push hook end to end.
fn replay(wire: Wire) {
    let config = format!("{CONFIG}cache_secs = 0\n");
    let first = LlmServer::start(vec![text(wire, &proceed())]);
    let mut env = setup(wire, &first, &config);
    let mut failures = Vec::new();
    for (i, shape) in shapes().iter().enumerate() {
        let server = LlmServer::start(vec![envelope(wire, &shape.pieces(), shape.stop.as_deref())]);
        point_at(&mut env, wire, &server);
        let (code, result, requests) = shape.expected();
        let end_to_end = code == 1 && i % 6 == 0;
        let out = if end_to_end {
            env.push(&["--force", "origin", "main"])
        } else {
            env.vouch(&[
                "check", "--verify", "--", "git", "push", "--force", "origin", "main",
            ])
        };
        let record = env.last_audit();
        let got = (
            out.code,
            record["result"].as_str().unwrap_or("?").to_owned(),
            server.count(),
        );
        if got != (code, result.to_owned(), requests) {
            failures.push(format!(
                "{wire:?} {} [{}]: got exit {}, result {}, {} request(s); want {code}, {result}, {requests} ({})\n{}",
                shape.name,
                if end_to_end { "pre-push" } else { "check" },
                got.0,
                got.1,
                got.2,
                shape.why,
                out.stderr.lines().take(12).collect::<Vec<_>>().join("\n")
            ));
        }
        if !end_to_end {
            assert_eq!(
                record["hook"], "check",
                "{}: the check's own line",
                shape.name
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_verdict_shape_through_the_anthropic_envelope() {
    replay(Wire::Anthropic);
}

#[test]
fn every_verdict_shape_through_the_openai_envelope() {
    replay(Wire::Openai);
}

#[test]
fn every_verdict_shape_through_the_gemini_envelope() {
    replay(Wire::Google);
}

/// The answer of the issue: a real model blocking a force push says it is
/// not verified.
fn issue_block() -> String {
    json!({"verified": false, "confidence": 0.9, "concerns": ["commits would be destroyed on a shared branch"],
           "recommendation": "block", "reasoning": "Rewriting main destroys shared history.",
           "scores": {"recoverability": 0.2, "blast_radius": 0.2, "intent_fit": 0.2, "safeguards": 0.2}})
    .to_string()
}

/// Three providers with keys, each at its own server; the default config
/// (unavailable allowed with a warning, as for a new user).
fn three_providers(anthropic: &LlmServer, openai: &LlmServer, google: &LlmServer) -> TestEnv {
    let mut env = TestEnv::new();
    env.extra_env.extend([
        ("ANTHROPIC_BASE_URL".to_owned(), anthropic.url.clone()),
        ("ANTHROPIC_API_KEY".to_owned(), ANTHROPIC_KEY.to_owned()),
        ("OPENAI_BASE_URL".to_owned(), format!("{}/v1", openai.url)),
        ("OPENAI_API_KEY".to_owned(), OPENAI_KEY.to_owned()),
        ("GOOGLE_GEMINI_BASE_URL".to_owned(), google.url.clone()),
        ("GEMINI_API_KEY".to_owned(), GEMINI_KEY.to_owned()),
    ]);
    env.write_config("[ai]\ntimeout_secs = 2\nconnect_timeout_secs = 2\n");
    env.install();
    env.rewind(1);
    env
}

#[test]
fn a_force_push_every_provider_blocks_with_verified_false_is_refused_after_one_request() {
    let anthropic = LlmServer::start(vec![text(Wire::Anthropic, &issue_block())]);
    let openai = LlmServer::start(vec![text(Wire::Openai, &issue_block())]);
    let google = LlmServer::start(vec![text(Wire::Google, &issue_block())]);
    let env = three_providers(&anthropic, &openai, &google);
    let out = env.push(&["--force", "origin", "main"]);
    out.code(1).stderr_has("refused");
    assert!(!out.stderr.contains("not verified"), "{}", out.stderr);
    let record = env.last_audit();
    assert_eq!(record["result"], "block");
    assert_eq!(record["decision"], "refused");
    assert_eq!(record["ai"]["retries"], 0, "a block is never asked again");
    let counts = [anthropic.count(), openai.count(), google.count()];
    assert!(counts.iter().all(|c| *c <= 1), "{counts:?}");
    assert_eq!(
        counts.iter().sum::<usize>(),
        1,
        "the first usable verdict stands: {counts:?}"
    );
    assert_eq!(env.remote_ref("main"), Some(env.rev(&env.work, "HEAD@{1}")));
}

/// The same force push with a person at a terminal (tmux). A block is
/// refused at a terminal too (SPEC 6: "refuse; show concerns and
/// reasoning; a person may override"): no question is put, the screen
/// shows the verdict, its concerns and how a person approves this push,
/// and no provider is asked more than once, nor a second one at all.
#[test]
fn a_force_push_every_provider_blocks_with_verified_false_at_a_terminal() {
    if !crate::support::tmux::available() {
        crate::support::missing("tmux");
        return;
    }
    let anthropic = LlmServer::start(vec![text(Wire::Anthropic, &issue_block())]);
    let openai = LlmServer::start(vec![text(Wire::Openai, &issue_block())]);
    let google = LlmServer::start(vec![text(Wire::Google, &issue_block())]);
    let env = three_providers(&anthropic, &openai, &google);
    let term = crate::support::tmux::Tmux::start(&env, &env.work, "git push --force origin main");
    let screen = term.wait_for("[exit=");
    assert!(screen.contains("[exit=1]"), "{screen}");
    assert!(
        screen.contains("verdict: block"),
        "the verdict is shown:\n{screen}"
    );
    assert!(
        screen.contains("concern: ai:anthropic: commits would be destroyed on a shared branch"),
        "{screen}"
    );
    assert!(
        screen.contains("refused: the verifiers judged this operation unsafe"),
        "{screen}"
    );
    assert!(
        screen.contains("To let this exact push through, a person at a terminal runs:"),
        "the override is shown:\n{screen}"
    );
    assert!(!screen.contains("Allow this push?"), "{screen}");
    assert!(!screen.contains("not verified"), "{screen}");
    let record = env.last_audit();
    assert_eq!(record["result"], "block");
    assert_eq!(record["decision"], "refused");
    assert_eq!(record["ai"]["retries"], 0, "a block is never asked again");
    let counts = [anthropic.count(), openai.count(), google.count()];
    assert!(counts.iter().all(|c| *c <= 1), "{counts:?}");
    assert_eq!(
        counts.iter().sum::<usize>(),
        1,
        "the first usable verdict stands: {counts:?}"
    );
    assert_eq!(env.remote_ref("main"), Some(env.rev(&env.work, "HEAD@{1}")));
}

#[test]
fn a_first_provider_blocking_is_never_outvoted_by_a_second_ready_to_proceed() {
    let anthropic = LlmServer::start(vec![text(Wire::Anthropic, &issue_block())]);
    let openai = LlmServer::start(vec![text(Wire::Openai, &proceed())]);
    let google = LlmServer::start(vec![text(Wire::Google, &proceed())]);
    let mut env = three_providers(&anthropic, &openai, &google);
    // The proposer is Gemini: Anthropic judges first, OpenAI is next in line.
    env.extra_env
        .push(("VOUCH_PRIMARY".into(), "gemini-2.5-pro".into()));
    env.push(&["--force", "origin", "main"]).code(1);
    let record = env.last_audit();
    assert_eq!(record["result"], "block");
    assert_eq!(record["verifier_provider"], "anthropic");
    assert_eq!(anthropic.count(), 1);
    assert_eq!(openai.count(), 0, "the second provider is not asked");
    assert_eq!(google.count(), 0);
}

#[test]
fn providers_passed_over_are_named_with_their_reasons_and_unusable_is_not_unreachable() {
    // Anthropic cannot be reached; OpenAI answers, but never a verdict.
    let anthropic = LlmServer::start(vec![status(
        401,
        error_body(Wire::Anthropic, 401, "invalid x-api-key"),
    )]);
    let openai = LlmServer::start(vec![text(Wire::Openai, "Looks fine to me!")]);
    let google = LlmServer::start(vec![text(Wire::Google, &proceed())]);
    let mut env = three_providers(&anthropic, &openai, &google);
    env.extra_env
        .push(("VOUCH_PRIMARY".into(), "gemini-2.5-pro".into()));
    // Only the proposer's family is left, and it is not asked before the others gave up.
    let out = env.push(&["--force", "origin", "main"]);
    let record = env.last_audit();
    let ai = record["verifiers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["verifier"].as_str().unwrap().starts_with("ai"))
        .unwrap_or_else(|| panic!("{record}\n{}", out.stderr))
        .clone();
    let checks = ai["checks"].to_string();
    assert!(checks.contains("anthropic (claude-haiku-4-5)"), "{checks}");
    assert!(
        checks.contains("unreachable: anthropic rejected the API key"),
        "{checks}"
    );
    assert!(checks.contains("openai (gpt-4.1-mini)"), "{checks}");
    assert!(
        checks.contains("unusable: it holds no JSON verdict object"),
        "{checks}"
    );
    assert_eq!(
        openai.count(),
        3,
        "an unusable answer gets its feedback retries"
    );
    // The proposer's own family answered last, as a last resort.
    assert_eq!(record["verifier_provider"], "google");
    assert_eq!(record["result"], "proceed");
    out.code(0);
}

#[test]
fn answered_but_unusable_is_told_apart_from_unreachable_and_names_no_verifier() {
    // Answered, never usable: the default config allows with a warning that says so.
    let server = LlmServer::start(vec![text(Wire::Anthropic, "I think it's fine.")]);
    let env = setup(
        Wire::Anthropic,
        &server,
        "[ai]\ntimeout_secs = 2\nconnect_timeout_secs = 2\n",
    );
    let out = env.push(&["--force", "origin", "main"]);
    let record = env.last_audit();
    assert_eq!(record["result"], "unavailable");
    assert_eq!(
        record["verifier_provider"],
        Value::Null,
        "no verifier answered usably"
    );
    let warnings = record["warnings"].to_string();
    assert!(
        warnings.contains("answered, but no answer was a usable verdict")
            && warnings.contains("anthropic (unusable)"),
        "{warnings}\n{}",
        out.stderr
    );
    // Not reached at all.
    let down = LlmServer::start(vec![status(
        401,
        error_body(Wire::Anthropic, 401, "invalid x-api-key"),
    )]);
    let env = setup(
        Wire::Anthropic,
        &down,
        "[ai]\ntimeout_secs = 2\nconnect_timeout_secs = 2\n",
    );
    env.push(&["--force", "origin", "main"]);
    let record = env.last_audit();
    assert_eq!(record["result"], "unavailable");
    assert_eq!(record["verifier_provider"], Value::Null);
    let warnings = record["warnings"].to_string();
    assert!(
        warnings.contains("no AI verifier could be reached")
            && warnings.contains("anthropic (unreachable)"),
        "{warnings}"
    );
}

#[test]
fn a_null_error_field_beside_a_verdict_is_no_error() {
    let body = json!({"id": "gen-1", "choices": [{"message": {"role": "assistant", "content": issue_block()},
                      "finish_reason": "stop"}], "error": null});
    run(Case {
        name: "error: null",
        wire: Wire::Openai,
        script: vec![ok(body)],
        code: 1,
        result: "block",
        requests: 1,
    });
}

#[test]
fn credentials_in_a_command_reach_neither_the_prompt_nor_the_log_nor_the_review() {
    let server = LlmServer::start(vec![text(Wire::Anthropic, &issue_block())]);
    let env = setup(Wire::Anthropic, &server, CONFIG);
    let secrets = [
        "hunter2-pg",
        "hunter2-my",
        "hunter2-flag",
        "hunter2-next",
        "bearer-s3cr3t",
        "apikey-s3cr3t",
        "hunter2-basic",
        "tok-s3cr3t",
    ];
    let command = "PGPASSWORD=hunter2-pg psql -c 'drop table t' && mysql -uroot -phunter2-my db \
        && tool --password=hunter2-flag --password hunter2-next \
        && curl -H 'Authorization: Bearer bearer-s3cr3t' -H \"X-Api-Key: apikey-s3cr3t\" -u me:hunter2-basic https://x \
        && DEPLOY_TOKEN=tok-s3cr3t git push --force origin main";
    let out = env.vouch(&["check", "--verify", "--operation", command]);
    out.code(1);
    let mut everything = out.stdout + &out.stderr;
    everything.push_str(&fs::read_to_string(env.state().join("audit.jsonl")).unwrap());
    if let Ok(dir) = fs::read_dir(env.state().join("reviews")) {
        for entry in dir {
            everything.push_str(&fs::read_to_string(entry.unwrap().path()).unwrap());
        }
    }
    let prompts: String = server.received().iter().map(|r| r.body.clone()).collect();
    assert!(!prompts.is_empty(), "the verifier was asked");
    for secret in secrets {
        assert!(
            !everything.contains(secret),
            "{secret} leaked to the log or output"
        );
        assert!(!prompts.contains(secret), "{secret} leaked to the prompt");
    }
    assert!(prompts.contains("PGPASSWORD=***") && prompts.contains("Bearer ***"));
    assert_eq!(env.last_audit()["result"], "block");
}

/// Issue 37 item 6: an answer past the 4 MiB body cap is a block of the
/// operation asked about, whatever the provider and whatever it says; it
/// is never asked again, nor handed to another provider.
#[test]
fn an_answer_over_the_body_cap_is_a_block_whatever_the_provider() {
    let padding = "x".repeat(5 * 1024 * 1024);
    for wire in [Wire::Anthropic, Wire::Openai, Wire::Google] {
        for rec in ["block", "proceed"] {
            let mut answer = verdict(rec, if rec == "block" { 0.1 } else { 0.9 });
            answer["reasoning"] = json!(padding);
            let server = LlmServer::start(vec![text(wire, &answer.to_string())]);
            // The default config: an unusable answer would let the push through.
            let env = setup(
                wire,
                &server,
                "[ai]\ntimeout_secs = 20\nconnect_timeout_secs = 2\n",
            );
            let before = env.remote_ref("main");
            let out = env.push(&["--force", "origin", "main"]);
            out.code(1).stderr_has("refused");
            let record = env.last_audit();
            assert_eq!(record["result"], "block", "{wire:?} {rec}: {}", out.stderr);
            assert_eq!(record["decision"], "refused", "{wire:?} {rec}");
            assert!(
                record.to_string().contains("larger than the 4 MiB"),
                "{wire:?} {rec}: {record}"
            );
            assert_eq!(server.count(), 1, "{wire:?} {rec}: asked once");
            assert_eq!(env.remote_ref("main"), before, "{wire:?} {rec}");
        }
    }
}

/// A feedback retry quotes a long unusable answer only in part.
#[test]
fn a_feedback_retry_never_sends_a_long_answer_back_whole() {
    let prose = format!("I think it is fine. {}", "blah ".repeat(200_000));
    let server = LlmServer::start(vec![
        text(Wire::Anthropic, &prose),
        text(Wire::Anthropic, &issue_block()),
    ]);
    let env = setup(Wire::Anthropic, &server, CONFIG);
    env.push(&["--force", "origin", "main"]).code(1);
    let received = server.received();
    assert_eq!(received.len(), 2, "one feedback retry");
    let retry = &received[1].body;
    assert!(
        retry.len() < 64 * 1024,
        "the retry sent {} bytes back",
        retry.len()
    );
    assert!(
        retry.contains("more bytes of this answer left out"),
        "{retry:.2000}"
    );
}
