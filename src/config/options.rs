//! The option tables of a config, one per strategy family (`[recursive]`,
//! `[sentence]`, `[semantic]`, ...), plus `[embed_text]` and `[lint]`.

use super::StrategyKind;
use serde::{Deserialize, Serialize};

/// Separators for `recursive`: a named preset or an explicit list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RecursiveOptions {
    /// `english`, `chinese`, `markdown`, `rust`, `python`, `javascript`, `go`,
    /// `java`, `c`, `code`; ignored when `separators` is set.
    pub preset: String,
    /// Custom separators in priority order. `""` means "between characters".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub separators: Option<Vec<String>>,
    /// Treat `separators` as regular expressions.
    pub is_regex: bool,
}

impl Default for RecursiveOptions {
    fn default() -> Self {
        RecursiveOptions { preset: "english".into(), separators: None, is_regex: false }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SentenceOptions {
    /// Pack at most this many sentences into a chunk (0 = only the size limit).
    pub max_sentences: usize,
    /// Repeat this many trailing sentences at the start of the next chunk.
    pub overlap_sentences: usize,
}

impl Default for SentenceOptions {
    fn default() -> Self {
        SentenceOptions { max_sentences: 0, overlap_sentences: 1 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MarkdownOptions {
    /// Heading levels that start a new chunk (1 = `#`; the html strategy reads them too: 1 = `<h1>`).
    pub levels: Vec<u8>,
}

impl Default for MarkdownOptions {
    fn default() -> Self {
        MarkdownOptions { levels: vec![1, 2, 3] }
    }
}

/// Keep-separator modes of LangChain's splitters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum KeepSeparator {
    Bool(bool),
    Side(SeparatorSide),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SeparatorSide {
    Start,
    End,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LangchainOptions {
    /// `CharacterTextSplitter(separator=...)`.
    pub separator: String,
    /// Separators for `RecursiveCharacterTextSplitter`; `None` = LangChain's
    /// defaults `["\n\n", "\n", " ", ""]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub separators: Option<Vec<String>>,
    /// `None` = the splitter's own default (false for character, true for recursive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep_separator: Option<KeepSeparator>,
    pub is_separator_regex: bool,
    pub strip_whitespace: bool,
    /// Headers for `MarkdownHeaderTextSplitter`, as (marker, name) pairs.
    pub headers: Vec<(String, String)>,
    pub strip_headers: bool,
    pub return_each_line: bool,
}

impl Default for LangchainOptions {
    fn default() -> Self {
        LangchainOptions {
            separator: "\n\n".into(),
            separators: None,
            keep_separator: None,
            is_separator_regex: false,
            strip_whitespace: true,
            headers: vec![
                ("#".into(), "Header 1".into()),
                ("##".into(), "Header 2".into()),
                ("###".into(), "Header 3".into()),
            ],
            strip_headers: true,
            return_each_line: false,
        }
    }
}

/// Threshold types for semantic breakpoints (LangChain's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ThresholdType {
    Percentile,
    StandardDeviation,
    Interquartile,
    Gradient,
    /// An absolute cosine-distance threshold.
    Absolute,
}

impl ThresholdType {
    pub const ALL: [ThresholdType; 5] = [
        ThresholdType::Percentile,
        ThresholdType::StandardDeviation,
        ThresholdType::Interquartile,
        ThresholdType::Gradient,
        ThresholdType::Absolute,
    ];

    /// The name in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ThresholdType::Percentile => "percentile",
            ThresholdType::StandardDeviation => "standard_deviation",
            ThresholdType::Interquartile => "interquartile",
            ThresholdType::Gradient => "gradient",
            ThresholdType::Absolute => "absolute",
        }
    }

    /// The amount used when `semantic.threshold` is left out (LangChain's defaults).
    pub fn default_amount(self) -> f64 {
        match self {
            ThresholdType::Percentile | ThresholdType::Gradient => 95.0,
            ThresholdType::StandardDeviation => 3.0,
            ThresholdType::Interquartile => 1.5,
            ThresholdType::Absolute => 0.3,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SemanticOptions {
    /// Model directory (ONNX export + tokenizer.json), or the name of one
    /// `chunktui setup` installs (`all-MiniLM-L6-v2-int8`,
    /// `multilingual-e5-small-q4`); `None` = by the document's language:
    /// the multilingual model, when installed, for text that is not English,
    /// else the default model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub threshold_type: ThresholdType,
    /// Meaning depends on `threshold_type` (percentile: 0-100, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// Sentences on each side joined to a sentence before embedding.
    pub buffer_size: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number_of_chunks: Option<usize>,
    /// Minimum chunk size in `unit` (0 = none).
    pub min_size: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sentence_split_regex: Option<String>,
    /// Boundaries for `late` chunking come from this strategy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_boundaries: Option<StrategyKind>,
    /// Text put before every model input (e5 models want `"query: "`);
    /// `None` = read from the model directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// The model's largest input in tokens; `None` = read from the model
    /// directory (`sentence_bert_config.json`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
}

impl Default for SemanticOptions {
    fn default() -> Self {
        SemanticOptions {
            model: None,
            threshold_type: ThresholdType::Percentile,
            threshold: None,
            buffer_size: 1,
            number_of_chunks: None,
            min_size: 0,
            sentence_split_regex: None,
            late_boundaries: None,
            prefix: None,
            max_tokens: None,
        }
    }
}

/// Contextual text (`[embed_text]`): next to each chunk's text, the text a
/// pipeline should embed — the chunk's heading path, enclosing code symbols
/// or pages first — with its own size, so that what is embedded can be
/// held to the size limit (see [`crate::contextual`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmbedTextOptions {
    /// Emit `embed_text` with every chunk (`--embed-text`).
    #[serde(default)]
    pub enabled: bool,
    /// `size` limits `embed_text`, not just the text: a chunk that its
    /// context pushes over is cut again (`--embed-text-fit`; implies `enabled`).
    #[serde(default)]
    pub fit: bool,
}

/// Settings of the JSON strategies (`[json]`): `json` and `langchain-json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct JsonOptions {
    /// `langchain-json`: LangChain's `convert_lists` (`--json-convert-lists`):
    /// lists become objects keyed "0", "1", ... so that they can be cut
    /// between their items.
    pub convert_lists: bool,
    /// `langchain-json`: LangChain's `min_chunk_size` (`--json-min-chunk-size`):
    /// a chunk is closed once it holds this many characters and the next
    /// member would push it past `size`. Unset: LangChain's default,
    /// `max(size - 200, 50)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_chunk_size: Option<usize>,
}

impl JsonOptions {
    /// LangChain's `min_chunk_size` for `max_chunk_size = size`.
    pub fn min_chunk_size_for(&self, size: usize) -> usize {
        self.min_chunk_size.unwrap_or_else(|| size.saturating_sub(200).max(50))
    }
}

/// Settings of the `fast` strategy (`[fast]`): where a chunk may end before
/// its byte budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FastOptions {
    /// Single characters a chunk may end at (the last one before the budget
    /// wins): line breaks and English and CJK sentence ends by default.
    pub delimiters: String,
    /// One multi-character pattern to cut at instead of `delimiters`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The delimiter (or pattern) starts the next chunk instead of ending
    /// this one.
    pub prefix: bool,
}

impl Default for FastOptions {
    fn default() -> Self {
        FastOptions { delimiters: "\n.?!。！？".into(), pattern: None, prefix: false }
    }
}

/// Settings of the `hierarchical` strategy (see [`crate::strategy::hierarchical`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HierarchicalOptions {
    /// The size of each level in `unit`, largest first (`[2048, 512, 128]`);
    /// empty: `size`, `size / 4`, `size / 16`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<usize>,
    /// The strategy that cuts each level (any that needs no model).
    pub base: StrategyKind,
}

impl Default for HierarchicalOptions {
    fn default() -> Self {
        HierarchicalOptions { levels: Vec::new(), base: StrategyKind::Recursive }
    }
}

/// Settings of the `cluster` strategy (see [`crate::strategy::semantic::cluster`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ClusterOptions {
    /// The pieces the boundaries are chosen between: recursive pieces of at
    /// most this many tokens of `tokenizer` (whatever `unit` is), each
    /// embedded once.
    pub piece_size: usize,
    /// What a chunk's pieces should have in common. `pairwise` by default,
    /// as Chroma's ClusterSemanticChunker: on Chroma's 472 questions
    /// (MiniLM, k = 5, 200 tokens) it kept more recall than `adjacent` at
    /// the same IoU (docs/retrieval.md).
    pub objective: ClusterObjective,
    /// What a boundary inside a paragraph costs, in the objective's units
    /// (a cosine similarity); a boundary at a blank line costs nothing.
    pub split_cost: f64,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions { piece_size: 50, objective: ClusterObjective::Pairwise, split_cost: 0.05 }
    }
}

