//! `cluster`: every boundary chosen at once. The text is cut into small
//! recursive pieces (`cluster.piece_size` tokens, 50 by default), each piece
//! is embedded once, and dynamic programming picks the partition into
//! chunks within `size` whose pieces belong together best — where
//! `semantic` and `adaptive` decide each boundary greedily from its
//! neighbourhood.
//!
//! The score of a partition (the `pairwise` objective, the default) is the sum, over
//! every pair of pieces that share a chunk, of their cosine similarity less
//! `μ`, the mean similarity of any two pieces of the document, less
//! `cluster.split_cost` for every boundary that falls inside a paragraph.
//! Without `μ` every pair adds a positive amount and the largest chunks
//! always win; with it, two pieces gain by sharing a chunk only when they
//! are more alike than this document's pieces are on average. `adjacent`
//! scores only neighbouring pieces the same way. The split cost makes a
//! blank line the cheaper place to cut, as the recursive separators do: a
//! boundary between sentences of one paragraph must be worth it.
//!
//! A chunk holds at most `size` and at most ⌊size / piece_size⌋ pieces
//! ([`pieces_per_chunk`]), so where the pieces are short the chunk is too.
//!
//! This is Chroma's ClusterSemanticChunker (Smith & Troynikov, 2024), with
//! exact source ranges, a size cap in any unit and the paragraph prior
//! added.
//!
//! Work and memory are O(n · w) in pieces n and the window w of pieces that
//! fit in one chunk, never O(n²): only pairs within a window are compared.

use super::analysis::SemanticAnalysis;
use super::{FromAnalysis, Pieces, Recut};
use crate::config::{ChunkConfig, ClusterObjective, StrategyKind, Unit};
use crate::embedding::Control;
use crate::error::Result;
use crate::strategy::{Configured, OverlapRule, SizeRule, Spec};
use std::ops::Range;

/// Pieces one chunk may hold at most, whatever their size: a bound on the
/// window where pieces can measure nothing (punctuation in words).
pub const MAX_PIECES_PER_CHUNK: usize = 1024;

pub const SPEC: Spec = Spec {
    name: "cluster",
    help:
        "embed small pieces once, then choose all boundaries together so each chunk's pieces are alike, within --size",
    needs_model: true,
    needs_llm: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::None,
    has_threshold: false,
    forces_unit: None,
    options: &["--model", "--piece-size", "--cluster-objective", "cluster.split_cost", "--preset", "--separators"],
    option: Some(super::super::OptionKnob {
        show: |c| format!("objective={}", c.cluster.objective.name()),
        next: |c| {
            let all = ClusterObjective::ALL;
            let at = all.iter().position(|&o| o == c.cluster.objective).unwrap_or(0);
            c.cluster.objective = all[(at + 1) % all.len()];
            format!("cluster objective {} (what a chunk's pieces must share)", c.cluster.objective.name())
        },
    }),
    recut: Some(RECUT),
    formats: &[],
    build: |_| Ok(Box::new(FromAnalysis(RECUT))),
};

const RECUT: Recut = Recut { pieces: Pieces::Recursive, cut };

/// The settings that cut the pieces: the recursive splitter with the
/// config's separators, at `piece_size` tokens of its tokenizer, no overlap.
fn piece_config(config: &ChunkConfig) -> ChunkConfig {
    ChunkConfig {
        strategy: StrategyKind::Recursive,
        unit: Unit::Tokens,
        size: config.cluster.piece_size,
        overlap: 0,
        recursive: config.recursive.clone(),
        tokenizer: config.tokenizer.clone(),
        ..ChunkConfig::default()
    }
}

/// `text`'s pieces: exact byte ranges, in order.
pub fn pieces(text: &str, config: &ChunkConfig, control: Control<'_>) -> Result<Vec<Range<usize>>> {
    let chunks = Configured::new(&piece_config(config))?.chunk(text, None, control)?;
    Ok(chunks.into_iter().map(|c| c.range).collect())
}

/// What [`pieces`] depends on besides the text.
pub fn pieces_key(config: &ChunkConfig) -> String {
    let p = piece_config(config);
    format!("recursive:{}:{}:{:?}", p.size, p.tokenizer, p.recursive)
}

