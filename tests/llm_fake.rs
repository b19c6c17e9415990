//! The LLM client and strategies against a scripted OpenAI-compatible
//! endpoint that misbehaves on purpose: refused reply formats, 429 with
//! Retry-After, 500s, timeouts, 401/404, garbage and invented text. What
//! must hold whatever the server does: chunks are exact source ranges that
//! tile the document within the size, every repair and fallback is
//! reported, retries stop within their time budget, the key is sent but
//! written nowhere, and a cached run needs no server. (The real local
//! server, llama.cpp, is tests/llm_server.rs.)

mod common;

use common::fake_llm::{answer, chunktui_alone, status, FakeServer, Reply, Seen};
use serde_json::{json, Value};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The numbered pieces of a request's prompt: `[n]` at line starts.
fn numbers_shown(seen: &Seen) -> Vec<i64> {
    let user = seen.body["messages"][1]["content"].as_str().unwrap_or_default();
    user.lines().filter_map(|l| l.strip_prefix('[')?.split(']').next()?.parse().ok()).collect()
}

const DOC: &str = "# Ownership\n\nOwnership is a set of rules that govern how a Rust program manages memory. \
All programs have to manage the way they use a computer's memory while running. Some languages have garbage \
collection that regularly looks for no-longer-used memory as the program runs.\n\n## The Stack and the Heap\n\n\
Many programming languages don't require you to think about the stack and the heap very often. But in a systems \
programming language like Rust, whether a value is on the stack or the heap affects how the language behaves. \
Both the stack and the heap are parts of memory available to your code to use at runtime.\n\n\
所有权是 Rust 最独特的功能。它让 Rust 无需垃圾回收即可保证内存安全。因此，理解所有权如何工作非常重要！\
在本章中，我们将讨论所有权以及相关功能：借用、slice 以及 Rust 如何在内存中布局数据。\n";

struct Run {
    out: Output,
    stdout: String,
    stderr: String,
    seconds: f64,
}

