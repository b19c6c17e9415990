//! Pure drawing: `draw(&Model, &Theme, frame)`. Every function reads the
//! model and writes a buffer; only visible lines are touched.

pub mod cell;
pub mod chart;
pub mod compare;
pub mod doc;
pub mod edits;
pub mod footer;
pub mod lint;
pub mod overlay;
pub mod panel;
pub mod probe;
pub mod side;
pub mod summary;
pub mod theme;

use crate::tui::features::semantic;
use crate::tui::state::model::{Mode, Model};
use crate::tui::view::panel::Panel;
use crate::tui::view::theme::Theme;
pub use summary::{chunk_count, counting, settings_summary};

// Where things go on screen is worked out below the features (which scroll
// by it); the drawing here and code outside the workbench find it here too.
pub use crate::tui::state::layout;
pub use crate::tui::state::regions::{self, gutter_width, regions, regions_of, regions_with, Regions};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use ratatui::Frame;

/// The panels above the chunk list, in the order they stack (the first on
/// top). A new panel is its own file, which declares its `PANEL`, and one
/// line here.
pub const PANELS: &[Panel] = &[lint::PANEL, edits::PANEL];

pub fn draw(m: &Model, theme: &Theme, frame: &mut Frame<'_>) {
    let area = frame.area();
    render(m, theme, area, frame.buffer_mut());
}

/// Everything, into a buffer (what `draw` does; tests call it directly).
pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let g = regions::regions_in(m, area);
    header(m, theme, g.header, buf);
    for p in 0..m.visible_panes() {
        doc::render(m, p, theme, g.docs[p], buf);
        chart::render(m, p, theme, g.charts[p], buf);
    }
    if m.compare && g.docs[1].width > 0 {
        let x = g.docs[0].x + g.docs[0].width + g.charts[0].width;
        for y in g.docs[0].y..g.docs[0].y + g.docs[0].height {
            buf[(x, y)].set_symbol("│").set_style(theme.dim);
        }
    }
    side::params(m, theme, g.params, buf);
    side::stats(m, 0, theme, g.stats, buf);
    side::list(m, theme, g.list, buf);
    for &(name, area) in &g.panels {
        if let Some(p) = PANELS.iter().find(|p| p.name == name) {
            (p.draw)(m, theme, area, buf);
        }
    }
    probe::panel(m, 0, theme, g.eval, buf);
    if m.compare {
        side::compare_stats(m, theme, g.compare_stats, buf);
    }
    footer::render(m, theme, g.footer, buf);
    status(m, theme, g.status, buf);
    match &m.mode {
        Mode::Help => overlay::help(m, theme, area, buf),
        Mode::Normal => {}
        _ => overlay::prompt(m, theme, g.status, buf),
    }
}

fn header(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let name = m.path.file_name().map_or_else(|| m.path.display().to_string(), |n| n.to_string_lossy().into());
    let line = |with_settings: bool| {
        let mut spans = Vec::new();
        for p in 0..m.visible_panes() {
            if m.compare {
                let tag = format!("{}{} ", if p == m.active { "▶" } else { " " }, ["A", "B"][p]);
                spans.push(Span::styled(tag, theme.accent));
            } else {
                spans.push(Span::raw(" "));
            }
            let count_style = if m.panes[p].error.is_some() { theme.error } else { theme.accent };
            spans.push(Span::styled(chunk_count(m, p), count_style));
            let settings = if with_settings { format!(" · {}", settings_summary(m, p)) } else { String::new() };
            spans.push(Span::styled(format!("{settings} │"), theme.text));
        }
        spans.push(Span::styled(format!(" {name}"), theme.dim));
        Line::from(spans)
    };
    // On narrow screens the file name matters more than the settings summary
    // (the parameters panel shows the settings).
    let full = line(true);
    let fits = full.width() <= area.width as usize;
    Paragraph::new(if fits { full } else { line(false) }).render(area, buf);
}

fn status(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let style: Style = if m.status.error { theme.error } else { theme.text };
    let mut area = area;
    if let Some((label, bar)) = progress(m, area.width) {
        let w = (label.chars().count() + bar.chars().count() + 2) as u16;
        let r = Rect { x: area.x + area.width.saturating_sub(w), width: w.min(area.width), ..area };
        area.width = area.width.saturating_sub(w);
        Paragraph::new(Line::from(vec![
            Span::styled(format!(" {label} "), theme.accent),
            Span::styled(bar, theme.accent),
        ]))
        .render(r, buf);
    }
    // A message longer than the line says it goes on.
    let text = overlay::head(&format!(" {}", m.status.text), area.width as usize);
    Paragraph::new(Line::from(Span::styled(text, style))).render(area, buf);
}

/// The embedding progress bar for the status line: a label and the bar.
pub fn progress(m: &Model, width: u16) -> Option<(String, String)> {
    let Some(p) = (0..2).find(|&p| m.panes[p].sem.job.is_some()) else { return retrieval_progress(m, width) };
    let j = m.panes[p].sem.job.as_ref()?;
    let model = semantic::model_label(&m.panes[p].config);
    if j.total == 0 {
        return Some((format!("loading {model}…"), String::new()));
    }
    let bw = (width / 5).clamp(8, 30) as usize;
    let filled = j.done * bw / j.total.max(1);
    let bar = format!("{}{}", "█".repeat(filled), "░".repeat(bw - filled));
    Some((format!("embedding {}/{} sentences", j.done, j.total), bar))
}

/// The progress of a retrieval job that embeds the chunks (dense, hybrid).
fn retrieval_progress(m: &Model, width: u16) -> Option<(String, String)> {
    let (p, j) = (0..2).find_map(|p| m.panes[p].probe.jobs.iter().find(|j| j.embeds).map(|j| (p, j)))?;
    if j.total == 0 {
        let model = semantic::model_label(&m.panes[p].config);
        return Some((format!("{}: loading {model}…", m.panes[p].probe.retriever), String::new()));
    }
    let bw = (width / 5).clamp(8, 30) as usize;
    let filled = j.done * bw / j.total.max(1);
    let bar = format!("{}{}", "█".repeat(filled), "░".repeat(bw - filled));
    Some((format!("{}: embedding {}/{} chunks", m.panes[p].probe.retriever, j.done, j.total), bar))
}
