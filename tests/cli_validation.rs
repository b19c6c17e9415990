//! Settings chunktui cannot honour and the messages that say so (issue 7,
//! items 4, 9, 10 and 11), through the real binary. Every refusal is exactly
//! one stderr line starting `chunktui: error:` that names the problem and
//! the fix, with exit code 2 and no panic (no "panicked", never 101).
//!
//! - Sizes and counts above 4294967295 (`MAX_COUNT`): `--size 2^63` used to
//!   wrap to a negative LangChain chunk size, `--buffer-size 2^64-1` to
//!   overflow; by flag, TOML and JSON config.
//! - Nonsense: NaN/inf thresholds, thresholds outside their type's range,
//!   sentence overlap >= the sentence limit, `--min-size` > `--size`, a model
//!   input of 0 tokens or more than the model takes (read from its graph).
//! - Messages: clap's argument errors as one line (`--size -5` names the
//!   value, never suggests `-- -5`), TOML errors with line, column and key,
//!   UTF-16 input with the iconv command that converts it, permission denied,
//!   a corrupt model.onnx, the workbench without a terminal.
//!
//! The model tests use the real ONNX Runtime and models (what
//! `scripts/test.sh` sets up); without them they fail and say what to run.
#![cfg(feature = "cli")]

use std::process::{Command, Output, Stdio};
mod common;
use common::Dir;

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

const DOC: &str = "# Notes\n\nChunks are byte ranges. Sizes count chars, words or tokens.\n\n\
## More\n\nA second paragraph, long enough to be split at small sizes. It has three sentences. \
The last one ends here.\n";

fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.env_remove("RUST_BACKTRACE").env_remove("ORT_LOG").env("NO_COLOR", "1");
    cmd
}

fn run(args: &[&str]) -> Output {
    command(args).output().expect("run chunktui")
}

/// Exit 2, one stderr line `chunktui: error: ...` holding every `needle`.
#[track_caller]
fn assert_refused(out: &Output, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked") && out.status.code() != Some(101), "panic:\n{err}");
    assert_eq!(out.status.code(), Some(2), "exit code (stderr: {err})");
    assert_eq!(err.lines().count(), 1, "exactly one stderr line:\n{err}");
    assert!(err.starts_with("chunktui: error: "), "{err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in:\n{err}");
    }
    err
}

#[track_caller]
fn refused(args: &[&str], needles: &[&str]) -> String {
    assert_refused(&run(args), needles)
}

#[track_caller]
fn ok(args: &[&str]) -> String {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "chunktui {args:?} failed ({:?}): {err}", out.status.code());
    String::from_utf8(out.stdout).expect("UTF-8 stdout")
}

impl Dir {
    fn doc(&self) -> String {
        self.write("doc.md", DOC.as_bytes())
    }
}

// ---- 4. buffer size and the other semantic counts -------------------------

#[test]
fn buffer_size_beyond_the_bound_is_refused_not_a_panic() {
    let d = Dir::new();
    let doc = d.doc();
    refused(
        &["chunk", &doc, "--strategy", "langchain-semantic", "--buffer-size", "18446744073709551615"],
        &["--buffer-size 18446744073709551615 is too large", "use at most 4294967295"],
    );
    refused(
        &["chunk", &doc, "--strategy", "semantic", "--buffer-size", "18446744073709551616"],
        &["--buffer-size 18446744073709551616 is too large", "use at most 4294967295"],
    );
    refused(
        &["chunk", &doc, "--strategy", "semantic", "--buffer-size", "-1"],
        &["--buffer-size must be a whole number ≥ 0, not -1"],
    );
}

