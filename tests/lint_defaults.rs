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
    for entry in std::fs::read_dir(&samples).unwrap() {
        let path = entry.unwrap().path();
        // Documents only: the question file is not one.
        if !path.is_file() || path.extension().is_some_and(|e| e == "jsonl") {
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
    assert!(checked >= 5, "only {checked} samples checked");
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
