//! Hand-made boundaries in the workbench: `|` splits the selected chunk
//! (at the top line of the screen when it is inside the chunk, else at the
//! sentence nearest its middle), `J` joins it with the next, `(` `)` move
//! its start by a sentence and `b` `w` by a word, `z` / `Z` undo and redo;
//! chunks that start at a hand-made cut are marked `✂` in the margin, the
//! edits panel (`B`) lists every edit and whether it applied, stale ones
//! are counted in the stats; a hot reload keeps the edits at their moved
//! place and shows the ones whose text is gone as stale.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::edits::{Edit, EditOp};
use chunktui::tui::app::model::Model;
use chunktui::tui::app::msg::{Cmd, Msg};
use chunktui::tui::app::update::{start, update};
use chunktui::tui::features::edits as tui_edits;
use chunktui::tui::jobs::chunk::chunk_now;
use chunktui::tui::view::theme::Theme;
use chunktui::tui::view::{self, edits::MARK};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::sync::Arc;

const TEXT: &str = "# Chunking guide\n\n\
Chunks should hold one idea each. A table belongs with its caption. A definition belongs with its example. \
Reviewers fix the few places where a strategy gets it wrong.\n\n\
Hand-made boundaries are kept in the config. They follow their text when the document changes. \
An edit whose text is gone is reported, never moved.\n\n\
分块是检索的第一步。每个块只讲一件事。表格和它的标题要放在一起。定义和例子也不要分开。\n\n\
The last paragraph closes the guide. It says nothing new. It is here so the cut has room to move.\n";

/// Answer chunk and lint commands as the worker threads would (the edits'
/// landing spots first, as the chunk job sends them).
fn run(m: &mut Model, cmds: Vec<Cmd>) {
    let mut queue = cmds;
    while let Some(cmd) = queue.pop() {
        match cmd {
            Cmd::Rechunk { pane, rev, config, text, path, .. } => {
                if let Some(msg) = tui_edits::resolved_msg(pane, rev, &config, &text, path.as_deref()) {
                    queue.extend(update(m, msg));
                }
                let result = chunk_now(&config, &text).map(|(c, s)| (Arc::new(c), s));
                queue.extend(update(m, Msg::Chunked { pane, rev, result }));
            }
            Cmd::Lint(req) => {
                let msg = chunktui::tui::features::lint::run(&req, &mut Default::default());
                queue.extend(update(m, msg));
            }
            _ => {}
        }
    }
}

fn model_of(text: &str, size: usize) -> Model {
    let c = ChunkConfig { strategy: StrategyKind::Recursive, size, overlap: 0, ..ChunkConfig::default() };
    let mut doc = Document::from_text(text, DocKind::Markdown);
    doc.path = Some("guide.md".into());
    let mut m = Model::new(doc, c.clone(), c, Rect::new(0, 0, 120, 40));
    let cmds = start(&mut m);
    run(&mut m, cmds);
    m
}

fn model(size: usize) -> Model {
    model_of(TEXT, size)
}

fn press(m: &mut Model, code: KeyCode) {
    let cmds = update(m, Msg::KeyPressed(KeyEvent::new(code, KeyModifiers::NONE)));
    run(m, cmds);
}

fn key(m: &mut Model, c: char) {
    press(m, KeyCode::Char(c));
}

/// Select chunk `k` (n from nothing selects the first on screen).
fn select(m: &mut Model, k: usize) {
    key(m, 'n');
    for _ in 0..k {
        key(m, 'n');
    }
    assert_eq!(m.selected, Some(k));
}

fn starts(m: &Model) -> Vec<usize> {
    m.panes[0].chunks.iter().map(|c| c.range.start).collect()
}

fn render(m: &Model) -> Buffer {
    let mut buf = Buffer::empty(m.screen);
    view::render(m, &Theme::dark(), m.screen, &mut buf);
    buf
}

fn row_text(buf: &Buffer, y: u16, from: u16, to: u16) -> String {
    (from..to).map(|x| buf[(x, y)].symbol()).collect()
}

