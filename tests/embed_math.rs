//! Model-free tests: LangChain parity on fixed vectors, threshold maths,
//! limits, the disk cache, and re-cut speed. A deterministic embedder stands
//! in for the model.

#![cfg(feature = "embed")]

use chunktui::config::{SemanticOptions, ThresholdType};
use chunktui::embed::CachedEmbedder;
use chunktui::embedding::{Control, Embedder, Embeddings};
use chunktui::size::Sizer;
use chunktui::strategy::langchain::semantic as langchain;
use chunktui::strategy::semantic::analysis::{percentile, DistanceStats, Limits, SemanticAnalysis, Threshold};
use chunktui::{ChunkConfig, Chunker, StrategyKind};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Returns the vectors LangChain saw, looked up by exact text.
struct FixtureEmbedder(HashMap<String, Vec<f32>>);

impl Embedder for FixtureEmbedder {
    fn model_id(&self) -> &str {
        "fixture"
    }
    fn embed_texts(&self, texts: &[&str], _: Control<'_>) -> chunktui::Result<Embeddings> {
        let vectors = texts
            .iter()
            .map(|t| self.0.get(*t).unwrap_or_else(|| panic!("no fixture vector for {t:?}")).clone())
            .collect();
        Ok(Embeddings { vectors, truncated: vec![] })
    }
}

fn fixture() -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/semantic/langchain_parity.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn options(o: &serde_json::Value) -> SemanticOptions {
    let mut s = SemanticOptions::default();
    if let Some(t) = o.get("breakpoint_threshold_type").and_then(|v| v.as_str()) {
        s.threshold_type = serde_json::from_value(serde_json::Value::String(t.into())).unwrap();
    }
    s.threshold = o.get("breakpoint_threshold_amount").and_then(|v| v.as_f64());
    s.buffer_size = o.get("buffer_size").and_then(|v| v.as_u64()).unwrap_or(1) as usize;
    s.number_of_chunks = o.get("number_of_chunks").and_then(|v| v.as_u64()).map(|v| v as usize);
    s.min_size = o.get("min_chunk_size").and_then(|v| v.as_u64()).unwrap_or(0) as usize;
    s.sentence_split_regex = o.get("sentence_split_regex").and_then(|v| v.as_str()).map(String::from);
    s
}

#[test]
fn langchain_semantic_matches_langchain_on_the_same_vectors() {
    let fx = fixture();
    let vectors: HashMap<String, Vec<f32>> = fx["vectors"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()))
        .collect();
    let emb = Arc::new(FixtureEmbedder(vectors));
    let cases = fx["cases"].as_array().unwrap();
    assert!(cases.len() >= 12);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let text = case["text"].as_str().unwrap();
        let want: Vec<&str> = case["chunks"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
        let opts = options(&case["options"]);
        let got = langchain::split(text, &opts, emb.as_ref(), Control::none()).unwrap();
        let got_texts: Vec<&str> = got.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(got_texts, want, "case {name}");
        // Ranges point at the source pieces, in order.
        for c in &got {
            assert!(c.range.start <= c.range.end && c.range.end <= text.len(), "case {name}");
        }
        // Through the Chunker too (ChunkMeta.text carries the joined text).
        let mut cfg = ChunkConfig::default();
        cfg.strategy = StrategyKind::LangchainSemantic;
        cfg.semantic = opts;
        let chunks = Chunker::new(&cfg).unwrap().with_embedder(emb.clone()).chunk(text).unwrap();
        let texts: Vec<&str> = chunks.iter().map(|c| c.text(text)).collect();
        assert_eq!(texts, want, "case {name} via Chunker");
    }
}

/// A deterministic embedder: each sentence names its topic as "tN"; vectors
/// are a topic axis plus a little per-sentence noise.
struct TopicEmbedder {
    calls: AtomicUsize,
}

fn topic_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; 8];
    for w in text.split_whitespace() {
        if let Some(n) = w.trim_matches(|c: char| !c.is_alphanumeric()).strip_prefix('t') {
            if let Ok(k) = n.parse::<usize>() {
                v[k % 8] += 1.0;
            }
        }
    }
    let h = text.bytes().fold(7u32, |a, b| a.wrapping_mul(31).wrapping_add(b as u32));
    v[(h % 8) as usize] += 0.05;
    chunktui::embedding::normalize(&mut v);
    v
}

impl Embedder for TopicEmbedder {
    fn model_id(&self) -> &str {
        "topics"
    }
    fn embed_texts(&self, texts: &[&str], ctl: Control<'_>) -> chunktui::Result<Embeddings> {
        self.calls.fetch_add(texts.len(), Ordering::Relaxed);
        (ctl.progress)(texts.len(), texts.len());
        Ok(Embeddings { vectors: texts.iter().map(|t| topic_vector(t)).collect(), truncated: vec![] })
    }
}

