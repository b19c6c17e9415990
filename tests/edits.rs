//! Hand-made boundaries: a cut starts a chunk exactly at its spot and a
//! join removes the boundary there, under any size; both follow their text
//! when a paragraph is inserted above; an edit whose text is deleted is
//! reported stale by `chunk` and `lint` and moves nothing else; bad edit
//! lists are one clear line.

mod common;

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::edits::{Edit, EditOp};
use chunktui::{Chunk, Chunker};
use std::process::{Command, Output};

fn cut(text: &str, strategy: StrategyKind, size: usize, edits: &[Edit]) -> Vec<Chunk> {
    let overlap = if strategy.spec().uses_overlap() { size / 10 } else { 0 };
    let mut config = ChunkConfig { strategy, unit: Unit::Chars, size, overlap, ..ChunkConfig::default() };
    config.edits = edits.to_vec();
    Chunker::new(&config).unwrap().chunk(text).unwrap()
}

fn starts(chunks: &[Chunk]) -> Vec<usize> {
    chunks.iter().map(|c| c.range.start).collect()
}

/// A spot inside chunk `k` that is no boundary of the plain cut: the first
/// character after the chunk's middle that starts a word or a CJK character.
fn spot_inside(text: &str, chunks: &[Chunk], k: usize) -> usize {
    let r = &chunks[k].range;
    let mid = chunktui::size::floor_char_boundary(text, (r.start + r.end) / 2);
    let (i, _) = text[mid..r.end]
        .char_indices()
        .find(|&(i, ch)| {
            !ch.is_whitespace() && (i == 0 || text[..mid + i].ends_with(char::is_whitespace) || ch as u32 > 0x2e80)
        })
        .expect("a word in the chunk's second half");
    mid + i
}

fn corpus_texts() -> Vec<(&'static str, String)> {
    ["en_rust_book.md", "zh_rust_book.md"]
        .into_iter()
        .map(|name| {
            let text = common::read_corpus(name);
            let end = chunktui::size::floor_char_boundary(&text, 40_000);
            (name, text[..text[..end].rfind("\n\n").unwrap_or(end)].to_string())
        })
        .collect()
}

#[test]
fn cuts_and_joins_hold_at_two_sizes_and_follow_an_insert_above() {
    for (name, text) in corpus_texts() {
        for strategy in [StrategyKind::Recursive, StrategyKind::Sentence, StrategyKind::Markdown] {
            for size in [300, 900] {
                let plain = cut(&text, strategy, size, &[]);
                assert!(plain.len() > 8, "{name}: too few chunks");
                let k = plain.len() / 3;
                let cut_at = spot_inside(&text, &plain, k);
                let join_at = plain[k + 3].range.start;
                let edits = [Edit::at(EditOp::Cut, &text, cut_at), Edit::at(EditOp::Join, &text, join_at)];
                let what = format!("{name} {strategy} {size}");
                let edited = cut(&text, strategy, size, &edits);
                assert!(starts(&edited).contains(&cut_at), "{what}: no chunk starts at the cut {cut_at}");
                assert!(!starts(&edited).contains(&join_at), "{what}: a chunk still starts at the join {join_at}");
                for c in &edited {
                    assert!(text.get(c.range.clone()).is_some(), "{what}: {:?} is not a slice", c.range);
                }
                // A paragraph inserted above both: they hold at their moved place.
                let above = if name.starts_with("zh") {
                    "新插入的一段文字，放在最前面。\n\n"
                } else {
                    "A paragraph inserted above.\n\n"
                };
                let moved = format!("{above}{text}");
                let shifted = cut(&moved, strategy, size, &edits);
                assert!(starts(&shifted).contains(&(cut_at + above.len())), "{what}: the cut did not follow");
                assert!(!starts(&shifted).contains(&(join_at + above.len())), "{what}: the join did not follow");
            }
        }
    }
}

fn chunktui(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chunktui")).args(args).output().expect("run chunktui")
}

fn toml_edits(edits: &[Edit]) -> String {
    let mut config = ChunkConfig { size: 400, overlap: 40, ..ChunkConfig::default() };
    config.edits = edits.to_vec();
    toml::to_string(&config).unwrap()
}

