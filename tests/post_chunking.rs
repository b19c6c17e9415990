//! Post-chunking (`chunktui eval --post-chunking`, the library's
//! `PostChunker`): the held-out questions over the corpus cut into a few
//! hundred documents, scored against pre-chunking with the same config; the
//! chunk cache; the query-aware cut; bad input.

mod common;
#[path = "common/split_corpus.rs"]
mod split_corpus;

use chunktui::eval::retrieve::RetrieverKind;
use chunktui::post_chunking::{ChunkCache, Options, PostChunker, Source};
use chunktui::ChunkConfig;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn chunktui(args: &[&str], cache: &Path) -> Output {
    Command::new(BIN).args(args).current_dir(root()).env("CHUNKTUI_CACHE_DIR", cache).output().expect("run chunktui")
}

fn json(out: &Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// The corpus as documents, and the held-out questions moved onto them.
fn split(dir: &Path) -> (PathBuf, PathBuf, split_corpus::Split) {
    let docs = dir.join("docs");
    let questions = dir.join("heldout-split.jsonl");
    let held = root().join("tests/fixtures/questions/heldout.jsonl");
    let s = split_corpus::write(&common::corpus_dir(), &docs, Some((&held, &questions)), 1, usize::MAX);
    (docs, questions, s)
}

#[test]
fn post_chunking_five_documents_keeps_pre_chunkings_recall_and_a_second_run_cuts_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (docs, questions, s) = split(tmp.path());
    assert!((300..2000).contains(&s.documents), "a few hundred documents: {}", s.documents);
    assert!(s.questions_kept >= 75, "the held-out questions mostly lie inside one part: {}", s.questions_kept);
    let cache = tmp.path().join("cache");
    let args = [
        "eval",
        docs.to_str().unwrap(),
        "--queries",
        questions.to_str().unwrap(),
        "--retriever",
        "bm25",
        "--post-chunking",
        "--documents",
        "5",
        "--json",
    ];
    let first = json(&chunktui(&args, &cache));
    let post = &first["post_chunking"];
    let recall = |v: &Value| v["recall"]["mean"].as_f64().unwrap();
    let (pre_recall, post_recall) = (recall(&first), recall(&post["plain"]));
    eprintln!(
        "pre recall {pre_recall:.3}, post {post_recall:.3}, query-aware {:.3}; iou {:.3} / {:.3} / {:.3}",
        recall(&post["query_aware"]),
        first["iou"]["mean"],
        post["plain"]["iou"]["mean"],
        post["query_aware"]["iou"]["mean"]
    );
    assert!(post_recall >= pre_recall - 0.03, "post-chunking loses {:.3} recall", pre_recall - post_recall);
    let cost = &post["cost"];
    assert_eq!(cost["documents_total"].as_u64().unwrap() as usize, s.documents);
    let chunked = cost["documents_chunked"].as_u64().unwrap();
    assert!(chunked > 0 && chunked <= (5 * s.questions_kept) as u64, "{cost}");
    assert!((chunked as usize) < s.documents / 2, "only retrieved documents are cut: {cost}");
    assert_eq!(post["pre_chunking_cost"]["documents_chunked"].as_u64().unwrap() as usize, s.documents);
    for key in ["query_ms_cold", "query_ms_warm", "index_seconds"] {
        assert!(cost[key].as_f64().unwrap() >= 0.0, "{key}: {cost}");
    }
    // The query-aware cut is scored on the same questions.
    assert_eq!(post["query_aware"]["per_question"].as_array().unwrap().len(), s.questions_kept);

    assert_eq!(cost["chunk_cache_write_errors"], 0, "{cost}");
    let keys = |cache: &Path| -> Vec<String> {
        let mut k: Vec<String> = std::fs::read_dir(cache.join("chunks"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        k.sort();
        k
    };
    let settings_before = keys(&cache);

    // Again: every document comes from the chunk cache, the scores are the same.
    let out = chunktui(&args, &cache);
    let second = json(&out);
    let again = &second["post_chunking"];
    assert_eq!(keys(&cache), settings_before, "the same settings keep the same cache keys");
    assert_eq!(
        again["cost"]["documents_chunked"],
        0,
        "{}\nfirst run: {cost}\n{}",
        again["cost"],
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(again["cost"]["chunk_cache_hits"], cost["documents_chunked"]);
    assert_eq!(again["plain"], post["plain"]);
    assert_eq!(again["query_aware"], post["query_aware"]);

    // A changed setting misses the cache; with the cache off nothing is kept.
    // (555: no document's default is fitted to it, the fitted sizes step by 50.)
    let mut resized = args.to_vec();
    resized.extend(["--size", "555"]);
    let third = json(&chunktui(&resized, &cache));
    assert_eq!(third["post_chunking"]["cost"]["chunk_cache_hits"], 0);
    let off_cache = tmp.path().join("off");
    let mut off = args.to_vec();
    off.extend(["--chunk-cache", "off"]);
    let fourth = json(&chunktui(&off, &off_cache));
    assert_eq!(fourth["post_chunking"]["cost"]["documents_chunked"], cost["documents_chunked"]);
    assert!(!off_cache.join("chunks").exists());
}

#[test]
fn dense_document_retrieval_on_the_real_model_finds_the_answers_and_says_how_documents_are_embedded() {
    let tmp = tempfile::tempdir().unwrap();
    let model = common::test_model_dir();
    let args = [
        "eval",
        "samples",
        "--queries",
        "samples/questions.jsonl",
        "--model",
        model.to_str().unwrap(),
        "--retriever",
        "hybrid",
        "--post-chunking",
        "--documents",
        "2",
        "--doc-retriever",
        "dense",
        "--json",
    ];
    let v = json(&chunktui(&args, tmp.path()));
    let post = &v["post_chunking"];
    assert_eq!(post["doc_retriever"], "dense");
    let shown = post["document_representation"].as_str().unwrap();
    assert!(shown.contains("mean of their windows' vectors") && shown.contains("me5-small"), "{shown}");
    // Every sample is a candidate, not only those the questions name.
    let total = post["cost"]["documents_total"].as_u64().unwrap();
    assert!(total >= 8, "{}", post["cost"]);
    assert!(post["cost"]["document_windows_embedded"].as_u64().unwrap() >= total);
    assert!(post["cost"]["chunks_embedded"].as_u64().unwrap() > 0);
    let hit = post["plain"]["hit_rate"]["mean"].as_f64().unwrap();
    assert!(hit >= 0.8, "two documents by meaning hold most answers: {}", post["plain"]);
    assert!(post["query_aware"]["recall"]["mean"].as_f64().unwrap() > 0.5, "{}", post["query_aware"]);

    // The text report puts the three side by side, and the cost.
    let table = chunktui(&args[..args.len() - 1], tmp.path());
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(table.status.success(), "{}", String::from_utf8_lossy(&table.stderr));
    for line in
        ["pre     post  query-aware", "documents chunked", "query, cold", "query, warm", "mean of their windows"]
    {
        assert!(text.contains(line), "{line} in\n{text}");
    }
}

fn sources() -> Vec<Source> {
    ["guide.md", "notes.txt", "river-glossary.md", "river-glossary-zh.md", "zh-article.md"]
        .iter()
        .map(|name| Source::new(*name, std::fs::read_to_string(root().join("samples").join(name)).unwrap()))
        .collect()
}

fn options(cache: ChunkCache) -> Options {
    Options { documents: 2, doc_retriever: RetrieverKind::Bm25, retriever: RetrieverKind::Bm25, cache }
}

#[test]
fn the_library_returns_the_configs_own_chunks_and_cuts_each_document_once() {
    let tmp = tempfile::tempdir().unwrap();
    let mut config = ChunkConfig::default();
    config.size = 300;
    config.overlap = 30;
    let control = chunktui::embedding::Control::none();
    let post =
        PostChunker::new(sources(), &config, options(ChunkCache::at(tmp.path().to_path_buf())), control).unwrap();
    let chunker = chunktui::Chunker::new(&config).unwrap();
    let questions = [
        "What does the river glossary say about a delta?",
        "河流的三角洲是什么？",
        "Why chunk at all, if embedding models read a bounded number of tokens?",
    ];
    for q in questions {
        let found = post.query(q, 4).unwrap();
        assert!(!found.is_empty() && found.len() <= 4, "{q}");
        let docs: Vec<usize> = post.rank_documents(q).unwrap().iter().map(|d| d.0).collect();
        assert!(docs.len() <= 2);
        for f in &found {
            assert!(docs.contains(&f.doc), "only the retrieved documents are cut");
            let own = chunker.chunk(&post.documents()[f.doc].text).unwrap();
            assert!(own.iter().any(|c| c.range == f.range), "{q}: {f:?} is one of the config's chunks");
        }
        assert!(found.windows(2).all(|w| w[0].score >= w[1].score));
        // The query-aware cut: whole sentences, never larger than the size.
        for w in post.query_aware(q, 4).unwrap() {
            let text = &post.documents()[w.doc].text;
            assert!(chunker.size_of(&text[w.range.clone()]) <= config.size, "{w:?}");
            let starts = chunktui::segment::sentences(text);
            assert!(starts.iter().any(|s| s.start == w.range.start), "a window starts at a sentence: {w:?}");
        }
    }
    let cost = post.cost();
    assert!(cost.documents_chunked > 0 && cost.documents_chunked <= 5);
    assert_eq!(cost.chunk_cache_hits, 0);

    // A second collection over the same texts finds every cut in the cache,
    // from two threads at once, with the same answers.
    let again =
        PostChunker::new(sources(), &config, options(ChunkCache::at(tmp.path().to_path_buf())), control).unwrap();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..2).map(|_| s.spawn(|| again.query(questions[0], 4).unwrap())).collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), post.query(questions[0], 4).unwrap());
        }
    });
    for q in questions {
        again.query(q, 4).unwrap();
    }
    assert_eq!(again.cost().documents_chunked, 0, "{:?}", again.cost());
    assert_eq!(again.cost().chunk_cache_hits, cost.documents_chunked);

    // An edited document is cut again.
    let mut edited = sources();
    for s in &mut edited {
        s.text.push_str("\n\nA new closing paragraph about the river delta.\n");
    }
    let third = PostChunker::new(edited, &config, options(ChunkCache::at(tmp.path().to_path_buf())), control).unwrap();
    third.query(questions[0], 4).unwrap();
    assert_eq!(third.cost().chunk_cache_hits, 0);
    assert!(third.cost().documents_chunked > 0);
}

