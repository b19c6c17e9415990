//! `RecursiveJsonSplitter(max_chunk_size=size, min_chunk_size=...)
//! .split_text(json.loads(text), convert_lists=...)`, chunk for chunk.
//!
//! What LangChain does: it walks the dict's members depth first, in order.
//! A member `{key: value}` whose `len(json.dumps({key: value}))` is below
//! what is left of `max_chunk_size` (the current chunk measured as
//! `len(json.dumps(chunk))`) goes whole into the current chunk, under its
//! full key path (`{"a": {"b": {key: value}}}`). Otherwise a new chunk is
//! started first if the current one has reached `min_chunk_size` (default
//! `max(size - 200, 50)`), and the value is walked into when it is a
//! non-empty dict, else put whole into the chunk whatever its size (a long
//! string, a list). Lists are values like strings unless `convert_lists`
//! turns every list, at any depth, into a dict keyed `"0"`, `"1"`, ... (an
//! empty list becomes `{}`). Each chunk is `json.dumps(chunk)`: see
//! [`pydumps`] for the Python details kept byte for byte. So chunks can
//! exceed `size` (the key path is not counted, and a value that cannot be
//! walked into goes in whole): the size is a target. A top-level list is
//! refused unless `convert_lists` is on, and a top-level string, number or
//! boolean always, as LangChain does (`TypeError`); `null` and `{}` give no
//! chunk. A JSON object with a key twice is what Python's `dict` makes of
//! it: the last value, at the first key's place.
//!
//! Here no chunk is re-measured: the walk keeps the current chunk's size,
//! the entry count of each open dict on the current key path and the text
//! written so far, so every member costs its own size (LangChain dumps the
//! whole chunk again for every member).
//!
//! **Which source range a chunk carries.** A chunk is re-serialised JSON, so
//! it is never a slice of the source: its text is in `meta.text`, and its
//! `range` is the span of the source its values come from, from the start
//! of its first member (the key, or the item when the member is a list
//! item) to the end of its last value. What lies between them in the source
//! (sibling keys written around them, the brackets of the enclosing
//! objects) is spanned too, and the key path LangChain repeats in the chunk
//! (`{"a": {"b": ...}}`) is not: it lies before the range. That span is what
//! the chunk says, in source order; the workbench shows it there, and no
//! two chunks' ranges overlap. `meta.json_path` is the deepest path all the
//! chunk's values share (`$.corpora.finance` for a chunk of some of that
//! list's items, `$.corpora.finance[3]` for one item), in the source's own
//! terms (`[3]`, whether or not `convert_lists` made it a key `"3"`). With
//! a duplicated key the range runs from the first occurrence's key to the
//! value kept (the last one), and a range never starts before the one
//! before it.
//!
//! JSONL (the text's structure says [`RecordKind::JsonLines`]): every line
//! is its own document, as `split_text` called per record gives, and its
//! chunks carry the line in `meta.line`. Any other text is one document;
//! text that is not JSON gets the parser's error (with line and column).

mod pydumps;
mod tree;

use super::super::{collect_each, Context, OptionKnob, OverlapRule, SizeRule, Spec, Strategy};
use crate::chunk::{Chunk, MAX_LABEL_CHARS};
use crate::config::{ChunkConfig, Unit};
use crate::document::DocKind;
use crate::error::{Error, Result};
use crate::extract::json::{loaded, parse_loaded};
use crate::extract::RecordKind;
use jsonc_parser::ast::Value;
use tree::{write_node, Builder, Entry, Kind};

pub const SPEC: Spec = Spec {
    name: "langchain-json",
    help: "LangChain's RecursiveJsonSplitter, chunk for chunk: re-serialised JSON (json.dumps) packed towards \
           --size chars (JSONL: each line split alone)",
    size: SizeRule::Target,
    overlap: OverlapRule::None,
    forces_unit: Some(Unit::Chars),
    options: &["--json-convert-lists", "--json-min-chunk-size"],
    option: Some(CONVERT_LISTS),
    formats: &[DocKind::Json, DocKind::Jsonl],
    ..Spec::new(build)
};