/// What `cluster` maximises over all its boundaries at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClusterObjective {
    /// Every pair of pieces inside a chunk: how similar they are, less the
    /// mean similarity of any two pieces of the document.
    Pairwise,
    /// Only neighbouring pieces inside a chunk: how similar they are, less
    /// the mean similarity of any two pieces of the document.
    Adjacent,
}

impl ClusterObjective {
    pub const ALL: [ClusterObjective; 2] = [ClusterObjective::Pairwise, ClusterObjective::Adjacent];

    /// The name in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ClusterObjective::Pairwise => "pairwise",
            ClusterObjective::Adjacent => "adjacent",
        }
    }
}

/// The `code` strategy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CodeOptions {
    /// The tree-sitter grammar: rust, python, javascript, typescript, tsx,
    /// go, java, c, cpp (or a file extension such as `ts`). `None` or another
    /// language: the recursive splitter with a code preset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// Chunk lint (see [`crate::lint`]): whether `stats` lints, which rules
/// report, and the model limit over-model-limit holds chunks to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LintOptions {
    /// `false`: `chunktui stats` and the workbench do not lint (as
    /// `stats --no-lint`); `chunktui lint` still does, being asked to.
    pub enabled: bool,
    /// Rules switched off, by name: mid-sentence, split-fence, split-table,
    /// orphan-heading, tiny-fragment, over-model-limit, stale-edit, join-over-size.
    pub off: Vec<String>,
    /// over-model-limit: the embedding model's largest input in tokens,
    /// special tokens included; `None` = `semantic.max_tokens`, else the
    /// default model's (256).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
}

