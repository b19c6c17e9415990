//! The HTTP layer both API clients share: the LLM client
//! (`/chat/completions`) and the embeddings client (`/embeddings`).
//!
//! One exchange is one [`Reply`]; [`retrying`] repeats the ones worth
//! repeating within a time budget. What is worth repeating is decided here,
//! once: a 429, a 502–504, a timeout or a refused connection may pass; a
//! reply over the size cap, a reply that is not UTF-8, a redirect, a bad key
//! or a wrong path will not, so they fail at once with what to do.
//!
//! The key is read from the environment, sent only in a header, and
//! scrubbed from every message ([`Http::scrub`]).

use std::time::{Duration, Instant};

/// Which service a client talks to: the flags and variables its messages name.
#[derive(Debug, Clone, Copy)]
pub struct Service {
    /// `"LLM"`, `"embeddings"`.
    pub name: &'static str,
    /// `"--llm-url"`, `"--embed-url"`.
    pub url_flag: &'static str,
    /// `"--llm-model"`, `"--embed-model"`.
    pub model_flag: &'static str,
    /// The variables the key is read from, first set wins.
    pub key_vars: &'static [&'static str],
}

/// The API key from the environment: the first of `vars` that is set.
pub fn api_key(vars: &[&str]) -> Option<String> {
    vars.iter().filter_map(|v| std::env::var(v).ok()).map(|k| k.trim().to_string()).find(|k| !k.is_empty())
}

/// `path` (like `/embeddings`) appended to the API base, keeping a query
/// (`?api-version=...` on Azure) at the end.
pub fn join(base: &str, path: &str) -> String {
    let base = base.trim();
    match base.split_once('?') {
        Some((b, query)) => format!("{}{path}?{query}", b.trim_end_matches('/')),
        None => format!("{}{path}", base.trim_end_matches('/')),
    }
}

/// The headers that carry the key. An Azure OpenAI deployment base
/// (`.../openai/deployments/NAME`) takes `api-key` instead of a bearer
/// token; another `*.azure.com` base gets both; everything else
/// `Authorization: Bearer`.
pub fn auth_headers(url: &str, key: &str) -> Vec<(&'static str, String)> {
    let rest = url.split("://").nth(1).unwrap_or(url);
    let host = rest.split(['/', ':', '?']).next().unwrap_or("").to_ascii_lowercase();
    let path = rest.split('?').next().unwrap_or("");
    if path.contains("/openai/deployments/") {
        return vec![("api-key", key.to_string())];
    }
    let mut out = vec![("Authorization", format!("Bearer {key}"))];
    if host.ends_with(".azure.com") {
        out.push(("api-key", key.to_string()));
    }
    out
}

/// What one HTTP exchange came to.
#[derive(Debug)]
pub enum Reply {
    /// A 2xx with its body.
    Ok(String),
    /// Worth trying again after a wait (the server's `Retry-After` when it gave one).
    Again { after: Option<Duration>, why: String },
    /// The server will not do this request as it was sent (a 4xx or a 500);
    /// the caller knows whether another form of it may pass.
    Refused { status: u16, body: String },
    /// Nothing will make it work without the user: the message says what to do.
    Fatal(String),
}

/// An HTTP client for one API base.
pub struct Http {
    service: Service,
    key: Option<String>,
    agent: ureq::Agent,
    /// The largest reply body read, in bytes.
    body_limit: u64,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("Http").field("service", &self.service.name).finish_non_exhaustive()
    }
}

