//! The model strategies in the workbench: embedding jobs, progress, stale
//! results, threshold re-cuts from the cached analysis, the distance chart,
//! and one real run through the worker threads (me5 model).

#![cfg(feature = "embed")]

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::strategy::semantic::analysis::SemanticAnalysis;
use chunktui::tui::app::model::Model;
use chunktui::tui::app::msg::{Analyzed, Cmd, Msg};
use chunktui::tui::app::update::{start, update};
use chunktui::tui::features::embedder::recut_now;
use chunktui::tui::features::semantic::AnalysisKey;
use chunktui::tui::jobs::runtime::Runtime;
use chunktui::tui::view::theme::Theme;
use chunktui::tui::view::{self, chart};
use chunktui::Chunker;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::sync::Arc;
use std::time::{Duration, Instant};
mod common;

/// Twelve sentences on three topics, one per paragraph.
fn text() -> String {
    let topics = ["Cats sleep a lot", "Rust has no garbage collector", "Rain fell all day"];
    (0..12).map(|i| format!("{}, says note {i}.\n\n", topics[i / 4])).collect()
}

fn semantic_model(text: &str) -> Model {
    with_b(text, StrategyKind::Semantic)
}

/// Pane A semantic; pane B with strategy `b` and otherwise the same settings.
fn with_b(text: &str, b: StrategyKind) -> Model {
    let mut c = ChunkConfig::default();
    c.strategy = StrategyKind::Semantic;
    c.size = 400;
    c.overlap = 0;
    c.semantic.buffer_size = 0;
    let mut cb = c.clone();
    cb.strategy = b;
    Model::new(Document::from_text(text, DocKind::Text), c, cb, Rect::new(0, 0, 120, 30))
}

/// An analysis without a model: one 2-d vector per sentence, turning at the
/// topic changes (the way a real model's would).
fn fake_analysis(text: &str, c: &ChunkConfig) -> SemanticAnalysis {
    let sentences = chunktui::segment::sentences(text);
    let vectors: Vec<Vec<f32>> = sentences
        .iter()
        .map(|r| {
            let topic = text[..r.start].matches('\n').count() / 8;
            let a = topic as f32 * 1.2 + (r.start % 7) as f32 * 0.01;
            vec![a.cos(), a.sin()]
        })
        .collect();
    let index = Chunker::new(c).unwrap().sizer.index(text).unwrap();
    SemanticAnalysis::from_embeddings(sentences, vectors, &index)
}

fn analyzed(m: &Model, key: AnalysisKey) -> Analyzed {
    let c = &m.panes[0].config;
    Analyzed {
        key,
        analysis: Arc::new(fake_analysis(&m.text, c)),
        model_id: "test-model-0123456789ab".into(),
        sized_for: (c.unit, c.tokenizer.clone()),
    }
}

/// Run re-cuts the way the chunker thread would.
fn run_recuts(m: &mut Model, cmds: Vec<Cmd>) {
    for cmd in cmds {
        if let Cmd::Recut { pane, rev, config, text, analysis, resize } = cmd {
            let result = recut_now(&config, &text, &analysis, resize).map(|(c, s)| (Arc::new(c), s));
            let more = update(m, Msg::Chunked { pane, rev, result });
            run_recuts(m, more);
        }
    }
}

fn embeds(cmds: &[Cmd]) -> Vec<(u64, Option<AnalysisKey>)> {
    cmds.iter()
        .filter_map(|c| if let Cmd::Embed { id, key, .. } = c { Some((*id, key.clone())) } else { None })
        .collect()
}

