//! `chunktui diff`: configs and chunk files from chunktui or other tools,
//! English and Chinese documents (where bytes and code points differ), the
//! CI exit status, and bad input.

mod common;

use serde_json::Value;
use std::process::{Command, Output};

fn chunktui(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chunktui")).args(args).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let out = chunktui(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn config(dir: &common::Dir, name: &str, flags: &[&str]) -> String {
    let mut args = vec!["config", "init"];
    args.extend(flags);
    dir.write(name, ok(&args).as_bytes())
}

fn json(args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.push("--json");
    serde_json::from_str(&ok(&args)).unwrap()
}

const DOCS: [&str; 2] = ["samples/guide.md", "samples/zh-article.md"];

#[test]
fn two_configs_report_what_moved_and_the_same_config_reports_nothing() {
    let dir = common::Dir::new();
    let a = config(&dir, "a.toml", &["--size", "300", "--overlap", "0"]);
    let b = config(&dir, "b.toml", &["--size", "240", "--overlap", "0"]);
    for doc in DOCS {
        let report = json(&["diff", &a, &b, doc]);
        let file = &report["files"][0];
        assert_eq!(report["changed"], 1, "{doc}: {report}");
        let (na, nb) = (file["a_chunks"].as_u64().unwrap(), file["b_chunks"].as_u64().unwrap());
        assert!(nb > na, "{doc}: a smaller size makes more chunks");
        let changes = ["added", "removed", "moved"].iter().map(|k| file[k].as_array().unwrap().len()).sum::<usize>();
        assert!(changes > 0, "{doc}: {file}");

        let same = json(&["diff", &a, &a, doc]);
        assert_eq!(same["changed"], 0);
        assert_eq!(same["files"][0]["identical"], same["files"][0]["a_chunks"]);
    }
}

#[test]
fn fail_on_changed_exits_1_only_when_something_differs() {
    let dir = common::Dir::new();
    let a = config(&dir, "a.toml", &["--size", "300", "--overlap", "0"]);
    let b = config(&dir, "b.toml", &["--strategy", "sentence", "--size", "300"]);
    let out = chunktui(&["diff", &a, &b, DOCS[0], DOCS[1], "--fail-on", "changed"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("2 files: 2 changed, 0 identical"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--fail-on changed"));
    assert_eq!(chunktui(&["diff", &a, &a, DOCS[0], "--fail-on", "changed"]).status.code(), Some(0));
    assert_eq!(chunktui(&["diff", &a, &b, DOCS[0]]).status.code(), Some(0), "the default reports, never fails");
}

/// chunktui's own JSONL, and records as other tools write them (text only;
/// LangChain's start_index in code points; byte start/end), all read as the
/// chunks the config makes.
#[test]
fn chunk_files_from_any_tool_match_the_config_that_made_them() {
    let dir = common::Dir::new();
    let cfg = config(&dir, "c.toml", &["--size", "200", "--overlap", "40"]);
    for doc in DOCS {
        let jsonl = ok(&["chunk", doc, "-c", &cfg]);
        let records: Vec<Value> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let rewrite =
            |f: &dyn Fn(&Value) -> Value| -> String { records.iter().map(|r| f(r).to_string() + "\n").collect() };
        let forms = [
            ("chunktui.jsonl", jsonl.clone()),
            ("text-only.jsonl", rewrite(&|r| serde_json::json!({ "text": r["text"] }))),
            ("langchain.jsonl", rewrite(&|r| serde_json::json!({ "text": r["text"], "start_index": r["char_start"] }))),
            (
                "bytes.jsonl",
                rewrite(&|r| serde_json::json!({ "text": r["text"], "start": r["start"], "end": r["end"] })),
            ),
            ("list.json", serde_json::to_string(&records).unwrap()),
        ];
        for (name, body) in forms {
            let path = dir.write(name, body.as_bytes());
            let report = json(&["diff", &path, &cfg, doc]);
            assert_eq!(report["changed"], 0, "{doc} {name}: {report}");
        }
    }
}

#[test]
fn two_chunk_files_compare_without_the_document() {
    let dir = common::Dir::new();
    let a = dir.write("a.jsonl", ok(&["chunk", DOCS[1], "--size", "120", "--overlap", "0"]).as_bytes());
    let b = dir.write("b.jsonl", ok(&["chunk", DOCS[1], "--size", "150", "--overlap", "0"]).as_bytes());
    let report = json(&["diff", &a, &b]);
    assert_eq!(report["changed"], 1);
    assert!(ok(&["diff", &a, &b]).starts_with("(chunks): "));
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    let dir = common::Dir::new();
    let cfg = config(&dir, "c.toml", &[]);
    let wrong = dir.write("wrong.jsonl", b"{\"text\": \"not in the guide at all\"}\n");
    let empty = dir.write("empty.jsonl", b"\n");
    let broken = dir.write("broken.jsonl", b"{\"text\": \"x\"}\nnot json\n");
    let past = dir.write("past.jsonl", b"{\"char_start\": 0, \"char_end\": 99999999}\n");
    let cases: [(&[&str], &str); 5] = [
        (&["diff", &wrong, &cfg, DOCS[0]], "chunk record 1"),
        (&["diff", &empty, &cfg, DOCS[0]], "no chunk records"),
        (&["diff", &broken, &cfg, DOCS[0]], "line 2"),
        (&["diff", &past, &cfg, DOCS[0]], "past the end"),
        (&["diff", &cfg, &cfg], "needs the documents"),
    ];
    for (args, says) in cases {
        let out = chunktui(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says) && err.lines().count() == 1, "{args:?}: {err}");
    }
}
