//! `[embed]`: the user's own embedding model behind any OpenAI-compatible
//! `POST /v1/embeddings` endpoint (OpenAI, Azure OpenAI, DashScope, vLLM,
//! TEI, llama.cpp, Ollama, LM Studio, Infinity). When `url` is set, every
//! model strategy and every dense score embeds through it instead of an
//! ONNX model. The key is never part of the config: it comes from
//! `$CHUNKTUI_EMBED_KEY`, else `$OPENAI_API_KEY`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct EmbedApiOptions {
    /// The API base, ending in `/v1` (`--embed-url`); Azure: the deployment's
    /// base `https://RES.openai.azure.com/openai/deployments/NAME?api-version=...`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The model name the server knows (`--embed-model`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Output dimensions, sent as `dimensions` when set (text-embedding-3-*,
    /// text-embedding-v4 and others can shorten their vectors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<usize>,
    /// Texts per request; halved (once said) when the server says a batch is too big.
    pub batch_size: usize,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Seconds one request may take before it is abandoned and retried.
    pub timeout_seconds: u64,
    /// Seconds all retries of one request may take together.
    pub retry_seconds: u64,
    /// The model's largest input in its own tokens: longer chunks are
    /// counted and reported (never cut by chunktui), and the default chunk
    /// size is fitted under it. Known for OpenAI's models when not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_input_tokens: Option<usize>,
    /// Keep vectors in the cache folder (`--embed-cache off` skips it).
    pub cache: bool,
}

impl Default for EmbedApiOptions {
    fn default() -> Self {
        EmbedApiOptions {
            url: None,
            model: None,
            dimensions: None,
            batch_size: 64,
            concurrency: 2,
            timeout_seconds: 60,
            retry_seconds: 30,
            max_input_tokens: None,
            cache: true,
        }
    }
}

impl EmbedApiOptions {
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    /// Whether an endpoint is configured: the model strategies then embed through it.
    pub fn is_set(&self) -> bool {
        self.url.as_deref().is_some_and(|u| !u.trim().is_empty())
    }

    /// The model's input limit: as given, else what is known of OpenAI's
    /// embedding models (8,191 tokens of `cl100k_base`).
    pub fn input_limit(&self) -> Option<usize> {
        self.max_input_tokens.or_else(|| {
            let m = self.model.as_deref()?;
            (m.starts_with("text-embedding-3-") || m == "text-embedding-ada-002").then_some(8191)
        })
    }

    /// `model@base` (and `/dims` when `dimensions` is set): names the model
    /// in reports and keys its cache. Holds no key.
    pub fn model_id(&self) -> String {
        let base = self.url.as_deref().unwrap_or_default().trim().trim_end_matches('/');
        let model = self.model.as_deref().unwrap_or_default().trim();
        match self.dimensions {
            Some(d) => format!("{model}@{base}/{d}"),
            None => format!("{model}@{base}"),
        }
    }

    /// What the reports say of the model: `{"endpoint", "model",
    /// "dimensions", "max_input_tokens"}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "endpoint": self.url.as_deref().map(|u| u.trim().trim_end_matches('/')),
            "model": self.model,
            "dimensions": self.dimensions,
            "max_input_tokens": self.input_limit(),
        })
    }

    /// What is wrong with these settings, if anything (checked before any request).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.is_set() {
            if self.model.is_some() {
                out.push("--embed-model needs --embed-url (the API base ending in /v1) or [embed] url".into());
            }
            return out;
        }
        let url = self.url.as_deref().unwrap_or_default().trim();
        let controls = |s: &str| s.chars().any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}');
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            out.push(format!(
                "embed.url '{}' is not an http(s) URL: give the API base, e.g. http://127.0.0.1:8080/v1",
                crate::error::printable(url)
            ));
        } else if controls(url) || url.contains(char::is_whitespace) {
            out.push("embed.url holds spaces or control characters: give the bare API base URL".into());
        }
        match self.model.as_deref().map(str::trim) {
            None | Some("") => out.push(
                "no embedding model named: pass --embed-model NAME (a model the server serves, e.g. \
                 text-embedding-3-small) or set [embed] model"
                    .into(),
            ),
            Some(m) if controls(m) => {
                out.push("embed.model holds control characters (a line break?): give the model's name alone".into())
            }
            _ => {}
        }
        if self.batch_size == 0 || self.batch_size > 4096 {
            out.push(format!("embed.batch_size {} is out of range: 1 to 4096 texts per request", self.batch_size));
        }
        if self.concurrency == 0 || self.concurrency > 64 {
            out.push(format!("embed.concurrency {} is out of range: 1 to 64 requests at once", self.concurrency));
        }
        if self.dimensions.is_some_and(|d| d == 0 || d > 65_536) {
            out.push("embed.dimensions is out of range: 1 to 65536".into());
        }
        if self.max_input_tokens.is_some_and(|n| n < 8) {
            out.push("embed.max_input_tokens is below 8: give the model's input limit in its tokens".into());
        }
        if self.timeout_seconds == 0 || self.timeout_seconds > 3600 || self.retry_seconds > 3600 {
            out.push("embed.timeout_seconds must be 1 to 3600 and embed.retry_seconds at most 3600".into());
        }
        out
    }
}
