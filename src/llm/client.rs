//! One client for every OpenAI-compatible `/v1/chat/completions` server
//! (OpenAI, Azure-style bases, Ollama, vLLM, llama.cpp).
//!
//! What the peers get wrong and this does not:
//! - The reply format is negotiated once per client: `json_schema`, then
//!   `json_object` with the schema (llama.cpp turns it into a grammar) and
//!   in the prompt, then plain text with the schema in the prompt. A server
//!   that refuses a format is not retried with it.
//! - `max_tokens` is always sent.
//! - Retries (429, 5xx, timeouts, a refused connection) back off, honour
//!   `Retry-After`, and stop when the request's time budget is spent.
//! - 401, 403 and 404 fail at once with the fix, naming the URL.
//! - The key is read from the environment, sent only in the Authorization
//!   header, and scrubbed from every message.

use super::cache::Cache;
use super::usage::count;
use crate::config::LlmOptions;
use crate::error::{Error, Result};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// One question to the model.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub system: &'a str,
    pub user: &'a str,
    /// The JSON Schema the answer must follow; `None` for free text.
    pub schema: Option<&'a Value>,
    /// The most tokens the answer may take (capped by `llm.max_tokens`).
    pub max_tokens: usize,
}

/// What each server (url and model) was found to accept, in this process.
static KNOWN_FORMATS: std::sync::Mutex<std::collections::BTreeMap<String, u8>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// Reply formats, most constrained first.
const JSON_SCHEMA: u8 = 0;
const JSON_OBJECT: u8 = 1;
const TEXT: u8 = 2;

pub struct Client {
    /// The base, without a trailing `/`.
    url: String,
    model: String,
    temperature: f32,
    max_tokens: usize,
    retry_budget: Duration,
    key: Option<String>,
    agent: ureq::Agent,
    cache: Option<Cache>,
    /// The most constrained format the server has not refused.
    format: AtomicU8,
    gate: Gate,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("Client").field("url", &self.url).field("model", &self.model).finish_non_exhaustive()
    }
}

/// The API key from the environment: `$CHUNKTUI_LLM_KEY`, else `$OPENAI_API_KEY`.
pub fn api_key() -> Option<String> {
    ["CHUNKTUI_LLM_KEY", "OPENAI_API_KEY"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .map(|k| k.trim().to_string())
        .find(|k| !k.is_empty())
}

/// The endpoint of `opts`: its url, else `$CHUNKTUI_LLM_URL`.
pub fn endpoint(opts: &LlmOptions) -> Option<String> {
    opts.url.clone().or_else(|| std::env::var("CHUNKTUI_LLM_URL").ok()).filter(|u| !u.trim().is_empty())
}

/// The model of `opts`: its model, else `$CHUNKTUI_LLM_MODEL`.
pub fn model_name(opts: &LlmOptions) -> Option<String> {
    opts.model.clone().or_else(|| std::env::var("CHUNKTUI_LLM_MODEL").ok()).filter(|m| !m.trim().is_empty())
}

/// What is wrong with `opts` for talking to a server, if anything: the
/// checks `config check` and every command run before any request.
pub fn problems(opts: &LlmOptions) -> Vec<String> {
    let mut out = Vec::new();
    match endpoint(opts) {
        None => out.push(
            "no LLM endpoint: pass --llm-url (the API base ending in /v1, e.g. http://127.0.0.1:8080/v1) or set \
             [llm] url or $CHUNKTUI_LLM_URL"
                .to_string(),
        ),
        Some(u) if !(u.starts_with("http://") || u.starts_with("https://")) => out.push(format!(
            "llm.url '{}' is not an http(s) URL: give the API base, e.g. http://127.0.0.1:8080/v1",
            crate::error::printable(&u)
        )),
        _ => {}
    }
    let controls = |s: &str| s.chars().any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}');
    if endpoint(opts).is_some_and(|u| controls(&u) || u.contains(char::is_whitespace)) {
        out.push("llm.url holds spaces or control characters: give the bare API base URL".into());
    }
    if model_name(opts).is_some_and(|m| controls(&m)) {
        out.push("llm.model holds control characters (a line break?): give the model's name alone".into());
    }
    if model_name(opts).is_none() {
        out.push("no LLM model named: pass --llm-model NAME (a model the server serves) or set [llm] model".into());
    }
    if opts.concurrency == 0 || opts.concurrency > 64 {
        out.push(format!("llm.concurrency {} is out of range: 1 to 64 requests at once", opts.concurrency));
    }
    if opts.max_tokens < 16 || opts.max_tokens > 32_768 {
        out.push(format!("llm.max_tokens {} is out of range: 16 to 32768", opts.max_tokens));
    }
    if opts.context_tokens < 512 || opts.context_tokens > 1 << 20 {
        out.push(format!("llm.context_tokens {} is out of range: 512 to 1048576", opts.context_tokens));
    }
    if !(0.0..=2.0).contains(&opts.temperature) {
        out.push(format!("llm.temperature {} is out of range: 0 to 2", opts.temperature));
    }
    if opts.timeout_seconds == 0 || opts.retry_seconds > 3600 {
        out.push("llm.timeout_seconds must be at least 1 and llm.retry_seconds at most 3600".into());
    }
    out
}

