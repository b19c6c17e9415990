//! Chunking throughput (MB/s of input) per strategy and unit on the corpus.
//!
//!     cargo bench --bench chunking              # everything
//!     cargo bench --bench chunking -- recursive # one group
//!     cargo bench --bench chunking -- fast_4096 # fast's byte budgets (offsets, chunks)
//!     cargo bench --bench chunking -- code_1mb  # the code strategy on this repo's Rust
//!     cargo bench --bench chunking -- stats_vs_chunk  # `stats` (numbers + lint) against the cut
//!     cargo bench --bench chunking -- tokenizer_pass  # one pass of each tokenizer, ours against its peer
//!
//! Reads the shared corpus (never copied into the repo): `CHUNKTUI_CORPUS`,
//! default ../shared/corpus, as the tests do. The tokenizer pass
//! alone is measured too, as the yardstick for token-limited strategies
//! ("count tokens once": recursive-by-tokens should cost about one pass).

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::size::Tokenizer;
use chunktui::Chunker;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::path::PathBuf;
use std::time::Duration;

// The tests' own lookup of the corpus, so both read the same files.
#[path = "../tests/common/data.rs"]
mod data;

fn corpus(name: &str) -> String {
    let path = data::corpus_file(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read benchmark input {}: {e}", path.display()))
}

const FILES: [&str; 4] = ["en_rust_book.md", "en_ripgrep_guide_faq.md", "en_war_and_peace.txt", "zh_rust_book.md"];

fn config(strategy: StrategyKind, unit: Unit, size: usize, overlap: usize) -> ChunkConfig {
    ChunkConfig { strategy, unit, size, overlap, ..ChunkConfig::default() }
}

fn bench_chars(c: &mut Criterion) {
    let mut group = c.benchmark_group("chars_1000_200");
    group.sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(300));
    for file in FILES {
        let text = corpus(file);
        group.throughput(Throughput::Bytes(text.len() as u64));
        for strategy in [
            StrategyKind::Recursive,
            StrategyKind::Fixed,
            StrategyKind::Sentence,
            StrategyKind::Markdown,
            StrategyKind::LangchainRecursive,
        ] {
            let chunker = Chunker::new(&config(strategy, Unit::Chars, 1000, 200)).expect("valid config");
            group.bench_with_input(BenchmarkId::new(strategy.name(), file), &text, |b, t| {
                b.iter(|| chunker.chunk(t).expect("chunks"))
            });
        }
    }
    group.finish();
}

