//! HTML to text with the structure kept, parsed by html5ever (through
//! `scraper`), so entities, unclosed tags and stray markup are read the way a
//! browser reads them.
//!
//! - Dropped: `head` (title and metadata), `script`, `style`, `noscript`,
//!   `template`, and embedded non-text content (`svg`, `math`, `iframe`,
//!   `object`, `canvas`), and comments.
//! - Every block (heading, paragraph, list, table, `pre`, a run of text
//!   directly inside a container) becomes one block of the text, separated
//!   from the next by a blank line. Inside a block, whitespace collapses to
//!   one space as a browser shows it (a line break between two CJK
//!   characters disappears, as CSS Text says), `<br>` is a line break.
//! - Headings are their text on their own line(s), without markup.
//! - Lists are one block, an item a line: `- ` for `ul`, `1. ` for `ol`
//!   (counting from its `start`), nested lists indented by two spaces;
//!   `dl` terms on their own line, definitions indented.
//! - Tables are one block, a row a line, cells separated by ` | ` (not
//!   tabs: a chunk then reads like a Markdown table row anywhere, and
//!   terminals show tabs at unpredictable widths); a caption is its first line.
//! - `pre` keeps its whitespace.
//!
//! Element paths are CSS selectors from the root, `html > body > article >
//! section:nth-of-type(2) > p:nth-of-type(3)`: `:nth-of-type(n)` is added
//! where the parent holds more than one element of that tag, so the path
//! pastes into `document.querySelector` and finds the block.

use super::{BlockKind, Extracted, TextBuilder};
use ego_tree::{NodeId, NodeRef};
use scraper::{Html, Node};
use std::collections::HashMap;
use unicode_width::UnicodeWidthChar;

type NodeR<'a> = NodeRef<'a, Node>;

/// Elements whose content is not text a reader sees.
const DROPPED: &[&str] =
    &["head", "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas"];

/// Elements that break the flow of text: inline text before and after them
/// belongs to different blocks.
const BLOCKS: &[&str] = &[
    "html",
    "body",
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "div",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "hgroup",
    "legend",
    "main",
    "nav",
    "p",
    "section",
    "summary",
    "li",
    "dd",
    "dt",
    "caption",
    "td",
    "th",
    "tr",
];

/// Element paths keep at most this many steps: deeper, the steps nearest
/// the block (a selector that still matches it, no longer from the root),
/// so a document nested thousands deep costs no more per block.
pub const MAX_PATH_STEPS: usize = 128;

/// Extract the text and structure of an HTML document. Every walk of the
/// tree keeps its own stack: no depth of nesting recurses.
pub fn extract(source: &str) -> Extracted {
    let doc = Html::parse_document(source);
    let mut w = Walker {
        b: TextBuilder::default(),
        inline: Inline::default(),
        owner: None,
        blocks: Vec::new(),
        nth: HashMap::new(),
    };
    w.walk(*doc.root_element());
    w.flush();
    w.b.out
}

/// Deeper element nesting than this is refused by [`extract_checked`]: the
/// parser (html5ever) checks what is open at every tag, so its time grows
/// with the square of the depth (seconds at 40,000). Browsers stop nesting
/// at 512; real pages stay far below either.
pub const MAX_DEPTH: usize = 10_000;

/// [`extract`], after checking that the nesting is within [`MAX_DEPTH`];
/// `name` is used in the message.
pub fn extract_checked(source: &str, name: &str) -> crate::error::Result<Extracted> {
    let depth = nesting_depth(source, MAX_DEPTH);
    if depth > MAX_DEPTH {
        return Err(crate::error::Error::input(format!(
            "{name} nests HTML elements more than {MAX_DEPTH} deep (browsers stop at 512): it is machine-made or \
             damaged; flatten it, or convert it to text first"
        )));
    }
    Ok(extract(source))
}

/// Elements that never hold others or that the parser closes by itself when
/// the next one opens: they add no depth.
const FLAT: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr", "p",
    "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot", "colgroup", "caption", "rb",
    "rt", "rp", "html", "head", "body", "frame", "keygen",
];

