//! Chunk lint on the command line: the lint section of `chunktui stats`
//! (table and `--json`), and `chunktui lint FILE`, which lists every finding
//! as `FILE:LINE: rule: message` and exits 1 when there is one (for CI).

use super::args::LintCmd;
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::lint::{Finding, LintOptions, Linted, Rule, SharedTally};
use crate::measure::Linting;
use serde::Serialize;
use std::fmt::Write as _;

/// How many findings the stats table shows (`chunktui lint` lists all).
pub const SHOWN: usize = 5;

/// The lint of one document: findings with their line numbers, and the
/// count for every enabled rule.
pub struct Report {
    /// In text order (all of them, or the first ones).
    pub findings: Vec<Finding>,
    /// The 1-based line each finding points to.
    pub lines: Vec<usize>,
    pub counts: Vec<(Rule, usize)>,
    /// One line per rule that fired many times: the cause, said once, and
    /// the setting that fixes it.
    pub summary: Vec<String>,
    /// Not linted (`stats --no-lint`, `[lint] enabled = false`).
    pub off: bool,
    /// Every finding, counted (`findings` may hold only the first ones).
    pub total: usize,
}

/// A rule that fires this often gets a summary line.
const MANY: usize = 5;

/// The summary lines of `counts` for chunks cut with `opts`.
fn summary(counts: &[(Rule, usize)], opts: &LintOptions) -> Vec<String> {
    let c = &opts.config;
    let (size, unit) = (c.size, c.unit);
    counts
        .iter()
        .filter(|(_, n)| *n >= MANY)
        .map(|&(r, n)| match r {
            Rule::OverModelLimit => format!(
                "{n} chunks over the model's {}-token limit: use --size {} (or --unit tokens with the model's tokenizer)",
                opts.max_tokens,
                (size * 3 / 4).max(1)
            ),
            Rule::MidSentence => {
                format!("{n} chunks cut mid-sentence: use --strategy sentence, or --preset english (sentence ends first)")
            }
            Rule::OrphanHeading => {
                format!("{n} chunks end with a heading cut from its text: use --strategy markdown (a chunk per section)")
            }
            Rule::SplitFence | Rule::SplitTable => {
                format!("{n} {r} findings: use --strategy markdown, or a larger --size than {size} {unit}")
            }
            Rule::TinyFragment => format!(
                "{n} chunks under a tenth of the size ({size} {unit}): use a smaller --size, or [lint] off = [\"tiny-fragment\"]"
            ),
            Rule::StaleEdit => {
                format!("{n} edits are stale (their text changed): fix or drop them in the config's [[edits]]")
            }
            Rule::JoinOverSize => format!("{n} hand-made joins keep chunks over {size} {unit}: drop some joins"),
        })
        .collect()
}

/// A finding with the 1-based line it points to.
#[derive(Serialize)]
struct Line<'a> {
    #[serde(flatten)]
    finding: &'a Finding,
    line: usize,
}

/// The findings with their lines, serialised one by one (a large file cut
/// small can have millions).
pub struct Lines<'a>(&'a Report);

impl Serialize for Lines<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let r = self.0;
        s.collect_seq(r.findings.iter().zip(&r.lines).map(|(finding, &line)| Line { finding, line }))
    }
}

/// The `"lint"` and `"lint_findings"` keys of `stats --json`.
#[derive(Serialize)]
pub struct Json<'a> {
    /// Findings per enabled rule, zeros included.
    pub lint: serde_json::Map<String, serde_json::Value>,
    pub lint_findings: Lines<'a>,
}

impl Report {
    /// Lint `chunks` of `doc` cut with `config`, counting tokens with the
    /// embedding model's own tokenizer when it is installed.
    pub fn new(config: &ChunkConfig, doc: &Document, chunks: &[Chunk]) -> Result<Report> {
        let opts = Report::options(config, doc)?;
        Ok(Report::of(doc, Linted::of(crate::lint::lint(&doc.text, chunks, &opts), None), &opts))
    }

    /// The lint options for `doc` under `config` (the model's own tokenizer
    /// counts tokens when it is installed).
    pub fn options(config: &ChunkConfig, doc: &Document) -> Result<LintOptions> {
        #[cfg(feature = "embed")]
        return LintOptions::with_model_tokenizer(config, doc.kind);
        #[cfg(not(feature = "embed"))]
        LintOptions::new(config, doc.kind)
    }

    /// The report of the findings on `doc`.
    pub fn of(doc: &Document, linted: Linted, opts: &LintOptions) -> Report {
        let counts = linted.counts(opts);
        let summary = summary(&counts, opts);
        let total = linted.total();
        let mut lines = Vec::with_capacity(linted.findings.len());
        let (mut line, mut pos) = (1, 0);
        for f in &linted.findings {
            // Findings come in text order: count line breaks once.
            let at = f.at.min(doc.text.len());
            line += doc.text.as_bytes()[pos.min(at)..at].iter().filter(|&&b| b == b'\n').count();
            pos = pos.max(at);
            lines.push(line);
        }
        Report { findings: linted.findings, lines, counts, summary, off: false, total }
    }

    /// The report of a run that did not lint.
    pub fn off() -> Report {
        Report { findings: Vec::new(), lines: Vec::new(), counts: Vec::new(), summary: Vec::new(), off: true, total: 0 }
    }

