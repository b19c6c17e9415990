//! The query probe and the evaluation panel, in `update` terms.
//!
//! - **Probe** (`a`): a question per pane, ranked against that pane's chunks
//!   by its retriever (`r`: dense → bm25 → hybrid) on the retrieval thread
//!   ([`crate::tui::features::retrieval`]); the best [`K`] chunks light up.
//! - **Evaluation** (`--queries`): the question set scored on every new set
//!   of chunks; the panel shows the numbers next to the previous ones.
//!
//! Every answer carries the job id and the chunk and text revisions it was
//! computed for: a job no slot waits for any more is cancelled, and its
//! answer dropped. New chunks re-run both, so the answer follows the
//! settings.

use crate::embedding::CancelFlag;
use crate::eval::retrieve::{Hit, RetrieverKind};
use crate::eval::Evaluation;
use crate::tui::msg::Cmd;
use crate::tui::state::cursor::{clamp_top, page, set_error, set_status};
use crate::tui::state::keymap::Action;
use crate::tui::state::model::{Mode, Model};
pub use crate::tui::state::probe::{Answer, Job, ProbeState, Questions, K};
use crate::tui::state::retrieval::{Retrieval, RetrieveReq};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The probe's ranked chunks for the chunks on screen: (chunk, rank from 1,
/// score), best first, at most [`K`]. Empty when the answer belongs to other
/// chunks or another text.
pub fn lit(m: &Model, pane: usize) -> Vec<(usize, usize, f64)> {
    let p = &m.panes[pane];
    match current_hits(m, pane) {
        Some(hits) => hits
            .iter()
            .take(K)
            .enumerate()
            .filter(|(_, h)| h.chunk < p.chunks.len())
            .map(|(i, h)| (h.chunk, i + 1, h.score))
            .collect(),
        None => Vec::new(),
    }
}

/// Every scored chunk for the chunks on screen, best first.
pub fn current_hits(m: &Model, pane: usize) -> Option<&[Hit]> {
    let p = &m.panes[pane];
    p.probe
        .hits
        .as_ref()
        .filter(|h| h.chunks_rev == p.shown_rev && h.doc_rev == m.doc_rev && h.doc_rev == p.chunks_doc)
        .map(|h| h.value.as_slice())
}

/// The evaluation of the chunks on screen, if it is done.
pub fn current_eval(m: &Model, pane: usize) -> Option<&Answer<Evaluation>> {
    let p = &m.panes[pane];
    p.probe
        .eval
        .as_ref()
        .filter(|e| e.chunks_rev == p.shown_rev && e.doc_rev == m.doc_rev && e.kind == p.probe.retriever)
}

/// Chunk indices in the order the list shows them: by score after `R`
/// (scored chunks first), else in document order.
pub fn list_order(m: &Model) -> Vec<usize> {
    let p = m.pane();
    let n = p.chunks.len();
    let hits = if p.probe.sorted { current_hits(m, m.active) } else { None };
    let Some(hits) = hits else { return (0..n).collect() };
    let mut seen = vec![false; n];
    let mut out = Vec::with_capacity(n);
    for h in hits.iter().filter(|h| h.chunk < n) {
        if !std::mem::replace(&mut seen[h.chunk], true) {
            out.push(h.chunk);
        }
    }
    out.extend((0..n).filter(|&k| !seen[k]));
    out
}

/// A score as the badge shows it: two decimals, one above 10.
pub fn score_label(score: f64) -> String {
    if score.abs() >= 10.0 {
        format!("{score:.1}")
    } else {
        format!("{score:.2}")
    }
}

/// The question box: typing, Backspace (a whole character), Enter, Esc.
pub fn ask_key(m: &mut Model, k: KeyEvent, mut q: String) -> Vec<Cmd> {
    match k.code {
        KeyCode::Esc => {
            m.mode = Mode::Normal;
            set_status(m, "question cancelled".into());
        }
        KeyCode::Enter => {
            m.mode = Mode::Normal;
            let q = q.trim().to_string();
            let active = m.active;
            let q = if q.is_empty() { m.panes[active].probe.question.clone().unwrap_or_default() } else { q };
            if q.is_empty() {
                return vec![];
            }
            let p = &mut m.panes[active].probe;
            p.question = Some(q);
            p.announce = true;
            p.hits = None;
            set_status(m, format!("asking {}…", m.panes[active].probe.retriever));
            return request(m, active, true, false);
        }
        KeyCode::Backspace => {
            use unicode_segmentation::UnicodeSegmentation;
            let cut = q.grapheme_indices(true).next_back().map_or(0, |(i, _)| i);
            q.truncate(cut);
            m.mode = Mode::Ask(q);
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
            q.push(c);
            m.mode = Mode::Ask(q);
        }
        _ => {}
    }
    vec![]
}

