//! The LangChain splitters (character, recursive, token, markdown header)
//! and `code` with a tree-sitter grammar cut as they go: `chunk_each` hands
//! each chunk over as it is cut and placed, `chunk` is the list of what it
//! hands over, and neither `chunktui chunk` nor `chunktui stats` holds the
//! chunk list (where chunks go back, `stats` reads them in text order in
//! slices of 16-byte records, cutting again for each).
//!
//! - `chunk_each` hands over exactly the chunks `chunk` returns, on corpus
//!   documents and our code samples, in every unit and with the settings
//!   that make LangChain rewrite or misplace chunks.
//! - `streams()` (no list held *and* chunks in text order, which `stats`
//!   relies on) holds for `code`, the header splitter, and the character
//!   splitters when nothing can send a chunk before the one before it:
//!   `--overlap 0`, chars, separators kept. Where it holds, the chunks are in
//!   order and statistics and lint counted chunk by chunk equal those of the
//!   whole list. LangChain's placement does put chunks out of order with
//!   overlap, words or tokens, or a dropped separator: the corpus shows it.
//!   There, statistics and lint read in slices (`measure`) equal those of
//!   the whole list too, with all findings or only the first ones kept.
//! - Peak memory of `chunk` and `stats` at `--size 1` (a chunk per character
//!   or token) grows with the input, not with the chunk count (GNU time, as
//!   tests/limits.rs); for `code`, whose syntax tree is tree-sitter's and
//!   grows with the input anyway, a cut into about a chunk per token takes
//!   little more than one chunk of the whole file.
#![cfg(all(feature = "cli", feature = "code"))]

mod common;

use chunktui::config::{ChunkConfig, KeepSeparator, SeparatorSide, StrategyKind, Unit};
use chunktui::document::{DocKind, Document};
use chunktui::lint::{lint, LintOptions, LintStream};
use chunktui::measure::{measure_in_slices, Linting};
use chunktui::stats::{Stats, StatsBuilder};
use chunktui::{Chunk, Chunker};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn base(strategy: StrategyKind, unit: Unit, size: usize, overlap: usize) -> ChunkConfig {
    ChunkConfig { strategy, unit, size, overlap, ..ChunkConfig::default() }
}

/// `code` in `language` (a tree-sitter grammar).
fn code(language: &str, unit: Unit, size: usize) -> ChunkConfig {
    let mut c = base(StrategyKind::Code, unit, size, 0);
    c.code.language = Some(language.to_string());
    c
}

