//! `chunktui.PostChunker`: post-chunking (`chunktui::post_chunking`) from
//! Python. Whole documents are indexed; a question ranks them, only the top
//! `documents_per_query` are cut with the config (their chunks kept in the
//! chunk cache, keyed by text and settings), and the best chunks of those
//! come back, with byte and code-point offsets as `Chunk.to_dict` has them.
//! Indexing and every question run without the GIL: one `PostChunker` may
//! answer questions from several threads at once.

use crate::input;
use crate::settings::{self, json_to_py, to_py};
use crate::PyChunker;
use chunktui::config::ChunkConfig;
use chunktui::document::CharOffsets;
use chunktui::embedding::Control;
use chunktui::eval::retrieve::RetrieverKind;
use chunktui::post_chunking::{ChunkCache, Found, Options, PostChunker, Source};
use chunktui::{Chunk, Error};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyMapping, PyString};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;

/// Post-chunking: documents are indexed whole; a question ranks them, only
/// the best few are cut (or their chunks read from the chunk cache), and the
/// best of their chunks come back. `query`, `query_aware`, `rank_documents`
/// and `cost`; every call runs without the GIL.
#[pyclass(frozen, module = "chunktui", name = "PostChunker")]
pub struct PyPostChunker {
    inner: PostChunker,
    /// What cuts every document (none brings its own from Python).
    config: ChunkConfig,
}

#[pymethods]
impl PyPostChunker {
    /// `PostChunker(documents, config=None, *, documents_per_query=5,
    /// doc_retriever="bm25", retriever="bm25", chunk_cache=True, **settings)`:
    /// `documents` a list of texts (ids "0", "1", ...), a dict {id: text} or
    /// a list of (id, text) pairs; `config` a config file's path or a
    /// `Chunker`, with the keyword settings over it (as `Chunker` takes them).
    #[new]
    #[pyo3(signature = (
        documents,
        config = None,
        *,
        documents_per_query = 5,
        doc_retriever = "bm25",
        retriever = "bm25",
        chunk_cache = ChunkCache::open(),
        **settings
    ),
    text_signature = "(documents, config=None, *, documents_per_query=5, doc_retriever=\"bm25\", retriever=\"bm25\", \
                      chunk_cache=True, **settings)")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        documents: &Bound<'_, PyAny>,
        config: Option<&Bound<'_, PyAny>>,
        documents_per_query: usize,
        doc_retriever: &str,
        retriever: &str,
        #[pyo3(from_py_with = chunk_cache_of)] chunk_cache: ChunkCache,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let doc_retriever = RetrieverKind::parse(doc_retriever).map_err(to_py)?;
        let retriever = RetrieverKind::parse(retriever).map_err(to_py)?;
        if documents_per_query == 0 {
            return Err(PyValueError::new_err(
                "documents_per_query=0 cuts nothing: retrieve at least 1 document (5 is usual)",
            ));
        }
        let config = config_of(py, config, settings)?;
        let given = documents_of(documents)?;
        let texts = given
            .iter()
            .map(|(id, text)| Ok((id.as_str(), input::borrow(text, &format!("documents[{id:?}]"))?)))
            .collect::<PyResult<Vec<_>>>()?;
        let options = Options { documents: documents_per_query, doc_retriever, retriever, cache: chunk_cache };
        let inner = py
            .detach(|| {
                let sources = texts
                    .into_iter()
                    .map(|(id, text)| {
                        let text = text.to_utf8().map_err(|e| named(id, e))?.into_owned();
                        Ok(Source::new(id, text))
                    })
                    .collect::<chunktui::Result<Vec<_>>>()?;
                PostChunker::new(sources, &config, options, Control::none())
            })
            .map_err(to_py)?;
        Ok(PyPostChunker { inner, config })
    }

    /// The best `k` of the config's chunks in the documents `question`
    /// retrieves, best first: one dict each (`id`, `doc`, `start`, `end`,
    /// `char_start`, `char_end`, `score`, `text`, `meta`). Runs without the GIL.
    #[pyo3(signature = (question, k = 5))]
    fn query<'py>(&self, py: Python<'py>, question: &str, k: usize) -> PyResult<Bound<'py, PyList>> {
        check_k(k)?;
        let hits = py.detach(|| self.located(self.inner.query(question, k)?)).map_err(to_py)?;
        self.to_list(py, hits)
    }

    /// The query-aware cut: `k` windows of whole sentences, each within the
    /// config's size, placed for `question` in the documents it retrieves;
    /// dicts as `query` gives them (`meta` empty). Runs without the GIL.
    #[pyo3(signature = (question, k = 5))]
    fn query_aware<'py>(&self, py: Python<'py>, question: &str, k: usize) -> PyResult<Bound<'py, PyList>> {
        check_k(k)?;
        let hits = py.detach(|| self.located(self.inner.query_aware(question, k)?)).map_err(to_py)?;
        self.to_list(py, hits)
    }

    /// The documents `question` retrieves (the `documents_per_query` best),
    /// best first: (id, score). Runs without the GIL.
    fn rank_documents(&self, py: Python<'_>, question: &str) -> PyResult<Vec<(String, f64)>> {
        let ranked = py.detach(|| self.inner.rank_documents(question)).map_err(to_py)?;
        let docs = self.inner.documents();
        Ok(ranked.into_iter().map(|(d, score)| (docs[d].id.clone(), score)).collect())
    }

    /// What the questions so far have cost: documents_total,
    /// documents_chunked, chunk_cache_hits, chunks_embedded,
    /// sentences_embedded, document_windows_embedded, chunk_cache_write_errors.
    fn cost<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::to_value(self.inner.cost()).expect("a cost serialises"))
    }

    /// How documents are represented in the document index, in a line.
    #[getter]
    fn document_representation(&self) -> &str {
        self.inner.document_representation()
    }

    /// The documents' ids, in order (a hit's `doc` indexes this list).
    #[getter]
    fn ids(&self) -> Vec<String> {
        self.inner.documents().iter().map(|d| d.id.clone()).collect()
    }

    /// The config that cuts the documents, as `Chunker.config` has it.
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_to_py(py, &serde_json::to_value(&self.config).expect("a config serialises"))
    }

    fn __len__(&self) -> usize {
        self.inner.documents().len()
    }

    fn __repr__(&self) -> String {
        let o = self.inner.options();
        format!(
            "PostChunker({} documents, documents_per_query={}, doc_retriever={:?}, retriever={:?})",
            self.inner.documents().len(),
            o.documents,
            o.doc_retriever.name(),
            o.retriever.name()
        )
    }
}

