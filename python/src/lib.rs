//! chunktui's chunker as the Python extension module `chunktui._chunktui`
//! (re-exported by python/chunktui/__init__.py): a config (file or keyword
//! arguments named like its keys) makes a `Chunker`; `chunk` and
//! `chunk_many` return the same chunks as `chunktui chunk`.

mod chunk;
mod input;
mod many;
mod post;
mod settings;

use chunk::PyChunk;
use chunktui::config::ChunkConfig;
use chunktui::strategy::StrategyKind;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use settings::{to_py, ModelError};
use std::path::PathBuf;

#[pyclass(frozen, module = "chunktui", name = "Chunker")]
struct PyChunker {
    inner: chunktui::Chunker,
}

#[pymethods]
impl PyChunker {
    /// `Chunker(strategy="recursive", unit="tokens", size=512, overlap=64, ...)`:
    /// every key of the config file is a keyword; unset keys keep their defaults.
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(py: Python<'_>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let overrides = settings::kwargs_to_json(py, kwargs)?;
        Self::make(py, settings::build(None, overrides).map_err(to_py)?)
    }

    /// The config a workbench exported (TOML, or JSON for `.json`), with
    /// keyword arguments over it.
    #[staticmethod]
    #[pyo3(signature = (path, **kwargs))]
    fn from_config(py: Python<'_>, path: PathBuf, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let base = ChunkConfig::load(&path).map_err(to_py)?;
        let overrides = settings::kwargs_to_json(py, kwargs)?;
        Self::make(py, settings::build(Some(&base), overrides).map_err(to_py)?)
    }

    /// Cut one text (`str`, or UTF-8 `bytes`) into chunks, in order.
    fn chunk<'py>(&self, py: Python<'py>, text: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let input = input::borrow(&text, "text")?;
        let chunked = py.detach(|| many::chunk_one(&self.inner, input, None)).map_err(to_py)?;
        chunked.into_list(py, &text)
    }

    /// The chunks' byte ranges in the text's UTF-8 as one flat
    /// `array.array('Q')`: start0, end0, start1, end1... The same chunks as
    /// `chunk`, with no Python object per chunk (and, for `fast`, no chunk
    /// made at all): for pipelines that slice the bytes themselves. `bytes`
    /// are read in place; `fast` cuts them unchecked, other strategies check
    /// they are UTF-8 first. Runs without the GIL.
    fn offsets<'py>(&self, py: Python<'py>, text: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let input = input::borrow(&text, "text")?;
        let flat = py
            .detach(|| {
                let mut out = Vec::new();
                match input {
                    input::Input::Bytes(b) => self.inner.offsets_of_bytes_into(b, &mut out)?,
                    other => self.inner.offsets_into(&other.to_utf8()?, &mut out)?,
                }
                Ok::<_, chunktui::Error>(out.iter().flat_map(|v| v.to_ne_bytes()).collect::<Vec<u8>>())
            })
            .map_err(to_py)?;
        let array = py.import("array")?.getattr("array")?.call1(("Q",))?;
        array.call_method1("frombytes", (pyo3::types::PyBytes::new(py, &flat),))?;
        Ok(array)
    }

    /// Read a file and cut it as `chunktui chunk FILE --config ...` does:
    /// HTML and PDF are extracted first (their chunks carry `meta.element`
    /// or `meta.pages`), and the chunks' text and offsets are those of the
    /// extracted text. Runs without the GIL.
    fn chunk_file<'py>(&self, py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyList>> {
        let chunked =
            py.detach(|| many::chunk_document(&self.inner, chunktui::Document::load(&path, false)?)).map_err(to_py)?;
        // A read document's chunks always index its own text: no input to hold.
        chunked.into_list(py, &py.None().into_bound(py))
    }

    /// Cut each text (`str`, or UTF-8 `bytes` such as a file's contents) of
    /// a list or any iterable (a generator of file contents); one list of
    /// chunks per text, in input order. Runs without the GIL on `threads`
    /// threads (default: every core). `names` (file names or paths, one per
    /// text): a text named `.html` or `.pdf` is a file's contents, extracted
    /// first as `chunk_file` does.
    #[pyo3(signature = (texts, threads = None, names = None))]
    fn chunk_many<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        threads: Option<usize>,
        names: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyList>>> {
        let texts = input::items(texts, "texts", "pass a list of texts ([text]), or chunk(text) for one")?;
        let names = match names {
            Some(n) => Some(
                input::items(n, "names", "pass a list, one name per text")?
                    .iter()
                    .map(|n| n.extract::<String>())
                    .collect::<PyResult<Vec<_>>>()?,
            ),
            None => None,
        };
        if let Some(n) = names.as_ref().filter(|n| n.len() != texts.len()) {
            return Err(PyValueError::new_err(format!(
                "{} texts but {} names: give one name per text (or none)",
                texts.len(),
                n.len()
            )));
        }
        let threads = match threads {
            Some(0) => return Err(PyValueError::new_err("threads must be at least 1 (or None for every core)")),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        many::chunk_many(py, &self.inner, &texts, names.as_deref(), threads)
    }

    /// The size of `text` in the config's unit.
    fn size_of(&self, text: &str) -> usize {
        self.inner.size_of(text)
    }

    /// The normalised, validated config as a dict (what a config file holds).
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        settings::json_to_py(py, &serde_json::to_value(&self.inner.config).expect("a config serialises"))
    }

    /// The config as TOML, readable by `chunktui chunk --config` and `from_config`.
    fn to_toml(&self) -> String {
        self.inner.config.to_toml()
    }

    /// Pickled as its config (Ray and multiprocessing send chunkers to workers).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let rebuild = py.import("chunktui._chunktui")?.getattr("_chunker_from_json")?;
        Ok((rebuild, (self.inner.config.to_json(),)))
    }

    fn __repr__(&self) -> String {
        let c = &self.inner.config;
        format!(
            "Chunker(strategy={:?}, unit={:?}, size={}, overlap={})",
            c.strategy.name(),
            c.unit.name(),
            c.size,
            c.overlap
        )
    }
}

