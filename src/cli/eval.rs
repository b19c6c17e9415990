//! `chunktui eval`: chunk a document (or every document a question set
//! names in a folder), index the chunks, ask each question, and score what
//! comes back against the known answers.

use super::args::EvalCmd;
use super::output::emit;
use super::prepare::{load_input, settings_named_for};
use super::progress::progress_bar;
use crate::chunk::Chunk;
use crate::chunker::Chunker;
use crate::config::ChunkConfig;
use crate::embedding::Control;
use crate::error::{Error, Result};
use crate::eval::language::Choice;
use crate::eval::metrics::Summary;
use crate::eval::model_choice::{ModelChoice, ModelSource};
use crate::eval::queries::QuestionSet;
use crate::eval::retrieve::{Dense, Hybrid, Lexical, Retriever, RetrieverKind};
use crate::eval::{evaluate, Chunked, Evaluation, Pool};
use crate::extract::Structure;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub fn run(cmd: EvalCmd) -> Result<()> {
    if let Some(n) = cmd.generate {
        return super::generate::run(&cmd, n);
    }
    let asked = cmd.retriever.as_deref().map(RetrieverKind::parse).transpose()?;
    check_k(cmd.k)?;
    let queries =
        cmd.queries.as_deref().ok_or_else(|| Error::config("give --queries FILE (or --generate N --out FILE)"))?;
    let questions = questions(queries, cmd.corpus_id.as_deref())?;
    let corpus = Corpus::load(&cmd.path, &questions, &cmd.flags)?;
    let resolved = questions.resolve(&corpus.named())?;
    // Each document with the settings `chunk` would use for it.
    let mut configs = corpus.paths.iter().map(|p| settings_named_for(&cmd.flags, p)).collect::<Result<Vec<_>>>()?;
    // No model named: the documents' language picks one for them all (one index).
    let model = corpus.choose_model(&mut configs);
    let configs: Vec<ChunkConfig> = configs.into_iter().map(|(c, _)| c).collect();
    // No --retriever: the documents' language against the model's decides.
    let choice = corpus.choose_retriever(asked, &configs[0]);
    let kind = choice.kind;
    let run = run_one(&corpus, &resolved, &configs, kind, cmd.k, None, cmd.judge)?;
    let out = if cmd.json {
        json(&run, &choice, &model, cmd.k)
    } else {
        table(&run, &choice, &model, cmd.k, &configs[0], corpus.ids.len())
    };
    emit(out.as_bytes(), None)
}

pub(super) fn check_k(k: usize) -> Result<()> {
    if k == 0 {
        return Err(Error::config("--k 0 retrieves nothing: use at least 1 (5 is usual)"));
    }
    Ok(())
}

/// The question set, narrowed to one document if asked.
pub(super) fn questions(path: &Path, corpus_id: Option<&str>) -> Result<QuestionSet> {
    let questions = QuestionSet::load(path)?;
    match corpus_id {
        Some(id) => questions.only(id),
        None => Ok(questions),
    }
}

/// The documents the questions are about, read once.
pub(super) struct Corpus {
    pub ids: Vec<String>,
    pub paths: Vec<PathBuf>,
    pub texts: Vec<String>,
    /// HTML and PDF: the structure of each extracted text (the html strategy reads it).
    pub structures: Vec<Option<Arc<Structure>>>,
}

impl Corpus {
    /// The document itself, or for a folder each `<corpus_id>.md` / `.txt`
    /// (or `.html`, `.pdf`: their extracted text) the questions name.
    pub fn load(path: &Path, questions: &QuestionSet, flags: &super::args::ChunkFlags) -> Result<Self> {
        if let Some(mb) = flags.max_input_mb {
            crate::input::set_document_limit_mb(mb)?;
        }
        let named: Vec<(String, PathBuf)> = if path.is_dir() {
            let ids = questions.corpus_ids();
            if ids.is_empty() {
                return Err(Error::input(format!(
                    "{} is a folder, but no question names a corpus_id: give each question the document's name \
                     (\"corpus_id\": \"guide\" for guide.md)",
                    path.display()
                )));
            }
            ids.iter().map(|id| Ok((id.to_string(), document_in(path, id)?))).collect::<Result<_>>()?
        } else {
            let stem = path.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            // A single file answers questions without a corpus_id, and those naming it.
            if let Some(other) = questions.corpus_ids().into_iter().find(|id| *id != stem) {
                return Err(Error::input(format!(
                    "the questions name corpus_id '{other}' but the document is '{stem}': pass the folder that \
                     holds {other}.md, or --corpus-id {stem}"
                )));
            }
            vec![(stem, path.to_path_buf())]
        };
        let mut corpus = Corpus { ids: Vec::new(), paths: Vec::new(), texts: Vec::new(), structures: Vec::new() };
        for (id, p) in named {
            let doc = load_input(&p, flags.lossy)?;
            corpus.texts.push(doc.text);
            corpus.structures.push(doc.structure);
            corpus.ids.push(id);
            corpus.paths.push(p);
        }
        Ok(corpus)
    }

