//! chunktui: tune how documents are cut into chunks for retrieval-augmented generation.
//!
//! The core is UI-free: a [`Document`] goes through a [`Chunker`] (built from a
//! versioned [`ChunkConfig`]) and comes out as [`Chunk`]s, byte ranges into the
//! original text. Every consumer (terminal UI, CLI, exports, evaluation) reads
//! those ranges over the one original string.
//!
//! ```
//! use chunktui::{ChunkConfig, Chunker};
//! let mut config = ChunkConfig::default();
//! config.size = 50;
//! config.overlap = 0;
//! let chunker = Chunker::new(&config).unwrap();
//! let text = "First paragraph here.\n\nSecond paragraph, a bit longer than the first.";
//! let chunks = chunker.chunk(text).unwrap();
//! assert_eq!(chunks.len(), 2);
//! assert_eq!(&text[chunks[0].range.clone()], "First paragraph here.");
//! ```

#[macro_use]
mod counters;

pub mod bpe;
pub mod chunk;
pub mod chunker;
pub mod config;
pub mod contextual;
pub mod diff;
pub mod document;
pub mod edits;
pub mod embed_usage;
pub mod embedding;
pub mod error;
pub mod eval;
pub mod export;
pub mod extract;
pub mod fit;
pub mod input;
pub mod io;
pub mod languages;
pub mod lint;
pub mod measure;
pub mod parallel;
pub mod post_chunking;
pub mod protect;
pub mod segment;
pub mod size;
pub mod stats;
pub mod strategy;
pub mod validate;
pub mod word_counts;

#[cfg(feature = "embed")]
pub mod embed;

pub mod llm;

/// The HTTP layer of the API clients (LLM, embeddings).
#[cfg(any(feature = "embed", feature = "llm"))]
pub mod http;

#[cfg(feature = "cli")]
pub mod cli;

#[cfg(feature = "tui")]
pub mod tui;

pub use chunk::{Chunk, ChunkMeta};
pub use chunker::Chunker;
pub use config::{ChunkConfig, StrategyKind};
pub use document::{DocKind, Document};
pub use error::{Error, Result};
pub use size::Unit;
pub use stats::Stats;
