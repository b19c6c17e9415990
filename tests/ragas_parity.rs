//! `eval --judge`'s formulas against the `ragas` package itself (pinned in
//! tests/python/requirements-ragas.txt; scripts/test.sh installs it into a
//! venv in the user cache and exports its python as CHUNKTUI_RAGAS_PYTHON). The same verdicts and the same judge answers go to
//! chunktui's functions and to RAGAS's `NonLLMContextPrecisionWithReference`
//! and `ContextRelevance` (tests/python/ragas_formulas.py, with a stand-in
//! LLM that gives the answers), and the scores must agree. Never skipped:
//! without the venv it fails and says what to run.

use chunktui::eval::judge::{combine, context_precision, rating, trivial_relevance};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn ragas_python() -> PathBuf {
    const HOW: &str = "run `bash scripts/test.sh`, or set CHUNKTUI_RAGAS_PYTHON to the python of a venv made by \
         `bash scripts/setup-venv.sh ragas tests/python/requirements-ragas.txt` (it prints the venv's folder)";
    let python = std::env::var_os("CHUNKTUI_RAGAS_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("CHUNKTUI_RAGAS_PYTHON is not set: {HOW}"));
    assert!(python.is_file(), "{} is missing: {HOW}", python.display());
    python
}

#[test]
fn judge_scores_equal_ragas_on_the_same_verdicts_and_answers() {
    let verdicts: Vec<Vec<bool>> = vec![
        vec![true, false, true],
        vec![false, false, false],
        vec![false, true],
        vec![true],
        vec![],
        vec![false, true, true, false, true],
        vec![true, true, false, false, false, false, true],
    ];
    // (question, contexts, judge 1's answer, judge 2's answer)
    let relevance: Vec<(&str, Vec<&str>, &str, &str)> = vec![
        ("What is ownership?", vec!["Ownership is a set of rules.", "Other text."], "{\"score\": 2}", "{\"score\": 1}"),
        ("What is ownership?", vec!["Unrelated."], "0", "0"),
        ("What is ownership?", vec!["Ownership is a set of rules."], "The score is 1 of 2", "2"),
        ("What is ownership?", vec!["Ownership."], "no idea", "1"),
        ("What is ownership?", vec!["Ownership."], "no idea", "none"),
        ("What is ownership?", vec!["What is ownership?"], "2", "2"),
        ("What is ownership?", vec!["ownership"], "2", "2"),
        ("  ", vec!["text"], "2", "2"),
        ("所有权是什么？", vec!["所有权是 Rust 最独特的功能。"], "{\"score\": 2}", "{\"score\": 2}"),
    ];
    let cases = json!({
        "precision": verdicts.iter().map(|v| v.iter().map(|&b| u8::from(b)).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "relevance": relevance.iter().map(|(q, c, a, b)| json!({"question": q, "contexts": c, "answers": [a, b]})).collect::<Vec<_>>(),
    });
    let mut child = Command::new(ragas_python())
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/ragas_formulas.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ragas_formulas.py");
    child.stdin.take().unwrap().write_all(cases.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "ragas_formulas.py: {}", String::from_utf8_lossy(&out.stderr));
    let theirs: Value = serde_json::from_slice(&out.stdout).unwrap();

    for (v, t) in verdicts.iter().zip(theirs["precision"].as_array().unwrap()) {
        let ours = context_precision(v);
        assert!((ours - t.as_f64().unwrap()).abs() < 1e-12, "{v:?}: chunktui {ours}, ragas {t}");
    }
    let mut compared = 0;
    for ((q, c, a, b), t) in relevance.iter().zip(theirs["relevance"].as_array().unwrap()) {
        let ours = trivial_relevance(q, c).or_else(|| combine(rating(a), rating(b)));
        assert_eq!(ours, t.as_f64(), "{q:?} {c:?} {a:?}/{b:?}: chunktui {ours:?}, ragas {t}");
        compared += 1;
    }
    assert_eq!(compared, relevance.len());
}
