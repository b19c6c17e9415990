//! Screen first: after a change, a strategy that cuts in text order (or,
//! as LangChain's splitters with overlap, mostly does) shows the chunks on screen before the rest of a long document is cut. Driven
//! through the real chunker thread with the screen in the middle of the
//! document. The part is exactly the result's first chunks (the same pass,
//! delivered early) and reaches past the screen, or, for a strategy that
//! cuts the stretch around the screen on its own (markdown's sections,
//! recursive and html between oversize paragraphs or from one to a break
//! past the screen, code without a grammar
//! between oversize pieces at lines that start a definition, hierarchical's top
//! level, fixed character windows, LangChain's header sections, sentence
//! between sentences over the size), or that cuts the screen's part of its
//! pass first (hierarchical's levels below the top, once the top level has
//! passed the screen), exactly the result's chunks there, drawn without
//! numbers. Either is
//! drawn while the header and panels say "counting…", and the whole result
//! is what `chunktui chunk` gives.

mod common;

use chunktui::chunk::Chunk;
use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::document::{DocKind, Document};
use chunktui::tui::app::model::Model;
use chunktui::tui::app::msg::Msg;
use chunktui::tui::app::update::{start, update};
use chunktui::tui::jobs::runtime::Runtime;
use chunktui::tui::view;
use chunktui::Chunker;
use ratatui::layout::Rect;
use std::sync::Arc;
use std::time::Duration;

