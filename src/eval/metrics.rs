//! Retrieval quality over character ranges, as Chroma's chunking evaluation
//! (`chunking_evaluation`, Smith & Troynikov 2024) defines it, so numbers
//! from `chunktui eval` compare with numbers from that benchmark:
//!
//! - **recall**: reference characters inside the retrieved chunks, over all
//!   reference characters;
//! - **precision**: the same characters over all retrieved characters, each
//!   retrieved chunk counted whole (overlapping chunks count twice);
//! - **IoU**: the same characters over retrieved characters plus the
//!   reference characters no retrieved chunk covers;
//! - **precision ω**: the precision if exactly the chunks touching a
//!   reference were retrieved (the best any retriever could do with these
//!   chunks);
//! - **hit** and **reciprocal rank**: whether a retrieved chunk holds a
//!   reference character, and 1 / the rank of the first that does.
//!
//! All spans are in Unicode code points. As in the original, a chunk that
//! only touches a reference (its end is the reference's start) counts as
//! touching it: it adds no characters to the numerator but its whole length
//! to the denominators.

use std::ops::Range;

/// A span of one document, in code points.
pub type Span = Range<usize>;

/// A retrieved or candidate chunk: which document, which span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub doc: usize,
    pub span: Span,
}

/// One question's scores, each in 0..=1.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Scores {
    pub recall: f64,
    pub precision: f64,
    pub iou: f64,
    pub precision_omega: f64,
    /// 1 when a retrieved chunk holds a reference character, else 0.
    pub hit: f64,
    /// 1 / rank of the first retrieved chunk holding one (0 if none).
    pub reciprocal_rank: f64,
    /// Characters retrieved: the context a generator is handed.
    pub retrieved: f64,
}

/// The overlap of two spans; touching spans give an empty overlap (the
/// original's `intersect_two_ranges`), disjoint ones none.
fn overlap(a: &Span, b: &Span) -> Option<Span> {
    let (start, end) = (a.start.max(b.start), a.end.min(b.end));
    (start <= end).then_some(start..end)
}

/// Total length of spans, overlaps counted as often as they occur.
fn total(spans: &[Span]) -> usize {
    spans.iter().map(|s| s.end - s.start).sum()
}

/// Merge overlapping and adjacent spans.
fn union(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_by_key(|s| s.start);
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match out.last_mut() {
            Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
            _ => out.push(s),
        }
    }
    out
}

/// `spans` with `cut` taken out (a span only touching `cut` is kept whole).
fn subtract(spans: Vec<Span>, cut: &Span) -> Vec<Span> {
    let mut out = Vec::with_capacity(spans.len() + 1);
    for s in spans {
        if s.end < cut.start || s.start > cut.end {
            out.push(s);
            continue;
        }
        if s.start < cut.start {
            out.push(s.start..cut.start);
        }
        if s.end > cut.end {
            out.push(cut.end..s.end);
        }
    }
    out
}

/// What a set of chunks covers of the references: the union of the
/// overlaps and the reference parts left uncovered.
struct Coverage {
    covered: Vec<Span>,
    uncovered: Vec<Span>,
}

/// How one chunk meets the references.
#[derive(Clone, Copy, PartialEq)]
enum Meets {
    /// No overlap.
    Apart,
    /// Only touches a reference at an end (an empty overlap).
    Touches,
    /// Holds at least one reference character.
    Holds,
}

fn coverage<'a>(references: &[Span], chunks: impl Iterator<Item = &'a Span>) -> (Coverage, Vec<Meets>) {
    let mut covered = Vec::new();
    let mut uncovered: Vec<Span> = references.to_vec();
    let mut meets = Vec::new();
    for chunk in chunks {
        let mut m = Meets::Apart;
        for r in references {
            if let Some(o) = overlap(chunk, r) {
                if !o.is_empty() {
                    m = Meets::Holds;
                } else if m == Meets::Apart {
                    m = Meets::Touches;
                }
                uncovered = subtract(uncovered, &o);
                covered.push(o);
            }
        }
        meets.push(m);
    }
    (Coverage { covered: union(covered), uncovered }, meets)
}

/// Scores of one question whose `references` are in document `doc`, given
/// the retrieved chunks in rank order (top k) and every chunk of the corpus.
pub fn score(doc: usize, references: &[Span], retrieved: &[Located], all_chunks: &[Located]) -> Scores {
    let same_doc = |c: &&Located| c.doc == doc;
    let (cov, meets) = coverage(references, retrieved.iter().filter(same_doc).map(|c| &c.span));
    let found = total(&cov.covered) as f64;
    let reference_chars = total(references) as f64;
    // Every retrieved chunk counts here, from any document.
    let retrieved_chars = retrieved.iter().map(|c| c.span.end - c.span.start).sum::<usize>() as f64;
    let ratio = |num: f64, den: f64| if den > 0.0 { num / den } else { 0.0 };
    let iou_den = retrieved_chars + total(&cov.uncovered) as f64;

    // ω: the chunks of this document touching a reference, as if retrieved.
    let mut touching = Vec::new();
    let candidates: Vec<&Located> = all_chunks.iter().filter(same_doc).collect();
    let (best, best_touch) = coverage(references, candidates.iter().map(|c| &c.span));
    for (c, m) in candidates.iter().zip(&best_touch) {
        if *m != Meets::Apart {
            touching.push(c.span.clone());
        }
    }
    let omega_den = total(&union(touching.into_iter().chain(best.uncovered).collect()));
    let omega = if best.covered.is_empty() { 0.0 } else { ratio(total(&best.covered) as f64, omega_den as f64) };

    // A hit holds a reference character (touching is not finding); ranks
    // count every retrieved chunk, other documents included.
    let mut same = meets.into_iter();
    let first = retrieved.iter().position(|c| c.doc == doc && same.next() == Some(Meets::Holds));
    Scores {
        recall: ratio(found, reference_chars),
        precision: ratio(found, retrieved_chars),
        iou: ratio(found, iou_den),
        precision_omega: omega,
        hit: if first.is_some() { 1.0 } else { 0.0 },
        reciprocal_rank: first.map_or(0.0, |r| 1.0 / (r + 1) as f64),
        retrieved: retrieved_chars,
    }
}

/// Mean and population standard deviation (numpy's `np.std`).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Summary {
    pub mean: f64,
    pub std: f64,
}

impl Summary {
    pub fn of(values: impl IntoIterator<Item = f64>) -> Summary {
        let values: Vec<f64> = values.into_iter().collect();
        if values.is_empty() {
            return Summary::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        Summary { mean, std: var.sqrt() }
    }
}

/// Every metric summarised over a question set.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Report {
    pub recall: Summary,
    pub precision: Summary,
    pub iou: Summary,
    pub precision_omega: Summary,
    pub hit_rate: Summary,
    pub mrr: Summary,
    /// Characters retrieved per question.
    pub retrieved: Summary,
}

impl Report {
    pub fn of(scores: &[Scores]) -> Report {
        let s = |f: fn(&Scores) -> f64| Summary::of(scores.iter().map(f));
        Report {
            recall: s(|x| x.recall),
            precision: s(|x| x.precision),
            iou: s(|x| x.iou),
            precision_omega: s(|x| x.precision_omega),
            hit_rate: s(|x| x.hit),
            mrr: s(|x| x.reciprocal_rank),
            retrieved: s(|x| x.retrieved),
        }
    }
}
