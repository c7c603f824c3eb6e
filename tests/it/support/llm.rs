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
