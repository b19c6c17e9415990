//! HTML structure, as LangChain's HTMLHeaderTextSplitter cuts it: a new
//! chunk at every heading of the configured levels (`h1`..`h6`, the
//! `markdown.levels` setting, `--levels`), each chunk tagged with its heading
//! path. It reads the blocks that extraction found ([`Context::structure`]):
//! a section over `size` is packed from whole blocks, so a table or list
//! that fits stays in one chunk; only a block over `size` alone is cut (prose
//! with the recursive separators, tables, lists and `pre` between lines).
//!
//! Text without a structure map (plain text given to the library, a PDF)
//! has no headings: it is packed the same way from its paragraphs.

use super::markdown::next_levels;
use super::{sized, Context, OptionKnob, OverlapRule, SizeRule, Spec, Strategy, StrategyKind};
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::error::Result;
use crate::extract::BlockKind;
use crate::segment::{push_trimmed, trim_range, EachRange};
use crate::size::{ceil_char_boundary, floor_char_boundary, SizeIndex};
use crate::strategy::pack::{fresh_around, well_past, Packer, FRESH_SEARCH_BACK};
use crate::strategy::recursive::{self, Sep, Separators};
use std::ops::Range;

pub const SPEC: Spec = Spec {
    name: "html",
    help:
        "a chunk per HTML section at --levels headings (h1-h6), tagged with its heading path; tables, lists kept whole",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::Units,
    has_threshold: false,
    forces_unit: None,
    options: &["--levels", "--preset", "--separators", "--regex"],
    option: Some(OptionKnob { show: |c| format!("levels={:?}", c.markdown.levels), next: next_levels }),
    recut: None,
    formats: &[],
    build: |c| {
        let prose = Separators::from_options(&c.recursive, StrategyKind::Html)?;
        Ok(Box::new(Sections { prose, lines: Separators(vec![Sep::Line, Sep::Whitespace, Sep::Grapheme]) }))
    },
};

struct Sections {
    /// Cut oversize paragraphs and headings.
    prose: Separators,
    /// Cut oversize tables, lists and preformatted text: between lines first.
    lines: Separators,
}

