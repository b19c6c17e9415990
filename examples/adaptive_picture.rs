//! Draw how `adaptive` chunking cut a document, using the real model.
//!
//! ```text
//! cargo run --example adaptive_picture -- samples/river-glossary.md
//! cargo run --example adaptive_picture -- samples/river-glossary-zh.md --model /work/shared/models/me5-small-q4
//! ```
//!
//! Options: `--model DIR` (default: the installed default model),
//! `--size N` (max chunk size in chars, default 600), `--min N`
//! (`semantic.min_size`, default 150), `--threshold P` (breakpoint
//! percentile, default 95).
//!
//! Per sentence: its number, first words, the distance `d[i]` and rank
//! `r[i]` of the boundary after it (bar: `#` = 0.1 of rank), and a bracket
//! for the chunk it belongs to. Per chunk: density (mean rank of the
//! boundaries it spans plus the one after it), the target size that density
//! gives (`max - (max - min) * density`), the real size, and why it closed.
//! The chunks themselves come from `SemanticAnalysis::adaptive`, the same
//! call `Chunker::chunk` makes for `strategy = "adaptive"`; density, target
//! and reason are recomputed here from the analysis for display.

use chunktui::config::SemanticOptions;
use chunktui::embed;
use chunktui::embedding::Control;
use chunktui::strategy::semantic::{self, analysis::Limits, analysis::Threshold};
use chunktui::{ChunkConfig, Chunker, StrategyKind};
use unicode_width::UnicodeWidthStr;

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut path = None;
    let mut model: Option<String> = None;
    let mut size = 600usize;
    let mut min = 150usize;
    let mut threshold: Option<f64> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--model" => model = Some(args.next().ok_or("--model needs a directory")?),
            "--size" => size = args.next().ok_or("--size needs a number")?.parse()?,
            "--min" => min = args.next().ok_or("--min needs a number")?.parse()?,
            "--threshold" => threshold = Some(args.next().ok_or("--threshold needs a percentile")?.parse()?),
            _ => path = Some(a),
        }
    }
    let path = path.ok_or("usage: adaptive_picture FILE [--model DIR] [--size N] [--min N] [--threshold P]")?;
    let text = std::fs::read_to_string(&path)?;

    let config = ChunkConfig {
        strategy: StrategyKind::Adaptive,
        size,
        overlap: 0,
        semantic: SemanticOptions { min_size: min, model: model.clone(), threshold, ..Default::default() },
        ..Default::default()
    };
    let chunker = Chunker::new(&config)?;
    let embedder = embed::load_model(model.as_deref())?;
    let chunker = chunker.with_embedder(embedder.clone());
    let cfg = &chunker.config;

    let index = chunker.sizer.index(&text)?;
    let recut = cfg.strategy.spec().recut.expect("adaptive re-cuts an analysis");
    let analysis = semantic::analyze(&text, &recut, cfg, embedder.as_ref(), &index, Control::none())?;
    let threshold = Threshold::from_options(&cfg.semantic);
    let limits = Limits { max: cfg.size, min: cfg.semantic.min_size };
    let ranges = analysis.adaptive(threshold, limits);

    // Cross-check: the Chunker path gives the same chunks (no sentence here
    // is over `size`, so nothing is split further).
    let chunks = chunker.chunk(&text)?;
    let same = chunks.len() == ranges.len() && chunks.iter().zip(&ranges).all(|(c, r)| c.range == *r);

    // Chunk ranges -> inclusive sentence index pairs.
    let sent = &analysis.sentences;
    let groups: Vec<(usize, usize)> = ranges
        .iter()
        .map(|r| {
            let i = sent.iter().position(|s| s.start == r.start).expect("chunk starts at a sentence");
            let j = sent.iter().position(|s| s.end == r.end).expect("chunk ends at a sentence");
            (i, j)
        })
        .collect();

    let d = &analysis.distances.values;
    let ranks = analysis.distances.ranks();
    let (cutoff, _) = analysis.distances.cutoff(threshold);
    let strong: Vec<bool> = d.iter().map(|&x| x > cutoff).collect();
    let nb = ranks.len();
    let density = |i: usize, j: usize| -> f64 {
        if nb == 0 {
            return 0.5;
        }
        let hi = (j + 1).min(nb);
        let lo = i.min(hi.saturating_sub(1));
        ranks[lo..hi].iter().sum::<f64>() / (hi - lo) as f64
    };
    let max = cfg.size;
    let min_eff = if min == 0 { (max / 4).max(1) } else { min.min(max) };
    let target = |dens: f64| max as f64 - (max - min_eff) as f64 * dens;

    println!("file:      {path}");
    println!("model:     {}", embedder.model_id());
    println!(
        "config:    strategy = adaptive, unit = chars, size = {max}, semantic.min_size = {min}, buffer_size = {}",
        cfg.semantic.buffer_size
    );
    println!(
        "threshold: {:?} {} -> breakpoint where d > {cutoff:.4}",
        cfg.semantic.threshold_type,
        cfg.semantic.threshold.unwrap_or_else(|| cfg.semantic.threshold_type.default_amount())
    );
    println!(
        "distances: min {:.4}  max {:.4}  ({} sentences, {} boundaries)",
        d.iter().cloned().fold(f64::INFINITY, f64::min),
        d.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        sent.len(),
        nb
    );
    println!();
    println!("  #  sentence          d[i]    rank r[i] after it (# = 0.1)   chunk");
    println!(" ─── ──────────────── ────── ─────────────────────────────── ─────");
    let label = |k: usize| -> String { ((b'A' + (k % 26) as u8) as char).to_string() };
    for (k, &(i, j)) in groups.iter().enumerate() {
        for s in i..=j {
            let words = first_words(&text[sent[s].clone()], 15);
            let (dist, bar) = if s < nb {
                let n = (ranks[s] * 10.0).round() as usize;
                let mut b = format!("{:<10} {:.2}", "#".repeat(n), ranks[s]);
                if strong[s] {
                    b.push_str(" <- breakpoint");
                }
                (format!("{:.4}", d[s]), b)
            } else {
                ("  -   ".to_string(), "(end of text)".to_string())
            };
            let bracket = if i == j {
                "[".to_string()
            } else if s == i {
                "┐".to_string()
            } else if s == j {
                "┘".to_string()
            } else {
                "│".to_string()
            };
            let tag = if s == i { format!(" {}", label(k)) } else { String::new() };
            println!(" {:>3} {} {dist} {bar:<31} {bracket}{tag}", s + 1, pad(&words, 16));
        }
    }

    println!();
    println!(" chunk sentences  density -> target  real size  closed because");
    println!(" ───── ───────── ─────────────────── ───────── ─────────────────────────────────────────");
    for (k, &(i, j)) in groups.iter().enumerate() {
        let real = analysis.size(i, j);
        // Replay the rule's loop for this chunk to see which condition closed
        // it; density and target are the ones the rule compared at that step.
        let (at, why) =
            replay(i, sent.len(), &strong, min_eff, max, &|a, b| analysis.size(a, b), &|a, b| target(density(a, b)));
        let dens = density(i, at);
        let reason = match why {
            Why::End => "end of text".to_string(),
            Why::Breakpoint => format!("breakpoint after it (r = {:.2})", ranks[at]),
            Why::Max => "next sentence would take it over size".to_string(),
            Why::Target => "reached its target".to_string(),
            Why::RunOn(to) => format!("reached target at {}, ran on to breakpoint after {}", at + 1, to + 1),
        };
        let end = match why {
            Why::RunOn(to) => to,
            _ => at,
        };
        let reason = if end != j { format!("{reason}; then under min, merged") } else { reason };
        println!(
            "   {}   {:>2}-{:<2}      {:.2} -> {:>4.0}      {:>4}     {reason}",
            label(k),
            i + 1,
            j + 1,
            dens,
            target(dens),
            real
        );
    }

    println!();
    let scale = (max / 30).max(1);
    println!(" chunk sizes (chars, █ = {scale}):");
    for (k, &(i, j)) in groups.iter().enumerate() {
        let real = analysis.size(i, j);
        println!("   {} {} {real}", label(k), "█".repeat((real + scale / 2) / scale));
    }
    // For comparison: `semantic` on the same analysis, threshold and limits.
    let semantic = analysis.groups(threshold, limits);
    let sizes: Vec<String> =
        semantic.iter().map(|&(i, j)| format!("{}-{}: {}", i + 1, j + 1, analysis.size(i, j))).collect();
    println!();
    println!(" semantic, same threshold/size/min_size (sentences: chars): {}", sizes.join(", "));
    println!(
        " Chunker::chunk gives the same {} chunks: {}",
        chunks.len(),
        if same { "yes" } else { "NO (see split_oversized)" }
    );
    Ok(())
}

