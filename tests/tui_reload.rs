//! Hot reload against late and stale worker results: random sequences of
//! reloads (texts of any length: empty, CJK, emoji, combining marks, CRLF),
//! worker answers delivered in any order (or never), keys, clicks and
//! resizes go through `update()` and are drawn into buffers of random
//! sizes. Nothing may panic, and the model may only ever hold chunks that
//! lie within the text on screen.

use chunktui::chunk::Chunk;
use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::tui::model::Model;
use chunktui::tui::msg::{Cmd, Msg};
use chunktui::tui::params::non_model_strategies;
use chunktui::tui::reload::fits;
use chunktui::tui::theme::Theme;
use chunktui::tui::update::{start, update};
use chunktui::tui::view;
use chunktui::tui::worker::chunk_now;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use proptest::prelude::*;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use std::sync::Arc;

/// Pieces texts are made of: prose, headings, code fences, CJK, emoji (one
/// a ZWJ sequence), a combining accent, tabs, CRLF, a control char.
const PIECES: [&str; 18] = [
    "alpha ",
    "beta gamma. ",
    "\n",
    "\n\n",
    "# Heading\n",
    "## 小节\n",
    "```\nfn main() {}\n```\n",
    "- item\n",
    "中文句子。",
    "「引号」，",
    "😀",
    "👩\u{200d}👩\u{200d}👧",
    "e\u{301}",
    "\t",
    "\r\n",
    " ",
    "supercalifragilisticexpialidocious",
    "\u{7}",
];

fn text_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        // Empty-ish.
        prop::sample::select(vec!["", " ", "\n", "x", "中", "😀", "\n\n\n"]).prop_map(String::from),
        // Short (the three-line file of the bug report is in here).
        prop::collection::vec(prop::sample::select(PIECES.to_vec()), 0..12).prop_map(|p| p.concat()),
        // Long.
        prop::collection::vec(prop::sample::select(PIECES.to_vec()), 50..600).prop_map(|p| p.concat()),
    ]
}

fn kind_strategy() -> impl Strategy<Value = DocKind> {
    prop::sample::select(vec![DocKind::Markdown, DocKind::Text, DocKind::Code])
}

/// Keys of the default keymap and the prompts, and a few that mean nothing.
const KEYS: &str = "jknN+-<>[]{}sSutpoOcy.,T/?eEq xz中";

fn key_strategy() -> impl Strategy<Value = KeyEvent> {
    let special = prop::sample::select(vec![
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::PageUp,
        KeyCode::PageDown,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Backspace,
        KeyCode::Tab,
    ]);
    prop_oneof![
        3 => prop::sample::select(KEYS.chars().collect::<Vec<_>>()).prop_map(KeyCode::Char),
        1 => special,
    ]
    .prop_map(|c| KeyEvent::new(c, KeyModifiers::NONE))
}

#[derive(Debug, Clone)]
enum Op {
    /// The file changed on disk to this text.
    Reload(String, DocKind),
    /// The file could not be read.
    ReloadFailed,
    /// A worker answers one of the outstanding commands (any of them, so
    /// answers arrive late and out of order).
    Answer(prop::sample::Index),
    /// A worker drops a command (a newer request replaced it).
    Drop(prop::sample::Index),
    /// A chunk result that claims the pane's current revision but was cut
    /// from another text (a bug elsewhere must not become a panic here).
    Forged(usize, String),
    Key(KeyEvent),
    Click(u16, u16),
    Wheel(bool),
    Resize(u16, u16),
    /// Draw into a buffer of this size (not necessarily the model's screen).
    Draw(u16, u16, bool),
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (text_strategy(), kind_strategy()).prop_map(|(t, k)| Op::Reload(t, k)),
        1 => Just(Op::ReloadFailed),
        6 => any::<prop::sample::Index>().prop_map(Op::Answer),
        1 => any::<prop::sample::Index>().prop_map(Op::Drop),
        1 => (0..2usize, text_strategy()).prop_map(|(p, t)| Op::Forged(p, t)),
        6 => key_strategy().prop_map(Op::Key),
        1 => (0..200u16, 0..60u16).prop_map(|(x, y)| Op::Click(x, y)),
        1 => any::<bool>().prop_map(Op::Wheel),
        1 => (1..200u16, 1..60u16).prop_map(|(w, h)| Op::Resize(w, h)),
        3 => (1..200u16, 1..60u16, any::<bool>()).prop_map(|(w, h, nc)| Op::Draw(w, h, nc)),
    ]
}