fn region_rows(buf: &Buffer, r: Rect) -> Vec<String> {
    (r.y..r.y + r.height).map(|y| row_text(buf, y, r.x, r.x + r.width)).collect()
}

/// Lines of the document pane whose gutter shows `✂`, as byte ranges.
fn marked_lines(m: &Model) -> Vec<std::ops::Range<usize>> {
    let buf = render(m);
    let doc = view::regions_of(m).docs[0];
    (0..doc.height)
        .filter(|&row| buf[(doc.x, doc.y + row)].symbol() == MARK)
        .filter_map(|row| {
            let li = m.top + row as usize;
            let &(s, _) = m.layout.lines.get(li)?;
            Some(s as usize..m.layout.start_of(li + 1).max(s as usize + 1))
        })
        .collect()
}

fn is_sentence_start(text: &str, at: usize) -> bool {
    chunktui::segment::sentences(text).iter().any(|s| s.start == at)
}

#[test]
fn split_cuts_at_the_sentence_nearest_the_middle_and_marks_the_new_chunk() {
    let mut m = model(220);
    let before = starts(&m);
    let k = 1;
    select(&mut m, k);
    let range = m.panes[0].chunks[k].range.clone();
    key(&mut m, '|');
    assert!(m.status.text.contains("split chunk 1 at the sentence nearest its middle"), "{}", m.status.text);
    let edits = &m.panes[0].config.edits;
    assert_eq!(edits.len(), 1, "{edits:?}");
    assert_eq!(edits[0].op, EditOp::Cut);
    let r = tui_edits::current(&m.panes[0]).expect("placed").clone();
    let at = r.cuts[0];
    assert!(range.start < at && at < range.end && is_sentence_start(TEXT, at), "{at} in {range:?}");
    // A chunk starts exactly there now, one more than before.
    // A chunk starts exactly there now; the chunks before it are as they were.
    let after = starts(&m);
    assert!(after.contains(&at), "{after:?}");
    assert_eq!(after[..=k], before[..=k]);
    // The hand-made start is marked, on its line only.
    let marked = marked_lines(&m);
    assert_eq!(marked.len(), 1, "{marked:?}");
    assert!(marked[0].contains(&at), "{marked:?} vs {at}");
    assert_eq!(render(&m)[(view::regions_of(&m).docs[0].x, 0)].symbol(), " ", "the header row is not the gutter");
}

#[test]
fn split_at_the_top_of_the_screen_when_it_is_inside_the_selected_chunk() {
    // One big chunk: the whole text under a size it fits in.
    let mut m = model(10_000);
    assert_eq!(m.panes[0].chunks.len(), 1);
    select(&mut m, 0);
    // Scroll so that a line in the middle is on top.
    m.top = 4;
    let top = m.layout.start_of(4);
    let want = top + TEXT[top..].find(|c: char| !c.is_whitespace()).unwrap();
    key(&mut m, '|');
    assert!(m.status.text.contains("at the top line of the screen"), "{}", m.status.text);
    assert_eq!(starts(&m), [0, want]);
    assert_eq!(tui_edits::current(&m.panes[0]).unwrap().cuts, [want]);
}

#[test]
fn join_removes_a_strategy_boundary_and_a_hand_made_one() {
    let mut m = model(100);
    let before = starts(&m);
    assert!(before.len() >= 4, "{before:?}");
    select(&mut m, 1);
    key(&mut m, 'J');
    assert!(m.status.text.contains("joined chunks 1 and 2"), "{}", m.status.text);
    let edits = m.panes[0].config.edits.clone();
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0].op, EditOp::Join);
    let gone = before[2];
    assert!(!starts(&m).contains(&gone), "no chunk starts at {gone}: {:?}", starts(&m));
    assert_eq!(m.panes[0].chunks[1].range.start, before[1]);
    assert!(m.panes[0].chunks[1].range.end > gone);
    // Split chunk 3, then join it back: the cut goes, no join is added.
    select_again(&mut m, 3);
    key(&mut m, '|');
    assert_eq!(m.panes[0].config.edits.len(), 2);
    key(&mut m, 'J');
    assert!(m.status.text.contains("removed the hand-made cut"), "{}", m.status.text);
    assert_eq!(m.panes[0].config.edits, edits);
}

