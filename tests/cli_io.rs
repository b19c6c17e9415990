//! Where `chunktui` reads from and writes to, through the real binary.
//!
//! Output (`-o`, and stdout for `config init` / `config check`): a regular
//! file is replaced atomically keeping its permissions, a symlink keeps
//! pointing at its (replaced) target, devices and FIFOs are written in place
//! and stay what they are, `/dev/full` is "no space left" with exit 2, a
//! closed pipe is exit 0 without a word, and the input document is never
//! overwritten, whatever name reaches it (from the workbench's export too,
//! driven in tmux).
//!
//! Input: every file has a size cap and none can make chunktui read forever
//! or block without a word: `/dev/zero` as document, stdin, config,
//! tokenizer, theme or keymap ends with exit 2 and one line; an endless
//! text stream stops at `--max-input-mb`; FIFOs given as settings files are
//! refused before anything opens them; a document FIFO that stays silent at
//! a terminal says what chunktui waits for.
//!
//! Every run has a generous deadline (a hang guard, not a speed test): a
//! child still running after it is killed and the test fails.
#![cfg(all(feature = "cli", unix))]

use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");
const DOC: &str = "# Notes\n\nChunks are byte ranges into the text.\n\n## More\n\nA second paragraph, long enough.\n";
/// Hang guard: far above what any of these runs needs.
const DEADLINE: Duration = Duration::from_secs(60);

fn chunktui() -> Command {
    let mut cmd = Command::new(BIN);
    // NO_COLOR would skip reading a --theme file.
    cmd.env_remove("RUST_BACKTRACE").env_remove("NO_COLOR").stdin(Stdio::null());
    cmd.env_remove("CHUNKTUI_MAX_CONFIG_MB").env_remove("CHUNKTUI_MAX_TOKENIZER_MB");
    cmd
}

/// Run to the end, or kill at the deadline and fail.
fn finish(mut cmd: Command) -> Output {
    let what = format!("{cmd:?}");
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn chunktui");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let status = common::wait_or_kill(&mut child, DEADLINE, &what);
    Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

fn run(args: &[&str]) -> Output {
    let mut cmd = chunktui();
    cmd.args(args);
    finish(cmd)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit 2 with exactly one `chunktui: error:` line containing every `needle`.
fn assert_refused(out: &Output, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "expected exit 2, stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err}");
    assert!(err.starts_with("chunktui: error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "expected {n:?} in: {err}");
    }
}

fn assert_ok(out: &Output) {
    assert!(out.status.success(), "failed ({:?}): {}", out.status.code(), stderr(out));
}

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Self {
        let d = Dir(tempfile::tempdir().unwrap());
        std::fs::write(d.path("doc.md"), DOC).unwrap();
        d
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
    fn s(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.0.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into())
            .collect();
        v.sort();
        v
    }
    fn fifo(&self, name: &str) -> PathBuf {
        let p = self.path(name);
        let status = Command::new("mkfifo")
            .arg(&p)
            .status()
            .unwrap_or_else(|e| panic!("these tests need mkfifo (coreutils) on PATH: {e}"));
        assert!(status.success(), "mkfifo {} failed", p.display());
        p
    }
}

/// What `chunk doc.md` prints on stdout: what every `-o` target should receive.
fn expected(d: &Dir) -> Vec<u8> {
    let out = run(&["chunk", &d.s("doc.md")]);
    assert_ok(&out);
    assert!(!out.stdout.is_empty());
    out.stdout
}

fn is_char_device(p: &str) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_char_device())
}

// ---------------------------------------------------------------- output

#[test]
fn output_to_dev_full_is_no_space_left_and_the_device_stays() {
    let d = Dir::new();
    let out = run(&["chunk", &d.s("doc.md"), "-o", "/dev/full"]);
    assert_refused(&out, &["/dev/full", "no space left on device", "free some space"]);
    assert!(is_char_device("/dev/full"), "/dev/full is no longer a character device");
}

