//! The XML parts of a `.docx`, read as a stream of events (quick-xml) with
//! namespaces resolved, depth counted and capped, and every error one line.
//! No entity is expanded (quick-xml never does): a reference other than the
//! five XML ones and character references is malformed XML.

use crate::error::{Error, Result};
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::{Namespace, ResolveResult};
use quick_xml::{NsReader, XmlVersion};
use std::borrow::Cow;

/// Elements nested deeper than this: a damaged or machine-made part (Word's
/// own documents stay far below a hundred, tables in tables included).
pub const MAX_DEPTH: usize = 4_000;

/// The namespaces read; others are walked through without a meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ns {
    /// WordprocessingML (transitional or strict).
    W,
    /// Markup compatibility (`mc:AlternateContent`).
    Mc,
    /// Office Math (`m:t` holds an equation's text).
    M,
    Other,
}

fn ns_of(r: &ResolveResult<'_>) -> Ns {
    match r {
        ResolveResult::Bound(Namespace(uri)) => match *uri {
            b"http://schemas.openxmlformats.org/wordprocessingml/2006/main"
            | b"http://purl.oclc.org/ooxml/wordprocessingml/main" => Ns::W,
            b"http://schemas.openxmlformats.org/markup-compatibility/2006" => Ns::Mc,
            b"http://schemas.openxmlformats.org/officeDocument/2006/math"
            | b"http://purl.oclc.org/ooxml/officeDocument/math" => Ns::M,
            _ => Ns::Other,
        },
        _ => Ns::Other,
    }
}

/// One event of a part.
pub enum Ev<'i> {
    /// An element opens (its end comes as [`Ev::End`]).
    Start(Ns, BytesStart<'i>),
    /// An element without content (`<w:tab/>`).
    Empty(Ns, BytesStart<'i>),
    End,
    /// Character data, references resolved.
    Text(Cow<'i, str>),
    Eof,
}

/// A part being read.
pub struct Xml<'i> {
    r: NsReader<&'i [u8]>,
    depth: usize,
    part: &'i str,
    name: &'i str,
}

impl<'i> Xml<'i> {
    /// Read `bytes`, the part at `part` of the file `name` (both for messages).
    pub fn new(bytes: &'i [u8], part: &'i str, name: &'i str) -> Xml<'i> {
        let mut r = NsReader::from_reader(bytes);
        let c = r.config_mut();
        c.check_end_names = true;
        c.expand_empty_elements = false;
        c.trim_text(false);
        Xml { r, depth: 0, part, name }
    }

    /// How deep the element now open nests (the root is 1).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The next event that matters (declarations, comments and processing
    /// instructions are passed over).
    pub fn event(&mut self) -> Result<Ev<'i>> {
        loop {
            let (ns, event) = match self.r.read_resolved_event() {
                Ok((res, event)) => (ns_of(&res), event),
                Err(e) => return Err(self.malformed(&e)),
            };
            return Ok(match event {
                Event::Start(e) => {
                    self.depth += 1;
                    if self.depth > MAX_DEPTH {
                        return Err(Error::input(format!(
                            "{}: its {} nests XML elements more than {MAX_DEPTH} deep: the file is damaged or \
                             machine-made; save it again from Word or LibreOffice",
                            self.name, self.part
                        )));
                    }
                    Ev::Start(ns, e)
                }
                Event::Empty(e) => Ev::Empty(ns, e),
                Event::End(_) => {
                    self.depth = self.depth.saturating_sub(1);
                    Ev::End
                }
                Event::Text(t) => Ev::Text(t.xml10_content().map_err(|e| self.malformed(&e))?),
                Event::CData(t) => Ev::Text(t.decode().map_err(|e| self.malformed(&e))?),
                Event::GeneralRef(r) => {
                    if let Some(c) = r.resolve_char_ref().map_err(|e| self.malformed(&e))? {
                        Ev::Text(Cow::Owned(c.to_string()))
                    } else {
                        let name = r.decode().map_err(|e| self.malformed(&e))?;
                        let c = match name.as_ref() {
                            "amp" => "&",
                            "lt" => "<",
                            "gt" => ">",
                            "quot" => "\"",
                            "apos" => "'",
                            other => {
                                return Err(self.malformed(&format!("undeclared entity &{other};")));
                            }
                        };
                        Ev::Text(Cow::Borrowed(c))
                    }
                }
                Event::Eof => {
                    if self.depth > 0 {
                        return Err(self.malformed(&"it ends inside an element"));
                    }
                    Ev::Eof
                }
                Event::Decl(_) | Event::PI(_) | Event::DocType(_) | Event::Comment(_) => continue,
            });
        }
    }

    /// Pass over the content and end of the element `e` just opened.
    pub fn skip(&mut self, e: &BytesStart<'_>) -> Result<()> {
        match self.r.read_to_end(e.name()) {
            Ok(_) => {
                self.depth = self.depth.saturating_sub(1);
                Ok(())
            }
            Err(err) => Err(self.malformed(&err)),
        }
    }

    fn malformed(&self, e: &dyn std::fmt::Display) -> Error {
        let what = e.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
        Error::input(format!(
            "{}: its {} is not well-formed XML ({what}, near byte {}): the file is damaged; save it again from \
             Word or LibreOffice",
            self.name,
            self.part,
            self.r.buffer_position()
        ))
    }
}

/// The local name of an element.
pub fn local<'a>(e: &'a BytesStart<'_>) -> &'a [u8] {
    e.local_name().into_inner()
}

/// The value of the attribute with local name `key` (`w:val`, `w:styleId`).
pub fn attr(e: &BytesStart<'_>, key: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == key)
        .and_then(|a| a.normalized_value(XmlVersion::Implicit1_0).ok().map(Cow::into_owned))
}

/// `w:val` as a number.
pub fn val_num<T: std::str::FromStr>(e: &BytesStart<'_>) -> Option<T> {
    attr(e, b"val").and_then(|v| v.trim().parse().ok())
}

/// The target of the package's office-document relationship
/// (`_rels/.rels`), as a part name without a leading slash.
pub fn office_document_target(rels: &[u8]) -> Option<String> {
    let mut r = NsReader::from_reader(rels);
    loop {
        match r.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) if e.local_name().as_ref() == b"Relationship" => {
                let is_main = attr(&e, b"Type").is_some_and(|t| t.ends_with("/officeDocument"));
                if is_main {
                    return attr(&e, b"Target").map(|t| t.trim_start_matches('/').to_string());
                }
            }
            Ok(Event::Eof) | Err(_) => return None,
            _ => {}
        }
    }
}
