//! A scripted HTTP server on 127.0.0.1 for provider tests: it answers each
//! request with the next scripted reply (the last one repeats), records
//! what it received, and can misbehave as real servers do: a delay past the
//! client's timeout, a reset connection, a body cut in the middle. Plain
//! `std` (cargo's test `HttpServer` is the model): the faults need a raw
//! socket that a server crate would not produce.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    /// Status, extra headers, body.
    Http(u16, Vec<(String, String)>, String),
    /// Wait, then answer.
    Slow(Duration, Box<Reply>),
    /// Close the connection without answering.
    Reset,
    /// Announce the whole body, send only the first `n` bytes, close.
    Cut(String, usize),
}

/// A JSON 200.
pub fn ok(body: serde_json::Value) -> Reply {
    Reply::Http(200, vec![], body.to_string())
}

/// A status with a JSON body.
pub fn status(code: u16, body: serde_json::Value) -> Reply {
    Reply::Http(code, vec![], body.to_string())
}

/// A received request.
#[derive(Clone, Debug)]
pub struct Received {
    /// Request line, e.g. `POST /v1/messages HTTP/1.1`.
    pub line: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: String,
}

/// The server; it stops when dropped (its thread ends with the process).
pub struct LlmServer {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl LlmServer {
    /// Starts serving `script`.
    pub fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        thread::spawn(move || {
            let mut index = 0;
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let reply = script[index.min(script.len() - 1)].clone();
                index += 1;
                let log = log.clone();
                thread::spawn(move || serve(stream, &reply, &log));
            }
        });
        Self { url, received }
    }

    /// What was received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// How many requests came.
    pub fn count(&self) -> usize {
        self.received.lock().unwrap().len()
    }
}

