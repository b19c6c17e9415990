//! No output path can replace an input, whatever the input is: the
//! document, a config (given as CFG or --config), a tokenizer.json, a model
//! directory's files, or another document of a folder run whose
//! `--output-dir` name lands on it. Each case must end in exit 2 with one
//! line naming the input, and leave every input byte for byte as it was.
#![cfg(all(feature = "cli", unix))]

mod common;

use common::Dir;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");
const CONFIG: &str = "version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 500\noverlap = 50\n";

fn run(dir: &Dir, args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir.root()).args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let what = format!("{args:?}");
    let mut child = cmd.spawn().expect("spawn chunktui");
    let status = common::wait_or_kill(&mut child, Duration::from_secs(60), &what);
    let output = child.wait_with_output().expect("collect output");
    Output { status, ..output }
}

/// Exit 2, one line naming `input`, and every file in `kept` unchanged.
fn assert_refused(dir: &Dir, args: &[&str], input: &str, kept: &[(&str, Vec<u8>)]) {
    let out = run(dir, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?} must be refused: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line, got {err}");
    assert!(err.contains("choose another output path") && err.contains(input), "{args:?}: {err}");
    for (name, bytes) in kept {
        assert_eq!(&std::fs::read(dir.path(name)).unwrap(), bytes, "{args:?} changed {name}");
    }
}

fn setup() -> Dir {
    let d = Dir::new();
    d.write("doc.md", b"# Notes\n\nSome text. More text.\n");
    d.write("cfg.toml", CONFIG.as_bytes());
    d
}

#[test]
fn a_config_is_never_replaced_by_what_reads_it() {
    let d = setup();
    let kept = [("cfg.toml", CONFIG.as_bytes().to_vec())];
    std::fs::hard_link(d.path("cfg.toml"), d.path("hard.toml")).unwrap();
    for args in [
        &["export", "cfg.toml", "--to", "langchain", "-o", "cfg.toml"][..],
        &["export", "--config", "cfg.toml", "--to", "langchain", "-o", "cfg.toml"],
        &["export", "cfg.toml", "--to", "langchain", "-o", "./hard.toml"],
        &["export", "cfg.toml", "--table", "-o", "cfg.toml"],
        &["chunk", "doc.md", "--config", "cfg.toml", "-o", "cfg.toml"],
        &["chunk", "doc.md", "--config", "cfg.toml", "-o", "hard.toml"],
    ] {
        assert_refused(&d, args, "cfg.toml", &kept);
    }
}

#[test]
fn output_dir_names_never_land_on_another_input() {
    let d = setup();
    d.write("a", b"notes one. two.");
    let precious = b"{\"my\":\"precious data\"}\n".to_vec();
    d.write("a.jsonl", &precious);
    let kept = [("a.jsonl", precious.clone()), ("a", b"notes one. two.".to_vec())];
    assert_refused(&d, &["chunk", "a", "a.jsonl", "--output-dir", "."], "a.jsonl", &kept);
    // In a folder given as input too.
    std::fs::create_dir(d.path("docs")).unwrap();
    d.write("docs/b", b"two words.");
    d.write("docs/b.jsonl", &precious);
    assert_refused(&d, &["chunk", "docs", "--output-dir", "."], "b.jsonl", &[("docs/b.jsonl", precious)]);
    // Nothing was written anywhere by the refused runs.
    assert!(!d.path("a.jsonl.jsonl").exists() && !d.path("docs/b.jsonl.jsonl").exists());
}

#[test]
fn a_tokenizer_or_a_model_file_is_never_replaced() {
    let d = setup();
    let model = common::test_model_dir();
    let tokenizer = std::fs::read(model.join("tokenizer.json")).expect("the default model's tokenizer.json");
    d.write("tok.json", &tokenizer);
    let kept = [("tok.json", tokenizer.clone())];
    let tokenizer_args = ["chunk", "doc.md", "--unit", "tokens", "--tokenizer", "hf:tok.json", "-o", "tok.json"];
    assert_refused(&d, &tokenizer_args, "tok.json", &kept);
    // A model directory: its files are inputs before the model is loaded.
    std::fs::create_dir(d.path("m")).unwrap();
    d.write("m/tokenizer.json", &tokenizer);
    d.write("m/sentence_bert_config.json", b"{\"max_seq_length\": 256}");
    let model_args = ["chunk", "doc.md", "--strategy", "semantic", "--model", "m", "-o", "m/sentence_bert_config.json"];
    assert_refused(&d, &model_args, "sentence_bert_config.json", &[("m/tokenizer.json", tokenizer)]);
}

/// `config check` says ok only for a config every command accepts: the same
/// checks, nothing heavy loaded.
#[test]
fn config_check_refuses_what_the_commands_refuse() {
    let d = setup();
    let cases = [
        ("m.toml", "strategy = \"semantic\"\n[semantic]\nmodel = \"/nonexistent/model/dir\"\n", "no embedding model"),
        ("t.toml", "unit = \"tokens\"\ntokenizer = \"hf:/nonexistent/tokenizer.json\"\n", "not found"),
        ("r.toml", "[recursive]\nseparators = [\"(?=x)\"]\nis_regex = true\n", "look-around"),
    ];
    for (name, text, says) in cases {
        d.write(name, text.as_bytes());
        for args in [&["config", "check", name][..], &["chunk", "doc.md", "--config", name]] {
            let out = run(&d, args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?} on {text:?}: {err}");
            assert!(err.contains(says) && err.lines().count() == 1, "{args:?}: {err}");
        }
    }
}

/// A key left out of a config keeps its default, as the default config says:
/// the overlap follows the size (a fifth), as `--size` alone does.
#[test]
fn missing_keys_keep_their_defaults() {
    let d = setup();
    let defaults = run(&d, &["config", "init"]);
    let defaults = String::from_utf8(defaults.stdout).unwrap();
    d.write("full.toml", defaults.as_bytes());
    let full = String::from_utf8(run(&d, &["config", "check", "full.toml"]).stdout).unwrap();
    let settings = full.split_once(": ok ").expect("config check says ok").1.to_string();
    for key in ["version", "strategy", "unit", "size", "overlap"] {
        let without: String =
            defaults.lines().filter(|l| !l.starts_with(&format!("{key} ="))).map(|l| l.to_string() + "\n").collect();
        d.write("cfg.toml", without.as_bytes());
        let out = run(&d, &["config", "check", "cfg.toml"]);
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "without {key}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(said.ends_with(&settings), "without {key}: {said} (the defaults: {settings})");
    }
    d.write("cfg.toml", b"unit = \"chars\"\nsize = 300\n");
    let out = run(&d, &["config", "check", "cfg.toml"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("size 300 chars, overlap 60"), "{out:?}");
}
