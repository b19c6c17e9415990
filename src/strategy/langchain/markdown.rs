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
    /// The first char of its last line (None when that line is empty).
    last_first: Option<char>,
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
    if all_in_printable_ranges(s) {
        return Cow::Borrowed(s);
    }
    non_printable().replace_all(s, "")
}

/// Whether every char of `s` lies in [`PRINTABLE`]. Runs of printable
/// ASCII are passed over a word at a time and only other chars are
/// decoded: a third of a novel's lines hold a curly quote or an accent, and
/// this check took most of gathering a long section's lines.
fn all_in_printable_ranges(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    loop {
        i += printable_ascii_run(&bytes[i..]);
        let Some(&b) = bytes.get(i) else { return true };
        if b < 0x80 {
            return false;
        }
        // `i` is a char boundary: it only ever moves past whole chars. The
        // run of chars outside ASCII is read here, without going back to
        // the word loop after each one (Chinese prose is such a run).
        for c in s[i..].chars() {
            if c.is_ascii() {
                break;
            }
            if !is_printable_char(c) {
                return false;
            }
            i += c.len_utf8();
        }
    }
}

/// Whether `c` lies in [`PRINTABLE`], CJK ideographs asked first.
fn is_printable_char(c: char) -> bool {
    ('\u{4e00}'..='\u{9fef}').contains(&c) || PRINTABLE.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// The length of the run of printable ASCII (`' '..='~'`) `bytes` starts with.
fn printable_ascii_run(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES * 0x80;
    let mut i = 0;
    while let Some(word) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        // A byte of 0x80 or more, below 0x20, or 0x7f (a zero byte of x ^ 0x7f..).
        let below_space = x.wrapping_sub(ONES * 0x20) & !x;
        let del = (x ^ (ONES * 0x7f)).wrapping_sub(ONES) & !(x ^ (ONES * 0x7f));
        if (x | below_space | del) & HIGH != 0 {
            break;
        }
        i += 8;
    }
    i + bytes[i..].iter().take_while(|&&b| (0x20..0x7f).contains(&b)).count()
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
    last_first: Option<char>,
}

impl Lines {
    /// Add a line; `gather` false for a line that is only followed (before
    /// the stretch a pass hands over), whose text no chunk handed over holds.
    fn push(&mut self, text: &str, range: Range<usize>, gather: bool) {
        match &mut self.range {
            Some(r) => {
                if gather {
                    self.content.push('\n');
                }
                r.end = range.end;
            }
            None => self.range = Some(range),
        }
        if gather {
            self.content.push_str(text);
        }
        self.last_first = text.chars().next();
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
    /// Chunks that start here are handed over.
    within: Range<usize>,
    /// A chunk has begun past `within`: no chunk to hand over is left.
    done: bool,
    /// The range of the chunk that began before `within` (not handed over)
    /// and reaches furthest.
    skipped: Range<usize>,
    emit: &'e mut dyn FnMut(Chunk),
}

impl Out<'_, '_> {
    /// The block read so far, if any (aggregated with the blocks before it
    /// unless each line is returned).
    fn flush(&mut self, lines: &mut Lines, meta: &Rc<Meta>) -> Result<()> {
        let Some(range) = lines.range.take() else { return Ok(()) };
        let content = std::mem::take(&mut lines.content);
        let block = Block { content, meta: meta.clone(), range, last_first: lines.last_first };
        if self.each_line {
            self.hand_over(block);
            return Ok(());
        }
        if let Some(last) = self.last.as_mut() {
            if aggregate(last, &block, self.strip_headers)? {
                // Its text is copied into the held block: the buffer serves
                // the next block (a novel's section is thousands of them).
                lines.content = block.content;
                lines.content.clear();
                return Ok(());
            }
        }
        if let Some(done) = self.last.replace(block) {
            self.hand_over(done);
        }
        let begun = self.last.as_ref().map_or(0, |b| b.range.start);
        self.past(begun);
        Ok(())
    }

    /// Note a chunk that begins at `start`: done when that is past `within`.
    fn past(&mut self, start: usize) {
        if start >= self.within.end {
            self.done = true;
        }
    }

