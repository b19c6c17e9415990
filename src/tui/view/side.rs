//! Side panels: parameters, stats with a size histogram, the chunk list, and
//! the A/B stats strip of the comparison.

use crate::config::Unit;
use crate::stats::Stats;
use crate::tui::features::probe;
use crate::tui::state::keymap::Action;
use crate::tui::state::model::Model;
use crate::tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Sparkline, Widget};

fn block<'a>(title: &'a str, theme: &Theme) -> Block<'a> {
    Block::new().borders(Borders::ALL).border_style(theme.dim).title(Span::styled(title, theme.accent))
}

fn key(m: &Model, a: Action) -> String {
    m.keymap.keys_for(a).first().cloned().unwrap_or_default()
}

/// The option `o` cycles for the pane's strategy, as text.
pub fn option_summary(m: &Model, p: usize) -> String {
    let c = &m.panes[p].config;
    c.strategy.spec().option.map_or("-".into(), |o| (o.show)(c))
}

pub fn params(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    if area.height < 3 {
        return;
    }
    let c = &m.pane().config;
    let title = if m.compare { format!(" Parameters ({}) ", ["A", "B"][m.active]) } else { " Parameters ".into() };
    let row = |name: &str, value: String, keys: String| {
        // Long values (an hf: path, sentence options) end in … so the key column stays put.
        let value = if value.chars().count() > 21 {
            format!("{}…", value.chars().take(20).collect::<String>())
        } else {
            value
        };
        Line::from(vec![
            Span::styled(format!("{name:<10}"), theme.dim),
            Span::styled(format!("{value:<22}"), theme.text.add_modifier(Modifier::BOLD)),
            Span::styled(keys, theme.accent),
        ])
    };
    let lines = vec![
        row("strategy", c.strategy.to_string(), key(m, Action::CycleStrategy)),
        row("unit", c.unit.to_string(), key(m, Action::CycleUnit)),
        row("tokenizer", c.tokenizer.clone(), key(m, Action::CycleTokenizer)),
        if crate::tui::features::levels::count(m.pane()) > 0 {
            let keys =
                format!("{} {} {}", key(m, Action::SizeDown), key(m, Action::SizeUp), key(m, Action::CycleLevel));
            row("levels", crate::tui::features::levels::sizes_label(m.pane()), keys)
        } else {
            row("size", c.size.to_string(), format!("{} {}", key(m, Action::SizeDown), key(m, Action::SizeUp)))
        },
        if c.uses_overlap() {
            row(
                "overlap",
                c.overlap.to_string(),
                format!("{} {}", key(m, Action::OverlapDown), key(m, Action::OverlapUp)),
            )
        } else {
            // What the strategy overlaps by instead ("1 sentence", "none"):
            // the overlap keys change nothing it reads.
            row("overlap", c.overlap_label(), String::new())
        },
        if c.strategy.spec().has_threshold {
            let keys = format!(
                "{} {} {}",
                key(m, Action::ThresholdDown),
                key(m, Action::ThresholdUp),
                key(m, Action::CycleThresholdType)
            );
            row("threshold", crate::tui::features::semantic::threshold_summary(c), keys)
        } else {
            row("preset", c.recursive.preset.clone(), key(m, Action::CyclePreset))
        },
        row("option", option_summary(m, m.active), key(m, Action::CycleOption)),
        row("max tok", m.max_tokens.map_or("-".into(), |t| t.to_string()), String::new()),
    ];
    Paragraph::new(lines).block(block(&title, theme)).render(area, buf);
}

/// The `meta.fields` the stats panel shows for the selected chunk.
const DESCRIBED: [&str; 6] = ["title", "summary", "keywords", "context", "strategy", "reason"];

