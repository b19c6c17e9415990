//! The real `chunktui` binary on bad input and on the happy paths.
//!
//! Bad input (empty, binary, invalid UTF-8, missing file, a directory, size 0,
//! overlap >= size, unknown strategy / unit / tokenizer, a bad separator
//! regex, config files with unknown keys or from a future version): exit code
//! 2, exactly one line on stderr starting `chunktui: error:` that names the
//! problem and the fix, never panic text, and with `-o OUT` no output file
//! (nor a temp file) left behind.
//!
//! Happy paths: JSONL records carry exactly index, start, end, char_start,
//! char_end, size, text, meta; byte offsets slice the file and char offsets
//! index it in code points (as Python would); `--lossy` replaces bad bytes;
//! `config init` output round-trips through `config check` and `chunk
//! --config`; `-` reads stdin; `-o` writes what stdout would; `stats --json`
//! parses and agrees with the chunk count.
#![cfg(feature = "cli")]

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};
mod common;
use common::Dir;

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

/// Our own text: headings, CJK, emoji (a ZWJ sequence, a flag), combining
/// marks, CRLF and LF.
const SAMPLE: &str = "# Notes\n\nChunks are byte ranges. Sizes count chars, words or tokens.\r\n\r\n\
## 中文\n\n分块是第一步。每个块都有大小限制！好的分块让检索更准确？\n\n\
- emoji 👩\u{200d}👩\u{200d}👧\u{200d}👦 and 🇯🇵 and 🦀\n- combining: e\u{301}te\u{301}\n\n\
A closing paragraph that is long enough to be split into more than one chunk at small sizes, \
so that overlap shows up between neighbours.\n";

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    // Keep the user's environment from changing results.
    cmd.env_remove("RUST_BACKTRACE").env("NO_COLOR", "1");
    let mut child = cmd.spawn().expect("spawn chunktui");
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    child.wait_with_output().expect("wait for chunktui")
}

