//! update() without a terminal: messages in, model and commands out.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::tui::app::model::{Mode, Model};
use chunktui::tui::app::msg::{Cmd, ExportKind, Msg};
use chunktui::tui::app::open::keymap;
use chunktui::tui::app::update::{start, update};
use chunktui::tui::jobs::chunk::chunk_now;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;
use std::sync::Arc;

fn text() -> String {
    (0..200).map(|i| format!("Line {i} has a few words in it. 第{i}行有一些中文。\n")).collect()
}

fn model_with(text: &str, size: usize, overlap: usize) -> Model {
    let mut c = ChunkConfig::default();
    c.strategy = StrategyKind::Fixed;
    c.size = size;
    c.overlap = overlap;
    let mut doc = Document::from_text(text, DocKind::Text);
    doc.path = Some("/tmp/doc.txt".into());
    Model::new(doc, c.clone(), c, Rect::new(0, 0, 100, 30))
}

/// Run commands the way the runtime would, synchronously.
fn run(m: &mut Model, cmds: Vec<Cmd>) {
    let mut queue = cmds;
    while let Some(cmd) = queue.pop() {
        match cmd {
            Cmd::Rechunk { pane, rev, config, text, .. } => {
                let result = chunk_now(&config, &text).map(|(c, s)| (Arc::new(c), s));
                queue.extend(update(m, Msg::Chunked { pane, rev, result }));
            }
            Cmd::Embed { pane, id, rev, key, config, text, cancel, first } => {
                let req =
                    chunktui::tui::features::embedder::EmbedReq { pane, id, rev, key, config, text, cancel, first };
                for msg in chunktui::tui::features::embedder::run_sync(&req) {
                    queue.extend(update(m, msg));
                }
            }
            _ => {}
        }
    }
}

