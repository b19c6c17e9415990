//! `word/document.xml`'s body, walked as a stream of events with explicit
//! stacks (no recursion at any depth): paragraphs, headings, lists and
//! tables become blocks of the extracted text in document order.

use super::styles::{
    marker, outline_verdict, NumRef, Numbering, Styles, Verdict, RANK_CHAPTER_NUMBER, RANK_CHAPTER_TITLE,
};
use super::xml::{attr, local, val_num, Ev, Ns, Xml};
use crate::error::Result;
use crate::extract::{BlockKind, TextBuilder};
use quick_xml::events::BytesStart;
use std::collections::HashMap;

/// What an open element means to the walk, to undo at its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Other,
    /// `w:body`, or a block-level `w:sdt` / `w:sdtContent` / `w:customXml`:
    /// a step of element paths.
    Container,
    Para,
    PPr,
    Run,
    Text,
    Table,
    Row,
    Cell,
    Alt,
}

/// A paragraph being read.
#[derive(Debug, Default)]
struct Para {
    text: String,
    style: Option<String>,
    outline: Option<u8>,
    num: NumRef,
    /// Its path, or for a paragraph in a text box its anchor's.
    element: String,
}

/// A table being read.
#[derive(Debug, Default)]
struct Table {
    rows: Vec<String>,
    cells: Vec<String>,
    cell: String,
    element: String,
}

/// A step of element paths and how many of each child it has seen.
#[derive(Debug)]
struct Container {
    step: String,
    counts: HashMap<&'static str, u32>,
}

impl Container {
    fn new(step: String) -> Container {
        Container { step, counts: HashMap::new() }
    }
}

/// Element paths keep at most this many steps: the first (`body`) and the
/// nearest the block, with `…` between, so content controls nested
/// thousands deep cost no more per block.
pub const MAX_PATH_STEPS: usize = 64;

/// The path of the next `tag` child of the innermost container.
fn child_path(containers: &mut [Container], tag: &'static str) -> String {
    let Some((last, _)) = containers.split_last_mut() else { return String::new() };
    let n = last.counts.entry(tag).or_insert(0);
    *n += 1;
    let step = format!("{tag}[{n}]");
    let steps: Vec<&str> = containers.iter().map(|c| c.step.as_str()).chain([step.as_str()]).collect();
    if steps.len() <= MAX_PATH_STEPS {
        return steps.join("/");
    }
    let tail = &steps[steps.len() - (MAX_PATH_STEPS - 2)..];
    format!("{}/…/{}", steps[0], tail.join("/"))
}

/// The walk's state.
pub struct Walker<'s> {
    styles: &'s Styles,
    numbering: &'s Numbering,
    /// List counters per list instance (`w:numId`), one per level.
    counters: HashMap<u32, [u32; 9]>,
    pub b: TextBuilder,
    /// Headings emitted: (block index, rank).
    pub headings: Vec<(usize, u8)>,
    open: Vec<Open>,
    /// The paragraph being read, and those it is inside of (a text box's
    /// paragraphs are inside the paragraph anchoring it).
    para: Option<Para>,
    outer: Vec<Option<Para>>,
    /// How many of `outer` are paragraphs (text boxes open).
    anchors: usize,
    tables: Vec<Table>,
    /// Consecutive list items not yet emitted, and the first one's path.
    list: Option<(String, String)>,
    containers: Vec<Container>,
    /// Per open `mc:AlternateContent`: whether a branch was taken.
    alt: Vec<bool>,
    in_ppr: u32,
    in_run: u32,
    in_text: u32,
}

