//! Widgets against ratatui Buffers, styles included: colour is the meaning.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::tui::app::model::Model;
use chunktui::tui::app::msg::{Cmd, Msg};
use chunktui::tui::app::update::{start, update};
use chunktui::tui::jobs::chunk::chunk_now;
use chunktui::tui::view::theme::Theme;
use chunktui::tui::view::{self, doc};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use std::sync::Arc;

fn model(text: &str, size: usize, overlap: usize, screen: Rect) -> Model {
    let mut c = ChunkConfig::default();
    c.strategy = StrategyKind::Fixed;
    c.size = size;
    c.overlap = overlap;
    let mut m = Model::new(Document::from_text(text, DocKind::Text), c.clone(), c, screen);
    for cmd in start(&mut m) {
        if let Cmd::Rechunk { pane, rev, config, text, .. } = cmd {
            let result = chunk_now(&config, &text).map(|(c, s)| (Arc::new(c), s));
            update(&mut m, Msg::Chunked { pane, rev, result });
        }
    }
    m
}

/// Screen cell of the char at byte `b` of a one-line-per-row document.
fn cell_of(m: &Model, area: Rect, b: usize) -> (u16, u16) {
    let line = m.layout.line_of(b);
    let (s, _) = m.layout.lines[line];
    let col: usize = m.text[s as usize..b].chars().map(chunktui::tui::view::layout::char_width).sum();
    (area.x + view::gutter_width(area.width) + col as u16, area.y + (line - m.top) as u16)
}

#[test]
fn overlap_cells_differ_from_both_neighbours() {
    let text = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
    let area = Rect::new(0, 0, 60, 3);
    let m = model(text, 20, 5, area);
    let chunks = &m.panes[0].chunks;
    assert!(chunks.len() >= 3);
    let theme = Theme::dark();
    let mut buf = Buffer::empty(area);
    doc::render(&m, 0, &theme, area, &mut buf);
    let (c0, c1) = (&chunks[0], &chunks[1]);
    assert!(c0.range.end > c1.range.start, "fixed chunks overlap");
    let only0 = buf[cell_of(&m, area, c0.range.start)].style();
    let shared = buf[cell_of(&m, area, c1.range.start)].style();
    let only1 = buf[cell_of(&m, area, c0.range.end)].style();
    assert_eq!(only0.bg, theme.chunk(0).bg);
    assert_eq!(only1.bg, theme.chunk(1).bg);
    assert_eq!(shared.bg, theme.overlap.bg);
    assert!(shared.add_modifier.contains(Modifier::UNDERLINED));
    assert_ne!(shared.bg, only0.bg);
    assert_ne!(shared.bg, only1.bg);
    assert_ne!(only0.bg, only1.bg, "neighbouring chunks have different backgrounds");
    // Every overlap byte has the overlap style.
    for r in chunktui::chunk::overlaps(chunks) {
        for b in r {
            assert_eq!(buf[cell_of(&m, area, b)].style().bg, theme.overlap.bg, "byte {b}");
        }
    }
    // The gutter numbers the chunk starting on the line.
    let gutter: String = (0..4).map(|x| buf[(x, 0)].symbol().to_string()).collect();
    assert_eq!(gutter.trim(), "0+");
}

#[test]
fn no_color_alternates_by_style_not_colour() {
    let text = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
    let area = Rect::new(0, 0, 60, 3);
    let m = model(text, 20, 5, area);
    let theme = Theme::no_color();
    let mut buf = Buffer::empty(area);
    doc::render(&m, 0, &theme, area, &mut buf);
    let chunks = &m.panes[0].chunks;
    let only0 = buf[cell_of(&m, area, 0)].style();
    let shared = buf[cell_of(&m, area, chunks[1].range.start)].style();
    let only1 = buf[cell_of(&m, area, chunks[0].range.end)].style();
    for s in [only0, shared, only1] {
        assert!(matches!(s.fg, None | Some(Color::Reset)) && matches!(s.bg, None | Some(Color::Reset)), "{s:?}");
    }
    assert!(shared.add_modifier.contains(Modifier::REVERSED));
    assert_ne!(only0.add_modifier, only1.add_modifier);
    assert_ne!(shared.add_modifier, only0.add_modifier);
    assert_ne!(shared.add_modifier, only1.add_modifier);
}

