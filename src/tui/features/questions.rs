//! `W`: the LLM writes questions about the open document (passage mode:
//! exact references by construction) straight into the probe panel, where
//! they are scored against the chunks as a `--queries` file would be.

use crate::config::ChunkConfig;
use crate::error::Result;
use crate::eval::queries::QuestionSet;
use crate::tui::features::probe::{self, Questions};
use crate::tui::msg::{Cmd, Msg};
use crate::tui::state::cursor::{set_error, set_status};
use crate::tui::state::model::Model;
use std::sync::Arc;

/// Questions `W` asks for.
pub const COUNT: usize = 5;

/// `W`: start writing questions (or say what is missing).
#[cfg(feature = "llm")]
pub fn action(m: &mut Model) -> Vec<Cmd> {
    let config = m.pane().config.clone();
    if let Some(problem) = crate::llm::client::problems(&config.llm).into_iter().next() {
        set_error(m, format!("W writes questions with an LLM: {problem}"));
        return vec![];
    }
    let corpus_id = m.path.file_stem().map_or_else(|| "doc".into(), |s| s.to_string_lossy().into_owned());
    set_status(m, format!("writing {COUNT} questions with {}…", config.llm.model.as_deref().unwrap_or("the LLM")));
    vec![Cmd::GenerateQuestions { config, text: m.text.clone(), corpus_id, doc_rev: m.doc_rev }]
}

#[cfg(not(feature = "llm"))]
pub fn action(m: &mut Model) -> Vec<Cmd> {
    set_error(m, "W writes questions with an LLM: this build has no 'llm' feature".into());
    vec![]
}

/// The job (on a thread of its own): the questions, or why not.
#[cfg(feature = "llm")]
pub fn run(config: &ChunkConfig, text: &str, corpus_id: &str) -> Result<QuestionSet> {
    use crate::eval::generate::{generate, Mode, Options};
    let client = crate::llm::Client::new(&config.llm)?;
    let options = Options { n: COUNT, seed: 0, mode: Mode::Passage, concurrency: config.llm.concurrency };
    let docs = [(corpus_id.to_string(), text)];
    let generated = generate(&client, &docs, &options, &|_, _| {})?;
    Ok(QuestionSet { questions: generated.questions })
}

#[cfg(not(feature = "llm"))]
pub fn run(_: &ChunkConfig, _: &str, _: &str) -> Result<QuestionSet> {
    Err(crate::error::Error::config("this build has no 'llm' feature"))
}

/// The questions arrived: they replace the probe panel's set and are scored.
pub fn take(
    m: &mut Model,
    doc_rev: u64,
    corpus_id: String,
    result: std::result::Result<QuestionSet, String>,
) -> Vec<Cmd> {
    m.llm_usage = crate::llm::usage();
    if doc_rev != m.doc_rev {
        return vec![]; // written for a text since reloaded
    }
    let questions = result.and_then(|set| {
        Questions::from_set(set, &corpus_id, &m.text, "the LLM's questions").map_err(|e| e.to_string())
    });
    match questions {
        Ok(mut q) => {
            q.doc_rev = m.doc_rev;
            let n = q.set.questions.len();
            m.questions = Some(q);
            set_status(
                m,
                format!("{n} questions written by the LLM: Q steps through them, the panel scores the chunks"),
            );
            let mut cmds = probe::after_chunks(m, 0);
            cmds.extend(probe::after_chunks(m, 1));
            cmds
        }
        Err(e) => {
            set_error(m, format!("no questions: {e}"));
            vec![]
        }
    }
}

/// Run a [`Cmd::GenerateQuestions`] on a thread of its own.
pub fn spawn(config: ChunkConfig, text: Arc<str>, corpus_id: String, doc_rev: u64, tx: std::sync::mpsc::Sender<Msg>) {
    std::thread::spawn(move || {
        let result = run(&config, &text, &corpus_id).map_err(|e| e.to_string());
        let _ = tx.send(Msg::QuestionsGenerated { doc_rev, corpus_id, result });
    });
}