#[test]
fn semantic_counts_in_a_config_are_bounded_too() {
    let d = Dir::new();
    let doc = d.doc();
    let toml = d.write(
        "buffer.toml",
        b"version = 1\nstrategy = \"langchain-semantic\"\nunit = \"chars\"\nsize = 100\n\n[semantic]\nbuffer_size = 9223372036854775807\n",
    );
    refused(
        &["chunk", &doc, "--config", &toml],
        &["buffer.toml", "9223372036854775807 is too large", "semantic.buffer_size"],
    );
    refused(&["config", "check", &toml], &["semantic.buffer_size", "at most 4294967295"]);
    let json = d.write(
        "counts.json",
        br#"{"version": 1, "strategy": "semantic", "unit": "chars", "size": 100, "overlap": 0,
            "semantic": {"number_of_chunks": 18446744073709551615, "min_size": 18446744073709551615}}"#,
    );
    let out = run(&["config", "check", &json]);
    // Several problems: one line each, every line a `chunktui: error:` line.
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.lines().all(|l| l.starts_with("chunktui: error: ")), "{err}");
    assert!(err.contains("semantic.number_of_chunks 18446744073709551615 is too large"), "{err}");
    assert!(err.contains("--min-size 18446744073709551615 is too large"), "{err}");
    let zero = d.write("zero.json", br#"{"version": 1, "strategy": "semantic", "unit": "chars", "size": 100, "overlap": 0, "semantic": {"number_of_chunks": 0}}"#);
    refused(&["config", "check", &zero], &["number_of_chunks must be at least 1"]);
}

// ---- 9. sizes the strategies cannot honour ---------------------------------

#[test]
fn sizes_beyond_the_bound_are_refused_for_every_langchain_splitter() {
    let d = Dir::new();
    let doc = d.doc();
    for strategy in ["langchain-character", "langchain-recursive", "recursive", "fixed"] {
        for size in ["9223372036854775808", "9223372036854775807", "4294967296"] {
            refused(
                &["chunk", &doc, "--strategy", strategy, "--size", size, "--overlap", "0"],
                &[&format!("--size {size} is too large"), "use at most 4294967295"],
            );
        }
        refused(
            &["chunk", &doc, "--strategy", strategy, "--size", "18446744073709551616"],
            &["--size 18446744073709551616 is too large"],
        );
    }
    // The bound itself is honoured: the whole document is one chunk.
    for strategy in ["langchain-character", "langchain-recursive"] {
        let out = ok(&["chunk", &doc, "--strategy", strategy, "--size", "4294967295", "--overlap", "4294967294"]);
        assert_eq!(out.lines().count(), 1, "{strategy}: {out}");
    }
}

#[test]
fn sizes_beyond_the_bound_in_a_config_are_refused() {
    let d = Dir::new();
    let doc = d.doc();
    let json = d.write(
        "big.json",
        br#"{"version": 1, "strategy": "langchain-character", "unit": "chars", "size": 9223372036854775808, "overlap": 0}"#,
    );
    refused(
        &["chunk", &doc, "--config", &json],
        &["big.json", "--size 9223372036854775808 is too large", "at most 4294967295"],
    );
    let toml = d.write(
        "big.toml",
        b"version = 1\nstrategy = \"langchain-recursive\"\nunit = \"chars\"\nsize = 9223372036854775807\noverlap = 0\n",
    );
    refused(&["config", "check", &toml], &["big.toml", "9223372036854775807 is too large"]);
}

// ---- 10. accepted nonsense --------------------------------------------------

const THRESHOLD_TYPES: [&str; 5] = ["percentile", "standard_deviation", "interquartile", "gradient", "absolute"];

#[test]
fn nan_and_infinite_thresholds_are_refused_by_flag_and_by_config() {
    let d = Dir::new();
    let doc = d.doc();
    for t in THRESHOLD_TYPES {
        for x in ["nan", "NaN", "inf", "-inf", "infinity"] {
            refused(
                &["config", "init", "--strategy", "semantic", "--threshold-type", t, "--threshold", x],
                &[&format!("--threshold must be a number like 95 or 0.3, not {x}")],
            );
        }
        for x in ["nan", "inf", "-inf"] {
            let cfg = d.write(
                "t.toml",
                format!("version = 1\nstrategy = \"semantic\"\nunit = \"chars\"\nsize = 200\noverlap = 0\n\n[semantic]\nthreshold_type = \"{t}\"\nthreshold = {x}\n").as_bytes(),
            );
            refused(&["config", "check", &cfg], &["is not a number", &format!("finite {t} amount")]);
            refused(&["chunk", &doc, "--config", &cfg], &["is not a number"]);
        }
    }
    // What `config init` writes is a finite number again.
    let out = ok(&[
        "config",
        "init",
        "--strategy",
        "semantic",
        "--threshold-type",
        "standard_deviation",
        "--threshold",
        "-0.5",
    ]);
    assert!(out.contains("threshold = -0.5"), "{out}");
}