fn ok(args: &[&str]) -> String {
    let out = run(args, None);
    assert!(
        out.status.success(),
        "chunktui {args:?} failed ({:?}):\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

/// Run `args` (plus `-o OUT` for `chunk`) and check the error contract.
/// `expect` are fragments the one stderr line must hold (problem and fix).
fn expect_error(dir: &Dir, args: &[&str], expect: &[&str]) -> String {
    let before = dir.entries();
    let out_path = dir.path("out.jsonl");
    let mut full: Vec<&str> = args.to_vec();
    let out_str = out_path.to_str().unwrap().to_string();
    if args.first() == Some(&"chunk") {
        full.extend(["-o", &out_str]);
    }
    let out = run(&full, None);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "chunktui {full:?}: exit code {:?}, stderr:\n{stderr}", out.status.code());
    assert!(!stderr.contains("panicked"), "chunktui {full:?} panicked:\n{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "chunktui {full:?}: want one stderr line, got:\n{stderr}");
    assert!(lines[0].starts_with("chunktui: error: "), "chunktui {full:?}: {stderr}");
    for e in expect {
        assert!(lines[0].contains(e), "chunktui {full:?}: the error should mention {e:?}:\n{stderr}");
    }
    assert!(out.stdout.is_empty(), "chunktui {full:?}: printed to stdout on error");
    assert!(!out_path.exists(), "chunktui {full:?}: created {} on error", out_path.display());
    assert_eq!(dir.entries(), before, "chunktui {full:?}: left files behind");
    lines[0].to_string()
}

#[test]
fn empty_file() {
    let d = Dir::new();
    let f = d.write("empty.txt", b"");
    expect_error(&d, &["chunk", &f], &["empty.txt", "empty", "nothing to chunk"]);
    let f = d.write("blank.txt", b" \n\r\n\t ");
    expect_error(&d, &["chunk", &f], &["blank.txt", "only whitespace"]);
}

#[test]
fn binary_file() {
    let d = Dir::new();
    let f = d.write("blob.bin", b"\x7fELF\x02\x01\x01\x00\x00\x00binary");
    expect_error(&d, &["chunk", &f], &["blob.bin", "binary", "UTF-8"]);
}

#[test]
fn invalid_utf8_names_the_place_and_lossy_works() {
    let d = Dir::new();
    let f = d.write("latin1.txt", b"first line\nsecond caf\xe9 line\n");
    expect_error(&d, &["chunk", &f], &["latin1.txt", "not valid UTF-8", "offset 21", "line 2", "column 11", "--lossy"]);
    expect_error(&d, &["stats", &f], &["--lossy"]);

    let out = run(&["chunk", &f, "--lossy"], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning") && stderr.contains("U+FFFD") && !stderr.contains("panicked"), "{stderr}");
    let recs = jsonl(&String::from_utf8(out.stdout).unwrap());
    let joined: String = recs.iter().map(|r| r["text"].as_str().unwrap()).collect();
    assert!(joined.contains("caf\u{fffd}"), "{joined:?}");
}

#[test]
fn missing_file_and_directory() {
    let d = Dir::new();
    let missing = d.path("nope.md");
    expect_error(&d, &["chunk", missing.to_str().unwrap()], &["nope.md", "no such file"]);
    expect_error(&d, &["stats", missing.to_str().unwrap()], &["nope.md", "no such file"]);
    let sub = d.path("folder");
    std::fs::create_dir(&sub).unwrap();
    expect_error(&d, &["chunk", sub.to_str().unwrap()], &["folder", "is a directory", "give a file"]);
}

#[test]
fn bad_settings() {
    let d = Dir::new();
    let f = d.write("doc.md", SAMPLE.as_bytes());
    expect_error(&d, &["chunk", &f, "--size", "0"], &["size must be at least 1", "--size"]);
    expect_error(
        &d,
        &["chunk", &f, "--size", "10", "--overlap", "10"],
        &["overlap (10) must be smaller than size (10)", "lower --overlap"],
    );
    expect_error(&d, &["chunk", &f, "--size", "10", "--overlap", "50"], &["overlap (50)", "size (10)"]);
    expect_error(&d, &["chunk", &f, "--strategy", "nope"], &["unknown strategy 'nope'", "recursive"]);
    expect_error(&d, &["chunk", &f, "--unit", "furlongs"], &["unknown unit 'furlongs'", "chars"]);
    expect_error(&d, &["chunk", &f, "--unit", "bytes"], &["only the fast strategy", "--strategy fast"]);
    expect_error(&d, &["chunk", &f, "--regex", "--separators", r#"["("]"#], &["bad separator regex", "("]);
    expect_error(&d, &["chunk", &f, "--separators", "not json"], &["--separators", "JSON list"]);
    expect_error(
        &d,
        &["chunk", &f, "--unit", "tokens", "--tokenizer", "gpt5"],
        &["unknown tokenizer 'gpt5'", "cl100k_base", "hf:"],
    );
    let missing_tok = d.path("no-tokenizer.json");
    expect_error(
        &d,
        &["chunk", &f, "--unit", "tokens", "--tokenizer", &format!("hf:{}", missing_tok.display())],
        &["not found", "tokenizer.json"],
    );
    expect_error(&d, &["chunk", &f, "--preset", "klingon"], &["unknown separators preset 'klingon'", "english"]);
    expect_error(&d, &["chunk", &f, "--keep-separator", "maybe"], &["--keep-separator 'maybe'", "start"]);
    expect_error(&d, &["stats", &f, "--size", "0"], &["size must be at least 1"]);
}

#[test]
fn bad_config_files() {
    let d = Dir::new();
    let f = d.write("doc.md", SAMPLE.as_bytes());
    let unknown = d.write(
        "unknown.toml",
        b"version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 100\ncolour = \"red\"\n",
    );
    expect_error(&d, &["chunk", &f, "--config", &unknown], &["unknown.toml", "colour"]);
    expect_error(&d, &["config", "check", &unknown], &["unknown.toml", "colour"]);
    let nested = d.write(
        "nested.toml",
        b"version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 100\n[recursive]\nprest = \"english\"\n",
    );
    expect_error(&d, &["config", "check", &nested], &["nested.toml", "prest"]);

    let future =
        d.write("future.toml", b"version = 99\nstrategy = \"quantum\"\nunit = \"chars\"\nsize = 100\nwarp = 9\n");
    expect_error(&d, &["chunk", &f, "--config", &future], &["future.toml", "version 99", "newer", "upgrade chunktui"]);
    expect_error(&d, &["config", "check", &future], &["version 99", "upgrade chunktui"]);
    let future_json =
        d.write("future.json", br#"{"version": 7, "strategy": "recursive", "unit": "chars", "size": 100}"#);
    expect_error(&d, &["config", "check", &future_json], &["version 7", "upgrade chunktui"]);

    let invalid = d
        .write("invalid.toml", b"version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 100\noverlap = 100\n");
    expect_error(
        &d,
        &["config", "check", &invalid],
        &["invalid.toml", "overlap (100) must be smaller than size (100)"],
    );
    let missing = d.path("absent.toml");
    expect_error(&d, &["config", "check", missing.to_str().unwrap()], &["absent.toml", "no such file"]);
    expect_error(&d, &["chunk", &f, "--config", missing.to_str().unwrap()], &["absent.toml", "no such file"]);
}

fn jsonl(out: &str) -> Vec<Value> {
    out.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSONL line {l:?}: {e}"))).collect()
}

/// Every record has exactly the documented fields; offsets slice the text in
/// bytes and index it in code points; indexes count up from 0.
fn check_records(text: &str, recs: &[Value]) {
    assert!(!recs.is_empty());
    for (i, r) in recs.iter().enumerate() {
        let obj = r.as_object().expect("record is an object");
        let mut keys: Vec<&str> = obj.keys().map(|k| k.as_str()).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["char_end", "char_start", "end", "index", "meta", "size", "start", "text"], "{r}");
        let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{k} is a number: {r}")) as usize;
        assert_eq!(n("index"), i);
        let chunk = r["text"].as_str().unwrap();
        assert_eq!(&text[n("start")..n("end")], chunk, "byte offsets slice the file");
        let by_chars: String = text.chars().skip(n("char_start")).take(n("char_end") - n("char_start")).collect();
        assert_eq!(by_chars, chunk, "char offsets index the text in code points");
        assert_eq!(text[..n("start")].chars().count(), n("char_start"));
        assert!(r["meta"].is_object());
        assert!(n("size") > 0);
    }
}

#[test]
fn jsonl_records_and_offsets() {
    let d = Dir::new();
    let f = d.write("doc.md", SAMPLE.as_bytes());
    for args in [
        vec!["--size", "60", "--overlap", "15"],
        vec!["--strategy", "fixed", "--size", "25", "--overlap", "5"],
        vec!["--strategy", "sentence", "--unit", "words", "--size", "12", "--overlap", "2"],
        vec![
            "--strategy",
            "markdown",
            "--unit",
            "tokens",
            "--tokenizer",
            "cl100k_base",
            "--size",
            "30",
            "--overlap",
            "0",
        ],
        vec!["--strategy", "document"],
    ] {
        let mut full = vec!["chunk", f.as_str()];
        full.extend(args.iter().copied());
        let recs = jsonl(&ok(&full));
        check_records(SAMPLE, &recs);
    }
    // Markdown chunks carry their heading path.
    let recs = jsonl(&ok(&["chunk", &f, "--strategy", "markdown", "--size", "1000", "--overlap", "0"]));
    assert!(recs.iter().any(|r| r["meta"]["headings"] == serde_json::json!(["Notes", "中文"])), "{recs:?}");
}

#[test]
fn json_and_text_formats_and_output_file() {
    let d = Dir::new();
    let f = d.write("doc.md", SAMPLE.as_bytes());
    let lines = ok(&["chunk", &f, "--size", "80", "--overlap", "10"]);
    let arr: Value =
        serde_json::from_str(&ok(&["chunk", &f, "--size", "80", "--overlap", "10", "--format", "json"])).unwrap();
    assert_eq!(arr.as_array().unwrap(), &jsonl(&lines));
    let text = ok(&["chunk", &f, "--size", "80", "--overlap", "10", "--format", "text"]);
    assert_eq!(text.matches("─── chunk ").count(), jsonl(&lines).len());

    let out = d.path("chunks.jsonl");
    assert!(ok(&["chunk", &f, "--size", "80", "--overlap", "10", "-o", out.to_str().unwrap()]).is_empty());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), lines);
    assert_eq!(d.entries(), ["chunks.jsonl", "doc.md"], "no temp files left");
}

#[test]
fn stdin_dash() {
    let d = Dir::new();
    let f = d.write("doc.md", SAMPLE.as_bytes());
    let from_file = ok(&["chunk", &f, "--size", "70", "--overlap", "10"]);
    let out = run(&["chunk", "-", "--size", "70", "--overlap", "10"], Some(SAMPLE.as_bytes()));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), from_file);

    let out = run(&["chunk", "-"], Some(b""));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("chunktui: error: standard input is empty") && stderr.lines().count() == 1, "{stderr}");
}