/// Problems with the `[cluster]` settings, for the config check.
pub fn problems(config: &ChunkConfig, problems: &mut Vec<String>) {
    let o = &config.cluster;
    if o.piece_size == 0 {
        problems.push("cluster.piece_size must be at least 1: set --piece-size to the tokens of one piece".into());
    }
    if !(o.split_cost.is_finite() && o.split_cost >= 0.0) {
        problems.push(format!(
            "cluster.split_cost {} must be a number of at least 0 (0.05 is the default; 0 lets a chunk end anywhere)",
            o.split_cost
        ));
    }
}

/// The best chunks of an analysis's pieces under `config` (its `size` in
/// the analysis's unit, 0 = no limit but [`MAX_PIECES_PER_CHUNK`]; its
/// objective and split cost), as byte ranges of `text`.
pub fn cut(a: &SemanticAnalysis, text: &str, config: &ChunkConfig) -> Vec<Range<usize>> {
    let o = &config.cluster;
    let costs = split_costs(a, text, o.split_cost);
    let cap = Cap { size: config.size, pieces: pieces_per_chunk(a, text, config) };
    groups(a, cap, o.objective, &costs).into_iter().map(|(i, j)| a.sentences[i].start..a.sentences[j].end).collect()
}

/// What one chunk may hold: at most `size` (in the analysis's unit, 0 = no
/// limit) and at most `pieces` pieces.
#[derive(Clone, Copy, Debug)]
pub struct Cap {
    pub size: usize,
    pub pieces: usize,
}

/// How many pieces one chunk may hold: as many piece-sized slots as the
/// size has, ⌊size / piece_size⌋ (Chroma's rule), at least one.
///
/// Why slots and not only the size: pieces are alike wherever a document
/// stays on one topic, so a cap in size alone lets every chunk fill up to
/// it, and a chunk then ends wherever the size runs out rather than where
/// a topic does. Counting slots of the nominal piece size leaves a chunk
/// of short pieces short: on Chroma's 472 questions (MiniLM, k = 5, 200
/// cl100k tokens) that is what gains IoU over `recursive` at equal recall.
///
/// `piece_size` is in tokens; in another unit it is converted at the
/// text's own rate, measured on up to [`RATE_SAMPLE`] pieces spread over
/// it (a Chinese piece of 50 tokens is about 80 characters, an English one
/// about 210), so the rule reads the same in every unit.
pub fn pieces_per_chunk(a: &SemanticAnalysis, text: &str, config: &ChunkConfig) -> usize {
    if config.size == 0 || a.is_empty() {
        return MAX_PIECES_PER_CHUNK;
    }
    let rate = if config.unit == Unit::Tokens {
        1.0
    } else {
        // The pieces were cut with this tokenizer (it is in their key), so the
        // rate is the analysis's own: measured once, not on every size.
        a.unit_per_token.get_or_init(|| unit_per_token(a, text, config)).unwrap_or(1.0)
    };
    let piece = config.cluster.piece_size as f64 * rate;
    ((config.size as f64 / piece.max(1.0)) as usize).clamp(1, MAX_PIECES_PER_CHUNK)
}

/// Pieces measured for [`unit_per_token`].
pub const RATE_SAMPLE: usize = 256;

/// The analysis's unit per token of `config.tokenizer`, over a sample of
/// the pieces; None when the tokenizer does not load or counts nothing.
fn unit_per_token(a: &SemanticAnalysis, text: &str, config: &ChunkConfig) -> Option<f64> {
    let tokens = crate::size::Sizer::for_unit(Unit::Tokens, &config.tokenizer).ok()?;
    let step = a.len().div_ceil(RATE_SAMPLE).max(1);
    let (mut unit, mut counted) = (0usize, 0usize);
    for i in (0..a.len()).step_by(step) {
        unit += a.size(i, i);
        counted += tokens.size(text.get(a.sentences[i].clone())?);
    }
    (counted > 0 && unit > 0).then(|| unit as f64 / counted as f64)
}

/// What a boundary after each piece costs: nothing at a blank line (or at
/// the end), `cost` inside a paragraph.
pub fn split_costs(a: &SemanticAnalysis, text: &str, cost: f64) -> Vec<f64> {
    let n = a.len();
    (0..n)
        .map(|j| {
            // `get`: pieces that touch or overlap have no gap, hence no blank line.
            let at_blank_line = j + 1 == n
                || text
                    .get(a.sentences[j].end..a.sentences[j + 1].start)
                    .is_some_and(|gap| gap.bytes().filter(|&b| b == b'\n').count() >= 2);
            if at_blank_line {
                0.0
            } else {
                cost
            }
        })
        .collect()
}

