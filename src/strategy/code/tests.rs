use super::*;
use crate::config::Unit;
use crate::Chunker;

fn code_config(language: Option<&str>, size: usize) -> ChunkConfig {
    let mut c = ChunkConfig { strategy: StrategyKind::Code, unit: Unit::Chars, size, overlap: 0, ..Default::default() };
    c.code.language = language.map(str::to_string);
    c
}

#[test]
fn languages_and_extensions_name_grammars() {
    assert_eq!(grammar_name("rust"), Some("rust"));
    assert_eq!(grammar_name(" TS "), Some("typescript"));
    assert_eq!(grammar_name(".hpp"), Some("cpp"));
    assert_eq!(grammar_name("cobol"), None);
    assert_eq!(preset_for("tsx").as_deref(), Some("javascript"));
    assert_eq!(preset_for("cpp").as_deref(), Some("c"));
    assert_eq!(preset_for("cobol"), None);
}

#[test]
fn the_option_key_cycles_every_grammar_then_none() {
    let mut c = code_config(None, 100);
    let mut seen = Vec::new();
    for _ in 0..=LANGUAGES.len() {
        next_language(&mut c);
        seen.push(c.code.language.clone());
    }
    let expected: Vec<Option<String>> =
        LANGUAGES.iter().map(|l| Some(l.to_string())).chain(std::iter::once(None)).collect();
    assert_eq!(seen, expected);
    c.code.language = Some("cobol".into());
    assert_eq!(shown_language(&c), if cfg!(feature = "code") { "cobol (no grammar)" } else { "cobol" });
}

#[test]
fn unknown_languages_use_their_preset_or_the_code_preset() {
    let text = "def f():\n    return 1\n\ndef g():\n    return 2\n";
    for (language, preset) in [(Some("cobol"), "code"), (None, "code")] {
        let got = Chunker::new(&code_config(language, 20)).unwrap().chunk(text).unwrap();
        let mut rc = ChunkConfig { strategy: StrategyKind::Recursive, size: 20, overlap: 0, ..Default::default() };
        rc.recursive.preset = preset.into();
        let want = Chunker::new(&rc).unwrap().chunk(text).unwrap();
        assert_eq!(got, want, "{language:?}");
    }
}
