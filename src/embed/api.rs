//! [`ApiEmbedder`]: the user's own embedding model behind any
//! OpenAI-compatible `POST /v1/embeddings` endpoint, as an
//! [`Embedder`] like the ONNX one, so every model strategy and every dense
//! score can use it.
//!
//! - Only strings are sent, never token-id arrays (DashScope and several
//!   servers refuse those), in batches of `batch_size`, `concurrency`
//!   requests at once. A batch the server says is too big is halved, and
//!   that is said once.
//! - Replies are read by [`super::api_reply`]: vectors go back by index,
//!   and any wrong shape is one error naming the server.
//! - Retries, redirects, keys and error texts are the shared HTTP layer's
//!   ([`crate::http`]).
//! - Inputs longer than the model's limit are counted and reported, never
//!   cut here: the server decides.

use super::api_reply;
use crate::config::EmbedApiOptions;
use crate::embed_usage::{count, note};
use crate::embedding::{normalize, Control, Embedder, Embeddings, TokenVectors};
use crate::error::{Error, Result};
use crate::http::{self, Http, Reply, Service, Step};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The service, as messages name it.
pub const EMBEDDINGS: Service = Service {
    name: "embeddings",
    url_flag: "--embed-url",
    model_flag: "--embed-model",
    key_vars: &["CHUNKTUI_EMBED_KEY", "OPENAI_API_KEY"],
};

pub struct ApiEmbedder {
    /// The base as given, trimmed, without a trailing `/`.
    base: String,
    /// `base` + `/embeddings`.
    url: String,
    model: String,
    dimensions: Option<usize>,
    /// Texts per request: `batch_size`, lowered when the server refuses a batch as too big.
    batch: AtomicUsize,
    concurrency: usize,
    retry_budget: Duration,
    /// The model's input limit in its tokens, when given or known.
    limit: Option<usize>,
    /// Counts an input's tokens against `limit` (an estimate when the
    /// server's own tokenizer is not ours).
    tokens: Option<crate::size::Tokenizer>,
    /// The vectors' length, once a reply has set it (0: not yet).
    dim: AtomicUsize,
    id: String,
    http: Http,
}

impl std::fmt::Debug for ApiEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiEmbedder").field("id", &self.id).finish_non_exhaustive()
    }
}

impl ApiEmbedder {
    /// A client for `opts` (nothing is sent until the first texts).
    /// `tokenizer` (a config's) counts inputs against the model's limit
    /// when the model's own is not known (OpenAI's models use `cl100k_base`).
    pub fn new(opts: &EmbedApiOptions, tokenizer: &str) -> Result<ApiEmbedder> {
        if let Some(problem) = opts.problems().into_iter().next() {
            return Err(Error::config(problem));
        }
        let Some(url) = opts.url.as_deref().filter(|_| opts.is_set()) else {
            return Err(Error::config("no embeddings endpoint: pass --embed-url (the API base ending in /v1)"));
        };
        let base = url.trim().trim_end_matches('/').to_string();
        let model = opts.model.as_deref().unwrap_or_default().trim().to_string();
        let limit = opts.input_limit();
        let openai = opts.max_input_tokens.is_none() && limit.is_some();
        let tokens = match limit {
            Some(_) => Some(crate::size::Tokenizer::load(if openai { "cl100k_base" } else { tokenizer })?),
            None => None,
        };
        // Enough for a batch of long vectors as JSON text, and never under 16 MiB.
        let body_limit = (opts.batch_size as u64 * 8192 * 24).max(16 << 20);
        Ok(ApiEmbedder {
            url: http::join(&base, "/embeddings"),
            base,
            model,
            dimensions: opts.dimensions,
            batch: AtomicUsize::new(opts.batch_size.max(1)),
            concurrency: opts.concurrency.max(1),
            retry_budget: Duration::from_secs(opts.retry_seconds),
            limit,
            tokens,
            dim: AtomicUsize::new(opts.dimensions.unwrap_or(0)),
            id: opts.model_id(),
            http: Http::new(EMBEDDINGS, Duration::from_secs(opts.timeout_seconds), body_limit),
        })
    }

