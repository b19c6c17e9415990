//! `CharacterTextSplitter` and `RecursiveCharacterTextSplitter`.
//!
//! Splits are byte ranges into the source; lengths are measured once per split
//! and `_merge_splits` keeps a window over the splits instead of re-joining
//! strings. A merged chunk is built as a `String` only when it is not a
//! verbatim slice (dropped empty splits, a regex pattern used as the joiner).

use super::lengths::Remembered;
use super::{bytes_eq, check_special_tokens, py_strip, py_strip_range, LenFn, Placer, Raw};
use crate::chunk::Chunk;
use crate::config::{ChunkConfig, KeepSeparator, SeparatorSide, Unit};
use crate::error::{Error, Result};
use crate::size::CharIndex;
use crate::strategy::{collect_each, Context, OverlapRule, SizeRule, Spec, Strategy};
use crate::strategy::{regex_size_limit, regex_too_big, Window};
use memchr::memmem;
use rustc_hash::FxHashMap;
use std::cell::{Cell, OnceCell, RefCell};
use std::ops::Range;

/// LangChain's `keep_separator`: `True` behaves as `"start"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    No,
    Start,
    End,
}

impl Keep {
    pub fn from_config(k: Option<KeepSeparator>, default: bool) -> Keep {
        match k {
            None => Keep::from_config(Some(KeepSeparator::Bool(default)), default),
            Some(KeepSeparator::Bool(false)) => Keep::No,
            Some(KeepSeparator::Bool(true)) | Some(KeepSeparator::Side(SeparatorSide::Start)) => Keep::Start,
            Some(KeepSeparator::Side(SeparatorSide::End)) => Keep::End,
        }
    }
}

enum Matcher {
    /// `""`: `list(text)`.
    Empty,
    Literal(memmem::Finder<'static>),
    Regex(BudgetedRegex),
}

/// One separator: the raw string LangChain joins with, and how it matches.
pub struct Sep {
    pub raw: String,
    matcher: Matcher,
}

/// Called with each match's span and its capture groups' spans.
type OnMatch<'a> = dyn FnMut((usize, usize), &[Range<usize>]) -> Result<()> + 'a;

impl Sep {
    /// `regex_count` is how many regex separators this run compiles: they
    /// share one compiled-size allowance (see [`crate::strategy::REGEX_SIZE_TOTAL`]). A regex
    /// may backtrack in proportion to `text_len`, the document's length (see
    /// [`Budget`]).
    pub fn new(raw: &str, is_regex: bool, regex_count: usize, text_len: usize) -> Result<Sep> {
        let matcher = if raw.is_empty() {
            Matcher::Empty
        } else if is_regex {
            Matcher::Regex(BudgetedRegex::new(raw, regex_count, text_len)?)
        } else {
            Matcher::Literal(memmem::Finder::new(raw.as_bytes()).into_owned())
        };
        Ok(Sep { raw: raw.to_string(), matcher })
    }

    /// `re.search(separator, s)`.
    fn is_match(&self, s: &str) -> Result<bool> {
        Ok(match &self.matcher {
            Matcher::Empty => true,
            Matcher::Literal(f) => f.find(s.as_bytes()).is_some(),
            Matcher::Regex(re) => re.run(|r| r.is_match(s))?,
        })
    }

    /// Python `re.split` match positions in `s` (relative), in order, each
    /// with the spans of the capture groups that matched (for a pattern with
    /// groups).
    fn for_each_match(&self, s: &str, f: &mut OnMatch<'_>) -> Result<()> {
        match &self.matcher {
            Matcher::Empty => {}
            Matcher::Literal(finder) => {
                let n = finder.needle().len();
                for at in finder.find_iter(s.as_bytes()) {
                    f((at, at + n), &[])?;
                }
            }
            Matcher::Regex(re) => {
                // CPython's split loop: search from the end of the last match;
                // after an empty match the next one must not be empty at the
                // same place (an empty match right after a non-empty one is
                // allowed, unlike Rust's iterators).
                let has_groups = re.groups;
                let mut groups: Vec<Range<usize>> = Vec::new();
                let mut pos = 0;
                let mut must_advance = false;
                while pos <= s.len() {
                    let mut at = pos;
                    let m = loop {
                        groups.clear();
                        let m = if has_groups {
                            re.run(|r| r.captures_from_pos(s, at))?.and_then(|c| {
                                let m = c.get(0).map(|m| (m.start(), m.end()));
                                groups.extend((1..c.len()).filter_map(|i| c.get(i)).map(|g| g.start()..g.end()));
                                m
                            })
                        } else {
                            re.run(|r| r.find_from_pos(s, at))?.map(|m| (m.start(), m.end()))
                        };
                        match m {
                            Some((a, b)) if must_advance && a == pos && b == pos => {
                                if at >= s.len() {
                                    break None;
                                }
                                at += s[at..].chars().next().map_or(1, char::len_utf8);
                            }
                            other => break other,
                        }
                    };
                    let Some((a, b)) = m else { break };
                    f((a, b), &groups)?;
                    must_advance = a == b;
                    pos = b;
                }
            }
        }
        Ok(())
    }