/// Settings for the LangChain splitters: sizes from a chunk per piece to
/// packed chunks, in each unit they count in, and the options that make them
/// rewrite chunks (a regex joiner, kept separators, no strip) or aggregate
/// differently (headers kept, each line apart).
fn langchain_configs() -> Vec<ChunkConfig> {
    let mut out = Vec::new();
    for (size, overlap) in [(1, 0), (7, 2), (60, 12), (300, 60)] {
        for unit in [Unit::Chars, Unit::Words, Unit::Tokens] {
            out.push(base(StrategyKind::LangchainRecursive, unit, size, overlap));
            let mut c = base(StrategyKind::LangchainCharacter, unit, size, overlap);
            c.langchain.separator = " ".into();
            out.push(c);
        }
        out.push(base(StrategyKind::LangchainToken, Unit::Tokens, size, overlap));
        out.push(base(StrategyKind::LangchainCharacter, Unit::Chars, size, overlap));
        let mut regex = base(StrategyKind::LangchainCharacter, Unit::Chars, size, overlap);
        regex.langchain.separator = r"\s+".into();
        regex.langchain.is_separator_regex = true;
        out.push(regex);
        let mut end = base(StrategyKind::LangchainRecursive, Unit::Chars, size, overlap);
        end.langchain.keep_separator = Some(KeepSeparator::Side(SeparatorSide::End));
        end.langchain.strip_whitespace = false;
        out.push(end);
        let mut dropped = base(StrategyKind::LangchainRecursive, Unit::Chars, size, overlap);
        dropped.langchain.keep_separator = Some(KeepSeparator::Bool(false));
        out.push(dropped);
    }
    // Settings that keep chunks in text order, at every size (size 1 with
    // the defaults is above).
    for size in [1, 7, 60, 300] {
        if size > 1 {
            out.push(base(StrategyKind::LangchainRecursive, Unit::Chars, size, 0));
        }
        for side in [SeparatorSide::Start, SeparatorSide::End] {
            let mut kept = base(StrategyKind::LangchainCharacter, Unit::Chars, size, 0);
            kept.langchain.separator = " ".into();
            kept.langchain.keep_separator = Some(KeepSeparator::Side(side));
            out.push(kept);
            let mut regex = base(StrategyKind::LangchainRecursive, Unit::Chars, size, 0);
            regex.langchain.separators = Some([r"\n{2,}", r"(?<=[.!?])\s+", r"\s+", ""].map(String::from).to_vec());
            regex.langchain.is_separator_regex = true;
            regex.langchain.keep_separator = Some(KeepSeparator::Side(side));
            regex.langchain.strip_whitespace = side == SeparatorSide::Start;
            out.push(regex);
        }
    }
    out.push(base(StrategyKind::LangchainMarkdownHeader, Unit::Chars, 100, 0));
    let mut kept = base(StrategyKind::LangchainMarkdownHeader, Unit::Tokens, 100, 0);
    kept.langchain.strip_headers = false;
    out.push(kept);
    let mut lines = base(StrategyKind::LangchainMarkdownHeader, Unit::Words, 100, 0);
    lines.langchain.return_each_line = true;
    out.push(lines);
    out
}

fn prefix(text: &str, bytes: usize) -> String {
    let cut = (0..=bytes.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    text[..cut].to_string()
}

/// Corpus-like documents, and repeated text where placement goes back.
fn documents() -> Vec<(String, Document)> {
    let corpus = |name: &str, bytes: usize, kind| {
        (name.to_string(), Document::from_text(prefix(&common::read_corpus(name), bytes), kind))
    };
    let guide = std::fs::read_to_string(manifest().join("samples/guide.md")).expect("samples/guide.md");
    vec![
        ("samples/guide.md".into(), Document::from_text(guide, DocKind::Markdown)),
        corpus("en_rust_book.md", 30_000, DocKind::Markdown),
        corpus("en_war_and_peace.txt", 30_000, DocKind::Text),
        corpus("zh_rust_book.md", 20_000, DocKind::Markdown),
        corpus("en_ripgrep_guide_faq.md", 20_000, DocKind::Markdown),
        (
            "repeated CJK paragraphs".into(),
            Document::from_text(
                "中文文本切分测试，看看窗口边界。\n\n## 标题\n\nSome  prose\t here.\n\n".repeat(60),
                DocKind::Markdown,
            ),
        ),
    ]
}

/// Our code samples, each with its grammar, and some of our own Rust.
fn code_documents() -> Vec<(String, &'static str, Document)> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(manifest().join("samples/code")).expect("samples/code").map(|e| e.unwrap().path()).collect();
    paths.extend(["src/strategy/recursive/mod.rs", "samples/cache.rs"].map(|p| manifest().join(p)));
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let language = DocKind::grammar(&p).unwrap_or_else(|| panic!("{}: no grammar", p.display()));
            let text = std::fs::read_to_string(&p).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), language, Document::from_text(text, DocKind::Text))
        })
        .collect()
}

fn describe(c: &ChunkConfig) -> String {
    let lc = &c.langchain;
    format!(
        "{} {} size {} overlap {} (separator {:?} regex {} keep {:?} strip {} strip_headers {} each_line {}; language {:?})",
        c.strategy,
        c.unit,
        c.size,
        c.overlap,
        lc.separator,
        lc.is_separator_regex,
        lc.keep_separator,
        lc.strip_whitespace,
        lc.strip_headers,
        lc.return_each_line,
        c.code.language
    )
}