    /// The embedding model for these documents taken together (the one
    /// named, else by their language), written into every config. Each
    /// config comes with who named its model, as
    /// [`super::commands::settings_named_for`] gives it.
    pub fn choose_model(&self, configs: &mut [(ChunkConfig, Option<ModelSource>)]) -> ModelChoice {
        let texts: Vec<&str> = self.texts.iter().map(String::as_str).collect();
        let (first, named) = &mut configs[0];
        let model = super::model::choose(first, *named, &texts);
        configs[1..].iter_mut().for_each(|(c, _)| model.apply(c));
        model
    }

    /// The retriever `asked` for, else the one for these documents' language
    /// and the languages of `config`'s model ([`crate::eval::language`]).
    pub fn choose_retriever(&self, asked: Option<RetrieverKind>, config: &ChunkConfig) -> Choice {
        let texts: Vec<&str> = self.texts.iter().map(String::as_str).collect();
        crate::eval::language::choose(asked, &texts, config)
    }

    pub fn named(&self) -> Vec<(String, &str)> {
        self.ids.iter().cloned().zip(self.texts.iter().map(String::as_str)).collect()
    }
}

/// One evaluation: the scores, what the chunks cost, the model used.
pub(super) struct Run {
    pub evaluation: Evaluation,
    pub chunks: usize,
    /// Characters in all chunks (overlap counted each time): what embedding them costs.
    pub chunk_chars: usize,
    pub model: Option<String>,
    /// Seconds to cut every document and index the chunks (embedding them
    /// for dense and hybrid).
    pub index_seconds: f64,
    /// Mean milliseconds to rank the chunks for one question.
    pub query_ms: f64,
    /// Every chunk: its document and span in code points.
    pub located: Vec<crate::eval::metrics::Located>,
}

/// Cut every document (`configs[i]` for document i), index the chunks, ask
/// every question. `progress` shows the embedding of the chunks.
pub(super) fn run_one(
    corpus: &Corpus,
    questions: &[crate::eval::queries::Resolved],
    configs: &[ChunkConfig],
    kind: RetrieverKind,
    k: usize,
    progress: Option<&dyn Fn(usize, usize)>,
    judge: bool,
) -> Result<Run> {
    let started = std::time::Instant::now();
    let mut chunks: Vec<Vec<Chunk>> = Vec::with_capacity(configs.len());
    for ((text, structure), config) in corpus.texts.iter().zip(&corpus.structures).zip(configs) {
        chunks.push(Chunker::new(config)?.chunk_structured(text, structure.as_deref(), Control::none())?);
    }
    let chunked: Vec<Chunked<'_>> =
        corpus.texts.iter().zip(&chunks).map(|(text, chunks)| Chunked { text, chunks }).collect();
    let pool = Pool::new(&chunked);
    if pool.texts.is_empty() {
        return Err(Error::input("the documents gave no chunks (are they blank?): nothing to retrieve"));
    }
    let (retriever, model) = build_retriever(kind, &configs[0], &pool, progress)?;
    let index_seconds = started.elapsed().as_secs_f64();
    let asked = std::time::Instant::now();
    let mut evaluation = evaluate(&pool, questions, retriever.as_ref(), k)?;
    let query_ms = asked.elapsed().as_secs_f64() * 1000.0 / questions.len().max(1) as f64;
    if judge {
        judge_run(&mut evaluation, &pool, questions, &configs[0])?;
    }
    let chunk_chars = pool.located.iter().map(|c| c.span.end - c.span.start).sum();
    Ok(Run { evaluation, chunks: pool.texts.len(), chunk_chars, model, index_seconds, query_ms, located: pool.located })
}

