//! `chunktui export CFG --to LIB`: every strategy of the table gives every
//! library a snippet or a plain "none"; the config's values reach the
//! snippet as literals (separators with escapes, CJK separators, tokenizers);
//! the table in docs/export.md is what `--table` prints; the command's errors
//! follow the one-line contract. That the snippets run and, for the exact
//! mappings, give chunktui's chunks is proven with the real packages in
//! tests/python/test_export_splitters.py and (Rust) tests/export_splitter_build.rs.
#![cfg(feature = "cli")]

use chunktui::cli::export_splitter::{fidelity_for, mapping, snippet, table, Fidelity, Library};
use chunktui::config::{ChunkConfig, KeepSeparator, SeparatorSide, StrategyKind, Unit};
use std::process::Command;
mod common;
use common::Dir;

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

fn config(kind: StrategyKind) -> ChunkConfig {
    let mut c = ChunkConfig { strategy: kind, size: 300, overlap: 30, ..ChunkConfig::default() };
    c.normalize();
    c
}

fn is_python(lib: Library) -> bool {
    lib != Library::TextSplitter
}

#[test]
fn every_strategy_gives_every_library_a_snippet_or_a_plain_none() {
    for &kind in StrategyKind::ALL {
        for lib in Library::ALL {
            let c = config(kind);
            let s = snippet(&c, lib);
            let what = format!("{kind} -> {}:\n{s}", lib.name());
            let builds = if is_python(lib) { s.contains("\nsplitter = ") } else { s.contains("let splitter = ") };
            match mapping(kind, lib) {
                Fidelity::None(why) => {
                    assert!(!why.is_empty(), "{what}");
                    assert!(s.contains("Fidelity: none"), "{what}");
                    assert!(!s.contains("splitter ="), "{what}");
                }
                f => {
                    assert!(builds, "{what}");
                    assert!(s.contains(&format!("Fidelity: {}", f.label())), "{what}");
                    // The size reaches the snippet (text-splitter and the
                    // size-less header splitters of LangChain and LlamaIndex aside).
                    if kind.spec().reads_size() {
                        assert!(s.contains("300"), "{what}");
                    }
                }
            }
            // Every line but code is a comment, and says what to install.
            let comment = if is_python(lib) { "#" } else { "//" };
            assert!(s.lines().next().unwrap().starts_with(comment), "{what}");
        }
    }
}

#[test]
fn the_langchain_strategies_are_exact_in_langchain() {
    for kind in [
        StrategyKind::LangchainCharacter,
        StrategyKind::LangchainRecursive,
        StrategyKind::LangchainToken,
        StrategyKind::LangchainMarkdownHeader,
    ] {
        assert_eq!(mapping(kind, Library::Langchain), Fidelity::Exact, "{kind}");
    }
    // Only where the tests prove it.
    let exact: Vec<String> = StrategyKind::ALL
        .iter()
        .flat_map(|&k| Library::ALL.map(|l| (k, l)))
        .filter(|&(k, l)| mapping(k, l) == Fidelity::Exact)
        .map(|(k, l)| format!("{k}->{}", l.name()))
        .collect();
    assert_eq!(
        exact,
        [
            "langchain-character->langchain",
            "langchain-character->llamaindex",
            "langchain-recursive->langchain",
            "langchain-recursive->llamaindex",
            "langchain-token->langchain",
            "langchain-token->llamaindex",
            "langchain-markdown-header->langchain",
        ]
    );
}

