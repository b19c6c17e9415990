//! What the LLM strategies cost: requests and tokens per MB of text, time
//! cold and cached, and the speed-up from concurrency.
//!
//!     cargo bench --bench llm
//!
//! By default against an in-process scripted endpoint with a fixed latency
//! per request (tests/common/fake_llm.rs): the numbers then measure
//! chunktui's own work — windows, requests, the cache, the worker pool —
//! not a model. With `CHUNKTUI_LLM_URL` and `CHUNKTUI_LLM_MODEL` set (for
//! example the llama.cpp server of scripts/setup-llm.sh) the same table is
//! measured against that server; keep the text small for a CPU model
//! (`CHUNKTUI_BENCH_LLM_KB`, default 64 KB of en_rust_book.md).

#[path = "../tests/common/data.rs"]
mod data;
#[path = "../tests/common/fake_llm.rs"]
#[allow(dead_code)]
mod fake_llm;

use chunktui::config::StrategyKind;
use chunktui::{ChunkConfig, Chunker};
use std::time::{Duration, Instant};

/// Latency of each scripted answer.
const LATENCY: Duration = Duration::from_millis(25);

fn main() {
    let kb: usize = std::env::var("CHUNKTUI_BENCH_LLM_KB").ok().and_then(|v| v.parse().ok()).unwrap_or(64);
    let full = std::fs::read_to_string(data::corpus_file("en_rust_book.md")).expect("en_rust_book.md");
    let mut end = (kb * 1024).min(full.len());
    while !full.is_char_boundary(end) {
        end -= 1;
    }
    let text = &full[..end];
    let mb = text.len() as f64 / (1024.0 * 1024.0);
    let real = std::env::var("CHUNKTUI_LLM_URL").ok().zip(std::env::var("CHUNKTUI_LLM_MODEL").ok());
    let _server;
    let (url, model, against) = match real {
        Some((url, model)) => (url, model.clone(), format!("{model} at the given server")),
        None => {
            let server = fake_llm::FakeServer::start(|_, seen| {
                let prompt = seen.body["messages"][1]["content"].as_str().unwrap_or_default();
                let first =
                    prompt.lines().next().and_then(|l| l.strip_prefix('[')?.split(']').next()?.parse::<usize>().ok());
                let content = match first {
                    Some(n) => format!("{{\"starts\": [{n}, {}]}}", n + 5),
                    None => "{\"propositions\": [], \"choices\": []}".into(),
                };
                fake_llm::Reply { delay: LATENCY, ..fake_llm::answer(&content) }
            });
            let url = server.url.clone();
            _server = server;
            (url, "scripted".to_string(), format!("a scripted endpoint answering in {} ms", LATENCY.as_millis()))
        }
    };
    println!("LLM strategies on {:.0} KB of en_rust_book.md, against {against}\n", text.len() as f64 / 1024.0);
    println!(
        "{:<14} {:>11} {:>8} {:>13} {:>9} {:>9} {:>9} {:>8}",
        "strategy", "concurrency", "req/MB", "prompt tok/MB", "cold s", "cached s", "speed-up", "chunks"
    );
    for kind in [StrategyKind::Llm, StrategyKind::Propositions, StrategyKind::Agentic] {
        let mut serial = None;
        for concurrency in [1, 4] {
            // A fresh cache for each cold run.
            let cache = tempfile::tempdir().unwrap();
            std::env::set_var("CHUNKTUI_CACHE_DIR", cache.path());
            let mut config = ChunkConfig { strategy: kind, size: 800, overlap: 0, ..ChunkConfig::default() };
            config.llm.url = Some(url.clone());
            config.llm.model = Some(model.clone());
            config.llm.concurrency = concurrency;
            let chunker = Chunker::new(&config).expect("a valid config");
            let before = chunktui::llm::usage();
            let started = Instant::now();
            let chunks = chunker.chunk(text).expect("chunks");
            let cold = started.elapsed().as_secs_f64();
            let used = chunktui::llm::usage().since(&before);
            let started = Instant::now();
            let again = chunker.chunk(text).expect("chunks");
            let cached = started.elapsed().as_secs_f64();
            assert_eq!(chunks, again, "the cache gives the same chunks");
            let speedup = match serial {
                None => {
                    serial = Some(cold);
                    "1.0x".to_string()
                }
                Some(s) => format!("{:.1}x", s / cold.max(1e-9)),
            };
            println!(
                "{:<14} {:>11} {:>8.0} {:>13.0} {:>9.2} {:>9.3} {:>9} {:>8}",
                kind.name(),
                concurrency,
                used.requests as f64 / mb,
                used.prompt_tokens as f64 / mb,
                cold,
                cached,
                speedup,
                chunks.len()
            );
        }
    }
}