/// The option key: LangChain's `convert_lists`.
const CONVERT_LISTS: OptionKnob = OptionKnob {
    show: |c| format!("convert_lists={}", c.json.convert_lists),
    next: |c| {
        c.json.convert_lists = !c.json.convert_lists;
        format!("langchain-json convert_lists {}", c.json.convert_lists)
    },
};

fn build(config: &ChunkConfig) -> Result<Box<dyn Strategy>> {
    Ok(Box::new(JsonSplitter {
        max: config.size,
        min: config.json.min_chunk_size_for(config.size),
        convert_lists: config.json.convert_lists,
    }))
}

struct JsonSplitter {
    max: usize,
    min: usize,
    convert_lists: bool,
}

impl Strategy for JsonSplitter {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        collect_each(self, text, cx)
    }

    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        let mut order = Order::default();
        match cx.structure.filter(|s| s.record_kind == Some(RecordKind::JsonLines)) {
            Some(structure) => {
                for record in &structure.records {
                    let name = format!("line {}", record.line);
                    let doc = Doc { source: text, base: record.range.start, line: Some(record.line) };
                    self.split(&text[record.range.clone()], &doc, &name, true, &mut order, emit)?;
                }
            }
            None if text.trim().is_empty() => {}
            None => {
                let doc = Doc { source: text, base: 0, line: None };
                self.split(text, &doc, "the text", loaded(cx.structure), &mut order, emit)?
            }
        }
        Ok(())
    }
}

/// Where a document lies in the text being cut.
struct Doc<'s> {
    source: &'s str,
    /// The byte of `source` the document starts at.
    base: usize,
    /// JSONL: the record's line.
    line: Option<u32>,
}

/// The last chunk's range, which the next one never starts before.
#[derive(Default)]
struct Order {
    start: usize,
    end: usize,
}

impl JsonSplitter {
    /// `split_text` of one JSON document `json` (a slice of `doc.source`).
    fn split(
        &self,
        json: &str,
        doc: &Doc<'_>,
        name: &str,
        checked: bool,
        order: &mut Order,
        emit: &mut dyn FnMut(Chunk),
    ) -> Result<()> {
        let value = parse_loaded(json, name, checked)?;
        let type_name = match &value {
            Value::Object(_) => None,
            Value::Array(_) if self.convert_lists => None,
            Value::NullKeyword(_) => return Ok(()),
            Value::Array(_) => Some("list"),
            Value::StringLit(_) => Some("str"),
            Value::BooleanLit(_) => Some("bool"),
            Value::NumberLit(n) if pydumps::is_float(n.value) => Some("float"),
            Value::NumberLit(_) => Some("int"),
        };
        if let Some(type_name) = type_name {
            let hint = if type_name == "list" {
                ": LangChain splits a top-level list only with convert_lists=True (--json-convert-lists)"
            } else {
                ""
            };
            return Err(Error::input(format!(
                "{name} holds a JSON {type_name}, and LangChain's RecursiveJsonSplitter takes an object \
                 (TypeError: json_data must be a dict, got {type_name}){hint}"
            )));
        }
        let builder = Builder { json, base: doc.base, convert_lists: self.convert_lists };
        let root = builder.node(value);
        let Kind::Dict(entries) = &root.kind else { unreachable!("an object, or a list made a dict") };
        let mut cut = Cut::new(self, doc, order, emit);
        cut.walk(entries);
        cut.finish(true);
        Ok(())
    }
}

/// `path` as a metadata label ([`crate::chunk::label`]: whitespace runs as
/// one space, at most [`MAX_LABEL_CHARS`]), without rewriting a path that
/// is one already (most are).
fn as_label(path: String) -> String {
    let plain = path.len() <= MAX_LABEL_CHARS
        && !path.ends_with(' ')
        && !path.contains("  ")
        && !path.chars().any(|c| c.is_whitespace() && c != ' ');
    if plain {
        path
    } else {
        crate::chunk::label(&path, MAX_LABEL_CHARS)
    }
}