/// How deep the elements of `source` nest, roughly as the parser will see
/// it (an end tag closes the nearest open element of its name and all
/// opened after it, elements in [`FLAT`] never nest, text of `script`,
/// `style`, `textarea`, `title` and comments is skipped); counting stops
/// past `limit`. One pass, linear in the length: no search of what is open.
pub fn nesting_depth(source: &str, limit: usize) -> usize {
    let bytes = source.as_bytes();
    // The open elements' names, and per name the places it is open at.
    let mut stack: Vec<String> = Vec::new();
    let mut at: HashMap<String, Vec<usize>> = HashMap::new();
    let mut deepest = 0;
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'<', &bytes[i..]) {
        i += off + 1;
        if bytes[i..].starts_with(b"!--") {
            i = memchr::memmem::find(&bytes[i..], b"-->").map_or(bytes.len(), |e| i + e + 3);
            continue;
        }
        let end = bytes.get(i) == Some(&b'/');
        let from = i + usize::from(end);
        let len = bytes[from..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'-').count();
        if len == 0 || !bytes[from].is_ascii_alphabetic() {
            continue;
        }
        let name = source[from..from + len].to_ascii_lowercase();
        i = from + len;
        if end {
            let open = at.get(&name).and_then(|v| v.last().copied());
            if let Some(k) = open {
                for closed in stack.drain(k..) {
                    if let Some(v) = at.get_mut(&closed) {
                        v.pop();
                    }
                }
            }
            continue;
        }
        if matches!(name.as_str(), "script" | "style" | "textarea" | "title" | "xmp" | "plaintext") {
            // To its end tag, whatever its case.
            let from = i;
            i = bytes.len();
            for e in memchr::memmem::find_iter(&bytes[from..], b"</").map(|e| from + e) {
                if bytes.get(e + 2..e + 2 + len).is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes())) {
                    i = e;
                    break;
                }
            }
            continue;
        }
        // A self-closing tag (`<div/>` in XHTML-ish pages) is read as an open
        // one by the parser, except for void elements (in FLAT).
        if FLAT.contains(&name.as_str()) {
            continue;
        }
        at.entry(name.clone()).or_default().push(stack.len());
        stack.push(name);
        deepest = deepest.max(stack.len());
        if deepest > limit {
            break;
        }
    }
    deepest
}

/// Inline text as a browser lays it out: whitespace runs collapse to one
/// space, none at the start of a line.
#[derive(Default)]
struct Inline {
    buf: String,
    /// Whitespace seen since the last char, and whether it held a line break.
    space: bool,
    newline: bool,
}

impl Inline {
    fn text(&mut self, s: &str) {
        for c in s.chars() {
            // HTML's whitespace only: a no-break space stays.
            if matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c') {
                self.space = true;
                self.newline |= c == '\n';
                continue;
            }
            if self.space && !self.buf.is_empty() && !self.buf.ends_with('\n') {
                // A source line break between two wide (CJK) chars is no space.
                let prev_wide = self.buf.chars().next_back().and_then(|p| p.width()) == Some(2);
                if !(self.newline && prev_wide && c.width() == Some(2)) {
                    self.buf.push(' ');
                }
            }
            self.space = false;
            self.newline = false;
            self.buf.push(c);
        }
    }

    fn line_break(&mut self) {
        self.buf.push('\n');
        self.space = false;
        self.newline = false;
    }

    /// A block boundary inside an inline context (a `<p>` in a list item):
    /// a space at most.
    fn soft_break(&mut self) {
        self.space = true;
    }

    fn take(&mut self) -> String {
        self.space = false;
        self.newline = false;
        std::mem::take(&mut self.buf)
    }
}

struct Walker<'a> {
    b: TextBuilder,
    inline: Inline,
    /// The block element the pending inline text belongs to.
    owner: Option<NodeR<'a>>,
    /// The block elements being walked in, outermost first.
    blocks: Vec<NodeR<'a>>,
    /// Per element: its `:nth-of-type` index, when its parent has several of its tag.
    nth: HashMap<NodeId, Option<usize>>,
}

fn element_name<'a>(n: &NodeR<'a>) -> Option<&'a str> {
    n.value().as_element().map(|e| e.name())
}

fn heading_level(name: &str) -> Option<u8> {
    match name.as_bytes() {
        [b'h', d @ b'1'..=b'6'] => Some(d - b'0'),
        _ => None,
    }
}

/// One step of a walk: a node to visit, or what to do when an element's
/// children are done.
enum Step<'a> {
    Visit(NodeR<'a>),
    /// A block element ends: its pending text is a paragraph.
    EndBlock,
    /// An element ends inside an inline run (`inline_text`).
    SoftBreak,
}

/// Push `node`'s children so that they pop first to last.
fn push_children<'a>(stack: &mut Vec<Step<'a>>, node: NodeR<'a>) {
    stack.extend(node.children().rev().map(Step::Visit));
}

