//! What every library's snippet writer shares: the libraries, how close
//! each comes ([`Fidelity`]), the [`Snippet`] being written and the helpers
//! that fill it (model names, endpoints, tokenizer files, sentence rules).
//! The writers (one file per library) and `mod.rs`, which dispatches to
//! them, import this; it imports none of them.

use super::literals::py_str;
use crate::config::{ChunkConfig, StrategyKind, DEFAULT_MODEL, MULTILINGUAL_MODEL};
use std::fmt::Write as _;

/// The libraries a config can be exported to.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Library {
    /// LangChain's langchain-text-splitters (Python).
    Langchain,
    /// LlamaIndex's node parsers in llama-index-core (Python).
    Llamaindex,
    /// chonkie's chunkers (Python).
    Chonkie,
    /// The text-splitter crate (Rust).
    #[value(name = "text-splitter")]
    TextSplitter,
}

impl Library {
    pub const ALL: [Library; 4] = [Library::Langchain, Library::Llamaindex, Library::Chonkie, Library::TextSplitter];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Library::Langchain => "langchain",
            Library::Llamaindex => "llamaindex",
            Library::Chonkie => "chonkie",
            Library::TextSplitter => "text-splitter",
        }
    }

    /// The name in prose and in the table's header.
    pub fn title(self) -> &'static str {
        match self {
            Library::Langchain => "LangChain",
            Library::Llamaindex => "LlamaIndex",
            Library::Chonkie => "chonkie",
            Library::TextSplitter => "text-splitter (Rust)",
        }
    }

    pub(super) fn lang(self) -> Lang {
        match self {
            Library::TextSplitter => Lang::Rust,
            _ => Lang::Python,
        }
    }
}

/// How close a library comes to a strategy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fidelity {
    /// The same chunk texts (proven against the real package).
    Exact,
    /// A splitter of the same kind; the reason says what differs.
    Close(&'static str),
    /// Nothing worth exporting; the reason says why (and what comes nearest).
    None(&'static str),
}

impl Fidelity {
    pub fn label(&self) -> &'static str {
        match self {
            Fidelity::Exact => "exact",
            Fidelity::Close(_) => "close",
            Fidelity::None(_) => "none",
        }
    }
}

/// What every library says for the LLM strategies: none reproduces their
/// checked, exact source ranges; chunktui's own package does, from the
/// same config (the answers come from its cache or the same endpoint).
pub(crate) const LLM_USE_CHUNKTUI: &str = "no library cuts with an LLM on checked, exact source ranges: in Python use \
     chunktui.Chunker.from_config(\"chunktui.toml\") (pip install ./python), which cuts these chunks";

/// What a library without a mapping for a strategy says.
pub(crate) const UNMAPPED: &str = "chunktui has no mapping of this strategy to this library yet";

/// Which language a snippet is written in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    Rust,
}

/// A snippet being written: what to install, imports, what does not carry
/// over, the code that builds `splitter` and how to use it.
pub(crate) struct Snippet {
    pub(super) lang: Lang,
    /// `pip install` requirements or Cargo.toml dependency lines.
    pub(super) needs: Vec<String>,
    pub(super) imports: Vec<String>,
    pub(super) notes: Vec<String>,
    pub(super) body: Vec<String>,
    pub(super) usage: Vec<String>,
}

impl Snippet {
    pub(super) fn new(lang: Lang) -> Self {
        Snippet { lang, needs: Vec::new(), imports: Vec::new(), notes: Vec::new(), body: Vec::new(), usage: Vec::new() }
    }

    pub(crate) fn need(&mut self, requirement: &str) {
        if !self.needs.iter().any(|n| n == requirement) {
            self.needs.push(requirement.to_string());
        }
    }

    /// An import line; Python's `from M import A` lines of one module merge.
    pub(crate) fn import(&mut self, line: &str) {
        if let Some((module, name)) = line.strip_prefix("from ").and_then(|l| l.split_once(" import ")) {
            let head = format!("from {module} import ");
            if let Some(existing) = self.imports.iter_mut().find(|l| l.starts_with(&head)) {
                if !existing[head.len()..].split(", ").any(|n| n == name) {
                    existing.push_str(", ");
                    existing.push_str(name);
                }
                return;
            }
        }
        if !self.imports.iter().any(|n| n == line) {
            self.imports.push(line.to_string());
        }
    }

