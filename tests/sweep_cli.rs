//! `chunktui sweep` through the binary, against hostile or careless use:
//!
//! - a grid of 40,000 distinct combinations starts streaming results at
//!   once (its set-up used to compare every combination with every other
//!   one: minutes before the first result);
//! - `--best` and `--results` are refused over any file the sweep reads
//!   (the document, a folder's documents, the questions, the config, the
//!   grid, a tokenizer), before any work and with the file left intact;
//! - without `--results` the resumable results go to the cache folder, named
//!   by the corpus, questions and grid, and the working directory stays empty.
#![cfg(feature = "cli")]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

const DOC: &str = "# Guide\n\nChunking cuts text into passages. Overlap repeats text. Size matters.\n\n\
                   More text here about retrieval and answers.\n";
const QUESTIONS: &str =
    "{\"question\":\"What does chunking do?\",\"references\":[{\"start_index\":9,\"end_index\":45}]}\n";

/// A folder with `guide.md` and `q.jsonl`, and an empty cache folder.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("guide.md"), DOC).unwrap();
        std::fs::write(dir.path().join("q.jsonl"), QUESTIONS).unwrap();
        std::fs::create_dir(dir.path().join("cache")).unwrap();
        Setup { dir }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    /// `chunktui sweep` run in `cwd` with the cache folder set.
    fn command(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.arg("sweep").args(args).current_dir(cwd).env("CHUNKTUI_CACHE_DIR", self.path("cache")).env("NO_COLOR", "1");
        cmd
    }
    fn run(&self, cwd: &Path, args: &[&str]) -> Output {
        self.command(cwd, args).stdin(Stdio::null()).output().expect("run chunktui sweep")
    }
}

fn list(range: std::ops::Range<usize>) -> String {
    range.map(|i| i.to_string()).collect::<Vec<_>>().join(",")
}