fn key(c: char) -> Msg {
    Msg::KeyPressed(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

/// A model whose analysis has arrived and whose chunks are on screen.
fn ready() -> Model {
    let mut m = semantic_model(&text());
    let cmds = start(&mut m);
    let (id, k) = embeds(&cmds)[0].clone();
    let a = analyzed(&m, k.unwrap());
    let cmds = update(&mut m, Msg::Analyzed { pane: 0, id, result: Ok(a) });
    run_recuts(&mut m, cmds);
    m
}

#[test]
fn one_embedding_job_for_both_panes_and_progress_is_shown() {
    let mut m = semantic_model(&text());
    let cmds = start(&mut m);
    let jobs = embeds(&cmds);
    assert_eq!(jobs.len(), 1, "pane B waits for pane A's identical analysis: {cmds:?}");
    assert!(!cmds.iter().any(|c| matches!(c, Cmd::Rechunk { .. })), "model strategies never block the chunker");
    let id = jobs[0].0;
    update(&mut m, Msg::EmbedProgress { pane: 0, id, done: 0, total: 0 });
    assert!(view::progress(&m, 120).unwrap().0.starts_with("loading"));
    update(&mut m, Msg::EmbedProgress { pane: 0, id, done: 6, total: 12 });
    let (label, bar) = view::progress(&m, 120).unwrap();
    assert_eq!(label, "embedding 6/12 sentences");
    assert_eq!(bar.chars().filter(|c| *c == '█').count() * 2, bar.chars().count());
    // A stale job's progress does not move the bar.
    update(&mut m, Msg::EmbedProgress { pane: 0, id: id + 7, done: 12, total: 12 });
    assert_eq!(view::progress(&m, 120).unwrap().0, "embedding 6/12 sentences");
}

#[test]
fn analysis_for_a_replaced_job_is_dropped_and_the_old_job_cancelled() {
    let mut m = with_b(&text(), StrategyKind::Fixed);
    let cmds = start(&mut m);
    let Some(Cmd::Embed { id: old, key: Some(old_key), cancel: old_cancel, .. }) =
        cmds.into_iter().find(|c| matches!(c, Cmd::Embed { .. }))
    else {
        panic!("no embed")
    };
    // `o` changes the buffer size: another analysis, so a new job.
    let cmds = update(&mut m, key('o'));
    let jobs = embeds(&cmds);
    assert_eq!(jobs.len(), 1);
    assert!(jobs[0].0 > old);
    assert!(old_cancel.is_cancelled(), "the replaced job must stop between batches");
    let stale = analyzed(&m, old_key);
    assert!(update(&mut m, Msg::Analyzed { pane: 0, id: old, result: Ok(stale) }).is_empty());
    assert!(m.analyses.is_empty(), "a stale analysis is not cached");
    assert!(m.panes[0].pending());
    let fresh = analyzed(&m, jobs[0].1.clone().unwrap());
    let cmds = update(&mut m, Msg::Analyzed { pane: 0, id: jobs[0].0, result: Ok(fresh) });
    assert!(matches!(&cmds[..], [Cmd::Recut { pane: 0, .. }]), "{cmds:?}");
    run_recuts(&mut m, cmds);
    assert!(!m.panes[0].pending());
    assert!(m.status.text.contains("test-model"), "the status names the model: {:?}", m.status);
    assert!(view::settings_summary(&m, 0).contains("test-model"));
}

#[test]
fn a_job_the_other_pane_still_wants_moves_there_instead_of_stopping() {
    let mut m = semantic_model(&text());
    let cmds = start(&mut m);
    let Some(Cmd::Embed { id, key: Some(k), cancel, .. }) = cmds.into_iter().find(|c| matches!(c, Cmd::Embed { .. }))
    else {
        panic!("no embed")
    };
    let cmds = update(&mut m, key('o')); // A now wants buffer 1; B still wants buffer 0
    assert_eq!(embeds(&cmds).len(), 1);
    assert!(!cancel.is_cancelled());
    assert_eq!(m.panes[1].sem.job.as_ref().map(|j| j.id), Some(id));
    let a = analyzed(&m, k);
    let cmds = update(&mut m, Msg::Analyzed { pane: 0, id, result: Ok(a) });
    assert!(matches!(&cmds[..], [Cmd::Recut { pane: 1, .. }]), "{cmds:?}");
}

#[test]
fn threshold_keys_recut_from_the_cache_without_embedding() {
    let mut m = ready();
    let before = m.panes[0].chunks.len();
    assert!(before >= 2, "{:?}", m.panes[0].chunks);
    for _ in 0..40 {
        let cmds = update(&mut m, key(','));
        assert!(embeds(&cmds).is_empty(), "a threshold change must not embed again");
        assert!(matches!(&cmds[..], [Cmd::Recut { pane: 0, resize: false, .. }]), "{cmds:?}");
        run_recuts(&mut m, cmds);
    }
    assert_eq!(m.panes[0].config.semantic.threshold, Some(55.0));
    assert!(m.panes[0].chunks.len() > before, "a lower threshold cuts more: {} vs {before}", m.panes[0].chunks.len());
    // Threshold type and unit changes re-cut too (the unit re-sizes the cached sentences).
    let cmds = update(&mut m, key('T'));
    assert!(matches!(&cmds[..], [Cmd::Recut { .. }]) && m.status.text.contains("standard_deviation"));
    let cmds = update(&mut m, key('u'));
    assert!(matches!(&cmds[..], [Cmd::Recut { resize: true, .. }]), "{cmds:?}");
    run_recuts(&mut m, cmds);
    assert_eq!(m.panes[0].error, None);
}

#[test]
fn a_missing_runtime_shows_the_core_error_and_other_strategies_still_work() {
    let mut m = semantic_model(&text());
    let cmds = start(&mut m);
    let id = embeds(&cmds)[0].0;
    let err = "ONNX Runtime not found (needed by the semantic, adaptive and late strategies): run `chunktui setup`";
    update(&mut m, Msg::Analyzed { pane: 0, id, result: Err(err.into()) });
    assert!(m.status.error && m.status.text.contains("chunktui setup"), "{:?}", m.status);
    assert_eq!(m.panes[0].error.as_deref(), Some(err));
    assert!(view::progress(&m, 120).is_none(), "no progress bar after the job ended");
    let cmds = update(&mut m, key('s'));
    assert!(matches!(&cmds[..], [Cmd::Rechunk { .. }]), "{cmds:?}");
}

#[test]
fn chart_draws_the_threshold_line_and_marks_breakpoints() {
    let mut m = ready();
    for _ in 0..15 {
        let cmds = update(&mut m, key(',')); // percentile 80: both topic changes
        run_recuts(&mut m, cmds);
    }
    let theme = Theme::resolve(Some("dark"), false).unwrap();
    let g = view::regions_of(&m);
    let area = g.charts[0];
    assert!(area.width >= 10, "the chart has room beside the text: {g:?}");
    assert_eq!(g.docs[0].x + g.docs[0].width, area.x);
    let mut buf = Buffer::empty(Rect::new(0, 0, 120, 30));
    chart::render(&m, 0, &theme, area, &mut buf);
    let (rows, ..) = chart::rows(&m, 0, area.height as usize).unwrap();
    let row_text =
        |y: u16| (area.x..area.x + area.width).map(|x| buf[(x, area.y + y)].symbol().to_string()).collect::<String>();
    // Sentences start on even rows (from row 2); the topic changes are cuts.
    let cuts: Vec<usize> = (0..rows.len()).filter(|&r| rows[r].is_some_and(|r| r.cut)).collect();
    assert_eq!(cuts, [8, 16], "{rows:?}");
    for r in &cuts {
        let s = row_text(*r as u16);
        assert!(s.starts_with("│✂"), "{s:?}");
        let bar = &buf[(area.x + 3, area.y + *r as u16)];
        assert_eq!(bar.style().fg, theme.warn.fg, "breakpoint bars use the warning colour");
    }
    // A row under the threshold shows the line; the first line has no boundary: a dotted line.
    let quiet = (1..rows.len()).find(|r| rows[*r].is_some_and(|r| !r.above)).unwrap();
    assert!(
        row_text(quiet as u16).contains('│') && row_text(quiet as u16).matches('│').count() == 2,
        "{:?}",
        row_text(quiet as u16)
    );
    assert!(row_text(0).contains('┊'), "{:?}", row_text(0));
    let col = |y: u16, ch: &str| (area.x + 2..area.x + area.width).find(|&x| buf[(x, area.y + y)].symbol() == ch);
    assert_eq!(col(0, "┊"), col(quiet as u16, "│"), "one threshold column");
}

#[test]
fn real_model_through_the_worker_ends_with_chunks() {
    let dir = common::test_model_dir();
    let mut m = semantic_model(&text());
    for p in &mut m.panes {
        p.config.semantic.model = Some(dir.to_string_lossy().into());
    }
    let rt = Runtime::new(None);
    for cmd in start(&mut m) {
        rt.exec(cmd);
    }
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut progress = 0;
    while m.panes[0].pending() || m.panes[0].sem.job.is_some() {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = rt.rx.recv_timeout(left).unwrap_or_else(|_| panic!("no chunks in time; status {:?}", m.status));
        if matches!(msg, Msg::EmbedProgress { total, .. } if total > 0) {
            progress += 1;
        }
        for cmd in update(&mut m, msg) {
            rt.exec(cmd);
        }
        assert_eq!(m.panes[0].error, None, "{:?}", m.status);
    }
    assert!(progress > 0, "progress was reported");
    let chunks = &m.panes[0].chunks;
    assert!(chunks.len() >= 2, "{chunks:?}");
    assert_eq!(chunks[0].range.start, 0);
    assert!(m.panes[0].sem.model_id.as_deref().unwrap().contains("me5"), "{:?}", m.panes[0].sem.model_id);
    assert!(chart::rows(&m, 0, 10).is_some(), "the chart has distances to draw");
}

/// A document long enough to embed what is on screen first: the three
/// topics, many times over.
fn long_text() -> String {
    let topics = ["Cats sleep a lot", "Rust has no garbage collector", "Rain fell all day"];
    (0..600).map(|i| format!("{}, says note {i}.\n\n", topics[(i / 4) % 3])).collect()
}

#[test]
fn a_long_document_is_cut_where_the_user_looks_before_the_rest_is_embedded() {
    let text = long_text();
    assert!(text.len() > chunktui::tui::features::semantic::FIRST_PART_BYTES);
    let mut m = semantic_model(&text);
    let cmds = start(&mut m);
    let Some(Cmd::Embed { id, key: Some(key), first: Some(first), .. }) =
        cmds.into_iter().find(|c| matches!(c, Cmd::Embed { .. }))
    else {
        panic!("a long document's analysis job names the part on screen first")
    };
    assert_eq!(first.start, 0, "the view starts at the top");
    assert!(first.end < text.len() / 4, "{first:?} is a screenful or two, not the document");

    // The part on screen arrives first: its cuts are shown, nothing is cached.
    let result = part_analysis(&m, &key, &first);
    let cmds = update(&mut m, Msg::AnalyzedPart { pane: 0, id, result: result.clone() });
    assert!(cmds.iter().any(|c| matches!(c, Cmd::Recut { .. })));
    run_recuts(&mut m, cmds);
    let shown = m.panes[0].chunks.clone();
    assert!(!shown.is_empty() && shown.iter().all(|ch| ch.range.end <= first.end + 200), "cuts only where it looked");
    assert!(m.panes[0].sem.partial && m.panes[0].sem.job.is_some(), "the job goes on");
    assert!(m.analyses.is_empty(), "a part is never cached");
    assert!(m.status.text.contains("embedding the rest"), "{:?}", m.status);

    // The whole analysis replaces it, for the same chunk revision.
    let full = analyzed(&m, key);
    let cmds = update(&mut m, Msg::Analyzed { pane: 0, id, result: Ok(full) });
    run_recuts(&mut m, cmds);
    let whole = &m.panes[0].chunks;
    assert!(whole.last().unwrap().range.end > text.len() / 2, "now the whole document is cut");
    assert!(!m.panes[0].sem.partial && m.panes[0].sem.job.is_none());
    assert_eq!(m.analyses.len(), 1);

    // A part from a job nobody waits for is dropped.
    let cmds = update(&mut m, Msg::AnalyzedPart { pane: 0, id, result });
    assert!(cmds.is_empty());
}

/// The analysis of the sentences before `first.end`, as the embedding thread sends it first.
fn part_analysis(m: &Model, key: &AnalysisKey, first: &std::ops::Range<usize>) -> Analyzed {
    let (c, text) = (&m.panes[0].config, &m.text);
    let part_sentences: Vec<_> =
        chunktui::segment::sentences(text).into_iter().filter(|s| s.start < first.end).collect();
    let index = Chunker::new(c).unwrap().sizer.index(text).unwrap();
    let vectors = part_sentences.iter().map(|s| vec![1.0, (s.start / 200) as f32 % 3.0]).collect();
    let part = SemanticAnalysis::from_embeddings(part_sentences, vectors, &index);
    Analyzed {
        key: key.clone(),
        analysis: Arc::new(part),
        model_id: "test-model-0123456789ab".into(),
        sized_for: (c.unit, c.tokenizer.clone()),
    }
}

#[test]
fn what_was_made_from_the_part_on_screen_is_never_taken_for_the_whole_cut() {
    let mut m = semantic_model(&long_text());
    let Some(Cmd::Embed { id, key: Some(key), first: Some(first), .. }) =
        start(&mut m).into_iter().find(|c| matches!(c, Cmd::Embed { .. }))
    else {
        panic!("a long document's analysis job names the part on screen first")
    };
    let part = part_analysis(&m, &key, &first);
    let cmds = update(&mut m, Msg::AnalyzedPart { pane: 0, id, result: part });
    let Some(Cmd::Recut { pane, rev, config, text, analysis, resize }) = cmds.into_iter().next() else {
        panic!("the part is cut")
    };
    let result = recut_now(&config, &text, &analysis, resize).map(|(c, s)| (Arc::new(c), s));
    let cmds = update(&mut m, Msg::Chunked { pane, rev, result });
    let Some(Cmd::Lint(lint_of_part)) = cmds.into_iter().find(|c| matches!(c, Cmd::Lint(_))) else {
        panic!("the part's chunks are linted")
    };
    let part_chunks = m.panes[0].chunks.len();

    // The whole analysis is cut; the part's lint answers after that.
    let whole = analyzed(&m, key);
    let cmds = update(&mut m, Msg::Analyzed { pane: 0, id, result: Ok(whole) });
    run_recuts(&mut m, cmds);
    assert_ne!(m.panes[0].chunks.len(), part_chunks, "the whole cut is another set of chunks");
    let late = chunktui::tui::features::lint::run(&lint_of_part, &mut Default::default());
    update(&mut m, late);
    assert_eq!(m.panes[0].lint.rev, 0, "the part's lint is not the whole cut's");
}

#[test]
fn short_documents_are_embedded_whole() {
    let mut m = semantic_model(&text());
    let cmds = start(&mut m);
    assert!(cmds.iter().any(|c| matches!(c, Cmd::Embed { first: None, .. })), "{cmds:?}");
}

#[test]
fn the_embedding_thread_sends_the_part_on_screen_first_with_the_real_model() {
    let text = long_text();
    let mut c = ChunkConfig::default();
    c.strategy = StrategyKind::Semantic;
    c.semantic.buffer_size = 0;
    c.semantic.model = Some(common::test_model_dir().to_string_lossy().into());
    let key = AnalysisKey::for_config(1, &c);
    let req = chunktui::tui::features::embedder::EmbedReq {
        pane: 0,
        id: 1,
        rev: 1,
        key: Some(key),
        config: c,
        text: Arc::from(text.as_str()),
        cancel: chunktui::embedding::CancelFlag::new(),
        first: Some(0..2000),
    };
    let msgs = chunktui::tui::features::embedder::run_sync(&req);
    let part = msgs.iter().position(|m| matches!(m, Msg::AnalyzedPart { .. })).expect("a part first");
    let whole = msgs.iter().position(|m| matches!(m, Msg::Analyzed { result: Ok(_), .. })).expect("then the whole");
    assert!(part < whole);
    let (Msg::AnalyzedPart { result: p, .. }, Msg::Analyzed { result: Ok(w), .. }) = (&msgs[part], &msgs[whole]) else {
        unreachable!()
    };
    assert!(p.analysis.sentences.iter().all(|s| s.start < 2000));
    assert!(p.analysis.len() * 10 < w.analysis.len(), "{} of {}", p.analysis.len(), w.analysis.len());
}

#[test]
fn cluster_shows_its_pieces_and_no_threshold_or_overlap_it_does_not_read() {
    let mut m = with_b(&text(), StrategyKind::Fixed);
    m.panes[0].config.strategy = StrategyKind::Cluster;
    m.panes[0].config.overlap = 40;
    let cmds = start(&mut m);
    let (id, k) = embeds(&cmds)[0].clone();
    let k = k.unwrap();
    assert_ne!(k.pieces, "sentences", "cluster embeds its own pieces: {k:?}");
    let a = analyzed(&m, k);
    let cmds = update(&mut m, Msg::Analyzed { pane: 0, id, result: Ok(a) });
    run_recuts(&mut m, cmds);
    assert!(m.panes[0].chunks.len() >= 2, "{:?}", m.panes[0].chunks);
    assert!(m.status.text.contains("pieces embedded"), "{:?}", m.status);
    assert!(!m.status.text.contains("threshold"), "{:?}", m.status);
    // The chart draws the distances, with no threshold line or breakpoints.
    let (rows, _, _, cutoff) = chart::rows(&m, 0, 30).unwrap();
    assert_eq!(cutoff, None);
    assert!(rows.iter().flatten().all(|r| !r.above), "{rows:?}");
    assert!(rows.iter().flatten().any(|r| r.cut), "the cuts are still marked: {rows:?}");
    assert_eq!(chart::summary(&m, 0), None);
    // The parameter panel says the strategy overlaps by nothing, not the 40 it ignores.
    let theme = Theme::resolve(Some("dark"), false).unwrap();
    let area = Rect::new(0, 0, 60, 12);
    let mut buf = Buffer::empty(area);
    view::side::params(&m, &theme, area, &mut buf);
    let overlap_row = (0..area.height)
        .map(|y| (0..area.width).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>())
        .find(|row| row.contains("overlap"))
        .expect("an overlap row");
    assert!(overlap_row.contains("none") && !overlap_row.contains("40"), "{overlap_row:?}");
}
