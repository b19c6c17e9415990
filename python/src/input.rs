//! A text handed in from Python, borrowed without a copy: a `str`'s UTF-8
//! form (which CPython keeps with the string once asked for it), or a
//! `bytes` object's buffer, checked for UTF-8 later on a worker thread.
//! Copying every document into Rust under the GIL was the largest serial
//! part of `chunk_many` on character units.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

#[derive(Clone, Copy)]
pub enum Input<'a> {
    Str(&'a str),
    Bytes(&'a [u8]),
}

impl<'a> Input<'a> {
    /// The text, or chunktui's input error naming the first bad byte.
    pub fn as_str(self) -> chunktui::Result<&'a str> {
        match self {
            Input::Str(s) => Ok(s),
            // The fast check first; only a failed one is checked again to
            // find the bad byte.
            Input::Bytes(b) => simdutf8::basic::from_utf8(b).map_err(|_| {
                let bad = simdutf8::compat::from_utf8(b).map_or_else(|e| e.valid_up_to(), |_| b.len());
                chunktui::Error::input(format!(
                    "the text is not valid UTF-8 (byte {bad}): decode it to str first, or convert the file to UTF-8"
                ))
            }),
        }
    }
}

/// `value` as an [`Input`] borrowed from it; `what` names it in errors.
/// A `str` that is not ASCII is encoded to UTF-8 here, under the GIL, once
/// (CPython keeps the encoded form with the string).
pub fn borrow<'a>(value: &'a Bound<'_, PyAny>, what: &str) -> PyResult<Input<'a>> {
    if let Ok(s) = value.cast::<PyString>() {
        return s.to_str().map(Input::Str).map_err(|e| PyValueError::new_err(format!("{what}: {e}")));
    }
    if let Ok(b) = value.cast::<PyBytes>() {
        return Ok(Input::Bytes(b.as_bytes()));
    }
    Err(type_error(value, what))
}

/// The `TypeError` of [`borrow`] for anything but `str` and `bytes`, found
/// without encoding anything.
pub fn check_type(value: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
    if value.is_instance_of::<PyString>() || value.is_instance_of::<PyBytes>() {
        Ok(())
    } else {
        Err(type_error(value, what))
    }
}

fn type_error(value: &Bound<'_, PyAny>, what: &str) -> PyErr {
    let kind = value.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
    PyTypeError::new_err(format!("{what} is {kind}: pass str, or bytes holding UTF-8"))
}
