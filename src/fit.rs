//! "Does it need chunking at all?" — the first question the chunking guides
//! ask. Short, self-contained records (FAQ entries, product rows, tickets)
//! usually should not be cut: a piece of an answer retrieves worse than the
//! answer. This counts how many records (of JSON, JSONL, CSV) or documents
//! (the files of a folder) already fit both the embedding model's input and
//! the chosen size, and says plainly when nearly all do.

use crate::config::Unit;
use crate::document::Document;
use crate::error::Result;
use crate::extract::Structure;
use crate::lint::{LintOptions, TokenCount};
use crate::size::Tokenizer;
use serde::Serialize;

/// The share of records that must fit for "no chunking is needed".
pub const ENOUGH: f64 = 0.95;

/// What was counted: the records of record data, or whole documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Units {
    Records,
    Documents,
    /// A folder of record files and documents: each file's own units.
    Mixed,
}

impl Units {
    fn noun(self, n: usize) -> &'static str {
        match (self, n) {
            (Units::Records, 1) => "record",
            (Units::Records, _) => "records",
            (Units::Documents, 1) => "document",
            (Units::Documents, _) => "documents",
            (Units::Mixed, _) => "records and documents",
        }
    }

    /// The units of a folder whose files count as `self` and `other`.
    pub fn and(self, other: Units) -> Units {
        if self == other {
            self
        } else {
            Units::Mixed
        }
    }
}

/// How many units fit, out of how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct FitCounts {
    pub total: usize,
    /// Within the chosen size, in the config's unit.
    pub within_size: usize,
    /// Within the model's input, in its tokens (special tokens included).
    pub within_model: usize,
    /// Within both.
    pub fit: usize,
}

impl FitCounts {
    /// Count one unit of `size` (config unit) and `tokens` (model tokens).
    pub fn add(&mut self, size: usize, tokens: usize, limits: &Limits) {
        let in_size = size <= limits.size;
        let in_model = tokens <= limits.model_tokens;
        self.total += 1;
        self.within_size += in_size as usize;
        self.within_model += in_model as usize;
        self.fit += (in_size && in_model) as usize;
    }

    pub fn merge(&mut self, other: &FitCounts) {
        self.total += other.total;
        self.within_size += other.within_size;
        self.within_model += other.within_model;
        self.fit += other.fit;
    }

    /// The share that fits both, 0..=1.
    pub fn share(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.fit as f64 / self.total as f64
        }
    }
}

/// The two limits a unit is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Limits {
    pub size: usize,
    pub unit: Unit,
    pub model_tokens: usize,
}

/// The answer: the counts, the limits, and the sentence that says it.
#[derive(Debug, Clone, Serialize)]
pub struct Fit {
    pub units: Units,
    #[serde(flatten)]
    pub counts: FitCounts,
    pub size: usize,
    pub unit: Unit,
    pub model_tokens: usize,
    pub needs_chunking: bool,
    pub advice: String,
}

impl Fit {
    /// What to say for one text: record data always (how many records fit
    /// as they are); a document only when it fits whole.
    pub fn said(units: Units, counts: FitCounts, limits: &Limits) -> Option<Fit> {
        (units != Units::Documents || counts.fit == counts.total).then(|| Fit::new(units, counts, limits))
    }

    pub fn new(units: Units, counts: FitCounts, limits: &Limits) -> Fit {
        let needs_chunking = counts.total == 0 || counts.share() < ENOUGH;
        let advice = advice(units, &counts, limits, needs_chunking);
        Fit {
            units,
            counts,
            size: limits.size,
            unit: limits.unit,
            model_tokens: limits.model_tokens,
            needs_chunking,
            advice,
        }
    }
}

