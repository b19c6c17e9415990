//! Contextual text (`[embed_text]`, `--embed-text`, `--embed-text-fit`):
//! what it holds, its sizes, `fit` holding it to `size` on real documents in
//! English and Chinese, and the refusals.

mod common;

use chunktui::chunk::ChunkMeta;
use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::contextual::{context_of, embed_text};
use chunktui::size::Sizer;
use chunktui::{Chunk, Chunker};
use std::process::Command;

fn chunk(config: &ChunkConfig, text: &str) -> Vec<Chunk> {
    Chunker::new(config).unwrap().chunk(text).unwrap()
}

fn markdown(unit: Unit, size: usize, overlap: usize) -> ChunkConfig {
    let mut config = common::config(StrategyKind::Markdown, unit, size, overlap);
    config.embed_text.enabled = true;
    config
}

/// Every chunk's embed text is its context line, a blank line and its text,
/// with sizes that are the sizer's and the tokenizer's counts of it.
fn check_embed(config: &ChunkConfig, text: &str, chunks: &[Chunk]) {
    let sizer = Sizer::for_unit(config.unit, &config.tokenizer).unwrap();
    let tokens = Sizer::for_unit(Unit::Tokens, &config.tokenizer).unwrap();
    for c in chunks {
        let embed = c.meta.embed.as_ref().expect("every chunk has embed text");
        let expected = embed_text(&context_of(&c.meta, c.text(text)), c.text(text));
        assert_eq!(embed.text, expected);
        assert_eq!(embed.size, sizer.size(&embed.text));
        assert_eq!(embed.tokens, tokens.size(&embed.text));
    }
}

#[test]
fn the_heading_path_goes_in_front_and_a_chunk_opening_with_its_heading_does_not_repeat_it() {
    let text = "# Guide\n\nIntro text.\n\n## Timeouts\n\nIt defaults to thirty seconds. Raise it for slow disks.\n";
    let config = markdown(Unit::Chars, 1000, 0);
    let chunks = chunk(&config, text);
    check_embed(&config, text, &chunks);
    let timeouts = chunks.iter().find(|c| c.text(text).contains("thirty")).unwrap();
    let embed = &timeouts.meta.embed.as_ref().unwrap().text;
    assert!(embed.starts_with("Guide\n\n## Timeouts"), "{embed:?}");

    // The same section cut small: the pieces after the first carry the whole path.
    let config = markdown(Unit::Chars, 40, 0);
    let chunks = chunk(&config, text);
    check_embed(&config, text, &chunks);
    let later = chunks.iter().find(|c| c.text(text).starts_with("Raise")).unwrap();
    assert!(later.meta.embed.as_ref().unwrap().text.starts_with("Guide > Timeouts\n\n"), "{later:?}");
}

#[test]
fn without_the_setting_no_chunk_carries_embed_text() {
    let text = std::fs::read_to_string("samples/guide.md").unwrap();
    let mut config = markdown(Unit::Chars, 300, 0);
    config.embed_text.enabled = false;
    assert!(chunk(&config, &text).iter().all(|c| c.meta.embed.is_none()));
}

#[test]
fn context_names_symbols_and_pages_when_known() {
    let meta = ChunkMeta {
        symbols: vec!["impl Searcher".into(), "fn find".into()],
        pages: Some([2, 3]),
        ..Default::default()
    };
    assert_eq!(context_of(&meta, "let x = 1;"), "impl Searcher > fn find | pages 2-3");
    let one_page = ChunkMeta { pages: Some([4, 4]), headings: vec!["总则".into()], ..Default::default() };
    assert_eq!(context_of(&one_page, "第一条"), "总则 | page 4");
    assert_eq!(context_of(&ChunkMeta::default(), "x"), "");
    // A setext heading opening the chunk counts as its own heading.
    let setext = ChunkMeta { headings: vec!["Changelog".into(), "1.2.0".into()], ..Default::default() };
    assert_eq!(context_of(&setext, "1.2.0\n-----\n\n- fixed"), "Changelog");
}

