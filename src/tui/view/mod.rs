//! Pure drawing: `draw(&Model, &Theme, frame)`. Every function reads the
//! model and writes a buffer; only visible lines are touched.

pub mod chart;
pub mod compare;
pub mod doc;
pub mod edits;
pub mod footer;
pub mod layout;
pub mod lint;
pub mod overlay;
pub mod probe;
pub mod side;
pub mod theme;

use crate::tui::app::model::{Mode, Model};
use crate::tui::features::semantic;
use crate::tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use ratatui::Frame;

/// Columns of the chunk-index gutter left of the text.
pub fn gutter_width(pane_width: u16) -> u16 {
    if pane_width >= 30 {
        5
    } else {
        0
    }
}

/// Where everything goes on a screen of this size. Shared by `draw` and by
/// `update` (mouse clicks, wrapping width).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Regions {
    pub header: Rect,
    pub docs: [Rect; 2],
    /// The distance chart right of each document pane (empty when not shown).
    pub charts: [Rect; 2],
    pub params: Rect,
    pub stats: Rect,
    pub list: Rect,
    /// The Retrieval panel (with `--queries`).
    pub eval: Rect,
    pub compare_stats: Rect,
    /// The lint panel (`L`), above the chunk list.
    pub lint: Rect,
    /// The edits panel (`B`), above the chunk list (under the lint panel).
    pub edits: Rect,
    pub footer: Rect,
    pub status: Rect,
}

impl Regions {
    /// Width the document text is wrapped to.
    pub fn text_width(&self) -> usize {
        let d = self.docs[0];
        (d.width - gutter_width(d.width)).max(1) as usize
    }
    pub fn text_height(&self) -> usize {
        self.docs[0].height.max(1) as usize
    }
}

fn take_top(r: &mut Rect, h: u16) -> Rect {
    let h = h.min(r.height);
    let out = Rect { height: h, ..*r };
    r.y += h;
    r.height -= h;
    out
}

fn take_bottom(r: &mut Rect, h: u16) -> Rect {
    let h = h.min(r.height);
    r.height -= h;
    Rect { y: r.y + r.height, height: h, ..*r }
}

fn take_right(r: &mut Rect, w: u16) -> Rect {
    let w = w.min(r.width);
    r.width -= w;
    Rect { x: r.x + r.width, width: w, ..*r }
}

/// The regions for this model (the chart takes room only when shown).
pub fn regions_of(m: &Model) -> Regions {
    let mut g = regions_with(m.screen, m.compare, chart::shown(m), m.questions.is_some());
    lint::carve(m, &mut g);
    edits::carve(m, &mut g);
    g
}

pub fn regions(screen: Rect, compare: bool, chart: bool) -> Regions {
    regions_with(screen, compare, chart, false)
}

/// [`regions`], with room for the Retrieval panel when `eval`.
pub fn regions_with(screen: Rect, compare: bool, chart: bool, eval: bool) -> Regions {
    let mut main = screen;
    let mut g = Regions { header: take_top(&mut main, 1), status: take_bottom(&mut main, 1), ..Default::default() };
    if screen.height >= 12 {
        g.footer = take_bottom(&mut main, 1);
    }
    if compare {
        if main.height >= 16 {
            g.compare_stats = take_bottom(&mut main, 6);
        }
        let half = main.width.saturating_sub(1) / 2;
        let mut left = main;
        let right = take_right(&mut left, half);
        left.width = half; // both panes wrap alike; a separator column between
        g.docs = [left, right];
    } else {
        let side_w = if main.width >= 110 {
            48
        } else if main.width >= 80 {
            40
        } else {
            0
        };
        let mut side = take_right(&mut main, side_w);
        g.docs = [main, Rect::default()];
        if side_w > 0 {
            if side.height >= 24 {
                g.params = take_top(&mut side, 10);
            }
            if side.height >= 14 {
                g.stats = take_top(&mut side, 8);
            }
            if eval && side.height >= 10 {
                g.eval = take_top(&mut side, 7);
            }
            g.list = side;
        }
    }
    if chart {
        let w = chart::width_for(g.docs[0].width);
        for p in 0..if compare { 2 } else { 1 } {
            g.charts[p] = take_right(&mut g.docs[p], w);
        }
    }
    g.docs[0].width = g.docs[0].width.max(1);
    g
}

pub fn draw(m: &Model, theme: &Theme, frame: &mut Frame<'_>) {
    let area = frame.area();
    render(m, theme, area, frame.buffer_mut());
}

/// Everything, into a buffer (what `draw` does; tests call it directly).
pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let mut g = regions_with(area, m.compare, chart::shown(m), m.questions.is_some());
    lint::carve(m, &mut g);
    edits::carve(m, &mut g);
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
    lint::panel(m, theme, g.lint, buf);
    edits::panel(m, theme, g.edits, buf);
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

/// "N chunks" for a pane, or what it is doing while a new set is being
/// computed: the old count is never shown as if it were the new one.
pub fn chunk_count(m: &Model, p: usize) -> String {
    let pane = &m.panes[p];
    if counting(m, p) {
        return if pane.sem.job.is_some() { "embedding…" } else { "counting…" }.to_string();
    }
    let n = pane.chunks.len();
    format!("{n} chunk{}", if n == 1 { "" } else { "s" })
}

/// A pane's numbers are not those of its settings yet: its chunks are being
/// cut (the document pane may already draw the first of them).
pub fn counting(m: &Model, p: usize) -> bool {
    let pane = &m.panes[p];
    (pane.shown_rev == 0 || pane.pending()) && pane.error.is_none()
}

pub fn settings_summary(m: &Model, p: usize) -> String {
    let c = &m.panes[p].config;
    // A size the strategy never reads would look like a setting in force.
    let size = if c.strategy.spec().reads_size() { c.size.to_string() } else { "no size limit,".into() };
    if c.strategy.needs_model() {
        let model = m.panes[p]
            .sem
            .model_id
            .as_deref()
            .map_or_else(|| semantic::model_label(c), |id| semantic::short_model(id).to_string());
        let t = if c.strategy.spec().has_threshold {
            format!(" {}", semantic::threshold_summary(c))
        } else {
            String::new()
        };
        return format!("{} {size} {}{t} · {model}", c.strategy, c.unit);
    }
    if !c.strategy.spec().reads_size() {
        return format!("{} {size} {}", c.strategy, c.unit);
    }
    if c.uses_overlap() {
        format!("{} {}/{} {}", c.strategy, c.size, c.overlap, c.unit)
    } else {
        format!("{} {} {}, overlap {}", c.strategy, c.size, c.unit, c.overlap_label())
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
