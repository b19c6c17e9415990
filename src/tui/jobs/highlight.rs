//! Syntax colours for the document, sent in batches as they are found so
//! the top of a long file is coloured first.

use crate::tui::msg::Msg;
use crate::tui::threads::Reply;
use ratatui::style::Color;
use std::sync::Arc;
use syntect::highlighting::ThemeSet;
use syntect::parsing::SyntaxSet;

/// Documents larger than this are not syntax-highlighted (it would take minutes).
pub const MAX_HIGHLIGHT_BYTES: usize = 8 << 20;

/// Lines highlighted between batches (and between checks for a newer request).
const BATCH_LINES: usize = 400;

pub struct HlReq {
    pub doc_rev: u64,
    pub text: Arc<str>,
    pub syntax: Option<String>,
}

/// The syntax and theme sets, loaded by the first job (they take a while).
pub type Sets = Option<(SyntaxSet, ThemeSet)>;

pub fn run(req: HlReq, reply: &Reply, sets: &mut Sets, theme_name: &str) {
    use syntect::easy::HighlightLines;
    use syntect::util::LinesWithEndings;
    let (ss, ts) = sets.get_or_insert_with(|| (SyntaxSet::load_defaults_newlines(), ThemeSet::load_defaults()));
    let syntax = req.syntax.as_deref().and_then(|s| ss.find_syntax_by_extension(s));
    let theme = ts.themes.get(theme_name).or_else(|| ts.themes.values().next());
    let (Some(syntax), Some(theme)) = (syntax, theme) else { return };
    if req.text.len() > MAX_HIGHLIGHT_BYTES {
        return;
    }
    let mut h = HighlightLines::new(syntax, theme);
    let mut runs: Vec<(u32, Color)> = Vec::new();
    let mut pos = 0usize;
    for (n, line) in LinesWithEndings::from(&req.text).enumerate() {
        let Ok(pieces) = h.highlight_line(line, ss) else { break };
        for (style, piece) in pieces {
            let c = Color::Rgb(style.foreground.r, style.foreground.g, style.foreground.b);
            if runs.last().map(|r| r.1) != Some(c) {
                runs.push((pos as u32, c));
            }
            pos += piece.len();
        }
        if n % BATCH_LINES == BATCH_LINES - 1 {
            let batch = std::mem::take(&mut runs);
            // Refused once a newer request superseded this one: stop.
            if !reply.send(Msg::Highlighted { doc_rev: req.doc_rev, runs: batch, done: false }) {
                return;
            }
        }
    }
    reply.send(Msg::Highlighted { doc_rev: req.doc_rev, runs, done: true });
}
