//! Whole screens on ratatui's TestBackend, as insta snapshots: the text, and
//! a map of what each document cell means (chunk k, overlap, selected).

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::tui::app::model::{Mode, Model};
use chunktui::tui::app::msg::{Cmd, Msg};
use chunktui::tui::app::update::{start, update};
use chunktui::tui::jobs::chunk::chunk_now;
use chunktui::tui::view;
use chunktui::tui::view::theme::Theme;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::Terminal;
use std::sync::Arc;

const TEXT: &str = "# Chunking notes\n\nRetrieval works best when each chunk holds one idea. Too small and it loses context; too large and the embedding blurs topics.\n\n## 中文\n\n中文句子之间没有空格。切分器需要识别句末标点，例如句号、问号和感叹号。\n\n- overlap repeats the end of one chunk at the start of the next\n- sizes are counted in the chosen unit\n";

fn model(w: u16, h: u16, strategy: StrategyKind) -> Model {
    let mut c = ChunkConfig::default();
    c.strategy = strategy;
    c.size = 60;
    c.overlap = 15;
    let mut doc = Document::from_text(TEXT, DocKind::Markdown);
    doc.path = Some("notes.md".into());
    let mut m = Model::new(doc, c.clone(), c, Rect::new(0, 0, w, h));
    let mut queue = start(&mut m);
    while let Some(cmd) = queue.pop() {
        if let Cmd::Rechunk { pane, rev, config, text, .. } = cmd {
            let result = chunk_now(&config, &text).map(|(c, s)| (Arc::new(c), s));
            queue.extend(update(&mut m, Msg::Chunked { pane, rev, result }));
        }
    }
    m
}

fn screen(m: &Model) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(m.screen.width, m.screen.height)).unwrap();
    t.draw(|f| view::draw(m, &Theme::dark(), f)).unwrap();
    t
}

/// One char per cell of the document pane(s): `.` no chunk, `0`-`6` the
/// chunk colour (index mod 7), `#` overlap, `*` selected chunk.
fn meaning(t: &Terminal<TestBackend>, m: &Model) -> String {
    let theme = Theme::dark();
    let buf = t.backend().buffer();
    let g = view::regions_of(m);
    let mut out = String::new();
    for p in 0..m.visible_panes() {
        let d = g.docs[p];
        let gw = view::gutter_width(d.width);
        for y in d.y..d.y + d.height {
            let mut hidden = 0;
            for x in d.x + gw..d.x + d.width {
                if hidden > 0 {
                    // The right half of a wide glyph shows the glyph's cell.
                    hidden -= 1;
                    out.push(out.chars().last().unwrap_or('.'));
                    continue;
                }
                hidden = unicode_width::UnicodeWidthStr::width(buf[(x, y)].symbol()).saturating_sub(1);
                let bg = buf[(x, y)].style().bg;
                let c = if bg == theme.overlap.bg {
                    '#'
                } else if bg == theme.selected.bg {
                    '*'
                } else if let Some(k) = theme.chunks.iter().position(|s| s.bg == bg) {
                    char::from(b'0' + k as u8)
                } else {
                    '.'
                };
                out.push(c);
            }
            out.push('\n');
        }
        out.push_str("----\n");
    }
    out
}

#[test]
fn main_screen() {
    let mut m = model(110, 30, StrategyKind::Recursive);
    update(&mut m, Msg::KeyPressed(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('n'))));
    update(&mut m, Msg::KeyPressed(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('n'))));
    let t = screen(&m);
    insta::assert_snapshot!("main_text", t.backend());
    insta::assert_snapshot!("main_meaning", meaning(&t, &m));
}

#[test]
fn compare_screen() {
    let mut m = model(100, 24, StrategyKind::Fixed);
    update(&mut m, Msg::KeyPressed(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('c'))));
    m.panes[1].config.strategy = StrategyKind::Sentence;
    let cmds = update(&mut m, Msg::KeyPressed(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Tab)));
    assert!(cmds.is_empty());
    let mut queue =
        update(&mut m, Msg::KeyPressed(crossterm::event::KeyEvent::from(crossterm::event::KeyCode::Char('-'))));
    while let Some(cmd) = queue.pop() {
        if let Cmd::Rechunk { pane, rev, config, text, .. } = cmd {
            let result = chunk_now(&config, &text).map(|(c, s)| (Arc::new(c), s));
            queue.extend(update(&mut m, Msg::Chunked { pane, rev, result }));
        }
    }
    let t = screen(&m);
    insta::assert_snapshot!("compare_text", t.backend());
    insta::assert_snapshot!("compare_meaning", meaning(&t, &m));
}

#[test]
fn tiny_screen_and_help() {
    let m = model(40, 10, StrategyKind::Recursive);
    insta::assert_snapshot!("tiny_text", screen(&m).backend());
    let mut m = model(80, 30, StrategyKind::Recursive);
    m.mode = Mode::Help;
    insta::assert_snapshot!("help_text", screen(&m).backend());
}