/// `--judge`: context precision from the references, context relevance
/// from the LLM of `config` (two ratings per question, `llm.concurrency`
/// questions at once, a progress bar at a terminal).
#[cfg(feature = "llm")]
fn judge_run(
    evaluation: &mut Evaluation,
    pool: &Pool<'_>,
    questions: &[crate::eval::queries::Resolved],
    config: &ChunkConfig,
) -> Result<()> {
    let client = crate::llm::Client::new(&config.llm)?;
    let bar = progress_bar(questions.len(), "judging {bar:30} {pos}/{len} questions · {eta} left");
    let answered = &evaluation.per_question;
    let ratings = crate::llm::parallel::ask_all(
        questions.len(),
        config.llm.concurrency,
        &|done, _| bar.set_position(done as u64),
        &|| Ok(()),
        &|i| {
            let contexts: Vec<&str> = answered[i].retrieved.iter().map(|&c| pool.texts[c]).collect();
            crate::eval::judge::context_relevance(&client, &questions[i].question, &contexts)
        },
    )?;
    bar.finish_and_clear();
    evaluation.judge(pool, questions, Some(&|i| Ok(ratings[i])))
}

#[cfg(not(feature = "llm"))]
fn judge_run(_: &mut Evaluation, _: &Pool<'_>, _: &[crate::eval::queries::Resolved], _: &ChunkConfig) -> Result<()> {
    Err(Error::config("--judge needs the 'llm' feature: rebuild chunktui with it"))
}

fn document_in(dir: &Path, id: &str) -> Result<PathBuf> {
    // An id names a document inside the folder: `../x`, `/etc/x` or `C:x` would read outside it.
    let inside = Path::new(id).components().all(|c| matches!(c, std::path::Component::Normal(_)));
    if id.is_empty() || !inside {
        return Err(Error::input(format!(
            "corpus_id '{id}' leaves the corpus folder {}: name a document inside it (its file name without extension)",
            dir.display()
        )));
    }
    ["md", "txt", "markdown", "rst", "html", "htm", "pdf"]
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
    progress: Option<&dyn Fn(usize, usize)>,
) -> Result<(Box<dyn Retriever>, Option<String>)> {
    if kind == RetrieverKind::Bm25 {
        return Ok((Box::new(Lexical::new(&pool.texts)), None));
    }
    // The model the config names (or the default one), as the strategies use it.
    let model =
        Chunker::new(config)?.model().map_err(|e| Error::Model(format!("{e} (--retriever bm25 needs no model)")))?;
    let name = model.model_id().to_string();
    let dense = match progress {
        Some(p) => Dense::new(model, &pool.texts, Control::new(p, None))?,
        None => {
            let bar = progress_bar(pool.texts.len(), "embedding chunks {bar:30} {pos}/{len} · {eta} left");
            let p = |done: usize, _: usize| bar.set_position(done as u64);
            let dense = Dense::new(model, &pool.texts, Control::new(&p, None))?;
            bar.finish_and_clear();
            dense
        }
    };
    let retriever: Box<dyn Retriever> = match kind {
        RetrieverKind::Dense => Box::new(dense),
        _ => Box::new(Hybrid::new(vec![Box::new(dense), Box::new(Lexical::new(&pool.texts))], pool.texts.len())),
    };
    Ok((retriever, Some(name)))
}

pub(super) const METRICS: [&str; 6] = ["recall", "precision", "iou", "precision_omega", "hit_rate", "mrr"];

pub(super) fn metric(e: &Evaluation, name: &str) -> Summary {
    report_metric(&e.report, name)
}

pub(super) fn report_metric(r: &crate::eval::metrics::Report, name: &str) -> Summary {
    match name {
        "recall" => r.recall,
        "precision" => r.precision,
        "iou" => r.iou,
        "precision_omega" => r.precision_omega,
        "hit_rate" => r.hit_rate,
        _ => r.mrr,
    }
}

/// The settings of the model the run embedded with (loaded in this
/// process): as JSON, and as report lines.
#[cfg(feature = "embed")]
fn model_settings(id: &str) -> Option<(serde_json::Value, Vec<String>)> {
    crate::embed::settings_of(id).map(|s| (s.to_json(), s.lines()))
}

#[cfg(not(feature = "embed"))]
fn model_settings(_id: &str) -> Option<(serde_json::Value, Vec<String>)> {
    None
}

