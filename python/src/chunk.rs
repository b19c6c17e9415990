//! `chunktui.Chunk`: one chunk as the CLI's JSONL record has it (byte and
//! code-point offsets, size, text, meta), made without the GIL in the worker
//! threads and only wrapped into a Python object at the end.

use crate::settings::json_to_py;
use chunktui::chunk::{ChunkMeta, EmbedText};
use chunktui::document::CharOffsets;
use pyo3::prelude::*;
use pyo3::types::PyDict;

#[pyclass(frozen, module = "chunktui", name = "Chunk")]
pub struct PyChunk {
    /// Position of the chunk in its document's list.
    #[pyo3(get)]
    index: usize,
    /// Byte offsets into the UTF-8 text.
    #[pyo3(get)]
    start: usize,
    #[pyo3(get)]
    end: usize,
    /// Code-point offsets: `text[char_start:char_end]` in Python.
    #[pyo3(get)]
    char_start: usize,
    #[pyo3(get)]
    char_end: usize,
    /// Size in the config's unit.
    #[pyo3(get)]
    size: usize,
    #[pyo3(get)]
    text: String,
    meta: ChunkMeta,
    embed: Option<EmbedText>,
}

/// The chunks of `text` as records, in order (what `chunktui chunk` writes).
pub fn records(text: &str, chunks: Vec<chunktui::Chunk>) -> Vec<PyChunk> {
    let offsets = CharOffsets::new(text);
    chunks
        .into_iter()
        .enumerate()
        .map(|(index, c)| {
            let mut meta = c.meta;
            let embed = meta.embed.take();
            PyChunk {
                index,
                start: c.range.start,
                end: c.range.end,
                char_start: offsets.at(c.range.start),
                char_end: offsets.at(c.range.end),
                size: c.size,
                text: meta.text.clone().unwrap_or_else(|| text[c.range.clone()].to_string()),
                meta,
                embed,
            }
        })
        .collect()
}

#[pymethods]
impl PyChunk {
    /// The chunk's metadata as the CLI's JSONL `meta` has it (headings,
    /// symbols, id/parent_id/level, ...): a new dict on each access.
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::to_value(&self.meta).expect("meta serialises"))
    }

    /// What to embed for this chunk (`embed_text` in the config), else None.
    #[getter]
    fn embed_text(&self) -> Option<&str> {
        self.embed.as_ref().map(|e| e.text.as_str())
    }

    /// The size of `embed_text` in the config's unit.
    #[getter]
    fn embed_size(&self) -> Option<usize> {
        self.embed.as_ref().map(|e| e.size)
    }

    /// The size of `embed_text` in the config tokenizer's tokens.
    #[getter]
    fn embed_tokens(&self) -> Option<usize> {
        self.embed.as_ref().map(|e| e.tokens)
    }

    /// The chunk as one record of `chunktui chunk`'s JSONL output.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("index", self.index)?;
        d.set_item("start", self.start)?;
        d.set_item("end", self.end)?;
        d.set_item("char_start", self.char_start)?;
        d.set_item("char_end", self.char_end)?;
        d.set_item("size", self.size)?;
        d.set_item("text", &self.text)?;
        d.set_item("meta", self.meta(py)?)?;
        if let Some(e) = &self.embed {
            d.set_item("embed_text", &e.text)?;
            d.set_item("embed_size", e.size)?;
            d.set_item("embed_tokens", e.tokens)?;
        }
        Ok(d)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyChunk>().is_ok_and(|o| {
            let o = o.get();
            (self.index, self.start, self.end, self.size, &self.text, &self.meta, &self.embed)
                == (o.index, o.start, o.end, o.size, &o.text, &o.meta, &o.embed)
        })
    }

    fn __repr__(&self) -> String {
        let preview: String = self.text.chars().take(40).collect();
        let more = if self.text.chars().nth(40).is_some() { "…" } else { "" };
        format!(
            "Chunk(index={}, start={}, end={}, size={}, text={preview:?}{more})",
            self.index, self.start, self.end, self.size
        )
    }
}
