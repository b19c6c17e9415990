//! `TokenTextSplitter`: `split_text_on_tokens` over a tiktoken encoding.
//!
//! Windows of `size` token ids, stepping by `size - overlap`, each decoded
//! with `errors="replace"`. Byte-level BPE tokens concatenate back to the
//! source bytes, so a window is the byte span of its tokens; when that span
//! cuts through a character the decoded text differs from the source (U+FFFD
//! at the cut) and is kept in the chunk.

use super::{check_special_bpe, LenFn, Placer, Raw};
use crate::chunk::Chunk;
use crate::config::{ChunkConfig, Unit};
use crate::error::{Error, Result};
use crate::size::{ceil_char_boundary, doc_cache, floor_char_boundary, token_segments};
use crate::strategy::{collect_each, Context, OverlapRule, SizeRule, Spec, Strategy};

/// Each window to `out` in order. `size` of each chunk is its window's
/// token count when `tokens_unit`, else left to be measured.
pub fn split(text: &str, cfg: &ChunkConfig, tokens_unit: bool, out: &mut dyn FnMut(Raw)) -> Result<()> {
    let Some(bpe) = crate::bpe::builtin(&cfg.tokenizer) else {
        return Err(Error::config(format!(
            "langchain-token needs a tiktoken encoding (cl100k_base or o200k_base), not '{}'",
            cfg.tokenizer
        )));
    };
    check_special_bpe(text, bpe.core(), &cfg.tokenizer)?;
    let (size, overlap) = (cfg.size, cfg.overlap);
    if size <= overlap {
        return Err(Error::config("tokens_per_chunk must be greater than chunk_overlap"));
    }
    // Token boundaries of the whole text, kept for the next call: the
    // workbench re-chunks the same document on every key press.
    let offsets =
        doc_cache::get_or_build(&format!("tiktoken offsets {}", cfg.tokenizer), text, || token_offsets(text, bpe))?;
    let n = offsets.len() - 1;
    let mut start = 0;
    while start < n {
        let cur = (start + size).min(n);
        let (b0, b1) = (offsets[start] as usize, offsets[cur] as usize);
        let mut raw = if text.is_char_boundary(b0) && text.is_char_boundary(b1) {
            Raw::slice(b0..b1)
        } else {
            Raw::owned(decode_lossy(text, b0..b1), floor_char_boundary(text, b0)..ceil_char_boundary(text, b1))
        };
        raw.size = tokens_unit.then_some(cur - start);
        if b1 > b0 {
            out(raw);
        }
        if cur == n {
            break;
        }
        start += size - overlap;
    }
    Ok(())
}

/// `bytes.decode("utf-8", errors="replace")` of `text`'s bytes in `window`,
/// whose ends may cut a char: only the cut chars at the ends are decoded
/// with U+FFFD, the whole chars between are copied as they are (valid
/// UTF-8 needs no check, and a decoder starts afresh at a char's start, so
/// the three parts decode as the whole does).
fn decode_lossy(text: &str, window: std::ops::Range<usize>) -> String {
    let bytes = text.as_bytes();
    let inner = ceil_char_boundary(text, window.start);
    if inner >= window.end {
        return String::from_utf8_lossy(&bytes[window]).into_owned();
    }
    let inner = inner..floor_char_boundary(text, window.end);
    let mut out = String::with_capacity(window.len() + 6);
    out.push_str(&String::from_utf8_lossy(&bytes[window.start..inner.start]));
    out.push_str(&text[inner.clone()]);
    out.push_str(&String::from_utf8_lossy(&bytes[inner.end..window.end]));
    out
}

/// Byte offsets of the boundaries of `bpe.encode_ordinary(text)`'s tokens,
/// from 0 to `text.len()` (byte-level BPE: token bytes add up to the text),
/// as u32: at `--size 1` the windows are as many as the tokens, and the
/// offsets are what is held.
/// Encoded in the pieces [`crate::size::token_segments`] cuts: the same tokens
/// as one whole encode, except next to a cut forced inside a run of over
/// 192 KB with no space or line break (see there).
fn token_offsets(text: &str, bpe: &crate::bpe::Bpe) -> Result<Vec<u32>> {
    if u32::try_from(text.len()).is_err() {
        return Err(Error::config("langchain-token cuts texts of up to 4 GiB: split the file first"));
    }
    let mut offsets = vec![0];
    let mut pos = 0usize;
    for seg in token_segments(text) {
        bpe.token_lens(&text[seg], |len| {
            pos += len;
            offsets.push(pos as u32);
        });
    }
    debug_assert_eq!(pos, text.len());
    Ok(offsets)
}

pub const SPEC: Spec = Spec {
    name: "langchain-token",
    help: "LangChain's TokenTextSplitter, chunk for chunk: windows of --size tiktoken tokens (always counts tokens)",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Target,
    overlap: OverlapRule::Units,
    has_threshold: false,
    forces_unit: Some(Unit::Tokens),
    options: &["--tokenizer"],
    option: None,
    recut: None,
    formats: &[],
    build: |_| Ok(Box::new(TokenWindows)),
};

struct TokenWindows;

impl Strategy for TokenWindows {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        collect_each(self, text, cx)
    }

    /// Each window placed as it is cut; the token boundaries of the whole
    /// text are held (a few bytes a token), the windows are not. Yet it does
    /// not say it streams (which promises text order): a window that cuts a
    /// character is decoded with U+FFFD, is not found in the text, and sends
    /// the next search back to the text's start.
    fn holds_no_list(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        let len = LenFn::new(cx.sizer);
        let mut placer = Placer::new(text, cx.config.overlap, &len);
        split(text, cx.config, cx.sizer.unit == Unit::Tokens, &mut |raw| emit(placer.place(raw)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every window of a text of 1- to 4-byte chars decodes as Python's
    /// `errors="replace"` (Rust's lossy decoding of the whole window).
    #[test]
    fn a_window_that_cuts_chars_decodes_as_the_whole_window_does() {
        let text = "a中é😀b。\u{10ffff}xé中";
        for start in 0..=text.len() {
            for end in start..=text.len() {
                let want = String::from_utf8_lossy(&text.as_bytes()[start..end]).into_owned();
                assert_eq!(decode_lossy(text, start..end), want, "{start}..{end}");
            }
        }
    }
}