#[test]
fn separators_survive_quoting_with_their_escapes_and_cjk() {
    let mut c = config(StrategyKind::LangchainRecursive);
    c.langchain.separators =
        Some(["\n\n", "。", "，", "\t", "say \"hi\"", "back\\slash", "\u{3000}", ""].map(String::from).to_vec());
    c.langchain.keep_separator = Some(KeepSeparator::Side(SeparatorSide::End));
    c.langchain.strip_whitespace = false;
    let s = snippet(&c, Library::Langchain);
    assert!(s.contains(r#"separators=["\n\n", "。", "，", "\t", "say \"hi\"", r"back\slash", "\u3000", ""],"#), "{s}");
    assert!(s.contains("keep_separator=\"end\",") && s.contains("strip_whitespace=False,"), "{s}");
    assert!(s.contains("chunk_size=300,") && s.contains("chunk_overlap=30,"), "{s}");
    // The same list inside LlamaIndex's wrapper.
    assert!(snippet(&c, Library::Llamaindex).contains(r#""。", "，", "\t""#));
    // chonkie: one rule per separator, the kept side as include_delim.
    let ch = snippet(&c, Library::Chonkie);
    assert!(ch.contains(r#"RecursiveLevel(delimiters=["。"])"#), "{ch}");
    assert!(ch.contains(r#"RecursiveLevel(delimiters=["\u3000"])"#), "{ch}");

    // A regex separator is written raw, exactly.
    let mut c = config(StrategyKind::LangchainCharacter);
    c.langchain.separator = r"\s+".into();
    c.langchain.is_separator_regex = true;
    let s = snippet(&c, Library::Langchain);
    assert!(s.contains(r#"separator=r"\s+","#) && s.contains("is_separator_regex=True,"), "{s}");
    assert!(s.contains("keep_separator=False,"), "{s}");
}

#[test]
fn the_chinese_preset_keeps_its_cjk_separators() {
    let mut c = config(StrategyKind::Recursive);
    c.recursive.preset = "chinese".into();
    let lc = snippet(&c, Library::Langchain);
    assert!(lc.contains("[。！？]") && lc.contains(r#""；|：|; ""#) && lc.contains(r#""，|、|, ""#), "{lc}");
    let ch = snippet(&c, Library::Chonkie);
    assert!(ch.contains(r#"RecursiveLevel(delimiters=["，", "、", ", "])"#), "{ch}");
}

#[test]
fn tokens_map_to_each_librarys_tokenizer() {
    let mut c = config(StrategyKind::LangchainRecursive);
    c.unit = Unit::Tokens;
    c.tokenizer = "o200k_base".into();
    let lc = snippet(&c, Library::Langchain);
    assert!(
        lc.contains("RecursiveCharacterTextSplitter.from_tiktoken_encoder(\n    encoding_name=\"o200k_base\","),
        "{lc}"
    );
    assert!(lc.contains("tiktoken==0.14.0"), "{lc}");
    let ts = snippet(&c, Library::TextSplitter);
    assert!(ts.contains(".with_sizer(tiktoken_rs::o200k_base()?)") && ts.contains("\"tiktoken-rs\""), "{ts}");
    let ch = snippet(&c, Library::Chonkie);
    assert!(ch.contains("tokenizer=tiktoken.get_encoding(\"o200k_base\"),"), "{ch}");

    let mut c = config(StrategyKind::Recursive);
    c.unit = Unit::Tokens;
    let li = snippet(&c, Library::Llamaindex);
    assert!(li.contains("tokenizer=tiktoken.get_encoding(\"cl100k_base\").encode,"), "{li}");

    // A Hugging Face tokenizer.json: loaded as chunktui counts with it.
    c.tokenizer = "hf:models/minilm/tokenizer.json".into();
    let lc = snippet(&c, Library::Langchain);
    assert!(lc.contains("_tokenizer = Tokenizer.from_file(\"models/minilm/tokenizer.json\")"), "{lc}");
    assert!(lc.contains("_tokenizer.no_truncation()") && lc.contains("add_special_tokens=False"), "{lc}");
    let ts = snippet(&c, Library::TextSplitter);
    assert!(ts.contains("tokenizers::Tokenizer::from_file(\"models/minilm/tokenizer.json\")?"), "{ts}");
}

#[test]
fn words_make_an_exact_mapping_close_and_say_why() {
    let mut c = config(StrategyKind::LangchainRecursive);
    c.unit = Unit::Words;
    assert_eq!(fidelity_for(&c, Library::Langchain).label(), "close");
    let s = snippet(&c, Library::Langchain);
    assert!(s.contains("Fidelity: close") && s.contains("length_function=lambda text: len(re.findall("), "{s}");
    assert!(s.contains("import re"), "{s}");
}

#[test]
fn what_does_not_carry_over_is_said() {
    let mut c = config(StrategyKind::Sentence);
    c.sentence.overlap_sentences = 2;
    c.sentence.max_sentences = 5;
    for lib in Library::ALL {
        let s = snippet(&c, lib);
        assert!(s.contains("Does not carry over:"), "{s}");
        assert!(s.contains("overlap_sentences = 2") && s.contains("max_sentences = 5"), "{}: {s}", lib.name());
    }
    let mut c = config(StrategyKind::Semantic);
    c.semantic.threshold_type = chunktui::config::ThresholdType::Absolute;
    c.semantic.threshold = Some(0.25);
    let lc = snippet(&c, Library::Langchain);
    assert!(lc.contains("threshold_type = absolute (0.25)") && lc.contains("int8"), "{lc}");
    // chonkie takes a similarity: 1 - distance.
    assert!(snippet(&c, Library::Chonkie).contains("threshold=0.75,"));
}

#[test]
fn docs_hold_the_table_the_mapping_gives() {
    let t = table();
    assert_eq!(t.lines().count(), StrategyKind::ALL.len() + 2);
    for &kind in StrategyKind::ALL {
        let row = t.lines().find(|l| l.starts_with(&format!("| `{kind}` |"))).expect("a row per strategy");
        let cells: Vec<&str> = row.split(" | ").skip(1).collect();
        for (cell, lib) in cells.iter().zip(Library::ALL) {
            assert!(cell.starts_with(mapping(kind, lib).label()), "{kind} {}: {cell}", lib.name());
        }
    }
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/export.md")).unwrap();
    assert!(doc.contains(&t), "docs/export.md must hold `chunktui export --table`:\n{t}");
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).env("NO_COLOR", "1").output().expect("run chunktui")
}

#[test]
fn the_command_reads_a_config_or_flags_and_writes_atomically() {
    let dir = Dir::new();
    let cfg = dir.path("cfg.toml");
    let init = run(&["config", "init", "--strategy", "langchain-recursive", "--size", "420", "--overlap", "42"]);
    assert!(init.status.success());
    std::fs::write(&cfg, &init.stdout).unwrap();
    let cfg = cfg.to_str().unwrap();
    let from_file = run(&["export", cfg, "--to", "langchain"]);
    assert!(from_file.status.success(), "{}", String::from_utf8_lossy(&from_file.stderr));
    let text = String::from_utf8(from_file.stdout.clone()).unwrap();
    assert!(text.contains("chunk_size=420,") && text.contains("chunk_overlap=42,"), "{text}");
    // The same from flags, and flags over the file.
    let from_flags =
        run(&["export", "--strategy", "langchain-recursive", "--size", "420", "--overlap", "42", "--to", "langchain"]);
    assert_eq!(from_flags.stdout, from_file.stdout);
    let over = String::from_utf8(run(&["export", cfg, "--size", "500", "--to", "langchain"]).stdout).unwrap();
    assert!(over.contains("chunk_size=500,"), "{over}");
    // -o writes what stdout shows.
    let out = dir.path("splitter.py");
    assert!(run(&["export", cfg, "--to", "langchain", "-o", out.to_str().unwrap()]).status.success());
    assert_eq!(std::fs::read(&out).unwrap(), from_file.stdout);
    // --table.
    let t = run(&["export", "--table"]);
    assert_eq!(String::from_utf8(t.stdout).unwrap(), table());
}

fn expect_error(args: &[&str], fragments: &[&str]) {
    let out = run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    for f in fragments {
        assert!(err.contains(f), "{args:?}: {err}");
    }
}

#[test]
fn bad_input_is_one_clear_error() {
    expect_error(&["export", "--to", "haystack"], &["langchain", "llamaindex", "chonkie", "text-splitter"]);
    expect_error(&["export", "--strategy", "recursive"], &["--to"]);
    expect_error(&["export", "missing.toml", "--to", "chonkie"], &["missing.toml"]);
    expect_error(&["export", "a.toml", "--config", "b.toml", "--to", "chonkie"], &["once"]);
    expect_error(
        &["export", "--strategy", "langchain-recursive", "--separators", "[\"(\"]", "--regex", "--to", "langchain"],
        &["error:"],
    );
    let out = run(&["export", "--strategy", "nope", "--to", "langchain"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!((out.status.code(), err.lines().count()), (Some(2), 1), "{err}");
    assert!(err.contains("unknown strategy 'nope'"), "{err}");
}

/// A config that embeds through an endpoint exports the libraries'
/// OpenAI-compatible classes with its base and model, sending strings as
/// chunktui does; the key stays in the environment.
#[test]
fn an_endpoint_exports_the_real_openai_compatible_class_and_no_key() {
    let mut c = config(StrategyKind::LangchainSemantic);
    c.embed.url = Some("https://dashscope.aliyuncs.com/compatible-mode/v1/".into());
    c.embed.model = Some("text-embedding-v4".into());
    c.embed.dimensions = Some(512);
    c.normalize();
    let lc = snippet(&c, Library::Langchain);
    assert!(
        lc.contains("OpenAIEmbeddings(\n        base_url=\"https://dashscope.aliyuncs.com/compatible-mode/v1\",\n        model=\"text-embedding-v4\",\n        dimensions=512,\n        check_embedding_ctx_length=False,"),
        "{lc}"
    );
    assert!(lc.contains("from langchain_openai import OpenAIEmbeddings") && !lc.contains("HuggingFace"), "{lc}");
    let li = snippet(&c, Library::Llamaindex);
    assert!(li.contains("OpenAILikeEmbedding(") && li.contains("api_key=os.environ[\"OPENAI_API_KEY\"]"), "{li}");
    for s in [&lc, &li] {
        assert!(s.contains("$OPENAI_API_KEY"), "the note says where the key comes from: {s}");
        assert!(!s.contains("sk-"), "{s}");
    }
}

#[test]
fn a_snippet_says_it_cannot_express_hand_made_boundaries() {
    let mut c = config(StrategyKind::LangchainRecursive);
    c.edits = vec![chunktui::edits::Edit::at(chunktui::edits::EditOp::Cut, "One. Two.", 5)];
    for lib in [Library::Langchain, Library::TextSplitter] {
        let s = snippet(&c, lib);
        assert!(
            s.contains("cannot express the config's 1 [[edits]]") && s.contains("chunktui chunk FILE --config CFG"),
            "{s}"
        );
    }
    assert!(!snippet(&config(StrategyKind::LangchainRecursive), Library::Langchain).contains("[[edits]]"));
}
