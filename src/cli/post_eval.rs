//! `chunktui eval --post-chunking`: pre-chunking and post-chunking of one
//! folder of documents with the same config, scored on the same questions,
//! with what each costs, in one table (or one JSON object).

use super::args::EvalCmd;
use super::eval::{check_k, metric, questions, report_metric, run_one, Corpus, Run, METRICS};
use super::output::emit;
use super::prepare::{load_input, settings_named_for};
use super::progress::progress_bar;
use crate::config::ChunkConfig;
use crate::embedding::Control;
use crate::error::{Error, Result};
use crate::eval::language::Choice;
use crate::eval::model_choice::ModelChoice;
use crate::eval::retrieve::RetrieverKind;
use crate::post_chunking::evaluate::{evaluate_post, PostEvaluation};
use crate::post_chunking::{ChunkCache, Options, PostChunker, Source};
use std::path::Path;

/// `eval`: post-chunking here (`--post-chunking`, unless it writes
/// questions), every other evaluation in `eval.rs`.
impl super::args::Run for EvalCmd {
    fn run(self, _: &super::args::ChunkFlags) -> Result<()> {
        match self.post_chunking && self.generate.is_none() {
            true => run(self),
            false => super::eval::run(self),
        }
    }
}

pub fn run(cmd: EvalCmd) -> Result<()> {
    if !cmd.path.is_dir() {
        return Err(Error::input(format!(
            "--post-chunking ranks whole documents before cutting them: give a folder of documents, not {}",
            cmd.path.display()
        )));
    }
    let asked = cmd.retriever.as_deref().map(RetrieverKind::parse).transpose()?;
    let doc_kind = RetrieverKind::parse(&cmd.doc_retriever)?;
    check_k(cmd.k)?;
    let queries =
        cmd.queries.as_deref().ok_or_else(|| Error::config("give --queries FILE (or --generate N --out FILE)"))?;
    let questions = questions(queries, cmd.corpus_id.as_deref())?;
    let corpus = load_every(&cmd.path, &cmd.flags)?;
    let resolved = questions.resolve(&corpus.named())?;
    let mut configs = corpus.paths.iter().map(|p| settings_named_for(&cmd.flags, p)).collect::<Result<Vec<_>>>()?;
    let model = corpus.choose_model(&mut configs);
    let configs: Vec<ChunkConfig> = configs.into_iter().map(|(c, _)| c).collect();
    let choice = corpus.choose_retriever(asked, &configs[0]);

    let pre = run_one(&corpus, &resolved, &configs, choice.kind, cmd.k, None, false)?;
    let cache = if cmd.chunk_cache == "off" { ChunkCache::off() } else { ChunkCache::open() };
    let options = Options { documents: cmd.documents, doc_retriever: doc_kind, retriever: choice.kind, cache };
    let sources = sources(&corpus, &configs);
    let started = std::time::Instant::now();
    let bar = progress_bar(corpus.texts.len(), "embedding documents {bar:30} {pos}/{len} windows · {eta} left");
    let p = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let post = PostChunker::new(sources, &configs[0], options, Control::new(&p, None))?;
    bar.finish_and_clear();
    let index_seconds = started.elapsed().as_secs_f64();
    let bar = progress_bar(resolved.len() * 3, "post-chunking {bar:30} {pos}/{len} questions · {eta} left");
    let evaluation = evaluate_post(&post, &resolved, cmd.k, &pre.located, &|done, _| bar.set_position(done as u64))?;
    bar.finish_and_clear();
    if let Some(why) = post.cache_error() {
        let n = evaluation.cost.chunk_cache_write_errors;
        eprintln!("chunktui: warning: the chunks of {n} document(s) could not be kept in the chunk cache: {why}");
    }
    let report = Report { pre: &pre, post: &post, evaluation: &evaluation, index_seconds, choice: &choice, k: cmd.k };
    let out = if cmd.json { report.json(&model) } else { report.table(&model, &configs[0]) };
    emit(out.as_bytes(), None)
}

