//! Post-chunking against pre-chunking on ~9 MB of documents, in one run:
//! what pre-chunking pays before the first question (cut every document,
//! index every chunk with BM25) against what post-chunking pays per
//! question (rank whole documents, cut the top few, rank their chunks).
//!
//!     cargo bench --bench post_chunking
//!
//! The documents are the shared corpus split at chapters and sections, two
//! copies, stopping at 9 MB (tests/common/split_corpus.rs; `CHUNKTUI_CORPUS`,
//! default ../shared/corpus), written to a temporary folder. The questions
//! are the 154 texts of tests/fixtures/questions/corpus.jsonl and
//! heldout.jsonl (the text only: speed, not scores). BM25 for documents and
//! chunks, so no model is needed; `ChunkConfig::default()` (recursive, 700
//! chars) and the same with `unit = tokens` (cl100k_base).
//!
//! Per config (the default one `CHUNKTUI_BENCH_POST_REPS` times, default 3,
//! each number the median of the runs; the tokens one once):
//!
//! - pre-chunking: cut every document, build one BM25 index over all the
//!   chunks (together: its indexing time), then the top 5 for each question;
//! - post-chunking: build the document index (`PostChunker::new`), then
//!   every question, timed one by one: with an empty chunk cache on disk
//!   (cold: the documents it retrieves are cut, and written), a second time
//!   (warm: their chunks in memory), through the query-aware cut (first run
//!   only, as it is the slow part; twice for the default config); on a new
//!   `PostChunker` with no chunk cache (cut, not written); and on one over
//!   the disk cache the first filled (a new process, say). The document
//!   ranking alone is timed too, the floor of every query. The two copies
//!   of the corpus are the same texts, so a document's copy is found in the
//!   disk cache once the document is cut: the cold pass counts both.
//! - break-even: where the two lines (index, plus the mean query time
//!   for each question) cross.
//!
//! Prints a table per config, then one line of JSON (also written to
//! `$CARGO_TARGET_DIR/bench/post_chunking.json`, default target/).

#[path = "../tests/common/data.rs"]
mod data;
#[path = "../tests/common/split_corpus.rs"]
mod split_corpus;

use chunktui::eval::retrieve::{Lexical, Retriever};
use chunktui::post_chunking::{ChunkCache, Options, PostChunker, Source};
use chunktui::{ChunkConfig, Chunker, Unit};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Chunks (and documents) returned per question.
const K: usize = 5;
/// Documents post-chunking cuts per question (its default).
const DOCUMENTS: usize = 5;

fn main() {
    let began = Instant::now();
    let reps: usize = std::env::var("CHUNKTUI_BENCH_POST_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(3).max(1);
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let folder = tmp.path().join("documents");
    let split = split_corpus::write(&data::corpus_dir(), &folder, None, 2, 9_000_000);
    let sources = load(&folder);
    assert_eq!(sources.len(), split.documents);
    let questions = questions();
    let bytes: usize = sources.iter().map(|s| s.text.len()).sum();
    println!(
        "{} documents, {:.2} MB (the corpus split at chapters and sections, 2 copies) · {} questions · BM25 \
         for documents and chunks · top {K} chunks, post-chunking from the top {DOCUMENTS} documents\n",
        sources.len(),
        bytes as f64 / 1e6,
        questions.len(),
    );
    let mut results = Vec::new();
    let tokens = ChunkConfig { unit: Unit::Tokens, ..ChunkConfig::default() };
    // (name, config, runs, query-aware passes on the first run)
    for (name, config, reps, aware) in [
        ("recursive 700 chars (ChunkConfig::default())", ChunkConfig::default(), reps, 2),
        ("recursive 700 tokens (cl100k_base)", tokens, 1, 1),
    ] {
        let mut pre = Vec::new();
        let mut post = Vec::new();
        for rep in 0..reps {
            pre.push(pre_chunking(&sources, &config, &questions));
            post.push(post_chunking(&sources, &config, &questions, tmp.path(), if rep == 0 { aware } else { 0 }));
        }
        let (pre, post) = (Pre::median(&pre), Post::median(&post));
        println!("{}", table(&format!("{name}, median of {reps}"), &pre, &post, sources.len()));
        let even = |p: Pass| BreakEven::of(&pre, post.index_s, p.mean).to_json();
        results.push(json!({
            "config": name,
                "pre": pre.to_json(),
            "post": post.to_json(),
            "break_even": {"cold": even(post.cold), "disk_cache": even(post.disk), "warm": even(post.warm)},
        }));
    }
    let seconds = began.elapsed().as_secs_f64();
    println!("whole bench: {seconds:.0} s");
    let line = json!({
        "bench": "post_chunking",
        "documents": sources.len(),
        "bytes": bytes,
        "questions": questions.len(),
        "k": K,
        "documents_per_question": DOCUMENTS,
        "seconds": seconds,
        "configs": results,
    })
    .to_string();
    println!("{line}");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let out = target.join("bench/post_chunking.json");
    if std::fs::create_dir_all(target.join("bench")).and_then(|_| std::fs::write(&out, line + "\n")).is_ok() {
        eprintln!("written to {}", out.display());
    }
}

/// The split folder's documents, in name order, each named by its file stem.
fn load(folder: &Path) -> Vec<Source> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(folder).expect("the split folder").map(|e| e.expect("an entry").path()).collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let id = p.file_stem().expect("a file name").to_string_lossy().into_owned();
            Source::new(id, std::fs::read_to_string(&p).expect("a document"))
        })
        .collect()
}