/// What a worker would send back for a command (chunks are really cut from
/// the command's text; model strategies are answered without a model).
fn answer(cmd: Cmd) -> Vec<Msg> {
    let cut = |config: &ChunkConfig, text: &str| chunk_now(config, text).map(|(c, s)| (Arc::new(c), s));
    let without_model = |config: &ChunkConfig| ChunkConfig { strategy: StrategyKind::Recursive, ..config.clone() };
    match cmd {
        Cmd::Rechunk { pane, rev, config, text } => vec![Msg::Chunked { pane, rev, result: cut(&config, &text) }],
        Cmd::Recut { pane, rev, config, text, .. } => {
            vec![Msg::Chunked { pane, rev, result: cut(&without_model(&config), &text) }]
        }
        Cmd::Embed { pane, id, key: Some(_), .. } => vec![
            Msg::EmbedProgress { pane, id, done: 0, total: 0 },
            Msg::Analyzed { pane, id, result: Err("no model in this test".into()) },
        ],
        Cmd::Embed { pane, id, rev, key: None, config, text, .. } => vec![
            Msg::EmbedProgress { pane, id, done: 1, total: 2 },
            Msg::ModelChunked { pane, id, rev, model_id: Some("test-model".into()), result: cut(&without_model(&config), &text) },
        ],
        Cmd::Highlight { doc_rev, text, .. } => {
            // A colour change at every line start, as the highlighter reports.
            let runs: Vec<(u32, Color)> = std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .enumerate()
                .map(|(k, at)| (at as u32, if k % 2 == 0 { Color::Red } else { Color::Blue }))
                .collect();
            vec![Msg::Highlighted { doc_rev, runs, done: true }]
        }
        Cmd::Export { .. } => vec![], // never written from a test
    }
}

fn initial(text: String, kind: DocKind, strategy: usize, size: usize, overlap: usize, compare: bool) -> Model {
    let strategies = non_model_strategies();
    let mut c = ChunkConfig::default();
    c.strategy = strategies[strategy % strategies.len()];
    c.size = size;
    c.overlap = overlap % size;
    c.normalize();
    let mut doc = Document::from_text(text, kind);
    doc.path = Some("/tmp/reload-test.md".into());
    let mut m = Model::new(doc, c.clone(), c, Rect::new(0, 0, 100, 30));
    m.compare = compare;
    m
}

/// What must hold after every message.
fn check(m: &Model) -> Result<(), TestCaseError> {
    for (i, p) in m.panes.iter().enumerate() {
        prop_assert!(fits(&p.chunks, &m.text), "pane {i} holds chunks outside the text ({} bytes): {:?}", m.text.len(), last_range(&p.chunks));
        prop_assert_eq!(p.chunks_doc, m.doc_rev, "pane {} holds chunks of another text", i);
        if let Some(t) = &p.tokens {
            prop_assert_eq!(t.len(), p.chunks.len(), "pane {} token counts belong to other chunks", i);
        }
    }
    if let Some(s) = m.selected {
        prop_assert!(s < m.pane().chunks.len(), "selected {s} of {} chunks", m.pane().chunks.len());
    }
    prop_assert_eq!(m.layout.doc_rev, m.doc_rev);
    prop_assert!(m.layout.lines.iter().all(|&(s, e)| m.text.get(s as usize..e as usize).is_some()), "layout outside the text");
    prop_assert!(m.top < m.layout.len().max(1), "top {} of {} lines", m.top, m.layout.len());
    Ok(())
}

fn last_range(chunks: &[Chunk]) -> Option<std::ops::Range<usize>> {
    chunks.last().map(|c| c.range.clone())
}

fn draw(m: &Model, w: u16, h: u16, no_color: bool) {
    let theme = if no_color { Theme::no_color() } else { Theme::dark() };
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    view::render(m, &theme, area, &mut buf);
}

