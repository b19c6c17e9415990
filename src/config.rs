//! The versioned chunking configuration: everything needed to reproduce a set
//! of chunks. Written by the workbench's export, read by `chunktui chunk
//! --config` and by library users. TOML or JSON, chosen by file extension.

use crate::error::{Error, Result};
use crate::strategy::OverlapRule;
pub use crate::strategy::StrategyKind;
use serde::{Deserialize, Serialize};
use std::path::Path;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Unicode code points (Python's `len(str)`).
    Chars,
    /// Unicode (UAX #29) words; each CJK ideograph counts as one word.
    Words,
    /// Tokens of the configured tokenizer.
    Tokens,
}

impl Unit {
    pub const ALL: [Unit; 3] = [Unit::Chars, Unit::Words, Unit::Tokens];
    pub fn name(self) -> &'static str {
        match self {
            Unit::Chars => "chars",
            Unit::Words => "words",
            Unit::Tokens => "tokens",
        }
    }
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "chars" | "characters" | "char" => Ok(Unit::Chars),
            "words" | "word" => Ok(Unit::Words),
            "tokens" | "token" => Ok(Unit::Tokens),
            _ => Err(Error::config(format!("unknown unit '{name}': use chars, words or tokens"))),
        }
    }
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

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
    #[serde(default, skip_serializing_if = "HierarchicalOptions::is_default")]
    pub hierarchical: HierarchicalOptions,
    #[serde(default, skip_serializing_if = "CodeOptions::is_default")]
    pub code: CodeOptions,
    #[serde(default, skip_serializing_if = "LintOptions::is_default")]
    pub lint: LintOptions,
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
            hierarchical: HierarchicalOptions::default(),
            code: CodeOptions::default(),
            lint: LintOptions::default(),
        }
    }
}

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

/// The config file's JSON Schema, generated from these types (what
/// `chunktui config schema` prints; assets/config.schema.json holds a copy
/// that tests/assets.rs keeps in step).
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(ChunkConfig);
    format!("{}\n", serde_json::to_string_pretty(&schema).expect("a schema serialises"))
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

/// Chunk lint (see [`crate::lint`]): which rules report, and the model
/// limit over-model-limit holds chunks to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LintOptions {
    /// Rules switched off, by name: mid-sentence, split-fence, split-table,
    /// orphan-heading, tiny-fragment, over-model-limit.
    pub off: Vec<String>,
    /// over-model-limit: the embedding model's largest input in tokens,
    /// special tokens included; `None` = `semantic.max_tokens`, else the
    /// default model's (256).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
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
    HierarchicalOptions,
    CodeOptions,
    LintOptions
);

impl ChunkConfig {
    /// The overlap that goes with a size given without one (on the command
    /// line or as keywords, without a config file): a fifth of it, as the
    /// defaults have it (140 of 700). Keeping 200 made `--size 300` overlap
    /// by two thirds, and gave three times the chunks.
    pub fn overlap_for_size(size: usize) -> usize {
        size / 5
    }

    /// Apply what a strategy implies: `langchain-token` always counts tokens;
    /// a model strategy records which model it uses (the default one by name),
    /// so an exported config says how its chunks were made.
    pub fn normalize(&mut self) {
        let spec = self.strategy.spec();
        if let Some(unit) = spec.forces_unit {
            self.unit = unit;
        }
        if spec.needs_model && self.semantic.model.is_none() {
            self.semantic.model = Some(DEFAULT_MODEL.to_string());
        }
        if self.embed_text.fit {
            self.embed_text.enabled = true;
        }
        if self.strategy == StrategyKind::Hierarchical {
            crate::strategy::hierarchical::normalize(self);
        }
    }

    /// Whether `overlap` (in `unit`) shapes this strategy's chunks.
    pub fn uses_overlap(&self) -> bool {
        self.strategy.spec().uses_overlap()
    }

    /// The overlap as this strategy applies it: "200 chars", "1 sentence", "none".
    pub fn overlap_label(&self) -> String {
        match self.strategy.spec().overlap {
            OverlapRule::Sentences => {
                let n = self.sentence.overlap_sentences;
                format!("{n} sentence{}", if n == 1 { "" } else { "s" })
            }
            OverlapRule::None => "none".to_string(),
            OverlapRule::Units => format!("{} {}", self.overlap, self.unit),
        }
    }