fn record_starts(out: &Output) -> Vec<u64> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["start"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_deleted_cut_is_stale_in_chunk_and_lint_and_nothing_else_moves() {
    let (_, text) = corpus_texts().remove(1);
    let plain = cut(&text, StrategyKind::Recursive, 400, &[]);
    let cut_at = spot_inside(&text, &plain, 4);
    let join_at = plain[12].range.start;
    let cut_edit = Edit::at(EditOp::Cut, &text, cut_at);
    let join_edit = Edit::at(EditOp::Join, &text, join_at);
    // The cut's text deleted (its sentence and around it).
    let from = chunktui::size::floor_char_boundary(&text, cut_at - 30);
    let to = chunktui::size::floor_char_boundary(&text, cut_at + 30);
    let changed = format!("{}{}", &text[..from], &text[to..]);
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("book.md");
    std::fs::write(&doc, &changed).unwrap();
    let both = dir.path().join("both.toml");
    std::fs::write(&both, toml_edits(&[cut_edit.clone(), join_edit.clone()])).unwrap();
    let join_only = dir.path().join("join.toml");
    std::fs::write(&join_only, toml_edits(&[join_edit])).unwrap();
    let (doc, both, join_only) = (doc.to_str().unwrap(), both.to_str().unwrap(), join_only.to_str().unwrap());

    let out = chunktui(&["chunk", doc, "-c", both]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("1 stale edit") && err.contains("edit 1: cut") && err.contains("its text is gone"), "{err}");
    let with_join = chunktui(&["chunk", doc, "-c", join_only]);
    assert_eq!(record_starts(&out), record_starts(&with_join), "the stale cut moved nothing");
    let moved_join = (join_at - (to - from)) as u64;
    assert!(!record_starts(&out).contains(&moved_join), "the join still holds");

    let lint = chunktui(&["lint", doc, "-c", both]);
    let found = String::from_utf8_lossy(&lint.stdout);
    assert_eq!(lint.status.code(), Some(1), "{found}");
    assert!(found.lines().any(|l| l.contains("stale-edit") && l.contains("edit 1 cut")), "{found}");
}

#[test]
fn bad_edit_lists_are_one_clear_line_each() {
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("d.md");
    std::fs::write(&doc, "One. Two. Three.\n").unwrap();
    let long = "x".repeat(65);
    let cases = [
        ("[[edits]]\nop = \"cut\"\nbefore = \"\"\nafter = \"\"\n", "both empty"),
        (&format!("[[edits]]\nop = \"cut\"\nbefore = \"{long}\"\nafter = \"y\"\n") as &str, "at most 64"),
        (
            "[[edits]]\nop = \"cut\"\nbefore = \"One. \"\nafter = \"Two\"\n[[edits]]\nop = \"join\"\nbefore = \"One. \"\nafter = \"Two\"\n",
            "same spot",
        ),
        ("[[edits]]\nop = \"split\"\nbefore = \"a\"\nafter = \"b\"\n", "unknown variant `split`"),
    ];
    for (i, (edits, expected)) in cases.iter().enumerate() {
        let cfg = dir.path().join(format!("c{i}.toml"));
        std::fs::write(&cfg, edits).unwrap();
        let out = chunktui(&["chunk", doc.to_str().unwrap(), "-c", cfg.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{edits}: {err}");
        assert!(err.contains(expected) && !err.contains("panicked"), "{edits}: {err}");
    }
    // 100,000 edits: refused by count, quickly.
    let many: String =
        (0..100_000).map(|i| format!("[[edits]]\nop = \"cut\"\nbefore = \"a{i}\"\nafter = \"b\"\n")).collect();
    let cfg = dir.path().join("many.toml");
    std::fs::write(&cfg, many).unwrap();
    let out = chunktui(&["chunk", doc.to_str().unwrap(), "-c", cfg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("over the 1 MiB limit for a config file"));
    // With the config limit raised, by their count.
    let out = Command::new(env!("CARGO_BIN_EXE_chunktui"))
        .args(["chunk", doc.to_str().unwrap(), "-c", cfg.to_str().unwrap()])
        .env("CHUNKTUI_MAX_CONFIG_MB", "16")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("100000 edits") && err.contains("at most 10000") && err.trim().lines().count() == 1, "{err}");
}

#[test]
fn an_exported_config_keeps_every_edit_stale_ones_too() {
    let text = "First part. Second part.\n\nThird part here.\n";
    let edits = [
        Edit::at(EditOp::Cut, text, text.find("Second").unwrap()),
        Edit { op: EditOp::Join, before: "gone".into(), after: "text".into(), near: None, file: None },
    ];
    let mut config = ChunkConfig { size: 100, overlap: 0, ..ChunkConfig::default() };
    config.edits = edits.to_vec();
    let written = config.to_toml();
    let back = ChunkConfig::parse(&written, false).unwrap();
    assert_eq!(back.edits, edits, "{written}");
    let chunks = Chunker::new(&back).unwrap().chunk(text).unwrap();
    assert!(starts(&chunks).contains(&text.find("Second").unwrap()));
}

#[test]
fn diff_says_which_boundaries_are_hand_made() {
    let (_, text) = corpus_texts().remove(0);
    let plain = cut(&text, StrategyKind::Recursive, 400, &[]);
    let cut_at = spot_inside(&text, &plain, 3);
    let join_at = plain[7].range.start;
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("book.md");
    std::fs::write(&doc, &text).unwrap();
    let a = dir.path().join("a.toml");
    std::fs::write(&a, toml_edits(&[])).unwrap();
    let b = dir.path().join("b.toml");
    std::fs::write(&b, toml_edits(&[Edit::at(EditOp::Cut, &text, cut_at), Edit::at(EditOp::Join, &text, join_at)]))
        .unwrap();
    let out = chunktui(&["diff", a.to_str().unwrap(), b.to_str().unwrap(), doc.to_str().unwrap(), "--all"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("(cut by hand in B)") && said.contains("(joined by hand in B)"), "{said}");
}

/// The workbench shows the chunks on screen first: with edits, the
/// stretches between cuts around the screen, cut alone, must be exactly the
/// whole cut's chunks there.
#[test]
fn the_stretches_around_a_screen_give_the_whole_cuts_chunks() {
    use chunktui::embedding::Control;
    use chunktui::strategy::Configured;
    for (name, text) in corpus_texts() {
        for strategy in [StrategyKind::Recursive, StrategyKind::Sentence, StrategyKind::Fixed] {
            let plain = cut(&text, strategy, 300, &[]);
            let mut edits = Vec::new();
            for k in (2..plain.len() - 2).step_by(5) {
                edits.push(Edit::at(EditOp::Cut, &text, spot_inside(&text, &plain, k)));
                edits.push(Edit::at(EditOp::Join, &text, plain[k + 2].range.start));
            }
            let overlap = if strategy.spec().uses_overlap() { 30 } else { 0 };
            let mut config = ChunkConfig { strategy, unit: Unit::Chars, size: 300, overlap, ..ChunkConfig::default() };
            config.edits = edits;
            let configured = Configured::new(&config).unwrap();
            let whole = configured.chunk_in_file(&text, None, None, None, Control::none()).unwrap();
            let mut found = 0;
            for at in (text.len() / 3..text.len()).step_by(text.len() / 7) {
                let at = chunktui::size::floor_char_boundary(&text, at);
                let screen = at..chunktui::size::floor_char_boundary(&text, (at + 2000).min(text.len()));
                let Some(region) = configured.region_around(&text, None, screen.clone()) else { continue };
                found += 1;
                assert!(region.start <= screen.start && screen.end <= region.end, "{name} {strategy}: {region:?}");
                let got = configured.chunk_region(&text, region.clone(), Control::none()).unwrap();
                let expected: Vec<_> = whole.iter().filter(|c| region.contains(&c.range.start)).cloned().collect();
                assert_eq!(got, expected, "{name} {strategy}: region {region:?}");
            }
            assert!(found > 0, "{name} {strategy}: no screen had a region");
        }
    }
}
