//! `chunktui eval`: chunk a document (or every document a question set
//! names in a folder), index the chunks, ask each question, and score what
//! comes back against the known answers.

use super::args::EvalCmd;
use super::commands::{emit, load_input, settings_for};
use crate::embedding::Control;
use crate::error::{Error, Result};
use crate::eval::metrics::Summary;
use crate::eval::queries::QuestionSet;
use crate::eval::retrieve::{Dense, Hybrid, Lexical, Retriever, RetrieverKind};
use crate::eval::{evaluate, Chunked, Evaluation, Pool};
use crate::{Chunk, ChunkConfig, Chunker};
use std::path::{Path, PathBuf};

/// One document with its chunks and the settings that cut them.
struct Doc {
    id: String,
    text: String,
    chunks: Vec<Chunk>,
    config: ChunkConfig,
}

pub fn run(cmd: EvalCmd) -> Result<()> {
    let retriever_kind = RetrieverKind::parse(&cmd.retriever)?;
    if cmd.k == 0 {
        return Err(Error::config("--k 0 retrieves nothing: use at least 1 (5 is usual)"));
    }
    let mut questions = QuestionSet::load(&cmd.queries)?;
    if let Some(id) = &cmd.corpus_id {
        questions = questions.only(id)?;
    }
    let docs = load_docs(&cmd, &questions)?;
    let named: Vec<(String, &str)> = docs.iter().map(|d| (d.id.clone(), d.text.as_str())).collect();
    let resolved = questions.resolve(&named)?;
    let chunked: Vec<Chunked<'_>> = docs.iter().map(|d| Chunked { text: &d.text, chunks: &d.chunks }).collect();
    let pool = Pool::new(&chunked);
    if pool.texts.is_empty() {
        return Err(Error::input("the documents gave no chunks (are they blank?): nothing to retrieve"));
    }
    let config = &docs[0].config;
    let (retriever, model) = build_retriever(retriever_kind, config, &pool)?;
    let evaluation = evaluate(&pool, &resolved, retriever.as_ref(), cmd.k)?;
    let out = if cmd.json {
        json(&cmd, retriever_kind, model.as_deref(), &pool, &evaluation)
    } else {
        table(&cmd, retriever_kind, model.as_deref(), &docs, &pool, &evaluation)
    };
    emit(out.as_bytes(), None)
}

/// The document itself, or for a folder each `<corpus_id>.md` / `.txt` the
/// questions name; each cut with the settings `chunk` would use for it.
fn load_docs(cmd: &EvalCmd, questions: &QuestionSet) -> Result<Vec<Doc>> {
    let paths: Vec<(String, PathBuf)> = if cmd.path.is_dir() {
        let ids = questions.corpus_ids();
        if ids.is_empty() {
            return Err(Error::input(format!(
                "{} is a folder, but no question names a corpus_id: give each question the document's name \
                 (\"corpus_id\": \"guide\" for guide.md)",
                cmd.path.display()
            )));
        }
        ids.iter().map(|id| Ok((id.to_string(), document_in(&cmd.path, id)?))).collect::<Result<_>>()?
    } else {
        let stem = cmd.path.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        vec![(stem, cmd.path.clone())]
    };
    let mut docs = Vec::with_capacity(paths.len());
    for (id, path) in paths {
        let config = settings_for(&cmd.flags, &path)?;
        let doc = load_input(&path, cmd.flags.lossy)?;
        let chunks = Chunker::new(&config)?.chunk(&doc.text)?;
        docs.push(Doc { id, text: doc.text, chunks, config });
    }
    // A single file answers questions without a corpus_id, and those naming it.
    if docs.len() == 1 && !cmd.path.is_dir() {
        let only = &docs[0].id;
        if let Some(other) = questions.corpus_ids().into_iter().find(|id| id != only) {
            return Err(Error::input(format!(
                "the questions name corpus_id '{other}' but the document is '{only}': pass the folder that holds \
                 {other}.md, or --corpus-id {only}"
            )));
        }
    }
    Ok(docs)
}

