//! Source code cut at its syntax: one tree-sitter parse, then one walk down
//! the tree that only goes as deep as the size makes it.
//!
//! The top-level nodes (functions, classes, impls, imports...) are packed
//! greedily into chunks of at most `size`. Comments, attributes and
//! decorators travel with the node after them (a comment on the same line as
//! the end of a node stays with that node). A node that fits the size is
//! never cut: when it does not fit the open chunk, a new chunk starts at it.
//! A node over the size is replaced by its children (an impl by its methods,
//! a function by its statements), packed the same way, its doc comments
//! going with its first children; a node without children (a long string or
//! comment) falls back to the recursive splitter's paragraphs, lines, words
//! and graphemes. Each chunk names its enclosing symbols, outermost first
//! (`["impl Searcher", "fn find"]`), plus the one item it holds whole, if it
//! holds exactly one.
//!
//! Sizes come from the document's [`SizeIndex`]: every node is measured at
//! most a few times, each in O(1) (chars) or O(log n) (words, tokens).
//! Chunks never overlap (structure chunks would repeat half a function).
//!
//! Without a grammar for the language (none given, or one tree-sitter does
//! not know here) the text goes to the recursive splitter, with that
//! language's preset or the generic `code` preset.
//!
//! [`SizeIndex`]: crate::size::SizeIndex

#[cfg(feature = "code")]
mod grammar;
#[cfg(feature = "code")]
mod walk;
#[cfg(feature = "code")]
pub use walk::MAX_PARSE_BYTES;

use super::recursive::{self, Separators};
use super::{sized, Context, OptionKnob, OverlapRule, SizeRule, Spec, Strategy};
use crate::chunk::Chunk;
use crate::config::{ChunkConfig, RecursiveOptions, StrategyKind};
use crate::error::{Error, Result};
use crate::segment::EachRange;
use crate::size::SizeIndex;
use std::ops::Range;

/// The languages parsed with a tree-sitter grammar (`--language`), in the
/// order the workbench's option key cycles them.
pub const LANGUAGES: &[&str] = &["rust", "python", "javascript", "typescript", "tsx", "go", "java", "c", "cpp"];

pub const SPEC: Spec = Spec {
    name: "code",
    help: "source code cut at functions, classes, impls and modules (tree-sitter), small items packed to --size",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::None,
    has_threshold: false,
    forces_unit: None,
    options: &["--language", "--preset", "--separators", "--regex"],
    option: Some(OptionKnob { show: |c| format!("language={}", shown_language(c)), next: next_language }),
    recut: None,
    formats: &[],
    build,
};

/// The grammar name `language` means: a name of [`LANGUAGES`] or a file
/// extension `assets/languages.toml` maps to one (`ts`, `hpp`).
pub fn grammar_name(language: &str) -> Option<&'static str> {
    let language = language.trim().to_ascii_lowercase();
    let language = language.trim_start_matches('.');
    LANGUAGES.iter().copied().find(|&l| l == language).or_else(|| crate::languages::grammar(language))
}

fn build(c: &ChunkConfig) -> Result<Box<dyn Strategy>> {
    let language = c.code.language.as_deref().filter(|l| !l.trim().is_empty());
    match language.and_then(grammar_name) {
        Some(name) => parsed(name, c),
        None => Ok(Box::new(Fallback { seps: fallback_separators(c, language)? })),
    }
}

#[cfg(feature = "code")]
fn parsed(name: &str, _c: &ChunkConfig) -> Result<Box<dyn Strategy>> {
    Ok(Box::new(walk::Parsed::new(name)?))
}

#[cfg(not(feature = "code"))]
fn parsed(name: &str, c: &ChunkConfig) -> Result<Box<dyn Strategy>> {
    Err(Error::config(format!(
        "strategy 'code' parses {name} with tree-sitter, which this build of chunktui leaves out (feature 'code'): \
         rebuild with the default features, or use --strategy recursive --preset {}",
        preset_for(name).unwrap_or_else(|| c.recursive.preset.clone())
    )))
}

/// The recursive preset named like `language`, or like the language whose
/// grammar it is a dialect of (TypeScript reads best with the JavaScript one).
fn preset_for(language: &str) -> Option<String> {
    let name = match grammar_name(language) {
        Some("typescript" | "tsx") => "javascript",
        Some("cpp") => "c",
        Some(name) => name,
        None => language,
    };
    recursive::preset_names().contains(&name).then(|| name.to_string())
}