fn topic_doc(topics: &[usize], per: usize) -> (String, Vec<usize>) {
    let mut s = String::new();
    let mut starts = vec![];
    for (k, &t) in topics.iter().enumerate() {
        if k > 0 {
            starts.push(s.len() + 1);
        }
        for i in 0..per {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&format!("Sentence {i} is about t{t} here."));
        }
    }
    (s, starts)
}

fn analysis(text: &str, buffer: usize) -> SemanticAnalysis {
    let idx = Sizer::chars().index(text).unwrap();
    let e = TopicEmbedder { calls: AtomicUsize::new(0) };
    SemanticAnalysis::compute(text, chunktui::segment::sentences(text), buffer, &e, &idx, Control::none()).unwrap()
}

#[test]
fn every_threshold_type_finds_clean_topic_shifts() {
    let (text, shifts) = topic_doc(&[1, 2, 3, 4], 6);
    for buffer in [0, 1, 2] {
        let a = analysis(&text, buffer);
        for t in [
            Threshold::Percentile(85.0),
            Threshold::StandardDeviation(1.0),
            Threshold::Interquartile(1.5),
            Threshold::Absolute(0.3),
            Threshold::Chunks(4),
        ] {
            if buffer == 2 && !matches!(t, Threshold::Chunks(_)) {
                continue; // wide windows spread each shift over 3 boundaries: only the ranking holds
            }
            let starts: Vec<usize> = a.cut(t, Limits::default()).iter().skip(1).map(|r| r.start).collect();
            assert_eq!(starts, shifts, "buffer {buffer}, {t:?}");
        }
    }
    let a = analysis(&text, 0);
    for t in [Threshold::Percentile(85.0), Threshold::Absolute(0.3), Threshold::StandardDeviation(1.0)] {
        let starts: Vec<usize> = a.group_by_mean(t, Limits::default()).iter().skip(1).map(|r| r.start).collect();
        assert_eq!(starts, shifts, "grouping {t:?}");
    }
}

#[test]
fn limits_hold_and_chunks_cover_every_sentence() {
    let (text, _) = topic_doc(&[1, 2, 1, 3, 3, 4], 7);
    let a = analysis(&text, 1);
    for limits in [Limits { max: 150, min: 0 }, Limits { max: 300, min: 120 }, Limits { max: 90, min: 60 }] {
        for t in [Threshold::Percentile(95.0), Threshold::Percentile(10.0), Threshold::Gradient(90.0)] {
            for ranges in [a.cut(t, limits), a.group_by_mean(t, limits), a.adaptive(t, limits)] {
                assert_eq!(ranges.first().unwrap().start, a.sentences[0].start);
                assert_eq!(ranges.last().unwrap().end, a.sentences.last().unwrap().end);
                for w in ranges.windows(2) {
                    assert!(w[0].end < w[1].start, "ordered, no overlap");
                    assert!(text[w[0].end..w[1].start].trim().is_empty(), "no sentence lost");
                }
                for r in &ranges {
                    assert!(r.clone().count() > 0);
                    assert!(text[r.clone()].chars().count() <= limits.max, "{limits:?} {t:?}");
                }
            }
        }
    }
}

#[test]
fn adaptive_gives_smaller_chunks_where_meaning_shifts_fast() {
    // A calm stretch (one topic, 30 sentences) then a dense one (topic changes every sentence).
    let mut text = topic_doc(&[1], 30).0;
    for k in 0..30 {
        text.push_str(&format!(" Point {k} is about t{} here.", 2 + k % 6));
    }
    let a = analysis(&text, 0);
    let ranges = a.adaptive(Threshold::Percentile(99.0), Limits { max: 400, min: 60 });
    let calm_end = a.sentences[29].end;
    let avg = |rs: Vec<&std::ops::Range<usize>>| rs.iter().map(|r| r.len()).sum::<usize>() as f64 / rs.len() as f64;
    let calm = avg(ranges.iter().filter(|r| r.end <= calm_end).collect());
    let dense = avg(ranges.iter().filter(|r| r.start > calm_end).collect());
    assert!(calm > 2.0 * dense, "calm {calm} dense {dense}");
}