/// A hit, placed in its document: the chunk it is (`query`), if any.
struct Hit {
    doc: usize,
    range: Range<usize>,
    chars: Range<usize>,
    score: f64,
    chunk: Option<Chunk>,
}

impl PyPostChunker {
    /// Code-point ranges of the hits (each document's offsets counted once).
    fn located(&self, found: Vec<Found>) -> chunktui::Result<Vec<Hit>> {
        let docs = self.inner.documents();
        let mut offsets: HashMap<usize, CharOffsets<'_>> = HashMap::new();
        let mut hits = Vec::with_capacity(found.len());
        for Found { doc, range, score, chunk } in found {
            let at = offsets.entry(doc).or_insert_with(|| CharOffsets::new(&docs[doc].text));
            let chars = at.at(range.start)..at.at(range.end);
            hits.push(Hit { doc, range, chars, score, chunk });
        }
        Ok(hits)
    }

    fn to_list<'py>(&self, py: Python<'py>, hits: Vec<Hit>) -> PyResult<Bound<'py, PyList>> {
        let docs = self.inner.documents();
        let list = PyList::empty(py);
        for hit in hits {
            let source = &docs[hit.doc];
            let d = PyDict::new(py);
            d.set_item("id", &source.id)?;
            d.set_item("doc", hit.doc)?;
            d.set_item("start", hit.range.start)?;
            d.set_item("end", hit.range.end)?;
            d.set_item("char_start", hit.chars.start)?;
            d.set_item("char_end", hit.chars.end)?;
            d.set_item("score", hit.score)?;
            match &hit.chunk {
                Some(c) => {
                    d.set_item("text", c.text(&source.text))?;
                    d.set_item("meta", json_to_py(py, &serde_json::to_value(&c.meta).expect("meta serialises"))?)?;
                }
                None => {
                    d.set_item("text", &source.text[hit.range.clone()])?;
                    d.set_item("meta", PyDict::new(py))?;
                }
            }
            list.append(d)?;
        }
        Ok(list)
    }
}

