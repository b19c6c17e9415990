//! Chunk lint: each rule on small hand-made texts (English and Chinese),
//! where it must fire and where it must not; switching rules off; real
//! documents of the corpus (counts only, never their text).

mod common;

use chunktui::chunk::{Chunk, EmbedText};
use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::document::DocKind;
use chunktui::lint::{lint, LintOptions, Rule, RULES};
use chunktui::Chunker;

/// Chunks over `ranges` of `text`, sized in chars.
fn chunks(text: &str, ranges: &[std::ops::Range<usize>]) -> Vec<Chunk> {
    ranges.iter().map(|r| Chunk::new(r.clone(), text[r.clone()].chars().count())).collect()
}

/// The chunks cut at the given substrings' ends: `cuts` are texts each
/// chunk ends with (the last chunk runs to the end).
fn cut_after(text: &str, cuts: &[&str]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for c in cuts {
        let end = start + text[start..].find(c).unwrap_or_else(|| panic!("{c:?} not in the text")) + c.len();
        out.push(start..end);
        start = end;
    }
    out.push(start..text.len());
    out
}

fn config(size: usize) -> ChunkConfig {
    ChunkConfig { size, overlap: 0, ..ChunkConfig::default() }
}

fn run(text: &str, kind: DocKind, cfg: &ChunkConfig, chunks: &[Chunk]) -> Vec<(Rule, usize, usize)> {
    let opts = LintOptions::new(cfg, kind).expect("lint options");
    lint(text, chunks, &opts).into_iter().map(|f| (f.rule, f.chunk, f.at)).collect()
}

fn of(found: &[(Rule, usize, usize)], rule: Rule) -> Vec<(usize, usize)> {
    found.iter().filter(|f| f.0 == rule).map(|f| (f.1, f.2)).collect()
}

const EN: &str = "The first sentence is here. The second one follows it closely and runs on for a while. \
                  Then a third sentence ends the paragraph.";

#[test]
fn mid_sentence_fires_when_a_sentence_end_was_close() {
    // Chunk 0 ends 3 words after "closely and runs on for a while." — well within a fifth of it.
    let ranges = cut_after(EN, &["Then a third"]);
    let found = run(EN, DocKind::Text, &config(200), &chunks(EN, &ranges));
    let at = ranges[0].end;
    assert_eq!(of(&found, Rule::MidSentence), [(0, at)], "{found:?}");
}

#[test]
fn mid_sentence_is_quiet_at_sentence_ends_and_when_no_boundary_was_in_reach() {
    // At a sentence end: nothing.
    let ranges = cut_after(EN, &["for a while."]);
    assert!(of(&run(EN, DocKind::Text, &config(200), &chunks(EN, &ranges)), Rule::MidSentence).is_empty());
    // Inside the second sentence, far from both of its ends (more than a fifth of either chunk).
    let ranges = cut_after(EN, &["follows it"]);
    let found = run(EN, DocKind::Text, &config(200), &chunks(EN, &ranges));
    assert!(of(&found, Rule::MidSentence).is_empty(), "{found:?}");
    // One long sentence cut in two: no better cut existed.
    let long = "This single sentence goes on and on without any stop at all until the very end of it.";
    let ranges = cut_after(long, &["without any"]);
    assert!(of(&run(long, DocKind::Text, &config(50), &chunks(long, &ranges)), Rule::MidSentence).is_empty());
}

#[test]
fn mid_sentence_judges_the_start_of_an_overlapping_chunk() {
    // Chunk 1 starts two words before the end of the second sentence (an overlap).
    let first = 0..EN.find("Then").unwrap();
    let start = EN.find("a while.").unwrap();
    let ranges = [first, start..EN.len()];
    let found = run(EN, DocKind::Text, &config(200), &chunks(EN, &ranges));
    assert_eq!(of(&found, Rule::MidSentence), [(1, start)], "{found:?}");
}

