//! The versioned chunking configuration: everything needed to reproduce a set
//! of chunks, as plain data (fields, defaults, serde). Written by the
//! workbench's export, read by `chunktui chunk --config` and by library users;
//! TOML or JSON, chosen by file extension ([`file`]).
//!
//! What the settings mean lives with what reads them: a strategy's checks and
//! normalising in [`crate::strategy`], the whole-config check and loading in
//! [`crate::validate`]. Nothing here imports a strategy.

mod embed_api;
pub(crate) mod file;
mod generate;
mod kind;
mod options;

pub use crate::size::Unit;
pub use embed_api::EmbedApiOptions;
pub use generate::GenerateOptions;
pub use kind::StrategyKind;
pub use options::*;
use serde::{Deserialize, Serialize};

/// The config format version this build writes and reads.
pub const CONFIG_VERSION: u32 = 1;

/// The largest value any size or count setting may take (`size`, `overlap`,
/// `sentence.*`, `semantic.buffer_size`, `min_size`, `number_of_chunks`,
/// `max_tokens`): 4 294 967 295 (`u32::MAX`). [`ChunkConfig::validate`]
/// refuses more. No document chunktui reads comes near it, and the bound
/// keeps the strategies' arithmetic exact: LangChain's `_merge_splits` works
/// in signed lengths, where 2^63 would wrap to a negative size.
pub const MAX_COUNT: usize = u32::MAX as usize;

/// The smallest model input (`semantic.max_tokens`) that leaves room for the
/// model's special tokens and some text.
pub const MIN_MODEL_TOKENS: usize = 4;

/// The embedding model `chunktui setup` installs; a config names it this way
/// (any other model is named by its directory, or [`MULTILINGUAL_MODEL`]).
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2-int8";

/// The multilingual model `chunktui setup --multilingual` installs in the
/// cache (`<cache>/models/<this>/`); a config names it this way. A document
/// that is not English gets it when no model is named
/// ([`crate::eval::model_choice`]).
pub const MULTILINGUAL_MODEL: &str = "multilingual-e5-small-q4";

/// The default chunk size in characters: what fits the default model's 256
/// word pieces (254 and its two special tokens) on English text, code
/// included, which runs down to about three characters a piece. At 1000,
/// a fifth of the Rust book's chunks were over the model's input.
pub const DEFAULT_SIZE: usize = 700;

/// The default size for text that is mostly CJK (the command line picks it
/// by the document, as it picks the `chinese` separators): a CJK character
/// is a word piece of its own.
pub const DEFAULT_CJK_SIZE: usize = 240;

/// The default size for source code (and JSON, YAML, TOML: files whose
/// extension says code), which the command line picks by the file as it
/// picks [`DEFAULT_CJK_SIZE`]. Identifiers, operators and indentation run
/// to about two characters a word piece: at 700, a third of the chunks of
/// 150 Rust files from crates.io were over the model's input; at 400, under
/// a tenth of a percent (Python: 5 % and under 0.1 %).
pub const DEFAULT_CODE_SIZE: usize = 400;

