//! Our defaults pass our own lint: with no flags, `chunktui lint` finds
//! nothing in the bundled samples, and at most 2 % of the chunks on ordinary
//! prose in English and Chinese and on a changelog with setext headings. A
//! tool whose defaults fail its own review teaches users to ignore it.
//!
//! Chunks over the model's input are counted with the default model's own
//! tokenizer (scripts/test.sh installs it; CHUNKTUI_MODEL_DIR).
#![cfg(feature = "cli")]

mod common;

use common::Dir;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

/// (chunks, findings by rule) of `stats --json` with no chunking flags.
fn lint_counts(file: &Path) -> (u64, Vec<(String, u64)>) {
    let out = Command::new(BIN).arg("stats").arg(file).arg("--json").output().expect("run chunktui stats");
    assert!(out.status.success(), "stats {}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stats --json is JSON");
    let lint = v["lint"].as_object().expect("a lint object").iter();
    let found = lint.map(|(k, n)| (k.clone(), n.as_u64().unwrap())).filter(|(_, n)| *n > 0).collect();
    (v["count"].as_u64().expect("a chunk count"), found)
}

fn assert_at_most_2_percent(name: &str, file: &Path) {
    let (chunks, found) = lint_counts(file);
    let total: u64 = found.iter().map(|(_, n)| n).sum();
    assert!(chunks > 50, "{name}: only {chunks} chunks, too few to judge");
    assert!(total * 50 <= chunks, "{name}: {total} findings in {chunks} chunks (over 2 %): {found:?}");
    assert!(!found.iter().any(|(rule, _)| rule == "over-model-limit"), "{name}: {found:?}");
}

#[test]
fn the_samples_have_no_findings() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut checked = 0;
    // samples/ and its folders (samples/code: a source file per language).
    for path in files_under(&samples) {
        // Documents only: the question file is not one.
        if path.extension().is_some_and(|e| e == "jsonl") {
            continue;
        }
        let out = Command::new(BIN).arg("lint").arg(&path).output().unwrap();
        assert!(
            out.status.success(),
            "chunktui lint {} (no flags) found: {}{}",
            path.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} samples checked");
}

/// Every file under `dir`, in its folders too, in path order.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else if path.is_file() {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The source folder of crate `name` at the version Cargo.lock pins, as
/// cargo unpacked it to build chunktui: code from other projects that every
/// machine building the tests has.
fn crate_source(name: &str) -> std::path::PathBuf {
    let lock = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).unwrap();
    let entry = format!("name = \"{name}\"\nversion = \"");
    let at = lock.find(&entry).unwrap_or_else(|| panic!("{name} is not in Cargo.lock")) + entry.len();
    let version = &lock[at..at + lock[at..].find('"').unwrap()];
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(&std::env::var_os("HOME").expect("HOME is set")).join(".cargo"));
    let registry = home.join("registry/src");
    let found = std::fs::read_dir(&registry)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo fetch` to unpack the crates)", registry.display()))
        .map(|e| e.unwrap().path().join(format!("{name}-{version}")))
        .find(|p| p.is_dir());
    found.unwrap_or_else(|| panic!("{name}-{version} is not unpacked under {} (run `cargo fetch`)", registry.display()))
}

/// Source code gets its own default size (400 characters): Rust from four
/// crates of other projects, file by file as a user would lint them, has
/// under 2 % of its chunks flagged and at most 0.5 % over the model's input. At the
/// prose default (700) a third were over.
#[test]
fn rust_from_other_projects_stays_under_two_percent() {
    let (mut chunks, mut flagged, mut over) = (0, 0, Vec::new());
    for name in ["regex-syntax", "serde", "clap_builder", "ratatui"] {
        let rs = files_under(&crate_source(name)).into_iter().filter(|p| p.extension().is_some_and(|e| e == "rs"));
        for file in rs.filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 2000)).take(15) {
            let (count, found) = lint_counts(&file);
            chunks += count;
            flagged += found.iter().map(|(_, n)| n).sum::<u64>();
            over.extend(found.into_iter().filter(|(rule, _)| rule == "over-model-limit").map(|f| (file.clone(), f)));
        }
    }
    assert!(chunks > 1000, "only {chunks} chunks, too few to judge");
    assert!(flagged * 50 <= chunks, "{flagged} findings in {chunks} chunks (over 2 %)");
    assert!(over.len() * 200 <= chunks as usize, "over the model's input: {over:?}");
}

#[test]
fn english_prose_stays_under_two_percent() {
    assert_at_most_2_percent("War and Peace", &common::corpus_file("en_war_and_peace.txt"));
}

/// The Chinese book's prose paragraphs (no code, headings, lists or
/// tables): ordinary Chinese text, which the defaults cut at 240 characters.
#[test]
fn chinese_prose_stays_under_two_percent() {
    let book = common::read_corpus("zh_rust_book.md");
    let mut prose = String::new();
    let mut in_fence = false;
    for block in book.split("\n\n") {
        let fences = block.lines().filter(|l| l.trim_start().starts_with("```")).count();
        let was_in_fence = in_fence;
        in_fence ^= fences % 2 == 1;
        if was_in_fence || fences > 0 {
            continue;
        }
        let t = block.trim();
        let cjk = t.chars().filter(|&c| chunktui::segment::is_cjk(c)).count();
        if t.starts_with(['#', '|', '-', '*', '>', '<', '[', '!']) || cjk * 2 < t.chars().count() {
            continue;
        }
        prose.push_str(t);
        prose.push_str("\n\n");
    }
    assert!(prose.chars().count() > 50_000, "too little prose found: {}", prose.len());
    let d = Dir::new();
    let file = d.write("zh_prose.txt", prose.as_bytes());
    assert_at_most_2_percent("Chinese prose", Path::new(&file));
}

