//! `Chunker.chunk_many`: the texts are chunked on worker threads without the
//! GIL while the calling thread turns each finished text's chunks into Python
//! objects. Making those objects needs the GIL, so it runs on one thread;
//! done after all the chunking, it was the part of the call a second thread
//! could not share (about a tenth of it on character units). Overlapped with
//! the chunking, it is spread over the cores with the rest.

use crate::chunk::Row;
use crate::input::{self, Input};
use crate::settings::to_py;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// One list of chunks per text, in input order, chunked on `threads`
/// threads. The first text (in input order) that fails is the error, named
/// by its index.
pub fn chunk_many<'py>(
    py: Python<'py>,
    chunker: &chunktui::Chunker,
    texts: &[Bound<'py, PyAny>],
    threads: usize,
) -> PyResult<Vec<Bound<'py, PyList>>> {
    let inputs = texts
        .iter()
        .enumerate()
        .map(|(i, t)| input::borrow(t, &format!("texts[{i}]")))
        .collect::<PyResult<Vec<_>>>()?;
    let mut lists: Vec<Option<PyResult<Bound<'py, PyList>>>> = texts.iter().map(|_| None).collect();
    let mut keep = |i: usize, rows: chunktui::Result<Vec<Row>>| {
        lists[i] = Some(rows.map_err(|e| indexed(py, i, to_py(e))).and_then(|rows| wrap(py, &texts[i], rows)));
    };
    if threads.min(texts.len()) <= 1 {
        // One thread in all: chunk without the GIL, then make the objects.
        let results = py.detach(|| inputs.iter().map(|t| chunk_one(chunker, *t)).collect::<Vec<_>>());
        results.into_iter().enumerate().for_each(|(i, rows)| keep(i, rows));
    } else {
        // Largest first from a shared counter, so one big document does not
        // leave the other threads idle at the end.
        let mut order: Vec<usize> = (0..inputs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(inputs[i].len()));
        let next = AtomicUsize::new(0);
        let (done, mut finished) = mpsc::channel();
        std::thread::scope(|s| {
            for _ in 0..threads.min(texts.len()) {
                let (done, order, next, inputs) = (done.clone(), &order, &next, &inputs);
                s.spawn(move || {
                    while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if done.send((i, chunk_one(chunker, inputs[i]))).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(done);
            // Wait without the GIL (other Python threads run meanwhile); the
            // receiver goes to the waiting side and back, as it is not Sync.
            loop {
                let (receiver, next) = py.detach(move || {
                    let next = finished.recv();
                    (finished, next)
                });
                finished = receiver;
                let Ok((i, rows)) = next else { break };
                keep(i, rows);
            }
        });
    }
    lists.into_iter().map(|l| l.expect("every text was chunked")).collect()
}

/// The chunks of one input as rows; bytes are checked for UTF-8 here, on
/// the worker thread, so that check runs in parallel too.
pub fn chunk_one(chunker: &chunktui::Chunker, text: Input<'_>) -> chunktui::Result<Vec<Row>> {
    let text = text.as_str()?;
    let chunks = chunker.chunk(text)?;
    Ok(crate::chunk::records(text, &chunks))
}

/// The Python list of a text's chunks, each holding the text.
pub fn wrap<'py>(py: Python<'py>, source: &Bound<'py, PyAny>, rows: Vec<Row>) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, rows.into_iter().map(|r| r.with_source(source.clone().unbind())))
}

/// `err` with the index of the text it is about, as the same exception type.
fn indexed(py: Python<'_>, i: usize, err: PyErr) -> PyErr {
    let msg = format!("texts[{i}]: {}", err.value(py));
    PyErr::from_type(err.get_type(py), msg)
}
