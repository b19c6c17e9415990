//! Hot reload against late and stale worker results: random sequences of
//! reloads (texts of any length: empty, CJK, emoji, combining marks, CRLF),
//! worker answers delivered in any order (or never), keys, clicks and
//! resizes go through `update()` and are drawn into buffers of random
//! sizes. Nothing may panic, and the model may only ever hold chunks that
//! lie within the text on screen.

mod reload_replay;

use chunktui::document::{DocKind, Document};
use chunktui::tui::app::model::Model;
use chunktui::tui::app::msg::Msg;
use chunktui::tui::app::update::{start, update};
use chunktui::tui::features::reload::fits;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use proptest::prelude::*;
use reload_replay::{answer, draw, initial, Op, Session};

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
const KEYS: &str = "jknN+-<>[]{}sSutpoOcy.,T/?eEq xz中aArRQ";

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

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (text_strategy(), kind_strategy()).prop_map(|(t, k)| Op::Reload(t, k)),
        1 => Just(Op::ReloadFailed),
        6 => any::<usize>().prop_map(Op::Answer),
        1 => any::<usize>().prop_map(Op::Drop),
        1 => (0..2usize, text_strategy()).prop_map(|(p, t)| Op::Forged(p, t)),
        6 => key_strategy().prop_map(Op::Key),
        1 => (0..200u16, 0..60u16).prop_map(|(x, y)| Op::Click(x, y)),
        1 => any::<bool>().prop_map(Op::Wheel),
        1 => (1..200u16, 1..60u16).prop_map(|(w, h)| Op::Resize(w, h)),
        3 => (1..200u16, 1..60u16, any::<bool>()).prop_map(|(w, h, nc)| Op::Draw(w, h, nc)),
        1 => (0..2usize, 0..80usize).prop_map(|(p, n)| Op::ForgedHits(p, n)),
    ]
}

fn replay(m: Model, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut session = Session::start(m).map_err(TestCaseError::fail)?;
    for op in ops {
        session.apply(op).map_err(TestCaseError::fail)?;
    }
    session.settle().map_err(TestCaseError::fail)
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
        questions in any::<bool>(),
        ops in prop::collection::vec(op_strategy(), 1..60),
    ) {
        let mut m = initial(text, kind, strategy, size, overlap, compare);
        if questions {
            reload_replay::with_questions(&mut m);
        }
        replay(m, ops)?;
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

/// Found by the property test: a click into the other pane made it active
/// while the selection still indexed the first pane's chunks.
#[test]
fn a_click_into_the_other_pane_keeps_the_selection_within_its_chunks() {
    let text: String = (0..40).map(|i| format!("Paragraph {i} with a few words.\n\n")).collect();
    let mut m = initial(text, DocKind::Markdown, 0, 20, 0, true);
    let cmds = start(&mut m);
    // Only pane A gets its chunks; B's answer is still on its way.
    for cmd in cmds {
        if matches!(cmd, chunktui::tui::app::msg::Cmd::Rechunk { pane: 0, .. }) {
            for msg in answer(cmd) {
                update(&mut m, msg);
            }
        }
    }
    update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char('G'), KeyModifiers::NONE)));
    update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::NONE)));
    assert!(m.selected.is_some_and(|s| s > 0));
    let right = chunktui::tui::view::regions_of(&m).docs[1];
    update(
        &mut m,
        Msg::MouseUsed(crossterm::event::MouseEvent {
            kind: crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
            column: right.x + right.width / 2,
            row: right.y,
            modifiers: KeyModifiers::NONE,
        }),
    );
    assert_eq!(m.active, 1);
    assert_eq!(m.selected, None, "pane B has no chunks yet");
    reload_replay::check(&m).unwrap();
}
