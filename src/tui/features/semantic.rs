//! The model strategies in the workbench. Embedding is the slow step and runs
//! on its own thread ([`crate::tui::features::embedder`]); its result, a
//! [`SemanticAnalysis`], is cached in the model by [`AnalysisKey`] so that
//! threshold and size changes only re-cut (on the chunker thread, in
//! milliseconds) and never embed again.
//!
//! - `semantic`, `semantic-grouping`, `adaptive`: analyse once, then
//!   [`Cmd::Recut`] for every change that keeps the key.
//! - `langchain-semantic`, `late`: no re-cut path in the core; every change
//!   runs the whole strategy on the embedding thread (the on-disk embedding
//!   cache makes repeats quick).

use crate::config::{ChunkConfig, ThresholdType};
use crate::tui::msg::Cmd;
use crate::tui::state::model::Model;

pub use crate::tui::state::semantic::{
    recuts, AnalysisKey, Cached, CancelFlag, Job, ModelWarning, SemState, SemanticAnalysis, Threshold, CACHE_SLOTS,
};

pub fn cached<'a>(m: &'a Model, key: &AnalysisKey) -> Option<&'a Cached> {
    m.analyses.iter().find(|c| &c.key == key)
}

/// The analysis behind a pane's chunks, if it has one (for the chart).
pub fn analysis_of(m: &Model, pane: usize) -> Option<&Cached> {
    let c = &m.panes[pane].config;
    if !recuts(c.strategy) {
        return None;
    }
    cached(m, &AnalysisKey::for_config(m.doc_rev, c))
}

pub fn insert(m: &mut Model, entry: Cached) {
    m.analyses.retain(|c| c.key != entry.key);
    m.analyses.insert(0, entry);
    m.analyses.truncate(CACHE_SLOTS);
}

/// The command that brings a model pane's chunks up to date (its `rev` was
/// just bumped): a re-cut from the cache, or an embedding job. A running
/// job for the same analysis is kept; any other is cancelled.
pub fn request(m: &mut Model, pane: usize) -> Option<Cmd> {
    let config = m.panes[pane].config.clone();
    let rev = m.panes[pane].rev;
    let key = recuts(config.strategy).then(|| AnalysisKey::for_config(m.doc_rev, &config));
    if let Some(key) = &key {
        if let Some(c) = cached(m, key) {
            let cmd = recut_cmd(m, pane, c);
            cancel(m, pane);
            return Some(cmd);
        }
        let running = (0..2).find(|&q| m.panes[q].sem.job.as_ref().is_some_and(|j| j.key.as_ref() == Some(key)));
        if let Some(q) = running {
            if q != pane {
                cancel(m, pane);
            }
            return None; // its result re-cuts every pane that wants it, with their settings then
        }
    }
    cancel(m, pane);
    m.next_job += 1;
    let id = m.next_job;
    let cancel = CancelFlag::new();
    m.panes[pane].sem.job = Some(Job { id, key: key.clone(), cancel: cancel.clone(), done: 0, total: 0 });
    let first = key.as_ref().and_then(|_| on_screen(m));
    Some(Cmd::Embed { pane, id, rev, key, config, text: m.text.clone(), cancel, first })
}

/// Documents at least this long embed (or cut) what is on screen first.
pub const FIRST_PART_BYTES: usize = 16 * 1024;

/// The bytes on screen and a screen below, for a document long enough that
/// embedding them first is worth it.
pub fn on_screen(m: &Model) -> Option<std::ops::Range<usize>> {
    if m.text.len() < FIRST_PART_BYTES || m.layout.is_empty() {
        return None;
    }
    let rows = m.screen.height.max(1) as usize;
    let start = m.layout.start_of(m.top.min(m.layout.len() - 1));
    let last = (m.top + 2 * rows).min(m.layout.len() - 1);
    let end = m.layout.start_of(last).max(start + 1).min(m.text.len());
    Some(start..end)
}

/// A pane waits for this analysis: its strategy re-cuts and its settings map to `key`.
pub fn wants(m: &Model, q: usize, key: &AnalysisKey) -> bool {
    let c = &m.panes[q].config;
    recuts(c.strategy) && AnalysisKey::for_config(m.doc_rev, c) == *key
}