    /// Something that does not carry over (one sentence).
    pub(crate) fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    pub(crate) fn line(&mut self, code: impl Into<String>) {
        self.body.push(code.into());
    }

    pub(crate) fn usage(&mut self, code: impl Into<String>) {
        self.usage.push(code.into());
    }

    fn comment(&self) -> &'static str {
        match self.lang {
            Lang::Python => "#",
            Lang::Rust => "//",
        }
    }

    pub(super) fn render(self, config: &ChunkConfig, lib: Library, fidelity: &Fidelity) -> String {
        let c = self.comment();
        let mut out = String::new();
        let overlap = if config.uses_overlap() { format!(", overlap {}", config.overlap) } else { String::new() };
        let head = format!(
            "chunktui strategy {} (size {} {}{overlap}) as {}.",
            config.strategy,
            config.size,
            config.unit,
            lib.title()
        );
        wrap(&mut out, c, "", &head);
        if !config.edits.is_empty() {
            let n = config.edits.len();
            wrap(
                &mut out,
                c,
                "",
                &format!(
                    "Hand-made boundaries: this splitter cannot express the config's {n} [[edits]] (cuts and joins \
                     anchored by text), so its chunks are those without them. For exactly chunktui's chunks run \
                     `chunktui chunk FILE --config CFG`, or chunktui's Python package: \
                     chunktui.Chunker.from_config(CFG).chunk(text)."
                ),
            );
        }
        match fidelity {
            Fidelity::Exact => {
                wrap(&mut out, c, "", "Fidelity: exact: the same chunk texts as `chunktui chunk` with this config.")
            }
            Fidelity::Close(why) => wrap(&mut out, c, "", &format!("Fidelity: close: {why}.")),
            Fidelity::None(why) => {
                wrap(&mut out, c, "", &format!("Fidelity: none: {} has no equivalent: {why}.", lib.title()));
                wrap(&mut out, c, "", "No splitter is built.");
                return out;
            }
        }
        match self.lang {
            Lang::Python => {
                let _ = writeln!(out, "{c} Needs: pip install {}", self.needs.join(" "));
            }
            Lang::Rust => {
                let _ = writeln!(out, "{c} Needs in Cargo.toml [dependencies]:");
                for n in &self.needs {
                    let _ = writeln!(out, "{c}   {n}");
                }
            }
        }
        if !self.notes.is_empty() {
            let _ = writeln!(out, "{c} Does not carry over:");
            for n in &self.notes {
                wrap(&mut out, c, "  - ", n);
            }
        }
        out.push('\n');
        for i in &self.imports {
            let _ = writeln!(out, "{i}");
        }
        if !self.imports.is_empty() {
            out.push('\n');
        }
        for l in &self.body {
            let _ = writeln!(out, "{l}");
        }
        if !self.usage.is_empty() {
            out.push('\n');
            for u in &self.usage {
                let _ = writeln!(out, "{u}");
            }
        }
        out
    }
}

/// Comment lines of at most ~100 columns: `first` starts the first line,
/// the others are indented to match it.
///
/// User values (a model path, a separator) reach comments through here, so
/// every character that could end a comment line in Python or Rust, or hide
/// text from a reader, is written escaped: a line break in a model name must
/// not start a line of code.
fn wrap(out: &mut String, comment: &str, first: &str, text: &str) {
    const WIDTH: usize = 100;
    let text = comment_safe(text);
    let indent = " ".repeat(first.chars().count());
    let mut line = format!("{comment} {first}");
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
            let _ = writeln!(out, "{line}");
            line = format!("{comment} {indent}");
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    let _ = writeln!(out, "{line}");
}

/// `text` with line breaks of any kind (`\n`, a lone `\r`, U+0085, U+2028,
/// U+2029, vertical tab, form feed) and other control or bidi-override
/// characters escaped, so it stays on its comment line.
pub(crate) fn comment_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control()
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') =>
            {
                out.extend(c.escape_unicode())
            }
            c => out.push(c),
        }
    }
    out
}

