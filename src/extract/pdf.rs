//! PDF to text, page by page, with pdf-extract (pure Rust, over lopdf).
//!
//! Pages are joined with a form feed on a line of its own (`"\n\x0c\n"`, the
//! page break `pdftotext` writes too), so the text shows where a page ends
//! while a paragraph that runs on to the next page stays one paragraph for
//! the splitters (a form feed is whitespace, not a blank line).
//! [`super::Structure::pages`] holds each page's bytes; the form feeds
//! belong to no page.
//!
//! What cannot be read is refused with one line that says what to do:
//! damaged or truncated files, encrypted files (an empty user password is
//! tried first, as viewers do), and files with no text layer (scanned or
//! image-only pages).

use super::Extracted;
use crate::error::{Error, Result};

/// The page separator of extracted PDF text.
pub const PAGE_BREAK: &str = "\n\x0c\n";

/// Does `bytes` start like a PDF? (`%PDF-` at the start; a leading byte
/// order mark or whitespace is tolerated, as readers do.)
pub fn is_pdf(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1024)];
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let start = head.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(head.len());
    head[start..].starts_with(b"%PDF-")
}

/// Join page texts with [`PAGE_BREAK`], recording each page's range. Each
/// page loses its leading and trailing blank space (pdf-extract starts
/// pages with line breaks).
pub fn join_pages(pages: &[String]) -> Extracted {
    let mut out = Extracted::default();
    for (i, page) in pages.iter().enumerate() {
        if i > 0 {
            out.text.push_str(PAGE_BREAK);
        }
        let start = out.text.len();
        out.text.push_str(page.trim_start_matches(['\n', '\r']).trim_end());
        out.structure.pages.push(start..out.text.len());
    }
    out
}

/// Extract the text of a PDF; `name` is used in messages.
#[cfg(feature = "pdf")]
pub fn extract(bytes: &[u8], name: &str) -> Result<Extracted> {
    let pages = read_pages(bytes, name)?;
    let out = join_pages(&pages);
    if out.text.trim().is_empty() {
        return Err(Error::input(format!(
            "{name} has no text layer ({} page(s) of images, probably scanned): run OCR on it first \
             (e.g. `ocrmypdf {name} out.pdf`) and chunk the result",
            pages.len()
        )));
    }
    Ok(out)
}

#[cfg(not(feature = "pdf"))]
pub fn extract(_bytes: &[u8], name: &str) -> Result<Extracted> {
    Err(Error::input(format!(
        "{name} is a PDF, and this build of chunktui has no PDF support: rebuild with the 'pdf' feature, or \
         convert it to text first (e.g. `pdftotext {name}`)"
    )))
}

/// The stack of the thread that reads a PDF: pdf-extract draws nested forms
/// by recursion; [`super::pdf_guard`] bounds the nesting, and this leaves
/// room for it whatever thread (a folder run's worker) asked.
#[cfg(feature = "pdf")]
const READER_STACK: usize = 64 << 20;

#[cfg(feature = "pdf")]
fn read_pages(bytes: &[u8], name: &str) -> Result<Vec<String>> {
    let cap = crate::input::Cap::document();
    let run = || read_pages_here(bytes, name, cap.bytes);
    std::thread::scope(|scope| {
        let reader = std::thread::Builder::new().name("pdf-reader".into()).stack_size(READER_STACK);
        match reader.spawn_scoped(scope, run) {
            Ok(handle) => handle.join().unwrap_or_else(|_| Err(damaged(name, "the reader gave up".into()))),
            // No thread to be had: read on this one.
            Err(_) => run(),
        }
    })
}

#[cfg(feature = "pdf")]
fn damaged(name: &str, what: String) -> Error {
    Error::input(format!(
        "{name} cannot be read as a PDF ({what}): it may be truncated or damaged; re-export or repair it \
         (e.g. `qpdf {name} repaired.pdf`)"
    ))
}

#[cfg(feature = "pdf")]
fn refused(name: &str, refusal: super::pdf_guard::Refusal) -> Error {
    use super::pdf_guard::Refusal;
    match refusal {
        Refusal::Damaged(what) => damaged(name, what),
        Refusal::TooBig(what) => Error::input(format!(
            "{name} is too big to read as a PDF ({what}): split it, or raise the limit with --max-input-mb N"
        )),
    }
}

