//! Work that grows with the text, not with its square:
//!
//! - a LangChain separator regex with an unbounded look-around
//!   (`(?=(?:a+)+b)`, `(?=a*b)`) is refused at once, with one line and exit
//!   2: fancy-regex hands a look-around's body to the `regex` crate, whose
//!   scan from every position its backtracking limit never sees, so the
//!   split took minutes on a few megabytes; bounded look-arounds still work;
//! - semantic's `buffer_size` of 4,294,967,295 embeds at most a bounded
//!   window per sentence (counted with an embedder that records what it is
//!   given), not the whole text once per sentence.
#![cfg(feature = "cli")]

mod common;

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::embedding::{Control, Embedder, Embeddings};
use chunktui::error::Result;
use chunktui::Chunker;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

/// Run the binary on `file`; kill it and fail after 60 s.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let err = tempfile::NamedTempFile::new().unwrap();
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(err.path()).unwrap())
        .env("NO_COLOR", "1")
        .spawn()
        .expect("spawn");
    let status = common::wait_or_kill(&mut child, Duration::from_secs(60), &args.join(" "));
    (status.code(), std::fs::read_to_string(err.path()).unwrap())
}

#[test]
fn unbounded_lookarounds_in_langchain_separators_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // 2 MB of lines of a's: every search tried each position and rescanned its line.
    let file = dir.path().join("a.txt");
    std::fs::write(&file, ("a".repeat(20_000) + "\n").repeat(100)).unwrap();
    let f = file.to_str().unwrap();
    for pattern in ["(?=(?:a+)+b)", "(?=a*b)", "(?!a+b)", "(?=(?:a|aa){2,}b)", "(?=(a)\\1*b)", "x(?=a{0,100000}b)"] {
        for (strategy, flag, value) in [
            ("langchain-recursive", "--separators", format!("[{}]", serde_json::to_string(pattern).unwrap())),
            ("langchain-character", "--separator", pattern.to_string()),
        ] {
            let (code, stderr) = run(&["chunk", f, "-s", strategy, "--regex", flag, &value, "--size", "100"]);
            let what = format!("{strategy} {pattern}");
            assert_eq!(code, Some(2), "{what}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{what}: one line: {stderr}");
            assert!(stderr.contains("look-around") && stderr.contains(pattern), "{what}: {stderr}");
        }
    }
    // Look-arounds that read a bounded stretch still split.
    std::fs::write(&file, "# One\n\ntext here\n## Two\n\nmore text\n".repeat(2000)).unwrap();
    for pattern in ["(?=\\n#{1,6} )", "(?<=\\.)\\s", "(?=\\n(?:a{0,15}){0,16}#)"] {
        let (code, stderr) =
            run(&["chunk", f, "-s", "langchain-character", "--regex", "--separator", pattern, "--size", "100"]);
        assert_eq!(code, Some(0), "{pattern}: {stderr}");
    }
}

/// An embedder that counts the bytes it is asked to embed, with a stated
/// input limit like a real model's.
struct Counting {
    bytes: AtomicUsize,
}

impl Embedder for Counting {
    fn model_id(&self) -> &str {
        "counting"
    }
    fn embed_texts(&self, texts: &[&str], ctl: Control<'_>) -> Result<Embeddings> {
        ctl.check()?;
        self.bytes.fetch_add(texts.iter().map(|t| t.len()).sum::<usize>(), Ordering::Relaxed);
        let vectors = texts
            .iter()
            .map(|t| {
                let mut v = vec![1.0f32; 8];
                v[t.len() % 8] += t.split_whitespace().count() as f32;
                chunktui::embedding::normalize(&mut v);
                v
            })
            .collect();
        Ok(Embeddings { vectors, truncated: vec![] })
    }
    fn max_input_tokens(&self) -> Option<usize> {
        Some(256)
    }
}

#[test]
fn a_huge_semantic_buffer_embeds_a_bounded_window_per_sentence() {
    // 2,000 sentences, 60 KB.
    let words = ["river", "bank", "water", "chunk", "model", "vector", "search", "answer", "token", "level"];
    let mut text = String::new();
    for i in 0..2000 {
        let n = 3 + i % 5;
        let s: Vec<&str> = (0..n).map(|j| words[(i * 7 + j * 3) % words.len()]).collect();
        text.push_str(&s.join(" "));
        text.push_str(if i % 10 == 9 { ".\n\n" } else { ". " });
    }
    let cost = |buffer: usize| {
        let embedder = Arc::new(Counting { bytes: AtomicUsize::new(0) });
        let mut c = ChunkConfig { strategy: StrategyKind::Semantic, ..ChunkConfig::default() };
        c.semantic.buffer_size = buffer;
        let chunks = Chunker::new(&c).unwrap().with_embedder(embedder.clone()).chunk(&text).unwrap();
        assert!(!chunks.is_empty());
        embedder.bytes.load(Ordering::Relaxed)
    };
    let (small, huge) = (cost(1), cost(4_294_967_295));
    // The whole text once per sentence was 2,000 × 30 KB = 60 MB; a window
    // the model can read is at most 256 tokens × 32 bytes per sentence.
    assert!(huge <= 2 * 2000 * 256 * 32, "buffer 4294967295 embedded {huge} bytes of a {} byte text", text.len());
    assert!(huge > small, "{huge} vs {small}");
}
