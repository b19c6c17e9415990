//! End to end, hand-made boundaries: the real binary in tmux. Split a
//! chunk (`|`), join two (`J`), split another and undo it (`z`), save with
//! `e` (the config holds the `[[edits]]`), then insert a paragraph above
//! them in the file from outside: after the hot reload the `✂` mark is on
//! the line the cut's text moved to, the CLI cuts what the screen shows,
//! and a second export still holds the same edits.
//!
//! Like tests/e2e_tmux.rs, this fails (it does not skip) when tmux is
//! missing: `apt-get install -y tmux`, or `scripts/test.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::tmux::{require_tmux, settled_count, Tmux};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

/// Paragraphs of three sentences, every sentence different.
fn text() -> String {
    let mut t = String::from("# Edits by hand\n\n");
    for i in 0..24 {
        t.push_str(&format!(
            "Paragraph {i} opens here with a plain sentence. Topic {i} gets a second sentence of its own. \
             Sentence three closes paragraph {i}.\n\n"
        ));
    }
    t
}

fn write_by_rename(doc: &Path, text: &str) {
    let tmp = doc.with_file_name(".guide.md.swp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, doc).unwrap();
}

/// The `[[edits]]` of a config file.
fn edits_of(config: &Path) -> Vec<chunktui::edits::Edit> {
    let c = chunktui::config::ChunkConfig::load(config).expect("the exported config loads");
    c.edits
}

#[test]
fn edits_in_tmux_split_join_undo_save_and_survive_a_reload() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let doc: PathBuf = dir.path().join("guide.md");
    std::fs::write(&doc, text()).unwrap();
    let tmux = Tmux { socket: format!("chunktui-e2e-edits-{}", std::process::id()) };
    let cmd = format!("{BIN} {} --size 300 --overlap 0; echo EXIT=$?; sleep 60", doc.display());
    tmux.run(&["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", &cmd]);
    let s = tmux.wait_for("first chunks", |s| settled_count(s).is_some());
    assert!(!s.contains('✂'), "no hand-made boundary yet:\n{s}");

    // Split chunk 1. (The chunk count may not grow: the strategy cuts the
    // text after a cut afresh.)
    tmux.keys(&["n", "n", "|"]);
    let s = tmux.wait_for("the split", |s| s.contains("split chunk 1") && settled_count(s).is_some());
    assert!(s.lines().any(|l| l.starts_with('✂')), "the new chunk is marked:\n{s}");
    // Join chunks 3 and 4.
    tmux.keys(&["n", "n", "J"]);
    let s = tmux.wait_for("the join", |s| s.contains("joined chunks 3 and 4") && settled_count(s).is_some());
    let joined = settled_count(&s).unwrap();
    // Split chunk 5 and undo it: the chunks are those before the split again.
    tmux.keys(&["n", "n", "|"]);
    tmux.wait_for("the second split", |s| s.contains("split chunk 5") && settled_count(s).is_some());
    tmux.keys(&["z"]);
    tmux.wait_for("the undo", |s| s.contains("undid: removed cut") && settled_count(s) == Some(joined));
    // The edits panel lists both.
    tmux.keys(&["B"]);
    tmux.wait_for("the edits panel", |s| s.contains(" Edits ") && s.contains("2 edits · 0 stale"));

    // Save.
    tmux.keys(&["e"]);
    tmux.wait_for("export prompt", |s| s.contains("export config to:"));
    tmux.keys(&["Enter"]);
    let config = dir.path().join("chunktui.toml");
    tmux.wait_for("export written", |s| s.contains(&format!("wrote {}", config.display())));
    let saved = std::fs::read_to_string(&config).unwrap();
    assert_eq!(saved.matches("[[edits]]").count(), 2, "{saved}");
    let edits = edits_of(&config);
    let ops: Vec<&str> = edits.iter().map(|e| e.op.name()).collect();
    assert_eq!(ops, ["cut", "join"], "{saved}");

    // Insert a paragraph above both, from outside.
    let added = "An added paragraph goes first now. It pushes every boundary down the file.\n\n";
    let old = text();
    let at = old.find("Paragraph 0").unwrap();
    let new = format!("{}{added}{}", &old[..at], &old[at..]);
    write_by_rename(&doc, &new);
    let s = tmux.wait_for("the reload", |s| s.contains("reloaded") && settled_count(s).is_some());
    let shown = settled_count(&s).unwrap();
    // The cut holds at its moved place: the line holding its text is marked.
    let cut = &edits[0];
    let words: String = cut.after.split(' ').take(3).collect::<Vec<_>>().join(" ");
    let spot = new.find(&format!("{}{}", cut.before, cut.after)).unwrap() + cut.before.len();
    assert_eq!(spot, old.find(&format!("{}{}", cut.before, cut.after)).unwrap() + cut.before.len() + added.len());
    let line = s.lines().find(|l| l.contains(&words)).unwrap_or_else(|| panic!("{words:?} on screen:\n{s}"));
    assert!(line.starts_with('✂'), "the cut's line is marked: {line:?}\n{s}");
    assert_eq!(s.lines().filter(|l| l.starts_with('✂')).count(), 1, "{s}");

    // The CLI cuts what the screen shows, with the saved edits.
    let out = Command::new(BIN).arg("chunk").arg("--config").arg(&config).arg(&doc).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), shown, "CLI chunk count vs the workbench's");
    let starts: Vec<usize> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| v["start"].as_u64().expect("a start") as usize)
        .collect();
    assert!(starts.contains(&spot), "a chunk starts at the moved cut {spot}: {starts:?}");

    // A second export keeps the same edits.
    tmux.keys(&["e"]);
    tmux.wait_for("export prompt", |s| s.contains("export config to:"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("overwrite question", |s| s.contains("overwrite? (y/n)"));
    tmux.keys(&["y"]);
    tmux.wait_for("export written again", |s| s.contains(&format!("wrote {}", config.display())));
    assert_eq!(edits_of(&config), edits);

    tmux.keys(&["q"]);
    let s = tmux.wait_for("the workbench to quit", |s| s.contains("EXIT="));
    assert!(s.contains("EXIT=0"), "{s}");
}