    /// The endpoint texts are posted to (`.../embeddings`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The vectors of one batch, in input order; halved and sent again
    /// when the server says the batch is too big.
    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut body = serde_json::json!({"model": self.model, "input": texts, "encoding_format": "float"});
        if let Some(d) = self.dimensions {
            body["dimensions"] = d.into();
        }
        let body = body.to_string();
        let retried = || count::retries(1);
        let outcome = http::retrying(self.retry_budget, &self.url, EMBEDDINGS.url_flag, &retried, || {
            count::requests(1);
            match self.http.post(&self.base, &self.url, &body) {
                Reply::Ok(text) => Step::Done(Ok(text)),
                Reply::Refused { status, body } if texts.len() > 1 && batch_too_big(status, &body) => {
                    Step::Done(Err(status))
                }
                Reply::Refused { status, body } if status >= 500 && !input_too_long(&body) => {
                    Step::Again { after: None, why: format!("HTTP {status}{}", http::server_says(&body)) }
                }
                Reply::Refused { status, body } => Step::Fail(self.refused(status, &body, texts)),
                Reply::Again { after, why } => Step::Again { after, why },
                Reply::Fatal(message) => Step::Fail(message),
            }
        });
        let text = match outcome {
            Ok(Ok(text)) => text,
            Ok(Err(status)) => {
                // Halve, and send the rest in batches of the new size.
                let half = texts.len().div_ceil(2);
                let before = self.batch.fetch_min(half, Ordering::Relaxed);
                if half < before {
                    note(
                        "batch",
                        format!(
                            "batch size lowered to {half}: the server refused {} texts at once (HTTP {status}); \
                             set embed.batch_size to skip the refusals",
                            texts.len()
                        ),
                    );
                }
                // The size is read again for each part: a refusal further
                // down lowers it for the parts after.
                let mut out = Vec::with_capacity(texts.len());
                let mut at = 0;
                while at < texts.len() {
                    let end = (at + self.batch.load(Ordering::Relaxed)).min(texts.len());
                    out.extend(self.embed_batch(&texts[at..end])?);
                    at = end;
                }
                return Ok(out);
            }
            Err(message) => return Err(Error::Model(self.http.scrub(&message))),
        };
        count::inputs(texts.len() as u64);
        let known = Some(self.dim.load(Ordering::Relaxed)).filter(|&d| d > 0);
        let batch = api_reply::read(&text, texts.len(), known).map_err(|why| {
            Error::Model(self.http.scrub(&format!(
                "{} (model '{}') answered, but {why}: nothing was written. Is {} an OpenAI-compatible \
                 embeddings server?",
                self.url,
                crate::error::printable(&self.model),
                EMBEDDINGS.url_flag
            )))
        })?;
        count::tokens(batch.tokens);
        if let Some(d) = batch.vectors.first().map(Vec::len) {
            let _ = self.dim.compare_exchange(0, d, Ordering::Relaxed, Ordering::Relaxed);
        }
        Ok(batch.vectors)
    }

    /// The message for a request the server will not do.
    fn refused(&self, status: u16, body: &str, texts: &[&str]) -> String {
        let says = http::server_says(body);
        let over = self.over_limit(texts).len();
        let hint = if body.to_ascii_lowercase().contains("dimension") && self.dimensions.is_some() {
            "this model may not take `dimensions`: drop --embed-dimensions (embed.dimensions)".to_string()
        } else if input_too_long(body) || over > 0 {
            let limit = self.limit.map(|l| format!(" ({l} tokens)")).unwrap_or_default();
            format!(
                "an input is longer than the model takes{limit}: cut smaller (--size), or set \
                 embed.max_input_tokens to see which chunks are over before anything is sent"
            )
        } else {
            format!("check {} and {}", EMBEDDINGS.url_flag, EMBEDDINGS.model_flag)
        };
        format!("{} answered HTTP {status}{says}: {hint}", self.url)
    }

    /// Which of `texts` are longer than the model's limit (none when it is not known).
    fn over_limit(&self, texts: &[&str]) -> Vec<usize> {
        match (&self.tokens, self.limit) {
            (Some(t), Some(limit)) => (0..texts.len()).filter(|&i| t.count(texts[i]) > limit).collect(),
            _ => Vec::new(),
        }
    }
}

