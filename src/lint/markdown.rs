//! The Markdown structure rules: split-fence, split-table, orphan-heading.
//! Blocks are found with a CommonMark parser (pulldown-cmark), at any depth:
//! a fence inside a list item counts, a `#` line inside a fence does not.

use super::{Finding, LevelCx, Rule};
use pulldown_cmark::{Event, Options, Parser, Tag};
use std::ops::Range;

/// The blocks the rules look at, each a byte range without trailing
/// whitespace, in text order.
#[derive(Debug, Default)]
pub struct Blocks {
    /// Code blocks, fenced or indented.
    pub code: Vec<Range<usize>>,
    pub tables: Vec<Range<usize>>,
    pub headings: Vec<Range<usize>>,
    /// Code, tables and HTML blocks: text that is not prose. Start events
    /// come in text order, and these never nest in each other.
    opaque: Vec<Range<usize>>,
}

impl Blocks {
    pub fn parse(text: &str) -> Blocks {
        let options = Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH;
        let mut b = Blocks::default();
        for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
            let Event::Start(tag) = event else { continue };
            let range = crate::segment::trim_range(text, range);
            if range.is_empty() {
                continue;
            }
            match tag {
                Tag::CodeBlock(_) => {
                    b.code.push(range.clone());
                    b.opaque.push(range);
                }
                Tag::Table(_) => {
                    b.tables.push(range.clone());
                    b.opaque.push(range);
                }
                Tag::HtmlBlock => b.opaque.push(range),
                Tag::Heading { .. } => b.headings.push(range),
                _ => {}
            }
        }
        b
    }

    /// Whether `p` lies strictly inside a code block, a table or an HTML block.
    pub fn opaque_at(&self, p: usize) -> bool {
        let j = self.opaque.partition_point(|r| r.start < p);
        j > 0 && p < self.opaque[j - 1].end
    }
}

/// **split-fence** / **split-table**: a chunk holds part of a code block
/// (fenced or indented) or of a table, not all of it, although the block
/// would fit in one chunk of its level's size (a strategy that cuts by
/// meaning, reading no size, is flagged for any split). Every chunk holding
/// a part is a finding, pointing where it starts or ends inside the block.
pub fn split_blocks(cx: &LevelCx<'_>, b: &Blocks, out: &mut Vec<Finding>) {
    for (rule, blocks, what) in [(Rule::SplitFence, &b.code, "code block"), (Rule::SplitTable, &b.tables, "table")] {
        if !cx.opts.enabled(rule) || blocks.is_empty() {
            continue;
        }
        // What each block measures, worked out once (a chunk per row of a
        // big table would otherwise measure the whole table again): None when
        // it cannot be whole in any chunk, else why the split is a finding
        // and the block's line count.
        let mut judged: Vec<Option<Option<(String, usize)>>> = vec![None; blocks.len()];
        for (i, _) in cx.iter() {
            let r = cx.trimmed(i);
            let first = blocks.partition_point(|bk| bk.end <= r.start);
            for (k, bk) in blocks.iter().enumerate().skip(first).take_while(|(_, bk)| bk.start < r.end) {
                let whole = r.start <= bk.start && bk.end <= r.end;
                if whole {
                    continue;
                }
                let verdict = judged[k].get_or_insert_with(|| {
                    let fits = if cx.sized() {
                        let size = block_size(cx, &cx.text[bk.clone()])?;
                        format!("it fits in one chunk ({size} of {} {})", cx.level.size, cx.opts.config.unit)
                    } else {
                        "the strategy reads no size".to_string()
                    };
                    Some((fits, cx.text[bk.clone()].lines().count()))
                });
                let Some((fits, lines)) = verdict else { continue };
                let (at, how) = if r.start > bk.start { (r.start, "starts") } else { (r.end, "ends") };
                let message = format!("{how} inside a {what} of {lines} lines; {fits}");
                out.push(Finding { rule, chunk: i, at, message: message.into() });
            }
        }
    }
}

/// A block's size in the config's unit when it is at most the level's size
/// (it could be whole in one chunk), else None. In chars a block of more
/// than four bytes per allowed char is over without counting.
fn block_size(cx: &LevelCx<'_>, block: &str) -> Option<usize> {
    if cx.opts.config.unit == crate::config::Unit::Chars && block.len() > cx.level.size.saturating_mul(4) {
        return None;
    }
    Some(cx.opts.sizer.size(block)).filter(|&n| n <= cx.level.size)
}

/// **orphan-heading**: a chunk's text (whitespace trimmed) ends with a whole
/// heading, and text follows it in the document: the heading is indexed
/// apart from the section it names (its words help neither chunk).
pub fn orphan_heading(cx: &LevelCx<'_>, b: &Blocks, out: &mut Vec<Finding>) {
    for (i, _) in cx.iter() {
        let r = cx.trimmed(i);
        let j = b.headings.partition_point(|h| h.end < r.end);
        let Some(h) = b.headings.get(j).filter(|h| h.end == r.end && h.start >= r.start) else { continue };
        if cx.text[r.end..].trim().is_empty() {
            continue;
        }
        let title: String =
            cx.text[h.clone()].lines().next().unwrap_or("").trim_matches(['#', ' ']).chars().take(40).collect();
        let message = format!("ends with the heading \"{title}\"; its text is in the next chunk");
        out.push(Finding { rule: Rule::OrphanHeading, chunk: i, at: h.start, message: message.into() });
    }
}