impl<'a> Walker<'a> {
    fn walk(&mut self, root: NodeR<'a>) {
        if element_name(&root).is_some_and(|name| BLOCKS.contains(&name)) {
            self.blocks.push(root);
        }
        let mut stack = Vec::new();
        push_children(&mut stack, root);
        while let Some(step) = stack.pop() {
            match step {
                Step::Visit(child) => match child.value() {
                    Node::Text(t) => {
                        if self.owner.is_none() && !t.trim().is_empty() {
                            // The nearest block it is in (the text itself when none is).
                            self.owner = Some(self.blocks.last().copied().unwrap_or(child));
                        }
                        self.inline.text(t);
                    }
                    Node::Element(e) => self.element(child, e.name(), &mut stack),
                    _ => {}
                },
                Step::EndBlock => {
                    self.flush();
                    self.blocks.pop();
                }
                Step::SoftBreak => {}
            }
        }
    }

    fn element(&mut self, node: NodeR<'a>, name: &str, stack: &mut Vec<Step<'a>>) {
        if DROPPED.contains(&name) {
            return;
        }
        if let Some(level) = heading_level(name) {
            self.flush();
            let text = inline_text(node, false);
            self.emit(&text, BlockKind::Heading(level), node);
            return;
        }
        match name {
            "ul" | "ol" | "dl" => {
                self.flush();
                let mut text = String::new();
                render_list(node, &mut text);
                self.emit(&text, BlockKind::List, node);
            }
            "table" => {
                self.flush();
                self.emit(&render_table(node), BlockKind::Table, node);
            }
            "pre" => {
                self.flush();
                let mut text = String::new();
                raw_text(node, &mut text);
                self.emit(&text, BlockKind::Preformatted, node);
            }
            "br" => self.inline.line_break(),
            "hr" => self.flush(),
            _ if BLOCKS.contains(&name) => {
                self.flush();
                self.blocks.push(node);
                stack.push(Step::EndBlock);
                push_children(stack, node);
            }
            _ => push_children(stack, node),
        }
    }

    /// The pending inline text as a paragraph of its owner.
    fn flush(&mut self) {
        let text = self.inline.take();
        if let Some(owner) = self.owner.take() {
            let element = self.path(owner);
            self.b.block(&text, BlockKind::Paragraph, Some(element));
        }
    }

    fn emit(&mut self, text: &str, kind: BlockKind, node: NodeR<'_>) {
        let element = self.path(node);
        self.b.block(text, kind, Some(element));
    }

    /// `html > body > section:nth-of-type(2) > p`; the last
    /// [`MAX_PATH_STEPS`] steps of a deeper one.
    fn path(&mut self, node: NodeR<'_>) -> String {
        let mut steps: Vec<String> = Vec::new();
        let mut cur = Some(node);
        while let Some(n) = cur {
            if steps.len() == MAX_PATH_STEPS {
                break;
            }
            if let Some(name) = element_name(&n) {
                match self.nth_of_type(n) {
                    Some(k) => steps.push(format!("{name}:nth-of-type({k})")),
                    None => steps.push(name.to_string()),
                }
            }
            cur = n.parent();
        }
        steps.reverse();
        steps.join(" > ")
    }

    /// `node`'s 1-based index among its parent's elements of its tag, or
    /// None when it is the only one. Computed once per parent (a page of ten
    /// thousand sibling paragraphs must not count siblings ten thousand times).
    fn nth_of_type(&mut self, node: NodeR<'_>) -> Option<usize> {
        if let Some(&k) = self.nth.get(&node.id()) {
            return k;
        }
        let parent = node.parent()?;
        let mut counts: HashMap<&str, usize> = HashMap::new();
        let mut index = Vec::new();
        for child in parent.children() {
            if let Some(n) = element_name(&child) {
                let k = counts.entry(n).or_default();
                *k += 1;
                index.push((child.id(), n, *k));
            }
        }
        for (id, n, k) in index {
            let several = counts.get(n).copied().unwrap_or(0) > 1;
            self.nth.insert(id, several.then_some(k));
        }
        self.nth.get(&node.id()).copied().flatten()
    }
}

/// The text of a subtree as one inline run (headings, list items, cells).
/// Nested lists are left out when `skip_lists` (they get their own lines).
fn inline_text(node: NodeR<'_>, skip_lists: bool) -> String {
    let mut out = Inline::default();
    let mut stack = Vec::new();
    push_children(&mut stack, node);
    while let Some(step) = stack.pop() {
        let child = match step {
            Step::Visit(child) => child,
            Step::SoftBreak => {
                out.soft_break();
                continue;
            }
            Step::EndBlock => continue,
        };
        match child.value() {
            Node::Text(t) => out.text(t),
            Node::Element(e) => {
                let name = e.name();
                if DROPPED.contains(&name) || (skip_lists && matches!(name, "ul" | "ol" | "dl")) {
                    continue;
                }
                if name == "br" {
                    out.line_break();
                    continue;
                }
                let block = BLOCKS.contains(&name) || heading_level(name).is_some() || name == "table";
                if block {
                    out.soft_break();
                    stack.push(Step::SoftBreak);
                }
                push_children(&mut stack, child);
            }
            _ => {}
        }
    }
    out.take()
}

