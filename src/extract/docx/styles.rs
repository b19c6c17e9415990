//! What a paragraph's style makes it: a heading (and of which rank), a list
//! item, or body text. Read from `word/styles.xml` and `word/numbering.xml`.
//!
//! A heading's *rank* orders heading kinds from the top: the title or a
//! part (10), a chapter number (20), a chapter title (30), then numbered or
//! lettered heads (110 for `heading 1` / `HeadA`, 120 for the second, ...).
//! The document's levels are the ranks it uses, in order (see
//! [`super::levels`]). A style's rank is decided by, first to answer:
//!
//! 1. its name (`w:name`): built-in names are the English `heading 1` ..
//!    `heading 9` and `Title` in every language, whatever the style id;
//!    custom names are matched after lower-casing and dropping spaces, `-`,
//!    `_` and `.` (see [`name_rank`]);
//! 2. its own outline level (`w:outlineLvl` 0..8 is a heading of that
//!    level; 9 is body text and stops the search: Word's `TOC Heading`);
//! 3. the style it is based on (`w:basedOn`), and so on up the chain.
//!
//! A paragraph's own outline level comes before all of these. A chapter
//! number followed at once by a chapter title becomes one heading of two
//! lines at the title's rank (see `body.rs`).

use super::xml::{attr, local, val_num, Ev, Ns, Xml};
use crate::error::Result;
use std::collections::HashMap;

/// Ranks of the heading kinds (see the module docs).
pub const RANK_TITLE: u8 = 10;
pub const RANK_CHAPTER_NUMBER: u8 = 20;
pub const RANK_CHAPTER_TITLE: u8 = 30;

/// The rank of a numbered head `n` (1-based): `heading n`, outline level n-1.
pub fn rank_numbered(n: u8) -> u8 {
    100 + 10 * n.clamp(1, 9)
}

/// What a style (or a paragraph's own properties) says about headings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Heading(u8),
    /// Outline level 9: body text, whatever the styles it is based on say.
    Body,
}

/// A list reference: `w:numPr`'s `w:numId` and `w:ilvl`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NumRef {
    pub num_id: Option<u32>,
    pub ilvl: Option<u8>,
}

#[derive(Debug, Default, Clone)]
struct Style {
    name: String,
    based_on: Option<String>,
    outline: Option<u8>,
    num: NumRef,
}

/// The paragraph styles of a document.
#[derive(Debug, Default)]
pub struct Styles {
    by_id: HashMap<String, Style>,
    /// The style of paragraphs that name none (`w:default="1"`, usually Normal).
    pub default_id: Option<String>,
}

/// How many `w:basedOn` steps are followed (chains loop in damaged files).
const MAX_CHAIN: usize = 32;

impl Styles {
    pub fn parse(bytes: &[u8], part: &str, name: &str) -> Result<Styles> {
        let mut x = Xml::new(bytes, part, name);
        let mut styles = Styles::default();
        // The paragraph style being read, and the depth its element is at.
        let mut cur: Option<(String, Style, usize)> = None;
        loop {
            let (start, e) = match x.event()? {
                Ev::Eof => break,
                Ev::End => {
                    if cur.as_ref().is_some_and(|c| x.depth() < c.2) {
                        if let Some((id, style, _)) = cur.take() {
                            styles.by_id.insert(id, style);
                        }
                    }
                    continue;
                }
                Ev::Text(_) => continue,
                Ev::Start(Ns::W, e) => (true, e),
                Ev::Empty(Ns::W, e) => (false, e),
                Ev::Start(_, e) => {
                    x.skip(&e)?;
                    continue;
                }
                Ev::Empty(..) => continue,
            };
            match local(&e) {
                b"style" => {
                    let paragraph = attr(&e, b"type").is_none_or(|t| t == "paragraph");
                    match attr(&e, b"styleId") {
                        Some(id) if paragraph && start => {
                            if attr(&e, b"default").is_some_and(|d| d == "1" || d == "true") {
                                styles.default_id = Some(id.clone());
                            }
                            cur = Some((id, Style::default(), x.depth()));
                        }
                        _ if start => x.skip(&e)?,
                        _ => {}
                    }
                }
                // Old values of tracked changes, and what holds no paragraph style facts.
                b"pPrChange" | b"rPrChange" | b"rPr" | b"tblPr" | b"trPr" | b"tcPr" | b"tblStylePr"
                | b"latentStyles" | b"docDefaults"
                    if start =>
                {
                    x.skip(&e)?
                }
                _ => {
                    if let Some((_, style, _)) = cur.as_mut() {
                        match local(&e) {
                            b"name" => style.name = attr(&e, b"val").unwrap_or_default(),
                            b"basedOn" => style.based_on = attr(&e, b"val"),
                            b"outlineLvl" => style.outline = val_num(&e),
                            b"numId" => style.num.num_id = val_num(&e),
                            b"ilvl" => style.num.ilvl = val_num(&e),
                            _ => {}
                        }
                    }
                }
            }
        }
        Ok(styles)
    }