fn key(c: char) -> Msg {
    Msg::KeyPressed(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(c: KeyCode) -> Msg {
    Msg::KeyPressed(KeyEvent::new(c, KeyModifiers::NONE))
}

fn ready() -> Model {
    let mut m = model_with(&text(), 100, 20);
    let cmds = start(&mut m);
    run(&mut m, cmds);
    m
}

#[test]
fn size_key_requests_a_rechunk_with_a_new_revision() {
    let mut m = ready();
    let before = m.panes[0].rev;
    let cmds = update(&mut m, key('+'));
    assert!(
        matches!(&cmds[..], [Cmd::Rechunk { pane: 0, rev, config, .. }] if *rev == before + 1 && config.size == 105)
    );
    assert!(m.panes[0].pending());
    assert_eq!(m.status.text, "size 105 chars");
    run(&mut m, cmds);
    assert!(!m.panes[0].pending());
    assert_eq!(m.panes[0].config.size, 105);
}

#[test]
fn a_size_key_re_cuts_nothing_for_a_strategy_without_a_size_limit() {
    for strategy in [StrategyKind::Document, StrategyKind::LangchainMarkdownHeader] {
        let mut m = model_with(&text(), 100, 0);
        m.panes[0].config.strategy = strategy;
        let cmds = start(&mut m);
        run(&mut m, cmds);
        let (chunks, rev) = (m.panes[0].chunks.clone(), m.panes[0].rev);
        for k in ['+', '-', '-'] {
            let before = m.panes[0].config.size;
            let cmds = update(&mut m, key(k));
            assert!(cmds.is_empty(), "{strategy} {k}: the same chunks need no cut: {}", cmds.len());
            let size = m.panes[0].config.size;
            assert_ne!(size, before, "{strategy} {k}: the size still follows the key (it is exported)");
            assert_eq!(m.status.text, format!("size {size} chars ({strategy}: no size limit, the same chunks)"));
            assert!(!m.panes[0].pending(), "{strategy}: nothing waits");
            assert_eq!((m.panes[0].rev, &m.panes[0].chunks), (rev, &chunks), "{strategy}");
        }
        // What the strategy reads (the unit its sizes are counted in) still re-cuts.
        let cmds = update(&mut m, key('u'));
        assert_eq!(cmds.len(), 1, "{strategy}: a new unit re-counts the chunks");
    }
    // A strategy that reads the size re-cuts on the same key.
    let mut m = ready();
    assert_eq!(update(&mut m, key('+')).len(), 1);
}

#[test]
fn stale_results_are_dropped_and_the_newest_wins() {
    let mut m = ready();
    let first = update(&mut m, key('+'));
    let second = update(&mut m, key('+'));
    let (Cmd::Rechunk { rev: old, config: c_old, text, .. }, Cmd::Rechunk { rev: new, config: c_new, .. }) =
        (&first[0], &second[0])
    else {
        panic!("expected rechunks")
    };
    let stale = chunk_now(c_old, text).unwrap();
    let fresh = chunk_now(c_new, text).unwrap();
    let fresh_len = fresh.0.len();
    update(&mut m, Msg::Chunked { pane: 0, rev: *new, result: Ok((Arc::new(fresh.0), fresh.1)) });
    update(&mut m, Msg::Chunked { pane: 0, rev: *old, result: Ok((Arc::new(stale.0), stale.1)) });
    assert_eq!(m.panes[0].chunks.len(), fresh_len);
    assert_eq!(m.panes[0].shown_rev, *new);
}

#[test]
fn size_down_keeps_overlap_below_size() {
    let mut m = model_with(&text(), 10, 9);
    for _ in 0..30 {
        let cmds = update(&mut m, key('-'));
        run(&mut m, cmds);
    }
    let c = &m.panes[0].config;
    assert_eq!(c.size, 1);
    assert_eq!(c.overlap, 0);
    assert!(m.panes[0].error.is_none());
}

#[test]
fn every_parameter_key_changes_the_config_and_rechunks() {
    let mut m = ready();
    for (k, check) in [
        ('s', Box::new(|c: &ChunkConfig| c.strategy == StrategyKind::Recursive) as Box<dyn Fn(&ChunkConfig) -> bool>),
        ('u', Box::new(|c: &ChunkConfig| c.unit == chunktui::Unit::Words)),
        ('t', Box::new(|c: &ChunkConfig| c.tokenizer == "o200k_base")),
        ('p', Box::new(|c: &ChunkConfig| c.recursive.preset == "chinese")),
        (']', Box::new(|c: &ChunkConfig| c.overlap == 25)),
        ('[', Box::new(|c: &ChunkConfig| c.overlap == 20)),
    ] {
        let cmds = update(&mut m, key(k));
        assert_eq!(cmds.len(), 1, "key {k}");
        assert!(check(&m.panes[0].config), "key {k}: {:?}", m.panes[0].config);
        run(&mut m, cmds);
        assert!(m.panes[0].error.is_none(), "key {k}: {:?}", m.panes[0].error);
    }
}

#[test]
fn model_strategy_errors_go_to_the_status_line() {
    let mut m = ready();
    m.panes[0].config.semantic.model = Some("/nonexistent/model".into());
    // S cycles through every strategy, model ones included.
    for _ in 0..StrategyKind::ALL.len() {
        let cmds = update(&mut m, key('S'));
        run(&mut m, cmds);
        if m.panes[0].config.strategy.needs_model() {
            break;
        }
    }
    assert!(m.panes[0].config.strategy.needs_model());
    assert!(m.status.error, "{:?}", m.status);
    assert!(m.panes[0].error.is_some());
}

#[test]
fn reload_keeps_the_place_and_rechunks() {
    let mut m = ready();
    for _ in 0..40 {
        update(&mut m, key('j'));
    }
    let top_byte = m.layout.start_of(m.top);
    assert!(top_byte > 0);
    let new_text = format!("{}appended at the end\n", text());
    let cmds = update(&mut m, Msg::FileReloaded(Ok(Document::from_text(new_text.clone(), DocKind::Text))));
    assert_eq!(m.layout.start_of(m.top), top_byte, "the view keeps its place");
    assert!(cmds.iter().any(|c| matches!(c, Cmd::Rechunk { pane: 0, .. })));
    assert!(cmds.iter().any(|c| matches!(c, Cmd::Highlight { .. })));
    run(&mut m, cmds);
    assert_eq!(&*m.text, new_text);
    assert!(m.status.text.starts_with("reloaded"), "{:?}", m.status);
}

#[test]
fn a_vanished_file_keeps_the_last_good_text_and_recovers() {
    let mut m = ready();
    let before = m.text.clone();
    let cmds = update(&mut m, Msg::FileReloaded(Err("/tmp/doc.txt: no such file".into())));
    assert!(cmds.is_empty());
    assert_eq!(m.text, before);
    assert!(m.status.error && m.status.text.contains("last good"), "{:?}", m.status);
    update(&mut m, Msg::FileReloaded(Ok(Document::from_text(before.to_string(), DocKind::Text))));
    assert!(!m.status.error, "{:?}", m.status);
}

#[test]
fn export_proposes_a_path_and_asks_before_overwriting() {
    let mut m = ready();
    update(&mut m, key('e'));
    let Mode::ExportPath { input, kind: ExportKind::Config } = &m.mode else { panic!("{:?}", m.mode) };
    assert_eq!(input, "/tmp/chunktui.toml");
    for _ in 0..4 {
        update(&mut m, code(KeyCode::Backspace));
    }
    for c in "json".chars() {
        update(&mut m, key(c));
    }
    let cmds = update(&mut m, code(KeyCode::Enter));
    let [Cmd::Export { path, overwrite: false, kind: ExportKind::Config, .. }] = &cmds[..] else { panic!("{cmds:?}") };
    assert_eq!(path.to_str(), Some("/tmp/chunktui.json"));
    update(&mut m, Msg::ExportConflicted { path: path.clone(), kind: ExportKind::Config });
    assert!(matches!(m.mode, Mode::ConfirmOverwrite { .. }));
    assert!(update(&mut m, key('n')).is_empty());
    assert!(m.status.text.contains("not written"));
    update(&mut m, Msg::ExportConflicted { path: path.clone(), kind: ExportKind::Config });
    let cmds = update(&mut m, key('y'));
    assert!(matches!(&cmds[..], [Cmd::Export { overwrite: true, .. }]));
    update(&mut m, Msg::Exported(Ok(path.clone())));
    assert_eq!(m.status.text, "wrote /tmp/chunktui.json");
}

#[test]
fn compare_edits_the_active_pane_only() {
    let mut m = ready();
    let w1 = m.layout.width;
    update(&mut m, key('c'));
    assert!(m.compare);
    assert!(m.layout.width < w1, "both panes share a narrower layout");
    update(&mut m, code(KeyCode::Tab));
    assert_eq!(m.active, 1);
    let cmds = update(&mut m, key('+'));
    run(&mut m, cmds);
    assert_eq!(m.panes[0].config.size, 100);
    assert_eq!(m.panes[1].config.size, 105);
    update(&mut m, key('c'));
    assert_eq!(m.active, 0);
}

#[test]
fn next_chunk_selects_and_scrolls_and_click_selects() {
    let mut m = ready();
    update(&mut m, key('n'));
    assert_eq!(m.selected, Some(0));
    for _ in 0..30 {
        update(&mut m, key('n'));
    }
    assert_eq!(m.selected, Some(30));
    let start = m.panes[0].chunks[30].range.start;
    let line = m.layout.line_of(start);
    assert!(line >= m.top && line < m.top + 27, "chunk start is on screen");
    // Click on the first text cell of the top row: the chunk under it.
    let top_byte = m.layout.start_of(m.top);
    let expect = m.panes[0].chunks.partition_point(|c| c.range.end <= top_byte);
    update(
        &mut m,
        Msg::MouseUsed(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 5,
            row: 1,
            modifiers: KeyModifiers::NONE,
        }),
    );
    assert_eq!(m.selected, Some(expect));
    let top = m.top;
    update(
        &mut m,
        Msg::MouseUsed(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: 5,
            row: 5,
            modifiers: KeyModifiers::NONE,
        }),
    );
    assert_eq!(m.top, top + 3);
}

