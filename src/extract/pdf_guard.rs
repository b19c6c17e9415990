//! What a PDF may cost before pdf-extract reads it.
//!
//! pdf-extract (over lopdf) trusts its input: it inflates every stream it
//! touches whole, parses a page's drawing instructions into memory at some
//! forty times their size, and draws a form XObject by calling itself, so a
//! form that draws itself recurses until the stack overflows (an abort no
//! `catch_unwind` catches). This module walks the document first, holding no
//! more than a buffer of any stream at a time:
//!
//! - every stream pdf-extract or lopdf would inflate (object and xref
//!   streams while loading, each page's contents, every XObject a page draws)
//!   is inflated through a counter that stops at its limit, so a
//!   decompression bomb costs the limit, never its full size;
//! - the inflated bytes of the whole file count against the document limit
//!   (`--max-input-mb`, 1 GiB by default), and one stream against an eighth
//!   of it (lopdf holds a stream whole, and twice that while it grows);
//! - the drawing instructions a page makes pdf-extract hold and run (its
//!   contents plus every form drawn, as often as it is drawn) are counted,
//!   and limited to the document limit / 512 per page and / 64 per file,
//!   which keeps memory well under a GiB and time within a minute;
//! - the XObject graph is walked with an explicit stack: a form that draws
//!   itself (directly or through others), forms nested more than
//!   [`MAX_FORM_DEPTH`] deep, and a page tree whose `/Parent` chain loops or
//!   runs deeper than [`MAX_TREE_DEPTH`] make the file damaged.

use pdf_extract::{Dictionary, Document, Object, ObjectId, Stream};
use std::collections::{HashMap, HashSet};
use std::io::Read;

/// Forms drawn inside forms, deeper than this: a damaged (or hostile) file.
pub const MAX_FORM_DEPTH: usize = 64;
/// A page's `/Parent` chain longer than this: a damaged file.
pub const MAX_TREE_DEPTH: usize = 256;

/// Why a PDF is refused before it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Over a limit that `--max-input-mb` raises: what went over.
    TooBig(String),
    /// Damaged structure (loops, absurd nesting): what is wrong.
    Damaged(String),
}

/// The limits, all derived from the document limit in bytes.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Inflated bytes of the whole file.
    pub total: u64,
}

impl Limits {
    pub fn new(document_bytes: u64) -> Limits {
        Limits { total: document_bytes.max(1) }
    }
    /// One stream, inflated.
    fn stream(&self) -> u64 {
        (self.total / 8).max(1 << 20)
    }
    /// Drawing-instruction tokens one page runs.
    fn page_tokens(&self) -> u64 {
        (self.total / 512).max(1 << 16)
    }
    /// Drawing-instruction tokens the whole file runs.
    fn file_tokens(&self) -> u64 {
        (self.total / 64).max(1 << 19)
    }
    fn mib(&self) -> u64 {
        self.total.div_ceil(1 << 20)
    }
    fn too_big(&self, what: String) -> Refusal {
        Refusal::TooBig(format!("{what}; the document limit is {} MiB", self.mib()))
    }
}

/// Inflated more than allowed.
struct Over;

/// Inflation of one file: the running total and the limits.
struct Inflater {
    limits: Limits,
    total: u64,
}

impl Inflater {
    /// Hand `stream`'s decoded bytes to `sink` piece by piece; its decoded
    /// length, or [`Refusal::TooBig`] once the stream or the file goes over.
    fn decode(&mut self, stream: &Stream, sink: &mut dyn FnMut(&[u8])) -> Result<u64, Refusal> {
        let filters: Vec<&[u8]> = stream.filters().unwrap_or_default();
        let params = stream.dict.get(b"DecodeParms").and_then(Object::as_dict).ok();
        let predictor = params.and_then(|p| p.get(b"Predictor").ok()).and_then(|p| p.as_i64().ok()).unwrap_or(1) > 1;
        if !predictor {
            return self.decode_bytes(&stream.content, &filters, params, sink);
        }
        // Rows filtered by a predictor: count through the filters, then let
        // lopdf undo the predictor on what is now known to be small.
        let len = self.decode_bytes(&stream.content, &filters, params, &mut |_| {})?;
        sink(&stream.decompressed_content().unwrap_or_else(|_| stream.content.clone()));
        Ok(len)
    }