#[test]
fn a_grid_of_forty_thousand_combinations_streams_its_first_result_at_once() {
    let s = Setup::new();
    let results = s.path("r.jsonl");
    let (sizes, overlaps) = (list(100..500), list(0..100));
    let mut child = s
        .command(
            s.dir.path(),
            &[
                "guide.md",
                "--queries",
                "q.jsonl",
                "--retriever",
                "bm25",
                "--size",
                &sizes,
                "--overlap",
                &overlaps,
                "--results",
                results.to_str().unwrap(),
            ],
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    // Comparing each of 40,000 combinations with all the others took minutes
    // before the first one ran; a linear set-up starts within a second or two.
    let started = Instant::now();
    let mut first = None;
    while started.elapsed() < Duration::from_secs(60) {
        let mut text = String::new();
        if let Ok(mut f) = std::fs::File::open(&results) {
            let _ = f.read_to_string(&mut text);
        }
        if text.contains('\n') {
            first = Some(text);
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    let first = first.expect("no result within 60 s of starting a 40,000-combination sweep");
    let line: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert!(line["config"]["size"].as_u64().is_some_and(|s| (100..500).contains(&s)), "{line}");
}

#[test]
fn best_and_results_never_write_over_what_the_sweep_reads() {
    let s = Setup::new();
    std::fs::write(s.path("cfg.toml"), "strategy = \"recursive\"\n").unwrap();
    std::fs::write(s.path("grid.toml"), "size = [40, 80]\n").unwrap();
    std::fs::create_dir(s.path("docs")).unwrap();
    std::fs::write(s.path("docs/guide.md"), DOC).unwrap();
    std::fs::write(s.path("docs/other.md"), "# Other\n\nNot asked about.\n").unwrap();
    let dir = s.dir.path();
    let base = ["--queries", "q.jsonl", "--retriever", "bm25", "--size", "40,80", "--overlap", "0"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["guide.md", "--best", "guide.md"], "guide.md"),
        (vec!["guide.md", "--results", "guide.md"], "guide.md"),
        (vec!["guide.md", "--best", "./q.jsonl"], "q.jsonl"),
        (vec!["guide.md", "--results", "q.jsonl"], "q.jsonl"),
        (vec!["guide.md", "-c", "cfg.toml", "--best", "cfg.toml"], "cfg.toml"),
        (vec!["guide.md", "--grid", "grid.toml", "--results", "grid.toml"], "grid.toml"),
        (vec!["docs", "--corpus-id", "guide", "--best", "docs/guide.md"], "docs/guide.md"),
        (vec!["docs", "--corpus-id", "guide", "--results", "docs/other.md"], "docs/other.md"),
    ];
    for (args, victim) in cases {
        let before = std::fs::read(s.path(victim)).unwrap();
        let mut all: Vec<&str> = args.clone();
        all.extend_from_slice(&base);
        let out = s.run(dir, &all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("choose another output path"), "{args:?}: {stderr}");
        // Refused before any work: no combination ran.
        assert!(!stderr.contains("iou "), "{args:?} ran before refusing: {stderr}");
        assert_eq!(std::fs::read(s.path(victim)).unwrap(), before, "{args:?} changed {victim}");
    }
    // --best and --results on one new file: the best config would replace the results.
    let out = s.run(dir, &[&["guide.md", "--best", "same.out", "--results", "same.out"][..], &base].concat());
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!s.path("same.out").exists());
}

#[test]
fn an_hf_tokenizer_is_not_written_over() {
    let s = Setup::new();
    // The model's tokenizer when there is one (a config naming it is valid), else any file.
    let model_tokenizer = std::env::var_os("CHUNKTUI_MODEL_DIR").map(|d| PathBuf::from(d).join("tokenizer.json"));
    let bytes = model_tokenizer.and_then(|p| std::fs::read(p).ok()).unwrap_or_else(|| b"{}".to_vec());
    std::fs::write(s.path("tok.json"), &bytes).unwrap();
    let out = s.run(
        s.dir.path(),
        &[
            "guide.md",
            "--queries",
            "q.jsonl",
            "--retriever",
            "bm25",
            "--size",
            "40,80",
            "--unit",
            "tokens",
            "--tokenizer",
            "hf:tok.json",
            "--best",
            "tok.json",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(std::fs::read(s.path("tok.json")).unwrap(), bytes, "{stderr}");
}

#[test]
fn results_go_to_the_cache_folder_and_the_working_directory_stays_empty() {
    let s = Setup::new();
    let cwd = s.path("work");
    std::fs::create_dir(&cwd).unwrap();
    let (doc, q) = (s.path("guide.md"), s.path("q.jsonl"));
    let args = [doc.to_str().unwrap(), "--queries", q.to_str().unwrap(), "--retriever", "bm25", "--size", "40,80"];
    let out = s.run(&cwd, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0, "sweep wrote into the working directory");
    let sweeps: Vec<PathBuf> = std::fs::read_dir(s.path("cache/sweeps")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(sweeps.len(), 1, "{sweeps:?}");
    assert!(stderr.contains(&sweeps[0].display().to_string()), "the path is printed: {stderr}");
    assert_eq!(std::fs::read_to_string(&sweeps[0]).unwrap().lines().count(), 2);
    // The same sweep resumes from it; another grid gets its own file.
    let again = s.run(&cwd, &args);
    assert!(String::from_utf8_lossy(&again.stderr).contains("2 of 2 combinations already in"));
    let other = s.run(&cwd, &[&args[..6], &["40,120"]].concat());
    assert!(other.status.success());
    assert_eq!(std::fs::read_dir(s.path("cache/sweeps")).unwrap().count(), 2);
    // Other questions are another sweep too: their scores differ.
    std::fs::write(&q, QUESTIONS.replace("45", "60")).unwrap();
    let asked = s.run(&cwd, &args);
    assert!(!String::from_utf8_lossy(&asked.stderr).contains("already in"));
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0);
}