pub fn stats_lines(m: &Model, p: usize, theme: &Theme) -> Vec<Line<'static>> {
    let pane = &m.panes[p];
    let s: &Stats = &pane.stats;
    let unit = pane.config.unit;
    let mut first = vec![Span::styled(super::summary::chunk_count(m, p), theme.accent)];
    if super::summary::counting(m, p) {
        // Sizes, lint and the rest wait for the whole result.
        return vec![Line::from(first)];
    }
    if !pane.chunks.is_empty() {
        first.push(Span::styled(format!(" · sizes in {unit}"), theme.text));
    }
    if s.over_limit > 0 {
        first.push(Span::styled(format!(" · {} over the limit", s.over_limit), theme.warn));
    }
    let mut lines = vec![Line::from(first)];
    if !pane.chunks.is_empty() {
        // The same numbers, rounded the same way, as `chunktui stats`.
        lines.push(Line::styled(format!("min {} · mean {:.1} · max {}", s.min, s.mean, s.max), theme.text));
        lines.push(Line::styled(format!("p50 {} · p95 {} · ovl {} chars", s.p50, s.p95, s.overlap_chars), theme.text));
    }
    if let Some(line) = super::chart::summary(m, p) {
        lines.push(Line::styled(line, theme.text));
    }
    if let Some(line) = super::lint::stats_line(m, p, theme) {
        lines.push(line);
    }
    if let Some(line) = super::edits::stats_line(m, p, theme) {
        lines.push(line);
    }
    if let Some(fit) = &pane.lint.fit {
        let style = if fit.needs_chunking { theme.text } else { theme.accent };
        lines.push(Line::styled(format!("chunking? {}", fit.advice), style));
    }
    // The selected chunk's LLM descriptions and the agent's choice.
    let selected = if p == m.active { m.selected } else { None };
    if let Some(c) = selected.and_then(|i| pane.chunks.get(i)) {
        lines.extend(whereabouts(&c.meta).map(|w| Line::styled(w, theme.dim)));
        for (k, v) in c.meta.fields.iter().filter(|(k, _)| DESCRIBED.contains(&k.as_str())) {
            lines.push(Line::styled(format!("{k}: {v}"), theme.text));
        }
    }
    for w in &pane.sem.warnings {
        lines.push(Line::styled(format!("⚠ {}", w.short()), theme.warn));
    }
    lines
}

/// Where the selected chunk is in record data: its JSON path, JSONL line,
/// CSV rows.
fn whereabouts(meta: &crate::chunk::ChunkMeta) -> impl Iterator<Item = String> + '_ {
    let rows = meta.rows.map(|[a, b]| if a == b { format!("row {a}") } else { format!("rows {a}-{b}") });
    let path = meta.json_path.as_ref().map(|p| format!("path {p}"));
    let line = meta.line.map(|l| format!("line {l}"));
    [path, line, rows].into_iter().flatten()
}

/// The pane's error, wrapped to `width` columns: it says what to do next,
/// and that is at its end.
fn error_lines(m: &Model, p: usize, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let Some(err) = &m.panes[p].error else { return Vec::new() };
    let err = err.lines().next().unwrap_or("");
    let rows = crate::tui::state::layout::Layout::rows(err, width.max(1) as usize);
    rows.into_iter().map(|row| Line::styled(row.to_string(), theme.error)).collect()
}

pub fn stats(m: &Model, p: usize, theme: &Theme, area: Rect, buf: &mut Buffer) {
    if area.height < 3 {
        return;
    }
    let b = block(" Stats ", theme);
    let inner = b.inner(area);
    b.render(area, buf);
    let mut lines = stats_lines(m, p, theme);
    lines.extend(error_lines(m, p, theme, inner.width));
    let n = lines.len() as u16;
    Paragraph::new(lines).render(inner, buf);
    let below = Rect { y: inner.y + n, height: inner.height.saturating_sub(n), ..inner };
    if super::summary::counting(m, p) {
        return;
    }
    if m.panes[p].config.embed_text.enabled {
        embedded_as(m, p, theme, below, buf);
    } else {
        histogram(m, p, theme, below, buf);
    }
}

