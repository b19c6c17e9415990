//! Loading a document: refuse what cannot be chunked (empty, binary, invalid
//! UTF-8) with a message that says why and what to do, and classify the rest.
//! HTML, PDF and Word are extracted on the way in ([`crate::extract`]): the
//! document's text is then the extracted text, and its `structure` maps it
//! back to the source. JSON, JSONL and CSV are read as they are (chunks are
//! ranges of the file) and their `structure` lists the records.

use crate::error::{Error, Result};
use crate::extract::{self, Structure};
use crate::input::{Cap, Source};
use crate::size::CharIndex;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocKind {
    Markdown,
    Html,
    Code,
    Text,
    Pdf,
    /// Word (`.docx`), extracted.
    Docx,
    Json,
    /// JSON Lines: one JSON value per line.
    Jsonl,
    Csv,
    /// Tab-separated values.
    Tsv,
}

#[derive(Debug, Clone)]
pub struct Document {
    pub text: String,
    pub kind: DocKind,
    pub path: Option<PathBuf>,
    /// Invalid UTF-8 sequences replaced with U+FFFD (only with `lossy`).
    pub replaced_invalid_bytes: usize,
    /// HTML, PDF and Word: where the extracted `text` came from (elements,
    /// pages); JSON, JSONL and CSV: the records.
    pub structure: Option<Arc<Structure>>,
}

/// Documents larger than this are refused unless `--max-input-mb` raises
/// the limit: chunking them interactively is not useful and reading them
/// whole could exhaust memory.
pub const MAX_BYTES: u64 = crate::input::DOCUMENT_LIMIT;

impl Document {
    pub fn from_text(text: impl Into<String>, kind: DocKind) -> Self {
        Document { text: text.into(), kind, path: None, replaced_invalid_bytes: 0, structure: None }
    }

    /// Read a file. `lossy` replaces invalid UTF-8 instead of refusing it.
    /// Its kind comes from its extension (else from its content); HTML and
    /// PDF are extracted.
    /// A format set with [`set_format_in`] overrides the extension.
    pub fn load(path: &Path, lossy: bool) -> Result<Self> {
        let kind = format_in().or_else(|| DocKind::from_extension(path));
        let mut doc = Self::read_as(Source::Path(path), lossy, kind)?;
        doc.path = Some(path.to_path_buf());
        Ok(doc)
    }

    /// Read a file or standard input within the document limit
    /// ([`crate::input::Cap::document`]); a binary stream is refused after
    /// its first 8 KiB rather than read to the limit.
    pub fn read(src: Source<'_>, lossy: bool) -> Result<Self> {
        Self::read_as(src, lossy, format_in())
    }

    fn read_as(src: Source<'_>, lossy: bool, kind: Option<DocKind>) -> Result<Self> {
        let name = src.name();
        let bytes = crate::input::read_capped_checked(src, &Cap::document(), |head| refuse_binary(head, &name))?;
        Self::decode(bytes, &name, lossy, kind)
    }

    /// Check bytes from a file or stdin; `name` is used in messages. The
    /// kind is sniffed from the content; HTML and PDF are extracted.
    pub fn from_bytes(bytes: Vec<u8>, name: &str, lossy: bool) -> Result<Self> {
        Self::decode(bytes, name, lossy, None)
    }

    /// A file's contents and its name, as [`Document::load`] reads the file:
    /// the kind comes from the name's extension (else from the content), and
    /// HTML and PDF are extracted.
    pub fn from_named_bytes(bytes: Vec<u8>, name: &str, lossy: bool) -> Result<Self> {
        Self::decode(bytes, name, lossy, DocKind::from_extension(Path::new(name)))
    }

