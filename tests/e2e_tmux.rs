//! End to end: the real binary in a real terminal (tmux). Change the size
//! with keys, edit the file from outside and see the reload, export the
//! config, and check that `chunktui chunk --config` agrees with the screen.

use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("run tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "e2e"])
    }
    fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.run(&["send-keys", "-t", "e2e", k]);
        }
    }
    /// Poll the screen until `ok` holds; panic with the last screen after 30 s.
    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.socket, "kill-server"]).output();
    }
}

/// The chunk count in the header, once chunking has settled.
fn settled_count(screen: &str) -> Option<usize> {
    let header = screen.lines().next()?;
    if header.contains("chunking") {
        return None;
    }
    Regex::new(r"(\d+) chunks").unwrap().captures(header)?[1].parse().ok()
}

fn sample_text() -> String {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/guide.md");
    std::fs::read_to_string(sample).unwrap_or_else(|_| {
        (0..40).map(|i| format!("## Section {i}\n\nSome prose for section {i}, long enough to be cut into a few chunks by size.\n\n")).collect()
    })
}

#[test]
fn workbench_in_tmux_resizes_reloads_exports_and_agrees_with_the_cli() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping the end-to-end test");
        return;
    }
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
    let s = tmux.wait_for("reload", |s| {
        s.contains("reloaded") && settled_count(s).is_some_and(|n| n > before_edit)
    });
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
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping the end-to-end test");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = root.join("../shared/models/me5-small-q4");
    assert!(model.join("model.onnx").is_file(), "test model missing at {}", model.display());
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