/// The Hugging Face id of the embedding model a model strategy used, and
/// the note on how it differs from what chunktui ran.
pub(crate) fn model_id(config: &ChunkConfig) -> (String, String) {
    match config.semantic.model.as_deref() {
        None | Some(DEFAULT_MODEL) => (
            "sentence-transformers/all-MiniLM-L6-v2".into(),
            "chunktui runs an int8-quantised ONNX export of this model: distances differ slightly".into(),
        ),
        Some(MULTILINGUAL_MODEL) => (
            "intfloat/multilingual-e5-small".into(),
            "chunktui runs a 4-bit ONNX conversion of this model, every input prefixed with \"query: \": \
             give the same prefix, and expect distances to differ slightly"
                .into(),
        ),
        Some(dir) => (
            dir.to_string(),
            format!("chunktui ran the ONNX model in {dir}: name the same model here (its Hugging Face id)"),
        ),
    }
}

/// The endpoint's settings as Python keyword arguments, and a note on the
/// key, when the config embeds through an API (`[embed]`): `(base, model,
/// dimensions)` for the library's OpenAI-compatible class.
pub(crate) fn endpoint(config: &ChunkConfig, s: &mut Snippet) -> Option<(String, String, Option<usize>)> {
    if !config.embed.is_set() {
        return None;
    }
    let e = &config.embed;
    s.note(
        "the key is read from $OPENAI_API_KEY by the library (chunktui read $CHUNKTUI_EMBED_KEY, else \
         $OPENAI_API_KEY); it is never written here",
    );
    let base = e.url.as_deref().unwrap_or_default().trim().trim_end_matches('/').to_string();
    Some((base, e.model.clone().unwrap_or_default(), e.dimensions))
}

/// The `tokenizer.json` a `hf:PATH` tokenizer names (a directory holds one).
pub(crate) fn hf_tokenizer_file(spec: &str) -> Option<String> {
    let path = spec.strip_prefix("hf:").or_else(|| spec.ends_with(".json").then_some(spec))?;
    if std::path::Path::new(path).is_dir() {
        return Some(std::path::Path::new(path).join("tokenizer.json").display().to_string());
    }
    Some(path.to_string())
}

/// Sentence ends as delimiters for libraries that take a list: Latin ends
/// followed by a space, CJK ends alone (chunktui's segmenter knows more).
pub(crate) const SENTENCE_ENDS: [&str; 6] = [". ", "! ", "? ", "。", "！", "？"];

/// A note for every sentence setting a library's splitter has no place for;
/// `rules` says how the library finds sentences.
pub(crate) fn sentence_notes(config: &ChunkConfig, s: &mut Snippet, rules: &str) {
    if config.strategy == StrategyKind::Sentence {
        if config.sentence.overlap_sentences > 0 {
            s.note(format!(
                "overlap_sentences = {}: chunktui repeats whole sentences; this overlap counts units (set to 0)",
                config.sentence.overlap_sentences
            ));
        }
        if config.sentence.max_sentences > 0 {
            s.note(format!("max_sentences = {}: no limit on sentences per chunk", config.sentence.max_sentences));
        }
        s.note(format!("chunktui's sentence rules (CJK ends, abbreviations like \"e.g.\"): {rules}"));
    }
}

/// The fidelity a library's list gives `kind`; unmapped when it has none.
pub(crate) fn lookup(list: &[(StrategyKind, Fidelity)], kind: StrategyKind) -> Fidelity {
    list.iter().find(|(k, _)| *k == kind).map_or(Fidelity::None(UNMAPPED), |(_, f)| f.clone())
}

/// Load a Hugging Face tokenizer.json as chunktui counts with it: no
/// truncation, no padding, no special tokens.
pub(crate) fn hf_tokenizer(file: &str, s: &mut Snippet) {
    s.need("tokenizers==0.23.3");
    s.import("from tokenizers import Tokenizer");
    if !s.body.iter().any(|l| l.starts_with("_tokenizer = ")) {
        s.line(format!("_tokenizer = Tokenizer.from_file({})", py_str(file)));
        s.line("_tokenizer.no_truncation()");
        s.line("_tokenizer.no_padding()");
        s.line("");
    }
}
