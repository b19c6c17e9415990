//! `Chunker.chunk_many`: the texts are chunked on `threads` threads without
//! the GIL. The calling thread is one of them, and also does what needs the
//! GIL: it borrows each text's buffer and hands it to the others, and it
//! turns finished texts' chunks into Python objects between the texts it
//! chunks itself. Done before and after all the chunking, on one thread,
//! that work was the part of the call a second thread could not share (on
//! character units, where chunking is quick, a fifth of it for `str`); a
//! separate thread for it would make three threads take turns on two cores.
//! What can leave the GIL does: a `str` is transcoded to UTF-8 by the
//! thread that chunks it (`input`), and the chunk objects are kept out of
//! the cyclic GC (`chunk::new_chunk`).

use crate::chunk::Row;
use crate::input::{self, Input};
use crate::settings::to_py;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};
use std::sync::{mpsc, Mutex};

/// One list of chunks per text, in input order, chunked on `threads`
/// threads. A text whose name (`names`, file names or paths) says HTML,
/// PDF, Word, JSON, JSONL or CSV is read as the CLI reads such a file. The first text (in
/// input order) that fails is the error, named by its index.
pub fn chunk_many<'py>(
    py: Python<'py>,
    chunker: &chunktui::Chunker,
    texts: &[Bound<'py, PyAny>],
    names: Option<&[String]>,
    threads: usize,
) -> PyResult<Vec<Bound<'py, PyList>>> {
    let name = |i: usize| format!("texts[{i}]");
    for (i, t) in texts.iter().enumerate() {
        input::check_type(t, &name(i))?;
    }
    let extract_as = |i: usize| names.map(|n| n[i].as_str()).filter(|n| needs_extraction(n));
    let made = |i: usize, chunked: chunktui::Result<Chunked>| {
        Some(chunked.map_err(|e| indexed(py, i, to_py(e))).and_then(|c| c.into_list(py, &texts[i])))
    };
    let mut lists: Vec<Option<PyResult<Bound<'py, PyList>>>> = texts.iter().map(|_| None).collect();
    // Largest first, so one big document does not leave the other threads
    // idle at the end (a str's length in code points is a fair guess of its
    // UTF-8 size, and costs nothing to read).
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len().unwrap_or(0)));
    let (to_do, work) = mpsc::channel::<(usize, Input<'_>, Option<&str>)>();
    let work = Mutex::new(work);
    // A poisoned lock (a thread panicked) ends the taking.
    let take = |wait: bool| {
        let work = work.lock().ok()?;
        if wait {
            work.recv().ok()
        } else {
            work.try_recv().ok()
        }
    };
    let (done, mut finished) = mpsc::channel();
    std::thread::scope(|s| {
        for _ in 1..threads.min(texts.len()) {
            let done = done.clone();
            s.spawn(move || {
                while let Some((i, text, name)) = take(true) {
                    if done.send((i, chunk_one(chunker, text, name))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        for &i in &order {
            match input::borrow(&texts[i], &name(i)) {
                // The other threads wait for work until `to_do` is dropped.
                Ok(text) => to_do.send((i, text, extract_as(i))).expect("the queue lives as long as this scope"),
                Err(e) => lists[i] = Some(Err(e)),
            }
        }
        drop(to_do);
        while let Some((i, text, name)) = take(false) {
            let chunked = py.detach(|| chunk_one(chunker, text, name));
            lists[i] = made(i, chunked);
            while let Ok((i, chunked)) = finished.try_recv() {
                lists[i] = made(i, chunked);
            }
        }
        // Wait without the GIL for the texts still being chunked (other
        // Python threads run meanwhile); the receiver goes to the waiting
        // side and back, as it is not Sync.
        loop {
            let (receiver, next) = py.detach(move || {
                let next = finished.recv();
                (finished, next)
            });
            finished = receiver;
            let Ok((i, chunked)) = next else { break };
            lists[i] = made(i, chunked);
        }
    });
    lists.into_iter().map(|l| l.expect("every text was chunked")).collect()
}

/// One text's chunks, and the text they index when it is not the input:
/// the text extracted from HTML or PDF.
pub struct Chunked {
    pub rows: Vec<Row>,
    pub extracted: Option<String>,
}

/// The chunks of one input as rows; bytes are checked for UTF-8, and a
/// `str` transcoded to it, here, on the worker thread, so that this runs in
/// parallel too. With a name that says HTML or PDF, the input is read as
/// that file.
pub fn chunk_one(chunker: &chunktui::Chunker, text: Input<'_>, name: Option<&str>) -> chunktui::Result<Chunked> {
    if let Some(name) = name {
        let bytes = text.into_bytes()?.into_owned();
        return chunk_document(chunker, chunktui::Document::from_named_bytes(bytes, name, false)?);
    }
    let text = text.to_utf8()?;
    let chunks = chunker.chunk(&text)?;
    Ok(Chunked { rows: crate::chunk::records(&text, chunks), extracted: None })
}

/// A read document's chunks, which index its (extracted) text.
pub fn chunk_document(chunker: &chunktui::Chunker, doc: chunktui::Document) -> chunktui::Result<Chunked> {
    let rows = crate::chunk::records(&doc.text, chunker.chunk_document(&doc)?);
    Ok(Chunked { rows, extracted: Some(doc.text) })
}

impl Chunked {
    /// The Python list of the chunks, holding the text they index: the
    /// extracted text, else `input` itself, or a plain copy of an input of
    /// a `str` or `bytes` subclass (which may refer to its own chunks: a
    /// cycle the GC could not see, as chunks do not show it their source).
    pub fn into_list<'py>(self, py: Python<'py>, input: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let source = match self.extracted {
            Some(text) => PyString::new(py, &text).into_any(),
            None if is_exact_text(input) => input.clone(),
            None => match input.cast::<PyString>() {
                Ok(s) => PyString::new(py, &s.to_cow()?).into_any(),
                Err(_) => PyBytes::new(py, input.cast::<PyBytes>()?.as_bytes()).into_any(),
            },
        };
        wrap(py, &source, self.rows)
    }
}

/// An exact `str` or `bytes`, not an instance of a subclass.
fn is_exact_text(value: &Bound<'_, PyAny>) -> bool {
    value.is_exact_instance_of::<PyString>() || value.is_exact_instance_of::<PyBytes>()
}

/// Whether a file of this name is extracted before it is chunked.
fn needs_extraction(name: &str) -> bool {
    use chunktui::DocKind;
    // HTML, PDF and Word are extracted; JSON, JSONL and CSV read as record data.
    !matches!(
        DocKind::from_extension(std::path::Path::new(name)),
        None | Some(DocKind::Markdown | DocKind::Code | DocKind::Text)
    )
}

/// The Python list of a text's chunks, each holding the text.
fn wrap<'py>(py: Python<'py>, source: &Bound<'py, PyAny>, rows: Vec<Row>) -> PyResult<Bound<'py, PyList>> {
    debug_assert!(is_exact_text(source), "chunks are untracked: their source must refer to nothing");
    let chunks: PyResult<Vec<_>> =
        rows.into_iter().map(|r| crate::chunk::new_chunk(py, r.with_source(source.clone().unbind()))).collect();
    PyList::new(py, chunks?)
}

/// `err` with the index of the text it is about, as the same exception type.
fn indexed(py: Python<'_>, i: usize, err: PyErr) -> PyErr {
    let msg = format!("texts[{i}]: {}", err.value(py));
    PyErr::from_type(err.get_type(py), msg)
}
