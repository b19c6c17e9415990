//! The whole document as one chunk: the baseline every other strategy is
//! measured against (and what a small file often needs).

use super::{ranges_to_chunks, Context, OverlapRule, SizeRule, Spec, Strategy};
use crate::chunk::Chunk;
use crate::error::Result;

pub const SPEC: Spec = Spec {
    name: "document",
    help: "the whole file as one chunk, byte for byte (a baseline)",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Ignored,
    overlap: OverlapRule::None,
    has_threshold: false,
    forces_unit: None,
    options: &[],
    option: None,
    recut: None,
    build: |_| Ok(Box::new(Whole)),
};

struct Whole;

impl Strategy for Whole {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        // Nothing at all for blank text.
        let whole = if text.trim().is_empty() { Vec::new() } else { std::iter::once(0..text.len()).collect() };
        Ok(ranges_to_chunks(whole, &cx.sizer.index(text)?))
    }
}