impl Default for LintOptions {
    fn default() -> Self {
        LintOptions { enabled: true, off: Vec::new(), max_tokens: None }
    }
}

/// The LLM endpoint the LLM strategies and `eval --generate/--judge` use
/// (`[llm]`). Any OpenAI-compatible `/v1/chat/completions` server. The API
/// key is never part of a config: it comes from `$CHUNKTUI_LLM_KEY`, else
/// `$OPENAI_API_KEY`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LlmOptions {
    /// The API base, ending in `/v1` (`--llm-url`; else `$CHUNKTUI_LLM_URL`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The model name the server knows (`--llm-model`; else `$CHUNKTUI_LLM_MODEL`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Sampling temperature; 0 makes answers repeatable where the server allows.
    pub temperature: f32,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// The model's context window in tokens: documents go in windows that fit it.
    pub context_tokens: usize,
    /// The most tokens one answer may take (always sent as `max_tokens`).
    pub max_tokens: usize,
    /// Seconds one request may take before it is abandoned and retried.
    pub timeout_seconds: u64,
    /// Seconds all retries of one request may take together.
    pub retry_seconds: u64,
    /// Keep answers in the cache folder (`--llm-cache off` skips it).
    pub cache: bool,
    /// `propositions`: group the propositions into topical chunks, each with
    /// a title and a summary (`meta.fields`); a group's range spans its
    /// members' ranges (`--group-propositions`).
    pub group_propositions: bool,
    /// Describe every chunk, whatever the strategy (`--llm-enrich`): any of
    /// `title`, `summary`, `keywords`, `context` (`context` also goes before
    /// `embed_text`). Empty: no enrichment.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub enrich: Vec<String>,
}

impl Default for LlmOptions {
    fn default() -> Self {
        LlmOptions {
            url: None,
            model: None,
            temperature: 0.0,
            concurrency: 2,
            context_tokens: 2048,
            max_tokens: 256,
            timeout_seconds: 120,
            retry_seconds: 30,
            cache: true,
            group_propositions: false,
            enrich: Vec::new(),
        }
    }
}

/// The `agentic` strategy's plan (`[[agentic.plan]]`): one step per
/// top-level section, as the agent chose it. Empty: ask the LLM. Filled (by
/// `chunktui chunk -s agentic --write-config FILE`): cut by the plan, with no
/// LLM (sections cut by `llm` or `propositions` read their cached answers).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct AgenticOptions {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plan: Vec<PlanStep>,
}

/// How one section is cut, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    /// The section's heading text; `""` for the text before the first
    /// heading (or a document without headings). A section the plan does
    /// not name is cut by the first step.
    pub section: String,
    pub strategy: StrategyKind,
    pub size: usize,
    #[serde(default)]
    pub overlap: usize,
    /// The agent's one-line reason.
    #[serde(default)]
    pub reason: String,
}

macro_rules! is_default {
    ($($t:ty),*) => {$(
        impl $t {
            pub fn is_default(&self) -> bool { *self == Self::default() }
        }
    )*};
}
is_default!(
    RecursiveOptions,
    SentenceOptions,
    MarkdownOptions,
    LangchainOptions,
    SemanticOptions,
    EmbedTextOptions,
    JsonOptions,
    FastOptions,
    HierarchicalOptions,
    ClusterOptions,
    CodeOptions,
    LintOptions,
    LlmOptions,
    AgenticOptions,
    super::GenerateOptions
);