fn keep(side: SeparatorSide, mut c: ChunkConfig) -> ChunkConfig {
    c.langchain.keep_separator = Some(KeepSeparator::Side(side));
    c
}

#[test]
fn code_header_sections_and_ordered_langchain_settings_stream() {
    let streams = |c: &ChunkConfig| Chunker::new(c).expect("chunker").streams();
    let mut yes: Vec<ChunkConfig> = ["rust", "python", "javascript", "typescript", "tsx", "go", "java", "c", "cpp"]
        .iter()
        .flat_map(|l| [code(l, Unit::Chars, 100), code(l, Unit::Tokens, 1)])
        .collect();
    for unit in [Unit::Chars, Unit::Words, Unit::Tokens] {
        yes.push(base(StrategyKind::LangchainMarkdownHeader, unit, 100, 0));
    }
    yes.push(base(StrategyKind::LangchainRecursive, Unit::Chars, 1, 0));
    yes.push(keep(SeparatorSide::End, base(StrategyKind::LangchainRecursive, Unit::Chars, 400, 0)));
    for side in [SeparatorSide::Start, SeparatorSide::End] {
        yes.push(keep(side, base(StrategyKind::LangchainCharacter, Unit::Chars, 400, 0)));
    }
    let not: Vec<String> = yes.iter().filter(|c| !streams(c)).map(describe).collect();
    assert!(not.is_empty(), "these should stream:\n{}", not.join("\n"));

    // Settings whose chunks can come out of text order (see below).
    let mut no = vec![
        base(StrategyKind::LangchainRecursive, Unit::Chars, 400, 50),
        base(StrategyKind::LangchainRecursive, Unit::Words, 1, 0),
        base(StrategyKind::LangchainRecursive, Unit::Tokens, 1, 0),
        base(StrategyKind::LangchainCharacter, Unit::Chars, 1, 0),
        base(StrategyKind::LangchainToken, Unit::Tokens, 1, 0),
    ];
    let mut dropped = base(StrategyKind::LangchainRecursive, Unit::Chars, 1, 0);
    dropped.langchain.keep_separator = Some(KeepSeparator::Bool(false));
    no.push(dropped);
    let wrong: Vec<String> = no.iter().filter(|c| streams(c)).map(describe).collect();
    assert!(wrong.is_empty(), "these cannot promise text order:\n{}", wrong.join("\n"));
}

/// What the configs did on the documents.
#[derive(Default)]
struct Tally {
    runs: usize,
    /// Runs whose chunker streams.
    streamed: usize,
    /// Runs (of chunkers that do not stream) with a chunk placed before the one before it.
    unordered: usize,
    /// Streamed runs where lint found something to compare.
    with_findings: usize,
    /// Runs out of text order that `stats` read in text order in slices.
    sliced: usize,
}