#[test]
fn output_dash_is_standard_output_not_a_file_named_dash() {
    let d = Dir::new();
    let want = expected(&d);
    for args in [vec!["chunk", "doc.md", "-o", "-"], vec!["export", "--table", "--output", "-"]] {
        let mut cmd = chunktui();
        cmd.args(&args).current_dir(d.0.path());
        let out = finish(cmd);
        assert_ok(&out);
        assert!(!out.stdout.is_empty(), "{args:?} printed nothing");
        if args[0] == "chunk" {
            assert_eq!(out.stdout, want);
        }
        assert_eq!(d.names(), ["doc.md"], "{args:?} wrote a file");
    }
}

#[test]
fn output_to_dev_null_succeeds_and_the_device_stays() {
    let d = Dir::new();
    assert_ok(&run(&["chunk", &d.s("doc.md"), "-o", "/dev/null"]));
    assert!(is_char_device("/dev/null"), "/dev/null is no longer a character device");
    assert_eq!(d.names(), ["doc.md"], "no temp file left in the document's folder");
}

#[test]
fn output_to_a_fifo_is_written_through_and_the_fifo_stays() {
    let d = Dir::new();
    let fifo = d.fifo("out.fifo");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    assert_ok(&run(&["chunk", &d.s("doc.md"), "-o", &d.s("out.fifo")]));
    assert_eq!(reader.join().unwrap(), expected(&d));
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO was replaced");
    assert_eq!(d.names(), ["doc.md", "out.fifo"]);
}

