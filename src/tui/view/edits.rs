//! Hand-made boundaries on screen: `✂` in the gutter's first column where
//! a chunk starts at a hand-made cut, a line in the stats (edits applied,
//! stale), and the edits panel (`B`) above the chunk list: every edit of
//! the pane's config and what became of it.

use crate::chunk::Chunk;
use crate::tui::features::edits::{self, State};
use crate::tui::state::model::Model;
use crate::tui::view::panel::Panel;
use crate::tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

/// The margin mark of a chunk that starts at a hand-made cut.
pub const MARK: &str = "✂";

/// Draw `✂` at `(x, y)` (the gutter's first column) when a chunk of
/// `chunks` that starts in bytes `s..next` starts at a hand-made cut.
pub fn mark(
    m: &Model,
    pane: usize,
    chunks: &[Chunk],
    theme: &Theme,
    (s, next): (usize, usize),
    (x, y): (u16, u16),
    buf: &mut Buffer,
) {
    let Some(r) = edits::drawn(&m.panes[pane]) else { return };
    if r.cuts.is_empty() {
        return;
    }
    let k = chunks.partition_point(|c| c.range.start < s);
    let cut = chunks[k..].iter().take_while(|c| c.range.start < next).any(|c| r.is_cut(c.range.start));
    if cut {
        buf.set_stringn(x, y, MARK, 1, theme.warn.add_modifier(Modifier::BOLD));
    }
}

/// The stats panel's edits line: how many applied, how many stale; None
/// when the config has no edits.
pub fn stats_line(m: &Model, p: usize, theme: &Theme) -> Option<Line<'static>> {
    let pane = &m.panes[p];
    let n = pane.config.edits.len();
    if n == 0 {
        return None;
    }
    let Some(r) = edits::current(pane) else {
        return Some(Line::styled(format!("{MARK} {n} edits: placing…"), theme.dim));
    };
    let mut spans = vec![Span::styled(format!("{MARK} edits: {} applied", r.applied.len()), theme.text)];
    if !r.stale.is_empty() {
        spans.push(Span::styled(format!(" · ⚠ {} stale", r.stale.len()), theme.warn));
    }
    let other = n - r.applied.len() - r.stale.len();
    if other > 0 {
        spans.push(Span::styled(format!(" · {other} elsewhere"), theme.dim));
    }
    Some(Line::from(spans))
}

/// One row of the panel for an edit in state `state`.
fn row(m: &Model, i: usize, e: &crate::edits::Edit, state: &State, theme: &Theme) -> Line<'static> {
    let (sign, style) = match (state, e.op) {
        (State::Stale(_), _) => ("⚠", theme.warn),
        (_, crate::edits::EditOp::Cut) => (MARK, theme.accent),
        (_, crate::edits::EditOp::Join) => ("⋈", theme.accent),
    };
    let where_ = match state {
        State::Applied(at) => {
            let line = m.text.as_bytes()[..(*at).min(m.text.len())].iter().filter(|&&b| b == b'\n').count() + 1;
            format!("line {line}")
        }
        State::Stale(why) => format!("stale: {}", edits::why(why)),
        State::OtherFile => format!("for {}", e.file.as_deref().unwrap_or("another file")),
        State::Pending => "placing…".into(),
    };
    let where_style = if matches!(state, State::Stale(_)) { theme.warn } else { theme.dim };
    Line::from(vec![
        Span::styled(format!("{sign} {:>2} ", i + 1), style),
        Span::styled(format!("{where_}: "), where_style),
        Span::styled(e.describe(), theme.text),
    ])
}

/// The edits panel (`B`), under the lint panel.
pub const PANEL: Panel = Panel {
    name: "edits_panel",
    keys: &["B"],
    description: "edits panel: hand-made boundaries, stale ones",
    rows: 9,
    draw: panel,
    toggled: Some(edits::panel_toggled),
};

/// The edits panel: a count line, then the stale edits, then the others in
/// text order (as many as fit).
pub fn panel(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    if area.height < 3 {
        return;
    }
    let b = Block::new().borders(Borders::ALL).border_style(theme.dim).title(Span::styled(" Edits ", theme.accent));
    let inner = b.inner(area);
    b.render(area, buf);
    let p = m.pane();
    let mut lines: Vec<Line<'_>> = Vec::new();
    if p.config.edits.is_empty() {
        lines.push(Line::styled("no hand-made boundaries yet:", theme.dim));
        lines.push(Line::styled("| splits the selected chunk, J joins it with the next,", theme.dim));
        lines.push(Line::styled("( ) move its start by a sentence, b w by a word", theme.dim));
    } else {
        let mut states = edits::states(p);
        let stale = states.iter().filter(|(_, _, s)| matches!(s, State::Stale(_))).count();
        let undo = p.edits.undo.len();
        lines.push(Line::from(vec![
            Span::styled(format!("{} edits", states.len()), theme.text),
            Span::styled(format!(" · {stale} stale"), if stale > 0 { theme.warn } else { theme.dim }),
            Span::styled(format!(" · {undo} to undo (z)"), theme.dim),
        ]));
        // Stale first, then by place in the text.
        states.sort_by_key(|(i, _, s)| match s {
            State::Stale(_) => (0, *i),
            State::Applied(at) => (1, *at),
            _ => (2, *i),
        });
        for (i, e, state) in &states {
            lines.push(row(m, *i, e, state, theme));
        }
    }
    Paragraph::new(lines).render(inner, buf);
}
