//! Hostile input stays within bounded time and memory.
//!
//! - A separator regex that backtracks catastrophically is refused with one
//!   line (exit 2) once it has used its step budget for the run, instead of
//!   running for minutes (the real binary, killed and failed after 60 s).
//! - Peak memory of the real binary on one long line with no spaces stays
//!   within a small multiple of the input for every non-model strategy and
//!   unit (measured with GNU time, over the same command on a smaller input:
//!   the tokenizer tables and the binary itself are not the input's doing).
//! - Separator lists too long to compile and search with bounded memory
//!   are refused quickly, and so is a regex too big once compiled.
//! - tiktoken counts read piece by piece are those of one whole encode on
//!   the corpus; a piece with no space is still cut at a bounded length.
#![cfg(feature = "cli")]

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::size::Tokenizer;
use chunktui::Chunker;
mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

/// Kill a run that takes longer than this: it hangs.
const HANG: Duration = Duration::from_secs(60);

struct Run {
    code: Option<i32>,
    stderr: String,
}

/// Run `cmd` with stdout discarded; kill it and fail after [`HANG`].
fn run_guarded(mut cmd: Command, what: &str) -> Run {
    let err_path = tempfile::NamedTempFile::new().expect("temp file");
    let err_file = std::fs::File::create(err_path.path()).expect("stderr file");
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(err_file).env("NO_COLOR", "1");
    let mut child = cmd.spawn().expect("spawn");
    let status = common::wait_or_kill(&mut child, HANG, what);
    let stderr = std::fs::read_to_string(err_path.path()).expect("read stderr");
    Run { code: status.code(), stderr }
}

fn chunktui(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    cmd
}

fn one_line_error(run: &Run, what: &str, needles: &[&str]) {
    assert_eq!(run.code, Some(2), "{what}: exit code; stderr: {}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: one line on stderr, got {:?}", run.stderr);
    assert!(lines[0].starts_with("chunktui: error: "), "{what}: {}", lines[0]);
    for n in needles {
        assert!(lines[0].contains(n), "{what}: {n:?} missing from {}", lines[0]);
    }
}

fn temp_file(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).expect("write input");
    path
}

/// Letters with no space or line break, in a fixed pseudo-random order (the
/// hardest text for a BPE tokenizer: about 1.85 bytes per cl100k token).
fn spaceless(len: usize) -> String {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (b'a' + (x % 26) as u8) as char
        })
        .collect()
}

#[test]
fn catastrophic_separator_regex_is_refused_not_run_for_minutes() {
    let dir = tempfile::tempdir().unwrap();
    // Each line makes (?:a+)+(?=c) try every way to split 17 a's, at every a:
    // ~2^17 steps per line, within fancy-regex's per-search limit, minutes in all.
    let text = "aaaaaaaaaaaaaaaaa b\n".repeat(2000);
    let f = temp_file(dir.path(), "a.txt", text.as_bytes());
    let f = f.to_str().unwrap();
    let pattern = "(?:a+)+(?=c)|b";
    for strategy in ["langchain-character", "langchain-recursive"] {
        let sep_flag = if strategy == "langchain-character" { "--separator" } else { "--separators" };
        let sep_value =
            if strategy == "langchain-character" { pattern.to_string() } else { format!("[\"{pattern}\"]") };
        let run =
            run_guarded(chunktui(&["chunk", f, "--strategy", strategy, sep_flag, &sep_value, "--regex"]), strategy);
        one_line_error(
            &run,
            strategy,
            &["separator regex '(?:a+)+(?=c)|b'", "needs too much backtracking", "simplify it"],
        );
    }
}

