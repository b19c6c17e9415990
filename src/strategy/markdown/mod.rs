//! Markdown structure: a new chunk at every heading of the configured levels,
//! each chunk tagged with its heading path (`["Guide", "Install"]`). The text
//! is read with a CommonMark parser ([`blocks`]): setext headings (`Title`
//! over `===` or `---`, as many changelogs write them) count as well as
//! `#` ones, and a `#` line inside a code fence or an HTML block is text. A
//! section over `size` is packed from its blocks (paragraphs, lists, block
//! quotes, code, HTML, tables): a block is kept whole when it fits and only
//! cut when it alone is over `size`: prose with the recursive separators,
//! code, HTML and tables between lines.

mod blocks;

use super::{sized, Context, OptionKnob, OverlapRule, SizeRule, Spec, Strategy, StrategyKind};
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::error::Result;
use crate::segment::{push_trimmed, trim_range, EachRange};
use crate::size::SizeIndex;
use crate::strategy::pack::{fresh_around, Packer};
use crate::strategy::recursive::{self, Sep, Separators};
use blocks::{Block, Kind};
use std::ops::Range;

/// The blocks from a heading at one of the configured levels up to the next
/// one (the first section starts at the text's start), with the heading path
/// its chunks carry.
struct Section {
    /// Indices into [`Outline::blocks`].
    blocks: Range<usize>,
    path: Vec<String>,
}

/// A text's blocks and sections, read once and then cut whole or range by
/// range (the hierarchical strategy cuts each parent chunk on its own, with
/// the heading paths and fences of the whole text).
struct Outline {
    /// Read once per text and kept (the document cache): a change of size
    /// or levels on the same document re-cuts without parsing again.
    blocks: std::sync::Arc<Vec<Block>>,
    sections: Vec<Section>,
}

impl Outline {
    /// The text's outline at these levels, kept per text like its blocks:
    /// the workbench asks for it up to three times a key press (the stretch
    /// around the screen, its chunks, the whole cut).
    fn of(text: &str, levels: &[u8]) -> std::sync::Arc<Outline> {
        let build = || Ok(Outline::new(text, levels));
        crate::size::doc_cache::get_or_build(&format!("markdown outline {levels:?}"), text, build)
            .unwrap_or_else(|_| std::sync::Arc::new(Outline::new(text, levels)))
    }

    fn new(text: &str, levels: &[u8]) -> Self {
        let parse = || Ok(blocks::blocks(text));
        let blocks = crate::size::doc_cache::get_or_build("markdown blocks", text, parse)
            .unwrap_or_else(|_| std::sync::Arc::new(blocks::blocks(text)));
        let mut sections = Vec::new();
        // Every heading seen, by level; a section carries the path as it was
        // at its own heading (deeper headings inside it do not change it).
        let mut path: Vec<(u8, String)> = Vec::new();
        let mut section_path = Vec::new();
        let mut first = 0;
        for (i, block) in blocks.iter().enumerate() {
            let Kind::Heading(level, title) = &block.kind else { continue };
            let starts = levels.contains(level);
            if starts && i > first {
                sections.push(Section { blocks: first..i, path: std::mem::take(&mut section_path) });
                first = i;
            }
            path.retain(|(l, _)| l < level);
            path.push((*level, title.clone()));
            if starts {
                section_path = path.iter().map(|(_, t)| t.clone()).collect();
            }
        }
        if first < blocks.len() {
            sections.push(Section { blocks: first..blocks.len(), path: section_path });
        }
        Outline { blocks, sections }
    }

    /// The bytes of the sections that meet `screen`, each section cut on
    /// its own, so these are cut alike alone or with the rest. A long
    /// section (a novel without headings) is narrowed to the blocks between
    /// two blocks that are over the size (`oversize`) alone: after one, the
    /// packing starts afresh.
    fn sections_around(&self, screen: &Range<usize>, oversize: &dyn Fn(&Range<usize>) -> bool) -> Option<Range<usize>> {
        let ends_before = |s: &Section| self.blocks[s.blocks.end - 1].range.end <= screen.start;
        let first = self.sections.get(self.sections.partition_point(ends_before))?;
        let starts_before = |s: &Section| self.blocks[s.blocks.start].range.start < screen.end.max(screen.start + 1);
        let last = &self.sections[self.sections.partition_point(starts_before).saturating_sub(1)];
        let (start, end) = (self.blocks[first.blocks.start].range.start, self.blocks[last.blocks.end - 1].range.end);
        // Blocks looked at on each side: past this the section costs no
        // more than the search.
        const LOOK: usize = 4096;
        let near = |section: &Section, at: usize| {
            let blocks = &self.blocks[section.blocks.clone()];
            let i = blocks.partition_point(|b| b.range.end <= at);
            let near = &blocks[i.saturating_sub(LOOK)..(i + LOOK).min(blocks.len())];
            near.iter().map(|b| b.range.clone()).collect::<Vec<_>>()
        };
        let oversize = |r: &Range<usize>| oversize(r);
        let start = fresh_around(&near(first, screen.start), screen, &oversize, Some(start), Some(end))?.start;
        let end = fresh_around(&near(last, screen.end), screen, &oversize, Some(start), Some(end))?.end;
        (start < end).then_some(start..end)
    }

