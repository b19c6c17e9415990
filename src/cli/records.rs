//! `chunktui chunk`'s output, written one record at a time as chunks are
//! handed over: JSON Lines, a pretty JSON array (byte for byte what
//! serialising the whole list gives), the text view, or byte offsets alone.

use super::args::Format;
use crate::chunk::Chunk;
use crate::config::Unit;
use crate::document::CharOffsets;
use crate::export::{record, ChunkRecord};
use std::fmt::Write as _;
use std::io::{self, Write};

pub struct RecordWriter<'t> {
    format: Format,
    unit: Unit,
    text: &'t str,
    offsets: CharOffsets<'t>,
    written: usize,
}

impl<'t> RecordWriter<'t> {
    pub fn new(format: Format, unit: Unit, text: &'t str) -> Self {
        RecordWriter { format, unit, text, offsets: CharOffsets::new(text), written: 0 }
    }

    /// Write the next chunk (with late chunking's vector, if any).
    pub fn write(&mut self, out: &mut dyn Write, chunk: &Chunk, embedding: Option<&[f32]>) -> io::Result<()> {
        if self.format == Format::Offsets {
            self.written += 1;
            return writeln!(out, "{}\t{}", chunk.range.start, chunk.range.end);
        }
        let mut r = record(self.written, chunk, self.text, &self.offsets);
        r.embedding = embedding;
        match self.format {
            Format::Jsonl => {
                serde_json::to_writer(&mut *out, &r)?;
                out.write_all(b"\n")?;
            }
            Format::Json => {
                // An element of a pretty array: each line indented once more.
                out.write_all(if self.written == 0 { b"[\n" } else { b",\n" })?;
                let pretty = serde_json::to_vec_pretty(&r)?;
                for (i, line) in pretty.split(|&b| b == b'\n').enumerate() {
                    out.write_all(if i == 0 { b"  " } else { b"\n  " })?;
                    out.write_all(line)?;
                }
            }
            Format::Text => text_view(out, &r, self.unit)?,
            Format::Offsets => unreachable!("offsets are written above"),
        }
        self.written += 1;
        Ok(())
    }

    /// End the output (a JSON array's closing bracket).
    pub fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        match self.format {
            Format::Json if self.written == 0 => out.write_all(b"[]\n"),
            Format::Json => out.write_all(b"\n]\n"),
            _ => Ok(()),
        }
    }
}

fn text_view(out: &mut dyn Write, r: &ChunkRecord<'_>, unit: Unit) -> io::Result<()> {
    // Markdown headings, or the symbols around a piece of code; and PDF pages.
    let path = if r.meta.headings.is_empty() { &r.meta.symbols } else { &r.meta.headings };
    let mut heading = if path.is_empty() { String::new() } else { format!("  [{}]", path.join(" > ")) };
    if let Some([first, last]) = r.meta.pages {
        let pages = if first == last { format!("p. {first}") } else { format!("pp. {first}-{last}") };
        let _ = write!(heading, "  {pages}");
    }
    writeln!(out, "─── chunk {} · {} {unit} · bytes {}..{}{heading}", r.index, r.size, r.start, r.end)?;
    out.write_all(r.text.as_bytes())?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::ChunkMeta;

    #[test]
    fn offsets_are_start_and_end_bytes_a_line() {
        let text = "中文。Two.";
        let mut w = RecordWriter::new(Format::Offsets, Unit::Bytes, text);
        let mut out = Vec::new();
        for r in [0..9, 9..13] {
            w.write(&mut out, &Chunk::new(r.clone(), r.len()), None).unwrap();
        }
        w.finish(&mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "0\t9\n9\t13\n");
    }

    #[test]
    fn a_streamed_json_array_is_what_the_whole_list_serialises_to() {
        let text = "Ein Satz.\n\n中文。 \"quoted\"";
        let mut with_meta = Chunk::new(11..text.len(), 4);
        with_meta.meta = ChunkMeta { headings: vec!["A".into(), "B".into()], ..Default::default() }.into();
        for chunks in [vec![], vec![Chunk::new(0..9, 2)], vec![Chunk::new(0..9, 2), with_meta]] {
            let vector = [0.5f32, -1.0];
            let mut whole: Vec<_> = crate::export::records(&chunks, text).collect();
            whole.iter_mut().for_each(|r| r.embedding = Some(&vector));
            let expected = serde_json::to_string_pretty(&whole).unwrap() + "\n";
            let mut out = Vec::new();
            let mut w = RecordWriter::new(Format::Json, Unit::Chars, text);
            for c in &chunks {
                w.write(&mut out, c, Some(&vector)).unwrap();
            }
            w.finish(&mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), expected);
        }
    }
}