impl Http {
    /// A client whose requests give up after `timeout` and read at most
    /// `body_limit` bytes of a reply. Redirects are not followed: a POST
    /// redirected is a wrong base URL, and following it would move the key.
    pub fn new(service: Service, timeout: Duration, body_limit: u64) -> Http {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("chunktui/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Http { service, key: api_key(service.key_vars), agent, body_limit }
    }

    pub fn has_key(&self) -> bool {
        self.key.is_some()
    }

    /// POST `body` (JSON) to `url` with the key's headers for `base`.
    pub fn post(&self, base: &str, url: &str, body: &str) -> Reply {
        let mut request = self.agent.post(url).header("Content-Type", "application/json");
        if let Some(key) = &self.key {
            for (name, value) in auth_headers(base, key) {
                request = request.header(name, &value);
            }
        }
        let mut response = match request.send(body.as_bytes()) {
            Ok(r) => r,
            Err(e) => return self.transport(url, &e),
        };
        let status = response.status().as_u16();
        let after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| Duration::from_secs_f64(s.min(120.0)));
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_string);
        let bytes = match response.body_mut().with_config().limit(self.body_limit).read_to_vec() {
            Ok(b) => b,
            Err(e) => return self.transport(url, &e),
        };
        let Ok(text) = String::from_utf8(bytes) else {
            return Reply::Fatal(format!(
                "{url} answered HTTP {status} with a body that is not UTF-8 text: is {} the API base of an \
                 OpenAI-compatible server?",
                self.service.url_flag
            ));
        };
        let (flag, model_flag) = (self.service.url_flag, self.service.model_flag);
        match status {
            200..=299 => Reply::Ok(text),
            300..=399 => Reply::Fatal(format!(
                "{url} answered HTTP {status}, a redirect{}: chunktui does not follow redirects (they would move \
                 the key); give {flag} the final API base (https:// rather than http://?)",
                location.map(|l| format!(" to {}", crate::error::printable(&l))).unwrap_or_default()
            )),
            401 | 403 => Reply::Fatal(format!(
                "{url} answered HTTP {status} (not authorised): set {} to a key this server accepts{}",
                key_hint(self.service.key_vars),
                server_says(&text)
            )),
            404 => Reply::Fatal(format!(
                "{url} answered HTTP 404: {flag} must be the API base ending in /v1, and {model_flag} a model the \
                 server serves{}",
                server_says(&text)
            )),
            408 | 409 | 429 | 502..=504 => Reply::Again { after, why: format!("HTTP {status}{}", server_says(&text)) },
            _ => Reply::Refused { status, body: text },
        }
    }

    fn transport(&self, url: &str, e: &ureq::Error) -> Reply {
        let flag = self.service.url_flag;
        let why = match e {
            ureq::Error::Timeout(_) => "timed out".to_string(),
            ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                "connection refused".to_string()
            }
            ureq::Error::ConnectionFailed => "connection failed".to_string(),
            ureq::Error::Io(io) => format!("{} ({:?})", io, io.kind()),
            ureq::Error::BodyExceedsLimit(n) => {
                return Reply::Fatal(format!(
                    "{url} sent a reply over {} MiB ({n} bytes read): is {flag} the API base of an \
                     OpenAI-compatible server? If it is, lower the batch size",
                    self.body_limit >> 20
                ))
            }
            ureq::Error::HostNotFound => return Reply::Fatal(format!("{url}: host not found: check {flag}")),
            ureq::Error::BadUri(u) => return Reply::Fatal(format!("{url} is not a usable URL ({u}): check {flag}")),
            ureq::Error::TooManyRedirects | ureq::Error::RedirectFailed => {
                return Reply::Fatal(format!(
                    "{url} redirected the request: give {flag} the final API base (https:// rather than http://?)"
                ))
            }
            other => return Reply::Fatal(format!("{url}: {other}: check {flag}")),
        };
        Reply::Again { after: None, why }
    }

    /// `message` with the key taken out, should a server echo it.
    pub fn scrub(&self, message: &str) -> String {
        match &self.key {
            Some(k) if k.len() >= 4 => message.replace(k.as_str(), "<key>"),
            _ => message.to_string(),
        }
    }
}

/// `$A (or $B)` for the key variables.
pub fn key_hint(vars: &[&str]) -> String {
    match vars {
        [] => "the key".into(),
        [one] => format!("${one}"),
        [first, rest @ ..] => format!("${first} (or ${})", rest.join(", $")),
    }
}

/// `": the server says: ..."` with the start of an error body, or nothing.
pub fn server_says(body: &str) -> String {
    let text = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let e = v.get("error").unwrap_or(&v);
            e.get("message").or(v.get("detail")).or(v.get("message")).and_then(|m| m.as_str()).map(str::to_string)
        })
        .unwrap_or_else(|| body.to_string());
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return String::new();
    }
    let short: String = text.chars().take(300).collect();
    format!(" (the server says: {})", crate::error::printable(&short))
}

/// What one try came to, for [`retrying`].
pub enum Step<T> {
    Done(T),
    /// Worth trying again after a wait.
    Again {
        after: Option<Duration>,
        why: String,
    },
    /// Not worth trying again: the message says why.
    Fail(String),
}