/// A 413, or a 400/422 that says too many inputs came at once.
fn batch_too_big(status: u16, body: &str) -> bool {
    if status == 413 {
        return true;
    }
    let b = body.to_ascii_lowercase();
    matches!(status, 400 | 422)
        && ["batch", "too many", "at most", "array too long", "list too long", "number of input", "maximum input"]
            .iter()
            .any(|w| b.contains(w))
        && !input_too_long(body)
}

/// An error that says one input is too long (retrying will not help).
fn input_too_long(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    ["too large", "too long", "context length", "maximum context", "exceeds", "input length"]
        .iter()
        .any(|w| b.contains(w))
}

/// `0..n` in consecutive ranges of `size`.
fn batches(n: usize, size: usize) -> Vec<Range<usize>> {
    (0..n).step_by(size.max(1)).map(|s| s..(s + size.max(1)).min(n)).collect()
}

impl Embedder for ApiEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn max_input_tokens(&self) -> Option<usize> {
        self.limit
    }

    fn embed_texts(&self, texts: &[&str], ctl: Control<'_>) -> Result<Embeddings> {
        ctl.check()?;
        if texts.is_empty() {
            return Ok(Embeddings::default());
        }
        count::over_limit(self.over_limit(texts).len() as u64);
        let started = Instant::now();
        let size = self.batch.load(Ordering::Relaxed);
        let ranges = batches(texts.len(), size);
        let total = texts.len();
        let progress = |done: usize, _: usize| (ctl.progress)((done * size).min(total), total);
        let got = crate::llm::parallel::ask_all(ranges.len(), self.concurrency, &progress, &|| ctl.check(), &|i| {
            self.embed_batch(&texts[ranges[i].clone()])
        });
        count::millis(started.elapsed().as_millis() as u64);
        let mut vectors: Vec<Vec<f32>> = got?.into_iter().flatten().collect();
        vectors.iter_mut().for_each(|v| normalize(v));
        Ok(Embeddings { vectors, truncated: Vec::new() })
    }

    fn token_vectors(&self, _text: &str, _ctl: Control<'_>) -> Result<TokenVectors> {
        Err(Error::Model(format!(
            "late chunking needs a vector for every token, which no embeddings API returns ({}): use semantic, \
             langchain-semantic, semantic-grouping, adaptive or cluster with {}, or late with an ONNX model \
             (--model DIR, without --embed-url)",
            self.id, EMBEDDINGS.url_flag
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_every_text_once() {
        assert_eq!(batches(5, 2), vec![0..2, 2..4, 4..5]);
        assert_eq!(batches(3, 64), vec![0..3]);
    }

    #[test]
    fn a_batch_too_big_is_told_from_an_input_too_long() {
        assert!(batch_too_big(413, ""));
        assert!(batch_too_big(
            400,
            r#"{"error":{"message":"batch size is invalid, it should not be larger than 10"}}"#
        ));
        assert!(!batch_too_big(400, r#"{"error":{"message":"This model's maximum context length is 8192 tokens"}}"#));
        assert!(input_too_long("input is too large to process. increase the physical batch size"));
    }

    #[test]
    fn the_id_names_model_base_and_dimensions_but_no_key() {
        let opts = EmbedApiOptions {
            url: Some("https://api.openai.com/v1/".into()),
            model: Some("text-embedding-3-small".into()),
            dimensions: Some(256),
            ..Default::default()
        };
        assert_eq!(opts.model_id(), "text-embedding-3-small@https://api.openai.com/v1/256");
    }
}