/// Every document in the folder (not only those the questions name: the
/// others are what document retrieval must rank below them). Files that
/// cannot be read as documents are skipped with a warning line each.
pub(super) fn load_every(folder: &Path, flags: &super::args::ChunkFlags) -> Result<Corpus> {
    if let Some(mb) = flags.max_input_mb {
        crate::input::set_document_limit_mb(mb)?;
    }
    let mut corpus = Corpus { ids: Vec::new(), paths: Vec::new(), texts: Vec::new(), structures: Vec::new() };
    for path in super::files::expand(&[folder.to_path_buf()])? {
        let doc = match load_input(&path, flags.lossy) {
            Ok(doc) => doc,
            Err(e) => {
                eprintln!("chunktui: skipped {}: {e}", path.display());
                continue;
            }
        };
        // The id a question names: the path inside the folder, without extension.
        let inside = path.strip_prefix(folder).unwrap_or(&path).with_extension("");
        let mut id = inside.to_string_lossy().replace('\\', "/");
        if corpus.ids.contains(&id) {
            id = path.strip_prefix(folder).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        }
        corpus.ids.push(id);
        corpus.texts.push(doc.text);
        corpus.structures.push(doc.structure);
        corpus.paths.push(path);
    }
    if corpus.texts.is_empty() {
        return Err(Error::input(format!("{} holds no document chunktui can read", folder.display())));
    }
    Ok(corpus)
}

/// The documents as the post-chunker takes them, each with its settings.
fn sources(corpus: &Corpus, configs: &[ChunkConfig]) -> Vec<Source> {
    (0..corpus.texts.len())
        .map(|i| Source {
            id: corpus.ids[i].clone(),
            text: corpus.texts[i].clone(),
            structure: corpus.structures[i].clone(),
            path: Some(corpus.paths[i].clone()),
            config: Some(configs[i].clone()),
        })
        .collect()
}

/// A post-chunking point of `sweep`: its metrics (as `eval --json` gives
/// them), the chunks the questions made ready and their characters.
pub(super) struct SweepScore {
    pub metrics: serde_json::Value,
    pub chunks: usize,
    pub chunk_chars: usize,
}

/// One post-chunking combination of a sweep: `config` for every document,
/// `aware` for the query-aware cut. Precision ω comes from the config's
/// chunks of the documents the questions are about.
pub(super) fn sweep_point(
    corpus: &Corpus,
    questions: &[crate::eval::queries::Resolved],
    config: &ChunkConfig,
    (retriever, k): (RetrieverKind, usize),
    options: (usize, RetrieverKind),
    aware: bool,
) -> Result<SweepScore> {
    let configs = vec![config.clone(); corpus.texts.len()];
    let (documents, doc_retriever) = options;
    let options = Options { documents, doc_retriever, retriever, cache: ChunkCache::open() };
    let post = PostChunker::new(sources(corpus, &configs), config, options, Control::none())?;
    let chunker = crate::chunker::Chunker::new(config)?;
    let mut asked: Vec<usize> = questions.iter().map(|q| q.doc).collect();
    asked.sort_unstable();
    asked.dedup();
    let mut omega = Vec::new();
    for doc in asked {
        let text = &corpus.texts[doc];
        let chars = crate::size::CharIndex::new(text);
        let chunks = chunker.chunk_structured(text, corpus.structures[doc].as_deref(), Control::none())?;
        omega.extend(chunks.iter().map(|c| crate::eval::metrics::Located {
            doc,
            span: chars.chars_before(c.range.start)..chars.chars_before(c.range.end),
        }));
    }
    let e = evaluate_post(&post, questions, k, &omega, &|_, _| {})?;
    let scores = if aware { &e.query_aware } else { &e.plain };
    let (_, chunks, chunk_chars) = post.cut_so_far();
    Ok(SweepScore { metrics: serde_json::to_value(scores.report).expect("a report serialises"), chunks, chunk_chars })
}

struct Report<'a> {
    pre: &'a Run,
    post: &'a PostChunker,
    evaluation: &'a PostEvaluation,
    /// Seconds to build the document index.
    index_seconds: f64,
    choice: &'a Choice,
    k: usize,
}

