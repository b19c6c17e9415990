//! Random code-like text (keywords, brackets, strings, comments, CJK,
//! emoji, line breaks of every kind) in every language at small sizes:
//! the invariants and the item rule hold, whatever the parser makes of it.

use super::*;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn fragment() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "fn f() { 1 }\n",
        "impl A {\n",
        "pub fn g(&self) -> u8 {\n",
        "def h(x):\n    return x\n",
        "class C:\n",
        "    ",
        "function k() {\n",
        "func (s *S) M() {\n",
        "public void m() {\n",
        "int main(void) {\n",
        "namespace n {\n",
        "@decorator\n",
        "#[attr]\n",
        "/// doc 文档\n",
        "// 注释\n",
        "/* block */",
        "# comment\n",
        "\"string with } inside\"",
        "'c'",
        "{",
        "}",
        "(",
        ")",
        ";",
        ",",
        "\n",
        "\r\n",
        "\n\n",
        "let x = 1;",
        "return y;",
        "中文标识符",
        "👩‍👩‍👧",
        "é",
        "<T>",
        "=>",
    ])
}

fn code() -> impl Strategy<Value = String> {
    proptest::collection::vec(fragment(), 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        // `PROPTEST_CASES=N` for a longer hunt.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(96),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/code_strategy.txt",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_language_keeps_the_invariants(text in code(), size in 1usize..80) {
        for unit in [Unit::Chars, Unit::Words] {
            let checker = Checker::new(&text, unit);
            for language in ["rust", "python", "javascript", "typescript", "go", "java", "c", "cpp"] {
                let cfg = code_config(Some(language), unit, size);
                let chunks = run_and_check(&checker, &cfg).map_err(TestCaseError::fail)?.unwrap();
                let split = split_items(&text, language, &chunks, &checker, size);
                prop_assert!(split.is_empty(), "{language} {unit} {size}: {split:?} in {text:?}");
            }
        }
    }
}