    /// Check the settings and explain every problem found, one per line.
    pub fn validate(&self) -> Result<()> {
        let mut problems = Vec::new();
        if self.version > CONFIG_VERSION {
            problems.push(format!(
                "config version {} is newer than this chunktui understands ({CONFIG_VERSION}): upgrade chunktui",
                self.version
            ));
        }
        if self.version == 0 {
            problems.push(format!("config version 0 does not exist: set version = {CONFIG_VERSION}"));
        }
        // The same separator limits Chunker::new enforces, so `config check`
        // refuses a list the chunker would refuse.
        if let Err(e) = crate::strategy::check_separator_limits(self) {
            problems.push(e.to_string());
        }
        let sized = self.strategy.spec().reads_size();
        if sized && self.size == 0 {
            problems.push("size must be at least 1: set --size to the largest chunk you want".to_string());
        }
        if sized && self.size > 0 && self.overlap >= self.size {
            problems.push(format!(
                "overlap ({}) must be smaller than size ({}): lower --overlap or raise --size",
                self.overlap, self.size
            ));
        }
        if let Some(rest) = self.tokenizer.strip_prefix("hf:") {
            if rest.is_empty() {
                problems.push("tokenizer 'hf:' needs a path: hf:/path/to/tokenizer.json".to_string());
            }
        } else if !crate::size::BUILTIN_TOKENIZERS.contains(&self.tokenizer.as_str()) {
            problems.push(format!(
                "unknown tokenizer '{}': use {} or hf:PATH to a tokenizer.json",
                self.tokenizer,
                crate::size::BUILTIN_TOKENIZERS.join(", ")
            ));
        }
        if self.markdown.levels.iter().any(|l| !(1..=6).contains(l)) {
            problems.push("markdown.levels must be heading levels 1 to 6".to_string());
        }
        self.validate_counts(&mut problems);
        self.validate_semantic(&mut problems);
        if let Some(problem) = crate::contextual::fit_problem(self) {
            problems.push(problem);
        }
        crate::strategy::hierarchical::problems(self, &mut problems);
        crate::lint::problems(self, &mut problems);
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::config(problems.join("\n")))
        }
    }

    /// Every size and count within [`MAX_COUNT`]; sentence overlap below the
    /// sentence limit.
    fn validate_counts(&self, problems: &mut Vec<String>) {
        let s = &self.semantic;
        let counts = [
            ("--size", "size", Some(self.size)),
            ("--overlap", "overlap", Some(self.overlap)),
            ("--max-sentences", "sentence.max_sentences", Some(self.sentence.max_sentences)),
            ("--overlap-sentences", "sentence.overlap_sentences", Some(self.sentence.overlap_sentences)),
            ("--buffer-size", "semantic.buffer_size", Some(s.buffer_size)),
            ("--min-size", "semantic.min_size", Some(s.min_size)),
            ("semantic.number_of_chunks", "semantic.number_of_chunks", s.number_of_chunks),
            ("--model-max-tokens", "semantic.max_tokens", s.max_tokens),
        ];
        for (flag, key, value) in counts {
            if let Some(v) = value.filter(|&v| v > MAX_COUNT) {
                let key = if flag == key { String::new() } else { format!(" ({key} in a config)") };
                problems.push(format!("{flag} {v} is too large: use at most {MAX_COUNT}{key}"));
            }
        }
        let (max, keep) = (self.sentence.max_sentences, self.sentence.overlap_sentences);
        if self.strategy.spec().overlap == OverlapRule::Sentences && max > 0 && keep >= max {
            problems.push(format!(
                "overlap_sentences ({keep}) must be smaller than max_sentences ({max}): \
                 lower --overlap-sentences or raise --max-sentences (0 = no sentence limit)"
            ));
        }
    }

    /// Thresholds that are numbers within their type's range; a minimum size
    /// the maximum leaves room for; a model input that holds some text.
    fn validate_semantic(&self, problems: &mut Vec<String>) {
        let s = &self.semantic;
        if let Some(t) = s.threshold {
            let kind = s.threshold_type.name();
            if !t.is_finite() {
                problems.push(format!(
                    "threshold {t} is not a number: give --threshold (semantic.threshold) a finite {kind} amount, \
                     or leave it out for the default"
                ));
            } else {
                match s.threshold_type {
                    ThresholdType::Percentile if !(0.0..=100.0).contains(&t) => {
                        problems.push(format!("a percentile threshold must be within 0..100, not {t}"))
                    }
                    ThresholdType::Gradient if !(0.0..=100.0).contains(&t) => problems.push(format!(
                        "a gradient threshold is a percentile of the distance gradients: within 0..100, not {t}"
                    )),
                    ThresholdType::Absolute if !(0.0..=2.0).contains(&t) => {
                        problems.push(format!("an absolute threshold is a cosine distance: within 0..2, not {t}"))
                    }
                    _ => {}
                }
            }
        }
        if s.number_of_chunks == Some(0) {
            problems
                .push("semantic.number_of_chunks must be at least 1 (or left out to use the threshold)".to_string());
        }
        // Strategies that cut an analysis within limits read both sizes.
        let capped = self.strategy.spec().recut.is_some();
        if capped && self.size > 0 && s.min_size > self.size {
            problems.push(format!(
                "min_size ({}) must not exceed size ({}): lower --min-size or raise --size",
                s.min_size, self.size
            ));
        }
        if let Some(n) = s.max_tokens.filter(|&n| n < MIN_MODEL_TOKENS) {
            problems.push(format!(
                "--model-max-tokens {n} leaves no room for text: use at least {MIN_MODEL_TOKENS} \
                 (the model's input size, e.g. 512), or leave it out to read it from the model directory"
            ));
        }
    }

    /// Read a config file (TOML, or JSON for `.json`), then validate it.
    pub fn load(path: &Path) -> Result<Self> {
        let text = crate::input::read_text_capped(path, &crate::input::Cap::settings("config file")?)?;
        let config =
            Self::parse(&text, is_json(path)).map_err(|e| Error::config(format!("{}: {e}", path.display())))?;
        config.validate().map_err(|e| Error::config(format!("{}: {e}", path.display())))?;
        Ok(config)
    }

    /// Parse config text without validating it.
    pub fn parse(text: &str, json: bool) -> Result<Self> {
        // Look at the version first: a file from a newer chunktui gets "upgrade",
        // not a confusing complaint about a key this build does not know.
        let (version, has_overlap) = if json {
            let v = serde_json::from_str::<serde_json::Value>(text).ok();
            let get = |key: &str| v.as_ref().and_then(|v| v.get(key)).cloned();
            (get("version").and_then(|v| v.as_u64()), get("overlap").is_some())
        } else {
            let t = toml::from_str::<toml::Table>(text).ok();
            let get = |key: &str| t.as_ref().and_then(|t| t.get(key)).cloned();
            (get("version").and_then(|v| v.as_integer()).map(|v| v as u64), get("overlap").is_some())
        };
        if let Some(v) = version {
            if v > CONFIG_VERSION as u64 {
                return Err(Error::config(format!(
                    "config version {v} is newer than this chunktui understands ({CONFIG_VERSION}): upgrade chunktui"
                )));
            }
        }
        let mut config: Self = if json {
            serde_json::from_str(text).map_err(|e| Error::config(clean_serde_message(&e.to_string())))?
        } else {
            toml::from_str(text).map_err(|e| Error::config(toml_message(text, &e)))?
        };
        // A missing overlap keeps its default, which follows the size: the
        // same rule as `--size` without `--overlap`.
        if !has_overlap {
            config.overlap = Self::overlap_for_size(config.size);
        }
        Ok(config)
    }

    pub fn to_toml(&self) -> String {
        let body = toml::to_string_pretty(self).expect("config serialises to TOML");
        format!("# chunktui chunking config. Reproduce these chunks with:\n#   chunktui chunk FILE --config THIS_FILE\n{body}")
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("config serialises to JSON") + "\n"
    }

    /// Write to `path` as TOML or JSON (by extension), atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = if is_json(path) { self.to_json() } else { self.to_toml() };
        crate::export::write_atomic(path, text.as_bytes())
    }
}