#[test]
fn thresholds_outside_their_range_are_refused() {
    let d = Dir::new();
    let doc = d.doc();
    let with = |t: &'static str, x: &'static str| {
        run(&["chunk", doc.as_str(), "--strategy", "semantic", "--threshold-type", t, "--threshold", x])
    };
    assert_refused(&with("percentile", "101"), &["percentile threshold must be within 0..100, not 101"]);
    assert_refused(&with("gradient", "-1"), &["gradient threshold", "within 0..100, not -1"]);
    assert_refused(&with("absolute", "2.5"), &["absolute threshold is a cosine distance: within 0..2, not 2.5"]);
}

#[test]
fn max_sentences_zero_means_no_sentence_limit() {
    // 0 is the documented default ("only the size limit"): accepted, and the
    // same chunks as leaving the flag out.
    let d = Dir::new();
    let doc = d.doc();
    let plain = ok(&["chunk", &doc, "--strategy", "sentence", "--size", "80", "--overlap", "0"]);
    let zero = ok(&["chunk", &doc, "--strategy", "sentence", "--size", "80", "--overlap", "0", "--max-sentences", "0"]);
    assert_eq!(plain, zero);
    let help = ok(&["chunk", "--help"]).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("(0, the default: no sentence limit, only --size)"), "{help}");
    refused(
        &["chunk", &doc, "--strategy", "sentence", "--max-sentences", "-1"],
        &["--max-sentences must be a whole number ≥ 0, not -1"],
    );
}

#[test]
fn a_size_without_an_overlap_overlaps_by_a_fifth_of_it() {
    let d = Dir::new();
    let doc = d.doc();
    let settings = |extra: &[&str]| {
        let out = ok(&[&["stats", doc.as_str()], extra].concat());
        out.lines().find(|l| l.starts_with("settings")).expect("a settings line").to_string()
    };
    assert!(settings(&[]).ends_with("size 700 chars · overlap 140 chars"), "{}", settings(&[]));
    assert!(settings(&["--size", "300"]).ends_with("size 300 chars · overlap 60 chars"));
    assert!(settings(&["--size", "4"]).ends_with("overlap 0 chars"));
    assert!(settings(&["--size", "300", "--overlap", "7"]).ends_with("overlap 7 chars"));
    // A config file's overlap is the user's own: a size flag leaves it.
    let cfg =
        d.write("c.toml", b"version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 1000\noverlap = 150\n");
    assert!(settings(&["--config", &cfg, "--size", "400"]).ends_with("size 400 chars · overlap 150 chars"));
    let help = ok(&["chunk", "--help"]);
    assert!(help.contains("[default: a fifth of --size]"), "{help}");
}

#[test]
fn sentence_overlap_must_stay_below_the_sentence_limit() {
    let d = Dir::new();
    let doc = d.doc();
    let s = ["chunk", doc.as_str(), "--strategy", "sentence", "--size", "200", "--overlap", "0"];
    refused(
        &[&s[..], &["--max-sentences", "2", "--overlap-sentences", "2"]].concat(),
        &["overlap_sentences (2) must be smaller than max_sentences (2)", "lower --overlap-sentences"],
    );
    refused(
        &[&s[..], &["--max-sentences", "1", "--overlap-sentences", "5"]].concat(),
        &["overlap_sentences (5) must be smaller than max_sentences (1)"],
    );
    // `--max-sentences 1` alone lowers the default overlap (1 sentence) as `--size` does.
    let one = ok(&[&s[..], &["--max-sentences", "1"]].concat());
    assert!(one.lines().count() >= 4, "{one}");
    let cfg = d.write(
        "s.toml",
        b"version = 1\nstrategy = \"sentence\"\nunit = \"chars\"\nsize = 200\noverlap = 0\n\n[sentence]\nmax_sentences = 3\noverlap_sentences = 3\n",
    );
    refused(&["config", "check", &cfg], &["s.toml", "overlap_sentences (3) must be smaller than max_sentences (3)"]);
}

