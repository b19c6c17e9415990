//! The default chunk size, fitted to the embedding model's input limit in
//! the model's own tokens. The per-language defaults (700 characters of
//! prose, fewer for CJK text and code) suit ordinary text; a document dense
//! in what splits into many word pieces (a changelog of flags, URLs and
//! issue numbers, a table of identifiers) would get chunks over the limit,
//! which our own lint then rejects. So when no size is given, the
//! document's opening is measured with the model's tokenizer (the
//! endpoint's limit for an API model) and the default shrinks until at most
//! 2 % of its stretches of that many characters run over (the lint's own
//! tolerance). Text where the default already fits keeps it.

use crate::config::ChunkConfig;
use std::path::Path;

/// The share of windows that may run over the limit (the lint's own tolerance).
// Used by `fitted`, which measures only with the `embed` feature.
#[cfg_attr(not(feature = "embed"), allow(dead_code))]
const OVER_PER_MILLE: usize = 20;

/// The largest size in characters, at most `current` and stepping down by
/// 50, at which at most 2 % of the windows of that many characters in the
/// file's first 64 KiB run over the model's limit (with its special
/// tokens). `None`: keep `current` (it fits, or nothing to measure with).
#[cfg(feature = "embed")]
pub fn fitted(config: &ChunkConfig, file: &Path, current: usize) -> Option<usize> {
    use crate::document::DocKind;
    // HTML and PDF are measured as their extracted text, which the file's
    // bytes are not: they keep the default.
    if matches!(DocKind::from_extension(file), Some(DocKind::Html | DocKind::Pdf)) {
        return None;
    }
    let tokens = model_tokens(config)?;
    let limit = crate::lint::LintOptions::new(config, crate::document::DocKind::Text).ok()?.max_tokens;
    let text = head(file)?;
    let fits = |size: usize| over_per_mille(&text, size, &|s| tokens.tokenizer.count(s) + tokens.specials > limit);
    if fits(current)? <= OVER_PER_MILLE {
        return None;
    }
    let mut size = current / 50 * 50;
    while size > 100 && fits(size).is_some_and(|o| o > OVER_PER_MILLE) {
        size -= 50;
    }
    Some(size.max(100))
}

#[cfg(not(feature = "embed"))]
pub fn fitted(_config: &ChunkConfig, _file: &Path, _current: usize) -> Option<usize> {
    None
}

/// The model's tokenizer, loaded once per model in this process.
#[cfg(feature = "embed")]
fn model_tokens(config: &ChunkConfig) -> Option<crate::lint::TokenCount> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static LOADED: Mutex<Option<HashMap<Option<String>, Option<crate::lint::TokenCount>>>> = Mutex::new(None);
    let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
    let map = loaded.get_or_insert_with(HashMap::new);
    map.entry(config.model_key()).or_insert_with(|| crate::lint::model_tokens(config)).clone()
}

/// The first 64 KiB of a regular file, as text: what the defaults that
/// depend on a file are judged by. A pipe or device is left alone: opening
/// a FIFO would block for a writer, and closing it again would throw away
/// what the writer sent.
pub fn head(file: &Path) -> Option<String> {
    use std::io::Read;
    if !std::fs::metadata(file).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut bytes = Vec::with_capacity(64 * 1024);
    std::fs::File::open(file).ok()?.take(64 * 1024).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Per mille of `text`'s consecutive windows of `size` characters that
/// are `over`; `None` for text shorter than two windows.
// Used by `fitted`, which measures only with the `embed` feature.
#[cfg_attr(not(feature = "embed"), allow(dead_code))]
fn over_per_mille(text: &str, size: usize, over: &dyn Fn(&str) -> bool) -> Option<usize> {
    let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).step_by(size.max(1)).chain([text.len()]).collect();
    let windows: Vec<&str> =
        starts.windows(2).map(|w| &text[w[0]..w[1]]).filter(|w| w.chars().count() == size).collect();
    if windows.len() < 2 {
        return None;
    }
    Some(windows.iter().filter(|w| over(w)).count() * 1000 / windows.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_over_the_limit_are_counted_per_mille() {
        let text = format!("{}{}", "a".repeat(900), "b".repeat(100));
        let has_b = |w: &str| w.contains('b');
        assert_eq!(over_per_mille(&text, 100, &has_b), Some(100));
        assert_eq!(over_per_mille(&text, 600, &has_b), None, "one whole window only");
        assert_eq!(over_per_mille("中文字符", 2, &|w| w == "字符"), Some(500));
    }
}