    fn decode_bytes(
        &mut self,
        content: &[u8],
        filters: &[&[u8]],
        params: Option<&Dictionary>,
        sink: &mut dyn FnMut(&[u8]),
    ) -> Result<u64, Refusal> {
        let per_stream = self.limits.stream();
        let left = self.limits.total.saturating_sub(self.total);
        let limit = per_stream.min(left);
        let mut len = 0u64;
        let outcome = decode_chain(content, filters, params, limit, &mut |piece| {
            len += piece.len() as u64;
            if len > limit {
                return Err(Over);
            }
            sink(piece);
            Ok(())
        });
        if outcome.is_err() {
            return Err(if limit < per_stream {
                self.limits.too_big(format!("its compressed streams inflate to more than {} MiB", self.limits.mib()))
            } else {
                self.limits.too_big(format!("a compressed stream inflates to more than {} MiB", per_stream >> 20))
            });
        }
        self.total += len;
        Ok(len)
    }
}

/// Decode `input` through `filters` (decoding order): every stage but the
/// last into a buffer of at most `limit` bytes, the last straight to `sink`.
fn decode_chain(
    input: &[u8],
    filters: &[&[u8]],
    params: Option<&Dictionary>,
    limit: u64,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), Over>,
) -> Result<(), Over> {
    let Some((last, first)) = filters.split_last() else {
        return sink(input);
    };
    let mut data: Option<Vec<u8>> = None;
    for filter in first {
        let mut out = Vec::new();
        decode_stage(data.as_deref().unwrap_or(input), filter, params, &mut |p| {
            if (out.len() + p.len()) as u64 > limit {
                return Err(Over);
            }
            out.extend_from_slice(p);
            Ok(())
        })?;
        data = Some(out);
    }
    decode_stage(data.as_deref().unwrap_or(input), last, params, sink)
}

/// One filter, as lopdf decodes it (a damaged stream yields what came out
/// before the damage), its output handed on in pieces.
fn decode_stage(
    input: &[u8],
    filter: &[u8],
    params: Option<&Dictionary>,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), Over>,
) -> Result<(), Over> {
    match filter {
        b"FlateDecode" | b"Fl" => {
            let produced = inflate(flate2::read::ZlibDecoder::new(input), sink)?;
            if produced == 0 && input.len() > 2 {
                inflate(flate2::read::DeflateDecoder::new(&input[2..]), sink)?;
            }
            Ok(())
        }
        b"LZWDecode" | b"LZW" => {
            use weezl::{decode::Decoder, BitOrder, LzwStatus};
            let early =
                params.and_then(|p| p.get(b"EarlyChange").ok()).and_then(|p| p.as_i64().ok()).is_none_or(|v| v != 0);
            let mut dec =
                if early { Decoder::with_tiff_size_switch(BitOrder::Msb, 8) } else { Decoder::new(BitOrder::Msb, 8) };
            let mut buf = vec![0u8; 64 * 1024];
            let mut rest = input;
            loop {
                let r = dec.decode_bytes(rest, &mut buf);
                rest = &rest[r.consumed_in..];
                sink(&buf[..r.consumed_out])?;
                match r.status {
                    Ok(LzwStatus::Ok) if r.consumed_in + r.consumed_out > 0 => continue,
                    _ => return Ok(()),
                }
            }
        }
        _ => {
            // ASCII85 and the like: at most a few times their input, which is
            // already bounded. Filters lopdf cannot decode pass through raw
            // (pdf-extract then reads the raw bytes).
            let mut dict = Dictionary::new();
            dict.set("Filter", Object::Name(filter.to_vec()));
            let stage = Stream::new(dict, input.to_vec());
            match stage.decompressed_content() {
                Ok(data) => sink(&data),
                Err(_) => sink(input),
            }
        }
    }
}

fn inflate(mut reader: impl Read, sink: &mut dyn FnMut(&[u8]) -> Result<(), Over>) -> Result<u64, Over> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut produced = 0u64;
    loop {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => return Ok(produced),
            Ok(n) => {
                produced += n as u64;
                sink(&buf[..n])?;
            }
        }
    }
}

/// Counts the tokens of a content stream (what becomes operands and
/// operators in memory) and which XObjects it draws with `Do`, fed a piece
/// at a time. A rough lexer: an upper bound is all it must give.
#[derive(Default)]
struct Lexer {
    tokens: u64,
    state: Lex,
    /// The current name or operator (at most 127 bytes kept).
    word: Vec<u8>,
    word_is_name: bool,
    /// The name before the current token, when the last token was one.
    last_name: Option<Vec<u8>>,
    /// XObject name to times drawn.
    draws: HashMap<Vec<u8>, u64>,
}