/// Select chunk `k` when a chunk is selected already.
fn select_again(m: &mut Model, k: usize) {
    assert!(k < m.panes[0].chunks.len(), "chunk {k} of {}", m.panes[0].chunks.len());
    while m.selected.unwrap_or(0) > k {
        key(m, 'N');
    }
    while m.selected.unwrap_or(0) < k {
        key(m, 'n');
    }
    assert_eq!(m.selected, Some(k));
}

#[test]
fn moving_a_start_by_a_sentence_and_by_a_word() {
    let mut m = model(220);
    let k = 2;
    select(&mut m, k);
    let old = m.panes[0].chunks[k].range.start;
    let end = m.panes[0].chunks[k].range.end;
    key(&mut m, ')');
    assert!(m.status.text.contains("moved chunk 2's start forward a sentence"), "{}", m.status.text);
    let new = m.panes[0].chunks[k].range.start;
    assert!(old < new && new < end && is_sentence_start(TEXT, new), "{old} -> {new}");
    // The first sentence start after the old one.
    assert!(!chunktui::segment::sentences(TEXT).iter().any(|s| old < s.start && s.start < new));
    // A cut at the new spot and a join at the strategy's old one.
    let ops: Vec<EditOp> = m.panes[0].config.edits.iter().map(|e| e.op).collect();
    assert_eq!(ops, [EditOp::Join, EditOp::Cut]);
    assert!(!starts(&m).contains(&old));
    assert!(marked_lines(&m).iter().any(|l| l.contains(&new)));
    // A word forward replaces the hand-made cut (still one cut).
    key(&mut m, 'w');
    let by_word = m.panes[0].chunks[k].range.start;
    let word = TEXT[new..].find(' ').map(|i| new + i + 1).unwrap();
    assert_eq!(by_word, word, "{:?}", &TEXT[new..by_word]);
    let r = tui_edits::current(&m.panes[0]).unwrap();
    assert_eq!(r.cuts, [word]);
    assert_eq!(m.panes[0].config.edits.iter().filter(|e| e.op == EditOp::Cut).count(), 1);
    // And back a word, then back a sentence: past the hand-made cut to the sentence's start.
    key(&mut m, 'b');
    assert_eq!(m.panes[0].chunks[k].range.start, new);
    key(&mut m, '(');
    let back = m.panes[0].chunks[k].range.start;
    assert!(back < new && is_sentence_start(TEXT, back), "{back}");
    // Chunk 0's start does not move.
    select_again(&mut m, 0);
    let edits = m.panes[0].config.edits.clone();
    key(&mut m, '(');
    assert!(m.status.text.contains("chunk 0 starts the document"), "{}", m.status.text);
    assert_eq!(m.panes[0].config.edits, edits);
}

#[test]
fn moves_work_in_chinese_by_sentence_and_by_character() {
    let text = "开头一句。".repeat(3) + "\n\n" + &"分块是检索的第一步。每个块只讲一件事。表格和标题在一起。".repeat(4);
    let mut m = model_of(&text, 40);
    assert!(m.panes[0].chunks.len() >= 3);
    select(&mut m, 2);
    let old = m.panes[0].chunks[2].range.start;
    key(&mut m, ')');
    let new = m.panes[0].chunks[2].range.start;
    assert!(new > old && is_sentence_start(&text, new), "{old} -> {new}: {}", m.status.text);
    key(&mut m, 'w');
    let next = m.panes[0].chunks[2].range.start;
    assert_eq!(next, new + text[new..].chars().next().unwrap().len_utf8(), "a CJK character is a word");
}