#[cfg(feature = "pdf")]
fn read_pages_here(bytes: &[u8], name: &str, cap: u64) -> Result<Vec<String>> {
    use super::pdf_guard::{check_document, check_raw, Limits};
    use pdf_extract::{Document, Error as PdfError};
    let encrypted = || {
        Error::input(format!(
            "{name} is an encrypted PDF that needs a password: decrypt it first \
             (e.g. `qpdf --decrypt --password=PASSWORD {name} plain.pdf`)"
        ))
    };
    let limits = Limits::new(cap);
    // Streams lopdf inflates while loading, before it does.
    check_raw(bytes, limits).map_err(|r| refused(name, r))?;
    // lopdf decrypts with the empty user password while loading, when that works.
    let doc = match quiet_panics::catch(|| Document::load_mem(bytes)) {
        Ok(Ok(doc)) => doc,
        Ok(Err(PdfError::Decryption(_))) => return Err(encrypted()),
        Ok(Err(e)) => return Err(damaged(name, one_line(&e.to_string()))),
        Err(what) => return Err(damaged(name, what)),
    };
    if doc.is_encrypted() {
        return Err(encrypted());
    }
    let numbers: Vec<u32> = doc.get_pages().into_keys().collect();
    if numbers.is_empty() {
        return Err(damaged(name, "it has no pages".into()));
    }
    // Bombs, loops and absurd nesting, before pdf-extract meets them.
    check_document(&doc, limits, bytes.len() as u64).map_err(|r| refused(name, r))?;
    let mut pages = Vec::with_capacity(numbers.len());
    let mut text_bytes = 0u64;
    for number in numbers {
        let text =
            page_text(&doc, number).map_err(|what| damaged(name, format!("page {number}: {}", one_line(&what))))?;
        // The text is the document: the document limit holds for it too.
        text_bytes += text.len() as u64;
        if text_bytes > cap {
            return Err(Error::input(format!(
                "{name}'s text is over the {} MiB document limit (at page {number}): split it, or raise the \
                 limit with --max-input-mb N",
                cap.div_ceil(1 << 20)
            )));
        }
        pages.push(text);
    }
    Ok(pages)
}

/// One page's text. pdf-extract panics on some malformed input (it unwraps
/// what a well-formed file always has); such a panic is caught here and
/// becomes the damaged-file error, never a crash.
#[cfg(feature = "pdf")]
fn page_text(doc: &pdf_extract::Document, number: u32) -> std::result::Result<String, String> {
    let run = || {
        let mut text = String::new();
        let mut output = pdf_extract::PlainTextOutput::new(&mut text);
        pdf_extract::output_doc_page(doc, &mut output, number).map_err(|e| format!("{e:?}"))?;
        Ok(text)
    };
    quiet_panics::catch(run).and_then(std::convert::identity)
}

#[cfg(feature = "pdf")]
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Catch a panic of the PDF reader without the default hook printing it:
/// the caller reports it as one line. The hook is installed once and stays
/// silent only on a thread that is inside [`quiet_panics::catch`]; every
/// other panic goes to the hook that was there before.
#[cfg(feature = "pdf")]
mod quiet_panics {
    use std::cell::Cell;
    use std::sync::Once;

    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
    }

    pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if !QUIET.with(Cell::get) {
                    previous(info);
                }
            }));
        });
        QUIET.with(|q| q.set(true));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        QUIET.with(|q| q.set(false));
        result.map_err(|payload| {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unreadable content".into());
            format!("the reader gave up: {msg}")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdf_magic_is_recognised_with_a_bom_or_leading_space() {
        assert!(is_pdf(b"%PDF-1.7\n%..."));
        assert!(is_pdf(b"\xef\xbb\xbf  %PDF-1.4"));
        assert!(!is_pdf(b"# Notes about %PDF-1.7 files"));
        assert!(!is_pdf(b""));
    }

    #[test]
    fn pages_are_joined_with_form_feeds_and_keep_their_ranges() {
        let out = join_pages(&["\n\nOne.\n".into(), "Two\nlines. ".into(), "".into()]);
        assert_eq!(out.text, "One.\n\x0c\nTwo\nlines.\n\x0c\n");
        let p = &out.structure.pages;
        assert_eq!(&out.text[p[0].clone()], "One.");
        assert_eq!(&out.text[p[1].clone()], "Two\nlines.");
        assert!(p[2].is_empty(), "an image page is an empty range at its place");
    }
}
