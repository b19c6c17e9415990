//! The distance chart: a column right of the text, one row per visual line,
//! so it scrolls with the document. Each row shows the largest
//! sentence-to-sentence distance at a boundary on that line as a horizontal
//! bar; `│` marks the threshold, bars past it (breakpoints) are drawn in the
//! warning style, and `✂` marks boundaries where a chunk actually starts.
//! With a gradient threshold the bars show the gradient series the
//! threshold applies to.

use crate::tui::features::semantic;
use crate::tui::state::model::Model;
use crate::tui::view::theme::Theme;
// Whether the chart is shown and how wide is geometry, worked out with the other regions.
pub use crate::tui::state::regions::{chart_shown as shown, chart_width_for as width_for};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;

/// One chart row: the boundary value to draw and what it means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub value: f64,
    /// Above the threshold (a breakpoint).
    pub above: bool,
    /// A chunk starts at one of the row's boundaries.
    pub cut: bool,
}

/// The visible lines' rows, then the scale: low, high, cutoff.
pub type Rows = (Vec<Option<Row>>, f64, f64, Option<f64>);

/// Rows for the visible lines (None: no boundary on that line), and the
/// scale (low, high, cutoff) shared by the whole document. A strategy with
/// no threshold (`cluster`) has no cutoff: its bars are the distances alone.
pub fn rows(m: &Model, pane: usize, height: usize) -> Option<Rows> {
    let cached = semantic::analysis_of(m, pane)?;
    let a = &cached.analysis;
    let (cut, series) = series(m, pane, a);
    if series.is_empty() {
        return Some((vec![None; height], 0.0, 1.0, cut));
    }
    let lo = series.iter().copied().chain(cut).fold(f64::INFINITY, f64::min);
    let hi = series.iter().copied().chain(cut).fold(f64::NEG_INFINITY, f64::max);
    let chunks = &m.panes[pane].chunks;
    let shown = m.panes[pane].shown_rev == m.panes[pane].rev;
    let starts = &a.sentences;
    let mut out = Vec::with_capacity(height);
    for row in 0..height {
        let li = m.top + row;
        let Some(&(s, _)) = m.layout.lines.get(li) else { break };
        let next = m.layout.lines.get(li + 1).map_or(m.text.len() + 1, |l| l.0 as usize);
        // Sentences 1.. starting on this line end boundary j - 1.
        let first = starts.partition_point(|r| r.start < s as usize).max(1);
        let mut best: Option<Row> = None;
        for j in first..starts.len() {
            let off = starts[j].start;
            if off >= next {
                break;
            }
            let v = series[j - 1];
            let is_cut = shown && chunks.binary_search_by_key(&off, |c| c.range.start).is_ok();
            let r = best.get_or_insert(Row { value: v, above: false, cut: false });
            r.value = r.value.max(v);
            r.above |= cut.is_some_and(|cut| v > cut);
            r.cut |= is_cut;
        }
        out.push(best);
    }
    Some((out, lo, hi, cut))
}

/// The series the pane's threshold applies to, and its cutoff: boundary
/// distances, or for `semantic-grouping` each sentence's distance to the
/// mean of the sentences before it (what grouping compares). No cutoff for
/// a strategy without a threshold.
fn series<'a>(m: &Model, pane: usize, a: &'a semantic::SemanticAnalysis) -> (Option<f64>, &'a [f64]) {
    let c = &m.panes[pane].config;
    let t = semantic::Threshold::from_options(&c.semantic);
    let (cut, series) = if c.strategy == crate::config::StrategyKind::SemanticGrouping {
        a.to_mean.cutoff(t)
    } else {
        a.distances.cutoff(t)
    };
    (c.strategy.spec().has_threshold.then_some(cut), series)
}

const EIGHTHS: [&str; 8] = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

pub fn render(m: &Model, pane: usize, theme: &Theme, area: Rect, buf: &mut Buffer) {
    if area.width < 4 || area.height == 0 {
        return;
    }
    for y in area.y..area.y + area.height {
        buf[(area.x, y)].set_symbol("│").set_style(theme.dim);
    }
    let bw = area.width - 2; // separator, marker, then the bars
    let x0 = area.x + 2;
    let Some((rows, lo, hi, cut)) = rows(m, pane, area.height as usize) else {
        let job = m.panes[pane].sem.job.as_ref();
        let label = match job {
            Some(j) if j.total > 0 => format!("{}%", j.done * 100 / j.total),
            Some(_) => "loading".into(),
            None => String::new(),
        };
        buf.set_stringn(x0, area.y, label, bw as usize, theme.dim);
        return;
    };
    let span = (hi - lo).max(1e-9);
    // Bars start one eighth in, so the smallest distance still shows.
    let eighths = |v: f64| 1 + (((v - lo) / span) * (bw as f64 * 8.0 - 1.0)).round() as usize;
    let tx = cut.map(|cut| x0 + ((((cut - lo) / span) * (bw as f64 - 1.0)).round() as u16).min(bw - 1));
    for (row, r) in rows.iter().enumerate() {
        let y = area.y + row as u16;
        let Some(r) = r else {
            if let Some(tx) = tx {
                buf[(tx, y)].set_symbol("┊").set_style(theme.dim);
            }
            continue;
        };
        let style = if r.above {
            theme.warn.add_modifier(Modifier::BOLD)
        } else {
            theme.accent.remove_modifier(Modifier::BOLD)
        };
        let n = eighths(r.value);
        for k in 0..bw {
            let filled = n.saturating_sub(k as usize * 8).min(8);
            let sym = if filled == 8 { "█" } else { EIGHTHS[filled] };
            let x = x0 + k;
            if Some(x) == tx && filled < 8 {
                buf[(x, y)].set_symbol("│").set_style(theme.text.add_modifier(Modifier::BOLD));
            } else if filled > 0 {
                buf[(x, y)].set_symbol(sym).set_style(style);
            }
        }
        if r.cut {
            buf[(area.x + 1, y)].set_symbol("✂").set_style(theme.warn.add_modifier(Modifier::BOLD));
        }
    }
}

/// One line for the stats panel: the threshold, its cutoff, breakpoints, scale.
pub fn summary(m: &Model, pane: usize) -> Option<String> {
    let cached = semantic::analysis_of(m, pane)?;
    let (cut, series) = series(m, pane, &cached.analysis);
    let cut = cut?;
    let above = series.iter().filter(|v| **v > cut).count();
    Some(format!("cutoff {cut:.3} · {above} of {} boundaries above", series.len()))
}