#[test]
fn undo_and_redo_walk_the_edit_lists() {
    let mut m = model(100);
    let plain = starts(&m);
    select(&mut m, 1);
    key(&mut m, '|');
    let split = starts(&m);
    let after_split = m.panes[0].config.edits.clone();
    select_again(&mut m, 3);
    key(&mut m, 'J');
    assert_eq!(m.panes[0].config.edits.len(), 2);
    key(&mut m, 'z');
    assert!(m.status.text.starts_with("undid: removed join"), "{}", m.status.text);
    assert_eq!(m.panes[0].config.edits, after_split);
    assert_eq!(starts(&m), split);
    press(&mut m, KeyCode::Char('z'));
    assert!(m.panes[0].config.edits.is_empty());
    assert_eq!(starts(&m), plain);
    key(&mut m, 'z');
    assert_eq!(m.status.text, "nothing to undo");
    key(&mut m, 'Z');
    assert!(m.status.text.starts_with("redid: added cut"), "{}", m.status.text);
    assert_eq!(m.panes[0].config.edits, after_split);
    assert_eq!(starts(&m), split);
    // A new change clears what could be redone.
    select_again(&mut m, 0);
    key(&mut m, 'J');
    key(&mut m, 'Z');
    assert_eq!(m.status.text, "nothing to redo");
    // ctrl-z undoes too.
    let cmds = update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL)));
    run(&mut m, cmds);
    assert_eq!(m.panes[0].config.edits, after_split);
}

#[test]
fn the_edits_panel_lists_applied_and_stale_edits_and_the_stats_count_them() {
    let mut m = model(160);
    select(&mut m, 1);
    key(&mut m, '|');
    // An edit whose text is in no document: stale, and said so.
    let gone =
        Edit { op: EditOp::Cut, before: "text that ".into(), after: "is nowhere".into(), near: None, file: None };
    m.panes[0].config.edits.push(gone);
    let other = Edit { file: Some("other.md".into()), ..Edit::at(EditOp::Cut, TEXT, TEXT.find("Hand-made").unwrap()) };
    m.panes[0].config.edits.push(other);
    let cmds = start(&mut m);
    run(&mut m, cmds);
    assert!(m.status.text.contains("⚠ 1 stale edit (not applied): B lists them"), "{}", m.status.text);
    assert_eq!(view::regions_of(&m).panel("edits_panel"), Rect::default(), "hidden until B");
    key(&mut m, 'B');
    let panel = view::regions_of(&m).panel("edits_panel");
    assert!(panel.height > 0);
    let buf = render(&m);
    let rows = region_rows(&buf, panel);
    assert!(rows[0].contains(" Edits "), "{rows:#?}");
    assert!(rows[1].contains("3 edits · 1 stale"), "{rows:#?}");
    // Stale first, then the applied one with its line, then the other file's.
    assert!(rows[2].contains("⚠  2 stale: its text is gone: cut \"text that |"), "{rows:#?}");
    let cut = tui_edits::current(&m.panes[0]).unwrap().cuts[0];
    let line = TEXT[..cut].matches('\n').count() + 1;
    assert!(rows[3].contains(&format!("{MARK}  1 line {line}: cut")), "{rows:#?}");
    assert!(rows[4].contains(" 3 for other.md: cut"), "{rows:#?}");
    let stats = region_rows(&buf, view::regions_of(&m).stats).concat();
    assert!(stats.contains(&format!("{MARK} edits: 1 applied · ⚠ 1 stale · 1 elsewhere")), "{stats}");
    key(&mut m, 'B');
    assert_eq!(view::regions_of(&m).panel("edits_panel"), Rect::default());
}

