//! Question sets: what a retriever should find. Two layouts are read:
//!
//! - **JSONL**, one question per line:
//!   `{"question": "...", "corpus_id": "guide", "references": [{"start_index": 10, "end_index": 42, "content": "..."}]}`
//!   (`corpus_id` optional with one document; `content` optional);
//! - **CSV**, Chroma's chunking-evaluation layout: columns `question`,
//!   `references` (a JSON list of the same objects) and `corpus_id`.
//!
//! Offsets are Unicode code points into the document (Python string
//! indices). [`QuestionSet::resolve`] checks every row against the
//! documents and names the row of the first problem.

use super::metrics::Span;
use crate::error::{Error, Result};
use crate::size::CharIndex;
use serde::Deserialize;
use std::path::Path;

/// One question and the passages that answer it.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub question: String,
    /// The document the references are in (`None`: the only document).
    pub corpus_id: Option<String>,
    pub references: Vec<Reference>,
    /// Where the row came from, for messages: `questions.jsonl line 4`.
    pub row: String,
}

/// A passage, in code points, with the text it must hold when given.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    pub start_index: usize,
    pub end_index: usize,
    #[serde(default)]
    pub content: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonRow {
    question: String,
    #[serde(default)]
    corpus_id: Option<String>,
    references: Vec<Reference>,
}

#[derive(Deserialize)]
struct CsvRow {
    question: String,
    references: String,
    #[serde(default)]
    corpus_id: Option<String>,
}

/// A question whose references are checked against its document.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub question: String,
    /// Index of its document in the list given to [`QuestionSet::resolve`].
    pub doc: usize,
    pub references: Vec<Span>,
}

/// Questions as read, before they are matched to documents.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QuestionSet {
    pub questions: Vec<Question>,
}

impl QuestionSet {
    /// Read a `.csv` (Chroma's layout) or JSONL file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = crate::input::read_text_capped(path, &crate::input::Cap::questions()?)?;
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into());
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")) {
            Self::parse_csv(&text, &name)
        } else {
            Self::parse_jsonl(&text, &name)
        }
    }

    pub fn parse_jsonl(text: &str, name: &str) -> Result<Self> {
        let mut questions = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let row = format!("{name} line {}", i + 1);
            let r: JsonRow = serde_json::from_str(line).map_err(|e| {
                // serde counts lines within this one line: say the column only.
                let what = e.to_string().replace(&format!(" at line 1 column {}", e.column()), "");
                Error::input(format!(
                    "{row}, column {}: {what}: each line is {{\"question\": ..., \"references\": \
                     [{{\"start_index\": N, \"end_index\": M}}]}}",
                    e.column()
                ))
            })?;
            questions.push(Question { question: r.question, corpus_id: r.corpus_id, references: r.references, row });
        }
        Self::checked(questions, name)
    }

    pub fn parse_csv(text: &str, name: &str) -> Result<Self> {
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let mut questions = Vec::new();
        for (i, record) in reader.deserialize::<CsvRow>().enumerate() {
            // Line numbers count the header.
            let row = format!("{name} row {}", i + 2);
            let r = record
                .map_err(|e| Error::input(format!("{row}: {e}: the columns are question, references, corpus_id")))?;
            let references: Vec<Reference> = serde_json::from_str(&r.references).map_err(|e| {
                Error::input(format!(
                    "{row}: references is not a JSON list of {{\"start_index\", \"end_index\", \"content\"}}: {e}"
                ))
            })?;
            let corpus_id = r.corpus_id.filter(|c| !c.is_empty());
            questions.push(Question { question: r.question, corpus_id, references, row });
        }
        Self::checked(questions, name)
    }

    /// Rows whose shape is wrong whatever the documents say.
    fn checked(questions: Vec<Question>, name: &str) -> Result<Self> {
        if questions.is_empty() {
            return Err(Error::input(format!("{name} holds no questions")));
        }
        for q in &questions {
            if q.question.trim().is_empty() {
                return Err(Error::input(format!("{}: the question is empty", q.row)));
            }
            if q.references.is_empty() {
                return Err(Error::input(format!("{}: no references: list the passages that answer it", q.row)));
            }
            for (k, r) in q.references.iter().enumerate() {
                if r.start_index >= r.end_index {
                    return Err(Error::input(format!(
                        "{}: references[{k}] is empty or reversed ({}..{}): end_index must be after start_index",
                        q.row, r.start_index, r.end_index
                    )));
                }
            }
        }
        Ok(QuestionSet { questions })
    }

    /// The corpus ids the questions name, in order of first use.
    pub fn corpus_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = Vec::new();
        for q in &self.questions {
            if let Some(id) = q.corpus_id.as_deref() {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        ids
    }

    /// Keep the questions about one document.
    pub fn only(mut self, corpus_id: &str) -> Result<Self> {
        self.questions.retain(|q| q.corpus_id.as_deref() == Some(corpus_id));
        if self.questions.is_empty() {
            return Err(Error::input(format!("no question has corpus_id '{corpus_id}'")));
        }
        Ok(self)
    }

    /// Match every question to its document (`docs`: corpus id and text)
    /// and check its references: within the text, and equal to `content`
    /// when given. A question without a corpus id needs exactly one document.
    pub fn resolve(&self, docs: &[(String, &str)]) -> Result<Vec<Resolved>> {
        let indexes: Vec<CharIndex<'_>> = docs.iter().map(|(_, t)| CharIndex::new(t)).collect();
        let lengths: Vec<usize> = docs.iter().zip(&indexes).map(|((_, t), i)| i.count(0..t.len())).collect();
        let mut out = Vec::with_capacity(self.questions.len());
        for q in &self.questions {
            let doc = match q.corpus_id.as_deref() {
                Some(id) => docs.iter().position(|(d, _)| d == id).ok_or_else(|| {
                    let known: Vec<&str> = docs.iter().map(|(d, _)| d.as_str()).collect();
                    Error::input(format!("{}: unknown corpus_id '{id}': the documents are {}", q.row, known.join(", ")))
                })?,
                None if docs.len() == 1 => 0,
                None => {
                    return Err(Error::input(format!(
                        "{}: no corpus_id, and there are {} documents: say which one the references are in",
                        q.row,
                        docs.len()
                    )))
                }
            };
            let (id, text) = (&docs[doc].0, docs[doc].1);
            let mut references = Vec::with_capacity(q.references.len());
            for (k, r) in q.references.iter().enumerate() {
                if r.end_index > lengths[doc] {
                    return Err(Error::input(format!(
                        "{}: references[{k}] ends at {} but {id} has {} characters (offsets count code points)",
                        q.row, r.end_index, lengths[doc]
                    )));
                }
                if let Some(content) = &r.content {
                    let at = indexes[doc].byte_of_char(r.start_index)..indexes[doc].byte_of_char(r.end_index);
                    if text[at] != *content {
                        return Err(Error::input(format!(
                            "{}: references[{k}] content differs from {id} at {}..{} (offsets count code points, \
                             not bytes; line ends must match the file's)",
                            q.row, r.start_index, r.end_index
                        )));
                    }
                }
                references.push(r.start_index..r.end_index);
            }
            out.push(Resolved { question: q.question.clone(), doc, references });
        }
        Ok(out)
    }
}
