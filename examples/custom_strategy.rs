//! A strategy defined outside chunktui, registered through the public API and
//! then used by chunktui's own command line — `chunk`, `stats`, `lint`,
//! `eval`, `sweep` and the workbench — exactly as a built-in one.
//!
//! `para-pack` packs whole paragraphs (runs of lines between blank lines)
//! into chunks of at most `size` (in `unit`); a paragraph larger than that is
//! a chunk of its own. Nothing under src/ knows about it.
//!
//! ```text
//! cargo run --example custom_strategy -- FILE            # its chunks of FILE as JSONL
//! cargo run --example custom_strategy -- stats FILE -s para-pack --size 400
//! cargo run --example custom_strategy -- open FILE -s para-pack  # the workbench; `s` cycles to it too
//! ```
//!
//! With FILE first, the example runs `chunktui chunk FILE --strategy
//! para-pack` (more flags may follow); `open FILE ...` runs the workbench as
//! `chunktui FILE ...` does; any other command runs as `chunktui` runs it.

use chunktui::strategy::{self, Context, OverlapRule, SizeRule, Spec, Strategy};
use chunktui::{Chunk, ChunkConfig, Result};
use clap::Parser;
use std::ops::Range;
use std::process::ExitCode;

/// Whole paragraphs, packed up to `size`.
struct ParagraphPack {
    size: usize,
}

impl ParagraphPack {
    /// What the strategy table calls to build it from a config: here is where
    /// a strategy checks the settings it reads.
    fn build(config: &ChunkConfig) -> Result<Box<dyn Strategy>> {
        Ok(Box::new(ParagraphPack { size: config.size }))
    }
}

/// The byte ranges of the paragraphs of `text`, trimmed of surrounding blank
/// space: runs of lines with no blank line between them.
fn paragraphs(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut open: Option<Range<usize>> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end();
        if content.trim_start().is_empty() {
            out.extend(open.take());
        } else {
            let start = at + (line.len() - line.trim_start().len());
            let end = at + content.len();
            open = Some(open.map_or(start..end, |p| p.start..end));
        }
        at += line.len();
    }
    out.extend(open);
    out
}

impl Strategy for ParagraphPack {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let index = cx.sizer.index(text)?;
        let mut chunks = Vec::new();
        let mut open: Option<Range<usize>> = None;
        for para in paragraphs(text) {
            open = match open {
                // Measured as one range, so a token count is the joined text's.
                Some(o) if index.size(o.start..para.end) <= self.size => Some(o.start..para.end),
                Some(o) => {
                    chunks.push(strategy::sized(o, &index));
                    Some(para)
                }
                None => Some(para),
            };
        }
        chunks.extend(open.map(|o| strategy::sized(o, &index)));
        Ok(chunks)
    }
}

fn register() -> chunktui::StrategyKind {
    strategy::register(Spec {
        name: "para-pack",
        help: "whole paragraphs packed up to size; a larger paragraph is a chunk of its own",
        // Packs towards size; one paragraph may exceed it.
        size: SizeRule::Target,
        overlap: OverlapRule::None,
        ..Spec::new(ParagraphPack::build)
    })
    .expect("para-pack is a new name")
}

const COMMANDS: &[&str] =
    &["chunk", "stats", "lint", "eval", "sweep", "diff", "export", "config", "bench", "setup", "help"];

fn main() -> ExitCode {
    register();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "open") {
        // `chunktui FILE ...`: the workbench.
        args.remove(0);
    } else if args.first().is_some_and(|a| !a.starts_with('-') && !COMMANDS.contains(&a.as_str())) {
        // FILE first: its para-pack chunks, as `chunktui chunk` writes them.
        let mut chunk = vec!["chunk".to_string(), args.remove(0), "--strategy".into(), "para-pack".into()];
        chunk.append(&mut args);
        args = chunk;
    }
    let cli = match chunktui::cli::Cli::try_parse_from(std::iter::once("chunktui".to_string()).chain(args)) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(2);
        }
    };
    match chunktui::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("custom_strategy: error: {err}");
            ExitCode::from(2)
        }
    }
}
