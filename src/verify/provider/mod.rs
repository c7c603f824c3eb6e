//! AI providers: the wire formats of Anthropic Messages, OpenAI Chat
//! Completions (and every OpenAI-compatible server) and Google Gemini
//! `generateContent` (`research/providers.md`).
//!
//! This module is PURE: it builds request bodies, reads response bodies and
//! classifies errors, all on JSON text. `http.rs` beside it is the only
//! place that talks to the network.

pub mod http;

use std::fmt;
use std::time::Duration;

use serde_json::{Value, json};

pub use crate::verify::verdict::{Answer, Part, StopKind};

pub use crate::classify::config::provider::{Kind, Secret};

/// One HTTP request, ready to send.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    /// Full URL (never holds the key).
    pub url: String,
    /// Headers, the key among them.
    pub headers: Vec<(String, HeaderValue)>,
    /// JSON body.
    pub body: Value,
}

/// A header value that may be secret (its `Debug` never shows a secret).
#[derive(Clone)]
pub enum HeaderValue {
    /// Plain.
    Plain(String),
    /// Holds the key.
    Secret(String),
}

impl fmt::Debug for HeaderValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Plain(s) => write!(f, "{s:?}"),
            Self::Secret(_) => f.write_str("****"),
        }
    }
}

impl HeaderValue {
    /// The value to send.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Plain(s) | Self::Secret(s) => s,
        }
    }
}

/// What to ask, independent of the wire format.
#[derive(Debug, Clone)]
pub struct Ask<'a> {
    /// The model.
    pub model: &'a str,
    /// The system prompt.
    pub system: &'a str,
    /// The conversation: user, then (on retries) assistant and user turns.
    pub turns: &'a [(Role, String)],
    /// Output budget.
    pub max_output_tokens: u32,
    /// Only when configured: many models reject it.
    pub temperature: Option<f32>,
}

/// Who said a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The operation, or feedback on a bad answer.
    User,
    /// The model's earlier answer.
    Assistant,
}

/// The JSON schema of a verdict (SPEC 5.3), in the subset every provider's
/// structured output accepts: no numeric bounds, closed objects, every
/// property required.
pub fn verdict_schema() -> Value {
    let unit = json!({"type": "number", "description": "0.0 to 1.0, 1 meaning safe"});
    json!({
        "type": "object",
        "properties": {
            "verified": {"type": "boolean"},
            "confidence": {"type": "number", "description": "0.0 to 1.0"},
            "concerns": {"type": "array", "items": {"type": "string"}},
            "recommendation": {"type": "string", "enum": ["proceed", "warn", "block"]},
            "reasoning": {"type": "string"},
            "scores": {
                "type": "object",
                "properties": {
                    "recoverability": unit, "blast_radius": unit,
                    "intent_fit": unit, "safeguards": unit
                },
                "required": ["recoverability", "blast_radius", "intent_fit", "safeguards"],
                "additionalProperties": false
            }
        },
        "required": ["verified", "confidence", "concerns", "recommendation", "reasoning", "scores"],
        "additionalProperties": false
    })
}

fn trim_slash(base: &str) -> &str {
    base.trim_end_matches('/')
}

