//! `chunktui.Chunk`: one chunk as the CLI's JSONL record has it (byte and
//! code-point offsets, size, text, meta), made without the GIL in the worker
//! threads as a [`Row`] and only wrapped into a Python object at the end.
//!
//! A chunk holds the text it was cut from (the `str` or `bytes` passed in,
//! shared by all its chunks) and cuts its `text` from it when asked. Copying
//! every chunk's text into its own buffer was a third of `chunk_many`'s time
//! on character units, and freeing those buffers, when Python drops the
//! chunks, runs under the GIL on one thread.

use crate::settings::json_to_py;
use chunktui::chunk::{ChunkMeta, Meta};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PySlice, PyString};

/// A chunk's fields, made on a worker thread (without the GIL).
pub struct Row {
    index: usize,
    /// In bytes, and in code points.
    range: std::ops::Range<usize>,
    chars: std::ops::Range<usize>,
    size: usize,
    meta: Meta,
}

impl Row {
    /// The Python object, holding (a reference to) the text it was cut from.
    pub fn with_source(self, source: Py<PyAny>) -> PyChunk {
        let Row { index, range, chars, size, meta } = self;
        let (start, end, char_start, char_end) = (range.start, range.end, chars.start, chars.end);
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
    meta: Meta,
}

/// The chunks of `text` as the CLI's records have them (numbered in order,
/// with `chunktui::export::char_ranges`), each taking its chunk's metadata.
pub fn records(text: &str, chunks: Vec<chunktui::Chunk>) -> Vec<Row> {
    let chars: Vec<_> = chunktui::export::char_ranges(&chunks, text).collect();
    chunks
        .into_iter()
        .zip(chars)
        .enumerate()
        .map(|(index, (c, chars))| Row { index, range: c.range, chars, size: c.size, meta: c.meta })
        .collect()
}

impl PyChunk {
    fn meta(&self) -> &ChunkMeta {
        &self.meta
    }

    /// The chunk's text: the rewritten text of a LangChain-compatible chunk,
    /// else its range of the source. A `str` source is sliced by code
    /// points (a copy of its own width, never re-encoded); `bytes` by bytes
    /// (the range was cut at character boundaries of that very text).
    fn text_of<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        if let Some(text) = &self.meta().text {
            return Ok(PyString::new(py, text));
        }
        let source = self.source.bind(py);
        if let Ok(s) = source.cast::<PyString>() {
            return Ok(s
                .get_item(PySlice::new(py, to_isize(self.char_start)?, to_isize(self.char_end)?, 1))?
                .cast_into()?);
        }
        let text = source
            .cast::<PyBytes>()
            .ok()
            .and_then(|b| b.as_bytes().get(self.start..self.end))
            .and_then(|b| std::str::from_utf8(b).ok())
            .ok_or_else(|| PyValueError::new_err("the chunk's range no longer fits its source text"))?;
        Ok(PyString::new(py, text))
    }

    /// `read` applied to the chunk's text.
    fn with_text<R>(&self, py: Python<'_>, read: impl FnOnce(&str) -> R) -> PyResult<R> {
        Ok(read(&self.text_of(py)?.to_cow()?))
    }
}

fn to_isize(offset: usize) -> PyResult<isize> {
    isize::try_from(offset).map_err(|_| PyValueError::new_err("the chunk's offset is out of range"))
}

/// A new chunk object that Python's cyclic GC does not track. PyO3 makes
/// every class GC-tracked, but a chunk refers only to an exact `str` or
/// `bytes` (`Chunked::into_list` makes its source one, copying a
/// subclass's), which refer to nothing, so it can never be part of a cycle;
/// tracked, the chunks cost `chunk_many` half the time it took to make
/// them, under the GIL, as each collection walked every young chunk.
pub fn new_chunk<'py>(py: Python<'py>, chunk: PyChunk) -> PyResult<Bound<'py, PyChunk>> {
    let object = Bound::new(py, chunk)?;
    // SAFETY: `object` is a live, GC-tracked object of a GC type that this
    // thread (holding the GIL) just made; untracking it only keeps the
    // collector from visiting it, and its dealloc untracks only what is
    // still tracked.
    #[allow(unsafe_code)]
    unsafe {
        pyo3::ffi::PyObject_GC_UnTrack(object.as_ptr().cast())
    };
    Ok(object)
}

#[pymethods]
impl PyChunk {
    /// The chunk's text (a new `str` on each access).
    #[getter]
    fn text<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        self.text_of(py)
    }

    /// The chunk's metadata as the CLI's JSONL `meta` has it (headings,
    /// symbols, id/parent_id/level, ...): a new dict on each access.
    #[getter(meta)]
    fn meta_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::to_value(self.meta()).expect("meta serialises"))
    }

    /// What to embed for this chunk (`embed_text` in the config), else None.
    #[getter]
    fn embed_text(&self) -> Option<&str> {
        self.meta().embed.as_ref().map(|e| e.text.as_str())
    }

    /// The size of `embed_text` in the config's unit.
    #[getter]
    fn embed_size(&self) -> Option<usize> {
        self.meta().embed.as_ref().map(|e| e.size)
    }

    /// The size of `embed_text` in the config tokenizer's tokens.
    #[getter]
    fn embed_tokens(&self) -> Option<usize> {
        self.meta().embed.as_ref().map(|e| e.tokens)
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
        d.set_item("meta", self.meta_dict(py)?)?;
        if let Some(e) = &self.meta().embed {
            d.set_item("embed_text", &e.text)?;
            d.set_item("embed_size", e.size)?;
            d.set_item("embed_tokens", e.tokens)?;
        }
        Ok(d)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(o) = other.cast::<PyChunk>() else { return Ok(false) };
        let o = o.get();
        if (self.index, self.start, self.end, self.size, self.meta()) != (o.index, o.start, o.end, o.size, o.meta()) {
            return Ok(false);
        }
        self.text_of(py)?.as_any().eq(o.text_of(py)?)
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
