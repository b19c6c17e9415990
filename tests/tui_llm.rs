//! The LLM layer in the workbench, against a scripted endpoint: the LLM
//! strategies are in the strategy cycle and cut exact chunks, their cost
//! shows in the footer, the agent's choices and the enrichment of the
//! selected chunk in the stats panel, and `W` writes questions into the
//! probe panel, scored like a --queries file.

mod common;

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::tui::app::model::Model;
use chunktui::tui::app::msg::{Cmd, Msg};
use chunktui::tui::app::update::{start, update};
use chunktui::tui::jobs::chunk::chunk_now;
use chunktui::tui::view::theme::Theme;
use chunktui::tui::view::{footer, side};
use common::fake_llm::{answer, FakeServer};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use std::sync::Arc;

const TEXT: &str = "# Ownership\n\nOwnership is a set of rules that govern how a Rust program manages memory. \
All programs have to manage the way they use a computer's memory while running.\n\n# Borrowing\n\n\
A reference is like a pointer in that it is an address we can follow to access the data stored there. \
引用像一个指针，因为它是一个地址，我们可以由此访问储存于该地址的属于其他变量的数据。\n";

fn key(c: char) -> Msg {
    Msg::KeyPressed(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

/// Run commands as the runtime would, synchronously (chunking with the
/// LLM, and the question job, included).
fn run(m: &mut Model, cmds: Vec<Cmd>) {
    let mut queue = cmds;
    while let Some(cmd) = queue.pop() {
        match cmd {
            Cmd::Rechunk { pane, rev, config, text, .. } => {
                let result = chunk_now(&config, &text).map(|(c, s)| (Arc::new(c), s));
                queue.extend(update(m, Msg::Chunked { pane, rev, result }));
            }
            Cmd::GenerateQuestions { config, text, corpus_id, doc_rev } => {
                let result =
                    chunktui::tui::features::questions::run(&config, &text, &corpus_id).map_err(|e| e.to_string());
                queue.extend(update(m, Msg::QuestionsGenerated { doc_rev, corpus_id, result }));
            }
            _ => {}
        }
    }
}

fn model(url: &str, cache: &std::path::Path) -> Model {
    std::env::set_var("CHUNKTUI_CACHE_DIR", cache);
    let mut c = ChunkConfig::default();
    c.size = 200;
    c.llm.url = Some(url.to_string());
    c.llm.model = Some("fake".into());
    let mut doc = Document::from_text(TEXT.to_string(), DocKind::Markdown);
    doc.path = Some("/tmp/own.md".into());
    Model::new(doc, c.clone(), c, Rect::new(0, 0, 120, 40))
}

#[test]
fn llm_strategies_questions_and_costs_in_the_workbench() {
    let server = FakeServer::start(|_, seen| {
        let system = seen.body["messages"][0]["content"].as_str().unwrap_or_default();
        if system.contains("write one question") {
            let passage = seen.body["messages"][1]["content"].as_str().unwrap_or_default();
            let word = passage.split("Passage:\n").nth(1).unwrap_or("it").split_whitespace().next().unwrap_or("it");
            return answer(&format!("{{\"question\": \"What does the text say about {word} here?\"}}"));
        }
        if system.contains("choose how to cut") {
            return answer(
                r#"{"choices": [{"section": 1, "strategy": "sentence", "size": 120, "reason": "short prose"},
                                          {"section": 2, "strategy": "recursive", "size": 150, "reason": "mixed scripts"}]}"#,
            );
        }
        answer("{\"starts\": [1, 3]}")
    });
    let dir = common::Dir::new();
    let mut m = model(&server.url, dir.root());
    let cmds = start(&mut m);
    run(&mut m, cmds);
    // S reaches llm, then agentic.
    let mut seen = Vec::new();
    for _ in 0..StrategyKind::ALL.len() {
        let cmds = update(&mut m, key('S'));
        run(&mut m, cmds);
        let s = m.panes[0].config.strategy;
        seen.push(s);
        if s == StrategyKind::Llm {
            assert!(m.panes[0].error.is_none(), "{:?}", m.panes[0].error);
            let mut at = 0;
            for c in m.panes[0].chunks.iter() {
                assert_eq!(c.range.start, at, "llm chunks tile the text");
                at = c.range.end;
            }
            assert_eq!(at, TEXT.len());
            let f = footer::llm_summary(&m).expect("the footer shows the LLM's cost");
            assert!(f.starts_with("llm ") && f.contains("req") && f.contains("tok") && f.contains("cached"), "{f}");
        }
        if s == StrategyKind::Agentic {
            assert!(m.panes[0].error.is_none(), "{:?}", m.panes[0].error);
            m.selected = Some(0);
            let lines: Vec<String> = side::stats_lines(&m, 0, &Theme::dark())
                .iter()
                .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
                .collect();
            assert!(lines.iter().any(|l| l == "strategy: sentence"), "{lines:?}");
            assert!(lines.iter().any(|l| l == "reason: short prose"), "{lines:?}");
            break;
        }
    }
    assert!(seen.contains(&StrategyKind::Llm) && seen.contains(&StrategyKind::Propositions), "{seen:?}");
    // W: questions into the probe panel, their references exact.
    let cmds = update(&mut m, key('W'));
    assert!(matches!(cmds[..], [Cmd::GenerateQuestions { .. }]), "{cmds:?}");
    run(&mut m, cmds);
    let q = m.questions.as_ref().unwrap_or_else(|| panic!("questions: {:?}", m.status));
    assert!(!q.set.questions.is_empty() && q.usable(m.doc_rev), "{:?}", m.status);
    for (question, refs) in q.set.questions.iter().zip(&q.refs) {
        for r in refs {
            let content = question.references[0].content.as_deref().unwrap();
            assert_eq!(&TEXT[r.clone()], content, "exact reference");
        }
    }
    assert!(m.status.text.contains("questions written by the LLM"), "{:?}", m.status);
}

#[test]
fn w_without_an_endpoint_says_what_to_pass() {
    let dir = common::Dir::new();
    let mut m = model("http://127.0.0.1:9/v1", dir.root());
    m.panes[0].config.llm.url = None;
    std::env::remove_var("CHUNKTUI_LLM_URL");
    let cmds = update(&mut m, key('W'));
    assert!(cmds.is_empty());
    assert!(m.status.error && m.status.text.contains("--llm-url"), "{:?}", m.status);
}
