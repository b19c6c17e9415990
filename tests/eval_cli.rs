//! `chunktui eval` through the binary: our question sets over the bundled
//! samples and the shared corpus, BM25 and the real embedding model, and
//! bad question files.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn eval(args: &[&str]) -> Output {
    Command::new(BIN).arg("eval").args(args).current_dir(root()).output().expect("run chunktui eval")
}

fn eval_json(args: &[&str]) -> Value {
    let out = eval(&[args, &["--json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn mean(v: &Value, metric: &str) -> f64 {
    v[metric]["mean"].as_f64().unwrap_or_else(|| panic!("{metric} in {v}"))
}

const METRICS: [&str; 6] = ["recall", "precision", "iou", "precision_omega", "hit_rate", "mrr"];

#[test]
fn bm25_on_the_samples_scores_every_question_and_smaller_chunks_are_more_precise() {
    let big = eval_json(&["samples", "--queries", "samples/questions.jsonl", "--retriever", "bm25"]);
    let small = eval_json(&[
        "samples",
        "--queries",
        "samples/questions.jsonl",
        "--retriever",
        "bm25",
        "--size",
        "200",
        "--overlap",
        "0",
    ]);
    for v in [&big, &small] {
        assert_eq!(v["per_question"].as_array().unwrap().len(), 15);
        for m in METRICS {
            let (mean, std) = (v[m]["mean"].as_f64().unwrap(), v[m]["std"].as_f64().unwrap());
            assert!((0.0..=1.0).contains(&mean) && (0.0..=1.0).contains(&std), "{m}: {mean} {std}");
        }
        assert_eq!(v["retriever"], "bm25");
        assert!(mean(v, "hit_rate") >= 0.8, "BM25 finds most answers in these small documents: {v}");
    }
    assert!(small["chunks"].as_u64() > big["chunks"].as_u64());
    // Five 200-char chunks hold less around the answer than five 1000-char ones.
    assert!(mean(&small, "precision") > mean(&big, "precision"), "{} vs {}", small["precision"], big["precision"]);
    assert!(mean(&small, "precision_omega") > mean(&big, "precision_omega"));
    // Fewer chunks retrieved: recall cannot rise.
    let one = eval_json(&["samples", "--queries", "samples/questions.jsonl", "--retriever", "bm25", "--k", "1"]);
    assert!(mean(&one, "recall") <= mean(&big, "recall"));
    assert!(one["per_question"].as_array().unwrap().iter().all(|q| q["retrieved"].as_array().unwrap().len() <= 1));
}

#[test]
fn the_human_table_names_every_metric() {
    let out = eval(&["samples", "--queries", "samples/questions.jsonl", "--retriever", "bm25"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("15 questions · 5 documents · "), "{text}");
    for m in METRICS {
        assert!(text.lines().any(|l| l.starts_with(m)), "{m} missing:\n{text}");
    }
}

#[test]
fn our_corpus_question_set_resolves_and_bm25_finds_most_answers() {
    let corpus = common::corpus_dir();
    let queries = root().join("tests/fixtures/questions/corpus.jsonl");
    let v = eval_json(&[corpus.to_str().unwrap(), "--queries", queries.to_str().unwrap(), "--retriever", "bm25"]);
    let n = v["per_question"].as_array().unwrap().len();
    assert!(n >= 60, "{n} questions");
    assert!(mean(&v, "hit_rate") > 0.7, "{}", v["hit_rate"]);
    // One document at a time, by corpus_id.
    let zh = eval_json(&[
        corpus.to_str().unwrap(),
        "--queries",
        queries.to_str().unwrap(),
        "--retriever",
        "bm25",
        "--corpus-id",
        "zh_rust_book",
    ]);
    let zh_n = zh["per_question"].as_array().unwrap().len();
    assert!(zh_n >= 20 && zh_n < n, "{zh_n} Chinese questions");
    assert!(mean(&zh, "hit_rate") > 0.6, "BM25 over CJK bigrams: {}", zh["hit_rate"]);
}

/// Every reference range of a question file, by corpus id.
fn ranges(path: &std::path::Path) -> Vec<(String, u64, u64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let q: serde_json::Value = serde_json::from_str(line).unwrap();
        for r in q["references"].as_array().unwrap() {
            let id = q["corpus_id"].as_str().unwrap().to_string();
            out.push((id, r["start_index"].as_u64().unwrap(), r["end_index"].as_u64().unwrap()));
        }
    }
    out
}

#[test]
fn the_held_out_set_resolves_and_shares_no_passage_with_the_tuning_set() {
    let corpus = common::corpus_dir();
    let held = root().join("tests/fixtures/questions/heldout.jsonl");
    let v = eval_json(&[corpus.to_str().unwrap(), "--queries", held.to_str().unwrap(), "--retriever", "bm25"]);
    assert_eq!(v["per_question"].as_array().unwrap().len(), 80);
    assert!(mean(&v, "hit_rate") > 0.6, "{}", v["hit_rate"]);
    // Held out: no answer text is also an answer of corpus.jsonl, on which defaults are tuned.
    let tuning = ranges(&root().join("tests/fixtures/questions/corpus.jsonl"));
    for (id, start, end) in ranges(&held) {
        let shared = tuning.iter().find(|(t, s, e)| *t == id && *s < end && start < *e);
        assert!(shared.is_none(), "{id} {start}..{end} overlaps {shared:?}");
    }
}

#[test]
fn the_real_model_retrieves_the_answers_in_english_and_chinese() {
    let model = common::test_model_dir();
    let v = eval_json(&[
        "samples",
        "--queries",
        "samples/questions.jsonl",
        "--model",
        model.to_str().unwrap(),
        "--size",
        "300",
        "--overlap",
        "0",
        "--retriever",
        "dense",
    ]);
    assert!(v["model"].as_str().unwrap().contains("me5-small"), "{}", v["model"]);
    assert!(mean(&v, "recall") >= 0.8 && mean(&v, "hit_rate") >= 0.8, "{v}");
    let hybrid = eval_json(&[
        "samples",
        "--queries",
        "samples/questions.jsonl",
        "--model",
        model.to_str().unwrap(),
        "--size",
        "300",
        "--overlap",
        "0",
        "--retriever",
        "hybrid",
    ]);
    assert!(mean(&hybrid, "hit_rate") >= 0.8, "{hybrid}");
}

fn failure(queries: &str, path: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let q: PathBuf = dir.path().join("q.jsonl");
    std::fs::write(&q, queries).unwrap();
    let retriever: &[&str] = if extra.contains(&"--retriever") { &[] } else { &["--retriever", "bm25"] };
    let out = eval(&[&[path, "--queries", q.to_str().unwrap()], retriever, extra].concat());
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

#[test]
fn bad_question_files_and_settings_exit_2_with_one_line() {
    let row = r#"{"question": "q", "corpus_id": "guide", "references": [{"start_index": 0, "end_index": 9999999}]}"#;
    assert!(failure(row, "samples", &[]).contains("q.jsonl line 1: references[0] ends at 9999999"));
    let row = r#"{"question": "q", "corpus_id": "missing", "references": [{"start_index": 0, "end_index": 4}]}"#;
    assert!(failure(row, "samples", &[]).contains("corpus_id 'missing': no missing.md or missing.txt"));
    let row = r#"{"question": "q", "corpus_id": "guide", "references": [{"start_index": 0, "end_index": 4, "content": "nope"}]}"#;
    assert!(failure(row, "samples", &[]).contains("content differs from guide at 0..4"));
    assert!(failure("{not json", "samples", &[]).contains("q.jsonl line 1, column 2"));
    let row = r#"{"question": "q", "corpus_id": "guide", "references": [{"start_index": 0, "end_index": 4}]}"#;
    assert!(failure(row, "samples", &["--k", "0"]).contains("--k"));
    assert!(failure(row, "samples", &["--retriever", "tfidf"]).contains("unknown retriever 'tfidf'"));
    assert!(failure(row, "samples/notes.txt", &[]).contains("name corpus_id 'guide' but the document is 'notes'"));
}

fn sweep(dir: &Path, args: &[&str]) -> Output {
    let results = dir.join("results.jsonl");
    let base = ["sweep", "samples", "--queries", "samples/questions.jsonl", "--results", results.to_str().unwrap()];
    Command::new(BIN).args(base).args(args).current_dir(root()).output().expect("run chunktui sweep")
}

#[test]
fn sweep_ranks_every_valid_combination_and_its_winner_reproduces_with_eval() {
    let dir = tempfile::tempdir().unwrap();
    let best = dir.path().join("best.toml");
    let grid =
        ["--retriever", "bm25", "--strategy", "recursive,sentence", "--size", "150,300,600", "--overlap", "0,40"];
    let out =
        sweep(dir.path(), &[&grid[..], &["--metric", "iou", "--best", best.to_str().unwrap(), "--json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ranked: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON list");
    // recursive: 3 sizes x 2 overlaps; sentence ignores --overlap: 3.
    assert_eq!(ranked.len(), 9, "{ranked:?}");
    let iou: Vec<f64> = ranked.iter().map(|r| mean(r, "iou")).collect();
    assert!(iou.windows(2).all(|w| w[0] >= w[1]), "ranked by iou: {iou:?}");
    assert!(ranked.iter().any(|r| r["pareto"] == true) && ranked[0]["pareto"] == true);
    assert_eq!(ranked[0]["rank"], 1);
    for m in METRICS {
        assert!(ranked[0][m]["mean"].is_number() && ranked[0][m]["std"].is_number(), "{m}");
    }
    // Results stream to stderr as they finish, one line each.
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().filter(|l| l.contains(" iou ")).count(), 9);

    // The winner, replayed by eval from the written config: the same row.
    let again = eval_json(&[
        "samples",
        "--queries",
        "samples/questions.jsonl",
        "--config",
        best.to_str().unwrap(),
        "--retriever",
        "bm25",
    ]);
    for m in METRICS {
        assert_eq!(again[m], ranked[0][m], "{m}");
    }
    assert_eq!(again["chunks"], ranked[0]["chunks"]);

    // A second run finds every combination in the results file and redoes none.
    let rerun = sweep(dir.path(), &[&grid[..], &["--metric", "iou", "--json"]].concat());
    assert!(rerun.status.success());
    assert!(String::from_utf8_lossy(&rerun.stderr).contains("9 of 9 combinations already in"));
    let lines = std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap().lines().count();
    assert_eq!(lines, 9, "nothing was run twice");
    assert_eq!(serde_json::from_slice::<Vec<Value>>(&rerun.stdout).unwrap(), ranked);

    // The fronts are what no other row beats: recall against IoU, and recall
    // against the characters retrieved (fewer is better).
    let dominated = |r: &Value, key: &str, sign: f64| {
        let (x, y) = (mean(r, "recall"), sign * mean(r, key));
        ranked.iter().any(|o| {
            let (ox, oy) = (mean(o, "recall"), sign * mean(o, key));
            ox >= x && oy >= y && (ox > x || oy > y)
        })
    };
    for r in &ranked {
        assert_eq!(r["pareto_recall_iou"], !dominated(r, "iou", 1.0), "{r}");
        assert_eq!(r["pareto_recall_retrieved"], !dominated(r, "retrieved", -1.0), "{r}");
        assert!(mean(r, "retrieved") > 0.0);
    }
    // A recall floor, then the most IoU: the rows that keep the floor come
    // first, best IoU first, and --best writes the first of them.
    let mut recalls: Vec<f64> = ranked.iter().map(|r| mean(r, "recall")).collect();
    recalls.sort_by(f64::total_cmp);
    let floor = recalls[recalls.len() / 2];
    let objective = format!("recall>={floor}");
    let best_floor = dir.path().join("floor.toml");
    let floored = sweep(
        dir.path(),
        &[&grid[..], &["--metric", &objective, "--best", best_floor.to_str().unwrap(), "--json"]].concat(),
    );
    assert!(floored.status.success(), "{}", String::from_utf8_lossy(&floored.stderr));
    let floored: Vec<Value> = serde_json::from_slice(&floored.stdout).unwrap();
    let keep = floored.iter().take_while(|r| mean(r, "recall") >= floor).count();
    assert_eq!(keep, recalls.iter().filter(|&&r| r >= floor).count(), "the rows over the floor come first");
    let iou: Vec<f64> = floored[..keep].iter().map(|r| mean(r, "iou")).collect();
    assert!(iou.windows(2).all(|w| w[0] >= w[1]), "then by IoU: {iou:?}");
    let top = ranked.iter().filter(|r| mean(r, "recall") >= floor).map(|r| mean(r, "iou")).fold(0.0, f64::max);
    assert_eq!(mean(&floored[0], "iou"), top);
    let written = eval_json(&[
        "samples",
        "--queries",
        "samples/questions.jsonl",
        "--config",
        best_floor.to_str().unwrap(),
        "--retriever",
        "bm25",
    ]);
    assert_eq!(written["iou"], floored[0]["iou"]);
    assert_eq!(written["recall"], floored[0]["recall"]);
}

#[test]
fn sweep_skips_what_cannot_work_and_lists_belong_to_sweep_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = sweep(dir.path(), &["--retriever", "bm25", "--size", "100,300", "--overlap", "200"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("skipping size 100, overlap 200: overlap (200) must be smaller than size (100)"), "{err}");
    let out = sweep(dir.path(), &["--retriever", "bm25", "--size", "100", "--overlap", "200,300"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no combination of the given settings is valid"));
    // A device as the results file is refused, not read for ever.
    let out = Command::new(BIN)
        .args([
            "sweep",
            "samples",
            "--queries",
            "samples/questions.jsonl",
            "--retriever",
            "bm25",
            "--results",
            "/dev/zero",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
    for bad in ["speed", "recall>=", "recal>=0.8"] {
        let out = sweep(dir.path(), &["--retriever", "bm25", "--metric", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("recall>=0.85"), "{bad}: names the forms");
    }
    let out = Command::new(BIN)
        .args(["chunk", "samples/guide.md", "--size", "200,300"])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("lists of values to try are for `chunktui sweep`"));
}

#[test]
fn an_oversized_question_file_is_refused_with_the_way_to_raise_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.jsonl");
    std::fs::write(&big, "\n".repeat(2 << 20)).unwrap();
    let run_eval = |queries: &std::path::Path, mb: Option<&str>| {
        let mut cmd = Command::new(BIN);
        cmd.args(["eval", "samples/guide.md", "--retriever", "bm25", "--queries"]).arg(queries);
        if let Some(mb) = mb {
            cmd.env("CHUNKTUI_MAX_QUESTIONS_MB", mb);
        }
        cmd.current_dir(root()).output().unwrap()
    };
    let out = run_eval(&big, Some("1"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("question file") && err.contains("CHUNKTUI_MAX_QUESTIONS_MB"), "{err}");
    // An endless device stops at the default 64 MiB, not at the documents' 1 GiB.
    let out = run_eval(std::path::Path::new("/dev/zero"), None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("question file"));
}
