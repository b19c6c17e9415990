//! The versioned chunking configuration: everything needed to reproduce a set
//! of chunks. Written by the workbench's export, read by `chunktui chunk
//! --config` and by library users. TOML or JSON, chosen by file extension.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The config format version this build writes and reads.
pub const CONFIG_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StrategyKind {
    Fixed,
    Recursive,
    Sentence,
    Markdown,
    Document,
    LangchainCharacter,
    LangchainRecursive,
    LangchainToken,
    LangchainMarkdownHeader,
    LangchainSemantic,
    Semantic,
    SemanticGrouping,
    Adaptive,
    Late,
}

impl StrategyKind {
    pub const ALL: [StrategyKind; 14] = [
        StrategyKind::Fixed,
        StrategyKind::Recursive,
        StrategyKind::Sentence,
        StrategyKind::Markdown,
        StrategyKind::Document,
        StrategyKind::LangchainCharacter,
        StrategyKind::LangchainRecursive,
        StrategyKind::LangchainToken,
        StrategyKind::LangchainMarkdownHeader,
        StrategyKind::LangchainSemantic,
        StrategyKind::Semantic,
        StrategyKind::SemanticGrouping,
        StrategyKind::Adaptive,
        StrategyKind::Late,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StrategyKind::Fixed => "fixed",
            StrategyKind::Recursive => "recursive",
            StrategyKind::Sentence => "sentence",
            StrategyKind::Markdown => "markdown",
            StrategyKind::Document => "document",
            StrategyKind::LangchainCharacter => "langchain-character",
            StrategyKind::LangchainRecursive => "langchain-recursive",
            StrategyKind::LangchainToken => "langchain-token",
            StrategyKind::LangchainMarkdownHeader => "langchain-markdown-header",
            StrategyKind::LangchainSemantic => "langchain-semantic",
            StrategyKind::Semantic => "semantic",
            StrategyKind::SemanticGrouping => "semantic-grouping",
            StrategyKind::Adaptive => "adaptive",
            StrategyKind::Late => "late",
        }
    }

    pub fn parse(name: &str) -> Result<Self> {
        StrategyKind::ALL.into_iter().find(|k| k.name() == name).ok_or_else(|| {
            let names: Vec<_> = StrategyKind::ALL.iter().map(|k| k.name()).collect();
            Error::config(format!("unknown strategy '{name}': use one of {}", names.join(", ")))
        })
    }

    /// Strategies that need an embedding model.
    pub fn needs_model(self) -> bool {
        matches!(
            self,
            StrategyKind::LangchainSemantic
                | StrategyKind::Semantic
                | StrategyKind::SemanticGrouping
                | StrategyKind::Adaptive
                | StrategyKind::Late
        )
    }

    /// Strategies whose chunks must stay within `size`. LangChain's do not
    /// promise it: they add up piece lengths (token counts of pieces are not
    /// the count of the joined chunk) and pass unsplittable pieces through.
    pub fn promises_size_limit(self) -> bool {
        !matches!(
            self,
            StrategyKind::Document
                | StrategyKind::LangchainMarkdownHeader
                | StrategyKind::LangchainSemantic
                | StrategyKind::LangchainCharacter
                | StrategyKind::LangchainRecursive
                | StrategyKind::LangchainToken
        )
    }
}

impl std::fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
/// (any other model is named by its directory).
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2-int8";

/// The tokenizer used when `unit = "tokens"` and none is named.
pub const DEFAULT_TOKENIZER: &str = "cl100k_base";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkConfig {
    /// Config format version; files from a newer chunktui are refused.
    pub version: u32,
    pub strategy: StrategyKind,
    pub unit: Unit,
    /// `cl100k_base`, `o200k_base`, or `hf:PATH` to a HuggingFace tokenizer.json.
    /// Used for `unit = "tokens"` and for token counts shown beside chunks.
    #[serde(default = "default_tokenizer")]
    pub tokenizer: String,
    /// Maximum chunk size in `unit`.
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
}

fn default_tokenizer() -> String {
    DEFAULT_TOKENIZER.to_string()
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig {
            version: CONFIG_VERSION,
            strategy: StrategyKind::Recursive,
            unit: Unit::Chars,
            tokenizer: default_tokenizer(),
            size: 1000,
            overlap: 200,
            recursive: RecursiveOptions::default(),
            sentence: SentenceOptions::default(),
            markdown: MarkdownOptions::default(),
            langchain: LangchainOptions::default(),
            semantic: SemanticOptions::default(),
        }
    }
}

