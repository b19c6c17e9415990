//! End to end: the real binary in a real terminal (tmux). Change the size
//! with keys, edit the file from outside and see the reload, export the
//! config, and check that `chunktui chunk --config` agrees with the screen;
//! shrink the file under the workbench again and again; kill it with
//! SIGTERM, SIGHUP and SIGINT and find the terminal as it was.
//!
//! These tests fail (they do not skip) when tmux is missing: a skipped
//! end-to-end test reads as a pass. `scripts/test.sh` installs tmux.

use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
mod common;
use common::tmux::{require_tmux, settled_count, Tmux};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

fn sample_text() -> String {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/guide.md");
    std::fs::read_to_string(sample).unwrap_or_else(|_| {
        (0..40).map(|i| format!("## Section {i}\n\nSome prose for section {i}, long enough to be cut into a few chunks by size.\n\n")).collect()
    })
}

#[test]
fn workbench_in_tmux_resizes_reloads_exports_and_agrees_with_the_cli() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let doc: PathBuf = dir.path().join("guide.md");
    std::fs::write(&doc, sample_text()).unwrap();
    let tmux = Tmux { socket: format!("chunktui-e2e-{}", std::process::id()) };
    let cmd = format!("{BIN} {} --size 300 --overlap 50; sleep 60", doc.display());
    tmux.run(&["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "35", &cmd]);

    let s = tmux.wait_for("first chunks", |s| settled_count(s).is_some());
    assert!(s.contains("recursive 300/50 chars"), "{s}");

    // Size down three small steps: 300 -> 290 -> 280 -> 270.
    tmux.keys(&["-", "-", "-"]);
    let s = tmux.wait_for("size 270", |s| s.contains("recursive 270/50") && settled_count(s).is_some());
    let before_edit = settled_count(&s).unwrap();

    // Edit from outside the way editors do: write a temp file, rename it over.
    let mut text = std::fs::read_to_string(&doc).unwrap();
    for i in 0..30 {
        text.push_str(&format!("\nAn added paragraph number {i}, written from outside while the workbench runs.\n"));
    }
    let tmp = dir.path().join(".guide.md.swp");
    std::fs::write(&tmp, &text).unwrap();
    std::fs::rename(&tmp, &doc).unwrap();
    let s = tmux.wait_for("reload", |s| s.contains("reloaded") && settled_count(s).is_some_and(|n| n > before_edit));
    let shown = settled_count(&s).unwrap();

    // Export the config at the proposed path.
    tmux.keys(&["e"]);
    tmux.wait_for("export prompt", |s| s.contains("export config to:"));
    tmux.keys(&["Enter"]);
    let config = dir.path().join("chunktui.toml");
    tmux.wait_for("export written", |s| s.contains(&format!("wrote {}", config.display())));
    assert!(config.exists());

    // A second export asks before overwriting.
    tmux.keys(&["e"]);
    tmux.wait_for("export prompt", |s| s.contains("export config to:"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("overwrite question", |s| s.contains("overwrite? (y/n)"));
    tmux.keys(&["n"]);
    tmux.wait_for("not written", |s| s.contains("not written"));

    // The headless CLI reproduces exactly the chunks the screen showed.
    let out = Command::new(BIN).arg("chunk").arg("--config").arg(&config).arg(&doc).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cli_count = String::from_utf8_lossy(&out.stdout).lines().count();
    assert_eq!(cli_count, shown, "CLI chunk count vs the workbench's");

    tmux.keys(&["q"]);
    tmux.wait_for("the workbench to quit", |s| !s.contains("chunks ·"));
}

#[test]
fn semantic_in_tmux_embeds_in_the_background_then_recuts_from_the_chart() {
    require_tmux();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = common::test_model_dir();
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("zh.md");
    std::fs::copy(root.join("samples/zh-article.md"), &doc).unwrap();
    let tmux = Tmux { socket: format!("chunktui-e2e-sem-{}", std::process::id()) };
    let cmd = format!("{BIN} {} --strategy semantic --model {}; sleep 60", doc.display(), model.display());
    tmux.run(&["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "35", &cmd]);
    let settled = |s: &str| !s.lines().next().unwrap_or("").contains("embedding") && settled_count(s).is_some();

    let s = tmux.wait_for("the analysis", |s| s.contains("sentences embedded") && settled(s));
    assert!(s.contains("me5-small-q4"), "the header names the model:\n{s}");
    assert!(s.contains('✂') && s.contains('┊'), "the chart shows cuts and the threshold:\n{s}");
    let first = settled_count(&s).unwrap();

    // Five steps down re-cut at once, with no embedding in between.
    tmux.keys(&[",", ",", ",", ",", ","]);
    let s = tmux.wait_for("percentile 90", |s| s.contains("percentile 90") && settled(s));
    assert!(!s.contains("embedding "), "a threshold change must not embed:\n{s}");
    let shown = settled_count(&s).unwrap();
    assert!(shown >= first, "{shown} vs {first}");

    tmux.keys(&["e"]);
    tmux.wait_for("export prompt", |s| s.contains("export config to:"));
    tmux.keys(&["Enter"]);
    let config = dir.path().join("chunktui.toml");
    tmux.wait_for("export written", |s| s.contains(&format!("wrote {}", config.display())));
    let out = Command::new(BIN).arg("chunk").arg("--config").arg(&config).arg(&doc).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), shown, "CLI chunk count vs the workbench's");
    tmux.keys(&["q"]);
}

/// The retrieval check in the workbench, with BM25 (no model): the
/// Retrieval panel scores the guide's questions, a typed question lights up
/// its best chunk (`#1` badge), and a size change re-scores and re-asks.
#[test]
fn retrieval_in_tmux_scores_questions_asks_and_follows_the_size() {
    require_tmux();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("guide.md"); // the stem names the questions' corpus_id
    std::fs::copy(root.join("samples/guide.md"), &doc).unwrap();
    let queries = root.join("samples/questions.jsonl");
    let tmux = Tmux { socket: format!("chunktui-e2e-probe-{}", std::process::id()) };
    let cmd = format!(
        "{BIN} {} --queries {} --retriever bm25 --size 300 --overlap 0; echo EXIT=$?; sleep 60",
        doc.display(),
        queries.display()
    );
    tmux.run(&["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "35", &cmd]);
    let recall = Regex::new(r"recall +(\d\.\d{3})").unwrap();
    let s = tmux.wait_for("the Retrieval panel", |s| {
        s.contains("EXIT=") || (s.contains("Retrieval · bm25") && recall.is_match(s) && settled_count(s).is_some())
    });
    assert!(!s.contains("EXIT="), "the workbench exited:\n{s}");
    assert!(s.contains("5 questions"), "the guide's five questions:\n{s}");
    for metric in ["precision", "IoU", "hit rate"] {
        assert!(s.contains(metric), "{metric} in the panel:\n{s}");
    }

    tmux.keys(&["a"]);
    tmux.wait_for("the question box", |s| s.contains("ask (bm25):"));
    tmux.run(&["send-keys", "-t", "e2e", "-l", "how much overlap is too much"]);
    tmux.keys(&["Enter"]);
    let badge = Regex::new(r"#1 \d+\.\d+").unwrap();
    let s = tmux.wait_for("a #1 badge", |s| badge.is_match(s) && s.contains("best chunk"));
    assert!(s.contains(" rk "), "the list has a rank column:\n{s}");

    // A size step: new chunks, scored again next to the old numbers, asked again.
    tmux.keys(&["+"]);
    let s = tmux.wait_for("size 310, re-scored and re-asked", |s| {
        s.contains("recursive 310/0") && settled_count(s).is_some() && s.contains("was 0.") && badge.is_match(s)
    });
    assert!(recall.is_match(&s), "{s}");
    tmux.keys(&["q"]);
    let s = tmux.wait_for("the workbench to quit", |s| s.contains("EXIT="));
    assert!(s.contains("EXIT=0"), "quit cleanly:\n{s}");
}

/// A long Markdown file: hundreds of chunks, CJK and emoji included.
fn long_markdown() -> String {
    (0..300)
        .map(|i| {
            format!("## Section {i}\n\nProse for section {i}, long enough to fill a chunk or two. 中文句子{i}。😀\n\n")
        })
        .collect()
}

fn short_file(marker: &str) -> String {
    format!("# {marker}\nline two\nline three\n")
}

/// Write as editors do: in place (truncate, write), or a temp file renamed over.
fn write_doc(doc: &Path, text: &str, by_rename: bool) {
    if by_rename {
        let tmp = doc.with_extension("md.tmp");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, doc).unwrap();
    } else {
        std::fs::write(doc, text).unwrap();
    }
}

#[test]
fn workbench_survives_a_file_shrinking_under_it_again_and_again() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("long.md");
    std::fs::write(&doc, long_markdown()).unwrap();
    let tmux = Tmux { socket: format!("chunktui-e2e-shrink-{}", std::process::id()) };
    // The shell line after the workbench tells a crash (exit 101) from a run.
    let cmd = format!("{BIN} {} --size 200 --overlap 40; echo EXIT=$?; sleep 60", doc.display());
    tmux.run(&["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "35", &cmd]);
    let alive = |what: &str, ok: &dyn Fn(&str) -> bool| {
        let s = tmux.wait_for(what, |s| s.contains("EXIT=") || ok(s));
        assert!(!s.contains("EXIT="), "the workbench exited while waiting for {what}:\n{s}");
        s
    };
    alive("first chunks", &|s| settled_count(s).is_some_and(|n| n > 50));

    for round in 0..6 {
        // Scroll to the end and select a late chunk: its range lies far past
        // the end of the short file.
        tmux.keys(&["End", "n", "n"]);
        let marker = format!("Short file {round}");
        write_doc(&doc, &short_file(&marker), round % 2 == 1);
        let s = alive(&marker, &|s| s.contains(&marker) && settled_count(s).is_some());
        assert!(s.contains("line three"), "the new text is shown:\n{s}");
        assert!(!s.contains("Section"), "the long text is gone from the screen:\n{s}");
        assert!(settled_count(&s).unwrap() <= 3, "chunks of the short file only:\n{s}");
        tmux.keys(&["j", "N", "+", "G", "-"]);
        write_doc(&doc, &long_markdown(), round % 2 == 0);
        alive("the long file again", &|s| s.contains("Section") && settled_count(s).is_some_and(|n| n > 50));
    }

    // A burst of saves faster than the watcher's debounce, both ways, keys between.
    for i in 0..8 {
        let text = if i % 2 == 0 { short_file("Burst") } else { long_markdown() };
        write_doc(&doc, &text, i % 3 == 0);
        tmux.keys(&["G", "n"]);
        std::thread::sleep(Duration::from_millis(30));
    }
    write_doc(&doc, &short_file("Burst end"), true);
    let s = alive("the last save", &|s| s.contains("Burst end") && settled_count(s).is_some());
    assert!(!s.contains("Section"), "{s}");

    tmux.keys(&["q"]);
    let s = tmux.wait_for("the workbench to quit", |s| s.contains("EXIT="));
    assert!(s.contains("EXIT=0"), "quit cleanly:\n{s}");
}

/// Pid of the workbench: the child of the pane's shell.
fn workbench_pid(shell_pid: &str) -> Option<u32> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
        // pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
        let (head, rest) = stat.rsplit_once(')')?;
        let ppid = rest.split_whitespace().nth(1)?;
        (ppid == shell_pid && head.contains("(chunktui")).then(|| e.file_name().to_str()?.parse().ok())?
    })
}

/// Start the workbench in a pane, send it `signal`, and check that the
/// terminal is back as it was: exit status 128 + signal, normal screen with
/// the text from before, mouse reporting off, cursor shown, echo and
/// canonical input on (`stty -a` run in the same pane afterwards).
fn signal_restores_the_terminal(signal: &str, signo: i32) {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("doc.md");
    std::fs::write(&doc, long_markdown()).unwrap();
    let tmux = Tmux { socket: format!("chunktui-e2e-sig{signal}-{}", std::process::id()) };
    // A non-interactive shell: it leaves the terminal as the workbench left it
    // (an interactive bash would repair it after a job killed by a signal).
    let cmd = format!("echo BEFORE-THE-WORKBENCH; {BIN} {}; echo EXIT=$?; stty -a; sleep 60", doc.display());
    tmux.run(&["new-session", "-d", "-s", "e2e", "-x", "150", "-y", "40", &cmd]);
    tmux.wait_for("the workbench", |s| settled_count(s).is_some());
    assert_eq!(tmux.pane_var("#{alternate_on}"), "1", "the workbench runs on the alternate screen");
    let mouse = "#{mouse_standard_flag}#{mouse_button_flag}#{mouse_any_flag}#{mouse_sgr_flag}";
    assert_ne!(tmux.pane_var(mouse), "0000", "the workbench reports the mouse");

    let shell = tmux.pane_var("#{pane_pid}");
    let pid = workbench_pid(&shell).unwrap_or_else(|| panic!("no chunktui process under the pane's shell {shell}"));
    let killed = Command::new("kill").arg(format!("-{signal}")).arg(pid.to_string()).status().unwrap();
    assert!(killed.success(), "kill -{signal} {pid}");

    let s = tmux.wait_for("the exit status", |s| s.contains("EXIT=") && s.contains("speed"));
    assert!(s.contains(&format!("EXIT={}", 128 + signo)), "dies of SIG{signal} after restoring:\n{s}");
    assert!(s.contains("BEFORE-THE-WORKBENCH"), "the normal screen is back, with what was on it:\n{s}");
    assert!(!s.contains("chunks ·"), "the workbench's screen is gone:\n{s}");
    assert_eq!(tmux.pane_var("#{alternate_on}"), "0", "left the alternate screen");
    assert_eq!(tmux.pane_var(mouse), "0000", "mouse reporting is off");
    assert_eq!(tmux.pane_var("#{cursor_flag}"), "1", "the cursor is shown");
    let joined = tmux.run(&["capture-pane", "-p", "-J", "-t", "e2e"]);
    let stty: Vec<&str> = joined.split(|c: char| c.is_whitespace() || c == ';').collect();
    for flag in ["echo", "icanon", "icrnl", "opost"] {
        assert!(
            stty.contains(&flag) && !stty.contains(&format!("-{flag}").as_str()),
            "stty shows {flag} off:\n{joined}"
        );
    }
}

#[test]
fn sigterm_restores_the_terminal() {
    signal_restores_the_terminal("TERM", 15);
}

#[test]
fn sighup_restores_the_terminal() {
    signal_restores_the_terminal("HUP", 1);
}

#[test]
fn sigint_restores_the_terminal() {
    signal_restores_the_terminal("INT", 2);
}

/// Bytes the process `pid` has read so far (`rchar` of /proc/PID/io).
fn bytes_read(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).expect("read /proc/PID/io");
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("rchar in /proc/PID/io")
}

#[test]
fn reading_the_file_from_outside_sets_off_no_reload_and_keeps_the_status() {
    // The watcher reports an open of the file too: reading it on that
    // event opened it again, and the workbench re-read the file ten times a
    // second from then on, each time putting "… is back" over any error.
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("doc.md");
    let text = long_markdown();
    std::fs::write(&doc, &text).unwrap();
    let tmux = Tmux { socket: format!("chunktui-e2e-read-{}", std::process::id()) };
    let cmd = format!("{BIN} {}; sleep 60", doc.display());
    tmux.run(&["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "35", &cmd]);
    tmux.wait_for("the workbench", |s| settled_count(s).is_some());
    let shell = tmux.pane_var("#{pane_pid}");
    let pid = workbench_pid(&shell).unwrap_or_else(|| panic!("no chunktui process under the pane's shell {shell}"));

    assert_eq!(std::fs::read_to_string(&doc).unwrap(), text, "read from outside");
    std::thread::sleep(Duration::from_millis(500));
    let before = bytes_read(pid);
    std::thread::sleep(Duration::from_millis(1500));
    let read = bytes_read(pid) - before;
    assert!(
        read < text.len() as u64,
        "the workbench read {read} bytes in 1.5 s after an outside read, the file being {} bytes: it reads it again and again",
        text.len()
    );

    tmux.keys(&["/", "zzqq-nowhere", "Enter"]);
    tmux.wait_for("the search's error", |s| s.contains("'zzqq-nowhere' not found"));
    std::thread::sleep(Duration::from_millis(600));
    let s = tmux.screen();
    assert!(s.contains("'zzqq-nowhere' not found") && !s.contains("is back"), "the error stays:\n{s}");

    // A real edit is still picked up.
    std::fs::write(&doc, format!("{text}\nOne more paragraph, written from outside.\n")).unwrap();
    tmux.wait_for("the reload", |s| s.contains("reloaded"));
    tmux.keys(&["q"]);
}
