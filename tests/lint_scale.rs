//! Chunk lint is linear in the chunks: on documents with many chunks inside
//! one big block (a table of many rows, a one-row table of many columns, a
//! sentence without end) every rule measures the block once, not once per
//! chunk. The inputs are big enough that a path doing work proportional to
//! the block for each chunk would take minutes (they did: a 31 MB table did
//! not lint in 60 s), while a linear lint takes about a second (the chunking before it is not
//! timed). No timing
//! assert: each lint gets a generous deadline.

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::DocKind;
use chunktui::lint::{lint, LintOptions, Rule};
use chunktui::Chunker;
use std::sync::mpsc;
use std::time::Duration;

/// Far above what a linear lint of these inputs takes, even in a debug build
/// on a busy machine; far below what a quadratic one would.
const DEADLINE: Duration = Duration::from_secs(60);

/// Chunk `text` with `config`, then lint it (over-model-limit off: it counts
/// model tokens, which is linear but slow in a debug build) within [`DEADLINE`].
fn lint_within_deadline(text: String, kind: DocKind, mut config: ChunkConfig) -> Vec<(Rule, usize)> {
    config.lint.off = vec!["over-model-limit".into()];
    let chunks = Chunker::new(&config).expect("chunker").chunk(&text).expect("chunks");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let opts = LintOptions::new(&config, kind).expect("lint options");
        let found = lint(&text, &chunks, &opts);
        let _ = tx.send((chunks.len(), found.into_iter().map(|f| (f.rule, f.chunk)).collect::<Vec<_>>()));
    });
    let (n, found) = rx.recv_timeout(DEADLINE).unwrap_or_else(|_| panic!("lint did not finish in {DEADLINE:?}"));
    assert!(n > 1000, "the input is cut into many chunks ({n})");
    found
}

fn config(strategy: StrategyKind, size: usize) -> ChunkConfig {
    ChunkConfig { strategy, size, overlap: size / 5, ..ChunkConfig::default() }
}

#[test]
fn a_table_of_many_rows_lints_in_linear_time() {
    let mut t = String::from("| id | name | value | note |\n|---|---|---|---|\n");
    for i in 0..300_000 {
        t.push_str(&format!("| {i} | item {i} | {} | some note text |\n", i * 7));
    }
    let found = lint_within_deadline(t, DocKind::Markdown, config(StrategyKind::Recursive, 100));
    // The table is far over one chunk: splitting it is no finding.
    assert!(found.iter().all(|(r, _)| *r != Rule::SplitTable), "{:?}", &found[..found.len().min(5)]);
}

#[test]
fn a_one_row_table_of_many_columns_lints_in_linear_time_at_every_level() {
    let cols = 100_000;
    let mut t = String::with_capacity(cols * 8);
    for row in 0..3 {
        t.push('|');
        for c in 0..cols {
            t.push_str(if row == 1 {
                "---|"
            } else if c % 2 == 0 {
                " ab |"
            } else {
                " c |"
            });
        }
        t.push('\n');
    }
    let found = lint_within_deadline(t, DocKind::Markdown, config(StrategyKind::Hierarchical, 200));
    assert!(found.iter().all(|(r, _)| *r != Rule::SplitTable), "{:?}", &found[..found.len().min(5)]);
}

#[test]
fn a_sentence_without_end_over_many_chunks_lints_in_linear_time() {
    // One sentence before, then megabytes of words with no sentence end: every
    // cut lies inside the long sentence, whose start is far outside the chunk
    // (mid-sentence looks for the nearest boundary inside the chunk only).
    let mut t = String::from("A short opening sentence. ");
    for i in 0..400_000 {
        t.push_str(if i % 3 == 0 { "word, " } else { "word " });
    }
    let found = lint_within_deadline(t, DocKind::Text, config(StrategyKind::Recursive, 100));
    assert!(found.iter().all(|(r, _)| *r != Rule::MidSentence), "{:?}", &found[..found.len().min(5)]);
}
