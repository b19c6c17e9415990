//! Real-model tests: multilingual-e5-small (4-bit), the test model (`CHUNKTUI_TEST_MODEL`), through
//! ONNX Runtime. They never skip: without a runtime they fail and say what to run.

#![cfg(feature = "embed")]

use chunktui::embed::{runtime, ModelOptions, OnnxEmbedder};
use chunktui::embedding::{Control, Embedder};
use chunktui::strategy::late;
use chunktui::strategy::semantic::analysis::{windows, Limits, SemanticAnalysis, Threshold};
use chunktui::{ChunkConfig, Chunker, StrategyKind};
use std::sync::{Arc, OnceLock};
mod common;
use common::test_model_dir;

fn me5() -> Arc<OnnxEmbedder> {
    static E: OnceLock<Arc<OnnxEmbedder>> = OnceLock::new();
    E.get_or_init(|| {
        assert!(
            runtime::available(),
            "ONNX Runtime not found: run `scripts/setup-models.sh` (or `chunktui setup`) and/or export ORT_DYLIB_PATH it prints"
        );
        let opts = ModelOptions { prefix: Some("query: ".into()), ..Default::default() };
        Arc::new(OnnxEmbedder::load(&test_model_dir(), None, &opts).unwrap_or_else(|e| {
            panic!("{e}\n(run `scripts/setup-models.sh` and export the ORT_DYLIB_PATH it prints)")
        }))
    })
    .clone()
}

const EN_TOPICS: [&[&str]; 3] = [
    &[
        "Volcanoes form where magma from the mantle reaches the surface of the Earth.",
        "Lava flows can bury whole valleys when an eruption lasts for weeks.",
        "Volcanic ash clouds rise kilometres into the sky and disrupt air travel.",
        "Geologists measure ground swelling to predict when a volcano will erupt.",
        "The crater of an active volcano often holds a lake of molten rock.",
    ],
    &[
        "To bake bread, mix flour, water, salt and yeast into a soft dough.",
        "Knead the dough for ten minutes until it becomes smooth and elastic.",
        "Let the dough rise in a warm kitchen until it doubles in size.",
        "Bake the loaf in a hot oven until the crust turns golden brown.",
        "Cool the bread on a rack before slicing it for breakfast.",
    ],
    &[
        "The football match ended in a dramatic penalty shootout.",
        "The striker scored twice in the first half of the game.",
        "The goalkeeper saved a penalty in the final minute of the match.",
        "Fans in the stadium sang for the whole second half of the game.",
        "The referee showed a red card to a defender after a foul.",
    ],
];

const ZH_TOPICS: [&[&str]; 3] = [
    &[
        "火山是地下岩浆喷出地表形成的。",
        "火山喷发时，熔岩会沿着山坡流下。",
        "火山灰可以飘到几千公里以外的地方。",
        "科学家通过监测地震来预测火山喷发。",
        "活火山的火山口里常常有滚烫的岩浆湖。",
    ],
    &[
        "做面包需要面粉、水、盐和酵母。",
        "把面团揉十分钟，直到它变得光滑有弹性。",
        "把面团放在温暖的地方发酵一个小时。",
        "把面包放进烤箱，烤到外皮金黄。",
        "面包烤好后要先放凉再切片。",
    ],
    &[
        "这场足球比赛最后通过点球大战决出胜负。",
        "前锋在上半场打进了两个进球。",
        "守门员在最后一分钟扑出了点球。",
        "球迷们在看台上为球队加油助威。",
        "裁判向犯规的后卫出示了红牌。",
    ],
];

/// The document, and the byte offsets where topics 2 and 3 start.
fn document(topics: &[&[&str]], sep: &str) -> (String, Vec<usize>) {
    let mut text = String::new();
    let mut starts = Vec::new();
    for (k, topic) in topics.iter().enumerate() {
        if k > 0 {
            starts.push(text.len());
        }
        for s in topic.iter() {
            text.push_str(s);
            text.push_str(sep);
        }
    }
    (text.trim_end().to_string(), starts)
}

fn config(strategy: StrategyKind) -> ChunkConfig {
    let mut c = ChunkConfig::default();
    c.strategy = strategy;
    c.size = 2000;
    c.overlap = 0;
    c
}

fn starts_of(chunks: &[std::ops::Range<usize>]) -> Vec<usize> {
    chunks.iter().skip(1).map(|r| r.start).collect()
}

