//! Contextual text: what a pipeline should embed for a chunk. A chunk cut
//! from the middle of a section ("It defaults to 30 seconds.") embeds far
//! better with where it comes from in front of it ("Configuration > Timeouts").
//! Any strategy's chunks get it from their metadata — the heading path, the
//! enclosing code symbols, the pages — so this runs after every strategy, in
//! one place ([`crate::strategy::Configured::chunk`]).
//!
//! With `fit`, `size` holds for the embedded text too: a chunk whose context
//! pushes it over the limit is cut again, by the same strategy, with the
//! room the context leaves, and its pieces keep the chunk's metadata.

use crate::chunk::{Chunk, ChunkMeta, EmbedText};
use crate::config::{ChunkConfig, Unit};
use crate::error::{Error, Result};
use crate::size::{SizeIndex, Sizer};
use crate::strategy::{Configured, SizeRule};

/// Between the context line and the chunk text.
pub const SEPARATOR: &str = "\n\n";

/// Tries at a smaller size before `fit` gives up on a chunk: token counts of
/// a joined text differ from the sum of its parts by a token or two at the
/// seam, so the first cut can land just over.
const FIT_TRIES: usize = 4;

/// The context line for a chunk: its heading path, code symbols and pages,
/// each part present only when known; empty when nothing is known. A chunk
/// that opens with its own heading does not get that heading twice.
pub fn context_of(meta: &ChunkMeta, text: &str) -> String {
    let mut parts = Vec::new();
    // A CSV row means something under its column names: they come first,
    // on a line of their own.
    let header = meta.header.as_deref().map(|h| h.trim_end_matches(['\r', '\n']));
    let mut headings = meta.headings.as_slice();
    if let Some((last, outer)) = headings.split_last() {
        if opening_heading(text) == Some(last.trim()) {
            headings = outer;
        }
    }
    if !headings.is_empty() {
        parts.push(headings.join(" > "));
    }
    if !meta.symbols.is_empty() {
        parts.push(meta.symbols.join(" > "));
    }
    match meta.pages {
        Some([first, last]) if first == last => parts.push(format!("page {first}")),
        Some([first, last]) => parts.push(format!("pages {first}-{last}")),
        None => {}
    }
    // The JSON path, unless it is the whole document's.
    if let Some(path) = meta.json_path.as_deref().filter(|&p| p != "$") {
        parts.push(path.to_string());
    }
    let context = parts.join(" | ");
    match header {
        Some(h) if context.is_empty() => h.to_string(),
        Some(h) => format!("{h}\n{context}"),
        None => context,
    }
}

/// The title of the heading a chunk's text opens with: an ATX heading's
/// text (`## Title`), or the first line when the second underlines it
/// (setext `===` / `---`); None for any other opening.
fn opening_heading(text: &str) -> Option<&str> {
    let mut lines = text.trim_start().lines();
    let first = lines.next()?.trim();
    let atx = first.trim_start_matches('#');
    if atx.len() < first.len() && first.len() - atx.len() <= 6 && (atx.is_empty() || atx.starts_with(' ')) {
        return Some(atx.trim().trim_end_matches('#').trim());
    }
    let underline = lines.next()?.trim();
    let setext =
        !underline.is_empty() && (underline.bytes().all(|b| b == b'=') || underline.bytes().all(|b| b == b'-'));
    setext.then_some(first)
}

/// The text to embed: the context line, a blank line, the chunk's text.
pub fn embed_text(context: &str, text: &str) -> String {
    if context.is_empty() {
        text.to_string()
    } else {
        format!("{context}{SEPARATOR}{text}")
    }
}

/// Why `fit` cannot apply to this config, if it cannot: it needs a
/// strategy that keeps to `size` by cutting text, which the model
/// strategies (cut by meaning) and the LangChain ones (which pass pieces
/// through) are not.
pub fn fit_problem(config: &ChunkConfig) -> Option<String> {
    let spec = config.strategy.spec();
    // hierarchical's chunks nest: re-cutting one would cut a whole hierarchy inside it.
    let flat = config.strategy != crate::config::StrategyKind::Hierarchical;
    let cuts_to_size = spec.size == SizeRule::Limit && !spec.needs_model && !spec.name.starts_with("langchain") && flat;
    (config.embed_text.fit && !cuts_to_size).then(|| {
        format!(
            "embed_text.fit (--embed-text-fit) needs a strategy that cuts to size; '{}' does not: drop \
             --embed-text-fit (--embed-text alone still emits embed_text), or use recursive, markdown, sentence \
             or fixed",
            config.strategy
        )
    })
}