/// The probe's keys in normal mode.
pub fn action(m: &mut Model, action: Action) -> Vec<Cmd> {
    let active = m.active;
    let tag = if m.compare { format!("{}: ", ["A", "B"][active]) } else { String::new() };
    match action {
        Action::Ask => m.mode = Mode::Ask(String::new()),
        Action::ClearProbe => {
            let p = &mut m.panes[active].probe;
            p.question = None;
            p.hits = None;
            p.sorted = false;
            p.probe_job = None;
            drop_unawaited(p);
            set_status(m, format!("{tag}question cleared"));
        }
        Action::CycleRetriever => {
            let p = &mut m.panes[active].probe;
            let all = RetrieverKind::ALL;
            let i = all.iter().position(|k| *k == p.retriever).map_or(0, |i| (i + 1) % all.len());
            p.retriever = all[i];
            p.retriever_why = None;
            p.error = None;
            let what = match p.retriever {
                RetrieverKind::Dense => "cosine of embeddings (the pane's model)",
                RetrieverKind::Bm25 => "BM25 over words and CJK bigrams, no model",
                RetrieverKind::Hybrid => "dense and bm25, rank-fused",
            };
            let kind = p.retriever;
            set_status(m, format!("{tag}retriever {kind}: {what}"));
            return request(m, active, true, true);
        }
        Action::SortByScore => {
            let p = &mut m.panes[active].probe;
            p.sorted = !p.sorted;
            let msg = match (p.sorted, p.question.is_some()) {
                (true, true) => "chunk list by score",
                (true, false) => "chunk list by score, once a question is asked (a)",
                (false, _) => "chunk list in document order",
            };
            set_status(m, format!("{tag}{msg}"));
        }
        Action::NextQuestion => next_question(m),
        _ => {}
    }
    vec![]
}

fn next_question(m: &mut Model) {
    let Some(qs) = m.questions.as_mut() else {
        set_error(m, "no question set: open with --queries FILE".into());
        return;
    };
    let n = qs.set.questions.len();
    qs.selected = Some(qs.selected.map_or(0, |s| (s + 1) % n));
    let s = qs.selected.unwrap_or(0);
    let question = qs.set.questions[s].question.clone();
    let first = qs.refs.get(s).and_then(|r| r.first()).map(|r| r.start);
    if let Some(b) = first {
        let line = m.layout.line_of(b);
        if line < m.top || line >= m.top + page(m) {
            m.top = line.saturating_sub(2);
            clamp_top(m);
        }
    }
    set_status(m, format!("Q{}/{n}: {question}", s + 1));
}

/// Jobs no slot waits for are cancelled and forgotten.
fn drop_unawaited(p: &mut ProbeState) {
    let (a, b) = (p.probe_job, p.eval_job);
    p.jobs.retain(|j| {
        let keep = Some(j.id) == a || Some(j.id) == b;
        if !keep {
            j.cancel.cancel();
        }
        keep
    });
}

/// Ask the pane's question (`probe`) and score the question set (`eval`)
/// against the chunks on screen, when there is anything to ask.
pub fn request(m: &mut Model, pane: usize, probe: bool, eval: bool) -> Vec<Cmd> {
    let doc_rev = m.doc_rev;
    let usable = m.questions.as_ref().is_some_and(|q| q.usable(doc_rev));
    let p = &m.panes[pane];
    let probe = probe && p.probe.question.is_some();
    let eval = eval && usable;
    // No chunks for this text yet: the answer comes when they do.
    if !(probe || eval) || p.chunks_doc != doc_rev || p.shown_rev == 0 {
        return vec![];
    }
    m.next_job += 1;
    let id = m.next_job;
    let questions = if eval { m.questions.as_ref().map(|q| q.resolved.clone()) } else { None };
    let (text, chunks, config, chunks_rev) = (m.text.clone(), p.chunks.clone(), p.config.clone(), p.shown_rev);
    let st = &mut m.panes[pane].probe;
    if probe {
        st.probe_job = Some(id);
    }
    if eval {
        st.eval_job = Some(id);
    }
    drop_unawaited(st);
    let cancel = CancelFlag::new();
    let embeds = st.retriever.needs_model();
    st.jobs.push(Job { id, cancel: cancel.clone(), chunks_rev, doc_rev, embeds, done: 0, total: 0 });
    vec![Cmd::Retrieve(RetrieveReq {
        pane,
        id,
        kind: st.retriever,
        config,
        text,
        chunks,
        question: if probe { st.question.clone() } else { None },
        questions,
        k: K,
        cancel,
    })]
}

/// New chunks are on screen: ask again and score again.
pub fn after_chunks(m: &mut Model, pane: usize) -> Vec<Cmd> {
    request(m, pane, true, true)
}

/// The text was replaced (a reload): answers and jobs go with the old
/// text; the questions are checked against the new one.
pub fn text_swapped(m: &mut Model) {
    for p in &mut m.panes {
        p.probe.forget();
    }
    let (doc_rev, text) = (m.doc_rev, m.text.clone());
    if let Some(q) = m.questions.as_mut() {
        q.error = q.resolve(&text, doc_rev).err().map(|e| format!("questions no longer match the file: {e}"));
    }
}

