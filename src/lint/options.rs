//! What a lint run measures with: the enabled rules, the sizer, how
//! over-model-limit counts tokens and its limit; and the `[lint]` config checks.

use super::{Rule, Scope, RULES};
use crate::config::ChunkConfig;
use crate::document::DocKind;
use crate::error::{Error, Result};
use crate::size::{Sizer, Tokenizer};

/// Config problems of `[lint]`, for [`ChunkConfig::validate`].
pub fn problems(c: &ChunkConfig, problems: &mut Vec<String>) {
    let unknown: Vec<&str> = c.lint.off.iter().map(String::as_str).filter(|n| Rule::parse(n).is_none()).collect();
    if !unknown.is_empty() {
        problems.push(format!(
            "lint.off names unknown rule{} {}: use {}",
            if unknown.len() == 1 { "" } else { "s" },
            unknown.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", "),
            RULES.iter().map(|r| r.name).collect::<Vec<_>>().join(", ")
        ));
    }
    match c.lint.max_tokens {
        Some(0) => problems.push("lint.max_tokens must be at least 1 (the model's input size, e.g. 256)".into()),
        Some(n) if n > crate::config::MAX_COUNT => {
            problems.push(format!("lint.max_tokens {n} is too large: use at most {}", crate::config::MAX_COUNT))
        }
        _ => {}
    }
}

/// The default model's largest input (`max_seq_length` in
/// `assets/models.toml`, specials included): what over-model-limit holds
/// chunks to when neither `lint.max_tokens` nor `semantic.max_tokens` says.
pub fn default_model_max_tokens() -> usize {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| {
        let models: toml::Table = toml::from_str(include_str!("../../assets/models.toml")).expect("models.toml parses");
        let max = models.get("model").and_then(|m| m.get("max_seq_length")).and_then(|v| v.as_integer());
        max.expect("assets/models.toml has model.max_seq_length") as usize
    })
}

/// The rules on for a document of `kind` under `config`.
pub fn rules_for(config: &ChunkConfig, kind: DocKind) -> Vec<Rule> {
    let mut config = config.clone();
    config.normalize();
    enabled(&config, kind)
}

/// [`rules_for`] a normalized config.
fn enabled(config: &ChunkConfig, kind: DocKind) -> Vec<Rule> {
    let applies = |scope| match scope {
        Scope::Any => true,
        // A record is as long as it is: short ones are not fragments.
        Scope::Documents => !kind.is_records(),
        Scope::Edits => !config.edits.is_empty(),
        Scope::Prose => matches!(kind, DocKind::Text | DocKind::Markdown),
        Scope::Markdown => kind == DocKind::Markdown,
    };
    RULES
        .iter()
        .filter(|r| r.default_on && !config.lint.off.iter().any(|o| o == r.name) && applies(r.scope))
        .map(|r| r.rule)
        .collect()
}

/// Less text than this is counted on one thread: a thread's start and its
/// cold memo of word counts would cost more than they save.
const PARALLEL_BYTES: usize = 1 << 20;

/// How over-model-limit counts: the model's own tokenizer when it is known
/// (its `tokenizer.json`; special tokens counted as the model adds them),
/// else the config's tokenizer, an estimate (cl100k_base and a WordPiece
/// vocabulary disagree by some percent on English, more on CJK).
#[derive(Debug, Clone)]
pub struct TokenCount {
    pub tokenizer: Tokenizer,
    /// Tokens the model adds around every input ([CLS] … [SEP]: 2).
    pub specials: usize,
    /// The tokenizer is the model's own.
    pub model: bool,
}

impl TokenCount {
    /// Count with a model's tokenizer (its special tokens included).
    pub fn model(tokenizer: Tokenizer) -> TokenCount {
        let specials = match &tokenizer {
            Tokenizer::HuggingFace { inner, .. } => inner.encode("", true).map_or(0, |e| e.get_ids().len()),
            Tokenizer::Tiktoken { .. } => 0,
        };
        TokenCount { tokenizer, specials, model: true }
    }

    /// The tokens of `text` as the model would read them.
    pub fn count(&self, text: &str) -> usize {
        self.tokenizer.count(text) + self.specials
    }