    /// The chunks of `range` of the text: the sections it meets, each
    /// clipped to it.
    fn chunk(&self, cut: &Cut<'_, '_>, range: Range<usize>) -> Vec<Chunk> {
        let mut chunks = Vec::new();
        self.chunk_each(cut, range, &mut |c| chunks.push(c));
        chunks
    }

    /// [`Outline::chunk`], each chunk handed to `emit` in order.
    fn chunk_each(&self, cut: &Cut<'_, '_>, range: Range<usize>, emit: &mut dyn FnMut(Chunk)) {
        let ends_before = |s: &Section| self.blocks[s.blocks.end - 1].range.end <= range.start;
        let first = self.sections.partition_point(ends_before);
        for section in &self.sections[first..] {
            if self.blocks[section.blocks.start].range.start >= range.end {
                break;
            }
            let clipped: Vec<(Range<usize>, bool)> = self.blocks[section.blocks.clone()]
                .iter()
                .map(|b| (b.range.start.max(range.start)..b.range.end.min(range.end), b.kind == Kind::Lines))
                .filter(|(r, _)| !r.is_empty())
                .collect();
            cut.section(&clipped, &section.path, emit);
        }
    }
}

/// What cutting a section needs.
struct Cut<'a, 't> {
    text: &'a str,
    index: &'a SizeIndex<'t>,
    prose: &'a Separators,
    lines: Separators,
    cfg: &'a ChunkConfig,
}

impl<'a, 't> Cut<'a, 't> {
    fn new(text: &'a str, index: &'a SizeIndex<'t>, prose: &'a Separators, cfg: &'a ChunkConfig) -> Self {
        let lines = Separators(vec![Sep::Line, Sep::Whitespace, Sep::Grapheme]);
        Cut { text, index, prose, lines, cfg }
    }

    /// A section within the size is one chunk; one over it is packed from
    /// its blocks (`true` = cut between lines), tagged with `path`.
    fn section(&self, blocks: &[(Range<usize>, bool)], path: &[String], emit: &mut dyn FnMut(Chunk)) {
        let (Some(first), Some(last)) = (blocks.first(), blocks.last()) else { return };
        let (text, index, size, overlap) = (self.text, self.index, self.cfg.size, self.cfg.overlap);
        let whole = first.0.start..last.0.end;
        let mut out = EachRange(|r: Range<usize>| {
            let mut c = sized(r, index);
            if !path.is_empty() {
                c.meta.headings = path.to_vec();
            }
            emit(c);
        });
        if index.size(trim_range(text, whole.clone())) <= size {
            push_trimmed(text, whole, &mut out);
        } else {
            let mut packer = Packer::new(text, index, size, overlap);
            for (range, lines) in blocks {
                let seps = if *lines { &self.lines } else { self.prose };
                packer.push(range.clone(), &mut out, &mut |piece, out| {
                    recursive::chunk_into(text, index, seps, size, overlap, piece, out)
                });
            }
            packer.finish(&mut out);
        }
    }
}

/// The chunks of each of `ranges` of `text` (the whole text: `[0..len]`).
pub fn chunk_ranges(
    text: &str,
    index: &SizeIndex<'_>,
    prose: &Separators,
    cfg: &ChunkConfig,
    ranges: &[Range<usize>],
) -> Vec<Vec<Chunk>> {
    let outline = Outline::of(text, &cfg.markdown.levels);
    let cut = Cut::new(text, index, prose, cfg);
    ranges.iter().map(|r| outline.chunk(&cut, r.clone())).collect()
}

/// The chunks of `text`.
pub fn chunk(text: &str, index: &SizeIndex<'_>, prose: &Separators, cfg: &ChunkConfig) -> Vec<Chunk> {
    chunk_ranges(text, index, prose, cfg, &[0..text.len()]).pop().unwrap_or_default()
}