fn replay(mut m: Model, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut pending: Vec<Cmd> = start(&mut m);
    check(&m)?;
    for op in ops {
        let msgs = match op {
            Op::Reload(text, kind) => vec![Msg::FileReloaded(Ok(Document::from_text(text, kind)))],
            Op::ReloadFailed => vec![Msg::FileReloaded(Err("gone".into()))],
            Op::Answer(i) if !pending.is_empty() => answer(pending.remove(i.index(pending.len()))),
            Op::Drop(i) if !pending.is_empty() => {
                pending.remove(i.index(pending.len()));
                vec![]
            }
            Op::Answer(_) | Op::Drop(_) => vec![],
            Op::Forged(pane, text) => {
                let p = &m.panes[pane];
                let result = chunk_now(&p.config, &text).map(|(c, s)| (Arc::new(c), s));
                vec![Msg::Chunked { pane, rev: p.rev, result }]
            }
            Op::Key(k) => vec![Msg::KeyPressed(k)],
            Op::Click(column, row) => vec![Msg::MouseUsed(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column,
                row,
                modifiers: KeyModifiers::NONE,
            })],
            Op::Wheel(down) => vec![Msg::MouseUsed(MouseEvent {
                kind: if down { MouseEventKind::ScrollDown } else { MouseEventKind::ScrollUp },
                column: 1,
                row: 1,
                modifiers: KeyModifiers::NONE,
            })],
            Op::Resize(w, h) => vec![Msg::Resized(w, h)],
            Op::Draw(w, h, no_color) => {
                draw(&m, w, h, no_color);
                vec![]
            }
        };
        for msg in msgs {
            pending.extend(update(&mut m, msg));
            check(&m)?;
        }
        // Workers keep only the newest requests; so does this queue.
        if pending.len() > 48 {
            pending.drain(..pending.len() - 48);
        }
        draw(&m, m.screen.width, m.screen.height, false);
    }
    // Answer everything left: the model settles on chunks of the last text.
    while let Some(cmd) = pending.pop() {
        for msg in answer(cmd) {
            pending.extend(update(&mut m, msg));
            check(&m)?;
        }
    }
    draw(&m, m.screen.width, m.screen.height, false);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, max_shrink_iters: 2000, ..ProptestConfig::default() })]

    #[test]
    fn reloads_with_late_answers_keys_and_draws_never_panic_or_show_foreign_chunks(
        text in text_strategy(),
        kind in kind_strategy(),
        strategy in 0..16usize,
        size in 1..400usize,
        overlap in 0..400usize,
        compare in any::<bool>(),
        ops in prop::collection::vec(op_strategy(), 1..60),
    ) {
        replay(initial(text, kind, strategy, size, overlap, compare), ops)?;
    }
}

/// The case of the bug report: a long Markdown file on screen with its
/// chunks, replaced by a three-line one; the chunks of the long text come
/// back late and must not be drawn over the short one.
#[test]
fn a_shorter_file_never_shows_the_long_files_chunks() {
    let long: String = (0..300).map(|i| format!("## Section {i}\n\nProse for section {i}, 中文句子。😀\n\n")).collect();
    let mut m = initial(long, DocKind::Markdown, 1, 200, 40, false);
    let first = start(&mut m);
    let late = first.clone();
    for cmd in first {
        for msg in answer(cmd) {
            update(&mut m, msg);
        }
    }
    assert!(m.panes[0].chunks.len() > 50, "the long file is chunked");
    m.selected = Some(m.panes[0].chunks.len() - 1);
    update(&mut m, Msg::Resized(120, 40));
    let short = "# Title\nline two\nline three\n";
    let cmds = update(&mut m, Msg::FileReloaded(Ok(Document::from_text(short, DocKind::Markdown))));
    assert!(m.panes.iter().all(|p| p.chunks.is_empty()), "the old chunks go with the old text");
    assert_eq!(m.selected, None);
    for cmd in late {
        for msg in answer(cmd) {
            update(&mut m, msg); // the long text's chunks, delivered after the reload
        }
    }
    assert!(m.panes.iter().all(|p| p.chunks.is_empty()), "stale chunks were taken");
    draw(&m, 120, 40, false);
    for cmd in cmds {
        for msg in answer(cmd) {
            update(&mut m, msg);
        }
    }
    assert!(!m.panes[0].chunks.is_empty() && fits(&m.panes[0].chunks, &m.text));
    draw(&m, 120, 40, false);
}
