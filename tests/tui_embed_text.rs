//! The workbench's embed-text key (`x`): off → shown → held to the size →
//! off, with the chosen chunk's embed text (context line first) on screen,
//! and a strategy that cannot hold it to the size skipping that step.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::tui::app::model::Model;
use chunktui::tui::app::msg::{Cmd, Msg};
use chunktui::tui::app::update::{start, update};
use chunktui::tui::jobs::chunk::chunk_now;
use chunktui::tui::view;
use chunktui::tui::view::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::Terminal;
use std::sync::Arc;

const TEXT: &str =
    "# 指南\n\nIntro text for the guide.\n\n## Timeouts\n\nIt defaults to thirty seconds. Raise it for slow \
                    disks and for networks that drop packets now and then.\n";

fn run(m: &mut Model, cmds: Vec<Cmd>) {
    let mut queue = cmds;
    while let Some(cmd) = queue.pop() {
        if let Cmd::Rechunk { pane, rev, config, text, .. } = cmd {
            let result = chunk_now(&config, &text).map(|(c, s)| (Arc::new(c), s));
            queue.extend(update(m, Msg::Chunked { pane, rev, result }));
        }
    }
}

fn model(strategy: StrategyKind) -> Model {
    let mut c = ChunkConfig::default();
    c.strategy = strategy;
    c.size = 60;
    c.overlap = 0;
    let mut doc = Document::from_text(TEXT, DocKind::Markdown);
    doc.path = Some("guide.md".into());
    let mut m = Model::new(doc, c.clone(), c, Rect::new(0, 0, 110, 34));
    let cmds = start(&mut m);
    run(&mut m, cmds);
    m
}

fn press(m: &mut Model, c: char) {
    let cmds = update(m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)));
    run(m, cmds);
}

fn screen(m: &Model) -> String {
    let mut t = Terminal::new(TestBackend::new(m.screen.width, m.screen.height)).unwrap();
    t.draw(|f| view::draw(m, &Theme::dark(), f)).unwrap();
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

#[test]
fn x_cycles_embed_text_and_the_chosen_chunk_shows_what_is_embedded() {
    let mut m = model(StrategyKind::Markdown);
    assert!(m.pane().chunks.iter().all(|c| c.meta.embed.is_none()));
    assert!(!screen(&m).contains("embedded:"));

    press(&mut m, 'x');
    assert!(m.pane().config.embed_text.enabled && !m.pane().config.embed_text.fit);
    assert!(m.pane().chunks.iter().all(|c| c.meta.embed.is_some()), "rechunked with embed text");
    // Choose the chunk with "thirty" in it: its context line is the heading path.
    let at = m.pane().chunks.iter().position(|c| m.text[c.range.clone()].contains("thirty")).unwrap();
    while m.selected != Some(at) {
        press(&mut m, 'n');
    }
    let shown = screen(&m);
    assert!(shown.contains(&format!("#{at} embedded:")), "{shown}");
    // The chunk opens with its own heading (headings stay with their text),
    // so the context line is the path above it. (A wide glyph fills two
    // cells: it reads "指 南" here.)
    assert!(shown.contains("│指 南 "), "{shown}");
    assert!(shown.contains("│## Timeouts "), "{shown}");
    assert!(m.pane().chunks[at].meta.embed.as_ref().unwrap().text.contains("It defaults to thirty seconds."));

    press(&mut m, 'x');
    assert!(m.pane().config.embed_text.fit);
    let size = m.pane().config.size;
    assert!(m.pane().chunks.iter().all(|c| c.meta.embed.as_ref().unwrap().size <= size));
    assert!(screen(&m).contains("(held to size)"));

    press(&mut m, 'x');
    assert!(!m.pane().config.embed_text.enabled);
    assert!(m.pane().chunks.iter().all(|c| c.meta.embed.is_none()));
}

#[test]
fn a_strategy_that_cannot_hold_embed_text_to_size_goes_from_shown_to_off() {
    let mut m = model(StrategyKind::LangchainRecursive);
    press(&mut m, 'x');
    assert!(m.pane().config.embed_text.enabled);
    press(&mut m, 'x');
    assert!(!m.pane().config.embed_text.enabled && !m.pane().config.embed_text.fit);
    assert!(m.status.text.contains("cannot hold"), "{}", m.status.text);

    // Holding to size, then switching to a strategy that cannot: still shown, no longer held.
    let mut m = model(StrategyKind::Markdown);
    press(&mut m, 'x');
    press(&mut m, 'x');
    while m.pane().config.strategy != StrategyKind::LangchainRecursive {
        press(&mut m, 's');
    }
    let e = &m.pane().config.embed_text;
    assert!(e.enabled && !e.fit);
    assert!(m.pane().error.is_none(), "{:?}", m.pane().error);
}
