//! [`SemanticAnalysis`]: a document's sentences, their (windowed) embeddings
//! and the cosine distance across every sentence boundary, computed once.
//! Everything after that is pure arithmetic over cached numbers:
//! [`SemanticAnalysis::cut`] re-cuts for any threshold in well under a
//! millisecond on 10 000 sentences (a 1 MB document), so a workbench slider
//! never re-embeds.
//!
//! Threshold maths follows LangChain's `SemanticChunker` (numpy's linear
//! percentile, population standard deviation, `np.gradient`).

use crate::config::ThresholdType;
use crate::embedding::{cosine, Control, Embedder, Embeddings};
use crate::error::{Error, Result};
use crate::size::SizeIndex;
use std::ops::Range;

/// How the breakpoint threshold is chosen; LangChain's names and meanings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    /// Break where the distance is above this percentile (0-100) of all distances.
    Percentile(f64),
    /// Break where the distance is above mean + k standard deviations.
    StandardDeviation(f64),
    /// Break where the distance is above mean + k * interquartile range.
    Interquartile(f64),
    /// Break where the distance's gradient is above this percentile of all gradients.
    Gradient(f64),
    /// Break where the cosine distance is above this value (model dependent).
    Absolute(f64),
    /// Aim for this many chunks (LangChain's `number_of_chunks`).
    Chunks(usize),
}

impl Threshold {
    pub fn new(t: ThresholdType, amount: Option<f64>) -> Self {
        let a = amount.unwrap_or_else(|| t.default_amount());
        match t {
            ThresholdType::Percentile => Threshold::Percentile(a),
            ThresholdType::StandardDeviation => Threshold::StandardDeviation(a),
            ThresholdType::Interquartile => Threshold::Interquartile(a),
            ThresholdType::Gradient => Threshold::Gradient(a),
            ThresholdType::Absolute => Threshold::Absolute(a),
        }
    }

    /// From the config's semantic options (`number_of_chunks` wins, as in LangChain).
    pub fn from_options(o: &crate::config::SemanticOptions) -> Self {
        match o.number_of_chunks {
            Some(n) => Threshold::Chunks(n),
            None => Threshold::new(o.threshold_type, o.threshold),
        }
    }
}

/// Size limits in the configured unit; 0 means none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    pub max: usize,
    pub min: usize,
}

/// One sentence boundary, for a chart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distance {
    /// Boundary between sentence `index` and `index + 1`.
    pub index: usize,
    /// Byte offset where the earlier sentence ends.
    pub prev_end: usize,
    /// Byte offset where the next sentence starts.
    pub offset: usize,
    /// Cosine distance (1 - similarity) between the two sentence windows.
    pub distance: f64,
}

/// numpy's `percentile(..., method="linear")` over already sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    let q = p / 100.0;
    // numpy's "linear" method: virtual index = n*q + (alpha + q*(1 - alpha - beta)) - 1
    // with alpha = beta = 1, which is (n - 1) * q.
    let virt = (n - 1) as f64 * q;
    let prev = virt.floor();
    let gamma = virt - prev;
    let lo = (prev.max(0.0) as usize).min(n - 1);
    let hi = ((prev + 1.0).max(0.0) as usize).min(n - 1);
    let (a, b) = (sorted[lo], sorted[hi]);
    let diff = b - a;
    if gamma >= 0.5 {
        b - diff * (1.0 - gamma)
    } else {
        a + diff * gamma
    }
}

/// numpy's `gradient(x, range(len(x)))`: central differences, one-sided at the ends.
pub fn gradient(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    if n < 2 {
        return vec![0.0; n];
    }
    let mut g = vec![0.0; n];
    g[0] = (x[1] - x[0]) / 1.0;
    g[n - 1] = (x[n - 1] - x[n - 2]) / 1.0;
    for i in 1..n - 1 {
        g[i] = (x[i + 1] - x[i - 1]) / 2.0;
    }
    g
}

