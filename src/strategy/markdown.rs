//! Markdown structure: a new chunk at every heading of the configured levels,
//! each chunk tagged with its heading path (`["Guide", "Install"]`). A section
//! over `size` is packed from its blocks (paragraphs, lists, code fences,
//! tables); a block is only cut when it alone is over `size`: prose with the
//! recursive separators, fences and tables between lines. Headings inside
//! code fences are not headings.

use super::{Context, OptionKnob, OverlapRule, SizeRule, Spec, Strategy, StrategyKind};
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::error::Result;
use crate::segment::push_trimmed;
use crate::size::SizeIndex;
use crate::strategy::recursive::{self, Packer, Sep, Separators};
use std::ops::Range;

#[derive(Debug, Clone, PartialEq)]
enum BlockKind {
    Prose,
    Fence,
    Table,
}

#[derive(Debug)]
struct Line {
    range: Range<usize>,
    /// Heading level and title when this line is a heading outside fences.
    heading: Option<(u8, String)>,
    kind: BlockKind,
    blank: bool,
}

/// The lines of a text, with fences tracked, one at a time.
struct Lines<'t> {
    text: &'t str,
    start: usize,
    in_fence: Option<&'t str>,
}

fn lines(text: &str) -> Lines<'_> {
    Lines { text, start: 0, in_fence: None }
}

impl Iterator for Lines<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        let (text, start) = (self.text, self.start);
        if start >= text.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |p| start + p + 1);
        let raw = &text[start..end];
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        let mut heading = None;
        let kind;
        if let Some(marker) = self.in_fence {
            kind = BlockKind::Fence;
            if trimmed.starts_with(marker)
                && trimmed.trim_start_matches(marker.chars().next().unwrap()).trim().is_empty()
            {
                self.in_fence = None;
            }
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            self.in_fence = Some(&trimmed[..3]);
            kind = BlockKind::Fence;
        } else if trimmed.starts_with('|') {
            kind = BlockKind::Table;
        } else {
            kind = BlockKind::Prose;
            let hashes = line.bytes().take_while(|&b| b == b'#').count();
            if (1..=6).contains(&hashes) && (line.len() == hashes || line.as_bytes()[hashes] == b' ') {
                let title = line[hashes..].trim().trim_end_matches('#').trim().to_string();
                heading = Some((hashes as u8, title));
            }
        }
        self.start = end;
        Some(Line { range: start..end, heading, kind, blank: line.trim().is_empty() })
    }
}

/// What every section needs.
struct Ctx<'a, 't> {
    text: &'a str,
    index: &'a SizeIndex<'t>,
    prose: &'a Separators,
    lines: Separators,
    cfg: &'a ChunkConfig,
}

/// A section read line by line. Its lines are grouped into blocks as they
/// come: runs of prose separated by blank lines, whole fences, whole tables
/// (blank lines stay with the block before). A section within the size is one
/// chunk; one over it is packed from its blocks, which start going to the
/// packer as soon as the section is known to be over (so neither lines nor
/// blocks of a big section are all held at once).
struct Section<'c, 'a, 't> {
    ctx: &'c Ctx<'a, 't>,
    range: Option<Range<usize>>,
    /// The block being read.
    block: Option<(Range<usize>, BlockKind)>,
    prev_blank: bool,
    /// Complete blocks, while the section may still fit.
    held: Vec<(Range<usize>, BlockKind)>,
    /// Set once the section is over the size.
    packer: Option<Packer<'a, 't>>,
    out: Vec<Range<usize>>,
}

impl<'c, 'a, 't> Section<'c, 'a, 't> {
    fn new(ctx: &'c Ctx<'a, 't>) -> Self {
        Section { ctx, range: None, block: None, prev_blank: false, held: Vec::new(), packer: None, out: Vec::new() }
    }

