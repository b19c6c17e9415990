//! `hierarchical`: every child inside its parent, each level within its own
//! size, ids stable across runs (and threads) and unique, parent ids that
//! exist, every level covering the text; with each base strategy, in each
//! unit, on English and Chinese text. The per-level rules live in
//! tests/common/hierarchy.rs (the flat invariants of the other strategies
//! do not hold for nested output); tests/invariants.rs runs them on the whole
//! corpus with the default levels, this file with explicit ones.

mod common;

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::{Chunk, Chunker};
use common::{read_corpus, run_and_check, windows, Checker};
use std::process::Command;

fn hier(unit: Unit, levels: &[usize], overlap: usize, base: StrategyKind) -> ChunkConfig {
    let mut c = ChunkConfig { strategy: StrategyKind::Hierarchical, unit, overlap, ..Default::default() };
    c.hierarchical.levels = levels.to_vec();
    c.hierarchical.base = base;
    c
}

/// Every base that needs no model (read from the table).
fn bases() -> Vec<StrategyKind> {
    common::non_model().into_iter().filter(|&k| k != StrategyKind::Hierarchical).collect()
}

fn sample(name: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(name)).unwrap()
}

#[test]
fn every_base_nests_within_sizes_on_english_and_chinese() {
    let en = read_corpus("en_rust_book.md");
    let zh = read_corpus("zh_rust_book.md");
    let texts = [
        ("en_rust_book", windows(&en, 12_000, 3)[1].1.to_string()),
        ("zh_rust_book", windows(&zh, 12_000, 3)[1].1.to_string()),
        ("changelog.md", sample("changelog.md")),
        ("zh-article.md", sample("zh-article.md")),
    ];
    let mut failures = Vec::new();
    for (name, text) in &texts {
        for (unit, levels, overlap) in [
            (Unit::Chars, &[1200, 300, 60][..], 100),
            (Unit::Words, &[200, 40][..], 0),
            (Unit::Tokens, &[300, 64, 16][..], 20),
        ] {
            let checker = Checker::new(text, unit);
            for base in bases() {
                if !common::runs_in(base, unit) {
                    continue;
                }
                let cfg = hier(unit, levels, overlap, base);
                match run_and_check(&checker, &cfg) {
                    Ok(Some(chunks)) => {
                        let deepest = chunks.iter().filter_map(|c| c.meta.level).max();
                        if !text.trim().is_empty() && deepest.is_none() {
                            failures.push(format!("{name} {base} {unit}: no chunks"));
                        }
                    }
                    Ok(None) => {}
                    Err(e) => failures.push(format!("{name} base {base}: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn levels_are_really_filled_and_level_zero_is_the_base_cut() {
    let text = read_corpus("en_rust_book.md");
    let text = windows(&text, 20_000, 3)[1].1;
    let cfg = hier(Unit::Chars, &[2000, 500, 120], 50, StrategyKind::Recursive);
    let chunks = Chunker::new(&cfg).unwrap().chunk(text).unwrap();
    let count = |l: u8| chunks.iter().filter(|c| c.meta.level == Some(l)).count();
    assert!(count(0) >= 10 && count(1) > count(0) && count(2) > count(1), "{} {} {}", count(0), count(1), count(2));
    // Level 0 is recursive at 2000/50 on the whole text.
    let flat = ChunkConfig { strategy: StrategyKind::Recursive, size: 2000, overlap: 50, ..Default::default() };
    let flat: Vec<_> = Chunker::new(&flat).unwrap().chunk(text).unwrap().into_iter().map(|c| c.range).collect();
    let top: Vec<_> = chunks.iter().filter(|c| c.meta.level == Some(0)).map(|c| c.range.clone()).collect();
    assert_eq!(top, flat);
}

fn ids(chunks: &[Chunk]) -> Vec<(Option<String>, Option<String>, std::ops::Range<usize>)> {
    chunks.iter().map(|c| (c.meta.id.clone(), c.meta.parent_id.clone(), c.range.clone())).collect()
}

#[test]
fn ids_are_stable_across_runs_and_threads_and_unique() {
    let text = sample("zh-article.md") + &sample("changelog.md");
    let cfg = hier(Unit::Tokens, &[200, 50, 12], 10, StrategyKind::Markdown);
    let first = ids(&Chunker::new(&cfg).unwrap().chunk(&text).unwrap());
    let again = ids(&Chunker::new(&cfg).unwrap().chunk(&text).unwrap());
    assert_eq!(first, again);
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (cfg, text) = (cfg.clone(), text.clone());
            std::thread::spawn(move || ids(&Chunker::new(&cfg).unwrap().chunk(&text).unwrap()))
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), first);
    }
    let mut unique: Vec<_> = first.iter().map(|(id, _, _)| id.clone().unwrap()).collect();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), first.len());
    // The same places with other text (same length) give other ids there.
    let edited = text.replace("lantern", "lampion");
    let cfg = hier(Unit::Chars, &[800, 200, 50], 40, StrategyKind::Markdown);
    let first = ids(&Chunker::new(&cfg).unwrap().chunk(&text).unwrap());
    let other = ids(&Chunker::new(&cfg).unwrap().chunk(&edited).unwrap());
    let changed = |r: &std::ops::Range<usize>| text[r.clone()] != edited[r.clone()];
    for ((id, _, r), (id2, _, r2)) in first.iter().zip(&other).filter(|(a, _)| changed(&a.2)) {
        assert_eq!(r, r2);
        assert_ne!(id, id2, "{r:?}");
    }
    assert!(first.iter().any(|(_, _, r)| changed(r)));
}

/// A way to break a hierarchy.
type Breaker = dyn Fn(&mut Vec<Chunk>);

/// The checker is not vacuous: broken hierarchies are caught.
#[test]
fn the_checker_catches_broken_hierarchies() {
    let text = sample("changelog.md");
    let cfg = hier(Unit::Chars, &[400, 100], 0, StrategyKind::Recursive);
    let checker = Checker::new(&text, Unit::Chars);
    let good = Chunker::new(&cfg).unwrap().chunk(&text).unwrap();
    checker.check(&cfg, &good).unwrap();
    let child = good.iter().position(|c| c.meta.level == Some(1)).unwrap();
    // A level-0 chunk that does not hold the child.
    let stranger = good
        .iter()
        .find(|c| c.meta.level == Some(0) && c.range.start >= good[child].range.end)
        .and_then(|c| c.meta.id.clone());
    let breakers: [(&str, Box<Breaker>); 5] = [
        ("not inside", Box::new(move |v| v[child].meta.parent_id = stranger.clone())),
        ("given twice", Box::new(move |v| v[child].meta.id = v[0].meta.id.clone())),
        ("not in the output", Box::new(move |v| v[child].meta.parent_id = Some("nope".into()))),
        ("no id", Box::new(move |v| v[child].meta.id = None)),
        ("non-whitespace chars in no chunk", Box::new(|v| v.retain(|c| c.meta.level != Some(1) || c.range.start > 0))),
    ];
    for (what, breaker) in breakers {
        let mut bad = good.clone();
        breaker(&mut bad);
        for c in &mut bad {
            c.size = checker.index.size(c.range.clone());
        }
        let err = checker.check(&cfg, &bad).expect_err(what);
        assert!(err.contains(what), "{what}: {err}");
    }
}

#[test]
fn bad_levels_and_bases_are_refused_with_one_line() {
    let doc = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/changelog.md");
    let doc = doc.to_str().unwrap();
    for (args, needle) in [
        (&["--levels", "128,512"][..], "each smaller than the one before, like 2048,512,128, not 128,512"),
        (&["--levels", "512,0"][..], "must all be at least 1"),
        (&["--levels", "big"][..], "--levels takes whole numbers"),
        (&["--base", "semantic"][..], "hierarchical.base (--base) cannot be 'semantic'"),
        (&["--base", "hierarchical"][..], "cannot be 'hierarchical'"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_chunktui"))
            .args(["chunk", doc, "--strategy", "hierarchical"])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn jsonl_carries_level_id_and_parent_id() {
    let doc = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/changelog.md");
    let out = Command::new(env!("CARGO_BIN_EXE_chunktui"))
        .args(["chunk", doc.to_str().unwrap(), "-s", "hierarchical", "--levels", "600,150", "--base", "markdown"])
        .args(["--format", "jsonl"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let recs: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let top: Vec<_> = recs.iter().filter(|r| r["meta"]["level"] == 0).collect();
    assert!(!top.is_empty() && top.len() < recs.len());
    for r in &recs {
        assert!(r["meta"]["id"].is_string(), "{r}");
        assert_eq!(r["meta"]["parent_id"].is_null(), r["meta"]["level"] == 0, "{r}");
        assert!(r["size"].as_u64().unwrap() <= if r["meta"]["level"] == 0 { 600 } else { 150 }, "{r}");
    }
    // Markdown as the base: children keep the heading path of the whole document.
    assert!(recs.iter().any(|r| r["meta"]["level"] == 1 && r["meta"]["headings"][0] == "Changelog"), "{recs:?}");
}

/// Deep in a text, the screen's chunks come early while the top-level
/// chunks held for them stay few (262,144); past that, tiny chunks in a
/// huge text, they come with the stream as before. Either way the pass
/// hands over the whole cut.
#[test]
fn the_screen_comes_early_unless_that_holds_too_many_top_chunks() {
    let text = "ab cd\n".repeat(100_000); // 200,000 top-level chunks of "ab" and "cd" at size 2
    let cfg = hier(Unit::Chars, &[2, 1], 0, StrategyKind::Recursive);
    let chunker = Chunker::new(&cfg).unwrap();
    let whole = chunker.chunk(&text).unwrap();
    let tops = whole.iter().filter(|c| c.meta.level == Some(0)).count();
    assert_eq!(tops, 200_000, "the text is cut as the test assumes");
    let pass = |text: &str, at: usize| {
        let (mut early, mut streamed) = (None, Vec::new());
        let screen = at..at + 40;
        chunker
            .chunk_each_around_in(
                text,
                None,
                chunktui::embedding::Control::none(),
                screen,
                &mut |e| early = Some(e),
                &mut |c| streamed.push(c),
            )
            .unwrap();
        (early, streamed)
    };
    let (early, streamed) = pass(&text, text.len() / 2);
    assert_eq!(streamed, whole);
    let early = early.expect("100,000 top chunks before the screen are held for it");
    assert!(!early.is_empty() && early.iter().all(|c| c.range.end > text.len() / 2 - 40));
    let bigger = text.repeat(3); // 600,000 top chunks; the screen past the first 262,144
    let (early, streamed) = pass(&bigger, bigger.len() / 2);
    assert!(early.is_none(), "{} chunks handed over early past the limit", early.map_or(0, |e| e.len()));
    assert_eq!(streamed, chunker.chunk(&bigger).unwrap());
}

/// A fixed base cuts a parent's children from the whole text's tokens, not
/// from the parent's text tokenized again: "    SnhA" is `   `, ` Sn`, `h`,
/// `A` in cl100k, and the parent `SnhA` read alone is other tokens, whose
/// windows measured with the whole text's came out as `Snh`, `nh`, `hA`
/// (siblings sharing 2 tokens where the level's overlap is 1). Found by the
/// property test.
#[test]
fn a_fixed_base_cuts_children_from_the_whole_texts_tokens() {
    let text = "    SnhA";
    let mut config = hier(Unit::Tokens, &[8, 2], 4, StrategyKind::Fixed);
    config.normalize();
    let chunks = run_and_check(&Checker::new(text, Unit::Tokens), &config).unwrap().expect("hierarchical is ours");
    let children: Vec<&str> =
        chunks.iter().filter(|c| c.meta.level == Some(1)).map(|c| &text[c.range.clone()]).collect();
    assert_eq!(children, ["Snh", "hA"]);
}
