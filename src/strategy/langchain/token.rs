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
            let decoded = String::from_utf8_lossy(&text.as_bytes()[b0..b1]).into_owned();
            Raw::owned(decoded, floor_char_boundary(text, b0)..ceil_char_boundary(text, b1))
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