/// Builds the request for `kind` at `base` (as the official SDKs read it:
/// Anthropic and Google without the version, OpenAI with it).
pub fn build_request(kind: Kind, base: &str, key: Option<&Secret>, ask: &Ask<'_>) -> HttpRequest {
    let mut headers = vec![(
        "content-type".to_owned(),
        HeaderValue::Plain("application/json".into()),
    )];
    let role_name = |r: Role, assistant: &str| match r {
        Role::User => "user".to_owned(),
        Role::Assistant => assistant.to_owned(),
    };
    match kind {
        Kind::Anthropic => {
            if let Some(k) = key {
                headers.push((
                    "x-api-key".into(),
                    HeaderValue::Secret(k.expose().to_owned()),
                ));
            }
            headers.push((
                "anthropic-version".into(),
                HeaderValue::Plain("2023-06-01".into()),
            ));
            let messages: Vec<Value> = ask
                .turns
                .iter()
                .map(|(r, text)| json!({"role": role_name(*r, "assistant"), "content": text}))
                .collect();
            let mut body = json!({
                "model": ask.model,
                "max_tokens": ask.max_output_tokens,
                "system": ask.system,
                "messages": messages,
                "output_config": {"format": {"type": "json_schema", "schema": verdict_schema()}},
            });
            if let Some(t) = ask.temperature {
                body["temperature"] = json!(t);
            }
            HttpRequest {
                url: format!("{}/v1/messages", trim_slash(base)),
                headers,
                body,
            }
        }
        Kind::Openai | Kind::OpenaiCompatible => {
            if let Some(k) = key {
                headers.push((
                    "authorization".into(),
                    HeaderValue::Secret(format!("Bearer {}", k.expose())),
                ));
            }
            let mut messages = vec![json!({"role": "system", "content": ask.system})];
            messages.extend(
                ask.turns
                    .iter()
                    .map(|(r, text)| json!({"role": role_name(*r, "assistant"), "content": text})),
            );
            let mut body = json!({
                "model": ask.model,
                "messages": messages,
                "max_completion_tokens": ask.max_output_tokens,
                "response_format": {"type": "json_schema",
                    "json_schema": {"name": "verdict", "strict": true, "schema": verdict_schema()}},
            });
            if let Some(t) = ask.temperature {
                body["temperature"] = json!(t);
            }
            // Reasoning models would spend a small budget on thinking alone.
            if is_reasoning_model(ask.model) {
                body["reasoning_effort"] = json!("low");
            }
            HttpRequest {
                url: format!("{}/chat/completions", trim_slash(base)),
                headers,
                body,
            }
        }
        Kind::Google => {
            if let Some(k) = key {
                headers.push((
                    "x-goog-api-key".into(),
                    HeaderValue::Secret(k.expose().to_owned()),
                ));
            }
            let contents: Vec<Value> = ask
                .turns
                .iter()
                .map(|(r, text)| json!({"role": role_name(*r, "model"), "parts": [{"text": text}]}))
                .collect();
            let mut config = json!({
                "maxOutputTokens": ask.max_output_tokens,
                "responseMimeType": "application/json",
                "responseJsonSchema": verdict_schema(),
            });
            if let Some(t) = ask.temperature {
                config["temperature"] = json!(t);
            }
            // Flash models think by default; a verdict needs no thinking budget.
            if ask.model.contains("flash") {
                config["thinkingConfig"] = json!({"thinkingBudget": 0});
            } else {
                // Pro models cannot turn thinking off: keep it from eating the budget.
                config["thinkingConfig"] = json!({"thinkingBudget": 128});
            }
            HttpRequest {
                url: format!(
                    "{}/v1beta/models/{}:generateContent",
                    trim_slash(base),
                    ask.model
                ),
                headers,
                body: json!({
                    "systemInstruction": {"parts": [{"text": ask.system}]},
                    "contents": contents,
                    "generationConfig": config,
                }),
            }
        }
    }
}

/// OpenAI reasoning models (which reject `temperature` and think first).
pub fn is_reasoning_model(model: &str) -> bool {
    let name = model.strip_prefix("openai/").unwrap_or(model);
    ["gpt-5", "o1", "o3", "o4"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Tokens used by one answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens.
    pub input: Option<u64>,
    /// Output tokens (reasoning included where the provider counts it so).
    pub output: Option<u64>,
}

/// Why an answer with HTTP 200 cannot be read at all. A refusal, a
/// truncation or an empty answer is an [`Answer`] with its `stop` (or no
/// parts), judged by `verdict::read_answer`; only these two are decided
/// here, from the envelope alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// A safety system blocked the prompt (no answer was generated).
    Blocked(String),
    /// The body is not the provider's response shape.
    Malformed(String),
}

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Blocked(why) => write!(f, "blocked by the provider's safety system: {why}"),
            Self::Malformed(why) => {
                write!(f, "the response is not in the provider's format: {why}")
            }
        }
    }
}