impl PyChunker {
    fn make(_py: Python<'_>, config: ChunkConfig) -> PyResult<Self> {
        if config.strategy.needs_model() && !chunktui::embed::runtime::available() {
            return Err(ModelError::new_err(format!(
                "strategy '{}' needs ONNX Runtime, which was not found: `pip install onnxruntime` (or run \
                 `chunktui setup`, or set ORT_DYLIB_PATH to a libonnxruntime.so); the other strategies work \
                 without it",
                config.strategy
            )));
        }
        Ok(PyChunker { inner: chunktui::Chunker::new(&config).map_err(to_py)? })
    }
}

/// Rebuild a pickled chunker from its config JSON.
#[pyfunction]
fn _chunker_from_json(py: Python<'_>, json: &str) -> PyResult<PyChunker> {
    let config = ChunkConfig::parse(json, true).map_err(to_py)?;
    PyChunker::make(py, config)
}

/// Every strategy's name and whether it needs an embedding model, in the
/// order `chunktui --help` lists them.
#[pyfunction]
fn strategies() -> Vec<(&'static str, bool)> {
    StrategyKind::ALL.iter().map(|k| (k.name(), k.needs_model())).collect()
}

/// The strategies that ask an LLM endpoint (`llm.url`, `llm.model`).
#[pyfunction]
fn llm_strategies() -> Vec<&'static str> {
    StrategyKind::ALL.iter().filter(|k| k.needs_llm()).map(|k| k.name()).collect()
}

/// The strategies made for some document formats, and those formats
/// (`json`: json, jsonl); every other strategy cuts any text.
#[pyfunction]
fn format_strategies() -> Vec<(&'static str, Vec<&'static str>)> {
    let formats = |k: &StrategyKind| k.spec().formats.iter().map(|f| f.name()).collect::<Vec<_>>();
    StrategyKind::ALL.iter().filter(|k| !k.spec().reads_any_text()).map(|k| (k.name(), formats(k))).collect()
}

#[pymodule]
fn _chunktui(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyChunker>()?;
    m.add_class::<PyChunk>()?;
    m.add_class::<post::PyPostChunker>()?;
    m.add("ModelError", m.py().get_type::<ModelError>())?;
    m.add_function(wrap_pyfunction!(strategies, m)?)?;
    m.add_function(wrap_pyfunction!(llm_strategies, m)?)?;
    m.add_function(wrap_pyfunction!(format_strategies, m)?)?;
    m.add_function(wrap_pyfunction!(_chunker_from_json, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