/// Separators for `recursive`: a named preset or an explicit list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecursiveOptions {
    /// `english`, `chinese`, `markdown`, `rust`, `python`, `javascript`, `go`,
    /// `java`, `c`; ignored when `separators` is set.
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MarkdownOptions {
    /// Heading levels that start a new chunk (1 = `#`).
    pub levels: Vec<u8>,
}

impl Default for MarkdownOptions {
    fn default() -> Self {
        MarkdownOptions { levels: vec![1, 2, 3] }
    }
}

/// Keep-separator modes of LangChain's splitters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum KeepSeparator {
    Bool(bool),
    Side(SeparatorSide),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeparatorSide {
    Start,
    End,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThresholdType {
    Percentile,
    StandardDeviation,
    Interquartile,
    Gradient,
    /// An absolute cosine-distance threshold.
    Absolute,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SemanticOptions {
    /// Model directory (ONNX export + tokenizer.json); `None` = the default
    /// model installed by `chunktui setup`.
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

macro_rules! is_default {
    ($($t:ty),*) => {$(
        impl $t {
            pub fn is_default(&self) -> bool { *self == Self::default() }
        }
    )*};
}
is_default!(RecursiveOptions, SentenceOptions, MarkdownOptions, LangchainOptions, SemanticOptions);

impl ChunkConfig {
    /// Apply what a strategy implies: `langchain-token` always counts tokens;
    /// a model strategy records which model it uses (the default one by name),
    /// so an exported config says how its chunks were made.
    pub fn normalize(&mut self) {
        if self.strategy == StrategyKind::LangchainToken {
            self.unit = Unit::Tokens;
        }
        if self.strategy.needs_model() && self.semantic.model.is_none() {
            self.semantic.model = Some(DEFAULT_MODEL.to_string());
        }
    }

    /// Whether `overlap` (in `unit`) shapes this strategy's chunks.
    pub fn uses_overlap(&self) -> bool {
        !matches!(
            self.strategy,
            StrategyKind::Sentence
                | StrategyKind::Document
                | StrategyKind::LangchainMarkdownHeader
                | StrategyKind::LangchainSemantic
                | StrategyKind::Semantic
                | StrategyKind::SemanticGrouping
                | StrategyKind::Adaptive
        )
    }

    /// The overlap as this strategy applies it: "200 chars", "1 sentence", "none".
    pub fn overlap_label(&self) -> String {
        match self.strategy {
            StrategyKind::Sentence => {
                let n = self.sentence.overlap_sentences;
                format!("{n} sentence{}", if n == 1 { "" } else { "s" })
            }
            _ if !self.uses_overlap() => "none".to_string(),
            _ => format!("{} {}", self.overlap, self.unit),
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
        let sized = !matches!(
            self.strategy,
            StrategyKind::Document | StrategyKind::LangchainMarkdownHeader | StrategyKind::LangchainSemantic
        );
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
        if let Some(t) = self.semantic.threshold {
            if self.semantic.threshold_type == ThresholdType::Percentile && !(0.0..=100.0).contains(&t) {
                problems.push(format!("a percentile threshold must be within 0..100, not {t}"));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::config(problems.join("\n")))
        }
    }

    /// Read a config file (TOML, or JSON for `.json`), then validate it.
    pub fn load(path: &Path) -> Result<Self> {
        let text = crate::input::read_text_capped(path, &crate::input::Cap::settings("config file")?)?;
        let config = Self::parse(&text, is_json(path))
            .map_err(|e| Error::config(format!("{}: {e}", path.display())))?;
        config.validate().map_err(|e| Error::config(format!("{}: {e}", path.display())))?;
        Ok(config)
    }

    /// Parse config text without validating it.
    pub fn parse(text: &str, json: bool) -> Result<Self> {
        // Look at the version first: a file from a newer chunktui gets "upgrade",
        // not a confusing complaint about a key this build does not know.
        let version = if json {
            serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|v| v.get("version").and_then(|v| v.as_u64()))
        } else {
            toml::from_str::<toml::Table>(text).ok().and_then(|t| t.get("version").and_then(|v| v.as_integer()).map(|v| v as u64))
        };
        if let Some(v) = version {
            if v > CONFIG_VERSION as u64 {
                return Err(Error::config(format!(
                    "config version {v} is newer than this chunktui understands ({CONFIG_VERSION}): upgrade chunktui"
                )));
            }
        }
        if json {
            serde_json::from_str(text).map_err(|e| Error::config(clean_serde_message(&e.to_string())))
        } else {
            toml::from_str(text).map_err(|e| Error::config(clean_serde_message(e.message())))
        }
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
}