/// LangChain's `_json_split` over one document, handing each chunk over as
/// soon as the next one starts.
struct Cut<'a, 'n, 't> {
    max: usize,
    min: usize,
    doc: &'a Doc<'a>,
    order: &'a mut Order,
    emit: &'a mut dyn FnMut(Chunk),
    /// The key path being walked.
    path: Vec<&'n Entry<'t>>,
    /// The current chunk: `json.dumps` of it so far (its open dicts not
    /// closed yet) and its whole length (closing braces counted).
    text: String,
    size: usize,
    /// The entry count of each dict of the chunk on the current key path,
    /// the chunk itself first: the dicts the next member may go into.
    spine: Vec<usize>,
    /// The source span of the chunk's members so far.
    span: Option<(usize, usize)>,
    /// The chunk's first member's key path and how much of it all its
    /// members share.
    first: Vec<&'n Entry<'t>>,
    common: usize,
}

impl<'a, 'n, 't> Cut<'a, 'n, 't> {
    fn new(s: &JsonSplitter, doc: &'a Doc<'a>, order: &'a mut Order, emit: &'a mut dyn FnMut(Chunk)) -> Self {
        Cut {
            max: s.max,
            min: s.min,
            doc,
            order,
            emit,
            path: Vec::new(),
            text: String::from("{"),
            size: 2,
            spine: vec![0],
            span: None,
            first: Vec::new(),
            common: 0,
        }
    }

