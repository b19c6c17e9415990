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
use crate::http::{self, Http, Reply, Service, Step};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

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
    http: Http,
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

/// The service this client talks to, as its messages name it.
pub const LLM: Service = Service {
    name: "LLM",
    url_flag: "--llm-url",
    model_flag: "--llm-model",
    key_vars: &["CHUNKTUI_LLM_KEY", "OPENAI_API_KEY"],
};

/// The API key from the environment: `$CHUNKTUI_LLM_KEY`, else `$OPENAI_API_KEY`.
pub fn api_key() -> Option<String> {
    http::api_key(LLM.key_vars)
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
        Ok(Client {
            url,
            model: model_name(opts).expect("checked"),
            temperature: opts.temperature,
            max_tokens: opts.max_tokens,
            retry_budget: Duration::from_secs(opts.retry_seconds),
            http: Http::new(LLM, Duration::from_secs(opts.timeout_seconds), 16 << 20),
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

    /// One request, retried within the time budget. A server that refuses
    /// the reply format is asked the next way at once, and never this way
    /// again; a reply with no message content is asked again.
    fn send(&self, req: &Request<'_>, max_tokens: usize) -> Result<String> {
        let url = http::join(&self.url, "/chat/completions");
        let retried = || count::retries(1);
        http::retrying(self.retry_budget, &url, LLM.url_flag, &retried, || loop {
            let format = if req.schema.is_some() { self.format.load(Ordering::Relaxed) } else { TEXT };
            let body = self.body(req, max_tokens, format);
            count::requests(1);
            return match self.http.post(&self.url, &url, &body.to_string()) {
                Reply::Ok(text) => match answer(&text) {
                    Some(content) => Step::Done(content),
                    None => Step::Again { after: None, why: "an answer with no message content".into() },
                },
                Reply::Refused { status, .. } if format < TEXT && refuses_format(status) => {
                    self.downgrade(format);
                    continue;
                }
                Reply::Refused { status, body } => Step::Fail(format!(
                    "{url} answered HTTP {status}: the server refused the request; check --llm-url and \
                     --llm-model{}",
                    http::server_says(&body)
                )),
                Reply::Again { after, why } => Step::Again { after, why },
                Reply::Fatal(message) => Step::Fail(message),
            };
        })
        .map_err(|message| Error::Llm(self.http.scrub(&message)))
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
}

/// Statuses that may mean "I do not support this response_format".
fn refuses_format(status: u16) -> bool {
    matches!(status, 400 | 422 | 500 | 501)
}

/// The message content of a chat completion, counting its tokens.
fn answer(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text).ok()?;
    if let Some(u) = v.get("usage") {
        count::prompt_tokens(u["prompt_tokens"].as_u64().unwrap_or(0));
        count::completion_tokens(u["completion_tokens"].as_u64().unwrap_or(0));
    }
    Some(v["choices"][0]["message"]["content"].as_str()?.to_string())
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
