//! Chunk lint in the workbench: every new set of chunks is linted on the
//! lint thread (never on the UI thread; a newer request for a pane
//! supersedes the older one, see [`crate::tui::jobs`]), the findings of the
//! level on screen are kept on the pane, marked in the document's margin
//! and listed in the lint panel.

use crate::config::ChunkConfig;
use crate::lint::{Finding, LintOptions};
use crate::tui::msg::{Cmd, Msg};
use crate::tui::state::cursor;
pub use crate::tui::state::lint::{LintReq, Linted, PaneLint};
use crate::tui::state::model::{Model, Pane};
use std::collections::HashMap;
use std::sync::Arc;

/// The embedding model's tokenizer, loaded once per model; and the last
/// "does it need chunking" answer with what it depends on, so that a key
/// press that changes neither the text nor the limits counts no record again.
#[derive(Default)]
pub struct ModelTokens(HashMap<Option<String>, Option<crate::lint::TokenCount>>, Option<(FitKey, Option<Fit>)>);

/// What a fit answer depends on: the text (hash and length), the size and
/// its unit, the tokenizer, the model and its input limit.
type FitKey = (u64, usize, usize, crate::config::Unit, String, Option<String>, usize);
type Fit = crate::fit::Fit;

impl ModelTokens {
    /// The fit answer for `text` under `opts`, counted only when it changed.
    fn fit(&mut self, text: &str, req: &LintReq, opts: &LintOptions) -> Option<Fit> {
        let c = &opts.config;
        let key = (
            xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
            text.len(),
            c.size,
            c.unit,
            c.tokenizer.clone(),
            c.model_key(),
            opts.max_tokens,
        );
        if let Some((k, fit)) = &self.1 {
            if *k == key {
                return fit.clone();
            }
        }
        let fit = crate::fit::count_text(text, req.structure.as_deref(), opts)
            .ok()
            .and_then(|(units, counts, limits)| Fit::said(units, counts, &limits));
        self.1 = Some((key, fit.clone()));
        fit
    }
}

impl ModelTokens {
    fn get(&mut self, config: &ChunkConfig) -> Option<crate::lint::TokenCount> {
        let key = config.model_key();
        self.0.entry(key).or_insert_with(|| load_model_tokens(config)).clone()
    }
}

#[cfg(feature = "embed")]
fn load_model_tokens(config: &ChunkConfig) -> Option<crate::lint::TokenCount> {
    crate::lint::model_tokens(config)
}

/// Without the `embed` feature no model directory is known: the config's tokenizer counts.
#[cfg(not(feature = "embed"))]
fn load_model_tokens(_config: &ChunkConfig) -> Option<crate::lint::TokenCount> {
    None
}

/// Lint one request (what the lint thread does; tests call it directly).
pub fn run(req: &LintReq, models: &mut ModelTokens) -> Msg {
    let model = models.get(&req.config);
    let result = LintOptions::counting(&req.config, req.kind, model).map_err(|e| e.to_string()).map(|mut opts| {
        if let Some(n) = req.max_tokens {
            opts.max_tokens = n;
        }
        // The text's token tally is kept across key presses.
        let (text, chunks) = (&req.text, &req.chunks);
        let findings = crate::lint::with_kept_tally(text, &opts, |t| crate::lint::lint_with(text, chunks, &opts, t));
        let fit = models.fit(text, req, &opts);
        Linted { findings: Arc::new(findings), rules: opts.rules, fit }
    });
    Msg::Linted { pane: req.pane, rev: req.rev, result }
}

/// The lint job for a pane's chunks just taken.
/// None when the pane's config switches lint off (`[lint] enabled = false`).
pub fn request(m: &mut Model, pane: usize) -> Option<Cmd> {
    let p = &mut m.panes[pane];
    p.lint = PaneLint::default();
    if !p.config.lint.enabled {
        return None;
    }
    Some(Cmd::Lint(LintReq {
        pane,
        rev: p.shown_rev,
        config: p.config.clone(),
        kind: m.kind,
        text: m.text.clone(),
        chunks: p.all_chunks.clone(),
        max_tokens: m.max_tokens,
        structure: m.structure.clone(),
    }))
}

/// Take a finished lint when it is for the chunks on screen.
pub fn linted(m: &mut Model, pane: usize, rev: u64, result: Result<Linted, String>) -> Vec<Cmd> {
    let Some(p) = m.panes.get_mut(pane).filter(|p| p.shown_rev == rev && p.chunks_doc == m.doc_rev) else {
        return vec![];
    };
    match result {
        Ok(l) => {
            let counts = l.rules.iter().map(|&r| (r, 0)).collect();
            p.lint = PaneLint { rev, all: l.findings, shown: Vec::new(), counts, error: None, fit: l.fit };
            reshow(p);
        }
        Err(e) => p.lint = PaneLint { rev, error: Some(e), ..PaneLint::default() },
    }
    vec![]
}

/// Keep the shown findings those of the level on screen (after a new lint,
/// and when the level key changes the level).
pub fn reshow(p: &mut Pane) {
    let l = &mut p.lint;
    let level = p.chunks.first().and_then(|c| c.meta.level);
    // Index in the shown level of each chunk of `all_chunks` on it.
    let mut shown_index = vec![None; p.all_chunks.len()];
    let mut k = 0;
    for (i, c) in p.all_chunks.iter().enumerate() {
        if c.meta.level == level {
            shown_index[i] = Some(k);
            k += 1;
        }
    }
    l.shown =
        l.all.iter().filter_map(|f| Some(Finding { chunk: (*shown_index.get(f.chunk)?)?, ..f.clone() })).collect();
    for (rule, n) in &mut l.counts {
        *n = l.shown.iter().filter(|f| f.rule == *rule).count();
    }
}

/// The lint panel (`L`) was shown or hidden: say so, and how to get to a finding.
pub fn panel_toggled(m: &mut Model, shown: bool) -> Vec<Cmd> {
    let msg = if shown { "lint panel shown (! jumps to the next finding)" } else { "lint panel hidden" };
    cursor::set_status(m, msg.into());
    vec![]
}

/// The next-finding key: select the chunk of the first finding after the
/// selection's (or after the top of the screen) and bring it into view.
pub fn next_finding(m: &mut Model) {
    let l = &m.pane().lint;
    if l.rev == 0 {
        return cursor::set_status(m, "lint is still running…".into());
    }
    if l.shown.is_empty() {
        return cursor::set_status(m, "lint: no findings in these chunks".into());
    }
    // After the selected chunk's own findings (or its start), else after the top of the screen.
    let from = match m.selected {
        Some(k) => l.of_chunk(k).map(|f| f.at + 1).max().or_else(|| m.pane().chunks.get(k).map(|c| c.range.start)),
        None => None,
    };
    let from = from.unwrap_or_else(|| m.layout.start_of(m.top));
    let i = l.shown.iter().position(|f| f.at >= from && Some(f.chunk) != m.selected).unwrap_or(0);
    let (f, n) = (l.shown[i].clone(), l.shown.len());
    cursor::select(m, f.chunk);
    let line = m.layout.line_of(f.at);
    let page = cursor::page(m);
    if line < m.top || line >= m.top + page {
        m.top = line.saturating_sub(page / 2);
        cursor::clamp_top(m);
    }
    cursor::set_status(m, format!("⚑ {} of {n}: chunk {}: {}: {}", i + 1, f.chunk, f.rule, f.message));
}