    pub fn json(&self) -> Json<'_> {
        let lint = self.counts.iter().map(|(r, n)| (r.name().to_string(), (*n).into())).collect();
        Json { lint, lint_findings: Lines(self) }
    }

    /// The stats table's lint section: counts per rule, the first findings.
    pub fn table(&self, t: &mut String) {
        if self.off {
            let _ = writeln!(t, "lint          off (--no-lint, or [lint] enabled = false)");
            return;
        }
        let counts: Vec<String> = self.counts.iter().map(|(r, n)| format!("{n} {r}")).collect();
        let counts = if counts.is_empty() { "no rule applies".to_string() } else { counts.join(" · ") };
        let _ = writeln!(t, "lint          {counts}");
        for (f, line) in self.findings.iter().zip(&self.lines).take(SHOWN) {
            let _ = writeln!(t, "  line {:<6} {:<16} chunk {}: {}", line, f.rule.name(), f.chunk, f.message);
        }
        if self.total > SHOWN {
            let _ = writeln!(t, "  … and {} more (`chunktui lint FILE` lists them all)", self.total - SHOWN);
        }
        for s in &self.summary {
            let _ = writeln!(t, "  {s}");
        }
    }
}

/// `measure` run with `doc`'s lint options under `config` and the token
/// tally made beside it ([`crate::lint::with_tally`]). What the rules read
/// of a large text is parsed ahead on other threads while the model's
/// tokenizer loads.
pub fn linted<R>(
    config: &ChunkConfig,
    doc: &Document,
    measure: impl FnOnce(&LintOptions, Option<&SharedTally<'_>>) -> Result<R>,
) -> Result<(LintOptions, R)> {
    crate::lint::with_read_ahead(&doc.text, config, doc.kind, || {
        let opts = Report::options(config, doc)?;
        let measured = crate::lint::with_tally(&doc.text, &opts, |tally| measure(&opts, tally))?;
        Ok((opts, measured))
    })
}

impl super::args::Run for LintCmd {
    fn run(self, _: &super::args::ChunkFlags) -> Result<()> {
        run(self)
    }
}

/// `chunktui lint FILE|DIR`: every finding, one per line; exit 1 when any.
/// A folder (or glob) is linted file by file, as `stats` reads one; a file
/// that cannot be read is named on stderr and the rest go on.
pub fn run(cmd: LintCmd) -> Result<()> {
    let inputs = std::slice::from_ref(&cmd.file);
    let many = super::files::is_many(inputs);
    let files = if many { super::files::expand(inputs)? } else { vec![cmd.file.clone()] };
    let mut reports = Vec::new();
    let mut unread = 0;
    for file in &files {
        match lint_one(&cmd, file) {
            Ok(r) => reports.push((file.display().to_string(), r)),
            Err(e) if many => {
                unread += 1;
                eprintln!("chunktui: skipped {}: {e}", file.display());
            }
            Err(e) => return Err(e),
        }
    }
    if reports.is_empty() {
        return Err(Error::input(format!("none of the {unread} files in {} could be linted", cmd.file.display())));
    }
    // Written as they are listed: a large file cut small can have millions.
    super::output::emit_with(None, &mut |out| {
        if cmd.json {
            #[derive(Serialize)]
            struct Out<'a> {
                file: &'a str,
                #[serde(flatten)]
                json: Json<'a>,
            }
            let outs: Vec<Out<'_>> = reports.iter().map(|(name, r)| Out { file: name, json: r.json() }).collect();
            if many {
                serde_json::to_writer_pretty(&mut *out, &outs)?;
            } else {
                serde_json::to_writer_pretty(&mut *out, &outs[0])?;
            }
            return writeln!(out);
        }
        for (name, report) in &reports {
            for (f, line) in report.findings.iter().zip(&report.lines) {
                writeln!(out, "{name}:{line}: {}: chunk {}: {}", f.rule, f.chunk, f.message)?;
            }
            for s in &report.summary {
                writeln!(out, "{name}: {s}")?;
            }
        }
        Ok(())
    })?;
    let n: usize = reports.iter().map(|(_, r)| r.findings.len()).sum();
    if n > 0 {
        let mut counts: Vec<(Rule, usize)> = Vec::new();
        for (rule, k) in reports.iter().flat_map(|(_, r)| r.counts.iter()) {
            match counts.iter_mut().find(|(r, _)| r == rule) {
                Some(c) => c.1 += k,
                None => counts.push((*rule, *k)),
            }
        }
        let counts: Vec<String> = counts.iter().filter(|(_, n)| *n > 0).map(|(r, n)| format!("{n} {r}")).collect();
        let place = if many {
            let with = reports.iter().filter(|(_, r)| !r.findings.is_empty()).count();
            format!("{with} of {} files in {}", reports.len(), cmd.file.display())
        } else {
            cmd.file.display().to_string()
        };
        return Err(Error::Changed(format!(
            "{n} lint finding{} in {place} ({})",
            if n == 1 { "" } else { "s" },
            counts.join(", ")
        )));
    }
    Ok(())
}

/// The lint of one file under the command's flags.
fn lint_one(cmd: &LintCmd, file: &std::path::Path) -> Result<Report> {
    let (config, doc, chunker) = super::prepare::prepare(&cmd.flags, file)?;
    // Cut as `stats` cuts: a large file cut small holds no chunk list.
    let (opts, measured) = linted(&config, &doc, |opts, tally| {
        crate::measure::measure(&chunker, &doc, None, Some(Linting { opts, tally, keep: None }))
    })?;
    Ok(Report::of(&doc, measured.lint.unwrap_or_default(), &opts))
}