/// The best partition of the pieces as inclusive index pairs: chunks within
/// `cap` (a single piece over the size stands alone), maximising the objective less `split_cost[j]` for a boundary after
/// piece j.
pub fn groups(a: &SemanticAnalysis, cap: Cap, objective: ClusterObjective, split_cost: &[f64]) -> Vec<(usize, usize)> {
    let n = a.len();
    if n == 0 {
        return Vec::new();
    }
    let band = Band::new(a, cap);
    // best[k]: the best score of the first k pieces; from[k]: where the last
    // chunk of that best partition starts.
    let mut best = vec![0f64; n + 1];
    let mut from = vec![0usize; n + 1];
    // gain[i]: what piece i adds to a chunk ending at the current piece j,
    // against the pieces after it in that chunk (Σ over i < b ≤ j).
    let mut gain = vec![0f64; n];
    for j in 0..n {
        let lo = band.lo[j];
        for (i, s) in (lo..j).zip(band.row(j)) {
            gain[i] += s - band.mean;
        }
        let mut score = 0f64;
        let (mut top, mut top_at) = (f64::NEG_INFINITY, j);
        for i in (lo..=j).rev() {
            if i < j {
                score += match objective {
                    ClusterObjective::Pairwise => gain[i],
                    ClusterObjective::Adjacent => band.next(i) - band.mean,
                };
            }
            // Ties go to the longer chunk: fewer boundaries for nothing.
            let total = best[i] + score;
            if total >= top {
                (top, top_at) = (total, i);
            }
        }
        best[j + 1] = top - split_cost[j];
        from[j + 1] = top_at;
    }
    let mut out = Vec::new();
    let mut k = n;
    while k > 0 {
        let i = from[k];
        out.push((i, k - 1));
        k = i;
    }
    out.reverse();
    out
}

/// The similarities the DP reads: for each piece j, those of the pieces
/// that can share a chunk with it and come before it (`lo[j]..j`), and
/// their mean, the baseline.
struct Band {
    lo: Vec<usize>,
    /// Row j starts at `start[j]` and has `j - lo[j]` entries, `lo[j]` first.
    start: Vec<usize>,
    sims: Vec<f64>,
    mean: f64,
}

impl Band {
    fn new(a: &SemanticAnalysis, cap: Cap) -> Band {
        let n = a.len();
        let mut lo = vec![0usize; n];
        let mut start = vec![0usize; n];
        let mut sims = Vec::new();
        let mut first = 0usize;
        for j in 0..n {
            // The earliest piece a chunk ending at j can start with; it never
            // moves back as j grows, so the whole scan is O(n + n·w).
            while first < j && (j - first >= cap.pieces || (cap.size > 0 && a.size(first, j) > cap.size)) {
                first += 1;
            }
            lo[j] = first;
            start[j] = sims.len();
            sims.extend((first..j).map(|i| dot(&a.embeddings[i], &a.embeddings[j])));
        }
        Band { lo, start, sims, mean: mean_similarity(&a.embeddings) }
    }

    /// Similarities of pieces `lo[j]..j` with piece j.
    fn row(&self, j: usize) -> &[f64] {
        &self.sims[self.start[j]..self.start[j] + (j - self.lo[j])]
    }

    /// Similarity of piece i with piece i + 1 (they share a window).
    fn next(&self, i: usize) -> f64 {
        let j = i + 1;
        self.row(j)[i - self.lo[j]]
    }
}

/// The mean cosine similarity of two different unit vectors, in O(n · dim):
/// the squared length of their sum holds every pair twice and each vector
/// once.
fn mean_similarity(vectors: &[Vec<f32>]) -> f64 {
    let n = vectors.len();
    if n < 2 {
        return 0.0;
    }
    let mut sum = vec![0f64; vectors[0].len()];
    let mut own = 0f64;
    for v in vectors {
        sum.iter_mut().zip(v).for_each(|(s, x)| *s += f64::from(*x));
        own += dot(v, v);
    }
    let all: f64 = sum.iter().map(|x| x * x).sum();
    (all - own) / (n as f64 * (n as f64 - 1.0))
}