impl Client {
    /// A client for `opts` (nothing is sent until the first request).
    pub fn new(opts: &LlmOptions) -> Result<Client> {
        let problems = problems(opts);
        if let Some(first) = problems.into_iter().next() {
            return Err(Error::config(first));
        }
        let url = endpoint(opts).expect("checked").trim().trim_end_matches('/').to_string();
        let timeout = Duration::from_secs(opts.timeout_seconds);
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent(concat!("chunktui/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(Client {
            url,
            model: model_name(opts).expect("checked"),
            temperature: opts.temperature,
            max_tokens: opts.max_tokens,
            retry_budget: Duration::from_secs(opts.retry_seconds),
            key: api_key(),
            agent,
            cache: if opts.cache { Cache::open() } else { None },
            format: AtomicU8::new(JSON_SCHEMA),
            gate: Gate::new(opts.concurrency),
        }
        .with_known_format())
    }

    /// The server's reply format as an earlier client learned it (in this
    /// process, else from the cache folder), so a server that refuses
    /// `json_schema` is not asked with it again by every new client.
    fn with_known_format(self) -> Client {
        let key = self.format_key();
        let known = KNOWN_FORMATS.lock().unwrap_or_else(|e| e.into_inner()).get(&key).copied().or_else(|| {
            let path = self.cache.as_ref()?.format_file(&key);
            std::fs::read_to_string(path).ok()?.trim().parse::<u8>().ok().filter(|&f| f <= TEXT)
        });
        if let Some(f) = known {
            self.format.store(f, Ordering::Relaxed);
        }
        self
    }

    fn format_key(&self) -> String {
        Cache::key(&["chunktui-llm-format-1", &self.url, &self.model])
    }

    /// Remember that the server refused format `refused`.
    fn downgrade(&self, refused: u8) {
        if self.format.compare_exchange(refused, refused + 1, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
            let key = self.format_key();
            KNOWN_FORMATS.lock().unwrap_or_else(|e| e.into_inner()).insert(key.clone(), refused + 1);
            if let Some(c) = &self.cache {
                let _ = c.put_raw(&c.format_file(&key), (refused + 1).to_string().as_bytes());
            }
        }
    }