#[test]
fn min_size_above_size_is_refused() {
    let d = Dir::new();
    let doc = d.doc();
    for strategy in ["semantic", "semantic-grouping", "adaptive"] {
        refused(
            &["chunk", &doc, "--strategy", strategy, "--size", "100", "--overlap", "0", "--min-size", "101"],
            &["min_size (101) must not exceed size (100)", "lower --min-size or raise --size"],
        );
    }
}

#[test]
fn zero_token_limits_are_refused() {
    let d = Dir::new();
    let doc = d.doc();
    refused(
        &["chunk", &doc, "--strategy", "semantic", "--model-max-tokens", "0"],
        &["--model-max-tokens must be a whole number ≥ 4, not 0"],
    );
    refused(
        &["chunk", &doc, "--strategy", "semantic", "--model-max-tokens", "3"],
        &["--model-max-tokens must be a whole number ≥ 4, not 3"],
    );
    let cfg = d.write(
        "m.toml",
        b"version = 1\nstrategy = \"semantic\"\nunit = \"chars\"\nsize = 200\noverlap = 0\n\n[semantic]\nmax_tokens = 0\n",
    );
    refused(&["config", "check", &cfg], &["--model-max-tokens 0 leaves no room for text", "at least 4"]);
    // The workbench's flag: refused before any terminal is needed.
    refused(&[&doc, "--max-tokens", "0"], &["--max-tokens must be a whole number ≥ 1, not 0"]);
    refused(&["--max-tokens", "-3", &doc], &["--max-tokens must be a whole number ≥ 1, not -3"]);
}

// ---- 11. messages ------------------------------------------------------------

#[test]
fn argument_errors_are_one_line_with_the_fix() {
    let d = Dir::new();
    let doc = d.doc();
    let err = refused(&["chunk", &doc, "--size", "-5"], &["--size must be a whole number ≥ 1, not -5"]);
    assert!(!err.contains("-- -5"), "{err}");
    refused(&["chunk", &doc, "--size", "abc"], &["--size must be a whole number ≥ 1, not abc"]);
    refused(&["chunk", &doc, "--size", "0"], &["size must be at least 1", "set --size"]);
    refused(&["chunk", &doc, "--overlap", "-1"], &["--overlap must be a whole number ≥ 0, not -1"]);
    refused(&["chunk", &doc, "--size"], &["--size needs a value", "--size <N>", "chunktui chunk --help"]);
    refused(&["chunk", &doc, "--bogus"], &["unknown option '--bogus'", "see `chunktui chunk --help`"]);
    // clap calls an option given twice a conflict with itself.
    let err = refused(&["chunk", &doc, "--size", "9", "--size", "12"], &["--size", "given twice: keep one"]);
    assert!(!err.contains("cannot be used with"), "{err}");
    refused(
        &["stats", &doc, "--siz", "5"],
        &["unknown option '--siz'", "did you mean '--size'?", "chunktui stats --help"],
    );
    refused(
        &["chunk", &doc, "--format", "xml"],
        &["--format does not take 'xml'", "use one of jsonl, json, text, offsets"],
    );
    refused(&["chunk", &doc, "--levels", "1,9"], &["--levels takes heading levels 1 to 6", "not 9"]);
    refused(&["chunk"], &["`chunktui chunk` needs <FILE>", "chunktui chunk --help"]);
    // `chunk` and `stats` take many files now (tests/corpus_cli.rs); `lint` still takes one.
    refused(&["lint", &doc, "other.md"], &["unexpected argument 'other.md'", "one FILE at a time"]);
    refused(&["config"], &["`chunktui config` needs a command (check, init, schema)", "chunktui config --help"]);
    refused(&["config", "frob"], &["unknown command 'frob'", "chunktui config --help"]);
    refused(&["stats", &doc, "--max-input-mb", "-5"], &["--max-input-mb must be a whole number ≥ 0, not -5"]);
    refused(&["stats", &doc, "--max-input-mb", "x"], &["--max-input-mb does not take 'x'", "chunktui stats --help"]);
    // A negative threshold is a value, not an option.
    let out =
        ok(&["config", "init", "--strategy", "semantic", "--threshold-type", "interquartile", "--threshold", "-1"]);
    assert!(out.contains("threshold = -1"), "{out}");
}

