//! Where everything goes on a screen of a given size, for the model as it
//! is: shared by the drawing (`view`) and by the moves that scroll and wrap
//! ([`super::cursor`]), so it stands below both. A panel that takes rows
//! carves them here.

use crate::tui::state::model::Model;
use crate::tui::state::semantic::recuts;
use ratatui::layout::Rect;

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
    /// The panels above the chunk list (lint `L`, edits `B`...) that are
    /// shown and have room, the first on top: each one's name and place.
    pub panels: Vec<(&'static str, Rect)>,
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

    /// Where the panel named `name` is (empty when hidden or out of room).
    pub fn panel(&self, name: &str) -> Rect {
        self.panels.iter().find(|(n, _)| *n == name).map_or_else(Rect::default, |(_, r)| *r)
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
    regions_in(m, m.screen)
}

/// [`regions_of`] on a screen of another size (what `render` is given).
pub fn regions_in(m: &Model, screen: Rect) -> Regions {
    let mut g = regions_with(screen, m.compare, chart_shown(m), m.questions.is_some());
    // The panels above the chunk list, in the panel table's order.
    for p in m.panels.iter() {
        let area = take_from_list(&mut g, p.shown && !m.compare, p.rows);
        if !area.is_empty() {
            g.panels.push((p.name, area));
        }
    }
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
        let w = chart_width_for(g.docs[0].width);
        for p in 0..if compare { 2 } else { 1 } {
            g.charts[p] = take_right(&mut g.docs[p], w);
        }
    }
    g.docs[0].width = g.docs[0].width.max(1);
    g
}

/// Columns the chart takes beside a document pane this wide (0: no room).
pub fn chart_width_for(pane_width: u16) -> u16 {
    match pane_width {
        70.. => 14,
        44.. => 10,
        _ => 0,
    }
}

/// The chart is on screen when a visible pane uses a re-cut strategy.
pub fn chart_shown(m: &Model) -> bool {
    (0..m.visible_panes()).any(|p| recuts(m.panes[p].config.strategy))
}

/// `rows` from the top of the chunk list for a panel that is `on`, when the
/// list can spare them (else none: the panel is not drawn). Panels carved
/// one after the other stack, the first on top.
fn take_from_list(g: &mut Regions, on: bool, rows: u16) -> Rect {
    if !on || g.list.height < rows + 5 {
        return Rect::default();
    }
    let panel = Rect { height: rows, ..g.list };
    g.list.y += rows;
    g.list.height -= rows;
    panel
}
