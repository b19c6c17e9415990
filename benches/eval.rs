//! The retrieval check's speed: one evaluation of 100 questions over a
//! ~1 MB document (en_rust_book, recursive 1000/200 → ~1,600 chunks).
//!
//!     scripts/setup-models.sh            # once: runtime + MiniLM in the cache dir
//!     cargo bench --bench eval
//!
//! - `eval_1mb/bm25_100_questions`: index the chunks with BM25 and score
//!   100 questions (no model).
//! - `eval_1mb/dense_cached_100_questions`: the same with the dense
//!   retriever once every chunk and question embedding is in the on-disk
//!   cache: what the second and later configs of a sweep pay per question set
//!   (target: under 1 s).
//! - The first run (uncached unless an earlier run filled the cache) is
//!   timed once and printed; most of it is embedding the chunks, whose rate
//!   `cargo bench --bench embedding` compares with Python onnxruntime.
//!
//! The 100 questions are our 23 en_rust_book questions, repeated with a
//! numbered prefix so that each is a distinct text to embed.

#[path = "../tests/common/data.rs"]
mod data;

use chunktui::eval::queries::QuestionSet;
use chunktui::eval::retrieve::{Dense, Lexical};
use chunktui::eval::{evaluate, Chunked, Pool};
use chunktui::{ChunkConfig, Chunker};
use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;
use std::time::{Duration, Instant};

struct Setup {
    text: String,
    chunks: Vec<chunktui::Chunk>,
    questions: Vec<chunktui::eval::queries::Resolved>,
}

fn setup() -> Setup {
    let text = std::fs::read_to_string(data::corpus_file("en_rust_book.md")).expect("en_rust_book.md");
    let chunks = Chunker::new(&ChunkConfig::default()).unwrap().chunk(&text).unwrap();
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/questions/corpus.jsonl");
    let base = QuestionSet::load(&set).unwrap().only("en_rust_book").unwrap();
    let mut questions = Vec::new();
    let resolved = base.resolve(&[("en_rust_book".to_string(), text.as_str())]).unwrap();
    for round in 0.. {
        for q in &resolved {
            if questions.len() == 100 {
                return Setup { text, chunks, questions };
            }
            let mut q = q.clone();
            if round > 0 {
                q.question = format!("({round}) {}", q.question);
            }
            questions.push(q);
        }
    }
    unreachable!()
}

fn bench(c: &mut Criterion) {
    let s = setup();
    let docs = [Chunked { text: &s.text, chunks: &s.chunks }];
    let pool = Pool::new(&docs);
    let mut g = c.benchmark_group("eval_1mb");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("bm25_100_questions", |b| {
        b.iter(|| {
            let r = Lexical::new(&pool.texts);
            evaluate(&pool, &s.questions, &r, 5).unwrap()
        })
    });

    let model = Chunker::new(&ChunkConfig::default())
        .unwrap()
        .model()
        .unwrap_or_else(|e| panic!("{e}\n(run scripts/setup-models.sh first)"));
    let started = Instant::now();
    let first = Dense::new(model.clone(), &pool.texts, chunktui::embedding::Control::none()).unwrap();
    evaluate(&pool, &s.questions, &first, 5).unwrap();
    eprintln!(
        "eval_1mb/dense first run ({} chunks, 100 questions; uncached unless a previous run filled the cache): {:.1} s",
        pool.texts.len(),
        started.elapsed().as_secs_f64()
    );
    g.bench_function("dense_cached_100_questions", |b| {
        b.iter(|| {
            let r = Dense::new(model.clone(), &pool.texts, chunktui::embedding::Control::none()).unwrap();
            evaluate(&pool, &s.questions, &r, 5).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
