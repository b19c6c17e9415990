//! Generated questions must be about their passage (`eval --generate`,
//! `tune`), against a scripted model that writes what small local models
//! write: templates ("What is the passage about?", "这段文字主要讲了什么？"),
//! questions that share nothing with their passage, repeats, and a few good
//! ones. Every answer is counted, only the good questions are written, the
//! similarity rules run only with an embedding model named (here a scripted
//! embeddings endpoint), and `tune` stops below its minimum instead of
//! writing a config. (The real local server, SmolLM2-135M on llama.cpp, is
//! tests/llm_server.rs.)

mod common;

use chunktui::config::GenerateOptions;
use chunktui::eval::generate::about;
use common::fake_llm::{answer, chunktui_alone, FakeServer, Reply, Seen};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;
use std::time::Duration;

/// Ten passages, one per paragraph: seven English, three Chinese.
const DOC: &str = "# Kirkenes\n\n\
The lighthouse keeper Ansgar Tollefsen lit the lamp at dusk every evening for forty-one years without missing a single night.\n\n\
In the harbour of Kirkenes the fishing boats returned before noon, heavy with cod, and the auction began at one o'clock sharp.\n\n\
The market square filled with traders from Murmansk who sold furs, tea and copper kettles to the townspeople every Thursday.\n\n\
Ferdinand Berg, the harbour master's clerk, kept a ledger of every ship that entered the fjord between 1898 and 1912.\n\n\
Ferdinand Berg later wrote a short memoir about the winter storms that closed the fjord to shipping for eleven weeks in 1903.\n\n\
The railway to the iron mines at Bjørnevatn opened in 1910 and carried ore down to the quay on wagons built in Sweden.\n\n\
Snow fell so deeply in the winter of 1903 that the schoolhouse roof collapsed and lessons moved into the church vestry.\n\n\
灯塔看守人每天黄昏点亮灯塔，四十一年来从未错过一个夜晚。直到他的儿子从奥斯陆回来，这份辛苦的工作才交给了下一代人继续承担。\n\n\
铁路于一九一零年通往铁矿，矿石由瑞典制造的货车运到码头，再装船运往欧洲各地的钢铁厂进行冶炼，这条铁路一直运营到战争爆发为止。\n\n\
那年冬天的大雪压塌了学校的屋顶，孩子们只好搬到教堂的小房间里上课。一直等到第二年春天，镇上的木匠们才终于把新的屋顶修好了。\n";

/// What the scripted model asks about each passage (by a word in it); the
/// second Ferdinand passage gets `second_ferdinand`, the market one `market`.
fn question_for(passage: &str, second_ferdinand: &str, market: &str) -> String {
    let q = if passage.contains("memoir") {
        second_ferdinand
    } else if passage.contains("Ferdinand") {
        "Who was Ferdinand Berg, the harbour master's clerk?"
    } else if passage.contains("lighthouse") {
        "What is the passage about?"
    } else if passage.contains("harbour") {
        "What is the answer to this question?"
    } else if passage.contains("market") {
        market
    } else if passage.contains("railway") {
        "When did the railway to the iron mines open?"
    } else if passage.contains("Snow fell") {
        "Why did lessons move into the church vestry?"
    } else if passage.contains("灯塔") {
        "这段文字主要讲了什么？"
    } else if passage.contains("铁路") {
        "铁路通往哪里的铁矿？"
    } else if passage.contains("大雪") {
        "他们为什么这样做？"
    } else {
        panic!("a passage the script does not know: {passage}")
    };
    q.to_string()
}

/// A bag of words as a vector: texts that share words are alike.
fn bag(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; 1024];
    for w in about::words(text) {
        let h = w.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        v[(h % 1024) as usize] += 1.0;
    }
    v
}

/// The scripted endpoint: questions by [`question_for`], the agent's grid,
/// and bag-of-words vectors at /v1/embeddings.
fn server(second_ferdinand: &'static str, market: &'static str) -> FakeServer {
    FakeServer::start(move |_, seen: &Seen| {
        if seen.path.ends_with("/embeddings") {
            let inputs = seen.body["input"].as_array().cloned().unwrap_or_default();
            let data: Vec<Value> = inputs
                .iter()
                .enumerate()
                .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": bag(t.as_str().unwrap_or(""))}))
                .collect();
            let body = json!({"object": "list", "data": data, "model": "bag", "usage": {"prompt_tokens": 1, "total_tokens": 1}});
            return Reply { status: 200, headers: vec![], body: body.to_string(), delay: Duration::ZERO };
        }
        let system = seen.body["messages"][0]["content"].as_str().unwrap_or_default();
        let user = seen.body["messages"][1]["content"].as_str().unwrap_or_default();
        if system.contains("plan a search") {
            return answer(
                r#"{"strategies": ["recursive", "sentence"], "sizes": [150, 300], "reason": "short prose"}"#,
            );
        }
        let passage = user.split("Passage:\n").nth(1).unwrap_or_default();
        answer(&json!({"question": question_for(passage, second_ferdinand, market)}).to_string())
    })
}