/// `chunk_each` hands over what `chunk` returns. Where the chunker streams,
/// the chunks come in text order, and statistics and lint counted as they
/// come equal those of the list, with lint windows small enough that every
/// rule meets a window edge.
fn check_streamed(name: &str, doc: &Document, mut config: ChunkConfig, tally: &mut Tally) {
    // over-model-limit counts model tokens chunk by chunk: the same either way.
    config.lint.off = vec!["over-model-limit".into()];
    let what = format!("{name}: {}", describe(&config));
    let chunker = Chunker::new(&config).unwrap_or_else(|e| panic!("{what}: {e}"));
    let listed = chunker.chunk_document(doc);
    let mut each = Vec::new();
    let opts = LintOptions::new(&config, doc.kind).expect("lint options");
    let limit = config.strategy.promises_size_limit().then_some(config.size);
    let mut numbers = StatsBuilder::new(&doc.text, limit);
    let windows = [2, 3, 17, 1 << 16];
    let mut streams: Vec<LintStream<'_>> =
        windows.into_iter().map(|w| LintStream::with_window(&doc.text, &opts, None, w)).collect();
    let streamed = chunker.chunk_document_each(doc, &mut |c: Chunk| {
        numbers.add(&c);
        for s in &mut streams {
            s.push(c.clone());
        }
        each.push(c);
    });
    let chunks = match (listed, streamed) {
        (Ok(chunks), Ok(())) => chunks,
        (Err(a), Err(b)) => panic!("{what}: refused ({a} / {b})"),
        (a, b) => panic!("{what}: chunk {:?} but chunk_each {:?}", a.map(|c| c.len()), b),
    };
    assert!(!chunks.is_empty(), "{what}: no chunks");
    assert_eq!(each, chunks, "{what}: chunk_each hands over the chunks chunk returns");
    tally.runs += 1;
    let ordered = chunks.windows(2).all(|w| w[0].range.start <= w[1].range.start);
    if !chunker.streams() {
        tally.unordered += usize::from(!ordered);
        tally.sliced += usize::from(!ordered && check_measured(&what, doc, &chunker, &chunks, &opts, limit));
        return;
    }
    tally.streamed += 1;
    assert!(ordered, "{what}: streams, yet a chunk starts before the one before it");
    assert_eq!(numbers.finish(), Stats::compute(&chunks, &doc.text, limit), "{what}: numbers");
    let found = lint(&doc.text, &chunks, &opts);
    for (w, s) in windows.into_iter().zip(streams) {
        assert_eq!(s.finish(), found, "{what}: findings with windows of {w} chunks");
    }
    tally.with_findings += usize::from(!found.is_empty());
}

/// `stats` and `lint` of a cut that holds no list but may go back
/// (`measure`) give the numbers and findings of the whole list, whatever
/// the slices of text order it reads them in; with the first findings
/// kept, those are the list's first ones and every one is counted. Whether
/// the chunker holds no list.
fn check_measured(
    what: &str,
    doc: &Document,
    chunker: &Chunker,
    chunks: &[Chunk],
    opts: &LintOptions,
    limit: Option<usize>,
) -> bool {
    if !chunker.holds_no_list() {
        return false;
    }
    let stats = Stats::compute(chunks, &doc.text, limit);
    let found = lint(&doc.text, chunks, opts);
    // Four slices or more, two or more (a record is 16 bytes, rewritten text
    // costs more), and the whole cut in one. Each slice cuts again.
    let n = chunks.len();
    for (room, keep) in [((n / 4 + 1) * 16, None), ((n / 2 + 1) * 16, Some(2)), (1 << 40, Some(0))] {
        let linting = Linting { opts, tally: None, keep };
        let m = measure_in_slices(chunker, doc, limit, Some(linting), room).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(m.stats, stats, "{what}: numbers read {room} chunks at a time");
        let lint = m.lint.expect("linted");
        let first = &found[..keep.unwrap_or(found.len()).min(found.len())];
        assert_eq!(lint.findings, first, "{what}: findings read {room} chunks at a time, keeping {keep:?}");
        assert_eq!(lint.total(), found.len(), "{what}: findings counted");
        assert_eq!(lint.counts(opts), chunktui::lint::counts(&found, opts), "{what}: counts per rule");
    }
    true
}

#[test]
fn langchain_chunk_each_hands_over_what_chunk_returns() {
    let mut tally = Tally::default();
    for (name, doc) in documents() {
        for config in langchain_configs() {
            check_streamed(&name, &doc, config, &mut tally);
        }
    }
    eprintln!(
        "{} runs, {} streamed ({} with lint findings), {} of the others out of text order ({} read in slices)",
        tally.runs, tally.streamed, tally.with_findings, tally.unordered, tally.sliced
    );
    // Every config ran on every document (none refused); streamed runs had
    // findings to compare; and the settings that do not stream do put chunks
    // out of order (on the corpus, not only on made-up text).
    assert_eq!(tally.runs, documents().len() * langchain_configs().len());
    assert!(tally.streamed > 100, "only {} runs streamed", tally.streamed);
    assert!(tally.with_findings > 20, "only {} streamed runs had findings", tally.with_findings);
    assert!(tally.unordered > 20, "only {} runs placed a chunk before the one before it", tally.unordered);
    assert_eq!(tally.sliced, tally.unordered, "every LangChain splitter holds no list");
}