#[test]
fn output_through_a_symlink_replaces_the_target_and_keeps_the_link() {
    let d = Dir::new();
    std::fs::write(d.path("out.jsonl"), "old").unwrap();
    std::os::unix::fs::symlink("out.jsonl", d.path("link.jsonl")).unwrap();
    assert_ok(&run(&["chunk", &d.s("doc.md"), "-o", &d.s("link.jsonl")]));
    assert!(std::fs::symlink_metadata(d.path("link.jsonl")).unwrap().file_type().is_symlink(), "link replaced");
    assert_eq!(std::fs::read_link(d.path("link.jsonl")).unwrap(), Path::new("out.jsonl"));
    assert_eq!(std::fs::read(d.path("out.jsonl")).unwrap(), expected(&d));
    // A dangling link gets its target created, and stays a link.
    std::os::unix::fs::symlink("new.jsonl", d.path("dangling")).unwrap();
    assert_ok(&run(&["chunk", &d.s("doc.md"), "-o", &d.s("dangling")]));
    assert!(std::fs::symlink_metadata(d.path("dangling")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(d.path("new.jsonl")).unwrap(), expected(&d));
    assert_eq!(d.names(), ["dangling", "doc.md", "link.jsonl", "new.jsonl", "out.jsonl"]);
}

#[test]
fn output_keeps_the_permissions_of_the_file_it_replaces() {
    let d = Dir::new();
    for mode in [0o600, 0o640, 0o755] {
        let out = d.path("out.jsonl");
        std::fs::write(&out, "old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(mode)).unwrap();
        assert_ok(&run(&["chunk", &d.s("doc.md"), "-o", &d.s("out.jsonl")]));
        assert_eq!(std::fs::read(&out).unwrap(), expected(&d));
        let now = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(now, mode, "mode {mode:o} became {now:o}");
    }
}

#[test]
fn output_over_the_input_document_is_refused_by_any_name() {
    let d = Dir::new();
    std::fs::hard_link(d.path("doc.md"), d.path("hard.md")).unwrap();
    std::os::unix::fs::symlink("doc.md", d.path("soft.md")).unwrap();
    let doc = d.s("doc.md");
    let dot = format!("{}/./doc.md", d.0.path().display());
    let cases: [(&str, &str); 5] =
        [(&doc, &doc), (&doc, &dot), (&doc, &d.s("hard.md")), (&doc, &d.s("soft.md")), (&d.s("soft.md"), &doc)];
    for (input, output) in cases {
        let out = run(&["chunk", input, "-o", output]);
        assert_refused(&out, &["document being chunked", "choose another output path"]);
        assert_eq!(
            std::fs::read_to_string(d.path("doc.md")).unwrap(),
            DOC,
            "chunk {input} -o {output} changed the input"
        );
    }
    // Standard input redirected from the document.
    let mut cmd = chunktui();
    cmd.args(["chunk", "-", "-o", &doc]).stdin(std::fs::File::open(d.path("doc.md")).unwrap());
    assert_refused(&finish(cmd), &["document being chunked", "standard input"]);
    assert_eq!(std::fs::read_to_string(d.path("doc.md")).unwrap(), DOC);
    assert_eq!(d.names(), ["doc.md", "hard.md", "soft.md"], "no temp file left");
}

#[test]
fn output_to_a_directory_or_a_socket_is_refused() {
    let d = Dir::new();
    std::fs::create_dir(d.path("folder")).unwrap();
    assert_refused(&run(&["chunk", &d.s("doc.md"), "-o", &d.s("folder")]), &["is a directory", "give a file path"]);
    let _socket = std::os::unix::net::UnixListener::bind(d.path("sock")).unwrap();
    assert_refused(&run(&["chunk", &d.s("doc.md"), "-o", &d.s("sock")]), &["is a socket", "give a file path"]);
    assert!(std::fs::symlink_metadata(d.path("sock")).unwrap().file_type().is_socket(), "the socket was replaced");
}

/// A pipe whose reader has already gone: the write end of `true`'s stdin.
fn closed_pipe() -> Stdio {
    let mut t = Command::new("true").stdin(Stdio::piped()).spawn().expect("spawn true");
    let w = t.stdin.take().unwrap();
    t.wait().unwrap();
    Stdio::from(w)
}

/// A complete config, as `config init` writes it.
fn config_text() -> String {
    let out = run(&["config", "init", "--size", "300", "--overlap", "30"]);
    assert_ok(&out);
    String::from_utf8(out.stdout).unwrap()
}

fn config_commands(d: &Dir) -> Vec<Vec<String>> {
    std::fs::write(d.path("c.toml"), config_text()).unwrap();
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    vec![s(&["config", "init"]), s(&["config", "init", "--json"]), s(&["config", "check", &d.s("c.toml")])]
}

#[test]
fn config_commands_into_a_closed_pipe_exit_quietly() {
    let d = Dir::new();
    for args in config_commands(&d) {
        let mut cmd = chunktui();
        cmd.args(&args);
        let mut child = cmd.stdout(closed_pipe()).stderr(Stdio::piped()).spawn().unwrap();
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?} printed on a closed pipe");
    }
    // And when the reader leaves after one byte (`| head -c1`).
    for args in config_commands(&d) {
        let mut child = chunktui().args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut one = [0u8; 1];
        child.stdout.take().unwrap().read_exact(&mut one).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn config_and_stats_output_on_a_full_disk_is_exit_2() {
    let d = Dir::new();
    let mut all = config_commands(&d);
    all.push(vec!["stats".into(), d.s("doc.md")]);
    all.push(vec!["chunk".into(), d.s("doc.md")]);
    for args in all {
        let mut cmd = chunktui();
        cmd.args(&args).stdout(std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap());
        let mut child = cmd.stderr(Stdio::piped()).spawn().unwrap();
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("standard output: no space left on device") && err.contains("free some space"), "{err}");
    }
}

#[test]
fn help_and_version_on_a_full_disk_are_exit_2_and_into_a_closed_pipe_exit_0() {
    let full = || Stdio::from(std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap());
    for flag in ["--help", "--version"] {
        for (stdout, code) in [(full(), 2), (closed_pipe(), 0)] {
            let mut child = chunktui().arg(flag).stdout(stdout).stderr(Stdio::piped()).spawn().unwrap();
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            assert_eq!(child.wait().unwrap().code(), Some(code), "{flag}: {err}");
            if code == 2 {
                assert!(err.contains("standard output: no space left on device"), "{flag}: {err}");
            }
        }
    }
}

// ---------------------------------------------------------------- input

#[test]
fn dev_zero_as_any_input_ends_with_exit_2() {
    let d = Dir::new();
    let doc = d.s("doc.md");
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (vec!["chunk", "/dev/zero"], &["/dev/zero", "binary"]),
        (vec!["stats", "/dev/zero"], &["/dev/zero", "binary"]),
        (vec!["/dev/zero"], &["/dev/zero", "binary"]),
        (vec!["config", "check", "/dev/zero"], &["character device", "config file"]),
        (vec!["chunk", &doc, "--config", "/dev/zero"], &["character device", "config file"]),
        (vec!["chunk", &doc, "--unit", "tokens", "--tokenizer", "hf:/dev/zero"], &["character device", "tokenizer"]),
        (vec![&doc, "--theme", "/dev/zero"], &["character device", "theme file"]),
        (vec![&doc, "--keymap", "/dev/zero"], &["character device", "keymap file"]),
        (vec![&doc, "--compare", "/dev/zero"], &["character device", "config file"]),
    ];
    for (args, needles) in cases {
        assert_refused(&run(&args), needles);
    }
    let mut cmd = chunktui();
    cmd.args(["chunk", "-"]).stdin(std::fs::File::open("/dev/zero").unwrap());
    assert_refused(&finish(cmd), &["standard input", "binary"]);
}

#[test]
fn an_endless_text_stream_stops_at_the_document_limit() {
    let mut cmd = chunktui();
    cmd.args(["chunk", "-", "--max-input-mb", "1"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Feed text until chunktui stops reading (the write then fails).
    let feeder = std::thread::spawn(move || {
        let line = b"endless text, never a NUL byte\n".repeat(256);
        let started = Instant::now();
        while started.elapsed() < DEADLINE && stdin.write_all(&line).is_ok() {}
    });
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("chunk - on an endless stream still running after {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_refused(&out, &["standard input", "1 MiB limit", "--max-input-mb"]);
}

#[test]
fn files_over_their_limit_name_the_flag_or_variable_that_raises_it() {
    let d = Dir::new();
    std::fs::write(d.path("big.md"), "word ".repeat((2 << 20) / 5 + 1)).unwrap();
    assert_refused(
        &run(&["chunk", &d.s("big.md"), "--max-input-mb", "1"]),
        &["over the 1 MiB limit", "--max-input-mb"],
    );
    assert_ok(&run(&["stats", &d.s("big.md"), "--max-input-mb", "3"]));
    assert_refused(&run(&["chunk", &d.s("doc.md"), "--max-input-mb", "0"]), &["--max-input-mb"]);

    // A config a byte over 1 MiB (valid TOML: a comment), then allowed by the variable.
    let mut big = config_text() + "# ";
    big.push_str(&"x".repeat((1 << 20) - big.len() + 1));
    std::fs::write(d.path("big.toml"), big).unwrap();
    assert_refused(&run(&["config", "check", &d.s("big.toml")]), &["over the 1 MiB limit", "CHUNKTUI_MAX_CONFIG_MB"]);
    let mut cmd = chunktui();
    cmd.args(["config", "check", &d.s("big.toml")]).env("CHUNKTUI_MAX_CONFIG_MB", "2");
    assert_ok(&finish(cmd));
    let mut cmd = chunktui();
    cmd.args(["config", "check", &d.s("big.toml")]).env("CHUNKTUI_MAX_CONFIG_MB", "lots");
    assert_refused(&finish(cmd), &["CHUNKTUI_MAX_CONFIG_MB=lots", "whole number"]);
}

#[test]
fn fifos_as_settings_files_are_refused_without_blocking() {
    let d = Dir::new();
    let fifo = d.fifo("settings.toml");
    let (doc, f) = (d.s("doc.md"), fifo.display().to_string());
    let hf = format!("hf:{f}");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![&doc, "--theme", &f], "theme file"),
        (vec![&doc, "--keymap", &f], "keymap file"),
        (vec![&doc, "--compare", &f], "config file"),
        (vec!["config", "check", &f], "config file"),
        (vec!["chunk", &doc, "--config", &f], "config file"),
        (vec!["chunk", &doc, "--unit", "tokens", "--tokenizer", &hf], "tokenizer file"),
    ];
    for (args, what) in cases {
        assert_refused(&run(&args), &["is a FIFO, not a regular file", what]);
    }
}

#[test]
fn a_fifo_document_is_read_as_a_stream() {
    let d = Dir::new();
    let fifo = d.fifo("doc.fifo");
    let writer = std::thread::spawn(move || std::fs::write(fifo, DOC).unwrap());
    let out = run(&["chunk", &d.s("doc.fifo")]);
    writer.join().unwrap();
    assert_ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Chunks are byte ranges"));
}

/// Run a shell command line under `script`, so chunktui's stderr is a terminal.
fn at_terminal(line: &str) -> Output {
    let mut cmd = Command::new("script");
    cmd.args(["-qec", line, "/dev/null"]).stdin(Stdio::null()).env("NO_COLOR", "1");
    if let Err(e) = Command::new("script").arg("--version").output() {
        panic!("the terminal notice tests need `script` (util-linux) on PATH: {e}");
    }
    finish(cmd)
}

#[test]
fn a_silent_fifo_at_a_terminal_says_what_chunktui_waits_for() {
    let d = Dir::new();
    let fifo = d.fifo("doc.fifo");
    // The writer comes well after the notice's delay.
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(2));
        std::fs::write(fifo, DOC).unwrap();
    });
    let out = at_terminal(&format!("'{BIN}' chunk '{}'", d.s("doc.fifo")));
    writer.join().unwrap();
    let all = String::from_utf8_lossy(&out.stdout);
    assert!(all.contains("chunktui: waiting for input on FIFO") && all.contains("Ctrl-C cancels"), "{all}");
    assert!(all.contains("Chunks are byte ranges"), "{all}");
    // A pipe that delivers at once gets no notice.
    let out = at_terminal(&format!("printf '# T\\n\\nhello\\n' | '{BIN}' chunk -"));
    let all = String::from_utf8_lossy(&out.stdout);
    assert!(all.contains("hello") && !all.contains("waiting"), "{all}");
}

