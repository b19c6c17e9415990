//! The candidate pieces an LLM strategy numbers for the model: sentences,
//! with paragraph starts and headings marked, and the windows of pieces that
//! fit the model's context.

use crate::segment::{for_each_sentence, trim_range};
use std::ops::Range;

/// One numbered candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub range: Range<usize>,
    /// Starts a paragraph (after a blank line, or the text's start).
    pub paragraph: bool,
    /// A Markdown heading line (`# ...`) or a setext-underlined line.
    pub heading: bool,
}

/// The pieces of `text`, in order: paragraphs (split at blank lines), heading
/// lines on their own, the rest cut into sentences (CJK-aware).
pub fn pieces(text: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    for para in paragraphs(text) {
        if is_fenced(&text[para.clone()]) {
            let r = trim_range(text, para);
            out.push(Piece { range: r, paragraph: true, heading: false });
            continue;
        }
        let mut first = true;
        let mut rest_start = para.start;
        let mut line_start = para.start;
        for line in text[para.clone()].split_inclusive('\n') {
            let line_range = line_start..line_start + line.len();
            line_start += line.len();
            let t = line.trim();
            let setext = !t.is_empty() && t.chars().all(|c| c == '=' || c == '-') && t.len() >= 3;
            if t.starts_with('#') || setext {
                // The text before the heading, then the heading line itself.
                sentences(text, rest_start..line_range.start, &mut first, &mut out);
                let r = trim_range(text, line_range.clone());
                if setext && !out.is_empty() && !first {
                    // The underline belongs to the line above, which is the heading.
                    if let Some(last) = out.last_mut() {
                        last.heading = true;
                        last.range.end = r.end;
                    }
                } else if !r.is_empty() {
                    out.push(Piece { range: r, paragraph: first, heading: true });
                    first = false;
                }
                rest_start = line_range.end;
            }
        }
        sentences(text, rest_start..para.end, &mut first, &mut out);
    }
    out
}

fn sentences(text: &str, range: Range<usize>, first: &mut bool, out: &mut Vec<Piece>) {
    if range.is_empty() {
        return;
    }
    for_each_sentence(text, range, |r| {
        out.push(Piece { range: r, paragraph: *first, heading: false });
        *first = false;
    });
}

/// Paragraph ranges: text between blank lines; a fenced code block (backticks or
/// tildes) is one paragraph, blank lines inside it included.
fn paragraphs(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut at = 0;
    let mut fence: Option<&str> = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| t.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => {
                // The text before the fence is a paragraph of its own.
                if at > start {
                    out.push(start..at);
                }
                start = at;
                fence = Some(m);
            }
            (Some(f), Some(m)) if f == m => {
                fence = None;
                at += line.len();
                out.push(start..at);
                start = at;
                continue;
            }
            _ => {}
        }
        let blank = line.trim().is_empty() && fence.is_none();
        if blank {
            if at > start {
                out.push(start..at);
            }
            start = at + line.len();
        }
        at += line.len();
    }
    if at > start {
        out.push(start..at);
    }
    out
}

/// Whether a paragraph is a fenced code block: one piece, never cut into sentences.
fn is_fenced(para: &str) -> bool {
    let t = para.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// How a piece is shown to the model: its number, its marks and its text on
/// one line, long pieces shortened in the middle (the model only needs the
/// gist to place boundaries).
pub fn shown(text: &str, number: usize, piece: &Piece, max_chars: usize) -> String {
    let mark = if piece.heading {
        "# "
    } else if piece.paragraph {
        "¶ "
    } else {
        ""
    };
    let body: String = text[piece.range.clone()].split_whitespace().collect::<Vec<_>>().join(" ");
    let count = body.chars().count();
    let body = if count > max_chars {
        let head: String = body.chars().take(max_chars * 2 / 3).collect();
        let tail: String = body.chars().skip(count - max_chars / 3).collect();
        format!("{head} … {tail}")
    } else {
        body
    };
    format!("[{number}] {mark}{body}")
}

/// A rough token count for budgeting a window: a token per three bytes
/// (English runs about four bytes a token, CJK about three).
pub fn rough_tokens(s: &str) -> usize {
    s.len() / 3 + 1
}

/// Windows of consecutive pieces whose shown lines fit `budget` tokens,
/// neighbours sharing `overlap` pieces; each window also names the pieces it
/// decides (the overlap is split between the two windows at its middle).
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// Pieces shown.
    pub shown: Range<usize>,
    /// Pieces whose "starts a chunk" this window decides.
    pub decides: Range<usize>,
}

pub fn windows(costs: &[usize], budget: usize, overlap: usize) -> Vec<Window> {
    let n = costs.len();
    let mut spans = Vec::new();
    let mut start = 0;
    while start < n {
        let mut end = start;
        let mut used = 0;
        while end < n && (end == start || used + costs[end] <= budget) {
            used += costs[end];
            end += 1;
        }
        spans.push(start..end);
        if end == n {
            break;
        }
        // Step back by the overlap, always moving forward by at least one.
        let ov = overlap.min((end - start) / 2);
        start = (end - ov).max(start + 1);
    }
    let mut out: Vec<Window> = Vec::with_capacity(spans.len());
    for (i, s) in spans.iter().enumerate() {
        let from = if i == 0 { s.start } else { (spans[i - 1].end + s.start).div_ceil(2) };
        let to = match spans.get(i + 1) {
            Some(next) => (s.end + next.start).div_ceil(2),
            None => s.end,
        };
        out.push(Window { shown: s.clone(), decides: from..to });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_mark_paragraphs_and_headings() {
        let text = "# Title\n\nFirst one. Second one.\n\nSetext\n======\nBody here.\n";
        let p = pieces(text);
        let shown: Vec<(&str, bool, bool)> =
            p.iter().map(|p| (&text[p.range.clone()], p.paragraph, p.heading)).collect();
        assert_eq!(
            shown,
            vec![
                ("# Title", true, true),
                ("First one.", true, false),
                ("Second one.", false, false),
                ("Setext\n======", true, true),
                ("Body here.", false, false),
            ]
        );
    }

    #[test]
    fn a_fenced_block_is_one_piece() {
        let text = "Intro.\n\n```rust\nfn a() {}\n\n# not a heading\nfn b() {}\n```\nAfter. More.\n";
        let p = pieces(text);
        let shown: Vec<&str> = p.iter().map(|p| &text[p.range.clone()]).collect();
        assert_eq!(shown, vec!["Intro.", "```rust\nfn a() {}\n\n# not a heading\nfn b() {}\n```", "After.", "More."]);
    }

    #[test]
    fn chinese_sentences_are_pieces() {
        let text = "第一句。第二句！\n\n第三句？";
        let p = pieces(text);
        assert_eq!(p.len(), 3);
        assert_eq!(&text[p[2].range.clone()], "第三句？");
        assert!(p[2].paragraph);
    }

    #[test]
    fn windows_cover_every_piece_once_as_decider() {
        for (n, budget, overlap) in [(1, 10, 2), (10, 10, 2), (37, 25, 3), (50, 3, 0), (20, 1000, 4)] {
            let costs: Vec<usize> = (0..n).map(|i| 1 + i % 5).collect();
            let w = windows(&costs, budget, overlap);
            let mut next = 0;
            for win in &w {
                assert_eq!(win.decides.start, next, "{n} {budget} {overlap}: {w:?}");
                assert!(win.shown.start <= win.decides.start && win.decides.end <= win.shown.end);
                next = win.decides.end;
            }
            assert_eq!(next, n);
        }
    }
}