/// A changelog in the shape many projects keep: a setext title, a setext
/// heading per version and ATX sections under it.
#[test]
fn a_changelog_with_setext_headings_stays_under_two_percent() {
    let words = ["fix", "crash", "when", "parsing", "nested", "tables", "add", "support", "for", "unicode", "headings"];
    let mut seed = 7u64;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let mut log = String::from("Changelog\n=========\n\nAll notable changes to this project are listed here.\n");
    for v in (1..=60).rev() {
        log.push_str(&format!("\n{}.{}.0 (2026-{:02}-01)\n{}\n", v / 10, v % 10, v % 12 + 1, "-".repeat(20)));
        for section in ["Added", "Fixed", "Changed"].iter().take(1 + next(3) as usize) {
            log.push_str(&format!("\n### {section}\n\n"));
            for _ in 0..1 + next(6) {
                let item: Vec<&str> = (0..6 + next(24)).map(|_| words[next(words.len() as u64) as usize]).collect();
                log.push_str(&format!("- {} (#{}).\n", item.join(" "), 100 + next(900)));
            }
        }
    }
    let d = Dir::new();
    let file = d.write("CHANGELOG.md", log.as_bytes());
    assert_at_most_2_percent("changelog", Path::new(&file));
}

/// A changelog dense in flags, URLs, issue numbers and hashes: 700
/// characters of it run to ~300 of MiniLM's word pieces. With no size
/// given, the default is fitted under the model's limit in its own tokens;
/// prose keeps its 700.
#[test]
fn a_dense_changelog_gets_a_default_that_fits_the_model() {
    let dir = Dir::new();
    let mut text = String::from("Changelog\n=========\n\n");
    for v in 0..30u64 {
        text.push_str(&format!("v1.{v}.0\n------\n\n"));
        for i in 0..8u64 {
            let n = 1000 + v * 37 + i * 11;
            text.push_str(&format!(
                "* [BUG #{n}](https://github.com/example/tool/issues/{n}): fix `--max-columns-preview` with \
                 `TOOL_CONFIG_PATH=~/.toolrc` on x86_64-unknown-linux-musl (0x{:08x}).\n",
                n * 2_654_435_761 % (1 << 32)
            ));
        }
        text.push('\n');
    }
    let file = dir.path("CHANGELOG.md");
    std::fs::write(&file, &text).unwrap();
    let size = |file: &Path| -> u64 {
        let out = Command::new(BIN).arg("stats").arg(file).arg("--json").output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["size"].as_u64().unwrap()
    };
    let (chunks, found) = lint_counts(&file);
    assert!(chunks > 50, "{chunks} chunks");
    assert!(!found.iter().any(|(rule, _)| rule == "over-model-limit"), "{found:?}");
    assert!(size(&file) < 700, "the default shrank for dense text");
    let guide = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/guide.md");
    assert_eq!(size(&guide), 700, "prose keeps its default");
}