/// Cosine similarity of two unit vectors (the analysis normalises them).
fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::size::Sizer;

    /// An analysis of one-character pieces "a b c ..." with these vectors.
    fn analysis(text: &str, vectors: Vec<Vec<f32>>) -> SemanticAnalysis {
        let pieces: Vec<Range<usize>> = (0..vectors.len()).map(|i| 2 * i..2 * i + 1).collect();
        let sizer = Sizer::for_unit(Unit::Chars, "cl100k_base").unwrap();
        let index = sizer.index(text).unwrap();
        let vectors = vectors
            .into_iter()
            .map(|mut v| {
                crate::embedding::normalize(&mut v);
                v
            })
            .collect();
        SemanticAnalysis::from_embeddings(pieces, vectors, &index)
    }

    /// The score of one partition, pair by pair.
    fn score_of(a: &SemanticAnalysis, groups: &[(usize, usize)], objective: ClusterObjective, costs: &[f64]) -> f64 {
        let mean = mean_similarity(&a.embeddings);
        let mut total = 0.0;
        for &(i, j) in groups {
            for x in i..=j {
                for y in x + 1..=j {
                    if objective == ClusterObjective::Pairwise || y == x + 1 {
                        total += dot(&a.embeddings[x], &a.embeddings[y]) - mean;
                    }
                }
            }
            total -= costs[j];
        }
        total
    }

    /// A size cap alone.
    fn size_cap(size: usize) -> Cap {
        Cap { size, pieces: MAX_PIECES_PER_CHUNK }
    }

    /// Whether pieces i..=j make a chunk within the cap (one piece always does).
    fn fits(a: &SemanticAnalysis, cap: Cap, i: usize, j: usize) -> bool {
        i == j || (j - i < cap.pieces && (cap.size == 0 || a.size(i, j) <= cap.size))
    }

    /// The best score by trying every partition within `cap`.
    fn brute_force(a: &SemanticAnalysis, cap: Cap, objective: ClusterObjective, costs: &[f64]) -> f64 {
        let n = a.len();
        let mut top = f64::NEG_INFINITY;
        for mask in 0u32..1 << (n - 1) {
            let (mut groups, mut i) = (Vec::new(), 0);
            for j in 0..n {
                if j == n - 1 || mask & (1 << j) != 0 {
                    groups.push((i, j));
                    i = j + 1;
                }
            }
            if groups.iter().all(|&(i, j)| fits(a, cap, i, j)) {
                top = top.max(score_of(a, &groups, objective, costs));
            }
        }
        top
    }

    #[test]
    fn two_topics_split_where_they_meet() {
        let text = "a b c d e f";
        let v = vec![vec![1.0, 0.1], vec![1.0, 0.0], vec![1.0, 0.05], vec![0.0, 1.0], vec![0.1, 1.0], vec![0.05, 1.0]];
        let a = analysis(text, v);
        let free = vec![0.0; 6];
        for objective in ClusterObjective::ALL {
            assert_eq!(groups(&a, size_cap(0), objective, &free), vec![(0, 2), (3, 5)], "{objective:?}");
        }
        let config = ChunkConfig { size: 0, ..ChunkConfig::default() };
        assert_eq!(cut(&a, text, &config), vec![0..5, 6..11]);
        // A cap of 3 characters ("a b") leaves room for two pieces a chunk.
        let capped = groups(&a, size_cap(3), ClusterObjective::Pairwise, &free);
        assert!(capped.iter().all(|&(i, j)| a.size(i, j) <= 3), "{capped:?}");
        assert!(!capped.iter().any(|&(i, j)| i <= 2 && j >= 3), "no chunk crosses the topic change: {capped:?}");
    }

    #[test]
    fn a_blank_line_is_the_cheaper_place_to_cut() {
        // Four pieces, all alike: only where a cut costs nothing can it pay.
        let text = "a b\n\nc d";
        let pieces = vec![0..1, 2..3, 5..6, 7..8];
        let sizer = Sizer::for_unit(Unit::Chars, "cl100k_base").unwrap();
        let index = sizer.index(text).unwrap();
        let a = SemanticAnalysis::from_embeddings(pieces, vec![vec![1.0, 0.0]; 4], &index);
        assert_eq!(split_costs(&a, text, 0.5), vec![0.5, 0.0, 0.5, 0.0]);
        // Pieces of one token each: four fit the size of 4.
        let config = ChunkConfig {
            size: 4,
            cluster: crate::config::ClusterOptions { piece_size: 1, ..Default::default() },
            ..ChunkConfig::default()
        };
        assert_eq!(cut(&a, text, &config), vec![0..3, 5..8]);
    }

    #[test]
    fn the_dp_finds_the_best_partition_within_the_cap() {
        // Pseudo-random vectors and costs, deterministic: every partition of 10 pieces tried.
        let mut seed = 0x2545_f491_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 1000) as f32 / 1000.0 - 0.3
        };
        let text = "a b c d e f g h i j";
        for round in 0..20 {
            let v: Vec<Vec<f32>> = (0..10).map(|_| (0..4).map(|_| next()).collect()).collect();
            let costs: Vec<f64> =
                (0..10).map(|k| if k % 3 == 0 { 0.0 } else { f64::from(next().abs()) / 4.0 }).collect();
            let a = analysis(text, v);
            for (size, pieces) in [(0, MAX_PIECES_PER_CHUNK), (3, MAX_PIECES_PER_CHUNK), (5, 2), (9, 3), (0, 4)] {
                let cap = Cap { size, pieces };
                for objective in ClusterObjective::ALL {
                    let g = groups(&a, cap, objective, &costs);
                    assert_eq!(g.first().map(|g| g.0), Some(0));
                    assert_eq!(g.last().map(|g| g.1), Some(9));
                    assert!(g.windows(2).all(|w| w[0].1 + 1 == w[1].0), "a partition: {g:?}");
                    assert!(g.iter().all(|&(i, j)| fits(&a, cap, i, j)), "within {cap:?}: {g:?}");
                    let got = score_of(&a, &g, objective, &costs);
                    let want = brute_force(&a, cap, objective, &costs);
                    assert!((got - want).abs() < 1e-9, "round {round} {cap:?} {objective:?}: {got} < {want}");
                }
            }
        }
    }

    #[test]
    fn the_mean_similarity_is_that_of_every_pair() {
        let v: Vec<Vec<f32>> = vec![vec![1.0, 0.0], vec![0.6, 0.8], vec![0.0, 1.0]];
        let pairs = [(0, 1), (0, 2), (1, 2)];
        let want = pairs.iter().map(|&(i, j)| dot(&v[i], &v[j])).sum::<f64>() / 3.0;
        assert!((mean_similarity(&v) - want).abs() < 1e-9);
    }

    #[test]
    fn a_chunk_holds_as_many_pieces_as_the_size_has_slots() {
        // Ten alike one-character pieces: only the slots stop a chunk.
        let text = "a b c d e f g h i j";
        let a = analysis(text, vec![vec![1.0, 0.0]; 10]);
        let tokens = |size, piece_size| ChunkConfig {
            size,
            unit: Unit::Tokens,
            cluster: crate::config::ClusterOptions { piece_size, ..Default::default() },
            ..ChunkConfig::default()
        };
        assert_eq!(pieces_per_chunk(&a, text, &tokens(200, 50)), 4);
        assert_eq!(pieces_per_chunk(&a, text, &tokens(199, 50)), 3);
        assert_eq!(pieces_per_chunk(&a, text, &tokens(20, 50)), 1, "never fewer than one");
        assert_eq!(pieces_per_chunk(&a, text, &tokens(0, 50)), MAX_PIECES_PER_CHUNK, "no size, no slots");
        // In characters: each piece here is one character and one token, so
        // a piece of 2 tokens is 2 characters and a size of 6 has 3 slots.
        let chars = ChunkConfig {
            size: 6,
            unit: Unit::Chars,
            cluster: crate::config::ClusterOptions { piece_size: 2, ..Default::default() },
            ..ChunkConfig::default()
        };
        assert_eq!(pieces_per_chunk(&a, text, &chars), 3);
        let g = groups(&a, Cap { size: 0, pieces: 4 }, ClusterObjective::Pairwise, &[0.0; 10]);
        assert!(g.iter().all(|&(i, j)| j - i < 4), "{g:?}");
        assert_eq!(g.len(), 3, "ten pieces in chunks of at most four: {g:?}");
    }

    #[test]
    fn nothing_in_nothing_out() {
        let a = analysis("", vec![]);
        assert!(groups(&a, size_cap(10), ClusterObjective::Pairwise, &[]).is_empty());
    }
}
