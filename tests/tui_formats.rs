//! Record data in the workbench: a CSV file opens cut by rows, the stats
//! panel says whether its records need chunking and where the selected
//! chunk is (its rows, a JSON path, a JSONL line), and the strategy keys
//! never land on a strategy made for another format.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::Document;
use chunktui::tui::app::model::Model;
use chunktui::tui::app::msg::{Cmd, Msg};
use chunktui::tui::app::update::{start, update};
use chunktui::tui::jobs::chunk::chunk_structured_now;
use chunktui::tui::view::side::stats_lines;
use chunktui::tui::view::theme::Theme;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use std::sync::Arc;

/// Answer chunk and lint commands as the worker threads would.
fn run(m: &mut Model, cmds: Vec<Cmd>) {
    let mut queue = cmds;
    while let Some(cmd) = queue.pop() {
        match cmd {
            Cmd::Rechunk { pane, rev, config, text, structure, .. } => {
                let result = chunk_structured_now(&config, &text, structure.as_deref()).map(|(c, s)| (Arc::new(c), s));
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

fn open(name: &str, text: &str, strategy: StrategyKind) -> Model {
    let doc = Document::from_named_bytes(text.as_bytes().to_vec(), name, false).unwrap();
    let mut c = ChunkConfig { strategy, size: 300, overlap: 0, ..ChunkConfig::default() };
    c.normalize();
    let mut m = Model::new(doc, c.clone(), c, Rect::new(0, 0, 120, 40));
    let cmds = start(&mut m);
    run(&mut m, cmds);
    m
}

fn panel(m: &Model) -> String {
    let lines = stats_lines(m, 0, &Theme::dark());
    lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>() + "\n").collect()
}

#[test]
fn a_csv_file_says_its_rows_need_no_chunking_and_where_a_chunk_is() {
    let mut text = String::from("id,question,answer\n");
    for i in 0..30 {
        text.push_str(&format!("{i},\"How do I do {i}?\",\"Like this, 第{i}步.\"\n"));
    }
    let mut m = open("faq.csv", &text, StrategyKind::Rows);
    assert!(!m.panes[0].chunks.is_empty());
    let said = panel(&m);
    assert!(said.contains("chunking? 30 of 30 records (100%) already fit"), "{said}");
    assert!(said.contains("no chunking is needed"), "{said}");
    m.selected = Some(1);
    let said = panel(&m);
    let rows = m.panes[0].chunks[1].meta.rows.unwrap();
    assert!(said.contains(&format!("rows {}-{}", rows[0], rows[1])), "{said}");
}

#[test]
fn a_json_chunk_shows_its_path() {
    let text =
        format!("{{\"items\": [{}]}}", (0..40).map(|i| format!("{{\"n\": {i}}}")).collect::<Vec<_>>().join(", "));
    let mut m = open("x.json", &text, StrategyKind::Json);
    m.selected = Some(0);
    let said = panel(&m);
    assert!(said.contains("path $.items[0:"), "{said}");
}

#[test]
fn the_strategy_keys_pass_by_strategies_for_other_formats() {
    let mut m = open("guide.md", "# Guide\n\nSome text to cut.\n", StrategyKind::Recursive);
    for key in ['s', 'S'] {
        for _ in 0..2 * StrategyKind::all().len() {
            let cmds = update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char(key), KeyModifiers::NONE)));
            drop(cmds);
            let strategy = m.panes[0].config.strategy;
            assert!(strategy.spec().reads(m.kind), "{key} landed on {strategy} for a Markdown file");
        }
    }
    // On a JSONL file `s` reaches json.
    let mut m = open("q.jsonl", "{\"a\": 1}\n{\"a\": 2}\n", StrategyKind::Recursive);
    let mut seen = Vec::new();
    for _ in 0..StrategyKind::all().len() {
        let cmds = update(&mut m, Msg::KeyPressed(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE)));
        drop(cmds);
        seen.push(m.panes[0].config.strategy);
    }
    assert!(seen.contains(&StrategyKind::Json) && !seen.contains(&StrategyKind::Rows), "{seen:?}");
}
