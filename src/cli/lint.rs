//! Chunk lint on the command line: the lint section of `chunktui stats`
//! (table and `--json`), and `chunktui lint FILE`, which lists every finding
//! as `FILE:LINE: rule: message` and exits 1 when there is one (for CI).

use super::args::LintCmd;
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::document::Document;
use crate::error::{Error, Result};
use crate::lint::{Finding, LintOptions, Rule};
use serde::Serialize;
use std::fmt::Write as _;

/// How many findings the stats table shows (`chunktui lint` lists all).
const SHOWN: usize = 5;

/// The lint of one document: findings with their line numbers, and the
/// count for every enabled rule.
pub struct Report {
    pub findings: Vec<Line>,
    pub counts: Vec<(Rule, usize)>,
}

/// A finding with the 1-based line it points to.
#[derive(Serialize)]
pub struct Line {
    #[serde(flatten)]
    pub finding: Finding,
    pub line: usize,
}

/// The `"lint"` and `"lint_findings"` keys of `stats --json`.
#[derive(Serialize)]
pub struct Json<'a> {
    /// Findings per enabled rule, zeros included.
    pub lint: serde_json::Map<String, serde_json::Value>,
    pub lint_findings: &'a [Line],
}

impl Report {
    /// Lint `chunks` of `doc` cut with `config`, counting tokens with the
    /// embedding model's own tokenizer when it is installed.
    pub fn new(config: &ChunkConfig, doc: &Document, chunks: &[Chunk]) -> Result<Report> {
        let opts = LintOptions::new(config, doc.kind)?;
        #[cfg(feature = "embed")]
        let opts = opts.with_model_tokenizer();
        let findings = crate::lint::lint(&doc.text, chunks, &opts);
        let counts = crate::lint::counts(&findings, &opts);
        let mut lines = Vec::with_capacity(findings.len());
        let (mut line, mut pos) = (1, 0);
        for f in findings {
            // Findings come in text order: count line breaks once.
            let at = f.at.min(doc.text.len());
            line += doc.text.as_bytes()[pos.min(at)..at].iter().filter(|&&b| b == b'\n').count();
            pos = pos.max(at);
            lines.push(Line { finding: f, line });
        }
        Ok(Report { findings: lines, counts })
    }

    pub fn json(&self) -> Json<'_> {
        let lint = self.counts.iter().map(|(r, n)| (r.name().to_string(), (*n).into())).collect();
        Json { lint, lint_findings: &self.findings }
    }

    /// The stats table's lint section: counts per rule, the first findings.
    pub fn table(&self, t: &mut String) {
        let counts: Vec<String> = self.counts.iter().map(|(r, n)| format!("{n} {r}")).collect();
        let counts = if counts.is_empty() { "no rule applies".to_string() } else { counts.join(" · ") };
        let _ = writeln!(t, "lint          {counts}");
        for l in self.findings.iter().take(SHOWN) {
            let f = &l.finding;
            let _ = writeln!(t, "  line {:<6} {:<16} chunk {}: {}", l.line, f.rule.name(), f.chunk, f.message);
        }
        if self.findings.len() > SHOWN {
            let _ = writeln!(t, "  … and {} more (`chunktui lint FILE` lists them all)", self.findings.len() - SHOWN);
        }
    }
}

/// `chunktui lint FILE`: every finding, one per line; exit 1 when any.
pub fn run(cmd: LintCmd) -> Result<()> {
    let (config, doc, chunks) = super::commands::chunked(&cmd.flags, &cmd.file)?;
    let report = Report::new(&config, &doc, &chunks)?;
    let name = cmd.file.display().to_string();
    let out = if cmd.json {
        #[derive(Serialize)]
        struct Out<'a> {
            file: &'a str,
            #[serde(flatten)]
            json: Json<'a>,
        }
        serde_json::to_string_pretty(&Out { file: &name, json: report.json() }).expect("lint serialises") + "\n"
    } else {
        let mut t = String::new();
        for l in &report.findings {
            let f = &l.finding;
            let _ = writeln!(t, "{name}:{}: {}: chunk {}: {}", l.line, f.rule, f.chunk, f.message);
        }
        t
    };
    super::commands::emit(out.as_bytes(), None)?;
    let n = report.findings.len();
    if n > 0 {
        let counts: Vec<String> =
            report.counts.iter().filter(|(_, n)| *n > 0).map(|(r, n)| format!("{n} {r}")).collect();
        return Err(Error::Changed(format!(
            "{n} lint finding{} in {name} ({})",
            if n == 1 { "" } else { "s" },
            counts.join(", ")
        )));
    }
    Ok(())
}