#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Lex {
    #[default]
    Space,
    Word,
    Comment,
    /// A literal string: its parenthesis depth, and whether a backslash is pending.
    Str(u32, bool),
    Hex,
}

fn is_delimiter(b: u8) -> bool {
    matches!(b, b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%')
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\0')
}

impl Lexer {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn end_word(&mut self) {
        if self.state != Lex::Word {
            return;
        }
        self.state = Lex::Space;
        self.tokens += 1;
        if self.word_is_name {
            self.last_name = Some(std::mem::take(&mut self.word));
            return;
        }
        if self.word == b"Do" {
            if let Some(name) = self.last_name.take() {
                *self.draws.entry(name).or_default() += 1;
            }
        }
        self.last_name = None;
        self.word.clear();
    }

    fn other_token(&mut self) {
        self.tokens += 1;
        self.last_name = None;
    }

    fn byte(&mut self, b: u8) {
        match self.state {
            Lex::Comment => {
                if b == b'\n' || b == b'\r' {
                    self.state = Lex::Space;
                }
            }
            Lex::Str(depth, true) => self.state = Lex::Str(depth, false),
            Lex::Str(depth, false) => match b {
                b'\\' => self.state = Lex::Str(depth, true),
                b'(' => self.state = Lex::Str(depth + 1, false),
                b')' if depth == 0 => self.state = Lex::Space,
                b')' => self.state = Lex::Str(depth - 1, false),
                _ => {}
            },
            Lex::Hex => {
                if b == b'>' {
                    self.state = Lex::Space;
                }
            }
            Lex::Word if !is_space(b) && !is_delimiter(b) => {
                if self.word.len() < 127 {
                    self.word.push(b);
                }
            }
            Lex::Word | Lex::Space => {
                self.end_word();
                if is_space(b) {
                    return;
                }
                match b {
                    b'%' => self.state = Lex::Comment,
                    b'(' => {
                        self.other_token();
                        self.state = Lex::Str(0, false);
                    }
                    b'<' => {
                        // `<<` counts as two hex-string starts: over, never under.
                        self.other_token();
                        self.state = Lex::Hex;
                    }
                    b'/' => {
                        self.state = Lex::Word;
                        self.word.clear();
                        self.word_is_name = true;
                    }
                    b')' | b'>' | b'[' | b']' | b'{' | b'}' => self.other_token(),
                    _ => {
                        self.state = Lex::Word;
                        self.word.clear();
                        self.word.push(b);
                        self.word_is_name = false;
                    }
                }
            }
        }
    }

    fn finish(&mut self) {
        self.end_word();
    }
}

/// A form as pdf-extract draws it: the stream and the resources its names resolve in.
type FormKey = (ObjectId, *const Dictionary);

struct Form<'a> {
    tokens: u64,
    /// Forms and images it draws: each with its resources and how often.
    draws: Vec<(FormKey, &'a Stream, &'a Dictionary, u64)>,
}

/// Check a loaded document page by page (see the module notes).
pub fn check_document(doc: &Document, limits: Limits, file_len: u64) -> Result<(), Refusal> {
    let _ = file_len;
    let mut inf = Inflater { limits, total: 0 };
    let empty = Dictionary::new();
    // Each form (per resources) is inflated and lexed once: its tokens and
    // what it draws. Its total cost (with what it draws) is memoised too.
    let mut forms: HashMap<FormKey, Form<'_>> = HashMap::new();
    let mut cost: HashMap<FormKey, u64> = HashMap::new();
    let mut contents: HashMap<ObjectId, (u64, HashMap<Vec<u8>, u64>)> = HashMap::new();
    let mut file_tokens = 0u64;
    for (number, page_id) in doc.get_pages() {
        let page = doc.get_dictionary(page_id).map_err(|_| Refusal::Damaged(format!("page {number} is missing")))?;
        let resources = inherited_resources(doc, page, number)?.unwrap_or(&empty);
        let mut tokens = 0u64;
        let mut draws: HashMap<Vec<u8>, u64> = HashMap::new();
        for id in doc.get_page_contents(page_id) {
            if let std::collections::hash_map::Entry::Vacant(e) = contents.entry(id) {
                let mut lexer = Lexer::default();
                if let Ok(Object::Stream(s)) = doc.get_object(id) {
                    inf.decode(s, &mut |p| lexer.feed(p))?;
                }
                lexer.finish();
                e.insert((lexer.tokens, lexer.draws));
            }
            let (t, d) = &contents[&id];
            tokens = tokens.saturating_add(*t);
            for (name, n) in d {
                *draws.entry(name.clone()).or_default() += n;
            }
        }
        let mut page_cost = tokens;
        for (name, times) in draws {
            let Some((key, stream, res)) = resolve(doc, resources, &name) else { continue };
            let c = form_cost(doc, &mut inf, &mut forms, &mut cost, key, stream, res, number)?;
            page_cost = page_cost.saturating_add(c.saturating_mul(times));
        }
        if page_cost > limits.page_tokens() {
            return Err(
                limits.too_big(format!("page {number} makes more than {} drawing operations", limits.page_tokens()))
            );
        }
        file_tokens = file_tokens.saturating_add(page_cost);
        if file_tokens > limits.file_tokens() {
            return Err(limits.too_big(format!(
                "its pages make more than {} drawing operations in all (page {number} is past them)",
                limits.file_tokens()
            )));
        }
    }
    Ok(())
}

