//! `chunktui chunk` over many inputs: a directory made from the shared
//! corpus (many files, nested, with a binary, an empty and an ignored file),
//! globs, `--jobs`, `-o` and `--output-dir`. Same chunks whatever the thread
//! count, and per file the same chunks as chunking that file alone.

mod common;

use serde_json::Value;
use std::collections::BTreeMap;
use std::process::{Command, Output};

fn chunktui(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chunktui")).args(args).output().unwrap()
}

fn ok(args: &[&str]) -> Output {
    let out = chunktui(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// ~60 files cut from the corpus at line ends, in nested folders, in
/// Markdown and text; plus a binary, an empty file and a gitignored one.
fn make_corpus(dir: &common::Dir) -> usize {
    let mut n = 0;
    for (name, ext) in [("en_rust_book.md", "md"), ("zh_rust_book.md", "md"), ("en_war_and_peace.txt", "txt")] {
        let text = common::read_corpus(name);
        let mut rest = text.as_str();
        for part in 0..20 {
            // The last line end within 6,000 bytes (a byte search: '\n' is never inside a UTF-8 sequence).
            let want = 6_000.min(rest.len());
            let cut = if want == rest.len() {
                rest.len()
            } else {
                rest.as_bytes()[..want].iter().rposition(|&b| b == b'\n').map_or(rest.len(), |i| i + 1)
            };
            let (piece, tail) = rest.split_at(cut);
            dir.write(&format!("{}/part{part:02}.{ext}", name.split('.').next().unwrap()), piece.as_bytes());
            n += 1;
            rest = tail;
            if rest.is_empty() {
                break;
            }
        }
    }
    dir.write("misc/blob.bin", &[0u8, 159, 146, 150, 0, 1, 2]);
    dir.write("misc/empty.md", b"");
    dir.write(".gitignore", b"ignored.md\n");
    dir.write("ignored.md", b"# Not chunked\n\nThis file is gitignored.\n");
    n
}

fn records(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8(stdout.to_vec()).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn a_directory_gives_the_same_chunks_on_one_and_two_threads_and_as_each_file_alone() {
    let dir = common::Dir::new();
    let files = make_corpus(&dir);
    let root = dir.root().to_str().unwrap();
    // `dir` is also a git-less folder: .gitignore is honoured all the same.
    let one = ok(&["chunk", root, "--jobs", "1", "--size", "800", "--overlap", "100"]);
    let two = ok(&["chunk", root, "--jobs", "2", "--size", "800", "--overlap", "100"]);
    assert_eq!(one.stdout, two.stdout, "output must not depend on the thread count");

    let recs = records(&one.stdout);
    let mut by_path: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for r in &recs {
        by_path.entry(r["path"].as_str().unwrap().to_string()).or_default().push(r);
    }
    assert_eq!(by_path.len(), files, "{:?}", by_path.keys().collect::<Vec<_>>());
    let paths: Vec<&String> = by_path.keys().collect();
    let order: Vec<&str> = recs.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "records come in path order");
    assert!(!paths.iter().any(|p| p.contains("ignored.md") || p.contains("blob")));

    // Each file alone, with its kind's strategy, gives the same records (but the path).
    for path in paths.iter().step_by(7) {
        let strategy = if path.ends_with(".md") { "markdown" } else { "recursive" };
        let alone = records(&ok(&["chunk", path, "--strategy", strategy, "--size", "800", "--overlap", "100"]).stdout);
        let mut many: Vec<Value> = by_path[*path].iter().map(|r| (*r).clone()).collect();
        for r in &mut many {
            r.as_object_mut().unwrap().remove("path");
        }
        assert_eq!(many, alone, "{path}");
    }

    let stderr = String::from_utf8_lossy(&one.stderr);
    assert_eq!(stderr.matches("warning: skipped").count(), 2, "{stderr}");
    assert!(stderr.contains("blob.bin") && stderr.contains("empty.md"), "{stderr}");
    assert!(stderr.contains(&format!("{files} file(s)")) && stderr.contains("skipped 2"), "{stderr}");
    assert!(stderr.contains("markdown 40") && stderr.contains("recursive 20"), "{stderr}");
}

#[test]
fn a_chosen_strategy_applies_to_every_file_and_output_goes_to_files() {
    let dir = common::Dir::new();
    make_corpus(&dir);
    let root = dir.root().to_str().unwrap();
    let stdout = ok(&["chunk", root, "--strategy", "sentence", "--size", "500"]).stdout;
    assert!(String::from_utf8_lossy(&ok(&["chunk", root, "--strategy", "sentence", "--size", "500"]).stderr)
        .contains("sentence 60"));

    let out = dir.path("all.jsonl");
    ok(&["chunk", root, "--strategy", "sentence", "--size", "500", "-o", out.to_str().unwrap()]);
    assert_eq!(std::fs::read(&out).unwrap(), stdout);

    let per_file = dir.path("out");
    ok(&["chunk", root, "--strategy", "sentence", "--size", "500", "--output-dir", per_file.to_str().unwrap()]);
    let mut total = 0;
    for r in records(&stdout).iter().filter(|r| r["index"] == 0) {
        let path = r["path"].as_str().unwrap();
        let relative: std::path::PathBuf =
            std::path::Path::new(path).components().filter(|c| matches!(c, std::path::Component::Normal(_))).collect();
        let written = per_file.join(format!("{}.jsonl", relative.display()));
        let recs = records(&std::fs::read(&written).unwrap_or_else(|e| panic!("{}: {e}", written.display())));
        assert!(recs.iter().all(|x| x["path"] == path));
        total += recs.len();
    }
    assert_eq!(total, records(&stdout).len());
}

#[test]
fn globs_and_several_files_and_their_errors() {
    let dir = common::Dir::new();
    make_corpus(&dir);
    let pattern = format!("{}/zh_rust_book/*.md", dir.root().display());
    let recs = records(&ok(&["chunk", &pattern, "samples/guide.md"]).stdout);
    let files: std::collections::BTreeSet<&str> = recs.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(files.len(), 21, "20 parts and the guide");

    let none = format!("{}/nothing/*.md", dir.root().display());
    let cases: [(&[&str], &str); 3] = [
        (&["chunk", &none], "matches no file"),
        (&["chunk", "samples", "--format", "text"], "JSONL"),
        (&["chunk", "samples", "/no/such/dir"], "no such file"),
    ];
    for (args, says) in cases {
        let out = chunktui(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn stats_over_a_directory_gives_each_file_and_the_totals() {
    let dir = common::Dir::new();
    let files = make_corpus(&dir);
    let root = dir.root().to_str().unwrap();
    let out = ok(&["stats", root, "--json", "--size", "800", "--overlap", "100"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = report["files"].as_array().unwrap();
    assert_eq!(rows.len(), files);
    let total = &report["total"];
    assert_eq!(total["skipped"], 2);
    let count: u64 = rows.iter().map(|r| r["count"].as_u64().unwrap()).sum();
    assert_eq!(total["count"].as_u64(), Some(count));
    assert_eq!(total["max"], rows.iter().map(|r| r["max"].as_u64().unwrap()).max().unwrap());
    for (rule, n) in total["lint"].as_object().unwrap() {
        // A rule that does not apply to a kind of file (code rules on text) is absent from its row.
        let sum: u64 = rows.iter().map(|r| r["lint"][rule].as_u64().unwrap_or(0)).sum();
        assert_eq!(n.as_u64(), Some(sum), "{rule}");
    }
    // A row is what `stats` says of that file alone with its kind's strategy.
    let row = rows.iter().find(|r| r["file"].as_str().unwrap().ends_with("zh_rust_book/part03.md")).unwrap();
    let path = row["file"].as_str().unwrap();
    let alone: Value = serde_json::from_slice(
        &ok(&["stats", path, "--json", "--strategy", "markdown", "--size", "800", "--overlap", "100"]).stdout,
    )
    .unwrap();
    for key in ["count", "min", "p50", "p95", "max", "over_limit", "bytes", "chars"] {
        assert_eq!(row[key], alone[key], "{key}");
    }
    let table = String::from_utf8(ok(&["stats", root, "--size", "800", "--overlap", "100"]).stdout).unwrap();
    assert!(table.contains(&format!("total ({files} files)")) && table.contains("skipped 2"), "{table}");
}
