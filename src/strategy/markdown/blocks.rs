//! The top-level blocks of a Markdown text, read with a CommonMark parser
//! (pulldown-cmark): headings of both kinds (ATX `## Title` and setext
//! `Title` underlined with `===` / `---`), paragraphs, lists, block quotes,
//! code (fenced or indented), HTML blocks and tables. What looks like a
//! heading inside a fence or an HTML block is text of that block, as
//! CommonMark says.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use std::ops::Range;

/// How a block is cut when it alone is over the size.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A heading: its level (1 = `#` or `===`) and its text, inline markup
    /// (`code`, *emphasis*, [links](url)) reduced to the words shown.
    Heading(u8, String),
    /// Paragraphs, lists, block quotes, rules, footnotes: the prose separators.
    Prose,
    /// Code blocks, HTML blocks and tables: between lines, where a cut
    /// leaves every line whole.
    Lines,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub range: Range<usize>,
    pub kind: Kind,
}

/// The blocks of `text`, in order, partitioning `0..text.len()`: each runs
/// from where the parser starts it to where the next one starts, so the blank
/// lines after a block stay with it, and so do link reference definitions
/// (`[id]: url`), which CommonMark turns into no block at all. Text before
/// the first block joins the first block.
pub fn blocks(text: &str) -> Vec<Block> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH;
    let mut out: Vec<Block> = Vec::new();
    let mut depth = 0usize;
    // The title of the heading being read, if one is open.
    let mut title: Option<String> = None;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let kind = match &tag {
                        Tag::Heading { level, .. } => {
                            title = Some(String::new());
                            Kind::Heading(*level as u8, String::new())
                        }
                        Tag::CodeBlock(_) | Tag::HtmlBlock | Tag::Table(_) => Kind::Lines,
                        _ => Kind::Prose,
                    };
                    out.push(Block { range, kind });
                }
                depth += 1;
            }
            Event::End(end) => {
                depth = depth.saturating_sub(1);
                if depth == 0 && matches!(end, TagEnd::Heading(_)) {
                    if let (Some(t), Some(Block { kind: Kind::Heading(_, slot), .. })) = (title.take(), out.last_mut())
                    {
                        *slot = crate::chunk::label(&t, crate::chunk::MAX_LABEL_CHARS);
                    }
                }
            }
            Event::Text(s) | Event::Code(s) => {
                // What the label can hold, whitespace and all: a heading
                // line of megabytes is not copied whole.
                if let Some(t) = title.as_mut().filter(|t| t.len() < 64 * crate::chunk::MAX_LABEL_CHARS) {
                    t.push_str(&s);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(t) = &mut title {
                    t.push(' ');
                }
            }
            // A thematic break (`---`, `***`) is a block of its own with no end event.
            Event::Rule if depth == 0 => out.push(Block { range, kind: Kind::Prose }),
            _ => {}
        }
    }
    // Make the blocks a partition of the text.
    if out.is_empty() {
        if !text.is_empty() {
            out.push(Block { range: 0..text.len(), kind: Kind::Prose });
        }
        return out;
    }
    out[0].range.start = 0;
    for i in 1..out.len() {
        let next = out[i].range.start;
        out[i - 1].range.end = next;
    }
    let last = out.len() - 1;
    out[last].range.end = text.len();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, &str)> {
        blocks(text).into_iter().map(|b| (b.kind, &text[b.range])).collect()
    }

    #[test]
    fn setext_and_atx_headings_with_plain_titles() {
        let text = "Changelog\n=========\n\n1.2.0 — `fast` path\n-------------------\n\n### *Fixed*\nA bug.\n";
        let got = kinds(text);
        assert_eq!(got[0].0, Kind::Heading(1, "Changelog".into()));
        assert_eq!(got[1].0, Kind::Heading(2, "1.2.0 — fast path".into()));
        assert_eq!(got[2].0, Kind::Heading(3, "Fixed".into()));
        assert_eq!(got[3], (Kind::Prose, "A bug.\n"));
    }

    #[test]
    fn headings_inside_fences_and_html_blocks_are_text() {
        let text = "```\n# not a heading\n```\n\n<div>\n# not one either\n</div>\n\n    # indented code\n";
        let got = kinds(text);
        assert!(got.iter().all(|(k, _)| *k == Kind::Lines), "{got:?}");
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn blocks_partition_the_text() {
        let text = "\n\n[ref]: https://example.com\n\nPara one\nstill one.\n\n- a\n- b\n\n> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
        let got = blocks(text);
        assert_eq!(got.first().unwrap().range.start, 0);
        assert_eq!(got.last().unwrap().range.end, text.len());
        for w in got.windows(2) {
            assert_eq!(w[0].range.end, w[1].range.start);
        }
        let kinds: Vec<_> = got.iter().map(|b| b.kind.clone()).collect();
        assert_eq!(kinds, [Kind::Prose, Kind::Prose, Kind::Prose, Kind::Lines]);
        assert!(blocks("").is_empty());
        assert_eq!(blocks("[x]: /only-a-definition\n").len(), 1);
    }
}