impl Strategy for Sections {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        super::collect_each(self, text, cx)
    }

    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        let index = cx.sizer.index(text)?;
        let cut = Cut { text, index: &index, cfg: cx.config, seps: self };
        let Some(structure) = cx.structure.filter(|s| !s.blocks.is_empty()) else {
            // One section of paragraphs, read as they are packed: the first
            // chunks come before the last paragraph of megabytes is found.
            cut.section(paragraphs_span(text, 0..text.len()), paragraphs_in(text, 0..text.len()), &[], emit);
            return Ok(());
        };
        let levels = &cx.config.markdown.levels;
        // The open headings (level, title) and the path of the open section.
        let mut open: Vec<(u8, String)> = Vec::new();
        let mut path: Vec<String> = Vec::new();
        let mut section: Vec<(Range<usize>, BlockKind)> = Vec::new();
        let cut_section = |section: &[(Range<usize>, BlockKind)], path: &[String], emit: &mut dyn FnMut(Chunk)| {
            if let (Some(first), Some(last)) = (section.first(), section.last()) {
                cut.section(first.0.start..last.0.end, section.iter().cloned(), path, emit);
            }
        };
        for block in &structure.blocks {
            let (range, kind) = (block.range.clone(), block.kind);
            if let BlockKind::Heading(level) = kind {
                let starts = levels.contains(&level);
                if starts {
                    cut_section(&std::mem::take(&mut section), &path, emit);
                }
                open.retain(|(l, _)| *l < level);
                open.push((level, crate::chunk::label(&text[range.clone()], crate::chunk::MAX_LABEL_CHARS)));
                if starts {
                    path = open.iter().map(|(_, t)| t.clone()).collect();
                }
            }
            section.push((range, kind));
        }
        cut_section(&section, &path, emit);
        Ok(())
    }

    /// Text without a structure map is one section of paragraphs: cut
    /// between the oversize paragraphs around the screen, where the packing
    /// starts afresh. With one, heading paths run through the whole text.
    fn region_around(&self, text: &str, cx: &Context<'_>, screen: Range<usize>) -> Option<Range<usize>> {
        if cx.structure.is_some_and(|s| !s.blocks.is_empty()) {
            return None;
        }
        let from = floor_char_boundary(text, screen.start.saturating_sub(SEARCH));
        let to = ceil_char_boundary(text, screen.end.saturating_add(SEARCH));
        let mut pieces: Vec<Range<usize>> = paragraphs_in(text, from..to).map(|(r, _)| r).collect();
        // A paragraph at either end of the window may go on past it.
        if to < text.len() {
            pieces.pop();
        }
        if from > 0 && !pieces.is_empty() {
            pieces.remove(0);
        }
        let index = cx.size_index(text).ok()?;
        let oversize = |r: &Range<usize>| index.size(trim_range(text, r.clone())) > cx.config.size;
        fresh_around(&pieces, &screen, &oversize, (from == 0).then_some(0), (to == text.len()).then_some(to))
    }

    /// Text without a structure map: from the end of an oversize paragraph
    /// before the screen (searched further back) to a paragraph's end well
    /// past it (see [`Strategy::region_from`]).
    fn region_from(&self, text: &str, cx: &Context<'_>, screen: Range<usize>) -> Option<Range<usize>> {
        if cx.structure.is_some_and(|s| !s.blocks.is_empty()) {
            return None;
        }
        let from = floor_char_boundary(text, screen.start.saturating_sub(FRESH_SEARCH_BACK));
        let to = ceil_char_boundary(text, screen.end.saturating_add(SEARCH));
        // The first paragraph may have begun before the window: its tail is
        // over the size only when the paragraph is, and it ends where the
        // paragraph does. The last may go on past the window.
        let mut paragraphs: Vec<Range<usize>> = paragraphs_in(text, from..to).map(|(r, _)| r).collect();
        if to < text.len() {
            paragraphs.pop();
        }
        let index = cx.size_index(text).ok()?;
        let oversize = |r: &&Range<usize>| index.size(trim_range(text, (*r).clone())) > cx.config.size;
        let before = paragraphs.partition_point(|p| p.end <= screen.start);
        let start = paragraphs[..before].iter().rev().find(oversize).map(|p| p.end).or((from == 0).then_some(0))?;
        let ahead = well_past(screen.end, cx.config.size);
        let last = paragraphs.last().map(|p| p.end).filter(|&e| e >= screen.end);
        let end = paragraphs.iter().map(|p| p.end).find(|&e| e >= ahead).or(last)?;
        (start <= screen.start).then_some(start..end)
    }

    /// Text without a structure map: the paragraphs of each range packed
    /// as one section, measured with the whole text's index.
    fn chunk_within(&self, text: &str, ranges: &[Range<usize>], cx: &Context<'_>) -> Result<Vec<Vec<Chunk>>> {
        let index = cx.size_index(text)?;
        let cut = Cut { text, index: &index, cfg: cx.config, seps: self };
        let each = |r: &Range<usize>| {
            let mut chunks = Vec::new();
            cut.section(paragraphs_span(text, r.clone()), paragraphs_in(text, r.clone()), &[], &mut |c| chunks.push(c));
            chunks
        };
        Ok(ranges.iter().map(each).collect())
    }
}

/// Bytes searched on each side of the screen for an oversize paragraph.
const SEARCH: usize = 256 * 1024;

/// What every section is cut with.
struct Cut<'a, 't> {
    text: &'a str,
    index: &'a SizeIndex<'t>,
    cfg: &'a ChunkConfig,
    seps: &'a Sections,
}

impl Cut<'_, '_> {
    /// One chunk when the section (`whole`, from its first block's start to
    /// its last one's end) fits, else its blocks packed.
    fn section(
        &self,
        whole: Range<usize>,
        blocks: impl IntoIterator<Item = (Range<usize>, BlockKind)>,
        path: &[String],
        emit: &mut dyn FnMut(Chunk),
    ) {
        if whole.is_empty() {
            return;
        }
        let (text, index, cfg) = (self.text, self.index, self.cfg);
        let mut out = EachRange(|r: Range<usize>| {
            let mut c = sized(r, index);
            if !path.is_empty() {
                c.meta.headings = path.to_vec();
            }
            emit(c);
        });
        if index.size(whole.clone()) <= cfg.size {
            push_trimmed(text, whole, &mut out);
        } else {
            let mut packer = Packer::new(text, index, cfg.size, cfg.overlap);
            for (range, kind) in blocks {
                let seps = match kind {
                    BlockKind::Heading(_) | BlockKind::Paragraph => &self.seps.prose,
                    BlockKind::List | BlockKind::Table | BlockKind::Preformatted => &self.seps.lines,
                };
                packer.push(range.clone(), &mut out, &mut |piece, out| {
                    recursive::chunk_into(text, index, seps, cfg.size, cfg.overlap, piece, out)
                });
            }
            packer.finish(&mut out);
        }
    }
}

