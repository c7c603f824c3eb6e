//! The only module that talks to a provider over the network (ureq, no
//! async runtime): connect and total timeouts, and retries of what is worth
//! retrying, with the delays the server asks for (capped: a hook is waiting).

use std::io::Read;
use std::time::{Duration, Instant};

use super::{Failure, HttpRequest, Retry};

/// Retries after the first attempt, at most (as the official SDKs do).
pub const MAX_RETRIES: u32 = 2;
/// The longest single wait between attempts.
const MAX_WAIT: Duration = Duration::from_secs(10);
/// The first backoff step.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// Largest response body read: a 2xx body past it is read as a block
/// (issue 37 item 6), whatever the provider.
pub const BODY_LIMIT: u64 = 4 * 1024 * 1024;

/// Turns a non-2xx answer (status, a header reader, body) into a failure.
pub type Classify<'a> = &'a dyn Fn(u16, &dyn Fn(&str) -> Option<String>, &str) -> Failure;

/// A client with its timeouts.
pub struct Client {
    agent: ureq::Agent,
}

/// A successful exchange.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The 2xx body.
    pub body: String,
    /// Retries it took.
    pub retries: u32,
    /// True when the body went past [`BODY_LIMIT`]: `body` holds only its
    /// first [`BODY_LIMIT`] bytes, and no verdict may be read from it.
    pub oversized: bool,
}

impl Client {
    /// A client that gives up connecting after `connect` and on the whole
    /// exchange after `total`.
    pub fn new(connect: Duration, total: Duration) -> Self {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(connect))
            .timeout_global(Some(total))
            .user_agent(concat!("vouch/", env!("CARGO_PKG_VERSION")))
            .build();
        Self {
            agent: config.into(),
        }
    }

    /// Sends `request`, retrying as `classify` says. Returns the body of a
    /// 2xx answer, or the last failure and how many retries were made.
    pub fn send(
        &self,
        request: &HttpRequest,
        classify: Classify<'_>,
    ) -> Result<Reply, (Failure, u32)> {
        let mut retries = 0;
        loop {
            let failure = match self.once(request) {
                Ok(raw) if (200..300).contains(&raw.status) => {
                    return Ok(Reply {
                        body: raw.body,
                        retries,
                        oversized: raw.oversized,
                    });
                }
                Ok(raw) => classify(raw.status, &|name| header_of(&raw.headers, name), &raw.body),
                Err(f) => f,
            };
            let Retry::After(server_delay) = failure.retry else {
                return Err((failure, retries));
            };
            // A server that wants more than a hook can wait: ask the next provider.
            if retries >= MAX_RETRIES || server_delay.is_some_and(|d| d > MAX_WAIT) {
                return Err((failure, retries));
            }
            let backoff = FIRST_BACKOFF * 2u32.pow(retries);
            std::thread::sleep(server_delay.unwrap_or(backoff));
            retries += 1;
        }
    }

    /// One attempt.
    fn once(&self, request: &HttpRequest) -> Result<Raw, Failure> {
        let started = Instant::now();
        let mut builder = self.agent.post(&request.url);
        for (name, value) in &request.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let body = request.body.to_string();
        let mut response = builder
            .send(body.as_bytes())
            .map_err(|e| transport_failure(&e, started))?;
        let status = response.status().as_u16();
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .filter_map(|(k, v)| {
                Some((k.as_str().to_ascii_lowercase(), v.to_str().ok()?.to_owned()))
            })
            .collect();
        // One byte past the cap tells a body at the cap from one over it.
        let mut bytes = Vec::new();
        response
            .body_mut()
            .as_reader()
            .take(BODY_LIMIT + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Failure {
                status: Some(status),
                retry: Retry::After(None),
                message: format!("the answer broke off while it was read ({e})"),
            })?;
        let oversized = bytes.len() as u64 > BODY_LIMIT;
        bytes.truncate(usize::try_from(BODY_LIMIT).unwrap_or(usize::MAX));
        let body = match String::from_utf8(bytes) {
            Ok(text) => text,
            // Cut at the cap, a character may be split in two.
            Err(e) if oversized => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            Err(e) => {
                return Err(Failure {
                    status: Some(status),
                    retry: Retry::After(None),
                    message: format!("the answer is not UTF-8 text ({e})"),
                });
            }
        };
        Ok(Raw {
            status,
            headers,
            body,
            oversized,
        })
    }
}

/// One answer as it came.
struct Raw {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    oversized: bool,
}

fn header_of(headers: &[(String, String)], name: &str) -> Option<String> {
    let value = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.clone())?;
    // `retry-after` may be an HTTP date: turn it into seconds from now.
    if name.eq_ignore_ascii_case("retry-after") && value.trim().parse::<f64>().is_err() {
        return seconds_until(&value).map(|s| s.to_string());
    }
    Some(value)
}

/// Seconds from now until an HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`).
fn seconds_until(date: &str) -> Option<u64> {
    let when = jiff::fmt::rfc2822::parse(date.trim()).ok()?.timestamp();
    let secs = when.duration_since(jiff::Timestamp::now()).as_secs();
    Some(u64::try_from(secs.max(0)).unwrap_or(0))
}

fn transport_failure(e: &ureq::Error, started: Instant) -> Failure {
    let message = match e {
        ureq::Error::Timeout(_) => format!(
            "no answer within {:.1} s (timed out)",
            started.elapsed().as_secs_f64()
        ),
        ureq::Error::ConnectionFailed | ureq::Error::Io(_) | ureq::Error::HostNotFound => {
            format!("cannot reach the server ({e})")
        }
        other => format!("the request failed ({other})"),
    };
    Failure {
        status: None,
        retry: Retry::After(None),
        message: crate::input::text::redact_text(&message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_as_an_http_date_becomes_seconds() {
        let later = jiff::Timestamp::now() + jiff::SignedDuration::from_secs(30);
        let date = jiff::fmt::rfc2822::to_string(&later.to_zoned(jiff::tz::TimeZone::UTC)).unwrap();
        let headers = vec![("retry-after".to_owned(), date)];
        let secs: u64 = header_of(&headers, "retry-after").unwrap().parse().unwrap();
        assert!((28..=30).contains(&secs), "{secs}");
        let gmt = vec![(
            "retry-after".to_owned(),
            "Wed, 21 Oct 2015 07:28:00 GMT".to_owned(),
        )];
        assert_eq!(
            header_of(&gmt, "retry-after").as_deref(),
            Some("0"),
            "a date in the past: now"
        );
        let plain = vec![("retry-after".to_owned(), "7".to_owned())];
        assert_eq!(header_of(&plain, "retry-after").as_deref(), Some("7"));
    }
}