struct Run {
    out: Output,
    stderr: String,
}

fn chunktui(dir: &Path, args: &[&str]) -> Run {
    let out = chunktui_alone(dir, args).output().expect("run chunktui");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    Run { out, stderr }
}

/// The questions of a generated CSV with their reference texts.
fn questions(csv: &str) -> Vec<(String, String)> {
    csv::Reader::from_reader(csv.as_bytes())
        .records()
        .map(|row| {
            let row = row.unwrap();
            let refs: Value = serde_json::from_str(&row[1]).unwrap();
            (row[0].to_string(), refs[0]["content"].as_str().unwrap().to_string())
        })
        .collect()
}

/// The line that counts every answer.
fn counts(stderr: &str) -> &str {
    stderr.lines().find(|l| l.contains("answers asked")).unwrap_or_else(|| panic!("no counts in: {stderr}"))
}

#[test]
fn only_questions_about_their_passage_are_kept_and_every_answer_is_counted() {
    let dir = common::Dir::new();
    std::fs::write(dir.path("doc.md"), DOC).unwrap();
    let llm = server("who was ferdinand berg, the harbour master's clerk", "Why does it matter to them?");
    let args = ["eval", "doc.md", "--generate", "20", "--out", "q.csv", "--llm-url", &llm.url, "--llm-model", "m"];
    let run = chunktui(dir.root(), &args);
    assert!(run.out.status.success(), "{}", run.stderr);
    // Every passage was asked about once; what became of each answer.
    assert_eq!(llm.seen().len(), 10, "one request per passage");
    assert_eq!(
        counts(&run.stderr),
        "chunktui: 10 answers asked, 4 questions kept; rejected: not found 0, generic 5 (3 templates, 2 sharing no \
         word with their passage), duplicates 1, empty or copied 0; similarity not checked (no embedding model named)"
    );
    // Fewer than asked for: said plainly, with what to do.
    for part in [
        "wrote 4 questions to q.csv, fewer than the 20 asked for: every passage of the documents was asked about",
        "a stronger model",
        "--generate-mode quote",
        "more documents",
    ] {
        assert!(run.stderr.contains(part), "{part:?} in:\n{}", run.stderr);
    }
    let kept = questions(&std::fs::read_to_string(dir.path("q.csv")).unwrap());
    assert_eq!(kept.len(), 4, "{kept:?}");
    kept_ferdinand(&kept);
    for q in [
        "When did the railway to the iron mines open?",
        "Why did lessons move into the church vestry?",
        "铁路通往哪里的铁矿？",
    ] {
        assert!(kept.iter().any(|(k, _)| k == q), "{q} kept: {kept:?}");
    }
    for (q, reference) in &kept {
        assert!(about::shared(q, reference) >= 1, "{q} shares content with {reference}");
        assert!(!about::is_template(q), "{q}");
    }
}

/// The Ferdinand question kept: whichever of the two came first in the seed's order.
fn kept_ferdinand(kept: &[(String, String)]) -> String {
    let ferdinand: Vec<&String> =
        kept.iter().map(|(q, _)| q).filter(|q| q.to_lowercase().contains("ferdinand")).collect();
    assert_eq!(ferdinand.len(), 1, "one of the two Ferdinand questions: {kept:?}");
    ferdinand[0].clone()
}