#[test]
fn english_topic_shifts_are_the_largest_distances() {
    let e = me5();
    let (text, shifts) = document(&EN_TOPICS, " ");
    let chunker = Chunker::new(&config(StrategyKind::Semantic)).unwrap();
    let index = chunker.sizer.index(&text).unwrap();
    for buffer in [0, 1] {
        let sentences = chunktui::segment::sentences(&text);
        assert_eq!(sentences.len(), 15);
        let a = SemanticAnalysis::compute(&text, sentences, buffer, e.as_ref(), &index, Control::none()).unwrap();
        let ranges = a.cut(Threshold::Chunks(3), Limits::default());
        assert_eq!(starts_of(&ranges), shifts, "buffer {buffer}: {:?}", a.distances.values);
        // The chart series carries byte offsets of every boundary.
        let series = a.distance_series();
        assert_eq!(series.len(), 14);
        assert!(series.iter().any(|d| d.offset == shifts[0]));
    }
}

#[test]
fn chinese_topic_shifts_break_through_the_chunker() {
    let e = me5();
    let (text, shifts) = document(&ZH_TOPICS, "");
    let mut cfg = config(StrategyKind::Semantic);
    cfg.semantic.buffer_size = 0;
    cfg.semantic.number_of_chunks = Some(3);
    let chunker = Chunker::new(&cfg).unwrap().with_embedder(e.clone());
    let chunks = chunker.chunk(&text).unwrap();
    let ranges: Vec<_> = chunks.iter().map(|c| c.range.clone()).collect();
    assert_eq!(starts_of(&ranges), shifts, "{:#?}", chunks.iter().map(|c| &text[c.range.clone()]).collect::<Vec<_>>());
    assert_eq!(chunks.last().unwrap().range.end, text.len());
}

#[test]
fn grouping_and_adaptive_respect_topics_and_limits() {
    let e = me5();
    let (text, shifts) = document(&EN_TOPICS, " ");
    for kind in [StrategyKind::SemanticGrouping, StrategyKind::Adaptive] {
        let mut cfg = config(kind);
        cfg.semantic.buffer_size = 0;
        cfg.semantic.threshold = Some(90.0);
        cfg.size = 400;
        let chunker = Chunker::new(&cfg).unwrap().with_embedder(e.clone());
        let chunks = chunker.chunk(&text).unwrap();
        let ranges: Vec<_> = chunks.iter().map(|c| c.range.clone()).collect();
        let starts = starts_of(&ranges);
        for s in &shifts {
            assert!(starts.contains(s), "{kind}: no break at topic shift {s}: {starts:?}");
        }
        assert!(chunks.iter().all(|c| c.size <= 400), "{kind}");
    }
}

#[test]
fn cluster_cuts_at_every_topic_shift_within_the_cap_in_english_and_chinese() {
    use chunktui::config::{ClusterObjective, Unit};
    let e = me5();
    // A sentence a line, and pieces smaller than two sentences (the
    // recursive splitter packs lines up to the piece size), so that no
    // piece straddles two topics. Each size holds a topic's five pieces in
    // its slots (size / piece size, in characters at the text's rate).
    for (topics, size, piece) in [(&EN_TOPICS, 420, 16), (&ZH_TOPICS, 120, 24)] {
        let (text, shifts) = document(topics, "\n");
        for objective in ClusterObjective::ALL {
            let mut cfg = config(StrategyKind::Cluster);
            cfg.size = size;
            cfg.unit = Unit::Chars;
            cfg.cluster.piece_size = piece;
            cfg.cluster.objective = objective;
            let chunker = Chunker::new(&cfg).unwrap().with_embedder(e.clone());
            let chunks = chunker.chunk(&text).unwrap();
            let ranges: Vec<_> = chunks.iter().map(|c| c.range.clone()).collect();
            let starts = starts_of(&ranges);
            for s in &shifts {
                assert!(starts.contains(s), "{objective:?}: no break at topic shift {s}: {starts:?}");
            }
            for c in &chunks {
                assert!(text.get(c.range.clone()).is_some_and(|t| !t.trim().is_empty()), "exact source range");
                assert!(c.size <= size, "{objective:?}: {} over {size}", c.size);
            }
            assert!(ranges.windows(2).all(|w| w[0].end <= w[1].start), "in order, no overlap");
            // Only whitespace between chunks.
            let mut at = 0;
            for r in &ranges {
                assert!(text[at..r.start].trim().is_empty());
                at = r.end;
            }
            assert!(text[at..].trim().is_empty());
            assert_eq!(chunker.chunk(&text).unwrap(), chunks, "deterministic");
        }
    }
}