#[test]
fn config_init_round_trips() {
    let d = Dir::new();
    let f = d.write("doc.md", SAMPLE.as_bytes());
    let flags = ["--strategy", "sentence", "--unit", "words", "--size", "15", "--overlap", "3", "--max-sentences", "2"];
    let direct = ok(&[&["chunk", f.as_str()][..], &flags[..]].concat());

    for (name, json) in [("cfg.toml", false), ("cfg.json", true)] {
        let mut init = vec!["config", "init"];
        init.extend(flags);
        if json {
            init.push("--json");
        }
        let cfg = d.write(name, ok(&init).as_bytes());
        let check = ok(&["config", "check", &cfg]);
        assert!(check.contains("ok") && check.contains("sentence") && check.contains("15"), "{check}");
        assert_eq!(ok(&["chunk", &f, "--config", &cfg]), direct, "{name} reproduces the chunks");
        // Flags still override the file.
        let over = ok(&[
            "chunk",
            &f,
            "--config",
            &cfg,
            "--strategy",
            "recursive",
            "--size",
            "40",
            "--overlap",
            "0",
            "--unit",
            "chars",
        ]);
        assert_eq!(over, ok(&["chunk", &f, "--size", "40", "--overlap", "0"]));
    }

    // Defaults round-trip too.
    let cfg = d.write("default.toml", ok(&["config", "init"]).as_bytes());
    ok(&["config", "check", &cfg]);
    assert_eq!(ok(&["chunk", &f, "--config", &cfg]), ok(&["chunk", &f]));
}