/// Run `once` until it is done or fails, trying again after an
/// exponential backoff (or the server's `Retry-After`) while `budget`
/// lasts. `retried()` is called before each new try. The error when the
/// budget runs out names `url`, why and how many tries, and asks whether
/// the server is running (what a refused connection usually means).
pub fn retrying<T>(
    budget: Duration,
    url: &str,
    url_flag: &str,
    retried: &dyn Fn(),
    mut once: impl FnMut() -> Step<T>,
) -> std::result::Result<T, String> {
    let started = Instant::now();
    let mut attempt = 0u32;
    loop {
        let (after, why) = match once() {
            Step::Done(t) => return Ok(t),
            Step::Fail(message) => return Err(message),
            Step::Again { after, why } => (after, why),
        };
        attempt += 1;
        let backoff = after.unwrap_or_else(|| Duration::from_millis(500u64 << attempt.min(5)));
        if started.elapsed() + backoff > budget {
            return Err(format!(
                "{url} did not answer ({why}) after {attempt} tr{}, {:.0} s: is the server running? Start it, or \
                 point {url_flag} at one that is",
                if attempt == 1 { "y" } else { "ies" },
                started.elapsed().as_secs_f64()
            ));
        }
        retried();
        std::thread::sleep(backoff);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn azure_deployments_take_api_key_and_other_azure_bases_get_both() {
        let names = |url| auth_headers(url, "k").into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        assert_eq!(names("https://res.openai.azure.com/openai/v1"), vec!["Authorization", "api-key"]);
        assert_eq!(
            names("https://res.openai.azure.com/openai/deployments/emb?api-version=2024-02-01"),
            vec!["api-key"]
        );
        assert_eq!(names("https://api.openai.com/v1"), vec!["Authorization"]);
        assert_eq!(names("http://127.0.0.1:8080/v1"), vec!["Authorization"]);
        assert_eq!(names("https://evil.com/x.azure.com/v1"), vec!["Authorization"]);
    }

    #[test]
    fn paths_go_before_the_query() {
        assert_eq!(join("http://h/v1/", "/embeddings"), "http://h/v1/embeddings");
        assert_eq!(
            join("https://r.openai.azure.com/openai/deployments/e?api-version=2024-02-01", "/embeddings"),
            "https://r.openai.azure.com/openai/deployments/e/embeddings?api-version=2024-02-01"
        );
    }

    /// A server that answers one request with `reply` (raw bytes).
    fn serve_once(reply: Vec<u8>) -> String {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            if let Ok((mut s, _)) = listener.accept() {
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf);
                let _ = s.write_all(&reply);
            }
        });
        url
    }

    fn response(status: &str, headers: &str, body: &[u8]) -> Vec<u8> {
        let mut r =
            format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\n{headers}Connection: close\r\n\r\n", body.len())
                .into_bytes();
        r.extend_from_slice(body);
        r
    }

    const TEST: Service = Service { name: "test", url_flag: "--test-url", model_flag: "--test-model", key_vars: &[] };

    fn post(reply: Vec<u8>, limit: u64) -> Reply {
        let base = serve_once(reply);
        Http::new(TEST, Duration::from_secs(10), limit).post(&base, &join(&base, "/x"), "{}")
    }

    #[test]
    fn deterministic_failures_are_fatal_at_once_and_say_what_happened() {
        let redirect = post(response("308 Permanent Redirect", "Location: https://elsewhere/v1/x\r\n", b""), 1 << 20);
        assert!(
            matches!(&redirect, Reply::Fatal(m) if m.contains("redirect") && m.contains("https://elsewhere")),
            "{redirect:?}"
        );
        let binary = post(response("200 OK", "", &[0xff, 0xfe, 0x00, 0x80]), 1 << 20);
        assert!(matches!(&binary, Reply::Fatal(m) if m.contains("not UTF-8")), "{binary:?}");
        let huge = post(response("200 OK", "", &vec![b'x'; 4096]), 1024);
        assert!(matches!(&huge, Reply::Fatal(m) if m.contains("reply over")), "{huge:?}");
        let limited = post(response("429 Too Many Requests", "Retry-After: 2\r\n", b"{}"), 1 << 20);
        assert!(matches!(limited, Reply::Again { after: Some(d), .. } if d == Duration::from_secs(2)));
    }

    #[test]
    fn retrying_stops_at_a_failure_and_gives_up_when_the_budget_is_spent() {
        let tries = std::cell::Cell::new(0);
        let failed = retrying::<()>(Duration::from_secs(60), "u", "--f", &|| {}, || {
            tries.set(tries.get() + 1);
            Step::Fail("no".into())
        });
        assert_eq!((failed, tries.get()), (Err("no".into()), 1));
        let spent = retrying::<()>(Duration::from_millis(1), "u", "--f", &|| {}, || Step::Again {
            after: Some(Duration::from_secs(1)),
            why: "HTTP 503".into(),
        });
        assert!(spent.unwrap_err().contains("did not answer (HTTP 503) after 1 try"));
    }

    #[test]
    fn error_bodies_are_shortened_to_the_message() {
        assert_eq!(server_says(r#"{"error":{"message":"bad\n input"}}"#), " (the server says: bad input)");
        assert_eq!(server_says(""), "");
    }
}