/// `fast` at a 4096-byte budget: its offsets into a reused buffer (no chunk
/// made) and its chunks, against recursive's chunks at 4096 chars.
fn bench_fast(c: &mut Criterion) {
    let mut group = c.benchmark_group("fast_4096_bytes");
    group.sample_size(20).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(300));
    for file in FILES {
        let text = corpus(file);
        group.throughput(Throughput::Bytes(text.len() as u64));
        let fast = Chunker::new(&config(StrategyKind::Fast, Unit::Bytes, 4096, 0)).expect("valid config");
        let mut out = Vec::new();
        group.bench_with_input(BenchmarkId::new("fast-offsets", file), &text, |b, t| {
            b.iter(|| {
                out.clear();
                fast.offsets_into(t, &mut out).expect("offsets");
                out.len()
            })
        });
        group.bench_with_input(BenchmarkId::new("fast", file), &text, |b, t| b.iter(|| fast.chunk(t).expect("chunks")));
        let recursive = Chunker::new(&config(StrategyKind::Recursive, Unit::Chars, 4096, 0)).expect("valid config");
        group.bench_with_input(BenchmarkId::new("recursive-offsets", file), &text, |b, t| {
            b.iter(|| {
                out.clear();
                recursive.offsets_into(t, &mut out).expect("offsets");
                out.len()
            })
        });
        // What a pipeline sees: every text new, so nothing built for it is
        // kept from an earlier cut (the workbench's per-text cache misses).
        let mut round = 0u64;
        group.bench_function(BenchmarkId::new("recursive-offsets-unseen", file), |b| {
            b.iter_batched(
                || {
                    round += 1;
                    format!("{text}\nround {round}")
                },
                |t| {
                    out.clear();
                    recursive.offsets_into(&t, &mut out).expect("offsets");
                    out.len()
                },
                criterion::BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

fn bench_tokens(c: &mut Criterion) {
    let mut group = c.benchmark_group("tokens_512_50");
    group.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(300));
    for file in ["en_rust_book.md", "zh_rust_book.md"] {
        let text = corpus(file);
        group.throughput(Throughput::Bytes(text.len() as u64));
        let tok = Tokenizer::load("cl100k_base").expect("builtin tokenizer");
        group.bench_with_input(BenchmarkId::new("one-tokenizer-pass", file), &text, |b, t| {
            b.iter(|| tok.token_spans(t).expect("spans"))
        });
        for strategy in [StrategyKind::Recursive, StrategyKind::Sentence, StrategyKind::Fixed] {
            let chunker = Chunker::new(&config(strategy, Unit::Tokens, 512, 50)).expect("valid config");
            group.bench_with_input(BenchmarkId::new(strategy.name(), file), &text, |b, t| {
                b.iter(|| chunker.chunk(t).expect("chunks"))
            });
        }
    }
    group.finish();
}

/// One pass of each tokenizer over a whole document: chunktui's cl100k and
/// o200k on one thread (`count`) and on every core (`token_spans`, what
/// `--unit tokens` builds), against tiktoken-rs's `encode_ordinary` (the
/// same tokens, tiktoken's own code); MiniLM's WordPiece spans against the
/// tokenizers crate's single `encode` when the model is installed
/// (scripts/setup-models.sh, or CHUNKTUI_MODEL_DIR).
fn bench_tokenizer_pass(c: &mut Criterion) {
    let mut group = c.benchmark_group("tokenizer_pass");
    group.sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(300));
    let minilm = std::env::var_os("CHUNKTUI_MODEL_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/chunktui/models/all-MiniLM-L6-v2-int8"))
        })
        .map(|dir| dir.join("tokenizer.json"))
        .filter(|p| p.exists());
    if minilm.is_none() {
        eprintln!("tokenizer_pass: no MiniLM tokenizer.json (scripts/setup-models.sh): WordPiece rows skipped");
    }
    for file in FILES {
        let text = corpus(file);
        group.throughput(Throughput::Bytes(text.len() as u64));
        for (name, core) in
            [("cl100k_base", tiktoken_rs::cl100k_base_singleton()), ("o200k_base", tiktoken_rs::o200k_base_singleton())]
        {
            let bpe = chunktui::bpe::builtin(name).expect("built in");
            let tok = Tokenizer::load(name).expect("built in");
            group.bench_with_input(BenchmarkId::new(format!("{name}-count"), file), &text, |b, t| {
                b.iter(|| bpe.count(t))
            });
            group.bench_with_input(BenchmarkId::new(format!("{name}-spans-all-cores"), file), &text, |b, t| {
                b.iter(|| tok.token_spans(t).expect("spans").len())
            });
            group.bench_with_input(BenchmarkId::new(format!("{name}-tiktoken-rs"), file), &text, |b, t| {
                b.iter(|| core.encode_ordinary(t).len())
            });
        }
        if let Some(path) = &minilm {
            let tok = Tokenizer::load(&format!("hf:{}", path.display())).expect("MiniLM loads");
            group.bench_with_input(BenchmarkId::new("minilm-spans-all-cores", file), &text, |b, t| {
                b.iter(|| tok.token_spans(t).expect("spans").len())
            });
            let mut hf = tokenizers::Tokenizer::from_file(path).expect("MiniLM loads");
            hf.with_truncation(None).expect("no truncation");
            hf.with_padding(None);
            group.bench_with_input(BenchmarkId::new("minilm-tokenizers-encode", file), &text, |b, t| {
                b.iter(|| hf.encode(t.as_str(), false).expect("encodes").len())
            });
        }
    }
    group.finish();
}

fn bench_words(c: &mut Criterion) {
    let mut group = c.benchmark_group("words_200_20");
    group.sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(300));
    let text = corpus("en_rust_book.md");
    group.throughput(Throughput::Bytes(text.len() as u64));
    for strategy in [StrategyKind::Recursive, StrategyKind::Fixed] {
        let chunker = Chunker::new(&config(strategy, Unit::Words, 200, 20)).expect("valid config");
        group.bench_with_input(BenchmarkId::new(strategy.name(), "en_rust_book.md"), &text, |b, t| {
            b.iter(|| chunker.chunk(t).expect("chunks"))
        });
    }
    group.finish();
}

/// Linearity: MB/s on the ~5.8 MB concatenation from make-big.sh should stay
/// close to MB/s on the 1.2 MB Rust book (same strategy and settings).
fn bench_linear(c: &mut Criterion) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let big = root.join("target/bench/big.txt");
    if !big.exists() {
        std::fs::create_dir_all(big.parent().expect("has a parent")).expect("create target/bench");
        let status = std::process::Command::new("bash")
            .arg(data::corpus_file("make-big.sh"))
            .arg(&big)
            .status()
            .expect("run the corpus's make-big.sh");
        assert!(status.success(), "make-big.sh failed");
    }
    let big_text = std::fs::read_to_string(&big).expect("read big.txt");
    let mut group = c.benchmark_group("linear_recursive_chars_1000_200");
    group.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    let chunker = Chunker::new(&config(StrategyKind::Recursive, Unit::Chars, 1000, 200)).expect("valid config");
    for (name, text) in [("en_rust_book.md", corpus("en_rust_book.md")), ("big.txt", big_text)] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("recursive", name), &text, |b, t| {
            b.iter(|| chunker.chunk(t).expect("chunks"))
        });
    }
    group.finish();
}

