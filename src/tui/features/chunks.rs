//! A pane's chunks: asking for them (at start, after a reload, after every
//! settings change: [`rechunk`]) and taking the answers of the chunk jobs
//! (the first chunks early, then the whole result, then its token counts).
//! Results for an older request or an older text are dropped: the rule
//! that keeps a hot reload safe ([`crate::tui::features::reload`]).

use crate::chunk::Chunk;
use crate::stats::Stats;
use crate::tui::features::{levels, lint, probe, semantic};
use crate::tui::msg::Cmd;
use crate::tui::state::cursor::{clamp_selection, set_error, set_status};
use crate::tui::state::model::{Highlight, Model, Pane, Part};
use std::sync::Arc;

/// The work to do at start and after a reload: chunk both panes, highlight.
pub fn start(m: &mut Model) -> Vec<Cmd> {
    let mut cmds: Vec<Cmd> = [rechunk(m, 0), rechunk(m, 1)].into_iter().flatten().collect();
    m.highlight = Highlight::default();
    cmds.push(Cmd::Highlight { doc_rev: m.doc_rev, text: m.text.clone(), syntax: m.syntax() });
    cmds
}

/// Bring a pane's chunks up to date with its config: a plain re-chunk, a
/// re-cut from a cached analysis, or an embedding job (None: a running job
/// will deliver).
pub fn rechunk(m: &mut Model, pane: usize) -> Option<Cmd> {
    let doc_rev = m.doc_rev;
    let p = &mut m.panes[pane];
    p.rev += 1;
    p.rev_doc = doc_rev;
    p.error = None;
    p.requested = p.config.clone();
    if p.config.strategy.needs_model() {
        let cmd = semantic::request(m, pane);
        if matches!(cmd, Some(Cmd::Embed { .. })) && pane == m.active {
            let c = &m.panes[pane].config;
            set_status(m, format!("{}: embedding with {}…", c.strategy, semantic::model_label(c)));
        }
        return cmd;
    }
    semantic::cancel(m, pane);
    let p = &m.panes[pane];
    Some(Cmd::Rechunk {
        pane,
        rev: p.rev,
        config: p.config.clone(),
        text: m.text.clone(),
        structure: m.structure.clone(),
        first: semantic::on_screen(m),
        path: Some(m.path.clone()),
    })
}

/// A chunk job finished: show its chunks (or its error), then ask for what
/// follows new chunks (the probe's ranking, the evaluation, lint).
pub fn chunked(m: &mut Model, pane: usize, rev: u64, result: Result<(Arc<Vec<Chunk>>, Stats), String>) -> Vec<Cmd> {
    if !is_current(m, pane, rev) {
        return vec![]; // an older request, or one made for an older text
    }
    m.llm_usage = crate::llm::usage();
    match result.and_then(|r| checked_against(&m.text, r)) {
        Ok((chunks, stats)) => {
            let (doc_rev, text) = (m.doc_rev, m.text.clone());
            let p = &mut m.panes[pane];
            p.all_tokens = None;
            p.part = None;
            levels::take(p, chunks, stats, &text);
            p.chunks_doc = doc_rev;
            p.error = None;
            p.shown_rev = rev;
            clamp_selection(m);
            let mut cmds = probe::after_chunks(m, pane);
            cmds.extend(lint::request(m, pane));
            return cmds;
        }
        Err(e) => {
            let p = &mut m.panes[pane];
            p.error = Some(e.clone());
            set_error(m, e);
        }
    }
    vec![]
}

/// The first chunks of the newest request, drawn while the rest is cut.
pub fn part(m: &mut Model, pane: usize, rev: u64, chunks: Arc<Vec<Chunk>>, from_start: bool) {
    let waits = is_current(m, pane, rev) && m.panes[pane].pending();
    if waits && fits(&chunks, &m.text) {
        m.panes[pane].part = Some(Part { rev, chunks, from_start });
    }
}

/// Token counts for every chunk of the result, all levels of a hierarchical cut.
pub fn counted(m: &mut Model, pane: usize, rev: u64, counts: Vec<usize>) {
    let fits = |p: &Pane| p.rev == rev && p.shown_rev == rev && counts.len() == p.all_chunks.len();
    if let Some(p) = m.panes.get_mut(pane).filter(|p| fits(p)) {
        p.all_tokens = Some(Arc::new(counts));
        p.tokens = levels::shown_tokens(p);
    }
}

/// A chunk result for `pane` answers its newest request, made for this text.
pub fn is_current(m: &Model, pane: usize, rev: u64) -> bool {
    m.panes.get(pane).is_some_and(|p| p.rev == rev && p.rev_doc == m.doc_rev)
}

/// Every chunk range lies within `text`, on char boundaries.
pub fn fits(chunks: &[Chunk], text: &str) -> bool {
    chunks.iter().all(|c| text.get(c.range.clone()).is_some())
}

/// A chunk result as the model may hold it, or the error to show instead of
/// drawing ranges that do not belong to the text (a bug somewhere upstream).
pub fn checked_against(text: &str, result: (Arc<Vec<Chunk>>, Stats)) -> Result<(Arc<Vec<Chunk>>, Stats), String> {
    if fits(&result.0, text) {
        Ok(result)
    } else {
        Err("internal error: chunks out of the document's range were dropped".into())
    }
}