/// Mean and population standard deviation.
pub fn mean_std(x: &[f64]) -> (f64, f64) {
    if x.is_empty() {
        return (0.0, 0.0);
    }
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).abs().powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// LangChain's `number_of_chunks` -> percentile mapping.
pub fn percentile_for_chunks(chunks: usize, distances: usize) -> f64 {
    let (x1, y1) = (distances as f64, 0.0);
    let (x2, y2) = (1.0, 100.0);
    let x = (chunks as f64).min(x1).max(x2);
    let y = if x2 == x1 { y2 } else { y1 + ((y2 - y1) / (x2 - x1)) * (x - x1) };
    y.clamp(0.0, 100.0)
}

/// Cosine distances between neighbouring vectors.
pub fn neighbour_distances(vectors: &[Vec<f32>]) -> Vec<f64> {
    vectors.windows(2).map(|w| 1.0 - cosine(&w[0], &w[1])).collect()
}

/// The numbers a distance series needs for every threshold type, computed once.
#[derive(Debug, Clone, Default)]
pub struct DistanceStats {
    pub values: Vec<f64>,
    sorted: Vec<f64>,
    gradient: Vec<f64>,
    sorted_gradient: Vec<f64>,
    mean: f64,
    std: f64,
}

impl DistanceStats {
    pub fn new(values: Vec<f64>) -> Self {
        let mut sorted = values.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let gradient = gradient(&values);
        let mut sorted_gradient = gradient.clone();
        sorted_gradient.sort_by(|a, b| a.total_cmp(b));
        let (mean, std) = mean_std(&values);
        DistanceStats { values, sorted, gradient, sorted_gradient, mean, std }
    }

    /// The cutoff and the series it applies to (distances, or their gradient).
    pub fn cutoff(&self, t: Threshold) -> (f64, &[f64]) {
        match t {
            Threshold::Percentile(p) => (percentile(&self.sorted, p), &self.values),
            Threshold::StandardDeviation(k) => (self.mean + k * self.std, &self.values),
            Threshold::Interquartile(k) => {
                let iqr = percentile(&self.sorted, 75.0) - percentile(&self.sorted, 25.0);
                (self.mean + k * iqr, &self.values)
            }
            Threshold::Gradient(p) => (percentile(&self.sorted_gradient, p), &self.gradient),
            Threshold::Absolute(d) => (d, &self.values),
            Threshold::Chunks(n) => {
                (percentile(&self.sorted, percentile_for_chunks(n, self.values.len())), &self.values)
            }
        }
    }

    /// Boundary indices whose series value is above the cutoff.
    pub fn breakpoints(&self, t: Threshold) -> Vec<usize> {
        let (cut, series) = self.cutoff(t);
        series.iter().enumerate().filter(|(_, &x)| x > cut).map(|(i, _)| i).collect()
    }

    /// Rank of each value in [0, 1] (0 = smallest distance).
    pub fn ranks(&self) -> Vec<f64> {
        let n = self.sorted.len();
        if n < 2 {
            return vec![0.5; n];
        }
        self.values
            .iter()
            .map(|v| {
                let lo = self.sorted.partition_point(|x| x < v);
                let hi = self.sorted.partition_point(|x| x <= v);
                ((lo + hi - 1) as f64 / 2.0) / (n - 1) as f64
            })
            .collect()
    }
}

/// Bytes of a sentence window per token the model reads: a window longer
/// than `max_input_tokens` times this (text runs about 4 bytes a token, so
/// the model would cut it) is the mean of its sentences' vectors instead,
/// and reported truncated. A huge `buffer_size` then stays linear in the
/// text instead of embedding the whole text once per sentence.
const WINDOW_BYTES_PER_TOKEN: usize = 16;
/// The cut for a model that states no input size.
const WINDOW_BYTES_MAX: usize = 64 * 1024;

/// Sentences, embeddings and distances of one document, for re-cutting.
#[derive(Debug, Clone, Default)]
pub struct SemanticAnalysis {
    /// Sentence byte ranges (exact source offsets).
    pub sentences: Vec<Range<usize>>,
    /// Embedding of each sentence's window (the sentence with `buffer`
    /// neighbours on each side), unit length.
    pub embeddings: Vec<Vec<f32>>,
    /// Distance across each boundary: `distances.values[i]` is between
    /// sentence `i` and `i + 1`.
    pub distances: DistanceStats,
    /// Sentences whose window was longer than the model's input.
    pub truncated: Vec<usize>,
    /// Distance of each sentence (from the second) to the mean of up to 3
    /// sentences before it: calibrates `semantic-grouping`'s cutoff.
    pub to_mean: DistanceStats,
    /// Units ended before each sentence's start / started before its end:
    /// size(sentences i..=j) = `started[j] - ended[i]`.
    ended: Vec<usize>,
    started: Vec<usize>,
    ranks: Vec<f64>,
    /// `cluster`'s units per token of these pieces, measured on the first
    /// cut and kept: every size change re-cuts the same analysis.
    pub(crate) unit_per_token: std::sync::OnceLock<Option<f64>>,
}