pub fn recut_cmd(m: &Model, pane: usize, c: &Cached) -> Cmd {
    let p = &m.panes[pane];
    let resize = c.sized_for != (p.config.unit, p.config.tokenizer.clone());
    Cmd::Recut {
        pane,
        rev: p.rev,
        config: p.config.clone(),
        text: m.text.clone(),
        analysis: c.analysis.clone(),
        resize,
    }
}

/// Stop the pane's running job (a newer request replaced it).
/// The other pane may still want its result: then the job moves there.
pub fn cancel(m: &mut Model, pane: usize) {
    let Some(j) = m.panes[pane].sem.job.take() else { return };
    let other = pane ^ 1;
    let shared = j.key.as_ref().is_some_and(|k| wants(m, other, k));
    if shared && m.panes[other].sem.job.is_none() && m.panes[other].pending() {
        m.panes[other].sem.job = Some(j);
    } else {
        j.cancel.cancel();
    }
}

/// The model's name without the hash chunktui appends to its id.
pub fn short_model(id: &str) -> &str {
    match id.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 12 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => name,
        _ => id,
    }
}

/// The model a config names, for the status line before it has loaded.
pub fn model_label(c: &ChunkConfig) -> String {
    if c.embed.is_set() {
        return format!("{} (endpoint)", c.embed.model_id());
    }
    match c.semantic.model.as_ref().filter(|m| *m != crate::config::DEFAULT_MODEL) {
        Some(dir) => std::path::Path::new(dir).file_name().map_or(dir.clone(), |n| n.to_string_lossy().into()),
        None => "the default model".into(),
    }
}

/// The threshold as text: `percentile 95`, `absolute 0.30`, `8 chunks`.
pub fn threshold_summary(c: &ChunkConfig) -> String {
    let s = &c.semantic;
    if let Some(n) = s.number_of_chunks {
        return format!("{n} chunks");
    }
    let a = s.threshold.unwrap_or_else(|| s.threshold_type.default_amount());
    match s.threshold_type {
        ThresholdType::Percentile | ThresholdType::Gradient => format!("{} {a:.0}", s.threshold_type.name()),
        ThresholdType::Absolute => format!("absolute {a:.2}"),
        t => format!("{} {a:.2}", t.name()),
    }
}

/// Move the threshold one step (`up`: fewer breakpoints). None when the
/// strategy has no threshold.
pub fn step_threshold(c: &mut ChunkConfig, up: bool) -> Option<String> {
    if !c.strategy.spec().has_threshold {
        return None;
    }
    let s = &mut c.semantic;
    if let Some(n) = s.number_of_chunks.as_mut() {
        *n = if up { n.saturating_sub(1).max(1) } else { *n + 1 };
        return Some(format!("threshold {}", threshold_summary(c)));
    }
    let t = s.threshold_type;
    let (step, lo, hi) = match t {
        ThresholdType::Percentile | ThresholdType::Gradient => (1.0, 0.0, 100.0),
        ThresholdType::StandardDeviation | ThresholdType::Interquartile => (0.25, -3.0, 10.0),
        ThresholdType::Absolute => (0.01, 0.0, 2.0),
    };
    let a = s.threshold.unwrap_or_else(|| t.default_amount());
    let a = if up { a + step } else { a - step };
    s.threshold = Some((a.clamp(lo, hi) / step).round() * step);
    Some(format!("threshold {}", threshold_summary(c)))
}

/// Next threshold type, at its default amount.
pub fn cycle_threshold_type(c: &mut ChunkConfig) -> Option<String> {
    step_threshold(&mut c.clone(), true)?;
    let s = &mut c.semantic;
    let types = ThresholdType::ALL;
    let i = types.iter().position(|t| *t == s.threshold_type).map_or(0, |i| (i + 1) % types.len());
    s.threshold_type = types[i];
    s.threshold = None;
    s.number_of_chunks = None;
    Some(format!("threshold {}", threshold_summary(c)))
}