fn serve(stream: TcpStream, reply: &Reply, log: &Mutex<Vec<Received>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.trim_end().split_once(':') {
            let k = k.trim().to_ascii_lowercase();
            if k == "content-length" {
                length = v.trim().parse().unwrap_or(0);
            }
            headers.push((k, v.trim().to_owned()));
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok();
    log.lock().unwrap().push(Received {
        line: line.trim_end().to_owned(),
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    answer(stream, reply);
}

fn answer(mut stream: TcpStream, reply: &Reply) {
    match reply {
        Reply::Http(code, headers, body) => {
            let mut head = format!(
                "HTTP/1.1 {code} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            stream.write_all(head.as_bytes()).ok();
            stream.write_all(body.as_bytes()).ok();
        }
        Reply::Slow(delay, inner) => {
            thread::sleep(*delay);
            answer(stream, inner);
        }
        Reply::Reset => {
            stream.shutdown(Shutdown::Both).ok();
        }
        Reply::Cut(body, n) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            stream.write_all(head.as_bytes()).ok();
            stream.write_all(&body.as_bytes()[..*n]).ok();
            stream.flush().ok();
            stream.shutdown(Shutdown::Both).ok();
        }
    }
}

/// A provider's wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// Anthropic Messages.
    Anthropic,
    /// OpenAI Chat Completions.
    Openai,
    /// Google Gemini `generateContent`.
    Google,
}

/// One part of a model's answer.
#[derive(Clone, Debug)]
pub enum Piece {
    /// Text the model wrote.
    Text(String),
    /// A tool call's input, raw JSON text (duplicate keys survive).
    Tool(String),
}

/// How the answer stopped, in the fixture's words.
fn stop_of(stop: Option<&str>) -> &str {
    stop.unwrap_or("")
}

/// `pieces` in `wire`'s real 200 envelope, with `stop` (`truncated`,
/// `refused`, `safety`, or none) said the way that provider says it:
/// Anthropic content blocks and `stop_reason`; OpenAI choices with
/// `content`, `tool_calls`, `refusal` and `finish_reason` (the first text
/// and every tool call in the first choice, every further text its own
/// choice); Gemini one candidate per piece with `finishReason`. Tool inputs
/// are written raw, so that duplicate keys reach the client as a model
/// wrote them.
pub fn envelope(wire: Wire, pieces: &[Piece], stop: Option<&str>) -> Reply {
    let js = |s: &str| serde_json::Value::String(s.to_owned()).to_string();
    let has_tool = pieces.iter().any(|p| matches!(p, Piece::Tool(_)));
    let body = match wire {
        Wire::Anthropic => {
            let blocks: Vec<String> = pieces
                .iter()
                .enumerate()
                .map(|(i, p)| match p {
                    Piece::Text(t) => format!(r#"{{"type":"text","text":{}}}"#, js(t)),
                    Piece::Tool(raw) => format!(
                        r#"{{"type":"tool_use","id":"toolu_0{i}","name":"record_verdict","input":{raw}}}"#
                    ),
                })
                .collect();
            let (reason, details) = match stop_of(stop) {
                "truncated" => ("max_tokens", "null".to_owned()),
                "refused" => ("refusal", "null".to_owned()),
                "safety" => (
                    "refusal",
                    r#"{"type":"refusal","category":"cyber","explanation":"flagged by the safety classifier"}"#.to_owned(),
                ),
                _ if has_tool => ("tool_use", "null".to_owned()),
                _ => ("end_turn", "null".to_owned()),
            };
            format!(
                r#"{{"id":"msg_01","type":"message","role":"assistant","model":"claude-haiku-4-5-20251001","content":[{}],"stop_reason":"{reason}","stop_sequence":null,"stop_details":{details},"usage":{{"input_tokens":100,"output_tokens":50}}}}"#,
                blocks.join(",")
            )
        }
        Wire::Openai => {
            let finish = match stop_of(stop) {
                "truncated" => "length",
                "safety" => "content_filter",
                _ if has_tool => "tool_calls",
                _ => "stop",
            };
            let refusal = if stop == Some("refused") {
                js("I'm sorry, I can't help with that.")
            } else {
                "null".to_owned()
            };
            let texts: Vec<&String> = pieces
                .iter()
                .filter_map(|p| match p {
                    Piece::Text(t) => Some(t),
                    Piece::Tool(_) => None,
                })
                .collect();
            let calls: Vec<String> = pieces
                .iter()
                .filter_map(|p| match p {
                    Piece::Tool(raw) => Some(raw),
                    Piece::Text(_) => None,
                })
                .enumerate()
                .map(|(i, raw)| {
                    format!(
                        r#"{{"id":"call_{i}","type":"function","function":{{"name":"record_verdict","arguments":{}}}}}"#,
                        js(raw)
                    )
                })
                .collect();
            let mut choices = Vec::new();
            let first_content = texts.first().map_or_else(|| "null".to_owned(), |t| js(t));
            let tool_calls = if calls.is_empty() {
                String::new()
            } else {
                format!(r#","tool_calls":[{}]"#, calls.join(","))
            };
            choices.push(format!(
                r#"{{"index":0,"message":{{"role":"assistant","content":{first_content},"refusal":{refusal},"annotations":[]{tool_calls}}},"logprobs":null,"finish_reason":"{finish}"}}"#
            ));
            for (i, t) in texts.iter().enumerate().skip(1) {
                choices.push(format!(
                    r#"{{"index":{i},"message":{{"role":"assistant","content":{},"refusal":{refusal},"annotations":[]}},"logprobs":null,"finish_reason":"{finish}"}}"#,
                    js(t)
                ));
            }
            format!(
                r#"{{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4.1-mini","choices":[{}],"usage":{{"prompt_tokens":100,"completion_tokens":50,"total_tokens":150}},"service_tier":"default","system_fingerprint":"fp_1"}}"#,
                choices.join(",")
            )
        }
        Wire::Google => {
            let finish = match stop_of(stop) {
                "truncated" => "MAX_TOKENS",
                "refused" => "PROHIBITED_CONTENT",
                "safety" => "SAFETY",
                _ => "STOP",
            };
            let candidates: Vec<String> = pieces
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let part = match p {
                        Piece::Text(t) => format!(r#"{{"text":{}}}"#, js(t)),
                        Piece::Tool(raw) => format!(
                            r#"{{"functionCall":{{"name":"record_verdict","args":{raw}}}}}"#
                        ),
                    };
                    format!(
                        r#"{{"content":{{"parts":[{part}],"role":"model"}},"finishReason":"{finish}","index":{i}}}"#
                    )
                })
                .collect();
            format!(
                r#"{{"candidates":[{}],"usageMetadata":{{"promptTokenCount":100,"candidatesTokenCount":50,"totalTokenCount":150}},"modelVersion":"gemini-2.5-flash","responseId":"r-1"}}"#,
                candidates.join(",")
            )
        }
    };
    Reply::Http(200, vec![], body)
}