    fn has_groups(&self) -> bool {
        matches!(&self.matcher, Matcher::Regex(re) if re.groups)
    }
}

/// Backtracking steps fancy-regex may take for each separator in one chunking
/// run: `BUDGET_PER_BYTE` per byte of the document plus `BUDGET_BASE`.
/// fancy-regex's own `backtrack_limit` bounds one search only, and a split
/// runs one search per match: a pattern that backtracks exponentially on each
/// line (`(?:a+)+(?=c)`) stays under that limit on every line while the whole
/// split takes minutes. Patterns without lookaround or backreferences never
/// backtrack (fancy-regex hands them to the linear-time `regex` crate) and
/// only pay the first, smallest step allowance per search. Legitimate
/// lookaround separators are charged 1 to 4 per byte on the corpus; the most
/// a cheap pattern can be charged is 2 searches per character at the first
/// limit (`(?=a)` on "aaaa…": 16 per byte). Refusing a 50 MB text takes about
/// 20 s (of `(?:a+)+(?=c)|b` on lines of a's, on the project's machine).
const BUDGET_PER_BYTE: u64 = 64;
const BUDGET_BASE: u64 = 4 << 20;

/// Backtracking allowance of one search: `FIRST_LIMIT · 4^level`.
const FIRST_LIMIT: u64 = 8;
const MAX_LEVEL: usize = 24;

/// What is left of a separator's backtracking budget for one chunking run.
/// Deterministic: the same text and settings always stop at the same place,
/// whatever the machine's speed.
struct Budget {
    left: Cell<u64>,
}

impl Budget {
    fn for_len(text_len: usize) -> Budget {
        Budget { left: Cell::new(BUDGET_BASE.saturating_add(BUDGET_PER_BYTE.saturating_mul(text_len as u64))) }
    }