#[test]
fn bad_post_chunking_input_gets_a_clear_message_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let q = "samples/questions.jsonl";
    let cases: [(&[&str], &str); 4] = [
        (&["eval", "samples/guide.md", "-q", q, "--post-chunking"], "give a folder of documents"),
        (&["eval", "samples", "-q", q, "--post-chunking", "--documents", "0"], "--documents must be a whole number"),
        (&["eval", "samples", "-q", q, "--post-chunking", "--doc-retriever", "tfidf"], "unknown retriever 'tfidf'"),
        (&["eval", "samples", "-q", q, "--documents", "3"], "--post-chunking"),
    ];
    for (args, says) in cases {
        let out = chunktui(args, tmp.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = chunktui(&["eval", empty.to_str().unwrap(), "-q", q, "--post-chunking"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("holds no files"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = ChunkConfig::default();
    let no_docs =
        PostChunker::new(Vec::new(), &config, options(ChunkCache::off()), chunktui::embedding::Control::none());
    assert!(no_docs.is_err());
}

#[test]
fn sweep_and_tune_try_pre_and_post_chunking_as_one_more_setting() {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results.jsonl");
    let args = [
        "sweep",
        "samples",
        "-q",
        "samples/questions.jsonl",
        "--retriever",
        "bm25",
        "--size",
        "300",
        "--overlap",
        "0",
        "--chunking",
        "pre,post,query-aware",
        "--documents",
        "2",
        "--results",
        results.to_str().unwrap(),
        "--json",
    ];
    let rows = json(&chunktui(&args, tmp.path()));
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 3, "{rows:?}");
    let pre = rows.iter().find(|r| r.get("post").is_none()).expect("a pre-chunking row");
    let post: Vec<&Value> = rows.iter().filter(|r| r.get("post").is_some()).collect();
    assert_eq!(post.len(), 2);
    for r in &post {
        assert_eq!(r["post"]["documents"], 2);
        assert_eq!(r["post"]["doc_retriever"], "bm25");
        // Only the documents the questions retrieved were cut.
        assert!(r["chunks"].as_u64().unwrap() < pre["chunks"].as_u64().unwrap(), "{r}");
        assert!(r["recall"]["mean"].as_f64().unwrap() > 0.3, "{r}");
    }
    assert!(post.iter().any(|r| r["post"]["query_aware"] == true));
    // Resumed from the results file: the same rows, none run again.
    let again = chunktui(&args, tmp.path());
    assert!(String::from_utf8_lossy(&again.stderr).contains("3 of 3 combinations already in"));

    let mut bad = args.to_vec();
    bad[11] = "pre,later";
    let out = chunktui(&bad, tmp.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown --chunking 'later'"));

    // tune passes the setting through and says how to reproduce the winner.
    let best = tmp.path().join("best.toml");
    let out = chunktui(
        &[
            "tune",
            "samples",
            "-q",
            "samples/questions.jsonl",
            "--retriever",
            "bm25",
            "--chunking",
            "post",
            "--documents",
            "2",
            "--best",
            best.to_str().unwrap(),
        ],
        tmp.path(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("--post-chunking --documents 2 --doc-retriever bm25"), "{text}");
    assert!(best.is_file());
}