/// The sentence's first words, at most `width` columns.
fn first_words(s: &str, width: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    for ch in s.chars() {
        let mut next = out.clone();
        next.push(ch);
        if next.width() > width {
            break;
        }
        out = next;
    }
    // Prefer to end at a word boundary for spaced scripts (not for CJK).
    if out.len() < s.len() && out.width() == out.chars().count() {
        if let Some(p) = out.rfind(' ') {
            out.truncate(p);
        }
    }
    out
}

fn pad(s: &str, width: usize) -> String {
    let w = s.width();
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

enum Why {
    End,
    Breakpoint,
    Max,
    Target,
    /// Reached its target, ran on to the breakpoint after this sentence.
    RunOn(usize),
}

/// The loop of `SemanticAnalysis::adaptive` for one chunk starting at
/// `start`: the sentence where it decided, and why.
fn replay(
    start: usize,
    n: usize,
    strong: &[bool],
    min: usize,
    max: usize,
    size: &dyn Fn(usize, usize) -> usize,
    target: &dyn Fn(usize, usize) -> f64,
) -> (usize, Why) {
    let mut j = start;
    loop {
        if j + 1 == n {
            return (j, Why::End);
        }
        let s = size(start, j);
        if strong[j] && s >= min {
            return (j, Why::Breakpoint);
        }
        if size(start, j + 1) > max {
            return (j, Why::Max);
        }
        if s as f64 >= target(start, j) {
            let mut k = j + 1;
            while k + 1 < n && size(start, k) <= max {
                if strong[k] {
                    return (j, Why::RunOn(k));
                }
                k += 1;
            }
            return (j, Why::Target);
        }
        j += 1;
    }
}
