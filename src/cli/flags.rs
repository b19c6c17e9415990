//! Applying the chunk flags to a config: the config file (or the defaults),
//! then each flag given, then the whole-config check. The declarations are
//! in `cli/args.rs`.

use super::args::ChunkFlags;
use crate::config::{ChunkConfig, ClusterObjective, KeepSeparator, SeparatorSide, StrategyKind, ThresholdType, Unit};
use crate::error::{Error, Result};
use crate::eval::model_choice::ModelSource;

impl ChunkFlags {
    /// The config file (or defaults) with every given flag applied, validated.
    pub fn resolve(&self) -> Result<ChunkConfig> {
        self.resolve_named().map(|(c, _)| c)
    }

    /// [`ChunkFlags::resolve`], and who named the embedding model: `--model`,
    /// the config file's `semantic.model`, or nobody (`None`: the document's
    /// language decides, see [`crate::eval::model_choice`]).
    /// `--llm-url`, `--llm-model` and `--llm-cache` over `c`'s `[llm]`, and
    /// `--embed-url`, `--embed-model` and `--embed-cache` over its `[embed]`:
    /// what a config file shared across machines may leave to each one.
    fn apply_llm(&self, c: &mut ChunkConfig) {
        if let Some(u) = &self.embed_url {
            c.embed.url = Some(u.clone());
        }
        if let Some(m) = &self.embed_model {
            c.embed.model = Some(m.clone());
        }
        if let Some(on) = self.embed_cache {
            c.embed.cache = on;
        }
        if let Some(u) = &self.llm_url {
            c.llm.url = Some(u.clone());
        }
        if let Some(m) = &self.llm_model {
            c.llm.model = Some(m.clone());
        }
        if let Some(on) = self.llm_cache {
            c.llm.cache = on;
        }
        if self.group_propositions {
            c.llm.group_propositions = true;
        }
        if let Some(fields) = &self.llm_enrich {
            c.llm.enrich = fields.iter().map(|f| f.trim().to_string()).filter(|f| !f.is_empty()).collect();
        }
    }