    /// The members of the dict at the current path.
    fn walk(&mut self, entries: &'n [Entry<'t>]) {
        let depth = self.path.len();
        for entry in entries {
            self.path.push(entry);
            // `size < remaining`, `remaining = max - chunk_size` (may be negative).
            if self.size + entry.klen + entry.node.len + 4 < self.max {
                self.set(entry);
            } else {
                if self.size >= self.min {
                    self.finish(false);
                }
                match &entry.node.kind {
                    Kind::Dict(children) if !children.is_empty() => self.walk(children),
                    _ => self.set(entry),
                }
            }
            self.path.pop();
            self.close_to(depth + 1);
        }
    }

    /// Close the chunk's dicts deeper than `levels`.
    fn close_to(&mut self, levels: usize) {
        while self.spine.len() > levels {
            self.spine.pop();
            self.text.push('}');
        }
    }

    /// `_set_nested_dict(chunk, path, entry's value)`.
    fn set(&mut self, entry: &'n Entry<'t>) {
        let m = self.path.len();
        let e = self.spine.len();
        debug_assert!((1..=m).contains(&e), "the chunk's dicts lie on the path");
        if self.spine[e - 1] > 0 {
            self.text.push_str(", ");
            self.size += 2;
        }
        self.spine[e - 1] += 1;
        for level in &self.path[e - 1..m - 1] {
            level.push_key(&mut self.text);
            self.text.push_str(": {");
            self.size += level.klen + 4;
            self.spine.push(1);
        }
        entry.push_key(&mut self.text);
        self.text.push_str(": ");
        write_node(&mut self.text, &entry.node);
        self.size += entry.klen + 2 + entry.node.len;
        match &mut self.span {
            None => {
                self.span = Some((entry.start, entry.node.end));
                self.first.clear();
                self.first.extend_from_slice(&self.path);
                self.common = m;
            }
            Some((start, end)) => {
                *start = (*start).min(entry.start);
                *end = (*end).max(entry.node.end);
                self.common = self.common.min(e - 1);
            }
        }
    }

    /// Hand the chunk over and start the next one; at the end of the
    /// document (`last`) an empty chunk is dropped, as LangChain does.
    fn finish(&mut self, last: bool) {
        let empty = self.spine[0] == 0;
        self.close_to(0);
        // The next chunk's text, with room for about as much as this one.
        let mut next = String::with_capacity(self.text.len().max(64));
        next.push('{');
        let text = std::mem::replace(&mut self.text, next);
        debug_assert_eq!(text.len(), self.size, "the kept size is the chunk's length: {text}");
        self.size = 2;
        self.spine.push(0);
        let span = self.span.take();
        if last && empty {
            return;
        }
        let (start, end) = match span {
            Some((s, e)) => (s.max(self.order.start), e),
            None => (self.order.end.max(self.order.start), self.order.end.max(self.order.start)),
        };
        let end = end.max(start);
        self.order.start = start;
        self.order.end = end;
        let mut chunk = Chunk::new(start..end, text.len());
        let mut path = String::from("$");
        if span.is_some() {
            for step in &self.first[..self.common] {
                step.push_step(&mut path);
            }
        }
        chunk.meta.json_path = Some(as_label(path));
        chunk.meta.line = self.doc.line;
        if self.doc.source[start..end] != *text {
            chunk.meta.text = Some(text);
        }
        (self.emit)(chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedding::Control;

    fn cut_with(text: &str, size: usize, convert_lists: bool, min: Option<usize>) -> Result<Vec<Chunk>> {
        let mut config = ChunkConfig {
            strategy: crate::config::StrategyKind::LangchainJson,
            size,
            overlap: 0,
            ..Default::default()
        };
        config.json.convert_lists = convert_lists;
        config.json.min_chunk_size = min;
        crate::strategy::Configured::new(&config)?.chunk(text, None, Control::none())
    }

    fn texts(text: &str, chunks: &[Chunk]) -> Vec<String> {
        chunks.iter().map(|c| c.text(text).to_string()).collect()
    }

    #[test]
    fn splits_as_langchain_does() {
        // RecursiveJsonSplitter(max_chunk_size=30).split_text(json.loads(text)):
        // min_chunk_size is then 50, so no chunk is ever closed.
        let text = r#"{"a": {"x": "one two three", "y": [1, 2, 3]}, "b": "short", "c": {"d": {"e": 1.5E3}}}"#;
        let chunks = cut_with(text, 30, false, None).unwrap();
        assert_eq!(
            texts(text, &chunks),
            [r#"{"a": {"x": "one two three", "y": [1, 2, 3]}, "b": "short"}"#, r#"{"c": {"d": {"e": 1500.0}}}"#]
        );
        // min_chunk_size=10
        let chunks = cut_with(text, 30, false, Some(10)).unwrap();
        assert_eq!(
            texts(text, &chunks),
            [
                r#"{"a": {"x": "one two three"}}"#,
                r#"{"a": {"y": [1, 2, 3]}}"#,
                r#"{"b": "short"}"#,
                r#"{"c": {"d": {"e": 1500.0}}}"#
            ]
        );
        for c in &chunks {
            assert_eq!(c.size, c.text(text).len());
        }
        let paths: Vec<_> = chunks.iter().map(|c| c.meta.json_path.clone().unwrap()).collect();
        assert_eq!(paths, ["$.a.x", "$.a.y", "$.b", "$.c.d"]);
        assert_eq!(&text[chunks[0].range.clone()], r#""x": "one two three""#);
        assert_eq!(&text[chunks[3].range.clone()], r#""d": {"e": 1.5E3}"#);
    }

    #[test]
    fn convert_lists_makes_lists_dicts_at_every_depth() {
        // RecursiveJsonSplitter(max_chunk_size=20).split_text(..., convert_lists=True)
        let text = r#"[{"k": [[1, 2], []]}, "中", {}]"#;
        let chunks = cut_with(text, 20, true, None).unwrap();
        assert_eq!(
            texts(text, &chunks),
            [r#"{"0": {"k": {"0": {"0": 1, "1": 2}, "1": {}}}, "1": "\u4e2d"}"#, r#"{"2": {}}"#]
        );
        assert_eq!(chunks[0].meta.json_path.as_deref(), Some("$"));
        let chunks = cut_with(text, 20, true, Some(5)).unwrap();
        assert_eq!(
            texts(text, &chunks),
            [
                r#"{"0": {"k": {"0": {"0": 1}}}}"#,
                r#"{"0": {"k": {"0": {"1": 2}}}}"#,
                r#"{"0": {"k": {"1": {}}}}"#,
                r#"{"1": "\u4e2d"}"#,
                r#"{"2": {}}"#
            ]
        );
        let paths: Vec<_> = chunks.iter().map(|c| c.meta.json_path.clone().unwrap()).collect();
        assert_eq!(paths, ["$[0].k[0][0]", "$[0].k[0][1]", "$[0].k[1]", "$[1]", "$[2]"]);
    }

    #[test]
    fn duplicate_keys_keep_the_first_place_and_the_last_value() {
        let text = r#"{"a": 1, "b": 2, "a": {"c": -0}}"#;
        let chunks = cut_with(text, 100, false, None).unwrap();
        assert_eq!(texts(text, &chunks), [r#"{"a": {"c": 0}, "b": 2}"#]);
        assert_eq!(chunks[0].range, 1..text.len() - 1);
    }

    #[test]
    fn what_langchain_refuses_is_refused() {
        let list = cut_with("[1, 2]", 100, false, None).unwrap_err().to_string();
        assert!(list.contains("got list") && list.contains("--json-convert-lists"), "{list}");
        for (scalar, kind) in [("\"s\"", "str"), ("1", "int"), ("1.0", "float"), ("true", "bool")] {
            let err = cut_with(scalar, 100, true, None).unwrap_err().to_string();
            assert!(err.contains(&format!("got {kind}")), "{err}");
        }
        assert!(cut_with("null", 100, false, None).unwrap().is_empty());
        assert!(cut_with("{}", 100, false, None).unwrap().is_empty());
        assert!(cut_with("[]", 100, true, None).unwrap().is_empty());
        assert!(cut_with("  \n", 100, false, None).unwrap().is_empty());
        let err = cut_with("# not json", 100, false, None).unwrap_err().to_string();
        assert!(err.contains("not valid JSON") && err.contains("line 1"), "{err}");
    }

    #[test]
    fn paths_are_labels_as_the_other_metadata() {
        let long = format!("$.{}", "k".repeat(300));
        for path in ["$.a['b c'][3]", "$['a  b']", "$['a\tb']", "$['\u{3000}x']", "$['x ']", long.as_str()] {
            assert_eq!(as_label(path.to_string()), crate::chunk::label(path, MAX_LABEL_CHARS), "{path}");
        }
    }

    #[test]
    fn a_small_min_chunk_size_leaves_empty_chunks_in_between() {
        // min_chunk_size=0: a chunk of `{}` is "big enough" to close.
        let text = r#"{"a": "xxxxxxxxxxxxxxxxxxxx", "b": "yyyyyyyyyyyyyyyyyyyy"}"#;
        let chunks = cut_with(text, 10, false, Some(0)).unwrap();
        assert_eq!(
            texts(text, &chunks),
            ["{}", r#"{"a": "xxxxxxxxxxxxxxxxxxxx"}"#, r#"{"b": "yyyyyyyyyyyyyyyyyyyy"}"#]
        );
        assert!(chunks[0].range.is_empty());
    }

    #[test]
    fn jsonl_lines_are_split_alone_with_their_line() {
        let text = "{\"q\": \"one\"}\n\n{\"q\": \"two\", \"a\": [1]}\n";
        let structure = crate::extract::json::jsonl_structure(text, "x.jsonl").unwrap();
        let config = ChunkConfig {
            strategy: crate::config::StrategyKind::LangchainJson,
            size: 1000,
            overlap: 0,
            ..Default::default()
        };
        let configured = crate::strategy::Configured::new(&config).unwrap();
        let chunks = configured.chunk_in(text, Some(&structure), None, Control::none()).unwrap();
        assert_eq!(texts(text, &chunks), [r#"{"q": "one"}"#, r#"{"q": "two", "a": [1]}"#]);
        let lines: Vec<_> = chunks.iter().map(|c| c.meta.line).collect();
        assert_eq!(lines, [Some(1), Some(3)]);
        assert_eq!(&text[chunks[1].range.clone()], r#""q": "two", "a": [1]"#);
    }
}