/// What `name` in `resources`' `/XObject` is: the stream, and the resources
/// its own names resolve in (its own `/Resources`, else those it is drawn with).
fn resolve<'a>(
    doc: &'a Document,
    resources: &'a Dictionary,
    name: &[u8],
) -> Option<(FormKey, &'a Stream, &'a Dictionary)> {
    let xobjects = deref(doc, resources.get(b"XObject").ok()?)?.as_dict().ok()?;
    let entry = xobjects.get(name).ok()?;
    let id = entry.as_reference().ok()?;
    let stream = doc.get_object(id).ok()?.as_stream().ok()?;
    let own = stream.dict.get(b"Resources").ok().and_then(|r| deref(doc, r)).and_then(|r| r.as_dict().ok());
    let res = own.unwrap_or(resources);
    Some(((id, res as *const Dictionary), stream, res))
}

fn deref<'a>(doc: &'a Document, o: &'a Object) -> Option<&'a Object> {
    match o {
        Object::Reference(id) => doc.get_object(*id).ok(),
        _ => Some(o),
    }
}

/// The tokens drawing one form costs, with everything it draws: an explicit
/// depth-first walk, refusing cycles and nesting past [`MAX_FORM_DEPTH`].
#[allow(clippy::too_many_arguments)]
fn form_cost<'a>(
    doc: &'a Document,
    inf: &mut Inflater,
    forms: &mut HashMap<FormKey, Form<'a>>,
    cost: &mut HashMap<FormKey, u64>,
    root: FormKey,
    stream: &'a Stream,
    res: &'a Dictionary,
    page: u32,
) -> Result<u64, Refusal> {
    if let Some(&c) = cost.get(&root) {
        return Ok(c);
    }
    // The stack of forms being costed; `on_stack` finds a form drawing itself.
    let mut stack: Vec<(FormKey, usize)> = vec![(root, 0)];
    let mut on_stack: HashSet<FormKey> = HashSet::from([root]);
    load_form(doc, inf, forms, root, stream, res)?;
    while let Some(&(key, next)) = stack.last() {
        let draws = &forms[&key].draws;
        if let Some(&(child, child_stream, child_res, _)) = draws.get(next) {
            stack.last_mut().expect("not empty").1 += 1;
            if cost.contains_key(&child) {
                continue;
            }
            if on_stack.contains(&child) {
                return Err(Refusal::Damaged(format!(
                    "page {page} draws a form XObject ({} {} R) that draws itself",
                    child.0 .0, child.0 .1
                )));
            }
            if stack.len() >= MAX_FORM_DEPTH {
                return Err(Refusal::Damaged(format!(
                    "page {page} nests form XObjects more than {MAX_FORM_DEPTH} deep"
                )));
            }
            load_form(doc, inf, forms, child, child_stream, child_res)?;
            stack.push((child, 0));
            on_stack.insert(child);
            continue;
        }
        let form = &forms[&key];
        let mut total = form.tokens.max(1);
        for (child, _, _, times) in &form.draws {
            total = total.saturating_add(cost[child].saturating_mul(*times));
        }
        cost.insert(key, total);
        on_stack.remove(&key);
        stack.pop();
    }
    Ok(cost[&root])
}