#[test]
fn mid_sentence_reads_chinese_terminators() {
    let zh = "我们一起学习Rust编程语言。它很快而且安全，适合系统编程！真的吗？是的。";
    // Cut right after 。 and ！: sentence ends, nothing to report.
    let ranges = cut_after(zh, &["。", "！"]);
    assert!(of(&run(zh, DocKind::Text, &config(40), &chunks(zh, &ranges)), Rule::MidSentence).is_empty());
    // Cut three characters into the next sentence, right after 。.
    let ranges = cut_after(zh, &["。它很快"]);
    let found = run(zh, DocKind::Text, &config(40), &chunks(zh, &ranges));
    assert_eq!(of(&found, Rule::MidSentence), [(0, ranges[0].end)], "{found:?}");
    assert!(of(&run(zh, DocKind::Code, &config(40), &chunks(zh, &ranges)), Rule::MidSentence).is_empty());
}

const MD: &str = "# Guide\n\nSome intro text.\n\n## Install\n\nRun this:\n\n```sh\ncargo install x\ncargo run\n```\n\n\
                  | a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n## Use\n\nThe end.\n";

#[test]
fn split_fence_and_split_table_fire_when_the_block_would_fit() {
    let ranges = cut_after(MD, &["cargo install x\n", "| 1 | 2 |\n"]);
    let found = run(MD, DocKind::Markdown, &config(200), &chunks(MD, &ranges));
    assert_eq!(of(&found, Rule::SplitFence), [(0, ranges[0].end - 1), (1, ranges[1].start)], "{found:?}");
    assert_eq!(of(&found, Rule::SplitTable), [(1, ranges[1].end - 1), (2, ranges[2].start)], "{found:?}");
    // Blocks held whole: nothing.
    let ranges = cut_after(MD, &["Run this:\n", "| 3 | 4 |\n"]);
    let found = run(MD, DocKind::Markdown, &config(200), &chunks(MD, &ranges));
    assert!(of(&found, Rule::SplitFence).is_empty() && of(&found, Rule::SplitTable).is_empty(), "{found:?}");
    // A fence bigger than the size cannot be whole: not flagged.
    let ranges = cut_after(MD, &["cargo install x\n"]);
    let found = run(MD, DocKind::Markdown, &config(20), &chunks(MD, &ranges));
    assert!(of(&found, Rule::SplitFence).is_empty(), "{found:?}");
    // Plain text has no fences.
    let found = run(MD, DocKind::Text, &config(200), &chunks(MD, &cut_after(MD, &["cargo install x\n"])));
    assert!(of(&found, Rule::SplitFence).is_empty(), "{found:?}");
}

#[test]
fn orphan_heading_fires_on_a_heading_left_at_a_chunk_end() {
    let ranges = cut_after(MD, &["## Install\n"]);
    let found = run(MD, DocKind::Markdown, &config(200), &chunks(MD, &ranges));
    assert_eq!(of(&found, Rule::OrphanHeading), [(0, MD.find("## Install").unwrap())], "{found:?}");
    // With its text: nothing. A heading at the very end of the document: nothing.
    let ranges = cut_after(MD, &["Run this:\n"]);
    assert!(of(&run(MD, DocKind::Markdown, &config(200), &chunks(MD, &ranges)), Rule::OrphanHeading).is_empty());
    let tail = "Text first.\n\n## Last\n";
    assert!(of(&run(tail, DocKind::Markdown, &config(200), &chunks(tail, &[0..tail.len()])), Rule::OrphanHeading)
        .is_empty());
    // A `#` line inside a fence is not a heading (CommonMark).
    let fenced = "```\n# not a heading\n```\n\nMore text.\n";
    let ranges = cut_after(fenced, &["# not a heading"]);
    assert!(of(&run(fenced, DocKind::Markdown, &config(200), &chunks(fenced, &ranges)), Rule::OrphanHeading).is_empty());
}

#[test]
fn orphan_heading_reads_setext_and_chinese_headings() {
    let text = "指南\n====\n\n正文在这里。\n";
    let ranges = cut_after(text, &["===="]);
    let found = run(text, DocKind::Markdown, &config(50), &chunks(text, &ranges));
    assert_eq!(of(&found, Rule::OrphanHeading), [(0, 0)], "{found:?}");
}

