//! JSON by its values: every chunk is an exact range of the source holding
//! whole JSON values — an object's members (`"key": value`) or an array's
//! items, consecutive ones packed while the span fits `size`. A value too
//! big for a chunk alone is cut inside, at its own members or items; a
//! string only when that one string is over the size, then by the text rules
//! (escaped line breaks, sentences, spaces). Nothing that fits is ever cut,
//! so a chunk never ends inside a string or a number that could have stayed
//! whole. `meta.json_path` says where each chunk is (`$.corpora.finance[3:7]`:
//! items 3 to 6 of that array).
//!
//! JSONL (one JSON document per line): a chunk per record when the record
//! fits — records are separate things (tickets, FAQ entries) and are not
//! packed together — and a record over the size is cut as above, each piece
//! keeping the record's line in `meta.line`.
//!
//! The brackets, commas and keys between the chunks' values belong to no
//! chunk: a chunk's path names what its keys were.

use super::recursive::{self, Sep, Separators};
use super::{sized, Context, OverlapRule, SizeRule, Spec, Strategy};
use crate::chunk::{Chunk, MAX_LABEL_CHARS};
use crate::document::DocKind;
use crate::error::Result;
use crate::extract::json::{loaded, parse_loaded, range_of};
use crate::extract::RecordKind;
use crate::size::SizeIndex;
use jsonc_parser::ast::{ObjectPropName, Value};
use std::ops::Range;

pub const SPEC: Spec = Spec {
    name: "json",
    help: "JSON by its values: members and items packed up to --size as exact source ranges, cut inside only \
           when over it; meta.json_path on each (JSONL: a chunk per record)",
    size: SizeRule::Limit,
    overlap: OverlapRule::None,
    formats: &[DocKind::Json, DocKind::Jsonl],
    ..Spec::new(|_| Ok(Box::new(JsonValues)))
};

struct JsonValues;

impl Strategy for JsonValues {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        super::collect_each(self, text, cx)
    }

    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        let index = cx.size_index(text)?;
        let cut = Cut { text, index: &index, size: cx.config.size, line: None };
        match cx.structure.filter(|s| s.record_kind == Some(RecordKind::JsonLines)) {
            Some(structure) => {
                for record in &structure.records {
                    let cut = Cut { line: Some(record.line), ..cut };
                    if index.size(record.range.clone()) <= cut.size {
                        emit(cut.chunk(record.range.clone(), None));
                        continue;
                    }
                    let name = format!("line {}", record.line);
                    let value = parse_loaded(&text[record.range.clone()], &name, true)?;
                    cut.value(&Shifted(&value, record.range.start), "$", emit);
                }
            }
            None => {
                let value = parse_loaded(text, "the text", loaded(cx.structure))?;
                cut.value(&Shifted(&value, 0), "$", emit);
            }
        }
        Ok(())
    }
}

/// A node of a tree parsed from a slice that starts at byte `.1` of the text.
struct Shifted<'v, 't>(&'v Value<'t>, usize);

impl Shifted<'_, '_> {
    fn range(&self) -> Range<usize> {
        let r = range_of(self.0);
        r.start + self.1..r.end + self.1
    }
}

#[derive(Clone, Copy)]
struct Cut<'a, 't> {
    text: &'a str,
    index: &'a SizeIndex<'t>,
    size: usize,
    /// JSONL: the record's line.
    line: Option<u32>,
}

impl Cut<'_, '_> {
    fn chunk(&self, range: Range<usize>, path: Option<String>) -> Chunk {
        let mut c = sized(range, self.index);
        if let Some(path) = path {
            c.meta.json_path = Some(crate::chunk::label(&path, MAX_LABEL_CHARS));
        }
        if let Some(line) = self.line {
            c.meta.line = Some(line);
        }
        c
    }

    fn fits(&self, range: Range<usize>) -> bool {
        self.index.at_most(range.clone()) <= self.size || self.index.size(range) <= self.size
    }

    /// A value at `path`: whole when it fits, else cut inside.
    fn value(&self, node: &Shifted<'_, '_>, path: &str, emit: &mut dyn FnMut(Chunk)) {
        let range = node.range();
        if self.fits(range.clone()) {
            emit(self.chunk(range, Some(path.to_string())));
            return;
        }
        let base = node.1;
        match node.0 {
            Value::Object(object) => {
                let members: Vec<Member<'_, '_>> = object
                    .properties
                    .iter()
                    .map(|p| Member {
                        range: p.range.start + base..p.range.end + base,
                        name: Name::Key(key_of(&p.name)),
                        value: Shifted(&p.value, base),
                    })
                    .collect();
                self.pack(&members, path, emit);
            }
            Value::Array(array) => {
                let items: Vec<Member<'_, '_>> = array
                    .elements
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let value = Shifted(v, base);
                        Member { range: value.range(), name: Name::Index(i), value }
                    })
                    .collect();
                self.pack(&items, path, emit);
            }
            Value::StringLit(_) => self.string(range, path, emit),
            // A number, true, false or null over the size: it cannot be cut.
            _ => emit(self.chunk(range, Some(path.to_string()))),
        }
    }

    /// Consecutive members packed while their span fits; one over the size
    /// alone is cut inside.
    fn pack(&self, members: &[Member<'_, '_>], path: &str, emit: &mut dyn FnMut(Chunk)) {
        let mut i = 0;
        while i < members.len() {
            let first = &members[i];
            if !self.fits(first.range.clone()) {
                self.value(&first.value, &first.name.child_of(path), emit);
                i += 1;
                continue;
            }
            let mut j = i + 1;
            while j < members.len() && self.fits(first.range.start..members[j].range.end) {
                j += 1;
            }
            let group = &members[i..j];
            let span = first.range.start..group[group.len() - 1].range.end;
            emit(self.chunk(span, Some(group_path(path, group))));
            i = j;
        }
    }

    /// A string over the size: its contents cut by the text rules (escaped
    /// line breaks first, then sentences, spaces, characters).
    fn string(&self, range: Range<usize>, path: &str, emit: &mut dyn FnMut(Chunk)) {
        let inner = range.start + 1..range.end - 1;
        let seps = Separators(vec![
            Sep::Literals(vec!["\\n\\n".into(), "\\r\\n\\r\\n".into()]),
            Sep::Literals(vec!["\\n".into()]),
            Sep::Sentence,
            Sep::Whitespace,
            Sep::Grapheme,
        ]);
        for piece in recursive::chunk(self.text, self.index, &seps, self.size, 0, inner) {
            emit(self.chunk(piece, Some(path.to_string())));
        }
    }
}

