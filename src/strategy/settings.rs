//! What a config means to the strategy it names: the settings a strategy
//! implies ([`ChunkConfig::normalize`]), how it overlaps, and the checks of
//! every setting a strategy reads ([`ChunkConfig::strategy_problems`]). The whole-config check, with
//! lint and embed-text problems too, is [`crate::validate`].

use super::{check_separator_limits, OverlapRule};
use crate::config::{
    ChunkConfig, StrategyKind, ThresholdType, CONFIG_VERSION, DEFAULT_MODEL, MAX_COUNT, MIN_MODEL_TOKENS,
};
use crate::error::{Error, Result};

/// [`ChunkConfig::strategy_problems`] as one error, or nothing.
pub fn check(config: &ChunkConfig) -> Result<()> {
    let problems = config.strategy_problems();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Error::config(problems.join("\n")))
    }
}

impl ChunkConfig {
    /// Apply what a strategy implies: `langchain-token` always counts tokens;
    /// a model strategy records which model it uses (the default one by name),
    /// so an exported config says how its chunks were made.
    pub fn normalize(&mut self) {
        let spec = self.strategy.spec();
        if let Some(unit) = spec.forces_unit {
            self.unit = unit;
        }
        if spec.needs_model && self.semantic.model.is_none() && !self.embed.is_set() {
            self.semantic.model = Some(DEFAULT_MODEL.to_string());
        }
        // A row means something only under its column names: `rows` always
        // gives the embed text that starts with them.
        if self.embed_text.fit || self.strategy == StrategyKind::Rows {
            self.embed_text.enabled = true;
        }
        if self.strategy == StrategyKind::Hierarchical {
            super::hierarchical::normalize(self);
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

    /// Every problem of the settings the strategies read, one line each:
    /// what [`Configured::new`](super::Configured::new) refuses. The
    /// whole-config check ([`ChunkConfig::validate`]) adds lint's and embed
    /// text's.
    pub fn strategy_problems(&self) -> Vec<String> {
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
        if let Err(e) = check_separator_limits(self) {
            problems.push(e.to_string());
        }
        problems.extend(crate::edits::problems(&self.edits));
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
        if self.unit == crate::size::Unit::Bytes && self.strategy.spec().forces_unit != Some(crate::size::Unit::Bytes) {
            problems.push(format!(
                "unit bytes is a byte budget only the fast strategy cuts by: use --unit chars, words or tokens with \
                 {}, or --strategy fast",
                self.strategy
            ));
        }
        if self.strategy == StrategyKind::Fast {
            problems.extend(super::fast::problems(self));
        }
        self.validate_counts(&mut problems);
        self.validate_semantic(&mut problems);
        super::hierarchical::problems(self, &mut problems);
        super::semantic::cluster::problems(self, &mut problems);
        super::llm::agentic::problems(self, &mut problems);
        if !self.llm.enrich.is_empty() {
            problems.extend(crate::llm::enrich_problems(&self.llm.enrich));
            #[cfg(feature = "llm")]
            problems.extend(crate::llm::client::problems(&self.llm));
        }
        // An agentic plan replays without the LLM.
        let replay = self.strategy == StrategyKind::Agentic && !self.agentic.plan.is_empty();
        if self.strategy.needs_llm() && !replay {
            #[cfg(feature = "llm")]
            problems.extend(crate::llm::client::problems(&self.llm));
            #[cfg(not(feature = "llm"))]
            problems.push(format!("strategy '{}' needs the 'llm' feature: rebuild chunktui with it", self.strategy));
        }
        problems
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
            ("--piece-size", "cluster.piece_size", Some(self.cluster.piece_size)),
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Unit;

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
}