    /// The styles from `id` up its `w:basedOn` chain (at most [`MAX_CHAIN`]).
    fn chain<'s>(&'s self, id: Option<&'s str>) -> impl Iterator<Item = &'s Style> + 's {
        let first = id.or(self.default_id.as_deref()).and_then(|id| self.by_id.get(id));
        std::iter::successors(first, |s| s.based_on.as_deref().and_then(|b| self.by_id.get(b))).take(MAX_CHAIN)
    }

    /// What the paragraph style `id` (None: the default style) says about
    /// headings; None: not a heading.
    pub fn heading(&self, id: Option<&str>) -> Option<Verdict> {
        for style in self.chain(id) {
            if let Some(rank) = name_rank(&style.name) {
                return Some(Verdict::Heading(rank));
            }
            if let Some(v) = outline_verdict(style.outline) {
                return Some(v);
            }
        }
        None
    }

    /// The list reference the style `id` (or a style it is based on) carries.
    pub fn num(&self, id: Option<&str>) -> NumRef {
        let mut out = NumRef::default();
        for style in self.chain(id) {
            if out.num_id.is_none() {
                out.num_id = style.num.num_id;
            }
            if out.ilvl.is_none() {
                out.ilvl = style.num.ilvl;
            }
        }
        out
    }
}

/// An outline level's verdict: 0..8 a heading, 9 body text.
pub fn outline_verdict(level: Option<u8>) -> Option<Verdict> {
    match level? {
        l @ 0..=8 => Some(Verdict::Heading(rank_numbered(l + 1))),
        _ => Some(Verdict::Body),
    }
}

/// The rank a style's name gives, built-in or a publisher's own:
///
/// - `Title`, `Book Title`, `Part`, `Part Title`, `Part Number`: the title rank;
/// - `Chapter Number`, `Chapter Num`, `Chapter No`, `Chapter Label`, `CN`: chapter number;
/// - `Chapter`, `Chapter Title`, `Chapter Head(ing)`, `Chapter Name`, `CT`: chapter title;
/// - `heading N`, `Head N`, `HeadN`, `HdN`, `HN` (N = 1..9): numbered head N;
/// - `HeadA`, `Head B`, `Heading C`, `HdD`, `A-Head`, `B Head`, `C Heading`:
///   lettered heads, A ranking as numbered head 1, B as 2, and so on (past
///   I they all rank as I).
pub fn name_rank(name: &str) -> Option<u8> {
    let n: String = name.chars().filter(|c| !matches!(c, ' ' | '-' | '_' | '.')).flat_map(char::to_lowercase).collect();
    let n = n.as_str();
    match n {
        "title" | "booktitle" | "part" | "parttitle" | "partnumber" | "partnum" | "partlabel" | "parthead"
        | "partheading" => return Some(RANK_TITLE),
        "chapternumber" | "chapternum" | "chapterno" | "chapterlabel" | "cn" => return Some(RANK_CHAPTER_NUMBER),
        "chapter" | "chaptertitle" | "chapterhead" | "chapterheading" | "chaptername" | "ct" => {
            return Some(RANK_CHAPTER_TITLE)
        }
        _ => {}
    }
    let letter_rank = |c: u8| rank_numbered((c - b'a' + 1).min(9));
    for prefix in ["heading", "head", "hd", "h"] {
        if let Some(rest) = n.strip_prefix(prefix) {
            if let Ok(d) = rest.parse::<u8>() {
                if (1..=9).contains(&d) {
                    return Some(rank_numbered(d));
                }
            }
            if prefix != "h" && rest.len() == 1 && rest.as_bytes()[0].is_ascii_lowercase() {
                return Some(letter_rank(rest.as_bytes()[0]));
            }
        }
    }
    for suffix in ["heading", "head"] {
        if let Some(first) = n.strip_suffix(suffix) {
            if first.len() == 1 && first.as_bytes()[0].is_ascii_lowercase() {
                return Some(letter_rank(first.as_bytes()[0]));
            }
        }
    }
    None
}

