//! chonkie (1.7.0): `TokenChunker`, `RecursiveChunker` with chunktui's
//! separator levels as `RecursiveRules`, `SentenceChunker`,
//! `SemanticChunker`, `LateChunker` and `FastChunker`.

use super::literals::{py_bool, py_call, py_list, py_str};
use super::snippet::{hf_tokenizer, lookup, model_id, sentence_notes, Fidelity, Snippet, SENTENCE_ENDS};
use crate::config::{ChunkConfig, KeepSeparator, SeparatorSide, StrategyKind, ThresholdType, Unit};
use crate::strategy::recursive::{Sep, Separators};

const MAPPINGS: &[(StrategyKind, Fidelity)] = &[
    (
        StrategyKind::Fixed,
        Fidelity::Close("TokenChunker cuts windows of the size with the overlap; token windows are decoded"),
    ),
    (
        StrategyKind::Recursive,
        Fidelity::Close("RecursiveChunker with chunktui's separator levels as rules; it has no overlap"),
    ),
    (
        StrategyKind::Sentence,
        Fidelity::Close("SentenceChunker packs sentences up to the size; its overlap counts units"),
    ),
    (
        StrategyKind::Markdown,
        Fidelity::Close("RecursiveChunker with the heading levels as its first rules; no heading path, no overlap"),
    ),
    (
        StrategyKind::LangchainCharacter,
        Fidelity::Close("RecursiveChunker with the one separator as its rule; no overlap, no whitespace stripping"),
    ),
    (
        StrategyKind::LangchainRecursive,
        Fidelity::Close("RecursiveChunker with one rule per separator; its merge differs and it has no overlap"),
    ),
    (
        StrategyKind::LangchainToken,
        Fidelity::Close("TokenChunker over the same tiktoken encoding: windows of the size with the overlap"),
    ),
    (
        StrategyKind::LangchainSemantic,
        Fidelity::Close("SemanticChunker: a similarity threshold over sentence windows, not LangChain's statistics"),
    ),
    (StrategyKind::Semantic, Fidelity::Close("SemanticChunker cuts where sentence similarity drops, within a size")),
    (
        StrategyKind::SemanticGrouping,
        Fidelity::Close("SemanticChunker groups similar sentences within a window, within a size"),
    ),
    (StrategyKind::Adaptive, Fidelity::Close("SemanticChunker: one similarity threshold, within a size")),
    (
        StrategyKind::Cluster,
        Fidelity::Close(
            "SemanticChunker cuts greedily at a similarity threshold; no chonkie chunker chooses all boundaries \
             together (Chroma's ClusterSemanticChunker, in chunking_evaluation, does, and is not on PyPI)",
        ),
    ),
    (
        StrategyKind::Late,
        Fidelity::Close("LateChunker: recursive boundaries, chunk vectors pooled from token embeddings"),
    ),
    (
        StrategyKind::Fast,
        Fidelity::Close(
            "FastChunker with the same budget, delimiters, pattern and prefix: the same chunks when the delimiters \
             are ASCII and no budget falls inside a character (chonkie reads delimiters as bytes, and can end a \
             chunk inside a UTF-8 character)",
        ),
    ),
    (StrategyKind::Document, Fidelity::None("the whole file is one chunk: no chunker is needed")),
    (
        StrategyKind::LangchainMarkdownHeader,
        Fidelity::None("chonkie has no heading splitter without a size; see the markdown strategy's RecursiveChunker"),
    ),
    (StrategyKind::Hierarchical, Fidelity::None("chonkie has no multi-level chunker")),
    (StrategyKind::Llm, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
    (StrategyKind::Propositions, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
    (StrategyKind::Agentic, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
];

pub(super) fn mapping(kind: StrategyKind) -> Fidelity {
    lookup(MAPPINGS, kind)
}

const CHONKIE: &str = "chonkie==1.7.0";

pub(super) fn write(config: &ChunkConfig, s: &mut Snippet) {
    s.need(CHONKIE);
    let imp = |s: &mut Snippet, class: &str| s.import(&format!("from chonkie import {class}"));
    let size = ("chunk_size", config.size.to_string());
    let splitter = match config.strategy {
        StrategyKind::Fixed | StrategyKind::LangchainToken => {
            imp(s, "TokenChunker");
            if config.unit == Unit::Tokens {
                s.note("token windows are decoded: a window that cuts a character shows U+FFFD there");
            }
            py_call(
                "TokenChunker",
                &[("tokenizer", tokenizer(config, s)), size, ("chunk_overlap", config.overlap.to_string())],
            )
        }
        StrategyKind::Fast => {
            imp(s, "FastChunker");
            let fast = &config.fast;
            if fast.pattern.is_none() && !fast.delimiters.is_ascii() {
                s.note(format!(
                    "delimiters {:?}: chonkie cuts at each of their bytes, so inside the multi-byte ones; \
                     keep ASCII delimiters (or a pattern) for the same chunks",
                    fast.delimiters
                ));
            }
            let mut args = vec![size, ("delimiters", py_str(&fast.delimiters))];
            if let Some(p) = &fast.pattern {
                args.push(("pattern", py_str(p)));
            }
            args.push(("prefix", py_bool(fast.prefix)));
            py_call("FastChunker", &args)
        }
        StrategyKind::Sentence => {
            imp(s, "SentenceChunker");
            sentence_notes(config, s, "a list of sentence ends here");
            let delims = sentence_delims();
            py_call(
                "SentenceChunker",
                &[
                    ("tokenizer", tokenizer(config, s)),
                    size,
                    ("chunk_overlap", "0".into()),
                    ("min_characters_per_sentence", "1".into()),
                    ("delim", py_list(&delims)),
                    ("include_delim", py_str("prev")),
                ],
            )
        }
        StrategyKind::Semantic
        | StrategyKind::SemanticGrouping
        | StrategyKind::Adaptive
        | StrategyKind::LangchainSemantic => semantic(config, s),
        StrategyKind::Cluster => {
            s.note(format!(
                "cluster: pieces of {} tokens, boundaries chosen together ({} objective); \
                 SemanticChunker decides each boundary on its own",
                config.cluster.piece_size,
                config.cluster.objective.name()
            ));
            semantic(config, s)
        }
        StrategyKind::Late => {
            imp(s, "LateChunker");
            st_extra(s);
            let (model, note) = model_id(config);
            s.note(note);
            let boundaries = config.semantic.late_boundaries.unwrap_or(StrategyKind::Recursive);
            s.note(format!("late_boundaries = {boundaries}: LateChunker cuts with its default recursive rules"));
            py_call("LateChunker", &[("embedding_model", py_str(&model)), size])
        }
        // Recursive, markdown and the LangChain separator splitters.
        _ => {
            imp(s, "RecursiveChunker");
            imp(s, "RecursiveLevel");
            imp(s, "RecursiveRules");
            if config.uses_overlap() && config.overlap > 0 {
                s.note(format!(
                    "overlap = {}: RecursiveChunker never overlaps (chonkie's OverlapRefinery adds context)",
                    config.overlap
                ));
            }
            let levels: Vec<String> = levels(config, s).iter().map(level).collect();
            let rules = py_call("RecursiveRules", &[("levels", format!("[\n    {},\n]", levels.join(",\n    ")))]);
            py_call(
                "RecursiveChunker",
                &[
                    ("tokenizer", tokenizer(config, s)),
                    size,
                    ("rules", rules),
                    ("min_characters_per_chunk", "1".into()),
                ],
            )
        }
    };
    s.line(format!("splitter = {splitter}"));
    s.usage("# chunks = [chunk.text for chunk in splitter.chunk(open(\"doc.md\", encoding=\"utf-8\").read())]");
}

/// Sentence ends and line breaks, for chonkie's sentence splitting.
fn sentence_delims() -> Vec<String> {
    SENTENCE_ENDS.iter().chain(&["\n"]).map(|d| d.to_string()).collect()
}

/// chonkie's `tokenizer`: a name it knows or a tokenizer object.
fn tokenizer(config: &ChunkConfig, s: &mut Snippet) -> String {
    match config.unit {
        // Bytes: only `fast` counts them, and no splitter here maps it.
        Unit::Chars | Unit::Bytes => py_str("character"),
        Unit::Tokens => match super::snippet::hf_tokenizer_file(&config.tokenizer) {
            // An object: a name would be looked up on the Hugging Face hub.
            None => {
                s.need("tiktoken==0.14.0");
                s.import("import tiktoken");
                format!("tiktoken.get_encoding({})", py_str(&config.tokenizer))
            }
            Some(file) => {
                hf_tokenizer(&file, s);
                "_tokenizer".into()
            }
        },
        Unit::Words => {
            s.note("words: chonkie's \"word\" tokenizer splits at spaces, not chunktui's Unicode (UAX #29) words");
            py_str("word")
        }
    }
}

/// One rule: how a level cuts and which side keeps the delimiter.
struct Level {
    delimiters: Vec<String>,
    pattern: Option<String>,
    whitespace: bool,
    include_delim: Option<&'static str>,
}

impl Level {
    fn plain() -> Self {
        Level { delimiters: Vec::new(), pattern: None, whitespace: false, include_delim: Some("prev") }
    }
    fn delimiters(list: Vec<String>, include: Option<&'static str>) -> Self {
        Level { delimiters: list, include_delim: include, ..Level::plain() }
    }
    fn pattern(re: &str, include: Option<&'static str>) -> Self {
        Level { pattern: Some(re.to_string()), include_delim: include, ..Level::plain() }
    }
}

fn level(l: &Level) -> String {
    let mut args = Vec::new();
    if !l.delimiters.is_empty() {
        args.push(("delimiters", py_list(&l.delimiters)));
    }
    if let Some(p) = &l.pattern {
        args.push(("pattern", py_str(p)));
    }
    if l.whitespace {
        args.push(("whitespace", "True".into()));
    }
    if l.include_delim != Some("prev") {
        args.push(("include_delim", l.include_delim.map_or("None".into(), py_str)));
    }
    let inner: Vec<String> = args.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("RecursiveLevel({})", inner.join(", "))
}

/// chunktui's separator levels as chonkie rules.
fn from_sep(sep: &Sep) -> Level {
    match sep {
        Sep::Paragraph => Level::delimiters(vec!["\n\n".into()], Some("prev")),
        Sep::Line => Level::delimiters(vec!["\n".into()], Some("prev")),
        Sep::Sentence => Level::delimiters(SENTENCE_ENDS.map(String::from).to_vec(), Some("prev")),
        Sep::Literals(list) => Level::delimiters(list.clone(), Some("prev")),
        // A match that starts with a line break (a heading, a definition) starts the next piece.
        Sep::Regex(re) | Sep::LineStarts(re) => {
            Level::pattern(re.as_str(), Some(if re.as_str().starts_with(r"\n") { "next" } else { "prev" }))
        }
        Sep::Whitespace => Level { whitespace: true, ..Level::plain() },
        Sep::Grapheme => Level::plain(),
    }
}

fn levels(config: &ChunkConfig, s: &mut Snippet) -> Vec<Level> {
    let lc = &config.langchain;
    let keep = |k: Option<KeepSeparator>, default: bool| match k.unwrap_or(KeepSeparator::Bool(default)) {
        KeepSeparator::Bool(false) => None,
        KeepSeparator::Bool(true) | KeepSeparator::Side(SeparatorSide::Start) => Some("next"),
        KeepSeparator::Side(SeparatorSide::End) => Some("prev"),
    };
    let one = |sep: &str, include: Option<&'static str>| match sep {
        "" => Level::plain(),
        // chonkie refuses " " as a delimiter: its whitespace rule cuts there.
        " " if !lc.is_separator_regex => Level { whitespace: true, include_delim: include, ..Level::plain() },
        _ if lc.is_separator_regex => Level::pattern(sep, include),
        _ => Level::delimiters(vec![sep.to_string()], include),
    };
    match config.strategy {
        StrategyKind::LangchainCharacter => {
            s.note("the separator joins nothing back: chonkie keeps the text between pieces as it is");
            vec![one(&lc.separator, keep(lc.keep_separator, false))]
        }
        StrategyKind::LangchainRecursive => {
            let defaults = ["\n\n", "\n", " ", ""].map(String::from).to_vec();
            let include = keep(lc.keep_separator, true);
            lc.separators.as_ref().unwrap_or(&defaults).iter().map(|sep| one(sep, include)).collect()
        }
        _ => {
            let mut out = Vec::new();
            if config.strategy == StrategyKind::Markdown {
                let marks: Vec<String> =
                    config.markdown.levels.iter().map(|&n| format!("\n{} ", "#".repeat(n as usize))).collect();
                out.push(Level::delimiters(marks, Some("next")));
                s.note("the heading path of each chunk (meta.headings); fenced code blocks kept whole");
            } else {
                s.note("separators are cut as chonkie does: a delimiter stays with the piece before it");
            }
            let seps = Separators::from_options(&config.recursive, config.strategy).map(|s| s.0).unwrap_or_default();
            out.extend(seps.iter().map(from_sep));
            out
        }
    }
}

/// The embedding chunkers need chonkie's sentence-transformers extra.
fn st_extra(s: &mut Snippet) {
    s.needs.retain(|n| n != CHONKIE);
    s.need("chonkie[st]==1.7.0");
}

fn semantic(config: &ChunkConfig, s: &mut Snippet) -> String {
    let sem = &config.semantic;
    s.import("from chonkie import SemanticChunker");
    st_extra(s);
    let (model, note) = model_id(config);
    s.note(note);
    // chonkie's threshold is a cosine similarity in (0, 1); chunktui's
    // absolute threshold is a cosine distance.
    let threshold = match (sem.threshold_type, sem.threshold) {
        (ThresholdType::Absolute, t) => (1.0 - t.unwrap_or(ThresholdType::Absolute.default_amount())).clamp(0.01, 0.99),
        (t, amount) => {
            s.note(format!(
                "threshold_type = {} ({}): chonkie takes a similarity in (0, 1); its default 0.8 is used",
                t.name(),
                amount.unwrap_or(t.default_amount())
            ));
            0.8
        }
    };
    if config.unit != Unit::Tokens {
        s.note(format!(
            "size = {} {}: chonkie counts the size in its embedding model's tokens",
            config.size, config.unit
        ));
    }
    if sem.min_size > 0 {
        s.note(format!("min_size = {}: chonkie has min_sentences_per_chunk only", sem.min_size));
    }
    let delims = sentence_delims();
    py_call(
        "SemanticChunker",
        &[
            ("embedding_model", py_str(&model)),
            ("threshold", format!("{:?}", (threshold * 1e4).round() / 1e4)),
            ("chunk_size", config.size.to_string()),
            ("similarity_window", sem.buffer_size.max(1).to_string()),
            ("delim", py_list(&delims)),
        ],
    )
}