#[test]
fn tiny_fragment_is_under_a_tenth_of_the_size() {
    let text = "0123456789abcdefghij";
    let cfg = config(100); // limit 10
    let found = run(text, DocKind::Text, &cfg, &chunks(text, &[0..9, 9..20]));
    assert_eq!(of(&found, Rule::TinyFragment), [(0, 0)], "9 < 10: {found:?}");
    let found = run(text, DocKind::Text, &cfg, &chunks(text, &[0..10, 10..20]));
    assert!(of(&found, Rule::TinyFragment).is_empty(), "10 is not under 10: {found:?}");
    // A whole document in one chunk is not a fragment.
    assert!(of(&run(text, DocKind::Text, &cfg, &chunks(text, &[0..3])), Rule::TinyFragment).is_empty());
    // Sizes under 10: the limit is 1, so only empty chunks are fragments.
    let found = run(text, DocKind::Text, &config(5), &[Chunk::new(0..5, 5), Chunk::new(5..5, 0)]);
    assert_eq!(of(&found, Rule::TinyFragment), [(1, 5)], "{found:?}");
}

#[test]
fn hierarchical_levels_are_linted_against_their_own_size() {
    let text = "x".repeat(400);
    let mut cfg = config(200);
    cfg.strategy = StrategyKind::Hierarchical;
    cfg.hierarchical.levels = vec![200, 50];
    let level = |r: std::ops::Range<usize>, l: u8| {
        let mut c = Chunk::new(r.clone(), r.len());
        c.meta.level = Some(l);
        c
    };
    // Level 0: 185 and 15 (15 < 20 flagged). Level 1: 15 (not under 5), 4 (flagged), 181.
    let cs = [level(0..185, 0), level(185..200, 0), level(0..15, 1), level(15..19, 1), level(19..200, 1)];
    let found = run(&text, DocKind::Text, &cfg, &cs);
    assert_eq!(of(&found, Rule::TinyFragment), [(3, 15), (1, 185)], "{found:?}");
}

#[test]
fn over_model_limit_counts_what_is_embedded() {
    let text = "one two three four five six seven eight";
    let mut cfg = config(100);
    cfg.lint.max_tokens = Some(8); // cl100k_base: 8 tokens for the whole text
    let found = run(text, DocKind::Text, &cfg, &chunks(text, &[0..text.len()]));
    assert!(of(&found, Rule::OverModelLimit).is_empty(), "{found:?}");
    cfg.lint.max_tokens = Some(7);
    let found = run(text, DocKind::Text, &cfg, &chunks(text, &[0..text.len()]));
    assert_eq!(of(&found, Rule::OverModelLimit), [(0, 0)], "{found:?}");
    // With embed text on, its context counts too.
    cfg.lint.max_tokens = Some(8);
    let mut c = chunks(text, &[0..text.len()]);
    c[0].meta.embed = Some(EmbedText { text: format!("Numbers\n\n{text}"), size: 0, tokens: 0 });
    assert_eq!(of(&run(text, DocKind::Text, &cfg, &c), Rule::OverModelLimit), [(0, 0)]);
    // The default limit is the default model's input, 256 (specials included).
    assert_eq!(LintOptions::new(&config(100), DocKind::Text).unwrap().max_tokens, 256);
}