#[test]
fn langchain_semantic_with_the_real_model_breaks_at_topics() {
    let e = me5();
    let (text, _) = document(&EN_TOPICS, " ");
    let mut cfg = config(StrategyKind::LangchainSemantic);
    cfg.semantic.number_of_chunks = Some(3);
    cfg.semantic.buffer_size = 0;
    let chunks = Chunker::new(&cfg).unwrap().with_embedder(e.clone()).chunk(&text).unwrap();
    let texts: Vec<&str> = chunks.iter().map(|c| c.text(&text)).collect();
    let want: Vec<String> = EN_TOPICS.iter().map(|t| t.join(" ")).collect();
    assert_eq!(texts, want);
}

#[test]
fn late_chunking_vectors_keep_topics_apart_even_over_the_window() {
    let e = me5();
    // Long enough to need several windows with a 64-token input.
    let small = Arc::new(
        OnnxEmbedder::load(
            &test_model_dir(),
            None,
            &ModelOptions { prefix: Some("passage: ".into()), max_tokens: Some(64), ..Default::default() },
        )
        .unwrap(),
    );
    let (text, _) = document(&EN_TOPICS, "\n\n");
    let tv = small.token_vectors(&text, Control::none()).unwrap();
    assert!(tv.windows >= 3, "windows: {}", tv.windows);
    let mut cfg = config(StrategyKind::Late);
    cfg.size = 80;
    cfg.semantic.late_boundaries = Some(StrategyKind::Sentence);
    cfg.sentence.overlap_sentences = 0;
    for emb in [e.clone(), small.clone()] {
        let chunker = Chunker::new(&cfg).unwrap().with_embedder(emb);
        let out = late::chunks_with_vectors(&chunker.config, &text, chunker.model().unwrap().as_ref(), Control::none())
            .unwrap();
        assert!(out.len() >= 10, "{}", out.len());
        let chunks = chunker.chunk(&text).unwrap();
        assert_eq!(chunks.len(), out.len());
        let topic = |c: &chunktui::Chunk| {
            let s = &text[c.range.clone()];
            EN_TOPICS.iter().position(|t| t.iter().any(|x| s.contains(x))).unwrap()
        };
        let (mut same, mut diff, mut ns, mut nd) = (0.0, 0.0, 0, 0);
        for (i, (a, va)) in out.iter().enumerate() {
            assert!((va.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-3);
            for (b, vb) in &out[i + 1..] {
                let c = chunktui::embedding::cosine(va, vb);
                if topic(a) == topic(b) {
                    same += c;
                    ns += 1;
                } else {
                    diff += c;
                    nd += 1;
                }
            }
        }
        assert!(same / ns as f64 > diff / nd as f64, "same {} diff {}", same / ns as f64, diff / nd as f64);
    }
}

#[test]
fn long_inputs_are_reported_not_silently_cut_and_batches_match_singles() {
    let e = me5();
    let long = EN_TOPICS.iter().flat_map(|t| t.iter()).cycle().take(60).cloned().collect::<Vec<_>>().join(" ");
    let texts = ["Short sentence.", long.as_str(), "Another short one about bread."];
    let out = e.embed_texts(&texts, Control::none()).unwrap();
    assert_eq!(out.truncated, vec![1]);
    // Padding per batch must not change a text's vector.
    for (i, t) in texts.iter().enumerate() {
        let single = e.embed(&[t], &|_, _| {}).unwrap();
        let c = chunktui::embedding::cosine(&single[0], &out.vectors[i]);
        assert!(c > 0.999, "text {i}: {c}");
    }
    assert_eq!(windows(&[0..1, 2..3, 4..5], 1), vec![0..3, 0..5, 2..5]);
}

#[test]
fn progress_and_cancel() {
    let e = me5();
    let texts: Vec<String> = (0..80).map(|i| format!("Sentence number {i} about something.")).collect();
    let refs: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
    let calls = std::sync::Mutex::new(Vec::new());
    e.embed_texts(&refs, Control::new(&|d, t| calls.lock().unwrap().push((d, t)), None)).unwrap();
    let calls = calls.into_inner().unwrap();
    assert!(calls.len() >= 3 && calls.last() == Some(&(80, 80)), "{calls:?}");
    let flag = chunktui::embedding::CancelFlag::new();
    let f2 = flag.clone();
    let err = e.embed_texts(&refs, Control::new(&move |_, _| f2.cancel(), Some(&flag))).unwrap_err();
    assert!(matches!(err, chunktui::Error::Cancelled), "{err}");
}
