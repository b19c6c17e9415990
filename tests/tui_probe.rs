//! The query probe (`a`) and the Retrieval panel (`--queries`) at the
//! update() level: messages in, commands run synchronously, model out. BM25
//! only, so no model is needed; the retrieval thread's own function
//! (`retrieval::run_sync`) answers the commands.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::eval::retrieve::{Lexical, RetrieverKind};
use chunktui::eval::{evaluate, Chunked, Pool};
use chunktui::tui::app::model::{Mode, Model};
use chunktui::tui::app::msg::{Cmd, Msg};
use chunktui::tui::app::update::{start, update};
use chunktui::tui::features::probe::{self, Questions};
use chunktui::tui::features::retrieval::{run_sync, RetrieveReq};
use chunktui::tui::jobs::chunk::chunk_now;
use chunktui::tui::view::theme::Theme;
use chunktui::tui::view::{self, side};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use std::path::Path;
use std::sync::Arc;

const EN: &str = "\
Cats sleep for most of the day, often sixteen hours, curled up somewhere warm.

Rust has no garbage collector: ownership and borrowing free memory at compile time.

The river rises in the northern hills and reaches the sea after three hundred kilometres.

Bread needs flour, water, salt and yeast, and a long slow rise in a cool kitchen.
";

const ZH: &str = "\
猫一天中大部分时间都在睡觉，常常蜷缩在温暖的地方。

这条河发源于北方的山间，流经三百公里后注入大海。

面包需要面粉、水、盐和酵母，还要在凉爽的厨房里慢慢发酵。

编译器在编译时检查所有权和借用，所以不需要垃圾回收。
";

fn model(text: &str, strategy: StrategyKind, size: usize) -> Model {
    let mut c = ChunkConfig::default();
    c.strategy = strategy;
    c.size = size;
    c.overlap = 0;
    let mut doc = Document::from_text(text, DocKind::Markdown);
    doc.path = Some("doc.md".into());
    let mut m = Model::new(doc, c.clone(), c, Rect::new(0, 0, 120, 40));
    for p in &mut m.panes {
        p.probe.retriever = RetrieverKind::Bm25;
    }
    m
}

/// Run commands as the worker threads would, synchronously, until none is left.
fn run(m: &mut Model, cmds: Vec<Cmd>) {
    let mut queue = cmds;
    while let Some(cmd) = queue.pop() {
        match cmd {
            Cmd::Rechunk { pane, rev, config, text, .. } => {
                let result = chunk_now(&config, &text).map(|(c, s)| (Arc::new(c), s));
                queue.extend(update(m, Msg::Chunked { pane, rev, result }));
            }
            Cmd::Retrieve(req) => queue.extend(answer(m, &req)),
            _ => {}
        }
    }
}

fn answer(m: &mut Model, req: &RetrieveReq) -> Vec<Cmd> {
    run_sync(req).into_iter().flat_map(|msg| update(m, msg)).collect()
}

fn ready(text: &str, strategy: StrategyKind, size: usize) -> Model {
    let mut m = model(text, strategy, size);
    let cmds = start(&mut m);
    run(&mut m, cmds);
    m
}