#[test]
fn parsed_code_chunk_each_hands_over_what_chunk_returns() {
    let mut tally = Tally::default();
    let docs = code_documents();
    for (name, language, doc) in &docs {
        for unit in [Unit::Chars, Unit::Words, Unit::Tokens] {
            for size in [1, 40, 400] {
                check_streamed(name, doc, code(language, unit, size), &mut tally);
            }
        }
    }
    assert_eq!((tally.runs, tally.streamed), (docs.len() * 9, docs.len() * 9));
    assert!(tally.with_findings > 10, "only {} runs had findings", tally.with_findings);
}

/// Kill a run that takes longer than this: it hangs.
const HANG: Duration = Duration::from_secs(120);

/// Peak resident set of `chunktui ARGS` (which must succeed), in bytes.
fn peak_rss_of(args: &[&OsStr]) -> u64 {
    let time = Path::new("/usr/bin/time");
    assert!(time.exists(), "/usr/bin/time missing: install GNU time (apt-get install time) to measure peak memory");
    let report = tempfile::NamedTempFile::new().unwrap();
    let err = tempfile::NamedTempFile::new().unwrap();
    let what = args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ");
    let mut child = Command::new(time)
        .args(["-f", "%M", "-o"])
        .arg(report.path())
        .arg(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(err.path()).unwrap())
        .spawn()
        .expect("spawn");
    let status = common::wait_or_kill(&mut child, HANG, &what);
    let stderr = std::fs::read_to_string(err.path()).unwrap();
    assert!(status.success(), "{what}: {stderr}");
    common::gnu_time_peak(report.path())
}

fn stats_peak(file: &Path, args: &[&str]) -> u64 {
    let mut full = vec![OsStr::new("stats"), file.as_os_str()];
    full.extend(args.iter().map(OsStr::new));
    peak_rss_of(&full)
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// Tiny numbered sections: at `--size 1` a chunk per character or token,
/// and a LangChain header chunk per ~25 bytes (each with its own metadata).
/// The rare Chinese characters are cut by cl100k token windows: LangChain
/// then places the next chunks back at the text's start.
fn sections(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 64);
    let mut i = 0;
    while out.len() < bytes {
        out.push_str(&format!("# H{i}\nSome prose 龘鬱.\n\n"));
        i += 1;
    }
    out
}

/// A config with every lint rule off: lint's own reading of a text this
/// dense in headings (its heading and sentence lists) grows ~9x the input
/// and would hide what the strategy holds. `stats` still pushes each chunk
/// through its lint window.
const NO_LINT: &str = "[lint]\noff = [\"mid-sentence\", \"orphan-heading\", \"split-fence\", \"split-table\", \
                       \"tiny-fragment\", \"over-model-limit\"]\n";