    /// Take `steps` from the budget, or say there is not that much left.
    fn take(&self, steps: u64) -> bool {
        let left = self.left.get();
        self.left.set(left.saturating_sub(steps));
        left >= steps
    }
}

/// A fancy-regex separator run under a [`Budget`]. fancy-regex reports only
/// whether a search stayed within its backtrack limit, not how many steps it
/// took, so each search first runs with a small limit and is retried with four
/// times the limit until it succeeds; every attempt is charged its whole
/// limit, so the steps charged are at least the steps taken (and at most
/// about five times as many). The next search starts at the level of the
/// last successful one, and one level lower after four searches in a row
/// succeed at their first attempt (a regex whose searches cost about the same
/// rarely retries; after one expensive search the charges fall back
/// geometrically). A limit is compiled into the regex, so each level has its
/// own copy, compiled when first needed.
struct BudgetedRegex {
    raw: String,
    size_limit: usize,
    regex_count: usize,
    levels: Vec<OnceCell<fancy_regex::Regex>>,
    start: Cell<usize>,
    /// Searches in a row that succeeded at `start`.
    streak: Cell<u8>,
    budget: Budget,
    groups: bool,
}

/// The most characters a look-around's body may read from one position. A
/// look-around is tried at every position a search passes, and fancy-regex
/// hands its body to the `regex` crate, whose scan it does not count as
/// backtracking: a body that can read a whole run of text (`(?=a*b)`,
/// `(?=(?:a+)+b)`) makes every search quadratic in the run while the
/// [`Budget`] sees one step per position. Bounded bodies cost at most this
/// much per position, so the whole split stays linear in the text.
pub const LOOKAROUND_MAX_CHARS: usize = 256;

/// Refuse a pattern whose look-arounds could each read more than
/// [`LOOKAROUND_MAX_CHARS`] characters (an unbounded repetition, a large
/// bound, a back-reference of unbounded length). `what` names the pattern in
/// the message (`separator regex`). A pattern that does not parse is left to
/// the compiler's own message.
pub fn check_lookarounds(raw: &str, what: &str) -> Result<()> {
    let Ok(tree) = fancy_regex::Expr::parse_tree(raw) else { return Ok(()) };
    let mut scan = Scan { groups: Vec::new(), worst: 0 };
    scan.width(&tree.expr, false);
    if scan.worst > LOOKAROUND_MAX_CHARS {
        let much =
            if scan.worst == usize::MAX { "without bound".to_string() } else { format!("{} characters", scan.worst) };
        return Err(Error::config(format!(
            "{what} '{raw}' has a look-around that can read {much} from each position (a *, + or {{n,}} inside \
             (?=...) or (?!...)): on long runs of text every search rescans them; bound it (e.g. {{0,100}}, at \
             most {LOOKAROUND_MAX_CHARS} characters in all) or use a plain separator"
        )));
    }
    Ok(())
}

/// The widest match of each part of a pattern, and the widest look-around body.
struct Scan {
    /// Each capture group's widest match, in the order the groups open.
    groups: Vec<Option<usize>>,
    worst: usize,
}

impl Scan {
    /// The most characters `e` can match (`usize::MAX`: no bound); records
    /// look-around bodies in `worst`.
    fn width(&mut self, e: &fancy_regex::Expr, in_look: bool) -> usize {
        use fancy_regex::Expr as E;
        match e {
            E::Empty
            | E::Assertion(_)
            | E::KeepOut
            | E::ContinueFromPreviousMatchEnd
            | E::BackrefExistsCondition(_) => 0,
            E::Any { .. } => 1,
            E::Literal { val, .. } => val.chars().count(),
            // A class or an escape the parser hands over whole: one character (or none).
            E::Delegate { size, .. } => (*size).max(1),
            E::Concat(v) => v.iter().fold(0, |w, c| w.saturating_add(self.width(c, in_look))),
            E::Alt(v) => v.iter().map(|c| self.width(c, in_look)).max().unwrap_or(0),
            E::Group(c) => {
                let i = self.groups.len();
                self.groups.push(None);
                let w = self.width(c, in_look);
                self.groups[i] = Some(w);
                w
            }
            E::AtomicGroup(c) => self.width(c, in_look),
            E::LookAround(c, _) => {
                let w = self.width(c, true);
                self.worst = self.worst.max(w);
                // It consumes nothing, but an enclosing look-around reads what it reads.
                if in_look {
                    w
                } else {
                    0
                }
            }
            E::Repeat { child, hi, .. } => {
                let w = self.width(child, in_look);
                match (w, *hi) {
                    (0, _) => 0,
                    (_, usize::MAX) => usize::MAX,
                    (w, hi) => w.saturating_mul(hi),
                }
            }
            E::Backref(n) => self.groups.get(n.wrapping_sub(1)).copied().flatten().unwrap_or(usize::MAX),
            E::Conditional { condition, true_branch, false_branch } => {
                let c = self.width(condition, in_look);
                let t = self.width(true_branch, in_look);
                let f = self.width(false_branch, in_look);
                c.saturating_add(t).max(f)
            }
        }
    }
}

impl BudgetedRegex {
    fn new(raw: &str, regex_count: usize, text_len: usize) -> Result<Self> {
        check_lookarounds(raw, "separator regex")?;
        let re = BudgetedRegex {
            raw: raw.to_string(),
            size_limit: regex_size_limit(regex_count),
            regex_count,
            levels: (0..=MAX_LEVEL).map(|_| OnceCell::new()).collect(),
            start: Cell::new(0),
            streak: Cell::new(0),
            budget: Budget::for_len(text_len),
            groups: false,
        };
        let groups = re.level(0)?.captures_len() > 1;
        Ok(BudgetedRegex { groups, ..re })
    }

    fn limit(level: usize) -> u64 {
        FIRST_LIMIT << (2 * level)
    }