#[test]
fn stats_json() {
    let d = Dir::new();
    let f = d.write("doc.md", SAMPLE.as_bytes());
    let s: Value = serde_json::from_str(&ok(&["stats", &f, "--json", "--size", "50", "--overlap", "10"]))
        .expect("stats --json is JSON");
    let count = jsonl(&ok(&["chunk", &f, "--size", "50", "--overlap", "10"])).len();
    assert_eq!(s["count"].as_u64().unwrap() as usize, count);
    assert_eq!(s["bytes"].as_u64().unwrap() as usize, SAMPLE.len());
    assert_eq!(s["chars"].as_u64().unwrap() as usize, SAMPLE.chars().count());
    assert_eq!(s["strategy"], "recursive");
    assert_eq!(s["uncovered_chars"], 0);
    assert_eq!(s["over_limit"], 0);
    for k in ["min", "mean", "p50", "p95", "max", "overlap_bytes", "overlap_chars"] {
        assert!(s[k].is_number(), "stats --json lacks {k}: {s}");
    }
    // The table form too.
    let table = ok(&["stats", &f, "--size", "50", "--overlap", "10"]);
    assert!(table.contains(&format!("chunks: {count}")), "{table}");
}

#[test]
fn corpus_file_chunks_cleanly() {
    // A real third-party file, read from the shared corpus (never copied).
    let path = common::corpus_file("en_ripgrep_guide_faq.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let recs = jsonl(&ok(&["chunk", path.to_str().unwrap(), "--size", "500", "--overlap", "50"]));
    check_records(&text, &recs);
}

#[test]
fn mostly_chinese_prose_gets_the_chinese_separators_unless_told_otherwise() {
    // One long sentence, clauses split by full-width commas and no spaces:
    // the english separators can only cut it between characters.
    let clause = "分块决定了检索能找到什么";
    let sentence = [clause; 12].join("，") + "。\n";
    let d = Dir::new();
    let f = d.write("zh.md", sentence.repeat(3).as_bytes());
    let texts = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["chunk", &f, "--size", "40", "--overlap", "0"];
        args.extend(extra);
        jsonl(&ok(&args)).iter().map(|r| r["text"].as_str().unwrap().to_string()).collect()
    };
    let default = texts(&[]);
    assert_eq!(default, texts(&["--preset", "chinese"]));
    assert!(default.iter().all(|t| t.ends_with('，') || t.ends_with('。')), "{default:?}");
    let english = texts(&["--preset", "english"]);
    assert_ne!(english, default, "the explicit preset wins");
}

/// `chunktui bench` reports, per strategy asked for, the screen's p95 as the
/// larger of the top's and the middle's, with the full pass beside it, and
/// ends with the target's verdict naming a strategy (which, and whether the
/// target is met, depends on the machine: a benchmark, not a timed test).
#[test]
fn bench_reports_each_strategy_and_a_verdict() {
    let guide = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/guide.md");
    let out = ok(&["bench", guide, "--changes", "2", "--big-mb", "1", "-s", "recursive,fixed"]);
    let header = out.lines().find(|l| l.starts_with("strategy")).expect("a header row");
    for column in ["chunks", "p95", "top p50", "top p95", "mid p95", "max"] {
        assert!(header.contains(column), "{column} missing from {header}");
    }
    let ms = |cell: &str| cell.trim_end_matches(" ms").parse::<f64>().expect("a time in ms");
    for name in ["recursive", "fixed"] {
        let row = out.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name} row:\n{out}"));
        let cells: Vec<&str> = row.split("ms").map(str::trim).filter(|c| !c.is_empty()).collect();
        // chunks and p95 share the first cell, then top p50, top p95, mid p95, max, full p95.
        let p95 = ms(cells[0].rsplit(' ').next().unwrap());
        let (top, middle) = (ms(cells[2]), ms(cells[3]));
        assert_eq!(p95, top.max(middle), "{name}: the headline p95 is the worse screen's: {row}");
    }
    let verdict = out.lines().find(|l| l.starts_with("target:")).expect("a verdict line");
    assert!(verdict.contains("met by every strategy (slowest: ") || verdict.contains("MISSED by "), "{verdict}");
    assert!(verdict.contains("recursive") || verdict.contains("fixed"), "{verdict}");
    assert!(out.contains("first frame, "), "{out}");
}