#[test]
fn search_jumps_to_the_match() {
    let mut m = ready();
    update(&mut m, key('/'));
    for c in "第150行".chars() {
        update(&mut m, key(c));
    }
    update(&mut m, code(KeyCode::Enter));
    let b = m.text.find("第150行").unwrap();
    let line = m.layout.line_of(b);
    assert!(line >= m.top && line < m.top + 27);
    let sel = m.selected.unwrap();
    assert!(m.panes[0].chunks[sel].range.contains(&b) || m.panes[0].chunks[sel].range.end > b);
}

#[test]
fn resize_rewraps_and_keeps_the_top_byte() {
    let mut m = ready();
    for _ in 0..50 {
        update(&mut m, key('j'));
    }
    let top_byte = m.layout.start_of(m.top);
    update(&mut m, Msg::Resized(40, 10));
    let now = m.layout.start_of(m.top);
    assert!(now <= top_byte && m.layout.line_of(top_byte) == m.top, "{now} {top_byte}");
}

#[test]
fn keymap_file_remaps_actions() {
    let mut m = ready();
    let mut km = keymap();
    km.apply_toml("\"ctrl-s\" = \"export_chunks\"\n\"x\" = \"quit\"").unwrap();
    // A panel is bound by its name, as the others; its default key unbound.
    km.apply_toml("\"ctrl-l\" = \"lint_panel\"\n\"B\" = \"none\"").unwrap();
    m.keymap = km;
    update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)));
    assert!(matches!(m.mode, Mode::ExportPath { kind: ExportKind::Chunks, .. }));
    update(&mut m, code(KeyCode::Esc));
    update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char('l'), KeyModifiers::CONTROL)));
    assert!(m.panels.is_shown("lint_panel"), "{}", m.status.text);
    update(&mut m, key('L'));
    assert!(!m.panels.is_shown("lint_panel"), "L still hides it");
    update(&mut m, key('B'));
    assert!(!m.panels.is_shown("edits_panel"), "B unbound");
    update(&mut m, key('x'));
    assert!(m.quit);
}