    fn level(&self, level: usize) -> Result<&fancy_regex::Regex> {
        if let Some(re) = self.levels[level].get() {
            return Ok(re);
        }
        let re = fancy_regex::RegexBuilder::new(&self.raw)
            .backtrack_limit(Self::limit(level) as usize)
            .delegate_size_limit(self.size_limit)
            .delegate_dfa_size_limit(self.size_limit)
            .build()
            .map_err(|e| match e {
                fancy_regex::Error::CompileError(fancy_regex::CompileError::InnerError(e))
                    if e.size_limit().is_some() =>
                {
                    regex_too_big(&self.raw, self.size_limit, self.regex_count)
                }
                e => Error::config(format!(
                    "separator regex '{}' does not compile: {}",
                    self.raw,
                    e.to_string().replace('\n', " ")
                )),
            })?;
        Ok(self.levels[level].get_or_init(|| re))
    }

    /// `search` under the budget.
    fn run<T>(&self, search: impl Fn(&fancy_regex::Regex) -> std::result::Result<T, fancy_regex::Error>) -> Result<T> {
        let first = self.start.get();
        let mut level = first;
        loop {
            if level > MAX_LEVEL || !self.budget.take(Self::limit(level)) {
                return Err(Error::input(format!(
                    "separator regex '{}' needs too much backtracking on this text: simplify it (avoid nested \
                     quantifiers like (a+)+ and lookarounds after repeated groups) or use a plain separator",
                    self.raw
                )));
            }
            match search(self.level(level)?) {
                Ok(found) => {
                    let streak = if level == first { self.streak.get() + 1 } else { 0 };
                    if streak >= 4 {
                        self.start.set(level.saturating_sub(1));
                        self.streak.set(0);
                    } else {
                        self.start.set(level);
                        self.streak.set(streak);
                    }
                    return Ok(found);
                }
                Err(fancy_regex::Error::RuntimeError(fancy_regex::RuntimeError::BacktrackLimitExceeded)) => level += 1,
                Err(e) => return Err(regex_error(&self.raw, e)),
            }
        }
    }
}

fn regex_error(raw: &str, e: fancy_regex::Error) -> Error {
    Error::input(format!("separator regex '{raw}' failed on this text: {e}: simplify it"))
}

/// `_split_text_with_regex(text[seg], separator, keep_separator)`: the
/// non-empty splits as absolute byte ranges, handed to `emit` in order (never
/// all held at once: a text with no other separator is split into one piece
/// per character).
pub fn split_with_regex(
    text: &str,
    seg: Range<usize>,
    sep: &Sep,
    keep: Keep,
    emit: &mut dyn FnMut(Range<usize>) -> Result<()>,
) -> Result<()> {
    let s = &text[seg.clone()];
    let base = seg.start;
    if let Matcher::Empty = sep.matcher {
        for (i, c) in s.char_indices() {
            emit(base + i..base + i + c.len_utf8())?;
        }
        return Ok(());
    }
    if keep != Keep::No && sep.has_groups() {
        return Err(Error::config(format!(
            "separator regex '{}' has capture groups: with keep_separator LangChain pairs the group texts \
             into its splits (or raises); use non-capturing groups (?:...)",
            sep.raw
        )));
    }
    let mut push = |r: Range<usize>| {
        if r.start < r.end {
            emit(base + r.start..base + r.end)
        } else {
            Ok(())
        }
    };
    // The start of the next split: after the last match (No, End) or at it (Start).
    let mut prev = 0;
    sep.for_each_match(s, &mut |(a, b), groups| {
        match keep {
            Keep::No => {
                push(prev..a)?;
                for g in groups {
                    push(g.clone())?;
                }
                prev = b;
            }
            Keep::Start => {
                push(prev..a)?;
                prev = a;
            }
            Keep::End => {
                push(prev..b)?;
                prev = b;
            }
        }
        Ok(())
    })?;
    push(prev..s.len())
}

/// Settings `_merge_splits` needs.
struct Merge<'a> {
    text: &'a str,
    size: usize,
    overlap: usize,
    strip: bool,
}

/// `_merge_splits(splits, separator)`, fed one split at a time (with its
/// `length_function` value): it keeps only the window of splits that may
/// still end up in a chunk.
struct Merger<'m, 'a> {
    m: &'m Merge<'a>,
    sep: &'m str,
    sep_len: i64,
    window: Window<(Range<usize>, usize)>,
    total: i64,
}

impl<'m, 'a> Merger<'m, 'a> {
    fn new(m: &'m Merge<'a>, sep: &'m str, sep_len: usize) -> Self {
        Merger { m, sep, sep_len: sep_len as i64, window: Window::new(), total: 0 }
    }

