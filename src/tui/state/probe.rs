//! What the workbench keeps for the query probe and the evaluation panel:
//! each pane's jobs and answers, and the `--queries` question set. The
//! logic is [`crate::tui::features::probe`].

use crate::embedding::CancelFlag;
use crate::error::{Error, Result};
use crate::eval::queries::{QuestionSet, Resolved};
use crate::eval::retrieve::{Hit, RetrieverKind};
use crate::eval::Evaluation;
use crate::size::CharIndex;
use std::ops::Range;
use std::sync::Arc;

/// Chunks that light up for a question, and that the evaluation retrieves.
pub const K: usize = 5;

/// A retrieval job on its way.
#[derive(Debug, Clone)]
pub struct Job {
    pub id: u64,
    pub cancel: CancelFlag,
    /// The chunks (`Pane::shown_rev`) and text it was made for.
    pub chunks_rev: u64,
    pub doc_rev: u64,
    /// It embeds the chunks (dense, hybrid): progress is shown.
    pub embeds: bool,
    pub done: usize,
    pub total: usize,
}

/// An answer, with the chunks and text it belongs to.
#[derive(Debug, Clone)]
pub struct Answer<T> {
    pub chunks_rev: u64,
    pub doc_rev: u64,
    pub kind: RetrieverKind,
    pub value: T,
}

/// The probe and evaluation state of one pane.
#[derive(Debug, Clone)]
pub struct ProbeState {
    pub retriever: RetrieverKind,
    /// Why chunktui picked `retriever` (none named, text not English), until `r` changes it.
    pub retriever_why: Option<String>,
    /// The question asked with `a`; kept across re-chunks and reloads.
    pub question: Option<String>,
    /// The job whose answer the probe waits for, and the evaluation's.
    pub probe_job: Option<u64>,
    pub eval_job: Option<u64>,
    pub jobs: Vec<Job>,
    /// Every scored chunk, best first.
    pub hits: Option<Answer<Vec<Hit>>>,
    pub eval: Option<Answer<Evaluation>>,
    /// The evaluation before the last change, for the arrows.
    pub prev_eval: Option<Answer<Evaluation>>,
    /// `R`: the chunk list in score order.
    pub sorted: bool,
    /// The model of the last dense / hybrid answer.
    pub model_id: Option<String>,
    pub error: Option<String>,
    /// Say the next probe answer in the status line (it was just asked).
    pub announce: bool,
}

impl Default for ProbeState {
    fn default() -> Self {
        ProbeState {
            retriever: RetrieverKind::Dense,
            retriever_why: None,
            question: None,
            probe_job: None,
            eval_job: None,
            jobs: Vec::new(),
            hits: None,
            eval: None,
            prev_eval: None,
            sorted: false,
            model_id: None,
            error: None,
            announce: false,
        }
    }
}

impl ProbeState {
    /// Forget answers and jobs for the old text (a reload).
    pub fn forget(&mut self) {
        for j in self.jobs.drain(..) {
            j.cancel.cancel();
        }
        self.probe_job = None;
        self.eval_job = None;
        self.hits = None;
    }
}

/// The question set of `--queries`, matched to the document on screen.
#[derive(Debug, Clone)]
pub struct Questions {
    /// The file's questions about this document.
    pub set: QuestionSet,
    pub corpus_id: String,
    /// Resolved against the text of `doc_rev` (empty when they no longer match).
    pub resolved: Arc<Vec<Resolved>>,
    /// Each question's references in bytes of that text.
    pub refs: Vec<Vec<Range<usize>>>,
    /// All references, merged and sorted (the chunk marks).
    pub merged: Vec<Range<usize>>,
    pub doc_rev: u64,
    /// `Q`: the question whose references are underlined.
    pub selected: Option<usize>,
    /// Why the questions do not fit the text after a reload.
    pub error: Option<String>,
}

impl Questions {
    /// Read `path` and keep the questions about `corpus_id` (or about no
    /// document in particular); check them against `text`.
    pub fn load(path: &std::path::Path, corpus_id: &str, text: &str) -> Result<Questions> {
        let set = QuestionSet::load(path)?;
        Self::from_set(set, corpus_id, text, &path.display().to_string())
    }

    /// [`Questions::load`] of a set already read (or written by `G`);
    /// `source` names it in messages.
    pub fn from_set(mut set: QuestionSet, corpus_id: &str, text: &str, source: &str) -> Result<Questions> {
        let ids = set.corpus_ids().join(", ");
        set.questions.retain(|q| q.corpus_id.as_deref().is_none_or(|id| id == corpus_id));
        if set.questions.is_empty() {
            return Err(Error::input(format!(
                "{source}: no question is about '{corpus_id}' (their corpus_id is {ids}): give the questions \
                 \"corpus_id\": \"{corpus_id}\", or open the document they name"
            )));
        }
        let mut q = Questions {
            set,
            corpus_id: corpus_id.to_string(),
            resolved: Arc::new(Vec::new()),
            refs: Vec::new(),
            merged: Vec::new(),
            doc_rev: 0,
            selected: None,
            error: None,
        };
        q.resolve(text, 0)?;
        Ok(q)
    }

    /// Check the questions against a (new) text.
    pub fn resolve(&mut self, text: &str, doc_rev: u64) -> Result<()> {
        self.doc_rev = doc_rev;
        self.resolved = Arc::new(Vec::new());
        self.refs.clear();
        self.merged.clear();
        let resolved = self.set.resolve(&[(self.corpus_id.clone(), text)])?;
        let chars = CharIndex::new(text);
        self.refs = resolved
            .iter()
            .map(|r| r.references.iter().map(|s| chars.byte_of_char(s.start)..chars.byte_of_char(s.end)).collect())
            .collect();
        let mut all: Vec<Range<usize>> = self.refs.iter().flatten().cloned().collect();
        all.sort_by_key(|r| r.start);
        for r in all {
            match self.merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => self.merged.push(r),
            }
        }
        self.resolved = Arc::new(resolved);
        Ok(())
    }

    /// The questions can be scored against the text of `doc_rev`.
    pub fn usable(&self, doc_rev: u64) -> bool {
        self.doc_rev == doc_rev && self.error.is_none() && !self.resolved.is_empty()
    }

    /// A byte range holds reference text (of any question).
    pub fn holds_reference(&self, range: &Range<usize>) -> bool {
        let i = self.merged.partition_point(|r| r.end <= range.start);
        self.merged.get(i).is_some_and(|r| r.start < range.end)
    }

    /// The selected question's references (bytes), if any.
    pub fn selected_refs(&self) -> &[Range<usize>] {
        self.selected.and_then(|s| self.refs.get(s)).map_or(&[], Vec::as_slice)
    }
}
