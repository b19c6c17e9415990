//! The workbench with `hierarchical`: one level on screen at a time, the
//! level key (`l`) cycles it, the panel and footer say which, and the
//! selected chunk's parent is drawn as a band in the document's margin.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::tui::app::keymap::Action;
use chunktui::tui::app::model::Model;
use chunktui::tui::app::msg::{Cmd, ExportKind, Msg};
use chunktui::tui::app::update::{start, update};
use chunktui::tui::jobs::chunk::chunk_now;
use chunktui::tui::view::theme::Theme;
use chunktui::tui::view::{doc, footer, side};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::sync::Arc;

fn text() -> String {
    (0..60).map(|i| format!("Line {i} says a few words. 第{i}行说几句话。\n")).collect()
}

fn run(m: &mut Model, cmds: Vec<Cmd>) {
    let mut queue = cmds;
    while let Some(cmd) = queue.pop() {
        if let Cmd::Rechunk { pane, rev, config, text, .. } = cmd {
            let result = chunk_now(&config, &text).map(|(c, s)| (Arc::new(c), s));
            queue.extend(update(m, Msg::Chunked { pane, rev, result }));
        }
    }
}

fn model(screen: Rect) -> Model {
    let mut c = ChunkConfig { strategy: StrategyKind::Hierarchical, overlap: 0, ..Default::default() };
    c.hierarchical.levels = vec![600, 150, 40];
    let mut m = Model::new(Document::from_text(text(), DocKind::Text), c.clone(), c, screen);
    let cmds = start(&mut m);
    run(&mut m, cmds);
    m
}

fn key(m: &mut Model, c: char) -> Vec<Cmd> {
    update(m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)))
}

fn rows(buf: &Buffer, area: Rect) -> Vec<String> {
    (area.y..area.y + area.height)
        .map(|y| (area.x..area.x + area.width).map(|x| buf[(x, y)].symbol().to_string()).collect())
        .collect()
}

#[test]
fn one_level_at_a_time_and_l_cycles_through_them() {
    let mut m = model(Rect::new(0, 0, 100, 30));
    let p = &m.panes[0];
    assert_eq!(p.level, 0);
    assert!(p.chunks.iter().all(|c| c.meta.level == Some(0)));
    assert!(p.all_chunks.len() > p.chunks.len());
    let mut seen = Vec::new();
    for _ in 0..3 {
        let p = &m.panes[0];
        let level = p.level;
        assert!(p.chunks.iter().all(|c| c.meta.level == Some(level)), "level {level}");
        // The stats are the shown level's, held to its size.
        assert_eq!(p.stats.count, p.chunks.len());
        assert!(p.stats.max <= [600, 150, 40][level as usize], "{:?}", p.stats);
        assert_eq!(p.stats.over_limit, 0);
        seen.push((level, p.chunks.len()));
        key(&mut m, 'l');
        assert!(m.status.text.starts_with(&format!("level {}", (level + 1) % 3)), "{}", m.status.text);
    }
    assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), [0, 1, 2]);
    assert!(seen[0].1 < seen[1].1 && seen[1].1 < seen[2].1, "{seen:?}");
    assert_eq!(m.panes[0].level, 0, "after the deepest, the top again");
}

#[test]
fn the_panel_and_footer_show_the_level() {
    let mut m = model(Rect::new(0, 0, 120, 30));
    key(&mut m, 'l');
    let area = Rect::new(0, 0, 60, 12);
    let mut buf = Buffer::empty(area);
    side::params(&m, &Theme::dark(), area, &mut buf);
    let panel = rows(&buf, area).join("\n");
    assert!(panel.contains("600/[150]/40"), "{panel}");
    assert!(footer::items(&m).iter().any(|(k, l)| k == "l" && *l == "level"));
    assert_eq!(m.keymap.keys_for(Action::CycleLevel), ["l"]);
}