/// The question texts of both question sets.
fn questions() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/questions");
    let mut out = Vec::new();
    for set in ["corpus.jsonl", "heldout.jsonl"] {
        let text = std::fs::read_to_string(dir.join(set)).expect("a question set");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let q: serde_json::Value = serde_json::from_str(line).expect("a question");
            out.push(q["question"].as_str().expect("a question text").to_string());
        }
    }
    out
}

/// Milliseconds per question over one pass: mean and median.
#[derive(Clone, Copy, Default)]
struct Pass {
    mean: f64,
    median: f64,
}

impl Pass {
    fn time(questions: &[String], mut ask: impl FnMut(&str)) -> Pass {
        let mut ms: Vec<f64> = questions
            .iter()
            .map(|q| {
                let started = Instant::now();
                ask(q);
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        Pass { mean: ms.iter().sum::<f64>() / ms.len().max(1) as f64, median: ms[ms.len() / 2] }
    }

    fn to_json(self) -> serde_json::Value {
        json!({"mean_ms": self.mean, "median_ms": self.median})
    }
}

#[derive(Clone, Default)]
struct Pre {
    cut_s: f64,
    bm25_s: f64,
    chunks: usize,
    query: Pass,
}

impl Pre {
    fn index_s(&self) -> f64 {
        self.cut_s + self.bm25_s
    }

    fn to_json(&self) -> serde_json::Value {
        json!({
            "cut_seconds": self.cut_s,
            "bm25_index_seconds": self.bm25_s,
            "index_seconds": self.index_s(),
            "chunks": self.chunks,
            "query": self.query.to_json(),
        })
    }
}

#[derive(Clone, Default)]
struct Post {
    index_s: f64,
    /// The document ranking alone (the floor of a query).
    rank_documents: Pass,
    /// Empty chunk cache on disk: retrieved documents are cut, and written.
    cold: Pass,
    /// No chunk cache (`ChunkCache::off()`): retrieved documents are cut only.
    cold_off: Pass,
    /// A new `PostChunker` on the disk cache the cold pass filled.
    disk: Pass,
    /// The second pass of the first `PostChunker` (chunks in memory).
    warm: Pass,
    /// The query-aware cut after the two passes above (first run only; the
    /// second pass for the default config only: 30 s with tokens).
    aware_first: Option<Pass>,
    aware_warm: Option<Pass>,
    /// On the cold pass: documents cut, and found in the disk cache (a
    /// byte-identical document cut earlier in the pass).
    cut_cold: usize,
    hits_cold: usize,
    /// On the disk-cache pass: documents read from disk, and cut.
    hits_disk: usize,
    cut_disk: usize,
}

impl Post {
    fn to_json(&self) -> serde_json::Value {
        json!({
            "index_seconds": self.index_s,
            "rank_documents": self.rank_documents.to_json(),
            "query_cold": self.cold.to_json(),
            "query_cold_no_cache": self.cold_off.to_json(),
            "query_disk_cache": self.disk.to_json(),
            "query_warm": self.warm.to_json(),
            "query_aware_first": self.aware_first.map(Pass::to_json),
            "query_aware_warm": self.aware_warm.map(Pass::to_json),
            "documents_cut_cold": self.cut_cold,
            "documents_from_disk_cache_cold": self.hits_cold,
            "documents_from_disk_cache": self.hits_disk,
            "documents_cut_with_disk_cache": self.cut_disk,
        })
    }
}

fn pre_chunking(sources: &[Source], config: &ChunkConfig, questions: &[String]) -> Pre {
    let started = Instant::now();
    let chunker = Chunker::new(config).expect("a valid config");
    let cut: Vec<Vec<chunktui::Chunk>> = sources.iter().map(|s| chunker.chunk(&s.text).expect("chunks")).collect();
    let cut_s = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let texts: Vec<&str> =
        sources.iter().zip(&cut).flat_map(|(s, chunks)| chunks.iter().map(|c| c.text(&s.text))).collect();
    let index = Lexical::new(&texts);
    let bm25_s = started.elapsed().as_secs_f64();
    let query = Pass::time(questions, |q| {
        std::hint::black_box(index.rank(q, K).expect("hits"));
    });
    Pre { cut_s, bm25_s, chunks: texts.len(), query }
}

fn post_chunking(sources: &[Source], config: &ChunkConfig, questions: &[String], tmp: &Path, aware: usize) -> Post {
    let cache = tempfile::tempdir_in(tmp).expect("a cache folder");
    let new = |cache: ChunkCache| {
        let options = Options { documents: DOCUMENTS, cache, ..Options::default() };
        PostChunker::new(sources.to_vec(), config, options, chunktui::embedding::Control::none())
            .expect("a post-chunker")
    };
    let on_disk = || ChunkCache::at(cache.path().to_path_buf());
    let started = Instant::now();
    let first = new(on_disk());
    let index_s = started.elapsed().as_secs_f64();
    let rank_documents = Pass::time(questions, |q| {
        std::hint::black_box(first.rank_documents(q).expect("documents"));
    });
    let cold = Pass::time(questions, query(&first));
    let after_cold = first.cost();
    let warm = Pass::time(questions, query(&first));
    let aware_first = (aware > 0).then(|| Pass::time(questions, query_aware(&first)));
    let aware_warm = (aware > 1).then(|| Pass::time(questions, query_aware(&first)));
    drop(first);
    let cold_off = Pass::time(questions, query(&new(ChunkCache::off())));
    let second = new(on_disk());
    let disk = Pass::time(questions, query(&second));
    let after_disk = second.cost();
    Post {
        index_s,
        rank_documents,
        cold,
        cold_off,
        disk,
        warm,
        aware_first,
        aware_warm,
        cut_cold: after_cold.documents_chunked,
        hits_cold: after_cold.chunk_cache_hits,
        hits_disk: after_disk.chunk_cache_hits,
        cut_disk: after_disk.documents_chunked,
    }
}

fn query(post: &PostChunker) -> impl FnMut(&str) + '_ {
    move |q| {
        std::hint::black_box(post.query(q, K).expect("chunks"));
    }
}

fn query_aware(post: &PostChunker) -> impl FnMut(&str) + '_ {
    move |q| {
        std::hint::black_box(post.query_aware(q, K).expect("windows"));
    }
}

