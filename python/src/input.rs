//! A text handed in from Python, borrowed without a copy: a `bytes`
//! object's buffer, or a `str`'s code points as CPython stores them (one,
//! two or four bytes each). Both are turned into UTF-8 later, on a worker
//! thread: bytes are checked, a `str` is transcoded. Encoding every `str` to
//! UTF-8 under the GIL (what `str.encode` does) was the part of
//! `chunk_many` that a second thread could not share on character units.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::string::PyStringData;
use pyo3::types::{PyBytes, PyString};
use std::borrow::Cow;

#[derive(Clone, Copy)]
pub enum Input<'a> {
    /// Meant to be UTF-8 (a `bytes` object's buffer); checked on use.
    Bytes(&'a [u8]),
    /// A `str` of code points below 256 (ASCII ones are UTF-8 already).
    Latin1(&'a [u8]),
    /// A `str` of code points below 65,536.
    Ucs2(&'a [u16]),
    /// A `str` with code points above U+FFFF.
    Ucs4(&'a [u32]),
}

impl<'a> Input<'a> {
    /// The text as UTF-8, borrowed where it already is (bytes, ASCII), or
    /// chunktui's input error naming the first bad byte or code point.
    pub fn to_utf8(self) -> chunktui::Result<Cow<'a, str>> {
        match self {
            // The fast check first; only a failed one is checked again to
            // find the bad byte.
            Input::Bytes(b) => simdutf8::basic::from_utf8(b).map(Cow::Borrowed).map_err(|_| {
                let bad = simdutf8::compat::from_utf8(b).map_or_else(|e| e.valid_up_to(), |_| b.len());
                chunktui::Error::input(format!(
                    "the text is not valid UTF-8 (byte {bad}): decode it to str first, or convert the file to UTF-8"
                ))
            }),
            Input::Latin1(b) => Ok(encoding_rs::mem::decode_latin1(b)),
            Input::Ucs2(units) => {
                // A surrogate in a two-byte str is one on its own: Python
                // keeps characters above U+FFFF in four-byte strs, never as
                // pairs, so even two adjacent ones have no UTF-8 form.
                let (len, surrogates) = utf8_len(units);
                if surrogates {
                    let at = units.iter().position(|&u| is_surrogate(u.into())).expect("a surrogate was seen");
                    return Err(surrogate(at, units[at].into()));
                }
                let mut utf8 = "\0".repeat(len);
                let (read, written) = encoding_rs::mem::convert_utf16_to_str_partial(units, &mut utf8);
                assert_eq!((read, written), (units.len(), len), "an exact-size buffer holds the whole text");
                Ok(Cow::Owned(utf8))
            }
            Input::Ucs4(points) => {
                let mut utf8 = String::with_capacity(utf8_len(points).0);
                for (at, &p) in points.iter().enumerate() {
                    utf8.push(char::from_u32(p).ok_or_else(|| surrogate(at, p))?);
                }
                Ok(Cow::Owned(utf8))
            }
        }
    }

    /// The same text, as `bytes` holding UTF-8 would have it.
    pub fn into_bytes(self) -> chunktui::Result<Cow<'a, [u8]>> {
        Ok(match self {
            Input::Bytes(b) => Cow::Borrowed(b),
            other => match other.to_utf8()? {
                Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
                Cow::Owned(s) => Cow::Owned(s.into_bytes()),
            },
        })
    }
}

/// The exact UTF-8 length of a str's code points, and whether any is a
/// surrogate, in one pass the compiler vectorises (blocks summed in `u32`).
/// Sized for the most a code point can take instead, the buffer's page
/// faults cost a third of the transcoding on English text.
fn utf8_len<T: Copy + Into<u32>>(points: &[T]) -> (usize, bool) {
    points.chunks(4096).fold((0, false), |(len, seen), block| {
        let bytes = |p: u32| 1 + u32::from(p >= 0x80) + u32::from(p >= 0x800) + u32::from(p >= 0x1_0000);
        let block_len: u32 = block.iter().map(|&p| bytes(p.into())).sum();
        let any = block.iter().fold(false, |any, &p| any | is_surrogate(p.into()));
        (len + block_len as usize, seen | any)
    })
}

fn is_surrogate(point: u32) -> bool {
    point & 0xFFFF_F800 == 0xD800
}

fn surrogate(at: usize, point: u32) -> chunktui::Error {
    chunktui::Error::input(format!(
        "the text holds a lone surrogate (U+{point:04X} at character {at}), which has no UTF-8 form: \
         a str decoded with errors=\"surrogateescape\" or \"surrogatepass\" must be repaired first"
    ))
}

/// `value` as an [`Input`] borrowed from it; `what` names it in errors.
pub fn borrow<'a>(value: &'a Bound<'_, PyAny>, what: &str) -> PyResult<Input<'a>> {
    if let Ok(s) = value.cast::<PyString>() {
        // SAFETY: `data` decodes the str's kind from a C bitfield as
        // little-endian targets lay it out (the tests compare every kind
        // with `str.encode`'s bytes). The slice borrows `value`, which holds
        // a reference to the str, and a str's buffer never changes once
        // made, so worker threads may read it while the GIL holder runs.
        #[allow(unsafe_code)]
        let data = unsafe { s.data() }.map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
        return Ok(match data {
            PyStringData::Ucs1(b) => Input::Latin1(b),
            PyStringData::Ucs2(u) => Input::Ucs2(u),
            PyStringData::Ucs4(u) => Input::Ucs4(u),
        });
    }
    if let Ok(b) = value.cast::<PyBytes>() {
        return Ok(Input::Bytes(b.as_bytes()));
    }
    Err(type_error(value, what))
}

/// The items of a list, tuple or any other iterable passed as `what`. One
/// `str` or `bytes` (an iterable of characters or ints) is refused, with
/// `instead`: what the caller meant.
pub fn items<'py>(value: &Bound<'py, PyAny>, what: &str, instead: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if value.is_instance_of::<PyString>() || value.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(format!("{what} is one {}: {instead}", kind(value))));
    }
    let iter = value.try_iter().map_err(|_| {
        PyTypeError::new_err(format!("{what} is {}: pass a list (or any iterable) of {what}", kind(value)))
    })?;
    iter.collect()
}

/// The `TypeError` of [`borrow`] for anything but `str` and `bytes`, found
/// before anything is read.
pub fn check_type(value: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
    if value.is_instance_of::<PyString>() || value.is_instance_of::<PyBytes>() {
        Ok(())
    } else {
        Err(type_error(value, what))
    }
}

fn type_error(value: &Bound<'_, PyAny>, what: &str) -> PyErr {
    PyTypeError::new_err(format!("{what} is {}: pass str, or bytes holding UTF-8", kind(value)))
}

fn kind(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string())
}