/// An object member or an array item.
struct Member<'v, 't> {
    /// `"key": value` for a member, the value for an item.
    range: Range<usize>,
    name: Name,
    value: Shifted<'v, 't>,
}

enum Name {
    Key(String),
    Index(usize),
}

impl Name {
    fn child_of(&self, path: &str) -> String {
        match self {
            Name::Key(k) => format!("{path}{}", key_step(k)),
            Name::Index(i) => format!("{path}[{i}]"),
        }
    }
}

fn key_of(name: &ObjectPropName<'_>) -> String {
    match name {
        ObjectPropName::String(s) => s.value.to_string(),
        ObjectPropName::Word(w) => w.value.to_string(),
    }
}

/// `.key` for a plain identifier, else `['key']`.
fn key_step(key: &str) -> String {
    let mut out = String::new();
    push_key_step(&mut out, key);
    out
}

/// [`key_step`] onto `out` (the langchain-json strategy's paths too).
pub(crate) fn push_key_step(out: &mut String, key: &str) {
    let plain = key.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_alphanumeric() || c == '_');
    if plain {
        out.push('.');
        out.push_str(key);
    } else {
        out.push('[');
        push_quoted(out, key);
        out.push(']');
    }
}

/// `'key'`, its backslashes and quotes escaped.
fn push_quoted(out: &mut String, key: &str) {
    out.push('\'');
    out.push_str(&key.replace('\\', "\\\\").replace('\'', "\\'"));
    out.push('\'');
}

/// The JSONPath of consecutive members: one member's own path; items `i`
/// to `j - 1` as the slice `[i:j]`; several keys as a union `['a','b']`.
fn group_path(path: &str, group: &[Member<'_, '_>]) -> String {
    match group {
        [one] => one.name.child_of(path),
        [first, .., last] => match (&first.name, &last.name) {
            (Name::Index(i), Name::Index(j)) => format!("{path}[{i}:{}]", j + 1),
            _ => {
                let keys: Vec<String> = group
                    .iter()
                    .filter_map(|m| match &m.name {
                        Name::Key(k) => {
                            let mut quoted = String::new();
                            push_quoted(&mut quoted, k);
                            Some(quoted)
                        }
                        Name::Index(_) => None,
                    })
                    .collect();
                format!("{path}[{}]", keys.join(","))
            }
        },
        [] => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ChunkConfig, StrategyKind};
    use crate::embedding::Control;

    fn cut(text: &str, size: usize) -> Vec<(String, String)> {
        let config = ChunkConfig { strategy: StrategyKind::Json, size, overlap: 0, ..Default::default() };
        let chunks = crate::strategy::Configured::new(&config).unwrap().chunk(text, None, Control::none()).unwrap();
        chunks.into_iter().map(|c| (text[c.range].to_string(), c.meta.json_path.clone().unwrap_or_default())).collect()
    }

    #[test]
    fn a_document_that_fits_is_one_chunk() {
        assert_eq!(cut("{\"a\": 1}", 100), [("{\"a\": 1}".to_string(), "$".to_string())]);
    }

    #[test]
    fn items_are_packed_and_an_oversize_member_is_cut_at_its_own_members() {
        let text = r#"{"corpora": {"finance": [1, 2, 3, 4, 5, 6], "id": "x"}, "name": "demo"}"#;
        let got = cut(text, 12);
        let paths: Vec<&str> = got.iter().map(|(_, p)| p.as_str()).collect();
        assert_eq!(paths, ["$.corpora.finance[0:4]", "$.corpora.finance[4:6]", "$.corpora.id", "$.name"]);
        assert_eq!(got[0].0, "1, 2, 3, 4");
        assert_eq!(got[2].0, "\"id\": \"x\"", "a member keeps its key");
        assert_eq!(got[3].0, "\"demo\"", "a member over the size alone: its value");
    }

    #[test]
    fn a_string_that_fits_is_never_cut_and_one_over_is_cut_by_text_rules() {
        let long = "word ".repeat(30);
        let text = format!("[\"short one\", \"{long}\", \"中文。第二句。\"]");
        let got = cut(&text, 40);
        assert!(got.iter().any(|(t, _)| t == "\"short one\""), "{got:?}");
        assert!(got.iter().all(|(t, _)| t.chars().count() <= 40), "{got:?}");
        let long_pieces: Vec<_> = got.iter().filter(|(_, p)| p == "$[1]").collect();
        assert!(long_pieces.len() > 1 && long_pieces.iter().all(|(t, _)| !t.ends_with(' ')));
        assert!(got.iter().any(|(t, p)| t == "\"中文。第二句。\"" && p == "$[2]"), "{got:?}");
    }

    #[test]
    fn keys_that_are_not_identifiers_are_quoted() {
        assert_eq!(key_step("a b"), "['a b']");
        assert_eq!(key_step("名前"), ".名前");
        assert_eq!(key_step("it's"), "['it\\'s']");
    }
}