/// Separators for a text without a grammar: a custom list if one is set; the
/// preset of the language; a preset chosen on purpose (by `--preset`, or by
/// `chunktui` from the file's extension); else the generic `code` preset.
fn fallback_separators(c: &ChunkConfig, language: Option<&str>) -> Result<Separators> {
    if c.recursive.separators.is_some() {
        return Separators::from_options(&c.recursive, StrategyKind::Recursive);
    }
    if let Some(preset) = language.and_then(preset_for) {
        return Separators::preset(&preset);
    }
    if c.recursive.preset != RecursiveOptions::default().preset {
        return Separators::from_options(&c.recursive, StrategyKind::Recursive);
    }
    Separators::preset("code")
}

/// The recursive splitter, without overlap (as the parsed path has none).
struct Fallback {
    seps: Separators,
}

impl Strategy for Fallback {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        super::collect_each(self, text, cx)
    }

    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        let index = cx.sizer.index(text)?;
        self.cut(text, &index, cx.config.size, 0..text.len(), emit);
        Ok(())
    }

    /// Where the recursive cut starts afresh (see [`recursive::region`]):
    /// with no overlap, nothing but the last chunk's end carries over it,
    /// and that end is the stretch's start.
    fn region_around(&self, text: &str, cx: &Context<'_>, screen: Range<usize>) -> Option<Range<usize>> {
        let index = cx.size_index(text).ok()?;
        recursive::region::around(text, &index, &self.seps, cx.config.size, screen)
    }

    fn region_from(&self, text: &str, cx: &Context<'_>, screen: Range<usize>) -> Option<Range<usize>> {
        let index = cx.size_index(text).ok()?;
        recursive::region::from(text, &index, &self.seps, cx.config.size, screen)
    }

    fn chunk_region(&self, text: &str, region: Range<usize>, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let index = cx.size_index(text)?;
        let mut out = Vec::new();
        self.cut(text, &index, cx.config.size, region, &mut |c| out.push(c));
        Ok(out)
    }
}

impl Fallback {
    /// The chunks of `range`, each handed to `emit` as it is cut, none
    /// starting before the one before it ends.
    fn cut(&self, text: &str, index: &SizeIndex<'_>, size: usize, range: Range<usize>, emit: &mut dyn FnMut(Chunk)) {
        let mut end = range.start;
        let mut apart = EachRange(|r| {
            if let Some(r) = after(text, &mut end, r) {
                emit(sized(r, index));
            }
        });
        recursive::chunk_into(text, index, &self.seps, size, 0, range, &mut apart);
    }
}

/// The recursive splitter's ranges without overlap, one range at a time:
/// `r` from `end` on, trimmed (None when nothing is left), `end` moved past
/// it. With `overlap` 0 the splitter may still repeat trailing pieces that
/// measure nothing (a `}` is no word, and in tokens a piece can share a
/// token with its neighbour); code chunks never repeat text, so each range
/// starts where the one before ended.
fn after(text: &str, end: &mut usize, r: Range<usize>) -> Option<Range<usize>> {
    let r = crate::segment::trim_range(text, r.start.max(*end)..r.end.max(*end));
    *end = (*end).max(r.end);
    (r.start < r.end).then_some(r)
}

fn shown_language(c: &ChunkConfig) -> String {
    match c.code.language.as_deref() {
        Some(l) if grammar_name(l).is_some() || cfg!(not(feature = "code")) => l.to_string(),
        Some(l) => format!("{l} (no grammar)"),
        None => "none".to_string(),
    }
}

/// The option key: the next grammar, then none (the fallback), then the first.
fn next_language(c: &mut ChunkConfig) -> String {
    let current = c.code.language.as_deref().and_then(grammar_name);
    let at = current.and_then(|l| LANGUAGES.iter().position(|&x| x == l));
    c.code.language = match at {
        None => Some(LANGUAGES[0].to_string()),
        Some(i) => LANGUAGES.get(i + 1).map(|l| l.to_string()),
    };
    match &c.code.language {
        Some(l) => format!("code language {l}"),
        None => "code language none: the recursive splitter".to_string(),
    }
}

/// A one-line error for a parse that did not finish.
#[cfg(feature = "code")]
fn parse_failed(language: &str) -> Error {
    Error::config(format!(
        "tree-sitter could not parse the text as {language}: pick the right --language, or leave it out to use \
         the recursive splitter"
    ))
}

#[cfg(test)]
mod tests;
