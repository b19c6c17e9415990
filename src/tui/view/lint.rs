//! Chunk lint on screen: `⚑` in the document's mark column on lines a
//! finding points into, a count line in the stats, and the lint panel (`L`)
//! above the chunk list: counts per rule, the selected chunk's findings.

use crate::tui::features::lint::panel_toggled;
use crate::tui::state::model::Model;
use crate::tui::view::panel::Panel;
use crate::tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

/// The margin mark of a line a finding points into.
pub const MARK: &str = "⚑";

/// Draw `⚑` at `(x, y)` (the gutter's mark column) when a finding of pane
/// `pane` points into bytes `s..next`, unless the cell shows the selection.
pub fn mark(m: &Model, pane: usize, theme: &Theme, (s, next): (usize, usize), (x, y): (u16, u16), buf: &mut Buffer) {
    if m.panes[pane].lint.points_into(s, next) && buf[(x, y)].symbol() != "▶" {
        buf.set_stringn(x, y, MARK, 1, theme.warn.add_modifier(Modifier::BOLD));
    }
}

/// The stats panel's lint line: findings per rule (those with any), or
/// "clean"; None until the lint of these chunks is in.
pub fn stats_line(m: &Model, p: usize, theme: &Theme) -> Option<Line<'static>> {
    let l = &m.panes[p].lint;
    if let Some(e) = &l.error {
        return Some(Line::styled(format!("lint: {}", e.lines().next().unwrap_or("")), theme.error));
    }
    if l.rev == 0 {
        return None;
    }
    let found: Vec<String> = l.counts.iter().filter(|(_, n)| *n > 0).map(|(r, n)| format!("{n} {r}")).collect();
    Some(if found.is_empty() {
        Line::styled(format!("lint: clean ({} rules)", l.counts.len()), theme.dim)
    } else {
        Line::from(vec![Span::styled(format!("{MARK} "), theme.warn), Span::styled(found.join(" · "), theme.warn)])
    })
}

/// The lint panel (`L`).
pub const PANEL: Panel = Panel {
    name: "lint_panel",
    keys: &["L"],
    description: "show / hide the lint panel (findings, counts)",
    rows: 9,
    draw: panel,
    toggled: Some(panel_toggled),
};

/// The lint panel: every rule that ran with its count, then the selected
/// chunk's findings (or how to get to one).
pub fn panel(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    if area.height < 3 {
        return;
    }
    let b = Block::new().borders(Borders::ALL).border_style(theme.dim).title(Span::styled(" Lint ", theme.accent));
    let inner = b.inner(area);
    b.render(area, buf);
    let l = &m.pane().lint;
    let mut lines: Vec<Line<'_>> = Vec::new();
    if l.rev == 0 && l.error.is_none() {
        lines.push(Line::styled("linting…", theme.dim));
    }
    if let Some(e) = &l.error {
        lines.push(Line::styled(e.lines().next().unwrap_or("").to_string(), theme.error));
    }
    let counts: Vec<Span<'_>> = l
        .counts
        .iter()
        .enumerate()
        .flat_map(|(i, (r, n))| {
            let style = if *n > 0 { theme.warn } else { theme.dim };
            [Span::styled(if i == 0 { "" } else { " · " }, theme.dim), Span::styled(format!("{n} {r}"), style)]
        })
        .collect();
    if !counts.is_empty() {
        lines.push(Line::from(counts));
    }
    match m.selected {
        Some(k) if l.rev != 0 => {
            let mut any = false;
            for f in l.of_chunk(k) {
                any = true;
                lines.push(Line::from(vec![
                    Span::styled(format!("{MARK} #{k} {}: ", f.rule), theme.warn),
                    Span::styled(f.message.to_string(), theme.text),
                ]));
            }
            if !any {
                lines.push(Line::styled(format!("#{k}: no findings"), theme.dim));
            }
        }
        _ if !l.shown.is_empty() => {
            lines.push(Line::styled("! selects the chunk of the next finding", theme.dim));
        }
        _ => {}
    }
    Paragraph::new(lines).wrap(Wrap { trim: false }).render(inner, buf);
}