#[test]
fn a_hot_reload_keeps_the_edits_at_their_moved_place_and_shows_stale_ones() {
    let mut m = model(100);
    select(&mut m, 1);
    key(&mut m, '|');
    select_again(&mut m, 3);
    key(&mut m, 'J');
    let edits = m.panes[0].config.edits.clone();
    let r = tui_edits::current(&m.panes[0]).unwrap().clone();
    let (cut, join) = (r.cuts[0], r.joins[0]);
    // A paragraph inserted above both.
    let added = "An added paragraph, written from outside. It moves everything below it.\n\n";
    let at = TEXT.find("Chunks should").unwrap();
    let moved = format!("{}{added}{}", &TEXT[..at], &TEXT[at..]);
    let mut doc = Document::from_text(moved.clone(), DocKind::Markdown);
    doc.path = Some("guide.md".into());
    let cmds = update(&mut m, Msg::FileReloaded(Ok(doc)));
    assert!(m.status.text.starts_with("reloaded"), "{}", m.status.text);
    run(&mut m, cmds);
    assert_eq!(m.panes[0].config.edits, edits, "the reload keeps the edits");
    let r = tui_edits::current(&m.panes[0]).unwrap();
    assert!(r.stale.is_empty(), "{r:?}");
    assert_eq!((r.cuts[0], r.joins[0]), (cut + added.len(), join + added.len()));
    let s = starts(&m);
    assert!(s.contains(&(cut + added.len())) && !s.contains(&(join + added.len())), "{s:?}");
    assert!(marked_lines(&m).iter().any(|l| l.contains(&(cut + added.len()))));
    // The cut's text deleted: stale, said, and nothing else moves.
    let cut_at = cut + added.len();
    let sentence = chunktui::segment::sentences(&moved).into_iter().find(|s| s.start == cut_at).unwrap();
    let deleted = format!("{}{}", &moved[..sentence.start], &moved[sentence.end..]);
    let mut doc = Document::from_text(deleted, DocKind::Markdown);
    doc.path = Some("guide.md".into());
    let cmds = update(&mut m, Msg::FileReloaded(Ok(doc)));
    run(&mut m, cmds);
    assert!(m.status.text.contains("1 stale edit"), "{}", m.status.text);
    let r = tui_edits::current(&m.panes[0]).unwrap();
    assert_eq!(r.stale.len(), 1);
    assert_eq!(r.joins.len(), 1, "the join still holds");
    assert!(marked_lines(&m).is_empty(), "no hand-made start is left");
    assert_eq!(m.panes[0].config.edits, edits, "a stale edit is kept, never dropped");
}

#[test]
fn keys_say_why_they_do_nothing() {
    let mut m = model(160);
    key(&mut m, '|');
    assert!(m.status.text.contains("select a chunk first"), "{}", m.status.text);
    let last = m.panes[0].chunks.len() - 1;
    select(&mut m, 0);
    select_again(&mut m, last);
    key(&mut m, 'J');
    assert!(m.status.text.contains("is the last"), "{}", m.status.text);
    // While the chunks are being cut, the keys wait for them.
    let cmds = update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char('+'), KeyModifiers::NONE)));
    assert!(!cmds.is_empty());
    key(&mut m, '|');
    assert!(m.status.text.contains("being cut"), "{}", m.status.text);
    assert!(m.panes[0].config.edits.is_empty());
    run(&mut m, cmds);
}

#[test]
fn the_help_lists_the_edit_keys() {
    let mut m = model(160);
    key(&mut m, '?');
    // The edit keys come last: scroll to the end of the help.
    for _ in 0..4 {
        press(&mut m, KeyCode::PageDown);
    }
    let buf = render(&m);
    let all = region_rows(&buf, m.screen).join("\n");
    for (keys, what) in [
        ("|", "edits: split (top line if in chunk, else middle)"),
        ("J", "edits: join the selected chunk with the next"),
        ("(", "edits: chunk start back a sentence (✂ cut)"),
        (")", "edits: chunk start forward a sentence"),
        ("b", "edits: chunk start back a word"),
        ("w", "edits: chunk start forward a word"),
        ("z ctrl-z", "edits: undo the last split, join or move"),
        ("Z ctrl-y", "edits: redo"),
        ("B", "edits panel: hand-made boundaries, stale ones"),
    ] {
        assert!(all.contains(&format!("{keys}  {what}")), "{keys} {what}\n{all}");
    }
}
