//! The walk: sibling nodes grouped (an item with its comments), groups
//! packed into chunks, a group over the size replaced by its children.

use super::grammar::{self, Grammar};
use crate::chunk::Chunk;
use crate::error::{Error, Result};
use crate::segment::{trim_range, EachRange};
use crate::size::SizeIndex;
use crate::strategy::recursive::{self, Sep, Separators};
use crate::strategy::{collect_each, Context, Strategy};
use std::ops::Range;
use tree_sitter::{Language, Node, Parser};

/// Deeper than this (a machine-written expression, a fuzzer's brackets) a
/// node over the size goes to the line splitter instead: the walk recurses.
const MAX_DEPTH: usize = 256;

/// Most text parsed at once. A syntax tree takes about 40 bytes per byte of
/// Rust (300 MB for 8 MB): past this a machine-written file would take
/// gigabytes, so it is refused with what to do instead.
pub const MAX_PARSE_BYTES: usize = 32 << 20;

/// The `code` strategy with a grammar.
pub struct Parsed {
    grammar: &'static Grammar,
    language: Language,
    /// What cuts a leaf over the size (a long string, comment or token run).
    leaves: Separators,
}

impl Parsed {
    pub fn new(name: &str) -> Result<Self> {
        let grammar =
            grammar::find(name).ok_or_else(|| Error::config(format!("no tree-sitter grammar named '{name}'")))?;
        let language = (grammar.language)();
        // A grammar built for another tree-sitter ABI is refused here, once.
        Parser::new()
            .set_language(&language)
            .map_err(|e| Error::config(format!("the {name} grammar does not load in this tree-sitter: {e}")))?;
        let leaves = Separators(vec![Sep::Paragraph, Sep::Line, Sep::Whitespace, Sep::Grapheme]);
        Ok(Parsed { grammar, language, leaves })
    }
}

impl Strategy for Parsed {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        collect_each(self, text, cx)
    }

    fn streams(&self) -> bool {
        true
    }

    /// Each chunk handed over as the walk closes it. The syntax tree is
    /// held (tree-sitter's), and the sibling lists of the nodes being walked
    /// into; the chunks are not.
    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        if text.len() > MAX_PARSE_BYTES {
            return Err(Error::input(format!(
                "{} MB of {} is more than the code strategy parses at once ({} MB; its syntax tree takes about \
                 40 bytes a byte): split the file, or use --strategy recursive",
                text.len() >> 20,
                self.grammar.name,
                MAX_PARSE_BYTES >> 20
            )));
        }
        let index = cx.sizer.index(text)?;
        let mut parser = Parser::new();
        parser.set_language(&self.language).map_err(|e| Error::config(e.to_string()))?;
        let tree = parser.parse(text, None).ok_or_else(|| super::parse_failed(self.grammar.name))?;
        let root = tree.root_node();
        let mut walker = Walker {
            text,
            index: &index,
            size: cx.config.size,
            grammar: self.grammar,
            leaves: &self.leaves,
            path: Vec::new(),
            emit,
        };
        let mut cursor = root.walk();
        let top: Vec<Node<'_>> = root.children(&mut cursor).collect();
        let open = walker.sequence(&top, 0..text.len(), 0, false, 0, None);
        walker.close(open);
        Ok(())
    }
}

struct Walker<'a, 't> {
    text: &'a str,
    index: &'a SizeIndex<'t>,
    size: usize,
    grammar: &'static Grammar,
    leaves: &'a Separators,
    /// The symbols of the items being walked into, outermost first.
    path: Vec<String>,
    /// Where each chunk goes once closed (in text order).
    emit: &'a mut dyn FnMut(Chunk),
}

/// Sibling nodes `first..=last` that go into chunks as one: an item (at
/// `item`) with the comments and attributes before it and a comment after it
/// on its last line. Its range runs to the next group, so the groups of a
/// sequence cover it without gaps.
#[derive(Clone, Copy)]
struct Group {
    start: usize,
    end: usize,
    first: usize,
    item: usize,
    last: usize,
}

/// The chunk being filled.
struct Open<'tree> {
    start: usize,
    end: usize,
    /// Items with a symbol it holds whole, and the first of them.
    symbols: usize,
    symbol: Option<Node<'tree>>,
    /// It starts an item over the size and holds only its head so far
    /// (comments, `pub fn name(args)`): the body goes on from it.
    head: bool,
    /// It holds only heads of the items being walked into and opening
    /// tokens (`impl Searcher {`): an item over the size goes on from it.
    lead: bool,
    /// It ends an item that was walked into: closing tokens (`}`, `;`) may
    /// still join it; its symbols are those of that item.
    tail: Option<Vec<String>>,
}