    fn push(&mut self, split: Range<usize>, len: usize, out: &mut dyn FnMut(Raw)) {
        let (size, overlap) = (self.m.size as i64, self.m.overlap as i64);
        let sep_len = self.sep_len;
        let sep_if = |n: usize| if n > 0 { sep_len } else { 0 };
        let len = len as i64;
        if self.total + len + sep_if(self.window.len()) > size && self.window.len() > 0 {
            // (LangChain logs a warning here when total > chunk_size.)
            self.m.join(self.window.as_slice(), self.sep, out);
            while self.window.len() > 0
                && (self.total > overlap || (self.total + len + sep_if(self.window.len()) > size && self.total > 0))
            {
                let first_sep = if self.window.len() > 1 { sep_len } else { 0 };
                self.total -= self.window.as_slice()[0].1 as i64 + first_sep;
                self.window.drop_front(1);
            }
        }
        self.total += len + sep_if(self.window.len());
        self.window.push((split, len as usize));
    }

    /// The last chunk; the merger is then empty, as new.
    fn finish(&mut self, out: &mut dyn FnMut(Raw)) {
        self.m.join(self.window.as_slice(), self.sep, out);
        self.window.clear();
        self.total = 0;
    }
}

impl Merge<'_> {
    /// `_join_docs`: `separator.join(docs)`, stripped, dropped when empty.
    fn join(&self, docs: &[(Range<usize>, usize)], sep: &str, out: &mut dyn FnMut(Raw)) {
        let (Some(first), Some(last)) = (docs.first(), docs.last()) else { return };
        let text = self.text;
        let span = first.0.start..last.0.end;
        let verbatim = docs.windows(2).all(|w| bytes_eq(&text.as_bytes()[w[0].0.end..w[1].0.start], sep.as_bytes()));
        if verbatim {
            let r = if self.strip { py_strip_range(text, span) } else { span };
            if !r.is_empty() {
                out(Raw::slice(r));
            }
            return;
        }
        let mut joined = String::with_capacity(span.len() + docs.len() * sep.len());
        for (i, d) in docs.iter().enumerate() {
            if i > 0 {
                joined.push_str(sep);
            }
            joined.push_str(&text[d.0.clone()]);
        }
        let natural = if self.strip { py_strip_range(text, span) } else { span };
        if self.strip {
            let s = py_strip(&joined);
            if s.len() != joined.len() {
                joined = s.to_string();
            }
        }
        if !joined.is_empty() {
            out(Raw::owned(joined, natural));
        }
    }
}

/// `length_function(split)`, remembering the lengths of single characters
/// (the `""` separator measures every character of a text on its own).
/// One per cut: the splits and the chunks placed from them are measured
/// through it.
pub struct Measure<'a> {
    text: &'a str,
    len: &'a LenFn<'a>,
    chars: RefCell<FxHashMap<char, usize>>,
    /// The text's char index, when lengths are chars: a long split is
    /// measured from two samples rather than read again.
    index: Option<CharIndex<'a>>,
    /// The lengths in words or tokens of the text's splits, kept from the
    /// last cuts of the same document.
    known: Option<Remembered>,
}

/// Splits at least this long are measured through the char index.
const INDEXED: usize = 256;

impl<'a> Measure<'a> {
    pub fn new(text: &'a str, len: &'a LenFn<'a>) -> Self {
        let index = matches!(len, LenFn::Chars).then(|| CharIndex::of(text));
        let known = match len {
            LenFn::Chars => None,
            LenFn::Sizer(sizer) => {
                let tokenizer = sizer.tokenizer.as_ref().map_or("", |t| t.name());
                Remembered::of(&format!("{} {tokenizer}", sizer.unit), text)
            }
        };
        Measure { text, len, chars: RefCell::new(FxHashMap::default()), index, known }
    }

    /// `length_function(text[r])`.
    pub fn of(&self, r: Range<usize>) -> usize {
        if let (Some(index), true) = (&self.index, r.len() >= INDEXED) {
            return index.count(r);
        }
        let s = &self.text[r.clone()];
        if let LenFn::Chars = self.len {
            return self.len.len(s);
        }
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => *self.chars.borrow_mut().entry(c).or_insert_with(|| self.len.len(s)),
            _ => self.remembered(r, s),
        }
    }

    /// The length of split `r` (`s`), remembered from the last cuts.
    fn remembered(&self, r: Range<usize>, s: &str) -> usize {
        match &self.known {
            Some(known) => known.get_or(r.start, r.end, || self.len.len(s)),
            None => self.len.len(s),
        }
    }
}