impl Report<'_> {
    fn table(&self, model: &ModelChoice, c: &ChunkConfig) -> String {
        let (pre, e, cost) = (self.pre, self.evaluation, self.evaluation.cost);
        let options = self.post.options();
        let mut out = format!(
            "{} questions · {} documents · {} {} {}, overlap {} · chunks by {} top {}\n",
            e.plain.per_question.len(),
            cost.documents_total,
            c.strategy,
            c.size,
            c.unit,
            c.overlap,
            self.choice.kind,
            self.k,
        );
        if pre.model.is_some() || options.doc_retriever.needs_model() {
            out.push_str(&format!("model {}\n", model.reason));
        }
        out.push_str(&format!(
            "post-chunking: the top {} documents by {} ({}), then their chunks\n",
            options.documents,
            options.doc_retriever,
            self.post.document_representation()
        ));
        out.push_str("query-aware: windows of whole sentences placed for each question, within the size\n\n");
        out.push_str(&format!("{:<18} {:>8} {:>8} {:>12}\n", "metric", "pre", "post", "query-aware"));
        for name in METRICS {
            out.push_str(&format!(
                "{name:<18} {:>8.3} {:>8.3} {:>12.3}\n",
                metric(&pre.evaluation, name).mean,
                report_metric(&e.plain.report, name).mean,
                report_metric(&e.query_aware.report, name).mean,
            ));
        }
        let pre_embedded = if pre.model.is_some() { pre.chunks } else { 0 };
        out.push_str(&format!("\n{:<22} {:>14} {:>14}\n", "cost", "pre", "post"));
        let row = |name: &str, a: String, b: String| format!("{name:<22} {a:>14} {b:>14}\n");
        out.push_str(&row("documents chunked", cost.documents_total.to_string(), cost.documents_chunked.to_string()));
        out.push_str(&row("chunk cache hits", "-".into(), cost.chunk_cache_hits.to_string()));
        out.push_str(&row("chunks embedded", pre_embedded.to_string(), cost.chunks_embedded.to_string()));
        out.push_str(&row(
            "index built in",
            format!("{:.2} s", pre.index_seconds),
            format!("{:.2} s", self.index_seconds),
        ));
        out.push_str(&row("query, cold", format!("{:.1} ms", pre.query_ms), format!("{:.1} ms", e.query_ms_cold)));
        out.push_str(&row("query, warm", format!("{:.1} ms", pre.query_ms), format!("{:.1} ms", e.query_ms_warm)));
        out.push_str(&format!("query-aware: {:.1} ms a question, warm\n", e.query_aware_ms));
        if cost.documents_chunked == 0 {
            out.push_str("every retrieved document's chunks came from the chunk cache\n");
        }
        out
    }

    fn json(&self, model: &ModelChoice) -> String {
        let mut value = super::eval::json_value(self.pre, self.choice.kind, self.k);
        let (pre, e, cost) = (self.pre, self.evaluation, self.evaluation.cost);
        let options = self.post.options();
        let pre_cost = serde_json::json!({
            "documents_total": cost.documents_total,
            "documents_chunked": cost.documents_total,
            "chunks": pre.chunks,
            "chunks_embedded": if pre.model.is_some() { pre.chunks } else { 0 },
            "index_seconds": pre.index_seconds,
            "query_ms": pre.query_ms,
        });
        let mut post_cost = serde_json::to_value(cost).expect("costs serialise");
        if let Some(obj) = post_cost.as_object_mut() {
            obj.insert("index_seconds".into(), self.index_seconds.into());
            obj.insert("query_ms_cold".into(), e.query_ms_cold.into());
            obj.insert("query_ms_warm".into(), e.query_ms_warm.into());
            obj.insert("query_aware_ms".into(), e.query_aware_ms.into());
        }
        let post = serde_json::json!({
            "documents": options.documents,
            "doc_retriever": options.doc_retriever.name(),
            "document_representation": self.post.document_representation(),
            "chunk_cache": options.cache.dir().map(|d| d.display().to_string()),
            "plain": e.plain,
            "query_aware": e.query_aware,
            "cost": post_cost,
            "pre_chunking_cost": pre_cost,
        });
        if let Some(obj) = value.as_object_mut() {
            obj.insert("retriever_choice".into(), self.choice.to_json());
            obj.insert("model_choice".into(), model.to_json());
            obj.insert("post_chunking".into(), post);
        }
        serde_json::to_string(&value).expect("JSON") + "\n"
    }
}
