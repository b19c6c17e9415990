//! The retrieval metrics against small cases worked out by hand (the
//! arithmetic is in the comments), the question-file checks, and the
//! retrievers' rankings. No model: the dense retriever is tested with the
//! real model in `eval_cli.rs`.

use chunktui::eval::metrics::{score, Located, Report, Scores, Summary};
use chunktui::eval::queries::QuestionSet;
use chunktui::eval::retrieve::{Hit, Hybrid, Lexical, Retriever, Terms};
use chunktui::eval::{evaluate, Chunked, Pool};
use chunktui::Chunk;

fn at(doc: usize, span: std::ops::Range<usize>) -> Located {
    Located { doc, span }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// Chunks 0..20, 15..40, 40..60, 60..100 of one 100-character document.
fn chunks() -> Vec<Located> {
    vec![at(0, 0..20), at(0, 15..40), at(0, 40..60), at(0, 60..100)]
}

#[test]
fn overlapping_chunks_count_twice_in_precision() {
    let all = chunks();
    // Reference 10..30. Retrieved 15..40 then 0..20: together they cover
    // 10..30 (20 chars) of 20 -> recall 1; retrieved characters 25 + 20 = 45
    // -> precision 20/45; nothing uncovered -> IoU 20/45. Chunks touching the
    // reference: 0..20 and 15..40, union 0..40 -> ω = 20/40.
    let s = score(0, &[10..30], &[all[1].clone(), all[0].clone()], &all);
    assert!(close(s.recall, 1.0), "{s:?}");
    assert!(close(s.precision, 20.0 / 45.0), "{s:?}");
    assert!(close(s.iou, 20.0 / 45.0), "{s:?}");
    assert!(close(s.precision_omega, 0.5), "{s:?}");
    assert_eq!((s.hit, s.reciprocal_rank), (1.0, 1.0));
}

#[test]
fn a_reference_across_a_chunk_boundary_is_found_in_part() {
    let all = chunks();
    // Reference 30..50 spans 15..40 and 40..60. Retrieving only 40..60:
    // covered 40..50 = 10 of 20 -> recall 0.5; precision 10/20; uncovered
    // 30..40 = 10 -> IoU 10/(20 + 10). ω: touching chunks 15..40 and 40..60,
    // union 15..60 = 45, covered 20 -> 20/45.
    let s = score(0, &[30..50], &[all[2].clone()], &all);
    assert!(close(s.recall, 0.5), "{s:?}");
    assert!(close(s.precision, 0.5), "{s:?}");
    assert!(close(s.iou, 10.0 / 30.0), "{s:?}");
    assert!(close(s.precision_omega, 20.0 / 45.0), "{s:?}");
    assert_eq!(s.hit, 1.0);
}

#[test]
fn a_chunk_that_only_touches_a_reference_finds_nothing_but_counts_in_omega() {
    let all = chunks();
    // Reference 20..40: 0..20 ends where it starts. Retrieving 0..20 finds
    // no reference character: recall 0, precision 0, IoU 0/(20 + 20), and it
    // is no hit. As in Chroma's evaluation, ω counts every chunk whose range
    // meets the reference, touching ones included: 0..20, 15..40 and 40..60
    // (which starts where it ends) -> union 0..60, covered 20..40 -> 20/60.
    let s = score(0, &[20..40], &[all[0].clone()], &all);
    assert_eq!((s.recall, s.precision, s.iou), (0.0, 0.0, 0.0), "{s:?}");
    assert_eq!((s.hit, s.reciprocal_rank), (0.0, 0.0));
    assert!(close(s.precision_omega, 20.0 / 60.0), "{s:?}");
}

#[test]
fn chunks_of_other_documents_cost_precision_and_rank() {
    let mut all = chunks();
    all.push(at(1, 0..50));
    // Reference 10..30 in document 0. Retrieved: document 1's chunk (50
    // chars, no overlap possible), then 0..20. Covered 10..20 = 10 ->
    // recall 0.5; precision 10 / (50 + 20); uncovered 20..30 -> IoU 10/80;
    // the first hit is at rank 2 -> RR 0.5.
    let s = score(0, &[10..30], &[all[4].clone(), all[0].clone()], &all);
    assert!(close(s.recall, 0.5) && close(s.precision, 10.0 / 70.0) && close(s.iou, 10.0 / 80.0), "{s:?}");
    assert_eq!((s.hit, s.reciprocal_rank), (1.0, 0.5));
}

#[test]
fn two_references_sum_their_lengths() {
    let all = chunks();
    // References 0..10 and 70..90 (30 chars). Retrieved 60..100 covers
    // 70..90 -> recall 20/30, precision 20/40, uncovered 0..10 -> IoU 20/50.
    // ω: chunks 0..20 and 60..100 hold a reference; union 60 chars -> 30/60.
    let s = score(0, &[0..10, 70..90], &[all[3].clone()], &all);
    assert!(close(s.recall, 20.0 / 30.0) && close(s.precision, 0.5) && close(s.iou, 0.4), "{s:?}");
    assert!(close(s.precision_omega, 0.5), "{s:?}");
}

#[test]
fn cjk_text_is_measured_in_characters_not_bytes() {
    // Ten ideographs, 3 bytes each; chunks cut at byte 15 (character 5).
    let text = "甲乙丙丁戊己庚辛壬癸";
    let doc_chunks = [Chunk::new(0..15, 5), Chunk::new(15..30, 5)];
    let pool = Pool::new(&[Chunked { text, chunks: &doc_chunks }]);
    assert_eq!(pool.located, vec![at(0, 0..5), at(0, 5..10)]);
    assert_eq!(pool.texts, vec!["甲乙丙丁戊", "己庚辛壬癸"]);
    // Reference 丁戊己庚 = characters 3..7; retrieving the second chunk
    // covers 5..7 -> recall 2/4, precision 2/5, IoU 2/(5 + 2).
    let s = score(0, &[3..7], &[pool.located[1].clone()], &pool.located);
    assert!(close(s.recall, 0.5) && close(s.precision, 0.4) && close(s.iou, 2.0 / 7.0), "{s:?}");
}

#[test]
fn summaries_are_mean_and_population_std() {
    let s = Summary::of([0.0, 1.0, 1.0, 0.0]);
    assert!(close(s.mean, 0.5) && close(s.std, 0.5), "{s:?}");
    let r = Report::of(&[Scores { recall: 1.0, hit: 1.0, ..Scores::default() }, Scores::default()]);
    assert!(close(r.recall.mean, 0.5) && close(r.hit_rate.std, 0.5), "{r:?}");
}

/// A retriever that answers with a fixed ranking.
struct Fixed(Vec<usize>);

impl Retriever for Fixed {
    fn rank(&self, _: &str, k: usize) -> chunktui::Result<Vec<Hit>> {
        Ok(self.0.iter().take(k).map(|&chunk| Hit { chunk, score: 1.0 }).collect())
    }
}

#[test]
fn evaluate_scores_every_question_over_the_pool() {
    let text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota.";
    let doc_chunks = [Chunk::new(0..17, 17), Chunk::new(18..37, 19), Chunk::new(38..53, 15)];
    let pool = Pool::new(&[Chunked { text, chunks: &doc_chunks }]);
    let qs = QuestionSet::parse_jsonl(
        concat!(
            r#"{"question": "delta?", "references": [{"start_index": 18, "end_index": 37, "content": "Delta epsilon zeta."}]}"#,
            "\n",
            r#"{"question": "eta?", "references": [{"start_index": 38, "end_index": 42}]}"#,
            "\n"
        ),
        "q.jsonl",
    )
    .unwrap();
    let resolved = qs.resolve(&[("doc".to_string(), text)]).unwrap();
    let e = evaluate(&pool, &resolved, &Fixed(vec![1, 0]), 1).unwrap();
    // Question 1: chunk 1 is exactly its reference. Question 2: chunk 1 misses.
    assert_eq!(e.per_question[0].scores.recall, 1.0);
    assert_eq!(e.per_question[0].scores.precision, 1.0);
    assert_eq!(e.per_question[1].scores.recall, 0.0);
    assert_eq!(e.per_question[1].retrieved, vec![1]);
    assert!(close(e.report.recall.mean, 0.5) && close(e.report.mrr.mean, 0.5), "{:?}", e.report);
    let json = serde_json::to_value(&e).unwrap();
    for key in ["recall", "precision", "iou", "precision_omega", "hit_rate", "mrr"] {
        assert!(json[key]["mean"].is_number() && json[key]["std"].is_number(), "{key}: {json}");
    }
    assert_eq!(json["per_question"].as_array().unwrap().len(), 2);
}

fn problem(jsonl: &str, docs: &[(&str, &str)]) -> String {
    let docs: Vec<(String, &str)> = docs.iter().map(|(id, t)| (id.to_string(), *t)).collect();
    match QuestionSet::parse_jsonl(jsonl, "q.jsonl") {
        Err(e) => e.to_string(),
        Ok(qs) => qs.resolve(&docs).err().map(|e| e.to_string()).unwrap_or_default(),
    }
}

#[test]
fn bad_question_files_name_the_row_and_the_problem() {
    let doc = [("a", "héllo wörld, 你好")];
    let cases = [
        (r#"{"question": "x"}"#, "q.jsonl line 2, column 17: missing field `references`:"),
        (
            r#"{"question": "x", "references": [{"start_index": 0, "end_index": 99}]}"#,
            "ends at 99 but a has 15 characters",
        ),
        (
            r#"{"question": "x", "references": [{"start_index": 3, "end_index": 3}]}"#,
            "references[0] is empty or reversed",
        ),
        (
            r#"{"question": "x", "references": [{"start_index": 0, "end_index": 5, "content": "hello"}]}"#,
            "content differs from a at 0..5",
        ),
        (
            r#"{"question": "x", "corpus_id": "b", "references": [{"start_index": 0, "end_index": 5}]}"#,
            "unknown corpus_id 'b'",
        ),
        (
            r#"{"question": "x", "references": [{"start_index": 0, "end_index": 5, "colour": 1}]}"#,
            "unknown field `colour`",
        ),
        ("", "holds no questions"),
    ];
    for (jsonl, expected) in cases {
        let msg = problem(&format!("\n{jsonl}\n"), &doc);
        assert!(msg.contains(expected), "{jsonl}: {msg}");
        assert!(!msg.contains('\n'), "one line: {msg}");
    }
    // Code points, not bytes: 你好 is characters 13..15.
    let ok = r#"{"question": "x", "references": [{"start_index": 13, "end_index": 15, "content": "你好"}]}"#;
    assert_eq!(problem(ok, &doc), "");
    // Two documents and no corpus_id: which one?
    let two = [("a", "one"), ("b", "two")];
    assert!(problem(r#"{"question": "x", "references": [{"start_index": 0, "end_index": 1}]}"#, &two)
        .contains("say which one"));
}

#[test]
fn chromas_csv_layout_reads() {
    let csv = "question,references,corpus_id\n\
               \"What, exactly?\",\"[{\"\"content\"\": \"\"one\"\", \"\"start_index\"\": 0, \"\"end_index\"\": 3}]\",a\n";
    let qs = QuestionSet::parse_csv(csv, "q.csv").unwrap();
    assert_eq!(qs.questions[0].question, "What, exactly?");
    assert_eq!(qs.corpus_ids(), vec!["a"]);
    let resolved = qs.resolve(&[("a".into(), "one two")]).unwrap();
    assert_eq!(resolved[0].references, vec![0..3]);
    let bad = QuestionSet::parse_csv("question,references,corpus_id\nq,not json,a\n", "q.csv").unwrap_err();
    assert!(bad.to_string().starts_with("q.csv row 2: references is not a JSON list"), "{bad}");
}

#[test]
fn bm25_terms_cut_cjk_into_bigrams_and_lowercase_words() {
    assert_eq!(Terms::of("Rust 的所有权"), vec!["rust", "的所", "所有", "有权"]);
    assert_eq!(Terms::of("Ownership, borrowing"), vec!["ownership", "borrowing"]);
    assert_eq!(Terms::of("所有权，借用"), vec!["所有", "有权", "借用"]);
    assert_eq!(Terms::of("字"), vec!["字"]);
}

#[test]
fn bm25_finds_the_chunk_in_english_and_chinese() {
    let chunks = [
        "Ownership rules: each value has an owner.",
        "借用检查器确保引用总是有效的。",
        "所有权是 Rust 最独特的功能。",
        "Closures capture their environment.",
    ];
    let lexical = Lexical::new(&chunks);
    assert_eq!(lexical.rank("what does the borrow checker do? closures capture", 1).unwrap()[0].chunk, 3);
    assert_eq!(lexical.rank("什么是所有权", 1).unwrap()[0].chunk, 2);
    assert_eq!(lexical.rank("借用检查器", 1).unwrap()[0].chunk, 1);
    assert!(lexical.rank("zebra", 3).unwrap().is_empty(), "no shared term, no hit");
}

#[test]
fn hybrid_fuses_by_reciprocal_rank_deterministically() {
    // Ranked [0, 1, 2] and [2, 1, 0]: chunks 0 and 2 score 1/61 + 1/63,
    // more than chunk 1's 2/62 (1/x is convex), and tie: chunk order.
    let h = Hybrid::new(vec![Box::new(Fixed(vec![0, 1, 2])), Box::new(Fixed(vec![2, 1, 0]))], 3);
    let hits = h.rank("q", 3).unwrap();
    let ranked: Vec<usize> = hits.iter().map(|h| h.chunk).collect();
    assert_eq!(ranked, vec![0, 2, 1]);
    assert!(close(hits[0].score, 1.0 / 61.0 + 1.0 / 63.0) && close(hits[2].score, 2.0 / 62.0), "{hits:?}");
}