    /// [`Document::from_bytes`] of a known kind (None: sniff it).
    fn decode(bytes: Vec<u8>, name: &str, lossy: bool, kind: Option<DocKind>) -> Result<Self> {
        if bytes.is_empty() {
            return Err(Error::input(format!("{name} is empty: there is nothing to chunk")));
        }
        if extract::pdf::is_pdf(&bytes) {
            return Self::extracted(extract::pdf::extract(&bytes, name)?, DocKind::Pdf, name);
        }
        if kind == Some(DocKind::Pdf) {
            return Err(Error::input(format!(
                "{name} is named like a PDF but does not start with %PDF-: it is not a PDF (or it is damaged)"
            )));
        }
        if kind == Some(DocKind::Docx) || extract::is_zip(&bytes) || extract::is_ole(&bytes) {
            return Self::extracted(extract::docx_checked(&bytes, name)?, DocKind::Docx, name);
        }
        refuse_binary(&bytes, name)?;
        let (text, replaced) = match String::from_utf8(bytes) {
            Ok(text) => (text, 0),
            Err(err) => {
                let bytes = err.into_bytes();
                if !lossy {
                    let bad = std::str::from_utf8(&bytes).unwrap_err().valid_up_to();
                    let (line, col) = crate::input::line_col(&bytes[..bad]);
                    return Err(Error::input(format!(
                        "{name} is not valid UTF-8 (first bad byte at offset {bad}, line {line}, column {col}): \
                         convert it to UTF-8, or pass --lossy to replace bad bytes with U+FFFD"
                    )));
                }
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let replaced = text.matches('\u{FFFD}').count();
                (text, replaced)
            }
        };
        if text.trim().is_empty() {
            return Err(Error::input(format!("{name} holds only whitespace: there is nothing to chunk")));
        }
        let kind = kind.unwrap_or_else(|| DocKind::sniff(&text));
        let records = match kind {
            DocKind::Json => Some(extract::json::json_structure(&text, name)?),
            DocKind::Jsonl => Some(extract::json::jsonl_structure(&text, name)?),
            DocKind::Csv => Some(extract::csv::structure(&text, b',', name)?),
            DocKind::Tsv => Some(extract::csv::structure(&text, b'\t', name)?),
            _ => None,
        };
        if let Some(structure) = records {
            return Ok(Document {
                text,
                kind,
                path: None,
                replaced_invalid_bytes: replaced,
                structure: Some(Arc::new(structure)),
            });
        }
        if kind == DocKind::Html {
            let mut doc = Self::extracted(extract::html::extract_checked(&text, name)?, kind, name)?;
            doc.replaced_invalid_bytes = replaced;
            return Ok(doc);
        }
        Ok(Document { text, kind, path: None, replaced_invalid_bytes: replaced, structure: None })
    }

    fn extracted(ex: extract::Extracted, kind: DocKind, name: &str) -> Result<Self> {
        if ex.text.trim().is_empty() {
            return Err(Error::input(format!("{name} has no text outside its markup: there is nothing to chunk")));
        }
        Ok(Document {
            text: ex.text,
            kind,
            path: None,
            replaced_invalid_bytes: 0,
            structure: Some(Arc::new(ex.structure)),
        })
    }
}

/// The format every file is read as, whatever its extension (`--format-in`).
static FORMAT_IN: std::sync::RwLock<Option<DocKind>> = std::sync::RwLock::new(None);

/// Read every file loaded from now on as `kind` (None: by its extension,
/// else by its content): what `--format-in` sets for a run.
pub fn set_format_in(kind: Option<DocKind>) {
    *FORMAT_IN.write().unwrap_or_else(|e| e.into_inner()) = kind;
}

/// The format set with [`set_format_in`], if any.
pub fn format_in() -> Option<DocKind> {
    *FORMAT_IN.read().unwrap_or_else(|e| e.into_inner())
}

/// Binary input is refused from its first 8 KiB, the same bytes whether the
/// whole file is at hand or only the head of a stream.
fn refuse_binary(bytes: &[u8], name: &str) -> Result<()> {
    // A PDF or a Word file is binary, and read through its extractor.
    if extract::pdf::is_pdf(bytes) || extract::is_zip(bytes) || extract::is_ole(bytes) {
        return Ok(());
    }
    if let Some(msg) = utf16_message(bytes, name) {
        return Err(Error::input(msg));
    }
    if looks_binary(bytes) {
        return Err(Error::input(format!(
            "{name} looks like a binary file (it contains NUL bytes): chunktui reads UTF-8 text"
        )));
    }
    Ok(())
}