    /// Use `cache` instead of the cache folder's (tests), or none.
    pub fn with_cache(mut self, cache: Option<Cache>) -> Client {
        self.cache = cache;
        self
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    /// The model's answer to `req`: from the cache when this exact request
    /// was answered before, else from the server (then cached).
    pub fn ask(&self, req: &Request<'_>) -> Result<String> {
        let max_tokens = req.max_tokens.min(self.max_tokens).max(1);
        let schema = req.schema.map(|s| s.to_string()).unwrap_or_default();
        let key = Cache::key(&[
            "chunktui-llm-1",
            &self.url,
            &self.model,
            &self.temperature.to_string(),
            &max_tokens.to_string(),
            req.system,
            req.user,
            &schema,
        ]);
        if let Some(hit) = self.cache.as_ref().and_then(|c| c.get(&key)) {
            count::cached(1);
            return Ok(hit);
        }
        let content = {
            let _slot = self.gate.enter();
            self.send(req, max_tokens)?
        };
        if let Some(c) = &self.cache {
            // An unwritable cache costs a re-request next time, not this run.
            let _ = c.put(&key, &content);
        }
        Ok(content)
    }

    /// One request, retried within the time budget.
    fn send(&self, req: &Request<'_>, max_tokens: usize) -> Result<String> {
        let started = Instant::now();
        let mut attempt = 0u32;
        loop {
            let format = if req.schema.is_some() { self.format.load(Ordering::Relaxed) } else { TEXT };
            let body = self.body(req, max_tokens, format);
            count::requests(1);
            let outcome = self.post(&body);
            let wait = match outcome {
                Outcome::Answer(content) => return Ok(content),
                Outcome::Refused(status) if format < TEXT && refuses_format(status) => {
                    // The server cannot constrain replies this way: ask the
                    // next way at once, and never this way again.
                    self.downgrade(format);
                    continue;
                }
                Outcome::Fatal(message) => return Err(Error::Llm(self.scrub(&message))),
                Outcome::Refused(status) => {
                    return Err(Error::Llm(self.scrub(&format!(
                        "{} answered HTTP {status}: {}",
                        self.chat_url(),
                        "the server refused the request; check --llm-url and --llm-model"
                    ))))
                }
                Outcome::Again { after, why } => (after, why),
            };
            attempt += 1;
            let (after, why) = wait;
            let backoff = after.unwrap_or_else(|| Duration::from_millis(500u64 << attempt.min(5)));
            if started.elapsed() + backoff > self.retry_budget {
                return Err(Error::Llm(self.scrub(&format!(
                    "{} did not answer ({why}) after {attempt} tr{}, {:.0} s: is the server running? Start it, or \
                     point --llm-url at one that is",
                    self.chat_url(),
                    if attempt == 1 { "y" } else { "ies" },
                    started.elapsed().as_secs_f64()
                ))));
            }
            count::retries(1);
            std::thread::sleep(backoff);
        }
    }

    fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.url)
    }

    fn body(&self, req: &Request<'_>, max_tokens: usize, format: u8) -> Value {
        let mut system = req.system.to_string();
        if let (Some(schema), true) = (req.schema, format > JSON_SCHEMA) {
            system.push_str("\n\nAnswer with one JSON object only, following this JSON Schema:\n");
            system.push_str(&schema.to_string());
        }
        let mut body = json!({
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": req.user},
            ],
            "temperature": self.temperature,
            "max_tokens": max_tokens,
            "stream": false,
        });
        if let Some(schema) = req.schema {
            match format {
                JSON_SCHEMA => {
                    body["response_format"] = json!({"type": "json_schema", "json_schema": {"name": "answer", "strict": true, "schema": schema}})
                }
                JSON_OBJECT => body["response_format"] = json!({"type": "json_object", "schema": schema}),
                _ => {}
            }
        }
        body
    }

    fn post(&self, body: &Value) -> Outcome {
        let url = self.chat_url();
        let mut request = self.agent.post(&url).header("Content-Type", "application/json");
        if let Some(key) = &self.key {
            for (name, value) in auth_headers(&self.url, key) {
                request = request.header(name, &value);
            }
        }
        let mut response = match request.send(body.to_string().as_bytes()) {
            Ok(r) => r,
            Err(e) => return transport(&url, &e),
        };
        let status = response.status().as_u16();
        let after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|s| Duration::from_secs(s.min(60)));
        let text = match response.body_mut().with_config().limit(16 << 20).read_to_string() {
            Ok(t) => t,
            Err(e) => return transport(&url, &e),
        };
        match status {
            200..=299 => answer(&text)
                .unwrap_or_else(|| Outcome::Again { after: None, why: "an answer with no message content".into() }),
            401 | 403 => Outcome::Fatal(format!(
                "{url} answered HTTP {status} (not authorised): set $CHUNKTUI_LLM_KEY (or $OPENAI_API_KEY) to a key \
                 this server accepts"
            )),
            404 => Outcome::Fatal(format!(
                "{url} answered HTTP 404: --llm-url must be the API base ending in /v1, and --llm-model a model the \
                 server serves (not '{}')",
                crate::error::printable(&self.model)
            )),
            408 | 409 | 429 | 502..=504 => Outcome::Again { after, why: format!("HTTP {status}") },
            500 => Outcome::Refused(500),
            _ => Outcome::Refused(status),
        }
    }

    /// `message` with the key taken out, should a server echo it.
    fn scrub(&self, message: &str) -> String {
        match &self.key {
            Some(k) if k.len() >= 4 => message.replace(k.as_str(), "<key>"),
            _ => message.to_string(),
        }
    }
}