/// The workbench in tmux (it needs a terminal): `E`, the document's own path
/// typed over the proposal: refused at once, and the document stays as it was.
#[test]
fn workbench_export_over_the_document_is_refused() {
    let tmux_ok = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
    assert!(tmux_ok, "tmux is not installed: this test needs it (apt-get install -y tmux, or run scripts/test.sh)");
    let d = Dir::new();
    let socket = format!("chunktui-io-{}", std::process::id());
    let tmux = |args: &[&str]| {
        let out = Command::new("tmux").arg("-L").arg(&socket).args(args).output().expect("run tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    struct Kill<'a>(&'a str);
    impl Drop for Kill<'_> {
        fn drop(&mut self) {
            let _ = Command::new("tmux").args(["-L", self.0, "kill-server"]).output();
        }
    }
    let _kill = Kill(&socket);
    let dir = d.0.path().display().to_string();
    let cmd = format!("'{BIN}' doc.md; sleep 60");
    tmux(&["new-session", "-d", "-s", "io", "-x", "200", "-y", "30", "-c", &dir, &cmd]);
    let wait_for = |what: &str| {
        let started = Instant::now();
        loop {
            let screen = tmux(&["capture-pane", "-p", "-t", "io"]);
            if screen.contains(what) {
                return screen;
            }
            assert!(started.elapsed() < DEADLINE, "timed out waiting for {what:?}; screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_for("chunk · recursive");
    tmux(&["send-keys", "-t", "io", "E"]);
    wait_for("export chunks to:");
    for _ in 0..40 {
        tmux(&["send-keys", "-t", "io", "BSpace"]);
    }
    tmux(&["send-keys", "-t", "io", "-l", "./doc.md"]);
    tmux(&["send-keys", "-t", "io", "Enter"]);
    // Refused at once: no question about overwriting the document first.
    let screen = wait_for("export failed");
    assert!(screen.contains("document being chunked") && !screen.contains("overwrite?"), "{screen}");
    assert_eq!(std::fs::read_to_string(d.path("doc.md")).unwrap(), DOC, "the export replaced the document");
    assert_eq!(d.names(), ["doc.md"], "no temp file left");
}
