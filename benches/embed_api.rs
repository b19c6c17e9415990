//! Texts embedded per second through an OpenAI-compatible embeddings
//! endpoint: chunktui's client (batches of 64, at concurrency 1, 2 and 4)
//! against langchain-openai's `OpenAIEmbeddings.embed_documents` (strings,
//! `check_embedding_ctx_length=False`) on the same server and the same
//! texts, in one run.
//!
//!     cargo bench --bench embed_api
//!
//! The server is llama.cpp's (the xllamacpp wheel) serving all-MiniLM-L6-v2
//! with 4 slots, as tests/embed_api.rs starts it: it needs
//! CHUNKTUI_LLM_PYTHON, CHUNKTUI_EMBED_GGUF and, for the LangChain peer,
//! CHUNKTUI_TESTS_PYTHON (what `bash scripts/test.sh` sets up and prints;
//! see docs/testing.md). With CHUNKTUI_EMBED_URL and CHUNKTUI_EMBED_MODEL set, the
//! same table is measured against that server instead (the key from
//! $CHUNKTUI_EMBED_KEY). CHUNKTUI_BENCH_EMBED_TEXTS sets how many passages
//! (default 512, ~300 characters each, from en_rust_book.md).
//!
//! llama.cpp's server embeds one request after another, so concurrency
//! cannot show there; a second table measures it against a scripted
//! endpoint that answers each request after a fixed latency, as a hosted
//! API does (tests/common/fake_llm.rs).

#[path = "../tests/common/data.rs"]
mod data;
#[path = "../tests/common/fake_llm.rs"]
#[allow(dead_code)]
mod fake_llm;
#[path = "../tests/common/llama_server.rs"]
#[allow(dead_code)]
mod llama_server;

use chunktui::config::EmbedApiOptions;
use chunktui::embed::ApiEmbedder;
use chunktui::embedding::{Control, Embedder};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Passages of about 300 characters, cut at line ends.
fn passages(n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(data::corpus_file("en_rust_book.md")).expect("en_rust_book.md");
    let mut out = Vec::with_capacity(n);
    let mut current = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        current.push_str(line);
        current.push(' ');
        if current.len() >= 300 {
            out.push(std::mem::take(&mut current));
            if out.len() == n {
                break;
            }
        }
    }
    out
}

fn main() {
    let n: usize = std::env::var("CHUNKTUI_BENCH_EMBED_TEXTS").ok().and_then(|v| v.parse().ok()).unwrap_or(512);
    let texts = passages(n);
    let given = std::env::var("CHUNKTUI_EMBED_URL").ok().zip(std::env::var("CHUNKTUI_EMBED_MODEL").ok());
    let log = tempfile::tempdir().unwrap();
    let _server;
    let (url, model) = match given {
        Some(endpoint) => endpoint,
        None => {
            let gguf = std::env::var_os("CHUNKTUI_EMBED_GGUF")
                .expect("CHUNKTUI_EMBED_GGUF is not set: run `eval \"$(bash scripts/setup-embed-server.sh)\"`");
            let args = ["--alias", "all-minilm-l6-v2", "--embedding", "--pooling", "mean"];
            let slots = ["-c", "2048", "-b", "2048", "-ub", "512", "-np", "4", "-t", "2"];
            let server = llama_server::LlamaServer::start(
                gguf.as_ref(),
                &[&args[..], &slots[..]].concat(),
                &log.path().join("log"),
            );
            let url = server.url.clone();
            _server = server;
            (url, "all-minilm-l6-v2".to_string())
        }
    };
    println!("{} passages of ~300 characters from en_rust_book.md, {model} at {url}\n", texts.len());
    println!("{:<44} {:>8} {:>10} {:>9}", "client", "seconds", "texts/s", "vs peer");
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();

    let peer = langchain_seconds(&url, &model, &texts);
    let row = |name: &str, seconds: f64| {
        let ratio = peer.map_or("-".to_string(), |p| format!("{:.2}x", p / seconds));
        println!("{name:<44} {seconds:>8.2} {:>10.0} {ratio:>9}", texts.len() as f64 / seconds);
    };
    match peer {
        Some(s) => row("langchain-openai embed_documents", s),
        None => println!("langchain-openai: not measured (set CHUNKTUI_TESTS_PYTHON)"),
    }
    for concurrency in [1, 2, 4] {
        let opts = EmbedApiOptions {
            url: Some(url.clone()),
            model: Some(model.clone()),
            concurrency,
            cache: false,
            ..Default::default()
        };
        let api = ApiEmbedder::new(&opts, "cl100k_base").expect("a valid endpoint");
        api.embed_texts(&refs[..4], Control::none()).expect("warm-up");
        let started = Instant::now();
        let got = api.embed_texts(&refs, Control::none()).expect("vectors");
        assert_eq!(got.vectors.len(), texts.len());
        row(&format!("chunktui, batch 64, concurrency {concurrency}"), started.elapsed().as_secs_f64());
    }
    latency_bound(&refs);
}

/// chunktui's concurrency against an endpoint whose every request takes
/// `LATENCY` (vectors made from the texts' lengths).
fn latency_bound(texts: &[&str]) {
    const LATENCY: std::time::Duration = std::time::Duration::from_millis(50);
    let server = fake_llm::FakeServer::start(|_, seen| {
        let inputs = seen.body["input"].as_array().cloned().unwrap_or_default();
        let data: Vec<serde_json::Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| serde_json::json!({"index": i, "embedding": [1.0, t.as_str().unwrap_or("").len() as f64]}))
            .collect();
        let body = serde_json::json!({"data": data, "usage": {"prompt_tokens": 0}}).to_string();
        fake_llm::Reply { status: 200, headers: vec![], body, delay: LATENCY }
    });
    println!(
        "\nthe same passages, batch 16, against an endpoint answering each request in {} ms\n",
        LATENCY.as_millis()
    );
    println!("{:<44} {:>8} {:>10} {:>9}", "client", "seconds", "texts/s", "vs c=1");
    let mut serial = None;
    for concurrency in [1, 2, 4, 8] {
        let opts = EmbedApiOptions {
            url: Some(server.url.clone()),
            model: Some("scripted".into()),
            batch_size: 16,
            concurrency,
            cache: false,
            ..Default::default()
        };
        let api = ApiEmbedder::new(&opts, "cl100k_base").expect("a valid endpoint");
        let started = Instant::now();
        api.embed_texts(texts, Control::none()).expect("vectors");
        let seconds = started.elapsed().as_secs_f64();
        let base = *serial.get_or_insert(seconds);
        println!(
            "{:<44} {seconds:>8.2} {:>10.0} {:>8.1}x",
            format!("chunktui, batch 16, concurrency {concurrency}"),
            texts.len() as f64 / seconds,
            base / seconds
        );
    }
}

/// langchain-openai's time for the same texts (tests/python/lc_semantic_api.py --time-embed).
fn langchain_seconds(url: &str, model: &str, texts: &[String]) -> Option<f64> {
    let python = std::env::var_os("CHUNKTUI_TESTS_PYTHON")?;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/lc_semantic_api.py");
    let mut child = Command::new(python)
        .arg(script)
        .args(["--time-embed", url, model])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run langchain-openai");
    child.stdin.take().unwrap().write_all(serde_json::to_string(texts).unwrap().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "langchain-openai failed");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["seconds"].as_f64()
}
