//! The document as Python holds it after `json.loads` (and
//! `convert_lists`): dicts with unique keys in first-seen order, each value
//! with the length `json.dumps` gives it and where it lies in the source.

use super::pydumps;
use crate::strategy::json::push_key_step;
use jsonc_parser::ast::{ObjectPropName, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write;

/// A value as Python holds it after `json.loads` (and `convert_lists`).
pub(super) struct Node<'t> {
    /// `len(json.dumps(value))`.
    pub(super) len: usize,
    /// Where the value ends in the source.
    pub(super) end: usize,
    pub(super) kind: Kind<'t>,
}

pub(super) enum Kind<'t> {
    /// A string, number, boolean or null, as `json.dumps` prints it.
    Scalar(Cow<'t, str>),
    /// An object, or a list `convert_lists` made a dict; keys unique.
    Dict(Vec<Entry<'t>>),
    /// A list (without `convert_lists`).
    List(Vec<Node<'t>>),
}

/// A dict's key and value.
pub(super) struct Entry<'t> {
    key: Key<'t>,
    /// `len(json.dumps(key))`.
    pub(super) klen: usize,
    /// Where the member starts in the source: its key, or the item.
    pub(super) start: usize,
    pub(super) node: Node<'t>,
}

enum Key<'t> {
    /// An object's key: as decoded, and as `json.dumps` prints it.
    Name { name: Cow<'t, str>, dumped: Cow<'t, str> },
    /// A list item's index (the key `"i"` under `convert_lists`).
    Index(usize),
}

impl Entry<'_> {
    pub(super) fn push_key(&self, out: &mut String) {
        match &self.key {
            Key::Name { dumped, .. } => out.push_str(dumped),
            Key::Index(i) => {
                let _ = write!(out, "\"{i}\"");
            }
        }
    }

    /// `.key`, `['key']` or `[i]`.
    pub(super) fn push_step(&self, out: &mut String) {
        match &self.key {
            Key::Name { name, .. } => push_key_step(out, name),
            Key::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
}

/// Turns jsonc-parser's tree into [`Node`]s.
pub(super) struct Builder<'t> {
    /// The document's text (the parser's ranges are into it).
    pub(super) json: &'t str,
    /// Where it starts in the text being cut.
    pub(super) base: usize,
    pub(super) convert_lists: bool,
}

impl<'t> Builder<'t> {
    pub(super) fn node(&self, value: Value<'t>) -> Node<'t> {
        let range = crate::extract::json::range_of(&value);
        let end = self.base + range.end;
        let scalar = |text: Cow<'t, str>| Node { len: text.len(), end, kind: Kind::Scalar(text) };
        match value {
            Value::StringLit(s) => scalar(pydumps::string(&self.json[range], &s.value)),
            Value::NumberLit(n) => scalar(pydumps::number(n.value)),
            Value::BooleanLit(b) => scalar(Cow::Borrowed(if b.value { "true" } else { "false" })),
            Value::NullKeyword(_) => scalar(Cow::Borrowed("null")),
            Value::Object(object) => {
                let entries = self.members(object.properties);
                Node { len: dict_len(&entries), end, kind: Kind::Dict(entries) }
            }
            Value::Array(array) if self.convert_lists => {
                let entries: Vec<Entry<'t>> = array
                    .elements
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let start = self.base + crate::extract::json::range_of(&v).start;
                        Entry { key: Key::Index(i), klen: decimal_len(i) + 2, start, node: self.node(v) }
                    })
                    .collect();
                Node { len: dict_len(&entries), end, kind: Kind::Dict(entries) }
            }
            Value::Array(array) => {
                let items: Vec<Node<'t>> = array.elements.into_iter().map(|v| self.node(v)).collect();
                let len = 2 + items.iter().map(|n| n.len).sum::<usize>() + 2 * items.len().saturating_sub(1);
                Node { len, end, kind: Kind::List(items) }
            }
        }
    }

    /// An object's members as Python's dict holds them: a key given twice
    /// keeps its first place and its last value.
    fn members(&self, props: Vec<jsonc_parser::ast::ObjectProp<'t>>) -> Vec<Entry<'t>> {
        let dup = has_duplicate(&props);
        let mut at: HashMap<String, usize> = HashMap::new();
        let mut entries: Vec<Entry<'t>> = Vec::with_capacity(props.len());
        for prop in props {
            let start = self.base + prop.range.start;
            let (name, dumped) = match prop.name {
                ObjectPropName::String(s) => {
                    let r = s.range.start..s.range.end;
                    let dumped = pydumps::string(&self.json[r], &s.value);
                    (s.value, dumped)
                }
                // Loose names are refused by `parse`; kept whole if ever met.
                ObjectPropName::Word(w) => {
                    let mut out = String::new();
                    pydumps::push_str(&mut out, w.value);
                    (Cow::Borrowed(w.value), Cow::Owned(out))
                }
            };
            let node = self.node(prop.value);
            if dup {
                if let Some(&i) = at.get(name.as_ref()) {
                    entries[i].node = node;
                    continue;
                }
                at.insert(name.to_string(), entries.len());
            }
            let klen = dumped.len();
            entries.push(Entry { key: Key::Name { name, dumped }, klen, start, node });
        }
        entries
    }
}

/// Whether some key of `props` is given twice.
fn has_duplicate(props: &[jsonc_parser::ast::ObjectProp<'_>]) -> bool {
    fn name<'p>(p: &'p jsonc_parser::ast::ObjectProp<'_>) -> &'p str {
        match &p.name {
            ObjectPropName::String(s) => &s.value,
            ObjectPropName::Word(w) => w.value,
        }
    }
    if props.len() <= 8 {
        return props.iter().enumerate().any(|(i, a)| props[..i].iter().any(|b| name(a) == name(b)));
    }
    let mut seen = std::collections::HashSet::with_capacity(props.len());
    props.iter().any(|p| !seen.insert(name(p)))
}

/// `len(json.dumps(d))` of a dict with these entries.
fn dict_len(entries: &[Entry<'_>]) -> usize {
    2 + entries.iter().map(|e| e.klen + 2 + e.node.len).sum::<usize>() + 2 * entries.len().saturating_sub(1)
}

fn decimal_len(mut i: usize) -> usize {
    let mut n = 1;
    while i >= 10 {
        i /= 10;
        n += 1;
    }
    n
}

/// `json.dumps(value)`.
pub(super) fn write_node(out: &mut String, node: &Node<'_>) {
    match &node.kind {
        Kind::Scalar(s) => out.push_str(s),
        Kind::Dict(entries) => {
            out.push('{');
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                e.push_key(out);
                out.push_str(": ");
                write_node(out, &e.node);
            }
            out.push('}');
        }
        Kind::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_node(out, item);
            }
            out.push(']');
        }
    }
}
