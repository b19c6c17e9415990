use super::*;
use crate::chunker::Chunker;
use crate::config::Unit;

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

#[test]
fn without_a_grammar_the_stretch_around_a_screen_is_cut_as_the_whole_cut_cuts_it() {
    // Definitions big and small, indented and not, prose between: the code
    // preset's first level is the lines that start a definition.
    let mut text = String::new();
    for i in 0..40 {
        let body = "    let x = step(x);\n".repeat(1 + (i * 7) % 13);
        text.push_str(&format!("fn f{i}(x: u32) -> u32 {{\n{body}    x\n}}\n\n"));
        if i % 5 == 0 {
            text.push_str("Some words about it, 一些说明。\n  class Inner:\n      pass\n\n");
        }
    }
    let mut found = 0;
    for size in [40, 120, 400] {
        let chunker = Chunker::new(&code_config(None, size)).unwrap();
        let whole = chunker.chunk(&text).unwrap();
        for at in (0..text.len()).step_by(13).filter(|&i| text.is_char_boundary(i)) {
            let screen = at..(at + 60).min(text.len());
            let Some(region) = chunker.region_around(&text, None, screen.clone()) else { continue };
            found += 1;
            assert!(region.start <= screen.start && region.end >= screen.end, "{region:?} holds {screen:?}");
            let alone = chunker.chunk_region(&text, region.clone(), crate::embedding::Control::none()).unwrap();
            let there: Vec<_> = whole.iter().filter(|c| region.contains(&c.range.start)).cloned().collect();
            assert_eq!(alone, there, "size {size}, stretch {region:?} around {screen:?}");
        }
    }
    assert!(found > 100, "stretches found: {found}");
}