/// From the first non-blank line's start to the last one's end in `range`
/// of `text` (a range of whole lines): what [`paragraphs_in`] covers, found
/// without reading the lines between.
fn paragraphs_span(text: &str, range: Range<usize>) -> Range<usize> {
    let blank = |line: &&str| line.trim().is_empty();
    let lead: usize = text[range.clone()].split_inclusive('\n').take_while(blank).map(str::len).sum();
    let start = range.start + lead;
    if start == range.end {
        return start..start;
    }
    let mut end = range.end;
    for line in text[start..range.end].split_inclusive('\n').rev() {
        if !line.trim().is_empty() {
            break;
        }
        end -= line.len();
    }
    start..end
}

/// The paragraphs of `range` of `text` (a range of whole lines: the first
/// and last are partial otherwise), runs of non-blank lines, read one at a
/// time.
fn paragraphs_in(text: &str, range: Range<usize>) -> impl Iterator<Item = (Range<usize>, BlockKind)> + '_ {
    let mut start = range.start;
    let mut lines = text[range].split_inclusive('\n');
    std::iter::from_fn(move || {
        let mut open: Option<Range<usize>> = None;
        for line in lines.by_ref() {
            let line_range = start..start + line.len();
            start = line_range.end;
            if !line.trim().is_empty() {
                open = Some(open.map_or(line_range.clone(), |o| o.start..line_range.end));
            } else if open.is_some() {
                break;
            }
        }
        open.map(|r| (r, BlockKind::Paragraph))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::html::extract;
    use crate::size::Sizer;

    fn run(text: &str, structure: Option<&crate::extract::Structure>, size: usize) -> Vec<(String, Vec<String>)> {
        let cfg = ChunkConfig { strategy: StrategyKind::Html, size, overlap: 0, ..Default::default() };
        let sizer = Sizer::chars();
        let cx = Context {
            config: &cfg,
            sizer: &sizer,
            model: None,
            control: crate::embedding::Control::none(),
            structure,
            index: None,
        };
        let chunks = (SPEC.build)(&cfg).unwrap().chunk(text, &cx).unwrap();
        chunks.into_iter().map(|c| (text[c.range].to_string(), c.meta.into_inner().headings)).collect()
    }

    #[test]
    fn sections_at_headings_with_their_paths() {
        let html = "<h1>Guide</h1><p>Intro.</p><h2>Install</h2><p>Run it.</p><h3>Deep</h3><p>More.</p>\
                    <h2>Use</h2><p>Type.</p>";
        let ex = extract(html);
        let got = run(&ex.text, Some(&ex.structure), 1000);
        assert_eq!(got.len(), 4, "{got:?}");
        assert_eq!(got[1], ("Install\n\nRun it.".to_string(), vec!["Guide".to_string(), "Install".to_string()]));
        assert_eq!(got[2].1, ["Guide", "Install", "Deep"]);
        assert_eq!(got[3].1, ["Guide", "Use"]);
    }

    #[test]
    fn a_table_that_fits_is_never_cut_and_one_that_does_not_is_cut_between_rows() {
        let rows: String = (1..=4).map(|i| format!("<tr><td>row {i}</td><td>value {i}</td></tr>")).collect();
        let html =
            format!("<h2>T</h2><p>Some words before the table, enough of them.</p><table>{rows}</table><p>After.</p>");
        let ex = extract(&html);
        let table = "row 1 | value 1\nrow 2 | value 2\nrow 3 | value 3\nrow 4 | value 4";
        let got = run(&ex.text, Some(&ex.structure), 70);
        assert!(got.iter().any(|(t, _)| t == table), "{got:?}");
        let got = run(&ex.text, Some(&ex.structure), 40);
        assert!(got.iter().any(|(t, _)| t == "row 1 | value 1\nrow 2 | value 2"), "{got:?}");
    }

    #[test]
    fn plain_text_falls_back_to_paragraphs() {
        let text = "First paragraph here.\n\nSecond paragraph, a bit longer.\r\n\r\nThird.";
        let got = run(text, None, 45);
        let texts: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["First paragraph here.", "Second paragraph, a bit longer.\r\n\r\nThird."]);
        assert!(got.iter().all(|(_, h)| h.is_empty()));
    }
}