impl SemanticAnalysis {
    /// Embed `text`'s sentences and measure every boundary. The distance at
    /// boundary `i` compares the `buffer + 1` sentences ending at sentence
    /// `i` with the `buffer + 1` sentences starting at `i + 1`, so a topic
    /// shift peaks exactly at its boundary (LangChain's centred windows
    /// spread it over `2 * buffer + 1` boundaries). `sentences` are byte
    /// ranges in order (see [`crate::segment::sentences`]).
    pub fn compute(
        text: &str,
        sentences: Vec<Range<usize>>,
        buffer: usize,
        embedder: &dyn Embedder,
        index: &SizeIndex<'_>,
        ctl: Control<'_>,
    ) -> Result<Self> {
        let n = sentences.len();
        // Left windows (also each sentence's own embedding), then the right
        // windows that are not already among them (near the end).
        let mut ranges: Vec<Range<usize>> =
            (0..n).map(|k| sentences[k.saturating_sub(buffer)].start..sentences[k].end).collect();
        // The sentences each window spans (first, last), and for a right window
        // the sentence its boundary is before.
        let mut spans: Vec<(usize, usize)> = (0..n).map(|k| (k.saturating_sub(buffer), k)).collect();
        let mut right_of: Vec<usize> = Vec::new();
        let mut right_idx = Vec::with_capacity(n.saturating_sub(1));
        for i in 0..n.saturating_sub(1) {
            let reach = (i + 1).saturating_add(buffer);
            let last = reach.min(n - 1);
            if reach < n {
                right_idx.push(last);
            } else {
                right_idx.push(ranges.len());
                ranges.push(sentences[i + 1].start..sentences[last].end);
                spans.push((i + 1, last));
                right_of.push(i + 1);
            }
        }
        // A window longer than the model can read (a large buffer) is not
        // embedded as text, which the model would cut to its first tokens:
        // it gets the mean of its sentences' vectors, a running sum over the
        // sentences in order. Any buffer size then costs one embedding per
        // sentence and window at most, each of bounded length.
        let cap = embedder.max_input_tokens().map_or(WINDOW_BYTES_MAX, |t| {
            t.saturating_mul(WINDOW_BYTES_PER_TOKEN).clamp(WINDOW_BYTES_PER_TOKEN, WINDOW_BYTES_MAX)
        });
        let long: Vec<bool> = ranges.iter().map(|r| r.len() > cap).collect();
        let any_long = long.iter().any(|&l| l);
        let prefix = |r: &Range<usize>| {
            let w = &text[r.clone()];
            let mut end = w.len().min(cap);
            while !w.is_char_boundary(end) {
                end -= 1;
            }
            &w[..end]
        };
        // What to embed: the windows that fit, then (when some do not) every sentence.
        let mut texts: Vec<Option<&str>> =
            ranges.iter().zip(&long).map(|(r, &l)| (!l).then(|| &text[r.clone()])).collect();
        if any_long {
            texts.extend(sentences.iter().map(|r| Some(prefix(r))));
        }
        // Each distinct text once.
        let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        let mut unique: Vec<&str> = Vec::new();
        let slot: Vec<usize> = texts
            .iter()
            .map(|t| {
                t.map_or(usize::MAX, |t| {
                    *first.entry(t).or_insert_with(|| {
                        unique.push(t);
                        unique.len() - 1
                    })
                })
            })
            .collect();
        let got = embedder.embed_texts(&unique, ctl)?;
        if got.vectors.len() != unique.len() {
            return Err(Error::Model(format!(
                "model returned {} vectors for {} texts",
                got.vectors.len(),
                unique.len()
            )));
        }
        let cut_unique: std::collections::HashSet<usize> = got.truncated.iter().copied().collect();
        let mut window_vectors: Vec<Vec<f32>> =
            slot[..ranges.len()].iter().map(|&u| got.vectors.get(u).cloned().unwrap_or_default()).collect();
        let mut cut: Vec<usize> = (0..ranges.len()).filter(|&k| !long[k] && cut_unique.contains(&slot[k])).collect();
        if any_long {
            let sentence_vec = |j: usize| &got.vectors[slot[ranges.len() + j]];
            // Left windows, then right ones: each a run whose ends never move back.
            for run in [0..n, n..ranges.len()] {
                let dim = got.vectors.first().map_or(0, Vec::len);
                let (mut sum, mut lo, mut hi) = (vec![0f64; dim], 0usize, 0usize);
                for k in run {
                    let (a, b) = spans[k];
                    while hi <= b {
                        sentence_vec(hi).iter().zip(&mut sum).for_each(|(x, s)| *s += f64::from(*x));
                        hi += 1;
                    }
                    while lo < a {
                        sentence_vec(lo).iter().zip(&mut sum).for_each(|(x, s)| *s -= f64::from(*x));
                        lo += 1;
                    }
                    if long[k] {
                        let mut v: Vec<f32> = sum.iter().map(|&x| x as f32).collect();
                        crate::embedding::normalize(&mut v);
                        window_vectors[k] = v;
                        cut.push(k);
                    }
                }
            }
        }
        let emb = Embeddings { vectors: window_vectors, truncated: cut };
        let distances: Vec<f64> =
            (0..n.saturating_sub(1)).map(|i| 1.0 - cosine(&emb.vectors[i], &emb.vectors[right_idx[i]])).collect();
        let truncated: Vec<usize> = {
            let mut t: Vec<usize> = emb.truncated.iter().map(|&k| if k < n { k } else { right_of[k - n] }).collect();
            t.sort_unstable();
            t.dedup();
            t
        };
        let mut vectors = emb.vectors;
        vectors.truncate(n);
        let mut a = Self::from_parts(sentences, vectors, distances, index);
        a.truncated = truncated;
        Ok(a)
    }