    /// The last block, once the text is read.
    fn finish(&mut self) {
        if let Some(done) = self.last.take() {
            self.hand_over(done);
        }
    }

    fn hand_over(&mut self, b: Block) {
        if !self.within.contains(&b.range.start) {
            if b.range.start < self.within.start && b.range.end > self.skipped.end {
                self.skipped = b.range.clone();
            }
            self.past(b.range.start);
            return;
        }
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

/// LangChain's reading of the text, a line at a time.
struct Reader<'a, 'e> {
    out: Out<'a, 'e>,
    /// Header markers, longest first (as LangChain sorts them).
    headers: Vec<(&'a str, &'a str)>,
    /// ASCII chars a line that is a header or a fence can start with.
    marks: [bool; 128],
    /// The other chars header markers start with.
    other_marks: Vec<char>,
    current: Lines,
    current_meta: Rc<Meta>,
    stack: Vec<(usize, &'a str)>,
    initial: Meta,
    initial_changed: bool,
    in_code: bool,
    fence: &'static str,
}

impl<'a, 'e> Reader<'a, 'e> {
    fn new(
        text: &'a str,
        cfg: &'a ChunkConfig,
        len: &'a LenFn<'a>,
        within: Range<usize>,
        emit: &'e mut dyn FnMut(Chunk),
    ) -> Self {
        let lc = &cfg.langchain;
        // sorted(headers, key=len(marker), reverse=True): stable, longest first.
        let mut headers: Vec<(&str, &str)> = lc.headers.iter().map(|(m, n)| (m.as_str(), n.as_str())).collect();
        headers.sort_by_key(|(m, _)| std::cmp::Reverse(m.chars().count()));
        let (mut marks, mut other_marks) = ([false; 128], Vec::new());
        for first in headers.iter().filter_map(|(m, _)| m.chars().next()).chain(['`', '~']) {
            match marks.get_mut(first as usize) {
                Some(mark) => *mark = true,
                None => other_marks.push(first),
            }
        }
        let (each_line, strip_headers) = (lc.return_each_line, lc.strip_headers);
        let out = Out { text, len, each_line, strip_headers, last: None, within, done: false, skipped: 0..0, emit };
        Reader {
            out,
            headers,
            marks,
            other_marks,
            current: Lines::default(),
            current_meta: Rc::default(),
            stack: Vec::new(),
            initial: Vec::new(),
            initial_changed: false,
            in_code: false,
            fence: "",
        }
    }

    /// Whether a header or a fence can start with `c`.
    fn may_mark(&self, c: char) -> bool {
        self.marks.get(c as usize).copied().unwrap_or_else(|| self.other_marks.contains(&c))
    }

    /// Read the line `line` (without its "\n").
    fn line(&mut self, line: Range<usize>) -> Result<()> {
        let text = self.out.text;
        if line.start < self.out.within.start {
            // Before the stretch handed over, a line whose first char past
            // its indent (a Chinese novel's "\u{3000}\u{3000}") is printable
            // and starts no header or fence is only a line of the block: no
            // need to read the rest of it (nor to strip its end: no chunk
            // handed over ends on it).
            let rest = text[line.clone()].trim_start_matches(super::is_py_space);
            let start = line.end - rest.len();
            // (A line whose indent ends where the stretch starts is gathered.)
            let first = rest.chars().next().filter(|_| start < self.out.within.start);
            if let Some(c) = first.filter(|&c| is_printable_char(c) && !self.may_mark(c)) {
                self.current.push("", start..line.end, false);
                self.current.last_first = Some(c);
                return Ok(());
            }
        }
        let range = py_strip_range(text, line);
        let gather = range.start >= self.out.within.start;
        let stripped = printable(&text[range.clone()]);
        // Only a line that starts as a marker or a fence does can be one.
        let marked = match stripped.chars().next() {
            Some(c) => self.may_mark(c),
            None => self.headers.iter().any(|(sep, _)| sep.is_empty()),
        };

        if marked && !self.in_code {
            if stripped.starts_with("```") && stripped.matches("```").count() == 1 {
                self.in_code = true;
                self.fence = "```";
            } else if stripped.starts_with("~~~") {
                self.in_code = true;
                self.fence = "~~~";
            }
        } else if marked && stripped.starts_with(self.fence) {
            self.in_code = false;
            self.fence = "";
        }
        if self.in_code {
            self.current.push(&stripped, range, gather);
            return Ok(());
        }

        let header = self.headers.iter().filter(|_| marked).find(|(sep, _)| {
            stripped.starts_with(sep) && (stripped.len() == sep.len() || stripped[sep.len()..].starts_with(' '))
        });
        match header {
            Some(&(sep, name)) => {
                let level = sep.matches('#').count();
                while let Some(&(top, top_name)) = self.stack.last() {
                    if top < level {
                        break;
                    }
                    self.stack.pop();
                    self.initial.retain(|(k, _)| k != top_name);
                }
                self.stack.push((level, name));
                dict_set(&mut self.initial, name, py_strip(&stripped[sep.len()..]));
                self.initial_changed = true;
                self.out.flush(&mut self.current, &self.current_meta)?;
                if !self.out.strip_headers {
                    self.current.push(&stripped, range, gather);
                }
            }
            None => {
                if !stripped.is_empty() {
                    self.current.push(&stripped, range, gather);
                } else {
                    self.out.flush(&mut self.current, &self.current_meta)?;
                }
            }
        }
        // `current_metadata = initial_metadata.copy()` after every line.
        if self.initial_changed {
            self.current_meta = Rc::new(self.initial.clone());
            self.initial_changed = false;
        }
        Ok(())
    }

    /// The text read: the last blocks handed over.
    fn finish(&mut self) -> Result<()> {
        self.out.flush(&mut self.current, &self.current_meta)?;
        self.out.finish();
        Ok(())
    }
}

/// Each line of `text` (its range, without the "\n").
fn lines(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain(std::iter::once(text.len()));
    let mut start = 0;
    ends.map(move |end| {
        let line = start..end;
        start = end + 1;
        line
    })
}

/// The chunks of `text`, each handed to `emit` once no later line can join it.
pub fn chunk_each(text: &str, cfg: &ChunkConfig, len: &LenFn<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
    chunk_starting_in(text, cfg, len, 0..usize::MAX, emit)
}

/// The chunks of the whole cut that start in `within`, handed to `emit`:
/// the lines before it are only followed (headers, fences, the block they
/// make), and reading stops once a chunk begins past it.
fn chunk_starting_in(
    text: &str,
    cfg: &ChunkConfig,
    len: &LenFn<'_>,
    within: Range<usize>,
    emit: &mut dyn FnMut(Chunk),
) -> Result<()> {
    let mut reader = Reader::new(text, cfg, len, within, emit);
    for line in lines(text) {
        reader.line(line)?;
        if reader.out.done {
            return Ok(());
        }
    }
    reader.finish()
}

/// Bytes before the screen from which [`screen_chunks`] gathers lines.
const GATHER_BEFORE: usize = 64 * 1024;

/// The whole cut's chunks that start from about `gather_before` bytes
/// before `screen` to the first chunk past it, in one reading that only
/// follows the lines before that: a run of the whole cut holding every
/// chunk that meets the screen. When a chunk begun before that reaches the
/// screen (a section longer than `gather_before`), a second reading
/// gathers from where it begins.
fn screen_chunks(
    text: &str,
    cfg: &ChunkConfig,
    len: &LenFn<'_>,
    screen: Range<usize>,
    gather_before: usize,
) -> Result<Vec<Chunk>> {
    let at = screen.start.min(text.len());
    let back = crate::size::floor_char_boundary(text, at.saturating_sub(gather_before));
    let from = memchr::memrchr(b'\n', &text.as_bytes()[..back]).map_or(0, |i| i + 1);
    let mut chunks = Vec::new();
    let begun_before = {
        let mut keep = |c| chunks.push(c);
        let mut reader = Reader::new(text, cfg, len, from..screen.end, &mut keep);
        let mut begun_before = None;
        for line in lines(text) {
            // A block open since before `from` reaches the screen: its
            // chunk begins there at the latest (or where the block held
            // before it does, if the two are joined). Gathering the rest of
            // it here would be wasted.
            let open = reader.current.range.as_ref().map(|r| r.start).filter(|&s| s < from);
            if let Some(open) = open.filter(|_| line.start >= screen.start) {
                begun_before = Some(reader.out.last.as_ref().map_or(open, |b| b.range.start.min(open)));
                break;
            }
            reader.line(line)?;
            if reader.out.done {
                break;
            }
        }
        if begun_before.is_none() && !reader.out.done {
            reader.finish()?;
        }
        let skipped = &reader.out.skipped;
        begun_before.or((skipped.end > screen.start).then_some(skipped.start))
    };
    let Some(begun) = begun_before else { return Ok(chunks) };
    chunks.clear();
    chunk_starting_in(text, cfg, len, begun..screen.end, &mut |c| chunks.push(c))?;
    Ok(chunks)
}

/// One step of `aggregate_lines_to_chunks`: add block `b` to `last`, the
/// block before it, when they go together (true), else leave both.
fn aggregate(last: &mut Block, b: &Block, strip_headers: bool) -> Result<bool> {
    let same = dict_eq(&last.meta, &b.meta);
    let deeper_after_header = !same
        && last.meta.len() < b.meta.len()
        && {
            // Python indexes [0] of the last line here and raises
            // IndexError when it is empty.
            let first = last.last_first.ok_or_else(|| {
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
    last.last_first = b.last_first;
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
    formats: &[],
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

    /// The chunks around the screen first, gathered from a little before
    /// it in one reading that only follows the lines before that (a few
    /// milliseconds where the stream reaches the middle of a 9 MB text in
    /// 10–20), then the whole stream.
    fn chunk_each_around(
        &self,
        text: &str,
        cx: &Context<'_>,
        screen: Range<usize>,
        early: &mut dyn FnMut(Vec<Chunk>),
        emit: &mut dyn FnMut(Chunk),
    ) -> Result<()> {
        let len = LenFn::new(cx.sizer);
        // A text LangChain fails on fails in the stream below all the same.
        if let Ok(around) = screen_chunks(text, cx.config, &len, screen, GATHER_BEFORE) {
            early(around);
        }
        chunk_each(text, cx.config, &len, emit)
    }

    fn hands_screen_early(&self) -> bool {
        true
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

    /// Every char of texts that aggregate across headers and blank lines,
    /// hold fences, and end a chunk with an empty line: the chunks gathered
    /// around a screen there are a run of the whole cut holding every chunk
    /// on it, however near the screen the gathering starts.
    #[test]
    fn the_chunks_around_a_screen_are_a_run_of_the_whole_cut_holding_it() {
        let texts = [
            "# A\nintro\n\nmore intro\n## B\nbody\n```\n# not a header\n\n```\n# A\nsame meta\n### C\n\u{200b}# D\nx\n",
            "\u{3000}# 标题\n正文。\n~~~\n## 代码\n~~~\n# 标题\n\n## 二\n内容\n",
            "plain\nlines\n# H\n```py\n\n",
            "# H\n```\n\n```\n## I\ntext\n",
            "§ 一\n正文\n§§ 二\n\n§§ 二\n再\n# 三\n§ 一\n",
            "§ 一\n正文\n\n# 三\n内容\n\n更多\n",
            // A novel's indented paragraphs; indented lines that are a header, a fence, nothing.
            "\u{3000}\u{3000}第一段。\n\u{3000}\u{3000}第二段。\n  # 章\n\t正文\n \u{3000}```\n\u{3000}# 码\n```\n\u{3000}\n \u{200b}x\n",
        ];
        let sizer = crate::size::Sizer::chars();
        let len = LenFn::new(&sizer);
        let section_signs = vec![("§".into(), "h1".into()), ("§§".into(), "h2".into()), ("#".into(), "h3".into())];
        let options = [(false, true), (false, false), (true, true), (true, false)];
        for (headers, (each_line, strip_headers)) in
            [None, Some(section_signs)].iter().flat_map(|h| options.map(|o| (h, o)))
        {
            let mut cfg = ChunkConfig::default();
            (cfg.langchain.return_each_line, cfg.langchain.strip_headers) = (each_line, strip_headers);
            if let Some(headers) = headers {
                cfg.langchain.headers = headers.clone();
            }
            for text in texts {
                let mut whole = Vec::new();
                let cut = chunk_each(text, &cfg, &len, &mut |c| whole.push(c));
                if headers.is_some() && text.starts_with('§') {
                    let under = |c: &Chunk| c.meta.headings.first().is_some_and(|h| h == "一");
                    assert!(whole.iter().any(under), "a marker that starts with a non-ASCII char: {text:?}");
                }
                for (at, _) in text.char_indices() {
                    let screen = at..(at + 3).min(text.len());
                    let flags = format!("{headers:?} each_line {each_line} strip {strip_headers}, {text:?} at {at}");
                    let on_screen = |c: &&Chunk| c.range.start < screen.end && c.range.end > screen.start;
                    // Gathered from near the screen, or from where a chunk
                    // begun earlier that reaches it begins.
                    for gather_before in [0, 1, 3, 8, 20, 1000] {
                        let early = screen_chunks(text, &cfg, &len, screen.clone(), gather_before);
                        let flags = format!("{flags}, gathering {gather_before} bytes before");
                        let (Ok(()), Ok(early)) = (&cut, &early) else {
                            // LangChain fails on the text: where it does
                            // before the screen, so do the screen's chunks.
                            assert!(cut.is_err(), "{flags}: only the whole cut fails");
                            continue;
                        };
                        let at = whole.iter().position(|c| Some(c) == early.first()).unwrap_or(0);
                        let run = &whole[at..(at + early.len()).min(whole.len())];
                        assert_eq!(early.as_slice(), run, "{flags}: not a run of the whole cut");
                        assert!(whole.iter().filter(on_screen).all(|c| early.contains(c)), "{flags}: misses a chunk");
                    }
                }
            }
        }
    }

    #[test]
    fn the_range_check_reads_every_char_across_words_of_8_bytes() {
        let slow = |s: &str| s.chars().all(|c| PRINTABLE.iter().any(|&(lo, hi)| (lo..=hi).contains(&c)));
        let odd = ['a', '\t', '“', '中', '\u{a0}', '\u{7f}', 'é', '\u{ad}', ' ', '😀'];
        for (len, background) in (0..40).flat_map(|len| [(len, 'a'), (len, '“')]) {
            for &c in &odd {
                for at in 0..len {
                    let s: String = (0..len).map(|i| if i == at { c } else { background }).collect();
                    assert_eq!(all_in_printable_ranges(&s), slow(&s), "{s:?}");
                }
            }
        }
        assert!(all_in_printable_ranges("“Well, Prince, so Genoa and Lucca are now just family estates.”"));
        assert!(!all_in_printable_ranges(&format!("{}\u{200b}", "x".repeat(33))));
    }

    #[test]
    fn the_ascii_run_stops_at_the_first_byte_outside_space_to_tilde() {
        // Word-at-a-time borrows must not flag a printable byte beside an
        // edge value, nor miss 0x1f, 0x7f or 0x80 anywhere in a word.
        for background in [b' ', b'~', b'a', b'!'] {
            for len in 0..20 {
                for byte in 0..=255u8 {
                    for at in 0..len {
                        let mut s = vec![background; len];
                        s[at] = byte;
                        let plain = s.iter().take_while(|&&b| (0x20..0x7f).contains(&b)).count();
                        assert_eq!(printable_ascii_run(&s), plain, "{s:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn printable_drops_what_python_drops() {
        assert_eq!(printable("a\tb\u{a0}c\u{3000}d\u{200b}e 中"), "abcde 中");
        assert!(super::super::is_py_space('\u{1f}'));
    }
}
