//! `update` for the embedding messages: progress, finished analyses (cached,
//! then every pane that wants them re-cut), whole model runs. A result whose
//! job is no longer any pane's job is stale and dropped.

use crate::tui::features::chunks;
use crate::tui::features::semantic::{self, wants, Cached};
use crate::tui::msg::{Analyzed, Cmd, Msg};
use crate::tui::state::cursor::{set_error, set_status};
use crate::tui::state::model::Model;

fn owner(m: &Model, id: u64) -> Option<usize> {
    m.panes.iter().position(|p| p.sem.job.as_ref().is_some_and(|j| j.id == id))
}

pub fn progress(m: &mut Model, id: u64, done: usize, total: usize) -> Vec<Cmd> {
    if let Some(p) = owner(m, id) {
        let job = m.panes[p].sem.job.as_mut().expect("owner has a job");
        job.done = done;
        job.total = total;
    }
    vec![]
}

pub fn analyzed(m: &mut Model, id: u64, result: Result<Analyzed, String>) -> Vec<Cmd> {
    let Some(p) = owner(m, id) else { return vec![] };
    let job = m.panes[p].sem.job.take().expect("owner has a job");
    let key = job.key.expect("analysis jobs have a key");
    let wanting: Vec<usize> = (0..2).filter(|&q| wants(m, q, &key)).collect();
    let a = match result {
        Ok(a) => a,
        Err(e) => {
            for &q in &wanting {
                m.panes[q].error = Some(e.clone());
            }
            set_error(m, e);
            return vec![];
        }
    };
    let warnings = warnings(&a.model_id, &m.text, Some(&a.analysis));
    let entry = Cached { key: a.key, analysis: a.analysis, sized_for: a.sized_for, model_id: a.model_id };
    let mut cmds = Vec::new();
    for &q in &wanting {
        let pane = &mut m.panes[q];
        pane.sem.model_id = Some(entry.model_id.clone());
        pane.sem.warnings = warnings.clone();
        if pane.shown_rev != pane.rev || pane.sem.partial {
            if std::mem::take(&mut pane.sem.partial) {
                // The whole cut answers anew: a revision of its own, so that
                // nothing made from the part (its lint, token counts, probe
                // answers) is ever taken for it.
                pane.rev += 1;
            }
            cmds.push(semantic::recut_cmd(m, q, &entry));
        }
    }
    let n = entry.analysis_len();
    // Cluster's pieces are not sentences, and it has no threshold: its
    // size and objective keys are what re-cut from the cache.
    let (what, keys) = match entry.key.pieces.as_str() {
        "sentences" => ("sentences", "threshold keys"),
        _ => ("pieces", "size and objective keys"),
    };
    let model = semantic::short_model(&entry.model_id).to_string();
    semantic::insert(m, entry);
    match warnings.first() {
        Some(w) => set_error(m, format!("⚠ {}", w.short())),
        None => set_status(m, format!("model {model}: {n} {what} embedded · {keys} re-cut instantly")),
    }
    cmds
}

/// The on-screen part of a running job's document, embedded first: cut it
/// for every pane waiting for this analysis (not cached; the job goes on).
pub fn analyzed_part(m: &mut Model, id: u64, part: Analyzed) -> Vec<Cmd> {
    let Some(p) = owner(m, id) else { return vec![] };
    let key = m.panes[p].sem.job.as_ref().and_then(|j| j.key.clone());
    if key.as_ref() != Some(&part.key) {
        return vec![];
    }
    let entry = Cached { key: part.key, analysis: part.analysis, sized_for: part.sized_for, model_id: part.model_id };
    let mut cmds = Vec::new();
    let wanting: Vec<usize> = (0..2).filter(|&q| wants(m, q, &entry.key)).collect();
    for q in wanting {
        if m.panes[q].shown_rev != m.panes[q].rev {
            m.panes[q].sem.partial = true;
            cmds.push(semantic::recut_cmd(m, q, &entry));
        }
    }
    if !cmds.is_empty() {
        set_status(m, format!("cuts shown for the {} sentences on screen; embedding the rest…", entry.analysis_len()));
    }
    cmds
}

pub fn model_chunked(m: &mut Model, msg: Msg) -> Vec<Cmd> {
    let Msg::ModelChunked { pane, id, rev, model_id, result } = msg else { return vec![] };
    if let Some(p) = owner(m, id) {
        m.panes[p].sem.job = None;
        if let Some(id) = &model_id {
            m.panes[p].sem.warnings = warnings(id, &m.text, None);
            m.panes[p].sem.model_id = model_id.clone();
        }
    }
    let ok = result.is_ok();
    let cmds = chunks::chunked(m, pane, rev, result);
    if ok && m.panes[pane].shown_rev == rev {
        if let (Some(w), Some(_)) = (m.panes[pane].sem.warnings.first().cloned(), &model_id) {
            set_error(m, format!("⚠ {}", w.short()));
        } else if let Some(id) = &model_id {
            let p = &m.panes[pane];
            set_status(
                m,
                format!("{}: {} chunks with model {}", p.config.strategy, p.chunks.len(), semantic::short_model(id)),
            );
        }
    }
    cmds
}

fn warnings(model_id: &str, text: &str, a: Option<&semantic::SemanticAnalysis>) -> Vec<semantic::ModelWarning> {
    crate::strategy::semantic::model_warnings(model_id, text, a)
}

impl Cached {
    fn analysis_len(&self) -> usize {
        self.analysis.len()
    }
}