/// The separator regexes of a run and the compiled-size share of each.
fn regex_count(is_regex: bool, raws: &[&str]) -> usize {
    if is_regex {
        raws.iter().filter(|r| !r.is_empty()).count()
    } else {
        0
    }
}

/// `CharacterTextSplitter.split_text`, each chunk handed to `out` as the
/// merge closes it.
pub fn character(text: &str, cfg: &ChunkConfig, measure: &Measure<'_>, out: &mut dyn FnMut(Raw)) -> Result<()> {
    let len = measure.len;
    let lc = &cfg.langchain;
    let keep = Keep::from_config(lc.keep_separator, false);
    let count = regex_count(lc.is_separator_regex, &[&lc.separator]);
    let sep = Sep::new(&lc.separator, lc.is_separator_regex, count, text.len())?;
    let lookaround =
        lc.is_separator_regex && ["(?=", "(?<!", "(?<=", "(?!"].iter().any(|p| lc.separator.starts_with(p));
    let merge_sep = if keep != Keep::No || lookaround { "" } else { lc.separator.as_str() };
    let m = Merge { text, size: cfg.size, overlap: cfg.overlap, strip: lc.strip_whitespace };
    let mut merger = Merger::new(&m, merge_sep, len.len(merge_sep));
    split_with_regex(text, 0..text.len(), &sep, keep, &mut |r| {
        let n = measure.of(r.clone());
        merger.push(r, n, out);
        Ok(())
    })?;
    merger.finish(out);
    Ok(())
}

/// LangChain's default separators for `RecursiveCharacterTextSplitter`.
pub const DEFAULT_SEPARATORS: [&str; 4] = ["\n\n", "\n", " ", ""];

/// `RecursiveCharacterTextSplitter.split_text`, each chunk handed to `out`
/// as the merge closes it.
pub fn recursive(text: &str, cfg: &ChunkConfig, measure: &Measure<'_>, out: &mut dyn FnMut(Raw)) -> Result<()> {
    let len = measure.len;
    let lc = &cfg.langchain;
    // `separators or [...]`: an empty list means the defaults too.
    let raws: Vec<&str> = match &lc.separators {
        Some(s) if !s.is_empty() => s.iter().map(String::as_str).collect(),
        _ => DEFAULT_SEPARATORS.to_vec(),
    };
    let count = regex_count(lc.is_separator_regex, &raws);
    let seps =
        raws.iter().map(|s| Sep::new(s, lc.is_separator_regex, count, text.len())).collect::<Result<Vec<_>>>()?;
    let sep_lens: Vec<usize> = seps.iter().map(|s| len.len(&s.raw)).collect();
    let rec = Recursive {
        merge: Merge { text, size: cfg.size, overlap: cfg.overlap, strip: lc.strip_whitespace },
        seps: &seps,
        sep_lens: &sep_lens,
        keep: Keep::from_config(lc.keep_separator, true),
        len,
        measure,
    };
    rec.split(0..text.len(), 0, out)
}

struct Recursive<'a> {
    merge: Merge<'a>,
    seps: &'a [Sep],
    sep_lens: &'a [usize],
    keep: Keep,
    len: &'a LenFn<'a>,
    measure: &'a Measure<'a>,
}

impl Recursive<'_> {
    /// `_split_text(text[seg], separators[from..])`.
    fn split(&self, seg: Range<usize>, from: usize, out: &mut dyn FnMut(Raw)) -> Result<()> {
        let text = self.merge.text;
        let s = &text[seg.clone()];
        // The first separator that occurs anywhere in the segment (or "").
        let mut chosen = self.seps.len() - 1;
        let mut next = None;
        for i in from..self.seps.len() {
            let sep = &self.seps[i];
            if sep.raw.is_empty() {
                chosen = i;
                break;
            }
            if sep.is_match(s)? {
                chosen = i;
                next = (i + 1 < self.seps.len()).then_some(i + 1);
                break;
            }
        }
        let sep = &self.seps[chosen];
        let (merge_sep, merge_sep_len) =
            if self.keep != Keep::No { ("", 0) } else { (sep.raw.as_str(), self.sep_lens[chosen]) };
        let merge_sep_len = if merge_sep.is_empty() { self.len.len("") } else { merge_sep_len };
        let size = self.merge.size;
        // Splits shorter than the size are merged; a longer one closes the
        // merge so far and is split with the next separators.
        let mut merger = Merger::new(&self.merge, merge_sep, merge_sep_len);
        split_with_regex(text, seg, sep, self.keep, &mut |r| {
            let n = self.measure.of(r.clone());
            if n < size {
                merger.push(r, n, out);
                return Ok(());
            }
            merger.finish(out);
            match next {
                // Appended as is: not stripped.
                None => out(Raw::slice(r)),
                Some(n) => self.split(r, n, out)?,
            }
            Ok(())
        })?;
        merger.finish(out);
        Ok(())
    }
}