/// This repository's own Rust (src/**/*.rs, in path order), repeated until
/// it holds `bytes`.
#[cfg(feature = "code")]
fn own_rust(bytes: usize) -> String {
    fn collect(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(dir).expect("read src/").map(|e| e.expect("entry").path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                collect(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    collect(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    let sources: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).expect("read a source file")).collect();
    let mut tree = String::with_capacity(bytes + 64 * 1024);
    while tree.len() < bytes {
        for source in &sources {
            tree.push_str(source);
            tree.push_str("\n\n");
        }
    }
    tree
}

/// `code` on ~1 MB of Rust against its yardstick, one tree-sitter parse and
/// a walk over every node, and against the recursive splitter's Rust preset.
#[cfg(feature = "code")]
fn bench_code(c: &mut Criterion) {
    let text = own_rust(1 << 20);
    let mut group = c.benchmark_group("code_1mb");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_millis(500));
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_with_input(BenchmarkId::new("tree-sitter-parse-and-walk", "src-rs"), &text, |b, t| {
        b.iter(|| {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&tree_sitter_rust::LANGUAGE.into()).expect("the Rust grammar loads");
            let tree = parser.parse(t, None).expect("parses");
            let mut cursor = tree.walk();
            let mut nodes = 0usize;
            // Pre-order over every node: down, else along, else up and along.
            loop {
                nodes += 1;
                if cursor.goto_first_child() || cursor.goto_next_sibling() {
                    continue;
                }
                while cursor.goto_parent() && !cursor.goto_next_sibling() {}
                if cursor.node() == tree.root_node() {
                    break;
                }
            }
            nodes
        })
    });
    let mut code = config(StrategyKind::Code, Unit::Chars, 1000, 0);
    code.code.language = Some("rust".into());
    let mut recursive = config(StrategyKind::Recursive, Unit::Chars, 1000, 0);
    recursive.recursive.preset = "rust".into();
    for (name, cfg) in [("code", code), ("recursive-rust-preset", recursive)] {
        let chunker = Chunker::new(&cfg).expect("valid config");
        group.bench_with_input(BenchmarkId::new(name, "src-rs"), &text, |b, t| {
            b.iter(|| chunker.chunk(t).expect("chunks"))
        });
    }
    group.finish();
}

#[cfg(not(feature = "code"))]
fn bench_code(_: &mut Criterion) {}

/// What `chunktui stats` adds to `chunktui chunk`: the numbers and the lint,
/// over-model-limit counting with the default model's own tokenizer when it
/// is installed (scripts/setup-models.sh; else with cl100k_base). The
/// target is at most about twice the cut (#24): the text's tokens are
/// tallied once, on the second core, while the other rules read the cut.
fn bench_stats_vs_chunk(c: &mut Criterion) {
    use chunktui::document::DocKind;
    use chunktui::lint::LintOptions;
    let mut group = c.benchmark_group("stats_vs_chunk");
    group.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(300));
    let config = ChunkConfig::default();
    let chunker = Chunker::new(&config).expect("valid config");
    for file in FILES {
        let text = corpus(file);
        let kind = DocKind::from_path(std::path::Path::new(file), &text);
        #[cfg(feature = "embed")]
        let opts = LintOptions::with_model_tokenizer(&config, kind).expect("lint options");
        #[cfg(not(feature = "embed"))]
        let opts = LintOptions::new(&config, kind).expect("lint options");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("chunk", file), &text, |b, t| {
            b.iter(|| chunker.chunk(t).expect("chunks"))
        });
        group.bench_with_input(BenchmarkId::new("stats", file), &text, |b, t| {
            b.iter(|| {
                let chunks = chunker.chunk(t).expect("chunks");
                let limit = config.strategy.promises_size_limit().then_some(config.size);
                (chunktui::Stats::compute(&chunks, t, limit), chunktui::lint::lint(t, &chunks, &opts))
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_chars,
    bench_fast,
    bench_tokens,
    bench_tokenizer_pass,
    bench_words,
    bench_linear,
    bench_code,
    bench_stats_vs_chunk
);
criterion_main!(benches);
