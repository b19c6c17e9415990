//! LangChain (langchain-text-splitters 1.1.3). The `langchain-*` strategies
//! are LangChain's own splitters, so their snippets are exact; chunktui's
//! own strategies map to `RecursiveCharacterTextSplitter` with chunktui's
//! separators written as regexes.

use super::literals::{py_bool, py_call, py_list, py_str};
use super::snippet::{hf_tokenizer, lookup, model_id, sentence_notes, Fidelity, Snippet};
use crate::config::{ChunkConfig, KeepSeparator, SeparatorSide, StrategyKind, ThresholdType, Unit};
use crate::strategy::recursive::{Sep, Separators};

const MAPPINGS: &[(StrategyKind, Fidelity)] = &[
    (StrategyKind::LangchainCharacter, Fidelity::Exact),
    (StrategyKind::LangchainRecursive, Fidelity::Exact),
    (StrategyKind::LangchainToken, Fidelity::Exact),
    (StrategyKind::LangchainMarkdownHeader, Fidelity::Exact),
    (
        StrategyKind::Fixed,
        Fidelity::Close(
            "CharacterTextSplitter(separator=\"\") packs characters into windows of the size; TokenTextSplitter \
             decodes token windows, which may cut a character that chunktui keeps whole",
        ),
    ),
    (
        StrategyKind::Recursive,
        Fidelity::Close(
            "RecursiveCharacterTextSplitter with chunktui's separators as regexes; LangChain's merge, overlap and \
             whitespace stripping differ in the details",
        ),
    ),
    (
        StrategyKind::Sentence,
        Fidelity::Close(
            "RecursiveCharacterTextSplitter over paragraphs, lines and sentence ends (LangChain's sentence splitters \
             need NLTK or spaCy models)",
        ),
    ),
    (
        StrategyKind::Markdown,
        Fidelity::Close(
            "RecursiveCharacterTextSplitter with LangChain's Markdown separators: no heading path, every heading \
             level cuts",
        ),
    ),
    (
        StrategyKind::LangchainSemantic,
        Fidelity::Close(
            "SemanticChunker (langchain-experimental) is the same algorithm: with chunktui's embeddings endpoint \
             the same chunks; with sentence-transformers in place of chunktui's ONNX model, close",
        ),
    ),
    (
        StrategyKind::Semantic,
        Fidelity::Close("SemanticChunker cuts at embedding breakpoints too, with regex sentences and no size limit"),
    ),
    (
        StrategyKind::SemanticGrouping,
        Fidelity::Close("SemanticChunker compares neighbouring sentences, not a sentence with the chunk's mean"),
    ),
    (
        StrategyKind::Adaptive,
        Fidelity::Close("SemanticChunker uses one threshold for the whole text and no size limit"),
    ),
    (
        StrategyKind::Cluster,
        Fidelity::None(
            "no splitter chooses all boundaries together; Chroma's ClusterSemanticChunker (chunking_evaluation, \
             not on PyPI) is the same idea, chonkie's SemanticChunker the nearest packaged one",
        ),
    ),
    (StrategyKind::Document, Fidelity::None("the whole file is one chunk: no splitter is needed")),
    (StrategyKind::Late, Fidelity::None("LangChain has no late chunking (token embeddings pooled per chunk)")),
    (
        StrategyKind::Hierarchical,
        Fidelity::None("no multi-level splitter; ParentDocumentRetriever with two splitters comes nearest"),
    ),
    (StrategyKind::Llm, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
    (StrategyKind::Propositions, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
    (StrategyKind::Agentic, Fidelity::None(super::snippet::LLM_USE_CHUNKTUI)),
];

pub(super) fn mapping(kind: StrategyKind) -> Fidelity {
    lookup(MAPPINGS, kind)
}

/// `kind`'s row of a library's list, `None` when it has none.
pub(super) fn write(config: &ChunkConfig, s: &mut Snippet) {
    s.need("langchain-text-splitters==1.1.3");
    let splitter = match config.strategy {
        StrategyKind::LangchainSemantic
        | StrategyKind::Semantic
        | StrategyKind::SemanticGrouping
        | StrategyKind::Adaptive => semantic(config, s),
        _ => splitter_expr(config, s),
    };
    s.line(format!("splitter = {splitter}"));
    if config.strategy == StrategyKind::LangchainMarkdownHeader {
        s.usage(
            "# chunks = [d.page_content for d in splitter.split_text(open(\"doc.md\", encoding=\"utf-8\").read())]",
        );
    } else {
        s.usage("# chunks = splitter.split_text(open(\"doc.md\", encoding=\"utf-8\").read())");
    }
}

/// How LangChain measures a chunk for this config's unit.
enum Length {
    /// `len()`: code points.
    Chars,
    /// `from_tiktoken_encoder(encoding_name=...)`.
    Tiktoken(String),
    /// `length_function=...`.
    Function(String),
}

/// The length measure, with the lines that set it up.
fn length(config: &ChunkConfig, s: &mut Snippet) -> Length {
    match config.unit {
        // Bytes: only `fast` counts them, and no splitter here maps it.
        Unit::Chars | Unit::Bytes => Length::Chars,
        Unit::Tokens => match super::snippet::hf_tokenizer_file(&config.tokenizer) {
            None => {
                s.need("tiktoken==0.14.0");
                Length::Tiktoken(config.tokenizer.clone())
            }
            Some(file) => {
                hf_tokenizer(&file, s);
                Length::Function("lambda text: len(_tokenizer.encode(text, add_special_tokens=False).ids)".into())
            }
        },
        Unit::Words => {
            s.import("import re");
            s.note("words: counted as runs of \\w here, not chunktui's Unicode (UAX #29) words");
            Length::Function("lambda text: len(re.findall(r\"\\w+\", text))".into())
        }
    }
}

/// `class(args)` measured in this config's unit.
fn construct(class: &str, config: &ChunkConfig, args: Vec<(&str, String)>, s: &mut Snippet) -> String {
    match length(config, s) {
        Length::Chars => py_call(class, &args),
        Length::Tiktoken(name) => {
            let mut all = vec![("encoding_name", py_str(&name))];
            all.extend(args);
            py_call(&format!("{class}.from_tiktoken_encoder"), &all)
        }
        Length::Function(f) => {
            let mut all = args;
            all.push(("length_function", f));
            py_call(class, &all)
        }
    }
}

fn size_args(config: &ChunkConfig, overlap: usize) -> [(&'static str, String); 2] {
    [("chunk_size", config.size.to_string()), ("chunk_overlap", overlap.to_string())]
}

fn keep(k: Option<KeepSeparator>, default: bool) -> String {
    match k.unwrap_or(KeepSeparator::Bool(default)) {
        KeepSeparator::Bool(b) => py_bool(b),
        KeepSeparator::Side(SeparatorSide::Start) => py_str("start"),
        KeepSeparator::Side(SeparatorSide::End) => py_str("end"),
    }
}

/// The expression that builds the splitter of every non-model strategy
/// (also what LlamaIndex's `LangchainNodeParser` wraps).
pub(super) fn splitter_expr(config: &ChunkConfig, s: &mut Snippet) -> String {
    let lc = &config.langchain;
    let imp = |s: &mut Snippet, class: &str| s.import(&format!("from langchain_text_splitters import {class}"));
    match config.strategy {
        StrategyKind::LangchainCharacter => {
            imp(s, "CharacterTextSplitter");
            let mut args = vec![
                ("separator", py_str(&lc.separator)),
                ("is_separator_regex", py_bool(lc.is_separator_regex)),
                ("keep_separator", keep(lc.keep_separator, false)),
            ];
            args.extend(size_args(config, config.overlap));
            args.push(("strip_whitespace", py_bool(lc.strip_whitespace)));
            construct("CharacterTextSplitter", config, args, s)
        }
        StrategyKind::LangchainRecursive => {
            imp(s, "RecursiveCharacterTextSplitter");
            let defaults = ["\n\n", "\n", " ", ""].map(String::from).to_vec();
            let mut args = vec![
                ("separators", py_list(lc.separators.as_ref().unwrap_or(&defaults))),
                ("is_separator_regex", py_bool(lc.is_separator_regex)),
                ("keep_separator", keep(lc.keep_separator, true)),
            ];
            args.extend(size_args(config, config.overlap));
            args.push(("strip_whitespace", py_bool(lc.strip_whitespace)));
            construct("RecursiveCharacterTextSplitter", config, args, s)
        }
        StrategyKind::LangchainToken => {
            imp(s, "TokenTextSplitter");
            s.need("tiktoken==0.14.0");
            let mut args = vec![("encoding_name", py_str(&config.tokenizer))];
            args.extend(size_args(config, config.overlap));
            py_call("TokenTextSplitter", &args)
        }
        StrategyKind::LangchainMarkdownHeader => {
            imp(s, "MarkdownHeaderTextSplitter");
            let headers: Vec<String> =
                lc.headers.iter().map(|(m, n)| format!("({}, {})", py_str(m), py_str(n))).collect();
            py_call(
                "MarkdownHeaderTextSplitter",
                &[
                    ("headers_to_split_on", format!("[{}]", headers.join(", "))),
                    ("return_each_line", py_bool(lc.return_each_line)),
                    ("strip_headers", py_bool(lc.strip_headers)),
                ],
            )
        }
        StrategyKind::Fixed => fixed(config, s),
        StrategyKind::Markdown => {
            imp(s, "Language");
            imp(s, "RecursiveCharacterTextSplitter");
            s.note(format!(
                "markdown.levels = {:?}: LangChain's Markdown separators cut at every heading level",
                config.markdown.levels
            ));
            s.note("the heading path of each chunk (meta.headings); MarkdownHeaderTextSplitter gives one as metadata");
            s.note("fenced code blocks, lists and tables kept whole: LangChain cuts them like prose when too big");
            let mut args = vec![
                ("separators", "RecursiveCharacterTextSplitter.get_separators_for_language(Language.MARKDOWN)".into()),
                ("is_separator_regex", "True".into()),
            ];
            args.extend(size_args(config, config.overlap));
            construct("RecursiveCharacterTextSplitter", config, args, s)
        }
        // Recursive and sentence: chunktui's separators as regexes.
        _ => {
            imp(s, "RecursiveCharacterTextSplitter");
            let (seps, overlap) = if config.strategy == StrategyKind::Sentence {
                sentence_notes(config, s, "a regex of sentence ends here");
                (sentence_separators(), 0)
            } else {
                recursive_notes(config, s);
                (preset_separators(config), config.overlap)
            };
            let mut args = vec![
                ("separators", py_list(&seps)),
                ("is_separator_regex", "True".into()),
                ("keep_separator", py_str("end")),
            ];
            args.extend(size_args(config, overlap));
            construct("RecursiveCharacterTextSplitter", config, args, s)
        }
    }
}

fn fixed(config: &ChunkConfig, s: &mut Snippet) -> String {
    let tiktoken = config.unit == Unit::Tokens && super::snippet::hf_tokenizer_file(&config.tokenizer).is_none();
    if tiktoken {
        s.import("from langchain_text_splitters import TokenTextSplitter");
        s.need("tiktoken==0.14.0");
        s.note("TokenTextSplitter decodes each window: a window that cuts a character shows U+FFFD there");
        let mut args = vec![("encoding_name", py_str(&config.tokenizer))];
        args.extend(size_args(config, config.overlap));
        return py_call("TokenTextSplitter", &args);
    }
    s.import("from langchain_text_splitters import CharacterTextSplitter");
    let separator = if config.unit == Unit::Words {
        s.note("word windows: LangChain joins the words with single spaces");
        " "
    } else {
        ""
    };
    if config.unit == Unit::Tokens {
        s.note("token windows: LangChain adds up each character's token count, not the window's");
    }
    let mut args = vec![("separator", py_str(separator))];
    args.extend(size_args(config, config.overlap));
    args.push(("strip_whitespace", "False".into()));
    construct("CharacterTextSplitter", config, args, s)
}

fn recursive_notes(config: &ChunkConfig, s: &mut Snippet) {
    s.note(
        "separators stay with the piece before them (keep_separator=\"end\"); chunktui starts the next piece \
         with a separator that is line breaks followed by text (headings, definitions)",
    );
    s.note("\"\" cuts between code points; chunktui cuts between grapheme clusters");
    if config.recursive.is_regex {
        s.note("your separators are Rust regexes; Python's re reads most of them the same");
    }
}

/// One separator level of chunktui as a Python regex.
pub(super) fn level_regex(sep: &Sep) -> String {
    match sep {
        Sep::Paragraph => r"\n\s*\n".into(),
        Sep::Line => r"\r?\n".into(),
        Sep::Sentence => r"[.!?](?=\s)|[。！？]".into(),
        Sep::Literals(list) => list.iter().map(|l| regex::escape(l)).collect::<Vec<_>>().join("|"),
        Sep::Regex(re) | Sep::LineStarts(re) => re.as_str().to_string(),
        Sep::Whitespace => r"\s+".into(),
        Sep::Grapheme => String::new(),
    }
}

/// The separators of the config's preset (or list) as LangChain regexes.
fn preset_separators(config: &ChunkConfig) -> Vec<String> {
    // A validated config's separators always build.
    let seps = Separators::from_options(&config.recursive, config.strategy).map(|s| s.0).unwrap_or_default();
    seps.iter().map(level_regex).collect()
}

/// The sentence strategy's levels: paragraphs, lines, sentence ends, then
/// its fallback for a sentence over the size (clauses, words, characters).
fn sentence_separators() -> Vec<String> {
    [
        level_regex(&Sep::Paragraph),
        level_regex(&Sep::Line),
        level_regex(&Sep::Sentence),
        level_regex(&Sep::Literals(["；", "; ", "：", ": "].map(String::from).to_vec())),
        level_regex(&Sep::Literals(["，", "、", ", "].map(String::from).to_vec())),
        level_regex(&Sep::Whitespace),
        level_regex(&Sep::Grapheme),
    ]
    .to_vec()
}

/// `SemanticChunker` from langchain-experimental with a sentence-transformers model.
fn semantic(config: &ChunkConfig, s: &mut Snippet) -> String {
    let sem = &config.semantic;
    s.need("langchain-experimental");
    s.import("from langchain_experimental.text_splitter import SemanticChunker");
    let embeddings = match super::snippet::endpoint(config, s) {
        Some((base, model, dimensions)) => {
            // Strings, not tiktoken ids: what chunktui sends, and what
            // servers other than OpenAI's take.
            s.need("langchain-openai");
            s.import("from langchain_openai import OpenAIEmbeddings");
            let mut args = vec![("base_url", py_str(&base)), ("model", py_str(&model))];
            if let Some(d) = dimensions {
                args.push(("dimensions", d.to_string()));
            }
            args.push(("check_embedding_ctx_length", "False".into()));
            py_call("OpenAIEmbeddings", &args)
        }
        None => {
            s.need("langchain-huggingface");
            s.import("from langchain_huggingface import HuggingFaceEmbeddings");
            let (model, model_note) = model_id(config);
            s.note(model_note);
            py_call("HuggingFaceEmbeddings", &[("model_name", py_str(&model))])
        }
    };
    let (kind, amount) = match sem.threshold_type {
        ThresholdType::Absolute => {
            s.note(format!(
                "threshold_type = absolute ({}): LangChain has none; its percentile default is used",
                sem.threshold.unwrap_or(ThresholdType::Absolute.default_amount())
            ));
            (ThresholdType::Percentile, ThresholdType::Percentile.default_amount())
        }
        t => (t, sem.threshold.unwrap_or(t.default_amount())),
    };
    let mut args = vec![
        ("embeddings", embeddings),
        ("buffer_size", sem.buffer_size.to_string()),
        ("breakpoint_threshold_type", py_str(kind.name())),
        ("breakpoint_threshold_amount", format!("{amount:?}")),
    ];
    if let Some(n) = sem.number_of_chunks {
        args.push(("number_of_chunks", n.to_string()));
    }
    if let Some(re) = &sem.sentence_split_regex {
        args.push(("sentence_split_regex", py_str(re)));
    }
    if sem.min_size > 0 {
        args.push(("min_chunk_size", sem.min_size.to_string()));
        if config.unit != Unit::Chars {
            s.note(format!(
                "min_size = {} {}: LangChain's min_chunk_size counts characters",
                sem.min_size, config.unit
            ));
        }
    }
    if config.strategy != StrategyKind::LangchainSemantic {
        s.note(format!(
            "size = {} {}: SemanticChunker has no size limit; chunktui's sentences are CJK-aware, LangChain's come \
             from a regex",
            config.size, config.unit
        ));
    }
    py_call("SemanticChunker", &args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_of_every_preset_becomes_a_python_regex() {
        for name in crate::strategy::recursive::preset_names() {
            let seps = Separators::preset(name).unwrap();
            let regexes: Vec<String> = seps.0.iter().map(level_regex).collect();
            assert_eq!(regexes.last().map(String::as_str), Some(""), "{name}: ends with characters");
            assert!(regexes[..regexes.len() - 1].iter().all(|r| !r.is_empty()), "{name}");
        }
    }
}