    /// Build from one embedding per sentence (distances between neighbours).
    pub fn from_embeddings(sentences: Vec<Range<usize>>, embeddings: Vec<Vec<f32>>, index: &SizeIndex<'_>) -> Self {
        let d = neighbour_distances(&embeddings);
        Self::from_parts(sentences, embeddings, d, index)
    }

    /// Build from sentence embeddings and boundary distances already at hand.
    pub fn from_parts(
        sentences: Vec<Range<usize>>,
        embeddings: Vec<Vec<f32>>,
        distances: Vec<f64>,
        index: &SizeIndex<'_>,
    ) -> Self {
        assert_eq!(distances.len(), sentences.len().saturating_sub(1), "one distance per boundary");
        let distances = DistanceStats::new(distances);
        let to_mean = DistanceStats::new(distances_to_running_mean(&embeddings, 3));
        let (ended, started) = size_lookup(&sentences, index);
        let ranks = distances.ranks();
        SemanticAnalysis {
            sentences,
            embeddings,
            distances,
            to_mean,
            truncated: Vec::new(),
            ended,
            started,
            ranks,
            unit_per_token: std::sync::OnceLock::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.sentences.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sentences.is_empty()
    }

    /// The distance series for a chart: one point per sentence boundary.
    pub fn distance_series(&self) -> Vec<Distance> {
        self.distances
            .values
            .iter()
            .enumerate()
            .map(|(i, &d)| Distance {
                index: i,
                prev_end: self.sentences[i].end,
                offset: self.sentences[i + 1].start,
                distance: d,
            })
            .collect()
    }

    /// The distance value a threshold resolves to (to draw as a line on the
    /// chart; for `Gradient` it applies to the gradient series).
    pub fn cutoff(&self, t: Threshold) -> f64 {
        self.distances.cutoff(t).0
    }

    /// Size of sentences `i..=j` in the configured unit, O(1).
    pub fn size(&self, i: usize, j: usize) -> usize {
        self.started[j].saturating_sub(self.ended[i])
    }

    fn range(&self, i: usize, j: usize) -> Range<usize> {
        self.sentences[i].start..self.sentences[j].end
    }

    /// Chunk ranges for a threshold: break after every boundary above it,
    /// then split chunks over `limits.max` at their largest inner distances
    /// and merge chunks under `limits.min` into a neighbour that has room.
    /// A single sentence over `max` stays whole (see [`split_oversized`]).
    /// Pure and fast: no embedding, O(n) plus the splits.
    pub fn cut(&self, t: Threshold, limits: Limits) -> Vec<Range<usize>> {
        let groups = self.groups(t, limits);
        groups.into_iter().map(|(i, j)| self.range(i, j)).collect()
    }

    /// Like [`Self::cut`], as inclusive sentence index pairs.
    pub fn groups(&self, t: Threshold, limits: Limits) -> Vec<(usize, usize)> {
        let n = self.sentences.len();
        if n == 0 {
            return Vec::new();
        }
        let mut groups = Vec::new();
        let mut start = 0;
        for b in self.distances.breakpoints(t) {
            groups.push((start, b));
            start = b + 1;
        }
        groups.push((start, n - 1));
        let groups = self.enforce_max(groups, limits.max);
        self.enforce_min(groups, limits)
    }

    fn enforce_max(&self, groups: Vec<(usize, usize)>, max: usize) -> Vec<(usize, usize)> {
        if max == 0 {
            return groups;
        }
        let mut out = Vec::with_capacity(groups.len());
        for g in groups {
            let mut stack = vec![g];
            let mut pieces = Vec::new();
            while let Some((i, j)) = stack.pop() {
                if i == j || self.size(i, j) <= max {
                    pieces.push((i, j));
                    continue;
                }
                // Split at the largest distance inside; prefer one that leaves
                // both halves non-trivial by taking the first maximum.
                let mut best = i;
                for b in i..j {
                    if self.distances.values[b] > self.distances.values[best] {
                        best = b;
                    }
                }
                stack.push((best + 1, j));
                stack.push((i, best));
            }
            out.extend(pieces);
        }
        out
    }

    fn enforce_min(&self, groups: Vec<(usize, usize)>, limits: Limits) -> Vec<(usize, usize)> {
        if limits.min == 0 {
            return groups;
        }
        let fits = |i: usize, j: usize| limits.max == 0 || self.size(i, j) <= limits.max;
        let mut out: Vec<(usize, usize)> = Vec::with_capacity(groups.len());
        for (i, j) in groups {
            if let Some(&(li, lj)) = out.last() {
                if self.size(li, lj) < limits.min {
                    // A small chunk joins the next one, or else the one before it.
                    if fits(li, j) {
                        out.last_mut().expect("checked").1 = j;
                        continue;
                    }
                    if out.len() >= 2 && fits(out[out.len() - 2].0, lj) {
                        out.pop();
                        out.last_mut().expect("len >= 2").1 = lj;
                    }
                }
            }
            out.push((i, j));
        }
        // A small last chunk joins the one before it when that fits.
        if out.len() >= 2 {
            let (i, j) = out[out.len() - 1];
            let (pi, _) = out[out.len() - 2];
            if self.size(i, j) < limits.min && fits(pi, j) {
                out.pop();
                out.last_mut().unwrap().1 = j;
            }
        }
        out
    }

    /// `semantic-grouping`: grow a chunk while each next sentence's distance
    /// to the chunk's mean embedding stays at or below the threshold's cutoff
    /// and the chunk stays within `limits.max`; then apply `limits.min`.
    /// Relative thresholds (percentile, ...) resolve on the series of
    /// sentence-to-mean-of-previous-3 distances ([`Self::to_mean`]), which is
    /// what grouping compares; `Absolute` is a plain cosine distance. O(n * dim).
    pub fn group_by_mean(&self, t: Threshold, limits: Limits) -> Vec<Range<usize>> {
        let n = self.sentences.len();
        if n == 0 {
            return Vec::new();
        }
        let cutoff = match t {
            Threshold::Absolute(d) => d,
            Threshold::Gradient(p) => percentile(&self.to_mean.sorted, p),
            _ => self.to_mean.cutoff(t).0,
        };
        let dim = self.embeddings.first().map_or(0, |v| v.len());
        let mut groups = Vec::new();
        let mut start = 0;
        let mut sum = vec![0f32; dim];
        sum.copy_from_slice(&self.embeddings[0]);
        for j in 1..n {
            let d = 1.0 - cosine(&self.embeddings[j], &sum);
            let within = limits.max == 0 || self.size(start, j) <= limits.max;
            if d <= cutoff && within {
                sum.iter_mut().zip(&self.embeddings[j]).for_each(|(a, b)| *a += b);
            } else {
                groups.push((start, j - 1));
                start = j;
                sum.copy_from_slice(&self.embeddings[j]);
            }
        }
        groups.push((start, n - 1));
        self.enforce_min(groups, limits).into_iter().map(|(i, j)| self.range(i, j)).collect()
    }

    /// `adaptive`: chunk size follows content density.
    ///
    /// Each boundary gets a rank r in [0, 1] (its distance's place among all
    /// of the document's distances; 1 = the sharpest shift in meaning). A
    /// chunk grows sentence by sentence. Its *density* is the mean rank of the
    /// boundaries it spans plus the one after it, and its *target* size is
    /// `max - (max - min) * density`: where meaning shifts fast the target
    /// drops towards `min`, in calm stretches it rises towards `max`. The
    /// chunk closes when it reaches its target, when the next sentence would
    /// take it over `max`, or when the next boundary is a breakpoint of the
    /// threshold and the chunk has reached `min`. A chunk that reaches its
    /// target runs on to a breakpoint lying just ahead when it still fits
    /// within `max`, so topic shifts stay boundaries. `min = 0` means `max / 4`.
    /// See docs/adaptive.md for a picture.
    pub fn adaptive(&self, t: Threshold, limits: Limits) -> Vec<Range<usize>> {
        let n = self.sentences.len();
        if n == 0 {
            return Vec::new();
        }
        let max = if limits.max == 0 { usize::MAX / 2 } else { limits.max };
        let min = if limits.min == 0 { (max / 4).max(1) } else { limits.min.min(max) };
        let (cut, series) = self.distances.cutoff(t);
        let strong: Vec<bool> = series.iter().map(|&x| x > cut).collect();
        // prefix sums of ranks
        let mut pre = vec![0.0; self.ranks.len() + 1];
        for (i, r) in self.ranks.iter().enumerate() {
            pre[i + 1] = pre[i] + r;
        }
        let nb = self.ranks.len();
        let density = |i: usize, j: usize| -> f64 {
            // boundaries i..=j (j = the one after sentence j), clipped
            if nb == 0 {
                return 0.5;
            }
            let hi = (j + 1).min(nb);
            let lo = i.min(hi.saturating_sub(1));
            (pre[hi] - pre[lo]) / (hi - lo) as f64
        };
        let mut groups = Vec::new();
        let mut start = 0;
        while start < n {
            let mut j = start;
            let end = loop {
                if j + 1 == n {
                    break j;
                }
                let size = self.size(start, j);
                if strong[j] && size >= min {
                    break j;
                }
                if self.size(start, j + 1) > max {
                    break j;
                }
                let target = max as f64 - (max - min) as f64 * density(start, j);
                if size as f64 >= target {
                    // Run on to a breakpoint just ahead when it still fits.
                    let mut k = j + 1;
                    let mut found = j;
                    while k + 1 < n && self.size(start, k) <= max {
                        if strong[k] {
                            found = k;
                            break;
                        }
                        k += 1;
                    }
                    break found;
                }
                j += 1;
            };
            groups.push((start, end));
            start = end + 1;
        }
        let limits = Limits { max: limits.max, min: limits.min };
        self.enforce_min(groups, limits).into_iter().map(|(i, j)| self.range(i, j)).collect()
    }
}

/// Distance of sentence `i + 1` to the mean of sentences `i + 1 - w ..= i`.
pub fn distances_to_running_mean(v: &[Vec<f32>], w: usize) -> Vec<f64> {
    let n = v.len();
    let dim = v.first().map_or(0, |x| x.len());
    (1..n)
        .map(|j| {
            let mut m = vec![0f32; dim];
            for x in &v[j.saturating_sub(w)..j] {
                m.iter_mut().zip(x).for_each(|(a, b)| *a += b);
            }
            1.0 - cosine(&v[j], &m)
        })
        .collect()
}

/// Each sentence's window: itself with `buffer` sentences on each side, as
/// one source range.
pub fn windows(sentences: &[Range<usize>], buffer: usize) -> Vec<Range<usize>> {
    let n = sentences.len();
    (0..n)
        .map(|i| sentences[i.saturating_sub(buffer)].start..sentences[i.saturating_add(buffer).min(n - 1)].end)
        .collect()
}

fn size_lookup(sentences: &[Range<usize>], index: &SizeIndex<'_>) -> (Vec<usize>, Vec<usize>) {
    match index {
        SizeIndex::Chars(c) => (
            sentences.iter().map(|s| c.chars_before(s.start)).collect(),
            sentences.iter().map(|s| c.chars_before(s.end)).collect(),
        ),
        SizeIndex::Bytes => (sentences.iter().map(|s| s.start).collect(), sentences.iter().map(|s| s.end).collect()),
        SizeIndex::Spans(sp) => {
            let spans = sp.spans();
            let mut ends: Vec<u32> = spans.iter().map(|s| s.1).collect();
            ends.sort_unstable();
            let ended = sentences.iter().map(|s| ends.partition_point(|&e| (e as usize) <= s.start)).collect();
            let started = sentences.iter().map(|s| spans.partition_point(|x| (x.0 as usize) < s.end)).collect();
            (ended, started)
        }
    }
}

/// Split ranges larger than `max` with the recursive splitter (English
/// separators), for single sentences that exceed the limit on their own.
pub fn split_oversized(text: &str, index: &SizeIndex<'_>, ranges: Vec<Range<usize>>, max: usize) -> Vec<Range<usize>> {
    if max == 0 {
        return ranges;
    }
    let seps = match crate::strategy::recursive::Separators::preset("english") {
        Ok(s) => s,
        Err(_) => return ranges,
    };
    let mut out = Vec::with_capacity(ranges.len());
    for r in ranges {
        if index.size(r.clone()) <= max {
            out.push(r);
        } else {
            out.extend(crate::strategy::recursive::chunk(text, index, &seps, max, 0, r));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedding::Embeddings;

    #[test]
    fn numpy_percentile_and_gradient() {
        let s = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&s, 50.0), 2.5);
        assert_eq!(percentile(&s, 0.0), 1.0);
        assert_eq!(percentile(&s, 100.0), 4.0);
        assert!((percentile(&s, 95.0) - 3.85).abs() < 1e-12);
        assert_eq!(gradient(&[1.0, 2.0, 4.0, 7.0]), vec![1.0, 1.5, 2.5, 3.0]);
        assert_eq!(percentile_for_chunks(1, 10), 100.0);
        assert_eq!(percentile_for_chunks(10, 10), 0.0);
    }

    /// Vectors from the text's length: enough to run the arithmetic.
    struct LenEmbedder;
    impl Embedder for LenEmbedder {
        fn model_id(&self) -> &str {
            "len"
        }
        fn embed_texts(&self, texts: &[&str], _: Control<'_>) -> Result<Embeddings> {
            let vectors = texts.iter().map(|t| vec![1.0, t.len() as f32]).collect();
            Ok(Embeddings { vectors, truncated: vec![] })
        }
    }

    #[test]
    fn any_buffer_size_is_the_whole_text_not_an_overflow() {
        let text = "One. Two. Three.";
        let sentences = vec![0..4, 5..9, 10..16];
        assert_eq!(windows(&sentences, usize::MAX), vec![0..16, 0..16, 0..16]);
        let sizer = crate::size::Sizer::for_unit(crate::config::Unit::Chars, "cl100k_base").unwrap();
        let index = sizer.index(text).unwrap();
        let huge =
            SemanticAnalysis::compute(text, sentences.clone(), usize::MAX, &LenEmbedder, &index, Control::none());
        let all = SemanticAnalysis::compute(text, sentences, 2, &LenEmbedder, &index, Control::none());
        assert_eq!(huge.unwrap().distances.values, all.unwrap().distances.values);
    }
}
