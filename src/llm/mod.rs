//! Large language models behind any OpenAI-compatible endpoint: the
//! [`Client`] (reply formats, retries, the disk cache), tolerant reading of
//! answers ([`reply`]), and process-wide accounting ([`usage()`]).
//!
//! The model never writes a chunk's text: what it answers are numbers
//! (where chunks start, which sentences a proposition came from) that
//! chunktui checks and turns into exact source ranges, or free text kept
//! beside a range (a proposition, a question).

pub mod cache;
pub mod client;
pub mod parallel;
pub mod reply;
pub mod usage;

pub use cache::Cache;
pub use client::{api_key, Client, Request};
pub use usage::{usage, Usage};
