//! `MarkdownHeaderTextSplitter(headers_to_split_on, return_each_line,
//! strip_headers)`.
//!
//! LangChain rewrites the text: every line is `strip()`ped and loses its
//! non-printable characters (`str.isprintable`: tabs, NBSP, U+3000, zero-width
//! characters...), lines of a block are joined with `"\n"`, and blocks with the
//! same metadata are joined with `"  \n"`. A chunk's range is the source span
//! from its first to its last line; `meta.text` holds the rewritten content
//! when it differs from that span.

use super::{py_strip, py_strip_range, LenFn};
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::error::{Error, Result};
use crate::strategy::{collect_each, Context, OverlapRule, SizeRule, Spec, Strategy};
use std::borrow::Cow;
use std::ops::Range;
use std::rc::Rc;
use std::sync::OnceLock;

type Meta = Vec<(String, String)>;

struct Block {
    content: String,
    /// Shared by the blocks under the same headers.
    meta: Rc<Meta>,
    range: Range<usize>,
}

/// Characters Python's `str.isprintable()` rejects, except ASCII controls
/// (checked directly): categories C* and Z* other than the space.
fn non_printable() -> &'static regex::Regex {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"[[\p{C}\p{Z}]--[ ]]").expect("valid class"))
}

/// Ranges of letters, marks and punctuation that are all printable (no
/// control, format, separator or unassigned code point in them, as the
/// regex's tables and Python's agree; checked char by char by a test): the
/// lines of Chinese, Russian or typeset English prose are settled without
/// the regex.
const PRINTABLE: [(char, char); 9] = [
    (' ', '~'),
    ('\u{a1}', '\u{ac}'),
    ('\u{ae}', '\u{17f}'),
    ('\u{410}', '\u{44f}'),
    ('\u{2010}', '\u{2027}'),
    ('\u{2030}', '\u{205e}'),
    ('\u{3001}', '\u{303f}'),
    ('\u{4e00}', '\u{9fef}'),
    ('\u{ff01}', '\u{ff5e}'),
];

/// `"".join(filter(str.isprintable, s))`.
fn printable(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Cow::Borrowed(s);
    }
    if s.chars().all(|c| PRINTABLE.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))) {
        return Cow::Borrowed(s);
    }
    non_printable().replace_all(s, "")
}

/// Python dict assignment: update in place or append.
fn dict_set(meta: &mut Meta, name: &str, value: &str) {
    match meta.iter_mut().find(|(k, _)| k == name) {
        Some(entry) => entry.1 = value.to_string(),
        None => meta.push((name.to_string(), value.to_string())),
    }
}

/// Python dict equality (order does not matter).
fn dict_eq(a: &Rc<Meta>, b: &Rc<Meta>) -> bool {
    Rc::ptr_eq(a, b) || a.len() == b.len() && a.iter().all(|(k, v)| b.iter().any(|(k2, v2)| k == k2 && v == v2))
}

/// The lines of the block being read, joined with "\n" as they come.
#[derive(Default)]
struct Lines {
    content: String,
    range: Option<Range<usize>>,
}

impl Lines {
    fn push(&mut self, text: &str, range: Range<usize>) {
        match &mut self.range {
            Some(r) => {
                self.content.push('\n');
                r.end = range.end;
            }
            None => self.range = Some(range),
        }
        self.content.push_str(text);
    }
}

/// The blocks, made chunks as soon as no later block can join them: only the
/// last block is held (the next one may be aggregated into it).
struct Out<'a, 'e> {
    text: &'a str,
    len: &'a LenFn<'a>,
    each_line: bool,
    strip_headers: bool,
    last: Option<Block>,
    emit: &'e mut dyn FnMut(Chunk),
}

impl Out<'_, '_> {
    /// The block read so far, if any (aggregated with the blocks before it
    /// unless each line is returned).
    fn flush(&mut self, lines: &mut Lines, meta: &Rc<Meta>) -> Result<()> {
        let Some(range) = lines.range.take() else { return Ok(()) };
        let block = Block { content: std::mem::take(&mut lines.content), meta: meta.clone(), range };
        if self.each_line {
            self.hand_over(block);
            return Ok(());
        }
        if let Some(last) = self.last.as_mut() {
            if aggregate(last, &block, self.strip_headers)? {
                return Ok(());
            }
        }
        if let Some(done) = self.last.replace(block) {
            self.hand_over(done);
        }
        Ok(())
    }

    /// The last block, once the text is read.
    fn finish(&mut self) {
        if let Some(done) = self.last.take() {
            self.hand_over(done);
        }
    }

    fn hand_over(&mut self, b: Block) {
        let size = self.len.len(&b.content);
        let mut c = Chunk::new(b.range.clone(), size);
        c.meta.headings = b.meta.iter().map(|(_, v)| v.clone()).collect();
        c.meta.fields = Rc::unwrap_or_clone(b.meta);
        if self.text[b.range] != b.content {
            c.meta.text = Some(b.content);
        }
        (self.emit)(c)
    }
}