fn key(c: char) -> Msg {
    Msg::KeyPressed(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(c: KeyCode) -> Msg {
    Msg::KeyPressed(KeyEvent::new(c, KeyModifiers::NONE))
}

/// Type a question into the box (`a`, the text, Enter) and return the commands of Enter.
fn ask(m: &mut Model, q: &str) -> Vec<Cmd> {
    assert!(update(m, key('a')).is_empty());
    for c in q.chars() {
        assert!(update(m, key(c)).is_empty());
    }
    assert_eq!(m.mode, Mode::Ask(q.to_string()));
    update(m, code(KeyCode::Enter))
}

/// The text of the chunk ranked first in pane 0.
fn best(m: &Model) -> &str {
    let lit = probe::lit(m, 0);
    let (k, rank, _) = lit.first().copied().unwrap_or_else(|| panic!("nothing lit: {:?}", m.panes[0].probe));
    assert_eq!(rank, 1);
    m.panes[0].chunks[k].text(&m.text)
}

#[test]
fn bm25_probe_ranks_the_answer_first_in_english() {
    let mut m = ready(EN, StrategyKind::Recursive, 100);
    assert!(m.panes[0].chunks.len() >= 4, "one chunk per paragraph");
    let cmds = ask(&mut m, "how long do cats sleep");
    assert_eq!(m.mode, Mode::Normal);
    assert!(matches!(&cmds[..], [Cmd::Retrieve(r)] if r.question.as_deref() == Some("how long do cats sleep")));
    run(&mut m, cmds);
    assert!(best(&m).starts_with("Cats sleep"), "{}", best(&m));
    assert!(m.status.text.contains("best chunk 0"), "{}", m.status.text);
    // Another question about the same chunks.
    let cmds = ask(&mut m, "garbage collector");
    run(&mut m, cmds);
    assert!(best(&m).starts_with("Rust has no garbage"), "{}", best(&m));
}

#[test]
fn bm25_probe_ranks_the_answer_first_in_chinese() {
    let mut m = ready(ZH, StrategyKind::Recursive, 40);
    assert!(m.panes[0].chunks.len() >= 4, "one chunk per paragraph");
    let cmds = ask(&mut m, "河流发源于哪里");
    run(&mut m, cmds);
    assert!(best(&m).starts_with("这条河发源于"), "{}", best(&m));
    let cmds = ask(&mut m, "为什么不需要垃圾回收");
    run(&mut m, cmds);
    assert!(best(&m).starts_with("编译器"), "{}", best(&m));
}

#[test]
fn the_question_box_takes_wide_characters_and_backspace_deletes_a_whole_one() {
    let mut m = ready(ZH, StrategyKind::Recursive, 40);
    update(&mut m, key('a'));
    for c in "河流e\u{301}".chars() {
        update(&mut m, key(c));
    }
    update(&mut m, code(KeyCode::Backspace)); // e + combining accent: one character
    assert_eq!(m.mode, Mode::Ask("河流".into()));
    update(&mut m, code(KeyCode::Backspace));
    assert_eq!(m.mode, Mode::Ask("河".into()));
    // Drawn in the status line, wide glyph and all.
    let area = Rect::new(0, 0, 120, 40);
    let mut buf = Buffer::empty(area);
    view::render(&m, &Theme::dark(), area, &mut buf);
    let status: String = (0..area.width).map(|x| buf[(x, area.height - 1)].symbol().to_string()).collect();
    assert!(status.contains("ask (bm25): 河"), "{status}");
    // Esc cancels: no question, no command.
    assert!(update(&mut m, code(KeyCode::Esc)).is_empty());
    assert_eq!(m.mode, Mode::Normal);
    assert!(m.panes[0].probe.question.is_none());
}

#[test]
fn a_parameter_change_reruns_the_probe_on_the_new_chunks_and_drops_the_stale_answer() {
    let mut m = ready(EN, StrategyKind::Fixed, 60);
    let cmds = ask(&mut m, "cats sleep");
    let [Cmd::Retrieve(first)] = &cmds[..] else { panic!("{cmds:?}") };
    let first = first.clone();
    assert!(Arc::ptr_eq(&first.chunks, &m.panes[0].chunks));
    // The size changes before the answer comes back.
    let cmds = update(&mut m, key('+'));
    let [Cmd::Rechunk { pane: 0, rev, config, text, .. }] = &cmds[..] else { panic!("{cmds:?}") };
    let result = chunk_now(config, text).map(|(c, s)| (Arc::new(c), s));
    let cmds = update(&mut m, Msg::Chunked { pane: 0, rev: *rev, result });
    // New chunks: the question is asked again, about them.
    // (and linted: the lint job follows).
    let [Cmd::Retrieve(second), Cmd::Lint(_)] = &cmds[..] else { panic!("new chunks must re-ask: {cmds:?}") };
    assert!(Arc::ptr_eq(&second.chunks, &m.panes[0].chunks));
    assert_eq!(second.question.as_deref(), Some("cats sleep"));
    assert!(first.cancel.is_cancelled(), "the old job is cancelled");
    // The old answer arrives late: dropped.
    answer(&mut m, &first);
    assert!(probe::lit(&m, 0).is_empty(), "a stale answer lit chunks");
    assert!(m.panes[0].probe.hits.is_none());
    answer(&mut m, &second.clone());
    let lit = probe::lit(&m, 0);
    assert!((1..=probe::K).contains(&lit.len()), "{lit:?}");
    assert!(best(&m).contains("Cats sleep"), "{}", best(&m));
    assert_eq!(m.panes[0].probe.hits.as_ref().unwrap().chunks_rev, m.panes[0].shown_rev);
    // A reload keeps the question and asks it about the new text's chunks.
    let cmds = update(&mut m, Msg::FileReloaded(Ok(Document::from_text(ZH.to_string() + EN, DocKind::Markdown))));
    assert!(probe::lit(&m, 0).is_empty(), "answers go with the old text");
    run(&mut m, cmds);
    assert!(best(&m).contains("Cats sleep"), "{}", best(&m));
    // A clears it.
    update(&mut m, key('A'));
    assert!(probe::lit(&m, 0).is_empty() && m.panes[0].probe.question.is_none());
}

#[test]
fn the_retriever_key_cycles_and_reasks_and_a_failed_model_is_shown_not_panicked() {
    let mut m = ready(EN, StrategyKind::Recursive, 100);
    let cmds = ask(&mut m, "cats sleep");
    run(&mut m, cmds);
    let cmds = update(&mut m, key('r')); // bm25 -> hybrid
    assert_eq!(m.panes[0].probe.retriever, RetrieverKind::Hybrid);
    assert!(m.status.text.contains("retriever hybrid"), "{}", m.status.text);
    let [Cmd::Retrieve(req)] = &cmds[..] else { panic!("{cmds:?}") };
    assert_eq!(req.kind, RetrieverKind::Hybrid);
    // What a build without the model says, as the retrieval thread reports it.
    let err = "the default model is not installed: run chunktui setup".to_string();
    update(&mut m, Msg::Retrieved { pane: 0, id: req.id, result: Err(err.clone()) });
    assert!(m.status.error && m.status.text.contains("not installed"), "{:?}", m.status);
    let area = Rect::new(0, 0, 120, 40);
    view::render(&m, &Theme::dark(), area, &mut Buffer::empty(area));
    update(&mut m, key('r')); // hybrid -> dense
    let cmds = update(&mut m, key('r')); // dense -> bm25
    assert_eq!(m.panes[0].probe.retriever, RetrieverKind::Bm25);
    run(&mut m, cmds);
    assert!(best(&m).starts_with("Cats sleep"));
}

#[test]
fn compare_mode_asks_per_pane() {
    let mut m = ready(EN, StrategyKind::Recursive, 100);
    update(&mut m, key('c'));
    update(&mut m, code(KeyCode::Tab));
    assert_eq!(m.active, 1);
    let cmds = ask(&mut m, "bread flour yeast");
    run(&mut m, cmds);
    assert!(probe::lit(&m, 0).is_empty(), "pane A was not asked");
    let (k, _, _) = probe::lit(&m, 1)[0];
    assert!(m.panes[1].chunks[k].text(&m.text).starts_with("Bread"));
    // y copies the question to A, which asks it about its own chunks.
    let cmds = update(&mut m, key('y'));
    run(&mut m, cmds);
    assert_eq!(m.panes[0].probe.question.as_deref(), Some("bread flour yeast"));
    assert!(!probe::lit(&m, 0).is_empty());
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// samples/guide.md with the question set's `guide` questions, BM25.
fn guide() -> Model {
    let text = std::fs::read_to_string(root().join("samples/guide.md")).unwrap();
    let mut m = model(&text, StrategyKind::Recursive, 300);
    m.questions = Some(Questions::load(&root().join("samples/questions.jsonl"), "guide", &m.text).unwrap());
    chunktui::tui::app::update::relayout(&mut m); // the panel takes room from the list
    let cmds = start(&mut m);
    run(&mut m, cmds);
    m
}

fn expected(m: &Model) -> chunktui::eval::Evaluation {
    let chunks = &m.panes[0].chunks;
    let pool = Pool::new(&[Chunked { text: &m.text, chunks }]);
    let q = m.questions.as_ref().unwrap();
    evaluate(&pool, &q.resolved, &Lexical::new(&pool.texts), probe::K).unwrap()
}

#[test]
fn the_panel_numbers_equal_evaluate_on_the_same_chunks_and_follow_the_settings() {
    let mut m = guide();
    let q = m.questions.as_ref().unwrap();
    assert_eq!(q.set.questions.len(), 5, "the guide's questions only");
    let shown = probe::current_eval(&m, 0).expect("scored after the first chunks");
    assert_eq!(shown.value, expected(&m));
    let before = shown.value.report;
    // A size change: new chunks, new numbers, the old ones kept as "before".
    let cmds = update(&mut m, key('>'));
    assert!(probe::current_eval(&m, 0).is_some(), "old chunks still on screen");
    run(&mut m, cmds);
    let now = probe::current_eval(&m, 0).expect("scored again");
    assert_eq!(now.value, expected(&m));
    assert_eq!(m.panes[0].probe.prev_eval.as_ref().unwrap().value.report, before);
    assert_ne!(now.value.report, before, "a 10x size step changes the scores");
}

#[test]
fn q_cycles_the_question_and_its_answer_is_underlined_and_marked() {
    let mut m = guide();
    update(&mut m, key('Q'));
    let q = m.questions.as_ref().unwrap();
    assert_eq!(q.selected, Some(0));
    assert!(m.status.text.starts_with("Q1/5: What overlap"), "{}", m.status.text);
    let r = q.refs[0][0].clone();
    assert_eq!(&m.text[r.clone()][..7], "Overlap");
    let theme = Theme::dark();
    let area = Rect::new(0, 0, 120, 40);
    let mut buf = Buffer::empty(area);
    view::render(&m, &theme, area, &mut buf);
    let g = view::regions_of(&m);
    let line = m.layout.line_of(r.start);
    assert!(line >= m.top && line < m.top + g.docs[0].height as usize, "Q scrolls the answer into view");
    let (s, _) = m.layout.lines[line];
    let col: usize = m.text[s as usize..r.start].chars().map(chunktui::tui::view::layout::char_width).sum();
    let (x, y) = (g.docs[0].x + view::gutter_width(g.docs[0].width) + col as u16, g.docs[0].y + (line - m.top) as u16);
    let cell = &buf[(x, y)];
    assert_eq!(cell.symbol(), "O");
    assert!(cell.style().add_modifier.contains(Modifier::UNDERLINED));
    assert_eq!(cell.style().underline_color, theme.reference.underline_color);
    // The cell before the answer is not underlined by it.
    assert_ne!(buf[(x - 1, y)].style().underline_color, theme.reference.underline_color);
    // The chunk holding it has a mark in the list.
    let holder = m.panes[0].chunks.iter().position(|c| c.range.start <= r.start && r.start < c.range.end).unwrap();
    let l = g.list;
    let marked = format!("│ •{holder:>4}");
    let list: Vec<String> = (l.y..l.y + l.height)
        .map(|y| (l.x..l.x + l.width).map(|x| buf[(x, y)].symbol().to_string()).collect())
        .collect();
    assert!(list.iter().any(|r| r.starts_with(&marked)), "no row starts {marked:?}: {list:#?}");
}

/// The text of a buffer's rows.
fn rows(buf: &Buffer) -> Vec<String> {
    let a = buf.area;
    (a.y..a.y + a.height).map(|y| (a.x..a.x + a.width).map(|x| buf[(x, y)].symbol().to_string()).collect()).collect()
}

#[test]
fn rank_badges_and_the_rank_column_render_and_r_sorts_the_list() {
    let mut m = guide();
    let cmds = ask(&mut m, "how much overlap is too much");
    run(&mut m, cmds);
    let lit = probe::lit(&m, 0);
    assert_eq!(lit.len(), probe::K);
    let theme = Theme::dark();
    let area = Rect::new(0, 0, 120, 40);
    let mut buf = Buffer::empty(area);
    let (k1, _, score) = lit[0];
    // Scroll the best chunk to the top, then draw.
    m.top = m.layout.line_of(m.panes[0].chunks[k1].range.start);
    view::render(&m, &theme, area, &mut buf);
    let g = view::regions_of(&m);
    let d = g.docs[0];
    let badge = format!(" #1 {} ", probe::score_label(score));
    let top: String = (d.x..d.x + d.width).map(|x| buf[(x, d.y)].symbol().to_string()).collect();
    assert!(top.ends_with(&badge), "badge on the chunk's first line: {top:?}");
    let bx = d.x + d.width - badge.len() as u16 + 1;
    assert_eq!(buf[(bx, d.y)].style().bg, theme.badge.bg);
    // The chunk's text in the hit style, over its own background.
    let cell = buf[(d.x + view::gutter_width(d.width), d.y)].style();
    assert_eq!(cell.fg, theme.hit.fg);
    assert!(cell.add_modifier.contains(Modifier::BOLD));
    // The list: a rank column; R puts the best chunk on the first row.
    let list = rows(&buf)[g.list.y as usize + 1].clone();
    assert!(list.contains("rk"), "{list}");
    update(&mut m, key('R'));
    let list_rows = g.list.height.saturating_sub(3) as usize;
    assert_eq!(side::chunk_at_row(&m, list_rows, 0), Some(k1));
    assert_eq!(side::chunk_at_row(&m, list_rows, 1), Some(lit[1].0));
    let mut buf = Buffer::empty(area);
    view::render(&m, &theme, area, &mut buf);
    let first = rows(&buf)[g.list.y as usize + 2].clone();
    assert!(first.contains(&format!("{k1:>4}  #1")), "{first}");
}

#[test]
fn retrieval_panel_snapshot() {
    let mut m = guide();
    let cmds = update(&mut m, key('>'));
    run(&mut m, cmds);
    let g = view::regions_of(&m);
    assert!(g.eval.height >= 7, "{g:?}");
    let mut buf = Buffer::empty(g.eval);
    view::probe::panel(&m, 0, &Theme::dark(), g.eval, &mut buf);
    insta::assert_snapshot!("retrieval_panel", rows(&buf).join("\n"));
}

#[test]
fn questions_for_another_document_are_refused_before_the_terminal_is_taken() {
    let bin = env!("CARGO_BIN_EXE_chunktui");
    let out = std::process::Command::new(bin)
        .arg(root().join("samples/notes.txt"))
        .arg("--queries")
        .arg(root().join("samples/questions.jsonl"))
        .output()
        .unwrap();
    // notes.txt has questions: it passes the check and stops at the missing terminal.
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a terminal"), "{out:?}");
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("other.md");
    std::fs::write(&doc, "Some text.\n").unwrap();
    let out = std::process::Command::new(bin)
        .arg(&doc)
        .arg("--queries")
        .arg(root().join("samples/questions.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no question is about 'other'") && err.lines().count() == 1, "{err}");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"question\": \"x\"}\n").unwrap();
    let out = std::process::Command::new(bin).arg(&doc).arg("--queries").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.jsonl line 1"), "{out:?}");
}

#[test]
fn asking_scrolls_the_best_chunk_into_view() {
    let mut m = guide();
    assert_eq!(m.top, 0);
    let cmds = ask(&mut m, "My chunks keep ending in the middle of a sentence");
    run(&mut m, cmds);
    let (k, _, _) = probe::lit(&m, 0)[0];
    let line = m.layout.line_of(m.panes[0].chunks[k].range.start);
    let page = view::regions_of(&m).text_height();
    assert!(line >= m.top && line < m.top + page, "line {line} off screen (top {})", m.top);
    assert!(m.top > 0, "the answer is far down the guide");
}
