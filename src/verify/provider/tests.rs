//! Wire formats: request shapes and every kind of answer, per provider.

use serde_json::json;

use super::*;

const VERDICT: &str = r#"{"verified":true,"confidence":0.9,"concerns":[],"recommendation":"proceed","reasoning":"ok","scores":{"recoverability":1,"blast_radius":1,"intent_fit":1,"safeguards":1}}"#;

fn ask(turns: &[(Role, String)]) -> Ask<'_> {
    Ask {
        model: "m-1",
        system: "sys",
        turns,
        max_output_tokens: 1024,
        temperature: None,
    }
}

#[test]
fn requests_follow_each_sdk_base_url_convention_and_keep_keys_out_of_urls() {
    let turns = [(Role::User, "op".to_owned())];
    let key = Secret::new("sk-SECRET".into());
    let a = build_request(Kind::Anthropic, "http://h/", Some(&key), &ask(&turns));
    assert_eq!(a.url, "http://h/v1/messages");
    assert!(
        a.headers
            .iter()
            .any(|(k, v)| k == "x-api-key" && v.as_str() == "sk-SECRET")
    );
    assert_eq!(a.body["output_config"]["format"]["type"], "json_schema");
    assert!(
        a.body.get("temperature").is_none(),
        "no temperature unless configured"
    );
    assert_eq!(
        a.body["messages"].as_array().unwrap().last().unwrap()["role"],
        "user",
        "no prefill"
    );

    let o = build_request(Kind::Openai, "http://h/v1", Some(&key), &ask(&turns));
    assert_eq!(o.url, "http://h/v1/chat/completions");
    assert_eq!(o.body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(o.body["max_completion_tokens"], 1024);
    assert!(o.body.get("reasoning_effort").is_none());
    let reasoning = Ask {
        model: "gpt-5-mini",
        ..ask(&turns)
    };
    let o = build_request(Kind::Openai, "http://h/v1", Some(&key), &reasoning);
    assert_eq!(
        o.body["reasoning_effort"], "low",
        "a reasoning model must not spend its budget thinking"
    );
    let flash = Ask {
        model: "gemini-2.5-flash",
        ..ask(&turns)
    };
    let g = build_request(Kind::Google, "http://h", None, &flash);
    assert_eq!(
        g.body["generationConfig"]["thinkingConfig"]["thinkingBudget"],
        0
    );

    let g = build_request(Kind::Google, "http://h", Some(&key), &ask(&turns));
    assert_eq!(g.url, "http://h/v1beta/models/m-1:generateContent");
    assert!(!g.url.contains("SECRET"));
    assert_eq!(
        g.body["generationConfig"]["responseMimeType"],
        "application/json"
    );
    assert!(format!("{key:?} {key}").contains("****") && !format!("{key:?}").contains("SECRET"));
    assert!(
        !format!("{g:?} {a:?} {o:?}").contains("SECRET"),
        "a request's Debug hides the key"
    );
}

#[test]
fn retries_carry_the_earlier_answer_and_the_feedback() {
    let turns = [
        (Role::User, "op".to_owned()),
        (Role::Assistant, "bad".to_owned()),
        (Role::User, "fix `confidence`".to_owned()),
    ];
    let g = build_request(Kind::Google, "http://h", None, &ask(&turns));
    assert_eq!(g.body["contents"][1]["role"], "model");
    let a = build_request(Kind::Anthropic, "http://h", None, &ask(&turns));
    assert_eq!(a.body["messages"][2]["content"], "fix `confidence`");
}

fn text(kind: Kind, body: &serde_json::Value) -> Result<Answer, Unusable> {
    parse_response(kind, &body.to_string()).0
}

fn parts(answer: Result<Answer, Unusable>) -> Vec<Part> {
    answer.unwrap().parts
}

fn stop(answer: Result<Answer, Unusable>) -> Option<StopKind> {
    answer.unwrap().stop.map(|(k, _)| k)
}

#[test]
fn anthropic_answers() {
    let ok = json!({"content": [{"type": "text", "text": VERDICT}], "stop_reason": "end_turn",
                    "usage": {"input_tokens": 10, "output_tokens": 20}});
    let (answer, usage) = parse_response(Kind::Anthropic, &ok.to_string());
    assert_eq!(parts(answer), [Part::Text(VERDICT.into())]);
    assert_eq!(
        usage,
        Usage {
            input: Some(10),
            output: Some(20)
        }
    );
    let tool = json!({"content": [{"type": "text", "text": "t"}, {"type": "tool_use", "name": "v", "input": {"a": 1}}], "stop_reason": "tool_use"});
    assert_eq!(
        parts(text(Kind::Anthropic, &tool)),
        [Part::Text("t".into()), Part::Tool(r#"{"a":1}"#.into())],
        "every block is a part, in order"
    );
    let refused = json!({"content": [], "stop_reason": "refusal"});
    assert_eq!(
        stop(text(Kind::Anthropic, &refused)),
        Some(StopKind::Refused)
    );
    let cut =
        json!({"content": [{"type": "tool_use", "input": {"a": 1}}], "stop_reason": "max_tokens"});
    assert_eq!(
        stop(text(Kind::Anthropic, &cut)),
        Some(StopKind::Truncated),
        "a tool input read at max_tokens is cut too"
    );
    let empty = json!({"content": [], "stop_reason": "end_turn"});
    assert_eq!(parts(text(Kind::Anthropic, &empty)), []);
    // A duplicate key in a tool input is kept as the model wrote it.
    let raw = r#"{"content":[{"type":"tool_use","id":"t","name":"v","input":{"recommendation":"block","recommendation":"proceed"}}],"stop_reason":"tool_use"}"#;
    assert_eq!(
        parse_response(Kind::Anthropic, raw).0.unwrap().parts,
        [Part::Tool(
            r#"{"recommendation":"block","recommendation":"proceed"}"#.into()
        )]
    );
}

#[test]
fn openai_answers() {
    let ok = json!({"choices": [{"message": {"content": VERDICT, "refusal": null}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 6}});
    assert_eq!(parts(text(Kind::Openai, &ok)), [Part::Text(VERDICT.into())]);
    let refused = json!({"choices": [{"message": {"content": null, "refusal": "I can't help"}, "finish_reason": "stop"}]});
    assert_eq!(stop(text(Kind::Openai, &refused)), Some(StopKind::Refused));
    let cut = json!({"choices": [{"message": {"content": ""}, "finish_reason": "length"}]});
    assert_eq!(stop(text(Kind::Openai, &cut)), Some(StopKind::Truncated));
    let filtered =
        json!({"choices": [{"message": {"content": ""}, "finish_reason": "content_filter"}]});
    assert_eq!(stop(text(Kind::Openai, &filtered)), Some(StopKind::Safety));
    let tool = json!({"choices": [
        {"message": {"tool_calls": [{"function": {"arguments": VERDICT}}, {"function": {"arguments": "{}"}}]}, "finish_reason": "tool_calls"},
        {"message": {"content": "second choice"}, "finish_reason": "stop"}]});
    assert_eq!(
        parts(text(Kind::Openai, &tool)),
        [
            Part::Tool(VERDICT.into()),
            Part::Tool("{}".into()),
            Part::Text("second choice".into())
        ],
        "every tool call of every choice"
    );
    let padded = format!("\n\n  {ok}");
    assert!(
        parse_response(Kind::OpenaiCompatible, &padded).0.is_ok(),
        "OpenRouter keep-alive padding"
    );
    let error_in_200 = json!({"error": {"code": 502, "message": "upstream died"}});
    assert!(matches!(
        text(Kind::OpenaiCompatible, &error_in_200),
        Err(Unusable::Malformed(_))
    ));
    let null_error = json!({"choices": [{"message": {"content": VERDICT}, "finish_reason": "stop"}], "error": null});
    assert_eq!(
        parts(text(Kind::Openai, &null_error)),
        [Part::Text(VERDICT.into())],
        "`\"error\": null` is no error"
    );
}

#[test]
fn google_answers() {
    let ok = json!({"candidates": [{"content": {"parts": [
        {"text": "```json\n{\"thinking\": true}\n```", "thought": true},
        {"text": VERDICT}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 4, "thoughtsTokenCount": 5}});
    let (answer, usage) = parse_response(Kind::Google, &ok.to_string());
    assert_eq!(
        parts(answer),
        [Part::Text(VERDICT.into())],
        "thought parts are skipped"
    );
    assert_eq!(usage.output, Some(9));
    let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
    assert!(matches!(
        text(Kind::Google, &blocked),
        Err(Unusable::Blocked(_))
    ));
    for reason in [
        "SAFETY",
        "IMAGE_SAFETY",
        "PROHIBITED_CONTENT",
        "BLOCKLIST",
        "SPII",
        "RECITATION",
    ] {
        let stopped = json!({"candidates": [{"content": {"parts": [{"text": VERDICT}]}, "finishReason": reason}]});
        assert_eq!(
            stop(text(Kind::Google, &stopped)),
            Some(StopKind::Safety),
            "{reason}"
        );
    }
    let feedback = json!({"candidates": [{"content": {"parts": [{"text": VERDICT}]}, "finishReason": "STOP"}],
                          "promptFeedback": {"blockReason": "OTHER"}});
    assert_eq!(stop(text(Kind::Google, &feedback)), Some(StopKind::Safety));
    let cut = json!({"candidates": [{"content": {}, "finishReason": "MAX_TOKENS"}]});
    assert_eq!(stop(text(Kind::Google, &cut)), Some(StopKind::Truncated));
    let two = json!({"candidates": [
        {"content": {"parts": [{"text": "a"}]}, "finishReason": "STOP"},
        {"content": {"parts": [{"functionCall": {"name": "v", "args": {"b": 2}}}]}, "finishReason": "STOP"}]});
    assert_eq!(
        parts(text(Kind::Google, &two)),
        [Part::Text("a".into()), Part::Tool(r#"{"b":2}"#.into())],
        "every candidate"
    );
}

fn no_headers(_: &str) -> Option<String> {
    None
}

#[test]
fn errors_are_classified_for_retry_and_explained() {
    let anthropic_401 = json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}).to_string();
    let f = classify_failure(
        "anthropic",
        401,
        &no_headers,
        &anthropic_401,
        "ANTHROPIC_API_KEY",
    );
    assert_eq!(f.retry, Retry::No);
    assert!(
        f.message.contains("ANTHROPIC_API_KEY") && f.message.contains("invalid x-api-key"),
        "{}",
        f.message
    );

    let gemini_bad_key =
        json!({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "API key not valid",
        "details": [{"reason": "API_KEY_INVALID"}]}})
        .to_string();
    let f = classify_failure(
        "google",
        400,
        &no_headers,
        &gemini_bad_key,
        "GEMINI_API_KEY",
    );
    assert_eq!(f.retry, Retry::No);
    assert!(f.message.contains("GEMINI_API_KEY"));

    let retry_after = |name: &str| (name == "retry-after").then(|| "3".to_owned());
    let f = classify_failure("openai", 429, &retry_after, "{}", "OPENAI_API_KEY");
    assert_eq!(f.retry, Retry::After(Some(Duration::from_secs(3))));
    let ms = |name: &str| (name == "retry-after-ms").then(|| "250".to_owned());
    assert_eq!(
        classify_failure("openai", 503, &ms, "", "k").retry,
        Retry::After(Some(Duration::from_millis(250)))
    );

    let echoed = json!({"error": {"message": "bad key sk-ECHOEDSECRETKEY0123456789"}}).to_string();
    assert!(
        !classify_failure("p", 401, &no_headers, &echoed, "K")
            .message
            .contains("ECHOED")
    );
    let spend = json!({"type": "error", "error": {"type": "rate_limit_error", "message": "cap", "details": {"error_code": "enforced_spend_limit_reached"}}}).to_string();
    assert_eq!(
        classify_failure("anthropic", 429, &no_headers, &spend, "k").retry,
        Retry::No
    );
    let per_day = json!({"error": {"code": 429, "message": "quota", "details": [{"violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel"}]}]}}).to_string();
    assert_eq!(
        classify_failure("google", 429, &no_headers, &per_day, "k").retry,
        Retry::No
    );
    let yes = |name: &str| (name == "x-should-retry").then(|| "true".to_owned());
    assert!(matches!(
        classify_failure("anthropic", 400, &yes, "", "k").retry,
        Retry::After(_)
    ));
    let quota = json!({"error": {"message": "You exceeded your quota", "type": "insufficient_quota", "code": "insufficient_quota"}}).to_string();
    assert_eq!(
        classify_failure("openai", 429, &no_headers, &quota, "k").retry,
        Retry::No
    );

    let gemini_429 = json!({"error": {"code": 429, "message": "retry later", "details": [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}]}})
    .to_string();
    assert_eq!(
        classify_failure("google", 429, &no_headers, &gemini_429, "k").retry,
        Retry::After(Some(Duration::from_secs(2)))
    );

    for status in [408, 409, 500, 503, 529] {
        assert!(
            matches!(
                classify_failure("x", status, &no_headers, "", "k").retry,
                Retry::After(_)
            ),
            "{status}"
        );
    }
    for status in [400, 404, 413] {
        assert_eq!(
            classify_failure("x", status, &no_headers, "", "k").retry,
            Retry::No,
            "{status}"
        );
    }
    let no_retry = |name: &str| (name == "x-should-retry").then(|| "false".to_owned());
    assert_eq!(
        classify_failure("anthropic", 529, &no_retry, "", "k").retry,
        Retry::No
    );
    let lm_studio = json!({"error": "'response_format.type' must be 'json_schema'"}).to_string();
    assert!(
        classify_failure("local", 400, &no_headers, &lm_studio, "k")
            .message
            .contains("json_schema")
    );
}