#[test]
fn help_and_version_are_untouched() {
    for args in [&["--help"][..], &["chunk", "--help"], &["config", "check", "-h"], &["help", "stats"]] {
        let out = run(args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(text.contains("Usage: chunktui") && text.lines().count() > 5, "{args:?}: {text}");
        assert!(out.stderr.is_empty(), "{args:?}");
    }
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("chunktui "));
}

#[test]
fn toml_errors_name_line_column_and_key() {
    let d = Dir::new();
    let doc = d.doc();
    let cfg = d.write(
        "t.toml",
        b"version = 1\nstrategy = \"semantic\"\nunit = \"chars\"\nsize = 100\n\n[semantic]\nthreshold = \"high\"\n",
    );
    refused(&["config", "check", &cfg], &["t.toml: line 7, column 13, key semantic.threshold:", "expected a number"]);
    refused(&["chunk", &doc, "--config", &cfg], &["line 7, column 13, key semantic.threshold"]);
    let cfg = d.write(
        "u.toml",
        b"version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 100\n[recursive]\nprest = \"x\"\n",
    );
    refused(
        &["config", "check", &cfg],
        &["line 6, column 1, key recursive.prest: unknown field `prest`", "expected one of `preset`"],
    );
    let cfg = d.write("s.toml", b"version = 1\nstrategy = \"recursive\"\nunit = \"chars\nsize = 100\n");
    refused(&["config", "check", &cfg], &["line 3, column", "key unit"]);
    // A missing key keeps its default (tests/outputs_vs_inputs.rs holds every key to it).
    let cfg = d.write("m.toml", b"version = 1\nunit = \"chars\"\nsize = 100\n");
    let out = run(&["config", "check", &cfg]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("strategy recursive, size 100 chars, overlap 20"), "{out:?}");
}

fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let units = if bom { vec![0xfeff] } else { vec![] }.into_iter().chain(text.encode_utf16());
    for u in units {
        out.extend_from_slice(&if big_endian { u.to_be_bytes() } else { u.to_le_bytes() });
    }
    out
}

#[test]
fn utf16_input_says_how_to_convert_it() {
    let d = Dir::new();
    for (name, big, bom, enc) in [
        ("le-bom.md", false, true, "UTF-16"),
        ("be-bom.md", true, true, "UTF-16"),
        ("le.md", false, false, "UTF-16LE"),
        ("be.txt", true, false, "UTF-16BE"),
    ] {
        let f = d.write(name, &utf16(DOC, big, bom));
        let err = refused(
            &["chunk", &f],
            &[&format!("is {enc} text, not UTF-8"), &format!("iconv -f {enc} -t UTF-8 {f} > ")],
        );
        // The command it gives works.
        let cmd = err.split('`').nth(1).expect("a command in backticks");
        let status = Command::new("sh").args(["-c", cmd]).status().unwrap_or_else(|e| {
            panic!("this test runs the suggested iconv command: install iconv (libc-bin) and sh: {e}")
        });
        assert!(status.success(), "{cmd}");
        let converted = cmd.rsplit("> ").next().unwrap().trim();
        assert_eq!(std::fs::read_to_string(converted).unwrap(), DOC, "{cmd}");
        ok(&["chunk", converted]);
    }
    // From standard input.
    let mut child = command(&["chunk", "-"]).stdin(Stdio::piped()).spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &utf16(DOC, false, true)).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_refused(&out, &["standard input is UTF-16 text", "iconv -f UTF-16 -t UTF-8 FILE | chunktui chunk -"]);
}

