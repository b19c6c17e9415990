//! The `text-splitter` crate (0.33): `TextSplitter` and `MarkdownSplitter`
//! with a `ChunkConfig` (capacity, overlap, sizer). The snippet is a whole
//! program: `cargo run -- FILE` prints each chunk as a quoted string.

use super::literals::rs_str;
use super::snippet::{lookup, Fidelity, Snippet};
use crate::config::{ChunkConfig, StrategyKind, Unit};

const MAPPINGS: &[(StrategyKind, Fidelity)] = &[
    (
        StrategyKind::Fixed,
        Fidelity::Close(
            "TextSplitter fills each chunk up to the size at the largest semantic unit that fits (sentences, \
             words, characters), not at fixed offsets",
        ),
    ),
    (
        StrategyKind::Recursive,
        Fidelity::Close(
            "TextSplitter's levels are line breaks, Unicode sentences, words and graphemes; chunktui's separators \
             are not used",
        ),
    ),
    (StrategyKind::Sentence, Fidelity::Close("TextSplitter keeps Unicode sentences whole where they fit the size")),
    (
        StrategyKind::Markdown,
        Fidelity::Close("MarkdownSplitter cuts at headings, then blocks and sentences, within the size"),
    ),
    (
        StrategyKind::LangchainCharacter,
        Fidelity::Close("TextSplitter packs to the size by its own Unicode levels; the separator is not used"),
    ),
    (
        StrategyKind::LangchainRecursive,
        Fidelity::Close("TextSplitter packs to the size by its own Unicode levels; the separators are not used"),
    ),
    (
        StrategyKind::LangchainToken,
        Fidelity::Close(
            "TextSplitter with the same tiktoken encoding stays within the size at semantic boundaries, not fixed \
             token windows",
        ),
    ),
    (
        StrategyKind::LangchainMarkdownHeader,
        Fidelity::Close("MarkdownSplitter cuts at headings too, but also to a size, and keeps the heading lines"),
    ),
    (StrategyKind::Document, Fidelity::None("the whole file is one chunk: no splitter is needed")),
    (StrategyKind::Hierarchical, Fidelity::None("one splitter cuts one size: build a TextSplitter for each level")),
    (StrategyKind::LangchainSemantic, Fidelity::None("text-splitter has no embedding-based splitter")),
    (StrategyKind::Semantic, Fidelity::None("text-splitter has no embedding-based splitter")),
    (StrategyKind::SemanticGrouping, Fidelity::None("text-splitter has no embedding-based splitter")),
    (StrategyKind::Adaptive, Fidelity::None("text-splitter has no embedding-based splitter")),
    (StrategyKind::Late, Fidelity::None("text-splitter has no embedding-based splitter")),
    (StrategyKind::Cluster, Fidelity::None("text-splitter has no embedding-based splitter")),
    (StrategyKind::Llm, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
    (StrategyKind::Propositions, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
    (StrategyKind::Agentic, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
];

pub(super) fn mapping(kind: StrategyKind) -> Fidelity {
    lookup(MAPPINGS, kind)
}

/// The version the snippet asks for (what the tests build it with).
pub const CRATE_VERSION: &str = "0.33.1";

pub(super) fn write(config: &ChunkConfig, s: &mut Snippet) {
    let markdown = matches!(config.strategy, StrategyKind::Markdown | StrategyKind::LangchainMarkdownHeader);
    let mut features = Vec::new();
    if markdown {
        features.push("\"markdown\"");
    }
    let sizer = match config.unit {
        // Bytes: only `fast` counts them, and no splitter here maps it.
        Unit::Chars | Unit::Bytes => None,
        Unit::Tokens => match super::snippet::hf_tokenizer_file(&config.tokenizer) {
            None => {
                features.push("\"tiktoken-rs\"");
                s.need("tiktoken-rs = \"0.12\"");
                let name = &config.tokenizer;
                Some(format!("tiktoken_rs::{name}()?"))
            }
            Some(file) => {
                features.push("\"tokenizers\"");
                s.need("tokenizers = \"0.23\"");
                s.note("the tokenizer.json's own truncation and padding, if any, apply (chunktui turns them off)");
                Some(format!("tokenizers::Tokenizer::from_file({})?", rs_str(&file)))
            }
        },
        Unit::Words => {
            s.import("/// Counts whitespace-separated words (chunktui counts Unicode UAX #29 words).");
            s.import("struct Words;");
            s.import("");
            s.import("impl text_splitter::ChunkSizer for Words {");
            s.import("    fn size(&self, chunk: &str) -> usize {");
            s.import("        chunk.split_whitespace().count()");
            s.import("    }");
            s.import("}");
            s.note("words: counted at whitespace, so CJK text without spaces is one word per run");
            Some("Words".into())
        }
    };
    let dependency = if features.is_empty() {
        format!("text-splitter = \"{CRATE_VERSION}\"")
    } else {
        format!("text-splitter = {{ version = \"{CRATE_VERSION}\", features = [{}] }}", features.join(", "))
    };
    s.needs.insert(0, dependency);
    notes(config, s);

    let class = if markdown { "MarkdownSplitter" } else { "TextSplitter" };
    s.imports.insert(0, format!("use text_splitter::{{ChunkConfig, {class}}};"));
    if s.imports.len() > 1 {
        s.imports.insert(1, String::new());
    }
    let mut calls = vec![format!("ChunkConfig::new({})", config.size)];
    if config.uses_overlap() && config.overlap > 0 {
        calls.push(format!(".with_overlap({})?", config.overlap));
    }
    if let Some(sizer) = sizer {
        calls.push(format!(".with_sizer({sizer})"));
    }
    s.line("fn main() -> Result<(), Box<dyn std::error::Error>> {");
    let one_line = format!("    let splitter = {class}::new({});", calls.concat());
    if one_line.len() <= 100 {
        s.line(one_line);
    } else {
        s.line(format!("    let splitter = {class}::new(\n        {},\n    );", calls.join("\n            ")));
    }
    s.line("    // Usage: `cargo run -- doc.md` prints each chunk as a quoted string, one a line.");
    s.line("    if let Some(path) = std::env::args().nth(1) {");
    s.line("        let text = std::fs::read_to_string(path)?;");
    s.line("        for chunk in splitter.chunks(&text) {");
    s.line("            println!(\"{chunk:?}\");");
    s.line("        }");
    s.line("    }");
    s.line("    Ok(())");
    s.line("}");
}

fn notes(config: &ChunkConfig, s: &mut Snippet) {
    match config.strategy {
        StrategyKind::Recursive => {
            s.note(format!("separators (preset {}): text-splitter has fixed Unicode levels", config.recursive.preset))
        }
        StrategyKind::Sentence => super::snippet::sentence_notes(config, s, "Unicode (UAX #29) sentences here"),
        StrategyKind::Markdown => {
            s.note(format!("markdown.levels = {:?}: every heading level cuts", config.markdown.levels));
            s.note("the heading path of each chunk (meta.headings)");
        }
        StrategyKind::LangchainCharacter | StrategyKind::LangchainRecursive => {
            s.note("separators, keep_separator and strip_whitespace: text-splitter trims chunks and has its own levels")
        }
        StrategyKind::LangchainMarkdownHeader => {
            s.note("headers_to_split_on, strip_headers and return_each_line; the header path as metadata");
            s.note(format!("size = {}: chunktui's header splitter has no size; this one needs one", config.size));
        }
        _ => {}
    }
}