fn usage_of(kind: Kind, v: &Value) -> Usage {
    let n = |p: &str| v.pointer(p).and_then(Value::as_u64);
    match kind {
        Kind::Anthropic => Usage {
            input: n("/usage/input_tokens"),
            output: n("/usage/output_tokens"),
        },
        Kind::Openai | Kind::OpenaiCompatible => Usage {
            input: n("/usage/prompt_tokens"),
            output: n("/usage/completion_tokens"),
        },
        Kind::Google => Usage {
            input: n("/usageMetadata/promptTokenCount"),
            output: match (
                n("/usageMetadata/candidatesTokenCount"),
                n("/usageMetadata/thoughtsTokenCount"),
            ) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
            },
        },
    }
}

/// Reads a 200 response body into the model's answer: every content
/// block, candidate, choice and tool call as a part, and the first stop
/// that makes it unfinished (SPEC 5.3; `verdict::read_answer` reads it).
/// An error here means the body is not an answer at all.
pub fn parse_response(kind: Kind, body: &str) -> (Result<Answer, Unusable>, Usage) {
    // OpenRouter pads with keep-alive whitespace.
    let body = body.trim_start();
    let v: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => {
            return (
                Err(Unusable::Malformed(format!("not JSON ({e})"))),
                Usage::default(),
            );
        }
    };
    let usage = usage_of(kind, &v);
    // OpenRouter can report an error inside a 200; `"error": null` is none.
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        let msg = err
            .get("message")
            .and_then(Value::as_str)
            .or_else(|| err.as_str())
            .unwrap_or("an error object");
        return (
            Err(Unusable::Malformed(format!("error in a 200 answer: {msg}"))),
            usage,
        );
    }
    let answer = match kind {
        Kind::Anthropic => anthropic_answer(&v, body),
        Kind::Openai | Kind::OpenaiCompatible => openai_answer(&v),
        Kind::Google => google_answer(&v, body),
    };
    (answer, usage)
}

/// The raw JSON text of every outermost object under `"key":` in `body`,
/// in order: a tool call's input as the model wrote it, duplicate keys
/// and all (a parsed `Value` keeps only the last of two).
fn raw_objects_under(body: &str, key: &str) -> Vec<String> {
    let needle = format!("\"{key}\"");
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = body[from..].find(&needle) {
        let start = from + at;
        from = start + needle.len();
        if body[..start].ends_with('\\') {
            continue;
        }
        let rest = body[from..].trim_start();
        let Some(rest) = rest.strip_prefix(':') else {
            continue;
        };
        let rest = rest.trim_start();
        if !rest.starts_with('{') {
            continue;
        }
        let offset = body.len() - rest.len();
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        if let Some(Ok(Value::Object(_))) = stream.next() {
            let end = offset + stream.byte_offset();
            out.push(body[offset..end].to_owned());
            from = end;
        }
    }
    out
}

/// Tool inputs as raw text: from the body when every one was found there,
/// else as parsed.
fn tool_parts(parsed: Vec<&Value>, raw: Vec<String>) -> Vec<Part> {
    if raw.len() == parsed.len() {
        raw.into_iter().map(Part::Tool).collect()
    } else {
        parsed
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Part::Tool(s.clone()),
                other => Part::Tool(other.to_string()),
            })
            .collect()
    }
}

/// Keeps the most serious stop: a refusal or safety stop over a truncation.
fn note_stop(stop: &mut Option<(StopKind, String)>, kind: StopKind, why: String) {
    let serious = |k: StopKind| !matches!(k, StopKind::Truncated);
    match stop {
        Some((k, _)) if serious(*k) || !serious(kind) => {}
        _ => *stop = Some((kind, why)),
    }
}

fn anthropic_answer(v: &Value, body: &str) -> Result<Answer, Unusable> {
    let mut answer = Answer::default();
    let stop = v.get("stop_reason").and_then(Value::as_str).unwrap_or("");
    match stop {
        "refusal" => {
            let why = v
                .pointer("/stop_details/explanation")
                .and_then(Value::as_str)
                .unwrap_or("stop_reason refusal");
            note_stop(&mut answer.stop, StopKind::Refused, why.to_owned());
        }
        "max_tokens" | "model_context_window_exceeded" | "pause_turn" => {
            note_stop(
                &mut answer.stop,
                StopKind::Truncated,
                format!("stop_reason {stop}"),
            );
        }
        _ => {}
    }
    let Some(blocks) = v.get("content").and_then(Value::as_array) else {
        if answer.stop.is_some() {
            return Ok(answer);
        }
        return Err(Unusable::Malformed("no `content` list".into()));
    };
    let inputs: Vec<&Value> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|b| b.get("input"))
        .collect();
    let mut tools = tool_parts(inputs, raw_objects_under(body, "input")).into_iter();
    for b in blocks {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = b.get("text").and_then(Value::as_str) {
                    answer.parts.push(Part::Text(t.to_owned()));
                }
            }
            Some("tool_use") if b.get("input").is_some() => {
                answer.parts.extend(tools.next());
            }
            _ => {}
        }
    }
    Ok(answer)
}

