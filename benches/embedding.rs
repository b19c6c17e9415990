//! Embedding throughput and threshold re-cut time.
//!
//!     scripts/setup-models.sh            # once: runtime + MiniLM in the cache dir
//!     cargo bench --bench embedding
//!
//! - `embed/minilm_64_sentences`: sentences/s through ONNX Runtime (batch 32,
//!   intra threads = cores, spinning off). Compare with bench/onnx_peer.py,
//!   which runs the same model file with the same batch size and threads.
//! - `recut_1mb/*`: a ~1 MB document embedded once (sentence windows through
//!   the on-disk cache, so only the first run pays), then the time from
//!   "threshold changed" to "new chunk ranges" for semantic, grouping and
//!   adaptive: what a workbench slider costs.
//!
//! - `open_1mb/visible_part_first`: on opening a 1 MB document with a model
//!   strategy, the time until the part on screen can be cut (sentences,
//!   size index, and embedding the top two screens, uncached).
//!
//! - `whole_32kb/{semantic,cluster}`: a whole cut of a 32 KB document,
//!   embedding uncached, through the strategy a chunker runs (throughput is
//!   per byte, so criterion prints the time per MB). `cluster` embeds its
//!   50-token pieces and `semantic` its sentence windows; its DP over the
//!   pieces is the rest.
//!
//! CHUNKTUI_BENCH_MODEL=DIR picks another model directory.

use chunktui::embed::{default_model_dir, CachedEmbedder, ModelOptions, OnnxEmbedder};
use chunktui::embedding::{Control, Embedder};
use chunktui::size::Sizer;
use chunktui::strategy::semantic::analysis::{Limits, SemanticAnalysis, Threshold};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn model_dir() -> PathBuf {
    std::env::var_os("CHUNKTUI_BENCH_MODEL").map(PathBuf::from).or_else(default_model_dir).unwrap()
}

fn embedder() -> &'static OnnxEmbedder {
    static E: OnceLock<OnnxEmbedder> = OnceLock::new();
    E.get_or_init(|| {
        OnnxEmbedder::load(&model_dir(), None, &ModelOptions { batch_size: Some(32), ..Default::default() })
            .unwrap_or_else(|e| panic!("{e}\n(run scripts/setup-models.sh first)"))
    })
}

/// Deterministic, varied English prose: topics drift every ~12 sentences.
fn document(bytes: usize) -> String {
    const SUBJ: [&str; 12] = [
        "The river",
        "Our team",
        "The old library",
        "A small bakery",
        "The committee",
        "The engine",
        "This theorem",
        "The orchestra",
        "A migrating flock",
        "The city council",
        "The new compiler",
        "The harvest",
    ];
    const VERB: [&str; 10] =
        ["changed", "revealed", "slowed", "shaped", "funded", "measured", "ignored", "rebuilt", "followed", "doubled"];
    const OBJ: [&str; 12] = [
        "the flood plains",
        "the release schedule",
        "its rare manuscripts",
        "the morning bread",
        "the budget vote",
        "the fuel pressure",
        "the prime numbers",
        "the final movement",
        "the southern coast",
        "the parking rules",
        "the error messages",
        "the winter stores",
    ];
    const TAIL: [&str; 8] = [
        "after a long winter",
        "without much warning",
        "in the second week",
        "for the first time",
        "despite the weather",
        "as everyone expected",
        "during the night",
        "before the deadline",
    ];
    let mut s = String::with_capacity(bytes + 200);
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let mut k = 0usize;
    while s.len() < bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let topic = (k / 12) % 12;
        let pick = |m: usize, sh: u32| ((x >> sh) as usize) % m;
        let subj = SUBJ[(topic + pick(2, 3)) % 12];
        s.push_str(&format!(
            "{subj} {} {} {} (note {k}).",
            VERB[pick(10, 11)],
            OBJ[(topic + pick(3, 19)) % 12],
            TAIL[pick(8, 29)]
        ));
        s.push(if k % 6 == 5 { '\n' } else { ' ' });
        if k % 6 == 5 {
            s.push('\n');
        }
        k += 1;
    }
    s
}

fn bench_embed(c: &mut Criterion) {
    let e = embedder();
    let doc = document(20_000);
    let sentences: Vec<&str> = chunktui::segment::sentences(&doc).into_iter().take(64).map(|r| &doc[r]).collect();
    // The same sentences for bench/onnx_peer.py.
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/embedding-bench-sentences.txt");
    let _ = std::fs::write(&out, sentences.join("\n") + "\n");
    let mut g = c.benchmark_group("embed");
    g.sample_size(10).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(sentences.len() as u64));
    g.bench_function("minilm_64_sentences", |b| b.iter(|| e.embed(&sentences, &|_, _| {}).unwrap()));
    g.finish();
}