#[test]
fn numpy_threshold_maths() {
    let d = DistanceStats::new(vec![0.1, 0.5, 0.2, 0.9, 0.3]);
    // np.percentile([.1,.5,.2,.9,.3], 95) = 0.82
    assert!((d.cutoff(Threshold::Percentile(95.0)).0 - 0.82).abs() < 1e-12);
    // mean .4, std sqrt(.08) = .28284271
    assert!((d.cutoff(Threshold::StandardDeviation(1.0)).0 - (0.4 + 0.08f64.sqrt())).abs() < 1e-12);
    // q1 .2 q3 .5
    assert!((d.cutoff(Threshold::Interquartile(1.0)).0 - 0.7).abs() < 1e-12);
    assert_eq!(d.breakpoints(Threshold::Percentile(50.0)), vec![1, 3]);
    assert_eq!(percentile(&[], 50.0), 0.0);
    assert_eq!(Threshold::new(ThresholdType::Gradient, None), Threshold::Gradient(95.0));
}

#[test]
fn disk_cache_makes_reopening_free() {
    let dir = tempfile::tempdir().unwrap();
    let texts = ["alpha t1.", "beta t2.", "alpha t1.", "gamma t3."];
    let first = CachedEmbedder::in_dir(TopicEmbedder { calls: AtomicUsize::new(0) }, Some(dir.path()));
    let a = first.embed_texts(&texts, Control::none()).unwrap();
    assert_eq!(first.inner().calls.load(Ordering::Relaxed), 3, "duplicates embedded once");
    // A new process: a fresh embedder over the same directory embeds nothing.
    let second = CachedEmbedder::in_dir(TopicEmbedder { calls: AtomicUsize::new(0) }, Some(dir.path()));
    let b = second.embed_texts(&texts, Control::none()).unwrap();
    assert_eq!(second.inner().calls.load(Ordering::Relaxed), 0);
    assert_eq!(a, b);
    assert_eq!(second.len(), 3);
    // A torn tail (crash mid-write) is ignored.
    let f = second.file().unwrap().to_path_buf();
    let mut bytes = std::fs::read(&f).unwrap();
    bytes.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7]);
    std::fs::write(&f, bytes).unwrap();
    let third = CachedEmbedder::in_dir(TopicEmbedder { calls: AtomicUsize::new(0) }, Some(dir.path()));
    assert_eq!(third.len(), 3);
}

#[test]
fn recut_of_a_megabyte_document_is_fast() {
    // ~1 MB, ~12 000 sentences, 384-dim vectors.
    let mut text = String::new();
    let mut k = 0usize;
    while text.len() < 1_000_000 {
        text.push_str(&format!("Sentence number {k} talks about topic t{} in some detail. ", k / 20));
        k += 1;
    }
    let sentences = chunktui::segment::sentences(&text);
    let n = sentences.len();
    let vecs: Vec<Vec<f32>> = (0..n)
        .map(|i| {
            let mut v: Vec<f32> = (0..384).map(|d| (((i / 20) * 7 + d) % 13) as f32 + (i % 3) as f32 * 0.1).collect();
            chunktui::embedding::normalize(&mut v);
            v
        })
        .collect();
    let idx = Sizer::chars().index(&text).unwrap();
    let a = SemanticAnalysis::from_embeddings(sentences, vecs, &idx);
    let limits = Limits { max: 1500, min: 200 };
    let mut worst = std::time::Duration::ZERO;
    for p in [50.0, 80.0, 90.0, 95.0, 99.0] {
        let t0 = std::time::Instant::now();
        let r = a.cut(Threshold::Percentile(p), limits);
        worst = worst.max(t0.elapsed());
        assert!(!r.is_empty());
    }
    // Unoptimised test build; the bench measures the release number.
    assert!(worst.as_millis() < 16 * 4, "re-cut took {worst:?} for {n} sentences");
    eprintln!("re-cut of {n} sentences: worst {worst:?} (debug build)");
}

#[test]
fn no_chunk_but_the_last_stays_under_the_minimum() {
    // t1 x2 (~57 chars), a lone t2 sentence (~28), then t3 x6 cut by max: a
    // chunk under the minimum that cannot join the next one must join the one
    // before it (it used to stay alone, under the minimum).
    let sentence = |i: usize, t: usize| format!("Sentence {i} is about t{t} here.");
    let mut parts: Vec<String> = (0..2).map(|i| sentence(i, 1)).collect();
    parts.push(sentence(0, 2));
    parts.extend((0..6).map(|i| sentence(i, 3)));
    let text = parts.join(" ");
    let a = analysis(&text, 0);
    let limits = Limits { max: 100, min: 50 };
    let ranges = a.cut(Threshold::Absolute(0.3), limits);
    let sizes: Vec<usize> = ranges.iter().map(|r| text[r.clone()].chars().count()).collect();
    for (k, &n) in sizes.iter().enumerate() {
        assert!(n <= limits.max, "{sizes:?}");
        assert!(n >= limits.min || k + 1 == sizes.len(), "chunk {k} under the minimum: {sizes:?}");
    }
}