#[test]
fn the_selected_childs_parent_is_a_band_in_the_margin() {
    let area = Rect::new(0, 0, 80, 70);
    let mut m = model(area);
    key(&mut m, 'l'); // level 1
    let k = m.panes[0].chunks.len() / 2;
    m.selected = Some(k);
    let child = m.panes[0].chunks[k].clone();
    let parent_id = child.meta.parent_id.clone().expect("level 1 has parents");
    let parent = m.panes[0].all_chunks.iter().find(|c| c.meta.id.as_ref() == Some(&parent_id)).unwrap().clone();
    assert!(parent.range.start <= child.range.start && child.range.end <= parent.range.end);
    let mut buf = Buffer::empty(area);
    doc::render(&m, 0, &Theme::dark(), area, &mut buf);
    let margin: Vec<String> = rows(&buf, area).iter().map(|r| r.chars().next().unwrap().to_string()).collect();
    let line = |b: usize| m.layout.line_of(b) - m.top;
    let (first, last) = (line(parent.range.start), line(parent.range.end - 1));
    assert!(last > first, "the parent spans lines");
    assert_eq!(margin[first], "┌");
    assert_eq!(margin[last], "└");
    for (i, mark) in margin.iter().enumerate() {
        let inside = (first + 1..last).contains(&i);
        assert_eq!(mark == "│", inside, "row {i}: {mark:?}");
    }
    // No selection, no band.
    m.selected = None;
    let mut buf = Buffer::empty(area);
    doc::render(&m, 0, &Theme::dark(), area, &mut buf);
    assert!(rows(&buf, area).iter().all(|r| !r.starts_with(['┌', '│', '└'])));
}

#[test]
fn the_chunks_export_writes_every_level() {
    let mut m = model(Rect::new(0, 0, 100, 30));
    key(&mut m, 'l');
    let shown = m.panes[0].chunks.len();
    m.mode = chunktui::tui::app::model::Mode::ExportPath { input: "/tmp/x.jsonl".into(), kind: ExportKind::Chunks };
    let cmds = update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)));
    let Some(Cmd::Export { chunks, .. }) = cmds.into_iter().find(|c| matches!(c, Cmd::Export { .. })) else {
        panic!("no export")
    };
    assert!(chunks.len() > shown);
    assert_eq!(chunks.len(), m.panes[0].all_chunks.len());
}

#[test]
fn size_keys_scale_explicit_levels() {
    let mut m = model(Rect::new(0, 0, 100, 30));
    let cmds = key(&mut m, '>');
    let c = &m.panes[0].config;
    assert!(c.size > 600, "{}", c.size);
    assert_eq!(c.hierarchical.levels[0], c.size);
    assert_eq!(c.hierarchical.levels.len(), 3);
    c.validate().unwrap();
    run(&mut m, cmds);
    assert!(m.panes[0].error.is_none());
}

/// The counter counts every chunk of the result; each level shows its own
/// chunks' counts (they stayed "…" for hierarchical: the counts of all
/// levels never matched the shown level's length).
#[test]
fn token_counts_follow_the_shown_level() {
    let mut m = model(Rect::new(0, 0, 100, 30));
    let (rev, all) = (m.panes[0].rev, m.panes[0].all_chunks.clone());
    let counts: Vec<usize> = (0..all.len()).map(|i| 1000 + i).collect();
    assert!(m.panes[0].tokens.is_none());
    update(&mut m, Msg::TokensCounted { pane: 0, rev, counts: counts.clone() });
    let mut levels = Vec::new();
    for _ in 0..3 {
        let p = &m.panes[0];
        let want: Vec<usize> =
            all.iter().zip(&counts).filter(|(c, _)| c.meta.level == Some(p.level)).map(|(_, &n)| n).collect();
        assert_eq!(p.tokens.as_ref(), Some(&want), "level {}", p.level);
        assert_eq!(want.len(), p.chunks.len());
        levels.push(p.level);
        key(&mut m, 'l');
    }
    assert_eq!(levels, [0, 1, 2]);
    // Counts for another result (an older rev) are not taken.
    let stale = m.panes[0].rev.wrapping_sub(1);
    update(&mut m, Msg::TokensCounted { pane: 0, rev: stale, counts: vec![1; all.len()] });
    assert_ne!(m.panes[0].tokens.as_ref().map(|t| t[0]), Some(1));
}