/// UTF-16 (a byte order mark, or NULs in every other byte of ASCII-heavy
/// text) is not binary: say how to convert it.
fn utf16_message(bytes: &[u8], name: &str) -> Option<String> {
    let head = &bytes[..bytes.len().min(8192) & !1];
    let encoding = match head {
        [0xff, 0xfe, 0, 0, ..] | [0, 0, 0xfe, 0xff, ..] => "UTF-32",
        [0xff, 0xfe, ..] | [0xfe, 0xff, ..] => "UTF-16",
        _ => {
            let pairs = head.len() / 2;
            let zeros = |parity: usize| head.iter().skip(parity).step_by(2).filter(|&&b| b == 0).count();
            let (even, odd) = (zeros(0), zeros(1));
            if pairs >= 8 && odd * 2 >= pairs && even * 20 <= odd {
                "UTF-16LE"
            } else if pairs >= 8 && even * 2 >= pairs && odd * 20 <= even {
                "UTF-16BE"
            } else {
                return None;
            }
        }
    };
    let path = Path::new(name);
    let q = |s: &str| {
        if s.chars().all(|c| c.is_alphanumeric() || "/._-+".contains(c)) {
            s.to_string()
        } else {
            format!("'{}'", s.replace('\'', r"'\''"))
        }
    };
    let fix = match path.file_stem() {
        Some(stem) if name != "standard input" => {
            let ext = path.extension().map_or(".md".to_string(), |e| format!(".{}", e.to_string_lossy()));
            let out = path.with_file_name(format!("{}.utf8{ext}", stem.to_string_lossy()));
            format!("convert it with `iconv -f {encoding} -t UTF-8 {} > {}`", q(name), q(&out.display().to_string()))
        }
        _ => format!("convert it on the way in: `iconv -f {encoding} -t UTF-8 FILE | chunktui chunk -`"),
    };
    Some(format!("{name} is {encoding} text, not UTF-8: {fix}"))
}

fn looks_binary(bytes: &[u8]) -> bool {
    memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some()
}

impl DocKind {
    pub fn from_path(path: &Path, text: &str) -> Self {
        Self::from_extension(path).unwrap_or_else(|| DocKind::sniff(text))
    }

    /// The kind `assets/languages.toml` gives the file's extension, if any.
    pub fn from_extension(path: &Path) -> Option<Self> {
        let ext = path.extension().and_then(|e| e.to_str())?;
        let name = crate::languages::kind(ext)?;
        Some(Self::ALL.into_iter().find(|k| k.name() == name).unwrap_or(DocKind::Text))
    }

    /// Its name for `--format-in` and messages.
    pub fn name(self) -> &'static str {
        match self {
            DocKind::Markdown => "markdown",
            DocKind::Html => "html",
            DocKind::Code => "code",
            DocKind::Text => "text",
            DocKind::Pdf => "pdf",
            DocKind::Docx => "docx",
            DocKind::Json => "json",
            DocKind::Jsonl => "jsonl",
            DocKind::Csv => "csv",
            DocKind::Tsv => "tsv",
        }
    }

    /// Every kind, for `--format-in`.
    pub const ALL: [DocKind; 10] = [
        DocKind::Markdown,
        DocKind::Html,
        DocKind::Code,
        DocKind::Text,
        DocKind::Pdf,
        DocKind::Docx,
        DocKind::Json,
        DocKind::Jsonl,
        DocKind::Csv,
        DocKind::Tsv,
    ];

    /// The kind `--format-in` names.
    pub fn parse(name: &str) -> Result<Self> {
        let lower = name.to_ascii_lowercase();
        let alias = match lower.as_str() {
            "md" => "markdown",
            "txt" => "text",
            "ndjson" => "jsonl",
            other => other,
        };
        Self::ALL.into_iter().find(|k| k.name() == alias).ok_or_else(|| {
            let names: Vec<_> = Self::ALL.iter().map(|k| k.name()).collect();
            Error::config(format!("--format-in '{name}': use one of {}", names.join(", ")))
        })
    }

    /// Record data: JSON, JSONL, CSV and TSV, whose records `document`
    /// keeps one to a chunk.
    pub fn is_records(self) -> bool {
        matches!(self, DocKind::Json | DocKind::Jsonl | DocKind::Csv | DocKind::Tsv)
    }

    fn sniff(text: &str) -> Self {
        let head = &text[..crate::size::floor_char_boundary(text, 4096)];
        if head.trim_start().starts_with('<') && head.contains("</") {
            DocKind::Html
        } else if head.lines().any(|l| l.starts_with("# ") || l.starts_with("## ") || l.starts_with("```")) {
            DocKind::Markdown
        } else {
            DocKind::Text
        }
    }

    /// The code language of a source file, by extension (for separator presets
    /// and syntax highlighting).
    pub fn language(path: &Path) -> Option<&'static str> {
        crate::languages::language(path.extension()?.to_str()?)
    }

    /// The tree-sitter grammar of a source file, by extension (for the
    /// `code` strategy's `--language`).
    pub fn grammar(path: &Path) -> Option<&'static str> {
        crate::languages::grammar(path.extension()?.to_str()?)
    }
}