fn document_in(dir: &Path, id: &str) -> Result<PathBuf> {
    ["md", "txt", "markdown", "rst"]
        .iter()
        .map(|ext| dir.join(format!("{id}.{ext}")))
        .chain(std::iter::once(dir.join(id)))
        .find(|p| p.is_file())
        .ok_or_else(|| Error::input(format!("corpus_id '{id}': no {id}.md or {id}.txt in {}", dir.display())))
}

/// The retriever, and the model it embeds with (for the report).
fn build_retriever(
    kind: RetrieverKind,
    config: &ChunkConfig,
    pool: &Pool<'_>,
) -> Result<(Box<dyn Retriever>, Option<String>)> {
    if kind == RetrieverKind::Bm25 {
        return Ok((Box::new(Lexical::new(&pool.texts)), None));
    }
    // The model the config names (or the default one), as the strategies use it.
    let model =
        Chunker::new(config)?.model().map_err(|e| Error::Model(format!("{e} (--retriever bm25 needs no model)")))?;
    let name = model.model_id().to_string();
    let bar = progress_bar(pool.texts.len());
    let progress = |done: usize, _total: usize| bar.set_position(done as u64);
    let dense = Dense::new(model, &pool.texts, Control::new(&progress, None))?;
    bar.finish_and_clear();
    let retriever: Box<dyn Retriever> = match kind {
        RetrieverKind::Dense => Box::new(dense),
        _ => Box::new(Hybrid::new(vec![Box::new(dense), Box::new(Lexical::new(&pool.texts))], pool.texts.len())),
    };
    Ok((retriever, Some(name)))
}

/// Embedding every chunk can take a while: a bar on a terminal, nothing in a pipe.
fn progress_bar(len: usize) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    let style = indicatif::ProgressStyle::with_template("embedding chunks {bar:30} {pos}/{len} · {eta} left")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

const METRICS: [&str; 6] = ["recall", "precision", "iou", "precision_omega", "hit_rate", "mrr"];

fn metric(e: &Evaluation, name: &str) -> Summary {
    let r = &e.report;
    match name {
        "recall" => r.recall,
        "precision" => r.precision,
        "iou" => r.iou,
        "precision_omega" => r.precision_omega,
        "hit_rate" => r.hit_rate,
        _ => r.mrr,
    }
}

fn json(cmd: &EvalCmd, kind: RetrieverKind, model: Option<&str>, pool: &Pool<'_>, e: &Evaluation) -> String {
    let mut value = serde_json::to_value(e).expect("an evaluation serialises");
    if let Some(obj) = value.as_object_mut() {
        obj.insert("retriever".into(), kind.name().into());
        obj.insert("model".into(), model.map_or(serde_json::Value::Null, Into::into));
        obj.insert("k".into(), cmd.k.into());
        obj.insert("chunks".into(), pool.texts.len().into());
        obj.insert("questions".into(), e.per_question.len().into());
    }
    serde_json::to_string(&value).expect("JSON") + "\n"
}

fn table(
    cmd: &EvalCmd,
    kind: RetrieverKind,
    model: Option<&str>,
    docs: &[Doc],
    pool: &Pool<'_>,
    e: &Evaluation,
) -> String {
    let c = &docs[0].config;
    let by = model.map_or(String::new(), |m| format!(" ({m})"));
    let mut out = format!(
        "{} questions · {} document{} · {} chunks ({} {} {}, overlap {}) · {kind}{by} top {}\n\n",
        e.per_question.len(),
        docs.len(),
        if docs.len() == 1 { "" } else { "s" },
        pool.texts.len(),
        c.strategy,
        c.size,
        c.unit,
        c.overlap,
        cmd.k
    );
    out.push_str(&format!("{:<16} {:>6} {:>6}\n", "metric", "mean", "std"));
    for name in METRICS {
        let s = metric(e, name);
        out.push_str(&format!("{name:<16} {:>6.3} {:>6.3}\n", s.mean, s.std));
    }
    out
}