/// A long Markdown document: English, then Chinese.
fn document() -> Document {
    let read = |name: &str, bytes: usize| {
        let text = std::fs::read_to_string(common::corpus_file(name)).expect("corpus file");
        let cut = (0..=bytes.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        text[..cut].to_string()
    };
    let text = format!("{}\n\n{}", read("en_rust_book.md", 150_000), read("zh_rust_book.md", 150_000));
    let mut doc = Document::from_text(&text, DocKind::Markdown);
    doc.path = Some("/tmp/first-part.md".into());
    doc
}

/// What one cut of pane 0 brought: the early part (if any, and whether it
/// is the result's first chunks) and the result.
struct Cut {
    part: Option<(Arc<Vec<Chunk>>, bool)>,
    result: Vec<Chunk>,
    /// The screen's bytes when the cut was asked for.
    screen: std::ops::Range<usize>,
}

fn cut(doc: &Document, config: &ChunkConfig) -> Cut {
    let rt = Runtime::new(None);
    let mut m = Model::new(doc.clone(), config.clone(), config.clone(), Rect::new(0, 0, 120, 40));
    m.top = m.layout.len() / 2;
    let screen = chunktui::tui::features::semantic::on_screen(&m).expect("a long document cuts the screen first");
    for cmd in start(&mut m) {
        rt.exec(cmd);
    }
    let mut part = None;
    while view::counting(&m, 0) {
        let msg = rt.rx.recv_timeout(Duration::from_secs(120)).expect("the chunker answers");
        let first = match &msg {
            Msg::ChunkedPart { pane: 0, chunks, from_start, .. } => Some((chunks.clone(), *from_start)),
            _ => None,
        };
        for cmd in update(&mut m, msg) {
            rt.exec(cmd);
        }
        if let Some(first) = first {
            assert_eq!(m.panes[0].drawn_chunks(), &first.0[..], "{}: the part is drawn", config.strategy);
            assert_eq!(m.panes[0].drawn_numbered(), first.1, "{}: numbered only from the start", config.strategy);
            if !first.1 {
                // Chunk numbers are not known yet: the gutter marks chunk
                // starts with `·` (none when one chunk runs over the screen).
                let area = Rect::new(0, 0, 120, 40);
                let mut buf = ratatui::buffer::Buffer::empty(area);
                view::render(&m, &view::theme::Theme::dark(), area, &mut buf);
                let gutters = (0..40).filter(|&y| (0..8).any(|x| buf[(x, y)].symbol() == "·")).count();
                // `screen` is the rows drawn and as many below; the first
                // 20 rows are surely drawn.
                let drawn = screen.start..m.layout.start_of(m.top + 20);
                let starts =
                    |on: &std::ops::Range<usize>| first.0.iter().filter(|c| on.contains(&c.range.start)).count();
                let name = config.strategy;
                assert!(starts(&drawn) == 0 || gutters > 0, "{name}: unnumbered chunk starts in the gutter");
                assert!(gutters == 0 || starts(&screen) > 0, "{name}: marks only where chunks start");
            }
            assert_eq!(view::chunk_count(&m, 0), "counting…", "{}: no count before the whole cut", config.strategy);
            let stats = view::side::stats_lines(&m, 0, &view::theme::Theme::dark());
            assert_eq!(stats.len(), 1, "{}: the stats wait for the whole cut", config.strategy);
            part = Some(first);
        }
    }
    assert!(m.panes[0].error.is_none(), "{}: {:?}", config.strategy, m.panes[0].error);
    let count = view::chunk_count(&m, 0);
    assert!(count.starts_with(&format!("{} chunk", m.panes[0].chunks.len())), "{}: {count}", config.strategy);
    Cut { part, result: m.panes[0].all_chunks.to_vec(), screen }
}

fn configs() -> Vec<ChunkConfig> {
    let mut out = Vec::new();
    for strategy in StrategyKind::all().into_iter().filter(|k| k.is_plain() && k.spec().reads_any_text()) {
        for (unit, size, overlap) in [(Unit::Chars, 400, 60), (Unit::Tokens, 120, 0)] {
            let mut c = ChunkConfig { strategy, unit, size, overlap, ..ChunkConfig::default() };
            c.normalize();
            if c.validate().is_ok() {
                out.push(c);
            }
        }
    }
    // Fixed windows with overlap are cut by no stretch alone: hierarchical
    // gathers the top level through the screen and cuts the screen's
    // parents first (their ids made before the others').
    let mut c = ChunkConfig { strategy: StrategyKind::Hierarchical, size: 400, overlap: 60, ..ChunkConfig::default() };
    c.hierarchical.base = StrategyKind::Fixed;
    c.normalize();
    out.push(c);
    out
}

#[test]
fn every_strategy_that_can_shows_the_screen_first_and_exactly() {
    let doc = document();
    let (mut streamed, mut cut_alone) = (Vec::new(), Vec::new());
    for config in configs() {
        let name = format!("{} {} {}", config.strategy, config.unit, config.size);
        let chunker = Chunker::new(&config).unwrap();
        let Cut { part, result, screen } = cut(&doc, &config);
        assert_eq!(result, chunker.chunk_document(&doc).unwrap(), "{name}: the workbench cuts what `chunk` cuts");
        match part {
            Some((part, false)) => {
                // A stretch in the middle, cut on its own (or, by hierarchical, the
                // parents around the screen cut first): the result's chunks there, in order.
                let alone = chunker.region_around(&doc.text, None, screen.clone()).is_some()
                    || chunker.region_from(&doc.text, None, screen.clone()).is_some();
                assert!(
                    alone || chunker.hands_screen_early(),
                    "{name}: a stretch from a strategy that cuts none alone"
                );
                let at = result.iter().position(|c| *c == part[0]).expect("the part's first chunk is in the result");
                assert!(at > 0, "{name}: a stretch from the middle");
                assert_eq!(&result[at..at + part.len()], &part[..], "{name}: the part is the result's chunks there");
                let on_screen = |c: &&Chunk| c.range.start < screen.end && c.range.end > screen.start;
                assert!(
                    result.iter().filter(on_screen).all(|c| part.contains(c)),
                    "{name}: the part covers the screen"
                );
                cut_alone.push(config.strategy);
                streamed.push(config.strategy);
            }
            Some((part, true)) => {
                // Hierarchical cuts the chunks before the screen's end on their own;
                // a strategy that does not stream shows its whole cut before the statistics.
                // LangChain's splitters stream too while their chunks come in text order.
                let in_pass =
                    chunker.streams() || chunker.holds_no_list() || config.strategy == StrategyKind::Hierarchical;
                assert_eq!(&result[..part.len()], &part[..], "{name}: the part is the result's first chunks");
                assert!(part.iter().any(|c| c.range.end > screen.start), "{name}: the part reaches the screen");
                if part.len() < result.len() {
                    assert!(
                        result[part.len()].range.start >= screen.end,
                        "{name}: the part stops before the screen's end"
                    );
                } else {
                    assert!(!in_pass, "{name}: the part is not the whole");
                }
                if in_pass {
                    streamed.push(config.strategy);
                }
            }
            None => panic!("{name}: nothing came before the whole cut"),
        }
    }
    for want in [
        StrategyKind::Recursive,
        StrategyKind::Fixed,
        StrategyKind::Sentence,
        StrategyKind::Markdown,
        StrategyKind::Hierarchical,
        StrategyKind::LangchainRecursive,
        StrategyKind::LangchainCharacter,
    ] {
        assert!(streamed.contains(&want), "{want} showed no part: {streamed:?}");
    }
    for want in [
        StrategyKind::Markdown,
        StrategyKind::Recursive,
        StrategyKind::Hierarchical,
        StrategyKind::Html,
        StrategyKind::Fixed,
        StrategyKind::LangchainMarkdownHeader,
        StrategyKind::Sentence,
        StrategyKind::Code,
    ] {
        assert!(cut_alone.contains(&want), "{want} cut the stretch on screen alone: {cut_alone:?}");
    }
}

/// A table of 200 KB (one paragraph over the size), then short paragraphs
/// none of which is: with the screen among them, nothing after it lets the
/// cut start afresh, and the part comes from the table's end (its stretch
/// cut alone but for its last chunk). It is
/// exactly the result's chunks there and covers the screen.
#[test]
fn a_screen_among_short_paragraphs_after_a_table_shows_first_from_the_table_end() {
    let book = std::fs::read_to_string(common::corpus_file("en_rust_book.md")).expect("corpus file");
    let lines: Vec<&str> = book.lines().filter(|l| !l.trim().is_empty()).collect();
    let table: String =
        lines.iter().cycle().take(2500).map(|l| format!("| {} |\n", l.chars().take(70).collect::<String>())).collect();
    let short: String = lines.iter().take(15_000).map(|l| l.chars().take(100).collect::<String>() + "\n\n").collect();
    let mut doc = Document::from_text(format!("{table}\n{short}"), DocKind::Markdown);
    doc.path = Some("/tmp/first-part-table.md".into());
    for strategy in [StrategyKind::Recursive, StrategyKind::Html] {
        for (unit, size, overlap) in [(Unit::Chars, 400, 60), (Unit::Tokens, 120, 0)] {
            let mut config = ChunkConfig { strategy, unit, size, overlap, ..ChunkConfig::default() };
            config.normalize();
            let name = format!("{strategy} {unit} {size}");
            let chunker = Chunker::new(&config).unwrap();
            let Cut { part, result, screen } = cut(&doc, &config);
            assert!(screen.start > table.len() + 20_000, "{name}: the screen {screen:?} is among the short paragraphs");
            assert!(chunker.region_around(&doc.text, None, screen.clone()).is_none(), "{name}: no stretch ends afresh");
            let Some((part, false)) = part else { panic!("{name}: no part from the table's end") };
            let at = result.iter().position(|c| *c == part[0]).expect("the part's first chunk is in the result");
            assert_eq!(&result[at..at + part.len()], &part[..], "{name}: the part is the result's chunks there");
            let on_screen = |c: &&Chunk| c.range.start < screen.end && c.range.end > screen.start;
            assert!(result.iter().filter(on_screen).all(|c| part.contains(c)), "{name}: the part covers the screen");
        }
    }
}