#[test]
fn wide_chars_wrap_by_display_width_and_are_never_cut() {
    let text = "一二三四五六七八九十甲乙丙丁戊己庚辛壬癸\nabc";
    let area = Rect::new(0, 0, 16, 6); // gutter 0 below 30 columns: 16 text columns
    let m = model(text, 100, 0, area);
    assert_eq!(m.layout.lines.len(), 4, "20 wide chars in 16 columns: 8, 8, 4, then abc");
    let theme = Theme::dark();
    let mut buf = Buffer::empty(area);
    doc::render(&m, 0, &theme, area, &mut buf);
    let row0: String = (0..16).map(|x| buf[(x, 0)].symbol().to_string()).collect();
    assert!(row0.starts_with("一") && row0.contains("八"), "{row0:?}");
    assert_eq!(buf[(1, 0)].symbol(), " ", "the cell under a wide glyph's right half is left blank");
    let row1: String = (0..16).map(|x| buf[(x, 1)].symbol().to_string()).collect();
    assert!(row1.starts_with("九"), "{row1:?}");
}

#[test]
fn selected_chunk_is_highlighted_in_the_document() {
    let text = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ";
    let area = Rect::new(0, 0, 60, 3);
    let mut m = model(text, 20, 5, area);
    m.selected = Some(1);
    let theme = Theme::dark();
    let mut buf = Buffer::empty(area);
    doc::render(&m, 0, &theme, area, &mut buf);
    let c1 = &m.panes[0].chunks[1];
    let c0_end = m.panes[0].chunks[0].range.end;
    assert!(c1.range.contains(&c0_end));
    assert_eq!(buf[cell_of(&m, area, c0_end)].style().bg, theme.selected.bg);
    assert_eq!(buf[cell_of(&m, area, 0)].style().bg, theme.chunk(0).bg);
}

#[test]
fn tiny_and_odd_terminals_do_not_panic_and_show_the_count() {
    let text: String = (0..50).map(|i| format!("段落{i}。Paragraph {i} text here.\n\n")).collect();
    for (w, h) in [(40, 10), (20, 5), (1, 1), (3, 2), (79, 24), (200, 60)] {
        let area = Rect::new(0, 0, w, h);
        let mut m = model(&text, 50, 10, area);
        update(&mut m, Msg::Resized(w, h));
        let mut buf = Buffer::empty(area);
        for theme in [Theme::dark(), Theme::no_color()] {
            view::render(&m, &theme, area, &mut buf);
        }
        m.compare = true;
        update(&mut m, Msg::Resized(w, h));
        view::render(&m, &Theme::dark(), area, &mut buf);
        m.mode = chunktui::tui::app::model::Mode::Help;
        view::render(&m, &Theme::dark(), area, &mut buf);
        if w >= 40 {
            m.compare = false;
            m.mode = chunktui::tui::app::model::Mode::Normal;
            update(&mut m, Msg::Resized(w, h));
            let mut buf = Buffer::empty(area);
            view::render(&m, &Theme::dark(), area, &mut buf);
            let header: String = (0..w).map(|x| buf[(x, 0)].symbol().to_string()).collect();
            assert!(header.contains(&format!("{} chunks", m.panes[0].chunks.len())), "{w}x{h}: {header}");
        }
    }
}

#[test]
fn chunk_list_flags_chunks_over_the_limit() {
    let text: String = (0..30).map(|i| format!("para {i} words words words\n\n")).collect();
    let area = Rect::new(0, 0, 120, 40);
    let mut m = model(&text, 40, 0, area);
    let mut chunks = (*m.panes[0].chunks).clone();
    chunks[1].size = 999; // pretend the strategy broke its promise
    m.panes[0].chunks = Arc::new(chunks);
    let theme = Theme::dark();
    let mut buf = Buffer::empty(area);
    view::render(&m, &theme, area, &mut buf);
    let g = view::regions(area, false, false);
    let row = |k: u16| -> String {
        (g.list.x + 1..g.list.x + g.list.width - 1).map(|x| buf[(x, g.list.y + 2 + k)].symbol().to_string()).collect()
    };
    assert!(row(1).starts_with("!   1    999"), "{:?}", row(1));
    assert!(row(0).starts_with("    0"), "{:?}", row(0));
    assert_eq!(buf[(g.list.x + 1, g.list.y + 3)].style().fg, theme.warn.fg);
}