/// With embed text on, in place of the histogram: what the chosen chunk (or
/// the first) is embedded as, context line highlighted, with its sizes.
fn embedded_as(m: &Model, p: usize, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let pane = &m.panes[p];
    let at = if p == m.active { m.selected.unwrap_or(0) } else { 0 };
    let Some(embed) = pane.chunks.get(at).and_then(|c| c.meta.embed.as_ref()) else {
        return;
    };
    let title = format!(
        "#{at} embedded: {} {} · {} tok{}",
        embed.size,
        pane.config.unit,
        embed.tokens,
        if pane.config.embed_text.fit { " (held to size)" } else { "" }
    );
    // The context line is what the embed text holds in front of the chunk's own text.
    let chunk_text = pane.chunks[at].checked_text(&m.text).unwrap_or_default();
    let context = embed.text.strip_suffix(chunk_text).and_then(|c| c.strip_suffix(crate::contextual::SEPARATOR));
    let (context, text) = match context {
        Some(context) => (context, chunk_text),
        None => ("", embed.text.as_str()),
    };
    // Wrapped and drawn as the document pane is (wide glyphs, marks and
    // all), so that a row takes the columns the terminal gives it.
    let mut y = area.y;
    for (part, style) in [(title.as_str(), theme.accent), (context, theme.warn), (text, theme.text)] {
        if part.is_empty() {
            continue;
        }
        for row in crate::tui::state::layout::Layout::rows(part, area.width.max(1) as usize) {
            if y >= area.y + area.height {
                return;
            }
            super::doc::Row::new(area.x, y, area.x + area.width).text(buf, row, style);
            y += 1;
        }
    }
}

/// Chunk sizes as a sparkline over [0, max], with the axis ends labelled.
fn histogram(m: &Model, p: usize, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let chunks = &m.panes[p].chunks;
    if area.height == 0 || area.width < 10 || chunks.is_empty() || super::summary::counting(m, p) {
        return;
    }
    let label = format!("{}", m.panes[p].stats.max);
    let w = area.width.saturating_sub(label.len() as u16 + 3);
    let data: Vec<u64> = Stats::histogram(chunks, w as usize).into_iter().map(|v| v as u64).collect();
    let style = if theme.no_color { Style::new() } else { theme.accent.remove_modifier(Modifier::BOLD) };
    Sparkline::default().data(&data).style(style).render(Rect { x: area.x + 2, width: w, ..area }, buf);
    buf.set_string(area.x, area.y + area.height - 1, "0", theme.dim);
    buf.set_string(area.x + 2 + w + 1, area.y + area.height - 1, label, theme.dim);
}

/// First list row shown so that `selected` stays visible, roughly centred
/// (`order`: the chunks in list order, see [`probe::list_order`]).
pub fn list_offset(m: &Model, order: &[usize], rows: usize) -> usize {
    let n = order.len();
    let at = m.selected.map(|s| order.iter().position(|&k| k == s).unwrap_or(s));
    match at {
        Some(s) if rows > 0 && n > rows => s.saturating_sub(rows / 2).min(n - rows),
        _ => 0,
    }
}

/// The chunk shown on list row `row` (0 = the first under the header).
pub fn chunk_at_row(m: &Model, rows: usize, row: usize) -> Option<usize> {
    let order = probe::list_order(m);
    order.get(list_offset(m, &order, rows) + row).copied()
}

