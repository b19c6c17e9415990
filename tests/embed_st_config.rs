//! A sentence-transformers export is embedded as sentence-transformers
//! embeds it: its `max_seq_length` (not the 512 of the position table), its
//! pooling, prompts and normalisation, each reported with where it came
//! from; broken or impossible settings are one-line errors (exit 2). And the
//! documented `chunktui setup --model DIR` runs (it panicked at start-up).
//!
//! The model directories are the default model's model.onnx and
//! tokenizer.json ($CHUNKTUI_MODEL_DIR, all-MiniLM-L6-v2) beside
//! sentence-transformers config files written here.

use chunktui::embed::st_config::{self, PoolMode};
use chunktui::embed::{ModelOptions, OnnxEmbedder};
use chunktui::embedding::{cosine, Embedder};
use std::path::{Path, PathBuf};
use std::process::Command;

fn default_model() -> PathBuf {
    let dir = std::env::var_os("CHUNKTUI_MODEL_DIR")
        .map(PathBuf::from)
        .or_else(chunktui::embed::default_model_dir)
        .expect("CHUNKTUI_MODEL_DIR (scripts/test.sh sets it)");
    assert!(dir.join("model.onnx").is_file(), "no default model at {}: run scripts/setup-models.sh", dir.display());
    dir
}