fn chunktui(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Run {
    let started = Instant::now();
    let out = chunktui_alone(dir, args).envs(envs.iter().copied()).output().expect("run chunktui");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    Run { out, stdout, stderr, seconds: started.elapsed().as_secs_f64() }
}

fn records(stdout: &str) -> Vec<Value> {
    stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Records tile `text` exactly (each starts where the last ended, the last
/// ends at the end) and hold their source text, each within `size` chars.
fn assert_tiles(text: &str, recs: &[Value], size: usize) {
    let mut at = 0;
    for r in recs {
        let (s, e) = (r["start"].as_u64().unwrap() as usize, r["end"].as_u64().unwrap() as usize);
        assert_eq!(s, at, "chunks tile the document: {recs:?}");
        assert_eq!(r["text"].as_str().unwrap(), &text[s..e], "exact source text");
        assert!(text[s..e].chars().count() <= size, "within --size {size}: {}", &text[s..e]);
        at = e;
    }
    assert_eq!(at, text.len(), "the last chunk ends at the end");
}

fn setup() -> common::Dir {
    let dir = common::Dir::new();
    std::fs::write(dir.path("doc.md"), DOC).unwrap();
    dir
}

fn llm_args<'a>(url: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["chunk", "doc.md", "-s", "llm", "--llm-url", url, "--llm-model", "fake"];
    a.extend_from_slice(rest);
    a
}

#[test]
fn a_refused_reply_format_is_negotiated_down_and_max_tokens_is_always_sent() {
    let dir = setup();
    // Like llama-cpp-python: json_schema is an HTTP 500; json_object works.
    let server = FakeServer::start(|_, seen| {
        if seen.body["response_format"]["type"] == "json_schema" {
            return status(500, r#"{"error": {"message": "Input should be 'text' or 'json_object'"}}"#);
        }
        let shown = numbers_shown(seen);
        let mid = shown[shown.len() / 2];
        answer(&format!("{{\"starts\": [{}, {mid}]}}", shown[0]))
    });
    let run = chunktui(dir.root(), &llm_args(&server.url, &["--size", "400"]), &[]);
    assert!(run.out.status.success(), "{}", run.stderr);
    assert_tiles(DOC, &records(&run.stdout), 400);
    let seen = server.seen();
    assert_eq!(seen[0].body["response_format"]["type"], "json_schema");
    let after: Vec<&Seen> = seen.iter().filter(|s| s.body["response_format"]["type"] == "json_object").collect();
    assert!(!after.is_empty(), "json_object after json_schema was refused");
    assert!(after.iter().all(|s| s.body["response_format"]["schema"].is_object()), "the schema goes with it");
    let schema_refusals = seen.iter().filter(|s| s.body["response_format"]["type"] == "json_schema").count();
    assert!(schema_refusals <= 2, "a refused format is not tried again and again: {schema_refusals}");
    for s in &seen {
        assert_eq!(s.path, "/v1/chat/completions");
        assert!(s.body["max_tokens"].as_u64().is_some_and(|n| n > 0 && n <= 256), "max_tokens bounded: {}", s.body);
        assert_eq!(s.body["model"], "fake");
    }
    assert!(run.stderr.contains("llm: "), "usage on stderr: {}", run.stderr);
}

#[test]
fn invalid_numbers_are_repaired_and_garbage_falls_back_loudly_with_exact_chunks() {
    let dir = setup();
    let server = FakeServer::start(|n, seen| {
        let shown = numbers_shown(seen);
        match n % 3 {
            // Out of range, zero, negative, repeated and out of order.
            0 => {
                answer(&format!("{{\"starts\": [0, 999, -4, {}, {}, {}]}}", shown[shown.len() - 1], shown[1], shown[1]))
            }
            // Invented text instead of numbers.
            1 => answer("Sure! Here is the document rewritten as better chunks: Ownership rules..."),
            _ => answer("{\"starts\": \"soon\"}"),
        }
    });
    for size in ["120", "300"] {
        let run = chunktui(dir.root(), &llm_args(&server.url, &["--size", size, "--llm-cache", "off"]), &[]);
        assert!(run.out.status.success(), "{}", run.stderr);
        assert_tiles(DOC, &records(&run.stdout), size.parse().unwrap());
        let usage = run.stderr.lines().find(|l| l.contains("llm: ")).unwrap_or_else(|| panic!("{}", run.stderr));
        assert!(
            usage.contains("repaired") || usage.contains("unusable"),
            "repairs and fallbacks are reported: {usage}"
        );
    }
    // --json carries the same counts.
    let run = chunktui(
        dir.root(),
        &[
            "stats",
            "doc.md",
            "-s",
            "llm",
            "--llm-url",
            &server.url,
            "--llm-model",
            "fake",
            "--json",
            "--llm-cache",
            "off",
        ],
        &[],
    );
    let v: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    let llm = &v["llm"];
    assert!(llm["requests"].as_u64().unwrap() >= 1, "{v}");
    assert!(llm["repaired"].as_u64().unwrap() + llm["fallbacks"].as_u64().unwrap() >= 1, "{v}");
}

#[test]
fn a_429_is_retried_after_its_retry_after_and_a_hung_server_times_out_within_the_budget() {
    let dir = setup();
    let server = FakeServer::start(|n, _| {
        if n == 0 {
            Reply {
                status: 429,
                headers: vec![("Retry-After".into(), "1".into())],
                body: "{}".into(),
                delay: Duration::ZERO,
            }
        } else {
            answer("{\"starts\": [1]}")
        }
    });
    let run = chunktui(dir.root(), &llm_args(&server.url, &["--size", "2000", "--llm-cache", "off"]), &[]);
    assert!(run.out.status.success(), "{}", run.stderr);
    assert!(run.seconds >= 1.0, "waited for Retry-After");
    assert!(run.stderr.contains("1 retried"), "{}", run.stderr);

    // A server that never answers in time: each try times out, retries stop at the budget.
    let hung = FakeServer::start(|_, _| Reply { delay: Duration::from_secs(5), ..answer("{\"starts\": [1]}") });
    std::fs::write(
        dir.path("slow.toml"),
        "strategy = \"llm\"\nsize = 2000\n[llm]\ntimeout_seconds = 1\nretry_seconds = 4\ncache = false\n",
    )
    .unwrap();
    let run = chunktui(
        dir.root(),
        &["chunk", "doc.md", "--config", "slow.toml", "--llm-url", &hung.url, "--llm-model", "fake"],
        &[],
    );
    assert_eq!(run.out.status.code(), Some(2), "{}", run.stderr);
    assert!(run.seconds < 20.0, "bounded by retry_seconds: {} s", run.seconds);
    assert!(run.stderr.contains(&hung.url), "names the address: {}", run.stderr);
    assert!(run.stderr.contains("timed out"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "nothing written");
}

#[test]
fn unauthorised_and_wrong_paths_fail_at_once_with_the_fix_and_never_print_the_key() {
    let dir = setup();
    let key = "sk-test-DO-NOT-LEAK-4242";
    let server = FakeServer::start(|_, _| status(401, r#"{"error": "invalid key sk-test-DO-NOT-LEAK-4242"}"#));
    let run = chunktui(dir.root(), &llm_args(&server.url, &[]), &[("CHUNKTUI_LLM_KEY", key)]);
    assert_eq!(run.out.status.code(), Some(2));
    assert!(run.seconds < 10.0, "no retries on 401");
    assert!(run.stderr.contains("401") && run.stderr.contains("CHUNKTUI_LLM_KEY"), "{}", run.stderr);
    assert!(!run.stderr.contains(key) && !run.stdout.contains(key), "the key is never printed");
    assert_eq!(server.seen()[0].authorization.as_deref(), Some(format!("Bearer {key}").as_str()), "the key is sent");

    let server = FakeServer::start(|_, _| status(404, "{}"));
    let run = chunktui(dir.root(), &llm_args(&server.url, &[]), &[("OPENAI_API_KEY", key)]);
    assert_eq!(run.out.status.code(), Some(2));
    assert!(run.stderr.contains("404") && run.stderr.contains("/v1"), "{}", run.stderr);
    assert_eq!(server.seen().len(), 1, "no retries on 404");
}

#[test]
fn a_cached_run_needs_no_server_and_no_file_holds_the_key() {
    let dir = setup();
    let key = "sk-cache-SECRET-777";
    let server = FakeServer::start(|_, seen| {
        let shown = numbers_shown(seen);
        answer(&format!("{{\"starts\": [{}]}}", shown[shown.len() / 2]))
    });
    let first = chunktui(
        dir.root(),
        &llm_args(&server.url, &["--size", "500", "-o", "first.jsonl"]),
        &[("CHUNKTUI_LLM_KEY", key)],
    );
    assert!(first.out.status.success(), "{}", first.stderr);
    let url = server.url.clone();
    drop(server);
    // The same settings, the server gone: served from the cache, no request.
    let again =
        chunktui(dir.root(), &llm_args(&url, &["--size", "500", "-o", "again.jsonl"]), &[("CHUNKTUI_LLM_KEY", key)]);
    assert!(again.out.status.success(), "{}", again.stderr);
    assert!(again.stderr.contains("llm: 0 requests"), "{}", again.stderr);
    assert_eq!(std::fs::read(dir.path("first.jsonl")).unwrap(), std::fs::read(dir.path("again.jsonl")).unwrap());
    // Another size re-cuts the same answers: still no request.
    let resized = chunktui(dir.root(), &llm_args(&url, &["--size", "250"]), &[]);
    assert!(resized.stderr.contains("llm: 0 requests"), "{}", resized.stderr);
    assert_tiles(DOC, &records(&resized.stdout), 250);
    // The key is in no file chunktui wrote: outputs and the cache.
    let files = common::files_under(dir.root());
    for p in &files {
        assert!(!String::from_utf8_lossy(&std::fs::read(p).unwrap()).contains(key), "{} holds the key", p.display());
    }
    let files = files.len();
    assert!(files >= 4, "outputs and cache entries were checked ({files})");
}

#[test]
fn a_stopped_server_gives_a_short_error_naming_the_address_quickly() {
    let dir = setup();
    // A port nothing listens on.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let run = chunktui(dir.root(), &llm_args(&url, &["-o", "out.jsonl"]), &[]);
    assert_eq!(run.out.status.code(), Some(2), "{}", run.stderr);
    assert!(run.seconds < 90.0, "{} s", run.seconds);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert!(lines.len() <= 3, "at most 3 lines: {}", run.stderr);
    assert!(run.stderr.contains(&format!("127.0.0.1:{port}")), "names the address: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(!dir.path("out.jsonl").exists(), "nothing written");
}

#[test]
fn propositions_keep_what_the_source_supports_and_drop_invented_text() {
    let dir = setup();
    let server =
        FakeServer::start(|_, seen| {
            let shown = numbers_shown(seen);
            let first = shown[0];
            answer(&json!({"propositions": [
            {"text": "Ownership is a set of rules for how Rust programs manage memory.", "sentences": [first + 1]},
            {"text": "Bananas are an excellent source of potassium.", "sentences": [first]},
            {"text": "所有权让 Rust 无需垃圾回收即可保证内存安全。", "sentences": []},
            {"text": "", "sentences": [first]}
        ]}).to_string())
        });
    let run = chunktui(
        dir.root(),
        &["chunk", "doc.md", "-s", "propositions", "--llm-url", &server.url, "--llm-model", "fake"],
        &[],
    );
    assert!(run.out.status.success(), "{}", run.stderr);
    let recs = records(&run.stdout);
    assert!(!recs.is_empty());
    for r in &recs {
        let (s, e) = (r["start"].as_u64().unwrap() as usize, r["end"].as_u64().unwrap() as usize);
        assert_eq!(r["text"].as_str().unwrap(), &DOC[s..e], "a record's range is its source, exact");
        let prop = r["embed_text"].as_str().unwrap();
        assert!(!prop.contains("Bananas"), "invented text is dropped");
        assert!(!prop.is_empty());
    }
    assert!(recs.iter().any(|r| r["embed_text"].as_str().unwrap().starts_with("Ownership is a set of rules for how")));
    let zh =
        recs.iter().find(|r| r["embed_text"].as_str().unwrap().starts_with("所有权让")).expect("anchored by its words");
    assert!(zh["text"].as_str().unwrap().contains("垃圾回收"), "{zh}");
    assert!(run.stderr.contains("dropped"), "{}", run.stderr);
}

#[test]
fn generated_questions_have_exact_references_that_eval_reads_and_judges() {
    let dir = setup();
    let server = FakeServer::start(|_, seen| {
        let system = seen.body["messages"][0]["content"].as_str().unwrap_or_default();
        let user = seen.body["messages"][1]["content"].as_str().unwrap_or_default();
        if system.contains("write one question") {
            // A question per passage, from its first words; one copies the passage (rejected).
            let passage = user.split("Passage:\n").nth(1).unwrap_or_default();
            if passage.starts_with("All programs") {
                return answer(&json!({"question": passage}).to_string());
            }
            let words: Vec<&str> = passage.split_whitespace().take(4).collect();
            answer(&json!({"question": format!("What about {}?", words.join(" "))}).to_string())
        } else {
            answer("{\"score\": 2}")
        }
    });
    let gen = chunktui(
        dir.root(),
        &[
            "eval",
            "doc.md",
            "--generate",
            "3",
            "--out",
            "q.csv",
            "--llm-url",
            &server.url,
            "--llm-model",
            "fake",
            "--seed",
            "3",
        ],
        &[],
    );
    assert!(gen.out.status.success(), "{}", gen.stderr);
    assert!(gen.stderr.contains("wrote 3 questions"), "{}", gen.stderr);
    let csv = std::fs::read_to_string(dir.path("q.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let chars: Vec<char> = DOC.chars().collect();
    let mut n = 0;
    for row in reader.records() {
        let row = row.unwrap();
        let refs: Value = serde_json::from_str(&row[1]).unwrap();
        for r in refs.as_array().unwrap() {
            let (s, e) = (r["start_index"].as_u64().unwrap() as usize, r["end_index"].as_u64().unwrap() as usize);
            let exact: String = chars[s..e].iter().collect();
            assert_eq!(r["content"].as_str().unwrap(), exact, "references are exact (code points)");
        }
        assert_eq!(&row[2], "doc");
        n += 1;
    }
    assert_eq!(n, 3);
    // The same seed: the same file, from the cache.
    let again = chunktui(
        dir.root(),
        &[
            "eval",
            "doc.md",
            "--generate",
            "3",
            "--out",
            "q2.csv",
            "--llm-url",
            &server.url,
            "--llm-model",
            "fake",
            "--seed",
            "3",
        ],
        &[],
    );
    assert!(again.stderr.contains("llm: 0 requests"), "{}", again.stderr);
    assert_eq!(csv, std::fs::read_to_string(dir.path("q2.csv")).unwrap());
    // The output may not replace the document.
    let clash = chunktui(
        dir.root(),
        &["eval", "doc.md", "--generate", "3", "--out", "doc.md", "--llm-url", &server.url, "--llm-model", "fake"],
        &[],
    );
    assert_eq!(clash.out.status.code(), Some(2), "{}", clash.stderr);
    assert_eq!(std::fs::read_to_string(dir.path("doc.md")).unwrap(), DOC);
    // eval reads them; --judge adds both scores in [0, 1].
    let judged = chunktui(
        dir.root(),
        &[
            "eval",
            "doc.md",
            "--queries",
            "q.csv",
            "--retriever",
            "bm25",
            "--size",
            "200",
            "--judge",
            "--json",
            "--llm-url",
            &server.url,
            "--llm-model",
            "fake",
        ],
        &[],
    );
    assert!(judged.out.status.success(), "{}", judged.stderr);
    let v: Value = serde_json::from_str(&judged.stdout).unwrap();
    for key in ["context_precision", "context_relevance"] {
        let mean = v[key]["mean"].as_f64().unwrap_or_else(|| panic!("{key}: {v}"));
        assert!((0.0..=1.0).contains(&mean), "{key} {mean}");
    }
    assert_eq!(v["context_relevance"]["mean"].as_f64(), Some(1.0), "every judge said 2");
}

#[test]
fn the_agents_plan_cuts_each_section_exactly_and_replays_from_the_config_without_a_server() {
    let dir = setup();
    // Two top-level sections.
    let doc = DOC.replace("## The Stack", "# The Stack");
    std::fs::write(dir.path("doc.md"), &doc).unwrap();
    let server = FakeServer::start(|_, seen| {
        let outline = seen.body["messages"][1]["content"].as_str().unwrap_or_default();
        assert!(
            outline.contains("sub-headings") && outline.contains("CJK"),
            "the agent sees the statistics: {outline}"
        );
        answer(
            r#"{"choices": [{"section": 1, "strategy": "sentence", "size": 150, "reason": "short prose"},
                               {"section": 2, "strategy": "warp-drive", "size": 10, "reason": "?"}]}"#,
        )
    });
    let first = chunktui(
        dir.root(),
        &[
            "chunk",
            "doc.md",
            "-s",
            "agentic",
            "--llm-url",
            &server.url,
            "--llm-model",
            "fake",
            "--write-config",
            "plan.toml",
        ],
        &[],
    );
    assert!(first.out.status.success(), "{}", first.stderr);
    let recs = records(&first.stdout);
    for r in &recs {
        let (s, e) = (r["start"].as_u64().unwrap() as usize, r["end"].as_u64().unwrap() as usize);
        assert_eq!(r["text"].as_str().unwrap(), &doc[s..e], "exact source text");
    }
    let field = |r: &Value, k: &str| {
        r["meta"]["fields"].as_array().unwrap().iter().find(|f| f[0] == k).map(|f| f[1].as_str().unwrap().to_string())
    };
    assert_eq!(field(&recs[0], "strategy").as_deref(), Some("sentence"));
    assert_eq!(field(&recs[0], "reason").as_deref(), Some("short prose"));
    let last = recs.last().unwrap();
    assert_eq!(field(last, "section").as_deref(), Some("The Stack and the Heap"));
    assert!(field(last, "reason").unwrap().starts_with("fallback"), "an unknown strategy falls back: {last}");
    assert!(first.stderr.contains("unusable"), "{}", first.stderr);
    let plan = std::fs::read_to_string(dir.path("plan.toml")).unwrap();
    assert!(plan.contains("[[agentic.plan]]") && plan.contains("short prose"), "{plan}");
    drop(server);
    // The plan alone, no endpoint: the same chunks.
    std::fs::write(
        dir.path("plan.toml"),
        plan.replace("[llm]", "[llm]\n# no server needed")
            .lines()
            .filter(|l| !l.starts_with("url") && !l.starts_with("model"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let replay = chunktui(dir.root(), &["chunk", "doc.md", "--config", "plan.toml"], &[]);
    assert!(replay.out.status.success(), "{}", replay.stderr);
    assert_eq!(replay.stdout, first.stdout, "the plan reproduces the chunks");
    assert!(!replay.stderr.contains("requests"), "no LLM work: {}", replay.stderr);
}

#[test]
fn enrichment_describes_every_chunk_in_meta_and_puts_the_context_before_embed_text() {
    let dir = setup();
    let server = FakeServer::start(|n, _| {
        if n == 1 {
            // One answer missing a field: what it has is kept, the gap reported.
            return answer(r#"{"title": "Partial"}"#);
        }
        answer(
            r#"{"title": "Ownership\nrules", "keywords": ["memory", "stack"], "context": "From a chapter on Rust ownership."}"#,
        )
    });
    let plain = chunktui(dir.root(), &["chunk", "doc.md", "--size", "300"], &[]);
    let enriched = chunktui(
        dir.root(),
        &[
            "chunk",
            "doc.md",
            "--size",
            "300",
            "--llm-enrich",
            "title,keywords,context",
            "--llm-url",
            &server.url,
            "--llm-model",
            "fake",
        ],
        &[],
    );
    assert!(enriched.out.status.success(), "{}", enriched.stderr);
    let (a, b) = (records(&plain.stdout), records(&enriched.stdout));
    assert_eq!(a.len(), b.len());
    let mut full = 0;
    for (p, e) in a.iter().zip(&b) {
        assert_eq!(
            (&p["start"], &p["end"], &p["text"]),
            (&e["start"], &e["end"], &e["text"]),
            "the chunks do not change"
        );
        let fields = e["meta"]["fields"].to_string();
        if fields.contains("context") {
            full += 1;
            assert!(fields.contains("Ownership rules") && fields.contains("memory, stack"), "{fields}");
            let embed = e["embed_text"].as_str().unwrap();
            assert!(embed.starts_with("From a chapter on Rust ownership.\n\n"), "{embed}");
            assert!(embed.ends_with(e["text"].as_str().unwrap()), "{embed}");
        } else {
            assert!(fields.contains("Partial"), "{fields}");
        }
    }
    assert_eq!(full, b.len() - 1);
    assert!(enriched.stderr.contains("1 unusable"), "a partial answer is reported: {}", enriched.stderr);
    let bad = chunktui(
        dir.root(),
        &["chunk", "doc.md", "--llm-enrich", "mood", "--llm-url", &server.url, "--llm-model", "fake"],
        &[],
    );
    assert_eq!(bad.out.status.code(), Some(2));
    assert!(bad.stderr.contains("title, summary, keywords, context"), "{}", bad.stderr);
}

#[test]
fn tune_writes_questions_sweeps_the_agents_grid_and_reports_the_winner() {
    let dir = setup();
    let server = FakeServer::start(|_, seen| {
        let system = seen.body["messages"][0]["content"].as_str().unwrap_or_default();
        let user = seen.body["messages"][1]["content"].as_str().unwrap_or_default();
        if system.contains("plan a search") {
            assert!(user.contains("doc:") && user.contains("headings"), "the agent sees the shape: {user}");
            return answer(
                r#"{"strategies": ["sentence", "recursive", "teleport"], "sizes": [120, 250, 5], "reason": "short prose"}"#,
            );
        }
        let passage = user.split("Passage:\n").nth(1).unwrap_or_default();
        let words: Vec<&str> = passage.split_whitespace().take(5).collect();
        answer(&json!({"question": format!("Which text says {}?", words.join(" "))}).to_string())
    });
    std::fs::create_dir_all(dir.path("docs")).unwrap();
    std::fs::rename(dir.path("doc.md"), dir.path("docs/doc.md")).unwrap();
    let run = chunktui(
        dir.root(),
        &[
            "tune",
            "docs",
            "--generate",
            "4",
            "--retriever",
            "bm25",
            "--best",
            "best.toml",
            "--llm-url",
            &server.url,
            "--llm-model",
            "fake",
        ],
        &[],
    );
    assert!(run.out.status.success(), "{}", run.stderr);
    for part in ["best: ", "why: ", "runner-up: ", "cost: ", "the agent's proposal: short prose", "4 combinations"] {
        assert!(run.stdout.contains(part), "{part:?} in the report:\n{}", run.stdout);
    }
    let best = std::fs::read_to_string(dir.path("best.toml")).unwrap();
    assert!(best.contains("strategy = \"sentence\"") || best.contains("strategy = \"recursive\""), "{best}");
    let questions = std::fs::read_to_string(dir.path("best.questions.csv")).unwrap();
    assert_eq!(questions.lines().count(), 5, "a header and 4 questions: {questions}");
    // Again: everything from the caches, nothing asked.
    let again = chunktui(
        dir.root(),
        &[
            "tune",
            "docs",
            "--generate",
            "4",
            "--retriever",
            "bm25",
            "--best",
            "best2.toml",
            "--llm-url",
            &server.url,
            "--llm-model",
            "fake",
        ],
        &[],
    );
    assert!(again.out.status.success(), "{}", again.stderr);
    assert!(again.stderr.contains("llm: 0 requests"), "{}", again.stderr);
}

#[test]
fn grouped_propositions_span_their_members_with_a_title_and_summary() {
    let dir = setup();
    let server =
        FakeServer::start(|_, seen| {
            let system = seen.body["messages"][0]["content"].as_str().unwrap_or_default();
            if system.starts_with("Group these") {
                return answer(
                    r#"{"groups": [{"members": [1, 2], "title": "Memory", "summary": "How Rust manages memory."}]}"#,
                );
            }
            let shown = numbers_shown(seen);
            let first = shown[0];
            answer(&json!({"propositions": [
            {"text": "Ownership is a set of rules for how Rust programs manage memory.", "sentences": [first + 1]},
            {"text": "All programs manage the memory of a computer while running.", "sentences": [first + 2]},
            {"text": "Some languages have garbage collection.", "sentences": [first + 3]}
        ]}).to_string())
        });
    let run = chunktui(
        dir.root(),
        &[
            "chunk",
            "doc.md",
            "-s",
            "propositions",
            "--group-propositions",
            "--llm-url",
            &server.url,
            "--llm-model",
            "fake",
        ],
        &[],
    );
    assert!(run.out.status.success(), "{}", run.stderr);
    let recs = records(&run.stdout);
    let memory = recs.iter().find(|r| r["meta"]["fields"].to_string().contains("Memory")).expect("the named group");
    let embed = memory["embed_text"].as_str().unwrap();
    assert!(embed.contains("Ownership is a set of rules") && embed.contains("All programs manage"), "{embed}");
    let (s, e) = (memory["start"].as_u64().unwrap() as usize, memory["end"].as_u64().unwrap() as usize);
    assert_eq!(memory["text"].as_str().unwrap(), &DOC[s..e], "a group's range is its members' span, exact");
    assert!(DOC[s..e].contains("Ownership is a set of rules") && DOC[s..e].contains("All programs have to manage"));
    assert!(memory["meta"]["fields"].to_string().contains("How Rust manages memory."));
    // Left-over propositions are groups of their own.
    assert!(recs.iter().any(|r| r["embed_text"].as_str().unwrap().contains("garbage collection")));
}

#[test]
fn an_interrupted_run_keeps_its_answers_and_the_rerun_asks_only_the_rest() {
    let dir = setup();
    // Small windows: many requests, one at a time.
    std::fs::write(
        dir.path("small.toml"),
        "strategy = \"llm\"\nsize = 2000\n[llm]\nmodel = \"fake\"\nconcurrency = 1\ncontext_tokens = 512\nmax_tokens = 64\n",
    )
    .unwrap();
    let doc: String = (0..40).map(|i| format!("Sentence number {i} talks about topic {}. ", i / 4)).collect();
    std::fs::write(dir.path("doc.md"), &doc).unwrap();
    let starts = |seen: &Seen| answer(&format!("{{\"starts\": [{}]}}", numbers_shown(seen)[0]));
    // The first three answers come at once, the fourth never in time.
    let slow = FakeServer::start(move |n, seen| {
        let reply = starts(seen);
        if n >= 3 {
            Reply { delay: Duration::from_secs(60), ..reply }
        } else {
            reply
        }
    });
    let mut child = Command::new(env!("CARGO_BIN_EXE_chunktui"))
        .current_dir(dir.root())
        .args(["chunk", "doc.md", "--config", "small.toml", "--llm-url", &slow.url])
        .env("CHUNKTUI_CACHE_DIR", dir.path("cache"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while slow.seen().len() < 4 {
        assert!(started.elapsed() < Duration::from_secs(30), "the run never reached its fourth request");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Ctrl-C. A test run started in the background of a script inherits
    // SIGINT ignored (POSIX shells do that to background jobs), so the
    // process may not hear it: then it is killed outright, which is harsher
    // still for what the cache must keep.
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let deadline = Instant::now() + Duration::from_secs(3);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if child.try_wait().unwrap().is_none() {
        child.kill().unwrap();
    }
    let status = child.wait().unwrap();
    assert!(!status.success(), "interrupted");
    let kept = common::files_under(&dir.path("cache").join("llm"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .count();
    assert_eq!(kept, 3, "the three answers are in the cache");
    // The rerun, with a server at the same address again, asks only what was not answered.
    let addr = slow.url.trim_start_matches("http://").trim_end_matches("/v1").to_string();
    drop(slow);
    let fast = FakeServer::start_on(&addr, move |_, seen| starts(seen));
    let rerun = chunktui(dir.root(), &["chunk", "doc.md", "--config", "small.toml", "--llm-url", &fast.url], &[]);
    assert!(rerun.out.status.success(), "{}", rerun.stderr);
    let asked = fast.seen().len();
    let cold = chunktui(
        dir.root(),
        &["chunk", "doc.md", "--config", "small.toml", "--llm-url", &fast.url, "--llm-cache", "off"],
        &[],
    );
    assert!(cold.out.status.success(), "{}", cold.stderr);
    let total = fast.seen().len() - asked;
    assert!(total > 4, "enough windows to interrupt ({total})");
    assert_eq!(asked, total - 3, "the three kept answers are not asked again");
    assert_eq!(rerun.stdout, cold.stdout, "and the chunks are the same");
}