fn openai_answer(v: &Value) -> Result<Answer, Unusable> {
    let Some(choices) = v.get("choices").and_then(Value::as_array) else {
        return Err(Unusable::Malformed("no `choices`".into()));
    };
    let mut answer = Answer::default();
    for choice in choices {
        if let Some(refusal) = choice.pointer("/message/refusal").and_then(Value::as_str) {
            note_stop(&mut answer.stop, StopKind::Refused, refusal.to_owned());
        }
        match choice.get("finish_reason").and_then(Value::as_str) {
            Some("length") => note_stop(
                &mut answer.stop,
                StopKind::Truncated,
                "finish_reason length".into(),
            ),
            Some("content_filter") => note_stop(
                &mut answer.stop,
                StopKind::Safety,
                "finish_reason content_filter".into(),
            ),
            _ => {}
        }
        match choice.pointer("/message/content") {
            Some(Value::String(t)) => answer.parts.push(Part::Text(t.clone())),
            // Some compatible servers send content parts.
            Some(Value::Array(items)) => {
                for item in items {
                    if item.get("type").and_then(Value::as_str) == Some("refusal") {
                        let why = item.get("refusal").and_then(Value::as_str).unwrap_or("");
                        note_stop(&mut answer.stop, StopKind::Refused, why.to_owned());
                    } else if let Some(t) = item.get("text").and_then(Value::as_str) {
                        answer.parts.push(Part::Text(t.to_owned()));
                    }
                }
            }
            _ => {}
        }
        for call in choice
            .pointer("/message/tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match call.pointer("/function/arguments") {
                Some(Value::String(args)) => answer.parts.push(Part::Tool(args.clone())),
                Some(other) => answer.parts.push(Part::Tool(other.to_string())),
                None => {}
            }
        }
    }
    Ok(answer)
}

/// Gemini finish reasons of a safety system (the answer was stopped).
const GEMINI_SAFETY: &[&str] = &[
    "SAFETY",
    "RECITATION",
    "PROHIBITED_CONTENT",
    "BLOCKLIST",
    "SPII",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION",
    "MODEL_ARMOR",
];

fn google_answer(v: &Value, body: &str) -> Result<Answer, Unusable> {
    let mut answer = Answer::default();
    if let Some(why) = v
        .pointer("/promptFeedback/blockReason")
        .and_then(Value::as_str)
    {
        note_stop(
            &mut answer.stop,
            StopKind::Safety,
            format!("promptFeedback.blockReason {why}"),
        );
    }
    let candidates = v
        .get("candidates")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if candidates.is_empty() {
        return Err(Unusable::Blocked(
            answer
                .stop
                .map_or_else(|| "no candidates".to_owned(), |(_, why)| why),
        ));
    }
    let mut calls = Vec::new();
    for candidate in candidates {
        for part in candidate
            .pointer("/content/parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(args) = part.pointer("/functionCall/args") {
                calls.push(args);
            }
        }
    }
    let mut tools = tool_parts(calls, raw_objects_under(body, "args")).into_iter();
    for candidate in candidates {
        match candidate.get("finishReason").and_then(Value::as_str) {
            None | Some("STOP" | "FINISH_REASON_UNSPECIFIED") => {}
            Some(r) if GEMINI_SAFETY.contains(&r) => note_stop(
                &mut answer.stop,
                StopKind::Safety,
                format!("finishReason {r}"),
            ),
            // MAX_TOKENS, MALFORMED_FUNCTION_CALL, OTHER, ...: not a finished answer.
            Some(r) => note_stop(
                &mut answer.stop,
                StopKind::Truncated,
                format!("finishReason {r}"),
            ),
        }
        for part in candidate
            .pointer("/content/parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            if part.pointer("/functionCall/args").is_some() {
                answer.parts.extend(tools.next());
            } else if let Some(t) = part.get("text").and_then(Value::as_str) {
                answer.parts.push(Part::Text(t.to_owned()));
            }
        }
    }
    Ok(answer)
}

