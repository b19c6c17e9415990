//! What the query probe and the evaluation draw: the rank badges over the
//! document, the Retrieval panel (recall, precision, IoU, hit rate next to
//! the previous settings' numbers) and its one-line form for the
//! comparison strip.

use crate::eval::metrics::Report;
use crate::tui::features::probe::{self, score_label, K};
use crate::tui::state::model::Model;
use crate::tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

/// `#1 0.82` at the right end of each retrieved chunk's first line on
/// screen (the top row when the chunk starts above it). `area`: the text
/// columns of the pane, without the gutter.
pub fn badges(m: &Model, pane: usize, theme: &Theme, area: Rect, buf: &mut Buffer) {
    if area.width < 8 || area.height == 0 {
        return;
    }
    let chunks = &m.panes[pane].chunks;
    let first = m.layout.start_of(m.top);
    let rows = area.height as usize;
    let mut used: Vec<usize> = Vec::new();
    for (k, rank, score) in probe::lit(m, pane) {
        let c = &chunks[k];
        let line = m.layout.line_of(c.range.start);
        let row = if line >= m.top && line < m.top + rows {
            line - m.top
        } else if c.range.start < first && c.range.end > first {
            0
        } else {
            continue;
        };
        if used.contains(&row) {
            continue; // two chunks start on one line: the better rank shows
        }
        used.push(row);
        let label = format!(" #{rank} {} ", score_label(score));
        let w = (label.chars().count() as u16).min(area.width);
        let x = area.x + area.width - w;
        let y = area.y + row as u16;
        // A wide glyph whose right half the badge would cover is blanked.
        if x > area.x {
            super::cell::blank_if_wide(&mut buf[(x - 1, y)]);
        }
        buf.set_stringn(x, y, label, w as usize, theme.badge);
    }
}

fn mean(r: &Report, metric: usize) -> f64 {
    [r.recall.mean, r.precision.mean, r.iou.mean, r.hit_rate.mean][metric]
}

const METRICS: [&str; 4] = ["recall", "precision", "IoU", "hit rate"];

/// ↑, ↓ or = from `before` to `now`, and its style.
fn arrow(now: f64, before: f64, theme: &Theme) -> (&'static str, Style) {
    if now > before + 1e-9 {
        ("↑", theme.accent)
    } else if now < before - 1e-9 {
        ("↓", theme.warn)
    } else {
        ("=", theme.dim)
    }
}

/// What the panel says about its state: scoring, embedding, an error.
fn state(m: &Model, pane: usize) -> Option<(String, bool)> {
    let p = &m.panes[pane];
    if let Some(e) = m.questions.as_ref().and_then(|q| q.error.as_ref()) {
        return Some((e.clone(), true));
    }
    if let Some(e) = &p.probe.error {
        return Some((e.lines().next().unwrap_or("").to_string(), true));
    }
    if probe::current_eval(m, pane).is_some() && !p.pending() {
        return None;
    }
    let job = p.probe.eval_job.and_then(|id| p.probe.jobs.iter().find(|j| j.id == id));
    Some(match job {
        Some(j) if j.embeds && j.total > 0 => (format!("embedding {}/{} chunks…", j.done, j.total), false),
        Some(j) if j.embeds => ("loading the model…".into(), false),
        _ => ("scoring…".into(), false),
    })
}

/// The Retrieval panel for one pane.
pub fn panel(m: &Model, pane: usize, theme: &Theme, area: Rect, buf: &mut Buffer) {
    if area.height < 3 {
        return;
    }
    let Some(qs) = &m.questions else { return };
    let p = &m.panes[pane];
    let title = format!(" Retrieval · {} · k {K} ", p.probe.retriever);
    let b = Block::new().borders(Borders::ALL).border_style(theme.dim).title(Span::styled(title, theme.accent));
    let inner = b.inner(area);
    b.render(area, buf);
    let n = qs.set.questions.len();
    let mut head = vec![Span::styled(format!("{n} question{}", if n == 1 { "" } else { "s" }), theme.text)];
    match state(m, pane) {
        Some((s, error)) => head.push(Span::styled(format!(" · {s}"), if error { theme.error } else { theme.dim })),
        None => head.push(Span::styled(" · Q steps through them", theme.dim)),
    }
    let mut lines = vec![Line::from(head)];
    let now = probe::current_eval(m, pane).map(|e| &e.value.report);
    // While the new numbers are computed, the last ones are the "before".
    let before = match now {
        Some(_) => p.probe.prev_eval.as_ref(),
        None => p.probe.eval.as_ref().or(p.probe.prev_eval.as_ref()),
    }
    .map(|e| &e.value.report);
    for (i, name) in METRICS.iter().enumerate() {
        let mut spans = vec![Span::styled(format!("{name:<10}"), theme.dim)];
        match now {
            Some(r) => spans.push(Span::styled(format!("{:.3}", mean(r, i)), theme.text)),
            None => spans.push(Span::styled("  …  ", theme.dim)),
        }
        if let Some(b) = before {
            let (a, style) = match now {
                Some(r) => arrow(mean(r, i), mean(b, i), theme),
                None => (" ", theme.dim),
            };
            spans.push(Span::styled(format!(" {a} "), style));
            spans.push(Span::styled(format!("was {:.3}", mean(b, i)), theme.dim));
        }
        lines.push(Line::from(spans));
    }
    Paragraph::new(lines).render(inner, buf);
}

/// The panel in one line, for the comparison strip: `R 0.62↑ P 0.10 …`.
pub fn summary_line(m: &Model, pane: usize, theme: &Theme) -> Option<Line<'static>> {
    m.questions.as_ref()?;
    let p = &m.panes[pane];
    let Some(now) = probe::current_eval(m, pane).map(|e| &e.value.report) else {
        let s = state(m, pane).map_or_else(|| "scoring…".into(), |s| s.0);
        return Some(Line::styled(format!("{}: {s}", p.probe.retriever), theme.dim));
    };
    let before = p.probe.prev_eval.as_ref().map(|e| &e.value.report);
    let mut spans = vec![Span::styled(format!("{} ", p.probe.retriever), theme.dim)];
    for (i, short) in ["R", "P", "IoU", "hit"].iter().enumerate() {
        spans.push(Span::styled(format!("{short} {:.2}", mean(now, i)), theme.text));
        let (a, style) = before.map_or((" ", theme.dim), |b| arrow(mean(now, i), mean(b, i), theme));
        spans.push(Span::styled(format!("{a} "), style));
    }
    Some(Line::from(spans))
}