    pub fn resolve_named(&self) -> Result<(ChunkConfig, Option<ModelSource>)> {
        // Before any file is read.
        if let Some(name) = &self.format_in {
            crate::document::set_format_in(Some(crate::document::DocKind::parse(name)?));
        }
        let mut c = match &self.config {
            Some(path) => ChunkConfig::load_with(path, |c| self.apply_llm(c))?,
            None => ChunkConfig::default(),
        };
        // Before normalize() names the default model for a model strategy.
        let named = match (&self.model, c.semantic.model.is_some()) {
            (Some(_), _) => Some(ModelSource::Flag),
            (None, true) => Some(ModelSource::Config),
            (None, false) => None,
        };
        if let Some(s) = &self.strategy {
            c.strategy = StrategyKind::parse(s)?;
        }
        if let Some(u) = &self.unit {
            c.unit = Unit::parse(u)?;
            if let Some(forced) = c.strategy.spec().forces_unit.filter(|&f| f != c.unit) {
                return Err(Error::config(format!(
                    "{} always counts {forced}: drop --unit {u} (or use --unit {forced})",
                    c.strategy
                )));
            }
        }
        c.normalize();
        if let Some(t) = &self.tokenizer {
            c.tokenizer = t.clone();
        }
        if let Some(v) = &self.size {
            c.size = v.single("--size")?;
        }
        let level_sizes = self.levels.as_ref().filter(|_| c.strategy == StrategyKind::Hierarchical);
        if let Some(l) = level_sizes {
            c.hierarchical.levels = l.clone();
            c.normalize(); // the top level's size is `size`
        }
        if let Some(b) = &self.base {
            c.hierarchical.base = StrategyKind::parse(b)?;
            c.normalize();
        }
        if let Some(v) = &self.overlap {
            c.overlap = v.single("--overlap")?;
        } else if self.config.is_none() && (self.size.is_some() || level_sizes.is_some()) {
            c.overlap = ChunkConfig::overlap_for_size(c.size);
        }
        if let Some(p) = &self.preset {
            c.recursive.preset = p.clone();
            c.recursive.separators = None;
        }
        if let Some(l) = &self.language {
            c.code.language = Some(l.clone());
        }
        if let Some(json) = &self.separators {
            let list: Vec<String> = serde_json::from_str(json).map_err(|e| {
                Error::config(format!("--separators must be a JSON list of strings like '[\"\\n\\n\", \"。\"]': {e}"))
            })?;
            if c.strategy == StrategyKind::LangchainRecursive {
                c.langchain.separators = Some(list);
            } else {
                c.recursive.separators = Some(list);
            }
        }
        if let Some(s) = &self.separator {
            c.langchain.separator = s.clone();
        }
        if self.regex {
            c.recursive.is_regex = true;
            c.langchain.is_separator_regex = true;
        }
        if let Some(k) = &self.keep_separator {
            c.langchain.keep_separator = Some(match k.as_str() {
                "true" => KeepSeparator::Bool(true),
                "false" => KeepSeparator::Bool(false),
                "start" => KeepSeparator::Side(SeparatorSide::Start),
                "end" => KeepSeparator::Side(SeparatorSide::End),
                other => {
                    return Err(Error::config(format!("--keep-separator '{other}': use true, false, start or end")))
                }
            });
        }
        if self.no_strip {
            c.langchain.strip_whitespace = false;
        }
        if let Some(n) = self.max_sentences {
            c.sentence.max_sentences = n;
        }
        if let Some(n) = self.overlap_sentences {
            c.sentence.overlap_sentences = n;
        } else if let Some(max) = self.max_sentences.filter(|&m| m > 0) {
            // `--max-sentences 1` alone should not trip over the default overlap of 1 sentence.
            if self.config.is_none() && c.sentence.overlap_sentences >= max {
                c.sentence.overlap_sentences = max - 1;
            }
        }
        if let Some(l) = self.levels.as_ref().filter(|_| c.strategy != StrategyKind::Hierarchical) {
            c.markdown.levels = heading_levels(l)?;
        }
        if let Some(m) = &self.model {
            if self.embed_url.is_some() {
                return Err(Error::config(format!(
                    "--model {m} and --embed-url both name the embedding model: keep --model for an ONNX model \
                     run here, or --embed-url with --embed-model for an endpoint"
                )));
            }
            c.semantic.model = Some(m.clone());
        }
        self.apply_llm(&mut c);
        if let Some(p) = &self.model_prefix {
            c.semantic.prefix = Some(p.clone());
        }
        if let Some(n) = self.model_max_tokens {
            c.semantic.max_tokens = Some(n);
        }
        if let Some(t) = &self.threshold_type {
            let name = match t.as_str() {
                "std" => "standard_deviation",
                "iqr" => "interquartile",
                other => other,
            };
            c.semantic.threshold_type = ThresholdType::ALL.into_iter().find(|k| k.name() == name).ok_or_else(|| {
                let names: Vec<_> = ThresholdType::ALL.iter().map(|k| k.name()).collect();
                Error::config(format!("--threshold-type '{t}': use {}", names.join(", ")))
            })?;
        }
        if let Some(v) = &self.threshold {
            c.semantic.threshold = Some(v.single("--threshold")?);
        }
        if let Some(n) = self.buffer_size {
            c.semantic.buffer_size = n;
        }
        if let Some(n) = self.min_size {
            c.semantic.min_size = n;
        }
        if let Some(n) = self.piece_size {
            c.cluster.piece_size = n;
        }
        if let Some(o) = &self.cluster_objective {
            c.cluster.objective = ClusterObjective::ALL
                .into_iter()
                .find(|k| k.name() == o)
                .ok_or_else(|| Error::config(format!("--cluster-objective '{o}': use pairwise or adjacent")))?;
        }
        c.json.convert_lists |= self.json_convert_lists;
        if let Some(n) = self.json_min_chunk_size {
            c.json.min_chunk_size = Some(n);
        }
        if let Some(d) = &self.delimiters {
            c.fast.delimiters = unescape(d);
        }
        if let Some(p) = &self.pattern {
            c.fast.pattern = Some(unescape(p));
        }
        c.fast.prefix |= self.prefix;
        c.embed_text.enabled |= self.embed_text || self.embed_text_fit;
        c.embed_text.fit |= self.embed_text_fit;
        c.validate()?;
        Ok((c, named))
    }
}

/// `\n`, `\r`, `\t` and `\\` as the characters they name: a shell passes
/// them as two characters, and a delimiter is one. Any other backslash stays.
fn unescape(flag: &str) -> String {
    let mut out = String::with_capacity(flag.len());
    let mut chars = flag.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some(other) => out.extend(['\\', other]),
            None => out.push('\\'),
        }
    }
    out
}

/// `--levels` for markdown: heading levels 1 to 6.
fn heading_levels(levels: &[usize]) -> Result<Vec<u8>> {
    levels
        .iter()
        .map(|&n| match u8::try_from(n) {
            Ok(l) if (1..=6).contains(&l) => Ok(l),
            _ => Err(Error::config(format!(
                "--levels takes heading levels 1 to 6 separated by commas (like 1,2,3), not {n} \
                 (level sizes like 2048,512,128 are for --strategy hierarchical)"
            ))),
        })
        .collect()
}