/// `chunk` with each LangChain splitter at `--size 1` holds no chunk list,
/// nor does `stats` with the settings that stream: memory grows like the
/// input (1x to 4x here), not like the chunks (held, they cost 20x to 90x:
/// 0.9 GB for 10 MB of Markdown with langchain-recursive). The smaller file
/// already fills `stats`' lint window (16,384 chunks), so the difference is
/// what the strategy holds. 2 MB more input puts the bound (10x plus 4 MB
/// of allocator granularity) at 12x it, still well under a held list's 20x.
#[test]
fn langchain_memory_follows_the_input_not_the_chunk_count() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.md");
    let big = dir.path().join("big.md");
    let config = dir.path().join("no-lint.toml");
    std::fs::write(&small, sections(2 << 20)).unwrap();
    std::fs::write(&big, sections(4 << 20)).unwrap();
    std::fs::write(&config, NO_LINT).unwrap();
    let config = config.to_str().unwrap();
    let grown = std::fs::metadata(&big).unwrap().len() - std::fs::metadata(&small).unwrap().len();
    // (command, strategy, its settings): a piece per character for the
    // character splitter. `stats` reads chunks that go back in text order
    // in slices, held as small records (token windows, words, a dropped
    // separator).
    let runs: [(&str, &str, &[&str]); 10] = [
        ("chunk", "langchain-recursive", &[]),
        ("chunk", "langchain-character", &["--separator", ""]),
        ("chunk", "langchain-token", &[]),
        ("chunk", "langchain-markdown-header", &[]),
        ("stats", "langchain-recursive", &[]),
        ("stats", "langchain-character", &["--separator", "", "--keep-separator", "start"]),
        ("stats", "langchain-markdown-header", &[]),
        ("stats", "langchain-token", &[]),
        ("stats", "langchain-recursive", &["--unit", "words"]),
        ("stats", "langchain-character", &["--separator", ""]),
    ];
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (command, strategy, settings) in runs {
        let args = [&["-c", config, "-s", strategy, "--size", "1", "--overlap", "0"][..], settings].concat();
        let peak = |file: &Path| {
            let mut full = vec![OsStr::new(command), file.as_os_str()];
            full.extend(args.iter().map(OsStr::new));
            peak_rss_of(&full)
        };
        let extra = peak(&big).saturating_sub(peak(&small));
        let line = format!(
            "{command} -s {strategy} --size 1: {:.1} MB more for {:.1} MB more input ({:.1}x)",
            mb(extra),
            mb(grown),
            extra as f64 / grown as f64
        );
        if extra >= 10 * grown + (4 << 20) {
            failures.push(line.clone());
        }
        report.push(line);
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "over 10x the added input:\n{}", failures.join("\n"));
    // The token windows did go back, so `stats` read them in slices.
    let out = Command::new(BIN)
        .args(["stats", "--json", "-s", "langchain-token", "--size", "1", "--overlap", "0", "-c", config])
        .arg(&small)
        .output()
        .expect("run chunktui");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stats --json");
    assert!(json["uncovered_chars"].as_u64() > Some(0), "langchain-token stayed in text order: {json}");
}

/// `stats -s code` with a grammar at `--size 1` (about a chunk per token)
/// holds no chunk list: it takes little more than the same file in one
/// chunk, where the walk stops at the root. Both hold the syntax tree
/// (tree-sitter's, ~35 bytes a byte); only the cut differs, and `stats`
/// lints a window of at most 16,384 chunks at a time (~6 MB of chunks with
/// their symbols), which the allowance covers. Held, the list cost ~250
/// bytes a byte (3 GB for 10 MB of Rust).
#[test]
fn parsed_code_stats_memory_follows_the_tree_not_the_chunk_count() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(manifest().join("src/strategy/recursive/mod.rs")).unwrap();
    let file = dir.path().join("big.rs");
    std::fs::write(&file, source.repeat((2 << 20) / source.len() + 1)).unwrap();
    let len = std::fs::metadata(&file).unwrap().len();
    let whole = stats_peak(&file, &["-s", "code", "--language", "rust", "--size", "100000000"]);
    let cut = stats_peak(&file, &["-s", "code", "--language", "rust", "--size", "1"]);
    let extra = cut.saturating_sub(whole);
    eprintln!(
        "stats -s code --language rust on {:.1} MB: {:.1} MB in one chunk, {:.1} MB at --size 1 ({:.1}x the input more)",
        mb(len),
        mb(whole),
        mb(cut),
        extra as f64 / len as f64
    );
    assert!(
        extra < 10 * len + (40 << 20),
        "stats -s code --size 1 takes {:.1} MB more than one chunk of the same {:.1} MB file",
        mb(extra),
        mb(len)
    );
}