#[test]
fn lookaround_separators_that_backtrack_little_still_work() {
    let dir = tempfile::tempdir().unwrap();
    // An empty match at every character: the most searches per byte a regex
    // can ask for.
    let f = temp_file(dir.path(), "a.txt", "a".repeat(300_000).as_bytes());
    let run = run_guarded(
        chunktui(&[
            "chunk",
            f.to_str().unwrap(),
            "--strategy",
            "langchain-character",
            "--separator",
            "(?=a)",
            "--regex",
        ]),
        "(?=a)",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let text = common::read_corpus("en_rust_book.md");
    let mut cfg = ChunkConfig { strategy: StrategyKind::LangchainRecursive, ..ChunkConfig::default() };
    cfg.langchain.separators =
        Some([r"(?<=\n)#", r"(?<=[.!?])\s+(?=[A-Z])", r"(?<!\\)\n", r"(\w)\1", r"\s+", ""].map(String::from).to_vec());
    cfg.langchain.is_separator_regex = true;
    cfg.langchain.keep_separator = Some(chunktui::config::KeepSeparator::Bool(false));
    let chunks = Chunker::new(&cfg).unwrap().chunk(&text).expect("lookaround separators on the Rust book");
    assert!(chunks.len() > 100);
}

/// Peak resident set of `chunktui chunk INPUT ARGS -o OUT`, in bytes, through
/// GNU time.
fn peak_rss(input: &Path, out: &Path, args: &[&str]) -> u64 {
    let mut full: Vec<&OsStr> = vec![OsStr::new("chunk"), input.as_os_str()];
    full.extend(args.iter().map(OsStr::new));
    full.extend([OsStr::new("-o"), out.as_os_str()]);
    peak_rss_of(&full)
}

/// Peak resident set of `chunktui ARGS` (which must succeed), in bytes.
fn peak_rss_of(args: &[&OsStr]) -> u64 {
    let time = Path::new("/usr/bin/time");
    assert!(time.exists(), "/usr/bin/time missing: install GNU time (apt-get install time) to measure peak memory");
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = Command::new(time);
    cmd.args(["-f", "%M", "-o"]).arg(report.path()).arg(BIN).args(args).stdout(std::process::Stdio::null());
    let what = args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ");
    let run = run_guarded(cmd, &what);
    assert_eq!(run.code, Some(0), "{what}: {}", run.stderr);
    common::gnu_time_peak(report.path())
}

/// `stats` with the strategies that stream (recursive, the default, fixed,
/// and hierarchical, whose levels interleave) holds no chunk list: cut to
/// one char, a Markdown file makes about a chunk per byte (hierarchical at
/// size 16 three: 16, 4 and 1), and memory must still grow like the input,
/// not like the chunks (it grew by ~260 bytes a chunk when the list was
/// held: 11 GB on 50 MB, 15 GB for hierarchical).
#[test]
fn stats_memory_follows_the_input_not_the_chunk_count() {
    let paragraph = "## A heading\n\nSome prose, with a clause; then another sentence. 中文句子也在这里。\n\n";
    let dir = tempfile::tempdir().unwrap();
    let small = temp_file(dir.path(), "small.md", paragraph.repeat((256 << 10) / paragraph.len()).as_bytes());
    let big = temp_file(dir.path(), "big.md", paragraph.repeat((2 << 20) / paragraph.len()).as_bytes());
    let grown = std::fs::metadata(&big).unwrap().len() - std::fs::metadata(&small).unwrap().len();
    for (strategy, size) in [("recursive", "1"), ("fixed", "1"), ("hierarchical", "1"), ("hierarchical", "16")] {
        for command in ["stats", "chunk"] {
            let peak = |file: &Path| {
                let words = [command, "-s", strategy, "--size", size, "--overlap", "0"].map(OsStr::new);
                peak_rss_of(&[&words[..1], &[file.as_os_str()], &words[1..]].concat())
            };
            let extra = peak(&big).saturating_sub(peak(&small));
            assert!(
                extra < 10 * grown + (4 << 20),
                "{command} -s {strategy} --size {size}: {:.1} MB more for {:.1} MB more input ({:.1}x)",
                extra as f64 / 1e6,
                grown as f64 / 1e6,
                extra as f64 / grown as f64
            );
        }
    }
}

/// For each non-model strategy in `unit`: peak memory on `len` bytes of
/// spaceless text, over the peak on `base_len` bytes of it, is at most
/// `factor` times the difference, plus `PER_CHUNK` bytes for each chunk more
/// (plus 4 MB of allocator and page granularity). The base run pays what
/// does not grow with the input: the binary, tokenizer tables, regex caches.
/// Chunks count apart because `hierarchical` makes ~38 per KB (three levels,
/// the smallest of ~33 chars) and holds each until nothing still to be cut
/// can come before it, as a compact entry (~70 bytes; records are written
/// as they are made, never held: a chunk cost ~1 KB when they were).
fn memory_stays_proportional(unit: &str, base_len: usize, len: usize, factor: u64) {
    const PER_CHUNK: u64 = 160;
    let lines = |path: &Path| std::fs::read(path).unwrap().iter().filter(|&&b| b == b'\n').count() as u64;
    let dir = tempfile::tempdir().unwrap();
    let big = temp_file(dir.path(), "big.txt", spaceless(len).as_bytes());
    let tiny = temp_file(dir.path(), "base.txt", spaceless(base_len).as_bytes());
    let out = dir.path().join("out.jsonl");
    let mut report = Vec::new();
    let mut failures = Vec::new();
    // Every strategy in the table that needs no model and cuts any text.
    for kind in StrategyKind::ALL.iter().filter(|k| k.is_plain() && k.spec().reads_any_text()) {
        let strategy = kind.name();
        // A strategy that counts its own unit (langchain-token tokens, fast
        // bytes) is measured in it, once.
        let unit = match kind.spec().forces_unit {
            Some(forced) if forced.name() != unit && forced != chunktui::Unit::Bytes => continue,
            Some(forced) if forced == chunktui::Unit::Bytes && unit != "chars" => continue,
            Some(forced) => forced.name(),
            None => unit,
        };
        let args = ["--strategy", strategy, "--unit", unit];
        let base = peak_rss(&tiny, &out, &args);
        let base_chunks = lines(&out);
        let peak = peak_rss(&big, &out, &args);
        let chunks = lines(&out).saturating_sub(base_chunks);
        let extra = peak.saturating_sub(base);
        let grown = (len - base_len) as u64;
        let line = format!(
            "{strategy} {unit}: peak {:.1} MB on {len} bytes, {:.1} MB over {base_len} bytes ({:.2}x the added input, \
             {chunks} chunks more, {:.0} bytes a chunk)",
            peak as f64 / 1e6,
            extra as f64 / 1e6,
            extra as f64 / grown as f64,
            extra as f64 / chunks.max(1) as f64
        );
        if extra > factor * grown + PER_CHUNK * chunks + (4 << 20) {
            failures.push(line.clone());
        }
        report.push(line);
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "over {factor}x the added input and {PER_CHUNK} bytes a chunk:\n{}",
        failures.join("\n")
    );
}

#[test]
fn memory_on_a_spaceless_line_in_chars() {
    memory_stays_proportional("chars", 200, 2 << 20, 4);
}

#[test]
fn memory_on_a_spaceless_line_in_words() {
    memory_stays_proportional("words", 200, 2 << 20, 4);
}

/// Token spans take 8 bytes per token: about 4.3 bytes per byte of random
/// letters, the worst case for a BPE tokenizer (the command line also holds
/// the input and its output).
#[test]
fn memory_on_a_spaceless_line_in_tokens() {
    memory_stays_proportional("tokens", 512 << 10, 1536 << 10, 8);
}

#[test]
fn too_many_separators_are_refused_before_compiling_them() {
    let started = Instant::now();
    for strategy in [StrategyKind::Recursive, StrategyKind::LangchainRecursive] {
        let mut cfg = ChunkConfig { strategy, ..ChunkConfig::default() };
        let seps = Some(vec!["a".to_string(); 2_000_000]);
        cfg.recursive.separators = seps.clone();
        cfg.recursive.is_regex = true;
        cfg.langchain.separators = seps;
        cfg.langchain.is_separator_regex = true;
        let err = Chunker::new(&cfg).unwrap_err().to_string();
        assert!(err.contains("2000000 separators") && err.contains("at most 1000"), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }
    assert!(started.elapsed() < HANG, "refusing took {:?}", started.elapsed());

    // Through the binary, from a config file (as many as fit in a settings file).
    let dir = tempfile::tempdir().unwrap();
    let list: Vec<String> = (0..200_000).map(|i| format!("\"s{}\"", i % 10)).collect();
    let cfg = format!(
        "version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 100\n\n[recursive]\nis_regex = true\nseparators = [{}]\n",
        list.join(",")
    );
    let cfg_path = temp_file(dir.path(), "many.toml", cfg.as_bytes());
    let doc = temp_file(dir.path(), "doc.txt", b"some text to chunk\n");
    let run = run_guarded(
        chunktui(&["chunk", doc.to_str().unwrap(), "--config", cfg_path.to_str().unwrap()]),
        "200000 separators",
    );
    one_line_error(&run, "200000 separators", &["200000 separators", "at most 1000"]);
    // `config check` refuses what the chunker would refuse.
    let run = run_guarded(chunktui(&["config", "check", cfg_path.to_str().unwrap()]), "config check");
    one_line_error(&run, "config check of 200000 separators", &["200000 separators", "at most 1000"]);
}

#[test]
fn separator_lists_too_big_and_regexes_too_big_once_compiled_are_refused() {
    let mut cfg = ChunkConfig { strategy: StrategyKind::Recursive, ..ChunkConfig::default() };
    cfg.recursive.separators = Some(vec!["x".repeat(70_000)]);
    let err = Chunker::new(&cfg).unwrap_err().to_string();
    assert!(err.contains("70000 bytes") && err.contains("at most 65536"), "{err}");

    // 30 bytes of pattern, hundreds of MB once compiled.
    let giant = r"(?:\w{100}){100}";
    let mut cfg = ChunkConfig { strategy: StrategyKind::Recursive, ..ChunkConfig::default() };
    cfg.recursive.separators = Some(vec![giant.to_string()]);
    cfg.recursive.is_regex = true;
    let err = Chunker::new(&cfg).unwrap_err().to_string();
    assert!(err.contains("too big once compiled") && err.contains(giant), "{err}");

    let mut cfg = ChunkConfig { strategy: StrategyKind::LangchainCharacter, ..ChunkConfig::default() };
    cfg.langchain.separator = giant.to_string();
    cfg.langchain.is_separator_regex = true;
    let err = Chunker::new(&cfg).unwrap().chunk("some text").unwrap_err().to_string();
    assert!(err.contains("too big once compiled") && err.contains(giant), "{err}");
}

/// Spans of one whole-text tiktoken encode, built as `token_spans` builds them.
fn whole_tiktoken_spans(bpe: &tiktoken_rs::CoreBPE, text: &str) -> Vec<(u32, u32)> {
    let mut pos = 0usize;
    let mut spans = Vec::new();
    for id in bpe.encode_ordinary(text) {
        let len = bpe.decode_bytes(&[id]).unwrap().len();
        let (mut s, mut e) = (pos, pos + len);
        while !text.is_char_boundary(s) {
            s -= 1;
        }
        while !text.is_char_boundary(e) {
            e += 1;
        }
        spans.push((s as u32, e as u32));
        pos += len;
    }
    spans
}

#[test]
fn tiktoken_read_piece_by_piece_equals_one_whole_encode_on_the_corpus() {
    for (name, bpe) in
        [("cl100k_base", tiktoken_rs::cl100k_base_singleton()), ("o200k_base", tiktoken_rs::o200k_base_singleton())]
    {
        let tok = Tokenizer::load(name).unwrap();
        for file in ["en_rust_book.md", "en_war_and_peace.txt", "zh_rust_book.md", "en_ripgrep_guide_faq.md"] {
            let text = common::read_corpus(file);
            let ours = tok.token_spans(&text).unwrap();
            let whole = whole_tiktoken_spans(bpe, &text);
            assert_eq!(ours.len(), whole.len(), "{file} with {name}: token counts differ");
            assert_eq!(ours.iter().zip(&whole).position(|(a, b)| a != b), None, "{file} with {name}: spans differ");
            assert_eq!(tok.count(&text), whole.len(), "{file} with {name}: count");
        }
    }
}

#[test]
fn a_long_line_with_no_space_is_still_cut_and_counted_nearly_exactly() {
    let tok = Tokenizer::load("cl100k_base").unwrap();
    let bpe = tiktoken_rs::cl100k_base_singleton();
    let text = spaceless(1 << 20);
    let spans = tok.token_spans(&text).unwrap();
    let whole = bpe.encode_ordinary(&text).len();
    // Cut every 64 KiB: a token that would straddle a cut can become two.
    let cuts = (text.len() / (64 << 10)) as i64;
    let diff = spans.len() as i64 - whole as i64;
    assert!(diff.abs() <= cuts, "{} tokens piece by piece, {whole} whole, {cuts} cuts", spans.len());
    assert_eq!(spans.first().unwrap().0, 0);
    assert_eq!(spans.last().unwrap().1 as usize, text.len());
    assert!(spans.windows(2).all(|w| w[0].1 == w[1].0), "spans tile the text");
    assert_eq!(tok.count(&text), spans.len());

    // The same with line breaks but no spaces: cut after a line break, exactly.
    let lines: String =
        spaceless(1 << 20).as_bytes().chunks(1000).map(|l| format!("{}\n", std::str::from_utf8(l).unwrap())).collect();
    assert_eq!(tok.token_spans(&lines).unwrap().len(), bpe.encode_ordinary(&lines).len());
    assert_eq!(
        Chunker::new(&ChunkConfig { unit: Unit::Tokens, ..ChunkConfig::default() }).unwrap().size_of(&lines),
        bpe.encode_ordinary(&lines).len()
    );
}