fn advice(units: Units, c: &FitCounts, limits: &Limits, needs: bool) -> String {
    let percent = (c.share() * 100.0).floor();
    let (size, unit, model) = (limits.size, limits.unit, limits.model_tokens);
    let fit = format!(
        "{} of {} {} ({percent}%) already fit the model's input ({model} tokens) and --size {size} {unit}",
        c.fit,
        c.total,
        units.noun(c.total)
    );
    if !needs {
        let keep = match units {
            Units::Records => "keep a chunk per record: --strategy document",
            Units::Documents => "keep a chunk per document: --strategy document",
            Units::Mixed => "keep a chunk per record or document: --strategy document",
        };
        return format!("{fit}: no chunking is needed; {keep}");
    }
    let over = c.total - c.fit;
    let why = match (c.within_size < c.total, c.within_model < c.total) {
        (_, true) => format!("{} are over the model's input", c.total - c.within_model),
        _ => format!("{} are over --size", c.total - c.within_size),
    };
    format!("{fit}; {over} do not ({why}): they need chunking")
}

/// The units of a text: its records when it is record data, else itself.
pub fn units_of(text: &str, structure: Option<&Structure>) -> (Units, Vec<std::ops::Range<usize>>) {
    match structure.filter(|s| s.record_kind.is_some() && !s.records.is_empty()) {
        Some(s) => (Units::Records, s.records.iter().map(|r| r.range.clone()).collect()),
        None => (Units::Documents, vec![0..text.len()]),
    }
}

/// A document longer than this is not counted: it fits no model's input
/// (OpenAI's 8,191 tokens are at most ~64 KiB of text), and counting the
/// tokens of megabytes would cost what chunking them costs.
const MAX_COUNTED_BYTES: usize = 64 * 1024;

/// Count the units of `doc` against `opts`' size (its config's) and model
/// input (its `max_tokens`, in the model's tokens when it knows them).
pub fn count(doc: &Document, opts: &LintOptions) -> Result<(Units, FitCounts, Limits)> {
    count_text(&doc.text, doc.structure.as_deref(), opts)
}

/// [`count`] of a text and its structure.
pub fn count_text(text: &str, structure: Option<&Structure>, opts: &LintOptions) -> Result<(Units, FitCounts, Limits)> {
    let limits = Limits { size: opts.config.size, unit: opts.config.unit, model_tokens: opts.max_tokens };
    let own;
    let tokens = match &opts.tokens {
        Some(t) => t,
        None => {
            own = TokenCount { tokenizer: Tokenizer::load(&opts.config.tokenizer)?, specials: 0, model: false };
            &own
        }
    };
    let (units, ranges) = units_of(text, structure);
    let (counted, long): (Vec<_>, Vec<_>) = ranges.iter().partition(|r| r.len() <= MAX_COUNTED_BYTES);
    let texts: Vec<&str> = counted.iter().map(|r| &text[(*r).clone()]).collect();
    let mut counts = FitCounts::default();
    for (text, n) in texts.iter().zip(tokens.count_all(&texts)) {
        counts.add(opts.sizer.size(text), n, &limits);
    }
    for _ in long {
        counts.add(usize::MAX, usize::MAX, &limits);
    }
    Ok((units, counts, limits))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits { size: 100, unit: Unit::Chars, model_tokens: 256 };

    #[test]
    fn nearly_all_fitting_says_no_chunking_is_needed() {
        let mut c = FitCounts::default();
        for _ in 0..19 {
            c.add(80, 30, &LIMITS);
        }
        c.add(300, 90, &LIMITS);
        let fit = Fit::new(Units::Records, c, &LIMITS);
        assert!(!fit.needs_chunking);
        assert_eq!(
            fit.advice,
            "19 of 20 records (95%) already fit the model's input (256 tokens) and --size 100 chars: no chunking \
             is needed; keep a chunk per record: --strategy document"
        );
    }

    #[test]
    fn too_many_over_says_which_limit() {
        let mut c = FitCounts::default();
        c.add(80, 30, &LIMITS);
        c.add(90, 400, &LIMITS);
        let fit = Fit::new(Units::Documents, c, &LIMITS);
        assert!(fit.needs_chunking);
        assert!(fit.advice.ends_with("1 do not (1 are over the model's input): they need chunking"), "{}", fit.advice);
    }
}