pub fn progress(m: &mut Model, pane: usize, id: u64, done: usize, total: usize) -> Vec<Cmd> {
    if let Some(j) = m.panes.get_mut(pane).and_then(|p| p.probe.jobs.iter_mut().find(|j| j.id == id)) {
        j.done = done;
        j.total = total;
    }
    vec![]
}

pub fn retrieved(m: &mut Model, pane: usize, id: u64, result: std::result::Result<Retrieval, String>) -> Vec<Cmd> {
    let doc_rev = m.doc_rev;
    let Some(p) = m.panes.get_mut(pane) else { return vec![] };
    let st = &mut p.probe;
    let Some(at) = st.jobs.iter().position(|j| j.id == id) else { return vec![] };
    let job = st.jobs.remove(at);
    let (want_probe, want_eval) = (st.probe_job == Some(id), st.eval_job == Some(id));
    if want_probe {
        st.probe_job = None;
    }
    if want_eval {
        st.eval_job = None;
    }
    // Stale: no slot waits for it, or it was made for another text.
    if !(want_probe || want_eval) || job.doc_rev != doc_rev {
        return vec![];
    }
    let r = match result {
        Ok(r) => r,
        Err(e) => {
            // Said once: the panel keeps showing it while every re-chunk fails alike.
            let again = st.error.as_ref() == Some(&e) && !std::mem::take(&mut st.announce);
            st.error = Some(e.clone());
            if !again {
                set_error(m, e);
            }
            return vec![];
        }
    };
    st.error = None;
    let kind = st.retriever;
    if r.model_id.is_some() {
        st.model_id = r.model_id;
    }
    let chunks_rev = job.chunks_rev;
    if let (true, Some(value)) = (want_probe, r.probe) {
        st.hits = Some(Answer { chunks_rev, doc_rev, kind, value });
    }
    if let (true, Some(e)) = (want_eval, r.eval) {
        if let Some(old) = st.eval.take() {
            // The previous settings' numbers stay for the arrows.
            if old.chunks_rev != job.chunks_rev || old.kind != kind || old.doc_rev != doc_rev {
                st.prev_eval = Some(old);
            }
        }
        st.eval = Some(Answer { chunks_rev, doc_rev, kind, value: e });
    }
    if want_probe && std::mem::take(&mut st.announce) {
        let lit = lit(m, pane);
        let (q, retriever) = (m.panes[pane].probe.question.clone().unwrap_or_default(), m.panes[pane].probe.retriever);
        // A retriever chunktui picked says why.
        let why = m.panes[pane].probe.retriever_why.as_deref().map_or(String::new(), |w| format!(" · {w}"));
        // Just asked: the best chunk comes into view.
        if let Some(&(k, _, _)) = lit.first() {
            let line = m.layout.line_of(m.panes[pane].chunks[k].range.start);
            if line < m.top || line >= m.top + page(m) {
                m.top = line.saturating_sub(2);
                clamp_top(m);
            }
        }
        let msg = match lit.first() {
            Some((chunk, _, score)) => format!(
                "{retriever}: best chunk {chunk} (score {}) for \"{q}\" · R sorts the list by score{why}",
                score_label(*score)
            ),
            None => format!("{retriever}: no chunk matches \"{q}\"{why}"),
        };
        set_status(m, msg);
    }
    vec![]
}

/// Each pane's retriever: `asked` (`--retriever`) if given, else the one
/// [`crate::eval::language::choose`] picks for the document and the pane's
/// model, as `chunktui eval` does. Returns the reason to show when the
/// pick is not the usual dense (the text is not English).
pub fn choose_retrievers(m: &mut Model, asked: Option<RetrieverKind>) -> Option<String> {
    let text = crate::eval::language::text_language(&[&m.text]);
    let mut shown = None;
    for pane in &mut m.panes {
        let config = &pane.config;
        let choice =
            crate::eval::language::choose_with(asked, text, || crate::eval::language::config_model_language(config));
        pane.probe.retriever = choice.kind;
        if !choice.asked && !text.is_english() {
            pane.probe.retriever_why = Some(choice.reason.clone());
            shown.get_or_insert(choice.reason);
        }
    }
    shown.map(|why| format!("retriever {why} · r cycles"))
}

/// `y`: the other pane asks the same question with the same retriever.
pub fn copy_to(m: &mut Model, from: usize, to: usize) {
    let (question, retriever) = (m.panes[from].probe.question.clone(), m.panes[from].probe.retriever);
    let why = m.panes[from].probe.retriever_why.clone();
    let p = &mut m.panes[to].probe;
    if p.retriever != retriever {
        p.eval = None;
        p.prev_eval = None;
    }
    p.question = question;
    p.retriever = retriever;
    p.retriever_why = why;
}