fn bench_recut(c: &mut Criterion) {
    let doc = document(1 << 20);
    let cached = CachedEmbedder::on_disk(embedder());
    let idx = Sizer::chars().index(&doc).unwrap();
    let sentences = chunktui::segment::sentences(&doc);
    let n = sentences.len();
    let t0 = Instant::now();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let progress = |d: usize, t: usize| {
        let last = done.swap(d, std::sync::atomic::Ordering::Relaxed);
        if d / 1000 != last / 1000 {
            eprintln!("  embedding the 1 MB document: {d}/{t}");
        }
    };
    let a = SemanticAnalysis::compute(&doc, sentences, 1, &cached, &idx, Control::new(&progress, None)).unwrap();
    let took = t0.elapsed();
    eprintln!(
        "1 MB document: {} bytes, {n} sentences, analysed in {:.1}s ({:.0} sentences/s; cached runs are instant)",
        doc.len(),
        took.as_secs_f64(),
        n as f64 / took.as_secs_f64()
    );
    let g0 = {
        // Grouping wants single-sentence vectors: buffer 0 (cached too).
        let sentences = chunktui::segment::sentences(&doc);
        SemanticAnalysis::compute(&doc, sentences, 0, &cached, &idx, Control::none()).unwrap()
    };
    let limits = Limits { max: 1500, min: 200 };
    let thresholds = [50.0, 70.0, 80.0, 90.0, 95.0, 99.0];
    let mut g = c.benchmark_group("recut_1mb");
    g.sample_size(30).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    let mut i = 0;
    g.bench_function("semantic_percentile", |b| {
        b.iter(|| {
            i += 1;
            a.cut(Threshold::Percentile(thresholds[i % thresholds.len()]), limits)
        })
    });
    g.bench_function("semantic_gradient", |b| {
        b.iter(|| {
            i += 1;
            a.cut(Threshold::Gradient(thresholds[i % thresholds.len()]), limits)
        })
    });
    g.bench_function("semantic_grouping", |b| {
        b.iter(|| {
            i += 1;
            g0.group_by_mean(Threshold::Percentile(thresholds[i % thresholds.len()]), limits)
        })
    });
    g.bench_function("adaptive", |b| {
        b.iter(|| {
            i += 1;
            a.adaptive(Threshold::Percentile(thresholds[i % thresholds.len()]), limits)
        })
    });
    g.finish();
}

/// What the workbench does first on opening a 1 MB document with a model
/// strategy: split it into sentences, index its sizes, and embed only the
/// sentences of two screens (the top 6 KB), uncached. Its cuts show then;
/// the rest is embedded behind them (target: within 2 s).
fn bench_visible_first(c: &mut Criterion) {
    let doc = document(1 << 20);
    let e = embedder();
    let mut g = c.benchmark_group("open_1mb");
    g.sample_size(10).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_secs(1));
    g.bench_function("visible_part_first", |b| {
        b.iter(|| {
            let sentences = chunktui::segment::sentences(&doc);
            let idx = Sizer::chars().index(&doc).unwrap();
            let part: Vec<_> = sentences.into_iter().filter(|s| s.start < 6 * 1024).collect();
            SemanticAnalysis::compute(&doc, part, 1, e, &idx, Control::none()).unwrap()
        })
    });
    g.finish();
}

/// `cluster` against `semantic` on the same text and model, uncached: what
/// a first cut costs per MB.
fn bench_whole_cut(c: &mut Criterion) {
    use chunktui::config::{ChunkConfig, StrategyKind, Unit};
    use chunktui::strategy::Configured;
    let doc = document(32 * 1024);
    let e: &dyn Embedder = embedder();
    let mut g = c.benchmark_group("whole_32kb");
    g.sample_size(10).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Bytes(doc.len() as u64));
    for kind in [StrategyKind::Semantic, StrategyKind::Cluster] {
        let config =
            ChunkConfig { strategy: kind, unit: Unit::Tokens, size: 200, overlap: 0, ..ChunkConfig::default() };
        let configured = Configured::new(&config).unwrap();
        g.bench_function(kind.name(), |b| b.iter(|| configured.chunk(&doc, Some(e), Control::none()).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, bench_embed, bench_recut, bench_visible_first, bench_whole_cut);
criterion_main!(benches);