/// The config: the defaults, a config file or a `Chunker`'s, with the
/// keyword settings over it, checked as `Chunker` checks it.
fn config_of(
    py: Python<'_>,
    config: Option<&Bound<'_, PyAny>>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<ChunkConfig> {
    let overrides = settings::kwargs_to_json(py, kwargs)?;
    let built = match config {
        None => settings::build(None, overrides),
        Some(c) => {
            let base = if let Ok(chunker) = c.cast::<PyChunker>() {
                chunker.get().inner.config.clone()
            } else if c.is_instance_of::<PyString>() || c.hasattr("__fspath__")? {
                ChunkConfig::load(&c.extract::<PathBuf>()?).map_err(to_py)?
            } else {
                return Err(PyTypeError::new_err(format!(
                    "config is {}: pass a config file's path or a chunktui.Chunker (or settings as keywords)",
                    type_name(c)
                )));
            };
            if overrides.is_empty() {
                Ok(base)
            } else {
                settings::build(Some(&base), overrides)
            }
        }
    };
    // Made into a Chunker once: the same checks and messages as `Chunker(...)`.
    Ok(PyChunker::make(py, built.map_err(to_py)?)?.inner.config.clone())
}

/// The documents as (id, text object) pairs, in order: a mapping's items,
/// or a list of texts (ids "0", "1", ...) or of (id, text) pairs.
fn documents_of<'py>(documents: &Bound<'py, PyAny>) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    let pairs: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)> = if let Ok(mapping) = documents.cast::<PyMapping>() {
        mapping.items()?.iter().map(|item| item.extract()).collect::<PyResult<_>>()?
    } else {
        let items = input::items(
            documents,
            "documents",
            "pass a list of texts ([text]), a dict {id: text} or a list of (id, text) pairs",
        )?;
        let mut pairs = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            if item.is_instance_of::<PyString>() || item.is_instance_of::<PyBytes>() {
                pairs.push((PyString::new(documents.py(), &i.to_string()).into_any(), item));
            } else if let Ok(pair) = item.extract::<(Bound<'py, PyAny>, Bound<'py, PyAny>)>() {
                pairs.push(pair);
            } else {
                return Err(PyTypeError::new_err(format!(
                    "documents[{i}] is {}: pass str, bytes holding UTF-8, or an (id, text) pair",
                    type_name(&item)
                )));
            }
        }
        pairs
    };
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(pairs.len());
    for (id, text) in pairs {
        let id: String = id
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("a document's id is {}: ids are str", type_name(&id))))?;
        if !seen.insert(id.clone()) {
            return Err(PyValueError::new_err(format!(
                "the document id {id:?} is given twice: each document needs an id of its own"
            )));
        }
        input::check_type(&text, &format!("documents[{id:?}]"))?;
        out.push((id, text));
    }
    Ok(out)
}

/// `chunk_cache=`: True (chunktui's cache folder), False (none) or a folder.
fn chunk_cache_of(value: &Bound<'_, PyAny>) -> PyResult<ChunkCache> {
    if let Ok(on) = value.cast::<PyBool>() {
        return Ok(if on.is_true() { ChunkCache::open() } else { ChunkCache::off() });
    }
    if value.is_instance_of::<PyString>() || value.hasattr("__fspath__")? {
        return Ok(ChunkCache::at(value.extract::<PathBuf>()?));
    }
    Err(PyTypeError::new_err(format!(
        "chunk_cache is {}: pass True (chunktui's cache folder), False (no cache) or a folder's path",
        type_name(value)
    )))
}

/// An input error about one document's text, naming it.
fn named(id: &str, err: Error) -> Error {
    match err {
        Error::Input(m) => Error::input(format!("documents[{id:?}]: {m}")),
        other => other,
    }
}

fn check_k(k: usize) -> PyResult<()> {
    if k == 0 {
        return Err(PyValueError::new_err("k=0 retrieves nothing: use at least 1 (5 is usual)"));
    }
    Ok(())
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string())
}