/// Every text node of a subtree as it is (`pre`).
fn raw_text(node: NodeR<'_>, out: &mut String) {
    let mut stack = Vec::new();
    push_children(&mut stack, node);
    while let Some(Step::Visit(child)) = stack.pop() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) if e.name() == "br" => out.push('\n'),
            Node::Element(e) if !DROPPED.contains(&e.name()) => push_children(&mut stack, child),
            _ => {}
        }
    }
}

/// Lists nested somewhere inside `node`, not inside another list, in order.
fn nested_lists<'a>(node: NodeR<'a>, out: &mut Vec<NodeR<'a>>) {
    let mut stack = Vec::new();
    push_children(&mut stack, node);
    while let Some(Step::Visit(child)) = stack.pop() {
        match element_name(&child) {
            Some("ul" | "ol" | "dl") => out.push(child),
            Some(name) if !DROPPED.contains(&name) => push_children(&mut stack, child),
            _ => {}
        }
    }
}

/// A list being rendered: the next of its children, its depth and counter.
struct ListFrame<'a> {
    next: Option<NodeR<'a>>,
    depth: usize,
    ordered: bool,
    number: i64,
}

impl<'a> ListFrame<'a> {
    fn new(list: NodeR<'a>, depth: usize) -> Self {
        let number =
            list.value().as_element().and_then(|e| e.attr("start")).and_then(|s| s.trim().parse().ok()).unwrap_or(1);
        ListFrame { next: list.first_child(), depth, ordered: element_name(&list) == Some("ol"), number }
    }
}

/// A list, an item a line, its nested lists after the item that holds them
/// (indented a level deeper): a stack of lists being rendered, no recursion.
fn render_list(list: NodeR<'_>, out: &mut String) {
    let mut stack = vec![ListFrame::new(list, 0)];
    while let Some(frame) = stack.last_mut() {
        let Some(item) = frame.next else {
            stack.pop();
            continue;
        };
        frame.next = item.next_sibling();
        let Some(name) = element_name(&item) else { continue };
        let marker = match name {
            "li" if frame.ordered => {
                frame.number = frame.number.saturating_add(1);
                format!("{}. ", frame.number - 1)
            }
            "li" => "- ".to_string(),
            "dt" => String::new(),
            "dd" => "  ".to_string(),
            _ => continue,
        };
        let depth = frame.depth;
        let indent = "  ".repeat(depth);
        let text = inline_text(item, true);
        if !out.is_empty() {
            out.push('\n');
        }
        // Lines after the first (a `<br>` in the item) line up under its text.
        let pad = format!("\n{indent}{}", " ".repeat(marker.chars().count()));
        out.push_str(&format!("{indent}{marker}{}", text.trim().replace('\n', &pad)));
        let mut lists = Vec::new();
        nested_lists(item, &mut lists);
        stack.extend(lists.into_iter().rev().map(|nested| ListFrame::new(nested, depth + 1)));
    }
}

/// Rows of `node` (through thead/tbody/tfoot), not of tables nested in cells.
fn rows<'a>(node: NodeR<'a>, out: &mut Vec<NodeR<'a>>) {
    let mut stack = Vec::new();
    push_children(&mut stack, node);
    while let Some(Step::Visit(child)) = stack.pop() {
        match element_name(&child) {
            Some("tr") => out.push(child),
            Some("thead" | "tbody" | "tfoot") => push_children(&mut stack, child),
            _ => {}
        }
    }
}

fn render_table(table: NodeR<'_>) -> String {
    let mut lines: Vec<String> = Vec::new();
    for child in table.children() {
        if element_name(&child) == Some("caption") {
            lines.push(inline_text(child, false).replace('\n', " "));
        }
    }
    let mut trs = Vec::new();
    rows(table, &mut trs);
    for tr in trs {
        let cells: Vec<String> = tr
            .children()
            .filter(|c| matches!(element_name(c), Some("td" | "th")))
            .map(|c| inline_text(c, false).trim().replace('\n', " "))
            .collect();
        if cells.iter().any(|c| !c.is_empty()) {
            lines.push(cells.join(" | "));
        }
    }
    lines.join("\n")
}
