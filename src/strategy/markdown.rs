//! Markdown structure: a new chunk at every heading of the configured levels,
//! each chunk tagged with its heading path (`["Guide", "Install"]`). A section
//! over `size` is packed from its blocks (paragraphs, lists, code fences,
//! tables); a block is only cut when it alone is over `size`: prose with the
//! recursive separators, fences and tables between lines. Headings inside
//! code fences are not headings.

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::segment::push_trimmed;
use crate::size::SizeIndex;
use crate::strategy::recursive::{self, pack, Sep, Separators};
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

fn lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut in_fence: Option<&str> = None;
    let mut start = 0;
    while start < text.len() {
        let end = memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |p| start + p + 1);
        let raw = &text[start..end];
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        let mut heading = None;
        let kind;
        if let Some(marker) = in_fence {
            kind = BlockKind::Fence;
            if trimmed.starts_with(marker) && trimmed.trim_start_matches(marker.chars().next().unwrap()).trim().is_empty() {
                in_fence = None;
            }
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = Some(&trimmed[..3]);
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
        out.push(Line { range: start..end, heading, kind, blank: line.trim().is_empty() });
        start = end;
    }
    out
}

pub fn chunk(text: &str, index: &SizeIndex, prose: &Separators, cfg: &ChunkConfig) -> Vec<Chunk> {
    let lines = lines(text);
    let mut chunks = Vec::new();
    let mut path: Vec<(u8, String)> = Vec::new();
    let mut section_start = 0; // line index
    let mut section_path: Vec<String> = Vec::new();
    let line_seps = Separators(vec![Sep::Line, Sep::Whitespace, Sep::Grapheme]);
    let flush = |from: usize, to: usize, headings: &[String], chunks: &mut Vec<Chunk>| {
        if from >= to {
            return;
        }
        let mut ranges = Vec::new();
        let section = lines[from].range.start..lines[to - 1].range.end;
        if index.size(section.clone()) <= cfg.size {
            push_trimmed(text, section, &mut ranges);
        } else {
            let blocks = blocks(&lines[from..to]);
            pack(text, index, &blocks.iter().map(|b| b.0.clone()).collect::<Vec<_>>(), cfg.size, cfg.overlap, &mut ranges, &mut |piece, out| {
                // Blocks are in order and the pieces handed back are whole blocks.
                let kind = blocks
                    .binary_search_by_key(&piece.start, |b| b.0.start)
                    .ok()
                    .filter(|&i| blocks[i].0 == piece)
                    .map_or(BlockKind::Prose, |i| blocks[i].1.clone());
                let seps = if kind == BlockKind::Prose { prose } else { &line_seps };
                out.extend(recursive::chunk(text, index, seps, cfg.size, cfg.overlap, piece));
            });
        }
        for r in ranges {
            let size = index.size(r.clone());
            let mut c = Chunk::new(r, size);
            c.meta.headings = headings.to_vec();
            chunks.push(c);
        }
    };
    for (i, line) in lines.iter().enumerate() {
        if let Some((level, title)) = &line.heading {
            if cfg.markdown.levels.contains(level) {
                flush(section_start, i, &section_path, &mut chunks);
                section_start = i;
            }
            path.retain(|(l, _)| l < level);
            path.push((*level, title.clone()));
            if cfg.markdown.levels.contains(level) {
                section_path = path.iter().map(|(_, t)| t.clone()).collect();
            }
        }
    }
    flush(section_start, lines.len(), &section_path, &mut chunks);
    chunks
}

/// Group a section's lines into blocks: runs of prose separated by blank
/// lines, whole fences, whole tables. Blank lines stay with the block before.
fn blocks(lines: &[Line]) -> Vec<(Range<usize>, BlockKind)> {
    let mut out: Vec<(Range<usize>, BlockKind)> = Vec::new();
    let mut prev_blank = false;
    for line in lines {
        let continues = match out.last() {
            None => false,
            Some(_) if line.blank => true,
            Some((_, kind)) => {
                *kind == line.kind && line.heading.is_none() && !(prev_blank && line.kind == BlockKind::Prose)
            }
        };
        if continues {
            out.last_mut().expect("continues implies a block").0.end = line.range.end;
        } else {
            out.push((line.range.clone(), line.kind.clone()));
        }
        prev_blank = line.blank;
    }
    out
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