const MODULES: &str = r#"[
  {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
  {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
  {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
]"#;

const MEAN: &str = r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": false,
  "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false}"#;

/// A sentence-transformers export of all-MiniLM-L6-v2 as the Hub has it:
/// `files` (relative path, content) over the usual ones; content "" removes one.
fn st_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = default_model();
    for f in ["model.onnx", "tokenizer.json"] {
        std::os::unix::fs::symlink(src.join(f), dir.path().join(f)).unwrap();
    }
    let base = [
        ("sentence_bert_config.json", r#"{"max_seq_length": 256, "do_lower_case": false}"#),
        ("modules.json", MODULES),
        ("1_Pooling/config.json", MEAN),
        ("config.json", r#"{"max_position_embeddings": 512, "hidden_size": 384, "model_type": "bert"}"#),
        ("config_sentence_transformers.json", r#"{"prompts": {}, "default_prompt_name": null}"#),
    ];
    for (name, text) in base.iter().filter(|(n, _)| !files.iter().any(|(f, _)| f == n)).chain(files) {
        if text.is_empty() {
            continue;
        }
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn read(dir: &Path, opts: &ModelOptions) -> chunktui::Result<st_config::StConfig> {
    st_config::read(dir, &dir.join("model.onnx"), opts)
}

#[test]
fn max_seq_length_comes_from_sentence_bert_config_and_flags_override_it() {
    let d = st_dir(&[]);
    let c = read(d.path(), &ModelOptions::default()).unwrap();
    assert_eq!((c.max_tokens.value, c.max_tokens.from.as_str()), (256, "sentence_bert_config.json"));
    assert_eq!(c.pooling.value.modes, [PoolMode::Mean]);
    assert!(c.normalize.value);
    assert_eq!(c.prefix.value, "");
    let c = read(d.path(), &ModelOptions { max_tokens: Some(128), ..Default::default() }).unwrap();
    assert_eq!(c.max_tokens.value, 128);
    assert!(c.max_tokens.from.contains("--model-max-tokens"), "{:?}", c.max_tokens);
}

#[test]
fn without_max_seq_length_the_tokenizer_limit_capped_by_the_positions_applies() {
    let d = st_dir(&[
        ("sentence_bert_config.json", ""),
        ("tokenizer_config.json", r#"{"model_max_length": 128, "do_lower_case": true}"#),
    ]);
    let c = read(d.path(), &ModelOptions::default()).unwrap();
    assert_eq!((c.max_tokens.value, c.max_tokens.from.as_str()), (128, "tokenizer_config.json model_max_length"));
    // "No limit" (1e30) in the tokenizer config: the position table decides.
    let d = st_dir(&[("sentence_bert_config.json", ""), ("tokenizer_config.json", r#"{"model_max_length": 1e30}"#)]);
    let c = read(d.path(), &ModelOptions::default()).unwrap();
    assert_eq!((c.max_tokens.value, c.max_tokens.from.as_str()), (512, "config.json max_position_embeddings"));
}

#[test]
fn pooling_prompts_and_lowercase_follow_the_st_files() {
    let d = st_dir(&[
        (
            "1_Pooling/config.json",
            r#"{"word_embedding_dimension": 384, "pooling_mode": "cls", "include_prompt": false}"#,
        ),
        (
            "config_sentence_transformers.json",
            r#"{"prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": "query"}"#,
        ),
        ("sentence_bert_config.json", r#"{"max_seq_length": 200, "do_lower_case": true}"#),
    ]);
    let c = read(d.path(), &ModelOptions::default()).unwrap();
    assert_eq!(c.pooling.value.modes, [PoolMode::Cls]);
    assert!(!c.pooling.value.include_prompt);
    assert_eq!(c.pooling.from, "1_Pooling/config.json");
    assert_eq!(c.prefix.value, "query: ");
    assert!(c.prefix.from.contains("config_sentence_transformers.json"), "{:?}", c.prefix);
    assert!(c.lower_case.value);
    // The prompt goes first, then the whole is stripped (as sentence-transformers does).
    assert_eq!(c.prepare("  Hello World \n"), "query:   hello world");
    // An explicit prefix wins, as encode(prompt=...) does.
    let c = read(d.path(), &ModelOptions { prefix: Some("passage: ".into()), ..Default::default() }).unwrap();
    assert_eq!(c.prefix.value, "passage: ");
    // Absent flags take sentence-transformers' defaults: mean is on unless said otherwise.
    let d = st_dir(&[("1_Pooling/config.json", r#"{"pooling_mode_max_tokens": true}"#), ("modules.json", "")]);
    let c = read(d.path(), &ModelOptions::default()).unwrap();
    assert_eq!(c.pooling.value.modes, [PoolMode::Max, PoolMode::Mean]);
    // No Normalize module: said, though chunktui's vectors stay unit length.
    let d = st_dir(&[("modules.json", &MODULES.replace(",\n  {\"idx\": 2, \"name\": \"2\", \"path\": \"2_Normalize\", \"type\": \"sentence_transformers.models.Normalize\"}", ""))]);
    assert!(!read(d.path(), &ModelOptions::default()).unwrap().normalize.value);
}

#[test]
fn impossible_or_broken_settings_are_errors_naming_the_file() {
    let d = st_dir(&[("sentence_bert_config.json", r#"{"max_seq_length": 1024}"#)]);
    let e = read(d.path(), &ModelOptions::default()).unwrap_err().to_string();
    assert!(e.contains("sentence_bert_config.json") && e.contains("1024") && e.contains("at most 512"), "{e}");
    let d = st_dir(&[("sentence_bert_config.json", r#"{"max_seq_length": 256,"#)]);
    let e = read(d.path(), &ModelOptions::default()).unwrap_err().to_string();
    assert!(e.contains("sentence_bert_config.json is not valid JSON") && !e.contains('\n'), "{e}");
    let d = st_dir(&[("sentence_bert_config.json", r#"{"max_seq_length": "256"}"#)]);
    let e = read(d.path(), &ModelOptions::default()).unwrap_err().to_string();
    assert!(e.contains("\"max_seq_length\" must be a whole number"), "{e}");
    let d = st_dir(&[(
        "config_sentence_transformers.json",
        r#"{"prompts": {"query": "q: "}, "default_prompt_name": "doc"}"#,
    )]);
    let e = read(d.path(), &ModelOptions::default()).unwrap_err().to_string();
    assert!(e.contains("default_prompt_name \"doc\""), "{e}");
}

fn load(dir: &Path, opts: &ModelOptions) -> OnnxEmbedder {
    OnnxEmbedder::load(dir, None, opts).expect("ONNX Runtime (ORT_DYLIB_PATH) and the default model")
}

/// ~400 word pieces: longer than 256, shorter than 512.
fn long_text() -> String {
    "Rivers carry water from the mountains through wide green valleys down to the sea, shaping the land. ".repeat(20)
}

#[test]
fn an_st_export_embeds_256_tokens_not_512() {
    let d = st_dir(&[]);
    let e = load(d.path(), &ModelOptions::default());
    assert_eq!(e.info().max_tokens, 256);
    let text = long_text();
    let got = e.embed_texts(&[text.as_str()], chunktui::embedding::Control::none()).unwrap();
    assert_eq!(got.truncated, [0], "cut at 256 and reported");
    // The same vector as an explicit 256, and not the 512 one.
    let at = |n| {
        let e = load(d.path(), &ModelOptions { max_tokens: Some(n), ..Default::default() });
        e.embed(&[text.as_str()], &|_, _| {}).unwrap().remove(0)
    };
    assert!(cosine(&got.vectors[0], &at(256)) > 0.99999);
    assert!(cosine(&got.vectors[0], &at(512)) < 0.9999);
}

#[test]
fn pooling_modes_change_the_vector() {
    let text = "A mutex lets one thread at a time enter a critical section.";
    let vec_with = |pool: &str| {
        let d = st_dir(&[("1_Pooling/config.json", pool)]);
        load(d.path(), &ModelOptions::default()).embed(&[text], &|_, _| {}).unwrap().remove(0)
    };
    let mean = vec_with(MEAN);
    let cls = vec_with(r#"{"pooling_mode": "cls"}"#);
    let max = vec_with(r#"{"pooling_mode": "max"}"#);
    let last = vec_with(r#"{"pooling_mode": "lasttoken"}"#);
    for (name, v) in [("cls", &cls), ("max", &max), ("lasttoken", &last)] {
        assert_eq!(v.len(), 384);
        assert!(cosine(&mean, v) < 0.999, "{name} pooling gave the mean vector");
    }
    let both = vec_with(r#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true}"#);
    assert_eq!(both.len(), 768, "several modes are concatenated");
}

fn chunktui() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_chunktui"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

#[test]
fn setup_model_dir_runs_and_says_where_each_setting_came_from() {
    let d = st_dir(&[]);
    let out = chunktui().args(["setup", "--model"]).arg(d.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("256 tokens (sentence_bert_config.json)"), "{stdout}");
    assert!(stdout.contains("pooling    mean (1_Pooling/config.json)"), "{stdout}");
    assert!(stdout.contains("prefix     none"), "{stdout}");

    for (bad, says) in [
        (vec![("sentence_bert_config.json", "{\"max_seq_length\": 1024}")], "sentence_bert_config.json"),
        (vec![("sentence_bert_config.json", "{oops")], "sentence_bert_config.json is not valid JSON"),
        (vec![("tokenizer.json", "")], "has no tokenizer.json"),
    ] {
        let d = st_dir(&bad);
        if bad[0].1.is_empty() {
            std::fs::remove_file(d.path().join("tokenizer.json")).unwrap();
        }
        let out = chunktui().args(["setup", "--model"]).arg(d.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(says), "{bad:?}: {stderr}");
    }
    let out = chunktui().args(["setup", "--model", "/nonexistent/model/dir"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn stats_json_and_eval_report_the_model_settings() {
    let d = st_dir(&[]);
    let out = chunktui().args(["stats", "samples/guide.md", "--json", "--model"]).arg(d.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["model_settings"]["max_tokens"],
        serde_json::json!({"value": 256, "from": "sentence_bert_config.json"})
    );
    assert_eq!(v["model_settings"]["pooling"]["value"], "mean");
    let out = chunktui().args(["stats", "samples/guide.md", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.get("model_settings").is_none(), "no model configured, no model settings");

    let q = tempfile::NamedTempFile::new().unwrap();
    let questions: String =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/questions.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| l.contains("\"corpus_id\": \"guide\""))
            .map(|l| format!("{l}\n"))
            .collect();
    std::fs::write(q.path(), questions).unwrap();
    let out = chunktui()
        .args(["eval", "samples/guide.md", "--queries"])
        .arg(q.path())
        .arg("--model")
        .arg(d.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("model max input  256 tokens (sentence_bert_config.json)"), "{stdout}");
}