/// `chunktui ARGS` as a user who cannot read root's 0600 files (as root,
/// through setpriv), or as is for a non-root user.
fn run_unprivileged(args: &[&str]) -> Output {
    let root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(false);
    if !root {
        return run(args);
    }
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]).args(args);
    cmd.stdin(Stdio::null()).env("NO_COLOR", "1");
    cmd.output()
        .unwrap_or_else(|e| panic!("the permission test runs as nobody through setpriv: install util-linux ({e})"))
}

#[test]
fn permission_denied_says_what_to_check() {
    use std::os::unix::fs::PermissionsExt;
    let d = Dir::new();
    std::fs::set_permissions(d.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let doc = d.doc();
    std::fs::set_permissions(&doc, std::fs::Permissions::from_mode(0o000)).unwrap();
    let out = run_unprivileged(&["chunk", &doc]);
    assert_refused(
        &out,
        &[&format!("{doc}: permission denied: check its permissions (ls -l {doc}) or run as a user who can read it")],
    );
    let cfg = d.write("c.toml", b"version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 100\n");
    std::fs::set_permissions(&cfg, std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(&doc, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_refused(&run_unprivileged(&["chunk", &doc, "--config", &cfg]), &["permission denied", "ls -l", "c.toml"]);
}

#[test]
fn the_workbench_without_a_terminal_points_to_chunk_and_stats() {
    let d = Dir::new();
    let doc = d.doc();
    // stdin from /dev/null, stdout a pipe: as in `chunktui doc.md < /dev/null | cat`.
    refused(&[&doc], &["the workbench needs a terminal", "`chunktui chunk FILE` or `chunktui stats FILE`"]);
    let out = command(&[&doc]).stdout(Stdio::from(std::fs::File::create("/dev/null").unwrap())).output().unwrap();
    assert_refused(&out, &["the workbench needs a terminal"]);
    // A bad flag is still reported as itself first (NO_COLOR would skip the theme).
    let out = command(&[&doc, "--theme", "no-such-theme-xyz"]).env_remove("NO_COLOR").output().unwrap();
    assert_refused(&out, &["no-such-theme-xyz"]);
}

// ---- with the real model -------------------------------------------------

#[cfg(feature = "embed")]
mod model {
    use super::common::test_model_dir;
    use super::*;

    /// The default model (`CHUNKTUI_MODEL_DIR`, set by scripts/test.sh) with ONNX Runtime.
    fn default_model() -> std::path::PathBuf {
        assert!(
            chunktui::embed::runtime::available(),
            "ONNX Runtime not found: run `eval \"$(bash scripts/setup-models.sh | grep '^export ')\"` \
             (or `chunktui setup`) first"
        );
        let dir = chunktui::embed::default_model_dir().expect("a cache dir");
        assert!(
            dir.join("model.onnx").is_file(),
            "default model missing at {}: run `eval \"$(bash scripts/setup-models.sh | grep '^export ')\"`",
            dir.display()
        );
        dir
    }

    fn long_doc(d: &Dir) -> String {
        d.write("long.md", format!("{}.\n", "word ".repeat(3000)).as_bytes())
    }

    #[test]
    fn model_max_tokens_above_the_models_input_names_the_real_maximum() {
        let d = Dir::new();
        let doc = long_doc(&d);
        let default = default_model();
        for (dir, asked) in
            [(default.as_path(), "5000"), (test_model_dir().as_path(), "600"), (default.as_path(), "513")]
        {
            let dir = dir.to_str().unwrap();
            for strategy in ["semantic", "langchain-semantic", "late"] {
                let err = refused(
                    &["chunk", &doc, "--strategy", strategy, "--model", dir, "--model-max-tokens", asked],
                    &[
                        &format!(
                            "--model-max-tokens (semantic.max_tokens) is {asked} tokens, more than the model takes"
                        ),
                        "512, its position table in the ONNX graph",
                        "at most 512",
                    ],
                );
                assert!(!err.contains("onnxruntime") && !err.contains("broadcast"), "{err}");
            }
        }
        // The real maximum works.
        let out = run(&[
            "chunk",
            &doc,
            "--strategy",
            "semantic",
            "--model",
            test_model_dir().to_str().unwrap(),
            "--model-max-tokens",
            "512",
        ]);
        assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
        // The same from a config file.
        let cfg = d.write(
            "m.toml",
            format!(
                "version = 1\nstrategy = \"semantic\"\nunit = \"chars\"\nsize = 2000\noverlap = 0\n\n[semantic]\nmodel = {:?}\nmax_tokens = 4096\n",
                default.to_str().unwrap()
            )
            .as_bytes(),
        );
        refused(
            &["chunk", &doc, "--config", &cfg],
            &["is 4096 tokens, more than the model takes", "at most 512", "semantic.max_tokens"],
        );
    }

    #[test]
    fn a_corrupt_model_says_to_rerun_setup_in_one_line() {
        let d = Dir::new();
        let doc = d.doc();
        let bad = d.path("broken-model");
        std::fs::create_dir(&bad).unwrap();
        for entry in std::fs::read_dir(default_model()).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), bad.join(entry.file_name())).unwrap();
        }
        std::fs::write(bad.join("model.onnx"), b"this is not an ONNX file\x00\xff\x17 at all".repeat(100)).unwrap();
        let model = bad.join("model.onnx");
        for strategy in ["semantic", "langchain-semantic"] {
            let err = refused(
                &["chunk", &doc, "--strategy", strategy, "--model", bad.to_str().unwrap()],
                &[
                    &format!("{} is not a usable ONNX model", model.display()),
                    "re-run `chunktui setup` or give another --model DIR",
                ],
            );
            assert!(!err.contains("onnxruntime:"), "{err}");
        }
        // A model file cut short is the same.
        let good = std::fs::read(default_model().join("model.onnx")).unwrap();
        std::fs::write(&model, &good[..good.len() / 3]).unwrap();
        refused(
            &["chunk", &doc, "--strategy", "semantic", "--model", bad.to_str().unwrap()],
            &["is not a usable ONNX model", "re-run `chunktui setup`"],
        );
    }

    #[test]
    fn any_buffer_size_up_to_the_bound_runs() {
        let d = Dir::new();
        let doc = d.doc();
        default_model();
        let wide = ok(&["chunk", &doc, "--strategy", "langchain-semantic", "--buffer-size", "4294967295"]);
        let all = ok(&["chunk", &doc, "--strategy", "langchain-semantic", "--buffer-size", "1000"]);
        assert_eq!(wide, all);
        ok(&[
            "chunk",
            &doc,
            "--strategy",
            "semantic",
            "--buffer-size",
            "4294967295",
            "--size",
            "4294967295",
            "--overlap",
            "0",
            "--min-size",
            "4294967295",
        ]);
    }

    /// A copy of the test model whose position table has a name chunktui
    /// does not know, so only ONNX Runtime finds out the input is too long.
    fn anonymous_positions(d: &Dir) -> std::path::PathBuf {
        let dir = d.path("anonymous");
        std::fs::create_dir(&dir).unwrap();
        std::fs::copy(test_model_dir().join("tokenizer.json"), dir.join("tokenizer.json")).unwrap();
        let model = std::fs::read(test_model_dir().join("model.onnx")).unwrap();
        let needle = b"\x03pos";
        let mut out = Vec::with_capacity(model.len());
        let mut i = 0;
        while i < model.len() {
            if model[i..].starts_with(needle) {
                out.extend_from_slice(b"\x03qqq");
                i += needle.len();
            } else {
                out.push(model[i]);
                i += 1;
            }
        }
        std::fs::write(dir.join("model.onnx"), out).unwrap();
        assert_eq!(chunktui::embed::onnx::graph_positions(&test_model_dir().join("model.onnx")), Some(512));
        assert_eq!(chunktui::embed::onnx::graph_positions(&dir.join("model.onnx")), None);
        dir
    }

    #[test]
    fn a_too_long_input_found_only_by_onnx_runtime_is_one_line_naming_the_maximum() {
        let d = Dir::new();
        let doc = long_doc(&d);
        let dir = anonymous_positions(&d);
        let args = [
            "chunk",
            doc.as_str(),
            "--strategy",
            "semantic",
            "--model",
            dir.to_str().unwrap(),
            "--model-max-tokens",
            "600",
        ];
        let err =
            refused(&args, &["model.onnx takes at most 512 tokens, not 600", "--model-max-tokens", "at most 512"]);
        assert!(!err.contains("onnxruntime") && !err.contains('\x1b'), "{err}");
        // ORT_LOG asks for ONNX Runtime's own log back (for debugging).
        let out = command(&args).env("ORT_LOG", "error").output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("onnxruntime") && err.lines().count() > 1, "{err}");
    }

    #[test]
    fn onnx_runtime_keeps_its_own_log_off_stderr() {
        // The bound check catches --model-max-tokens, and a model directory
        // that claims more than the graph takes (sentence-transformers'
        // max_seq_length) is one line naming the file, not ONNX Runtime's log.
        let d = Dir::new();
        let doc = long_doc(&d);
        let dir = d.path("claims-more");
        std::fs::create_dir(&dir).unwrap();
        for entry in std::fs::read_dir(test_model_dir()).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
        let out = run(&["chunk", &doc, "--strategy", "semantic", "--model", dir.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::write(dir.join("sentence_bert_config.json"), br#"{"max_seq_length": 8192}"#).unwrap();
        let err = refused(
            &["chunk", &doc, "--strategy", "semantic", "--model", dir.to_str().unwrap()],
            &["max_seq_length in", "sentence_bert_config.json is 8192 tokens", "at most 512"],
        );
        assert!(!err.contains("onnxruntime") && err.lines().count() == 1, "{err}");
    }
}

/// `--overlap` given to a strategy whose chunks never overlap is a warning,
/// said once (a corpus of many files too), and the cut is the same as without it.
#[test]
fn an_overlap_a_strategy_never_reads_is_a_warning_said_once() {
    let dir = Dir::new();
    let a = dir.write("a.md", DOC.as_bytes());
    dir.write("b.md", DOC.as_bytes());
    let warned = run(&["chunk", &a, "--strategy", "fast", "--size", "40", "--overlap", "5"]);
    let plain = run(&["chunk", &a, "--strategy", "fast", "--size", "40"]);
    assert!(warned.status.success() && plain.status.success());
    assert_eq!(warned.stdout, plain.stdout, "the same chunks");
    let err = String::from_utf8_lossy(&warned.stderr);
    assert_eq!(err.trim(), "chunktui: warning: fast cuts chunks that never overlap: --overlap 5 has no effect");
    assert!(plain.stderr.is_empty(), "{}", String::from_utf8_lossy(&plain.stderr));
    let folder = dir.root().to_string_lossy().into_owned();
    let many = run(&["chunk", &folder, "--strategy", "document", "--overlap", "5"]);
    assert!(many.status.success(), "{}", String::from_utf8_lossy(&many.stderr));
    assert_eq!(String::from_utf8_lossy(&many.stderr).matches("never overlap").count(), 1, "said once");
    for read in [&["--strategy", "recursive", "--overlap", "5"][..], &["--strategy", "fast", "--overlap", "0"]] {
        let out = run(&[&["chunk", a.as_str(), "--size", "40"][..], read].concat());
        assert!(out.status.success() && out.stderr.is_empty(), "{read:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}