fn mid(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Each pass's mean and median: their medians over the runs (`None` when no run has it).
fn mid_pass(passes: impl Iterator<Item = Option<Pass>>) -> Option<Pass> {
    let passes: Vec<Pass> = passes.flatten().collect();
    (!passes.is_empty()).then(|| Pass {
        mean: mid(passes.iter().map(|p| p.mean).collect()),
        median: mid(passes.iter().map(|p| p.median).collect()),
    })
}

impl Pre {
    /// Each number's median over the runs.
    fn median(runs: &[Pre]) -> Pre {
        Pre {
            cut_s: mid(runs.iter().map(|r| r.cut_s).collect()),
            bm25_s: mid(runs.iter().map(|r| r.bm25_s).collect()),
            chunks: runs[0].chunks,
            query: mid_pass(runs.iter().map(|r| Some(r.query))).expect("a run"),
        }
    }
}

impl Post {
    /// Each number's median over the runs (the counts are the same in each).
    fn median(runs: &[Post]) -> Post {
        let pass = |f: fn(&Post) -> Pass| mid_pass(runs.iter().map(|r| Some(f(r)))).expect("a run");
        Post {
            index_s: mid(runs.iter().map(|r| r.index_s).collect()),
            rank_documents: pass(|r| r.rank_documents),
            cold: pass(|r| r.cold),
            cold_off: pass(|r| r.cold_off),
            disk: pass(|r| r.disk),
            warm: pass(|r| r.warm),
            aware_first: mid_pass(runs.iter().map(|r| r.aware_first)),
            aware_warm: mid_pass(runs.iter().map(|r| r.aware_warm)),
            ..runs[0].clone()
        }
    }
}

/// Where the costs of the two cross, counting the index and `n` questions.
enum BreakEven {
    /// Post-chunking costs more from the start and stays dearer.
    Dearer,
    /// Post-chunking never costs more.
    Cheaper,
    /// Cheaper at first, dearer from this many questions on.
    DearerFrom(u64),
    /// Dearer at first (its index), cheaper from this many questions on.
    CheaperFrom(u64),
}

impl BreakEven {
    fn of(pre: &Pre, post_index_s: f64, post_ms: f64) -> BreakEven {
        let index_ms = (post_index_s - pre.index_s()) * 1000.0;
        let query_ms = post_ms - pre.query.mean;
        // Questions after which post-chunking's extra per question has used up what its index saved (or the reverse).
        let crossing = || (index_ms / query_ms).abs().floor() as u64 + 1;
        match (index_ms > 0.0, query_ms > 0.0) {
            (true, true) => BreakEven::Dearer,
            (false, false) => BreakEven::Cheaper,
            (false, true) => BreakEven::DearerFrom(crossing()),
            (true, false) => BreakEven::CheaperFrom(crossing()),
        }
    }

    fn shown(&self) -> String {
        match self {
            BreakEven::Dearer => "dearer from the start".into(),
            BreakEven::Cheaper => "never dearer".into(),
            BreakEven::DearerFrom(n) => format!("dearer from question {n}"),
            BreakEven::CheaperFrom(n) => format!("cheaper from question {n}"),
        }
    }

    fn to_json(&self) -> serde_json::Value {
        match self {
            BreakEven::Dearer => json!({"post_dearer": "always"}),
            BreakEven::Cheaper => json!({"post_dearer": "never"}),
            BreakEven::DearerFrom(n) => json!({"post_dearer_from_question": n}),
            BreakEven::CheaperFrom(n) => json!({"post_cheaper_from_question": n}),
        }
    }
}

fn table(name: &str, pre: &Pre, post: &Post, documents: usize) -> String {
    let mut out = format!("{name} (per question: mean / median ms)\n");
    let row = |what: &str, value: String| format!("  {what:<50} {value:>26}\n");
    let pass =
        |what: &str, p: Option<Pass>| row(what, p.map_or("-".into(), |p| format!("{:.2} / {:.2}", p.mean, p.median)));
    out.push_str(&format!("  pre-chunking: {} chunks\n", pre.chunks));
    out.push_str(&row("cut every document", format!("{:.2} s", pre.cut_s)));
    out.push_str(&row("BM25 index over every chunk", format!("{:.2} s", pre.bm25_s)));
    out.push_str(&row("indexing, total", format!("{:.2} s", pre.index_s())));
    out.push_str(&pass("query", Some(pre.query)));
    out.push_str("  post-chunking\n");
    out.push_str(&row("document index (PostChunker::new)", format!("{:.2} s", post.index_s)));
    out.push_str(&pass("rank documents alone", Some(post.rank_documents)));
    out.push_str(&pass("query, cold, empty disk cache", Some(post.cold)));
    out.push_str(&pass("query, cold, no chunk cache", Some(post.cold_off)));
    out.push_str(&pass("query, cold process, disk cache filled", Some(post.disk)));
    out.push_str(&pass("query, warm (second pass, in memory)", Some(post.warm)));
    out.push_str(&pass("query-aware, first pass (after the above)", post.aware_first));
    out.push_str(&pass("query-aware, second pass", post.aware_warm));
    out.push_str(&row(
        "cold pass: documents cut / from disk / total",
        format!("{} / {} / {documents}", post.cut_cold, post.hits_cold),
    ));
    out.push_str(&row("disk-cache pass: from disk / cut", format!("{} / {}", post.hits_disk, post.cut_disk)));
    out.push_str("  break-even, index + questions, post against pre\n");
    let even = |p: Pass| BreakEven::of(pre, post.index_s, p.mean).shown();
    out.push_str(&row("every question as on the cold pass", even(post.cold)));
    out.push_str(&row("every question as on the disk-cache pass", even(post.disk)));
    out.push_str(&row("every question as on the warm pass", even(post.warm)));
    out
}