/// Over-model-limit on a large text counts each chunk from the token tally's
/// parts (512 KB each, made on another thread, a chunk waiting only for the
/// parts it lies in): the findings and their counts must be those of
/// counting every chunk by itself, chunks across part boundaries included,
/// in English and Chinese, with lint windows of every size.
#[test]
fn over_model_limit_from_the_tally_equals_counting_each_chunk() {
    let read = |name: &str, bytes: usize| {
        let text = std::fs::read_to_string(common::corpus_file(name)).expect("corpus file");
        let cut = (0..=bytes.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        text[..cut].to_string()
    };
    let text = read("en_war_and_peace.txt", 1_100_000) + &read("zh_rust_book.md", 300_000);
    let mut cfg = ChunkConfig { size: 700, overlap: 150, ..ChunkConfig::default() };
    cfg.tokenizer = format!("hf:{}", common::minilm_tokenizer().display());
    // Low enough that nearly every chunk is a finding that states its count.
    cfg.lint.max_tokens = Some(40);
    let opts = LintOptions::new(&cfg, DocKind::Text).expect("lint options");
    assert!(opts.tokens.as_ref().is_some_and(|t| t.tokenizer.adds_up()), "MiniLM's counts add up");
    let chunks = Chunker::new(&cfg).expect("chunker").chunk(&text).expect("chunks");
    let each = chunktui::lint::lint_with(&text, &chunks, &opts, None);
    let over = each.iter().filter(|f| f.rule == Rule::OverModelLimit).count();
    assert!(over > 300, "only {over} chunks over the limit: the comparison would say little");
    for window in [2, 64, 1 << 20] {
        let streamed = chunktui::lint::with_tally(&text, &opts, |tally| {
            assert!(tally.is_some(), "a large text is tallied");
            let mut stream = chunktui::lint::LintStream::with_window(&text, &opts, tally, window);
            chunks.iter().cloned().for_each(|c| stream.push(c));
            stream.finish()
        });
        assert_eq!(streamed, each, "windows of {window} chunks");
    }
    assert_eq!(lint(&text, &chunks, &opts), each, "the whole list, from the tally");
}

#[test]
fn rules_switch_off_by_name_and_unknown_names_are_refused() {
    let ranges = cut_after(MD, &["## Install\n", "cargo install x\n"]);
    let mut cfg = config(200);
    let on = run(MD, DocKind::Markdown, &cfg, &chunks(MD, &ranges));
    assert!(!of(&on, Rule::OrphanHeading).is_empty() && !of(&on, Rule::SplitFence).is_empty(), "{on:?}");
    cfg.lint.off = vec!["orphan-heading".into(), "split-fence".into()];
    let off = run(MD, DocKind::Markdown, &cfg, &chunks(MD, &ranges));
    assert!(of(&off, Rule::OrphanHeading).is_empty() && of(&off, Rule::SplitFence).is_empty(), "{off:?}");
    let opts = LintOptions::new(&cfg, DocKind::Markdown).unwrap();
    assert!(!opts.rules.contains(&Rule::SplitFence) && opts.rules.contains(&Rule::SplitTable));
    // Text documents run the prose and size rules only.
    let text_rules = LintOptions::new(&config(200), DocKind::Text).unwrap().rules;
    assert_eq!(text_rules, [Rule::MidSentence, Rule::TinyFragment, Rule::OverModelLimit]);

    let toml = "version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 100\n\n[lint]\noff = [\"tiny\", \"split-fence\", \"nope\"]\n";
    let parsed = ChunkConfig::parse(toml, false).expect("parses");
    let msg = parsed.validate().unwrap_err().to_string();
    assert!(msg.contains("unknown rules 'tiny', 'nope'"), "{msg}");
    for r in RULES {
        assert!(msg.contains(r.name), "the message lists {}: {msg}", r.name);
    }
    let bad = ChunkConfig::parse(
        "version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 100\n[lint]\nmax_tokens = 0\n",
        false,
    );
    assert!(bad.unwrap().validate().unwrap_err().to_string().contains("lint.max_tokens must be at least 1"));
}

/// Counts per rule of real documents, for a few strategies: what the
/// snapshot pins (the corpus text itself is never stored).
#[test]
fn corpus_counts() {
    let mut out = String::new();
    for (file, kind) in [
        ("en_ripgrep_guide_faq.md", DocKind::Markdown),
        ("zh_rust_book.md", DocKind::Markdown),
        ("en_war_and_peace.txt", DocKind::Text),
    ] {
        let text = common::read_corpus(file);
        let text = &text[..chunktui::size::floor_char_boundary(&text, 200_000)];
        for (strategy, unit, size) in [
            (StrategyKind::Recursive, Unit::Chars, 1000),
            (StrategyKind::Fixed, Unit::Chars, 500),
            (StrategyKind::Sentence, Unit::Tokens, 200),
            (StrategyKind::Markdown, Unit::Chars, 800),
        ] {
            let cfg = ChunkConfig { strategy, unit, size, overlap: size / 10, ..ChunkConfig::default() };
            let chunks = Chunker::new(&cfg).unwrap().chunk(text).unwrap();
            let opts = LintOptions::new(&cfg, kind).unwrap();
            let found = lint(text, &chunks, &opts);
            let counts: Vec<String> =
                chunktui::lint::counts(&found, &opts).iter().map(|(r, n)| format!("{r} {n}")).collect();
            out.push_str(&format!("{file} {strategy} {size} {unit}: {}\n", counts.join(", ")));
        }
    }
    insta::assert_snapshot!(out);
}