/// The chunks of `text`, each handed to `emit` once no later line can join it.
pub fn chunk_each(text: &str, cfg: &ChunkConfig, len: &LenFn<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
    let lc = &cfg.langchain;
    // sorted(headers, key=len(marker), reverse=True): stable, longest first.
    let mut headers: Vec<(&str, &str)> = lc.headers.iter().map(|(m, n)| (m.as_str(), n.as_str())).collect();
    headers.sort_by_key(|(m, _)| std::cmp::Reverse(m.chars().count()));

    // Blocks are aggregated as they are read: never one entry per line.
    let (each_line, strip_headers) = (lc.return_each_line, lc.strip_headers);
    let mut out = Out { text, len, each_line, strip_headers, last: None, emit };
    let mut current = Lines::default();
    let mut current_meta: Rc<Meta> = Rc::default();
    let mut stack: Vec<(usize, &str)> = Vec::new();
    let mut initial: Meta = Vec::new();
    let mut initial_changed = false;
    let mut in_code = false;
    let mut fence = "";

    let mut line_start = 0;
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).chain(std::iter::once(text.len()));
    for line_end in lines {
        let range = py_strip_range(text, line_start..line_end);
        line_start = line_end + 1;
        let stripped = printable(&text[range.clone()]);

        if !in_code {
            if stripped.starts_with("```") && stripped.matches("```").count() == 1 {
                in_code = true;
                fence = "```";
            } else if stripped.starts_with("~~~") {
                in_code = true;
                fence = "~~~";
            }
        } else if stripped.starts_with(fence) {
            in_code = false;
            fence = "";
        }
        if in_code {
            current.push(&stripped, range);
            continue;
        }

        let header = headers.iter().find(|(sep, _)| {
            stripped.starts_with(sep) && (stripped.len() == sep.len() || stripped[sep.len()..].starts_with(' '))
        });
        match header {
            Some(&(sep, name)) => {
                let level = sep.matches('#').count();
                while let Some(&(top, top_name)) = stack.last() {
                    if top < level {
                        break;
                    }
                    stack.pop();
                    initial.retain(|(k, _)| k != top_name);
                }
                stack.push((level, name));
                dict_set(&mut initial, name, py_strip(&stripped[sep.len()..]));
                initial_changed = true;
                out.flush(&mut current, &current_meta)?;
                if !lc.strip_headers {
                    current.push(&stripped, range);
                }
            }
            None => {
                if !stripped.is_empty() {
                    current.push(&stripped, range);
                } else {
                    out.flush(&mut current, &current_meta)?;
                }
            }
        }
        // `current_metadata = initial_metadata.copy()` after every line.
        if initial_changed {
            current_meta = Rc::new(initial.clone());
            initial_changed = false;
        }
    }
    out.flush(&mut current, &current_meta)?;
    out.finish();
    Ok(())
}

/// One step of `aggregate_lines_to_chunks`: add block `b` to `last`, the
/// block before it, when they go together (true), else leave both.
fn aggregate(last: &mut Block, b: &Block, strip_headers: bool) -> Result<bool> {
    let same = dict_eq(&last.meta, &b.meta);
    let deeper_after_header = !same
        && last.meta.len() < b.meta.len()
        && {
            let last_line = last.content.rsplit('\n').next().unwrap_or("");
            // Python indexes [0] here and raises IndexError on an empty line.
            let first = last_line.chars().next().ok_or_else(|| {
                Error::input("LangChain's MarkdownHeaderTextSplitter raises IndexError on this text (a chunk ends with an empty line)")
            })?;
            first == '#' && !strip_headers
        };
    if !(same || deeper_after_header) {
        return Ok(false);
    }
    last.content.push_str("  \n");
    last.content.push_str(&b.content);
    last.range.end = b.range.end;
    if deeper_after_header {
        last.meta = b.meta.clone();
    }
    Ok(true)
}

pub const SPEC: Spec = Spec {
    name: "langchain-markdown-header",
    help: "LangChain's MarkdownHeaderTextSplitter, chunk for chunk: one chunk per header section, headers in meta",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Ignored,
    overlap: OverlapRule::None,
    has_threshold: false,
    forces_unit: None,
    options: &["langchain.headers", "langchain.strip_headers", "langchain.return_each_line"],
    option: None,
    recut: None,
    build: |_| Ok(Box::new(HeaderSections)),
};

struct HeaderSections;

impl Strategy for HeaderSections {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        collect_each(self, text, cx)
    }

    /// A chunk spans its block's lines, and blocks follow each other (an
    /// aggregated block grows to the end of the block joined to it): chunks
    /// come in text order.
    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        chunk_each(text, cx.config, &LenFn::new(cx.sizer), emit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_printable_ranges_hold_nothing_the_regex_drops() {
        for &(lo, hi) in &PRINTABLE {
            for c in lo..=hi {
                assert!(!non_printable().is_match(&c.to_string()), "U+{:04X}", c as u32);
            }
        }
    }

    #[test]
    fn printable_drops_what_python_drops() {
        assert_eq!(printable("a\tb\u{a0}c\u{3000}d\u{200b}e 中"), "abcde 中");
        assert!(super::super::is_py_space('\u{1f}'));
    }
}