pub fn list(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    if area.height < 3 {
        return;
    }
    let pane = m.pane();
    let b = block(" Chunks ", theme);
    let inner = b.inner(area);
    b.render(area, buf);
    // Size in the unit, then tokens and chars unless that is the unit already.
    let unit = pane.config.unit;
    let (show_tok, show_chars) = (unit != Unit::Tokens, unit != Unit::Chars);
    // A reference mark column with --queries, a rank column once a question is asked.
    let questions = m.questions.as_ref().filter(|q| q.doc_rev == m.doc_rev);
    let lit = probe::lit(m, m.active);
    let ranks = !lit.is_empty();
    let mut head = format!(
        "{}    #{} {:>6}",
        if questions.is_some() { " " } else { "" },
        if ranks { "  rk" } else { "" },
        unit.name()
    );
    if show_tok {
        head.push_str("   tok");
    }
    if show_chars {
        head.push_str(" chars");
    }
    head.push_str("  ovl text");
    buf.set_stringn(inner.x, inner.y, head, inner.width as usize, theme.dim.add_modifier(Modifier::UNDERLINED));
    if super::summary::counting(m, m.active) {
        buf.set_stringn(
            inner.x + 1,
            inner.y + 1,
            super::summary::chunk_count(m, m.active),
            inner.width as usize,
            theme.dim,
        );
        return;
    }
    let rows = inner.height.saturating_sub(1) as usize;
    let order = probe::list_order(m);
    let off = list_offset(m, &order, rows);
    let text: &str = &m.text;
    let limit = pane.limit();
    for (row, &k) in order.iter().skip(off).take(rows).enumerate() {
        let c = &pane.chunks[k];
        let y = inner.y + 1 + row as u16;
        let tokens = pane.tokens.as_ref().and_then(|t| t.get(k).copied());
        let over = limit.is_some_and(|l| c.size > l) || m.max_tokens.zip(tokens).is_some_and(|(max, t)| t > max);
        // Checked slices: a range that does not fit the text draws as empty, never panics.
        let ovl = pane.chunks.get(k + 1).map_or(0, |n| {
            let r = n.range.start..c.range.end.min(n.range.end);
            text.get(r).map_or(0, |s| s.chars().count())
        });
        let chunk_text = c.checked_text(text).unwrap_or("");
        let chars = chunk_text.chars().count();
        let preview: String = chunk_text
            .trim_start()
            .chars()
            .take(inner.width as usize)
            .map(|ch| if ch.is_control() { ' ' } else { ch })
            .collect();
        let tok = tokens.map_or("…".to_string(), |t| t.to_string());
        let row_style = if m.selected == Some(k) { theme.selected } else { theme.text };
        let flag = if over { "!" } else { " " };
        let mut cells = format!(" {:>6}", c.size);
        if show_tok {
            cells.push_str(&format!(" {tok:>5}"));
        }
        if show_chars {
            cells.push_str(&format!(" {chars:>5}"));
        }
        cells.push_str(&format!(" {ovl:>4} "));
        let mut x = inner.x;
        x = buf.set_stringn(x, y, flag, 1, theme.warn).0;
        if let Some(q) = questions {
            let mark = if q.holds_reference(&c.range) { "•" } else { " " };
            x = buf.set_stringn(x, y, mark, 1, theme.accent).0;
        }
        let idx_style = if theme.no_color { Style::new() } else { theme.chunk(k) };
        x = buf.set_stringn(x, y, format!("{k:>4}"), 4, idx_style.add_modifier(Modifier::BOLD)).0;
        if ranks {
            let rank = lit.iter().find(|h| h.0 == k).map_or(String::new(), |h| format!("#{}", h.1));
            let style = if rank.is_empty() { theme.text } else { theme.badge };
            x = buf.set_stringn(x, y, " ", 1, theme.text).0;
            x = buf.set_stringn(x, y, format!("{rank:>3}"), 3, style).0;
        }
        let size_style = if over { theme.warn } else { row_style };
        let end = inner.x + inner.width;
        x = buf.set_stringn(x, y, cells, end.saturating_sub(x) as usize, size_style).0;
        // Cell by cell as the document pane draws text (marks and all).
        super::doc::Row::new(x, y, end).text(buf, &preview, row_style);
    }
}

pub fn compare_stats(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    if area.height < 3 {
        return;
    }
    let half = area.width / 2;
    for p in 0..2 {
        let r = Rect { x: area.x + half * p as u16, width: if p == 0 { half } else { area.width - half }, ..area };
        let title = format!(
            " {}{}: {} ",
            if m.active == p { "▶" } else { "" },
            ["A", "B"][p],
            super::summary::settings_summary(m, p)
        );
        let b = block(&title, theme);
        let inner = b.inner(r);
        b.render(r, buf);
        let mut lines = stats_lines(m, p, theme);
        if let Some(line) = crate::tui::view::probe::summary_line(m, p, theme) {
            lines.insert(1.min(lines.len()), line);
        }
        if p == 1 {
            // Second, where the box (four rows high) always shows it.
            if let Some(line) = super::compare::summary_line(m, theme) {
                lines.insert(1.min(lines.len()), line);
            }
        }
        lines.push(Line::styled(option_summary(m, p), theme.dim));
        lines.extend(error_lines(m, p, theme, inner.width));
        Paragraph::new(lines).render(inner, buf);
    }
}