pub const SPEC: Spec = Spec {
    name: "markdown",
    help: "a chunk per Markdown section at --levels headings, tagged with its heading path; big sections packed",
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
    build: |c| Ok(Box::new(Sections { prose: Separators::from_options(&c.recursive, StrategyKind::Markdown)? })),
};

/// The markdown strategy, with the separators that cut oversize prose.
struct Sections {
    prose: Separators,
}

impl Strategy for Sections {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        Ok(chunk(text, &cx.sizer.index(text)?, &self.prose, cx.config))
    }

    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        let index = cx.sizer.index(text)?;
        let outline = Outline::of(text, &cx.config.markdown.levels);
        outline.chunk_each(&Cut::new(text, &index, &self.prose, cx.config), 0..text.len(), emit);
        Ok(())
    }

    fn region_around(&self, text: &str, cx: &Context<'_>, screen: Range<usize>) -> Option<Range<usize>> {
        let index = cx.size_index(text).ok()?;
        let oversize = |r: &Range<usize>| index.size(trim_range(text, r.clone())) > cx.config.size;
        Outline::of(text, &cx.config.markdown.levels).sections_around(&screen, &oversize)
    }

    /// Parsed once for all ranges, so heading paths and fences are the
    /// whole text's, not what a slice would look like on its own.
    fn chunk_within(&self, text: &str, ranges: &[Range<usize>], cx: &Context<'_>) -> Result<Vec<Vec<Chunk>>> {
        Ok(chunk_ranges(text, &cx.size_index(text)?, &self.prose, cx.config, ranges))
    }
}

/// The `o` key of the heading strategies (markdown, html): the next set of levels.
pub(crate) fn next_levels(c: &mut ChunkConfig) -> String {
    let options: [&[u8]; 4] = [&[1, 2, 3], &[1, 2], &[1], &[1, 2, 3, 4, 5, 6]];
    let i = options.iter().position(|o| *o == c.markdown.levels.as_slice()).map_or(0, |i| (i + 1) % options.len());
    c.markdown.levels = options[i].to_vec();
    format!("heading levels {:?}", c.markdown.levels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::StrategyKind;
    use crate::size::Sizer;

    fn run(text: &str, size: usize) -> Vec<(String, Vec<String>)> {
        let cfg = ChunkConfig { strategy: StrategyKind::Markdown, size, overlap: 0, ..Default::default() };
        let idx = Sizer::chars().index(text).unwrap();
        let seps = Separators::preset("english").unwrap();
        chunk(text, &idx, &seps, &cfg)
            .into_iter()
            .map(|c| (text[c.range].to_string(), c.meta.into_inner().headings))
            .collect()
    }

    #[test]
    fn sections_carry_heading_paths() {
        let text = "# Guide\nIntro.\n## Install\nRun it.\n```sh\n# not a heading\n```\n## Use\nType.";
        let got = run(text, 1000);
        assert_eq!(got.len(), 3);
        assert_eq!(got[1].1, ["Guide", "Install"]);
        assert!(got[1].0.contains("# not a heading"));
        assert_eq!(got[2], ("## Use\nType.".to_string(), vec!["Guide".to_string(), "Use".to_string()]));
    }

    #[test]
    fn oversize_sections_never_cut_inside_a_fence_that_fits() {
        let fence = "```rust\nfn main() {\n    println!(\"hi\");\n}\n```";
        let text = format!("# T\nSome words here.\n\n{fence}\n\nMore words after the code block.");
        let got = run(&text, 60);
        assert!(got.iter().any(|(t, _)| t == fence), "{got:?}");
    }

    #[test]
    fn a_range_keeps_the_whole_texts_heading_paths_and_fences() {
        let text = "# Guide\nIntro.\n## Install\nRun it.\n```sh\n# not a heading\nmore\n```\n## Use\nType.";
        let cfg = ChunkConfig { strategy: StrategyKind::Markdown, size: 1000, overlap: 0, ..Default::default() };
        let idx = Sizer::chars().index(text).unwrap();
        let seps = Separators::preset("english").unwrap();
        // A range that starts inside the fence, where a slice parsed alone
        // would read `# not a heading` as a heading.
        let start = text.find("# not").unwrap();
        let got = chunk_ranges(text, &idx, &seps, &cfg, &[start..text.len() - 2]).pop().unwrap();
        let got: Vec<_> = got.into_iter().map(|c| (&text[c.range], c.meta.headings.join("/"))).collect();
        assert_eq!(
            got,
            [("# not a heading\nmore\n```", "Guide/Install".to_string()), ("## Use\nTyp", "Guide/Use".to_string())]
        );
    }
}