/// The settings of the model a config names (`--model`, or a model
/// strategy's default model), read from its directory, for `stats --json`:
/// `None` when no model is configured. With `model` (its name) and
/// `model_choice` (who chose it and why) when this process chose it.
#[cfg(feature = "embed")]
pub(super) fn configured_model_settings(config: &ChunkConfig) -> Result<Option<serde_json::Value>> {
    if config.embed.is_set() {
        return Ok(Some(config.embed.to_json()));
    }
    if config.semantic.model.is_none() && !config.strategy.needs_model() {
        return Ok(None);
    }
    let mut settings = crate::embed::describe(&config.semantic)?.to_json();
    if let (Some(obj), Some(choice)) = (settings.as_object_mut(), super::model::chosen_for(config)) {
        obj.insert("model".into(), choice.model.clone().into());
        obj.insert("model_choice".into(), choice.to_json());
    }
    Ok(Some(settings))
}

#[cfg(not(feature = "embed"))]
pub(super) fn configured_model_settings(_config: &ChunkConfig) -> Result<Option<serde_json::Value>> {
    Ok(None)
}

/// The evaluation as one JSON object: each metric `{mean, std}`,
/// `per_question`, and what was run.
pub(super) fn json_value(run: &Run, kind: RetrieverKind, k: usize) -> serde_json::Value {
    let mut value = serde_json::to_value(&run.evaluation).expect("an evaluation serialises");
    if let Some(obj) = value.as_object_mut() {
        obj.insert("retriever".into(), kind.name().into());
        obj.insert("model".into(), run.model.as_deref().map_or(serde_json::Value::Null, Into::into));
        if let Some(settings) = run.model.as_deref().and_then(model_settings) {
            obj.insert("model_settings".into(), settings.0);
        }
        obj.insert("k".into(), k.into());
        obj.insert("chunks".into(), run.chunks.into());
        obj.insert("chunk_chars".into(), run.chunk_chars.into());
        obj.insert("questions".into(), run.evaluation.per_question.len().into());
    }
    value
}

/// [`json_value`] with `retriever_choice` (whether the user named the
/// retriever, why this one, the text's and the model's languages) and
/// `model_choice` (the model, who chose it, why).
fn json(run: &Run, choice: &Choice, model: &ModelChoice, k: usize) -> String {
    let mut value = json_value(run, choice.kind, k);
    if let Some(obj) = value.as_object_mut() {
        obj.insert("retriever_choice".into(), choice.to_json());
        obj.insert("model_choice".into(), model.to_json());
    }
    serde_json::to_string(&value).expect("JSON") + "\n"
}

fn table(run: &Run, choice: &Choice, model: &ModelChoice, k: usize, c: &ChunkConfig, docs: usize) -> String {
    let (e, kind) = (&run.evaluation, choice.kind);
    let by = run.model.as_deref().map_or(String::new(), |m| format!(" ({m})"));
    let mut out = format!(
        "{} questions · {docs} document{} · {} chunks ({} {} {}, overlap {}) · {kind}{by} top {k}\n",
        e.per_question.len(),
        if docs == 1 { "" } else { "s" },
        run.chunks,
        c.strategy,
        c.size,
        c.unit,
        c.overlap,
    );
    // The model, when one embedded (for the retriever or the strategy).
    if run.model.is_some() || c.strategy.needs_model() {
        out.push_str(&format!("model {}\n", model.reason));
    }
    out.push_str(&format!("retriever {}\n\n", choice.reason));
    // The model's input limit, pooling and prefix, and where each came from.
    if let Some(settings) = run.model.as_deref().and_then(model_settings) {
        settings.1.iter().for_each(|l| out.push_str(&format!("model {l}\n")));
        out.push('\n');
    }
    out.push_str(&format!("{:<18} {:>6} {:>6}\n", "metric", "mean", "std"));
    for name in METRICS {
        let s = metric(e, name);
        out.push_str(&format!("{name:<18} {:>6.3} {:>6.3}\n", s.mean, s.std));
    }
    if let Some(s) = e.context_precision {
        out.push_str(&format!("{:<18} {:>6.3} {:>6.3}\n", "context_precision", s.mean, s.std));
        match e.context_relevance {
            Some(s) => {
                let rated = e.per_question.iter().filter(|a| a.context_relevance.is_some()).count();
                out.push_str(&format!("{:<18} {:>6.3} {:>6.3}", "context_relevance", s.mean, s.std));
                if rated < e.per_question.len() {
                    out.push_str(&format!("  ({rated} of {} questions rated)", e.per_question.len()));
                }
                out.push('\n');
            }
            None => out.push_str("context_relevance     n/a  (no judge's answer held a rating)\n"),
        }
    }
    out
}