pub const CHARACTER: Spec = Spec {
    name: "langchain-character",
    help: "LangChain's CharacterTextSplitter, chunk for chunk: split at --separator, merge up to --size",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Target,
    overlap: OverlapRule::Units,
    has_threshold: false,
    forces_unit: None,
    options: &["--separator", "--regex", "--keep-separator", "--no-strip"],
    option: Some(super::STRIP_WHITESPACE),
    recut: None,
    formats: &[],
    build: |c| Ok(Box::new(Splitter { split: character, ordered: in_text_order(c, false) })),
};

pub const RECURSIVE: Spec = Spec {
    name: "langchain-recursive",
    help: "LangChain's RecursiveCharacterTextSplitter, chunk for chunk (default separators \\n\\n, \\n, space, \"\")",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Target,
    overlap: OverlapRule::Units,
    has_threshold: false,
    forces_unit: None,
    options: &["--separators", "--regex", "--keep-separator", "--no-strip"],
    option: Some(super::STRIP_WHITESPACE),
    recut: None,
    formats: &[],
    build: |c| Ok(Box::new(Splitter { split: recursive, ordered: in_text_order(c, true) })),
};

/// Whether every chunk of `cfg` is placed after the one before it, on any
/// text. Placement (see [`Placer`]) searches from where the last chunk was
/// found plus its length minus `overlap`; a chunk found there starts after
/// the one before, but one not found (`start_index = -1`) sends the next
/// search back to the text's start, and overlap lets a search start before
/// the last chunk. Neither happens when:
///
/// - `overlap` is 0 and the length is counted in chars: a merged chunk then
///   shares no split with the one before (every split measures at least one
///   char, so the merge drops them all), so it starts after the last one
///   ends, and the search starts no later;
/// - separators are kept (`keep_separator` true, start or end): splits then
///   tile their segment, so a merged chunk is joined with `""` from
///   neighbouring splits and is a verbatim slice of the text, always found.
///
/// Words or tokens can measure a split as 0 (a lone comma), which the merge
/// keeps for the next chunk; a dropped separator makes a join that may not
/// be in the text (`\s+`, or runs of the separator). Their chunks can then
/// come out of text order.
fn in_text_order(cfg: &ChunkConfig, recursive: bool) -> bool {
    cfg.overlap == 0
        && cfg.unit == Unit::Chars
        && Keep::from_config(cfg.langchain.keep_separator, recursive) != Keep::No
}

/// [`character`] or [`recursive`]: the raw chunks of a text, each handed to
/// the sink as the merge closes it.
type Split = fn(&str, &ChunkConfig, &Measure<'_>, &mut dyn FnMut(Raw)) -> Result<()>;

/// LangChain's character splitters: split and merge, then place each chunk
/// where `add_start_index` would, one at a time as the merge closes it.
struct Splitter {
    split: Split,
    /// Chunks always come in text order (see [`in_text_order`]).
    ordered: bool,
}

impl Strategy for Splitter {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        collect_each(self, text, cx)
    }

    /// `chunk_each` never holds the chunk list, but `streams` also promises
    /// text order, which `stats` counts uncovered text and lints by: only
    /// settings that guarantee it say so.
    fn streams(&self) -> bool {
        self.ordered
    }

    fn holds_no_list(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        check_special_tokens(text, cx.sizer)?;
        // The text is looked up several times (char index, lengths, gram index): hashed once.
        crate::size::doc_cache::pinned(text, || {
            let len = LenFn::new(cx.sizer);
            let measure = Measure::new(text, &len);
            let measured = |r: Range<usize>| measure.of(r);
            let mut placer = Placer::new(text, cx.config.overlap, &len).measuring(&measured);
            (self.split)(text, cx.config, &measure, &mut |raw| emit(placer.place(raw)))
        })
    }
}
