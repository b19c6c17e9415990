//! Compare mode marks the boundaries where A and B cut differently (`≠` in
//! the margin of the lines that hold them) and sums the difference up under
//! the panes' stats; identical panes show no mark.

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

fn text() -> String {
    (0..60).map(|i| format!("Sentence {i} talks about chunk boundaries. 第{i}句讨论切分边界。\n")).collect()
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

fn press(m: &mut Model, c: KeyCode) {
    let cmds = update(m, Msg::KeyPressed(KeyEvent::new(c, KeyModifiers::NONE)));
    run(m, cmds);
}

fn comparing() -> Model {
    let mut c = ChunkConfig::default();
    c.strategy = StrategyKind::Fixed;
    c.size = 100;
    c.overlap = 0;
    let mut doc = Document::from_text(text(), DocKind::Text);
    doc.path = Some("doc.txt".into());
    let mut m = Model::new(doc, c.clone(), c, Rect::new(0, 0, 140, 40));
    let cmds = start(&mut m);
    run(&mut m, cmds);
    press(&mut m, KeyCode::Char('c'));
    m
}

/// The screen, and for each document row of `pane` whether its margin shows the mark.
fn draw(m: &Model) -> (String, Vec<Vec<(usize, bool)>>) {
    let mut t = Terminal::new(TestBackend::new(m.screen.width, m.screen.height)).unwrap();
    t.draw(|f| view::draw(m, &Theme::dark(), f)).unwrap();
    let buf = t.backend().buffer().clone();
    let g = view::regions_of(m);
    let mut marks = Vec::new();
    for p in 0..2 {
        let d = g.docs[p];
        let rows = (0..d.height)
            .filter_map(|row| m.layout.lines.get(m.top + row as usize).map(|&(s, _)| (s as usize, row)))
            .map(|(s, row)| (s, buf[(d.x, d.y + row)].symbol() == view::compare::MARK))
            .collect();
        marks.push(rows);
    }
    let mut screen = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            screen.push_str(buf[(x, y)].symbol());
        }
        screen.push('\n');
    }
    (screen, marks)
}

#[test]
fn differing_boundaries_are_marked_in_both_panes_and_summed_up() {
    let mut m = comparing();
    // B: a larger size, so most cuts move.
    press(&mut m, KeyCode::Tab);
    for _ in 0..4 {
        press(&mut m, KeyCode::Char('+'));
    }
    let d = view::compare::differences(&m).expect("both panes are chunked");
    assert!(d.changed());
    let changed = d.changed_positions();
    let (screen, marks) = draw(&m);
    let summary = format!(
        "≠ vs A: {} identical · boundaries +{} −{} ~{} moved",
        d.identical,
        d.added.len(),
        d.removed.len(),
        d.moved.len()
    );
    assert!(screen.contains(&summary), "{summary} in\n{screen}");
    for pane in &marks {
        let lines = &m.layout.lines;
        for &(s, marked) in pane {
            let li = lines.iter().position(|&(ls, _)| ls as usize == s).unwrap();
            let next = lines.get(li + 1).map_or(m.text.len() + 1, |l| l.0 as usize);
            let holds = changed.iter().any(|&b| b >= s && b < next);
            assert_eq!(marked, holds, "line at byte {s}: marked {marked}, holds a changed boundary {holds}");
        }
        assert!(pane.iter().any(|&(_, marked)| marked), "some visible line is marked");
    }

    // B copied to A (y): the same chunks, no mark, "all identical".
    press(&mut m, KeyCode::Char('y'));
    let (screen, marks) = draw(&m);
    assert!(marks.iter().flatten().all(|&(_, marked)| !marked));
    assert!(screen.contains("= vs A: all chunks identical"), "{screen}");
}