impl<'s> Walker<'s> {
    pub fn new(styles: &'s Styles, numbering: &'s Numbering) -> Walker<'s> {
        Walker {
            styles,
            numbering,
            counters: HashMap::new(),
            b: TextBuilder::default(),
            headings: Vec::new(),
            open: Vec::new(),
            para: None,
            outer: Vec::new(),
            anchors: 0,
            tables: Vec::new(),
            list: None,
            containers: Vec::new(),
            alt: Vec::new(),
            in_ppr: 0,
            in_run: 0,
            in_text: 0,
        }
    }

    /// Walk the whole part.
    pub fn walk(&mut self, x: &mut Xml<'_>) -> Result<()> {
        loop {
            match x.event()? {
                Ev::Eof => break,
                Ev::Start(ns, e) => self.start(x, ns, &e)?,
                Ev::Empty(ns, e) => self.empty(ns, &e),
                Ev::End => self.end(),
                Ev::Text(t) => {
                    if self.in_text > 0 {
                        if let Some(p) = self.para.as_mut() {
                            p.text.push_str(&t);
                        }
                    }
                }
            }
        }
        self.flush_list();
        Ok(())
    }

    /// Whether the walk is at block level of the body (or of a block-level
    /// content control): not in a paragraph, table or text box.
    fn block_level(&self) -> bool {
        self.para.is_none() && self.tables.is_empty() && self.anchors == 0
    }

    /// The path of a new block-level `tag`, or the anchor's path inside a
    /// text box (empty inside a table, where the table's path serves).
    fn element(&mut self, tag: &'static str) -> String {
        if self.block_level() && !self.containers.is_empty() {
            return child_path(&mut self.containers, tag);
        }
        let anchor = self.para.iter().chain(self.outer.iter().rev().flatten()).next();
        anchor.map(|p| p.element.clone()).unwrap_or_default()
    }

    fn start(&mut self, x: &mut Xml<'_>, ns: Ns, e: &BytesStart<'_>) -> Result<()> {
        let open = match (ns, local(e)) {
            (Ns::W, b"body") => {
                self.containers.push(Container::new("body".into()));
                Open::Container
            }
            (Ns::W, tag @ (b"sdt" | b"customXml")) if self.block_level() && !self.containers.is_empty() => {
                let tag = if tag == b"sdt" { "sdt" } else { "customXml" };
                let Some(last) = self.containers.last_mut() else { return Ok(()) };
                let n = last.counts.entry(tag).or_insert(0);
                *n += 1;
                let step = format!("{tag}[{n}]");
                self.containers.push(Container::new(step));
                Open::Container
            }
            (Ns::W, b"sdtContent") if self.block_level() && self.open.last() == Some(&Open::Container) => {
                self.containers.push(Container::new("sdtContent".into()));
                Open::Container
            }
            (Ns::W, b"p") => {
                let element = self.element("p");
                let outer = self.para.take();
                self.anchors += usize::from(outer.is_some());
                self.outer.push(outer);
                self.para = Some(Para { element, ..Para::default() });
                Open::Para
            }
            (Ns::W, b"pPr") if self.para.is_some() => {
                self.in_ppr += 1;
                Open::PPr
            }
            (Ns::W, b"r") => {
                self.in_run += 1;
                Open::Run
            }
            (Ns::W | Ns::M, b"t") if self.in_ppr == 0 => {
                self.in_text += 1;
                Open::Text
            }
            (Ns::W, b"tbl") => {
                let element = self.element("tbl");
                self.tables.push(Table { element, ..Table::default() });
                Open::Table
            }
            (Ns::W, b"tr") if !self.tables.is_empty() => {
                if let Some(t) = self.tables.last_mut() {
                    t.cells.clear();
                }
                Open::Row
            }
            (Ns::W, b"tc") if !self.tables.is_empty() => {
                if let Some(t) = self.tables.last_mut() {
                    t.cell.clear();
                }
                Open::Cell
            }
            (Ns::Mc, b"AlternateContent") => {
                self.alt.push(false);
                Open::Alt
            }
            // One branch of an AlternateContent: the first Choice (what Word
            // shows), or the Fallback when there is no Choice.
            (Ns::Mc, b"Choice" | b"Fallback") => {
                match self.alt.last_mut() {
                    Some(taken) if !*taken => *taken = true,
                    _ => return x.skip(e),
                }
                Open::Other
            }
            // Deleted and moved-away text, field codes, ruby guides, old
            // properties of tracked changes, and what holds no text.
            (
                Ns::W,
                b"del" | b"moveFrom" | b"delText" | b"instrText" | b"delInstrText" | b"rt" | b"rPr" | b"sectPr"
                | b"tblPr" | b"tblGrid" | b"trPr" | b"tcPr" | b"sdtPr" | b"sdtEndPr" | b"pPrChange" | b"rPrChange"
                | b"sectPrChange" | b"tblPrChange" | b"trPrChange" | b"tcPrChange" | b"tblGridChange"
                | b"numberingChange" | b"object" | b"fldData" | b"tabs",
            ) => return x.skip(e),
            _ => {
                self.leaf(ns, e);
                Open::Other
            }
        };
        self.open.push(open);
        Ok(())
    }

    fn empty(&mut self, ns: Ns, e: &BytesStart<'_>) {
        match (ns, local(e)) {
            // An empty paragraph or table still counts for element paths.
            (Ns::W, b"p") => {
                self.element("p");
            }
            (Ns::W, b"tbl") => {
                self.element("tbl");
            }
            (Ns::W, b"tc") => {
                if let Some(t) = self.tables.last_mut() {
                    t.cells.push(String::new());
                }
            }
            _ => self.leaf(ns, e),
        }
    }

    /// Elements that add a character or set a paragraph property.
    fn leaf(&mut self, ns: Ns, e: &BytesStart<'_>) {
        if ns != Ns::W {
            return;
        }
        let Some(p) = self.para.as_mut() else { return };
        if self.in_ppr > 0 {
            match local(e) {
                b"pStyle" => p.style = attr(e, b"val"),
                b"outlineLvl" => p.outline = val_num(e),
                b"numId" => p.num.num_id = val_num(e),
                b"ilvl" => p.num.ilvl = val_num(e),
                _ => {}
            }
            return;
        }
        if self.in_run == 0 {
            return;
        }
        match local(e) {
            b"tab" | b"ptab" => p.text.push('\t'),
            b"br" | b"cr" => p.text.push('\n'),
            b"noBreakHyphen" => p.text.push('-'),
            _ => {}
        }
    }

    fn end(&mut self) {
        let Some(open) = self.open.pop() else { return };
        match open {
            Open::Other => {}
            Open::Container => {
                self.containers.pop();
            }
            Open::PPr => self.in_ppr = self.in_ppr.saturating_sub(1),
            Open::Run => self.in_run = self.in_run.saturating_sub(1),
            Open::Text => self.in_text = self.in_text.saturating_sub(1),
            Open::Alt => {
                self.alt.pop();
            }
            Open::Para => {
                let done = self.para.take();
                self.para = self.outer.pop().flatten();
                self.anchors = self.anchors.saturating_sub(usize::from(self.para.is_some()));
                if let Some(p) = done {
                    self.paragraph(p);
                }
            }
            Open::Cell => {
                if let Some(t) = self.tables.last_mut() {
                    let cell = std::mem::take(&mut t.cell);
                    t.cells.push(cell);
                }
            }
            Open::Row => {
                let nested = self.tables.len() > 1;
                if let Some(t) = self.tables.last_mut() {
                    if t.cells.iter().any(|c| !c.is_empty()) {
                        // A nested table's cells are flattened into its cell: no separators.
                        let row = t.cells.join(if nested { " " } else { " | " });
                        t.rows.push(row);
                    }
                    t.cells.clear();
                }
            }
            Open::Table => {
                let Some(t) = self.tables.pop() else { return };
                if let Some(outer) = self.tables.last_mut() {
                    // A table in a cell: its text flattened into the cell.
                    let flat = t.rows.join(" ");
                    append_words(&mut outer.cell, &flat);
                } else if let Some(p) = self.para.as_mut() {
                    // A table in a text box, in a paragraph: its rows join the paragraph's text.
                    p.text.push('\n');
                    p.text.push_str(&t.rows.join("\n"));
                } else {
                    self.flush_list();
                    self.b.block(&t.rows.join("\n"), BlockKind::Table, Some(t.element));
                }
            }
        }
    }

    /// A finished paragraph: into the table cell it is in, or a block.
    fn paragraph(&mut self, p: Para) {
        if let Some(t) = self.tables.last_mut() {
            append_words(&mut t.cell, &p.text);
            return;
        }
        if let Some(anchor) = self.para.as_mut() {
            // A text box's paragraph, inside the paragraph anchoring it: its own line there.
            let text = tidy(&p.text);
            if !text.is_empty() {
                if !anchor.text.is_empty() && !anchor.text.ends_with('\n') {
                    anchor.text.push('\n');
                }
                anchor.text.push_str(&text);
                anchor.text.push('\n');
            }
            return;
        }
        let text = tidy(&p.text);
        if text.is_empty() {
            return;
        }
        let verdict = outline_verdict(p.outline).or_else(|| self.styles.heading(p.style.as_deref()));
        if let Some(Verdict::Heading(rank)) = verdict {
            self.flush_list();
            // A chapter number right before its title: one heading of two
            // lines ("Chapter 7" / "Ownership"), ranked as the title, so the
            // number is in every heading path and is no section of its own.
            let blocks = &mut self.b.out.structure.blocks;
            let last = self.headings.last_mut().filter(|h| h.0 + 1 == blocks.len());
            if let (RANK_CHAPTER_TITLE, Some(last)) = (rank, last) {
                if last.1 == RANK_CHAPTER_NUMBER {
                    last.1 = RANK_CHAPTER_TITLE;
                    let out = &mut self.b.out.text;
                    out.push('\n');
                    out.push_str(&text);
                    if let Some(b) = blocks.last_mut() {
                        b.range.end = out.len();
                    }
                    return;
                }
            }
            let before = self.b.out.structure.blocks.len();
            self.b.block(&text, BlockKind::Heading(1), Some(p.element));
            if self.b.out.structure.blocks.len() > before {
                self.headings.push((before, rank));
            }
            return;
        }
        let style_num = self.styles.num(p.style.as_deref());
        let num_id = p.num.num_id.or(style_num.num_id);
        match num_id {
            Some(id) if id != 0 => {
                let ilvl = p.num.ilvl.or(style_num.ilvl).unwrap_or(0).min(8);
                let format = self.numbering.level(id, ilvl);
                let counters = self.counters.entry(id).or_insert([0; 9]);
                let level = usize::from(ilvl);
                counters[level] = if counters[level] == 0 {
                    format.map_or(1, |(_, start)| start)
                } else {
                    counters[level].saturating_add(1)
                };
                counters[level + 1..].iter_mut().for_each(|c| *c = 0);
                let line =
                    format!("{}{}{}", "  ".repeat(level), marker(format, counters[level]), text.replace('\n', " "));
                match self.list.as_mut() {
                    Some((items, _)) => {
                        items.push('\n');
                        items.push_str(&line);
                    }
                    None => self.list = Some((line, p.element)),
                }
            }
            _ => {
                self.flush_list();
                self.b.block(&text, BlockKind::Paragraph, Some(p.element));
            }
        }
    }

    fn flush_list(&mut self) {
        if let Some((items, element)) = self.list.take() {
            self.b.block(&items, BlockKind::List, Some(element));
        }
    }
}

/// A paragraph's text with its blank lines dropped and its lines' ends
/// trimmed (so it stays one block of the extracted text).
fn tidy(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim_end).filter(|l| !l.trim().is_empty()).collect();
    lines.join("\n").trim_start().to_string()
}

/// Append `text` to a table cell on one line: whitespace runs become one space.
fn append_words(cell: &mut String, text: &str) {
    for word in text.split_whitespace() {
        if !cell.is_empty() {
            cell.push(' ');
        }
        cell.push_str(word);
    }
}
