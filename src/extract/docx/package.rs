//! The zip container of a `.docx`, read within limits: what is not a zip,
//! a damaged one, encrypted entries and zip bombs are refused with one line.
//!
//! Nothing the archive declares is trusted: the number of entries is checked
//! from the end-of-central-directory record before the zip crate builds its
//! index, and every part is inflated through a reader that stops one byte
//! past what is left of the budget (declared sizes are not believed).

use crate::error::{Error, Result};
use std::io::{Cursor, Read};
use zip::result::ZipError;
use zip::ZipArchive;

/// A `.docx` holds tens of entries (hundreds with many images); more than
/// this is not a Word document, or a zip made to exhaust memory.
pub const MAX_ENTRIES: u64 = 20_000;

/// The start of an OLE compound file: an old binary `.doc`, or a `.docx`
/// encrypted with a password (Office wraps those in one).
const OLE: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// An open `.docx` and how many more inflated bytes it may cost.
pub struct Package<'a> {
    zip: ZipArchive<Cursor<&'a [u8]>>,
    /// Inflated bytes still allowed, over all parts read.
    left: u64,
    limit: u64,
    name: &'a str,
}

impl<'a> Package<'a> {
    /// Open `bytes` as a `.docx` whose parts may inflate to `limit` bytes in
    /// all; `name` is used in messages.
    pub fn open(bytes: &'a [u8], name: &'a str, limit: u64) -> Result<Package<'a>> {
        if bytes.starts_with(OLE) {
            return Err(Error::input(format!(
                "{name} is a password-protected Word file or an old binary .doc (an OLE compound file, not a \
                 .docx zip): open it in Word or LibreOffice and save it as .docx without a password"
            )));
        }
        if !super::super::is_zip(bytes) {
            return Err(Error::input(format!(
                "{name} is not a Word .docx: a .docx is a zip archive and this does not start like one (another \
                 format renamed, or damaged); save it as .docx from Word or LibreOffice"
            )));
        }
        if let Some(n) = declared_entries(bytes) {
            if n > MAX_ENTRIES {
                return Err(Error::input(format!(
                    "{name} declares {n} zip entries (a .docx has tens, at most {MAX_ENTRIES} are read): it is \
                     not a Word document, or a zip bomb"
                )));
            }
        }
        let zip = ZipArchive::new(Cursor::new(bytes)).map_err(|e| damaged(name, &e))?;
        if zip.len() as u64 > MAX_ENTRIES {
            return Err(Error::input(format!(
                "{name} holds {} zip entries (a .docx has tens, at most {MAX_ENTRIES} are read): it is not a Word \
                 document, or a zip bomb",
                zip.len()
            )));
        }
        Ok(Package { zip, left: limit, limit, name })
    }

    /// The part at `path` (matched without regard to case, as OPC part names
    /// are), inflated; None when there is no such part.
    pub fn part(&mut self, path: &str) -> Result<Option<Vec<u8>>> {
        let index = match self.zip.index_for_name(path) {
            Some(i) => i,
            None => match self.zip.file_names().position(|n| n.eq_ignore_ascii_case(path)) {
                Some(i) => i,
                None => return Ok(None),
            },
        };
        let name = self.name;
        let file = match self.zip.by_index(index) {
            Ok(f) => f,
            Err(ZipError::UnsupportedArchive(ZipError::PASSWORD_REQUIRED)) => return Err(encrypted(name)),
            Err(e) => return Err(damaged(name, &e)),
        };
        if file.encrypted() {
            return Err(encrypted(name));
        }
        // The declared size only sizes the first allocation, never past 16 MiB.
        let mut out = Vec::with_capacity(file.size().min(self.left).min(16 << 20) as usize);
        file.take(self.left.saturating_add(1)).read_to_end(&mut out).map_err(|e| damaged(name, &e))?;
        let got = out.len() as u64;
        if got > self.left {
            return Err(Error::input(format!(
                "{name} inflates past {} MiB by its {path}: a zip bomb or an oversized document; split it, or \
                 raise the limit with --max-input-mb N",
                self.limit.div_ceil(1 << 20)
            )));
        }
        self.left -= got;
        Ok(Some(out))
    }

    /// The main document part's path: `word/document.xml`, or what the
    /// package relationships name as the office document.
    pub fn main_part(&mut self) -> Result<String> {
        const DEFAULT: &str = "word/document.xml";
        if self.zip.index_for_name(DEFAULT).is_some() {
            return Ok(DEFAULT.into());
        }
        let name = self.name;
        let missing = || {
            Error::input(format!(
                "{name} is a zip archive without word/document.xml: it is not a Word .docx (an .xlsx, .pptx, .odt \
                 or other zip?), or it is damaged"
            ))
        };
        let rels = match self.part("_rels/.rels")? {
            Some(r) => r,
            None => return Err(missing()),
        };
        let target = super::xml::office_document_target(&rels);
        match target {
            Some(t) if self.zip.index_for_name(&t).is_some() => Ok(t),
            _ => Err(missing()),
        }
    }
}

fn encrypted(name: &str) -> Error {
    Error::input(format!("{name} has encrypted zip entries: save it again from Word or LibreOffice without a password"))
}

fn damaged(name: &str, e: &dyn std::fmt::Display) -> Error {
    let what = e.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
    Error::input(format!(
        "{name} cannot be read as a .docx (damaged zip: {what}): it may be truncated; save it again from Word or \
         LibreOffice"
    ))
}

/// The number of entries the end-of-central-directory record (or its zip64
/// form) declares, when one is found.
fn declared_entries(bytes: &[u8]) -> Option<u64> {
    const EOCD: &[u8] = b"PK\x05\x06";
    // The record is 22 bytes plus a comment of at most 64 KiB, at the end.
    let from = bytes.len().saturating_sub(22 + 0xFFFF);
    let at = from + memchr::memmem::rfind(&bytes[from..], EOCD)?;
    let record = bytes.get(at..at + 22)?;
    let entries = u64::from(u16::from_le_bytes([record[10], record[11]]));
    if entries != 0xFFFF {
        return Some(entries);
    }
    // Zip64: a locator just before the record points at the zip64 record.
    let locator = bytes.get(at.checked_sub(20)?..at)?;
    if &locator[..4] != b"PK\x06\x07" {
        return Some(entries);
    }
    let offset = u64::from_le_bytes(locator[8..16].try_into().ok()?);
    let record = bytes.get(usize::try_from(offset).ok()?..)?;
    if record.len() < 56 || &record[..4] != b"PK\x06\x06" {
        return Some(entries);
    }
    Some(u64::from_le_bytes(record[32..40].try_into().ok()?))
}