/// Converts byte offsets to Unicode code-point offsets (what Python indexes with).
pub struct CharOffsets<'t>(CharIndex<'t>);

impl<'t> CharOffsets<'t> {
    pub fn new(text: &'t str) -> Self {
        CharOffsets(CharIndex::new(text))
    }
    pub fn at(&self, byte: usize) -> usize {
        self.0.chars_before(byte)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_languages_by_extension() {
        let kind = |name: &str| DocKind::from_path(Path::new(name), "plain words");
        assert_eq!(kind("a.MD"), DocKind::Markdown);
        assert_eq!(kind("a.xhtml"), DocKind::Html);
        assert_eq!(kind("a.json"), DocKind::Json);
        assert_eq!(kind("a.NDJSON"), DocKind::Jsonl);
        assert_eq!(kind("a.tsv"), DocKind::Tsv);
        assert_eq!(kind("a.docx"), DocKind::Docx);
        assert_eq!(kind("a.text"), DocKind::Text);
        assert_eq!(kind("a.mjs"), DocKind::Text, "sniffed: .mjs has a language but no kind");
        assert_eq!(DocKind::language(Path::new("x.TSX")), Some("javascript"));
        assert_eq!(DocKind::language(Path::new("x.hpp")), Some("c"));
        assert_eq!(DocKind::language(Path::new("x.toml")), None);
        assert_eq!(DocKind::language(Path::new("x.mdx")), None);
    }

    #[test]
    fn grammars_tell_typescript_and_cpp_apart() {
        assert_eq!(DocKind::grammar(Path::new("x.TS")), Some("typescript"));
        assert_eq!(DocKind::grammar(Path::new("x.tsx")), Some("tsx"));
        assert_eq!(DocKind::grammar(Path::new("x.hpp")), Some("cpp"));
        assert_eq!(DocKind::grammar(Path::new("x.kt")), None, "Kotlin is not Java");
        assert_eq!(DocKind::language(Path::new("x.kt")), Some("java"), "...but borrows its preset");
    }

    #[test]
    fn invalid_utf8_names_line_and_offers_lossy() {
        let err = Document::from_bytes(b"ok\nfine \xff bad".to_vec(), "x.txt", false).unwrap_err().to_string();
        assert!(err.contains("offset 8") && err.contains("line 2") && err.contains("--lossy"), "{err}");
        let doc = Document::from_bytes(b"ok\nfine \xff bad".to_vec(), "x.txt", true).unwrap();
        assert_eq!(doc.replaced_invalid_bytes, 1);
    }

    #[test]
    fn empty_and_binary_are_refused() {
        assert!(Document::from_bytes(vec![], "e", false).unwrap_err().to_string().contains("empty"));
        assert!(Document::from_bytes(b"\x00\x01abc".to_vec(), "b", false).unwrap_err().to_string().contains("binary"));
        assert!(Document::from_bytes(b" \n\t ".to_vec(), "w", false).unwrap_err().to_string().contains("whitespace"));
    }

    #[test]
    fn char_offsets_count_code_points() {
        let text = "a中b🦀c";
        let off = CharOffsets::new(text);
        assert_eq!(off.at(text.find('b').unwrap()), 2);
        assert_eq!(off.at(text.find('c').unwrap()), 4);
        assert_eq!(off.at(text.len()), 5);
    }
}