fn is_json(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

fn clean_serde_message(msg: &str) -> String {
    msg.trim().replace('\n', " ")
}

/// A TOML error on one line, saying where: `line 4, column 8, key size:
/// invalid type: string "big", expected a whole number`.
fn toml_message(text: &str, err: &toml::de::Error) -> String {
    let what = plain_types(&clean_serde_message(err.message()));
    let Some(span) = err.span() else { return what };
    // A missing key has no place of its own (the span is the whole table).
    if what.starts_with("missing field") {
        return format!("{what}: add it (`chunktui config init` prints every key with its default)");
    }
    let mut at = span.start.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let column = before[line_start..].chars().count() + 1;
    match toml_key_at(text, line_start) {
        Some(key) => format!("line {line}, column {column}, key {key}: {what}"),
        None => format!("line {line}, column {column}: {what}"),
    }
}

/// The dotted key set on the line starting at `line_start` (with the table
/// it is in), or the table a `[header]` line names.
fn toml_key_at(text: &str, line_start: usize) -> Option<String> {
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    let header = |l: &str| -> Option<String> {
        let l = l.split('#').next().unwrap_or("").trim();
        let name = l.strip_prefix('[')?.trim_start_matches('[');
        let name = name.split(']').next()?.trim();
        Some(unquote_key(name))
    };
    if line.starts_with('[') {
        return header(line).filter(|h| !h.is_empty());
    }
    let (key, _) = line.split_once('=')?;
    let key = unquote_key(key.trim());
    if key.is_empty() || key.starts_with('#') {
        return None;
    }
    let table = text[..line_start].lines().rev().find_map(|l| {
        let l = l.trim();
        if l.starts_with('[') {
            header(l)
        } else {
            None
        }
    });
    Some(match table.filter(|t| !t.is_empty()) {
        Some(t) => format!("{t}.{key}"),
        None => key,
    })
}

fn unquote_key(key: &str) -> String {
    key.split('.').map(|part| part.trim().trim_matches(|c| c == '"' || c == '\'')).collect::<Vec<_>>().join(".")
}

/// serde's Rust type names in words a config writer knows.
fn plain_types(msg: &str) -> String {
    let mut out = msg.to_string();
    for (rust, plain) in [
        ("expected usize", "expected a whole number"),
        ("expected u64", "expected a whole number"),
        ("expected u32", "expected a whole number"),
        ("expected u8", "expected a whole number"),
        ("expected f64", "expected a number"),
    ] {
        out = out.replace(rust, plain);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn langchain_token_always_counts_tokens() {
        let mut c = ChunkConfig { strategy: StrategyKind::LangchainToken, unit: Unit::Chars, ..Default::default() };
        c.normalize();
        assert_eq!(c.unit, Unit::Tokens);
    }

    #[test]
    fn overlap_label_says_how_the_strategy_overlaps() {
        let mut c = ChunkConfig { overlap: 50, ..Default::default() };
        assert_eq!(c.overlap_label(), "50 chars");
        c.strategy = StrategyKind::Sentence;
        assert_eq!(c.overlap_label(), "1 sentence");
        c.strategy = StrategyKind::Semantic;
        assert_eq!(c.overlap_label(), "none");
    }

    #[test]
    fn validate_lists_every_problem() {
        let c = ChunkConfig { size: 0, tokenizer: "gpt5".into(), ..Default::default() };
        let msg = c.validate().unwrap_err().to_string();
        assert!(msg.contains("size must be at least 1") && msg.contains("unknown tokenizer 'gpt5'"), "{msg}");
    }

    fn problems(c: &ChunkConfig) -> String {
        c.validate().err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn counts_beyond_the_bound_are_refused_by_name() {
        let mut c =
            ChunkConfig { strategy: StrategyKind::LangchainCharacter, size: 1 << 63, overlap: 0, ..Default::default() };
        assert!(
            problems(&c).contains("--size 9223372036854775808 is too large: use at most 4294967295"),
            "{}",
            problems(&c)
        );
        c.size = MAX_COUNT;
        assert_eq!(problems(&c), "");
        c.strategy = StrategyKind::LangchainSemantic;
        c.semantic.buffer_size = usize::MAX;
        c.semantic.number_of_chunks = Some(usize::MAX);
        let msg = problems(&c);
        assert!(
            msg.contains("--buffer-size 18446744073709551615 is too large") && msg.contains("semantic.buffer_size"),
            "{msg}"
        );
        assert!(msg.contains("semantic.number_of_chunks 18446744073709551615 is too large"), "{msg}");
        c.semantic.buffer_size = MAX_COUNT;
        c.semantic.number_of_chunks = Some(0);
        assert!(problems(&c).contains("number_of_chunks must be at least 1"), "{}", problems(&c));
    }

    #[test]
    fn thresholds_must_be_finite_and_in_range() {
        for t in [
            ThresholdType::Percentile,
            ThresholdType::StandardDeviation,
            ThresholdType::Interquartile,
            ThresholdType::Gradient,
            ThresholdType::Absolute,
        ] {
            for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let mut c = ChunkConfig { strategy: StrategyKind::Semantic, ..Default::default() };
                c.semantic.threshold_type = t;
                c.semantic.threshold = Some(x);
                assert!(problems(&c).contains("is not a number"), "{t:?} {x}: {}", problems(&c));
            }
        }
        let mut c = ChunkConfig { strategy: StrategyKind::Semantic, ..Default::default() };
        c.semantic.threshold_type = ThresholdType::Gradient;
        c.semantic.threshold = Some(101.0);
        assert!(problems(&c).contains("within 0..100, not 101"), "{}", problems(&c));
        c.semantic.threshold_type = ThresholdType::Absolute;
        assert!(problems(&c).contains("cosine distance: within 0..2"), "{}", problems(&c));
        c.semantic.threshold = Some(0.3);
        assert_eq!(problems(&c), "");
        c.semantic.threshold_type = ThresholdType::StandardDeviation;
        c.semantic.threshold = Some(-1.5);
        assert_eq!(problems(&c), "");
    }

    #[test]
    fn sentence_min_size_and_model_limits() {
        let mut c = ChunkConfig { strategy: StrategyKind::Sentence, ..Default::default() };
        c.sentence.max_sentences = 0; // no sentence limit: any overlap
        c.sentence.overlap_sentences = 3;
        assert_eq!(problems(&c), "");
        c.sentence.max_sentences = 3;
        assert!(
            problems(&c).contains("overlap_sentences (3) must be smaller than max_sentences (3)"),
            "{}",
            problems(&c)
        );
        c.sentence.overlap_sentences = 2;
        assert_eq!(problems(&c), "");
        let mut c = ChunkConfig { strategy: StrategyKind::Adaptive, size: 100, overlap: 0, ..Default::default() };
        c.semantic.min_size = 101;
        assert!(problems(&c).contains("min_size (101) must not exceed size (100)"), "{}", problems(&c));
        c.semantic.min_size = 100;
        assert_eq!(problems(&c), "");
        c.semantic.max_tokens = Some(0);
        assert!(problems(&c).contains("--model-max-tokens 0 leaves no room"), "{}", problems(&c));
    }

    #[test]
    fn toml_errors_say_line_column_and_key() {
        let text = "version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = \"big\"\n";
        let msg = ChunkConfig::parse(text, false).unwrap_err().to_string();
        assert_eq!(msg, "line 4, column 8, key size: invalid type: string \"big\", expected a whole number");
        let text = "version = 1\nstrategy = \"semantic\"\nunit = \"chars\"\nsize = 9\n\n[semantic]\n# note\nthreshold = \"x\"\n";
        let msg = ChunkConfig::parse(text, false).unwrap_err().to_string();
        assert!(msg.starts_with("line 8, column 13, key semantic.threshold: "), "{msg}");
        assert!(msg.ends_with("expected a number"), "{msg}");
        let text = "version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 9\ncolour = 3\n";
        let msg = ChunkConfig::parse(text, false).unwrap_err().to_string();
        assert!(msg.starts_with("line 5, column 1, key colour: unknown field `colour`"), "{msg}");
        let msg = ChunkConfig::parse("version = 1\nunit = \"chars\nsize = 1\n", false).unwrap_err().to_string();
        assert!(msg.starts_with("line 2, column "), "{msg}");
        assert!(!msg.contains('\n'), "{msg}");
    }
}
