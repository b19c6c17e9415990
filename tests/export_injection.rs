//! No value of a config can run code in an exported snippet. A model path,
//! a tokenizer path, separators and a language reach the snippets as string
//! literals and in comments ("Does not carry over: ... the ONNX model in
//! PATH"); a line break of any kind there (`\n`, a lone `\r`, U+0085,
//! U+2028) must stay inside its literal or its comment line.
//!
//! Two checks, for every strategy and every library:
//! - property: random strings in every free-text field give a snippet whose
//!   code (every line that is not a comment, with string literals blanked)
//!   is line for line the code of the same config with a plain value;
//! - Python: snippets made from injection payloads parse with Python's own
//!   `ast`, with the same statements as the plain snippet.
#![cfg(feature = "cli")]

#[path = "common/snippet_code.rs"]
mod snippet_code;

use chunktui::cli::export_splitter::{snippet, Library};
use chunktui::config::StrategyKind;
use proptest::prelude::*;
use snippet_code::{config, plain, shape_of, Field, FIELDS};
use std::process::Command;

fn assert_same_code(kind: StrategyKind, field: Field, value: &str) -> Result<(), TestCaseError> {
    for lib in Library::ALL {
        let evil = snippet(&config(kind, field, value), lib);
        let good = snippet(&config(kind, field, &plain(value)), lib);
        prop_assert_eq!(
            shape_of(&evil, lib, field),
            shape_of(&good, lib, field),
            "{} -> {} with {:?} = {:?}:\n{}",
            kind,
            lib.name(),
            field,
            value,
            evil
        );
    }
    Ok(())
}

/// Strings made of what breaks out of a line or a literal in Python or Rust.
fn nasty() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\n".to_string()),
        Just("\r".to_string()),
        Just("\r\n".to_string()),
        Just("\u{85}".to_string()),
        Just("\u{2028}".to_string()),
        Just("\u{2029}".to_string()),
        Just("\u{b}\u{c}".to_string()),
        Just("\"".to_string()),
        Just("\"\"\"".to_string()),
        Just("'".to_string()),
        Just("\\".to_string()),
        Just("#".to_string()),
        Just("*/".to_string()),
        Just("__import__('os').system('touch INJECTED')".to_string()),
        "[a-z/. ]{1,6}",
        "\\PC{1,3}",
    ];
    prop::collection::vec(piece, 1..6).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn no_value_adds_a_line_of_code(value in nasty(), kind in prop::sample::select(StrategyKind::ALL.to_vec()),
                                    field in prop::sample::select(FIELDS.to_vec())) {
        assert_same_code(kind, field, &value)?;
    }
}

const PAYLOADS: [&str; 6] = [
    "m\n__import__('os').system('touch INJECTED')\n#",
    "m\r__import__('os').system('touch INJECTED')\r#",
    "m\u{2028}__import__('os').system('touch INJECTED')\u{2028}#",
    "m\u{85}__import__('os').system('touch INJECTED')\u{85}#",
    "m\"\n__import__('os').system('touch INJECTED')\n\"",
    "m\\\n__import__('os').system('touch INJECTED')#",
];

/// Python's own parser reads every payload's snippet as the plain one's
/// statements: nothing more runs.
#[test]
fn python_parses_every_payload_as_the_plain_statements() {
    let dir = tempfile::tempdir().unwrap();
    let mut pairs = Vec::new();
    for &kind in StrategyKind::ALL {
        for field in FIELDS {
            for (p, payload) in PAYLOADS.iter().enumerate() {
                for lib in Library::ALL.into_iter().filter(|&l| l != Library::TextSplitter) {
                    let stem = format!("{kind}-{field:?}-{p}-{}", lib.name());
                    let evil = dir.path().join(format!("{stem}.evil.py"));
                    let good = dir.path().join(format!("{stem}.good.py"));
                    std::fs::write(&evil, snippet(&config(kind, field, payload), lib)).unwrap();
                    std::fs::write(&good, snippet(&config(kind, field, &plain(payload)), lib)).unwrap();
                    pairs.push(format!("{}\t{}", evil.display(), good.display()));
                }
            }
        }
    }
    let list = dir.path().join("pairs.tsv");
    std::fs::write(&list, pairs.join("\n")).unwrap();
    let script = r#"
import ast, sys
bad = []
for line in open(sys.argv[1], encoding="utf-8"):
    evil, good = line.rstrip("\n").split("\t")
    def shape(path):
        tree = ast.parse(open(path, encoding="utf-8").read(), filename=path)
        return [type(n).__name__ for n in ast.walk(tree) if isinstance(n, (ast.stmt, ast.Call))]
    try:
        if shape(evil) != shape(good):
            bad.append(evil + ": other statements than the plain snippet")
    except SyntaxError as e:
        bad.append(evil + ": does not parse: " + str(e))
print("\n".join(bad))
sys.exit(1 if bad else 0)
"#;
    let out = Command::new("python3").arg("-c").arg(script).arg(&list).output().unwrap_or_else(|e| {
        panic!("python3 is needed to parse the exported snippets ({e}): install Python 3 (Debian: apt-get install python3)")
    });
    assert!(
        out.status.success(),
        "{} of {} snippets differ from their plain version:\n{}{}",
        String::from_utf8_lossy(&out.stdout).lines().count(),
        pairs.len(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.path().join("INJECTED").exists());
}
