//! `Chunker.chunk_many`: the texts are chunked on worker threads without the
//! GIL, while the calling thread does what needs the GIL: it encodes each
//! `str` to UTF-8 and hands it to the workers, then turns each finished
//! text's chunks into Python objects. Done before and after all the
//! chunking, on one thread, that work was the part of the call a second
//! thread could not share (on character units, where chunking is quick, a
//! fifth of it for `str`). Overlapped with the chunking, it is spread over
//! the cores with the rest.

use crate::chunk::Row;
use crate::input::{self, Input};
use crate::settings::to_py;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::{mpsc, Mutex};

/// One list of chunks per text, in input order, chunked on `threads`
/// threads. The first text (in input order) that fails is the error, named
/// by its index.
pub fn chunk_many<'py>(
    py: Python<'py>,
    chunker: &chunktui::Chunker,
    texts: &[Bound<'py, PyAny>],
    threads: usize,
) -> PyResult<Vec<Bound<'py, PyList>>> {
    let name = |i: usize| format!("texts[{i}]");
    for (i, t) in texts.iter().enumerate() {
        input::check_type(t, &name(i))?;
    }
    let mut lists: Vec<Option<PyResult<Bound<'py, PyList>>>> = texts.iter().map(|_| None).collect();
    let made = |i: usize, rows: chunktui::Result<Vec<Row>>| {
        Some(rows.map_err(|e| indexed(py, i, to_py(e))).and_then(|rows| wrap(py, &texts[i], rows)))
    };
    let threads = threads.min(texts.len());
    if threads <= 1 {
        // One thread in all: encode, chunk without the GIL, make the objects.
        let inputs: Vec<PyResult<Input<'_>>> =
            texts.iter().enumerate().map(|(i, t)| input::borrow(t, &name(i))).collect();
        let results =
            py.detach(|| inputs.iter().map(|t| t.as_ref().ok().map(|t| chunk_one(chunker, *t))).collect::<Vec<_>>());
        for (i, (input, rows)) in inputs.into_iter().zip(results).enumerate() {
            match (input, rows) {
                (Err(e), _) => lists[i] = Some(Err(e)),
                (Ok(_), Some(rows)) => lists[i] = made(i, rows),
                (Ok(_), None) => unreachable!("every borrowed text was chunked"),
            }
        }
        return lists.into_iter().map(|l| l.expect("every text was chunked")).collect();
    }
    // Largest first, so one big document does not leave the other threads
    // idle at the end (a str's length in code points is a fair guess of its
    // UTF-8 size, and costs nothing to read).
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len().unwrap_or(0)));
    let (to_do, work) = mpsc::channel::<(usize, Input<'_>)>();
    let work = Mutex::new(work);
    let (done, mut finished) = mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (done, work) = (done.clone(), &work);
            s.spawn(move || {
                // A poisoned lock (another worker panicked) ends this one too.
                while let Some((i, text)) = work.lock().ok().and_then(|w| w.recv().ok()) {
                    if done.send((i, chunk_one(chunker, text))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        for &i in &order {
            match input::borrow(&texts[i], &name(i)) {
                // The workers outlive neither the scope nor `to_do`.
                Ok(text) => to_do.send((i, text)).expect("the workers wait for work"),
                Err(e) => lists[i] = Some(Err(e)),
            }
        }
        drop(to_do);
        // Wait without the GIL (other Python threads run meanwhile); the
        // receiver goes to the waiting side and back, as it is not Sync.
        loop {
            let (receiver, next) = py.detach(move || {
                let next = finished.recv();
                (finished, next)
            });
            finished = receiver;
            let Ok((i, rows)) = next else { break };
            lists[i] = made(i, rows);
        }
    });
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
