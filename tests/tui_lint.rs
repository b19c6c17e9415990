//! Chunk lint in the workbench: every new cut is linted (as the lint thread
//! would), `⚑` marks the lines findings point into, in the warn colour; the
//! stats count them; `L` shows the lint panel, `!` selects the next finding;
//! a lint of older chunks is dropped.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::lint::Rule;
use chunktui::tui::app::model::Model;
use chunktui::tui::app::msg::{Cmd, Msg};
use chunktui::tui::app::update::{start, update};
use chunktui::tui::jobs::chunk::chunk_now;
use chunktui::tui::view::theme::Theme;
use chunktui::tui::view::{self, lint::MARK};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::sync::Arc;

const TEXT: &str = "# 指南\n\nIntro text for the guide. It says what follows.\n\n## Install\n\n\
Run the installer and wait. It takes a minute on most machines, longer on slow disks.\n\n\
## 中文\n\n分块是第一步。每个块都有大小限制！好的分块让检索更准确。\n";

/// Answer chunk and lint commands as the worker threads would; returns
/// the lint commands seen.
fn run(m: &mut Model, cmds: Vec<Cmd>) -> usize {
    let mut queue = cmds;
    let mut lints = 0;
    while let Some(cmd) = queue.pop() {
        match cmd {
            Cmd::Rechunk { pane, rev, config, text, .. } => {
                let result = chunk_now(&config, &text).map(|(c, s)| (Arc::new(c), s));
                queue.extend(update(m, Msg::Chunked { pane, rev, result }));
            }
            Cmd::Lint(req) => {
                lints += 1;
                let msg = chunktui::tui::features::lint::run(&req, &mut Default::default());
                queue.extend(update(m, msg));
            }
            _ => {}
        }
    }
    lints
}

fn model(strategy: StrategyKind, size: usize) -> Model {
    let c = ChunkConfig { strategy, size, overlap: 0, ..ChunkConfig::default() };
    let mut doc = Document::from_text(TEXT, DocKind::Markdown);
    doc.path = Some("guide.md".into());
    let mut m = Model::new(doc, c.clone(), c, Rect::new(0, 0, 120, 40));
    let cmds = start(&mut m);
    assert_eq!(run(&mut m, cmds), 2, "both panes are linted");
    m
}

fn key(m: &mut Model, c: char) {
    let cmds = update(m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)));
    run(m, cmds);
}

fn render(m: &Model) -> Buffer {
    let mut buf = Buffer::empty(m.screen);
    view::render(m, &Theme::dark(), m.screen, &mut buf);
    buf
}

fn row_text(buf: &Buffer, y: u16, from: u16, to: u16) -> String {
    (from..to).map(|x| buf[(x, y)].symbol()).collect()
}

#[test]
fn findings_are_marked_in_the_margin_in_the_warn_colour() {
    let m = model(StrategyKind::Fixed, 30);
    let lint = &m.panes[0].lint;
    assert!(lint.rev != 0 && !lint.shown.is_empty(), "a 30-char fixed cut has findings: {lint:?}");
    let buf = render(&m);
    let doc = view::regions_of(&m).docs[0];
    let mark_x = doc.x + view::gutter_width(doc.width) - 1;
    let theme = Theme::dark();
    for row in 0..doc.height {
        let li = m.top + row as usize;
        let Some(&(s, _)) = m.layout.lines.get(li) else { break };
        let next = m.layout.start_of(li + 1).max(s as usize + 1);
        let points = lint.shown.iter().any(|f| (s as usize..next).contains(&f.at));
        let cell = &buf[(mark_x, doc.y + row)];
        if cell.symbol() == "▶" {
            continue; // the selection wins the cell
        }
        assert_eq!(cell.symbol() == MARK, points, "line {li} ({:?})", &m.text[s as usize..next]);
        if points {
            assert_eq!(cell.fg, theme.warn.fg.unwrap(), "line {li}");
        }
    }
    // The stats count them, per rule.
    let stats = view::regions_of(&m).stats;
    let rows: String =
        (stats.y..stats.y + stats.height).map(|y| row_text(&buf, y, stats.x, stats.x + stats.width)).collect();
    let (rule, n) = lint.counts.iter().find(|(_, n)| *n > 0).expect("a rule with findings");
    assert!(rows.contains(&format!("{MARK} {n} {rule}")), "{rows}");
    assert!(lint.counts.iter().any(|(r, _)| *r == Rule::OrphanHeading), "Markdown rules ran");
}