/// With `fit`, on real documents: no embed text over `size`, no chunk over
/// `size`, and all text still covered.
#[test]
fn fit_holds_embed_text_to_size_on_real_documents() {
    let cases = [
        ("en_rust_book.md", Unit::Tokens, 128, 16),
        ("en_rust_book.md", Unit::Chars, 400, 0),
        ("zh_rust_book.md", Unit::Chars, 200, 20),
        ("zh_rust_book.md", Unit::Words, 120, 0),
    ];
    for (file, unit, size, overlap) in cases {
        let whole = common::read_corpus(file);
        let text = &whole[..common::windows(&whole, 60_000, 1)[0].0.end];
        let mut plain = markdown(unit, size, overlap);
        plain.embed_text.enabled = true;
        let over = chunk(&plain, text).iter().filter(|c| c.meta.embed.as_ref().unwrap().size > size).count();
        assert!(over > 0, "{file} {unit}: some chunks should need fitting, or the test proves nothing");

        let mut fitted = plain.clone();
        fitted.embed_text.fit = true;
        let chunks = chunk(&fitted, text);
        check_embed(&fitted, text, &chunks);
        for c in &chunks {
            let embed = c.meta.embed.as_ref().unwrap();
            assert!(embed.size <= size, "{file} {unit} {size}: embed text of {} is {}", c.range.start, embed.size);
            assert!(c.size <= size);
        }
        common::text_cover(text, &chunks).unwrap_or_else(|e| panic!("{file} {unit}: {e}"));
        let checker = common::Checker::new(text, unit);
        checker.check(&fitted, &chunks).unwrap_or_else(|e| panic!("{file} {unit}: {e}"));
    }
}

fn chunktui(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_chunktui")).args(args).output().unwrap()
}

#[test]
fn the_cli_exports_embed_text_beside_the_text() {
    let out = chunktui(&["chunk", "samples/guide.md", "--strategy", "markdown", "--size", "300", "--embed-text"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(records.len() > 3);
    for r in &records {
        let embed = r["embed_text"].as_str().unwrap();
        assert!(embed.ends_with(r["text"].as_str().unwrap()));
        assert!(r["embed_size"].as_u64().unwrap() >= r["size"].as_u64().unwrap());
        assert!(r["embed_tokens"].as_u64().unwrap() > 0);
        assert!(r["meta"].get("embed").is_none(), "embed text sits beside the text, not in meta");
    }
    assert!(records.iter().any(|r| r["embed_text"] != r["text"]), "some chunk gets a context line");
}

#[test]
fn fit_is_refused_where_it_cannot_work_with_a_line_that_says_what_to_do() {
    let out = chunktui(&["chunk", "samples/guide.md", "--strategy", "langchain-recursive", "--embed-text-fit"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--embed-text-fit") && err.contains("langchain-recursive"), "{err}");

    // A heading path longer than the size leaves no room.
    let dir = common::Dir::new();
    let doc = dir.write("deep.md", b"# A very long heading that says a great deal\n\nbody text here.\n");
    let out =
        chunktui(&["chunk", &doc, "--strategy", "markdown", "--size", "12", "--overlap", "0", "--embed-text-fit"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("leaves no room") && err.contains("--size"), "{err}");
}

#[test]
fn the_config_section_round_trips_and_rejects_unknown_keys() {
    let config = ChunkConfig::parse(
        "version = 1\nstrategy = \"markdown\"\nunit = \"chars\"\nsize = 500\n[embed_text]\nfit = true\n",
        false,
    )
    .unwrap();
    assert!(config.embed_text.fit);
    let chunker = Chunker::new(&config).unwrap();
    assert!(chunker.config.embed_text.enabled, "fit implies enabled");
    let again = ChunkConfig::parse(&chunker.config.to_toml(), false).unwrap();
    assert_eq!(again, chunker.config);
    let bad = ChunkConfig::parse(
        "version = 1\nstrategy = \"markdown\"\nunit = \"chars\"\nsize = 500\n[embed_text]\nfits = true\n",
        false,
    );
    assert!(bad.unwrap_err().to_string().contains("fits"));
}
