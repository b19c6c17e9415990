//! `chunktui.Chunk`: one chunk as the CLI's JSONL record has it (byte and
//! code-point offsets, size, text, meta), made without the GIL in the worker
//! threads as a [`Row`] and only wrapped into a Python object at the end.
//!
//! A chunk holds the text it was cut from (the `str` or `bytes` passed in,
//! shared by all its chunks) and cuts its `text` from it when asked. Copying
//! every chunk's text into its own buffer was a third of `chunk_many`'s time
//! on character units, and freeing those buffers, when Python drops the
//! chunks, runs under the GIL on one thread.

use crate::input::{self, Input};
use crate::settings::json_to_py;
use chunktui::chunk::ChunkMeta;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// A chunk's fields, made on a worker thread (without the GIL).
pub struct Row {
    index: usize,
    start: usize,
    end: usize,
    char_start: usize,
    char_end: usize,
    size: usize,
    meta: ChunkMeta,
}

impl Row {
    /// The Python object, holding (a reference to) the text it was cut from.
    pub fn with_source(self, source: Py<PyAny>) -> PyChunk {
        let Row { index, start, end, char_start, char_end, size, meta } = self;
        PyChunk { index, start, end, char_start, char_end, size, source, meta }
    }
}

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
    /// The `str` or UTF-8 `bytes` the chunk was cut from.
    source: Py<PyAny>,
    /// With the embed text (`meta.embed`, which serde skips).
    meta: ChunkMeta,
}

/// The chunks of `text` as the CLI's records (`chunktui::export::records`).
pub fn records(text: &str, chunks: &[chunktui::Chunk]) -> Vec<Row> {
    chunktui::export::records(chunks, text)
        .into_iter()
        .map(|r| Row {
            index: r.index,
            start: r.start,
            end: r.end,
            char_start: r.char_start,
            char_end: r.char_end,
            size: r.size,
            meta: r.meta.clone(),
        })
        .collect()
}

impl PyChunk {
    /// The chunk's text: the rewritten text of a LangChain-compatible chunk,
    /// else its byte range of the source (str and bytes are immutable, and
    /// the range was cut at character boundaries of that very text).
    fn with_text<R>(&self, py: Python<'_>, read: impl FnOnce(&str) -> R) -> PyResult<R> {
        if let Some(text) = &self.meta.text {
            return Ok(read(text));
        }
        let source = self.source.bind(py);
        let text = match input::borrow(source, "the chunk's source")? {
            Input::Str(s) => s.get(self.start..self.end),
            Input::Bytes(b) => b.get(self.start..self.end).and_then(|b| std::str::from_utf8(b).ok()),
        };
        text.map(read).ok_or_else(|| PyValueError::new_err("the chunk's range no longer fits its source text"))
    }
}

#[pymethods]
impl PyChunk {
    /// The chunk's text (a new `str` on each access).
    #[getter]
    fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        self.with_text(py, |t| PyString::new(py, t))
    }

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
        d.set_item("text", self.text(py)?)?;
        d.set_item("meta", self.meta(py)?)?;
        if let Some(e) = &self.meta.embed {
            d.set_item("embed_text", &e.text)?;
            d.set_item("embed_size", e.size)?;
            d.set_item("embed_tokens", e.tokens)?;
        }
        Ok(d)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<PyChunk>() else { return Ok(false) };
        let o = o.get();
        if (self.index, self.start, self.end, self.size, &self.meta) != (o.index, o.start, o.end, o.size, &o.meta) {
            return Ok(false);
        }
        let mine = self.with_text(py, str::to_owned)?;
        o.with_text(py, |theirs| mine == theirs)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let (preview, more) = self.with_text(py, |t| {
            (t.chars().take(40).collect::<String>(), if t.chars().nth(40).is_some() { "…" } else { "" })
        })?;
        Ok(format!(
            "Chunk(index={}, start={}, end={}, size={}, text={preview:?}{more})",
            self.index, self.start, self.end, self.size
        ))
    }
}