    /// [`TokenCount::count`] of each of `texts`, on every core when there
    /// is enough to count (lint counts every chunk of a document: `stats`
    /// must stay near `chunk`'s time).
    pub fn count_all(&self, texts: &[&str]) -> Vec<usize> {
        let bytes: usize = texts.iter().map(|t| t.len()).sum();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
        if threads < 2 || bytes < PARALLEL_BYTES {
            return texts.iter().map(|t| self.count(t)).collect();
        }
        let part = texts.len().div_ceil(threads);
        std::thread::scope(|scope| {
            let parts: Vec<_> = texts
                .chunks(part)
                .map(|p| scope.spawn(move || p.iter().map(|t| self.count(t)).collect::<Vec<_>>()))
                .collect();
            parts.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        })
    }
}

/// Everything a lint run needs besides the text and the chunks: the enabled
/// rules, what to measure with. Built once per config and document kind.
#[derive(Debug, Clone)]
pub struct LintOptions {
    /// Normalised (a hierarchical config's levels filled in).
    pub config: ChunkConfig,
    pub rules: Vec<Rule>,
    /// Sizes in the config's unit (is a split block small enough for one chunk?).
    pub sizer: Sizer,
    /// For over-model-limit; None when that rule is off.
    pub tokens: Option<TokenCount>,
    /// over-model-limit's limit, specials included.
    pub max_tokens: usize,
}

impl LintOptions {
    /// The rules the config leaves on that apply to `kind`; tokens under the
    /// config's tokenizer (see [`LintOptions::counting`] for the model's).
    pub fn new(config: &ChunkConfig, kind: DocKind) -> Result<LintOptions> {
        Self::counting(config, kind, None)
    }

    /// [`LintOptions::new`], with over-model-limit counting with `model`
    /// when given (else with the config's tokenizer, an estimate). Nothing
    /// is loaded for a rule that is off.
    pub fn counting(config: &ChunkConfig, kind: DocKind, model: Option<TokenCount>) -> Result<LintOptions> {
        let mut config = config.clone();
        config.normalize();
        let mut problems = Vec::new();
        self::problems(&config, &mut problems);
        if !problems.is_empty() {
            return Err(Error::config(problems.join("\n")));
        }
        let rules = enabled(&config, kind);
        let sizer = Sizer::for_unit(config.unit, &config.tokenizer)?;
        let tokens = match (rules.contains(&Rule::OverModelLimit), model) {
            (false, _) => None,
            (true, Some(model)) => Some(model),
            (true, None) => {
                Some(TokenCount { tokenizer: Tokenizer::load(&config.tokenizer)?, specials: 0, model: false })
            }
        };
        let endpoint = config.embed.is_set().then(|| config.embed.input_limit()).flatten();
        let max_tokens =
            config.lint.max_tokens.or(endpoint).or(config.semantic.max_tokens).unwrap_or_else(default_model_max_tokens);
        Ok(LintOptions { config, rules, sizer, tokens, max_tokens })
    }

    /// Count with the embedding model's own tokenizer when it is installed
    /// (see [`model_tokens`]); otherwise with the config's tokenizer.
    #[cfg(feature = "embed")]
    pub fn with_model_tokenizer(config: &ChunkConfig, kind: DocKind) -> Result<LintOptions> {
        let on = !config.lint.off.iter().any(|o| o == Rule::OverModelLimit.name());
        Self::counting(config, kind, if on { model_tokens(config) } else { None })
    }

    pub fn enabled(&self, rule: Rule) -> bool {
        self.rules.contains(&rule)
    }
}

/// The tokens of the config's embedding model, counted with its own
/// `tokenizer.json` (`semantic.model`'s directory, else the default model's),
/// when that file is there.
#[cfg(feature = "embed")]
pub fn model_tokens(config: &ChunkConfig) -> Option<TokenCount> {
    if config.embed.is_set() {
        // An endpoint's own tokenizer is known only for OpenAI's models
        // (cl100k_base); for others the config's tokenizer estimates.
        let openai = config.embed.max_input_tokens.is_none() && config.embed.input_limit().is_some();
        return openai.then(|| Tokenizer::load("cl100k_base").ok().map(TokenCount::model)).flatten();
    }
    let dir = crate::embed::model_dir_for(config.semantic.model.as_deref());
    let file = dir.map(|d| d.join("tokenizer.json")).filter(|f| f.is_file())?;
    Tokenizer::load(&format!("hf:{}", file.display())).ok().map(TokenCount::model)
}