#[test]
fn with_an_embedding_model_far_questions_and_near_duplicates_are_dropped_by_the_settings() {
    let dir = common::Dir::new();
    std::fs::write(dir.path("doc.md"), DOC).unwrap();
    // The thresholds come from [generate]: a lower similarity floor, a lower duplicate ceiling.
    std::fs::write(dir.path("gen.toml"), "[generate]\nmin_similarity = 0.2\nduplicate_similarity = 0.6\n").unwrap();
    let llm = server("Who was Ferdinand Berg, the memoir writer?", "Is Murmansk cold?");
    let url = llm.url.clone();
    let mut args = vec!["eval", "doc.md", "--generate", "20", "--out", "q.csv", "--llm-url", &url, "--llm-model", "m"];
    args.extend(["--embed-url", &url, "--embed-model", "bag", "--config", "gen.toml"]);
    let run = chunktui(dir.root(), &args);
    assert!(run.out.status.success(), "{}", run.stderr);
    assert_eq!(
        counts(&run.stderr),
        "chunktui: 10 answers asked, 4 questions kept; rejected: not found 0, generic 5 (3 templates, 1 sharing no \
         word with their passage, 1 less similar to their passage than 0.2), duplicates 1, empty or copied 0"
    );
    let embedded = llm.seen().iter().filter(|s| s.path.ends_with("/embeddings")).count();
    assert!(embedded >= 1, "the endpoint embedded the questions");
    let kept = questions(&std::fs::read_to_string(dir.path("q.csv")).unwrap());
    assert!(kept.iter().all(|(q, _)| q != "Is Murmansk cold?"), "{kept:?}");
    kept_ferdinand(&kept);
    for (q, reference) in &kept {
        assert!(about::shared(q, reference) >= 1 && !about::is_template(q), "{q}");
    }
    // Without the endpoint the same answers (from the cache) pass the word rules.
    let plain = chunktui(dir.root(), &args[..10]);
    assert!(plain.out.status.success(), "{}", plain.stderr);
    assert!(counts(&plain.stderr).starts_with("chunktui: 10 answers asked, 6 questions kept;"), "{}", plain.stderr);
    assert!(plain.stderr.contains("llm: 0 requests"), "{}", plain.stderr);
}

#[test]
fn tune_stops_with_too_few_usable_questions_instead_of_writing_a_config() {
    let dir = common::Dir::new();
    std::fs::create_dir_all(dir.path("docs")).unwrap();
    std::fs::write(dir.path("docs/doc.md"), DOC).unwrap();
    let llm = server("who was ferdinand berg, the harbour master's clerk", "Why does it matter to them?");
    let url = llm.url.clone();
    let base = ["tune", "docs", "--generate", "10", "--retriever", "bm25", "--llm-url", &url, "--llm-model", "m"];
    let mut args = base.to_vec();
    args.extend(["--best", "best.toml"]);
    let run = chunktui(dir.root(), &args);
    assert_eq!(run.out.status.code(), Some(2), "{}", run.stderr);
    assert!(counts(&run.stderr).starts_with("chunktui: 10 answers asked, 4 questions kept;"), "{}", run.stderr);
    for part in [
        "only 4 usable questions of the 10 asked for, fewer than the 5 tune ranks settings on: no config written",
        "(the 4 kept are in best.questions.csv)",
        "a stronger model",
        "A ranking on so few questions is noise. Every passage of the documents was asked about",
        "or rank on these anyway with --min-questions 4.",
    ] {
        assert!(run.stderr.contains(part), "{part:?} in:\n{}", run.stderr);
    }
    assert!(!dir.path("best.toml").exists(), "no config from 4 questions");
    assert_eq!(questions(&std::fs::read_to_string(dir.path("best.questions.csv")).unwrap()).len(), 4);
    // The minimum is the user's to lower: then the sweep runs and the config is written.
    let mut args = base.to_vec();
    args.extend(["--best", "low.toml", "--min-questions", "4"]);
    let run = chunktui(dir.root(), &args);
    assert!(run.out.status.success(), "{}", run.stderr);
    assert!(dir.path("low.toml").exists());
    // Or from a config file's [generate] min_questions.
    std::fs::write(dir.path("min3.toml"), "[generate]\nmin_questions = 3\n").unwrap();
    let mut args = base.to_vec();
    args.extend(["--best", "three.toml", "--config", "min3.toml"]);
    let run = chunktui(dir.root(), &args);
    assert!(run.out.status.success(), "{}", run.stderr);
    assert!(
        run.stderr.contains("4 questions written to three.questions.csv, fewer than the 10 asked for"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_help_states_the_defaults_and_config_check_refuses_bad_thresholds() {
    let dir = common::Dir::new();
    let d = GenerateOptions::default();
    for command in ["eval", "tune"] {
        let help = chunktui(dir.root(), &[command, "--help"]);
        let text = String::from_utf8_lossy(&help.out.stdout).into_owned();
        for line in [
            format!("min_shared = {}", d.min_shared),
            format!("min_similarity = {}", d.min_similarity),
            format!("duplicate_similarity = {}", d.duplicate_similarity),
            format!("attempts = {}", d.attempts),
            format!("min_questions = {}", d.min_questions),
        ] {
            assert!(text.contains(&line), "{command} --help states {line}:\n{text}");
        }
    }
    std::fs::write(dir.path("bad.toml"), "version = 1\n[generate]\nmin_similarity = 1.5\n").unwrap();
    let check = chunktui(dir.root(), &["config", "check", "bad.toml"]);
    assert_eq!(check.out.status.code(), Some(2), "{}", check.stderr);
    assert!(check.stderr.contains("generate.min_similarity 1.5 is out of range"), "{}", check.stderr);
}
