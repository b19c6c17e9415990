//! LlamaIndex (llama-index-core 0.14.25). The `langchain-*` splitters go
//! through `LangchainNodeParser`, which hands the text to the LangChain
//! splitter as it is (exact); chunktui's own strategies map to
//! `SentenceSplitter`, `TokenTextSplitter`, `MarkdownNodeParser`,
//! `HierarchicalNodeParser` and `SemanticSplitterNodeParser`.

use super::langchain::splitter_expr;
use super::literals::{py_call, py_str};
use super::snippet::{hf_tokenizer, lookup, model_id, sentence_notes, Fidelity, Snippet};
use crate::config::{ChunkConfig, StrategyKind, ThresholdType, Unit};
use crate::strategy::hierarchical;

const MAPPINGS: &[(StrategyKind, Fidelity)] = &[
    (StrategyKind::LangchainCharacter, Fidelity::Exact),
    (StrategyKind::LangchainRecursive, Fidelity::Exact),
    (StrategyKind::LangchainToken, Fidelity::Exact),
    (
        StrategyKind::LangchainMarkdownHeader,
        Fidelity::Close(
            "MarkdownNodeParser cuts at every heading and keeps the heading line in the chunk; the header path \
             goes to metadata",
        ),
    ),
    (
        StrategyKind::Fixed,
        Fidelity::Close("TokenTextSplitter packs windows of the size with the overlap, cut at spaces"),
    ),
    (
        StrategyKind::Recursive,
        Fidelity::Close(
            "SentenceSplitter cuts paragraphs, sentences (NLTK punkt), clauses and words in the same spirit; \
             chunktui's separators are not used",
        ),
    ),
    (StrategyKind::Sentence, Fidelity::Close("SentenceSplitter packs whole sentences up to the size")),
    (
        StrategyKind::Markdown,
        Fidelity::Close("MarkdownNodeParser cuts at every heading, with no size limit; the header path is metadata"),
    ),
    (
        StrategyKind::LangchainSemantic,
        Fidelity::Close("SemanticSplitterNodeParser: percentile breakpoints over sentence-window embeddings"),
    ),
    (
        StrategyKind::Semantic,
        Fidelity::Close("SemanticSplitterNodeParser: percentile breakpoints, no size limit, NLTK sentences"),
    ),
    (
        StrategyKind::SemanticGrouping,
        Fidelity::Close("SemanticSplitterNodeParser compares neighbouring sentences, not a sentence with a mean"),
    ),
    (
        StrategyKind::Adaptive,
        Fidelity::Close("SemanticSplitterNodeParser: one percentile threshold for the whole text, no size limit"),
    ),
    (
        StrategyKind::Cluster,
        Fidelity::None(
            "no splitter chooses all boundaries together; Chroma's ClusterSemanticChunker (chunking_evaluation, \
             not on PyPI) is the same idea, chonkie's SemanticChunker the nearest packaged one",
        ),
    ),
    (
        StrategyKind::Hierarchical,
        Fidelity::Close(
            "HierarchicalNodeParser with one SentenceSplitter per level (chunktui's levels and overlaps); \
             the base strategy is not carried",
        ),
    ),
    (StrategyKind::Document, Fidelity::None("the whole file is one node: no parser is needed")),
    (StrategyKind::Late, Fidelity::None("LlamaIndex has no late chunking (token embeddings pooled per chunk)")),
    (StrategyKind::Llm, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
    (StrategyKind::Propositions, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
    (StrategyKind::Agentic, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
];

pub(super) fn mapping(kind: StrategyKind) -> Fidelity {
    lookup(MAPPINGS, kind)
}

const CORE: &str = "llama-index-core==0.14.25";

pub(super) fn write(config: &ChunkConfig, s: &mut Snippet) {
    s.need(CORE);
    let imp = |s: &mut Snippet, class: &str| s.import(&format!("from llama_index.core.node_parser import {class}"));
    let mut nodes_only = false;
    let splitter = match config.strategy {
        StrategyKind::LangchainCharacter | StrategyKind::LangchainRecursive | StrategyKind::LangchainToken => {
            s.need("langchain-text-splitters==1.1.3");
            imp(s, "LangchainNodeParser");
            let inner = splitter_expr(config, s);
            py_call("LangchainNodeParser", &[("", inner)])
        }
        StrategyKind::Fixed => {
            imp(s, "TokenTextSplitter");
            let mut args = size_args(config.size, config.overlap);
            args.push(("separator", py_str(" ")));
            args.push(("tokenizer", tokenizer(config, s)));
            py_call("TokenTextSplitter", &args)
        }
        StrategyKind::Recursive | StrategyKind::Sentence => {
            imp(s, "SentenceSplitter");
            let overlap = if config.strategy == StrategyKind::Sentence {
                sentence_notes(config, s, "NLTK's punkt here");
                0
            } else {
                s.note(format!(
                    "separators (preset {}): SentenceSplitter has its own order (paragraph, sentence, clause, word)",
                    config.recursive.preset
                ));
                config.overlap
            };
            sentence_splitter(config, config.size, overlap, s)
        }
        StrategyKind::Markdown | StrategyKind::LangchainMarkdownHeader => {
            imp(s, "MarkdownNodeParser");
            nodes_only = true;
            if config.strategy == StrategyKind::Markdown {
                s.note(format!(
                    "size = {} {} and overlap: MarkdownNodeParser never cuts a section; chain a SentenceSplitter",
                    config.size, config.unit
                ));
                s.note(format!("markdown.levels = {:?}: every heading level cuts", config.markdown.levels));
            } else {
                let lc = &config.langchain;
                s.note("headers_to_split_on: every heading level cuts, and the header path is node metadata");
                s.note(format!(
                    "strip_headers = {}, return_each_line = {}: heading lines stay in the text",
                    lc.strip_headers, lc.return_each_line
                ));
            }
            py_call("MarkdownNodeParser", &[])
        }
        StrategyKind::Hierarchical => {
            imp(s, "HierarchicalNodeParser");
            imp(s, "SentenceSplitter");
            nodes_only = true;
            if config.hierarchical.base != StrategyKind::Recursive {
                s.note(format!("base = {}: every level is cut by SentenceSplitter", config.hierarchical.base));
            }
            let sizes = hierarchical::level_sizes(config);
            let ids: Vec<String> = (0..sizes.len()).map(|i| py_str(&format!("level-{i}"))).collect();
            let map: Vec<String> = sizes
                .iter()
                .enumerate()
                .map(|(i, &size)| {
                    let overlap = hierarchical::level_overlap(config, size);
                    format!("{}: {}", ids[i], sentence_splitter(config, size, overlap, s))
                })
                .collect();
            let map = format!("{{\n    {},\n}}", map.join(",\n").replace('\n', "\n    "));
            py_call(
                "HierarchicalNodeParser.from_defaults",
                &[("node_parser_ids", format!("[{}]", ids.join(", "))), ("node_parser_map", map)],
            )
        }
        // The model strategies.
        _ => semantic(config, s),
    };
    s.line(format!("splitter = {splitter}"));
    if nodes_only {
        s.usage("# from llama_index.core import Document");
        s.usage(
            "# nodes = splitter.get_nodes_from_documents([Document(text=open(\"doc.md\", encoding=\"utf-8\").read())])",
        );
        s.usage("# chunks = [node.get_content() for node in nodes]");
    } else {
        s.usage("# chunks = splitter.split_text(open(\"doc.md\", encoding=\"utf-8\").read())");
    }
}

fn size_args(size: usize, overlap: usize) -> Vec<(&'static str, String)> {
    vec![("chunk_size", size.to_string()), ("chunk_overlap", overlap.to_string())]
}

/// `SentenceSplitter` at one size, measured in the config's unit, with a
/// blank line as the paragraph break (chunktui's; LlamaIndex's default is two).
fn sentence_splitter(config: &ChunkConfig, size: usize, overlap: usize, s: &mut Snippet) -> String {
    let mut args = size_args(size, overlap);
    args.push(("paragraph_separator", py_str("\n\n")));
    args.push(("tokenizer", tokenizer(config, s)));
    py_call("SentenceSplitter", &args)
}

/// LlamaIndex's `tokenizer`: a callable whose result's length is the size.
fn tokenizer(config: &ChunkConfig, s: &mut Snippet) -> String {
    match config.unit {
        // A list of the code points.
        Unit::Chars | Unit::Bytes => "list".into(),
        Unit::Tokens => match super::snippet::hf_tokenizer_file(&config.tokenizer) {
            None => {
                s.need("tiktoken==0.14.0");
                s.import("import tiktoken");
                format!("tiktoken.get_encoding({}).encode", py_str(&config.tokenizer))
            }
            Some(file) => {
                hf_tokenizer(&file, s);
                "lambda text: _tokenizer.encode(text, add_special_tokens=False).ids".into()
            }
        },
        Unit::Words => {
            s.import("import re");
            if !s.notes.iter().any(|n| n.starts_with("words:")) {
                s.note("words: counted as runs of \\w here, not chunktui's Unicode (UAX #29) words");
            }
            "re.compile(r\"\\w+\").findall".into()
        }
    }
}

fn semantic(config: &ChunkConfig, s: &mut Snippet) -> String {
    let sem = &config.semantic;
    s.import("from llama_index.core.node_parser import SemanticSplitterNodeParser");
    let embed_model = match super::snippet::endpoint(config, s) {
        Some((base, model, dimensions)) => {
            // OpenAILikeEmbedding takes any model name; OpenAIEmbedding only OpenAI's.
            s.need("llama-index-embeddings-openai-like");
            s.import("import os");
            s.import("from llama_index.embeddings.openai_like import OpenAILikeEmbedding");
            let mut args = vec![
                ("model_name", py_str(&model)),
                ("api_base", py_str(&base)),
                ("api_key", "os.environ[\"OPENAI_API_KEY\"]".to_string()),
            ];
            if let Some(d) = dimensions {
                args.push(("dimensions", d.to_string()));
            }
            py_call("OpenAILikeEmbedding", &args)
        }
        None => {
            s.need("llama-index-embeddings-huggingface");
            s.import("from llama_index.embeddings.huggingface import HuggingFaceEmbedding");
            let (model, model_note) = model_id(config);
            s.note(model_note);
            py_call("HuggingFaceEmbedding", &[("model_name", py_str(&model))])
        }
    };
    let percentile = match sem.threshold_type {
        ThresholdType::Percentile => sem.threshold.unwrap_or(ThresholdType::Percentile.default_amount()),
        t => {
            s.note(format!("threshold_type = {}: LlamaIndex has only percentile (95 used)", t.name()));
            ThresholdType::Percentile.default_amount()
        }
    };
    if percentile.fract() != 0.0 {
        s.note(format!("threshold {percentile}: LlamaIndex takes a whole percentile"));
    }
    if config.strategy != StrategyKind::LangchainSemantic {
        s.note(format!("size = {} {}: SemanticSplitterNodeParser has no size limit", config.size, config.unit));
    }
    if sem.min_size > 0 || sem.number_of_chunks.is_some() {
        s.note("min_size and number_of_chunks: no such settings");
    }
    py_call(
        "SemanticSplitterNodeParser.from_defaults",
        &[
            ("buffer_size", sem.buffer_size.to_string()),
            ("breakpoint_percentile_threshold", (percentile.round() as i64).to_string()),
            ("embed_model", embed_model),
        ],
    )
}