/// The headers that carry the key: `Authorization: Bearer` everywhere, and
/// Azure OpenAI's own `api-key` for an `*.azure.com` base URL.
pub fn auth_headers(url: &str, key: &str) -> Vec<(&'static str, String)> {
    let host = url.split("://").nth(1).unwrap_or(url).split(['/', ':', '?']).next().unwrap_or("");
    let mut out = vec![("Authorization", format!("Bearer {key}"))];
    if host.to_ascii_lowercase().ends_with(".azure.com") {
        out.push(("api-key", key.to_string()));
    }
    out
}

/// What one HTTP exchange came to.
enum Outcome {
    Answer(String),
    /// Try again after a wait.
    Again {
        after: Option<Duration>,
        why: String,
    },
    /// The server will not do this request (as it was sent).
    Refused(u16),
    /// Nothing will make it work without the user.
    Fatal(String),
}

/// Statuses that may mean "I do not support this response_format".
fn refuses_format(status: u16) -> bool {
    matches!(status, 400 | 422 | 500 | 501)
}

fn transport(url: &str, e: &ureq::Error) -> Outcome {
    let why = match e {
        ureq::Error::Timeout(_) => "timed out".to_string(),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
        ureq::Error::HostNotFound => return Outcome::Fatal(format!("{url}: host not found: check --llm-url")),
        ureq::Error::BadUri(u) => return Outcome::Fatal(format!("{url} is not a usable URL ({u}): check --llm-url")),
        other => other.to_string(),
    };
    Outcome::Again { after: None, why }
}

/// The message content of a chat completion, counting its tokens.
fn answer(text: &str) -> Option<Outcome> {
    let v: Value = serde_json::from_str(text).ok()?;
    if let Some(u) = v.get("usage") {
        count::prompt_tokens(u["prompt_tokens"].as_u64().unwrap_or(0));
        count::completion_tokens(u["completion_tokens"].as_u64().unwrap_or(0));
    }
    let content = v["choices"][0]["message"]["content"].as_str()?;
    Some(Outcome::Answer(content.to_string()))
}

/// At most `n` requests in flight.
struct Gate {
    free: Mutex<usize>,
    freed: Condvar,
}

struct Slot<'a>(&'a Gate);

impl Gate {
    fn new(n: usize) -> Gate {
        Gate { free: Mutex::new(n.max(1)), freed: Condvar::new() }
    }

    fn enter(&self) -> Slot<'_> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Slot(self)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn azure_bases_get_their_api_key_header_too() {
        let names = |url| auth_headers(url, "k").into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        assert_eq!(names("https://res.openai.azure.com/openai/v1"), vec!["Authorization", "api-key"]);
        assert_eq!(names("https://api.openai.com/v1"), vec!["Authorization"]);
        assert_eq!(names("http://127.0.0.1:8080/v1"), vec!["Authorization"]);
        assert_eq!(names("https://evil.com/x.azure.com/v1"), vec!["Authorization"]);
    }
}