/// Attach `embed` to every chunk (and re-cut for `fit`) when the config
/// asks for contextual text; otherwise hand the chunks back untouched.
pub fn attach(chunks: Vec<Chunk>, text: &str, configured: &Configured) -> Result<Vec<Chunk>> {
    let config = &configured.config;
    if !config.embed_text.enabled {
        return Ok(chunks);
    }
    let counter = TokenCounter::new(configured)?;
    // Sizes of re-cut pieces are counted as the strategies count theirs: on
    // the whole text (a token can straddle a piece's edge).
    let mut index = None;
    let mut out = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let context = context_of(&chunk.meta, chunk.text(text));
        let embedded = measure(&context, chunk.text(text), configured, &counter);
        if config.embed_text.fit && embedded.size > config.size && chunk.meta.text.is_none() {
            let index = match &mut index {
                Some(index) => index,
                None => index.insert(configured.sizer.index(text)?),
            };
            out.extend(refit(&chunk, text, configured, &counter, index)?);
        } else {
            let mut chunk = chunk;
            chunk.meta.embed = Some(embedded);
            out.push(chunk);
        }
    }
    Ok(out)
}

/// Counts tokens under the config's tokenizer: the sizer itself when the
/// unit is tokens, else a tokenizer loaded for the purpose.
enum TokenCounter {
    Sizer,
    Own(Sizer),
}

impl TokenCounter {
    fn new(configured: &Configured) -> Result<Self> {
        Ok(match configured.config.unit {
            Unit::Tokens => TokenCounter::Sizer,
            _ => TokenCounter::Own(Sizer::for_unit(Unit::Tokens, &configured.config.tokenizer)?),
        })
    }

    fn count(&self, configured: &Configured, text: &str) -> usize {
        match self {
            TokenCounter::Sizer => configured.sizer.size(text),
            TokenCounter::Own(sizer) => sizer.size(text),
        }
    }
}

fn measure(context: &str, text: &str, configured: &Configured, counter: &TokenCounter) -> EmbedText {
    let text = embed_text(context, text);
    let size = configured.sizer.size(&text);
    let tokens = counter.count(configured, &text);
    EmbedText { text, size, tokens }
}

/// Cut `chunk` again so that each piece's embedded text fits `size`.
fn refit(
    chunk: &Chunk,
    text: &str,
    configured: &Configured,
    counter: &TokenCounter,
    index: &SizeIndex<'_>,
) -> Result<Vec<Chunk>> {
    let config = &configured.config;
    // The room the longest context leaves: a piece that does not open with
    // the chunk's heading carries the whole heading path.
    let context = context_of(&chunk.meta, "");
    let room = config.size.saturating_sub(configured.sizer.size(&embed_text(&context, "")));
    let mut budget = room;
    for _ in 0..FIT_TRIES {
        if budget == 0 {
            break;
        }
        let mut narrower = config.clone();
        narrower.size = budget;
        // Keep the overlap's share of the size.
        narrower.overlap = config.overlap * budget / config.size;
        narrower.embed_text = Default::default();
        let piece_text = &text[chunk.range.clone()];
        let pieces = Configured::new(&narrower)?.chunk(piece_text, None, crate::embedding::Control::none())?;
        let mut fitted = Vec::with_capacity(pieces.len());
        let mut worst = 0;
        for piece in pieces {
            let range = chunk.range.start + piece.range.start..chunk.range.start + piece.range.end;
            let piece = &text[range.clone()];
            let embedded = measure(&context_of(&chunk.meta, piece), piece, configured, counter);
            worst = worst.max(embedded.size);
            let mut meta = chunk.meta.clone();
            meta.embed = Some(embedded);
            fitted.push(Chunk { size: index.size(range.clone()), range, meta });
        }
        if worst <= config.size {
            return Ok(fitted);
        }
        budget = budget.saturating_sub((worst - config.size).max(1));
    }
    Err(Error::config(format!(
        "the context \"{context}\" leaves no room for text within size {} {}: raise --size, or drop \
         --embed-text-fit",
        config.size, config.unit
    )))
}
