//! Large language models behind any OpenAI-compatible endpoint: the
//! [`Client`] (reply formats, retries, the disk cache), tolerant reading of
//! answers ([`reply`]), and process-wide accounting ([`usage()`]).
//!
//! The model never writes a chunk's text: what it answers are numbers
//! (where chunks start, which sentences a proposition came from) that
//! chunktui checks and turns into exact source ranges, or free text kept
//! beside a range (a proposition, a question).

//! Reading answers, counting and running questions in parallel are plain
//! Rust and always built; the HTTP client and the disk cache come with the
//! `llm` feature.

#[cfg(feature = "llm")]
pub mod cache;
#[cfg(feature = "llm")]
pub mod client;
#[cfg(feature = "llm")]
pub mod enrich;
pub mod parallel;
pub mod reply;
pub mod usage;

#[cfg(feature = "llm")]
pub use cache::Cache;
#[cfg(feature = "llm")]
pub use client::{api_key, Client, Request};
pub use usage::{usage, Usage};

/// The fields `--llm-enrich` can add ([`enrich`]).
pub const ENRICH_FIELDS: [&str; 4] = ["title", "summary", "keywords", "context"];

/// Names that are not enrichment fields, for the config check.
pub fn enrich_problems(enrich: &[String]) -> Vec<String> {
    enrich
        .iter()
        .filter(|f| !ENRICH_FIELDS.contains(&f.as_str()))
        .map(|f| format!("--llm-enrich '{f}' is not a field: use any of {}", ENRICH_FIELDS.join(", ")))
        .collect()
}