    fn add(&mut self, line: &Line) {
        match &mut self.range {
            Some(r) => r.end = line.range.end,
            None => self.range = Some(line.range.clone()),
        }
        let continues = match &self.block {
            None => false,
            Some(_) if line.blank => true,
            Some((_, kind)) => {
                *kind == line.kind && line.heading.is_none() && !(self.prev_blank && line.kind == BlockKind::Prose)
            }
        };
        match &mut self.block {
            Some(b) if continues => b.0.end = line.range.end,
            _ => {
                if let Some(done) = self.block.replace((line.range.clone(), line.kind.clone())) {
                    self.complete(done);
                }
            }
        }
        self.prev_blank = line.blank;
    }

    fn complete(&mut self, block: (Range<usize>, BlockKind)) {
        if self.packer.is_none() {
            let start = self.range.as_ref().expect("a block is in the section").start;
            if self.ctx.index.size(start..block.0.end) <= self.ctx.cfg.size {
                self.held.push(block);
                return;
            }
            self.start_packing();
        }
        self.pack(block);
    }

    fn start_packing(&mut self) {
        let c = self.ctx;
        self.packer = Some(Packer::new(c.text, c.index, c.cfg.size, c.cfg.overlap));
        for block in std::mem::take(&mut self.held) {
            self.pack(block);
        }
    }

    fn pack(&mut self, (range, kind): (Range<usize>, BlockKind)) {
        let c = self.ctx;
        let seps = if kind == BlockKind::Prose { c.prose } else { &c.lines };
        let packer = self.packer.as_mut().expect("packing");
        packer.push(range, &mut self.out, &mut |piece, out| {
            out.extend(recursive::chunk(c.text, c.index, seps, c.cfg.size, c.cfg.overlap, piece))
        });
    }

    /// The section's chunks, tagged with `headings`.
    fn finish(mut self, headings: &[String], chunks: &mut Vec<Chunk>) {
        let Some(section) = self.range.clone() else { return };
        if let Some(block) = self.block.take() {
            self.complete(block);
        }
        if self.packer.is_none() {
            if self.ctx.index.size(section.clone()) <= self.ctx.cfg.size {
                push_trimmed(self.ctx.text, section, &mut self.out);
            } else {
                self.start_packing();
            }
        }
        if let Some(packer) = self.packer.take() {
            packer.finish(&mut self.out);
        }
        for r in self.out {
            let size = self.ctx.index.size(r.clone());
            let mut c = Chunk::new(r, size);
            c.meta.headings = headings.to_vec();
            chunks.push(c);
        }
    }
}

pub fn chunk(text: &str, index: &SizeIndex<'_>, prose: &Separators, cfg: &ChunkConfig) -> Vec<Chunk> {
    let ctx = Ctx { text, index, prose, lines: Separators(vec![Sep::Line, Sep::Whitespace, Sep::Grapheme]), cfg };
    let mut chunks = Vec::new();
    let mut path: Vec<(u8, String)> = Vec::new();
    let mut section = Section::new(&ctx);
    let mut section_path: Vec<String> = Vec::new();
    for line in lines(text) {
        if let Some((level, title)) = &line.heading {
            if cfg.markdown.levels.contains(level) {
                std::mem::replace(&mut section, Section::new(&ctx)).finish(&section_path, &mut chunks);
            }
            path.retain(|(l, _)| l < level);
            path.push((*level, title.clone()));
            if cfg.markdown.levels.contains(level) {
                section_path = path.iter().map(|(_, t)| t.clone()).collect();
            }
        }
        section.add(&line);
    }
    section.finish(&section_path, &mut chunks);
    chunks
}

pub const SPEC: Spec = Spec {
    name: "markdown",
    help: "a chunk per Markdown section at --levels headings, tagged with its heading path; big sections packed",
    needs_model: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::Units,
    has_threshold: false,
    forces_unit: None,
    options: &["--levels", "--preset", "--separators", "--regex"],
    option: Some(OptionKnob { show: |c| format!("levels={:?}", c.markdown.levels), next: next_levels }),
    recut: None,
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
        chunk(text, &idx, &seps, &cfg).into_iter().map(|c| (text[c.range].to_string(), c.meta.headings)).collect()
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
}