/// The list formats of `word/numbering.xml`: per list instance (`w:num`)
/// and level, the number format and where counting starts.
#[derive(Debug, Default)]
pub struct Numbering {
    /// `w:numId` -> `w:abstractNumId`.
    nums: HashMap<u32, u32>,
    /// (`w:abstractNumId`, `w:ilvl`) -> (`w:numFmt`, `w:start`).
    levels: HashMap<(u32, u8), (String, u32)>,
}

impl Numbering {
    pub fn parse(bytes: &[u8], part: &str, name: &str) -> Result<Numbering> {
        let mut x = Xml::new(bytes, part, name);
        let mut out = Numbering::default();
        let mut abstract_id: Option<u32> = None;
        let mut num_id: Option<u32> = None;
        let mut level: Option<(u8, String, u32)> = None;
        loop {
            let (start, e) = match x.event()? {
                Ev::Eof => break,
                Ev::Start(Ns::W, e) => (true, e),
                Ev::Empty(Ns::W, e) => (false, e),
                Ev::Start(_, e) => {
                    x.skip(&e)?;
                    continue;
                }
                Ev::End => {
                    // Depth 1 is the root, 2 an abstractNum or num, 3 a level.
                    if x.depth() < 3 {
                        if let (Some(a), Some((ilvl, fmt, start))) = (abstract_id, level.take()) {
                            out.levels.insert((a, ilvl), (fmt, start));
                        }
                    }
                    if x.depth() < 2 {
                        abstract_id = None;
                        num_id = None;
                    }
                    continue;
                }
                _ => continue,
            };
            match local(&e) {
                b"abstractNum" if start && x.depth() == 2 => abstract_id = attr(&e, b"abstractNumId").and_then(num),
                b"num" if start && x.depth() == 2 => num_id = attr(&e, b"numId").and_then(num),
                b"abstractNumId" => {
                    if let (Some(n), Some(a)) = (num_id, val_num::<u32>(&e)) {
                        out.nums.insert(n, a);
                    }
                }
                b"lvl" if start && abstract_id.is_some() && x.depth() == 3 => {
                    let ilvl = attr(&e, b"ilvl").and_then(|v| v.trim().parse().ok()).unwrap_or(0);
                    level = Some((ilvl, "decimal".into(), 1));
                }
                b"numFmt" => {
                    if let (Some(l), Some(v)) = (level.as_mut(), attr(&e, b"val")) {
                        l.1 = v;
                    }
                }
                b"start" => {
                    if let (Some(l), Some(v)) = (level.as_mut(), val_num::<u32>(&e)) {
                        l.2 = v;
                    }
                }
                b"lvlOverride" | b"pPr" | b"rPr" | b"numPicBullet" if start => x.skip(&e)?,
                _ => {}
            }
        }
        Ok(out)
    }

    /// The number format and start of list instance `num_id` at `ilvl`
    /// (None when numbering.xml does not say).
    pub fn level(&self, num_id: u32, ilvl: u8) -> Option<(&str, u32)> {
        let a = self.nums.get(&num_id)?;
        self.levels.get(&(*a, ilvl)).map(|(f, s)| (f.as_str(), *s))
    }
}

fn num(s: String) -> Option<u32> {
    s.trim().parse().ok()
}

/// A list item's marker: `- ` for bullets (and unknown lists), else the
/// item's number in its format and a dot.
pub fn marker(format: Option<(&str, u32)>, n: u32) -> String {
    let Some((fmt, _)) = format else { return "- ".into() };
    match fmt {
        "bullet" | "none" | "" => "- ".into(),
        "lowerLetter" => format!("{}. ", letters(n)),
        "upperLetter" => format!("{}. ", letters(n).to_uppercase()),
        "lowerRoman" => format!("{}. ", roman(n)),
        "upperRoman" => format!("{}. ", roman(n).to_uppercase()),
        _ => format!("{n}. "),
    }
}

/// 1 -> a, 26 -> z, 27 -> aa (Word repeats the letter).
fn letters(n: u32) -> String {
    let n = n.max(1) - 1;
    let c = char::from(b'a' + (n % 26) as u8);
    std::iter::repeat_n(c, (n / 26 + 1).min(10) as usize).collect()
}

fn roman(mut n: u32) -> String {
    if n == 0 || n >= 4000 {
        return n.to_string();
    }
    let table = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut out = String::new();
    for (v, s) in table {
        while n >= v {
            out.push_str(s);
            n -= v;
        }
    }
    out
}