#[test]
fn the_lint_panel_lists_the_selected_chunks_findings_and_next_finding_selects() {
    let mut m = model(StrategyKind::Fixed, 30);
    assert_eq!(view::regions_of(&m).panel("lint_panel"), Rect::default(), "hidden until L");
    key(&mut m, 'L');
    let panel = view::regions_of(&m).panel("lint_panel");
    assert!(panel.height > 0);
    key(&mut m, '!');
    let first = m.panes[0].lint.shown[0].clone();
    assert_eq!(m.selected, Some(first.chunk));
    assert!(m.status.text.contains(first.rule.name()), "{}", m.status.text);
    let buf = render(&m);
    let rows: Vec<String> =
        (panel.y..panel.y + panel.height).map(|y| row_text(&buf, y, panel.x, panel.x + panel.width)).collect();
    assert!(rows[0].contains(" Lint "), "{rows:#?}");
    assert!(rows.iter().any(|r| r.contains(&format!("#{} {}:", first.chunk, first.rule))), "{rows:#?}");
    // The next key moves on to a later finding of another chunk.
    key(&mut m, '!');
    let second = m.selected.unwrap();
    assert!(second != first.chunk, "moved on from chunk {}", first.chunk);
    assert!(m.panes[0].lint.of_chunk(second).next().is_some());
    key(&mut m, 'L');
    assert_eq!(view::regions_of(&m).panel("lint_panel"), Rect::default());
}

#[test]
fn a_lint_of_older_chunks_is_dropped_and_a_new_cut_clears_the_marks() {
    let mut m = model(StrategyKind::Fixed, 30);
    let old = m.panes[0].shown_rev;
    // The size changes: the new chunks are in, their lint not yet.
    let cmds = update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char('+'), KeyModifiers::NONE)));
    let [Cmd::Rechunk { pane, rev, config, text, .. }] = &cmds[..] else { panic!("{cmds:?}") };
    let result = chunk_now(config, text).map(|(c, s)| (Arc::new(c), s));
    let cmds = update(&mut m, Msg::Chunked { pane: *pane, rev: *rev, result });
    assert!(m.panes[0].lint.shown.is_empty() && m.panes[0].lint.rev == 0, "no marks of the old chunks");
    let [Cmd::Lint(req)] = &cmds[..] else { panic!("{cmds:?}") };
    // A late answer for the old chunks: dropped.
    let stale = chunktui::tui::features::lint::LintReq { rev: old, ..req.clone() };
    update(&mut m, chunktui::tui::features::lint::run(&stale, &mut Default::default()));
    assert_eq!(m.panes[0].lint.rev, 0);
    update(&mut m, chunktui::tui::features::lint::run(req, &mut Default::default()));
    assert_eq!(m.panes[0].lint.rev, *rev);
}

#[test]
fn hierarchical_findings_follow_the_level_on_screen() {
    let mut m = model(StrategyKind::Hierarchical, 160);
    let p = &m.panes[0];
    let all = p.lint.all.len();
    let shown0 = p.lint.shown.clone();
    assert!(shown0.iter().all(|f| f.chunk < p.chunks.len()));
    key(&mut m, 'l');
    let p = &m.panes[0];
    assert_eq!(p.level, 1);
    assert!(p.lint.shown.iter().all(|f| f.chunk < p.chunks.len()));
    let levels: usize = (0..chunktui::tui::features::levels::count(p)).count();
    assert!(levels >= 2);
    assert!(p.lint.shown.len() <= all && shown0.len() <= all);
    // The counts are the shown level's.
    let total: usize = p.lint.counts.iter().map(|(_, n)| n).sum();
    assert_eq!(total, p.lint.shown.len());
}