#[test]
fn repeating_a_search_moves_on_to_the_next_match() {
    let mut m = ready();
    let search = |m: &mut Model, q: &str| {
        update(m, key('/'));
        for c in q.chars() {
            update(m, key(c));
        }
        update(m, code(KeyCode::Enter));
    };
    search(&mut m, "第15");
    let hits: Vec<usize> = m.text.match_indices("第15").map(|(i, _)| i).collect();
    let first = m.last_found.unwrap();
    assert_eq!(first, hits[0]);
    search(&mut m, ""); // `/` Enter repeats
    assert_eq!(m.last_found, Some(hits[1]), "{}", m.status.text);
    search(&mut m, "第15");
    assert_eq!(m.last_found, Some(hits[2]));
}

#[test]
fn a_status_message_clears_on_the_next_key() {
    let mut m = ready();
    update(&mut m, key('/'));
    update(&mut m, key('z'));
    update(&mut m, code(KeyCode::Enter));
    assert!(m.status.error && m.status.text.contains("not found"));
    update(&mut m, key('j'));
    assert_eq!(m.status.text, "");
    update(&mut m, key('+'));
    assert!(m.status.text.starts_with("size"), "a key's own message stays: {:?}", m.status);
}

#[test]
fn help_taller_than_the_screen_scrolls_and_other_keys_close_it() {
    let mut m = ready();
    update(&mut m, Msg::Resized(80, 24));
    update(&mut m, key('?'));
    assert_eq!(m.mode, Mode::Help);
    for _ in 0..100 {
        update(&mut m, key('j'));
    }
    let max = chunktui::tui::view::overlay::help_rows(&m) - 20;
    assert_eq!((m.mode.clone(), m.help_scroll), (Mode::Help, max));
    update(&mut m, code(KeyCode::Up));
    assert_eq!(m.help_scroll, max - 1);
    update(&mut m, key('q'));
    assert_eq!(m.mode, Mode::Normal);
    assert!(!m.quit, "q closes the help, it does not quit");
}