/// The tokenizer used when `unit = "tokens"` and none is named.
pub const DEFAULT_TOKENIZER: &str = "cl100k_base";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChunkConfig {
    /// Config format version; files from a newer chunktui are refused.
    /// Every key may be left out and keeps its default (the overlap's is a
    /// fifth of `size`, see [`ChunkConfig::overlap_for_size`]).
    #[serde(default = "default_version")]
    pub version: u32,
    #[serde(default = "default_strategy")]
    pub strategy: StrategyKind,
    #[serde(default = "default_unit")]
    pub unit: Unit,
    /// `cl100k_base`, `o200k_base`, or `hf:PATH` to a HuggingFace tokenizer.json.
    /// Used for `unit = "tokens"` and for token counts shown beside chunks.
    #[serde(default = "default_tokenizer")]
    pub tokenizer: String,
    /// Maximum chunk size in `unit`.
    #[serde(default = "default_size")]
    pub size: usize,
    /// Overlap between neighbouring chunks in `unit`.
    #[serde(default)]
    pub overlap: usize,
    #[serde(default, skip_serializing_if = "RecursiveOptions::is_default")]
    pub recursive: RecursiveOptions,
    #[serde(default, skip_serializing_if = "SentenceOptions::is_default")]
    pub sentence: SentenceOptions,
    #[serde(default, skip_serializing_if = "MarkdownOptions::is_default")]
    pub markdown: MarkdownOptions,
    #[serde(default, skip_serializing_if = "LangchainOptions::is_default")]
    pub langchain: LangchainOptions,
    #[serde(default, skip_serializing_if = "SemanticOptions::is_default")]
    pub semantic: SemanticOptions,
    #[serde(default, skip_serializing_if = "EmbedTextOptions::is_default")]
    pub embed_text: EmbedTextOptions,
    #[serde(default, skip_serializing_if = "JsonOptions::is_default")]
    pub json: JsonOptions,
    #[serde(default, skip_serializing_if = "FastOptions::is_default")]
    pub fast: FastOptions,
    #[serde(default, skip_serializing_if = "HierarchicalOptions::is_default")]
    pub hierarchical: HierarchicalOptions,
    #[serde(default, skip_serializing_if = "ClusterOptions::is_default")]
    pub cluster: ClusterOptions,
    #[serde(default, skip_serializing_if = "CodeOptions::is_default")]
    pub code: CodeOptions,
    #[serde(default, skip_serializing_if = "LintOptions::is_default")]
    pub lint: LintOptions,
    #[serde(default, skip_serializing_if = "LlmOptions::is_default")]
    pub llm: LlmOptions,
    #[serde(default, skip_serializing_if = "AgenticOptions::is_default")]
    pub agentic: AgenticOptions,
    /// Which questions written by the LLM are kept (`eval --generate`, `tune`).
    #[serde(default, skip_serializing_if = "GenerateOptions::is_default")]
    pub generate: GenerateOptions,
    /// Hand-made boundaries: a `cut` starts a chunk at a spot, a `join`
    /// keeps one from starting there; each anchored by the text around it
    /// (see `chunktui chunk --help` and docs/config.md, "Hand-edited boundaries").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<crate::edits::Edit>,
    /// The user's own embedding model behind an OpenAI-compatible endpoint.
    #[serde(default, skip_serializing_if = "EmbedApiOptions::is_default")]
    pub embed: EmbedApiOptions,
}

fn default_tokenizer() -> String {
    DEFAULT_TOKENIZER.to_string()
}

fn default_version() -> u32 {
    CONFIG_VERSION
}

fn default_strategy() -> StrategyKind {
    ChunkConfig::default().strategy
}

fn default_unit() -> Unit {
    ChunkConfig::default().unit
}

fn default_size() -> usize {
    ChunkConfig::default().size
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig {
            version: CONFIG_VERSION,
            strategy: StrategyKind::Recursive,
            unit: Unit::Chars,
            tokenizer: default_tokenizer(),
            size: DEFAULT_SIZE,
            overlap: ChunkConfig::overlap_for_size(DEFAULT_SIZE),
            recursive: RecursiveOptions::default(),
            sentence: SentenceOptions::default(),
            markdown: MarkdownOptions::default(),
            langchain: LangchainOptions::default(),
            semantic: SemanticOptions::default(),
            embed_text: EmbedTextOptions::default(),
            json: JsonOptions::default(),
            fast: FastOptions::default(),
            hierarchical: HierarchicalOptions::default(),
            cluster: ClusterOptions::default(),
            code: CodeOptions::default(),
            lint: LintOptions::default(),
            llm: LlmOptions::default(),
            embed: EmbedApiOptions::default(),
            agentic: AgenticOptions::default(),
            generate: GenerateOptions::default(),
            edits: Vec::new(),
        }
    }
}

/// The config file's JSON Schema, generated from these types (what
/// `chunktui config schema` prints; assets/config.schema.json holds a copy
/// that tests/assets.rs keeps in step).
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(ChunkConfig);
    format!("{}\n", serde_json::to_string_pretty(&schema).expect("a schema serialises"))
}

impl ChunkConfig {
    /// Which embedding model this config embeds with, as a key for what was
    /// computed with it: the endpoint's `model@base` when `[embed]` names
    /// one, else `semantic.model` (`None` for the default model, named or not).
    pub fn model_key(&self) -> Option<String> {
        if self.embed.is_set() {
            return Some(self.embed.model_id());
        }
        self.semantic.model.clone().filter(|m| m != DEFAULT_MODEL)
    }

    /// The overlap that goes with a size given without one (on the command
    /// line or as keywords, without a config file): a fifth of it, as the
    /// defaults have it (140 of 700). Keeping 200 made `--size 300` overlap
    /// by two thirds, and gave three times the chunks.
    pub fn overlap_for_size(size: usize) -> usize {
        size / 5
    }
}
