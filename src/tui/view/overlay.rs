//! The help screen and the one-line prompts (search, export path, overwrite).

use crate::tui::msg::ExportKind;
use crate::tui::state::model::{Mode, Model};
use crate::tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

/// (keys, what they do) for every bound action, in the order and with the
/// words of `assets/keymap.toml`, then the panels'.
fn entries(m: &Model) -> Vec<(String, &str)> {
    m.keymap
        .bindings()
        .map(|b| (m.keymap.keys_for(b.action).join(" "), b.description.as_str()))
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

/// The help box: one column when it fits, two side by side when the screen
/// is wide enough, else one column that scrolls (`m.help_scroll`).
pub fn help(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let entries = entries(m);
    let kw = entries.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(1);
    let dw = entries.iter().map(|(_, d)| d.chars().count()).max().unwrap_or(1);
    let col = kw + 2 + dw;
    let avail = area.height.saturating_sub(4) as usize; // borders, first and last line
    let cols = if entries.len() > avail && 2 * col + 3 + 2 <= area.width as usize { 2 } else { 1 };
    let rows = entries.len().div_ceil(cols);
    let w = ((cols * col + (cols - 1) * 3 + 2).max(64) as u16).min(area.width);
    let h = ((rows + 4) as u16).min(area.height);
    let r = Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h);
    clear_box(r, buf);
    let shown = rows.min(avail);
    let top = help_top(m.help_scroll, rows, avail);
    let mut lines = vec![Line::styled("Mouse: wheel scrolls, click selects a chunk. Any key closes.", theme.dim)];
    for row in top..top + shown {
        let mut spans = Vec::new();
        for c in 0..cols {
            let Some((keys, what)) = entries.get(c * rows + row) else { continue };
            let gap = if c > 0 { "   " } else { "" };
            spans.push(Span::styled(format!("{gap}{keys:>kw$}  "), theme.accent));
            spans.push(Span::styled(format!("{what:<dw$}"), theme.text));
        }
        lines.push(Line::from(spans));
    }
    let last = if top + shown < rows {
        format!("↓ {} more: j / down / space scroll", rows - top - shown)
    } else {
        "Colours: one background per chunk; the light band is overlap.".into()
    };
    lines.push(Line::styled(last, theme.dim));
    Paragraph::new(lines)
        .block(Block::new().borders(Borders::ALL).border_style(theme.accent).title(" Help "))
        .render(r, buf);
}

/// Clear a box drawn over the screen, and the wide glyphs (CJK) that start
/// just left of it: their right half would cover the box's left border.
pub fn clear_box(r: Rect, buf: &mut Buffer) {
    Clear.render(r, buf);
    if r.x == 0 {
        return;
    }
    for y in r.y..r.y + r.height {
        super::cell::blank_if_wide(&mut buf[(r.x - 1, y)]);
    }
}

/// First help row shown for a scroll request, so the last page stays full.
pub fn help_top(scroll: usize, rows: usize, avail: usize) -> usize {
    scroll.min(rows.saturating_sub(avail))
}

/// Rows of the one-column help (what `help_scroll` counts).
pub fn help_rows(m: &Model) -> usize {
    entries(m).len()
}

pub fn prompt(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let line = match &m.mode {
        Mode::Search(q) => {
            Line::from(vec![Span::styled(" search: ", theme.accent), Span::styled(format!("{q}▏"), theme.text)])
        }
        Mode::Ask(q) => {
            let label = format!(" ask ({}): ", m.pane().probe.retriever);
            let hint = "  (Enter asks, Esc cancels)";
            // A long question shows its end, where the typing is.
            let room = (area.width as usize).saturating_sub(label.chars().count() + hint.chars().count() + 1);
            Line::from(vec![
                Span::styled(label, theme.accent),
                Span::styled(format!("{}▏", tail(q, room)), theme.text),
                Span::styled(hint, theme.dim),
            ])
        }
        Mode::ExportPath { input, kind } => {
            let what = if *kind == ExportKind::Config { "config" } else { "chunks" };
            Line::from(vec![
                Span::styled(format!(" export {what} to: "), theme.accent),
                Span::styled(format!("{input}▏"), theme.text),
                Span::styled("  (Enter writes, Esc cancels)", theme.dim),
            ])
        }
        Mode::ConfirmOverwrite { path, .. } => {
            Line::from(vec![Span::styled(format!(" {} exists: overwrite? (y/n)", path.display()), theme.warn)])
        }
        _ => return,
    };
    Clear.render(area, buf);
    Paragraph::new(line).render(area, buf);
}

/// The start of `s` that fits `width` columns, with `…` when cut.
pub fn head(s: &str, width: usize) -> String {
    let w = |c: char| crate::tui::state::layout::char_width(c);
    if s.chars().map(w).sum::<usize>() <= width {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 1; // the ellipsis
    for c in s.chars() {
        if used + w(c) > width {
            break;
        }
        used += w(c);
        out.push(c);
    }
    out.push('…');
    out
}

/// The end of `s` that fits `width` columns, with `…` when cut.
pub fn tail(s: &str, width: usize) -> String {
    let w = |c: char| crate::tui::state::layout::char_width(c);
    if s.chars().map(w).sum::<usize>() <= width {
        return s.to_string();
    }
    let mut out: Vec<char> = Vec::new();
    let mut used = 1; // the ellipsis
    for c in s.chars().rev() {
        if used + w(c) > width {
            break;
        }
        used += w(c);
        out.push(c);
    }
    out.push('…');
    out.into_iter().rev().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail_fit_the_width_and_say_when_they_cut() {
        assert_eq!(head("short", 9), "short");
        assert_eq!(head("a status line", 7), "a stat…");
        assert_eq!(tail("a status line", 7), "…s line");
        // Wide glyphs count two columns and are never split.
        assert_eq!(head("中文字符", 6), "中文…");
        assert_eq!(tail("中文字符", 6), "…字符");
        assert_eq!(head("中文字符", 4), "中…");
    }

    #[test]
    fn the_help_lists_the_panels_keys_last_in_the_table_order() {
        use crate::document::{DocKind, Document};
        let c = crate::config::ChunkConfig::default();
        let m = Model::new(Document::from_text("text", DocKind::Text), c.clone(), c, Rect::new(0, 0, 80, 24));
        let (all, panels) = (entries(&m), crate::tui::view::PANELS);
        let last: Vec<(&str, &str)> = all[all.len() - panels.len()..].iter().map(|(k, d)| (k.as_str(), *d)).collect();
        assert_eq!(last, panels.iter().map(|p| (p.keys[0], p.description)).collect::<Vec<_>>());
        assert_eq!(last[0], ("L", "show / hide the lint panel (findings, counts)"));
    }
}
