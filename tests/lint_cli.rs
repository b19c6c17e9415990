//! Chunk lint on the command line: the lint keys of `stats --json`, the lint
//! section of the stats table, and `chunktui lint` (exit 1 on findings).

#![cfg(feature = "cli")]

mod common;

use common::Dir;
use serde_json::Value;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

/// Our own Markdown: a heading left alone, a fence and a table a small size
/// splits, Chinese prose.
const DOC: &str = "# 指南\n\nIntro text for the guide. It explains what follows in a few words.\n\n## Install\n\n\
```sh\ncargo install chunktui\ncargo run -- guide.md\n```\n\n| key | does |\n|-----|------|\n| s | strategy |\n\
| u | unit |\n\n## 中文\n\n分块是第一步。每个块都有大小限制！好的分块让检索更准确。\n";

fn run(args: &[&str]) -> Output {
    // Over-model-limit counts with the model's own tokenizer when one is
    // installed: point the default model elsewhere so counts do not depend
    // on this machine.
    Command::new(BIN)
        .args(args)
        .env("CHUNKTUI_MODEL_DIR", "/nonexistent-chunktui-model")
        .env("NO_COLOR", "1")
        .output()
        .expect("chunktui runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8")
}

#[test]
fn stats_json_counts_every_enabled_rule_and_lists_findings() {
    let d = Dir::new();
    let f = d.write("guide.md", DOC.as_bytes());
    let out = run(&["stats", &f, "--json", "--size", "60", "--overlap", "0"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let lint = s["lint"].as_object().expect("a lint object");
    let names: Vec<&str> = chunktui::lint::RULES.iter().map(|r| r.name).collect();
    let mut keys: Vec<&str> = lint.keys().map(String::as_str).collect();
    keys.sort_unstable();
    // The hand-made boundaries' rules run only for configs with [[edits]].
    let edits_only = |r: &&chunktui::lint::RuleSpec| r.scope == chunktui::lint::Scope::Edits;
    let mut want: Vec<&str> = chunktui::lint::RULES.iter().filter(|r| !edits_only(r)).map(|r| r.name).collect();
    want.sort_unstable();
    assert_eq!(keys, want, "every rule, zeros included, for Markdown");
    let findings = s["lint_findings"].as_array().expect("a findings list");
    let total: u64 = lint.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(findings.len() as u64, total);
    assert!(total > 0, "a 60-char cut of this guide has findings: {s}");
    let count = s["count"].as_u64().unwrap();
    for f in findings {
        let rule = f["rule"].as_str().unwrap();
        assert!(names.contains(&rule), "{f}");
        assert!(f["chunk"].as_u64().unwrap() < count, "{f}");
        let at = f["at"].as_u64().unwrap() as usize;
        let line = DOC[..at].matches('\n').count() + 1;
        assert_eq!(f["line"].as_u64().unwrap() as usize, line, "{f}");
        assert!(!f["message"].as_str().unwrap().is_empty(), "{f}");
    }
    // The existing keys are still there.
    for k in ["count", "min", "mean", "p50", "p95", "max", "over_limit", "uncovered_chars", "strategy"] {
        assert!(!s[k].is_null(), "stats --json lost {k}");
    }
    // Plain text runs only the prose and size rules.
    let t = d.write("notes.txt", b"Plain notes. Nothing more.\n");
    let s: Value = serde_json::from_str(&stdout(&run(&["stats", &t, "--json"]))).unwrap();
    let keys: Vec<&String> = s["lint"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
}

#[test]
fn the_stats_table_ends_with_a_lint_section() {
    let d = Dir::new();
    let f = d.write("guide.md", DOC.as_bytes());
    let out = stdout(&run(&["stats", &f, "--size", "60", "--overlap", "0"]));
    let section = out.split("\nlint          ").nth(1).unwrap_or_else(|| panic!("no lint line: {out}"));
    assert!(section.starts_with(|c: char| c.is_ascii_digit()), "{out}");
    assert!(section.contains("orphan-heading") && section.contains("  line "), "{out}");
}

#[test]
fn lint_exits_1_on_findings_0_when_clean_2_on_a_bad_config() {
    let d = Dir::new();
    let f = d.write("guide.md", DOC.as_bytes());
    let out = run(&["lint", &f, "--size", "60", "--overlap", "0"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with(&format!("{f}:")), "FILE:LINE: rule: … {first}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("{} lint finding", text.lines().count())), "{stderr}");
    // The whole guide in one chunk: nothing to say.
    let out = run(&["lint", &f, "--strategy", "document"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    // Every rule off: clean too.
    let all: Vec<String> = chunktui::lint::RULES.iter().map(|r| format!("\"{}\"", r.name)).collect();
    let cfg = format!(
        "version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 60\noverlap = 0\n\n[lint]\noff = [{}]\n",
        all.join(", ")
    );
    let c = d.write("quiet.toml", cfg.as_bytes());
    assert_eq!(run(&["lint", &f, "--config", &c]).status.code(), Some(0));
    // An unknown rule: a config error, exit 2, naming the rules.
    let c = d.write("bad.toml", cfg.replace("\"tiny-fragment\"", "\"tiny\"").as_bytes());
    let out = run(&["lint", &f, "--config", &c]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown rule 'tiny'") && stderr.contains("tiny-fragment"), "{stderr}");
}

#[test]
fn lint_takes_a_folder_file_by_file_as_stats_does() {
    let d = Dir::new();
    let guide = d.write("docs/guide.md", DOC.as_bytes());
    let clean = d.write("docs/clean.md", b"One short paragraph.\n");
    let blob = d.write("docs/blob.bin", b"\x00\x01 not text");
    let folder = d.root().join("docs").display().to_string();
    let out = run(&["lint", &folder, "--size", "60", "--overlap", "0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "findings in one file: {stderr}");
    let text = stdout(&out);
    assert!(text.lines().all(|l| l.starts_with(&format!("{guide}:"))), "only the guide has findings:\n{text}");
    assert!(stderr.contains(&format!("skipped {blob}")) && stderr.contains("binary"), "{stderr}");
    assert!(stderr.contains("in 1 of 2 files in"), "{stderr}");
    // As JSON: one object per file read, in path order.
    let out = run(&["lint", &folder, "--size", "60", "--overlap", "0", "--json"]);
    let all: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let files: Vec<&str> = all.as_array().expect("an array").iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert_eq!(files, [clean.as_str(), guide.as_str()]);
    // A folder with nothing to say exits 0.
    std::fs::remove_file(&guide).unwrap();
    let out = run(&["lint", &folder]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn no_lint_and_a_config_switch_leave_the_numbers_and_skip_the_rules() {
    let d = Dir::new();
    let f = d.write("guide.md", DOC.as_bytes());
    let off = d.write("off.toml", b"version = 1\n[lint]\nenabled = false\n");
    let linted = run(&["stats", &f, "--json", "--size", "60", "--overlap", "0"]);
    let linted: Value = serde_json::from_str(&stdout(&linted)).expect("JSON");
    assert!(!linted["lint_findings"].as_array().expect("findings").is_empty(), "this document has findings");
    for args in [vec!["--no-lint"], vec!["--config", off.as_str()]] {
        let mut all = vec!["stats", f.as_str(), "--json", "--size", "60", "--overlap", "0"];
        all.extend(&args);
        let out = run(&all);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        assert_eq!(v["lint_findings"], serde_json::json!([]), "{args:?}");
        assert_eq!(v["lint"], serde_json::json!({}), "{args:?}");
        assert_eq!(v["chunks"], linted["chunks"], "{args:?}: the same numbers");
        let table = run(&all.iter().copied().filter(|a| *a != "--json").collect::<Vec<_>>());
        assert!(stdout(&table).contains("lint          off"), "{args:?}: {}", stdout(&table));
    }
    // `chunktui lint` is asked to lint: the switch does not silence it.
    let lint = run(&["lint", &f, "--size", "60", "--overlap", "0", "--config", &off]);
    assert_eq!(lint.status.code(), Some(1), "{}", String::from_utf8_lossy(&lint.stderr));
}
