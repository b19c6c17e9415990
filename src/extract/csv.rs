//! CSV and TSV input: the text is the file itself; loading finds its rows
//! with the `csv` crate (quoted fields may hold delimiters and line breaks:
//! such a row is still one record) and keeps the first row as the header.

use super::json::LineIndex;
use super::{Record, Structure};
use crate::error::{Error, Result};
use std::ops::Range;

/// The delimiter a file's name implies: a tab for `.tsv` / `.tab`, else a
/// comma.
pub fn delimiter_for(name: &str) -> u8 {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".tsv") || lower.ends_with(".tab") {
        b'\t'
    } else {
        b','
    }
}

/// The rows of `text`: the first is the header, the rest are the records.
/// Rows may have different numbers of fields (exports often do).
pub fn structure(text: &str, delimiter: u8, name: &str) -> Result<Structure> {
    let rows = rows(text, delimiter).map_err(|e| Error::input(format!("{name} could not be read as CSV: {e}")))?;
    let lines = LineIndex::new(text);
    let mut rows = rows.into_iter().map(|r| Record { line: lines.line(r.start), range: r });
    let header = rows.next().map(|r| r.range);
    let records: Vec<Record> = rows.collect();
    if records.is_empty() {
        return Err(Error::input(format!("{name} holds a header row and no data rows: there is nothing to chunk")));
    }
    Ok(Structure {
        records,
        record_kind: Some(super::RecordKind::CsvRows),
        header,
        delimiter: Some(delimiter),
        ..Structure::default()
    })
}

/// Each non-blank row's bytes, without its line break.
fn rows(text: &str, delimiter: u8) -> std::result::Result<Vec<Range<usize>>, csv::Error> {
    let mut reader = reader(text.as_bytes(), delimiter);
    let mut record = csv::ByteRecord::new();
    let mut out = Vec::new();
    loop {
        let start = reader.position().byte() as usize;
        if !reader.read_byte_record(&mut record)? {
            break;
        }
        // The reader's position sits before a row's line break, so a row
        // read from there opens with the last row's break (and blank lines);
        // a spreadsheet's export may open with a byte order mark.
        let end = reader.position().byte() as usize;
        let slice = &text[start..end];
        let lead = slice.len() - slice.trim_start_matches(['\n', '\r', '\u{feff}']).len();
        let row = slice[lead..].trim_end_matches(['\n', '\r']);
        if !row.trim().is_empty() {
            out.push(start + lead..start + lead + row.len());
        }
    }
    Ok(out)
}

fn reader(bytes: &[u8], delimiter: u8) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new().has_headers(false).flexible(true).delimiter(delimiter).from_reader(bytes)
}

/// The byte ranges of a row's fields (within `row`, its delimiters and
/// quotes included with the field they follow), for cutting a row too big
/// for one chunk between its fields.
pub fn field_ends(row: &str, delimiter: u8) -> Vec<usize> {
    // A row's fields end at the delimiters outside quotes.
    let mut ends = Vec::new();
    let mut quoted = false;
    for (i, b) in row.bytes().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b if b == delimiter && !quoted => ends.push(i + 1),
            _ => {}
        }
    }
    ends.push(row.len());
    ends.dedup();
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_line_breaks_stay_in_one_row() {
        let text = "id,name,notes\r\n1,茶,\"two\nlines, and a comma\"\r\n\r\n2,coffee,plain\n";
        let s = structure(text, b',', "x.csv").unwrap();
        assert_eq!(&text[s.header.clone().unwrap()], "id,name,notes");
        let rows: Vec<_> = s.records.iter().map(|r| (&text[r.range.clone()], r.line)).collect();
        assert_eq!(rows, [("1,茶,\"two\nlines, and a comma\"", 2), ("2,coffee,plain", 5)]);
    }

    #[test]
    fn a_byte_order_mark_is_not_in_the_header() {
        let text = "\u{feff}id;name\n1;tea\n";
        let s = structure(text, b';', "x.csv").unwrap();
        assert_eq!(&text[s.header.unwrap()], "id;name");
    }

    #[test]
    fn tabs_by_extension_and_fields_end_outside_quotes() {
        assert_eq!(delimiter_for("a.TSV"), b'\t');
        assert_eq!(delimiter_for("a.csv"), b',');
        let row = "1,\"a,b\",c";
        assert_eq!(field_ends(row, b','), [2, 8, 9]);
    }

    #[test]
    fn a_header_alone_is_nothing_to_chunk() {
        let err = structure("a,b\n", b',', "h.csv").unwrap_err().to_string();
        assert!(err.contains("no data rows"), "{err}");
    }
}