fn load_form<'a>(
    doc: &'a Document,
    inf: &mut Inflater,
    forms: &mut HashMap<FormKey, Form<'a>>,
    key: FormKey,
    stream: &'a Stream,
    res: &'a Dictionary,
) -> Result<(), Refusal> {
    if forms.contains_key(&key) {
        return Ok(());
    }
    let is_form = stream.dict.get(b"Subtype").and_then(Object::as_name).is_ok_and(|n| n == b"Form");
    let mut lexer = Lexer::default();
    if is_form {
        inf.decode(stream, &mut |p| lexer.feed(p))?;
    } else {
        // An image (or anything else) drawn: pdf-extract inflates it as it
        // would a form; only its bytes count.
        inf.decode(stream, &mut |_| {})?;
    }
    lexer.finish();
    let mut draws = Vec::new();
    for (name, times) in std::mem::take(&mut lexer.draws) {
        if let Some((child, s, r)) = resolve(doc, res, &name) {
            draws.push((child, s, r, times));
        }
    }
    forms.insert(key, Form { tokens: lexer.tokens, draws });
    Ok(())
}

/// A page's `/Resources`, looked up its `/Parent` chain as pdf-extract does
/// (recursively, so the chain is checked here: no loops, bounded depth).
fn inherited_resources<'a>(
    doc: &'a Document,
    page: &'a Dictionary,
    number: u32,
) -> Result<Option<&'a Dictionary>, Refusal> {
    let mut seen = HashSet::new();
    let mut found = None;
    let mut node = page;
    for _ in 0..MAX_TREE_DEPTH {
        if found.is_none() {
            found = node.get(b"Resources").ok().and_then(|r| deref(doc, r)).and_then(|r| r.as_dict().ok());
        }
        let Some(parent) = node.get(b"Parent").ok().and_then(|p| p.as_reference().ok()) else {
            return Ok(found);
        };
        if !seen.insert(parent) {
            return Err(Refusal::Damaged(format!("page {number}'s /Parent chain loops")));
        }
        match doc.get_dictionary(parent) {
            Ok(d) => node = d,
            Err(_) => return Ok(found),
        }
    }
    Err(Refusal::Damaged(format!("page {number}'s /Parent chain is more than {MAX_TREE_DEPTH} deep")))
}

/// Before lopdf loads `bytes`: the object streams and xref streams it
/// inflates while loading, found in the raw bytes (`/ObjStm`, `/XRef` and
/// the `stream` keyword after them) and inflated through the counter. Their
/// tokens (the objects lopdf will build from them) count too. Linear in the
/// file: every byte is looked at a bounded number of times.
pub fn check_raw(bytes: &[u8], limits: Limits) -> Result<(), Refusal> {
    use memchr::memmem;
    let streams: Vec<usize> = memmem::find_iter(bytes, b"stream").collect();
    let mut inf = Inflater { limits, total: 0 };
    let mut seen = HashSet::new();
    let mut tokens = 0u64;
    for marker in [&b"/ObjStm"[..], b"/XRef"] {
        for at in memmem::find_iter(bytes, marker) {
            // The marker must end there (not `/XRefStm`).
            if bytes.get(at + marker.len()).is_some_and(|&b| !is_space(b) && !is_delimiter(b)) {
                continue;
            }
            let i = streams.partition_point(|&s| s < at);
            let Some(&keyword) = streams.get(i) else { continue };
            if !seen.insert(keyword) {
                continue;
            }
            // The dictionary: back to its `obj`, never past the stream before.
            let floor = at.saturating_sub(4096).max(if i > 0 { streams[i - 1] } else { 0 });
            let dict_start = memmem::rfind(&bytes[floor..at], b"obj").map_or(floor, |k| floor + k);
            let dict = &bytes[dict_start..keyword];
            if memmem::find(dict, b"Filter").is_none() {
                continue;
            }
            let filter: &[u8] = if memmem::find(dict, b"LZW").is_some() { b"LZWDecode" } else { b"FlateDecode" };
            let mut start = keyword + b"stream".len();
            if bytes.get(start) == Some(&b'\r') {
                start += 1;
            }
            if bytes.get(start) == Some(&b'\n') {
                start += 1;
            }
            let mut lexer = Lexer::default();
            inf.decode_bytes(&bytes[start..], &[filter], None, &mut |p| lexer.feed(p))?;
            lexer.finish();
            tokens = tokens.saturating_add(lexer.tokens);
            if tokens > limits.page_tokens() {
                return Err(limits.too_big(format!(
                    "its object streams hold more than {} objects and numbers",
                    limits.page_tokens()
                )));
            }
        }
    }
    Ok(())
}
