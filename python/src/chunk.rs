//! `chunktui.Chunk`: one chunk as the CLI's JSONL record has it (byte and
//! code-point offsets, size, text, meta), made without the GIL in the worker
//! threads and only wrapped into a Python object at the end.

use crate::settings::json_to_py;
use chunktui::chunk::ChunkMeta;
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
    /// With the embed text (`meta.embed`, which serde skips).
    meta: ChunkMeta,
}

/// The chunks of `text` as the CLI's records (`chunktui::export::records`),
/// owned, for Python.
pub fn records(text: &str, chunks: &[chunktui::Chunk]) -> Vec<PyChunk> {
    chunktui::export::records(chunks, text)
        .into_iter()
        .map(|r| PyChunk {
            index: r.index,
            start: r.start,
            end: r.end,
            char_start: r.char_start,
            char_end: r.char_end,
            size: r.size,
            text: r.text.to_string(),
            meta: r.meta.clone(),
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
        self.meta.embed.as_ref().map(|e| e.text.as_str())
    }

    /// The size of `embed_text` in the config's unit.
    #[getter]
    fn embed_size(&self) -> Option<usize> {
        self.meta.embed.as_ref().map(|e| e.size)
    }

    /// The size of `embed_text` in the config tokenizer's tokens.
    #[getter]
    fn embed_tokens(&self) -> Option<usize> {
        self.meta.embed.as_ref().map(|e| e.tokens)
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
        if let Some(e) = &self.meta.embed {
            d.set_item("embed_text", &e.text)?;
            d.set_item("embed_size", e.size)?;
            d.set_item("embed_tokens", e.tokens)?;
        }
        Ok(d)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyChunk>().is_ok_and(|o| {
            let o = o.get();
            (self.index, self.start, self.end, self.size, &self.text, &self.meta)
                == (o.index, o.start, o.end, o.size, &o.text, &o.meta)
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