/// A failed HTTP exchange, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// HTTP status, when there was one.
    pub status: Option<u16>,
    /// Whether (and when) to try the same provider again.
    pub retry: Retry,
    /// A message a person can act on.
    pub message: String,
}

/// Whether to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// Not worth it (auth, bad request, quota exhausted).
    No,
    /// Worth it, after the delay the server asked for (if any).
    After(Option<Duration>),
}

/// The error message inside a provider's error body, whatever its shape.
fn error_message(body: &str) -> Option<String> {
    let v: Value = serde_json::from_str(body.trim_start()).ok()?;
    v.pointer("/error/message")
        .and_then(Value::as_str)
        .or_else(|| v.get("error").and_then(Value::as_str))
        .or_else(|| v.get("message").and_then(Value::as_str))
        .map(|m| crate::input::text::one_line(&crate::input::text::redact_secrets(m), 300))
}

/// Parses a delay like `48s`, `1.5s` (Gemini `RetryInfo.retryDelay`).
fn parse_seconds(text: &str) -> Option<Duration> {
    let secs: f64 = text.trim().trim_end_matches('s').parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

/// Classifies a non-2xx answer. `header` reads a response header;
/// `key_source` names where the key came from, for a 401's message.
pub fn classify_failure(
    provider: &str,
    status: u16,
    header: &dyn Fn(&str) -> Option<String>,
    body: &str,
    key_source: &str,
) -> Failure {
    let detail = error_message(body).unwrap_or_else(|| format!("HTTP {status}"));
    let v: Value = serde_json::from_str(body.trim_start()).unwrap_or(Value::Null);
    let quota_exhausted = v.pointer("/error/code").and_then(Value::as_str)
        == Some("insufficient_quota")
        || v.pointer("/error/type").and_then(Value::as_str) == Some("insufficient_quota")
        || v.pointer("/error/details/error_code")
            .and_then(Value::as_str)
            == Some("enforced_spend_limit_reached")
        || body.contains("PerDay");
    let api_key_invalid = body.contains("API_KEY_INVALID");
    let server_delay = header("retry-after-ms")
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
        .or_else(|| header("retry-after").and_then(|s| parse_seconds(&s)))
        .or_else(|| {
            v.pointer("/error/details")
                .and_then(Value::as_array)
                .and_then(|d| {
                    d.iter().find_map(|x| {
                        x.get("retryDelay")
                            .and_then(Value::as_str)
                            .and_then(parse_seconds)
                    })
                })
        });
    let should_retry = header("x-should-retry").map(|h| h.trim().eq_ignore_ascii_case("true"));
    let retryable_status = matches!(status, 408 | 409 | 429) || status >= 500;
    // The server's own word wins; quota and key failures never heal by waiting.
    let worth_it = !quota_exhausted && !api_key_invalid && should_retry.unwrap_or(retryable_status);
    let retry = if worth_it {
        Retry::After(server_delay)
    } else {
        Retry::No
    };
    let message = match status {
        401 | 403 => format!(
            "{provider} rejected the API key ({detail}); the key came from {key_source}: check it, or set another"
        ),
        400 if api_key_invalid => format!(
            "{provider} rejected the API key ({detail}); the key came from {key_source}: check it, or set another"
        ),
        404 => format!(
            "{provider}: not found ({detail}); check the model name and base URL in `[providers.{provider}]`"
        ),
        429 if quota_exhausted => {
            format!("{provider}: quota or spend limit exhausted ({detail}); retrying will not help")
        }
        429 => format!("{provider}: rate limited ({detail})"),
        529 => format!("{provider}: overloaded ({detail})"),
        s if s >= 500 => format!("{provider}: server error {s} ({detail})"),
        s => format!("{provider}: HTTP {s} ({detail})"),
    };
    Failure {
        status: Some(status),
        retry,
        message,
    }
}

#[cfg(test)]
mod tests;
