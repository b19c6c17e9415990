//! CSV and TSV by rows: every chunk is whole rows, exact source ranges,
//! consecutive rows packed while they fit `size` together with the header
//! (the column names), which starts every chunk's embed text — a row alone
//! ("42,Blue,19.99") means little without them. A quoted field may hold line
//! breaks and delimiters: its row is still one row. A row over the size is
//! cut between its fields, and a field over it by the text rules.
//!
//! The header row itself is in no chunk: it is in every chunk's embed text
//! (and `meta.header`). `meta.rows` says which data rows a chunk holds.

use super::recursive::{self, Separators};
use super::{sized, Context, OverlapRule, SizeRule, Spec, Strategy, StrategyKind};
use crate::chunk::Chunk;
use crate::document::DocKind;
use crate::error::Result;
use crate::extract::{csv, RecordKind, Structure};
use crate::size::SizeIndex;
use std::ops::Range;

pub const SPEC: Spec = Spec {
    name: "rows",
    help: "CSV/TSV by rows: whole rows packed up to --size with the header, which starts each chunk's embed text",
    size: SizeRule::Limit,
    overlap: OverlapRule::None,
    formats: &[DocKind::Csv, DocKind::Tsv],
    options: &["--preset"],
    ..Spec::new(|c| Ok(Box::new(Rows { prose: Separators::from_options(&c.recursive, StrategyKind::Rows)? })))
};

struct Rows {
    /// Cut a field too big for a chunk alone.
    prose: Separators,
}

impl Strategy for Rows {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        super::collect_each(self, text, cx)
    }

    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        // Text given without its structure (the library's chunk of a string) is read as CSV.
        let own;
        let structure = match cx.structure.filter(|s| s.record_kind == Some(RecordKind::CsvRows)) {
            Some(s) => s,
            None => {
                own = csv::structure(text, b',', "the text")?;
                &own
            }
        };
        let index = cx.size_index(text)?;
        let header = structure.header.clone().map(|r| text[r].to_string());
        let header_size = header.as_deref().map_or(0, |h| cx.sizer.size(h) + 2);
        // The header and the rows share the size, unless the header alone
        // would leave the rows less than half of it.
        let budget = if header_size * 2 <= cx.config.size { cx.config.size - header_size } else { cx.config.size };
        let cut = Cut { text, index: &index, budget, header, seps: &self.prose, structure };
        cut.all(emit);
        Ok(())
    }
}

struct Cut<'a, 't> {
    text: &'a str,
    index: &'a SizeIndex<'t>,
    budget: usize,
    header: Option<String>,
    seps: &'a Separators,
    structure: &'a Structure,
}

impl Cut<'_, '_> {
    fn fits(&self, range: Range<usize>) -> bool {
        self.index.at_most(range.clone()) <= self.budget || self.index.size(range) <= self.budget
    }

    fn chunk(&self, range: Range<usize>, rows: [u32; 2]) -> Chunk {
        let mut c = sized(range, self.index);
        c.meta.header = self.header.clone();
        c.meta.rows = Some(rows);
        c
    }

    fn all(&self, emit: &mut dyn FnMut(Chunk)) {
        let records = &self.structure.records;
        let mut i = 0;
        while i < records.len() {
            let first = &records[i].range;
            let row = (i + 1) as u32;
            if !self.fits(first.clone()) {
                self.fields(first.clone(), row, emit);
                i += 1;
                continue;
            }
            let mut j = i + 1;
            while j < records.len() && self.fits(first.start..records[j].range.end) {
                j += 1;
            }
            emit(self.chunk(first.start..records[j - 1].range.end, [row, j as u32]));
            i = j;
        }
    }

    /// A row over the size: its fields packed, a field over it cut by the
    /// text rules.
    fn fields(&self, row: Range<usize>, number: u32, emit: &mut dyn FnMut(Chunk)) {
        let delimiter = self.structure.delimiter.unwrap_or(b',');
        let mut start = row.start;
        let mut open: Option<Range<usize>> = None;
        for end in csv::field_ends(&self.text[row.clone()], delimiter) {
            let field = start..row.start + end;
            start = field.end;
            match open.clone() {
                Some(o) if self.fits(o.start..field.end) => open = Some(o.start..field.end),
                _ => {
                    if let Some(o) = open.take() {
                        emit(self.chunk(o, [number, number]));
                    }
                    if self.fits(field.clone()) {
                        open = Some(field);
                    } else {
                        for piece in recursive::chunk(self.text, self.index, self.seps, self.budget, 0, field) {
                            emit(self.chunk(piece, [number, number]));
                        }
                    }
                }
            }
        }
        if let Some(o) = open {
            emit(self.chunk(o, [number, number]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ChunkConfig;
    use crate::embedding::Control;

    fn cut(text: &str, size: usize) -> Vec<(String, [u32; 2])> {
        let config = ChunkConfig { strategy: StrategyKind::Rows, size, overlap: 0, ..Default::default() };
        let chunks = crate::strategy::Configured::new(&config).unwrap().chunk(text, None, Control::none()).unwrap();
        assert!(chunks.iter().all(|c| c.meta.header.as_deref() == text.lines().next()));
        chunks.into_iter().map(|c| (text[c.range].to_string(), c.meta.rows.unwrap())).collect()
    }

    #[test]
    fn rows_are_packed_whole_under_the_header() {
        let text = "id,name\n1,tea\n2,\"green\ntea\"\n3,coffee\n";
        // Header "id,name" is 7 chars + 2: 22 leave 13 for rows.
        assert_eq!(
            cut(text, 22),
            [("1,tea".to_string(), [1, 1]), ("2,\"green\ntea\"".to_string(), [2, 2]), ("3,coffee".to_string(), [3, 3])]
        );
        assert_eq!(cut(text, 200), [("1,tea\n2,\"green\ntea\"\n3,coffee".to_string(), [1, 3])]);
    }

    #[test]
    fn a_row_over_the_size_is_cut_between_fields() {
        let text = "a,b,c\n1111,2222,3333\n";
        let got = cut(text, 17);
        assert_eq!(got, [("1111,2222,".to_string(), [1, 1]), ("3333".to_string(), [1, 1])]);
    }
}