impl<'tree> Open<'tree> {
    fn new(g: Group, head: bool) -> Self {
        Open { start: g.start, end: g.end, symbols: 0, symbol: None, head, lead: head, tail: None }
    }
}

impl<'tree> Walker<'_, '_> {
    /// Chunk `range`, which `nodes` (siblings, in order) cover but for
    /// whitespace, going on with `open` if given; returns the chunk still
    /// open at the end. `nodes[..lead]` go with `nodes[lead]` (the keywords
    /// and decorators of a wrapper go with the item it wraps). `item` says
    /// the nodes are the comments and children of an item.
    fn sequence(
        &mut self,
        nodes: &[Node<'tree>],
        range: Range<usize>,
        lead: usize,
        item: bool,
        depth: usize,
        mut open: Option<Open<'tree>>,
    ) -> Option<Open<'tree>> {
        let groups = self.groups(nodes, range, lead);
        // Groups split into their nodes, to place before the next group (last first).
        let mut split = Vec::new();
        let mut next = groups.iter().enumerate();
        loop {
            let (g, first) = match split.pop() {
                Some(g) => (g, false),
                None => match next.next() {
                    Some((k, &g)) => (g, k == 0),
                    None => break,
                },
            };
            self.place(g, nodes, &mut open, &mut split, item && first, depth);
        }
        open.map(|mut o| {
            // What it holds was walked into: it keeps the symbols it has here.
            if o.tail.is_none() {
                o.tail = Some(self.symbols(&o));
            }
            o
        })
    }

    /// `nodes` grouped (comments and attributes with the item after them, a
    /// comment on an item's last line with that item), with ranges that tile
    /// `range`.
    fn groups(&self, nodes: &[Node<'tree>], range: Range<usize>, lead: usize) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::with_capacity(nodes.len());
        // The first node of a run waiting for the item it goes with.
        let mut pending: Option<usize> = None;
        for (i, node) in nodes.iter().enumerate() {
            if i < lead {
                pending.get_or_insert(i);
                continue;
            }
            if i != lead && self.grammar.is_attached(*node) {
                if pending.is_none() {
                    if let Some(prev) = groups.last_mut() {
                        let between = self.text.get(nodes[prev.last].end_byte()..node.start_byte()).unwrap_or("\n");
                        if !between.contains('\n') {
                            prev.last = i; // `foo(); // why`
                            continue;
                        }
                    }
                }
                pending.get_or_insert(i);
                continue;
            }
            let first = pending.take().unwrap_or(i);
            groups.push(Group { start: 0, end: 0, first, item: i, last: i });
        }
        if let Some(first) = pending {
            // Comments at the end: the last one stands for the run.
            groups.push(Group { start: 0, end: 0, first, item: nodes.len() - 1, last: nodes.len() - 1 });
        }
        let mut at = range.start;
        for k in 0..groups.len() {
            if k > 0 {
                at = nodes[groups[k].first].start_byte().clamp(at, range.end);
            }
            groups[k].start = at;
        }
        for k in 0..groups.len() {
            groups[k].end = groups.get(k + 1).map_or(range.end, |g| g.start);
        }
        groups
    }

    /// Put group `g` into the open chunk, or start a chunk at it, or (over
    /// the size) split it into its nodes or walk into its item. `head`: `g`
    /// is the first group of an item's children.
    fn place(
        &mut self,
        g: Group,
        nodes: &[Node<'tree>],
        open: &mut Option<Open<'tree>>,
        split: &mut Vec<Group>,
        head: bool,
        depth: usize,
    ) {
        if g.start >= g.end {
            return;
        }
        let item = nodes[g.item];
        if let Some(o) = open.as_mut() {
            // After the end of an item only its closing tokens join it.
            let closing = o.tail.is_none() || (g.first == g.last && !item.is_named());
            if closing && self.fits(o.start, g.end) {
                o.end = g.end;
                // In a body, a statement or an item ends the heads.
                o.lead &= o.head || !item.is_named();
                self.count(o, item);
                return;
            }
        }
        let symbol = self.grammar.is_symbol(item, self.text);
        let walkable = item.child_count() > 0 && depth < MAX_DEPTH;
        // An item's body does not stand apart from its head: walk into it.
        let body = !symbol && walkable && open.as_ref().is_some_and(|o| o.head);
        if !body && self.fits(g.start, g.end) {
            self.close(open.take());
            let mut o = Open::new(g, head);
            self.count(&mut o, item);
            *open = Some(o);
            return;
        }
        if !body && g.first < g.last && self.fits(item.start_byte(), item.end_byte()) {
            // The item fits without its comments: it starts a chunk of its
            // own; the comments go on with an open chunk that holds no item
            // (`impl Searcher {`) or start one.
            if open.as_ref().is_some_and(|o| o.symbols > 0 || o.tail.is_some()) {
                self.close(open.take());
            }
            for i in (g.first..=g.last).rev() {
                let start = if i == g.first { g.start } else { nodes[i].start_byte().clamp(g.start, g.end) };
                let end = if i == g.last { g.end } else { nodes[i + 1].start_byte().clamp(start, g.end) };
                split.push(Group { start, end, first: i, item: i, last: i });
            }
            return;
        }
        // An item over the size starts a chunk unless the open one holds
        // only heads; a body or a statement goes on with the open chunk when
        // that holds no item (heads, statements).
        let carried = match open.take() {
            Some(o) if o.symbols == 0 && o.tail.is_none() && (o.lead || !symbol) => Some(Open { head: false, ..o }),
            other => {
                self.close(other);
                None
            }
        };
        let label = self.grammar.label(item, self.text);
        if !walkable {
            let mut symbols = self.path.clone();
            symbols.extend(label);
            let start = carried.map_or(g.start, |o| o.start);
            let (text, index, leaves, size) = (self.text, self.index, self.leaves, self.size);
            // The pieces apart, each handed over once the next one is cut:
            // the last piece stays open for what closes the node (`";`).
            let (mut end, mut last) = (0, None);
            let mut pieces = EachRange(|r| {
                if let Some(r) = super::after(text, &mut end, r) {
                    if let Some(done) = last.replace(r) {
                        self.put(done, symbols.clone());
                    }
                }
            });
            recursive::chunk_into(text, index, leaves, size, 0, start..g.end, &mut pieces);
            *open = last.map(|r| Open {
                start: r.start,
                end: g.end,
                symbols: 0,
                symbol: None,
                head: false,
                lead: false,
                tail: Some(symbols),
            });
            return;
        }
        // Its comments, its children, its trailing comment: packed the same way.
        let mut seq: Vec<Node<'tree>> = nodes[g.first..g.item].to_vec();
        let mut cursor = item.walk();
        let children_at = seq.len();
        seq.extend(item.children(&mut cursor));
        seq.extend_from_slice(&nodes[g.item + 1..=g.last]);
        let lead = match self.grammar.wrapped(item) {
            Some(inner) => seq[children_at..].iter().position(|n| *n == inner).map_or(0, |p| children_at + p),
            None => 0,
        };
        let named = label.is_some();
        self.path.extend(label);
        *open = self.sequence(&seq, g.start..g.end, lead, symbol, depth + 1, carried);
        if named {
            self.path.pop();
        }
    }

    fn count(&self, open: &mut Open<'tree>, item: Node<'tree>) {
        if self.grammar.is_symbol(item, self.text) {
            open.symbols += 1;
            open.symbol.get_or_insert(item);
        }
    }

    /// The symbols of a chunk closed here: the path, and the one item it
    /// holds whole if it holds one.
    fn symbols(&self, o: &Open<'tree>) -> Vec<String> {
        let mut symbols = self.path.clone();
        if o.symbols == 1 {
            symbols.extend(o.symbol.and_then(|n| self.grammar.symbol(n, self.text)));
        }
        symbols
    }

    fn close(&mut self, open: Option<Open<'tree>>) {
        let Some(mut o) = open else { return };
        let range = trim_range(self.text, o.start..o.end);
        if range.is_empty() {
            return;
        }
        let symbols = o.tail.take().unwrap_or_else(|| self.symbols(&o));
        self.put(range, symbols);
    }

    /// Hand over the chunk of `range`.
    fn put(&mut self, range: Range<usize>, symbols: Vec<String>) {
        let mut chunk = Chunk::new(range.clone(), self.index.size(range));
        chunk.meta.symbols = symbols;
        (self.emit)(chunk)
    }

    /// Does `start..end`, trimmed as chunks are, measure at most `size`? A
    /// range of n bytes holds at most n chars, which settles most checks.
    fn fits(&self, start: usize, end: usize) -> bool {
        self.index.at_most(start..end) <= self.size || self.index.size(trim_range(self.text, start..end)) <= self.size
    }
}