#[test]
fn search_highlights_every_visible_occurrence() {
    let text = "find me here, and find me there.\nno match on this line\nfind again\n";
    let area = Rect::new(0, 0, 60, 6);
    let mut m = model(text, 20, 0, area);
    m.last_search = Some("find".into());
    let theme = Theme::resolve(Some("dark"), false).unwrap();
    let mut buf = Buffer::empty(area);
    doc::render(&m, 0, &theme, area, &mut buf);
    let hits: Vec<usize> = text.match_indices("find").map(|(i, _)| i).collect();
    assert_eq!(hits.len(), 3);
    for b in hits {
        for k in 0..4 {
            let (x, y) = cell_of(&m, area, b + k);
            assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED), "byte {} not highlighted", b + k);
        }
    }
    let (x, y) = cell_of(&m, area, text.find("match").unwrap());
    assert!(!buf[(x, y)].modifier.contains(Modifier::REVERSED));
}

#[test]
fn help_box_border_is_not_covered_by_a_wide_glyph_left_of_it() {
    let text: String = (0..40).map(|i| format!("中文中文中文中文中文中文中文中文中文中文中文中文 {i}\n")).collect();
    let area = Rect::new(0, 0, 80, 30);
    let mut m = model(&text, 50, 0, area);
    m.mode = chunktui::tui::app::model::Mode::Help;
    let mut buf = Buffer::empty(area);
    view::render(&m, &Theme::dark(), area, &mut buf);
    let left = (0..area.width).find(|&x| buf[(x, 5)].symbol() == "│").expect("help border on row 5");
    for y in 2..28 {
        assert_eq!(buf[(left, y)].symbol(), "│", "row {y}");
        assert!(
            unicode_width::UnicodeWidthStr::width(buf[(left - 1, y)].symbol()) <= 1,
            "row {y}: a wide glyph covers the border"
        );
    }
}

#[test]
fn footer_never_cuts_a_label_and_keeps_quit_and_help() {
    let text = "one two three\n";
    for w in [40u16, 80, 120, 200] {
        let area = Rect::new(0, 0, w, 24);
        let mut m = model(text, 5, 0, area);
        for compare in [false, true] {
            m.compare = compare;
            let mut buf = Buffer::empty(area);
            view::render(&m, &Theme::dark(), area, &mut buf);
            let g = view::regions_of(&m);
            let line: String = (0..w).map(|x| buf[(x, g.footer.y)].symbol().to_string()).collect();
            assert!(line.starts_with(" q quit  ? help"), "{w}: {line:?}");
            let shown =
                view::footer::items(&m).into_iter().take_while(|(k, l)| line.contains(&format!(" {k} {l} "))).count();
            let rest = line[line.find(&format!(" {} ", view::footer::items(&m)[shown.max(1) - 1].1)).unwrap()..]
                .trim_end()
                .to_string();
            assert!(rest.split("  ").count() == 1, "{w}: something after the last whole item: {line:?}");
        }
    }
}

/// The screen's rows as text.
fn rows(buf: &Buffer) -> Vec<String> {
    let a = buf.area;
    (a.y..a.y + a.height).map(|y| (a.x..a.x + a.width).map(|x| buf[(x, y)].symbol()).collect()).collect()
}

#[test]
fn a_long_status_says_it_goes_on_and_a_size_never_read_is_not_shown() {
    let area = Rect::new(0, 0, 80, 24);
    let mut m = model("Some text to cut.\n", 20, 5, area);
    m.status.text = format!("{} 结尾", "a message far too long for one status line ".repeat(3));
    let mut buf = Buffer::empty(area);
    view::render(&m, &Theme::dark(), area, &mut buf);
    let screen = rows(&buf);
    let last = screen.last().unwrap().trim_end();
    assert!(last.ends_with('…'), "{last:?}");
    assert!(!last.contains("结尾"), "{last:?}");
    assert!(view::settings_summary(&m, 0).starts_with("fixed 20/5"), "{}", view::settings_summary(&m, 0));
    m.panes[0].config.strategy = StrategyKind::Document;
    let summary = view::settings_summary(&m, 0);
    assert!(summary.contains("no size limit") && !summary.contains("20"), "{summary}");
}
